/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP (drivers/net/tcp) between two stacks in one process: two ring ports
 * joined back to back (what A sends, B receives), on the simulated runtime,
 * so RTO and TIME_WAIT run in virtual time. Losses come from an ethdev RX
 * callback on B's port that drops the frames from A a test picks.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
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
#define PORT_B 988 /* the LNet acceptor's port */
#define WAIT_US (600ULL * 1000 * 1000)

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
	/* The droppers' callbacks: removed at teardown (the next fixture's ports take the same ids). */
	const struct rte_eth_rxtx_callback *drop_b, *drop_a;
};

static unsigned int g_seq;
static struct net_tcp_conf g_conf[2]; /* [0] A, [1] B: what the next fixture uses */

/* ---- what a test's endpoint sees ---- */

struct ep {
	struct net_tcp_conn *c;
	unsigned int connected, accepted, closed;
	uint64_t err;
	size_t to_send, sent, acked;
	size_t rcvd;
	uint8_t tx_salt, rx_salt;
	bool rx_bad;
	bool eof;
	bool echo_close;                    /* close when the peer's FIN is read */
	bool hold;                          /* read nothing (the window fills) */
	struct net_tcp_conn_stats at_close; /* the connection's counters in its CLOSED event */
	size_t read_chunk;                  /* consume at most this much a call; 0: all of a view */
};

static uint8_t
pattern(size_t i, uint8_t salt)
{
	return (uint8_t)(i * 7 + salt + (i >> 11));
}

static void
pump(struct ep *e)
{
	uint8_t buf[8192];

	while (e->sent < e->to_send) {
		size_t n = RTE_MIN(sizeof(buf), e->to_send - e->sent);
		long r;

		for (size_t i = 0; i < n; i++) {
			buf[i] = pattern(e->sent + i, e->tx_salt);
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
	int r;

	if (e->hold) {
		return;
	}
	while ((r = net_tcp_peek(e->c, &v)) == 1) {
		size_t take = e->read_chunk != 0 ? RTE_MIN(e->read_chunk, v.len) : v.len;

		for (size_t i = 0; i < take; i++) {
			if (v.data[i] != pattern(e->rcvd + i, e->rx_salt)) {
				e->rx_bad = true;
			}
		}
		e->rcvd += take;
		net_tcp_consume(e->c, take);
	}
	if (r == -ENODATA && !e->eof) {
		e->eof = true;
		if (e->echo_close) {
			net_tcp_close(e->c);
		}
	}
}

static void
on_event(void *arg, struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n)
{
	struct ep *e = arg;

	switch (ev) {
	case NET_TCP_EV_CONNECTED:
		e->connected++;
		pump(e);
		break;
	case NET_TCP_EV_ACCEPT:
		e->c = c;
		e->accepted++;
		pump(e);
		break;
	case NET_TCP_EV_READABLE:
		drain(e);
		break;
	case NET_TCP_EV_ACKED:
		e->acked += n;
		pump(e);
		break;
	case NET_TCP_EV_CLOSED:
		e->closed++;
		e->err = n;
		net_tcp_get_stats(c, &e->at_close);
		break;
	}
}

/* ---- losses: frames from A that a test drops before B sees them ---- */

struct dropper {
	uint8_t flags_any; /* drop TCP frames with one of these flags... */
	bool data_only;    /* ...or with a payload */
	unsigned int skip; /* let this many matching frames through first */
	unsigned int left; /* then drop this many */
	unsigned int gap;  /* letting this many matching frames through after each drop */
	unsigned int dropped;
	unsigned int pass; /* of gap, still to let through */
	/* The first matching frame let through after each drop (with gap 1, the run between holes). */
	struct {
		uint32_t seq, len;
	} after[8];
	unsigned int after_n;
	/* The TCP options of the first frame carrying the most SACK blocks. */
	uint8_t sack_opts[40];
	uint8_t sack_olen;
};

static struct dropper g_drop;
static struct dropper g_drop_ba; /* the same, for frames from B before A sees them */

/* A frame's TCP header and payload length; NULL if not TCP. */
static const struct rte_tcp_hdr *
frame_tcp(struct rte_mbuf *m, uint32_t *plen)
{
	const struct rte_ipv4_hdr *ip;
	const struct rte_tcp_hdr *th;
	size_t l3 = sizeof(struct rte_ether_hdr);

	if (rte_pktmbuf_data_len(m) < l3 + sizeof(*ip) + sizeof(*th)) {
		return NULL;
	}
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, l3);
	if (ip->next_proto_id != IPPROTO_TCP) {
		return NULL;
	}
	th = (const struct rte_tcp_hdr *)((const uint8_t *)ip + rte_ipv4_hdr_len(ip));
	*plen = rte_be_to_cpu_16(ip->total_length) - rte_ipv4_hdr_len(ip) -
		(uint32_t)(th->data_off >> 4) * 4;
	return th;
}

/* Keep the options of @p th if they hold a SACK option longer than any kept before. */
static void
capture_sack(struct dropper *d, const struct rte_tcp_hdr *th)
{
	const uint8_t *o = (const uint8_t *)(th + 1);
	size_t olen = (size_t)(th->data_off >> 4) * 4 - sizeof(*th);

	for (size_t i = 0; i + 1 < olen;) {
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (o[i] == 5 && o[i + 1] > 2 && olen > d->sack_olen) {
			memcpy(d->sack_opts, o, olen);
			d->sack_olen = (uint8_t)olen;
			return;
		}
		if (o[i] == 0 || o[i + 1] < 2) {
			return;
		}
		i += o[i + 1];
	}
}

static bool
frame_matches(struct rte_mbuf *m, const struct dropper *d)
{
	const struct rte_ipv4_hdr *ip;
	const struct rte_tcp_hdr *th;
	size_t l3 = sizeof(struct rte_ether_hdr);

	if (rte_pktmbuf_data_len(m) < l3 + sizeof(*ip) + sizeof(*th)) {
		return false;
	}
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, l3);
	if (ip->next_proto_id != IPPROTO_TCP) {
		return false;
	}
	th = (const struct rte_tcp_hdr *)((const uint8_t *)ip + rte_ipv4_hdr_len(ip));
	if (d->data_only) {
		return rte_be_to_cpu_16(ip->total_length) >
		       rte_ipv4_hdr_len(ip) + (size_t)(th->data_off >> 4) * 4;
	}
	return (th->tcp_flags & d->flags_any) != 0;
}

/*
 * An RX callback on B's port (a TX callback could not drop safely: the
 * sender takes what a burst did not send as still its own).
 */
