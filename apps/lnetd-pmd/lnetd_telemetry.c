/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's commands on DPDK's telemetry socket, /lnet/<object>_<verb>.
 * Callbacks run on the telemetry thread: they only use lnet_ctl_*() and
 * lnet_counters_get(), which ask the owning lcores and wait. Keys are
 * telemetry-safe ([A-Za-z0-9_]); NIDs are always values. lnetctl maps the
 * keys to kernel lnetctl's YAML names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "api.h"
#include "cfs.h"
#include "lnet_ctl.h"
#include "lnetd.h"

#define LNETD_MAX_NIS 64

/* "key=value,key=value" lookup in a request's parameters. */
static bool
lnetd_param(const char *params, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);
	const char *p = params;

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, ',');
		size_t n = end == NULL ? strlen(p) : (size_t)(end - p);

		if (n > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
			snprintf(val, len, "%.*s", (int)(n - klen - 1), p + klen + 1);
			return true;
		}
		p = end == NULL ? NULL : end + 1;
	}
	return false;
}

/* -v 2: messages by type and health, flattened as <section>_<key>. */
static void
lnetd_ni_detail2(struct rte_tel_data *d, const struct lnet_ctl_ni *ni)
{
	static const char *const types[5] = { "put", "get", "reply", "ack", "hello" };
	char key[48];
	unsigned int i;

	for (i = 0; i < 5; i++) {
		snprintf(key, sizeof(key), "sent_%s", types[i]);
		rte_tel_data_add_dict_u64(d, key, ni->sent[i]);
		snprintf(key, sizeof(key), "received_%s", types[i]);
		rte_tel_data_add_dict_u64(d, key, ni->received[i]);
		snprintf(key, sizeof(key), "dropped_%s", types[i]);
		rte_tel_data_add_dict_u64(d, key, ni->dropped[i]);
	}
	/* Health counters arrive with the health issue; the value is real. */
	rte_tel_data_add_dict_int(d, "health_value", ni->health_value);
}

/*
 * One NI as a flat dict. DPDK 22.11 telemetry nests one level, and only
 * dicts may hold dicts: the reply is {"ni0": {...}, "ni1": {...}}.
 */
static struct rte_tel_data *
lnetd_ni_dict(const struct lnet_ctl_ni *ni, int detail)
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	char buf[LNET_NIDSTR_SIZE];

	if (d == NULL) {
		return NULL;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "net_type", libcfs_net2str_r(ni->net, buf, sizeof(buf)));
	rte_tel_data_add_dict_string(d, "nid", libcfs_nidstr_r(&ni->nid, buf, sizeof(buf)));
	rte_tel_data_add_dict_string(d, "status", ni->up ? "up" : "down");
	if (detail > 0) {
		rte_tel_data_add_dict_u64(d, "send_count", ni->send_count);
		rte_tel_data_add_dict_u64(d, "recv_count", ni->recv_count);
		rte_tel_data_add_dict_u64(d, "drop_count", ni->drop_count);
		rte_tel_data_add_dict_int(d, "peer_timeout", ni->peer_timeout);
		rte_tel_data_add_dict_int(d, "peer_credits", ni->peer_credits);
		rte_tel_data_add_dict_int(d, "peer_buffer_credits", ni->peer_buffer_credits);
		rte_tel_data_add_dict_int(d, "credits", ni->credits);
		rte_tel_data_add_dict_int(d, "dev_cpt", ni->dev_cpt);
		rte_tel_data_add_dict_string(d, "CPT", ni->cpts);
	}
	if (detail > 1) {
		lnetd_ni_detail2(d, ni);
	}
	return d;
}

/*
 * /lnet/net_show[,net=NET][,detail=N]: the NIs in order, each naming its
 * net; lnetctl groups them by net as the kernel prints them.
 */
