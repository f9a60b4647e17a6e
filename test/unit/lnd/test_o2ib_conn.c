/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * o2iblnd connection establishment (o2ib-facts §3): the state table cell
 * by cell, each passive check of a CONNREQ in the kernel's order with the
 * reject bytes it sends, the active side's reading of each reject, the
 * CONNACK checks, and whole negotiations: a queue depth lowered by a
 * reject, a v1 peer found through a FATAL, two connects racing, a peer
 * that rebooted.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "o2ib_conn.h"

#define NID_A 0x00050000c0a80101ULL /* 192.168.1.1@o2ib */
#define NID_B 0x00050000c0a80102ULL /* 192.168.1.2@o2ib: the higher nidhash */
#define INC_A 0x0000aaaa00000001ULL
#define INC_B 0x0000bbbb00000001ULL

static const struct o2ib_credit_tunables tun8 = { 256, 8, 4, 8 };
static const struct o2ib_local me_a = { NID_A, INC_A, 8, true };
static const struct o2ib_local me_b = { NID_B, INC_B, 8, true };

/* Every cell of the table: the transitions below, and NONE elsewhere. */
static void
test_fsm_table(void **state)
{
	static const struct {
		int from, ev, to;
	} allowed[] = {
		{ O2IB_CONN_INIT, O2IB_CONN_EV_CONNECT, O2IB_CONN_RESOLVING },
		{ O2IB_CONN_INIT, O2IB_CONN_EV_ACCEPT, O2IB_CONN_PASSIVE_WAIT },
		{ O2IB_CONN_INIT, O2IB_CONN_EV_FAIL, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_INIT, O2IB_CONN_EV_CLOSE, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_RESOLVING, O2IB_CONN_EV_RESOLVED, O2IB_CONN_ACTIVE_CONNECT },
		{ O2IB_CONN_RESOLVING, O2IB_CONN_EV_FAIL, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_RESOLVING, O2IB_CONN_EV_CLOSE, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_ACTIVE_CONNECT, O2IB_CONN_EV_ESTABLISHED, O2IB_CONN_ESTABLISHED },
		{ O2IB_CONN_ACTIVE_CONNECT, O2IB_CONN_EV_REJECTED, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_ACTIVE_CONNECT, O2IB_CONN_EV_FAIL, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_ACTIVE_CONNECT, O2IB_CONN_EV_CLOSE, O2IB_CONN_CLOSING },
		{ O2IB_CONN_ACTIVE_CONNECT, O2IB_CONN_EV_DISCONNECTED, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_PASSIVE_WAIT, O2IB_CONN_EV_ESTABLISHED, O2IB_CONN_ESTABLISHED },
		{ O2IB_CONN_PASSIVE_WAIT, O2IB_CONN_EV_FAIL, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_PASSIVE_WAIT, O2IB_CONN_EV_CLOSE, O2IB_CONN_CLOSING },
		{ O2IB_CONN_PASSIVE_WAIT, O2IB_CONN_EV_DISCONNECTED, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_ESTABLISHED, O2IB_CONN_EV_FAIL, O2IB_CONN_CLOSING },
		{ O2IB_CONN_ESTABLISHED, O2IB_CONN_EV_CLOSE, O2IB_CONN_CLOSING },
		{ O2IB_CONN_ESTABLISHED, O2IB_CONN_EV_DISCONNECTED, O2IB_CONN_CLOSING },
		{ O2IB_CONN_CLOSING, O2IB_CONN_EV_FAIL, O2IB_CONN_CLOSING },
		{ O2IB_CONN_CLOSING, O2IB_CONN_EV_CLOSE, O2IB_CONN_CLOSING },
		{ O2IB_CONN_CLOSING, O2IB_CONN_EV_DISCONNECTED, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_DISCONNECTED, O2IB_CONN_EV_FAIL, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_DISCONNECTED, O2IB_CONN_EV_CLOSE, O2IB_CONN_DISCONNECTED },
		{ O2IB_CONN_DISCONNECTED, O2IB_CONN_EV_DISCONNECTED, O2IB_CONN_DISCONNECTED },
	};

	(void)state;
	for (int s = 0; s < O2IB_CONN_NSTATES; s++) {
		for (int e = 0; e < O2IB_CONN_NEVENTS; e++) {
			int want = RT_FSM_NONE;

			for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
				if (allowed[i].from == s && allowed[i].ev == e) {
					want = allowed[i].to;
				}
			}
			if (rt_fsm_next(&o2ib_conn_fsm, s, e) != want) {
				fail_msg("%s -%s->: %d, want %d",
					 rt_fsm_state_str(&o2ib_conn_fsm, s),
					 rt_fsm_event_str(&o2ib_conn_fsm, e),
					 rt_fsm_next(&o2ib_conn_fsm, s, e), want);
			}
		}
	}
}

