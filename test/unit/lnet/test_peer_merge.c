/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnet_peer_merge.c: ping/push data from real kernel captures checked into
 * proposals, every refusal with its counter, and the plans of the kernel's
 * merge rules (primary change, NIDs added, moved, taken with their peer,
 * removed, kept, refused; two peers found under two NIDs merged) against a
 * small fake peer table.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lnet_idl.h"
#include "lnet_peer_merge.h"
#include "lnp_test_nid.h"

/*
 * Ping infos as kernels (Lustre 2.17) sent them, without the ksock and
 * LNet headers; NIDs are <a.b.c.d>@tcp, features 0x1e (NI_STATUS,
 * RTE_DISABLED, MULTI_RAIL, DISCOVERY), pid 12345, 0@lo's status the
 * sequence number.
 */
/* captures/kernel/s1_01_first_ping_discovery_on.pcap frame 15: the REPLY of
 * 192.0.2.12@tcp, seqno 2, one NID. */
static const uint8_t k_reply_one[48] = {
	0x67, 0x6e, 0x69, 0x70, 0x1e, 0x00, 0x00, 0x00, 0x39, 0x30, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x02, 0x00, 0xc0,
	0x00, 0x00, 0x02, 0x00, 0xde, 0xc0, 0xaa, 0x15, 0x00, 0x00, 0x00, 0x00,
};

/* captures/kernel/s3_01_multirail_from_boot.pcap frame 18: the REPLY of
 * 192.0.2.12@tcp, seqno 3, two rails (192.0.2.12, 198.51.100.12). */
static const uint8_t k_reply_two[64] = {
	0x67, 0x6e, 0x69, 0x70, 0x1e, 0x00, 0x00, 0x00, 0x39, 0x30, 0x00, 0x00, 0x03,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00, 0x03, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02,
	0x00, 0xde, 0xc0, 0xaa, 0x15, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x64, 0x33, 0xc6,
	0x00, 0x00, 0x02, 0x00, 0xde, 0xc0, 0xaa, 0x15, 0x00, 0x00, 0x00, 0x00,
};

/* captures/kernel/s1_04_multirail_add_ni.pcap frame 13: the push of
 * 192.0.2.11@tcp once 198.51.100.11@tcp was added, seqno 3. */
static const uint8_t k_push_two[64] = {
	0x67, 0x6e, 0x69, 0x70, 0x1e, 0x00, 0x00, 0x00, 0x39, 0x30, 0x00, 0x00, 0x03,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00, 0x03, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02,
	0x00, 0xde, 0xc0, 0xaa, 0x15, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x64, 0x33, 0xc6,
	0x00, 0x00, 0x02, 0x00, 0xde, 0xc0, 0xaa, 0x15, 0x00, 0x00, 0x00, 0x00,
};

/* captures/kernel/s1_05_net_del_readd.pcap frame 29: the REPLY of
 * 192.0.2.11@tcp after its second NI was deleted, seqno 4. */
static const uint8_t k_reply_after_del[48] = {
	0x67, 0x6e, 0x69, 0x70, 0x1e, 0x00, 0x00, 0x00, 0x39, 0x30, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00,
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x02, 0x00, 0xc0,
	0x00, 0x00, 0x02, 0x00, 0xde, 0xc0, 0xaa, 0x15, 0x00, 0x00, 0x00, 0x00,
};

#define A12 0xc000020cU /* 192.0.2.12 */
#define B12 0xc633640cU /* 198.51.100.12 */
#define A11 0xc000020bU /* 192.0.2.11 */
#define B11 0xc633640bU /* 198.51.100.11 */
#define C13 0xc000020dU /* 192.0.2.13 */
#define CAP 16

/* ---- proposals ---- */

struct prop {
	struct lnet_ping_entry nids[CAP];
	struct lnet_merge_proposal p;
	struct lnet_merge_counters cnt;
};

static enum lnet_merge_rc
propose_cap(struct prop *pr, enum lnet_merge_kind kind, const void *buf, size_t mlength,
	    size_t rlength, unsigned int cap)
{
	struct lnet_merge_input in = { kind, buf, mlength, rlength };

	pr->p.nids = pr->nids;
	pr->p.cap = cap;
	return lnet_merge_propose(&in, &pr->p, &pr->cnt);
}

static enum lnet_merge_rc
propose(struct prop *pr, enum lnet_merge_kind kind, const void *buf, size_t len)
{
	return propose_cap(pr, kind, buf, len, 0, CAP);
}

static void
assert_nid(const struct lnet_nid *got, uint32_t addr)
{
	struct lnet_nid want = lnp_tcp_nid(addr);

	assert_true(lnet_nid_same(got, &want));
}

