/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes and routing (lnet_route.c, lnet_router.c; lnet-facts §6, §11) on
 * a node in simulated mode with NIs on tcp (10.0.0.1) and tcp1
 * (10.1.0.1), over an LND that records every send (header, payload, the
 * NID of the hop) and lets the test answer as the peers would:
 *   - route add's refusals and errnos as the kernel's lnet_add_route,
 *     route del and its -ENOENT, a gateway's peer not deletable;
 *   - a route's state from its gateway's ping data (RTE_DISABLED, the
 *     NIs' status, avoid_asym_router_failure), the router checker's
 *     pings and a silent gateway taking its routes down; traffic through
 *     a dead gateway bringing it back with discovery off;
 *   - routed PUTs (header to the final NID, sent to the gateway) and the
 *     ACK of a routed PUT going back by the gateway it came from;
 *     drop_asym_route;
 *   - as a router: set routing's states and the ping target's
 *     RTE_DISABLED, a forwarded message's header unchanged, buffer pool
 *     and peer router credits queueing and coming back, a destination
 *     without a route, a routing loop, a destination that is our own
 *     other NI; timers firing after routing was turned off or the route
 *     deleted, and shutdown with forwarded messages held.
 */
#include "lnet_ut.h"
#include "lnet_peer_dir.h"
#include "lnet_route.h"

#define R_SENT_MAX 64

struct r_sent {
	struct lnet_hdr hdr;
	struct lnet_nid ni;  /* sent from */
	struct lnet_nid hop; /* to (lnet_msg_nexthop) */
	uint8_t payload[16384];
	unsigned int len;
};

static struct {
	struct r_sent sent[R_SENT_MAX];
	unsigned int nsent;
	bool hold; /* keep sends until the test completes them */
	struct lnet_msg *held[R_SENT_MAX];
	unsigned int nheld;
	const uint8_t *rx;
	unsigned int rx_len;
	struct lnet_ni *tcp;  /* 10.0.0.1@tcp */
	struct lnet_ni *tcp1; /* 10.1.0.1@tcp1 */
} g_r;

static int
r_startup(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

/* As the contract asks: what the LND holds completes with -ESHUTDOWN. */
static void
r_shutdown(struct lnet_ni *ni)
{
	unsigned int i = 0;

	while (i < g_r.nheld) {
		if (g_r.held[i]->txni == ni) {
			lnet_finalize(g_r.held[i], -ESHUTDOWN);
			g_r.held[i] = g_r.held[--g_r.nheld];
		} else {
			i++;
		}
	}
}

static int
r_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	struct r_sent *s = &g_r.sent[g_r.nsent % R_SENT_MAX];
	struct iovec dst = { s->payload, sizeof(s->payload) };
	const struct iovec *iov;
	unsigned int niov;
	unsigned int off;
	unsigned int len;

	s->hdr = *lnet_msg_hdr(msg);
	s->ni = *lnet_ni_nid(ni);
	s->hop = *lnet_msg_nexthop(msg);
	lnet_msg_payload(msg, &niov, &iov, &off, &len);
	assert_true(len <= sizeof(s->payload));
	lnet_iov_copy(&dst, 1, 0, iov, niov, off, len);
	s->len = len;
	g_r.nsent++;
	if (g_r.hold) {
		g_r.held[g_r.nheld++] = msg;
		return 0;
	}
	lnet_finalize(msg, 0);
	return 0;
}

static int
r_recv(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
       const struct iovec *iov, unsigned int offset, unsigned int mlen, unsigned int rlen)
{
	struct iovec src = { (void *)g_r.rx, g_r.rx_len };

	(void)ni;
	(void)private;
	(void)rlen;
	if (msg == NULL) {
		return 0;
	}
	if (mlen != 0) {
		lnet_iov_copy(iov, niov, offset, &src, 1, 0, mlen);
	}
	lnet_finalize(msg, 0);
	return 0;
}

static const struct lnet_lnd_ops r_ops = {
	.name = "rpeer",
	.type = 0xfc,
	.startup = r_startup,
	.shutdown = r_shutdown,
	.send = r_send,
	.recv = r_recv,
};

#define TCP LNET_MKNET(LNET_LND_SOCK, 0)
#define TCP1 LNET_MKNET(LNET_LND_SOCK, 1)
#define TCP5 LNET_MKNET(LNET_LND_SOCK, 5)
#define TCP6 LNET_MKNET(LNET_LND_SOCK, 6)
#define TCP9 LNET_MKNET(LNET_LND_SOCK, 9)

#define ME_A 0x0a000001U /* 10.0.0.1@tcp: ours */
#define ME_B 0x0a010001U /* 10.1.0.1@tcp1: ours */
#define G1 0x0a000009U   /* 10.0.0.9@tcp, also 10.5.0.9@tcp5: a gateway */
#define G1_FAR 0x0a050009U
#define G2 0x0a010009U  /* 10.1.0.9@tcp1: another gateway */
#define PA 0x0a000007U  /* 10.0.0.7@tcp: a peer on our tcp */
#define PB 0x0a010008U  /* 10.1.0.8@tcp1: a peer on our tcp1 */
#define FAR 0x0a050002U /* 10.5.0.2@tcp5: behind G1 */

static struct lnet_nid
nid_on(uint32_t net, uint32_t addr)
{
	struct lnet_nid n;

	lnet_nid4_to_nid(LNET_MKNID(net, addr), &n);
	return n;
}

static struct lnet *
ln(void)
{
	return lnet_instance();
}

static void
settle(void)
{
	rt_runtime_poll_until_idle(ln()->rt, 200);
}

static struct lnet_ni *
ni_add(struct lnet_nid nid, int peer_rtr_credits)
{
	struct lnet_ni_req req = {
		.add = true,
		.lnd = &r_ops,
		.nid = &nid,
		.cpt = 0,
		.tun = { .peer_tx_credits = 8,
			 .max_tx_credits = 64,
			 .peer_rtr_credits = peer_rtr_credits },
	};

	assert_int_equal(lnet_ni_config(ln(), &req), 0);
	return lnet_ni_find_by_nid(ln(), &nid);
}

static void
param(const char *name, int value)
{
	char err[128];

	assert_int_equal(lnet_ctl_param_set(name, value, err, sizeof(err)), 0);
}

static void
global(const char *name, int value)
{
	char err[128];

	assert_int_equal(lnet_ctl_global_set(name, value, err, sizeof(err)), 0);
}

/* Our NIs (peer router credits of 1 on tcp when @p tight), discovery off, no router checks. */
static void
node_up(bool tight)
{
	memset(&g_r, 0, sizeof(g_r));
	ut_up(1);
	g_r.tcp = ni_add(nid_on(TCP, ME_A), tight ? 1 : 0);
	g_r.tcp1 = ni_add(nid_on(TCP1, ME_B), 0);
	assert_non_null(g_r.tcp);
	assert_non_null(g_r.tcp1);
	ut_discovery(0);
	global("transaction_timeout", 10);
	param("alive_router_check_interval", 0);
}

static int
setup(void **state)
{
	(void)state;
	node_up(false);
	return 0;
}

static int
setup_tight(void **state)
{
	(void)state;
	node_up(true);
	return 0;
}

static void
release_held(void)
{
	g_r.hold = false;
	while (g_r.nheld > 0) {
		struct lnet_msg *msg = g_r.held[0];

		memmove(&g_r.held[0], &g_r.held[1], --g_r.nheld * sizeof(msg));
		lnet_finalize(msg, 0);
		settle();
	}
}

static int
teardown(void **state)
{
	(void)state;
	release_held();
	ut_down();
	return 0;
}

/* Down with what the LND holds still held: its shutdown completes them. */
static int
teardown_now(void **state)
{
	(void)state;
	ut_down();
	return 0;
}

static const struct r_sent *
last_sent(void)
{
	assert_true(g_r.nsent > 0);
	return &g_r.sent[(g_r.nsent - 1) % R_SENT_MAX];
}

static int
route_add(uint32_t net, uint32_t gw_net, uint32_t gw, uint32_t hops, uint32_t prio)
{
	struct lnet_nid g = nid_on(gw_net, gw);
	char err[128];

	return lnet_ctl_route_add(net, &g, hops, prio, 0, err, sizeof(err));
}

static int
routes(struct lnet_ctl_route *out, unsigned int max)
{
	return lnet_ctl_route_list(out, max);
}

/* @p from delivers @p h (its src and dest as set) with @p len bytes of @p payload on @p ni. */
static int
deliver(struct lnet_ni *ni, struct lnet_hdr *h, struct lnet_nid from, const void *payload,
	unsigned int len)
{
	int rc;

	h->payload_length = len;
	g_r.rx = payload;
	g_r.rx_len = len;
	rc = ut_parse(ni, h, &from, NULL);
	settle();
	return rc;
}

/* Gateway G1's answer to our ping @p get: its NIs' status, routing or not. */
static void
g1_reply(const struct r_sent *get, bool routes, uint32_t far_status)
{
	struct lnet_ping_entry nis[2] = {
		{ .nid = nid_on(TCP, G1), .status = LNET_NI_STATUS_UP },
		{ .nid = nid_on(TCP5, G1_FAR), .status = far_status },
	};
	struct lnet_ping_src src = {
		.features = 0x1e & ~(routes ? LNET_PING_FEAT_RTE_DISABLED : 0U),
		.pid = LNET_PID_LUSTRE,
		.seqno = 3,
		.nis = nis,
		.nnis = 2,
	};
	static uint8_t info[256];
	struct lnet_hdr h = { .type = LNET_MSG_REPLY,
			      .src_nid = nid_on(TCP, G1),
			      .dest_nid = nid_on(TCP, ME_A),
			      .src_pid = LNET_PID_LUSTRE,
			      .dest_pid = LNET_PID_LUSTRE };
	size_t len = 0;

	assert_int_equal(get->hdr.type, LNET_MSG_GET);
	assert_int_equal(get->hdr.msg.get.ptl_index, LNET_RESERVED_PORTAL);
	assert_true(lnet_nid_same(&get->hop, &h.src_nid));
	assert_int_equal(lnet_ping_info_encode(&src, info, sizeof(info), &len), 0);
	h.msg.reply.dst_wmd = get->hdr.msg.get.return_wmd;
	assert_int_equal(deliver(g_r.tcp, &h, h.src_nid, info, (unsigned int)len), 0);
}

/* A route to tcp5 through G1, which answers its first ping as told. */
static void
g1_route(bool routes, uint32_t far_status)
{
	assert_int_equal(route_add(TCP5, TCP, G1, LNET_CTL_UNDEFINED_HOPS, 0), 0);
	settle();
	g1_reply(last_sent(), routes, far_status);
}

static struct lnet_counters
counters(void)
{
	struct lnet_counters c;

	assert_int_equal(lnet_counters_get(&c), 0);
	return c;
}

/* ---- route add, del, show --------------------------------------------------------- */

static void
test_route_add_refusals(void **state)
{
	struct lnet_nid any = LNET_ANY_NID;
	struct lnet_nid lo;
	char err[128];

	(void)state;
	lnet_nid_set_lo0(&lo);
	assert_int_equal(lnet_ctl_route_add(TCP5, &any, LNET_CTL_UNDEFINED_HOPS, 0, 0, err,
					    sizeof(err)),
			 -EINVAL);
	assert_int_equal(lnet_ctl_route_add(TCP5, &lo, LNET_CTL_UNDEFINED_HOPS, 0, 0, err,
					    sizeof(err)),
			 -EINVAL);
	assert_int_equal(route_add(LNET_NET_ANY, TCP, G1, LNET_CTL_UNDEFINED_HOPS, 0), -EINVAL);
	assert_int_equal(route_add(LNET_MKNET(LNET_LND_LO, 0), TCP, G1, 1, 0), -EINVAL);
	assert_int_equal(route_add(TCP5, TCP5, G1_FAR, 1, 0), -EINVAL); /* gateway on the net */
	assert_int_equal(route_add(TCP5, TCP, G1, 0, 0), -EINVAL);
	assert_int_equal(route_add(TCP5, TCP, G1, 256, 0), -EINVAL);
	assert_int_equal(route_add(TCP1, TCP, G1, 1, 0), -EEXIST);        /* a local net */
	assert_int_equal(route_add(TCP5, TCP9, G1, 1, 0), -EHOSTUNREACH); /* gateway unreachable */
	assert_int_equal(routes(NULL, 0), 0);
	assert_int_equal(route_add(TCP5, TCP, G1, 255, 0), 0);
	assert_int_equal(route_add(TCP5, TCP, G1, 1, 4), -EEXIST); /* that gateway again */
	assert_int_equal(routes(NULL, 0), 1);
}

static void
test_route_list_and_del(void **state)
{
	struct lnet_ctl_route r[4];
	struct lnet_nid g1 = nid_on(TCP, G1);
	struct lnet_nid g2 = nid_on(TCP1, G2);
	char err[128];

	(void)state;
	assert_int_equal(route_add(TCP6, TCP1, G2, LNET_CTL_UNDEFINED_HOPS, 0), 0);
	assert_int_equal(route_add(TCP5, TCP, G1, LNET_CTL_UNDEFINED_HOPS, 0), 0);
	assert_int_equal(route_add(TCP5, TCP1, G2, 2, 3), 0);
	assert_int_equal(routes(r, 4), 3);
	/* the kernel's remote net hash: tcp5 (bucket 7) before tcp6 (8) */
	assert_int_equal(r[0].net, TCP5);
	assert_true(lnet_nid_same(&r[0].gateway, &g1));
	assert_int_equal(r[0].hops, LNET_CTL_UNDEFINED_HOPS);
	assert_int_equal(r[1].net, TCP5);
	assert_int_equal(r[1].hops, 2);
	assert_int_equal(r[1].priority, 3);
	assert_int_equal(r[2].net, TCP6);
	assert_false(r[0].alive || r[1].alive || r[2].alive); /* no gateway answered */
	assert_false(r[0].single_hop);

	assert_int_equal(lnet_ctl_peer_del(&g1, NULL, 0, err, sizeof(err)), -EBUSY);
	assert_int_equal(lnet_ctl_route_del(LNET_MKNET(LNET_LND_SOCK, 7), &g1, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(lnet_ctl_route_del(TCP5, &g2, err, sizeof(err)), 0);
	assert_int_equal(routes(r, 4), 2);
	assert_true(lnet_nid_same(&r[0].gateway, &g1));
	assert_int_equal(lnet_ctl_route_del(LNET_NET_ANY, &g2, err, sizeof(err)),
			 0); /* all via G2 */
	assert_int_equal(routes(r, 4), 1);
	assert_int_equal(lnet_ctl_route_del(LNET_NET_ANY, NULL, err, sizeof(err)), 0);
	assert_int_equal(routes(r, 4), 0);
	assert_int_equal(lnet_ctl_peer_del(&g1, NULL, 0, err, sizeof(err)),
			 0); /* no longer a gateway */
}

/* ---- a route's state -------------------------------------------------------------- */

static void
test_route_state_from_gateway_ping(void **state)
{
	struct lnet_ctl_route r;
	struct lnet_nid g1 = nid_on(TCP, G1);
	char err[128];

	(void)state;
	g1_route(true, LNET_NI_STATUS_UP);
	assert_int_equal(routes(&r, 1), 1);
	assert_true(r.alive);
	assert_true(r.single_hop);

	/* Not routing (RTE_DISABLED): down. */
	assert_int_equal(lnet_ctl_route_del(TCP5, &g1, err, sizeof(err)), 0);
	g1_route(false, LNET_NI_STATUS_UP);
	assert_int_equal(routes(&r, 1), 1);
	assert_false(r.alive);

	/* Its NI on the remote net down: down, unless avoid_asym_router_failure is 0. */
	assert_int_equal(lnet_ctl_route_del(TCP5, &g1, err, sizeof(err)), 0);
	g1_route(true, LNET_NI_STATUS_DOWN);
	assert_int_equal(routes(&r, 1), 1);
	assert_false(r.alive);
	assert_true(r.single_hop);
	assert_int_equal(lnet_ctl_route_del(TCP5, &g1, err, sizeof(err)), 0);
	param("avoid_asym_router_failure", 0);
	g1_route(true, LNET_NI_STATUS_DOWN);
	assert_int_equal(routes(&r, 1), 1);
	assert_true(r.alive);
}

/* A multi-hop route (the gateway has no NI on the remote net) is up without one. */
static void
test_route_multi_hop(void **state)
{
	struct lnet_ctl_route r;

	(void)state;
	assert_int_equal(route_add(TCP6, TCP, G1, 2, 0), 0);
	settle();
	g1_reply(last_sent(), true, LNET_NI_STATUS_DOWN); /* its tcp5 NI says nothing of tcp6 */
	assert_int_equal(routes(&r, 1), 1);
	assert_true(r.alive);
	assert_false(r.single_hop);
}

/*
 * The router checker pings each gateway every alive_router_check_interval;
 * a gateway that stops answering takes its routes down when the ping
 * times out. Its timer fires after the route went too, harmlessly.
 */
static void
test_router_checker(void **state)
{
	struct lnet_ctl_route r;
	struct lnet_nid g1 = nid_on(TCP, G1);
	unsigned int before;
	char err[128];

	(void)state;
	g1_route(true, LNET_NI_STATUS_UP);
	assert_int_equal(routes(&r, 1), 1);
	assert_true(r.alive);
	param("alive_router_check_interval", 5); /* from the next check on */
	before = g_r.nsent;
	rt_sim_advance_us(ln()->rt, 6000000);
	rt_runtime_poll_until_idle(ln()->rt, 3);
	assert_true(g_r.nsent > before); /* pinged again */
	assert_int_equal(last_sent()->hdr.type, LNET_MSG_GET);
	rt_sim_advance_us(ln()->rt, 11000000); /* unanswered: it times out */
	settle();
	assert_int_equal(routes(&r, 1), 1);
	assert_false(r.alive);
	assert_int_equal(lnet_ctl_route_del(TCP5, &g1, err, sizeof(err)), 0);
	rt_sim_advance_us(ln()->rt, 60000000); /* the checker finds nothing to do */
	settle();
	assert_int_equal(routes(NULL, 0), 0);
}

/* On mgmt: the peer owning G1 goes away as a merge or discovery failure would take it. */
static int
g1_peer_gone_on_mgmt(void *arg)
{
	struct lnet_peer_dir *d = lnet_node(ln())->peer_dir;
	struct lnet_nid g1 = nid_on(TCP, G1);
	struct lnet_peer *p = lnet_peer_find(d, &g1);

	(void)arg;
	if (p == NULL) {
		return -ENOENT;
	}
	lnet_peer_delete(d, p, -EHOSTUNREACH);
	return 0;
}

static bool
g1_has_peer(void)
{
	struct lnet_nid g1 = nid_on(TCP, G1);
	struct lnet_ctl_peer p;
	uint64_t next;

	return lnet_ctl_peer_list(0, &g1, &p, 1, &next) == 1;
}

/*
 * The gateway's peer taken away under its route: the route goes down at
 * once, and a timer makes the peer again for the NID as added (discovered
 * at once): the route comes back up with its answer.
 */
static void
test_route_gateway_peer_gone(void **state)
{
	struct lnet_nid g1 = nid_on(TCP, G1);
	struct lnet_ctl_route r;
	unsigned int before;
	char err[128];

	(void)state;
	g1_route(true, LNET_NI_STATUS_UP);
	assert_int_equal(routes(&r, 1), 1);
	assert_true(r.alive);
	before = g_r.nsent;
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(ln()->rt), g1_peer_gone_on_mgmt, NULL), 0);
	assert_int_equal(routes(&r, 1), 1);
	assert_false(r.alive); /* no gateway: down */
	settle();              /* the resolve timer: made again, pinged */
	assert_true(g1_has_peer());
	assert_true(g_r.nsent > before);
	g1_reply(last_sent(), true, LNET_NI_STATUS_UP);
	assert_int_equal(routes(&r, 1), 1);
	assert_true(r.alive);

	/* Again, the route deleted right after (the timer may have made the peer): no
	 * reference is left behind, the peer is an ordinary one. */
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(ln()->rt), g1_peer_gone_on_mgmt, NULL), 0);
	assert_int_equal(lnet_ctl_route_del(TCP5, &g1, err, sizeof(err)), 0);
	settle();
	assert_int_equal(routes(NULL, 0), 0);
	if (g1_has_peer()) {
		assert_int_equal(lnet_ctl_peer_del(&g1, NULL, 0, err, sizeof(err)),
				 0); /* not -EBUSY */
	}
}

