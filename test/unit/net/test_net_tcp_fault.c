/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP (drivers/net/tcp) under faults: two stacks in one process, two ring
 * ports back to back, on the simulated runtime (virtual clock), with a
 * seeded fault shim on each port's RX path that drops, duplicates,
 * reorders, delays and corrupts the TCP frames the other stack sent. N
 * connections move B bytes each way; every byte is checked against a
 * pattern salted by the connection, and the assertions are on counters
 * (the shim's and the stack's), never on time.
 *
 *   test_net_tcp_fault [CONNS [BYTES]]   (defaults: the gating size)
 *   LNP_FAULT_SEED=S                     replay a run (the seed is printed)
 *   LNP_FAULTS=drop=1,dup=1,reorder=1,delay=1,delay_us=20000,corrupt=0.5
 *                                        one run with these instead (per cent)
 *
 * The same seed gives the same run: one thread polls both stacks and the
 * shim draws from its own generator.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_tcp.h>

#include "lnp_test.h"
#include "net_ip.h"
#include "net_neigh.h"
#include "net_port.h"
#include "net_tcp.h"
#include "rt.h"

#define IP4(a, b, c, d) \
	rte_cpu_to_be_32((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define IP_A IP4(10, 0, 0, 1)
#define IP_B IP4(10, 0, 0, 2)
#define PORT_B 988
#define SPORT_HI 1023U
#define MAX_CONNS 256
/* Virtual time a whole run may take (RTOs under 5% loss add up, the clock costs nothing). */
#define RUN_LIMIT_US (24ULL * 3600 * 1000 * 1000)
#define HELD_MAX 16384

static unsigned int g_conns = 16;
static size_t g_bytes = 4 * 1024 * 1024;
static uint64_t g_seed;

/* ---- the fault shim ---- */

/* Per cent chances of each fault, and the delay's bound. */
struct faults {
	double drop, dup, reorder, delay, corrupt;
	uint64_t delay_max_us;
};

struct held {
	struct rte_mbuf *m;
	uint64_t release_us; /* due from this time on... */
	uint32_t after;      /* ...or once this many later frames went out first */
	bool corrupt;
};

/* One direction: the frames one stack sent, before the other sees them. */
struct shim {
	struct rt_runtime *rt;
	struct faults f;
	uint64_t rng;
	struct held q[HELD_MAX];
	unsigned int n;
	/* What it did (frames). */
	uint64_t seen, dropped, dropped_data, duplicated, reordered, delayed, corrupted, passed;
};

/* splitmix64: the shim's own stream, so the stack's draws (rte_rand) do not shift it. */
static uint64_t
next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static bool
roll(struct shim *s, double pct)
{
	return pct > 0 && (double)(next_rand(&s->rng) % 1000000) < pct * 10000.0;
}

/* The TCP header of a frame, and the TCP bytes (header and payload); NULL if not TCP. */
static struct rte_tcp_hdr *
frame_tcp(struct rte_mbuf *m, uint32_t *tcp_len, uint32_t *plen)
{
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	size_t l3 = sizeof(struct rte_ether_hdr);
	uint32_t total;

	if (rte_pktmbuf_data_len(m) < l3 + sizeof(*ip) + sizeof(*th)) {
		return NULL;
	}
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, l3);
	if (ip->next_proto_id != IPPROTO_TCP) {
		return NULL;
	}
	th = (struct rte_tcp_hdr *)((uint8_t *)ip + rte_ipv4_hdr_len(ip));
	total = rte_be_to_cpu_16(ip->total_length);
	*tcp_len = total - rte_ipv4_hdr_len(ip);
	*plen = *tcp_len - (uint32_t)(th->data_off >> 4) * 4;
	return th;
}

/* Flip one byte of the TCP header or payload: the checksum must catch it. */
static void
corrupt_frame(struct shim *s, struct rte_mbuf *m)
{
	uint32_t tcp_len, plen;
	uint8_t *th = (uint8_t *)frame_tcp(m, &tcp_len, &plen);
	uint8_t x = (uint8_t)(1 + next_rand(&s->rng) % 255);

	th[next_rand(&s->rng) % tcp_len] ^= x;
}

/* Queue @p m to go out in order, now. */
static struct held *
enqueue(struct shim *s, struct rte_mbuf *m, uint64_t now)
{
	struct held *h;

	if (s->n == HELD_MAX) { /* sized so that it does not happen: fail loudly if it does */
		fail_msg("fault shim: %u frames held", s->n);
	}
	h = &s->q[s->n++];
	*h = (struct held){ .m = m, .release_us = now };
	return h;
}

/* Queue a TCP frame, perhaps to be corrupted, reordered or delayed. */
static void
hold(struct shim *s, struct rte_mbuf *m, uint64_t now)
{
	struct held *h = enqueue(s, m, now);

	h->corrupt = roll(s, s->f.corrupt);
	if (roll(s, s->f.reorder)) {
		/* Out after 1 to 3 later frames, or 1 ms if none follows. */
		h->after = 1 + (uint32_t)(next_rand(&s->rng) % 3);
		h->release_us = now + 1000;
		s->reordered++;
	} else if (roll(s, s->f.delay)) {
		h->release_us = now + 1 + next_rand(&s->rng) % s->f.delay_max_us;
		h->after = UINT32_MAX;
		s->delayed++;
	}
}

static bool
due(const struct held *h, uint64_t now)
{
	return now >= h->release_us || (h->after != UINT32_MAX && h->after == 0);
}

/* Take what arrived into the queue (dropping and duplicating), then let out what is due, in order. */
static uint16_t
shim_cb(uint16_t port_id, uint16_t queue, struct rte_mbuf *pkts[], uint16_t nb, uint16_t max,
	void *arg)
{
	struct shim *s = arg;
	uint64_t now = rt_now_us(s->rt);
	uint16_t out = 0;
	unsigned int keep = 0;

	(void)port_id;
	(void)queue;
	for (uint16_t i = 0; i < nb; i++) {
		uint32_t tcp_len, plen;
		struct rte_mbuf *m = pkts[i];

		if (frame_tcp(m, &tcp_len, &plen) == NULL) { /* ARP: no faults */
			enqueue(s, m, now);
			continue;
		}
		s->seen++;
		if (roll(s, s->f.drop)) {
			s->dropped++;
			s->dropped_data += plen > 0;
			rte_pktmbuf_free(m);
			continue;
		}
		hold(s, m, now);
		if (roll(s, s->f.dup)) {
			struct rte_mbuf *c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);

			if (c != NULL) {
				s->duplicated++;
				hold(s, c, now);
			}
		}
	}
	for (unsigned int i = 0; i < s->n; i++) {
		struct held *h = &s->q[i];

		if (out < max && due(h, now)) {
			if (h->corrupt) {
				corrupt_frame(s, h->m);
				s->corrupted++;
			}
			pkts[out++] = h->m;
			s->passed++;
			/* Frames held for reordering count the ones that overtook them. */
			for (unsigned int j = 0; j < i; j++) {
				if (s->q[j].m != NULL && s->q[j].after != UINT32_MAX &&
				    s->q[j].after > 0) {
					s->q[j].after--;
				}
			}
			h->m = NULL;
		}
	}
	for (unsigned int i = 0; i < s->n; i++) {
		if (s->q[i].m != NULL) {
			s->q[keep++] = s->q[i];
		}
	}
	s->n = keep;
	return out;
}

