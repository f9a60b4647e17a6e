/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UDSP on the node: the rules live on the management lcore (struct
 * lnet_udsp_state); applying them writes each NI's priorities (read by
 * the data lcores' selection views, rebuilt on ni_state_gen) and each
 * peer composition's UDSP values, in place (atomics and RCU-published
 * lists). Every composition built gets the current values, so a peer NI
 * that discovery adds gets them; a change of rules or NIs refreshes the
 * published ones it can reach, a slice per loop turn.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"
#include "lnet_route.h"
#include "lnet_peer_dir.h"
#include "lnet_udsp.h"

/* How long one slice of a peer refresh may hold the management lcore, and its most peers. */
#define LNET_UDSP_SLICE_US 200
#define LNET_UDSP_SLICE_PEERS 4096

struct lnet_udsp_state {
	struct lnet *ln;
	struct lnet_udsp_set set;
	struct lnet_udsp_compiled comp; /* of set against the NIs of the current table */
	struct lnet_ctl_udsp_stats stats;
	/*
	 * The peers' refresh after a change, a slice per loop turn: under way
	 * while aspects (enum lnet_udsp_aspect: what it recomputes) is not 0.
	 * It looks at the peer NIs scope_rule's dst reaches (adding, deleting
	 * or re-prioritising one rule can change no other peer's values), or
	 * at every peer NI when scope_rule is NULL.
	 */
	struct rt_timer slice;
	unsigned int slice_peers;
	unsigned int aspects;
	struct lnet_udsp_rule *scope_rule; /* in the set, or deleted and ... */
	bool scope_owned;                  /* ... freed when the refresh ends */
	uint64_t started_us;
	uint64_t busy_us;
	unsigned int updated;
	struct lnet_mgmt_op *waiting; /* the udsp add/del that returns when it ends */
};

static void lnet_udsp_slice(void *arg);

struct lnet_udsp_state *
lnet_udsp_state_create(struct lnet *ln)
{
	struct lnet_udsp_state *u = calloc(1, sizeof(*u));

	if (u != NULL) {
		u->ln = ln;
		u->slice_peers = LNET_UDSP_SLICE_PEERS;
		lnet_udsp_set_init(&u->set);
		rt_timer_init(&u->slice, lnet_udsp_slice, u);
	}
	return u;
}

/* After the lcores stopped. */
void
lnet_udsp_state_destroy(struct lnet_udsp_state *u)
{
	if (u == NULL) {
		return;
	}
	if (rt_timer_pending(&u->slice)) {
		rt_timer_cancel(&u->slice);
	}
	if (u->scope_owned) {
		lnet_udsp_rule_free(u->scope_rule);
	}
	lnet_udsp_compiled_fini(&u->comp);
	lnet_udsp_set_fini(&u->set);
	free(u);
}

static bool
lnet_udsp_active(const struct lnet *ln)
{
	return lnet_node(ln)->udsp != NULL && lnet_node(ln)->udsp->set.n != 0;
}

/* ---- local NIs ---- */

void
lnet_udsp_table_prios(struct lnet *ln, const struct lnet_ni_table *t)
{
	unsigned int i;

	for (i = 0; i < t->nnis; i++) {
		struct lnet_ni *ni = t->nis[i];
		uint32_t prio = LNET_UDSP_PRIO_NONE;
		uint32_t net_prio = LNET_UDSP_PRIO_NONE;

		if (lnet_udsp_active(ln)) {
			prio = lnet_udsp_local_ni_prio(&lnet_node(ln)->udsp->set, &ni->nid);
			net_prio = lnet_udsp_local_net_prio(&lnet_node(ln)->udsp->set, ni->net_id);
		}
		__atomic_store_n(&ni->udsp_prio, prio, __ATOMIC_RELAXED);
		__atomic_store_n(&ni->udsp_net_prio, net_prio, __ATOMIC_RELAXED);
	}
}