static void
test_fsm_step(void **state)
{
	uint64_t counts[O2IB_CONN_NSTATES] = { 0 };
	struct o2ib_conn c = { .counts = counts };

	(void)state;
	assert_int_equal(o2ib_conn_step(&c, O2IB_CONN_EV_CONNECT), 0);
	assert_int_equal(o2ib_conn_step(&c, O2IB_CONN_EV_ESTABLISHED),
			 -EINVAL); /* no CONNREQ yet */
	assert_int_equal(c.state, O2IB_CONN_RESOLVING);
	assert_int_equal(o2ib_conn_step(&c, O2IB_CONN_EV_RESOLVED), 0);
	assert_int_equal(o2ib_conn_step(&c, O2IB_CONN_EV_ESTABLISHED), 0);
	assert_int_equal(c.state, O2IB_CONN_ESTABLISHED);
	assert_int_equal(counts[O2IB_CONN_ESTABLISHED], 1);
	assert_int_equal(counts[O2IB_CONN_RESOLVING], 1);
}

static int
connreq(uint8_t *buf, uint16_t version, uint16_t qd, uint16_t frags, uint32_t size, lnet_nid_t src,
	uint64_t srcstamp, lnet_nid_t dst, uint64_t dststamp)
{
	const struct o2ib_connparams cp = { qd, frags, size };
	const struct o2ib_stamp s = { version, 0, false, src, srcstamp, dst, dststamp };
	int nob = o2ib_msg_connparams(buf, 56, O2IB_MSG_CONNREQ, &cp);

	o2ib_msg_stamp(buf, &s);
	return nob;
}

/* Pack the reject and compare it to the 24 bytes it must be. */
static void
assert_rej_bytes(const struct o2ib_passive *p, uint16_t version, uint8_t why, uint64_t inc,
		 uint16_t qd, uint16_t frags)
{
	uint8_t got[24];
	uint8_t want[24] = { 0x91, 0x1b, 0xe9, 0x0b };

	want[4] = (uint8_t)version;
	want[6] = why;
	memcpy(want + 8, &inc, 8);
	memcpy(want + 16, &qd, 2);
	memcpy(want + 18, &frags, 2);
	want[21] = 0x10; /* max_msg_size 4096 always */
	assert_false(p->accept);
	assert_int_equal(o2ib_rej_pack(got, sizeof(got), &p->rej), 24);
	assert_memory_equal(got, want, 24);
}

static void
test_passive_accept(void **state)
{
	uint8_t buf[56];
	struct o2ib_peer_cm peer;
	struct o2ib_passive out;

	(void)state;
	connreq(buf, 0x12, 8, 257, 4096, NID_A, INC_A, NID_B, 0);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_true(out.accept);
	assert_int_equal(out.version, 0x12);
	assert_int_equal(out.cp.queue_depth, 8);
	assert_int_equal(out.cp.max_frags, 257);
	assert_int_equal(out.cp.max_msg_size, 4096);
	assert_int_equal(peer.version, 0x12);
	assert_true(peer.incarnation == INC_A);
	assert_int_equal(peer.accepting, 1);

	/* v1 is answered in v1; fewer fragments are fine with fast registration */
	connreq(buf, 0x11, 8, 32, 4096, NID_A, INC_A, NID_B, 0);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_true(out.accept);
	assert_int_equal(out.version, 0x11);
	assert_int_equal(out.cp.max_frags, 32);
	/* the right incarnation of mine is fine */
	connreq(buf, 0x12, 4, 257, 4096, NID_A, INC_A, NID_B, INC_B);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_true(out.accept);
	assert_int_equal(out.cp.queue_depth, 4);
}

