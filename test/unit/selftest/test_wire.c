/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/selftest (sft_wire.c, sft_check.c): every message type round-trips in
 * both byte orders; the kernel's captured messages (captured_msgs.h) decode
 * to the values the captures and their lst output show and re-encode to the
 * same bytes; a hand-made big-endian message decodes; the types with no
 * capture (BATCH, DEBUG, JOIN) land at selftest-facts' offsets; and each
 * malformed form gives its own error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "captured_msgs.h"
#include "selftest.h"

static const struct sft_sid sid_s4 = { 0x00020000c000020bull, 10543 };
static const struct sft_sid sid_s1 = { 0x00020000c000020bull, 0x71c5 };

static uint32_t
rd32(const uint8_t *b, size_t at)
{
	uint32_t v;

	memcpy(&v, b + at, sizeof(v));
	return v;
}

static uint64_t
rd64(const uint8_t *b, size_t at)
{
	uint64_t v;

	memcpy(&v, b + at, sizeof(v));
	return v;
}

/* Decode @p bytes, check it, re-encode it: the same 160 bytes. */
static void
decode_captured(const uint8_t *bytes, uint32_t type, struct sft_msg *m)
{
	uint8_t again[SFT_MSG_SIZE];

	assert_int_equal(sft_msg_decode(bytes, SFT_MSG_SIZE, m), 0);
	assert_int_equal(m->type, type);
	assert_int_equal(m->version, SFT_MSG_VERSION);
	assert_int_equal(m->ses_feats, SFT_FEAT_BULK_LEN);
	assert_false(m->swabbed);
	assert_int_equal(sft_msg_check(m), 0);
	assert_int_equal(sft_msg_encode(m, again, sizeof(again)), 0);
	assert_memory_equal(again, bytes, SFT_MSG_SIZE);
}

static void
assert_sid(const struct sft_sid *got, const struct sft_sid *want)
{
	assert_true(got->nid == want->nid);
	assert_true(got->stamp == want->stamp);
}

static void
test_captured_session(void **state)
{
	struct sft_msg m;

	(void)state;
	decode_captured(s4_mksn_reqst, SFT_MSG_MKSN_REQST, &m);
	assert_true(m.body.mksn_reqst.rpyid == 0xd04d000000000002ull);
	assert_sid(&m.body.mksn_reqst.sid, &sid_s4);
	assert_int_equal(m.body.mksn_reqst.force, 0);
	assert_string_equal(m.body.mksn_reqst.name, "fcsess");

	decode_captured(s4_mksn_reply, SFT_MSG_MKSN_REPLY, &m);
	assert_int_equal(m.body.mksn_reply.status, SFT_STATUS_OK);
	assert_sid(&m.body.mksn_reply.sid, &sid_s4);
	assert_int_equal(m.body.mksn_reply.timeout, 100);
	assert_string_equal(m.body.mksn_reply.name, "");

	decode_captured(s4_rmsn_reqst, SFT_MSG_RMSN_REQST, &m);
	assert_true(m.body.rmsn_reqst.rpyid == 0xd04d000000000028ull);
	assert_sid(&m.body.rmsn_reqst.sid, &sid_s4);

	/* After RMSN the node has no session: its reply says so. */
	decode_captured(s4_rmsn_reply, SFT_MSG_RMSN_REPLY, &m);
	assert_int_equal(m.body.rmsn_reply.status, 0);
	assert_true(m.body.rmsn_reply.sid.nid == SFT_SID_NID_NONE);
	assert_true(m.body.rmsn_reply.sid.stamp == SFT_SID_STAMP_NONE);
	decode_captured(s1_rmsn_reply_no_session, SFT_MSG_RMSN_REPLY, &m);
	assert_true(m.body.rmsn_reply.sid.nid == SFT_SID_NID_NONE);
}

