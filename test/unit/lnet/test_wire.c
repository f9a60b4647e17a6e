/* SPDX-License-Identifier: BSD-3-Clause */
/* Wire formats: golden bytes, real kernel bytes, round trips and every decoder error. */
#include <arpa/inet.h>
#include <endian.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lnet_wire.h"

static struct lnet_nid
tcp(uint32_t addr, uint16_t net)
{
	struct lnet_nid nid;

	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(LNET_LND_SOCK, net), addr), &nid);
	return nid;
}

static struct lnet_nid
tcp6(const char *addr)
{
	struct lnet_nid nid = { .nid_size = 12, .nid_type = LNET_LND_SOCK };

	assert_int_equal(inet_pton(AF_INET6, addr, nid.nid_addr), 1);
	return nid;
}

static uint64_t
rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static struct lnet_hdr
sample_put(void)
{
	struct lnet_hdr h;

	memset(&h, 0, sizeof(h));
	h.dest_nid = tcp(0x0a000002, 0);
	h.src_nid = tcp(0x0a000001, 1);
	h.dest_pid = 12345;
	h.src_pid = 0x80000000U | 77;
	h.type = LNET_MSG_PUT;
	h.payload_length = 4096;
	h.msg.put.ack_wmd.wh_interface_cookie = 0x0102030405060708ULL;
	h.msg.put.ack_wmd.wh_object_cookie = 0x1112131415161718ULL;
	h.msg.put.match_bits = 0xa1a2a3a4a5a6a7a8ULL;
	h.msg.put.hdr_data = 0xb1b2b3b4b5b6b7b8ULL;
	h.msg.put.ptl_index = 9;
	h.msg.put.offset = 123;
	return h;
}

static void
test_put_nid4_golden_offsets(void **state)
{
	struct lnet_hdr h = sample_put();
	struct lnet_hdr back;
	uint8_t b[72];
	uint64_t cookie;

	(void)state;
	assert_int_equal(lnet_hdr_encode_nid4(&h, b, sizeof(b)), 0);
	assert_int_equal(rd64(b + 0), 0x000200000a000002ULL);
	assert_int_equal(rd64(b + 8), 0x000200010a000001ULL);
	assert_int_equal(rd32(b + 16), 12345);
	assert_int_equal(rd32(b + 20), 0x8000004d);
	assert_int_equal(rd32(b + 24), LNET_MSG_PUT);
	assert_int_equal(rd32(b + 28), 4096);
	memcpy(&cookie, b + 32, 8); /* verbatim, not converted */
	assert_int_equal(cookie, 0x0102030405060708ULL);
	memcpy(&cookie, b + 40, 8);
	assert_int_equal(cookie, 0x1112131415161718ULL);
	assert_int_equal(rd64(b + 48), 0xa1a2a3a4a5a6a7a8ULL);
	assert_int_equal(rd64(b + 56), 0xb1b2b3b4b5b6b7b8ULL);
	assert_int_equal(rd32(b + 64), 9);
	assert_int_equal(rd32(b + 68), 123);
	assert_int_equal(lnet_hdr_decode_nid4(b, sizeof(b), &back), 0);
	assert_memory_equal(&back, &h, sizeof(h));
}

static void
test_get_ack_reply_nid4_offsets(void **state)
{
	struct lnet_hdr h = sample_put();
	struct lnet_hdr back;
	uint8_t b[72];

	(void)state;
	memset(&h.msg, 0, sizeof(h.msg));
	h.type = LNET_MSG_GET;
	h.payload_length = 0;
	h.msg.get.match_bits = 0x8000000000000000ULL;
	h.msg.get.ptl_index = 4;
	h.msg.get.src_offset = 5;
	h.msg.get.sink_length = 3960;
	assert_int_equal(lnet_hdr_encode_nid4(&h, b, sizeof(b)), 0);
	assert_int_equal(rd64(b + 48), 0x8000000000000000ULL);
	assert_int_equal(rd32(b + 56), 4);
	assert_int_equal(rd32(b + 60), 5);
	assert_int_equal(rd32(b + 64), 3960);
	assert_int_equal(lnet_hdr_decode_nid4(b, sizeof(b), &back), 0);
	assert_memory_equal(&back, &h, sizeof(h));

	memset(&h.msg, 0, sizeof(h.msg));
	h.type = LNET_MSG_ACK;
	h.msg.ack.match_bits = 42;
	h.msg.ack.mlength = 4096;
	assert_int_equal(lnet_hdr_encode_nid4(&h, b, sizeof(b)), 0);
	assert_int_equal(rd64(b + 48), 42);
	assert_int_equal(rd32(b + 56), 4096);
	assert_int_equal(lnet_hdr_decode_nid4(b, sizeof(b), &back), 0);
	assert_memory_equal(&back, &h, sizeof(h));

	memset(&h.msg, 0xee, sizeof(h.msg.reply));
	h.type = LNET_MSG_REPLY;
	h.payload_length = 100;
	assert_int_equal(lnet_hdr_encode_nid4(&h, b, sizeof(b)), 0);
	assert_memory_equal(b + 32, &h.msg.reply.dst_wmd, 16);
	assert_int_equal(rd64(b + 48), 0); /* the rest of the union is zero */
	assert_int_equal(lnet_hdr_decode_nid4(b, sizeof(b), &back), 0);
	assert_memory_equal(&back.msg.reply, &h.msg.reply, sizeof(h.msg.reply));
}

