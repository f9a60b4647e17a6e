/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's commands on DPDK's telemetry socket, /lnet/<object>_<verb>.
 * Callbacks run on the telemetry thread: they only use lnet_ctl_*() and
 * lnet_counters_get(), which ask the owning lcores and wait. Keys are
 * telemetry-safe ([A-Za-z0-9_]); NIDs are always values. lnetctl maps the
 * keys to kernel lnetctl's YAML names.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "api.h"
#include "cfs.h"
#include "lnet_ctl.h"
#include "lnet_lnd.h"
#include "lnet_wire.h"
#include "lnetd.h"
#include "lnp_build_config.h"

#define LNETD_MAX_NIS 64
#define LNETD_RECOVERY_MAX \
	200 /* NIDs listed; the total is given too (a telemetry dict holds 256) */

/* "key=value,key=value" lookup in a request's parameters. */
bool
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

/* Messages by type (sent_stats order), flattened as <section>_<type>. */
static void
lnetd_by_type(struct rte_tel_data *d, const uint64_t sent[5], const uint64_t received[5],
	      const uint64_t dropped[5])
{
	static const char *const types[5] = { "put", "get", "reply", "ack", "hello" };
	char key[48];
	unsigned int i;

	for (i = 0; i < 5; i++) {
		snprintf(key, sizeof(key), "sent_%s", types[i]);
		rte_tel_data_add_dict_u64(d, key, sent[i]);
		snprintf(key, sizeof(key), "received_%s", types[i]);
		rte_tel_data_add_dict_u64(d, key, received[i]);
		snprintf(key, sizeof(key), "dropped_%s", types[i]);
		rte_tel_data_add_dict_u64(d, key, dropped[i]);
	}
}

/* -v 2: messages by type and health, flattened as <section>_<key>. */
static void
lnetd_ni_detail2(struct rte_tel_data *d, const struct lnet_ctl_ni *ni)
{
	lnetd_by_type(d, ni->sent, ni->received, ni->dropped);
	rte_tel_data_add_dict_int(d, "health_value", ni->health_value);
	rte_tel_data_add_dict_int(d, "fatal_error", ni->fatal_error);
	rte_tel_data_add_dict_u64(d, "health_interrupts", ni->hs_interrupts);
	rte_tel_data_add_dict_u64(d, "health_dropped", ni->hs_dropped);
	rte_tel_data_add_dict_u64(d, "health_aborted", ni->hs_aborted);
	rte_tel_data_add_dict_u64(d, "health_no_route", ni->hs_no_route);
	rte_tel_data_add_dict_u64(d, "health_timeouts", ni->hs_timeouts);
	rte_tel_data_add_dict_u64(d, "health_error", ni->hs_error);
	rte_tel_data_add_dict_u64(d, "ping_count", ni->ping_count);
	rte_tel_data_add_dict_int(d, "next_ping", (int)ni->next_ping);
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
	if (ni->ifname[0] != '\0') {
		rte_tel_data_add_dict_string(d, "if0", ni->ifname);
	}
	if (detail > 0) {
		unsigned int i;

		/* "lnd_<key>" in the LND's order: lnetctl prints them as "lnd tunables". */
		for (i = 0; i < ni->nlnd_tunables; i++) {
			char key[48];

			snprintf(key, sizeof(key), "lnd_%s", ni->lnd_tunables[i].key);
			rte_tel_data_add_dict_int(d, key, ni->lnd_tunables[i].value);
		}
		rte_tel_data_add_dict_u64(d, "send_count", ni->send_count);
		rte_tel_data_add_dict_u64(d, "recv_count", ni->recv_count);
		rte_tel_data_add_dict_u64(d, "drop_count", ni->drop_count);
		rte_tel_data_add_dict_int(d, "peer_timeout", ni->peer_timeout);
		rte_tel_data_add_dict_int(d, "peer_credits", ni->peer_credits);
		rte_tel_data_add_dict_int(d, "peer_buffer_credits", ni->peer_buffer_credits);
		rte_tel_data_add_dict_int(d, "credits", ni->credits);
		rte_tel_data_add_dict_int(d, "dev_cpt", ni->dev_cpt);
		rte_tel_data_add_dict_string(d, "CPT", ni->cpts);
		if (ni->transport[0] != '\0') {
			rte_tel_data_add_dict_string(d, "transport", ni->transport);
		}
	}
	if (detail > 1) {
		lnetd_ni_detail2(d, ni);
	}
	if (detail > 3) {
		rte_tel_data_add_dict_int(d, "udsp_net_priority", ni->udsp_net_priority);
		rte_tel_data_add_dict_int(d, "udsp_nid_priority", ni->udsp_nid_priority);
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

/*
 * /lnet/lnd_params,lnd=TYPE: the module parameters the NIs of an LND start
 * from (lnetd-pmd --lnd-params TYPE:...), by their kernel names, as the
 * kernel shows them under /sys/module/<lnd>/parameters; each LND lists its
 * own (lnet_lnd_ops.params_get). /lnet/socklnd_params is lnd=tcp's.
 */
static int
lnetd_lnd_params_reply(const char *type, struct rte_tel_data *d)
{
	struct lnet_lnd_param v[64];
	char err[128] = "";
	const struct lnet_lnd_ops *lnd = lnetd_lnd_by_name(type, err, sizeof(err));
	unsigned int n;
	unsigned int i;

	if (lnd == NULL) {
		return lnetd_reply_status(d, -EOPNOTSUPP, err);
	}
	n = lnd->params_get != NULL ? lnd->params_get(v, 64) : 0;
	rte_tel_data_start_dict(d);
	for (i = 0; i < n; i++) {
		if (v[i].str != NULL) {
			rte_tel_data_add_dict_string(d, v[i].name, v[i].str);
		} else {
			rte_tel_data_add_dict_int(d, v[i].name, v[i].value);
		}
	}
	return 0;
}

static int
lnetd_lnd_params_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char type[16];

	(void)cmd;
	if (!lnetd_param(params, "lnd", type, sizeof(type)) || type[0] == '\0') {
		return lnetd_reply_status(d, -EINVAL, "lnd=TYPE is required (lnd=tcp)");
	}
	return lnetd_lnd_params_reply(type, d);
}

static int
lnetd_socklnd_params_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	return lnetd_lnd_params_reply("tcp", d);
}

