/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GETs an LND does by RDMA (LNET_LND_CAP_RDMA_GET, o2iblnd's GET_REQ): the
 * initiator's side. The GET went out with its sink advertised
 * (lnet_msg_get_sink); the peer wrote the REPLY's bytes into it and said
 * so (GET_DONE); the REPLY is then delivered to the GET's MD as a received
 * one whose bytes are in place already. The target's side is in
 * lnet_recv.c (lnet_rx_get_rdma).
 */
#include <errno.h>

#include "lnet_internal.h"

void
lnet_msg_get_sink(const struct lnet_msg *msg, unsigned int *niov, const struct iovec **iov,
		  unsigned int *len)
{
	if (msg->hdr.type != LNET_MSG_GET || msg->md == NULL) {
		*niov = 0;
		*iov = NULL;
		*len = 0;
		return;
	}
	/* The MD's fragments and length are fixed once it is bound: read here, never written. */
	*niov = msg->md->niov;
	*iov = msg->md->iov;
	*len = msg->hdr.msg.get.sink_length;
}

/* The REPLY the peer would have sent for @p getmsg, @p len bytes long. */
static void
lnet_get_rdma_reply_hdr(const struct lnet_msg *getmsg, unsigned int len, struct lnet_hdr *h)
{
	*h = (struct lnet_hdr){ .type = LNET_MSG_REPLY,
				.src_nid = getmsg->hdr.dest_nid,
				.dest_nid = getmsg->hdr.src_nid,
				.src_pid = getmsg->hdr.dest_pid,
				.dest_pid = getmsg->hdr.src_pid,
				.payload_length = len };
	h->msg.reply.dst_wmd = getmsg->hdr.msg.get.return_wmd;
}

int
lnet_get_rdma_done(struct lnet_ni *ni, struct lnet_msg *getmsg, unsigned int len)
{
	struct lnet_cpt *c = lnet_cpt_self(ni->ln);
	struct lnet_msg *msg;

	LNET_OWNER_ASSERT(ni->ln, ni->cpt);
	msg = lnet_msg_alloc(c);
	if (msg == NULL) {
		c->counters.drop_count++;
		c->counters.drop_length += len;
		return -ENOMEM;
	}
	lnet_get_rdma_reply_hdr(getmsg, len, &msg->hdr);
	lnet_msg_set_rxni(c, msg, ni);
	msg->from = getmsg->nexthop;
	msg->rxpeer = getmsg->txpeer; /* counts only: its owner's state is not written */
	msg->initiator_nid = msg->hdr.src_nid;
	msg->len = len;
	/* The LND is done with it: its bytes are in the MD (lnet_rx_taken_run). */
	msg->lnd_private = NULL;
	msg->rx_consumed = true;
	msg->md_cpt = (uint16_t)lnet_cookie_cpt(msg->hdr.msg.reply.dst_wmd.wh_object_cookie);
	lnet_msg_dispatch_c(c, msg, msg->md_cpt, LNET_STEP_RX_MD);
	return 0;
}
