/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The socklnd: its ops table and an NI's counters; the options of one NI
 * (the ksocklnd tunables built so far) are in socklnd_params.h, the
 * counters' layout in socklnd_stats.h, both included here.
 */
#ifndef SOCKLND_H
#define SOCKLND_H

#include "ksock_idl.h"
#include "lnet_lnd.h"
#include "socklnd_params.h"
#include "socklnd_stats.h"

/** The socklnd's ops table (registered at start-up as LND "tcp"). */
const struct lnet_lnd_ops *socklnd_lnd_ops(void);

/** Counters of a socklnd NI (read on its data lcore). */
void socklnd_stats_get(const struct lnet_ni *ni, struct socklnd_stats *out);

#endif /* SOCKLND_H */
