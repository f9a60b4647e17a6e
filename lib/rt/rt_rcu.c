/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RCU over rte_rcu_qsbr: the management lcore publishes new objects and
 * retires old ones; they are freed once every logical lcore has finished a
 * loop iteration that began after the retirement.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

void
rt_rcu_publish(void **slot, void *new_obj)
{
	__atomic_store_n(slot, new_obj, __ATOMIC_RELEASE);
}

void *
rt_rcu_read(void *const *slot)
{
	return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

int
rt_rcu_retire(struct rt_runtime *rt, void *old, rt_free_fn fn)
{
	if (rt->nretired == rt->retired_cap) {
		unsigned int cap = rt->retired_cap == 0 ? 16 : rt->retired_cap * 2;
		struct rt_retired *r = realloc(rt->retired, cap * sizeof(*r));

		if (r == NULL) {
			return -ENOMEM;
		}
		rt->retired = r;
		rt->retired_cap = cap;
	}
	rt->retired[rt->nretired++] = (struct rt_retired){ rte_rcu_qsbr_start(rt->qsbr), old, fn };
	return 0;
}

unsigned int
rt_rcu_pending(const struct rt_runtime *rt)
{
	return rt->nretired;
}

/* Free, in order, every retirement all lcores have passed. Mgmt lcore. */
unsigned int
rt_rcu_reclaim(struct rt_runtime *rt)
{
	unsigned int done = 0;

	while (done < rt->nretired &&
	       rte_rcu_qsbr_check(rt->qsbr, rt->retired[done].token, false) == 1) {
		rt->retired[done].fn(rt->retired[done].obj);
		done++;
	}
	if (done != 0) {
		memmove(rt->retired, rt->retired + done,
			(rt->nretired - done) * sizeof(*rt->retired));
		rt->nretired -= done;
	}
	return done;
}

/* Destroy: no lcore runs any more, so everything can go. */
void
rt_rcu_free_all(struct rt_runtime *rt)
{
	unsigned int i;

	for (i = 0; i < rt->nretired; i++) {
		rt->retired[i].fn(rt->retired[i].obj);
	}
	free(rt->retired);
	rt->retired = NULL;
	rt->nretired = 0;
}
