/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-Rail path selection (lnet_select.h): the send cases of lnet-facts
 * §7.1 and the comparisons of §7.2-7.4 in the kernel's order. Each
 * comparison returns <0 (candidate loses), >0 (candidate wins) or 0 (look
 * at the next rule), so the order of the rules reads top to bottom.
 */
#include <errno.h>
#include <stdio.h>

#include "lnet_select.h"
#include "lnet_select_pick.h"

#define NONE (-1)

/* The state of the moment as the views hold it (lnet_select_pick.h's readers). */
static inline struct lnet_sel_live
ni_live(const struct lnet_sel_ni *ni)
{
	return (struct lnet_sel_live){ ni->health, ni->tx_credits, ni->seq, ni->avoid };
}

static inline struct lnet_sel_live
peer_ni_live(const struct lnet_sel_peer_ni *pni)
{
	return (struct lnet_sel_live){ pni->health, pni->tx_credits, pni->seq, pni->avoid };
}

static void
view_ni_live(const void *ctx, unsigned int i, struct lnet_sel_live *out)
{
	*out = ni_live(&((const struct lnet_sel_local *)ctx)->nis[i]);
}

static void
view_peer_ni_live(const void *ctx, unsigned int i, struct lnet_sel_live *out)
{
	*out = peer_ni_live(&((const struct lnet_sel_peer *)ctx)->nis[i]);
}

/* ---- lookups over the small views ---- */

static int
local_net_find(const struct lnet_sel_local *l, uint32_t net_id)
{
	for (int i = 0; i < l->nr_nets; i++) {
		if (l->nets[i].net_id == net_id)
			return i;
	}
	return NONE;
}

static int
local_ni_find(const struct lnet_sel_local *l, const struct lnet_nid *nid)
{
	for (int i = 0; i < l->nr_nis; i++) {
		if (lnet_nid_same(&l->nis[i].nid, nid))
			return i;
	}
	return NONE;
}

/* Local net index of local NI @ni (NIs are grouped by net). */
static int
local_net_of_ni(const struct lnet_sel_local *l, int ni)
{
	for (int i = 0; i < l->nr_nets; i++) {
		if (ni >= l->nets[i].first_ni && ni < l->nets[i].first_ni + l->nets[i].nr_nis)
			return i;
	}
	return NONE;
}

static int
peer_ni_find(const struct lnet_sel_peer *p, const struct lnet_nid *nid)
{
	for (int i = 0; i < p->nr_nis; i++) {
		if (lnet_nid_same(&p->nis[i].nid, nid))
			return i;
	}
	return NONE;
}

static int
peer_net_of_ni(const struct lnet_sel_peer *p, int pni)
{
	for (int i = 0; i < p->nr_nets; i++) {
		if (pni >= p->nets[i].first_ni && pni < p->nets[i].first_ni + p->nets[i].nr_nis)
			return i;
	}
	return NONE;
}

static bool
peer_ni_prefers(const struct lnet_sel_peer_ni *pni, const struct lnet_nid *nid)
{
	for (int i = 0; i < pni->nr_pref_nids; i++) {
		if (lnet_nid_same(&pni->pref_nids[i], nid))
			return true;
	}
	return false;
}

/* ---- §7.3: the best local NI of one net ---- */

/*
 * Best NI of local net @net for peer net @pnet (NONE if it has no peer NI).
 * Out of line: a plan's send runs it only for a reserved or a first
 * message, and inlined into the data path's send step it cost that step
 * registers.
 */
static __attribute__((noinline)) int
best_ni_on_net(const struct lnet_sel_local *l, int net, const struct lnet_sel_peer *p, int pnet,
	       int md_cpt)
{
	if (p->nets[pnet].nr_nis == 0)
		return NONE;
	return lnet_sel_best_ni(l, net, md_cpt, view_ni_live, l);
}

void
lnet_sel_nets_mark_same_dist(struct lnet_sel_net *nets, unsigned int nr_nets,
			     const struct lnet_sel_ni *nis)
{
	for (unsigned int j = 0; j < nr_nets; j++) {
		struct lnet_sel_net *n = &nets[j];
		bool same = true;

		for (int i = n->first_ni + 1; i < n->first_ni + n->nr_nis; i++)
			same = same && nis[i].dev_cpt == nis[n->first_ni].dev_cpt;
		n->same_dist = same;
	}
}

