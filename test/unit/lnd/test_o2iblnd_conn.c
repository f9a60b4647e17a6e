/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The o2ib connection engine over a software model of RC queue pairs
 * (o2ib_hw_model.h; no RDMA device here): IMMEDIATE both ways, credits
 * running out and coming home in a NOOP, PUT by RDMA WRITE (one and many
 * fragments each side, NAK, a sink too short), GET by RDMA WRITE and its
 * NAK, a receive before ESTABLISHED, and the receive checks that close a
 * connection (stale stamps, excess credits, an unmatched cookie), and a
 * close failing what waits. What moved is checked byte for byte.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "o2ib_hw_model.h"
#include "o2iblnd_conn.h"

#define NID_A 0x00050000c0a80101ULL
#define NID_B 0x00050000c0a80102ULL
#define INC_A 0x1111ULL
#define INC_B 0x2222ULL
#define MAXEV 64

static uint16_t pair_max_frags = 257; /* what both agree on at ESTABLISHED */

struct side {
	struct o2ib_hw_dev *dev;
	struct o2ib_hw_cq *cq;
	struct o2ib_hw_qp *qp;
	struct o2iblnd_conn *c;
	struct o2ib_local me;
	int nrx;
	struct o2iblnd_rx *rx[MAXEV];
	struct o2ib_msg msg[MAXEV];
	int ndone;
	void *done_user[MAXEV];
	int done_status[MAXEV];
	int nsink;
	void *sink_user[MAXEV];
	int sink_status[MAXEV];
};

struct pair {
	struct side a;
	struct side b;
};

static void
on_rx(void *arg, struct o2iblnd_rx *rx, const struct o2ib_msg *m)
{
	struct side *s = arg;

	assert_true(s->nrx < MAXEV);
	s->rx[s->nrx] = rx;
	s->msg[s->nrx++] = *m;
}

static void
on_tx_done(void *arg, void *user, int status)
{
	struct side *s = arg;

	assert_true(s->ndone < MAXEV);
	s->done_user[s->ndone] = user;
	s->done_status[s->ndone++] = status;
}

static void
on_sink_done(void *arg, void *user, int status)
{
	struct side *s = arg;

	s->sink_user[s->nsink] = user;
	s->sink_status[s->nsink++] = status;
}

static const struct o2iblnd_conn_ops ops = { on_rx, on_tx_done, on_sink_done };

static void
side_conn(struct side *s, lnet_nid_t me, uint64_t inc, lnet_nid_t peer, uint16_t version,
	  uint16_t qd)
{
	struct o2iblnd_conn_cfg cfg = {
		.hw = &o2ib_hw_model,
		.dev = s->dev,
		.qp = s->qp,
		.cq = s->cq,
		.me = &s->me,
		.peer_nid = peer,
		.version = version,
		.queue_depth = qd,
		.ntx = 32,
		.wrq_sge = 2,
		.tun = { 256, 8, 4, 8 },
		.timeout_ns = 50000000000ULL,    /* 50 s */
		.keepalive_ns = 100000000000ULL, /* 100 s */
		.ops = &ops,
		.arg = s,
	};

	s->me = (struct o2ib_local){ me, inc, 8, true };
	o2ib_tunables_fix(&cfg.tun);
	assert_int_equal(o2iblnd_conn_create(&cfg, &s->c), 0);
}

/* A connects to B at @p qd; both are established unless @p b_late. */
static struct pair *
pair_new(uint16_t version, uint16_t qd, bool b_late)
{
	struct pair *p = calloc(1, sizeof(*p));

	p->a.dev = model_dev_new();
	p->b.dev = model_dev_new();
	p->a.cq = model_cq_new();
	p->b.cq = model_cq_new();
	model_qp_pair(p->a.dev, p->a.cq, p->b.dev, p->b.cq, &p->a.qp, &p->b.qp);
	side_conn(&p->a, NID_A, INC_A, NID_B, version, qd);
	side_conn(&p->b, NID_B, INC_B, NID_A, version, qd);
	/* receives are posted before the CM connects: 2 x depth + 2 for v2 */
	assert_int_equal(model_qp_stats(p->b.qp)->recvs_posted, 2 * qd + (version == 0x12 ? 2 : 0));
	assert_int_equal(o2ib_conn_step(o2iblnd_conn_proto(p->a.c), O2IB_CONN_EV_CONNECT), 0);
	assert_int_equal(o2ib_conn_step(o2iblnd_conn_proto(p->a.c), O2IB_CONN_EV_RESOLVED), 0);
	assert_int_equal(o2ib_conn_step(o2iblnd_conn_proto(p->b.c), O2IB_CONN_EV_ACCEPT), 0);
	assert_int_equal(o2iblnd_conn_established(p->a.c, qd, pair_max_frags, INC_B), 0);
	if (!b_late) {
		assert_int_equal(o2iblnd_conn_established(p->b.c, qd, pair_max_frags, INC_A), 0);
	}
	return p;
}

