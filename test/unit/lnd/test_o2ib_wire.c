/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * o2iblnd codecs against golden bytes built from o2ib-facts §1-§3 (the
 * kernel's packed kib_msg and kib_rej): the 48-byte header of both byte
 * orders, every body, the signed-byte checksum, each unpack check in the
 * kernel's order, descriptors of 1 and 257 fragments, and reject private
 * data of v1 and v2 peers. Our host is little-endian, so what we write is
 * what an x86 kernel writes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "o2ib_wire.h"

#define SRC_NID 0x00050000c0a80101ULL /* 192.168.1.1@o2ib: net (5 << 16 | 0), address */
#define DST_NID 0x00050000c0a80102ULL /* 192.168.1.2@o2ib */
#define SRC_STAMP 0x1122334455667788ULL
#define DST_STAMP 0x99aabbccddeeff00ULL

/*
 * A v2 NOOP from an x86 peer returning 3 credits: magic 0x0be91b91 LE,
 * version 0x0012 LE, type 0xd0, credits 3, nob 48 LE, cksum 0, then srcnid,
 * srcstamp, dstnid, dststamp as LE u64s.
 */
static const uint8_t noop_le[48] = {
	0x91, 0x1b, 0xe9, 0x0b, 0x12, 0x00, 0xd0, 0x03, 0x30, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0xa8, 0xc0, 0x00, 0x00, 0x05, 0x00,
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x02, 0x01, 0xa8, 0xc0,
	0x00, 0x00, 0x05, 0x00, 0x00, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99,
};

/* The same NOOP from a big-endian peer: every field in its order. */
static const uint8_t noop_be[48] = {
	0x0b, 0xe9, 0x1b, 0x91, 0x00, 0x12, 0xd0, 0x03, 0x00, 0x00, 0x00, 0x30,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0xc0, 0xa8, 0x01, 0x01,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x00, 0x05, 0x00, 0x00,
	0xc0, 0xa8, 0x01, 0x02, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00,
};

/*
 * Checksums of the two NOOPs (field zero while summing), worked out with
 * the rule of o2ib-facts §1 by a separate script: rotl32(sum, 1) + the
 * byte as a signed char, over the 48 bytes.
 */
#define NOOP_LE_CKSUM 0xc0d11c7aU
#define NOOP_BE_CKSUM 0x034fdbbcU

static const struct o2ib_stamp stamp_v2 = {
	.version = O2IB_MSG_VERSION_2,
	.credits = 3,
	.srcnid = SRC_NID,
	.srcstamp = SRC_STAMP,
	.dstnid = DST_NID,
	.dststamp = DST_STAMP,
};

static void
test_noop_golden(void **state)
{
	uint8_t buf[O2IB_MSG_SIZE];
	struct o2ib_msg m;

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(o2ib_msg_noop(buf, sizeof(buf)), 48);
	o2ib_msg_stamp(buf, &stamp_v2);
	assert_memory_equal(buf, noop_le, sizeof(noop_le));

	assert_int_equal(o2ib_msg_unpack(noop_le, sizeof(noop_le), &m), 0);
	assert_false(m.swapped);
	assert_int_equal(m.version, 0x12);
	assert_int_equal(m.type, O2IB_MSG_NOOP);
	assert_int_equal(m.credits, 3);
	assert_int_equal(m.nob, 48);
	assert_true(m.srcnid == SRC_NID && m.dstnid == DST_NID);
	assert_true(m.srcstamp == SRC_STAMP && m.dststamp == DST_STAMP);
}

static void
test_noop_byte_swapped_peer(void **state)
{
	struct o2ib_msg m;

	(void)state;
	assert_int_equal(o2ib_msg_unpack(noop_be, sizeof(noop_be), &m), 0);
	assert_true(m.swapped);
	assert_int_equal(m.version, 0x12);
	assert_int_equal(m.credits, 3);
	assert_int_equal(m.nob, 48);
	assert_true(m.srcnid == SRC_NID && m.dstnid == DST_NID);
	assert_true(m.srcstamp == SRC_STAMP && m.dststamp == DST_STAMP);
}

/* Versions 1 and 2 share the layout: only bytes 4-5 differ. */
static void
test_v1_same_layout(void **state)
{
	struct o2ib_stamp s = stamp_v2;
	uint8_t buf[64];
	struct o2ib_msg m;

	(void)state;
	s.version = O2IB_MSG_VERSION_1;
	assert_int_equal(o2ib_msg_noop(buf, sizeof(buf)), 48);
	o2ib_msg_stamp(buf, &s);
	assert_int_equal(buf[4], 0x11);
	assert_memory_equal(buf + 6, noop_le + 6, 42);
	assert_memory_equal(buf, noop_le, 4);
	assert_int_equal(o2ib_msg_unpack(buf, 48, &m), 0);
	assert_int_equal(m.version, 0x11);
}

static void
test_cksum_signed_bytes(void **state)
{
	static const uint8_t b80[1] = { 0x80 };
	static const uint8_t b7f[1] = { 0x7f };
	static const uint8_t b8001[2] = { 0x80, 0x01 };
	static const uint8_t zero[1] = { 0 };

	(void)state;
	/* 0x80 is -128: the sum goes negative instead of +128 */
	assert_int_equal(o2ib_cksum_msg(b80, 1), 0xffffff80U);
	assert_int_equal(o2ib_cksum_msg(b7f, 1), 0x7fU);
	/* rotl(0xffffff80) = 0xffffff01, + 1 */
	assert_int_equal(o2ib_cksum_msg(b8001, 2), 0xffffff02U);
	/* a zero sum is sent as 1 */
	assert_int_equal(o2ib_cksum_msg(zero, 1), 1U);
}

static void
test_cksum_golden_both_orders(void **state)
{
	uint8_t le[48];
	uint8_t be[48];
	uint32_t v;
	struct o2ib_stamp s = stamp_v2;
	struct o2ib_msg m;

	(void)state;
	s.cksum = true;
	assert_int_equal(o2ib_msg_noop(le, sizeof(le)), 48);
	o2ib_msg_stamp(le, &s);
	memcpy(&v, le + 12, 4);
	assert_int_equal(v, NOOP_LE_CKSUM);
	assert_memory_equal(le + 16, noop_le + 16, 32);
	assert_int_equal(o2ib_msg_unpack(le, sizeof(le), &m), 0);
	assert_int_equal(m.cksum, NOOP_LE_CKSUM);

	/* a big-endian sender sums its own bytes and stores the sum in its order */
	memcpy(be, noop_be, sizeof(be));
	v = __builtin_bswap32(NOOP_BE_CKSUM);
	memcpy(be + 12, &v, 4);
	assert_int_equal(o2ib_msg_unpack(be, sizeof(be), &m), 0);
	assert_int_equal(m.cksum, NOOP_BE_CKSUM);

	/* one flipped bit anywhere fails */
	le[40] ^= 1;
	assert_int_equal(o2ib_msg_unpack(le, sizeof(le), &m), -O2IB_ECKSUM);
	be[7] ^= 1;
	assert_int_equal(o2ib_msg_unpack(be, sizeof(be), &m), -O2IB_ECKSUM);
}

/*
 * CONNREQ v2 from an x86 peer: the header (credits 0, dststamp 0 in a
 * first request) and connparams {queue_depth 8, max_frags 257, 4096} at
 * 48: 08 00 | 01 01 | 00 10 00 00. 56 bytes: the whole CM REQ private data.
 */
static const uint8_t connreq_le[56] = {
	0x91, 0x1b, 0xe9, 0x0b, 0x12, 0x00, 0xc0, 0x00, 0x38, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x01, 0x01, 0xa8, 0xc0, 0x00, 0x00, 0x05, 0x00, 0x88, 0x77, 0x66, 0x55,
	0x44, 0x33, 0x22, 0x11, 0x02, 0x01, 0xa8, 0xc0, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x01, 0x00, 0x10, 0x00, 0x00,
};

static void
test_connreq_golden(void **state)
{
	const struct o2ib_connparams cp = { 8, 257, 4096 };
	struct o2ib_stamp s = stamp_v2;
	uint8_t buf[56];
	uint8_t be[56];
	struct o2ib_msg m;

	(void)state;
	s.credits = 0;
	s.dststamp = 0;
	assert_int_equal(o2ib_msg_connparams(buf, sizeof(buf), O2IB_MSG_CONNREQ, &cp), 56);
	o2ib_msg_stamp(buf, &s);
	assert_memory_equal(buf, connreq_le, sizeof(buf));
	assert_int_equal(o2ib_msg_unpack(connreq_le, 56, &m), 0);
	assert_int_equal(m.type, O2IB_MSG_CONNREQ);
	assert_int_equal(m.u.cp.queue_depth, 8);
	assert_int_equal(m.u.cp.max_frags, 257);
	assert_int_equal(m.u.cp.max_msg_size, 4096);

	/* big-endian: header fields and connparams each swapped */
	memcpy(be, noop_be, 48);
	be[6] = 0xc0;
	be[7] = 0;
	be[11] = 56;
	memset(be + 40, 0, 8);
	memcpy(be + 48, (const uint8_t[]){ 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x10, 0x00 }, 8);
	assert_int_equal(o2ib_msg_unpack(be, 56, &m), 0);
	assert_true(m.swapped);
	assert_int_equal(m.u.cp.queue_depth, 8);
	assert_int_equal(m.u.cp.max_frags, 257);
	assert_int_equal(m.u.cp.max_msg_size, 4096);

	/* CONNACK has the same body; other types are refused */
	assert_int_equal(o2ib_msg_connparams(buf, sizeof(buf), O2IB_MSG_CONNACK, &cp), 56);
	assert_int_equal(buf[6], 0xc1);
	assert_int_equal(o2ib_msg_connparams(buf, sizeof(buf), O2IB_MSG_NOOP, &cp), -O2IB_EINVAL);
	assert_int_equal(o2ib_msg_connparams(buf, 55, O2IB_MSG_CONNREQ, &cp), -O2IB_ESHORT);
}

static void
fill_put_hdr(struct lnet_hdr *h, uint32_t payload)
{
	memset(h, 0, sizeof(*h));
	lnet_nid4_to_nid(DST_NID, &h->dest_nid);
	lnet_nid4_to_nid(SRC_NID, &h->src_nid);
	h->dest_pid = 12345;
	h->src_pid = 12345;
	h->type = LNET_MSG_PUT;
	h->payload_length = payload;
	h->msg.put.match_bits = 0x0102030405060708ULL;
	h->msg.put.ptl_index = 4;
	memset(&h->msg.put.ack_wmd, 0xff, sizeof(h->msg.put.ack_wmd));
}

/*
 * IMMEDIATE: the LNet header (LE, nid4) at 48, payload at 120; nob = 120 +
 * payload. The LNet header starts dest_nid, src_nid (u64 LE), then
 * dest_pid, src_pid, type, payload_length (u32 LE).
 */
static void
test_immediate(void **state)
{
	static const uint8_t dst_le[8] = { 0x02, 0x01, 0xa8, 0xc0, 0x00, 0x00, 0x05, 0x00 };
	static const uint8_t nob_4096[4] = { 0x00, 0x10, 0x00, 0x00 };
	static const uint8_t len_3976[4] = { 0x88, 0x0f, 0x00, 0x00 };
	uint8_t buf[O2IB_MSG_SIZE];
	uint8_t payload[O2IB_IMMEDIATE_MAX];
	struct lnet_hdr h;
	struct lnet_hdr back;
	struct o2ib_msg m;

	(void)state;
	for (size_t i = 0; i < sizeof(payload); i++) {
		payload[i] = (uint8_t)(i * 7);
	}
	fill_put_hdr(&h, 3976);
	assert_int_equal(O2IB_IMMEDIATE_MAX, 3976);
	assert_int_equal(o2ib_msg_immediate(buf, sizeof(buf), &h, payload, 3976), 4096);
	o2ib_msg_stamp(buf, &stamp_v2);
	assert_memory_equal(buf + 8, nob_4096, 4);
	assert_memory_equal(buf + 48, dst_le, 8);
	assert_int_equal(buf[48 + 24], LNET_MSG_PUT);
	assert_memory_equal(buf + 48 + 28, len_3976, 4);
	assert_memory_equal(buf + 120, payload, 3976);

	assert_int_equal(o2ib_msg_unpack(buf, sizeof(buf), &m), 0);
	assert_int_equal(m.type, O2IB_MSG_IMMEDIATE);
	assert_int_equal(m.u.imm.payload_nob, 3976);
	assert_ptr_equal(m.u.imm.payload, buf + 120);
	assert_int_equal(lnet_hdr_decode_nid4(m.u.imm.lnet_hdr, 72, &back), 0);
	assert_int_equal(back.payload_length, 3976);
	assert_true(back.msg.put.match_bits == h.msg.put.match_bits);

	/* one byte more does not fit a 4 KiB message */
	assert_int_equal(o2ib_msg_immediate(buf, sizeof(buf), &h, NULL, 3977), -O2IB_EINVAL);
	/* an empty one is 120 bytes */
	assert_int_equal(o2ib_msg_immediate(buf, sizeof(buf), &h, NULL, 0), 120);
	/* a header that has no nid4 form cannot be sent */
	memset(&h.dest_nid, 0, sizeof(h.dest_nid));
	h.dest_nid.nid_size = 12;
	h.dest_nid.nid_type = LNET_LND_O2IB;
	assert_int_equal(o2ib_msg_immediate(buf, sizeof(buf), &h, NULL, 0), -O2IB_EINVAL);
}

/* PUT_REQ: LNet header at 48, the cookie's 8 raw bytes at 120; 128 bytes. */
static void
test_put_req(void **state)
{
	uint8_t buf[256];
	struct lnet_hdr h;
	struct o2ib_msg m;
	uint64_t cookie = 0xa1a2a3a4a5a6a7a8ULL;

	(void)state;
	fill_put_hdr(&h, 1 << 20);
	assert_int_equal(o2ib_msg_put_req(buf, sizeof(buf), &h, cookie), 128);
	o2ib_msg_stamp(buf, &stamp_v2);
	assert_memory_equal(buf + 120, &cookie, 8);
	assert_int_equal(o2ib_msg_unpack(buf, 128, &m), 0);
	assert_true(m.u.put_req.cookie == cookie);
	assert_ptr_equal(m.u.put_req.lnet_hdr, buf + 48);
}

/*
 * PUT_ACK with one fragment (fast registration): src cookie @48, dst
 * cookie @56, key @64, nfrags @68, {nob @72, addr @76 (misaligned)}; 84.
 */
static const uint8_t put_ack_body_le[36] = {
	0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, /* src cookie */
	0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, /* dst cookie */
	0x78, 0x56, 0x34, 0x12, 0x01, 0x00, 0x00, 0x00, /* key 0x12345678, 1 frag */
	0x00, 0x00, 0x10, 0x00,                         /* nob 1 MiB */
	0x00, 0x10, 0x32, 0x54, 0x76, 0x98, 0x00, 0x00, /* addr 0x987654321000 */
};

static void
test_put_ack_golden(void **state)
{
	const struct o2ib_frag f = { 1 << 20, 0x987654321000ULL };
	uint8_t buf[128];
	uint8_t be[128];
	struct o2ib_msg m;
	struct o2ib_frag got;

	(void)state;
	assert_int_equal(o2ib_msg_put_ack(buf, sizeof(buf), 0x1111111111111111ULL,
					  0x2222222222222222ULL, 0x12345678, &f, 1),
			 84);
	o2ib_msg_stamp(buf, &stamp_v2);
	assert_memory_equal(buf + 48, put_ack_body_le, sizeof(put_ack_body_le));
	assert_int_equal(o2ib_msg_unpack(buf, 84, &m), 0);
	assert_int_equal(m.u.put_ack.rd.key, 0x12345678);
	assert_int_equal(m.u.put_ack.rd.nfrags, 1);
	o2ib_rd_frag(&m.u.put_ack.rd, 0, &got);
	assert_int_equal(got.nob, 1 << 20);
	assert_true(got.addr == 0x987654321000ULL);
	assert_true(o2ib_rd_nob(&m.u.put_ack.rd) == 1 << 20);

	/* a big-endian sink: key, nfrags and the fragment swapped, cookies as sent */
	memcpy(be, noop_be, 48);
	be[6] = 0xd4;
	be[11] = 84;
	memcpy(be + 48, put_ack_body_le, 16);
	memcpy(be + 64,
	       (const uint8_t[]){ 0x12, 0x34, 0x56, 0x78, 0x00, 0x00, 0x00, 0x01, 0x00, 0x10,
				  0x00, 0x00, 0x00, 0x00, 0x98, 0x76, 0x54, 0x32, 0x10, 0x00 },
	       20);
	assert_int_equal(o2ib_msg_unpack(be, 84, &m), 0);
	assert_true(m.swapped);
	assert_true(m.u.put_ack.src_cookie == 0x1111111111111111ULL);
	assert_int_equal(m.u.put_ack.rd.key, 0x12345678);
	o2ib_rd_frag(&m.u.put_ack.rd, 0, &got);
	assert_int_equal(got.nob, 1 << 20);
	assert_true(got.addr == 0x987654321000ULL);
}

/* GET_REQ with 257 fragments: 136 + 257 x 12 = 3220 bytes, within 4 KiB. */
static void
test_get_req_257_frags(void **state)
{
	static struct o2ib_frag frags[O2IB_MAX_RDMA_FRAGS + 1];
	static uint8_t buf[O2IB_MSG_SIZE];
	struct lnet_hdr h;
	struct o2ib_msg m;
	struct o2ib_frag got;
	uint32_t n;

	(void)state;
	for (uint32_t i = 0; i < O2IB_MAX_RDMA_FRAGS + 1; i++) {
		frags[i] = (struct o2ib_frag){ 4096, 0x100000000ULL + i * 4096ULL };
	}
	fill_put_hdr(&h, 0);
	h.type = LNET_MSG_GET;
	assert_int_equal(o2ib_msg_get_req(buf, sizeof(buf), &h, 7, 0xabcd, frags, 257), 3220);
	o2ib_msg_stamp(buf, &stamp_v2);
	assert_int_equal(o2ib_msg_unpack(buf, 3220, &m), 0);
	assert_int_equal(m.type, O2IB_MSG_GET_REQ);
	assert_true(m.u.get_req.cookie == 7);
	assert_int_equal(m.u.get_req.rd.nfrags, 257);
	o2ib_rd_frag(&m.u.get_req.rd, 256, &got);
	assert_true(got.addr == 0x100000000ULL + 256 * 4096ULL);
	assert_true(o2ib_rd_nob(&m.u.get_req.rd) == 257ULL * 4096);

	/* writers refuse 0 and 258 fragments */
	assert_int_equal(o2ib_msg_get_req(buf, sizeof(buf), &h, 7, 1, frags, 0), -O2IB_EINVAL);
	assert_int_equal(o2ib_msg_get_req(buf, sizeof(buf), &h, 7, 1, frags, 258), -O2IB_EINVAL);

	/* a reader refuses 0 and 258, and a count that does not fit nob */
	n = 258;
	memcpy(buf + 132, &n, 4);
	assert_int_equal(o2ib_msg_unpack(buf, 3220, &m), -O2IB_EFRAGS);
	n = 0;
	memcpy(buf + 132, &n, 4);
	assert_int_equal(o2ib_msg_unpack(buf, 3220, &m), -O2IB_EFRAGS);
	n = 257;
	memcpy(buf + 132, &n, 4);
	n = 3219; /* one byte short of 257 fragments */
	memcpy(buf + 8, &n, 4);
	assert_int_equal(o2ib_msg_unpack(buf, 3220, &m), -O2IB_ESHORT);
}

/* completions: cookie @48, status s32 @56; 60 bytes */
static void
test_completions(void **state)
{
	static const unsigned int types[] = { O2IB_MSG_PUT_NAK, O2IB_MSG_PUT_DONE,
					      O2IB_MSG_GET_DONE };
	static const uint8_t minus_61[4] = { 0xc3, 0xff, 0xff, 0xff };
	uint8_t buf[64];
	struct o2ib_msg m;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(o2ib_msg_completion(buf, sizeof(buf), types[i], 0x55, -61), 60);
		o2ib_msg_stamp(buf, &stamp_v2);
		assert_memory_equal(buf + 56, minus_61, 4);
		assert_int_equal(o2ib_msg_unpack(buf, 60, &m), 0);
		assert_int_equal(m.type, types[i]);
		assert_true(m.u.completion.cookie == 0x55);
		assert_int_equal(m.u.completion.status, -61); /* -ENODATA */
	}
	/* a big-endian status of 1 MiB */
	memcpy(buf + 56, (const uint8_t[]){ 0x00, 0x10, 0x00, 0x00 }, 4);
	memcpy(buf, noop_be, 48);
	buf[6] = O2IB_MSG_GET_DONE;
	buf[11] = 60;
	assert_int_equal(o2ib_msg_unpack(buf, 60, &m), 0);
	assert_int_equal(m.u.completion.status, 1 << 20);
	assert_int_equal(o2ib_msg_completion(buf, sizeof(buf), O2IB_MSG_NOOP, 1, 0), -O2IB_EINVAL);
}

