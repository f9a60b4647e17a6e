/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The o2ib LND in LNet (inline) on the QP model and the fake CM, with a
 * peer that behaves as a kernel node: an o2iblnd_cm and its engines the
 * test drives itself. PUTs both ways from 0 B to 1 MiB, IMMEDIATE up to
 * the kernel's threshold and by RDMA WRITE above it, the bytes checked
 * where they land; a GET whose REPLY the peer sends back.
 */
#include <arpa/inet.h>

#include "lnd_ut.h"
#include "o2ib_fake_cm.h"
#include "o2iblnd.h"
#include "o2iblnd_params.h"

#define ADDR_A 0xc0a80101U /* our NI: 192.168.1.1@o2ib */
#define ADDR_B 0xc0a80102U /* the peer's */
#define NID_A (0x0005000000000000ULL | ADDR_A)
#define NID_B (0x0005000000000000ULL | ADDR_B)
#define MIB (1024U * 1024U)

static struct lnet_ni *g_ni;

/* ---- our NI's device: the model's, found "behind" --if ---- */

static int t_open_rc; /* what opening the device answers: 0, or as if no RDMA device */

static int
t_open(const char *ifname, struct o2ib_hw_dev **dev, struct o2ib_hw_info *info)
{
	(void)ifname;
	if (t_open_rc != 0) {
		return t_open_rc;
	}
	*dev = model_dev_new();
	*info = (struct o2ib_hw_info){ .ipv4 = htonl(ADDR_A),
				       .port_active = true,
				       .numa_node = -1,
				       .max_qp_wr = 16384,
				       .max_sge = 30,
				       .max_cqe = 65536 };
	return 0;
}

static void
t_close(struct o2ib_hw_dev *d)
{
	model_dev_free(d);
}

static struct o2ib_hw_ops t_hw;

static int
t_cm_open(void **ctx)
{
	*ctx = &sides[0];
	return 0;
}

static void
t_cm_close(void *ctx)
{
	(void)ctx;
}

/* ---- the peer: a kernel node's side, driven by the test ---- */

struct peer {
	struct o2ib_hw_dev *dev;
	struct o2iblnd_cm *cm;
	struct o2iblnd_conn *conn;
	int nrx;
	struct lnet_hdr hdr; /* of the last message that came */
	uint8_t *got;        /* its payload */
	uint32_t got_len;
	bool got_done; /* an RDMA PUT: PUT_DONE came */
	struct o2ib_hw_mr *sink_mr;
	int ndone;
	int done_status;
};

static struct peer g_b;

static void
b_rx(void *arg, struct o2iblnd_rx *rx, const struct o2ib_msg *m)
{
	struct peer *b = arg;
	struct o2iblnd_conn *c = o2iblnd_rx_conn(rx);
	uint32_t lkey;
	uint32_t rkey;

	b->nrx++;
	if (m->type == O2IB_MSG_IMMEDIATE) {
		assert_int_equal(lnet_hdr_decode_nid4(m->u.imm.lnet_hdr, 72, &b->hdr), 0);
		b->got_len = m->u.imm.payload_nob;
		memcpy(b->got, m->u.imm.payload, b->got_len);
		o2iblnd_rx_done(c, rx);
		return;
	}
	assert_int_equal(m->type, O2IB_MSG_PUT_REQ);
	assert_int_equal(lnet_hdr_decode_nid4(m->u.put_req.lnet_hdr, 72, &b->hdr), 0);
	b->got_len = b->hdr.payload_length;
	assert_int_equal(o2ib_hw_model.reg_mem(b->dev, b->got, b->got_len, &b->sink_mr, &lkey,
					       &rkey),
			 0);
	assert_int_equal(o2iblnd_put_ack(c, rx, rkey,
					 &(struct o2ib_frag){ b->got_len, (uintptr_t)b->got }, 1,
					 b),
			 0);
}

static void
b_done(void *arg, void *user, int status)
{
	struct peer *b = arg;

	(void)user;
	b->ndone++;
	b->done_status = status;
}

