/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnet_select.c: every send case of lnet-facts §7.1 and every rule of
 * §7.2-7.4 in the kernel's order, each rule shown beating the next one;
 * round robin checked for exact alternation with the counters stamped as
 * the wiring will; non-MR stickiness; responses on the arrival NI; 0@lo.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lnet_select.h"
#include "lnet_select_pick.h"
#include "lnp_test_nid.h"

/* Local: tcp 10.0.0.1 (A) and 10.0.1.1 (B); tcp1 10.1.0.1 (C).
 * Peer:  tcp 10.0.0.2 (X) and 10.0.1.2 (Y); tcp1 10.1.0.2 (Z). */
#define NA 0x0a000001U
#define NB 0x0a000101U
#define NC 0x0a010001U
#define PX 0x0a000002U
#define PY 0x0a000102U
#define PZ 0x0a010002U
#define TCP LNET_MKNET(LNET_LND_SOCK, 0)
#define TCP1 LNET_MKNET(LNET_LND_SOCK, 1)
#define TCP9 LNET_MKNET(LNET_LND_SOCK, 9)

enum { A, B, C };
enum { X, Y, Z };

static struct lnet_nid
nid_on(uint32_t net, uint32_t addr)
{
	struct lnet_nid nid;

	lnet_nid4_to_nid(LNET_MKNID(net, addr), &nid);
	return nid;
}

struct world {
	struct lnet_sel_net nets[2];
	struct lnet_sel_ni nis[3];
	struct lnet_sel_net pnets[2];
	struct lnet_sel_peer_ni pnis[3];
	struct lnet_nid pref[3];
	uint16_t dist[4]; /* two CPTs: 10 near, 20 far */
	struct lnet_sel_local local;
	struct lnet_sel_peer peer;
	struct lnet_sel_msg msg;
	struct lnet_sel_result res;
};

static void
ni_init(struct lnet_sel_ni *ni, struct lnet_nid nid)
{
	*ni = (struct lnet_sel_ni){ .nid = nid,
				    .health = LNET_SEL_MAX_HEALTH,
				    .sel_prio = LNET_SEL_PRIO_NONE,
				    .dev_cpt = 0,
				    .tx_credits = 8 };
}

static void
pni_init(struct lnet_sel_peer_ni *p, struct lnet_nid nid)
{
	*p = (struct lnet_sel_peer_ni){ .nid = nid,
					.health = LNET_SEL_MAX_HEALTH,
					.sel_prio = LNET_SEL_PRIO_NONE,
					.tx_credits = 8 };
}

/* Both sides with all NIs; the peer Multi-Rail; message SRC_ANY to X. */
static void
world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	ni_init(&w->nis[A], nid_on(TCP, NA));
	ni_init(&w->nis[B], nid_on(TCP, NB));
	ni_init(&w->nis[C], nid_on(TCP1, NC));
	w->nets[0] = (struct lnet_sel_net){ TCP, LNET_SEL_MAX_HEALTH, LNET_SEL_PRIO_NONE, 0, 0, 2 };
	w->nets[1] =
		(struct lnet_sel_net){ TCP1, LNET_SEL_MAX_HEALTH, LNET_SEL_PRIO_NONE, 0, 2, 1 };
	pni_init(&w->pnis[X], nid_on(TCP, PX));
	pni_init(&w->pnis[Y], nid_on(TCP, PY));
	pni_init(&w->pnis[Z], nid_on(TCP1, PZ));
	w->pnets[0] =
		(struct lnet_sel_net){ TCP, LNET_SEL_MAX_HEALTH, LNET_SEL_PRIO_NONE, 0, 0, 2 };
	w->pnets[1] =
		(struct lnet_sel_net){ TCP1, LNET_SEL_MAX_HEALTH, LNET_SEL_PRIO_NONE, 0, 2, 1 };
	w->dist[0] = 10;
	w->dist[1] = 20;
	w->dist[2] = 20;
	w->dist[3] = 10;
	w->local = (struct lnet_sel_local){ .nets = w->nets,
					    .nis = w->nis,
					    .nr_nets = 2,
					    .nr_nis = 3,
					    .dist = w->dist,
					    .ncpts = 2,
					    .dist_far = 30,
					    .numa_range = 0 };
	w->peer = (struct lnet_sel_peer){
		.nets = w->pnets, .nis = w->pnis, .nr_nets = 2, .nr_nis = 3, .multi_rail = true
	};
	w->msg = (struct lnet_sel_msg){ .src = LNET_ANY_NID, .dst = w->pnis[X].nid, .md_cpt = 0 };
}

/* Only net tcp on both sides (A, B and X, Y). */
static void
world_one_net(struct world *w)
{
	world_init(w);
	w->local.nr_nets = 1;
	w->local.nr_nis = 2;
	w->peer.nr_nets = 1;
	w->peer.nr_nis = 2;
}

static int
sel(struct world *w)
{
	return lnet_select(&w->local, &w->peer, &w->msg, &w->res);
}

/* Select and expect success from local NI @ni to peer NI @pni. */
static void
expect_path(struct world *w, int ni, int pni)
{
	assert_int_equal(sel(w), 0);
	assert_int_equal(w->res.ni, ni);
	assert_int_equal(w->res.peer_ni, pni);
}

/*
 * The kernel's round-robin counters (lnet_handle_send): the peer's send_seq
 * and the node's net_seq, copied into the chosen path's seqs; written back
 * into the views. The wiring orders the same way with TSC stamps.
 */
struct seqs {
	uint32_t net[2], ni[3], pnet[2], pni[3];
	uint32_t node_net_seq, peer_send_seq;
};

static void
seqs_init(struct seqs *q)
{
	memset(q, 0, sizeof(*q));
}

static void
seqs_stamp(struct seqs *q, const struct lnet_sel_result *res)
{
	if (!res->stamp_seq)
		return;
	q->peer_send_seq++;
	q->pnet[res->peer_net] = q->peer_send_seq;
	q->pni[res->peer_ni] = q->peer_send_seq;
	q->node_net_seq++;
	q->net[res->net] = q->node_net_seq;
	q->ni[res->ni] = q->node_net_seq;
}

static void
seqs_apply(struct seqs *q, struct world *w)
{
	seqs_stamp(q, &w->res);
	for (int i = 0; i < 2; i++) {
		w->nets[i].seq = q->net[i];
		w->pnets[i].seq = q->pnet[i];
	}
	for (int i = 0; i < 3; i++) {
		w->nis[i].seq = q->ni[i];
		w->pnis[i].seq = q->pni[i];
	}
}

/* What the management lcore does with record_pref. */
static void
pref_apply(struct world *w)
{
	if (!w->res.record_pref)
		return;
	w->pref[w->res.peer_ni] = w->nis[w->res.ni].nid;
	w->pnis[w->res.peer_ni].pref_nids = &w->pref[w->res.peer_ni];
	w->pnis[w->res.peer_ni].nr_pref_nids = 1;
}

/* ---- §7.1 send cases ---- */

static void
test_lo0_is_loopback(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	lnet_nid_set_lo0(&w.msg.dst);
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.send_case, LNET_SEL_LOOPBACK);
	assert_int_equal(w.res.ni, -1);
	assert_int_equal(w.res.peer_ni, -1);
	assert_false(w.res.stamp_seq);
	assert_false(w.res.record_pref);
}

