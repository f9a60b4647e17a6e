/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ping/push data checked, then planned against one peer of the table
 * (lnet_peer_merge.h). The rules are the kernel's (peer.c of 2.17, facts
 * only) where it has one; where it tolerates bad data that a conforming
 * sender never builds (a NID listed twice, 0@lo listed again), the data is
 * refused, as issue 13 asks.
 */
#include <errno.h>
#include <string.h>

#include "lnet_idl.h"
#include "lnet_peer_merge.h"

static const char *const lnet_merge_errs[LNET_MERGE_EMAX] = {
	[LNET_MERGE_OK] = "ok",
	[LNET_MERGE_TRUNCATED] = "truncated: re-ping with a bigger buffer",
	[LNET_MERGE_ESHORT] = "shorter than a ping info header or than it declares",
	[LNET_MERGE_EMAGIC] = "bad ping info magic",
	[LNET_MERGE_EFEATURES] = "NI_STATUS feature missing",
	[LNET_MERGE_ENNIS] = "NID count or size beyond the limit",
	[LNET_MERGE_ELO] = "entry 0 is not 0@lo, or 0@lo is listed again",
	[LNET_MERGE_ESIZE] = "declared size inconsistent with the entries",
	[LNET_MERGE_ENID] = "malformed or ANY NID",
	[LNET_MERGE_EDUP] = "a NID is listed twice",
	[LNET_MERGE_ENOPRIMARY] = "no NID but 0@lo",
	[LNET_MERGE_ENOTMR] = "push from a peer that is not Multi-Rail",
};

const char *
lnet_merge_strerror(enum lnet_merge_rc rc)
{
	return (unsigned int)rc < LNET_MERGE_EMAX ? lnet_merge_errs[rc] : "unknown";
}

/* ---- proposal ---- */

size_t
lnet_merge_max_info_size(unsigned int nids)
{
	/* 0@lo's 16 bytes, then at worst a large record (status + 20-byte NID) each */
	return LNET_PING_INFO_HDR_SIZE + sizeof(struct lnet_ni_status) +
	       (size_t)nids * (4U + sizeof(struct lnet_nid));
}

static uint64_t *
lnet_merge_counter(struct lnet_merge_counters *c, enum lnet_merge_rc rc)
{
	switch (rc) {
	case LNET_MERGE_OK:
		return &c->accepted;
	case LNET_MERGE_TRUNCATED:
		return &c->truncated;
	case LNET_MERGE_ESHORT:
		return &c->short_data;
	case LNET_MERGE_EMAGIC:
		return &c->bad_magic;
	case LNET_MERGE_EFEATURES:
		return &c->bad_features;
	case LNET_MERGE_ENNIS:
		return &c->bad_count;
	case LNET_MERGE_ELO:
		return &c->bad_lo;
	case LNET_MERGE_ESIZE:
		return &c->bad_size;
	case LNET_MERGE_EDUP:
		return &c->dup_nid;
	case LNET_MERGE_ENOPRIMARY:
		return &c->no_primary;
	case LNET_MERGE_ENOTMR:
		return &c->not_mr;
	case LNET_MERGE_ENID:
	case LNET_MERGE_EMAX:
		break;
	}
	return &c->bad_nid;
}

static enum lnet_merge_rc
lnet_merge_count(struct lnet_merge_counters *cnt, enum lnet_merge_rc rc)
{
	(*lnet_merge_counter(cnt, rc))++;
	return rc;
}

/* A decoder error other than ESHORT, as a refusal. */
static enum lnet_merge_rc
lnet_merge_from_wire(int wrc)
{
	switch (-wrc) {
	case LNET_WIRE_EMAGIC:
		return LNET_MERGE_EMAGIC;
	case LNET_WIRE_EFEATURES:
		return LNET_MERGE_EFEATURES;
	case LNET_WIRE_ENNIS:
		return LNET_MERGE_ENNIS;
	case LNET_WIRE_ELO:
		return LNET_MERGE_ELO;
	case LNET_WIRE_ESIZE:
		return LNET_MERGE_ESIZE;
	case LNET_WIRE_ESHORT:
		return LNET_MERGE_ESHORT;
	default:
		return LNET_MERGE_ENID;
	}
}

