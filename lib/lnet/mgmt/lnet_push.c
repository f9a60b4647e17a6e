/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The push target. A Multi-Rail peer with discovery on pushes its ping info
 * to us when it discovers us or when its NIs change: a PUT to the reserved
 * portal 0 with the ping match bits, ACK requested (the kernel's
 * lnet_push_target_post/lnet_peer_push_event; frame 7 of
 * captures/kernel-vs-pmd/30-test3-discover.pcap). Without an MD there, the
 * PUT is never ACKed and the peer's discovery fails.
 *
 * As the kernel's: a PUT-only, TRUNCATE MD on portal 0 with the ping match
 * bits, LNET_PING_INFO_MIN_SIZE bytes per push to start with. A push bigger
 * than that is received truncated (and ACKed with the length kept); the
 * target then grows to the push's size for the next one, and the truncated
 * one is not used (the kernel then pings the peer instead: discovery).
 *
 * Unlike the kernel's (threshold 1, re-posted by the discovery thread while
 * portal 0 is lazy and pushes wait), the MD's threshold is infinite and
 * portal 0 is not lazy, so a push never waits for an MD. Pushes received
 * concurrently on NIs of other CPTs must not share bytes: the MD is not
 * MANAGE_REMOTE and takes at most one push's room (MAX_SIZE) per PUT, so
 * each push gets its own slice of a buffer of LNET_PUSH_SLOTS slices. Past
 * half of it (or to grow), a new MD is posted before the old one is
 * unlinked; a buffer is freed with its MD's last event.
 *
 * Everything here belongs to portal 0's home CPT, where the MD lives and
 * its handler runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"

#define LNET_PUSH_SLOTS 16U
/* A push may name LNET_INTERFACES_MAX_DEFAULT NIs; a bigger one stays truncated. */
#define LNET_PUSH_TARGET_MAX (LNET_PING_INFO_HDR_SIZE + 16U * (LNET_INTERFACES_MAX_DEFAULT + 1U))

struct lnet_push_buf {
	LIST_ENTRY(lnet_push_buf) link;
	struct lnet_push_target *pt;
	struct lnet_handle_md mdh;
	size_t slot; /* room of one push */
	size_t len;  /* LNET_PUSH_SLOTS slices */
	uint8_t data[];
};

struct lnet_push_target {
	struct lnet *ln;
	unsigned int cpt;                /* portal 0's home: owner */
	LIST_HEAD(, lnet_push_buf) bufs; /* posted, or unlinked and draining */
	struct lnet_push_buf *cur;       /* posted */
	size_t nbytes;                   /* the kernel's ln_push_target_nbytes */
	struct rt_timer repost;
	struct lnet_ctl_push stats;
};

static void lnet_push_handler(struct lnet_event *ev);

/* On the owner: post a buffer of pt->nbytes slices, then unlink the current one. */
static int
lnet_push_post(struct lnet_push_target *pt)
{
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	size_t len = pt->nbytes * LNET_PUSH_SLOTS;
	struct lnet_push_buf *pb = calloc(1, sizeof(*pb) + len);
	struct lnet_push_buf *old = pt->cur;
	struct lnet_me *me;
	struct lnet_md md;
	int rc;

	if (pb == NULL) {
		return -ENOMEM;
	}
	pb->pt = pt;
	pb->slot = pt->nbytes;
	pb->len = len;
	me = LNetMEAttach(LNET_RESERVED_PORTAL, &any, LNET_PROTO_PING_MATCHBITS, 0, LNET_UNLINK,
			  LNET_INS_AFTER);
	if (me == NULL) {
		free(pb);
		return -errno;
	}
	memset(&md, 0, sizeof(md));
	md.umd_start = pb->data;
	md.umd_length = (unsigned int)len;
	md.umd_threshold = LNET_MD_THRESH_INF;
	md.umd_max_size = (int)pb->slot;
	md.umd_options = LNET_MD_OP_PUT | LNET_MD_TRUNCATE | LNET_MD_MAX_SIZE;
	md.umd_user_ptr = pb;
	md.umd_handler = lnet_push_handler;
	LIST_INSERT_HEAD(&pt->bufs, pb, link);
	rc = LNetMDAttach(me, &md, LNET_RETAIN, &pb->mdh);
	if (rc != 0) {
		LIST_REMOVE(pb, link);
		free(pb);
		return rc;
	}
	pt->cur = pb;
	pt->stats.target_bytes = (unsigned int)pt->nbytes;
	if (old != NULL) {
		LNetMDUnlink(old->mdh); /* may free old: its last event comes now if unused */
	}
	return 0;
}

static void
lnet_push_repost(void *arg)
{
	struct lnet_push_target *pt = arg;
	int rc = lnet_push_post(pt);

	if (rc != 0) {
		LNET_LOG(WARNING, "push target not re-posted: %s; trying again in 1 s",
			 strerror(-rc));
		rt_timer_arm(&pt->repost, LNP_US_PER_S);
	}
}

static void
lnet_push_want_repost(struct lnet_push_target *pt)
{
	if (!rt_timer_pending(&pt->repost)) {
		rt_timer_arm(&pt->repost, 0);
	}
}