/*
 * peer add over a gateway's peer a route made (2.17's lnet_peer_add): the
 * kernel would delete and make it again, but a gateway's peer NIs cannot
 * be deleted, so the add fails -EBUSY and the peer stays as it was. As a
 * NID of a configured peer (lnet_peer_add_nid) it moves, with its routes.
 */
static void
test_peer_add_over_gateway(void **state)
{
	struct lnet_nid g1 = nid_on(TCP, G1);
	struct lnet_nid pa = nid_on(TCP, PA);
	struct lnet_ctl_route r;
	struct lnet_ctl_peer p;
	uint64_t next;
	char err[128];

	(void)state;
	g1_route(true, LNET_NI_STATUS_UP);
	assert_int_equal(lnet_ctl_peer_list(0, &g1, &p, 1, &next), 1);
	assert_int_equal(p.state & LNET_CTL_PEER_CONFIGURED, 0);
	assert_int_equal(lnet_ctl_peer_add(&g1, NULL, 0, true, err, sizeof(err)), -EBUSY);
	assert_int_equal(lnet_ctl_peer_add(&g1, NULL, 0, p.mr, err, sizeof(err)), -EBUSY);
	assert_int_equal(lnet_ctl_peer_list(0, &g1, &p, 1, &next), 1);
	assert_int_equal(p.state & LNET_CTL_PEER_CONFIGURED, 0);
	assert_int_equal(routes(&r, 1), 1);
	assert_true(r.alive);
	/* its undo, lnetctl's peer del: a router stays */
	assert_int_equal(lnet_ctl_peer_del(&g1, NULL, 0, err, sizeof(err)), -EBUSY);

	assert_int_equal(lnet_ctl_peer_add(&pa, NULL, 0, true, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_add_nids(&pa, &g1, 1, true, false, err, sizeof(err)), 0);
	settle();
	assert_int_equal(lnet_ctl_peer_list(0, &g1, &p, 1, &next), 1);
	assert_true(lnet_nid_same(&p.nis[0], &pa));
	assert_int_equal(lnet_ctl_peer_del(&pa, NULL, 0, err, sizeof(err)),
			 -EBUSY); /* its routes */
	assert_int_equal(lnet_ctl_route_del(TCP5, &g1, err, sizeof(err)), 0);
	settle();
	assert_int_equal(lnet_ctl_peer_del(&pa, NULL, 0, err, sizeof(err)), 0);
}

/* A route deleted while its gateway's first ping is out: the answer finds no route. */
static void
test_route_deleted_during_gateway_ping(void **state)
{
	struct lnet_nid g1 = nid_on(TCP, G1);
	const struct r_sent *get;
	char err[128];

	(void)state;
	assert_int_equal(route_add(TCP5, TCP, G1, 1, 0), 0);
	settle();
	get = last_sent();
	assert_int_equal(lnet_ctl_route_del(TCP5, &g1, err, sizeof(err)), 0);
	g1_reply(get, true, LNET_NI_STATUS_UP);
	assert_int_equal(routes(NULL, 0), 0);
	assert_int_equal(route_add(TCP5, TCP, G1, 1, 0), 0); /* and it can come again */
	settle();
	g1_reply(last_sent(), true, LNET_NI_STATUS_UP);
	assert_int_equal(routes(NULL, 0), 1);
}

/* ---- routed sends ----------------------------------------------------------------------- */

static char g_buf[64] = "routed";

static void
put_far(void)
{
	struct lnet_processid to = { .pid = LNET_PID_LUSTRE, .nid = nid_on(TCP5, FAR) };

	assert_int_equal(LNetPut(NULL, ut_bind(g_buf, 7, 1), LNET_NOACK_REQ, &to, UT_PORTAL, 0, 0,
				 0),
			 0);
	settle();
}

/*
 * A Multi-Rail gateway: G1 with two NIDs on tcp (and one on tcp5),
 * discovered (ping, our push, its ACK); routed PUTs take both of its tcp
 * NIDs in turn, and a tcp NID whose health dropped is left alone.
 */
static void
test_routed_multi_rail_gateway(void **state)
{
	struct lnet_ping_entry nis[3] = {
		{ .nid = nid_on(TCP, G1), .status = LNET_NI_STATUS_UP },
		{ .nid = nid_on(TCP, G1 + 1), .status = LNET_NI_STATUS_UP },
		{ .nid = nid_on(TCP5, G1_FAR), .status = LNET_NI_STATUS_UP },
	};
	struct lnet_ping_src src = {
		.features = 0x1a, .pid = LNET_PID_LUSTRE, .seqno = 3, .nis = nis, .nnis = 3
	};
	struct lnet_hdr h = { .type = LNET_MSG_REPLY,
			      .src_nid = nis[0].nid,
			      .dest_nid = nid_on(TCP, ME_A),
			      .src_pid = LNET_PID_LUSTRE,
			      .dest_pid = LNET_PID_LUSTRE };
	static uint8_t info[256];
	struct lnet_ctl_route r;
	const struct r_sent *s;
	unsigned int to[2] = { 0, 0 };
	char err[128];
	size_t len = 0;
	int i;

	(void)state;
	ut_discovery(1);
	assert_int_equal(route_add(TCP5, TCP, G1, 1, 0), 0);
	settle();
	s = last_sent();
	assert_int_equal(lnet_ping_info_encode(&src, info, sizeof(info), &len), 0);
	h.msg.reply.dst_wmd = s->hdr.msg.get.return_wmd;
	assert_int_equal(deliver(g_r.tcp, &h, nis[0].nid, info, (unsigned int)len), 0);
	s = last_sent(); /* our push to the gateway */
	assert_int_equal(s->hdr.type, LNET_MSG_PUT);
	h = (struct lnet_hdr){ .type = LNET_MSG_ACK,
			       .src_nid = nis[0].nid,
			       .dest_nid = nid_on(TCP, ME_A),
			       .src_pid = LNET_PID_LUSTRE,
			       .dest_pid = LNET_PID_LUSTRE };
	h.msg.ack.dst_wmd = s->hdr.msg.put.ack_wmd;
	h.msg.ack.match_bits = LNET_PROTO_PING_MATCHBITS;
	assert_int_equal(deliver(g_r.tcp, &h, nis[0].nid, NULL, 0), 0);
	assert_int_equal(routes(&r, 1), 1);
	assert_true(r.alive);
	ut_discovery(0); /* the destination itself is not discovered here */

	for (i = 0; i < 6; i++) {
		put_far();
		s = last_sent();
		to[0] += lnet_nid_same(&s->hop, &nis[0].nid);
		to[1] += lnet_nid_same(&s->hop, &nis[1].nid);
		assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	}
	assert_int_equal(to[0], 3);
	assert_int_equal(to[1], 3);

	/* One of its tcp NIDs unhealthy: router_sensitivity 100 leaves it out. */
	assert_int_equal(lnet_ctl_peer_ni_health_set(&nis[1].nid, 900, err, sizeof(err)), 0);
	settle();
	for (i = 0; i < 4; i++) {
		put_far();
		assert_true(lnet_nid_same(&last_sent()->hop, &nis[0].nid));
		assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	}
}

static void
test_routed_put_goes_to_gateway(void **state)
{
	struct lnet_nid g1 = nid_on(TCP, G1);
	struct lnet_nid far = nid_on(TCP5, FAR);
	struct lnet_nid me = nid_on(TCP, ME_A);
	const struct r_sent *s;
	struct lnet_event ev;
	char err[128];

	(void)state;
	g1_route(true, LNET_NI_STATUS_UP);
	put_far();
	s = last_sent();
	assert_int_equal(s->hdr.type, LNET_MSG_PUT);
	assert_true(lnet_nid_same(&s->hdr.dest_nid, &far)); /* the final destination */
	assert_true(lnet_nid_same(&s->hdr.src_nid, &me));
	assert_true(lnet_nid_same(&s->hop, &g1)); /* through the gateway */
	assert_true(lnet_nid_same(&s->ni, &me));
	assert_memory_equal(s->payload, "routed", 7);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);

	/* No route up: the send fails at once, counted as no route. */
	assert_int_equal(lnet_ctl_route_del(TCP5, &g1, err, sizeof(err)), 0);
	put_far();
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -EHOSTUNREACH);
	assert_true(counters().local_no_route_count >= 1);
}

