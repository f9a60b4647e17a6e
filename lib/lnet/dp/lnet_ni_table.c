/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local NIs as the data path reads them: the published NI table (RCU, no
 * lock), the references messages hold on NIs, what LNDs ask of their NI,
 * and the LND registry. The management plane builds and replaces the
 * table (mgmt/lnet_ni.c); an NI's state changes that an LND or health
 * reports go to it through the node's management hooks.
 */
#include <errno.h>

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
	return lnet_ni_lookup(lnet_ni_table_get(ln), nid);
}

/* ---- references held by messages ---- */

static inline void
lnet_ni_ref_add(struct lnet_ni *ni, unsigned int cpt, int64_t delta)
{
	int64_t *r = &ni->refs[cpt * LNET_NI_REF_STRIDE];

	if (ni->unref) {
		return;
	}

	/* Single writer per slot; atomic only so that net del may read it. */
	__atomic_store_n(r, __atomic_load_n(r, __ATOMIC_RELAXED) + delta, __ATOMIC_RELEASE);
}

/* Point @p slot (a message's txni or rxni) at @p ni, moving the reference. */
static void
lnet_msg_hold_ni(struct lnet_cpt *c, struct lnet_ni **slot, struct lnet_ni *ni)
{
	if (*slot != NULL) {
		lnet_ni_ref_add(*slot, c->cpt, -1);
	}
	*slot = ni;
	if (ni != NULL) {
		lnet_ni_ref_add(ni, c->cpt, 1);
	}
}

void
lnet_msg_set_txni(struct lnet_cpt *c, struct lnet_msg *msg, struct lnet_ni *ni)
{
	lnet_msg_hold_ni(c, &msg->txni, ni);
}

void
lnet_msg_set_rxni(struct lnet_cpt *c, struct lnet_msg *msg, struct lnet_ni *ni)
{
	lnet_msg_hold_ni(c, &msg->rxni, ni);
}

/* As a message is freed, on whichever lcore that happens: its slots are zeroed when it is reused. */
void
lnet_msg_put_nis(struct lnet_cpt *c, struct lnet_msg *msg)
{
	if (msg->txni != NULL) {
		lnet_ni_ref_add(msg->txni, c->cpt, -1);
	}
	if (msg->rxni != NULL) {
		lnet_ni_ref_add(msg->rxni, c->cpt, -1);
	}
}

void
lnet_ni_count_error(struct lnet_ni *ni)
{
	struct lnet_cpt *c = lnet_cpt_self(ni->ln);

	if (c != NULL) {
		c->counters.errors++;
	}
}

int
lnet_ni_credits(const struct lnet_ni *ni)
{
	return ni->tun.max_tx_credits;
}

int
lnet_ni_peer_credits(const struct lnet_ni *ni)
{
	return ni->tun.peer_tx_credits;
}

void
lnet_ni_set_peer_credits(struct lnet_ni *ni, int peer_credits)
{
	ni->tun.peer_tx_credits = peer_credits;
}

const char *
lnet_ni_ifname(const struct lnet_ni *ni)
{
	return ni->ifname;
}

void
lnet_ni_set_dev_node(struct lnet_ni *ni, int numa_node)
{
	const struct cfs_cpt_table *t = ni->ln->cpt_table;

	/* CPTs given by number alone have no node map: where the device is stays unknown. */
	ni->dev_cpt = t == NULL || numa_node < 0 ? CFS_CPT_ANY : cfs_cpt_of_node(t, numa_node);
}

unsigned int
lnet_ni_distance(const struct lnet *ln, const struct lnet_ni *ni, int md_cpt)
{
	int range = __atomic_load_n(&ln->tunables.numa_range, __ATOMIC_RELAXED);
	unsigned int floor = range > 0 ? (unsigned int)range : 0;
	unsigned int d;

	if (ln->cpt_table == NULL) {
		return floor; /* no topology: every NI is as close as any other */
	}
	d = cfs_cpt_distance(ln->cpt_table, md_cpt, ni->dev_cpt);
	return d < floor ? floor : d;
}

const struct lnet_ctl_lnd_tunables *
lnet_ni_lnd_tunables(const struct lnet_ni *ni)
{
	return ni->lnd_tun;
}

struct rt_lcore *
lnet_ni_lcore(const struct lnet_ni *ni)
{
	return ni->ln->cpts[ni->any_cpt ? 0 : ni->cpt]->lcore;
}

unsigned int
lnet_ni_lnd_timeout(const struct lnet_ni *ni)
{
	int t = __atomic_load_n(&ni->ln->tunables.lnd_timeout, __ATOMIC_RELAXED);

	return t < 1 ? 1U : (unsigned int)t;
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

/* ---- an NI's state, as its LND or health sees it, to the management plane ---- */

void
lnet_ni_link_state(struct lnet_ni *ni, bool up)
{
	ni->ln->mgmt->ni_state(ni, up, false);
}

void
lnet_ni_health_status(struct lnet_ni *ni, bool up)
{
	ni->ln->mgmt->ni_state(ni, up, true);
}