static void
test_captured_test(void **state)
{
	const struct sft_test_reqst *t;
	struct sft_msg m;

	(void)state;
	/* Server side of "brw write size=4k": no bulk, no destinations. */
	decode_captured(s4_test_reqst_brw_server, SFT_MSG_TEST_REQST, &m);
	t = &m.body.test_reqst;
	assert_true(t->rpyid == 0xd04d000000000003ull);
	assert_true(t->bulkid == 0);
	assert_sid(&t->sid, &sid_s4);
	assert_true(t->bid == 2);
	assert_int_equal(t->service, SFT_SVC_BRW);
	assert_int_equal(t->loop, 1);
	assert_int_equal(t->concur, 1);
	assert_int_equal(t->is_client, 0);
	assert_int_equal(t->stop_onerr, 1);
	assert_int_equal(t->ndest, 0);
	assert_int_equal(sft_test_params_view(t->service, m.ses_feats), SFT_TPARAMS_BULK_V1);
	assert_int_equal(t->params.bulk_v1.opc, SFT_BRW_WRITE);
	assert_int_equal(t->params.bulk_v1.flags, SFT_BRW_CHECK_NONE);
	assert_int_equal(t->params.bulk_v1.len, 4096);
	assert_int_equal(t->params.bulk_v1.offset, 0);

	decode_captured(s1_test_reqst_brw_write_server, SFT_MSG_TEST_REQST, &m);
	assert_int_equal(m.body.test_reqst.params.bulk_v1.opc, SFT_BRW_WRITE);
	decode_captured(s1_test_reqst_brw_read_server, SFT_MSG_TEST_REQST, &m);
	assert_int_equal(m.body.test_reqst.params.bulk_v1.opc, SFT_BRW_READ);
	assert_sid(&m.body.test_reqst.sid, &sid_s1);

	decode_captured(s1_test_reqst_ping_server, SFT_MSG_TEST_REQST, &m);
	assert_int_equal(m.body.test_reqst.service, SFT_SVC_PING);
	assert_int_equal(m.body.test_reqst.params.ping.size, 0);
	assert_int_equal(m.body.test_reqst.params.ping.flags, 0);

	decode_captured(s4_test_reply, SFT_MSG_TEST_REPLY, &m);
	assert_int_equal(m.body.test_reply.status, 0);
	assert_sid(&m.body.test_reply.sid, &sid_s4);
}

static void
test_captured_brw_ping(void **state)
{
	struct sft_msg m;

	(void)state;
	decode_captured(s4_brw_reqst, SFT_MSG_BRW_REQST, &m);
	assert_true(m.body.brw_reqst.rpyid == 0xd04d000000000007ull);
	assert_true(m.body.brw_reqst.bulkid == 0xd04d000000000008ull);
	assert_int_equal(m.body.brw_reqst.rw, SFT_BRW_WRITE);
	assert_int_equal(m.body.brw_reqst.len, 4096);
	assert_int_equal(m.body.brw_reqst.flags, SFT_BRW_CHECK_NONE);
	decode_captured(s1_brw_reqst_write, SFT_MSG_BRW_REQST, &m);
	assert_int_equal(m.body.brw_reqst.rw, SFT_BRW_WRITE);
	decode_captured(s1_brw_reqst_read, SFT_MSG_BRW_REQST, &m);
	assert_int_equal(m.body.brw_reqst.rw, SFT_BRW_READ);
	assert_true(m.body.brw_reqst.bulkid == m.body.brw_reqst.rpyid + 1);

	decode_captured(s4_brw_reply, SFT_MSG_BRW_REPLY, &m);
	assert_int_equal(m.body.brw_reply.status, 0);

	decode_captured(s1_ping_reqst, SFT_MSG_PING_REQST, &m);
	assert_true(m.body.ping_reqst.rpyid == 0xcfb8000000000011ull);
	assert_int_equal(m.body.ping_reqst.magic, SFT_PING_MAGIC);
	assert_int_equal(m.body.ping_reqst.seq, 0);
	assert_true(m.body.ping_reqst.time_sec == 0x6b02cfd1ull);
	assert_true(m.body.ping_reqst.time_nsec == 0x1e21c03dull);

	decode_captured(s1_ping_reply, SFT_MSG_PING_REPLY, &m);
	assert_int_equal(m.body.ping_reply.status, 0);
	assert_int_equal(m.body.ping_reply.magic, SFT_PING_MAGIC);
	assert_int_equal(m.body.ping_reply.seq, 0);
}

