/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes to remote nets (lnet_route.h): route add/del/show on the
 * management lcore, gateways as peers of the peer directory (so discovery,
 * health and UDSP apply to them as to any peer), each route's state from
 * its gateway's ping data as the kernel's router checker reads it, and the
 * snapshot the data lcores choose routes from.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_peer_dir.h"
#include "lnet_route.h"

/* The kernel's remote net hash (LNET_REMOTE_NETS_HASH_DEFAULT): route show lists by bucket. */
#define LNET_RNET_HASH_SIZE 128U

struct lnet_route {
	TAILQ_ENTRY(lnet_route) link;
	uint32_t net;
	uint32_t lnet;
	struct lnet_nid nid; /* the gateway NID as added */
	uint32_t hops;
	uint32_t priority;
	uint32_t sensitivity;
	struct lnet_peer *gw; /* NULL: found or made again by the resolve timer */
	bool have_data;       /* the gateway's ping data was seen */
	bool data_alive;      /* what that data said of this route */
	bool single_hop;      /* the gateway has an NI on the remote net */
};

TAILQ_HEAD(lnet_route_list, lnet_route);

struct lnet_route_state {
	struct lnet *ln;
	struct lnet_route_list routes; /* the kernel's listing order */
	unsigned int nroutes;
	uint64_t gen;
	struct rt_timer resolve; /* gateways to find or make again */
	struct rt_timer check;   /* the router checker: gateways pinged in turn */
};

static unsigned int
lnet_rnet_bucket(uint32_t net)
{
	return ((net & 0xffffU) + (net >> 16)) & (LNET_RNET_HASH_SIZE - 1);
}

static struct lnet_route_state *
lnet_route_state(const struct lnet *ln)
{
	return lnet_node(ln)->routes;
}

/* ---- the snapshot ---------------------------------------------------------- */

static int
lnet_route_view_cmp(const void *a, const void *b)
{
	const struct lnet_route_view *x = a;
	const struct lnet_route_view *y = b;

	return (x->net > y->net) - (x->net < y->net);
}

/*
 * The kernel's lnet_is_route_alive as far as the management lcore keeps
 * it: a known gateway that is alive (its last discovery did not fail, or
 * traffic came through it since: lp_alive) and whose ping data said it
 * routes between the route's nets (or, discovery off, traffic from that
 * net came through it since).
 */
static bool
lnet_route_alive(const struct lnet_route *r)
{
	if (r->gw == NULL || r->gw->dead || r->gw->comp == NULL) {
		return false;
	}
	return r->gw->gw_alive && r->have_data && r->data_alive;
}

static void
lnet_route_table_free(void *t)
{
	free(t);
}

/* Publish the routes as they are now; the old snapshot goes after a grace period. */
static void
lnet_route_publish(struct lnet_route_state *rs)
{
	struct lnet *ln = rs->ln;
	struct lnet_route_table *old = ln->route_table;
	struct lnet_route_table *t = NULL;
	struct lnet_route *r;
	unsigned int i = 0;

	if (rs->nroutes != 0) {
		t = calloc(1, sizeof(*t) + rs->nroutes * sizeof(t->routes[0]));
		if (t == NULL) {
			LNET_LOG(WARNING, "no memory to publish the routes; the old ones stay");
			return;
		}
		t->gen = ++rs->gen;
		TAILQ_FOREACH(r, &rs->routes, link) {
			t->routes[i++] = (struct lnet_route_view){
				.net = r->net,
				.lnet = r->lnet,
				.hops = r->hops,
				.priority = r->priority,
				.alive = lnet_route_alive(r),
				.gw_alive = r->gw != NULL && r->gw->gw_alive,
				.gw_nid = r->nid,
				.gw_primary = r->gw != NULL ? r->gw->nis[0] : r->nid,
				.gw = r->gw != NULL && !r->gw->dead ? r->gw->comp : NULL,
			};
		}
		t->nroutes = i;
		/* stable: a net's routes keep their listing order */
		qsort(t->routes, i, sizeof(t->routes[0]), lnet_route_view_cmp);
	}
	rt_rcu_publish((void **)&ln->route_table, t);
	if (old != NULL && rt_rcu_retire(ln->rt, old, lnet_route_table_free) != 0) {
		LNET_LOG(WARNING, "route table retire failed; old one kept");
	}
}

