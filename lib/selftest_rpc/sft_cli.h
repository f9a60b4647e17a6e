/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Client RPCs of the selftest engine, as 2.17's srpc_send_rpc makes them:
 * the reply MD on portal 52 under a fresh rpyid (matching the server's
 * NID and pid only), a passive bulk MD under a fresh bulkid when the RPC
 * has bulk (OP_PUT when data comes to us, OP_GET when the server takes
 * it), then the 160-byte request PUT to the service's portal with no ACK.
 * The RPC completes once its request's SEND, its reply and its bulk have
 * all had their last event; an RPC not done within rpc_timeout is aborted
 * (-ETIMEDOUT, rpcs_expired). Used by test clients (sft_cli_test.c) and,
 * later, the console.
 */
#ifndef SFT_CLI_H
#define SFT_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "api.h"
#include "sft_srv.h"

struct sft_crpc;

/** Called once per RPC, when it is complete; the RPC is freed after it returns. */
typedef void (*sft_crpc_done_fn)(struct sft_srv *s, struct sft_crpc *rpc);

struct sft_crpc_args {
	uint32_t svc;               /**< the service: its portal and match bits */
	struct lnet_processid dest; /**< the server (its selftest pid) */
	const struct sft_msg *req;  /**< the request: body and ses_feats; ids are set here */
	void *bulk;                 /**< NULL: no bulk */
	uint32_t bulk_len;
	bool bulk_sink; /**< the server PUTs into it (else GETs from it) */
	sft_crpc_done_fn done;
	void *arg;
};

/** What a completed RPC gives its done function. */
struct sft_crpc_result {
	int status; /**< 0, or -errno: -ETIMEDOUT, -EBADMSG (a reply of the wrong type), -EINTR (aborted), LNet's */
	struct sft_msg reply; /**< decoded, when status is 0 */
	struct sft_msg req;   /**< the request as sent (its ids) */
	void *arg;
};

/**
 * Start an RPC. @p out (may be NULL) lets the caller abort it; it is valid
 * until done is called.
 * @return 0 (done will be called), -ENOMEM, or LNet's -errno (done will not)
 */
int sft_crpc_start(struct sft_srv *s, const struct sft_crpc_args *a, struct sft_crpc **out);

/** Abort @p rpc with @p status (if it is not complete yet): its MDs are unlinked. */
void sft_crpc_abort(struct sft_srv *s, struct sft_crpc *rpc, int status);

/** The result of @p rpc (inside its done function). */
const struct sft_crpc_result *sft_crpc_result(const struct sft_crpc *rpc);

#endif /* SFT_CLI_H */