/*
 * The data is cut short: a push whose PUT was truncated by our target
 * (mlength < rlength), or a ping REPLY cut to our GET's sink length, which
 * the kernel sees from the size the header declares. Then p->need is what
 * a re-ping must ask for, unless that is beyond any allowed size.
 */
static enum lnet_merge_rc
lnet_merge_truncated(const struct lnet_merge_input *in, const struct lnet_ping_decoded *d, int wrc,
		     struct lnet_merge_proposal *p)
{
	size_t sent = in->rlength > in->mlength ? in->rlength : in->mlength;
	bool header_read = in->mlength >= LNET_PING_INFO_HDR_SIZE + sizeof(struct lnet_ni_status);
	size_t need = sent;

	if (wrc == -LNET_WIRE_ESHORT && header_read && d->info_size > need) {
		need = d->info_size;
	}
	if (sent > in->mlength) {
		/* a push: our target took less than was sent */
	} else if (in->kind != LNET_MERGE_PING_REPLY || wrc != -LNET_WIRE_ESHORT || !header_read) {
		return LNET_MERGE_OK; /* not truncated by us */
	}
	if (need > lnet_merge_max_info_size(p->cap)) {
		return LNET_MERGE_ENNIS;
	}
	p->need = need;
	return LNET_MERGE_TRUNCATED;
}

static bool
lnet_merge_listed_before(const struct lnet_ping_entry *nids, unsigned int i)
{
	unsigned int j;

	for (j = 0; j < i; j++) {
		if (lnet_nid_same(&nids[j].nid, &nids[i].nid)) {
			return true;
		}
	}
	return false;
}

/*
 * What the decoder leaves to us. Quadratic in the count, which cap (the
 * node's max_interfaces) bounds; a conforming sender lists a few NIDs.
 */
static enum lnet_merge_rc
lnet_merge_check_nids(const struct lnet_merge_proposal *p)
{
	unsigned int i;

	for (i = 0; i < p->nnids; i++) {
		const struct lnet_nid *nid = &p->nids[i].nid;

		if (lnet_nid_is_lo0(nid)) {
			return LNET_MERGE_ELO;
		}
		if (lnet_nid_is_any(nid)) { /* the decoder checked their form */
			return LNET_MERGE_ENID;
		}
		if (lnet_merge_listed_before(p->nids, i)) {
			return LNET_MERGE_EDUP;
		}
	}
	return lnet_nid_is_any(&p->primary) ? LNET_MERGE_ENOPRIMARY : LNET_MERGE_OK;
}

static void
lnet_merge_fill(struct lnet_merge_proposal *p, const struct lnet_ping_decoded *d)
{
	p->primary = d->primary;
	p->seqno = d->seqno;
	p->features = d->features;
	p->pid = d->pid;
	p->multi_rail = (d->features & LNET_PING_FEAT_MULTI_RAIL) != 0;
	p->discovery = (d->features & LNET_PING_FEAT_DISCOVERY) != 0;
	p->router = (d->features & LNET_PING_FEAT_RTE_DISABLED) == 0;
	p->nnids = d->nnis_total;
}

enum lnet_merge_rc
lnet_merge_propose(const struct lnet_merge_input *in, struct lnet_merge_proposal *p,
		   struct lnet_merge_counters *cnt)
{
	struct lnet_ping_decoded d;
	enum lnet_merge_rc rc;
	unsigned int max_nis;
	int wrc;