/* ---- gateways ----------------------------------------------------------------- */

static void
lnet_route_gw_ref(struct lnet_route *r, struct lnet_peer *p)
{
	r->gw = p;
	if (p != NULL) {
		p->rtr_refs++;
	}
}

static void
lnet_route_gw_unref(struct lnet_route *r)
{
	if (r->gw != NULL && r->gw->rtr_refs > 0) {
		r->gw->rtr_refs--;
	}
	r->gw = NULL;
}

static uint64_t
lnet_route_check_interval_us(const struct lnet *ln)
{
	int s = __atomic_load_n(&lnet_node(ln)->rtr_params.alive_router_check_interval,
				__ATOMIC_RELAXED);

	return s > 0 ? (uint64_t)s * LNP_US_PER_S : 0;
}

/* The kernel pings a new gateway at once (lpn_next_ping = now). */
static void
lnet_route_gw_discover(struct lnet_peer_dir *d, struct lnet_peer *p)
{
	p->rtr_next_check_us = rt_now_us(d->ln->rt) + lnet_route_check_interval_us(d->ln);
	/* Forced: a gateway discovered already is pinged again (and pushed to
	 * if it lacks our NIs), with discovery off too, as the kernel's router
	 * check; one under way (-EBUSY) serves as well. */
	(void)lnet_disc_discover(&p->disc, true, lnet_disc_now(d));
	lnet_discovery_settle(d, p);
}

/* The peer owning the route's NID now, made if none does (the kernel's lnet_nid2peerni_ex). */
static struct lnet_peer *
lnet_route_gw_resolve(struct lnet_peer_dir *d, struct lnet_route *r)
{
	struct lnet_peer *p = lnet_peer_find(d, &r->nid);
	bool made = p == NULL;

	if (p == NULL) {
		p = lnet_peer_get(d, &r->nid);
	}
	if (p != NULL) {
		lnet_route_gw_ref(r, p);
		if (made) {
			lnet_route_gw_discover(d, p);
		}
	}
	return p;
}

static void
lnet_route_resolve_all(void *arg)
{
	struct lnet_route_state *rs = arg;
	struct lnet_peer_dir *d = lnet_peer_dir_get(rs->ln);
	struct lnet_route *r;
	bool changed = false;

	if (d == NULL || d->stopping) {
		return;
	}
	TAILQ_FOREACH(r, &rs->routes, link) {
		if (r->gw == NULL) {
			changed |= lnet_route_gw_resolve(d, r) != NULL;
		}
	}
	if (changed) {
		lnet_route_publish(rs);
	}
}

/*
 * The router checker (the kernel's lnet_check_routers): every gateway is
 * pinged (discovered) each alive_router_check_interval; its answer, or its
 * silence, sets its routes' state. 0 turns the checks off, as the kernel's.
 */
static void
lnet_route_check(void *arg)
{
	struct lnet_route_state *rs = arg;
	struct lnet_peer_dir *d = lnet_node(rs->ln)->peer_dir;
	uint64_t interval = lnet_route_check_interval_us(rs->ln);
	uint64_t now = rt_now_us(rs->ln->rt);
	struct lnet_route *r;

	if (d == NULL || d->stopping || rs->nroutes == 0) {
		return; /* the next route add starts it again */
	}
	TAILQ_FOREACH(r, &rs->routes, link) {
		if (interval != 0 && r->gw != NULL && !r->gw->dead &&
		    now >= r->gw->rtr_next_check_us) {
			lnet_route_gw_discover(d, r->gw);
		}
	}
	rt_timer_arm(&rs->check, LNP_US_PER_S);
}

void
lnet_route_gw_published(struct lnet_peer_dir *d, struct lnet_peer *p)
{
	struct lnet_route_state *rs = lnet_route_state(d->ln);

	(void)p;
	if (rs != NULL) {
		lnet_route_publish(rs); /* before the old composition is retired */
	}
}

void
lnet_route_gw_gone(struct lnet_peer_dir *d, struct lnet_peer *p)
{
	struct lnet_route_state *rs = lnet_route_state(d->ln);
	struct lnet_route *r;

	if (rs == NULL) {
		return;
	}
	TAILQ_FOREACH(r, &rs->routes, link) {
		if (r->gw == p) {
			lnet_route_gw_unref(r);
		}
	}
	lnet_route_publish(rs);
	if (!rt_timer_pending(&rs->resolve)) {
		rt_timer_arm(&rs->resolve, 0); /* after the merge or delete has settled */
	}
}