/*
 * A Multi-Rail peer whose primary NID is on a net we have no NI on (and no
 * route to), with another NID on our tcp1: a PUT to the primary goes
 * straight to its tcp1 NID, as the kernel's selection prefers a local net
 * of an MR peer to the NID given. Every NID of a known peer has its peer
 * NI, remote ones too; without one the send failed as unroutable (a
 * console with NIDs on two nets could not reach a test node on one).
 */
static void
test_mr_peer_primary_on_remote_net(void **state)
{
	struct lnet_nid prim = nid_on(TCP5, FAR);
	struct lnet_nid rail = nid_on(TCP1, PB);
	struct lnet_nid me = nid_on(TCP1, ME_B);
	const struct r_sent *s;
	struct lnet_event ev;
	char err[128];

	(void)state;
	assert_int_equal(lnet_ctl_peer_add(&prim, &rail, 1, true, err, sizeof(err)), 0);
	settle();
	put_far();
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
	s = last_sent();
	assert_int_equal(s->hdr.type, LNET_MSG_PUT);
	assert_true(lnet_nid_same(&s->hdr.dest_nid, &rail));
	assert_true(lnet_nid_same(&s->hop, &rail));
	assert_true(lnet_nid_same(&s->ni, &me));
	assert_int_equal(counters().local_no_route_count, 0);
}