/* The counters all zero but @field, which is 1. */
#define ASSERT_ONLY_COUNTED(cnt, field)                             \
	do {                                                        \
		struct lnet_merge_counters want_ = { 0 };           \
		want_.field = 1;                                    \
		assert_memory_equal(&(cnt), &want_, sizeof(want_)); \
	} while (0)

static void
test_kernel_reply_one_nid(void **state)
{
	struct prop pr = { 0 };

	(void)state;
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, k_reply_one, sizeof(k_reply_one)),
			 LNET_MERGE_OK);
	assert_nid(&pr.p.primary, A12);
	assert_int_equal(pr.p.seqno, 2);
	assert_int_equal(pr.p.features, 0x1e);
	assert_int_equal(pr.p.pid, 12345);
	assert_true(pr.p.multi_rail);
	assert_true(pr.p.discovery);
	assert_false(pr.p.router);
	assert_int_equal(pr.p.nnids, 1);
	assert_nid(&pr.nids[0].nid, A12);
	assert_int_equal(pr.nids[0].status, LNET_NI_STATUS_UP);
	ASSERT_ONLY_COUNTED(pr.cnt, accepted);
}

static void
test_kernel_reply_two_rails(void **state)
{
	struct prop pr = { 0 };

	(void)state;
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, k_reply_two, sizeof(k_reply_two)),
			 LNET_MERGE_OK);
	assert_nid(&pr.p.primary, A12);
	assert_int_equal(pr.p.seqno, 3);
	assert_int_equal(pr.p.nnids, 2);
	assert_nid(&pr.nids[0].nid, A12);
	assert_nid(&pr.nids[1].nid, B12);
	assert_int_equal(pr.nids[1].status, LNET_NI_STATUS_UP);
	ASSERT_ONLY_COUNTED(pr.cnt, accepted);
}

static void
test_kernel_push_two_rails(void **state)
{
	struct prop pr = { 0 };

	(void)state;
	assert_int_equal(propose(&pr, LNET_MERGE_PUSH, k_push_two, sizeof(k_push_two)),
			 LNET_MERGE_OK);
	assert_nid(&pr.p.primary, A11);
	assert_int_equal(pr.p.nnids, 2);
	assert_nid(&pr.nids[1].nid, B11);
	ASSERT_ONLY_COUNTED(pr.cnt, accepted);
}

/* Cut to our GET's sink length: the header says how much to ask for. */
static void
test_truncated_reply_says_size(void **state)
{
	struct prop pr = { 0 };

	(void)state;
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, k_reply_two, 48),
			 LNET_MERGE_TRUNCATED);
	assert_int_equal(pr.p.need, 64);
	assert_int_equal(pr.p.nnids, 0);
	ASSERT_ONLY_COUNTED(pr.cnt, truncated);
}

/* A push cut by our push target: rlength tells; even below a header. */
static void
test_truncated_push(void **state)
{
	struct prop pr = { 0 };

	(void)state;
	assert_int_equal(propose_cap(&pr, LNET_MERGE_PUSH, k_push_two, 48, 64, CAP),
			 LNET_MERGE_TRUNCATED);
	assert_int_equal(pr.p.need, 64);
	memset(&pr.cnt, 0, sizeof(pr.cnt));
	assert_int_equal(propose_cap(&pr, LNET_MERGE_PUSH, k_push_two, 20, 64, CAP),
			 LNET_MERGE_TRUNCATED);
	assert_int_equal(pr.p.need, 64);
	ASSERT_ONLY_COUNTED(pr.cnt, truncated);
}

/* A push whose header declares more than was sent is inconsistent, not truncated. */
static void
test_push_shorter_than_declared(void **state)
{
	struct prop pr = { 0 };

	(void)state;
	assert_int_equal(propose(&pr, LNET_MERGE_PUSH, k_push_two, 48), LNET_MERGE_ESHORT);
	ASSERT_ONLY_COUNTED(pr.cnt, short_data);
}

static void
test_short_data(void **state)
{
	struct prop pr = { 0 };

	(void)state;
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, k_reply_one, 20), LNET_MERGE_ESHORT);
	ASSERT_ONLY_COUNTED(pr.cnt, short_data);
}

static void
test_bad_magic(void **state)
{
	uint8_t b[sizeof(k_reply_two)];
	struct prop pr = { 0 };

	(void)state;
	memcpy(b, k_reply_two, sizeof(b));
	b[0] ^= 0x01;
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_EMAGIC);
	assert_int_equal(pr.p.nnids, 0);
	assert_true(lnet_nid_is_any(&pr.p.primary));
	ASSERT_ONLY_COUNTED(pr.cnt, bad_magic);
}

