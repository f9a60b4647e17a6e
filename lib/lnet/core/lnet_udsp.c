/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UDSP rules and their flattening (lnet_udsp.h): pure functions over the
 * rule set, no lcore, no lock; the management lcore calls them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "lnet_udsp.h"

/* ---- rules ---- */

void
lnet_udsp_rule_free(struct lnet_udsp_rule *r)
{
	if (r == NULL) {
		return;
	}
	cfs_nid_parts_fini(&r->src);
	cfs_nid_parts_fini(&r->dst);
	cfs_nid_parts_fini(&r->rte);
	free(r);
}

bool
lnet_udsp_rule_same(const struct lnet_udsp_rule *a, const struct lnet_udsp_rule *b)
{
	return cfs_nid_parts_same(&a->src, &b->src) && cfs_nid_parts_same(&a->dst, &b->dst) &&
	       cfs_nid_parts_same(&a->rte, &b->rte);
}

static bool
lnet_udsp_given(const char *s)
{
	return s != NULL && s[0] != '\0';
}

static int
lnet_udsp_rule_err(char *err, size_t errlen, int rc, const char *what)
{
	if (err != NULL && errlen != 0) {
		snprintf(err, errlen, "%s", what);
	}
	return rc;
}

int
lnet_udsp_rule_make(const char *src, const char *dst, const char *rte, long priority,
		    struct lnet_udsp_rule **out, char *err, size_t errlen)
{
	bool has_src = lnet_udsp_given(src);
	bool has_dst = lnet_udsp_given(dst);
	bool has_rte = lnet_udsp_given(rte);
	const char *shape = cfs_udsp_shape_error(has_src, has_dst, has_rte);
	struct lnet_udsp_rule *r;

	*out = NULL;
	if (shape != NULL) {
		return lnet_udsp_rule_err(err, errlen, -EINVAL, shape);
	}
	if (priority > (long)UINT32_MAX) {
		return lnet_udsp_rule_err(err, errlen, -EINVAL, "priority out of range");
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		return lnet_udsp_rule_err(err, errlen, -ENOMEM, "out of memory");
	}
	r->action = priority >= 0 ? LNET_UDSP_ACTION_PRIORITY : LNET_UDSP_ACTION_PREF;
	r->priority = priority >= 0 ? (uint32_t)priority : 0;
	/* one descriptor alone can only mean a priority: 0 when none is given */
	if (!has_rte && has_src != has_dst) {
		r->action = LNET_UDSP_ACTION_PRIORITY;
	}
	if (has_src && cfs_nid_parts_parse(src, &r->src) != 0) {
		lnet_udsp_rule_free(r);
		return lnet_udsp_rule_err(err, errlen, -EINVAL, "failed to parse src parameter");
	}
	if (has_dst && cfs_nid_parts_parse(dst, &r->dst) != 0) {
		lnet_udsp_rule_free(r);
		return lnet_udsp_rule_err(err, errlen, -EINVAL, "failed to parse dst parameter");
	}
	if (has_rte && cfs_nid_parts_parse(rte, &r->rte) != 0) {
		lnet_udsp_rule_free(r);
		return lnet_udsp_rule_err(err, errlen, -EINVAL, "failed to parse rte parameter");
	}
	*out = r;
	return 0;
}

void
lnet_udsp_set_init(struct lnet_udsp_set *s)
{
	memset(s, 0, sizeof(*s));
}

void
lnet_udsp_set_fini(struct lnet_udsp_set *s)
{
	lnet_udsp_set_del(s, -1);
	free(s->rules);
	memset(s, 0, sizeof(*s));
}

int
lnet_udsp_set_add(struct lnet_udsp_set *s, struct lnet_udsp_rule *r, int idx,
		  struct lnet_udsp_rule **kept)
{
	unsigned int at = idx < 0 || (unsigned int)idx > s->n ? s->n : (unsigned int)idx;
	unsigned int i;

	if (kept != NULL) {
		*kept = r;
	}
	for (i = 0; i < s->n; i++) {
		struct lnet_udsp_rule *old = s->rules[i];

		if (!lnet_udsp_rule_same(old, r)) {
			continue;
		}
		if (old->action == LNET_UDSP_ACTION_PRIORITY &&
		    r->action == LNET_UDSP_ACTION_PRIORITY && old->priority != r->priority) {
			old->priority = r->priority;
			lnet_udsp_rule_free(r);
			if (kept != NULL) {
				*kept = old;
			}
			return 0;
		}
		return -EALREADY;
	}
	if (s->n == s->cap) {
		unsigned int cap = s->cap == 0 ? 8 : s->cap * 2;
		struct lnet_udsp_rule **rules = realloc(s->rules, cap * sizeof(*rules));

		if (rules == NULL) {
			return -ENOMEM;
		}
		s->rules = rules;
		s->cap = cap;
	}
	memmove(&s->rules[at + 1], &s->rules[at], (s->n - at) * sizeof(s->rules[0]));
	s->rules[at] = r;
	s->n++;
	return 0;
}

