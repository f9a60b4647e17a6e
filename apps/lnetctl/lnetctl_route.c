/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route add|del|show and routing show, as the kernel's 2.17 lnetctl takes
 * and prints them (lnet/utils/lnetctl.c jt_add_route, jt_del_route,
 * jt_show_route over its netlink route command, yaml_lnet_route;
 * jt_show_routing over liblnetconfig's cYAML lustre_lnet_show_routing).
 *
 * Like the kernel's lnetctl, this one checks that net and gateway are
 * given, unrolls a gateway range into one request per NID, and stops at
 * the first refusal, printed in its netlink error layout under add/del/
 * show with the node's code and words (lnetd_route.c). route show asks
 * for every route and filters here as the kernel's route dump does.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "lnetctl.h"

/* The kernel's parse_long: strtol in any base, nothing after the number. */
static int
lnetctl_route_long(const char *s, long *v)
{
	char *end;

	*v = strtol(s, &end, 0);
	return *end != '\0' ? -1 : 0;
}

/*
 * The kernel's check_cmd leaves getopt's messages off when the command has
 * more than two words; with fewer, getopt complains itself.
 */
static void
lnetctl_route_opterr(int argc)
{
	optind = 0;
	opterr = argc > 2 ? 0 : 1;
}

/* What one route command line names. hop and prio are -1 when not given (or not numbers). */
struct lnetctl_route_args {
	const char *net;
	const char *gw;
	long hop;
	long prio;
	bool verbose;
	struct lnetctl_nidrange gws; /* the gateway unrolled, as the kernel's lnetctl does */
};

/*
 * The gateway as 2.17's yaml_lnet_route() reads it, through
 * lustre_lnet_parse_nid_range(): its refusal is printed under @p verb
 * with the parser's errno and text, and is -EINVAL. The NIDs a range
 * names go on as text; the node refuses one it cannot parse ("cannot
 * parse gateway"), as the kernel's lnet_route_cmd() does.
 */
static int
lnetctl_route_gateways(struct lnetctl_route_args *a, const char *verb)
{
	const char *why = "";
	int rc = lnetctl_nidrange_args(1, (char **)&a->gw, &a->gws, &why);

	if (rc != 0) {
		lnetctl_print_nl_error(verb, "route", rc, why);
		return -EINVAL;
	}
	return 0;
}

/* add and del need both, said on stdout as the kernel's lnetctl says it. */
static int
lnetctl_route_need(const struct lnetctl_route_args *a)
{
	if (a->net != NULL && a->gw != NULL) {
		return 0;
	}
	printf("missing mandatory parameters:'%s'\n", a->net == NULL && a->gw == NULL ?
							      "net , gateway" :
						      a->net == NULL ? "net" :
								       "gateway");
	return -EINVAL;
}

/*
 * A net as it travels to the daemon: one holding ',' or '=' could not go
 * as a parameter and parses as no net at all; '!' does the same there.
 */
static void
lnetctl_route_net_param(char *out, size_t len, const char *net)
{
	size_t i;

	snprintf(out, len, "%s", net);
	for (i = 0; out[i] != '\0'; i++) {
		out[i] = out[i] == ',' || out[i] == '=' ? '!' : out[i];
	}
}

/*
 * One request of add or del; a refusal is the kernel's netlink error block
 * under @p verb with the node's code and words, and -EINVAL, which is what
 * the kernel's lnetctl returns for any of them.
 */
static int
lnetctl_route_request(struct lnetctl_conn *c, const char *cmd, const char *params, const char *verb,
		      const char *object)
{
	char descr[256];
	int rc = lnetctl_call(c, cmd, params, descr, sizeof(descr));

	if (rc != 0) {
		lnetctl_print_nl_error(verb, object, rc, descr);
		return -EINVAL;
	}
	return 0;
}

/*
 * Each gateway of the line in turn, as the items of the kernel's one
 * netlink message go: the first refusal ends it.
 */
static int
lnetctl_route_change(struct lnetctl_conn *c, const struct lnetctl_route_args *a, bool add)
{
	char net[160];
	unsigned int i;
	int rc = 0;

	lnetctl_route_net_param(net, sizeof(net), a->net);
	for (i = 0; i < a->gws.n && rc == 0; i++) {
		char params[512];
		char gw[LNET_NIDSTR_SIZE + 1];
		int off;

		lnetctl_route_net_param(gw, sizeof(gw), a->gws.nid[i]);
		off = snprintf(params, sizeof(params), "net=%s,gateway=%s", net, gw);

		/* as the kernel's lnetctl sends them: an int each, only when not -1 */
		if (add && (int)a->hop != -1) {
			off += snprintf(params + off, sizeof(params) - (size_t)off, ",hop=%d",
					(int)a->hop);
		}
		if (add && (int)a->prio != -1) {
			snprintf(params + off, sizeof(params) - (size_t)off, ",priority=%d",
				 (int)a->prio);
		}
		rc = lnetctl_route_request(c, add ? "/lnet/route_add" : "/lnet/route_del", params,
					   add ? "add" : "del", "route");
	}
	return rc;
}

int
lnetctl_route_add(struct lnetctl_conn *c, const char *net, const char *gw, long hop, long prio,
		  long sensitivity, const char *verb)
{
	char netp[160];
	char gwp[LNET_NIDSTR_SIZE];
	char params[512];
	int off;

	lnetctl_route_net_param(netp, sizeof(netp), net);
	lnetctl_route_net_param(gwp, sizeof(gwp), gw);
	off = snprintf(params, sizeof(params), "net=%s,gateway=%s,priority=%ld", netp, gwp, prio);
	if (hop != -1) {
		off += snprintf(params + off, sizeof(params) - (size_t)off, ",hop=%ld", hop);
	}
	if (sensitivity > 0) {
		snprintf(params + off, sizeof(params) - (size_t)off, ",health_sensitivity=%ld",
			 sensitivity);
	}
	return lnetctl_route_request(c, "/lnet/route_add", params, verb, "import");
}

int
lnetctl_route_del(struct lnetctl_conn *c, const char *net, const char *gw, const char *verb)
{
	char netp[160];
	char gwp[LNET_NIDSTR_SIZE];
	char params[256];

	lnetctl_route_net_param(netp, sizeof(netp), net);
	lnetctl_route_net_param(gwp, sizeof(gwp), gw);
	snprintf(params, sizeof(params), "net=%s,gateway=%s", netp, gwp);
	return lnetctl_route_request(c, "/lnet/route_del", params, verb, "import");
}

/* add and del: the same line parsed, the same checks, then one request per gateway. */
static int
lnetctl_route_change_cmd(struct lnetctl_ctx *ctx, struct lnetctl_route_args *a, bool add)
{
	int rc = lnetctl_route_need(a);

	if (rc == 0) {
		rc = lnetctl_route_gateways(a, add ? "add" : "del");
	}
	if (rc == 0) {
		rc = lnetctl_need_conn(ctx);
	}
	if (rc == 0) {
		rc = lnetctl_route_change(&ctx->conn, a, add);
	}
	lnetctl_nidrange_free(&a->gws);
	return rc;
}

/*
 * route add --net NET --gateway NID [--hop|--hop-count N] [--priority N]
 * A hop or priority that is not a number is left out, as the kernel's
 * lnetctl leaves it; an unknown option (--health_sensitivity too, which its
 * help names but its getopt does not take) prints the help and adds nothing.
 */
int
lnetctl_route_add_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "net", .has_arg = required_argument, .val = 'n' },
		{ .name = "gateway", .has_arg = required_argument, .val = 'g' },
		{ .name = "hop", .has_arg = required_argument, .val = 'c' },
		{ .name = "hop-count", .has_arg = required_argument, .val = 'c' },
		{ .name = "priority", .has_arg = required_argument, .val = 'p' },
		{ .name = NULL },
	};
	struct lnetctl_route_args a = { .hop = -1, .prio = -1 };
	int opt;

	lnetctl_route_opterr(argc);
	while ((opt = getopt_long(argc, argv, "n:g:c:p:", opts, NULL)) != -1) {
		if (opt == 'n') {
			a.net = optarg;
		} else if (opt == 'g') {
			a.gw = optarg;
		} else if (opt == 'c' && lnetctl_route_long(optarg, &a.hop) != 0) {
			a.hop = -1;
		} else if (opt == 'p' && lnetctl_route_long(optarg, &a.prio) != 0) {
			a.prio = -1;
		} else if (opt != 'c' && opt != 'p') {
			lnetctl_print_cmd_help("route", "add");
			opterr = 1;
			return 0;
		}
	}
	opterr = 1;
	return lnetctl_route_change_cmd(ctx, &a, true);
}

