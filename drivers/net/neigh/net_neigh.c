/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ARP cache: see net_neigh.h. Writer-side state (timers, probe counts,
 * queued packets) lives in struct neigh_wr, touched on the management lcore
 * only; what data lcores read is struct neigh_snap, never changed once
 * published. The table is open addressing with linear probing; a removal
 * shifts the entries after it back (a reader racing it may miss an entry for
 * a moment, and then takes the slow path, which finds it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_jhash.h>
#include <rte_mbuf_dyn.h>

#include "net_neigh.h"

#define NET_STAT_ADD(s, field, n) __atomic_fetch_add(&(s)->field, (n), __ATOMIC_RELAXED)

/* What a packet carries across lcores: whose it is, where to, from which lcore. */
struct neigh_meta {
	struct net_neigh *nb;
	uint32_t nexthop;
	uint16_t lcore;
};

static int g_meta_off = -1;

static struct neigh_meta *
meta(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, g_meta_off, struct neigh_meta *);
}

/* What data lcores read (immutable once published). */
struct neigh_snap {
	uint32_t ip;
	enum net_neigh_state state;
	struct rte_ether_addr mac;
	uint64_t reachable_until_us; /* REACHABLE: confirmed until then */
};

/* The writer's side of an entry (management lcore only). */
struct neigh_wr {
	struct net_neigh *nb;
	uint32_t ip;
	uint32_t probes;
	struct rt_timer timer;
	uint32_t n_pending;
	struct rte_mbuf *pending[]; /* conf.pending_max */
};

struct neigh_addrs {
	unsigned int n;
	struct {
		uint32_t ip;
		uint32_t mask; /* network order */
	} a[NET_NEIGH_MAX_ADDRS];
};

struct net_neigh {
	struct net_port *port;
	struct rt_runtime *rt;
	struct net_neigh_conf conf;
	uint32_t mask;                /* capacity - 1 */
	struct neigh_snap **snap;     /* RCU slots, read by data lcores */
	struct neigh_wr **wr;         /* the writer's side, same index */
	struct neigh_addrs *addrs;    /* RCU slot */
	struct net_neigh_stats stats; /* atomics: written by the writer and data lcores */
};

/* ---- parsing ---- */

enum net_arp_verdict
net_arp_parse(const void *p, size_t len, struct net_arp_view *v)
{
	const struct rte_arp_hdr *a = p;

	if (len < sizeof(*a)) {
		return NET_ARP_SHORT;
	}
	if (a->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    a->arp_hlen != RTE_ETHER_ADDR_LEN || a->arp_plen != sizeof(uint32_t)) {
		return NET_ARP_NOT_ETH_IP;
	}
	v->op = rte_be_to_cpu_16(a->arp_opcode);
	if (v->op != RTE_ARP_OP_REQUEST && v->op != RTE_ARP_OP_REPLY) {
		return NET_ARP_BAD_OP;
	}
	v->sha = a->arp_data.arp_sha;
	v->tha = a->arp_data.arp_tha;
	memcpy(&v->spa, &a->arp_data.arp_sip, sizeof(v->spa));
	memcpy(&v->tpa, &a->arp_data.arp_tip, sizeof(v->tpa));
	if (rte_is_multicast_ether_addr(&v->sha)) { /* broadcast is multicast too */
		return NET_ARP_BAD_SENDER;
	}
	return NET_ARP_OK;
}

/* ---- the table ---- */

static uint32_t
neigh_home(const struct net_neigh *nb, uint32_t ip)
{
	return rte_jhash_1word(ip, 0x6e656967) & nb->mask;
}

/*
 * The snapshot of @p ip, or NULL. It stays valid until the reading lcore's
 * next quiescent state (the end of its poll).
 */
static const struct neigh_snap *
neigh_read(const struct net_neigh *nb, uint32_t ip)
{
	uint32_t i, n;

	for (i = neigh_home(nb, ip), n = 0; n <= nb->mask; i = (i + 1) & nb->mask, n++) {
		const struct neigh_snap *s = rt_rcu_read((void *const *)&nb->snap[i]);

		if (s == NULL) {
			break;
		}
		if (s->ip == ip) {
			return s;
		}
	}
	return NULL;
}