static void
side_free(struct side *s)
{
	o2iblnd_conn_destroy(s->c);
	model_qp_free(s->qp);
	model_cq_free(s->cq);
	model_dev_free(s->dev);
}

static void
pair_free(struct pair *p)
{
	side_free(&p->a);
	side_free(&p->b);
	free(p);
}

static void
poll_all(struct pair *p)
{
	int n;

	do {
		n = o2iblnd_conn_poll(p->a.c, 64);
		n += o2iblnd_conn_poll(p->b.c, 64);
	} while (n > 0);
}

static void
hdr_for(struct lnet_hdr *h, uint32_t type, uint32_t payload)
{
	memset(h, 0, sizeof(*h));
	lnet_nid4_to_nid(NID_B, &h->dest_nid);
	lnet_nid4_to_nid(NID_A, &h->src_nid);
	h->dest_pid = h->src_pid = 12345;
	h->type = type;
	h->payload_length = payload;
}

static int user_tags[8];

static void
test_immediate(void **state)
{
	struct pair *p = pair_new(0x12, 8, false);
	static uint8_t payload[O2IB_IMMEDIATE_MAX];
	const struct iovec iov[2] = { { payload, 1000 },
				      { payload + 1000, sizeof(payload) - 1000 } };
	struct lnet_hdr h;
	struct lnet_hdr got;

	(void)state;
	for (size_t i = 0; i < sizeof(payload); i++) {
		payload[i] = (uint8_t)(i * 13 + 1);
	}
	hdr_for(&h, LNET_MSG_PUT, sizeof(payload));
	assert_int_equal(o2iblnd_send_immediate(p->a.c, &h, iov, 2, 0, sizeof(payload),
						&user_tags[0]),
			 0);
	poll_all(p);
	assert_int_equal(p->b.nrx, 1);
	assert_int_equal(p->b.msg[0].type, O2IB_MSG_IMMEDIATE);
	assert_int_equal(p->b.msg[0].u.imm.payload_nob, sizeof(payload));
	assert_memory_equal(p->b.msg[0].u.imm.payload, payload, sizeof(payload));
	assert_int_equal(lnet_hdr_decode_nid4(p->b.msg[0].u.imm.lnet_hdr, 72, &got), 0);
	assert_int_equal(got.payload_length, sizeof(payload));
	assert_int_equal(p->a.ndone, 1);
	assert_ptr_equal(p->a.done_user[0], &user_tags[0]);
	assert_int_equal(p->a.done_status[0], 0);
	/* an IMMEDIATE costs a credit until B reposts the buffer */
	assert_int_equal(o2iblnd_conn_proto(p->a.c)->cr.credits, 7);
	o2iblnd_rx_done(p->b.c, p->b.rx[0]);
	assert_int_equal(o2iblnd_conn_proto(p->b.c)->cr.outstanding, 1);
	/* a second answer changes nothing */
	o2iblnd_rx_done(p->b.c, p->b.rx[0]);
	assert_int_equal(o2iblnd_conn_proto(p->b.c)->cr.outstanding, 1);
	assert_int_equal(o2iblnd_put_nak(p->b.c, p->b.rx[0], -ENODATA), -EINVAL);
	/* too big for one message */
	assert_int_equal(o2iblnd_send_immediate(p->a.c, &h, iov, 2, 0, sizeof(payload) + 1, NULL),
			 -EMSGSIZE);
	pair_free(p);
}

/*
 * A sends 9 at depth 8: the ninth waits for a credit. B hands the buffers
 * back; at the high-water mark (4) with nothing to carry them B sends a
 * NOOP, which returns them; the ninth goes.
 */