/* The earliest time a held frame falls due; UINT64_MAX when none is held. */
static uint64_t
shim_next_us(const struct shim *s)
{
	uint64_t t = UINT64_MAX;

	for (unsigned int i = 0; i < s->n; i++) {
		t = RTE_MIN(t, s->q[i].release_us);
	}
	return t;
}

static void
shim_flush(struct shim *s)
{
	for (unsigned int i = 0; i < s->n; i++) {
		rte_pktmbuf_free(s->q[i].m);
	}
	s->n = 0;
}

/* ---- the two stacks ---- */

struct node {
	struct net_port *port;
	struct net_neigh *nb;
	struct net_ip *ip;
	struct net_tcp *tcp;
	uint16_t port_id;
};

struct fix {
	struct rt_runtime *rt;
	struct rte_ring *ab, *ba;
	struct node a, b;
	struct shim to_b, to_a; /* frames from A (to B), from B (to A) */
	const struct rte_eth_rxtx_callback *cb_b, *cb_a;
};

static unsigned int g_seq;

static uint16_t
ring_port(const char *tag, struct rte_ring *rx, struct rte_ring *tx)
{
	struct rte_ring *rxs[1] = { rx }, *txs[1] = { tx };
	char name[32];
	int id;

	snprintf(name, sizeof(name), "tcp_fault_%s%u", tag, g_seq);
	id = rte_eth_from_rings(name, rxs, 1, txs, 1, SOCKET_ID_ANY);
	assert_true(id >= 0);
	return (uint16_t)id;
}