/* The pair rules' local NIDs: the NIs of the current table, in its order. */
static int
lnet_udsp_recompile(struct lnet *ln)
{
	struct lnet_udsp_state *u = lnet_node(ln)->udsp;
	const struct lnet_ni_table *t = ln->ni_table;
	struct lnet_udsp_compiled next;
	struct lnet_nid *local;
	struct lnet_nid *gws;
	unsigned int ngws;
	unsigned int n = 0;
	unsigned int i;
	int rc;

	local = calloc(t != NULL && t->nnis != 0 ? t->nnis : 1, sizeof(*local));
	if (local == NULL) {
		return -ENOMEM;
	}
	for (i = 0; t != NULL && i < t->nnis; i++) {
		local[n++] = t->nis[i]->nid;
	}
	gws = lnet_route_gateways(ln, &ngws); /* router rules match the gateways' primary NIDs */
	rc = lnet_udsp_compile(&u->set, local, n, gws, ngws, &next);
	free(local);
	free(gws);
	if (rc != 0) {
		return rc;
	}
	lnet_udsp_compiled_fini(&u->comp);
	u->comp = next;
	return 0;
}

static void
lnet_udsp_scope_drop(struct lnet_udsp_state *u)
{
	if (u->scope_owned) {
		lnet_udsp_rule_free(u->scope_rule);
	}
	u->scope_rule = NULL;
	u->scope_owned = false;
	u->aspects = 0;
}

/*
 * Widen the refresh under way (or none) to cover rule @p r's change
 * (@p r NULL: every peer NI) of @p aspects too.
 */
static void
lnet_udsp_scope_add(struct lnet_udsp_state *u, struct lnet_udsp_rule *r, bool owned,
		    unsigned int aspects)
{
	if (u->aspects == 0 && r != NULL) {
		u->scope_rule = r;
		u->scope_owned = owned;
		u->aspects = aspects;
		return;
	}
	/* two rules, or everything: look at every peer */
	aspects |= u->aspects;
	lnet_udsp_scope_drop(u);
	if (owned) {
		lnet_udsp_rule_free(r);
	}
	u->aspects = aspects;
}

static void
lnet_udsp_refresh_done(struct lnet_udsp_state *u)
{
	struct lnet_mgmt_op *op = u->waiting;

	lnet_udsp_scope_drop(u);
	u->waiting = NULL;
	u->stats.applies++;
	u->stats.peers_updated += u->updated;
	u->stats.last_apply_us = rt_now_us(u->ln->rt) - u->started_us;
	u->stats.last_busy_us = u->busy_us;
	if (u->busy_us > u->stats.max_busy_us) {
		u->stats.max_busy_us = u->busy_us;
	}
	if (op != NULL) {
		lnet_mgmt_op_done(op, 0);
	}
}

/* One slice of the peers' refresh, then the next on the next loop turn. */
static void
lnet_udsp_slice(void *arg)
{
	struct lnet_udsp_state *u = arg;
	struct lnet_peer_dir *d = lnet_node(u->ln)->peer_dir;
	uint64_t t0 = rt_now_us(u->ln->rt);
	uint64_t took;
	bool done = d == NULL || lnet_peer_dir_udsp_step(d, t0 + LNET_UDSP_SLICE_US, u->slice_peers,
							 &u->updated);

	took = rt_now_us(u->ln->rt) - t0;
	u->busy_us += took;
	u->stats.max_slice_us = took > u->stats.max_slice_us ? took : u->stats.max_slice_us;
	if (done) {
		lnet_udsp_refresh_done(u);
	} else {
		rt_timer_arm(&u->slice, 0);
	}
}

/*
 * Mgmt: rules or NIs changed; every NI (at once) and the peers (a slice
 * per loop turn) get what the rules say now: the @p aspects of the peer
 * NIs rule @p r reaches (NULL: of every peer NI; @p aspects 0: no peer
 * value changes). A change while a refresh is under way widens it and
 * starts it again from the first peer. @p waiter (may be NULL) is
 * completed when the refresh ends. @p owned: the refresh frees @p r (a
 * deleted rule).
 */
