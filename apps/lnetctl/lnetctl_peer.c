/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer add/del/show/list/set, with the kernel's options (getopt_long, its
 * option letters) and its error blocks. NID lists accept lnetctl's ranges ("10.0.0.[1-4]@tcp,
 * 10.0.1.1@tcp"), expanded here and sent in requests small enough for the
 * telemetry socket; show pages through the daemon's listing with a cursor
 * and streams the YAML, so 100,000 peers list in bounded memory.
 */
#include <errno.h>
#include <getopt.h>
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

/*
 * Send one add/del. The daemon's refusal is printed as the kernel's
 * netlink path prints it: the block names the operation by the request's
 * flags (@p verb), and the command then returns -EINVAL whatever the
 * errno, as the kernel's lnetctl does.
 */
static int
lnetctl_peer_request(struct lnetctl_conn *c, bool add, const char *verb, const char *params)
{
	char cmd[32];
	yaml_document_t doc;
	yaml_node_t *v;
	int rc;

	snprintf(cmd, sizeof(cmd), "/lnet/peer_%s", add ? "add" : "del");
	rc = lnetctl_request_status(c, cmd, params, &doc, &v, verb, "peer");
	if (rc == 0) {
		yaml_document_delete(&doc);
	}
	return rc;
}

/* What a peer add/del asks for beyond its NIDs. */
struct lnetctl_peer_req {
	bool add;
	bool non_mr;
	bool lock_or_force; /* add: --lock_prim; del: --force */
	const char *verb;   /* the error block's operation */
};

/* add: the primary first (with --non_mr), then the NIDs in chunks. */
static int
lnetctl_peer_send(struct lnetctl_conn *c, const struct lnetctl_peer_req *r, const char *prim,
		  const char *nidlist)
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
			lnetctl_print_error(r->verb, "peer", n, err);
			return n;
		}
	}
	do {
		size_t off = (size_t)snprintf(params, sizeof(params), "prim_nid=%s%s%s", prim,
					      r->non_mr ? ",non_mr=1" : "",
					      !r->lock_or_force ? "" :
					      r->add            ? ",lock_prim=1" :
								  ",force=1");
		int k;

		for (k = 0; i < n && k < LNETCTL_NIDS_PER_REQ; k++, i++) {
			off += (size_t)snprintf(params + off, sizeof(params) - off, "%s%s",
						k == 0 ? ",nid=" : ";",
						libcfs_nidstr_r(&nids[i], nidstr, sizeof(nidstr)));
		}
		rc = lnetctl_peer_request(c, r->add, r->verb, params);
	} while (rc == 0 && i < n);
	free(nids);
	return rc;
}

int
lnetctl_peer_change(struct lnetctl_conn *c, bool add, const char *prim, const char *nidlist,
		    bool non_mr)
{
	struct lnetctl_peer_req r = { add, non_mr, false, add ? "add" : "del" };

	return lnetctl_peer_send(c, &r, prim, nidlist);
}

struct lnetctl_peer_stream {
	struct lnetctl_out o;
	char cur[LNET_NIDSTR_SIZE]; /* primary NID of the open peer, "" if none */
	bool any;
	bool list; /* peer list: the primary NIDs only */
	int detail;
};

/* The kernel's sections of a peer NI at -v 2, in its order. */
static void
lnetctl_peer_ni_stats_out(struct lnetctl_peer_stream *s, yaml_document_t *doc, yaml_node_t *e)
{
	static const char *const sections[3][2] = {
		{ "sent_stats", "sent" },
		{ "received_stats", "received" },
		{ "dropped_stats", "dropped" },
	};
	static const char *const types[5] = { "put", "get", "reply", "ack", "hello" };
	static const char *const health[7][2] = {
		{ "health value", "health_value" },
		{ "dropped", "health_dropped" },
		{ "timeout", "health_timeout" },
		{ "error", "health_error" },
		{ "network timeout", "health_network_timeout" },
		{ "ping_count", "ping_count" },
		{ "next_ping", "next_ping" },
	};
	char key[48];
	unsigned int i;
	unsigned int t;

	for (i = 0; i < 3; i++) {
		lnetctl_out_scalar(&s->o, sections[i][0]);
		lnetctl_out_map_begin(&s->o);
		for (t = 0; t < 5; t++) {
			snprintf(key, sizeof(key), "%s_%s", sections[i][1], types[t]);
			lnetctl_out_kv(&s->o, types[t],
				       lnetctl_scalar(lnetctl_map_get(doc, e, key)));
		}
		lnetctl_out_map_end(&s->o);
	}
	lnetctl_out_scalar(&s->o, "health stats");
	lnetctl_out_map_begin(&s->o);
	for (i = 0; i < 7; i++) {
		lnetctl_out_kv(&s->o, health[i][0],
			       lnetctl_scalar(lnetctl_map_get(doc, e, health[i][1])));
	}
	lnetctl_out_map_end(&s->o);
}

