/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `set routing`, the router buffer pools' sizes and `routing show`
 * (lnet-facts §6, §11, §12.6), as the kernel's router.c: routing goes
 * STARTING (pools made, RTE_DISABLED still advertised), then ENABLED
 * after alive_router_check_interval + router_ping_timeout, when the ping
 * target says this node routes and goes to the peers; turned off it is
 * STOPPING (RTE_DISABLED at once) until every buffer is home or three
 * times that delay passed, then DISABLED with the pools emptied and the
 * buffer settings back to their defaults. Pool sizes change only while
 * routing is on, as the kernel's lnet_rtrpools_adjust.
 *
 * While routing, a net no other node has pinged for router_ping_timeout +
 * alive_router_check_interval has its NIs DOWN in the ping target, pushed
 * to the peers, until a ping comes (the kernel's lnet_update_ni_status):
 * its gateways' users then route around it.
 *
 * The state and its timer are the management lcore's; each CPT's pools
 * are resized on that CPT's lcore (lnet_rtr_pool.c), from the calling
 * thread, which waits for each and makes the buffers itself in between.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"

/* The kernel's pool sizes (router.c LNET_NRB_*): totals over all CPTs. */
static const int lnet_rtr_default[LNET_CTL_RTR_NPOOLS] = { 2048, 16384, 1024 };

struct lnet_router {
	struct lnet *ln;
	struct rt_timer timer; /* STARTING -> ENABLED, STOPPING -> DISABLED */
	uint64_t min_wait_us;  /* the kernel's rtr_min_wait / rtr_max_wait */
	uint64_t max_wait_us;
	bool pools_made;                  /* routing show lists the CPTs' pools from then on */
	struct rt_hop hops[LNP_MAX_CPTS]; /* emptying each CPT's pools, from the timer */
};

static int *
lnet_rtr_param_slot(struct lnet *ln, unsigned int kind)
{
	int *slots[] = { &lnet_node(ln)->rtr_params.tiny_router_buffers,
			 &lnet_node(ln)->rtr_params.small_router_buffers,
			 &lnet_node(ln)->rtr_params.large_router_buffers };

	return slots[kind];
}

/* The kernel's lnet_nrb_*_calculate: the total (or the default) over the CPTs, at least 1. */
static int
lnet_rtr_per_cpt(struct lnet *ln, unsigned int kind)
{
	int total = __atomic_load_n(lnet_rtr_param_slot(ln, kind), __ATOMIC_RELAXED);
	int n = (total > 0 ? total : lnet_rtr_default[kind]) / (int)ln->ncpts;

	return n > 0 ? n : 1;
}

/* ---- the pools, each on its CPT's lcore ------------------------------------------- */

struct lnet_rtr_resize {
	struct lnet *ln;
	unsigned int kind; /* LNET_CTL_RTR_NPOOLS: all three */
	int n[LNET_CTL_RTR_NPOOLS];
	struct lnet_rtr_grow g[LNET_CTL_RTR_NPOOLS];
};

static bool
lnet_rtr_resize_has(const struct lnet_rtr_resize *a, unsigned int k)
{
	return a->kind == LNET_CTL_RTR_NPOOLS || a->kind == k;
}

static int
lnet_rtr_plan_on_cpt(void *arg)
{
	struct lnet_rtr_resize *a = arg;
	struct lnet_cpt *c = lnet_cpt_self(a->ln);
	unsigned int k;

	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		if (lnet_rtr_resize_has(a, k)) {
			lnet_rtr_grow_plan(&c->rtr[k], a->n[k], &a->g[k]);
		}
	}
	return 0;
}

static int
lnet_rtr_commit_on_cpt(void *arg)
{
	struct lnet_rtr_resize *a = arg;
	struct lnet_cpt *c = lnet_cpt_self(a->ln);
	unsigned int k;

	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		if (lnet_rtr_resize_has(a, k)) {
			lnet_rtr_grow_commit(c, &c->rtr[k], &a->g[k], lnet_fwd_recv);
		}
	}
	return 0;
}

static int
lnet_rtr_abort_on_cpt(void *arg)
{
	struct lnet_rtr_resize *a = arg;
	struct lnet_cpt *c = lnet_cpt_self(a->ln);
	unsigned int k;

	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		if (lnet_rtr_resize_has(a, k)) {
			lnet_rtr_grow_abort(&c->rtr[k], &a->g[k]);
		}
	}
	return 0;
}