/*
 * The kernel's lnet_router_discovery_ping_reply: a gateway that does not
 * route takes its routes down; otherwise a route is up when the gateway
 * has an NI on the route's local net and, for a single-hop route with
 * avoid_asym_router_failure, an NI that is up on the remote net. A failed
 * discovery (@p prop NULL) takes them all down.
 */
void
lnet_route_gw_data(struct lnet_peer_dir *d, struct lnet_peer *p,
		   const struct lnet_merge_proposal *prop)
{
	struct lnet_route_state *rs = lnet_route_state(d->ln);
	bool avoid_asym = __atomic_load_n(&lnet_node(d->ln)->rtr_params.avoid_asym_router_failure,
					  __ATOMIC_RELAXED) != 0;
	struct lnet_route *r;
	unsigned int i;

	if (rs == NULL) {
		return;
	}
	p->gw_alive = prop != NULL; /* the kernel's lp_alive = lp_dc_error == 0 */
	TAILQ_FOREACH(r, &rs->routes, link) {
		bool lnet_up = false;
		bool net_up = false;

		if (r->gw != p) {
			continue;
		}
		r->have_data = true;
		if (prop == NULL || !prop->router) {
			r->data_alive = false;
			continue;
		}
		r->single_hop = false;
		for (i = 0; i < prop->nnids; i++) {
			uint32_t net = lnet_nid_net(&prop->nids[i].nid);
			bool up = prop->nids[i].status == LNET_NI_STATUS_UP;

			lnet_up |= net == r->lnet && up;
			r->single_hop |= net == r->net;
			net_up |= net == r->net && up;
		}
		r->data_alive =
			lnet_up && (!avoid_asym || (r->hops != 1 && !r->single_hop) || net_up);
	}
	lnet_route_publish(rs);
}

/* What a data lcore saw: traffic from net @p net came through gateway @p from. */
struct lnet_route_gw_heard {
	struct rt_hop hop;
	struct lnet *ln;
	struct lnet_nid from;
	uint32_t net;
};

/* The kernel's lnet_is_discovery_disabled: here, or on the peer (not MR, or it said so). */
static bool
lnet_route_gw_no_discovery(const struct lnet_peer_dir *d, const struct lnet_peer *p)
{
	return !d->disc.enabled || !p->mr || p->no_discovery;
}

/*
 * The kernel's lnet_parse for a message a gateway forwarded to us (its
 * source on another net than the gateway's NID) while the gateway is not
 * lp_alive: it is alive again, and when discovery is off (here or on the
 * gateway), which leaves a route's state to what was last seen, its routes
 * to the source's net are up again. With discovery on the routes wait for
 * the gateway's next ping data.
 */
static void
lnet_route_gw_heard_on_mgmt(void *arg)
{
	struct lnet_route_gw_heard *h = arg;
	struct lnet_route_state *rs = lnet_route_state(h->ln);
	struct lnet_peer_dir *d = lnet_node(h->ln)->peer_dir;
	struct lnet_peer *p = d != NULL && !d->stopping ? lnet_peer_find(d, &h->from) : NULL;
	char s[LNET_NIDSTR_SIZE];
	struct lnet_route *r;

	if (rs != NULL && p != NULL && !p->dead && p->rtr_refs > 0 && !p->gw_alive) {
		p->gw_alive = true;
		TAILQ_FOREACH(r, &rs->routes, link) {
			if (r->gw == p && r->net == h->net && lnet_route_gw_no_discovery(d, p)) {
				r->have_data = true;
				r->data_alive = true;
			}
		}
		LNET_LOG(NOTICE, "gateway %s alive again: traffic came through it",
			 libcfs_nidstr_r(&p->nis[0], s, sizeof(s)));
		lnet_route_publish(rs);
	}
	free(h);
}

int
lnet_route_gw_heard(struct lnet *ln, const struct lnet_nid *from, uint32_t net)
{
	struct lnet_route_gw_heard *h = calloc(1, sizeof(*h));

	if (h == NULL) {
		return -ENOMEM;
	}
	h->ln = ln;
	h->from = *from;
	h->net = net;
	rt_hop_send(&h->hop, rt_mgmt_lcore(ln->rt), lnet_route_gw_heard_on_mgmt, h);
	return 0;
}

