/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * o2iblnd connection establishment without verbs (o2ib-facts §3): the
 * connection's state machine as an rt_fsm table, and the decisions the
 * kernel takes at each CM event as pure functions of what arrived and
 * what the peer record says: the passive side's checks of a CONNREQ in the
 * kernel's order (with the reject it sends), the active side's reading of
 * a reject (reconnect with which version, queue depth, fragments or
 * incarnation, or give up), and its checks of the CONNACK.
 */
#ifndef O2IB_CONN_H
#define O2IB_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs_nid.h"
#include "lnp_api.h"
#include "o2ib_credits.h"
#include "o2ib_wire.h"
#include "rt_fsm.h"

LNP_BEGIN_DECLS

/** A connection's life, one QP and one RDMA CM id. */
enum o2ib_conn_state {
	O2IB_CONN_INIT = 0,       /**< created, nothing done */
	O2IB_CONN_RESOLVING,      /**< active: address and route resolution */
	O2IB_CONN_ACTIVE_CONNECT, /**< active: CONNREQ sent, waiting for REP or REJ */
	O2IB_CONN_PASSIVE_WAIT,   /**< passive: CONNACK sent, waiting for ESTABLISHED */
	O2IB_CONN_ESTABLISHED,    /**< messages flow */
	O2IB_CONN_CLOSING,        /**< disconnect requested, draining */
	O2IB_CONN_DISCONNECTED,   /**< done: the record can go */
	O2IB_CONN_NSTATES,
};

enum o2ib_conn_event {
	O2IB_CONN_EV_CONNECT = 0,  /**< active: start resolving */
	O2IB_CONN_EV_RESOLVED,     /**< active: route resolved, CONNREQ sent */
	O2IB_CONN_EV_ACCEPT,       /**< passive: a CONNREQ accepted, CONNACK sent */
	O2IB_CONN_EV_ESTABLISHED,  /**< CM ESTABLISHED (active: with a valid CONNACK) */
	O2IB_CONN_EV_REJECTED,     /**< active: the peer rejected */
	O2IB_CONN_EV_FAIL,         /**< resolution, connect, CONNACK check or QP error, timeout */
	O2IB_CONN_EV_CLOSE,        /**< we close (error, timeout, stale peer, shutdown) */
	O2IB_CONN_EV_DISCONNECTED, /**< CM DISCONNECTED / TIMEWAIT_EXIT */
	O2IB_CONN_NEVENTS,
};

LNP_API extern const struct rt_fsm o2ib_conn_fsm;

/** The log type of the o2ib protocol code (DEBUG lines per state change). */
LNP_API extern int o2ib_logtype;

/** The protocol side of a connection; the LND embeds it with its QP and buffers. */
struct o2ib_conn {
	enum o2ib_conn_state state;
	uint16_t version;
	uint16_t queue_depth;
	uint16_t max_frags;
	uint64_t peer_incarnation; /**< the peer's srcstamp: my dststamp on every message */
	struct o2ib_credits cr;    /**< set when ESTABLISHED */
	int error;                 /**< why it closed (-errno), 0 while fine */
	uint64_t *counts;          /**< the owner's: entries per state, or NULL */
	char who[32];              /**< for logs: the peer NID */
};

/** Apply @p ev: 0, or -EINVAL when the table refuses it (the state is unchanged). */
LNP_API int o2ib_conn_step(struct o2ib_conn *c, enum o2ib_conn_event ev);

/**
 * Settle what both sides agreed (version, queue depth, fragments, the
 * peer's incarnation) and start the credits: queue depth each, none owed.
 */
LNP_API void o2ib_conn_settle(struct o2ib_conn *c, uint16_t version, uint16_t queue_depth,
			      uint16_t max_frags, uint64_t peer_incarnation,
			      const struct o2ib_credit_tunables *t);

/** What the connection code knows of a peer NI (kib_peer_ni's connection fields). */
struct o2ib_peer_cm {
	uint16_t version;          /**< 0 until a connection settles it */
	uint16_t queue_depth;      /**< next CONNREQ's (peer_credits, or learned from a reject) */
	uint16_t max_frags;        /**< next CONNREQ's (257, or learned from a reject) */
	uint64_t incarnation;      /**< the peer's, as last learned; 0 unknown */
	unsigned int connecting;   /**< active attempts in progress */
	unsigned int accepting;    /**< passive attempts in progress */
	unsigned int races;        /**< connect races lost in a row */
	unsigned int reconnecting; /**< reconnects scheduled */
	bool tx_queued;            /**< messages wait for a connection */
};

/** A new peer record: version unknown, the NI's queue depth, 257 fragments. */
LNP_API void o2ib_peer_cm_init(struct o2ib_peer_cm *p, uint16_t peer_credits);

/** The local NI, as the connection checks see it. */
struct o2ib_local {
	lnet_nid_t nid;
	uint64_t incarnation;  /**< µs wall-clock time the NI started */
	uint16_t peer_credits; /**< the v2 queue depth I accept (fixed up tunable) */
	bool have_fastreg;     /**< a registration pool: fewer than 257 fragments are fine */
};

