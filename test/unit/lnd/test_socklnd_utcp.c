/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socklnd on the userspace TCP (sock_be_utcp.c): a socklnd NI on
 * stack A (10.0.0.1, a net_ring port named "utcp_a") and a ksocklnd peer
 * played by the test on stack B (10.0.0.2), written here against net_tcp
 * alone: it connects to A's acceptor, sends the connection request and a
 * V3 hello, PUTs, GETs, and receives a PUT, checking every byte. The two
 * ports are joined back to back by rings; LNet, the ports and both TCPs
 * run inline on the test's thread (the simulated runtime), so each step
 * waits for its condition, never for a time.
 */
#include <arpa/inet.h>
#include <errno.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "lnd_ut.h"
#include "lnet_ut.h"
#include "lnp_test.h"
#include "lnp_test_nid.h"
#include "net_ip.h"
#include "net_neigh.h"
#include "net_port.h"
#include "net_tcp.h"
#include "sock_stream.h"
#include "sock_tx.h"
#include "socklnd.h"
#include "socklnd_internal.h"

#define ADDR_A 0x0a000001U /* 10.0.0.1@tcp: our NI */
#define ADDR_B 0x0a000002U /* 10.0.0.2@tcp: the peer */
#define ACCEPTOR 988

struct stack {
	struct net_port *port;
	struct net_neigh *nb;
	struct net_ip *ip;
	struct net_tcp *tcp;
};

static struct rte_ring *g_ab, *g_ba;
static struct stack g_a, g_b;
static unsigned int g_seq;

/* ---- the peer, on stack B ---- */

struct peer {
	struct net_tcp_conn *c;
	bool connected;
	bool closed;
	uint64_t err;
	uint8_t rx[65536];
	size_t have; /* received, not yet consumed by the test */
};

static struct peer g_p;

static void
peer_drain(struct peer *p)
{
	struct net_tcp_view v;

	while (net_tcp_peek(p->c, &v) == 1) {
		assert_true(p->have + v.len <= sizeof(p->rx));
		memcpy(p->rx + p->have, v.data, v.len);
		p->have += v.len;
		net_tcp_consume(p->c, v.len);
	}
}

static void
peer_event(void *arg, struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n)
{
	struct peer *p = arg;

	(void)c;
	switch (ev) {
	case NET_TCP_EV_CONNECTED:
		p->connected = true;
		break;
	case NET_TCP_EV_READABLE:
		peer_drain(p);
		break;
	case NET_TCP_EV_CLOSED:
		p->closed = true;
		p->err = n;
		break;
	default:
		break;
	}
}

static int
peer_connect_on_lcore(void *arg)
{
	(void)arg;
	return net_tcp_connect(g_b.tcp, 0, htonl(ADDR_A), ACCEPTOR, 512, 1023, peer_event, &g_p,
			       &g_p.c);
}

/* B's acceptor: the connection the node opens becomes the peer's. */
static void
peer_listen_event(void *arg, struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n)
{
	struct peer *p = arg;

	(void)n;
	if (ev == NET_TCP_EV_ACCEPT) {
		p->c = c;
		p->connected = true;
		net_tcp_set_cb(c, peer_event, p);
		peer_drain(p); /* what came with the handshake's last ACK */
	}
}

static int
peer_listen_on_lcore(void *arg)
{
	(void)arg;
	return net_tcp_listen(g_b.tcp, 0, ACCEPTOR, peer_listen_event, &g_p);
}

struct peer_tx {
	const uint8_t *buf;
	size_t len;
	size_t done;
};

static int
peer_send_on_lcore(void *arg)
{
	struct peer_tx *t = arg;
	long r = net_tcp_send(g_p.c, t->buf + t->done, t->len - t->done);

	assert_true(r >= 0);
	t->done += (size_t)r;
	return 0;
}

/* All of @p buf onto the peer's connection (the send buffer drains as A acknowledges). */
static void
peer_send(const void *buf, size_t len)
{
	struct peer_tx t = { buf, len, 0 };
	struct rt_lcore *lc = rt_data_lcore(lnet_instance()->rt, 0);

	PUMP_UNTIL("the peer's bytes taken",
		   rt_lcore_call(lc, peer_send_on_lcore, &t) == 0 && t.done == len);
}