/* PUT @p from the last hop @p hop (source @p src) to our tcp NI, ACK asked. */
static int
put_from(uint32_t hop, struct lnet_nid src)
{
	struct lnet_hdr h = { .type = LNET_MSG_PUT,
			      .src_nid = src,
			      .dest_nid = nid_on(TCP, ME_A),
			      .src_pid = LNET_PID_LUSTRE,
			      .dest_pid = LNET_PID_LUSTRE };

	h.msg.put.ptl_index = UT_PORTAL;
	h.msg.put.ack_wmd.wh_interface_cookie = 7;
	h.msg.put.ack_wmd.wh_object_cookie = 9;
	return deliver(g_r.tcp, &h, nid_on(TCP, hop), "hi", 3);
}

static void
test_routed_ack_goes_back_by_gateway(void **state)
{
	static char sink[16];
	struct lnet_md md = ut_md(sink, sizeof(sink), LNET_MD_THRESH_INF, LNET_MD_OP_PUT);
	struct lnet_nid g1 = nid_on(TCP, G1);
	struct lnet_nid far = nid_on(TCP5, FAR);
	const struct r_sent *s;

	struct lnet_ctl_peer_ni st;
	char err[128];

	(void)state;
	g1_route(true, LNET_NI_STATUS_UP);
	ut_attach(&md, 0, ~0ULL, LNET_INS_AFTER, LNET_RETAIN);
	assert_int_equal(lnet_ctl_peer_ni_health_set(&g1, 300, err, sizeof(err)), 0);
	assert_int_equal(put_from(G1, far), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_PUT);
	/* heard from a gateway: full health at once, as the kernel's lnet_health_check */
	assert_int_equal(lnet_ctl_peer_ni_state(&g1, &st), 0);
	assert_int_equal(st.health_value, LNET_CTL_MAX_HEALTH);
	s = last_sent();
	assert_int_equal(s->hdr.type, LNET_MSG_ACK);
	assert_true(lnet_nid_same(&s->hdr.dest_nid, &far));
	assert_true(lnet_nid_same(&s->hop, &g1));

	/* drop_asym_route: from a node that is no gateway of ours to tcp5, dropped. */
	global("drop_asym_route", 1);
	assert_int_equal(put_from(PA, far), 0);
	ut_no_event();
	assert_int_equal(counters().drop_count, 1);
	assert_int_equal(put_from(G1, far), 0); /* by the gateway: taken */
	assert_int_equal(ut_event().type, LNET_EVENT_PUT);
}