static void
test_passive_rejects(void **state)
{
	struct o2ib_local no_fastreg = me_b;
	uint8_t buf[56];
	struct o2ib_peer_cm peer;
	struct o2ib_passive out;

	(void)state;
	/* 1. the LNet magic (a probe from a newer protocol): FATAL, v2, nothing more */
	memcpy(buf, (const uint8_t[4]){ 0x63, 0x69, 0x72, 0x45 }, 4);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_FATAL, 0, 0, 0);
	/* 1. an IB magic with version 0x13 */
	connreq(buf, 0x13, 8, 257, 4096, NID_A, INC_A, NID_B, 0);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_FATAL, 0, 0, 0);
	/* 2. too short to unpack */
	connreq(buf, 0x12, 8, 257, 4096, NID_A, INC_A, NID_B, 0);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 5, &peer, false, &out);
	assert_int_equal(out.rc, -O2IB_ESHORT);
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_FATAL, 0, 0, 0);
	/* 3. my NI is still starting: EARLY; not mine: FATAL */
	o2ib_passive_check(&me_b, O2IB_DST_EARLY, buf, 56, &peer, false, &out);
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_EARLY, 0, 0, 0);
	o2ib_passive_check(&me_b, O2IB_DST_WRONG, buf, 56, &peer, false, &out);
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_FATAL, 0, 0, 0);
	o2ib_passive_check(&me_a, O2IB_DST_OK, buf, 56, &peer, false, &out); /* for B, not A */
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_FATAL, 0, 0, 0);
	/* 4. it knew an older me: STALE, with my incarnation and limits */
	connreq(buf, 0x11, 8, 257, 4096, NID_A, INC_A, NID_B, INC_B - 1);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_CONN_STALE, INC_B, 8, 257);
	/* a CONNACK where a CONNREQ belongs: FATAL in the requester's version */
	connreq(buf, 0x11, 8, 257, 4096, NID_A, INC_A, NID_B, 0);
	buf[6] = O2IB_MSG_CONNACK;
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_rej_bytes(&out, 0x11, O2IB_REJECT_FATAL, INC_B, 8, 257);
	/* 5. queue depth 16 > my 8: v2 is told my 8; v1 gets FATAL */
	connreq(buf, 0x12, 16, 257, 4096, NID_A, INC_A, NID_B, 0);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_MSG_QUEUE_SIZE, INC_B, 8, 257);
	connreq(buf, 0x11, 16, 257, 4096, NID_A, INC_A, NID_B, 0);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_rej_bytes(&out, 0x11, O2IB_REJECT_FATAL, INC_B, 8, 257);
	/* 6. 258 fragments; 32 without a registration pool */
	connreq(buf, 0x12, 8, 258, 4096, NID_A, INC_A, NID_B, 0);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_RDMA_FRAGS, INC_B, 8, 257);
	no_fastreg.have_fastreg = false;
	connreq(buf, 0x12, 8, 32, 4096, NID_A, INC_A, NID_B, 0);
	o2ib_passive_check(&no_fastreg, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_RDMA_FRAGS, INC_B, 8, 257);
	/* 7. messages above 4 KiB */
	connreq(buf, 0x12, 8, 257, 8192, NID_A, INC_A, NID_B, 0);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, false, &out);
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_FATAL, INC_B, 8, 257);
}

