/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The comparisons of Multi-Rail selection (lnet-facts §7.3, §7.4) and a
 * Multi-Rail plan's pick (lnet_select.h), written once over how a NI's or
 * peer NI's state of the moment is read (struct lnet_sel_live, through a
 * reader the caller passes as a constant, so that it is inlined):
 *
 *   - lnet_select.c reads it from the views (lnet_select_planned() and the
 *     whole selection), as the tests fill them;
 *   - the data path (lnet_send_mr.c) reads it from the NIs and peer NIs
 *     themselves as it compares them: one pass, nothing written into a
 *     view first.
 *
 * Both go through the same code, so they decide alike. Pure logic: no
 * runtime, no state; a reader must not write anything.
 */
#ifndef LNET_SELECT_PICK_H
#define LNET_SELECT_PICK_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "lnet_select.h"

/*
 * -1, 0 or 1: which of two values the rule prefers (higher or lower).
 * Equal is the usual case (a tie passes to the next rule): one compare.
 */
static inline int
lnet_sel_prefer_higher(int cand, int best)
{
	return cand == best ? 0 : cand > best ? 1 : -1;
}

static inline int
lnet_sel_prefer_lower(uint64_t cand, uint64_t best)
{
	return cand == best ? 0 : cand < best ? 1 : -1;
}

/*
 * What selection reads of a NI or peer NI at each send; the rest of its
 * view (NID, UDSP priority, device CPT, fatal, preferred NIDs) is kept
 * while the NI table and the peer's composition stay the same.
 */
struct lnet_sel_live {
	int health;     /* 0..LNET_SEL_MAX_HEALTH */
	int tx_credits; /* may be negative */
	uint64_t seq;   /* this lcore's turn: lower goes first */
	bool avoid;     /* a resend: the (peer) NI it already failed on */
};

/* Fills @p out with the state of NI (or peer NI) @p i of the view, as @p ctx reads it. */
typedef void (*lnet_sel_live_fn)(const void *ctx, unsigned int i, struct lnet_sel_live *out);

/* The distance row of @p md_cpt, or NULL when every NI is dist_far away. */
static inline const uint16_t *
lnet_sel_distance_row(const struct lnet_sel_local *l, int md_cpt)
{
	if (l->dist == NULL || md_cpt < 0 || md_cpt >= l->ncpts)
		return NULL;
	return l->dist + (unsigned int)md_cpt * l->ncpts;
}

/* Distance from the MD to @p ni's device, with numa_range flattening. */
static inline uint32_t
lnet_sel_ni_distance(const struct lnet_sel_local *l, const uint16_t *row,
		     const struct lnet_sel_ni *ni)
{
	uint32_t d;

	if (l->dist == NULL)
		d = 0;
	else if (row == NULL || ni->dev_cpt < 0 || ni->dev_cpt >= l->ncpts)
		d = l->dist_far;
	else
		d = row[ni->dev_cpt];
	return d < l->numa_range ? l->numa_range : d;
}

/* >0 when local NI @p c (state @p cl) beats @p b, in the order of the kernel's lnet_get_best_ni. */
static inline int
lnet_sel_ni_cmp(const struct lnet_sel_ni *c, const struct lnet_sel_live *cl, uint32_t c_dist,
		const struct lnet_sel_ni *b, const struct lnet_sel_live *bl, uint32_t b_dist)
{
	int r;

	if ((r = lnet_sel_prefer_lower(c->fatal, b->fatal)) != 0)
		return r;
	if ((r = lnet_sel_prefer_lower(cl->avoid, bl->avoid)) != 0)
		return r;
	if ((r = lnet_sel_prefer_higher(cl->health, bl->health)) != 0)
		return r;
	if ((r = lnet_sel_prefer_lower(c->sel_prio, b->sel_prio)) != 0)
		return r;
	if ((r = lnet_sel_prefer_lower(c_dist, b_dist)) != 0)
		return r;
	if ((r = lnet_sel_prefer_higher(cl->tx_credits, bl->tx_credits)) != 0)
		return r;
	/* Round robin: the one used longest ago; the earlier one on a tie. */
	return cl->seq < bl->seq ? 1 : -1;
}

/*
 * A resend avoids a peer NI that failed it (@p cl->avoid), or that failed it
 * from local NI @p local (-1: any).
 */
static inline bool
lnet_sel_peer_ni_avoided(const struct lnet_sel_peer_ni *pni, const struct lnet_sel_live *cl,
			 int local)
{
	return cl->avoid || (local >= 0 && local < 64 && ((pni->avoid_with >> local) & 1) != 0);
}

