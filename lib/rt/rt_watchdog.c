/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stall watchdog: a thread outside the loops looks at every lcore four
 * times per threshold. A lcore that has been inside one poll (its messages,
 * pollers and timers) for longer than the threshold is stalled: a polled-mode
 * node must never stop, and a router that stops drops a fabric's traffic.
 *
 * The lcore's part is its beat (rt_internal.h): when its poll began, and
 * which step of it runs, as the step's kind and function. Functions are
 * only numbers to the watchdog, safe to read whatever happened to the
 * object they served; the watchdog names them (dladdr) only when it logs.
 * Everything a stall leaves behind (count, lengths, step) is written by the
 * watchdog alone, so readers see one writer per field.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_internal.h"

RTE_LOG_REGISTER_SUFFIX(rt_logtype_watchdog, watchdog, NOTICE);
#define RT_LOGTYPE rt_logtype_watchdog

struct rt_watchdog {
	struct rt_runtime *rt;
	uint64_t threshold_us;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC; signalled to stop */
	bool stop;           /* under lock */
};

static const char *const rt_step_names[RT_STEP_N] = {
	[RT_STEP_NONE] = "none",   [RT_STEP_MSG] = "message",     [RT_STEP_POLLER] = "poller",
	[RT_STEP_TIMER] = "timer", [RT_STEP_RCU] = "rcu reclaim",
};

const char *
rt_step_name(enum rt_step step)
{
	return (unsigned int)step < RT_STEP_N ? rt_step_names[step] : "?";
}

void
rt_fn_describe(const void *fn, char *buf, size_t len)
{
	Dl_info info;

	if (fn == NULL) {
		snprintf(buf, len, "-");
	} else if (dladdr(fn, &info) != 0 && info.dli_sname != NULL) {
		snprintf(buf, len, "%s+0x%" PRIxPTR, info.dli_sname,
			 (uintptr_t)fn - (uintptr_t)info.dli_saddr);
	} else if (dladdr(fn, &info) != 0 && info.dli_fname != NULL) {
		/* A static function: where addr2line finds it. */
		const char *base = strrchr(info.dli_fname, '/');

		snprintf(buf, len, "%s+0x%" PRIxPTR, base != NULL ? base + 1 : info.dli_fname,
			 (uintptr_t)fn - (uintptr_t)info.dli_fbase);
	} else {
		snprintf(buf, len, "%p", fn);
	}
}

static const char *
rt_mode_name(enum rt_mode mode)
{
	switch (mode) {
	case RT_MODE_THREADS:
		return "threads";
	case RT_MODE_POLLED:
		return "polled";
	default:
		return "sim";
	}
}

/* The first line of /proc/self/task/@p tid/@p what, without its newline ("" if none). */
static void
rt_task_file(int tid, const char *what, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", tid, what);
	f = fopen(path, "re");
	if (f == NULL) {
		return;
	}
	if (fgets(buf, (int)len, f) == NULL) {
		buf[0] = '\0';
	}
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * Where the stalled lcore's thread is, as the kernel sees it: running (or
 * preempted: its state R) or blocked in a system call ("syscall": its
 * number and arguments; "wchan": the kernel function it sleeps in). What
 * tells a blocking call on a lcore from a host that gave it no CPU.
 */
