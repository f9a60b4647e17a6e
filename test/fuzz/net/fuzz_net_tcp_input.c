/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP's input path (drivers/net/tcp) on arbitrary segments: two stacks over
 * net_ring rings on the simulated runtime, as in test/unit/net/test_net_tcp.c;
 * B listens and holds an established connection from A. Each input is a TCP
 * segment (header and payload, any bytes) that arrives at B behind a valid
 * Ethernet and IPv4 header, either at the listener (from a port of the
 * input's choosing) or on the established connection's 4-tuple, its sequence
 * and acknowledgment numbers optionally made relative to the connection's so
 * that the in-window paths are reached. The first byte chooses:
 *   bit 0: the established connection (else the listener's port);
 *   bit 1: seq as an offset (0..65535) from what B expects next, ack as
 *          one (-32768..32767) from what B sent next;
 *   bit 2: keep the input's TCP checksum (else it is made right);
 *   bit 3: SACK blocks' edges as offsets (0..65535) from what A has from B;
 *   bit 4: B first queues 8 KiB to A, which A never gets (its RX drops B's
 *          data): B holds data in flight for the input to acknowledge,
 *          SACK and so drive B's loss recovery.
 * Sanitizers find what goes wrong; the checks below are what must hold.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define IP4(a, b, c, d) \
	rte_cpu_to_be_32((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define IP_A IP4(10, 0, 0, 1)
#define IP_B IP4(10, 0, 0, 2)
#define PORT_B 988
#define SEG_MAX 1460 /* a segment within the ports' MTU */

#define IN_CONN 0x1
#define IN_RELATIVE 0x2
#define IN_RAW_CKSUM 0x4
#define IN_SACK_RELATIVE 0x8
#define IN_B_SENDS 0x10
#define B_SEND_BYTES 8192

struct node {
	uint16_t port_id;
	struct net_port *port;
	struct net_neigh *nb;
	struct net_ip *ip;
	struct net_tcp *tcp;
};

/* One end of the connection, as its callback sees it. */
struct end {
	struct net_tcp_conn *c;
	bool up;
};

static struct {
	struct rt_runtime *rt;
	struct rte_ring *ab, *ba; /* what A sends B receives, and back */
	struct node a, b;
	struct end ea, eb;
	/* Connections the listener accepted past B's end: aborted after the poll. */
	struct net_tcp_conn *extra[64];
	unsigned int n_extra;
} g;

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_net_tcp_input: %s\n", what);
	__builtin_trap();
}

/* Read all that is readable: the window stays open for the next input. */
static void
drain(struct net_tcp_conn *c)
{
	struct net_tcp_view v;

	while (net_tcp_peek(c, &v) == 1) {
		if (v.data == NULL || v.len == 0) {
			fail("an empty view");
		}
		net_tcp_consume(c, v.len);
	}
}

static void
on_event(void *arg, struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n)
{
	struct end *e = arg;

	(void)n;
	switch (ev) {
	case NET_TCP_EV_ACCEPT:
		/* The first is B's end; others are aborted after the poll, not inside their input. */
		if (g.eb.c == NULL) {
			g.eb.c = c;
			g.eb.up = true;
			net_tcp_set_cb(c, on_event, &g.eb);
		} else {
			net_tcp_set_cb(c, on_event, NULL);
			if (g.n_extra < RTE_DIM(g.extra)) {
				g.extra[g.n_extra++] = c;
			}
		}
		break;
	case NET_TCP_EV_CONNECTED:
		if (e != NULL) {
			e->up = true;
		}
		break;
	case NET_TCP_EV_READABLE:
		drain(c);
		break;
	case NET_TCP_EV_CLOSED:
		if (e != NULL && e->c == c) {
			e->up = false;
		}
		break;
	default:
		break;
	}
}

static void
node_open(struct node *n, const char *tag, struct rte_ring *rx, struct rte_ring *tx, uint32_t addr)
{
	struct net_port_conf pc = { .conf_size = sizeof(pc), .nb_mbufs = 8191 };
	struct net_neigh_conf nc = { .conf_size = sizeof(nc) };
	struct net_ip_conf ic = { .conf_size = sizeof(ic) };
	struct net_tcp_conf tc = { .conf_size = sizeof(tc), .time_wait_us = 1000 };
	struct rte_ether_addr mac = { .addr_bytes = { 0x02, 0, 0, 1, 0, (uint8_t)tag[0] } };
	struct rte_ring *rxs[1] = { rx }, *txs[1] = { tx };
	char name[32];
	int id;

	snprintf(name, sizeof(name), "fz_tcp_%s", tag);
	id = rte_eth_from_rings(name, rxs, 1, txs, 1, SOCKET_ID_ANY);
	if (id < 0) {
		fail("ring port");
	}
	pc.mac = &mac;
	pc.port_id = (uint16_t)id;
	n->port_id = (uint16_t)id;
	if (net_port_open(g.rt, &pc, &n->port) != 0 ||
	    net_neigh_create(n->port, &nc, &n->nb) != 0 || net_ip_create(n->nb, &ic, &n->ip) != 0 ||
	    net_neigh_addr_add(n->nb, addr, 24) != 0 ||
	    net_tcp_create(n->nb, n->ip, &tc, &n->tcp) != 0) {
		fail("node");
	}
}

static int
do_listen(void *arg)
{
	(void)arg;
	return net_tcp_listen(g.b.tcp, 0, PORT_B, on_event, &g.eb);
}

/* Release both ends (a closed one is freed, a live one reset) and connect again. */
static int
do_reconnect(void *arg)
{
	(void)arg;
	if (g.ea.c != NULL) {
		net_tcp_abort(g.ea.c);
	}
	if (g.eb.c != NULL) {
		net_tcp_abort(g.eb.c);
	}
	memset(&g.ea, 0, sizeof(g.ea));
	memset(&g.eb, 0, sizeof(g.eb));
	return net_tcp_connect(g.a.tcp, 0, IP_B, PORT_B, 512, 1023, on_event, &g.ea, &g.ea.c);
}

static int
do_b_send(void *arg)
{
	static const uint8_t zeros[B_SEND_BYTES];

	(void)arg;
	return g.eb.up && net_tcp_send(g.eb.c, zeros, sizeof(zeros)) < 0 ? -1 : 0;
}

/* A's RX: B's data never reaches A's stack, so it stays in flight at B. */
static uint16_t
drop_b_data(uint16_t port_id, uint16_t queue, struct rte_mbuf *pkts[], uint16_t nb, uint16_t max,
	    void *arg)
{
	uint16_t kept = 0;

	(void)port_id;
	(void)queue;
	(void)max;
	(void)arg;
	for (uint16_t i = 0; i < nb; i++) {
		const struct rte_ipv4_hdr *ip;
		const struct rte_tcp_hdr *th;
		size_t l3 = sizeof(struct rte_ether_hdr);

		if (rte_pktmbuf_data_len(pkts[i]) >= l3 + sizeof(*ip) + sizeof(*th)) {
			ip = rte_pktmbuf_mtod_offset(pkts[i], const struct rte_ipv4_hdr *, l3);
			th = (const struct rte_tcp_hdr *)(ip + 1);
			if (ip->next_proto_id == IPPROTO_TCP &&
			    rte_be_to_cpu_16(ip->total_length) >
				    sizeof(*ip) + (size_t)(th->data_off >> 4) * 4) {
				rte_pktmbuf_free(pkts[i]);
				continue;
			}
		}
		pkts[kept++] = pkts[i];
	}
	return kept;
}

static int
do_abort_extras(void *arg)
{
	(void)arg;
	while (g.n_extra > 0) {
		net_tcp_abort(g.extra[--g.n_extra]);
	}
	return 0;
}

static int
call(rt_call_fn fn)
{
	return rt_lcore_call(rt_data_lcore(g.rt, 0), fn, NULL);
}

static bool
pair_up(void *arg)
{
	(void)arg;
	return g.ea.up && g.eb.up;
}

static void
ensure_pair(void)
{
	if (g.ea.up && g.eb.up && strcmp(net_tcp_state_name(g.eb.c), "established") == 0 &&
	    strcmp(net_tcp_state_name(g.ea.c), "established") == 0) {
		return;
	}
	if (call(do_reconnect) != 0) {
		fail("connect");
	}
	/* Virtual time: a SYN lost to an earlier input's state is sent again. */
	if (!rt_wait_until(g.rt, pair_up, NULL, 120ULL * 1000 * 1000)) {
		fail("no connection");
	}
}

static void
init_once(void)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_SIM, .n_data = 1 };
	struct lnp_test_eal_args a;

	lnp_test_eal_args_init(&a, "fz-tcp", "0");
	if (rte_eal_init(a.argc, a.argv) < 0 || rt_runtime_create(&o, &g.rt) != 0) {
		fail("init");
	}
	g.ab = rte_ring_create("fz_tcp_ab", 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	g.ba = rte_ring_create("fz_tcp_ba", 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (g.ab == NULL || g.ba == NULL) {
		fail("rings");
	}
	node_open(&g.a, "a", g.ba, g.ab, IP_A);
	node_open(&g.b, "b", g.ab, g.ba, IP_B);
	if (rte_eth_add_rx_callback(g.a.port_id, 0, drop_b_data, NULL) == NULL) {
		fail("rx callback");
	}
	if (net_port_start(g.a.port) != 0 || net_port_start(g.b.port) != 0) {
		fail("start");
	}
	rt_runtime_poll_until_idle(g.rt, 1000);
	if (call(do_listen) != 0) {
		fail("listen");
	}
}

/* SACK blocks' edges made offsets from @p base (bit 3). */
static void
sack_relative(struct rte_tcp_hdr *th, size_t len, uint32_t base)
{
	uint8_t *o = (uint8_t *)(th + 1);
	size_t olen = RTE_MIN((size_t)(th->data_off >> 4) * 4, len);

	olen = olen > sizeof(*th) ? olen - sizeof(*th) : 0;
	for (size_t i = 0; i + 1 < olen;) {
		if (o[i] == 0) {
			return;
		}
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (o[i + 1] < 2 || i + o[i + 1] > olen) {
			return;
		}
		for (size_t k = i + 2; o[i] == 5 && k + 4 <= i + o[i + 1]; k += 4) {
			uint32_t e;

			memcpy(&e, &o[k], 4);
			e = rte_cpu_to_be_32(base + rte_be_to_cpu_32(e) % 65536);
			memcpy(&o[k], &e, 4);
		}
		i += o[i + 1];
	}
}

/* The segment, behind Ethernet and IPv4 from A to B, into B's receive ring. */
static void
inject(uint8_t how, const uint8_t *seg, size_t len)
{
	struct rte_mbuf *m = net_port_alloc(g.a.port);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;

	if (m == NULL) {
		fail("no mbuf");
	}
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eh) + sizeof(*ip) + len);
	if (eh == NULL) {
		fail("mbuf room");
	}
	eh->dst_addr = net_port_info(g.b.port)->mac;
	eh->src_addr = net_port_info(g.a.port)->mac;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + len));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = IP_A;
	ip->dst_addr = IP_B;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	th = (struct rte_tcp_hdr *)(ip + 1);
	memcpy(th, seg, len);
	if (len >= sizeof(*th)) {
		if (how & IN_CONN) {
			struct net_tcp_info ia;

			net_tcp_get_info(g.ea.c, &ia);
			th->src_port = rte_cpu_to_be_16(ia.lport);
			th->dst_port = rte_cpu_to_be_16(ia.rport);
			if (how & IN_RELATIVE) {
				th->sent_seq = rte_cpu_to_be_32(
					ia.snd_nxt + rte_be_to_cpu_32(th->sent_seq) % 65536);
				th->recv_ack = rte_cpu_to_be_32(
					ia.rcv_nxt + rte_be_to_cpu_32(th->recv_ack) % 65536 -
					32768);
			}
			if (how & IN_SACK_RELATIVE) {
				sack_relative(th, len, ia.rcv_nxt);
			}
		} else {
			th->dst_port = rte_cpu_to_be_16(PORT_B);
		}
		if (!(how & IN_RAW_CKSUM)) {
			th->cksum = 0;
			th->cksum = rte_ipv4_udptcp_cksum(ip, th);
		}
	}
	if (rte_ring_enqueue(g.ab, m) != 0) {
		fail("ring full");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	static bool ready;
	struct net_tcp_info before, after;
	uint8_t how;

	if (size < 1 || size - 1 > SEG_MAX) {
		return 0;
	}
	if (!ready) {
		init_once();
		ready = true;
	}
	ensure_pair();
	how = in[0];
	if (how & IN_B_SENDS) {
		if (call(do_b_send) != 0) {
			fail("B's send");
		}
		rt_runtime_poll_until_idle(g.rt, 1000);
	}
	net_tcp_get_info(g.eb.c, &before);
	inject(how, in + 1, size - 1);
	rt_runtime_poll_until_idle(g.rt, 1000);
	call(do_abort_extras);
	rt_runtime_poll_until_idle(g.rt, 1000);
	if (g.eb.up) {
		/* What B has received in order never goes back. */
		net_tcp_get_info(g.eb.c, &after);
		if ((int32_t)(after.rcv_nxt - before.rcv_nxt) < 0) {
			fail("rcv_nxt went back");
		}
	}
	if (net_tcp_conn_count(g.b.tcp, 0) > 4096) {
		fail("connections pile up");
	}
	return 0;
}
