/* SPDX-License-Identifier: BSD-3-Clause */
/* Pollers: functions a lcore's loop calls every iteration or every period. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "rt_internal.h"

struct rt_poller *
rt_poller_register(struct rt_lcore *lc, rt_poller_fn fn, void *arg, uint64_t period_us,
		   const char *name)
{
	struct rt_poller *p;
	struct rt_poller **tail;

	if (lc == NULL || fn == NULL) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	p->lc = lc;
	p->fn = fn;
	p->arg = arg;
	p->period_us = period_us;
	p->next_us = rt_now_us(lc->rt) + period_us;
	p->wait_fd = -1;
	snprintf(p->name, sizeof(p->name), "%s", name != NULL ? name : "");
	/* Registration order is call order. */
	for (tail = &lc->pollers; *tail != NULL; tail = &(*tail)->next) {
	}
	*tail = p;
	return p;
}

void
rt_poller_unregister(struct rt_poller **pp)
{
	struct rt_poller *p = pp != NULL ? *pp : NULL;
	struct rt_poller **it;

	if (p == NULL) {
		return;
	}
	rt_idle_poller_unwatch(p);
	for (it = &p->lc->pollers; *it != NULL; it = &(*it)->next) {
		if (*it == p) {
			*it = p->next;
			break;
		}
	}
	free(p);
	*pp = NULL;
}

int
rt_poller_set_wait_fd(struct rt_poller *p, int fd)
{
	if (p == NULL || fd < 0 || p->wait_fd >= 0) {
		return -EINVAL;
	}
	p->wait_fd = fd;
	return rt_idle_poller_watch(p);
}

void
rt_poller_set_pending(struct rt_poller *p, const unsigned int *pending)
{
	if (p != NULL) {
		p->pending = pending;
	}
}

void
rt_pollers_free(struct rt_lcore *lc)
{
	while (lc->pollers != NULL) {
		struct rt_poller *p = lc->pollers;

		lc->pollers = p->next;
		free(p);
	}
}

/* @p now: the clock as this loop iteration read it (one read per iteration). */
unsigned int
rt_pollers_run(struct rt_lcore *lc, uint64_t now)
{
	struct rt_poller *p;
	struct rt_poller *next;
	unsigned int busy = 0;

	if (lc->pollers == NULL) {
		return 0;
	}
	for (p = lc->pollers; p != NULL; p = next) {
		next = p->next; /* a poller may unregister itself */
		if (p->pending != NULL && *p->pending == 0) {
			continue;
		}
		if (p->period_us != 0) {
			if (now < p->next_us) {
				continue;
			}
			p->next_us = now + p->period_us;
		}
		rt_beat_step(lc, RT_STEP_POLLER, (const void *)p->fn);
		if (p->fn(p->arg) == RT_POLLER_BUSY) {
			busy++;
		}
	}
	return busy;
}
