/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /lnet/route_{add,del,show}, /lnet/routing_{show,set}, /lnet/buffers_set:
 * the routes and the router behind lnetctl route, routing show and set
 * routing|*_buffers; and --lnet-params, the lnet module parameters.
 *
 * route add/del take what the kernel's lnetctl sends its route command
 * (net and gateway as typed, hop, priority) and answer as that command
 * does: it checks the strings itself (its words and codes below), then
 * says which refusal of lnet_add_route/lnet_del_route it met. status is
 * the code the kernel's lnetctl prints as errno (negative), descr its
 * message. Routes and pools are listed raw: lnetctl filters and lays them
 * out as the kernel's does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "cfs.h"
#include "lnet_ctl.h"
#include "lnetd.h"

/* A reply holds 16 KiB: a route is under 250 bytes of JSON. */
#define LNETD_ROUTE_PAGE 48

/* An optional integer parameter; false when present and not one (or out of range). */
static bool
lnetd_route_long(const char *params, const char *key, long min, long max, bool *given, long *out)
{
	char val[32];
	char *end = NULL;

	*given = lnetd_param(params, key, val, sizeof(val));
	if (!*given) {
		return true;
	}
	errno = 0;
	*out = strtol(val, &end, 0);
	return val[0] != '\0' && *end == '\0' && errno == 0 && *out >= min && *out <= max;
}

/* What the kernel's route command (api-ni.c lnet_route_cmd) parsed from a request. */
struct lnetd_route_req {
	bool has_net;
	bool has_gw;
	uint32_t net;
	struct lnet_nid gw;
	uint32_t hops;
	uint32_t priority;
	uint32_t sensitivity;
};

/* net= and gateway=, checked as the kernel's route command checks them. */
static int
lnetd_route_ids(const char *params, struct lnetd_route_req *r, const char **why)
{
	char net[128];
	char gw[LNET_NIDSTR_SIZE];

	r->has_net = lnetd_param(params, "net", net, sizeof(net));
	if (r->has_net && strlen(net) >= LNET_NIDSTR_SIZE) {
		/* The kernel copies it into a NID string's room. */
		*why = "net key string is invalid";
		return -E2BIG;
	}
	if (r->has_net) {
		r->net = libcfs_str2net(net);
		if (r->net != LNET_NET_ANY && LNET_NETTYP(r->net) == LNET_LND_LO) {
			*why = "setting @lo not allowed";
			return -EACCES;
		}
		if (r->net == LNET_NET_ANY) {
			/* What an unparsable net reads as. */
			*why = "setting LNET_NET_ANY not allowed";
			return -ENXIO;
		}
	}
	r->has_gw = lnetd_param(params, "gateway", gw, sizeof(gw));
	if (r->has_gw && libcfs_strnid(&r->gw, gw) != 0) {
		*why = "cannot parse gateway";
		return -ENODEV;
	}
	return 0;
}

/* hop=, priority=, health_sensitivity= of route add, the kernel's bounds and words. */
static int
lnetd_route_numbers(const char *params, struct lnetd_route_req *r, const char **why)
{
	bool given;
	long v = 0;

	r->hops = LNET_CTL_UNDEFINED_HOPS;
	r->priority = LNET_CTL_ROUTE_PRIO_DEFAULT;
	r->sensitivity = 0;
	if (!lnetd_route_long(params, "hop", INT32_MIN, INT32_MAX, &given, &v) ||
	    (given && (v < 1 || v > 255) && v != -1)) {
		*why = "invalid hop count must be between 1 and 255";
		return -EINVAL;
	}
	r->hops = given && v != -1 ? (uint32_t)v : LNET_CTL_UNDEFINED_HOPS;
	if (!lnetd_route_long(params, "priority", 0, UINT32_MAX, &given, &v)) {
		*why = "invalid priority, must not be negative";
		return -EINVAL;
	}
	r->priority = given ? (uint32_t)v : r->priority;
	if (!lnetd_route_long(params, "health_sensitivity", 0, INT32_MAX, &given, &v)) {
		*why = "invalid health_sensitivity, must be between 0 and 2147483647";
		return -EINVAL;
	}
	r->sensitivity = given ? (uint32_t)v : 0;
	return 0;
}