/* ---- §7.4: the best peer NI of one peer net ---- */

static int
peer_ni_compare(const struct lnet_sel_peer_ni *c, bool c_pref, const struct lnet_sel_peer_ni *b,
		bool b_pref, int local)
{
	struct lnet_sel_live cl = peer_ni_live(c);
	struct lnet_sel_live bl = peer_ni_live(b);

	return lnet_sel_peer_ni_cmp(c, &cl, c_pref, b, &bl, b_pref, local);
}

/* @p local: the local NI (index) it will be sent from, NONE when not one of ours yet. */
static inline __attribute__((always_inline)) int
best_peer_ni_on_net(const struct lnet_sel_peer *p, int pnet, const struct lnet_nid *local_nid,
		    int local)
{
	const struct lnet_sel_net *pn = &p->nets[pnet];
	bool best_pref = false;
	int best = NONE;

	for (int i = pn->first_ni; i < pn->first_ni + pn->nr_nis; i++) {
		bool pref = peer_ni_prefers(&p->nis[i], local_nid);

		if (best == NONE ||
		    peer_ni_compare(&p->nis[i], pref, &p->nis[best], best_pref, local) > 0) {
			best = i;
			best_pref = pref;
		}
	}
	return best;
}

/* ---- §7.2: the best local net among the peer's nets ---- */

static int
net_compare(const struct lnet_sel_net *cp, const struct lnet_sel_net *cn,
	    const struct lnet_sel_net *bp, const struct lnet_sel_net *bn)
{
	int r;

	if ((r = lnet_sel_prefer_higher(cp->health, bp->health)) != 0)
		return r;
	if ((r = lnet_sel_prefer_lower(cp->sel_prio, bp->sel_prio)) != 0)
		return r;
	if ((r = lnet_sel_prefer_higher(cn->health, bn->health)) != 0)
		return r;
	if ((r = lnet_sel_prefer_lower(cn->sel_prio, bn->sel_prio)) != 0)
		return r;
	if ((r = lnet_sel_prefer_lower(cp->seq, bp->seq)) != 0)
		return r;
	return cn->seq < bn->seq ? 1 : -1;
}

/* Best peer net that is one of our nets; its local net in *net. */
static int
best_peer_net(const struct lnet_sel_local *l, const struct lnet_sel_peer *p, int *net)
{
	int best = NONE;

	*net = NONE;
	for (int i = 0; i < p->nr_nets; i++) {
		int n = local_net_find(l, p->nets[i].net_id);

		if (n == NONE)
			continue;
		if (best == NONE ||
		    net_compare(&p->nets[i], &l->nets[n], &p->nets[best], &l->nets[*net]) > 0) {
			best = i;
			*net = n;
		}
	}
	return best;
}

/* ---- the send cases (§7.1) ---- */

/* The path, with the nets of its NIs (looked up when the caller has none). */
static void
result_set(struct lnet_sel_result *res, const struct lnet_sel_local *l, int net, int ni,
	   const struct lnet_sel_peer *p, int pnet, int pni)
{
	res->ni = ni;
	res->net = net != NONE ? net : local_net_of_ni(l, ni);
	res->peer_ni = pni;
	res->peer_net = pnet != NONE ? pnet : peer_net_of_ni(p, pni);
	res->stamp_seq = true;
}

/* The kernel's lnet_set_non_mr_pref_nid: the first local NI a non-MR peer
 * NI hears from (other than by a response) stays its source. */
static bool
should_record_pref(const struct lnet_sel_peer *p, int pni, const struct lnet_sel_msg *m)
{
	return !p->multi_rail && !m->response && p->nis[pni].nr_pref_nids == 0;
}

/*
 * A1C: source given, destination on its net, Multi-Rail peer: that NI to
 * that exact NID; a resend whose NID failed goes to the best other peer NI
 * on the source NI's net instead.
 */
static int
sel_a1c(const struct lnet_sel_local *l, const struct lnet_sel_peer *p, const struct lnet_sel_msg *m,
	int src, int dst, struct lnet_sel_result *res)
{
	if (m->resend && p->nis[dst].avoid) {
		int pnet = peer_net_of_ni(p, dst);
		int pni = pnet == NONE ? NONE : best_peer_ni_on_net(p, pnet, &l->nis[src].nid, src);

		dst = pni != NONE ? pni : dst;
	}
	result_set(res, l, NONE, src, p, NONE, dst);
	return 0;
}

