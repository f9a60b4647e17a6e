/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lst: the lnet_selftest console's command line, as Lustre 2.17's
 * lnet/utils/lst.c: its commands, options, output lines and exit statuses
 * (0, or the kernel's -1, -2 for an RPC error, -3 for a node's error, as
 * exit statuses 255, 254, 253). The console itself lives in lnetd-pmd
 * (started with --selftest), reached over its telemetry socket
 * (/lnet/lst), as the kernel's lst reaches its console in the
 * lnet_selftest module. LST_SESSION is the session's key, LST_FEATURES
 * the features asked, LNETCTL_NAME the daemon (default "lnetd").
 */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "lnetctl.h"

#define LST_NAME_SIZE 32
#define LST_FEATS_MASK 0x1u
#define LST_DEFAULT_BATCH "batch"
#define LST_MAX_CONCUR 1024
#define LST_MTU (1 << 20)
#define LST_NODES_TITLE "\tACTIVE\tBUSY\tDOWN\tUNKNOWN\tTOTAL\n"
#define LST_PARAMS_MAX 1024
#define LST_IDS_PER_CALL 32 /* NIDs per request: its parameters are 1 KiB */

/* Node states (lnetst.h), as the console's masks. */
enum { LST_NODE_ACTIVE = 1, LST_NODE_BUSY = 2, LST_NODE_DOWN = 4, LST_NODE_UNKNOWN = 8 };

static int session_key;
static unsigned int session_features = LST_FEATS_MASK;
static struct lnetctl_conn conn = { .fd = -1 };
static bool connected;

/* The transaction's counts of the last request (the kernel's trans_stat). */
static struct {
	long rpc_total, rpc_failure, rpc_errno, fwk_errno;
	long fwk[3];
} trans_stat;

/* One reply, kept until the next request. */
static yaml_document_t reply_doc;
static yaml_node_t *reply;
static bool have_reply;

/*
 * A page of the reply's RPC entries (op=ents) or group nodes (op=nodes) past
 * those it carried, kept until the next request; entries [page_first,
 * page_first + page_count) of page_what.
 */
static yaml_document_t page_doc;
static yaml_node_t *page;
static bool have_page;
static long page_first, page_count;
static const char *page_what;

/* The document @p n is a node of: the page's or the reply's. */
static yaml_document_t *
reply_doc_of(const yaml_node_t *n)
{
	if (have_page && n >= page_doc.nodes.start && n < page_doc.nodes.top) {
		return &page_doc;
	}
	return &reply_doc;
}

static const char *
reply_str(yaml_node_t *map, const char *key)
{
	const char *s = lnetctl_scalar(lnetctl_map_get(reply_doc_of(map), map, key));

	return s != NULL ? s : "";
}

static long
reply_long(yaml_node_t *map, const char *key)
{
	return strtol(reply_str(map, key), NULL, 0);
}

/* The reply's "e3", "d0", "n1": an RPC's entry, a node, a name. */
static yaml_node_t *
reply_sub(char kind, unsigned int i)
{
	char key[16];

	snprintf(key, sizeof(key), "%c%u", kind, i);
	return lnetctl_map_get(&reply_doc, reply, key);
}

static void
reply_page_drop(void)
{
	if (have_page) {
		yaml_document_delete(&page_doc);
		have_page = false;
	}
}

/* The daemon's page of the last reply's @p what ("ents" or "nodes") from @p first: 0, or -1
 * (said on stderr). */
static int
reply_page_fetch(const char *what, unsigned int first)
{
	char params[64];
	char key[16];
	char err[256];
	int rc;

	reply_page_drop();
	snprintf(params, sizeof(params), "op=%s,result=%ld,first=%u", what,
		 reply_long(reply, "result"), first);
	rc = lnetctl_request(&conn, "/lnet/lst", params, &page_doc, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	have_page = true;
	page = yaml_document_get_node(&page_doc, yaml_document_get_root_node(&page_doc)
							 ->data.mapping.pairs.start->value);
	if (reply_long(page, "status") != 0) {
		fprintf(stderr, "%s\n", reply_str(page, "descr"));
		reply_page_drop();
		return -1;
	}
	page_what = what;
	snprintf(key, sizeof(key), "%s_first", what);
	page_first = reply_long(page, key);
	snprintf(key, sizeof(key), "%s_count", what);
	page_count = reply_long(page, key);
	return 0;
}

/*
 * Item @p i of the reply's @p what ("ents": RPC entries "eN", @p kind 'e';
 * "nodes": group nodes "dN", 'd'), from the reply or, past what it carried,
 * from a page the daemon kept (lnetd_lst.c); NULL if it cannot be had (an
 * item of NULL reads as empty strings and zeros).
 */
static yaml_node_t *
reply_item(const char *what, char kind, unsigned int i)
{
	char key[16], total[16];
	long first, count;

	snprintf(key, sizeof(key), "%s_first", what);
	first = reply_long(reply, key);
	snprintf(key, sizeof(key), "%s_count", what);
	snprintf(total, sizeof(total), "n%s", what);
	/* A reply without the paging keys carries all. */
	count = reply_str(reply, key)[0] != '\0' ? reply_long(reply, key) :
						   reply_long(reply, total);
	if ((long)i >= first && (long)i < first + count) {
		return reply_sub(kind, i);
	}
	if ((!have_page || strcmp(page_what, what) != 0 || (long)i < page_first ||
	     (long)i >= page_first + page_count) &&
	    reply_page_fetch(what, i) != 0) {
		return NULL;
	}
	snprintf(key, sizeof(key), "%c%u", kind, i);
	return lnetctl_map_get(&page_doc, page, key);
}

static yaml_node_t *
reply_ent(unsigned int i)
{
	return reply_item("ents", 'e', i);
}

/*
 * Send op with its parameters; as the kernel's lst_ioctl: 0, -1 (the
 * console refused it: errno says why), -2 (an RPC failed), -3 (a node
 * refused).
 */
static int __attribute__((format(printf, 1, 2))) lst_call(const char *fmt, ...)
{
	char params[LST_PARAMS_MAX];
	char err[256];
	va_list ap;
	int n, rc;

	if (have_reply) {
		yaml_document_delete(&reply_doc);
		have_reply = false;
	}
	reply_page_drop();
	memset(&trans_stat, 0, sizeof(trans_stat));
	n = snprintf(params, sizeof(params), "key=%d,feats=%u,", session_key, session_features);
	va_start(ap, fmt);
	vsnprintf(params + n, sizeof(params) - (size_t)n, fmt, ap);
	va_end(ap);
	if (!connected) {
		const char *name = getenv("LNETCTL_NAME");

		rc = lnetctl_connect(name != NULL ? name : LNETCTL_DEFAULT_NAME, &conn, err,
				     sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "%s\n", err);
			errno = -rc;
			return -1;
		}
		connected = true;
		conn.reply_ms = 600000L; /* a transaction waits up to its timeout */
	}
	rc = lnetctl_request(&conn, "/lnet/lst", params, &reply_doc, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "%s\n", err);
		errno = -rc;
		return -1;
	}
	have_reply = true;
	/* {"/lnet/lst": {...}}: the value */
	reply = yaml_document_get_node(&reply_doc, yaml_document_get_root_node(&reply_doc)
							   ->data.mapping.pairs.start->value);
	rc = (int)reply_long(reply, "status");
	trans_stat.rpc_total = reply_long(reply, "rpc_total");
	trans_stat.rpc_failure = reply_long(reply, "rpc_failure");
	trans_stat.rpc_errno = reply_long(reply, "rpc_errno");
	trans_stat.fwk_errno = reply_long(reply, "fwk_errno");
	trans_stat.fwk[0] = reply_long(reply, "fwk0");
	trans_stat.fwk[1] = reply_long(reply, "fwk1");
	trans_stat.fwk[2] = reply_long(reply, "fwk2");
	if (rc != 0) {
		errno = rc == -ENODEV ? ENODEV : -rc;
		if (rc == -ENODEV) {
			fprintf(stderr, "%s\n", reply_str(reply, "descr"));
		}
		return -1;
	}
	if (trans_stat.rpc_errno != 0) {
		return -2;
	}
	return trans_stat.fwk_errno != 0 ? -3 : 0;
}