static void
test_spec_local_mr_uses_src_and_exact_dst(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	/* B and Y would win the selection; the source and NID given rule. */
	w.nis[B].tx_credits = 100;
	w.pnis[Y].tx_credits = 100;
	w.msg.src = w.nis[A].nid;
	expect_path(&w, A, X);
	assert_int_equal(w.res.send_case, LNET_SEL_SRC_SPEC | LNET_SEL_LOCAL_DST | LNET_SEL_MR_DST);
	assert_int_equal(w.res.net, 0);
	assert_int_equal(w.res.peer_net, 0);
	assert_true(w.res.stamp_seq);
	assert_false(w.res.record_pref);
}

static void
test_spec_local_nmr_records_pref(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.peer.multi_rail = false;
	w.msg.src = w.nis[B].nid;
	expect_path(&w, B, X);
	assert_int_equal(w.res.send_case,
			 LNET_SEL_SRC_SPEC | LNET_SEL_LOCAL_DST | LNET_SEL_NMR_DST);
	assert_true(w.res.record_pref);
	/* Once recorded, not again. */
	pref_apply(&w);
	expect_path(&w, B, X);
	assert_false(w.res.record_pref);
}

static void
test_spec_src_not_local_is_einval(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.msg.src = nid_on(TCP, 0x0a0000ffU);
	assert_int_equal(sel(&w), -EINVAL);
	assert_false(w.res.stamp_seq);
	assert_int_equal(w.res.ni, -1);
	/* Checked before the route: a foreign source on another net too. */
	w.msg.src = nid_on(TCP9, 0x0a0000ffU);
	assert_int_equal(sel(&w), -EINVAL);
}

static void
test_spec_remote_is_unreachable(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	/* Source on tcp1, destination X on tcp: the kernel routes this. */
	w.msg.src = w.nis[C].nid;
	assert_int_equal(sel(&w), -EHOSTUNREACH);
	assert_int_equal(w.res.send_case,
			 LNET_SEL_SRC_SPEC | LNET_SEL_REMOTE_DST | LNET_SEL_MR_DST);
}

static void
test_any_remote_nmr_is_unreachable(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.peer.multi_rail = false;
	w.pnis[X].nid = nid_on(TCP9, PX);
	w.msg.dst = w.pnis[X].nid;
	assert_int_equal(sel(&w), -EHOSTUNREACH);
	assert_int_equal(w.res.send_case,
			 LNET_SEL_SRC_ANY | LNET_SEL_REMOTE_DST | LNET_SEL_NMR_DST);
}

static void
test_any_remote_mr_goes_local_when_it_can(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	/* The NID given is on tcp9 (not ours) but the peer is also on tcp1. */
	w.pnets[0].net_id = TCP9;
	w.pnis[X].nid = nid_on(TCP9, PX);
	w.pnis[Y].nid = nid_on(TCP9, PY);
	w.msg.dst = w.pnis[X].nid;
	expect_path(&w, C, Z);
	assert_int_equal(w.res.send_case, LNET_SEL_SRC_ANY | LNET_SEL_LOCAL_DST | LNET_SEL_MR_DST);
	/* Without tcp1 on the peer there is no local way: a route is needed. */
	w.peer.nr_nets = 1;
	w.peer.nr_nis = 2;
	assert_int_equal(sel(&w), -EHOSTUNREACH);
}

static void
test_any_local_mr_full_selection(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.nis[B].tx_credits = 9;
	w.pnis[Y].tx_credits = 9;
	/* Destination X, yet the best pair is B -> Y. */
	expect_path(&w, B, Y);
	assert_int_equal(w.res.send_case, LNET_SEL_SRC_ANY | LNET_SEL_LOCAL_DST | LNET_SEL_MR_DST);
	assert_false(w.res.record_pref);
}

static void
test_recovery_ping_is_nmr(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.pnis[Y].tx_credits = 100;
	w.msg.recovery = true;
	/* The peer NI being recovered, not the better Y. */
	expect_path(&w, A, X);
	assert_true(w.res.send_case & LNET_SEL_NMR_DST);
	/* The peer is MR: nothing to make sticky. */
	assert_false(w.res.record_pref);
}

static void
test_dst_missing_from_view_is_efault(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.peer.multi_rail = false;
	w.msg.dst = nid_on(TCP, 0x0a0000eeU);
	assert_int_equal(sel(&w), -EFAULT);
	w.msg.src = w.nis[A].nid;
	assert_int_equal(sel(&w), -EFAULT);
}

/* ---- non-MR stickiness ---- */

static void
test_nmr_always_same_ni(void **state)
{
	struct world w;
	struct seqs q;
	int first;

	(void)state;
	world_one_net(&w);
	seqs_init(&q);
	w.peer.multi_rail = false;
	expect_path(&w, A, X);
	assert_true(w.res.record_pref);
	first = w.res.ni;
	pref_apply(&w);
	seqs_apply(&q, &w);
	for (int i = 0; i < 200; i++) {
		/* B gets better and better: it must not matter. */
		w.nis[B].tx_credits = 8 + i;
		expect_path(&w, first, X);
		assert_false(w.res.record_pref);
		seqs_apply(&q, &w);
	}
}

static void
test_nmr_sticky_per_peer_net(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.peer.multi_rail = false;
	/* Y was first sent to from B: X, on the same peer net, uses B too. */
	w.pref[Y] = w.nis[B].nid;
	w.pnis[Y].pref_nids = &w.pref[Y];
	w.pnis[Y].nr_pref_nids = 1;
	expect_path(&w, B, X);
	assert_true(w.res.record_pref);
}

static void
test_nmr_reserved_portal_not_sticky(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.peer.multi_rail = false;
	w.pref[X] = w.nis[A].nid;
	w.pnis[X].pref_nids = &w.pref[X];
	w.pnis[X].nr_pref_nids = 1;
	w.nis[B].tx_credits = 9;
	w.msg.reserved = true;
	expect_path(&w, B, X);
	w.msg.reserved = false;
	expect_path(&w, A, X);
}

static void
test_nmr_sticky_ni_gone_reselects(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.peer.multi_rail = false;
	w.pref[X] = nid_on(TCP, 0x0a000009U); /* an NI deleted since */
	w.pnis[X].pref_nids = &w.pref[X];
	w.pnis[X].nr_pref_nids = 1;
	w.nis[B].tx_credits = 9;
	expect_path(&w, B, X);
	/* The kernel keeps the old preference: nothing recorded. */
	assert_false(w.res.record_pref);
}

static void
test_nmr_no_local_net_unreachable(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.peer.multi_rail = false;
	w.local.nr_nets = 1; /* tcp1 gone locally */
	w.local.nr_nis = 2;
	w.msg.src = LNET_ANY_NID;
	w.msg.dst = w.pnis[Z].nid;
	assert_int_equal(sel(&w), -EHOSTUNREACH);
}

/* ---- responses ---- */

static void
test_response_leaves_on_arrival_ni(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.nis[A].tx_credits = 100;
	w.pnis[X].tx_credits = 100;
	/* The request came from Y to B: the ACK goes back B -> Y. */
	w.msg.response = true;
	w.msg.src = w.nis[B].nid;
	w.msg.dst = w.pnis[Y].nid;
	expect_path(&w, B, Y);
	assert_true(w.res.send_case & LNET_SEL_RESP);
	/* And to a non-MR peer it records nothing. */
	w.peer.multi_rail = false;
	expect_path(&w, B, Y);
	assert_false(w.res.record_pref);
}