/*
 * A1D: source given, non-Multi-Rail peer: that NI to that NID, the only
 * path there is, so a resend fails.
 */
static int
sel_a1d(const struct lnet_sel_local *l, const struct lnet_sel_peer *p, const struct lnet_sel_msg *m,
	int src, int dst, struct lnet_sel_result *res)
{
	if (m->resend)
		return -EHOSTUNREACH;
	result_set(res, l, NONE, src, p, NONE, dst);
	res->record_pref = should_record_pref(p, dst, m);
	return 0;
}

/* Source given, destination on its net (A1C, A1D); a source NI that is down fails. */
static int
send_spec_local(const struct lnet_sel_local *l, const struct lnet_sel_peer *p,
		const struct lnet_sel_msg *m, int src, struct lnet_sel_result *res)
{
	int dst = peer_ni_find(p, &m->dst);

	if (dst == NONE)
		return -EFAULT;
	if (l->nis[src].fatal)
		return -ENETDOWN;
	if (res->send_case & LNET_SEL_NMR_DST)
		return sel_a1d(l, p, m, src, dst, res);
	return sel_a1c(l, p, m, src, dst, res);
}

/* A non-MR peer NI keeps the local NI it was first sent from, unless the
 * message is LNet's own (reserved portal) or the NI is gone. */
static int
sticky_ni(const struct lnet_sel_local *l, const struct lnet_sel_peer *p, int pnet)
{
	const struct lnet_sel_net *pn = &p->nets[pnet];

	for (int i = pn->first_ni; i < pn->first_ni + pn->nr_nis; i++) {
		if (p->nis[i].nr_pref_nids != 0)
			return local_ni_find(l, &p->nis[i].pref_nids[0]);
	}
	return NONE;
}

/*
 * B1D: no source, local destination, non-MR peer: the exact NID from its
 * sticky local NI (chosen and recorded the first time), or the healthiest
 * other one when that NI failed the message. A resend to an unhealthy peer
 * NI fails: there is no other NID to try.
 */
static int
sel_b1d(const struct lnet_sel_local *l, const struct lnet_sel_peer *p, const struct lnet_sel_msg *m,
	struct lnet_sel_result *res)
{
	int dst = peer_ni_find(p, &m->dst);
	int pnet, net = NONE, ni = NONE;

	if (dst == NONE)
		return -EFAULT;
	if (m->resend && p->nis[dst].health < LNET_SEL_MAX_HEALTH)
		return -EHOSTUNREACH;
	pnet = peer_net_of_ni(p, dst);
	if (pnet == NONE)
		return -EFAULT;
	if (!m->reserved)
		ni = sticky_ni(l, p, pnet);
	if (ni != NONE && l->nis[ni].avoid)
		ni = NONE;
	if (ni == NONE) {
		net = local_net_find(l, p->nets[pnet].net_id);
		if (net != NONE)
			ni = best_ni_on_net(l, net, p, pnet, m->md_cpt);
	}
	if (ni == NONE)
		return -EHOSTUNREACH;
	result_set(res, l, net, ni, p, pnet, dst);
	res->record_pref = should_record_pref(p, dst, m);
	return 0;
}

static int sel_routed(const struct lnet_sel_local *l, const struct lnet_sel_peer *p,
		      const struct lnet_sel_routes *r, const struct lnet_sel_msg *m, int src,
		      struct lnet_sel_result *res);

/* No source, MR peer, response: the exact NID from the best NI of its net. */
static int
send_any_mr_resp(const struct lnet_sel_local *l, const struct lnet_sel_peer *p,
		 const struct lnet_sel_msg *m, struct lnet_sel_result *res)
{
	int dst = peer_ni_find(p, &m->dst);
	int pnet, net, ni;

	if (dst == NONE)
		return -EFAULT;
	pnet = peer_net_of_ni(p, dst);
	if (pnet == NONE)
		return -EFAULT;
	net = local_net_find(l, p->nets[pnet].net_id);
	ni = net == NONE ? NONE : best_ni_on_net(l, net, p, pnet, m->md_cpt);
	if (ni == NONE)
		return -EHOSTUNREACH;
	result_set(res, l, net, ni, p, pnet, dst);
	return 0;
}