/*
 * /lnet/lnd_stats: each NI's LND counters (connections accepted, refused,
 * handshake failures, protocol errors, timeouts...), for dpdk-telemetry.py;
 * the kernel's lnetctl has no such view. {"ni1": {"nid": ..., ...}, ...}
 */
static int
lnetd_lnd_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_ctl_ni nis[LNETD_MAX_NIS];
	struct lnet_ctl_lnd_counter ctr[LNET_CTL_LND_COUNTERS];
	char nid[LNET_NIDSTR_SIZE];
	int n = lnet_ctl_ni_list(nis, LNETD_MAX_NIS);
	int i;

	(void)cmd;
	(void)params;
	if (n < 0) {
		return n;
	}
	rte_tel_data_start_dict(d);
	for (i = 0; i < n; i++) {
		int nc = lnet_ctl_lnd_counters(&nis[i].nid, ctr, LNET_CTL_LND_COUNTERS);
		struct rte_tel_data *ni;
		char key[16];
		int k;

		if (nc <= 0) {
			continue; /* lo has none; a NI deleted meanwhile is gone */
		}
		ni = rte_tel_data_alloc();
		if (ni == NULL) {
			return -ENOMEM;
		}
		rte_tel_data_start_dict(ni);
		rte_tel_data_add_dict_string(ni, "nid",
					     libcfs_nidstr_r(&nis[i].nid, nid, sizeof(nid)));
		for (k = 0; k < nc; k++) {
			rte_tel_data_add_dict_u64(ni, ctr[k].key, ctr[k].value);
		}
		snprintf(key, sizeof(key), "ni%d", i);
		if (rte_tel_data_add_dict_container(d, key, ni, 0) != 0) {
			rte_tel_data_free(ni);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * After the kernel's keys, ours: the stall watchdog's count over every lcore
 * and the longest stall (lnetctl stats show prints every key in order).
 */
static int
lnetd_stall_stats(struct rte_tel_data *d)
{
	struct lnet_ctl_lcore lc[LNP_MAX_CPTS + 1];
	int n = lnet_ctl_lcore_stats(lc, LNP_MAX_CPTS + 1, false);
	uint64_t stalls = 0;
	uint64_t longest = 0;
	int i;

	if (n < 0) {
		return n;
	}
	for (i = 0; i < n; i++) {
		stalls += lc[i].stalls;
		longest = lc[i].stall_longest_us > longest ? lc[i].stall_longest_us : longest;
	}
	rte_tel_data_add_dict_u64(d, "lcore_stalls", stalls);
	rte_tel_data_add_dict_u64(d, "lcore_stall_longest_us", longest);
	return 0;
}

/*
 * Extension keys after the stall watchdog's: the ring hops (lcore changes)
 * messages made, by kind (lnet_ctl_hops_get). The kernel has no such key;
 * kernel-shaped parsers read its keys above and ignore these.
 */
static int
lnetd_hop_stats(struct rte_tel_data *d)
{
	struct lnet_ctl_hops h;
	int rc = lnet_ctl_hops_get(&h);

	if (rc != 0) {
		return rc;
	}
	rte_tel_data_add_dict_u64(d, "hops_put", h.put);
	rte_tel_data_add_dict_u64(d, "hops_get", h.get);
	rte_tel_data_add_dict_u64(d, "hops_ack", h.ack);
	rte_tel_data_add_dict_u64(d, "hops_reply", h.reply);
	rte_tel_data_add_dict_u64(d, "hops_forward", h.forward);
	rte_tel_data_add_dict_u64(d, "rx_payload_unlent", h.rx_unlent);
	return 0;
}

/*
 * After the hops: gets that found the message pool empty (each a message
 * not made: a receive dropped, a send refused), since the last reset.
 */
static int
lnetd_pool_stats(struct rte_tel_data *d)
{
	struct lnet_ctl_pools p;
	int rc = lnet_ctl_pools_get(&p);

	if (rc != 0) {
		return rc;
	}
	rte_tel_data_add_dict_u64(d, "pool_msg_empty", p.msg_empty);
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
	rc = lnetd_stall_stats(d);
	rc = rc != 0 ? rc : lnetd_hop_stats(d);
	return rc != 0 ? rc : lnetd_pool_stats(d);
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
	/* The daemon's extension, after the kernel's keys (lnetctl export leaves it out). */
	rte_tel_data_add_dict_int(d, "lnet_selftest", lnetd_selftest_enabled() ? 1 : 0);
	return 0;
}

#define LNETD_PEER_BATCH 64
/* A reply is at most 16 KiB: NI entries per page by detail level. */
#define LNETD_PEER_NIS_BRIEF 100
#define LNETD_PEER_NIS_DETAIL 30
#define LNETD_PEER_NIS_STATS 12 /* -v 2 and more: by-type and health stats */
#define LNETD_PEER_NIS_UDSP 6   /* -v 4: and up to 32 preferred NIDs */

/* "a;b;c" -> NIDs (ranges were expanded by lnetctl). */
static int
lnetd_parse_nids(const char *list, struct lnet_nid *nids, unsigned int max)
{
	char buf[1024];
	char *save = NULL;
	char *tok;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ";", &save); tok != NULL; tok = strtok_r(NULL, ";", &save)) {
		if ((unsigned int)n == max || libcfs_strnid(&nids[n], tok) != 0) {
			return -EINVAL;
		}
		n++;
	}
	return n;
}

/* Reply {"status": 0} or {"status": -errno, "descr": "..."}: errors keep their text. */
int
lnetd_reply_status(struct rte_tel_data *d, int rc, const char *descr)
{
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "status", rc);
	if (rc != 0) {
		rte_tel_data_add_dict_string(d, "descr", descr[0] != '\0' ? descr : strerror(-rc));
	}
	return 0;
}

