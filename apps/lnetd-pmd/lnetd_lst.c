/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /lnet/lst,op=OP,...: the lst console's commands (lib/selftest_rpc's
 * sft_con), what the kernel's lst sends its console over ioctl and
 * netlink. The console is the selftest thread's: a telemetry thread
 * parses the request, hands it over (lnetd_selftest_con_call) and waits
 * for the answer, which the selftest thread writes into the reply when
 * the console's request ends. As the kernel's console lives in the
 * lnet_selftest module, there is no console while the selftest service is
 * off: every command is then -ENODEV.
 *
 * Parameters (all optional but op): key, name, nids=[PID-]NID;..., feats,
 * timeout, force, states, test, server, batch, from, to, type=brw|ping,
 * loop, concur, dist, span, rw=read|write, check=none|simple|full, size,
 * off. The reply: status and descr, the transaction's counts (rpc_total,
 * rpc_success, rpc_failure, rpc_errno, fwk_errno, fwk0..fwk7), one "eN"
 * per RPC (nid, state, rpc_errno, fwk_errno, and what its reply says:
 * a STAT's counters, a query's active, a ping's session), and the op's own
 * (session, names, nodes, batch).
 *
 * Paging: a reply carries at most LNETD_LST_PAGE of the "eN" (ents_first,
 * ents_count say which; nents is the transaction's total). When there are
 * more, they are kept under the reply's "result" number until the next
 * reply, and op=ents,result=R,first=N gives the page from N, by the same
 * keys (-ESTALE once another reply replaced them): a STAT entry is some
 * 350 bytes of the telemetry reply's 16 KiB, and a dict holds at most
 * RTE_TEL_MAX_DICT_ENTRIES keys, so a group of 200 nodes does not fit one.
 * A group's nodes ("dN" of group_info, for list_group NAME) are paged the
 * same way: at most LNETD_LST_NODES_PAGE a reply (nodes_first,
 * nodes_count; nnodes the group's total), the rest kept under "result" with
 * the entries and given by op=nodes,result=R,first=N.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "cfs.h"
#include "lnetd.h"
#include "sft_con.h"

/* The most NIDs one request names (its parameters are 1 KiB). */
#define LNETD_LST_MAX_NIDS 64
/* The most RPC entries ("eN") one reply carries. */
#define LNETD_LST_PAGE 32
/* The most group nodes ("dN") one reply carries: some 60 bytes each. */
#define LNETD_LST_NODES_PAGE 64

/*
 * The last reply's entries when they did not fit it: written by the
 * selftest thread (lnetd_lst_reply), read by the telemetry threads (op=ents).
 */
static struct {
	pthread_mutex_t lock;
	uint64_t result; /* their number; 0: none kept */
	uint64_t last;   /* the last number given */
	int op;
	uint32_t n;
	struct sft_con_ent *ents;
	uint32_t nnodes;
	struct sft_con_node_ent *nodes;
} lnetd_lst_kept = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const struct {
	const char *name;
	enum sft_con_op op;
} lnetd_lst_ops[] = {
	{ "session_new", SFT_CON_SESSION_NEW },     { "session_end", SFT_CON_SESSION_END },
	{ "session_info", SFT_CON_SESSION_INFO },   { "group_add", SFT_CON_GROUP_ADD },
	{ "nodes_add", SFT_CON_NODES_ADD },         { "nodes_remove", SFT_CON_NODES_REMOVE },
	{ "group_del", SFT_CON_GROUP_DEL },         { "group_clean", SFT_CON_GROUP_CLEAN },
	{ "group_refresh", SFT_CON_GROUP_REFRESH }, { "group_list", SFT_CON_GROUP_LIST },
	{ "group_info", SFT_CON_GROUP_INFO },       { "batch_add", SFT_CON_BATCH_ADD },
	{ "batch_list", SFT_CON_BATCH_LIST },       { "batch_info", SFT_CON_BATCH_INFO },
	{ "test_add", SFT_CON_TEST_ADD },           { "batch_run", SFT_CON_BATCH_RUN },
	{ "batch_stop", SFT_CON_BATCH_STOP },       { "batch_query", SFT_CON_BATCH_QUERY },
	{ "stat_group", SFT_CON_STAT_GROUP },       { "stat_nodes", SFT_CON_STAT_NODES },
	{ "debug_session", SFT_CON_DEBUG_SESSION }, { "debug_group", SFT_CON_DEBUG_GROUP },
	{ "debug_batch", SFT_CON_DEBUG_BATCH },     { "debug_nodes", SFT_CON_DEBUG_NODES },
};

static long
lnetd_lst_long(const char *params, const char *key, long dflt)
{
	char val[32];
	char *end = NULL;
	long v;

	if (!lnetd_param(params, key, val, sizeof(val))) {
		return dflt;
	}
	v = strtol(val, &end, 0);
	return end != val && *end == '\0' ? v : dflt;
}

static void
lnetd_lst_name(const char *params, const char *key, char *out)
{
	char val[64] = "";

	lnetd_param(params, key, val, sizeof(val));
	snprintf(out, SFT_NAME_SIZE, "%s", val);
	if (strlen(val) >= SFT_NAME_SIZE) {
		memset(out, 'x', SFT_NAME_SIZE); /* too long: the console says E2BIG */
	}
}

/* "[PID-]NID;..." into @p ids. */
static int
lnetd_lst_nids(const char *params, struct lnet_processid *ids, uint32_t *n)
{
	char list[1024];
	char *save = NULL;
	char *tok;

	*n = 0;
	if (!lnetd_param(params, "nids", list, sizeof(list))) {
		return 0;
	}
	for (tok = strtok_r(list, ";", &save); tok != NULL; tok = strtok_r(NULL, ";", &save)) {
		char *dash = strchr(tok, '-');
		char *nid = tok;

		if (*n == LNETD_LST_MAX_NIDS) {
			return -E2BIG;
		}
		ids[*n].pid = SFT_PID;
		if (dash != NULL && strchr(tok, '@') > dash) {
			*dash = '\0';
			ids[*n].pid = (uint32_t)strtoul(tok, NULL, 0);
			nid = dash + 1;
		}
		if (libcfs_strnid(&ids[*n].nid, nid) != 0) {
			return -EINVAL;
		}
		(*n)++;
	}
	return 0;
}

static void
lnetd_lst_test_args(const char *params, struct sft_con_test_args *t)
{
	char val[16] = "";

	lnetd_lst_name(params, "batch", t->batch);
	lnetd_lst_name(params, "from", t->src);
	lnetd_lst_name(params, "to", t->dst);
	lnetd_param(params, "type", val, sizeof(val));
	t->type = strcmp(val, "ping") == 0 ? SFT_CON_TEST_PING : SFT_CON_TEST_BULK;
	t->loop = (int32_t)lnetd_lst_long(params, "loop", -1);
	t->concur = (uint32_t)lnetd_lst_long(params, "concur", 1);
	t->dist = (uint32_t)lnetd_lst_long(params, "dist", 1);
	t->span = (uint32_t)lnetd_lst_long(params, "span", 1);
	val[0] = '\0';
	lnetd_param(params, "rw", val, sizeof(val));
	t->brw_opc = strcmp(val, "write") == 0 ? SFT_BRW_WRITE : SFT_BRW_READ;
	val[0] = '\0';
	lnetd_param(params, "check", val, sizeof(val));
	t->brw_check = strcmp(val, "full") == 0   ? SFT_BRW_CHECK_FULL :
		       strcmp(val, "simple") == 0 ? SFT_BRW_CHECK_SIMPLE :
						    SFT_BRW_CHECK_NONE;
	t->brw_size = (uint32_t)lnetd_lst_long(params, "size", 4096);
	t->brw_cli_off = (uint32_t)lnetd_lst_long(params, "off", 0);
	t->brw_srv_off = t->brw_cli_off;
}

static int
lnetd_lst_parse(const char *params, struct sft_con_req *rq, struct lnet_processid *ids)
{
	char op[32] = "";
	unsigned int i;

	memset(rq, 0, sizeof(*rq));
	if (!lnetd_param(params, "op", op, sizeof(op))) {
		return -EINVAL;
	}
	for (i = 0; i < sizeof(lnetd_lst_ops) / sizeof(lnetd_lst_ops[0]); i++) {
		if (strcmp(op, lnetd_lst_ops[i].name) == 0) {
			break;
		}
	}
	if (i == sizeof(lnetd_lst_ops) / sizeof(lnetd_lst_ops[0])) {
		return -EOPNOTSUPP;
	}
	rq->op = lnetd_lst_ops[i].op;
	rq->key = (int32_t)lnetd_lst_long(params, "key", 0);
	lnetd_lst_name(params, "name", rq->name);
	rq->feats = (uint32_t)lnetd_lst_long(params, "feats", SFT_FEAT_BULK_LEN);
	rq->timeout_s = (int32_t)lnetd_lst_long(params, "timeout", 0);
	rq->force = lnetd_lst_long(params, "force", 0) != 0;
	rq->client = lnetd_lst_long(params, "server", 0) == 0;
	switch (rq->op) {
	case SFT_CON_GROUP_CLEAN:
		rq->arg = (uint32_t)lnetd_lst_long(params, "states", 0);
		break;
	case SFT_CON_BATCH_INFO:
	case SFT_CON_BATCH_QUERY:
		rq->arg = (uint32_t)lnetd_lst_long(params, "test", 0);
		break;
	case SFT_CON_BATCH_RUN:
		rq->arg = (uint32_t)rq->timeout_s;
		break;
	case SFT_CON_BATCH_STOP:
		rq->arg = rq->force;
		break;
	case SFT_CON_TEST_ADD:
		lnetd_lst_test_args(params, &rq->test);
		break;
	default:
		break;
	}
	rq->ids = ids;
	return lnetd_lst_nids(params, ids, &rq->nids);
}

/* ---- the reply, written on the selftest thread ---- */

static const char *
lnetd_lst_state(enum sft_node_state s)
{
	switch (s) {
	case SFT_NODE_ACTIVE:
		return "Active";
	case SFT_NODE_BUSY:
		return "Busy";
	case SFT_NODE_DOWN:
		return "Down";
	default:
		return "Unknown";
	}
}

static void
lnetd_lst_id(struct rte_tel_data *e, const char *key, const struct lnet_processid *id)
{
	char s[LNET_NIDSTR_SIZE + 16];
	char nid[LNET_NIDSTR_SIZE];

	snprintf(s, sizeof(s), "%u-%s", id->pid, libcfs_nidstr_r(&id->nid, nid, sizeof(nid)));
	rte_tel_data_add_dict_string(e, key, s);
}

/* A STAT reply's counters, by the kernel's names. */
static void
lnetd_lst_stat_reply(struct rte_tel_data *e, const struct sft_stat_reply *r)
{
	rte_tel_data_add_dict_u64(e, "running_ms", r->fw.running_ms);
	rte_tel_data_add_dict_u64(e, "brw_errors", r->fw.brw_errors);
	rte_tel_data_add_dict_u64(e, "ping_errors", r->fw.ping_errors);
	rte_tel_data_add_dict_u64(e, "rpc_errors", r->rpc.errors);
	rte_tel_data_add_dict_u64(e, "rpcs_dropped", r->rpc.rpcs_dropped);
	rte_tel_data_add_dict_u64(e, "rpcs_expired", r->rpc.rpcs_expired);
	rte_tel_data_add_dict_u64(e, "send_count", r->lnet.send_count);
	rte_tel_data_add_dict_u64(e, "recv_count", r->lnet.recv_count);
	rte_tel_data_add_dict_u64(e, "send_length", r->lnet.send_length);
	rte_tel_data_add_dict_u64(e, "recv_length", r->lnet.recv_length);
}

static int
lnetd_lst_ent(struct rte_tel_data *d, enum sft_con_op op, uint32_t k, const struct sft_con_ent *ent)
{
	struct rte_tel_data *e = rte_tel_data_alloc();
	char key[16];

	if (e == NULL) {
		return -ENOMEM;
	}
	rte_tel_data_start_dict(e);
	lnetd_lst_id(e, "nid", &ent->id);
	rte_tel_data_add_dict_string(e, "state", lnetd_lst_state(ent->state));
	rte_tel_data_add_dict_int(e, "rpc_errno", ent->rpc_errno);
	rte_tel_data_add_dict_int(e, "fwk_errno", (int)ent->fwk_errno);
	if (ent->rpc_errno == 0 && ent->fwk_errno == 0) {
		if (op == SFT_CON_STAT_GROUP || op == SFT_CON_STAT_NODES) {
			lnetd_lst_stat_reply(e, &ent->reply.body.stat_reply);
		} else if (op == SFT_CON_BATCH_QUERY) {
			rte_tel_data_add_dict_u64(e, "active", ent->reply.body.batch_reply.active);
		}
	}
	if (ent->rpc_errno == 0 && op >= SFT_CON_DEBUG_SESSION) {
		rte_tel_data_add_dict_string(e, "session", ent->reply.body.debug_reply.name);
		rte_tel_data_add_dict_u64(e, "sid_nid", ent->reply.body.debug_reply.sid.nid);
	}
	snprintf(key, sizeof(key), "e%u", k);
	if (rte_tel_data_add_dict_container(d, key, e, 0) != 0) {
		rte_tel_data_free(e);
		return -ENOMEM;
	}
	return 0;
}

static void
lnetd_lst_counts(struct rte_tel_data *d, const char *pfx, const struct sft_con_counts *c)
{
	const struct {
		const char *name;
		uint64_t value;
	} counts[] = {
		{ "total", c->total }, { "active", c->active },   { "busy", c->busy },
		{ "down", c->down },   { "unknown", c->unknown },
	};
	char key[32];
	size_t i;

	for (i = 0; i < RTE_DIM(counts); i++) {
		snprintf(key, sizeof(key), "%s%s", pfx, counts[i].name);
		rte_tel_data_add_dict_u64(d, key, counts[i].value);
	}
}

/* A group's nodes [first, first + LNETD_LST_NODES_PAGE) of @p nodes (of @p n), and which they are. */
static void
lnetd_lst_nodes_page(struct rte_tel_data *d, const struct sft_con_node_ent *nodes, uint32_t n,
		     uint32_t first)
{
	uint32_t count = first < n ? RTE_MIN(n - first, (uint32_t)LNETD_LST_NODES_PAGE) : 0;
	char key[16];
	uint32_t i;

	rte_tel_data_add_dict_u64(d, "nnodes", n);
	rte_tel_data_add_dict_u64(d, "nodes_first", first);
	rte_tel_data_add_dict_u64(d, "nodes_count", count);
	for (i = first; i < first + count; i++) {
		struct rte_tel_data *e = rte_tel_data_alloc();

		if (e == NULL) {
			break;
		}
		rte_tel_data_start_dict(e);
		lnetd_lst_id(e, "nid", &nodes[i].id);
		rte_tel_data_add_dict_string(e, "state", lnetd_lst_state(nodes[i].state));
		snprintf(key, sizeof(key), "d%u", i);
		if (rte_tel_data_add_dict_container(d, key, e, 0) != 0) {
			rte_tel_data_free(e);
			break;
		}
	}
}

static void
lnetd_lst_info(struct rte_tel_data *d, const struct sft_con_result *r)
{
	char key[16];
	uint32_t i;

	if (r->session.name[0] != '\0' || r->session.key != 0) {
		rte_tel_data_add_dict_string(d, "session", r->session.name);
		rte_tel_data_add_dict_u64(d, "sid_nid", r->session.sid.nid);
		rte_tel_data_add_dict_u64(d, "sid_stamp", (uint64_t)r->session.sid.stamp);
		rte_tel_data_add_dict_int(d, "key", r->session.key);
		rte_tel_data_add_dict_u64(d, "feats", r->session.feats);
		rte_tel_data_add_dict_u64(d, "timeout", r->session.timeout_s);
		lnetd_lst_counts(d, "nodes_", &r->session.nodes);
	}
	rte_tel_data_add_dict_u64(d, "nnames", r->nnames);
	for (i = 0; i < r->nnames; i++) {
		snprintf(key, sizeof(key), "n%u", i);
		rte_tel_data_add_dict_string(d, key, r->names[i]);
	}
	lnetd_lst_nodes_page(d, r->nodes, r->nnodes, 0);
	lnetd_lst_counts(d, "", &r->counts);
	rte_tel_data_add_dict_u64(d, "ntest", r->batch.ntest);
	rte_tel_data_add_dict_u64(d, "batch_state", r->batch.state);
	rte_tel_data_add_dict_u64(d, "test_type", r->batch.type);
	rte_tel_data_add_dict_int(d, "test_loop", r->batch.loop);
	rte_tel_data_add_dict_u64(d, "test_concur", r->batch.concur);
	lnetd_lst_counts(d, "cli_", &r->batch.cli);
	lnetd_lst_counts(d, "srv_", &r->batch.srv);
	rte_tel_data_add_dict_u64(d, "feats", r->feats);
}

/* Keep @p r's entries and group nodes for op=ents and op=nodes, in place of
 * the last ones: their number, 0 if out of memory. */
static uint64_t
lnetd_lst_keep(int op, const struct sft_con_result *r)
{
	struct sft_con_ent *copy = malloc(sizeof(*copy) * (r->nents + 1));
	struct sft_con_node_ent *nodes = malloc(sizeof(*nodes) * (r->nnodes + 1));
	uint64_t result = 0;

	pthread_mutex_lock(&lnetd_lst_kept.lock);
	free(lnetd_lst_kept.ents);
	free(lnetd_lst_kept.nodes);
	lnetd_lst_kept.ents = copy;
	lnetd_lst_kept.nodes = nodes;
	lnetd_lst_kept.result = 0;
	if (copy != NULL && nodes != NULL) {
		if (r->nents > 0) { /* a group's list has nodes and no entries */
			memcpy(copy, r->ents, sizeof(*copy) * r->nents);
		}
		if (r->nnodes > 0) {
			memcpy(nodes, r->nodes, sizeof(*nodes) * r->nnodes);
		}
		lnetd_lst_kept.op = op;
		lnetd_lst_kept.n = r->nents;
		lnetd_lst_kept.nnodes = r->nnodes;
		result = lnetd_lst_kept.result = ++lnetd_lst_kept.last;
	}
	pthread_mutex_unlock(&lnetd_lst_kept.lock);
	return result;
}

void
lnetd_lst_forget(void)
{
	pthread_mutex_lock(&lnetd_lst_kept.lock);
	free(lnetd_lst_kept.ents);
	free(lnetd_lst_kept.nodes);
	lnetd_lst_kept.ents = NULL;
	lnetd_lst_kept.nodes = NULL;
	lnetd_lst_kept.result = 0;
	pthread_mutex_unlock(&lnetd_lst_kept.lock);
}

/* Entries [first, first + LNETD_LST_PAGE) of @p ents (of @p n), and which they are. */
static void
lnetd_lst_ents_page(struct rte_tel_data *d, int op, const struct sft_con_ent *ents, uint32_t n,
		    uint32_t first)
{
	uint32_t count = first < n ? RTE_MIN(n - first, (uint32_t)LNETD_LST_PAGE) : 0;
	uint32_t i;

	rte_tel_data_add_dict_u64(d, "nents", n);
	rte_tel_data_add_dict_u64(d, "ents_first", first);
	rte_tel_data_add_dict_u64(d, "ents_count", count);
	for (i = first; i < first + count; i++) {
		if (lnetd_lst_ent(d, op, i, &ents[i]) != 0) {
			break;
		}
	}
}

void
lnetd_lst_reply(struct rte_tel_data *d, int op, const struct sft_con_result *r)
{
	const struct sft_con_tstat *st = &r->stat;
	char key[8];
	uint32_t i;

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "status", r->rc);
	rte_tel_data_add_dict_string(d, "descr", r->rc != 0 ? strerror(-r->rc) : "");
	rte_tel_data_add_dict_u64(d, "rpc_total", st->rpc.total);
	rte_tel_data_add_dict_u64(d, "rpc_success", st->rpc.success);
	rte_tel_data_add_dict_u64(d, "rpc_failure", st->rpc.failure);
	rte_tel_data_add_dict_int(d, "rpc_errno", st->rpc.rpc_errno);
	rte_tel_data_add_dict_int(d, "fwk_errno", (int)st->fwk_errno);
	for (i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "fwk%u", i);
		rte_tel_data_add_dict_u64(d, key, st->fwk[i]);
	}
	if (r->nents > LNETD_LST_PAGE || r->nnodes > LNETD_LST_NODES_PAGE) {
		rte_tel_data_add_dict_u64(d, "result", lnetd_lst_keep(op, r));
	}
	lnetd_lst_ents_page(d, op, r->ents, r->nents, 0);
	lnetd_lst_info(d, r);
}

/* op=ents (op=nodes),result=R,first=N: a page of the entries (group nodes) kept under R. */
static int
lnetd_lst_page(const char *params, struct rte_tel_data *d, bool nodes)
{
	long result = lnetd_lst_long(params, "result", 0);
	long first = lnetd_lst_long(params, "first", -1);
	int rc = 0;

	pthread_mutex_lock(&lnetd_lst_kept.lock);
	if (result <= 0 || (uint64_t)result != lnetd_lst_kept.result) {
		rc = -ESTALE;
	} else if (first < 0 || first >= (long)(nodes ? lnetd_lst_kept.nnodes : lnetd_lst_kept.n)) {
		rc = -EINVAL;
	} else {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_int(d, "status", 0);
		rte_tel_data_add_dict_u64(d, "result", (uint64_t)result);
		if (nodes) {
			lnetd_lst_nodes_page(d, lnetd_lst_kept.nodes, lnetd_lst_kept.nnodes,
					     (uint32_t)first);
		} else {
			lnetd_lst_ents_page(d, lnetd_lst_kept.op, lnetd_lst_kept.ents,
					    lnetd_lst_kept.n, (uint32_t)first);
		}
	}
	pthread_mutex_unlock(&lnetd_lst_kept.lock);
	if (rc != 0) {
		return lnetd_reply_status(d, rc,
					  rc == -ESTALE ?
						  "no such result: another reply replaced it" :
						  "no such entry");
	}
	return 0;
}

/* /lnet/lst,op=OP,...: parsed here, run on the selftest thread. */
static int
lnetd_lst(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnet_processid ids[LNETD_LST_MAX_NIDS];
	struct sft_con_req rq;
	char op[32] = "";
	int rc;

	(void)cmd;
	if (params != NULL && lnetd_param(params, "op", op, sizeof(op)) &&
	    (strcmp(op, "ents") == 0 || strcmp(op, "nodes") == 0)) {
		return lnetd_lst_page(params, d, strcmp(op, "nodes") == 0);
	}
	rc = lnetd_lst_parse(params != NULL ? params : "", &rq, ids);
	if (rc != 0) {
		return lnetd_reply_status(d, rc, "bad lst request");
	}
	rc = lnetd_selftest_con_call(&rq, d);
	if (rc != 0) {
		return lnetd_reply_status(d, rc,
					  rc == -ENODEV ?
						  "lnet_selftest is not enabled (--selftest)" :
						  "the console is busy");
	}
	return 0;
}

int
lnetd_lst_register(void)
{
	return lnetd_telemetry_add("/lnet/lst", lnetd_lst,
				   "The lst console. Params: op=OP, key=K, name=N, nids=A;B, ...");
}
