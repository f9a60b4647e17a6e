/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peer shard of one CPT: peer NIs whose NID's home is this CPT
 * (lnet_cpt_of_peer), with their credits, queues and round robin. Each
 * carries the composition of the peer its NID belongs to (several NIDs for
 * a Multi-Rail peer), published there by the management lcore
 * (lnet_peer_dir.c), which each new one is told of. When net del and add
 * move a net to another CPT, the peer NI made in the new home replaces the
 * old one, which leaves its shard's table (lnet_peer_ni_retire) but stays
 * allocated until shutdown: messages, recovery and health notes may still
 * name it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_internal.h"
#include "rt_hop.h"

int
lnet_peer_table_init(struct lnet_peer_table *pt)
{
	unsigned int i;

	pt->npeer_nis = 0;
	memset(pt->last, 0, sizeof(pt->last));
	TAILQ_INIT(&pt->retired);
	pt->hash = calloc(LNET_PEER_HASH_SIZE, sizeof(*pt->hash));
	if (pt->hash == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < LNET_PEER_HASH_SIZE; i++) {
		TAILQ_INIT(&pt->hash[i]);
	}
	return 0;
}

static void
lnet_peer_ni_list_free(struct lnet_peer_ni_list *l)
{
	struct lnet_peer_ni *lpni;

	while ((lpni = TAILQ_FIRST(l)) != NULL) {
		TAILQ_REMOVE(l, lpni, link);
		lnet_stats_free(lpni->stats);
		free(lpni->rr);
		free(lpni->selv);
		free(lpni);
	}
}

void
lnet_peer_table_fini(struct lnet_peer_table *pt)
{
	unsigned int i;

	memset(pt->last, 0, sizeof(pt->last));
	if (pt->hash == NULL) {
		return;
	}
	for (i = 0; i < LNET_PEER_HASH_SIZE; i++) {
		lnet_peer_ni_list_free(&pt->hash[i]);
	}
	lnet_peer_ni_list_free(&pt->retired);
	free(pt->hash);
	pt->hash = NULL;
}

static unsigned int
lnet_peer_hash(const struct lnet_nid *nid)
{
	uint64_t lo;
	uint64_t hi;
	uint64_t h;

	/* Two loads and one multiply: every message of a peer hashes its NID here. */
	memcpy(&lo, &nid->nid_addr[0], sizeof(lo));
	memcpy(&hi, &nid->nid_addr[2], sizeof(hi));
	h = lo ^ (hi * 0xff51afd7ed558ccdULL) ^ ((uint64_t)nid->nid_type << 48) ^
	    ((uint64_t)nid->nid_num << 32);
	h *= 0x9e3779b97f4a7c15ULL;
	return (unsigned int)(h >> 32) % LNET_PEER_HASH_SIZE;
}

static struct lnet_peer_ni *
lnet_peer_ni_walk(struct lnet_cpt *c, const struct lnet_nid *nid, enum lnet_peer_last kind)
{
	struct lnet_peer_ni *lpni;

	TAILQ_FOREACH(lpni, &c->peers.hash[lnet_peer_hash(nid)], link) {
		if (lnet_nid_same(&lpni->nid, nid)) {
			c->peers.last[kind] = lpni;
			return lpni;
		}
	}
	return NULL;
}

/* Consecutive messages mostly name the same peer: the last one found is tried first. */
struct lnet_peer_ni *
lnet_peer_ni_find(struct lnet_cpt *c, const struct lnet_nid *nid)
{
	struct lnet_peer_ni *lpni = lnet_peer_ni_last(c, nid, LNET_PEER_LAST_DEST);

	return likely(lpni != NULL) ? lpni : lnet_peer_ni_walk(c, nid, LNET_PEER_LAST_DEST);
}

