/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Console transactions, as 2.17's conrpc.c makes them: one framework RPC
 * to each node of a list, all posted at once and waited for together up
 * to a timeout (LST_TRANS_TIMEOUT, 30 s; less than LST_TRANS_MIN_TIMEOUT
 * is taken as that). Each reply tells its node's state (the "no session"
 * sid: UNKNOWN; the console's session: ACTIVE; another: BUSY); an RPC the
 * timeout aborts marks its node DOWN. The transaction's statistics are
 * the RPC part of lstcon_rpc_trans_stat's (RPCs that came back, those
 * that did not, the first errno); what each reply's status means is the
 * command's (the console, lst's commands, next, built on these).
 */
#ifndef SFT_TRANS_H
#define SFT_TRANS_H

#include <stdbool.h>
#include <stdint.h>

#include "sft_cli.h"

/** The console's transaction timeout and its floor (conrpc.h), seconds. */
#define SFT_TRANS_TIMEOUT_S 30u
#define SFT_TRANS_MIN_TIMEOUT_S 3u

/** A node's state as the console knows it (lnetst.h's LST_NODE_*). */
enum sft_node_state {
	SFT_NODE_ACTIVE = 0x1,
	SFT_NODE_BUSY = 0x2,
	SFT_NODE_DOWN = 0x4,
	SFT_NODE_UNKNOWN = 0x8,
};

/** A test node of the console. */
struct sft_node {
	struct lnet_processid id;
	enum sft_node_state state;
	uint64_t stamp_ms; /**< when its state was last learned */
};

/** One RPC of a transaction and what came of it. */
struct sft_trans_ent {
	struct sft_trans *trans;
	struct sft_node *node;
	int status; /**< the RPC's: 0, or -errno (-ETIMEDOUT when aborted at the timeout) */
	struct sft_msg reply; /**< when status is 0 */
	struct sft_crpc *rpc; /**< in flight, or NULL */
};

/** The RPC counts of lstcon_trans_stat. */
struct sft_trans_stat {
	uint32_t total;
	uint32_t success; /**< RPCs that came back */
	uint32_t failure; /**< RPCs that did not */
	int rpc_errno;    /**< the first failed RPC's errno (positive) */
};

struct sft_trans;

/** The transaction is over: every RPC came back or was aborted. */
typedef void (*sft_trans_done_fn)(struct sft_srv *s, struct sft_trans *t, void *arg);

/** The request for @p node; @p bulk etc. only for a request that has one (TEST). */
typedef void (*sft_trans_build_fn)(void *arg, const struct sft_node *node, struct sft_msg *req,
				   void **bulk, uint32_t *bulk_len, bool *bulk_sink);

struct sft_trans_args {
	uint32_t svc;
	struct sft_sid sid; /**< the console's session: which replies are ACTIVE */
	struct sft_node **nodes;
	uint32_t nnodes;
	uint32_t timeout_s; /**< 0: SFT_TRANS_TIMEOUT_S */
	sft_trans_build_fn build;
	sft_trans_done_fn done;
	void *arg;
};

/**
 * Post one RPC to each node and wait (in sft_srv_poll) for all of them.
 * @return 0 (done will be called, at once if there are no nodes), -ENOMEM,
 *         -ESHUTDOWN
 */
int sft_trans_start(struct sft_srv *s, const struct sft_trans_args *a);

/** The entries of @p t (in the order of the nodes) and their number. */
const struct sft_trans_ent *sft_trans_ents(const struct sft_trans *t, uint32_t *n);

/** The statistics of @p t (inside its done function). */
const struct sft_trans_stat *sft_trans_stat(const struct sft_trans *t);

#endif /* SFT_TRANS_H */
