/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peer directory (lnet_peer_dir.h): every peer, configured or made by
 * traffic or discovery, owned by the management lcore, which publishes each
 * peer's composition to the peer NIs of its NIDs. Runtime state of each
 * peer NI (credits, queues, counters) lives in the data lcores' shards;
 * peer show reads it from there. Peers keep insertion order so listings can
 * be paged with a cursor while peers come and go.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"
#include "lnet_peer_dir.h"
#include "lnet_route.h"

#define LNET_PEER_DIR_MIN_BUCKETS 1024U
#define LNET_PEER_TOMB ((struct lnet_peer *)1)

static uint64_t
lnet_nid_hash64(const struct lnet_nid *nid)
{
	uint64_t h = ((uint64_t)nid->nid_type << 48) ^ ((uint64_t)nid->nid_num << 32);
	unsigned int i;

	for (i = 0; i < LNET_NID_ADDR_WORDS; i++) {
		h = (h ^ nid->nid_addr[i]) * 0x9e3779b97f4a7c15ULL;
	}
	return h ^ (h >> 29);
}

static struct lnet_nid_slot *
lnet_dir_slot(struct lnet_peer_dir *d, const struct lnet_nid *nid, bool for_insert)
{
	unsigned int mask = d->nslots - 1;
	unsigned int i = (unsigned int)lnet_nid_hash64(nid) & mask;
	struct lnet_nid_slot *tomb = NULL;

	for (;;) {
		struct lnet_nid_slot *s = &d->slots[i];

		if (s->peer == NULL) {
			return for_insert && tomb != NULL ? tomb : (for_insert ? s : NULL);
		}
		if (s->peer == LNET_PEER_TOMB) {
			tomb = tomb == NULL ? s : tomb;
		} else if (lnet_nid_same(&s->nid, nid)) {
			return s;
		}
		i = (i + 1) & mask;
	}
}

static int
lnet_dir_resize(struct lnet_peer_dir *d, unsigned int nslots)
{
	struct lnet_nid_slot *old = d->slots;
	unsigned int n = d->nslots;
	unsigned int i;

	d->slots = calloc(nslots, sizeof(*d->slots));
	if (d->slots == NULL) {
		d->slots = old;
		return -ENOMEM;
	}
	d->nslots = nslots;
	d->used = 0;
	for (i = 0; i < n; i++) {
		if (old[i].peer != NULL && old[i].peer != LNET_PEER_TOMB) {
			*lnet_dir_slot(d, &old[i].nid, true) = old[i];
			d->used++;
		}
	}
	free(old);
	return 0;
}

static int
lnet_dir_index(struct lnet_peer_dir *d, const struct lnet_nid *nid, struct lnet_peer *p)
{
	struct lnet_nid_slot *s;

	if ((d->used + 1) * 2 > d->nslots) {
		int rc = lnet_dir_resize(d, d->nslots * 2);

		if (rc != 0) {
			return rc;
		}
	}
	s = lnet_dir_slot(d, nid, true);
	if (s->peer == NULL) {
		d->used++;
	}
	s->nid = *nid;
	s->peer = p;
	s->comp = p->comp;
	return 0;
}

static void
lnet_dir_unindex(struct lnet_peer_dir *d, const struct lnet_nid *nid)
{
	struct lnet_nid_slot *s = lnet_dir_slot(d, nid, false);

	if (s != NULL) {
		s->peer = LNET_PEER_TOMB;
	}
}

static struct lnet_peer *
lnet_dir_find(struct lnet_peer_dir *d, const struct lnet_nid *nid)
{
	struct lnet_nid_slot *s = lnet_dir_slot(d, nid, false);

	return s == NULL ? NULL : s->peer;
}

static void lnet_peer_reap(void *arg);

struct lnet_peer_dir *
lnet_peer_dir_get(struct lnet *ln)
{
	struct lnet_peer_dir *d = lnet_node(ln)->peer_dir;

	if (d != NULL) {
		return d;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		return NULL;
	}
	d->ln = ln;
	TAILQ_INIT(&d->peers);
	d->next_seq = 1;
	d->next_lock_ts = 1;
	d->slots = calloc(LNET_PEER_DIR_MIN_BUCKETS, sizeof(*d->slots));
	if (d->slots == NULL) {
		free(d);
		return NULL;
	}
	d->nslots = LNET_PEER_DIR_MIN_BUCKETS;
	rt_timer_init(&d->reaper, lnet_peer_reap, d);
	lnet_discovery_node_init(d);
	lnet_node(ln)->peer_dir = d;
	return d;
}

struct lnet_peer *
lnet_peer_find(struct lnet_peer_dir *d, const struct lnet_nid *nid)
{
	return lnet_dir_find(d, nid);
}

struct lnet_peer *
lnet_peer_by_seq(struct lnet_peer_dir *d, uint64_t seq)
{
	struct lnet_peer *p;

	TAILQ_FOREACH(p, &d->peers, link) {
		if (p->seq == seq) {
			return p;
		}
	}
	return NULL;
}

static void
lnet_peer_free(struct lnet_peer *p)
{
	lnet_peer_comp_free(
		p->comp); /* unpublished and past its grace period, or never published */
	free(p->lpnis);
	free(p->nis);
	free(p);
}