/* The kernel's "missing mandatory parameter", after the checks of each value. */
static int
lnetd_route_need(const struct lnetd_route_req *r, const char **why)
{
	if (!r->has_net) {
		*why = "missing mandatory parameter: network";
		return -ENODEV;
	}
	if (!r->has_gw) {
		*why = "missing mandatory parameter: gateway";
		return -ENODEV;
	}
	return 0;
}

const char *
lnetd_route_add_descr(int rc)
{
	switch (rc) {
	case -EINVAL:
		return "invalid settings for route creation";
	case -EHOSTUNREACH:
		return "No interface configured on the same net as gateway";
	case -ESHUTDOWN:
		return "Network is down";
	case -EEXIST:
		return "Route already exists or the specified network is local";
	default:
		return "failed to create route";
	}
}

/* /lnet/route_add,net=NET,gateway=NID[,hop=N][,priority=N][,health_sensitivity=N] */
static int
lnetd_route_add(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnetd_route_req r;
	const char *why = "";
	char err[256] = "";
	int rc;

	(void)cmd;
	rc = lnetd_route_ids(params, &r, &why);
	if (rc == 0) {
		rc = lnetd_route_numbers(params, &r, &why);
	}
	if (rc == 0) {
		rc = lnetd_route_need(&r, &why);
	}
	if (rc != 0) {
		return lnetd_reply_status(d, rc, why);
	}
	rc = lnet_ctl_route_add(r.net, &r.gw, r.hops, r.priority, r.sensitivity, err, sizeof(err));
	return lnetd_reply_status(d, rc, rc != 0 ? lnetd_route_add_descr(rc) : "");
}

/* /lnet/route_del,net=NET,gateway=NID: both needed, as the kernel's route command wants. */
static int
lnetd_route_del(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnetd_route_req r;
	const char *why = "";
	char err[256] = "";
	int rc;

	(void)cmd;
	rc = lnetd_route_ids(params, &r, &why);
	if (rc == 0) {
		rc = lnetd_route_need(&r, &why);
	}
	if (rc != 0) {
		return lnetd_reply_status(d, rc, why);
	}
	rc = lnet_ctl_route_del(r.net, &r.gw, err, sizeof(err));
	return lnetd_reply_status(d, rc, rc != 0 ? "failed to delete route" : "");
}

/* One route as "rN": what route show -v prints, hop -1 when it has none. */
static int
lnetd_route_entry(struct rte_tel_data *d, unsigned int k, const struct lnet_ctl_route *r)
{
	struct rte_tel_data *e = rte_tel_data_alloc();
	char s[LNET_NIDSTR_SIZE];
	char key[16];

	if (e == NULL) {
		return -ENOMEM;
	}
	rte_tel_data_start_dict(e);
	rte_tel_data_add_dict_string(e, "net", libcfs_net2str_r(r->net, s, sizeof(s)));
	rte_tel_data_add_dict_string(e, "gateway", libcfs_nidstr_r(&r->gateway, s, sizeof(s)));
	rte_tel_data_add_dict_int(e, "hop", r->hops == LNET_CTL_UNDEFINED_HOPS ? -1 : (int)r->hops);
	rte_tel_data_add_dict_u64(e, "priority", r->priority);
	rte_tel_data_add_dict_u64(e, "health_sensitivity", r->health_sensitivity);
	rte_tel_data_add_dict_string(e, "state", r->alive ? "up" : "down");
	rte_tel_data_add_dict_string(e, "type", r->single_hop ? "single-hop" : "multi-hop");
	snprintf(key, sizeof(key), "r%u", k);
	if (rte_tel_data_add_dict_container(d, key, e, 0) != 0) {
		rte_tel_data_free(e);
		return -ENOMEM;
	}
	return 0;
}