static void
test_captured_stat(void **state)
{
	const struct sft_stat_reply *s;
	struct sft_msg m;

	(void)state;
	decode_captured(s1_stat_reqst, SFT_MSG_STAT_REQST, &m);
	assert_true(m.body.stat_reqst.rpyid == 0xcfb800000000014aull);
	assert_sid(&m.body.stat_reqst.sid, &sid_s1);
	assert_int_equal(m.body.stat_reqst.type, 0);

	decode_captured(s1_stat_reply, SFT_MSG_STAT_REPLY, &m);
	s = &m.body.stat_reply;
	assert_int_equal(s->status, 0);
	assert_sid(&s->sid, &sid_s1);
	assert_int_equal(s->fw.running_ms, 1037);
	assert_int_equal(s->fw.brw_errors, 0);
	assert_int_equal(s->rpc.rpcs_rcvd, 227);
	assert_true(s->rpc.bulk_get == 352256);
	assert_true(s->rpc.bulk_put == 8388608);
	assert_int_equal(s->lnet.msgs_max, 3);
	assert_int_equal(s->lnet.send_count, 329);
	assert_int_equal(s->lnet.recv_count, 322);
	assert_true(s->lnet.send_length == 0x808e30);
	assert_true(s->lnet.recv_length == 0x5eea0);
}

/* The s4 session-create request as a big-endian kernel would send it. */
static void
test_big_endian_peer(void **state)
{
	static const uint8_t be[SFT_MSG_SIZE] = {
		0xee, 0xb0, 0xf0, 0x0d, 0,    0,   0,    1,    0, 0, 0, 0,
		0,    0,    0,    0,    0,    0,   0,    0,    0, 0, 0, 1, /* feats */
		0xd0, 0x4d, 0,    0,    0,    0,   0,    2,                /* rpyid */
		0,    0x02, 0,    0,    0xc0, 0,   0x02, 0x0b,             /* sid.nid */
		0,    0,    0,    0,    0,    0,   0x29, 0x2f,             /* sid.stamp */
		0,    0,    0,    0,                                       /* force */
		'f',  'c',  's',  'e',  's',  's',
	};
	uint8_t again[SFT_MSG_SIZE];
	struct sft_msg m;
	struct sft_msg native;

	(void)state;
	assert_int_equal(sft_msg_decode(be, sizeof(be), &m), 0);
	assert_true(m.swabbed);
	assert_int_equal(sft_msg_check(&m), 0);
	assert_int_equal(sft_msg_decode(s4_mksn_reqst, SFT_MSG_SIZE, &native), 0);
	native.swabbed = true;
	assert_memory_equal(&m, &native, sizeof(m));
	assert_int_equal(sft_msg_encode_swabbed(&m, again, sizeof(again)), 0);
	assert_memory_equal(again, be, sizeof(be));
}

/* Distinct values in every field of every type (zeroed elsewhere). */
static void
sample(uint32_t type, uint32_t service, uint32_t feats, struct sft_msg *m)
{
	uint8_t *b;
	size_t i;

	memset(m, 0, sizeof(*m));
	m->version = SFT_MSG_VERSION;
	m->type = type;
	m->reserved0 = 0x01020304;
	m->reserved1 = 0x05060708;
	m->ses_feats = feats;
	/* Every body byte non-zero; names and the params are then set apart. */
	b = (uint8_t *)&m->body;
	for (i = 0; i < sizeof(m->body); i++) {
		b[i] = (uint8_t)(0x11 + i);
	}
	if (type == SFT_MSG_TEST_REQST) {
		m->body.test_reqst.service = service;
	}
}