/* Dead peers, once nothing that fired on them is still running. */
static void
lnet_peer_reap(void *arg)
{
	struct lnet_peer_dir *d = arg;
	struct lnet_peer *p;

	while ((p = d->dead) != NULL) {
		d->dead = p->next_dead;
		if (p->comp != NULL &&
		    rt_rcu_retire(d->ln->rt, p->comp, lnet_peer_comp_free) == 0) {
			p->comp = NULL;
		} else if (p->comp != NULL) {
			p->comp = NULL; /* cannot defer: leak it rather than free under a reader */
		}
		lnet_peer_free(p);
	}
}

static int lnet_peer_append_nid(struct lnet_peer_dir *d, struct lnet_peer *p,
				const struct lnet_nid *nid);

struct lnet_peer *
lnet_peer_create(struct lnet_peer_dir *d, const struct lnet_nid *nid)
{
	struct lnet_peer *p = calloc(1, sizeof(*p));

	if (p == NULL) {
		return NULL;
	}
	p->seq = d->next_seq++;
	TAILQ_INIT(&p->held);
	if (lnet_peer_append_nid(d, p, nid) != 0) {
		lnet_peer_free(p);
		return NULL;
	}
	TAILQ_INSERT_TAIL(&d->peers, p, link);
	d->npeers++;
	lnet_discovery_peer_init(d, p);
	return p;
}

/* At shutdown, after the lcores stopped: held messages went with their CPTs. */
void
lnet_peer_dir_destroy(struct lnet *ln)
{
	struct lnet_peer_dir *d = lnet_node(ln)->peer_dir;
	struct lnet_peer *p;

	if (d == NULL) {
		return;
	}
	while ((p = TAILQ_FIRST(&d->peers)) != NULL) {
		TAILQ_REMOVE(&d->peers, p, link);
		lnet_peer_free(p);
	}
	while ((p = d->dead) != NULL) {
		d->dead = p->next_dead;
		lnet_peer_free(p);
	}
	free(d->slots);
	free(d);
	lnet_node(ln)->peer_dir = NULL;
}

static int
lnet_peer_append_nid(struct lnet_peer_dir *d, struct lnet_peer *p, const struct lnet_nid *nid)
{
	int rc;

	if (p->nnis == p->cap) {
		unsigned int cap = p->cap == 0 ? 2 : p->cap * 2;
		struct lnet_nid *n = realloc(p->nis, cap * sizeof(*n));
		struct lnet_peer_ni **l;

		if (n == NULL) {
			return -ENOMEM;
		}
		p->nis = n;
		l = realloc(p->lpnis, cap * sizeof(*l));
		if (l == NULL) {
			return -ENOMEM;
		}
		p->lpnis = l;
		p->cap = cap;
	}
	rc = lnet_dir_index(d, nid, p);
	if (rc == 0) {
		p->lpnis[p->nnis] = NULL;
		p->nis[p->nnis++] = *nid;
	}
	return rc;
}

int
lnet_peer_nid_add(struct lnet_peer_dir *d, struct lnet_peer *p, const struct lnet_nid *nid,
		  struct lnet_peer_ni *lpni)
{
	int rc = lnet_peer_append_nid(d, p, nid);

	if (rc == 0) {
		p->lpnis[p->nnis - 1] = lpni;
	}
	return rc;
}

struct lnet_peer_ni *
lnet_peer_nid_lpni(const struct lnet_peer *p, const struct lnet_nid *nid)
{
	unsigned int i;

	for (i = 0; i < p->nnis; i++) {
		if (lnet_nid_same(&p->nis[i], nid)) {
			return p->lpnis[i];
		}
	}
	return NULL;
}

/* Withdraw the composition from the peer NI of a NID the peer no longer has. */
static void
lnet_peer_ni_unpublish(struct lnet_peer_ni *lpni)
{
	if (lpni != NULL) {
		rt_rcu_publish((void **)&lpni->comp, NULL);
	}
}

void
lnet_peer_nid_remove(struct lnet_peer_dir *d, struct lnet_peer *p, const struct lnet_nid *nid)
{
	unsigned int i;

	for (i = 0; i < p->nnis; i++) {
		if (lnet_nid_same(&p->nis[i], nid)) {
			break;
		}
	}
	if (i == p->nnis) {
		return;
	}
	lnet_dir_unindex(d, nid);
	lnet_peer_ni_unpublish(p->lpnis[i]);
	/* Order is kept: the primary stays first, the others as they came. */
	memmove(&p->nis[i], &p->nis[i + 1], (p->nnis - i - 1) * sizeof(p->nis[0]));
	memmove(&p->lpnis[i], &p->lpnis[i + 1], (p->nnis - i - 1) * sizeof(p->lpnis[0]));
	p->nnis--;
}

void
lnet_peer_set_primary(struct lnet_peer *p, const struct lnet_nid *nid)
{
	struct lnet_peer_ni *lpni;
	struct lnet_nid n;
	unsigned int i;

	for (i = 1; i < p->nnis; i++) {
		if (lnet_nid_same(&p->nis[i], nid)) {
			n = p->nis[i];
			lpni = p->lpnis[i];
			memmove(&p->nis[1], &p->nis[0], i * sizeof(p->nis[0]));
			memmove(&p->lpnis[1], &p->lpnis[0], i * sizeof(p->lpnis[0]));
			p->nis[0] = n;
			p->lpnis[0] = lpni;
			return;
		}
	}
}

/* The composition of @p p: its NIDs by net, the primary's net and the primary first. */
void
lnet_peer_comp_free(void *arg)
{
	struct lnet_peer_comp *c = arg;
	unsigned int i;

	for (i = 0; c != NULL && i < c->nnis; i++) {
		free(c->nis[i].pref);
		free(c->nis[i].rtr);
	}
	free(c);
}