static int
lnet_udsp_apply(struct lnet *ln, bool nis, struct lnet_mgmt_op *waiter, struct lnet_udsp_rule *r,
		bool owned, unsigned int aspects)
{
	struct lnet_udsp_state *u = lnet_node(ln)->udsp;
	uint64_t t0 = rt_now_us(ln->rt);
	int rc = lnet_udsp_recompile(ln);

	if (rc != 0) {
		if (owned) {
			lnet_udsp_rule_free(r);
		}
		return rc;
	}
	if (nis && ln->ni_table != NULL) {
		lnet_udsp_table_prios(ln, ln->ni_table);
		/* selection views cache the priorities: rebuild them */
		__atomic_fetch_add(&ln->ni_state_gen, 1, __ATOMIC_RELEASE);
	}
	if (aspects == 0) {
		/* local NIs only: done, whatever refresh may be under way for others */
		u->stats.applies++;
		u->stats.last_apply_us = rt_now_us(ln->rt) - t0;
		u->stats.last_busy_us = u->stats.last_apply_us;
		if (owned) {
			lnet_udsp_rule_free(r);
		}
		if (waiter != NULL) {
			lnet_mgmt_op_done(waiter, 0);
		}
		return 0;
	}
	if (u->aspects == 0) {
		u->started_us = t0;
		u->busy_us = 0;
		u->updated = 0;
	}
	lnet_udsp_scope_add(u, r, owned, aspects);
	u->busy_us += rt_now_us(ln->rt) - t0;
	if (waiter != NULL) {
		u->waiting = waiter; /* udsp ops run one at a time: one waits at most */
	}
	if (lnet_node(ln)->peer_dir != NULL) {
		lnet_peer_dir_udsp_restart(lnet_node(ln)->peer_dir);
	}
	if (!rt_timer_pending(&u->slice)) {
		rt_timer_arm(&u->slice, 0);
	}
	return 0;
}

void
lnet_udsp_slice_peers(struct lnet *ln, unsigned int n)
{
	lnet_node(ln)->udsp->slice_peers = n != 0 ? n : LNET_UDSP_SLICE_PEERS;
}

bool
lnet_udsp_refresh_pending(const struct lnet *ln)
{
	return lnet_node(ln)->udsp->aspects != 0 && rt_timer_pending(&lnet_node(ln)->udsp->slice);
}

/* Pair rules: the only peer values that follow the local NIs. */
static bool
lnet_udsp_has_pairs(const struct lnet_udsp_set *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		if (s->rules[i]->action == LNET_UDSP_ACTION_PREF &&
		    cfs_nid_parts_present(&s->rules[i]->src)) {
			return true;
		}
	}
	return false;
}

void
lnet_udsp_table_changed(struct lnet *ln)
{
	if (lnet_node(ln)->udsp == NULL) {
		return;
	}
	/* the NIs' own priorities were set before the table went out; pair rules follow the NIs */
	if (lnet_udsp_apply(ln, false, NULL, NULL, false,
			    lnet_udsp_has_pairs(&lnet_node(ln)->udsp->set) ? LNET_UDSP_PREF_SRC :
									     0) != 0) {
		LNET_LOG(WARNING, "udsp: no memory to apply the rules to the new NIs");
	}
}

/* Router rules: the only peer values that follow the gateways. */
static bool
lnet_udsp_has_rte(const struct lnet_udsp_set *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		if (s->rules[i]->action == LNET_UDSP_ACTION_PREF &&
		    cfs_nid_parts_present(&s->rules[i]->rte)) {
			return true;
		}
	}
	return false;
}

void
lnet_udsp_gateways_changed(struct lnet *ln)
{
	if (lnet_node(ln)->udsp == NULL || !lnet_udsp_has_rte(&lnet_node(ln)->udsp->set)) {
		return;
	}
	if (lnet_udsp_apply(ln, false, NULL, NULL, false, LNET_UDSP_PREF_RTE) != 0) {
		LNET_LOG(WARNING, "udsp: no memory to apply the router rules to the new gateways");
	}
}

/* ---- peers ---- */

/* A published list: a copy of the compiled set's @p n NIDs, NULL for none (or no memory). */
static struct lnet_udsp_nids *
lnet_udsp_nids_new(const struct lnet_nid *nids, unsigned int n)
{
	struct lnet_udsp_nids *l;

	if (n == 0) {
		return NULL;
	}
	l = malloc(sizeof(*l) + n * sizeof(l->nids[0]));
	if (l == NULL) {
		LNET_LOG(WARNING, "udsp: no memory for a preferred list; the peer NI keeps none");
		return NULL;
	}
	l->n = n;
	memcpy(l->nids, nids, n * sizeof(l->nids[0]));
	return l;
}