/*
 * CPT @p cpt's pools to the sizes in @p a: planned on its lcore, the
 * buffers made here, linked in on its lcore; all or nothing.
 */
static int
lnet_rtr_resize_cpt(struct lnet_rtr_resize *a, unsigned int cpt)
{
	unsigned int k;
	int rc;

	memset(a->g, 0, sizeof(a->g));
	rc = lnet_call_on_cpt(a->ln, cpt, lnet_rtr_plan_on_cpt, a);
	for (k = 0; k < LNET_CTL_RTR_NPOOLS && rc == 0; k++) {
		rc = lnet_rtr_grow_make(&a->g[k]);
	}
	if (rc == 0) {
		rc = lnet_call_on_cpt(a->ln, cpt, lnet_rtr_commit_on_cpt, a);
	} else {
		lnet_call_on_cpt(a->ln, cpt, lnet_rtr_abort_on_cpt, a);
	}
	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		lnet_rtr_grow_release(&a->g[k]);
	}
	return rc;
}

/* Every CPT's pools of @p kind (or all) to the sizes the settings say; -ENOMEM undoes none. */
static int
lnet_rtr_pools_resize(struct lnet *ln, unsigned int kind)
{
	struct lnet_rtr_resize a = { .ln = ln, .kind = kind };
	unsigned int c;
	unsigned int k;
	int rc = 0;

	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		a.n[k] = lnet_rtr_per_cpt(ln, k);
	}
	for (c = 0; c < ln->ncpts && rc == 0; c++) {
		rc = lnet_rtr_resize_cpt(&a, c);
		if (rc != 0) {
			LNET_LOG(ERR, "error allocating router buffers on CPT %u: rc = %d", c, rc);
		}
	}
	return rc;
}

/* On a CPT's lcore, from the STOPPING timer: its pools emptied, waiting messages dropped. */
static void
lnet_rtr_empty_on_cpt(void *arg)
{
	struct lnet *ln = arg;
	struct lnet_cpt *c = lnet_cpt_self(ln);
	unsigned int k;

	lnet_fwd_abort_queued(c);
	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		lnet_rtr_pool_empty(&c->rtr[k]);
	}
}

/* ---- the state machine (management lcore) ---------------------------------------- */

struct lnet_rtr_ping_op {
	struct lnet_mgmt_op op; /* first: the queue hands it back */
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
	int s = __atomic_load_n(&lnet_node(ln)->rtr_params.alive_router_check_interval,
				__ATOMIC_RELAXED) +
		__atomic_load_n(&lnet_node(ln)->rtr_params.router_ping_timeout, __ATOMIC_RELAXED);

	return (uint64_t)(s > 0 ? s : 0) * LNP_US_PER_S;
}

/* Whether every buffer is home (the kernel's lnet_rtrpools_are_free), read from afar. */
static bool
lnet_rtr_pools_idle(const struct lnet *ln)
{
	unsigned int c;
	unsigned int k;

	for (c = 0; c < ln->ncpts; c++) {
		for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
			const struct lnet_rtr_pool *p = &ln->cpts[c]->rtr[k];

			if (__atomic_load_n(&p->credits, __ATOMIC_RELAXED) <
			    __atomic_load_n(&p->nbuffers, __ATOMIC_RELAXED)) {
				return false;
			}
		}
	}
	return true;
}

static void
lnet_rtr_disable(struct lnet_router *r)
{
	struct lnet *ln = r->ln;
	unsigned int c;
	unsigned int k;

	__atomic_store_n(&ln->routing, LNET_CTL_ROUTING_DISABLED, __ATOMIC_RELEASE);
	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		__atomic_store_n(lnet_rtr_param_slot(ln, k), 0, __ATOMIC_RELAXED);
	}
	for (c = 0; c < ln->ncpts; c++) {
		rt_hop_send(&r->hops[c], ln->cpts[c]->lcore, lnet_rtr_empty_on_cpt, ln);
	}
	LNET_LOG(NOTICE, "Message forwarding disabled");
}

/* The latest ping any NI of @p net_id had (the kernel keeps one per net). */
static uint64_t
lnet_rtr_net_last_ping(const struct lnet_ni_table *t, uint32_t net_id)
{
	uint64_t last = 0;
	unsigned int i;

	for (i = 0; i < t->nnis; i++) {
		uint64_t l = __atomic_load_n(&t->nis[i]->last_ping_us, __ATOMIC_RELAXED);

		if (t->nis[i]->net_id == net_id && l > last) {
			last = l;
		}
	}
	return last;
}