static uint16_t
drop_cb(uint16_t port_id, uint16_t queue, struct rte_mbuf *pkts[], uint16_t nb, uint16_t max,
	void *arg)
{
	struct dropper *d = arg;
	uint16_t kept = 0;

	(void)port_id;
	(void)queue;
	(void)max;
	for (uint16_t i = 0; i < nb; i++) {
		uint32_t plen = 0;
		const struct rte_tcp_hdr *th = frame_tcp(pkts[i], &plen);
		bool match = frame_matches(pkts[i], d);

		if (th != NULL) {
			capture_sack(d, th);
		}
		if (d->left > 0 && match) {
			if (d->skip > 0) {
				d->skip--;
			} else if (d->pass > 0) {
				d->pass--;
			} else {
				d->left--;
				d->dropped++;
				d->pass = d->gap;
				rte_pktmbuf_free(pkts[i]);
				continue;
			}
		}
		if (match && th != NULL && d->after_n < d->dropped &&
		    d->after_n < RTE_DIM(d->after)) {
			d->after[d->after_n].seq = rte_be_to_cpu_32(th->sent_seq);
			d->after[d->after_n].len = plen;
			d->after_n++;
		}
		pkts[kept++] = pkts[i];
	}
	return kept;
}

/* ---- the fixture ---- */

static uint16_t
ring_port(const char *tag, struct rte_ring *rx, struct rte_ring *tx)
{
	struct rte_ring *rxs[1] = { rx }, *txs[1] = { tx };
	char name[32];
	int id;

	snprintf(name, sizeof(name), "tcp_ut_%s%u", tag, g_seq);
	id = rte_eth_from_rings(name, rxs, 1, txs, 1, SOCKET_ID_ANY);
	assert_true(id >= 0);
	return (uint16_t)id;
}

static void
node_open(struct fix *f, struct node *n, const char *tag, struct rte_ring *rx, struct rte_ring *tx,
	  uint32_t addr, const struct net_tcp_conf *tc)
{
	struct net_port_conf pc = { .conf_size = sizeof(pc), .nb_mbufs = 8191 };
	struct net_neigh_conf nc = { .conf_size = sizeof(nc) };
	struct net_ip_conf ic = { .conf_size = sizeof(ic) };
	struct rte_ether_addr mac = { .addr_bytes = { 0x02, 0, 0, 1, (uint8_t)g_seq,
						      (uint8_t)tag[0] } };

	pc.mac = &mac;
	pc.port_id = ring_port(tag, rx, tx);
	n->port_id = pc.port_id;
	assert_int_equal(net_port_open(f->rt, &pc, &n->port), 0);
	assert_int_equal(net_neigh_create(n->port, &nc, &n->nb), 0);
	assert_int_equal(net_ip_create(n->nb, &ic, &n->ip), 0);
	assert_int_equal(net_neigh_addr_add(n->nb, addr, 24), 0);
	assert_int_equal(net_tcp_create(n->nb, n->ip, tc, &n->tcp), 0);
}

static int
setup(void **state)
{
	static struct fix f;
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_SIM, .n_data = 1 };
	char name[32];

	memset(&f, 0, sizeof(f));
	memset(&g_drop, 0, sizeof(g_drop));
	memset(&g_drop_ba, 0, sizeof(g_drop_ba));
	g_seq++;
	assert_int_equal(rt_runtime_create(&o, &f.rt), 0);
	snprintf(name, sizeof(name), "tcp_ut_ab%u", g_seq);
	f.ab = rte_ring_create(name, 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "tcp_ut_ba%u", g_seq);
	f.ba = rte_ring_create(name, 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(f.ab);
	assert_non_null(f.ba);
	for (int i = 0; i < 2; i++) {
		g_conf[i].conf_size = sizeof(g_conf[i]);
		if (g_conf[i].time_wait_us == 0) {
			g_conf[i].time_wait_us = 2ULL * 1000 * 1000; /* 2MSL of 2 s */
		}
	}
	node_open(&f, &f.a, "a", f.ba, f.ab, IP_A, &g_conf[0]);
	node_open(&f, &f.b, "b", f.ab, f.ba, IP_B, &g_conf[1]);
	f.drop_b = rte_eth_add_rx_callback(f.b.port_id, 0, drop_cb, &g_drop);
	f.drop_a = rte_eth_add_rx_callback(f.a.port_id, 0, drop_cb, &g_drop_ba);
	assert_non_null(f.drop_b);
	assert_non_null(f.drop_a);
	assert_int_equal(net_port_start(f.a.port), 0);
	assert_int_equal(net_port_start(f.b.port), 0);
	rt_runtime_poll_until_idle(f.rt, 1000);
	*state = &f;
	return 0;
}

static void
node_close(struct node *n)
{
	net_port_close(n->port);
	net_tcp_destroy(n->tcp);
	net_ip_destroy(n->ip);
	net_neigh_destroy(n->nb);
}

static int
teardown(void **state)
{
	struct fix *f = *state;

	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(rte_eth_remove_rx_callback(f->b.port_id, 0, f->drop_b), 0);
	assert_int_equal(rte_eth_remove_rx_callback(f->a.port_id, 0, f->drop_a), 0);
	node_close(&f->a);
	node_close(&f->b);
	rt_runtime_destroy(f->rt);
	rte_ring_free(f->ab);
	rte_ring_free(f->ba);
	memset(g_conf, 0, sizeof(g_conf));
	return 0;
}

/* ---- running things on the data lcore ---- */

struct call {
	struct fix *f;
	struct ep *e;
	uint16_t port;
	uint32_t ka[3]; /* do_keepalive: idle, interval, count */
	int cc;         /* do_set_cc */
	int rc;
};

static int
do_listen(void *arg)
{
	struct call *k = arg;

	return net_tcp_listen(k->f->b.tcp, 0, PORT_B, on_event, k->e);
}

static int
do_connect(void *arg)
{
	struct call *k = arg;

	return net_tcp_connect(k->f->a.tcp, 0, IP_B, k->port, 512, 1023, on_event, k->e, &k->e->c);
}

static int
do_pump(void *arg)
{
	pump(((struct call *)arg)->e);
	return 0;
}

static int
do_close(void *arg)
{
	net_tcp_close(((struct call *)arg)->e->c);
	return 0;
}

static int
do_close_both(void *arg)
{
	struct call *k = arg;

	/* Both FINs leave in the same poll: a simultaneous close. */
	net_tcp_close(k->e[0].c);
	net_tcp_close(k->e[1].c);
	return 0;
}

static int
do_abort(void *arg)
{
	net_tcp_abort(((struct call *)arg)->e->c);
	return 0;
}

static void
on_lcore(struct fix *f, rt_call_fn fn, struct call *k)
{
	k->f = f;
	assert_int_equal(rt_lcore_call(rt_data_lcore(f->rt, 0), fn, k), 0);
}

static bool
both_up(void *arg)
{
	struct ep *e = arg;

	return (e[0].connected > 0 || e[0].closed > 0) && e[1].accepted > 0;
}

/* B listens on PORT_B, A connects: e[0] is A's end, e[1] B's. */
static void
open_pair(struct fix *f, struct ep *e)
{
	struct call k = { .e = &e[1] };

	on_lcore(f, do_listen, &k);
	assert_int_equal(k.rc, 0);
	k.e = &e[0];
	k.port = PORT_B;
	on_lcore(f, do_connect, &k);
	assert_true(rt_wait_until(f->rt, both_up, e, WAIT_US));
	assert_int_equal(e[0].connected, 1);
	assert_string_equal(net_tcp_state_name(e[0].c), "established");
	assert_string_equal(net_tcp_state_name(e[1].c), "established");
}

