/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * set, export and import. export prints what `net show -v 2`, `route show
 * -v`, `peer show -v 3`, `routing show` and `global show` print, in the
 * kernel's section order (its jt_export: net, route, peer, then routing,
 * buffers, global, udsp); import applies a file section by section in
 * file order, as 2.17's jt_import does (struct lnetctl_import). Errors are
 * the kernel's blocks on stderr (set: "add:" under the tunable's name,
 * "parser:" for a value that is not a number; import: "add:"/"del:" under
 * "import"), one block per run, and the kernel's negative errno.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <getopt.h>
#include <limits.h>
#include <string.h>

#include "cfs.h"
#include "lnetctl.h"

static int lnetctl_global_request(struct lnetctl_conn *c, const char *key, long value, char *descr,
				  size_t len);

int
lnetctl_export(struct lnetctl_conn *c, bool backup)
{
	int rc = 0;

	/* --backup: what re-creates the configuration; no lo, no runtime state. */
	rc = lnetctl_net_show(c, NULL, backup ? -1 : 2);
	fflush(stdout);
	if (rc == 0) {
		rc = lnetctl_route_export(c, backup);
	}
	if (rc == 0) {
		rc = lnetctl_peer_show(c, NULL, backup ? -1 : 3); /* the kernel's export: -v 3 */
	}
	fflush(stdout);
	/*
	 * The kernel's export prints net, route and peer as its netlink dumps
	 * come; routing and buffers go into the cYAML tree it prints last,
	 * ahead of global (jt_export, lnetctl.c).
	 */
	if (rc == 0) {
		rc = lnetctl_routing_show(c, backup);
	}
	if (rc == 0) {
		rc = lnetctl_global_export(c);
	}
	fflush(stdout);
	/* The rules after global:, as udsp show prints them; --backup keeps them too, as the kernel's. */
	return rc != 0 ? rc : lnetctl_udsp_show(c, -1);
}

/*
 * An import in progress. 2.17's jt_import (lnetctl.c) reads the file as a
 * stream of YAML events and acts on each top-level section as it reads it,
 * in file order, in one of two ways:
 *
 * - peer:, route:, routing:, buffers: and numa: are netlink sections: the
 *   events go into one netlink message (its emitter is opened on the
 *   section's name), which is sent when the next section starts or the
 *   file ends. The kernel carries a message out item by item and stops at
 *   its first failure (lnet_peer_ni_cmd, lnet_route_cmd...), but nobody
 *   reads the reply then: all the messages go on one socket, and only at
 *   the very end does jt_import read from it, once, which gives the reply
 *   to the first message sent. So an import goes on past a netlink
 *   section that failed; only the first such section's failure is
 *   reported, under add:/del: - import:, and the later ones are lost.
 *
 * - global: (and any other key, read as a global setting), net: /
 *   ip2nets: and udsp: are carried out at once by lnetctl itself, each
 *   setting, NI or rule in turn, each with its own request and reply. Their
 *   first failure ends the import there: what came before stays, the
 *   netlink replies are never read, and the status is that failure's.
 *
 * A key that names no section, read after a netlink section, goes into
 * its message, which then cannot be written: the import ends there with
 * the emitter's "Writer error", neither applied. A YAML syntax error ends
 * it where libyaml stops: what the events before it made whole took
 * effect (a netlink section only if the next section's key was read),
 * then libyaml's words alone; the netlink replies are not read.
 *
 * What the kernel only finds out while carrying a message out (a NID that
 * does not parse, a bad hop count) therefore comes after the items and
 * sections ahead of it took effect. lnetcfg reads the file section by
 * section in the same order, up to each section's first error; this
 * applies each as it comes.
 */
struct lnetctl_import {
	struct lnetctl_conn *c;
	bool del;
	bool exec;       /* --exec: global settings read, not applied */
	char first[512]; /* the section's first error, lnetcfg's located words */
	unsigned int nerrs;
	bool nl_sent; /* a netlink section went before */
	int nl_err;   /* the first one's reply: 0, or its errno and text */
	char nl_descr[256];
};

