/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-Rail selection on the data path: the views lnet_select() reads and
 * the round-robin counters it advances. The local view is this CPT's copy
 * of the published NI table, rebuilt only when the table changes; the peer
 * view is the destination's published composition with the credits of its
 * peer NIs read as they are now. It runs in the destination NID's shard,
 * which owns that NID's peer NI and so its round robin over the peer's nets
 * and the local NID a non-Multi-Rail peer is always sent from.
 *
 * Round robin is this lcore's own (the kernel's seqs, per lcore): its turns
 * of local NIs and peer NIs are its slot of their per-CPT counts (rr_seq),
 * its turns of routes are in its view; nothing is written into an NI, a
 * peer NI or a route snapshot another lcore owns. One lcore's sends spread
 * over the NIs and peer NIs as the kernel's do.
 *
 * Nothing here allocates or locks on a send, except the first time a view
 * grows (a bigger NI table, a peer with more NIDs than any before).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_internal.h"
#include "lnet_route_table.h"
#include "lnet_select_pick.h"

struct lnet_sel_cache {
	uint16_t cpt;     /* its lcore's: the slot of rr_seq it reads and writes */
	uint32_t clock;   /* this lcore's turns, ever growing; 32 bits as the kernel's ni_seq */
	uint64_t *rt_seq; /* the routes' turns, by index in the route snapshot of rt_gen */
	unsigned int rt_seq_cap;
	uint64_t rt_gen;
	uint64_t epoch; /* this build's, from ln->sel_epochs: what plans are made with */
	/* ln->ni_state_gen it was built at: bumped by a new NI table too; health is read live */
	uint32_t state_gen;
	struct lnet_sel_local view;
	struct lnet_sel_net *nets; /* local nets; their seq is this CPT's */
	struct lnet_sel_ni *nis;
	struct lnet_ni **ni; /* nis[i]'s NI */
	uint16_t *dist;
	unsigned int cap; /* of nets, nis and ni */
	/* scratch for the routes' view: the routes, their gateways' views */
	struct lnet_sel_route *routes;
	const struct lnet_route_view **rviews;   /* routes[i]'s entry in the snapshot */
	const struct lnet_route_table *rt_table; /* the snapshot of this send's routes view */
	struct lnet_sel_peer *gws;
	unsigned int rcap;
	struct lnet_sel_net *gnets;
	struct lnet_sel_peer_ni *gnis;
	unsigned int gcap; /* of gnets and gnis */
};

void
lnet_sel_cache_free(struct lnet_sel_cache *sc)
{
	if (sc == NULL) {
		return;
	}
	free(sc->nets);
	free(sc->nis);
	free(sc->ni);
	free(sc->dist);
	free(sc->routes);
	free(sc->rviews);
	free(sc->rt_seq);
	free(sc->gws);
	free(sc->gnets);
	free(sc->gnis);
	free(sc);
}

static int
lnet_sel_cache_grow(struct lnet_sel_cache *sc, unsigned int n)
{
	struct lnet_sel_net *nets;
	struct lnet_sel_ni *nis;
	struct lnet_ni **ni;

	if (n <= sc->cap) {
		return 0;
	}
	nets = realloc(sc->nets, n * sizeof(*nets));
	if (nets != NULL) {
		sc->nets = nets;
	}
	nis = realloc(sc->nis, n * sizeof(*nis));
	if (nis != NULL) {
		sc->nis = nis;
	}
	ni = realloc(sc->ni, n * sizeof(*ni));
	if (ni != NULL) {
		sc->ni = ni;
	}
	if (nets == NULL || nis == NULL || ni == NULL) {
		return -ENOMEM;
	}
	sc->cap = n;
	return 0;
}

/* The CPT distance matrix of the node's topology, once: it does not change. */
static int
lnet_sel_cache_dist(struct lnet_sel_cache *sc, const struct lnet *ln)
{
	unsigned int n;
	unsigned int a;
	unsigned int b;
	uint16_t far = 0;

	if (sc->dist != NULL || ln->cpt_table == NULL) {
		return 0;
	}
	n = cfs_cpt_number(ln->cpt_table);
	sc->dist = calloc((size_t)n * n, sizeof(*sc->dist));
	if (sc->dist == NULL) {
		return -ENOMEM;
	}
	for (a = 0; a < n; a++) {
		for (b = 0; b < n; b++) {
			unsigned int d = cfs_cpt_distance(ln->cpt_table, (int)a, (int)b);

			sc->dist[a * n + b] = (uint16_t)(d > UINT16_MAX ? UINT16_MAX : d);
			far = sc->dist[a * n + b] > far ? sc->dist[a * n + b] : far;
		}
	}
	sc->view.dist = sc->dist;
	sc->view.ncpts = (uint16_t)n;
	sc->view.dist_far = far;
	return 0;
}