static int
lnetd_net_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_ctl_ni nis[LNETD_MAX_NIS];
	uint32_t only = LNET_NET_ANY;
	char val[64];
	int detail = 0;
	int n;
	int i;

	(void)cmd;
	if (lnetd_param(params, "net", val, sizeof(val))) {
		only = libcfs_str2net(val);
		if (only == LNET_NET_ANY) {
			return -EINVAL;
		}
	}
	if (lnetd_param(params, "detail", val, sizeof(val))) {
		detail = atoi(val);
	}
	n = lnet_ctl_ni_list(nis, LNETD_MAX_NIS);
	if (n < 0) {
		return n;
	}
	rte_tel_data_start_dict(d);
	for (i = 0; i < n; i++) {
		struct rte_tel_data *ni;
		char key[16];

		if (only != LNET_NET_ANY && nis[i].net != only) {
			continue;
		}
		snprintf(key, sizeof(key), "ni%d", i);
		ni = lnetd_ni_dict(&nis[i], detail);
		if (ni == NULL || rte_tel_data_add_dict_container(d, key, ni, 0) != 0) {
			rte_tel_data_free(ni);
			return -ENOMEM;
		}
	}
	return 0;
}

/* /lnet/stats_show: the counters in `lnetctl stats show` order. */
static int
lnetd_stats_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_counters c;
	int rc = lnet_counters_get(&c);

	(void)cmd;
	(void)params;
	if (rc != 0) {
		return rc;
	}
	rte_tel_data_start_dict(d);
#define LNETD_STAT(f) rte_tel_data_add_dict_u64(d, #f, c.f)
	LNETD_STAT(msgs_alloc);
	LNETD_STAT(msgs_max);
	LNETD_STAT(rst_alloc);
	LNETD_STAT(errors);
	LNETD_STAT(send_count);
	LNETD_STAT(resend_count);
	LNETD_STAT(response_timeout_count);
	LNETD_STAT(local_interrupt_count);
	LNETD_STAT(local_dropped_count);
	LNETD_STAT(local_aborted_count);
	LNETD_STAT(local_no_route_count);
	LNETD_STAT(local_timeout_count);
	LNETD_STAT(local_error_count);
	LNETD_STAT(remote_dropped_count);
	LNETD_STAT(remote_error_count);
	LNETD_STAT(remote_timeout_count);
	LNETD_STAT(network_timeout_count);
	LNETD_STAT(failed_resends);
	LNETD_STAT(successful_resends);
	LNETD_STAT(recv_count);
	LNETD_STAT(route_count);
	LNETD_STAT(drop_count);
	LNETD_STAT(send_length);
	LNETD_STAT(recv_length);
	LNETD_STAT(route_length);
	LNETD_STAT(drop_length);
#undef LNETD_STAT
	return 0;
}

/* /lnet/global_show in `lnetctl global show` order. */
static int
lnetd_global_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_ctl_global g;
	int rc = lnet_ctl_global_get(&g);

	(void)cmd;
	(void)params;
	if (rc != 0) {
		return rc;
	}
	rte_tel_data_start_dict(d);
#define LNETD_GLOBAL(f) rte_tel_data_add_dict_int(d, #f, g.f)
	LNETD_GLOBAL(numa_range);
	LNETD_GLOBAL(max_interfaces);
	LNETD_GLOBAL(discovery);
	LNETD_GLOBAL(drop_asym_route);
	LNETD_GLOBAL(retry_count);
	LNETD_GLOBAL(transaction_timeout);
	LNETD_GLOBAL(health_sensitivity);
	LNETD_GLOBAL(recovery_interval);
	LNETD_GLOBAL(router_sensitivity);
	LNETD_GLOBAL(lnd_timeout);
	LNETD_GLOBAL(response_tracking);
	LNETD_GLOBAL(recovery_limit);
	LNETD_GLOBAL(max_recovery_ping_interval);
#undef LNETD_GLOBAL
	return 0;
}

int
lnetd_telemetry_register(void)
{
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} cmds[] = {
		{ "/lnet/net_show", lnetd_net_show,
		  "Local nets and NIs. Params: net=NET, detail=N" },
		{ "/lnet/stats_show", lnetd_stats_show, "LNet counters (lnetctl stats show)" },
		{ "/lnet/global_show", lnetd_global_show, "Global settings (lnetctl global show)" },
	};
	unsigned int i;
	int rc;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		rc = rte_telemetry_register_cmd(cmds[i].cmd, cmds[i].fn, cmds[i].help);
		if (rc != 0) {
			return rc;
		}
	}
	return 0;
}
