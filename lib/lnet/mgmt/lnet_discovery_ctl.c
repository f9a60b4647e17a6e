/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Discovery as the control plane and the API see it (the wiring itself is
 * lnet_discovery.c): its counters, `lnetctl discover`, and the answers of
 * LNetPrimaryNID and LNetPeerDiscovered. Each runs its part on the
 * management lcore, which owns the peer directory; a caller that waits for
 * a discovery to end asks it again until it has.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"
#include "lnet_peer_dir.h"
#include "rt_wait.h"

/* ---- counters ---------------------------------------------------------- */

static void
lnet_disc_count(struct lnet_ctl_discovery *o, const char *name, uint64_t v)
{
	if (o->n < LNET_CTL_DISC_COUNTERS_MAX) {
		o->c[o->n++] = (struct lnet_ctl_counter){ name, v };
	}
}

static int
lnet_discovery_get_on_mgmt(void *arg)
{
	struct lnet_ctl_discovery *o = arg;
	struct lnet_peer_dir *d = lnet_peer_dir_get(lnet_instance());
	uint64_t by_state[LNET_DISC_NSTATES] = { 0 };
	uint64_t held = 0;
	const struct lnet_merge_counters *m;
	const struct lnet_disc_stats *st;
	struct lnet_peer *p;
	struct lnet_msg *msg;
	unsigned int i;

	if (d == NULL) {
		return -ENOMEM;
	}
	m = &d->merge;
	st = &d->disc.stats;
	o->enabled = d->disc.enabled;
	TAILQ_FOREACH(p, &d->peers, link) {
		by_state[p->disc.state]++;
		TAILQ_FOREACH(msg, &p->held, link) {
			held++;
		}
	}
	lnet_disc_count(o, "peers", d->npeers);
	for (i = 0; i < LNET_DISC_DELETED; i++) {
		lnet_disc_count(o, lnet_disc_state_str(i), by_state[i]);
	}
	lnet_disc_count(o, "held_messages", held);
	lnet_disc_count(o, "events_refused", st->refused);
	lnet_disc_count(o, "stale_replies", st->stale_reply);
	lnet_disc_count(o, "stale_acks", st->stale_ack);
	lnet_disc_count(o, "stale_timers", st->stale_timer);
	lnet_disc_count(o, "replies_older_than_push", st->old_data);
	lnet_disc_count(o, "replies_too_big", st->too_big);
	lnet_disc_count(o, "failed_in_backoff", st->backoff);
	lnet_disc_count(o, "data_accepted", m->accepted);
	lnet_disc_count(o, "data_truncated", m->truncated);
	lnet_disc_count(o, "data_short", m->short_data);
	lnet_disc_count(o, "data_bad_magic", m->bad_magic);
	lnet_disc_count(o, "data_bad_features", m->bad_features);
	lnet_disc_count(o, "data_bad_count", m->bad_count);
	lnet_disc_count(o, "data_bad_lo", m->bad_lo);
	lnet_disc_count(o, "data_bad_size", m->bad_size);
	lnet_disc_count(o, "data_bad_nid", m->bad_nid);
	lnet_disc_count(o, "data_dup_nid", m->dup_nid);
	lnet_disc_count(o, "data_no_primary", m->no_primary);
	lnet_disc_count(o, "push_not_mr", m->not_mr);
	lnet_disc_count(o, "nid_claimed_configured", m->claimed_configured);
	lnet_disc_count(o, "nid_claimed_locked", m->claimed_locked);
	lnet_disc_count(o, "configured_differs", m->configured_differs);
	lnet_disc_count(o, "non_mr_second_nid", m->non_mr_net);
	lnet_disc_count(o, "not_mr_data_for_mr_peer", m->not_mr_peer);
	return 0;
}

int
lnet_ctl_discovery_get(struct lnet_ctl_discovery *out)
{
	struct lnet *ln = lnet_instance();

	if (ln == NULL) {
		return -ENETDOWN;
	}
	memset(out, 0, sizeof(*out));
	return rt_lcore_call(rt_mgmt_lcore(ln->rt), lnet_discovery_get_on_mgmt, out);
}

/* ---- lnetctl discover ---------------------------------------------------- */

struct lnet_discover_args {
	struct lnet *ln;
	struct lnet_nid nid;
	bool force;
	bool only_if_needed; /* LNetPrimaryNID: a peer up to date is left alone */
	bool started;
	bool done;
	int rc;
	struct lnet_ctl_peer *out;
	char *err;
	size_t errlen;
};

static int
lnet_discover_start_on_mgmt(void *arg)
{
	struct lnet_discover_args *a = arg;
	struct lnet_peer_dir *d = lnet_peer_dir_get(a->ln);
	struct lnet_peer *p;
	int rc;

	if (d == NULL) {
		return -ENOMEM;
	}
	p = lnet_peer_get(d, &a->nid);
	if (p == NULL) {
		return -ENOMEM;
	}
	/*
	 * As the kernel's: discover pings even a peer already discovered (and
	 * one while discovery is off); --force pushes to it as well, whatever
	 * sequence number it has of ours.
	 */
	if (a->only_if_needed) {
		rc = lnet_disc_uptodate(&p->disc) || !d->disc.enabled ?
			     0 :
			     lnet_disc_discover(&p->disc, false, lnet_disc_now(d));
		lnet_discovery_settle(d, p);
		return rc == -EBUSY ? 0 : rc;
	}
	if (a->force) {
		p->disc.node_seqno = 0;
	}
	rc = lnet_disc_discover(&p->disc, true, lnet_disc_now(d));
	lnet_discovery_settle(d, p);
	return rc == -EBUSY ? 0 : rc;
}