static void
node_open(struct fix *f, struct node *n, const char *tag, struct rte_ring *rx, struct rte_ring *tx,
	  uint32_t addr)
{
	struct net_port_conf pc = { .conf_size = sizeof(pc), .nb_mbufs = 32767 };
	struct net_neigh_conf nc = { .conf_size = sizeof(nc) };
	struct net_ip_conf ic = { .conf_size = sizeof(ic) };
	/* 128 KiB buffers keep 64 connections' frames in flight within the pools. */
	struct net_tcp_conf tc = { .conf_size = sizeof(tc),
				   .rcv_buf = 128 * 1024,
				   .snd_buf = 128 * 1024,
				   .time_wait_us = 2ULL * 1000 * 1000 };
	struct rte_ether_addr mac = { .addr_bytes = { 0x02, 0, 0, 2, (uint8_t)g_seq,
						      (uint8_t)tag[0] } };

	pc.mac = &mac;
	pc.port_id = ring_port(tag, rx, tx);
	n->port_id = pc.port_id;
	assert_int_equal(net_port_open(f->rt, &pc, &n->port), 0);
	assert_int_equal(net_neigh_create(n->port, &nc, &n->nb), 0);
	assert_int_equal(net_ip_create(n->nb, &ic, &n->ip), 0);
	assert_int_equal(net_neigh_addr_add(n->nb, addr, 24), 0);
	assert_int_equal(net_tcp_create(n->nb, n->ip, &tc, &n->tcp), 0);
}

static void
node_close(struct node *n)
{
	net_port_close(n->port);
	net_tcp_destroy(n->tcp);
	net_ip_destroy(n->ip);
	net_neigh_destroy(n->nb);
}

static struct fix *
fix_open(const struct faults *fl, uint64_t seed)
{
	static struct fix f;
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_SIM, .n_data = 1 };
	char name[32];

	memset(&f, 0, sizeof(f));
	g_seq++;
	assert_int_equal(rt_runtime_create(&o, &f.rt), 0);
	snprintf(name, sizeof(name), "tcp_fault_ab%u", g_seq);
	f.ab = rte_ring_create(name, 8192, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "tcp_fault_ba%u", g_seq);
	f.ba = rte_ring_create(name, 8192, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(f.ab);
	assert_non_null(f.ba);
	node_open(&f, &f.a, "a", f.ba, f.ab, IP_A);
	node_open(&f, &f.b, "b", f.ab, f.ba, IP_B);
	f.to_b = (struct shim){ .rt = f.rt, .f = *fl, .rng = seed };
	f.to_a = (struct shim){ .rt = f.rt, .f = *fl, .rng = seed ^ 0x5a5a5a5a5a5a5a5aULL };
	f.cb_b = rte_eth_add_rx_callback(f.b.port_id, 0, shim_cb, &f.to_b);
	f.cb_a = rte_eth_add_rx_callback(f.a.port_id, 0, shim_cb, &f.to_a);
	assert_non_null(f.cb_b);
	assert_non_null(f.cb_a);
	assert_int_equal(net_port_start(f.a.port), 0);
	assert_int_equal(net_port_start(f.b.port), 0);
	rt_runtime_poll_until_idle(f.rt, 1000);
	return &f;
}

