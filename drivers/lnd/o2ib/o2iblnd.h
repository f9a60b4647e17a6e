/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The o2ib LND (ko2iblnd's counterpart): LNet messages onto the message
 * engines of o2iblnd_conn, connections made by o2iblnd_cm, one NI per
 * netdev that carries an RDMA device (--if).
 */
#ifndef O2IBLND_H
#define O2IBLND_H

#include "lnet_lnd.h"
#include "o2iblnd_cm.h"
#include "o2iblnd_hw.h"

/** The LND's ops table (registered as "o2ib"). */
const struct lnet_lnd_ops *o2iblnd_lnd_ops(void);

/**
 * What NIs started later run over: the hardware ops and the CM (its
 * calls, and how to open and close its context). Defaults: generic verbs
 * and librdmacm. Tests give the QP model and a fake CM. Not while an NI
 * of this LND exists.
 */
struct o2iblnd_backend {
	const struct o2ib_hw_ops *hw;
	const struct o2iblnd_cm_ops *cm;
	int (*cm_open)(void **ctx);
	void (*cm_close)(void *ctx);
};

void o2iblnd_backend_set(const struct o2iblnd_backend *be);

/** The LND's counters of @p ni (as counters() gives them), for tests. */
struct o2iblnd_stats {
	uint64_t conns_up;
	uint64_t conns_down;
	uint64_t connect_failures;
	uint64_t tx_immediate;
	uint64_t tx_rdma;
	uint64_t rx_immediate;
	uint64_t rx_rdma;
	uint64_t rx_refused; /**< GET_REQs answered with an error (no RDMA REPLY yet) */
};

void o2iblnd_stats_get(const struct lnet_ni *ni, struct o2iblnd_stats *out);

#endif /* O2IBLND_H */