enum net_neigh_state
net_neigh_lookup(const struct net_neigh *nb, uint32_t ip, struct rte_ether_addr *mac)
{
	const struct neigh_snap *s = neigh_read(nb, ip);

	if (s == NULL) {
		return NET_NEIGH_NONE;
	}
	if (mac != NULL) {
		*mac = s->mac;
	}
	if (s->state == NET_NEIGH_REACHABLE && rt_now_us(nb->rt) >= s->reachable_until_us) {
		return NET_NEIGH_STALE;
	}
	return s->state;
}

/* The writer's slot of @p ip, or -1. */
static int
wr_find(const struct net_neigh *nb, uint32_t ip)
{
	uint32_t i, n;

	for (i = neigh_home(nb, ip), n = 0; n <= nb->mask; i = (i + 1) & nb->mask, n++) {
		if (nb->wr[i] == NULL) {
			return -1;
		}
		if (nb->wr[i]->ip == ip) {
			return (int)i;
		}
	}
	return -1;
}

static void
snap_free(void *obj)
{
	free(obj);
}

/* Publish a new snapshot for slot @p i (management lcore). */
static int
wr_publish(struct net_neigh *nb, uint32_t i, enum net_neigh_state state,
	   const struct rte_ether_addr *mac, uint64_t reachable_until_us)
{
	struct neigh_snap *old = nb->snap[i];
	struct neigh_snap *s = malloc(sizeof(*s));

	if (s == NULL) {
		return -ENOMEM;
	}
	s->ip = nb->wr[i]->ip;
	s->state = state;
	if (mac != NULL) {
		s->mac = *mac;
	} else if (old != NULL) {
		s->mac = old->mac;
	} else {
		memset(&s->mac, 0, sizeof(s->mac));
	}
	s->reachable_until_us = reachable_until_us;
	rt_rcu_publish((void **)&nb->snap[i], s);
	if (old != NULL) {
		rt_rcu_retire(nb->rt, old, snap_free);
	}
	return 0;
}

static void neigh_timer(void *arg);

static int
wr_create(struct net_neigh *nb, uint32_t ip)
{
	uint32_t i, n;
	struct neigh_wr *w;

	for (i = neigh_home(nb, ip), n = 0; n <= nb->mask; i = (i + 1) & nb->mask, n++) {
		if (nb->wr[i] == NULL) {
			break;
		}
	}
	if (n > nb->mask) {
		return -ENOSPC;
	}
	w = calloc(1, sizeof(*w) + nb->conf.pending_max * sizeof(w->pending[0]));
	if (w == NULL) {
		return -ENOMEM;
	}
	w->nb = nb;
	w->ip = ip;
	rt_timer_init(&w->timer, neigh_timer, w);
	nb->wr[i] = w;
	if (wr_publish(nb, i, NET_NEIGH_INCOMPLETE, NULL, 0) != 0) {
		nb->wr[i] = NULL;
		free(w);
		return -ENOMEM;
	}
	return (int)i;
}

static void
wr_drop_pending(struct net_neigh *nb, struct neigh_wr *w)
{
	NET_STAT_ADD(&nb->stats, resolve_failed, w->n_pending);
	while (w->n_pending > 0) {
		rte_pktmbuf_free(w->pending[--w->n_pending]);
	}
}

/* Remove slot @p i, shifting back the entries that probed past it. */
static void
wr_remove(struct net_neigh *nb, uint32_t i)
{
	struct neigh_wr *w = nb->wr[i];
	struct neigh_snap *s = nb->snap[i];
	uint32_t j, home;

	rt_timer_cancel(&w->timer);
	wr_drop_pending(nb, w);
	free(w);
	nb->wr[i] = NULL;
	rt_rcu_publish((void **)&nb->snap[i], NULL);
	rt_rcu_retire(nb->rt, s, snap_free);
	NET_STAT_ADD(&nb->stats, removed, 1);
	for (j = (i + 1) & nb->mask; nb->wr[j] != NULL; j = (j + 1) & nb->mask) {
		home = neigh_home(nb, nb->wr[j]->ip);
		/* Entry j may move to the hole at i if i lies between its home and j. */
		if (((j - home) & nb->mask) >= ((j - i) & nb->mask)) {
			nb->wr[i] = nb->wr[j];
			rt_rcu_publish((void **)&nb->snap[i], nb->snap[j]);
			nb->wr[j] = NULL;
			rt_rcu_publish((void **)&nb->snap[j], NULL);
			i = j;
		}
	}
}

