/* SPDX-License-Identifier: BSD-3-Clause */
/* Runtime internals: everything a logical lcore owns, and the runtime. */
#ifndef RT_INTERNAL_H
#define RT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "rt.h"

struct rt_watchdog;

/*
 * Each file that logs registers its own "rt.<file>" log type and defines
 * RT_LOGTYPE to it before using RT_LOG, so levels can be set per concern.
 */
#define RT_LOG(level, fmt, ...) rte_log(RTE_LOG_##level, RT_LOGTYPE, "rt: " fmt "\n", ##__VA_ARGS__)

#define RT_MSG_BATCH 32U
#define RT_RING_DEFAULT 4096U
/*
 * POLLED mode: a lcore with nothing to do (empty ring, no timer or periodic
 * poller due, no every-iteration poller, nothing retired for RCU) is skipped
 * in a round, but polled at least every RT_POLLED_SKIP_MAX rounds. In
 * practice this is the management lcore: it holds only timers and control
 * work, and the round trip of an 8 B message spent ~1,200 instructions on
 * polling it for nothing.
 */
#define RT_POLLED_SKIP_MAX 64U
#define RT_SIM_EPOCH_US LNP_US_PER_S
/*
 * Idle loops poll on for RT_IDLE_SPIN_US after their last work (a burst of
 * requests, an answer, often come that soon; waking a sleeper costs tens of
 * microseconds in a VM), then sleep (rt_idle.c) until woken, at most
 * RT_IDLE_SLEEP_MAX_NS: only a poller without a wait fd needs the cap.
 * Threads waiting on a loop spin RT_WAIT_SPIN_US, then sleep: on an eventfd
 * for rt_lcore_call() and LNetEQPoll(), else with a growing nanosleep.
 * Spinning is sched_yield(), bounded in time: a thread sharing the CPU (an
 * application thread and a worker pinned together) runs at once, and the
 * bound keeps a spinner from holding a CPU for whole scheduler slices.
 */
#define RT_IDLE_SPIN_US 200U
#define RT_WAIT_SPIN_US 50U
/* Bounds one sleep of rt_lcore_call()'s caller, should a wake-up ever be missed. */
#define RT_CALL_SLEEP_MAX_MS 10
#define RT_IDLE_SLEEP_MAX_NS ((long)LNP_NS_PER_MS)
/* A thread that is not a loop, waiting on one (rt_wait_until), sleeps at most this long. */
#define RT_WAIT_SLEEP_MAX_NS 100000L

/* A message: 16 bytes in the ring. */
struct rt_msg {
	rt_msg_fn fn;
	void *ctx;
};

struct rt_poller {
	struct rt_poller *next;
	struct rt_lcore *lc;
	rt_poller_fn fn;
	void *arg;
	uint64_t period_us;
	uint64_t next_us;
	int wait_fd;                 /* readable when fn has work; -1: none */
	const unsigned int *pending; /* fn has work only while this is not 0; NULL: always */
	char name[32];
};

/* Where a THREADS-mode loop thread sleeps when idle (rt_idle.c). */
struct rt_waiter {
	int epfd;            /* evfd + its lcores' pollers' wait fds */
	int evfd;            /* written by senders when sleeping */
	int sleeping;        /* atomic */
	uint64_t sleeps;     /* written by its thread only */
	uint64_t oversleeps; /* sleeps that ended a stall threshold or more past their due time */
	uint64_t oversleep_longest_us; /* ... the longest overshoot (its thread only) */
	int tid; /* its thread's kernel id, once it runs (the watchdog's look) */
};

/*
 * What a lcore is doing, for the stall watchdog (rt_watchdog.c): written by
 * the lcore's thread with relaxed stores, read by the watchdog.
 */
struct rt_beat {
	uint64_t busy_since_us; /* when the poll in progress began; 0: not in a poll */
	const void *step_fn;    /* the function of the step in progress */
	enum rt_step step;
};

struct rt_lcore {
	struct rt_runtime *rt;
	enum rt_lcore_role role;
	int cpt;
	unsigned int id; /* index in rt->lcores, RCU thread id */
	struct rte_ring *ring;
	void *ctx;
	struct rt_poller *pollers;
	struct rt_waiter *waiter; /* THREADS: its loop thread's; else NULL */
	struct rt_timer **heap;   /* min-heap on expire_us */
	unsigned int nheap;
	unsigned int heap_cap;
	unsigned int skipped; /* POLLED: rounds skipped since last polled */
	uint64_t now_us;      /* the clock as its current (or last) iteration read it */
	uint64_t seen_sleeps; /* its thread's sleeps at its last iteration */
	/* max_gap_us starts again (rt_lcore_gap_reset): a request any thread makes, which the
	 * lcore applies at its next iteration, so only the lcore writes its stats. */
	uint32_t gap_reset_req;  /* atomic: any thread bumps it */
	uint32_t gap_reset_done; /* the lcore's: the last request it applied */
	struct rt_lcore_stats stats;
	struct rt_beat beat;
	struct rt_lcore_stalls stalls; /* written by the watchdog only */
	uint64_t stall_since_us;       /* watchdog's: the poll whose stall it counted */
};

