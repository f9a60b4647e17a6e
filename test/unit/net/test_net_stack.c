/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The layers under TCP on two ports joined back to back by rings
 * (rte_eth_from_rings: what A sends, B receives, and the other way), in one
 * process on the simulated runtime, so the virtual clock ages ARP entries.
 * Frames the tests craft go straight into a port's receive ring.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <rte_arp.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_ring.h>

#include "lnp_test.h"
#include "net_ip.h"
#include "net_neigh.h"
#include "net_port.h"
#include "rt.h"

#define IP4(a, b, c, d) \
	rte_cpu_to_be_32((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define IP_A IP4(10, 0, 0, 1)
#define IP_B IP4(10, 0, 0, 2)
#define IP_NOBODY IP4(10, 0, 0, 9)
#define NET_UT_US_PER_S 1000000ULL

struct echo_seen {
	unsigned int n;
	uint32_t from;
	uint16_t id, seq;
	size_t len;
	unsigned int lcore;
};

struct node {
	struct rte_ring *rx; /* the ring its port receives from */
	struct net_port *port;
	struct net_neigh *nb;
	struct net_ip *ip;
	struct echo_seen echo;
	struct rte_ether_addr mac;
};

struct fix {
	struct rt_runtime *rt;
	struct rte_ring *ab, *ba;
	struct node a, b;
	unsigned int n_data;
};

static unsigned int g_seq;

static void
on_echo(void *arg, unsigned int lcore, uint32_t from, uint16_t id, uint16_t seq, const void *data,
	size_t len)
{
	struct echo_seen *e = arg;

	(void)data;
	e->n++;
	e->from = from;
	e->id = id;
	e->seq = seq;
	e->len = len;
	e->lcore = lcore;
}

/* Queue pairs of the ring ports the next fixture makes (1 or 2). */
static unsigned int g_queues = 1;
/* Their second queue pair's rings: [0] A to B, [1] B to A. */
static struct rte_ring *g_q1[2];

static uint16_t
ring_port(const char *tag, struct rte_ring *rx, struct rte_ring *tx)
{
	struct rte_ring *rxs[2] = { rx, NULL }, *txs[2] = { tx, NULL };
	char name[32];
	int id;

	if (g_queues == 2) {
		rxs[1] = g_q1[tag[0] == 'a' ? 1 : 0];
		txs[1] = g_q1[tag[0] == 'a' ? 0 : 1];
	}
	snprintf(name, sizeof(name), "net_ut_%s%u", tag, g_seq);
	id = rte_eth_from_rings(name, rxs, g_queues, txs, g_queues, SOCKET_ID_ANY);
	assert_true(id >= 0);
	return (uint16_t)id;
}

static void
node_open(struct fix *f, struct node *n, const char *tag, struct rte_ring *rx, struct rte_ring *tx,
	  uint32_t addr)
{
	struct net_port_conf pc = { .conf_size = sizeof(pc), .nb_mbufs = 4095 };
	struct net_neigh_conf nc = { .conf_size = sizeof(nc) };
	struct net_ip_conf ic = { .conf_size = sizeof(ic) };

	/* Ring ports all share one MAC: each gets its own (locally administered). */
	struct rte_ether_addr mac = { .addr_bytes = { 0x02, 0, 0, 0, (uint8_t)g_seq,
						      (uint8_t)tag[0] } };

	n->rx = rx;
	pc.mac = &mac;
	pc.port_id = ring_port(tag, rx, tx);
	assert_int_equal(net_port_open(f->rt, &pc, &n->port), 0);
	n->mac = net_port_info(n->port)->mac;
	assert_int_equal(net_neigh_create(n->port, &nc, &n->nb), 0);
	assert_int_equal(net_ip_create(n->nb, &ic, &n->ip), 0);
	net_ip_set_echo_fn(n->ip, on_echo, &n->echo);
	assert_int_equal(net_neigh_addr_add(n->nb, addr, 24), 0);
}

static int
fix_setup(void **state, unsigned int n_data)
{
	static struct fix f;
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_SIM };
	char name[32];

	memset(&f, 0, sizeof(f));
	g_seq++;
	f.n_data = n_data;
	o.n_data = n_data;
	assert_int_equal(rt_runtime_create(&o, &f.rt), 0);
	snprintf(name, sizeof(name), "net_ut_ab%u", g_seq);
	f.ab = rte_ring_create(name, 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "net_ut_ba%u", g_seq);
	f.ba = rte_ring_create(name, 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(f.ab);
	assert_non_null(f.ba);
	if (g_queues == 2) {
		snprintf(name, sizeof(name), "net_ut_ab1_%u", g_seq);
		g_q1[0] = rte_ring_create(name, 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "net_ut_ba1_%u", g_seq);
		g_q1[1] = rte_ring_create(name, 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		assert_non_null(g_q1[0]);
		assert_non_null(g_q1[1]);
	}
	node_open(&f, &f.a, "a", f.ba, f.ab, IP_A);
	node_open(&f, &f.b, "b", f.ab, f.ba, IP_B);
	/* Tests tell the two apart by MAC. */
	assert_false(rte_is_same_ether_addr(&f.a.mac, &f.b.mac));
	assert_false(rte_is_zero_ether_addr(&f.a.mac));
	*state = &f;
	return 0;
}

static int
setup1(void **state)
{
	return fix_setup(state, 1);
}

static int
setup2(void **state)
{
	g_queues = 1;
	return fix_setup(state, 2);
}

static int
setup2q(void **state)
{
	g_queues = 2;
	return fix_setup(state, 2);
}

static void
start(struct fix *f)
{
	assert_int_equal(net_port_start(f->a.port), 0);
	assert_int_equal(net_port_start(f->b.port), 0);
	rt_runtime_poll_until_idle(f->rt, 1000);
}

static void
node_close(struct node *n)
{
	net_port_close(n->port);
	net_ip_destroy(n->ip);
	net_neigh_destroy(n->nb);
}

static int
teardown(void **state)
{
	struct fix *f = *state;

	rt_runtime_poll_until_idle(f->rt, 1000);
	node_close(&f->a);
	node_close(&f->b);
	rt_runtime_destroy(f->rt);
	rte_ring_free(f->ab);
	rte_ring_free(f->ba);
	if (g_queues == 2) {
		rte_ring_free(g_q1[0]);
		rte_ring_free(g_q1[1]);
	}
	g_queues = 1;
	return 0;
}

struct ping_req {
	struct net_ip *ip;
	unsigned int lcore;
	uint32_t dst;
	uint16_t seq;
};

static int
ping_on_lcore(void *arg)
{
	struct ping_req *p = arg;

	return net_ip_ping(p->ip, p->lcore, p->dst, 0x4c4e, p->seq, 56);
}

/* An echo request one byte over a 1500-byte MTU (20 + 8 + 1473). */
static int
ping_big_on_lcore(void *arg)
{
	struct ping_req *p = arg;

	return net_ip_ping(p->ip, p->lcore, p->dst, 0x4c4e, p->seq, 1473);
}

/* An echo request from @p n's data lcore @p lcore, then everything runs until quiet. */
static void
ping_from(struct fix *f, struct node *n, unsigned int lcore, uint32_t dst, uint16_t seq)
{
	struct ping_req p = { n->ip, lcore, dst, seq };

	assert_int_equal(rt_lcore_call(rt_data_lcore(f->rt, lcore), ping_on_lcore, &p), 0);
	rt_runtime_poll_until_idle(f->rt, 1000);
}

static void
ping(struct fix *f, struct node *n, uint32_t dst, uint16_t seq)
{
	ping_from(f, n, 0, dst, seq);
}

static struct net_neigh_stats
nstats(const struct node *n)
{
	struct net_neigh_stats s;

	net_neigh_stats(n->nb, &s);
	return s;
}

static struct net_ip_stats
istats(const struct node *n)
{
	struct net_ip_stats s;

	net_ip_stats(n->ip, &s);
	return s;
}

static struct net_port_lcore_stats
pstats(const struct node *n, unsigned int lcore)
{
	struct net_port_lcore_stats s;

	net_port_lcore_stats(n->port, lcore, &s);
	return s;
}

/* ---- the port ---- */

static void
test_port_states_and_negotiation(void **state)
{
	struct fix *f = *state;
	const struct net_port_info *in = net_port_info(f->a.port);

	assert_int_equal(net_port_state(f->a.port), NET_PORT_CONFIGURED);
	assert_string_equal(net_port_state_name(NET_PORT_CONFIGURED), "configured");
	/* A ring port: one queue pair, no checksum offloads, the default MTU. */
	assert_int_equal(in->n_queues, 1);
	assert_int_equal(in->n_lcores, 1);
	assert_false(in->tx_ip_cksum);
	assert_int_equal(in->mtu, RTE_ETHER_MTU);
	start(f);
	assert_int_equal(net_port_state(f->a.port), NET_PORT_LINK_UP);
	assert_string_equal(net_port_state_name(net_port_state(f->a.port)), "link-up");
	/* Started twice: refused, the state stays. */
	assert_int_equal(net_port_start(f->a.port), -EBUSY);
	/* The link goes down: the management lcore's poll sees it. */
	assert_int_equal(rte_eth_dev_set_link_down(in->port_id), 0);
	rt_sim_advance_us(f->rt, 200 * 1000);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(net_port_state(f->a.port), NET_PORT_LINK_DOWN);
	assert_int_equal(rte_eth_dev_set_link_up(in->port_id), 0);
	rt_sim_advance_us(f->rt, 200 * 1000);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(net_port_state(f->a.port), NET_PORT_LINK_UP);
}

/* ---- ARP and ICMP echo ---- */

static void
test_arp_both_ways_then_echo(void **state)
{
	struct fix *f = *state;
	struct rte_ether_addr mac;

	start(f);
	ping(f, &f->a, IP_B, 1);
	/* A asked, B answered and learned A from the request. */
	assert_int_equal(nstats(&f->a).arp_req_tx, 1);
	assert_int_equal(nstats(&f->b).arp_req_rx, 1);
	assert_int_equal(nstats(&f->b).arp_reply_tx, 1);
	assert_int_equal(nstats(&f->a).arp_reply_rx, 1);
	assert_int_equal(nstats(&f->a).resolved, 1);
	assert_int_equal(net_neigh_lookup(f->a.nb, IP_B, &mac), NET_NEIGH_REACHABLE);
	assert_true(rte_is_same_ether_addr(&mac, &f->b.mac));
	assert_int_equal(net_neigh_lookup(f->b.nb, IP_A, &mac), NET_NEIGH_REACHABLE);
	assert_true(rte_is_same_ether_addr(&mac, &f->a.mac));
	/* The request waited for the answer, then went; B's reply needed no ARP. */
	assert_int_equal(istats(&f->b).icmp_echo_rx, 1);
	assert_int_equal(istats(&f->b).icmp_echo_tx, 1);
	assert_int_equal(f->a.echo.n, 1);
	assert_int_equal(f->a.echo.from, IP_B);
	assert_int_equal(f->a.echo.seq, 1);
	assert_int_equal(f->a.echo.id, 0x4c4e);
	assert_int_equal(f->a.echo.len, 56);
	assert_int_equal(nstats(&f->b).arp_req_tx, 0);
	/* The other way: both already know each other. */
	ping(f, &f->b, IP_A, 7);
	assert_int_equal(f->b.echo.n, 1);
	assert_int_equal(f->b.echo.seq, 7);
	assert_int_equal(nstats(&f->b).arp_req_tx, 0);
	assert_int_equal(nstats(&f->a).arp_req_rx, 0);
	/* The ring PMD offloads nothing: the port filled every IPv4 checksum. */
	assert_true(pstats(&f->a, 0).tx_sw_cksum >= 2);
	assert_int_equal(istats(&f->a).rx_bad_cksum + istats(&f->b).rx_bad_cksum, 0);
}

static void
test_gratuitous_arp_on_start_and_new_address(void **state)
{
	struct fix *f = *state;

	start(f);
	assert_int_equal(net_neigh_announce(f->a.nb), 0);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(nstats(&f->a).garp_tx, 1);
	assert_int_equal(nstats(&f->b).arp_req_rx, 1);
	/* An announcement asks nothing of B: no reply, and no entry made for it. */
	assert_int_equal(nstats(&f->b).arp_reply_tx, 0);
	assert_int_equal(net_neigh_lookup(f->b.nb, IP_A, NULL), NET_NEIGH_NONE);
	assert_int_equal(net_neigh_addr_add(f->a.nb, IP4(10, 0, 0, 3), 24), 0);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(nstats(&f->a).garp_tx, 2);
	assert_int_equal(nstats(&f->b).arp_req_rx, 2);
	assert_int_equal(net_neigh_addr_add(f->a.nb, IP4(10, 0, 0, 3), 24), -EEXIST);
	assert_true(net_neigh_is_local(f->a.nb, IP4(10, 0, 0, 3)));
	assert_int_equal(net_neigh_addr_del(f->a.nb, IP4(10, 0, 0, 3)), 0);
	assert_false(net_neigh_is_local(f->a.nb, IP4(10, 0, 0, 3)));
	/* Another host claiming B's own address is a conflict, not an entry. */
	assert_int_equal(net_neigh_addr_add(f->a.nb, IP_B, 24), 0);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(nstats(&f->b).conflicts, 1);
}

static void
test_entry_ages_reprobes_and_goes(void **state)
{
	struct fix *f = *state;

	start(f);
	ping(f, &f->a, IP_B, 1);
	assert_int_equal(net_neigh_lookup(f->a.nb, IP_B, NULL), NET_NEIGH_REACHABLE);
	rt_sim_advance_us(f->rt, 31 * NET_UT_US_PER_S);
	assert_int_equal(net_neigh_lookup(f->a.nb, IP_B, NULL), NET_NEIGH_STALE);
	/* Used again: the packet goes to the known MAC and a unicast probe asks again. */
	ping(f, &f->a, IP_B, 2);
	assert_int_equal(f->a.echo.n, 2);
	assert_int_equal(f->a.echo.seq, 2);
	assert_int_equal(nstats(&f->a).arp_req_tx, 2);
	assert_int_equal(net_neigh_lookup(f->a.nb, IP_B, NULL), NET_NEIGH_REACHABLE);
	/* Left unused past reachable + gc_stale: removed. */
	rt_sim_advance_us(f->rt, 91 * NET_UT_US_PER_S);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(net_neigh_lookup(f->a.nb, IP_B, NULL), NET_NEIGH_NONE);
	assert_true(nstats(&f->a).removed >= 1);
}

static void
test_unresolved_queue_is_bounded_then_fails(void **state)
{
	struct fix *f = *state;
	unsigned int i;

	start(f);
	for (i = 0; i < 10; i++) {
		ping(f, &f->a, IP_NOBODY, (uint16_t)i);
	}
	/* Eight wait (the default queue), two are dropped and counted. */
	assert_int_equal(net_neigh_lookup(f->a.nb, IP_NOBODY, NULL), NET_NEIGH_INCOMPLETE);
	assert_int_equal(nstats(&f->a).pending_drops, 2);
	assert_int_equal(nstats(&f->a).arp_req_tx, 1);
	/* Three probes a second apart, then the eight are dropped. */
	for (i = 0; i < 4; i++) {
		rt_sim_advance_us(f->rt, NET_UT_US_PER_S);
		rt_runtime_poll_until_idle(f->rt, 1000);
	}
	assert_int_equal(nstats(&f->a).arp_req_tx, 3);
	assert_int_equal(nstats(&f->b).arp_req_rx, 3);
	assert_int_equal(nstats(&f->b).arp_reply_tx, 0);
	assert_int_equal(nstats(&f->a).resolve_failed, 8);
	assert_int_equal(net_neigh_lookup(f->a.nb, IP_NOBODY, NULL), NET_NEIGH_NONE);
	assert_int_equal(f->a.echo.n, 0);
	/* Off-link with no gateway: no route. */
	{
		struct ping_req p = { f->a.ip, 0, IP4(192, 0, 2, 1), 1 };

		assert_int_equal(rt_lcore_call(rt_data_lcore(f->rt, 0), ping_on_lcore, &p),
				 -EHOSTUNREACH);
	}
	assert_int_equal(istats(&f->a).tx_no_route, 1);
	/* Over the MTU with DF: refused, never fragmented. */
	{
		struct ping_req p = { f->a.ip, 0, IP_B, 1 };

		p.seq = 2;
		assert_int_equal(rt_lcore_call(rt_data_lcore(f->rt, 0), ping_big_on_lcore, &p),
				 -EMSGSIZE);
	}
	assert_int_equal(istats(&f->a).tx_too_big, 1);
}

/* ---- malformed frames ---- */

/* A frame from A's MAC to @p dst, EtherType @p type, body @p body of @p len bytes. */
static void
inject_to(struct fix *f, const struct rte_ether_addr *dst, uint16_t type, const void *body,
	  size_t len)
{
	struct rte_mbuf *m = net_port_alloc(f->b.port);
	struct rte_ether_hdr *eh;

	assert_non_null(m);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eh) + len);
	assert_non_null(eh);
	eh->src_addr = f->a.mac;
	eh->dst_addr = *dst;
	eh->ether_type = rte_cpu_to_be_16(type);
	memcpy(eh + 1, body, len);
	assert_int_equal(rte_ring_enqueue(f->b.rx, m), 0);
}

/* A frame from A's MAC to B's. */
static void
inject(struct fix *f, uint16_t type, const void *body, size_t len)
{
	inject_to(f, &f->b.mac, type, body, len);
}

static void
inject_raw(struct fix *f, size_t len)
{
	struct rte_mbuf *m = net_port_alloc(f->b.port);

	assert_non_null(rte_pktmbuf_append(m, len));
	memset(rte_pktmbuf_mtod(m, void *), 0xab, len);
	assert_int_equal(rte_ring_enqueue(f->b.rx, m), 0);
}

/* A valid IPv4 packet A -> B of protocol @p proto carrying @p l4_len bytes. */
static size_t
ip_packet(uint8_t *buf, uint8_t proto, uint32_t src, uint32_t dst, const void *l4, size_t l4_len)
{
	struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)buf;

	memset(h, 0, sizeof(*h));
	h->version_ihl = RTE_IPV4_VHL_DEF;
	h->total_length = rte_cpu_to_be_16(sizeof(*h) + l4_len);
	h->time_to_live = 64;
	h->next_proto_id = proto;
	h->src_addr = src;
	h->dst_addr = dst;
	memcpy(h + 1, l4, l4_len);
	h->hdr_checksum = rte_ipv4_cksum(h);
	return sizeof(*h) + l4_len;
}

