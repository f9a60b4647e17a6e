/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Payloads the socklnd lends to LNet (lnet_lnd_ops.recv_take): a small
 * message for an MD on another lcore has its payload copied out of the
 * connection's stage into a buffer of the NI's lend pool, so it is copied
 * into the MD there and never comes back to the NI's lcore. The pool
 * outlives its NI while anything it lent is out.
 */
#ifndef SOCKLND_LEND_H
#define SOCKLND_LEND_H

#include "lnet_lnd.h"

struct socklnd_ni;

/* The largest payload lent: a 4 KiB message, what comes staged with its header. */
#define SOCKLND_LEND_MAX 4096U

/* At start-up, when the NI's runtime has more than one data lcore: 0 or -errno. */
int socklnd_lend_init(struct socklnd_ni *s);

/* At shutdown, on the NI's lcore: the pool goes once the last lent buffer is back. */
void socklnd_lend_fini(struct socklnd_ni *s);

/* lnet_lnd_ops.recv_take, on the NI's lcore. */
int socklnd_recv_take(struct lnet_ni *ni, void *private, unsigned int rlen,
		      struct lnet_rx_payload **out);

#endif /* SOCKLND_LEND_H */