	p->nnids = 0;
	p->need = 0;
	p->primary = LNET_ANY_NID;
	if (p->nids == NULL) {
		p->cap = 0; /* no room: any NID is too many */
	} else if (p->cap > LNET_INTERFACES_MAX_DEFAULT) {
		p->cap = LNET_INTERFACES_MAX_DEFAULT; /* more would not fit a ping buffer */
	}
	max_nis = p->cap + 1; /* the decoder counts 0@lo */
	wrc = lnet_ping_info_decode(in->buf, in->mlength, max_nis, &d, p->nids, p->cap);
	if (wrc != 0 && wrc != -LNET_WIRE_ESHORT && wrc != -LNET_WIRE_ESIZE) {
		return lnet_merge_count(cnt, lnet_merge_from_wire(wrc));
	}
	rc = lnet_merge_truncated(in, &d, wrc, p);
	if (rc != LNET_MERGE_OK) {
		return lnet_merge_count(cnt, rc);
	}
	if (wrc != 0) {
		return lnet_merge_count(cnt, lnet_merge_from_wire(wrc));
	}
	lnet_merge_fill(p, &d);
	rc = lnet_merge_check_nids(p);
	if (rc == LNET_MERGE_OK && in->kind == LNET_MERGE_PUSH && !p->multi_rail) {
		rc = LNET_MERGE_ENOTMR; /* the kernel drops such a push */
	}
	if (rc != LNET_MERGE_OK) {
		p->nnids = 0;
		p->primary = LNET_ANY_NID;
	}
	return lnet_merge_count(cnt, rc);
}

/* ---- plan ---- */

/* The plan being built, with what it has decided so far. */
struct lnet_merge_ctx {
	const struct lnet_merge_proposal *p;
	const struct lnet_merge_peer *peer;
	lnet_merge_lookup_fn lookup;
	void *arg;
	struct lnet_merge_plan *plan;
	bool overflow;
};

static void
lnet_merge_emit(struct lnet_merge_ctx *c, enum lnet_merge_op_type type, const struct lnet_nid *nid,
		uint32_t status, lnet_merge_peer_id from, enum lnet_merge_refusal why)
{
	struct lnet_merge_plan *plan = c->plan;

	if (plan->nops >= plan->cap) {
		c->overflow = true;
		return;
	}
	plan->ops[plan->nops++] = (struct lnet_merge_op){
		.type = type,
		.nid = *nid,
		.status = status,
		.from = from,
		.why = why,
	};
}

static bool
lnet_merge_op_attaches(const struct lnet_merge_op *op)
{
	return op->type == LNET_MERGE_OP_ADD || op->type == LNET_MERGE_OP_MOVE ||
	       op->type == LNET_MERGE_OP_TAKE_PEER;
}

static bool
lnet_merge_in_peer(const struct lnet_merge_peer *peer, const struct lnet_nid *nid)
{
	unsigned int i;

	for (i = 0; i < peer->nnids; i++) {
		if (lnet_nid_same(&peer->nids[i], nid)) {
			return true;
		}
	}
	return false;
}

/* Ops so far of @type taken from peer @from. */
static unsigned int
lnet_merge_count_from(const struct lnet_merge_ctx *c, enum lnet_merge_op_type type,
		      lnet_merge_peer_id from)
{
	unsigned int i;
	unsigned int n = 0;

	for (i = 0; i < c->plan->nops; i++) {
		n += c->plan->ops[i].type == type && c->plan->ops[i].from == from;
	}
	return n;
}

static bool
lnet_merge_listed(const struct lnet_merge_proposal *p, const struct lnet_nid *nid)
{
	unsigned int i;

	for (i = 0; i < p->nnids; i++) {
		if (lnet_nid_same(&p->nids[i].nid, nid)) {
			return true;
		}
	}
	return false;
}

/*
 * The peer keeps a NID on @nid's net once the plan is applied. Unlike the
 * kernel (which adds before it deletes, so a NID about to go still blocks
 * its net for a round), NIDs the data no longer lists do not count, except
 * the primary, which stays: one round of discovery settles the peer.
 */
