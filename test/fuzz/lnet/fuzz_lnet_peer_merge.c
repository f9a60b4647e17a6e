/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ping/push data merged into a small peer table. Input: 6 bytes saying
 * what the table holds and which peer the data came to, then the data.
 * Whatever the bytes, once a plan (and its hand-off) is applied: a NID
 * belongs to at most one peer, every peer's primary is one of its NIDs,
 * counts stay bounded; planning the same data again changes nothing.
 *
 * Config bytes: [0] bit 0 push, bits 1-2 the peer the data came to, bit 3
 * local discovery off, bit 4 that peer is the node's own (0@lo), bit 5 the
 * peer is Multi-Rail, bits 6-7 want_primary (a NID index or none);
 * [1..4] peer i: bits 0-2 and 3-5 two NID indexes (7: none), bit 6
 * configured, bit 7 primary locked; [5] the lock timestamps' order.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cfs_nid.h"
#include "lnet_peer_merge.h"

#define FZ_CAP 8 /* NIDs a proposal may hold */
#define FZ_PEERS 4
#define FZ_NIDS (2 + FZ_CAP) /* a peer's room: its own two and the data's */
#define FZ_CFG 6

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz_peer {
	lnet_merge_peer_id id;             /* 0: none */
	struct lnet_nid nids[FZ_NIDS + 1]; /* nids[0] the primary */
	unsigned int n;
	bool configured;
	bool locked;
	uint64_t lock_ts;
	bool multi_rail;
};

struct fz_table {
	struct fz_peer peers[FZ_PEERS];
};

/* The NIDs the table starts with: the capture's, and one IPv6. */
static struct lnet_nid
fz_pool(unsigned int i)
{
	static const uint32_t addrs[] = { 0xc000020bU, 0xc633640bU, 0xc000020cU, 0xc633640cU,
					  0xc000020dU };
	struct lnet_nid nid = { .nid_size = 12,
				.nid_type = LNET_LND_SOCK,
				.nid_addr = { 0x20010db8U, 0, 0, 0x12 } };

	if (i < sizeof(addrs) / sizeof(addrs[0])) {
		lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(LNET_LND_SOCK, 0), addrs[i]), &nid);
	}
	return nid;
}

static struct fz_peer *
fz_find(struct fz_table *t, const struct lnet_nid *nid, unsigned int *at)
{
	unsigned int i;
	unsigned int j;

	for (i = 0; i < FZ_PEERS; i++) {
		for (j = 0; t->peers[i].id != 0 && j < t->peers[i].n; j++) {
			if (lnet_nid_same(&t->peers[i].nids[j], nid)) {
				*at = j;
				return &t->peers[i];
			}
		}
	}
	return NULL;
}

static bool
fz_lookup(void *arg, const struct lnet_nid *nid, struct lnet_merge_owner *out)
{
	unsigned int at;
	struct fz_peer *p = fz_find(arg, nid, &at);

	if (p == NULL) {
		return false;
	}
	*out = (struct lnet_merge_owner){
		.peer = p->id,
		.is_primary = at == 0,
		.peer_configured = p->configured,
		.peer_lock_primary = p->locked,
		.peer_lock_ts = p->lock_ts,
		.peer_nnids = p->n,
	};
	return true;
}

static void
fz_add_nid(struct fz_peer *p, const struct lnet_nid *nid)
{
	if (p->n >= FZ_NIDS + 1) {
		__builtin_trap(); /* more NIDs than the plan may give */
	}
	p->nids[p->n++] = *nid;
}

static void
fz_build(struct fz_table *t, const uint8_t *cfg)
{
	unsigned int i;
	unsigned int k;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < FZ_PEERS; i++) {
		struct fz_peer *p = &t->peers[i];
		unsigned int idx[2] = { cfg[1 + i] & 7U, (cfg[1 + i] >> 3) & 7U };

		for (k = 0; k < 2; k++) {
			struct lnet_nid nid = fz_pool(idx[k]);
			unsigned int at;

			if (idx[k] < 6 && fz_find(t, &nid, &at) == NULL) {
				p->id = i + 1;
				fz_add_nid(p, &nid);
			}
		}
		p->configured = (cfg[1 + i] & 0x40) != 0;
		p->locked = (cfg[1 + i] & 0x80) != 0;
		p->lock_ts = (cfg[5] >> (2 * i)) & 3U;
	}
}

static struct fz_peer *
fz_peer(struct fz_table *t, lnet_merge_peer_id id)
{
	if (id == 0 || id > FZ_PEERS || t->peers[id - 1].id != id) {
		__builtin_trap(); /* a plan names a peer the table does not have */
	}
	return &t->peers[id - 1];
}

