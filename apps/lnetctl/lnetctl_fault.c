/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fault drop|delay add|del|reset|show, as the kernel lnetctl parses and
 * prints them (jt_fault_* of lnet/utils/lnetctl.c, yaml_lnet_fault_rule of
 * liblnetconfig.c): the same options and letters, its checks in its order
 * with its messages, nothing printed on success, "failed to <what>: <why>"
 * on stdout when the node refuses (the netlink error's text), and show's
 * YAML as its netlink reply comes out of libyaml. The rules live in the
 * daemon (/lnet/fault_<kind>_<verb>).
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cfs.h"
#include "lnetctl.h"

enum { LNETCTL_FAULT_DROP, LNETCTL_FAULT_DELAY };

/* Per kind: its word, its telemetry prefix, and the kernel's fault_opc_to_str() texts. */
struct lnetctl_fault_kind {
	const char *word;
	const char *cmd;
	const char *add;
	const char *del;
	const char *reset;
	const char *list;
};

static const struct lnetctl_fault_kind lnetctl_fault_kinds[] = {
	{ "drop", "/lnet/fault_drop", "add drop rule", "delete drop rule", "drop_reset rule",
	  "list drop rule" },
	{ "delay", "/lnet/fault_delay", "add delay rule", "delete delay rule", "delay reset_rule",
	  "list delay rules" },
};

/* What `fault ... add` collects, as the kernel's struct lnet_fault_attr. */
struct lnetctl_fault_attr {
	const char *src;
	const char *dst;
	const char *local_nid;
	unsigned long long ptl_mask;
	uint32_t msg_mask;
	uint32_t rate;
	uint32_t interval;
	uint32_t health_mask;
	uint32_t latency;
	bool random;
	bool drop_all;
};

/*
 * The text the kernel's lnetctl prints for a netlink error: libnl's
 * message for the errno (nl_syserr2nlerr, nl_geterror). For the errors no
 * kernel returns (a node that is stopping, too many rules) the daemon's.
 */
static const char *
lnetctl_fault_nlerr(int rc, const char *descr)
{
	switch (-rc) {
	case EINVAL:
	case EFAULT:
	case ENOPROTOOPT:
		return "Invalid input data or parameter";
	case ENOENT:
	case ESRCH:
		return "Object not found";
	case ENOMEM:
	case ENOBUFS:
		return "Out of memory";
	case EEXIST:
	case EADDRINUSE:
		return "Object exists";
	case EOPNOTSUPP:
		return "Operation not supported";
	case EPERM:
		return "Operation not permitted";
	default:
		return descr != NULL ? descr : "Unspecific failure";
	}
}

/*
 * /lnet/fault_<kind>_<verb>: 0 with the reply's value in @p doc / @p v, or
 * the failure printed as the kernel's "failed to <what>: <why>" on stdout.
 */
static int
lnetctl_fault_request(struct lnetctl_ctx *ctx, const struct lnetctl_fault_kind *k, const char *verb,
		      const char *what, const char *params, yaml_document_t *doc, yaml_node_t **v)
{
	char cmd[64];
	char err[256];
	const char *status;
	int rc = lnetctl_need_conn(ctx);

	if (rc != 0) {
		return rc;
	}
	snprintf(cmd, sizeof(cmd), "%s_%s", k->cmd, verb);
	rc = lnetctl_request(&ctx->conn, cmd, params, doc, err, sizeof(err));
	if (rc != 0) {
		printf("failed to %s: %s\n", what, err);
		return rc;
	}
	*v = yaml_document_get_node(doc, yaml_document_get_root_node(doc)
						 ->data.mapping.pairs.start->value);
	status = lnetctl_scalar(lnetctl_map_get(doc, *v, "status"));
	rc = status != NULL ? atoi(status) : -EPROTO;
	if (rc != 0) {
		printf("failed to %s: %s\n", what,
		       lnetctl_fault_nlerr(rc, lnetctl_scalar(lnetctl_map_get(doc, *v, "descr"))));
		yaml_document_delete(doc);
	}
	return rc;
}

/* A request whose reply is only its status. */
static int
lnetctl_fault_simple(struct lnetctl_ctx *ctx, const struct lnetctl_fault_kind *k, const char *verb,
		     const char *what, const char *params)
{
	yaml_document_t doc;
	yaml_node_t *v;
	int rc = lnetctl_fault_request(ctx, k, verb, what, params, &doc, &v);

	if (rc == 0) {
		yaml_document_delete(&doc);
	}
	return rc;
}

/*
 * The kernel's fault_attr_parse_nid: none is any; "*@NET" any NID of NET
 * (the address all ones); "*" any; else a NID. Rewritten for the daemon
 * as the kernel's netlink request carries it (libcfs_nidstr).
 */
static int
lnetctl_fault_nid(const char *str, char *out, size_t len)
{
	struct lnet_nid nid = LNET_ANY_NID;

	if (str != NULL && strlen(str) > 2 && str[0] == '*' && str[1] == '@') {
		uint32_t net = libcfs_str2net(str + 2);

		if (net == LNET_NET_ANY) {
			goto invalid;
		}
		lnet_nid4_to_nid(LNET_MKNID(net, LNET_ADDR_ANY), &nid);
	} else if (str != NULL && strcmp(str, "*") != 0 &&
		   (libcfs_strnid(&nid, str) != 0 || lnet_nid_is_any(&nid))) {
		goto invalid;
	}
	libcfs_nidstr_r(&nid, out, len);
	return 0;
invalid:
	fprintf(stderr, "Invalid NID: %s\n", str);
	return -EINVAL;
}

/* The kernel's fault_attr_health_error_parse: names add up; "random" is all of them. */
static int
lnetctl_fault_health(const char *name, uint32_t *mask)
{
	static const char *const names[] = {
		"local_interrupt", "local_dropped",   "local_aborted", "local_no_route",
		"local_error",     "local_timeout",   "remote_error",  "remote_dropped",
		"remote_timeout",  "network_timeout",
	};
	unsigned int i;

	if (strcasecmp(name, "random") == 0) {
		*mask = 0xffffffffU;
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcasecmp(name, names[i]) == 0) {
			*mask |= 1U << (i + 1); /* bit n: health status n (1: local_interrupt) */
			return 0;
		}
	}
	return -1;
}

