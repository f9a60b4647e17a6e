/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * End-point addresses `NID:PID:portal:TMID` as text, and the sender a PUT's
 * header data names. The rules are the seed implementation's decoder's
 * (doc/xprt.md): a NID LNet can parse, decimal PID and portal, a TMID of
 * 1..4095 or `*`; TMID 0 is refused although the seed's examples use it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nidstr.h"
#include "xprt.h"

/*
 * A decimal u32 at *p, strictly digits (strtoul would take signs and
 * spaces), ending at @p end ('\0' or ':'); *p moves past the terminator.
 */
static int
xprt_addr_u32(const char **p, char end, uint32_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s < '0' || *s > '9') {
		return -EINVAL;
	}
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX) {
			return -EINVAL;
		}
		s++;
	}
	if (*s != end) {
		return -EINVAL;
	}
	*p = end == '\0' ? s : s + 1;
	*out = (uint32_t)v;
	return 0;
}

/* The NID before the first ':'; *p moves past that ':'. */
static int
xprt_addr_nid(const char **p, struct lnet_nid *nid)
{
	const char *colon = strchr(*p, ':');
	char text[XPRT_ADDR_NID_LEN];
	size_t n;

	if (colon == NULL) {
		return -EINVAL;
	}
	n = (size_t)(colon - *p);
	if (n == 0 || n >= sizeof(text)) {
		return -EINVAL;
	}
	memcpy(text, *p, n);
	text[n] = '\0';
	if (libcfs_strnid(nid, text) != 0 || lnet_nid_is_any(nid)) {
		return -EINVAL;
	}
	*p = colon + 1;
	return 0;
}

static int
xprt_addr_tmid(const char *p, uint32_t *tmid)
{
	int rc;

	if (strcmp(p, "*") == 0) {
		*tmid = XPRT_TMID_DYNAMIC;
		return 0;
	}
	rc = xprt_addr_u32(&p, '\0', tmid);
	if (rc != 0 || *tmid == 0 || *tmid > XPRT_TMID_MAX) {
		return -EINVAL;
	}
	return 0;
}

int
xprt_addr_parse(const char *text, struct xprt_addr *out)
{
	struct xprt_addr a;
	const char *p = text;

	if (text == NULL || out == NULL || strnlen(text, XPRT_ADDR_LEN) >= XPRT_ADDR_LEN) {
		return -EINVAL;
	}
	memset(&a, 0, sizeof(a));
	if (xprt_addr_nid(&p, &a.nid) != 0 || xprt_addr_u32(&p, ':', &a.pid) != 0 ||
	    xprt_addr_u32(&p, ':', &a.portal) != 0 || xprt_addr_tmid(p, &a.tmid) != 0) {
		return -EINVAL;
	}
	*out = a;
	return 0;
}

int
xprt_addr_format(const struct xprt_addr *a, char *buf, size_t len)
{
	char nid[LNET_NIDSTR_SIZE];
	int n;

	libcfs_nidstr_r(&a->nid, nid, sizeof(nid));
	if (a->tmid == XPRT_TMID_DYNAMIC) {
		n = snprintf(buf, len, "%s:%u:%u:*", nid, a->pid, a->portal);
	} else {
		n = snprintf(buf, len, "%s:%u:%u:%u", nid, a->pid, a->portal, a->tmid);
	}
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

int
xprt_addr_net_cmp(const char *a, const char *b)
{
	const char *ca = strchr(a, ':');
	const char *cb = strchr(b, ':');
	size_t la, lb;
	int rc;

	if (ca == NULL || cb == NULL) {
		return -1;
	}
	la = (size_t)(ca - a);
	lb = (size_t)(cb - b);
	rc = memcmp(a, b, la < lb ? la : lb);
	if (rc != 0) {
		return rc;
	}
	return la == lb ? 0 : (la < lb ? -1 : 1);
}

void
xprt_hdr_data_sender(uint64_t hdr_data, const struct lnet_nid *nid, uint32_t pid,
		     struct xprt_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (hdr_data == 0) {
		return;
	}
	out->nid = *nid;
	out->pid = pid;
	out->tmid = xprt_mb_tmid(hdr_data);
	out->portal = (uint32_t)xprt_mb_id(hdr_data);
}