/* One entry per local net in table order, its NIs contiguous (lo left out). */
static void
lnet_sel_cache_fill(struct lnet_sel_cache *sc, const struct lnet_ni_table *t)
{
	unsigned int nnets = 0;
	unsigned int nnis = 0;
	unsigned int i;
	unsigned int j;

	for (i = 1; i < t->nnis; i++) {
		uint32_t net = t->nis[i]->net_id;

		for (j = 0; j < nnets && sc->nets[j].net_id != net; j++) {
		}
		if (j == nnets) {
			sc->nets[nnets++] = (struct lnet_sel_net){
				.net_id = net,
				.sel_prio =
					__atomic_load_n(&t->nis[i]->udsp_net_prio, __ATOMIC_RELAXED)
			};
		}
	}
	for (j = 0; j < nnets; j++) {
		struct lnet_sel_net *net = &sc->nets[j];

		net->first_ni = (uint16_t)nnis;
		for (i = 1; i < t->nnis; i++) {
			struct lnet_ni *ni = t->nis[i];

			if (ni->net_id != net->net_id) {
				continue;
			}
			sc->ni[nnis] = ni;
			sc->nis[nnis++] = (struct lnet_sel_ni){
				.nid = ni->nid,
				.fatal = __atomic_load_n(&ni->fatal, __ATOMIC_RELAXED),
				.sel_prio = __atomic_load_n(&ni->udsp_prio, __ATOMIC_RELAXED),
				.dev_cpt = ni->dev_cpt,
			};
			net->nr_nis++;
		}
	}
	lnet_sel_nets_mark_same_dist(sc->nets, nnets, sc->nis);
	sc->view.nets = sc->nets;
	sc->view.nis = sc->nis;
	sc->view.nr_nets = (uint16_t)nnets;
	sc->view.nr_nis = (uint16_t)nnis;
}

/*
 * (Re)build this CPT's local view (made the first time) from the table
 * published now: read after @p state_gen, it is that gen's table or newer.
 */
static __attribute__((noinline)) struct lnet_sel_cache *
lnet_sel_cache_build(struct lnet_cpt *c, uint32_t state_gen)
{
	const struct lnet_ni_table *t = lnet_ni_table_get(c->ln);
	struct lnet_sel_cache *sc = c->sel;

	if (sc == NULL) {
		sc = calloc(1, sizeof(*sc));
		if (sc == NULL) {
			return NULL;
		}
		sc->cpt = c->cpt;
		c->sel = sc;
	}
	if (lnet_sel_cache_grow(sc, t->nnis) != 0 || lnet_sel_cache_dist(sc, c->ln) != 0) {
		sc->state_gen = state_gen - 1; /* not built: tried again at the next send */
		return NULL;
	}
	lnet_sel_cache_fill(sc, t);
	sc->state_gen = state_gen;
	sc->epoch = __atomic_add_fetch(&c->ln->sel_epochs, 1, __ATOMIC_RELAXED);
	return sc;
}

/*
 * This CPT's local view, current with the published NI table and its NIs'
 * state: one gen says both (lnet_ni_table_replace() bumps it after a new
 * table is published).
 */
static inline struct lnet_sel_cache *
lnet_sel_cache_get(struct lnet_cpt *c)
{
	uint32_t state_gen = __atomic_load_n(&c->ln->ni_state_gen, __ATOMIC_ACQUIRE);
	struct lnet_sel_cache *sc = c->sel;

	if (unlikely(sc == NULL || sc->state_gen != state_gen)) {
		return lnet_sel_cache_build(c, state_gen);
	}
	return sc;
}

/* Room in the destination peer NI for the round robin over @p n peer nets. */
static uint64_t *
lnet_sel_rr(struct lnet_peer_ni *lpni, unsigned int n)
{
	uint64_t *rr;

	if (n <= lpni->rr_cap) {
		return lpni->rr;
	}
	rr = realloc(lpni->rr, n * sizeof(*rr));
	if (rr == NULL) {
		return NULL;
	}
	memset(rr + lpni->rr_cap, 0, (n - lpni->rr_cap) * sizeof(*rr));
	lpni->rr = rr;
	lpni->rr_cap = (uint16_t)n;
	return rr;
}

/* When this lcore last sent to this peer NI (its turn); 0 for one it never used. */
static uint64_t
lnet_sel_peer_seq(const struct lnet_sel_cache *sc, const struct lnet_peer_comp_ni *cni)
{
	return cni->lpni != NULL ? cni->lpni->stats[sc->cpt].rr_seq : 0;
}

/*
 * The kernel stamps the chosen NI and peer NI with ever-growing sequence
 * numbers; each lcore stamps its own slot of them from its own clock.
 */
static void
lnet_sel_stamp_ni(const struct lnet_sel_cache *sc, struct lnet_ni *ni, struct lnet_peer_ni *lpni,
		  uint32_t now)
{
	ni->stats[sc->cpt].rr_seq = now;
	if (lpni != NULL) {
		lpni->stats[sc->cpt].rr_seq = now;
	}
}