/* route del --net NET --gateway NID */
int
lnetctl_route_del_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "net", .has_arg = required_argument, .val = 'n' },
		{ .name = "gateway", .has_arg = required_argument, .val = 'g' },
		{ .name = NULL },
	};
	struct lnetctl_route_args a = { .hop = -1, .prio = -1 };
	int opt;

	lnetctl_route_opterr(argc);
	while ((opt = getopt_long(argc, argv, "n:g:", opts, NULL)) != -1) {
		if (opt == 'n') {
			a.net = optarg;
		} else if (opt == 'g') {
			a.gw = optarg;
		} else {
			lnetctl_print_cmd_help("route", "del");
			opterr = 1;
			return 0;
		}
	}
	opterr = 1;
	return lnetctl_route_change_cmd(ctx, &a, false);
}

/* Every route of the daemon, page after page, in its order. */
static int
lnetctl_route_fetch(struct lnetctl_conn *c, yaml_document_t *docs, unsigned int *ndocs,
		    unsigned int max)
{
	unsigned long long start = 0;
	int rc;

	*ndocs = 0;
	do {
		char params[32];
		yaml_node_t *v;
		const char *next;

		if (*ndocs == max) {
			return -E2BIG;
		}
		snprintf(params, sizeof(params), "start=%llu", start);
		rc = lnetctl_request_status(c, "/lnet/route_show", params, &docs[*ndocs], &v,
					    "show", "route");
		if (rc != 0) {
			return rc;
		}
		next = lnetctl_scalar(lnetctl_map_get(&docs[*ndocs], v, "next"));
		start = next != NULL ? strtoull(next, NULL, 10) : 0;
		(*ndocs)++;
	} while (start != 0);
	return 0;
}