static bool
lnet_merge_has_net(const struct lnet_merge_ctx *c, const struct lnet_nid *nid)
{
	unsigned int i;

	for (i = 0; i < c->peer->nnids; i++) {
		const struct lnet_nid *have = &c->peer->nids[i];

		if (!lnet_merge_listed(c->p, have) && !lnet_nid_same(have, &c->plan->primary)) {
			continue;
		}
		if (lnet_nid_same_net(have, nid)) {
			return true;
		}
	}
	for (i = 0; i < c->plan->nops; i++) {
		if (lnet_merge_op_attaches(&c->plan->ops[i]) &&
		    lnet_nid_same_net(&c->plan->ops[i].nid, nid)) {
			return true;
		}
	}
	return false;
}

/*
 * @nid belongs to peer @o: a configured peer keeps it; another peer's
 * locked primary stays there unless it is that peer's only NID (both
 * peers are then misconfigured); another primary takes its whole peer
 * along (which is deleted), and passes its lock on if it is the older.
 */
static void
lnet_merge_claim(struct lnet_merge_ctx *c, const struct lnet_nid *nid, uint32_t status,
		 const struct lnet_merge_owner *o)
{
	struct lnet_merge_plan *plan = c->plan;
	unsigned int o_nnids;

	if (o->peer_configured) {
		lnet_merge_emit(c, LNET_MERGE_OP_REFUSE, nid, status, o->peer,
				LNET_MERGE_REFUSE_CONFIGURED_NI);
		return;
	}
	if (!o->is_primary) {
		lnet_merge_emit(c, LNET_MERGE_OP_MOVE, nid, status, o->peer,
				LNET_MERGE_REFUSE_NONE);
		return;
	}
	o_nnids = o->peer_nnids - lnet_merge_count_from(c, LNET_MERGE_OP_MOVE, o->peer);
	if (o->peer_lock_primary && o_nnids > 1) {
		plan->bad_config = true;
		lnet_merge_emit(c, LNET_MERGE_OP_REFUSE, nid, status, o->peer,
				LNET_MERGE_REFUSE_LOCKED_PRIMARY);
		return;
	}
	if (o->peer_lock_primary && (!plan->lock_primary || o->peer_lock_ts < plan->lock_ts)) {
		plan->lock_primary = true;
		plan->lock_ts = o->peer_lock_ts;
		plan->primary = *nid;
	}
	lnet_merge_emit(c, LNET_MERGE_OP_TAKE_PEER, nid, status, o->peer, LNET_MERGE_REFUSE_NONE);
}

/*
 * The kernel's add_nid checks of the peer itself: a configured peer only
 * changes through configuration; Multi-Rail is set by MR data and never
 * cleared, so non-MR data adds nothing to a MR peer.
 */
static enum lnet_merge_refusal
lnet_merge_peer_refuses(struct lnet_merge_ctx *c)
{
	if (c->peer->configured) {
		return LNET_MERGE_REFUSE_CONFIGURED_PEER;
	}
	if (c->p->multi_rail) {
		c->plan->multi_rail = true;
	} else if (c->plan->multi_rail) {
		return LNET_MERGE_REFUSE_NOT_MR;
	}
	return LNET_MERGE_REFUSE_NONE;
}

/* The kernel's add_nid for a NID the peer does not have: false when refused. */
static bool
lnet_merge_add(struct lnet_merge_ctx *c, const struct lnet_nid *nid, uint32_t status)
{
	enum lnet_merge_refusal why = lnet_merge_peer_refuses(c);
	unsigned int before = c->plan->nops;
	struct lnet_merge_owner o;

	/* Checked before any claim (the kernel deletes a claimed peer first). */
	if (why == LNET_MERGE_REFUSE_NONE && !c->plan->multi_rail && lnet_merge_has_net(c, nid)) {
		why = LNET_MERGE_REFUSE_NON_MR_NET;
	}
	if (why != LNET_MERGE_REFUSE_NONE) {
		lnet_merge_emit(c, LNET_MERGE_OP_REFUSE, nid, status, c->peer->id, why);
		return false;
	}
	memset(&o, 0, sizeof(o));
	if (!c->lookup(c->arg, nid, &o) || o.peer == c->peer->id ||
	    lnet_merge_count_from(c, LNET_MERGE_OP_TAKE_PEER, o.peer) != 0) {
		/* nobody's, or a peer this plan deletes */
		lnet_merge_emit(c, LNET_MERGE_OP_ADD, nid, status, 0, LNET_MERGE_REFUSE_NONE);
		return true;
	}
	lnet_merge_claim(c, nid, status, &o);
	return c->plan->nops > before && c->plan->ops[before].type != LNET_MERGE_OP_REFUSE;
}

