/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peer directory: configured peers (primary NID, Multi-Rail flag, their
 * NIDs), owned by the management lcore. Runtime state of each peer NI
 * (credits, queues, counters) lives in the data lcores' shards; peer show
 * reads it from there. Peers keep insertion order so listings can be paged
 * with a cursor while peers come and go.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_internal.h"

#define LNET_PEER_DIR_MIN_BUCKETS 1024U
#define LNET_PEER_NI_MAX_HEALTH 1000 /* the kernel's LNET_MAX_HEALTH_VALUE */

struct lnet_peer {
	TAILQ_ENTRY(lnet_peer) link;
	uint64_t seq;             /* position for paging, increasing */
	bool mr;
	bool configured;          /* added by peer add / import, not learned from traffic */
	bool locked;              /* primary NID locked (peer add --lock_prim) */
	unsigned int nnis;
	unsigned int cap;
	struct lnet_nid *nis;     /* nis[0] is the primary NID */
};

TAILQ_HEAD(lnet_peer_list, lnet_peer);

/* NID -> peer, open addressing with linear probing; resized at 50% load. */
struct lnet_nid_slot {
	struct lnet_nid nid;
	struct lnet_peer *peer;   /* NULL: empty; LNET_PEER_TOMB: deleted */
};

#define LNET_PEER_TOMB ((struct lnet_peer *)1)

struct lnet_peer_dir {
	struct lnet_peer_list peers;
	uint64_t next_seq;
	unsigned int npeers;
	struct lnet_nid_slot *slots;
	unsigned int nslots;
	unsigned int used;        /* live + tombstones */
};

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

static struct lnet_peer_dir *
lnet_dir_get(struct lnet *ln)
{
	struct lnet_peer_dir *d = ln->peer_dir;

	if (d != NULL) {
		return d;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		return NULL;
	}
	TAILQ_INIT(&d->peers);
	d->next_seq = 1;
	d->slots = calloc(LNET_PEER_DIR_MIN_BUCKETS, sizeof(*d->slots));
	if (d->slots == NULL) {
		free(d);
		return NULL;
	}
	d->nslots = LNET_PEER_DIR_MIN_BUCKETS;
	ln->peer_dir = d;
	return d;
}

void
lnet_peer_dir_destroy(struct lnet *ln)
{
	struct lnet_peer_dir *d = ln->peer_dir;
	struct lnet_peer *p;

	if (d == NULL) {
		return;
	}
	while ((p = TAILQ_FIRST(&d->peers)) != NULL) {
		TAILQ_REMOVE(&d->peers, p, link);
		free(p->nis);
		free(p);
	}
	free(d->slots);
	free(d);
	ln->peer_dir = NULL;
}

static int
lnet_peer_append_nid(struct lnet_peer_dir *d, struct lnet_peer *p, const struct lnet_nid *nid)
{
	int rc;

	if (p->nnis == p->cap) {
		unsigned int cap = p->cap == 0 ? 2 : p->cap * 2;
		struct lnet_nid *n = realloc(p->nis, cap * sizeof(*n));

		if (n == NULL) {
			return -ENOMEM;
		}
		p->nis = n;
		p->cap = cap;
	}
	rc = lnet_dir_index(d, nid, p);
	if (rc == 0) {
		p->nis[p->nnis++] = *nid;
	}
	return rc;
}

struct lnet_peer_add_args {
	struct lnet *ln;
	const struct lnet_nid *prim;
	const struct lnet_nid *nids;
	unsigned int n;
	bool mr;
	bool lock_or_force;       /* add: lock the primary; del: delete a locked one too */
	char *err;
	size_t errlen;
};

static int
lnet_peer_add_check(struct lnet_peer_dir *d, struct lnet_peer_add_args *a, struct lnet_peer *p)
{
	char s[LNET_NIDSTR_SIZE];
	unsigned int i;

	if (p != NULL && !lnet_nid_same(&p->nis[0], a->prim)) {
		snprintf(a->err, a->errlen, "%s is a NID of peer %s, not a primary NID",
			 libcfs_nidstr_r(a->prim, s, sizeof(s)), libcfs_nidstr(&p->nis[0]));
		return -EEXIST;
	}
	if (p != NULL && a->n > 0 && !p->mr) {
		snprintf(a->err, a->errlen, "peer %s is not Multi-Rail: it has one NID",
			 libcfs_nidstr_r(a->prim, s, sizeof(s)));
		return -EPERM;
	}
	if (p == NULL && !a->mr && a->n > 0) {
		snprintf(a->err, a->errlen, "a non-Multi-Rail peer has only its primary NID");
		return -EINVAL;
	}
	for (i = 0; i < a->n; i++) {
		struct lnet_peer *owner = lnet_dir_find(d, &a->nids[i]);

		if (owner != NULL || lnet_nid_same(&a->nids[i], a->prim) ||
		    lnet_nid_is_any(&a->nids[i])) {
			snprintf(a->err, a->errlen, "%s already belongs to peer %s",
				 libcfs_nidstr_r(&a->nids[i], s, sizeof(s)),
				 owner != NULL ? libcfs_nidstr(&owner->nis[0]) :
						 libcfs_nidstr(a->prim));
			return -EEXIST;
		}
	}
	return 0;
}