static void
reseal(uint8_t *buf)
{
	struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)buf;

	h->hdr_checksum = 0;
	h->hdr_checksum = rte_ipv4_cksum(h);
}

static size_t
echo_body(uint8_t *buf, bool good_cksum)
{
	struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)buf;

	memset(buf, 0, 16);
	ic->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
	ic->icmp_ident = rte_cpu_to_be_16(1);
	ic->icmp_seq_nb = rte_cpu_to_be_16(1);
	ic->icmp_cksum = (uint16_t)~rte_raw_cksum(buf, 16);
	if (!good_cksum) {
		ic->icmp_cksum ^= 0x0101;
	}
	return 16;
}

static void
test_malformed_frames_counted_and_dropped(void **state)
{
	struct fix *f = *state;
	uint8_t l4[64], pkt[256];
	struct rte_arp_hdr arp;
	size_t n, l4n;
	struct net_ip_stats is;

	start(f);
	/* Learn each other first, so nothing below needs ARP. */
	ping(f, &f->a, IP_B, 1);
	l4n = echo_body(l4, true);

	inject_raw(f, 10);                      /* shorter than an Ethernet header */
	inject(f, RTE_ETHER_TYPE_IPV4, l4, 10); /* shorter than an IPv4 header */
	n = ip_packet(pkt, IPPROTO_ICMP, IP_A, IP_B, l4, l4n);
	pkt[0] = 0x65; /* version 6 */
	reseal(pkt);
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	n = ip_packet(pkt, IPPROTO_ICMP, IP_A, IP_B, l4, l4n);
	pkt[10] ^= 0xff; /* checksum */
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	n = ip_packet(pkt, IPPROTO_ICMP, IP_A, IP_B, l4, l4n);
	pkt[2] = 0x01; /* total length past the frame */
	reseal(pkt);
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	n = ip_packet(pkt, IPPROTO_ICMP, IP_A, IP_B, l4, l4n);
	pkt[0] = 0x4f; /* header length 60 in a 36-byte packet */
	reseal(pkt);
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	n = ip_packet(pkt, IPPROTO_ICMP, IP_A, IP_B, l4, l4n);
	pkt[6] = 0x20; /* more fragments */
	reseal(pkt);
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	n = ip_packet(pkt, IPPROTO_ICMP, IP_A, IP_B, l4, l4n);
	pkt[7] = 0x10; /* a later fragment */
	reseal(pkt);
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	n = ip_packet(pkt, IPPROTO_ICMP, IP_A, IP4(10, 0, 0, 77), l4, l4n); /* not ours */
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	n = ip_packet(pkt, IPPROTO_ICMP, IP4(224, 0, 0, 1), IP_B, l4, l4n); /* multicast source */
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	n = ip_packet(pkt, IPPROTO_ICMP, IP_A, IP_B, l4, echo_body(l4, false)); /* ICMP checksum */
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	n = ip_packet(pkt, IPPROTO_UDP, IP_A, IP_B, l4, 8); /* nobody registered UDP */
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	memset(&arp, 0, sizeof(arp));
	arp.arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp.arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp.arp_hlen = 8; /* not Ethernet */
	arp.arp_plen = 4;
	arp.arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	inject(f, RTE_ETHER_TYPE_ARP, &arp, sizeof(arp));
	inject(f, RTE_ETHER_TYPE_ARP, &arp, 10); /* short */
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, 40); /* not in this slice */
	inject(f, 0x88b5, pkt, 46);              /* nobody's EtherType */
	n = ip_packet(pkt, IPPROTO_ICMP, IP_A, IP_B, l4, echo_body(l4, true));
	inject_to(f, &f->a.mac, RTE_ETHER_TYPE_IPV4, pkt, n); /* to another host's MAC */
	rt_runtime_poll_until_idle(f->rt, 1000);

	is = istats(&f->b);
	assert_int_equal(pstats(&f->b, 0).rx_runt, 1);
	assert_int_equal(pstats(&f->b, 0).rx_other_host, 1);
	assert_int_equal(is.rx_short, 1);
	assert_int_equal(is.rx_bad_version, 1);
	assert_int_equal(is.rx_bad_cksum, 1);
	assert_int_equal(is.rx_bad_len, 1);
	assert_int_equal(is.rx_bad_hlen, 1);
	assert_int_equal(is.rx_frag, 2);
	assert_int_equal(is.rx_not_ours, 1);
	assert_int_equal(is.rx_bad_src, 1);
	assert_int_equal(is.icmp_bad, 1);
	assert_int_equal(is.rx_no_proto, 1);
	assert_int_equal(is.rx_ipv6, 1);
	assert_int_equal(nstats(&f->b).arp_bad, 2);
	assert_int_equal(pstats(&f->b, 0).rx_class[NET_CLASS_OTHER], 1);
	assert_int_equal(pstats(&f->b, 0).rx_no_handler, 1);
	/* None of it was answered: only the first ping's echo went out. */
	assert_int_equal(is.icmp_echo_tx, 1);
	assert_int_equal(is.icmp_echo_rx, 1);
}