/*
 * B1C: no source, MR peer: best local net, its best NI (health first, not
 * the one a resend failed on), then the best peer NI there (likewise). A
 * peer reachable on a local net is sent to directly even when the NID
 * given is on a remote net.
 */
static int
sel_b1c(const struct lnet_sel_local *l, const struct lnet_sel_peer *p,
	const struct lnet_sel_routes *r, const struct lnet_sel_msg *m, struct lnet_sel_result *res)
{
	int net, pnet, ni, pni;

	if (res->send_case & LNET_SEL_RESP) {
		if (res->send_case & LNET_SEL_REMOTE_DST)
			return -EHOSTUNREACH;
		return send_any_mr_resp(l, p, m, res);
	}
	pnet = best_peer_net(l, p, &net);
	if (pnet == NONE && (res->send_case & LNET_SEL_REMOTE_DST))
		return sel_routed(l, p, r, m, NONE, res); /* B2C: none of its nets is ours */
	if (pnet == NONE)
		return -EHOSTUNREACH;
	ni = best_ni_on_net(l, net, p, pnet, m->md_cpt);
	if (ni == NONE)
		return -EHOSTUNREACH;
	pni = best_peer_ni_on_net(p, pnet, &l->nis[ni].nid, ni);
	if (pni == NONE)
		return -EHOSTUNREACH;
	res->send_case &= ~(unsigned int)LNET_SEL_REMOTE_DST;
	res->send_case |= LNET_SEL_LOCAL_DST;
	result_set(res, l, net, ni, p, pnet, pni);
	return 0;
}

/* ---- §7.5: routes to a remote net ---- */

static bool
peer_ni_prefers_rtr(const struct lnet_sel_peer_ni *pni, const struct lnet_nid *gw)
{
	for (int i = 0; pni != NULL && i < pni->nr_pref_rtrs; i++) {
		if (lnet_nid_same(&pni->pref_rtrs[i], gw))
			return true;
	}
	return false;
}

/* The kernel's lnet_compare_routes: UDSP preference, priority, hops. */
static int
route_compare(const struct lnet_sel_route *c, bool c_pref, const struct lnet_sel_route *b,
	      bool b_pref)
{
	uint32_t c_hops = c->hops == LNET_SEL_UNDEFINED_HOPS ? 1 : c->hops;
	uint32_t b_hops = b->hops == LNET_SEL_UNDEFINED_HOPS ? 1 : b->hops;
	int r;

	if ((r = lnet_sel_prefer_higher(c_pref, b_pref)) != 0)
		return r;
	if ((r = lnet_sel_prefer_lower(c->priority, b->priority)) != 0)
		return r;
	return lnet_sel_prefer_lower(c_hops, b_hops);
}

/* The kernel's lnet_compare_gw_lpnis: health, fewer bytes queued, more credits. */
static int
gw_ni_compare(const struct lnet_sel_peer_ni *c, const struct lnet_sel_peer_ni *b)
{
	int r;

	if ((r = lnet_sel_prefer_lower(c->avoid, b->avoid)) != 0)
		return r;
	if ((r = lnet_sel_prefer_higher(c->health, b->health)) != 0)
		return r;
	if ((r = lnet_sel_prefer_lower(c->txqnob, b->txqnob)) != 0)
		return r;
	return lnet_sel_prefer_higher(c->tx_credits, b->tx_credits);
}

/* The gateway's best peer NI on local net @net_id, or on any local net (LNET_NET_ANY). */
static int
gw_best_ni(const struct lnet_sel_local *l, const struct lnet_sel_peer *gw, uint32_t net_id,
	   int min_health)
{
	static const struct lnet_nid any = LNET_ANY_NID;
	int best = NONE;

	for (int i = 0; i < gw->nr_nets; i++) {
		int cand;

		if (net_id != LNET_NET_ANY ? gw->nets[i].net_id != net_id :
					     local_net_find(l, gw->nets[i].net_id) == NONE)
			continue;
		cand = best_peer_ni_on_net(gw, i, &any, NONE);
		if (cand == NONE || gw->nis[cand].health < min_health)
			continue; /* the best is below the router sensitivity: so are the others */
		if (best == NONE ||
		    peer_ni_compare(&gw->nis[cand], false, &gw->nis[best], false, NONE) > 0)
			best = cand;
	}
	return best;
}