/* Wait until @p n received bytes are there; take them into @p out. */
static void
peer_recv(void *out, size_t n, const char *what)
{
	PUMP_UNTIL(what, g_p.have >= n);
	memcpy(out, g_p.rx, n);
	memmove(g_p.rx, g_p.rx + n, g_p.have - n);
	g_p.have -= n;
}

/* One message framed as ksocklnd V3 frames it (sock_tx_prepare), sent whole by the peer. */
static void
peer_send_msg(const struct ksock_msg *km, const struct lnet_hdr *h, const void *payload,
	      unsigned int len)
{
	static uint8_t b[70000];
	struct iovec iov = { (void *)payload, len };
	struct sock_tx tx;

	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, km, h, len ? &iov : NULL, 1, 0, len,
					 NULL),
			 0);
	assert_true(tx.hdr_len + len <= sizeof(b));
	memcpy(b, tx.hdr, tx.hdr_len);
	if (len > 0) {
		memcpy(b + tx.hdr_len, payload, len);
	}
	peer_send(b, tx.hdr_len + len);
}

/* The next LNET message from the node: its headers, and its payload into @p payload. */
static void
peer_recv_lnet(struct ksock_msg *km, struct lnet_hdr *h, void *payload, size_t cap)
{
	uint8_t b[24 + 72];

	for (;;) {
		peer_recv(b, 24, "a ksock header from the node");
		assert_int_equal(ksock_msg_hdr_decode(b, 24, false, km), 0);
		if (km->type == KSOCK_MSG_LNET) {
			break;
		}
		/* a NOOP (a zero-copy ACK or a keepalive): not what we wait for */
	}
	peer_recv(b + 24, 72, "an LNet header from the node");
	assert_int_equal(lnet_hdr_decode_nid4(b + 24, 72, h), 0);
	assert_true(h->payload_length <= cap);
	peer_recv(payload, h->payload_length, "the payload from the node");
}

static uint8_t
pattern(size_t i, uint8_t salt)
{
	return (uint8_t)(i * 13 + salt + (i >> 9));
}

static void
fill(uint8_t *b, size_t n, uint8_t salt)
{
	for (size_t i = 0; i < n; i++) {
		b[i] = pattern(i, salt);
	}
}

/* ---- the fixture: two stacks on LNet's runtime, a socklnd NI on A ---- */

static uint16_t
ring_port(const char *tag, struct rte_ring *rx, struct rte_ring *tx)
{
	struct rte_ring *rxs[1] = { rx }, *txs[1] = { tx };
	char name[32];
	int id;

	snprintf(name, sizeof(name), "sockx_%s%u", tag, g_seq);
	id = rte_eth_from_rings(name, rxs, 1, txs, 1, SOCKET_ID_ANY);
	assert_true(id >= 0);
	return (uint16_t)id;
}

/* A port's link callback, given the port's name as the daemon gives it (lnetd_ports.c). */
static void
stack_link(void *arg, struct net_port *port, bool up, uint32_t speed_mbps)
{
	(void)port;
	(void)speed_mbps;
	sock_utcp_port_link(arg, up);
}

static void
stack_open(struct stack *s, const char *tag, struct rte_ring *rx, struct rte_ring *tx,
	   uint32_t addr)
{
	static char name_a[] = "utcp_a";
	struct net_port_conf pc = {
		.conf_size = sizeof(pc), .nb_mbufs = 4095, .link_fn = stack_link, .link_arg = name_a
	}; /* B is not named: its reports are ignored */
	struct net_neigh_conf nc = { .conf_size = sizeof(nc) };
	struct net_ip_conf ic = { .conf_size = sizeof(ic) };
	struct net_tcp_conf tc = { .conf_size = sizeof(tc) };
	struct rte_ether_addr mac = { .addr_bytes = { 0x02, 0, 0, 2, (uint8_t)g_seq,
						      (uint8_t)tag[0] } };

	pc.mac = &mac;
	pc.port_id = ring_port(tag, rx, tx);
	assert_int_equal(net_port_open(lnet_instance()->rt, &pc, &s->port), 0);
	assert_int_equal(net_neigh_create(s->port, &nc, &s->nb), 0);
	assert_int_equal(net_ip_create(s->nb, &ic, &s->ip), 0);
	assert_int_equal(net_neigh_addr_add(s->nb, htonl(addr), 24), 0);
	assert_int_equal(net_tcp_create(s->nb, s->ip, &tc, &s->tcp), 0);
}