static void
test_bad_features(void **state)
{
	uint8_t b[sizeof(k_reply_two)];
	struct prop pr = { 0 };

	(void)state;
	memcpy(b, k_reply_two, sizeof(b));
	b[4] = 0x1c; /* NI_STATUS off */
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_EFEATURES);
	ASSERT_ONLY_COUNTED(pr.cnt, bad_features);
}

/* A newer sender's feature bits: the kernel's validation ignores them, so do we. */
static void
test_unknown_features_pass(void **state)
{
	uint8_t b[sizeof(k_reply_two)];
	struct prop pr = { 0 };

	(void)state;
	memcpy(b, k_reply_two, sizeof(b));
	b[5] = 0x01; /* 0x11e: bit 8, unknown to 2.17 */
	b[7] = 0x80; /* and the top bit */
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_OK);
	assert_int_equal(pr.p.features, 0x8000011e);
	assert_true(pr.p.multi_rail);
	assert_true(pr.p.discovery);
	assert_int_equal(pr.p.nnids, 2);
	assert_nid(&pr.nids[1].nid, B12);
	ASSERT_ONLY_COUNTED(pr.cnt, accepted);
	memset(&pr.cnt, 0, sizeof(pr.cnt));
	memcpy(b, k_push_two, sizeof(b));
	b[5] = 0x01;
	assert_int_equal(propose(&pr, LNET_MERGE_PUSH, b, sizeof(b)), LNET_MERGE_OK);
	assert_int_equal(pr.p.features, 0x11e);
	ASSERT_ONLY_COUNTED(pr.cnt, accepted);
}

/* Zero, huge, or more than this node's max_interfaces: refused, even when truncated. */
static void
test_impossible_counts(void **state)
{
	uint8_t b[sizeof(k_reply_two)];
	struct prop pr = { 0 };

	(void)state;
	memcpy(b, k_reply_two, sizeof(b));
	b[12] = 0;
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_ENNIS);
	b[12] = 0x88;
	b[13] = 0x13; /* 5000 */
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_ENNIS);
	assert_int_equal(propose_cap(&pr, LNET_MERGE_PING_REPLY, k_reply_two, sizeof(k_reply_two),
				     0, 1),
			 LNET_MERGE_ENNIS);
	assert_int_equal(pr.cnt.bad_count, 3);
	assert_int_equal(pr.cnt.accepted + pr.cnt.truncated, 0);
}

/* LARGE_ADDR with a declared size no NID count allows: not a re-ping of 4 GiB. */
static void
test_impossible_declared_size(void **state)
{
	uint8_t b[sizeof(k_reply_two)];
	struct prop pr = { 0 };

	(void)state;
	memcpy(b, k_reply_two, sizeof(b));
	b[4] |= LNET_PING_FEAT_LARGE_ADDR;
	memset(b + 28, 0xff, 4); /* 0@lo's msg_size: the total size */
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_ENNIS);
	ASSERT_ONLY_COUNTED(pr.cnt, bad_count);
}

static void
test_lo_rules(void **state)
{
	uint8_t b[sizeof(k_reply_two)];
	struct prop pr = { 0 };

	(void)state;
	memcpy(b, k_reply_two, sizeof(b));
	b[16] = 1; /* entry 0 is not 0@lo */
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_ELO);
	memcpy(b, k_reply_two, sizeof(b));
	memcpy(b + 48, b + 16, 8); /* 0@lo listed again as entry 2 */
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_ELO);
	assert_int_equal(pr.cnt.bad_lo, 2);
	assert_int_equal(pr.cnt.accepted, 0);
}

static void
test_repeated_nid(void **state)
{
	uint8_t b[sizeof(k_reply_two)];
	struct prop pr = { 0 };

	(void)state;
	memcpy(b, k_reply_two, sizeof(b));
	memcpy(b + 48, b + 32, 16);
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_EDUP);
	assert_int_equal(pr.p.nnids, 0);
	ASSERT_ONLY_COUNTED(pr.cnt, dup_nid);
}

/* The same NID in the nid4 array and again as a large record. */
static void
test_repeated_nid_across_sections(void **state)
{
	uint8_t b[sizeof(k_reply_one) + 12];
	struct prop pr = { 0 };
	uint32_t total = sizeof(b);
	struct lnet_nid n = lnp_tcp_nid(A12);

	(void)state;
	memcpy(b, k_reply_one, sizeof(k_reply_one));
	b[4] |= LNET_PING_FEAT_LARGE_ADDR;
	memcpy(b + 28, &total, 4);
	memcpy(b + 48, &(uint32_t){ LNET_NI_STATUS_UP }, 4);
	memcpy(b + 52, &n, 8);
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_EDUP);
	ASSERT_ONLY_COUNTED(pr.cnt, dup_nid);
}

