/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * An o2ib NI's RDMA CM side: the listener on the service port, active
 * connects (address, route, QP, CONNREQ), the CM events that follow, and
 * what they decide by o2ib_conn's rules (accept or reject with the
 * kernel's kib_rej, retry after a reject, check the CONNACK, races).
 * Each connection gets a CQ, a QP sized by o2ib_qp_size (its depth lowered
 * on ENOMEM) and a message engine (o2iblnd_conn), handed to the owner
 * when established. The CM calls themselves are an ops table: librdmacm's
 * (o2iblnd_cm_rdmacm), or a test's. Events are polled, never waited for.
 */
#ifndef O2IBLND_CM_H
#define O2IBLND_CM_H

#include <stdbool.h>
#include <stdint.h>

#include "o2iblnd_conn.h"
#include "o2iblnd_params.h"

/** The CM events an NI handles (librdmacm's names). */
enum o2iblnd_cm_ev_type {
	O2IBLND_CM_ADDR_RESOLVED = 0,
	O2IBLND_CM_ADDR_ERROR,
	O2IBLND_CM_ROUTE_RESOLVED,
	O2IBLND_CM_ROUTE_ERROR,
	O2IBLND_CM_CONNECT_REQUEST,
	O2IBLND_CM_CONNECT_ERROR,
	O2IBLND_CM_UNREACHABLE,
	O2IBLND_CM_REJECTED,
	O2IBLND_CM_ESTABLISHED,
	O2IBLND_CM_DISCONNECTED,
	O2IBLND_CM_OTHER,
};

struct o2iblnd_cm_event {
	enum o2iblnd_cm_ev_type type;
	void *id;   /**< the connection's CM id (a new one for CONNECT_REQUEST) */
	int status; /**< REJECTED: the IB CM reason (28: consumer defined) */
	const void *
		priv; /**< CONNECT_REQUEST: CONNREQ; ESTABLISHED (active): CONNACK; REJECTED: kib_rej */
	uint8_t priv_len;
};

/** The CM calls; every one returns 0 or -errno. */
struct o2iblnd_cm_ops {
	/** Listen on @p ipv4 (network order) port @p port. */
	int (*listen)(void *ctx, uint32_t ipv4, uint16_t port);
	/** A new id from @p src to @p dst:@p port (a source port below 1024 when @p privileged); resolve the address. */
	int (*resolve_addr)(void *ctx, uint32_t src, uint32_t dst, uint16_t port, bool privileged,
			    int timeout_ms, void **id);
	int (*resolve_route)(void *id, int timeout_ms);
	int (*connect)(void *id, const void *priv, uint8_t len, uint8_t retry, uint8_t rnr_retry);
	int (*accept)(void *id, const void *priv, uint8_t len, uint8_t retry, uint8_t rnr_retry);
	int (*reject)(void *id, const void *priv, uint8_t len);
	int (*disconnect)(void *id);
	void (*destroy)(void *id);
	/** The next event (-EAGAIN: none); its private data lasts until the next call. */
	int (*get_event)(void *ctx, struct o2iblnd_cm_event *ev);
};

struct o2iblnd_cm_cfg {
	const struct o2iblnd_cm_ops *ops;
	void *ctx;
	const struct o2ib_hw_ops *hw;
	struct o2ib_hw_dev *dev;
	uint32_t max_qp_wr;
	struct o2ib_local me;
	uint32_t ipv4; /**< my address, network order */
	struct o2iblnd_opts opts;
	struct o2ib_credit_tunables tun;
	const struct o2iblnd_conn_ops *conn_ops; /**< each engine's upcalls */
	void *conn_arg;
	/** A connection to @p peer is established: @p c carries messages now. */
	void (*conn_up)(void *arg, lnet_nid_t peer, struct o2iblnd_conn *c);
	/** An attempt failed (@p c NULL) or a connection ended; @p c is freed after this returns. */
	void (*conn_down)(void *arg, lnet_nid_t peer, struct o2iblnd_conn *c, int status);
	void *arg;
};

struct o2iblnd_cm;

int o2iblnd_cm_create(const struct o2iblnd_cm_cfg *cfg, struct o2iblnd_cm **out);
/** Destroy every connection (conn_down with -ESHUTDOWN) and the NI's CM state. */
void o2iblnd_cm_destroy(struct o2iblnd_cm *cm);
/** Listen on the service port (module parameter service, 987). */
int o2iblnd_cm_listen(struct o2iblnd_cm *cm);
/** Connect to @p peer (an o2ib nid4); @p tx_queued: messages wait for it (retries need them). */
int o2iblnd_cm_connect(struct o2iblnd_cm *cm, lnet_nid_t peer, bool tx_queued);
/** Close the connection of @p c (disconnect; conn_down when the CM says so). */
void o2iblnd_cm_close(struct o2iblnd_cm *cm, struct o2iblnd_conn *c, int error);
/** Handle pending CM events and poll every connection's CQ. Events handled. */
int o2iblnd_cm_poll(struct o2iblnd_cm *cm);
/** The CM record of @p peer, NULL if none. */
const struct o2ib_peer_cm *o2iblnd_cm_peer(struct o2iblnd_cm *cm, lnet_nid_t peer);

/** librdmacm's calls over one event channel (non-blocking); -ENODEV without an RDMA CM. */
int o2iblnd_cm_rdmacm_open(void **ctx);
void o2iblnd_cm_rdmacm_close(void *ctx);
extern const struct o2iblnd_cm_ops o2iblnd_cm_rdmacm;

#endif /* O2IBLND_CM_H */