/* ---- transmission from the writer ---- */

static void
neigh_tx_msg(void *ctx)
{
	struct rte_mbuf *m = ctx;
	struct neigh_meta *md = meta(m);

	net_port_tx(md->nb->port, md->lcore, m);
}

/* Hand a complete frame to data lcore @p lcore to send. */
static void
wr_send(struct net_neigh *nb, unsigned int lcore, struct rte_mbuf *m)
{
	struct neigh_meta *md = meta(m);

	md->nb = nb;
	md->lcore = (uint16_t)lcore;
	if (rt_lcore_send_msg(rt_data_lcore(nb->rt, lcore), neigh_tx_msg, m) != 0) {
		NET_STAT_ADD(&nb->stats, msg_drops, 1);
		rte_pktmbuf_free(m);
	}
}

static void
eth_fill(struct rte_mbuf *m, const struct rte_ether_addr *src, const struct rte_ether_addr *dst,
	 uint16_t type)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	eh->src_addr = *src;
	eh->dst_addr = *dst;
	eh->ether_type = rte_cpu_to_be_16(type);
	m->l2_len = RTE_ETHER_HDR_LEN;
}

/* Fill @p m with an ARP body of @p op at its L2 header's end. */
static void
arp_fill(struct rte_mbuf *m, uint16_t op, const struct rte_ether_addr *sha, uint32_t spa,
	 const struct rte_ether_addr *tha, uint32_t tpa)
{
	struct rte_arp_hdr *a = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, m->l2_len);

	a->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = sizeof(uint32_t);
	a->arp_opcode = rte_cpu_to_be_16(op);
	a->arp_data.arp_sha = *sha;
	a->arp_data.arp_tha = *tha;
	memcpy(&a->arp_data.arp_sip, &spa, sizeof(spa));
	memcpy(&a->arp_data.arp_tip, &tpa, sizeof(tpa));
}

/*
 * Send a request for @p tpa from @p spa: broadcast, or unicast to @p dst
 * (re-probe). False when no buffer was had (counted as a drop).
 */
static bool
arp_request(struct net_neigh *nb, uint32_t spa, uint32_t tpa, const struct rte_ether_addr *dst)
{
	const struct rte_ether_addr bcast = { .addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
							      0xff } };
	const struct rte_ether_addr zero = { .addr_bytes = { 0 } };
	const struct rte_ether_addr *mac = &net_port_info(nb->port)->mac;
	struct rte_mbuf *m = net_port_alloc(nb->port);

	if (m == NULL ||
	    rte_pktmbuf_append(m, RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr)) == NULL) {
		rte_pktmbuf_free(m);
		NET_STAT_ADD(&nb->stats, msg_drops, 1);
		return false;
	}
	eth_fill(m, mac, dst != NULL ? dst : &bcast, RTE_ETHER_TYPE_ARP);
	arp_fill(m, RTE_ARP_OP_REQUEST, mac, spa, &zero, tpa);
	wr_send(nb, 0, m);
	return true;
}

static const struct neigh_addrs *
addrs_read(const struct net_neigh *nb)
{
	return rt_rcu_read((void *const *)&nb->addrs);
}

bool
net_neigh_src_for(const struct net_neigh *nb, uint32_t dst, uint32_t *src, bool *onlink)
{
	const struct neigh_addrs *as = addrs_read(nb);
	unsigned int k;

	if (as == NULL || as->n == 0) {
		return false;
	}
	for (k = 0; k < as->n; k++) {
		if (((as->a[k].ip ^ dst) & as->a[k].mask) == 0) {
			*src = as->a[k].ip;
			*onlink = true;
			return true;
		}
	}
	*src = as->a[0].ip;
	*onlink = false;
	return true;
}

bool
net_neigh_is_local(const struct net_neigh *nb, uint32_t ip)
{
	const struct neigh_addrs *as = addrs_read(nb);
	unsigned int k;

	for (k = 0; as != NULL && k < as->n; k++) {
		if (as->a[k].ip == ip) {
			return true;
		}
	}
	return false;
}