/*
 * A response takes its turn as a send would, even as this lcore's first
 * message (a node's first words are often a REPLY to a ping): its view is
 * made now if need be, so the next send goes the other way, as the
 * kernel's (replay_kernel's s3_01 push).
 */
void
lnet_sel_stamp_response(struct lnet_cpt *c, struct lnet_ni *ni, struct lnet_peer_ni *lpni)
{
	struct lnet_sel_cache *sc = c->sel != NULL ? c->sel : lnet_sel_cache_get(c);

	if (sc != NULL) { /* NULL: no memory for the view; the turn is lost, nothing else */
		lnet_sel_stamp_ni(sc, ni, lpni, ++sc->clock);
	}
}

/* Whether the local view has an NI on @p net. */
static bool
lnet_sel_local_net(const struct lnet_sel_cache *sc, uint32_t net)
{
	unsigned int i;

	for (i = 0; i < sc->view.nr_nets; i++) {
		if (sc->nets[i].net_id == net) {
			return true;
		}
	}
	return false;
}

/* Credits of a peer NI: its shard's, read as they are; a new one starts full. */
static int
lnet_sel_peer_credits(const struct lnet_sel_cache *sc, const struct lnet_peer_comp_ni *cni)
{
	uint32_t net;
	unsigned int i;

	if (cni->lpni != NULL) {
		return __atomic_load_n(&cni->lpni->txcredits, __ATOMIC_RELAXED);
	}
	net = lnet_nid_net(&cni->nid);
	for (i = 0; i < sc->view.nr_nis; i++) {
		if (sc->ni[i]->net_id == net) {
			return sc->ni[i]->tun.peer_tx_credits;
		}
	}
	return 0;
}

/*
 * The peer as selection sees it from one destination NID: what changes only
 * with its published composition or UDSP (NIDs, nets, priorities,
 * preferred NIDs, ln->sel_gen) is kept; health, credits, turns and the NI a
 * resend avoids are read at each send. Owned by the destination NID's
 * shard, as its peer NI is; one allocation, the arrays after the header.
 */
struct lnet_sel_pview {
	uint64_t gen; /* ln->sel_gen it was built at; STALE: a sticky NID since */
	const struct lnet_peer_comp *comp;
	bool mr;
	uint16_t nnets;
	uint16_t nnis;
	uint16_t cap;
	struct lnet_sel_net *nets;
	struct lnet_sel_peer_ni *nis;
	/* The plan of the common message (lnet_select.h), and the local view's epoch it was made with. */
	struct lnet_sel_plan plan;
	uint64_t plan_epoch;       /* 0: none made */
	struct lnet_sel_peer peer; /* the above as lnet_select sees them, made with them */
};

/* A gen ln->sel_gen never reaches: the view is built again at the next send. */
#define LNET_SEL_PVIEW_STALE UINT64_MAX

static struct lnet_sel_pview *
lnet_sel_pview_room(struct lnet_peer_ni *lpni, unsigned int n)
{
	struct lnet_sel_pview *pv = lpni->selv;

	if (pv != NULL && n <= pv->cap) {
		return pv;
	}
	pv = malloc(sizeof(*pv) +
		    n * (sizeof(struct lnet_sel_net) + sizeof(struct lnet_sel_peer_ni)));
	if (pv == NULL) {
		return NULL;
	}
	pv->cap = (uint16_t)n;
	pv->nis = (struct lnet_sel_peer_ni *)(pv + 1);
	pv->nets = (struct lnet_sel_net *)(pv->nis + n);
	free(lpni->selv);
	lpni->selv = pv;
	return pv;
}

/*
 * (Re)build the kept part of @p lpni's view from @p comp (NULL: a peer the
 * management lcore has not published yet, seen as its one NID, not
 * Multi-Rail).
 */