static void
test_response_any_src_goes_to_exact_nid(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.msg.response = true;
	w.msg.dst = w.pnis[Y].nid;
	w.pnis[X].tx_credits = 100;
	w.nis[B].tx_credits = 9;
	w.nets[1].seq = 0;
	w.nets[0].seq = 5; /* the MR net choice would not matter either */
	expect_path(&w, B, Y);
	assert_int_equal(w.res.send_case,
			 LNET_SEL_SRC_ANY | LNET_SEL_LOCAL_DST | LNET_SEL_MR_DST | LNET_SEL_RESP);
	/* A response to a NID on a net we do not have needs a route. */
	w.pnis[Y].nid = nid_on(TCP9, PY);
	w.msg.dst = w.pnis[Y].nid;
	assert_int_equal(sel(&w), -EHOSTUNREACH);
}

/* ---- §7.3 best local NI, rule by rule ---- */

static void
test_ni_round_robin_alternates(void **state)
{
	struct world w;
	struct seqs q;
	unsigned int count[2] = { 0, 0 };

	(void)state;
	world_one_net(&w);
	seqs_init(&q);
	for (int i = 0; i < 1000; i++) {
		/* Both NIs and both peer NIs in turn: A->X, B->Y, A->X... */
		expect_path(&w, i % 2 == 0 ? A : B, i % 2 == 0 ? X : Y);
		count[w.res.ni]++;
		seqs_apply(&q, &w);
	}
	assert_int_equal(count[A], 500);
	assert_int_equal(count[B], 500);
	assert_int_equal(q.node_net_seq, 1000);
	assert_int_equal(q.peer_send_seq, 1000);
}

static void
test_ni_credits_beat_round_robin(void **state)
{
	struct world w;
	struct seqs q;

	(void)state;
	world_one_net(&w);
	seqs_init(&q);
	w.nis[B].tx_credits = 9;
	for (int i = 0; i < 10; i++) {
		assert_int_equal(sel(&w), 0);
		assert_int_equal(w.res.ni, B);
		seqs_apply(&q, &w);
	}
	/* Negative credits compare as numbers: -1 beats -3. */
	w.nis[A].tx_credits = -1;
	w.nis[B].tx_credits = -3;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.ni, A);
}

static void
test_ni_numa_beats_credits(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.nis[A].dev_cpt = 1; /* 20 from the MD on CPT 0 */
	w.nis[A].tx_credits = 100;
	w.nis[B].dev_cpt = 0; /* 10 */
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.ni, B);
	/* From CPT 1 it is the other way round. */
	w.msg.md_cpt = 1;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.ni, A);
	/* An unknown device CPT is far (30) from everything. */
	w.msg.md_cpt = 0;
	w.nis[B].dev_cpt = -1;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.ni, A);
}

static void
test_ni_numa_range(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.nis[A].dev_cpt = 1;
	w.nis[A].tx_credits = 100;
	/* Range 15: 10 counts as 15, 20 stays 20: B still nearer. */
	w.local.numa_range = 15;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.ni, B);
	/* Range 20: 10 counts as 20, equal to A's: credits decide. */
	w.local.numa_range = 20;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.ni, A);
	/* No distance table: all equal. */
	w.local.numa_range = 0;
	w.local.dist = NULL;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.ni, A);
}

static void
test_ni_prio_beats_numa(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.nis[A].dev_cpt = 1;
	w.nis[A].sel_prio = 1;
	w.nis[B].sel_prio = 2;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.ni, A);
}

static void
test_ni_health_beats_prio_and_credits(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.nis[A].health = 900;
	w.nis[A].tx_credits = 100;
	w.nis[A].sel_prio = 0;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.ni, B);
}

static void
test_ni_fatal_beats_health(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.nis[A].fatal = true;
	w.nis[B].health = 100;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.ni, B);
}

/* ---- §7.4 best peer NI, rule by rule ---- */

static void
test_peer_ni_credits_beat_round_robin(void **state)
{
	struct world w;
	struct seqs q;

	(void)state;
	world_one_net(&w);
	seqs_init(&q);
	w.pnis[Y].tx_credits = 9;
	for (int i = 0; i < 10; i++) {
		assert_int_equal(sel(&w), 0);
		assert_int_equal(w.res.peer_ni, Y);
		seqs_apply(&q, &w);
	}
	w.pnis[X].tx_credits = -2;
	w.pnis[Y].tx_credits = -5;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.peer_ni, X);
}

static void
test_peer_ni_preferred_beats_credits(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.pnis[X].tx_credits = 100;
	/* Y prefers A (UDSP), A is the NI chosen: Y wins. */
	w.pref[Y] = w.nis[A].nid;
	w.pnis[Y].pref_nids = &w.pref[Y];
	w.pnis[Y].nr_pref_nids = 1;
	expect_path(&w, A, Y);
	/* Y prefers B, but A is chosen: credits decide. */
	w.pref[Y] = w.nis[B].nid;
	w.nis[B].seq = 1;
	expect_path(&w, A, X);
}

static void
test_peer_ni_prio_beats_preferred(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.pref[Y] = w.nis[A].nid;
	w.pnis[Y].pref_nids = &w.pref[Y];
	w.pnis[Y].nr_pref_nids = 1;
	w.pnis[X].sel_prio = 1;
	expect_path(&w, A, X);
}

static void
test_peer_ni_health_beats_prio(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.pnis[X].sel_prio = 1;
	w.pnis[X].tx_credits = 100;
	w.pnis[Y].health = LNET_SEL_MAX_HEALTH;
	w.pnis[X].health = 999;
	expect_path(&w, A, Y);
}

/* ---- §7.2 best local net, rule by rule ---- */

static void
test_net_round_robin(void **state)
{
	struct world w;
	struct seqs q;
	int nets[6];

	(void)state;
	world_init(&w);
	seqs_init(&q);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(sel(&w), 0);
		nets[i] = w.res.net;
		seqs_apply(&q, &w);
	}
	/* tcp, tcp1, tcp, tcp1...: the peer net used longest ago goes first. */
	for (int i = 0; i < 6; i++)
		assert_int_equal(nets[i], i % 2);
}

static void
test_net_local_seq_breaks_peer_seq_tie(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.nets[0].seq = 7;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.net, 1);
	/* The peer net seq is looked at first. */
	w.pnets[1].seq = 1;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.net, 0);
}

static void
test_net_local_prio_beats_seq(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.pnets[0].seq = 3;
	w.nets[0].sel_prio = 1;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.net, 0);
}

static void
test_net_local_health_beats_local_prio(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.nets[0].sel_prio = 1;
	w.nets[0].health = 500;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.net, 1);
	assert_int_equal(w.res.ni, C);
	assert_int_equal(w.res.peer_ni, Z);
}

static void
test_net_peer_prio_beats_local_health(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.nets[1].health = 500;
	w.pnets[1].sel_prio = 1;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.net, 1);
}

static void
test_net_peer_health_beats_peer_prio(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.pnets[1].sel_prio = 1;
	w.pnets[1].health = 900;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.net, 0);
}

