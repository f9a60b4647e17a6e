/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Runtime: logical lcores with roles (one management lcore, one data lcore
 * per CPT), function+context messages on per-lcore rings, pollers that
 * report busy/idle, per-lcore timers, and RCU (rte_rcu_qsbr) publish/retire.
 *
 * A logical lcore (struct rt_lcore) owns state; only code running on it
 * touches that state. Other threads and lcores reach it with messages.
 *
 * Three backends share this API:
 *  - RT_MODE_THREADS: logical lcores run on DPDK EAL worker lcores
 *    (several logical lcores share one worker when there are fewer workers);
 *    optionally the management lcore runs on the caller's thread via
 *    rt_runtime_run_main().
 *  - RT_MODE_SIM: no threads. Every logical lcore is polled by the caller
 *    (rt_lcore_poll(), rt_runtime_poll_until_idle()), the clock is virtual
 *    (rt_sim_advance_us()), so cross-lcore races are tested deterministically.
 *    SIM mode needs no EAL.
 *  - RT_MODE_POLLED: no threads, like SIM, but on the real clock: the
 *    application's thread is the only one and runs every lcore while it
 *    waits (SPDK's run-to-completion application model: one core, no
 *    handoff between threads, no sleeping). Needs no EAL.
 *
 * Threading rules: rt_lcore_send_msg() may be called from any thread.
 * Poller/timer registration on a lcore happens on that lcore (or before
 * rt_runtime_start()). RCU publish/retire happen on the management lcore.
 */
#ifndef RT_H
#define RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lnp_api.h"

LNP_BEGIN_DECLS

struct rt_runtime;
struct rt_lcore;
struct rt_poller;

/** Execution backend. */
enum rt_mode {
	RT_MODE_THREADS = 0, /**< logical lcores on EAL worker lcores */
	RT_MODE_SIM = 1,     /**< single thread, caller polls, virtual clock */
	RT_MODE_POLLED = 2,  /**< single thread, caller polls, real clock */
};

/** Role of a logical lcore. */
enum rt_lcore_role {
	RT_ROLE_MGMT = 0, /**< configuration, discovery, health, timers */
	RT_ROLE_DATA = 1, /**< owns the NIs, peers and MDs of one CPT */
};

/** Runtime creation options. */
struct rt_runtime_opts {
	size_t opts_size;       /**< sizeof(struct rt_runtime_opts) */
	enum rt_mode mode;      /**< backend */
	unsigned int n_data;    /**< data lcores (one per CPT), >= 1 */
	unsigned int ring_size; /**< per-lcore message ring entries (power of 2); 0 = 4096 */
	bool mgmt_on_main;      /**< THREADS: mgmt runs in rt_runtime_run_main() */
	const char *name;       /**< for logs and ring names; may be NULL */
	/**
	 * The stall watchdog's threshold (THREADS, POLLED): one poll of a lcore
	 * longer than this is a stall, counted and logged. 0: no watchdog.
	 */
	uint64_t stall_us;
};

/** A message handler: runs on the destination lcore. */
typedef void (*rt_msg_fn)(void *ctx);

/** A synchronous call handler: runs on the destination lcore, returns 0 or -errno. */
typedef int (*rt_call_fn)(void *ctx);

/** Poller result: did the poller find work? */
enum rt_poller_status {
	RT_POLLER_IDLE = 0, /**< nothing to do */
	RT_POLLER_BUSY = 1, /**< did work */
};

/** A poller: called from its lcore's loop. */
typedef int (*rt_poller_fn)(void *arg);

/** Timer callback: runs on the lcore the timer was armed on. */
typedef void (*rt_timer_fn)(void *arg);

/**
 * A one-shot timer owned by the caller (embed it in the owning object).
 * Fields are private to lib/rt.
 */
struct rt_timer {
	rt_timer_fn fn;         /**< callback */
	void *arg;              /**< callback argument */
	uint64_t expire_us;     /**< private: absolute expiry on the lcore clock */
	struct rt_lcore *lcore; /**< private: lcore it is armed on, NULL if idle */
	unsigned int heap_idx;  /**< private: position in the lcore's timer heap */
};

/** Per-lcore counters, written by the lcore, readable (relaxed) by anyone. */
struct rt_lcore_stats {
	uint64_t loops;      /**< loop iterations */
	uint64_t busy_loops; /**< iterations that did work */
	uint64_t msgs;       /**< messages executed */
	uint64_t timers;     /**< timers fired */
	uint64_t send_full;  /**< rt_lcore_send_msg() failures (ring full) */
	uint64_t sleeps;     /**< idle sleeps of the thread that runs it (THREADS) */
	/**
	 * The longest time between two of its iterations (microseconds), an
	 * idle sleep in between left out: how long it could not poll because
	 * its thread was busy elsewhere (another lcore's work, the OS).
	 */
	uint64_t max_gap_us;
	/**
	 * Idle sleeps of its thread that ended the stall threshold or more
	 * after they were due, and the longest overshoot: the host gave the
	 * thread no CPU (a blocking call in a poll is a stall instead).
	 */
	uint64_t oversleeps;
	uint64_t oversleep_longest_us;
};