static __attribute__((noinline)) struct lnet_sel_pview *
lnet_sel_pview_build(struct lnet_peer_ni *lpni, const struct lnet_peer_comp *comp, uint64_t gen)
{
	struct lnet_peer_comp_ni one = { .nid = lpni->nid,
					 .lpni = lpni,
					 .sel_prio = LNET_SEL_PRIO_NONE };
	struct lnet_sel_net one_net = { .net_id = lnet_nid_net(&lpni->nid),
					.nr_nis = 1,
					.sel_prio = LNET_SEL_PRIO_NONE };
	const struct lnet_peer_comp_ni *nis = comp != NULL ? comp->nis : &one;
	const struct lnet_sel_net *nets = comp != NULL ? comp->nets : &one_net;
	unsigned int nnets = comp != NULL ? comp->nnets : 1;
	unsigned int nnis = comp != NULL ? comp->nnis : 1;
	bool mr = comp != NULL && comp->multi_rail;
	struct lnet_sel_pview *pv = lnet_sel_pview_room(lpni, nnets > nnis ? nnets : nnis);
	unsigned int i;

	if (pv == NULL) {
		return NULL;
	}
	for (i = 0; i < nnets; i++) {
		pv->nets[i] = (struct lnet_sel_net){
			.net_id = nets[i].net_id,
			.sel_prio = __atomic_load_n(&nets[i].sel_prio,
						    __ATOMIC_RELAXED), /* UDSP: in place */
			.first_ni = nets[i].first_ni,
			.nr_nis = nets[i].nr_nis,
		};
	}
	for (i = 0; i < nnis; i++) {
		const struct lnet_udsp_nids *pref = rt_rcu_read((void *const *)&nis[i].pref);
		const struct lnet_udsp_nids *rtr =
			comp != NULL ? rt_rcu_read((void *const *)&nis[i].rtr) : NULL;
		/* UDSP's preferred NIDs; else the sticky NID of a non-MR peer (one list in the kernel) */
		bool sticky = pref == NULL && !mr && lpni->has_pref &&
			      lnet_nid_same(&nis[i].nid, &lpni->nid);

		pv->nis[i] = (struct lnet_sel_peer_ni){
			.nid = nis[i].nid,
			.sel_prio = __atomic_load_n(&nis[i].sel_prio, __ATOMIC_RELAXED),
			.pref_nids = sticky       ? &lpni->pref :
				     pref != NULL ? pref->nids :
						    NULL,
			.nr_pref_nids = (uint16_t)(sticky       ? 1 :
						   pref != NULL ? pref->n :
								  0),
			.pref_rtrs = rtr != NULL ? rtr->nids : NULL,
			.nr_pref_rtrs = (uint16_t)(rtr != NULL ? rtr->n : 0),
		};
	}
	pv->gen = gen;
	pv->comp = comp;
	pv->plan_epoch = 0;
	pv->mr = mr;
	pv->nnets = (uint16_t)nnets;
	pv->nnis = (uint16_t)nnis;
	pv->peer = (struct lnet_sel_peer){ pv->nets, pv->nis, pv->nnets, pv->nnis, pv->mr };
	return pv;
}

/* @p lpni's kept view, rebuilt when stale; NULL: no memory. */
static inline struct lnet_sel_pview *
lnet_sel_pview_get(struct lnet *ln, struct lnet_peer_ni *lpni, const struct lnet_peer_comp *comp)
{
	uint64_t gen = __atomic_load_n(&ln->sel_gen, __ATOMIC_ACQUIRE);
	struct lnet_sel_pview *pv = lpni->selv;

	/* lpni->has_pref is not compared: lnet_sel_apply() makes the view stale as it sets it. */
	if (unlikely(pv == NULL || pv->gen != gen || pv->comp != comp)) {
		pv = lnet_sel_pview_build(lpni, comp, gen);
	}
	return pv;
}

/*
 * Health, credits and turns of peer net @p j's NIs as they are now
 * (@p avoid: the peer NI a resend must not take while another is left);
 * returns the best health among them (the kernel's lpn_healthv).
 */
/* Bit i set: @p msg failed on @p pni from local NI i (its failed paths; resends only). */
static uint64_t
lnet_sel_avoid_with(const struct lnet_sel_cache *sc, const struct lnet_msg *msg,
		    const struct lnet_peer_ni *pni)
{
	uint64_t bits = 0;

	for (unsigned int k = 0; pni != NULL && k < msg->nfailed_paths; k++) {
		if (msg->failed_paths[k].lpni != pni) {
			continue;
		}
		for (unsigned int i = 0; i < sc->view.nr_nis && i < 64; i++) {
			bits |= sc->ni[i] == msg->failed_paths[k].ni ? 1ULL << i : 0;
		}
	}
	return bits;
}

static inline int
lnet_sel_peer_refresh_net(const struct lnet_sel_cache *sc, struct lnet_sel_pview *pv,
			  const struct lnet_peer_comp_ni *nis, unsigned int j,
			  const struct lnet_msg *msg)
{
	const struct lnet_peer_ni *avoid = msg != NULL ? msg->avoid_lpni : NULL;
	const struct lnet_sel_net *net = &pv->nets[j];
	unsigned int end = (unsigned int)net->first_ni + net->nr_nis; /* not reloaded */
	int best = 0;
	unsigned int i;

	for (i = net->first_ni; i < end; i++) {
		const struct lnet_peer_ni *pni = nis[i].lpni;
		struct lnet_sel_peer_ni *sp = &pv->nis[i];

		sp->health = pni != NULL ? lnet_health_value(&pni->health) : LNET_SEL_MAX_HEALTH;
		sp->tx_credits = lnet_sel_peer_credits(sc, &nis[i]);
		sp->seq = lnet_sel_peer_seq(sc, &nis[i]);
		sp->avoid = avoid != NULL && pni == avoid;
		sp->avoid_with = msg != NULL && msg->nfailed_paths != 0 ?
					 lnet_sel_avoid_with(sc, msg, pni) :
					 0;
		best = sp->health > best ? sp->health : best;
	}
	return best;
}

