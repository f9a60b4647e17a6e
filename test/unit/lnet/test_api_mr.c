/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel's Multi-Rail API calls that need no discovery (lnet_api_mr.c):
 * LNetDist's distance, source NID and order; our NIDs and primary NID; a
 * peer's primary NID; the discovery setting; LNetAddPeer's peers with
 * discovery on and off; and every call with LNet down.
 */
#include "lnet_ctl.h"
#include "lnet_ut.h"
#include "lnp_test_nid.h"

UT_LND_NO_WIRE(t_ops, "mr", 0xfc)

/* <addr>@<net> on t_ops' network type. */
static struct lnet_nid
t_nid(uint32_t addr, uint16_t net)
{
	struct lnet_nid nid = lnp_tcp_nid(addr);

	nid.nid_type = 0xfc;
	nid.nid_num = net;
	return nid;
}

static void
ni_add(const struct lnet_nid *nid)
{
	struct lnet_ctl_ni_tunables tun = { 180, 8, 0, 64 };
	char err[256] = "";

	assert_int_equal(lnet_ctl_ni_add(nid, NULL, &tun, NULL, 0, err, sizeof(err)), 0);
}

static void
ni_del(const struct lnet_nid *nid)
{
	char err[256] = "";

	assert_int_equal(lnet_ctl_ni_del(nid, err, sizeof(err)), 0);
}

static void
set_discovery(int on)
{
	char err[128];

	assert_int_equal(lnet_ctl_global_set("discovery", on, err, sizeof(err)), 0);
}

/* The peer owning @p nid: 1 and *out, or 0. */
static int
peer_of(const struct lnet_nid *nid, struct lnet_ctl_peer *out)
{
	uint64_t next;

	return lnet_ctl_peer_list(0, nid, out, 1, &next);
}

static bool
nid_eq(const struct lnet_nid *a, const struct lnet_nid *b)
{
	return lnet_nid_same(a, b);
}

/*
 * NIs added lo, A1 (net 0), B1 (net 1), A2 (net 0): the kernel walks them
 * by net, lo, A1, A2, B1, so a NID on net 1 has order 2 + 3.
 */
static void
test_dist(void **state)
{
	struct lnet_nid a1 = t_nid(1, 0), b1 = t_nid(1, 1), a2 = t_nid(2, 0);
	struct lnet_nid lo, src, n;
	uint32_t order;

	(void)state;
	lnet_nid_set_lo0(&lo);
	ni_add(&a1);
	ni_add(&b1);
	ni_add(&a2);

	/* 0@lo and our own NIDs: distance 0, order 0 and 1, the NID itself as source */
	assert_int_equal(LNetDist(&lo, &src, &order), 0);
	assert_true(nid_eq(&src, &lo));
	assert_int_equal(order, 0);
	assert_int_equal(LNetDist(&a2, &src, &order), 0);
	assert_true(nid_eq(&src, &a2));
	assert_int_equal(order, 1);

	/* another NID on a local net: distance 1, the net's first NI */
	n = t_nid(9, 0);
	assert_int_equal(LNetDist(&n, &src, &order), 1);
	assert_true(nid_eq(&src, &a1));
	assert_int_equal(order, 3);
	n = t_nid(9, 1);
	assert_int_equal(LNetDist(&n, &src, &order), 1);
	assert_true(nid_eq(&src, &b1));
	assert_int_equal(order, 5); /* after net 0's two NIs, not at B1's place in the table (4) */

	/* no NI on its net, no routes: unreachable, outputs untouched */
	n = lnp_tcp_nid(0x0a000009);
	src = lo;
	order = 77;
	assert_int_equal(LNetDist(&n, &src, &order), -EHOSTUNREACH);
	assert_true(nid_eq(&src, &lo));
	assert_int_equal(order, 77);

	/* outputs optional; source and destination may be one NID */
	assert_int_equal(LNetDist(&a1, NULL, NULL), 0);
	n = t_nid(9, 1);
	assert_int_equal(LNetDist(&n, &n, NULL), 1);
	assert_true(nid_eq(&n, &b1));
	assert_int_equal(LNetDist(NULL, &src, &order), -EINVAL);

	/* a deleted NI is no longer ours: its net's other NI answers for it */
	ni_del(&a1);
	assert_int_equal(LNetDist(&a1, &src, NULL), 1);
	assert_true(nid_eq(&src, &a2));
}

static void
test_is_peer_local(void **state)
{
	struct lnet_nid a1 = t_nid(1, 0), other = t_nid(9, 0), tcp = lnp_tcp_nid(0x0a000001);
	struct lnet_nid lo;

	(void)state;
	lnet_nid_set_lo0(&lo);
	assert_true(LNetIsPeerLocal(&lo));
	assert_false(LNetIsPeerLocal(&a1));
	ni_add(&a1);
	assert_true(LNetIsPeerLocal(&a1));
	assert_false(LNetIsPeerLocal(&other)); /* on a local net, but not ours */
	assert_false(LNetIsPeerLocal(&tcp));
	assert_false(LNetIsPeerLocal(NULL));
	ni_del(&a1);
	assert_false(LNetIsPeerLocal(&a1));
}

