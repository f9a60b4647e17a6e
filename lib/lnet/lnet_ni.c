/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local NIs. The set of NIs is one published table: the management side
 * builds a new one and retires the old through RCU, so data lcores read it
 * without locks. Per-NI mutable state (tx credits) belongs to the NI's CPT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_internal.h"

/* Registry of LNDs, filled by constructors before main(); read-only after. */
#define LNET_LND_MAX 16
static const struct lnet_lnd_ops *g_lnds[LNET_LND_MAX];
static unsigned int g_nlnds;

void
lnet_lnd_register(const struct lnet_lnd_ops *ops)
{
	if (g_nlnds < LNET_LND_MAX && lnet_lnd_find(ops->type) == NULL) {
		g_lnds[g_nlnds++] = ops;
	}
}

const struct lnet_lnd_ops *
lnet_lnd_find(uint32_t type)
{
	unsigned int i;

	for (i = 0; i < g_nlnds; i++) {
		if (g_lnds[i]->type == type) {
			return g_lnds[i];
		}
	}
	return NULL;
}

const struct lnet_ni_table *
lnet_ni_table_get(struct lnet *ln)
{
	return rt_rcu_read((void *const *)&ln->ni_table);
}

struct lnet_ni *
lnet_ni_find_by_net(struct lnet *ln, uint32_t net)
{
	const struct lnet_ni_table *t = lnet_ni_table_get(ln);
	unsigned int i;

	for (i = 0; t != NULL && i < t->nnis; i++) {
		if (t->nis[i]->net_id == net) {
			return t->nis[i];
		}
	}
	return NULL;
}

struct lnet_ni *
lnet_ni_find_by_nid(struct lnet *ln, const struct lnet_nid *nid)
{
	const struct lnet_ni_table *t = lnet_ni_table_get(ln);
	unsigned int i;

	for (i = 0; t != NULL && i < t->nnis; i++) {
		if (lnet_nid_same(&t->nis[i]->nid, nid)) {
			return t->nis[i];
		}
	}
	return NULL;
}

static struct lnet_ni *
lnet_ni_alloc(struct lnet *ln, const struct lnet_nid *nid, const struct lnet_lnd_ops *lnd,
	      const struct lnet_ni_tunables *tun, unsigned int cpt)
{
	struct lnet_ni *ni = calloc(1, sizeof(*ni));

	if (ni == NULL) {
		return NULL;
	}
	ni->ln = ln;
	ni->nid = *nid;
	ni->net_id = lnet_nid_net(nid);
	ni->lnd = lnd;
	ni->cpt = (uint16_t)cpt;
	ni->tun = *tun;
	ni->credits_enabled = lnd->type != LNET_LND_LO;
	ni->any_cpt = lnd->type == LNET_LND_LO;
	ni->tq.credits = tun->max_tx_credits;
	ni->tq.mincredits = tun->max_tx_credits;
	ni->status = LNET_NI_STATUS_UP;
	/* As the kernel shows it: lo has no health, other NIs start healthy. */
	ni->health_value = lnd->type == LNET_LND_LO ? 0 : 1000;
	TAILQ_INIT(&ni->tq.queue);
	return ni;
}

/* Publish a copy of the table with @p ni appended. */
static int
lnet_ni_table_append(struct lnet *ln, struct lnet_ni *ni)
{
	struct lnet_ni_table *old = ln->ni_table;
	unsigned int n = old == NULL ? 0 : old->nnis;
	struct lnet_ni_table *t = malloc(sizeof(*t) + (n + 1) * sizeof(t->nis[0]));

	if (t == NULL) {
		return -ENOMEM;
	}
	if (n != 0) {
		memcpy(t->nis, old->nis, n * sizeof(t->nis[0]));
	}
	t->nis[n] = ni;
	t->nnis = n + 1;
	rt_rcu_publish((void **)&ln->ni_table, t);
	if (old != NULL && rt_rcu_retire(ln->rt, old, free) != 0) {
		/* Cannot defer: leak it rather than free under a reader. */
		LNET_LOG(WARNING, "NI table retire failed; old table kept");
	}
	return 0;
}