static struct lnet_peer_comp *
lnet_peer_comp_build(const struct lnet_peer_dir *d, const struct lnet_peer *p)
{
	size_t len = sizeof(struct lnet_peer_comp) + p->nnis * sizeof(struct lnet_peer_comp_ni) +
		     p->nnis * sizeof(struct lnet_sel_net);
	struct lnet_peer_comp *c = calloc(1, len);
	unsigned int i;
	unsigned int j;

	if (c == NULL) {
		return NULL;
	}
	c->nis = (struct lnet_peer_comp_ni *)(c + 1); /* the 8-aligned array first */
	c->nets = (struct lnet_sel_net *)(c->nis + p->nnis);
	c->primary = p->nis[0];
	c->multi_rail = p->mr;
	c->gated = !lnet_disc_uptodate(&p->disc);
	for (i = 0; i < p->nnis; i++) {
		uint32_t net = lnet_nid_net(&p->nis[i]);

		for (j = 0; j < c->nnets && c->nets[j].net_id != net; j++) {
		}
		if (j == c->nnets) {
			c->nets[c->nnets++] =
				(struct lnet_sel_net){ .net_id = net,
						       .health = LNET_SEL_MAX_HEALTH,
						       .sel_prio = LNET_SEL_PRIO_NONE };
		}
	}
	for (j = 0; j < c->nnets; j++) {
		c->nets[j].first_ni = c->nnis;
		for (i = 0; i < p->nnis; i++) {
			if (lnet_nid_net(&p->nis[i]) == c->nets[j].net_id) {
				c->nis[c->nnis++] =
					(struct lnet_peer_comp_ni){ .nid = p->nis[i],
								    .lpni = p->lpnis[i],
								    .sel_prio =
									    LNET_SEL_PRIO_NONE };
				c->nets[j].nr_nis++;
			}
		}
	}
	lnet_udsp_comp_fill(d->ln, c);
	return c;
}

/*
 * The refresh goes through the NID index, not the peer list: the slots
 * are one array read in order, and a peer is looked at only when one of
 * its NIDs is in the refresh's scope. A resize (peers added meanwhile)
 * starts the walk again; a peer seen twice changes nothing the second time.
 */
void
lnet_peer_dir_udsp_restart(struct lnet_peer_dir *d)
{
	d->udsp_slot = 0;
	d->udsp_slots = d->slots;
	d->udsp_active = true;
}

/* Peers a refresh takes at once: their compositions are fetched ahead. */
#define LNET_UDSP_BATCH 16

/* The compositions of the next peers in scope from the place on (at most @p max), on their way. */
static unsigned int
lnet_peer_dir_udsp_gather(struct lnet_peer_dir *d, struct lnet_peer_comp **out, unsigned int max)
{
	unsigned int n = 0;

	while (n < max && d->udsp_slot < d->nslots) {
		const struct lnet_nid_slot *s = &d->slots[d->udsp_slot++];

		if (s->peer != NULL && s->peer != LNET_PEER_TOMB && s->comp != NULL &&
		    lnet_udsp_nid_in_scope(d->ln, &s->nid)) {
			__builtin_prefetch(s->comp);
			__builtin_prefetch((const char *)s->comp + 64);
			out[n++] = s->comp;
		} else if ((d->udsp_slot & 1023) == 0) {
			break; /* a long run out of scope: let the caller look at the clock */
		}
	}
	return n;
}

bool
lnet_peer_dir_udsp_step(struct lnet_peer_dir *d, uint64_t deadline_us, unsigned int max,
			unsigned int *updated)
{
	struct lnet_peer_comp *c[LNET_UDSP_BATCH];
	unsigned int done = 0;

	if (d->udsp_slots != d->slots) {
		lnet_peer_dir_udsp_restart(d);
	}
	while (d->udsp_active && d->udsp_slot < d->nslots) {
		unsigned int want = max - done < LNET_UDSP_BATCH ? max - done : LNET_UDSP_BATCH;
		unsigned int n = lnet_peer_dir_udsp_gather(d, c, want);
		unsigned int i;

		for (i = 0; i < n; i++) {
			if (lnet_udsp_comp_update(d->ln, c[i])) {
				(*updated)++;
			}
		}
		done += n;
		if (done >= max || rt_now_us(d->ln->rt) >= deadline_us) {
			return false;
		}
	}
	d->udsp_active = false;
	return true;
}

void
lnet_peer_publish(struct lnet_peer_dir *d, struct lnet_peer *p)
{
	struct lnet_peer_comp *c = lnet_peer_comp_build(d, p);
	struct lnet_peer_comp *old = p->comp;
	unsigned int i;

	if (c == NULL) {
		LNET_LOG(WARNING, "peer %s: no memory to publish its NIDs; the old ones stay",
			 libcfs_nidstr(&p->nis[0]));
		return;
	}
	p->comp = c;
	for (i = 0; i < p->nnis; i++) {
		struct lnet_nid_slot *s = lnet_dir_slot(d, &p->nis[i], false);

		if (s != NULL && s->peer == p) {
			s->comp = c;
		}
	}
	for (i = 0; i < p->nnis; i++) {
		if (p->lpnis[i] != NULL) {
			rt_rcu_publish((void **)&p->lpnis[i]->comp, c);
		}
	}
	lnet_sel_gen_bump(d->ln); /* before the old one is retired */
	if (p->rtr_refs > 0) {
		lnet_route_gw_published(d, p); /* the routes' snapshot names the old one */
	}
	if (old != NULL && rt_rcu_retire(d->ln->rt, old, lnet_peer_comp_free) != 0) {
		LNET_LOG(WARNING, "peer composition retire failed; old one kept");
	}
}

