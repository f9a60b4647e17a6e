/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * socklnd peers: which connections a peer needs and when to open them
 * (lnet-facts §4.4-4.5). The connecting side opens one CONTROL and
 * conns_per_peer each of BULK_IN and BULK_OUT; when both sides connect at once, the higher NID's outgoing
 * connections win (the passive side refuses with CONN_NONE); a connection
 * of a type the peer already has enough of is a duplicate; a new incarnation means
 * the peer restarted, and its connections known to be of the old life go
 * (those whose hello has not come yet are judged when it does); a peer's
 * error on one connection (reset, timeout) closes its siblings, as
 * ksocknal_close_conn_and_siblings does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "socklnd_conn.h"
#include "socklnd_hs.h"
#include "socklnd_peer.h"
#include "socklnd_tx.h"

#define SOCKLND_MAX_REFUSED 3                              /* SOCKNAL_MAX_RETRIES */
#define SOCKLND_KEEPALIVE_RETRY_US (10 * SOCKLND_US_PER_S) /* keepalive NOOPs at most every 10 s */

#define SOCKLND_NTYPES 4
static const int socklnd_types[SOCKLND_NTYPES] = { SOCKLND_CONN_ANY, SOCKLND_CONN_CONTROL,
						   SOCKLND_CONN_BULK_IN, SOCKLND_CONN_BULK_OUT };

_Static_assert(SOCKLND_STATS_PEER_STATES == SOCKLND_PEER_NSTATES,
	       "peer_entered[] has a slot per state");

#define NONE RT_FSM_NONE

/* Columns: launch, carrier_up, give_up, carriers_gone (see socklnd_ni.h). */
static const int8_t socklnd_peer_table[SOCKLND_PEER_NSTATES][SOCKLND_PEER_NEVENTS] = {
	[SOCKLND_PEER_IDLE] = { SOCKLND_PEER_CONNECTING, SOCKLND_PEER_UP, NONE, NONE },
	[SOCKLND_PEER_CONNECTING] = { SOCKLND_PEER_CONNECTING, SOCKLND_PEER_UP,
				      SOCKLND_PEER_BACKOFF, NONE },
	[SOCKLND_PEER_UP] = { SOCKLND_PEER_UP, SOCKLND_PEER_UP, NONE, SOCKLND_PEER_IDLE },
	[SOCKLND_PEER_BACKOFF] = { SOCKLND_PEER_CONNECTING, SOCKLND_PEER_UP, NONE, NONE },
};

static const char *const socklnd_peer_states[SOCKLND_PEER_NSTATES] = {
	"idle",
	"connecting",
	"up",
	"backoff",
};

static const char *const socklnd_peer_events[SOCKLND_PEER_NEVENTS] = {
	"launch",
	"carrier_up",
	"give_up",
	"carriers_gone",
};

const struct rt_fsm socklnd_peer_fsm = {
	.name = "socklnd: peer",
	.nstates = SOCKLND_PEER_NSTATES,
	.nevents = SOCKLND_PEER_NEVENTS,
	.table = &socklnd_peer_table[0][0],
	.states = socklnd_peer_states,
	.events = socklnd_peer_events,
};

/* The one place a peer's state changes: by the table, a change logged and counted. */
int
socklnd_peer_set_state(struct socklnd_ni *s, struct socklnd_peer *p, enum socklnd_peer_event ev)
{
	char nid[LNET_NIDSTR_SIZE];
	int next = rt_fsm_step(&socklnd_peer_fsm, socklnd_logtype,
			       libcfs_nidstr_r(&p->nid, nid, sizeof(nid)), p->state, ev,
			       s->stats.peer_entered);

	if (next == RT_FSM_NONE) {
		return -EINVAL;
	}
	p->state = (enum socklnd_peer_state)next;
	return 0;
}

struct socklnd_peer *
socklnd_peer_get(struct socklnd_ni *s, const struct lnet_nid *nid)
{
	struct socklnd_peer *p = s->last_peer;

	/* Messages mostly go to the peer the last one went to: no walk for them. */
	if (p != NULL && lnet_nid_same(&p->nid, nid)) {
		return p;
	}
	TAILQ_FOREACH(p, &s->peers, link) {
		if (lnet_nid_same(&p->nid, nid)) {
			s->last_peer = p;
			return p;
		}
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		return NULL;
	}
	p->nid = *nid;
	p->backoff_ms = (unsigned int)s->opts.min_reconnectms;
	TAILQ_INIT(&p->conns);
	TAILQ_INIT(&p->txq);
	TAILQ_INSERT_TAIL(&s->peers, p, link);
	s->last_peer = p;
	return p;
}