static void
test_credits_and_noop(void **state)
{
	struct pair *p = pair_new(0x12, 8, false);
	struct lnet_hdr h;
	uint32_t len;
	const uint8_t *last;

	(void)state;
	hdr_for(&h, LNET_MSG_PUT, 0);
	for (int i = 0; i < 9; i++) {
		assert_int_equal(o2iblnd_send_immediate(p->a.c, &h, NULL, 0, 0, 0, &user_tags[1]),
				 0);
	}
	poll_all(p);
	assert_int_equal(p->b.nrx, 8);
	assert_int_equal(model_qp_stats(p->a.qp)->sends, 8);
	assert_int_equal(o2iblnd_conn_proto(p->a.c)->cr.credits, 0);
	for (int i = 0; i < 3; i++) {
		o2iblnd_rx_done(p->b.c, p->b.rx[i]);
	}
	poll_all(p);
	assert_int_equal(model_qp_stats(p->b.qp)->sends, 0); /* 3 owed: below the high-water */
	o2iblnd_rx_done(p->b.c, p->b.rx[3]);
	poll_all(p);
	assert_int_equal(model_qp_stats(p->b.qp)->sends, 1);
	last = model_last_send(p->b.qp, &len);
	assert_int_equal(len, 48);
	assert_int_equal(last[O2IB_OFF_TYPE], O2IB_MSG_NOOP);
	assert_int_equal(last[O2IB_OFF_CREDITS], 4);
	/* the ninth went with the credits back */
	assert_int_equal(p->b.nrx, 9);
	assert_int_equal(model_qp_stats(p->a.qp)->sends, 9);
	assert_int_equal(o2iblnd_conn_proto(p->a.c)->cr.credits, 3);
	/* A's next message returns nothing: the NOOP cost B no credit and owes none */
	assert_int_equal(o2iblnd_conn_proto(p->a.c)->cr.outstanding, 0);
	pair_free(p);
}

/* Register @p len bytes of @p buf on @p s; the key pair out. */
static void
reg(struct side *s, void *buf, size_t len, struct o2ib_hw_mr **mr, uint32_t *lkey, uint32_t *rkey)
{
	assert_int_equal(o2ib_hw_model.reg_mem(s->dev, buf, len, mr, lkey, rkey), 0);
}

/*
 * 1 MiB PUT: PUT_REQ, B answers PUT_ACK into @p ndst fragments, A writes
 * from @p nsrc pieces and sends PUT_DONE; B's buffer holds the bytes.
 */
static void
put_case(unsigned int nsrc, unsigned int ndst)
{
	const uint32_t total = 1U << 20;
	struct pair *p = pair_new(0x12, 8, false);
	uint8_t *src = malloc(total);
	uint8_t *sink = calloc(1, total);
	struct o2ib_hw_sge sges[O2IB_MAX_RDMA_FRAGS];
	struct o2ib_frag frags[O2IB_MAX_RDMA_FRAGS];
	struct o2ib_hw_mr *mra;
	struct o2ib_hw_mr *mrb;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t unused;
	struct lnet_hdr h;

	for (uint32_t i = 0; i < total; i++) {
		src[i] = (uint8_t)(i ^ (i >> 8) ^ (i >> 16));
	}
	reg(&p->a, src, total, &mra, &lkey, &unused);
	reg(&p->b, sink, total, &mrb, &unused, &rkey);
	for (unsigned int i = 0; i < nsrc; i++) { /* uneven pieces */
		uint32_t from = (uint32_t)((uint64_t)total * i / nsrc);
		uint32_t to = (uint32_t)((uint64_t)total * (i + 1) / nsrc);

		sges[i] = (struct o2ib_hw_sge){ (uintptr_t)src + from, to - from, lkey };
	}
	for (unsigned int i = 0; i < ndst; i++) {
		uint32_t from = (uint32_t)((uint64_t)total * i / ndst);
		uint32_t to = (uint32_t)((uint64_t)total * (i + 1) / ndst);

		frags[i] = (struct o2ib_frag){ to - from, (uintptr_t)sink + from };
	}
	hdr_for(&h, LNET_MSG_PUT, total);
	assert_int_equal(o2iblnd_send_put(p->a.c, &h, sges, nsrc, &user_tags[2]), 0);
	poll_all(p);
	assert_int_equal(p->b.nrx, 1);
	assert_int_equal(p->b.msg[0].type, O2IB_MSG_PUT_REQ);
	assert_int_equal(o2iblnd_put_ack(p->b.c, p->b.rx[0], rkey, frags, ndst, &user_tags[3]), 0);
	poll_all(p);
	assert_memory_equal(sink, src, total);
	assert_int_equal(model_qp_stats(p->a.qp)->write_bytes, total);
	assert_true(model_qp_stats(p->a.qp)->writes <= nsrc + ndst);
	assert_int_equal(p->a.ndone, 1);
	assert_int_equal(p->a.done_status[0], 0);
	assert_int_equal(p->b.nsink, 1);
	assert_ptr_equal(p->b.sink_user[0], &user_tags[3]);
	assert_int_equal(p->b.sink_status[0], 0);
	/* PUT_REQ, PUT_DONE from A; PUT_ACK from B */
	assert_int_equal(model_qp_stats(p->a.qp)->sends, 2);
	assert_int_equal(model_qp_stats(p->b.qp)->sends, 1);
	/* the PUT_REQ's credit came home with PUT_DONE: B owes it */
	assert_int_equal(o2iblnd_conn_proto(p->b.c)->cr.outstanding, 1);
	o2ib_hw_model.dereg_mem(mra);
	o2ib_hw_model.dereg_mem(mrb);
	free(src);
	free(sink);
	pair_free(p);
}