/* Probe @p w's address (broadcast while it has no MAC, unicast to @p mac otherwise). */
static void
wr_probe(struct net_neigh *nb, struct neigh_wr *w, const struct rte_ether_addr *mac)
{
	uint32_t src;
	bool onlink;

	if (!net_neigh_src_for(nb, w->ip, &src, &onlink)) {
		return;
	}
	w->probes++;
	NET_STAT_ADD(&nb->stats, arp_req_tx, 1);
	arp_request(nb, src, w->ip, mac);
	rt_timer_arm(&w->timer, (uint64_t)nb->conf.retrans_ms * 1000);
}

/* A frame of ours towards @p mac: Ethernet header in front, to its lcore. */
static void
wr_emit(struct net_neigh *nb, struct rte_mbuf *m, const struct rte_ether_addr *mac)
{
	unsigned int lcore = meta(m)->lcore;

	if (rte_pktmbuf_prepend(m, RTE_ETHER_HDR_LEN) == NULL) {
		NET_STAT_ADD(&nb->stats, msg_drops, 1);
		rte_pktmbuf_free(m);
		return;
	}
	eth_fill(m, &net_port_info(nb->port)->mac, mac, RTE_ETHER_TYPE_IPV4);
	wr_send(nb, lcore, m);
}

/* @p ip is at @p mac, confirmed now: REACHABLE, and what waited goes out. */
static void
wr_confirm(struct net_neigh *nb, uint32_t i, const struct rte_ether_addr *mac)
{
	struct neigh_wr *w = nb->wr[i];
	uint64_t now = rt_now_us(nb->rt);
	uint32_t k;

	if (nb->snap[i]->state == NET_NEIGH_INCOMPLETE) {
		NET_STAT_ADD(&nb->stats, resolved, 1);
	}
	wr_publish(nb, i, NET_NEIGH_REACHABLE, mac, now + (uint64_t)nb->conf.reachable_ms * 1000);
	w->probes = 0;
	/* Unused from here on, it goes once its confirmation and gc_stale_ms have passed. */
	rt_timer_arm(&w->timer, ((uint64_t)nb->conf.reachable_ms + nb->conf.gc_stale_ms) * 1000);
	for (k = 0; k < w->n_pending; k++) {
		wr_emit(nb, w->pending[k], mac);
	}
	w->n_pending = 0;
}

/* The entry's timer: the next probe, a failed resolution, or an unused entry's end. */
static void
neigh_timer(void *arg)
{
	struct neigh_wr *w = arg;
	struct net_neigh *nb = w->nb;
	int i = wr_find(nb, w->ip);
	const struct neigh_snap *s;

	if (i < 0) {
		return;
	}
	s = nb->snap[i];
	if ((s->state == NET_NEIGH_INCOMPLETE || s->state == NET_NEIGH_PROBE) &&
	    w->probes < nb->conf.max_probes) {
		wr_probe(nb, w, s->state == NET_NEIGH_PROBE ? &s->mac : NULL);
		return;
	}
	wr_remove(nb, (uint32_t)i);
}

/* ---- the slow path: packets data lcores could not send ---- */

static void
wr_enqueue(struct net_neigh *nb, struct neigh_wr *w, struct rte_mbuf *m)
{
	if (w->n_pending == nb->conf.pending_max) {
		NET_STAT_ADD(&nb->stats, pending_drops, 1);
		rte_pktmbuf_free(m);
		return;
	}
	w->pending[w->n_pending++] = m;
}

static void
neigh_resolve_msg(void *ctx)
{
	struct rte_mbuf *m = ctx;
	struct neigh_meta *md = meta(m);
	struct net_neigh *nb = md->nb;
	const struct neigh_snap *s;
	int i = wr_find(nb, md->nexthop);

	if (i < 0) {
		i = wr_create(nb, md->nexthop);
		if (i < 0) {
			NET_STAT_ADD(&nb->stats, table_full, 1);
			rte_pktmbuf_free(m);
			return;
		}
		wr_enqueue(nb, nb->wr[i], m);
		wr_probe(nb, nb->wr[i], NULL);
		return;
	}
	s = nb->snap[i];
	switch (s->state) {
	case NET_NEIGH_INCOMPLETE:
		wr_enqueue(nb, nb->wr[i], m);
		return;
	case NET_NEIGH_REACHABLE:
		if (rt_now_us(nb->rt) < s->reachable_until_us) {
			break;
		}
		/* Aged out: STALE as data lcores saw it. */
		/* fall through */
	case NET_NEIGH_STALE:
		/* Keep using the MAC while a unicast probe asks again (RFC 1122 2.3.2.1). */
		wr_publish(nb, (uint32_t)i, NET_NEIGH_PROBE, NULL, 0);
		nb->wr[i]->probes = 0;
		wr_probe(nb, nb->wr[i], &s->mac);
		break;
	default:
		break;
	}
	wr_emit(nb, m, &nb->snap[i]->mac);
}

