/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The ksocklnd connection handshake as an explicit, non-blocking state
 * machine over one stream socket (lnet-facts §4.1-4.5). It never blocks:
 * sock_conn_progress() moves as far as the socket allows and says whether
 * the connection is up, still going, or failed (with the reason).
 *
 * Active side:  IDLE -start_active-> SEND_CONNREQ_HELLO -sent-> RECV_HELLO
 *               -reply-> ESTABLISHED
 * Passive side: IDLE -start_passive-> RECV_CONNREQ -connreq-> RECV_HELLO
 *               -hello-> SEND_HELLO -sent-> ESTABLISHED
 * Any state but the last two: -fail-> FAILED (refused, protocol error,
 * peer closed). Only sock_conn_set_state() moves it, by sock_conn_fsm's
 * table; every other pair is refused.
 */
#ifndef SOCK_CONN_H
#define SOCK_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ksock_proto.h"
#include "rt_fsm.h"
#include "sock_stream.h"
#include "sock_tap.h"

enum sock_conn_state {
	SOCK_CONN_IDLE = 0,           /**< not started */
	SOCK_CONN_SEND_CONNREQ_HELLO, /**< active: connreq and hello going out */
	SOCK_CONN_RECV_CONNREQ,       /**< passive: waiting for the connreq */
	SOCK_CONN_RECV_HELLO,         /**< waiting for the peer's hello */
	SOCK_CONN_SEND_HELLO,         /**< passive: our hello (or refusal) going out */
	SOCK_CONN_ESTABLISHED,
	SOCK_CONN_FAILED,
	SOCK_CONN_NSTATES,
};

enum sock_conn_event {
	SOCK_CONN_EV_START_ACTIVE = 0, /**< our request and hello are framed */
	SOCK_CONN_EV_START_PASSIVE,    /**< accepted: wait for the request */
	SOCK_CONN_EV_SENT,             /**< what was framed is all out */
	SOCK_CONN_EV_CONNREQ,          /**< passive: a request for one of our NIs is in */
	SOCK_CONN_EV_REPLY,            /**< active: the peer's valid answer is in */
	SOCK_CONN_EV_HELLO,            /**< passive: the peer's hello is in, our answer framed */
	SOCK_CONN_EV_FAIL,
	SOCK_CONN_NEVENTS,
};

/** Decisions the passive side asks its owner for. */
struct sock_conn_policy {
	/** Is @p nid one of our NIs (the connreq's target)? */
	bool (*nid_is_local)(void *ctx, const struct lnet_nid *nid);
	/**
	 * Accept the peer's hello? Return the connection type to answer with
	 * (the inverse of the peer's), or SOCKLND_CONN_NONE to refuse (a race
	 * this side wins, a duplicate): the refusal is sent, then the
	 * connection fails with -EALREADY.
	 */
	int (*accept_hello)(void *ctx, const struct ksock_hello *peer);
	/**
	 * The request names @p nid, not us: does another NI of ours take the
	 * connection? Then the handshake stops with -EXDEV, the request's
	 * bytes still in rx for that NI (sock_conn_prefill). May be NULL.
	 */
	bool (*hand_off)(void *ctx, const struct lnet_nid *nid);
	void *ctx;
};

struct sock_conn {
	int fd;                 /**< for logs: the kernel stream's socket, else -1 */
	struct sock_stream *st; /**< what it reads and writes: own, or the owner's */
	struct sock_stream own; /**< the kernel stream over the fd given at init */
	bool active;
	enum sock_conn_state state;
	int error;     /**< -errno once FAILED */
	char why[128]; /**< what failed, for logs and counters */
	const struct ksock_proto *proto;
	struct lnet_nid target;         /**< active: the NID we connect to */
	struct ksock_hello local;       /**< what we send */
	struct ksock_hello peer;        /**< what the peer sent */
	struct sock_conn_policy policy; /**< passive side */
	const struct sock_tap *tap;     /**< the owner's, or NULL: set after init */
	uint64_t *counts;               /**< the owner's: entries per state, or NULL */
	uint8_t tx[160];
	size_t txlen;
	size_t txoff;
	uint8_t rx[160];
	size_t rxlen;
};

/**
 * Start the active side on a connected (or connecting) non-blocking socket:
 * @p local has our NID, pid, incarnation and the connection type we want.
 */
int sock_conn_init_active(struct sock_conn *c, int fd, const struct ksock_proto *proto,
			  const struct lnet_nid *target, const struct ksock_hello *local,
			  uint64_t *counts);

/**
 * Start the passive side on an accepted non-blocking socket. @p local has
 * our pid and incarnation; the NID answered with is the connreq's target.
 */
int sock_conn_init_passive(struct sock_conn *c, int fd, const struct ksock_hello *local,
			   const struct sock_conn_policy *policy, uint64_t *counts);

/** The handshake's table and names (rt_fsm_next(), rt_fsm_state_str()). */
extern const struct rt_fsm sock_conn_fsm;

/**
 * The one place the handshake's state changes: by the table, with a DEBUG
 * line and the owner's count of entries. @return 0, or -EINVAL (refused:
 * the state stays).
 */
int sock_conn_set_state(struct sock_conn *c, enum sock_conn_event ev);

/**
 * Move the handshake on. @return 1 established, 0 in progress (wait for
 * the socket), or the -errno it failed with (c->why says why).
 */
int sock_conn_progress(struct sock_conn *c);

/**
 * Read and write @p st (the owner's, any transport) instead of the fd
 * given at init; right after init, before any progress.
 */
void sock_conn_set_stream(struct sock_conn *c, struct sock_stream *st);

/** Passive, handed over by another NI: the bytes it read of the request. */
int sock_conn_prefill(struct sock_conn *c, const uint8_t *bytes, size_t n);

/** Whether progress needs the socket writable (else readable). */
bool sock_conn_wants_write(const struct sock_conn *c);

#endif /* SOCK_CONN_H */