static void
lnetctl_import_report(void *arg, const char *msg)
{
	struct lnetctl_import *imp = arg;

	if (imp->nerrs++ == 0) {
		snprintf(imp->first, sizeof(imp->first), "%s", msg);
	}
}

static void
lnetctl_import_warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s\n", msg);
}

/* The daemon's NIs (/lnet/net_show detail 0): net, nid, interface. */
struct lnetctl_cur_nis {
	yaml_document_t doc;
	yaml_node_t *value;
};

static int
lnetctl_cur_nis_get(struct lnetctl_conn *c, struct lnetctl_cur_nis *cur, const char *verb,
		    const char *object)
{
	yaml_node_t *root;
	char err[256];
	char descr[300];
	int rc = lnetctl_request(c, "/lnet/net_show", "detail=0", &cur->doc, err, sizeof(err));

	if (rc != 0) {
		/* jt_unconfig_lnet: yaml_lnet_print_error(0, "lnet", ...) names it "configure" */
		snprintf(descr, sizeof(descr), "LNet configure error: %s", err);
		lnetctl_print_nl_error(verb, object, rc, descr);
		return rc;
	}
	root = yaml_document_get_root_node(&cur->doc);
	cur->value = yaml_document_get_node(&cur->doc, root->data.mapping.pairs.start->value);
	return 0;
}

/* One /lnet/peer_add or peer_del of an import; the node's status. */
static int
lnetctl_import_peer_ask(struct lnetctl_conn *c, bool add, const char *prim, const char *nid)
{
	char params[2 * LNET_NIDSTR_SIZE + 32];
	char descr[256];

	snprintf(params, sizeof(params), "prim_nid=%s%s%s", prim, nid != NULL ? ",nid=" : "",
		 nid != NULL ? nid : "");
	return lnetctl_call(c, add ? "/lnet/peer_add" : "/lnet/peer_del", params, descr,
			    sizeof(descr));
}

/*
 * One peer: item as 2.17's lnet_peer_ni_cmd (lnet/lnet/api-ni.c) carries
 * it out. add: the primary first ("failed to add primary peer"), then each
 * NID ("failed to add peer"); a failure deletes the peer again (its
 * report_err). 2.17 makes every peer Multi-Rail whatever its
 * "Multi-Rail" says: the primary goes in with mr true, and the flag the
 * key sets lives in the loop over the item's keys, reset before the "peer
 * ni" list is read. del: the NIDs listed before the primary one each ("failed to
 * del peer"), then, when the list names the primary or there is no list,
 * the whole peer ("failed to del primary peer"). The status, and the
 * kernel's words in @p why when it fails.
 */
static int
lnetctl_import_peer(struct lnetctl_conn *c, const struct lnetcfg_peer *p, bool del,
		    const char **why)
{
	char prim[LNET_NIDSTR_SIZE];
	char nid[LNET_NIDSTR_SIZE];
	unsigned int i;
	int rc = 0;

	*why = del ? "failed to del primary peer" : "failed to add primary peer";
	libcfs_nidstr_r(&p->prim, prim, sizeof(prim));
	if (!del) {
		rc = lnetctl_import_peer_ask(c, true, prim, NULL);
	}
	for (i = 0; rc == 0 && i < (del ? p->nis_before_prim : p->nnis); i++) {
		*why = del ? "failed to del peer" : "failed to add peer";
		rc = lnetctl_import_peer_ask(c, !del, prim,
					     libcfs_nidstr_r(&p->nis[i], nid, sizeof(nid)));
	}
	if (rc == 0 && del && (!p->has_ni_list || p->lists_prim)) {
		*why = "failed to del primary peer";
		rc = lnetctl_import_peer_ask(c, false, prim, NULL);
	}
	if (rc != 0 && !del) {
		(void)lnetctl_import_peer_ask(c, false, prim, NULL);
	}
	return rc;
}

/*
 * libnl's text for an errno (nl_syserr2nlerr, then nl_geterror): what
 * 2.17's lnetctl prints for a netlink reply that carries no message of the
 * kernel's own, as routing:, buffers: and numa: replies never do.
 */
