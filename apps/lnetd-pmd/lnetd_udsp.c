/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /lnet/udsp_{add,del,show,stats}: the rules behind lnetctl udsp. A
 * descriptor travels with its commas as ';' (parameters are comma
 * separated). status is what the kernel's lnetctl prints as errno: -22
 * for what its library refuses (lnet_ctl_udsp_add's -EINVAL), +errno for
 * what the kernel module refused or failed on add, -1 for a failed delete.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "lnet_ctl.h"
#include "lnetd.h"
#include "rt.h"
#include "lnp_build_config.h"

/* A reply holds 16 KiB: a rule is under 1 KiB of JSON. */
#define LNETD_UDSP_PAGE 12

/* A descriptor parameter, ';' back to ','; false when absent. */
static bool
lnetd_udsp_descr(const char *params, const char *key, char *val, size_t len)
{
	char *p;

	if (!lnetd_param(params, key, val, len)) {
		val[0] = '\0';
		return false;
	}
	for (p = val; *p != '\0'; p++) {
		*p = *p == ';' ? ',' : *p;
	}
	return true;
}

/* An optional integer parameter (@p def when absent); false when it is not one. */
static bool
lnetd_udsp_long(const char *params, const char *key, long min, long def, long *out)
{
	char val[32];
	char *end = NULL;

	*out = def;
	if (!lnetd_param(params, key, val, sizeof(val))) {
		return true;
	}
	errno = 0;
	*out = strtol(val, &end, 10);
	return val[0] != '\0' && *end == '\0' && errno == 0 && *out >= min && *out <= INT32_MAX;
}

/* /lnet/udsp_add[,src=][,dst=][,rte=][,priority=P][,idx=N] */
static int
lnetd_udsp_add(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char src[LNET_CTL_UDSP_DESCR_LEN];
	char dst[LNET_CTL_UDSP_DESCR_LEN];
	char rte[LNET_CTL_UDSP_DESCR_LEN];
	char err[300] = "";
	long priority;
	long idx;
	int rc;

	(void)cmd;
	lnetd_udsp_descr(params, "src", src, sizeof(src));
	lnetd_udsp_descr(params, "dst", dst, sizeof(dst));
	lnetd_udsp_descr(params, "rte", rte, sizeof(rte));
	if (!lnetd_udsp_long(params, "priority", 0, -1, &priority) ||
	    !lnetd_udsp_long(params, "idx", 0, -1, &idx)) {
		return lnetd_reply_status(d, -EINVAL, "priority and idx take a number >= 0");
	}
	rc = lnet_ctl_udsp_add(src, dst, rte, priority, (int)idx, err, sizeof(err));
	/* -EINVAL: the checks the kernel lnetctl's library makes; the rest, the module's (+errno) */
	if (rc != 0 && rc != -EINVAL) {
		rc = -rc;
	}
	return lnetd_reply_status(d, rc, err);
}

/* /lnet/udsp_del,idx=N | all=1 */
static int
lnetd_udsp_del(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char descr[128];
	char all[8];
	long idx;
	int rc;

	(void)cmd;
	if (!lnetd_udsp_long(params, "idx", 0, -1, &idx)) {
		return lnetd_reply_status(d, -EINVAL, "idx takes a number >= 0");
	}
	if (lnetd_param(params, "all", all, sizeof(all)) && strcmp(all, "1") == 0) {
		idx = -1;
	} else if (idx < 0) {
		return lnetd_reply_status(d, -EINVAL, "idx or all=1 is needed");
	}
	rc = lnet_ctl_udsp_del((int)idx);
	if (rc == 0) {
		return lnetd_reply_status(d, 0, "");
	}
	snprintf(descr, sizeof(descr), "cannot del udsp: %s", strerror(-rc));
	return lnetd_reply_status(d, -1, descr); /* the kernel's lnetctl shows the ioctl's -1 */
}

static int
lnetd_udsp_rule(struct rte_tel_data *d, unsigned int k, const struct lnet_ctl_udsp *r)
{
	struct rte_tel_data *e = rte_tel_data_alloc();
	char key[16];

	if (e == NULL) {
		return -ENOMEM;
	}
	rte_tel_data_start_dict(e);
	rte_tel_data_add_dict_int(e, "idx", (int)r->idx);
	if (r->src[0] != '\0') {
		rte_tel_data_add_dict_string(e, "src", r->src);
	}
	if (r->dst[0] != '\0') {
		rte_tel_data_add_dict_string(e, "dst", r->dst);
	}
	if (r->rte[0] != '\0') {
		rte_tel_data_add_dict_string(e, "rte", r->rte);
	}
	if (r->has_priority) {
		rte_tel_data_add_dict_u64(e, "priority", r->priority);
	}
	snprintf(key, sizeof(key), "r%u", k);
	return rte_tel_data_add_dict_container(d, key, e, 0);
}

/* /lnet/udsp_show[,idx=N][,start=N] */
static int
lnetd_udsp_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_ctl_udsp *rules;
	unsigned int total = 0;
	long start;
	long idx;
	int n;
	int i;

	(void)cmd;
	if (!lnetd_udsp_long(params, "start", 0, 0, &start) ||
	    !lnetd_udsp_long(params, "idx", 0, -1, &idx)) {
		return lnetd_reply_status(d, -EINVAL, "idx and start take a number >= 0");
	}
	rules = calloc(LNETD_UDSP_PAGE, sizeof(*rules));
	if (rules == NULL) {
		return lnetd_reply_status(d, -ENOMEM, "out of memory");
	}
	n = lnet_ctl_udsp_list(idx >= 0 ? (unsigned int)idx : (unsigned int)start, rules,
			       idx >= 0 ? 1 : LNETD_UDSP_PAGE, &total);
	if (n < 0) {
		free(rules);
		return lnetd_reply_status(d, n, "");
	}
	lnetd_reply_status(d, 0, "");
	for (i = 0; i < n; i++) {
		if (lnetd_udsp_rule(d, (unsigned int)i, &rules[i]) != 0) {
			free(rules);
			return -ENOMEM;
		}
	}
	free(rules);
	rte_tel_data_add_dict_u64(d, "total", total);
	rte_tel_data_add_dict_u64(d, "next",
				  idx < 0 && (unsigned long)start + (unsigned long)n < total ?
					  (uint64_t)start + (uint64_t)n :
					  0);
	return 0;
}