/* Each unpack check, in the kernel's order. */
static void
test_unpack_checks(void **state)
{
	uint8_t buf[128];
	struct o2ib_msg m;

	(void)state;
	memcpy(buf, noop_le, 48);
	assert_int_equal(o2ib_msg_unpack(buf, 5, &m), -O2IB_ESHORT);
	/* 6 bytes are enough to judge magic and version */
	buf[0] = 0x92;
	assert_int_equal(o2ib_msg_unpack(buf, 6, &m), -O2IB_EMAGIC);
	buf[0] = 0x91;
	buf[4] = 0x13;
	assert_int_equal(o2ib_msg_unpack(buf, 6, &m), -O2IB_EVERSION);
	buf[4] = 0x12;
	assert_int_equal(o2ib_msg_unpack(buf, 47, &m), -O2IB_ESHORT);
	/* nob beyond what arrived */
	buf[8] = 49;
	assert_int_equal(o2ib_msg_unpack(buf, 48, &m), -O2IB_ENOB);
	buf[8] = 48;
	/* the LNet magic is not ours */
	memcpy(buf, (const uint8_t[]){ 0x63, 0x69, 0x72, 0x45 }, 4);
	assert_int_equal(o2ib_msg_unpack(buf, 48, &m), -O2IB_EMAGIC);
	memcpy(buf, noop_le, 48);
	/* srcnid ANY */
	memset(buf + 16, 0xff, 8);
	assert_int_equal(o2ib_msg_unpack(buf, 48, &m), -O2IB_ESRCANY);
	memcpy(buf, noop_le, 48);
	/* a type whose body is longer than nob */
	buf[6] = O2IB_MSG_CONNREQ;
	assert_int_equal(o2ib_msg_unpack(buf, 48, &m), -O2IB_ESHORT);
	buf[6] = O2IB_MSG_PUT_DONE;
	assert_int_equal(o2ib_msg_unpack(buf, 48, &m), -O2IB_ESHORT);
	/* unknown types */
	buf[6] = 0xd8;
	assert_int_equal(o2ib_msg_unpack(buf, 48, &m), -O2IB_ETYPE);
	buf[6] = 0x00;
	assert_int_equal(o2ib_msg_unpack(buf, 48, &m), -O2IB_ETYPE);
	/* bytes past nob are not part of the message */
	memcpy(buf, noop_le, 48);
	memset(buf + 48, 0xab, 80);
	assert_int_equal(o2ib_msg_unpack(buf, 128, &m), 0);
	assert_int_equal(m.nob, 48);
	assert_int_equal(o2ib_msg_unpack(NULL, 48, &m), -O2IB_EINVAL);
	assert_string_equal(o2ib_strerror(-O2IB_ECKSUM), "bad checksum");
	assert_string_equal(o2ib_msg_type_str(O2IB_MSG_GET_DONE), "GET_DONE");
}