/* A push arrived whole or truncated: count it, check it, keep what it says. */
static void
lnet_push_received(struct lnet_push_target *pt, struct lnet_push_buf *pb,
		   const struct lnet_event *ev)
{
	struct lnet_ctl_push *st = &pt->stats;
	struct lnet_ping_decoded pd;
	char src[LNET_NIDSTR_SIZE];
	int rc;

	st->received++;
	libcfs_nidstr_r(&ev->initiator.nid, src, sizeof(src));
	if (ev->offset + ev->mlength > pb->len / 2 && pt->cur == pb) {
		lnet_push_want_repost(pt); /* half of its slices used: a fresh buffer */
	}
	if (ev->status != 0) {
		st->errors++;
		LNET_LOG(INFO, "push from %s failed: %s", src, strerror(-ev->status));
		return;
	}
	rc = lnet_ping_info_decode(pb->data + ev->offset, ev->mlength, LNET_INTERFACES_MAX_DEFAULT,
				   &pd, NULL, 0);
	/* Discovery takes it from here: merged, or (truncated, bad) a re-ping. */
	lnet_discovery_push_received(pt->ln, &ev->source.nid, pb->data + ev->offset, ev->mlength,
				     ev->rlength);
	if (ev->mlength < ev->rlength) {
		size_t want = ev->rlength > pd.info_size ? ev->rlength : pd.info_size;

		st->truncated++;
		if (want > pt->nbytes && want <= LNET_PUSH_TARGET_MAX) {
			pt->nbytes = want;
			lnet_push_want_repost(pt);
		}
		LNET_LOG(INFO,
			 "push from %s truncated (%u of %u bytes): the push target grows to %zu",
			 src, ev->mlength, ev->rlength, pt->nbytes);
		return;
	}
	if (rc != 0 || (pd.features & LNET_PING_FEAT_MULTI_RAIL) == 0) {
		st->invalid++;
		LNET_LOG(INFO, "push from %s ignored: %s", src,
			 rc != 0 ? lnet_wire_strerror(rc) : "the peer is not Multi-Rail");
		return;
	}
	st->accepted++;
	st->has_last = true;
	st->last_src = ev->initiator.nid;
	st->last_primary = pd.primary;
	st->last_seqno = pd.seqno;
	st->last_features = pd.features;
	st->last_nnis = pd.nnis_total;
	LNET_LOG(INFO, "push from %s: seqno %u, features 0x%x, %u NI(s)", src, pd.seqno,
		 pd.features, pd.nnis_total);
}

/* On the owner: each push's PUT event, and a buffer's last event once unlinked. */
static void
lnet_push_handler(struct lnet_event *ev)
{
	struct lnet_push_buf *pb = ev->md_user_ptr;

	if (ev->type == LNET_EVENT_PUT) {
		lnet_push_received(pb->pt, pb, ev);
	}
	if (ev->unlinked) {
		if (pb->pt->cur == pb) {
			pb->pt->cur = NULL;
		}
		LIST_REMOVE(pb, link);
		free(pb);
	}
}

static int
lnet_push_init_on_cpt(void *arg)
{
	struct lnet_push_target *pt = arg;

	rt_timer_init(&pt->repost, lnet_push_repost, pt);
	return lnet_push_post(pt);
}

/* At start-up, from a thread that is not a logical lcore. */
int
lnet_push_target_init(struct lnet *ln)
{
	struct lnet_push_target *pt = calloc(1, sizeof(*pt));
	int rc;

	if (pt == NULL) {
		return -ENOMEM;
	}
	pt->ln = ln;
	pt->cpt = LNET_RESERVED_PORTAL % ln->ncpts;
	pt->nbytes = LNET_PING_INFO_MIN_SIZE;
	LIST_INIT(&pt->bufs);
	lnet_node(ln)->push = pt;
	rc = lnet_call_on_cpt(ln, pt->cpt, lnet_push_init_on_cpt, pt);
	if (rc != 0) {
		LNET_LOG(ERR, "push target: %s", strerror(-rc));
	}
	return rc;
}

/* At shutdown, after the lcores stopped: the MDs went with their table. */
void
lnet_push_target_fini(struct lnet *ln)
{
	struct lnet_push_target *pt = lnet_node(ln)->push;
	struct lnet_push_buf *pb;

	if (pt == NULL) {
		return;
	}
	while ((pb = LIST_FIRST(&pt->bufs)) != NULL) {
		LIST_REMOVE(pb, link);
		free(pb);
	}
	free(pt);
	lnet_node(ln)->push = NULL;
}

struct lnet_push_get_args {
	struct lnet_push_target *pt;
	struct lnet_ctl_push *out;
};

static int
lnet_push_get_on_cpt(void *arg)
{
	struct lnet_push_get_args *a = arg;

	*a->out = a->pt->stats;
	return 0;
}

int
lnet_ctl_push_get(struct lnet_ctl_push *out)
{
	struct lnet *ln = lnet_instance();
	struct lnet_push_get_args a = { ln == NULL ? NULL : lnet_node(ln)->push, out };

	if (a.pt == NULL) {
		return -ENETDOWN;
	}
	return lnet_call_on_cpt(ln, a.pt->cpt, lnet_push_get_on_cpt, &a);
}