/* Checked whole before anything changes, so a failed add changes nothing. */
static int
lnet_peer_add_on_mgmt(void *arg)
{
	struct lnet_peer_add_args *a = arg;
	struct lnet_peer_dir *d = lnet_dir_get(a->ln);
	struct lnet_peer *p;
	unsigned int i;
	int rc;

	if (d == NULL) {
		return -ENOMEM;
	}
	p = lnet_dir_find(d, a->prim);
	rc = lnet_peer_add_check(d, a, p);
	if (rc != 0) {
		return rc;
	}
	if (p == NULL) {
		p = calloc(1, sizeof(*p));
		if (p == NULL) {
			return -ENOMEM;
		}
		p->mr = a->mr;
		p->seq = d->next_seq++;
		p->configured = true;
		rc = lnet_peer_append_nid(d, p, a->prim);
		if (rc != 0) {
			free(p);
			return rc;
		}
		TAILQ_INSERT_TAIL(&d->peers, p, link);
		d->npeers++;
	}
	p->configured = true; /* configuring a peer traffic created makes it configured, as the kernel's */
	p->locked = p->locked || a->lock_or_force;
	for (i = 0; i < a->n; i++) {
		rc = lnet_peer_append_nid(d, p, &a->nids[i]);
		if (rc != 0) {
			return rc;
		}
	}
	return 0;
}

/* A NID traffic met for the first time, on its way to the management lcore. */
struct lnet_peer_learn {
	struct lnet *ln;
	struct lnet_nid nid;
};

/* Known already (configured, or learned on another CPT): nothing to do. */
static void
lnet_peer_learn_on_mgmt(void *arg)
{
	struct lnet_peer_learn *l = arg;
	struct lnet_peer_dir *d = lnet_dir_get(l->ln);
	struct lnet_peer *p;

	if (d != NULL && lnet_dir_find(d, &l->nid) == NULL) {
		p = calloc(1, sizeof(*p));
		if (p != NULL) {
			p->seq = d->next_seq++;
			if (lnet_peer_append_nid(d, p, &l->nid) == 0) {
				TAILQ_INSERT_TAIL(&d->peers, p, link);
				d->npeers++;
			} else {
				free(p);
			}
		}
	}
	free(l);
}

/*
 * A data lcore created a peer NI for @p nid: as in the kernel, a peer with
 * that NID as its primary (not Multi-Rail until discovery says so) appears
 * in the directory, so peer show lists the peers traffic created.
 */
void
lnet_peer_dir_learn(struct lnet *ln, const struct lnet_nid *nid)
{
	struct lnet_peer_learn *l = malloc(sizeof(*l));

	if (l == NULL) {
		return;
	}
	l->ln = ln;
	l->nid = *nid;
	if (rt_lcore_send_msg(rt_mgmt_lcore(ln->rt), lnet_peer_learn_on_mgmt, l) != 0) {
		free(l); /* the ring is full: this peer goes unlisted (its traffic is unaffected) */
	}
}

int
lnet_ctl_peer_add(const struct lnet_nid *prim, const struct lnet_nid *nids, unsigned int n,
		  bool mr, char *err, size_t errlen)
{
	return lnet_ctl_peer_add_lock(prim, nids, n, mr, false, err, errlen);
}

int
lnet_ctl_peer_add_lock(const struct lnet_nid *prim, const struct lnet_nid *nids, unsigned int n,
		       bool mr, bool lock_prim, char *err, size_t errlen)
{
	struct lnet_peer_add_args a = { lnet_instance(), prim, nids, n, mr, lock_prim, err, errlen };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (prim == NULL || lnet_nid_is_any(prim) || (n > 0 && nids == NULL)) {
		snprintf(err, errlen, "a primary NID is required");
		return -EINVAL;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_peer_add_on_mgmt, &a);
}

static void
lnet_peer_free(struct lnet_peer_dir *d, struct lnet_peer *p)
{
	unsigned int i;

	for (i = 0; i < p->nnis; i++) {
		lnet_dir_unindex(d, &p->nis[i]);
	}
	TAILQ_REMOVE(&d->peers, p, link);
	d->npeers--;
	free(p->nis);
	free(p);
}

