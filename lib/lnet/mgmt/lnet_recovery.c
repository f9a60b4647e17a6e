/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Health recovery on the management lcore (the kernel monitor thread's
 * lnet_recover_local_nis / lnet_recover_peer_nis): local NIs and peer NIs
 * below full health wait in a queue, and each is pinged (a GET on the
 * reserved portal, marked recovery: never resent, sent to that exact NID)
 * with a back-off that doubles up to max_recovery_ping_interval. A peer NI
 * answers by raising its own health as any message from it does; a local
 * NI, whose ping goes out through its own LND to its own NID, rises when
 * its ping is answered. One leaves its queue at full health, when its NI
 * is deleted, or (peer NIs) recovery_limit seconds after it was last heard.
 *
 * Everything here runs on the management lcore except the pings, which
 * run on their MD's CPT and report back by a hop; a peer NI is referred
 * to by pointer (they live until shutdown), a local NI by NID (it may be
 * deleted while a message about it travels).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"

/*
 * The kernel's monitor thread wakes once a second and pings every NI due.
 * Here the pass comes ten times a second and sends at most a hundred pings
 * each time: a thousand unreachable peer NIs gone into recovery at once
 * cost the data lcores (whose LND opens each ping's connections) a steady
 * trickle, not a burst of connects every second that stalls their traffic.
 */
#define LNET_RECOVERY_PASS_US 100000ULL
#define LNET_RECOVERY_PINGS_PER_PASS 100U

enum lnet_rec_kind {
	LNET_REC_LOCAL = 0,
	LNET_REC_PEER,
	LNET_REC_KINDS,
};

struct lnet_recovery {
	struct lnet *ln;
	struct lnet_health_list q[LNET_REC_KINDS];
	unsigned int n[LNET_REC_KINDS];
	struct rt_timer pass;
};

/* A queueing request or a ping's outcome, on its way to the management lcore. */
struct lnet_rec_note {
	struct rt_hop hop;
	struct lnet *ln;
	enum lnet_rec_kind kind;
	struct lnet_nid nid;       /* a local NI's */
	struct lnet_peer_ni *lpni; /* a peer NI */
	uint32_t ask;              /* a request to queue: the owner's rec_asked with it */
	int status;                /* a ping's outcome */
};

/* A recovery ping in flight, owned by its MD's handler on the MD's CPT. */
struct lnet_rec_ping {
	LIST_ENTRY(lnet_rec_ping) link;
	struct lnet *ln;
	enum lnet_rec_kind kind;
	struct lnet_nid nid;
	struct lnet_peer_ni *lpni;
	struct lnet_handle_md mdh;
	bool reported;
	uint8_t buf[LNET_PING_INFO_MIN_SIZE];
};

static int64_t
lnet_rec_now(const struct lnet *ln)
{
	return (int64_t)(rt_now_us(ln->rt) / LNP_US_PER_S);
}

static struct lnet_ni *
lnet_rec_ni(struct lnet_health *h)
{
	return (struct lnet_ni *)((char *)h - offsetof(struct lnet_ni, health));
}

static struct lnet_peer_ni *
lnet_rec_lpni(struct lnet_health *h)
{
	return (struct lnet_peer_ni *)((char *)h - offsetof(struct lnet_peer_ni, health));
}

/* ---- the queues ------------------------------------------------------------ */

static void
lnet_rec_arm(struct lnet_recovery *r)
{
	if (!rt_timer_pending(&r->pass) && r->n[LNET_REC_LOCAL] + r->n[LNET_REC_PEER] != 0) {
		rt_timer_arm(&r->pass, LNET_RECOVERY_PASS_US);
	}
}

static void
lnet_rec_set_next_ping(struct lnet *ln, struct lnet_health *h, int64_t now)
{
	int max = __atomic_load_n(&ln->tunables.max_recovery_ping_interval, __ATOMIC_RELAXED);
	uint32_t count = lnet_health_ping_count(h);

	__atomic_store_n(&h->next_ping, lnet_recovery_next_ping(count, now, max), __ATOMIC_RELAXED);
}

/* Done with the owner's request that queued @p h: its next failure may ask again. */
static void
lnet_rec_taken(struct lnet_health *h)
{
	__atomic_store_n(&h->rec_taken, h->rec_taken + 1, __ATOMIC_RELEASE);
}

/* Full health, or aged out: the next stay in recovery pings at once. */
static void
lnet_rec_restart_count(struct lnet_health *h)
{
	__atomic_store_n(&h->ping_base, h->pings, __ATOMIC_RELAXED);
}

static void
lnet_rec_remove(struct lnet_recovery *r, enum lnet_rec_kind kind, struct lnet_health *h)
{
	TAILQ_REMOVE(&r->q[kind], h, rec_link);
	h->on_queue = false;
	r->n[kind]--;
	lnet_rec_taken(h);
}