/* /lnet/global_set,key=K,value=N (lnetctl set) */
static int
lnetd_global_set(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char key[64];
	char val[32];
	char err[256] = "";
	char *end = NULL;
	long v;

	(void)cmd;
	if (!lnetd_param(params, "key", key, sizeof(key)) ||
	    !lnetd_param(params, "value", val, sizeof(val))) {
		return lnetd_reply_status(d, -EINVAL, "key and value are required");
	}
	v = strtol(val, &end, 10);
	if (val[0] == '\0' || *end != '\0' || v < INT_MIN || v > INT_MAX) {
		return lnetd_reply_status(d, -EINVAL, "value: not a number");
	}
	return lnetd_reply_status(d, lnetd_global_apply(key, (int)v, err, sizeof(err)), err);
}

/* /lnet/stats_reset: zero the counters (lnetctl stats reset). */
static int
lnetd_stats_reset(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = lnet_counters_reset();

	(void)cmd;
	(void)params;
	return lnetd_reply_status(d, rc, rc == 0 ? "" : "LNet is not running");
}

/*
 * /lnet/peer_add,prim_nid=NID[,nid=A;B][,non_mr=1][,lock_prim=1] (peer_del: [,force=1] for
 * non_mr). Without nid= the peer is added (made again when traffic, discovery or a route made
 * it); with nid= the NIDs go to the configured peer that is there, each in turn.
 */
static int
lnetd_peer_change(const char *params, struct rte_tel_data *d, bool add)
{
	struct lnet_nid nids[64];
	struct lnet_nid prim;
	char val[1024];
	char err[256] = "";
	int n = 0;
	bool mr = true;
	bool lock_or_force;
	int rc;

	if (!lnetd_param(params, "prim_nid", val, sizeof(val)) ||
	    libcfs_strnid_err(&prim, val, err, sizeof(err)) != 0) {
		return lnetd_reply_status(d, -EINVAL,
					  err[0] != '\0' ? err : "prim_nid is required");
	}
	if (lnetd_param(params, "nid", val, sizeof(val))) {
		n = lnetd_parse_nids(val, nids, 64);
		if (n < 0) {
			return lnetd_reply_status(d, -EINVAL, "bad NID list");
		}
	}
	if (lnetd_param(params, "non_mr", val, sizeof(val))) {
		mr = strcmp(val, "1") != 0;
	}
	lock_or_force = lnetd_param(params, add ? "lock_prim" : "force", val, sizeof(val)) &&
			strcmp(val, "1") == 0;
	if (add && n > 0) {
		/* a "peer ni" entry of 2.17's request: the peer is there (lnet_add_peer_ni) */
		rc = lnet_ctl_peer_add_nids(&prim, nids, (unsigned int)n, mr, lock_or_force, err,
					    sizeof(err));
	} else if (add) {
		rc = lnet_ctl_peer_add_lock(&prim, NULL, 0, mr, lock_or_force, err, sizeof(err));
	} else {
		rc = lnet_ctl_peer_del_force(&prim, nids, (unsigned int)n, lock_or_force, err,
					     sizeof(err));
	}
	return lnetd_reply_status(d, rc, err);
}

static int
lnetd_peer_add(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return lnetd_peer_change(params, d, true);
}

static int
lnetd_peer_del(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return lnetd_peer_change(params, d, false);
}

/* -v 2: the peer NI's messages by type and its health, flattened as <section>_<key>. */
static void
lnetd_peer_ni_stats(struct rte_tel_data *e, const struct lnet_ctl_peer_ni *st)
{
	lnetd_by_type(e, st->sent, st->received, st->dropped);
	rte_tel_data_add_dict_int(e, "health_value", st->health_value);
	rte_tel_data_add_dict_u64(e, "health_dropped", st->hs_dropped);
	rte_tel_data_add_dict_u64(e, "health_timeout", st->hs_timeout);
	rte_tel_data_add_dict_u64(e, "health_error", st->hs_error);
	rte_tel_data_add_dict_u64(e, "health_network_timeout", st->hs_network_timeout);
	rte_tel_data_add_dict_u64(e, "ping_count", st->ping_count);
	rte_tel_data_add_dict_int(e, "next_ping", (int)st->next_ping);
}

/* NIDs of one preferred list a peer_show entry carries (a reply holds 16 KiB). */
#define LNETD_UDSP_SHOW_NIDS 16

static void
lnetd_udsp_nids(struct rte_tel_data *e, const char *prefix, const struct lnet_nid *nids,
		unsigned int n)
{
	char buf[LNET_NIDSTR_SIZE];
	char key[48];
	unsigned int i;

	for (i = 0; i < n && i < LNETD_UDSP_SHOW_NIDS; i++) {
		snprintf(key, sizeof(key), "%s%u", prefix, i);
		rte_tel_data_add_dict_string(e, key, libcfs_nidstr_r(&nids[i], buf, sizeof(buf)));
	}
}

/*
 * -v 4: the peer NI's UDSP values: udsp_net_priority, udsp_nid_priority
 * (-1: no rule), its preferred gateways udsp_pref_gw0.. and preferred
 * local NIDs udsp_pref_src0.. (one key a NID: a string holds 128 bytes).
 */
static int
lnetd_peer_ni_udsp(struct rte_tel_data *e, const struct lnet_nid *nid)
{
	struct lnet_ctl_udsp_info *u = malloc(sizeof(*u));
	int rc = u != NULL ? lnet_ctl_peer_ni_udsp(nid, u) : -ENOMEM;

	if (rc == 0) {
		rte_tel_data_add_dict_int(e, "udsp_net_priority", u->net_priority);
		rte_tel_data_add_dict_int(e, "udsp_nid_priority", u->nid_priority);
		lnetd_udsp_nids(e, "udsp_pref_gw", u->pref_gw, u->npref_gw);
		lnetd_udsp_nids(e, "udsp_pref_src", u->pref_src, u->npref_src);
	}
	free(u);
	return rc;
}

