/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A socklnd NI's transmit descriptors: a per-NI cache of freed ones, so
 * that a message costs no malloc once the cache is warm; and what a
 * message the LND could not deliver tells LNet.
 */
#include <errno.h>
#include <stdlib.h>

#include "socklnd_tx.h"

/* Freed txs kept per NI for reuse: enough for a full window of every peer's credits. */
#define SOCKLND_TX_CACHE_MAX 1024U

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

/* A tx from the NI's cache (sock_tx_prepare() sets every field it uses). */
struct sock_tx *
socklnd_tx_alloc(struct socklnd_ni *s)
{
	struct sock_tx *tx = s->tx_cache;

	if (tx == NULL) {
		return calloc(1, sizeof(*tx));
	}
	s->tx_cache = TAILQ_NEXT(tx, link);
	s->ntx_cache--;
	return tx;
}

void
socklnd_tx_free(struct socklnd_ni *s, struct sock_tx *tx)
{
	if (s->ntx_cache < SOCKLND_TX_CACHE_MAX) {
		TAILQ_NEXT(tx, link) = s->tx_cache; /* last in, first out: still in cache */
		s->tx_cache = tx;
		s->ntx_cache++;
		return;
	}
	free(tx);
}

void
socklnd_tx_cache_destroy(struct socklnd_ni *s)
{
	struct sock_tx *tx;

	while ((tx = s->tx_cache) != NULL) {
		s->tx_cache = TAILQ_NEXT(tx, link);
		free(tx);
	}
	s->ntx_cache = 0;
}