static void
test_no_primary(void **state)
{
	uint8_t b[32];
	struct prop pr = { 0 };

	(void)state;
	memcpy(b, k_reply_one, sizeof(b));
	b[12] = 1; /* 0@lo only */
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_ENOPRIMARY);
	ASSERT_ONLY_COUNTED(pr.cnt, no_primary);
}

/* The kernel drops a push without MULTI_RAIL; a REPLY without it says non-MR. */
static void
test_push_not_mr(void **state)
{
	uint8_t b[sizeof(k_push_two)];
	struct prop pr = { 0 };

	(void)state;
	memcpy(b, k_push_two, sizeof(b));
	b[4] &= (uint8_t)~LNET_PING_FEAT_MULTI_RAIL;
	assert_int_equal(propose(&pr, LNET_MERGE_PUSH, b, sizeof(b)), LNET_MERGE_ENOTMR);
	assert_int_equal(pr.p.nnids, 0);
	ASSERT_ONLY_COUNTED(pr.cnt, not_mr);
	memset(&pr.cnt, 0, sizeof(pr.cnt));
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, sizeof(b)), LNET_MERGE_OK);
	assert_false(pr.p.multi_rail);
	ASSERT_ONLY_COUNTED(pr.cnt, accepted);
}

/* PRIMARY_LARGE: the first large NID is the primary, wherever the nid4 ones are. */
static void
test_large_primary(void **state)
{
	struct lnet_ping_entry nis[2] = {
		{ .nid = { .nid_size = 12,
			   .nid_type = LNET_LND_SOCK,
			   .nid_addr = { 0x20010db8U, 0, 0, 1 } },
		  .status = LNET_NI_STATUS_UP },
		{ .nid = lnp_tcp_nid(A12), .status = LNET_NI_STATUS_UP },
	};
	struct lnet_ping_src src = { LNET_PING_FEAT_MULTI_RAIL | LNET_PING_FEAT_DISCOVERY, 12345, 7,
				     nis, 2 };
	uint8_t b[128];
	struct prop pr = { 0 };
	size_t n;

	(void)state;
	assert_int_equal(lnet_ping_info_encode(&src, b, sizeof(b), &n), 0);
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, n), LNET_MERGE_OK);
	assert_true(lnet_nid_same(&pr.p.primary, &nis[0].nid));
	assert_int_equal(pr.p.nnids, 2);
	assert_int_equal(pr.p.seqno, 7);
}

static void
test_any_nid_refused(void **state)
{
	struct lnet_ping_entry nis[1] = { { .nid = lnp_tcp_nid(A12) } };
	struct lnet_ping_src src = { LNET_PING_FEAT_MULTI_RAIL, 12345, 1, nis, 1 };
	uint8_t b[64];
	struct prop pr = { 0 };
	size_t n;

	(void)state;
	assert_int_equal(lnet_ping_info_encode(&src, b, sizeof(b), &n), 0);
	memset(b + 32, 0xff, 8); /* LNET_NID_ANY */
	assert_int_equal(propose(&pr, LNET_MERGE_PING_REPLY, b, n), LNET_MERGE_ENID);
	ASSERT_ONLY_COUNTED(pr.cnt, bad_nid);
}

static void
test_strerror(void **state)
{
	(void)state;
	assert_string_equal(lnet_merge_strerror(LNET_MERGE_EDUP), "a NID is listed twice");
	assert_string_equal(lnet_merge_strerror(LNET_MERGE_EMAX), "unknown");
}

/* ---- plans against a fake table ---- */

#define TPEERS 4
#define TNIDS 4

struct tpeer {
	lnet_merge_peer_id id;       /* 0: unused */
	struct lnet_nid nids[TNIDS]; /* nids[0] the primary */
	unsigned int n;
	bool configured;
	bool locked;
	uint64_t lock_ts;
};

struct table {
	struct tpeer peers[TPEERS];
};