/*
 * One filter item of the kernel's route dump: net (an unparsable one reads
 * as any), the gateway as added, hop and priority unless -1.
 */
struct lnetctl_route_filter {
	uint32_t net;
	const char *gw;
	long hop;
	long prio;
};

static bool
lnetctl_route_matches(yaml_document_t *doc, yaml_node_t *r, const struct lnetctl_route_filter *f)
{
	const char *net = lnetctl_scalar(lnetctl_map_get(doc, r, "net"));
	const char *gw = lnetctl_scalar(lnetctl_map_get(doc, r, "gateway"));
	const char *hop = lnetctl_scalar(lnetctl_map_get(doc, r, "hop"));
	const char *prio = lnetctl_scalar(lnetctl_map_get(doc, r, "priority"));
	struct lnet_nid want;
	struct lnet_nid got;

	if (f->net != LNET_NET_ANY && (net == NULL || libcfs_str2net(net) != f->net)) {
		return false;
	}
	if (f->gw != NULL && (gw == NULL || libcfs_strnid(&want, f->gw) != 0 ||
			      libcfs_strnid(&got, gw) != 0 || !lnet_nid_same(&want, &got))) {
		return false;
	}
	if (f->hop != -1 && (hop == NULL || strtol(hop, NULL, 10) != f->hop)) {
		return false;
	}
	return f->prio == -1 || (prio != NULL && strtoll(prio, NULL, 10) == f->prio);
}

/* What is printed of each route: show, show -v (and a full export), export --backup. */
enum lnetctl_route_detail { LRD_PLAIN, LRD_VERBOSE, LRD_BACKUP };

static void
lnetctl_route_out(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *r,
		  enum lnetctl_route_detail detail)
{
	static const char *const keys[] = { "net", "gateway", "hop", "priority", "state", "type" };
	unsigned int n = detail == LRD_PLAIN ? 2 : detail == LRD_BACKUP ? 4 : 6;
	unsigned int i;