/*
 * Discovery off, G1 silent: its router check times out and its route goes
 * down. Then a PUT from FAR (tcp5) reaches us through G1: as the kernel's
 * lnet_parse, G1 is alive again and its route to tcp5 up, and a PUT to
 * FAR goes through it. Traffic from G1 itself (source on its own net)
 * does not count.
 */
static void
test_dead_gateway_alive_on_traffic(void **state)
{
	static char sink[16];
	struct lnet_md md = ut_md(sink, sizeof(sink), LNET_MD_THRESH_INF, LNET_MD_OP_PUT);
	struct lnet_nid g1 = nid_on(TCP, G1);
	struct lnet_nid far = nid_on(TCP5, FAR);
	struct lnet_ctl_route r;
	struct lnet_event ev;
	unsigned int before;

	(void)state;
	g1_route(true, LNET_NI_STATUS_UP);
	assert_int_equal(routes(&r, 1), 1);
	assert_true(r.alive);
	param("alive_router_check_interval", 5);
	before = g_r.nsent;
	rt_sim_advance_us(ln()->rt, 6000000);
	rt_runtime_poll_until_idle(ln()->rt, 3);
	assert_true(g_r.nsent > before);         /* the router check's ping */
	param("alive_router_check_interval", 0); /* no more: only traffic can tell */
	rt_sim_advance_us(ln()->rt, 11000000);   /* unanswered */
	settle();
	assert_int_equal(routes(&r, 1), 1);
	assert_false(r.alive);
	put_far();
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -EHOSTUNREACH); /* no route up */

	ut_attach(&md, 0, ~0ULL, LNET_INS_AFTER, LNET_RETAIN);
	assert_int_equal(put_from(G1, g1), 0); /* G1's own: not through it */
	assert_int_equal(ut_event().type, LNET_EVENT_PUT);
	assert_int_equal(routes(&r, 1), 1);
	assert_false(r.alive);
	assert_int_equal(put_from(G1, far), 0); /* FAR's, through G1 */
	assert_int_equal(ut_event().type, LNET_EVENT_PUT);
	assert_int_equal(routes(&r, 1), 1);
	assert_true(r.alive);
	assert_true(lnet_nid_same(&last_sent()->hop, &g1)); /* the ACK went back through it */

	put_far();
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
	assert_true(lnet_nid_same(&last_sent()->hdr.dest_nid, &far));
	assert_true(lnet_nid_same(&last_sent()->hop, &g1));
}