static void
test_net_not_local_skipped(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	/* tcp (first, otherwise equal) is not ours: tcp1 it is. */
	w.nets[0].net_id = TCP9;
	assert_int_equal(sel(&w), 0);
	assert_int_equal(w.res.net, 1);
	assert_int_equal(w.res.peer_ni, Z);
}

/* ---- the rules as tuples, against random views ---- */

#define RN 4 /* nets per side */
#define RI 4 /* NIs per net */

struct rworld {
	struct lnet_sel_net nets[RN];
	struct lnet_sel_ni nis[RN * RI];
	struct lnet_sel_net pnets[RN];
	struct lnet_sel_peer_ni pnis[RN * RI];
	struct lnet_nid pref;
	uint16_t dist[4];
	struct lnet_sel_local local;
	struct lnet_sel_peer peer;
};

static uint32_t
rnd(uint32_t *s, uint32_t n)
{
	*s = *s * 1103515245U + 12345U;
	return (*s >> 16) % n;
}

/* Local nets tcp0,2,4,6, the peer's tcp0,3,6,9 or tcp1,4,7,10 (some only
 * on one side); values from small ranges so that ties are frequent and
 * every rule gets to decide. */
static void
rworld_fill(struct rworld *w, uint32_t *s)
{
	static const uint32_t prios[] = { LNET_SEL_PRIO_NONE, 1, 2 };
	unsigned int n_ni = 0, n_pni = 0, shift = rnd(s, 2);

	memset(w, 0, sizeof(*w));
	w->local.nr_nets = (uint16_t)(1 + rnd(s, RN));
	w->peer.nr_nets = (uint16_t)(1 + rnd(s, RN));
	for (unsigned int i = 0; i < w->local.nr_nets; i++) {
		unsigned int k = 1 + rnd(s, RI);

		w->nets[i] = (struct lnet_sel_net){ LNET_MKNET(LNET_LND_SOCK, i * 2),
						    1000 - 100 * rnd(s, 2),
						    prios[rnd(s, 3)],
						    rnd(s, 3),
						    (uint16_t)n_ni,
						    (uint16_t)k };
		for (unsigned int j = 0; j < k; j++, n_ni++) {
			ni_init(&w->nis[n_ni], nid_on(w->nets[i].net_id, 1 + n_ni));
			w->nis[n_ni].health = 1000 - 100 * (int)rnd(s, 2);
			w->nis[n_ni].sel_prio = prios[rnd(s, 3)];
			w->nis[n_ni].dev_cpt = (int)rnd(s, 3) - 1;
			w->nis[n_ni].tx_credits = (int)rnd(s, 4) - 2;
			w->nis[n_ni].seq = rnd(s, 3);
			w->nis[n_ni].fatal = rnd(s, 6) == 0;
		}
	}
	for (unsigned int i = 0; i < w->peer.nr_nets; i++) {
		unsigned int k = 1 + rnd(s, RI);

		w->pnets[i] = (struct lnet_sel_net){ LNET_MKNET(LNET_LND_SOCK, i * 3 + shift),
						     1000 - 100 * rnd(s, 2),
						     prios[rnd(s, 3)],
						     rnd(s, 3),
						     (uint16_t)n_pni,
						     (uint16_t)k };
		for (unsigned int j = 0; j < k; j++, n_pni++) {
			pni_init(&w->pnis[n_pni], nid_on(w->pnets[i].net_id, 100 + n_pni));
			w->pnis[n_pni].health = 1000 - 100 * (int)rnd(s, 2);
			w->pnis[n_pni].sel_prio = prios[rnd(s, 3)];
			w->pnis[n_pni].tx_credits = (int)rnd(s, 4) - 2;
			w->pnis[n_pni].seq = rnd(s, 3);
		}
	}
	/* A UDSP preference for local NI 0 now and then. */
	w->pref = w->nis[0].nid;
	for (unsigned int i = 0; i < n_pni; i++) {
		if (rnd(s, 4) == 0) {
			w->pnis[i].pref_nids = &w->pref;
			w->pnis[i].nr_pref_nids = 1;
		}
	}
	w->dist[0] = 10;
	w->dist[1] = 20;
	w->dist[2] = 20;
	w->dist[3] = 10;
	w->local.nets = w->nets;
	w->local.nis = w->nis;
	w->local.nr_nis = (uint16_t)n_ni;
	w->local.dist = w->dist;
	w->local.ncpts = 2;
	w->local.dist_far = 30;
	w->local.numa_range = 5 * rnd(s, 5);
	w->peer.nets = w->pnets;
	w->peer.nis = w->pnis;
	w->peer.nr_nis = (uint16_t)n_pni;
	w->peer.multi_rail = true;
	/* As lnet_send_mr.c marks its views: a net whose NIs share a device CPT skips distance. */
	lnet_sel_nets_mark_same_dist(w->nets, w->local.nr_nets, w->nis);
}

/* Lexicographic: negative when key a ranks first. Lower is better. */
static int
key_cmp(const int64_t *a, const int64_t *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	}
	return 0;
}

static int
rlocal_net(const struct rworld *w, uint32_t net_id)
{
	for (int i = 0; i < w->local.nr_nets; i++) {
		if (w->nets[i].net_id == net_id)
			return i;
	}
	return -1;
}

static void
net_key(const struct rworld *w, int pn, int64_t k[6])
{
	const struct lnet_sel_net *n = &w->nets[rlocal_net(w, w->pnets[pn].net_id)];

	k[0] = -w->pnets[pn].health;
	k[1] = w->pnets[pn].sel_prio;
	k[2] = -n->health;
	k[3] = n->sel_prio;
	k[4] = w->pnets[pn].seq;
	k[5] = n->seq;
}

static void
ni_key(const struct rworld *w, int i, int md_cpt, int64_t k[6])
{
	const struct lnet_sel_ni *ni = &w->nis[i];
	int64_t d = ni->dev_cpt < 0 ? 30 : w->dist[md_cpt * 2 + ni->dev_cpt];

	k[0] = ni->fatal;
	k[1] = -ni->health;
	k[2] = ni->sel_prio;
	k[3] = d < w->local.numa_range ? w->local.numa_range : d;
	k[4] = -ni->tx_credits;
	k[5] = ni->seq;
}

static void
pni_key(const struct rworld *w, int i, const struct lnet_nid *local, int64_t k[5])
{
	const struct lnet_sel_peer_ni *p = &w->pnis[i];

	k[0] = -p->health;
	k[1] = p->sel_prio;
	k[2] = !(p->nr_pref_nids == 1 && lnet_nid_same(&p->pref_nids[0], local));
	k[3] = -p->tx_credits;
	k[4] = p->seq;
}

/* Key of element @i in @ctx's terms: at most 6 values, lower ranks first. */
typedef void (*key_fn)(const void *ctx, int i, int64_t *k);

/* The first (by index) of the minimal keys in [first, first + n). */
static int
first_best(int first, int n, key_fn key, unsigned int len, const void *ctx)
{
	int64_t kb[6], kc[6];
	int best = first;

	key(ctx, first, kb);
	for (int i = first + 1; i < first + n; i++) {
		key(ctx, i, kc);
		if (key_cmp(kc, kb, len) < 0) {
			best = i;
			memcpy(kb, kc, sizeof(kb));
		}
	}
	return best;
}

