/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Fault injection (the kernel's `lnetctl fault drop|delay`, net_fault.c):
 * drop rules and delay rules, each matching messages by source, destination
 * and local NID (a NID, a whole net, or any), portal and message type, and
 * firing on 1 of every N matching messages (randomised within each window of
 * N) or once per N seconds (at a random moment of each window).
 *
 * Threads: the rule lists are immutable arrays published with rt_rcu_*, so
 * data lcores match with no lock; each rule's counters are relaxed atomics.
 * lnet_fault_add/del/reset/list change or read the lists and run on the
 * management lcore only (one at a time); the match functions run on any
 * lcore. With no runtime (@p rt NULL at creation: unit tests, fuzzers) the
 * engine is single-threaded and frees what it replaces at once.
 *
 * Randomness is deterministic: the positions in each window come from a
 * per-rule seed drawn from the engine's seed, the rest (health status
 * picked, the coin of a "random" rule) from a state each caller keeps
 * (one per lcore); time is the caller's (rt_now_us(), virtual when
 * simulated).
 */
#ifndef LNET_FAULT_H
#define LNET_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs_nid.h"
#include "lnet_types.h"
#include "lnet_wire.h"
#include "lnp_api.h"

LNP_BEGIN_DECLS

struct rt_runtime;
struct lnet_fault;

/** The two rule lists. */
enum lnet_fault_kind {
	LNET_FAULT_DROP = 0,  /**< drop (or fail with a health status) */
	LNET_FAULT_DELAY = 1, /**< hold for a latency */
	LNET_FAULT_KINDS = 2,
};

/* Message type bits of lnet_fault_attr.msg_mask: 1 << enum lnet_msg_type, as the kernel's. */
#define LNET_FAULT_ACK_BIT 0x1U
#define LNET_FAULT_PUT_BIT 0x2U
#define LNET_FAULT_GET_BIT 0x4U
#define LNET_FAULT_REPLY_BIT 0x8U
#define LNET_FAULT_MSG_ALL 0xfU

/*
 * Health bits of lnet_fault_attr.health_mask: 1 << enum lnet_msg_hstatus,
 * LOCAL_INTERRUPT (bit 1) to NETWORK_TIMEOUT (bit 10); RANDOM: any of them.
 */
#define LNET_FAULT_HSTATUS_ALL 0x7feU
#define LNET_FAULT_HSTATUS_RANDOM 0xffffffffU

/** Rules of one kind at most (the kernel has no bound; matching is linear). */
#define LNET_FAULT_MAX_RULES 256

/**
 * What a rule matches and how it fires. NIDs: LNET_ANY_NID matches any,
 * an address of all ones on a net (255.255.255.255@tcp, "*@tcp") any NID
 * of that net.
 */
struct lnet_fault_attr {
	struct lnet_nid src;       /**< header's source NID */
	struct lnet_nid dst;       /**< header's destination NID */
	struct lnet_nid local_nid; /**< the NI the message is on (lnetctl --local_nid) */
	uint64_t ptl_mask;         /**< portals (bit n: portal n); 0: every portal */
	uint32_t msg_mask;         /**< LNET_FAULT_*_BIT; 0: every type */
	uint32_t rate;             /**< fire on 1 of every @c rate matches, or 0 */
	uint32_t interval;         /**< fire once every @c interval seconds, or 0 */
	uint32_t health_mask;      /**< drop: health status to simulate (LNET_FAULT_HSTATUS_*) */
	bool random;               /**< drop: fire on about half the matches (needs interval) */
	bool drop_all;             /**< drop: every match, rate and interval aside */
	uint32_t latency;          /**< delay: seconds */
};

/** A rule's counters, as `lnetctl fault ... show` prints them. */
struct lnet_fault_stat {
	uint64_t count; /**< matches counted by rate and interval rules (fs_count) */
	uint64_t put;   /**< fired on, by message type */
	uint64_t ack;
	uint64_t get;
	uint64_t reply;
	uint64_t fired; /**< dropped (ds_dropped) or delayed (ls_delayed) */
};

/** One rule as listed. */
struct lnet_fault_info {
	struct lnet_fault_attr attr; /**< as validated (default message mask filled in) */
	struct lnet_fault_stat stat;
};

/**
 * A new engine with no rules. @p rt: the runtime whose RCU retires replaced
 * lists (NULL: single-threaded use, freed at once). @p seed: the seed of
 * every rule's random positions (0: a fixed default).
 * @return the engine, or NULL without memory
 */
