/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The o2ib LND's hardware operations: what it asks of an RDMA device, as
 * one const table per implementation (as a DPDK PMD's dev_ops), so the
 * generic verbs path and an mlx5 direct-verbs path (WQEs built in the
 * send queue, CQEs read by owner bit) can stand behind the same LND. A
 * data lcore owns its CQs and QPs; nothing here locks. Connection set-up
 * stays on librdmacm for every implementation: qp_create takes the CM id.
 */
#ifndef O2IBLND_HW_H
#define O2IBLND_HW_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct o2ib_hw_dev;
struct o2ib_hw_cq;
struct o2ib_hw_qp;
struct o2ib_hw_mr;

/** What open() found behind a netdev. */
struct o2ib_hw_info {
	char ifname[IF_NAMESIZE];
	uint32_t ipv4;  /**< the netdev's address, network order (the NID's) */
	char ibdev[64]; /**< "mlx5_0", "rxe0" */
	uint8_t port_num;
	bool port_active;   /**< IBV_PORT_ACTIVE */
	int numa_node;      /**< -1 unknown */
	uint32_t max_qp_wr; /**< bounds a connection's queue depth */
	uint32_t max_sge;
	uint32_t max_cqe;
};

/** One completion. */
struct o2ib_hw_wc {
	uint64_t wr_id;
	int status; /**< 0, or the provider's error status (ibv_wc_status) */
	enum { O2IB_WC_SEND, O2IB_WC_RECV, O2IB_WC_RDMA_WRITE, O2IB_WC_OTHER } kind;
	uint32_t byte_len; /**< receives: bytes that arrived */
};

/** A piece of registered memory. */
struct o2ib_hw_sge {
	uint64_t addr;
	uint32_t len;
	uint32_t lkey;
};

/** Sizes of a connection's queue pair (o2ib-facts §4). */
struct o2ib_hw_qp_caps {
	uint32_t send_wr;
	uint32_t recv_wr;
	uint32_t send_sge;
};

struct o2ib_hw_ops {
	const char *name; /**< "verbs", "mlx5dv" */
	/**
	 * Find the RDMA device that carries @p ifname's IPv4 address (the
	 * kernel binds a CM id to it) and open it with a protection domain.
	 * -EADDRNOTAVAIL: the netdev has no IPv4 address; -ENODEV: no RDMA
	 * device carries it (or no RDMA CM on this host).
	 */
	int (*open)(const char *ifname, struct o2ib_hw_dev **dev, struct o2ib_hw_info *info);
	void (*close)(struct o2ib_hw_dev *dev);
	/** Register @p len bytes at @p addr for local writes and remote RDMA writes. */
	int (*reg_mem)(struct o2ib_hw_dev *dev, void *addr, size_t len, struct o2ib_hw_mr **mr,
		       uint32_t *lkey, uint32_t *rkey);
	void (*dereg_mem)(struct o2ib_hw_mr *mr);
	int (*cq_create)(struct o2ib_hw_dev *dev, uint32_t entries, struct o2ib_hw_cq **cq);
	void (*cq_destroy)(struct o2ib_hw_cq *cq);
	/** Up to @p max completions; their number, or -errno. Never blocks. */
	int (*cq_poll)(struct o2ib_hw_cq *cq, struct o2ib_hw_wc *wc, int max);
	/** An RC QP on the CM's @p cm_id (librdmacm: a struct rdma_cm_id), both queues on @p cq. */
	int (*qp_create)(struct o2ib_hw_dev *dev, void *cm_id, struct o2ib_hw_cq *cq,
			 const struct o2ib_hw_qp_caps *caps, struct o2ib_hw_qp **qp);
	void (*qp_destroy)(struct o2ib_hw_qp *qp);
	/** One receive of a whole message buffer. */
	int (*post_recv)(struct o2ib_hw_qp *qp, uint64_t wr_id, const struct o2ib_hw_sge *sge);
	/** A SEND of one message (signalled: every send completion returns a slot). */
	int (*post_send)(struct o2ib_hw_qp *qp, uint64_t wr_id, const struct o2ib_hw_sge *sge);
	/** An RDMA WRITE of @p n pieces to (@p raddr, @p rkey); unsignalled when @p quiet. */
	int (*post_write)(struct o2ib_hw_qp *qp, uint64_t wr_id, const struct o2ib_hw_sge *sges,
			  unsigned int n, uint64_t raddr, uint32_t rkey, bool quiet);
};

/** Generic libibverbs: any provider (mlx5, rxe, ...). */
extern const struct o2ib_hw_ops o2ib_hw_verbs;

#endif /* O2IBLND_HW_H */
