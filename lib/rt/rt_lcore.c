/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logical lcores and their loop: create/destroy, roles, one loop
 * iteration, and the THREADS backend on EAL worker lcores.
 */
#include <errno.h>
#include <stddef.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_launch.h>
#include <rte_pause.h>

#include "rt_internal.h"

RTE_LOG_REGISTER_SUFFIX(rt_logtype_lcore, lcore, NOTICE);
#define RT_LOGTYPE rt_logtype_lcore

/* The logical lcore whose iteration is running on this thread, if any. */
static __thread struct rt_lcore *t_rt_self __attribute__((tls_model("initial-exec")));

void *
rt_zalloc_aligned(size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, RTE_CACHE_LINE_SIZE, size) != 0) {
		return NULL;
	}
	memset(p, 0, size);
	return p;
}

static int
rt_lcore_init(struct rt_runtime *rt, unsigned int i, unsigned int ring_size)
{
	struct rt_lcore *lc = &rt->lcores[i];
	ssize_t sz = rte_ring_get_memsize_elem(sizeof(struct rt_msg), ring_size);

	lc->rt = rt;
	lc->id = i;
	lc->role = i == 0 ? RT_ROLE_MGMT : RT_ROLE_DATA;
	lc->cpt = i == 0 ? -1 : (int)i - 1;
	lc->ring = sz < 0 ? NULL : rt_zalloc_aligned((size_t)sz);
	/* Any thread may send; only the owner dequeues. */
	if (lc->ring == NULL || rte_ring_init(lc->ring, "rt", ring_size, RING_F_SC_DEQ) != 0) {
		return -ENOMEM;
	}
	if (rte_rcu_qsbr_thread_register(rt->qsbr, i) != 0) {
		return -EINVAL;
	}
	rte_rcu_qsbr_thread_online(rt->qsbr, i);
	return 0;
}

int
rt_runtime_create(const struct rt_runtime_opts *opts, struct rt_runtime **out)
{
	unsigned int ring_size;
	struct rt_runtime *rt;
	unsigned int i;
	int rc = 0;

	if (opts == NULL || opts->opts_size == 0 || opts->n_data == 0 ||
	    opts->n_data >= RTE_MAX_LCORE || opts->mode > RT_MODE_POLLED || out == NULL) {
		return -EINVAL;
	}
	ring_size = opts->ring_size == 0 ? RT_RING_DEFAULT : opts->ring_size;
	if (!rte_is_power_of_2(ring_size)) {
		return -EINVAL;
	}
	rt = calloc(1, sizeof(*rt));
	if (rt == NULL) {
		return -ENOMEM;
	}
	rt->mode = opts->mode;
	rt->mgmt_on_main = opts->mgmt_on_main;
	rt->n = opts->n_data + 1;
	rt->sim_now_us = RT_SIM_EPOCH_US;
	rt->lcores = calloc(rt->n, sizeof(*rt->lcores));
	rt->qsbr = rt_zalloc_aligned(rte_rcu_qsbr_get_memsize(rt->n));
	if (rt->lcores == NULL || rt->qsbr == NULL || rte_rcu_qsbr_init(rt->qsbr, rt->n) != 0) {
		rc = -ENOMEM;
	}
	for (i = 0; rc == 0 && i < rt->n; i++) {
		rc = rt_lcore_init(rt, i, ring_size);
	}
	if (rc == 0 && opts->opts_size >= offsetof(struct rt_runtime_opts, stall_us) +
						  sizeof(opts->stall_us)) {
		rc = rt_watchdog_start(rt, opts->stall_us);
	}
	if (rc != 0) {
		rt_runtime_destroy(rt);
		return rc;
	}
	*out = rt;
	return 0;
}

void
rt_runtime_destroy(struct rt_runtime *rt)
{
	unsigned int i;

	if (rt == NULL) {
		return;
	}
	rt_watchdog_stop(rt); /* before the lcores it looks at go */
	rt_rcu_free_all(rt);
	if (rt->lcores != NULL) {
		rt_idle_fini(rt);
	}
	for (i = 0; rt->lcores != NULL && i < rt->n; i++) {
		rt_pollers_free(&rt->lcores[i]);
		free(rt->lcores[i].heap);
		free(rt->lcores[i].ring);
	}
	free(rt->lcores);
	free(rt->qsbr);
	free(rt);
}