void
lnet_peer_delete(struct lnet_peer_dir *d, struct lnet_peer *p, int error)
{
	unsigned int i;

	if (p->dead) {
		return;
	}
	lnet_discovery_peer_fini(d, p, error);
	if (p->rtr_refs > 0) {
		lnet_route_gw_gone(d, p);
	}
	for (i = 0; i < p->nnis; i++) {
		lnet_dir_unindex(d, &p->nis[i]);
		lnet_peer_ni_unpublish(p->lpnis[i]);
	}
	p->nnis = 0;
	TAILQ_REMOVE(&d->peers, p, link);
	d->npeers--;
	p->dead = true;
	p->next_dead = d->dead;
	d->dead = p;
	if (!rt_timer_pending(&d->reaper)) {
		rt_timer_arm(&d->reaper, 0);
	}
}

/*
 * peer add and peer del, by the rules of 2.17's peer.c (lnet_peer_add,
 * lnet_add_peer_ni, lnet_peer_add_nid, lnet_del_peer_ni, lnet_peer_del_nid,
 * lnet_reset_peer). What we carry out, in our words:
 *
 * Adding a primary (peer add --prim_nid P; LNetAddPeer's, unconfigured):
 *  - no peer has P: a new peer, P alone, configured unless LNetAddPeer's,
 *    locked with --lock_prim;
 *  - a configured peer has P: -EEXIST when P is not its primary, -EPERM
 *    when its Multi-Rail flag is not the one asked for, else nothing at all
 *    (no lock is taken, nothing else changes);
 *  - an unconfigured peer whose primary is locked (LNetAddPeer's) has P:
 *    -EEXIST when P is that primary, -EALREADY when it is another NID;
 *  - LNetAddPeer without a lock, on an unconfigured peer whose primary is
 *    P: -EEXIST, nothing changes;
 *  - otherwise the peer traffic, discovery or a route made is deleted,
 *    with every NID it had, and a new one made as above. A gateway's peer
 *    cannot be deleted: -EBUSY, and it stays as it was. (The kernel also
 *    marks it deleted, which stops its discovery for good; we do not.)
 *
 * Adding NIDs (peer add --prim_nid P --nid N...): each N in turn, stopping
 * at the first refusal, as separate requests: P must be some peer's NID
 * (-ENOENT), that peer configured when the request is (-ENOENT), P its
 * primary (-ENODEV), its Multi-Rail flag the one asked for (-EPERM). Then:
 *  - N is the peer's already (or is P): nothing;
 *  - a configured peer has N: -EEXIST;
 *  - an unconfigured peer has N as a secondary NID: N moves, the other
 *    peer keeps the rest;
 *  - an unconfigured peer has N as its primary: that whole peer is
 *    deleted (its routes go to the peer that now has N) and N added; but
 *    when its primary is locked and it has other NIDs, both peers are
 *    marked BAD_CONFIG and nothing is added (no error). When its lock is
 *    older than ours (or we have none), N becomes our primary, with its
 *    lock and lock time;
 *  - a second NID on one net of a non-Multi-Rail peer: -ENOTUNIQ (after
 *    the above);
 *  - --lock_prim locks the primary (again) with each NID added.
 *
 * Deleting (peer del --prim_nid P [--nid N]): P must be some peer's NID
 * (-ENOENT) and its primary (-ENODEV); a gateway's peer stays (-EBUSY).
 * Without N, or N == P: the peer is deleted, but a locked primary without
 * --force keeps the peer with its primary alone. Each other N in turn:
 * -ENOENT when no peer has it, -ECHILD when another peer does; removed.
 */
struct lnet_peer_add_args {
	struct lnet *ln;
	const struct lnet_nid *prim;
	const struct lnet_nid *nids;
	unsigned int n;
	bool mr;
	bool lock_or_force; /* add: lock the primary; del: delete a locked one too */
	char *err;
	size_t errlen;
	bool not_configured; /* add: LNetAddPeer's, which discovery may still change */
	bool nids_only;      /* add: the NIDs of an existing peer (lnet_add_peer_ni with a NID) */
};

static bool
lnet_peer_has_net(const struct lnet_peer *p, uint32_t net)
{
	unsigned int i;

	for (i = 0; i < p->nnis; i++) {
		if (lnet_nid_net(&p->nis[i]) == net) {
			return true;
		}
	}
	return false;
}

static void
lnet_peer_lock_now(struct lnet_peer_dir *d, struct lnet_peer *p)
{
	p->locked = true;
	p->lock_ts = d->next_lock_ts++;
}