struct lnet_udsp_rule *
lnet_udsp_set_take(struct lnet_udsp_set *s, int idx)
{
	struct lnet_udsp_rule *r;

	if (idx < 0 || (unsigned int)idx >= s->n) {
		return NULL;
	}
	r = s->rules[idx];
	memmove(&s->rules[idx], &s->rules[idx + 1],
		(s->n - (unsigned int)idx - 1) * sizeof(s->rules[0]));
	s->n--;
	return r;
}

/* A dst descriptor reaches a peer NI by its NID, or by its net for a net descriptor. */
static bool
lnet_udsp_dst_reaches(const struct cfs_nid_parts *d, const struct lnet_nid *nid)
{
	return d->naddr == 0 ? cfs_nid_parts_match_net(d, lnet_nid_net(nid)) :
			       cfs_nid_parts_match_nid(d, nid);
}

bool
lnet_udsp_rule_reaches(const struct lnet_udsp_rule *r, const struct lnet_nid *nid)
{
	return cfs_nid_parts_present(&r->dst) && lnet_udsp_dst_reaches(&r->dst, nid);
}

unsigned int
lnet_udsp_rule_aspects(const struct lnet_udsp_rule *r)
{
	if (!cfs_nid_parts_present(&r->dst)) {
		return 0;
	}
	if (r->action == LNET_UDSP_ACTION_PREF) {
		return cfs_nid_parts_present(&r->src) ? LNET_UDSP_PREF_SRC :
		       cfs_nid_parts_present(&r->rte) ? LNET_UDSP_PREF_RTE :
							0;
	}
	/* a priority given to a pair or router rule applies to nothing */
	if (cfs_nid_parts_present(&r->src) || cfs_nid_parts_present(&r->rte)) {
		return 0;
	}
	return r->dst.naddr == 0 ? LNET_UDSP_NET_PRIO : LNET_UDSP_NID_PRIO;
}

int
lnet_udsp_set_del(struct lnet_udsp_set *s, int idx)
{
	unsigned int i;

	if (idx < 0) {
		for (i = 0; i < s->n; i++) {
			lnet_udsp_rule_free(s->rules[i]);
		}
		s->n = 0;
		return 0;
	}
	if ((unsigned int)idx >= s->n) {
		return -ENOENT;
	}
	lnet_udsp_rule_free(lnet_udsp_set_take(s, idx));
	return 0;
}

/* ---- flattening ---- */

/* Only a priority rule with this one descriptor sets priorities (the others are ignored, as by the kernel). */
static bool
lnet_udsp_is_prio(const struct lnet_udsp_rule *r, bool local)
{
	const struct cfs_nid_parts *own = local ? &r->src : &r->dst;
	const struct cfs_nid_parts *other = local ? &r->dst : &r->src;

	return r->action == LNET_UDSP_ACTION_PRIORITY && cfs_nid_parts_present(own) &&
	       !cfs_nid_parts_present(other) && !cfs_nid_parts_present(&r->rte);
}

static uint32_t
lnet_udsp_net_prio(const struct lnet_udsp_set *s, bool local, uint32_t net)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		const struct lnet_udsp_rule *r = s->rules[i];
		const struct cfs_nid_parts *d = local ? &r->src : &r->dst;

		if (lnet_udsp_is_prio(r, local) && d->naddr == 0 &&
		    cfs_nid_parts_match_net(d, net)) {
			return r->priority;
		}
	}
	return LNET_UDSP_PRIO_NONE;
}

static uint32_t
lnet_udsp_nid_prio(const struct lnet_udsp_set *s, bool local, const struct lnet_nid *nid)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		const struct lnet_udsp_rule *r = s->rules[i];
		const struct cfs_nid_parts *d = local ? &r->src : &r->dst;

		if (lnet_udsp_is_prio(r, local) && cfs_nid_parts_match_nid(d, nid)) {
			return r->priority;
		}
	}
	return LNET_UDSP_PRIO_NONE;
}