/*
 * A peer NI never heard from, or not for recovery_limit seconds, or whose
 * peer was deleted (the kernel's LNET_PEER_NI_DELETING), is not worth pinging.
 */
static bool
lnet_rec_peer_expired(struct lnet *ln, struct lnet_health *h, int64_t now)
{
	int limit = __atomic_load_n(&ln->tunables.recovery_limit, __ATOMIC_RELAXED);
	int64_t alive = __atomic_load_n(&h->last_alive, __ATOMIC_RELAXED);

	return alive == 0 || (limit != 0 && now > alive + limit) ||
	       rt_rcu_read((void *const *)&lnet_rec_lpni(h)->comp) == NULL;
}

/*
 * The owner's request @p ask to queue @p h. One that is not the owner's
 * outstanding one (a note for a local NI deleted and added again under
 * its NID, whose fresh record asked nothing) is ignored.
 */
static void
lnet_rec_add(struct lnet_recovery *r, enum lnet_rec_kind kind, struct lnet_health *h, uint32_t ask)
{
	int64_t now = lnet_rec_now(r->ln);

	if (h->on_queue || ask != h->rec_taken + 1 ||
	    ask != __atomic_load_n(&h->rec_asked, __ATOMIC_RELAXED)) {
		return;
	}
	if (lnet_health_value(h) == LNET_MAX_HEALTH_VALUE ||
	    (kind == LNET_REC_PEER && lnet_rec_peer_expired(r->ln, h, now))) {
		lnet_rec_restart_count(h); /* first ping at once next time */
		lnet_rec_taken(h);
		return;
	}
	lnet_rec_set_next_ping(r->ln, h, now);
	TAILQ_INSERT_TAIL(&r->q[kind], h, rec_link);
	h->on_queue = true;
	r->n[kind]++;
	lnet_rec_arm(r);
}

static struct lnet_health *
lnet_rec_lookup(struct lnet *ln, enum lnet_rec_kind kind, const struct lnet_rec_note *n)
{
	struct lnet_ni *ni;

	if (kind == LNET_REC_PEER) {
		return &n->lpni->health;
	}
	ni = lnet_ni_find_by_nid(ln, &n->nid);
	return ni != NULL && ni != ln->loni ? &ni->health : NULL;
}

static void
lnet_rec_add_on_mgmt(void *arg)
{
	struct lnet_rec_note *n = arg;
	struct lnet_recovery *r = lnet_node(n->ln)->recovery;
	struct lnet_health *h = lnet_rec_lookup(n->ln, n->kind, n);

	if (h != NULL && r != NULL) {
		lnet_rec_add(r, n->kind, h, n->ask);
	} else if (h != NULL && n->ask == h->rec_taken + 1) {
		lnet_rec_taken(h); /* no recovery (stopping): the owner may ask again later */
	}
	free(n);
}

static void
lnet_rec_note_send(struct lnet *ln, struct lnet_rec_note *n, rt_msg_fn fn)
{
	n->ln = ln;
	rt_hop_send(&n->hop, rt_mgmt_lcore(ln->rt), fn, n);
}

/*
 * On the owner's lcore: once per stay in recovery, a request to the
 * management lcore; the next one waits until it took this one.
 */
static bool
lnet_rec_ask(struct lnet_health *h, uint32_t *ask)
{
	uint32_t asked = h->rec_asked;

	if (lnet_health_value(h) >= LNET_MAX_HEALTH_VALUE ||
	    asked != __atomic_load_n(&h->rec_taken, __ATOMIC_ACQUIRE)) {
		return false;
	}
	*ask = asked + 1;
	__atomic_store_n(&h->rec_asked, asked + 1, __ATOMIC_RELAXED);
	return true;
}

/* The request could not be sent: the next failure asks again. */
static void
lnet_rec_unask(struct lnet_health *h)
{
	__atomic_store_n(&h->rec_asked, h->rec_asked - 1, __ATOMIC_RELAXED);
}

void
lnet_recovery_queue_ni(struct lnet *ln, struct lnet_ni *ni)
{
	struct lnet_rec_note *n;
	uint32_t ask;

	LNET_OWNER_ASSERT(ln, ni->cpt);
	if ((ni->lnd->caps & LNET_LND_CAP_NO_HEALTH) != 0 || !lnet_rec_ask(&ni->health, &ask)) {
		return;
	}
	n = calloc(1, sizeof(*n));
	if (n == NULL) {
		lnet_rec_unask(&ni->health);
		return;
	}
	n->kind = LNET_REC_LOCAL;
	n->nid = ni->nid;
	n->ask = ask;
	lnet_rec_note_send(ln, n, lnet_rec_add_on_mgmt);
}

