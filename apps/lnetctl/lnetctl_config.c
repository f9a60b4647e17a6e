/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export and import. export prints what `net show -v 2` and `global show`
 * print, in the kernel's section order (lnet-facts §12.9); import checks a
 * whole file against what this daemon can configure before changing
 * anything, and reports every error with file:line:column.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "lnetctl.h"


int
lnetctl_export(struct lnetctl_conn *c, bool backup)
{
	int rc = 0;

	/* --backup: what re-creates the configuration; no lo, no runtime state. */
	rc = lnetctl_net_show(c, NULL, backup ? -1 : 2);
	fflush(stdout);
	if (rc == 0) {
		rc = lnetctl_peer_show(c, NULL, backup ? -1 : 3); /* the kernel's export: -v 3 */
	}
	fflush(stdout);
	return rc != 0 ? rc : lnetctl_global_show(c);
}

/* Import errors: each one the kernel's error block. */
static void
lnetctl_import_report(void *arg, const char *msg)
{
	(void)arg;
	lnetctl_print_error("import", "config", -EINVAL, msg);
}

/* The daemon's NIs (/lnet/net_show detail 0): net, nid, interface. */
struct lnetctl_cur_nis {
	yaml_document_t doc;
	yaml_node_t *value;
};

static int
lnetctl_cur_nis_get(struct lnetctl_conn *c, struct lnetctl_cur_nis *cur, const char *verb)
{
	yaml_node_t *root;
	char err[256];
	int rc = lnetctl_request(c, "/lnet/net_show", "detail=0", &cur->doc, err, sizeof(err));

	if (rc != 0) {
		lnetctl_print_error(verb, "net", rc, err);
		return rc;
	}
	root = yaml_document_get_root_node(&cur->doc);
	cur->value = yaml_document_get_node(&cur->doc, root->data.mapping.pairs.start->value);
	return 0;
}

static bool
lnetctl_cur_ni_is(struct lnetctl_cur_nis *cur, yaml_node_t *ni, const struct lnetcfg_ni *want)
{
	const char *nid = lnetctl_scalar(lnetctl_map_get(&cur->doc, ni, "nid"));
	const char *net = lnetctl_scalar(lnetctl_map_get(&cur->doc, ni, "net_type"));
	const char *ifname = lnetctl_scalar(lnetctl_map_get(&cur->doc, ni, "if0"));
	struct lnet_nid n;

	if (want->has_nid) {
		return nid != NULL && libcfs_strnid(&n, nid) == 0 && lnet_nid_same(&n, &want->nid);
	}
	return net != NULL && ifname != NULL && libcfs_str2net(net) == want->net &&
	       strcmp(ifname, want->ifname) == 0;
}

static bool
lnetctl_cur_has(struct lnetctl_cur_nis *cur, const struct lnetcfg_ni *want)
{
	yaml_node_pair_t *p;

	for (p = cur->value->data.mapping.pairs.start; p < cur->value->data.mapping.pairs.top;
	     p++) {
		if (lnetctl_cur_ni_is(cur, yaml_document_get_node(&cur->doc, p->value), want)) {
			return true;
		}
	}
	return false;
}

/* Before anything changes: each NI is new (add) or present (del). */
static int
lnetctl_import_check_nis(struct lnetctl_conn *c, struct lnetcfg *cfg, bool del)
{
	struct lnetctl_cur_nis cur;
	unsigned int i;
	int rc = lnetctl_cur_nis_get(c, &cur, "import");

	if (rc != 0) {
		return rc;
	}
	for (i = 0; i < cfg->nnis; i++) {
		bool there = lnetctl_cur_has(&cur, &cfg->nis[i]);

		if (there != del) {
			lnetcfg_error(cfg, &cfg->nis[i].at, del ? "net: no such NI to delete" :
							      "net: this NI is already configured");
		}
	}
	yaml_document_delete(&cur.doc);
	return 0;
}

/* Globals can only restate what runs until their behaviour is built. */
static int
lnetctl_import_check_globals(struct lnetctl_conn *c, struct lnetcfg *cfg)
{
	yaml_document_t doc;
	yaml_node_t *g;
	char err[256];
	unsigned int i;
	int rc = lnetctl_request(c, "/lnet/global_show", NULL, &doc, err, sizeof(err));

	if (rc != 0) {
		lnetctl_print_error("import", "config", rc, err);
		return rc;
	}
	g = yaml_document_get_node(&doc,
				   yaml_document_get_root_node(&doc)->data.mapping.pairs.start->value);
	for (i = 0; i < cfg->nglobals; i++) {
		const char *now = lnetctl_scalar(lnetctl_map_get(&doc, g, cfg->globals[i].key));

		if (now == NULL ||
		    (atol(now) != cfg->globals[i].value && !lnetcfg_global_settable(cfg->globals[i].key))) {
			lnetcfg_error(cfg, &cfg->globals[i].at,
				      "global: setting %s is not supported yet (it is %s)",
				      cfg->globals[i].key, now != NULL ? now : "?");
		}
	}
	yaml_document_delete(&doc);
	return 0;
}