uint32_t
lnet_udsp_local_net_prio(const struct lnet_udsp_set *s, uint32_t net)
{
	return lnet_udsp_net_prio(s, true, net);
}

uint32_t
lnet_udsp_local_ni_prio(const struct lnet_udsp_set *s, const struct lnet_nid *nid)
{
	return lnet_udsp_nid_prio(s, true, nid);
}

uint32_t
lnet_udsp_peer_net_prio(const struct lnet_udsp_set *s, uint32_t net)
{
	return lnet_udsp_net_prio(s, false, net);
}

uint32_t
lnet_udsp_peer_ni_prio(const struct lnet_udsp_set *s, const struct lnet_nid *nid)
{
	return lnet_udsp_nid_prio(s, false, nid);
}

static void
lnet_udsp_lists_free(struct lnet_udsp_list_rule **l, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		free(l[i]);
	}
	free(l);
}

void
lnet_udsp_compiled_fini(struct lnet_udsp_compiled *c)
{
	lnet_udsp_lists_free(c->src, c->nsrc);
	lnet_udsp_lists_free(c->rte, c->nrte);
	memset(c, 0, sizeof(*c));
}

/* The NIDs of @p cand that @p match matches (at most LNET_UDSP_MAX_PREF); NULL when none or no memory. */
static struct lnet_udsp_list_rule *
lnet_udsp_list_make(const struct cfs_nid_parts *dst, const struct cfs_nid_parts *match,
		    const struct lnet_nid *cand, unsigned int ncand, int *rc)
{
	struct lnet_udsp_list_rule *l;
	unsigned int i;

	l = malloc(sizeof(*l) + LNET_UDSP_MAX_PREF * sizeof(l->nids[0]));
	if (l == NULL) {
		*rc = -ENOMEM;
		return NULL;
	}
	l->dst = dst;
	l->n = 0;
	for (i = 0; i < ncand && l->n < LNET_UDSP_MAX_PREF; i++) {
		bool dup = false;
		unsigned int j;

		for (j = 0; j < l->n && !dup; j++) {
			dup = lnet_nid_same(&l->nids[j], &cand[i]);
		}
		if (!dup && cfs_nid_parts_match_nid(match, &cand[i])) {
			l->nids[l->n++] = cand[i];
		}
	}
	if (l->n == 0) {
		free(l);
		return NULL;
	}
	return l;
}

int
lnet_udsp_compile(const struct lnet_udsp_set *s, const struct lnet_nid *local, unsigned int nlocal,
		  const struct lnet_nid *gws, unsigned int ngws, struct lnet_udsp_compiled *out)
{
	unsigned int i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (s->n == 0) {
		return 0;
	}
	out->src = calloc(s->n, sizeof(out->src[0]));
	out->rte = calloc(s->n, sizeof(out->rte[0]));
	if (out->src == NULL || out->rte == NULL) {
		lnet_udsp_compiled_fini(out);
		return -ENOMEM;
	}
	for (i = 0; rc == 0 && i < s->n; i++) {
		const struct lnet_udsp_rule *r = s->rules[i];
		struct lnet_udsp_list_rule *l;

		if (r->action != LNET_UDSP_ACTION_PREF || !cfs_nid_parts_present(&r->dst)) {
			continue;
		}
		if (cfs_nid_parts_present(&r->src)) {
			l = lnet_udsp_list_make(&r->dst, &r->src, local, nlocal, &rc);
			if (l != NULL) {
				out->src[out->nsrc++] = l;
			}
		} else if (cfs_nid_parts_present(&r->rte)) {
			l = lnet_udsp_list_make(&r->dst, &r->rte, gws, ngws, &rc);
			if (l != NULL) {
				out->rte[out->nrte++] = l;
			}
		}
	}
	if (rc != 0) {
		lnet_udsp_compiled_fini(out);
	}
	return rc;
}

const struct lnet_nid *
lnet_udsp_pref(const struct lnet_udsp_compiled *c, bool rte, const struct lnet_nid *nid,
	       unsigned int *n)
{
	struct lnet_udsp_list_rule *const *l = rte ? c->rte : c->src;
	unsigned int nl = rte ? c->nrte : c->nsrc;
	unsigned int i;

	for (i = 0; i < nl; i++) {
		if (lnet_udsp_dst_reaches(l[i]->dst, nid)) {
			*n = l[i]->n;
			return l[i]->nids;
		}
	}
	*n = 0;
	return NULL;
}
