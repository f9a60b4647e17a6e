/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local NIs. The set of NIs is one published table: the management side
 * builds a new one and retires the old through RCU, so data lcores read it
 * without locks. Per-NI mutable state (tx credits) belongs to the NI's CPT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"

static struct lnet_ni *
lnet_ni_alloc(struct lnet *ln, const struct lnet_nid *nid, const struct lnet_lnd_ops *lnd,
	      const struct lnet_ni_tunables *tun, unsigned int cpt)
{
	struct lnet_ni *ni = calloc(1, sizeof(*ni));

	if (ni == NULL) {
		return NULL;
	}
	ni->refs = calloc((size_t)ln->ncpts * LNET_NI_REF_STRIDE, sizeof(ni->refs[0]));
	ni->stats = lnet_stats_alloc(ln->ncpts);
	if (ni->refs == NULL || ni->stats == NULL) {
		lnet_stats_free(ni->stats);
		free(ni->refs);
		free(ni);
		return NULL;
	}
	ni->ln = ln;
	ni->nid = *nid;
	ni->net_id = lnet_nid_net(nid);
	ni->lnd = lnd;
	ni->cpt = (uint16_t)cpt;
	ni->tun = *tun;
	ni->udsp_prio = LNET_SEL_PRIO_NONE;
	ni->udsp_net_prio = LNET_SEL_PRIO_NONE;
	ni->credits_enabled = (lnd->caps & LNET_LND_CAP_NO_CREDITS) == 0;
	ni->any_cpt = (lnd->caps & LNET_LND_CAP_ANY_CPT) != 0;
	ni->unref = (lnd->caps & LNET_LND_CAP_BUILTIN) != 0; /* lo: net del refuses it */
	ni->tq.credits = tun->max_tx_credits;
	ni->tq.mincredits = tun->max_tx_credits;
	ni->status = LNET_NI_STATUS_UP;
	ni->last_ping_us = rt_now_us(ln->rt); /* the kernel starts net_last_alive at now */
	ni->dev_cpt = CFS_CPT_ANY;            /* until the LND says where its device is */
	/* As the kernel shows it: lo has no health, other NIs start healthy. */
	lnet_health_init(&ni->health,
			 (lnd->caps & LNET_LND_CAP_NO_HEALTH) != 0 ? 0 : LNET_MAX_HEALTH_VALUE);
	TAILQ_INIT(&ni->tq.queue);
	return ni;
}

