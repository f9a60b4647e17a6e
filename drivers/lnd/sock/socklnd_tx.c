/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A socklnd NI's transmit descriptors: a pool made as the NI starts, with
 * a cache on the NI's lcore, so that a message costs no malloc; and what a
 * message the LND could not deliver tells LNet.
 */
#include <errno.h>
#include <stdlib.h>

#include "socklnd_tx.h"

/*
 * The NI's transmits, all made at startup: one for each message LNet may
 * hand it at once (its tx credits), and these for NOOPs (keepalives)
 * beside them; the cache in front of them on the NI's lcore moves this
 * many at a time.
 */
#define SOCKLND_TX_NOOPS 256U
#define SOCKLND_TX_POOL_CACHE 32U

/*
 * What a connection's error says of the path (the kernel's
 * ksocknal_txlist_done): silence is a network timeout, a peer that reset
 * or refused or could not be reached dropped it (another of its NIDs may
 * do), the NI going away aborted it (another NI may do); anything else is
 * an error no resend fixes.
 */
enum lnet_msg_hstatus
socklnd_hstatus(int status)
{
	switch (status) {
	case -ETIMEDOUT:
		return LNET_MSG_STATUS_NETWORK_TIMEOUT;
	case -ENETDOWN:
	case -EHOSTUNREACH:
	case -ENETUNREACH:
	case -ECONNREFUSED:
	case -ECONNRESET:
		return LNET_MSG_STATUS_REMOTE_DROPPED;
	case -ESHUTDOWN:
		return LNET_MSG_STATUS_LOCAL_ABORTED;
	default:
		return LNET_MSG_STATUS_LOCAL_ERROR;
	}
}

/* Complete a message the LND could not deliver: LNet may send it again elsewhere. */
void
socklnd_msg_fail(void *cookie, int status, enum lnet_msg_hstatus hs)
{
	if (cookie != NULL) {
		lnet_finalize_hstatus(cookie, status, hs);
	}
}

/* The NI's transmit pool, made as it starts (any thread): its size is the NI's tx credits. */
int
socklnd_tx_pool_create(struct socklnd_ni *s)
{
	struct rt_runtime *rt = rt_lcore_runtime(lnet_ni_lcore(s->ni));
	struct rt_pool_opts o = {
		.opts_size = sizeof(o),
		.name = "socklnd_tx",
		.elt_size = sizeof(struct sock_tx),
		.n = (unsigned int)lnet_ni_credits(s->ni) + SOCKLND_TX_NOOPS +
		     rt_pool_headroom(rt, SOCKLND_TX_POOL_CACHE),
		.cache_size = SOCKLND_TX_POOL_CACHE,
	};
	int rc = rt_pool_create(rt, &o, &s->tx_pool);

	if (rc == 0) {
		s->tx_cache = rt_pool_lcore_cache(s->tx_pool, lnet_ni_lcore(s->ni));
	}
	return rc;
}

/*
 * A tx from the NI's pool, NULL when it is empty (sock_tx_prepare() sets
 * every field it uses). On the NI's lcore, as every tx's life is.
 */
struct sock_tx *
socklnd_tx_alloc(struct socklnd_ni *s)
{
#ifdef __SANITIZE_ADDRESS__
	if (rt_lcore_self() != lnet_ni_lcore(s->ni)) {
		abort(); /* the cache is that lcore's alone; the sanitizer builds check it */
	}
#endif
	return rt_pool_cache_get(s->tx_pool, s->tx_cache);
}

void
socklnd_tx_free(struct socklnd_ni *s, struct sock_tx *tx)
{
#ifdef __SANITIZE_ADDRESS__
	if (rt_lcore_self() != lnet_ni_lcore(s->ni)) {
		abort();
	}
#endif
	rt_pool_cache_put(s->tx_pool, s->tx_cache, tx);
}

/* The NI is gone: every tx with its pool. */
void
socklnd_tx_pool_destroy(struct socklnd_ni *s)
{
	rt_pool_destroy(s->tx_pool);
	s->tx_pool = NULL;
}
