/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The test node's framework (layer 3 of selftest.h): its one session, the
 * batches and test instances the console adds to it, and the answers to
 * the framework requests (MKSN, RMSN, DEBUG, STAT, TEST, BATCH), as a 2.17
 * node gives them (lnet/selftest/framework.c, selftest-facts §3).
 *
 * Pure state and rules: no LNet, no clock, no threads. The RPC engine
 * decodes a request, calls sft_fw_handle() with the time, sends the reply
 * it filled (or drops the request), fetches a TEST client's destination
 * list when asked to, and calls sft_fw_expire() when the session's
 * deadline passes. Running a batch's client tests is the engine's: the
 * framework tells it through struct sft_fw_ops, and the engine reports
 * back with sft_fw_test_finished(). Everything runs on one lcore (the
 * management lcore), so nothing here is locked.
 */
#ifndef SFT_FW_H
#define SFT_FW_H

#include <stdbool.h>
#include <stdint.h>

#include "selftest.h"

/** The kernel's session_timeout module parameter default, seconds. */
#define SFT_FW_SESSION_TIMEOUT_S 100u

struct sft_fw_batch;
struct sft_fw_session;

/** A test instance added by a TEST request (the kernel's sfw_test_instance). */
struct sft_fw_test {
	struct sft_fw_batch *batch;
	uint32_t service; /**< SFT_SVC_BRW or SFT_SVC_PING */
	bool is_client;
	bool stop_onerr;
	uint32_t loop;                /**< client: RPCs per unit; server: buffers asked */
	uint32_t concur;              /**< client: units per destination */
	uint32_t feats;               /**< the session's features: how to read params */
	union sft_test_params params; /**< client: in host order */
	uint32_t ndest;
	struct sft_dest *dests; /**< client: ndest destinations, host order */
	uint32_t nactive;       /**< client: units running (the engine's count) */
	bool stopping;
	void *priv; /**< the engine's, from test_start to test_gone */
};

/** A batch: the tests of one bid, in the order they were added. */
struct sft_fw_batch {
	struct sft_fw_batch *next;
	struct sft_fw_session *session;
	uint64_t bid;
	uint32_t ntests;
	uint32_t cap;
	struct sft_fw_test **tests;
	uint32_t nactive; /**< client tests with units running */
};

/** The session (the kernel's sfw_session). */
struct sft_fw_session {
	struct sft_fw_session *next; /**< on the zombie list once deactivated */
	struct sft_sid sid;
	char name[SFT_NAME_SIZE];
	uint32_t features;
	uint32_t timeout_s; /**< 0: never expires */
	uint32_t refcount;  /**< MKSN of the same sid add one; RMSN drops one */
	uint64_t started_ms;
	uint32_t brw_errors;
	uint32_t ping_errors;
	struct sft_fw_batch *batches; /**< in the order first used */
};

/** The counters a STAT reply carries besides the framework's. */
struct sft_fw_stat_source {
	void (*rpc_counters)(void *ctx, struct sft_rpc_counters *out);
	void (*lnet_counters)(void *ctx, struct sft_lnet_counters *out);
};

/** What the framework asks of the engine that runs client tests. */
struct sft_fw_ops {
	struct sft_fw_stat_source stat;
	/** Start @p t's units (every unit of a client test); nactive is the engine's to set. */
	void (*test_start)(void *ctx, struct sft_fw_test *t);
	/**
	 * A forced stop of @p t: abort its RPCs in flight. (An unforced stop
	 * only sets t->stopping, which units read before their next RPC.)
	 */
	void (*test_abort)(void *ctx, struct sft_fw_test *t);
	/**
	 * A server test @p t is being added: make its service ready for the
	 * clients' RPCs (the kernel posts request buffers: sfw_load_test).
	 * @return 0, or a negative SFT_STATUS_* the TEST reply carries.
	 */
	int (*test_load)(void *ctx, struct sft_fw_test *t);
	/** @p t goes away (its session was destroyed); no unit of it is active. */
	void (*test_gone)(void *ctx, struct sft_fw_test *t);
	void *ctx;
};

/** The node's framework. */
struct sft_fw {
	struct sft_fw_ops ops;
	uint32_t session_timeout_s; /**< for new sessions */
	struct sft_fw_session *session;
	struct sft_fw_session *zombies; /**< deactivated, waiting for their tests to stop */
	uint32_t nzombies;
	uint64_t deadline_ms; /**< the session's expiry; 0: not armed */
	uint64_t expired;     /**< sessions ended by their timer */
};

/** What the engine does with a request once sft_fw_handle() returns. */
enum sft_fw_action {
	SFT_FW_REPLY, /**< send the reply filled in */
	SFT_FW_DROP,  /**< no reply (the kernel drops it) */
	SFT_FW_BULK, /**< fetch the TEST client's destination list, then sft_fw_test_bulk_ready() */
};

/** Set up @p fw with no session; @p ops may have NULL members where unused. */
void sft_fw_init(struct sft_fw *fw, const struct sft_fw_ops *ops, uint32_t session_timeout_s);

/** End every session, free every batch and test (shutdown). */
void sft_fw_fini(struct sft_fw *fw);

/**
 * Answer framework request @p req (decoded; its type a framework request
 * type) received at @p now_ms: @p reply is filled whole, header included,
 * for SFT_FW_REPLY. For SFT_FW_BULK, *@p bulk_len is the bytes of
 * destinations to GET from the request's bulkid.
 */
enum sft_fw_action sft_fw_handle(struct sft_fw *fw, const struct sft_msg *req, uint64_t now_ms,
				 struct sft_msg *reply, uint32_t *bulk_len);

/**
 * The destination list of TEST request @p req came (@p status 0) or failed:
 * add the client test, and fill @p reply. @p buf holds @p len bytes as the
 * console sent them (its order: @p req->swabbed).
 */
enum sft_fw_action sft_fw_test_bulk_ready(struct sft_fw *fw, const struct sft_msg *req, int status,
					  const void *buf, uint32_t len, uint64_t now_ms,
					  struct sft_msg *reply);

/** The session's timer: ends the session if its deadline is past. True if it did. */
bool sft_fw_expire(struct sft_fw *fw, uint64_t now_ms);

/**
 * The engine: one unit of @p t ended. With its last unit the test and maybe
 * its batch are idle; if its session was deactivated meanwhile and nothing
 * of it runs any more, the session goes, and @p t with it (test_gone first):
 * the engine must not touch @p t after its last unit's call.
 */
void sft_fw_unit_done(struct sft_fw *fw, struct sft_fw_test *t);

/** The engine: an RPC of client test @p t failed (brw_errors or ping_errors of its session). */
void sft_fw_count_error(struct sft_fw_test *t);

#endif /* SFT_FW_H */
