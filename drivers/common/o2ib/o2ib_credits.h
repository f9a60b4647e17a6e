/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * o2iblnd flow control on one connection (o2ib-facts §4), as plain
 * arithmetic the LND calls at each step: which queue a message waits in,
 * whether it may be posted now, the credits its header returns, what a
 * received message gives back and what reposting its buffer owes, and when
 * a standalone NOOP must carry credits home.
 *
 * Three counts: credits (messages the peer has buffers for), reserved
 * (PUT_REQ/GET_REQ whose reply buffer I hold: a request moves to the
 * credit queue only while one is free, so replies can never be starved),
 * outstanding (credits I owe the peer, sent in the next header). v2 NOOPs
 * are out of band: no credit, at most two posted. v1 keeps its last credit
 * for a NOOP and counts a NOOP like any message.
 */
#ifndef O2IB_CREDITS_H
#define O2IB_CREDITS_H

#include <stdbool.h>
#include <stdint.h>

#include "lnp_api.h"
#include "o2ib_idl.h"

LNP_BEGIN_DECLS

/** The per-NI tunables the credit rules use, as the kernel fixes them up (see o2ib_tunables_fix). */
struct o2ib_credit_tunables {
	int credits;          /**< NI tx credits (module parameter credits, 256) */
	int peer_credits;     /**< per-peer: the v2 queue depth (8) */
	int peer_credits_hiw; /**< when to return credits eagerly (0: peer_credits / 2) */
	int concurrent_sends; /**< sends in flight per connection (0: peer_credits) */
};

/**
 * Clamp as kiblnd_tunables_setup does: peer_credits to [8, 255] and ≤
 * credits; peer_credits_hiw 0 → peer_credits/2, then to [peer_credits/2,
 * peer_credits - 1]; concurrent_sends 0 → peer_credits, then to
 * [peer_credits/2, 2 × peer_credits].
 */
LNP_API void o2ib_tunables_fix(struct o2ib_credit_tunables *t);

/** Where a message waits to be posted. */
enum o2ib_txq {
	O2IB_TXQ_NOCRED = 0, /**< PUT_NAK/ACK/DONE, GET_DONE, v2 NOOP: no credit needed */
	O2IB_TXQ_NOOPS,      /**< v1 NOOP: needs a credit, may take the last one */
	O2IB_TXQ_CRED,       /**< IMMEDIATE, and requests that got a reserved slot */
	O2IB_TXQ_RSRVD,      /**< PUT_REQ, GET_REQ: wait for a reserved slot first */
};

/** The queue a message of @p type joins on a connection of @p version; -1 if it is never sent. */
LNP_API int o2ib_txq_of(unsigned int type, unsigned int version);

/** What reposting a receive buffer gives back (kiblnd_post_rx's credit). */
enum o2ib_rx_credit {
	O2IB_RX_NO_CREDIT =
		0, /**< nothing (v2 NOOP; PUT_REQ answered by PUT_ACK: PUT_DONE returns it) */
	O2IB_RX_PEER_CREDIT,  /**< one credit owed to the peer */
	O2IB_RX_RSRVD_CREDIT, /**< one reserved slot back (the reply to my request came) */
};

/**
 * The credit a buffer returns once a message of @p type is handled.
 * @p credits_in_msg matters for v1 NOOPs only; @p put_acked for PUT_REQ (a
 * PUT_ACK was sent, so the credit comes back with PUT_DONE instead).
 */
LNP_API enum o2ib_rx_credit o2ib_rx_credit_of(unsigned int type, unsigned int version,
					      uint8_t credits_in_msg, bool put_acked);

/** One connection's counts. */
struct o2ib_credits {
	uint16_t version;
	uint16_t queue_depth;
	uint16_t hiw;              /**< owed credits that trigger a NOOP */
	uint16_t concurrent_sends; /**< cap on nsends_posted */
	int credits;
	int reserved;
	int outstanding;
	int nsends_posted; /**< posted, send completion not yet seen */
	int noops_posted;
};

/**
 * Start a connection of @p version at @p queue_depth: credits and reserved
 * = queue depth, nothing owed. The high-water is peer_credits_hiw scaled
 * by queue_depth / peer_credits (7 for v1); concurrent_sends is clamped to
 * [4, 16] for v1.
 */
LNP_API void o2ib_credits_init(struct o2ib_credits *c, unsigned int version,
			       unsigned int queue_depth, const struct o2ib_credit_tunables *t);

/** Why a message cannot be posted yet; 0 when it can. */
enum o2ib_post_block {
	O2IB_POST_OK = 0,
	O2IB_POST_CONCURRENT, /**< concurrent_sends reached: wait for a send completion */
	O2IB_POST_NO_CREDIT,  /**< no peer credit */
	O2IB_POST_LAST_CREDIT /**< v1: the last credit is kept for a NOOP */
};

/** May a message of @p type from queue @p q be posted now (kiblnd_post_tx_locked's checks)? */
LNP_API enum o2ib_post_block o2ib_credits_can_post(const struct o2ib_credits *c, enum o2ib_txq q,
						   unsigned int type);

/**
 * Take a reserved slot for a request moving from RSRVD to CRED. False when
 * none is free.
 */
LNP_API bool o2ib_credits_take_reserved(struct o2ib_credits *c);

/**
 * A message is posted: use a credit if its queue needs one, count it in
 * flight, and return the credits its header carries (all that is owed).
 */
LNP_API uint8_t o2ib_credits_posted(struct o2ib_credits *c, enum o2ib_txq q, unsigned int type);

/** The post failed after o2ib_credits_posted: give back what it took (@p hdr_credits as returned). */
LNP_API void o2ib_credits_post_failed(struct o2ib_credits *c, enum o2ib_txq q, unsigned int type,
				      uint8_t hdr_credits);

/** A send completion for a message of @p type. */
LNP_API void o2ib_credits_send_done(struct o2ib_credits *c, unsigned int type);

/**
 * A message arrived returning @p credits: -1 if they overflow the queue
 * depth (the kernel closes the connection with -EPROTO), else 0. A v1 NOOP
 * that returned credits also owes one back (its own credit).
 */
LNP_API int o2ib_credits_received(struct o2ib_credits *c, unsigned int type, uint8_t credits);

/** A receive buffer was reposted with @p credit. */
LNP_API void o2ib_credits_rx_reposted(struct o2ib_credits *c, enum o2ib_rx_credit credit);

/** What else the connection has queued, for the NOOP decision. */
struct o2ib_txq_view {
	bool nocred_empty;  /**< nothing waits in NOCRED (which could carry the credits) */
	bool cred_empty;    /**< nothing waits in CRED */
	bool noops_empty;   /**< v1: no NOOP already queued */
	bool keepalive_due; /**< nothing sent for `keepalive` seconds */
};

/** Must a standalone NOOP be queued now (kiblnd_need_noop)? */
LNP_API bool o2ib_credits_need_noop(const struct o2ib_credits *c, const struct o2ib_txq_view *q);

/**
 * At the head of its queue, is a NOOP to be dropped rather than posted: no
 * longer needed, or (v2) two already in flight? @p q describes the queues
 * without this NOOP (it has left its queue). A NOOP is queued again when
 * one completes, so dropping loses nothing.
 */
LNP_API bool o2ib_credits_noop_redundant(const struct o2ib_credits *c,
					 const struct o2ib_txq_view *q);

LNP_END_DECLS

#endif /* O2IB_CREDITS_H */
