/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnetctl ping and discover: the daemon GETs each target's ping info, or
 * discovers its peer; both print as the kernel's netlink replies (§12.10).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnetctl.h"
#include "cfs.h"
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
			lnetctl_out_kv(o, "nid",
				       lnetctl_scalar(yaml_document_get_node(doc, p->value)));
			lnetctl_out_map_end(o);
		}
	}
	lnetctl_out_seq_end(o);
	lnetctl_out_map_end(o);
}

/*
 * One run's stdout, as the kernel's ping prints the reply of its one
 * request: the replies under "ping:", then each failed NID under
 * "manage:", all one YAML document.
 */
struct lnetctl_ping_run {
	struct lnetctl_out o;
	bool doc_open;
	bool seq_open;
};

static void
lnetctl_ping_section(struct lnetctl_ping_run *r, const char *key)
{
	if (!r->doc_open) {
		lnetctl_out_begin(&r->o, 2); /* as the kernel prints ping */
		lnetctl_out_map_begin(&r->o);
		r->doc_open = true;
	}
	if (r->seq_open) {
		lnetctl_out_seq_end(&r->o);
	}
	lnetctl_out_scalar(&r->o, key);
	lnetctl_out_seq_begin(&r->o);
	r->seq_open = true;
}

static void
lnetctl_ping_run_end(struct lnetctl_ping_run *r)
{
	if (r->seq_open) {
		lnetctl_out_seq_end(&r->o);
	}
	if (r->doc_open) {
		lnetctl_out_map_end(&r->o);
		lnetctl_out_end(&r->o);
	}
}

/*
 * A NID that failed: the kernel's "failed to <ping|discover> NID: <strerror>",
 * its descr tagged as yaml_lnet_ping_display() emits it ("descr: ! '...'").
 */
static void
lnetctl_ping_failed(struct lnetctl_ping_run *r, const char *group, const char *nid, int err)
{
	struct lnet_processid id;
	char num[16];
	char descr[512];

	snprintf(num, sizeof(num), "%d", err);
	if (libcfs_strid(&id, nid) != 0) {
		/* lnet_ping_cmd()'s text for a NID it cannot parse (discover) */
		snprintf(descr, sizeof(descr), "cannot parse NID '%s': %s", nid, strerror(-err));
	} else {
		snprintf(descr, sizeof(descr), "failed to %s %s: %s", group, libcfs_nidstr(&id.nid),
			 strerror(-err));
	}
	lnetctl_out_map_begin(&r->o);
	lnetctl_out_kv(&r->o, group, "");
	lnetctl_out_kv(&r->o, "errno", num);
	lnetctl_out_scalar(&r->o, "descr");
	lnetctl_out_tagged(&r->o, descr);
	lnetctl_out_map_end(&r->o);
}

/*
 * What differs between ping and discover: the group word (the telemetry
 * request /lnet/<group>, the YAML section, "failed to <group> NID"), the
 * parameters each NID's request adds, and whether the daemon's -EINVAL
 * refuses the whole request.
 */
struct lnetctl_ping_req {
	const char *group;
	const char *extra; /* "k=v[,k=v]" after nid=, or NULL */
	bool einval_stops;
};

/*
 * One NID: 0 and the reply document, or the daemon's status. A daemon
 * that cannot be asked or answers with no status, and for ping its -EINVAL
 * (a NID or source it cannot use), set *stop: the whole command fails with
 * an error block on stderr, as the kernel's netlink request does; other
 * failures (-EPROTO for a bad reply among them) are the NID's result.
 */