static void
fix_close(struct fix *f)
{
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(rte_eth_remove_rx_callback(f->b.port_id, 0, f->cb_b), 0);
	assert_int_equal(rte_eth_remove_rx_callback(f->a.port_id, 0, f->cb_a), 0);
	shim_flush(&f->to_b);
	shim_flush(&f->to_a);
	node_close(&f->a);
	node_close(&f->b);
	rt_runtime_destroy(f->rt);
	rte_ring_free(f->ab);
	rte_ring_free(f->ba);
}

/*
 * Poll until @p cond: when the lcores are idle, the virtual clock jumps no
 * further than the next held frame's release, so a delayed frame arrives
 * when it is due rather than at the next timer.
 */
static bool
drive(struct fix *f, bool (*cond)(void *arg), void *arg)
{
	uint64_t end = rt_now_us(f->rt) + RUN_LIMIT_US;

	while (!cond(arg)) {
		uint64_t now = rt_now_us(f->rt);
		uint64_t next = RTE_MIN(shim_next_us(&f->to_b), shim_next_us(&f->to_a));
		uint64_t step = next == UINT64_MAX ? end - now : RTE_MAX(next, now + 1) - now;

		if (now >= end) {
			return false;
		}
		rt_wait_until(f->rt, cond, arg, RTE_MIN(step, end - now));
	}
	return true;
}

/* ---- the connections' ends ---- */

struct ep {
	struct net_tcp_conn *c;
	unsigned int idx; /* the connection's number: it salts its bytes */
	bool server;
	size_t sent, acked, rcvd;
	bool rx_bad, connected, closed;
	uint64_t err;
	struct net_tcp_conn_stats st;
};

struct run {
	struct fix *f;
	struct ep cli[MAX_CONNS], srv[MAX_CONNS];
	unsigned int accepted;
};

static uint8_t
pattern(size_t i, unsigned int idx, bool from_server)
{
	return (uint8_t)(i * 7 + idx * 13 + (from_server ? 101 : 0) + (i >> 11));
}

static void
pump(struct ep *e)
{
	uint8_t buf[16384];

	while (e->sent < g_bytes) {
		size_t n = RTE_MIN(sizeof(buf), g_bytes - e->sent);
		long r;

		for (size_t i = 0; i < n; i++) {
			buf[i] = pattern(e->sent + i, e->idx, e->server);
		}
		r = net_tcp_send(e->c, buf, n);
		if (r <= 0) {
			return;
		}
		e->sent += (size_t)r;
	}
}

static void
drain(struct ep *e)
{
	struct net_tcp_view v;

	while (net_tcp_peek(e->c, &v) == 1) {
		for (size_t i = 0; i < v.len; i++) {
			if (v.data[i] != pattern(e->rcvd + i, e->idx, !e->server)) {
				e->rx_bad = true;
			}
		}
		e->rcvd += v.len;
		net_tcp_consume(e->c, v.len);
	}
}

static void
on_event(void *arg, struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n)
{
	struct ep *e = arg;

	(void)c;
	switch (ev) {
	case NET_TCP_EV_CONNECTED:
		e->connected = true;
		pump(e);
		break;
	case NET_TCP_EV_ACCEPT: /* not on an end: the listener's is on_accept */
		break;
	case NET_TCP_EV_READABLE:
		drain(e);
		break;
	case NET_TCP_EV_ACKED:
		e->acked += n;
		pump(e);
		break;
	case NET_TCP_EV_CLOSED:
		e->closed = true;
		e->err = n;
		break;
	}
}

