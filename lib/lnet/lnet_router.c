/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * This node as an LNet router (lnet-facts §6, §11): `set routing`, the
 * router buffer pools, and forwarding. A message for another node is
 * received, on the lcore of its last hop's peer NI, into a buffer of the
 * smallest pool that holds it, after a router credit of that peer NI and
 * a credit of the pool (either may queue it, as the kernel's lp_rtrq and
 * rbp_msgs); then it is sent on with its header as received, selection
 * choosing the next hop; when that send completes the buffer and credits
 * go back where they came from. The pools and credits are owned by that
 * lcore: no lock, no atomic on the path.
 *
 * A pool's buffers are one page-aligned slab, made whole when routing is
 * turned on (as the kernel allocates them all; the pages are committed as
 * buffers are first used), and an rte_ring of the free ones. Not an
 * rte_mempool: pools must work without EAL too (an application polling
 * LNet on its own thread, the tests), and only the owning lcore takes and
 * returns buffers, so the ring is single-producer, single-consumer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "lnet_ctl.h"
#include "lnet_internal.h"

#define LNET_RTR_PAGE 4096U
/* The kernel's pool sizes (router.c): totals over all CPTs. */
static const int lnet_rtr_default[LNET_CTL_RTR_NPOOLS] = { 2048, 16384, 1024 };
static const unsigned int lnet_rtr_npages[LNET_CTL_RTR_NPOOLS] = { 0, 1, LNET_MTU / LNET_RTR_PAGE };

int
lnet_routing_state(const struct lnet *ln)
{
	return __atomic_load_n(&ln->routing, __ATOMIC_ACQUIRE);
}

/* ---- pools ---------------------------------------------------------------------- */

static int
lnet_rtr_param(const struct lnet *ln, unsigned int kind)
{
	const int *p[] = { &ln->rtr_params.tiny_router_buffers, &ln->rtr_params.small_router_buffers,
			   &ln->rtr_params.large_router_buffers };

	return __atomic_load_n(p[kind], __ATOMIC_RELAXED);
}

/* The kernel's lnet_nrb_*_calculate: the total (or the default) over the CPTs, at least 1. */
static int
lnet_rtr_per_cpt(const struct lnet *ln, unsigned int kind)
{
	int total = lnet_rtr_param(ln, kind);
	int n = (total > 0 ? total : lnet_rtr_default[kind]) / (int)ln->ncpts;

	return n > 0 ? n : 1;
}

static void
lnet_rtr_pool_free(struct lnet_rtr_pool *p)
{
	free(p->free);
	free(p->slab);
	p->free = NULL;
	p->slab = NULL;
	p->nbuffers = 0;
	p->credits = 0;
	p->mincredits = 0;
}

/* Mgmt: a pool of @p n buffers for CPT @p cpt, its memory all taken now. */
static int
lnet_rtr_pool_make(struct lnet *ln, unsigned int cpt, unsigned int kind, int n,
		   struct lnet_rtr_pool *p)
{
	size_t size = (size_t)lnet_rtr_npages[kind] * LNET_RTR_PAGE;
	ssize_t rsz = rte_ring_get_memsize(rte_align32pow2((uint32_t)n + 1));
	int i;