static void
test_put_one_fragment(void **state)
{
	(void)state;
	put_case(1, 1); /* fast registration: the whole sink as one fragment */
}

static void
test_put_many_fragments(void **state)
{
	(void)state;
	put_case(3, 257); /* an older or FMR peer's 257 fragments */
	put_case(256, 5);
}

static void
test_put_nak_and_short_sink(void **state)
{
	struct pair *p = pair_new(0x12, 8, false);
	static uint8_t src[8192];
	static uint8_t sink[4096];
	struct o2ib_hw_mr *mra;
	struct o2ib_hw_mr *mrb;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t unused;
	struct o2ib_hw_sge sge;
	struct o2ib_frag frag = { sizeof(sink), (uintptr_t)sink };
	struct lnet_hdr h;

	(void)state;
	reg(&p->a, src, sizeof(src), &mra, &lkey, &unused);
	reg(&p->b, sink, sizeof(sink), &mrb, &unused, &rkey);
	sge = (struct o2ib_hw_sge){ (uintptr_t)src, sizeof(src), lkey };
	hdr_for(&h, LNET_MSG_PUT, sizeof(src));
	/* no match at B */
	assert_int_equal(o2iblnd_send_put(p->a.c, &h, &sge, 1, &user_tags[4]), 0);
	poll_all(p);
	assert_int_equal(o2iblnd_put_nak(p->b.c, p->b.rx[0], -ENODATA), 0);
	poll_all(p);
	assert_int_equal(p->a.ndone, 1);
	assert_int_equal(p->a.done_status[0], -ENODATA);
	assert_int_equal(p->b.nsink, 0);
	/* a sink shorter than the payload: nothing is written, both sides see -EPROTO */
	memset(sink, 0, sizeof(sink));
	assert_int_equal(o2iblnd_send_put(p->a.c, &h, &sge, 1, &user_tags[5]), 0);
	poll_all(p);
	assert_int_equal(o2iblnd_put_ack(p->b.c, p->b.rx[1], rkey, &frag, 1, &user_tags[6]), 0);
	poll_all(p);
	assert_int_equal(model_qp_stats(p->a.qp)->writes, 0);
	assert_int_equal(p->a.done_status[1], -EPROTO);
	assert_int_equal(p->b.sink_status[0], -EPROTO);
	assert_int_equal(o2iblnd_conn_proto(p->a.c)->state, O2IB_CONN_ESTABLISHED);
	o2ib_hw_model.dereg_mem(mra);
	o2ib_hw_model.dereg_mem(mrb);
	pair_free(p);
}