static void
lnetctl_peer_begin(struct lnetctl_peer_stream *s)
{
	lnetctl_out_begin(&s->o, 6);
	lnetctl_out_map_begin(&s->o);
	lnetctl_out_scalar(&s->o, s->list ? "peer list" : "peer");
	lnetctl_out_seq_begin(&s->o);
	s->any = true;
}

/* peer list: one "nid: <primary>" per peer. */
static void
lnetctl_peer_list_out(struct lnetctl_peer_stream *s, const char *prim)
{
	if (!s->any) {
		lnetctl_peer_begin(s);
	}
	lnetctl_out_map_begin(&s->o);
	lnetctl_out_kv(&s->o, "nid", prim);
	lnetctl_out_map_end(&s->o);
}

static void
lnetctl_peer_open(struct lnetctl_peer_stream *s, yaml_document_t *doc, yaml_node_t *e)
{
	if (!s->any) {
		lnetctl_peer_begin(s);
	} else {
		lnetctl_out_seq_end(&s->o);
		lnetctl_out_map_end(&s->o);
	}
	lnetctl_out_map_begin(&s->o);
	lnetctl_out_kv(&s->o, "primary nid",
		       lnetctl_scalar(lnetctl_map_get(doc, e, "primary_nid")));
	lnetctl_out_kv(&s->o, "Multi-Rail", lnetctl_scalar(lnetctl_map_get(doc, e, "multi_rail")));
	if (s->detail >= 3) {
		lnetctl_out_kv(&s->o, "peer state",
			       lnetctl_scalar(lnetctl_map_get(doc, e, "peer_state")));
	}
	lnetctl_out_scalar(&s->o, "peer ni");
	lnetctl_out_seq_begin(&s->o);
}

static void
lnetctl_peer_ni_out(struct lnetctl_peer_stream *s, yaml_document_t *doc, yaml_node_t *e)
{
	static const char *const keys[] = {
		"max_ni_tx_credits", "available_tx_credits",  "min_tx_credits",
		"tx_q_num_of_buf",   "available_rtr_credits", "min_rtr_credits",
		"refcount",
	};
	static const char *const stats[] = { "send_count", "recv_count", "drop_count" };
	unsigned int i;

	lnetctl_out_map_begin(&s->o);
	lnetctl_out_kv(&s->o, "nid", lnetctl_scalar(lnetctl_map_get(doc, e, "nid")));
	if (s->detail < 0) {
		lnetctl_out_map_end(&s->o); /* export --backup: the NID only */
		return;
	}
	if (s->detail >= 4) {
		lnetctl_out_udsp_info(&s->o, doc, e); /* the kernel's place: right after nid */
	}
	lnetctl_out_kv(&s->o, "state", lnetctl_scalar(lnetctl_map_get(doc, e, "state")));
	if (s->detail > 0) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			lnetctl_out_kv(&s->o, keys[i],
				       lnetctl_scalar(lnetctl_map_get(doc, e, keys[i])));
		}
		lnetctl_out_scalar(&s->o, "statistics");
		lnetctl_out_map_begin(&s->o);
		for (i = 0; i < 3; i++) {
			lnetctl_out_kv(&s->o, stats[i],
				       lnetctl_scalar(lnetctl_map_get(doc, e, stats[i])));
		}
		lnetctl_out_map_end(&s->o);
	}
	if (s->detail > 1) {
		lnetctl_peer_ni_stats_out(s, doc, e);
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
	v = yaml_document_get_node(&doc, yaml_document_get_root_node(&doc)
						 ->data.mapping.pairs.start->value);
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *e = yaml_document_get_node(&doc, p->value);
		const char *prim = lnetctl_scalar(lnetctl_map_get(&doc, e, "primary_nid"));

		if (e->type != YAML_MAPPING_NODE || prim == NULL) {
			continue;
		}
		if (strcmp(prim, s->cur) != 0) {
			snprintf(s->cur, sizeof(s->cur), "%s", prim);
			if (s->list) {
				lnetctl_peer_list_out(s, prim);
				continue;
			}
			lnetctl_peer_open(s, &doc, e);
		} else if (s->list) {
			continue;
		}
		lnetctl_peer_ni_out(s, &doc, e);
	}
	next = lnetctl_scalar(lnetctl_map_get(&doc, v, "next"));
	rc = next != NULL ? strtoll(next, NULL, 10) : 0;
	yaml_document_delete(&doc);
	return rc;
}