enum rt_mode
rt_runtime_mode(const struct rt_runtime *rt)
{
	return rt->mode;
}

bool
rt_runtime_caller_polls(const struct rt_runtime *rt)
{
	return rt->mode != RT_MODE_THREADS;
}

struct rt_lcore *
rt_mgmt_lcore(struct rt_runtime *rt)
{
	return &rt->lcores[0];
}

unsigned int
rt_data_lcore_count(const struct rt_runtime *rt)
{
	return rt->n - 1;
}

struct rt_lcore *
rt_data_lcore(struct rt_runtime *rt, unsigned int cpt)
{
	/* Compare before adding: cpt + 1 wraps for UINT32_MAX. */
	return cpt < rt->n - 1 ? &rt->lcores[cpt + 1] : NULL;
}

struct rt_lcore *
rt_lcore_self(void)
{
	return t_rt_self;
}

enum rt_lcore_role
rt_lcore_role(const struct rt_lcore *lc)
{
	return lc->role;
}

int
rt_lcore_cpt(const struct rt_lcore *lc)
{
	return lc->cpt;
}

struct rt_runtime *
rt_lcore_runtime(const struct rt_lcore *lc)
{
	return lc->rt;
}

void
rt_lcore_set_ctx(struct rt_lcore *lc, void *ctx)
{
	lc->ctx = ctx;
}

void *
rt_lcore_ctx(const struct rt_lcore *lc)
{
	return lc->ctx;
}

/* Run fn(ctx) on this thread as @p lc (POLLED mode: this thread is every lcore). */
int
rt_lcore_call_inline(struct rt_lcore *lc, rt_call_fn fn, void *ctx)
{
	struct rt_lcore *prev = t_rt_self;
	int rc;

	t_rt_self = lc;
	rc = fn(ctx);
	t_rt_self = prev;
	return rc;
}

/* The time since its last iteration, unless its thread slept in between (no clock read). */
static inline void
rt_lcore_gap(struct rt_lcore *lc, uint64_t now)
{
	uint64_t sleeps = lc->waiter != NULL ? lc->waiter->sleeps : 0;
	uint32_t reset = __atomic_load_n(&lc->gap_reset_req, __ATOMIC_RELAXED);

	if (unlikely(reset != lc->gap_reset_done)) {
		__atomic_store_n(&lc->gap_reset_done, reset,
				 __ATOMIC_RELAXED); /* the gap ending now counts */
		__atomic_store_n(&lc->stats.max_gap_us, 0, __ATOMIC_RELAXED);
	}
	if (lc->now_us != 0 && now > lc->now_us && sleeps == lc->seen_sleeps &&
	    now - lc->now_us > __atomic_load_n(&lc->stats.max_gap_us, __ATOMIC_RELAXED)) {
		__atomic_store_n(&lc->stats.max_gap_us, now - lc->now_us, __ATOMIC_RELAXED);
	}
	lc->seen_sleeps = sleeps;
}

/* One iteration of @p lc's loop; @p now is the clock as the caller read it for this iteration. */
unsigned int
rt_lcore_poll_at(struct rt_lcore *lc, uint64_t now)
{
	struct rt_lcore *prev = t_rt_self;
	unsigned int work;

	t_rt_self = lc;
	rt_lcore_gap(lc, now);
	lc->now_us = now;
	/* Never 0 (the watchdog's "not in a poll"); release: the steps' stores are seen after it. */
	__atomic_store_n(&lc->beat.busy_since_us, now | 1, __ATOMIC_RELEASE);
	work = rt_msgs_run(lc);
	work += rt_pollers_run(lc, now);
	work += rt_timers_run(lc, now);
	if (lc->role == RT_ROLE_MGMT) {
		rt_beat_step(lc, RT_STEP_RCU, (const void *)rt_rcu_reclaim);
		work += rt_rcu_reclaim(lc->rt);
	}
	__atomic_store_n(&lc->beat.busy_since_us, 0, __ATOMIC_RELAXED);
	/* End of an iteration: nothing published earlier is referenced any more. */
	rte_rcu_qsbr_quiescent(lc->rt->qsbr, lc->id);
	rt_stat_add(&lc->stats.loops, 1);
	if (work != 0) {
		rt_stat_add(&lc->stats.busy_loops, 1);
	}
	t_rt_self = prev;
	return work;
}

