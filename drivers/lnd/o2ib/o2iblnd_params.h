/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ko2iblnd's module parameters (o2ib-facts §7) by their kernel names, with
 * the kernel's defaults: the ones this LND takes, their ranges, and the
 * ones that mean nothing here with the reason, as the socklnd does for
 * ksocklnd's. An NI starts from them (o2iblnd_params_get) and its credit
 * tunables are fixed up as kiblnd_tunables_setup does.
 */
#ifndef O2IBLND_PARAMS_H
#define O2IBLND_PARAMS_H

#include <stddef.h>

#include "lnet_lnd.h"
#include "o2ib_credits.h"

/** The parameters this LND takes, as ints. */
struct o2iblnd_opts {
	int service;           /**< RDMA CM port, 987 */
	int cksum;             /**< 1: checksum every message we send */
	int timeout;           /**< s a tx may wait; 0: LNet's lnd_timeout */
	int conns_per_peer;    /**< QPs per peer NI */
	int ntx;               /**< tx descriptors per NI */
	int peer_credits_hiw;  /**< when to return credits eagerly (0: peer_credits/2) */
	int retry_count;       /**< CM transport retries (3 bits on the wire) */
	int rnr_retry_count;   /**< CM RNR retries (3 bits; 7 is "forever") */
	int keepalive;         /**< s without a send before a NOOP; 0 off */
	int ib_mtu;            /**< 0: the path MTU; else 256..4096, a power of two */
	int concurrent_sends;  /**< sends in flight per connection (0: peer_credits) */
	int use_fastreg_gaps;  /**< kept and shown: every buffer is in one registration here */
	int map_on_demand;     /**< obsolete, as in the kernel: 0 becomes 1 */
	int fmr_pool_size;     /**< kept and shown (per-NI tunable): no FMR pools here */
	int fmr_flush_trigger; /**< kept and shown (per-NI tunable) */
	int fmr_cache;         /**< kept and shown (per-NI tunable) */
	int require_privileged_port; /**< passive: refuse source ports >= 1024 */
	int use_privileged_port;     /**< active: bind a source port < 1024 */
	int wrq_sge;                 /**< send SGEs per work request */
	int tos;                     /**< IP ToS of RoCE connections; -1 unset */
};

#define O2IBLND_OPTS_DEFAULT                                                                     \
	{                                                                                        \
		.service = 987, .cksum = 0, .timeout = 50, .conns_per_peer = 1, .ntx = 512,      \
		.peer_credits_hiw = 0, .retry_count = 5, .rnr_retry_count = 6, .keepalive = 100, \
		.ib_mtu = 0, .concurrent_sends = 0, .use_fastreg_gaps = 0, .map_on_demand = 1,   \
		.fmr_pool_size = 512, .fmr_flush_trigger = 384, .fmr_cache = 1,                  \
		.require_privileged_port = 0, .use_privileged_port = 1, .wrq_sge = 2, .tos = -1  \
	}

/**
 * Set one parameter by its kernel name. 0; -ENOENT no such parameter;
 * -EINVAL out of range (ib_mtu: not 0 or a power of two in 256..4096);
 * -EOPNOTSUPP a kernel parameter with no meaning here (@p err says why).
 */
int o2iblnd_param_set(struct o2iblnd_opts *o, const char *name, long value, char *err,
		      size_t errlen);

/** "NAME=VALUE[,NAME=VALUE...]" into @p o: all or nothing. */
int o2iblnd_params_parse(struct o2iblnd_opts *o, const char *list, char *err, size_t errlen);

/** The parameters and their values in @p o, in a fixed order; how many (<= @p max). */
unsigned int o2iblnd_params_list(const struct o2iblnd_opts *o, struct lnet_lnd_param *out,
				 unsigned int max);

/** lnet_lnd_ops.params_set / params_get over the LND's module parameters. */
int o2iblnd_params_set(const char *list, char *err, size_t errlen);
unsigned int o2iblnd_params_get(struct lnet_lnd_param *out, unsigned int max);
/** Back to the defaults (tests). */
void o2iblnd_params_reset(void);
/** The current module parameters. */
void o2iblnd_params_current(struct o2iblnd_opts *out);

/**
 * The credit tunables of an NI with @p credits and @p peer_credits (its net
 * tunables) under @p o, fixed up as the kernel's (o2ib_tunables_fix).
 */
void o2iblnd_credit_tunables(const struct o2iblnd_opts *o, int credits, int peer_credits,
			     struct o2ib_credit_tunables *out);

/**
 * An NI's options: the module parameters with its lnd tunables (net add,
 * YAML "lnd tunables") over them, by the keys the kernel's net show -v
 * prints: peercredits_hiw, map_on_demand (ignored: always 1), concurrent_sends,
 * fmr_pool_size, fmr_flush_trigger, fmr_cache, ntx, conns_per_peer, timeout
 * (ignored: the kernel's setup puts the module's back), tos. 0 (tos: -1)
 * keeps the module's value, as kiblnd_tunables_setup. 0, -ENOENT for
 * another key, -EINVAL out of range (@p err says which).
 */
int o2iblnd_ni_opts(const struct lnet_ctl_lnd_tunables *tun, struct o2iblnd_opts *out, char *err,
		    size_t errlen);

/** lnet_lnd_ops.ni_check: o2iblnd_ni_opts without keeping the result. */
int o2iblnd_ni_check(const struct lnet_ctl_lnd_tunables *tun, char *err, size_t errlen);

/**
 * The lnd tunables of an NI with options @p o as the kernel's net show -v
 * lists them, in its order (map_on_demand always 1; timeout the one in
 * force, @p timeout_s). How many were filled (at most @p max, of 10).
 */
unsigned int o2iblnd_ni_tunables(const struct o2iblnd_opts *o, int timeout_s,
				 struct lnet_ctl_lnd_tunable *out, unsigned int max);

#endif /* O2IBLND_PARAMS_H */
