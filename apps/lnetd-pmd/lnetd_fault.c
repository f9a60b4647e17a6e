/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /lnet/fault_{drop,delay}_{add,del,reset,show}: the rules behind lnetctl
 * fault, on the telemetry socket. NIDs are the kernel's rule forms ("*" or
 * "<?>" any, "*@NET" or 255.255.255.255@NET any of a net); numbers are
 * decimal or 0x-hex. show pages: "r0".."rN" in match order (newest first)
 * and "next", the position of the next page (0: the last page).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "cfs.h"
#include "lnet_fault_ctl.h"
#include "lnetd.h"

/* A reply holds 16 KiB: a rule is about 600 bytes of JSON. */
#define LNETD_FAULT_PAGE 16

static enum lnet_fault_kind
lnetd_fault_kind(const char *cmd)
{
	return strstr(cmd, "_delay_") != NULL ? LNET_FAULT_DELAY : LNET_FAULT_DROP;
}

/* An optional NID parameter (any when absent); false when it does not parse. */
static bool
lnetd_fault_nid(const char *params, const char *key, struct lnet_nid *nid)
{
	char val[LNET_NIDSTR_SIZE];

	*nid = LNET_ANY_NID;
	return !lnetd_param(params, key, val, sizeof(val)) || lnet_fault_nid_parse(val, nid) == 0;
}

/* An optional number up to @p max (0 when absent); false when it is not one. */
static bool
lnetd_fault_num(const char *params, const char *key, uint64_t max, uint64_t *out)
{
	char val[32];
	char *end = NULL;

	*out = 0;
	if (!lnetd_param(params, key, val, sizeof(val))) {
		return true;
	}
	errno = 0;
	*out = strtoull(val, &end, 0);
	return val[0] != '\0' && val[0] != '-' && *end == '\0' && errno == 0 && *out <= max;
}

/* The attributes of an add, in @p err what is malformed. */
static int
lnetd_fault_attr(const char *params, struct lnet_fault_attr *a, char *err, size_t errlen)
{
	static const char *const u32s[] = {
		"msgs", "rate", "interval", "health", "random", "drop_all", "latency",
	};
	uint64_t v[sizeof(u32s) / sizeof(u32s[0])];
	unsigned int i;

	memset(a, 0, sizeof(*a));
	if (!lnetd_fault_nid(params, "src", &a->src) || !lnetd_fault_nid(params, "dst", &a->dst) ||
	    !lnetd_fault_nid(params, "local_nid", &a->local_nid)) {
		snprintf(err, errlen, "src, dst and local_nid take a NID, *@NET or *");
		return -EINVAL;
	}
	if (!lnetd_fault_num(params, "portals", UINT64_MAX, &a->ptl_mask)) {
		snprintf(err, errlen, "portals: not a number");
		return -EINVAL;
	}
	for (i = 0; i < sizeof(u32s) / sizeof(u32s[0]); i++) {
		if (!lnetd_fault_num(params, u32s[i], UINT32_MAX, &v[i])) {
			snprintf(err, errlen, "%s: not a number (0 to 4294967295)", u32s[i]);
			return -EINVAL;
		}
	}
	a->msg_mask = (uint32_t)v[0];
	a->rate = (uint32_t)v[1];
	a->interval = (uint32_t)v[2];
	a->health_mask = (uint32_t)v[3];
	a->random = v[4] != 0;
	a->drop_all = v[5] != 0;
	a->latency = (uint32_t)v[6];
	return 0;
}

/* /lnet/fault_*_add,src=,dst=[,local_nid=][,portals=][,msgs=],rate=|interval=[,...] */
static int
lnetd_fault_add(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_fault_attr a;
	char err[256] = "";
	int rc = lnetd_fault_attr(params, &a, err, sizeof(err));

	if (rc == 0) {
		rc = lnet_fault_ctl_add(lnetd_fault_kind(cmd), &a, err, sizeof(err));
	}
	return lnetd_reply_status(d, rc, err);
}

/* /lnet/fault_*_del[,src=][,dst=]: the rules from src to dst (absent: any); "deleted": how many. */
static int
lnetd_fault_del(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_nid src;
	struct lnet_nid dst;
	int rc;

	if (!lnetd_fault_nid(params, "src", &src) || !lnetd_fault_nid(params, "dst", &dst)) {
		return lnetd_reply_status(d, -EINVAL, "src and dst take a NID, *@NET or *");
	}
	rc = lnet_fault_ctl_del(lnetd_fault_kind(cmd), &src, &dst);
	lnetd_reply_status(d, rc < 0 ? rc : 0, rc == -ENOENT ? "no rule from src to dst" : "");
	if (rc >= 0) {
		rte_tel_data_add_dict_int(d, "deleted", rc);
	}
	return 0;
}

/* /lnet/fault_*_reset: zero every rule's counters. */
static int
lnetd_fault_reset(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)params;
	return lnetd_reply_status(d, lnet_fault_ctl_reset(lnetd_fault_kind(cmd)), "");
}