/* Local net @p j's NIs as they are now; returns their best health (lnet_get_net_healthv_locked). */
static inline int
lnet_sel_local_refresh_net(struct lnet_sel_cache *sc, unsigned int j, const struct lnet_ni *avoid)
{
	const struct lnet_sel_net *net = &sc->nets[j];
	unsigned int end = (unsigned int)net->first_ni + net->nr_nis; /* not reloaded */
	int best = 0;
	unsigned int i;

	for (i = net->first_ni; i < end; i++) {
		const struct lnet_ni *lni = sc->ni[i];
		struct lnet_sel_ni *sn = &sc->nis[i];

		sn->tx_credits = __atomic_load_n(&lni->tq.credits, __ATOMIC_RELAXED);
		sn->seq = lni->stats[sc->cpt].rr_seq;
		sn->health = lnet_health_value(&lni->health);
		sn->avoid = lni == avoid;
		best = sn->health > best ? sn->health : best;
	}
	return best;
}

/* The peer's whole view for this send: every net's NIs read as they are now. */
static void
lnet_sel_peer_refresh(const struct lnet_sel_cache *sc, struct lnet_sel_pview *pv,
		      const struct lnet_peer_comp_ni *nis, const uint64_t *rr,
		      const struct lnet_msg *msg)
{
	unsigned int j;

	for (j = 0; j < pv->nnets; j++) {
		pv->nets[j].seq = rr != NULL ? rr[j] : 0;
		pv->nets[j].health = lnet_sel_peer_refresh_net(sc, pv, nis, j, msg);
	}
}

/* ---- routes ---------------------------------------------------------------- */

static int
lnet_sel_routes_grow(struct lnet_sel_cache *sc, unsigned int nroutes, unsigned int ngw)
{
	if (nroutes > sc->rcap) {
		struct lnet_sel_route *r = realloc(sc->routes, nroutes * sizeof(*r));
		const struct lnet_route_view **v;
		struct lnet_sel_peer *g;

		if (r != NULL) {
			sc->routes = r;
		}
		v = realloc(sc->rviews, nroutes * sizeof(*v));
		if (v != NULL) {
			sc->rviews = v;
		}
		g = realloc(sc->gws, nroutes * sizeof(*g));
		if (g != NULL) {
			sc->gws = g;
		}
		if (r == NULL || v == NULL || g == NULL) {
			return -ENOMEM;
		}
		sc->rcap = nroutes;
	}
	if (ngw > sc->gcap) {
		struct lnet_sel_net *n = realloc(sc->gnets, ngw * sizeof(*n));
		struct lnet_sel_peer_ni *i;

		if (n != NULL) {
			sc->gnets = n;
		}
		i = realloc(sc->gnis, ngw * sizeof(*i));
		if (i != NULL) {
			sc->gnis = i;
		}
		if (n == NULL || i == NULL) {
			return -ENOMEM;
		}
		sc->gcap = ngw;
	}
	return 0;
}

/* A gateway as selection sees a peer: its NIs' health, credits, queued bytes, turns. */
static void
lnet_sel_gw_view(const struct lnet_sel_cache *sc, const struct lnet_peer_comp *gw,
		 const struct lnet_peer_ni *avoid, struct lnet_sel_net *nets,
		 struct lnet_sel_peer_ni *nis, struct lnet_sel_peer *view)
{
	unsigned int i;
	unsigned int j = 0;

	for (i = 0; i < gw->nnets; i++) {
		nets[i] = gw->nets[i];
		nets[i].sel_prio = __atomic_load_n(&gw->nets[i].sel_prio, __ATOMIC_RELAXED);
		nets[i].health = 0;
	}
	for (i = 0; i < gw->nnis; i++) {
		const struct lnet_peer_ni *pni = gw->nis[i].lpni;

		nis[i] = (struct lnet_sel_peer_ni){
			.nid = gw->nis[i].nid,
			.health =
				pni != NULL ? lnet_health_value(&pni->health) : LNET_SEL_MAX_HEALTH,
			.sel_prio = __atomic_load_n(&gw->nis[i].sel_prio, __ATOMIC_RELAXED),
			.tx_credits = lnet_sel_peer_credits(sc, &gw->nis[i]),
			.seq = lnet_sel_peer_seq(sc, &gw->nis[i]),
			.txqnob = pni != NULL ? __atomic_load_n(&pni->txqnob, __ATOMIC_RELAXED) : 0,
			.avoid = avoid != NULL && pni == avoid,
		};
		while (j + 1 < gw->nnets && i >= (unsigned int)nets[j].first_ni + nets[j].nr_nis) {
			j++;
		}
		nets[j].health = nis[i].health > nets[j].health ? nis[i].health : nets[j].health;
	}
	*view = (struct lnet_sel_peer){ nets, nis, gw->nnets, gw->nnis, gw->multi_rail };
}