static void
test_nid16_ipv6_round_trip(void **state)
{
	struct lnet_hdr h = sample_put();
	struct lnet_hdr back;
	uint8_t b[96];

	(void)state;
	h.src_nid = tcp6("2001:db8::5");
	h.dest_nid = tcp6("fe80::1");
	assert_int_equal(lnet_hdr_encode_nid4(&h, b, sizeof(b)), -LNET_WIRE_ENID4);
	assert_int_equal(lnet_hdr_encode_nid16(&h, b, sizeof(b)), 0);
	/* NIDs are raw structs at 0 and 20, never swapped */
	assert_int_equal(b[0], 12);
	assert_int_equal(b[1], LNET_LND_SOCK);
	assert_int_equal(b[4], 0xfe);
	assert_int_equal(b[5], 0x80);
	assert_int_equal(b[20], 12);
	assert_int_equal(b[24], 0x20);
	assert_int_equal(b[25], 0x01);
	assert_int_equal(rd32(b + 40), 12345);
	assert_int_equal(rd32(b + 48), LNET_MSG_PUT);
	assert_int_equal(rd32(b + 52), 4096);
	assert_int_equal(rd64(b + 56 + 16), 0xa1a2a3a4a5a6a7a8ULL);
	assert_int_equal(rd32(b + 56 + 32), 9);
	assert_int_equal(lnet_hdr_decode_nid16(b, sizeof(b), &back), 0);
	assert_memory_equal(&back, &h, sizeof(h));
}

static void
test_header_errors(void **state)
{
	struct lnet_hdr h = sample_put();
	struct lnet_hdr back;
	uint8_t b[96];

	(void)state;
	assert_int_equal(lnet_hdr_encode_nid4(&h, b, 71), -LNET_WIRE_ESHORT);
	assert_int_equal(lnet_hdr_encode_nid16(&h, b, 95), -LNET_WIRE_ESHORT);
	assert_int_equal(lnet_hdr_encode_nid4(&h, b, 72), 0);
	assert_int_equal(lnet_hdr_decode_nid4(b, 71, &back), -LNET_WIRE_ESHORT);
	assert_int_equal(lnet_hdr_decode_nid4(NULL, 72, &back), -LNET_WIRE_ESHORT);
	assert_int_equal(lnet_hdr_decode_nid16(b, 95, &back), -LNET_WIRE_ESHORT);

	h.type = LNET_MSG_HELLO;
	assert_int_equal(lnet_hdr_validate(&h), -LNET_WIRE_ETYPE);
	h.type = 77;
	lnet_hdr_encode_nid4(&h, b, 72);
	assert_int_equal(lnet_hdr_decode_nid4(b, 72, &back), -LNET_WIRE_ETYPE);
	h = sample_put();
	h.payload_length = LNET_MTU + 1;
	assert_int_equal(lnet_hdr_validate(&h), -LNET_WIRE_EPAYLOAD);
	h.payload_length = LNET_MTU;
	assert_int_equal(lnet_hdr_validate(&h), 0);
	h.type = LNET_MSG_GET;
	h.payload_length = 1;
	assert_int_equal(lnet_hdr_validate(&h), -LNET_WIRE_EPAYLOAD);
	h.type = LNET_MSG_ACK;
	assert_int_equal(lnet_hdr_validate(&h), -LNET_WIRE_EPAYLOAD);
	h = sample_put();
	h.src_nid = LNET_ANY_NID;
	assert_int_equal(lnet_hdr_validate(&h), -LNET_WIRE_ESRCANY);
	h = sample_put();
	h.src_nid.nid_size = 3;
	assert_int_equal(lnet_hdr_validate(&h), -LNET_WIRE_ENID);
	h.src_nid.nid_size = 16;
	assert_int_equal(lnet_hdr_validate(&h), -LNET_WIRE_ENID);
	h = sample_put();
	h.dest_nid.nid_addr[2] = 1; /* beyond a 4-byte address */
	assert_int_equal(lnet_hdr_validate(&h), -LNET_WIRE_ENID);
	h = sample_put();
	h.dest_nid.nid_type = 0xff; /* half an ANY */
	assert_int_equal(lnet_hdr_validate(&h), -LNET_WIRE_ENID);
	/* 64-bit NIDs with a set top byte or a 0xff LND type are malformed */
	h = sample_put();
	lnet_hdr_encode_nid4(&h, b, 72);
	b[7] = 0x01;
	assert_int_equal(lnet_hdr_decode_nid4(b, 72, &back), -LNET_WIRE_ENID);
	b[7] = 0x00;
	b[14] = 0xff;
	assert_int_equal(lnet_hdr_decode_nid4(b, 72, &back), -LNET_WIRE_ENID);
	/* The ANY wildcard as a destination: all ones on the wire, ANY back */
	h = sample_put();
	h.dest_nid = LNET_ANY_NID;
	assert_int_equal(lnet_hdr_encode_nid4(&h, b, 72), 0);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(b[i], 0xff);
	}
	assert_int_equal(lnet_hdr_decode_nid4(b, 72, &back), 0);
	assert_true(lnet_nid_same(&back.dest_nid, &LNET_ANY_NID));
	assert_string_equal(lnet_wire_strerror(-LNET_WIRE_ESHORT),
			    "buffer shorter than the format");
	assert_string_equal(lnet_wire_strerror(-999), "unknown wire error");
}