static void
stack_close(struct stack *s)
{
	net_port_close(s->port);
	net_tcp_destroy(s->tcp);
	net_ip_destroy(s->ip);
	net_neigh_destroy(s->nb);
}

static struct lnet_ni *g_ni;
static const char *g_params = "accept_port=988"; /* the socklnd's, for the next setup */

static int
add_ni_on_mgmt(void *arg)
{
	struct lnet_ni_tunables tun = { .peer_tx_credits = 8,
					.max_tx_credits = 256,
					.peer_timeout = 180 };
	struct lnet_nid nid = lnp_tcp_nid(ADDR_A);
	char err[160];

	(void)arg;
	socklnd_params_reset();
	assert_int_equal(socklnd_params_set(g_params, err, sizeof(err)), 0);
	return lnet_ni_add(lnet_instance(), &nid, socklnd_lnd_ops(), &tun, NULL, 0, &g_ni);
}

static int
setup(void **state)
{
	char name[32];

	(void)state;
	memset(&g_p, 0, sizeof(g_p));
	g_seq++;
	ut_up(1);
	ut_discovery(0);
	snprintf(name, sizeof(name), "sockx_ab%u", g_seq);
	g_ab = rte_ring_create(name, 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "sockx_ba%u", g_seq);
	g_ba = rte_ring_create(name, 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(g_ab);
	assert_non_null(g_ba);
	stack_open(&g_a, "a", g_ba, g_ab, ADDR_A);
	stack_open(&g_b, "b", g_ab, g_ba, ADDR_B);
	assert_int_equal(net_port_start(g_a.port), 0);
	assert_int_equal(net_port_start(g_b.port), 0);
	/* No interface given to the NI: the port holding its address is its transport. */
	assert_int_equal(sock_utcp_port_add("utcp_a", htonl(ADDR_A), g_a.tcp), 0);
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_ni_on_mgmt, NULL),
			 0);
	settle();
	return 0;
}

static int
teardown(void **state)
{
	struct lnet_nid our = lnp_tcp_nid(ADDR_A);

	/* The NI closes its connections on its lcore, then the ports go, then LNet's runtime. */
	assert_int_equal(lnet_ni_del(lnet_instance(), &our), 0);
	settle();
	sock_utcp_port_del("utcp_a");
	stack_close(&g_a);
	stack_close(&g_b);
	ut_teardown(state);
	rte_ring_free(g_ab);
	rte_ring_free(g_ba);
	return 0;
}

static int
stats_on_lcore(void *arg)
{
	socklnd_stats_get(g_ni, arg);
	return 0;
}

static struct socklnd_stats
sock_stats(void)
{
	struct socklnd_stats st;

	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, stats_on_lcore, &st), 0);
	return st;
}

/* The peer connects and says its V3 hello; the node answers with its own, over A's TCP. */
static void
peer_handshake(void)
{
	struct ksock_hello me = { .src_pid = LNET_PID_LUSTRE,
				  .src_incarnation = 42,
				  .ctype = SOCKLND_CONN_CONTROL,
				  .version = KSOCK_PROTO_V3 };
	struct lnet_nid target = lnp_tcp_nid(ADDR_A);
	struct ksock_hello answer;
	uint8_t b[128];
	size_t n = 0;
	size_t h = 0;

	me.src_nid = lnp_tcp_nid(ADDR_B);
	me.dst_nid = target;
	assert_int_equal(rt_lcore_call(rt_data_lcore(lnet_instance()->rt, 0), peer_connect_on_lcore,
				       NULL),
			 0);
	PUMP_UNTIL("the peer's TCP connected to the node's acceptor", g_p.connected || g_p.closed);
	assert_true(g_p.connected);
	assert_int_equal(ksock_connreq_encode(&target, b, sizeof(b), &n), 0);
	assert_int_equal(ksock_proto_v3.hello_encode(&me, b + n, sizeof(b) - n, &h), 0);
	peer_send(b, n + h);
	peer_recv(b, 56, "the node's hello in answer");
	assert_int_equal(ksock_proto_v3.hello_decode(b, 56, &answer, &n), 0);
	assert_int_equal(lnet_nid_to_nid4(&answer.src_nid), LNET_MKNID(LNET_MKNET(2, 0), ADDR_A));
	assert_int_equal(answer.ctype, SOCKLND_CONN_CONTROL);
}