static bool
table_lookup(void *arg, const struct lnet_nid *nid, struct lnet_merge_owner *out)
{
	struct table *t = arg;
	unsigned int i;
	unsigned int j;

	for (i = 0; i < TPEERS; i++) {
		for (j = 0; t->peers[i].id != 0 && j < t->peers[i].n; j++) {
			if (lnet_nid_same(&t->peers[i].nids[j], nid)) {
				*out = (struct lnet_merge_owner){
					.peer = t->peers[i].id,
					.is_primary = j == 0,
					.peer_configured = t->peers[i].configured,
					.peer_lock_primary = t->peers[i].locked,
					.peer_lock_ts = t->peers[i].lock_ts,
					.peer_nnids = t->peers[i].n,
				};
				return true;
			}
		}
	}
	return false;
}

static struct tpeer *
table_add(struct table *t, lnet_merge_peer_id id, uint32_t a0, uint32_t a1)
{
	struct tpeer *p = &t->peers[id - 1];

	p->id = id;
	p->nids[p->n++] = lnp_tcp_nid(a0);
	if (a1 != 0) {
		p->nids[p->n++] = lnp_tcp_nid(a1);
	}
	return p;
}

static struct lnet_merge_peer
view(const struct tpeer *p)
{
	return (struct lnet_merge_peer){
		.id = p->id,
		.primary = p->nids[0],
		.want_primary = LNET_ANY_NID,
		.configured = p->configured,
		.lock_primary = p->locked,
		.lock_ts = p->lock_ts,
		.nnids = p->n,
		.nids = p->nids,
	};
}

struct planned {
	struct lnet_merge_op ops[2 * CAP];
	struct lnet_merge_plan plan;
	struct lnet_merge_counters cnt;
};

static int
plan_for(struct planned *pl, const struct prop *pr, const struct lnet_merge_peer *peer,
	 struct table *t)
{
	pl->plan.ops = pl->ops;
	pl->plan.cap = 2 * CAP;
	return lnet_merge_plan(&pr->p, peer, table_lookup, t, &pl->plan, &pl->cnt);
}

static void
assert_op(const struct planned *pl, unsigned int i, enum lnet_merge_op_type type, uint32_t addr)
{
	assert_true(i < pl->plan.nops);
	assert_int_equal(pl->ops[i].type, type);
	assert_nid(&pl->ops[i].nid, addr);
}

static void
proposal_of(struct prop *pr, const void *buf, size_t len)
{
	assert_int_equal(propose(pr, LNET_MERGE_PING_REPLY, buf, len), LNET_MERGE_OK);
}

/* s3_01: a peer first met on one rail learns its second. */
static void
test_plan_first_contact_adds_rail(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer v = view(table_add(&t, 1, A12, 0));
	struct lnet_merge_counters zero = { 0 };

	(void)state;
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_int_equal(pl.plan.action, LNET_MERGE_APPLY);
	assert_int_equal(pl.plan.nops, 2);
	assert_op(&pl, 0, LNET_MERGE_OP_UPDATE, A12);
	assert_int_equal(pl.ops[0].status, LNET_NI_STATUS_UP);
	assert_op(&pl, 1, LNET_MERGE_OP_ADD, B12);
	assert_nid(&pl.plan.primary, A12);
	assert_false(pl.plan.primary_changes);
	assert_true(pl.plan.multi_rail);
	assert_memory_equal(&pl.cnt, &zero, sizeof(zero));
}

/* s1_05: the peer's second NI was deleted, its NID goes. */
static void
test_plan_removes_gone_nid(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer v = view(table_add(&t, 1, A11, B11));

	(void)state;
	proposal_of(&pr, k_reply_after_del, sizeof(k_reply_after_del));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_int_equal(pl.plan.nops, 2);
	assert_op(&pl, 0, LNET_MERGE_OP_UPDATE, A11);
	assert_op(&pl, 1, LNET_MERGE_OP_REMOVE, B11);
}

/* Met on its second rail: the data's primary becomes the peer's. */
static void
test_plan_primary_changes(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer v = view(table_add(&t, 1, B12, 0));

	(void)state;
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_int_equal(pl.plan.action, LNET_MERGE_APPLY);
	assert_nid(&pl.plan.primary, A12);
	assert_true(pl.plan.primary_changes);
	assert_int_equal(pl.plan.nops, 2);
	assert_op(&pl, 0, LNET_MERGE_OP_ADD, A12);
	assert_op(&pl, 1, LNET_MERGE_OP_UPDATE, B12);
}

/*
 * Seed 000 case 11: two peers made by traffic on two NIDs of one node. The
 * one on the second rail hands the data to the one owning the primary,
 * which takes the other peer's NID (and deletes that peer).
 */
