/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The push target (lnet_push.c): a kernel node's push, byte for byte from a capture, is
 * ACKed with its match bits and cookie, and pings keep being answered on
 * the same NI; a push bigger than the target is truncated, ACKed, and the
 * target grows; many pushes, and the target's buffers do not pile up.
 */
#include "lnet_ut.h"
#include "ut_klnd.h"
#include "lnp_test_nid.h"

/*
 * Frame 7 of shared/captures/kernel-vs-pmd/30-test3-discover.pcap without
 * its 24-byte ksock header: 192.0.2.11@tcp (Lustre 2.17.0's LNet, discovery
 * on) pushes its ping info to 192.0.2.21@tcp: a 72-byte PUT header to
 * portal 0, match bits 0x8000000000000000, ACK wanted (cookie
 * 0x18eb0cf1e830a73a/0x15), then 48 bytes: magic, features 0x1e, pid
 * 12345, 2 entries (0@lo with seqno 2, 192.0.2.11@tcp up).
 */
static const uint8_t kernel_push[72 + 48] = {
	0x15, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02,
	0x00, 0x39, 0x30, 0x00, 0x00, 0x39, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x30, 0x00,
	0x00, 0x00, 0x3a, 0xa7, 0x30, 0xe8, 0xf1, 0x0c, 0xeb, 0x18, 0x15, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x67, 0x6e, 0x69,
	0x70, 0x1e, 0x00, 0x00, 0x00, 0x39, 0x30, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x09, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b,
	0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0xde, 0xc0, 0xaa, 0x15, 0x00, 0x00, 0x00, 0x00,
};

#define K_ME 0xc0000215U   /* 192.0.2.21: our NI */
#define K_PEER 0xc000020bU /* 192.0.2.11: the kernel node */

/* As the socklnd would: @p hdr and its payload arrive on our NI; then everything runs. */
static void
k_deliver(const struct lnet_hdr *hdr, const uint8_t *payload, unsigned int len)
{
	struct lnet_nid from = lnp_tcp_nid(K_PEER);

	g_k.rx = payload;
	g_k.rx_len = len;
	assert_int_equal(ut_parse(g_k.ni, hdr, &from, NULL), 0);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 1000);
}

static struct lnet_ctl_push
push_stats(void)
{
	struct lnet_ctl_push p;

	assert_int_equal(lnet_ctl_push_get(&p), 0);
	return p;
}

static int
add_k_ni(unsigned int cpt)
{
	struct lnet_ni_req req = {
		.add = true,
		.nid = NULL,
		.lnd = &k_ops,
		.tun = { .peer_tx_credits = 8, .max_tx_credits = 64 },
		.cpt = cpt,
	};
	struct lnet_nid nid = lnp_tcp_nid(K_ME);
	int rc;

	req.nid = &nid;
	rc = lnet_ni_config(lnet_instance(), &req);
	assert_int_equal(req.ping_rc, 0);
	g_k.ni = lnet_ni_find_by_nid(lnet_instance(), &nid);
	return rc;
}

static int
setup_k1(void **state)
{
	(void)state;
	memset(&g_k, 0, sizeof(g_k));
	ut_up(1);
	ut_discovery(0); /* the push target alone: discovery's answers are tested apart */
	assert_int_equal(add_k_ni(0), 0);
	return 0;
}

static int
setup_k2(void **state)
{
	(void)state;
	memset(&g_k, 0, sizeof(g_k));
	ut_up(2);
	ut_discovery(0);
	assert_int_equal(add_k_ni(1), 0); /* the NI on CPT 1, portal 0's MDs on CPT 0 */
	return 0;
}

/* A PUT from the kernel node to portal 0 with the ping match bits, of @p len bytes. */
static struct lnet_hdr
k_push_hdr(unsigned int len, uint64_t object_cookie)
{
	struct lnet_hdr h;

	assert_int_equal(lnet_hdr_decode_nid4(kernel_push, 72, &h), 0);
	h.payload_length = len;
	h.msg.put.ack_wmd.wh_object_cookie = object_cookie;
	return h;
}