/* 8. A rebooted: its new incarnation closes what I had, and its retry is let in. */
static void
test_passive_stale_peer(void **state)
{
	uint8_t buf[56];
	struct o2ib_peer_cm peer;
	struct o2ib_passive out;

	(void)state;
	o2ib_peer_cm_init(&peer, 8);
	peer.version = 0x12;
	peer.incarnation = INC_A;
	connreq(buf, 0x12, 8, 257, 4096, NID_A, INC_A + 1, NID_B, 0);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, true, &out);
	assert_true(out.close_stale);
	assert_rej_bytes(&out, 0x12, O2IB_REJECT_CONN_STALE, INC_B, 8, 257);
	assert_true(peer.incarnation == INC_A + 1);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, true, &out);
	assert_true(out.accept);
	assert_false(out.close_stale);
	/* a version change is stale too */
	connreq(buf, 0x11, 8, 257, 4096, NID_A, INC_A + 1, NID_B, 0);
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, true, &out);
	assert_int_equal(out.rej.why, O2IB_REJECT_CONN_STALE);
	assert_int_equal(peer.version, 0x11);
}

/* 9. Races: the higher nidhash keeps its own attempt, 20 times at most. */
static void
test_passive_race(void **state)
{
	uint8_t buf[56];
	struct o2ib_peer_cm peer;
	struct o2ib_passive out;

	(void)state;
	assert_true(o2ib_nid_race_hash(NID_A) < o2ib_nid_race_hash(NID_B));
	o2ib_peer_cm_init(&peer, 8);
	peer.version = 0x12;
	peer.incarnation = INC_A;
	peer.connecting = 1; /* B is connecting to A too */
	connreq(buf, 0x12, 8, 257, 4096, NID_A, INC_A, NID_B, 0);
	for (unsigned int i = 0; i < O2IB_MAX_CONN_RACES; i++) {
		o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, true, &out);
		assert_rej_bytes(&out, 0x12, O2IB_REJECT_CONN_RACE, INC_B, 8, 257);
		assert_int_equal(peer.races, i + 1);
	}
	/* the 21st: B's attempt looks stuck, A's goes through */
	o2ib_passive_check(&me_b, O2IB_DST_OK, buf, 56, &peer, true, &out);
	assert_true(out.accept);
	assert_int_equal(peer.races, 0);
	assert_int_equal(peer.accepting, 1);

	/* at A, B's request wins at once: B's nidhash is the higher */
	o2ib_peer_cm_init(&peer, 8);
	peer.version = 0x12;
	peer.incarnation = INC_B;
	peer.connecting = 1;
	connreq(buf, 0x12, 8, 257, 4096, NID_B, INC_B, NID_A, 0);
	o2ib_passive_check(&me_a, O2IB_DST_OK, buf, 56, &peer, true, &out);
	assert_true(out.accept);
}

static void
rej_bytes(uint8_t *buf, uint16_t version, uint8_t why, uint64_t inc, uint16_t qd, uint16_t frags)
{
	const struct o2ib_rej r = { O2IB_MSG_MAGIC,      version, why, true, inc,
				    { qd, frags, 4096 }, false };

	memset(buf, 0, 148); /* the IB CM REJ's private data */
	o2ib_rej_pack(buf, 148, &r);
}

static void
active_peer(struct o2ib_peer_cm *p)
{
	o2ib_peer_cm_init(p, 16);
	p->connecting = 1;
	p->tx_queued = true;
}