/*
 * The kernel's lnet_find_route_locked: the best alive route to @net whose
 * gateway has a peer NI on @src_net (LNET_NET_ANY: on a local net); the
 * gateway's peer NI in *gw_ni. Equal routes take turns (lower seq first).
 */
static int
best_route(const struct lnet_sel_local *l, const struct lnet_sel_routes *r, uint32_t net,
	   uint32_t src_net, const struct lnet_sel_peer_ni *dst, int *gw_ni)
{
	bool best_pref = false;
	int best = NONE;

	*gw_ni = NONE;
	for (int i = 0; i < r->nr_routes; i++) {
		const struct lnet_sel_route *rt = &r->routes[i];
		bool pref;
		int c = 1;
		int g;

		if (rt->net != net || !rt->alive || rt->gw == NULL)
			continue;
		pref = peer_ni_prefers_rtr(dst, &rt->gw_primary);
		if (best != NONE && (c = route_compare(rt, pref, &r->routes[best], best_pref)) < 0)
			continue;
		g = gw_best_ni(l, rt->gw, src_net, r->min_health);
		if (g == NONE)
			continue;
		if (c == 0) {
			c = gw_ni_compare(&rt->gw->nis[g], &r->routes[best].gw->nis[*gw_ni]);
			if (c < 0 || (c == 0 && rt->seq > r->routes[best].seq))
				continue;
		}
		best = i;
		best_pref = pref;
		*gw_ni = g;
	}
	return best;
}

static bool
routes_reach(const struct lnet_sel_routes *r, uint32_t net)
{
	for (int i = 0; i < r->nr_routes; i++) {
		if (r->routes[i].net == net)
			return true;
	}
	return false;
}

/*
 * The destination's peer NI a routed message goes to when the caller did
 * not fix it: the kernel's walk of the peer's remote nets that have
 * routes, by health, UDSP priority and round robin, then the best peer NI
 * of that net.
 */
static int
routed_dst_ni(const struct lnet_sel_peer *p, const struct lnet_sel_routes *r)
{
	static const struct lnet_nid any = LNET_ANY_NID;
	int best = NONE;
	int r2;

	for (int i = 0; i < p->nr_nets; i++) {
		const struct lnet_sel_net *c = &p->nets[i];
		const struct lnet_sel_net *b = best == NONE ? NULL : &p->nets[best];

		if (!routes_reach(r, c->net_id))
			continue;
		if (b != NULL &&
		    ((r2 = lnet_sel_prefer_higher(c->health, b->health)) < 0 ||
		     (r2 == 0 && ((r2 = lnet_sel_prefer_lower(c->sel_prio, b->sel_prio)) < 0 ||
				  (r2 == 0 && c->seq >= b->seq)))))
			continue;
		best = i;
	}
	return best == NONE ? NONE : best_peer_ni_on_net(p, best, &any, NONE);
}

/*
 * A2C, A2D, B2C, B2D and forwarding to a remote net: the final
 * destination's peer NI (the NID given when the source is, when the peer
 * is not Multi-Rail and has a sticky NI, or when forwarding), the route
 * and its gateway's peer NI, then the local NI on that peer NI's net
 * unless the source fixed it.
 */
static int
sel_routed(const struct lnet_sel_local *l, const struct lnet_sel_peer *p,
	   const struct lnet_sel_routes *r, const struct lnet_sel_msg *m, int src,
	   struct lnet_sel_result *res)
{
	uint32_t src_net = LNET_NET_ANY;
	const struct lnet_sel_peer *gw;
	int dst = NONE;
	int route, gwni, gnet, net;