/* The listener's: the client's source port says which connection this is. */
static void
on_accept(void *arg, struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n)
{
	struct run *r = arg;
	struct net_tcp_info info;
	struct ep *e;

	(void)n;
	if (ev != NET_TCP_EV_ACCEPT) {
		return;
	}
	net_tcp_get_info(c, &info);
	assert_true(info.rport <= SPORT_HI && SPORT_HI - info.rport < g_conns);
	e = &r->srv[SPORT_HI - info.rport];
	assert_null(e->c);
	e->c = c;
	e->connected = true;
	r->accepted++;
	net_tcp_set_cb(c, on_event, e);
	pump(e);
}

static int
do_listen(void *arg)
{
	struct run *r = arg;

	return net_tcp_listen(r->f->b.tcp, 0, PORT_B, on_accept, r);
}

/* Connect one at a time from the top of the range down: connection i gets port 1023 - i. */
static int
do_connect_all(void *arg)
{
	struct run *r = arg;

	for (unsigned int i = 0; i < g_conns; i++) {
		uint16_t p = (uint16_t)(SPORT_HI - i);
		int rc = net_tcp_connect(r->f->a.tcp, 0, IP_B, PORT_B, p, p, on_event, &r->cli[i],
					 &r->cli[i].c);

		if (rc != 0) {
			return rc;
		}
	}
	return 0;
}

static int
do_stats_and_close(void *arg)
{
	struct run *r = arg;

	/* A late duplicate SYN must not open a connection again. */
	net_tcp_unlisten(r->f->b.tcp, 0, PORT_B);
	for (unsigned int i = 0; i < g_conns; i++) {
		net_tcp_get_stats(r->cli[i].c, &r->cli[i].st);
		net_tcp_get_stats(r->srv[i].c, &r->srv[i].st);
		net_tcp_close(r->cli[i].c);
		net_tcp_close(r->srv[i].c);
	}
	return 0;
}

static bool
all_moved(void *arg)
{
	struct run *r = arg;

	for (unsigned int i = 0; i < g_conns; i++) {
		const struct ep *c = &r->cli[i], *s = &r->srv[i];

		if (c->closed || s->closed) {
			return true; /* an error: the caller asserts on it */
		}
		if (c->rcvd < g_bytes || s->rcvd < g_bytes || c->acked < g_bytes ||
		    s->acked < g_bytes) {
			return false;
		}
	}
	return true;
}

static bool
all_gone(void *arg)
{
	struct run *r = arg;

	return net_tcp_conn_count(r->f->a.tcp, 0) == 0 && net_tcp_conn_count(r->f->b.tcp, 0) == 0;
}

static void
print_shim(const char *dir, const struct shim *s)
{
	printf("  %s: %" PRIu64 " TCP frames, dropped %" PRIu64 " (%" PRIu64 " with data), "
	       "duplicated %" PRIu64 ", reordered %" PRIu64 ", delayed %" PRIu64
	       ", corrupted %" PRIu64 "\n",
	       dir, s->seen, s->dropped, s->dropped_data, s->duplicated, s->reordered, s->delayed,
	       s->corrupted);
}