/* @own: the planned peer's own NID (its primary may go: the plan names the next). */
static void
fz_del_nid(struct fz_peer *p, const struct lnet_nid *nid, bool own)
{
	unsigned int j;

	for (j = 0; j < p->n; j++) {
		if (lnet_nid_same(&p->nids[j], nid)) {
			if (j == 0 && !own) {
				__builtin_trap(); /* another peer's primary moved alone */
			}
			memmove(&p->nids[j], &p->nids[j + 1], (p->n - j - 1) * sizeof(p->nids[0]));
			p->n--;
			return;
		}
	}
	__builtin_trap(); /* the NID was not that peer's */
}

/* Put @nid first (the primary). */
static void
fz_set_primary(struct fz_peer *p, const struct lnet_nid *nid)
{
	unsigned int j;

	for (j = 0; j < p->n; j++) {
		if (lnet_nid_same(&p->nids[j], nid)) {
			struct lnet_nid tmp = p->nids[0];

			p->nids[0] = p->nids[j];
			p->nids[j] = tmp;
			return;
		}
	}
	__builtin_trap(); /* the plan's primary is not one of the peer's NIDs */
}

static void
fz_apply(struct fz_table *t, struct fz_peer *p, const struct lnet_merge_plan *plan)
{
	unsigned int i;

	for (i = 0; i < plan->nops; i++) {
		const struct lnet_merge_op *op = &plan->ops[i];

		switch (op->type) {
		case LNET_MERGE_OP_ADD:
			fz_add_nid(p, &op->nid);
			break;
		case LNET_MERGE_OP_MOVE:
			fz_del_nid(fz_peer(t, op->from), &op->nid, false);
			fz_add_nid(p, &op->nid);
			break;
		case LNET_MERGE_OP_TAKE_PEER:
			memset(fz_peer(t, op->from), 0, sizeof(struct fz_peer));
			fz_add_nid(p, &op->nid);
			break;
		case LNET_MERGE_OP_REMOVE:
			fz_del_nid(p, &op->nid, true);
			break;
		case LNET_MERGE_OP_UPDATE:
		case LNET_MERGE_OP_KEEP:
		case LNET_MERGE_OP_REFUSE:
			break;
		}
	}
	fz_set_primary(p, &plan->primary);
	p->locked = plan->lock_primary;
	p->lock_ts = plan->lock_ts;
	p->multi_rail = plan->multi_rail;
}

static void
fz_check_table(struct fz_table *t)
{
	unsigned int i;
	unsigned int j;

	for (i = 0; i < FZ_PEERS; i++) {
		struct fz_peer *p = &t->peers[i];

		if (p->id == 0) {
			continue;
		}
		if (p->n == 0 || p->n > FZ_NIDS + 1) {
			__builtin_trap();
		}
		for (j = 0; j < p->n; j++) {
			unsigned int at;

			if (fz_find(t, &p->nids[j], &at) != p || at != j) {
				__builtin_trap(); /* a NID of two peers, or twice in one */
			}
		}
	}
}

static struct lnet_merge_peer
fz_view(const struct fz_peer *p, const uint8_t *cfg)
{
	unsigned int want = cfg[0] >> 6;

	return (struct lnet_merge_peer){
		.id = p->id,
		.primary = p->nids[0],
		.want_primary = want < 3 ? fz_pool(want + 2) : LNET_ANY_NID,
		.configured = p->configured,
		.lock_primary = p->locked,
		.lock_ts = p->lock_ts,
		.multi_rail = p->multi_rail || (cfg[0] & 0x20) != 0,
		.local_discovery_off = (cfg[0] & 0x08) != 0,
		.handed_off = false,
		.nnids = p->n,
		.nids = p->nids,
	};
}

static uint64_t
fz_refusals(const struct lnet_merge_counters *c)
{
	return c->claimed_configured + c->claimed_locked + c->configured_differs + c->non_mr_net +
	       c->not_mr_peer;
}