static int
lnetd_peer_ni_entry(struct rte_tel_data *d, unsigned int k, const struct lnet_ctl_peer *p,
		    unsigned int i, int detail)
{
	struct rte_tel_data *e = rte_tel_data_alloc();
	char buf[LNET_NIDSTR_SIZE];
	char key[16];

	if (e == NULL) {
		return -ENOMEM;
	}
	rte_tel_data_start_dict(e);
	rte_tel_data_add_dict_string(e, "primary_nid",
				     libcfs_nidstr_r(&p->nis[0], buf, sizeof(buf)));
	rte_tel_data_add_dict_string(e, "multi_rail", p->mr ? "true" : "false");
	rte_tel_data_add_dict_u64(e, "peer_state", p->state);
	rte_tel_data_add_dict_string(e, "nid", libcfs_nidstr_r(&p->nis[i], buf, sizeof(buf)));
	rte_tel_data_add_dict_string(e, "state", "NA"); /* aliveness tracking: routers */
	if (detail > 0) {
		struct lnet_ctl_peer_ni st;

		if (lnet_ctl_peer_ni_state(&p->nis[i], &st) != 0) {
			rte_tel_data_free(e);
			return -EIO;
		}
		rte_tel_data_add_dict_int(e, "max_ni_tx_credits", st.max_tx_credits);
		rte_tel_data_add_dict_int(e, "available_tx_credits", st.tx_credits);
		rte_tel_data_add_dict_int(e, "min_tx_credits", st.min_tx_credits);
		rte_tel_data_add_dict_u64(e, "tx_q_num_of_buf", st.txqnob);
		rte_tel_data_add_dict_int(e, "available_rtr_credits", st.rtr_credits);
		rte_tel_data_add_dict_int(e, "min_rtr_credits", st.min_rtr_credits);
		rte_tel_data_add_dict_int(e, "refcount", 1);
		rte_tel_data_add_dict_u64(e, "send_count", st.send_count);
		rte_tel_data_add_dict_u64(e, "recv_count", st.recv_count);
		rte_tel_data_add_dict_u64(e, "drop_count", st.drop_count);
		if (detail > 1) {
			lnetd_peer_ni_stats(e, &st);
		}
	}
	if (detail > 3 && lnetd_peer_ni_udsp(e, &p->nis[i]) != 0) {
		rte_tel_data_free(e);
		return -EIO;
	}
	snprintf(key, sizeof(key), "n%u", k);
	return rte_tel_data_add_dict_container(d, key, e, 0);
}

/*
 * /lnet/peer_show[,start=CURSOR][,detail=N][,nid=NID]: one entry per peer
 * NI ("n0", "n1", ...) naming its peer, whole peers per page, and "next",
 * the cursor of the next page (0: done).
 */
static int
lnetd_peer_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static __thread struct lnet_ctl_peer peers[LNETD_PEER_BATCH];
	struct lnet_nid only;
	uint64_t cursor = 0;
	uint64_t next = 0;
	char val[128];
	int detail = 0;
	unsigned int budget;
	unsigned int k = 0;
	int n;
	int i;

	(void)cmd;
	if (lnetd_param(params, "start", val, sizeof(val))) {
		cursor = strtoull(val, NULL, 10);
	}
	if (lnetd_param(params, "detail", val, sizeof(val))) {
		detail = atoi(val);
	}
	if (lnetd_param(params, "nid", val, sizeof(val)) && libcfs_strnid(&only, val) != 0) {
		return -EINVAL;
	}
	n = lnet_ctl_peer_list(cursor, lnetd_param(params, "nid", val, sizeof(val)) ? &only : NULL,
			       peers, LNETD_PEER_BATCH, &next);
	if (n < 0) {
		return n;
	}
	budget = detail > 3 ? LNETD_PEER_NIS_UDSP :
		 detail > 1 ? LNETD_PEER_NIS_STATS :
		 detail > 0 ? LNETD_PEER_NIS_DETAIL :
			      LNETD_PEER_NIS_BRIEF;
	rte_tel_data_start_dict(d);
	for (i = 0; i < n; i++) {
		unsigned int j;

		if (k > 0 && k + peers[i].nnis > budget) {
			next = peers[i].seq; /* this peer starts the next page */
			break;
		}
		for (j = 0; j < peers[i].nnis; j++) {
			if (lnetd_peer_ni_entry(d, k++, &peers[i], j, detail) != 0) {
				return -ENOMEM;
			}
		}
	}
	rte_tel_data_add_dict_u64(d, "next", next);
	return 0;
}

/* Wait for the next event of a ping; false on timeout. */
static bool
lnetd_ping_event(struct lnet_eq *eq, int timeout_ms, struct lnet_event *ev)
{
	return LNetEQPoll(&eq, 1, timeout_ms, ev, NULL) >= 1;
}

/* Bounds the wait for an unlinked MD's last event (an LND gives up on a send within lnd_timeout). */
#define LNETD_PING_UNLINK_WAIT_MS 60000

/* What the ping's events said so far, as the kernel's ping_data. */
struct lnetd_ping_state {
	int rc; /* the first failed event's status */
	bool replied;
	bool unlinked;
	unsigned int len; /* the REPLY's mlength */
};

static void
lnetd_ping_note(struct lnetd_ping_state *ps, const struct lnet_event *ev)
{
	if (ev->status != 0) {
		if (ps->rc == 0) {
			ps->rc = ev->status;
		}
	} else if (ev->type == LNET_EVENT_REPLY) {
		ps->replied = true;
		ps->len = ev->mlength;
	}
	ps->unlinked = ps->unlinked || ev->unlinked;
}

/*
 * The ping's events until the MD is unlinked, as the kernel's lnet_ping():
 * up to @p timeout_ms for the reply (or a failed send), then the MD is
 * unlinked and its last events are awaited, so a send that fails after
 * the timeout (a connect that ends in EHOSTUNREACH when the neighbour
 * lookup fails) still gives the ping its status.
 */