	(void)ln;
	*p = (struct lnet_rtr_pool){ .npages = lnet_rtr_npages[kind], .nbuffers = n, .credits = n,
				     .mincredits = n };
	TAILQ_INIT(&p->waitq);
	if (size == 0) {
		return 0; /* tiny: a header and no payload, nothing to hold */
	}
	p->slab = rsz < 0 ? NULL : aligned_alloc(LNET_RTR_PAGE, size * (size_t)n);
	p->free = p->slab == NULL ? NULL : aligned_alloc(RTE_CACHE_LINE_SIZE, (size_t)rsz);
	if (p->free == NULL ||
	    rte_ring_init(p->free, "lnet_rtr", rte_align32pow2((uint32_t)n + 1),
			  RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
		LNET_LOG(ERR, "error allocating %dx%u page router buffers on CPT %u", n, p->npages,
			 cpt);
		lnet_rtr_pool_free(p);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		rte_ring_sp_enqueue(p->free, (char *)p->slab + (size_t)i * size);
	}
	return 0;
}

/* A buffer of pool @p p (its credit taken): NULL for tiny. */
static void *
lnet_rtr_buf_get(struct lnet_rtr_pool *p)
{
	void *b = NULL;

	if (p->free != NULL && rte_ring_sc_dequeue(p->free, &b) != 0) {
		b = NULL; /* cannot happen while the credits count the buffers */
	}
	return b;
}

static void
lnet_rtr_buf_put(struct lnet_rtr_pool *p, void *b)
{
	if (b != NULL && p->free != NULL) {
		rte_ring_sp_enqueue(p->free, b);
	}
}

/* Which pool holds @p len bytes: the smallest whose buffers are big enough. */
static unsigned int
lnet_rtr_pool_kind(unsigned int len)
{
	unsigned int k;

	for (k = 0; k + 1 < LNET_CTL_RTR_NPOOLS && len > lnet_rtr_npages[k] * LNET_RTR_PAGE; k++) {
	}
	return k;
}

/* ---- the forwarding path (the last hop's peer NI's lcore) ------------------------ */

static void lnet_fwd_take_buffer(struct lnet_cpt *c, struct lnet_msg *msg);

/* The payload goes into the buffer: the LND's recv, on the NI's lcore. */
static void
lnet_fwd_recv(struct lnet_cpt *c, struct lnet_msg *msg)
{
	lnet_ni_recv(c, msg, LNET_RX_DELIVER);
}

static void
lnet_fwd_take_buffer(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_rtr_pool *p = &c->rtr[lnet_rtr_pool_kind(msg->len)];

	msg->rtr_pool = (uint8_t)(p - c->rtr);
	msg->rtrcredit = true;
	p->credits--;
	if (p->credits < p->mincredits) {
		p->mincredits = p->credits;
	}
	if (p->credits < 0) {
		TAILQ_INSERT_TAIL(&p->waitq, msg, link); /* the kernel's rbp_msgs */
		return;
	}
	msg->rtr_buf = lnet_rtr_buf_get(p);
	if (msg->rtr_buf == NULL && p->free != NULL) {
		lnet_drop_rx(c, msg, "no router buffer");
		return;
	}
	msg->rtr_iov.iov_base = msg->rtr_buf;
	msg->rtr_iov.iov_len = msg->len;
	lnet_fwd_recv(c, msg);
}

void
lnet_fwd_rx_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_peer_ni *lpni = msg->rxpeer;

	if (lnet_routing_state(c->ln) == LNET_CTL_ROUTING_DISABLED) {
		lnet_drop_rx(c, msg, "not a router");
		return;
	}
	msg->rtr_cpt = c->cpt;
	msg->peerrtrcredit = true;
	lpni->rtrcredits--;
	if (lpni->rtrcredits < lpni->minrtrcredits) {
		lpni->minrtrcredits = lpni->rtrcredits;
	}
	if (lpni->rtrcredits < 0) {
		TAILQ_INSERT_TAIL(&lpni->rtrq, msg, link); /* the kernel's lp_rtrq */
		return;
	}
	lnet_fwd_take_buffer(c, msg);
}

/* On the lcore that took them: the buffer and both credits go back; waiters move on. */
void
lnet_fwd_done_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_peer_ni *lpni = msg->rxpeer;
	struct lnet_msg *next;

	if (msg->rtrcredit) {
		struct lnet_rtr_pool *p = &c->rtr[msg->rtr_pool];

		lnet_rtr_buf_put(p, msg->rtr_buf);
		msg->rtr_buf = NULL;
		msg->rtrcredit = false;
		p->credits++;
		if (p->credits <= 0 && (next = TAILQ_FIRST(&p->waitq)) != NULL) {
			TAILQ_REMOVE(&p->waitq, next, link);
			next->rtr_buf = lnet_rtr_buf_get(p);
			if (next->rtr_buf == NULL && p->free != NULL) {
				lnet_drop_rx(c, next, "no router buffer");
			} else {
				next->rtr_iov.iov_base = next->rtr_buf;
				next->rtr_iov.iov_len = next->len;
				lnet_fwd_recv(c, next);
			}
		}
	}
	if (msg->peerrtrcredit) {
		msg->peerrtrcredit = false;
		lpni->rtrcredits++;
		if (lpni->rtrcredits <= 0 && (next = TAILQ_FIRST(&lpni->rtrq)) != NULL) {
			TAILQ_REMOVE(&lpni->rtrq, next, link);
			lnet_fwd_take_buffer(c, next);
		}
	}
	lnet_msg_free(msg);
}

/*
 * A forwarded message completes a step (on its home lcore): its payload
 * is in the buffer, so on to the next hop with the header as received; or
 * it went out (or failed), so what it holds goes back.
 */
