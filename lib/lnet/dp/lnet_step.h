/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The steps of a message: each runs on the lcore that owns what it writes,
 * and lnet_msg_dispatch (lnet_cpt.c) runs the next one inline when it is
 * the same lcore, else hands the message over a ring (one hop). The table
 * (doc/architecture.md draws the journeys through it):
 *
 *   step         function                  lcore (the CPT of)           writes
 *   SEND_MD      lnet_send_md_step         the MD                       MD attach, header
 *   SEND_SELECT  lnet_send_select_step     the destination's peer shard its selection views
 *   SEND_PEER    lnet_send_peer_step       the next hop's peer shard    peer NI tx credits, queue
 *   SEND_NI      lnet_send_ni_step         the tx NI                    NI tx credits, queue; LND send
 *   RX_PEER      lnet_rx_peer_step         the sender's peer shard      peer NI (made if new), router credits
 *   RX_MATCH     lnet_ptl_match            a match table                MEs, a lazy portal's list
 *   RX_MD        lnet_rx_md_step           the MD (its cookie's)        the MD (ACK or REPLY into it)
 *   RX_RECV      lnet_rx_recv_step         the rx NI                    the LND's receive
 *   FIN_NI       lnet_fin_ni_step          the tx NI                    NI tx credit back
 *   FIN_PEER     lnet_fin_peer_step        the peer shard               peer NI tx credit back
 *   FIN_MD       lnet_fin_md_step          the MD                       events, tracking, detach, free
 *   FREE         lnet_msg_free_local       the message's home           its pool cache (freed off lcore)
 *   REMATCH      lnet_ptl_rematch_step     a match table                a lazy portal's delayed list
 *   FWD_DONE     lnet_fwd_done_step        the router buffer's          the buffer, router credits back
 *
 * A peer NI lives in the shard of our NI on its net (lnet_cpt_of_peer): with
 * one NI per net per CPT the peer steps run on the NI's lcore, no hop. A
 * received message leaving its NI's lcore for its MD's has the LND done with
 * it first where it can (lnet_rx_take: consumed, or its payload lent), so
 * RX_RECV is not needed and the copy into the MD runs on the MD's lcore.
 */
#ifndef LNET_STEP_H
#define LNET_STEP_H

struct lnet_cpt;
struct lnet_msg;

/* Which owner's step runs next; a message crosses lcores between steps. */
enum lnet_msg_step {
	LNET_STEP_SEND_MD = 0,
	LNET_STEP_SEND_SELECT,
	LNET_STEP_SEND_PEER,
	LNET_STEP_SEND_NI,
	LNET_STEP_RX_PEER,
	LNET_STEP_RX_MATCH,
	LNET_STEP_RX_MD,
	LNET_STEP_RX_RECV,
	LNET_STEP_FIN_NI,
	LNET_STEP_FIN_PEER,
	LNET_STEP_FIN_MD,
	LNET_STEP_FREE,
	LNET_STEP_REMATCH,
	LNET_STEP_FWD_DONE,
};

/* The steps, each on the caller's CPT @p c (lnet_send.c, lnet_recv.c, lnet_ptl.c, lnet_msg.c, lnet_router.c). */
void lnet_send_md_step(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_send_select_step(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_send_peer_step(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_send_ni_step(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_rx_peer_step(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_ptl_match(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_rx_md_step(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_rx_recv_step(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_fin_ni_step(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_fin_peer_step(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_fin_md_step(struct lnet_cpt *c, struct lnet_msg *msg);
static inline void lnet_msg_free_local(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_ptl_rematch_step(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_fwd_done_step(struct lnet_cpt *c, struct lnet_msg *msg);

/*
 * Run @p step of @p msg on @p c, the caller's CPT. Always inlined: where the
 * step is a constant the switch folds into one direct call.
 */
static inline __attribute__((always_inline)) void
lnet_msg_step_run(struct lnet_cpt *c, struct lnet_msg *msg, enum lnet_msg_step step)
{
	switch (step) {
	case LNET_STEP_SEND_MD:
		lnet_send_md_step(c, msg);
		break;
	case LNET_STEP_SEND_SELECT:
		lnet_send_select_step(c, msg);
		break;
	case LNET_STEP_SEND_PEER:
		lnet_send_peer_step(c, msg);
		break;
	case LNET_STEP_SEND_NI:
		lnet_send_ni_step(c, msg);
		break;
	case LNET_STEP_RX_PEER:
		lnet_rx_peer_step(c, msg);
		break;
	case LNET_STEP_RX_MATCH:
		lnet_ptl_match(c, msg);
		break;
	case LNET_STEP_RX_MD:
		lnet_rx_md_step(c, msg);
		break;
	case LNET_STEP_RX_RECV:
		lnet_rx_recv_step(c, msg);
		break;
	case LNET_STEP_FIN_NI:
		lnet_fin_ni_step(c, msg);
		break;
	case LNET_STEP_FIN_PEER:
		lnet_fin_peer_step(c, msg);
		break;
	case LNET_STEP_FIN_MD:
		lnet_fin_md_step(c, msg);
		break;
	case LNET_STEP_FREE:
		lnet_msg_free_local(c, msg);
		break;
	case LNET_STEP_REMATCH:
		lnet_ptl_rematch_step(c, msg);
		break;
	case LNET_STEP_FWD_DONE:
		lnet_fwd_done_step(c, msg);
		break;
	}
}

#endif /* LNET_STEP_H */