/* N connections move the bytes each way through @p fl; every byte checked. */
static void
run_faults(const struct faults *fl)
{
	static struct run r;
	struct net_tcp_stats sa, sb;
	uint64_t retx = 0, rto = 0, ooo = 0, sack_rx = 0;
	struct fix *f = fix_open(fl, g_seed);

	memset(&r, 0, sizeof(r));
	r.f = f;
	for (unsigned int i = 0; i < g_conns; i++) {
		r.cli[i].idx = i;
		r.srv[i].idx = i;
		r.srv[i].server = true;
	}
	printf("seed %" PRIu64 ": %u connections, %zu bytes each way, loss %.1f%%, dup %.1f%%, "
	       "reorder %.1f%%, delay %.1f%% (up to %" PRIu64 " us), corrupt %.1f%%\n",
	       g_seed, g_conns, g_bytes, fl->drop, fl->dup, fl->reorder, fl->delay,
	       fl->delay_max_us, fl->corrupt);
	assert_int_equal(rt_lcore_call(rt_data_lcore(f->rt, 0), do_listen, &r), 0);
	assert_int_equal(rt_lcore_call(rt_data_lcore(f->rt, 0), do_connect_all, &r), 0);
	assert_true(drive(f, all_moved, &r));

	for (unsigned int i = 0; i < g_conns; i++) {
		const struct ep *c = &r.cli[i], *s = &r.srv[i];

		if (c->closed || s->closed) {
			printf("  connection %u closed: client err %" PRIu64
			       " (rcvd %zu, acked %zu), "
			       "server err %" PRIu64 " (rcvd %zu, acked %zu)\n",
			       i, c->err, c->rcvd, c->acked, s->err, s->rcvd, s->acked);
		}
		assert_false(c->closed);
		assert_false(s->closed);
		assert_true(c->connected && s->connected);
		/* Every byte, each way, in order, from the right connection. */
		assert_int_equal(c->rcvd, g_bytes);
		assert_int_equal(s->rcvd, g_bytes);
		assert_false(c->rx_bad);
		assert_false(s->rx_bad);
	}
	assert_int_equal(r.accepted, g_conns);
	assert_int_equal(rt_lcore_call(rt_data_lcore(f->rt, 0), do_stats_and_close, &r), 0);
	for (unsigned int i = 0; i < g_conns; i++) {
		retx += r.cli[i].st.retransmits + r.srv[i].st.retransmits;
		rto += r.cli[i].st.rto + r.srv[i].st.rto;
		ooo += r.cli[i].st.ooo + r.srv[i].st.ooo;
		sack_rx += r.cli[i].st.sack_blocks_rx + r.srv[i].st.sack_blocks_rx;
	}
	/* Closing under the same faults: FINs retransmitted, TIME_WAIT runs out. */
	assert_true(drive(f, all_gone, &r));
	net_tcp_stats(f->a.tcp, &sa);
	net_tcp_stats(f->b.tcp, &sb);
	print_shim("A->B", &f->to_b);
	print_shim("B->A", &f->to_a);
	printf("  stack: retransmits %" PRIu64 " (RTO %" PRIu64 "), out-of-order kept %" PRIu64
	       ", SACK blocks taken %" PRIu64 ", bad segments %" PRIu64 "/%" PRIu64 "\n",
	       retx, rto, ooo, sack_rx, sa.rx_bad, sb.rx_bad);
	printf("  stack: not sent %" PRIu64 "/%" PRIu64 ", out-of-order dropped %" PRIu64
	       "/%" PRIu64 ", fast retransmits %" PRIu64 "/%" PRIu64 "\n",
	       sa.tx_fail, sb.tx_fail, sa.ooo_drop, sb.ooo_drop, sa.fast_retransmits,
	       sb.fast_retransmits);

	/* Each corrupted frame was refused by its checksum, and only those. */
	assert_int_equal(sb.rx_bad, f->to_b.corrupted);
	assert_int_equal(sa.rx_bad, f->to_a.corrupted);
	assert_int_equal(sa.opened, g_conns);
	assert_int_equal(sb.opened, g_conns);
	/* A data segment dropped is sent again: some retransmission covers it. */
	if (f->to_b.dropped_data + f->to_a.dropped_data > 0) {
		assert_true(retx > 0);
	}
	/* Reordered or lost data is kept out of order and reported in SACK blocks. */
	if (f->to_b.reordered + f->to_a.reordered + f->to_b.dropped_data + f->to_a.dropped_data >
	    0) {
		assert_true(ooo > 0);
		assert_true(sack_rx > 0);
	}
	fix_close(f);
}

static void
test_no_loss_reorder_dup(void **state)
{
	const struct faults fl = { .dup = 1, .reorder = 1 };

	(void)state;
	run_faults(&fl);
}