static int
lst_need_key(void)
{
	if (session_key == 0) {
		fprintf(stderr, "Can't find env LST_SESSION or value is not valid\n");
		return -1;
	}
	return 0;
}

/* lst_print_error: the console's local errors in lst's words. */
static void __attribute__((format(printf, 2, 3)))
lst_print_error(const char *sub, const char *def_format, ...)
{
	va_list ap;

	switch (errno) {
	case ENODEV:
		return; /* said by lst_call */
	case ESRCH:
		fprintf(stderr, "No session exists\n");
		return;
	case ESHUTDOWN:
		fprintf(stderr, "Session is shutting down\n");
		return;
	case EACCES:
		fprintf(stderr, "Unmatched session key or not root\n");
		return;
	case ENOENT:
		fprintf(stderr, "Can't find %s in current session\n", sub);
		return;
	case EINVAL:
		fprintf(stderr, "Invalid parameters list in command line\n");
		return;
	case EFAULT:
		fprintf(stderr, "Bad parameter address\n");
		return;
	case EEXIST:
		fprintf(stderr, "%s already exists\n", sub);
		return;
	default:
		va_start(ap, def_format);
		vfprintf(stderr, def_format, ap);
		va_end(ap);
		return;
	}
}

/* lst_print_transerr: each node whose RPC or answer failed. */
static void
lst_print_transerr(const char *optstr)
{
	long i, n = reply_long(reply, "nents");

	for (i = 0; i < n; i++) {
		yaml_node_t *e = reply_ent((unsigned int)i);
		long rpc = reply_long(e, "rpc_errno");
		long fwk = reply_long(e, "fwk_errno");

		if (rpc != 0) {
			/* The kernel hands strerror() the RPC's negative errno. */
			fprintf(stderr, "%s RPC failed on %s: %s\n", optstr, reply_str(e, "nid"),
				strerror((int)rpc));
		} else if (fwk != 0) {
			fprintf(stderr, "operation %s failed on %s: %s\n", optstr,
				reply_str(e, "nid"), strerror((int)fwk));
		}
	}
}

static int lst_usage(const char *cmd);

/* ---- options: one table per command, one parser for all ---- */

/* What an option does to the command's variable: its argument as a number or
 * a string, or a value set or or-ed in (a flag). */
enum lst_opt_kind { LST_OPT_NUM, LST_OPT_STR, LST_OPT_SET, LST_OPT_OR };

struct lst_opt {
	const char *name;
	char letter;
	enum lst_opt_kind kind;
	void *var;      /* int * (NUM, SET, OR) or const char ** (STR) */
	int value;      /* SET, OR: what goes into *var */
	int *given;     /* if not NULL: set to 1 when the option is given */
	bool long_only; /* no one-letter form (the kernel's lst stat --count) */
};

#define LST_OPTS_MAX 16

/* getopt_long over @opts (ending with a NULL name), the variables filled as
 * each says; -1 on an option not in the table (the caller prints its usage). */
static int
lst_getopt(int argc, char **argv, const struct lst_opt *opts)
{
	struct option longs[LST_OPTS_MAX + 1] = { { .name = NULL } };
	char shorts[LST_OPTS_MAX * 2 + 1] = "";
	size_t n, len = 0;
	int c;

	for (n = 0; opts[n].name != NULL && n < LST_OPTS_MAX; n++) {
		bool arg = opts[n].kind == LST_OPT_NUM || opts[n].kind == LST_OPT_STR;

		longs[n] = (struct option){ .name = opts[n].name,
					    .has_arg = arg ? required_argument : no_argument,
					    .val = opts[n].letter };
		if (opts[n].long_only) {
			continue;
		}
		shorts[len++] = opts[n].letter;
		if (arg) {
			shorts[len++] = ':';
		}
	}
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct lst_opt *o = opts;

		while (o->name != NULL && o->letter != c) {
			o++;
		}
		if (o->name == NULL) {
			return -1;
		}
		if (o->given != NULL) {
			*o->given = 1;
		}
		switch (o->kind) {
		case LST_OPT_NUM:
			*(int *)o->var = atoi(optarg);
			break;
		case LST_OPT_STR:
			*(const char **)o->var = optarg;
			break;
		case LST_OPT_SET:
			*(int *)o->var = o->value;
			break;
		case LST_OPT_OR:
			*(int *)o->var |= o->value;
			break;
		}
	}
	return 0;
}

/* The batch a run, stop or query names: the one operand, or lst's default
 * batch without one; -1 with more. */
static int
lst_batch_operand(int argc, char **argv, const char **batch)
{
	if (optind == argc) {
		*batch = LST_DEFAULT_BATCH;
	} else if (optind == argc - 1) {
		*batch = argv[optind];
	} else {
		return -1;
	}
	return 0;
}

/* ---- NID lists: "a.b.c.[1-4,7]@tcp" as lst's expand_strs ---- */

struct lst_ids {
	char (*v)[64];
	int n;
};

static int
lst_ids_push(struct lst_ids *ids, const char *s)
{
	char(*v)[64] = realloc(ids->v, (size_t)(ids->n + 1) * sizeof(*v));

	if (v == NULL || strlen(s) >= sizeof(v[0])) {
		return -1;
	}
	ids->v = v;
	snprintf(ids->v[ids->n++], sizeof(ids->v[0]), "%s", s);
	return 0;
}