static const char *
lnetctl_nl_errtext(int err)
{
	static const struct {
		int err;
		const char *text;
	} texts[] = {
		{ EBADF, "Bad socket" },
		{ ENOTSOCK, "Bad socket" },
		{ EADDRINUSE, "Object exists" },
		{ EEXIST, "Object exists" },
		{ EADDRNOTAVAIL, "Invalid address for specified address family" },
		{ ESRCH, "Object not found" },
		{ ENOENT, "Object not found" },
		{ EINTR, "Interrupted system call" },
		{ EAGAIN, "Try again" },
		{ ENOPROTOOPT, "Invalid input data or parameter" },
		{ EFAULT, "Invalid input data or parameter" },
		{ EINVAL, "Invalid input data or parameter" },
		{ EACCES, "No Access" },
		{ ENOBUFS, "Out of memory" },
		{ ENOMEM, "Out of memory" },
		{ EAFNOSUPPORT, "Address family not supported" },
		{ EPROTONOSUPPORT, "Protocol mismatch" },
		{ EOPNOTSUPP, "Operation not supported" },
		{ EPERM, "Operation not permitted" },
		{ EBUSY, "Object busy" },
		{ ERANGE, "Input data out of range" },
		{ ENODEV, "No such device" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		if (texts[i].err == (err < 0 ? -err : err)) {
			return texts[i].text;
		}
	}
	return "Unspecific failure";
}

/*
 * A netlink section's items: peers, routes, routing and buffers, numa.
 * The kernel stops at the first item it refuses; the status, and in
 * @p descr what its reply says.
 */
static int
lnetctl_import_nl_items(struct lnetctl_import *imp, const struct lnetcfg *cfg, const char *name,
			char *descr, size_t len)
{
	const char *why = NULL;
	char params[64];
	unsigned int i;
	int rc = 0;

	for (i = 0; rc == 0 && strcmp(name, "peer") == 0 && i < cfg->npeers; i++) {
		rc = lnetctl_import_peer(imp->c, &cfg->peers[i], imp->del, &why);
		snprintf(descr, len, "%s", why);
	}
	for (i = 0; rc == 0 && strcmp(name, "route") == 0 && i < cfg->nroutes; i++) {
		const struct lnetcfg_route *r = &cfg->routes[i];
		char net[LNET_NIDSTR_SIZE];
		char gw[LNET_NIDSTR_SIZE];
		char rp[2 * LNET_NIDSTR_SIZE + 64];

		libcfs_net2str_r(r->net, net, sizeof(net));
		libcfs_nidstr_r(&r->gateway, gw, sizeof(gw));
		/* lnet_route_cmd reads net, gateway, hop and priority; health_sensitivity it does not */
		if (imp->del) {
			snprintf(rp, sizeof(rp), "net=%s,gateway=%s", net, gw);
		} else if (r->hops != -1) {
			snprintf(rp, sizeof(rp), "net=%s,gateway=%s,priority=%ld,hop=%ld", net, gw,
				 r->priority, r->hops);
		} else {
			snprintf(rp, sizeof(rp), "net=%s,gateway=%s,priority=%ld", net, gw,
				 r->priority);
		}
		rc = lnetctl_call(imp->c, imp->del ? "/lnet/route_del" : "/lnet/route_add", rp,
				  descr, len);
	}
	/* lnet_routing_cmd, lnet_buffers_cmd and lnet_numa_cmd read no add/del: the file's values go in */
	if (rc == 0 && strcmp(name, "routing") == 0 && cfg->routing != LNETCFG_UNSET) {
		snprintf(params, sizeof(params), "enable=%d", cfg->routing == 1 ? 1 : 0);
		rc = lnetctl_call(imp->c, "/lnet/routing_set", params, descr, len);
	}
	for (i = 0;
	     rc == 0 && strcmp(name, "buffers") == 0 && cfg->has_buffers && i < LNETCFG_RTR_POOLS;
	     i++) {
		snprintf(params, sizeof(params), "%s=%d", lnetcfg_rtr_pool_names[i],
			 cfg->buffers[i]);
		rc = lnetctl_call(imp->c, "/lnet/buffers_set", params, descr, len);
	}
	for (i = 0; rc == 0 && strcmp(name, "numa") == 0 && i < cfg->nglobals; i++) {
		rc = lnetctl_global_request(imp->c, cfg->globals[i].key, cfg->globals[i].value,
					    descr, len);
	}
	if (rc != 0 && strcmp(name, "peer") != 0 && strcmp(name, "route") != 0) {
		snprintf(descr, len, "%s", lnetctl_nl_errtext(rc));
	}
	return rc;
}

/*
 * import --del of udsp: as 2.17's handle_udsp_sequences: each rule with an
 * idx, in file order (the node renumbers the rules after each, as the
 * kernel's lnet_udsp_del_policy does). lustre_lnet_del_udsp returns
 * l_ioctl's -1 on a refusal and its error tree is dropped: nothing printed,
 * the import ends with -1.
 */
static int
lnetctl_import_udsp_del(struct lnetctl_conn *c, const struct lnetcfg *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->nudsps; i++) {
		char params[32];
		char descr[256];

		if (cfg->udsps[i].idx < 0) {
			continue;
		}
		snprintf(params, sizeof(params), "idx=%ld", cfg->udsps[i].idx);
		if (lnetctl_call(c, "/lnet/udsp_del", params, descr, sizeof(descr)) != 0) {
			return -1;
		}
	}
	return 0;
}

