/* SPDX-License-Identifier: BSD-3-Clause */
/* NID, net and process id strings in both directions (lnet-facts §1.3). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "cfs_internal.h"

struct cfs_lnd_name {
	int type;
	const char *name;
	bool ip;
};

/* Every LND with a string form; numbers never change (lnet-facts §1.2). */
static const struct cfs_lnd_name cfs_lnds[] = {
	{ LNET_LND_SOCK, "tcp", true },    { LNET_LND_O2IB, "o2ib", true },
	{ LNET_LND_LO, "lo", false },      { LNET_LND_GNI, "gni", false },
	{ LNET_LND_GNIIP, "gip", false },  { LNET_LND_PTL4, "ptlf", false },
	{ LNET_LND_KFI, "kfi", false },    { LNET_LND_EFA, "efa", false },
	{ LNET_LND_BXI3, "bxi3f", false },
};

#define CFS_NLNDS (sizeof(cfs_lnds) / sizeof(cfs_lnds[0]))

static const struct cfs_lnd_name *
cfs_lnd_by_type(int type)
{
	unsigned int i;

	for (i = 0; i < CFS_NLNDS; i++) {
		if (cfs_lnds[i].type == type) {
			return &cfs_lnds[i];
		}
	}
	return NULL;
}

const char *
libcfs_lnd2str(int lnd)
{
	const struct cfs_lnd_name *l = cfs_lnd_by_type(lnd);

	return l == NULL ? NULL : l->name;
}

int
libcfs_str2lnd(const char *str)
{
	unsigned int i;

	for (i = 0; str != NULL && i < CFS_NLNDS; i++) {
		if (strcmp(cfs_lnds[i].name, str) == 0) {
			return cfs_lnds[i].type;
		}
	}
	return -1;
}

bool
cfs_lnd_is_ip(int lnd)
{
	const struct cfs_lnd_name *l = cfs_lnd_by_type(lnd);

	return l != NULL && l->ip;
}

char *
libcfs_net2str_r(uint32_t net, char *buf, size_t len)
{
	const char *name = libcfs_lnd2str((int)LNET_NETTYP(net));
	unsigned int num = LNET_NETNUM(net);

	if (net == LNET_NET_ANY) {
		snprintf(buf, len, "<?>");
	} else if (name == NULL) {
		snprintf(buf, len, "<%u:%u>", LNET_NETTYP(net), num);
	} else if (num == 0) {
		snprintf(buf, len, "%s", name); /* tcp0 prints as tcp */
	} else {
		snprintf(buf, len, "%s%u", name, num);
	}
	return buf;
}

char *
libcfs_nidstr_r(const struct lnet_nid *nid, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];
	char net[LNET_NIDSTR_SIZE];

	if (lnet_nid_is_any(nid)) {
		snprintf(buf, len, "<?>");
		return buf;
	}
	libcfs_net2str_r(lnet_nid_net(nid), net, sizeof(net));
	if (cfs_lnd_is_ip(nid->nid_type) && nid->nid_size == 12) {
		inet_ntop(AF_INET6, nid->nid_addr, addr, sizeof(addr));
	} else if (cfs_lnd_is_ip(nid->nid_type) && nid->nid_size == 0) {
		inet_ntop(AF_INET, nid->nid_addr, addr, sizeof(addr));
	} else if (nid->nid_size == 0) {
		snprintf(addr, sizeof(addr), "%u", ntohl(nid->nid_addr[0]));
	} else {
		snprintf(addr, sizeof(addr), "<%u bytes>", lnet_nid_addr_bytes(nid));
	}
	snprintf(buf, len, "%s@%s", addr, net);
	return buf;
}

char *
libcfs_nid2str_r(lnet_nid_t nid4, char *buf, size_t len)
{
	struct lnet_nid nid;

	lnet_nid4_to_nid(nid4, &nid);
	return libcfs_nidstr_r(&nid, buf, len);
}