static void
lnetctl_peer_end(struct lnetctl_peer_stream *s)
{
	if (!s->list) {
		lnetctl_out_seq_end(&s->o); /* peer ni */
		lnetctl_out_map_end(&s->o);
	}
	lnetctl_out_seq_end(&s->o);
	lnetctl_out_map_end(&s->o);
	lnetctl_out_end(&s->o);
}

/*
 * Page through the daemon's peers. No peer at all prints nothing, as the
 * kernel's; a --nid it does not know is the kernel's "cannot find peer".
 */
static int
lnetctl_peer_stream_all(struct lnetctl_conn *c, struct lnetctl_peer_stream *s, const char *nid)
{
	char params[256];
	long long cursor = 0;

	do {
		snprintf(params, sizeof(params), "start=%lld,detail=%d%s%s", cursor,
			 s->detail < 0 ? 0 : s->detail, nid != NULL ? ",nid=" : "",
			 nid != NULL ? nid : "");
		cursor = lnetctl_peer_page(c, s, params);
	} while (cursor > 0);
	if (s->any) {
		lnetctl_peer_end(s);
	} else if (cursor == 0 && nid != NULL) {
		/* lnet_peer_ni_show_dump()'s refusal, as yaml_lnet_peer() prints it */
		lnetctl_print_nl_error("show", "peer", -ENOENT, "cannot find peer");
		return -EINVAL;
	}
	return cursor < 0 ? -EINVAL : (s->o.failed ? -EIO : 0);
}

/* detail -1: the export --backup form (primary, Multi-Rail, NIDs only). */
int
lnetctl_peer_show(struct lnetctl_conn *c, const char *nid, int detail)
{
	struct lnetctl_peer_stream s = { .detail = detail };

	return lnetctl_peer_stream_all(c, &s, nid);
}

/* The kernel's parse error of a peer command (cYAML_build_error: command, then operation). */
static int
lnetctl_peer_bad_option(const char *top, const char *op, char opt)
{
	char descr[64];

	snprintf(descr, sizeof(descr), "Unrecognized option '-%c'", opt);
	lnetctl_print_error(top, op, -EINVAL, descr);
	return -EINVAL;
}

/* 2.17's LNET_MAX_NIDS_PER_PEER; its count test lets one more through. */
#define LNETCTL_NL_MAX_NIDS_PER_PEER 128

/*
 * peer add/del's --nid list, read as 2.17's yaml_lnet_peer() reads it
 * before it asks: lustre_lnet_parse_nid_range() (a list it cannot parse
 * prints "can't parse nidrange" on stdout, then the parser's errno and
 * text in the block), nothing at all (-ENOENT), then more NIDs than a
 * peer may have (-E2BIG). The NIDs come back as text, unchecked.
 */
static int
lnetctl_peer_nidrange(const char *list, struct lnetctl_nidrange *nids, const char **msg)
{
	int rc = lnetctl_nidrange_args(1, (char **)&list, nids, msg);

	if (rc < 0) {
		printf("can't parse nidrange: \"%s\"\n", list);
		return rc;
	}
	if (nids->n == 0) {
		lnetctl_nidrange_free(nids);
		*msg = "Unable to parse nidlist: did not expand to any nids";
		return -ENOENT;
	}
	if (nids->n > LNETCTL_NL_MAX_NIDS_PER_PEER + 1) {
		lnetctl_nidrange_free(nids);
		*msg = "Unable to parse nidlist: specifies more NIDs than allowed";
		return -E2BIG;
	}
	return 0;
}