static void
b_sink_done(void *arg, void *user, int status)
{
	struct peer *b = arg;

	(void)user;
	assert_int_equal(status, 0);
	b->got_done = true;
	o2ib_hw_model.dereg_mem(b->sink_mr);
	b->sink_mr = NULL;
}

static const struct o2iblnd_conn_ops b_conn_ops = { b_rx, b_done, b_sink_done };

static void
b_up(void *arg, lnet_nid_t peer, struct o2iblnd_conn *c)
{
	struct peer *b = arg;

	assert_true(peer == NID_A);
	b->conn = c;
}

static void
b_down(void *arg, lnet_nid_t peer, struct o2iblnd_conn *c, int status)
{
	struct peer *b = arg;

	(void)peer;
	(void)status;
	if (c == b->conn) {
		b->conn = NULL;
	}
}

static void
b_start(void)
{
	struct o2iblnd_cm_cfg cfg = {
		.ops = &fake_ops,
		.ctx = &sides[1],
		.hw = &o2ib_hw_model,
		.max_qp_wr = 16384,
		.me = { NID_B, 0x4242, 8, true },
		.ipv4 = htonl(ADDR_B),
		.conn_ops = &b_conn_ops,
		.conn_arg = &g_b,
		.conn_up = b_up,
		.conn_down = b_down,
		.arg = &g_b,
	};

	memset(&g_b, 0, sizeof(g_b));
	g_b.got = malloc(MIB);
	g_b.dev = model_dev_new();
	cfg.dev = g_b.dev;
	o2iblnd_params_current(&cfg.opts);
	o2iblnd_credit_tunables(&cfg.opts, 256, 8, &cfg.tun);
	assert_int_equal(o2iblnd_cm_create(&cfg, &g_b.cm), 0);
	assert_int_equal(o2iblnd_cm_listen(g_b.cm), 0);
}

/* Run LNet and the peer until @p cond holds (both sides are in this thread: no real waits). */
#define RUN_UNTIL(what, cond)                                                                   \
	do {                                                                                    \
		int ru_n_ = 0;                                                                  \
                                                                                                \
		for (;;) {                                                                      \
			settle();                                                               \
			if (cond) {                                                             \
				break;                                                          \
			}                                                                       \
			o2iblnd_cm_poll(g_b.cm);                                                \
			if (++ru_n_ > 10000) {                                                  \
				fail_msg("%s:%d: no %s (%s)", __FILE__, __LINE__, what, #cond); \
			}                                                                       \
		}                                                                               \
	} while (0)

static int
add_ni_nid(void *arg)
{
	struct lnet_ni_tunables tun = { .peer_tx_credits = 8,
					.max_tx_credits = 256,
					.peer_timeout = 180 };
	struct lnet_ni *ni;
	int rc = lnet_ni_add(lnet_instance(), arg, o2iblnd_lnd_ops(), &tun, NULL, 0, &ni);

	if (rc == 0) {
		g_ni = ni;
	}
	return rc;
}

static int
add_ni(void *arg)
{
	struct lnet_nid nid;

	(void)arg;
	lnet_nid4_to_nid(NID_A, &nid);
	return add_ni_nid(&nid);
}

static int
setup(void **state)
{
	(void)state;
	memset(sides, 0, sizeof(sides));
	nids = 0;
	sides[0].ipv4 = htonl(ADDR_A);
	sides[1].ipv4 = htonl(ADDR_B);
	model_qp_created = on_qp_created;
	model_qp_max_wr = UINT32_MAX;
	t_hw = o2ib_hw_model;
	t_hw.open = t_open;
	t_hw.close = t_close;
	o2iblnd_backend_set(&(struct o2iblnd_backend){ &t_hw, &fake_ops, t_cm_open, t_cm_close });
	o2iblnd_params_reset();
	ut_up(1);
	ut_discovery(0); /* the LND alone: no discovery ping before the first PUT */
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_ni, NULL), 0);
	b_start();
	settle();
	assert_true(sides[0].listening);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	ut_down(); /* our NI's shutdown closes its connections */
	o2iblnd_cm_destroy(g_b.cm);
	model_dev_free(g_b.dev);
	free(g_b.got);
	return 0;
}