/*
 * udsp: rules added as 2.17's handle_udsp_sequences adds them: one when a
 * mapping that had an idx ends (one without is not added). The node's
 * refusal comes back from the ioctl as a positive errno, which it passes
 * over. Each rule goes at the file's idx, so that export then import gives
 * the same list; the kernel's import differs there (it refuses
 * "priority: 0", an empty action type, and sends a rule without priority
 * as priority -1): this one adds what udsp show and export print.
 */
static void
lnetctl_import_udsp_add(struct lnetctl_conn *c, const struct lnetcfg *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->nudsps; i++) {
		const struct lnetcfg_udsp *u = &cfg->udsps[i];

		if (u->idx >= 0) {
			(void)lnetctl_udsp_import_add(c, u->src[0] != '\0' ? u->src : NULL,
						      u->dst[0] != '\0' ? u->dst : NULL,
						      u->rte[0] != '\0' ? u->rte : NULL,
						      u->priority, u->idx);
		}
	}
}

/* What lnetctl set says it failed to configure, as the kernel names each tunable. */
struct lnetctl_tunable {
	const char *name;
	const char *what; /* "cannot configure <what>: ..." */
	long min;         /* checked before the daemon is asked (the kernel's library checks) */
	const char *below_min; /* descr when under min, or NULL: no such check */
};

/* LNET_INTERFACES_MAX_DEFAULT of the kernel's lnet-dlc.h: what import --del puts back. */
#define LNETCTL_INTERFACES_MAX_DEFAULT 200

static const struct lnetctl_tunable lnetctl_tunables[] = {
	{ "numa_range", "numa_range", 0, NULL },
	{ "max_interfaces", "max interfaces", 0, NULL },
	{ "discovery", "discovery", 0, NULL },
	{ "drop_asym_route", "drop asym route", 0, NULL },
	{ "retry_count", "retry count", 0, NULL },
	{ "transaction_timeout", "transaction timeout", 0, NULL },
	{ "health_sensitivity", "health sensitivity", 0, NULL },
	{ "recovery_interval", "recovery interval", 0, NULL },
	{ "router_sensitivity", "router health sensitivity", 0, NULL },
	{ "response_tracking", "response tracking", 0, "Valid values are: 0, 1, 2, or 3" },
	{ "recovery_limit", "recovery limit", 0, "Must be greater than or equal to 0" },
	{ "max_recovery_ping_interval", "maximum recovery ping interval", 1,
	  "must be strictly positive" },
};

