/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The commands outside net, peer and config: lnet, stats, global,
 * cpt-of-nid, debug nidlist, capture, and those that do not apply to a
 * userspace node. Each is called as the kernel's jt_* functions are
 * (argv[0] = the command or subcommand word); -h/--help alone is answered
 * by the dispatcher before they run, as the kernel's check_cmd() does.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "lnetctl.h"
#include "nidstr.h"

int
lnetctl_usage_error(const char *verb, const char *object, const char *usage)
{
	lnetctl_print_error(verb, object, -EINVAL, usage);
	return -EINVAL;
}

/* stats show: as the kernel's, extra words are ignored. */
int
lnetctl_stats_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_need_conn(ctx);

	(void)argc;
	(void)argv;
	return rc != 0 ? rc : lnetctl_stats_show(&ctx->conn);
}

/* stats reset: as the kernel's, silent on success. */
int
lnetctl_stats_reset_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	yaml_document_t doc;
	yaml_node_t *v;
	int rc = lnetctl_need_conn(ctx);

	(void)argc;
	(void)argv;
	if (rc == 0) {
		rc = lnetctl_request_status(&ctx->conn, "/lnet/stats_reset", NULL, &doc, &v,
					    "reset", "statistics");
	}
	if (rc == 0) {
		yaml_document_delete(&doc);
	}
	return rc;
}

int
lnetctl_global_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_need_conn(ctx);

	(void)argc;
	(void)argv;
	return rc != 0 ? rc : lnetctl_global_show(&ctx->conn);
}

/*
 * lnet configure [-a|--all] [-l|--large]: LNet runs for as long as the
 * daemon does, so this confirms it answers (the kernel's is idempotent).
 * As the kernel's getopt loop, an unknown option ends the command with 0.
 */
int
lnetctl_lnet_configure_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "all", .has_arg = no_argument, .val = 'a' },
		{ .name = "large", .has_arg = no_argument, .val = 'l' },
		{ .name = NULL },
	};
	yaml_document_t doc;
	char err[256];
	int opt;
	int rc;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "al", opts, NULL)) != -1) {
		if (opt != 'a' && opt != 'l') {
			return 0;
		}
	}
	rc = lnetctl_need_conn(ctx);
	if (rc != 0) {
		return rc;
	}
	rc = lnetctl_request(&ctx->conn, "/lnet/global_show", NULL, &doc, err, sizeof(err));
	if (rc != 0) {
		char descr[300];

		snprintf(descr, sizeof(descr), "LNet configure error: %s", err);
		lnetctl_print_nl_error("configure", "lnet", rc, descr);
		return rc;
	}
	yaml_document_delete(&doc);
	return 0;
}

/* lnet unconfigure: every network but 0@lo goes; the daemon keeps running. */
int
lnetctl_lnet_unconfigure_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_need_conn(ctx);

	(void)argc;
	(void)argv;
	return rc != 0 ? rc : lnetctl_unconfigure(&ctx->conn);
}

/* cpt-of-nid NID[ NID...]: "cpt-of-nid:" then "- nid: / cpt:" per NID (§12.11) */
static int
lnetctl_cpt_of_nids(struct lnetctl_ctx *ctx, char (*nids)[LNET_NIDSTR_SIZE], unsigned int n)
{
	struct lnetctl_out o;
	bool open = false;
	unsigned int i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		char params[160];
		yaml_document_t doc;
		yaml_node_t *v;

		snprintf(params, sizeof(params), "nid=%s", nids[i]);
		rc = lnetctl_request_status(&ctx->conn, "/lnet/cpt_of_nid", params, &doc, &v,
					    "show", "cpt-of-nid");
		if (rc != 0) {
			break;
		}
		if (!open) {
			lnetctl_out_begin(&o, 4);
			lnetctl_out_map_begin(&o);
			lnetctl_out_scalar(&o, "cpt-of-nid");
			lnetctl_out_seq_begin(&o);
			open = true;
		}
		lnetctl_out_map_begin(&o);
		lnetctl_out_kv(&o, "nid", nids[i]);
		lnetctl_out_kv(&o, "cpt", lnetctl_scalar(lnetctl_map_get(&doc, v, "cpt")));
		lnetctl_out_map_end(&o);
		yaml_document_delete(&doc);
	}
	if (open) {
		lnetctl_out_seq_end(&o);
		lnetctl_out_map_end(&o);
		lnetctl_out_end(&o);
	}
	return rc;
}

