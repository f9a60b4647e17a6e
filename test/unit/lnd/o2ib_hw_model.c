/* SPDX-License-Identifier: BSD-3-Clause */
/* The o2ib hardware model for unit tests (o2ib_hw_model.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "o2ib_hw_model.h"

#define MODEL_MRS 64
#define MODEL_CQE 8192
#define MODEL_RQ 1024
#define WC_RNR_RETRY_EXC 13 /* ibv_wc_status values */
#define WC_REM_ACCESS 10

struct o2ib_hw_mr {
	struct o2ib_hw_dev *dev;
	uint8_t *addr;
	size_t len;
	uint32_t lkey;
	uint32_t rkey;
};

struct o2ib_hw_dev {
	struct o2ib_hw_mr *mr[MODEL_MRS];
	uint32_t next_key;
};

struct o2ib_hw_cq {
	struct o2ib_hw_wc wc[MODEL_CQE];
	unsigned int head;
	unsigned int tail;
};

struct model_recv {
	uint64_t wr_id;
	struct o2ib_hw_sge sge;
};

struct o2ib_hw_qp {
	struct o2ib_hw_dev *dev;
	struct o2ib_hw_cq *cq;
	struct o2ib_hw_qp *peer;
	struct model_recv rq[MODEL_RQ];
	unsigned int rq_head;
	unsigned int rq_tail;
	struct model_stats stats;
	uint8_t last[4096];
	uint32_t last_len;
};

static void
cq_push(struct o2ib_hw_cq *cq, uint64_t wr_id, int status, int kind, uint32_t len)
{
	cq->wc[cq->tail % MODEL_CQE] = (struct o2ib_hw_wc){ wr_id, status, kind, len };
	cq->tail++;
}

/* The bytes @p key covers at [addr, addr + len) on @p d, or NULL. */
static uint8_t *
resolve(struct o2ib_hw_dev *d, uint32_t key, bool remote, uint64_t addr, uint32_t len)
{
	for (int i = 0; i < MODEL_MRS; i++) {
		struct o2ib_hw_mr *m = d->mr[i];

		if (m != NULL && (remote ? m->rkey : m->lkey) == key &&
		    addr >= (uintptr_t)m->addr && addr + len <= (uintptr_t)m->addr + m->len) {
			return (uint8_t *)(uintptr_t)addr;
		}
	}
	return NULL;
}

static int
deliver(struct o2ib_hw_qp *from, const void *bytes, uint32_t len)
{
	struct o2ib_hw_qp *to = from->peer;
	struct model_recv *r;
	uint8_t *dst;

	if (to == NULL) {
		return -ENOTCONN; /* not connected yet */
	}
	if (to->rq_head == to->rq_tail) {
		return -EAGAIN; /* receiver not ready */
	}
	r = &to->rq[to->rq_head % MODEL_RQ];
	to->rq_head++;
	dst = resolve(to->dev, r->sge.lkey, false, r->sge.addr, r->sge.len);
	if (dst == NULL || len > r->sge.len) {
		cq_push(to->cq, r->wr_id, 1, O2IB_WC_OTHER, 0);
		return -EINVAL;
	}
	memcpy(dst, bytes, len);
	cq_push(to->cq, r->wr_id, 0, O2IB_WC_RECV, len);
	return 0;
}

static int
model_open(const char *ifname, struct o2ib_hw_dev **dev, struct o2ib_hw_info *info)
{
	(void)ifname;
	(void)dev;
	(void)info;
	return -ENODEV;
}

static void
model_close(struct o2ib_hw_dev *d)
{
	(void)d;
}

static int
model_reg(struct o2ib_hw_dev *d, void *addr, size_t len, struct o2ib_hw_mr **mr, uint32_t *lkey,
	  uint32_t *rkey)
{
	for (int i = 0; i < MODEL_MRS; i++) {
		if (d->mr[i] == NULL) {
			struct o2ib_hw_mr *m = calloc(1, sizeof(*m));

			if (m == NULL) {
				return -ENOMEM;
			}
			*m = (struct o2ib_hw_mr){ d, addr, len, 0x100 + d->next_key,
						  0x80000000u | d->next_key };
			d->next_key++;
			d->mr[i] = m;
			*mr = m;
			*lkey = m->lkey;
			*rkey = m->rkey;
			return 0;
		}
	}
	return -ENOMEM;
}

static void
model_dereg(struct o2ib_hw_mr *m)
{
	for (int i = 0; i < MODEL_MRS; i++) {
		if (m->dev->mr[i] == m) {
			m->dev->mr[i] = NULL;
		}
	}
	free(m);
}

static int
model_cq_create(struct o2ib_hw_dev *d, uint32_t entries, struct o2ib_hw_cq **cq)
{
	(void)d;
	(void)entries;
	*cq = model_cq_new();
	return *cq == NULL ? -ENOMEM : 0;
}

static int
model_poll(struct o2ib_hw_cq *cq, struct o2ib_hw_wc *wc, int max)
{
	int n = 0;

	while (n < max && cq->head != cq->tail) {
		wc[n++] = cq->wc[cq->head % MODEL_CQE];
		cq->head++;
	}
	return n;
}

void (*model_qp_created)(void *cm_id, struct o2ib_hw_qp *qp);
uint32_t model_qp_max_wr = UINT32_MAX;