static struct net_tcp_stats
tstats(const struct node *n)
{
	struct net_tcp_stats s;

	net_tcp_stats(n->tcp, &s);
	return s;
}

static unsigned int
conns(const struct node *n)
{
	return net_tcp_conn_count(n->tcp, 0);
}

/* ---- the handshake ---- */

static void
test_handshake_all_options(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct net_tcp_info ia, ib;

	open_pair(f, e);
	net_tcp_get_info(e[0].c, &ia);
	net_tcp_get_info(e[1].c, &ib);
	/* MTU 1500: MSS 1460 each way; 256 KiB windows need a shift of 3. */
	assert_int_equal(ia.mss, 1460);
	assert_int_equal(ib.mss, 1460);
	assert_int_equal(ia.rcv_wscale, 3);
	assert_int_equal(ia.snd_wscale, 3);
	assert_int_equal(ib.snd_wscale, 3);
	assert_true(ia.sack_ok && ib.sack_ok);
	assert_true(ia.ts_ok && ib.ts_ok);
	/* The source port: the top of ksocklnd's range (one lcore: any port is ours). */
	assert_int_equal(ia.lport, 1023);
	assert_int_equal(ib.rport, 1023);
	assert_int_equal(ib.lport, PORT_B);
	assert_int_equal(tstats(&f->a).opened, 1);
	assert_int_equal(tstats(&f->b).opened, 1);
	assert_int_equal(tstats(&f->a).retransmits, 0);
}

static int
setup_no_opts(void **state)
{
	g_conf[1].no_timestamps = true;
	g_conf[1].no_wscale = true;
	return setup(state);
}

static int
setup_no_sack(void **state)
{
	g_conf[0].no_sack = true;
	return setup(state);
}

static void
test_handshake_peer_without_ts_ws(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct net_tcp_info ia, ib;

	open_pair(f, e);
	net_tcp_get_info(e[0].c, &ia);
	net_tcp_get_info(e[1].c, &ib);
	/* B offers neither: both ends go without; SACK stays. */
	assert_false(ia.ts_ok || ib.ts_ok);
	assert_int_equal(ia.snd_wscale, -1);
	assert_int_equal(ia.rcv_wscale, -1);
	assert_int_equal(ib.rcv_wscale, -1);
	assert_true(ia.sack_ok && ib.sack_ok);
}

static void
test_handshake_without_sack(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct net_tcp_info ia, ib;

	open_pair(f, e);
	net_tcp_get_info(e[0].c, &ia);
	net_tcp_get_info(e[1].c, &ib);
	assert_false(ia.sack_ok || ib.sack_ok);
	assert_true(ia.ts_ok && ib.ts_ok);
	assert_int_equal(ib.snd_wscale, 3);
}

/* ---- data ---- */

static bool
all_moved(void *arg)
{
	struct ep *e = arg;

	return e[0].rcvd == e[1].to_send && e[1].rcvd == e[0].to_send &&
	       e[0].acked == e[0].to_send && e[1].acked == e[1].to_send;
}

static void
move_both_ways(struct fix *f, struct ep *e, size_t bytes)
{
	struct call k = { .e = &e[0] };

	e[0].to_send = bytes;
	e[1].to_send = bytes;
	e[0].tx_salt = e[1].rx_salt = 0x11;
	e[1].tx_salt = e[0].rx_salt = 0x5a;
	open_pair(f, e);
	on_lcore(f, do_pump, &k);
	assert_true(rt_wait_until(f->rt, all_moved, e, WAIT_US));
	assert_false(e[0].rx_bad);
	assert_false(e[1].rx_bad);
}

static void
test_data_1mib_both_ways(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };

	move_both_ways(f, e, 1 << 20);
	assert_int_equal(e[0].rcvd, 1 << 20);
	assert_int_equal(e[1].rcvd, 1 << 20);
	assert_int_equal(tstats(&f->a).retransmits, 0);
	assert_int_equal(tstats(&f->b).retransmits, 0);
	assert_int_equal(tstats(&f->a).rx_bad + tstats(&f->b).rx_bad, 0);
}

static void
test_data_loss_recovered_by_rto(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };

	/*
	 * 8 KiB go as 6 segments (MSS 1448); the 5th is lost. One segment after
	 * the hole makes one duplicate ACK, too few for fast retransmit, and
	 * nothing new is left to send: only the RTO recovers it.
	 */
	g_drop.data_only = true;
	g_drop.skip = 4;
	g_drop.left = 1;
	move_both_ways(f, e, 8 * 1024);
	assert_int_equal(g_drop.dropped, 1);
	assert_int_equal(tstats(&f->a).fast_retransmits, 0);
	assert_true(tstats(&f->a).rto >= 1);
	assert_true(tstats(&f->a).retransmits >= 1);
	/* What followed the hole waited out of order at B. */
	assert_true(tstats(&f->b).ooo >= 1);
}

static void
test_data_loss_recovered_by_fast_retransmit(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };

	/* The 20th data segment A sends is lost in a long transfer. */
	g_drop.data_only = true;
	g_drop.skip = 19;
	g_drop.left = 1;
	move_both_ways(f, e, 256 * 1024);
	assert_int_equal(g_drop.dropped, 1);
	/* Three duplicate ACKs sent it again at once: no RTO, one retransmission. */
	assert_true(tstats(&f->a).dupacks >= 3);
	assert_int_equal(tstats(&f->a).fast_retransmits, 1);
	assert_int_equal(tstats(&f->a).retransmits, 1);
	assert_int_equal(tstats(&f->a).rto, 0);
	assert_true(tstats(&f->b).ooo >= 3);
}

static void
test_two_losses_recovered_by_newreno(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };

	/* The 20th and 21st data segments are lost: one window, two holes. */
	g_drop.data_only = true;
	g_drop.skip = 19;
	g_drop.left = 2;
	move_both_ways(f, e, 256 * 1024);
	assert_int_equal(g_drop.dropped, 2);
	/* Fast retransmit sends the first; the partial ACK after it, the second (RFC 6582). */
	assert_int_equal(tstats(&f->a).fast_retransmits, 1);
	assert_int_equal(tstats(&f->a).retransmits, 2);
	assert_int_equal(tstats(&f->a).rto, 0);
}

/* ---- SACK (RFC 2018 blocks, RFC 6675 recovery) ---- */

/* Of A's data segments, from the 20th on @p n are lost, one let through between each two. */
static void
lose_every_other(struct fix *f, struct ep *e, unsigned int n)
{
	g_drop.data_only = true;
	g_drop.skip = 19;
	g_drop.left = n;
	g_drop.gap = 1;
	move_both_ways(f, e, 256 * 1024);
	assert_int_equal(g_drop.dropped, n);
	assert_int_equal(g_drop.after_n, n);
}