static const struct lnetctl_tunable *
lnetctl_tunable_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(lnetctl_tunables) / sizeof(lnetctl_tunables[0]); i++) {
		if (strcmp(lnetctl_tunables[i].name, name) == 0) {
			return &lnetctl_tunables[i];
		}
	}
	return NULL;
}

/* /lnet/global_set: the daemon's status, its descr in @p descr when it refuses. */
static int
lnetctl_global_request(struct lnetctl_conn *c, const char *key, long value, char *descr, size_t len)
{
	char params[128];

	snprintf(params, sizeof(params), "key=%s,value=%ld", key, value);
	return lnetctl_call(c, "/lnet/global_set", params, descr, len);
}

/*
 * One tunable to the daemon, its refusal as the kernel's block: "add:"
 * under the tunable's name; the kernel's library refuses some values
 * itself (-EINVAL), the others are refused where it writes them, which it
 * reports as -ENODATA with the write's reason.
 */
static int
lnetctl_tunable_set_as(struct lnetctl_conn *c, const struct lnetctl_tunable *t, long value,
		       bool quiet)
{
	char descr[256];
	int rc;

	if (t->below_min != NULL &&
	    (value < t->min || (strcmp(t->name, "response_tracking") == 0 && value > 3))) {
		if (!quiet) {
			lnetctl_print_error("add", t->name, -EINVAL, t->below_min);
		}
		return -EINVAL;
	}
	if (value < INT_MIN || value > INT_MAX) {
		rc = -ERANGE;
	} else {
		rc = lnetctl_global_request(c, t->name, value, descr, sizeof(descr));
	}
	if (rc == 0) {
		return 0;
	}
	if (strcmp(t->name, "numa_range") == 0) {
		snprintf(descr, sizeof(descr), "cannot configure numa_range to %ld: %s", value,
			 strerror(-rc));
	} else {
		snprintf(descr, sizeof(descr), "cannot configure %s: %s", t->what, strerror(-rc));
		rc = -ENODATA;
	}
	if (!quiet) {
		lnetctl_print_error("add", t->name, rc, descr);
	}
	return rc;
}

static int
lnetctl_tunable_set(struct lnetctl_conn *c, const struct lnetctl_tunable *t, long value)
{
	return lnetctl_tunable_set_as(c, t, value, false);
}

/*
 * One global: setting of an import, as 2.17's yaml_import_global_settings
 * (lnetctl.c) applies it: with --del, numa_range goes back to 0,
 * max_interfaces to its default and discovery to on, the others stay. The
 * library's error tree is built into a copy of handle_global_parameter's
 * pointer and never printed: a refusal ends the import with its status
 * alone (-EINVAL for the library's own checks, -ENODATA for a write the
 * kernel refused).
 */
static int
lnetctl_import_global(struct lnetctl_conn *c, const struct lnetcfg_global *g, bool del)
{
	const struct lnetctl_tunable *t = lnetctl_tunable_find(g->key);
	long value = g->value;
	char descr[256];

	if (strcmp(g->key, "lnet_selftest") == 0) {
		/* lnetd-pmd's extension (its lnet_selftest service); --del leaves it */
		return del ? 0 : lnetctl_global_request(c, g->key, value, descr, sizeof(descr));
	}
	if (t == NULL) {
		return 0; /* lnd_timeout: lnetcfg leaves it out, the kernel does nothing with it */
	}
	if (del) {
		if (strcmp(g->key, "numa_range") == 0) {
			value = 0;
		} else if (strcmp(g->key, "max_interfaces") == 0) {
			value = LNETCTL_INTERFACES_MAX_DEFAULT;
		} else if (strcmp(g->key, "discovery") == 0) {
			value = 1;
		} else {
			return 0;
		}
	}
	return lnetctl_tunable_set_as(c, t, value, true);
}

/*
 * The end of a section's reading: its first error, when it had one, in the
 * words 2.17's import has for it (a netlink reply's, or
 * yaml_lnet_extract_long's and handle_global_parameter's, under "import";
 * nothing for a rule the udsp library refuses), else this reader's own
 * located words. 0 when the section had none.
 */