void
net_neigh_output(struct net_neigh *nb, unsigned int lcore, struct rte_mbuf *m, uint32_t nexthop)
{
	const struct neigh_snap *s = neigh_read(nb, nexthop);
	struct neigh_meta *md;

	/* The fast path: a MAC confirmed recently, or one a re-probe is checking. */
	if (s != NULL &&
	    (s->state == NET_NEIGH_PROBE ||
	     (s->state == NET_NEIGH_REACHABLE &&
	      rt_lcore_now_us(rt_data_lcore(nb->rt, lcore)) < s->reachable_until_us))) {
		struct rte_ether_hdr *eh =
			(struct rte_ether_hdr *)rte_pktmbuf_prepend(m, RTE_ETHER_HDR_LEN);

		if (eh == NULL) {
			NET_STAT_ADD(&nb->stats, msg_drops, 1);
			rte_pktmbuf_free(m);
			return;
		}
		eth_fill(m, &net_port_info(nb->port)->mac, &s->mac, RTE_ETHER_TYPE_IPV4);
		net_port_tx(nb->port, lcore, m);
		return;
	}
	/* No entry, no MAC yet, or an aged one: the writer decides. */
	md = meta(m);
	md->nb = nb;
	md->nexthop = nexthop;
	md->lcore = (uint16_t)lcore;
	NET_STAT_ADD(&nb->stats, slow_path, 1);
	if (rt_lcore_send_msg(rt_mgmt_lcore(nb->rt), neigh_resolve_msg, m) != 0) {
		NET_STAT_ADD(&nb->stats, msg_drops, 1);
		rte_pktmbuf_free(m);
	}
}

/* ---- ARP input (management lcore) ---- */

/* Answer a request for one of our addresses, reusing its frame. */
static void
arp_reply(struct net_neigh *nb, struct rte_mbuf *m, const struct net_arp_view *v)
{
	const struct rte_ether_addr *mac = &net_port_info(nb->port)->mac;
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	/* The L2 header (VLAN tags included) stays; only the addresses change. */
	m->ol_flags &= RTE_MBUF_F_EXTERNAL | RTE_MBUF_F_INDIRECT;
	eh->dst_addr = v->sha;
	eh->src_addr = *mac;
	arp_fill(m, RTE_ARP_OP_REPLY, mac, v->tpa, &v->sha, v->spa);
	NET_STAT_ADD(&nb->stats, arp_reply_tx, 1);
	wr_send(nb, 0, m);
}

/* What the sender of an ARP frame tells us about itself (RFC 826's merge). */
static void
arp_learn(struct net_neigh *nb, const struct net_arp_view *v, bool for_us)
{
	int i = wr_find(nb, v->spa);

	if (i >= 0) {
		enum net_neigh_state st = nb->snap[i]->state;

		/* Answers to our probes confirm; other frames only refresh the MAC. */
		if (st == NET_NEIGH_INCOMPLETE || st == NET_NEIGH_PROBE ||
		    (for_us && v->op == RTE_ARP_OP_REPLY)) {
			wr_confirm(nb, (uint32_t)i, &v->sha);
		} else if (!rte_is_same_ether_addr(&nb->snap[i]->mac, &v->sha)) {
			wr_publish(nb, (uint32_t)i, st, &v->sha, nb->snap[i]->reachable_until_us);
		}
		return;
	}
	if (for_us) {
		i = wr_create(nb, v->spa);
		if (i < 0) {
			NET_STAT_ADD(&nb->stats, table_full, 1);
			return;
		}
		wr_confirm(nb, (uint32_t)i, &v->sha);
	}
}