static void
test_plan_two_peers_merge(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer second = view(table_add(&t, 1, B12, 0));
	struct lnet_merge_peer first = view(table_add(&t, 2, A12, 0));

	(void)state;
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	assert_int_equal(plan_for(&pl, &pr, &second, &t), 0);
	assert_int_equal(pl.plan.action, LNET_MERGE_HANDOFF);
	assert_int_equal(pl.plan.handoff, 2);
	assert_int_equal(pl.plan.nops, 0);

	first.handed_off = true;
	assert_int_equal(plan_for(&pl, &pr, &first, &t), 0);
	assert_int_equal(pl.plan.action, LNET_MERGE_APPLY);
	assert_int_equal(pl.plan.nops, 2);
	assert_op(&pl, 0, LNET_MERGE_OP_UPDATE, A12);
	assert_op(&pl, 1, LNET_MERGE_OP_TAKE_PEER, B12);
	assert_int_equal(pl.ops[1].from, 1);
	assert_nid(&pl.plan.primary, A12);
}

/*
 * Handed to a peer that has the data's primary as a second NID: merged as
 * it stands (the kernel's set_primary_data), its own primary kept until
 * its next discovery.
 */
static void
test_plan_handed_off_keeps_primary(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer first = view(table_add(&t, 1, B12, 0));
	struct lnet_merge_peer owner = view(table_add(&t, 2, C13, A12));

	(void)state;
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	assert_int_equal(plan_for(&pl, &pr, &first, &t), 0);
	assert_int_equal(pl.plan.action, LNET_MERGE_HANDOFF);
	assert_int_equal(pl.plan.handoff, 2);
	owner.handed_off = true;
	assert_int_equal(plan_for(&pl, &pr, &owner, &t), 0);
	assert_int_equal(pl.plan.action, LNET_MERGE_APPLY);
	assert_nid(&pl.plan.primary, C13);
	assert_false(pl.plan.primary_changes);
	assert_int_equal(pl.plan.nops, 3);
	assert_op(&pl, 0, LNET_MERGE_OP_UPDATE, A12);
	assert_op(&pl, 1, LNET_MERGE_OP_TAKE_PEER, B12);
	assert_op(&pl, 2, LNET_MERGE_OP_KEEP, C13);
}

/* A NID another peer has but not as its primary moves over. */
static void
test_plan_moves_non_primary(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer v = view(table_add(&t, 1, A12, 0));

	(void)state;
	table_add(&t, 2, C13, B12);
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_op(&pl, 1, LNET_MERGE_OP_MOVE, B12);
	assert_int_equal(pl.ops[1].from, 2);
}

/* Discovery does not change a configured peer: it says where it differs. */
static void
test_plan_configured_peer_unchanged(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct tpeer *p = table_add(&t, 1, B12, C13);
	struct lnet_merge_peer v;

	(void)state;
	p->configured = true;
	v = view(p);
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_int_equal(pl.plan.action, LNET_MERGE_APPLY);
	assert_nid(&pl.plan.primary, B12);
	assert_false(pl.plan.primary_changes);
	assert_false(pl.plan.multi_rail);
	assert_int_equal(pl.plan.nops, 3);
	assert_op(&pl, 0, LNET_MERGE_OP_REFUSE, A12);
	assert_int_equal(pl.ops[0].why, LNET_MERGE_REFUSE_CONFIGURED_PEER);
	assert_op(&pl, 1, LNET_MERGE_OP_UPDATE, B12);
	assert_op(&pl, 2, LNET_MERGE_OP_KEEP, C13);
	assert_int_equal(pl.cnt.configured_differs, 2);
}

/* Data naming a NID of a configured peer: refused (-EEXIST), counted. */
static void
test_plan_claim_of_configured_refused(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer v = view(table_add(&t, 1, A12, 0));

	(void)state;
	table_add(&t, 2, B12, C13)->configured = true;
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_op(&pl, 1, LNET_MERGE_OP_REFUSE, B12);
	assert_int_equal(pl.ops[1].why, LNET_MERGE_REFUSE_CONFIGURED_NI);
	assert_int_equal(pl.ops[1].from, 2);
	assert_int_equal(pl.cnt.claimed_configured, 1);
}

/* Another peer's locked primary: kept there if it has other NIDs (BAD_CONFIG). */
static void
test_plan_claim_of_locked_primary(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer v = view(table_add(&t, 1, A12, 0));
	struct tpeer *o = table_add(&t, 2, B12, C13);

	(void)state;
	o->locked = true;
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_op(&pl, 1, LNET_MERGE_OP_REFUSE, B12);
	assert_int_equal(pl.ops[1].why, LNET_MERGE_REFUSE_LOCKED_PRIMARY);
	assert_true(pl.plan.bad_config);
	assert_int_equal(pl.cnt.claimed_locked, 1);

	/* its only NID: taken with its peer, and the older lock passes on */
	o->n = 1;
	o->lock_ts = 5;
	memset(&pl, 0, sizeof(pl));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_op(&pl, 1, LNET_MERGE_OP_TAKE_PEER, B12);
	assert_true(pl.plan.lock_primary);
	assert_int_equal(pl.plan.lock_ts, 5);
	assert_nid(&pl.plan.primary, B12);
	assert_true(pl.plan.primary_changes);
}