/** The step of a lcore's poll that runs (what a stall was doing). */
enum rt_step {
	RT_STEP_NONE = 0, /**< between steps */
	RT_STEP_MSG,      /**< a message from its ring */
	RT_STEP_POLLER,   /**< a poller */
	RT_STEP_TIMER,    /**< a timer's callback */
	RT_STEP_RCU,      /**< the management lcore's RCU reclaim */
	RT_STEP_N,
};

/**
 * What the stall watchdog saw of one lcore. Written by the watchdog thread
 * only; each field readable (relaxed) by anyone.
 */
struct rt_lcore_stalls {
	uint64_t stalls;        /**< polls that ran past the threshold */
	uint64_t longest_us;    /**< the longest, as long as the watchdog saw it run */
	uint64_t last_us;       /**< the last one (or the one going on), so far */
	uint64_t last_at_us;    /**< when the last one's poll began (rt_now_us) */
	enum rt_step last_step; /**< what the last one was doing */
	const void *last_fn;    /**< the function of that step */
	bool ongoing;           /**< the last one has not ended yet */
	/**
	 * Its thread as the kernel saw it when the stall was found (THREADS):
	 * the state ('R' running or preempted, 'S'/'D' blocked; 0 not known)
	 * and the system call it was blocked in (-1: none, or not known).
	 */
	char last_state;
	long last_syscall;
	/**
	 * Stalls whose thread was found blocked (state S or D: in a system
	 * call that waits), not preempted: the code's fault, where a stall in
	 * state R is the host's (no CPU for it).
	 */
	uint64_t blocked;
};

/**
 * Create a runtime with one management lcore and opts->n_data data lcores.
 * THREADS mode requires rte_eal_init() to have run.
 * @param opts options (opts_size must be set)
 * @param out receives the runtime
 * @return 0, -EINVAL (bad options), -ENOMEM
 */
LNP_API int rt_runtime_create(const struct rt_runtime_opts *opts, struct rt_runtime **out);

/**
 * Start executing lcores. THREADS: launches loops on EAL workers (logical
 * lcores assigned round-robin); with mgmt_on_main and no EAL worker, the
 * main thread runs every lcore in rt_runtime_run_main().
 * SIM, POLLED: no-op (the caller polls).
 * @return 0, -EBUSY (already started), -ENODEV (no EAL worker lcore and not
 *         mgmt_on_main)
 */
LNP_API int rt_runtime_start(struct rt_runtime *rt);

/**
 * THREADS with mgmt_on_main: run the management lcore's loop on the calling
 * thread until rt_runtime_stop() is called. Returns 0, or -EINVAL otherwise.
 */
LNP_API int rt_runtime_run_main(struct rt_runtime *rt);

/**
 * Ask every lcore loop to return and wait for them (THREADS), including the
 * rt_runtime_run_main() loop. Messages still queued (and those they queue)
 * are then executed on the calling thread before this returns; pollers and
 * timers are not run again. Safe to call from any thread that is not a
 * logical lcore's; idempotent.
 */
LNP_API void rt_runtime_stop(struct rt_runtime *rt);

/** Free a stopped runtime; runs pending RCU retirements. NULL is a no-op. */
LNP_API void rt_runtime_destroy(struct rt_runtime *rt);

/** The backend of @p rt. */
LNP_API enum rt_mode rt_runtime_mode(const struct rt_runtime *rt);

/** True when no thread runs the lcores: the caller must poll them (SIM, POLLED). */
LNP_API bool rt_runtime_caller_polls(const struct rt_runtime *rt);

/** The management lcore. */
LNP_API struct rt_lcore *rt_mgmt_lcore(struct rt_runtime *rt);

/** Number of data lcores. */
LNP_API unsigned int rt_data_lcore_count(const struct rt_runtime *rt);

/** Data lcore of CPT @p cpt (NULL when out of range). */
LNP_API struct rt_lcore *rt_data_lcore(struct rt_runtime *rt, unsigned int cpt);

/** The logical lcore running on this thread right now, or NULL (external thread). */
LNP_API struct rt_lcore *rt_lcore_self(void);