static int
lnetctl_ping_nid(struct lnetctl_conn *c, const struct lnetctl_ping_req *q, const char *nid,
		 yaml_document_t *doc, yaml_node_t **v, bool *stop)
{
	char cmd[32];
	char params[256];
	char err[256];
	const char *status;
	const char *descr;
	int rc;

	snprintf(cmd, sizeof(cmd), "/lnet/%s", q->group);
	snprintf(params, sizeof(params), "nid=%s%s%s", nid, q->extra != NULL ? "," : "",
		 q->extra != NULL ? q->extra : "");
	rc = lnetctl_request(c, cmd, params, doc, err, sizeof(err));
	if (rc == -ETIMEDOUT) {
		return rc; /* no answer in time: the NID's failure, as a ping that timed out */
	}
	if (rc != 0) {
		lnetctl_print_error("manage", q->group, rc, err);
		*stop = true;
		return rc;
	}
	*v = yaml_document_get_node(doc, yaml_document_get_root_node(doc)
						 ->data.mapping.pairs.start->value);
	status = lnetctl_scalar(lnetctl_map_get(doc, *v, "status"));
	rc = status != NULL ? atoi(status) : -EPROTO;
	*stop = status == NULL || (rc == -EINVAL && q->einval_stops);
	if (rc == -EINVAL && q->einval_stops) {
		descr = lnetctl_scalar(lnetctl_map_get(doc, *v, "descr"));
		lnetctl_print_nl_error("manage", q->group, rc, descr != NULL ? descr : "");
	}
	if (rc != 0) {
		yaml_document_delete(doc);
	}
	return rc;
}

/*
 * Every NID in turn, replies first, then the failures, as the kernel
 * orders them. As the kernel's, a failed NID makes the command return -1;
 * a refused request stops it with its errno.
 */
static int
lnetctl_ping(struct lnetctl_conn *c, const struct lnetctl_ping_req *q, char **nids, unsigned int n)
{
	struct lnetctl_ping_run r = { .doc_open = false };
	int *errs = calloc(n, sizeof(*errs));
	unsigned int failed = 0;
	unsigned int i;
	int rc = 0;

	if (errs == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < n && rc == 0; i++) {
		yaml_document_t doc;
		yaml_node_t *v;
		struct lnet_processid id;
		bool stop = false;

		if (libcfs_strid(&id, nids[i]) != 0) {
			/* discover: a failure of its own, after the peers (lnet_ping_cmd) */
			errs[i] = -EINVAL;
			failed++;
			continue;
		}
		if (lnet_nid_is_any(&id.nid)) {
			continue;
		}
		errs[i] = lnetctl_ping_nid(c, q, nids[i], &doc, &v, &stop);
		if (stop) {
			rc = errs[i];
		} else if (errs[i] != 0) {
			failed++;
		} else {
			if (!r.seq_open) {
				lnetctl_ping_section(&r, q->group);
			}
			lnetctl_ping_out(&r.o, &doc, v);
			yaml_document_delete(&doc);
		}
	}
	if (rc == 0 && failed > 0) {
		lnetctl_ping_section(&r, "manage");
		for (i = 0; i < n; i++) {
			if (errs[i] != 0) {
				lnetctl_ping_failed(&r, q->group, nids[i], errs[i]);
			}
		}
		rc = -1;
	}
	lnetctl_ping_run_end(&r);
	free(errs);
	return rc;
}

/* jt_ping's help, as its -h prints it. */
static void
lnetctl_ping_help(void)
{
	printf("ping nid[,nid,...]\n"
	       "\t --source: source nid\n"
	       "\t --timeout: ping timeout\n"
	       "\t --help: display this help\n");
}

/*
 * The kernel's lnet_ping_show_start keeps a timeout from 1 ms up to
 * DEFAULT_PEER_TIMEOUT (180 s) exclusive; anything else (0, negative,
 * longer) waits those 180 s.
 */
#define LNETCTL_PING_DEFAULT_PEER_TIMEOUT_MS 180000L

static long
lnetctl_ping_timeout_ms(long ms)
{
	return ms > 0 && ms < LNETCTL_PING_DEFAULT_PEER_TIMEOUT_MS ?
		       ms :
		       LNETCTL_PING_DEFAULT_PEER_TIMEOUT_MS;
}