static void
rt_stall_thread(struct rt_lcore *lc, char *buf, size_t len)
{
	int tid = lc->waiter != NULL ? __atomic_load_n(&lc->waiter->tid, __ATOMIC_ACQUIRE) : 0;
	char stat[256];
	char sys[96];
	char wchan[64];
	const char *state;

	__atomic_store_n(&lc->stalls.last_state, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&lc->stalls.last_syscall, -1L, __ATOMIC_RELAXED);
	if (tid <= 0) {
		snprintf(buf, len, "thread not known");
		return;
	}
	rt_task_file(tid, "stat", stat, sizeof(stat));
	rt_task_file(tid, "syscall", sys, sizeof(sys));
	rt_task_file(tid, "wchan", wchan, sizeof(wchan));
	state = strrchr(stat, ')'); /* "pid (comm) S ...": the comm may hold spaces */
	__atomic_store_n(&lc->stalls.last_state, state != NULL && state[1] == ' ' ? state[2] : 0,
			 __ATOMIC_RELAXED);
	/* "running", or the number then the arguments */
	__atomic_store_n(&lc->stalls.last_syscall,
			 sys[0] >= '0' && sys[0] <= '9' ? strtol(sys, NULL, 10) : -1L,
			 __ATOMIC_RELAXED);
	snprintf(buf, len, "thread %d state %c, syscall %s, wchan %s", tid,
		 lc->stalls.last_state != 0 ? lc->stalls.last_state : '?',
		 sys[0] != '\0' ? sys : "?", wchan[0] != '\0' ? wchan : "?");
}

static void
rt_stall_log_start(const struct rt_lcore *lc, const struct rt_lcore_stalls *s, uint64_t ran_us,
		   const char *thread)
{
	char fn[128];

	rt_fn_describe(s->last_fn, fn, sizeof(fn));
	RT_LOG(WARNING,
	       "lcore %u (%s, cpt %d, %s mode) stalled: one poll has run %" PRIu64
	       " ms, in a %s step, %s (stall %" PRIu64 "); %s",
	       lc->id, lc->role == RT_ROLE_MGMT ? "mgmt" : "data", lc->cpt,
	       rt_mode_name(lc->rt->mode), ran_us / LNP_US_PER_MS, rt_step_name(s->last_step), fn,
	       s->stalls, thread);
}

/* One look at @p lc at @p now: a new stall, one going on, or the end of one. */
static void
rt_watchdog_look(struct rt_watchdog *wd, struct rt_lcore *lc, uint64_t now)
{
	struct rt_lcore_stalls *s = &lc->stalls;
	uint64_t since = __atomic_load_n(&lc->beat.busy_since_us, __ATOMIC_ACQUIRE);
	char thread[256];
	bool stalled = since != 0 && now > since && now - since > wd->threshold_us;

	if (s->ongoing && (!stalled || since != lc->stall_since_us)) {
		__atomic_store_n(&s->ongoing, false, __ATOMIC_RELAXED);
		RT_LOG(NOTICE, "lcore %u polls again after a stall of at least %" PRIu64 " ms",
		       lc->id, s->last_us / LNP_US_PER_MS);
	}
	if (!stalled) {
		return;
	}
	if (since != lc->stall_since_us) {
		lc->stall_since_us = since;
		__atomic_store_n(&s->last_step, __atomic_load_n(&lc->beat.step, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&s->last_fn, __atomic_load_n(&lc->beat.step_fn, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&s->last_at_us, since, __ATOMIC_RELAXED);
		__atomic_store_n(&s->ongoing, true, __ATOMIC_RELAXED);
		__atomic_store_n(&s->last_us, now - since, __ATOMIC_RELAXED);
		rt_stall_thread(lc, thread, sizeof(thread));
		if (s->last_state == 'S' || s->last_state == 'D') {
			__atomic_store_n(&s->blocked, s->blocked + 1, __ATOMIC_RELAXED);
		}
		/* release: whoever sees the count sees the rest of the record */
		__atomic_store_n(&s->stalls, s->stalls + 1, __ATOMIC_RELEASE);
		/* Last: logging may block (a stderr nobody reads, the very cause of a stall). */
		rt_stall_log_start(lc, s, now - since, thread);
	}
	__atomic_store_n(&s->last_us, now - since, __ATOMIC_RELAXED);
	if (now - since > s->longest_us) {
		__atomic_store_n(&s->longest_us, now - since, __ATOMIC_RELAXED);
	}
}

static void
rt_watchdog_deadline(struct timespec *ts, uint64_t after_us)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)(after_us / LNP_US_PER_S);
	ts->tv_nsec += (long)(after_us % LNP_US_PER_S * LNP_NS_PER_US);
	if (ts->tv_nsec >= (long)LNP_NS_PER_S) {
		ts->tv_sec++;
		ts->tv_nsec -= (long)LNP_NS_PER_S;
	}
}

