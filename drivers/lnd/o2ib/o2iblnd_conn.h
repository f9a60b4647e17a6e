/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * One o2ib connection's message engine over the hardware ops: its
 * registered 4 KiB message slots (2 × queue depth + 2 receives, pre-posted
 * before the CM connects, as the kernel's), the send queues and credit
 * flow of o2ib_credits, NOOPs, and the three ways an LNet message moves
 * (o2ib-facts §2.1): IMMEDIATE, PUT_REQ → PUT_ACK → RDMA WRITE → PUT_DONE,
 * GET_REQ → RDMA WRITE → GET_DONE. Receives are checked as the kernel's
 * kiblnd_rx_complete (unpack, NIDs and stamps, credits) before anything
 * is handed up. Everything runs on the data lcore that polls the CQ.
 *
 * Connection set-up (RDMA CM) is the owner's: it creates the engine with
 * the QP, steps the protocol FSM (o2iblnd_conn_proto) through connect or
 * accept, and calls o2iblnd_conn_established with what was agreed. The
 * @p user of a send or an answer is the owner's handle for the message
 * (never NULL: NULL marks the engine's own NOOPs and NAKs).
 */
#ifndef O2IBLND_CONN_H
#define O2IBLND_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "lnet_wire.h"
#include "o2ib_conn.h"
#include "o2iblnd_hw.h"

struct o2iblnd_conn;
struct o2iblnd_rx;

/** What the engine tells its owner (the LND, or a test). */
struct o2iblnd_conn_ops {
	/**
	 * An IMMEDIATE, PUT_REQ or GET_REQ arrived (@p m points into @p rx's
	 * buffer). The owner answers it once: o2iblnd_rx_done (IMMEDIATE),
	 * o2iblnd_put_ack / o2iblnd_put_nak (PUT_REQ), o2iblnd_get_reply /
	 * o2iblnd_get_nak (GET_REQ); until then the buffer stays out of the
	 * receive queue and its credit is not returned.
	 */
	void (*rx)(void *arg, struct o2iblnd_rx *rx, const struct o2ib_msg *m);
	/**
	 * A message I sent has completed: an IMMEDIATE or a GET's reply once
	 * sent (0), a PUT once its PUT_DONE is sent (0) or NAK'd (the peer's
	 * status), a GET once GET_DONE came (its status: bytes or -errno), or
	 * anything with -errno when the connection failed.
	 */
	void (*tx_done)(void *arg, void *user, int status);
	/** An incoming PUT I acknowledged is complete: 0 at PUT_DONE, or the peer's or the connection's -errno. */
	void (*sink_done)(void *arg, void *user, int status);
};

struct o2iblnd_conn_cfg {
	const struct o2ib_hw_ops *hw;
	struct o2ib_hw_dev *dev;
	struct o2ib_hw_qp *qp;
	struct o2ib_hw_cq *cq; /**< this connection's: the engine polls it */
	const struct o2ib_local *me;
	lnet_nid_t peer_nid;
	uint16_t version;     /**< as requested or accepted */
	uint16_t queue_depth; /**< sizes the receive slots; the agreed depth may be lower */
	uint32_t ntx;         /**< message slots for sending */
	uint32_t wrq_sge;     /**< source pieces per RDMA WRITE (module parameter wrq_sge) */
	struct o2ib_credit_tunables tun;
	uint64_t timeout_ns;   /**< a message queued longer closes the connection; 0 never */
	uint64_t keepalive_ns; /**< a NOOP after this long without a send; 0 never */
	bool cksum;
	const struct o2iblnd_conn_ops *ops;
	void *arg;
};

/**
 * Allocate and register the slots and post every receive. The protocol
 * state starts at INIT. 0 or -errno.
 */
int o2iblnd_conn_create(const struct o2iblnd_conn_cfg *cfg, struct o2iblnd_conn **out);

/** Fail what is left (-ECONNABORTED unless closed with another error) and free. */
void o2iblnd_conn_destroy(struct o2iblnd_conn *c);

/** The protocol side: its FSM state, credits, version. */
struct o2ib_conn *o2iblnd_conn_proto(struct o2iblnd_conn *c);

/**
 * Connected with what both sides agreed: credits start, the FSM enters
 * ESTABLISHED (from ACTIVE_CONNECT or PASSIVE_WAIT), queued sends go. 0 or
 * -EINVAL when the FSM refuses.
 */
int o2iblnd_conn_established(struct o2iblnd_conn *c, uint16_t queue_depth, uint16_t max_frags,
			     uint64_t peer_incarnation);

/**
 * Close with @p error: the FSM goes to CLOSING, and every message still
 * queued or waiting for the peer completes with @p error.
 */
void o2iblnd_conn_close(struct o2iblnd_conn *c, int error);

/**
 * The clock moved to @p now_ns (monotonic): a message queued or waiting
 * past its deadline (queued + timeout) closes the connection with
 * -ETIMEDOUT, as the kernel's connd scan; nothing sent for longer than keepalive
 * sends a NOOP. Deadlines count from the last tick before the message
 * was queued.
 */
void o2iblnd_conn_tick(struct o2iblnd_conn *c, uint64_t now_ns);

/** Handle up to @p budget completions. Their number, or -errno of the CQ. */
int o2iblnd_conn_poll(struct o2iblnd_conn *c, int budget);

/** Send an LNet message whole: header and @p len payload bytes (≤ 3976) from @p iov at @p off. */
int o2iblnd_send_immediate(struct o2iblnd_conn *c, const struct lnet_hdr *hdr,
			   const struct iovec *iov, unsigned int niov, unsigned int off,
			   unsigned int len, void *user);

/** A PUT or REPLY by RDMA: PUT_REQ now, the payload (registered @p src) written after PUT_ACK. */
int o2iblnd_send_put(struct o2iblnd_conn *c, const struct lnet_hdr *hdr,
		     const struct o2ib_hw_sge *src, unsigned int nsrc, void *user);

/** A GET whose reply the peer writes into (@p key, @p sink): GET_REQ; done at GET_DONE. */
int o2iblnd_send_get(struct o2iblnd_conn *c, const struct lnet_hdr *hdr, uint32_t key,
		     const struct o2ib_frag *sink, unsigned int nfrags, void *user);

/** An IMMEDIATE handed up is consumed: its buffer goes back, a credit is owed. */
void o2iblnd_rx_done(struct o2iblnd_conn *c, struct o2iblnd_rx *rx);

/** Accept a PUT_REQ into (@p key, @p sink): PUT_ACK; sink_done(@p user) at PUT_DONE. */
int o2iblnd_put_ack(struct o2iblnd_conn *c, struct o2iblnd_rx *rx, uint32_t key,
		    const struct o2ib_frag *sink, unsigned int nfrags, void *user);

/** Refuse a PUT_REQ (no match: -ENODATA): PUT_NAK. */
int o2iblnd_put_nak(struct o2iblnd_conn *c, struct o2iblnd_rx *rx, int status);

/**
 * Answer a GET_REQ: write @p nob bytes of registered @p src into the
 * requester's descriptor, then GET_DONE(@p nob); tx_done(@p user) once sent.
 */
int o2iblnd_get_reply(struct o2iblnd_conn *c, struct o2iblnd_rx *rx, const struct o2ib_hw_sge *src,
		      unsigned int nsrc, void *user);

/** Refuse a GET_REQ (no match: -ENODATA): GET_DONE with the status. */
int o2iblnd_get_nak(struct o2iblnd_conn *c, struct o2iblnd_rx *rx, int status);

#endif /* O2IBLND_CONN_H */
