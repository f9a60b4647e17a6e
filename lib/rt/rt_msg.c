/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Function+context messages on each lcore's ring, synchronous calls from
 * application threads, waiting, and fan-out to every data lcore.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_pause.h>
#include <rte_ring_elem.h>

#include "rt_internal.h"

RTE_LOG_REGISTER_SUFFIX(rt_logtype_msg, msg, NOTICE);
#define RT_LOGTYPE rt_logtype_msg

int
rt_lcore_send_msg(struct rt_lcore *dst, rt_msg_fn fn, void *ctx)
{
	struct rt_msg m = { fn, ctx };

	if (rte_ring_mp_enqueue_elem(dst->ring, &m, sizeof(m)) != 0) {
		__atomic_fetch_add(&dst->stats.send_full, 1, __ATOMIC_RELAXED);
		return -ENOBUFS;
	}
	rt_idle_wake(dst);
	return 0;
}

/* Bounded: at most one batch per loop iteration, so pollers keep running. */
unsigned int
rt_msgs_run_batch(struct rt_lcore *lc)
{
	struct rt_msg msgs[RT_MSG_BATCH];
	unsigned int n;
	unsigned int i;

	n = rte_ring_sc_dequeue_burst_elem(lc->ring, msgs, sizeof(msgs[0]), RT_MSG_BATCH, NULL);
	for (i = 0; i < n; i++) {
		rt_beat_step(lc, RT_STEP_MSG, (const void *)msgs[i].fn);
		msgs[i].fn(msgs[i].ctx);
	}
	if (n != 0) {
		rt_stat_add(&lc->stats.msgs, n);
	}
	return n;
}

/*
 * Where a thread that is not a lcore sleeps while its rt_lcore_call() runs.
 * One per thread, never freed: a thread that exits gives it back to a pool
 * for the next, since the lcore that ran its last call may still look at
 * it (at worst, a spurious wake-up of the next owner).
 */
struct rt_caller {
	int fd;                 /* eventfd */
	int sleeping;           /* atomic */
	struct rt_caller *next; /* in the pool */
};

static pthread_mutex_t g_callers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_caller *g_callers_pool;
static pthread_key_t g_caller_key;
static pthread_once_t g_caller_once = PTHREAD_ONCE_INIT;
static bool g_caller_key_ok;
static __thread struct rt_caller *t_caller;

static void
rt_caller_release(void *p)
{
	struct rt_caller *w = p;

	pthread_mutex_lock(&g_callers_lock);
	w->next = g_callers_pool;
	g_callers_pool = w;
	pthread_mutex_unlock(&g_callers_lock);
}

static void
rt_caller_key_create(void)
{
	g_caller_key_ok = pthread_key_create(&g_caller_key, rt_caller_release) == 0;
}

/* This thread's sleeping place, or NULL (it then spins). */
static struct rt_caller *
rt_caller_self(void)
{
	struct rt_caller *w;

	if (t_caller != NULL) {
		return t_caller;
	}
	pthread_once(&g_caller_once, rt_caller_key_create);
	if (!g_caller_key_ok) {
		return NULL;
	}
	pthread_mutex_lock(&g_callers_lock);
	w = g_callers_pool;
	if (w != NULL) {
		g_callers_pool = w->next;
	}
	pthread_mutex_unlock(&g_callers_lock);
	if (w == NULL) {
		w = calloc(1, sizeof(*w));
		if (w == NULL) {
			return NULL;
		}
		w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (w->fd < 0) {
			free(w);
			return NULL;
		}
	}
	if (pthread_setspecific(g_caller_key, w) != 0) {
		rt_caller_release(w);
		return NULL;
	}
	t_caller = w;
	return w;
}

/* A call waited on by a thread that is not a logical lcore. */
struct rt_call {
	rt_call_fn fn;
	void *ctx;
	int rc;
	int done;
	struct rt_caller *caller; /* NULL: the caller only spins */
};

static void
rt_call_run(void *arg)
{
	struct rt_call *c = arg;
	struct rt_caller *w = c->caller; /* c is the caller's: gone once done is seen */
	uint64_t one = 1;

	c->rc = c->fn(c->ctx);
	__atomic_store_n(&c->done, 1, __ATOMIC_SEQ_CST); /* done before our look at sleeping */
	if (w != NULL && __atomic_load_n(&w->sleeping, __ATOMIC_SEQ_CST) != 0 &&
	    write(w->fd, &one, sizeof(one)) < 0) {
		(void)errno; /* EAGAIN: already signalled */
	}
}

static bool
rt_call_done(void *arg)
{
	const struct rt_call *c = arg;

	return __atomic_load_n(&c->done, __ATOMIC_ACQUIRE) != 0;
}