/* Encode, decode, compare: the fields the layout carries come back. */
static void
round_trip(const struct sft_msg *m, bool swab)
{
	uint8_t wire[SFT_MSG_SIZE];
	uint8_t again[SFT_MSG_SIZE];
	struct sft_msg d;
	struct sft_msg d2;

	if (swab) {
		assert_int_equal(sft_msg_encode_swabbed(m, wire, sizeof(wire)), 0);
	} else {
		assert_int_equal(sft_msg_encode(m, wire, sizeof(wire)), 0);
	}
	assert_int_equal(sft_msg_decode(wire, sizeof(wire), &d), 0);
	assert_int_equal(d.swabbed, swab);
	assert_int_equal(d.type, m->type);
	assert_int_equal(d.reserved0, m->reserved0);
	assert_int_equal(d.reserved1, m->reserved1);
	/* Every sample field reached the wire (none is zero in the sample)... */
	for (size_t i = SFT_MSG_HDR_SIZE; i < SFT_MSG_HDR_SIZE + sft_msg_body_size(m->type); i++) {
		bool test = m->type == SFT_MSG_TEST_REQST;
		bool service_high = test && i >= 64 && i < 68; /* a small id: zeros */
		enum sft_test_params_view v =
			sft_test_params_view(m->body.test_reqst.service, m->ses_feats);
		/* No params for an unknown service; ping's are 8 of the 12 bytes. */
		bool unread_params = test && ((v == SFT_TPARAMS_NONE && i >= 82) ||
					      (v == SFT_TPARAMS_PING && i >= 90));

		assert_true(service_high || unread_params || wire[i] != 0);
	}
	/* ...and bytes past the body are zero. */
	for (size_t i = SFT_MSG_HDR_SIZE + sft_msg_body_size(m->type); i < SFT_MSG_SIZE; i++) {
		assert_int_equal(wire[i], 0);
	}
	/* Whatever decoded re-encodes to the same bytes, and decodes alike. */
	if (swab) {
		assert_int_equal(sft_msg_encode_swabbed(&d, again, sizeof(again)), 0);
	} else {
		assert_int_equal(sft_msg_encode(&d, again, sizeof(again)), 0);
	}
	assert_memory_equal(again, wire, sizeof(wire));
	assert_int_equal(sft_msg_decode(again, sizeof(again), &d2), 0);
	assert_memory_equal(&d, &d2, sizeof(d));
}

static void
test_round_trip_every_type(void **state)
{
	static const uint32_t services[] = { SFT_SVC_BRW, SFT_SVC_PING, 99 };
	struct sft_msg m;
	uint32_t type;
	unsigned int s;

	(void)state;
	for (type = 0; type < SFT_MSG_TYPE_MAX; type++) {
		for (s = 0; s < 3; s++) {
			for (uint32_t feats = 0; feats < 2; feats++) {
				sample(type, services[s], feats, &m);
				round_trip(&m, false);
				round_trip(&m, true);
			}
		}
	}
}

/* A field set in the struct and found at its selftest-facts offset. */
static void
test_layout_offsets(void **state)
{
	uint8_t w[SFT_MSG_SIZE];
	struct sft_msg m;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.version = 1;
	m.type = SFT_MSG_BATCH_REQST;
	m.body.batch_reqst = (struct sft_batch_reqst){
		.rpyid = 0x1111,
		.sid = { 0x2222, 0x3333 },
		.bid = 0x4444,
		.opc = SFT_BATCH_STOP,
		.testidx = 5,
		.arg = 1,
	};
	assert_int_equal(sft_msg_encode(&m, w, sizeof(w)), 0);
	assert_true(rd64(w, 24) == 0x1111 && rd64(w, 32) == 0x2222 && rd64(w, 40) == 0x3333);
	assert_true(rd64(w, 48) == 0x4444);
	assert_true(rd32(w, 56) == 2 && rd32(w, 60) == 5 && rd32(w, 64) == 1);

	m.type = SFT_MSG_BATCH_REPLY;
	m.body.batch_reply = (struct sft_batch_reply){
		.status = 2,
		.sid = { 0x2222, 0x3333 },
		.active = 7,
		.time = 9,
	};
	assert_int_equal(sft_msg_encode(&m, w, sizeof(w)), 0);
	assert_true(rd32(w, 24) == 2 && rd64(w, 28) == 0x2222 && rd64(w, 36) == 0x3333);
	assert_true(rd32(w, 44) == 7 && rd32(w, 48) == 9);

	m.type = SFT_MSG_DEBUG_REQST;
	m.body.debug_reqst = (struct sft_debug_reqst){ .rpyid = 1, .sid = { 2, 3 }, .flags = 4 };
	assert_int_equal(sft_msg_encode(&m, w, sizeof(w)), 0);
	assert_true(rd32(w, 48) == 4);

	m.type = SFT_MSG_DEBUG_REPLY;
	m.body.debug_reply = (struct sft_debug_reply){
		.status = 16,
		.sid = { 2, 3 },
		.timeout = 100,
		.nbatch = 3,
		.name = "other",
	};
	assert_int_equal(sft_msg_encode(&m, w, sizeof(w)), 0);
	assert_true(rd32(w, 24) == 16 && rd32(w, 44) == 100 && rd32(w, 48) == 3);
	assert_memory_equal(w + 52, "other", 6);

	m.type = SFT_MSG_JOIN_REQST;
	m.body.join_reqst = (struct sft_join_reqst){ .rpyid = 1, .sid = { 2, 3 }, .group = "g1" };
	assert_int_equal(sft_msg_encode(&m, w, sizeof(w)), 0);
	assert_memory_equal(w + 48, "g1", 3);

	m.type = SFT_MSG_JOIN_REPLY;
	m.body.join_reply = (struct sft_join_reply){
		.status = 0,
		.sid = { 2, 3 },
		.timeout = 100,
		.session = "s",
	};
	assert_int_equal(sft_msg_encode(&m, w, sizeof(w)), 0);
	assert_true(rd32(w, 44) == 100);
	assert_memory_equal(w + 48, "s", 2);

	/* TEST brw params without BULK_LEN: three u32 at 82. */
	m.type = SFT_MSG_TEST_REQST;
	m.ses_feats = 0;
	memset(&m.body, 0, sizeof(m.body));
	m.body.test_reqst.service = SFT_SVC_BRW;
	m.body.test_reqst.params.bulk_v0.opc = 1;
	m.body.test_reqst.params.bulk_v0.npg = 2;
	m.body.test_reqst.params.bulk_v0.flags = 3;
	assert_int_equal(sft_msg_encode(&m, w, sizeof(w)), 0);
	assert_true(rd32(w, 82) == 1 && rd32(w, 86) == 2 && rd32(w, 90) == 3);
}