static int
model_qp_create(struct o2ib_hw_dev *d, void *id, struct o2ib_hw_cq *cq,
		const struct o2ib_hw_qp_caps *caps, struct o2ib_hw_qp **qp)
{
	struct o2ib_hw_qp *q;

	if (caps->send_wr > model_qp_max_wr) {
		return -ENOMEM; /* as a provider short of WQE memory */
	}
	q = calloc(1, sizeof(*q));
	if (q == NULL) {
		return -ENOMEM;
	}
	q->dev = d;
	q->cq = cq;
	*qp = q;
	if (model_qp_created != NULL) {
		model_qp_created(id, q);
	}
	return 0;
}

static int
model_post_recv(struct o2ib_hw_qp *q, uint64_t wr_id, const struct o2ib_hw_sge *sge)
{
	if (q->rq_tail - q->rq_head == MODEL_RQ) {
		return -ENOMEM;
	}
	q->rq[q->rq_tail % MODEL_RQ] = (struct model_recv){ wr_id, *sge };
	q->rq_tail++;
	q->stats.recvs_posted++;
	return 0;
}

static int
model_post_send(struct o2ib_hw_qp *q, uint64_t wr_id, const struct o2ib_hw_sge *sge)
{
	const uint8_t *src = resolve(q->dev, sge->lkey, false, sge->addr, sge->len);
	int rc;

	if (src == NULL || sge->len > sizeof(q->last)) {
		return -EINVAL; /* a bad lkey: the provider refuses the post */
	}
	memcpy(q->last, src, sge->len);
	q->last_len = sge->len;
	q->stats.sends++;
	rc = deliver(q, src, sge->len);
	cq_push(q->cq, wr_id, rc == -EAGAIN ? WC_RNR_RETRY_EXC : rc != 0 ? 12 : 0, O2IB_WC_SEND, 0);
	return 0;
}

static int
model_post_write(struct o2ib_hw_qp *q, uint64_t wr_id, const struct o2ib_hw_sge *sges,
		 unsigned int n, uint64_t raddr, uint32_t rkey, bool quiet)
{
	uint64_t off = 0;

	if (q->peer == NULL) {
		cq_push(q->cq, wr_id, 12, O2IB_WC_OTHER, 0); /* not connected */
		return 0;
	}
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *src =
			resolve(q->dev, sges[i].lkey, false, sges[i].addr, sges[i].len);
		uint8_t *dst = resolve(q->peer->dev, rkey, true, raddr + off, sges[i].len);

		if (src == NULL) {
			return -EINVAL;
		}
		if (dst == NULL) {
			cq_push(q->cq, wr_id, WC_REM_ACCESS, O2IB_WC_OTHER, 0);
			return 0;
		}
		memcpy(dst, src, sges[i].len);
		off += sges[i].len;
	}
	q->stats.writes++;
	q->stats.write_bytes += (unsigned int)off;
	if (!quiet) {
		cq_push(q->cq, wr_id, 0, O2IB_WC_RDMA_WRITE, 0);
	}
	return 0;
}

const struct o2ib_hw_ops o2ib_hw_model = {
	.name = "model",
	.open = model_open,
	.close = model_close,
	.reg_mem = model_reg,
	.dereg_mem = model_dereg,
	.cq_create = model_cq_create,
	.cq_destroy = model_cq_free,
	.cq_poll = model_poll,
	.qp_create = model_qp_create,
	.qp_destroy = model_qp_free,
	.post_recv = model_post_recv,
	.post_send = model_post_send,
	.post_write = model_post_write,
};

struct o2ib_hw_dev *
model_dev_new(void)
{
	return calloc(1, sizeof(struct o2ib_hw_dev));
}

void
model_dev_free(struct o2ib_hw_dev *d)
{
	free(d);
}

struct o2ib_hw_cq *
model_cq_new(void)
{
	return calloc(1, sizeof(struct o2ib_hw_cq));
}

void
model_cq_free(struct o2ib_hw_cq *cq)
{
	free(cq);
}

void
model_qp_pair(struct o2ib_hw_dev *da, struct o2ib_hw_cq *ca, struct o2ib_hw_dev *db,
	      struct o2ib_hw_cq *cb, struct o2ib_hw_qp **qa, struct o2ib_hw_qp **qb)
{
	*qa = calloc(1, sizeof(**qa));
	*qb = calloc(1, sizeof(**qb));
	**qa = (struct o2ib_hw_qp){ .dev = da, .cq = ca, .peer = *qb };
	**qb = (struct o2ib_hw_qp){ .dev = db, .cq = cb, .peer = *qa };
}

void
model_qp_join(struct o2ib_hw_qp *a, struct o2ib_hw_qp *b)
{
	a->peer = b;
	b->peer = a;
}

void
model_qp_free(struct o2ib_hw_qp *q)
{
	if (q != NULL && q->peer != NULL && q->peer->peer == q) {
		q->peer->peer = NULL; /* the other side sees a QP in error from now */
	}
	free(q);
}

const struct model_stats *
model_qp_stats(const struct o2ib_hw_qp *q)
{
	return &q->stats;
}

int
model_inject(struct o2ib_hw_qp *from, const void *buf, uint32_t len)
{
	return deliver(from, buf, len);
}

const uint8_t *
model_last_send(const struct o2ib_hw_qp *q, uint32_t *len)
{
	*len = q->last_len;
	return q->last;
}
