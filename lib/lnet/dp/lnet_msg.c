/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message life cycle: allocation from the message pool (a cache per lcore), completion
 * (lnet_finalize) through the owners of the credits it holds, events, and
 * the ACK that follows a received PUT.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_internal.h"

/*
 * The message pool: every message LNet can have alive, made at LNetNIInit
 * (msgs_per_cpt for each CPT), plus what the lcores' caches may hold.
 */
int
lnet_msg_pool_create(struct lnet *ln, unsigned int msgs_per_cpt)
{
	struct rt_pool_opts o = {
		.opts_size = sizeof(o),
		.name = "lnet_msg",
		.elt_size = sizeof(struct lnet_msg),
		.cache_size = LNET_MSG_POOL_CACHE,
	};

	if (msgs_per_cpt > LNET_MSGS_PER_CPT_MAX) {
		LNET_LOG(ERR, "msgs_per_cpt %u: at most %u", msgs_per_cpt, LNET_MSGS_PER_CPT_MAX);
		return -EINVAL;
	}
	o.n = msgs_per_cpt * ln->ncpts + rt_pool_headroom(ln->rt, LNET_MSG_POOL_CACHE);
	return rt_pool_create(ln->rt, &o, &ln->msg_pool);
}

/* Every get that found the pool empty, on any lcore or thread, since it was made. */
static uint64_t
lnet_msg_pool_empty_total(const struct lnet *ln)
{
	struct rt_pool_stats st;

	rt_pool_stats_get(ln->msg_pool, &st);
	return st.empty;
}

/*
 * The count is the pool's (each lcore's cache counts its own): a reset
 * keeps where it stood instead of writing the lcores' counts.
 */
void
lnet_msg_pool_empty_mark(struct lnet *ln)
{
	__atomic_store_n(&ln->msg_pool_empty_base, lnet_msg_pool_empty_total(ln), __ATOMIC_RELAXED);
}

uint64_t
lnet_msg_pool_empty_since_mark(struct lnet *ln)
{
	uint64_t base = __atomic_load_n(&ln->msg_pool_empty_base, __ATOMIC_RELAXED);
	uint64_t now = lnet_msg_pool_empty_total(ln);

	/* A cache's count read before the mark's and one read after can disagree by a little. */
	return now > base ? now - base : 0;
}

/* LNet down, the lcores stopped: every message goes with the pool. */
void
lnet_msg_pool_destroy(struct lnet *ln)
{
	rt_pool_destroy(ln->msg_pool);
	ln->msg_pool = NULL;
}

/*
 * The other CPTs' counts of @p c's messages they freed, read now (relaxed:
 * each writes its own): what they freed since the last look comes off
 * @p c's bound, which is then exact.
 */
static void
lnet_msg_frees_back_read(struct lnet_cpt *c)
{
	uint32_t sum = 0;
	unsigned int b;

	for (b = 0; b < c->ln->ncpts; b++) {
		if (b != c->cpt) {
			sum += __atomic_load_n(&c->ln->cpts[b]->msg_frees_of[c->cpt],
					       __ATOMIC_RELAXED);
		}
	}
	c->msg_alive_bound -= sum - c->msg_frees_back_seen;
	c->msg_frees_back_seen = sum;
}

/* The messages @p c allocated that are alive now (on @p c's lcore). */
uint32_t
lnet_msg_alive_home(struct lnet_cpt *c)
{
	lnet_msg_frees_back_read(c);
	return c->msg_alive_bound;
}

/*
 * msgs_max: the most messages of @p c alive at once. Only when the bound
 * passes it do the others' counts need a look; with one CPT, or no message
 * freed away from home, the bound is exact and nothing is read.
 */
void
lnet_msg_max_update(struct lnet_cpt *c)
{
	uint32_t alive = lnet_msg_alive_home(c);

	if (alive > c->counters.msgs_max) {
		c->counters.msgs_max = alive;
	}
}

void
lnet_msg_count_free_away(struct lnet_cpt *c, unsigned int home)
{
	uint32_t *slot = &c->msg_frees_of[home];

	__atomic_store_n(slot, *slot + 1, __ATOMIC_RELAXED);
}

/*
 * On a data lcore: into its cache, at once. The management lcore and other
 * threads have no CPT to count it on: it goes to its home CPT to be freed.
 */