/* ---- ICMP errors to the upper layer ---- */

struct err_seen {
	unsigned int n;
	struct net_icmp_err e;
	uint8_t l4[8];
};

static void
on_err(void *arg, struct net_ip *ip, unsigned int lcore, const struct net_icmp_err *e)
{
	struct err_seen *s = arg;

	(void)ip;
	(void)lcore;
	s->n++;
	s->e = *e;
	memcpy(s->l4, e->l4, sizeof(s->l4));
}

static size_t
frag_needed(uint8_t *buf, uint32_t quoted_src, uint16_t mtu)
{
	struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)buf;
	const uint8_t tcp8[8] = { 0x03, 0xdc, 0x04, 0x00, 1, 2, 3, 4 }; /* ports 988 -> 1024 */
	size_t n;

	memset(ic, 0, sizeof(*ic));
	ic->icmp_type = 3;
	ic->icmp_code = 4;
	ic->icmp_seq_nb = rte_cpu_to_be_16(mtu);
	n = ip_packet(buf + sizeof(*ic), IPPROTO_TCP, quoted_src, IP_A, tcp8, sizeof(tcp8));
	ic->icmp_cksum = (uint16_t)~rte_raw_cksum(buf, sizeof(*ic) + n);
	return sizeof(*ic) + n;
}

