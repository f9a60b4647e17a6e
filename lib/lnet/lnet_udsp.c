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
#include "cfs_internal.h" /* cfs_split_dotted */
#include "lnet_udsp.h"

/* ---- descriptors ---- */

void
lnet_udsp_descr_fini(struct lnet_udsp_descr *d)
{
	unsigned int i;

	cfs_expr_list_free(d->net_num);
	for (i = 0; i < d->naddr; i++) {
		cfs_expr_list_free(d->addr[i]);
	}
	memset(d, 0, sizeof(*d));
}

/* The LND whose name starts @p str (the longest such name): its type, *len its name's length. */
static int
lnet_udsp_lnd_prefix(const char *str, size_t *len)
{
	int best = -1;
	int t;

	*len = 0;
	for (t = 0; t < 256; t++) {
		const char *name = libcfs_lnd2str(t);
		size_t n = name != NULL ? strlen(name) : 0;

		if (n > *len && strncmp(str, name, n) == 0) {
			best = t;
			*len = n;
		}
	}
	return best;
}

/* "tcp", "tcp1", "tcp*", "tcp[1-3]": the type, and the numbers when any are given. */
static int
lnet_udsp_net_parse(const char *str, struct lnet_udsp_descr *d)
{
	size_t n;
	int type = lnet_udsp_lnd_prefix(str, &n);
	const char *num = str + n;

	if (type <= 0) {
		return -EINVAL; /* unknown, or 0 (the kernel's "no descriptor") */
	}
	d->net_type = (uint32_t)type;
	if (*num == '\0') {
		return 0;
	}
	/* the kernel takes "NUM", "*" and "[...]" and refuses "*[" */
	if (strchr(num, '*') != NULL && strchr(num, '[') != NULL) {
		return -EINVAL;
	}
	return cfs_expr_list_parse(num, strlen(num), 0, UINT32_MAX, &d->net_num);
}

/* Four dotted parts for IP LNDs, one number expression for the others. */
static int
lnet_udsp_addr_parse(const char *addr, struct lnet_udsp_descr *d)
{
	char parts[4][64];
	unsigned int i;
	int rc;

	if (!cfs_lnd_is_ip((int)d->net_type)) {
		d->naddr = 1;
		return cfs_expr_list_parse(addr, strlen(addr), 0, UINT32_MAX, &d->addr[0]);
	}
	if (cfs_split_dotted(addr, parts, 4) != 0) {
		return -EINVAL;
	}
	for (i = 0; i < 4; i++) {
		rc = cfs_expr_list_parse(parts[i], strlen(parts[i]), 0, 255, &d->addr[i]);
		if (rc != 0) {
			return rc;
		}
		d->naddr = i + 1;
	}
	return 0;
}

/* One range of stride 1 (or no list, @p none_lo..@p none_hi): its bounds. */
static bool
lnet_udsp_one_range(const struct cfs_expr_list *el, uint32_t none_lo, uint32_t none_hi, uint32_t *lo,
		    uint32_t *hi)
{
	if (el == NULL) {
		*lo = none_lo;
		*hi = none_hi;
		return true;
	}
	if (el->n != 1 || el->r[0].stride != 1) {
		return false;
	}
	*lo = el->r[0].lo;
	*hi = el->r[0].hi;
	return true;
}

static void
lnet_udsp_descr_bounds(struct lnet_udsp_descr *d)
{
	unsigned int i;

	d->bounds = lnet_udsp_one_range(d->net_num, 0, 0, &d->num_lo, &d->num_hi);
	for (i = 0; d->bounds && i < d->naddr; i++) {
		d->bounds = lnet_udsp_one_range(d->addr[i], 0, 0, &d->lo[i], &d->hi[i]);
	}
}