/* One add/del to the daemon; its status (0 or the node's errno). */
static int
lnetctl_peer_ask(struct lnetctl_conn *c, const struct lnetctl_peer_req *r, const char *prim,
		 const struct lnet_nid *nids, int n)
{
	char nidstr[LNET_NIDSTR_SIZE];
	char params[1024];
	char descr[256];
	size_t off;
	int k;

	off = (size_t)snprintf(params, sizeof(params), "prim_nid=%s%s%s", prim,
			       r->non_mr ? ",non_mr=1" : "",
			       !r->lock_or_force ? "" :
			       r->add            ? ",lock_prim=1" :
						   ",force=1");
	for (k = 0; k < n; k++) {
		off += (size_t)snprintf(params + off, sizeof(params) - off, "%s%s",
					k == 0 ? ",nid=" : ";",
					libcfs_nidstr_r(&nids[k], nidstr, sizeof(nidstr)));
	}
	return lnetctl_call(c, r->add ? "/lnet/peer_add" : "/lnet/peer_del", params, descr,
			    sizeof(descr));
}

/* Whether @p nid is the NID @p prim names. */
static bool
lnetctl_peer_is_prim(const struct lnet_nid *nid, const char *prim)
{
	struct lnet_nid p;

	return libcfs_strnid(&p, prim) == 0 && lnet_nid_same(&p, nid);
}

/*
 * The request 2.17's lnet_peer_ni_cmd() (lnet/lnet/api-ni.c) carries out,
 * with its texts: add makes the primary first ("failed to add primary
 * peer"), then adds each NID ("failed to add peer"), and a failure after
 * the primary deletes the peer again; del deletes the NIDs ("failed to
 * del peer") or, without any, the peer ("failed to del primary peer"); a
 * list that names the primary deletes the NIDs before it, then the peer.
 * A NID of the list the kernel's libcfs_strnid() cannot read stops it
 * there ("unsupported secondary NID", lnet_parse_peer_nis()), the NIDs
 * before it done. A refused add then deletes the peer whose primary it
 * named, new or not, as the kernel's report_err does (nothing when that
 * NID is no primary).
 */
static int
lnetctl_peer_nl_change(struct lnetctl_conn *c, const struct lnetctl_peer_req *r, const char *prim,
		       const struct lnetctl_nidrange *list)
{
	const char *why = r->add ? "failed to add primary peer" : "failed to del primary peer";
	struct lnetctl_peer_req undo = { false, false, r->lock_or_force, r->verb };
	struct lnet_nid *nids = calloc(list->n > 0 ? list->n : 1, sizeof(*nids));
	int upto = 0;
	int n = 0;
	int rc = 0;
	int i = 0;

	if (nids == NULL) {
		return -ENOMEM;
	}
	while (n < (int)list->n && libcfs_strnid(&nids[n], list->nid[n]) == 0) {
		n++;
	}
	/*
	 * The primary in the list (lnet_parse_peer_nis clears its "some NIDs"
	 * flag): add has nothing to do for it; del deletes no NID from there
	 * on, and then the whole peer, as for a del without NIDs.
	 */
	while (!r->add && upto < n && !lnetctl_peer_is_prim(&nids[upto], prim)) {
		upto++;
	}
	if (r->add) {
		upto = n;
	}
	if (r->add || list->n == 0) {
		rc = lnetctl_peer_ask(c, r, prim, NULL, 0);
	}
	while (rc == 0 && i < upto) {
		int k = upto - i < LNETCTL_NIDS_PER_REQ ? upto - i : LNETCTL_NIDS_PER_REQ;

		why = r->add ? "failed to add peer" : "failed to del peer";
		rc = lnetctl_peer_ask(c, r, prim, nids + i, k);
		i += k;
	}
	free(nids);
	if (rc == 0 && n < (int)list->n) {
		why = "unsupported secondary NID";
		rc = -EINVAL;
	} else if (rc == 0 && upto < n) {
		why = "failed to del primary peer";
		rc = lnetctl_peer_ask(c, r, prim, NULL, 0);
	}
	if (rc == 0) {
		return 0;
	}
	lnetctl_print_nl_error(r->verb, "peer", rc, why);
	if (r->add) {
		(void)lnetctl_peer_ask(c, &undo, prim, NULL, 0);
	}
	return -EINVAL;
}