static void
test_icmp_frag_needed_reaches_upper_layer(void **state)
{
	struct fix *f = *state;
	struct err_seen seen = { 0 };
	uint8_t l4[128], pkt[256];
	size_t n;

	assert_int_equal(net_ip_register(f->b.ip, IPPROTO_TCP, NULL, on_err, &seen), 0);
	assert_int_equal(net_ip_register(f->b.ip, IPPROTO_TCP, NULL, on_err, &seen), -EEXIST);
	assert_int_equal(net_ip_register(f->b.ip, IPPROTO_ICMP, NULL, on_err, &seen), -EINVAL);
	start(f);
	/* About a TCP segment B sent to A: to B's TCP, with the MTU. */
	n = ip_packet(pkt, IPPROTO_ICMP, IP_A, IP_B, l4, frag_needed(l4, IP_B, 1400));
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	/* About a packet B did not send: counted, not delivered. */
	n = ip_packet(pkt, IPPROTO_ICMP, IP_A, IP_B, l4, frag_needed(l4, IP4(10, 0, 0, 50), 1300));
	inject(f, RTE_ETHER_TYPE_IPV4, pkt, n);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.e.type, 3);
	assert_int_equal(seen.e.code, 4);
	assert_int_equal(seen.e.mtu, 1400);
	assert_int_equal(seen.e.proto, IPPROTO_TCP);
	assert_int_equal(seen.e.src, IP_B);
	assert_int_equal(seen.e.dst, IP_A);
	assert_int_equal(seen.e.from, IP_A);
	assert_int_equal(seen.l4[0], 0x03);
	assert_int_equal(seen.l4[1], 0xdc);
	assert_int_equal(istats(&f->b).icmp_err_rx, 2);
	assert_int_equal(istats(&f->b).icmp_err_delivered, 1);
}

/* ---- software steering: one queue, two data lcores ---- */

static unsigned int
owner_lcore1(void *arg, const struct net_port *port, const struct rte_mbuf *m)
{
	(void)arg;
	(void)port;
	(void)m;
	return 1;
}

static void
test_single_queue_steers_to_owner_lcore(void **state)
{
	struct fix *f = *state;
	struct net_ip_stats s1;

	assert_int_equal(net_port_info(f->b.port)->n_queues, 1);
	assert_int_equal(net_port_info(f->b.port)->n_lcores, 2);
	net_port_set_owner_fn(f->b.port, owner_lcore1, NULL);
	start(f);
	ping(f, &f->a, IP_B, 3);
	assert_int_equal(f->a.echo.n, 1);
	/* ARP stayed on lcore 0 (the writer's feeder); the IPv4 packet went to lcore 1. */
	assert_int_equal(pstats(&f->b, 0).rx_class[NET_CLASS_ARP], 1);
	assert_int_equal(pstats(&f->b, 0).steered_out, 1);
	assert_int_equal(pstats(&f->b, 1).steered_in, 1);
	assert_int_equal(pstats(&f->b, 1).rx_class[NET_CLASS_IPV4], 1);
	net_ip_lcore_stats(f->b.ip, 1, &s1);
	assert_int_equal(s1.icmp_echo_tx, 1);
	/* Lcore 1 sent the reply on the queue it shares with lcore 0. */
	assert_int_equal(pstats(&f->b, 1).tx_pkts, 1);
}

/* ---- a queue pair per data lcore ---- */

static void
test_queue_per_lcore_keeps_flows_on_their_lcore(void **state)
{
	struct fix *f = *state;
	struct net_port_stats ps;
	struct net_ip_stats s1;

	assert_int_equal(net_port_info(f->a.port)->n_queues, 2);
	assert_int_equal(net_port_info(f->b.port)->n_queues, 2);
	start(f);
	ping_from(f, &f->a, 1, IP_B, 5);
	/* ARP went by queue 0 (the writer sends through lcore 0) ... */
	assert_int_equal(pstats(&f->b, 0).rx_class[NET_CLASS_ARP], 1);
	assert_int_equal(pstats(&f->a, 0).rx_class[NET_CLASS_ARP], 1);
	/* ... the echo by queue 1 both ways, nothing steered. */
	assert_int_equal(pstats(&f->b, 1).rx_class[NET_CLASS_IPV4], 1);
	assert_int_equal(pstats(&f->b, 0).rx_class[NET_CLASS_IPV4], 0);
	net_ip_lcore_stats(f->b.ip, 1, &s1);
	assert_int_equal(s1.icmp_echo_tx, 1);
	assert_int_equal(f->a.echo.n, 1);
	assert_int_equal(f->a.echo.lcore, 1);
	assert_int_equal(f->a.echo.seq, 5);
	assert_int_equal(pstats(&f->b, 0).steered_out + pstats(&f->b, 1).steered_out, 0);
	/* The port's totals: its lcores' and the PMD's agree. */
	assert_int_equal(net_port_stats(f->b.port, &ps), 0);
	assert_int_equal(ps.sum.rx_pkts, 2);
	assert_int_equal(ps.hw_ipackets, 2);
	assert_int_equal(ps.sum.tx_pkts, 2);
	assert_int_equal(ps.hw_opackets, 2);
}