/* The kernel's fault_attr_msg_parse: bit n for message type n. */
static int
lnetctl_fault_msg(const char *name, uint32_t *mask)
{
	static const char *const types[] = { "ack", "put", "get", "reply" };
	unsigned int i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strcasecmp(name, types[i]) == 0) {
			*mask |= 1U << i;
			return 0;
		}
	}
	fprintf(stderr, "unknown message type %s\n", name);
	return -1;
}

static int
lnetctl_fault_portal(const char *str, unsigned long long *mask)
{
	unsigned long p = strtoul(str, NULL, 0);

	if (p >= 64) {
		fprintf(stderr, "invalid portal: %lu\n", p);
		return -1;
	}
	*mask |= 1ULL << p;
	return 0;
}

/* One option of add; -1 ends the parse with that status, 1 ends it with 0. */
static int
lnetctl_fault_add_opt(int kind, int opt, struct lnetctl_fault_attr *a)
{
	bool drop = kind == LNETCTL_FAULT_DROP;

	switch (opt) {
	case 'd':
		a->dst = optarg;
		return 0;
	case 's':
		a->src = optarg;
		return 0;
	case 'o':
		a->local_nid = optarg;
		return 0;
	case 'e':
		return drop ? lnetctl_fault_health(optarg, &a->health_mask) : 0;
	case 'm':
		return lnetctl_fault_msg(optarg, &a->msg_mask);
	case 'p':
		return lnetctl_fault_portal(optarg, &a->ptl_mask);
	case 'r':
		a->rate = (uint32_t)strtoul(optarg, NULL, 0);
		return 0;
	case 'i':
		a->interval = (uint32_t)strtoul(optarg, NULL, 0);
		return 0;
	case 'l':
		/* The kernel's drop add stores it over the health mask (a union); ignored here. */
		a->latency = drop ? 0 : (uint32_t)strtoul(optarg, NULL, 0);
		return 0;
	case 'n':
		a->random = a->random || drop;
		return 0;
	case 'x':
		a->drop_all = a->drop_all || drop;
		return 0;
	case 't': /* rule_type: the kernel's caller handles it */
		return 0;
	case '?':
		fprintf(stderr, "Unrecognized option %c\n", opt);
		return 0;
	default:
		fprintf(stderr, "Unrecognized character %c\n", opt);
		return 1;
	}
}