void
lnet_recovery_queue_lpni(struct lnet *ln, struct lnet_peer_ni *lpni)
{
	struct lnet_rec_note *n;
	uint32_t ask;

	LNET_OWNER_ASSERT(ln, lpni->cpt);
	if (!lnet_rec_ask(&lpni->health, &ask)) {
		return;
	}
	n = calloc(1, sizeof(*n));
	if (n == NULL) {
		lnet_rec_unask(&lpni->health);
		return;
	}
	n->kind = LNET_REC_PEER;
	n->nid = lpni->nid;
	n->lpni = lpni;
	n->ask = ask;
	lnet_rec_note_send(ln, n, lnet_rec_add_on_mgmt);
}

void
lnet_recovery_ni_gone(struct lnet *ln, struct lnet_ni *ni)
{
	if (lnet_node(ln)->recovery != NULL && ni->health.on_queue) {
		lnet_rec_remove(lnet_node(ln)->recovery, LNET_REC_LOCAL, &ni->health);
	}
}

/* ---- the pings ------------------------------------------------------------- */

static void
lnet_rec_result_on_mgmt(void *arg)
{
	struct lnet_rec_note *n = arg;
	struct lnet_recovery *r = lnet_node(n->ln)->recovery;
	struct lnet_health *h = r != NULL ? lnet_rec_lookup(n->ln, n->kind, n) : NULL;

	if (h != NULL) {
		h->ping_pending = false;
		/* A peer NI's answer raised it as it arrived; a local NI's is the answer itself. */
		if (n->status == 0 && n->kind == LNET_REC_LOCAL) {
			lnet_health_ni_raise(n->ln, lnet_rec_ni(h));
		}
	}
	free(n);
}

static void
lnet_rec_ping_report(struct lnet_rec_ping *p, int status)
{
	struct lnet_rec_note *n = calloc(1, sizeof(*n));

	p->reported = true;
	if (n == NULL) {
		return; /* stays pending: the NI or peer NI is not pinged again */
	}
	n->kind = p->kind;
	n->nid = p->nid;
	n->lpni = p->lpni;
	n->status = status;
	lnet_rec_note_send(p->ln, n, lnet_rec_result_on_mgmt);
}

/* On the MD's CPT: a failed SEND, the REPLY, or the UNLINK of a ping never answered. */
static void
lnet_rec_ping_handler(struct lnet_event *ev)
{
	struct lnet_rec_ping *p = ev->md_user_ptr;

	if (!p->reported) {
		if (ev->type == LNET_EVENT_REPLY || ev->status != 0) {
			lnet_rec_ping_report(p, ev->status);
		} else if (ev->type == LNET_EVENT_UNLINK) {
			lnet_rec_ping_report(p, -ETIMEDOUT);
		}
	}
	if (ev->unlinked) {
		LIST_REMOVE(p, link);
		free(p);
	}
}

static void
lnet_rec_ping_start(void *arg)
{
	struct lnet_rec_ping *p = arg;
	struct lnet_processid target = { .pid = LNET_PID_LUSTRE, .nid = p->nid };
	struct lnet_md md = {
		.umd_start = p->buf,
		.umd_length = sizeof(p->buf),
		.umd_threshold = 2, /* SEND, then REPLY */
		.umd_options = LNET_MD_TRUNCATE | LNET_MD_TRACK_RESPONSE,
		.umd_user_ptr = p,
		.umd_handler = lnet_rec_ping_handler,
	};
	int rc;

	LIST_INSERT_HEAD(&lnet_cpt_mgmt(lnet_cpt_self(p->ln))->rec_pings, p, link);
	rc = LNetMDBind(&md, LNET_UNLINK, &p->mdh);
	if (rc != 0) {
		LIST_REMOVE(p, link);
		lnet_rec_ping_report(p, rc);
		free(p);
		return;
	}
	rc = LNetGet(NULL, p->mdh, &target, LNET_RESERVED_PORTAL, LNET_PROTO_PING_MATCHBITS, 0,
		     true);
	if (rc != 0) {
		lnet_rec_ping_report(p, rc);
		LNetMDUnlink(p->mdh); /* its UNLINK event frees p */
	}
}

static void
lnet_rec_ping(struct lnet_recovery *r, enum lnet_rec_kind kind, struct lnet_health *h, int64_t now)
{
	struct lnet *ln = r->ln;
	struct lnet_rec_ping *p = calloc(1, sizeof(*p));
	unsigned int cpt;

	if (p == NULL) {
		return; /* the next pass tries again */
	}
	p->ln = ln;
	p->kind = kind;
	p->lpni = kind == LNET_REC_PEER ? lnet_rec_lpni(h) : NULL;
	p->nid = kind == LNET_REC_PEER ? p->lpni->nid : lnet_rec_ni(h)->nid;
	cpt = kind == LNET_REC_PEER ? p->lpni->cpt : lnet_rec_ni(h)->cpt;
	if (rt_lcore_send_msg(ln->cpts[cpt]->lcore, lnet_rec_ping_start, p) != 0) {
		free(p);
		return;
	}
	h->ping_pending = true;
	__atomic_store_n(&h->pings, h->pings + 1, __ATOMIC_RELAXED); /* the owner reads it */
	lnet_rec_set_next_ping(ln, h, now);
	LNET_LOG(DEBUG, "recovery ping %u to %s %s", lnet_health_ping_count(h),
		 kind == LNET_REC_PEER ? "peer NI" : "local NI", libcfs_nidstr(&p->nid));
}

