/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NID patterns: "10.0.0.[1-4]@tcp", "[13-14/1].[13-15/2].13.13@o2ib",
 * "[1-3]@gni", "*@tcp1", and plain IPv6 NIDs, separated by blanks.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "cfs_internal.h"

#define CFS_NIDLIST_MAX 256

struct cfs_nidrange {
	uint32_t net;
	bool any;  /* "*": every address */
	bool ipv6; /* one exact IPv6 address */
	uint32_t ipv6_addr[4];
	unsigned int nexpr; /* 4 for IPv4, 1 for numeric LNDs */
	struct cfs_expr_list *expr[4];
};

struct cfs_nidlist {
	unsigned int n;
	struct cfs_nidrange r[];
};

static void
cfs_nidrange_fini(struct cfs_nidrange *r)
{
	unsigned int i;

	for (i = 0; i < r->nexpr; i++) {
		cfs_expr_list_free(r->expr[i]);
	}
	r->nexpr = 0;
}

void
cfs_free_nidlist(struct cfs_nidlist *nl)
{
	unsigned int i;

	if (nl == NULL) {
		return;
	}
	for (i = 0; i < nl->n; i++) {
		cfs_nidrange_fini(&nl->r[i]);
	}
	free(nl);
}

/* One "addr@net" token. */
static int
cfs_nidrange_parse(char *tok, struct cfs_nidrange *r)
{
	char *at = strrchr(tok, '@');
	bool ip;

	memset(r, 0, sizeof(*r));
	if (at == NULL || at == tok || cfs_parse_net(at + 1, &r->net) != 0) {
		return -EINVAL;
	}
	*at = '\0';
	ip = cfs_lnd_is_ip((int)LNET_NETTYP(r->net));
	if (strcmp(tok, "*") == 0) {
		r->any = true;
		return 0;
	}
	if (ip && strchr(tok, ':') != NULL) {
		r->ipv6 = true;
		return inet_pton(AF_INET6, tok, r->ipv6_addr) == 1 ? 0 : -EINVAL;
	}
	return cfs_addr_exprs_parse(tok, ip, r->expr, &r->nexpr);
}

int
cfs_parse_nidlist(const char *str, size_t len, struct cfs_nidlist **out)
{
	struct cfs_nidlist *nl;
	char *copy;
	char *save = NULL;
	char *tok;
	int rc = 0;

	if (str == NULL || out == NULL || len == 0) {
		return -EINVAL;
	}
	copy = strndup(str, len);
	nl = calloc(1, sizeof(*nl) + CFS_NIDLIST_MAX * sizeof(nl->r[0]));
	if (copy == NULL || nl == NULL) {
		free(copy);
		free(nl);
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, " \t\n", &save); tok != NULL && rc == 0;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (nl->n == CFS_NIDLIST_MAX) {
			rc = -E2BIG;
			break;
		}
		rc = cfs_nidrange_parse(tok, &nl->r[nl->n]);
		nl->n++; /* counted even on failure so its expressions are freed */
	}
	free(copy);
	if (rc == 0 && nl->n == 0) {
		rc = -EINVAL;
	}
	if (rc != 0) {
		cfs_free_nidlist(nl);
		return rc;
	}
	*out = nl;
	return 0;
}

static bool
cfs_nidrange_match(const struct cfs_nidrange *r, const struct lnet_nid *nid)
{
	uint32_t addr;
	unsigned int i;

	if (lnet_nid_is_any(nid) || lnet_nid_net(nid) != r->net) {
		return false;
	}
	if (r->any) {
		return true;
	}
	if (r->ipv6) {
		return nid->nid_size == 12 && memcmp(nid->nid_addr, r->ipv6_addr, 16) == 0;
	}
	if (nid->nid_size != 0) {
		return false;
	}
	addr = ntohl(nid->nid_addr[0]);
	if (r->nexpr == 1) {
		return cfs_expr_list_match(addr, r->expr[0]);
	}
	for (i = 0; i < 4; i++) {
		if (!cfs_expr_list_match((addr >> (24 - 8 * i)) & 0xff, r->expr[i])) {
			return false;
		}
	}
	return true;
}

bool
cfs_match_nid(const struct lnet_nid *nid, const struct cfs_nidlist *nl)
{
	unsigned int i;

	for (i = 0; nid != NULL && nl != NULL && i < nl->n; i++) {
		if (cfs_nidrange_match(&nl->r[i], nid)) {
			return true;
		}
	}
	return false;
}

static void
cfs_nid_make(uint32_t net, uint32_t addr, struct lnet_nid *nid)
{
	lnet_nid4_to_nid(LNET_MKNID(net, addr), nid);
}