static bool
lnet_udsp_nids_same(const struct lnet_udsp_nids *l, const struct lnet_nid *nids, unsigned int n)
{
	return l == NULL ? n == 0 : l->n == n && memcmp(l->nids, nids, n * sizeof(*nids)) == 0;
}

/* Keep list *@p slot (published) equal to @p nids: a new one replaces it, the old retired. */
static bool
lnet_udsp_nids_set(struct lnet *ln, struct lnet_udsp_nids **slot, const struct lnet_nid *nids,
		   unsigned int n)
{
	struct lnet_udsp_nids *old = *slot;

	if (lnet_udsp_nids_same(old, nids, n)) {
		return false;
	}
	rt_rcu_publish((void **)slot, lnet_udsp_nids_new(nids, n));
	lnet_sel_gen_bump(ln); /* before the retire: no cached view keeps the old list past it */
	if (old != NULL && rt_rcu_retire(ln->rt, old, free) != 0) {
		LNET_LOG(WARNING, "udsp: list retire failed; old list kept");
	}
	return true;
}

static bool
lnet_udsp_prio_set(uint32_t *slot, uint32_t prio)
{
	if (__atomic_load_n(slot, __ATOMIC_RELAXED) == prio) {
		return false;
	}
	__atomic_store_n(slot, prio, __ATOMIC_RELAXED);
	return true;
}

/* The values of @p c in @p aspects, brought to what the rules say now. */
static bool
lnet_udsp_comp_set(struct lnet *ln, struct lnet_peer_comp *c, unsigned int aspects)
{
	const struct lnet_udsp_state *u = lnet_node(ln)->udsp;
	bool on = lnet_udsp_active(ln);
	bool changed = false;
	unsigned int i;

	for (i = 0; (aspects & LNET_UDSP_NET_PRIO) && i < c->nnets; i++) {
		changed |= lnet_udsp_prio_set(&c->nets[i].sel_prio,
					      on ? lnet_udsp_peer_net_prio(&u->set,
									   c->nets[i].net_id) :
						   LNET_UDSP_PRIO_NONE);
	}
	for (i = 0; i < c->nnis; i++) {
		struct lnet_peer_comp_ni *ni = &c->nis[i];
		const struct lnet_nid *l = NULL;
		unsigned int k = 0;

		if (aspects & LNET_UDSP_NID_PRIO) {
			changed |=
				lnet_udsp_prio_set(&ni->sel_prio,
						   on ? lnet_udsp_peer_ni_prio(&u->set, &ni->nid) :
							LNET_UDSP_PRIO_NONE);
		}
		if (aspects & LNET_UDSP_PREF_SRC) {
			l = on ? lnet_udsp_pref(&u->comp, false, &ni->nid, &k) : NULL;
			changed |= lnet_udsp_nids_set(ln, &ni->pref, l, on ? k : 0);
		}
		if (aspects & LNET_UDSP_PREF_RTE) {
			l = on ? lnet_udsp_pref(&u->comp, true, &ni->nid, &k) : NULL;
			changed |= lnet_udsp_nids_set(ln, &ni->rtr, l, on ? k : 0);
		}
	}
	if (changed) {
		lnet_sel_gen_bump(ln); /* priorities changed in place */
	}
	return changed;
}

bool
lnet_udsp_comp_update(struct lnet *ln, struct lnet_peer_comp *c)
{
	return lnet_udsp_comp_set(ln, c, lnet_node(ln)->udsp->aspects);
}

void
lnet_udsp_comp_fill(struct lnet *ln, struct lnet_peer_comp *c)
{
	/* not published yet: the same as updating it in place, and nothing to retire */
	if (lnet_udsp_active(ln)) {
		lnet_udsp_comp_set(ln, c, LNET_UDSP_ALL);
	}
}

bool
lnet_udsp_nid_in_scope(const struct lnet *ln, const struct lnet_nid *nid)
{
	const struct lnet_udsp_state *u = lnet_node(ln)->udsp;

	if (u->aspects == 0) {
		return false;
	}
	return u->scope_rule == NULL || lnet_udsp_rule_reaches(u->scope_rule, nid);
}

/* ---- the daemon's calls (lnet_ctl.h), each run on the management lcore ---- */