char *
libcfs_idstr_r(const struct lnet_processid *id, char *buf, size_t len)
{
	char nid[LNET_NIDSTR_SIZE];
	bool user = (id->pid & LNET_PID_USERFLAG) != 0 && id->pid != LNET_PID_ANY;

	libcfs_nidstr_r(&id->nid, nid, sizeof(nid));
	if (id->pid == LNET_PID_ANY) {
		snprintf(buf, len, "<?>-%s", nid);
	} else {
		snprintf(buf, len, "%s%u-%s", user ? "U" : "", id->pid & ~LNET_PID_USERFLAG, nid);
	}
	return buf;
}

#define CFS_STR_RING 8

/* Log helpers: each thread cycles through a few buffers. */
static char *
cfs_str_ring(void)
{
	static __thread char ring[CFS_STR_RING][LNET_NIDSTR_SIZE];
	static __thread unsigned int next;

	return ring[next++ % CFS_STR_RING];
}

const char *
libcfs_net2str(uint32_t net)
{
	return libcfs_net2str_r(net, cfs_str_ring(), LNET_NIDSTR_SIZE);
}

const char *
libcfs_nid2str(lnet_nid_t nid)
{
	return libcfs_nid2str_r(nid, cfs_str_ring(), LNET_NIDSTR_SIZE);
}

const char *
libcfs_nidstr(const struct lnet_nid *nid)
{
	return libcfs_nidstr_r(nid, cfs_str_ring(), LNET_NIDSTR_SIZE);
}

const char *
libcfs_idstr(const struct lnet_processid *id)
{
	return libcfs_idstr_r(id, cfs_str_ring(), LNET_NIDSTR_SIZE);
}

/* ---- parsing ---- */

/* Copy @p str without surrounding blanks into @p out; false if too long or empty. */
bool
cfs_trim(const char *str, size_t len, char *out, size_t outlen)
{
	while (len > 0 && isspace((unsigned char)*str)) {
		str++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)str[len - 1])) {
		len--;
	}
	if (len == 0 || len >= outlen) {
		return false;
	}
	memcpy(out, str, len);
	out[len] = '\0';
	return true;
}

/* A decimal number of at most @p max, the whole of @p str. */
bool
cfs_parse_u32(const char *str, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;

	if (*str == '\0') {
		return false;
	}
	for (; *str != '\0'; str++) {
		if (!isdigit((unsigned char)*str)) {
			return false;
		}
		v = v * 10 + (uint64_t)(*str - '0');
		if (v > max) {
			return false;
		}
	}
	*out = (uint32_t)v;
	return true;
}

/*
 * "name" or "nameN": the LND type and net number. Names may hold digits
 * ("o2ib", "bxi3f"), so the known name must be a prefix followed by digits.
 */
int
cfs_parse_net(const char *str, uint32_t *net)
{
	unsigned int i;

	for (i = 0; i < CFS_NLNDS; i++) {
		size_t n = strlen(cfs_lnds[i].name);
		uint32_t num = 0;

		if (strncmp(str, cfs_lnds[i].name, n) != 0) {
			continue;
		}
		if (str[n] != '\0' && !cfs_parse_u32(str + n, 0xffff, &num)) {
			continue;
		}
		*net = LNET_MKNET((uint32_t)cfs_lnds[i].type, num);
		return 0;
	}
	return -EINVAL;
}

uint32_t
libcfs_str2net(const char *str)
{
	char buf[LNET_NIDSTR_SIZE];
	uint32_t net;

	if (str == NULL || !cfs_trim(str, strlen(str), buf, sizeof(buf)) ||
	    cfs_parse_net(buf, &net) != 0) {
		return LNET_NET_ANY;
	}
	return net;
}

/* Strict dotted quad: four decimal parts 0-255. */
bool
cfs_parse_ipv4(const char *str, uint32_t *addr)
{
	char part[4];
	uint32_t v = 0;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		size_t n = 0;
		uint32_t octet;

		while (*str != '.' && *str != '\0' && n < sizeof(part) - 1) {
			part[n++] = *str++;
		}
		part[n] = '\0';
		if (!cfs_parse_u32(part, 255, &octet) || (i < 3 && *str != '.')) {
			return false;
		}
		if (i < 3) {
			str++;
		}
		v = (v << 8) | octet;
	}
	if (*str != '\0') {
		return false;
	}
	*addr = v;
	return true;
}