/*
 * As the kernel's: without a NID it prints its help and fails -EINVAL
 * (check_cmd with two words at least); any option prints the help and
 * returns 0.
 */
int
lnetctl_cpt_of_nid_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "help", .val = 'h' },
		{ .name = NULL },
	};
	char(*nids)[LNET_NIDSTR_SIZE] = NULL;
	const char *why = "";
	unsigned int n = 0;
	int rc;

	if (argc < 2) {
		lnetctl_print_cmd_help("cpt-of-nid", NULL);
		return -EINVAL;
	}
	optind = 0;
	opterr = 0;
	if (getopt_long(argc, argv, "h", opts, NULL) != -1) {
		opterr = 1;
		lnetctl_print_cmd_help("cpt-of-nid", NULL);
		return 0;
	}
	opterr = 1;
	rc = lnetctl_nid_args(argc - optind, argv + optind, &nids, &n, &why);
	if (rc != 0) {
		lnetctl_print_nl_error("show", "cpt-of-nid", rc, why);
		return rc;
	}
	rc = lnetctl_need_conn(ctx);
	if (rc == 0) {
		rc = lnetctl_cpt_of_nids(ctx, nids, n);
	}
	free(nids);
	return rc;
}

/*
 * debug recovery --local|--peer (-l|-p): the NIDs waiting for health
 * recovery, as the kernel prints them ("Peer NI recovery:" then "nid-N:"
 * lines; nothing when the queue is empty). Without an option the kernel's
 * lnetctl prints nothing and fails with -EINVAL; so does this one.
 */
int
lnetctl_debug_recovery_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "local", no_argument, NULL, 'l' },
		{ "peer", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	yaml_document_t doc;
	yaml_node_t *v;
	char err[256];
	int which = 0;
	int opt;
	int rc;
	unsigned int i;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "lp", opts, NULL)) != -1) {
		if (opt != 'l' && opt != 'p') {
			return 0; /* as the kernel's: an unknown option ends it quietly */
		}
		which = opt;
	}
	if (which == 0) {
		return -EINVAL;
	}
	rc = lnetctl_need_conn(ctx);
	if (rc != 0) {
		return rc;
	}
	rc = lnetctl_request(&ctx->conn, "/lnet/recovery_show",
			     which == 'l' ? "local=1" : "local=0", &doc, err, sizeof(err));
	if (rc == 0) {
		const char *status;

		v = yaml_document_get_node(&doc, yaml_document_get_root_node(&doc)
							 ->data.mapping.pairs.start->value);
		status = lnetctl_scalar(lnetctl_map_get(&doc, v, "status"));
		rc = status != NULL ? atoi(status) : -EPROTO;
		if (rc != 0) {
			const char *d = lnetctl_scalar(lnetctl_map_get(&doc, v, "descr"));

			snprintf(err, sizeof(err), "%s", d != NULL ? d : "");
			yaml_document_delete(&doc);
		}
	}
	if (rc != 0) {
		/* 2.17's yaml_debug_recovery: the reader's message on stdout, and 0 */
		printf("Operation failed: %s\n", err);
		return 0;
	}
	for (i = 0;; i++) {
		char key[16];
		const char *nid;

		snprintf(key, sizeof(key), "nid_%u", i);
		nid = lnetctl_scalar(lnetctl_map_get(&doc, v, key));
		if (nid == NULL) {
			break;
		}
		if (i == 0) {
			printf("%s NI recovery:\n", which == 'l' ? "Local" : "Peer");
		}
		printf("      nid-%u: %s\n", i, nid);
	}
	yaml_document_delete(&doc);
	return 0;
}

/*
 * debug peer --nid NID (2.17's jt_show_peer_debug_info and
 * lustre_lnet_show_peer_debug_info): its checks and their cYAML blocks
 * ("debug:" then "- peer:"); the kernel's answer is a dump to its log,
 * which this node does not have yet: a block of the same shape says so.
 */