/* ---- the pure parsers ---- */

static void
test_parsers_refuse_what_they_must(void **state)
{
	uint8_t b[64] = { 0 };
	struct net_arp_view av;
	struct net_icmp_view iv;
	uint16_t hl, tl;
	size_t n;

	(void)state;
	assert_int_equal(net_arp_parse(b, 27, &av), NET_ARP_SHORT);
	assert_int_equal(net_arp_parse(b, 28, &av), NET_ARP_NOT_ETH_IP);
	assert_int_equal(net_ipv4_check(b, 19, false, &hl, &tl), NET_IPV4_SHORT);
	n = ip_packet(b, IPPROTO_ICMP, IP_A, IP_B, b + 40, 0);
	assert_int_equal(net_ipv4_check(b, n, false, &hl, &tl), NET_IPV4_OK);
	assert_int_equal(hl, 20);
	assert_int_equal(tl, 20);
	b[10] ^= 1;
	assert_int_equal(net_ipv4_check(b, n, false, &hl, &tl), NET_IPV4_BAD_CKSUM);
	/* The PMD said the checksum is good: not checked again. */
	assert_int_equal(net_ipv4_check(b, n, true, &hl, &tl), NET_IPV4_OK);
	assert_int_equal(net_icmp_parse(b, 7, &iv), NET_ICMP_SHORT);
	n = echo_body(b, true);
	assert_int_equal(net_icmp_parse(b, n, &iv), NET_ICMP_OK);
	assert_int_equal(iv.type, RTE_IP_ICMP_ECHO_REQUEST);
	assert_int_equal(iv.data_len, 8);
}

/* ---- IPv6 and ICMPv6 ---- */

static const uint8_t LL_X[16] = { 0xfe, 0x80, [15] = 0x01 }; /* fe80::1, a neighbour */

/* fe80::5054:ff:fe12:3456, what RFC 4291's modified EUI-64 makes of 52:54:00:12:34:56. */
static const uint8_t LL_5254[16] = { 0xfe, 0x80, [8] = 0x50, 0x54, 0x00,
				     0xff, 0xfe, 0x12,       0x34, 0x56 };

/* An IPv6 packet src -> dst of next header @p nh carrying @p l4 (its checksum left as is). */
static size_t
ip6_packet(uint8_t *buf, uint8_t nh, const uint8_t src[16], const uint8_t dst[16], const void *l4,
	   size_t l4_len)
{
	struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)buf;

	memset(h, 0, sizeof(*h));
	h->vtc_flow = rte_cpu_to_be_32(6u << 28);
	h->payload_len = rte_cpu_to_be_16((uint16_t)l4_len);
	h->proto = nh;
	h->hop_limits = 64;
	memcpy(h->src_addr, src, 16);
	memcpy(h->dst_addr, dst, 16);
	memcpy(h + 1, l4, l4_len);
	return sizeof(*h) + l4_len;
}

/* An ICMPv6 message of @p len bytes at @p l4 in the packet at @p buf: fill its checksum. */
static void
icmp6_seal(uint8_t *buf)
{
	struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)buf;
	uint8_t *ic = buf + sizeof(*h);
	size_t len = rte_be_to_cpu_16(h->payload_len);
	uint16_t ck;

	ic[2] = ic[3] = 0;
	ck = net_ipv6_l4_cksum(h->src_addr, h->dst_addr, IPPROTO_ICMPV6, ic, len);
	memcpy(ic + 2, &ck, 2);
}

/* An echo request src -> dst, id 0x1234, sequence 7, payload "abcdefgh", checksummed. */
static size_t
echo6(uint8_t *buf, const uint8_t src[16], const uint8_t dst[16])
{
	const uint8_t body[16] = { 128, 0,   0,   0,   0x12, 0x34, 0,   7,
				   'a', 'b', 'c', 'd', 'e',  'f',  'g', 'h' };
	size_t n = ip6_packet(buf, IPPROTO_ICMPV6, src, dst, body, sizeof(body));

	icmp6_seal(buf);
	return n;
}

static void
test_ipv6_parsers_and_addresses(void **state)
{
	const struct rte_ether_addr mac = { .addr_bytes = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 } };
	const uint8_t snm[16] = { 0xff, 0x02, [11] = 0x01, 0xff, 0x12, 0x34, 0x56 };
	uint8_t a[16], b[128], q[64];
	struct net_icmp6_view v;
	uint16_t plen;
	size_t n;

	(void)state;
	net_ipv6_link_local(&mac, a);
	assert_memory_equal(a, LL_5254, 16);
	net_ipv6_solicited_node(a, a);
	assert_memory_equal(a, snm, 16);

	n = echo6(b, LL_X, LL_5254);
	/* The checksum an independent RFC 1071 sum (Python) gives for this message. */
	assert_int_equal(b[42] << 8 | b[43], 0x5b25);
	assert_int_equal(net_ipv6_check(b, n, &plen), NET_IPV6_OK);
	assert_int_equal(plen, 16);
	assert_int_equal(net_icmp6_parse((struct rte_ipv6_hdr *)b, b + 40, plen, &v), NET_ICMP6_OK);
	assert_int_equal(v.type, NET_ICMP6_ECHO_REQUEST);
	assert_int_equal(v.id, 0x1234);
	assert_int_equal(v.seq, 7);
	assert_int_equal(v.data_len, 8);
	assert_memory_equal(v.data, "abcdefgh", 8);
	/* The pseudo-header counts: the same bytes to another address fail. */
	b[39] ^= 1;
	assert_int_equal(net_icmp6_parse((struct rte_ipv6_hdr *)b, b + 40, plen, &v),
			 NET_ICMP6_BAD_CKSUM);
	b[39] ^= 1;

	assert_int_equal(net_ipv6_check(b, 39, &plen), NET_IPV6_SHORT);
	assert_int_equal(net_ipv6_check(b, n - 1, &plen), NET_IPV6_BAD_LEN);
	b[0] = 0x45;
	assert_int_equal(net_ipv6_check(b, n, &plen), NET_IPV6_BAD_VERSION);
	b[0] = 0x60;
	b[6] = IPPROTO_FRAGMENT;
	assert_int_equal(net_ipv6_check(b, n, &plen), NET_IPV6_FRAGMENT);
	b[6] = IPPROTO_HOPOPTS;
	assert_int_equal(net_ipv6_check(b, n, &plen), NET_IPV6_EXT_HDR);
	b[6] = IPPROTO_ICMPV6;
	b[8] = 0xff; /* multicast source */
	assert_int_equal(net_ipv6_check(b, n, &plen), NET_IPV6_BAD_SRC);

	/* Packet too big (RFC 4443 3.2): its 32-bit MTU and the quoted packet's addresses. */
	memset(q, 0, sizeof(q));
	q[0] = NET_ICMP6_PACKET_TOO_BIG;
	q[4] = 0;
	q[5] = 0;
	q[6] = 0x05;
	q[7] = 0x00; /* 1280 */
	ip6_packet(q + 8, IPPROTO_TCP, LL_5254, LL_X, "\x03\xdc\x04\x00\x01\x02\x03\x04", 8);
	n = ip6_packet(b, IPPROTO_ICMPV6, LL_X, LL_5254, q, 56);
	icmp6_seal(b);
	assert_int_equal(net_icmp6_parse((struct rte_ipv6_hdr *)b, b + 40, 56, &v), NET_ICMP6_OK);
	assert_int_equal(v.err.mtu, 1280);
	assert_int_equal(v.err.proto, IPPROTO_TCP);
	assert_memory_equal(v.err.src, LL_5254, 16);
	assert_memory_equal(v.err.dst, LL_X, 16);
	assert_int_equal(v.err.l4_len, 8);
	assert_int_equal(v.err.l4[0] << 8 | v.err.l4[1], 988);
	/* Quoting under 8 bytes past the header is too short for TCP's ports. */
	ip6_packet(b, IPPROTO_ICMPV6, LL_X, LL_5254, q, 55);
	icmp6_seal(b);
	assert_int_equal(net_icmp6_parse((struct rte_ipv6_hdr *)b, b + 40, 55, &v),
			 NET_ICMP6_SHORT);
	(void)n;
}