static void
fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++) {
		p[i] = (uint8_t)(i * 31 + seed);
	}
}

static const uint32_t sizes[] = {
	0, 1, 1000, O2IB_IMMEDIATE_MAX, O2IB_IMMEDIATE_MAX + 1, 65536, MIB
};

/* Our LNetPut to the peer: IMMEDIATE to the threshold, RDMA above; the bytes as sent. */
static void
test_put_to_peer(void **state)
{
	uint8_t *buf = malloc(MIB);
	struct lnet_processid to = { .pid = LNET_PID_LUSTRE };
	struct o2iblnd_stats st;

	(void)state;
	lnet_nid4_to_nid(NID_B, &to.nid);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct lnet_handle_md h;
		struct lnet_event ev;
		int before = g_b.nrx;

		fill(buf, sizes[i], (unsigned int)i);
		h = ut_bind(buf, sizes[i], 1);
		g_b.got_done = false;
		assert_int_equal(LNetPut(NULL, h, LNET_NOACK_REQ, &to, UT_PORTAL, 7, 0, 0), 0);
		RUN_UNTIL("the PUT at the peer",
			  g_b.nrx > before && (sizes[i] <= O2IB_IMMEDIATE_MAX || g_b.got_done));
		RUN_UNTIL("the SEND event", (ev = ut_event()).type != 0);
		assert_int_equal(ev.type, LNET_EVENT_SEND);
		assert_int_equal(ev.status, 0);
		assert_int_equal(g_b.hdr.type, LNET_MSG_PUT);
		assert_int_equal(g_b.hdr.payload_length, sizes[i]);
		assert_int_equal(g_b.got_len, sizes[i]);
		assert_memory_equal(g_b.got, buf, sizes[i]);
	}
	o2iblnd_stats_get(g_ni, &st);
	assert_int_equal(st.conns_up, 1);
	assert_int_equal(st.tx_immediate, 4);
	assert_int_equal(st.tx_rdma, 3);
	free(buf);
}

/* The peer's LNet header for a PUT of @p len to our UT_PORTAL, match bits 9. */
static void
peer_put_hdr(struct lnet_hdr *h, uint32_t len)
{
	memset(h, 0, sizeof(*h));
	lnet_nid4_to_nid(NID_A, &h->dest_nid);
	lnet_nid4_to_nid(NID_B, &h->src_nid);
	h->dest_pid = h->src_pid = LNET_PID_LUSTRE;
	h->type = LNET_MSG_PUT;
	h->payload_length = len;
	h->msg.put.ack_wmd = (struct lnet_handle_wire){ ~0ULL, ~0ULL }; /* no ACK */
	h->msg.put.match_bits = 9;
	h->msg.put.ptl_index = UT_PORTAL;
}