int
lnetctl_debug_peer_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "nid", .has_arg = required_argument, .val = 'k' },
		{ .name = NULL },
	};
	const char *nid = NULL;
	char descr[160];
	int opt;

	(void)ctx;
	lnetctl_check_cmd_opterr(argc);
	while ((opt = getopt_long(argc, argv, "k:", opts, NULL)) != -1) {
		if (opt != 'k') {
			opterr = 1;
			return 0; /* its default: case, after getopt's complaint */
		}
		nid = optarg;
	}
	opterr = 1;
	if (nid == NULL) {
		lnetctl_print_error_raw("debug", "peer", -EINVAL, "--nid must be specified");
		return -EINVAL;
	}
	if (libcfs_str2nid(nid) == LNET_NID_ANY) {
		snprintf(descr, sizeof(descr), "badly formatted primary NID: %s", nid);
		lnetctl_print_error("debug", "peer", -EINVAL, descr);
		return -EINVAL;
	}
	lnetctl_print_error("debug", "peer", -EOPNOTSUPP,
			    "debug peer: not supported by lnetd-pmd yet");
	return -EOPNOTSUPP;
}

/* The kernel's answer for a NID list that does not parse. */
static int
lnetctl_nidlist_bad(const char *nidstr)
{
	fprintf(stderr, "Unable to parse nidlist from: %s\n", nidstr);
	return -EINVAL;
}

/*
 * debug nidlist NIDLIST [NID]: the list as parsed, and whether NID
 * matches it; plain lines as the kernel's lustre_lnet_debug_nidlist.
 */
static int
lnetctl_debug_nidlist_one(const char *nidstr, const char *match)
{
	struct cfs_nidlist *nl = NULL;
	struct lnet_nid nid;
	size_t size = 2 * strlen(nidstr) + 64;
	char *buf;
	int rc = -EINVAL;

	if (cfs_parse_nidlist(nidstr, strlen(nidstr), &nl) != 0) {
		return lnetctl_nidlist_bad(nidstr);
	}
	buf = malloc(size);
	if (buf == NULL) {
		cfs_free_nidlist(nl);
		fprintf(stderr, "Cannot allocate memory for buffer\n");
		return -ENOMEM;
	}
	/* As the kernel, print it when it fits. */
	if (cfs_nidlist_print(buf, size, nl) > 0) {
		printf("nidlist parsed to: %s\n", buf);
	}
	if (match == NULL) {
		rc = 0;
	} else if (libcfs_strnid(&nid, match) != 0) {
		fprintf(stderr, "Invalid nid for matching %s\n", match);
	} else {
		printf("%s %s nidlist %s\n", match,
		       cfs_match_nid(&nid, nl) ? "matches" : "does not match", nidstr);
		rc = 0;
	}
	free(buf);
	cfs_free_nidlist(nl);
	return rc;
}

int
lnetctl_debug_nidlist_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	if (argc < 2) {
		fprintf(stderr, "Missing nidlist argument\n");
		return -EINVAL;
	}
	if (argc > 3) {
		fprintf(stderr, "Too many arguments\n");
		return -EINVAL;
	}
	return lnetctl_debug_nidlist_one(argv[1], argc == 3 ? argv[2] : NULL);
}

/*
 * Commands that configure the Linux host or an InfiniBand port: the node
 * is a process over DPDK ports, so there is nothing for them to set.
 */
int
lnetctl_not_applicable_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	char descr[256];

	(void)ctx;
	(void)argc;
	if (strcmp(argv[0], "service-id") == 0) {
		snprintf(descr, sizeof(descr),
			 "service-id: the IB service ID belongs to the o2ib LND; lnetd-pmd has "
			 "only the socket LND");
	} else if (strcmp(argv[0], "setup-mrrouting") == 0) {
		snprintf(descr, sizeof(descr),
			 "setup-mrrouting: lnetd-pmd sends from each NI's own DPDK port, so the "
			 "kernel's routing tables play no part");
	} else {
		snprintf(descr, sizeof(descr),
			 "%s: lnetd-pmd runs in userspace; its NIs do not use the kernel's "
			 "network sysctls",
			 argv[0]);
	}
	lnetctl_print_error("manage", argv[0], -EOPNOTSUPP, descr);
	return -EOPNOTSUPP;
}

int
lnetctl_capture_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_need_conn(ctx);

	return rc != 0 ? rc : lnetctl_capture(&ctx->conn, argc, argv);
}