static uint32_t
lnet_merge_status_of(const struct lnet_merge_proposal *p, const struct lnet_nid *nid)
{
	unsigned int i;

	for (i = 0; i < p->nnids; i++) {
		if (lnet_nid_same(&p->nids[i].nid, nid)) {
			return p->nids[i].status;
		}
	}
	return LNET_NI_STATUS_INVALID;
}

/*
 * The kernel's set_primary_nid: the peer takes @nid (the data's primary)
 * as its primary unless the primary is locked, and @nid is added; if the
 * add is refused, the primary stays. A NID the peer has already is only
 * checked (merge_data caches its status).
 */
static void
lnet_merge_set_primary(struct lnet_merge_ctx *c, const struct lnet_nid *nid)
{
	struct lnet_nid old = c->plan->primary;

	if (lnet_nid_same(&old, nid)) {
		return;
	}
	if (!c->plan->lock_primary) {
		c->plan->primary = *nid;
	}
	if (lnet_merge_in_peer(c->peer, nid) ?
		    lnet_merge_peer_refuses(c) != LNET_MERGE_REFUSE_NONE :
		    !lnet_merge_add(c, nid, lnet_merge_status_of(c->p, nid))) {
		c->plan->primary = old;
	}
}

/*
 * The kernel's del_nid: a configured peer keeps its NIDs, and so does the
 * primary (the kernel drops a lone unlocked primary with its peer; here a
 * peer always keeps one NID, its primary).
 */
static void
lnet_merge_del(struct lnet_merge_ctx *c, const struct lnet_nid *nid)
{
	if (c->peer->configured) {
		lnet_merge_emit(c, LNET_MERGE_OP_KEEP, nid, 0, c->peer->id,
				LNET_MERGE_REFUSE_CONFIGURED_PEER);
	} else if (lnet_nid_same(nid, &c->plan->primary)) {
		lnet_merge_emit(c, LNET_MERGE_OP_KEEP, nid, 0, c->peer->id, LNET_MERGE_REFUSE_NONE);
	} else {
		lnet_merge_emit(c, LNET_MERGE_OP_REMOVE, nid, 0, 0, LNET_MERGE_REFUSE_NONE);
	}
}

/* An op names @nid already. */
static bool
lnet_merge_has_op(const struct lnet_merge_ctx *c, const struct lnet_nid *nid)
{
	unsigned int i;

	for (i = 0; i < c->plan->nops; i++) {
		if (lnet_nid_same(&c->plan->ops[i].nid, nid)) {
			return true;
		}
	}
	return false;
}

/* The kernel's merge_data: add what is new, drop what is gone, cache statuses. */
static void
lnet_merge_data(struct lnet_merge_ctx *c, bool status_only)
{
	const struct lnet_merge_peer *peer = c->peer;
	unsigned int i;

	for (i = 0; i < c->p->nnids; i++) {
		const struct lnet_ping_entry *e = &c->p->nids[i];

		if (lnet_merge_in_peer(peer, &e->nid)) {
			lnet_merge_emit(c, LNET_MERGE_OP_UPDATE, &e->nid, e->status, 0,
					LNET_MERGE_REFUSE_NONE);
		} else if (!status_only && !lnet_merge_has_op(c, &e->nid)) {
			lnet_merge_add(c, &e->nid, e->status);
		}
	}
	if (status_only) {
		return;
	}
	for (i = 0; i < peer->nnids; i++) {
		if (!lnet_nid_is_lo0(&peer->nids[i]) && !lnet_merge_listed(c->p, &peer->nids[i])) {
			lnet_merge_del(c, &peer->nids[i]);
		}
	}
}