static void
test_sack_two_losses_one_window(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };

	lose_every_other(f, e, 2);
	/* B named what it holds past each hole; A sent both holes again on the scoreboard. */
	assert_true(tstats(&f->b).sack_blocks_tx >= 2);
	assert_true(tstats(&f->a).sack_blocks_rx >= 2);
	assert_int_equal(tstats(&f->a).fast_retransmits, 1);
	assert_int_equal(tstats(&f->a).sack_recoveries, 1);
	assert_int_equal(tstats(&f->a).retransmits, 2);
	assert_int_equal(tstats(&f->a).rto, 0);
}

static void
test_newreno_without_sack_two_losses(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };

	lose_every_other(f, e, 2);
	/* No SACK negotiated: no blocks either way, NewReno's partial ACK finds the second hole. */
	assert_int_equal(tstats(&f->a).sack_blocks_tx + tstats(&f->b).sack_blocks_tx, 0);
	assert_int_equal(tstats(&f->a).sack_blocks_rx, 0);
	assert_int_equal(tstats(&f->a).fast_retransmits, 1);
	assert_int_equal(tstats(&f->a).sack_recoveries, 0);
	assert_int_equal(tstats(&f->a).retransmits, 2);
	assert_int_equal(tstats(&f->a).rto, 0);
}

/* Block @p k of the captured SACK option (at @p at) is the run let through after drop @p d. */
static void
assert_sack_block(const uint8_t *o, size_t at, unsigned int d)
{
	uint32_t edges[2];

	memcpy(edges, &o[at], sizeof(edges));
	assert_int_equal(rte_be_to_cpu_32(edges[0]), g_drop.after[d].seq);
	assert_int_equal(rte_be_to_cpu_32(edges[1]), g_drop.after[d].seq + g_drop.after[d].len);
}

static void
test_sack_blocks_golden_with_timestamps(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	const uint8_t *o = g_drop_ba.sack_opts;

	lose_every_other(f, e, 4);
	/*
	 * B's ACK after the third run: NOP NOP TS(10), then NOP NOP SACK(26):
	 * three blocks fill the 40 bytes, the latest run first (RFC 2018 4).
	 */
	assert_int_equal(g_drop_ba.sack_olen, 40);
	assert_memory_equal(o, ((const uint8_t[]){ 1, 1, 8, 10 }), 4);
	assert_memory_equal(&o[12], ((const uint8_t[]){ 1, 1, 5, 26 }), 4);
	assert_sack_block(o, 16, 2);
	assert_sack_block(o, 24, 1);
	assert_sack_block(o, 32, 0);
	/* Four holes, one recovery, each hole sent once, no RTO. */
	assert_int_equal(tstats(&f->a).sack_recoveries, 1);
	assert_int_equal(tstats(&f->a).retransmits, 4);
	assert_int_equal(tstats(&f->a).rto, 0);
}

static void
test_sack_blocks_golden_without_timestamps(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	const uint8_t *o = g_drop_ba.sack_opts;

	lose_every_other(f, e, 4);
	/* Without timestamps four blocks fit: NOP NOP SACK(34), the latest run first. */
	assert_int_equal(g_drop_ba.sack_olen, 36);
	assert_memory_equal(o, ((const uint8_t[]){ 1, 1, 5, 34 }), 4);
	assert_sack_block(o, 4, 3);
	assert_sack_block(o, 12, 2);
	assert_sack_block(o, 20, 1);
	assert_sack_block(o, 28, 0);
	assert_int_equal(tstats(&f->a).sack_recoveries, 1);
	assert_int_equal(tstats(&f->a).rto, 0);
}

/* ---- congestion control ---- */

static int
do_set_cc(void *arg)
{
	struct call *k = arg;

	k->rc = net_tcp_set_cc(k->e->c, (enum net_tcp_cc)k->cc);
	return 0;
}

static void
test_cc_cubic_by_default_and_per_connection(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = &e[0], .cc = NET_TCP_CC_NEWRENO };
	struct net_tcp_info ia;

	open_pair(f, e);
	net_tcp_get_info(e[0].c, &ia);
	assert_string_equal(ia.cc, "cubic"); /* Linux's default */
	assert_int_equal(ia.ssthresh, UINT32_MAX);
	on_lcore(f, do_set_cc, &k);
	assert_int_equal(k.rc, 0);
	net_tcp_get_info(e[0].c, &ia);
	assert_string_equal(ia.cc, "newreno");
	k.cc = 77;
	on_lcore(f, do_set_cc, &k);
	assert_int_equal(k.rc, -EINVAL);
	k.cc = NET_TCP_CC_DEFAULT; /* the stack's */
	on_lcore(f, do_set_cc, &k);
	assert_int_equal(k.rc, 0);
	net_tcp_get_info(e[0].c, &ia);
	assert_string_equal(ia.cc, "cubic");
}

/* The fast-retransmit case with A's controller @p cc: A's ssthresh after it. */
static uint32_t
ssthresh_after_one_loss(enum net_tcp_cc cc)
{
	struct ep e[2] = { 0 };
	struct net_tcp_info ia;
	void *st;
	struct fix *f;

	g_conf[0].cc = cc;
	assert_int_equal(setup(&st), 0);
	f = st;
	g_drop.data_only = true;
	g_drop.skip = 19;
	g_drop.left = 1;
	move_both_ways(f, e, 256 * 1024);
	assert_int_equal(tstats(&f->a).fast_retransmits, 1);
	assert_int_equal(tstats(&f->a).rto, 0);
	net_tcp_get_info(e[0].c, &ia);
	assert_string_equal(ia.cc, cc == NET_TCP_CC_CUBIC ? "cubic" : "newreno");
	teardown(&st);
	return ia.ssthresh;
}

/* 4 MiB each way, every tenth of A's data segments lost (retransmissions too): A's RTOs. */
static uint64_t
rtos_at_ten_percent_loss(bool sack)
{
	struct ep e[2] = { 0 };
	uint64_t rto;
	void *st;
	struct fix *f;

	g_conf[0].no_sack = !sack;
	assert_int_equal(setup(&st), 0);
	f = st;
	g_drop.data_only = true;
	g_drop.skip = 5;
	g_drop.left = 1000000;
	g_drop.gap = 9;
	move_both_ways(f, e, 4 << 20);
	assert_true(g_drop.dropped >= 290);
	rto = tstats(&f->a).rto;
	assert_int_equal(tstats(&f->a).sack_recoveries > 0, sack);
	teardown(&st);
	return rto;
}

static void
test_sack_heavy_loss_fewer_rtos_than_newreno(void **state)
{
	uint64_t reno, sack;

	(void)state;
	reno = rtos_at_ten_percent_loss(false);
	sack = rtos_at_ten_percent_loss(true);
	print_message("RTOs at 10%% loss, 4 MiB: NewReno %" PRIu64 ", SACK %" PRIu64 "\n", reno,
		      sack);
	/*
	 * NewReno mends one hole a round trip, so holes that pile up (and lost
	 * retransmissions) wait for the RTO; the scoreboard resends each hole it sees.
	 */
	assert_true(sack * 4 < reno);
}