/* The peer's PUTs into our MD: each size lands whole. */
static void
test_put_from_peer(void **state)
{
	uint8_t *src = malloc(MIB);
	uint8_t *dst = malloc(MIB);
	struct o2ib_hw_mr *mr;
	uint32_t lkey;
	uint32_t rkey;
	struct o2iblnd_stats st;

	(void)state;
	/* connect: our first message makes the connection the peer then uses */
	{
		static uint8_t one = 1;
		struct lnet_processid to = { .pid = LNET_PID_LUSTRE };
		struct lnet_event ev;

		lnet_nid4_to_nid(NID_B, &to.nid);
		assert_int_equal(LNetPut(NULL, ut_bind(&one, 1, 1), LNET_NOACK_REQ, &to, UT_PORTAL,
					 7, 0, 0),
				 0);
		RUN_UNTIL("the first PUT's SEND", (ev = ut_event()).type != 0);
		assert_non_null(g_b.conn);
	}
	assert_int_equal(o2ib_hw_model.reg_mem(g_b.dev, src, MIB, &mr, &lkey, &rkey), 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct lnet_md md = ut_md(dst, MIB, 1, LNET_MD_OP_PUT);
		struct lnet_hdr h;
		struct lnet_event ev;
		const struct iovec iov = { src, sizes[i] };
		int done = g_b.ndone;

		fill(src, sizes[i], (unsigned int)i + 100);
		memset(dst, 0, MIB);
		ut_attach(&md, 9, 0, LNET_INS_AFTER, LNET_UNLINK);
		peer_put_hdr(&h, sizes[i]);
		if (sizes[i] <= O2IB_IMMEDIATE_MAX) {
			assert_int_equal(o2iblnd_send_immediate(g_b.conn, &h, &iov, 1, 0, sizes[i],
								&g_b),
					 0);
		} else {
			const struct o2ib_hw_sge sge = { (uintptr_t)src, sizes[i], lkey };

			assert_int_equal(o2iblnd_send_put(g_b.conn, &h, &sge, 1, &g_b), 0);
		}
		RUN_UNTIL("the PUT event", (ev = ut_event()).type != 0);
		assert_int_equal(ev.type, LNET_EVENT_PUT);
		assert_int_equal(ev.status, 0);
		assert_int_equal(ev.mlength, sizes[i]);
		assert_memory_equal(dst, src, sizes[i]);
		RUN_UNTIL("the peer's send done", g_b.ndone > done);
		assert_int_equal(g_b.done_status, 0);
	}
	o2iblnd_stats_get(g_ni, &st);
	assert_int_equal(st.rx_immediate, 4);
	assert_int_equal(st.rx_rdma, 3);
	o2ib_hw_model.dereg_mem(mr);
	free(src);
	free(dst);
}

/* Our GET: the peer answers with a REPLY (IMMEDIATE or by RDMA), which lands in our MD. */
static void
test_get_from_peer(void **state)
{
	static const uint32_t reply_sizes[] = { 0, 1000, O2IB_IMMEDIATE_MAX + 1, MIB };
	uint8_t *src = malloc(MIB);
	uint8_t *dst = malloc(MIB);
	struct lnet_processid to = { .pid = LNET_PID_LUSTRE };
	struct o2ib_hw_mr *mr;
	uint32_t lkey;
	uint32_t rkey;

	(void)state;
	lnet_nid4_to_nid(NID_B, &to.nid);
	assert_int_equal(o2ib_hw_model.reg_mem(g_b.dev, src, MIB, &mr, &lkey, &rkey), 0);
	for (size_t i = 0; i < sizeof(reply_sizes) / sizeof(reply_sizes[0]); i++) {
		uint32_t n = reply_sizes[i];
		struct lnet_handle_md h = ut_bind(dst, n, 2); /* its SEND and its REPLY */
		struct lnet_hdr r;
		struct lnet_event ev;
		int before = g_b.nrx;
		bool sent = false;
		bool replied = false;

		fill(src, n, (unsigned int)i + 7);
		memset(dst, 0, MIB);
		assert_int_equal(LNetGet(NULL, h, &to, UT_PORTAL, 5, 0, false), 0);
		RUN_UNTIL("the GET at the peer", g_b.nrx > before);
		assert_int_equal(g_b.hdr.type, LNET_MSG_GET);
		assert_int_equal(g_b.hdr.msg.get.sink_length, n);
		memset(&r, 0, sizeof(r));
		r.dest_nid = g_b.hdr.src_nid;
		lnet_nid4_to_nid(NID_B, &r.src_nid);
		r.dest_pid = r.src_pid = LNET_PID_LUSTRE;
		r.type = LNET_MSG_REPLY;
		r.payload_length = n;
		r.msg.reply.dst_wmd = g_b.hdr.msg.get.return_wmd;
		if (n <= O2IB_IMMEDIATE_MAX) {
			const struct iovec iov = { src, n };

			assert_int_equal(o2iblnd_send_immediate(g_b.conn, &r, &iov, 1, 0, n, &g_b),
					 0);
		} else {
			const struct o2ib_hw_sge sge = { (uintptr_t)src, n, lkey };

			assert_int_equal(o2iblnd_send_put(g_b.conn, &r, &sge, 1, &g_b), 0);
		}
		while (!sent || !replied) {
			RUN_UNTIL("the GET's events", (ev = ut_event()).type != 0);
			assert_int_equal(ev.status, 0);
			sent |= ev.type == LNET_EVENT_SEND;
			if (ev.type == LNET_EVENT_REPLY) {
				replied = true;
				assert_int_equal(ev.mlength, n);
			}
		}
		assert_memory_equal(dst, src, n);
	}
	o2ib_hw_model.dereg_mem(mr);
	free(src);
	free(dst);
}