	lnetctl_out_map_begin(o);
	for (i = 0; i < n; i++) {
		lnetctl_out_kv(o, keys[i], lnetctl_scalar(lnetctl_map_get(doc, r, keys[i])));
	}
	lnetctl_out_map_end(o);
}

/* The routes of the pages that one filter item matches, appended to the listing. */
static void
lnetctl_route_scan(struct lnetctl_out *o, bool *open, yaml_document_t *docs, unsigned int ndocs,
		   const struct lnetctl_route_filter *f, enum lnetctl_route_detail detail)
{
	unsigned int d;

	for (d = 0; d < ndocs; d++) {
		yaml_node_t *root = yaml_document_get_root_node(&docs[d]);
		yaml_node_t *v =
			yaml_document_get_node(&docs[d], root->data.mapping.pairs.start->value);
		yaml_node_t *r;
		char key[16];
		unsigned int i;

		for (i = 0; snprintf(key, sizeof(key), "r%u", i) > 0 &&
			    (r = lnetctl_map_get(&docs[d], v, key)) != NULL;
		     i++) {
			if (!lnetctl_route_matches(&docs[d], r, f)) {
				continue;
			}
			if (!*open) {
				lnetctl_out_begin(o, 6); /* the netlink path's layout */
				lnetctl_out_map_begin(o);
				lnetctl_out_scalar(o, "route");
				lnetctl_out_seq_begin(o);
				*open = true;
			}
			lnetctl_route_out(o, &docs[d], r, detail);
		}
	}
}

#define LNETCTL_ROUTE_PAGES 4096 /* 48 routes a page */

/*
 * The kernel's route dump: each filter item in turn over every route (no
 * item: every route once), "route:" and the matches in its layout, nothing
 * at all when none matches (it says "No routes found", which its lnetctl
 * keeps quiet).
 */
static int
lnetctl_route_list(struct lnetctl_conn *c, const struct lnetctl_route_filter *f, unsigned int nf,
		   enum lnetctl_route_detail detail)
{
	static const struct lnetctl_route_filter all = { LNET_NET_ANY, NULL, -1, -1 };
	yaml_document_t *docs = calloc(LNETCTL_ROUTE_PAGES, sizeof(*docs));
	struct lnetctl_out o;
	unsigned int ndocs = 0;
	unsigned int i;
	bool open = false;
	int rc;

	if (docs == NULL) {
		return -ENOMEM;
	}
	rc = lnetctl_route_fetch(c, docs, &ndocs, LNETCTL_ROUTE_PAGES);
	for (i = 0; rc == 0 && i < (nf > 0 ? nf : 1); i++) {
		lnetctl_route_scan(&o, &open, docs, ndocs, nf > 0 ? &f[i] : &all, detail);
	}
	if (open) {
		lnetctl_out_seq_end(&o);
		lnetctl_out_map_end(&o);
		lnetctl_out_end(&o);
		rc = o.failed ? -EIO : 0;
	}
	for (i = 0; i < ndocs; i++) {
		yaml_document_delete(&docs[i]);
	}
	free(docs);
	fflush(stdout);
	return rc;
}

int
lnetctl_route_export(struct lnetctl_conn *c, bool backup)
{
	/* at the netlink version, so verbose; --backup's filtered dump has no state and type */
	return lnetctl_route_list(c, NULL, 0, backup ? LRD_BACKUP : LRD_VERBOSE);
}

/*
 * The filter items of a show line: none without --net and --gateway (hop
 * and priority alone filter nothing, as the kernel's lnetctl sends no item
 * then), else one per gateway NID, or one for the net.
 */
