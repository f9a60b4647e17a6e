/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * User Defined Selection Policies (seed 001, lnet-facts §10): the rules,
 * kept in index order by the management lcore, and their flattening into
 * the values selection reads (lnet-facts §7): a priority per local net,
 * local NI, peer net and peer NI (lower is better, LNET_UDSP_PRIO_NONE
 * when no rule applies), the preferred local NIDs of a peer NI (NID pair
 * rules) and its preferred gateways (router rules).
 *
 * The kernel (2.17 udsp.c) applies every rule from the last index to the
 * first, each overwriting what the ones after it set, so for any construct
 * the rule of lowest index that matches it decides. Flattening here
 * computes that directly for one construct at a time, so values are the
 * same whichever order rules, NIs and peers came in, and deleting a rule
 * gives back what the remaining rules say (the kernel only resets what
 * the deleted rule had set).
 *
 * Kinds, by the descriptors a rule has (the kernel's lnet_udsp_apply_single_policy):
 *   src only      priority of local nets (a net descriptor) or local NIs;
 *   dst only      priority of peer nets (a net descriptor) or peer NIs;
 *   src and dst   preferred list: the local NIs src matches become the
 *                 preferred sources of the peer NIs dst matches;
 *   dst and rte   preferred list: the gateways rte matches become the
 *                 preferred routers of the peer NIs dst matches;
 *   rte only      stored and shown, applied to nothing (as the kernel).
 * A pair or router rule given a priority, like the kernel's, is stored and
 * applies nothing.
 */
#ifndef LNET_UDSP_H
#define LNET_UDSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs.h" /* struct cfs_nid_parts */

#define LNET_UDSP_PRIO_NONE UINT32_MAX
/* Preferred NIDs one peer NI keeps (the kernel shows up to 128). */
#define LNET_UDSP_MAX_PREF 32

/* The kernel's enum lnet_udsp_action_type values. */
enum lnet_udsp_action {
	LNET_UDSP_ACTION_NONE = 0,
	LNET_UDSP_ACTION_PRIORITY = 1,
	LNET_UDSP_ACTION_PREF = 2,
};

struct lnet_udsp_rule {
	struct cfs_nid_parts src;
	struct cfs_nid_parts dst;
	struct cfs_nid_parts rte;
	enum lnet_udsp_action action;
	uint32_t priority;
};

/* The rules in index order (rule i has index i). */
struct lnet_udsp_set {
	unsigned int n;
	unsigned int cap;
	struct lnet_udsp_rule **rules;
};

/* ---- rules ---- */

/*
 * A rule from lnetctl's arguments (NULL or "": absent), checked as the
 * kernel's lnetctl does: at least one descriptor, not src with rte;
 * @p priority < 0 asks for the preferred-list action, which a rule with
 * only src or only dst turns into priority 0. @p err gets the kernel's
 * words ("failed to parse dst parameter", ...). 0 or -EINVAL/-ENOMEM.
 */
int lnet_udsp_rule_make(const char *src, const char *dst, const char *rte, long priority,
			struct lnet_udsp_rule **out, char *err, size_t errlen);
void lnet_udsp_rule_free(struct lnet_udsp_rule *r);
/* Same descriptors (the kernel's lnet_udsp_equal; the action is not compared). */
bool lnet_udsp_rule_same(const struct lnet_udsp_rule *a, const struct lnet_udsp_rule *b);

void lnet_udsp_set_init(struct lnet_udsp_set *s);
void lnet_udsp_set_fini(struct lnet_udsp_set *s);
/*
 * Insert @p r at index @p idx (<0 or past the end: last), the set then
 * owning it. A rule with the same descriptors: a priority rule takes the
 * new priority (0, @p r freed); otherwise -EALREADY and @p r stays the
 * caller's. -ENOMEM. *@p kept (may be NULL): the set's rule now in effect.
 */
int lnet_udsp_set_add(struct lnet_udsp_set *s, struct lnet_udsp_rule *r, int idx,
		      struct lnet_udsp_rule **kept);
/* Delete the rule at @p idx (the ones after move up), or every rule (@p idx < 0). -ENOENT. */
int lnet_udsp_set_del(struct lnet_udsp_set *s, int idx);
/* Remove the rule at @p idx and hand it to the caller; NULL when there is none. */
struct lnet_udsp_rule *lnet_udsp_set_take(struct lnet_udsp_set *s, int idx);
/*
 * Can rule @p r decide a value of the peer NI @p nid (its dst matches the
 * NID, or its net for a net descriptor)? Rules without dst decide none.
 */
bool lnet_udsp_rule_reaches(const struct lnet_udsp_rule *r, const struct lnet_nid *nid);

/* What of a peer NI a rule decides: the aspects a change of it makes a refresh look at. */
enum lnet_udsp_aspect {
	LNET_UDSP_NET_PRIO = 1u << 0, /* dst net descriptor, priority */
	LNET_UDSP_NID_PRIO = 1u << 1, /* dst NID descriptor, priority */
	LNET_UDSP_PREF_SRC = 1u << 2, /* src and dst, preferred list */
	LNET_UDSP_PREF_RTE = 1u << 3, /* dst and rte, preferred list */
	LNET_UDSP_ALL = 0xfu,
};
unsigned int lnet_udsp_rule_aspects(const struct lnet_udsp_rule *r);

/* ---- flattening ---- */

/* Priority of local net @p net and of local NI @p nid (src rules). */
uint32_t lnet_udsp_local_net_prio(const struct lnet_udsp_set *s, uint32_t net);
uint32_t lnet_udsp_local_ni_prio(const struct lnet_udsp_set *s, const struct lnet_nid *nid);
/* Priority of peer net @p net and of peer NI @p nid (dst rules). */
uint32_t lnet_udsp_peer_net_prio(const struct lnet_udsp_set *s, uint32_t net);
uint32_t lnet_udsp_peer_ni_prio(const struct lnet_udsp_set *s, const struct lnet_nid *nid);

/*
 * The preferred lists of a peer NI need the node's NIs and gateways: a
 * compiled set lists, for each pair rule, the local NIDs its src matches
 * and, for each router rule, the gateways its rte matches. Built when
 * rules, NIs or routes change; then flattening a peer NI reads no more
 * than the rules' dst.
 */
struct lnet_udsp_list_rule {
	const struct cfs_nid_parts *dst;
	unsigned int n;
	struct lnet_nid nids[];
};

struct lnet_udsp_compiled {
	unsigned int nsrc; /* pair rules whose src matched a local NI, in index order */
	struct lnet_udsp_list_rule **src;
	unsigned int nrte; /* router rules whose rte matched a gateway */
	struct lnet_udsp_list_rule **rte;
};

/*
 * Compile @p s against the local NIDs and the gateways' NIDs (primary
 * NIDs, as the kernel compares them). The compiled set points into @p s:
 * rebuild it after any change to @p s. 0 or -ENOMEM.
 */
int lnet_udsp_compile(const struct lnet_udsp_set *s, const struct lnet_nid *local,
		      unsigned int nlocal, const struct lnet_nid *gws, unsigned int ngws,
		      struct lnet_udsp_compiled *out);
void lnet_udsp_compiled_fini(struct lnet_udsp_compiled *c);
/*
 * The preferred local NIDs (@p rte false) or gateways (true) of peer NI
 * @p nid: the list of the first rule whose dst matches it (a NID, or a net
 * descriptor matching its net). The list is the compiled set's; NULL and
 * *n 0 when no rule applies.
 */
const struct lnet_nid *lnet_udsp_pref(const struct lnet_udsp_compiled *c, bool rte,
				      const struct lnet_nid *nid, unsigned int *n);

#endif /* LNET_UDSP_H */
