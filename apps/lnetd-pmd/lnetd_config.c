/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --config FILE and the embedded default: the lnetctl export model
 * (apps/common/lnetcfg), checked whole against this node before anything
 * changes (ip2nets: items matched against this host's interfaces), then
 * applied: globals, NIs, peers, routes, routing and its buffers, then
 * UDSP rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "lnet_ctl.h"
#include "lnetd.h"

/* Errors gathered into the caller's buffer, one per line. */
struct lnetd_cfg_errors {
	char *buf;
	size_t len;
	size_t used;
	const struct lnetcfg *cfg; /* a file that is not YAML: libyaml's words, after its name */
};

static void
lnetd_cfg_report(void *arg, const char *msg)
{
	struct lnetd_cfg_errors *e = arg;
	int w;

	if (e->used >= e->len) {
		return;
	}
	w = snprintf(e->buf + e->used, e->len - e->used, "%s%s%s%s", e->used > 0 ? "\n" : "",
		     e->cfg != NULL && e->cfg->syntax ? e->cfg->origin : "",
		     e->cfg != NULL && e->cfg->syntax ? ": " : "", msg);
	e->used += w > 0 ? (size_t)w : 0;
}

/* Warnings (keys the kernel's import ignores) on stderr, as lnetctl import prints them. */
static void
lnetd_cfg_warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s\n", msg);
}

static void
lnetd_check_nis(struct lnetcfg *cfg)
{
	unsigned int i;
	unsigned int j;

	for (i = 0; i < cfg->nnis; i++) {
		const struct lnetcfg_ni *ni = &cfg->nis[i];
		char why[256] = "";

		if (lnetd_ni_check(ni, why, sizeof(why)) != 0) {
			lnetcfg_error(cfg, &ni->at, "%s", why);
		}
		for (j = 0; j < i; j++) {
			if ((ni->has_nid && cfg->nis[j].has_nid &&
			     lnet_nid_same(&ni->nid, &cfg->nis[j].nid)) ||
			    (ni->ifname[0] != '\0' && ni->net == cfg->nis[j].net &&
			     strcmp(ni->ifname, cfg->nis[j].ifname) == 0)) {
				lnetcfg_error(cfg, &ni->at, "this NI is listed twice");
			}
		}
	}
}

/*
 * route: items. Their gateways may be peers of the file: those come first,
 * so a route finds its gateway peer as the file describes it.
 */