static void
lnetd_fault_nid_add(struct rte_tel_data *e, const char *key, const struct lnet_nid *nid)
{
	char buf[LNET_NIDSTR_SIZE];

	rte_tel_data_add_dict_string(e, key, libcfs_nidstr_r(nid, buf, sizeof(buf)));
}

/* One rule: what it matches, how it fires, its counters. */
static int
lnetd_fault_rule(struct rte_tel_data *d, unsigned int k, enum lnet_fault_kind kind,
		 const struct lnet_fault_info *r)
{
	struct rte_tel_data *e = rte_tel_data_alloc();
	char key[16];

	if (e == NULL) {
		return -ENOMEM;
	}
	rte_tel_data_start_dict(e);
	lnetd_fault_nid_add(e, "src", &r->attr.src);
	lnetd_fault_nid_add(e, "dst", &r->attr.dst);
	lnetd_fault_nid_add(e, "local_nid", &r->attr.local_nid);
	rte_tel_data_add_dict_u64(e, "portals", r->attr.ptl_mask);
	rte_tel_data_add_dict_u64(e, "msgs", r->attr.msg_mask);
	rte_tel_data_add_dict_u64(e, "rate", r->attr.rate);
	rte_tel_data_add_dict_u64(e, "interval", r->attr.interval);
	if (kind == LNET_FAULT_DROP) {
		rte_tel_data_add_dict_u64(e, "health", r->attr.health_mask);
		rte_tel_data_add_dict_u64(e, "random", r->attr.random);
		rte_tel_data_add_dict_u64(e, "drop_all", r->attr.drop_all);
		rte_tel_data_add_dict_u64(e, "dropped", r->stat.fired);
	} else {
		rte_tel_data_add_dict_u64(e, "latency", r->attr.latency);
		rte_tel_data_add_dict_u64(e, "delayed", r->stat.fired);
	}
	rte_tel_data_add_dict_u64(e, "count", r->stat.count);
	rte_tel_data_add_dict_u64(e, "put", r->stat.put);
	rte_tel_data_add_dict_u64(e, "ack", r->stat.ack);
	rte_tel_data_add_dict_u64(e, "get", r->stat.get);
	rte_tel_data_add_dict_u64(e, "reply", r->stat.reply);
	snprintf(key, sizeof(key), "r%u", k);
	return rte_tel_data_add_dict_container(d, key, e, 0);
}

/* /lnet/fault_*_show[,start=N] */
static int
lnetd_fault_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	enum lnet_fault_kind kind = lnetd_fault_kind(cmd);
	struct lnet_fault_info rules[LNETD_FAULT_PAGE];
	unsigned int total = 0;
	uint64_t start;
	int n;
	int i;

	if (!lnetd_fault_num(params, "start", UINT32_MAX, &start)) {
		return lnetd_reply_status(d, -EINVAL, "start: not a number");
	}
	n = lnet_fault_ctl_list(kind, (unsigned int)start, rules, LNETD_FAULT_PAGE, &total);
	if (n < 0) {
		return lnetd_reply_status(d, n, "");
	}
	lnetd_reply_status(d, 0, "");
	for (i = 0; i < n; i++) {
		if (lnetd_fault_rule(d, (unsigned int)i, kind, &rules[i]) != 0) {
			return -ENOMEM;
		}
	}
	rte_tel_data_add_dict_u64(d, "total", total);
	rte_tel_data_add_dict_u64(d, "next", start + (uint64_t)n < total ? start + (uint64_t)n : 0);
	return 0;
}

int
lnetd_fault_register(void)
{
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} cmds[] = {
		{ "/lnet/fault_drop_add", lnetd_fault_add,
		  "Add a drop rule. Params: src, dst, local_nid (NID, *@NET, *), portals, msgs, "
		  "rate or interval, health, random=1, drop_all=1" },
		{ "/lnet/fault_drop_del", lnetd_fault_del,
		  "Delete the drop rules from src to dst (absent: any)" },
		{ "/lnet/fault_drop_reset", lnetd_fault_reset, "Zero the drop rules' counters" },
		{ "/lnet/fault_drop_show", lnetd_fault_show,
		  "Drop rules and their counters, paged. Params: start=N" },
		{ "/lnet/fault_delay_add", lnetd_fault_add,
		  "Add a delay rule. Params: src, dst, local_nid (NID, *@NET, *), portals, msgs, "
		  "rate or interval, latency (seconds)" },
		{ "/lnet/fault_delay_del", lnetd_fault_del,
		  "Delete the delay rules from src to dst (absent: any)" },
		{ "/lnet/fault_delay_reset", lnetd_fault_reset, "Zero the delay rules' counters" },
		{ "/lnet/fault_delay_show", lnetd_fault_show,
		  "Delay rules and their counters, paged. Params: start=N" },
	};
	unsigned int i;
	int rc = 0;

	for (i = 0; rc == 0 && i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		rc = lnetd_telemetry_add(cmds[i].cmd, cmds[i].fn, cmds[i].help);
	}
	return rc;
}