void
lnet_msg_free(struct lnet_msg *msg)
{
	struct lnet_cpt *self = lnet_cpt_self(msg->ln);

	if (self != NULL) {
		lnet_msg_free_local(self, msg);
		return;
	}
	lnet_msg_dispatch(msg->ln, msg, msg->home_cpt, LNET_STEP_FREE);
}

/*
 * Complete @p msg: return its NI credit, then its peer credit, each on the
 * lcore that owns it, then post its event on the MD's lcore.
 */
void
lnet_finalize_hstatus(struct lnet_msg *msg, int status, enum lnet_msg_hstatus hstatus)
{
	if (status != 0 && msg->hstatus == LNET_MSG_STATUS_OK) {
		msg->hstatus = hstatus;
	}
	lnet_finalize(msg, status);
}

/* Credits first: each on the lcore that owns it. */
static __attribute__((noinline)) void
lnet_finalize_credits(struct lnet_msg *msg)
{
	if (msg->txcredit) {
		lnet_msg_dispatch(msg->ln, msg, msg->txni->cpt, LNET_STEP_FIN_NI);
	} else {
		lnet_msg_dispatch(msg->ln, msg, msg->peer_cpt, LNET_STEP_FIN_PEER);
	}
}

void
lnet_finalize(struct lnet_msg *msg, int status)
{
	if (msg->status == 0) {
		msg->status = status;
	}
	if (likely(!msg->txcredit && !msg->peertxcredit)) {
		lnet_msg_dispatch(msg->ln, msg, msg->md != NULL ? msg->md_cpt : msg->home_cpt,
				  LNET_STEP_FIN_MD);
	} else {
		lnet_finalize_credits(msg);
	}
}

/* ---- counts: per-CPT slots of the NI and the peer NI (lnet_internal.h) ---- */

struct lnet_msg_stats *
lnet_stats_alloc(unsigned int ncpts)
{
	size_t len = (size_t)ncpts * sizeof(struct lnet_msg_stats);
	struct lnet_msg_stats *slots = aligned_alloc(_Alignof(struct lnet_msg_stats), len);

	if (slots != NULL) {
		memset(slots, 0, len);
	}
	return slots;
}

void
lnet_stats_free(struct lnet_msg_stats *slots)
{
	free(slots);
}

void
lnet_stats_sum(const struct lnet_msg_stats *slots, unsigned int ncpts,
	       uint64_t out[LNET_STATS_KINDS][LNET_STATS_NTYPES], uint64_t total[LNET_STATS_KINDS])
{
	unsigned int cpt;
	unsigned int k;
	unsigned int t;

	memset(out, 0, sizeof(uint64_t) * LNET_STATS_KINDS * LNET_STATS_NTYPES);
	memset(total, 0, sizeof(uint64_t) * LNET_STATS_KINDS);
	for (cpt = 0; slots != NULL && cpt < ncpts; cpt++) {
		for (k = 0; k < LNET_STATS_KINDS; k++) {
			for (t = 0; t < LNET_STATS_NTYPES; t++) {
				uint32_t v = __atomic_load_n(&slots[cpt].n[k][t], __ATOMIC_RELAXED);

				out[k][t] += v;
				total[k] += v;
			}
		}
	}
}

void
lnet_stats_by_type(const uint64_t by_type[LNET_STATS_NTYPES], uint64_t out[5])
{
	static const unsigned int order[5] = {
		LNET_MSG_PUT, LNET_MSG_GET, LNET_MSG_REPLY, LNET_MSG_ACK, LNET_MSG_HELLO,
	};
	unsigned int i;

	for (i = 0; i < 5; i++) {
		out[i] = by_type[order[i]];
	}
}

/*
 * Count a completed message as the kernel does (lnet_msg_decommit_tx/rx):
 * only when it succeeded; on its NI and peer NI by wire type, except that
 * an ACK we send counts as a PUT and a REPLY we send as a GET (the message
 * they answer); a REPLY we send completes the received GET, which is then
 * counted as received. Runs on the CPT that finalizes it, in that CPT's
 * slots: no atomic read-modify-write, no line another lcore writes.
 */