/* Every route, for one page: the list grows until it holds them all (routes may come meanwhile). */
static int
lnetd_route_all(struct lnet_ctl_route **out)
{
	struct lnet_ctl_route *routes = NULL;
	unsigned int cap = LNETD_ROUTE_PAGE;
	int n;

	for (;;) {
		struct lnet_ctl_route *grown = realloc(routes, (size_t)cap * sizeof(*routes));

		if (grown == NULL) {
			free(routes);
			return -ENOMEM;
		}
		routes = grown;
		n = lnet_ctl_route_list(routes, cap);
		if (n < 0 || (unsigned int)n <= cap) {
			break;
		}
		cap = (unsigned int)n + LNETD_ROUTE_PAGE;
	}
	if (n < 0) {
		free(routes);
		return n;
	}
	*out = routes;
	return n;
}

/* /lnet/route_show[,start=N]: the routes in the kernel's order, a page at a time. */
static int
lnetd_route_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_ctl_route *routes = NULL;
	bool given;
	long start = 0;
	int n;
	int i;

	(void)cmd;
	if (!lnetd_route_long(params, "start", 0, INT32_MAX, &given, &start)) {
		return lnetd_reply_status(d, -EINVAL, "start takes a number >= 0");
	}
	n = lnetd_route_all(&routes);
	if (n < 0) {
		return lnetd_reply_status(d, n, "");
	}
	lnetd_reply_status(d, 0, "");
	for (i = (int)start; i < n && i < (int)start + LNETD_ROUTE_PAGE; i++) {
		if (lnetd_route_entry(d, (unsigned int)(i - start), &routes[i]) != 0) {
			free(routes);
			return -ENOMEM;
		}
	}
	free(routes);
	rte_tel_data_add_dict_u64(d, "total", (uint64_t)n);
	rte_tel_data_add_dict_u64(d, "next", i < n ? (uint64_t)i : 0);
	return 0;
}

/* One CPT's pools as "cN": npages, nbuffers, credits, mincredits of tiny, small, large. */
static int
lnetd_routing_cpt(struct rte_tel_data *d, unsigned int cpt,
		  const struct lnet_ctl_rtr_pool pools[LNET_CTL_RTR_NPOOLS])
{
	struct rte_tel_data *a = rte_tel_data_alloc();
	char key[16];
	unsigned int j;

	if (a == NULL) {
		return -ENOMEM;
	}
	rte_tel_data_start_array(a, RTE_TEL_INT_VAL);
	for (j = 0; j < LNET_CTL_RTR_NPOOLS; j++) {
		rte_tel_data_add_array_int(a, pools[j].npages);
		rte_tel_data_add_array_int(a, pools[j].nbuffers);
		rte_tel_data_add_array_int(a, pools[j].credits);
		rte_tel_data_add_array_int(a, pools[j].mincredits);
	}
	snprintf(key, sizeof(key), "c%u", cpt);
	if (rte_tel_data_add_dict_container(d, key, a, 0) != 0) {
		rte_tel_data_free(a);
		return -ENOMEM;
	}
	return 0;
}

/*
 * /lnet/routing_show: enable, the pools of each CPT (none while routing
 * was never on: the kernel's routing show then prints nothing) and the
 * configured totals.
 */
static int
lnetd_routing_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_ctl_routing *rt = calloc(1, sizeof(*rt));
	unsigned int i;
	int rc;

	(void)cmd;
	(void)params;
	if (rt == NULL) {
		return lnetd_reply_status(d, -ENOMEM, "out of memory");
	}
	rc = lnet_ctl_routing_get(rt);
	lnetd_reply_status(d, rc, "");
	if (rc == 0) {
		rte_tel_data_add_dict_int(d, "enable", rt->enable);
		rte_tel_data_add_dict_u64(d, "ncpts", rt->ncpts);
		rte_tel_data_add_dict_u64(d, "forward_delay_s", rt->forward_delay_s);
		rte_tel_data_add_dict_int(d, "tiny", rt->buffers[LNET_CTL_RTR_TINY]);
		rte_tel_data_add_dict_int(d, "small", rt->buffers[LNET_CTL_RTR_SMALL]);
		rte_tel_data_add_dict_int(d, "large", rt->buffers[LNET_CTL_RTR_LARGE]);
	}
	for (i = 0; rc == 0 && i < rt->ncpts && i < LNET_CTL_ROUTING_CPTS; i++) {
		rc = lnetd_routing_cpt(d, i, rt->pools[i]);
	}
	free(rt);
	return rc == -ENOMEM ? rc : 0;
}