static void
test_get(void **state)
{
	struct pair *p = pair_new(0x12, 8, false);
	static uint8_t data[65536];
	static uint8_t sink[65536];
	struct o2ib_hw_mr *mra;
	struct o2ib_hw_mr *mrb;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t unused;
	struct o2ib_hw_sge src[2];
	struct o2ib_frag frag;
	struct lnet_hdr h;

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++) {
		data[i] = (uint8_t)(i * 7);
	}
	reg(&p->a, sink, sizeof(sink), &mra, &unused, &rkey);
	reg(&p->b, data, sizeof(data), &mrb, &lkey, &unused);
	frag = (struct o2ib_frag){ sizeof(sink), (uintptr_t)sink };
	hdr_for(&h, LNET_MSG_GET, 0);
	assert_int_equal(o2iblnd_send_get(p->a.c, &h, rkey, &frag, 1, &user_tags[7]), 0);
	poll_all(p);
	assert_int_equal(p->b.nrx, 1);
	assert_int_equal(p->b.msg[0].type, O2IB_MSG_GET_REQ);
	assert_int_equal(p->b.msg[0].u.get_req.rd.key, rkey);
	/* reply with 40000 bytes from two pieces */
	src[0] = (struct o2ib_hw_sge){ (uintptr_t)data, 10000, lkey };
	src[1] = (struct o2ib_hw_sge){ (uintptr_t)data + 10000, 30000, lkey };
	assert_int_equal(o2iblnd_get_reply(p->b.c, p->b.rx[0], src, 2, &user_tags[0]), 0);
	poll_all(p);
	assert_memory_equal(sink, data, 40000);
	assert_int_equal(sink[40000], 0);
	assert_int_equal(p->a.ndone, 1);
	assert_ptr_equal(p->a.done_user[0], &user_tags[7]);
	assert_int_equal(p->a.done_status[0], 40000); /* GET_DONE's status: the bytes */
	assert_int_equal(p->b.ndone, 1);
	assert_int_equal(p->b.done_status[0], 0);
	/* no match: GET_DONE with -ENODATA */
	assert_int_equal(o2iblnd_send_get(p->a.c, &h, rkey, &frag, 1, &user_tags[1]), 0);
	poll_all(p);
	assert_int_equal(o2iblnd_get_nak(p->b.c, p->b.rx[1], -ENODATA), 0);
	poll_all(p);
	assert_int_equal(p->a.done_status[1], -ENODATA);
	/* the reserved slots came back with the GET_DONEs */
	assert_int_equal(o2iblnd_conn_proto(p->a.c)->cr.reserved, 8);
	o2ib_hw_model.dereg_mem(mra);
	o2ib_hw_model.dereg_mem(mrb);
	pair_free(p);
}

/* A is established first and sends at once: B handles it when it is established too. */
static void
test_early_receive(void **state)
{
	struct pair *p = pair_new(0x12, 8, true);
	struct lnet_hdr h;

	(void)state;
	hdr_for(&h, LNET_MSG_PUT, 0);
	assert_int_equal(o2iblnd_send_immediate(p->a.c, &h, NULL, 0, 0, 0, &user_tags[0]), 0);
	poll_all(p);
	assert_int_equal(p->b.nrx, 0);
	assert_int_equal(o2iblnd_conn_established(p->b.c, 8, 257, INC_A), 0);
	assert_int_equal(p->b.nrx, 1);
	assert_int_equal(p->b.msg[0].type, O2IB_MSG_IMMEDIATE);
	pair_free(p);
}

/* Raw bytes from A's side as the peer would send them. */
static void
inject(struct pair *p, uint8_t type, uint8_t credits, uint64_t dststamp, uint64_t cookie)
{
	uint8_t buf[64] = { 0 };
	const struct o2ib_stamp s = { 0x12, credits, false, NID_A, INC_A, NID_B, dststamp };
	int nob = type == O2IB_MSG_NOOP ? o2ib_msg_noop(buf, sizeof(buf)) :
					  o2ib_msg_completion(buf, sizeof(buf), type, cookie, 0);

	o2ib_msg_stamp(buf, &s);
	assert_int_equal(model_inject(p->a.qp, buf, (uint32_t)nob), 0);
}