/* Run B's DAD to its end (nobody objects): its addresses become usable. */
static void
settle_dad(struct fix *f)
{
	assert_int_equal(net_ip_announce6(f->b.ip), 0);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_true(net_ip_dad_pending(f->b.ip));
	rt_sim_advance_us(f->rt, NET_UT_US_PER_S);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_false(net_ip_dad_pending(f->b.ip));
}

/* Drop what B sent that A's (stopped) port did not take. */
static void
drain_a(struct fix *f)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(f->a.rx, (void **)&m) == 0) {
		rte_pktmbuf_free(m);
	}
}

static void
test_ipv6_input_counted_and_filtered(void **state)
{
	struct fix *f = *state;
	const uint8_t global_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x02 };
	const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	const uint8_t mcast_src[16] = { 0xff, 0x02, [15] = 0x09 };
	uint8_t ll_b[16], snm_b[16], other[16], pkt[160], q[64];
	struct net_ip_stats is;
	size_t n;
	unsigned int i;

	net_ipv6_link_local(&f->b.mac, ll_b);
	net_ipv6_solicited_node(global_b, snm_b);
	memcpy(other, ll_b, 16);
	other[15] ^= 0x80;
	assert_int_equal(net_ip_addr6_add(f->b.ip, global_b), 0);
	assert_int_equal(net_ip_addr6_add(f->b.ip, global_b), -EEXIST);
	assert_int_equal(net_ip_addr6_add(f->b.ip, ll_b), -EEXIST); /* it always has that one */
	assert_int_equal(net_ip_addr6_add(f->b.ip, all_nodes), -EINVAL);
	/* The groups IPv6 needs were joined on the device (ring ports have no list). */
	assert_int_equal(net_port_mcast_mode(f->b.port), NET_PORT_MCAST_ALL);
	assert_int_equal(net_port_mcast_join(f->b.port, &f->a.mac), -EINVAL);
	start(f);
	settle_dad(f);
	assert_true(net_ip_is_local6(f->b.ip, ll_b));
	assert_true(net_ip_is_local6(f->b.ip, global_b));
	assert_false(net_ip_is_local6(f->b.ip, other));

	/* Accepted: to its link-local, its configured address, all-nodes, solicited-node. */
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, echo6(pkt, LL_X, ll_b));
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, echo6(pkt, LL_X, global_b));
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, echo6(pkt, LL_X, all_nodes));
	n = echo6(pkt, LL_X, snm_b);
	memset(pkt + n, 0xee, 8); /* Ethernet padding past the payload: not summed */
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, n + 8);
	/* Refused, each counted once. */
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, echo6(pkt, LL_X, other));
	n = echo6(pkt, LL_X, ll_b);
	pkt[6] = IPPROTO_FRAGMENT;
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, n);
	pkt[6] = IPPROTO_DSTOPTS;
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, n);
	pkt[6] = IPPROTO_ICMPV6;
	pkt[43] ^= 0x40; /* ICMPv6 checksum */
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, n);
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, echo6(pkt, mcast_src, ll_b));
	n = echo6(pkt, LL_X, ll_b);
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, n - 1); /* payload length past the frame */
	pkt[0] = 0x40;
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, n);
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, 20);
	n = ip6_packet(pkt, IPPROTO_TCP, LL_X, ll_b, "0123456789abcdefghij", 20);
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, n); /* no IPv6 upper layer yet */
	/* Packet too big about a packet B sent. */
	memset(q, 0, sizeof(q));
	q[0] = NET_ICMP6_PACKET_TOO_BIG;
	q[6] = 0x05;
	ip6_packet(q + 8, IPPROTO_TCP, ll_b, LL_X, "\x03\xdc\x04\x00\x01\x02\x03\x04", 8);
	n = ip6_packet(pkt, IPPROTO_ICMPV6, LL_X, ll_b, q, 56);
	icmp6_seal(pkt);
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, n);
	rt_runtime_poll_until_idle(f->rt, 1000);

	is = istats(&f->b);
	assert_int_equal(is.rx_ipv6, 14);
	assert_int_equal(is.icmp6_rx, 6);
	assert_int_equal(is.icmp6_echo_rx, 4);
	assert_int_equal(is.icmp6_err_rx, 1);
	assert_int_equal(is.icmp6_bad, 1);
	assert_int_equal(is.rx6_not_ours, 1);
	assert_int_equal(is.rx6_frag, 1);
	assert_int_equal(is.rx6_ext_hdr, 1);
	assert_int_equal(is.rx6_bad_src, 1);
	assert_int_equal(is.rx6_bad_len, 1);
	assert_int_equal(is.rx6_bad_version, 1);
	assert_int_equal(is.rx6_short, 1);
	assert_int_equal(is.rx6_no_proto, 1);
	/* Nothing IPv4 was touched. */
	assert_int_equal(is.rx, 0);
	for (i = 0; i < 8 - 2; i++) {
		other[0] = 0x20;
		other[1] = (uint8_t)(i + 1);
		assert_int_equal(net_ip_addr6_add(f->b.ip, other), 0);
	}
	assert_int_equal(net_ip_addr6_add(f->b.ip, LL_X), -ENOSPC);
}

/* A solicitation for @p target from @p src to @p dst, with A's MAC as its source option when @p slla. */
static size_t
ns6(uint8_t *buf, const uint8_t src[16], const uint8_t dst[16], const uint8_t target[16],
    const struct rte_ether_addr *slla)
{
	uint8_t body[32] = { NET_ND_NS };
	size_t n;

	memcpy(body + 8, target, 16);
	if (slla != NULL) {
		body[24] = 1; /* source link-layer address, 8 bytes */
		body[25] = 1;
		memcpy(body + 26, slla, 6);
	}
	n = ip6_packet(buf, IPPROTO_ICMPV6, src, dst, body, slla != NULL ? 32 : 24);
	((struct rte_ipv6_hdr *)buf)->hop_limits = 255;
	icmp6_seal(buf);
	return n;
}

