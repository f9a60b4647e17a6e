/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generic hardware operations over libibverbs and librdmacm
 * (o2iblnd_hw.h): the device is found as the kernel finds it, by binding
 * a CM id to the netdev's IPv4 address; queues are polled (no completion
 * channel); every SEND is signalled, since its completion returns a
 * concurrent_sends slot, and RDMA WRITEs ahead of a PUT_DONE or GET_DONE
 * may go unsignalled (the completion of the SEND behind them on the same
 * QP covers them).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "o2iblnd_hw.h"

struct o2ib_hw_dev {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id; /* bound to the netdev's address: holds the device */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
};

struct o2ib_hw_cq {
	struct ibv_cq *cq;
};

struct o2ib_hw_qp {
	struct rdma_cm_id *id;
	struct ibv_qp *qp;
};

struct o2ib_hw_mr {
	struct ibv_mr *mr;
};

/* The first IPv4 address of @p ifname, network order; -EADDRNOTAVAIL if none. */
static int
verbs_if_ipv4(const char *ifname, uint32_t *addr)
{
	struct ifaddrs *all = NULL;
	int rc = -EADDRNOTAVAIL;

	if (getifaddrs(&all) != 0) {
		return -errno;
	}
	for (struct ifaddrs *a = all; a != NULL; a = a->ifa_next) {
		if (a->ifa_addr != NULL && a->ifa_addr->sa_family == AF_INET &&
		    strcmp(a->ifa_name, ifname) == 0) {
			*addr = ((const struct sockaddr_in *)(const void *)a->ifa_addr)
					->sin_addr.s_addr;
			rc = 0;
			break;
		}
	}
	freeifaddrs(all);
	return rc;
}

/* The device's NUMA node from sysfs, -1 when not known (as dev_to_node()). */
static int
verbs_numa_node(const char *ibdev)
{
	char path[160];
	FILE *f;
	int node = -1;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/numa_node", ibdev);
	f = fopen(path, "r");
	if (f == NULL) {
		return -1;
	}
	if (fscanf(f, "%d", &node) != 1) {
		node = -1;
	}
	fclose(f);
	return node;
}

static void
verbs_close(struct o2ib_hw_dev *d)
{
	if (d == NULL) {
		return;
	}
	if (d->pd != NULL) {
		ibv_dealloc_pd(d->pd);
	}
	if (d->id != NULL) {
		rdma_destroy_id(d->id);
	}
	if (d->ch != NULL) {
		rdma_destroy_event_channel(d->ch);
	}
	free(d);
}

/* Bind a CM id to @p ipv4: the RDMA device that carries it, or -ENODEV. */
static int
verbs_bind(struct o2ib_hw_dev *d, uint32_t ipv4)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = ipv4 };

	d->ch = rdma_create_event_channel(); /* fails without /dev/infiniband/rdma_cm */
	if (d->ch == NULL || rdma_create_id(d->ch, &d->id, NULL, RDMA_PS_TCP) != 0) {
		return -ENODEV;
	}
	if (rdma_bind_addr(d->id, (struct sockaddr *)&sin) != 0 || d->id->verbs == NULL) {
		return -ENODEV; /* an address on no RDMA device */
	}
	d->ctx = d->id->verbs;
	return 0;
}

static int
verbs_query(struct o2ib_hw_dev *d, struct o2ib_hw_info *info)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;

	if (ibv_query_device(d->ctx, &da) != 0 ||
	    ibv_query_port(d->ctx, d->id->port_num, &pa) != 0) {
		return -EIO;
	}
	snprintf(info->ibdev, sizeof(info->ibdev), "%s", ibv_get_device_name(d->ctx->device));
	info->port_num = d->id->port_num;
	info->port_active = pa.state == IBV_PORT_ACTIVE;
	info->max_qp_wr = (uint32_t)da.max_qp_wr;
	info->max_sge = (uint32_t)da.max_sge;
	info->max_cqe = (uint32_t)da.max_cqe;
	info->numa_node = verbs_numa_node(info->ibdev);
	return 0;
}

static int
verbs_open(const char *ifname, struct o2ib_hw_dev **dev, struct o2ib_hw_info *info)
{
	struct o2ib_hw_dev *d;
	int rc;

	memset(info, 0, sizeof(*info));
	snprintf(info->ifname, sizeof(info->ifname), "%s", ifname);
	rc = verbs_if_ipv4(ifname, &info->ipv4);
	if (rc != 0) {
		return rc;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		return -ENOMEM;
	}
	rc = verbs_bind(d, info->ipv4);
	if (rc == 0) {
		rc = verbs_query(d, info);
	}
	if (rc == 0) {
		d->pd = ibv_alloc_pd(d->ctx);
		rc = d->pd == NULL ? -ENOMEM : 0;
	}
	if (rc != 0) {
		verbs_close(d);
		return rc;
	}
	*dev = d;
	return 0;
}