/* Expand the first [..] of @p s (numbers, lo-hi, lo-hi/stride), then the rest. */
static int
lst_expand(const char *s, struct lst_ids *ids)
{
	const char *b1 = strchr(s, '['), *b2;
	char expr[256], pre[256], buf[512];
	char *tok, *save = NULL;

	if (b1 == NULL) {
		return lst_ids_push(ids, s);
	}
	b2 = strchr(b1, ']');
	if (b2 == NULL || b2 == b1 + 1 || (size_t)(b2 - b1) >= sizeof(expr) ||
	    (size_t)(b1 - s) >= sizeof(pre)) {
		return -1;
	}
	snprintf(pre, sizeof(pre), "%.*s", (int)(b1 - s), s);
	snprintf(expr, sizeof(expr), "%.*s", (int)(b2 - b1 - 1), b1 + 1);
	for (tok = strtok_r(expr, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		unsigned int x, y, z = 1, i;
		int n = 0, len = (int)strlen(tok);

		if (sscanf(tok, "%u%n", &x, &n) >= 1 && n == len) {
			y = x;
		} else if (n = 0, sscanf(tok, "%u-%u%n", &x, &y, &n) >= 2 && n == len && x < y) {
			z = 1;
		} else if (n = 0, sscanf(tok, "%u-%u/%u%n", &x, &y, &z, &n) >= 3 && n == len &&
					  x < y && z > 0) {
		} else {
			return -1;
		}
		for (i = x; i <= y; i += z) {
			snprintf(buf, sizeof(buf), "%s%u%s", pre, i, b2 + 1);
			if (lst_expand(buf, ids) != 0) {
				return -1;
			}
		}
	}
	return 0;
}

/* lst_parse_nids: the list's ids, checked as NIDs. */
static int
lst_parse_nids(const char *str, struct lst_ids *ids)
{
	int i;

	memset(ids, 0, sizeof(*ids));
	if (lst_expand(str, ids) != 0) {
		fprintf(stderr, "Syntax error in \"%s\"\n", str);
		free(ids->v);
		return -1;
	}
	for (i = 0; i < ids->n; i++) {
		struct lnet_nid nid;

		if (libcfs_strnid(&nid, ids->v[i]) != 0) {
			fprintf(stderr, "Invalid nid: %s\n", ids->v[i]);
			free(ids->v);
			return -1;
		}
	}
	return 0;
}

/* "nids=a;b;..." of ids [from, from+n). */
static void
lst_ids_param(const struct lst_ids *ids, int from, int n, char *out, size_t len)
{
	size_t off = (size_t)snprintf(out, len, "nids=");
	int i;

	for (i = from; i < from + n && off < len; i++) {
		off += (size_t)snprintf(out + off, len - off, "%s%s", i > from ? ";" : "",
					ids->v[i]);
	}
}

/* ---- sessions ---- */

static int
jt_lst_new_session(int argc, char **argv)
{
	char buf[LST_NAME_SIZE * 2 + 1];
	const char *timeout_s = NULL;
	int timeout = 300, force = 0, rc;
	char *name;
	const struct lst_opt opts[] = {
		{ "timeout", 't', LST_OPT_STR, &timeout_s },
		{ "force", 'f', LST_OPT_SET, &force, 1 },
		{ NULL },
	};

	if (lst_getopt(argc, argv, opts) != 0) {
		return lst_usage(argv[0]);
	}
	if (timeout_s != NULL) {
		timeout = atoi(timeout_s);
		if (timeout <= 0) {
			fprintf(stderr, "Invalid timeout value\n");
			return -1;
		}
	}
	if (optind == argc - 1) {
		name = argv[optind++];
		if (strlen(name) >= LST_NAME_SIZE) {
			fprintf(stderr, "Name size is limited to %d\n", LST_NAME_SIZE - 1);
			return -1;
		}
	} else if (optind == argc) {
		char user[LST_NAME_SIZE], host[LST_NAME_SIZE];
		struct passwd *pw = getpwuid(getuid());

		if (pw == NULL) {
			snprintf(user, sizeof(user), "%d", (int)getuid());
		} else {
			snprintf(user, sizeof(user), "%s", pw->pw_name);
		}
		if (gethostname(host, sizeof(host)) != 0) {
			snprintf(host, sizeof(host), "unknown_host");
		}
		host[sizeof(host) - 1] = '\0';
		snprintf(buf, sizeof(buf), "%s@%s", user, host);
		name = buf;
	} else {
		return lst_usage(argv[0]);
	}
	if (lst_need_key() != 0) {
		return -1;
	}
	rc = lst_call("op=session_new,name=%s,timeout=%d,force=%d", name, timeout, force);
	if (rc != 0) {
		lst_print_error("session", "Failed to create session: %s\n", strerror(errno));
		return rc;
	}
	fprintf(stdout, "SESSION: %s FEATURES: %x TIMEOUT: %d FORCE: %s\n", name, session_features,
		timeout, force ? "Yes" : "No");
	return 0;
}

static int
jt_lst_show_session(int argc, char **argv)
{
	struct lnet_nid nid;
	char nidstr[LNET_NIDSTR_SIZE];

	(void)argc;
	(void)argv;
	if (lst_call("op=session_info") != 0) {
		lst_print_error("session", "Failed to show session: %s\n", strerror(errno));
		return -1;
	}
	lnet_nid4_to_nid(strtoull(reply_str(reply, "sid_nid"), NULL, 0), &nid);
	fprintf(stdout, "%s ID: %ju@%s, KEY: %ld FEATURES: %lx NODES: %ld\n",
		reply_str(reply, "session"),
		(uintmax_t)strtoull(reply_str(reply, "sid_stamp"), NULL, 0),
		libcfs_nidstr_r(&nid, nidstr, sizeof(nidstr)), reply_long(reply, "key"),
		reply_long(reply, "feats"), reply_long(reply, "nodes_total"));
	return 0;
}

/* 2.17 ends the session over netlink and then prints only the errors. */
static int
jt_lst_end_session(int argc, char **argv)
{
	int rc;

	(void)argc;
	(void)argv;
	if (lst_need_key() != 0) {
		return -1;
	}
	rc = lst_call("op=session_end");
	if (rc == -1) {
		lst_print_error("session", "Failed to end session: %s\n", strerror(errno));
		return rc;
	}
	if (trans_stat.rpc_errno != 0) {
		fprintf(stderr, "[RPC] Failed to send %ld session RPCs: %s\n",
			trans_stat.rpc_failure, strerror((int)trans_stat.rpc_errno));
	}
	if (trans_stat.fwk_errno != 0) {
		fprintf(stderr, "[FWK] Failed to end session on %ld nodes: %s\n", trans_stat.fwk[1],
			strerror((int)trans_stat.fwk_errno));
	}
	return 0;
}

/* ---- groups ---- */

static int
lst_del_group(const char *name)
{
	int rc = lst_call("op=group_del,name=%s", name);

	if (rc == 0) {
		fprintf(stdout, "Group is deleted\n");
		return 0;
	}
	if (rc == -1) {
		lst_print_error("group", "Failed to delete group: %s\n", strerror(errno));
		return rc;
	}
	fprintf(stderr, "Group is deleted with some errors\n");
	if (trans_stat.rpc_errno != 0) {
		fprintf(stderr, "[RPC] Failed to send %ld end session RPCs: %s\n",
			trans_stat.rpc_failure, strerror((int)trans_stat.rpc_errno));
	}
	if (trans_stat.fwk_errno != 0) {
		fprintf(stderr, "[FWK] Failed to end session on %ld nodes: %s\n", trans_stat.fwk[1],
			strerror((int)trans_stat.fwk_errno));
	}
	return -1;
}

/* Nodes of one argument, a request per LST_IDS_PER_CALL of them. */
static int
lst_group_nodes(const char *op, const char *name, const struct lst_ids *ids)
{
	char param[LST_PARAMS_MAX - 128];
	int i, n, rc = 0;

	for (i = 0; i < ids->n && rc == 0; i += n) {
		n = ids->n - i < LST_IDS_PER_CALL ? ids->n - i : LST_IDS_PER_CALL;
		lst_ids_param(ids, i, n, param, sizeof(param));
		rc = lst_call("op=%s,name=%s,%s", op, name, param);
	}
	return rc;
}

static int
jt_lst_add_group(int argc, char **argv)
{
	bool nodes_added = false;
	struct lst_ids ids;
	const char *name;
	int i, rc;

	if (lst_need_key() != 0) {
		return -1;
	}
	if (argc < 3) {
		return lst_usage(argv[0]);
	}
	name = argv[1];
	if (strlen(name) >= LST_NAME_SIZE) {
		fprintf(stderr, "Name length is limited to %d\n", LST_NAME_SIZE - 1);
		return -1;
	}
	if (lst_call("op=group_add,name=%s", name) != 0) {
		lst_print_error("group", "Failed to add group %s: %s\n", name, strerror(errno));
		return -1;
	}
	for (i = 2, rc = 0; i < argc; i++) {
		if (lst_parse_nids(argv[i], &ids) < 0) {
			fprintf(stderr, "Ignore invalid id list %s\n", argv[i]);
			continue;
		}
		rc = ids.n == 0 ? 0 : lst_group_nodes("nodes_add", name, &ids);
		free(ids.v);
		if (ids.n == 0) {
			continue;
		}
		if (rc != 0) {
			break;
		}
		fprintf(stdout, "%s are added to session\n", argv[i]);
		nodes_added = true;
		if (((unsigned int)reply_long(reply, "feats") & session_features) !=
		    session_features) {
			fprintf(stdout,
				"Warning, this session will run with compatible mode because some "
				"test nodes might not understand these features: %x\n",
				~(unsigned int)reply_long(reply, "feats") & session_features);
		}
	}
	if (rc == -1) {
		lst_print_error("group", "Failed to add nodes %s: %s\n", argv[i], strerror(errno));
	} else if (rc != 0) {
		if (trans_stat.fwk_errno == EPROTO) {
			fprintf(stderr, "test nodes might have different LST features, please "
					"disable some features by setting LST_FEATURES\n");
		}
		lst_print_transerr("create session");
	}
	if (!nodes_added) {
		fprintf(stderr, "No nodes added successfully, deleting group %s\n", name);
		if (lst_del_group(name) != 0) {
			fprintf(stderr, "Failed to delete group %s. Group is empty.\n", name);
		}
	}
	return rc;
}

static int
jt_lst_del_group(int argc, char **argv)
{
	if (lst_need_key() != 0) {
		return -1;
	}
	if (argc != 2) {
		return lst_usage(argv[0]);
	}
	return lst_del_group(argv[1]);
}

static int
lst_state_mask(const char *s)
{
	if (strcasecmp(s, "active") == 0) {
		return LST_NODE_ACTIVE;
	}
	if (strcasecmp(s, "busy") == 0) {
		return LST_NODE_BUSY;
	}
	if (strcasecmp(s, "down") == 0) {
		return LST_NODE_DOWN;
	}
	if (strcasecmp(s, "unknown") == 0) {
		return LST_NODE_UNKNOWN;
	}
	if (strcasecmp(s, "invalid") == 0) {
		return LST_NODE_UNKNOWN | LST_NODE_DOWN | LST_NODE_BUSY;
	}
	return -1;
}

static int
jt_lst_update_group(int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "refresh", .has_arg = no_argument, .val = 'f' },
		{ .name = "clean", .has_arg = required_argument, .val = 'c' },
		{ .name = "remove", .has_arg = required_argument, .val = 'r' },
		{ .name = NULL },
	};
	int opc = 0, clean = 0, c, rc;
	const char *str = NULL;
	struct lst_ids ids;

	if (lst_need_key() != 0) {
		return -1;
	}
	while ((c = getopt_long(argc, argv, "fc:r:", opts, NULL)) != -1) {
		if (opc != 0) {
			return lst_usage(argv[0]);
		}
		opc = c;
		if (c == 'r') {
			str = optarg;
		} else if (c == 'c') {
			clean = lst_state_mask(optarg);
			if (clean <= 0) {
				return lst_usage(argv[0]);
			}
		} else if (c != 'f') {
			return lst_usage(argv[0]);
		}
	}
	if (opc == 0 || optind != argc - 1) {
		return lst_usage(argv[0]);
	}
	if (opc == 'r') {
		if (lst_parse_nids(str, &ids) < 0) {
			fprintf(stderr, "Can't get count of nodes from %s: %s\n", str,
				strerror(EINVAL));
			return -1;
		}
		rc = lst_group_nodes("nodes_remove", argv[optind], &ids);
		free(ids.v);
	} else if (opc == 'c') {
		rc = lst_call("op=group_clean,name=%s,states=%d", argv[optind], clean);
	} else {
		rc = lst_call("op=group_refresh,name=%s", argv[optind]);
	}
	if (rc == -1) {
		lst_print_error("group", "Failed to update group: %s\n", strerror(errno));
	} else if (rc != 0) {
		lst_print_transerr("Updating group");
	}
	return rc;
}