static void
lnet_msg_count(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_counters *ctr = &c->counters;
	uint32_t type = msg->hdr.type;

	if (msg->status != 0) {
		ctr->errors++;
		return;
	}
	if (msg->tx) {
		/* What is sent counts as the message it answers: ACK as PUT, REPLY as GET. */
		static const uint8_t sent_as[LNET_STATS_NTYPES] = {
			[LNET_MSG_ACK] = LNET_MSG_PUT,     [LNET_MSG_PUT] = LNET_MSG_PUT,
			[LNET_MSG_GET] = LNET_MSG_GET,     [LNET_MSG_REPLY] = LNET_MSG_GET,
			[LNET_MSG_HELLO] = LNET_MSG_HELLO,
		};

		ctr->send_count++;
		if (type == LNET_MSG_PUT) {
			ctr->send_length += msg->hdr.payload_length;
		} else if (msg->is_reply_to_get) {
			ctr->send_length += msg->wanted;
		}
		type = sent_as[type];
		if (msg->txni != NULL) {
			lnet_stats_incr(msg->txni->stats, c->cpt, LNET_STATS_SEND, type);
		}
		if (msg->txpeer != NULL) {
			lnet_stats_incr(msg->txpeer->stats, c->cpt, LNET_STATS_SEND, type);
		}
		if (!msg->is_reply_to_get) {
			return;
		}
	} else if (type == LNET_MSG_PUT || type == LNET_MSG_REPLY) {
		ctr->recv_length += msg->wanted;
	}
	ctr->recv_count++;
	if (msg->rxni != NULL) {
		lnet_stats_incr(msg->rxni->stats, c->cpt, LNET_STATS_RECV, type);
	}
	if (msg->rxpeer != NULL) {
		lnet_stats_incr(msg->rxpeer->stats, c->cpt, LNET_STATS_RECV, type);
	}
}

/* Who: a SEND names us and where it went; nothing came from a last hop. */
static inline __attribute__((always_inline)) void
lnet_event_ids_send(const struct lnet_msg *msg, struct lnet_event *ev)
{
	ev->target = msg->target;
	ev->initiator.nid = msg->hdr.src_nid; /* the NID it actually went from */
	ev->initiator.pid = msg->hdr.src_pid;
	ev->source = ev->initiator;
	memset(&ev->sender, 0, sizeof(ev->sender));
}

/* Who: a received message names its sender (by primary NID) and us as it addressed us. */
static inline __attribute__((always_inline)) void
lnet_event_ids_rx(const struct lnet_msg *msg, struct lnet_event *ev)
{
	const struct lnet_hdr *h = &msg->hdr;

	ev->target.nid = h->dest_nid;
	ev->target.pid = h->dest_pid;
	ev->initiator.nid = msg->initiator_nid;
	ev->initiator.pid = h->src_pid;
	ev->source.nid = h->src_nid;
	ev->source.pid = h->src_pid;
	ev->sender = msg->from;
}

/* A GET served: its header is the REPLY's now (lnet_send_reply), so the GET's own fields. */
static void
lnet_event_write_get_served(const struct lnet_msg *msg, struct lnet_event *ev)
{
	ev->type = LNET_EVENT_GET;
	ev->target = msg->get_req.target;
	ev->initiator.nid = msg->initiator_nid;
	ev->initiator.pid = msg->target.pid; /* the REPLY goes back to the GET's source */
	ev->source = msg->target;
	ev->sender = msg->from;
	ev->pt_index = msg->get_req.portal;
	ev->match_bits = msg->get_req.match_bits;
	ev->rlength = msg->get_req.rlength;
	ev->mlength = msg->wanted;
	ev->offset = msg->offset;
	ev->hdr_data = 0;
}

/* A SEND: its portal, match bits, offset and header data as it asked, what it carries. */
static inline __attribute__((always_inline)) void
lnet_event_write_sent(const struct lnet_msg *msg, struct lnet_event *ev)
{
	const struct lnet_hdr *h = &msg->hdr;

	ev->type = LNET_EVENT_SEND;
	lnet_event_ids_send(msg, ev);
	ev->rlength = msg->wanted; /* a PUT's payload; nothing for a GET */
	ev->mlength = msg->wanted;
	if (h->type == LNET_MSG_PUT) {
		ev->pt_index = h->msg.put.ptl_index;
		ev->match_bits = h->msg.put.match_bits;
		ev->hdr_data = h->msg.put.hdr_data;
		ev->offset = h->msg.put.offset;
	} else {
		ev->pt_index = h->msg.get.ptl_index;
		ev->match_bits = h->msg.get.match_bits;
		ev->hdr_data = 0;
		ev->offset = h->msg.get.src_offset;
	}
}