static struct lnet_hdr
peer_hdr(enum lnet_msg_type type)
{
	struct lnet_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = type;
	h.src_nid = lnp_tcp_nid(ADDR_B);
	h.dest_nid = lnp_tcp_nid(ADDR_A);
	h.src_pid = h.dest_pid = LNET_PID_LUSTRE;
	return h;
}

/*
 * Hello, then a 6000-byte PUT into an MD (read out of the TCP's segments
 * straight into it), a 5000-byte GET of another MD (the REPLY's bytes go
 * out through A's TCP and complete on the peer's ACK), and a PUT from the
 * node to the peer: every byte checked on the side that received it.
 */
static void
test_hello_put_get_over_utcp(void **state)
{
	static uint8_t put_src[6000], put_dst[6000];
	static uint8_t get_src[5000], got[16384];
	static uint8_t out_src[5000];
	struct lnet_md dst_md = ut_md(put_dst, sizeof(put_dst), LNET_MD_THRESH_INF, LNET_MD_OP_PUT);
	struct lnet_md get_md = ut_md(get_src, sizeof(get_src), LNET_MD_THRESH_INF, LNET_MD_OP_GET);
	struct lnet_processid to = { LNET_PID_LUSTRE, lnp_tcp_nid(ADDR_B) };
	struct socklnd_stats st;
	struct lnet_event ev;
	struct ksock_msg km;
	struct lnet_hdr h;
	struct net_tcp_stats ts;

	(void)state;
	fill(put_src, sizeof(put_src), 1);
	fill(get_src, sizeof(get_src), 2);
	fill(out_src, sizeof(out_src), 3);
	ut_attach(&dst_md, 0x11, 0, LNET_INS_AFTER, LNET_RETAIN);
	ut_attach(&get_md, 0x22, 0, LNET_INS_AFTER, LNET_RETAIN);
	peer_handshake();

	/* PUT asking for an ACK: the bytes land in the MD, the ACK comes back. */
	h = peer_hdr(LNET_MSG_PUT);
	h.payload_length = sizeof(put_src);
	h.msg.put.match_bits = 0x11;
	h.msg.put.ptl_index = UT_PORTAL;
	h.msg.put.ack_wmd.wh_interface_cookie = 0xabc;
	h.msg.put.ack_wmd.wh_object_cookie = 0xdef;
	peer_send_msg(NULL, &h, put_src, sizeof(put_src));
	PUMP_UNTIL("the PUT's event", (ev = ut_event()).type != 0);
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.mlength, sizeof(put_src));
	assert_memory_equal(put_dst, put_src, sizeof(put_src));
	peer_recv_lnet(&km, &h, got, sizeof(got));
	assert_int_equal(h.type, LNET_MSG_ACK);
	assert_int_equal(h.msg.ack.dst_wmd.wh_interface_cookie, 0xabc);
	assert_int_equal(h.msg.ack.dst_wmd.wh_object_cookie, 0xdef);
	assert_int_equal(h.msg.ack.mlength, sizeof(put_src));

	/* GET: the REPLY carries the MD's bytes. */
	h = peer_hdr(LNET_MSG_GET);
	h.msg.get.return_wmd.wh_object_cookie = 0x77;
	h.msg.get.match_bits = 0x22;
	h.msg.get.ptl_index = UT_PORTAL;
	h.msg.get.sink_length = sizeof(get_src);
	peer_send_msg(NULL, &h, NULL, 0);
	peer_recv_lnet(&km, &h, got, sizeof(got));
	assert_int_equal(h.type, LNET_MSG_REPLY);
	assert_int_equal(h.msg.reply.dst_wmd.wh_object_cookie, 0x77);
	assert_int_equal(h.payload_length, sizeof(get_src));
	assert_memory_equal(got, get_src, sizeof(get_src));
	/* The GET's event comes once the REPLY completed: the peer's TCP acknowledged it. */
	PUMP_UNTIL("the GET's event", (ev = ut_event()).type != 0);
	assert_int_equal(ev.type, LNET_EVENT_GET);

	/* The node's PUT to the peer goes on the connection the peer opened. */
	assert_int_equal(LNetPut(NULL, ut_bind(out_src, sizeof(out_src), 1), LNET_NOACK_REQ, &to,
				 UT_PORTAL, 0x33, 0, 0),
			 0);
	peer_recv_lnet(&km, &h, got, sizeof(got));
	assert_int_equal(h.type, LNET_MSG_PUT);
	assert_int_equal(h.msg.put.match_bits, 0x33);
	assert_int_equal(h.payload_length, sizeof(out_src));
	assert_memory_equal(got, out_src, sizeof(out_src));
	PUMP_UNTIL("the node's SEND event", (ev = ut_event()).type != 0);
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);

	st = sock_stats();
	assert_int_equal(st.accepted, 1);
	assert_int_equal(st.conns_up, 1);
	assert_int_equal(st.proto_errors, 0);
	/* It all went over the userspace TCP: A's stack counted the connection. */
	net_tcp_stats(g_a.tcp, &ts);
	assert_int_equal(ts.opened, 1);
	assert_true(ts.rx > 10);
}