static void
test_active_rejected(void **state)
{
	struct o2ib_conn conn = { .state = O2IB_CONN_ACTIVE_CONNECT,
				  .version = 0x12,
				  .queue_depth = 16,
				  .max_frags = 257 };
	uint8_t priv[148];
	struct o2ib_peer_cm peer;
	struct o2ib_rejected out;

	(void)state;
	/* MSG_QUEUE_SIZE: retry at the peer's 8 */
	active_peer(&peer);
	rej_bytes(priv, 0x12, O2IB_REJECT_MSG_QUEUE_SIZE, INC_B, 8, 257);
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 148, &peer, &out);
	assert_true(out.reconnect);
	assert_int_equal(out.status, -ECONNREFUSED);
	assert_int_equal(peer.queue_depth, 8);
	assert_int_equal(peer.version, 0x12);
	assert_true(peer.incarnation == INC_B);
	assert_int_equal(peer.reconnecting, 1);
	/* ... but not to a depth that is no smaller */
	active_peer(&peer);
	rej_bytes(priv, 0x12, O2IB_REJECT_MSG_QUEUE_SIZE, INC_B, 16, 257);
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 148, &peer, &out);
	assert_false(out.reconnect);
	assert_int_equal(peer.queue_depth, 16);
	/* RDMA_FRAGS: retry with 32 */
	active_peer(&peer);
	rej_bytes(priv, 0x12, O2IB_REJECT_RDMA_FRAGS, INC_B, 8, 32);
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 148, &peer, &out);
	assert_true(out.reconnect);
	assert_int_equal(peer.max_frags, 32);
	/* RACE: retry only while messages wait (or the version changes) */
	active_peer(&peer);
	peer.version = 0x12;
	peer.tx_queued = false;
	rej_bytes(priv, 0x12, O2IB_REJECT_CONN_RACE, INC_B, 8, 257);
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 148, &peer, &out);
	assert_false(out.reconnect);
	assert_int_equal(out.why, O2IB_REJECT_CONN_RACE);
	peer.tx_queued = true;
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 148, &peer, &out);
	assert_true(out.reconnect);
	/* ... and not while its own connection is being accepted */
	peer.accepting = 1;
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 148, &peer, &out);
	assert_false(out.reconnect);
	/* NO_RESOURCES, FATAL and EARLY end the attempt */
	active_peer(&peer);
	rej_bytes(priv, 0x12, O2IB_REJECT_NO_RESOURCES, INC_B, 8, 257);
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 148, &peer, &out);
	assert_false(out.reconnect);
	assert_int_equal(out.why, O2IB_REJECT_NO_RESOURCES);
	rej_bytes(priv, 0x12, O2IB_REJECT_EARLY, INC_B, 8, 257);
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 148, &peer, &out);
	assert_false(out.reconnect);
	/* private data too short for a kib_rej, or a foreign magic */
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 6, &peer, &out);
	assert_false(out.reconnect);
	assert_int_equal(out.why, -1);
	priv[0] = 0;
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 148, &peer, &out);
	assert_int_equal(out.why, -1);
	/* nobody on port 987 */
	o2ib_active_rejected(&conn, O2IB_CM_REJ_INVALID_SERVICE_ID, NULL, 0, &peer, &out);
	assert_false(out.reconnect);
	assert_int_equal(out.status, -EHOSTUNREACH);
	/* the CM's own stale-connection reject: retry in v2 */
	active_peer(&peer);
	o2ib_active_rejected(&conn, O2IB_CM_REJ_STALE_CONN, NULL, 0, &peer, &out);
	assert_true(out.reconnect);
	assert_int_equal(peer.version, 0x12);
	assert_true(peer.incarnation == 0);
}

/* A v2 CONNREQ to a v1 peer: its FATAL is read as UNCOMPAT, and the retry is in v1. */
static void
test_active_v1_peer(void **state)
{
	struct o2ib_conn conn = { .state = O2IB_CONN_ACTIVE_CONNECT,
				  .version = 0x12,
				  .queue_depth = 8,
				  .max_frags = 257 };
	uint8_t priv[148] = { 0x91, 0x1b, 0xe9, 0x0b, 0x11, 0x00, O2IB_REJECT_FATAL };
	struct o2ib_peer_cm peer;
	struct o2ib_rejected out;
	struct o2ib_connreq_args a;

	(void)state;
	active_peer(&peer);
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 148, &peer, &out);
	assert_true(out.reconnect);
	assert_int_equal(out.why, O2IB_REJECT_CONN_UNCOMPAT);
	o2ib_connreq_args(&peer, &a);
	assert_int_equal(a.version, 0x11);
	/* a v1 reject carries no incarnation: the kernel remembers all ones */
	assert_true(a.dststamp == UINT64_MAX);
	/* a FATAL to a v1 attempt is just FATAL */
	conn.version = 0x11;
	active_peer(&peer);
	o2ib_active_rejected(&conn, O2IB_CM_REJ_CONSUMER_DEFINED, priv, 148, &peer, &out);
	assert_false(out.reconnect);
	assert_int_equal(out.why, O2IB_REJECT_FATAL);
}