LNP_API struct lnet_fault *lnet_fault_create(struct rt_runtime *rt, uint64_t seed);

/** Free the engine and its rules. No lcore may be matching. NULL is ignored. */
LNP_API void lnet_fault_destroy(struct lnet_fault *f);

/**
 * Add a rule in front of the others of its kind (as the kernel's, the newest
 * is matched and listed first; duplicates are allowed). @p now_us starts an
 * interval rule's first window. Management lcore.
 * @return 0; -EINVAL with @p err saying why (rate and interval both or
 * neither, a delay without latency, an option of the other kind, a portal
 * mask with only ACK/REPLY, unknown bits); -ENOSPC past
 * LNET_FAULT_MAX_RULES; -ENOMEM
 */
LNP_API int lnet_fault_add(struct lnet_fault *f, enum lnet_fault_kind kind,
			   const struct lnet_fault_attr *attr, uint64_t now_us, char *err,
			   size_t errlen);

/**
 * Delete every rule of @p kind whose source is @p src and destination @p
 * dst, as given at add (NULL or LNET_ANY_NID: any). Management lcore.
 * @return how many were deleted, or -ENOENT when none was
 */
LNP_API int lnet_fault_del(struct lnet_fault *f, enum lnet_fault_kind kind,
			   const struct lnet_nid *src, const struct lnet_nid *dst);

/**
 * Zero the counters of every rule of @p kind and start their windows again
 * (new random positions; interval windows from @p now_us). Management lcore.
 */
LNP_API void lnet_fault_reset(struct lnet_fault *f, enum lnet_fault_kind kind, uint64_t now_us);

/** Rules of @p kind. Management lcore. */
LNP_API unsigned int lnet_fault_count(const struct lnet_fault *f, enum lnet_fault_kind kind);

/**
 * Up to @p max rules of @p kind from position @p start (0: the newest), in
 * match order. Management lcore. @return number filled
 */
LNP_API unsigned int lnet_fault_list(const struct lnet_fault *f, enum lnet_fault_kind kind,
				     unsigned int start, struct lnet_fault_info *out,
				     unsigned int max);

/**
 * Whether any rule of @p kind exists: the data path's test before it looks
 * at a header (false for a NULL engine). Any lcore.
 */
LNP_API bool lnet_fault_any(const struct lnet_fault *f, enum lnet_fault_kind kind);

/**
 * Whether a drop rule fires on the message of @p hdr; the first rule (in
 * list order) that fires counts it and ends the search. Two uses, as the
 * kernel's:
 *  - on receive (lnet_parse), @p hstatus NULL: rules without a health
 *    error (and drop_all rules) drop the message silently;
 *  - on send (the LND's transmit), @p hstatus set: only rules with a
 *    health error (and drop_all rules) fire, and *hstatus receives the
 *    status to complete the message with (one of the rule's, picked at
 *    random); it is LNET_MSG_STATUS_OK when nothing fired.
 * @p local_nid: the NI's NID, or NULL (then only rules without a local NID
 * match, as the kernel's send path). @p now_us: the lcore's clock.
 * @p rand_state: the caller's random state (any value; kept per lcore;
 * NULL: a fixed one).
 * Any lcore.
 */
LNP_API bool lnet_fault_drop_match(struct lnet_fault *f, const struct lnet_hdr *hdr,
				   const struct lnet_nid *local_nid, uint64_t now_us,
				   uint32_t *rand_state, enum lnet_msg_hstatus *hstatus);

/**
 * Whether a delay rule fires on the message of @p hdr (first rule that
 * fires wins; it counts the message). @p local_nid as for
 * lnet_fault_drop_match() (the kernel passes none for delays). Any lcore.
 * @return the delay in microseconds (the rule's latency), 0 for none
 */
LNP_API uint64_t lnet_fault_delay_match(struct lnet_fault *f, const struct lnet_hdr *hdr,
					const struct lnet_nid *local_nid, uint64_t now_us);

/**
 * Parse a rule's NID as the kernel's netlink handler and lnetctl take it:
 * "*" or "<?>" (any), "*@NET" (any NID of NET, stored as address all ones),
 * or a NID. @return 0 or -EINVAL
 */
LNP_API int lnet_fault_nid_parse(const char *str, struct lnet_nid *nid);

/** The next value of a caller's random state (xorshift32; a zero state is seeded). */
LNP_API uint32_t lnet_fault_rand(uint32_t *state);

LNP_END_DECLS

#endif /* LNET_FAULT_H */
