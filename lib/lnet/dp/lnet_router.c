/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * This node as an LNet router (lnet-facts §6, §11): `set routing`, the
 * router buffer pools, and forwarding. A message for another node is
 * received, on the lcore of its last hop's peer NI, into a buffer of the
 * smallest pool that holds it, after a router credit of that peer NI and
 * a credit of the pool (either may queue it, as the kernel's lp_rtrq and
 * rbp_msgs); then it is sent on with its header as received, selection
 * choosing the next hop; when that send completes the buffer and credits
 * go back where they came from. The pools (lnet_rtr_pool.c) and credits
 * are owned by that lcore: no lock, no atomic on the path. `set routing`
 * and the pools' sizes are lnet_router_ctl.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lnet_tunables.h"
#include "lnet_internal.h"

/* ---- the forwarding path (the last hop's peer NI's lcore) ------------------------ */

static void lnet_fwd_take_buffer(struct lnet_cpt *c, struct lnet_msg *msg);

/* The payload goes into the buffer: the LND's recv, on the NI's lcore. */
void
lnet_fwd_recv(struct lnet_cpt *c, struct lnet_msg *msg)
{
	if (msg->rtr_buf == NULL && msg->len != 0) {
		lnet_drop_rx(c, msg, "no router buffer"); /* cannot happen: credits count buffers */
		return;
	}
	msg->rtr_iov.iov_base = msg->rtr_buf;
	msg->rtr_iov.iov_len = msg->len;
	msg->fwd_us[1] = rt_lcore_now_us(c->lcore);
	lnet_ni_recv(c, msg, LNET_RX_DELIVER);
}

static void
lnet_fwd_take_buffer(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_rtr_pool *p = &c->rtr[lnet_rtr_pool_kind(msg->len)];

	msg->rtr_pool = (uint8_t)(p - c->rtr);
	msg->rtr_gen = p->gen;
	msg->rtrcredit = true;
	p->credits--;
	if (p->credits < p->mincredits) {
		p->mincredits = p->credits;
	}
	if (p->credits < 0) {
		TAILQ_INSERT_TAIL(&p->waitq, msg, link); /* the kernel's rbp_msgs */
		return;
	}
	msg->rtr_buf = lnet_rtr_buf_get(p);
	lnet_fwd_recv(c, msg);
}

void
lnet_fwd_rx_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_peer_ni *lpni = msg->rxpeer;

	if (lnet_routing_state(c->ln) == LNET_CTL_ROUTING_DISABLED) {
		lnet_drop_rx(c, msg, "not a router");
		return;
	}
	LNET_OWNER_ASSERT(c->ln, lpni->cpt);
	msg->rtr_cpt = c->cpt;
	msg->peerrtrcredit = true;
	lpni->rtrcredits--;
	if (lpni->rtrcredits < lpni->minrtrcredits) {
		lpni->minrtrcredits = lpni->rtrcredits;
	}
	if (lpni->rtrcredits < 0) {
		TAILQ_INSERT_TAIL(&lpni->rtrq, msg, link); /* the kernel's lp_rtrq */
		return;
	}
	lnet_fwd_take_buffer(c, msg);
}

/*
 * How long a forwarded message took from its header in (lnet_parse) to its send's end,
 * kept as the lcore's longest; one over LNET_FWD_SLOW_US is logged with
 * where the time went (waiting for a router credit or buffer, receiving
 * its payload, being sent on), for the soak test to find.
 */
#define LNET_FWD_SLOW_US LNP_US_PER_S

/* ms from @p a to @p b (0 when either step did not happen); the lcores' clocks are one clock */
static unsigned long long
lnet_fwd_ms(uint64_t a, uint64_t b)
{
	return a != 0 && b > a ? (unsigned long long)((b - a) / LNP_US_PER_MS) : 0;
}

static void
lnet_fwd_took(struct lnet_cpt *c, const struct lnet_msg *msg)
{
	uint64_t now = rt_lcore_now_us(c->lcore);
	const uint64_t *t = msg->fwd_us;
	uint64_t took = t[0] != 0 && now > t[0] ? now - t[0] : 0;
	char src[LNET_NIDSTR_SIZE];
	char dst[LNET_NIDSTR_SIZE];
	char from[LNET_NIDSTR_SIZE];
	struct timespec wall;

	if (took > c->fwd_max_us) {
		c->fwd_max_us = took;
		if (took >= LNET_FWD_SLOW_US / 10) {
			LNET_LOG(NOTICE, "CPT %u: longest forward so far %llu ms", c->cpt,
				 (unsigned long long)(took / LNP_US_PER_MS));
		}
	}
	if (took < LNET_FWD_SLOW_US) {
		return;
	}
	clock_gettime(CLOCK_REALTIME, &wall); /* for matching with what the test did then */
	LNET_LOG(WARNING,
		 "slow forward at %lld.%03ld: %s %s -> %s from %s, status %d: %llu ms "
		 "(router credit/buffer %llu ms, payload in %llu ms, selection/tx credits %llu ms, "
		 "LND %llu ms)",
		 (long long)wall.tv_sec, wall.tv_nsec / (long)LNP_NS_PER_MS,
		 lnet_msg_type_str(msg->hdr.type),
		 libcfs_nidstr_r(&msg->hdr.src_nid, src, sizeof(src)),
		 libcfs_nidstr_r(&msg->hdr.dest_nid, dst, sizeof(dst)),
		 libcfs_nidstr_r(&msg->from, from, sizeof(from)), msg->status,
		 (unsigned long long)(took / LNP_US_PER_MS), lnet_fwd_ms(t[0], t[1]),
		 lnet_fwd_ms(t[1], t[2]), lnet_fwd_ms(t[2], t[3]), lnet_fwd_ms(t[3], now));
}