static void
test_local_primary(void **state)
{
	struct lnet_nid a1 = t_nid(1, 0), b1 = t_nid(1, 1), a2 = t_nid(2, 0);
	struct lnet_nid was = lnp_tcp_nid(0x0a0000ff), n = was;

	(void)state;
	/* only 0@lo: left as it is */
	LNetLocalPrimaryNID(&n);
	assert_true(nid_eq(&n, &was));
	ni_add(&b1);
	ni_add(&a1);
	ni_add(&a2);
	/* the first NI of the first net added */
	LNetLocalPrimaryNID(&n);
	assert_true(nid_eq(&n, &b1));
	ni_del(&b1);
	LNetLocalPrimaryNID(&n);
	assert_true(nid_eq(&n, &a1));
	LNetLocalPrimaryNID(NULL);
}

static void
test_primary_nid(void **state)
{
	struct lnet_nid p = lnp_tcp_nid(0x0a000001);
	struct lnet_nid s[2] = { lnp_tcp_nid(0x0a000002), lnp_tcp_nid(0x0a000003) };
	struct lnet_nid unknown = lnp_tcp_nid(0x0a000009), lo, n;
	char err[128];

	(void)state;
	assert_int_equal(lnet_ctl_peer_add(&p, s, 2, true, err, sizeof(err)), 0);
	/* a secondary NID of a configured Multi-Rail peer: its primary */
	n = s[1];
	LNetPrimaryNID(&n);
	assert_true(nid_eq(&n, &p));
	n = p;
	LNetPrimaryNID(&n);
	assert_true(nid_eq(&n, &p));
	/* a NID no peer has, and 0@lo: themselves */
	n = unknown;
	LNetPrimaryNID(&n);
	assert_true(nid_eq(&n, &unknown));
	lnet_nid_set_lo0(&lo);
	n = lo;
	LNetPrimaryNID(&n);
	assert_true(nid_eq(&n, &lo));
	LNetPrimaryNID(NULL);
	/* the NID leaves the peer: itself again */
	assert_int_equal(lnet_ctl_peer_del(&p, &s[1], 1, err, sizeof(err)), 0);
	n = s[1];
	LNetPrimaryNID(&n);
	assert_true(nid_eq(&n, &s[1]));
}

static void
test_peer_discovered(void **state)
{
	struct lnet_nid p = lnp_tcp_nid(0x0a000001), lo;
	char err[128];

	(void)state;
	lnet_nid_set_lo0(&lo);
	assert_int_equal(LNetPeerDiscovered(&lo), 1);
	/* not discovered yet: queued for discovery; with no NI on tcp its ping
	 * fails at once, and the next call says so */
	assert_int_equal(LNetPeerDiscovered(&p), -EAGAIN);
	assert_int_equal(LNetPeerDiscovered(&p), -EHOSTUNREACH);
	/* peer add makes the peer discovery made again (lnet_peer_add): a new one, queued */
	assert_int_equal(lnet_ctl_peer_add(&p, NULL, 0, true, err, sizeof(err)), 0);
	assert_int_equal(LNetPeerDiscovered(&p), -EAGAIN);
	assert_int_equal(LNetPeerDiscovered(&p), -EHOSTUNREACH);
	assert_int_equal(LNetPeerDiscovered(NULL), -EINVAL);
}

static void
test_discovery_status(void **state)
{
	(void)state;
	assert_int_equal(LNetGetPeerDiscoveryStatus(), 1); /* the kernel's default */
	set_discovery(0);
	assert_int_equal(LNetGetPeerDiscoveryStatus(), 0);
	set_discovery(1);
	assert_int_equal(LNetGetPeerDiscoveryStatus(), 1);
}

#define T_STATE_LOCKED_MR (LNET_CTL_PEER_MULTI_RAIL | LNET_CTL_PEER_LOCK_PRIMARY)

/* Discovery on: the first NID a locked Multi-Rail peer, each other one its own Multi-Rail peer. */
static void
test_add_peer_discovery_on(void **state)
{
	struct lnet_nid lo, first = t_nid(10, 0), second = lnp_tcp_nid(0x0a00000b);
	struct lnet_nid nids[4];
	struct lnet_ctl_peer out;

	(void)state;
	lnet_nid_set_lo0(&lo);
	nids[0] = lo;
	nids[1] = first;
	nids[2] = second; /* on a net we have no NI on: discovery may reach it */
	nids[3] = first;
	LNetAddPeer(nids, 4);
	assert_int_equal(peer_of(&first, &out), 1);
	assert_int_equal(out.state & T_STATE_LOCKED_MR, T_STATE_LOCKED_MR);
	assert_int_equal(out.nnis, 1);
	assert_int_equal(peer_of(&second, &out), 1);
	assert_int_equal(out.state & T_STATE_LOCKED_MR, LNET_CTL_PEER_MULTI_RAIL);
	assert_int_equal(peer_of(&lo, &out), 0);
	/* again: nothing changes */
	LNetAddPeer(nids, 4);
	assert_int_equal(peer_of(&first, &out), 1);
	assert_int_equal(out.nnis, 1);
	/* nothing to add */
	LNetAddPeer(NULL, 2);
	LNetAddPeer(nids, 0);
}

