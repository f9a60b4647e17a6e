/* SPDX-License-Identifier: BSD-3-Clause */
/* lnetctl ping: the daemon GETs each target's ping info; print as §12.10 shows. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnetctl.h"
#include "nidstr.h"

static void
lnetctl_ping_out(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *v)
{
	yaml_node_pair_t *p;

	lnetctl_out_map_begin(o);
	lnetctl_out_kv(o, "primary nid", lnetctl_scalar(lnetctl_map_get(doc, v, "primary_nid")));
	lnetctl_out_kv(o, "Multi-Rail", lnetctl_scalar(lnetctl_map_get(doc, v, "multi_rail")));
	lnetctl_out_scalar(o, "peer_ni");
	lnetctl_out_seq_begin(o);
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		const char *k = lnetctl_scalar(yaml_document_get_node(doc, p->key));

		if (k != NULL && strncmp(k, "nid", 3) == 0) {
			lnetctl_out_map_begin(o);
			lnetctl_out_kv(o, "nid", lnetctl_scalar(yaml_document_get_node(doc, p->value)));
			lnetctl_out_map_end(o);
		}
	}
	lnetctl_out_seq_end(o);
	lnetctl_out_map_end(o);
}

/* One ping; its reply joins the "ping:" list, opened on the first. */
static int
lnetctl_ping_nid(struct lnetctl_conn *c, const char *nid, const char *src, int timeout_s,
		 struct lnetctl_out *o, bool *open)
{
	char params[256];
	yaml_document_t doc;
	yaml_node_t *v;
	int rc;

	snprintf(params, sizeof(params), "nid=%s,timeout=%d%s%s", nid, timeout_s * 1000,
		 src != NULL ? ",source=" : "", src != NULL ? src : "");
	rc = lnetctl_request_status(c, "/lnet/ping", params, &doc, &v, "manage", "ping");
	if (rc != 0) {
		return rc;
	}
	if (!*open) {
		lnetctl_out_begin(o, 2); /* as the kernel prints ping */
		lnetctl_out_map_begin(o);
		lnetctl_out_scalar(o, "ping");
		lnetctl_out_seq_begin(o);
		*open = true;
	}
	lnetctl_ping_out(o, &doc, v);
	yaml_document_delete(&doc);
	return 0;
}

/*
 * Replies print as one list on stdout; a failed NID's error block goes to
 * stderr, all of them under one "manage:" key. Returns the last failure.
 */
static int
lnetctl_ping(struct lnetctl_conn *c, char (*nids)[LNET_NIDSTR_SIZE], unsigned int n,
	     const char *src, int timeout_s)
{
	struct lnetctl_out o;
	bool open = false;
	unsigned int i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		int one = lnetctl_ping_nid(c, nids[i], src, timeout_s, &o, &open);

		rc = one != 0 ? one : rc;
	}
	if (open) {
		lnetctl_out_seq_end(&o);
		lnetctl_out_map_end(&o);
		lnetctl_out_end(&o);
	}
	return rc;
}

static void
lnetctl_ping_help(void)
{
	printf("ping nid[,nid,...]\n"
	       "\t -s|--source: the local NID to send the ping from\n"
	       "\t -t|--timeout: seconds to wait for each reply (default 1)\n"
	       "\t -h|--help: print this help\n");
}

/*
 * ping [-s|--source NID] [-t|--timeout S] NID[,NID...] [NID...]: the
 * kernel's jt_ping options; NIDs may be ranges ("10.0.0.[1-3]@tcp"). As
 * its getopt loop, -h prints the help and an unknown option ends with 0.
 */
int
lnetctl_ping_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "help", .has_arg = no_argument, .val = 'h' },
		{ .name = "timeout", .has_arg = required_argument, .val = 't' },
		{ .name = "source", .has_arg = required_argument, .val = 's' },
		{ .name = NULL },
	};
	char (*nids)[LNET_NIDSTR_SIZE] = NULL;
	const char *src = NULL;
	const char *why = "";
	struct lnet_nid nid;
	unsigned int n = 0;
	int timeout = 1;
	int opt;
	int rc;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "hs:t:", opts, NULL)) != -1) {
		if (opt == 's') {
			src = optarg;
		} else if (opt == 't') {
			timeout = atoi(optarg);
		} else {
			if (opt == 'h') {
				lnetctl_ping_help();
			}
			return 0;
		}
	}
	if (src != NULL && libcfs_strnid(&nid, src) != 0) {
		return lnetctl_usage_error("manage", "ping", "cannot parse source NID");
	}
	if (timeout <= 0) {
		return lnetctl_usage_error("manage", "ping", "the timeout must be at least 1 second");
	}
	if (optind >= argc) {
		lnetctl_print_error_raw("manage", "ping", -EINVAL,
					"Unable to parse nidlist: no NID to ping");
		return -EINVAL;
	}
	rc = lnetctl_nid_args(argc - optind, argv + optind, &nids, &n, &why);
	if (rc != 0) {
		lnetctl_print_error_raw("manage", "ping", rc, why);
		return rc;
	}
	rc = lnetctl_need_conn(ctx);
	if (rc == 0) {
		rc = lnetctl_ping(&ctx->conn, nids, n, src, timeout);
	}
	free(nids);
	return rc;
}