/*
 * getopt_long over add's options. The kernel's check_cmd leaves opterr at 0
 * when there are more than two words: getopt then complains only on one.
 */
static int
lnetctl_fault_add_parse(int kind, int argc, char **argv, struct lnetctl_fault_attr *a)
{
	static const struct option opts[] = {
		{ .name = "dest", .has_arg = required_argument, .val = 'd' },
		{ .name = "health_error", .has_arg = required_argument, .val = 'e' },
		{ .name = "interval", .has_arg = required_argument, .val = 'i' },
		{ .name = "latency", .has_arg = required_argument, .val = 'l' },
		{ .name = "message", .has_arg = required_argument, .val = 'm' },
		{ .name = "random", .has_arg = no_argument, .val = 'n' },
		{ .name = "local_nid", .has_arg = required_argument, .val = 'o' },
		{ .name = "portal", .has_arg = required_argument, .val = 'p' },
		{ .name = "rate", .has_arg = required_argument, .val = 'r' },
		{ .name = "source", .has_arg = required_argument, .val = 's' },
		{ .name = "rule_type", .has_arg = required_argument, .val = 't' },
		{ .name = "drop_all", .has_arg = no_argument, .val = 'x' },
		{ .name = NULL },
	};
	const char *optstr = kind == LNETCTL_FAULT_DROP ? "d:e:i:m:no:p:r:s:t:x" : "d:l:m:o:p:r:s:";
	int opt;
	int rc = 0;

	memset(a, 0, sizeof(*a));
	optind = 0;
	opterr = argc > 2 ? 0 : 1;
	while (rc == 0 && (opt = getopt_long(argc, argv, optstr, opts, NULL)) != -1) {
		rc = lnetctl_fault_add_opt(kind, opt, a);
	}
	opterr = 1;
	return rc;
}

/* The kernel's checks after the options, in its order, with its messages. */
static int
lnetctl_fault_add_check(int kind, const struct lnetctl_fault_attr *a)
{
	const char *word = lnetctl_fault_kinds[kind].word;

	if ((a->rate == 0) == (a->interval == 0)) {
		fprintf(stderr,
			"please provide either %s rate or interval but not both at the "
			"same time.\n",
			word);
		return -1;
	}
	if (kind == LNETCTL_FAULT_DROP && a->random && a->interval == 0) {
		fprintf(stderr, "please provide an interval to randomize\n");
		return -1;
	}
	if (kind == LNETCTL_FAULT_DELAY && a->latency == 0) {
		fprintf(stderr, "latency cannot be zero\n");
		return -1;
	}
	if (a->src == NULL || a->dst == NULL) {
		fprintf(stderr, "Please provide both source and destination of %s rule\n", word);
		return -1;
	}
	return 0;
}

static int
lnetctl_fault_add(struct lnetctl_ctx *ctx, int kind, int argc, char **argv)
{
	const struct lnetctl_fault_kind *k = &lnetctl_fault_kinds[kind];
	char src[LNET_NIDSTR_SIZE], dst[LNET_NIDSTR_SIZE], local[LNET_NIDSTR_SIZE];
	char params[512];
	struct lnetctl_fault_attr a;
	int rc = lnetctl_fault_add_parse(kind, argc, argv, &a);

	if (rc != 0) {
		return rc > 0 ? 0 : rc;
	}
	rc = lnetctl_fault_add_check(kind, &a);
	if (rc == 0 && (lnetctl_fault_nid(a.src, src, sizeof(src)) != 0 ||
			lnetctl_fault_nid(a.dst, dst, sizeof(dst)) != 0 ||
			lnetctl_fault_nid(a.local_nid, local, sizeof(local)) != 0)) {
		rc = -EINVAL;
	}
	if (rc != 0) {
		return rc;
	}
	snprintf(params, sizeof(params),
		 "src=%s,dst=%s,local_nid=%s,portals=%llu,msgs=%u,rate=%u,interval=%u", src, dst,
		 local, a.ptl_mask, a.msg_mask, a.rate, a.interval);
	if (kind == LNETCTL_FAULT_DROP) {
		snprintf(params + strlen(params), sizeof(params) - strlen(params),
			 ",health=%u,random=%d,drop_all=%d", a.health_mask, a.random, a.drop_all);
	} else {
		snprintf(params + strlen(params), sizeof(params) - strlen(params), ",latency=%u",
			 a.latency);
	}
	return lnetctl_fault_simple(ctx, k, "add", k->add, params);
}