static void
lnet_ni_free(struct lnet_ni *ni)
{
	lnet_stats_free(ni->stats);
	free(ni->refs);
	free(ni);
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

/* A table for @p n NIs, its NID and net indexes empty (lnet_ni_table_replace fills them). */
static struct lnet_ni_table *
lnet_ni_table_alloc(unsigned int n)
{
	unsigned int slots = rte_align32pow2(RTE_MAX(2 * n, 8U));
	struct lnet_ni_table *t =
		calloc(1, sizeof(*t) + n * sizeof(t->nis[0]) + slots * sizeof(t->by_nid[0]) +
				  slots * sizeof(t->by_net[0]) + n * sizeof(t->net_cpts[0]));

	if (t != NULL) {
		t->by_nid = &t->nis[n];
		t->by_nid_mask = slots - 1;
		t->by_net = (struct lnet_net_cpts *)&t->by_nid[slots];
		t->net_cpts = (uint16_t *)&t->by_net[slots];
	}
	return t;
}

/* @p net's slot in @p t's net index: its entry, or the empty one it would take. */
static struct lnet_net_cpts *
lnet_ni_table_net_slot(struct lnet_ni_table *t, uint32_t net)
{
	unsigned int k = lnet_ni_net_slot(net, t->by_nid_mask);

	while (t->by_net[k].n != 0 && t->by_net[k].net_id != net) {
		k = (k + 1) & t->by_nid_mask;
	}
	return &t->by_net[k];
}

/*
 * Each net's CPTs, one per NI bound to a CPT (lo is not), in table order
 * and at most LNP_MAX_CPTS: a net's peer NIs go to one of them by NID hash,
 * so two NIs on one CPT weigh twice. Once per publish, so a scan per net.
 */
static void
lnet_ni_table_index_nets(struct lnet_ni_table *t)
{
	unsigned int used = 0;
	unsigned int i;
	unsigned int j;

	for (i = 0; i < t->nnis; i++) {
		const struct lnet_ni *ni = t->nis[i];
		struct lnet_net_cpts *e;

		if (ni->any_cpt || lnet_ni_table_net_slot(t, ni->net_id)->n != 0) {
			continue; /* lo, or a net already listed */
		}
		e = lnet_ni_table_net_slot(t, ni->net_id);
		e->net_id = ni->net_id;
		e->first = (uint16_t)used;
		for (j = i; j < t->nnis && e->n < LNP_MAX_CPTS; j++) {
			if (t->nis[j]->net_id == ni->net_id && !t->nis[j]->any_cpt) {
				t->net_cpts[used++] = t->nis[j]->cpt;
				e->n++;
			}
		}
	}
}

static void
lnet_ni_table_index(struct lnet_ni_table *t)
{
	unsigned int i;

	for (i = 0; i < t->nnis; i++) {
		unsigned int k = lnet_ni_nid_slot(&t->nis[i]->nid, t->by_nid_mask);

		while (t->by_nid[k] != NULL) {
			k = (k + 1) & t->by_nid_mask;
		}
		t->by_nid[k] = t->nis[i];
	}
}

/* Publish @p t in place of the current table, retiring the old one. */
static void
lnet_ni_table_replace(struct lnet *ln, struct lnet_ni_table *t)
{
	struct lnet_ni_table *old = ln->ni_table;

	lnet_ni_table_index(t);
	lnet_ni_table_index_nets(t);
	t->gen = old != NULL ? old->gen + 1 : 1;
	lnet_udsp_table_prios(ln, t); /* a new NI goes out with its UDSP priorities */
	rt_rcu_publish((void **)&ln->ni_table, t);
	/* After the publish: a view built at the new gen reads this table (or a newer one). */
	__atomic_fetch_add(&ln->ni_state_gen, 1, __ATOMIC_RELEASE);
	if (old != NULL && rt_rcu_retire(ln->rt, old, free) != 0) {
		/* Cannot defer: leak it rather than free under a reader. */
		LNET_LOG(WARNING, "NI table retire failed; old table kept");
	}
	lnet_udsp_table_changed(ln);
}

/* Publish a copy of the table with @p ni appended. */
static int
lnet_ni_table_append(struct lnet *ln, struct lnet_ni *ni)
{
	struct lnet_ni_table *old = ln->ni_table;
	unsigned int n = old == NULL ? 0 : old->nnis;
	struct lnet_ni_table *t = lnet_ni_table_alloc(n + 1);

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
	struct lnet_ni_table *t = lnet_ni_table_alloc(old->nnis);
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
 * The kernel's bound on local NIs (lnet_interfaces_max, `set
 * max_interfaces`): a new NI is refused with -ENOSPC once the NIs already
 * up, 0@lo included, reach max_interfaces - 1, so that the ping and push
 * data this node sends never list more NIDs than its peers accept.
 */
static bool
lnet_ni_room_for_one_more(const struct lnet *ln)
{
	const struct lnet_ni_table *t = ln->ni_table;
	int max = __atomic_load_n(&ln->tunables.max_interfaces, __ATOMIC_RELAXED);

	return t == NULL || (int)t->nnis < max - 1;
}

/*
 * Add and start an NI. Configuration: call on the management lcore, or
 * before data lcores run.
 */
static int
lnet_ni_add_named(struct lnet *ln, const struct lnet_nid *nid, const struct lnet_lnd_ops *lnd,
		  const struct lnet_ni_tunables *tun, const struct lnet_ctl_lnd_tunables *lnd_tun,
		  unsigned int cpt, const char *ifname, struct lnet_ni **out)
{
	struct lnet_ni *ni;
	int rc;

	if (cpt >= ln->ncpts || lnet_ni_find_by_nid(ln, nid) != NULL) {
		return cpt >= ln->ncpts ? -EINVAL : -EEXIST;
	}
	if (!lnet_ni_room_for_one_more(ln)) {
		LNET_LOG(ERR, "too many NIs: max_interfaces is %d", ln->tunables.max_interfaces);
		return -ENOSPC;
	}
	ni = lnet_ni_alloc(ln, nid, lnd, tun, cpt);
	if (ni == NULL) {
		return -ENOMEM;
	}
	if (ifname != NULL) {
		snprintf(ni->ifname, sizeof(ni->ifname), "%s", ifname);
	}
	ni->lnd_tun = lnd_tun;
	rc = lnd->startup(ni);
	ni->lnd_tun = NULL;
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
lnet_ni_add(struct lnet *ln, const struct lnet_nid *nid, const struct lnet_lnd_ops *lnd,
	    const struct lnet_ni_tunables *tun, const struct lnet_ctl_lnd_tunables *lnd_tun,
	    unsigned int cpt, struct lnet_ni **out)
{
	return lnet_ni_add_named(ln, nid, lnd, tun, lnd_tun, cpt, NULL, out);
}

static void lnet_ni_zombie_check(void *arg);

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
	/* On the management lcore, before any configuration operation can come. */
	rt_op_queue_init(&lnet_node(ln)->ops, rt_mgmt_lcore(ln->rt));
	LIST_INIT(&lnet_node(ln)->ping_bufs);
	rt_timer_init(&lnet_node(ln)->zombie_timer, lnet_ni_zombie_check, ln);
	if (lnet_recovery_init(ln) != 0) {
		return -ENOMEM;
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
	while (lnet_node(ln)->zombie_nis != NULL) {
		struct lnet_ni *z = lnet_node(ln)->zombie_nis;

		lnet_node(ln)->zombie_nis = z->next_zombie;
		lnet_ni_free(z);
	}
}

/* ---- configuration operations on the management lcore ---- */

/* rt_op's start: the LNet operation around it starts. */
static void
lnet_mgmt_op_start(struct rt_op *op)
{
	struct lnet_mgmt_op *m = (struct lnet_mgmt_op *)op;

	m->start(m);
}

void
lnet_mgmt_op_submit(void *arg)
{
	struct lnet_mgmt_op *op = arg;

	op->op.start = lnet_mgmt_op_start;
	rt_op_submit(&lnet_node(op->ln)->ops, &op->op);
}

/* On the management lcore: @p op is over; the next one starts. */
void
lnet_mgmt_op_done(struct lnet_mgmt_op *op, int rc)
{
	rt_op_done(&op->op, rc);
}

/*
 * From a thread that is not a logical lcore (telemetry's, the application's):
 * queue @p op on the management lcore and wait until it is over, as an SPDK
 * RPC waits for its reactor. Operations run one at a time.
 */
int
lnet_mgmt_op_run(struct lnet *ln, struct lnet_mgmt_op *op)
{
	op->ln = ln;
	op->op.start = lnet_mgmt_op_start;
	return rt_op_run(&lnet_node(ln)->ops, &op->op);
}

/* ---- net add / net del ---- */

/* net del's phases, in order (lnet_ni_del_visit, lnet_ni_drain_check). */
enum lnet_ni_del_phase {
	LNET_NI_DEL_DROP,  /* every CPT: drop what waits for the NI on lazy portals */
	LNET_NI_DEL_DRAIN, /* mgmt: until nothing references the NI (or the deadline) */
	LNET_NI_DEL_SHUT,  /* the NI's lcore: its LND closes; then every CPT: the rest fails */
};

struct lnet_ni_op {
	struct lnet_mgmt_op op;
	struct lnet_ni_req *req;
	struct lnet_ni *ni;
	struct rt_hop hop;
	enum lnet_ni_del_phase phase;
	unsigned int step; /* within the phase: the CPT visited next */
	bool lnd_closed;
	struct rt_timer drain; /* LNET_NI_DEL_DRAIN's look at the NI's references */
	uint64_t drain_deadline;
};

static void
lnet_ni_free_retired(void *arg)
{
	lnet_ni_free(arg);
}

/* Mgmt: retire zombies nothing references any more; look again later if some remain. */
static void
lnet_ni_zombie_check(void *arg)
{
	struct lnet *ln = arg;
	struct lnet_ni **pp = &lnet_node(ln)->zombie_nis;

	while (*pp != NULL) {
		struct lnet_ni *ni = *pp;

		if (lnet_ni_refs(ni) != 0 || rt_rcu_retire(ln->rt, ni, lnet_ni_free_retired) != 0) {
			pp = &ni->next_zombie;
			continue;
		}
		*pp = ni->next_zombie;
	}
	if (lnet_node(ln)->zombie_nis == NULL) {
		lnet_node(ln)->zombie_checks = 0;
		return;
	}
	/* Messages in flight finish within a few loop turns; a stuck one is polled slowly. */
	lnet_node(ln)->zombie_checks++;
	rt_timer_arm(&lnet_node(ln)->zombie_timer, lnet_node(ln)->zombie_checks < 64 ? 0 : 10000);
}

/* Mgmt: @p ni is unpublished and stopped; it is freed after a grace period once unreferenced. */
static void
lnet_ni_bury(struct lnet *ln, struct lnet_ni *ni)
{
	ni->next_zombie = lnet_node(ln)->zombie_nis;
	lnet_node(ln)->zombie_nis = ni;
	if (!rt_timer_pending(&lnet_node(ln)->zombie_timer)) {
		lnet_node(ln)->zombie_checks = 0;
		lnet_ni_zombie_check(ln);
	}
}

static void
lnet_ni_op_pinged(void *arg, int rc)
{
	struct lnet_ni_op *o = arg;

	o->req->ping_rc = rc;
	lnet_node(o->op.ln)->ping_quiet = false;
	if (!o->req->add) {
		lnet_ni_bury(o->op.ln, o->ni);
	}
	lnet_mgmt_op_done(&o->op, 0);
}

static void
lnet_ni_op_back_on_mgmt(void *arg)
{
	struct lnet_ni_op *o = arg;

	lnet_node(o->op.ln)->ping_quiet = o->req->quiet;
	lnet_ping_target_rebuild(o->op.ln, lnet_ni_op_pinged, o);
}

/*
 * net del, as the kernel's lnet_shutdown_lndni: the NI is unpublished (no
 * new message picks it); what waits for it on a lazy portal is dropped on
 * every CPT; the messages in flight on it finish through its LND, which
 * stays up until nothing references the NI (the kernel waits for ever; we
 * stop waiting after transaction_timeout); then its LND closes on its
 * lcore, whatever is still queued for it fails with -ENETDOWN on every
 * CPT, and the new ping target goes to the peers.
 */
static void lnet_ni_del_visit(void *arg);

static void
lnet_ni_del_next_cpt(struct lnet_ni_op *o, rt_msg_fn then_on_mgmt)
{
	struct lnet *ln = o->op.ln;

	if (o->step < ln->ncpts) {
		rt_hop_send(&o->hop, ln->cpts[o->step++]->lcore, lnet_ni_del_visit, o);
	} else {
		rt_hop_send(&o->hop, rt_mgmt_lcore(ln->rt), then_on_mgmt, o);
	}
}

static void
lnet_ni_drain_check(void *arg)
{
	struct lnet_ni_op *o = arg;
	struct lnet *ln = o->op.ln;

	if (lnet_ni_refs(o->ni) != 0 && rt_now_us(ln->rt) < o->drain_deadline) {
		rt_timer_arm(&o->drain, LNP_US_PER_MS);
		return;
	}
	if (lnet_ni_refs(o->ni) != 0) {
		LNET_LOG(WARNING, "%s: deleted with messages still in flight on it",
			 libcfs_nidstr(&o->ni->nid));
	}
	o->phase = LNET_NI_DEL_SHUT;
	o->step = 0;
	rt_hop_send(&o->hop, lnet_ni_lcore(o->ni), lnet_ni_del_visit, o);
}

static void
lnet_ni_drain_start(void *arg)
{
	struct lnet_ni_op *o = arg;
	uint64_t s = (uint64_t)__atomic_load_n(&o->op.ln->tunables.transaction_timeout,
					       __ATOMIC_RELAXED);

	o->phase = LNET_NI_DEL_DRAIN;
	o->drain_deadline = rt_now_us(o->op.ln->rt) + (s != 0 ? s : 50) * LNP_US_PER_S;
	rt_timer_init(&o->drain, lnet_ni_drain_check, o);
	lnet_ni_drain_check(o);
}

static void
lnet_ni_del_visit(void *arg)
{
	struct lnet_ni_op *o = arg;
	struct lnet_cpt *c = lnet_cpt_self(o->op.ln);

	switch (o->phase) {
	case LNET_NI_DEL_DROP:
		lnet_ptl_drop_delayed_ni(c, o->ni);
		lnet_fault_drop_held(c, o->ni, -ENETDOWN);
		lnet_ni_del_next_cpt(o, lnet_ni_drain_start);
		break;
	case LNET_NI_DEL_SHUT:
		if (!o->lnd_closed) {
			lnet_ni_shutdown_on_cpt(o->ni); /* first, on the NI's own lcore */
			o->lnd_closed = true;
		} else {
			lnet_credits_abort_ni(c, o->ni, -ENETDOWN);
		}
		lnet_ni_del_next_cpt(o, lnet_ni_op_back_on_mgmt);
		break;
	case LNET_NI_DEL_DRAIN:
		break; /* on mgmt only */
	}
}

static void
lnet_ni_op_start(struct lnet_mgmt_op *op)
{
	struct lnet_ni_op *o = (struct lnet_ni_op *)op;
	struct lnet_ni_req *r = o->req;
	struct lnet *ln = op->ln;
	int rc;

	if (r->add) {
		rc = lnet_ni_add_named(ln, r->nid, r->lnd, &r->tun, r->lnd_tun, r->cpt, r->ifname,
				       &o->ni);
		if (rc != 0) {
			lnet_mgmt_op_done(op, rc);
			return;
		}
		lnet_ping_target_rebuild(ln, lnet_ni_op_pinged, o);
		return;
	}
	o->ni = lnet_ni_find_by_nid(ln, r->nid);
	rc = o->ni == NULL ? -ENOENT : o->ni == ln->loni ? -EPERM : 0;
	if (rc == 0) {
		/* Unpublished first: after this, no new message can pick it. */
		o->ni->status = LNET_NI_STATUS_DOWN;
		lnet_recovery_ni_gone(ln, o->ni);
		rc = lnet_ni_table_remove(ln, o->ni);
	}
	if (rc != 0) {
		lnet_mgmt_op_done(op, rc);
		return;
	}
	o->phase = LNET_NI_DEL_DROP;
	o->step = 0;
	lnet_ni_del_next_cpt(o, lnet_ni_drain_start);
}

/*
 * net add or net del with the ping target rebuilt for the new NI set, as
 * one operation on the management lcore; from a thread that is not an
 * lcore. net add starts the NI's LND and publishes the NI; net del
 * unpublishes the NI, has its LND close what it owns on the NI's lcore,
 * fails what is queued on it with -ENETDOWN, and retires it (RCU) once no
 * message references it. Either way the new ping buffer is posted before
 * the old one is unlinked; the old one is retired once its last REPLY is
 * done. req->ping_rc says whether the rebuild failed.
 */
int
lnet_ni_config(struct lnet *ln, struct lnet_ni_req *req)
{
	struct lnet_ni_op o = { .req = req };

	o.op.start = lnet_ni_op_start;
	req->ping_rc = 0;
	return lnet_mgmt_op_run(ln, &o.op);
}

/* net del (tests and the control plane): 0, -ENOENT, -EPERM (0@lo). */
int
lnet_ni_del(struct lnet *ln, const struct lnet_nid *nid)
{
	struct lnet_ni_req req = { .add = false, .nid = nid };

	return lnet_ni_config(ln, &req);
}
