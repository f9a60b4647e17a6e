/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An NI's link going down or coming back, as its LND sees it (the kernel's
 * lnet_set_link_fatal_state and lnet_mark_ping_buffer_for_update): the NI
 * is marked fatal, which selection avoids and net show reports as "down";
 * the ping target is rebuilt with the NI's new status under a new sequence
 * number, and that pushes it to every Multi-Rail peer. Health does the
 * same with the NI's status (the kernel's lnet_ni_set_status): DOWN when its
 * health falls to 0, UP when it is back to the maximum; not fatal, so
 * selection still ranks it, by health.
 */
#include <errno.h>
#include <stdlib.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"

struct lnet_ni_link_op {
	struct lnet_mgmt_op op; /* first: the queue hands this back */
	struct rt_hop hop;
	struct lnet_nid nid; /* the NI is looked up again: it may be gone by then */
	bool up;
	bool health; /* the status health gives it, not its link */
};

static void
lnet_ni_link_pinged(void *arg, int rc)
{
	struct lnet_ni_link_op *o = arg;

	if (rc != 0) {
		LNET_LOG(ERR, "%s: link state not pushed: ping target not rebuilt: %s",
			 libcfs_nidstr(&o->nid), strerror(-rc));
	}
	lnet_mgmt_op_done(&o->op, rc);
	free(o); /* no one waits for it */
}

/* On mgmt, in its turn among configuration operations. */
static void
lnet_ni_link_start(struct lnet_mgmt_op *op)
{
	struct lnet_ni_link_op *o = (struct lnet_ni_link_op *)op;
	struct lnet *ln = op->ln;
	struct lnet_ni *ni = lnet_ni_find_by_nid(ln, &o->nid);

	uint32_t status = o->up ? LNET_NI_STATUS_UP : LNET_NI_STATUS_DOWN;

	if (lnet_stopping() || ni == NULL || ni == ln->loni ||
	    (o->health ? ni->status == status :
			 __atomic_load_n(&ni->fatal, __ATOMIC_RELAXED) == !o->up)) {
		lnet_ni_link_pinged(o, 0); /* shutting down, deleted since, or no change */
		return;
	}
	LNET_LOG(NOTICE, "%s: %s %s", libcfs_nidstr(&o->nid), o->health ? "health" : "link",
		 o->up ? "up" : "down");
	if (o->health) {
		ni->status = status;
	} else {
		__atomic_store_n(&ni->fatal, !o->up, __ATOMIC_RELAXED);
	}
	__atomic_fetch_add(&ln->ni_state_gen, 1, __ATOMIC_RELEASE);
	lnet_ping_target_rebuild(ln, lnet_ni_link_pinged, o);
}

static void
lnet_ni_link_submit(void *arg)
{
	struct lnet_ni_link_op *o = arg;

	lnet_mgmt_op_submit(&o->op);
}

void
lnet_ni_state_change(struct lnet_ni *ni, bool up, bool health)
{
	struct lnet_ni_link_op *o = calloc(1, sizeof(*o));

	if (o == NULL) {
		LNET_LOG(ERR, "%s: %s %s not taken: no memory", libcfs_nidstr(&ni->nid),
			 health ? "health" : "link", up ? "up" : "down");
		return;
	}
	o->op.ln = ni->ln;
	o->op.start = lnet_ni_link_start;
	o->nid = ni->nid;
	o->up = up;
	o->health = health;
	rt_hop_send(&o->hop, rt_mgmt_lcore(ni->ln->rt), lnet_ni_link_submit, o);
}