/* No listener at the peer: the waiting PUT fails as the kernel's (no service: -EHOSTUNREACH). */
static void
test_connect_refused(void **state)
{
	static uint8_t one = 1;
	struct lnet_processid to = { .pid = LNET_PID_LUSTRE };
	struct o2iblnd_stats st;
	struct lnet_event ev;

	(void)state;
	sides[1].listening = false;
	lnet_nid4_to_nid(NID_B, &to.nid);
	assert_int_equal(LNetPut(NULL, ut_bind(&one, 1, 1), LNET_NOACK_REQ, &to, UT_PORTAL, 7, 0,
				 0),
			 0);
	RUN_UNTIL("the SEND event", (ev = ut_event()).type != 0);
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -EHOSTUNREACH);
	o2iblnd_stats_get(g_ni, &st);
	assert_int_equal(st.conns_up, 0);
	assert_int_equal(st.connect_failures, 1);
	assert_null(g_b.conn);
}

/* No RDMA device behind the interface: the NI is not added, with the kernel's -ENETDOWN. */
static void
test_no_device(void **state)
{
	struct lnet_ni *ni = g_ni;
	struct lnet_nid nid;

	(void)state;
	t_open_rc = -ENODEV;
	lnet_nid4_to_nid(NID_A + 1, &nid);
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_ni_nid, &nid),
			 -ENETDOWN);
	t_open_rc = -EADDRNOTAVAIL;
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_ni_nid, &nid),
			 -ENETDOWN);
	t_open_rc = 0;
	assert_ptr_equal(g_ni, ni); /* the first NI is still there */
}

/* net show -v: the NI's ten lnd tunables in the kernel's order, with ko2iblnd's defaults. */
static void
test_net_show_tunables(void **state)
{
	static const char *const keys[] = { "peercredits_hiw",
					    "map_on_demand",
					    "concurrent_sends",
					    "fmr_pool_size",
					    "fmr_flush_trigger",
					    "fmr_cache",
					    "ntx",
					    "conns_per_peer",
					    "timeout",
					    "tos" };
	struct lnet_ctl_ni nis[4];
	int n = lnet_ctl_ni_list(nis, 4);
	const struct lnet_ctl_ni *o = NULL;

	(void)state;
	for (int i = 0; i < n; i++) {
		if (lnet_nid_to_nid4(&nis[i].nid) == NID_A) {
			o = &nis[i];
		}
	}
	assert_non_null(o);
	assert_int_equal(o->nlnd_tunables, 10);
	for (unsigned int i = 0; i < 10; i++) {
		assert_string_equal(o->lnd_tunables[i].key, keys[i]);
	}
	assert_int_equal(o->lnd_tunables[1].value, 1);   /* map_on_demand: obsolete, 1 */
	assert_int_equal(o->lnd_tunables[6].value, 512); /* ntx */
	assert_int_equal(o->lnd_tunables[7].value, 1);   /* conns_per_peer */
	assert_int_equal(o->lnd_tunables[8].value, 50);  /* timeout */
	assert_int_equal(o->lnd_tunables[9].value, -1);  /* tos: unset */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_put_to_peer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_from_peer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_from_peer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_show_tunables, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