/** Role of @p lc. */
LNP_API enum rt_lcore_role rt_lcore_role(const struct rt_lcore *lc);

/** Data lcores: their CPT index; management lcore: -1. */
LNP_API int rt_lcore_cpt(const struct rt_lcore *lc);

/** Runtime that owns @p lc. */
LNP_API struct rt_runtime *rt_lcore_runtime(const struct rt_lcore *lc);

/** Opaque per-lcore user context (set once before start, e.g. struct lnet_cpt). */
LNP_API void rt_lcore_set_ctx(struct rt_lcore *lc, void *ctx);
/** Returns the context set by rt_lcore_set_ctx(). */
LNP_API void *rt_lcore_ctx(const struct rt_lcore *lc);

/**
 * Queue fn(ctx) for execution on @p dst. Any thread. Never blocks.
 * Messages from one sender to one destination run in order.
 * @return 0, or -ENOBUFS when the ring is full (counted in send_full)
 */
LNP_API int rt_lcore_send_msg(struct rt_lcore *dst, rt_msg_fn fn, void *ctx);

/**
 * Run fn(ctx) on @p dst and return its result. If the caller is @p dst, it
 * is called directly. Otherwise it is sent as a message and the caller waits:
 * in SIM and POLLED modes by polling every lcore (POLLED calls it directly
 * when nothing sent to @p dst is still queued), in THREADS mode by yielding
 * for a while, then sleeping until the lcore wakes it. Must not be called
 * from a logical lcore other than @p dst (it would block that lcore's
 * loop): that returns -EDEADLK; lcores instead use
 * rt_lcore_send_msg() with a reply message back to themselves.
 * Returns fn's value, -ENOBUFS, or -EDEADLK.
 */
LNP_API int rt_lcore_call(struct rt_lcore *dst, rt_call_fn fn, void *ctx);

/**
 * Wait from an external thread until cond(arg) is true or @p timeout_us
 * passes (UINT64_MAX = forever, 0 = check once). SIM: polls all lcores while
 * waiting; when they are idle a finite timeout is spent in virtual time,
 * jumping the clock from one due timer to the next (so timers fire as they
 * would on the real clock), and "forever" ends when nothing more can move.
 * @return true if cond became true.
 */
LNP_API bool rt_wait_until(struct rt_runtime *rt, bool (*cond)(void *arg), void *arg,
			   uint64_t timeout_us);

/**
 * Run @p fn on every data lcore (as messages), then @p cpl(ctx) on the
 * calling lcore once all have run. Must be called from a logical lcore.
 * On -ENOBUFS, fn may already be queued to (and will run on) some data
 * lcores, and @p cpl is never called.
 * @return 0, -EINVAL (not called on a lcore of @p rt), -ENOMEM, -ENOBUFS
 */
LNP_API int rt_for_each_dp_lcore(struct rt_runtime *rt, rt_msg_fn fn, void *ctx, rt_msg_fn cpl);

/**
 * Register a poller on @p lc. period_us = 0: every loop iteration; else at
 * most once per period. Call on @p lc or before start.
 * @return the poller, or NULL (errno set)
 */
LNP_API struct rt_poller *rt_poller_register(struct rt_lcore *lc, rt_poller_fn fn, void *arg,
					     uint64_t period_us, const char *name);

/** Unregister and free a poller (on its lcore); sets *p to NULL. */
LNP_API void rt_poller_unregister(struct rt_poller **p);

/**
 * @p fd becomes readable (EPOLLIN) whenever @p p has work, e.g. an epoll
 * set of sockets: an idle THREADS-mode loop sleeps on it instead of polling
 * (otherwise it wakes at least every millisecond to poll @p p). Call on the
 * poller's lcore; unregister the poller before closing @p fd.
 * @return 0, -EINVAL (bad argument or a fd already set), -errno from epoll
 */
LNP_API int rt_poller_set_wait_fd(struct rt_poller *p, int fd);

/**
 * @p p has work only while *@p pending is not zero (a count its own lcore
 * keeps, such as messages queued): the loop does not call it otherwise,
 * and POLLED mode may leave its lcore out of a round. Call on its lcore.
 */
LNP_API void rt_poller_set_pending(struct rt_poller *p, const unsigned int *pending);

/** Initialise a timer (once, before first arm). */
LNP_API void rt_timer_init(struct rt_timer *t, rt_timer_fn fn, void *arg);

/**
 * Arm (or re-arm) @p t on the current lcore to fire after delay_us. Re-arm
 * only on the lcore it is armed on. One loop iteration fires at most the
 * timers armed when it began, so a callback re-arming with delay 0 fires
 * again on the next iteration.
 */
LNP_API void rt_timer_arm(struct rt_timer *t, uint64_t delay_us);

