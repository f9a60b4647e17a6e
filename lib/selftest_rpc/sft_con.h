/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The lst console (2.17's lnet/selftest/console.c and conrpc.c): one
 * session (name, key, features, idle timeout), its groups of test nodes,
 * its batches of tests, and the framework transactions (sft_trans.h) that
 * make them real on the nodes: MKSN when a node joins a group, RMSN when it
 * leaves or the session ends, TEST when a test is added (server side to
 * the --to group, then client side with a destination list to the --from
 * group), BATCH to run, stop and query a batch's clients, STAT, DEBUG.
 * Every node exists once, shared by the groups and batches that list it,
 * and carries the state the last reply (or abort) told of it.
 *
 * One thread owns a console: the one that polls its engine (sft_srv_poll),
 * since replies arrive there. Requests (struct sft_con_req) are handed to
 * sft_con_submit() on that thread; each ends by calling its done function
 * with a result, at once for what is only the console's own state, after
 * the transaction for what needs RPCs. Where the kernel serializes
 * commands with its session mutex, the console runs one request at a time
 * and refuses another meanwhile (-EBUSY). sft_con_tick() is the pinger.
 */
#ifndef SFT_CON_H
#define SFT_CON_H

#include <stdbool.h>
#include <stdint.h>

#include "sft_trans.h"

/** The console's idle timeout unless new_session says (LST_CONSOLE_TIMEOUT), seconds. */
#define SFT_CON_TIMEOUT_S 300u
/** The pinger's period (LST_PING_INTERVAL), seconds. */
#define SFT_CON_PING_INTERVAL_S 8u
/** The default batch new_session makes (LST_DEFAULT_BATCH). */
#define SFT_CON_DEFAULT_BATCH "batch"
/** A batch's state (lnetst.h LST_BATCH_IDLE, LST_BATCH_RUNNING). */
#define SFT_CON_BATCH_IDLE 0xB0u
#define SFT_CON_BATCH_RUNNING 0xB1u

/** What a request asks (the kernel's LSTIO_* and its netlink session/group commands). */
enum sft_con_op {
	SFT_CON_SESSION_NEW,   /**< name, feats, timeout_s, force */
	SFT_CON_SESSION_END,   /**< RMSN to every ACTIVE node */
	SFT_CON_SESSION_INFO,  /**< result.session */
	SFT_CON_GROUP_ADD,     /**< name: an empty group */
	SFT_CON_NODES_ADD,     /**< name, ids: MKSN to the ones not in the group yet */
	SFT_CON_NODES_REMOVE,  /**< name, ids: RMSN, then out of the group */
	SFT_CON_GROUP_DEL,     /**< name: RMSN to nodes no one else lists, then gone */
	SFT_CON_GROUP_CLEAN,   /**< name, arg: the states (SFT_NODE_* mask) whose nodes leave */
	SFT_CON_GROUP_REFRESH, /**< name: MKSN again to its nodes not ACTIVE */
	SFT_CON_GROUP_LIST,    /**< result.names: every group */
	SFT_CON_GROUP_INFO,    /**< name: result.nodes and result.counts */
	SFT_CON_BATCH_ADD,     /**< name */
	SFT_CON_BATCH_LIST,    /**< result.names: every batch */
	SFT_CON_BATCH_INFO, /**< name, arg: test index (0: batch), client: result.batch and nodes */
	SFT_CON_TEST_ADD,   /**< test */
	SFT_CON_BATCH_RUN,  /**< name, arg: timeout */
	SFT_CON_BATCH_STOP, /**< name, arg: force */
	SFT_CON_BATCH_QUERY,   /**< name, arg: test index, client, timeout_s */
	SFT_CON_STAT_GROUP,    /**< name, timeout_s: STAT to its nodes */
	SFT_CON_STAT_NODES,    /**< ids, timeout_s */
	SFT_CON_DEBUG_SESSION, /**< timeout_s: DEBUG to every node of the session */
	SFT_CON_DEBUG_GROUP,   /**< name, timeout_s */
	SFT_CON_DEBUG_BATCH,   /**< name, client, timeout_s */
	SFT_CON_DEBUG_NODES,   /**< ids, timeout_s */
	SFT_CON_OP_MAX,
};

/** A test's type (lnetst.h LST_TEST_*). */
enum sft_con_test_type {
	SFT_CON_TEST_BULK = 1,
	SFT_CON_TEST_PING = 2,
};

/** add_test's arguments (lstio_test_args and lst_test_bulk_param). */
struct sft_con_test_args {
	char batch[SFT_NAME_SIZE];
	char src[SFT_NAME_SIZE]; /**< --from */
	char dst[SFT_NAME_SIZE]; /**< --to */
	uint32_t type;           /**< enum sft_con_test_type */
	int32_t loop;            /**< -1: until stopped */
	uint32_t concur;
	uint32_t dist; /**< --distribute S:D, the S */
	uint32_t span; /**< the D */
	/* brw only */
	uint32_t brw_opc;   /**< enum sft_brw_rw */
	uint32_t brw_check; /**< enum sft_brw_check */
	uint32_t brw_size;
	uint32_t brw_cli_off;
	uint32_t brw_srv_off;
};

struct sft_con_req {
	enum sft_con_op op;
	int32_t key; /**< the session's key (LST_SESSION): -EACCES if it is not */
	char name[SFT_NAME_SIZE];
	uint32_t feats;
	int32_t timeout_s;
	bool force;
	uint32_t arg;
	bool client;
	const struct lnet_processid *ids;
	uint32_t nids;
	struct sft_con_test_args test;
};

/** lstcon_trans_stat: the RPCs' and, by operation, the replies' counts. */
struct sft_con_tstat {
	struct sft_trans_stat rpc;
	/**
	 * Session ops: [0] success [1] failure; DEBUG: [0] active [1] busy
	 * [2] unknown; run/stop/test add: [0] success [1] failure; query:
	 * [0] running [1] idle [2] failure; STAT: [0] success [1] failure.
	 */
	uint32_t fwk[8];
	uint32_t fwk_errno; /**< the first reply's error (positive) */
};

/** One RPC of the request's transaction (lstcon_rpc_ent). */
struct sft_con_ent {
	struct lnet_processid id;
	enum sft_node_state state; /**< the node's, after the reply */
	int rpc_errno;             /**< -errno of the RPC, 0 when the reply came */
	uint32_t fwk_errno;        /**< the reply's status */
	struct sft_msg reply;      /**< when rpc_errno is 0 */
};

/** A node as group and batch info list it (lstcon_node_ent). */
struct sft_con_node_ent {
	struct lnet_processid id;
	enum sft_node_state state;
};

/** Node counts by state (lstcon_ndlist_ent). */
struct sft_con_counts {
	uint32_t total, active, busy, down, unknown;
};

struct sft_con_session_info {
	char name[SFT_NAME_SIZE];
	struct sft_sid sid;
	int32_t key;
	uint32_t feats;
	uint32_t timeout_s;
	bool force;
	struct sft_con_counts nodes;
};

/** A batch or one of its tests (lstcon_test_batch_ent). */
struct sft_con_batch_info {
	uint32_t ntest;  /**< the batch: its tests */
	uint32_t state;  /**< the batch: SFT_CON_BATCH_* */
	uint32_t type;   /**< a test: enum sft_con_test_type */
	int32_t loop;    /**< a test */
	uint32_t concur; /**< a test */
	struct sft_con_counts cli, srv;
	struct sft_con_test_args test; /**< a test: as added */
};

struct sft_con_result {
	int rc; /**< what the kernel's ioctl would return: 0 or -errno */
	struct sft_con_tstat stat;
	uint32_t nents;
	const struct sft_con_ent *ents;
	/* SESSION_INFO */
	struct sft_con_session_info session;
	/* GROUP_LIST, BATCH_LIST */
	uint32_t nnames;
	const char (*names)[SFT_NAME_SIZE];
	/* GROUP_INFO, BATCH_INFO (the client or server nodes) */
	uint32_t nnodes;
	const struct sft_con_node_ent *nodes;
	struct sft_con_counts counts;
	struct sft_con_batch_info batch;
	/* NODES_ADD, SESSION_NEW */
	uint32_t feats;
};

struct sft_con;

/** A request ended; @p r and what it points to live until this returns. */
typedef void (*sft_con_done_fn)(void *arg, const struct sft_con_result *r);

/**
 * A console over engine @p s; its session nid is LNet's first NID that is
 * not 0@lo (the kernel's LNetGetId(1)), or 0@lo when there is none.
 * @return 0 or -ENOMEM
 */
int sft_con_create(struct sft_srv *s, struct sft_con **out);

/** Free the console and its state (no RPC is sent: end the session first). */
void sft_con_destroy(struct sft_con *c);

/**
 * Run @p rq; @p done is called once, maybe before this returns. @p rq and
 * what it points to are copied.
 * @return 0 (done will be called), or -EBUSY while another request runs,
 *         -ENOMEM (done will not)
 */
int sft_con_submit(struct sft_con *c, const struct sft_con_req *rq, sft_con_done_fn done,
		   void *arg);

/**
 * The pinger and the idle timer: every SFT_CON_PING_INTERVAL_S, a DEBUG
 * RPC to each ACTIVE node not heard of for half its session timeout; once
 * no request came for the session's timeout, RMSN to every ACTIVE node
 * (the session is ended at the next request). Call it from the poll loop.
 */
void sft_con_tick(struct sft_con *c);

/** True while a session exists. */
bool sft_con_has_session(const struct sft_con *c);

/** Text for an op ("create session", as lst names its transactions). */
const char *sft_con_op_name(enum sft_con_op op);

#endif /* SFT_CON_H */