/* Plan @p for the peer, following one hand-off; apply; the peer planned last. */
static struct fz_peer *
fz_merge(struct fz_table *t, struct fz_peer *peer, const uint8_t *cfg,
	 const struct lnet_merge_proposal *p, bool *handed)
{
	struct lnet_merge_op ops[FZ_CAP + FZ_NIDS + 1];
	struct lnet_merge_plan plan = { .ops = ops, .cap = sizeof(ops) / sizeof(ops[0]) };
	struct lnet_merge_counters cnt = { 0 };
	struct lnet_merge_peer v = fz_view(peer, cfg);
	unsigned int i;
	uint64_t refused = 0;

	v.handed_off = *handed;
	if (lnet_merge_plan(p, &v, fz_lookup, t, &plan, &cnt) != 0) {
		__builtin_trap(); /* the documented room was not enough */
	}
	if (plan.action == LNET_MERGE_HANDOFF) {
		if (*handed || plan.handoff == peer->id) {
			__builtin_trap(); /* a hand-off goes once, elsewhere */
		}
		*handed = true;
		return fz_merge(t, fz_peer(t, plan.handoff), cfg, p, handed);
	}
	if (plan.nops > p->nnids + v.nnids) {
		__builtin_trap();
	}
	for (i = 0; i < plan.nops; i++) {
		refused += plan.ops[i].type == LNET_MERGE_OP_REFUSE ||
			   (plan.ops[i].type == LNET_MERGE_OP_KEEP &&
			    plan.ops[i].why != LNET_MERGE_REFUSE_NONE);
		if (plan.action == LNET_MERGE_STATUS_ONLY &&
		    plan.ops[i].type == LNET_MERGE_OP_REMOVE) {
			__builtin_trap(); /* discovery off never removes */
		}
	}
	if (refused != fz_refusals(&cnt)) {
		__builtin_trap(); /* every refusal counted once */
	}
	fz_apply(t, peer, &plan);
	fz_check_table(t);
	return peer;
}

/*
 * Merged again with the same data, the peer settles by the second time: a
 * merge may free a NID (another peer's locked primary left alone) that the
 * next merge takes, as the kernel's rounds of discovery do.
 */
static void
fz_check_settles(struct fz_table *t, struct fz_peer *peer, const uint8_t *cfg,
		 const struct lnet_merge_proposal *p)
{
	struct lnet_merge_op ops[FZ_CAP + FZ_NIDS + 1];
	struct lnet_merge_plan plan = { .ops = ops, .cap = sizeof(ops) / sizeof(ops[0]) };
	struct lnet_merge_counters cnt = { 0 };
	unsigned int round;
	unsigned int i;

	for (round = 0; round < 2; round++) {
		struct lnet_merge_peer v = fz_view(peer, cfg);
		bool changes = false;

		v.handed_off = true; /* the data is this peer's now */
		if (lnet_merge_plan(p, &v, fz_lookup, t, &plan, &cnt) != 0) {
			__builtin_trap();
		}
		for (i = 0; i < plan.nops; i++) {
			changes |= plan.ops[i].type != LNET_MERGE_OP_UPDATE &&
				   plan.ops[i].type != LNET_MERGE_OP_KEEP &&
				   plan.ops[i].type != LNET_MERGE_OP_REFUSE;
		}
		if (!changes) {
			return;
		}
		fz_apply(t, peer, &plan);
		fz_check_table(t);
	}
	__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lnet_ping_entry nids[FZ_CAP];
	struct lnet_merge_proposal p = { .nids = nids, .cap = FZ_CAP };
	struct lnet_merge_counters cnt = { 0 };
	struct lnet_merge_input in;
	struct fz_table t;
	struct fz_peer *peer;
	bool handed = false;
	enum lnet_merge_rc rc;

	if (size < FZ_CFG) {
		return 0;
	}
	in = (struct lnet_merge_input){ (data[0] & 1) ? LNET_MERGE_PUSH : LNET_MERGE_PING_REPLY,
					data + FZ_CFG, size - FZ_CFG, 0 };
	rc = lnet_merge_propose(&in, &p, &cnt);
	if (rc != LNET_MERGE_OK) {
		if (p.nnids != 0 ||
		    (rc == LNET_MERGE_TRUNCATED &&
		     (p.need <= in.mlength || p.need > lnet_merge_max_info_size(FZ_CAP)))) {
			__builtin_trap();
		}
		return 0;
	}
	if (p.nnids == 0 || p.nnids > FZ_CAP || cnt.accepted != 1) {
		__builtin_trap();
	}
	fz_build(&t, data);
	peer = &t.peers[(data[0] >> 1) & 3U];
	if (peer->id == 0) {
		return 0;
	}
	if (data[0] & 0x10) {
		lnet_nid_set_lo0(&peer->nids[0]); /* the node's own peer */
	}
	fz_check_table(&t);
	peer = fz_merge(&t, peer, data, &p, &handed);
	if (!peer->configured) {
		fz_check_settles(&t, peer, data, &p);
	}
	return 0;
}