static int
lnetctl_import_read_error(struct lnetctl_import *imp, const struct lnetcfg *cfg)
{
	const char *verb = imp->del ? "del" : "add";

	if (cfg->nerrors == 0) {
		return 0;
	}
	if (cfg->kerr != 0 && cfg->kerr_silent) {
		return cfg->kerr;
	}
	if (cfg->kerr != 0) {
		lnetctl_print_nl_error(verb, "import", cfg->kerr, cfg->kdescr);
	} else {
		lnetctl_print_error(verb, "import", -EINVAL, imp->first);
	}
	return -EINVAL;
}

/* A netlink section: "peer", "route", "routing", "buffers", "numa". */
static bool
lnetctl_import_is_nl(const char *name)
{
	static const char *const nl[] = { "peer", "route", "routing", "buffers",
					  "numa", "ping",  "discover" };
	unsigned int i;

	for (i = 0; i < sizeof(nl) / sizeof(nl[0]); i++) {
		if (strcmp(nl[i], name) == 0) {
			return true;
		}
	}
	return false;
}

/*
 * One section, read up to its first error (lnetcfg, section()): applied
 * as 2.17's jt_import applies it (see struct lnetctl_import). 0 to go on.
 */
static int
lnetctl_import_section(struct lnetcfg *cfg, const char *name, void *arg)
{
	struct lnetctl_import *imp = arg;
	char descr[256] = "";
	unsigned int i;
	int rc = 0;

	if (strcmp(name, LNETCFG_WRITER_ERROR) == 0) {
		/*
		 * jt_import's emitter_error: yaml_emitter_log_error's words
		 * for yaml_netlink_write_handler's failure; the replies to the
		 * sections sent before are not read.
		 */
		fprintf(stderr, "Writer error: Netlink group does not exist\n");
		return -EINVAL;
	}
	if (imp->exec && lnetctl_import_is_nl(name)) {
		/* ping: or discover: (LNET_CMD_PING): not built yet */
		lnetctl_print_error(
			imp->del ? "del" : "add", "import", -EOPNOTSUPP,
			"import --exec: ping and discover not supported by lnetd-pmd yet");
		return -EOPNOTSUPP;
	}
	if (lnetctl_import_is_nl(name)) {
		rc = lnetctl_import_nl_items(imp, cfg, name, descr, sizeof(descr));
		if (rc == 0 && cfg->nerrors > 0 && cfg->kerr != 0 && !cfg->kerr_silent) {
			rc = cfg->kerr; /* the kernel reads the item after those it carried out */
			snprintf(descr, sizeof(descr), "%s", cfg->kdescr);
		} else if (rc == 0 && cfg->nerrors > 0) {
			/* No kernel form: ours, at once. */
			rc = lnetctl_import_read_error(imp, cfg);
			imp->nerrs = 0;
			return rc;
		}
		if (!imp->nl_sent) {
			imp->nl_sent = true;
			imp->nl_err = rc;
			snprintf(imp->nl_descr, sizeof(imp->nl_descr), "%s", descr);
		}
		imp->nerrs = 0;
		return 0;
	}
	if (strcmp(name, "net") == 0 || strcmp(name, "ip2nets") == 0) {
		if (cfg->nerrors == 0) {
			lnetcfg_ip2nets_resolve_here(cfg);
		}
		/* handle_net_config_sequence: each NI in turn, the first refused ends the import */
		for (i = 0; rc == 0 && i < cfg->nnis; i++) {
			rc = lnetctl_import_ni(imp->c, &cfg->nis[i], !imp->del);
		}
	} else if (strcmp(name, "global") == 0) {
		/* yaml_import_global_settings: a refusal ends it, nothing printed; --exec sets nothing */
		for (i = 0; rc == 0 && !imp->exec && i < cfg->nglobals; i++) {
			rc = lnetctl_import_global(imp->c, &cfg->globals[i], imp->del);
		}
	} else if (strcmp(name, "udsp") == 0 && imp->del) {
		rc = lnetctl_import_udsp_del(imp->c, cfg);
	} else if (strcmp(name, "udsp") == 0) {
		lnetctl_import_udsp_add(imp->c, cfg);
	}
	if (rc == 0) {
		rc = lnetctl_import_read_error(imp, cfg);
	}
	imp->nerrs = 0;
	return rc;
}