/* The kernel's lnet_peer_add(): peer add of a primary NID alone. */
static int
lnet_peer_add_primary(struct lnet_peer_dir *d, struct lnet_peer_add_args *a)
{
	struct lnet_peer *p = lnet_dir_find(d, a->prim);
	char s[LNET_NIDSTR_SIZE];
	bool same = p != NULL && lnet_nid_same(&p->nis[0], a->prim);

	if (p != NULL && p->configured) {
		if (!same) {
			snprintf(a->err, a->errlen, "%s is a NID of peer %s, not a primary NID",
				 libcfs_nidstr_r(a->prim, s, sizeof(s)), libcfs_nidstr(&p->nis[0]));
			return -EEXIST;
		}
		if (p->mr != a->mr) {
			snprintf(a->err, a->errlen, "peer %s is %sMulti-Rail",
				 libcfs_nidstr_r(a->prim, s, sizeof(s)), p->mr ? "" : "not ");
			return -EPERM;
		}
		return 0;
	}
	if (p != NULL && p->locked) {
		snprintf(a->err, a->errlen, "peer %s has a locked primary NID",
			 libcfs_nidstr(&p->nis[0]));
		return same ? -EEXIST : -EALREADY;
	}
	if (p != NULL && same && a->not_configured && !a->lock_or_force) {
		snprintf(a->err, a->errlen, "peer %s exists", libcfs_nidstr(&p->nis[0]));
		return -EEXIST;
	}
	if (p != NULL && p->rtr_refs > 0) {
		snprintf(a->err, a->errlen, "peer %s is a gateway: it cannot be made again",
			 libcfs_nidstr(&p->nis[0]));
		return -EBUSY;
	}
	if (p != NULL) {
		lnet_peer_delete(d, p, -EHOSTUNREACH);
	}
	p = lnet_peer_create(d, a->prim);
	if (p == NULL) {
		return -ENOMEM;
	}
	p->mr = a->mr;
	p->configured = !a->not_configured;
	if (a->lock_or_force) {
		lnet_peer_lock_now(d, p);
	}
	lnet_peer_publish(d, p);
	lnet_peer_want_lpnis(d, p);
	return 0;
}

/* The kernel's lnet_peer_add_nid(): @p nid to @p p, taken from the peer that has it. */
static int
lnet_peer_add_one_nid(struct lnet_peer_dir *d, struct lnet_peer_add_args *a, struct lnet_peer *p,
		      const struct lnet_nid *nid)
{
	struct lnet_peer *q = lnet_dir_find(d, nid);
	struct lnet_peer_ni *lpni = NULL;
	char s[LNET_NIDSTR_SIZE];
	bool take_primary = false;
	int rc;

	if (q == p || lnet_nid_is_any(nid)) {
		return 0;
	}
	if (q != NULL && q->configured) {
		snprintf(a->err, a->errlen, "%s already belongs to peer %s",
			 libcfs_nidstr_r(nid, s, sizeof(s)), libcfs_nidstr(&q->nis[0]));
		return -EEXIST;
	}
	if (q != NULL && lnet_nid_same(&q->nis[0], nid)) {
		if (q->locked && q->nnis > 1) {
			/* Both say the NID is theirs: the kernel flags both, and adds nothing. */
			q->bad_config = true;
			p->bad_config = true;
			return 0;
		}
		if (q->locked && (!p->locked || q->lock_ts < p->lock_ts)) {
			take_primary = true; /* the NID locked first stays a primary */
			p->locked = true;
			p->lock_ts = q->lock_ts;
		}
		lpni = lnet_peer_nid_lpni(q, nid);
		lnet_peer_delete(d, q, -EHOSTUNREACH); /* its routes resolve to @p p again */
	} else if (q != NULL) {
		lpni = lnet_peer_nid_lpni(q, nid);
		lnet_peer_nid_remove(d, q, nid);
		lnet_peer_publish(d, q);
	}
	if (!p->mr && lnet_peer_has_net(p, lnet_nid_net(nid))) {
		snprintf(a->err, a->errlen, "peer %s is not Multi-Rail: one NID a net",
			 libcfs_nidstr(&p->nis[0]));
		return -ENOTUNIQ;
	}
	rc = lnet_peer_nid_add(d, p, nid, lpni);
	if (rc != 0) {
		return rc;
	}
	if (take_primary) {
		lnet_peer_set_primary(p, nid);
	}
	if (a->lock_or_force) {
		lnet_peer_lock_now(d, p);
	}
	return 0;
}

/* The kernel's lnet_add_peer_ni() with a NID, for each of @p a's NIDs in turn. */
static int
lnet_peer_add_nids(struct lnet_peer_dir *d, struct lnet_peer_add_args *a)
{
	char s[LNET_NIDSTR_SIZE];
	struct lnet_peer *p = NULL;
	unsigned int i;
	int rc = 0;

	for (i = 0; i < a->n && rc == 0; i++) {
		struct lnet_peer *q = lnet_dir_find(d, a->prim);

		if (q == NULL || (!a->not_configured && !q->configured)) {
			snprintf(a->err, a->errlen, "no configured peer with primary NID %s",
				 libcfs_nidstr_r(a->prim, s, sizeof(s)));
			rc = -ENOENT;
		} else if (!lnet_nid_same(&q->nis[0], a->prim)) {
			snprintf(a->err, a->errlen, "%s is not the primary NID of peer %s",
				 libcfs_nidstr_r(a->prim, s, sizeof(s)), libcfs_nidstr(&q->nis[0]));
			rc = -ENODEV;
		} else if (q->mr != a->mr) {
			snprintf(a->err, a->errlen, "peer %s is %sMulti-Rail",
				 libcfs_nidstr_r(a->prim, s, sizeof(s)), q->mr ? "" : "not ");
			rc = -EPERM;
		} else {
			if (p != NULL && p != q) {
				lnet_peer_publish(d, p);
			}
			p = q;
			rc = lnet_peer_add_one_nid(d, a, p, &a->nids[i]);
		}
	}
	if (p != NULL && !p->dead) {
		lnet_peer_publish(d, p);
		lnet_peer_want_lpnis(d, p);
	}
	return rc;
}