struct lnet_nid *
lnet_route_gateways(struct lnet *ln, unsigned int *n)
{
	struct lnet_route_state *rs = lnet_route_state(ln);
	struct lnet_nid *gws;
	struct lnet_route *r;
	unsigned int i;

	*n = 0;
	if (rs == NULL || rs->nroutes == 0) {
		return NULL;
	}
	gws = calloc(rs->nroutes, sizeof(*gws));
	if (gws == NULL) {
		return NULL;
	}
	TAILQ_FOREACH(r, &rs->routes, link) {
		struct lnet_nid prim = r->gw != NULL ? r->gw->nis[0] : r->nid;

		for (i = 0; i < *n && !lnet_nid_same(&gws[i], &prim); i++) {
		}
		if (i == *n) {
			gws[(*n)++] = prim;
		}
	}
	return gws;
}

/* ---- route add / del / show ------------------------------------------------------ */

struct lnet_route_args {
	struct lnet *ln;
	uint32_t net;
	struct lnet_nid gw;
	bool any_gw;
	uint32_t hops;
	uint32_t priority;
	uint32_t sensitivity;
	char *err;
	size_t errlen;
	struct lnet_ctl_route *out;
	unsigned int max;
};

static bool
lnet_net_is_local(struct lnet *ln, uint32_t net)
{
	return lnet_ni_find_by_net(ln, net) != NULL;
}

/* The kernel's checks of lnet_add_route, in its order. */
static int
lnet_route_add_check(struct lnet_route_args *a)
{
	char s[LNET_NIDSTR_SIZE];
	char n[LNET_NIDSTR_SIZE];

	if (lnet_nid_is_any(&a->gw) || lnet_nid_is_lo0(&a->gw) || a->net == LNET_NET_ANY ||
	    LNET_NETTYP(a->net) == LNET_LND_LO || lnet_nid_net(&a->gw) == a->net ||
	    (a->hops != LNET_CTL_UNDEFINED_HOPS && (a->hops < 1 || a->hops > 255))) {
		snprintf(a->err, a->errlen, "invalid route: remote net, gateway or hops");
		return -EINVAL;
	}
	if (lnet_net_is_local(a->ln, a->net)) {
		snprintf(a->err, a->errlen, "%s is a local net",
			 libcfs_net2str_r(a->net, n, sizeof(n)));
		return -EEXIST;
	}
	if (!lnet_net_is_local(a->ln, lnet_nid_net(&a->gw))) {
		snprintf(a->err, a->errlen, "no local NI on the net of gateway %s",
			 libcfs_nidstr_r(&a->gw, s, sizeof(s)));
		return -EHOSTUNREACH;
	}
	return 0;
}

/*
 * Where a route to @p net goes in the listing: after its net's last
 * route, else after the last route of its hash bucket or an earlier one.
 */
static struct lnet_route *
lnet_route_insert_after(struct lnet_route_state *rs, uint32_t net)
{
	unsigned int b = lnet_rnet_bucket(net);
	struct lnet_route *same = NULL;
	struct lnet_route *before = NULL;
	struct lnet_route *r;

	TAILQ_FOREACH(r, &rs->routes, link) {
		if (r->net == net) {
			same = r;
		} else if (lnet_rnet_bucket(r->net) <= b) {
			before = r;
		}
	}
	return same != NULL ? same : before;
}