static void
lnetd_ping_wait(struct lnet_eq *eq, struct lnet_handle_md h, int timeout_ms,
		struct lnetd_ping_state *ps)
{
	struct lnet_event ev;

	while (!ps->unlinked && lnetd_ping_event(eq, timeout_ms, &ev)) {
		lnetd_ping_note(ps, &ev);
		if (ev.type == LNET_EVENT_SEND && ev.status != 0) {
			break;
		}
	}
	if (!ps->unlinked) {
		LNetMDUnlink(h);
	}
	while (!ps->unlinked && lnetd_ping_event(eq, LNETD_PING_UNLINK_WAIT_MS, &ev)) {
		lnetd_ping_note(ps, &ev);
	}
}

/*
 * GET the target's ping info (lnet-facts §3.1) from this telemetry thread,
 * which may wait: the lcores do the work. No reply is the first failed
 * event's status, else -EIO, as the kernel's lnet_ping() answers.
 */
static int
lnetd_ping_one(const struct lnet_nid *src, const struct lnet_processid *id, int timeout_ms,
	       void *buf, size_t bufsize, unsigned int *len, char *err, size_t errlen)
{
	struct lnet_eq *eq = LNetEQAlloc(8);
	struct lnet_md md = {
		.umd_start = buf,
		.umd_length = (unsigned int)bufsize,
		.umd_threshold = 2,
		.umd_options = LNET_MD_TRUNCATE,
		.umd_eq_handle = eq,
	};
	struct lnetd_ping_state ps = { .rc = 0 };
	struct lnet_handle_md h;
	int rc;

	*len = 0;
	if (eq == NULL) {
		return -ENOMEM;
	}
	rc = LNetMDBind(&md, LNET_UNLINK, &h);
	if (rc != 0) {
		LNetEQFree(eq);
		return rc;
	}
	rc = LNetGet(src, h, id, LNET_RESERVED_PORTAL, LNET_PROTO_PING_MATCHBITS, 0, false);
	if (rc != 0) {
		LNetMDUnlink(h);
	}
	lnetd_ping_wait(eq, h, timeout_ms, &ps);
	/* The queue cannot go while the MD may still post to it: left allocated then. */
	if (!ps.unlinked || LNetEQFree(eq) != 0) {
		fprintf(stderr,
			"lnetd-pmd: ping: an MD still holds its event queue; left allocated\n");
	}
	if (!ps.replied) {
		rc = ps.rc != 0 ? ps.rc : rc != 0 ? rc : -EIO;
		snprintf(err, errlen, "%s", strerror(-rc));
		return rc;
	}
	*len = ps.len;
	return 0;
}

/* A ping's source must be one of this node's NIs: -EINVAL otherwise. */
static int
lnetd_ping_source(const char *str, struct lnet_nid *src)
{
	struct lnet_processid id;
	unsigned int i;

	if (libcfs_strnid(src, str) != 0) {
		return -EINVAL;
	}
	for (i = 0; LNetGetId(i, &id, true) == 0; i++) {
		if (lnet_nid_same(&id.nid, src)) {
			return 0;
		}
	}
	return -EINVAL;
}

/* The reply of a ping that answered: primary, Multi-Rail, then every NID read. */
static void
lnetd_ping_reply(struct rte_tel_data *d, const struct lnet_processid *id,
		 struct lnet_ping_decoded *pd, const struct lnet_ping_entry *nis, unsigned int cap)
{
	struct lnet_ctl_peer peer;
	char nid[LNET_NIDSTR_SIZE];
	uint64_t next;
	unsigned int i;

	lnetd_reply_status(d, 0, "");
	/* No NI but 0@lo: the pinged NID stands as the primary. */
	if (lnet_nid_is_any(&pd->primary)) {
		pd->primary = id->nid;
	}
	rte_tel_data_add_dict_string(d, "primary_nid",
				     libcfs_nidstr_r(&pd->primary, nid, sizeof(nid)));
	/* Multi-Rail as this node knows the peer: only discovery (later) or config says so. */
	rte_tel_data_add_dict_string(d, "multi_rail",
				     lnet_ctl_peer_list(0, &pd->primary, &peer, 1, &next) == 1 &&
						     peer.mr ?
					     "true" :
					     "false");
	for (i = 0; i < pd->nnis_total && i < cap; i++) {
		char key[16];

		snprintf(key, sizeof(key), "nid%u", i);
		rte_tel_data_add_dict_string(d, key,
					     libcfs_nidstr_r(&nis[i].nid, nid, sizeof(nid)));
	}
}

/*
 * /lnet/ping,nid=NID[,timeout=MS][,source=NID] -> {status, primary_nid,
 * multi_rail, nid0..}; source: the local NI the GET leaves from, as the
 * kernel's ping --source. The GET asks for what the kernel's lnet_ping()
 * asks (3960 bytes at max_interfaces 200); a reply cut by that buffer lists
 * every NID that came whole (at most 245: the dict holds 256), a bad or
 * short one is -EPROTO, as there.
 */