int
lnetctl_import(struct lnetctl_conn *c, const char *file, bool del, bool exec)
{
	struct lnetctl_import imp = { .c = c, .del = del, .exec = exec };
	struct lnetcfg cfg;
	int rc;

	lnetcfg_init(&cfg, file, lnetctl_import_report, &imp);
	cfg.warn = lnetctl_import_warn;
	cfg.udsp_del = del;
	cfg.import_exec = exec;
	cfg.section = lnetctl_import_section;
	rc = lnetcfg_parse_file(&cfg, file);
	if (rc != 0 && cfg.syntax) {
		fprintf(stderr, "%s\n", imp.first); /* libyaml's words, as the kernel prints them */
	} else if (rc == 0 && imp.nl_err != 0) {
		/* jt_import's last step: the first netlink reply, read now */
		lnetctl_print_nl_error(del ? "del" : "add", "import", imp.nl_err, imp.nl_descr);
		rc = -EINVAL;
	}
	lnetcfg_fini(&cfg);
	return rc;
}

int
lnetctl_unconfigure(struct lnetctl_conn *c)
{
	struct lnetctl_cur_nis cur = { .value = NULL };
	yaml_node_pair_t *p;
	int rc = lnetctl_cur_nis_get(c, &cur, "configure", "lnet");

	for (p = rc == 0 ? cur.value->data.mapping.pairs.start : NULL;
	     p != NULL && p < cur.value->data.mapping.pairs.top && rc == 0; p++) {
		yaml_node_t *ni = yaml_document_get_node(&cur.doc, p->value);
		const char *nid = lnetctl_scalar(lnetctl_map_get(&cur.doc, ni, "nid"));
		struct lnetcfg_ni del;

		lnetcfg_ni_init(&del, LNET_NET_ANY);
		if (nid == NULL || libcfs_strnid(&del.nid, nid) != 0 || lnet_nid_is_lo0(&del.nid)) {
			continue;
		}
		del.has_nid = true;
		del.net = lnet_nid_net(&del.nid);
		rc = lnetctl_ni_unconfigure(c, &del);
	}
	if (cur.value != NULL) {
		yaml_document_delete(&cur.doc);
	}
	return rc;
}

/*
 * set routing|tiny_buffers|small_buffers|large_buffers VALUE (jt_set_routing,
 * jt_set_tiny/small/large): routing takes 0 or 1 only, its own words when
 * not; a pool's count goes on as an int, as the kernel's lnetctl passes it.
 */
static int
lnetctl_set_router(struct lnetctl_ctx *ctx, const char *what, const char *value)
{
	bool routing = strcmp(what, "routing") == 0;
	char descr[160];
	char pool[16];
	char *end = NULL;
	long v;
	int rc;

	v = strtol(value, &end, 0);
	if (*end != '\0' || (routing && v != 0 && v != 1)) {
		snprintf(descr, sizeof(descr),
			 routing ? "cannot parse routing value.\n"
				   "must be 0 for disable or 1 for enable" :
				   "cannot parse %s value",
			 what);
		lnetctl_print_error("parser", "set", -1, descr);
		return -1;
	}
	rc = lnetctl_need_conn(ctx);
	if (rc != 0 || routing) {
		return rc != 0 ? rc : lnetctl_routing_set(&ctx->conn, v == 1);
	}
	snprintf(pool, sizeof(pool), "%.*s", (int)(strchr(what, '_') - what), what);
	return lnetctl_buffers_set(&ctx->conn, pool, (int)v);
}

/*
 * set <tunable> <value>: the kernel's tunables, its number parsing (any
 * base strtol reads) and its checks (lnet-facts §12.1), each stored in
 * the daemon: global show and export print it.
 */