/* Connections of @p type that are up (our view), and attempts of it in flight. */
static unsigned int
socklnd_peer_count(const struct socklnd_peer *p, int type, bool up)
{
	const struct socklnd_conn *c;
	unsigned int n = 0;

	TAILQ_FOREACH(c, &p->conns, plink) {
		if (c->type != type) {
			continue;
		}
		if (up ? c->state == SOCKLND_CONN_UP :
			 c->active && (c->state == SOCKLND_CONN_CONNECTING ||
				       c->state == SOCKLND_CONN_HANDSHAKE)) {
			n++;
		}
	}
	return n;
}

/* How many of @p type a peer may have: one ANY or CONTROL, conns_per_peer of a bulk type. */
static unsigned int
socklnd_peer_limit(const struct socklnd_ni *s, int type)
{
	if (type == SOCKLND_CONN_ANY || type == SOCKLND_CONN_CONTROL ||
	    s->opts.conns_per_peer <= 0) {
		return 1;
	}
	return (unsigned int)s->opts.conns_per_peer;
}

/* How many of @p type this node opens: the typed set, or one ANY (typed_conns=0). */
static unsigned int
socklnd_peer_wants(const struct socklnd_ni *s, int type)
{
	if ((type == SOCKLND_CONN_ANY) == (s->opts.typed_conns != 0)) {
		return 0;
	}
	return socklnd_peer_limit(s, type);
}

static unsigned int
socklnd_peer_attempts(const struct socklnd_peer *p)
{
	unsigned int n = 0;
	unsigned int i;

	for (i = 0; i < SOCKLND_NTYPES; i++) {
		n += socklnd_peer_count(p, socklnd_types[i], false);
	}
	return n;
}

/*
 * Small messages on CONTROL, large on BULK_OUT (our view), else any that
 * carries. Among several of the type (conns_per_peer), the one with the
 * fewest messages queued; it then goes to the back, so equals take turns.
 */
static struct socklnd_conn *
socklnd_peer_pick(struct socklnd_peer *p, unsigned int min_bulk, size_t size)
{
	int want = size < min_bulk ? SOCKLND_CONN_CONTROL : SOCKLND_CONN_BULK_OUT;
	struct socklnd_conn *best = NULL;
	struct socklnd_conn *any = NULL;
	struct socklnd_conn *c;

	TAILQ_FOREACH(c, &p->conns, plink) {
		if (!socklnd_conn_carries(c)) {
			continue;
		}
		if (c->type == want && (best == NULL || c->nqueued < best->nqueued)) {
			best = c;
		}
		any = any != NULL ? any : c;
	}
	if (best != NULL) {
		if (TAILQ_NEXT(best, plink) != NULL) { /* at the back already: it stays */
			TAILQ_REMOVE(&p->conns, best, plink);
			TAILQ_INSERT_TAIL(&p->conns, best, plink);
		}
		return best;
	}
	return any;
}

/* Is @p c the only connection of its type among @p p's that carry messages? */
static bool
socklnd_peer_only_of_type(const struct socklnd_peer *p, const struct socklnd_conn *c)
{
	const struct socklnd_conn *o;

	TAILQ_FOREACH(o, &p->conns, plink) {
		if (o != c && o->type == c->type && socklnd_conn_carries(o)) {
			return false;
		}
	}
	return true;
}

/*
 * socklnd_peer_pick() for a message to send. When the pick found the only
 * connection of the type it wants, that is the answer until a connection
 * of the NI changes state (s->conn_gen): no walk for the messages after.
 * It still goes to the back, as a pick's does.
 */