static void
ni_key_cpt0(const void *ctx, int i, int64_t *k)
{
	ni_key(ctx, i, 0, k);
}

struct pni_ctx {
	const struct rworld *w;
	const struct lnet_nid *local;
};

static void
pni_key_from(const void *ctx, int i, int64_t *k)
{
	const struct pni_ctx *c = ctx;

	pni_key(c->w, i, c->local, k);
}

/* The expected path, rule tuples in the kernel's order; -1 if none. */
static void
rworld_expect(const struct rworld *w, int *ni, int *pni)
{
	int64_t kb[6], kc[6];
	int best = -1;

	*ni = *pni = -1;
	for (int i = 0; i < w->peer.nr_nets; i++) {
		if (rlocal_net(w, w->pnets[i].net_id) < 0)
			continue;
		net_key(w, i, kc);
		if (best < 0 || key_cmp(kc, kb, 6) < 0) {
			best = i;
			memcpy(kb, kc, sizeof(kb));
		}
	}
	if (best < 0)
		return;
	const struct lnet_sel_net *n = &w->nets[rlocal_net(w, w->pnets[best].net_id)];

	*ni = first_best(n->first_ni, n->nr_nis, ni_key_cpt0, 6, w);
	struct pni_ctx pc = { w, &w->nis[*ni].nid };

	*pni = first_best(w->pnets[best].first_ni, w->pnets[best].nr_nis, pni_key_from, 5, &pc);
}

static void
test_random_views_follow_the_rule_tuples(void **state)
{
	uint32_t seed = 13;
	unsigned int found = 0;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		struct rworld w;
		struct lnet_sel_msg m;
		struct lnet_sel_result res;
		int ni, pni, rc;

		rworld_fill(&w, &seed);
		m = (struct lnet_sel_msg){ .src = LNET_ANY_NID, .dst = w.pnis[0].nid, .md_cpt = 0 };
		rc = lnet_select(&w.local, &w.peer, &m, &res);
		rworld_expect(&w, &ni, &pni);
		if (ni < 0) {
			assert_int_equal(rc, -EHOSTUNREACH);
			continue;
		}
		found++;
		assert_int_equal(rc, 0);
		assert_int_equal(res.ni, ni);
		assert_int_equal(res.peer_ni, pni);
		assert_int_equal(w.nets[res.net].net_id, w.pnets[res.peer_net].net_id);
		assert_true(res.ni >= w.nets[res.net].first_ni &&
			    res.ni < w.nets[res.net].first_ni + w.nets[res.net].nr_nis);
		assert_true(res.peer_ni >= w.pnets[res.peer_net].first_ni &&
			    res.peer_ni <
				    w.pnets[res.peer_net].first_ni + w.pnets[res.peer_net].nr_nis);
	}
	/* Both outcomes were exercised. */
	assert_true(found > 2000 && found < 19000);
}

/*
 * A plan (lnet_sel_plan_make) gives the same path as the whole selection
 * for every message it covers: random views, Multi-Rail (UDSP preferred
 * NIDs, one or two) or not (sticky NIDs ours or not), reserved or not,
 * either MD CPT.
 */
static void
test_random_views_plan_agrees(void **state)
{
	unsigned int kinds[3] = { 0, 0, 0 };
	unsigned int agreed = 0;
	uint32_t seed = 29;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		struct rworld w;
		struct lnet_sel_plan plan;
		struct lnet_sel_result want, got;
		struct lnet_sel_msg m;
		struct lnet_nid stranger = nid_on(TCP9, 77);
		struct lnet_nid prefs[RN * RI][2];
		int rc_want, rc_got;

		rworld_fill(&w, &seed);
		w.peer.multi_rail = rnd(&seed, 2) == 0;
		for (unsigned int i = 0; w.peer.multi_rail && i < w.peer.nr_nis; i++) {
			if (rnd(&seed, 2) == 0) { /* UDSP: one or two preferred local NIDs */
				prefs[i][0] = w.nis[rnd(&seed, w.local.nr_nis)].nid;
				prefs[i][1] = w.nis[rnd(&seed, w.local.nr_nis)].nid;
				w.pnis[i].pref_nids = prefs[i];
				w.pnis[i].nr_pref_nids = (uint16_t)(1 + rnd(&seed, 2));
			}
		}
		for (unsigned int i = 0; !w.peer.multi_rail && i < w.peer.nr_nis; i++) {
			if (rnd(&seed, 3) ==
			    0) { /* sticky: one of ours, or a NID we no longer have */
				w.pnis[i].pref_nids =
					rnd(&seed, 4) == 0 ? &stranger :
							     &w.nis[rnd(&seed, w.local.nr_nis)].nid;
				w.pnis[i].nr_pref_nids = 1;
			}
		}
		m = (struct lnet_sel_msg){ .src = LNET_ANY_NID,
					   .dst = w.pnis[rnd(&seed, w.peer.nr_nis)].nid,
					   .md_cpt = (int)rnd(&seed, 2),
					   .reserved = rnd(&seed, 3) == 0,
					   .routing = rnd(&seed, 4) == 0 };
		lnet_sel_plan_make(&w.local, &w.peer, &m.dst, &plan);
		kinds[plan.kind]++;
		if (plan.kind == LNET_SEL_PLAN_NONE)
			continue;
		rc_want = lnet_select_routed(&w.local, &w.peer, NULL, &m, &want);
		rc_got = lnet_select_planned(&w.local, &w.peer, &plan, m.md_cpt, m.reserved, &got);
		assert_int_equal(rc_got, rc_want);
		if (rc_want != 0)
			continue;
		agreed++;
		assert_int_equal(got.send_case, want.send_case);
		assert_int_equal(got.net, want.net);
		assert_int_equal(got.ni, want.ni);
		assert_int_equal(got.peer_net, want.peer_net);
		assert_int_equal(got.peer_ni, want.peer_ni);
		assert_int_equal(got.stamp_seq, want.stamp_seq);
		assert_int_equal(got.record_pref, want.record_pref);
		assert_int_equal(got.route, want.route);
		assert_int_equal(got.gw_ni, want.gw_ni);
	}
	/* Every kind of plan, and views with none, were seen; most plans chose a path. */
	assert_true(kinds[LNET_SEL_PLAN_NONE] > 1000);
	assert_true(kinds[LNET_SEL_PLAN_MR] > 1000);
	assert_true(kinds[LNET_SEL_PLAN_NMR] > 1000);
	assert_true(agreed > (kinds[LNET_SEL_PLAN_MR] + kinds[LNET_SEL_PLAN_NMR]) / 2);
}

/* The state of the moment kept apart from the views, as the data path reads it from its NIs. */
struct live_state {
	struct lnet_sel_live ni[RN * RI];
	struct lnet_sel_live pni[RN * RI];
};

static void
live_ni(const void *ctx, unsigned int i, struct lnet_sel_live *out)
{
	*out = ((const struct live_state *)ctx)->ni[i];
}

static void
live_pni(const void *ctx, unsigned int i, struct lnet_sel_live *out)
{
	*out = ((const struct live_state *)ctx)->pni[i];
}

