/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Control-plane queries for the daemon (what lnetctl shows). Every call runs
 * its work on the management lcore and may be made from any thread that is
 * not a logical lcore, such as DPDK's telemetry thread.
 */
#ifndef LNET_CTL_H
#define LNET_CTL_H

#include <stdbool.h>
#include <stdint.h>

#include "cfs_nid.h"
#include "lnp_api.h"

LNP_BEGIN_DECLS

/** One local NI as `lnetctl net show -v` prints it. */
struct lnet_ctl_ni {
	struct lnet_nid nid;
	uint32_t net;
	bool up;
	uint64_t send_count;
	uint64_t recv_count;
	uint64_t drop_count;
	uint64_t sent[5];         /**< put, get, reply, ack, hello (sent_stats order) */
	uint64_t received[5];
	uint64_t dropped[5];
	int health_value;
	int peer_timeout;
	int peer_credits;
	int peer_buffer_credits;
	int credits;
	int dev_cpt;              /**< -1 when unknown */
	char cpts[64];            /**< "[0,1]" */
};

/** Global settings in `lnetctl global show` order. */
struct lnet_ctl_global {
	int numa_range;
	int max_interfaces;
	int discovery;
	int drop_asym_route;
	int retry_count;
	int transaction_timeout;
	int health_sensitivity;
	int recovery_interval;
	int router_sensitivity;
	int lnd_timeout;
	int response_tracking;
	int recovery_limit;
	int max_recovery_ping_interval;
};

/** Local NIs, lo first, in configuration order. @return count (up to @p max) or -errno. */
LNP_API int lnet_ctl_ni_list(struct lnet_ctl_ni *out, unsigned int max);

/** Current global settings. */
LNP_API int lnet_ctl_global_get(struct lnet_ctl_global *out);

/** Number of CPTs. */
LNP_API int lnet_ctl_ncpts(void);

LNP_END_DECLS

#endif /* LNET_CTL_H */