static struct socklnd_conn *
socklnd_peer_pick_send(struct socklnd_ni *s, struct socklnd_peer *p, size_t size)
{
	unsigned int min_bulk = (unsigned int)s->opts.min_bulk;
	int want = size < min_bulk ? SOCKLND_CONN_CONTROL : SOCKLND_CONN_BULK_OUT;
	unsigned int k = want == SOCKLND_CONN_BULK_OUT;
	struct socklnd_conn *c = p->pick[k];

	if (c != NULL && p->pick_gen[k] == s->conn_gen) {
		if (TAILQ_NEXT(c, plink) != NULL) {
			TAILQ_REMOVE(&p->conns, c, plink);
			TAILQ_INSERT_TAIL(&p->conns, c, plink);
		}
		return c;
	}
	c = socklnd_peer_pick(p, min_bulk, size);
	p->pick[k] = c != NULL && c->type == want && socklnd_peer_only_of_type(p, c) ? c : NULL;
	p->pick_gen[k] = s->conn_gen;
	return c;
}

static void
socklnd_txq_fail(struct socklnd_ni *s, struct sock_tx_list *q, int status, enum lnet_msg_hstatus hs)
{
	struct sock_tx *tx;

	while ((tx = TAILQ_FIRST(q)) != NULL) {
		TAILQ_REMOVE(q, tx, link);
		socklnd_msg_fail(tx->cookie, status, hs);
		socklnd_tx_free(s, tx);
	}
}

/* The link went down: messages waiting for a connection fail with @p hs. */
void
socklnd_peers_fail_waiting(struct socklnd_ni *s, int status, enum lnet_msg_hstatus hs)
{
	struct socklnd_peer *p;

	TAILQ_FOREACH(p, &s->peers, link) {
		socklnd_txq_fail(s, &p->txq, status, hs);
	}
}

/* Open what the peer lacks of each type, up or being opened (all types, or those in @p only). */
static void
socklnd_peer_launch(struct socklnd_ni *s, struct socklnd_peer *p, uint8_t only)
{
	unsigned int i;

	for (i = 0; i < SOCKLND_NTYPES; i++) {
		int t = socklnd_types[i];
		unsigned int have;

		if ((only & (1u << t)) == 0) {
			continue;
		}
		have = socklnd_peer_count(p, t, true) + socklnd_peer_count(p, t, false);
		for (; have < socklnd_peer_wants(s, t); have++) {
			int rc = socklnd_connect_one(s, p, t);

			if (rc != 0) {
				s->stats.connect_failures++;
				p->error = rc;
			}
		}
	}
	socklnd_peer_set_state(s, p, SOCKLND_PEER_EV_LAUNCH);
}

#define SOCKLND_ALL_TYPES                                                    \
	((uint8_t)((1u << SOCKLND_CONN_ANY) | (1u << SOCKLND_CONN_CONTROL) | \
		   (1u << SOCKLND_CONN_BULK_IN) | (1u << SOCKLND_CONN_BULK_OUT)))

/*
 * No attempt left and nothing to carry messages: they fail with why the
 * last attempt failed (-ECONNREFUSED as the kernel reports it, else
 * -EHOSTUNREACH), and the peer backs off.
 */
static void
socklnd_peer_give_up(struct socklnd_ni *s, struct socklnd_peer *p)
{
	uint64_t now = rt_now_us(s->rt);
	int why = p->error != 0 ? p->error : -EHOSTUNREACH;

	socklnd_peer_set_state(s, p, SOCKLND_PEER_EV_GIVE_UP);
	p->retry_types = 0;
	p->retry_at_us = now + (uint64_t)p->backoff_ms * SOCKLND_US_PER_MS;
	p->backoff_ms = p->backoff_ms * 2 > (unsigned int)s->opts.max_reconnectms ?
				(unsigned int)s->opts.max_reconnectms :
				p->backoff_ms * 2;
	socklnd_txq_fail(s, &p->txq, why, socklnd_hstatus(why));
}

int
socklnd_peer_send(struct socklnd_ni *s, struct socklnd_peer *p, const struct lnet_nid *nid,
		  struct sock_tx *tx)
{
	struct socklnd_conn *c;

