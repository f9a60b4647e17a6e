/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LNet's log type, for every layer of lib/lnet: DPDK's log, under the name
 * "lnet" (lnetd-pmd --log-level lnet:debug).
 */
#ifndef LNET_LOG_H
#define LNET_LOG_H

#include <rte_log.h>

extern int lnet_logtype;

#define LNET_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, lnet_logtype, "lnet: " fmt "\n", ##__VA_ARGS__)

#endif /* LNET_LOG_H */
