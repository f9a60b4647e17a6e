/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Public entry points for MEs, MDs, PUT and GET. Each runs its work on the
 * data lcore that owns the object (the MD's CPT, or the match table's CPT),
 * called synchronously from application threads and inline on the owner.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_internal.h"

static struct lnet *
lnet_api_instance(void)
{
	struct lnet *ln = lnet_instance();

	if (ln == NULL) {
		LNET_LOG(ERR, "LNet is not initialized (call LNetNIInit first)");
	}
	return ln;
}

/* CPT of the caller if it is a data lcore of @p ln, else @p fallback. */
static unsigned int
lnet_cpt_current_or(struct lnet *ln, unsigned int fallback)
{
	struct lnet_cpt *self = lnet_cpt_self(ln);

	return self != NULL ? self->cpt : fallback;
}

static bool
lnet_me_is_unique(const struct lnet_processid *id, uint64_t ignore_bits)
{
	return ignore_bits == 0 && id->pid != LNET_PID_ANY && !lnet_nid_is_any(&id->nid);
}

struct lnet_me *
LNetMEAttach(unsigned int portal, const struct lnet_processid *match_id, uint64_t match_bits,
	     uint64_t ignore_bits, enum lnet_unlink unlink, enum lnet_ins_pos pos)
{
	struct lnet *ln = lnet_api_instance();
	struct lnet_me *me;
	bool unique;

	if (ln == NULL) {
		errno = ENETDOWN;
		return NULL;
	}
	if (portal >= LNET_MAX_PORTALS || match_id == NULL || pos > LNET_INS_LOCAL) {
		errno = EINVAL;
		return NULL;
	}
	unique = lnet_me_is_unique(match_id, ignore_bits);
	if (lnet_ptl_claim(ln, portal, unique) != 0) {
		LNET_LOG(ERR, "portal %u is %s: cannot attach a %s ME", portal,
			 unique ? "wildcard" : "unique", unique ? "unique" : "wildcard");
		errno = EPERM;
		return NULL;
	}
	me = calloc(1, sizeof(*me));
	if (me == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	me->match_id = *match_id;
	me->match_bits = match_bits;
	me->ignore_bits = ignore_bits;
	me->portal = portal;
	me->unlink = unlink;
	me->pos = pos;
	me->unique = unique;
	if (unique) {
		me->cpt = (uint16_t)lnet_cpt_of_nid(ln, &match_id->nid);
	} else if (pos == LNET_INS_LOCAL) {
		me->cpt = (uint16_t)lnet_cpt_current_or(ln, portal % ln->ncpts);
	} else {
		me->cpt = (uint16_t)(portal % ln->ncpts);
	}
	return me;
}

struct lnet_md_args {
	struct lnet *ln;
	struct lnet_me *me;
	const struct lnet_md *umd;
	enum lnet_unlink unlink;
	unsigned int cpt;
	struct lnet_handle_md *handle;
};

/* Messages waiting on a lazy portal get a look at the new MD. */
static void
lnet_md_kick_lazy(struct lnet_cpt *c, const struct lnet_me *me)
{
	unsigned int home = me->portal % c->ln->ncpts;
	struct lnet_msg *carrier;

	if (!lnet_ptl_is_lazy(c->ln, me->portal)) {
		return;
	}
	if (me->unique || home == c->cpt) {
		lnet_ptl_rematch(c, me->portal);
		return;
	}
	carrier = lnet_msg_alloc(c);
	if (carrier == NULL) {
		LNET_LOG(WARNING, "no memory to rematch portal %u", me->portal);
		return;
	}
	memset(&carrier->hdr, 0, sizeof(carrier->hdr));
	carrier->hdr.msg.put.ptl_index = me->portal;
	lnet_msg_dispatch(c->ln, carrier, home, LNET_STEP_REMATCH);
}

static int
lnet_md_attach_on_cpt(void *arg)
{
	struct lnet_md_args *a = arg;
	struct lnet_cpt *c = lnet_cpt_get(a->ln, a->cpt);
	struct lnet_libmd *md;
	int rc;

	rc = lnet_md_build(&c->mds, a->umd, a->unlink, c->cpt, &md);
	if (rc == 0) {
		rc = lnet_md_insert(c, md);
		if (rc != 0) {
			lnet_md_recycle(&c->mds, md);
		}
	}
	if (rc != 0) {
		free(a->me);
		return rc;
	}
	/* The handle first: a waiting message may consume and unlink the MD. */
	a->handle->cookie = md->cookie;
	if (a->me != NULL) {
		md->me = a->me;
		a->me->md = md;
		lnet_me_insert(c, a->me);
		lnet_md_kick_lazy(c, a->me);
	}
	return 0;
}

int
LNetMDAttach(struct lnet_me *me, const struct lnet_md *md, enum lnet_unlink unlink,
	     struct lnet_handle_md *handle)
{
	struct lnet *ln = lnet_api_instance();
	struct lnet_md_args a = { ln, me, md, unlink, 0, handle };

	if (me == NULL || me->md != NULL) {
		return -EINVAL;
	}
	/* As in kernel LNet, a failed attach consumes the ME. */
	if (ln == NULL || md == NULL || handle == NULL ||
	    (md->umd_options & (LNET_MD_OP_PUT | LNET_MD_OP_GET)) == 0) {
		if (ln != NULL && md != NULL && handle != NULL) {
			LNET_LOG(ERR, "LNetMDAttach: MD accepts neither PUT nor GET");
		}
		free(me);
		return ln == NULL ? -ENETDOWN : -EINVAL;
	}
	a.cpt = me->cpt;
	return lnet_call_on_cpt(ln, a.cpt, lnet_md_attach_on_cpt, &a);
}

int
LNetMDBind(const struct lnet_md *md, enum lnet_unlink unlink, struct lnet_handle_md *handle)
{
	struct lnet *ln = lnet_api_instance();
	struct lnet_md_args a = { ln, NULL, md, unlink, 0, handle };

	if (ln == NULL) {
		return -ENETDOWN;
	}
	if (md == NULL || handle == NULL) {
		return -EINVAL;
	}
	if ((md->umd_options & (LNET_MD_OP_PUT | LNET_MD_OP_GET)) != 0) {
		LNET_LOG(ERR, "LNetMDBind: OP_PUT/OP_GET are for attached MDs only");
		return -EINVAL;
	}
	a.cpt = lnet_cpt_current_or(ln, __atomic_fetch_add(&ln->bind_rotor, 1, __ATOMIC_RELAXED) %
						ln->ncpts);
	return lnet_call_on_cpt(ln, a.cpt, lnet_md_attach_on_cpt, &a);
}

struct lnet_unlink_args {
	struct lnet *ln;
	uint64_t cookie;
};

static int
lnet_md_unlink_on_cpt(void *arg)
{
	struct lnet_unlink_args *a = arg;
	struct lnet_cpt *c = lnet_cpt_get(a->ln, lnet_cookie_cpt(a->cookie));
	struct lnet_libmd *md = lnet_md_lookup(c, a->cookie);
	struct lnet_event ev;

	if (md == NULL || (md->flags & LNET_MD_FLAG_ZOMBIE) != 0) {
		return -ENOENT;
	}
	lnet_md_unlink(c, md);
	if (md->refcount == 0) {
		/* Nothing in flight will report the unlink: say it now. */
		memset(&ev, 0, sizeof(ev));
		ev.type = LNET_EVENT_UNLINK;
		ev.unlinked = 1;
		lnet_md_deliver_event(c, md, &ev);
		lnet_md_release(c, md);
	}
	return 0;
}

int
LNetMDUnlink(struct lnet_handle_md handle)
{
	struct lnet *ln = lnet_api_instance();
	struct lnet_unlink_args a = { ln, handle.cookie };

	if (ln == NULL) {
		return -ENETDOWN;
	}
	if (lnet_cookie_cpt(handle.cookie) >= ln->ncpts) {
		return -ENOENT;
	}
	return lnet_call_on_cpt(ln, lnet_cookie_cpt(handle.cookie), lnet_md_unlink_on_cpt, &a);
}

/*
 * An LNetPut/LNetGet as its lcore takes it. The caller waits for that
 * lcore (lnet_call_on_cpt), so self and target may point at its arguments:
 * no copies, and every field is set by name (no zeroing of the whole).
 */
struct lnet_send_args {
	struct lnet *ln;
	const struct lnet_nid *self; /* the caller's source NID, or any */
	const struct lnet_processid *target;
	uint64_t cookie;
	uint64_t match_bits;
	uint64_t hdr_data;
	uint32_t type;
	unsigned int portal;
	unsigned int offset;
	bool ack;
	bool recovery;
};

static void
lnet_send_args_to_hdr(const struct lnet_send_args *a, const struct lnet_libmd *md,
		      struct lnet_hdr *h)
{
	struct lnet_handle_wire wmd = { a->ln->interface_cookie, md->cookie };

	/* Every field: lnet_msg_alloc() leaves the header as the cache had it. */
	h->type = a->type;
	h->src_nid = *a->self;
	h->dest_nid = a->target->nid;
	h->dest_pid = a->target->pid;
	h->src_pid = a->ln->pid;
	if (a->type == LNET_MSG_PUT) {
		h->payload_length = md->length;
		if (a->ack) {
			h->msg.put.ack_wmd = wmd;
		} else {
			memset(&h->msg.put.ack_wmd, 0xff, sizeof(h->msg.put.ack_wmd));
		}
		h->msg.put.match_bits = a->match_bits;
		h->msg.put.hdr_data = a->hdr_data;
		h->msg.put.ptl_index = a->portal;
		h->msg.put.offset = a->offset;
	} else {
		h->payload_length = 0;
		memset(&h->msg, 0, sizeof(h->msg)); /* the GET's fields leave a tail unused */
		h->msg.get.return_wmd = wmd;
		h->msg.get.match_bits = a->match_bits;
		h->msg.get.ptl_index = a->portal;
		h->msg.get.src_offset = a->offset;
		h->msg.get.sink_length = md->length;
	}
}

static int
lnet_send_on_cpt(void *arg)
{
	struct lnet_send_args *a = arg;
	struct lnet_cpt *c = lnet_cpt_get(a->ln, lnet_cookie_cpt(a->cookie));
	struct lnet_libmd *md = lnet_md_lookup(c, a->cookie);
	struct lnet_msg *msg;
	unsigned int len;

	if (md == NULL || md->threshold == 0 || md->me != NULL ||
	    (md->flags & LNET_MD_FLAG_ZOMBIE) != 0) {
		return -ENOENT;
	}
	msg = lnet_msg_alloc(c);
	if (msg == NULL) {
		return -ENOMEM;
	}
	msg->tx = true;
	msg->recovery = a->recovery;
	msg->target = *a->target;
	lnet_send_args_to_hdr(a, md, &msg->hdr);
	len = a->type == LNET_MSG_PUT ? md->length : 0;
	lnet_md_attach_msg(md, msg, 0, len);
	if (a->type == LNET_MSG_GET || a->ack) {
		msg->md_ask = ++md->asks;
		lnet_rsp_track(c, md, a->type);
	}
	lnet_send_md_step(c, msg);
	return 0;
}

static const struct lnet_nid lnet_send_any_nid = LNET_ANY_NID;

static int
lnet_send_common(struct lnet_send_args *a)
{
	if (a->ln == NULL) {
		return -ENETDOWN;
	}
	if (a->target == NULL || lnet_nid_is_any(&a->target->nid) ||
	    a->portal >= LNET_MAX_PORTALS) {
		return -EINVAL;
	}
	if (lnet_cookie_cpt(a->cookie) >= a->ln->ncpts) {
		return -ENOENT;
	}
	return lnet_call_on_cpt(a->ln, lnet_cookie_cpt(a->cookie), lnet_send_on_cpt, a);
}

int
LNetPut(const struct lnet_nid *self, struct lnet_handle_md mdh, enum lnet_ack_req ack,
	const struct lnet_processid *target, unsigned int portal, uint64_t match_bits,
	unsigned int offset, uint64_t hdr_data)
{
	struct lnet_send_args a = {
		.ln = lnet_api_instance(),
		.self = self != NULL ? self : &lnet_send_any_nid,
		.target = target,
		.cookie = mdh.cookie,
		.match_bits = match_bits,
		.hdr_data = hdr_data,
		.type = LNET_MSG_PUT,
		.portal = portal,
		.offset = offset,
		.ack = ack == LNET_ACK_REQ,
		.recovery = false,
	};

	return lnet_send_common(&a);
}

int
LNetGet(const struct lnet_nid *self, struct lnet_handle_md mdh, const struct lnet_processid *target,
	unsigned int portal, uint64_t match_bits, unsigned int offset, bool recovery)
{
	struct lnet_send_args a = {
		.ln = lnet_api_instance(),
		.self = self != NULL ? self : &lnet_send_any_nid,
		.target = target,
		.cookie = mdh.cookie,
		.match_bits = match_bits,
		.hdr_data = 0,
		.type = LNET_MSG_GET,
		.portal = portal,
		.offset = offset,
		.ack = false,
		.recovery = recovery,
	};

	return lnet_send_common(&a);
}