/*
 * ping [-s|--source NID] [-t|--timeout S] NID[,NID...] [NID...]: the
 * kernel's jt_ping options; NIDs may be ranges ("10.0.0.[1-3]@tcp"). As
 * its getopt loop, -h prints the help and an unknown option ends with 0;
 * a source that does not parse ends with -EINVAL and prints nothing
 * (jt_ping returns libcfs_strnid's answer).
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
	struct lnetctl_nidrange nids;
	const char *src = NULL;
	const char *why = "";
	struct lnet_nid nid;
	unsigned int i;
	long timeout_ms = 1000;
	int src_rc = 0;
	int opt;
	int rc;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "hs:t:", opts, NULL)) != -1) {
		if (opt == 's') {
			src = optarg;
			src_rc = libcfs_strnid(&nid, src) != 0 ? -EINVAL : 0;
		} else if (opt == 't') {
			timeout_ms = (long)LNP_MS_PER_S * atol(optarg);
		} else {
			if (opt == 'h') {
				lnetctl_ping_help();
			}
			return 0;
		}
	}
	if (src_rc != 0) {
		return src_rc;
	}
	if (optind >= argc) {
		lnetctl_print_nl_error("manage", "ping", -EINVAL,
				       "\"Unable to parse nidlist: no NID to ping\"");
		return -EINVAL;
	}
	rc = lnetctl_nidrange_args(argc - optind, argv + optind, &nids, &why);
	if (rc != 0) {
		/* yaml_lnet_ping(): the parser's errno in the block, then -EINVAL */
		lnetctl_print_nl_error("manage", "ping", rc, why);
		return -EINVAL;
	}
	for (i = 0; i < nids.n; i++) {
		struct lnet_processid id;

		if (libcfs_strid(&id, nids.nid[i]) != 0) {
			/* lnet_ping_show_start() reads every NID before it pings one */
			lnetctl_nidrange_free(&nids);
			lnetctl_print_nl_error("manage", "ping", -EINVAL, "cannot parse NID");
			return -EINVAL;
		}
	}
	rc = lnetctl_need_conn(ctx);
	if (rc == 0) {
		char extra[128];
		struct lnetctl_ping_req q = { .group = "ping",
					      .extra = extra,
					      .einval_stops = true };

		snprintf(extra, sizeof(extra), "timeout=%ld%s%s",
			 lnetctl_ping_timeout_ms(timeout_ms), src != NULL ? ",source=" : "",
			 src != NULL ? src : "");
		/* Given up on the client side too, should the daemon not answer. */
		ctx->conn.reply_ms = lnetctl_ping_timeout_ms(timeout_ms) + LNETCTL_REPLY_GRACE_MS;
		rc = lnetctl_ping(&ctx->conn, &q, nids.nid, nids.n);
	}
	lnetctl_nidrange_free(&nids);
	return rc;
}

static void
lnetctl_discover_help(void)
{
	printf("discover nid[,nid,...]\n"
	       "\t --force: force discovery\n"
	       "\t --help: display this help\n");
}

/*
 * discover [-f|--force] NID[,NID...] [NID...]: the kernel's jt_discover.
 * -h prints its help and an unknown option ends with 0; no NID prints
 * "Missing nid argument" and returns -1; NID lists and ranges as ping's.
 * Each NID is discovered in turn (the daemon waits for the end of its
 * discovery) and printed as the kernel's netlink reply: the peers under
 * "discover:", then each NID that failed under "manage:" as "failed to
 * discover NID: <strerror>", and -1 when one failed. Every failure the
 * daemon reports is the NID's, as lnet_discover()'s are in the kernel.
 */
int
lnetctl_discover_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "force", .has_arg = no_argument, .val = 'f' },
		{ .name = "help", .has_arg = no_argument, .val = 'h' },
		{ .name = NULL },
	};
	struct lnetctl_ping_req q = { .group = "discover", .extra = NULL, .einval_stops = false };
	struct lnetctl_nidrange nids;
	const char *why = "";
	int opt;
	int rc;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		if (opt == 'f') {
			q.extra = "force=1";
		} else {
			if (opt == 'h') {
				lnetctl_discover_help();
			}
			return 0;
		}
	}
	if (optind == argc) {
		printf("Missing nid argument\n");
		return -1;
	}
	rc = lnetctl_nidrange_args(argc - optind, argv + optind, &nids, &why);
	if (rc != 0) {
		lnetctl_print_nl_error("manage", "discover", rc, why);
		return -EINVAL;
	}
	rc = lnetctl_need_conn(ctx);
	if (rc == 0) {
		rc = lnetctl_ping(&ctx->conn, &q, nids.nid, nids.n);
	}
	lnetctl_nidrange_free(&nids);
	return rc;
}