static const struct sent *
last_sent(void)
{
	assert_true(g_k.nsent > 0);
	return &g_k.sent[(g_k.nsent - 1) % SENT_MAX];
}

static void
assert_acked(const struct lnet_hdr *put, unsigned int mlength)
{
	const struct sent *s = last_sent();

	assert_int_equal(s->hdr.type, LNET_MSG_ACK);
	assert_true(lnet_nid_same(&s->hdr.dest_nid, &put->src_nid));
	assert_true(lnet_nid_same(&s->hdr.src_nid, &put->dest_nid));
	assert_int_equal(s->hdr.dest_pid, put->src_pid);
	assert_memory_equal(&s->hdr.msg.ack.dst_wmd, &put->msg.put.ack_wmd,
			    sizeof(put->msg.put.ack_wmd));
	assert_int_equal(s->hdr.msg.ack.match_bits, LNET_PROTO_PING_MATCHBITS);
	assert_int_equal(s->hdr.msg.ack.mlength, mlength);
	assert_int_equal(s->hdr.payload_length, 0);
}

/* The kernel node pings us (GET, portal 0) on the same NI: our REPLY names our NIs. */
static void
assert_ping_answered(void)
{
	struct lnet_hdr h;
	struct lnet_ping_decoded d;
	struct lnet_ping_entry nis[4];
	const struct sent *s;
	unsigned int before = g_k.nsent;

	assert_int_equal(lnet_hdr_decode_nid4(kernel_push, 72, &h), 0);
	h.type = LNET_MSG_GET;
	h.payload_length = 0;
	memset(&h.msg, 0, sizeof(h.msg));
	h.msg.get.return_wmd.wh_interface_cookie = 0x1122334455667788ULL;
	h.msg.get.return_wmd.wh_object_cookie = 0x99;
	h.msg.get.match_bits = LNET_PROTO_PING_MATCHBITS;
	h.msg.get.ptl_index = LNET_RESERVED_PORTAL;
	h.msg.get.sink_length = 4096;
	k_deliver(&h, NULL, 0);
	assert_int_equal(g_k.nsent, before + 1);
	s = last_sent();
	assert_int_equal(s->hdr.type, LNET_MSG_REPLY);
	assert_int_equal(s->hdr.msg.reply.dst_wmd.wh_object_cookie, 0x99);
	assert_int_equal(lnet_ping_info_decode(s->payload, s->len, 16, &d, nis, 4), 0);
	assert_int_equal(d.nnis_total, 1);
	assert_true(lnet_nid_same(&nis[0].nid, &g_k.ni->nid));
}

/* The capture's push: ACKed as the kernel expects, its contents taken, pings still served. */
static void
test_kernel_push_acked(void **state)
{
	struct lnet_hdr h;
	struct lnet_ctl_push p;
	struct lnet_nid peer = lnp_tcp_nid(K_PEER);

	(void)state;
	assert_false(lnet_ptl_is_lazy(lnet_instance(), LNET_RESERVED_PORTAL));
	assert_int_equal(push_stats().target_bytes, LNET_PING_INFO_MIN_SIZE);
	assert_int_equal(lnet_hdr_decode_nid4(kernel_push, 72, &h), 0);
	k_deliver(&h, kernel_push + 72, 48);
	assert_int_equal(g_k.nsent, 1);
	assert_acked(&h, 48);
	assert_int_equal(last_sent()->hdr.msg.ack.dst_wmd.wh_interface_cookie,
			 0x18eb0cf1e830a73aULL);
	assert_int_equal(last_sent()->hdr.msg.ack.dst_wmd.wh_object_cookie, 0x15);
	p = push_stats();
	assert_int_equal(p.received, 1);
	assert_int_equal(p.accepted, 1);
	assert_int_equal(p.truncated + p.invalid + p.errors, 0);
	assert_true(p.has_last);
	assert_true(lnet_nid_same(&p.last_src, &peer));
	assert_true(lnet_nid_same(&p.last_primary, &peer));
	assert_int_equal(p.last_seqno, 2);
	assert_int_equal(p.last_features, 0x1e);
	assert_int_equal(p.last_nnis, 1);
	assert_ping_answered();
	assert_int_equal(ut_counters().msgs_alloc, 0);
}