/* ---- as a router ------------------------------------------------------------------------- */

static struct lnet_ctl_routing
routing(void)
{
	struct lnet_ctl_routing r;

	assert_int_equal(lnet_ctl_routing_get(&r), 0);
	return r;
}

static void
routing_on(void)
{
	char err[128];

	param("router_ping_timeout", 0);
	param("tiny_router_buffers", 8);
	param("small_router_buffers", 4);
	param("large_router_buffers", 1);
	assert_int_equal(lnet_ctl_routing_set(true, err, sizeof(err)), 0);
	settle();
	assert_int_equal(routing().enable, LNET_CTL_ROUTING_ENABLED);
}

static struct lnet_hdr
fwd_hdr(uint32_t type, struct lnet_nid src, struct lnet_nid dst)
{
	struct lnet_hdr h = { .type = type,
			      .src_nid = src,
			      .dest_nid = dst,
			      .src_pid = 4321,
			      .dest_pid = LNET_PID_LUSTRE };

	h.msg.put.ptl_index = 33;
	h.msg.put.match_bits = 0x1234;
	h.msg.put.hdr_data = 0xbeef;
	h.msg.put.ack_wmd.wh_interface_cookie = 1;
	h.msg.put.ack_wmd.wh_object_cookie = 2;
	return h;
}

/* Our ping target's features, as a peer reads them. */
static uint32_t
ping_features(void)
{
	struct lnet_ping_entry nis[4];
	struct lnet_ping_decoded d;

	ut_ping_self(nis, 4, &d);
	return d.features;
}

static void
test_set_routing_states(void **state)
{
	char err[128];

	(void)state;
	assert_int_equal(routing().enable, LNET_CTL_ROUTING_DISABLED);
	assert_int_equal(routing().ncpts, 0);
	assert_true(ping_features() & LNET_PING_FEAT_RTE_DISABLED);
	param("alive_router_check_interval", 2);
	param("router_ping_timeout", 1);
	param("large_router_buffers", 2);
	assert_int_equal(lnet_ctl_routing_set(true, err, sizeof(err)), 0);
	assert_int_equal(routing().enable, LNET_CTL_ROUTING_STARTING);
	assert_int_equal(routing().forward_delay_s, 3);
	assert_int_equal(routing().ncpts, 1);
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_LARGE].nbuffers, 2);
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_LARGE].npages, 256);
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_SMALL].nbuffers, 16384); /* the default */
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_TINY].npages, 0);
	assert_true(ping_features() & LNET_PING_FEAT_RTE_DISABLED); /* not while starting */
	rt_sim_advance_us(ln()->rt, 3500000);
	settle();
	assert_int_equal(routing().enable, LNET_CTL_ROUTING_ENABLED);
	assert_false(ping_features() & LNET_PING_FEAT_RTE_DISABLED);

	/* Off: stopping (RTE_DISABLED at once), then disabled, pools gone. */
	assert_int_equal(lnet_ctl_routing_set(false, err, sizeof(err)), 0);
	settle();
	assert_true(ping_features() & LNET_PING_FEAT_RTE_DISABLED);
	assert_int_equal(lnet_ctl_routing_set(true, err, sizeof(err)), -EBUSY);
	rt_sim_advance_us(ln()->rt, 3500000);
	settle();
	assert_int_equal(routing().enable, LNET_CTL_ROUTING_DISABLED);
	/* as the kernel's: the CPTs still listed, empty; the settings back to the defaults */
	assert_int_equal(routing().ncpts, 1);
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_LARGE].nbuffers, 0);
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_SMALL].credits, 0);
	assert_int_equal(routing().buffers[LNET_CTL_RTR_LARGE], 0);
	assert_int_equal(lnet_ctl_buffers_set(LNET_CTL_RTR_TINY, -1, err, sizeof(err)), -EINVAL);
	/* not routing: a size is not taken (the kernel's lnet_rtrpools_adjust) */
	assert_int_equal(lnet_ctl_buffers_set(LNET_CTL_RTR_LARGE, 5, err, sizeof(err)), 0);
	assert_int_equal(routing().buffers[LNET_CTL_RTR_LARGE], 0);
}

/* Routing on, sends held, and @p n 8 KiB PUTs (the large pool) from PA for PB. */
static void
held_large_puts(unsigned int n)
{
	struct lnet_nid pa = nid_on(TCP, PA);
	struct lnet_nid pb = nid_on(TCP1, PB);
	static char big[8192];
	struct lnet_hdr h;

	routing_on();
	g_r.hold = true;
	while (n-- > 0) {
		h = fwd_hdr(LNET_MSG_PUT, pa, pb);
		assert_int_equal(deliver(g_r.tcp, &h, pa, big, sizeof(big)), 0);
	}
}