/* While a queue has anything: drop the recovered, ping the due (a budget each pass). */
static void
lnet_rec_pass(void *arg)
{
	struct lnet_recovery *r = arg;
	int64_t now = lnet_rec_now(r->ln);
	unsigned int budget = LNET_RECOVERY_PINGS_PER_PASS;
	enum lnet_rec_kind kind;

	if (lnet_stopping()) {
		return;
	}
	for (kind = LNET_REC_LOCAL; kind < LNET_REC_KINDS; kind++) {
		struct lnet_health *h;
		struct lnet_health *next;

		for (h = TAILQ_FIRST(&r->q[kind]); h != NULL; h = next) {
			next = TAILQ_NEXT(h, rec_link);
			if (lnet_health_value(h) == LNET_MAX_HEALTH_VALUE ||
			    (kind == LNET_REC_PEER && lnet_rec_peer_expired(r->ln, h, now))) {
				lnet_rec_restart_count(h);
				lnet_rec_remove(r, kind, h);
				continue;
			}
			if (budget > 0 && !h->ping_pending &&
			    now >= __atomic_load_n(&h->next_ping, __ATOMIC_RELAXED)) {
				lnet_rec_ping(r, kind, h, now);
				budget--;
			}
		}
	}
	lnet_rec_arm(r);
}

/* ---- life and listing -------------------------------------------------------- */

int
lnet_recovery_init(struct lnet *ln)
{
	struct lnet_recovery *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		return -ENOMEM;
	}
	r->ln = ln;
	TAILQ_INIT(&r->q[LNET_REC_LOCAL]);
	TAILQ_INIT(&r->q[LNET_REC_PEER]);
	rt_timer_init(&r->pass, lnet_rec_pass, r);
	lnet_node(ln)->recovery = r;
	return 0;
}

/* After the lcores stopped: queue entries point into NIs and peer NIs freed next. */
void
lnet_recovery_fini(struct lnet *ln)
{
	struct lnet_recovery *r = lnet_node(ln)->recovery;
	enum lnet_rec_kind kind;

	if (r == NULL) {
		return;
	}
	for (kind = LNET_REC_LOCAL; kind < LNET_REC_KINDS; kind++) {
		struct lnet_health *h;

		while ((h = TAILQ_FIRST(&r->q[kind])) != NULL) {
			lnet_rec_remove(r, kind, h);
		}
	}
	if (rt_timer_pending(&r->pass)) {
		rt_timer_cancel(&r->pass);
	}
	lnet_node(ln)->recovery = NULL;
	free(r);
}

/* At shutdown, after the lcores stopped: the MDs went with their tables. */
void
lnet_recovery_cpt_fini(struct lnet_cpt *c)
{
	struct lnet_rec_ping *p;

	while ((p = LIST_FIRST(&lnet_cpt_mgmt(c)->rec_pings)) != NULL) {
		LIST_REMOVE(p, link);
		free(p);
	}
}

struct lnet_rec_list_args {
	struct lnet *ln;
	enum lnet_rec_kind kind;
	struct lnet_nid *out;
	unsigned int max;
	unsigned int total;
};

static int
lnet_rec_list_on_mgmt(void *arg)
{
	struct lnet_rec_list_args *a = arg;
	struct lnet_recovery *r = lnet_node(a->ln)->recovery;
	struct lnet_health *h;

	if (r == NULL) {
		return -ENETDOWN;
	}
	TAILQ_FOREACH(h, &r->q[a->kind], rec_link) {
		if (a->total < a->max) {
			a->out[a->total] = a->kind == LNET_REC_PEER ? lnet_rec_lpni(h)->nid :
								      lnet_rec_ni(h)->nid;
		}
		a->total++;
	}
	return 0;
}

int
lnet_ctl_recovery_list(bool local, struct lnet_nid *out, unsigned int max, unsigned int *total)
{
	struct lnet_rec_list_args a = { lnet_instance(), local ? LNET_REC_LOCAL : LNET_REC_PEER,
					out, max, 0 };
	int rc;

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	rc = rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_rec_list_on_mgmt, &a);
	*total = a.total;
	return rc;
}