static void
test_receive_checks(void **state)
{
	struct pair *p;

	(void)state;
	/* a message for an older incarnation of B */
	p = pair_new(0x12, 8, false);
	inject(p, O2IB_MSG_NOOP, 0, INC_B + 1, 0);
	poll_all(p);
	assert_int_equal(o2iblnd_conn_proto(p->b.c)->state, O2IB_CONN_CLOSING);
	assert_int_equal(o2iblnd_conn_proto(p->b.c)->error, -ESTALE);
	pair_free(p);
	/* credits beyond the queue depth */
	p = pair_new(0x12, 8, false);
	inject(p, O2IB_MSG_NOOP, 1, INC_B, 0);
	poll_all(p);
	assert_int_equal(o2iblnd_conn_proto(p->b.c)->error, -EPROTO);
	pair_free(p);
	/* a completion nobody waits for */
	p = pair_new(0x12, 8, false);
	inject(p, O2IB_MSG_GET_DONE, 0, INC_B, 0x1234);
	poll_all(p);
	assert_int_equal(o2iblnd_conn_proto(p->b.c)->error, -EPROTO);
	pair_free(p);
}

/* What waits for the peer completes with the error the connection closed with. */
static void
test_close_fails_waiting(void **state)
{
	struct pair *p = pair_new(0x12, 8, false);
	static uint8_t sink[4096];
	struct o2ib_frag frag = { sizeof(sink), (uintptr_t)sink };
	struct lnet_hdr h;

	(void)state;
	hdr_for(&h, LNET_MSG_GET, 0);
	assert_int_equal(o2iblnd_send_get(p->a.c, &h, 1, &frag, 1, &user_tags[2]), 0);
	assert_int_equal(o2iblnd_send_immediate(p->a.c, &h, NULL, 0, 0, 0, &user_tags[3]), 0);
	assert_int_equal(p->a.ndone, 0); /* not yet polled */
	poll_all(p);
	assert_int_equal(p->a.ndone, 1); /* the IMMEDIATE */
	o2iblnd_conn_close(p->a.c, -ETIMEDOUT);
	assert_int_equal(p->a.ndone, 2);
	assert_ptr_equal(p->a.done_user[1], &user_tags[2]);
	assert_int_equal(p->a.done_status[1], -ETIMEDOUT);
	assert_int_equal(o2iblnd_send_immediate(p->a.c, &h, NULL, 0, 0, 0, &user_tags[4]),
			 -ECONNABORTED);
	pair_free(p);
}

/* v1: depth 8, no receives for out-of-band NOOPs, and the last credit kept for a NOOP. */
static void
test_v1_last_credit(void **state)
{
	struct pair *p = pair_new(0x11, 8, false);
	struct lnet_hdr h;

	(void)state;
	hdr_for(&h, LNET_MSG_PUT, 0);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(o2iblnd_send_immediate(p->a.c, &h, NULL, 0, 0, 0, &user_tags[0]),
				 0);
	}
	poll_all(p);
	assert_int_equal(p->b.nrx, 7); /* the eighth waits: only a NOOP may take the last */
	assert_int_equal(o2iblnd_conn_proto(p->a.c)->cr.credits, 1);
	pair_free(p);
}

/* More than 100 s without a send: a NOOP carries whatever is owed (here nothing). */
static void
test_keepalive(void **state)
{
	struct pair *p = pair_new(0x12, 8, false);
	uint32_t len;
	const uint8_t *last;

	(void)state;
	o2iblnd_conn_tick(p->b.c, 100000000000ULL); /* the kernel's: strictly after */
	poll_all(p);
	assert_int_equal(model_qp_stats(p->b.qp)->sends, 0);
	o2iblnd_conn_tick(p->b.c, 100000000001ULL);
	poll_all(p);
	assert_int_equal(model_qp_stats(p->b.qp)->sends, 1);
	last = model_last_send(p->b.qp, &len);
	assert_int_equal(last[O2IB_OFF_TYPE], O2IB_MSG_NOOP);
	assert_int_equal(last[O2IB_OFF_CREDITS], 0);
	/* not again until another 100 s pass */
	o2iblnd_conn_tick(p->b.c, 150000000000ULL);
	poll_all(p);
	assert_int_equal(model_qp_stats(p->b.qp)->sends, 1);
	assert_int_equal(o2iblnd_conn_proto(p->a.c)->state, O2IB_CONN_ESTABLISHED);
	pair_free(p);
}