static int
connack(uint8_t *buf, uint16_t version, uint16_t qd, uint16_t frags, uint32_t size, lnet_nid_t dst,
	uint64_t dststamp)
{
	const struct o2ib_connparams cp = { qd, frags, size };
	const struct o2ib_stamp s = { version, 0, false, NID_B, INC_B, dst, dststamp };
	int nob = o2ib_msg_connparams(buf, 56, O2IB_MSG_CONNACK, &cp);

	o2ib_msg_stamp(buf, &s);
	return nob;
}

static void
test_check_connack(void **state)
{
	const struct o2ib_conn asked = { .state = O2IB_CONN_ACTIVE_CONNECT,
					 .version = 0x12,
					 .queue_depth = 8,
					 .max_frags = 257 };
	struct o2ib_conn conn = asked;
	uint8_t buf[56];

	(void)state;
	connack(buf, 0x12, 8, 257, 4096, NID_A, INC_A);
	assert_int_equal(o2ib_check_connack(&conn, &me_a, buf, 56, &tun8), 0);
	assert_true(conn.peer_incarnation == INC_B);
	assert_int_equal(conn.cr.credits, 8);
	assert_int_equal(conn.cr.reserved, 8);

	/* each check */
	connack(buf, 0x11, 8, 257, 4096, NID_A, INC_A);
	assert_int_equal(o2ib_check_connack(&conn, &me_a, buf, 56, &tun8), -EPROTO);
	connack(buf, 0x12, 9, 257, 4096, NID_A, INC_A);
	assert_int_equal(o2ib_check_connack(&conn, &me_a, buf, 56, &tun8), -EPROTO);
	connack(buf, 0x12, 8, 258, 4096, NID_A, INC_A);
	assert_int_equal(o2ib_check_connack(&conn, &me_a, buf, 56, &tun8), -EPROTO);
	connack(buf, 0x12, 8, 257, 4097, NID_A, INC_A);
	assert_int_equal(o2ib_check_connack(&conn, &me_a, buf, 56, &tun8), -EPROTO);
	connack(buf, 0x12, 8, 257, 4096, NID_A, INC_A);
	buf[6] = O2IB_MSG_CONNREQ;
	assert_int_equal(o2ib_check_connack(&conn, &me_a, buf, 56, &tun8), -EPROTO);
	connack(buf, 0x12, 8, 257, 4096, NID_A, INC_A + 1);
	assert_int_equal(o2ib_check_connack(&conn, &me_a, buf, 56, &tun8), -ESTALE);
	connack(buf, 0x12, 8, 257, 4096, NID_B, INC_A);
	assert_int_equal(o2ib_check_connack(&conn, &me_a, buf, 56, &tun8), -ESTALE);
	/* a smaller answer is taken */
	conn = asked;
	connack(buf, 0x12, 4, 32, 4096, NID_A, INC_A);
	assert_int_equal(o2ib_check_connack(&conn, &me_a, buf, 56, &tun8), 0);
	assert_int_equal(conn.queue_depth, 4);
	assert_int_equal(conn.max_frags, 32);
	assert_int_equal(conn.cr.credits, 4);
	assert_int_equal(conn.cr.hiw, 2);
}