uint64_t
rt_lcore_now_us(const struct rt_lcore *lc)
{
	return lc->now_us != 0 ? lc->now_us : rt_now_us(lc->rt);
}

unsigned int
rt_lcore_poll(struct rt_lcore *lc)
{
	return rt_lcore_poll_at(lc, rt_now_us(lc->rt));
}

/*
 * POLLED: true if polling @p lc now would find nothing to do, so a round may
 * leave it out. Every poller without a period or a pending count makes a
 * lcore always due (the data lcores' LNDs).
 */
static bool
rt_lcore_nothing_due(const struct rt_lcore *lc, uint64_t now)
{
	const struct rt_poller *p;

	if (!rte_ring_empty(lc->ring) || rt_timers_due(lc, now) ||
	    (lc->role == RT_ROLE_MGMT && lc->rt->nretired > 0)) {
		return false;
	}
	for (p = lc->pollers; p != NULL; p = p->next) {
		if ((p->pending == NULL || *p->pending != 0) &&
		    (p->period_us == 0 || p->next_us <= now)) {
			return false;
		}
	}
	return true;
}

/*
 * One round: every lcore polled once, all with one reading of the clock
 * (@p now; timers and periodic pollers due by then run, the rest a round
 * later). POLLED mode leaves out a lcore with nothing due, at most
 * RT_POLLED_SKIP_MAX - 1 rounds in a row, so its RCU quiescent state and
 * anything the check cannot see still come round.
 */
unsigned int
rt_runtime_poll_round(struct rt_runtime *rt, uint64_t now)
{
	struct rt_lcore *lc = rt->lcores;
	struct rt_lcore *end = lc + rt->n;
	unsigned int work = 0;

	if (rt->mode != RT_MODE_POLLED) {
		for (; lc < end; lc++) {
			work += rt_lcore_poll_at(lc, now);
		}
		return work;
	}
	for (; lc < end; lc++) {
		if (++lc->skipped < RT_POLLED_SKIP_MAX && rt_lcore_nothing_due(lc, now)) {
			continue;
		}
		lc->skipped = 0;
		work += rt_lcore_poll_at(lc, now);
	}
	return work;
}

unsigned int
rt_runtime_poll_until_idle(struct rt_runtime *rt, unsigned int max_rounds)
{
	unsigned int rounds = 0;

	while (rounds < max_rounds) {
		unsigned int work = rt_runtime_poll_round(rt, rt_now_us(rt));

		rounds++;
		if (work == 0) {
			break;
		}
	}
	return rounds;
}

void
rt_lcore_stats_get(const struct rt_lcore *lc, struct rt_lcore_stats *out)
{
	if (lc == NULL) {
		/* rt_data_lcore() out of range; also tells LTO the loads below are not of NULL. */
		memset(out, 0, sizeof(*out));
		return;
	}
	out->loops = __atomic_load_n(&lc->stats.loops, __ATOMIC_RELAXED);
	out->busy_loops = __atomic_load_n(&lc->stats.busy_loops, __ATOMIC_RELAXED);
	out->msgs = __atomic_load_n(&lc->stats.msgs, __ATOMIC_RELAXED);
	out->timers = __atomic_load_n(&lc->stats.timers, __ATOMIC_RELAXED);
	out->send_full = __atomic_load_n(&lc->stats.send_full, __ATOMIC_RELAXED);
	out->sleeps =
		lc->waiter != NULL ? __atomic_load_n(&lc->waiter->sleeps, __ATOMIC_RELAXED) : 0;
	/* A reset the lcore has not applied yet: no gap measured since it. */
	out->max_gap_us = __atomic_load_n(&lc->gap_reset_req, __ATOMIC_RELAXED) !=
					  __atomic_load_n(&lc->gap_reset_done, __ATOMIC_RELAXED) ?
				  0 :
				  __atomic_load_n(&lc->stats.max_gap_us, __ATOMIC_RELAXED);
	out->oversleeps =
		lc->waiter != NULL ? __atomic_load_n(&lc->waiter->oversleeps, __ATOMIC_RELAXED) : 0;
	out->oversleep_longest_us =
		lc->waiter != NULL ?
			__atomic_load_n(&lc->waiter->oversleep_longest_us, __ATOMIC_RELAXED) :
			0;
}