/*
 * A Multi-Rail plan's pick in one pass (lnet_sel_plan_mr_pick, as
 * lnet_send_mr.c runs it) reads health, credits, turns and avoidance only
 * through its readers: over views whose copies of them are stale (other
 * values, every NI marked avoided), it chooses what lnet_select_planned()
 * chooses over views refreshed with the readers' values.
 */
static void
test_plan_pick_reads_through_readers(void **state)
{
	unsigned int picked = 0;
	uint32_t seed = 31;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		struct rworld fresh, stale;
		struct live_state live;
		struct lnet_sel_plan plan;
		struct lnet_sel_result want, got;
		struct lnet_nid prefs[RN * RI];
		int md_cpt, rc_want, rc_got;

		rworld_fill(&fresh, &seed);
		fresh.peer.multi_rail = true;
		for (unsigned int i = 0; i < fresh.peer.nr_nis; i++) {
			if (rnd(&seed, 2) == 0) { /* UDSP: a preferred local NID */
				prefs[i] = fresh.nis[rnd(&seed, fresh.local.nr_nis)].nid;
				fresh.pnis[i].pref_nids = &prefs[i];
				fresh.pnis[i].nr_pref_nids = 1;
			}
		}
		lnet_sel_plan_make(&fresh.local, &fresh.peer, &fresh.pnis[0].nid, &plan);
		if (plan.kind != LNET_SEL_PLAN_MR)
			continue;
		stale = fresh;
		stale.local.nets = stale.nets;
		stale.local.nis = stale.nis;
		stale.local.dist = fresh.local.dist != NULL ? stale.dist : NULL;
		stale.peer.nets = stale.pnets;
		stale.peer.nis = stale.pnis;
		for (unsigned int i = 0; i < fresh.local.nr_nis; i++) {
			live.ni[i] = (struct lnet_sel_live){ fresh.nis[i].health,
							     fresh.nis[i].tx_credits,
							     fresh.nis[i].seq, false };
			stale.nis[i].health = (int)rnd(&seed, 1001);
			stale.nis[i].tx_credits = (int)rnd(&seed, 9) - 4;
			stale.nis[i].seq = rnd(&seed, 5);
			stale.nis[i].avoid = true;
		}
		for (unsigned int i = 0; i < fresh.peer.nr_nis; i++) {
			live.pni[i] = (struct lnet_sel_live){ fresh.pnis[i].health,
							      fresh.pnis[i].tx_credits,
							      fresh.pnis[i].seq, false };
			stale.pnis[i].health = (int)rnd(&seed, 1001);
			stale.pnis[i].tx_credits = (int)rnd(&seed, 9) - 4;
			stale.pnis[i].seq = rnd(&seed, 5);
			stale.pnis[i].avoid = true;
		}
		md_cpt = (int)rnd(&seed, 2);
		rc_want =
			lnet_select_planned(&fresh.local, &fresh.peer, &plan, md_cpt, false, &want);
		rc_got = lnet_sel_plan_mr_pick(&stale.local, &stale.peer, &plan, md_cpt, live_ni,
					       &live, live_pni, &live, &got);
		assert_int_equal(rc_got, rc_want);
		if (rc_want != 0)
			continue;
		picked++;
		assert_int_equal(got.send_case, want.send_case);
		assert_int_equal(got.net, want.net);
		assert_int_equal(got.ni, want.ni);
		assert_int_equal(got.peer_net, want.peer_net);
		assert_int_equal(got.peer_ni, want.peer_ni);
		assert_int_equal(got.stamp_seq, want.stamp_seq);
		assert_int_equal(got.record_pref, want.record_pref);
	}
	assert_true(picked > 1000);
}

static void
test_case_str(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(lnet_sel_case_str(LNET_SEL_LOOPBACK, buf, sizeof(buf)), "LOOPBACK");
	assert_string_equal(lnet_sel_case_str(LNET_SEL_SRC_ANY | LNET_SEL_LOCAL_DST |
						      LNET_SEL_MR_DST,
					      buf, sizeof(buf)),
			    "SRC_ANY LOCAL MR");
	assert_string_equal(lnet_sel_case_str(LNET_SEL_SRC_SPEC | LNET_SEL_REMOTE_DST |
						      LNET_SEL_NMR_DST | LNET_SEL_RESP,
					      buf, sizeof(buf)),
			    "SRC_SPEC REMOTE NMR RESP");
}

/* ---- seed 004: health-aware selection, case by case ---------------------- */

/* Peer NI @p pni keeps local NI @p ni (the kernel's lpni_pref of a non-MR peer). */
static void
sticky(struct world *w, int pni, int ni)
{
	w->pref[pni] = w->nis[ni].nid;
	w->pnis[pni].pref_nids = &w->pref[pni];
	w->pnis[pni].nr_pref_nids = 1;
}

/* A1C: source given, MR peer: a source NI that is down fails; a resend avoids the failed NID. */
static void
test_a1c_health(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.msg.src = w.nis[A].nid;
	w.nis[A].fatal = true;
	assert_int_equal(sel(&w), -ENETDOWN);
	w.nis[A].fatal = false;
	expect_path(&w, A, X); /* the exact NID otherwise */
	w.msg.resend = true;
	w.pnis[X].avoid = true;
	expect_path(&w, A, Y); /* the resend takes the peer's other NID */
	w.pnis[Y].avoid = true;
	expect_path(&w, A, X); /* nothing else left: the exact NID again */
}

/* A1D: source given, non-MR peer: only one path, so a resend fails. */
static void
test_a1d_resend_fails(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.peer.multi_rail = false;
	w.msg.src = w.nis[B].nid;
	expect_path(&w, B, X);
	w.msg.resend = true;
	assert_int_equal(sel(&w), -EHOSTUNREACH);
	w.nis[B].fatal = true;
	w.msg.resend = false;
	assert_int_equal(sel(&w), -ENETDOWN);
}

/* B1C: no source, MR peer: healthiest NI and peer NI; a resend's failed path loses to any other. */
static void
test_b1c_health_and_avoid(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.nis[A].seq = 1; /* A and X would win the round robin */
	w.nis[B].seq = 2;
	w.pnis[X].seq = 1;
	w.pnis[Y].seq = 2;
	expect_path(&w, A, X);
	w.nis[A].health = 900;
	w.pnis[X].health = 900;
	expect_path(&w, B, Y); /* health first */
	w.nis[A].health = LNET_SEL_MAX_HEALTH;
	w.pnis[X].health = LNET_SEL_MAX_HEALTH;
	w.msg.resend = true;
	w.nis[A].avoid = true;
	w.pnis[X].avoid = true;
	expect_path(&w, B, Y); /* not the path that failed */
	w.nis[B].health = 100;
	w.pnis[Y].health = 100;
	expect_path(&w, B, Y); /* even a sick other path beats the failed one */
	w.nis[B].fatal = true;
	expect_path(&w, A, Y); /* but a fatal NI loses to the failed one */
}

/* B1D: no source, non-MR peer: the resend fails if the peer NI is unhealthy, else avoids the NI. */
static void
test_b1d_resend(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.peer.multi_rail = false;
	w.nis[A].seq = 1;
	w.nis[B].seq = 2;
	expect_path(&w, A, X);
	w.msg.resend = true;
	w.nis[A].avoid = true;
	expect_path(&w, B, X);
	w.pnis[X].health = 900;
	assert_int_equal(sel(&w), -EHOSTUNREACH);
	w.msg.resend = false;
	expect_path(&w, B, X); /* a first send goes to it however unhealthy */
}

