/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ksocklnd codecs against real kernel bytes (captures/kernel/
 * s2_01_ping_discovery_off.pcap: frame 6 the connection request, 8/10 and
 * 19/21 the V3 hellos of a CONTROL and a BULK_IN connection, 12 a ksock_msg
 * carrying the ping GET), then every version's round trip and error path.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ksock_proto.h"
#include "lnp_test_nid.h"

static const uint8_t frame6[16] = {
	0x00, 0x71, 0xce, 0xac, 0x01, 0x00, 0x00, 0x00,
	0x0c, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00,
};

static const uint8_t frame8[56] = {
	0x63, 0x69, 0x72, 0x45, 0x03, 0x00, 0x00, 0x00, 0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00,
	0x02, 0x00, 0x0c, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x39, 0x30, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xc2, 0x20, 0x1b, 0x9c, 0x14, 0x5a, 0xea, 0x18, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t frame10[56] = {
	0x63, 0x69, 0x72, 0x45, 0x03, 0x00, 0x00, 0x00, 0x0c, 0x02, 0x00, 0xc0, 0x00, 0x00,
	0x02, 0x00, 0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x39, 0x30, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xf5, 0x52, 0xc9, 0x28, 0x15, 0x5a, 0xea, 0x18, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t frame12[96] = {
	0xc1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x02, 0x00, 0xc0,
	0x00, 0x00, 0x02, 0x00, 0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x39, 0x30,
	0x00, 0x00, 0x39, 0x30, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x35, 0x9c, 0xdf, 0x96, 0x14, 0x5a, 0xea, 0x18, 0x0d, 0x1c, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x78, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t frame19[56] = {
	0x63, 0x69, 0x72, 0x45, 0x03, 0x00, 0x00, 0x00, 0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00,
	0x02, 0x00, 0x0c, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x39, 0x30, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xc2, 0x20, 0x1b, 0x9c, 0x14, 0x5a, 0xea, 0x18, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t frame21[56] = {
	0x63, 0x69, 0x72, 0x45, 0x03, 0x00, 0x00, 0x00, 0x0c, 0x02, 0x00, 0xc0, 0x00, 0x00,
	0x02, 0x00, 0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x39, 0x30, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xf5, 0x52, 0xc9, 0x28, 0x15, 0x5a, 0xea, 0x18, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void
test_kernel_connreq(void **state)
{
	struct ksock_connreq cr;
	struct lnet_nid target = lnp_tcp_nid(0xc000020c);
	uint8_t b[32];
	size_t n = 0;

	(void)state;
	assert_int_equal(ksock_connreq_decode(frame6, sizeof(frame6), &cr, &n), 0);
	assert_int_equal(n, 16);
	assert_int_equal(cr.version, LNET_PROTO_ACCEPTOR_VERSION);
	assert_false(cr.swapped);
	assert_true(lnet_nid_same(&cr.nid, &target)); /* the TARGET's NID */
	assert_int_equal(ksock_connreq_encode(&target, b, sizeof(b), &n), 0);
	assert_int_equal(n, 16);
	assert_memory_equal(b, frame6, 16);
	assert_int_equal(ksock_connreq_decode(frame6, 9, &cr, &n), -KSOCK_ESHORT);
	assert_int_equal(n, 16);
}

static void
test_kernel_hellos(void **state)
{
	struct ksock_hello h;
	uint8_t b[128];
	uint32_t version = 0;
	size_t n = 0;

	(void)state;
	assert_int_equal(ksock_hello_version(frame8, sizeof(frame8), &version, &n), 0);
	assert_int_equal(version, KSOCK_PROTO_V3);
	assert_int_equal(ksock_proto_v3.hello_decode(frame8, sizeof(frame8), &h, &n), 0);
	assert_int_equal(n, 56);
	assert_int_equal(lnet_nid_to_nid4(&h.src_nid), LNET_MKNID(LNET_MKNET(2, 0), 0xc000020b));
	assert_int_equal(lnet_nid_to_nid4(&h.dst_nid), LNET_MKNID(LNET_MKNET(2, 0), 0xc000020c));
	assert_int_equal(h.src_pid, 12345);
	assert_int_equal(h.dst_pid, 0);
	assert_int_equal(h.src_incarnation, 0x18ea5a149c1b20c2ULL);
	assert_int_equal(h.dst_incarnation, 0);
	assert_int_equal(h.ctype, SOCKLND_CONN_CONTROL);
	assert_int_equal(h.nips, 0);
	assert_int_equal(ksock_proto_v3.hello_encode(&h, b, sizeof(b), &n), 0);
	assert_int_equal(n, 56);
	assert_memory_equal(b, frame8, 56);
	/* the passive side answers CONTROL with CONTROL and BULK_IN with BULK_OUT */
	assert_int_equal(ksock_proto_v3.hello_decode(frame10, sizeof(frame10), &h, &n), 0);
	assert_int_equal(h.ctype, ksock_conn_type_invert(SOCKLND_CONN_CONTROL));
	assert_int_equal(ksock_proto_v3.hello_decode(frame19, sizeof(frame19), &h, &n), 0);
	assert_int_equal(h.ctype, SOCKLND_CONN_BULK_IN);
	assert_int_equal(ksock_proto_v3.hello_decode(frame21, sizeof(frame21), &h, &n), 0);
	assert_int_equal(h.ctype, ksock_conn_type_invert(SOCKLND_CONN_BULK_IN));
	assert_int_equal(ksock_proto_v3.hello_encode(&h, b, sizeof(b), &n), 0);
	assert_memory_equal(b, frame21, 56);
}

static void
test_kernel_lnet_message(void **state)
{
	struct ksock_msg m;
	struct lnet_hdr h;
	struct ksock_zcack ack;
	uint8_t b[96];

	(void)state;
	assert_int_equal(ksock_msg_hdr_decode(frame12, sizeof(frame12), false, &m), 0);
	assert_int_equal(m.type, KSOCK_MSG_LNET);
	assert_int_equal(m.csum, 0);
	assert_int_equal(m.zc_cookies[0], 0);
	ksock_zcack_parse(&m, &ack);
	assert_int_equal(ack.kind, KSOCK_ZCACK_NONE);
	assert_int_equal(ksock_proto_v3.lnet_hdr_decode(frame12 + 24, 72, &h), 0);
	assert_int_equal(h.type, LNET_MSG_GET);
	assert_int_equal(h.msg.get.match_bits, LNET_PROTO_PING_MATCHBITS);
	assert_int_equal(ksock_msg_hdr_encode(&m, b, sizeof(b)), 0);
	assert_int_equal(ksock_proto_v3.lnet_hdr_encode(&h, b + 24, 72), 0);
	assert_memory_equal(b, frame12, 96);
}

static struct ksock_hello
sample_hello(uint32_t version)
{
	struct ksock_hello h;

	memset(&h, 0, sizeof(h));
	h.version = version;
	h.src_nid = lnp_tcp_nid(0x0a000001);
	h.dst_nid = lnp_tcp_nid(0x0a000002);
	h.src_pid = 12345;
	h.dst_pid = 0;
	h.src_incarnation = 0x1122334455667788ULL;
	h.ctype = SOCKLND_CONN_BULK_OUT;
	return h;
}

static void
test_versions_round_trip(void **state)
{
	static const struct ksock_proto *const protos[] = {
		&ksock_proto_v1,
		&ksock_proto_v2,
		&ksock_proto_v3,
		&ksock_proto_v4,
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		const struct ksock_proto *p = protos[i];
		struct ksock_hello h = sample_hello(p->version);
		struct ksock_hello back;
		uint8_t b[256];
		uint32_t v = 0;
		size_t n = 0;
		size_t used = 0;

		if (p->version == KSOCK_PROTO_V4) {
			assert_int_equal(inet_pton(AF_INET6, "2001:db8::1", h.src_nid.nid_addr), 1);
			h.src_nid.nid_size = 12;
		} else {
			h.nips = 2;
			h.ips[0] = 0x0a000001;
			h.ips[1] = 0x0a000101;
		}
		assert_ptr_equal(ksock_proto_by_version(p->version), p);
		assert_int_equal(p->hello_encode(&h, b, sizeof(b), &n), 0);
		assert_int_equal(ksock_hello_version(b, n, &v, &used), 0);
		assert_int_equal(v, p->version);
		assert_int_equal(p->hello_decode(b, n, &back, &used), 0);
		assert_int_equal(used, n);
		assert_true(lnet_nid_same(&back.src_nid, &h.src_nid));
		assert_int_equal(back.src_incarnation, h.src_incarnation);
		assert_int_equal(back.ctype, h.ctype);
		assert_int_equal(back.nips, h.nips);
		assert_int_equal(back.ips[1], h.ips[1]);
		assert_int_equal(p->hello_decode(b, n - 1, &back, &used), -KSOCK_ESHORT);
		assert_int_equal(used, n);
		assert_int_equal(p->hello_encode(&h, b, n - 1, &n), -KSOCK_ESHORT);
	}
	assert_null(ksock_proto_by_version(5));
	assert_null(ksock_proto_by_version(0));
}

static void
swap_hello_nid4(uint8_t *b)
{
	static const size_t w32[] = { 0, 4, 24, 28, 48, 52 };
	static const size_t w64[] = { 8, 16, 32, 40 };
	unsigned int i;

	for (i = 0; i < 6; i++) {
		uint32_t v;

		memcpy(&v, b + w32[i], 4);
		v = __builtin_bswap32(v);
		memcpy(b + w32[i], &v, 4);
	}
	for (i = 0; i < 4; i++) {
		uint64_t v;

		memcpy(&v, b + w64[i], 8);
		v = __builtin_bswap64(v);
		memcpy(b + w64[i], &v, 8);
	}
}

static void
test_swapped_sender(void **state)
{
	uint8_t b[56];
	struct ksock_hello h;
	struct ksock_connreq cr;
	uint32_t v;
	size_t n;

	(void)state;
	memcpy(b, frame8, 56);
	swap_hello_nid4(b); /* as a big-endian kernel would send it */
	assert_int_equal(ksock_hello_version(b, 56, &v, &n), 0);
	assert_int_equal(v, KSOCK_PROTO_V3);
	assert_int_equal(ksock_proto_v3.hello_decode(b, 56, &h, &n), 0);
	assert_true(h.swapped);
	assert_int_equal(h.src_pid, 12345);
	assert_int_equal(h.src_incarnation, 0x18ea5a149c1b20c2ULL);
	assert_int_equal(lnet_nid_to_nid4(&h.src_nid), LNET_MKNID(LNET_MKNET(2, 0), 0xc000020b));
	memcpy(b, frame6, 16);
	for (n = 0; n < 2; n++) {
		uint32_t w;

		memcpy(&w, b + 4 * n, 4);
		w = __builtin_bswap32(w);
		memcpy(b + 4 * n, &w, 4);
	}
	{
		uint64_t nid;

		memcpy(&nid, b + 8, 8);
		nid = __builtin_bswap64(nid);
		memcpy(b + 8, &nid, 8);
	}
	assert_int_equal(ksock_connreq_decode(b, 16, &cr, &n), 0);
	assert_true(cr.swapped);
	assert_int_equal(lnet_nid_to_nid4(&cr.nid), LNET_MKNID(LNET_MKNET(2, 0), 0xc000020c));
}

static void
test_connreq_v2_and_errors(void **state)
{
	struct lnet_nid v6 = { .nid_size = 12, .nid_type = LNET_LND_SOCK };
	struct ksock_connreq cr;
	uint8_t b[32];
	uint32_t magic = LNET_PROTO_MAGIC;
	size_t n;

	(void)state;
	assert_int_equal(inet_pton(AF_INET6, "fe80::1", v6.nid_addr), 1);
	assert_int_equal(ksock_connreq_encode(&v6, b, sizeof(b), &n), 0);
	assert_int_equal(n, 28);
	assert_int_equal(ksock_connreq_decode(b, n, &cr, &n), 0);
	assert_int_equal(cr.version, LNET_PROTO_ACCEPTOR_VERSION_16);
	assert_true(lnet_nid_same(&cr.nid, &v6));
	assert_int_equal(ksock_connreq_encode(&LNET_ANY_NID, b, sizeof(b), &n), -KSOCK_EINVAL);
	memcpy(b, &magic, 4); /* a version probe */
	assert_int_equal(ksock_connreq_decode(b, 4, &cr, &n), 0);
	assert_true(cr.probe);
	memcpy(b, frame6, 16);
	b[0] ^= 0xff;
	assert_int_equal(ksock_connreq_decode(b, 16, &cr, &n), -KSOCK_EMAGIC);
	memcpy(b, frame6, 16);
	b[4] = 7;
	assert_int_equal(ksock_connreq_decode(b, 16, &cr, &n), -KSOCK_EVERSION);
	memcpy(b, frame6, 16);
	memset(b + 8, 0xff, 8); /* ANY target */
	assert_int_equal(ksock_connreq_decode(b, 16, &cr, &n), -KSOCK_ENID);
	assert_int_equal(ksock_connreq_decode(NULL, 16, &cr, &n), -KSOCK_ESHORT);
	assert_string_equal(ksock_strerror(-KSOCK_EMAGIC), "unknown magic");
	assert_string_equal(ksock_strerror(-99), "unknown ksock error");
}

static void
test_hello_errors(void **state)
{
	uint8_t b[128];
	struct ksock_hello h;
	uint32_t v;
	size_t n;
	uint32_t w;

	(void)state;
	memcpy(b, frame8, 56);
	w = 17; /* nips > 16 */
	memcpy(b + 52, &w, 4);
	assert_int_equal(ksock_proto_v3.hello_decode(b, sizeof(b), &h, &n), -KSOCK_ENIPS);
	w = 1; /* one address, and it is zero */
	memcpy(b + 52, &w, 4);
	memset(b + 56, 0, 4);
	assert_int_equal(ksock_proto_v3.hello_decode(b, 60, &h, &n), -KSOCK_ENIPS);
	memcpy(b, frame8, 56);
	w = 9; /* ctype */
	memcpy(b + 48, &w, 4);
	assert_int_equal(ksock_proto_v3.hello_decode(b, 56, &h, &n), -KSOCK_ECTYPE);
	memcpy(b, frame8, 56);
	memset(b + 8, 0xff, 8); /* src ANY */
	assert_int_equal(ksock_proto_v3.hello_decode(b, 56, &h, &n), -KSOCK_ENID);
	memcpy(b, frame8, 56);
	b[0] = 0;
	assert_int_equal(ksock_hello_version(b, 56, &v, &n), -KSOCK_EMAGIC);
	assert_int_equal(ksock_proto_v3.hello_decode(b, 56, &h, &n), -KSOCK_EMAGIC);
	memcpy(b, frame8, 56);
	b[4] = 9;
	assert_int_equal(ksock_hello_version(b, 56, &v, &n), -KSOCK_EVERSION);
	assert_int_equal(ksock_hello_version(b, 7, &v, &n), -KSOCK_ESHORT);
}

static void
test_zcack_forms(void **state)
{
	struct ksock_msg m = { KSOCK_MSG_NOOP, 0, { 0, 1 } };
	struct ksock_zcack a;

	(void)state;
	ksock_zcack_parse(&m, &a);
	assert_int_equal(a.kind, KSOCK_ZCACK_KEEPALIVE);
	m.zc_cookies[1] = 7;
	ksock_zcack_parse(&m, &a);
	assert_int_equal(a.kind, KSOCK_ZCACK_ONE);
	assert_int_equal(a.a, 7);
	m.zc_cookies[0] = 9; /* c1 > c2: two cookies */
	ksock_zcack_parse(&m, &a);
	assert_int_equal(a.kind, KSOCK_ZCACK_TWO);
	m.zc_cookies[0] = 3; /* c1 < c2: a range */
	ksock_zcack_parse(&m, &a);
	assert_int_equal(a.kind, KSOCK_ZCACK_RANGE);
	assert_int_equal(a.a, 3);
	assert_int_equal(a.b, 7);
	m.type = KSOCK_MSG_LNET; /* an LNET message acks through cookie[1] only */
	ksock_zcack_parse(&m, &a);
	assert_int_equal(a.kind, KSOCK_ZCACK_ONE);
	assert_int_equal(a.a, 7);
	m.type = 0xc2;
	assert_int_equal(ksock_msg_hdr_decode(&m, sizeof(m), false, &m), -KSOCK_ETYPE);
}

static void
test_types_and_races(void **state)
{
	struct lnet_nid lo = lnp_tcp_nid(0x0a000001);
	struct lnet_nid hi = lnp_tcp_nid(0x0a000002);
	struct lnet_nid net1 = lo;

	(void)state;
	assert_int_equal(ksock_conn_type_invert(SOCKLND_CONN_BULK_IN), SOCKLND_CONN_BULK_OUT);
	assert_int_equal(ksock_conn_type_invert(SOCKLND_CONN_BULK_OUT), SOCKLND_CONN_BULK_IN);
	assert_int_equal(ksock_conn_type_invert(SOCKLND_CONN_CONTROL), SOCKLND_CONN_CONTROL);
	assert_int_equal(ksock_conn_type_invert(SOCKLND_CONN_ANY), SOCKLND_CONN_ANY);
	assert_int_equal(ksock_conn_type_invert(7), -1);
	assert_true(ksock_nid_cmp(&hi, &lo) > 0); /* the higher NID keeps its outgoing conn */
	net1.nid_num = htons(1);
	assert_true(ksock_nid_cmp(&net1, &hi) > 0); /* net number before address */
	assert_int_equal(ksock_nid_cmp(&lo, &lo), 0);
}

/* ksm_csum is Linux crc32_le(~0, ...) without the final inversion, in pieces or whole. */
static void
test_csum(void **state)
{
	static const char digits[] = "123456789";
	uint8_t hdr[24];
	uint8_t zeroed[24];
	uint32_t run;

	(void)state;
	/* crc32_le(~0, "123456789") = 0x340bc6d9 (the CRC-32 check value 0xcbf43926, uninverted) */
	assert_int_equal(ksock_csum_final(ksock_csum_update(0, digits, 9)), 0x340bc6d9);
	run = ksock_csum_update(ksock_csum_update(0, digits, 4), digits + 4, 5);
	assert_int_equal(ksock_csum_final(run), 0x340bc6d9);
	/* the header's own csum field counts as 0 */
	memset(hdr, 0xab, sizeof(hdr));
	memcpy(zeroed, hdr, sizeof(hdr));
	memset(zeroed + KSOCK_CSUM_OFFSET, 0, 4);
	assert_int_equal(ksock_csum_msg_hdr(hdr), ksock_csum_update(0, zeroed, sizeof(zeroed)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_connreq),
		cmocka_unit_test(test_kernel_hellos),
		cmocka_unit_test(test_kernel_lnet_message),
		cmocka_unit_test(test_versions_round_trip),
		cmocka_unit_test(test_swapped_sender),
		cmocka_unit_test(test_connreq_v2_and_errors),
		cmocka_unit_test(test_hello_errors),
		cmocka_unit_test(test_zcack_forms),
		cmocka_unit_test(test_types_and_races),
		cmocka_unit_test(test_csum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
