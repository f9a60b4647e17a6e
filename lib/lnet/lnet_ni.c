/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local NIs. The set of NIs is one published table: the management side
 * builds a new one and retires the old through RCU, so data lcores read it
 * without locks. Per-NI mutable state (tx credits) belongs to the NI's CPT.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	ni->refs = calloc((size_t)ln->ncpts * LNET_NI_REF_STRIDE, sizeof(ni->refs[0]));
	if (ni->refs == NULL) {
		free(ni);
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

static void
lnet_ni_free(struct lnet_ni *ni)
{
	free(ni->refs);
	free(ni);
}

/* ---- references held by messages ---- */

static void
lnet_ni_ref_add(struct lnet_ni *ni, unsigned int cpt, int64_t delta)
{
	int64_t *r = &ni->refs[cpt * LNET_NI_REF_STRIDE];

	/* Single writer per slot; atomic only so that net del may read it. */
	__atomic_store_n(r, __atomic_load_n(r, __ATOMIC_RELAXED) + delta, __ATOMIC_RELEASE);
}

static int64_t
lnet_ni_refs(const struct lnet_ni *ni)
{
	int64_t sum = 0;
	unsigned int i;

	for (i = 0; i < ni->ln->ncpts; i++) {
		sum += __atomic_load_n(&ni->refs[i * LNET_NI_REF_STRIDE], __ATOMIC_ACQUIRE);
	}
	return sum;
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

/* As a message is freed, on whichever lcore that happens. */
void
lnet_msg_put_nis(struct lnet_cpt *c, struct lnet_msg *msg)
{
	lnet_msg_set_txni(c, msg, NULL);
	lnet_msg_set_rxni(c, msg, NULL);
}

/* Publish @p t in place of the current table, retiring the old one. */
static void
lnet_ni_table_replace(struct lnet *ln, struct lnet_ni_table *t)
{
	struct lnet_ni_table *old = ln->ni_table;

	rt_rcu_publish((void **)&ln->ni_table, t);
	if (old != NULL && rt_rcu_retire(ln->rt, old, free) != 0) {
		/* Cannot defer: leak it rather than free under a reader. */
		LNET_LOG(WARNING, "NI table retire failed; old table kept");
	}
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
	lnet_ni_table_replace(ln, t);
	return 0;
}

/* Publish a copy of the table without @p ni. */
static int
lnet_ni_table_remove(struct lnet *ln, const struct lnet_ni *ni)
{
	struct lnet_ni_table *old = ln->ni_table;
	struct lnet_ni_table *t = malloc(sizeof(*t) + old->nnis * sizeof(t->nis[0]));
	unsigned int i;

	if (t == NULL) {
		return -ENOMEM;
	}
	t->nnis = 0;
	for (i = 0; i < old->nnis; i++) {
		if (old->nis[i] != ni) {
			t->nis[t->nnis++] = old->nis[i];
		}
	}
	lnet_ni_table_replace(ln, t);
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
		lnet_ni_free(ni);
		return rc;
	}
	ni->started = true;
	rc = lnet_ni_table_append(ln, ni);
	if (rc != 0) {
		lnd->shutdown(ni);
		lnet_ni_free(ni);
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

	/* First: what the LND completes while shutting down must not reach it again. */
	if (ni->started) {
		ni->started = false;
		ni->lnd->shutdown(ni);
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

void
lnet_ni_count_error(struct lnet_ni *ni)
{
	struct lnet_cpt *c = lnet_cpt_self(ni->ln);

	if (c != NULL) {
		c->counters.errors++;
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
		lnet_ni_free(t->nis[i]);
	}
	free(t);
	ln->ni_table = NULL;
	ln->loni = NULL;
	while (ln->zombie_nis != NULL) {
		struct lnet_ni *z = ln->zombie_nis;

		ln->zombie_nis = z->next_zombie;
		lnet_ni_free(z);
	}
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

/* ---- net del ---- */

struct lnet_ni_del_args {
	struct lnet *ln;
	const struct lnet_nid *nid;
	struct lnet_ni *ni;
};

/* On the management lcore: unpublish the NI; new messages cannot pick it. */
static int
lnet_ni_unpublish_on_mgmt(void *arg)
{
	struct lnet_ni_del_args *a = arg;
	struct lnet_ni *ni = lnet_ni_find_by_nid(a->ln, a->nid);

	if (ni == NULL) {
		return -ENOENT;
	}
	if (ni == a->ln->loni) {
		return -EPERM;
	}
	a->ni = ni;
	ni->status = LNET_NI_STATUS_DOWN;
	return lnet_ni_table_remove(a->ln, ni);
}

/* On each data lcore: messages queued for credits on the NI fail now. */
static int
lnet_ni_abort_on_cpt(void *arg)
{
	struct lnet_ni_del_args *a = arg;

	lnet_credits_abort_ni(lnet_cpt_self(a->ln), a->ni, -ENETDOWN);
	return 0;
}

static int
lnet_ni_bury_on_mgmt(void *arg)
{
	struct lnet_ni_del_args *a = arg;

	a->ni->next_zombie = a->ln->zombie_nis;
	a->ln->zombie_nis = a->ni;
	return 0;
}

/* Wait up to @p ms for the messages still holding @p ni to complete. */
static bool
lnet_ni_wait_unreferenced(struct lnet *ln, const struct lnet_ni *ni, unsigned int ms)
{
	struct timespec tick = { 0, 1000000 };
	unsigned int waited;

	for (waited = 0; lnet_ni_refs(ni) != 0; waited++) {
		if (waited == ms) {
			return false;
		}
		if (rt_runtime_caller_polls(ln->rt)) {
			rt_runtime_poll_until_idle(ln->rt, 64);
		} else {
			nanosleep(&tick, NULL);
		}
	}
	return true;
}

/*
 * Delete a NI (net del), from a thread that is not an lcore. The NI leaves
 * the published table first; after one pass over every data lcore (a grace
 * period: no step still holds a pointer read from the old table) nothing
 * new can take it. Its LND then closes what it owns on the NI's lcore, and
 * every message queued on it completes with -ENETDOWN. The NI is freed
 * once no message references it; one that never lets go (a message parked
 * on a lazy portal) keeps it as a zombie until shutdown.
 */
int
lnet_ni_del(struct lnet *ln, const struct lnet_nid *nid)
{
	struct lnet_ni_del_args a = { ln, nid, NULL };
	unsigned int i;
	int rc;

	rc = rt_lcore_call(rt_mgmt_lcore(ln->rt), lnet_ni_unpublish_on_mgmt, &a);
	if (rc != 0) {
		return rc;
	}
	lnet_call_on_cpt(ln, a.ni->cpt, lnet_ni_shutdown_on_cpt, a.ni);
	for (i = 0; i < ln->ncpts; i++) {
		lnet_call_on_cpt(ln, i, lnet_ni_abort_on_cpt, &a);
	}
	if (lnet_ni_wait_unreferenced(ln, a.ni, 5000)) {
		lnet_ni_free(a.ni);
		return 0;
	}
	LNET_LOG(WARNING, "NI deleted with %lld message(s) still holding it; kept until shutdown",
		 (long long)lnet_ni_refs(a.ni));
	return rt_lcore_call(rt_mgmt_lcore(ln->rt), lnet_ni_bury_on_mgmt, &a);
}