/* Live resizing: growth serves who waits; shrinking frees buffers as they come back. */
static void
test_buffers_resized_live(void **state)
{
	struct lnet_ctl_routing r;
	char err[128];

	(void)state;
	held_large_puts(3); /* one large buffer */
	assert_int_equal(g_r.nsent, 1);
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_LARGE].credits, -2);
	assert_int_equal(lnet_ctl_buffers_set(LNET_CTL_RTR_LARGE, 4, err, sizeof(err)), 0);
	settle();
	assert_int_equal(g_r.nsent, 3); /* the two waiting got the new buffers */
	r = routing();
	assert_int_equal(r.pools[0][LNET_CTL_RTR_LARGE].nbuffers, 4);
	assert_int_equal(r.pools[0][LNET_CTL_RTR_LARGE].credits, 1);
	assert_int_equal(r.buffers[LNET_CTL_RTR_LARGE], 4);

	/* Fewer: as the kernel's, nothing changes until buffers come back. */
	assert_int_equal(lnet_ctl_buffers_set(LNET_CTL_RTR_LARGE, 2, err, sizeof(err)), 0);
	r = routing();
	assert_int_equal(r.pools[0][LNET_CTL_RTR_LARGE].nbuffers, 4);
	assert_int_equal(r.pools[0][LNET_CTL_RTR_LARGE].credits, 1);
	release_held(); /* the first back is kept (1 < 2), the next two are freed */
	r = routing();
	assert_int_equal(r.pools[0][LNET_CTL_RTR_LARGE].nbuffers, 2);
	assert_int_equal(r.pools[0][LNET_CTL_RTR_LARGE].credits, 2);
	assert_int_equal(counters().route_count, 3);
}

/* Our NIs' status in our ping target: how a peer sees this router's nets. */
static uint32_t
ping_status_of(const struct lnet_ni *ni)
{
	struct lnet_ping_entry nis[4];
	struct lnet_ping_decoded d;
	unsigned int n = ut_ping_self(nis, 4, &d);

	for (unsigned int i = 0; i < n && i < 4; i++) {
		if (lnet_nid_same(&nis[i].nid, &ni->nid)) {
			return nis[i].status;
		}
	}
	fail();
	return 0;
}

/*
 * A router's net no other node pinged for router_ping_timeout +
 * alive_router_check_interval goes DOWN in its ping target; a ping from
 * another node on it brings it back.
 */
static void
test_router_silent_net_goes_down(void **state)
{
	struct lnet_nid pa = nid_on(TCP, PA);
	struct lnet_hdr h = { .type = LNET_MSG_GET,
			      .src_nid = pa,
			      .dest_nid = g_r.tcp->nid,
			      .src_pid = LNET_PID_LUSTRE,
			      .dest_pid = LNET_PID_LUSTRE };
	char err[128];

	(void)state;
	param("alive_router_check_interval", 2);
	param("router_ping_timeout", 1);
	param("large_router_buffers", 1);
	assert_int_equal(lnet_ctl_routing_set(true, err, sizeof(err)), 0);
	settle();
	assert_int_equal(ping_status_of(g_r.tcp), LNET_NI_STATUS_UP);
	rt_sim_advance_us(ln()->rt, 4000000);
	settle();
	rt_sim_advance_us(ln()->rt, 1000000);
	settle();
	assert_int_equal(ping_status_of(g_r.tcp), LNET_NI_STATUS_DOWN);
	assert_int_equal(ping_status_of(g_r.tcp1), LNET_NI_STATUS_DOWN);

	h.msg.get.ptl_index = LNET_RESERVED_PORTAL;
	h.msg.get.match_bits = LNET_PROTO_PING_MATCHBITS;
	h.msg.get.sink_length = 272;
	h.msg.get.return_wmd.wh_interface_cookie = 5;
	h.msg.get.return_wmd.wh_object_cookie = 6;
	assert_int_equal(deliver(g_r.tcp, &h, pa, NULL, 0), 0);
	assert_int_equal(ping_status_of(g_r.tcp), LNET_NI_STATUS_UP);    /* pinged: alive */
	assert_int_equal(ping_status_of(g_r.tcp1), LNET_NI_STATUS_DOWN); /* still silent */
}

/* Turned on and off before forwarding ever started: the timer fires on a stopped router. */
static void
test_routing_off_before_its_delay(void **state)
{
	char err[128];

	(void)state;
	param("large_router_buffers", 1);
	assert_int_equal(lnet_ctl_routing_set(true, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_routing_set(false, err, sizeof(err)), 0);
	assert_int_equal(routing().enable, LNET_CTL_ROUTING_STOPPING);
	rt_sim_advance_us(ln()->rt, 120000000);
	settle();
	assert_int_equal(routing().enable, LNET_CTL_ROUTING_DISABLED);
	assert_true(ping_features() & LNET_PING_FEAT_RTE_DISABLED);
}

/* Messages the NI sent (@p sent) or received, as net show -v counts them. */
static uint64_t
ni_count(const struct lnet_ni *ni, bool sent)
{
	struct lnet_ctl_ni nis[4];
	int n = lnet_ctl_ni_list(nis, 4);

	for (int i = 0; i < n; i++) {
		if (lnet_nid_same(&nis[i].nid, &ni->nid)) {
			return sent ? nis[i].send_count : nis[i].recv_count;
		}
	}
	fail();
	return 0;
}

static void
test_forward_keeps_header(void **state)
{
	struct lnet_nid pa = nid_on(TCP, PA);
	struct lnet_nid pb = nid_on(TCP1, PB);
	struct lnet_hdr h;
	struct lnet_ctl_routing r;
	const struct r_sent *s;
	char payload[5000];

	(void)state;
	/* Not a router: dropped and counted. */
	h = fwd_hdr(LNET_MSG_PUT, pa, pb);
	assert_int_equal(deliver(g_r.tcp, &h, pa, "x", 1), 0);
	assert_int_equal(g_r.nsent, 0);
	assert_int_equal(counters().drop_count, 1);

	routing_on();
	memset(payload, 'p', sizeof(payload));
	h = fwd_hdr(LNET_MSG_PUT, pa, pb);
	assert_int_equal(deliver(g_r.tcp, &h, pa, payload, sizeof(payload)), 0);
	s = last_sent();
	assert_memory_equal(&s->hdr, &h, sizeof(h)); /* as received, lnet-facts §11 */
	assert_true(lnet_nid_same(&s->hop, &pb));
	assert_true(lnet_nid_same(&s->ni, &g_r.tcp1->nid));
	assert_int_equal(s->len, sizeof(payload));
	assert_memory_equal(s->payload, payload, sizeof(payload));
	assert_int_equal(counters().route_count, 1);
	assert_int_equal(counters().route_length, sizeof(payload));
	assert_int_equal(counters().send_count, 0);    /* routed, not sent by us */
	assert_int_equal(ni_count(g_r.tcp, false), 1); /* received on tcp, sent on tcp1 */
	assert_int_equal(ni_count(g_r.tcp1, true), 1);
	r = routing();
	/* 5000 bytes: the large pool; its credit and buffer came back */
	assert_int_equal(r.pools[0][LNET_CTL_RTR_LARGE].credits, 1);
	assert_int_equal(r.pools[0][LNET_CTL_RTR_LARGE].mincredits, 0);
	assert_int_equal(r.pools[0][LNET_CTL_RTR_SMALL].mincredits, 4);

	/* An ACK (no payload) goes by the tiny pool. */
	h = fwd_hdr(LNET_MSG_ACK, pb, pa);
	assert_int_equal(deliver(g_r.tcp1, &h, pb, NULL, 0), 0);
	s = last_sent();
	assert_memory_equal(&s->hdr, &h, sizeof(h));
	assert_true(lnet_nid_same(&s->hop, &pa));
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_TINY].mincredits, 7);
	ut_no_event(); /* a router posts no event of what it forwards */
}