/* The simulated clock past the ports' link poll (100 ms), which then runs. */
static void
link_poll_passes(void)
{
	rt_sim_advance_us(lnet_instance()->rt, 200 * 1000);
	settle();
}

static bool
ni_down(void)
{
	return lnet_ni_wire_status(g_ni) == LNET_NI_STATUS_DOWN;
}

/* The peer PUTs @p len bytes of @p src matching 0x11 (no ACK); the node's PUT event checked. */
static void
peer_put(const uint8_t *src, unsigned int len, const char *what)
{
	struct lnet_hdr h = peer_hdr(LNET_MSG_PUT);
	struct lnet_event ev;

	h.payload_length = len;
	h.msg.put.match_bits = 0x11;
	h.msg.put.ptl_index = UT_PORTAL;
	memset(&h.msg.put.ack_wmd, 0xff, sizeof(h.msg.put.ack_wmd)); /* no ACK wanted */
	peer_send_msg(NULL, &h, src, len);
	PUMP_UNTIL(what, (ev = ut_event()).type != 0);
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.mlength, len);
}

/*
 * The port's link is the NI's, as a socket NI's interface link is (the
 * daemon hands net_port's link callback to sock_utcp_port_link, as
 * stack_open does): A's port down, the NI goes down and its connection
 * closes; up again, the NI is up and a new connection carries a PUT.
 */
static void
test_port_link_drives_ni(void **state)
{
	static uint8_t src[3000], dst[2 * 3000]; /* each PUT lands after the last (local offset) */
	struct lnet_md md = ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF, LNET_MD_OP_PUT);
	uint16_t port_a = net_port_info(g_a.port)->port_id;
	struct socklnd_stats st;

	(void)state;
	ut_attach(&md, 0x11, 0, LNET_INS_AFTER, LNET_RETAIN);
	fill(src, sizeof(src), 4);
	peer_handshake();
	peer_put(src, sizeof(src), "the PUT's event, the link up");
	assert_memory_equal(dst, src, sizeof(src));
	assert_false(ni_down());

	assert_int_equal(rte_eth_dev_set_link_down(port_a), 0);
	link_poll_passes();
	assert_int_equal(net_port_state(g_a.port), NET_PORT_LINK_DOWN);
	PUMP_UNTIL("the NI down with its port's link", ni_down());
	PUMP_UNTIL("the node's connection closed", sock_stats().conns_closed == 1);
	assert_int_equal(sock_stats().link_changes, 1);

	assert_int_equal(rte_eth_dev_set_link_up(port_a), 0);
	link_poll_passes();
	PUMP_UNTIL("the NI up with its port's link", !ni_down());
	memset(&g_p, 0, sizeof(g_p));
	fill(src, sizeof(src), 5);
	peer_handshake();
	peer_put(src, sizeof(src), "the PUT's event, the link up again");
	assert_memory_equal(dst + sizeof(src), src, sizeof(src));
	st = sock_stats();
	assert_int_equal(st.link_changes, 2);
	assert_int_equal(st.conns_up, 2);
}

/* The bytes received so far hold a whole connection request and V3 hello: their sizes, or 0. */
static size_t
peer_connreq_hello(struct ksock_connreq *cr, struct ksock_hello *hello)
{
	size_t used = 0;
	size_t h = 0;

	if (ksock_connreq_decode(g_p.rx, g_p.have, cr, &used) != 0 ||
	    ksock_proto_v3.hello_decode(g_p.rx + used, g_p.have - used, hello, &h) != 0) {
		return 0;
	}
	return used + h;
}