static void
test_body_sizes(void **state)
{
	static const size_t want[SFT_MSG_TYPE_MAX] = {
		60, 56, 24, 20, 44, 28, 28, 136, 70, 20, 28, 60, 28, 4, 32, 12, 56, 56,
	};

	(void)state;
	for (uint32_t t = 0; t < SFT_MSG_TYPE_MAX; t++) {
		assert_int_equal(sft_msg_body_size(t), want[t]);
	}
	assert_int_equal(sft_msg_body_size(SFT_MSG_TYPE_MAX), 0);
}

static void
test_dests(void **state)
{
	const struct sft_dest d[2] = { { 0x00020000c000020cull, 12345 }, { 7, 8 } };
	uint8_t buf[24];
	uint8_t swapped[24];
	struct sft_dest got[2];

	(void)state;
	assert_int_equal(sft_dests_encode(d, 2, buf, sizeof(buf)), 0);
	assert_true(rd64(buf, 0) == d[0].nid && rd32(buf, 8) == 12345 && rd64(buf, 12) == 7);
	assert_int_equal(sft_dests_decode(buf, sizeof(buf), false, got, 2), 0);
	assert_memory_equal(got, d, sizeof(d));
	for (int i = 0; i < 2; i++) {
		uint64_t nid = __builtin_bswap64(d[i].nid);
		uint32_t pid = __builtin_bswap32(d[i].pid);

		memcpy(swapped + 12 * i, &nid, 8);
		memcpy(swapped + 12 * i + 8, &pid, 4);
	}
	assert_int_equal(sft_dests_decode(swapped, sizeof(swapped), true, got, 2), 0);
	assert_memory_equal(got, d, sizeof(d));
	assert_int_equal(sft_dests_decode(buf, 23, false, got, 2), -SFT_WIRE_ELEN);
	assert_int_equal(sft_dests_encode(d, 2, buf, 23), -SFT_WIRE_ELEN);
}

/* Structural faults: nothing of the message is usable. */
static void
test_malformed_structure(void **state)
{
	uint8_t w[SFT_MSG_SIZE + 1];
	struct sft_msg m;

	(void)state;
	memcpy(w, s4_mksn_reqst, SFT_MSG_SIZE);
	w[SFT_MSG_SIZE] = 0;
	assert_int_equal(sft_msg_decode(w, 159, &m), -SFT_WIRE_ELEN);
	assert_int_equal(sft_msg_decode(w, 161, &m), -SFT_WIRE_ELEN);
	assert_int_equal(sft_msg_decode(w, 0, &m), -SFT_WIRE_ELEN);
	assert_int_equal(sft_msg_decode(NULL, SFT_MSG_SIZE, &m), -SFT_WIRE_ELEN);

	w[1] ^= 0x01;
	assert_int_equal(sft_msg_decode(w, SFT_MSG_SIZE, &m), -SFT_WIRE_EMAGIC);
	w[1] ^= 0x01;

	w[8] = SFT_MSG_TYPE_MAX;
	assert_int_equal(sft_msg_decode(w, SFT_MSG_SIZE, &m), -SFT_WIRE_ETYPE);
	w[8] = 0xff;
	w[11] = 0xff;
	assert_int_equal(sft_msg_decode(w, SFT_MSG_SIZE, &m), -SFT_WIRE_ETYPE);

	m.type = SFT_MSG_TYPE_MAX;
	assert_int_equal(sft_msg_encode(&m, w, sizeof(w)), -SFT_WIRE_ETYPE);
	m.type = 0;
	assert_int_equal(sft_msg_encode(&m, w, SFT_MSG_SIZE - 1), -SFT_WIRE_ELEN);
	assert_int_equal(sft_msg_check(NULL), -SFT_WIRE_EINVAL);
}