static void *
rt_watchdog_main(void *arg)
{
	struct rt_watchdog *wd = arg;
	uint64_t period_us = RTE_MAX(wd->threshold_us / 4, LNP_US_PER_MS);

	pthread_mutex_lock(&wd->lock);
	while (!wd->stop) {
		struct timespec until;
		uint64_t now;
		unsigned int i;

		rt_watchdog_deadline(&until, period_us);
		pthread_cond_timedwait(&wd->cond, &wd->lock, &until);
		if (wd->stop) {
			break;
		}
		pthread_mutex_unlock(&wd->lock);
		now = rt_now_us(wd->rt);
		for (i = 0; i < wd->rt->n; i++) {
			rt_watchdog_look(wd, &wd->rt->lcores[i], now);
		}
		pthread_mutex_lock(&wd->lock);
	}
	pthread_mutex_unlock(&wd->lock);
	return NULL;
}

int
rt_watchdog_start(struct rt_runtime *rt, uint64_t threshold_us)
{
	struct rt_watchdog *wd;
	pthread_condattr_t ca;
	int rc;

	if (rt->mode == RT_MODE_SIM || threshold_us == 0) {
		return 0; /* a virtual clock has no stalls to see */
	}
	wd = calloc(1, sizeof(*wd));
	if (wd == NULL) {
		return -ENOMEM;
	}
	wd->rt = rt;
	wd->threshold_us = threshold_us;
	pthread_mutex_init(&wd->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd->cond, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&wd->thread, NULL, rt_watchdog_main, wd);
	if (rc != 0) {
		pthread_cond_destroy(&wd->cond);
		pthread_mutex_destroy(&wd->lock);
		free(wd);
		return -rc;
	}
	pthread_setname_np(wd->thread, "lnet-watchdog");
	rt->watchdog = wd;
	return 0;
}

void
rt_watchdog_stop(struct rt_runtime *rt)
{
	struct rt_watchdog *wd = rt->watchdog;

	if (wd == NULL) {
		return;
	}
	pthread_mutex_lock(&wd->lock);
	wd->stop = true;
	pthread_cond_signal(&wd->cond);
	pthread_mutex_unlock(&wd->lock);
	pthread_join(wd->thread, NULL);
	pthread_cond_destroy(&wd->cond);
	pthread_mutex_destroy(&wd->lock);
	free(wd);
	rt->watchdog = NULL;
}

uint64_t
rt_watchdog_threshold_us(const struct rt_runtime *rt)
{
	return rt->watchdog != NULL ? rt->watchdog->threshold_us : 0;
}

void
rt_lcore_stalls_get(const struct rt_lcore *lc, struct rt_lcore_stalls *out)
{
	if (lc == NULL) {
		memset(out, 0, sizeof(*out));
		return;
	}
	out->stalls = __atomic_load_n(&lc->stalls.stalls, __ATOMIC_RELAXED);
	out->longest_us = __atomic_load_n(&lc->stalls.longest_us, __ATOMIC_RELAXED);
	out->last_us = __atomic_load_n(&lc->stalls.last_us, __ATOMIC_RELAXED);
	out->last_at_us = __atomic_load_n(&lc->stalls.last_at_us, __ATOMIC_RELAXED);
	out->last_step = __atomic_load_n(&lc->stalls.last_step, __ATOMIC_RELAXED);
	out->last_fn = __atomic_load_n(&lc->stalls.last_fn, __ATOMIC_RELAXED);
	out->ongoing = __atomic_load_n(&lc->stalls.ongoing, __ATOMIC_RELAXED);
	out->last_state = __atomic_load_n(&lc->stalls.last_state, __ATOMIC_RELAXED);
	out->last_syscall = __atomic_load_n(&lc->stalls.last_syscall, __ATOMIC_RELAXED);
	out->blocked = __atomic_load_n(&lc->stalls.blocked, __ATOMIC_RELAXED);
}