/* lnet_peer_ni_find_or_create() past its check of the last one found. */
struct lnet_peer_ni *
lnet_peer_ni_find_or_create_walk(struct lnet_cpt *c, const struct lnet_nid *nid, struct lnet_ni *ni)
{
	struct lnet_peer_ni *lpni = lnet_peer_ni_walk(c, nid, LNET_PEER_LAST_SENDER);

	if (lpni != NULL) {
		return lpni;
	}
	lpni = calloc(1, sizeof(*lpni));
	if (lpni == NULL) {
		return NULL;
	}
	lpni->stats = lnet_stats_alloc(c->ln->ncpts);
	if (lpni->stats == NULL) {
		free(lpni);
		return NULL;
	}
	lpni->nid = *nid;
	lpni->cpt = c->cpt;
	lnet_health_init(&lpni->health, LNET_MAX_HEALTH_VALUE);
	lpni->txcredits =
		ni != NULL ? ni->tun.peer_tx_credits : 0; /* remote: none, as the kernel's */
	lpni->mintxcredits = lpni->txcredits;
	TAILQ_INIT(&lpni->txq);
	/* The kernel's lpni_rtrcredits: peer_buffer_credits, else peer_credits. */
	lpni->rtrcredits = ni == NULL                    ? 0 :
			   ni->tun.peer_rtr_credits != 0 ? ni->tun.peer_rtr_credits :
							   ni->tun.peer_tx_credits;
	lpni->minrtrcredits = lpni->rtrcredits;
	TAILQ_INIT(&lpni->rtrq);
	TAILQ_INSERT_HEAD(&c->peers.hash[lnet_peer_hash(nid)], lpni, link);
	c->peers.npeer_nis++;
	if (!lnet_nid_is_lo0(nid)) {
		c->ln->mgmt->peer_learn(c->ln, nid, lpni);
	}
	return lpni;
}

/* A retirement on its way to the peer NI's shard. */
struct lnet_peer_ni_retiring {
	struct rt_hop hop;
	struct lnet *ln;
	struct lnet_peer_ni *lpni;
};

/* On @p lpni's shard: out of the table, so a lookup there makes a new one. */
static void
lnet_peer_ni_unhash_on_cpt(void *arg)
{
	struct lnet_peer_ni_retiring *r = arg;
	struct lnet_peer_ni *lpni = r->lpni;
	struct lnet_peer_table *pt = &r->ln->cpts[lpni->cpt]->peers;
	unsigned int k;

	LNET_OWNER_ASSERT(r->ln, lpni->cpt);
	if (!lpni->retired) {
		TAILQ_REMOVE(&pt->hash[lnet_peer_hash(&lpni->nid)], lpni, link);
		TAILQ_INSERT_TAIL(&pt->retired, lpni, link);
		lpni->retired = true;
		pt->npeer_nis--;
		for (k = 0; k < LNET_PEER_LAST_KINDS; k++) {
			if (pt->last[k] == lpni) {
				pt->last[k] = NULL;
			}
		}
	}
	free(r);
}

void
lnet_peer_ni_retire(struct lnet *ln, struct lnet_peer_ni *lpni)
{
	struct lnet_peer_ni_retiring *r = malloc(sizeof(*r));

	rt_rcu_publish((void **)&lpni->comp, NULL); /* selection and recovery leave it */
	if (r == NULL) {
		LNET_LOG(WARNING, "no memory: a moved net's old peer NI stays in its shard");
		return;
	}
	*r = (struct lnet_peer_ni_retiring){ .ln = ln, .lpni = lpni };
	rt_hop_send(&r->hop, ln->cpts[lpni->cpt]->lcore, lnet_peer_ni_unhash_on_cpt, r);
}

/* One probe of the published table's net index (lnet_ni_table_index_nets) in the common case. */
unsigned int
lnet_cpt_of_peer_net(struct lnet *ln, const struct lnet_nid *nid)
{
	const struct lnet_ni_table *t = lnet_ni_table_get(ln);
	uint32_t net = lnet_nid_net(nid);
	const struct lnet_net_cpts *e;
	unsigned int k;

	if (unlikely(t == NULL)) {
		return lnet_nid_cpt_hash(nid, ln->ncpts);
	}
	k = lnet_ni_net_slot(net, t->by_nid_mask);
	for (e = &t->by_net[k]; e->n != 0 && e->net_id != net; e = &t->by_net[k]) {
		k = (k + 1) & t->by_nid_mask;
	}
	if (likely(e->n == 1)) {
		return t->net_cpts[e->first];
	}
	return e->n == 0 ? lnet_nid_cpt_hash(nid, ln->ncpts) :
			   t->net_cpts[e->first + lnet_nid_cpt_hash(nid, e->n)];
}
