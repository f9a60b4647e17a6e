/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * socklnd peers: which connections a peer needs and when to open them
 * (lnet-facts §4.4-4.5). The connecting side opens one CONTROL and
 * conns_per_peer each of BULK_IN and BULK_OUT; when both sides connect at once, the higher NID's outgoing
 * connections win (the passive side refuses with CONN_NONE); a connection
 * of a type the peer already has enough of is a duplicate; a new incarnation means
 * the peer restarted, and every older connection to it goes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "socklnd_internal.h"

#define SOCKLND_NTYPES 4
static const int socklnd_types[SOCKLND_NTYPES] = { SOCKLND_CONN_ANY, SOCKLND_CONN_CONTROL,
						   SOCKLND_CONN_BULK_IN, SOCKLND_CONN_BULK_OUT };

struct socklnd_peer *
socklnd_peer_get(struct socklnd_ni *s, const struct lnet_nid *nid)
{
	struct socklnd_peer *p;

	TAILQ_FOREACH(p, &s->peers, link) {
		if (lnet_nid_same(&p->nid, nid)) {
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
	if (type == SOCKLND_CONN_ANY || type == SOCKLND_CONN_CONTROL || s->opts.conns_per_peer <= 0) {
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
		TAILQ_REMOVE(&p->conns, best, plink);
		TAILQ_INSERT_TAIL(&p->conns, best, plink);
		return best;
	}
	return any;
}

static void
socklnd_txq_fail(struct socklnd_ni *s, struct sock_tx_list *q, int status)
{
	struct sock_tx *tx;

	while ((tx = TAILQ_FIRST(q)) != NULL) {
		TAILQ_REMOVE(q, tx, link);
		if (tx->cookie != NULL) {
			lnet_finalize(tx->cookie, status);
		}
		socklnd_tx_free(s, tx);
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
			if (socklnd_connect_one(s, p, t) != 0) {
				s->stats.connect_failures++;
			}
		}
	}
	p->state = SOCKLND_PEER_CONNECTING;
}

#define SOCKLND_ALL_TYPES ((uint8_t)((1u << SOCKLND_CONN_ANY) | (1u << SOCKLND_CONN_CONTROL) | \
				     (1u << SOCKLND_CONN_BULK_IN) | (1u << SOCKLND_CONN_BULK_OUT)))

/* No attempt left and nothing to carry messages: they fail, and the peer backs off. */
static void
socklnd_peer_give_up(struct socklnd_ni *s, struct socklnd_peer *p)
{
	uint64_t now = rt_now_us(s->rt);

	p->state = SOCKLND_PEER_BACKOFF;
	p->retry_types = 0;
	p->retry_at_us = now + (uint64_t)p->backoff_ms * 1000;
	p->backoff_ms = p->backoff_ms * 2 > (unsigned int)s->opts.max_reconnectms ?
				(unsigned int)s->opts.max_reconnectms : p->backoff_ms * 2;
	socklnd_txq_fail(s, &p->txq, -EHOSTUNREACH);
}

int
socklnd_peer_send(struct socklnd_ni *s, const struct lnet_nid *nid, struct sock_tx *tx)
{
	struct socklnd_peer *p = socklnd_peer_get(s, nid);
	struct socklnd_conn *c;

	if (p == NULL) {
		return -ENOMEM;
	}
	c = socklnd_peer_pick(p, (unsigned int)s->opts.min_bulk, tx->hdr_len + tx->len);
	if (c != NULL) {
		socklnd_conn_queue(c, tx);
		return 0;
	}
	if (p->state == SOCKLND_PEER_BACKOFF && rt_now_us(s->rt) < p->retry_at_us) {
		return -EHOSTUNREACH; /* it failed just now: do not hammer it */
	}
	TAILQ_INSERT_TAIL(&p->txq, tx, link);
	if (p->state != SOCKLND_PEER_CONNECTING) {
		p->refused_rounds = 0;
		socklnd_peer_launch(s, p, SOCKLND_ALL_TYPES);
		if (socklnd_peer_attempts(p) == 0) {
			TAILQ_REMOVE(&p->txq, tx, link);
			socklnd_peer_give_up(s, p);
			return -EHOSTUNREACH;
		}
	}
	return 0;
}

/* Every connection of @p p but @p keep goes: the peer restarted. */
static void
socklnd_peer_close_all(struct socklnd_peer *p, const struct socklnd_conn *keep, int status)
{
	struct socklnd_conn *c;

	TAILQ_FOREACH(c, &p->conns, plink) {
		if (c != keep) {
			socklnd_conn_close(c, status);
		}
	}
}

static void
socklnd_peer_incarnation(struct socklnd_peer *p, const struct socklnd_conn *c, uint64_t inc)
{
	if (p->have_incarnation && p->incarnation != inc) {
		c->sni->stats.stale_conns++;
		socklnd_peer_close_all(p, c, -ESTALE);
	}
	p->have_incarnation = true;
	p->incarnation = inc;
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

/* A connection is up: messages waiting for one go now. */
void
socklnd_peer_conn_up(struct socklnd_conn *c)
{
	struct socklnd_peer *p = c->peer;
	struct sock_tx *tx;

	if (c->active) {
		socklnd_peer_incarnation(p, c, c->hs.peer.src_incarnation);
	}
	if (!socklnd_conn_carries(c)) {
		return;
	}
	p->state = SOCKLND_PEER_UP;
	p->last_alive_us = c->last_io_us;
	p->refused_rounds = 0;
	p->backoff_ms = (unsigned int)c->sni->opts.min_reconnectms;
	while ((tx = TAILQ_FIRST(&p->txq)) != NULL) {
		TAILQ_REMOVE(&p->txq, tx, link);
		socklnd_conn_queue(socklnd_peer_pick(p, (unsigned int)c->sni->opts.min_bulk,
						     tx->hdr_len + tx->len),
				   tx);
	}
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
		p->retry_at_us = rt_now_us(s->rt) + (uint64_t)s->opts.min_reconnectms * 1000ULL;
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
	}
	if (socklnd_peer_pick(p, 0, 0) != NULL) {
		return; /* still reachable */
	}
	if (p->state == SOCKLND_PEER_UP) {
		p->state = SOCKLND_PEER_IDLE;
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
	uint64_t quiet = (uint64_t)s->opts.keepalive * 1000000ULL;
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

/* Once a second: keepalives, and refused connection types are tried again. */
void
socklnd_peer_tick(struct socklnd_ni *s, uint64_t now_us)
{
	struct socklnd_peer *p;

	TAILQ_FOREACH(p, &s->peers, link) {
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

	while ((p = TAILQ_FIRST(&s->peers)) != NULL) {
		TAILQ_REMOVE(&s->peers, p, link);
		socklnd_txq_fail(s, &p->txq, status);
		free(p);
	}
}
