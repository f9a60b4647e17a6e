/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every socklnd NI of the process, by NID, with the lcore that owns it.
 * The kernel has one acceptor for all its NIs: a connection request may
 * name any local NI whatever address it arrived at. Here each NI listens
 * for itself (sharing addr:port with SO_REUSEPORT when two NIs have one
 * address), so a request for another NI is handed to that NI's lcore;
 * this table says where. It is process-wide because the port is: NIs are
 * added on the management lcore and removed on their own, so a mutex
 * guards it (taken on NI start and stop, and per misdirected connection).
 */
#include <pthread.h>
#include <stdlib.h>

#include "socklnd_internal.h"

#define SOCKLND_REGISTRY_MAX 256

struct socklnd_registry_entry {
	struct lnet_nid nid;
	struct rt_lcore *lcore;
	struct socklnd_ni *s;
};

static struct {
	pthread_mutex_t lock;
	unsigned int n;
	struct socklnd_registry_entry e[SOCKLND_REGISTRY_MAX];
} socklnd_registry = { .lock = PTHREAD_MUTEX_INITIALIZER };

int
socklnd_registry_add(struct socklnd_ni *s, struct rt_lcore *lcore)
{
	int rc = -ENOSPC;

	pthread_mutex_lock(&socklnd_registry.lock);
	if (socklnd_registry.n < SOCKLND_REGISTRY_MAX) {
		struct socklnd_registry_entry *e = &socklnd_registry.e[socklnd_registry.n++];

		e->nid = *lnet_ni_nid(s->ni);
		e->lcore = lcore;
		e->s = s;
		rc = 0;
	}
	pthread_mutex_unlock(&socklnd_registry.lock);
	return rc;
}

void
socklnd_registry_del(struct socklnd_ni *s)
{
	unsigned int i;

	pthread_mutex_lock(&socklnd_registry.lock);
	for (i = 0; i < socklnd_registry.n; i++) {
		if (socklnd_registry.e[i].s == s) {
			socklnd_registry.e[i] = socklnd_registry.e[--socklnd_registry.n];
			break;
		}
	}
	pthread_mutex_unlock(&socklnd_registry.lock);
}

struct rt_lcore *
socklnd_registry_lcore(const struct lnet_nid *nid)
{
	struct rt_lcore *lc = NULL;
	unsigned int i;

	pthread_mutex_lock(&socklnd_registry.lock);
	for (i = 0; i < socklnd_registry.n && lc == NULL; i++) {
		if (lnet_nid_same(&socklnd_registry.e[i].nid, nid)) {
			lc = socklnd_registry.e[i].lcore;
		}
	}
	pthread_mutex_unlock(&socklnd_registry.lock);
	return lc;
}

/* On an lcore: its NI with @p nid, alive as long as this lcore runs (it is removed here). */
struct socklnd_ni *
socklnd_registry_here(const struct lnet_nid *nid)
{
	struct rt_lcore *self = rt_lcore_self();
	struct socklnd_ni *s = NULL;
	unsigned int i;

	pthread_mutex_lock(&socklnd_registry.lock);
	for (i = 0; i < socklnd_registry.n && s == NULL; i++) {
		if (socklnd_registry.e[i].lcore == self &&
		    lnet_nid_same(&socklnd_registry.e[i].nid, nid)) {
			s = socklnd_registry.e[i].s;
		}
	}
	pthread_mutex_unlock(&socklnd_registry.lock);
	return s;
}
