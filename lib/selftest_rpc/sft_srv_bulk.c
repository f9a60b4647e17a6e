/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The server's bulk transfers, as 2.17's srpc_do_bulk: a sink GETs the
 * requester's bulk (its MD counts two events, SEND then REPLY), a source
 * PUTs into it with no ACK (one event, SEND). The transfer is whole when
 * the REPLY brought every byte, or the PUT's SEND succeeded; otherwise it
 * ended in error (-EIO to its request, as the kernel's). Completed bytes
 * count as bulk_get or bulk_put.
 */
#include <errno.h>
#include <stdlib.h>

#include "sft_srv_internal.h"

/* brw buffers kept free between RPCs: enough for a busy client's concurrency. */
#define SFT_BUFPOOL_KEEP 64u

void *
sft_bufpool_get(struct sft_bufpool *p)
{
	if (p->n > 0) {
		return p->free[--p->n];
	}
	return aligned_alloc(SFT_BRW_PAGE_SIZE, SFT_BRW_MAX_LEN);
}

void
sft_bufpool_put(struct sft_bufpool *p, void *buf)
{
	if (p->n == p->cap && p->cap < SFT_BUFPOOL_KEEP) {
		unsigned int cap = p->cap == 0 ? 8 : p->cap * 2;
		void **free_bufs = realloc(p->free, cap * sizeof(*free_bufs));

		if (free_bufs != NULL) {
			p->free = free_bufs;
			p->cap = cap;
		}
	}
	if (p->n < p->cap) {
		p->free[p->n++] = buf;
		return;
	}
	free(buf);
}

void
sft_bufpool_fini(struct sft_bufpool *p)
{
	while (p->n > 0) {
		free(p->free[--p->n]);
	}
	free(p->free);
	p->free = NULL;
	p->cap = 0;
}

void
sft_srv_bulk_free(struct sft_srv *s, struct sft_bulk *b)
{
	if (b->pooled) {
		sft_bufpool_put(&s->pool, b->buf);
	}
	sft_srv_obj_free(&b->obj);
}

/* The transfer ended: its request goes on (unless the server is stopping). */
static void
sft_srv_bulk_end(struct sft_srv *s, struct sft_bulk *b)
{
	b->answered = true;
	if (!s->stopping) {
		b->done(s, b);
	}
}

void
sft_srv_bulk_start(struct sft_srv *s, struct sft_bulk *b)
{
	struct lnet_md md = {
		.umd_start = b->buf,
		.umd_length = b->len,
		.umd_threshold = b->sink ? 2 : 1, /* a GET: SEND and REPLY */
		.umd_user_ptr = &b->obj,
		.umd_eq_handle = s->eq,
	};
	int rc;

	b->status = -EIO;
	sft_srv_obj_live(s, &b->obj, SFT_OBJ_BULK);
	if (LNetMDBind(&md, LNET_UNLINK, &b->obj.mdh) != 0) {
		s->stats.send_failed++;
		b->obj.md_live = false;
		sft_srv_bulk_end(s, b);
		sft_srv_bulk_free(s, b);
		return;
	}
	if (b->sink) {
		rc = LNetGet(&b->self, b->obj.mdh, &b->peer, SFT_PORTAL_RDMA, b->bulkid, 0, false);
	} else {
		rc = LNetPut(&b->self, b->obj.mdh, LNET_NOACK_REQ, &b->peer, SFT_PORTAL_RDMA,
			     b->bulkid, 0, 0);
	}
	if (rc != 0) {
		s->stats.send_failed++;
		LNetMDUnlink(b->obj.mdh); /* its UNLINK event ends it */
	}
}

void
sft_srv_bulk_event(struct sft_srv *s, struct sft_bulk *b, const struct lnet_event *ev)
{
	bool whole = ev->status == 0 && ev->mlength == b->len;

	if (b->sink && ev->type == LNET_EVENT_REPLY && whole) {
		b->status = 0;
		s->rpc.bulk_get += ev->mlength;
		/*
		 * Every byte is in the buffer: the request goes on now, not at the
		 * unlink. The GET's own SEND event waits for the peer's TCP to
		 * acknowledge it, and a peer that sends nothing back on that
		 * connection acknowledges it only after its delayed ACK (40 ms);
		 * the buffer stays ours until the unlink all the same.
		 */
		if (!b->answered) {
			sft_srv_bulk_end(s, b);
		}
	} else if (!b->sink && ev->type == LNET_EVENT_SEND && whole) {
		b->status = 0;
		s->rpc.bulk_put += ev->mlength;
	} else if (ev->type == LNET_EVENT_SEND && ev->status != 0 && !ev->unlinked) {
		LNetMDUnlink(b->obj.mdh); /* the GET failed: no REPLY will come */
	}
	if (!ev->unlinked) {
		return;
	}
	b->obj.md_live = false;
	if (!b->answered) {
		sft_srv_bulk_end(s, b);
	}
}