/*
 * The node opens the connection: a PUT to the peer's NID connects from a
 * privileged port of A's TCP to B's acceptor (typed_conns=0: one ANY
 * connection), says its request and hello; the peer answers, and the PUT's
 * bytes arrive whole; the SEND event follows the peer's ACK of them.
 */
static void
test_node_connects_over_utcp(void **state)
{
	static uint8_t out_src[9000], got[16384];
	struct lnet_processid to = { LNET_PID_LUSTRE, lnp_tcp_nid(ADDR_B) };
	struct ksock_hello me = { .src_pid = LNET_PID_LUSTRE,
				  .src_incarnation = 7,
				  .ctype = SOCKLND_CONN_ANY,
				  .version = KSOCK_PROTO_V3 };
	struct ksock_connreq cr;
	struct ksock_hello hello;
	struct net_tcp_info info;
	struct lnet_event ev;
	struct ksock_msg km;
	struct lnet_hdr h;
	uint8_t b[128];
	size_t n = 0;

	(void)state;
	fill(out_src, sizeof(out_src), 9);
	assert_int_equal(rt_lcore_call(rt_data_lcore(lnet_instance()->rt, 0), peer_listen_on_lcore,
				       NULL),
			 0);
	assert_int_equal(LNetPut(NULL, ut_bind(out_src, sizeof(out_src), 1), LNET_NOACK_REQ, &to,
				 UT_PORTAL, 0x44, 0, 0),
			 0);
	PUMP_UNTIL("the node's request and hello", peer_connreq_hello(&cr, &hello) > 0);
	n = peer_connreq_hello(&cr, &hello);
	memmove(g_p.rx, g_p.rx + n, g_p.have - n);
	g_p.have -= n;
	net_tcp_get_info(g_p.c, &info);
	assert_true(info.rport >= 512 && info.rport <= 1023); /* ksocklnd's privileged source */
	assert_int_equal(lnet_nid_to_nid4(&cr.nid), LNET_MKNID(LNET_MKNET(2, 0), ADDR_B));
	assert_int_equal(lnet_nid_to_nid4(&hello.src_nid), LNET_MKNID(LNET_MKNET(2, 0), ADDR_A));
	assert_int_equal(hello.ctype, SOCKLND_CONN_ANY);
	me.src_nid = lnp_tcp_nid(ADDR_B);
	me.dst_nid = hello.src_nid;
	me.dst_incarnation = hello.src_incarnation;
	n = 0;
	assert_int_equal(ksock_proto_v3.hello_encode(&me, b, sizeof(b), &n), 0);
	peer_send(b, n);
	peer_recv_lnet(&km, &h, got, sizeof(got));
	assert_int_equal(h.type, LNET_MSG_PUT);
	assert_int_equal(h.msg.put.match_bits, 0x44);
	assert_int_equal(h.payload_length, sizeof(out_src));
	assert_memory_equal(got, out_src, sizeof(out_src));
	PUMP_UNTIL("the node's SEND event", (ev = ut_event()).type != 0);
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
	assert_int_equal(sock_stats().connects, 1);
	assert_int_equal(sock_stats().conns_up, 1);
}

/*
 * Nobody listens on B: its TCP answers each SYN with a reset, the three
 * typed connects fail with ECONNREFUSED through the stream's error(), and
 * the SEND fails with it, as over the kernel's sockets.
 */
static void
test_refused_connects_fail_the_send(void **state)
{
	struct lnet_processid to = { LNET_PID_LUSTRE, lnp_tcp_nid(ADDR_B) };
	struct socklnd_stats st;
	struct net_tcp_stats ts;
	struct lnet_event ev;

	(void)state;
	assert_int_equal(LNetPut(NULL, ut_bind("x", 2, 1), LNET_NOACK_REQ, &to, UT_PORTAL, 7, 0, 0),
			 0);
	PUMP_UNTIL("the SEND, once the connects failed", (ev = ut_event()).type != 0);
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -ECONNREFUSED);
	st = sock_stats();
	assert_int_equal(st.connects, 3);
	assert_int_equal(st.connect_failures, 3);
	net_tcp_stats(g_b.tcp, &ts);
	assert_int_equal(ts.rst_tx, 3); /* one per SYN */
}

static int
setup_untyped(void **state)
{
	g_params = "accept_port=988,typed_conns=0";
	return setup(state);
}