/*
 * Buffers run out: the next message waits for one, then goes. The 1.5 s
 * both spent in the router (one held by the LND, one waiting for its
 * buffer) is the lcore's longest forward (logged as a slow one).
 */
static void
test_forward_waits_for_a_buffer(void **state)
{
	(void)state;
	held_large_puts(2);
	assert_int_equal(g_r.nsent, 1);
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_LARGE].credits, -1);
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_LARGE].mincredits, -1);
	assert_true(ln()->cpts[0]->fwd_max_us < 1000000);
	rt_sim_advance_us(ln()->rt, 1500000);
	settle();
	release_held();
	assert_true(ln()->cpts[0]->fwd_max_us >= 1500000);
	assert_int_equal(g_r.nsent, 2);
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_LARGE].credits, 1);
	assert_int_equal(counters().route_count, 2);
}

/* peer_buffer_credits 1: a second message from that peer waits for the first. */
static void
test_forward_waits_for_a_peer_router_credit(void **state)
{
	struct lnet_nid pa = nid_on(TCP, PA);
	struct lnet_nid pb = nid_on(TCP1, PB);
	struct lnet_ctl_peer_ni st;
	struct lnet_hdr h;

	(void)state;
	routing_on();
	g_r.hold = true;
	h = fwd_hdr(LNET_MSG_PUT, pa, pb);
	assert_int_equal(deliver(g_r.tcp, &h, pa, "a", 1), 0);
	h = fwd_hdr(LNET_MSG_PUT, pa, pb);
	assert_int_equal(deliver(g_r.tcp, &h, pa, "b", 1), 0);
	assert_int_equal(g_r.nsent, 1);
	assert_int_equal(lnet_ctl_peer_ni_state(&pa, &st), 0);
	assert_int_equal(st.rtr_credits, -1);
	assert_int_equal(st.min_rtr_credits, -1);
	release_held();
	assert_int_equal(g_r.nsent, 2);
	assert_int_equal(lnet_ctl_peer_ni_state(&pa, &st), 0);
	assert_int_equal(st.rtr_credits, 1);
}

/* Bad routing input: counted, dropped, credits back, never a crash. */
static void
test_forward_refusals(void **state)
{
	struct lnet_nid pa = nid_on(TCP, PA);
	struct lnet_nid g1 = nid_on(TCP, G1);
	struct lnet_hdr h;
	struct lnet_counters c0;

	(void)state;
	routing_on();
	g1_route(true, LNET_NI_STATUS_UP);
	c0 = counters();

	/* A net no route reaches. */
	h = fwd_hdr(LNET_MSG_PUT, pa, nid_on(TCP9, 0x0a090001U));
	assert_int_equal(deliver(g_r.tcp, &h, pa, "x", 1), 0);
	assert_int_equal(counters().local_no_route_count, c0.local_no_route_count + 1);
	assert_int_equal(counters().drop_count, c0.drop_count + 1);

	/* A loop: G1 sends us what only G1 reaches. */
	h = fwd_hdr(LNET_MSG_PUT, pa, nid_on(TCP5, FAR));
	assert_int_equal(deliver(g_r.tcp, &h, g1, "x", 1), 0);
	assert_int_equal(counters().drop_count, c0.drop_count + 2);
	assert_int_equal(counters().route_count,
			 c0.route_count); /* counted once sent, as the kernel's */

	/* Our own other NI named from this net: a protocol error. */
	h = fwd_hdr(LNET_MSG_PUT, pa, g_r.tcp1->nid);
	assert_int_equal(deliver(g_r.tcp, &h, pa, "x", 1), -EPROTO);
	/* A destination on the arrival net should have come straight. */
	h = fwd_hdr(LNET_MSG_PUT, pa, nid_on(TCP, 0x0a000063U));
	assert_int_equal(deliver(g_r.tcp, &h, pa, "x", 1), -EPROTO);

	assert_int_equal(routing().pools[0][LNET_CTL_RTR_SMALL].credits, 4);
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_TINY].credits, 8);
}

/* Shutdown with a forwarded message on the wire and another waiting for a buffer. */
static void
test_shutdown_with_forwarded_messages(void **state)
{
	(void)state;
	held_large_puts(2);
	assert_int_equal(routing().pools[0][LNET_CTL_RTR_LARGE].credits, -1);
	/* teardown: the LND finalizes what it holds, the waiting one is dropped */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_route_add_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_route_list_and_del, setup, teardown),
		cmocka_unit_test_setup_teardown(test_route_state_from_gateway_ping, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_route_multi_hop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_router_checker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_gateway_alive_on_traffic, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_route_deleted_during_gateway_ping, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_route_gateway_peer_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_add_over_gateway, setup, teardown),
		cmocka_unit_test_setup_teardown(test_routed_put_goes_to_gateway, setup, teardown),
		cmocka_unit_test_setup_teardown(test_routed_multi_rail_gateway, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mr_peer_primary_on_remote_net, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_routed_ack_goes_back_by_gateway, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_set_routing_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_routing_off_before_its_delay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffers_resized_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_router_silent_net_goes_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forward_keeps_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forward_waits_for_a_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forward_waits_for_a_peer_router_credit,
						setup_tight, teardown),
		cmocka_unit_test_setup_teardown(test_forward_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shutdown_with_forwarded_messages, setup,
						teardown_now),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