static int
lnetctl_import_peer(struct lnetctl_conn *c, const struct lnetcfg_peer *p, bool del)
{
	char prim[LNET_NIDSTR_SIZE];
	char nid[LNET_NIDSTR_SIZE];
	char *list = NULL;
	size_t off = 0;
	unsigned int i;
	int rc;

	if (p->nnis > 0) {
		list = malloc((size_t)p->nnis * LNET_NIDSTR_SIZE);
		if (list == NULL) {
			return -ENOMEM;
		}
		for (i = 0; i < p->nnis; i++) {
			off += (size_t)sprintf(list + off, "%s%s", i > 0 ? "," : "",
					       libcfs_nidstr_r(&p->nis[i], nid, sizeof(nid)));
		}
	}
	/* --del names whole peers: deleting the primary takes its NIDs too. */
	rc = lnetctl_peer_change(c, !del, libcfs_nidstr_r(&p->prim, prim, sizeof(prim)),
				 del ? NULL : list, !p->mr);
	free(list);
	return rc;
}

/* A global that can change is set (the others were checked to restate their value). */
static int
lnetctl_import_global(struct lnetctl_conn *c, const struct lnetcfg_global *g)
{
	char params[128];
	yaml_document_t doc;
	yaml_node_t *v;
	int rc;

	if (!lnetcfg_global_settable(g->key)) {
		return 0;
	}
	snprintf(params, sizeof(params), "key=%s,value=%ld", g->key, g->value);
	rc = lnetctl_request_status(c, "/lnet/global_set", params, &doc, &v, "import", "config");
	if (rc == 0) {
		yaml_document_delete(&doc);
	}
	return rc;
}

/*
 * The whole file is checked first, against the daemon too; an invalid one
 * changes nothing. Then one request per item: NIs then peers (add), or
 * peers then NIs (--del). A request the daemon refuses stops the import
 * there with its error.
 */
int
lnetctl_import(struct lnetctl_conn *c, const char *file, bool del)
{
	struct lnetcfg cfg;
	unsigned int i;
	int rc;

	lnetcfg_init(&cfg, file, lnetctl_import_report, NULL);
	/* Even a file with errors is checked on: every error is reported at once. */
	rc = lnetcfg_parse_file(&cfg, file);
	if (rc == 0 || rc == -EINVAL) {
		rc = lnetctl_import_check_nis(c, &cfg, del);
	}
	if (rc == 0 && !del) {
		rc = lnetctl_import_check_globals(c, &cfg);
	}
	if (rc == 0 && cfg.nerrors > 0) {
		rc = -EINVAL;
	}
	for (i = 0; rc == 0 && !del && i < cfg.nglobals; i++) {
		rc = lnetctl_import_global(c, &cfg.globals[i]);
	}
	for (i = 0; rc == 0 && !del && i < cfg.nnis; i++) {
		rc = lnetctl_ni_request(c, &cfg.nis[i], true);
	}
	for (i = 0; rc == 0 && i < cfg.npeers; i++) {
		rc = lnetctl_import_peer(c, &cfg.peers[i], del);
	}
	for (i = 0; rc == 0 && del && i < cfg.nnis; i++) {
		rc = lnetctl_ni_request(c, &cfg.nis[i], false);
	}
	lnetcfg_fini(&cfg);
	return rc;
}

int
lnetctl_unconfigure(struct lnetctl_conn *c)
{
	struct lnetctl_cur_nis cur = { .value = NULL };
	yaml_node_pair_t *p;
	int rc = lnetctl_cur_nis_get(c, &cur, "unconfigure");

	for (p = rc == 0 ? cur.value->data.mapping.pairs.start : NULL;
	     p != NULL && p < cur.value->data.mapping.pairs.top && rc == 0; p++) {
		yaml_node_t *ni = yaml_document_get_node(&cur.doc, p->value);
		const char *nid = lnetctl_scalar(lnetctl_map_get(&cur.doc, ni, "nid"));
		struct lnetcfg_ni del;

		lnetcfg_ni_init(&del, LNET_NET_ANY);
		if (nid == NULL || libcfs_strnid(&del.nid, nid) != 0 ||
		    lnet_nid_is_lo0(&del.nid)) {
			continue;
		}
		del.has_nid = true;
		del.net = lnet_nid_net(&del.nid);
		rc = lnetctl_ni_request(c, &del, false);
	}
	if (cur.value != NULL) {
		yaml_document_delete(&cur.doc);
	}
	return rc;
}