static int
cfs_parse_addr(const char *addr, uint32_t net, struct lnet_nid *nid, char *err, size_t errlen)
{
	int lnd = (int)LNET_NETTYP(net);
	uint32_t v;

	memset(nid, 0, sizeof(*nid));
	nid->nid_type = (uint8_t)lnd;
	nid->nid_num = htons((uint16_t)LNET_NETNUM(net));
	if (!cfs_lnd_is_ip(lnd)) {
		if (!cfs_parse_u32(addr, UINT32_MAX, &v)) {
			return cfs_err(err, errlen, "\"%s\" is not a number (0-4294967295) for %s",
				       addr, libcfs_lnd2str(lnd));
		}
		nid->nid_addr[0] = htonl(v);
		return 0;
	}
	if (cfs_parse_ipv4(addr, &v)) {
		nid->nid_addr[0] = htonl(v);
		return 0;
	}
	if (strchr(addr, ':') != NULL && inet_pton(AF_INET6, addr, nid->nid_addr) == 1) {
		nid->nid_size = 12;
		return 0;
	}
	/* Host names are not resolved. */
	return cfs_err(err, errlen, "\"%s\" is not an IPv4 or IPv6 address", addr);
}

int
libcfs_strnid_err(struct lnet_nid *nid, const char *str, char *err, size_t errlen)
{
	char buf[LNET_NIDSTR_SIZE];
	char *at;
	uint32_t net;

	if (nid == NULL || str == NULL) {
		return cfs_err(err, errlen, "no NID");
	}
	if (!cfs_trim(str, strlen(str), buf, sizeof(buf))) {
		return cfs_err(err, errlen, "empty or too long NID");
	}
	if (strcmp(buf, "<?>") == 0) {
		*nid = LNET_ANY_NID;
		return 0;
	}
	at = strrchr(buf, '@');
	if (at == NULL || at == buf) {
		return cfs_err(err, errlen, "\"%s\": expected <address>@<net>", buf);
	}
	*at = '\0';
	if (cfs_parse_net(at + 1, &net) != 0) {
		return cfs_err(err, errlen,
			       "\"%s\" is not a network (tcp, o2ib, lo, gni, kfi, ...)", at + 1);
	}
	return cfs_parse_addr(buf, net, nid, err, errlen);
}

int
libcfs_strnid(struct lnet_nid *nid, const char *str)
{
	return libcfs_strnid_err(nid, str, NULL, 0);
}

lnet_nid_t
libcfs_str2nid(const char *str)
{
	struct lnet_nid nid;

	if (libcfs_strnid(&nid, str) != 0 || !lnet_nid_is_nid4(&nid)) {
		return LNET_NID_ANY;
	}
	return lnet_nid_to_nid4(&nid);
}

int
libcfs_strid(struct lnet_processid *id, const char *str)
{
	char buf[LNET_NIDSTR_SIZE];
	const char *p = buf;
	char *dash;
	uint32_t pid;
	bool user = false;

	if (id == NULL || str == NULL || !cfs_trim(str, strlen(str), buf, sizeof(buf))) {
		return -EINVAL;
	}
	dash = strchr(buf, '-');
	if (dash == NULL) {
		id->pid = LNET_PID_LUSTRE;
		return libcfs_strnid(&id->nid, buf);
	}
	*dash = '\0';
	if (*p == 'U') {
		user = true;
		p++;
	}
	if (!cfs_parse_u32(p, ~LNET_PID_USERFLAG, &pid)) {
		return -EINVAL;
	}
	id->pid = user ? pid | LNET_PID_USERFLAG : pid;
	return libcfs_strnid(&id->nid, dash + 1);
}