static int
lnet_route_add_on_mgmt(void *arg)
{
	struct lnet_route_args *a = arg;
	struct lnet_route_state *rs = lnet_route_state(a->ln);
	struct lnet_peer_dir *d = lnet_peer_dir_get(a->ln);
	struct lnet_route *r;
	struct lnet_route *after;
	struct lnet_peer *p;
	int rc = lnet_route_add_check(a);

	if (rc != 0) {
		return rc;
	}
	if (d == NULL || rs == NULL) {
		return -ENOMEM;
	}
	p = lnet_peer_find(d, &a->gw);
	TAILQ_FOREACH(r, &rs->routes, link) {
		if (r->net == a->net && p != NULL && r->gw == p) {
			snprintf(a->err, a->errlen,
				 "a route to that net through that gateway exists");
			return -EEXIST;
		}
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		return -ENOMEM;
	}
	*r = (struct lnet_route){ .net = a->net,
				  .lnet = lnet_nid_net(&a->gw),
				  .nid = a->gw,
				  .hops = a->hops,
				  .priority = a->priority,
				  .sensitivity = a->sensitivity };
	if (lnet_route_gw_resolve(d, r) == NULL) {
		free(r);
		return -ENOMEM;
	}
	after = lnet_route_insert_after(rs, a->net);
	if (after != NULL) {
		TAILQ_INSERT_AFTER(&rs->routes, after, r, link);
	} else {
		TAILQ_INSERT_HEAD(&rs->routes, r, link);
	}
	rs->nroutes++;
	if (p != NULL) {
		lnet_route_gw_discover(d, r->gw); /* the kernel's forced router check */
	}
	if (!rt_timer_pending(&rs->check)) {
		rt_timer_arm(&rs->check, LNP_US_PER_S);
	}
	lnet_route_publish(rs);
	lnet_udsp_gateways_changed(a->ln);
	return 0;
}

int
lnet_ctl_route_add(uint32_t net, const struct lnet_nid *gateway, uint32_t hops, uint32_t priority,
		   uint32_t health_sensitivity, char *err, size_t errlen)
{
	struct lnet_route_args a = { .ln = lnet_instance(),
				     .net = net,
				     .hops = hops,
				     .priority = priority,
				     .sensitivity = health_sensitivity,
				     .err = err,
				     .errlen = errlen };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (gateway == NULL) {
		return -EINVAL;
	}
	a.gw = *gateway;
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_route_add_on_mgmt, &a);
}

static void
lnet_route_free(struct lnet_route_state *rs, struct lnet_route *r)
{
	TAILQ_REMOVE(&rs->routes, r, link);
	rs->nroutes--;
	lnet_route_gw_unref(r);
	free(r);
}

/* The kernel's lnet_del_route: by net (or all), by the gateway's peer (or any). */
static int
lnet_route_del_on_mgmt(void *arg)
{
	struct lnet_route_args *a = arg;
	struct lnet_route_state *rs = lnet_route_state(a->ln);
	struct lnet_peer_dir *d = lnet_peer_dir_get(a->ln);
	struct lnet_peer *gw = NULL;
	struct lnet_route *r;
	struct lnet_route *next;
	bool net_known = false;
	unsigned int n = 0;

	if (rs == NULL || d == NULL) {
		return -ENOMEM;
	}
	if (!a->any_gw) {
		gw = lnet_peer_find(d, &a->gw);
	}
	for (r = TAILQ_FIRST(&rs->routes); r != NULL; r = next) {
		next = TAILQ_NEXT(r, link);
		net_known |= r->net == a->net;
		if (a->net != LNET_NET_ANY && r->net != a->net) {
			continue;
		}
		if (!a->any_gw && (gw != NULL ? r->gw != gw : !lnet_nid_same(&r->nid, &a->gw))) {
			continue;
		}
		lnet_route_free(rs, r);
		n++;
	}
	if (a->net != LNET_NET_ANY && !net_known) {
		snprintf(a->err, a->errlen, "no route to that net");
		return -ENOENT;
	}
	if (n != 0) {
		lnet_route_publish(rs);
		lnet_udsp_gateways_changed(a->ln);
	}
	return 0;
}

int
lnet_ctl_route_del(uint32_t net, const struct lnet_nid *gateway, char *err, size_t errlen)
{
	struct lnet_route_args a = { .ln = lnet_instance(),
				     .net = net,
				     .any_gw = gateway == NULL,
				     .err = err,
				     .errlen = errlen };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (gateway != NULL) {
		a.gw = *gateway;
		a.any_gw = lnet_nid_is_any(gateway);
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_route_del_on_mgmt, &a);
}

static int
lnet_route_list_on_mgmt(void *arg)
{
	struct lnet_route_args *a = arg;
	struct lnet_route_state *rs = lnet_route_state(a->ln);
	struct lnet_route *r;
	unsigned int n = 0;

	if (rs == NULL) {
		return 0;
	}
	TAILQ_FOREACH(r, &rs->routes, link) {
		if (n < a->max) {
			a->out[n] = (struct lnet_ctl_route){
				.net = r->net,
				.gateway = r->nid,
				.hops = r->hops,
				.priority = r->priority,
				.health_sensitivity = r->sensitivity,
				.alive = lnet_route_alive(r),
				.single_hop = r->single_hop,
			};
		}
		n++;
	}
	return (int)n;
}