static int
lnetd_ping(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_processid id = { .pid = LNET_PID_LUSTRE };
	struct lnet_nid src = LNET_ANY_NID;
	struct lnet_ctl_global g = { .max_interfaces = 0 };
	struct lnet_ping_decoded pd;
	struct lnet_ping_entry *nis;
	char val[128];
	char err[160] = "";
	char descr[256];
	size_t bufsize;
	unsigned int cap;
	unsigned int len = 0;
	int timeout = 1000;
	void *buf;
	int rc;

	(void)cmd;
	if (!lnetd_param(params, "nid", val, sizeof(val)) || libcfs_strid(&id, val) != 0 ||
	    lnet_nid_is_any(&id.nid)) {
		return lnetd_reply_status(d, -EINVAL, "a NID to ping is required");
	}
	if (lnetd_param(params, "timeout", val, sizeof(val))) {
		timeout = atoi(val) > 0 ? atoi(val) : timeout;
	}
	if (lnetd_param(params, "source", val, sizeof(val)) &&
	    (rc = lnetd_ping_source(val, &src)) != 0) {
		snprintf(descr, sizeof(descr), "source NID %s is not a NID of this node", val);
		return lnetd_reply_status(d, rc, descr);
	}
	(void)lnet_ctl_global_get(&g);
	bufsize = lnet_ping_reply_bufsize(g.max_interfaces);
	cap = bufsize / sizeof(struct lnet_ni_status); /* more entries than can come whole */
	buf = calloc(1, bufsize);
	nis = calloc(cap, sizeof(*nis));
	if (buf == NULL || nis == NULL) {
		free(buf);
		free(nis);
		return -ENOMEM;
	}
	rc = lnetd_ping_one(lnet_nid_is_any(&src) ? NULL : &src, &id, timeout, buf, bufsize, &len,
			    err, sizeof(err));
	if (rc == 0 &&
	    (rc = lnet_ping_reply_read(buf, len, bufsize, g.max_interfaces, &pd, nis, cap)) != 0) {
		snprintf(err, sizeof(err), "%s (%u bytes)", lnet_wire_strerror(rc), len);
		rc = -EPROTO;
	}
	if (rc != 0) {
		snprintf(descr, sizeof(descr), "failed to ping %s: %s", libcfs_nidstr(&id.nid),
			 err);
		lnetd_reply_status(d, rc, descr);
	} else {
		lnetd_ping_reply(d, &id, &pd, nis, cap);
	}
	free(buf);
	free(nis);
	return 0;
}

/*
 * /lnet/discover,nid=NID[,force=1] -> {status, primary_nid, multi_rail,
 * peer_state, nid0..}: the peer as discovery left it, in /lnet/ping's
 * shape, or {status: -errno, descr}. lnet_ctl_discover() blocks until
 * discovery ends (up to the discovery timeout): DPDK runs each telemetry
 * client on its own thread, so only this lnetctl waits, as /lnet/ping does.
 */
static int
lnetd_discover(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_processid id = { .pid = LNET_PID_LUSTRE };
	struct lnet_ctl_peer *peer;
	char val[128];
	char err[256] = "";
	char nid[LNET_NIDSTR_SIZE];
	bool force;
	unsigned int i;
	unsigned int k = 0;
	int rc;

	(void)cmd;
	if (!lnetd_param(params, "nid", val, sizeof(val)) || libcfs_strid(&id, val) != 0 ||
	    lnet_nid_is_any(&id.nid)) {
		return lnetd_reply_status(d, -EINVAL, "a NID to discover is required");
	}
	force = lnetd_param(params, "force", val, sizeof(val)) && strcmp(val, "1") == 0;
	peer = malloc(sizeof(*peer)); /* 64 NIDs: kept off the telemetry thread's stack */
	if (peer == NULL) {
		return -ENOMEM;
	}
	rc = lnet_ctl_discover(&id.nid, force, peer, err, sizeof(err));
	if (rc != 0) {
		free(peer);
		return lnetd_reply_status(d, rc, err);
	}
	lnetd_reply_status(d, 0, "");
	rte_tel_data_add_dict_string(d, "primary_nid",
				     libcfs_nidstr_r(peer->nnis > 0 ? &peer->nis[0] : &id.nid, nid,
						     sizeof(nid)));
	rte_tel_data_add_dict_string(d, "multi_rail", peer->mr ? "true" : "false");
	rte_tel_data_add_dict_u64(d, "peer_state", peer->state);
	for (i = 0; i < peer->nnis; i++) {
		char key[16];

		if (lnet_nid_is_lo0(&peer->nis[i])) {
			continue; /* the kernel does not list 0@lo */
		}
		snprintf(key, sizeof(key), "nid%u", k++);
		rte_tel_data_add_dict_string(d, key,
					     libcfs_nidstr_r(&peer->nis[i], nid, sizeof(nid)));
	}
	free(peer);
	return 0;
}

/*
 * /lnet/push_show: the push target's counters (pushes received, accepted,
 * truncated, invalid, failed), its size, and the last push accepted; the
 * kernel's lnetctl has no such view.
 */
static int
lnetd_push_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_ctl_push p;
	char nid[LNET_NIDSTR_SIZE];
	int rc = lnet_ctl_push_get(&p);

	(void)cmd;
	(void)params;
	if (rc != 0) {
		return rc;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "received", p.received);
	rte_tel_data_add_dict_u64(d, "accepted", p.accepted);
	rte_tel_data_add_dict_u64(d, "truncated", p.truncated);
	rte_tel_data_add_dict_u64(d, "invalid", p.invalid);
	rte_tel_data_add_dict_u64(d, "errors", p.errors);
	rte_tel_data_add_dict_int(d, "target_bytes", (int)p.target_bytes);
	if (p.has_last) {
		rte_tel_data_add_dict_string(d, "last_src",
					     libcfs_nidstr_r(&p.last_src, nid, sizeof(nid)));
		rte_tel_data_add_dict_string(d, "last_primary_nid",
					     libcfs_nidstr_r(&p.last_primary, nid, sizeof(nid)));
		rte_tel_data_add_dict_u64(d, "last_seqno", p.last_seqno);
		rte_tel_data_add_dict_u64(d, "last_features", p.last_features);
		rte_tel_data_add_dict_u64(d, "last_nnis", p.last_nnis);
	}
	return 0;
}

/*
 * /lnet/discovery_show: discovery's counters: peers by state, messages
 * held, and every input it refused or did not act on (lnet_ctl.h).
 */
static int
lnetd_discovery_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_ctl_discovery st;
	int rc = lnet_ctl_discovery_get(&st);

	(void)cmd;
	(void)params;
	if (rc != 0) {
		return rc;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "enabled", st.enabled);
	for (unsigned int i = 0; i < st.n; i++) {
		rte_tel_data_add_dict_u64(d, st.c[i].name, st.c[i].value);
	}
	return 0;
}