static int
lnetd_apply_routes(struct lnetcfg *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->nroutes; i++) {
		const struct lnetcfg_route *r = &cfg->routes[i];
		char why[256] = "";
		int rc = lnet_ctl_route_add(r->net, &r->gateway,
					    r->hops < 0 ? LNET_CTL_UNDEFINED_HOPS :
							  (uint32_t)r->hops,
					    (uint32_t)r->priority, (uint32_t)r->health_sensitivity,
					    why, sizeof(why));

		if (rc != 0) {
			lnetcfg_error(cfg, &r->at, "route: %s",
				      why[0] != '\0' ? why : lnetd_route_add_descr(rc));
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * routing: then buffers:, in export's order (the kernel's import applies
 * them in file order, and resizes the pools only once routing is on).
 */
static int
lnetd_apply_routing(struct lnetcfg *cfg)
{
	char why[256] = "";
	unsigned int i;
	int rc;

	/*
	 * The start-up file sizes the pools routing starts with (the kernel's
	 * module parameters), so a router comes up with them rather than with
	 * the default 1 GiB shrunk later; buffers: below then changes nothing.
	 */
	for (i = 0; cfg->has_buffers && cfg->routing == 1 && i < LNETCFG_RTR_POOLS; i++) {
		static const char *const params[] = { "tiny_router_buffers", "small_router_buffers",
						      "large_router_buffers" };

		if (cfg->buffers[i] > 0) {
			lnet_ctl_param_set(params[i], cfg->buffers[i], why, sizeof(why));
		}
	}
	if (cfg->routing != LNETCFG_UNSET) {
		rc = lnet_ctl_routing_set(cfg->routing == 1, why, sizeof(why));
		if (rc != 0) {
			lnetcfg_error(cfg, &cfg->routing_at, "routing: %s",
				      why[0] != '\0' ? why : strerror(-rc));
			return -EINVAL;
		}
	}
	for (i = 0; cfg->has_buffers && i < LNETCFG_RTR_POOLS; i++) {
		rc = lnet_ctl_buffers_set((enum lnet_ctl_rtr_pool_kind)i, cfg->buffers[i], why,
					  sizeof(why));
		if (rc != 0) {
			lnetcfg_error(cfg, &cfg->buffers_at, "buffers: %s",
				      why[0] != '\0' ? why : strerror(-rc));
			return -EINVAL;
		}
	}
	return 0;
}

int
lnetd_global_apply(const char *key, int value, char *why, size_t whylen)
{
	int rc;

	if (strcmp(key, "lnet_selftest") != 0) {
		return lnet_ctl_global_set(key, value, why, whylen);
	}
	rc = lnetd_selftest_set(value);
	if (rc == -EINVAL) {
		snprintf(why, whylen, "lnet_selftest: 0 or 1");
	} else if (rc != 0) {
		snprintf(why, whylen, "lnet_selftest: cannot start: %s", strerror(-rc));
	}
	return rc;
}

static int
lnetd_apply(struct lnetcfg *cfg)
{
	unsigned int i;

	/* Globals first, in file order, with the checks of lnetctl set. */
	for (i = 0; i < cfg->nglobals; i++) {
		char why[256] = "";

		if (lnetd_global_apply(cfg->globals[i].key, (int)cfg->globals[i].value, why,
				       sizeof(why)) != 0) {
			lnetcfg_error(cfg, &cfg->globals[i].at, "global: %s", why);
			return -EINVAL;
		}
	}
	for (i = 0; i < cfg->nnis; i++) {
		char why[256] = "";

		if (lnetd_ni_add(&cfg->nis[i], why, sizeof(why)) != 0) {
			lnetcfg_error(cfg, &cfg->nis[i].at, "%s", why);
			return -EINVAL;
		}
	}
	for (i = 0; i < cfg->npeers; i++) {
		const struct lnetcfg_peer *p = &cfg->peers[i];
		char why[256] = "";

		if (lnet_ctl_peer_add(&p->prim, p->nis, p->nnis, p->mr, why, sizeof(why)) != 0) {
			lnetcfg_error(cfg, &p->at, "peer: %s", why);
			return -EINVAL;
		}
	}
	if (lnetd_apply_routes(cfg) != 0 || lnetd_apply_routing(cfg) != 0) {
		return -EINVAL;
	}
	/* UDSP rules last, each at the file's idx (as lnetctl import adds them). */
	for (i = 0; i < cfg->nudsps; i++) {
		const struct lnetcfg_udsp *u = &cfg->udsps[i];
		char why[256] = "";
		int rc = lnet_ctl_udsp_add(u->src, u->dst, u->rte, u->priority, (int)u->idx, why,
					   sizeof(why));

		if (rc != 0) {
			lnetcfg_error(cfg, &u->at, "udsp: %s",
				      why[0] != '\0' ? why : strerror(-rc));
			return -EINVAL;
		}
	}
	return 0;
}

static int
lnetd_config_run(struct lnetcfg *cfg, int parsed)
{
	int rc = parsed;

	/* Even a file with errors is checked on: every error is reported at once. */
	if (rc == 0 && cfg->nports > 0) {
		char why[512] = "";

		/* The ports first: the nets on them take their addresses. */
		rc = lnetd_ports_open(cfg, why, sizeof(why));
		if (rc != 0) {
			lnetcfg_error(cfg, &cfg->ports[0].at, "%s", why);
			rc = -EINVAL;
		}
	}
	if (rc == 0 || rc == -EINVAL) {
		lnetcfg_ip2nets_resolve_here(cfg);
		lnetd_check_nis(cfg);
		rc = cfg->nerrors > 0 ? -EINVAL : lnetd_apply(cfg);
	}
	lnetcfg_fini(cfg);
	return rc;
}

int
lnetd_config_apply_text(const char *text, size_t len, const char *origin, char *err, size_t errlen)
{
	struct lnetd_cfg_errors e = { err, errlen, 0, NULL };
	struct lnetcfg cfg;

	if (errlen > 0) {
		err[0] = '\0';
	}
	lnetcfg_init(&cfg, origin, lnetd_cfg_report, &e);
	cfg.warn = lnetd_cfg_warn;
	e.cfg = &cfg;
	return lnetd_config_run(&cfg, lnetcfg_parse(&cfg, text, len));
}

int
lnetd_config_apply_file(const char *path, char *err, size_t errlen)
{
	struct lnetd_cfg_errors e = { err, errlen, 0, NULL };
	struct lnetcfg cfg;

	if (errlen > 0) {
		err[0] = '\0';
	}
	lnetcfg_init(&cfg, path, lnetd_cfg_report, &e);
	cfg.warn = lnetd_cfg_warn;
	e.cfg = &cfg;
	return lnetd_config_run(&cfg, lnetcfg_parse_file(&cfg, path));
}