/* The next IPv6 frame B sent (A is not started: its RX ring holds them), or 0. */
static size_t
next_ipv6_from_b(struct fix *f, uint8_t *frame, size_t cap)
{
	struct rte_mbuf *m;
	size_t n = 0;

	while (n == 0 && rte_ring_dequeue(f->a.rx, (void **)&m) == 0) {
		if (rte_be_to_cpu_16(rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type) ==
		    RTE_ETHER_TYPE_IPV6) {
			n = rte_pktmbuf_pkt_len(m);
			const void *d;

			assert_true(n <= cap);
			d = rte_pktmbuf_read(m, 0, n, frame); /* copies only when segmented */
			assert_non_null(d);
			if (d != frame) {
				memcpy(frame, d, n);
			}
		}
		rte_pktmbuf_free(m);
	}
	return n;
}

/* Check the advertisement B sent: addresses, hop limit, flags, target and its MAC. */
static void
assert_na(struct fix *f, const uint8_t *fr, size_t n, const struct rte_ether_addr *eth_dst,
	  const uint8_t ip_dst[16], const uint8_t target[16], uint8_t flags)
{
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)fr;
	const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)(eh + 1);
	struct net_icmp6_view iv;
	struct net_nd_view v;

	assert_int_equal(n, 14 + 40 + NET_ND_NA_LEN);
	assert_true(rte_is_same_ether_addr(&eh->dst_addr, eth_dst));
	assert_true(rte_is_same_ether_addr(&eh->src_addr, &f->b.mac));
	assert_int_equal(h->hop_limits, 255);
	assert_memory_equal(h->src_addr, target, 16);
	assert_memory_equal(h->dst_addr, ip_dst, 16);
	assert_int_equal(net_icmp6_parse(h, h + 1, NET_ND_NA_LEN, &iv), NET_ICMP6_OK);
	assert_int_equal(net_nd_parse(h, h + 1, NET_ND_NA_LEN, &v), NET_ND_OK);
	assert_int_equal(v.type, NET_ND_NA);
	assert_int_equal(v.flags, flags);
	assert_memory_equal(v.target, target, 16);
	assert_true(v.has_lla);
	assert_true(rte_is_same_ether_addr(&v.lla, &f->b.mac));
}

static void
test_ipv6_neighbour_solicitations_answered(void **state)
{
	struct fix *f = *state;
	const uint8_t unspecified[16] = { 0 };
	const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	const struct rte_ether_addr all_nodes_mac = { .addr_bytes = { 0x33, 0x33, 0, 0, 0, 1 } };
	uint8_t ll_b[16], snm_b[16], other[16], pkt[160], fr[256];
	struct net_ip_stats is;
	size_t n;

	net_ipv6_link_local(&f->b.mac, ll_b);
	net_ipv6_solicited_node(ll_b, snm_b);
	memcpy(other, ll_b, 16);
	other[15] ^= 0x80;
	/* Only B runs: what it sends stays in A's RX ring for the test to read. */
	assert_int_equal(net_port_start(f->b.port), 0);
	settle_dad(f);
	drain_a(f);

	/* Address resolution: to B's solicited-node group, answered to the solicitor alone. */
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, ns6(pkt, LL_X, snm_b, ll_b, &f->a.mac));
	rt_runtime_poll_until_idle(f->rt, 1000);
	n = next_ipv6_from_b(f, fr, sizeof(fr));
	assert_na(f, fr, n, &f->a.mac, LL_X, ll_b, NET_ND_NA_SOLICITED | NET_ND_NA_OVERRIDE);
	/* Duplicate address detection by another node: the answer goes to all nodes. */
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, ns6(pkt, unspecified, snm_b, ll_b, NULL));
	rt_runtime_poll_until_idle(f->rt, 1000);
	n = next_ipv6_from_b(f, fr, sizeof(fr));
	assert_na(f, fr, n, &all_nodes_mac, all_nodes, ll_b, NET_ND_NA_OVERRIDE);

	/* Not answered: another target, no source MAC, a forwarded one, DAD with a MAC. */
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, ns6(pkt, LL_X, snm_b, other, &f->a.mac));
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, ns6(pkt, LL_X, ll_b, ll_b, NULL));
	n = ns6(pkt, LL_X, ll_b, ll_b, &f->a.mac);
	((struct rte_ipv6_hdr *)pkt)->hop_limits = 254;
	icmp6_seal(pkt);
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, n);
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, ns6(pkt, unspecified, snm_b, ll_b, &f->a.mac));
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(next_ipv6_from_b(f, fr, sizeof(fr)), 0);

	is = istats(&f->b);
	assert_int_equal(is.nd_ns_rx, 4);
	assert_int_equal(is.nd_na_tx, 3); /* with the announcement after DAD */
	assert_int_equal(is.nd_ns_not_ours, 1);
	assert_int_equal(is.nd_ns_no_lla, 1);
	assert_int_equal(is.nd_bad, 2);
	assert_int_equal(is.icmp6_bad, 0);
}

/* An advertisement for @p target from A, its MAC as target link-layer address. */
static size_t
na6(struct fix *f, uint8_t *buf, const uint8_t dst[16], const uint8_t target[16])
{
	uint8_t body[NET_ND_NA_LEN];
	size_t n;

	net_nd_na_fill(body, target, &f->a.mac, NET_ND_NA_OVERRIDE);
	n = ip6_packet(buf, IPPROTO_ICMPV6, LL_X, dst, body, sizeof(body));
	((struct rte_ipv6_hdr *)buf)->hop_limits = 255;
	icmp6_seal(buf);
	return n;
}

/* Check the DAD probe B sent for @p target: from ::, to its solicited-node group, no option. */
static void
assert_dad_ns(const uint8_t *fr, size_t n, const uint8_t target[16])
{
	const uint8_t unspecified[16] = { 0 };
	const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)(fr + 14);
	struct rte_ether_addr mac;
	struct net_icmp6_view iv;
	struct net_nd_view v;
	uint8_t group[16];

	net_ipv6_solicited_node(target, group);
	net_ipv6_mcast_mac(group, &mac);
	assert_int_equal(n, 14 + 40 + 24);
	assert_true(rte_is_same_ether_addr(&((const struct rte_ether_hdr *)fr)->dst_addr, &mac));
	assert_int_equal(mac.addr_bytes[2], 0xff); /* 33:33:ff:xx:xx:xx */
	assert_memory_equal(h->src_addr, unspecified, 16);
	assert_memory_equal(h->dst_addr, group, 16);
	assert_int_equal(net_icmp6_parse(h, h + 1, 24, &iv), NET_ICMP6_OK);
	assert_int_equal(net_nd_parse(h, h + 1, 24, &v), NET_ND_OK);
	assert_int_equal(v.type, NET_ND_NS);
	assert_memory_equal(v.target, target, 16);
	assert_false(v.has_lla);
}