/* /lnet/routing_set,enable=0|1 (lnetctl set routing) */
static int
lnetd_routing_set(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char err[256] = "";
	bool given;
	long v = 0;
	int rc;

	(void)cmd;
	if (!lnetd_route_long(params, "enable", 0, 1, &given, &v) || !given) {
		return lnetd_reply_status(d, -EINVAL, "enable=0 or enable=1 is needed");
	}
	rc = lnet_ctl_routing_set(v == 1, err, sizeof(err));
	return lnetd_reply_status(d, rc, err);
}

/* /lnet/buffers_set[,tiny=N][,small=N][,large=N]: totals over all CPTs, 0 the default. */
static int
lnetd_buffers_set(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const char *const keys[LNET_CTL_RTR_NPOOLS] = { "tiny", "small", "large" };
	char err[256] = "";
	unsigned int i;
	int rc = 0;

	(void)cmd;
	for (i = 0; rc == 0 && i < LNET_CTL_RTR_NPOOLS; i++) {
		bool given;
		long v = 0;

		if (!lnetd_route_long(params, keys[i], INT32_MIN, INT32_MAX, &given, &v)) {
			return lnetd_reply_status(d, -EINVAL,
						  "tiny, small and large take a number");
		}
		if (given) {
			rc = lnet_ctl_buffers_set((enum lnet_ctl_rtr_pool_kind)i, (int)v, err,
						  sizeof(err));
		}
	}
	return lnetd_reply_status(d, rc, err);
}

/*
 * "NAME=VALUE[,NAME=VALUE...]" of --lnet-params: each pair well formed and
 * VALUE an integer (any base, as /sys/module/lnet/parameters takes them);
 * with @p apply, each given to lnet_ctl_param_set in turn, which checks
 * the name and the value.
 */
int
lnetd_lnet_params(const char *list, bool apply, char *err, size_t errlen)
{
	const char *p = list;

	while (*p != '\0') {
		const char *end = strchr(p, ',');
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', n);
		char name[64];
		char *vend = NULL;
		long v;
		int rc;

		if (eq == NULL || eq == p || (size_t)(eq - p) >= sizeof(name) || eq + 1 == p + n) {
			snprintf(err, errlen, "'%.*s': NAME=VALUE expected", (int)n, p);
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - p), p);
		errno = 0;
		v = strtol(eq + 1, &vend, 0);
		if (vend != p + n || errno != 0 || v < INT32_MIN || v > INT32_MAX) {
			snprintf(err, errlen, "%s: '%.*s' is not an integer", name,
				 (int)(p + n - eq - 1), eq + 1);
			return -EINVAL;
		}
		if (apply && (rc = lnet_ctl_param_set(name, (int)v, err, errlen)) != 0) {
			if (err[0] == '\0') {
				snprintf(err, errlen, "%s=%ld: %s", name, v, strerror(-rc));
			}
			return rc;
		}
		p = end != NULL ? end + 1 : p + n;
	}
	return 0;
}

int
lnetd_route_register(void)
{
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} cmds[] = {
		{ "/lnet/route_add", lnetd_route_add,
		  "Add a route. Params: net=NET, gateway=NID, hop=N, priority=N, "
		  "health_sensitivity=N" },
		{ "/lnet/route_del", lnetd_route_del,
		  "Delete the route to net=NET through gateway=NID" },
		{ "/lnet/route_show", lnetd_route_show, "Routes, paged. Params: start=N" },
		{ "/lnet/routing_show", lnetd_routing_show,
		  "Routing state and router buffer pools per CPT (lnetctl routing show)" },
		{ "/lnet/routing_set", lnetd_routing_set, "Turn routing on or off: enable=1|0" },
		{ "/lnet/buffers_set", lnetd_buffers_set,
		  "Router buffers, totals over all CPTs (0: default). Params: tiny, small, large" },
	};
	unsigned int i;
	int rc = 0;

	for (i = 0; rc == 0 && i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		rc = lnetd_telemetry_add(cmds[i].cmd, cmds[i].fn, cmds[i].help);
	}
	return rc;
}