static void
test_cc_loss_cubic_keeps_more_than_newreno(void **state)
{
	uint32_t reno, cubic, flight;

	(void)state;
	/* The same loss at the same flight (the runs are deterministic until it). */
	reno = ssthresh_after_one_loss(NET_TCP_CC_NEWRENO);
	cubic = ssthresh_after_one_loss(NET_TCP_CC_CUBIC);
	/* NewReno halves the flight (RFC 5681); CUBIC keeps beta_cubic = 0.7 of it (RFC 9438 4.6). */
	flight = 2 * reno;
	assert_true(cubic == (uint32_t)(flight * 0.7) || cubic == (uint32_t)((flight + 1) * 0.7));
	assert_true(cubic > reno);
}

static bool
up_or_closed(void *arg)
{
	struct ep *e = arg;

	return e->connected > 0 || e->closed > 0;
}

static void
test_lost_syn_retransmitted(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct net_tcp_info ia;

	g_drop.flags_any = RTE_TCP_SYN_FLAG;
	g_drop.left = 1;
	open_pair(f, e);
	assert_int_equal(g_drop.dropped, 1);
	assert_int_equal(tstats(&f->a).rto, 1);
	net_tcp_get_info(e[0].c, &ia);
	assert_int_equal(ia.retransmits, 1);
	/* Karn: the retransmitted SYN gave no sample; the RTO stays backed off. */
	assert_int_equal(ia.srtt_us, 0);
	assert_int_equal(ia.rto_us, 2 * 1000 * 1000);
}

static void
test_rst_to_closed_port(void **state)
{
	struct fix *f = *state;
	struct ep e = { 0 };
	struct call k = { .e = &e, .port = 7777 };

	on_lcore(f, do_connect, &k);
	assert_true(rt_wait_until(f->rt, up_or_closed, &e, WAIT_US));
	assert_int_equal(e.connected, 0);
	assert_int_equal(e.closed, 1);
	assert_int_equal(e.err, ECONNREFUSED);
	assert_int_equal(tstats(&f->b).rx_no_conn, 1);
	assert_int_equal(tstats(&f->b).rst_tx, 1);
	assert_int_equal(tstats(&f->a).rst_rx, 1);
	on_lcore(f, do_close, &k);
	assert_int_equal(conns(&f->a), 0);
	assert_int_equal(tstats(&f->a).closed, 1);
}

static void
test_syn_timeout_etimedout(void **state)
{
	struct fix *f = *state;
	struct ep e = { 0 };
	struct call k = { .e = &e, .port = PORT_B };

	g_drop.flags_any = RTE_TCP_SYN_FLAG;
	g_drop.left = 100;
	on_lcore(f, do_connect, &k);
	assert_true(rt_wait_until(f->rt, up_or_closed, &e, WAIT_US));
	assert_int_equal(e.err, ETIMEDOUT);
	/* Six retransmissions, then the seventh expiry gives up (Linux's tcp_syn_retries). */
	assert_int_equal(g_drop.dropped, 7);
	assert_int_equal(tstats(&f->a).rto, 7);
	on_lcore(f, do_close, &k);
}

/* ---- closing ---- */

static bool
a_gone(void *arg)
{
	struct fix *f = arg;

	return conns(&f->a) == 0 && conns(&f->b) == 0;
}

static void
test_time_wait_expiry(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = &e[1] };

	open_pair(f, e);
	/* B closes; A's user reads the FIN and closes too: B ends in TIME_WAIT. */
	e[0].echo_close = true;
	on_lcore(f, do_close, &k);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(conns(&f->a), 0);
	assert_int_equal(conns(&f->b), 1);
	/* Short of 2MSL it stays. */
	assert_false(rt_wait_until(f->rt, a_gone, f, 1900 * 1000));
	assert_int_equal(conns(&f->b), 1);
	assert_true(rt_wait_until(f->rt, a_gone, f, 200 * 1000));
	assert_int_equal(tstats(&f->b).closed, 1);
}

static void
test_simultaneous_close(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = e };

	open_pair(f, e);
	on_lcore(f, do_close_both, &k);
	rt_runtime_poll_until_idle(f->rt, 1000);
	/* FIN crossed FIN: both went FIN_WAIT_1 -> CLOSING -> TIME_WAIT. */
	assert_int_equal(conns(&f->a), 1);
	assert_int_equal(conns(&f->b), 1);
	assert_true(rt_wait_until(f->rt, a_gone, f, 3ULL * 1000 * 1000));
	assert_int_equal(tstats(&f->a).rst_tx + tstats(&f->b).rst_tx, 0);
}

static void
test_abort_resets_peer(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = &e[0] };

	open_pair(f, e);
	on_lcore(f, do_abort, &k);
	assert_true(rt_wait_until(f->rt, up_or_closed, &e[1], WAIT_US));
	assert_int_equal(e[1].closed, 1);
	assert_int_equal(e[1].err, ECONNRESET);
	assert_int_equal(tstats(&f->b).rst_rx, 1);
	k.e = &e[1];
	on_lcore(f, do_close, &k);
	assert_int_equal(conns(&f->a) + conns(&f->b), 0);
}

static void
test_timer_after_conn_gone(void **state)
{
	struct fix *f = *state;
	struct ep e = { 0 };
	struct call k = { .e = &e, .port = PORT_B };

	/* A SYN that is lost leaves its RTO armed; the abort frees the connection. */
	g_drop.flags_any = RTE_TCP_SYN_FLAG;
	g_drop.left = 100;
	on_lcore(f, do_connect, &k);
	rt_runtime_poll_until_idle(f->rt, 1000);
	on_lcore(f, do_abort, &k);
	assert_int_equal(conns(&f->a), 0);
	/* An RTO later nothing fires (ASan would see a freed timer). */
	assert_false(rt_wait_until(f->rt, up_or_closed, &e, 5ULL * 1000 * 1000));
	assert_int_equal(tstats(&f->a).rto, 0);
	assert_int_equal(g_drop.dropped, 1);
}

/* ---- keepalive (idle 2 s, interval 1 s, 3 probes) ---- */

#define KA_IDLE_S 2
#define KA_INTVL_S 1
#define KA_CNT 3

static int
do_keepalive(void *arg)
{
	struct call *k = arg;

	k->rc = net_tcp_set_keepalive(k->e->c, k->ka[0], k->ka[1], k->ka[2]);
	return 0;
}

static bool
ep_closed(void *arg)
{
	return ((struct ep *)arg)->closed > 0;
}

static bool
a_probed(void *arg)
{
	struct fix *f = arg;

	return tstats(&f->a).ka_probes > 0;
}

static bool
a_probed_thrice(void *arg)
{
	struct fix *f = arg;

	return tstats(&f->a).ka_probes >= 3;
}