/* /lnet/cpt_of_nid,nid=NID -> {cpt: N}: where LNet keeps that peer NI's state. */
static int
lnetd_cpt_of_nid(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_nid nid;
	char val[128];
	char err[160] = "";
	int ncpts = lnet_ctl_ncpts();

	(void)cmd;
	if (!lnetd_param(params, "nid", val, sizeof(val)) ||
	    libcfs_strnid_err(&nid, val, err, sizeof(err)) != 0) {
		return lnetd_reply_status(d, -EINVAL, err[0] != '\0' ? err : "a NID is required");
	}
	if (ncpts < 0) {
		return ncpts;
	}
	lnetd_reply_status(d, 0, "");
	rte_tel_data_add_dict_int(d, "cpt", (int)lnet_nid_cpt_hash(&nid, (unsigned int)ncpts));
	return 0;
}

/* An integer parameter; false when present but not a number. */
static bool
lnetd_int_param(const char *params, const char *key, int *out)
{
	char val[32];
	char *end = NULL;
	long x;

	if (!lnetd_param(params, key, val, sizeof(val))) {
		return true;
	}
	x = strtol(val, &end, 10);
	if (val[0] == '\0' || *end != '\0' || x < INT_MIN + 1 || x > INT_MAX) {
		return false;
	}
	*out = (int)x;
	return true;
}

/*
 * /lnet/net_add,net=NET,(nid=NID|if=IFACE)[,peer_credits=N][,credits=N]
 * [,peer_timeout=N][,peer_buffer_credits=N][,cpt=N][,conns_per_peer=N]
 * [,lnd_timeout=N][,tos=N]
 */
static int
lnetd_net_add(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const char *const ints[] = {
		"peer_timeout", "peer_credits",   "peer_buffer_credits", "credits",
		"cpt",          "conns_per_peer", "lnd_timeout",         "tos",
	};
	struct lnetcfg_ni spec;
	int *const vals[] = {
		&spec.peer_timeout, &spec.peer_credits,   &spec.peer_buffer_credits, &spec.credits,
		&spec.cpt,          &spec.conns_per_peer, &spec.lnd_timeout,         &spec.tos,
	};
	char val[128];
	char err[256] = "";
	uint32_t net;
	unsigned int i;

	(void)cmd;
	if (!lnetd_param(params, "net", val, sizeof(val)) ||
	    (net = libcfs_str2net(val)) == LNET_NET_ANY) {
		return lnetd_reply_status(d, -EINVAL, "a network (--net) is required");
	}
	lnetcfg_ni_init(&spec, net);
	if (lnetd_param(params, "nid", val, sizeof(val))) {
		if (libcfs_strnid_err(&spec.nid, val, err, sizeof(err)) != 0) {
			return lnetd_reply_status(d, -EINVAL, err);
		}
		if (lnet_nid_net(&spec.nid) != net) {
			return lnetd_reply_status(d, -EINVAL, "the NID is not on that network");
		}
		spec.has_nid = true;
	} else if (!lnetd_param(params, "if", spec.ifname, sizeof(spec.ifname))) {
		return lnetd_reply_status(d, -EINVAL, "--if or --nid is required");
	}
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		if (!lnetd_int_param(params, ints[i], vals[i])) {
			snprintf(err, sizeof(err), "%s: not a number", ints[i]);
			return lnetd_reply_status(d, -EINVAL, err);
		}
	}
	if ((spec.peer_timeout != LNETCFG_UNSET && spec.peer_timeout < 0) ||
	    (spec.peer_credits != LNETCFG_UNSET && spec.peer_credits < 0) ||
	    (spec.credits != LNETCFG_UNSET && spec.credits < 0) ||
	    (spec.peer_buffer_credits != LNETCFG_UNSET && spec.peer_buffer_credits < 0) ||
	    (spec.cpt != LNETCFG_UNSET && spec.cpt < 0)) {
		return lnetd_reply_status(d, -EINVAL,
					  "credits, timeouts and CPTs cannot be negative");
	}
	return lnetd_reply_status(d, lnetd_ni_add(&spec, err, sizeof(err)), err);
}

/* /lnet/net_del,net=NET[,if=IFACE][,nid=NID] */
static int
lnetd_net_del(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char val[128];
	char ifname[LNET_CTL_IFNAMSIZ];
	char err[256] = "";
	struct lnet_nid nid;
	bool by_nid = false;
	bool by_if;
	bool push;
	uint32_t net = LNET_NET_ANY;

	(void)cmd;
	if (lnetd_param(params, "nid", val, sizeof(val))) {
		if (libcfs_strnid_err(&nid, val, err, sizeof(err)) != 0) {
			return lnetd_reply_status(d, -EINVAL, err);
		}
		by_nid = true;
		net = lnet_nid_net(&nid);
	}
	if (lnetd_param(params, "net", val, sizeof(val))) {
		uint32_t n = libcfs_str2net(val);

		if (n == LNET_NET_ANY || (by_nid && n != net)) {
			return lnetd_reply_status(d, -EINVAL,
						  n == LNET_NET_ANY ?
							  "not a network" :
							  "the NID is not on that network");
		}
		net = n;
	}
	if (net == LNET_NET_ANY) {
		return lnetd_reply_status(d, -EINVAL, "--net or --nid is required");
	}
	by_if = lnetd_param(params, "if", ifname, sizeof(ifname));
	/* push=0: lnet unconfigure, which pushes nothing to peers */
	push = !(lnetd_param(params, "push", val, sizeof(val)) && strcmp(val, "0") == 0);
	return lnetd_reply_status(d,
				  lnetd_ni_del(net, by_if ? ifname : NULL, by_nid ? &nid : NULL,
					       push, err, sizeof(err)),
				  err);
}