static int
lnet_peer_add_on_mgmt(void *arg)
{
	struct lnet_peer_add_args *a = arg;
	struct lnet_peer_dir *d = lnet_peer_dir_get(a->ln);
	int rc = 0;

	if (d == NULL) {
		return -ENOMEM;
	}
	if (!a->nids_only) {
		rc = lnet_peer_add_primary(d, a);
	}
	return rc == 0 ? lnet_peer_add_nids(d, a) : rc;
}

struct lnet_peer *
lnet_peer_get(struct lnet_peer_dir *d, const struct lnet_nid *nid)
{
	struct lnet_peer *p = lnet_dir_find(d, nid);

	if (p == NULL) {
		p = lnet_peer_create(d, nid);
		if (p == NULL) {
			return NULL;
		}
		lnet_peer_publish(d, p);
		lnet_peer_want_lpnis(d, p);
	}
	return p;
}

/* A peer NI a shard made (traffic, or asked by lnet_peer_want_lpnis), told to mgmt. */
struct lnet_peer_learn {
	struct rt_hop hop; /* a full ring is retried, never lost */
	struct lnet *ln;
	struct lnet_nid nid;
	struct lnet_peer_ni *lpni;
};

/* Record where @p lpni is, so the peer's composition reaches it and lists its credits. */
void
lnet_peer_learn_lpni(struct lnet_peer_dir *d, const struct lnet_nid *nid, struct lnet_peer_ni *lpni)
{
	struct lnet_peer *p = lnet_dir_find(d, nid);
	unsigned int i;

	if (p == NULL) {
		p = lnet_peer_create(d, nid);
		if (p == NULL) {
			return; /* unlisted; its messages still come here and try again */
		}
	}
	for (i = 0; i < p->nnis; i++) {
		struct lnet_peer_ni *old = p->lpnis[i];

		if (!lnet_nid_same(&p->nis[i], nid) || old == lpni) {
			continue;
		}
		if (lpni->cpt != lnet_cpt_of_peer(d->ln, nid)) {
			lnet_peer_ni_retire(d->ln, lpni); /* its net moved on since it was made */
			return;
		}
		p->lpnis[i] = lpni;
		lnet_peer_publish(d, p);
		if (old != NULL) {
			lnet_peer_ni_retire(d->ln,
					    old); /* its net moved here: the new one takes over */
		}
		return;
	}
	if (p->comp == NULL) {
		lnet_peer_publish(d, p);
	}
}

static void
lnet_peer_learn_on_mgmt(void *arg)
{
	struct lnet_peer_learn *l = arg;
	struct lnet_peer_dir *d = lnet_peer_dir_get(l->ln);

	if (d != NULL) {
		lnet_peer_learn_lpni(d, &l->nid, l->lpni);
	}
	free(l);
}

/*
 * A data lcore created a peer NI for @p nid: as in the kernel, a peer with
 * that NID as its primary (not Multi-Rail until discovery says so) appears
 * in the directory, so peer show lists the peers traffic created, and the
 * peer NI gets the peer's composition. A full ring is retried (rt_hop).
 */
void
lnet_peer_dir_learn(struct lnet *ln, const struct lnet_nid *nid, struct lnet_peer_ni *lpni)
{
	struct lnet_peer_learn *l = malloc(sizeof(*l));

	if (l == NULL) {
		return;
	}
	*l = (struct lnet_peer_learn){ .ln = ln, .nid = *nid, .lpni = lpni };
	rt_hop_send(&l->hop, rt_mgmt_lcore(ln->rt), lnet_peer_learn_on_mgmt, l);
}

/* On the NID's shard: make its peer NI, which lnet_peer_dir_learn reports. */
static void
lnet_peer_ni_ensure_on_cpt(void *arg)
{
	struct lnet_peer_learn *l = arg;
	struct lnet_cpt *c = lnet_cpt_self(l->ln);
	struct lnet_ni *ni = lnet_ni_find_by_net(l->ln, lnet_nid_net(&l->nid));

	struct lnet_peer_ni *lpni = lnet_peer_ni_find(c, &l->nid);

	if (lpni == NULL) {
		/* A NID on a remote net has one too (no credits): routed sends name it. */
		lnet_peer_ni_find_or_create(c, &l->nid, ni); /* which tells mgmt */
	} else if (lpni != NULL) {
		lnet_peer_dir_learn(l->ln, &l->nid, lpni); /* made for a peer since merged away */
	}
	free(l);
}

/*
 * Ask the shards for the peer NIs of @p p's NIDs that mgmt has not seen
 * yet, those on nets we have no NI on too: as in the kernel's peer table,
 * every NID of a known peer has its peer NI, so a send to any of them
 * finds the peer's composition and selection picks the NID on a local
 * net (a Multi-Rail peer whose primary NID is on another net is still
 * reached directly).
 */
void
lnet_peer_want_lpnis(struct lnet_peer_dir *d, struct lnet_peer *p)
{
	unsigned int i;

	for (i = 0; i < p->nnis; i++) {
		struct lnet_peer_learn *l;

		if (p->lpnis[i] != NULL) {
			continue;
		}
		l = malloc(sizeof(*l));
		if (l == NULL) {
			return; /* made when traffic first goes there instead */
		}
		*l = (struct lnet_peer_learn){ .ln = d->ln, .nid = p->nis[i] };
		rt_hop_send(&l->hop, d->ln->cpts[lnet_cpt_of_peer(d->ln, &p->nis[i])]->lcore,
			    lnet_peer_ni_ensure_on_cpt, l);
	}
}