/** Cancel @p t if armed (on the lcore it was armed on). */
LNP_API void rt_timer_cancel(struct rt_timer *t);

/** True if @p t is armed. */
LNP_API bool rt_timer_pending(const struct rt_timer *t);

/** Monotonic microseconds on the runtime clock (virtual in SIM mode). */
LNP_API uint64_t rt_now_us(const struct rt_runtime *rt);

/**
 * The clock as @p lc's current loop iteration read it (microseconds, the
 * rt_now_us() clock): no clock read, for stamps on the message path that
 * a loop iteration's age does not matter to (deadlines in seconds).
 */
LNP_API uint64_t rt_lcore_now_us(const struct rt_lcore *lc);

/** SIM only: advance the virtual clock (timers fire on the next poll). */
LNP_API void rt_sim_advance_us(struct rt_runtime *rt, uint64_t us);

/**
 * One iteration of @p lc's loop on the calling thread: drain up to a batch of
 * messages, run pollers and due timers, report an RCU quiescent state.
 * SIM mode (or tests). @return number of units of work done (0 = idle).
 */
LNP_API unsigned int rt_lcore_poll(struct rt_lcore *lc);

/**
 * SIM: poll every lcore round-robin until a full round does no work or
 * @p max_rounds pass. @return rounds executed. Each round reads the clock
 * once for all its lcores. POLLED: a round leaves out a lcore with nothing
 * due (empty ring, no timer or periodic poller due, no poller without a
 * period), but polls each at least every 64th round.
 */
LNP_API unsigned int rt_runtime_poll_until_idle(struct rt_runtime *rt, unsigned int max_rounds);

/** Copy of @p lc's counters. */
LNP_API void rt_lcore_stats_get(const struct rt_lcore *lc, struct rt_lcore_stats *out);
/** Start measuring max_gap_us again (any thread: a request @p lc applies at its next iteration). */
LNP_API void rt_lcore_gap_reset(struct rt_lcore *lc);
/** Copy of what the stall watchdog saw of @p lc (zeros for NULL). */
LNP_API void rt_lcore_stalls_get(const struct rt_lcore *lc, struct rt_lcore_stalls *out);
/** The stall watchdog's threshold; 0 when none watches (SIM, or stall_us 0). */
LNP_API uint64_t rt_watchdog_threshold_us(const struct rt_runtime *rt);
/** "message", "poller", "timer", "rcu reclaim", "none". */
LNP_API const char *rt_step_name(enum rt_step step);
/**
 * Name @p fn for a person: its symbol and offset, or, for a static
 * function, its module and offset (what addr2line takes).
 */
LNP_API void rt_fn_describe(const void *fn, char *buf, size_t len);

/** Destructor for rt_rcu_retire(). */
typedef void (*rt_free_fn)(void *obj);

/**
 * Publish @p new_obj into @p slot (release store) so data lcores see either
 * the old or the new object, never a torn one. Management lcore.
 */
LNP_API void rt_rcu_publish(void **slot, void *new_obj);

/** Read a published slot (acquire load). Any lcore. */
LNP_API void *rt_rcu_read(void *const *slot);

/**
 * Free @p old with fn(old) once every data lcore has passed a quiescent
 * state (an rt_lcore_poll() iteration) after this call. Management lcore.
 * @return 0 or -ENOMEM
 */
LNP_API int rt_rcu_retire(struct rt_runtime *rt, void *old, rt_free_fn fn);

/** Retirements not yet freed. */
LNP_API unsigned int rt_rcu_pending(const struct rt_runtime *rt);

/**
 * Log lines without a system call on the thread that logs: DPDK's log stream
 * becomes a ring that a thread of its own ("lnet-log") writes to stderr
 * (instead of stderr and syslog from the logging thread, either of which
 * blocks when its reader is slow). A full ring drops lines and counts them.
 * Needs EAL. Once per process: -EALREADY after that.
 * @return 0, -ENOMEM, -EALREADY
 */
LNP_API int rt_log_async_start(void);
/**
 * Write what is queued (a second at most for an output that takes nothing)
 * and stop the writer; lines logged after it go out directly, dropped when
 * the output would block.
 */
LNP_API void rt_log_async_stop(void);
/** Lines the full ring dropped since rt_log_async_start(). */
LNP_API uint64_t rt_log_dropped(void);
/**
 * Whether rt_log_async_start() found stderr to be journald's stream
 * (JOURNAL_STREAM): its lines then begin with their "<N>" syslog priority,
 * and a program writing stderr itself can do the same.
 */
LNP_API bool rt_log_journal(void);

LNP_END_DECLS

#endif /* RT_H */
