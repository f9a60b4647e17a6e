/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The socklnd: options of one NI (the ksocklnd tunables built so far) and
 * its counters.
 */
#ifndef SOCKLND_H
#define SOCKLND_H

#include <stdint.h>

#include "ksock_idl.h"
#include "lnet_lnd.h"

/** The acceptor's policy (module parameter "accept"). */
enum socklnd_accept {
	SOCKLND_ACCEPT_SECURE = 0, /**< privileged source ports only (default) */
	SOCKLND_ACCEPT_ALL,        /**< any source port */
	SOCKLND_ACCEPT_NONE,       /**< refuse every connection */
};

struct socklnd_opts {
	uint16_t port;                 /**< accept_port, 988 */
	enum socklnd_accept accept;
	unsigned int min_bulk;         /**< bytes; smaller messages go on CONTROL */
	int conns_per_peer;            /**< 0: auto (1 below 10 Gb/s) */
	int timeout;                   /**< sock_timeout, seconds */
	int tos;                       /**< IP TOS of every connection; -1: unset */
	bool enable_csum;              /**< ksm_csum on what we send over V2 connections */
};

#define SOCKLND_DEFAULT_TIMEOUT 50

/* conns_per_peer shows as 1: the kernel's auto value on links under 10 Gb/s. */
#define SOCKLND_OPTS_DEFAULT                                                          \
	{ LNET_ACCEPTOR_PORT, SOCKLND_ACCEPT_SECURE, 1024, 1, SOCKLND_DEFAULT_TIMEOUT, -1 }

/** Check NI options: -EINVAL when out of range. */
int socklnd_opts_check(const struct socklnd_opts *o);

struct socklnd_stats {
	uint64_t accepted;
	uint64_t refused;
	uint64_t conns_up;
	uint64_t conns_closed;
	uint64_t handshake_failures;
	uint64_t proto_errors;
	uint64_t rx_msgs;
	uint64_t tx_msgs;
	uint64_t tx_writes;          /**< sendmsg calls: tx_msgs / tx_writes is the coalescing */
	uint64_t zc_acks;
	uint64_t no_conn;
	uint64_t connects;
	uint64_t connect_failures;
	uint64_t timeouts;           /**< connections closed for no progress in sock_timeout */
	uint64_t races_won;          /**< peer's connects refused: ours, from the higher NID, win */
	uint64_t duplicates;         /**< peer's connects refused: that type is already up */
	uint64_t stale_conns;        /**< times a new incarnation closed a peer's connections */
	uint64_t csum_checked;       /**< received messages whose ksm_csum matched */
	uint64_t csum_errors;        /**< ... that did not: connection closed */
};

/** The socklnd's ops table (registered at start-up as LND "tcp"). */
const struct lnet_lnd_ops *socklnd_lnd_ops(void);

/** Counters of a socklnd NI (read on its data lcore). */
void socklnd_stats_get(const struct lnet_ni *ni, struct socklnd_stats *out);

#endif /* SOCKLND_H */
