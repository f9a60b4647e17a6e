/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer add/del/show. NID lists accept lnetctl's ranges ("10.0.0.[1-4]@tcp,
 * 10.0.1.1@tcp"), expanded here and sent in requests small enough for the
 * telemetry socket; show pages through the daemon's listing with a cursor
 * and streams the YAML, so 100,000 peers list in bounded memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "lnetctl.h"

#define LNETCTL_MAX_NIDS 4096
#define LNETCTL_NIDS_PER_REQ 24

/* "a,b[1-2],c" -> space-separated, commas inside brackets kept. */
static void
lnetctl_commas_to_spaces(char *s)
{
	int depth = 0;

	for (; *s != '\0'; s++) {
		depth += *s == '[' ? 1 : *s == ']' ? -1 : 0;
		if (*s == ',' && depth == 0) {
			*s = ' ';
		}
	}
}

static int
lnetctl_expand_nids(const char *list, struct lnet_nid **nids, char *err, size_t errlen)
{
	struct cfs_nidlist *nl = NULL;
	char *copy = strdup(list);
	int n;

	if (copy == NULL) {
		return -ENOMEM;
	}
	lnetctl_commas_to_spaces(copy);
	n = cfs_parse_nidlist(copy, strlen(copy), &nl);
	free(copy);
	if (n != 0) {
		snprintf(err, errlen, "\"%s\" is not a NID list", list);
		return -EINVAL;
	}
	n = cfs_nidlist_expand(nl, LNETCTL_MAX_NIDS, nids);
	cfs_free_nidlist(nl);
	if (n < 0) {
		snprintf(err, errlen, "\"%s\": %s", list,
			 n == -E2BIG ? "too many NIDs (or a '*')" : strerror(-n));
	}
	return n;
}

/* Send one add/del; print the daemon's refusal as the kernel's error block. */
static int
lnetctl_peer_request(struct lnetctl_conn *c, const char *verb, const char *params)
{
	char cmd[32];
	yaml_document_t doc;
	yaml_node_t *v;
	int rc;

	snprintf(cmd, sizeof(cmd), "/lnet/peer_%s", verb);
	rc = lnetctl_request_status(c, cmd, params, &doc, &v, verb, "peer");
	if (rc == 0) {
		yaml_document_delete(&doc);
	}
	return rc;
}

/* add: the primary first (with --non_mr), then the NIDs in chunks. */
int
lnetctl_peer_change(struct lnetctl_conn *c, bool add, const char *prim, const char *nidlist,
		    bool non_mr)
{
	struct lnet_nid *nids = NULL;
	char nidstr[LNET_NIDSTR_SIZE];
	char params[1024];
	char err[256];
	int n = 0;
	int i = 0;
	int rc = 0;

	if (nidlist != NULL) {
		n = lnetctl_expand_nids(nidlist, &nids, err, sizeof(err));
		if (n < 0) {
			lnetctl_print_error(add ? "add" : "del", "peer", n, err);
			return n;
		}
	}
	do {
		size_t off = (size_t)snprintf(params, sizeof(params), "prim_nid=%s%s", prim,
					      non_mr ? ",non_mr=1" : "");
		int k;

		for (k = 0; i < n && k < LNETCTL_NIDS_PER_REQ; k++, i++) {
			off += (size_t)snprintf(params + off, sizeof(params) - off, "%s%s",
						k == 0 ? ",nid=" : ";",
						libcfs_nidstr_r(&nids[i], nidstr, sizeof(nidstr)));
		}
		rc = lnetctl_peer_request(c, add ? "add" : "del", params);
	} while (rc == 0 && i < n);
	free(nids);
	return rc;
}

struct lnetctl_peer_stream {
	struct lnetctl_out o;
	char cur[LNET_NIDSTR_SIZE]; /* primary NID of the open peer, "" if none */
	bool any;
	int detail;
};

static void
lnetctl_peer_open(struct lnetctl_peer_stream *s, yaml_document_t *doc, yaml_node_t *e)
{
	if (!s->any) {
		lnetctl_out_begin(&s->o, 6);
		lnetctl_out_map_begin(&s->o);
		lnetctl_out_scalar(&s->o, "peer");
		lnetctl_out_seq_begin(&s->o);
		s->any = true;
	} else {
		lnetctl_out_seq_end(&s->o);
		lnetctl_out_map_end(&s->o);
	}
	lnetctl_out_map_begin(&s->o);
	lnetctl_out_kv(&s->o, "primary nid", lnetctl_scalar(lnetctl_map_get(doc, e, "primary_nid")));
	lnetctl_out_kv(&s->o, "Multi-Rail", lnetctl_scalar(lnetctl_map_get(doc, e, "multi_rail")));
	lnetctl_out_scalar(&s->o, "peer ni");
	lnetctl_out_seq_begin(&s->o);
}