/* This peer's locked primary stays primary, even when the data names another. */
static void
test_plan_own_locked_primary_stays(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct tpeer *p = table_add(&t, 1, C13, 0);
	struct lnet_merge_peer v;

	(void)state;
	p->locked = true;
	v = view(p);
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_nid(&pl.plan.primary, C13);
	assert_false(pl.plan.primary_changes);
	assert_int_equal(pl.plan.nops, 3);
	assert_op(&pl, 0, LNET_MERGE_OP_ADD, A12);
	assert_op(&pl, 1, LNET_MERGE_OP_ADD, B12);
	assert_op(&pl, 2, LNET_MERGE_OP_KEEP, C13);
}

/* Discovery off (here or there): NIDs are neither added nor removed. */
static void
test_plan_discovery_off_status_only(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer v = view(table_add(&t, 1, A12, C13));
	uint8_t b[sizeof(k_reply_two)];

	(void)state;
	v.local_discovery_off = true;
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_int_equal(pl.plan.action, LNET_MERGE_STATUS_ONLY);
	assert_int_equal(pl.plan.nops, 1);
	assert_op(&pl, 0, LNET_MERGE_OP_UPDATE, A12);

	/* s2_01: the peer's data without DISCOVERY */
	v.local_discovery_off = false;
	memcpy(b, k_reply_two, sizeof(b));
	b[4] &= (uint8_t)~LNET_PING_FEAT_DISCOVERY;
	proposal_of(&pr, b, sizeof(b));
	memset(&pl, 0, sizeof(pl));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_int_equal(pl.plan.action, LNET_MERGE_STATUS_ONLY);
	assert_int_equal(pl.plan.nops, 1);
}

/* A non-MR peer gets one NID per net (-ENOTUNIQ). */
static void
test_plan_non_mr_one_nid_per_net(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer v = view(table_add(&t, 1, A12, 0));
	uint8_t b[sizeof(k_reply_two)];

	(void)state;
	memcpy(b, k_reply_two, sizeof(b));
	b[4] &= (uint8_t)~LNET_PING_FEAT_MULTI_RAIL;
	proposal_of(&pr, b, sizeof(b));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_false(pl.plan.multi_rail);
	assert_op(&pl, 1, LNET_MERGE_OP_REFUSE, B12);
	assert_int_equal(pl.ops[1].why, LNET_MERGE_REFUSE_NON_MR_NET);
	assert_int_equal(pl.cnt.non_mr_net, 1);

	/* a Multi-Rail peer stays one: non-MR data adds nothing */
	v.multi_rail = true;
	memset(&pl, 0, sizeof(pl));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_true(pl.plan.multi_rail);
	assert_int_equal(pl.ops[1].why, LNET_MERGE_REFUSE_NOT_MR);
	assert_int_equal(pl.cnt.not_mr_peer, 1);
}

static struct lnet_nid
tcp1(uint32_t addr)
{
	struct lnet_nid nid;

	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(LNET_LND_SOCK, 1), addr), &nid);
	return nid;
}

/*
 * A non-MR peer's NID on tcp1 replaced by another one: the one going does
 * not block its net (the kernel adds before it deletes and needs a second
 * round for this).
 */
static void
test_plan_non_mr_net_freed_by_removal(void **state)
{
	struct lnet_ping_entry nis[2] = {
		{ .nid = lnp_tcp_nid(A12), .status = LNET_NI_STATUS_UP },
		{ .nid = tcp1(B12), .status = LNET_NI_STATUS_UP },
	};
	struct lnet_ping_src src = { LNET_PING_FEAT_DISCOVERY, 12345, 4, nis, 2 };
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct tpeer *p = table_add(&t, 1, A12, 0);
	struct lnet_merge_peer v;
	uint8_t b[64];
	size_t n;

	(void)state;
	p->nids[p->n++] = tcp1(C13);
	v = view(p);
	assert_int_equal(lnet_ping_info_encode(&src, b, sizeof(b), &n), 0);
	proposal_of(&pr, b, n);
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_int_equal(pl.plan.nops, 3);
	assert_op(&pl, 0, LNET_MERGE_OP_UPDATE, A12);
	assert_int_equal(pl.ops[1].type, LNET_MERGE_OP_ADD);
	assert_true(lnet_nid_same(&pl.ops[1].nid, &nis[1].nid));
	assert_int_equal(pl.ops[2].type, LNET_MERGE_OP_REMOVE);
	assert_int_equal(pl.cnt.non_mr_net, 0);
}