/* Decode a captured message, spoil one field, expect @p rc from the check. */
static void
check_spoiled(const uint8_t *bytes, void (*spoil)(struct sft_msg *), int rc)
{
	struct sft_msg m;

	assert_int_equal(sft_msg_decode(bytes, SFT_MSG_SIZE, &m), 0);
	spoil(&m);
	assert_int_equal(sft_msg_check(&m), rc);
}

static void
spoil_version(struct sft_msg *m)
{
	m->version = 2;
}
static void
spoil_feats(struct sft_msg *m)
{
	m->ses_feats = 0x3;
}
static void
spoil_mksn_name(struct sft_msg *m)
{
	memset(m->body.mksn_reqst.name, 'x', SFT_NAME_SIZE);
}
static void
spoil_mksn_sid(struct sft_msg *m)
{
	m->body.mksn_reqst.sid.nid = SFT_SID_NID_NONE;
}
static void
spoil_stat_sid(struct sft_msg *m)
{
	m->body.stat_reqst.sid.nid = SFT_SID_NID_NONE;
}
static void
spoil_test_service(struct sft_msg *m)
{
	m->body.test_reqst.service = SFT_SVC_TEST;
}
static void
spoil_test_loop(struct sft_msg *m)
{
	m->body.test_reqst.loop = 0;
}
static void
spoil_test_concur(struct sft_msg *m)
{
	m->body.test_reqst.concur = SFT_MAX_CONCUR + 1;
}
static void
spoil_test_ndest(struct sft_msg *m)
{
	m->body.test_reqst.is_client = 1;
}
static void
spoil_test_client_off(struct sft_msg *m)
{
	m->body.test_reqst.is_client = 1;
	m->body.test_reqst.ndest = 1;
	m->body.test_reqst.params.bulk_v1.offset = 4;
}
static void
spoil_test_client_rw(struct sft_msg *m)
{
	spoil_test_client_off(m);
	m->body.test_reqst.params.bulk_v1.offset = 4096 + 8; /* only offset % 4096 counts */
	m->body.test_reqst.params.bulk_v1.opc = 3;
}
static void
spoil_brw_rw(struct sft_msg *m)
{
	m->body.brw_reqst.rw = 0;
}
static void
spoil_brw_flags(struct sft_msg *m)
{
	m->body.brw_reqst.flags = 4;
}
static void
spoil_brw_len0(struct sft_msg *m)
{
	m->body.brw_reqst.len = 0;
}
static void
spoil_brw_len_big(struct sft_msg *m)
{
	m->body.brw_reqst.len = SFT_BRW_MAX_LEN + 8;
}
static void
spoil_brw_len_odd(struct sft_msg *m)
{
	m->body.brw_reqst.len = 4100;
}
static void
spoil_brw_len_pages(struct sft_msg *m)
{
	m->ses_feats = 0;
	m->body.brw_reqst.len = 4096 + 8;
}
static void
spoil_brw_feats_after_rw(struct sft_msg *m)
{
	m->ses_feats = 0x2;
	m->body.brw_reqst.rw = 0;
}
static void
spoil_brw_feats(struct sft_msg *m)
{
	m->ses_feats = 0x2;
}
static void
spoil_ping_magic(struct sft_msg *m)
{
	m->body.ping_reqst.magic = 0xbabefacf;
}
static void
spoil_ping_reply_magic(struct sft_msg *m)
{
	m->body.ping_reply.magic = 0;
}