/* health=V[,nid=NID] of net set and peer set: 0, or the refusal already in @p d. */
static int
lnetd_health_params(const char *params, struct rte_tel_data *d, struct lnet_nid *nid, bool *by_nid,
		    int *value)
{
	char val[LNET_NIDSTR_SIZE + 8];
	char err[160] = "";
	char *end = NULL;
	long v;

	*by_nid = lnetd_param(params, "nid", val, sizeof(val));
	if (*by_nid && libcfs_strnid_err(nid, val, err, sizeof(err)) != 0) {
		lnetd_reply_status(d, -EINVAL, err);
		return -EINVAL;
	}
	if (!lnetd_param(params, "health", val, sizeof(val))) {
		lnetd_reply_status(d, -EINVAL, "health is required");
		return -EINVAL;
	}
	v = strtol(val, &end, 10);
	if (val[0] == '\0' || *end != '\0' || v < INT_MIN || v > INT_MAX) {
		lnetd_reply_status(d, -EINVAL, "health: not a number");
		return -EINVAL;
	}
	*value = (int)v;
	return 0;
}

/* Set a health value from health=V[,nid=NID] with @p set (of local NIs or of peer NIs). */
static int
lnetd_health_set(const char *params, struct rte_tel_data *d,
		 int (*set)(const struct lnet_nid *nid, int value, char *err, size_t errlen))
{
	struct lnet_nid nid;
	char err[160] = "";
	bool by_nid;
	int v;

	if (lnetd_health_params(params, d, &nid, &by_nid, &v) != 0) {
		return 0;
	}
	return lnetd_reply_status(d, set(by_nid ? &nid : NULL, v, err, sizeof(err)), err);
}

/* /lnet/net_set,health=V[,nid=NID] (lnetctl net set; no nid: every NI) */
static int
lnetd_net_set(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return lnetd_health_set(params, d, lnet_ctl_ni_health_set);
}

/* /lnet/peer_set,health=V[,nid=NID] (lnetctl peer set; no nid: every peer NI) */
static int
lnetd_peer_set(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return lnetd_health_set(params, d, lnet_ctl_peer_ni_health_set);
}

/* /lnet/recovery_show,local=1|0: the recovery queue's NIDs (lnetctl debug recovery) */
static int
lnetd_recovery_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_nid nids[LNETD_RECOVERY_MAX];
	char val[8];
	unsigned int total = 0;
	unsigned int i;
	bool local = lnetd_param(params, "local", val, sizeof(val)) && strcmp(val, "1") == 0;
	int rc;

	(void)cmd;
	rc = lnet_ctl_recovery_list(local, nids, LNETD_RECOVERY_MAX, &total);
	if (rc != 0) {
		return lnetd_reply_status(d, rc, "LNet is not running");
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "status", 0);
	rte_tel_data_add_dict_u64(d, "total", total);
	for (i = 0; i < total && i < LNETD_RECOVERY_MAX; i++) {
		char key[16];
		char s[LNET_NIDSTR_SIZE];

		snprintf(key, sizeof(key), "nid_%u", i); /* telemetry names take no '-' */
		rte_tel_data_add_dict_string(d, key, libcfs_nidstr_r(&nids[i], s, sizeof(s)));
	}
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
		{ "/lnet/socklnd_params", lnetd_socklnd_params_show,
		  "ksocklnd module parameters new tcp NIs start from (lnetd-pmd --socklnd)" },
		{ "/lnet/lnd_params", lnetd_lnd_params_show,
		  "Module parameters new NIs of an LND start from. Params: lnd=TYPE (tcp)" },
		{ "/lnet/lnd_stats", lnetd_lnd_stats,
		  "Each NI's LND counters: connections, handshake failures, protocol errors" },
		{ "/lnet/stats_reset", lnetd_stats_reset,
		  "Zero the LNet counters (lnetctl stats reset)" },
		{ "/lnet/global_show", lnetd_global_show, "Global settings (lnetctl global show)" },
		{ "/lnet/global_set", lnetd_global_set, "Set a global. Params: key=K, value=N" },
		{ "/lnet/net_set", lnetd_net_set,
		  "Set NI health (lnetctl net set). Params: health=V, nid=NID (none: every NI)" },
		{ "/lnet/peer_set", lnetd_peer_set,
		  "Set peer NI health (lnetctl peer set). Params: health=V, nid=NID (none: all)" },
		{ "/lnet/recovery_show", lnetd_recovery_show,
		  "NIs waiting for health recovery (lnetctl debug recovery). Params: local=1|0" },
		{ "/lnet/peer_add", lnetd_peer_add,
		  "Add a peer or NIDs. Params: prim_nid=NID, nid=A;B, non_mr=1" },
		{ "/lnet/peer_del", lnetd_peer_del,
		  "Delete a peer or some NIDs. Params: prim_nid=NID, nid=A;B" },
		{ "/lnet/net_add", lnetd_net_add,
		  "Add a NI. Params: net=NET, nid=NID or if=IFACE, peer_credits, credits, ..." },
		{ "/lnet/net_del", lnetd_net_del,
		  "Delete NIs. Params: net=NET and/or nid=NID, if=IFACE, push=0 (no push to "
		  "peers)" },
		{ "/lnet/cpt_of_nid", lnetd_cpt_of_nid, "The CPT of a NID. Params: nid=NID" },
		{ "/lnet/ping", lnetd_ping, "Ping a NID. Params: nid=[PID-]NID, timeout=MS" },
		{ "/lnet/discover", lnetd_discover,
		  "Discover a peer and wait for the end (lnetctl discover). Params: nid=NID, "
		  "force=1" },
		{ "/lnet/push_show", lnetd_push_show,
		  "Pushes received from Multi-Rail peers: counters and the last one" },
		{ "/lnet/discovery_show", lnetd_discovery_show,
		  "Discovery: peers by state, messages held, inputs refused by reason" },
		{ "/lnet/peer_show", lnetd_peer_show,
		  "Peers, paged. Params: start=CURSOR, detail=N, nid=NID" },
	};
	unsigned int i;
	int rc;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		rc = lnetd_telemetry_add(cmds[i].cmd, cmds[i].fn, cmds[i].help);
		if (rc != 0) {
			return rc;
		}
	}
	rc = lnetd_capture_register();
	if (rc == 0) {
		rc = lnetd_fault_register();
	}
	if (rc == 0) {
		rc = lnetd_udsp_register();
	}
	rc = rc != 0 ? rc : lnetd_lst_register();
	return rc != 0 ? rc : lnetd_route_register();
}
