/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The o2ib connection engine's cost per 4 KiB PUT with its ACK, over the
 * software QP model (no RDMA device here): A sends a 4 KiB PUT (above the
 * 3976-byte IMMEDIATE limit: PUT_REQ, PUT_ACK, one RDMA WRITE, PUT_DONE),
 * B acknowledges it into a registered sink, then sends the LNet ACK back
 * as an IMMEDIATE. The model's copies (4 KiB written, 5 messages sent) are
 * in the count, a NIC's DMA would not be. callgrind at two iteration
 * counts, the difference over the difference of the counts, is the
 * instructions per operation:
 *
 *   bench_o2ib [--iters N]
 *
 * Prints YAML.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "o2ib_hw_model.h"
#include "o2iblnd_conn.h"

#define NID_A 0x00050000c0a80101ULL
#define NID_B 0x00050000c0a80102ULL

struct side {
	struct o2ib_hw_dev *dev;
	struct o2ib_hw_cq *cq;
	struct o2ib_hw_qp *qp;
	struct o2iblnd_conn *c;
	struct o2ib_local me;
	struct o2iblnd_rx *rx;
	uint8_t rx_type;
	unsigned long done;
};

static int tag;

static void
on_rx(void *arg, struct o2iblnd_rx *rx, const struct o2ib_msg *m)
{
	struct side *s = arg;

	s->rx = rx;
	s->rx_type = m->type;
}

static void
on_done(void *arg, void *user, int status)
{
	struct side *s = arg;

	(void)user;
	if (status != 0) {
		fprintf(stderr, "bench_o2ib: a message failed: %d\n", status);
		exit(1);
	}
	s->done++;
}

static const struct o2iblnd_conn_ops ops = { on_rx, on_done, on_done };

static void
side_init(struct side *s, lnet_nid_t me, uint64_t inc, lnet_nid_t peer)
{
	struct o2iblnd_conn_cfg cfg = {
		.hw = &o2ib_hw_model,
		.dev = s->dev,
		.qp = s->qp,
		.cq = s->cq,
		.me = &s->me,
		.peer_nid = peer,
		.version = 0x12,
		.queue_depth = 8,
		.ntx = 32,
		.wrq_sge = 2,
		.tun = { 256, 8, 4, 8 },
		.ops = &ops,
		.arg = s,
	};

	s->me = (struct o2ib_local){ me, inc, 8, true };
	if (o2iblnd_conn_create(&cfg, &s->c) != 0) {
		exit(1);
	}
}

static void
poll_both(struct side *a, struct side *b)
{
	while (o2iblnd_conn_poll(a->c, 64) + o2iblnd_conn_poll(b->c, 64) > 0) {
	}
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = { { "iters", required_argument, NULL, 'n' },
					      { NULL, 0, NULL, 0 } };
	static uint8_t src[4096];
	static uint8_t sink[4096];
	struct side a = { .dev = model_dev_new(), .cq = model_cq_new() };
	struct side b = { .dev = model_dev_new(), .cq = model_cq_new() };
	struct o2ib_hw_mr *mra;
	struct o2ib_hw_mr *mrb;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t unused;
	struct o2ib_hw_sge sge;
	struct o2ib_frag frag = { sizeof(sink), (uintptr_t)sink };
	struct lnet_hdr put = { 0 };
	struct lnet_hdr ack = { 0 };
	unsigned long iters = 10000;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'n') {
			fprintf(stderr, "usage: bench_o2ib [--iters N]\n");
			return 2;
		}
		iters = strtoul(optarg, NULL, 0);
	}
	model_qp_pair(a.dev, a.cq, b.dev, b.cq, &a.qp, &b.qp);
	side_init(&a, NID_A, 1, NID_B);
	side_init(&b, NID_B, 2, NID_A);
	o2ib_conn_step(o2iblnd_conn_proto(a.c), O2IB_CONN_EV_CONNECT);
	o2ib_conn_step(o2iblnd_conn_proto(a.c), O2IB_CONN_EV_RESOLVED);
	o2ib_conn_step(o2iblnd_conn_proto(b.c), O2IB_CONN_EV_ACCEPT);
	o2iblnd_conn_established(a.c, 8, 257, 2);
	o2iblnd_conn_established(b.c, 8, 257, 1);
	o2ib_hw_model.reg_mem(a.dev, src, sizeof(src), &mra, &lkey, &unused);
	o2ib_hw_model.reg_mem(b.dev, sink, sizeof(sink), &mrb, &unused, &rkey);
	sge = (struct o2ib_hw_sge){ (uintptr_t)src, sizeof(src), lkey };
	lnet_nid4_to_nid(NID_B, &put.dest_nid);
	lnet_nid4_to_nid(NID_A, &put.src_nid);
	put.type = LNET_MSG_PUT;
	put.payload_length = sizeof(src);
	ack.dest_nid = put.src_nid;
	ack.src_nid = put.dest_nid;
	ack.type = LNET_MSG_ACK;
	for (unsigned long i = 0; i < iters; i++) {
		o2iblnd_send_put(a.c, &put, &sge, 1, &tag);
		poll_both(&a, &b);
		o2iblnd_put_ack(b.c, b.rx, rkey, &frag, 1, &tag);
		poll_both(&a, &b);
		o2iblnd_send_immediate(b.c, &ack, NULL, 0, 0, 0, &tag);
		poll_both(&a, &b);
		o2iblnd_rx_done(a.c, a.rx);
		poll_both(&a, &b);
	}
	if (a.done != iters || b.done != 2 * iters) {
		fprintf(stderr, "bench_o2ib: %lu/%lu completions\n", a.done, b.done);
		return 1;
	}
	printf("bench_o2ib:\n  iters: %lu\n  put_bytes: %zu\n  a_sends: %u\n  b_sends: %u\n", iters,
	       sizeof(src), model_qp_stats(a.qp)->sends, model_qp_stats(b.qp)->sends);
	o2iblnd_conn_destroy(a.c);
	o2iblnd_conn_destroy(b.c);
	o2ib_hw_model.dereg_mem(mra);
	o2ib_hw_model.dereg_mem(mrb);
	model_qp_free(a.qp);
	model_qp_free(b.qp);
	model_cq_free(a.cq);
	model_cq_free(b.cq);
	model_dev_free(a.dev);
	model_dev_free(b.dev);
	return 0;
}