void
rt_lcore_gap_reset(struct rt_lcore *lc)
{
	__atomic_fetch_add(&lc->gap_reset_req, 1, __ATOMIC_RELAXED);
}

/*
 * A thread that is not a loop, waiting on one with nothing to wake it: spin
 * RT_WAIT_SPIN_US, then sleep longer and longer up to RT_WAIT_SLEEP_MAX_NS.
 */
void
rt_idle_backoff(unsigned int *idle, uint64_t waited_us)
{
	struct timespec ts = { 0, 0 };

	if (waited_us < RT_WAIT_SPIN_US) {
		rte_pause();
		return;
	}
	++(*idle);
	ts.tv_nsec = (long)(*idle * LNP_NS_PER_US);
	if (ts.tv_nsec > RT_WAIT_SLEEP_MAX_NS) {
		ts.tv_nsec = RT_WAIT_SLEEP_MAX_NS;
	}
	nanosleep(&ts, NULL);
}

static bool
rt_lcore_runs_on(const struct rt_runtime *rt, unsigned int i, unsigned int worker)
{
	unsigned int first = rt->mgmt_on_main ? 1 : 0;

	if (i < first) {
		return false;
	}
	return rt->workers[(i - first) % rt->nworkers] == worker;
}

static struct rt_waiter *
rt_worker_waiter(struct rt_runtime *rt, unsigned int worker)
{
	unsigned int i;

	for (i = 0; i < rt->nworkers; i++) {
		if (rt->workers[i] == worker) {
			return &rt->waiters[i];
		}
	}
	return NULL;
}

/*
 * After an iteration that did @p work: keep polling for RT_IDLE_SPIN_US after
 * the last work (an answer often comes that soon), then sleep until woken.
 * Time, not iterations: an iteration that makes system calls takes
 * microseconds, and a loop spinning for milliseconds starves whatever shares
 * its CPU, such as the peer it waits for.
 */
static void
rt_loop_idle(struct rt_runtime *rt, struct rt_waiter *w, unsigned int work, uint64_t *last_work_us)
{
	uint64_t now = rt_now_us(rt);

	if (work != 0) {
		*last_work_us = now;
	} else if (now - *last_work_us < RT_IDLE_SPIN_US) {
		sched_yield(); /* a thread sharing our CPU (the application's) goes first */
	} else {
		rt_idle_sleep(rt, w);
	}
}

/* Which thread runs each logical lcore: worker slots first, then the main thread. */
static int
rt_runtime_assign_threads(struct rt_runtime *rt)
{
	unsigned int *thread_of = calloc(rt->n, sizeof(*thread_of));
	unsigned int main_slot = rt->nworkers;
	unsigned int first = rt->mgmt_on_main ? 1 : 0;
	unsigned int i;
	int rc;

	if (thread_of == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < rt->n; i++) {
		if (i < first || rt->nworkers == 0) {
			thread_of[i] = main_slot;
		} else {
			thread_of[i] = (i - first) % rt->nworkers;
		}
	}
	rc = rt_idle_init(rt, thread_of, rt->nworkers + 1);
	free(thread_of);
	return rc;
}

/* One EAL worker: runs its share of logical lcores until stop. */
static int
rt_worker_main(void *arg)
{
	struct rt_runtime *rt = arg;
	unsigned int me = rte_lcore_id();
	struct rt_waiter *me_waiter = rt_worker_waiter(rt, me);
	uint64_t last_work_us = rt_now_us(rt);

	__atomic_store_n(&me_waiter->tid, (int)gettid(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&rt->stop, __ATOMIC_ACQUIRE)) {
		unsigned int work = 0;
		unsigned int i;

		for (i = 0; i < rt->n; i++) {
			if (rt_lcore_runs_on(rt, i, me)) {
				work += rt_lcore_poll(&rt->lcores[i]);
			}
		}
		rt_loop_idle(rt, me_waiter, work, &last_work_us);
	}
	return 0;
}