static void
test_malformed_fields(void **state)
{
	struct sft_msg m;

	(void)state;
	check_spoiled(s4_mksn_reqst, spoil_version, -SFT_WIRE_EVERSION);
	check_spoiled(s4_mksn_reqst, spoil_feats, -SFT_WIRE_EFEATS);
	check_spoiled(s4_mksn_reqst, spoil_mksn_name, -SFT_WIRE_ENAME);
	check_spoiled(s4_mksn_reqst, spoil_mksn_sid, -SFT_WIRE_ESID);
	/* Other framework requests: the session compares features, not us. */
	check_spoiled(s4_rmsn_reqst, spoil_feats, 0);
	check_spoiled(s1_stat_reqst, spoil_stat_sid, -SFT_WIRE_ESID);
	check_spoiled(s4_test_reqst_brw_server, spoil_test_service, -SFT_WIRE_ESERVICE);
	check_spoiled(s4_test_reqst_brw_server, spoil_test_loop, -SFT_WIRE_ETESTCOUNT);
	check_spoiled(s4_test_reqst_brw_server, spoil_test_concur, -SFT_WIRE_ETESTCOUNT);
	check_spoiled(s4_test_reqst_brw_server, spoil_test_ndest, -SFT_WIRE_ETESTCOUNT);
	check_spoiled(s4_test_reqst_brw_server, spoil_test_client_off, -SFT_WIRE_EBULKOFF);
	check_spoiled(s4_test_reqst_brw_server, spoil_test_client_rw, -SFT_WIRE_ERW);
	check_spoiled(s4_brw_reqst, spoil_brw_rw, -SFT_WIRE_ERW);
	check_spoiled(s4_brw_reqst, spoil_brw_flags, -SFT_WIRE_ECHECK);
	check_spoiled(s4_brw_reqst, spoil_brw_len0, -SFT_WIRE_EBULKLEN);
	check_spoiled(s4_brw_reqst, spoil_brw_len_big, -SFT_WIRE_EBULKLEN);
	check_spoiled(s4_brw_reqst, spoil_brw_len_odd, -SFT_WIRE_EBULKLEN);
	check_spoiled(s4_brw_reqst, spoil_brw_len_pages, -SFT_WIRE_EBULKLEN);
	check_spoiled(s4_brw_reqst, spoil_brw_feats_after_rw, -SFT_WIRE_ERW);
	check_spoiled(s4_brw_reqst, spoil_brw_feats, -SFT_WIRE_EFEATS);
	check_spoiled(s1_ping_reqst, spoil_ping_magic, -SFT_WIRE_EPINGMAGIC);
	check_spoiled(s1_ping_reply, spoil_ping_reply_magic, -SFT_WIRE_EPINGMAGIC);

	/* A BATCH opc outside RUN/STOP/QUERY. */
	memset(&m, 0, sizeof(m));
	m.version = 1;
	m.type = SFT_MSG_BATCH_REQST;
	m.body.batch_reqst.opc = SFT_BATCH_QUERY;
	assert_int_equal(sft_msg_check(&m), 0);
	m.body.batch_reqst.opc = 0;
	assert_int_equal(sft_msg_check(&m), -SFT_WIRE_EOPC);
	m.body.batch_reqst.opc = 4;
	assert_int_equal(sft_msg_check(&m), -SFT_WIRE_EOPC);
}

/* Each code has its own text, so a caller's per-code counters are distinct. */
static void
test_error_texts(void **state)
{
	(void)state;
	for (int a = 0; a < SFT_WIRE_EMAX; a++) {
		assert_non_null(sft_wire_strerror(-a));
		for (int b = a + 1; b < SFT_WIRE_EMAX; b++) {
			assert_string_not_equal(sft_wire_strerror(-a), sft_wire_strerror(-b));
		}
	}
	assert_string_equal(sft_wire_strerror(-SFT_WIRE_EMAX), "unknown selftest wire error");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captured_session),
		cmocka_unit_test(test_captured_test),
		cmocka_unit_test(test_captured_brw_ping),
		cmocka_unit_test(test_captured_stat),
		cmocka_unit_test(test_big_endian_peer),
		cmocka_unit_test(test_round_trip_every_type),
		cmocka_unit_test(test_layout_offsets),
		cmocka_unit_test(test_body_sizes),
		cmocka_unit_test(test_dests),
		cmocka_unit_test(test_malformed_structure),
		cmocka_unit_test(test_malformed_fields),
		cmocka_unit_test(test_error_texts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