/* del: the kernel's options, its -a falling through to -d (-a clears a -d before it). */
static int
lnetctl_fault_del(struct lnetctl_ctx *ctx, int kind, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "all", .has_arg = no_argument, .val = 'a' },
		{ .name = "dest", .has_arg = required_argument, .val = 'd' },
		{ .name = "source", .has_arg = required_argument, .val = 's' },
		{ .name = NULL },
	};
	const struct lnetctl_fault_kind *k = &lnetctl_fault_kinds[kind];
	const char *fsrc = NULL, *fdst = NULL;
	char src[LNET_NIDSTR_SIZE], dst[LNET_NIDSTR_SIZE];
	char params[160];
	bool all = false;
	int opt;

	optind = 0;
	opterr = argc > 2 ? 0 : 1;
	while ((opt = getopt_long(argc, argv, "ad:s:", opts, NULL)) != -1) {
		if (opt == 'a' || opt == 'd') {
			all = all || opt == 'a';
			fdst = opt == 'd' ? optarg : NULL;
		} else if (opt == 's') {
			fsrc = optarg;
		} else {
			opterr = 1;
			return 0;
		}
	}
	opterr = 1;
	if (!all && (fsrc == NULL || fdst == NULL)) {
		fprintf(stderr, "Failed, please provide source and destination of rule\n");
		return -1;
	}
	if (all && (fsrc != NULL || fdst != NULL)) {
		fprintf(stderr, "'-s' or '-d' cannot be combined with '-a'\n");
		return -1;
	}
	if (lnetctl_fault_nid(fsrc, src, sizeof(src)) != 0 ||
	    lnetctl_fault_nid(fdst, dst, sizeof(dst)) != 0) {
		return -EINVAL;
	}
	snprintf(params, sizeof(params), "src=%s,dst=%s", src, dst);
	return lnetctl_fault_simple(ctx, k, "del", k->del, params);
}

/* show's keys: the kernel's (its netlink key table order), then the daemon's. */
#define LNETCTL_FAULT_KEYS 13

static const char *const lnetctl_fault_show_keys[2][LNETCTL_FAULT_KEYS][2] = {
	{ { "fa_src", "src" },
	  { "fa_dst", "dst" },
	  { "fa_ptl_mask", "portals" },
	  { "fa_msg_mask", "msgs" },
	  { "da_rate", "rate" },
	  { "da_interval", "interval" },
	  { "ds_dropped", "dropped" },
	  { "fs_count", "count" },
	  { "fs_put", "put" },
	  { "fs_ack", "ack" },
	  { "fs_get", "get" },
	  { "fs_reply", "reply" },
	  { NULL, NULL } },
	{ { "fa_src", "src" },
	  { "fa_dst", "dst" },
	  { "fa_ptl_mask", "portals" },
	  { "fa_msg_mask", "msgs" },
	  { "la_rate", "rate" },
	  { "la_interval", "interval" },
	  { "la_latency", "latency" },
	  { "ls_delayed", "delayed" },
	  { "fs_count", "count" },
	  { "fs_put", "put" },
	  { "fs_ack", "ack" },
	  { "fs_get", "get" },
	  { "fs_reply", "reply" } },
};

/* One rule's values, in show's key order. */
struct lnetctl_fault_row {
	char v[LNETCTL_FAULT_KEYS][LNET_NIDSTR_SIZE];
};

struct lnetctl_fault_rows {
	struct lnetctl_fault_row *r;
	unsigned int n;
	unsigned int cap;
};