/*
 * peer add|del, 2.17's jt_peer_nid_common: -k/--prim_nid, -n/--nid,
 * -m/--non_mr (add), -l/--lock_prim (add), -f/--force (del). As the
 * kernel's: -m and -f take an argument in their short form, --force on add
 * and --lock_prim on del ask the same of the daemon as their counterpart
 * (one request flag, NLM_F_EXCL), and an add or del with either flag names
 * its error block "show" (yaml_lnet_print_error picks the word from the
 * request's flags). Without --prim_nid its request names no peer, which
 * the kernel takes as nothing to do.
 */
static int
lnetctl_peer_change_cmd(struct lnetctl_ctx *ctx, int argc, char **argv, bool add)
{
	static const struct option long_opts[] = {
		{ .name = "prim_nid", .has_arg = required_argument, .val = 'k' },
		{ .name = "non_mr", .has_arg = no_argument, .val = 'm' },
		{ .name = "nid", .has_arg = required_argument, .val = 'n' },
		{ .name = "force", .has_arg = no_argument, .val = 'f' },
		{ .name = "lock_prim", .has_arg = no_argument, .val = 'l' },
		{ .name = NULL },
	};
	struct lnetctl_peer_req r = { .add = add };
	struct lnetctl_nidrange nids = { NULL, 0, 0 };
	struct lnet_nid nid;
	const char *prim = NULL;
	const char *list = NULL;
	const char *msg;
	int opt;
	int rc;

	if (argc < 2) {
		/* check_cmd(peer_cmds, "peer", "add", 2, ...) */
		lnetctl_print_cmd_help("peer", argv[0]);
		return -EINVAL;
	}
	lnetctl_check_cmd_opterr(argc);
	while ((opt = getopt_long(argc, argv, "k:m:n:f:l", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			prim = optarg;
			break;
		case 'n':
			list = optarg;
			break;
		case 'm':
			if (!add) {
				return lnetctl_peer_bad_option("peer", "del", (char)opt);
			}
			/*
			 * 2.17 sends "Multi-Rail: False", which its
			 * lnet_peer_ni_cmd() reads into a flag it resets
			 * for the next attribute: the peer is made
			 * Multi-Rail all the same, so nothing is asked.
			 */
			break;
		case 'f':
		case 'l':
			r.lock_or_force = true;
			break;
		default:
			lnetctl_print_cmd_help("peer", argv[0]);
			return 0;
		}
	}
	r.verb = r.lock_or_force ? "show" : add ? "add" : "del";
	if (prim == NULL) {
		return 0;
	}
	if (list != NULL) {
		rc = lnetctl_peer_nidrange(list, &nids, &msg);
		if (rc < 0) {
			lnetctl_print_nl_error(r.verb, "peer", rc, msg);
			return -EINVAL;
		}
	}
	if (libcfs_strnid(&nid, prim) != 0) {
		/* lnet_peer_ni_cmd's libcfs_strnid() of the primary */
		lnetctl_nidrange_free(&nids);
		lnetctl_print_nl_error(r.verb, "peer", -EINVAL, "unsupported primary NID");
		return -EINVAL;
	}
	rc = lnetctl_need_conn(ctx);
	if (rc == 0) {
		rc = lnetctl_peer_nl_change(&ctx->conn, &r, prim, &nids);
	}
	lnetctl_nidrange_free(&nids);
	return rc;
}

int
lnetctl_peer_add_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	return lnetctl_peer_change_cmd(ctx, argc, argv, true);
}

int
lnetctl_peer_del_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	return lnetctl_peer_change_cmd(ctx, argc, argv, false);
}

/*
 * peer show [-n|--nid NID] [-v|--verbose [N]]. As the kernel's: the level
 * is the next word after -v (so "-v 2", not "-v2" or "--verbose=2", which
 * are level 1); a --nid that is no NID or no peer's is refused by the
 * kernel's dump ("invalid NID", "cannot find peer") in the netlink block.
 */