static void
neigh_arp_msg(void *ctx)
{
	struct rte_mbuf *m = ctx;
	struct net_neigh *nb = meta(m)->nb;
	struct net_arp_view v;
	bool for_us;

	NET_STAT_ADD(&nb->stats, arp_rx, 1);
	if (net_arp_parse(rte_pktmbuf_mtod_offset(m, const void *, m->l2_len),
			  rte_pktmbuf_data_len(m) - m->l2_len, &v) != NET_ARP_OK) {
		NET_STAT_ADD(&nb->stats, arp_bad, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (v.op == RTE_ARP_OP_REQUEST) {
		NET_STAT_ADD(&nb->stats, arp_req_rx, 1);
	} else {
		NET_STAT_ADD(&nb->stats, arp_reply_rx, 1);
	}
	if (net_neigh_is_local(nb, v.spa)) {
		NET_STAT_ADD(&nb->stats, conflicts, 1);
		rte_pktmbuf_free(m);
		return;
	}
	for_us = net_neigh_is_local(nb, v.tpa);
	if (v.spa != 0) { /* an RFC 5227 probe's sender has no address yet */
		arp_learn(nb, &v, for_us);
	}
	if (for_us && v.op == RTE_ARP_OP_REQUEST) {
		arp_reply(nb, m, &v);
		return;
	}
	rte_pktmbuf_free(m);
}

/* The port's ARP handler (data lcore 0): to the writer. */
static void
neigh_arp_rx(void *arg, struct net_port *port, unsigned int lcore, struct rte_mbuf *m)
{
	struct net_neigh *nb = arg;

	RTE_SET_USED(port);
	RTE_SET_USED(lcore);
	meta(m)->nb = nb;
	if (rt_lcore_send_msg(rt_mgmt_lcore(nb->rt), neigh_arp_msg, m) != 0) {
		NET_STAT_ADD(&nb->stats, msg_drops, 1);
		rte_pktmbuf_free(m);
	}
}

/* ---- addresses and announcements (management lcore) ---- */

/* An RFC 5227 announcement: a request with our address as sender and target. */
static void
garp_send(struct net_neigh *nb, uint32_t ip)
{
	if (arp_request(nb, ip, ip, NULL)) {
		NET_STAT_ADD(&nb->stats, garp_tx, 1);
	}
}

static bool
port_running(const struct net_neigh *nb)
{
	enum net_port_state st = net_port_state(nb->port);

	return st == NET_PORT_LINK_UP || st == NET_PORT_LINK_DOWN;
}

static int
announce_on_mgmt(void *arg)
{
	struct net_neigh *nb = arg;
	const struct neigh_addrs *as = nb->addrs;
	unsigned int k;

	if (!port_running(nb)) {
		return -ENETDOWN;
	}
	for (k = 0; as != NULL && k < as->n; k++) {
		garp_send(nb, as->a[k].ip);
	}
	return 0;
}

int
net_neigh_announce(struct net_neigh *nb)
{
	return rt_lcore_call(rt_mgmt_lcore(nb->rt), announce_on_mgmt, nb);
}

struct addr_change {
	struct net_neigh *nb;
	uint32_t ip;
	uint8_t plen;
	bool add;
};

static void
addrs_free(void *obj)
{
	free(obj);
}

static int
addr_change_on_mgmt(void *arg)
{
	struct addr_change *c = arg;
	struct net_neigh *nb = c->nb;
	struct neigh_addrs *old = nb->addrs;
	struct neigh_addrs *as = calloc(1, sizeof(*as));
	unsigned int k, n = 0;
	bool found = false;

	if (as == NULL) {
		return -ENOMEM;
	}
	for (k = 0; old != NULL && k < old->n; k++) {
		if (old->a[k].ip == c->ip) {
			found = true;
			if (!c->add) {
				continue;
			}
		}
		as->a[n++] = old->a[k];
	}
	if (c->add ? found || n == NET_NEIGH_MAX_ADDRS : !found) {
		free(as);
		return c->add ? (found ? -EEXIST : -ENOSPC) : -ENOENT;
	}
	if (c->add) {
		as->a[n].ip = c->ip;
		as->a[n].mask = c->plen == 0 ? 0 : rte_cpu_to_be_32(~0u << (32 - c->plen));
		n++;
	}
	as->n = n;
	rt_rcu_publish((void **)&nb->addrs, as);
	if (old != NULL) {
		rt_rcu_retire(nb->rt, old, addrs_free);
	}
	if (c->add && port_running(nb)) {
		garp_send(nb, c->ip);
	}
	return 0;
}

int
net_neigh_addr_add(struct net_neigh *nb, uint32_t ip, uint8_t prefix_len)
{
	struct addr_change c = { nb, ip, prefix_len, true };

	if (prefix_len > 32 || ip == 0) {
		return -EINVAL;
	}
	return rt_lcore_call(rt_mgmt_lcore(nb->rt), addr_change_on_mgmt, &c);
}

int
net_neigh_addr_del(struct net_neigh *nb, uint32_t ip)
{
	struct addr_change c = { nb, ip, 0, false };

	return rt_lcore_call(rt_mgmt_lcore(nb->rt), addr_change_on_mgmt, &c);
}

/* ---- life cycle ---- */

static int
meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "lnet_net_neigh_meta",
		.size = sizeof(struct neigh_meta),
		.align = __alignof__(struct neigh_meta),
	};

	if (g_meta_off < 0) {
		g_meta_off = rte_mbuf_dynfield_register(&desc);
	}
	return g_meta_off < 0 ? -ENOMEM : 0;
}

