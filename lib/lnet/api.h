/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The LNet application API, with the names and semantics of kernel LNet's
 * api.h (current Lustre), plus a polled event queue for application threads.
 *
 * Include as <lnet/api.h> and link with `pkg-config --libs liblnet`.
 *
 * Threading: every call may be made from any application thread. A call
 * that touches state owned by a data lcore (an MD, a portal) runs there: the
 * caller waits for it. Event handlers (struct lnet_md.umd_handler) run on the data
 * lcore that owns the MD and must not block; LNetEQPoll() is the blocking
 * interface for application threads.
 *
 * LNetNIInit() brings up one data lcore per CPU partition, a management lcore
 * and the loopback NI 0@lo, on the real clock: on EAL worker threads if the
 * application runs EAL with workers, or gave EAL arguments (eal_args, or the
 * LNET_EAL_ARGS environment variable) for LNet to start it with; otherwise
 * polled on the application's thread inside LNet calls and LNetEQPoll().
 * lnet_init_opts_set() chooses otherwise.
 */
#ifndef LNET_API_H
#define LNET_API_H

#include <stddef.h>

#include "lnet_types.h"
#include "lnp_api.h"

LNP_BEGIN_DECLS

/** How the runtime executes its lcores. */
enum lnet_exec_mode {
	LNET_EXEC_AUTO = 0,    /**< threads on EAL workers if any (or EAL arguments given),
				    else polled */
	LNET_EXEC_THREADS = 1, /**< lcores on EAL worker threads */
	/* 2: the unit tests' virtual clock, not offered to applications */
	LNET_EXEC_POLLED = 3, /**< no threads, real clock: the application's thread runs every
				    lcore inside LNet calls and LNetEQPoll, spinning while it waits
				    (run to completion on one core, as an SPDK application) */
};

/** Options for the next LNetNIInit(); see lnet_init_opts_set(). */
struct lnet_init_opts {
	size_t opts_size;         /**< sizeof(struct lnet_init_opts) */
	enum lnet_exec_mode mode; /**< execution mode */
	unsigned int ncpts;       /**< CPTs (data lcores); 0 = from libnuma / cpu_pattern */
	const char *cpu_pattern;  /**< e.g. "0[0,1] 1[2,3]"; NULL = libnuma */
	const char *eal_args;     /**< EAL arguments if LNet starts EAL; NULL = default */
	bool no_eal;              /**< never start EAL (-EINVAL with eal_args or THREADS) */
	/**
	 * The stall watchdog: a thread that counts and logs every poll of a
	 * lcore that runs longer than this many milliseconds. 0: the default
	 * (LNET_STALL_MS_DEFAULT in threads mode; none when polled, which keeps
	 * the polled mode's one thread); -1: none.
	 */
	int stall_ms;
	/**
	 * Messages each CPT can have alive at once: the message pool is made
	 * this big (times the CPTs) at LNetNIInit and never grows; a send or
	 * receive that finds it empty fails with -ENOMEM. 0: the default,
	 * LNET_MSGS_PER_CPT_DEFAULT; at most LNET_MSGS_PER_CPT_MAX.
	 */
	unsigned int msgs_per_cpt;
};

/** Messages per CPT in the message pool unless lnet_init_opts says otherwise. */
#define LNET_MSGS_PER_CPT_DEFAULT 16384
/** The most lnet_init_opts.msgs_per_cpt may ask for (LNetNIInit fails with -EINVAL above it). */
#define LNET_MSGS_PER_CPT_MAX (1U << 20)

/** The stall watchdog's threshold in threads mode unless lnet_init_opts says otherwise. */
#define LNET_STALL_MS_DEFAULT 500

/**
 * Set the options the next LNetNIInit() uses (before the first one).
 * @return 0, -EINVAL (bad size or combination), -EBUSY (LNet is up)
 */
LNP_API int lnet_init_opts_set(const struct lnet_init_opts *opts);

/**
 * Bring LNet up (reference counted: each call needs an LNetNIFini()).
 * @param requested_pid the PID of this process on the network
 *        (LNET_PID_LUSTRE for a kernel-compatible node; LNET_PID_ANY = LNET_PID_LUSTRE)
 * @return 0 (it came up), n > 0 (already up: the n references before this
 *         one), or -errno
 */