static void
test_keepalive_answered_keeps_conn(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = &e[0], .ka = { KA_IDLE_S, KA_INTVL_S, KA_CNT } };
	uint64_t b_tx;
	struct net_tcp_info ia, ib;

	open_pair(f, e);
	on_lcore(f, do_keepalive, &k);
	assert_int_equal(k.rc, 0);
	b_tx = tstats(&f->b).tx;
	/* Nothing before the idle time, one probe at it. */
	assert_false(rt_wait_until(f->rt, a_probed, f, KA_IDLE_S * 1000000ULL - 100000));
	assert_true(rt_wait_until(f->rt, a_probed, f, 200000));
	assert_int_equal(tstats(&f->a).ka_probes, 1);
	rt_runtime_poll_until_idle(f->rt, 1000);
	/* B answered the old sequence number with an ACK, not a reset or a challenge. */
	assert_int_equal(tstats(&f->b).tx, b_tx + 1);
	assert_int_equal(tstats(&f->b).challenge_ack + tstats(&f->b).rst_tx, 0);
	/* Each answer restarts the idle time: more probes, one per idle, and it lives. */
	assert_true(rt_wait_until(f->rt, a_probed_thrice, f, 3 * KA_IDLE_S * 1000000ULL + 100000));
	assert_int_equal(tstats(&f->a).ka_probes, 3);
	assert_int_equal(e[0].closed + e[1].closed, 0);
	net_tcp_get_info(e[0].c, &ia);
	net_tcp_get_info(e[1].c, &ib);
	/* A probe carries no sequence space. */
	assert_int_equal(ia.snd_nxt, ib.rcv_nxt);
	assert_string_equal(net_tcp_state_name(e[0].c), "established");
}

static void
test_keepalive_unanswered_etimedout(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = &e[0], .ka = { KA_IDLE_S, KA_INTVL_S, KA_CNT } };

	open_pair(f, e);
	/* From now on everything A sends is lost: the peer vanished. */
	g_drop.flags_any = RTE_TCP_ACK_FLAG | RTE_TCP_RST_FLAG;
	g_drop.left = 100;
	on_lcore(f, do_keepalive, &k);
	assert_int_equal(k.rc, 0);
	/* Idle, then KA_CNT probes an interval apart; still up just before the last interval ends. */
	assert_false(rt_wait_until(f->rt, ep_closed, &e[0],
				   (KA_IDLE_S + KA_CNT * KA_INTVL_S) * 1000000ULL - 100000));
	assert_int_equal(tstats(&f->a).ka_probes, KA_CNT);
	assert_true(rt_wait_until(f->rt, ep_closed, &e[0], 200000));
	assert_int_equal(e[0].closed, 1);
	assert_int_equal(e[0].err, ETIMEDOUT);
	assert_int_equal(tstats(&f->a).ka_probes, KA_CNT);
	assert_int_equal(g_drop.dropped, KA_CNT);
	assert_int_equal(e[1].closed, 0);
}

static void
test_keepalive_timer_after_conn_gone(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = &e[0], .ka = { KA_IDLE_S, KA_INTVL_S, KA_CNT } };

	open_pair(f, e);
	on_lcore(f, do_keepalive, &k);
	assert_int_equal(k.rc, 0);
	on_lcore(f, do_abort, &k);
	assert_int_equal(conns(&f->a), 0);
	/* Past the idle time nothing fires (ASan would see a freed timer). */
	assert_false(rt_wait_until(f->rt, a_probed, f, 2 * KA_IDLE_S * 1000000ULL));
	assert_int_equal(tstats(&f->a).ka_probes, 0);
}

static void
test_keepalive_args(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = &e[0], .ka = { 30, 0, 5 } };

	open_pair(f, e);
	on_lcore(f, do_keepalive, &k);
	assert_int_equal(k.rc, -EINVAL);
	k.ka[1] = 5;
	k.ka[2] = 0;
	on_lcore(f, do_keepalive, &k);
	assert_int_equal(k.rc, -EINVAL);
	/* On, then off: no probe however long it is quiet. */
	k.ka[0] = KA_IDLE_S;
	k.ka[2] = KA_CNT;
	on_lcore(f, do_keepalive, &k);
	assert_int_equal(k.rc, 0);
	memset(k.ka, 0, sizeof(k.ka));
	on_lcore(f, do_keepalive, &k);
	assert_int_equal(k.rc, 0);
	assert_false(rt_wait_until(f->rt, a_probed, f, 40ULL * 1000000));
}

/* ---- zero windows: probes and window updates (B's buffer 16 KiB, A sends 64 KiB) ---- */

#define ZW_RCV_BUF (16 * 1024)
#define ZW_BYTES (64 * 1024)

static int
setup_small_rcv_buf(void **state)
{
	g_conf[1].rcv_buf = ZW_RCV_BUF;
	return setup(state);
}

static int
do_drain(void *arg)
{
	drain(((struct call *)arg)->e);
	return 0;
}

static bool
a_win_probed(void *arg)
{
	return tstats((const struct node *)arg).win_probes > 0;
}

static bool
a_to_b_moved(void *arg)
{
	struct ep *e = arg;

	return e[1].rcvd == e[0].to_send && e[0].acked == e[0].to_send;
}

/* A sends ZW_BYTES to B, which holds them: B's window closes at ZW_RCV_BUF. */
static void
fill_b_window(struct fix *f, struct ep *e)
{
	struct call k = { .e = &e[0] };

	e[0].to_send = ZW_BYTES;
	e[0].tx_salt = e[1].rx_salt = 0x33;
	e[1].hold = true;
	open_pair(f, e);
	on_lcore(f, do_pump, &k);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(net_tcp_readable(e[1].c), ZW_RCV_BUF);
	assert_int_equal(e[0].acked, ZW_RCV_BUF);
	assert_int_equal(tstats(&f->a).win_probes, 0);
}

static void
test_zero_window_probe_answered_resumes(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = &e[1] };
	uint64_t b_tx, probes;

	fill_b_window(f, e);
	/* Nothing in flight, the window zero: the persist timer, not the RTO, fires. */
	b_tx = tstats(&f->b).tx;
	assert_true(rt_wait_until(f->rt, a_win_probed, &f->a, 1000ULL * 1000));
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(tstats(&f->a).win_probes, 1);
	assert_int_equal(tstats(&f->b).tx, b_tx + 1); /* B answered: still zero */
	assert_int_equal(e[0].acked, ZW_RCV_BUF);
	/* B reads all; the ACK that says its window opened is lost. */
	g_drop_ba.flags_any = RTE_TCP_ACK_FLAG;
	g_drop_ba.left = 1;
	e[1].hold = false;
	on_lcore(f, do_drain, &k);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(g_drop_ba.dropped, 1);
	assert_int_equal(tstats(&f->b).win_updates, 1);
	assert_int_equal(e[0].acked, ZW_RCV_BUF);
	/* A later probe's answer shows the open window: the rest moves. */
	probes = tstats(&f->a).win_probes;
	assert_true(rt_wait_until(f->rt, a_to_b_moved, e, WAIT_US));
	assert_true(tstats(&f->a).win_probes > probes);
	assert_false(e[1].rx_bad);
	assert_int_equal(tstats(&f->a).rto, 0);
	assert_int_equal(tstats(&f->a).retransmits, 0);
	assert_int_equal(e[0].closed + e[1].closed, 0);
}

