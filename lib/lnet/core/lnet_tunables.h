/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The node's settings as plain data, shared by every layer of lib/lnet and
 * by the control plane (lnet_ctl.h, which includes this): the global
 * settings, LND tunables and counters, router pool kinds and the routing
 * states. No functions.
 */
#ifndef LNET_TUNABLES_H
#define LNET_TUNABLES_H

#include <stdint.h>

#include "lnp_api.h"

LNP_BEGIN_DECLS

/** Interface names, as the kernel's (IFNAMSIZ). */
#define LNET_CTL_IFNAMSIZ 16

/** One LND tunable of a NI ("lnd tunables" in net show -v). */
struct lnet_ctl_lnd_tunable {
	const char *key; /**< static: "conns_per_peer", "timeout", "tos" */
	int value;
};

/*
 * The most lnd tunables an LND shows: ko2iblnd's ten (peercredits_hiw ..
 * tos). Each NI of net show carries this many; telemetry adds them to its
 * NI's dict as lnd_<key>, far below DPDK's RTE_TEL_MAX_DICT_ENTRIES.
 */
#define LNET_CTL_LND_TUNABLES 10

/**
 * The LND tunables given to a new NI (net add --conns-per-peer, YAML "lnd
 * tunables"), by the keys `net show -v` prints under "lnd tunables"; the
 * LND's module parameters give the others. Which keys an LND takes is its
 * own business (lnet_lnd_ops.ni_check).
 */
struct lnet_ctl_lnd_tunables {
	unsigned int n;
	struct lnet_ctl_lnd_tunable t[LNET_CTL_LND_TUNABLES];
};

/** One counter of a NI's LND (telemetry /lnet/lnd_stats). */
struct lnet_ctl_lnd_counter {
	const char *key; /**< static */
	uint64_t value;
};

#define LNET_CTL_LND_COUNTERS 48

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

/** Router buffer pools per CPT, the kernel's order. */
enum lnet_ctl_rtr_pool_kind {
	LNET_CTL_RTR_TINY,
	LNET_CTL_RTR_SMALL,
	LNET_CTL_RTR_LARGE,
	LNET_CTL_RTR_NPOOLS,
};

/** The kernel's routing states (`routing show` "enable"). */
#define LNET_CTL_ROUTING_DISABLED 0
#define LNET_CTL_ROUTING_ENABLED 1
#define LNET_CTL_ROUTING_STOPPING 2
#define LNET_CTL_ROUTING_STARTING 3

LNP_END_DECLS

#endif /* LNET_TUNABLES_H */