struct lnet_udsp_call {
	struct lnet *ln;
	const char *src;
	const char *dst;
	const char *rte;
	long priority;
	int idx;
	struct lnet_ctl_udsp *out;
	unsigned int start;
	unsigned int max;
	unsigned int total;
	const struct lnet_nid *nid;
	struct lnet_ctl_udsp_info *info;
	struct lnet_ctl_udsp_stats *stats;
	char *err;
	size_t errlen;
};

static int
lnet_udsp_call(struct lnet_udsp_call *a, rt_call_fn fn)
{
	a->ln = lnet_instance();
	if (a->ln == NULL || lnet_node(a->ln)->udsp == NULL) {
		return -ENETDOWN;
	}
	return rt_lcore_call(rt_mgmt_lcore(a->ln->rt), fn, a);
}

/*
 * add and del are management operations (one at a time, in order, after
 * any net add/del before them) that end when every peer has the new
 * values, as the kernel's ioctl returns once the rules are applied.
 */
struct lnet_udsp_op {
	struct lnet_mgmt_op op;
	struct lnet_udsp_call *a;
	bool del;
};

/* The change on the set, then its application (rc 0: the refresh completes @p op). */
static int
lnet_udsp_change(struct lnet_mgmt_op *op, struct lnet_udsp_call *a, bool del)
{
	struct lnet_udsp_set *s = &lnet_node(a->ln)->udsp->set;
	struct lnet_udsp_rule *r;
	int rc;

	if (del && a->idx < 0) {
		lnet_udsp_set_del(s, -1);
		return lnet_udsp_apply(a->ln, true, op, NULL, false, LNET_UDSP_ALL);
	}
	if (del) {
		r = lnet_udsp_set_take(s, a->idx);
		return r == NULL ?
			       -ENOENT :
			       lnet_udsp_apply(a->ln, true, op, r, true, lnet_udsp_rule_aspects(r));
	}
	rc = lnet_udsp_rule_make(a->src, a->dst, a->rte, a->priority, &r, a->err, a->errlen);
	if (rc != 0) {
		return rc;
	}
	rc = lnet_udsp_set_add(s, r, a->idx, &r);
	if (rc != 0) {
		lnet_udsp_rule_free(r);
	} else {
		rc = lnet_udsp_apply(a->ln, true, op, r, false, lnet_udsp_rule_aspects(r));
	}
	if (rc != 0) {
		snprintf(a->err, a->errlen, "cannot add udsp: %s", strerror(-rc));
	}
	return rc;
}

static void
lnet_udsp_op_start(struct lnet_mgmt_op *op)
{
	struct lnet_udsp_op *o = (struct lnet_udsp_op *)op;
	int rc = lnet_udsp_change(op, o->a, o->del);

	if (rc != 0) {
		lnet_mgmt_op_done(op, rc); /* else done when the refresh ends */
	}
}

static int
lnet_udsp_op_run(struct lnet_udsp_call *a, bool del)
{
	struct lnet_udsp_op o = { .a = a, .del = del };

	a->ln = lnet_instance();
	if (a->ln == NULL || lnet_node(a->ln)->udsp == NULL) {
		return -ENETDOWN;
	}
	o.op.start = lnet_udsp_op_start;
	return lnet_mgmt_op_run(a->ln, &o.op);
}

int
lnet_ctl_udsp_add(const char *src, const char *dst, const char *rte, long priority, int idx,
		  char *err, size_t errlen)
{
	struct lnet_udsp_call a = { .src = src,
				    .dst = dst,
				    .rte = rte,
				    .priority = priority,
				    .idx = idx,
				    .err = err,
				    .errlen = errlen };
	char none[1];

	if (err == NULL || errlen == 0) {
		a.err = none;
		a.errlen = sizeof(none);
	}
	a.err[0] = '\0';
	return lnet_udsp_op_run(&a, false);
}

int
lnet_ctl_udsp_del(int idx)
{
	char none[1];
	struct lnet_udsp_call a = { .idx = idx, .err = none, .errlen = sizeof(none) };

	return lnet_udsp_op_run(&a, true);
}