/* >0 when peer NI @p c (state @p cl; @p c_pref: it prefers the local NI) beats @p b (§7.4). */
static inline int
lnet_sel_peer_ni_cmp(const struct lnet_sel_peer_ni *c, const struct lnet_sel_live *cl, bool c_pref,
		     const struct lnet_sel_peer_ni *b, const struct lnet_sel_live *bl, bool b_pref,
		     int local)
{
	int r;

	if ((r = lnet_sel_prefer_lower(lnet_sel_peer_ni_avoided(c, cl, local),
				       lnet_sel_peer_ni_avoided(b, bl, local))) != 0)
		return r;
	if ((r = lnet_sel_prefer_higher(cl->health, bl->health)) != 0)
		return r;
	if ((r = lnet_sel_prefer_lower(c->sel_prio, b->sel_prio)) != 0)
		return r;
	if ((r = lnet_sel_prefer_higher(c_pref, b_pref)) != 0)
		return r;
	if ((r = lnet_sel_prefer_higher(cl->tx_credits, bl->tx_credits)) != 0)
		return r;
	return cl->seq < bl->seq ? 1 : -1;
}

/*
 * Best NI of local net @p net for an MD on @p md_cpt (-1: it has none),
 * each NI's state read by @p live. The first NI is the best until another
 * beats it, and the bounds are read once: a reader's atomic loads would
 * have them read again each round.
 */
static inline __attribute__((always_inline)) int
lnet_sel_best_ni(const struct lnet_sel_local *l, int net, int md_cpt, lnet_sel_live_fn live,
		 const void *ctx)
{
	const struct lnet_sel_net *n = &l->nets[net];
	const bool same_dist = n->same_dist;
	const uint16_t *row = same_dist ? NULL : lnet_sel_distance_row(l, md_cpt);
	const int end = n->first_ni + n->nr_nis;
	int best = n->first_ni;
	struct lnet_sel_live best_l;
	uint32_t best_d;

	if (end == best)
		return -1;
	/* Every NI's device on one CPT: the distance rule ties, so it is not worked out. */
	best_d = same_dist ? 0 : lnet_sel_ni_distance(l, row, &l->nis[best]);
	live(ctx, (unsigned int)best, &best_l);
	for (int i = best + 1; i < end; i++) {
		uint32_t d = same_dist ? 0 : lnet_sel_ni_distance(l, row, &l->nis[i]);
		struct lnet_sel_live cl;

		live(ctx, (unsigned int)i, &cl);
		if (lnet_sel_ni_cmp(&l->nis[i], &cl, d, &l->nis[best], &best_l, best_d) > 0) {
			best = i;
			best_l = cl;
			best_d = d;
		}
	}
	return best;
}

/*
 * A Multi-Rail plan's pick (LNET_SEL_PLAN_MR, lnet_select_planned()): the
 * best NI of the plan's net, then the best peer NI of its peer net for it,
 * whether a peer NI prefers that NI being the plan's bit. @p ni_live and
 * @p pni_live read the local and the peer NIs' state (by index in @p l and
 * @p p). 0 and @p res filled, or -EHOSTUNREACH.
 */
static inline __attribute__((always_inline)) int
lnet_sel_plan_mr_pick(const struct lnet_sel_local *l, const struct lnet_sel_peer *p,
		      const struct lnet_sel_plan *plan, int md_cpt, lnet_sel_live_fn ni_live,
		      const void *ni_ctx, lnet_sel_live_fn pni_live, const void *pni_ctx,
		      struct lnet_sel_result *res)
{
	const struct lnet_sel_net *pn = &p->nets[plan->pnet];
	const int first = pn->first_ni;
	const int end = first + pn->nr_nis;
	struct lnet_sel_live best_l;
	unsigned int bit;
	bool best_pref;
	int best = first;
	int ni;

	*res = (struct lnet_sel_result){ .send_case = LNET_SEL_SRC_ANY | LNET_SEL_LOCAL_DST |
						      LNET_SEL_MR_DST,
					 .net = -1,
					 .ni = -1,
					 .peer_net = -1,
					 .peer_ni = -1,
					 .route = -1,
					 .gw_ni = -1 };
	if (end == first)
		return -EHOSTUNREACH; /* a peer net without NIs: nothing to send to */
	ni = lnet_sel_best_ni(l, plan->net, md_cpt, ni_live, ni_ctx);
	if (ni < 0)
		return -EHOSTUNREACH;
	/* Whether each peer NI prefers that NI: its bit in the plan (UDSP's lists, kept). */
	bit = (unsigned int)(ni - l->nets[plan->net].first_ni);
	best_pref = (plan->pref[0] >> bit) & 1;
	pni_live(pni_ctx, (unsigned int)best, &best_l);
	for (int i = first + 1; i < end; i++) {
		bool pref = (plan->pref[i - first] >> bit) & 1;
		struct lnet_sel_live cl;

		pni_live(pni_ctx, (unsigned int)i, &cl);
		if (lnet_sel_peer_ni_cmp(&p->nis[i], &cl, pref, &p->nis[best], &best_l, best_pref,
					 -1) > 0) {
			best = i;
			best_l = cl;
			best_pref = pref;
		}
	}
	res->net = plan->net;
	res->ni = ni;
	res->peer_net = plan->pnet;
	res->peer_ni = best;
	res->stamp_seq = true;
	return 0;
}

#endif /* LNET_SELECT_PICK_H */