/*
 * A (peer_credits 16) connects to B (8): B rejects with its depth, A
 * retries with 8, B accepts and its CONNACK passes A's checks. Both sides
 * end established at depth 8 with the same credits.
 */
static void
test_negotiate_queue_depth(void **state)
{
	const struct o2ib_local a16 = { NID_A, INC_A, 16, true };
	const struct o2ib_credit_tunables tun16 = { 256, 16, 8, 16 };
	struct o2ib_peer_cm a_peer; /* A's record of B */
	struct o2ib_peer_cm b_peer; /* B's record of A */
	struct o2ib_conn ca = { 0 };
	struct o2ib_conn cb = { 0 };
	struct o2ib_connreq_args args;
	struct o2ib_passive pas;
	struct o2ib_rejected rej;
	uint8_t req[56];
	uint8_t ack[56];
	uint8_t rejb[148] = { 0 };

	(void)state;
	o2ib_peer_cm_init(&a_peer, a16.peer_credits);
	a_peer.connecting = 1;
	a_peer.tx_queued = true;
	for (int attempt = 0; attempt < 2; attempt++) {
		o2ib_connreq_args(&a_peer, &args);
		ca = (struct o2ib_conn){ .version = args.version,
					 .queue_depth = args.cp.queue_depth,
					 .max_frags = args.cp.max_frags };
		assert_int_equal(o2ib_conn_step(&ca, O2IB_CONN_EV_CONNECT), 0);
		assert_int_equal(o2ib_conn_step(&ca, O2IB_CONN_EV_RESOLVED), 0);
		connreq(req, args.version, args.cp.queue_depth, args.cp.max_frags,
			args.cp.max_msg_size, NID_A, INC_A, NID_B, args.dststamp);
		o2ib_passive_check(&me_b, O2IB_DST_OK, req, 56, &b_peer, attempt > 0, &pas);
		if (pas.accept) {
			break;
		}
		assert_int_equal(attempt, 0);
		assert_int_equal(o2ib_rej_pack(rejb, sizeof(rejb), &pas.rej), 24);
		o2ib_active_rejected(&ca, O2IB_CM_REJ_CONSUMER_DEFINED, rejb, sizeof(rejb), &a_peer,
				     &rej);
		assert_true(rej.reconnect);
		assert_int_equal(o2ib_conn_step(&ca, O2IB_CONN_EV_REJECTED), 0);
		o2ib_peer_cm_init(&b_peer, 8); /* B kept no record of a refused request */
		b_peer.version = 0x12;
		b_peer.incarnation = INC_A;
	}
	assert_true(pas.accept);
	assert_int_equal(pas.cp.queue_depth, 8);
	/* B: accept, CONNACK out; A: check it */
	assert_int_equal(o2ib_conn_step(&cb, O2IB_CONN_EV_ACCEPT), 0);
	o2ib_conn_settle(&cb, pas.version, pas.cp.queue_depth, pas.cp.max_frags, pas.req.srcstamp,
			 &tun8);
	assert_int_equal(o2ib_msg_connparams(ack, sizeof(ack), O2IB_MSG_CONNACK, &pas.cp), 56);
	o2ib_msg_stamp(ack, &(struct o2ib_stamp){ pas.version, 0, false, NID_B, INC_B, NID_A,
						  pas.req.srcstamp });
	assert_int_equal(o2ib_check_connack(&ca, &a16, ack, 56, &tun16), 0);
	assert_int_equal(o2ib_conn_step(&ca, O2IB_CONN_EV_ESTABLISHED), 0);
	assert_int_equal(o2ib_conn_step(&cb, O2IB_CONN_EV_ESTABLISHED), 0);
	assert_int_equal(ca.queue_depth, 8);
	assert_int_equal(cb.queue_depth, 8);
	assert_int_equal(ca.cr.credits, cb.cr.credits);
	assert_true(ca.peer_incarnation == INC_B);
	assert_true(cb.peer_incarnation == INC_A);
	/* A's high-water scales 8/16 of its 8 */
	assert_int_equal(ca.cr.hiw, 4);
}