/* /lnet/udsp_stats: what applying the rules has cost the management lcore. */
static int
lnetd_udsp_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_ctl_udsp_stats st;
	int rc = lnet_ctl_udsp_stats(&st);

	(void)cmd;
	(void)params;
	lnetd_reply_status(d, rc, "");
	if (rc == 0) {
		rte_tel_data_add_dict_u64(d, "rules", st.rules);
		rte_tel_data_add_dict_u64(d, "applies", st.applies);
		rte_tel_data_add_dict_u64(d, "peers_updated", st.peers_updated);
		rte_tel_data_add_dict_u64(d, "last_apply_us", st.last_apply_us);
		rte_tel_data_add_dict_u64(d, "last_busy_us", st.last_busy_us);
		rte_tel_data_add_dict_u64(d, "max_busy_us", st.max_busy_us);
		rte_tel_data_add_dict_u64(d, "max_slice_us", st.max_slice_us);
	}
	return 0;
}

/*
 * /lnet/lcore_stats[,reset=1]: each logical lcore's loop counters, "l0"
 * the management lcore then the data lcores; reset=1 starts max_gap_us
 * again (the benchmarks read the longest stall over a window with it).
 */
static int
lnetd_lcore_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_ctl_lcore lc[LNP_MAX_CPTS + 1];
	char val[8];
	bool reset = lnetd_param(params, "reset", val, sizeof(val)) && strcmp(val, "1") == 0;
	int n = lnet_ctl_lcore_stats(lc, LNP_MAX_CPTS + 1, reset);
	int i;

	(void)cmd;
	lnetd_reply_status(d, n < 0 ? n : 0, "");
	rte_tel_data_add_dict_u64(d, "stall_threshold_us", lnet_ctl_stall_threshold_us());
	rte_tel_data_add_dict_u64(d, "log_dropped", rt_log_dropped());
	for (i = 0; i < n; i++) {
		struct rte_tel_data *e = rte_tel_data_alloc();
		char key[16];

		if (e == NULL) {
			return -ENOMEM;
		}
		rte_tel_data_start_dict(e);
		rte_tel_data_add_dict_string(e, "role", lc[i].mgmt ? "mgmt" : "data");
		rte_tel_data_add_dict_int(e, "cpt", lc[i].cpt);
		rte_tel_data_add_dict_u64(e, "loops", lc[i].loops);
		rte_tel_data_add_dict_u64(e, "busy_loops", lc[i].busy_loops);
		rte_tel_data_add_dict_u64(e, "msgs", lc[i].msgs);
		rte_tel_data_add_dict_u64(e, "timers", lc[i].timers);
		rte_tel_data_add_dict_u64(e, "send_full", lc[i].send_full);
		rte_tel_data_add_dict_u64(e, "sleeps", lc[i].sleeps);
		rte_tel_data_add_dict_u64(e, "max_gap_us", lc[i].max_gap_us);
		rte_tel_data_add_dict_u64(e, "oversleeps", lc[i].oversleeps);
		rte_tel_data_add_dict_u64(e, "oversleep_longest_us", lc[i].oversleep_longest_us);
		rte_tel_data_add_dict_u64(e, "stalls", lc[i].stalls);
		rte_tel_data_add_dict_u64(e, "stall_longest_us", lc[i].stall_longest_us);
		rte_tel_data_add_dict_u64(e, "stall_last_us", lc[i].stall_last_us);
		rte_tel_data_add_dict_int(e, "stall_ongoing", lc[i].stall_ongoing);
		rte_tel_data_add_dict_u64(e, "stalls_blocked", lc[i].stalls_blocked);
		rte_tel_data_add_dict_string(e, "stall_state",
					     (char[2]){ lc[i].stall_state != 0 ? lc[i].stall_state :
										 '-',
							'\0' });
		rte_tel_data_add_dict_int(e, "stall_syscall", (int)lc[i].stall_syscall);
		rte_tel_data_add_dict_string(e, "stall_step", lc[i].stall_step);
		rte_tel_data_add_dict_string(e, "stall_fn", lc[i].stall_fn);
		snprintf(key, sizeof(key), "l%d", i);
		if (rte_tel_data_add_dict_container(d, key, e, 0) != 0) {
			rte_tel_data_free(e);
			return -ENOMEM;
		}
	}
	return 0;
}

int
lnetd_udsp_register(void)
{
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} cmds[] = {
		{ "/lnet/udsp_add", lnetd_udsp_add,
		  "Add a selection rule. Params: src, dst, rte (ip2nets syntax, ',' as ';'), "
		  "priority, idx" },
		{ "/lnet/udsp_del", lnetd_udsp_del, "Delete the rule at idx=N, or all=1" },
		{ "/lnet/udsp_show", lnetd_udsp_show,
		  "Selection rules, paged. Params: idx, start" },
		{ "/lnet/udsp_stats", lnetd_udsp_stats, "Cost of applying the selection rules" },
		{ "/lnet/lcore_stats", lnetd_lcore_stats,
		  "Each lcore's loop counters and stalls; reset=1 restarts max_gap_us" },
	};
	unsigned int i;
	int rc = 0;

	for (i = 0; rc == 0 && i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		rc = lnetd_telemetry_add(cmds[i].cmd, cmds[i].fn, cmds[i].help);
	}
	return rc;
}
