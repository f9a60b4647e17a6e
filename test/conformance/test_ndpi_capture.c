/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Conformance: a real kernel socklnd capture from a third party
 * (shared/captures/ndpi-lustre.pcapng, nDPI's test file) read with our own
 * decoders. Stream 0 is a connection set-up: the acceptor request and both
 * V3 hellos, field by field. Stream 1, caught mid-flow, holds 13 ksock
 * LNET messages: 12 PUTs (ptlrpc requests on portal 26 towards port 988,
 * replies on portal 25 back) and one ACK. The values are those
 * shared/captures/README.md lists.
 *   test_ndpi_capture CAPTURES_DIR    (77: skipped when it is not there)
 */
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfs.h"
#include "ksock_proto.h"
#include "lnet_wire.h"
#include "capstream.h"

static const uint16_t g_port = LNET_ACCEPTOR_PORT;
static struct capstream_set g_set = { .ports = &g_port, .nports = 1 };

static const struct capstream_dir *
stream_from(const char *saddr, uint16_t sport)
{
	size_t i;
	int d;

	for (i = 0; i < g_set.nconns; i++) {
		for (d = 0; d < 2; d++) {
			const struct capstream_dir *s = &g_set.conns[i].dir[d];

			if (s->saddr == inet_addr(saddr) && s->sport == sport) {
				return s;
			}
		}
	}
	fail_msg("no stream from %s:%u", saddr, sport);
	return NULL;
}

static void
assert_nid(const struct lnet_nid *nid, const char *want)
{
	char s[LNET_NIDSTR_SIZE];

	assert_string_equal(libcfs_nidstr_r(nid, s, sizeof(s)), want);
}

/* Frame 4: the acceptor request; frame 6: the client's hello. */
static void
test_connreq_and_client_hello(void **state)
{
	const struct capstream_dir *s = stream_from("192.168.88.132", 1022);
	struct ksock_connreq cr;
	struct ksock_hello h;
	size_t used = 0;

	(void)state;
	assert_true(s->syn);
	assert_int_equal(s->len, 16 + 56);
	assert_int_equal(ksock_connreq_decode(s->data, s->len, &cr, &used), 0);
	assert_int_equal(used, 16);
	assert_int_equal(cr.version, 1);
	assert_false(cr.swapped);
	assert_nid(&cr.nid, "192.168.88.131@tcp");
	assert_int_equal(ksock_proto_v3.hello_decode(s->data + 16, 56, &h, &used), 0);
	assert_int_equal(used, 56);
	assert_int_equal(h.version, 3);
	assert_nid(&h.src_nid, "192.168.88.132@tcp");
	assert_nid(&h.dst_nid, "192.168.88.131@tcp");
	assert_int_equal(h.src_pid, 12345);
	assert_int_equal(h.dst_pid, 0);
	assert_int_equal(h.src_incarnation, 0x17f08208a059eef0ULL);
	assert_int_equal(h.dst_incarnation, 0);
	assert_int_equal(h.ctype, SOCKLND_CONN_BULK_IN);
	assert_int_equal(h.nips, 0);
}

/* Frame 8: the server's answer, the inverse type. */
static void
test_server_hello(void **state)
{
	const struct capstream_dir *s = stream_from("192.168.88.131", 988);
	struct ksock_hello h;
	size_t used = 0;

	(void)state;
	assert_int_equal(s->len, 56);
	assert_int_equal(ksock_proto_v3.hello_decode(s->data, s->len, &h, &used), 0);
	assert_nid(&h.src_nid, "192.168.88.131@tcp");
	assert_nid(&h.dst_nid, "192.168.88.132@tcp");
	assert_int_equal(h.src_pid, 12345);
	assert_int_equal(h.dst_pid, 0);
	assert_int_equal(h.src_incarnation, 0x17f0820b968fb122ULL);
	assert_int_equal(h.dst_incarnation, 0);
	assert_int_equal(h.ctype, SOCKLND_CONN_BULK_OUT);
	assert_int_equal(ksock_conn_type_invert(h.ctype), SOCKLND_CONN_BULK_IN);
	assert_int_equal(h.nips, 0);
}

struct pdus {
	unsigned int puts;
	unsigned int acks;
};

/* One direction of stream 1: whole ksock LNET messages to the last byte. */
static void
walk(const struct capstream_dir *s, const char *src, const char *dst, uint32_t put_portal,
     struct pdus *n)
{
	size_t off = 0;

	while (off < s->len) {
		struct ksock_msg km;
		struct lnet_hdr h;

		assert_true(off + 24 + 72 <= s->len);
		assert_int_equal(ksock_msg_hdr_decode(s->data + off, 24, false, &km), 0);
		assert_int_equal(km.type, KSOCK_MSG_LNET);
		assert_int_equal(km.csum, 0);
		assert_int_equal(km.zc_cookies[0], 0);
		assert_int_equal(km.zc_cookies[1], 0);
		assert_int_equal(lnet_hdr_decode_nid4(s->data + off + 24, 72, &h), 0);
		assert_nid(&h.src_nid, src);
		assert_nid(&h.dest_nid, dst);
		assert_int_equal(h.src_pid, 12345);
		assert_int_equal(h.dest_pid, 12345);
		if (h.type == LNET_MSG_PUT) {
			assert_int_equal(h.msg.put.ptl_index, put_portal);
			assert_true(h.payload_length > 0);
			n->puts++;
		} else {
			assert_int_equal(h.type, LNET_MSG_ACK);
			assert_int_equal(h.payload_length, 0);
			n->acks++;
		}
		off += 24 + 72 + h.payload_length;
	}
	assert_int_equal(off, s->len);
}

static void
test_thirteen_lnet_pdus(void **state)
{
	struct pdus n = { 0, 0 };

	(void)state;
	walk(stream_from("192.168.88.118", 1023), "192.168.88.118@tcp", "192.168.88.119@tcp", 26,
	     &n);
	walk(stream_from("192.168.88.119", 988), "192.168.88.119@tcp", "192.168.88.118@tcp", 25,
	     &n);
	assert_int_equal(n.puts, 12);
	assert_int_equal(n.acks, 1);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connreq_and_client_hello),
		cmocka_unit_test(test_server_hello),
		cmocka_unit_test(test_thirteen_lnet_pdus),
	};
	char path[4096], err[PCAP_ERRBUF_SIZE];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/ndpi-lustre.pcapng", argc > 1 ? argv[1] : ".");
	f = fopen(path, "rb");
	if (f == NULL || capstream_read(f, &g_set, err) != 0) {
		printf("%s not found: skipped\n", path);
		return 77;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	capstream_free(&g_set);
	return rc;
}