static bool
lnet_disc_in_progress(const struct lnet_disc *dd)
{
	return dd->state == LNET_DISC_PING_SENT || dd->state == LNET_DISC_WORK ||
	       dd->state == LNET_DISC_PUSH_SENT;
}

static int
lnet_discover_check_on_mgmt(void *arg)
{
	struct lnet_discover_args *a = arg;
	struct lnet_peer_dir *d = lnet_node(a->ln)->peer_dir;
	struct lnet_peer *p = d != NULL ? lnet_peer_find(d, &a->nid) : NULL;
	char s[LNET_NIDSTR_SIZE];

	if (p == NULL) {
		a->done = true;
		a->rc = -EHOSTUNREACH;
		snprintf(a->err, a->errlen, "peer %s went away during discovery",
			 libcfs_nidstr_r(&a->nid, s, sizeof(s)));
		return 0;
	}
	if (lnet_disc_in_progress(&p->disc)) {
		return 0;
	}
	a->done = true;
	if (p->disc.state == LNET_DISC_ERROR) {
		a->rc = p->disc.error != 0 ? p->disc.error : -EHOSTUNREACH;
		snprintf(a->err, a->errlen, "discovery of %s failed: %s",
			 libcfs_nidstr_r(&a->nid, s, sizeof(s)), strerror(-a->rc));
		return 0;
	}
	lnet_peer_export(p, a->out);
	return 0;
}

static bool
lnet_discover_done(void *arg)
{
	struct lnet_discover_args *a = arg;

	if (lnet_stopping()) {
		a->rc = -ESHUTDOWN;
		snprintf(a->err, a->errlen, "LNet is shutting down");
		return true;
	}
	rt_wait_pace(a->ln->rt,
		     LNP_US_PER_MS); /* lcores on threads of their own: asked 1000 times a second */

	if (rt_lcore_call(rt_mgmt_lcore(a->ln->rt), lnet_discover_check_on_mgmt, a) != 0) {
		return false;
	}
	return a->done;
}

static int
lnet_discover_wait(const struct lnet_nid *nid, bool force, bool only_if_needed,
		   struct lnet_ctl_peer *out, char *err, size_t errlen)
{
	struct lnet_discover_args a = { .ln = lnet_instance(),
					.force = force,
					.only_if_needed = only_if_needed,
					.out = out,
					.err = err,
					.errlen = errlen };
	uint64_t timeout_us;
	int rc;

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (nid == NULL || lnet_nid_is_any(nid) || out == NULL) {
		snprintf(err, errlen, "a NID is required");
		return -EINVAL;
	}
	if (lnet_nid_is_lo0(nid) || lnet_ni_find_by_nid(a.ln, nid) != NULL) {
		snprintf(err, errlen, "%s is a NID of this node", libcfs_nidstr(nid));
		return -EINVAL; /* no peer to discover: this node's own NIs */
	}
	a.nid = *nid;
	memset(out, 0, sizeof(*out));
	rc = rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_discover_start_on_mgmt, &a);
	if (rc != 0) {
		if (err[0] == '\0') {
			snprintf(err, errlen, "discover: %s", strerror(-rc));
		}
		return rc;
	}
	/* The machine's own timer ends a discovery; this bound only guards the wait. */
	timeout_us = 3 * lnet_node(a.ln)->peer_dir->disc.timeout + LNP_US_PER_S;
	if (!rt_wait_until(a.ln->rt, lnet_discover_done, &a, timeout_us)) {
		snprintf(err, errlen, "discovery timed out");
		return -ETIMEDOUT;
	}
	return a.rc;
}

int
lnet_ctl_discover(const struct lnet_nid *nid, bool force, struct lnet_ctl_peer *out, char *err,
		  size_t errlen)
{
	return lnet_discover_wait(nid, force, false, out, err, errlen);
}

int
lnet_discovery_primary_nid(struct lnet_nid *nid)
{
	struct lnet_ctl_peer p;
	char err[128] = "";
	int rc = lnet_discover_wait(nid, false, true, &p, err, sizeof(err));

	if (rc == 0 && p.nnis > 0) {
		*nid = p.nis[0];
	}
	return rc;
}

/* LNetPeerDiscovered's answer for @p a->nid's peer; an undiscovered one is queued. */
static int
lnet_peer_discovered_on_mgmt(void *arg)
{
	struct lnet_discover_args *a = arg;
	struct lnet_peer_dir *d = lnet_peer_dir_get(a->ln);
	struct lnet_peer *p = d != NULL ? lnet_peer_get(d, &a->nid) : NULL;

	if (p == NULL) {
		return -ENOMEM;
	}
	switch (p->disc.state) {
	case LNET_DISC_DISCOVERED:
	case LNET_DISC_NO_DISCOVERY:
		return 1;
	case LNET_DISC_PING_SENT:
	case LNET_DISC_WORK:
	case LNET_DISC_PUSH_SENT:
		return -EALREADY;
	case LNET_DISC_ERROR:
		return -EHOSTUNREACH;
	default:
		/* Queued; how it ends is the next call's answer. */
		lnet_disc_discover(&p->disc, false, lnet_disc_now(d));
		lnet_discovery_settle(d, p);
		return -EAGAIN;
	}
}

int
lnet_discovery_peer_discovered(const struct lnet_nid *nid)
{
	struct lnet_discover_args a = { .ln = lnet_instance(), .nid = *nid };

	if (a.ln == NULL) {
		return -ENETRESET;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_peer_discovered_on_mgmt, &a);
}
