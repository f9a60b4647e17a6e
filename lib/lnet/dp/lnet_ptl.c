/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Portals, match entries and matching of incoming PUT/GET.
 *
 * A portal is unique (every ME names one peer and exact match bits) or
 * wildcard, fixed by its first ME. Unique MEs live in the match table of the
 * CPT their peer NID hashes to, so a message from that peer is matched on
 * one lcore. Wildcard MEs live in the portal's home CPT (portal % ncpts), or
 * in the caller's CPT with LNET_INS_LOCAL; a wildcard message visits the
 * home CPT first, then the others in turn.
 */
#include <errno.h>
#include <stdlib.h>

#include "lnet_internal.h"

enum lnet_match_rc {
	LNET_MATCHMD_NONE = 0, /* try the next ME */
	LNET_MATCHMD_OK,       /* matched and attached */
	LNET_MATCHMD_DROP,     /* matched but does not fit: drop the message */
};

/* What the message asks for, in matching terms. */
struct lnet_match_info {
	unsigned int opc; /* LNET_MD_OP_PUT or LNET_MD_OP_GET */
	struct lnet_processid initiator;
	uint64_t match_bits;
	unsigned int portal;
	unsigned int rlength;
	unsigned int roffset;
};

int
lnet_ptl_claim(struct lnet *ln, unsigned int portal, bool unique)
{
	int want = unique ? LNET_PTL_UNIQUE : LNET_PTL_WILDCARD;
	int cur = LNET_PTL_UNSET;

	if (__atomic_compare_exchange_n(&ln->portals[portal].type, &cur, want, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		return 0;
	}
	return cur == want ? 0 : -EPERM;
}

bool
lnet_ptl_is_unique(const struct lnet *ln, unsigned int portal)
{
	return __atomic_load_n(&ln->portals[portal].type, __ATOMIC_ACQUIRE) == LNET_PTL_UNIQUE;
}

bool
lnet_ptl_is_lazy(const struct lnet *ln, unsigned int portal)
{
	return __atomic_load_n(&ln->portals[portal].lazy, __ATOMIC_ACQUIRE) != 0;
}

static unsigned int
lnet_mt_hash(uint64_t match_bits)
{
	return (unsigned int)((match_bits * 0x9e3779b97f4a7c15ULL) >> (64 - LNET_MT_HASH_BITS));
}

int
lnet_mt_init(struct lnet_match_table *mt)
{
	unsigned int i;

	TAILQ_INIT(&mt->wildcard);
	TAILQ_INIT(&mt->delayed);
	mt->ndelayed = 0;
	mt->uhash = calloc(LNET_MT_HASH_SIZE, sizeof(*mt->uhash));
	if (mt->uhash == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < LNET_MT_HASH_SIZE; i++) {
		TAILQ_INIT(&mt->uhash[i]);
	}
	return 0;
}

/* MDs and MEs are freed with the MD table; delayed messages with the message pool. */
void
lnet_mt_fini(struct lnet_cpt *c, struct lnet_match_table *mt)
{
	TAILQ_INIT(&mt->delayed);
	(void)c;
	free(mt->uhash);
	mt->uhash = NULL;
}

static struct lnet_me_list *
lnet_me_list_of(struct lnet_cpt *c, unsigned int portal, bool unique, uint64_t match_bits)
{
	struct lnet_match_table *mt = &c->mt[portal];

	return unique ? &mt->uhash[lnet_mt_hash(match_bits)] : &mt->wildcard;
}

void
lnet_me_insert(struct lnet_cpt *c, struct lnet_me *me)
{
	struct lnet_me_list *head = lnet_me_list_of(c, me->portal, me->unique, me->match_bits);

	if (me->pos == LNET_INS_BEFORE) {
		TAILQ_INSERT_HEAD(head, me, link);
	} else {
		TAILQ_INSERT_TAIL(head, me, link);
	}
	me->inserted = true;
}

void
lnet_me_remove(struct lnet_cpt *c, struct lnet_me *me)
{
	struct lnet_me_list *head = lnet_me_list_of(c, me->portal, me->unique, me->match_bits);

	TAILQ_REMOVE(head, me, link);
	me->inserted = false;
}

unsigned int
lnet_ptl_match_cpt_first(const struct lnet *ln, const struct lnet_msg *msg)
{
	unsigned int portal = msg->hdr.type == LNET_MSG_PUT ? msg->hdr.msg.put.ptl_index :
							      msg->hdr.msg.get.ptl_index;

	if (lnet_ptl_is_unique(ln, portal)) {
		return lnet_cpt_of_nid(ln, &msg->hdr.src_nid);
	}
	return portal % ln->ncpts;
}

static void
lnet_match_info_of(const struct lnet_msg *msg, struct lnet_match_info *info)
{
	const struct lnet_hdr *h = &msg->hdr;

	info->initiator.nid = msg->initiator_nid;
	info->initiator.pid = h->src_pid;
	if (h->type == LNET_MSG_PUT) {
		info->opc = LNET_MD_OP_PUT;
		info->match_bits = h->msg.put.match_bits;
		info->portal = h->msg.put.ptl_index;
		info->rlength = h->payload_length;
		info->roffset = h->msg.put.offset;
	} else {
		info->opc = LNET_MD_OP_GET;
		info->match_bits = h->msg.get.match_bits;
		info->portal = h->msg.get.ptl_index;
		info->rlength = h->msg.get.sink_length;
		info->roffset = h->msg.get.src_offset;
	}
}

static bool
lnet_me_matches(const struct lnet_me *me, const struct lnet_match_info *info)
{
	if (me->match_id.pid != LNET_PID_ANY && me->match_id.pid != info->initiator.pid) {
		return false;
	}
	if (!lnet_nid_is_any(&me->match_id.nid) &&
	    !lnet_nid_same(&me->match_id.nid, &info->initiator.nid)) {
		return false;
	}
	return ((me->match_bits ^ info->match_bits) & ~me->ignore_bits) == 0;
}

/* Bytes @p md can take at @p offset for one message. */
static unsigned int
lnet_md_room(const struct lnet_libmd *md, unsigned int offset)
{
	unsigned int room = offset > md->length ? 0 : md->length - offset;

	if ((md->options & LNET_MD_MAX_SIZE) != 0 && md->max_size < room) {
		room = md->max_size;
	}
	return room;
}

static enum lnet_match_rc
lnet_try_match_md(const struct lnet_me *me, const struct lnet_match_info *info,
		  unsigned int *offset, unsigned int *mlength)
{
	const struct lnet_libmd *md = me->md;
	unsigned int room;

	if (md == NULL || !lnet_md_active(md) || (md->options & info->opc) == 0 ||
	    !lnet_me_matches(me, info)) {
		return LNET_MATCHMD_NONE;
	}
	*offset = (md->options & LNET_MD_MANAGE_REMOTE) != 0 ? info->roffset : md->offset;
	room = lnet_md_room(md, *offset);
	if (info->rlength <= room) {
		*mlength = info->rlength;
	} else if ((md->options & LNET_MD_TRUNCATE) != 0) {
		*mlength = room;
	} else {
		return LNET_MATCHMD_DROP;
	}
	return LNET_MATCHMD_OK;
}

static void
lnet_matched(struct lnet_cpt *c, struct lnet_msg *msg, struct lnet_me *me,
	     const struct lnet_match_info *info, unsigned int offset, unsigned int mlength)
{
	struct lnet_libmd *md = me->md;

	if ((md->options & LNET_MD_MANAGE_REMOTE) == 0) {
		md->offset = offset + mlength;
	}
	lnet_md_attach_msg(md, msg, offset, mlength);
	if (lnet_md_exhausted(md) && (md->flags & LNET_MD_FLAG_AUTO_UNLINK) != 0) {
		lnet_md_unlink(c, md);
	}
	if (info->opc == LNET_MD_OP_PUT) {
		msg->ack_pending = !lnet_wire_handle_is_none(&msg->hdr.msg.put.ack_wmd) &&
				   (md->options & LNET_MD_ACK_DISABLE) == 0;
		lnet_ni_recv(c, msg, LNET_RX_DELIVER);
	} else {
		lnet_ni_recv(c, msg, LNET_RX_GET);
	}
}

static enum lnet_match_rc
lnet_match_in_list(struct lnet_cpt *c, struct lnet_msg *msg, struct lnet_me_list *head,
		   const struct lnet_match_info *info)
{
	unsigned int offset = 0;
	unsigned int mlength = 0;
	struct lnet_me *me;

	TAILQ_FOREACH(me, head, link) {
		enum lnet_match_rc rc = lnet_try_match_md(me, info, &offset, &mlength);

		if (rc == LNET_MATCHMD_NONE) {
			continue;
		}
		if (rc == LNET_MATCHMD_OK) {
			lnet_matched(c, msg, me, info, offset, mlength);
		}
		return rc;
	}
	return LNET_MATCHMD_NONE;
}

static void
lnet_delay_or_drop(struct lnet_cpt *c, struct lnet_msg *msg, unsigned int portal)
{
	struct lnet_match_table *mt = &c->mt[portal];

	if (lnet_ptl_is_lazy(c->ln, portal)) {
		TAILQ_INSERT_TAIL(&mt->delayed, msg, link);
		mt->ndelayed++;
		return;
	}
	lnet_drop_rx(c, msg, "no matching MD");
}

/* Match @p msg against this CPT's table; move on, wait or drop if none. */
void
lnet_ptl_match(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet *ln = c->ln;
	struct lnet_match_info info;
	bool unique;
	enum lnet_match_rc rc;

	lnet_match_info_of(msg, &info);
	if (msg->match_tries >= ln->ncpts) {
		lnet_delay_or_drop(c, msg, info.portal);
		return;
	}
	unique = lnet_ptl_is_unique(ln, info.portal);
	rc = lnet_match_in_list(c, msg, lnet_me_list_of(c, info.portal, unique, info.match_bits),
				&info);
	if (rc == LNET_MATCHMD_OK) {
		return;
	}
	if (rc == LNET_MATCHMD_DROP) {
		lnet_drop_rx(c, msg, "message too big for the matching MD");
		return;
	}
	msg->match_tries++;
	if (unique || ln->ncpts == 1) {
		lnet_delay_or_drop(c, msg, info.portal);
	} else if (msg->match_tries < ln->ncpts) {
		lnet_msg_dispatch(ln, msg, (c->cpt + 1) % ln->ncpts, LNET_STEP_RX_MATCH);
	} else {
		/* Searched every CPT: wait (or drop) at the portal's home. */
		lnet_msg_dispatch(ln, msg, info.portal % ln->ncpts, LNET_STEP_RX_MATCH);
	}
}

/* A new MD on a lazy portal: offer it every message waiting here. */
void
lnet_ptl_rematch(struct lnet_cpt *c, unsigned int portal)
{
	struct lnet_match_table *mt = &c->mt[portal];
	struct lnet_msg_list waiting = TAILQ_HEAD_INITIALIZER(waiting);
	struct lnet_msg *msg;

	TAILQ_CONCAT(&waiting, &mt->delayed, link);
	mt->ndelayed = 0;
	while ((msg = TAILQ_FIRST(&waiting)) != NULL) {
		TAILQ_REMOVE(&waiting, msg, link);
		msg->match_tries = 0;
		lnet_msg_dispatch_c(c, msg, lnet_ptl_match_cpt_first(c->ln, msg),
				    LNET_STEP_RX_MATCH);
	}
}

/* The REMATCH step: @p msg, a note carrying the portal, asks this CPT's match table to rematch. */
void
lnet_ptl_rematch_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	lnet_ptl_rematch(c, msg->hdr.msg.put.ptl_index);
	lnet_msg_free_local(c, msg);
}