LNP_API int LNetNIInit(lnet_pid_t requested_pid);

/**
 * Drop one reference; the last brings LNet down: in-flight messages
 * complete with an error event, every MD is unlinked, lcores stop.
 * @return 0, or -ENETDOWN when LNet is not up
 */
LNP_API int LNetNIFini(void);

/**
 * Identity of the index-th local NI (0 is 0@lo).
 * @param index NI index
 * @param id receives pid and NID
 * @param large_nids include NIs whose NIDs do not fit nid4
 * @return 0, -ENOENT past the last NI, -ENETDOWN when LNet is down
 */
LNP_API int LNetGetId(unsigned int index, struct lnet_processid *id, bool large_nids);

/**
 * Distance to @p dstnid, as the kernel's LNetDist (its local_nid_dist_zero default).
 * @param srcnid if not NULL, receives the local NID that reaches @p dstnid
 *        (may be @p dstnid itself)
 * @param order if not NULL, receives the kernel's order: 0 for 0@lo, 1 for
 *        another local NID, else 2 + the position (0@lo first, NIs grouped by
 *        net in the order the nets were added) of the first NI on its net
 * @return 0 (one of our NIDs), 1 (on a local net), -EHOSTUNREACH (no local
 *         NI on its net: routes are not looked at, where the kernel's
 *         answers the shortest route's hops + 1), -EINVAL, -ENETDOWN
 */
LNP_API int LNetDist(const struct lnet_nid *dstnid, struct lnet_nid *srcnid, uint32_t *order);

/**
 * Replace @p nid by the primary NID of the peer it belongs to; left as it
 * is for 0@lo, a NID no peer has, or when LNet is down. The kernel first
 * discovers a peer that is not up to date (when discovery is on); this node
 * answers with the primary it knows now.
 */
LNP_API void LNetPrimaryNID(struct lnet_nid *nid);

/**
 * Set @p nid to this node's primary NID: the first NI that is not 0@lo
 * (first net added, its first NI), through LNetPrimaryNID(); left as it is
 * when only 0@lo is up or LNet is down.
 */
LNP_API void LNetLocalPrimaryNID(struct lnet_nid *nid);

/** True when @p nid is the NID of one of our NIs (0@lo included). */
LNP_API bool LNetIsPeerLocal(const struct lnet_nid *nid);

/**
 * Whether the peer of @p nid is discovered, with the kernel's answers:
 * @return 1 (discovered, or 0@lo), -EAGAIN (not yet: the peer is not up to
 *         date), -EALREADY (being discovered), -EHOSTUNREACH (its ping
 *         failed), -ENETRESET (LNet is down), -EINVAL (@p nid NULL)
 */
LNP_API int LNetPeerDiscovered(const struct lnet_nid *nid);

/**
 * The global discovery setting (lnetctl set discovery).
 * @return 1 on, 0 off, -ENETDOWN when LNet is down
 */
LNP_API int LNetGetPeerDiscoveryStatus(void);

/**
 * Add peers for @p nids as the kernel's LNetAddPeer (what Lustre calls with
 * a server's NIDs): 0@lo is skipped; with discovery off, so is every NID on
 * a net we have no NI on, and each remaining NID becomes a non-Multi-Rail
 * peer with its primary locked; with discovery on, the first NID becomes a
 * Multi-Rail peer with its primary locked and each other NID a Multi-Rail
 * peer of its own, for discovery to merge. A NID another peer has is left
 * to that peer. Failures are logged (the kernel's call returns nothing).
 */
LNP_API void LNetAddPeer(const struct lnet_nid *nids, int num_nids);

/**
 * Create a match entry (not yet in a match list: LNetMDAttach() inserts it).
 * @return the ME, or NULL with errno: EINVAL (bad portal or position, or
 *         @p match_id NULL), EPERM (a unique match on a wildcard portal, or
 *         the reverse), ENOMEM, ENETDOWN
 */
LNP_API struct lnet_me *LNetMEAttach(unsigned int portal, const struct lnet_processid *match_id,
				     uint64_t match_bits, uint64_t ignore_bits,
				     enum lnet_unlink unlink, enum lnet_ins_pos pos);