	if (p == NULL) {
		p = socklnd_peer_get(s, nid);
		if (p == NULL) {
			return -ENOMEM;
		}
		p->send_ok = true;
	}
	c = socklnd_peer_pick_send(s, p, tx->hdr_len + tx->len);
	if (c != NULL) {
		socklnd_conn_queue(c, tx);
		return 0;
	}
	tx->queued_us = rt_now_us(s->rt);
	if (p->state == SOCKLND_PEER_BACKOFF && tx->queued_us < p->retry_at_us) {
		return -EHOSTUNREACH; /* it failed just now: do not hammer it */
	}
	TAILQ_INSERT_TAIL(&p->txq, tx, link);
	if (p->state != SOCKLND_PEER_CONNECTING) {
		p->refused_rounds = 0;
		socklnd_peer_launch(s, p, SOCKLND_ALL_TYPES);
		if (socklnd_peer_attempts(p) == 0) {
			TAILQ_REMOVE(&p->txq, tx, link);
			socklnd_peer_give_up(s, p);
			return p->error != 0 ? p->error : -EHOSTUNREACH;
		}
	}
	return 0;
}

/*
 * The peer's incarnation as @p c knows it: an UP connection's, or a
 * passive one's (on the peer's list only once its hello is read). An
 * active connection still waiting for the reply knows none yet.
 */
static bool
socklnd_conn_incarnation(const struct socklnd_conn *c, uint64_t *inc)
{
	if (c->state == SOCKLND_CONN_UP || (!c->active && c->state == SOCKLND_CONN_HANDSHAKE)) {
		*inc = c->hs.peer.src_incarnation;
		return true;
	}
	return false;
}

/*
 * Close @p p's connections but @p keep, as one event: the peer's queue is
 * looked at once, after the last, so that no message moves onto a
 * connection about to close. @p stale_of: only those known to be of
 * another incarnation than this one (NULL: all that are not DEAD).
 */
static unsigned int
socklnd_peer_close_set(struct socklnd_peer *p, const struct socklnd_conn *keep,
		       const uint64_t *stale_of, int status)
{
	struct socklnd_conn *c;
	unsigned int n = 0;
	uint64_t inc;

	p->closing = true;
	TAILQ_FOREACH(c, &p->conns, plink) {
		if (c == keep || c->state == SOCKLND_CONN_DEAD) {
			continue;
		}
		if (stale_of != NULL && !(socklnd_conn_incarnation(c, &inc) && inc != *stale_of)) {
			continue;
		}
		socklnd_conn_close(c, status);
		n++;
	}
	p->closing = false;
	return n;
}

/*
 * A hello says the peer's incarnation is @p inc: its connections known to
 * be of another one are stale (the peer restarted); those still opening
 * are judged when their hello comes.
 */
static void
socklnd_peer_incarnation(struct socklnd_peer *p, const struct socklnd_conn *c, uint64_t inc)
{
	if (p->have_incarnation && p->incarnation != inc &&
	    socklnd_peer_close_set(p, c, &inc, -ESTALE) > 0) {
		c->sni->stats.stale_conns++;
		if (c->state == SOCKLND_CONN_UP) {
			socklnd_peer_reconsider(c->sni,
						p); /* else its own hello's outcome decides */
		}
	}
	p->have_incarnation = true;
	p->incarnation = inc;
}

/* @p c failed with the peer's error: it and its siblings go (ksocknal_close_conn_and_siblings). */
void
socklnd_peer_close_siblings(struct socklnd_conn *c, int status)
{
	if (socklnd_peer_close_set(c->peer, NULL, NULL, status) > 1) {
		c->sni->stats.sibling_closes++;
	}
	socklnd_peer_reconsider(c->sni, c->peer);
}

/*
 * Passive side, the peer's hello read: the type to answer with, or
 * SOCKLND_CONN_NONE to refuse (a race this node wins, a duplicate).
 */
int
socklnd_peer_accept(struct socklnd_conn *c, const struct ksock_hello *hello)
{
	struct socklnd_ni *s = c->sni;
	struct socklnd_peer *p = socklnd_peer_get(s, &hello->src_nid);
	int type = ksock_conn_type_invert(hello->ctype);

	if (p == NULL) {
		return SOCKLND_CONN_NONE;
	}
	socklnd_peer_incarnation(p, c, hello->src_incarnation);
	/* Both connecting at once: the higher NID's outgoing connection wins. */
	if (socklnd_peer_count(p, type, false) > 0 &&
	    ksock_nid_cmp(&hello->src_nid, lnet_ni_nid(s->ni)) < 0) {
		s->stats.races_won++;
		return SOCKLND_CONN_NONE;
	}
	if (socklnd_peer_count(p, type, true) >= socklnd_peer_limit(s, type)) {
		s->stats.duplicates++;
		return SOCKLND_CONN_NONE;
	}
	c->peer = p;
	TAILQ_INSERT_TAIL(&p->conns, c, plink);
	return type;
}