int
lnet_ctl_peer_add(const struct lnet_nid *prim, const struct lnet_nid *nids, unsigned int n, bool mr,
		  char *err, size_t errlen)
{
	return lnet_ctl_peer_add_lock(prim, nids, n, mr, false, err, errlen);
}

int
lnet_ctl_peer_add_lock(const struct lnet_nid *prim, const struct lnet_nid *nids, unsigned int n,
		       bool mr, bool lock_prim, char *err, size_t errlen)
{
	struct lnet_peer_add_args a = {
		lnet_instance(), prim, nids, n, mr, lock_prim, err, errlen
	};

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (prim == NULL || lnet_nid_is_any(prim) || (n > 0 && nids == NULL)) {
		snprintf(err, errlen, "a primary NID is required");
		return -EINVAL;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_peer_add_on_mgmt, &a);
}

int
lnet_ctl_peer_add_nids(const struct lnet_nid *prim, const struct lnet_nid *nids, unsigned int n,
		       bool mr, bool lock_prim, char *err, size_t errlen)
{
	struct lnet_peer_add_args a = { lnet_instance(), prim, nids,   n,     mr,
					lock_prim,       err,  errlen, false, true };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (prim == NULL || lnet_nid_is_any(prim) || n == 0 || nids == NULL) {
		snprintf(err, errlen, "a primary NID and NIDs are required");
		return -EINVAL;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_peer_add_on_mgmt, &a);
}

/*
 * LNetAddPeer's peer: as the kernel's lnet_add_peer_ni without
 * LNET_PEER_CONFIGURED, so discovery may add the peer's other NIDs to it.
 */
int
lnet_peer_add_api(const struct lnet_nid *prim, bool mr, bool lock_prim, char *err, size_t errlen)
{
	struct lnet_peer_add_args a = { lnet_instance(), prim, NULL,   0,   mr,
					lock_prim,       err,  errlen, true };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_peer_add_on_mgmt, &a);
}

/* The kernel's lnet_del_peer_ni(), for the peer (no NIDs) or each of the NIDs in turn. */
static int
lnet_peer_del_one(struct lnet_peer_dir *d, struct lnet_peer_add_args *a, const struct lnet_nid *nid)
{
	struct lnet_peer *p = lnet_dir_find(d, a->prim);
	char s[LNET_NIDSTR_SIZE];
	struct lnet_peer *owner;

	if (p == NULL) {
		snprintf(a->err, a->errlen, "no peer with primary NID %s",
			 libcfs_nidstr_r(a->prim, s, sizeof(s)));
		return -ENOENT;
	}
	if (!lnet_nid_same(&p->nis[0], a->prim)) {
		snprintf(a->err, a->errlen, "%s is not the primary NID of peer %s",
			 libcfs_nidstr_r(a->prim, s, sizeof(s)), libcfs_nidstr(&p->nis[0]));
		return -ENODEV;
	}
	if (p->rtr_refs > 0) {
		snprintf(a->err, a->errlen, "%s is a router. Can not be deleted",
			 libcfs_nidstr(&p->nis[0]));
		return -EBUSY;
	}
	if (nid == NULL || lnet_nid_same(nid, a->prim)) {
		if (p->locked && !a->lock_or_force) {
			/* lnet_reset_peer(): the locked primary stays, the other NIDs go. */
			while (p->nnis > 1) {
				lnet_peer_nid_remove(d, p, &p->nis[p->nnis - 1]);
			}
			lnet_peer_publish(d, p);
		} else {
			lnet_peer_delete(d, p, -EHOSTUNREACH);
		}
		return 0;
	}
	owner = lnet_dir_find(d, nid);
	if (owner != p) {
		snprintf(a->err, a->errlen, "%s is not a secondary NID of peer %s",
			 libcfs_nidstr_r(nid, s, sizeof(s)), libcfs_nidstr(a->prim));
		return owner != NULL ? -ECHILD : -ENOENT;
	}
	lnet_peer_nid_remove(d, p, nid);
	lnet_peer_publish(d, p);
	return 0;
}

static int
lnet_peer_del_on_mgmt(void *arg)
{
	struct lnet_peer_add_args *a = arg;
	struct lnet_peer_dir *d = lnet_peer_dir_get(a->ln);
	unsigned int i;
	int rc = 0;

	if (d == NULL) {
		return -ENOMEM;
	}
	if (a->n == 0) {
		return lnet_peer_del_one(d, a, NULL);
	}
	for (i = 0; i < a->n && rc == 0; i++) {
		rc = lnet_peer_del_one(d, a, &a->nids[i]);
	}
	return rc;
}

int
lnet_ctl_peer_del(const struct lnet_nid *prim, const struct lnet_nid *nids, unsigned int n,
		  char *err, size_t errlen)
{
	return lnet_ctl_peer_del_force(prim, nids, n, false, err, errlen);
}

int
lnet_ctl_peer_del_force(const struct lnet_nid *prim, const struct lnet_nid *nids, unsigned int n,
			bool force, char *err, size_t errlen)
{
	struct lnet_peer_add_args a = { lnet_instance(), prim, nids, n, false, force, err, errlen };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (prim == NULL || lnet_nid_is_any(prim)) {
		snprintf(err, errlen, "a primary NID is required");
		return -EINVAL;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_peer_del_on_mgmt, &a);
}

struct lnet_peer_list_args {
	struct lnet *ln;
	uint64_t cursor;
	const struct lnet_nid *only;
	struct lnet_ctl_peer *out;
	unsigned int max;
	uint64_t next;
};

