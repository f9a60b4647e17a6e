/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udsp add|del|show, as the kernel lnetctl parses and prints them
 * (jt_add_udsp, jt_del_udsp, jt_show_udsp of lnet/utils/lnetctl.c and
 * liblnetconfig_udsp.c): the same options and letters, its messages for
 * bad numbers on stdout, its help when add names no descriptor, its error
 * blocks on stderr (del's under "add:", as its library builds them), and
 * show's cYAML. The rules live in the daemon (/lnet/udsp_add|del|show),
 * which checks them as the kernel's library and module do; the udsp info
 * of net show and peer show -v 4 is printed here too.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnetctl.h"

/* The kernel's parse_long: strtol in any base, nothing after the number ("" is 0). */
static int
lnetctl_udsp_long(const char *s, long *v)
{
	char *end;

	*v = strtol(s, &end, 0);
	return *end != '\0' ? -1 : 0;
}

/*
 * ",key=descr" for the daemon: a descriptor's commas ("10.0.0.[1,3]@tcp")
 * travel as ';', which the daemon turns back. A descriptor holding ';' or
 * '=' itself, or an empty one, cannot travel: it goes with those as '!'
 * (still there for the daemon's checks of which descriptors are given,
 * and unparsable), and false says so. Too long for a request: false too.
 */
static bool
lnetctl_udsp_param(char *params, size_t len, const char *key, const char *descr)
{
	size_t off = strlen(params);
	bool ok = true;
	size_t i;

	if (descr == NULL) {
		return true;
	}
	if (off + strlen(key) + strlen(descr) + 3 >= len) {
		return false;
	}
	off += (size_t)snprintf(params + off, len - off, "%s%s=", off > 0 ? "," : "", key);
	if (descr[0] == '\0') {
		/* given but empty: the kernel's parse fails on it; the daemon would read "absent" */
		params[off++] = '!';
		ok = false;
	}
	for (i = 0; descr[i] != '\0'; i++) {
		char ch = descr[i];

		if (ch == ';' || ch == '=') {
			ok = false;
			ch = '!';
		}
		params[off++] = ch == ',' ? ';' : ch;
	}
	params[off] = '\0';
	return ok;
}

/*
 * One request whose reply carries "status" (and "descr"): 0 with the reply
 * in @p doc / @p v, or the status. On failure the kernel's block is printed
 * under @p verb unless the status is @p quiet (0: none), which the caller
 * handles itself.
 */
static int
lnetctl_udsp_request(struct lnetctl_conn *c, const char *cmd, const char *params, const char *verb,
		     int quiet, yaml_document_t *doc, yaml_node_t **v)
{
	char err[256];
	const char *status;
	const char *descr;
	int rc = lnetctl_request(c, cmd, params, doc, err, sizeof(err));

	if (rc != 0) {
		lnetctl_print_error(verb, "udsp", rc, err);
		return rc;
	}
	*v = yaml_document_get_node(doc, yaml_document_get_root_node(doc)
						 ->data.mapping.pairs.start->value);
	status = lnetctl_scalar(lnetctl_map_get(doc, *v, "status"));
	rc = status != NULL ? atoi(status) : -EPROTO;
	if (rc != 0) {
		descr = lnetctl_scalar(lnetctl_map_get(doc, *v, "descr"));
		if (rc != quiet) {
			lnetctl_print_error(verb, "udsp", rc,
					    descr != NULL ? descr :
							    "unexpected reply from lnetd-pmd");
		}
		yaml_document_delete(doc);
	}
	return rc;
}

/*
 * The request of an add: @p params gets src/dst/rte, priority and idx; false
 * (with the descriptor named in @p bad) when one cannot travel, which the
 * kernel's library refuses as what it cannot parse.
 */
static bool
lnetctl_udsp_add_params(char *params, size_t len, const char *src, const char *dst, const char *rte,
			long priority, long idx, const char **bad)
{
	bool ok[3];

	params[0] = '\0';
	ok[0] = lnetctl_udsp_param(params, len, "src", src);
	ok[1] = lnetctl_udsp_param(params, len, "dst", dst);
	ok[2] = lnetctl_udsp_param(params, len, "rte", rte);
	if ((src == NULL || rte == NULL) && (!ok[0] || !ok[1] || !ok[2])) {
		*bad = !ok[0] ? "src" : !ok[1] ? "dst" : "rte";
		return false;
	}
	if (priority >= 0) {
		snprintf(params + strlen(params), len - strlen(params), "%spriority=%ld",
			 params[0] != '\0' ? "," : "", priority);
	}
	if (idx >= 0) {
		snprintf(params + strlen(params), len - strlen(params), "%sidx=%ld",
			 params[0] != '\0' ? "," : "", idx);
	}
	return true;
}

int
lnetctl_udsp_add(struct lnetctl_conn *c, const char *src, const char *dst, const char *rte,
		 long priority, long idx)
{
	char params[1024];
	const char *bad = NULL;
	yaml_document_t doc;
	yaml_node_t *v;
	int rc;

	/*
	 * The kernel's library checks which descriptors are given (the daemon
	 * answers those in its words), then parses each: one that cannot
	 * travel is refused here as the kernel refuses what it cannot parse.
	 */
	if (!lnetctl_udsp_add_params(params, sizeof(params), src, dst, rte, priority, idx, &bad)) {
		char descr[64];

		snprintf(descr, sizeof(descr), "failed to parse %s parameter", bad);
		lnetctl_print_error("add", "udsp", -EINVAL, descr);
		return -EINVAL;
	}
	rc = lnetctl_udsp_request(c, "/lnet/udsp_add", params[0] != '\0' ? params : NULL, "add", 0,
				  &doc, &v);
	if (rc == 0) {
		yaml_document_delete(&doc);
	}
	return rc;
}

/*
 * One rule of an import: 2.17's handle_udsp_sequences (lnetctl.c) drops
 * the error tree lustre_lnet_add_udsp builds, so nothing is printed; the
 * status is returned (-EINVAL for what cannot travel).
 */
int
lnetctl_udsp_import_add(struct lnetctl_conn *c, const char *src, const char *dst, const char *rte,
			long priority, long idx)
{
	char params[1024];
	char descr[256];
	const char *bad = NULL;

	if (!lnetctl_udsp_add_params(params, sizeof(params), src, dst, rte, priority, idx, &bad)) {
		return -EINVAL;
	}
	return lnetctl_call(c, "/lnet/udsp_add", params[0] != '\0' ? params : NULL, descr,
			    sizeof(descr));
}

int
lnetctl_udsp_del(struct lnetctl_conn *c, long idx)
{
	char params[32];
	yaml_document_t doc;
	yaml_node_t *v;
	int rc;

	if (idx < 0) {
		snprintf(params, sizeof(params), "all=1");
	} else {
		snprintf(params, sizeof(params), "idx=%ld", idx);
	}
	/* the kernel's lustre_lnet_del_udsp builds its error with ADD_CMD */
	rc = lnetctl_udsp_request(c, "/lnet/udsp_del", params, "add", 0, &doc, &v);
	if (rc == 0) {
		yaml_document_delete(&doc);
	}
	return rc;
}

/*
 * A descriptor as the kernel prints it, bare. Where a bare scalar would
 * not read back as YAML (a NID range that starts with '[' or '*'), it is
 * single-quoted: the kernel's own output is not valid YAML there.
 */
static void
lnetctl_udsp_print_descr(const char *key, const char *v)
{
	if (v == NULL) {
		return;
	}
	if (v[0] == '\0' || strchr("[]{}*&!|>'\"%@`#,?:-", v[0]) != NULL ||
	    strstr(v, ": ") != NULL || strstr(v, " #") != NULL) {
		printf("      %s: '", key);
		for (; *v != '\0'; v++) {
			printf(*v == '\'' ? "''" : "%c", *v);
		}
		printf("'\n");
		return;
	}
	printf("      %s: %s\n", key, v);
}

/*
 * The rules of one page, in cYAML's layout: "udsp:" once, each rule a
 * sequence item at 4 ("    - idx: N"), its keys at 6, action's at 10.
 */
static unsigned int
lnetctl_udsp_print_page(yaml_document_t *doc, yaml_node_t *v, bool *header)
{
	char key[16];
	yaml_node_t *r;
	unsigned int i;

	for (i = 0;
	     snprintf(key, sizeof(key), "r%u", i) > 0 && (r = lnetctl_map_get(doc, v, key)) != NULL;
	     i++) {
		const char *idx = lnetctl_scalar(lnetctl_map_get(doc, r, "idx"));
		const char *prio = lnetctl_scalar(lnetctl_map_get(doc, r, "priority"));

		if (!*header) {
			printf("udsp:\n");
			*header = true;
		}
		printf("    - idx: %s\n", idx != NULL ? idx : "0");
		lnetctl_udsp_print_descr("src", lnetctl_scalar(lnetctl_map_get(doc, r, "src")));
		lnetctl_udsp_print_descr("dst", lnetctl_scalar(lnetctl_map_get(doc, r, "dst")));
		lnetctl_udsp_print_descr("rte", lnetctl_scalar(lnetctl_map_get(doc, r, "rte")));
		if (prio != NULL) {
			printf("      action:\n          priority: %s\n", prio);
		}
	}
	return i;
}

/*
 * show: every rule (@p idx < 0) or the one at @p idx, nothing at all when
 * there is none (the kernel's ENOENT ends its listing without an error).
 */
int
lnetctl_udsp_show(struct lnetctl_conn *c, long idx)
{
	unsigned long long start = 0;
	bool header = false;
	int rc;

	do {
		char params[64];
		yaml_document_t doc;
		yaml_node_t *v;
		const char *next;

		if (idx >= 0) {
			snprintf(params, sizeof(params), "idx=%ld,start=%llu", idx, start);
		} else {
			snprintf(params, sizeof(params), "start=%llu", start);
		}
		rc = lnetctl_udsp_request(c, "/lnet/udsp_show", params, "show", -ENOENT, &doc, &v);
		if (rc != 0) {
			break;
		}
		lnetctl_udsp_print_page(&doc, v, &header);
		next = lnetctl_scalar(lnetctl_map_get(&doc, v, "next"));
		start = next != NULL ? strtoull(next, NULL, 10) : 0;
		yaml_document_delete(&doc);
	} while (start != 0);
	fflush(stdout);
	return rc == -ENOENT ? 0 : rc;
}

/*
 * The kernel's "udsp info" of a local NI (net show -v 4, after its
 * statistics) or a peer NI (peer show -v 4, after its nid): the priorities
 * (-1: no rule applies; a daemon without UDSP gives none, and -1 is what
 * the kernel prints then), then the preferred gateways and source NIDs as
 * "NID-i" mappings, each only when there is one.
 */
static void
lnetctl_udsp_out_nid(struct lnetctl_out *o, const char *title, unsigned int *i, const char *nid)
{
	char key[16];

	if (*i == 0) {
		lnetctl_out_scalar(o, title);
		lnetctl_out_map_begin(o);
	}
	snprintf(key, sizeof(key), "NID-%u", (*i)++);
	lnetctl_out_kv(o, key, nid);
}

/* The daemon's list, one NID a key: "<key>0", "<key>1"... */
static void
lnetctl_udsp_out_nids(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *ni,
		      const char *title, const char *key)
{
	const char *nid;
	char k[48];
	unsigned int i = 0;
	unsigned int j;

	for (j = 0; snprintf(k, sizeof(k), "%s%u", key, j) > 0 &&
		    (nid = lnetctl_scalar(lnetctl_map_get(doc, ni, k))) != NULL;
	     j++) {
		lnetctl_udsp_out_nid(o, title, &i, nid);
	}
	if (i > 0) {
		lnetctl_out_map_end(o);
	}
}

void
lnetctl_out_udsp_info(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *ni)
{
	const char *net = lnetctl_scalar(lnetctl_map_get(doc, ni, "udsp_net_priority"));
	const char *nid = lnetctl_scalar(lnetctl_map_get(doc, ni, "udsp_nid_priority"));

	lnetctl_out_scalar(o, "udsp info");
	lnetctl_out_map_begin(o);
	lnetctl_out_kv(o, "net priority", net != NULL ? net : "-1");
	lnetctl_out_kv(o, "nid priority", nid != NULL ? nid : "-1");
	lnetctl_udsp_out_nids(o, doc, ni, "Preferred gateway NIDs", "udsp_pref_gw");
	lnetctl_udsp_out_nids(o, doc, ni, "Preferred source NIDs", "udsp_pref_src");
	lnetctl_out_map_end(o);
}

/*
 * The kernel's check_cmd leaves getopt's messages off when the command has
 * more than two words; with fewer, getopt complains itself.
 */
static void
lnetctl_udsp_opterr(int argc)
{
	optind = 0;
	opterr = argc > 2 ? 0 : 1;
}

/* udsp add [--src|-s D] [--dst|-d D] [--rte|-r D] [--priority|-p N] [--idx|-i N] */
int
lnetctl_udsp_add_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "src", .has_arg = required_argument, .val = 's' },
		{ .name = "dst", .has_arg = required_argument, .val = 'd' },
		{ .name = "rte", .has_arg = required_argument, .val = 'r' },
		{ .name = "priority", .has_arg = required_argument, .val = 'p' },
		{ .name = "idx", .has_arg = required_argument, .val = 'i' },
		{ .name = NULL },
	};
	const char *src = NULL, *dst = NULL, *rte = NULL;
	long priority = -1, idx = -1;
	int opt;
	int rc;

	lnetctl_udsp_opterr(argc);
	while ((opt = getopt_long(argc, argv, "s:d:r:p:i:", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			src = optarg;
			break;
		case 'd':
			dst = optarg;
			break;
		case 'r':
			rte = optarg;
			break;
		case 'p':
			if (lnetctl_udsp_long(optarg, &priority) != 0 || priority < 0) {
				printf("Invalid priority \"%s\"\n", optarg);
				opterr = 1;
				return -EINVAL;
			}
			break;
		case 'i':
			if (lnetctl_udsp_long(optarg, &idx) != 0 || idx < 0) {
				printf("Invalid index \"%s\"\n", optarg);
				opterr = 1;
				return -EINVAL;
			}
			break;
		default:
			lnetctl_print_cmd_help("udsp", "add");
			opterr = 1;
			return 0;
		}
	}
	opterr = 1;
	if (src == NULL && dst == NULL && rte == NULL) {
		lnetctl_print_cmd_help("udsp", "add");
		return 0;
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_udsp_add(&ctx->conn, src, dst, rte, priority, idx);
}

/* udsp del --all|-a | --idx|-i N  (--idx -1 is every rule, as the kernel's) */
int
lnetctl_udsp_del_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "all", .has_arg = no_argument, .val = 'a' },
		{ .name = "idx", .has_arg = required_argument, .val = 'i' },
		{ .name = NULL },
	};
	bool all = false;
	long idx = -2;
	int opt;
	int rc;

	lnetctl_udsp_opterr(argc);
	while ((opt = getopt_long(argc, argv, "ai:", opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			all = true;
			break;
		case 'i':
			if (lnetctl_udsp_long(optarg, &idx) != 0 || idx < -1) {
				printf("Invalid index \"%s\"\n", optarg);
				opterr = 1;
				return -EINVAL;
			}
			break;
		default:
			lnetctl_print_cmd_help("udsp", "del");
			opterr = 1;
			return 0;
		}
	}
	opterr = 1;
	if (all && idx != -2) {
		printf("Cannot combine --all with --idx\n");
		return -EINVAL;
	}
	if (all) {
		idx = -1;
	} else if (idx == -2) {
		printf("Must specify --idx or --all\n");
		return -EINVAL;
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_udsp_del(&ctx->conn, idx);
}

/* udsp show [--idx|-i N]  (-1: every rule) */
int
lnetctl_udsp_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "idx", .has_arg = required_argument, .val = 'i' },
		{ .name = NULL },
	};
	long idx = -1;
	int opt;
	int rc;

	lnetctl_udsp_opterr(argc);
	while ((opt = getopt_long(argc, argv, "i:", opts, NULL)) != -1) {
		if (opt != 'i') {
			/* the kernel's show prints net show's help here */
			lnetctl_print_cmd_help("net", "show");
			opterr = 1;
			return 0;
		}
		if (lnetctl_udsp_long(optarg, &idx) != 0 || idx < -1) {
			printf("Invalid index \"%s\"\n", optarg);
			opterr = 1;
			return -EINVAL;
		}
	}
	opterr = 1;
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_udsp_show(&ctx->conn, idx);
}
