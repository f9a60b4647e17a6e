/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every socklnd NI of the process, by NID, with the lcore that owns it.
 * The kernel has one acceptor for all its NIs: a connection request may
 * name any local NI whatever address it arrived at. Here each NI listens
 * for itself (sharing addr:port with SO_REUSEPORT when two NIs have one
 * address), so a request for another NI is handed to that NI's lcore;
 * this table says where. It is process-wide because the port is.
 *
 * No lock: the table is published with RCU by the management lcore (NI
 * start), which alone replaces it; data lcores read it lock-free during
 * handshakes. An NI stops on its own lcore, which only marks its entry
 * gone (and forgets its socklnd_ni, which only that lcore reads); gone
 * entries leave the table, and are freed after a grace period, the next
 * time the management lcore publishes one.
 */
#include <errno.h>
#include <stdlib.h>

#include "socklnd_registry.h"

#define SOCKLND_REGISTRY_MAX 256

struct socklnd_registry_entry {
	struct lnet_nid nid;
	struct rt_lcore *lcore;
	struct socklnd_ni *s; /* atomic; cleared by the owner lcore as its NI stops */
	int gone;             /* atomic; set by the owner lcore as its NI stops */
};

struct socklnd_registry_table {
	unsigned int n;
	struct socklnd_registry_entry *e[];
};

/* RCU-published; replaced only by a management lcore (or before lcores run). */
static struct socklnd_registry_table *socklnd_registry;

static bool
socklnd_registry_entry_gone(const struct socklnd_registry_entry *e)
{
	return __atomic_load_n(&e->gone, __ATOMIC_ACQUIRE) != 0;
}

static void
socklnd_registry_free_entry(void *e)
{
	free(e);
}

/* Management lcore: start NI @p s, served by @p lcore. */
int
socklnd_registry_add(struct socklnd_ni *s, struct rt_lcore *lcore)
{
	struct socklnd_registry_table *old = rt_rcu_read((void *const *)&socklnd_registry);
	unsigned int n = old == NULL ? 0 : old->n;
	struct rt_runtime *rt = rt_lcore_runtime(lcore);
	struct socklnd_registry_table *t;
	struct socklnd_registry_entry *e;
	unsigned int live = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		live += !socklnd_registry_entry_gone(old->e[i]);
	}
	if (live >= SOCKLND_REGISTRY_MAX) {
		return -ENOSPC;
	}
	t = malloc(sizeof(*t) + (live + 1) * sizeof(t->e[0]));
	e = calloc(1, sizeof(*e));
	if (t == NULL || e == NULL) {
		free(t);
		free(e);
		return -ENOMEM;
	}
	e->nid = *lnet_ni_nid(s->ni);
	e->lcore = lcore;
	e->s = s;
	t->n = 0;
	for (i = 0; i < n; i++) {
		if (!socklnd_registry_entry_gone(old->e[i])) {
			t->e[t->n++] = old->e[i];
		}
	}
	t->e[t->n++] = e;
	rt_rcu_publish((void **)&socklnd_registry, t);
	if (old == NULL) {
		return 0;
	}
	/*
	 * Readers of the old table may still hold it and its gone entries:
	 * both go after a grace period (if that cannot be recorded, out of
	 * memory, they are never freed rather than freed under a reader).
	 */
	for (i = 0; i < n; i++) {
		if (socklnd_registry_entry_gone(old->e[i])) {
			(void)rt_rcu_retire(rt, old->e[i], socklnd_registry_free_entry);
		}
	}
	(void)rt_rcu_retire(rt, old, free);
	return 0;
}

/*
 * On the NI's lcore as it stops (or on the management lcore when its start
 * fails): no connection is handed to @p s any more.
 */
void
socklnd_registry_del(struct socklnd_ni *s)
{
	const struct socklnd_registry_table *t = rt_rcu_read((void *const *)&socklnd_registry);
	unsigned int i;

	for (i = 0; t != NULL && i < t->n; i++) {
		struct socklnd_registry_entry *e = t->e[i];

		if (__atomic_load_n(&e->s, __ATOMIC_RELAXED) == s) {
			__atomic_store_n(&e->s, NULL, __ATOMIC_RELAXED);
			__atomic_store_n(&e->gone, 1, __ATOMIC_RELEASE);
			break;
		}
	}
}

/* Any lcore, lock-free: the lcore serving local NI @p nid, or NULL. */
struct rt_lcore *
socklnd_registry_lcore(const struct lnet_nid *nid)
{
	const struct socklnd_registry_table *t = rt_rcu_read((void *const *)&socklnd_registry);
	unsigned int i;

	for (i = 0; t != NULL && i < t->n; i++) {
		const struct socklnd_registry_entry *e = t->e[i];

		if (lnet_nid_same(&e->nid, nid) && !socklnd_registry_entry_gone(e)) {
			return e->lcore;
		}
	}
	return NULL;
}

/* On an lcore: its NI with @p nid, alive as long as this lcore runs (it is removed here). */
struct socklnd_ni *
socklnd_registry_here(const struct lnet_nid *nid)
{
	const struct socklnd_registry_table *t = rt_rcu_read((void *const *)&socklnd_registry);
	struct rt_lcore *self = rt_lcore_self();
	unsigned int i;

	for (i = 0; t != NULL && i < t->n; i++) {
		struct socklnd_registry_entry *e = t->e[i];
		struct socklnd_ni *s;

		if (e->lcore != self || !lnet_nid_same(&e->nid, nid)) {
			continue;
		}
		s = __atomic_load_n(&e->s, __ATOMIC_RELAXED);
		if (s != NULL) {
			return s;
		}
	}
	return NULL;
}
