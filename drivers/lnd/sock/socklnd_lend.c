/* SPDX-License-Identifier: BSD-3-Clause */
/* Payloads lent to LNet (see socklnd_lend.h). */
#include <errno.h>
#include <stdlib.h>

#include "rt.h"
#include "rt_pool.h"
#include "sock_rx.h"
#include "socklnd_lend.h"
#include "socklnd_ni.h"

/* Buffers per NI: the messages for MDs on other lcores that may be in flight at once. */
#define SOCKLND_LEND_BUFFERS 128U
#define SOCKLND_LEND_CACHE 16U

/*
 * The pool and who holds it: the NI, and each buffer out. The last to let
 * go (the NI's shutdown, or a release on whichever lcore copied the bytes)
 * destroys it. A buffer normally comes back before its NI goes (net del
 * drops what waits on lazy portals and drains what is in flight), but the
 * drain gives up after transaction_timeout and shuts the NI down anyway.
 */
struct socklnd_lend_pool {
	struct rt_pool *pool;
	uint32_t refs; /* atomic: 1 for the NI while it runs, plus the buffers out */
};

struct socklnd_lent {
	struct lnet_rx_payload payload;
	struct iovec iov;
	struct socklnd_lend_pool *owner;
	uint8_t bytes[SOCKLND_LEND_MAX];
};

static void
socklnd_lend_unref(struct socklnd_lend_pool *lp)
{
	if (__atomic_sub_fetch(&lp->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		rt_pool_destroy(lp->pool);
		free(lp);
	}
}

int
socklnd_lend_init(struct socklnd_ni *s)
{
	struct rt_runtime *rt = rt_lcore_runtime(lnet_ni_lcore(s->ni));
	struct rt_pool_opts o = {
		.opts_size = sizeof(o),
		.name = "socklnd_lend",
		.elt_size = sizeof(struct socklnd_lent),
		.n = SOCKLND_LEND_BUFFERS + rt_pool_headroom(rt, SOCKLND_LEND_CACHE),
		.cache_size = SOCKLND_LEND_CACHE,
	};
	struct socklnd_lend_pool *lp;
	int rc;

	s->lend = NULL;
	if (rt_data_lcore_count(rt) < 2) {
		return 0; /* every MD is on the NI's lcore: nothing to lend for */
	}
	lp = calloc(1, sizeof(*lp));
	if (lp == NULL) {
		return -ENOMEM;
	}
	rc = rt_pool_create(rt, &o, &lp->pool);
	if (rc != 0) {
		free(lp);
		return rc;
	}
	lp->refs = 1;
	s->lend = lp;
	return 0;
}

void
socklnd_lend_fini(struct socklnd_ni *s)
{
	if (s->lend != NULL) {
		socklnd_lend_unref(s->lend);
		s->lend = NULL;
	}
}

/* lnet_rx_payload.release: any lcore, once LNet copied the bytes into the MD or dropped them. */
static void
socklnd_lend_release(struct lnet_rx_payload *payload)
{
	struct socklnd_lent *l = (struct socklnd_lent *)payload;
	struct socklnd_lend_pool *lp = l->owner;

	rt_pool_put(lp->pool, l);
	socklnd_lend_unref(lp);
}

/*
 * After the stream moved on without LNet's recv: bytes already staged
 * bring no readable event, so the connection is read again at the next
 * poll, as socklnd_recv does when it sets a sink late.
 */
static void
socklnd_lend_resume(struct socklnd_conn *c)
{
	if (!c->in_rx && !c->rx_pending && sock_rx_staged(&c->rx)) {
		c->rx_pending = true;
		TAILQ_INSERT_TAIL(&c->sni->rxq, c, rlink);
	}
}

int
socklnd_recv_take(struct lnet_ni *ni, void *private, unsigned int rlen,
		  struct lnet_rx_payload **out)
{
	struct socklnd_ni *s = lnet_ni_lnd_data(ni);
	struct socklnd_conn *c = private;
	struct socklnd_lent *l;

	if (s->lend == NULL || rlen > SOCKLND_LEND_MAX || c->state == SOCKLND_CONN_DEAD ||
	    c->rx.state != SOCK_RX_WAIT_SINK) {
		return -EAGAIN;
	}
	l = rt_pool_get(s->lend->pool);
	if (l == NULL) {
		s->stats.lend_empty++;
		return -ENOBUFS;
	}
	if (sock_rx_take(&c->rx, l->bytes, rlen) != 0) {
		rt_pool_put(s->lend->pool, l);
		return -EAGAIN; /* not all here yet, or checksummed: recv() reads it */
	}
	l->iov = (struct iovec){ l->bytes, rlen };
	l->payload = (struct lnet_rx_payload){ .iov = &l->iov,
					       .niov = 1,
					       .release = socklnd_lend_release };
	l->owner = s->lend;
	__atomic_add_fetch(&s->lend->refs, 1, __ATOMIC_RELAXED);
	s->stats.lent++;
	socklnd_lend_resume(c);
	*out = &l->payload;
	return 0;
}