/* A message received: its kind by its header, and what it matched and moved. */
static inline __attribute__((always_inline)) void
lnet_event_write_received(const struct lnet_msg *msg, struct lnet_event *ev)
{
	const struct lnet_hdr *h = &msg->hdr;

	lnet_event_ids_rx(msg, ev);
	ev->mlength = msg->wanted;
	ev->offset = msg->offset;
	switch (h->type) {
	case LNET_MSG_PUT:
		ev->type = LNET_EVENT_PUT;
		ev->pt_index = h->msg.put.ptl_index;
		ev->match_bits = h->msg.put.match_bits;
		ev->hdr_data = h->msg.put.hdr_data;
		ev->rlength = msg->len;
		break;
	case LNET_MSG_GET: /* not served after all: its REPLY never went */
		ev->type = LNET_EVENT_GET;
		ev->pt_index = h->msg.get.ptl_index;
		ev->match_bits = h->msg.get.match_bits;
		ev->hdr_data = 0;
		ev->rlength = h->msg.get.sink_length;
		break;
	case LNET_MSG_ACK:
		ev->type = LNET_EVENT_ACK;
		ev->pt_index = 0;
		ev->match_bits = h->msg.ack.match_bits;
		ev->hdr_data = 0;
		ev->rlength = h->msg.ack.mlength; /* what the target says it took */
		ev->mlength = h->msg.ack.mlength;
		break;
	default:
		ev->type = LNET_EVENT_REPLY;
		ev->pt_index = 0;
		ev->match_bits = 0;
		ev->hdr_data = 0;
		ev->rlength = msg->len;
		break;
	}
}

/*
 * All of @p msg's event, written into @p ev at completion: into the event
 * queue's slot itself when it can, so nothing is staged and copied.
 */
static inline __attribute__((always_inline)) void
lnet_msg_event_write(const struct lnet_msg *msg, const struct lnet_libmd *md, bool unlinked,
		     uint64_t sequence, struct lnet_event *ev)
{
	if (msg->is_reply_to_get) {
		lnet_event_write_get_served(msg, ev);
	} else if (msg->tx) {
		lnet_event_write_sent(msg, ev);
	} else {
		lnet_event_write_received(msg, ev);
	}
	ev->status = msg->status;
	ev->mhealth = msg->status == 0                   ? LNET_MSG_STATUS_OK :
		      msg->hstatus != LNET_MSG_STATUS_OK ? msg->hstatus :
							   LNET_MSG_STATUS_LOCAL_ERROR;
	ev->unlinked = unlinked;
	lnet_md_fill_event(md, ev);
	ev->sequence = sequence;
}

/* An MD with a handler: the event on the stack, to the handler, then to its queue if any. */
static __attribute__((noinline)) void
lnet_msg_event_to_handler(struct lnet_cpt *c, struct lnet_libmd *md, const struct lnet_msg *msg,
			  bool unlinked, uint64_t sequence)
{
	struct lnet_event ev;
	struct lnet_eq *eq;

	lnet_msg_event_write(msg, md, unlinked, sequence, &ev);
	md->handler(&ev);
	eq = lnet_md_event_queue(md, unlinked);
	if (eq != NULL) {
		lnet_eq_enqueue(eq, c->cpt, &ev);
	}
}

/* No ring yet, or a full one: the event on the stack, to lnet_eq_enqueue_slow. */
static __attribute__((noinline, cold)) void
lnet_msg_event_to_eq_slow(struct lnet_cpt *c, struct lnet_eq *eq, const struct lnet_libmd *md,
			  const struct lnet_msg *msg, bool unlinked, uint64_t sequence)
{
	struct lnet_event ev;

	lnet_msg_event_write(msg, md, unlinked, sequence, &ev);
	lnet_eq_enqueue_slow(eq, c->cpt, &ev);
}

/* @p msg's event to its MD's handler and event queue (lnet_md_deliver_event, without a copy). */
static inline __attribute__((always_inline)) void
lnet_msg_post_event(struct lnet_cpt *c, struct lnet_libmd *md, const struct lnet_msg *msg,
		    bool unlinked)
{
	uint64_t sequence = ++c->ev_seq;
	struct lnet_eq_slot *slot;
	struct lnet_eq *eq;

	if (md->handler != NULL) {
		lnet_msg_event_to_handler(c, md, msg, unlinked, sequence);
		return;
	}
	eq = lnet_md_event_queue(md, unlinked);
	if (eq == NULL) {
		return;
	}
	slot = lnet_eq_reserve(eq, c->cpt);
	if (unlikely(slot == NULL)) {
		lnet_msg_event_to_eq_slow(c, eq, md, msg, unlinked, sequence);
		return;
	}
	lnet_msg_event_write(msg, md, unlinked, sequence, &slot->ev);
	lnet_eq_commit(eq, c->cpt, slot);
}