static void
lnet_udsp_export(const struct lnet_udsp_rule *r, unsigned int idx, struct lnet_ctl_udsp *o)
{
	memset(o, 0, sizeof(*o));
	o->idx = idx;
	cfs_nid_parts_print(&r->src, o->src, sizeof(o->src));
	cfs_nid_parts_print(&r->dst, o->dst, sizeof(o->dst));
	cfs_nid_parts_print(&r->rte, o->rte, sizeof(o->rte));
	o->has_priority = r->action == LNET_UDSP_ACTION_PRIORITY;
	o->priority = r->priority;
}

static int
lnet_udsp_list_on_mgmt(void *arg)
{
	struct lnet_udsp_call *a = arg;
	const struct lnet_udsp_set *s = &lnet_node(a->ln)->udsp->set;
	unsigned int i;
	unsigned int n = 0;

	a->total = s->n;
	for (i = a->start; i < s->n && n < a->max; i++) {
		lnet_udsp_export(s->rules[i], i, &a->out[n++]);
	}
	return (int)n;
}

int
lnet_ctl_udsp_list(unsigned int start, struct lnet_ctl_udsp *out, unsigned int max,
		   unsigned int *total)
{
	struct lnet_udsp_call a = { .start = start, .out = out, .max = max };
	int rc = lnet_udsp_call(&a, lnet_udsp_list_on_mgmt);

	if (total != NULL) {
		*total = a.total;
	}
	return rc;
}

static int32_t
lnet_udsp_shown(uint32_t prio)
{
	return prio == LNET_UDSP_PRIO_NONE ? -1 : (int32_t)prio;
}

static unsigned int
lnet_udsp_copy_nids(struct lnet_nid *to, const struct lnet_udsp_nids *l)
{
	unsigned int n = l == NULL                      ? 0 :
			 l->n < LNET_CTL_UDSP_SHOW_NIDS ? l->n :
							  LNET_CTL_UDSP_SHOW_NIDS;

	if (n != 0) {
		memcpy(to, l->nids, n * sizeof(l->nids[0]));
	}
	return n;
}

/* The peer NI's values as its peer's published composition holds them. */
static int
lnet_udsp_peer_info_on_mgmt(void *arg)
{
	struct lnet_udsp_call *a = arg;
	struct lnet_peer_dir *d = lnet_node(a->ln)->peer_dir;
	struct lnet_peer *p = d != NULL ? lnet_peer_find(d, a->nid) : NULL;
	const struct lnet_peer_comp *c = p != NULL ? p->comp : NULL;
	unsigned int i;
	unsigned int j;

	memset(a->info, 0, sizeof(*a->info));
	a->info->net_priority = -1;
	a->info->nid_priority = -1;
	if (p == NULL) {
		return -ENOENT;
	}
	for (i = 0; c != NULL && i < c->nnets; i++) {
		for (j = c->nets[i].first_ni;
		     j < (unsigned int)c->nets[i].first_ni + c->nets[i].nr_nis; j++) {
			const struct lnet_peer_comp_ni *ni = &c->nis[j];

			if (!lnet_nid_same(&ni->nid, a->nid)) {
				continue;
			}
			a->info->net_priority = lnet_udsp_shown(c->nets[i].sel_prio);
			a->info->nid_priority = lnet_udsp_shown(ni->sel_prio);
			a->info->npref_src = lnet_udsp_copy_nids(a->info->pref_src, ni->pref);
			a->info->npref_gw = lnet_udsp_copy_nids(a->info->pref_gw, ni->rtr);
		}
	}
	return 0;
}

int
lnet_ctl_peer_ni_udsp(const struct lnet_nid *nid, struct lnet_ctl_udsp_info *out)
{
	struct lnet_udsp_call a = { .nid = nid, .info = out };

	return lnet_udsp_call(&a, lnet_udsp_peer_info_on_mgmt);
}

static int
lnet_udsp_stats_on_mgmt(void *arg)
{
	struct lnet_udsp_call *a = arg;

	*a->stats = lnet_node(a->ln)->udsp->stats;
	a->stats->rules = lnet_node(a->ln)->udsp->set.n;
	return 0;
}

int
lnet_ctl_udsp_stats(struct lnet_ctl_udsp_stats *out)
{
	struct lnet_udsp_call a = { .stats = out };

	return lnet_udsp_call(&a, lnet_udsp_stats_on_mgmt);
}