int
rt_runtime_start(struct rt_runtime *rt)
{
	unsigned int lcore;
	unsigned int i;

	if (rt_runtime_caller_polls(rt)) {
		return 0;
	}
	if (rt->started) {
		return -EBUSY;
	}
	rt->nworkers = 0;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		rt->workers[rt->nworkers++] = lcore;
	}
	if (rt->nworkers == 0 && !rt->mgmt_on_main) {
		RT_LOG(ERR, "threads mode needs an EAL worker lcore or mgmt_on_main");
		return -ENODEV;
	}
	if (rt->waiters == NULL && rt_runtime_assign_threads(rt) != 0) {
		return -ENOMEM;
	}
	__atomic_store_n(&rt->stop, 0, __ATOMIC_SEQ_CST);
	rt->started = true;
	for (i = 0; i < rt->nworkers; i++) {
		if (rte_eal_remote_launch(rt_worker_main, rt, rt->workers[i]) != 0) {
			RT_LOG(ERR, "cannot launch on EAL lcore %u", rt->workers[i]);
			rt->nworkers = i; /* stop waits only for the ones launched */
			rt_runtime_stop(rt);
			return -EBUSY;
		}
	}
	return 0;
}

/* The main thread's share: mgmt, or every lcore when EAL has no worker. */
static unsigned int
rt_main_poll(struct rt_runtime *rt)
{
	unsigned int n = rt->nworkers == 0 ? rt->n : 1;
	unsigned int work = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		work += rt_lcore_poll(&rt->lcores[i]);
	}
	return work;
}

int
rt_runtime_run_main(struct rt_runtime *rt)
{
	uint64_t last_work_us = rt_now_us(rt);

	if (rt->mode != RT_MODE_THREADS || !rt->mgmt_on_main || !rt->started) {
		return -EINVAL;
	}
	__atomic_store_n(&rt->waiters[rt->nworkers].tid, (int)gettid(), __ATOMIC_RELEASE);
	/* seq_cst pairs with rt_runtime_stop(): one of us sees the other's store. */
	__atomic_store_n(&rt->main_running, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&rt->stop, __ATOMIC_SEQ_CST)) {
		rt_loop_idle(rt, &rt->waiters[rt->nworkers], rt_main_poll(rt), &last_work_us);
	}
	/* Tells rt_runtime_stop() the mgmt lcore is free to be drained. */
	__atomic_store_n(&rt->main_running, 0, __ATOMIC_RELEASE);
	return 0;
}

/* Run one lcore's queued messages on this thread, as that lcore. */
static unsigned int
rt_lcore_drain_msgs(struct rt_lcore *lc)
{
	struct rt_lcore *prev = t_rt_self;
	unsigned int n;

	t_rt_self = lc;
	n = rt_msgs_run(lc);
	t_rt_self = prev;
	return n;
}

/*
 * After the loops returned: run queued messages (which may queue more) until
 * every ring is empty. Only messages, so a poller that always reports busy
 * cannot keep stop from returning.
 */
static void
rt_runtime_drain(struct rt_runtime *rt)
{
	unsigned int work;
	unsigned int i;

	do {
		work = 0;
		for (i = 0; i < rt->n; i++) {
			work += rt_lcore_drain_msgs(&rt->lcores[i]);
		}
	} while (work != 0);
}

void
rt_runtime_stop(struct rt_runtime *rt)
{
	unsigned int idle = 0;
	unsigned int i;

	if (rt_runtime_caller_polls(rt) || !rt->started) {
		return;
	}
	__atomic_store_n(&rt->stop, 1, __ATOMIC_SEQ_CST);
	rt_idle_wake_all(rt);
	for (i = 0; i < rt->nworkers; i++) {
		rte_eal_wait_lcore(rt->workers[i]);
	}
	/* The mgmt loop on the main thread must have left before we touch its lcore. */
	while (__atomic_load_n(&rt->main_running, __ATOMIC_SEQ_CST) != 0) {
		rt_idle_backoff(&idle, RT_WAIT_SPIN_US); /* no hurry: sleep at once */
	}
	rt->started = false;
	rt_runtime_drain(rt);
}