static int
verbs_reg_mem(struct o2ib_hw_dev *d, void *addr, size_t len, struct o2ib_hw_mr **mr, uint32_t *lkey,
	      uint32_t *rkey)
{
	struct o2ib_hw_mr *m = calloc(1, sizeof(*m));

	if (m == NULL) {
		return -ENOMEM;
	}
	/* peers only ever RDMA-write into us: no remote read access */
	m->mr = ibv_reg_mr(d->pd, addr, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (m->mr == NULL) {
		int rc = -errno;

		free(m);
		return rc != 0 ? rc : -ENOMEM;
	}
	*lkey = m->mr->lkey;
	*rkey = m->mr->rkey;
	*mr = m;
	return 0;
}

static void
verbs_dereg_mem(struct o2ib_hw_mr *m)
{
	if (m != NULL) {
		ibv_dereg_mr(m->mr);
		free(m);
	}
}

static int
verbs_cq_create(struct o2ib_hw_dev *d, uint32_t entries, struct o2ib_hw_cq **cq)
{
	struct o2ib_hw_cq *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		return -ENOMEM;
	}
	c->cq = ibv_create_cq(d->ctx, (int)entries, NULL, NULL, 0);
	if (c->cq == NULL) {
		free(c);
		return -ENOMEM;
	}
	*cq = c;
	return 0;
}

static void
verbs_cq_destroy(struct o2ib_hw_cq *c)
{
	if (c != NULL) {
		ibv_destroy_cq(c->cq);
		free(c);
	}
}

static int
verbs_wc_kind(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_SEND:
		return O2IB_WC_SEND;
	case IBV_WC_RECV:
		return O2IB_WC_RECV;
	case IBV_WC_RDMA_WRITE:
		return O2IB_WC_RDMA_WRITE;
	default:
		return O2IB_WC_OTHER;
	}
}

static int
verbs_cq_poll(struct o2ib_hw_cq *c, struct o2ib_hw_wc *out, int max)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(c->cq, max < 16 ? max : 16, wc);

	if (n < 0) {
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		out[i].wr_id = wc[i].wr_id;
		out[i].status = (int)wc[i].status;
		/* the opcode is not valid in an error completion: the wr_id says what it was */
		out[i].kind = wc[i].status == IBV_WC_SUCCESS ? verbs_wc_kind(wc[i].opcode) :
							       O2IB_WC_OTHER;
		out[i].byte_len = wc[i].byte_len;
	}
	return n;
}

static int
verbs_qp_create(struct o2ib_hw_dev *d, void *cm_id, struct o2ib_hw_cq *cq,
		const struct o2ib_hw_qp_caps *caps, struct o2ib_hw_qp **qp)
{
	struct rdma_cm_id *id = cm_id;
	struct ibv_qp_init_attr attr = {
		.send_cq = cq->cq,
		.recv_cq = cq->cq,
		.cap = { .max_send_wr = caps->send_wr,
			 .max_recv_wr = caps->recv_wr,
			 .max_send_sge = caps->send_sge,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
	};
	struct o2ib_hw_qp *q = calloc(1, sizeof(*q));

	if (q == NULL) {
		return -ENOMEM;
	}
	if (rdma_create_qp(id, d->pd, &attr) != 0) {
		int rc = -errno;

		free(q);
		return rc != 0 ? rc : -ENOMEM; /* ENOMEM: the caller lowers the depth and retries */
	}
	q->id = id;
	q->qp = id->qp;
	*qp = q;
	return 0;
}

static void
verbs_qp_destroy(struct o2ib_hw_qp *q)
{
	if (q != NULL) {
		rdma_destroy_qp(q->id);
		free(q);
	}
}

static int
verbs_post_recv(struct o2ib_hw_qp *q, uint64_t wr_id, const struct o2ib_hw_sge *sge)
{
	struct ibv_sge s = { sge->addr, sge->len, sge->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	return -ibv_post_recv(q->qp, &wr, &bad);
}

static int
verbs_post_send(struct o2ib_hw_qp *q, uint64_t wr_id, const struct o2ib_hw_sge *sge)
{
	struct ibv_sge s = { sge->addr, sge->len, sge->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &s,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad = NULL;

	return -ibv_post_send(q->qp, &wr, &bad);
}

static int
verbs_post_write(struct o2ib_hw_qp *q, uint64_t wr_id, const struct o2ib_hw_sge *sges,
		 unsigned int n, uint64_t raddr, uint32_t rkey, bool quiet)
{
	struct ibv_sge s[32];
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = s,
		.num_sge = (int)n,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = quiet ? 0 : IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	};
	struct ibv_send_wr *bad = NULL;

	if (n == 0 || n > sizeof(s) / sizeof(s[0])) {
		return -EINVAL;
	}
	for (unsigned int i = 0; i < n; i++) {
		s[i] = (struct ibv_sge){ sges[i].addr, sges[i].len, sges[i].lkey };
	}
	return -ibv_post_send(q->qp, &wr, &bad);
}

const struct o2ib_hw_ops o2ib_hw_verbs = {
	.name = "verbs",
	.open = verbs_open,
	.close = verbs_close,
	.reg_mem = verbs_reg_mem,
	.dereg_mem = verbs_dereg_mem,
	.cq_create = verbs_cq_create,
	.cq_destroy = verbs_cq_destroy,
	.cq_poll = verbs_cq_poll,
	.qp_create = verbs_qp_create,
	.qp_destroy = verbs_qp_destroy,
	.post_recv = verbs_post_recv,
	.post_send = verbs_post_send,
	.post_write = verbs_post_write,
};