static int
lnetctl_route_filters(struct lnetctl_route_args *a, struct lnetctl_route_filter **f,
		      unsigned int *nf)
{
	unsigned int n;
	unsigned int i;

	*f = NULL;
	*nf = 0;
	if (a->net == NULL && a->gw == NULL) {
		return 0;
	}
	if (a->net != NULL && strlen(a->net) >= LNET_NIDSTR_SIZE) {
		lnetctl_print_nl_error("show", "route", -E2BIG, "failed to get route param");
		return -EINVAL;
	}
	if (a->gw != NULL && lnetctl_route_gateways(a, "show") != 0) {
		return -EINVAL;
	}
	n = a->gw != NULL ? a->gws.n : 1;
	*f = calloc(n > 0 ? n : 1, sizeof(**f));
	if (*f == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		(*f)[i] = (struct lnetctl_route_filter){
			.net = a->net != NULL ? libcfs_str2net(a->net) : LNET_NET_ANY,
			.gw = a->gw != NULL ? a->gws.nid[i] : NULL,
			.hop = (int)a->hop,
			.prio = (int)a->prio,
		};
	}
	*nf = n;
	return 0;
}

/* route show [--net NET] [--gateway NID] [--hop|--hop-count N] [--priority N] [-v|--verbose] */
int
lnetctl_route_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "net", .has_arg = required_argument, .val = 'n' },
		{ .name = "gateway", .has_arg = required_argument, .val = 'g' },
		{ .name = "hop-count", .has_arg = required_argument, .val = 'c' },
		{ .name = "hop", .has_arg = required_argument, .val = 'c' },
		{ .name = "priority", .has_arg = required_argument, .val = 'p' },
		{ .name = "verbose", .has_arg = no_argument, .val = 'v' },
		{ .name = NULL },
	};
	struct lnetctl_route_args a = { .hop = -1, .prio = -1 };
	struct lnetctl_route_filter *f = NULL;
	unsigned int nf = 0;
	int opt;
	int rc;

	lnetctl_route_opterr(argc);
	while ((opt = getopt_long(argc, argv, "c:n:g:p:v", opts, NULL)) != -1) {
		if (opt == 'n') {
			a.net = optarg;
		} else if (opt == 'g') {
			a.gw = optarg;
		} else if (opt == 'v') {
			a.verbose = true;
		} else if (opt == 'c' && lnetctl_route_long(optarg, &a.hop) != 0) {
			a.hop = -1;
		} else if (opt == 'p' && lnetctl_route_long(optarg, &a.prio) != 0) {
			a.prio = -1;
		} else if (opt != 'c' && opt != 'p') {
			lnetctl_print_cmd_help("route", "show");
			opterr = 1;
			return 0;
		}
	}
	opterr = 1;
	rc = lnetctl_route_filters(&a, &f, &nf);
	if (rc == 0) {
		rc = lnetctl_need_conn(ctx);
	}
	if (rc == 0) {
		rc = lnetctl_route_list(&ctx->conn, f, nf, a.verbose ? LRD_VERBOSE : LRD_PLAIN);
	}
	free(f);
	lnetctl_nidrange_free(&a.gws);
	return rc;
}

/* /lnet/routing_show: the reply, or the error block under show: routing (the kernel's). */
static int
lnetctl_routing_get(struct lnetctl_conn *c, yaml_document_t *doc, yaml_node_t **v)
{
	return lnetctl_request_status(c, "/lnet/routing_show", NULL, doc, v, "show", "routing");
}

/*
 * One CPT's "cN" array (npages, nbuffers, credits, mincredits of tiny,
 * small, large): printed as a cpt[N] item unless @p quiet, its nbuffers
 * added to @p totals either way.
 */
static void
lnetctl_routing_cpt(yaml_document_t *doc, yaml_node_t *a, unsigned int cpt, long totals[3],
		    bool quiet)
{
	static const char *const pools[3] = { "tiny", "small", "large" };
	static const char *const keys[4] = { "npages", "nbuffers", "credits", "mincredits" };
	yaml_node_item_t *it =
		a != NULL && a->type == YAML_SEQUENCE_NODE ? a->data.sequence.items.start : NULL;
	unsigned int p;
	unsigned int k;

	if (!quiet) {
		printf("    - cpt[%u]:\n", cpt);
	}
	for (p = 0; p < 3; p++) {
		if (!quiet) {
			printf("          %s:\n", pools[p]);
		}
		for (k = 0; k < 4; k++) {
			const char *s = it != NULL && it < a->data.sequence.items.top ?
						lnetctl_scalar(yaml_document_get_node(doc, *it++)) :
						NULL;
			long x = s != NULL ? strtol(s, NULL, 10) : 0;

			if (!quiet) {
				printf("              %s: %ld\n", keys[k], x);
			}
			totals[p] += k == 1 ? x : 0;
		}
	}
}