void
lnet_fwd_fin(struct lnet_cpt *c, struct lnet_msg *msg)
{
	if (!msg->tx && msg->status == 0) {
		c->counters.route_count++;
		c->counters.route_length += msg->len;
		msg->tx = true;
		msg->disc_passed = true;  /* a router does not hold messages for discovery */
		msg->src_param = LNET_ANY_NID;
		lnet_msg_dispatch(c->ln, msg, lnet_cpt_of_nid(c->ln, &msg->target.nid),
				  LNET_STEP_SEND_SELECT);
		return;
	}
	if (msg->status != 0) {
		c->counters.drop_count++;
		c->counters.drop_length += msg->len;
	}
	lnet_msg_dispatch(c->ln, msg, msg->rtr_cpt, LNET_STEP_FWD_DONE);
}

/* ---- set routing: the state machine on the management lcore ------------------------- */

struct lnet_router {
	struct lnet *ln;
	struct rt_timer timer;    /* STARTING -> ENABLED, STOPPING -> DISABLED */
	uint64_t min_wait_us;     /* the kernel's rtr_min_wait / rtr_max_wait */
	uint64_t max_wait_us;
};

struct lnet_rtr_ping_op {
	struct lnet_mgmt_op op;   /* first: the queue hands it back */
};

static void
lnet_rtr_pinged(void *arg, int rc)
{
	struct lnet_rtr_ping_op *o = arg;
	struct lnet *ln = o->op.ln;

	if (rc != 0) {
		LNET_LOG(ERR, "routing: ping target not rebuilt: %s", strerror(-rc));
	} else {
		lnet_discovery_local_changed(ln); /* the kernel pushes when forwarding starts */
	}
	lnet_mgmt_op_done(&o->op, rc);
	free(o);
}

static void
lnet_rtr_ping_start(struct lnet_mgmt_op *op)
{
	lnet_ping_target_rebuild(op->ln, lnet_rtr_pinged, op);
}

/* The ping target says whether this node routes (RTE_DISABLED), then goes to the peers. */
static void
lnet_rtr_advertise(struct lnet *ln)
{
	struct lnet_rtr_ping_op *o = calloc(1, sizeof(*o));

	if (o == NULL) {
		LNET_LOG(ERR, "routing: no memory to rebuild the ping target");
		return;
	}
	o->op.ln = ln;
	o->op.start = lnet_rtr_ping_start;
	lnet_mgmt_op_submit(&o->op);
}

static uint64_t
lnet_rtr_delay_us(const struct lnet *ln)
{
	int s = __atomic_load_n(&ln->rtr_params.alive_router_check_interval, __ATOMIC_RELAXED) +
		__atomic_load_n(&ln->rtr_params.router_ping_timeout, __ATOMIC_RELAXED);

	return (uint64_t)(s > 0 ? s : 0) * 1000000ULL;
}

/* Whether every buffer is back (the kernel's lnet_rtrpools_are_free), read relaxed. */
static bool
lnet_rtr_pools_idle(const struct lnet *ln)
{
	unsigned int c;
	unsigned int k;

	for (c = 0; c < ln->ncpts; c++) {
		for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
			const struct lnet_rtr_pool *p = &ln->cpts[c]->rtr[k];

			if (__atomic_load_n(&p->credits, __ATOMIC_RELAXED) < p->nbuffers) {
				return false;
			}
		}
	}
	return true;
}

static void lnet_rtr_pools_free_all(struct lnet *ln);

static void
lnet_rtr_timer_fired(void *arg)
{
	struct lnet_router *r = arg;
	struct lnet *ln = r->ln;
	uint64_t now = rt_now_us(ln->rt);
	int state = lnet_routing_state(ln);

	if (state == LNET_CTL_ROUTING_STARTING && now >= r->min_wait_us) {
		__atomic_store_n(&ln->routing, LNET_CTL_ROUTING_ENABLED, __ATOMIC_RELEASE);
		LNET_LOG(NOTICE, "Message forwarding enabled");
		lnet_rtr_advertise(ln);
		return;
	}
	if (state == LNET_CTL_ROUTING_STOPPING &&
	    ((now >= r->min_wait_us && lnet_rtr_pools_idle(ln)) || now >= r->max_wait_us)) {
		__atomic_store_n(&ln->routing, LNET_CTL_ROUTING_DISABLED, __ATOMIC_RELEASE);
		lnet_rtr_pools_free_all(ln);
		LNET_LOG(NOTICE, "Message forwarding disabled");
		return;
	}
	if (state == LNET_CTL_ROUTING_STARTING || state == LNET_CTL_ROUTING_STOPPING) {
		rt_timer_arm(&r->timer, 1000000); /* the kernel's monitor looks once a second */
	}
}