/* B1D with a sticky NI: a resend does not go back to the sticky NI that failed it. */
static void
test_b1d_sticky_ni_avoided(void **state)
{
	struct world w;

	(void)state;
	world_one_net(&w);
	w.peer.multi_rail = false;
	sticky(&w, X, A);
	expect_path(&w, A, X);
	w.msg.resend = true;
	w.nis[A].avoid = true;
	expect_path(&w, B, X);
	assert_false(w.res.record_pref); /* the peer keeps its preferred NI */
}

/* ---- routes (§7.5; seed 004 A2C, A2D, B2C, B2D) ---- */

#define TCP8 LNET_MKNET(LNET_LND_SOCK, 8)
enum { G1, G2 };

/*
 * The destination is on tcp9 (and tcp8 when Multi-Rail), which we have no
 * NI on. Gateway G1 has NIs on tcp (10.0.0.254) and tcp9, gateway G2 on
 * tcp1 (10.1.0.254) and tcp9; one route to tcp9 through each.
 */
struct gworld {
	struct world w;
	struct lnet_sel_net gnets[2][2];
	struct lnet_sel_peer_ni gnis[2][2];
	struct lnet_sel_peer gw[2];
	struct lnet_sel_route routes[2];
	struct lnet_sel_routes rt;
};

static void
gw_init(struct gworld *r, int g, uint32_t lnet, uint32_t addr)
{
	pni_init(&r->gnis[g][0], nid_on(lnet, addr));
	pni_init(&r->gnis[g][1], nid_on(TCP9, addr));
	r->gnets[g][0] =
		(struct lnet_sel_net){ lnet, LNET_SEL_MAX_HEALTH, LNET_SEL_PRIO_NONE, 0, 0, 1 };
	r->gnets[g][1] =
		(struct lnet_sel_net){ TCP9, LNET_SEL_MAX_HEALTH, LNET_SEL_PRIO_NONE, 0, 1, 1 };
	r->gw[g] = (struct lnet_sel_peer){ .nets = r->gnets[g],
					   .nis = r->gnis[g],
					   .nr_nets = 2,
					   .nr_nis = 2,
					   .multi_rail = true };
	r->routes[g] = (struct lnet_sel_route){ .net = TCP9,
						.hops = LNET_SEL_UNDEFINED_HOPS,
						.alive = true,
						.gw_primary = r->gnis[g][0].nid,
						.gw = &r->gw[g],
						.seq = (uint64_t)g };
}

/* A non-MR destination 10.9.0.2@tcp9, message from any NI. */
static void
gworld_init(struct gworld *r)
{
	memset(r, 0, sizeof(*r));
	world_init(&r->w);
	pni_init(&r->w.pnis[X], nid_on(TCP9, 0x0a090002U));
	r->w.pnets[0] =
		(struct lnet_sel_net){ TCP9, LNET_SEL_MAX_HEALTH, LNET_SEL_PRIO_NONE, 0, 0, 1 };
	r->w.peer.nr_nets = 1;
	r->w.peer.nr_nis = 1;
	r->w.peer.multi_rail = false;
	r->w.msg.dst = r->w.pnis[X].nid;
	gw_init(r, G1, TCP, 0x0a0000feU);
	gw_init(r, G2, TCP1, 0x0a0100feU);
	r->rt = (struct lnet_sel_routes){ .routes = r->routes, .nr_routes = 2 };
}

static int
rsel(struct gworld *r)
{
	return lnet_select_routed(&r->w.local, &r->w.peer, &r->rt, &r->w.msg, &r->w.res);
}

/* Routed through gateway @g's NI @gni, from local NI @ni, the header to peer NI @pni. */
static void
expect_routed(struct gworld *r, int g, int gni, int ni, int pni)
{
	assert_int_equal(rsel(r), 0);
	assert_true(r->w.res.send_case & LNET_SEL_ROUTED);
	assert_int_equal(r->w.res.route, g);
	assert_int_equal(r->w.res.gw_ni, gni);
	assert_int_equal(r->w.res.ni, ni);
	assert_int_equal(r->w.res.peer_ni, pni);
}

static void
test_routed_without_routes_unreachable(void **state)
{
	struct gworld r;

	(void)state;
	gworld_init(&r);
	assert_int_equal(lnet_select_routed(&r.w.local, &r.w.peer, NULL, &r.w.msg, &r.w.res),
			 -EHOSTUNREACH);
	r.w.msg.src = r.w.nis[A].nid;
	assert_int_equal(sel(&r.w), -EHOSTUNREACH);
	r.routes[G1].net = TCP8; /* routes, but not to tcp9 */
	r.routes[G2].net = TCP8;
	assert_int_equal(rsel(&r), -EHOSTUNREACH);
}

/* B2D: the gateway's local net decides the NI; the first local NI becomes sticky. */
static void
test_routed_b2d_priority_then_hops(void **state)
{
	struct gworld r;

	(void)state;
	gworld_init(&r);
	r.routes[G1].priority = 1;
	expect_routed(&r, G2, 0, C, X);
	assert_true(r.w.res.record_pref);
	assert_true(r.w.res.stamp_seq);
	r.routes[G1].priority = 0;
	r.routes[G2].hops = 2; /* unset hops count as 1 */
	expect_routed(&r, G1, 0, A, X);
	r.routes[G1].hops = 3;
	expect_routed(&r, G2, 0, C, X);
}

static void
test_routed_dead_routes_skipped(void **state)
{
	struct gworld r;

	(void)state;
	gworld_init(&r);
	r.routes[G1].priority = 1;
	r.routes[G2].alive = false;
	expect_routed(&r, G1, 0, A, X);
	r.routes[G1].alive = false;
	assert_int_equal(rsel(&r), -EHOSTUNREACH);
	r.routes[G1].alive = true;
	r.routes[G1].gw = NULL; /* a gateway not known yet */
	assert_int_equal(rsel(&r), -EHOSTUNREACH);
}

/* Equal routes: gateway NI health, then fewer bytes queued, then credits, then turns. */
static void
test_routed_gateway_ni_ranking(void **state)
{
	struct gworld r;

	(void)state;
	gworld_init(&r);
	expect_routed(&r, G1, 0, A, X); /* lower seq */
	r.routes[G1].seq = 5;
	expect_routed(&r, G2, 0, C, X);
	r.gnis[G1][0].tx_credits = 9;
	expect_routed(&r, G1, 0, A, X);
	r.gnis[G1][0].txqnob = 4096;
	expect_routed(&r, G2, 0, C, X);
	r.gnis[G2][0].health = 900;
	expect_routed(&r, G1, 0, A, X);
}

/* router_sensitivity 100: a gateway NI below full health takes its routes out. */
static void
test_routed_router_sensitivity(void **state)
{
	struct gworld r;

	(void)state;
	gworld_init(&r);
	r.rt.min_health = LNET_SEL_MAX_HEALTH;
	r.routes[G2].priority = 3;
	r.gnis[G1][0].health = 999;
	expect_routed(&r, G2, 0, C, X);
	r.gnis[G2][0].health = 500;
	assert_int_equal(rsel(&r), -EHOSTUNREACH);
	r.rt.min_health = 500; /* router_sensitivity 50 */
	expect_routed(&r, G1, 0, A, X);
}