/* Nets silent for the router's timeout: their NIs DOWN (a ping brings each back, lnet_recv.c). */
static void
lnet_rtr_nets_check(struct lnet *ln, uint64_t now)
{
	const struct lnet_ni_table *t = lnet_ni_table_get(ln);
	uint64_t timeout = lnet_rtr_delay_us(ln);
	unsigned int i;

	for (i = 0; i < t->nnis; i++) {
		struct lnet_ni *ni = t->nis[i];

		if (ni->any_cpt || ni->status != LNET_NI_STATUS_UP ||
		    now < lnet_rtr_net_last_ping(t, ni->net_id) + timeout) {
			continue;
		}
		LNET_LOG(NOTICE, "%s: no ping from another node for %us: down in the ping target",
			 libcfs_nidstr(&ni->nid), (unsigned int)(timeout / LNP_US_PER_S));
		lnet_ni_health_status(ni, false);
	}
}

static void
lnet_rtr_timer_fired(void *arg)
{
	struct lnet_router *r = arg;
	struct lnet *ln = r->ln;
	uint64_t now = rt_now_us(ln->rt);
	int state = lnet_routing_state(ln);

	if (state != LNET_CTL_ROUTING_DISABLED) {
		lnet_rtr_nets_check(ln, now);
	}
	if (state == LNET_CTL_ROUTING_STARTING && now >= r->min_wait_us) {
		__atomic_store_n(&ln->routing, LNET_CTL_ROUTING_ENABLED, __ATOMIC_RELEASE);
		LNET_LOG(NOTICE, "Message forwarding enabled");
		lnet_rtr_advertise(ln);
	} else if (state == LNET_CTL_ROUTING_STOPPING &&
		   ((now >= r->min_wait_us && lnet_rtr_pools_idle(ln)) || now >= r->max_wait_us)) {
		lnet_rtr_disable(r);
		return;
	}
	if (state != LNET_CTL_ROUTING_DISABLED) {
		rt_timer_arm(&r->timer,
			     LNP_US_PER_S); /* the kernel's monitor looks once a second */
	}
}

struct lnet_routing_args {
	struct lnet *ln;
	bool enable;
	int state; /* out */
	char *err;
	size_t errlen;
	struct lnet_ctl_routing *out;
};

/* Mgmt: the new state, its timer; pools are made (enable) before this runs. */
static int
lnet_routing_set_on_mgmt(void *arg)
{
	struct lnet_routing_args *a = arg;
	struct lnet *ln = a->ln;
	struct lnet_router *r = lnet_node(ln)->router;
	uint64_t now = rt_now_us(ln->rt);

	if (a->enable) {
		__atomic_store_n(&ln->routing, LNET_CTL_ROUTING_STARTING, __ATOMIC_RELEASE);
		r->pools_made = true;
		LNET_LOG(NOTICE, "Message forwarding will be enabled in %us",
			 (unsigned int)(lnet_rtr_delay_us(ln) / LNP_US_PER_S));
	} else {
		__atomic_store_n(&ln->routing, LNET_CTL_ROUTING_STOPPING, __ATOMIC_RELEASE);
		lnet_rtr_advertise(ln); /* RTE_DISABLED again at once, as the kernel's */
	}
	r->min_wait_us = now + lnet_rtr_delay_us(ln);
	r->max_wait_us = now + 3 * lnet_rtr_delay_us(ln);
	rt_timer_cancel(&r->timer);
	rt_timer_arm(&r->timer, 0);
	return 0;
}

static int
lnet_routing_state_on_mgmt(void *arg)
{
	struct lnet_routing_args *a = arg;

	a->state = lnet_routing_state(a->ln);
	return 0;
}

int
lnet_ctl_routing_set(bool enable, char *err, size_t errlen)
{
	struct lnet_routing_args a = {
		.ln = lnet_instance(), .enable = enable, .err = err, .errlen = errlen
	};
	struct rt_lcore *mgmt;
	int rc;

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	mgmt = rt_mgmt_lcore(a.ln->rt);
	rt_lcore_call(mgmt, lnet_routing_state_on_mgmt, &a);
	if (enable && a.state == LNET_CTL_ROUTING_STOPPING) {
		snprintf(err, errlen, "Cannot enable routing while it is being stopped");
		return -EBUSY;
	}
	if (enable ? a.state != LNET_CTL_ROUTING_DISABLED :
		     a.state == LNET_CTL_ROUTING_DISABLED || a.state == LNET_CTL_ROUTING_STOPPING) {
		return 0; /* already so */
	}
	if (enable) {
		/* Set calls run one at a time (the control thread): nothing races this. */
		rc = lnet_rtr_pools_resize(a.ln, LNET_CTL_RTR_NPOOLS);
		if (rc != 0) {
			snprintf(err, errlen, "cannot allocate the router buffers: %s",
				 strerror(-rc));
			return rc;
		}
	}
	return rt_lcore_call(mgmt, lnet_routing_set_on_mgmt, &a);
}