	if (r == NULL || m->response)
		return -EHOSTUNREACH; /* a response goes back by the gateway it came from */
	if (src == NONE && (res->send_case & LNET_SEL_NMR_DST) && !m->reserved) {
		dst = peer_ni_find(p, &m->dst);
		if (dst != NONE) {
			src = sticky_ni(l, p, peer_net_of_ni(p, dst));
			src = src != NONE && l->nis[src].avoid ? NONE : src;
		}
	}
	if (src != NONE && l->nis[src].fatal)
		return -ENETDOWN;
	if (src != NONE || m->routing || (res->send_case & LNET_SEL_NMR_DST))
		dst = peer_ni_find(p, &m->dst);
	else
		dst = routed_dst_ni(p, r);
	if (dst == NONE)
		return src != NONE || m->routing ? -EFAULT : -EHOSTUNREACH;
	if (src != NONE)
		src_net = lnet_nid_net(&l->nis[src].nid);
	route = best_route(l, r, lnet_nid_net(&p->nis[dst].nid), src_net, &p->nis[dst], &gwni);
	if (route == NONE)
		return -EHOSTUNREACH;
	gw = r->routes[route].gw;
	gnet = peer_net_of_ni(gw, gwni);
	net = local_net_find(l, gw->nets[gnet].net_id);
	if (src == NONE && net != NONE)
		src = best_ni_on_net(l, net, gw, gnet, m->md_cpt);
	if (src == NONE)
		return -EHOSTUNREACH;
	res->send_case |= LNET_SEL_ROUTED;
	result_set(res, l, NONE, src, p, NONE, dst);
	res->route = route;
	res->gw_ni = gwni;
	res->record_pref = should_record_pref(p, dst, m);
	return 0;
}

static unsigned int
classify(const struct lnet_sel_local *l, const struct lnet_sel_peer *p,
	 const struct lnet_sel_msg *m)
{
	uint32_t dst_net = lnet_nid_net(&m->dst);
	unsigned int c;

	if (lnet_nid_is_any(&m->src)) {
		c = LNET_SEL_SRC_ANY;
		c |= local_net_find(l, dst_net) != NONE ? LNET_SEL_LOCAL_DST : LNET_SEL_REMOTE_DST;
	} else {
		c = LNET_SEL_SRC_SPEC;
		c |= lnet_nid_net(&m->src) == dst_net ? LNET_SEL_LOCAL_DST : LNET_SEL_REMOTE_DST;
	}
	c |= !p->multi_rail || m->recovery ? LNET_SEL_NMR_DST : LNET_SEL_MR_DST;
	if (m->response)
		c |= LNET_SEL_RESP;
	return c;
}

int
lnet_select_routed(const struct lnet_sel_local *l, const struct lnet_sel_peer *p,
		   const struct lnet_sel_routes *r, const struct lnet_sel_msg *m,
		   struct lnet_sel_result *res)
{
	*res = (struct lnet_sel_result){ .net = NONE,
					 .ni = NONE,
					 .peer_net = NONE,
					 .peer_ni = NONE,
					 .route = NONE,
					 .gw_ni = NONE };
	if (lnet_nid_is_lo0(&m->dst)) {
		res->send_case = LNET_SEL_LOOPBACK;
		return 0;
	}
	res->send_case = classify(l, p, m);
	if (res->send_case & LNET_SEL_SRC_SPEC) {
		int src = local_ni_find(l, &m->src);

		if (src == NONE)
			return -EINVAL;
		if (res->send_case & LNET_SEL_REMOTE_DST)
			return sel_routed(l, p, r, m, src, res);
		return send_spec_local(l, p, m, src, res);
	}
	if (res->send_case & LNET_SEL_MR_DST)
		return sel_b1c(l, p, r, m, res);
	if (res->send_case & LNET_SEL_REMOTE_DST)
		return sel_routed(l, p, r, m, NONE, res);
	return sel_b1d(l, p, m, res);
}

int
lnet_select(const struct lnet_sel_local *l, const struct lnet_sel_peer *p,
	    const struct lnet_sel_msg *m, struct lnet_sel_result *res)
{
	return lnet_select_routed(l, p, NULL, m, res);
}

/* Which of net's NIs each of pnet's NIs prefers, as bits. */
static void
plan_prefs(const struct lnet_sel_local *l, int net, const struct lnet_sel_peer *p, int pnet,
	   uint64_t *pref)
{
	const struct lnet_sel_net *n = &l->nets[net];
	const struct lnet_sel_net *pn = &p->nets[pnet];

	for (int i = 0; i < pn->nr_nis; i++) {
		pref[i] = 0;
		for (int j = 0; j < n->nr_nis; j++) {
			if (peer_ni_prefers(&p->nis[pn->first_ni + i],
					    &l->nis[n->first_ni + j].nid))
				pref[i] |= 1ULL << j;
		}
	}
}