/* Append every NID of @p r to @p nids (capacity max). */
static int
cfs_nidrange_expand(const struct cfs_nidrange *r, unsigned int max, struct lnet_nid *nids,
		    unsigned int *n)
{
	uint32_t *v[4] = { NULL, NULL, NULL, NULL };
	int cnt[4] = { 1, 1, 1, 1 };
	unsigned int i;
	int rc = 0;

	if (r->any) {
		return -E2BIG;
	}
	if (r->ipv6) {
		if (*n == max) {
			return -E2BIG;
		}
		memset(&nids[*n], 0, sizeof(nids[0]));
		nids[*n].nid_size = 12;
		nids[*n].nid_type = (uint8_t)LNET_NETTYP(r->net);
		nids[*n].nid_num = htons((uint16_t)LNET_NETNUM(r->net));
		memcpy(nids[*n].nid_addr, r->ipv6_addr, 16);
		(*n)++;
		return 0;
	}
	for (i = 0; i < r->nexpr && rc >= 0; i++) {
		rc = cfs_expr_list_values(r->expr[i], max, &v[i]);
		cnt[i] = rc;
	}
	if (rc >= 0 && r->nexpr == 1) {
		for (i = 0; i < (unsigned int)cnt[0] && rc >= 0; i++) {
			rc = *n == max ? -E2BIG : 0;
			if (rc == 0) {
				cfs_nid_make(r->net, v[0][i], &nids[(*n)++]);
			}
		}
	} else if (rc >= 0) {
		int a, b, c, d;

		for (a = 0; a < cnt[0] && rc >= 0; a++)
			for (b = 0; b < cnt[1] && rc >= 0; b++)
				for (c = 0; c < cnt[2] && rc >= 0; c++)
					for (d = 0; d < cnt[3] && rc >= 0; d++) {
						rc = *n == max ? -E2BIG : 0;
						if (rc == 0) {
							cfs_nid_make(r->net,
								     v[0][a] << 24 | v[1][b] << 16 |
									     v[2][c] << 8 | v[3][d],
								     &nids[(*n)++]);
						}
					}
	}
	for (i = 0; i < 4; i++) {
		free(v[i]);
	}
	return rc < 0 ? rc : 0;
}

int
cfs_nidlist_expand(const struct cfs_nidlist *nl, unsigned int max, struct lnet_nid **out)
{
	struct lnet_nid *nids = calloc(max == 0 ? 1 : max, sizeof(*nids));
	unsigned int n = 0;
	unsigned int i;
	int rc = 0;

	if (nids == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < nl->n && rc == 0; i++) {
		rc = cfs_nidrange_expand(&nl->r[i], max, nids, &n);
	}
	if (rc != 0) {
		free(nids);
		return rc;
	}
	*out = nids;
	return (int)n;
}

static int
cfs_nidrange_print(char *buf, size_t len, const struct cfs_nidrange *r)
{
	char net[LNET_NIDSTR_SIZE];
	size_t off = 0;
	unsigned int i;
	int w;

	if (r->any || r->ipv6) {
		char a[INET6_ADDRSTRLEN] = "*";

		if (r->ipv6) {
			inet_ntop(AF_INET6, r->ipv6_addr, a, sizeof(a));
		}
		w = snprintf(buf, len, "%s@%s", a, libcfs_net2str_r(r->net, net, sizeof(net)));
		return w < 0 || (size_t)w >= len ? -ENOSPC : w;
	}
	for (i = 0; i < r->nexpr; i++) {
		if (i != 0) {
			if (off + 1 >= len) {
				return -ENOSPC;
			}
			buf[off++] = '.';
		}
		w = cfs_expr_list_print(buf + off, len - off, r->expr[i]);
		if (w < 0) {
			return w;
		}
		off += (size_t)w;
	}
	w = snprintf(buf + off, len - off, "@%s", libcfs_net2str_r(r->net, net, sizeof(net)));
	return w < 0 || (size_t)w >= len - off ? -ENOSPC : (int)(off + (size_t)w);
}

int
cfs_nidlist_print(char *buf, size_t len, const struct cfs_nidlist *nl)
{
	size_t off = 0;
	unsigned int i;

	if (len == 0) {
		return -ENOSPC;
	}
	buf[0] = '\0';
	for (i = 0; i < nl->n; i++) {
		int w;

		if (i != 0) {
			if (off + 1 >= len) {
				return -ENOSPC;
			}
			buf[off++] = ' ';
			buf[off] = '\0';
		}
		w = cfs_nidrange_print(buf + off, len - off, &nl->r[i]);
		if (w < 0) {
			return w;
		}
		off += (size_t)w;
	}
	return (int)off;
}