/* THREADS: spin RT_WAIT_SPIN_US, then sleep until rt_call_run() writes our eventfd. */
static void
rt_call_wait(struct rt_runtime *rt, struct rt_call *c)
{
	struct rt_caller *w = c->caller;
	uint64_t start = rt_now_us(rt);
	uint64_t drained;

	while (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) == 0) {
		struct pollfd pfd = { .fd = w != NULL ? w->fd : -1, .events = POLLIN };

		if (w == NULL || rt_now_us(rt) - start < RT_WAIT_SPIN_US) {
			sched_yield(); /* the lcore we wait for may share our CPU */
			continue;
		}
		__atomic_store_n(&w->sleeping, 1, __ATOMIC_SEQ_CST); /* before our look at done */
		if (__atomic_load_n(&c->done, __ATOMIC_SEQ_CST) == 0) {
			poll(&pfd, 1, RT_CALL_SLEEP_MAX_MS);
		}
		__atomic_store_n(&w->sleeping, 0, __ATOMIC_RELAXED);
		if (read(w->fd, &drained, sizeof(drained)) < 0) {
			(void)errno; /* EAGAIN: not written */
		}
	}
}

/* rt_lcore_call() through @p dst's ring, waiting for its answer (kept out of the inline paths' frame). */
static __attribute__((noinline)) int
rt_lcore_call_queued(struct rt_lcore *dst, rt_call_fn fn, void *ctx)
{
	struct rt_call c = { fn, ctx, 0, 0, NULL };
	int rc;

	if (dst->rt->mode == RT_MODE_THREADS) {
		c.caller = rt_caller_self();
	}
	rc = rt_lcore_send_msg(dst, rt_call_run, &c);
	if (rc != 0) {
		return rc;
	}
	if (dst->rt->mode == RT_MODE_THREADS) {
		rt_call_wait(dst->rt, &c);
	} else {
		rt_wait_until(dst->rt, rt_call_done, &c, UINT64_MAX);
	}
	return c.rc;
}

int
rt_lcore_call(struct rt_lcore *dst, rt_call_fn fn, void *ctx)
{
	struct rt_lcore *self = rt_lcore_self();

	if (self == dst) {
		return fn(ctx);
	}
	if (self != NULL) {
		/* Waiting here would stall this lcore's loop (and deadlock on one worker). */
		return -EDEADLK;
	}
	if (dst->rt->mode == RT_MODE_POLLED && rte_ring_empty(dst->ring)) {
		/* This thread runs every lcore, and nothing it sent dst is still queued. */
		return rt_lcore_call_inline(dst, fn, ctx);
	}
	return rt_lcore_call_queued(dst, fn, ctx);
}

bool
rt_wait_until(struct rt_runtime *rt, bool (*cond)(void *arg), void *arg, uint64_t timeout_us)
{
	uint64_t start = 0;
	bool first = true;
	unsigned int idle = 0;
	uint64_t now;

	while (!cond(arg)) {
		/* One clock reading per iteration, none when cond holds at once. */
		now = rt_now_us(rt);
		if (first) {
			start = now;
			first = false;
		}
		if (rt->mode == RT_MODE_SIM) {
			/* Only polling moves things, then only time (a finite wait spends it). */
			if (rt_runtime_poll_until_idle(rt, 1) == 1 && !cond(arg) &&
			    rt_runtime_poll_until_idle(rt, 1) == 1 &&
			    (timeout_us == UINT64_MAX ||
			     !rt_sim_skip_to_next_due(rt, start + timeout_us))) {
				return cond(arg);
			}
			continue;
		}
		if (timeout_us != UINT64_MAX && now - start >= timeout_us) {
			return cond(arg);
		}
		if (rt->mode == RT_MODE_POLLED) {
			/*
			 * This thread is every lcore: it spins on them, as SPDK's
			 * reactor does, with the one reading of the clock above.
			 */
			rt_runtime_poll_round(rt, now);
		} else {
			rt_idle_backoff(&idle, now - start);
		}
	}
	return true;
}

struct rt_fanout {
	rt_msg_fn fn;
	rt_msg_fn cpl;
	void *ctx;
	struct rt_lcore *origin;
	unsigned int left;
};

static void
rt_fanout_one(void *arg)
{
	struct rt_fanout *f = arg;

	f->fn(f->ctx);
	if (__atomic_sub_fetch(&f->left, 1, __ATOMIC_ACQ_REL) != 0) {
		return;
	}
	if (f->cpl != NULL && rt_lcore_send_msg(f->origin, f->cpl, f->ctx) != 0) {
		RT_LOG(ERR, "fan-out completion lost: origin ring full");
	}
	free(f);
}

int
rt_for_each_dp_lcore(struct rt_runtime *rt, rt_msg_fn fn, void *ctx, rt_msg_fn cpl)
{
	struct rt_lcore *self = rt_lcore_self();
	struct rt_fanout *f;
	unsigned int i;

	if (self == NULL || self->rt != rt) {
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		return -ENOMEM;
	}
	*f = (struct rt_fanout){ fn, cpl, ctx, self, rt->n - 1 };
	for (i = 1; i < rt->n; i++) {
		if (rt_lcore_send_msg(&rt->lcores[i], rt_fanout_one, f) != 0) {
			/*
			 * Lcores already sent to still run fn; the caller sees the
			 * error instead of a completion. Cleared before the release
			 * below, so whichever lcore reaches zero reads NULL.
			 */
			f->cpl = NULL;
			if (__atomic_sub_fetch(&f->left, rt->n - i, __ATOMIC_ACQ_REL) == 0) {
				free(f);
			}
			return -ENOBUFS;
		}
	}
	return 0;
}