/* LNetClearLazyPortal: every waiting message is dropped. */
void
lnet_ptl_drop_delayed(struct lnet_cpt *c, unsigned int portal)
{
	struct lnet_match_table *mt = &c->mt[portal];
	struct lnet_msg *msg;

	while ((msg = TAILQ_FIRST(&mt->delayed)) != NULL) {
		TAILQ_REMOVE(&mt->delayed, msg, link);
		mt->ndelayed--;
		lnet_drop_rx(c, msg, "lazy portal cleared");
	}
}

/* net del: messages received on @p ni that wait on a lazy portal are dropped. */
void
lnet_ptl_drop_delayed_ni(struct lnet_cpt *c, const struct lnet_ni *ni)
{
	unsigned int p;

	for (p = 0; p < LNET_MAX_PORTALS; p++) {
		struct lnet_match_table *mt = &c->mt[p];
		struct lnet_msg *msg = TAILQ_FIRST(&mt->delayed);

		while (msg != NULL) {
			struct lnet_msg *next = TAILQ_NEXT(msg, link);

			if (msg->rxni == ni) {
				TAILQ_REMOVE(&mt->delayed, msg, link);
				mt->ndelayed--;
				lnet_drop_rx(c, msg, "its NI was deleted");
			}
			msg = next;
		}
	}
}