static void
test_ipv6_dad_then_announced_and_given_up_to_another_node(void **state)
{
	struct fix *f = *state;
	const uint8_t global_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x02 };
	const uint8_t global2_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x22 };
	const uint8_t unspecified[16] = { 0 };
	const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	const struct rte_ether_addr all_nodes_mac = { .addr_bytes = { 0x33, 0x33, 0, 0, 0, 1 } };
	uint8_t ll_b[16], snm_b[16], snm2_b[16], pkt[160], fr[256];
	struct net_ip_stats is;
	size_t n;

	net_ipv6_link_local(&f->b.mac, ll_b);
	net_ipv6_solicited_node(global_b, snm_b);
	net_ipv6_solicited_node(global2_b, snm2_b);
	assert_int_equal(net_ip_addr6_add(f->b.ip, global_b), 0);
	assert_int_equal(net_ip_addr6_add(f->b.ip, global2_b), 0);
	assert_int_equal(net_port_start(f->b.port), 0); /* A stays down: its RX ring is ours */

	/* Tentative: one probe each, and meanwhile not accepted nor answered for. */
	assert_int_equal(net_ip_addr6_state(f->b.ip, ll_b), NET_IP6_TENTATIVE);
	assert_false(net_ip_is_local6(f->b.ip, global_b));
	assert_int_equal(net_ip_announce6(f->b.ip), 0);
	rt_runtime_poll_until_idle(f->rt, 1000);
	n = next_ipv6_from_b(f, fr, sizeof(fr));
	assert_dad_ns(fr, n, ll_b);
	n = next_ipv6_from_b(f, fr, sizeof(fr));
	assert_dad_ns(fr, n, global_b);
	n = next_ipv6_from_b(f, fr, sizeof(fr));
	assert_dad_ns(fr, n, global2_b);
	assert_int_equal(next_ipv6_from_b(f, fr, sizeof(fr)), 0);
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, ns6(pkt, LL_X, snm_b, global_b, &f->a.mac));
	/* Another node probing for global2_b at the same time: neither may have it. */
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, ns6(pkt, unspecified, snm2_b, global2_b, NULL));
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(next_ipv6_from_b(f, fr, sizeof(fr)), 0);
	assert_int_equal(net_ip_addr6_state(f->b.ip, global2_b), NET_IP6_DUPLICATE);

	/* Just before the wait ends nothing changed; then the others are ours and announced. */
	rt_sim_advance_us(f->rt, NET_UT_US_PER_S - 1000);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(net_ip_addr6_state(f->b.ip, global_b), NET_IP6_TENTATIVE);
	rt_sim_advance_us(f->rt, 1000);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(net_ip_addr6_state(f->b.ip, ll_b), NET_IP6_PREFERRED);
	assert_true(net_ip_is_local6(f->b.ip, global_b));
	n = next_ipv6_from_b(f, fr, sizeof(fr));
	assert_na(f, fr, n, &all_nodes_mac, all_nodes, ll_b, NET_ND_NA_OVERRIDE);
	n = next_ipv6_from_b(f, fr, sizeof(fr));
	assert_na(f, fr, n, &all_nodes_mac, all_nodes, global_b, NET_ND_NA_OVERRIDE);
	assert_int_equal(next_ipv6_from_b(f, fr, sizeof(fr)), 0);

	/* B's own advertisement coming back changes nothing; A claiming global_b does. */
	inject(f, RTE_ETHER_TYPE_IPV6, fr + 14, n - 14);
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_true(net_ip_is_local6(f->b.ip, global_b));
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, na6(f, pkt, all_nodes, global_b));
	rt_runtime_poll_until_idle(f->rt, 1000);
	assert_int_equal(net_ip_addr6_state(f->b.ip, global_b), NET_IP6_DUPLICATE);
	assert_true(net_ip_is_local6(f->b.ip, ll_b));
	assert_int_equal(net_ip_addr6_add(f->b.ip, global_b), -EEXIST);

	/* Given up: not accepted, not answered for, not announced. */
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, echo6(pkt, LL_X, global_b));
	inject(f, RTE_ETHER_TYPE_IPV6, pkt, ns6(pkt, LL_X, snm_b, global_b, &f->a.mac));
	assert_int_equal(net_ip_announce6(f->b.ip), 0);
	rt_runtime_poll_until_idle(f->rt, 1000);
	n = next_ipv6_from_b(f, fr, sizeof(fr));
	assert_na(f, fr, n, &all_nodes_mac, all_nodes, ll_b, NET_ND_NA_OVERRIDE);
	assert_int_equal(next_ipv6_from_b(f, fr, sizeof(fr)), 0);
	assert_false(net_ip_dad_pending(f->b.ip));

	is = istats(&f->b);
	assert_int_equal(is.nd_dad_ns_tx, 3);
	assert_int_equal(is.nd_na_rx, 2);
	assert_int_equal(is.nd_dup_addr, 2);
	assert_int_equal(is.nd_na_tx, 3);
	assert_int_equal(is.rx6_not_ours, 1);
	assert_int_equal(is.nd_ns_not_ours, 2);
}

/* Closing a node while its DAD waits must leave no timer behind to fire into freed memory. */
static void
test_ipv6_destroyed_while_dad_waits(void **state)
{
	struct fix *f = *state;

	start(f);
	assert_int_equal(net_ip_announce6(f->b.ip), 0);
	assert_true(net_ip_dad_pending(f->b.ip));
	node_close(&f->b);
	memset(&f->b, 0, sizeof(f->b)); /* teardown closes nothing twice */
	rt_sim_advance_us(f->rt, 2 * NET_UT_US_PER_S);
	rt_runtime_poll_until_idle(f->rt, 1000);
}

int
main(void)
{
	const struct CMUnitTest one_lcore[] = {
		cmocka_unit_test_setup_teardown(test_port_states_and_negotiation, setup1, teardown),
		cmocka_unit_test_setup_teardown(test_arp_both_ways_then_echo, setup1, teardown),
		cmocka_unit_test_setup_teardown(test_gratuitous_arp_on_start_and_new_address,
						setup1, teardown),
		cmocka_unit_test_setup_teardown(test_entry_ages_reprobes_and_goes, setup1,
						teardown),
		cmocka_unit_test_setup_teardown(test_unresolved_queue_is_bounded_then_fails, setup1,
						teardown),
		cmocka_unit_test_setup_teardown(test_malformed_frames_counted_and_dropped, setup1,
						teardown),
		cmocka_unit_test_setup_teardown(test_icmp_frag_needed_reaches_upper_layer, setup1,
						teardown),
		cmocka_unit_test(test_parsers_refuse_what_they_must),
		cmocka_unit_test(test_ipv6_parsers_and_addresses),
		cmocka_unit_test_setup_teardown(test_ipv6_input_counted_and_filtered, setup1,
						teardown),
		cmocka_unit_test_setup_teardown(test_ipv6_neighbour_solicitations_answered, setup1,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_ipv6_dad_then_announced_and_given_up_to_another_node, setup1,
			teardown),
		cmocka_unit_test_setup_teardown(test_ipv6_destroyed_while_dad_waits, setup1,
						teardown),
	};
	const struct CMUnitTest two_lcores[] = {
		cmocka_unit_test_setup_teardown(test_single_queue_steers_to_owner_lcore, setup2,
						teardown),
		cmocka_unit_test_setup_teardown(test_queue_per_lcore_keeps_flows_on_their_lcore,
						setup2q, teardown),
	};
	struct lnp_test_eal_args a;
	int rc;

	lnp_test_eal_args_init(&a, "net-ut", "0");
	if (rte_eal_init(a.argc, a.argv) < 0) {
		return 1;
	}
	rc = cmocka_run_group_tests_name("net, one data lcore", one_lcore, NULL, NULL);
	rc += cmocka_run_group_tests_name("net, two data lcores", two_lcores, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