/* Messages waiting for a connection go on those that carry. */
static void
socklnd_peer_drain(struct socklnd_ni *s, struct socklnd_peer *p)
{
	struct sock_tx *tx;

	while ((tx = TAILQ_FIRST(&p->txq)) != NULL) {
		struct socklnd_conn *c =
			socklnd_peer_pick(p, (unsigned int)s->opts.min_bulk, tx->hdr_len + tx->len);

		if (c == NULL) {
			return;
		}
		TAILQ_REMOVE(&p->txq, tx, link);
		socklnd_conn_queue(c, tx);
	}
}

/*
 * A message of a connection that died before a byte of it went (its
 * peer reset it, or restarted): back to the peer's queue, once, for the
 * next connection. LNet would resend it (the kernel's REMOTE_DROPPED);
 * ours does not, so the LND does. @return false: fail it.
 */
bool
socklnd_peer_requeue(struct socklnd_conn *c, struct sock_tx *tx, int status)
{
	if (c->peer == NULL || tx->sent != 0 || tx->requeued || tx->cookie == NULL ||
	    (status != -ECONNRESET && status != -EPIPE && status != -ESTALE)) {
		return false;
	}
	tx->requeued = true;
	tx->queued_us = rt_now_us(c->sni->rt);
	TAILQ_INSERT_TAIL(&c->peer->txq, tx, link);
	c->sni->stats.tx_requeued++;
	return true;
}

/* A connection is up: messages waiting for one go now. */
void
socklnd_peer_conn_up(struct socklnd_conn *c)
{
	struct socklnd_peer *p = c->peer;

	if (c->active) {
		socklnd_peer_incarnation(p, c, c->hs.peer.src_incarnation);
	}
	if (!socklnd_conn_carries(c)) {
		return;
	}
	socklnd_peer_set_state(c->sni, p, SOCKLND_PEER_EV_CARRIER_UP);
	p->last_alive_us = c->last_io_us;
	p->refused_rounds = 0;
	p->error = 0;
	p->backoff_ms = (unsigned int)c->sni->opts.min_reconnectms;
	socklnd_peer_drain(c->sni, p);
}

/* An active attempt was refused: the peer's own connection of that type may serve. */
static void
socklnd_peer_refused(struct socklnd_ni *s, struct socklnd_peer *p, int type)
{
	if (socklnd_peer_count(p, type, true) > 0) {
		return;
	}
	if (p->refused_rounds < SOCKLND_MAX_REFUSED) {
		p->refused_rounds++;
		p->retry_types |= (uint8_t)(1u << type);
		p->retry_at_us =
			rt_now_us(s->rt) + (uint64_t)s->opts.min_reconnectms * SOCKLND_US_PER_MS;
	}
}

/* A connection of @p c's peer closed (or failed to open) from state @p was. */
void
socklnd_peer_conn_gone(struct socklnd_conn *c, enum socklnd_conn_state was, int status)
{
	struct socklnd_ni *s = c->sni;
	struct socklnd_peer *p = c->peer;

	if (p == NULL) {
		return; /* passive, refused or broken before its hello */
	}
	if (c->active && was != SOCKLND_CONN_UP && status == -EALREADY) {
		socklnd_peer_refused(s, p, c->type);
	} else if (c->active && was != SOCKLND_CONN_UP && status < 0) {
		p->error = status; /* what its messages fail with if none gets through */
	}
	if (!p->closing) {
		socklnd_peer_reconsider(s, p);
	}
}

/* After connections closed: use what is left, or open new ones, or give up. */
void
socklnd_peer_reconsider(struct socklnd_ni *s, struct socklnd_peer *p)
{
	if (socklnd_peer_pick(p, 0, 0) != NULL) {
		socklnd_peer_drain(s, p); /* still reachable */
		return;
	}
	if (p->state == SOCKLND_PEER_UP) {
		socklnd_peer_set_state(s, p, SOCKLND_PEER_EV_CARRIERS_GONE);
	}
	if (!TAILQ_EMPTY(&p->txq) && p->state != SOCKLND_PEER_CONNECTING) {
		socklnd_peer_launch(s, p, SOCKLND_ALL_TYPES);
	}
	if (p->state == SOCKLND_PEER_CONNECTING && p->retry_types == 0 &&
	    socklnd_peer_attempts(p) == 0) {
		socklnd_peer_give_up(s, p);
	}
}