/** The fields of the CONNREQ @p p's next connection sends (version, connparams, dststamp). */
struct o2ib_connreq_args {
	uint16_t version;
	struct o2ib_connparams cp;
	uint64_t dststamp;
};
LNP_API void o2ib_connreq_args(const struct o2ib_peer_cm *p, struct o2ib_connreq_args *a);

/** How the destination NID of a CONNREQ matched my NIs. */
enum o2ib_dst_match {
	O2IB_DST_OK = 0, /**< one of my started o2ib NIs on this device */
	O2IB_DST_EARLY,  /**< no NI on the device yet, or one still starting */
	O2IB_DST_WRONG,  /**< not mine, or on another device */
};

/** The passive side's answer to a CONNREQ. */
struct o2ib_passive {
	bool accept;
	uint16_t version;          /**< the requester's when accepted */
	struct o2ib_connparams cp; /**< accepted: the CONNACK's */
	struct o2ib_msg req;       /**< the unpacked request (valid from check 2 on) */
	struct o2ib_rej rej;       /**< rejected: what to send (o2ib_rej_pack) */
	bool close_stale;          /**< close the peer's old connections (-ESTALE) */
	int rc;                    /**< -O2IB_E* of the unpack, or 0 */
};

/**
 * The kernel's passive checks, in order: (1) the private data is an IB
 * request of version 0x11/0x12 and (2) unpacks, else FATAL with version
 * 0x12; (3) its dstnid matches (EARLY or FATAL); (4) a non-zero dststamp
 * is my incarnation (CONN_STALE); it is a CONNREQ (FATAL); (5) its queue
 * depth is at most mine (v2: MSG_QUEUE_SIZE with mine; v1: FATAL); (6) 257
 * fragments, or fewer with fast registration (RDMA_FRAGS for v2); (7)
 * max_msg_size ≤ 4096 (FATAL); (8) a known peer with another incarnation
 * or version (close its connections; CONN_STALE); (9) a race: I am
 * connecting to it and its nidhash is below mine, fewer than 20 times
 * (CONN_RACE). @p peer is the requester's record, @p known false when
 * there was none (it is then set up as a new one); it is updated as the
 * kernel updates it (version, incarnation, races, accepting, queue depth
 * and fragments).
 */
LNP_API void o2ib_passive_check(const struct o2ib_local *me, enum o2ib_dst_match dst,
				const void *priv, size_t len, struct o2ib_peer_cm *peer, bool known,
				struct o2ib_passive *out);

/** IB CM reject reasons the active side tells apart (enum ib_cm_rej_reason). */
#define O2IB_CM_REJ_INVALID_SERVICE_ID 8
#define O2IB_CM_REJ_STALE_CONN 10
#define O2IB_CM_REJ_CONSUMER_DEFINED 28

/** The active side's reading of a reject. */
struct o2ib_rejected {
	bool reconnect; /**< connect again with the peer record as updated */
	int status;     /**< for the failed attempt: -ECONNREFUSED or -EHOSTUNREACH */
	int why;        /**< the kib_rej reason acted on, or -1 without one */
};

/**
 * The kernel's kiblnd_rejected + kiblnd_check_reconnect: on @p conn (in
 * ACTIVE_CONNECT) the CM said @p cm_reason with @p priv. A reconnect is due
 * for RACE, STALE, UNCOMPAT (also FATAL from a v1 peer), MSG_QUEUE_SIZE
 * (with the peer's smaller depth) and RDMA_FRAGS (with its fewer
 * fragments), and for a CM stale-connection reject, when messages wait or
 * the version changes, and no other attempt is in progress. The peer record
 * takes the new version, limits and incarnation.
 */
LNP_API void o2ib_active_rejected(const struct o2ib_conn *conn, int cm_reason, const void *priv,
				  size_t len, struct o2ib_peer_cm *peer, struct o2ib_rejected *out);

/**
 * The active side's checks of the CONNACK in @p priv: it unpacks, is a
 * CONNACK of my version, its queue depth and fragments are at most what I
 * asked, its message size at most 4096 (else -EPROTO), and it is addressed
 * to my NID and incarnation (else -ESTALE). On success @p conn takes the
 * peer's incarnation, queue depth and fragments, and its credits start.
 */
LNP_API int o2ib_check_connack(struct o2ib_conn *conn, const struct o2ib_local *me,
			       const void *priv, size_t len, const struct o2ib_credit_tunables *t);

/** A connection's queue pair and CQ sizes (kiblnd_create_conn). */
struct o2ib_qp_sizes {
	uint16_t queue_depth; /**< lowered when the device cannot hold the send queue */
	uint32_t send_wr;
	uint32_t recv_wr;
	uint32_t cqe;
};

/**
 * Size a connection as the kernel does: each of queue_depth transfers may
 * take 1 + max_frags send WRs (+2 with fast registration: map and
 * invalidate); above the device's max_qp_wr the queue depth drops to fit
 * (at least 1); receives are 2 × depth (+2 out-of-band NOOPs for v2); the
 * CQ holds both. If creating the QP still fails with ENOMEM, the caller
 * lowers queue_depth by one and sizes again, down to 1.
 */
LNP_API void o2ib_qp_size(unsigned int version, unsigned int queue_depth, unsigned int max_frags,
			  bool fastreg, uint32_t max_qp_wr, struct o2ib_qp_sizes *out);

LNP_END_DECLS

#endif /* O2IB_CONN_H */