static int
lst_state_of(const char *s)
{
	return strcmp(s, "Active") == 0 ? LST_NODE_ACTIVE :
	       strcmp(s, "Busy") == 0   ? LST_NODE_BUSY :
	       strcmp(s, "Down") == 0   ? LST_NODE_DOWN :
					  LST_NODE_UNKNOWN;
}

/* One group's nodes in the states asked (2.17's netlink list with a state filter). */
/* list_group or list_batch without a name: the session's groups (batches),
 * numbered, and their count; @what is "group" or "batch". */
static int
lst_list_names(const char *what, const char *plural)
{
	long k, n;

	if (lst_call("op=%s_list", what) != 0) {
		lst_print_error(what, "Failed to list %s: %s\n", what, strerror(errno));
		return -1;
	}
	n = reply_long(reply, "nnames");
	for (k = 0; k < n; k++) {
		fprintf(stdout, "%ld) %s\n", k + 1,
			lnetctl_scalar(reply_sub('n', (unsigned int)k)));
	}
	fprintf(stdout, "Total %ld %s\n", n, plural);
	return 0;
}

static int
lst_list_group_nodes(const char *name, int states)
{
	long i, n;
	int count = 0;

	if (lst_call("op=group_info,name=%s", name) != 0) {
		lst_print_error("group", "Failed to list group: %s\n", strerror(errno));
		return -1;
	}
	fprintf(stdout, "Group [ %s ]\n", name);
	n = reply_long(reply, "nnodes");
	for (i = 0; i < n; i++) {
		yaml_node_t *d = reply_item("nodes", 'd', (unsigned int)i);

		if ((lst_state_of(reply_str(d, "state")) & states) == 0) {
			continue;
		}
		fprintf(stdout, "\t%s: %s\n", reply_str(d, "nid"), reply_str(d, "state"));
		count++;
	}
	if (count == 0) {
		fprintf(stdout, "No nodes found [ %s ]\n", name);
	} else {
		fprintf(stdout, "Total %d nodes [ %s ]\n", count, name);
	}
	return 0;
}

static int
jt_lst_list_group(int argc, char **argv)
{
	int states = 0, i;
	const struct lst_opt opts[] = {
		{ "active", 'a', LST_OPT_OR, &states, LST_NODE_ACTIVE },
		{ "busy", 'b', LST_OPT_OR, &states, LST_NODE_BUSY },
		{ "down", 'd', LST_OPT_OR, &states, LST_NODE_DOWN },
		{ "unknown", 'u', LST_OPT_OR, &states, LST_NODE_UNKNOWN },
		{ "all", 'l', LST_OPT_OR, &states,
		  LST_NODE_ACTIVE | LST_NODE_BUSY | LST_NODE_DOWN | LST_NODE_UNKNOWN },
		{ NULL },
	};

	if (lst_need_key() != 0) {
		return -1;
	}
	if (lst_getopt(argc, argv, opts) != 0) {
		return lst_usage(argv[0]);
	}
	if (optind == argc) {
		return lst_list_names("group", "groups");
	}
	fprintf(stdout, LST_NODES_TITLE);
	for (i = optind; i < argc; i++) {
		if (states != 0) {
			if (lst_list_group_nodes(argv[i], states) != 0) {
				return -1;
			}
			continue;
		}
		if (lst_call("op=group_info,name=%s", argv[i]) != 0) {
			lst_print_error("group", "Failed to list group: %s\n", strerror(errno));
			return -1;
		}
		fprintf(stdout, "\t%ld\t%ld\t%ld\t%ld\t%ld\t%s\n", reply_long(reply, "active"),
			reply_long(reply, "busy"), reply_long(reply, "down"),
			reply_long(reply, "unknown"), reply_long(reply, "total"), argv[i]);
	}
	return 0;
}

/* ---- ping ---- */

static int
jt_lst_ping(int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "session", .has_arg = no_argument, .val = 's' },
		{ .name = "server", .has_arg = no_argument, .val = 'v' },
		{ .name = "batch", .has_arg = required_argument, .val = 'b' },
		{ .name = "group", .has_arg = required_argument, .val = 'g' },
		{ .name = "nodes", .has_arg = required_argument, .val = 'n' },
		{ .name = "timeout", .has_arg = required_argument, .val = 't' },
		{ .name = NULL },
	};
	char param[LST_PARAMS_MAX - 128] = "";
	const char *str = NULL;
	int type = 0, server = 0, timeout = 5, c, rc;
	struct lst_ids ids;
	long i, n;

	if (lst_need_key() != 0) {
		return -1;
	}
	while ((c = getopt_long(argc, argv, "g:b:n:t:sv", opts, NULL)) != -1) {
		switch (c) {
		case 's':
		case 'g':
		case 'b':
		case 'n':
			type = c;
			str = c == 's' ? NULL : optarg;
			break;
		case 't':
			timeout = atoi(optarg);
			break;
		case 'v':
			server = 1;
			break;
		default:
			return lst_usage(argv[0]);
		}
	}
	if (type == 0 || timeout <= 0 || optind != argc) {
		return lst_usage(argv[0]);
	}
	if (type == 'n') {
		if (lst_parse_nids(str, &ids) < 0) {
			fprintf(stderr, "Failed to get count of nodes from %s: %s\n", str,
				strerror(EINVAL));
			return -1;
		}
		lst_ids_param(&ids, 0, ids.n < LST_IDS_PER_CALL ? ids.n : LST_IDS_PER_CALL, param,
			      sizeof(param));
		free(ids.v);
	}
	rc = type == 's' ? lst_call("op=debug_session,timeout=%d", timeout) :
	     type == 'g' ? lst_call("op=debug_group,name=%s,timeout=%d", str, timeout) :
	     type == 'b' ? lst_call("op=debug_batch,name=%s,server=%d,timeout=%d", str, server,
				    timeout) :
			   lst_call("op=debug_nodes,%s,timeout=%d", param, timeout);
	if (rc == -1) {
		lst_print_error("debug", "Failed to ping %s: %s\n", str == NULL ? "session" : str,
				strerror(errno));
		return -1;
	}
	n = reply_long(reply, "nents");
	if (n == 0) {
		fprintf(stdout, "Target %s is empty\n", str == NULL ? "session" : str);
	}
	for (i = 0; i < n; i++) {
		yaml_node_t *e = reply_ent((unsigned int)i);
		const char *state = reply_str(e, "state");
		bool known = strcmp(state, "Active") == 0 || strcmp(state, "Busy") == 0;
		struct lnet_nid nid;
		char nidstr[LNET_NIDSTR_SIZE];
		uint64_t nid4 = strtoull(reply_str(e, "sid_nid"), NULL, 0);

		lnet_nid4_to_nid(reply_long(e, "rpc_errno") == 0 ? nid4 : UINT64_MAX, &nid);
		fprintf(stdout, "\t%s: %s [session: %s id: %s]\n", reply_str(e, "nid"), state,
			known ? (reply_long(e, "rpc_errno") == 0 ? reply_str(e, "session") :
								   "Unknown") :
				"<NULL>",
			libcfs_nidstr_r(&nid, nidstr, sizeof(nidstr)));
	}
	return 0;
}