int
lnet_ctl_route_list(struct lnet_ctl_route *out, unsigned int max)
{
	struct lnet_route_args a = { .ln = lnet_instance(),
				     .out = out,
				     .max = out != NULL ? max : 0 };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_route_list_on_mgmt, &a);
}

/* ---- the lnet module parameters -------------------------------------------------- */

struct lnet_param_def {
	const char *name;
	size_t off;
	int min;
	int max;
};

#define LNET_PARAM(field, lo, hi)                                       \
	{                                                               \
#field, offsetof(struct lnet_rtr_params, field), lo, hi \
	}

static const struct lnet_param_def lnet_param_defs[] = {
	LNET_PARAM(alive_router_check_interval, 0, 86400),
	LNET_PARAM(router_ping_timeout, 0, 86400),
	LNET_PARAM(check_routers_before_use, 0, 1),
	LNET_PARAM(avoid_asym_router_failure, 0, 1),
	LNET_PARAM(tiny_router_buffers, 0, 1 << 24),
	LNET_PARAM(small_router_buffers, 0, 1 << 24),
	LNET_PARAM(large_router_buffers, 0, 1 << 20),
};

static const struct lnet_param_def *
lnet_param_find(const char *name)
{
	unsigned int i;

	for (i = 0; name != NULL && i < sizeof(lnet_param_defs) / sizeof(lnet_param_defs[0]); i++) {
		if (strcmp(lnet_param_defs[i].name, name) == 0) {
			return &lnet_param_defs[i];
		}
	}
	return NULL;
}

int
lnet_ctl_param_set(const char *name, int value, char *err, size_t errlen)
{
	const struct lnet_param_def *def = lnet_param_find(name);
	struct lnet *ln = lnet_instance();

	if (ln == NULL) {
		return -ENETDOWN;
	}
	if (def == NULL) {
		snprintf(err, errlen, "%s: not an lnet module parameter lnetd-pmd takes",
			 name != NULL ? name : "(null)");
		return -ENOENT;
	}
	if (value < def->min || value > def->max) {
		snprintf(err, errlen, "%s: %d is outside %d..%d", name, value, def->min, def->max);
		return -EINVAL;
	}
	__atomic_store_n((int *)((char *)&lnet_node(ln)->rtr_params + def->off), value,
			 __ATOMIC_RELAXED);
	return 0;
}

int
lnet_ctl_param_get(const char *name, int *value)
{
	const struct lnet_param_def *def = lnet_param_find(name);
	struct lnet *ln = lnet_instance();

	if (ln == NULL) {
		return -ENETDOWN;
	}
	if (def == NULL || value == NULL) {
		return -ENOENT;
	}
	*value = __atomic_load_n((int *)((char *)&lnet_node(ln)->rtr_params + def->off),
				 __ATOMIC_RELAXED);
	return 0;
}

/* ---- life ------------------------------------------------------------------------- */

int
lnet_route_init(struct lnet *ln)
{
	struct lnet_route_state *rs = calloc(1, sizeof(*rs));

	if (rs == NULL) {
		return -ENOMEM;
	}
	rs->ln = ln;
	TAILQ_INIT(&rs->routes);
	rt_timer_init(&rs->resolve, lnet_route_resolve_all, rs);
	rt_timer_init(&rs->check, lnet_route_check, rs);
	lnet_node(ln)->routes = rs;
	return 0;
}

/* On the management lcore (or after the runtime stopped): routes, then the snapshot. */
void
lnet_route_fini(struct lnet *ln)
{
	struct lnet_route_state *rs = lnet_node(ln)->routes;
	struct lnet_route *r;

	if (rs == NULL) {
		return;
	}
	rt_timer_cancel(&rs->resolve);
	rt_timer_cancel(&rs->check);
	while ((r = TAILQ_FIRST(&rs->routes)) != NULL) {
		TAILQ_REMOVE(&rs->routes, r, link);
		r->gw = NULL; /* the peer directory may be gone already */
		free(r);
	}
	free(ln->route_table); /* no reader is left */
	ln->route_table = NULL;
	lnet_node(ln)->routes = NULL;
	free(rs);
}