static void
test_handle_none(void **state)
{
	struct lnet_handle_wire wh = { LNET_WIRE_HANDLE_COOKIE_NONE, LNET_WIRE_HANDLE_COOKIE_NONE };

	(void)state;
	assert_true(lnet_wire_handle_is_none(&wh));
	wh.wh_object_cookie = 5;
	assert_false(lnet_wire_handle_is_none(&wh));
}

/*
 * Real kernel bytes: shared/captures/kernel/s2_01_ping_discovery_off.pcap,
 * frame 12 (GET, ping of 192.0.2.12 by 192.0.2.11) and frame 15 (its REPLY),
 * LNet header after the 24-byte ksock_msg header.
 */
static const uint8_t kernel_get_hdr[72] = {
	0x0c, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02,
	0x00, 0x39, 0x30, 0x00, 0x00, 0x39, 0x30, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x35, 0x9c, 0xdf, 0x96, 0x14, 0x5a, 0xea, 0x18, 0x0d, 0x1c, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x78, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t kernel_reply_hdr[72] = {
	0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x0c, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02,
	0x00, 0x39, 0x30, 0x00, 0x00, 0x39, 0x30, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x30, 0x00,
	0x00, 0x00, 0x35, 0x9c, 0xdf, 0x96, 0x14, 0x5a, 0xea, 0x18, 0x0d, 0x1c, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t kernel_ping_info[48] = {
	0x67, 0x6e, 0x69, 0x70, 0x0e, 0x00, 0x00, 0x00, 0x39, 0x30, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x02, 0x00, 0xc0,
	0x00, 0x00, 0x02, 0x00, 0xde, 0xc0, 0xaa, 0x15, 0x00, 0x00, 0x00, 0x00,
};

static void
test_kernel_ping_get_and_reply(void **state)
{
	struct lnet_hdr get;
	struct lnet_hdr reply;
	uint8_t again[72];

	(void)state;
	assert_int_equal(lnet_hdr_decode_nid4(kernel_get_hdr, 72, &get), 0);
	assert_int_equal(get.type, LNET_MSG_GET);
	assert_int_equal(lnet_nid_to_nid4(&get.src_nid), LNET_MKNID(LNET_MKNET(2, 0), 0xc000020b));
	assert_int_equal(lnet_nid_to_nid4(&get.dest_nid), LNET_MKNID(LNET_MKNET(2, 0), 0xc000020c));
	assert_int_equal(get.src_pid, LNET_PID_LUSTRE);
	assert_int_equal(get.dest_pid, LNET_PID_LUSTRE);
	assert_int_equal(get.payload_length, 0);
	assert_int_equal(get.msg.get.match_bits, LNET_PROTO_PING_MATCHBITS);
	assert_int_equal(get.msg.get.ptl_index, LNET_RESERVED_PORTAL);
	assert_int_equal(get.msg.get.sink_length, 3960);
	assert_int_equal(lnet_hdr_encode_nid4(&get, again, sizeof(again)), 0);
	assert_memory_equal(again, kernel_get_hdr, 72);

	assert_int_equal(lnet_hdr_decode_nid4(kernel_reply_hdr, 72, &reply), 0);
	assert_int_equal(reply.type, LNET_MSG_REPLY);
	assert_int_equal(reply.payload_length, sizeof(kernel_ping_info));
	/* the REPLY echoes the GET's return handle byte for byte */
	assert_memory_equal(&reply.msg.reply.dst_wmd, &get.msg.get.return_wmd, 16);
	assert_int_equal(lnet_hdr_encode_nid4(&reply, again, sizeof(again)), 0);
	assert_memory_equal(again, kernel_reply_hdr, 72);
}

static void
test_kernel_ping_info(void **state)
{
	struct lnet_ping_decoded d;
	struct lnet_ping_entry nis[4];

	(void)state;
	assert_int_equal(lnet_ping_info_decode(kernel_ping_info, sizeof(kernel_ping_info), 4096, &d,
					       nis, 4),
			 0);
	assert_false(d.swapped);
	assert_int_equal(d.features, LNET_PING_FEAT_NI_STATUS | LNET_PING_FEAT_RTE_DISABLED |
					     LNET_PING_FEAT_MULTI_RAIL);
	assert_int_equal(d.pid, 12345);
	assert_int_equal(d.seqno, 2);
	assert_int_equal(d.nnis_total, 1);
	assert_int_equal(d.info_size, 48);
	assert_int_equal(lnet_nid_to_nid4(&d.primary), LNET_MKNID(LNET_MKNET(2, 0), 0xc000020c));
	assert_int_equal(nis[0].status, LNET_NI_STATUS_UP);
}

static void
test_ping_encode_matches_kernel(void **state)
{
	struct lnet_ping_entry ni = { tcp(0xc000020c, 0), LNET_NI_STATUS_UP };
	struct lnet_ping_src src = {
		.features = LNET_PING_FEAT_RTE_DISABLED | LNET_PING_FEAT_MULTI_RAIL,
		.pid = 12345,
		.seqno = 2,
		.nis = &ni,
		.nnis = 1,
	};
	uint8_t b[64];
	size_t n = 0;

	(void)state;
	assert_int_equal(lnet_ping_info_size(&src, &n), 0);
	assert_int_equal(n, 48);
	assert_int_equal(lnet_ping_info_encode(&src, b, 47, &n), -LNET_WIRE_ESHORT);
	assert_int_equal(lnet_ping_info_encode(&src, b, sizeof(b), &n), 0);
	assert_int_equal(n, 48);
	assert_memory_equal(b, kernel_ping_info, 48);
}

static void
test_ping_round_trip_sizes(void **state)
{
	static const unsigned int counts[] = { 0, 1, 16, 4096 };
	struct lnet_ping_entry *nis = calloc(4096, sizeof(*nis));
	struct lnet_ping_entry *out = calloc(4096, sizeof(*out));
	uint8_t *buf = malloc(16 + 16 * 4097);
	unsigned int c;
	unsigned int i;

	(void)state;
	for (i = 0; i < 4096; i++) {
		nis[i].nid = tcp(0x0a000000 + i, (uint16_t)(i % 3));
		nis[i].status = i % 2 ? LNET_NI_STATUS_UP : LNET_NI_STATUS_DOWN;
	}
	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		struct lnet_ping_src src = {
			.pid = 12345, .seqno = 7, .nis = nis, .nnis = counts[c]
		};
		struct lnet_ping_decoded d;
		size_t n;

		assert_int_equal(lnet_ping_info_encode(&src, buf, 16 + 16 * 4097, &n), 0);
		assert_int_equal(n, 16 + 16 * (counts[c] + 1));
		assert_int_equal(lnet_ping_info_decode(buf, n, 4097, &d, out, 4096), 0);
		assert_int_equal(d.nnis_total, counts[c]);
		assert_int_equal(d.seqno, 7);
		for (i = 0; i < counts[c]; i++) {
			assert_true(lnet_nid_same(&out[i].nid, &nis[i].nid));
			assert_int_equal(out[i].status, nis[i].status);
		}
	}
	free(nis);
	free(out);
	free(buf);
}

static void
test_ping_large_addrs(void **state)
{
	struct lnet_ping_entry nis[3] = {
		{ tcp6("2001:db8::1"), LNET_NI_STATUS_UP },
		{ tcp(0x0a000001, 0), LNET_NI_STATUS_UP },
		{ tcp6("2001:db8::2"), LNET_NI_STATUS_DOWN },
	};
	struct lnet_ping_src src = { .pid = 12345, .seqno = 3, .nis = nis, .nnis = 3 };
	struct lnet_ping_entry out[3];
	struct lnet_ping_decoded d;
	uint8_t b[128];
	size_t n;

	(void)state;
	assert_int_equal(lnet_ping_info_encode(&src, b, sizeof(b), &n), 0);
	assert_int_equal(n, 16 + 16 * 2 + 24 * 2);
	assert_int_equal(rd32(b + 4) & (LNET_PING_FEAT_LARGE_ADDR | LNET_PING_FEAT_PRIMARY_LARGE),
			 LNET_PING_FEAT_LARGE_ADDR | LNET_PING_FEAT_PRIMARY_LARGE);
	assert_int_equal(rd32(b + 12), 2);      /* nid4 entries: lo + one */
	assert_int_equal(rd32(b + 16 + 12), n); /* lo's msg_size = total */
	assert_int_equal(lnet_ping_info_decode(b, n, 16, &d, out, 3), 0);
	assert_int_equal(d.nnis_total, 3);
	assert_true(lnet_nid_same(&d.primary, &nis[0].nid));
	assert_true(lnet_nid_same(&out[0].nid, &nis[1].nid)); /* nid4 array first */
	assert_true(lnet_nid_same(&out[1].nid, &nis[0].nid));
	assert_true(lnet_nid_same(&out[2].nid, &nis[2].nid));
	assert_int_equal(out[2].status, LNET_NI_STATUS_DOWN);
	/* truncated: the decoder says how much it needs */
	assert_int_equal(lnet_ping_info_decode(b, n - 4, 16, &d, out, 3), -LNET_WIRE_ESHORT);
	assert_int_equal(d.info_size, n);
	/* a record claiming an impossible NID size */
	b[16 + 32 + 4] = 13;
	assert_int_equal(lnet_ping_info_decode(b, n, 16, &d, out, 3), -LNET_WIRE_ENID);
}

/* The kernel's lnet_ping() buffer: 16 + 24 per NI, capped at its LNET_PING_BUFFER_MAX. */
static void
test_ping_reply_bufsize(void **state)
{
	(void)state;
	assert_int_equal(lnet_ping_reply_bufsize(200),
			 3960); /* the default: `lnetctl ping`'s GET */
	assert_int_equal(lnet_ping_reply_bufsize(4096), 3960);
	assert_int_equal(lnet_ping_reply_bufsize(165), 3960);
	assert_int_equal(lnet_ping_reply_bufsize(164), 16 + 24 * 164);
	assert_int_equal(lnet_ping_reply_bufsize(16), 400);
}

/* Ping info of 0@lo and n nid4 NIs 10.0.0.1.. (n + 1 entries); its size. */
static size_t
ping_nid4s(uint8_t *buf, size_t len, unsigned int n)
{
	struct lnet_ping_entry *nis = calloc(n + 1, sizeof(*nis));
	struct lnet_ping_src src = { .pid = 12345, .seqno = 2, .nis = nis, .nnis = n };
	unsigned int i;
	size_t got = 0;

	for (i = 0; i < n; i++) {
		nis[i].nid = tcp(0x0a000001 + i, 0);
		nis[i].status = LNET_NI_STATUS_UP;
	}
	assert_int_equal(lnet_ping_info_encode(&src, buf, len, &got), 0);
	free(nis);
	return got;
}

/*
 * A reply cut by the buffer, read as lnet_ping() reads it: at the default
 * (n_ids 200, 3960 bytes) a 300-NI node's reply lists the 245 NIs that came
 * whole, past n_ids; with fewer whole entries than n_ids it is refused.
 */
static void
test_ping_reply_cut(void **state)
{
	struct lnet_ping_entry *out = calloc(300, sizeof(*out));
	uint8_t *b = malloc(16 + 16 * 301);
	struct lnet_ping_decoded d;
	size_t n = ping_nid4s(b, 16 + 16 * 301, 300);

	(void)state;
	assert_int_equal(n, 16 + 16 * 301);
	assert_int_equal(lnet_ping_reply_read(b, 3960, 3960, 200, &d, out, 300), 0);
	assert_int_equal(d.nnis_total, 245); /* (3960 - 16) / 16 = 246 entries, 0@lo aside */
	assert_int_equal(d.info_size, n);
	assert_int_equal(lnet_nid_to_nid4(&out[244].nid),
			 LNET_MKNID(LNET_MKNET(2, 0), 0x0a000001 + 244));
	assert_true(lnet_nid_same(&d.primary, &out[0].nid));
	/* n_ids 250 (set max_interfaces 250): 246 whole entries are too few */
	assert_int_equal(lnet_ping_reply_read(b, 3960, 3960, 250, &d, out, 300), -LNET_WIRE_ESHORT);
	/* a reply short of its declared size that did not fill the buffer */
	assert_int_equal(lnet_ping_reply_read(b, 3000, 3960, 200, &d, out, 300), -LNET_WIRE_ESHORT);
	/* whole replies: below n_ids entries they stand; 200 or more must fill the buffer */
	n = ping_nid4s(b, 16 + 16 * 301, 198);
	assert_int_equal(lnet_ping_reply_read(b, n, 3960, 200, &d, out, 300), 0);
	assert_int_equal(d.nnis_total, 198);
	n = ping_nid4s(b, 16 + 16 * 301, 199);
	assert_int_equal(lnet_ping_reply_read(b, n, 3960, 200, &d, out, 300), -LNET_WIRE_ESHORT);
	/* the header checks stay */
	b[0] ^= 1;
	assert_int_equal(lnet_ping_reply_read(b, n, 3960, 200, &d, out, 300), -LNET_WIRE_EMAGIC);
	assert_int_equal(lnet_ping_reply_read(b, 31, 3960, 200, &d, out, 300), -LNET_WIRE_ESHORT);
	free(out);
	free(b);
}

/* Large records cut mid-record: only whole ones count (24 bytes each for IPv6). */
static void
test_ping_reply_cut_large(void **state)
{
	struct lnet_ping_entry nis[20];
	struct lnet_ping_src src = { .pid = 12345, .seqno = 2, .nis = nis, .nnis = 20 };
	struct lnet_ping_entry out[20];
	struct lnet_ping_decoded d;
	char s[48];
	uint8_t b[16 + 16 + 24 * 20];
	size_t n;
	unsigned int i;

	(void)state;
	for (i = 0; i < 20; i++) {
		snprintf(s, sizeof(s), "2001:db8::%x", i + 1);
		nis[i].nid = tcp6(s);
		nis[i].status = LNET_NI_STATUS_UP;
	}
	assert_int_equal(lnet_ping_info_encode(&src, b, sizeof(b), &n), 0);
	assert_int_equal(n, sizeof(b));
	/* n_ids 16: a 400-byte buffer, 0@lo + 15 whole records + 8 bytes of the 16th */
	assert_int_equal(lnet_ping_reply_bufsize(16), 400);
	assert_int_equal(lnet_ping_reply_read(b, 400, 400, 16, &d, out, 20), 0);
	assert_int_equal(d.nnis_total, 15);
	assert_true(lnet_nid_same(&out[14].nid, &nis[14].nid));
	assert_true(lnet_nid_same(&d.primary, &nis[0].nid));
	/* n_ids 17 with the same cut: 16 entries are too few */
	assert_int_equal(lnet_ping_reply_read(b, 400, 400, 17, &d, out, 20), -LNET_WIRE_ESHORT);
}

/* A large record with a nid4-sized NID: the kernel accepts it, and PRIMARY_LARGE skips it. */
static size_t
put_large_record(uint8_t *p, const struct lnet_nid *nid, uint32_t status)
{
	size_t rec = (4 + 8 + nid->nid_size + 3) & ~3U;

	memset(p, 0, rec);
	memcpy(p, &status, 4);
	memcpy(p + 4, nid, 8 + nid->nid_size);
	return rec;
}

static void
test_ping_primary_large_skips_nid4_records(void **state)
{
	struct lnet_nid n4 = tcp(0x0a000001, 0);
	struct lnet_nid n6 = tcp6("2001:db8::1");
	struct lnet_ping_entry out[4];
	struct lnet_ping_decoded d;
	uint8_t b[128];
	uint32_t feat;
	size_t n = 32;

	(void)state;
	memcpy(b, kernel_ping_info, 32); /* header and 0@lo */
	feat = rd32(b + 4) | LNET_PING_FEAT_LARGE_ADDR | LNET_PING_FEAT_PRIMARY_LARGE;
	memcpy(b + 4, &feat, 4);
	b[12] = 1; /* nid4 section: 0@lo only */
	n += put_large_record(b + n, &n4, LNET_NI_STATUS_UP);
	n += put_large_record(b + n, &n6, LNET_NI_STATUS_UP);
	memcpy(b + 28, &(uint32_t){ (uint32_t)n }, 4);
	assert_int_equal(lnet_ping_info_decode(b, n, 16, &d, out, 4), 0);
	assert_int_equal(d.nnis_total, 2);
	assert_true(lnet_nid_same(&d.primary, &n6));
	/* no large NID, no nid4 NI after 0@lo: no primary, as the kernel finds none */
	n = 32 + put_large_record(b + 32, &n4, LNET_NI_STATUS_UP);
	memcpy(b + 28, &(uint32_t){ (uint32_t)n }, 4);
	assert_int_equal(lnet_ping_info_decode(b, n, 16, &d, out, 4), 0);
	assert_true(lnet_nid_is_any(&d.primary));
}

/*
 * The limit counts every entry, 0@lo included, whichever section it is in:
 * once it counted the large section without 0@lo, so a buffer it accepted
 * re-encoded (nid4 NIDs move to the nid4 section) into one it refused
 * (../shared/findings/fuzz_lnet_ping-roundtrip-1.bin).
 */
static void
test_ping_nis_limit_is_the_same_in_both_sections(void **state)
{
	struct lnet_ping_entry nis[3];
	struct lnet_ping_entry out[3];
	struct lnet_ping_decoded d;
	uint8_t b[128];
	uint32_t feat;
	unsigned int i;
	size_t n = 32;

	(void)state;
	memcpy(b, kernel_ping_info, 32);
	feat = rd32(b + 4) | LNET_PING_FEAT_LARGE_ADDR;
	memcpy(b + 4, &feat, 4);
	b[12] = 1;
	for (i = 0; i < 3; i++) {
		nis[i].nid = tcp(0x0a000001 + i, 0);
		nis[i].status = LNET_NI_STATUS_UP;
		n += put_large_record(b + n, &nis[i].nid, nis[i].status);
	}
	memcpy(b + 28, &(uint32_t){ (uint32_t)n }, 4);
	/* 0@lo + 3 entries: a limit of 3 refuses it, as it refuses 4 nid4 entries */
	assert_int_equal(lnet_ping_info_decode(b, n, 3, &d, out, 3), -LNET_WIRE_ENNIS);
	assert_int_equal(lnet_ping_info_decode(b, n, 4, &d, out, 3), 0);
	{
		struct lnet_ping_src src = {
			.pid = d.pid, .seqno = d.seqno, .nis = out, .nnis = 3
		};
		uint8_t again[128];
		size_t m;

		assert_int_equal(lnet_ping_info_encode(&src, again, sizeof(again), &m), 0);
		assert_int_equal(lnet_ping_info_decode(again, m, 3, &d, NULL, 0), -LNET_WIRE_ENNIS);
		assert_int_equal(lnet_ping_info_decode(again, m, 4, &d, NULL, 0), 0);
	}
}

static void
swap_ping(uint8_t *b, size_t nentries)
{
	size_t i;

	for (i = 0; i < 4; i++) {
		uint32_t v;

		memcpy(&v, b + 4 * i, 4);
		v = __builtin_bswap32(v);
		memcpy(b + 4 * i, &v, 4);
	}
	for (i = 0; i < nentries; i++) {
		uint8_t *e = b + 16 + 16 * i;
		uint64_t nid;
		uint32_t v;

		memcpy(&nid, e, 8);
		nid = __builtin_bswap64(nid);
		memcpy(e, &nid, 8);
		memcpy(&v, e + 8, 4);
		v = __builtin_bswap32(v);
		memcpy(e + 8, &v, 4);
	}
}

static void
test_ping_byte_swapped_sender(void **state)
{
	uint8_t b[48];
	struct lnet_ping_decoded d;
	struct lnet_ping_entry out[1];

	(void)state;
	memcpy(b, kernel_ping_info, sizeof(b));
	swap_ping(b, 2); /* as a big-endian node would send it */
	assert_int_equal(lnet_ping_info_decode(b, sizeof(b), 16, &d, out, 1), 0);
	assert_true(d.swapped);
	assert_int_equal(d.pid, 12345);
	assert_int_equal(d.seqno, 2);
	assert_int_equal(out[0].status, LNET_NI_STATUS_UP);
	assert_int_equal(lnet_nid_to_nid4(&out[0].nid), LNET_MKNID(LNET_MKNET(2, 0), 0xc000020c));
}

static void
test_ping_errors(void **state)
{
	uint8_t b[48];
	struct lnet_ping_decoded d;
	uint32_t v;

	(void)state;
	assert_int_equal(lnet_ping_info_decode(kernel_ping_info, 31, 16, &d, NULL, 0),
			 -LNET_WIRE_ESHORT);
	assert_int_equal(lnet_ping_info_decode(kernel_ping_info, 47, 16, &d, NULL, 0),
			 -LNET_WIRE_ESHORT);
	assert_int_equal(d.info_size, 48);
	assert_int_equal(lnet_ping_info_decode(NULL, 48, 16, &d, NULL, 0), -LNET_WIRE_ESHORT);
	assert_int_equal(lnet_ping_info_decode(kernel_ping_info, 48, 16, NULL, NULL, 0),
			 -LNET_WIRE_EINVAL);

	memcpy(b, kernel_ping_info, 48);
	b[0] ^= 1;
	assert_int_equal(lnet_ping_info_decode(b, 48, 16, &d, NULL, 0), -LNET_WIRE_EMAGIC);
	memcpy(b, kernel_ping_info, 48);
	v = htole32(LNET_PING_FEAT_MULTI_RAIL); /* no NI_STATUS */
	memcpy(b + 4, &v, 4);
	assert_int_equal(lnet_ping_info_decode(b, 48, 16, &d, NULL, 0), -LNET_WIRE_EFEATURES);
	/* Bits the kernel does not know pass, as its lnet_ping_info_validate() lets them. */
	v = htole32(LNET_PING_FEAT_NI_STATUS | 0x100 | 0x80000000U);
	memcpy(b + 4, &v, 4);
	assert_int_equal(lnet_ping_info_decode(b, 48, 16, &d, NULL, 0), 0);
	assert_int_equal(d.features, LNET_PING_FEAT_NI_STATUS | 0x100 | 0x80000000U);
	assert_int_equal(d.nnis_total, 1);
	memcpy(b, kernel_ping_info, 48);
	v = 0;
	memcpy(b + 12, &v, 4);
	assert_int_equal(lnet_ping_info_decode(b, 48, 16, &d, NULL, 0), -LNET_WIRE_ENNIS);
	assert_int_equal(lnet_ping_info_decode(kernel_ping_info, 48, 1, &d, NULL, 0),
			 -LNET_WIRE_ENNIS);
	memcpy(b, kernel_ping_info, 48);
	b[32 + 7] = 0x3f; /* entry 1's top byte set: not a 64-bit NID */
	assert_int_equal(lnet_ping_info_decode(b, 48, 16, &d, NULL, 0), -LNET_WIRE_ENID);
	memcpy(b, kernel_ping_info, 48);
	b[16 + 6] = 0x02; /* entry 0 becomes a tcp NID */
	assert_int_equal(lnet_ping_info_decode(b, 48, 16, &d, NULL, 0), -LNET_WIRE_ELO);
	memcpy(b, kernel_ping_info, 48);
	v = htole32(LNET_PING_FEAT_NI_STATUS | LNET_PING_FEAT_LARGE_ADDR);
	memcpy(b + 4, &v, 4);
	v = htole32(20); /* declared total smaller than the nid4 array */
	memcpy(b + 16 + 12, &v, 4);
	assert_int_equal(lnet_ping_info_decode(b, 48, 16, &d, NULL, 0), -LNET_WIRE_ESIZE);
	v = htole32(56); /* a large tail too short for one record */
	memcpy(b + 16 + 12, &v, 4);
	assert_int_equal(lnet_ping_info_decode(b, 48, 16, &d, NULL, 0), -LNET_WIRE_ESHORT);
	assert_int_equal(d.info_size, 56);
	{
		uint8_t big[56] = { 0 };

		memcpy(big, b, 48);
		assert_int_equal(lnet_ping_info_decode(big, 56, 16, &d, NULL, 0), -LNET_WIRE_ESIZE);
	}
}

static void
test_ping_encode_errors(void **state)
{
	struct lnet_ping_entry bad = { LNET_ANY_NID, 0 };
	struct lnet_ping_src src = { .nis = &bad, .nnis = 1 };
	size_t n;

	(void)state;
	assert_int_equal(lnet_ping_info_size(&src, &n), -LNET_WIRE_ENID);
	assert_int_equal(lnet_ping_info_size(NULL, &n), -LNET_WIRE_EINVAL);
	src.nis = NULL;
	assert_int_equal(lnet_ping_info_size(&src, &n), -LNET_WIRE_EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_nid4_golden_offsets),
		cmocka_unit_test(test_get_ack_reply_nid4_offsets),
		cmocka_unit_test(test_nid16_ipv6_round_trip),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_handle_none),
		cmocka_unit_test(test_kernel_ping_get_and_reply),
		cmocka_unit_test(test_kernel_ping_info),
		cmocka_unit_test(test_ping_encode_matches_kernel),
		cmocka_unit_test(test_ping_round_trip_sizes),
		cmocka_unit_test(test_ping_large_addrs),
		cmocka_unit_test(test_ping_primary_large_skips_nid4_records),
		cmocka_unit_test(test_ping_nis_limit_is_the_same_in_both_sections),
		cmocka_unit_test(test_ping_byte_swapped_sender),
		cmocka_unit_test(test_ping_errors),
		cmocka_unit_test(test_ping_reply_bufsize),
		cmocka_unit_test(test_ping_reply_cut),
		cmocka_unit_test(test_ping_reply_cut_large),
		cmocka_unit_test(test_ping_encode_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