/**
 * Attach an MD to @p me and insert the pair into the portal's match list.
 * On a lazy portal, messages waiting for an MD are matched now. On failure
 * the ME is freed, unless @p me was NULL or already had an MD (-EINVAL).
 * @return 0, -EINVAL (bad MD or ME), -ENOMEM, -ENETDOWN
 */
LNP_API int LNetMDAttach(struct lnet_me *me, const struct lnet_md *md, enum lnet_unlink unlink,
			 struct lnet_handle_md *handle);

/**
 * Create a free-floating MD (for the initiator side of PUT/GET).
 * @return 0, -EINVAL, -ENOMEM, -ENETDOWN
 */
LNP_API int LNetMDBind(const struct lnet_md *md, enum lnet_unlink unlink,
		       struct lnet_handle_md *handle);

/**
 * Unlink an MD. With nothing in flight an UNLINK event is delivered now;
 * otherwise the last in-flight message's event has unlinked set.
 * @return 0, -ENOENT (unknown or already unlinked), -ENETDOWN
 */
LNP_API int LNetMDUnlink(struct lnet_handle_md handle);

/**
 * Send a PUT of the MD's data.
 * @param self source NID, or NULL / ANY to let LNet choose
 * @return 0 (events follow: SEND, then ACK if requested), or -errno
 *         (-ENOENT unknown MD, -EHOSTUNREACH no route, -EINVAL)
 */
LNP_API int LNetPut(const struct lnet_nid *self, struct lnet_handle_md mdh, enum lnet_ack_req ack,
		    const struct lnet_processid *target, unsigned int portal, uint64_t match_bits,
		    unsigned int offset, uint64_t hdr_data);

/**
 * Send a GET into the MD.
 * @param recovery the message is a health recovery ping (never resent)
 * @return 0 (events follow: SEND then REPLY), or -errno
 */
LNP_API int LNetGet(const struct lnet_nid *self, struct lnet_handle_md mdh,
		    const struct lnet_processid *target, unsigned int portal, uint64_t match_bits,
		    unsigned int offset, bool recovery);

/**
 * Make a portal lazy: unmatched PUTs wait for an MD instead of being dropped.
 * @return 0, -EINVAL, -ENETDOWN
 */
LNP_API int LNetSetLazyPortal(int portal);

/**
 * Make a portal non-lazy again; messages waiting on it are dropped (counted).
 * @return 0, -EINVAL, -ENETDOWN
 */
LNP_API int LNetClearLazyPortal(int portal);

/**
 * Allocate a polled event queue of @p count events, rounded up to a power
 * of two (as the kernel's LNetEQAlloc did). Each CPT that posts to it gets
 * a ring of that capacity on its first event (events of one MD come from
 * its CPT, in order); an event that finds its ring full is dropped and
 * reported once by LNetEQPoll as -EOVERFLOW.
 * Point struct lnet_md.umd_eq_handle at it.
 * @return the queue, or NULL with errno (EINVAL, ENOMEM)
 */
LNP_API struct lnet_eq *LNetEQAlloc(unsigned int count);

/**
 * Free an event queue. Every MD that posts to it must be gone first: its
 * last event (unlinked set) was delivered, or LNet was shut down.
 * @return 0, -EBUSY (an MD still posts to it; nothing is freed), -EINVAL
 */
LNP_API int LNetEQFree(struct lnet_eq *eq);

/**
 * Wait for an event on any of @p eqs.
 * @param timeout_ms 0 = do not wait, -1 = forever; honoured in every mode
 * @param event receives the event
 * @param which receives the index of the queue it came from
 * @return 1 (event), 0 (timeout), -EOVERFLOW (event returned, but events
 *         were dropped on that queue since the last poll), -EINVAL
 */
LNP_API int LNetEQPoll(struct lnet_eq **eqs, int neq, int timeout_ms, struct lnet_event *event,
		       int *which);

/**
 * Snapshot the node's counters (sum over CPTs).
 * @return 0 or -ENETDOWN
 */
LNP_API int lnet_counters_get(struct lnet_counters *out);
/** Zero the counters (lnetctl stats reset); messages alive now stay counted. */
LNP_API int lnet_counters_reset(void);

/** Human-readable name of an event type. */
LNP_API const char *lnet_event_kind_str(enum lnet_event_kind kind);

LNP_END_DECLS

#endif /* LNET_API_H */