int
lnet_udsp_descr_parse(const char *str, struct lnet_udsp_descr *d)
{
	char buf[LNET_UDSP_DESCR_LEN];
	char *at;
	int rc;

	memset(d, 0, sizeof(*d));
	if (str == NULL || str[0] == '\0' || strlen(str) >= sizeof(buf)) {
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", str);
	at = strchr(buf, '@');
	if (at == NULL) {
		rc = lnet_udsp_net_parse(buf, d);
	} else {
		*at = '\0';
		rc = at == buf ? -EINVAL : lnet_udsp_net_parse(at + 1, d);
		if (rc == 0) {
			rc = lnet_udsp_addr_parse(buf, d);
		}
	}
	if (rc != 0) {
		lnet_udsp_descr_fini(d);
	} else {
		lnet_udsp_descr_bounds(d);
	}
	return rc;
}

int
lnet_udsp_descr_print(const struct lnet_udsp_descr *d, char *buf, size_t len)
{
	char net[32];
	size_t off = 0;
	unsigned int i;
	int n;

	if (len == 0) {
		return -ENOSPC;
	}
	buf[0] = '\0';
	if (!lnet_udsp_descr_present(d)) {
		return 0;
	}
	for (i = 0; i < d->naddr; i++) {
		if (i != 0) {
			if (off + 1 >= len) {
				return -ENOSPC;
			}
			buf[off++] = '.';
			buf[off] = '\0';
		}
		n = cfs_expr_list_print(buf + off, len - off, d->addr[i]);
		if (n < 0) {
			return n;
		}
		off += (size_t)n;
	}
	n = snprintf(buf + off, len - off, "%s%s", d->naddr != 0 ? "@" : "",
		     libcfs_lnd2str((int)d->net_type));
	if (n < 0 || (size_t)n >= len - off) {
		return -ENOSPC;
	}
	off += (size_t)n;
	if (d->net_num != NULL) {
		n = cfs_expr_list_print(net, sizeof(net), d->net_num);
		if (n < 0 || off + (size_t)n >= len) {
			return -ENOSPC;
		}
		memcpy(buf + off, net, (size_t)n + 1);
		off += (size_t)n;
	}
	return (int)off;
}

bool
lnet_udsp_match_net(const struct lnet_udsp_descr *d, uint32_t net)
{
	if (LNET_NETTYP(net) != d->net_type) {
		return false;
	}
	if (d->bounds) {
		return LNET_NETNUM(net) >= d->num_lo && LNET_NETNUM(net) <= d->num_hi;
	}
	if (d->net_num == NULL) {
		return LNET_NETNUM(net) == 0;
	}
	return cfs_expr_list_match(LNET_NETNUM(net), d->net_num);
}

bool
lnet_udsp_match_nid(const struct lnet_udsp_descr *d, const struct lnet_nid *nid)
{
	uint32_t addr;
	unsigned int i;

	/* the kernel matches 4-byte addresses only (a large NID never matches) */
	if (d->naddr == 0 || !lnet_nid_is_nid4(nid) || !lnet_udsp_match_net(d, lnet_nid_net(nid))) {
		return false;
	}
	addr = ntohl(nid->nid_addr[0]);
	if (d->bounds && d->naddr == 4) {
		for (i = 0; i < 4; i++) {
			uint32_t part = (addr >> (24 - 8 * i)) & 0xff;

			if (part < d->lo[i] || part > d->hi[i]) {
				return false;
			}
		}
		return true;
	}
	if (d->bounds) {
		return addr >= d->lo[0] && addr <= d->hi[0];
	}
	if (d->naddr == 1) {
		return cfs_expr_list_match(addr, d->addr[0]);
	}
	for (i = 0; i < 4; i++) {
		if (!cfs_expr_list_match((addr >> (24 - 8 * i)) & 0xff, d->addr[i])) {
			return false;
		}
	}
	return true;
}

static bool
lnet_udsp_expr_same(const struct cfs_expr_list *a, const struct cfs_expr_list *b)
{
	char ta[LNET_UDSP_DESCR_LEN];
	char tb[LNET_UDSP_DESCR_LEN];

	if (a == NULL || b == NULL) {
		return a == b;
	}
	/* equal text is equal ranges, in order, as the kernel compares them */
	return cfs_expr_list_print(ta, sizeof(ta), a) >= 0 &&
	       cfs_expr_list_print(tb, sizeof(tb), b) >= 0 && strcmp(ta, tb) == 0;
}

static bool
lnet_udsp_descr_same(const struct lnet_udsp_descr *a, const struct lnet_udsp_descr *b)
{
	unsigned int i;

	if (a->net_type != b->net_type || a->naddr != b->naddr ||
	    !lnet_udsp_expr_same(a->net_num, b->net_num)) {
		return false;
	}
	for (i = 0; i < a->naddr; i++) {
		if (!lnet_udsp_expr_same(a->addr[i], b->addr[i])) {
			return false;
		}
	}
	return true;
}

/* ---- rules ---- */

void
lnet_udsp_rule_free(struct lnet_udsp_rule *r)
{
	if (r == NULL) {
		return;
	}
	lnet_udsp_descr_fini(&r->src);
	lnet_udsp_descr_fini(&r->dst);
	lnet_udsp_descr_fini(&r->rte);
	free(r);
}

bool
lnet_udsp_rule_same(const struct lnet_udsp_rule *a, const struct lnet_udsp_rule *b)
{
	return lnet_udsp_descr_same(&a->src, &b->src) && lnet_udsp_descr_same(&a->dst, &b->dst) &&
	       lnet_udsp_descr_same(&a->rte, &b->rte);
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
	struct lnet_udsp_rule *r;

	*out = NULL;
	if (!has_src && !has_dst && !has_rte) {
		return lnet_udsp_rule_err(err, errlen, -EINVAL, "Missing required argument(s)");
	}
	if (has_src && has_dst && has_rte) {
		return lnet_udsp_rule_err(err, errlen, -EINVAL,
					  "The combination of src, dst and rte is not supported");
	}
	if (has_src && has_rte) {
		return lnet_udsp_rule_err(err, errlen, -EINVAL, "src and rte cannot be combined");
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
	if (has_src && lnet_udsp_descr_parse(src, &r->src) != 0) {
		lnet_udsp_rule_free(r);
		return lnet_udsp_rule_err(err, errlen, -EINVAL, "failed to parse src parameter");
	}
	if (has_dst && lnet_udsp_descr_parse(dst, &r->dst) != 0) {
		lnet_udsp_rule_free(r);
		return lnet_udsp_rule_err(err, errlen, -EINVAL, "failed to parse dst parameter");
	}
	if (has_rte && lnet_udsp_descr_parse(rte, &r->rte) != 0) {
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
		if (old->action == LNET_UDSP_ACTION_PRIORITY && r->action == LNET_UDSP_ACTION_PRIORITY &&
		    old->priority != r->priority) {
			old->priority = r->priority;
			s->gen++;
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
	s->gen++;
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
	memmove(&s->rules[idx], &s->rules[idx + 1], (s->n - (unsigned int)idx - 1) * sizeof(s->rules[0]));
	s->n--;
	s->gen++;
	return r;
}

bool
lnet_udsp_rule_reaches(const struct lnet_udsp_rule *r, const struct lnet_nid *nid)
{
	const struct lnet_udsp_descr *d = &r->dst;

	if (!lnet_udsp_descr_present(d)) {
		return false;
	}
	return d->naddr == 0 ? lnet_udsp_match_net(d, lnet_nid_net(nid)) : lnet_udsp_match_nid(d, nid);
}

unsigned int
lnet_udsp_rule_aspects(const struct lnet_udsp_rule *r)
{
	if (!lnet_udsp_descr_present(&r->dst)) {
		return 0;
	}
	if (r->action == LNET_UDSP_ACTION_PREF) {
		return lnet_udsp_descr_present(&r->src) ? LNET_UDSP_PREF_SRC :
		       lnet_udsp_descr_present(&r->rte) ? LNET_UDSP_PREF_RTE : 0;
	}
	/* a priority given to a pair or router rule applies to nothing */
	if (lnet_udsp_descr_present(&r->src) || lnet_udsp_descr_present(&r->rte)) {
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
		s->gen++;
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
	const struct lnet_udsp_descr *own = local ? &r->src : &r->dst;
	const struct lnet_udsp_descr *other = local ? &r->dst : &r->src;

	return r->action == LNET_UDSP_ACTION_PRIORITY && lnet_udsp_descr_present(own) &&
	       !lnet_udsp_descr_present(other) && !lnet_udsp_descr_present(&r->rte);
}

static uint32_t
lnet_udsp_net_prio(const struct lnet_udsp_set *s, bool local, uint32_t net)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		const struct lnet_udsp_rule *r = s->rules[i];
		const struct lnet_udsp_descr *d = local ? &r->src : &r->dst;

		if (lnet_udsp_is_prio(r, local) && d->naddr == 0 && lnet_udsp_match_net(d, net)) {
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
		const struct lnet_udsp_descr *d = local ? &r->src : &r->dst;

		if (lnet_udsp_is_prio(r, local) && lnet_udsp_match_nid(d, nid)) {
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
lnet_udsp_list_make(const struct lnet_udsp_descr *dst, const struct lnet_udsp_descr *match,
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
		if (!dup && lnet_udsp_match_nid(match, &cand[i])) {
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

		if (r->action != LNET_UDSP_ACTION_PREF || !lnet_udsp_descr_present(&r->dst)) {
			continue;
		}
		if (lnet_udsp_descr_present(&r->src)) {
			l = lnet_udsp_list_make(&r->dst, &r->src, local, nlocal, &rc);
			if (l != NULL) {
				out->src[out->nsrc++] = l;
			}
		} else if (lnet_udsp_descr_present(&r->rte)) {
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
		const struct lnet_udsp_descr *d = l[i]->dst;

		if (d->naddr == 0 ? lnet_udsp_match_net(d, lnet_nid_net(nid)) :
				    lnet_udsp_match_nid(d, nid)) {
			*n = l[i]->n;
			return l[i]->nids;
		}
	}
	*n = 0;
	return NULL;
}