static void
conf_defaults(struct net_neigh_conf *c)
{
	uint32_t cap = 1;

	while (cap < (c->capacity != 0 ? c->capacity : 256)) {
		cap <<= 1;
	}
	c->capacity = cap;
	c->reachable_ms = c->reachable_ms != 0 ? c->reachable_ms : 30000;
	c->retrans_ms = c->retrans_ms != 0 ? c->retrans_ms : 1000;
	c->max_probes = c->max_probes != 0 ? c->max_probes : 3;
	c->gc_stale_ms = c->gc_stale_ms != 0 ? c->gc_stale_ms : 60000;
	c->pending_max = c->pending_max != 0 ? c->pending_max : 8;
}

int
net_neigh_create(struct net_port *port, const struct net_neigh_conf *conf, struct net_neigh **out)
{
	struct net_neigh *nb;

	*out = NULL;
	if (port == NULL || (conf != NULL && conf->conf_size < sizeof(*conf))) {
		return -EINVAL;
	}
	if (meta_register() != 0) {
		return -ENOMEM;
	}
	nb = calloc(1, sizeof(*nb));
	if (nb == NULL) {
		return -ENOMEM;
	}
	if (conf != NULL) {
		nb->conf = *conf;
	}
	conf_defaults(&nb->conf);
	nb->port = port;
	nb->rt = net_port_runtime(port);
	nb->mask = nb->conf.capacity - 1;
	nb->snap = calloc(nb->conf.capacity, sizeof(nb->snap[0]));
	nb->wr = calloc(nb->conf.capacity, sizeof(nb->wr[0]));
	if (nb->snap == NULL || nb->wr == NULL) {
		net_neigh_destroy(nb);
		return -ENOMEM;
	}
	net_port_set_handler(port, NET_CLASS_ARP, neigh_arp_rx, nb);
	*out = nb;
	return 0;
}

static int
destroy_on_mgmt(void *arg)
{
	struct net_neigh *nb = arg;
	uint32_t i;

	for (i = 0; i <= nb->mask; i++) {
		if (nb->wr[i] != NULL) {
			rt_timer_cancel(&nb->wr[i]->timer);
			wr_drop_pending(nb, nb->wr[i]);
			free(nb->wr[i]);
			free(nb->snap[i]);
		}
	}
	free(nb->addrs);
	return 0;
}

void
net_neigh_destroy(struct net_neigh *nb)
{
	if (nb == NULL) {
		return;
	}
	/* The port is closed: no data lcore reads the table any more. */
	if (nb->wr != NULL && nb->snap != NULL) {
		rt_lcore_call(rt_mgmt_lcore(nb->rt), destroy_on_mgmt, nb);
	}
	free(nb->snap);
	free(nb->wr);
	free(nb);
}

void
net_neigh_stats(const struct net_neigh *nb, struct net_neigh_stats *out)
{
	const uint64_t *src = (const uint64_t *)&nb->stats;
	uint64_t *dst = (uint64_t *)out;
	size_t i;

	for (i = 0; i < sizeof(*out) / sizeof(uint64_t); i++) {
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	}
}

struct net_port *
net_neigh_port(const struct net_neigh *nb)
{
	return nb->port;
}