static void
test_loss_1pct_all_faults(void **state)
{
	const struct faults fl = {
		.drop = 1, .dup = 1, .reorder = 1, .delay = 1, .corrupt = 0.5, .delay_max_us = 20000
	};

	(void)state;
	run_faults(&fl);
}

static void
test_loss_5pct_all_faults(void **state)
{
	const struct faults fl = {
		.drop = 5, .dup = 2, .reorder = 2, .delay = 2, .corrupt = 1, .delay_max_us = 50000
	};

	(void)state;
	run_faults(&fl);
}

/* LNP_FAULTS: "name=value,..." into @p fl; false on a name it does not know. */
static bool
parse_faults(const char *spec, struct faults *fl)
{
	char buf[256];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *kv = strtok_r(buf, ",", &save); kv != NULL; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		double v;

		if (eq == NULL) {
			return false;
		}
		*eq = '\0';
		v = strtod(eq + 1, NULL);
		if (strcmp(kv, "drop") == 0) {
			fl->drop = v;
		} else if (strcmp(kv, "dup") == 0) {
			fl->dup = v;
		} else if (strcmp(kv, "reorder") == 0) {
			fl->reorder = v;
		} else if (strcmp(kv, "delay") == 0) {
			fl->delay = v;
		} else if (strcmp(kv, "delay_us") == 0) {
			fl->delay_max_us = (uint64_t)v;
		} else if (strcmp(kv, "corrupt") == 0) {
			fl->corrupt = v;
		} else {
			return false;
		}
	}
	if (fl->delay > 0 && fl->delay_max_us == 0) {
		fl->delay_max_us = 20000;
	}
	return true;
}

static struct faults g_custom;

static void
test_custom_faults(void **state)
{
	(void)state;
	run_faults(&g_custom);
}

static size_t
parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G':
		v <<= 10;
		/* fall through */
	case 'M':
		v <<= 10;
		/* fall through */
	case 'K':
		v <<= 10;
		break;
	default:
		break;
	}
	return (size_t)v;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_loss_reorder_dup),
		cmocka_unit_test(test_loss_1pct_all_faults),
		cmocka_unit_test(test_loss_5pct_all_faults),
	};
	const struct CMUnitTest custom[] = {
		cmocka_unit_test(test_custom_faults),
	};
	const char *seed = getenv("LNP_FAULT_SEED");
	const char *faults = getenv("LNP_FAULTS");
	struct lnp_test_eal_args a;
	int rc;

	if (argc > 1) {
		g_conns = (unsigned int)strtoul(argv[1], NULL, 0);
	}
	if (argc > 2) {
		g_bytes = parse_size(argv[2]);
	}
	if (g_conns == 0 || g_conns > MAX_CONNS || g_bytes == 0) {
		fprintf(stderr, "usage: %s [CONNS (1..%d) [BYTES[K|M|G]]]\n", argv[0], MAX_CONNS);
		return 2;
	}
	if (faults != NULL && !parse_faults(faults, &g_custom)) {
		fprintf(stderr,
			"LNP_FAULTS: drop, dup, reorder, delay, corrupt (per cent), delay_us\n");
		return 2;
	}
	g_seed = seed != NULL ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL);
	printf("fault shim seed %" PRIu64 " (LNP_FAULT_SEED=%" PRIu64 " replays it)\n", g_seed,
	       g_seed);
	lnp_test_eal_args_init(&a, "tcp-fault", "0");
	a.argv[3] = "512"; /* -m: two pools of 32 K mbufs */
	if (rte_eal_init(a.argc, a.argv) < 0) {
		return 1;
	}
	if (faults != NULL) {
		rc = cmocka_run_group_tests_name("net_tcp_fault", custom, NULL, NULL);
	} else {
		rc = cmocka_run_group_tests_name("net_tcp_fault", tests, NULL, NULL);
	}
	rte_eal_cleanup();
	return rc;
}
