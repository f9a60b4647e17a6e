/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The o2ib connection engine receiving arbitrary messages over the
 * software QP model: the input is a series of (u16 length, bytes) records
 * delivered to B as A's SENDs. B answers what it is handed (by the first
 * byte: acknowledge or refuse PUTs and GETs); A answers nothing. Whatever
 * arrives, B must neither crash nor leak, its credits stay within the
 * queue depth, and once closed it stays closed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "o2ib_hw_model.h"
#include "o2iblnd_conn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NID_A 0x00050000c0a80101ULL
#define NID_B 0x00050000c0a80102ULL

struct fz {
	struct o2iblnd_conn *c;
	uint8_t mode;
	uint32_t lkey;
	uint32_t rkey;
	uint8_t *sink;
};

static int fz_user;

static void
fz_rx(void *arg, struct o2iblnd_rx *rx, const struct o2ib_msg *m)
{
	struct fz *f = arg;
	const struct o2ib_frag frag = { 4096, (uintptr_t)f->sink };
	const struct o2ib_hw_sge sge = { (uintptr_t)f->sink, 100, f->lkey };

	switch (m->type) {
	case O2IB_MSG_PUT_REQ:
		if (f->mode & 1) {
			(void)o2iblnd_put_ack(f->c, rx, f->rkey, &frag, 1, &fz_user);
		} else {
			(void)o2iblnd_put_nak(f->c, rx, -61);
		}
		break;
	case O2IB_MSG_GET_REQ:
		if (f->mode & 2) {
			(void)o2iblnd_get_reply(f->c, rx, &sge, 1, &fz_user);
		} else {
			(void)o2iblnd_get_nak(f->c, rx, -61);
		}
		break;
	default:
		o2iblnd_rx_done(f->c, rx);
		break;
	}
}

static void
fz_done(void *arg, void *user, int status)
{
	(void)arg;
	(void)status;
	if (user != &fz_user) {
		__builtin_trap();
	}
}

static const struct o2iblnd_conn_ops fz_ops = { fz_rx, fz_done, fz_done };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct o2ib_local me_b = { NID_B, 0x2222, 8, true };
	struct o2ib_hw_dev *da = model_dev_new();
	struct o2ib_hw_dev *db = model_dev_new();
	struct o2ib_hw_cq *ca = model_cq_new();
	struct o2ib_hw_cq *cb = model_cq_new();
	struct o2ib_hw_qp *qa;
	struct o2ib_hw_qp *qb;
	struct o2ib_hw_mr *mr;
	struct fz f = { 0 };
	struct o2iblnd_conn_cfg cfg = {
		.hw = &o2ib_hw_model,
		.dev = db,
		.cq = cb,
		.me = &me_b,
		.peer_nid = NID_A,
		.version = 0x12,
		.queue_depth = 8,
		.ntx = 16,
		.wrq_sge = 2,
		.tun = { 256, 8, 4, 8 },
		.ops = &fz_ops,
		.arg = &f,
	};
	size_t off = 1;

	if (size < 1) {
		goto out;
	}
	f.mode = data[0];
	f.sink = aligned_alloc(64, 4096);
	model_qp_pair(da, ca, db, cb, &qa, &qb);
	cfg.qp = qb;
	cfg.version = (f.mode & 4) != 0 ? 0x11 : 0x12;
	if (o2ib_hw_model.reg_mem(db, f.sink, 4096, &mr, &f.lkey, &f.rkey) != 0 ||
	    o2iblnd_conn_create(&cfg, &f.c) != 0) {
		__builtin_trap();
	}
	o2ib_conn_step(o2iblnd_conn_proto(f.c), O2IB_CONN_EV_ACCEPT);
	o2iblnd_conn_established(f.c, 8, 257, 0x1111);
	while (off + 2 <= size) {
		uint32_t len = (uint32_t)data[off] | (uint32_t)data[off + 1] << 8;
		const struct o2ib_conn *p = o2iblnd_conn_proto(f.c);
		bool closed = p->state >= O2IB_CONN_CLOSING;

		off += 2;
		len = len > size - off ? (uint32_t)(size - off) : len;
		len = len > O2IB_MSG_SIZE ? O2IB_MSG_SIZE : len;
		(void)model_inject(qa, data + off, len);
		off += len;
		(void)o2iblnd_conn_poll(f.c, 64);
		o2iblnd_conn_tick(f.c, off * 1000000000ULL);
		if ((closed && p->state < O2IB_CONN_CLOSING) || p->cr.credits > p->queue_depth ||
		    p->cr.credits < 0 || p->cr.outstanding < 0) {
			__builtin_trap();
		}
	}
	o2iblnd_conn_destroy(f.c);
	o2ib_hw_model.dereg_mem(mr);
	model_qp_free(qa);
	model_qp_free(qb);
	free(f.sink);
out:
	model_cq_free(ca);
	model_cq_free(cb);
	model_dev_free(da);
	model_dev_free(db);
	return 0;
}