/* A GET nobody answers: 50 s after it was queued the connection closes with -ETIMEDOUT. */
static void
test_tx_timeout(void **state)
{
	struct pair *p = pair_new(0x12, 8, false);
	static uint8_t sink[4096];
	struct o2ib_frag frag = { sizeof(sink), (uintptr_t)sink };
	struct lnet_hdr h;

	(void)state;
	o2iblnd_conn_tick(p->a.c, 1000000000ULL);
	hdr_for(&h, LNET_MSG_GET, 0);
	assert_int_equal(o2iblnd_send_get(p->a.c, &h, 1, &frag, 1, &user_tags[5]), 0);
	poll_all(p);
	o2iblnd_conn_tick(p->a.c, 50999999999ULL);
	assert_int_equal(p->a.ndone, 0);
	o2iblnd_conn_tick(p->a.c, 51000000000ULL);
	assert_int_equal(p->a.ndone, 1);
	assert_int_equal(p->a.done_status[0], -ETIMEDOUT);
	assert_int_equal(o2iblnd_conn_proto(p->a.c)->error, -ETIMEDOUT);
	pair_free(p);
}

/*
 * The WRITEs are grouped as the kernel's: two source pieces per WRITE
 * (wrq_sge), a new one where a destination fragment ends, at most
 * max_frags of them. Three pieces into one fragment take two WRITEs: fine
 * at max_frags 2; three into three fragments need three: -EMSGSIZE on both
 * sides, nothing written.
 */
static void
test_write_grouping(void **state)
{
	struct pair *p;
	static uint8_t src[3000];
	static uint8_t sink[3000];
	struct o2ib_hw_mr *mra;
	struct o2ib_hw_mr *mrb;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t unused;
	struct o2ib_hw_sge sges[3];
	struct o2ib_frag one = { sizeof(sink), (uintptr_t)sink };
	struct o2ib_frag three[3];
	struct lnet_hdr h;

	(void)state;
	pair_max_frags = 2;
	p = pair_new(0x12, 8, false);
	pair_max_frags = 257;
	for (size_t i = 0; i < sizeof(src); i++) {
		src[i] = (uint8_t)(i * 3 + 7);
	}
	reg(&p->a, src, sizeof(src), &mra, &lkey, &unused);
	reg(&p->b, sink, sizeof(sink), &mrb, &unused, &rkey);
	for (int i = 0; i < 3; i++) {
		sges[i] = (struct o2ib_hw_sge){ (uintptr_t)src + i * 1000, 1000, lkey };
		three[i] = (struct o2ib_frag){ 1000, (uintptr_t)sink + i * 1000 };
	}
	hdr_for(&h, LNET_MSG_PUT, sizeof(src));
	assert_int_equal(o2iblnd_send_put(p->a.c, &h, sges, 3, &user_tags[0]), 0);
	poll_all(p);
	assert_int_equal(o2iblnd_put_ack(p->b.c, p->b.rx[0], rkey, &one, 1, &user_tags[1]), 0);
	poll_all(p);
	assert_int_equal(model_qp_stats(p->a.qp)->writes, 2);
	assert_memory_equal(sink, src, sizeof(src));
	assert_int_equal(p->a.done_status[0], 0);
	memset(sink, 0, sizeof(sink));
	assert_int_equal(o2iblnd_send_put(p->a.c, &h, sges, 3, &user_tags[2]), 0);
	poll_all(p);
	assert_int_equal(o2iblnd_put_ack(p->b.c, p->b.rx[1], rkey, three, 3, &user_tags[3]), 0);
	poll_all(p);
	assert_int_equal(model_qp_stats(p->a.qp)->writes, 2); /* none more */
	assert_int_equal(p->a.done_status[1], -EMSGSIZE);
	assert_int_equal(p->b.sink_status[1], -EMSGSIZE);
	assert_int_equal(sink[0], 0);
	o2ib_hw_model.dereg_mem(mra);
	o2ib_hw_model.dereg_mem(mrb);
	pair_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_immediate),
		cmocka_unit_test(test_credits_and_noop),
		cmocka_unit_test(test_put_one_fragment),
		cmocka_unit_test(test_put_many_fragments),
		cmocka_unit_test(test_put_nak_and_short_sink),
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_early_receive),
		cmocka_unit_test(test_receive_checks),
		cmocka_unit_test(test_close_fails_waiting),
		cmocka_unit_test(test_v1_last_credit),
		cmocka_unit_test(test_keepalive),
		cmocka_unit_test(test_tx_timeout),
		cmocka_unit_test(test_write_grouping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