int
lnetctl_peer_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ .name = "help", .has_arg = no_argument, .val = 'h' },
		{ .name = "nid", .has_arg = required_argument, .val = 'n' },
		{ .name = "verbose", .has_arg = optional_argument, .val = 'v' },
		{ .name = NULL },
	};
	struct lnetctl_peer_stream s = { .detail = 0 };
	struct lnet_nid id;
	const char *nid = NULL;
	char *end;
	int opt;
	int rc;

	lnetctl_check_cmd_opterr(argc);
	while ((opt = getopt_long(argc, argv, "hn:v::", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			nid = optarg;
			break;
		case 'v':
			s.detail = 1;
			if (optarg == NULL && optind < argc && argv[optind][0] != '-') {
				long v = strtol(argv[optind++], &end, 0);

				s.detail = *end == '\0' ? (int)v : 1;
			}
			break;
		default:
			lnetctl_print_cmd_help("peer", "show");
			return 0;
		}
	}
	if (nid != NULL && libcfs_strnid(&id, nid) != 0) {
		/* lnet_peer_ni_show_start()'s libcfs_strid() of --nid */
		lnetctl_print_nl_error("show", "peer", -EINVAL, "invalid NID");
		return -EINVAL;
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_peer_stream_all(&ctx->conn, &s, nid);
}

/* peer list: the primary NID of every peer. Other words are ignored, as the kernel's. */
int
lnetctl_peer_list_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	struct lnetctl_peer_stream s = { .detail = 0, .list = true };
	int rc;

	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		printf("usage: peer list\n");
		return 0;
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_peer_stream_all(&ctx->conn, &s, NULL);
}

/*
 * peer set [--all|-a] [--nid|-n NID] --health|-t V (set_value_helper's
 * options): the health value of one peer NI or of all of them, which then
 * join recovery, as the kernel's. --state sets lp_state bits the kernel
 * keeps for tests; this node has none to set, and says so.
 *
 * What 2.17's yaml_lnet_peer(NLM_F_REPLACE) request makes the kernel's
 * lnet_peer_ni_cmd/lnet_parse_peer_nis do: --all wins over --nid; a
 * --health parse_long() refuses is no health (-1); with no health and
 * neither --all nor --nid the request deletes the peer LNET_ANY_NID,
 * refused -EINVAL ("failed to del primary peer") under "set:", then
 * set_value_helper's empty block; with --all it does nothing; a negative
 * health, or a health with neither, sets nothing. With --nid and no
 * health the kernel deletes that peer: lnetd-pmd refuses instead.
 */
int
lnetctl_peer_set_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	const char *nid = NULL;
	char params[160];
	char *end = NULL;
	long health = -1;
	bool state = false;
	bool all = false;
	char descr[256];
	int opt;
	int rc;

	lnetctl_check_cmd_opterr(argc);
	while ((opt = getopt_long(argc, argv, LNETCTL_SET_VALUE_SHORTOPTS, lnetctl_set_value_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'a':
			all = true;
			break;
		case 's':
			state = true;
			break;
		case 't':
			health = strtol(optarg, &end, 0);
			health = *end != '\0' ? -1 : health;
			break;
		case 'n':
			nid = optarg;
			break;
		case '?':
			/* the kernel names this block "net" for peers too */
			lnetctl_print_error("net", "set", -EINVAL,
					    "Invalid option or missing argument");
			return -EINVAL;
		default:
			break;
		}
	}
	if (state) {
		lnetctl_print_error(
			"set", "peer", -EOPNOTSUPP,
			"peer state cannot be set: this node keeps no settable peer state");
		return -EOPNOTSUPP;
	}
	nid = all ? NULL : nid;
	if (health == -1 && !all && nid == NULL) {
		lnetctl_print_nl_error("set", "peer", -EINVAL, "failed to del primary peer");
		lnetctl_print_error_raw("net", "set", -EINVAL, "");
		return -EINVAL;
	}
	if (health == -1 && nid != NULL) {
		lnetctl_print_error("set", "peer", -EINVAL, "nothing to set: --health or --state");
		return -EINVAL;
	}
	if (health < 0 || (!all && nid == NULL)) {
		return 0;
	}
	rc = lnetctl_need_conn(ctx);
	if (rc != 0) {
		return rc;
	}
	snprintf(params, sizeof(params), "health=%ld%s%s", health, nid != NULL ? ",nid=" : "",
		 nid != NULL ? nid : "");
	rc = lnetctl_call(&ctx->conn, "/lnet/peer_set", params, descr, sizeof(descr));
	if (rc == 0 || rc == -ENOENT) {
		/* lnet_peer_ni_set_healthv() passes over a NID no peer has */
		return 0;
	}
	/*
	 * 2.17's yaml_lnet_peer(NLM_F_REPLACE) prints the refusal; then
	 * set_value_helper() adds its own block, with no text, and -EINVAL.
	 */
	lnetctl_print_nl_error("set", "peer", rc, descr);
	lnetctl_print_error_raw("net", "set", -EINVAL, "");
	return -EINVAL;
}