/* Keep the rules of one page ("r0".."rN"); false without memory. */
static bool
lnetctl_fault_keep(int kind, yaml_document_t *doc, yaml_node_t *v, struct lnetctl_fault_rows *rows)
{
	char key[16];
	yaml_node_t *rule;
	unsigned int i, j;

	for (i = 0; snprintf(key, sizeof(key), "r%u", i) > 0 &&
		    (rule = lnetctl_map_get(doc, v, key)) != NULL;
	     i++) {
		if (rows->n == rows->cap) {
			unsigned int cap = rows->cap == 0 ? 16 : rows->cap * 2;
			struct lnetctl_fault_row *r = realloc(rows->r, cap * sizeof(*r));

			if (r == NULL) {
				return false;
			}
			rows->r = r;
			rows->cap = cap;
		}
		for (j = 0; j < LNETCTL_FAULT_KEYS && lnetctl_fault_show_keys[kind][j][0] != NULL;
		     j++) {
			const char *s = lnetctl_scalar(
				lnetctl_map_get(doc, rule, lnetctl_fault_show_keys[kind][j][1]));

			snprintf(rows->r[rows->n].v[j], LNET_NIDSTR_SIZE, "%s",
				 s != NULL ? s : "0");
		}
		rows->n++;
	}
	return true;
}

/* The kernel's show: "fault:" and a sequence of rules, libyaml with indent 6; nothing when none. */
static void
lnetctl_fault_print(int kind, const struct lnetctl_fault_rows *rows)
{
	struct lnetctl_out o;
	unsigned int i, j;

	if (rows->n == 0) {
		return;
	}
	lnetctl_out_begin(&o, 6);
	lnetctl_out_map_begin(&o);
	lnetctl_out_scalar(&o, "fault");
	lnetctl_out_seq_begin(&o);
	for (i = 0; i < rows->n; i++) {
		lnetctl_out_map_begin(&o);
		lnetctl_out_kv(&o, "rule_type", lnetctl_fault_kinds[kind].word);
		for (j = 0; j < LNETCTL_FAULT_KEYS && lnetctl_fault_show_keys[kind][j][0] != NULL;
		     j++) {
			lnetctl_out_kv(&o, lnetctl_fault_show_keys[kind][j][0], rows->r[i].v[j]);
		}
		lnetctl_out_map_end(&o);
	}
	lnetctl_out_seq_end(&o);
	lnetctl_out_map_end(&o);
	lnetctl_out_end(&o);
}

static int
lnetctl_fault_show(struct lnetctl_ctx *ctx, int kind)
{
	const struct lnetctl_fault_kind *k = &lnetctl_fault_kinds[kind];
	struct lnetctl_fault_rows rows = { NULL, 0, 0 };
	unsigned long long start = 0;
	int rc;

	do {
		char params[32];
		yaml_document_t doc;
		yaml_node_t *v;
		const char *next;

		snprintf(params, sizeof(params), "start=%llu", start);
		rc = lnetctl_fault_request(ctx, k, "show", k->list, params, &doc, &v);
		if (rc != 0) {
			break;
		}
		next = lnetctl_scalar(lnetctl_map_get(&doc, v, "next"));
		start = next != NULL ? strtoull(next, NULL, 10) : 0;
		rc = lnetctl_fault_keep(kind, &doc, v, &rows) ? 0 : -ENOMEM;
		yaml_document_delete(&doc);
	} while (rc == 0 && start != 0);
	if (rc == 0) {
		lnetctl_fault_print(kind, &rows);
	}
	free(rows.r);
	return rc;
}

/*
 * fault drop|delay <verb>: argv[0] is the verb. The kernel's check_cmd
 * wants a word after it (show excepted): without one, the verb's help and
 * -EINVAL, reset included.
 */
static int
lnetctl_fault_run(struct lnetctl_ctx *ctx, int kind, int argc, char **argv)
{
	const char *verb = argv[0];

	if (argc < (strcmp(verb, "show") == 0 ? 1 : 2)) {
		lnetctl_print_cmd_help(lnetctl_fault_kinds[kind].word, verb);
		return -EINVAL;
	}
	if (strcmp(verb, "add") == 0) {
		return lnetctl_fault_add(ctx, kind, argc, argv);
	}
	if (strcmp(verb, "del") == 0) {
		return lnetctl_fault_del(ctx, kind, argc, argv);
	}
	if (strcmp(verb, "reset") == 0) {
		return lnetctl_fault_simple(ctx, &lnetctl_fault_kinds[kind], "reset",
					    lnetctl_fault_kinds[kind].reset, NULL);
	}
	return lnetctl_fault_show(ctx, kind);
}

int
lnetctl_fault_drop_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	return lnetctl_fault_run(ctx, LNETCTL_FAULT_DROP, argc, argv);
}

int
lnetctl_fault_delay_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	return lnetctl_fault_run(ctx, LNETCTL_FAULT_DELAY, argc, argv);
}