static void
test_window_update_on_small_reads(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = &e[1] };

	fill_b_window(f, e);
	assert_true(rt_wait_until(f->rt, a_win_probed, &f->a, 1000ULL * 1000));
	/*
	 * B reads 100 bytes a call: no one call frees a segment, but what it may
	 * take grows past a segment and B says so; A sends without probing again.
	 */
	e[1].hold = false;
	e[1].read_chunk = 100;
	on_lcore(f, do_drain, &k);
	assert_true(rt_wait_until(f->rt, a_to_b_moved, e, WAIT_US));
	assert_false(e[1].rx_bad);
	assert_true(tstats(&f->b).win_updates >= 1);
	assert_int_equal(tstats(&f->a).win_probes, 1);
	assert_int_equal(tstats(&f->a).rto, 0);
}

static int
setup_small_rcv_buf_3_retries(void **state)
{
	g_conf[0].retries = 3;
	return setup_small_rcv_buf(state);
}

static void
test_zero_window_probes_unanswered_etimedout(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct net_tcp_info ia;

	fill_b_window(f, e);
	net_tcp_get_info(e[0].c, &ia);
	/* B vanishes: nothing it sends reaches A any more. */
	g_drop_ba.flags_any = RTE_TCP_ACK_FLAG | RTE_TCP_RST_FLAG;
	g_drop_ba.left = 100;
	/* Probes at 1, 3 and 7 RTOs (the interval doubling), the fourth expiry (15) gives up. */
	assert_false(rt_wait_until(f->rt, ep_closed, &e[0], 15 * ia.rto_us - 100000));
	assert_int_equal(tstats(&f->a).win_probes, 3);
	assert_true(rt_wait_until(f->rt, ep_closed, &e[0], 200000));
	assert_int_equal(e[0].err, ETIMEDOUT);
	assert_int_equal(e[0].at_close.win_probes, 3);
	assert_int_equal(tstats(&f->a).win_probes, 3);
	assert_int_equal(tstats(&f->a).rto, 0);
	assert_true(g_drop_ba.dropped >= 1);
	assert_int_equal(e[1].closed, 0);
}

static void
test_persist_timer_after_conn_gone(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = &e[0] };

	fill_b_window(f, e);
	/* A's persist timer is armed; the abort frees the connection. */
	on_lcore(f, do_abort, &k);
	assert_int_equal(conns(&f->a), 0);
	/* Past many probe intervals nothing fires (ASan would see a freed timer). */
	assert_false(rt_wait_until(f->rt, a_win_probed, &f->a, 10ULL * 1000 * 1000));
	assert_int_equal(tstats(&f->a).win_probes, 0);
	assert_int_equal(tstats(&f->b).rst_rx, 1);
}

/* ---- per-connection counters ---- */

static struct net_tcp_conn_stats
cstats(struct net_tcp_conn *c)
{
	struct net_tcp_conn_stats s;

	net_tcp_get_stats(c, &s);
	return s;
}

static void
test_conn_stats_loss_and_sack(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct net_tcp_conn_stats a, b;

	lose_every_other(f, e, 2);
	a = cstats(e[0].c);
	b = cstats(e[1].c);
	/* One connection a side: its counters are its lcore's. */
	assert_int_equal(a.retransmits, 2);
	assert_int_equal(a.fast_retransmits, 1);
	assert_int_equal(a.rto, 0);
	assert_int_equal(a.dupacks, tstats(&f->a).dupacks);
	assert_true(a.dupacks >= 3);
	assert_int_equal(a.sack_blocks_rx, tstats(&f->a).sack_blocks_rx);
	assert_true(a.sack_blocks_rx >= 2);
	assert_int_equal(b.sack_blocks_tx, tstats(&f->b).sack_blocks_tx);
	assert_int_equal(b.ooo, tstats(&f->b).ooo);
	assert_true(b.ooo >= 2);
	/* B lost nothing: nothing sent again, no SACK blocks from A. */
	assert_int_equal(b.retransmits + b.rto + b.sack_blocks_rx + a.ooo, 0);
	assert_int_equal(a.rst_rx + a.rst_tx + b.rst_rx + b.rst_tx + a.win_probes, 0);
}

static void
test_conn_stats_probe_and_reset(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct call k = { .e = &e[0] };

	fill_b_window(f, e);
	assert_true(rt_wait_until(f->rt, a_win_probed, &f->a, 1000ULL * 1000));
	assert_int_equal(cstats(e[0].c).win_probes, 1);
	assert_int_equal(cstats(e[1].c).win_probes, 0);
	/* A resets; B's counters, read in its CLOSED event, show the reset taken. */
	on_lcore(f, do_abort, &k);
	assert_true(rt_wait_until(f->rt, up_or_closed, &e[1], WAIT_US));
	assert_int_equal(e[1].err, ECONNRESET);
	assert_int_equal(e[1].at_close.rst_rx, 1);
	assert_int_equal(e[1].at_close.rst_tx, 0);
	assert_int_equal(tstats(&f->a).rst_tx, 1);
}

/* ---- segments crafted into B's receive ring, as if from A ---- */

/* Flag of inject_from_a(): spoil the TCP checksum. */
#define TCP_BAD_CKSUM 0x100

/* A segment with @p dlen bytes of payload (zeros). */
static void
inject_data_from_a(struct fix *f, const struct net_tcp_info *ia, uint32_t seq, uint32_t ack,
		   unsigned int flags, uint16_t dlen)
{
	struct rte_mbuf *m = net_port_alloc(f->a.port);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	const size_t len = sizeof(*eh) + sizeof(*ip) + sizeof(*th) + dlen;

	assert_non_null(m);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, len);
	assert_non_null(eh);
	memset(eh, 0, len);
	eh->dst_addr = net_port_info(f->b.port)->mac;
	eh->src_addr = net_port_info(f->a.port)->mac;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + sizeof(*th) + dlen));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = ia->laddr;
	ip->dst_addr = ia->raddr;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	th = (struct rte_tcp_hdr *)(ip + 1);
	th->src_port = rte_cpu_to_be_16(ia->lport);
	th->dst_port = rte_cpu_to_be_16(ia->rport);
	th->sent_seq = rte_cpu_to_be_32(seq);
	th->recv_ack = rte_cpu_to_be_32(ack);
	th->data_off = 5 << 4;
	th->tcp_flags = (uint8_t)flags;
	th->rx_win = rte_cpu_to_be_16(65535);
	th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	if (flags & TCP_BAD_CKSUM) {
		th->cksum ^= 0x0100;
	}
	assert_int_equal(rte_ring_enqueue(f->ab, m), 0);
	rt_runtime_poll_until_idle(f->rt, 1000);
}

static void
inject_from_a(struct fix *f, const struct net_tcp_info *ia, uint32_t seq, uint32_t ack,
	      unsigned int flags)
{
	inject_data_from_a(f, ia, seq, ack, flags, 0);
}