static int
teardown_untyped(void **state)
{
	int rc = teardown(state);

	g_params = "accept_port=988";
	return rc;
}

/* ---- exact reads: a stream whose recv is a call (sock_stream_ops.exact_reads) ---- */

struct mock_stream {
	const uint8_t *bytes;
	size_t len, off;
	const void *dst[16]; /* where each recv wrote */
	size_t got[16];
	unsigned int calls;
};

static ssize_t
mock_recv(struct sock_stream *st, void *buf, size_t len)
{
	struct mock_stream *m = st->h;
	size_t n = len < m->len - m->off ? len : m->len - m->off;

	if (n == 0) {
		return 0;
	}
	memcpy(buf, m->bytes + m->off, n);
	m->off += n;
	assert_true(m->calls < 16);
	m->dst[m->calls] = buf;
	m->got[m->calls++] = n;
	return (ssize_t)n;
}

static const struct sock_stream_ops mock_ops = { .exact_reads = true, .recv = mock_recv };

struct mock_sink {
	struct sock_rx *rx;
	struct iovec iov;
	int done;
};

static int
mock_on_lnet(void *ctx, const struct ksock_msg *km, const struct lnet_hdr *hdr)
{
	struct mock_sink *k = ctx;

	(void)km;
	sock_rx_set_sink(k->rx, &k->iov, 1, 0, hdr->payload_length, hdr->payload_length, k);
	return 0;
}

static void
mock_on_payload(void *ctx, void *cookie, int status)
{
	struct mock_sink *k = ctx;

	assert_ptr_equal(cookie, k);
	k->done = status == 0 ? 1 : -1;
}

/*
 * A small message (100 bytes, far below the staging threshold) over an
 * exact-reads stream: its headers are read as such, its payload in one
 * recv straight into the sink (copied once out of the stream); the
 * staging buffer is never written.
 */
static void
test_exact_reads_copy_payload_once(void **state)
{
	static uint8_t frame[256], md[100], payload[100];
	struct mock_stream m = { 0 };
	struct sock_stream st = { .ops = &mock_ops, .fd = -1, .h = &m };
	struct sock_rx_ops ops = { NULL, mock_on_lnet, mock_on_payload, NULL };
	struct iovec v = { payload, sizeof(payload) };
	static struct sock_rx rx;
	struct mock_sink k = { &rx, { md, sizeof(md) }, 0 };
	struct lnet_hdr h = peer_hdr(LNET_MSG_PUT);
	struct sock_tx tx;

	(void)state;
	fill(payload, sizeof(payload), 5);
	h.payload_length = sizeof(payload);
	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, NULL, &h, &v, 1, 0, sizeof(payload),
					 NULL),
			 0);
	memcpy(frame, tx.hdr, tx.hdr_len);
	memcpy(frame + tx.hdr_len, payload, sizeof(payload));
	m.bytes = frame;
	m.len = tx.hdr_len + sizeof(payload);
	ops.ctx = &k;
	sock_rx_init(&rx, &ksock_proto_v3, false, &ops);
	rx.exact = st.ops->exact_reads;
	assert_int_equal(sock_rx_poll_stream(&rx, &st), 1);
	assert_int_equal(k.done, 1);
	assert_memory_equal(md, payload, sizeof(payload));
	assert_int_equal(m.calls, 3); /* ksock header, LNet header, payload */
	assert_int_equal(m.got[0], 24);
	assert_int_equal(m.got[1], 72);
	assert_ptr_equal(m.dst[2], md);
	assert_int_equal(m.got[2], sizeof(payload));
	for (unsigned int i = 0; i < m.calls; i++) {
		assert_false((const uint8_t *)m.dst[i] >= rx.stage &&
			     (const uint8_t *)m.dst[i] < rx.stage + sizeof(rx.stage));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_reads_copy_payload_once),
		cmocka_unit_test_setup_teardown(test_hello_put_get_over_utcp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_connects_over_utcp, setup_untyped,
						teardown_untyped),
		cmocka_unit_test_setup_teardown(test_refused_connects_fail_the_send, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_port_link_drives_ni, setup, teardown),
	};
	struct lnp_test_eal_args a;
	int rc;

	lnp_test_eal_args_init(&a, "sockx-ut", "0");
	if (rte_eal_init(a.argc, a.argv) < 0) {
		return 1;
	}
	rc = cmocka_run_group_tests_name("socklnd_utcp", tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