static void
lnetctl_peer_ni_out(struct lnetctl_peer_stream *s, yaml_document_t *doc, yaml_node_t *e)
{
	static const char *const keys[] = {
		"max_ni_tx_credits", "available_tx_credits", "min_tx_credits", "tx_q_num_of_buf",
		"available_rtr_credits", "min_rtr_credits", "refcount",
	};
	static const char *const stats[] = { "send_count", "recv_count", "drop_count" };
	unsigned int i;

	lnetctl_out_map_begin(&s->o);
	lnetctl_out_kv(&s->o, "nid", lnetctl_scalar(lnetctl_map_get(doc, e, "nid")));
	if (s->detail < 0) {
		lnetctl_out_map_end(&s->o); /* export --backup: the NID only */
		return;
	}
	lnetctl_out_kv(&s->o, "state", lnetctl_scalar(lnetctl_map_get(doc, e, "state")));
	if (s->detail > 0) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			lnetctl_out_kv(&s->o, keys[i], lnetctl_scalar(lnetctl_map_get(doc, e, keys[i])));
		}
		lnetctl_out_scalar(&s->o, "statistics");
		lnetctl_out_map_begin(&s->o);
		for (i = 0; i < 3; i++) {
			lnetctl_out_kv(&s->o, stats[i], lnetctl_scalar(lnetctl_map_get(doc, e, stats[i])));
		}
		lnetctl_out_map_end(&s->o);
	}
	lnetctl_out_map_end(&s->o);
}

/* One page: entries n0, n1, ... then "next". Returns the next cursor or <0. */
static long long
lnetctl_peer_page(struct lnetctl_conn *c, struct lnetctl_peer_stream *s, const char *params)
{
	char err[256];
	yaml_document_t doc;
	yaml_node_t *v;
	yaml_node_pair_t *p;
	const char *next;
	long long rc;

	rc = lnetctl_request(c, "/lnet/peer_show", params, &doc, err, sizeof(err));
	if (rc != 0) {
		lnetctl_print_error("show", "peer", (int)rc, err);
		return rc;
	}
	v = yaml_document_get_node(&doc, yaml_document_get_root_node(&doc)->data.mapping.pairs.start->value);
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *e = yaml_document_get_node(&doc, p->value);
		const char *prim = lnetctl_scalar(lnetctl_map_get(&doc, e, "primary_nid"));

		if (e->type != YAML_MAPPING_NODE || prim == NULL) {
			continue;
		}
		if (strcmp(prim, s->cur) != 0) {
			lnetctl_peer_open(s, &doc, e);
			snprintf(s->cur, sizeof(s->cur), "%s", prim);
		}
		lnetctl_peer_ni_out(s, &doc, e);
	}
	next = lnetctl_scalar(lnetctl_map_get(&doc, v, "next"));
	rc = next != NULL ? strtoll(next, NULL, 10) : 0;
	yaml_document_delete(&doc);
	return rc;
}

/* detail -1: the export --backup form (primary, Multi-Rail, NIDs only). */
int
lnetctl_peer_show(struct lnetctl_conn *c, const char *nid, int detail)
{
	struct lnetctl_peer_stream s = { .detail = detail };
	char params[256];
	long long cursor = 0;

	do {
		snprintf(params, sizeof(params), "start=%lld,detail=%d%s%s", cursor,
			 detail < 0 ? 0 : detail,
			 nid != NULL ? ",nid=" : "", nid != NULL ? nid : "");
		cursor = lnetctl_peer_page(c, &s, params);
	} while (cursor > 0);
	if (s.any) {
		lnetctl_out_seq_end(&s.o);
		lnetctl_out_map_end(&s.o);
		lnetctl_out_seq_end(&s.o);
		lnetctl_out_map_end(&s.o);
		lnetctl_out_end(&s.o);
	} else if (cursor == 0 && nid != NULL) {
		lnetctl_print_error("show", "peer", -ENOENT, "no such peer");
		return -ENOENT;
	}
	return cursor < 0 ? (int)cursor : (s.o.failed ? -EIO : 0);
}

/* peer add|del --prim_nid NID [--nid LIST] [--non_mr]; a first --nid is the primary */
static int
lnetctl_peer_change_cmd(struct lnetctl_ctx *ctx, int argc, char **argv, bool add)
{
	const char *usage = add ? "usage: peer add --prim_nid NID [--nid NIDLIST] [--non_mr]" :
				  "usage: peer del --prim_nid NID [--nid NIDLIST]";
	const char *prim = NULL;
	const char *nids = NULL;
	bool non_mr = false;
	int i;
	int rc;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--prim_nid") == 0 && i + 1 < argc && prim == NULL) {
			prim = argv[++i];
		} else if (strcmp(argv[i], "--nid") == 0 && i + 1 < argc && nids == NULL) {
			nids = argv[++i];
		} else if (add && strcmp(argv[i], "--non_mr") == 0) {
			non_mr = true;
		} else {
			return lnetctl_usage_error(add ? "add" : "del", "peer", usage);
		}
	}
	if (prim == NULL) {
		return lnetctl_usage_error(add ? "add" : "del", "peer", usage);
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_peer_change(&ctx->conn, add, prim, nids, non_mr);
}

int
lnetctl_peer_add_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	/* argv[0] is the (sub)command word */
	return lnetctl_peer_change_cmd(ctx, argc - 1, argv + 1, true);
}

int
lnetctl_peer_del_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	/* argv[0] is the (sub)command word */
	return lnetctl_peer_change_cmd(ctx, argc - 1, argv + 1, false);
}

/* peer show [--nid NID] [-v [N]] */
int
lnetctl_peer_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	const char *nid = NULL;
	int detail = 0;
	int i;
	int rc;

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--nid") == 0 && i + 1 < argc) {
			nid = argv[++i];
		} else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
			detail = 1;
			if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') {
				detail = atoi(argv[++i]);
			}
		} else {
			return lnetctl_usage_error("show", "peer",
						   "usage: peer show [--nid NID] [-v [N]]");
		}
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_peer_show(&ctx->conn, nid, detail);
}