static void
test_rst_in_window_challenged_exact_accepted(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct net_tcp_info ia, ib;

	open_pair(f, e);
	net_tcp_get_info(e[0].c, &ia);
	net_tcp_get_info(e[1].c, &ib);
	assert_int_equal(ib.rcv_nxt, ia.snd_nxt);
	/* RFC 5961 3.2: in the window but not rcv_nxt: a challenge ACK, the connection stays. */
	inject_from_a(f, &ia, ia.snd_nxt + 1000, 0, RTE_TCP_RST_FLAG);
	assert_int_equal(tstats(&f->b).challenge_ack, 1);
	assert_int_equal(tstats(&f->b).rst_rx, 0);
	assert_string_equal(net_tcp_state_name(e[1].c), "established");
	/* A SYN on an established connection: challenged too (RFC 5961 4.2). */
	inject_from_a(f, &ia, ia.snd_nxt, 0, RTE_TCP_SYN_FLAG);
	assert_int_equal(tstats(&f->b).challenge_ack, 2);
	assert_string_equal(net_tcp_state_name(e[1].c), "established");
	/* Out of the window: dropped, answered by a plain ACK, no reset. */
	inject_from_a(f, &ia, ia.snd_nxt - 100000, 0, RTE_TCP_RST_FLAG);
	assert_int_equal(tstats(&f->b).rst_rx, 0);
	assert_int_equal(e[1].closed, 0);
	/* Exactly rcv_nxt: the reset is taken. */
	inject_from_a(f, &ia, ia.snd_nxt, 0, RTE_TCP_RST_FLAG);
	assert_int_equal(tstats(&f->b).rst_rx, 1);
	assert_int_equal(e[1].closed, 1);
	assert_int_equal(e[1].err, ECONNRESET);
}

static void
test_desynchronized_ends_no_ack_storm(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct net_tcp_info ia;
	uint64_t a_tx, b_tx;

	open_pair(f, e);
	net_tcp_get_info(e[0].c, &ia);
	a_tx = tstats(&f->a).tx;
	b_tx = tstats(&f->b).tx;
	/*
	 * 100 bytes A never sent, as if from A: B takes them, and its ACK is for
	 * what A never sent, and A's answer is below B's window: each end finds
	 * the other's ACK out of the window. Found by fuzz_net_tcp_input.
	 */
	inject_data_from_a(f, &ia, ia.snd_nxt, ia.rcv_nxt, RTE_TCP_ACK_FLAG, 100);
	rt_runtime_poll_until_idle(f->rt, 1000);
	/* B's ACK, A's answer, B's answer; then A holds its ACK (500 ms) and it stops. */
	assert_int_equal(tstats(&f->b).tx - b_tx, 2);
	assert_int_equal(tstats(&f->a).tx - a_tx, 1);
	assert_int_equal(tstats(&f->a).oow_ack_limited, 1);
	assert_false(rt_wait_until(f->rt, a_gone, f, 2ULL * 1000 * 1000));
	assert_int_equal(tstats(&f->a).tx - a_tx, 1);
}

static void
test_bad_checksum_dropped(void **state)
{
	struct fix *f = *state;
	struct ep e[2] = { 0 };
	struct net_tcp_info ia;

	open_pair(f, e);
	net_tcp_get_info(e[0].c, &ia);
	/* An exact reset, but its checksum is wrong: dropped before it is looked at. */
	inject_from_a(f, &ia, ia.snd_nxt, 0, RTE_TCP_RST_FLAG | TCP_BAD_CKSUM);
	assert_int_equal(tstats(&f->b).rx_bad, 1);
	assert_int_equal(tstats(&f->b).rst_rx, 0);
	assert_int_equal(e[1].closed, 0);
	/* The same with a good checksum but another port: for nobody, and a reset gets no answer. */
	ia.rport ^= 1; /* B has no listener there either */
	inject_from_a(f, &ia, ia.snd_nxt, 0, RTE_TCP_RST_FLAG);
	assert_int_equal(tstats(&f->b).rx_no_conn, 1);
	assert_int_equal(tstats(&f->b).rst_tx, 0);
	assert_int_equal(e[1].closed, 0);
}

/* ---- options parser ---- */

static void
test_parse_linux_syn_options(void **state)
{
	/* Linux's SYN: MSS 1460, SACK-permitted, timestamps, NOP, window scale 7. */
	const uint8_t o[] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7 };
	const uint8_t bad[] = { 2, 4, 0x05 };
	struct net_tcp_opts p;

	(void)state;
	assert_true(net_tcp_parse_opts(o, sizeof(o), &p));
	assert_int_equal(p.mss, 1460);
	assert_true(p.sack_ok);
	assert_true(p.ts);
	assert_int_equal(p.tsval, 1);
	assert_int_equal(p.tsecr, 0);
	assert_int_equal(p.wscale, 7);
	assert_false(net_tcp_parse_opts(bad, sizeof(bad), &p));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_linux_syn_options),
		cmocka_unit_test_setup_teardown(test_handshake_all_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handshake_peer_without_ts_ws, setup_no_opts,
						teardown),
		cmocka_unit_test_setup_teardown(test_handshake_without_sack, setup_no_sack,
						teardown),
		cmocka_unit_test_setup_teardown(test_data_1mib_both_ways, setup, teardown),
		cmocka_unit_test_setup_teardown(test_data_loss_recovered_by_rto, setup, teardown),
		cmocka_unit_test_setup_teardown(test_data_loss_recovered_by_fast_retransmit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_two_losses_recovered_by_newreno, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sack_two_losses_one_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newreno_without_sack_two_losses, setup_no_sack,
						teardown),
		cmocka_unit_test_setup_teardown(test_sack_blocks_golden_with_timestamps, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sack_blocks_golden_without_timestamps,
						setup_no_opts, teardown),
		cmocka_unit_test_setup_teardown(test_cc_cubic_by_default_and_per_connection, setup,
						teardown),
		cmocka_unit_test(test_cc_loss_cubic_keeps_more_than_newreno),
		cmocka_unit_test(test_sack_heavy_loss_fewer_rtos_than_newreno),
		cmocka_unit_test_setup_teardown(test_lost_syn_retransmitted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rst_to_closed_port, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syn_timeout_etimedout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_wait_expiry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_simultaneous_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_resets_peer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timer_after_conn_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keepalive_answered_keeps_conn, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_keepalive_unanswered_etimedout, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_keepalive_timer_after_conn_gone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_keepalive_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zero_window_probe_answered_resumes,
						setup_small_rcv_buf, teardown),
		cmocka_unit_test_setup_teardown(test_window_update_on_small_reads,
						setup_small_rcv_buf, teardown),
		cmocka_unit_test_setup_teardown(test_zero_window_probes_unanswered_etimedout,
						setup_small_rcv_buf_3_retries, teardown),
		cmocka_unit_test_setup_teardown(test_persist_timer_after_conn_gone,
						setup_small_rcv_buf, teardown),
		cmocka_unit_test_setup_teardown(test_conn_stats_loss_and_sack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conn_stats_probe_and_reset,
						setup_small_rcv_buf, teardown),
		cmocka_unit_test_setup_teardown(test_rst_in_window_challenged_exact_accepted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_checksum_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_desynchronized_ends_no_ack_storm, setup,
						teardown),
	};

	struct lnp_test_eal_args a;
	int rc;

	lnp_test_eal_args_init(&a, "tcp-ut", "0");
	if (rte_eal_init(a.argc, a.argv) < 0) {
		return 1;
	}
	rc = cmocka_run_group_tests_name("net_tcp", tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