/*
 * routing show, and export's routing: and buffers: (cYAML, in the kernel's
 * lustre_lnet_show_routing layout): one cpt[N] item per CPT then
 * "enable", or with @p backup the mapping "enable: N"; then the buffers
 * each pool has over all CPTs. Nothing at all while routing was never
 * turned on (the kernel has no pools to list then).
 */
int
lnetctl_routing_show(struct lnetctl_conn *c, bool backup)
{
	long totals[3] = { 0, 0, 0 };
	yaml_document_t doc;
	yaml_node_t *v;
	const char *enable;
	const char *ncpts;
	unsigned int n;
	unsigned int i;
	int rc = lnetctl_routing_get(c, &doc, &v);

	if (rc != 0) {
		return rc;
	}
	enable = lnetctl_scalar(lnetctl_map_get(&doc, v, "enable"));
	ncpts = lnetctl_scalar(lnetctl_map_get(&doc, v, "ncpts"));
	n = ncpts != NULL ? (unsigned int)strtoul(ncpts, NULL, 10) : 0;
	if (n > 0) {
		printf("routing:\n");
	}
	for (i = 0; i < n; i++) {
		char key[16];

		snprintf(key, sizeof(key), "c%u", i);
		lnetctl_routing_cpt(&doc, lnetctl_map_get(&doc, v, key), i, totals, backup);
	}
	if (n > 0) {
		printf(backup ? "    enable: %s\n" : "    - enable: %s\n",
		       enable != NULL ? enable : "0");
		printf("buffers:\n    tiny: %ld\n    small: %ld\n    large: %ld\n", totals[0],
		       totals[1], totals[2]);
	}
	yaml_document_delete(&doc);
	fflush(stdout);
	return 0;
}

/* routing show: options are not read, as the kernel's jt_show_routing reads none. */
int
lnetctl_routing_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_need_conn(ctx);

	(void)argc;
	(void)argv;
	return rc != 0 ? rc : lnetctl_routing_show(&ctx->conn, false);
}

/*
 * set routing 0|1: the node's refusal as the kernel library's block, "add:"
 * to turn it on, "del:" to turn it off, "cannot enable routing <reason>".
 */
int
lnetctl_routing_set(struct lnetctl_conn *c, bool enable)
{
	char params[16];
	char descr[320];
	char err[256];
	int rc;

	snprintf(params, sizeof(params), "enable=%d", enable ? 1 : 0);
	rc = lnetctl_call(c, "/lnet/routing_set", params, err, sizeof(err));
	if (rc != 0) {
		snprintf(descr, sizeof(descr), "cannot %s routing %s",
			 enable ? "enable" : "disable", strerror(-rc));
		lnetctl_print_error(enable ? "add" : "del", "routing", rc, descr);
	}
	return rc;
}

/*
 * set tiny_buffers|small_buffers|large_buffers N, as the kernel library's
 * lustre_lnet_config_buffers: below -1 refused (-ERANGE); -1 leaves the
 * pool as it is; the node's refusal as "cannot configure buffers: <reason>".
 */
int
lnetctl_buffers_set(struct lnetctl_conn *c, const char *pool, int value)
{
	char params[64];
	char descr[320];
	char err[256];
	int rc;

	if (value < -1) {
		lnetctl_print_error("add", "buf", -ERANGE, "tiny, small and large must be >= 0");
		return -ERANGE;
	}
	if (value == -1) {
		return 0; /* the kernel's "leave this pool alone" */
	}
	snprintf(params, sizeof(params), "%s=%d", pool, value);
	rc = lnetctl_call(c, "/lnet/buffers_set", params, err, sizeof(err));
	if (rc != 0) {
		snprintf(descr, sizeof(descr), "cannot configure buffers: %s", strerror(-rc));
		lnetctl_print_error("add", "buf", rc, descr);
	}
	return rc;
}
