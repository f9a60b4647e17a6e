/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-lcore one-shot timers in a binary min-heap, and the runtime clock. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_debug.h>

#include "rt_internal.h"

uint64_t
rt_now_us(const struct rt_runtime *rt)
{
	struct timespec ts;

	if (rt->mode == RT_MODE_SIM) {
		return __atomic_load_n(&rt->sim_now_us, __ATOMIC_RELAXED);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * LNP_US_PER_S + (uint64_t)ts.tv_nsec / LNP_NS_PER_US;
}

void
rt_sim_advance_us(struct rt_runtime *rt, uint64_t us)
{
	__atomic_fetch_add(&rt->sim_now_us, us, __ATOMIC_RELAXED);
}

/* When @p lc's earliest timer or periodic poller is due; UINT64_MAX if none. */
uint64_t
rt_lcore_next_due_us(const struct rt_lcore *lc)
{
	uint64_t due = lc->nheap > 0 ? lc->heap[0]->expire_us : UINT64_MAX;
	const struct rt_poller *p;

	for (p = lc->pollers; p != NULL; p = p->next) {
		if (p->period_us != 0 && p->next_us < due) {
			due = p->next_us;
		}
	}
	return due;
}

/* The earliest of every lcore's. */
static uint64_t
rt_next_due_us(const struct rt_runtime *rt)
{
	uint64_t due = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < rt->n; i++) {
		uint64_t d = rt_lcore_next_due_us(&rt->lcores[i]);

		due = d < due ? d : due;
	}
	return due;
}

/*
 * SIM, every lcore idle: move the virtual clock to the next due timer if it
 * is before @p end, else to @p end. False once @p end is reached.
 */
bool
rt_sim_skip_to_next_due(struct rt_runtime *rt, uint64_t end)
{
	uint64_t now = rt_now_us(rt);
	uint64_t due = rt_next_due_us(rt);

	if (now >= end) {
		return false;
	}
	if (due > end) {
		due = end;
	}
	if (due > now) {
		rt_sim_advance_us(rt, due - now);
	}
	return true;
}

static void
rt_heap_set(struct rt_lcore *lc, unsigned int i, struct rt_timer *t)
{
	lc->heap[i] = t;
	t->heap_idx = i;
}

static void
rt_heap_up(struct rt_lcore *lc, unsigned int i)
{
	struct rt_timer *t = lc->heap[i];

	while (i > 0 && lc->heap[(i - 1) / 2]->expire_us > t->expire_us) {
		rt_heap_set(lc, i, lc->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	rt_heap_set(lc, i, t);
}

static void
rt_heap_down(struct rt_lcore *lc, unsigned int i)
{
	struct rt_timer *t = lc->heap[i];

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= lc->nheap) {
			break;
		}
		if (c + 1 < lc->nheap && lc->heap[c + 1]->expire_us < lc->heap[c]->expire_us) {
			c++;
		}
		if (lc->heap[c]->expire_us >= t->expire_us) {
			break;
		}
		rt_heap_set(lc, i, lc->heap[c]);
		i = c;
	}
	rt_heap_set(lc, i, t);
}

void
rt_timer_init(struct rt_timer *t, rt_timer_fn fn, void *arg)
{
	memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->arg = arg;
}

bool
rt_timer_pending(const struct rt_timer *t)
{
	return t->lcore != NULL;
}

void
rt_timer_cancel(struct rt_timer *t)
{
	struct rt_lcore *lc = t->lcore;
	unsigned int i = t->heap_idx;
	struct rt_timer *moved;

	if (lc == NULL) {
		return;
	}
	t->lcore = NULL;
	lc->nheap--;
	if (i == lc->nheap) {
		return;
	}
	moved = lc->heap[lc->nheap];
	rt_heap_set(lc, i, moved);
	rt_heap_down(lc, i);
	rt_heap_up(lc, moved->heap_idx);
}

void
rt_timer_arm(struct rt_timer *t, uint64_t delay_us)
{
	struct rt_lcore *lc = rt_lcore_self();

	RTE_VERIFY(lc != NULL); /* timers belong to the lcore that arms them */
	rt_timer_cancel(t);
	if (lc->nheap == lc->heap_cap) {
		unsigned int cap = lc->heap_cap == 0 ? 16 : lc->heap_cap * 2;
		struct rt_timer **h = realloc(lc->heap, cap * sizeof(*h));

		RTE_VERIFY(h != NULL);
		lc->heap = h;
		lc->heap_cap = cap;
	}
	t->expire_us = rt_now_us(lc->rt) + delay_us;
	t->lcore = lc;
	lc->heap[lc->nheap] = t;
	t->heap_idx = lc->nheap++;
	rt_heap_up(lc, t->heap_idx);
}

/* @p now: the clock as this loop iteration read it (one read per iteration). */
unsigned int
rt_timers_run_due(struct rt_lcore *lc, uint64_t now)
{
	unsigned int max = lc->nheap;
	unsigned int n = 0;

	/* Bounded: a callback re-arming with delay 0 fires again next iteration. */
	while (n < max && rt_timers_due(lc, now)) {
		struct rt_timer *t = lc->heap[0];

		rt_timer_cancel(t);
		rt_beat_step(lc, RT_STEP_TIMER, (const void *)t->fn);
		t->fn(t->arg); /* may re-arm t */
		n++;
	}
	if (n != 0) {
		rt_stat_add(&lc->stats.timers, n);
	}
	return n;
}