/*
 * kib_rej (24 bytes): magic, version u16, why u8, pad, incarnation u64,
 * connparams. A v2 passive side refusing a queue depth of 16 with its 8.
 */
static const uint8_t rej_v2_le[24] = {
	0x91, 0x1b, 0xe9, 0x0b, 0x12, 0x00, 0x07, 0x00, 0x88, 0x77, 0x66, 0x55,
	0x44, 0x33, 0x22, 0x11, 0x08, 0x00, 0x01, 0x01, 0x00, 0x10, 0x00, 0x00,
};

static void
test_reject(void **state)
{
	const struct o2ib_rej r = { O2IB_MSG_MAGIC, O2IB_MSG_VERSION_2, O2IB_REJECT_MSG_QUEUE_SIZE,
				    false,          SRC_STAMP,          { 8, 257, 4096 },
				    false };
	uint8_t buf[148];
	uint8_t be[24] = {
		0x0b, 0xe9, 0x1b, 0x91, 0x00, 0x12, 0x06, 0x00, 0x11, 0x22, 0x33, 0x44,
		0x55, 0x66, 0x77, 0x88, 0x00, 0x08, 0x00, 0x20, 0x00, 0x00, 0x10, 0x00,
	};
	struct o2ib_rej got;

	(void)state;
	memset(buf, 0, sizeof(buf)); /* an IB CM REJ carries 148 bytes: the rest stays 0 */
	assert_int_equal(o2ib_rej_pack(buf, sizeof(buf), &r), 24);
	assert_memory_equal(buf, rej_v2_le, 24);
	assert_int_equal(o2ib_rej_unpack(buf, 148, &got), 0);
	assert_true(got.has_cp);
	assert_int_equal(got.why, O2IB_REJECT_MSG_QUEUE_SIZE);
	assert_true(got.incarnation == SRC_STAMP);
	assert_int_equal(got.cp.queue_depth, 8);

	/* big-endian RDMA_FRAGS reject offering 32 fragments */
	assert_int_equal(o2ib_rej_unpack(be, 24, &got), 0);
	assert_true(got.swapped);
	assert_int_equal(got.why, O2IB_REJECT_RDMA_FRAGS);
	assert_true(got.incarnation == SRC_STAMP);
	assert_int_equal(got.cp.max_frags, 32);
	assert_int_equal(got.cp.max_msg_size, 4096);

	/* a v1 peer's reject: no incarnation (all ones) and no connparams */
	memcpy(buf, rej_v2_le, 24);
	buf[4] = 0x11;
	buf[6] = O2IB_REJECT_FATAL;
	assert_int_equal(o2ib_rej_unpack(buf, 24, &got), 0);
	assert_false(got.has_cp);
	assert_true(got.incarnation == UINT64_MAX);

	/* 7 bytes are the least that is read as a kib_rej */
	assert_int_equal(o2ib_rej_unpack(rej_v2_le, 6, &got), -O2IB_ESHORT);
	assert_int_equal(o2ib_rej_unpack(rej_v2_le, 7, &got), 0);
	assert_false(got.has_cp);
	/* the LNet magic (a newer protocol's reject) is accepted, others not */
	memcpy(buf, rej_v2_le, 24);
	memcpy(buf, (const uint8_t[]){ 0x45, 0x72, 0x69, 0x63 }, 4); /* swapped LNET_PROTO_MAGIC */
	assert_int_equal(o2ib_rej_unpack(buf, 24, &got), -O2IB_EVERSION); /* 0x1200 swapped */
	assert_true(got.swapped);
	buf[0] = 0;
	assert_int_equal(o2ib_rej_unpack(buf, 24, &got), -O2IB_EMAGIC);
	memcpy(buf, rej_v2_le, 24);
	buf[4] = 0x13;
	assert_int_equal(o2ib_rej_unpack(buf, 24, &got), -O2IB_EVERSION);
}