/* Ping info with 0@lo and @p nnis NIs: 10.1.0.1@tcp, 10.1.0.2@tcp... */
static unsigned int
big_push(uint8_t *buf, size_t len, unsigned int nnis, uint32_t seqno)
{
	struct lnet_ping_entry nis[32];
	struct lnet_ping_src src = {
		.features = 0x1e,
		.pid = LNET_PID_LUSTRE,
		.seqno = seqno,
		.nis = nis,
		.nnis = nnis,
	};
	size_t n = 0;
	unsigned int i;

	assert_true(nnis <= 32);
	for (i = 0; i < nnis; i++) {
		nis[i].nid = lnp_tcp_nid(0x0a010001 + i);
		nis[i].status = LNET_NI_STATUS_UP;
	}
	assert_int_equal(lnet_ping_info_encode(&src, buf, len, &n), 0);
	return (unsigned int)n;
}

/*
 * 20 NIs: 16 + 21 * 16 = 352 bytes, above the kernel's first push target
 * (LNET_PING_INFO_MIN_SIZE, 272): received truncated, ACKed with the 272
 * bytes kept, not used; the target grows, and the same push then fits.
 */
static void
test_push_truncated_then_fits(void **state)
{
	uint8_t buf[512];
	unsigned int len = big_push(buf, sizeof(buf), 20, 7);
	struct lnet_hdr h = k_push_hdr(len, 0x21);
	struct lnet_ctl_push p;

	(void)state;
	assert_int_equal(len, 352);
	k_deliver(&h, buf, len);
	assert_acked(&h, LNET_PING_INFO_MIN_SIZE);
	p = push_stats();
	assert_int_equal(p.received, 1);
	assert_int_equal(p.truncated, 1);
	assert_int_equal(p.accepted, 0);
	assert_false(p.has_last);
	assert_int_equal(p.target_bytes, 352);

	h = k_push_hdr(len, 0x22);
	k_deliver(&h, buf, len);
	assert_acked(&h, 352);
	p = push_stats();
	assert_int_equal(p.received, 2);
	assert_int_equal(p.accepted, 1);
	assert_int_equal(p.last_nnis, 20);
	assert_int_equal(p.last_seqno, 7);
	assert_ping_answered();
	assert_int_equal(ut_counters().msgs_alloc, 0);
}

/* Not ping info: still ACKed (LNet took the PUT), counted as invalid, nothing kept. */
static void
test_push_garbage_acked_not_used(void **state)
{
	uint8_t junk[48];
	struct lnet_hdr h = k_push_hdr(sizeof(junk), 0x31);
	struct lnet_ctl_push p;

	(void)state;
	memset(junk, 0xa5, sizeof(junk));
	k_deliver(&h, junk, sizeof(junk));
	assert_acked(&h, sizeof(junk));
	p = push_stats();
	assert_int_equal(p.received, 1);
	assert_int_equal(p.invalid, 1);
	assert_false(p.has_last);
}

/*
 * Far more pushes than one buffer has slices: each is ACKed with all its
 * bytes, the target is re-posted as it fills, and old buffers go.
 */
static void
test_many_pushes(void **state)
{
	struct lnet_cpt *c0 = lnet_instance()->cpts[0];
	uint32_t active = c0->mds.nactive;
	unsigned int i;

	(void)state;
	for (i = 0; i < 200; i++) {
		struct lnet_hdr h = k_push_hdr(48, 0x100 + i);

		k_deliver(&h, kernel_push + 72, 48);
		assert_acked(&h, 48);
	}
	assert_int_equal(push_stats().accepted, 200);
	assert_int_equal(c0->mds.nactive, active); /* one push MD, one ping MD */
	assert_ping_answered();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kernel_push_acked, setup_k1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_push_acked, setup_k2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_push_truncated_then_fits, setup_k1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_push_truncated_then_fits, setup_k2,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_push_garbage_acked_not_used, setup_k1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_many_pushes, setup_k1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_many_pushes, setup_k2, ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