/* Refused NIDs, counted once the plan is whole. */
static void
lnet_merge_count_plan(const struct lnet_merge_plan *plan, struct lnet_merge_counters *cnt)
{
	unsigned int i;

	for (i = 0; i < plan->nops; i++) {
		const struct lnet_merge_op *op = &plan->ops[i];

		if (op->type != LNET_MERGE_OP_REFUSE &&
		    !(op->type == LNET_MERGE_OP_KEEP && op->why != LNET_MERGE_REFUSE_NONE)) {
			continue;
		}
		switch (op->why) {
		case LNET_MERGE_REFUSE_CONFIGURED_NI:
			cnt->claimed_configured++;
			break;
		case LNET_MERGE_REFUSE_LOCKED_PRIMARY:
			cnt->claimed_locked++;
			break;
		case LNET_MERGE_REFUSE_CONFIGURED_PEER:
			cnt->configured_differs++;
			break;
		case LNET_MERGE_REFUSE_NON_MR_NET:
			cnt->non_mr_net++;
			break;
		case LNET_MERGE_REFUSE_NOT_MR:
			cnt->not_mr_peer++;
			break;
		case LNET_MERGE_REFUSE_NONE:
			break;
		}
	}
}

/* The primary the peer has before the data: the one `discover` asked for if it can. */
static struct lnet_nid
lnet_merge_start_primary(const struct lnet_merge_peer *peer)
{
	if (!lnet_nid_is_any(&peer->want_primary) && !peer->lock_primary && !peer->configured &&
	    lnet_merge_in_peer(peer, &peer->want_primary)) {
		return peer->want_primary;
	}
	return peer->primary;
}

int
lnet_merge_plan(const struct lnet_merge_proposal *p, const struct lnet_merge_peer *peer,
		lnet_merge_lookup_fn lookup, void *arg, struct lnet_merge_plan *plan,
		struct lnet_merge_counters *cnt)
{
	struct lnet_merge_ctx c = { p, peer, lookup, arg, plan, false };
	bool status_only = peer->local_discovery_off || peer->no_discovery || !p->discovery;
	struct lnet_nid start = lnet_merge_start_primary(peer);
	struct lnet_merge_owner o;

	plan->action = status_only ? LNET_MERGE_STATUS_ONLY : LNET_MERGE_APPLY;
	plan->handoff = 0;
	plan->primary = start;
	plan->lock_primary = peer->lock_primary;
	plan->lock_ts = peer->lock_ts;
	plan->multi_rail = peer->multi_rail;
	plan->bad_config = false;
	plan->nops = 0;
	memset(&o, 0, sizeof(o));
	if (peer->handed_off) {
		/* merged as it stands, as the kernel's set_primary_data does */
	} else if (lnet_nid_is_lo0(&start)) {
		lnet_merge_set_primary(&c, &p->primary); /* the peer of this node */
	} else if (lnet_nid_same(&start, &p->primary) ||
		   (status_only && lnet_merge_listed(p, &start))) {
		/* the data is this peer's as it stands */
	} else if (!lookup(arg, &p->primary, &o) || o.peer == peer->id) {
		lnet_merge_set_primary(&c, &p->primary);
	} else {
		plan->action = LNET_MERGE_HANDOFF; /* that peer and this one are one */
		plan->handoff = o.peer;
		plan->primary_changes = false;
		return 0;
	}
	lnet_merge_data(&c, status_only);
	if (c.overflow) {
		return -ENOSPC;
	}
	plan->primary_changes = !lnet_nid_same(&plan->primary, &peer->primary);
	lnet_merge_count_plan(plan, cnt);
	return 0;
}