/*
 * This lcore's turns of the routes of snapshot @p t: kept while @p t is the
 * one published, all 0 in a new one (as a new snapshot's routes start).
 */
static int
lnet_sel_rt_seq(struct lnet_sel_cache *sc, const struct lnet_route_table *t)
{
	if (sc->rt_seq != NULL && sc->rt_gen == t->gen) {
		return 0;
	}
	if (t->nroutes > sc->rt_seq_cap) {
		uint64_t *s = realloc(sc->rt_seq, t->nroutes * sizeof(*s));

		if (s == NULL) {
			return -ENOMEM;
		}
		sc->rt_seq = s;
		sc->rt_seq_cap = t->nroutes;
	}
	memset(sc->rt_seq, 0, t->nroutes * sizeof(*sc->rt_seq));
	sc->rt_gen = t->gen;
	return 0;
}

/* How many routes (and gateway NIs) lead to the peer's nets that are not ours. */
static void
lnet_sel_routes_count(const struct lnet_sel_cache *sc, const struct lnet_route_table *t,
		      const struct lnet_sel_peer *peer, unsigned int *nr, unsigned int *ngw)
{
	unsigned int i;
	unsigned int k;

	*nr = 0;
	*ngw = 0;
	for (i = 0; i < peer->nr_nets; i++) {
		const struct lnet_route_view *rv;
		unsigned int n;

		if (lnet_sel_local_net(sc, peer->nets[i].net_id)) {
			continue;
		}
		rv = lnet_route_find(t, peer->nets[i].net_id, &n);
		for (k = 0; k < n; k++) {
			(*nr)++;
			*ngw += rv[k].gw != NULL ? rv[k].gw->nnis : 0;
		}
	}
}

/*
 * The routes to the peer's remote nets, each gateway's view filled from
 * its published composition (NULL: no route reaches any of them).
 */
static const struct lnet_sel_routes *
lnet_sel_routes_view(struct lnet_sel_cache *sc, const struct lnet_route_table *t,
		     const struct lnet_sel_peer *peer, const struct lnet_peer_ni *avoid,
		     struct lnet_sel_routes *out)
{
	unsigned int nr;
	unsigned int ngw;
	unsigned int g = 0;
	unsigned int i;
	unsigned int k;

	if (t == NULL) {
		return NULL;
	}
	lnet_sel_routes_count(sc, t, peer, &nr, &ngw);
	if (nr == 0 || lnet_sel_routes_grow(sc, nr, ngw) != 0 || lnet_sel_rt_seq(sc, t) != 0) {
		return NULL;
	}
	out->nr_routes = 0;
	sc->rt_table = t;
	for (i = 0; i < peer->nr_nets; i++) {
		const struct lnet_route_view *rv;
		unsigned int n;

		if (lnet_sel_local_net(sc, peer->nets[i].net_id)) {
			continue;
		}
		rv = lnet_route_find(t, peer->nets[i].net_id, &n);
		for (k = 0; k < n; k++) {
			struct lnet_sel_route *r = &sc->routes[out->nr_routes];

			*r = (struct lnet_sel_route){
				.net = rv[k].net,
				.hops = rv[k].hops,
				.priority = rv[k].priority,
				.seq = sc->rt_seq[&rv[k] - t->routes],
				.alive = rv[k].alive,
				.gw_primary = rv[k].gw_primary,
			};
			if (rv[k].gw != NULL) {
				lnet_sel_gw_view(sc, rv[k].gw, avoid, &sc->gnets[g], &sc->gnis[g],
						 &sc->gws[out->nr_routes]);
				r->gw = &sc->gws[out->nr_routes];
				g += rv[k].gw->nnis;
			}
			sc->rviews[out->nr_routes++] = &rv[k];
		}
	}
	out->routes = sc->routes;
	return out;
}

/* A routed send's turns: the route, the gateway's peer NI, the final destination. */
static void
lnet_sel_apply_routed(struct lnet_sel_cache *sc, const struct lnet_sel_result *res,
		      const struct lnet_peer_comp *comp, uint32_t now)
{
	const struct lnet_route_view *rv = sc->rviews[res->route];
	const struct lnet_peer_comp *gw = rv->gw;

	sc->rt_seq[rv - sc->rt_table->routes] = now;
	lnet_sel_stamp_ni(sc, sc->ni[res->ni], gw->nis[res->gw_ni].lpni, now);
	if (comp != NULL && comp->nis[res->peer_ni].lpni != NULL) {
		comp->nis[res->peer_ni].lpni->stats[sc->cpt].rr_seq = now;
	}
}