/* The pools of every CPT, sized as the settings say now (mgmt). */
static int
lnet_rtr_pools_alloc(struct lnet *ln)
{
	unsigned int c;
	unsigned int k;

	for (c = 0; c < ln->ncpts; c++) {
		for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
			int rc = lnet_rtr_pool_make(ln, c, k, lnet_rtr_per_cpt(ln, k),
						    &ln->cpts[c]->rtr[k]);

			if (rc != 0) {
				lnet_rtr_pools_free_all(ln);
				return rc;
			}
		}
	}
	return 0;
}

static void
lnet_rtr_pools_free_all(struct lnet *ln)
{
	unsigned int c;
	unsigned int k;

	for (c = 0; c < ln->ncpts; c++) {
		for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
			lnet_rtr_pool_free(&ln->cpts[c]->rtr[k]);
		}
	}
}

struct lnet_routing_args {
	struct lnet *ln;
	bool enable;
	unsigned int kind;
	int total;
	char *err;
	size_t errlen;
	struct lnet_ctl_routing *out;
};

static int
lnet_routing_set_on_mgmt(void *arg)
{
	struct lnet_routing_args *a = arg;
	struct lnet *ln = a->ln;
	struct lnet_router *r = ln->router;
	int state = lnet_routing_state(ln);
	uint64_t now = rt_now_us(ln->rt);
	int rc;

	if (a->enable) {
		if (state == LNET_CTL_ROUTING_ENABLED || state == LNET_CTL_ROUTING_STARTING) {
			return 0;
		}
		if (state == LNET_CTL_ROUTING_STOPPING) {
			snprintf(a->err, a->errlen, "Cannot enable routing while it is being stopped");
			return -EBUSY;
		}
		rc = lnet_rtr_pools_alloc(ln);
		if (rc != 0) {
			snprintf(a->err, a->errlen, "cannot allocate the router buffers: %s",
				 strerror(-rc));
			return rc;
		}
		__atomic_store_n(&ln->routing, LNET_CTL_ROUTING_STARTING, __ATOMIC_RELEASE);
		LNET_LOG(NOTICE, "Message forwarding will be enabled in %us",
			 (unsigned int)(lnet_rtr_delay_us(ln) / 1000000));
	} else {
		if (state == LNET_CTL_ROUTING_DISABLED || state == LNET_CTL_ROUTING_STOPPING) {
			return 0;
		}
		__atomic_store_n(&ln->routing, LNET_CTL_ROUTING_STOPPING, __ATOMIC_RELEASE);
		lnet_rtr_advertise(ln); /* RTE_DISABLED again at once, as the kernel's */
	}
	r->min_wait_us = now + lnet_rtr_delay_us(ln);
	r->max_wait_us = now + 3 * lnet_rtr_delay_us(ln);
	rt_timer_cancel(&r->timer);
	rt_timer_arm(&r->timer, 0);
	return 0;
}

int
lnet_ctl_routing_set(bool enable, char *err, size_t errlen)
{
	struct lnet_routing_args a = { .ln = lnet_instance(), .enable = enable, .err = err,
				       .errlen = errlen };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_routing_set_on_mgmt, &a);
}

/* Resize a live pool when all its buffers are home; otherwise the next enable sizes it. */
static int
lnet_buffers_set_on_mgmt(void *arg)
{
	struct lnet_routing_args *a = arg;
	struct lnet *ln = a->ln;
	const int *params[] = { &ln->rtr_params.tiny_router_buffers,
				&ln->rtr_params.small_router_buffers,
				&ln->rtr_params.large_router_buffers };
	int state = lnet_routing_state(ln);
	unsigned int c;

	__atomic_store_n((int *)params[a->kind], a->total, __ATOMIC_RELAXED);
	if (state == LNET_CTL_ROUTING_DISABLED) {
		return 0;
	}
	for (c = 0; c < ln->ncpts; c++) {
		struct lnet_rtr_pool *p = &ln->cpts[c]->rtr[a->kind];
		struct lnet_rtr_pool q;
		int rc;

		if (p->credits != p->nbuffers || !TAILQ_EMPTY(&p->waitq)) {
			snprintf(a->err, a->errlen, "router buffers of CPT %u are in use", c);
			return -EBUSY;
		}
		rc = lnet_rtr_pool_make(ln, c, a->kind, lnet_rtr_per_cpt(ln, a->kind), &q);
		if (rc != 0) {
			snprintf(a->err, a->errlen, "cannot allocate the router buffers: %s",
				 strerror(-rc));
			return rc;
		}
		lnet_rtr_pool_free(p);
		*p = q;
		TAILQ_INIT(&p->waitq);
	}
	return 0;
}