/* On the lcore that took them: the buffer and both credits go back; waiters move on. */
void
lnet_fwd_done_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_peer_ni *lpni = msg->rxpeer;
	struct lnet_msg *next;

	lnet_fwd_took(c, msg);

	if (msg->rtrcredit) {
		next = lnet_rtr_buf_put(&c->rtr[msg->rtr_pool], msg->rtr_buf, msg->rtr_gen);
		msg->rtr_buf = NULL;
		msg->rtrcredit = false;
		if (next != NULL) {
			lnet_fwd_recv(c, next);
		}
	}
	if (msg->peerrtrcredit) {
		LNET_OWNER_ASSERT(c->ln, lpni->cpt);
		msg->peerrtrcredit = false;
		lpni->rtrcredits++;
		if (lpni->rtrcredits <= 0 && (next = TAILQ_FIRST(&lpni->rtrq)) != NULL) {
			TAILQ_REMOVE(&lpni->rtrq, next, link);
			lnet_fwd_take_buffer(c, next);
		}
	}
	lnet_msg_free_local(c, msg);
}

/*
 * The kernel's decommit of a routed message: received, it counts on the
 * NI and peer NI it came by; sent, on the ones it left by, and as routed
 * (route_count, route_length) instead of sent. A failure counts as a drop.
 */
static inline void
lnet_fwd_count_on(struct lnet_cpt *c, const struct lnet_msg *msg, enum lnet_stats_kind kind,
		  const struct lnet_ni *ni, const struct lnet_peer_ni *lpni)
{
	if (ni != NULL) {
		lnet_stats_incr(ni->stats, c->cpt, kind, msg->hdr.type);
	}
	if (lpni != NULL) {
		lnet_stats_incr(lpni->stats, c->cpt, kind, msg->hdr.type);
	}
}

/*
 * A forwarded message completes a step (on its home lcore): its payload
 * is in the buffer, so on to the next hop with the header as received; or
 * it went out (or failed), so what it holds goes back. Each of the three
 * ways counts as lnet_fwd_count_on() says, then moves on.
 */
void
lnet_fwd_fin(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_peer_ni *lpni;

	if (unlikely(msg->status != 0)) {
		c->counters.drop_count++;
		c->counters.drop_length += msg->len;
	} else if (!msg->tx) {
		lpni = msg->rxpeer;
		if (lpni != NULL && lnet_health_value(&lpni->health) < LNET_MAX_HEALTH_VALUE) {
			lnet_health_heard(c->ln, lpni); /* a router: full health, as the kernel's */
		}
		lnet_fwd_count_on(c, msg, LNET_STATS_RECV, msg->rxni, lpni);
		msg->fwd_us[2] = rt_lcore_now_us(c->lcore);
		msg->tx = true;
		msg->disc_passed = true; /* a router does not hold messages for discovery */
		msg->src_param = LNET_ANY_NID;
		lnet_msg_dispatch_c(c, msg, lnet_cpt_of_peer(c->ln, &msg->target.nid),
				    LNET_STEP_SEND_SELECT);
		return;
	} else {
		c->counters.route_count++;
		c->counters.route_length += msg->len;
		lnet_fwd_count_on(c, msg, LNET_STATS_SEND, msg->txni, msg->txpeer);
	}
	lnet_msg_dispatch_c(c, msg, msg->rtr_cpt, LNET_STEP_FWD_DONE);
}

/* Dropped while waiting: what it holds goes back (no one else is served: all are going). */
static void
lnet_fwd_drop_waiting(struct lnet_cpt *c, struct lnet_msg *msg, const char *why)
{
	if (msg->rtrcredit && msg->rtr_gen == c->rtr[msg->rtr_pool].gen) {
		c->rtr[msg->rtr_pool].credits++;
	}
	msg->rtrcredit = false;
	if (msg->peerrtrcredit) {
		LNET_OWNER_ASSERT(c->ln, msg->rxpeer->cpt);
		msg->rxpeer->rtrcredits++;
		msg->peerrtrcredit = false;
	}
	lnet_drop_rx(c, msg, why);
}

/* Routing off or LNet down, on each data lcore: what waits for a router credit or buffer is dropped. */
void
lnet_fwd_abort_queued(struct lnet_cpt *c)
{
	struct lnet_msg *msg;
	unsigned int k;
	unsigned int i;

	for (k = 0; k < LNET_CTL_RTR_NPOOLS; k++) {
		while ((msg = TAILQ_FIRST(&c->rtr[k].waitq)) != NULL) {
			TAILQ_REMOVE(&c->rtr[k].waitq, msg, link);
			lnet_fwd_drop_waiting(c, msg, "not routing any more");
		}
	}
	for (i = 0; c->peers.hash != NULL && i < LNET_PEER_HASH_SIZE; i++) {
		struct lnet_peer_ni *lpni;

		TAILQ_FOREACH(lpni, &c->peers.hash[i], link) {
			while ((msg = TAILQ_FIRST(&lpni->rtrq)) != NULL) {
				TAILQ_REMOVE(&lpni->rtrq, msg, link);
				lnet_fwd_drop_waiting(c, msg, "not routing any more");
			}
		}
	}
}

int
lnet_routing_state(const struct lnet *ln)
{
	return __atomic_load_n(&ln->routing, __ATOMIC_ACQUIRE);
}