/* Detach @p msg from its MD and post its event (lnet_msg_detach_md). */
static inline __attribute__((always_inline)) void
lnet_msg_detach_md(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_libmd *md = msg->md;

	md->refcount--;
	if (lnet_md_exhausted(md) && (md->flags & LNET_MD_FLAG_AUTO_UNLINK) != 0) {
		lnet_md_unlink(c, md);
	}
	lnet_msg_post_event(c, md, msg,
			    md->refcount == 0 && (md->flags & LNET_MD_FLAG_ZOMBIE) != 0);
	msg->md = NULL;
	lnet_md_release(c, md);
}

/* Completion once health has had its say: counters, the event, the ACK or the free. */
static inline __attribute__((always_inline)) void
lnet_fin_md_done(struct lnet_cpt *c, struct lnet_msg *msg)
{
	bool send_ack;

	if (msg->tx && msg->md != NULL && msg->md->rsp_tracked && msg->txpeer != NULL) {
		msg->md->rsp_next_hop = msg->txpeer; /* blamed if the answer never comes */
	}
	lnet_msg_count(c, msg);
	send_ack = !msg->tx && msg->ack_pending && msg->status == 0;
	if (msg->md != NULL) {
		lnet_msg_detach_md(c, msg);
	}
	if (send_ack) {
		lnet_send_ack(c, msg);
		return;
	}
	lnet_msg_free_local(c, msg);
}

/* Out of line: a failure is rare, and its health decisions would crowd the common path. */
static __attribute__((noinline)) bool
lnet_fin_md_failed_resent(struct lnet_cpt *c, struct lnet_msg *msg)
{
	return lnet_health_fin(c, msg);
}

void
lnet_fin_md_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	if (msg->routing) {
		lnet_fwd_fin(c, msg); /* no MD, no event, no resend: a router's */
		return;
	}
	if (unlikely(msg->status != 0)) {
		if (lnet_fin_md_failed_resent(c, msg)) {
			return; /* resent: it completes later, once */
		}
	} else {
		lnet_health_fin(c, msg); /* success: never a resend */
	}
	lnet_fin_md_done(c, msg);
}

/* Drop a received message: count it and let the LND discard its payload. */
void
lnet_drop_rx(struct lnet_cpt *c, struct lnet_msg *msg, const char *why)
{
	char src[LNET_NIDSTR_SIZE];

	c->counters.drop_count++;
	c->counters.drop_length += msg->hdr.payload_length;
	if (msg->rxni != NULL) {
		lnet_stats_incr(msg->rxni->stats, c->cpt, LNET_STATS_DROP, msg->hdr.type);
	}
	LNET_LOG(DEBUG, "dropping %s from %s: %s", lnet_msg_type_str(msg->hdr.type),
		 libcfs_nidstr_r(&msg->hdr.src_nid, src, sizeof(src)), why);
	lnet_ni_recv(c, msg, LNET_RX_DROP);
}

const struct lnet_hdr *
lnet_msg_hdr(const struct lnet_msg *msg)
{
	return &msg->hdr;
}

const struct lnet_nid *
lnet_msg_nexthop(const struct lnet_msg *msg)
{
	return &msg->nexthop;
}

void
lnet_msg_payload(const struct lnet_msg *msg, unsigned int *niov, const struct iovec **iov,
		 unsigned int *offset, unsigned int *len)
{
	if (msg->rtr_buf != NULL) {
		*niov = msg->len != 0 ? 1 : 0; /* forwarded: sent from the buffer it came into */
		*iov = &msg->rtr_iov;
		*offset = 0;
		*len = msg->len;
		return;
	}
	if (msg->md == NULL || msg->wanted == 0) {
		*niov = 0;
		*iov = NULL;
		*offset = 0;
		*len = 0;
		return;
	}
	*niov = msg->md->niov;
	*iov = msg->md->iov;
	*offset = msg->offset;
	*len = msg->wanted;
}

const char *
lnet_msg_type_str(uint32_t type)
{
	static const char *const names[] = {
		[LNET_MSG_ACK] = "ACK",     [LNET_MSG_PUT] = "PUT",     [LNET_MSG_GET] = "GET",
		[LNET_MSG_REPLY] = "REPLY", [LNET_MSG_HELLO] = "HELLO",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "<unknown>";
}