int
lnet_ctl_buffers_set(enum lnet_ctl_rtr_pool_kind kind, int total, char *err, size_t errlen)
{
	struct lnet_routing_args a = { .ln = lnet_instance(), .kind = (unsigned int)kind,
				       .total = total, .err = err, .errlen = errlen };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if ((unsigned int)kind >= LNET_CTL_RTR_NPOOLS || total < 0) {
		snprintf(err, errlen, "invalid router buffer count %d", total);
		return -EINVAL;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_buffers_set_on_mgmt, &a);
}

static int
lnet_routing_get_on_mgmt(void *arg)
{
	struct lnet_routing_args *a = arg;
	struct lnet *ln = a->ln;
	struct lnet_ctl_routing *o = a->out;
	int state = lnet_routing_state(ln);
	unsigned int c;
	unsigned int k;

	memset(o, 0, sizeof(*o));
	o->enable = state;
	o->forward_delay_s = (uint32_t)(lnet_rtr_delay_us(ln) / 1000000);
	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		o->buffers[k] = lnet_rtr_param(ln, k);
	}
	if (state == LNET_CTL_ROUTING_DISABLED) {
		return 0;
	}
	o->ncpts = ln->ncpts < LNET_CTL_ROUTING_CPTS ? ln->ncpts : LNET_CTL_ROUTING_CPTS;
	for (c = 0; c < o->ncpts; c++) {
		for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
			const struct lnet_rtr_pool *p = &ln->cpts[c]->rtr[k];

			o->pools[c][k] = (struct lnet_ctl_rtr_pool){
				.npages = (int)p->npages, .nbuffers = p->nbuffers,
				.credits = __atomic_load_n(&p->credits, __ATOMIC_RELAXED),
				.mincredits = __atomic_load_n(&p->mincredits, __ATOMIC_RELAXED),
			};
		}
	}
	return 0;
}

int
lnet_ctl_routing_get(struct lnet_ctl_routing *out)
{
	struct lnet_routing_args a = { .ln = lnet_instance(), .out = out };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_routing_get_on_mgmt, &a);
}

/* ---- life ----------------------------------------------------------------------- */

int
lnet_router_init(struct lnet *ln)
{
	struct lnet_router *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		return -ENOMEM;
	}
	r->ln = ln;
	rt_timer_init(&r->timer, lnet_rtr_timer_fired, r);
	ln->router = r;
	return 0;
}

/* After the lcores stopped: no message holds a buffer any more. */
void
lnet_router_fini(struct lnet *ln)
{
	if (ln->router == NULL) {
		return;
	}
	rt_timer_cancel(&ln->router->timer);
	if (ln->cpts != NULL) {
		lnet_rtr_pools_free_all(ln);
	}
	free(ln->router);
	ln->router = NULL;
}

/* Shutdown, on each data lcore: messages waiting for a router credit or buffer are dropped. */
void
lnet_fwd_abort_queued(struct lnet_cpt *c)
{
	struct lnet_msg *msg;
	unsigned int k;
	unsigned int i;

	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		while ((msg = TAILQ_FIRST(&c->rtr[k].waitq)) != NULL) {
			TAILQ_REMOVE(&c->rtr[k].waitq, msg, link);
			lnet_drop_rx(c, msg, "LNet is shutting down");
		}
	}
	for (i = 0; c->peers.hash != NULL && i < LNET_PEER_HASH_SIZE; i++) {
		struct lnet_peer_ni *lpni;

		TAILQ_FOREACH(lpni, &c->peers.hash[i], link) {
			while ((msg = TAILQ_FIRST(&lpni->rtrq)) != NULL) {
				TAILQ_REMOVE(&lpni->rtrq, msg, link);
				lnet_drop_rx(c, msg, "LNet is shutting down");
			}
		}
	}
}