/*
 * set <tunable> <value>: the kernel's tunables and ranges (lnet-facts
 * §12.1). Those with behaviour here (transaction_timeout) go to the
 * daemon; a valid request for any other answers "not supported" rather
 * than pretending.
 */
int
lnetctl_set_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;
	static const struct {
		const char *name;
		long lo;
		long hi;
	} tunables[] = {
		{ "tiny_buffers", 0, 1L << 30 }, { "small_buffers", 0, 1L << 30 },
		{ "large_buffers", 0, 1L << 30 }, { "routing", 0, 1 },
		{ "numa_range", 0, 1L << 30 }, { "max_interfaces", 16, 1L << 30 },
		{ "discovery", 0, 1 }, { "drop_asym_route", 0, 1 },
		{ "retry_count", 0, 1L << 30 }, { "transaction_timeout", 1, 1L << 30 },
		{ "health_sensitivity", 0, 1000 }, { "recovery_interval", 1, 1L << 30 },
		{ "router_sensitivity", 0, 100 }, { "response_tracking", 0, 3 },
		{ "recovery_limit", 0, 1L << 30 }, { "max_recovery_ping_interval", 1, 1L << 30 },
	};
	char descr[160];
	char *end = NULL;
	unsigned int i;
	long v;

	(void)ctx;
	if (argc != 2) {
		return lnetctl_usage_error("set", "tunable", "usage: set <tunable> <value>");
	}
	for (i = 0; i < sizeof(tunables) / sizeof(tunables[0]); i++) {
		if (strcmp(tunables[i].name, argv[0]) == 0) {
			break;
		}
	}
	if (i == sizeof(tunables) / sizeof(tunables[0])) {
		snprintf(descr, sizeof(descr), "set %s: no such tunable", argv[0]);
		return lnetctl_usage_error("set", "tunable", descr);
	}
	v = strtol(argv[1], &end, 10);
	if (argv[1][0] == '\0' || *end != '\0' || v < tunables[i].lo || v > tunables[i].hi) {
		snprintf(descr, sizeof(descr), "set %s: a number from %ld to %ld", argv[0],
			 tunables[i].lo, tunables[i].hi);
		return lnetctl_usage_error("set", "tunable", descr);
	}
	if (lnetcfg_global_settable(argv[0])) {
		char params[128];
		yaml_document_t doc;
		yaml_node_t *val;
		int rc = lnetctl_need_conn(ctx);

		snprintf(params, sizeof(params), "key=%s,value=%ld", argv[0], v);
		if (rc == 0) {
			rc = lnetctl_request_status(&ctx->conn, "/lnet/global_set", params, &doc, &val,
						    "set", "tunable");
		}
		if (rc == 0) {
			yaml_document_delete(&doc);
		}
		return rc;
	}
	snprintf(descr, sizeof(descr), "set %s: not supported yet by lnetd-pmd", argv[0]);
	lnetctl_print_error("set", "tunable", -EOPNOTSUPP, descr);
	return -EOPNOTSUPP;
}

/* export [--backup] [FILE] */
int
lnetctl_export_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	const char *file = NULL;
	bool backup = false;
	int i;
	int rc;

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--backup") == 0 || strcmp(argv[i], "-b") == 0) {
			backup = true;
		} else if (argv[i][0] != '-' && file == NULL) {
			file = argv[i];
		} else {
			lnetctl_print_error("export", "config", -EINVAL, "usage: export [--backup] [FILE]");
			return -EINVAL;
		}
	}
	rc = lnetctl_need_conn(ctx);
	if (rc == 0 && file != NULL && freopen(file, "w", stdout) == NULL) {
		fprintf(stderr, "lnetctl: %s: %s\n", file, strerror(errno));
		return -errno;
	}
	return rc != 0 ? rc : lnetctl_export(&ctx->conn, backup);
}

/* import [--add|--del] [FILE]  (stdin when no file) */
int
lnetctl_import_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	const char *file = "-";
	bool del = false;
	int i;
	int rc;

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--add") == 0 || strcmp(argv[i], "--del") == 0) {
			del = argv[i][2] == 'd';
			continue;
		}
		if (strcmp(argv[i], "--show") == 0 || strcmp(argv[i], "--exec") == 0) {
			lnetctl_print_error("import", "config", -EOPNOTSUPP,
					    "import --show/--exec: not supported yet");
			return -EOPNOTSUPP;
		}
		if (argv[i][0] == '-' || strcmp(file, "-") != 0) {
			lnetctl_print_error("import", "config", -EINVAL,
					    "usage: import [--add|--del] [FILE]");
			return -EINVAL;
		}
		file = argv[i];
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_import(&ctx->conn, file, del);
}