struct rt_retired {
	uint64_t token;
	void *obj;
	rt_free_fn fn;
};

struct rt_runtime {
	enum rt_mode mode;
	bool mgmt_on_main;
	unsigned int n; /* logical lcores: [0] mgmt, [1..] data */
	struct rt_lcore *lcores;
	struct rte_rcu_qsbr *qsbr;
	struct rt_retired *retired; /* FIFO owned by mgmt */
	unsigned int nretired;
	unsigned int retired_cap;
	uint64_t sim_now_us;
	int stop;         /* atomic */
	int main_running; /* atomic: rt_runtime_run_main() is in its loop */
	bool started;
	unsigned int workers[RTE_MAX_LCORE];
	unsigned int nworkers;
	struct rt_waiter *waiters; /* [nworkers] the workers', then the main thread's */
	unsigned int nwaiters;
	struct rt_watchdog *watchdog; /* NULL: none watches */
};

int rt_watchdog_start(struct rt_runtime *rt, uint64_t threshold_us);
void rt_watchdog_stop(struct rt_runtime *rt);

/* The lcore's beat: the step it is in (relaxed: the watchdog only samples it). */
static inline void
rt_beat_step(struct rt_lcore *lc, enum rt_step step, const void *fn)
{
	__atomic_store_n(&lc->beat.step_fn, fn, __ATOMIC_RELAXED);
	__atomic_store_n(&lc->beat.step, step, __ATOMIC_RELAXED);
}

void *rt_zalloc_aligned(size_t size);
unsigned int rt_msgs_run_batch(struct rt_lcore *lc);

/* Most loop iterations find no message: a look at two indexes, no call. */
static inline unsigned int
rt_msgs_run(struct rt_lcore *lc)
{
	return rte_ring_empty(lc->ring) ? 0 : rt_msgs_run_batch(lc);
}
unsigned int rt_pollers_run(struct rt_lcore *lc, uint64_t now);
unsigned int rt_timers_run_due(struct rt_lcore *lc, uint64_t now);

/* The timer heap's first expiry tells whether any is due. */
static inline bool
rt_timers_due(const struct rt_lcore *lc, uint64_t now)
{
	return lc->nheap != 0 && lc->heap[0]->expire_us <= now;
}

/* No call on most iterations: nothing is due. */
static inline unsigned int
rt_timers_run(struct rt_lcore *lc, uint64_t now)
{
	return rt_timers_due(lc, now) ? rt_timers_run_due(lc, now) : 0;
}
unsigned int rt_lcore_poll_at(struct rt_lcore *lc, uint64_t now);
unsigned int rt_runtime_poll_round(struct rt_runtime *rt, uint64_t now);
unsigned int rt_rcu_reclaim(struct rt_runtime *rt);
bool rt_sim_skip_to_next_due(struct rt_runtime *rt, uint64_t end);
uint64_t rt_lcore_next_due_us(const struct rt_lcore *lc);
void rt_rcu_free_all(struct rt_runtime *rt);
void rt_pollers_free(struct rt_lcore *lc);
void rt_idle_backoff(unsigned int *idle, uint64_t waited_us);
int rt_lcore_call_inline(struct rt_lcore *lc, rt_call_fn fn, void *ctx);
int rt_idle_init(struct rt_runtime *rt, const unsigned int *thread_of_lcore, unsigned int nthreads);
void rt_idle_fini(struct rt_runtime *rt);
int rt_idle_poller_watch(struct rt_poller *p);
void rt_idle_poller_unwatch(struct rt_poller *p);
void rt_idle_wake(struct rt_lcore *lc);
void rt_idle_wake_all(struct rt_runtime *rt);
void rt_idle_sleep(struct rt_runtime *rt, struct rt_waiter *w);

/* A counter only its lcore writes: a plain add, no locked instruction; readers load it relaxed. */
static inline void
rt_stat_add(uint64_t *counter, uint64_t n)
{
	__atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

#endif /* RT_INTERNAL_H */