static int
lnet_peer_del_on_mgmt(void *arg)
{
	struct lnet_peer_add_args *a = arg;
	struct lnet_peer_dir *d = lnet_dir_get(a->ln);
	char s[LNET_NIDSTR_SIZE];
	struct lnet_peer *p = d == NULL ? NULL : lnet_dir_find(d, a->prim);
	unsigned int i;
	unsigned int j;

	if (p == NULL) {
		snprintf(a->err, a->errlen, "no peer with primary NID %s",
			 libcfs_nidstr_r(a->prim, s, sizeof(s)));
		return -ENOENT;
	}
	if (!lnet_nid_same(&p->nis[0], a->prim)) {
		/* The kernel's answer to a NID that is not its peer's primary. */
		snprintf(a->err, a->errlen, "%s is not the primary NID of peer %s",
			 libcfs_nidstr_r(a->prim, s, sizeof(s)), libcfs_nidstr(&p->nis[0]));
		return -ENODEV;
	}
	if (a->n == 0 && p->locked && !a->lock_or_force) {
		/* The kernel keeps a locked primary: only the other NIDs go. */
		while (p->nnis > 1) {
			lnet_dir_unindex(d, &p->nis[--p->nnis]);
		}
		return 0;
	}
	if (a->n == 0) {
		lnet_peer_free(d, p);
		return 0;
	}
	for (i = 0; i < a->n; i++) {
		if (lnet_dir_find(d, &a->nids[i]) != p || lnet_nid_same(&a->nids[i], a->prim)) {
			snprintf(a->err, a->errlen, "%s is not a secondary NID of peer %s",
				 libcfs_nidstr_r(&a->nids[i], s, sizeof(s)), libcfs_nidstr(a->prim));
			return -ENOENT;
		}
	}
	for (i = 0; i < a->n; i++) {
		lnet_dir_unindex(d, &a->nids[i]);
		for (j = 1; j < p->nnis; j++) {
			if (lnet_nid_same(&p->nis[j], &a->nids[i])) {
				p->nis[j] = p->nis[--p->nnis];
				break;
			}
		}
	}
	return 0;
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

static void
lnet_peer_export(const struct lnet_peer *p, struct lnet_ctl_peer *o)
{
	unsigned int n = p->nnis < LNET_CTL_PEER_MAX_NIS ? p->nnis : LNET_CTL_PEER_MAX_NIS;

	o->seq = p->seq;
	o->mr = p->mr;
	o->nnis = n;
	o->nnis_total = p->nnis;
	memcpy(o->nis, p->nis, n * sizeof(o->nis[0]));
	o->state = (p->mr ? LNET_CTL_PEER_MULTI_RAIL : 0) |
		   (p->configured ? LNET_CTL_PEER_CONFIGURED : 0) |
		   (p->locked ? LNET_CTL_PEER_LOCK_PRIMARY : 0);
}

/* Peers whose sequence is >= cursor, in order; next = 0 when done. */
static int
lnet_peer_list_on_mgmt(void *arg)
{
	struct lnet_peer_list_args *a = arg;
	struct lnet_peer_dir *d = a->ln->peer_dir;
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
	int rtr = ni != NULL ? (ni->tun.peer_rtr_credits != 0 ? ni->tun.peer_rtr_credits : credits) :
			       0;
	struct lnet_ctl_peer_ni *o = a->out;

	memset(o, 0, sizeof(*o));
	o->max_tx_credits = credits;
	o->tx_credits = lpni != NULL ? lpni->txcredits : credits;
	o->min_tx_credits = lpni != NULL ? lpni->mintxcredits : credits;
	o->txqnob = lpni != NULL ? lpni->txqnob : 0;
	o->rtr_credits = rtr;
	o->min_rtr_credits = rtr;
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
	/* No peer NI health yet: the kernel's value for a healthy one, nothing counted. */
	o->health_value = LNET_PEER_NI_MAX_HEALTH;
	return 0;
}

int
lnet_ctl_peer_ni_state(const struct lnet_nid *nid, struct lnet_ctl_peer_ni *out)
{
	struct lnet_peer_ni_args a = { lnet_instance(), nid, out };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	return rt_lcore_call(a.ln->cpts[lnet_cpt_of_nid(a.ln, nid)]->lcore,
			     lnet_peer_ni_state_on_cpt, &a);
}

int
lnet_ctl_discover(const struct lnet_nid *nid, bool force, struct lnet_ctl_peer *out, char *err,
		  size_t errlen)
{
	(void)nid;
	(void)force;
	(void)out;
	snprintf(err, errlen, "discover: not supported by lnetd-pmd yet");
	return -EOPNOTSUPP;
}