/*
 * Add and start an NI. Configuration: call on the management lcore, or
 * before data lcores run.
 */
int
lnet_ni_add(struct lnet *ln, const struct lnet_nid *nid, const struct lnet_lnd_ops *lnd,
	    const struct lnet_ni_tunables *tun, const void *lnd_opts, unsigned int cpt,
	    struct lnet_ni **out)
{
	struct lnet_ni *ni;
	int rc;

	if (cpt >= ln->ncpts || lnet_ni_find_by_nid(ln, nid) != NULL) {
		return cpt >= ln->ncpts ? -EINVAL : -EEXIST;
	}
	ni = lnet_ni_alloc(ln, nid, lnd, tun, cpt);
	if (ni == NULL) {
		return -ENOMEM;
	}
	ni->lnd_opts = lnd_opts;
	rc = lnd->startup(ni);
	ni->lnd_opts = NULL;
	if (rc != 0) {
		free(ni);
		return rc;
	}
	ni->started = true;
	rc = lnet_ni_table_append(ln, ni);
	if (rc != 0) {
		lnd->shutdown(ni);
		free(ni);
		return rc;
	}
	if (out != NULL) {
		*out = ni;
	}
	return 0;
}

int
lnet_ni_table_create(struct lnet *ln)
{
	const struct lnet_lnd_ops *lolnd = lnet_lnd_find(LNET_LND_LO);
	struct lnet_ni_tunables tun = { 0 };
	struct lnet_nid lo;

	if (lolnd == NULL) {
		LNET_LOG(ERR, "the loopback LND is not linked in");
		return -ENODEV;
	}
	lnet_nid_set_lo0(&lo);
	return lnet_ni_add(ln, &lo, lolnd, &tun, NULL, 0, &ln->loni);
}

/* On the NI's data lcore: the LND closes what it owns and completes what it holds. */
int
lnet_ni_shutdown_on_cpt(void *arg)
{
	struct lnet_ni *ni = arg;

	if (ni->started) {
		ni->lnd->shutdown(ni);
		ni->started = false;
	}
	return 0;
}

/* Stop every LND while lcores still run; from the thread taking LNet down. */
void
lnet_ni_shutdown_all(struct lnet *ln)
{
	struct lnet_ni_table *t = ln->ni_table;
	unsigned int i;

	for (i = t == NULL ? 0 : t->nnis; i-- > 0;) {
		lnet_call_on_cpt(ln, t->nis[i]->any_cpt ? 0 : t->nis[i]->cpt,
				 lnet_ni_shutdown_on_cpt, t->nis[i]);
	}
}

const void *
lnet_ni_lnd_opts(const struct lnet_ni *ni)
{
	return ni->lnd_opts;
}

struct rt_lcore *
lnet_ni_lcore(const struct lnet_ni *ni)
{
	return ni->ln->cpts[ni->any_cpt ? 0 : ni->cpt]->lcore;
}

/* At shutdown, after every lcore stopped: nothing reads the table any more. */
void
lnet_ni_table_destroy(struct lnet *ln)
{
	struct lnet_ni_table *t = ln->ni_table;
	unsigned int i;

	if (t == NULL) {
		return;
	}
	for (i = t->nnis; i-- > 0;) {
		free(t->nis[i]);
	}
	free(t);
	ln->ni_table = NULL;
	ln->loni = NULL;
}

const struct lnet_nid *
lnet_ni_nid(const struct lnet_ni *ni)
{
	return &ni->nid;
}

void *
lnet_ni_lnd_data(const struct lnet_ni *ni)
{
	return ni->lnd_data;
}

void
lnet_ni_set_lnd_data(struct lnet_ni *ni, void *data)
{
	ni->lnd_data = data;
}
