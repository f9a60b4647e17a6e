/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The selftest RPC server (layer 2 of selftest.h), on LNet's public API as
 * any LNet user: 160-byte request buffers on lazy portal 51 matching each
 * framework service's id, and on lazy portal 50 for the test services
 * (brw, ping) while server tests of a session want them; replies by LNetPut
 * to the client's portal 52 with the request's rpyid; bulk (a TEST client's
 * destination list, brw data) by LNetGet or LNetPut at the client's bulkid,
 * as 2.17's rpc.c does (selftest-facts §1.1, §4). Framework requests go to
 * the framework (sft_fw.h).
 *
 * One thread drives a server: sft_srv_poll() waits for one LNet event (or
 * the session's deadline) and handles it; nothing here is locked. The
 * clock is the caller's, so tests run the session timer in their own time.
 */
#ifndef SFT_SRV_H
#define SFT_SRV_H

#include <stdint.h>

#include "sft_fw.h"

/** Request buffers posted per framework service unless said otherwise. */
#define SFT_SRV_FRAMEWORK_BUFS 2u
/** Events the server's queue holds unless said otherwise. */
#define SFT_SRV_EQ_SIZE 1024u
/** The kernel's rpc_timeout module parameter default: a client RPC's, seconds. */
#define SFT_RPC_TIMEOUT_S 64u
/** rpc_timeout 0 of the kernel: client RPCs never expire. */
#define SFT_RPC_TIMEOUT_NEVER UINT32_MAX

struct sft_srv_opts {
	uint64_t (*now_ms)(void *ctx); /**< a monotonic clock in milliseconds */
	void *clock_ctx;
	uint32_t session_timeout_s;  /**< 0: SFT_FW_SESSION_TIMEOUT_S */
	unsigned int framework_bufs; /**< 0: SFT_SRV_FRAMEWORK_BUFS */
	unsigned int eq_size;        /**< 0: SFT_SRV_EQ_SIZE */
	uint32_t rpc_timeout_s; /**< client RPCs: 0: SFT_RPC_TIMEOUT_S; SFT_RPC_TIMEOUT_NEVER */
	uint64_t id_seed;       /**< wall-clock seconds that seed our RPC ids; 0: now */
	/** The wall clock a ping request carries; NULL: CLOCK_REALTIME. */
	void (*wall_clock)(void *ctx, uint64_t *sec, uint64_t *nsec);
};

/** What the server saw go wrong, beyond the kernel's RPC counters. */
struct sft_srv_stats {
	uint64_t bad_requests; /**< wrong length, magic or type: dropped */
	uint64_t send_failed;  /**< a reply or bulk GET LNet refused or failed */
	uint64_t nomem;        /**< a reply or bulk not made for want of memory */
	uint64_t eq_overflows; /**< events lost from the server's queue */
	uint64_t brw_corrupt;  /**< brw WRITEs whose data failed its check (answered EBADMSG) */
};

struct sft_srv;

/**
 * Start serving on a node whose LNet is up: make portals 50 and 51 lazy and
 * post the framework services' buffers.
 * @return 0, -EINVAL (no clock), -ENOMEM, or LNet's -errno
 */
int sft_srv_start(const struct sft_srv_opts *opts, struct sft_srv **out);

/**
 * Wait up to @p timeout_ms (0: not at all; -1: until an event or the
 * session's deadline) for one LNet event, handle it, then fire the session
 * timer if it is due.
 * @return 1 (an event was handled), 0 (none), or -errno from LNetEQPoll
 */
int sft_srv_poll(struct sft_srv *s, int timeout_ms);

/** The kernel's RPC counters (what a STAT reply carries). */
void sft_srv_rpc_counters(const struct sft_srv *s, struct sft_rpc_counters *out);

/** The server's own error counts. */
void sft_srv_stats(const struct sft_srv *s, struct sft_srv_stats *out);

/** The framework the server feeds (its session, batches and tests). */
struct sft_fw *sft_srv_fw(struct sft_srv *s);

/**
 * Stop: unlink every MD, wait (polling, at most @p timeout_ms) for their
 * last events, clear the lazy portals, free everything.
 * @return 0, or -ETIMEDOUT if LNet kept an MD (the memory is then leaked
 *         rather than freed under LNet)
 */
int sft_srv_stop(struct sft_srv *s, int timeout_ms);

#endif /* SFT_SRV_H */