int
lnetctl_set_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	const struct lnetctl_tunable *t;
	char descr[160];
	char *end = NULL;
	long v;
	int rc;

	/* argv[0] is "set" */
	if (argc < 3) {
		return lnetctl_usage_error("set", "tunable", "usage: set <tunable> <value>");
	}
	if (strcmp(argv[1], "routing") == 0 || strcmp(argv[1], "tiny_buffers") == 0 ||
	    strcmp(argv[1], "small_buffers") == 0 || strcmp(argv[1], "large_buffers") == 0) {
		return lnetctl_set_router(ctx, argv[1], argv[2]);
	}
	t = lnetctl_tunable_find(argv[1]);
	if (t == NULL) {
		snprintf(descr, sizeof(descr), "set %s: no such tunable", argv[1]);
		return lnetctl_usage_error("set", "tunable", descr);
	}
	errno = 0;
	v = strtol(argv[2], &end, 0);
	if (*end != '\0') {
		snprintf(descr, sizeof(descr), "cannot parse %s value", argv[1]);
		lnetctl_print_error("parser", "set", -1, descr);
		return -1;
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_tunable_set(&ctx->conn, t, v);
}

/* export [--backup|-b] [FILE] */
int
lnetctl_export_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backup", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL;
	bool backup = false;
	int opt;
	int rc;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "bh", opts, NULL)) != -1) {
		if (opt != 'b') { /* -h, and jt_export's default case: getopt's complaint first */
			printf("export [--backup] [FILE]: the configuration as YAML\n"
			       "\t--backup: only what re-creates the configuration\n"
			       "\t--help: display this help\n");
			return 0;
		}
		backup = true;
	}
	if (optind < argc) {
		file = argv[optind]; /* jt_export's: the first word, the others ignored */
	}
	rc = lnetctl_need_conn(ctx);
	if (rc == 0 && file != NULL && freopen(file, "w", stdout) == NULL) {
		return -1; /* jt_export's fopen() failure: -1, nothing printed */
	}
	return rc != 0 ? rc : lnetctl_export(&ctx->conn, backup);
}

/* import [--add|--del] [FILE]  (stdin when no file) */
int
lnetctl_import_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "add", no_argument, NULL, 'a' },  { "del", no_argument, NULL, 'd' },
		{ "show", no_argument, NULL, 's' }, { "exec", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *file = "-";
	bool del = false;
	bool exec = false;
	char descr[320];
	FILE *f;
	int opt;
	int rc;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "adseh", opts, NULL)) != -1) {
		if (opt == '?') {
			return 0; /* jt_import's default case, after getopt's complaint */
		}
		if (opt == 'a' || opt == 'd') {
			del = opt == 'd';
			exec = false;
		} else if (opt == 'e') {
			/*
			 * jt_import: cmd 'e' keeps the flags: net: and udsp: are
			 * added (deleted after -d), global settings read and not
			 * applied, and peer:, route:... read as global keys.
			 */
			exec = true;
		} else if (opt == 's') {
			lnetctl_print_error("show", "import", -EOPNOTSUPP,
					    "import --show: not supported by lnetd-pmd yet");
			return -EOPNOTSUPP;
		} else {
			printf("import FILE\n"
			       "import < FILE: configure what FILE describes\n"
			       "\t--add: add the configuration (the default)\n"
			       "\t--del: delete the configuration\n"
			       "\t--show: show the configuration\n"
			       "\t--exec: run the file's commands\n"
			       "\t--help: display this help\n");
			return 0;
		}
	}
	if (optind + 1 == argc) {
		file = argv[optind]; /* jt_import: one word is the file, any other count stdin */
	}
	if (strcmp(file, "-") != 0) {
		f = fopen(file, "rb");
		if (f == NULL) {
			/* jt_import's cYAML_build_error: the text has no quotes */
			rc = -errno;
			snprintf(descr, sizeof(descr), "cannot open '%s': %s", file,
				 strerror(errno));
			lnetctl_print_error_raw("yaml", "builder", -1, descr);
			return rc;
		}
		fclose(f);
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_import(&ctx->conn, file, del, exec);
}