/* The kernel's lnet_handle_send bookkeeping: the chosen path takes its turn. */
static void
lnet_sel_apply(struct lnet_sel_cache *sc, struct lnet_peer_ni *lpni, struct lnet_sel_pview *pv,
	       uint64_t *rr, const struct lnet_peer_comp *comp, const struct lnet_sel_result *res)
{
	uint32_t now;

	if (res->stamp_seq) {
		now = ++sc->clock;
		if (rr != NULL) {
			rr[res->peer_net] = now;
		}
		sc->nets[res->net].seq = now;
		if (res->send_case & LNET_SEL_ROUTED) {
			lnet_sel_apply_routed(sc, res, comp, now);
		} else {
			lnet_sel_stamp_ni(sc, sc->ni[res->ni],
					  comp != NULL ? comp->nis[res->peer_ni].lpni : lpni, now);
		}
	}
	if (res->record_pref) {
		lpni->pref = sc->nis[res->ni].nid;
		if (!lpni->has_pref) {
			lpni->has_pref = true;
			pv->gen = LNET_SEL_PVIEW_STALE; /* the sticky NID is in the kept view */
		}
	}
}

/* A message the plan covers: source ANY; no response, recovery ping or resend (nothing to avoid). */
static inline bool
lnet_sel_plan_fits(const struct lnet_msg *msg)
{
	return msg->avoid_ni == NULL && msg->avoid_lpni == NULL && !msg->recovery &&
	       msg->retry_count == 0 && lnet_nid_is_any(&msg->src_param);
}

/*
 * A plan's reading of the NIs it compares, as they are now (a plan's
 * message avoids nothing): one pass, each read as it is compared, the
 * views not written (lnet_select_pick.h). Reads only: another lcore's NI
 * or peer NI is read as a hint (doc/architecture.md).
 */
struct lnet_sel_now {
	const struct lnet_sel_cache *sc;
	const struct lnet_peer_comp_ni *nis; /* the peer's, as its view indexes them */
};

/* Local NI @p i of this lcore's view: its health, credits and this lcore's turn of it. */
static inline void
lnet_sel_ni_now(const void *ctx, unsigned int i, struct lnet_sel_live *out)
{
	const struct lnet_sel_cache *sc = ((const struct lnet_sel_now *)ctx)->sc;
	const struct lnet_ni *lni = sc->ni[i];

	*out = (struct lnet_sel_live){
		.health = lnet_health_value(&lni->health),
		.tx_credits = __atomic_load_n(&lni->tq.credits, __ATOMIC_RELAXED),
		.seq = lni->stats[sc->cpt].rr_seq,
	};
}

/* Peer NI @p i: its health (full for one not made yet), credits and this lcore's turn of it. */
static inline void
lnet_sel_peer_ni_now(const void *ctx, unsigned int i, struct lnet_sel_live *out)
{
	const struct lnet_sel_now *now = ctx;
	const struct lnet_peer_ni *pni = now->nis[i].lpni;

	*out = (struct lnet_sel_live){
		.health = pni != NULL ? lnet_health_value(&pni->health) : LNET_SEL_MAX_HEALTH,
		.tx_credits = lnet_sel_peer_credits(now->sc, &now->nis[i]),
		.seq = lnet_sel_peer_seq(now->sc, &now->nis[i]),
	};
}

/*
 * The common message through @p lpni's plan (made again when the peer's
 * view or the NI table changed), reading only the NIs it compares;
 * nonzero: no plan, or one that failed (the whole selection says why).
 * Inlined: out of line, the socklnd client's selection took 34
 * instructions a send more (callgrind, release LTO build).
 */
static inline __attribute__((always_inline)) int
lnet_sel_by_plan(struct lnet_sel_cache *sc, const struct lnet_msg *msg,
		 const struct lnet_peer_ni *lpni, struct lnet_sel_pview *pv,
		 const struct lnet_peer_comp_ni *nis, int md_cpt, struct lnet_sel_result *res)
{
	const struct lnet_sel_peer *peer = &pv->peer; /* kept with the view: not made per message */
	const struct lnet_sel_plan *plan = &pv->plan;
	bool reserved = lnet_msg_is_reserved(msg);

	if (unlikely(pv->plan_epoch != sc->epoch)) {
		lnet_sel_plan_make(&sc->view, peer, &lpni->nid, &pv->plan);
		pv->plan_epoch = sc->epoch;
	}
	switch (plan->kind) {
	case LNET_SEL_PLAN_MR: {
		struct lnet_sel_now now = { sc, nis };

		return lnet_sel_plan_mr_pick(&sc->view, peer, plan, md_cpt, lnet_sel_ni_now, &now,
					     lnet_sel_peer_ni_now, &now, res);
	}
	case LNET_SEL_PLAN_NMR:
		if ((reserved || plan->sticky < 0) && plan->net >= 0) {
			lnet_sel_local_refresh_net(sc, (unsigned int)plan->net, NULL);
		}
		break;
	default:
		return -EAGAIN;
	}
	return lnet_select_planned(&sc->view, peer, plan, md_cpt, reserved, res);
}