/* The peer of this node (primary 0@lo) takes the data's primary. */
static void
test_plan_self_peer(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct tpeer *p = table_add(&t, 1, A11, 0);
	struct lnet_merge_peer v;

	(void)state;
	lnet_nid_set_lo0(&p->nids[0]);
	v = view(p);
	proposal_of(&pr, k_push_two, sizeof(k_push_two));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_nid(&pl.plan.primary, A11);
	assert_op(&pl, 0, LNET_MERGE_OP_ADD, A11);
	assert_op(&pl, 1, LNET_MERGE_OP_ADD, B11);
	assert_int_equal(pl.plan.nops, 2); /* 0@lo never removed */
}

/* `discover` asked for a primary the peer has: it is the primary then. */
static void
test_plan_want_primary(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer v = view(table_add(&t, 1, B12, A12));

	(void)state;
	v.want_primary = lnp_tcp_nid(A12);
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	assert_int_equal(plan_for(&pl, &pr, &v, &t), 0);
	assert_nid(&pl.plan.primary, A12);
	assert_true(pl.plan.primary_changes);
	assert_int_equal(pl.plan.nops, 2);
	assert_op(&pl, 0, LNET_MERGE_OP_UPDATE, A12);
	assert_op(&pl, 1, LNET_MERGE_OP_UPDATE, B12);
}

/* Too little room for the ops: -ENOSPC, nothing counted. */
static void
test_plan_no_room(void **state)
{
	struct table t = { 0 };
	struct prop pr = { 0 };
	struct planned pl = { 0 };
	struct lnet_merge_peer v = view(table_add(&t, 1, A12, 0));
	struct lnet_merge_counters zero = { 0 };

	(void)state;
	table_add(&t, 2, B12, C13)->configured = true;
	proposal_of(&pr, k_reply_two, sizeof(k_reply_two));
	pl.plan.ops = pl.ops;
	pl.plan.cap = 1;
	assert_int_equal(lnet_merge_plan(&pr.p, &v, table_lookup, &t, &pl.plan, &pl.cnt), -ENOSPC);
	assert_memory_equal(&pl.cnt, &zero, sizeof(zero));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_reply_one_nid),
		cmocka_unit_test(test_kernel_reply_two_rails),
		cmocka_unit_test(test_kernel_push_two_rails),
		cmocka_unit_test(test_truncated_reply_says_size),
		cmocka_unit_test(test_truncated_push),
		cmocka_unit_test(test_push_shorter_than_declared),
		cmocka_unit_test(test_short_data),
		cmocka_unit_test(test_bad_magic),
		cmocka_unit_test(test_bad_features),
		cmocka_unit_test(test_unknown_features_pass),
		cmocka_unit_test(test_impossible_counts),
		cmocka_unit_test(test_impossible_declared_size),
		cmocka_unit_test(test_lo_rules),
		cmocka_unit_test(test_repeated_nid),
		cmocka_unit_test(test_repeated_nid_across_sections),
		cmocka_unit_test(test_no_primary),
		cmocka_unit_test(test_push_not_mr),
		cmocka_unit_test(test_large_primary),
		cmocka_unit_test(test_any_nid_refused),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_plan_first_contact_adds_rail),
		cmocka_unit_test(test_plan_removes_gone_nid),
		cmocka_unit_test(test_plan_primary_changes),
		cmocka_unit_test(test_plan_two_peers_merge),
		cmocka_unit_test(test_plan_handed_off_keeps_primary),
		cmocka_unit_test(test_plan_moves_non_primary),
		cmocka_unit_test(test_plan_configured_peer_unchanged),
		cmocka_unit_test(test_plan_claim_of_configured_refused),
		cmocka_unit_test(test_plan_claim_of_locked_primary),
		cmocka_unit_test(test_plan_own_locked_primary_stays),
		cmocka_unit_test(test_plan_discovery_off_status_only),
		cmocka_unit_test(test_plan_non_mr_one_nid_per_net),
		cmocka_unit_test(test_plan_non_mr_net_freed_by_removal),
		cmocka_unit_test(test_plan_self_peer),
		cmocka_unit_test(test_plan_want_primary),
		cmocka_unit_test(test_plan_no_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