void
lnet_sel_plan_make(const struct lnet_sel_local *l, const struct lnet_sel_peer *p,
		   const struct lnet_nid *dst, struct lnet_sel_plan *plan)
{
	int pnet = NONE, net = NONE;

	*plan = (struct lnet_sel_plan){ .kind = LNET_SEL_PLAN_NONE,
					.net = NONE,
					.pnet = NONE,
					.dst = NONE,
					.sticky = NONE,
					.sticky_net = NONE };
	if (lnet_nid_is_lo0(dst))
		return;
	if (p->multi_rail) {
		/* sel_b1c's best_peer_net with a single candidate: no comparison */
		for (int i = 0; i < p->nr_nets; i++) {
			int n = local_net_find(l, p->nets[i].net_id);

			if (n == NONE)
				continue;
			if (pnet != NONE)
				return; /* two local nets: compared message by message */
			pnet = i;
			net = n;
		}
		if (pnet == NONE || p->nets[pnet].nr_nis == 0 ||
		    p->nets[pnet].nr_nis > LNET_SEL_PLAN_MAX_PNIS || l->nets[net].nr_nis > 64)
			return;
		plan_prefs(l, net, p, pnet, plan->pref);
		plan->kind = LNET_SEL_PLAN_MR;
		plan->net = (int16_t)net;
		plan->pnet = (int16_t)pnet;
		return;
	}
	/* sel_b1d: classify() says LOCAL when the destination's net is one of ours */
	if (local_net_find(l, lnet_nid_net(dst)) == NONE)
		return;
	plan->dst = (int16_t)peer_ni_find(p, dst);
	if (plan->dst == NONE || (pnet = peer_net_of_ni(p, plan->dst)) == NONE)
		return;
	plan->kind = LNET_SEL_PLAN_NMR;
	plan->pnet = (int16_t)pnet;
	plan->net = (int16_t)local_net_find(l, p->nets[pnet].net_id);
	plan->sticky = (int16_t)sticky_ni(l, p, pnet);
	plan->sticky_net =
		(int16_t)(plan->sticky != NONE ? local_net_of_ni(l, plan->sticky) : NONE);
	plan->record_pref = p->nis[plan->dst].nr_pref_nids == 0;
}

int
lnet_select_planned(const struct lnet_sel_local *l, const struct lnet_sel_peer *p,
		    const struct lnet_sel_plan *plan, int md_cpt, bool reserved,
		    struct lnet_sel_result *res)
{
	int ni;

	*res = (struct lnet_sel_result){ .net = NONE,
					 .ni = NONE,
					 .peer_net = NONE,
					 .peer_ni = NONE,
					 .route = NONE,
					 .gw_ni = NONE };
	if (plan->kind == LNET_SEL_PLAN_MR)
		return lnet_sel_plan_mr_pick(l, p, plan, md_cpt, view_ni_live, l, view_peer_ni_live,
					     p, res);
	if (plan->kind != LNET_SEL_PLAN_NMR)
		return -EINVAL;
	res->send_case = LNET_SEL_SRC_ANY | LNET_SEL_LOCAL_DST | LNET_SEL_NMR_DST;
	if (!reserved && plan->sticky != NONE) {
		ni = plan->sticky;
		res->net = plan->sticky_net;
	} else {
		ni = plan->net == NONE ? NONE : best_ni_on_net(l, plan->net, p, plan->pnet, md_cpt);
		res->net = plan->net;
	}
	if (ni == NONE)
		return -EHOSTUNREACH;
	res->ni = ni;
	res->peer_ni = plan->dst;
	res->peer_net = plan->pnet;
	res->stamp_seq = true;
	res->record_pref = plan->record_pref;
	return 0;
}

const char *
lnet_sel_case_str(unsigned int c, char *buf, unsigned int len)
{
	if (c & LNET_SEL_LOOPBACK) {
		snprintf(buf, len, "LOOPBACK");
		return buf;
	}
	snprintf(buf, len, "%s %s %s%s%s", c & LNET_SEL_SRC_SPEC ? "SRC_SPEC" : "SRC_ANY",
		 c & LNET_SEL_LOCAL_DST ? "LOCAL" : "REMOTE", c & LNET_SEL_MR_DST ? "MR" : "NMR",
		 c & LNET_SEL_RESP ? " RESP" : "", c & LNET_SEL_ROUTED ? " ROUTED" : "");
	return buf;
}
