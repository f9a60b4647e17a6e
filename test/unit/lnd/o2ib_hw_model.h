/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A software model of the o2ib hardware ops for unit tests: memory
 * regions with keys, CQs, and RC queue pairs joined in pairs. A SEND lands
 * in the peer's oldest posted receive (none posted: an RNR error, as a
 * real QP gives after its retries); an RDMA WRITE lands in the peer's
 * registered memory the rkey names (anything else: a remote access error).
 * Delivery is immediate and in posting order, so WRITEs land before the
 * SEND behind them, as on one RC QP. Completions wait in the CQs until the
 * engine polls them.
 */
#ifndef O2IB_HW_MODEL_H
#define O2IB_HW_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "o2iblnd_hw.h"

extern const struct o2ib_hw_ops o2ib_hw_model;

/** Counts of what was posted, for tests. */
struct model_stats {
	unsigned int sends;
	unsigned int writes;
	unsigned int write_bytes;
	unsigned int recvs_posted;
};

struct o2ib_hw_dev *model_dev_new(void);
void model_dev_free(struct o2ib_hw_dev *d);
struct o2ib_hw_cq *model_cq_new(void);
void model_cq_free(struct o2ib_hw_cq *cq);
/** Two QPs on @p da / @p db joined to each other. */
void model_qp_pair(struct o2ib_hw_dev *da, struct o2ib_hw_cq *ca, struct o2ib_hw_dev *db,
		   struct o2ib_hw_cq *cb, struct o2ib_hw_qp **qa, struct o2ib_hw_qp **qb);
void model_qp_free(struct o2ib_hw_qp *q);
/** Join two QPs made by o2ib_hw_model.qp_create (a connection established). */
void model_qp_join(struct o2ib_hw_qp *a, struct o2ib_hw_qp *b);
/** Told of each QP o2ib_hw_model.qp_create makes, with the CM id it was made on. */
extern void (*model_qp_created)(void *cm_id, struct o2ib_hw_qp *qp);
/** qp_create fails with ENOMEM above this many send WRs (UINT32_MAX: never). */
extern uint32_t model_qp_max_wr;
const struct model_stats *model_qp_stats(const struct o2ib_hw_qp *q);
/** Deliver @p len raw bytes from @p from to its peer's next receive, as a SEND would. */
int model_inject(struct o2ib_hw_qp *from, const void *buf, uint32_t len);
/** The bytes of the last SEND @p q posted. */
const uint8_t *model_last_send(const struct o2ib_hw_qp *q, uint32_t *len);

#endif /* O2IB_HW_MODEL_H */