void
lnet_peer_export(const struct lnet_peer *p, struct lnet_ctl_peer *o)
{
	unsigned int n = p->nnis < LNET_CTL_PEER_MAX_NIS ? p->nnis : LNET_CTL_PEER_MAX_NIS;

	o->seq = p->seq;
	o->mr = p->mr;
	o->nnis = n;
	o->nnis_total = p->nnis;
	memcpy(o->nis, p->nis, n * sizeof(o->nis[0]));
	o->state = lnet_discovery_state_bits(p);
}

/* Peers whose sequence is >= cursor, in order; next = 0 when done. */
static int
lnet_peer_list_on_mgmt(void *arg)
{
	struct lnet_peer_list_args *a = arg;
	struct lnet_peer_dir *d = lnet_node(a->ln)->peer_dir;
	struct lnet_peer *p;
	unsigned int n = 0;

	a->next = 0;
	if (d == NULL) {
		return 0;
	}
	if (a->only != NULL) {
		p = lnet_dir_find(d, a->only);
		if (p != NULL && a->max > 0) {
			lnet_peer_export(p, &a->out[n++]);
		}
		return (int)n;
	}
	TAILQ_FOREACH(p, &d->peers, link) {
		if (p->seq < a->cursor) {
			continue;
		}
		if (n == a->max) {
			a->next = p->seq;
			break;
		}
		lnet_peer_export(p, &a->out[n++]);
	}
	return (int)n;
}

int
lnet_ctl_peer_list(uint64_t cursor, const struct lnet_nid *only, struct lnet_ctl_peer *out,
		   unsigned int max, uint64_t *next)
{
	struct lnet_peer_list_args a = { lnet_instance(), cursor, only, out, max, 0 };
	int rc;

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	rc = rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_peer_list_on_mgmt, &a);
	*next = a.next;
	return rc;
}

struct lnet_peer_ni_args {
	struct lnet *ln;
	const struct lnet_nid *nid;
	struct lnet_ctl_peer_ni *out;
};

/* On the shard's data lcore: the runtime state, or what a new peer NI would have. */
static int
lnet_peer_ni_state_on_cpt(void *arg)
{
	struct lnet_peer_ni_args *a = arg;
	struct lnet_cpt *c = lnet_cpt_self(a->ln);
	struct lnet_peer_ni *lpni = lnet_peer_ni_find(c, a->nid);
	struct lnet_ni *ni = lnet_ni_find_by_net(a->ln, lnet_nid_net(a->nid));
	int credits = ni != NULL ? ni->tun.peer_tx_credits : 0;
	int rtr = ni != NULL ?
			  (ni->tun.peer_rtr_credits != 0 ? ni->tun.peer_rtr_credits : credits) :
			  0;
	struct lnet_ctl_peer_ni *o = a->out;

	memset(o, 0, sizeof(*o));
	o->max_tx_credits = credits;
	o->tx_credits = lpni != NULL ? lpni->txcredits : credits;
	o->min_tx_credits = lpni != NULL ? lpni->mintxcredits : credits;
	o->txqnob = lpni != NULL ? lpni->txqnob : 0;
	o->rtr_credits = lpni != NULL ? lpni->rtrcredits : rtr;
	o->min_rtr_credits = lpni != NULL ? lpni->minrtrcredits : rtr;
	if (lpni != NULL) {
		uint64_t by_type[LNET_STATS_KINDS][LNET_STATS_NTYPES];
		uint64_t total[LNET_STATS_KINDS];

		/* Every CPT that completed a message of this peer NI counted it in its slot. */
		lnet_stats_sum(lpni->stats, a->ln->ncpts, by_type, total);
		o->send_count = total[LNET_STATS_SEND];
		o->recv_count = total[LNET_STATS_RECV];
		o->drop_count = total[LNET_STATS_DROP];
		lnet_stats_by_type(by_type[LNET_STATS_SEND], o->sent);
		lnet_stats_by_type(by_type[LNET_STATS_RECV], o->received);
		lnet_stats_by_type(by_type[LNET_STATS_DROP], o->dropped);
	}
	if (lpni != NULL) {
		const struct lnet_health *h = &lpni->health;

		o->health_value = lnet_health_value(h);
		o->hs_dropped =
			__atomic_load_n(&h->hs[LNET_MSG_STATUS_REMOTE_DROPPED], __ATOMIC_RELAXED);
		o->hs_timeout =
			__atomic_load_n(&h->hs[LNET_MSG_STATUS_REMOTE_TIMEOUT], __ATOMIC_RELAXED);
		o->hs_error =
			__atomic_load_n(&h->hs[LNET_MSG_STATUS_REMOTE_ERROR], __ATOMIC_RELAXED);
		o->hs_network_timeout =
			__atomic_load_n(&h->hs[LNET_MSG_STATUS_NETWORK_TIMEOUT], __ATOMIC_RELAXED);
		o->ping_count = lnet_health_ping_count(h);
		o->next_ping = __atomic_load_n(&h->next_ping, __ATOMIC_RELAXED);
	} else {
		o->health_value = LNET_MAX_HEALTH_VALUE; /* what a new one starts with */
	}
	return 0;
}

int
lnet_ctl_peer_ni_state(const struct lnet_nid *nid, struct lnet_ctl_peer_ni *out)
{
	struct lnet_peer_ni_args a = { lnet_instance(), nid, out };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	return rt_lcore_call(a.ln->cpts[lnet_cpt_of_peer(a.ln, nid)]->lcore,
			     lnet_peer_ni_state_on_cpt, &a);
}
