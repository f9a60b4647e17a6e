/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NID descriptors as lnetctl's UDSP rules take them (the kernel's
 * cfs_parse_nid_parts, cfs_match_nid_net, cfs_match_net): a net type, the
 * net numbers it takes, and for a NID descriptor an expression per
 * address part. Shared by the node's rules (lib/lnet/core/lnet_udsp.c) and the
 * configuration checks (apps/common/lnetcfg.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "cfs_internal.h"

void
cfs_nid_parts_fini(struct cfs_nid_parts *d)
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
cfs_nid_parts_lnd(const char *str, size_t *len)
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
cfs_nid_parts_net(const char *str, struct cfs_nid_parts *d)
{
	size_t n;
	int type = cfs_nid_parts_lnd(str, &n);
	const char *num = str + n;
	const char *bracket = strchr(num, '[');
	const char *star = strchr(num, '*');

	if (type <= 0) {
		return -EINVAL; /* unknown, or 0 (the kernel's "no descriptor") */
	}
	d->net_type = (uint32_t)type;
	/* the kernel refuses "*[" and reads the numbers from any '[' on */
	if (bracket != NULL && star != NULL && star < bracket) {
		return -EINVAL;
	}
	num = bracket != NULL ? bracket : num;
	if (*num == '\0') {
		return 0;
	}
	return cfs_expr_list_parse(num, strlen(num), 0, UINT32_MAX, &d->net_num);
}

/* Four dotted parts for IP LNDs, one number expression for the others. */
static int
cfs_nid_parts_addr(const char *addr, struct cfs_nid_parts *d)
{
	return cfs_addr_exprs_parse(addr, cfs_lnd_is_ip((int)d->net_type), d->addr, &d->naddr);
}

/* One range of stride 1 (or no list, @p none_lo..@p none_hi): its bounds. */
static bool
cfs_nid_parts_range(const struct cfs_expr_list *el, uint32_t none_lo, uint32_t none_hi,
		    uint32_t *lo, uint32_t *hi)
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
cfs_nid_parts_bounds(struct cfs_nid_parts *d)
{
	unsigned int i;

	d->bounds = cfs_nid_parts_range(d->net_num, 0, 0, &d->num_lo, &d->num_hi);
	for (i = 0; d->bounds && i < d->naddr; i++) {
		d->bounds = cfs_nid_parts_range(d->addr[i], 0, 0, &d->lo[i], &d->hi[i]);
	}
}

int
cfs_nid_parts_parse(const char *str, struct cfs_nid_parts *d)
{
	char buf[CFS_NID_PARTS_LEN];
	char *at;
	int rc;

	memset(d, 0, sizeof(*d));
	if (str == NULL || str[0] == '\0' || strlen(str) >= sizeof(buf)) {
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", str);
	at = strchr(buf, '@');
	if (at == NULL) {
		rc = cfs_nid_parts_net(buf, d);
	} else {
		*at = '\0';
		rc = at == buf ? -EINVAL : cfs_nid_parts_net(at + 1, d);
		if (rc == 0) {
			rc = cfs_nid_parts_addr(buf, d);
		}
	}
	if (rc != 0) {
		cfs_nid_parts_fini(d);
	} else {
		cfs_nid_parts_bounds(d);
	}
	return rc;
}

int
cfs_nid_parts_print(const struct cfs_nid_parts *d, char *buf, size_t len)
{
	char net[32];
	size_t off = 0;
	unsigned int i;
	int n;

	if (len == 0) {
		return -ENOSPC;
	}
	buf[0] = '\0';
	if (!cfs_nid_parts_present(d)) {
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
cfs_nid_parts_match_net(const struct cfs_nid_parts *d, uint32_t net)
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
cfs_nid_parts_match_nid(const struct cfs_nid_parts *d, const struct lnet_nid *nid)
{
	uint32_t addr;
	unsigned int i;

	/* the kernel matches 4-byte addresses only (a large NID never matches) */
	if (d->naddr == 0 || !lnet_nid_is_nid4(nid) ||
	    !cfs_nid_parts_match_net(d, lnet_nid_net(nid))) {
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

/*
 * The same ranges in the same order, as the kernel compares them; the
 * stride of a one-value range means nothing ("[4-4/2]" is "4", which is
 * how it prints).
 */
static bool
cfs_nid_parts_expr_same(const struct cfs_expr_list *a, const struct cfs_expr_list *b)
{
	unsigned int i;

	if (a == NULL || b == NULL || a->n != b->n) {
		return a == b;
	}
	for (i = 0; i < a->n; i++) {
		const struct cfs_range_expr *x = &a->r[i];
		const struct cfs_range_expr *y = &b->r[i];

		if (x->lo != y->lo || x->hi != y->hi ||
		    (x->lo != x->hi && x->stride != y->stride)) {
			return false;
		}
	}
	return true;
}

bool
cfs_nid_parts_same(const struct cfs_nid_parts *a, const struct cfs_nid_parts *b)
{
	unsigned int i;

	if (a->net_type != b->net_type || a->naddr != b->naddr ||
	    !cfs_nid_parts_expr_same(a->net_num, b->net_num)) {
		return false;
	}
	for (i = 0; i < a->naddr; i++) {
		if (!cfs_nid_parts_expr_same(a->addr[i], b->addr[i])) {
			return false;
		}
	}
	return true;
}

const char *
cfs_udsp_shape_error(bool src, bool dst, bool rte)
{
	if (!src && !dst && !rte) {
		return "Missing required argument(s)";
	}
	if (src && dst && rte) {
		return "The combination of src, dst and rte is not supported";
	}
	if (src && rte) {
		return "src and rte cannot be combined";
	}
	return NULL;
}