int
lnet_ctl_buffers_set(enum lnet_ctl_rtr_pool_kind kind, int total, char *err, size_t errlen)
{
	struct lnet_routing_args a = { .ln = lnet_instance() };
	int *slot;
	int old;
	int rc;

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if ((unsigned int)kind >= LNET_CTL_RTR_NPOOLS || total < 0) {
		snprintf(err, errlen, "invalid router buffer count %d", total);
		return -EINVAL;
	}
	rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_routing_state_on_mgmt, &a);
	if (a.state == LNET_CTL_ROUTING_DISABLED) {
		return 0; /* the kernel's lnet_rtrpools_adjust: nothing while not routing */
	}
	slot = lnet_rtr_param_slot(a.ln, (unsigned int)kind);
	old = __atomic_exchange_n(slot, total, __ATOMIC_RELAXED);
	rc = lnet_rtr_pools_resize(a.ln, (unsigned int)kind);
	if (rc != 0) {
		__atomic_store_n(slot, old, __ATOMIC_RELAXED);
		snprintf(err, errlen, "cannot allocate the router buffers: %s", strerror(-rc));
	}
	return rc;
}

/* ---- routing show ------------------------------------------------------------------ */

struct lnet_routing_cpt_args {
	struct lnet *ln;
	struct lnet_ctl_rtr_pool *out;
};

static int
lnet_routing_get_on_cpt(void *arg)
{
	struct lnet_routing_cpt_args *a = arg;
	struct lnet_cpt *c = lnet_cpt_self(a->ln);
	unsigned int k;

	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		const struct lnet_rtr_pool *p = &c->rtr[k];

		a->out[k] = (struct lnet_ctl_rtr_pool){ .npages = (int)p->npages,
							.nbuffers = p->nbuffers,
							.credits = p->credits,
							.mincredits = p->mincredits };
	}
	return 0;
}

static int
lnet_routing_get_on_mgmt(void *arg)
{
	struct lnet_routing_args *a = arg;
	struct lnet *ln = a->ln;
	struct lnet_ctl_routing *o = a->out;
	unsigned int k;

	memset(o, 0, sizeof(*o));
	o->enable = lnet_routing_state(ln);
	o->forward_delay_s = (uint32_t)(lnet_rtr_delay_us(ln) / LNP_US_PER_S);
	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		o->buffers[k] = __atomic_load_n(lnet_rtr_param_slot(ln, k), __ATOMIC_RELAXED);
	}
	if (lnet_node(ln)->router->pools_made) {
		o->ncpts = ln->ncpts < LNET_CTL_ROUTING_CPTS ? ln->ncpts : LNET_CTL_ROUTING_CPTS;
	}
	return 0;
}

int
lnet_ctl_routing_get(struct lnet_ctl_routing *out)
{
	struct lnet_routing_args a = { .ln = lnet_instance(), .out = out };
	unsigned int c;
	int rc;

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	rc = rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_routing_get_on_mgmt, &a);
	for (c = 0; rc == 0 && c < out->ncpts; c++) {
		struct lnet_routing_cpt_args ca = { a.ln, out->pools[c] };

		rc = lnet_call_on_cpt(a.ln, c, lnet_routing_get_on_cpt, &ca);
	}
	return rc;
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
	lnet_node(ln)->router = r;
	return 0;
}

/* After the lcores stopped: no message holds a buffer any more. */
void
lnet_router_fini(struct lnet *ln)
{
	unsigned int c;
	unsigned int k;

	if (lnet_node(ln)->router == NULL) {
		return;
	}
	rt_timer_cancel(&lnet_node(ln)->router->timer);
	for (c = 0; ln->cpts != NULL && c < ln->ncpts; c++) {
		for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
			lnet_rtr_pool_fini(&ln->cpts[c]->rtr[k]);
		}
	}
	free(lnet_node(ln)->router);
	lnet_node(ln)->router = NULL;
}
