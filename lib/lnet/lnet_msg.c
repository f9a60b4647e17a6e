/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message life cycle: allocation from a per-CPT cache, completion
 * (lnet_finalize) through the owners of the credits it holds, events, and
 * the ACK that follows a received PUT.
 */
#include <stdlib.h>
#include <string.h>

#include "lnet_internal.h"

struct lnet_msg *
lnet_msg_alloc(struct lnet_cpt *c)
{
	struct lnet_msg *msg = TAILQ_FIRST(&c->msg_cache);

	if (msg != NULL) {
		TAILQ_REMOVE(&c->msg_cache, msg, link);
		c->nmsg_cache--;
		memset(msg, 0, sizeof(*msg));
	} else {
		msg = calloc(1, sizeof(*msg));
		if (msg == NULL) {
			return NULL;
		}
	}
	msg->ln = c->ln;
	msg->home_cpt = c->cpt;
	c->counters.msgs_alloc++;
	if (c->counters.msgs_alloc > c->counters.msgs_max) {
		c->counters.msgs_max = c->counters.msgs_alloc;
	}
	return msg;
}

void
lnet_msg_free_local(struct lnet_cpt *c, struct lnet_msg *msg)
{
	lnet_msg_put_nis(c, msg);
	c->counters.msgs_alloc--;
	if (c->nmsg_cache < LNET_MSG_CACHE_MAX) {
		TAILQ_INSERT_HEAD(&c->msg_cache, msg, link);
		c->nmsg_cache++;
		return;
	}
	free(msg);
}

/* Messages go back to the cache of the CPT that allocated them. */
void
lnet_msg_free(struct lnet_msg *msg)
{
	lnet_msg_dispatch(msg->ln, msg, msg->home_cpt, LNET_STEP_FREE);
}

void
lnet_msg_cache_drain(struct lnet_cpt *c)
{
	struct lnet_msg *msg;

	while ((msg = TAILQ_FIRST(&c->msg_cache)) != NULL) {
		TAILQ_REMOVE(&c->msg_cache, msg, link);
		free(msg);
	}
	c->nmsg_cache = 0;
}

/*
 * Complete @p msg: return its NI credit, then its peer credit, each on the
 * lcore that owns it, then post its event on the MD's lcore.
 */
void
lnet_finalize(struct lnet_msg *msg, int status)
{
	struct lnet *ln = msg->ln;

	if (msg->status == 0) {
		msg->status = status;
	}
	if (msg->txcredit) {
		lnet_msg_dispatch(ln, msg, msg->txni->cpt, LNET_STEP_FIN_NI);
	} else if (msg->peertxcredit) {
		lnet_msg_dispatch(ln, msg, msg->peer_cpt, LNET_STEP_FIN_PEER);
	} else {
		lnet_msg_dispatch(ln, msg, msg->md != NULL ? msg->md_cpt : msg->home_cpt,
				  LNET_STEP_FIN_MD);
	}
}

static void
lnet_msg_count(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_counters *ctr = &c->counters;

	if (msg->status != 0) {
		ctr->errors++;
		return;
	}
	if (msg->tx) {
		ctr->send_count++;
		ctr->send_length += msg->wanted;
		if (msg->txni != NULL) {
			__atomic_fetch_add(&msg->txni->stats.send_count, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&msg->txni->stats.sent[msg->hdr.type], 1, __ATOMIC_RELAXED);
		}
	} else {
		ctr->recv_count++;
		ctr->recv_length += msg->wanted;
		if (msg->rxni != NULL) {
			__atomic_fetch_add(&msg->rxni->stats.recv_count, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&msg->rxni->stats.received[msg->hdr.type], 1,
					   __ATOMIC_RELAXED);
		}
	}
}

static enum lnet_event_kind
lnet_msg_event_kind(const struct lnet_msg *msg)
{
	if (msg->is_reply_to_get) {
		return LNET_EVENT_GET;
	}
	if (msg->tx) {
		return LNET_EVENT_SEND;
	}
	switch (msg->hdr.type) {
	case LNET_MSG_ACK:
		return LNET_EVENT_ACK;
	case LNET_MSG_REPLY:
		return LNET_EVENT_REPLY;
	case LNET_MSG_GET:
		return LNET_EVENT_GET;
	default:
		return LNET_EVENT_PUT;
	}
}

/* Detach @p msg from its MD and post its event (lnet_msg_detach_md). */
static void
lnet_msg_detach_md(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_libmd *md = msg->md;

	md->refcount--;
	if (lnet_md_exhausted(md) && (md->flags & LNET_MD_FLAG_AUTO_UNLINK) != 0) {
		lnet_md_unlink(c, md);
	}
	msg->ev.type = lnet_msg_event_kind(msg);
	msg->ev.status = msg->status;
	msg->ev.mhealth = msg->status == 0 ? LNET_MSG_STATUS_OK : LNET_MSG_STATUS_LOCAL_ERROR;
	msg->ev.unlinked = md->refcount == 0 && (md->flags & LNET_MD_FLAG_ZOMBIE) != 0;
	lnet_md_deliver_event(c, md, &msg->ev);
	msg->md = NULL;
	lnet_md_release(c, md);
}

void
lnet_fin_md_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	bool send_ack;

	if (!msg->counted) {
		lnet_msg_count(c, msg);
	}
	send_ack = !msg->tx && msg->ack_pending && msg->status == 0;
	if (msg->md != NULL) {
		lnet_msg_detach_md(c, msg);
	}
	if (send_ack) {
		lnet_send_ack(c, msg);
		return;
	}
	lnet_msg_free(msg);
}

/* Drop a received message: count it and let the LND discard its payload. */
void
lnet_drop_rx(struct lnet_cpt *c, struct lnet_msg *msg, const char *why)
{
	char src[LNET_NIDSTR_SIZE];

	c->counters.drop_count++;
	c->counters.drop_length += msg->hdr.payload_length;
	if (msg->rxni != NULL) {
		__atomic_fetch_add(&msg->rxni->stats.drop_count, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&msg->rxni->stats.dropped[msg->hdr.type], 1, __ATOMIC_RELAXED);
	}
	LNET_LOG(DEBUG, "dropping %s from %s: %s",
		 lnet_msg_type_str(msg->hdr.type),
		 libcfs_nidstr_r(&msg->hdr.src_nid, src, sizeof(src)), why);
	lnet_ni_recv(c, msg, LNET_RX_DROP);
}

const struct lnet_hdr *
lnet_msg_hdr(const struct lnet_msg *msg)
{
	return &msg->hdr;
}

void
lnet_msg_payload(const struct lnet_msg *msg, unsigned int *niov, const struct iovec **iov,
		 unsigned int *offset, unsigned int *len)
{
	if (msg->md == NULL || msg->wanted == 0) {
		*niov = 0;
		*iov = NULL;
		*offset = 0;
		*len = 0;
		return;
	}
	*niov = msg->md->niov;
	*iov = msg->md->iov;
	*offset = msg->offset;
	*len = msg->wanted;
}

const char *
lnet_msg_type_str(uint32_t type)
{
	static const char *const names[] = {
		[LNET_MSG_ACK] = "ACK", [LNET_MSG_PUT] = "PUT", [LNET_MSG_GET] = "GET",
		[LNET_MSG_REPLY] = "REPLY", [LNET_MSG_HELLO] = "HELLO",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "<unknown>";
}