/*
 * Both connect at once. B (higher nidhash) refuses A's request with RACE;
 * A accepts B's, and A's own rejected attempt is not retried because B's
 * is being accepted: one connection results.
 */
static void
test_connect_race_both_sides(void **state)
{
	struct o2ib_peer_cm a_peer;
	struct o2ib_peer_cm b_peer;
	struct o2ib_conn ca = { .state = O2IB_CONN_ACTIVE_CONNECT,
				.version = 0x12,
				.queue_depth = 8,
				.max_frags = 257 };
	struct o2ib_passive at_a;
	struct o2ib_passive at_b;
	struct o2ib_rejected rej;
	uint8_t from_a[56];
	uint8_t from_b[56];
	uint8_t rejb[148] = { 0 };

	(void)state;
	o2ib_peer_cm_init(&a_peer, 8);
	o2ib_peer_cm_init(&b_peer, 8);
	a_peer.connecting = b_peer.connecting = 1;
	a_peer.tx_queued = b_peer.tx_queued = true;
	connreq(from_a, 0x12, 8, 257, 4096, NID_A, INC_A, NID_B, 0);
	connreq(from_b, 0x12, 8, 257, 4096, NID_B, INC_B, NID_A, 0);
	o2ib_passive_check(&me_b, O2IB_DST_OK, from_a, 56, &b_peer, true, &at_b);
	o2ib_passive_check(&me_a, O2IB_DST_OK, from_b, 56, &a_peer, true, &at_a);
	assert_false(at_b.accept);
	assert_int_equal(at_b.rej.why, O2IB_REJECT_CONN_RACE);
	assert_true(at_a.accept);
	o2ib_rej_pack(rejb, sizeof(rejb), &at_b.rej);
	o2ib_active_rejected(&ca, O2IB_CM_REJ_CONSUMER_DEFINED, rejb, sizeof(rejb), &a_peer, &rej);
	assert_false(rej.reconnect);
}

/* Sizes of a connection's QP, and the depth a small device forces. */
static void
test_qp_size(void **state)
{
	struct o2ib_qp_sizes q;

	(void)state;
	/* v2, depth 8, 257 fragments with fast registration: 8 x 260 send WRs */
	o2ib_qp_size(0x12, 8, 257, true, 32768, &q);
	assert_int_equal(q.queue_depth, 8);
	assert_int_equal(q.send_wr, 2080);
	assert_int_equal(q.recv_wr, 18);
	assert_int_equal(q.cqe, 2098);
	/* a device of 16351 WRs holds depth 62 of 260, not 128 */
	o2ib_qp_size(0x12, 128, 257, true, 16351, &q);
	assert_int_equal(q.queue_depth, 62);
	assert_int_equal(q.send_wr, 16351);
	assert_int_equal(q.recv_wr, 126);
	/* v1 has no out-of-band receives; without fast registration 1 + frags */
	o2ib_qp_size(0x11, 8, 32, false, 32768, &q);
	assert_int_equal(q.send_wr, 264);
	assert_int_equal(q.recv_wr, 16);
	/* never below 1 */
	o2ib_qp_size(0x12, 8, 257, true, 100, &q);
	assert_int_equal(q.queue_depth, 1);
	assert_int_equal(q.send_wr, 100);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fsm_table),
		cmocka_unit_test(test_fsm_step),
		cmocka_unit_test(test_passive_accept),
		cmocka_unit_test(test_passive_rejects),
		cmocka_unit_test(test_passive_stale_peer),
		cmocka_unit_test(test_passive_race),
		cmocka_unit_test(test_active_rejected),
		cmocka_unit_test(test_active_v1_peer),
		cmocka_unit_test(test_check_connack),
		cmocka_unit_test(test_negotiate_queue_depth),
		cmocka_unit_test(test_connect_race_both_sides),
		cmocka_unit_test(test_qp_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