/*
 * nidhash(): net XOR the address word as stored big-endian. For
 * 192.168.1.x@o2ib an x86 host reads that word as 0xXX01a8c0: the last
 * octet is the most significant, so .2 beats .1 and 10.0.0.2 beats
 * 192.168.1.1.
 */
static void
test_race_hash(void **state)
{
	(void)state;
	assert_true(o2ib_nid_race_hash(SRC_NID) == (0x00050000ULL ^ 0x0101a8c0ULL));
	assert_true(o2ib_nid_race_hash(DST_NID) > o2ib_nid_race_hash(SRC_NID));
	/* 10.0.0.2 hashes above 192.168.1.1: the low octet leads */
	assert_true(o2ib_nid_race_hash(0x000500000a000002ULL) > o2ib_nid_race_hash(SRC_NID));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noop_golden),
		cmocka_unit_test(test_noop_byte_swapped_peer),
		cmocka_unit_test(test_v1_same_layout),
		cmocka_unit_test(test_cksum_signed_bytes),
		cmocka_unit_test(test_cksum_golden_both_orders),
		cmocka_unit_test(test_connreq_golden),
		cmocka_unit_test(test_immediate),
		cmocka_unit_test(test_put_req),
		cmocka_unit_test(test_put_ack_golden),
		cmocka_unit_test(test_get_req_257_frags),
		cmocka_unit_test(test_completions),
		cmocka_unit_test(test_unpack_checks),
		cmocka_unit_test(test_reject),
		cmocka_unit_test(test_race_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