/* ---- batches and tests ---- */

static int
jt_lst_add_batch(int argc, char **argv)
{
	if (lst_need_key() != 0) {
		return -1;
	}
	if (argc != 2) {
		return lst_usage(argv[0]);
	}
	if (strlen(argv[1]) >= LST_NAME_SIZE) {
		fprintf(stderr, "Name length is limited to %d\n", LST_NAME_SIZE - 1);
		return -1;
	}
	if (lst_call("op=batch_add,name=%s", argv[1]) == 0) {
		return 0;
	}
	lst_print_error("batch", "Failed to create batch: %s\n", strerror(errno));
	return -1;
}

/* lst_get_node_count of a batch's clients: its errors as lst's. */
static int
lst_batch_exists(const char *batch)
{
	if (lst_call("op=batch_info,name=%s", batch) != 0) {
		fprintf(stderr, "Failed to get count of nodes from %s: %s\n", batch,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* run's and stop's start: a session, their options, the batch (named or the
 * default) and that it exists; -1 (said) otherwise. */
static int
lst_batch_args(int argc, char **argv, const struct lst_opt *opts, const char **batch)
{
	if (lst_need_key() != 0) {
		return -1;
	}
	if (lst_getopt(argc, argv, opts) != 0 || lst_batch_operand(argc, argv, batch) != 0) {
		return lst_usage(argv[0]);
	}
	return lst_batch_exists(*batch);
}

/* A run or stop that failed: the daemon's error (@rc -1) or the nodes' (the
 * transaction's), as the kernel's lst says each; @rc. */
static int
lst_batch_failed(int rc, const char *what, const char *optstr)
{
	if (rc == -1) {
		lst_print_error("batch", "Failed to %s batch: %s\n", what, strerror(errno));
		return rc;
	}
	lst_print_transerr(optstr);
	return rc;
}

static int
jt_lst_start_batch(int argc, char **argv)
{
	const char *batch;
	int timeout = 0, rc;
	const struct lst_opt opts[] = {
		{ "timeout", 't', LST_OPT_NUM, &timeout },
		{ NULL },
	};

	if (lst_batch_args(argc, argv, opts, &batch) != 0) {
		return -1;
	}
	rc = lst_call("op=batch_run,name=%s,timeout=%d", batch, timeout);
	if (rc == 0) {
		fprintf(stdout, "%s is running now\n", batch);
		return 0;
	}
	return lst_batch_failed(rc, "start", "Run batch");
}

static int
jt_lst_stop_batch(int argc, char **argv)
{
	const char *batch;
	int force = 0, rc;
	const struct lst_opt opts[] = {
		{ "force", 'f', LST_OPT_SET, &force, 1 },
		{ NULL },
	};

	if (lst_batch_args(argc, argv, opts, &batch) != 0) {
		return -1;
	}
	rc = lst_call("op=batch_stop,name=%s,force=%d", batch, force);
	while (rc == 0) {
		rc = lst_call("op=batch_query,name=%s,timeout=30", batch);
		if (rc != 0) {
			break;
		}
		if (trans_stat.fwk[0] == 0 && trans_stat.fwk[2] == 0) {
			fprintf(stdout, "Batch is stopped\n");
			return 0;
		}
		fprintf(stdout, "%ld batch in stopping\n", trans_stat.fwk[0]);
		sleep(1);
	}
	return lst_batch_failed(rc, "stop", "stop batch");
}

static int
jt_lst_query_batch(int argc, char **argv)
{
	enum { SHOW_ACTIVE = 1, SHOW_IDLE = 2, SHOW_ERROR = 4, SHOW_ALL = 8 };
	int timeout = 5, delay = 5, loop = 1, test = 0, server = 0, show = 0, i, rc = 0;
	int verbose, active, idle, error;
	const char *batch;
	time_t last = 0;
	long k, n;
	const struct lst_opt opts[] = {
		{ "timeout", 'o', LST_OPT_NUM, &timeout },
		{ "delay", 'd', LST_OPT_NUM, &delay },
		{ "loop", 'c', LST_OPT_NUM, &loop },
		{ "test", 't', LST_OPT_NUM, &test },
		{ "server", 's', LST_OPT_SET, &server, 1 },
		{ "active", 'a', LST_OPT_OR, &show, SHOW_ACTIVE },
		{ "idle", 'i', LST_OPT_OR, &show, SHOW_IDLE },
		{ "error", 'e', LST_OPT_OR, &show, SHOW_ERROR },
		{ "all", 'l', LST_OPT_OR, &show, SHOW_ALL },
		{ NULL },
	};

	if (lst_need_key() != 0) {
		return -1;
	}
	if (lst_getopt(argc, argv, opts) != 0) {
		return lst_usage(argv[0]);
	}
	if (test < 0 || timeout <= 0 || delay <= 0 || loop <= 0) {
		return lst_usage(argv[0]);
	}
	if (lst_batch_operand(argc, argv, &batch) != 0) {
		return lst_usage(argv[0]);
	}
	verbose = show != 0; /* any of them lists the nodes */
	active = (show & SHOW_ACTIVE) != 0;
	idle = (show & SHOW_IDLE) != 0;
	error = (show & SHOW_ERROR) != 0;
	for (i = 0; i < loop; i++) {
		time_t now = time(NULL);

		if (now - last < delay) {
			sleep((unsigned int)(delay - now + last));
			now = time(NULL);
		}
		last = now;
		rc = lst_call("op=batch_query,name=%s,test=%d,server=%d,timeout=%d", batch, test,
			      server, timeout);
		if (rc == -1) {
			fprintf(stderr, "Failed to query batch: %s\n", strerror(errno));
			break;
		}
		if (verbose) {
			n = reply_long(reply, "nents");
			for (k = 0; k < n; k++) {
				yaml_node_t *e = reply_ent((unsigned int)k);
				long act = reply_long(e, "active");
				long rpc = reply_long(e, "rpc_errno");

				if ((act == 0 && active) || (act != 0 && idle) ||
				    (reply_long(e, "fwk_errno") == 0 && error)) {
					continue;
				}
				fprintf(stdout, "%s [%s]: %s\n", reply_str(e, "nid"),
					reply_str(e, "state"),
					rpc != 0 ? strerror((int)rpc) :
					act > 0  ? "Running" :
						   "Idle");
			}
			continue;
		}
		fprintf(stdout, "%s [%d] ", batch, test);
		if (trans_stat.rpc_failure != 0) {
			fprintf(stdout, "%ld of %ld nodes are unknown, ", trans_stat.rpc_failure,
				trans_stat.rpc_total);
		}
		if (trans_stat.rpc_failure == 0 && trans_stat.fwk[0] == 0 &&
		    trans_stat.fwk[2] == 0) {
			fprintf(stdout, "is stopped\n");
			continue;
		}
		if (trans_stat.rpc_failure == 0 && trans_stat.fwk[1] == 0 &&
		    trans_stat.fwk[2] == 0) {
			fprintf(stdout, "is running\n");
			continue;
		}
		fprintf(stdout, "stopped: %ld , running: %ld, failed: %ld\n", trans_stat.fwk[1],
			trans_stat.fwk[0], trans_stat.fwk[2]);
	}
	return rc;
}

static void
lst_print_counts(const char *pfx)
{
	char k[5][32];

	snprintf(k[0], sizeof(k[0]), "%sactive", pfx);
	snprintf(k[1], sizeof(k[1]), "%sbusy", pfx);
	snprintf(k[2], sizeof(k[2]), "%sdown", pfx);
	snprintf(k[3], sizeof(k[3]), "%sunknown", pfx);
	snprintf(k[4], sizeof(k[4]), "%stotal", pfx);
	fprintf(stdout, "%s\t%ld\t%ld\t%ld\t%ld\t%ld\n", pfx[0] == 'c' ? "client" : "server",
		reply_long(reply, k[0]), reply_long(reply, k[1]), reply_long(reply, k[2]),
		reply_long(reply, k[3]), reply_long(reply, k[4]));
}

static int
jt_lst_list_batch(int argc, char **argv)
{
	enum { SHOW_ACTIVE = 1, SHOW_INVALID = 2 };
	int show = 0, server = 0, ntest = 0, test = 0, verbose, invalid, active;
	const char *batch;
	long k, n;
	const struct lst_opt opts[] = {
		{ "test", 't', LST_OPT_NUM, &test, 0, &ntest },
		{ "invalid", 'i', LST_OPT_OR, &show, SHOW_INVALID },
		{ "active", 'a', LST_OPT_OR, &show, SHOW_ACTIVE },
		{ "all", 'l', LST_OPT_OR, &show, SHOW_ACTIVE | SHOW_INVALID },
		{ "server", 's', LST_OPT_SET, &server, 1 },
		{ NULL },
	};

	if (lst_need_key() != 0) {
		return -1;
	}
	if (lst_getopt(argc, argv, opts) != 0) {
		return lst_usage(argv[0]);
	}
	verbose = show != 0; /* any of them lists the nodes */
	active = (show & SHOW_ACTIVE) != 0;
	invalid = (show & SHOW_INVALID) != 0;
	if (optind == argc) {
		return lst_list_names("batch", "batches");
	}
	if (ntest == 1 && test <= 0) {
		fprintf(stderr, "Invalid test id, test id starts from 1\n");
		return -1;
	}
	if (optind != argc - 1) {
		return lst_usage(argv[0]);
	}
	batch = argv[optind];
	do {
		if (lst_call("op=batch_info,name=%s,test=%d,server=%d", batch, test, server) != 0) {
			lst_print_error(test > 0 ? "test" : "batch",
					test > 0 ? "Failed to query test: %s\n" :
						   "Failed to query batch: %s\n",
					strerror(errno));
			return -1;
		}
		if (verbose) {
			int shown = 0;

			n = reply_long(reply, "nnodes");
			for (k = 0; k < n; k++) {
				yaml_node_t *d = reply_sub('d', (unsigned int)k);
				bool is_active = strcmp(reply_str(d, "state"), "Active") == 0;

				if ((!active && is_active) || (!invalid && !is_active)) {
					continue;
				}
				fprintf(stdout, "\t%s: %s\n", reply_str(d, "nid"),
					reply_str(d, "state"));
				shown++;
			}
			if (n > 0) {
				fprintf(stdout, "Total %d nodes\n", shown);
			}
			return 0;
		}
		if (test == 0) {
			fprintf(stdout, "Batch: %s Tests: %ld State: %ld\n", batch,
				reply_long(reply, "ntest"), reply_long(reply, "batch_state"));
			ntest = (int)reply_long(reply, "ntest");
			test = 1;
		} else {
			fprintf(stdout, "\tTest %d(%s) (loop: %ld, concurrency: %ld)\n", test,
				reply_long(reply, "test_type") == 2 ? "ping" : "brw",
				reply_long(reply, "test_loop"), reply_long(reply, "test_concur"));
			ntest--;
			test++;
		}
		fprintf(stdout, LST_NODES_TITLE);
		lst_print_counts("cli_");
		lst_print_counts("srv_");
	} while (ntest != 0);
	return 0;
}

/* lst_get_bulk_param: read|write, size=, off=, check= */
static int
lst_bulk_params(int argc, char **argv, char *out, size_t len)
{
	const char *rw = "read", *check = "none";
	long size = 4096, off = 0;
	char *tok, *end;
	int i;

	for (i = 0; i < argc; i++) {
		if (strcasestr(argv[i], "check=") == argv[i] ||
		    strcasestr(argv[i], "c=") == argv[i]) {
			tok = strchr(argv[i], '=') + 1;
			if (strcasecmp(tok, "full") == 0) {
				check = "full";
			} else if (strcasecmp(tok, "simple") == 0) {
				check = "simple";
			} else {
				fprintf(stderr, "Unknow flag %s\n", tok);
				return -1;
			}
		} else if (strcasestr(argv[i], "size=") == argv[i] ||
			   strcasestr(argv[i], "s=") == argv[i]) {
			tok = strchr(argv[i], '=') + 1;
			size = strtol(tok, &end, 0);
			if (size <= 0) {
				fprintf(stderr, "Invalid size %s\n", tok);
				return -1;
			}
			if (*end == 'k' || *end == 'K') {
				size *= 1024;
			} else if (*end == 'm' || *end == 'M') {
				size *= 1024 * 1024;
			}
			if (size > LST_MTU) {
				fprintf(stderr, "Size exceed limitation: %ld bytes\n", size);
				return -1;
			}
		} else if (strcasestr(argv[i], "off=") == argv[i]) {
			tok = strchr(argv[i], '=') + 1;
			off = strtol(tok, &end, 0);
			if (off < 0 || off % 8 != 0) {
				fprintf(stderr,
					"Invalid offset %s/%ld, it should be postive value and "
					"multiple of %d\n",
					tok, off, 8);
				return -1;
			}
		} else if (strcasecmp(argv[i], "read") == 0 || strcasecmp(argv[i], "r") == 0) {
			rw = "read";
		} else if (strcasecmp(argv[i], "write") == 0 || strcasecmp(argv[i], "w") == 0) {
			rw = "write";
		} else {
			fprintf(stderr, "Unknow parameter: %s\n", argv[i]);
			return -1;
		}
	}
	snprintf(out, len, "rw=%s,check=%s,size=%ld,off=%ld", rw, check, size, off);
	return 0;
}

static int
jt_lst_add_test(int argc, char **argv)
{
	const char *batch = NULL, *from = NULL, *to = NULL, *dstr = NULL, *test, *g;
	int concur = 1, loop = -1, dist = 1, span = 1, rc, k;
	char params[256] = "";
	const struct lst_opt opts[] = {
		{ "batch", 'b', LST_OPT_STR, &batch },
		{ "concurrency", 'c', LST_OPT_NUM, &concur },
		{ "distribute", 'd', LST_OPT_STR, &dstr },
		{ "from", 'f', LST_OPT_STR, &from },
		{ "to", 't', LST_OPT_STR, &to },
		{ "loop", 'l', LST_OPT_NUM, &loop },
		{ NULL },
	};

	if (lst_need_key() != 0) {
		return -1;
	}
	if (lst_getopt(argc, argv, opts) != 0 || optind == argc || from == NULL || to == NULL) {
		return lst_usage(argv[0]);
	}
	if (concur <= 0 || concur > LST_MAX_CONCUR) {
		fprintf(stderr, "Invalid concurrency of test: %d\n", concur);
		return -1;
	}
	batch = batch != NULL ? batch : LST_DEFAULT_BATCH;
	if (dstr != NULL) {
		const char *colon = strchr(dstr, ':');

		dist = atoi(dstr);
		span = colon != NULL ? atoi(colon + 1) : 0;
		if (dist <= 0 || span <= 0) {
			fprintf(stderr, "Invalid distribution: %s\n", dstr);
			return -1;
		}
	}
	test = argv[optind++];
	if (strcasecmp(test, "brw") == 0) {
		if (lst_bulk_params(argc - optind, argv + optind, params, sizeof(params)) != 0) {
			fprintf(stderr, "Failed to add test (%s)\n", test);
			return -1;
		}
	} else if (strcasecmp(test, "ping") != 0) {
		fprintf(stderr, "Unknow test name %s\n", test);
		fprintf(stderr, "Failed to add test (%s)\n", test);
		return -1;
	}
	for (k = 0; k < 2; k++) {
		g = k == 0 ? from : to;
		if (lst_call("op=group_info,name=%s", g) != 0) {
			fprintf(stderr, "Can't get count of nodes from %s: %s\n", g,
				strerror(errno));
			return -1;
		}
	}
	rc = lst_call(
		"op=test_add,batch=%s,from=%s,to=%s,type=%s,loop=%d,concur=%d,dist=%d,span=%d%s%s",
		batch, from, to, strcasecmp(test, "ping") == 0 ? "ping" : "brw", loop, concur, dist,
		span, params[0] != '\0' ? "," : "", params);
	if (rc == 0) {
		fprintf(stdout, "Test was added successfully\n");
		return 0;
	}
	if (rc == -1) {
		lst_print_error("test", "Failed to add test: %s\n", strerror(errno));
		return rc;
	}
	lst_print_transerr("add test");
	return rc;
}

/* ---- stat and show_error ---- */

/* What one STAT of a group (or of NIDs) gave: a node's counters by place. */
struct lst_sample {
	int n;
	struct {
		char nid[80];
		bool ok;
		double running_ms, send_count, recv_count, send_length, recv_length;
	} v[256];
};

struct lst_target {
	const char *name;
	char nids[LST_PARAMS_MAX - 128]; /* "" for a group */
	struct lst_sample s[2];
};

/* STAT of @p t into its sample @p idx. */
static int
lst_stat_once(struct lst_target *t, int idx, int timeout)
{
	struct lst_sample *s = &t->s[idx];
	int rc, i;

	rc = t->nids[0] != '\0' ? lst_call("op=stat_nodes,%s,timeout=%d", t->nids, timeout) :
				  lst_call("op=stat_group,name=%s,timeout=%d", t->name, timeout);
	if (rc == -1) {
		return -1;
	}
	s->n = (int)reply_long(reply, "nents");
	s->n = s->n > 256 ? 256 : s->n;
	for (i = 0; i < s->n; i++) {
		yaml_node_t *e = reply_ent((unsigned int)i);

		snprintf(s->v[i].nid, sizeof(s->v[i].nid), "%s", reply_str(e, "nid"));
		s->v[i].ok = reply_long(e, "rpc_errno") == 0 && reply_long(e, "fwk_errno") == 0;
		s->v[i].running_ms = strtod(reply_str(e, "running_ms"), NULL);
		s->v[i].send_count = strtod(reply_str(e, "send_count"), NULL);
		s->v[i].recv_count = strtod(reply_str(e, "recv_count"), NULL);
		s->v[i].send_length = strtod(reply_str(e, "send_length"), NULL);
		s->v[i].recv_length = strtod(reply_str(e, "recv_length"), NULL);
	}
	return 0;
}

/* lst_cal_lnet_stat's sums: [rate send, rate recv, bw send, bw recv] x [avg, min, max, total]. */
struct lst_lnet_stat {
	float v[4][4];
	int count;
};

static void
lst_stat_fold(struct lst_lnet_stat *r, int which, float val)
{
	float *p = r->v[which];

	p[3] += val;
	if (p[1] > val || p[1] == 0) {
		p[1] = val; /* a 0 is "unset" for Min, as lst's */
	}
	if (p[2] < val) {
		p[2] = val;
	}
}

static void
lst_print_lnet_stat(const char *name, const struct lst_lnet_stat *r, int bwrt, int rdwr, int type,
		    int mbs)
{
	const char *units = mbs ? "MB/s  " : "MiB/s ";
	int start1 = bwrt == 1 ? 1 : 0, end1 = bwrt == 2 ? 0 : 1;
	int start2 = rdwr == 1 ? 1 : 0, end2 = rdwr == 2 ? 0 : 1;
	int i, j;

	if (r->count == 0) {
		return;
	}
	for (i = start1; i <= end1; i++) {
		fprintf(stdout, "[LNet %s of %s]\n", i == 0 ? "Rates" : "Bandwidth", name);
		for (j = start2; j <= end2; j++) {
			/* j 0: [R], what the nodes received; 1: [W], what they sent */
			const float *p = r->v[i * 2 + (j == 0 ? 1 : 0)];

			fprintf(stdout, "[%c] ", j == 0 ? 'R' : 'W');
			if ((type & 1) != 0) {
				fprintf(stdout, i == 0 ? "Avg: %-8.0f RPC/s " : "Avg: %-8.2f %s",
					(double)p[0], units);
			}
			if ((type & 2) != 0) {
				fprintf(stdout, i == 0 ? "Min: %-8.0f RPC/s " : "Min: %-8.2f %s",
					(double)p[1], units);
			}
			if ((type & 4) != 0) {
				fprintf(stdout, i == 0 ? "Max: %-8.0f RPC/s" : "Max: %-8.2f %s",
					(double)p[2], units);
			}
			fprintf(stdout, "\n");
		}
	}
}

/* lst_print_stat: the differences of each node between two samples. */
static void
lst_print_stat(struct lst_target *t, int idx, int bwrt, int rdwr, int type, int mbs)
{
	const struct lst_sample *nw = &t->s[idx], *od = &t->s[1 - idx];
	float divisor = mbs ? 1000.0f * 1000.0f : 1024.0f * 1024.0f;
	struct lst_lnet_stat r;
	int errcount = 0, i, k;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < nw->n && i < od->n; i++) {
		float delta;

		if (strcmp(nw->v[i].nid, od->v[i].nid) != 0) {
			break; /* somebody changed the group */
		}
		if (!nw->v[i].ok || !od->v[i].ok) {
			errcount++;
			continue;
		}
		delta = (float)(nw->v[i].running_ms - od->v[i].running_ms) / 1000;
		lst_stat_fold(&r, 0, (float)(nw->v[i].send_count - od->v[i].send_count) / delta);
		lst_stat_fold(&r, 1, (float)(nw->v[i].recv_count - od->v[i].recv_count) / delta);
		lst_stat_fold(&r, 2,
			      (float)(nw->v[i].send_length - od->v[i].send_length) / divisor /
				      delta);
		lst_stat_fold(&r, 3,
			      (float)(nw->v[i].recv_length - od->v[i].recv_length) / divisor /
				      delta);
		r.count++;
	}
	for (k = 0; k < 4 && r.count > 0; k++) {
		r.v[k][0] = r.v[k][3] / (float)r.count;
	}
	if (errcount > 0) {
		fprintf(stdout, "Failed to stat on %d nodes\n", errcount);
	}
	lst_print_lnet_stat(t->name, &r, bwrt, rdwr, type, mbs);
}

/* A group's name, or NIDs when no group has it (lst_stat_req_param_alloc). */
static int
lst_target_init(struct lst_target *t, char *name)
{
	struct lst_ids ids;

	memset(t, 0, sizeof(*t));
	t->name = name;
	if (lst_call("op=group_info,name=%s", name) == 0) {
		return 0;
	}
	if (errno != ENOENT || lst_parse_nids(name, &ids) < 0) {
		fprintf(stderr, "Failed to get count of nodes from %s: %s\n", name,
			strerror(errno));
		return -1;
	}
	lst_ids_param(&ids, 0, ids.n < LST_IDS_PER_CALL ? ids.n : LST_IDS_PER_CALL, t->nids,
		      sizeof(t->nids));
	free(ids.v);
	return 0;
}

static int
jt_lst_stat(int argc, char **argv)
{
	int timeout = 5, delay = 5, count = -1, lnet = 1, bwrt = 0, rdwr = 0, type = 0, mbs = 0;
	int idx = 0, i, ntargets, rc = 0;
	struct lst_target *targets;
	time_t last = 0;
	const struct lst_opt opts[] = {
		{ "timeout", 't', LST_OPT_NUM, &timeout },
		{ "delay", 'd', LST_OPT_NUM, &delay },
		{ "count", 'o', LST_OPT_NUM, &count, 0, NULL, true },
		{ "lnet", 'l', LST_OPT_SET, &lnet, 1 },
		{ "rpc", 'c', LST_OPT_SET, &lnet, 0 },
		{ "bw", 'b', LST_OPT_OR, &bwrt, 1 },
		{ "rate", 'a', LST_OPT_OR, &bwrt, 2 },
		{ "read", 'r', LST_OPT_OR, &rdwr, 1 },
		{ "write", 'w', LST_OPT_OR, &rdwr, 2 },
		{ "avg", 'g', LST_OPT_OR, &type, 1 },
		{ "min", 'n', LST_OPT_OR, &type, 2 },
		{ "max", 'x', LST_OPT_OR, &type, 4 },
		{ "mbs", 'm', LST_OPT_SET, &mbs, 1 },
		{ NULL },
	};

	if (lst_need_key() != 0) {
		return -1;
	}
	if (lst_getopt(argc, argv, opts) != 0) {
		return lst_usage(argv[0]);
	}
	if (type == 0) {
		type = -1; /* none of avg, min, max: all three */
	}
	if (optind == argc) {
		return lst_usage(argv[0]);
	}
	if (timeout <= 0 || delay <= 0) {
		fprintf(stderr, "Invalid timeout or delay value\n");
		return -1;
	}
	if (count < -1) {
		fprintf(stderr, "Invalid count value\n");
		return -1;
	}
	if (count != -1) {
		count++; /* the first sample only sets the start */
	}
	ntargets = argc - optind;
	targets = calloc((size_t)ntargets, sizeof(*targets));
	if (targets == NULL) {
		fprintf(stderr, "Out of memory\n");
		return -1;
	}
	for (i = 0; i < ntargets; i++) {
		if (lst_target_init(&targets[i], argv[optind + i]) != 0) {
			free(targets);
			return -1;
		}
	}
	do {
		time_t now = time(NULL);

		if (now - last < delay) {
			sleep((unsigned int)(delay - now + last));
			now = time(NULL);
		}
		last = now;
		for (i = 0; i < ntargets; i++) {
			rc = lst_stat_once(&targets[i], idx, timeout);
			if (rc == -1) {
				lst_print_error("stat", "Failed to stat %s: %s\n", targets[i].name,
						strerror(errno));
				goto out;
			}
			if (lnet && targets[i].s[1 - idx].n > 0) {
				lst_print_stat(&targets[i], idx, bwrt, rdwr, type, mbs);
			}
			targets[i].s[1 - idx].n = 0;
		}
		idx = 1 - idx;
		if (count > 0) {
			count--;
		}
	} while (count == -1 || count > 0);
out:
	free(targets);
	return rc;
}

static int
jt_lst_show_error(int argc, char **argv)
{
	int show_rpc = 1, i, rc = 0;
	struct lst_target t;
	long k, n;
	const struct lst_opt opts[] = {
		{ "session", 's', LST_OPT_SET, &show_rpc, 0 },
		{ NULL },
	};

	if (lst_need_key() != 0) {
		return -1;
	}
	if (lst_getopt(argc, argv, opts) != 0 || optind == argc) {
		return lst_usage(argv[0]);
	}
	for (i = optind; i < argc; i++) {
		int ecount = 0;

		if (lst_target_init(&t, argv[i]) != 0) {
			return -1;
		}
		rc = t.nids[0] != '\0' ? lst_call("op=stat_nodes,%s,timeout=10", t.nids) :
					 lst_call("op=stat_group,name=%s,timeout=10", t.name);
		if (rc == -1) {
			lst_print_error(t.name, "Failed to show errors of %s: %s\n", t.name,
					strerror(errno));
			return rc;
		}
		fprintf(stdout, "%s:\n", t.name);
		n = reply_long(reply, "nents");
		for (k = 0; k < n; k++) {
			yaml_node_t *e = reply_ent((unsigned int)k);
			long brw = reply_long(e, "brw_errors"), ping = reply_long(e, "ping_errors");

			if (reply_long(e, "rpc_errno") != 0) {
				ecount++;
				fprintf(stderr, "RPC failure, can't show error on %s\n",
					reply_str(e, "nid"));
				continue;
			}
			if (reply_long(e, "fwk_errno") != 0) {
				ecount++;
				fprintf(stderr, "Framework failure, can't show error on %s\n",
					reply_str(e, "nid"));
				continue;
			}
			if (reply_long(e, "rpc_errors") == 0 && brw == 0 && ping == 0) {
				continue;
			}
			if (!show_rpc && brw == 0 && ping == 0) {
				continue;
			}
			ecount++;
			fprintf(stderr, "%s: [Session %ld brw errors, %ld ping errors]%c",
				reply_str(e, "nid"), brw, ping, show_rpc ? ' ' : '\n');
			if (show_rpc) {
				fprintf(stderr, "[RPC: %ld errors, %ld dropped, %ld expired]\n",
					reply_long(e, "rpc_errors"), reply_long(e, "rpcs_dropped"),
					reply_long(e, "rpcs_expired"));
			}
		}
		fprintf(stdout, "Total %d error nodes in %s\n", ecount, t.name);
	}
	return rc;
}

/* ---- the command table ---- */

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} lst_cmds[] = {
	{ "new_session", jt_lst_new_session,
	  "Usage: lst new_session [--timeout TIME] [--force] [NAME]" },
	{ "end_session", jt_lst_end_session, "Usage: lst end_session" },
	{ "show_session", jt_lst_show_session, "Usage: lst show_session" },
	{ "ping", jt_lst_ping,
	  "Usage: lst ping  [--group NAME] [--batch NAME] [--session]  [--nodes IDS]" },
	{ "add_group", jt_lst_add_group, "Usage: lst group NAME IDs [IDs]..." },
	{ "del_group", jt_lst_del_group, "Usage: lst del_group NAME" },
	{ "update_group", jt_lst_update_group,
	  "Usage: lst update_group NAME [--clean] [--refresh] [--remove IDs]" },
	{ "list_group", jt_lst_list_group,
	  "Usage: lst list_group [--active] [--busy] [--down] [--unknown] GROUP ..." },
	{ "stat", jt_lst_stat,
	  "Usage: lst stat [--bw] [--rate] [--read] [--write] [--max] [--min]  [--avg] [--mbs] "
	  "[--timeout #] [--delay #] [--count #] GROUP [GROUP]" },
	{ "show_error", jt_lst_show_error, "Usage: lst show_error NAME | IDS ..." },
	{ "add_batch", jt_lst_add_batch, "Usage: lst add_batch NAME" },
	{ "run", jt_lst_start_batch, "Usage: lst run [--timeout TIME] [NAME]" },
	{ "stop", jt_lst_stop_batch, "Usage: lst stop [--force] BATCH_NAME" },
	{ "list_batch", jt_lst_list_batch, "Usage: lst list_batch NAME [--test ID] [--server]" },
	{ "query", jt_lst_query_batch,
	  "Usage: lst query [--test ID] [--server] [--timeout TIME] NAME" },
	{ "add_test", jt_lst_add_test,
	  "Usage: lst add_test [--batch BATCH] [--loop #] [--concurrency #]  [--distribute #:#] "
	  "[--from GROUP] [--to GROUP] TEST..." },
};

#define LST_NCMDS (sizeof(lst_cmds) / sizeof(lst_cmds[0]))

/* The command's usage line, as the kernel's parser prints it: a failure. */
static int
lst_usage(const char *cmd)
{
	size_t i;

	for (i = 0; i < LST_NCMDS; i++) {
		if (strcmp(lst_cmds[i].name, cmd) == 0) {
			fprintf(stdout, "%s\n", lst_cmds[i].help);
		}
	}
	return -1;
}

static int
lst_initialize(void)
{
	const char *feats = getenv("LST_FEATURES");
	const char *key = getenv("LST_SESSION");

	if (feats != NULL) {
		session_features = (unsigned int)strtol(feats, NULL, 16);
	}
	if ((session_features & ~LST_FEATS_MASK) != 0) {
		fprintf(stderr,
			"Unsupported session features %x, only support these features so far: %x\n",
			session_features & ~LST_FEATS_MASK, LST_FEATS_MASK);
		return -1;
	}
	session_key = key != NULL ? atoi(key) : 0;
	return 0;
}

int
main(int argc, char **argv)
{
	size_t i;
	int rc;

	setlinebuf(stdout);
	if (lst_initialize() < 0) {
		return 255;
	}
	if (argc < 2) {
		for (i = 0; i < LST_NCMDS; i++) {
			fprintf(stdout, "%s\n", lst_cmds[i].help);
		}
		return 0;
	}
	for (i = 0; i < LST_NCMDS; i++) {
		if (strcmp(lst_cmds[i].name, argv[1]) == 0) {
			break;
		}
	}
	if (i == LST_NCMDS) {
		fprintf(stderr, "lst: '%s' is not a valid command. See 'lst --list-commands'.\n",
			argv[1]);
		return 255;
	}
	optind = 0;
	rc = lst_cmds[i].fn(argc - 1, argv + 1);
	if (have_reply) {
		yaml_document_delete(&reply_doc);
	}
	reply_page_drop();
	if (connected) {
		lnetctl_close(&conn);
	}
	return rc & 0xff;
}