/* Discovery off: only NIDs on our nets, each a locked non-Multi-Rail peer. */
static void
test_add_peer_discovery_off(void **state)
{
	struct lnet_nid a1 = t_nid(1, 0);
	struct lnet_nid nids[3] = { t_nid(20, 0), lnp_tcp_nid(0x0a000015), t_nid(22, 0) };
	struct lnet_ctl_peer out;

	(void)state;
	ni_add(&a1);
	set_discovery(0);
	LNetAddPeer(nids, 3);
	assert_int_equal(peer_of(&nids[0], &out), 1);
	assert_int_equal(out.state & T_STATE_LOCKED_MR, LNET_CTL_PEER_LOCK_PRIMARY);
	assert_int_equal(peer_of(&nids[1], &out), 0);
	assert_int_equal(peer_of(&nids[2], &out), 1);
	assert_int_equal(out.state & T_STATE_LOCKED_MR, LNET_CTL_PEER_LOCK_PRIMARY);
	assert_true(nid_eq(&out.nis[0], &nids[2]));
}

/* NIDs other peers have: locked and configured peers keep them, learned ones are replaced. */
static void
test_add_peer_existing(void **state)
{
	struct lnet_nid l = lnp_tcp_nid(0x0b000001), ls = lnp_tcp_nid(0x0b000002);
	struct lnet_nid c = lnp_tcp_nid(0x0b000011), cs = lnp_tcp_nid(0x0b000012);
	struct lnet_nid t = lnp_tcp_nid(0x0b000021), n = lnp_tcp_nid(0x0b000031);
	struct lnet_ctl_peer out;
	char err[128];

	(void)state;
	assert_int_equal(lnet_ctl_peer_add_lock(&l, &ls, 1, true, true, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_add(&c, &cs, 1, true, err, sizeof(err)), 0);

	/* a locked peer's secondary: that peer is the one, its primary is not added again */
	LNetAddPeer((struct lnet_nid[]){ ls, l, n }, 3);
	assert_int_equal(peer_of(&l, &out), 1);
	assert_int_equal(out.nnis, 2);
	assert_true(nid_eq(&out.nis[1], &ls));
	assert_int_equal(peer_of(&n, &out), 1);
	assert_true(nid_eq(&out.nis[0], &n));

	/* a configured peer keeps its NIDs */
	LNetAddPeer(&cs, 1);
	assert_int_equal(peer_of(&cs, &out), 1);
	assert_true(nid_eq(&out.nis[0], &c));
	assert_int_equal(out.nnis, 2);

	/* a peer traffic created becomes the locked Multi-Rail peer */
	lnet_peer_dir_learn(lnet_instance(), &t, NULL);
	assert_int_equal(peer_of(&t, &out), 1);
	assert_int_equal(out.state, 0);
	LNetAddPeer(&t, 1);
	assert_int_equal(peer_of(&t, &out), 1);
	assert_int_equal(out.state & T_STATE_LOCKED_MR, T_STATE_LOCKED_MR);
}

/* Every call with LNet down: an error or nothing done, never a crash. */
static void
test_down(void **state)
{
	struct lnet_nid n = lnp_tcp_nid(0x0a000001), was = n, lo;
	uint32_t order = 5;

	(void)state;
	lnet_nid_set_lo0(&lo);
	assert_null(lnet_instance());
	assert_int_equal(LNetDist(&n, &n, &order), -ENETDOWN);
	assert_int_equal(order, 5);
	assert_false(LNetIsPeerLocal(&lo));
	LNetPrimaryNID(&n);
	assert_true(nid_eq(&n, &was));
	LNetLocalPrimaryNID(&n);
	assert_true(nid_eq(&n, &was));
	assert_int_equal(LNetPeerDiscovered(&n), -ENETRESET);
	assert_int_equal(LNetPeerDiscovered(&lo), 1);
	assert_int_equal(LNetGetPeerDiscoveryStatus(), -ENETDOWN);
	LNetAddPeer(&n, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dist, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_is_peer_local, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_local_primary, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_primary_nid, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_peer_discovered, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_discovery_status, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_add_peer_discovery_on, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_add_peer_discovery_off, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_add_peer_existing, ut_setup2, ut_teardown),
		cmocka_unit_test(test_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