/* Every view read as it is now, the routes too, and lnet_select_routed(). */
static int
lnet_sel_full(struct lnet_cpt *c, struct lnet_sel_cache *sc, const struct lnet_msg *msg,
	      struct lnet_sel_pview *pv, const struct lnet_peer_comp_ni *nis, const uint64_t *rr,
	      int md_cpt, struct lnet_sel_routes *rbuf, const struct lnet_sel_routes **routes,
	      struct lnet_sel_result *res)
{
	const struct lnet_sel_peer *peer = &pv->peer;
	struct lnet_sel_msg m;
	unsigned int j;

	lnet_sel_peer_refresh(sc, pv, nis, rr, msg);
	for (j = 0; j < sc->view.nr_nets; j++) {
		sc->nets[j].health = lnet_sel_local_refresh_net(sc, j, msg->avoid_ni);
	}
	m = (struct lnet_sel_msg){
		.src = msg->src_param,
		.dst = msg->target.nid,
		.md_cpt = md_cpt,
		.reserved = lnet_msg_is_reserved(msg),
		.recovery = msg->recovery,
		.resend = msg->retry_count != 0,
		.routing = msg->routing,
	};
	*routes =
		lnet_sel_routes_view(sc, lnet_route_table_get(c->ln), peer, msg->avoid_lpni, rbuf);
	if (*routes != NULL) {
		/* router_sensitivity: the percentage of full health a gateway NI needs */
		rbuf->min_health =
			__atomic_load_n(&c->ln->tunables.router_sensitivity, __ATOMIC_RELAXED) *
			LNET_SEL_MAX_HEALTH / 100;
	}
	return lnet_select_routed(&sc->view, peer, *routes, &m, res);
}

int
lnet_send_mr_select(struct lnet_cpt *c, struct lnet_msg *msg, struct lnet_peer_ni *lpni,
		    const struct lnet_peer_comp *comp, struct lnet_ni **ni, struct lnet_nid *dst,
		    struct lnet_nid *nexthop, struct lnet_peer_ni **nexthop_lpni)
{
	struct lnet_sel_cache *sc = lnet_sel_cache_get(c);
	unsigned int nnets = comp != NULL ? comp->nnets : 1;
	const struct lnet_peer_comp_ni *nis = comp != NULL ? comp->nis : NULL;
	struct lnet_peer_comp_ni one;
	const struct lnet_sel_routes *routes = NULL;
	struct lnet_sel_routes rbuf;
	struct lnet_sel_pview *pv;
	struct lnet_sel_result res;
	uint64_t *rr;
	int md_cpt;
	int rc;

	/* This lcore's view, and the destination's round robin over its nets and sticky NID. */
	LNET_OWNER_ASSERT(c->ln, lpni->cpt);
	if (sc == NULL || (pv = lnet_sel_pview_get(c->ln, lpni, comp)) == NULL) {
		return -ENOMEM;
	}
	if (nis == NULL) {
		/* Not published yet: the peer as its one NID. */
		one = (struct lnet_peer_comp_ni){ .nid = lpni->nid, .lpni = lpni };
		nis = &one;
	}
	rr = lnet_sel_rr(lpni, nnets);
	md_cpt = msg->md != NULL ? msg->md->cpt : c->cpt;
	sc->view.numa_range =
		(uint32_t)__atomic_load_n(&c->ln->tunables.numa_range, __ATOMIC_RELAXED);
	if (!lnet_sel_plan_fits(msg) ||
	    lnet_sel_by_plan(sc, msg, lpni, pv, nis, md_cpt, &res) != 0) {
		rc = lnet_sel_full(c, sc, msg, pv, nis, rr, md_cpt, &rbuf, &routes, &res);
		if (rc != 0) {
			return rc == -EINVAL || rc == -EFAULT ? -EHOSTUNREACH : rc;
		}
	}
	lnet_sel_apply(sc, lpni, pv, rr, comp, &res);
	*ni = sc->ni[res.ni];
	*dst = pv->nis[res.peer_ni].nid;
	*nexthop = (res.send_case & LNET_SEL_ROUTED) ?
			   routes->routes[res.route].gw->nis[res.gw_ni].nid :
			   *dst;
	/* The peer NI of a direct send's NID, when known: the peer step need not look it up. */
	*nexthop_lpni = (res.send_case & LNET_SEL_ROUTED) ? NULL :
			comp != NULL                      ? comp->nis[res.peer_ni].lpni :
							    lpni;
	return 0;
}