/* A UDSP router rule (the destination's preferred gateways) beats priority. */
static void
test_routed_udsp_preferred_gateway(void **state)
{
	struct gworld r;
	struct lnet_nid pref;

	(void)state;
	gworld_init(&r);
	r.routes[G2].priority = 5;
	pref = r.gnis[G2][0].nid;
	r.w.pnis[X].pref_rtrs = &pref;
	r.w.pnis[X].nr_pref_rtrs = 1;
	expect_routed(&r, G2, 0, C, X);
}

/* A2C, A2D: the source NI's net restricts the gateways; none there fails. */
static void
test_routed_spec_src(void **state)
{
	struct gworld r;

	(void)state;
	gworld_init(&r);
	r.routes[G2].priority = 1;
	r.w.msg.src = r.w.nis[C].nid;
	expect_routed(&r, G2, 0, C, X);
	r.w.msg.src = r.w.nis[B].nid;
	expect_routed(&r, G1, 0, B, X);
	r.w.peer.multi_rail = true; /* A2C: the same */
	expect_routed(&r, G1, 0, B, X);
	r.routes[G1].alive = false;
	assert_int_equal(rsel(&r), -EHOSTUNREACH);
	r.routes[G1].alive = true;
	r.w.nis[B].fatal = true;
	assert_int_equal(rsel(&r), -ENETDOWN);
}

/* B2D: a non-MR destination's sticky NI fixes the local net, so the gateway. */
static void
test_routed_b2d_sticky_ni(void **state)
{
	struct gworld r;
	struct lnet_nid sticky;

	(void)state;
	gworld_init(&r);
	r.routes[G1].priority = 1;
	sticky = r.w.nis[B].nid;
	r.w.pnis[X].pref_nids = &sticky;
	r.w.pnis[X].nr_pref_nids = 1;
	expect_routed(&r, G1, 0, B, X);
	assert_false(r.w.res.record_pref);
	r.w.msg.reserved = true; /* LNet's own messages are not sticky */
	expect_routed(&r, G2, 0, C, X);
}

/*
 * B2C: a Multi-Rail destination on tcp9 and tcp8, none of them ours: the
 * peer net with routes, its best peer NI; when the router forwards, the
 * NID given stays.
 */
static void
test_routed_b2c_mr(void **state)
{
	struct gworld r;

	(void)state;
	gworld_init(&r);
	pni_init(&r.w.pnis[Y], nid_on(TCP8, 0x0a080002U));
	r.w.pnets[0] =
		(struct lnet_sel_net){ TCP8, LNET_SEL_MAX_HEALTH, LNET_SEL_PRIO_NONE, 0, 0, 1 };
	r.w.pnets[1] =
		(struct lnet_sel_net){ TCP9, LNET_SEL_MAX_HEALTH, LNET_SEL_PRIO_NONE, 0, 1, 1 };
	r.w.pnis[X] = r.w.pnis[Y];
	pni_init(&r.w.pnis[Y], nid_on(TCP9, 0x0a090002U));
	r.w.peer.nr_nets = 2;
	r.w.peer.nr_nis = 2;
	r.w.peer.multi_rail = true;
	r.w.msg.dst = r.w.pnis[X].nid; /* given on tcp8: only tcp9 has routes */
	expect_routed(&r, G1, 0, A, Y);
	assert_false(r.w.res.record_pref);
	r.w.msg.routing = true; /* forwarding: tcp8 is the NID's net, no route */
	assert_int_equal(rsel(&r), -EHOSTUNREACH);
	r.w.msg.dst = r.w.pnis[Y].nid;
	expect_routed(&r, G1, 0, A, Y);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lo0_is_loopback),
		cmocka_unit_test(test_spec_local_mr_uses_src_and_exact_dst),
		cmocka_unit_test(test_spec_local_nmr_records_pref),
		cmocka_unit_test(test_spec_src_not_local_is_einval),
		cmocka_unit_test(test_spec_remote_is_unreachable),
		cmocka_unit_test(test_any_remote_nmr_is_unreachable),
		cmocka_unit_test(test_any_remote_mr_goes_local_when_it_can),
		cmocka_unit_test(test_any_local_mr_full_selection),
		cmocka_unit_test(test_recovery_ping_is_nmr),
		cmocka_unit_test(test_dst_missing_from_view_is_efault),
		cmocka_unit_test(test_nmr_always_same_ni),
		cmocka_unit_test(test_nmr_sticky_per_peer_net),
		cmocka_unit_test(test_nmr_reserved_portal_not_sticky),
		cmocka_unit_test(test_nmr_sticky_ni_gone_reselects),
		cmocka_unit_test(test_nmr_no_local_net_unreachable),
		cmocka_unit_test(test_response_leaves_on_arrival_ni),
		cmocka_unit_test(test_response_any_src_goes_to_exact_nid),
		cmocka_unit_test(test_ni_round_robin_alternates),
		cmocka_unit_test(test_ni_credits_beat_round_robin),
		cmocka_unit_test(test_ni_numa_beats_credits),
		cmocka_unit_test(test_ni_numa_range),
		cmocka_unit_test(test_ni_prio_beats_numa),
		cmocka_unit_test(test_ni_health_beats_prio_and_credits),
		cmocka_unit_test(test_ni_fatal_beats_health),
		cmocka_unit_test(test_peer_ni_credits_beat_round_robin),
		cmocka_unit_test(test_peer_ni_preferred_beats_credits),
		cmocka_unit_test(test_peer_ni_prio_beats_preferred),
		cmocka_unit_test(test_peer_ni_health_beats_prio),
		cmocka_unit_test(test_net_round_robin),
		cmocka_unit_test(test_net_local_seq_breaks_peer_seq_tie),
		cmocka_unit_test(test_net_local_prio_beats_seq),
		cmocka_unit_test(test_net_local_health_beats_local_prio),
		cmocka_unit_test(test_net_peer_prio_beats_local_health),
		cmocka_unit_test(test_net_peer_health_beats_peer_prio),
		cmocka_unit_test(test_net_not_local_skipped),
		cmocka_unit_test(test_random_views_follow_the_rule_tuples),
		cmocka_unit_test(test_random_views_plan_agrees),
		cmocka_unit_test(test_plan_pick_reads_through_readers),
		cmocka_unit_test(test_case_str),
		cmocka_unit_test(test_a1c_health),
		cmocka_unit_test(test_a1d_resend_fails),
		cmocka_unit_test(test_b1c_health_and_avoid),
		cmocka_unit_test(test_b1d_resend),
		cmocka_unit_test(test_b1d_sticky_ni_avoided),
		cmocka_unit_test(test_routed_without_routes_unreachable),
		cmocka_unit_test(test_routed_b2d_priority_then_hops),
		cmocka_unit_test(test_routed_dead_routes_skipped),
		cmocka_unit_test(test_routed_gateway_ni_ranking),
		cmocka_unit_test(test_routed_udsp_preferred_gateway),
		cmocka_unit_test(test_routed_router_sensitivity),
		cmocka_unit_test(test_routed_spec_src),
		cmocka_unit_test(test_routed_b2d_sticky_ni),
		cmocka_unit_test(test_routed_b2c_mr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