/*
 * V3/V4 keepalive (lnet-facts §4.7): a peer silent for `keepalive` seconds
 * gets a NOOP {0, 1} on its CONTROL connection, at most every 10 s, and
 * only when nothing is queued there (queued traffic will tell soon enough).
 */
static void
socklnd_peer_keepalive(struct socklnd_ni *s, struct socklnd_peer *p, uint64_t now_us)
{
	uint64_t quiet = (uint64_t)s->opts.keepalive * SOCKLND_US_PER_S;
	struct socklnd_conn *c;

	if (s->opts.keepalive == 0 || p->state != SOCKLND_PEER_UP ||
	    now_us - p->last_alive_us < quiet || now_us < p->keepalive_at_us) {
		return;
	}
	c = socklnd_peer_pick(p, (unsigned int)s->opts.min_bulk, 0);
	if (c == NULL || c->hs.proto->version < KSOCK_PROTO_V3 || c->nqueued > 0) {
		return;
	}
	p->keepalive_at_us = now_us + SOCKLND_KEEPALIVE_RETRY_US;
	if (socklnd_conn_noop(c, 0, SOCKNAL_KEEPALIVE_PING) == 0) {
		s->stats.keepalives++;
	}
}

/*
 * Messages held SOCKLND_SLOW_US or more waiting for a connection: counted
 * and logged once per message at the head of the queue, with what the
 * peer's connecting is doing, so that a slow forward or a late reply can
 * be told apart from a peer that answers slowly.
 */
static void
socklnd_peer_slow_check(struct socklnd_ni *s, struct socklnd_peer *p, uint64_t now_us)
{
	const struct sock_tx *head = TAILQ_FIRST(&p->txq);
	char nid[LNET_NIDSTR_SIZE];

	if (head == NULL || now_us - head->queued_us < SOCKLND_SLOW_US ||
	    p->slow_wait_seen == head->queued_us) {
		return;
	}
	p->slow_wait_seen = head->queued_us;
	s->stats.slow_conn_waits++;
	SOCK_LOG(WARNING,
		 "%s: a message waited %llu ms for a connection to %s (peer %s, "
		 "retry types %#x in %lld ms, last error %d)",
		 libcfs_nidstr(lnet_ni_nid(s->ni)),
		 (unsigned long long)((now_us - head->queued_us) / SOCKLND_US_PER_MS),
		 libcfs_nidstr_r(&p->nid, nid, sizeof(nid)), socklnd_peer_states[p->state],
		 p->retry_types,
		 p->retry_types != 0 ? ((long long)p->retry_at_us - (long long)now_us) /
					       (long long)SOCKLND_US_PER_MS :
				       0,
		 p->error);
}

/* Once a second: keepalives, refused connection types tried again, long waits reported. */
void
socklnd_peer_tick(struct socklnd_ni *s, uint64_t now_us)
{
	struct socklnd_peer *p;

	TAILQ_FOREACH(p, &s->peers, link) {
		socklnd_peer_slow_check(s, p, now_us);
		socklnd_peer_keepalive(s, p, now_us);
		if (p->retry_types == 0 || now_us < p->retry_at_us) {
			continue;
		}
		socklnd_peer_launch(s, p, p->retry_types);
		p->retry_types = 0;
		if (socklnd_peer_attempts(p) == 0 && socklnd_peer_pick(p, 0, 0) == NULL) {
			socklnd_peer_give_up(s, p);
		}
	}
}

/* Shutdown, after every connection closed: waiting messages fail, peers go. */
void
socklnd_peers_destroy(struct socklnd_ni *s, int status)
{
	struct socklnd_peer *p;

	s->last_peer = NULL;
	while ((p = TAILQ_FIRST(&s->peers)) != NULL) {
		TAILQ_REMOVE(&s->peers, p, link);
		socklnd_txq_fail(s, &p->txq, status, socklnd_hstatus(status));
		free(p);
	}
}
