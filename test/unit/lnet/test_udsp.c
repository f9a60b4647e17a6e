/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UDSP (lnet_udsp.c, lnet_udsp_ctl.c, seed 001, lnet-facts §10): rule
 * descriptors as the kernel's lnetctl parses and prints them, the rule
 * checks and their words, index order, flattening (the rule of lowest
 * index decides), and on a node in simulated mode: where PUTs go under
 * each rule kind, with health still first, rules following NIs and peers
 * that come later, and deletion giving back the spreading.
 *
 * The node's LND takes the o2ib type (IP addresses, no o2ib LND is built
 * yet), so rules read as an administrator writes them.
 */
#include "lnet_peer_dir.h"
#include "lnet_udsp.h"
#include "lnet_ut.h"

/* ---- descriptors ---------------------------------------------------------- */

static void
descr_round_trip(const char *in, const char *want)
{
	struct cfs_nid_parts d;
	char buf[CFS_NID_PARTS_LEN];

	assert_int_equal(cfs_nid_parts_parse(in, &d), 0);
	assert_true(cfs_nid_parts_print(&d, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, want);
	cfs_nid_parts_fini(&d);
}

static void
test_descr_forms(void **state)
{
	(void)state;
	descr_round_trip("tcp", "tcp");
	descr_round_trip("tcp1", "tcp1");
	descr_round_trip("o2ib[1-3]", "o2ib[1-3]");
	descr_round_trip("tcp*", "tcp[0-4294967295]"); /* the kernel prints a star as its range */
	descr_round_trip("10.0.0.1@tcp", "10.0.0.1@tcp");
	descr_round_trip("10.0.0.[1-4]@tcp1", "10.0.0.[1-4]@tcp1");
	descr_round_trip("10.0.[1,3-5/2].*@o2ib", "10.0.[1,3-5/2].[0-255]@o2ib");
	descr_round_trip("[1-3]@gni", "[1-3]@gni");
	descr_round_trip("tcp1[2]", "tcp2"); /* the kernel reads the numbers from the '[' */
}

static void
test_descr_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"foo",
		"10.0.0.1",
		"*@tcp",
		"10.0.0@tcp",
		"10.0.0.1.2@tcp",
		"10.0.0.256@tcp",
		"10.0.0.[5-1]@tcp",
		"@tcp",
		"10.0.0.1@",
		"10.0.0.1@bogus",
		"tcp*[1]",
		"tcp[1",
		"tcpx",
		"10.0.0.[1,]@tcp",
	};
	struct cfs_nid_parts d;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cfs_nid_parts_parse(bad[i], &d), -EINVAL);
		assert_false(cfs_nid_parts_present(&d));
	}
}

static struct lnet_nid
nid(const char *s)
{
	struct lnet_nid n;

	assert_int_equal(libcfs_strnid(&n, s), 0);
	return n;
}

static bool
matches(const char *descr, const char *n)
{
	struct cfs_nid_parts d;
	struct lnet_nid x = nid(n);
	bool r;

	assert_int_equal(cfs_nid_parts_parse(descr, &d), 0);
	r = cfs_nid_parts_match_nid(&d, &x);
	cfs_nid_parts_fini(&d);
	return r;
}

static bool
matches_net(const char *descr, const char *net)
{
	struct cfs_nid_parts d;
	bool r;

	assert_int_equal(cfs_nid_parts_parse(descr, &d), 0);
	r = cfs_nid_parts_match_net(&d, libcfs_str2net(net));
	cfs_nid_parts_fini(&d);
	return r;
}

static void
test_descr_matching(void **state)
{
	(void)state;
	assert_true(matches("10.0.0.[1-4]@tcp", "10.0.0.3@tcp"));
	assert_false(matches("10.0.0.[1-4]@tcp", "10.0.0.5@tcp"));
	assert_false(matches("10.0.0.[1-4]@tcp", "10.0.0.3@tcp1")); /* "tcp" is tcp0 */
	assert_true(matches("10.0.0.[1-4]@tcp*", "10.0.0.3@tcp7"));
	assert_true(matches("*.*.*.[2-254/2]@o2ib", "192.168.1.8@o2ib"));
	assert_false(matches("*.*.*.[2-254/2]@o2ib", "192.168.1.9@o2ib"));
	assert_false(matches("10.0.0.3@tcp", "10.0.0.3@o2ib"));
	assert_false(matches("tcp", "10.0.0.3@tcp")); /* a net descriptor matches no NID */
	assert_true(matches("[1-3]@gni", "2@gni"));
	assert_true(matches_net("tcp", "tcp"));
	assert_false(matches_net("tcp", "tcp1"));
	assert_true(matches_net("tcp[1-2]", "tcp2"));
	assert_false(matches_net("tcp[1-2]", "tcp3"));
	assert_true(matches_net("o2ib*", "o2ib9"));
	assert_false(matches_net("o2ib*", "tcp"));
}

/* ---- rules and their order ------------------------------------------------ */

static int
make(const char *src, const char *dst, const char *rte, long prio, struct lnet_udsp_rule **r,
     char *err)
{
	return lnet_udsp_rule_make(src, dst, rte, prio, r, err, 128);
}

static void
test_rule_checks(void **state)
{
	struct lnet_udsp_rule *r;
	char err[128];

	(void)state;
	assert_int_equal(make(NULL, "", NULL, 0, &r, err), -EINVAL);
	assert_string_equal(err, "Missing required argument(s)");
	assert_int_equal(make("tcp", "tcp1", "10.0.0.1@tcp", -1, &r, err), -EINVAL);
	assert_string_equal(err, "The combination of src, dst and rte is not supported");
	assert_int_equal(make("tcp", NULL, "10.0.0.1@tcp", -1, &r, err), -EINVAL);
	assert_string_equal(err, "src and rte cannot be combined");
	assert_int_equal(make("tcpx", NULL, NULL, 1, &r, err), -EINVAL);
	assert_string_equal(err, "failed to parse src parameter");
	assert_int_equal(make(NULL, "1.2.3@tcp", NULL, 1, &r, err), -EINVAL);
	assert_string_equal(err, "failed to parse dst parameter");
	assert_int_equal(make(NULL, "tcp", "x@tcp", -1, &r, err), -EINVAL);
	assert_string_equal(err, "failed to parse rte parameter");
	assert_null(r);

	/* one descriptor without a priority: priority 0 (the kernel's default) */
	assert_int_equal(make("tcp", NULL, NULL, -1, &r, err), 0);
	assert_int_equal(r->action, LNET_UDSP_ACTION_PRIORITY);
	assert_int_equal(r->priority, 0);
	lnet_udsp_rule_free(r);
	/* a pair without a priority: a preferred list */
	assert_int_equal(make("10.0.0.1@tcp", "10.0.0.9@tcp", NULL, -1, &r, err), 0);
	assert_int_equal(r->action, LNET_UDSP_ACTION_PREF);
	lnet_udsp_rule_free(r);
	/* rte alone is taken (and applies to nothing, as in the kernel) */
	assert_int_equal(make(NULL, NULL, "10.0.0.1@tcp", -1, &r, err), 0);
	lnet_udsp_rule_free(r);
}

static void
add(struct lnet_udsp_set *s, const char *src, const char *dst, long prio, int idx, int want)
{
	struct lnet_udsp_rule *r;
	char err[128];
	int rc;

	assert_int_equal(make(src, dst, NULL, prio, &r, err), 0);
	rc = lnet_udsp_set_add(s, r, idx, NULL);
	assert_int_equal(rc, want);
	if (rc != 0) {
		lnet_udsp_rule_free(r);
	}
}

static const char *
src_of(const struct lnet_udsp_set *s, unsigned int i, char *buf)
{
	assert_true(i < s->n);
	cfs_nid_parts_print(&s->rules[i]->src, buf, CFS_NID_PARTS_LEN);
	return buf;
}

static void
test_index_order(void **state)
{
	struct lnet_udsp_set s;
	char buf[CFS_NID_PARTS_LEN];

	(void)state;
	lnet_udsp_set_init(&s);
	add(&s, "tcp", NULL, 1, -1, 0);
	add(&s, "tcp1", NULL, 1, -1, 0);
	add(&s, "tcp2", NULL, 1, 0, 0);  /* inserted first */
	add(&s, "tcp3", NULL, 1, 2, 0);  /* before tcp1 */
	add(&s, "tcp4", NULL, 1, 99, 0); /* past the end: last */
	assert_int_equal(s.n, 5);
	assert_string_equal(src_of(&s, 0, buf), "tcp2");
	assert_string_equal(src_of(&s, 1, buf), "tcp");
	assert_string_equal(src_of(&s, 2, buf), "tcp3");
	assert_string_equal(src_of(&s, 3, buf), "tcp1");
	assert_string_equal(src_of(&s, 4, buf), "tcp4");
	/* the same descriptors: a new priority updates in place; the same one is refused */
	add(&s, "tcp1", NULL, 7, 0, 0);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.rules[3]->priority, 7);
	add(&s, "tcp1", NULL, 7, -1, -EALREADY);
	add(&s, "10.0.0.1@tcp", "10.0.0.2@tcp", -1, -1, 0);
	add(&s, "10.0.0.1@tcp", "10.0.0.2@tcp", -1, -1, -EALREADY);
	/* delete from the middle: the ones after move up */
	assert_int_equal(lnet_udsp_set_del(&s, 1), 0);
	assert_string_equal(src_of(&s, 1, buf), "tcp3");
	assert_int_equal(lnet_udsp_set_del(&s, 9), -ENOENT);
	assert_int_equal(lnet_udsp_set_del(&s, -1), 0);
	assert_int_equal(s.n, 0);
	lnet_udsp_set_fini(&s);
}

/* The rule of lowest index that matches decides; deleting it gives back the next one's value. */
static void
test_flatten_lowest_index_wins(void **state)
{
	struct lnet_udsp_set s;
	struct lnet_nid a = nid("10.0.0.1@tcp");
	struct lnet_nid b = nid("10.0.0.2@tcp");

	(void)state;
	lnet_udsp_set_init(&s);
	assert_int_equal(lnet_udsp_local_ni_prio(&s, &a), LNET_UDSP_PRIO_NONE);
	add(&s, "10.0.0.[1-2]@tcp", NULL, 5, -1, 0);
	add(&s, "10.0.0.1@tcp", NULL, 3, -1, 0);
	assert_int_equal(lnet_udsp_local_ni_prio(&s, &a), 5);
	assert_int_equal(lnet_udsp_local_ni_prio(&s, &b), 5);
	add(&s, "10.0.0.1@tcp", NULL, 3, -1, -EALREADY);
	assert_int_equal(lnet_udsp_set_del(&s, 0), 0);
	assert_int_equal(lnet_udsp_local_ni_prio(&s, &a), 3);
	assert_int_equal(lnet_udsp_local_ni_prio(&s, &b), LNET_UDSP_PRIO_NONE);
	/* nets and NIDs are separate values; local and peer ones too */
	add(&s, "tcp", NULL, 2, -1, 0);
	add(&s, NULL, "tcp", 4, -1, 0);
	add(&s, NULL, "10.0.0.2@tcp", 6, -1, 0);
	assert_int_equal(lnet_udsp_local_net_prio(&s, libcfs_str2net("tcp")), 2);
	assert_int_equal(lnet_udsp_local_net_prio(&s, libcfs_str2net("tcp1")), LNET_UDSP_PRIO_NONE);
	assert_int_equal(lnet_udsp_peer_net_prio(&s, libcfs_str2net("tcp")), 4);
	assert_int_equal(lnet_udsp_peer_ni_prio(&s, &b), 6);
	assert_int_equal(lnet_udsp_peer_ni_prio(&s, &a), LNET_UDSP_PRIO_NONE);
	assert_int_equal(lnet_udsp_local_ni_prio(&s, &b), LNET_UDSP_PRIO_NONE);
	/* a pair given a priority sets nothing (the kernel refuses to apply it) */
	add(&s, "10.0.0.1@tcp", "10.0.0.2@tcp", 0, 0, 0);
	assert_int_equal(lnet_udsp_peer_ni_prio(&s, &b), 6);
	assert_int_equal(lnet_udsp_local_ni_prio(&s, &a), 3);
	lnet_udsp_set_fini(&s);
}

static void
test_compiled_preferred_lists(void **state)
{
	struct lnet_nid local[3] = { nid("10.0.0.1@tcp"), nid("10.0.0.2@tcp"),
				     nid("10.1.0.1@tcp1") };
	struct lnet_nid p1 = nid("10.0.9.1@tcp");
	struct lnet_nid p2 = nid("10.0.9.2@tcp");
	struct lnet_nid p3 = nid("10.1.9.1@tcp1");
	struct lnet_udsp_compiled c;
	struct lnet_udsp_set s;
	const struct lnet_nid *l;
	unsigned int n;

	(void)state;
	lnet_udsp_set_init(&s);
	add(&s, "10.0.0.2@tcp", "10.0.9.1@tcp", -1, -1, 0);
	add(&s, "10.0.0.[1-2]@tcp", "tcp", -1, -1, 0); /* every peer NI on tcp: both NIs */
	add(&s, "10.9.9.9@tcp", "tcp1", -1, -1, 0);    /* matches no local NI: no list */
	add(&s, "tcp1", "tcp1", -1, -1, 0); /* a net src matches no NI, as in the kernel */
	assert_int_equal(lnet_udsp_compile(&s, local, 3, NULL, 0, &c), 0);
	l = lnet_udsp_pref(&c, false, &p1, &n);
	assert_int_equal(n, 1);
	assert_true(lnet_nid_same(&l[0], &local[1]));
	l = lnet_udsp_pref(&c, false, &p2, &n);
	assert_int_equal(n, 2);
	assert_true(lnet_nid_same(&l[0], &local[0]) && lnet_nid_same(&l[1], &local[1]));
	assert_null(lnet_udsp_pref(&c, false, &p3, &n));
	assert_int_equal(n, 0);
	assert_null(lnet_udsp_pref(&c, true, &p1, &n)); /* no gateways yet */
	lnet_udsp_compiled_fini(&c);
	lnet_udsp_set_fini(&s);
}

/* Router rules: the gateways rte matches become the preferred routers of the peer NIs dst matches. */
static void
test_compiled_router_lists(void **state)
{
	struct lnet_nid gws[3] = { nid("10.0.0.5@tcp"), nid("10.0.0.6@tcp"), nid("10.0.0.9@tcp") };
	struct lnet_nid far = nid("10.9.0.2@tcp1");
	struct lnet_nid other = nid("10.8.0.2@tcp1");
	struct lnet_udsp_compiled c;
	struct lnet_udsp_set s;
	struct lnet_udsp_rule *r;
	const struct lnet_nid *l;
	char err[128];
	unsigned int n;

	(void)state;
	lnet_udsp_set_init(&s);
	assert_int_equal(lnet_udsp_rule_make(NULL, "10.9.0.[1-9]@tcp1", "10.0.0.[5-8]@tcp", -1, &r,
					     err, sizeof(err)),
			 0);
	assert_int_equal(r->action, LNET_UDSP_ACTION_PREF);
	assert_int_equal(lnet_udsp_rule_aspects(r), LNET_UDSP_PREF_RTE);
	assert_int_equal(lnet_udsp_set_add(&s, r, -1, NULL), 0);
	assert_int_equal(lnet_udsp_compile(&s, NULL, 0, gws, 3, &c), 0);
	l = lnet_udsp_pref(&c, true, &far, &n);
	assert_int_equal(n, 2);
	assert_true(lnet_nid_same(&l[0], &gws[0]) && lnet_nid_same(&l[1], &gws[1]));
	assert_null(lnet_udsp_pref(&c, true, &other, &n));
	assert_null(lnet_udsp_pref(&c, false, &far, &n)); /* no preferred sources from it */
	lnet_udsp_compiled_fini(&c);
	lnet_udsp_set_fini(&s);
}

/* ---- on a node ------------------------------------------------------------- */

#define UD_MAX 512

static struct {
	struct lnet_nid src[UD_MAX];
	struct lnet_nid dst[UD_MAX];
	unsigned int n;
} g_ud;

static int
ud_startup(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

static void
ud_shutdown(struct lnet_ni *ni)
{
	(void)ni;
}

/* Records the path and completes at once. */
static int
ud_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	if (g_ud.n < UD_MAX) {
		g_ud.src[g_ud.n] = *lnet_ni_nid(ni);
		g_ud.dst[g_ud.n] = lnet_msg_hdr(msg)->dest_nid;
		g_ud.n++;
	}
	lnet_finalize(msg, 0);
	return 0;
}

static const struct lnet_lnd_ops ud_ops = {
	.name = "ud",
	.type = LNET_LND_O2IB,
	.startup = ud_startup,
	.shutdown = ud_shutdown,
	.send = ud_send,
	.recv = ut_lnd_recv_arrived,
};
LNET_LND_REGISTER(ud_ops)

static struct lnet *
ln(void)
{
	return lnet_instance();
}

static void
poll_idle(void)
{
	rt_runtime_poll_until_idle(ln()->rt, 1000);
}

static void
ni_add(const char *n)
{
	struct lnet_nid x = nid(n);
	struct lnet_ni_tunables tun = { .peer_tx_credits = 8, .max_tx_credits = 64 };
	struct lnet_ni_req req = { .add = true, .nid = &x, .lnd = &ud_ops, .tun = tun };

	assert_int_equal(lnet_ni_config(ln(), &req), 0);
}

static void
peer_add(const char *prim, const char *other)
{
	struct lnet_nid p = nid(prim);
	struct lnet_nid o = nid(other);
	char err[128];

	assert_int_equal(lnet_ctl_peer_add(&p, &o, 1, true, err, sizeof(err)), 0);
}

static void
rule(const char *src, const char *dst, long prio)
{
	char err[256];

	assert_int_equal(lnet_ctl_udsp_add(src, dst, NULL, prio, -1, err, sizeof(err)), 0);
	poll_idle();
}

static void
rules_clear(void)
{
	assert_int_equal(lnet_ctl_udsp_del(-1), 0);
	poll_idle();
}

static char g_buf[64];

/* @p n PUTs to @p dst, each completed before the next (credits stay equal). */
static void
puts_to(const char *dst, unsigned int n)
{
	struct lnet_processid to = { .pid = LNET_PID_LUSTRE, .nid = nid(dst) };
	unsigned int i;

	memset(&g_ud, 0, sizeof(g_ud));
	for (i = 0; i < n; i++) {
		struct lnet_handle_md h = ut_bind(g_buf, sizeof(g_buf), 1);

		assert_int_equal(LNetPut(NULL, h, LNET_NOACK_REQ, &to, UT_PORTAL, 7, 0, 0), 0);
		poll_idle();
		ut_event();
	}
	assert_int_equal(g_ud.n, n);
}

static unsigned int
sent(const char *src, const char *dst)
{
	struct lnet_nid s = src != NULL ? nid(src) : LNET_ANY_NID;
	struct lnet_nid d = dst != NULL ? nid(dst) : LNET_ANY_NID;
	unsigned int i;
	unsigned int k = 0;

	for (i = 0; i < g_ud.n; i++) {
		if ((src == NULL || lnet_nid_same(&g_ud.src[i], &s)) &&
		    (dst == NULL || lnet_nid_same(&g_ud.dst[i], &d))) {
			k++;
		}
	}
	return k;
}

#define A1 "10.0.0.1@o2ib"
#define A2 "10.0.0.2@o2ib"
#define B1 "10.0.1.1@o2ib"
#define B2 "10.0.1.2@o2ib"

/* Two NIs on o2ib, a Multi-Rail peer with two NIDs on it, discovery off. */
static int
setup_one_net(void **state)
{
	(void)state;
	ut_up(1);
	ut_discovery(0);
	ni_add(A1);
	ni_add(A2);
	peer_add(B1, B2);
	poll_idle();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	ut_down();
	return 0;
}

/* Without rules both rails carry traffic; deleting the rules brings that back. */
static void
spreads(void)
{
	puts_to(B1, 40);
	assert_int_equal(sent(A1, NULL), 20);
	assert_int_equal(sent(A2, NULL), 20);
	assert_int_equal(sent(NULL, B1), 20);
	assert_int_equal(sent(NULL, B2), 20);
}

static void
test_node_nid_priority(void **state)
{
	(void)state;
	spreads();
	rule(A2, NULL, 0); /* udsp add --src A2 --priority 0 */
	puts_to(B1, 40);
	assert_int_equal(sent(A2, NULL), 40);
	assert_int_equal(sent(NULL, B1), 20); /* the peer NIs still alternate */
	rule(NULL, B2, 0);                    /* --dst B2 --priority 0 */
	puts_to(B1, 40);
	assert_int_equal(sent(A2, B2), 40);
	rules_clear();
	spreads();
}

/*
 * A non-Multi-Rail peer keeps the local NI its first message went from (the
 * kernel's preferred NID), though round robin would alternate: selection's
 * cached view of the peer must take up the preference once it is recorded.
 */
static void
test_node_non_mr_peer_sticks(void **state)
{
	(void)state;
	puts_to("10.0.2.1@o2ib", 10); /* discovery off: known only as this NID */
	assert_true(sent(A1, NULL) == 10 || sent(A2, NULL) == 10);
	spreads(); /* the Multi-Rail peer beside it still alternates */
}

/* A NID pair: each local NI sends to the peer NI that prefers it. */
static void
test_node_nid_pair(void **state)
{
	(void)state;
	rule(A1, B2, -1);
	rule(A2, B1, -1);
	puts_to(B1, 40);
	assert_int_equal(sent(A1, B2), 20);
	assert_int_equal(sent(A2, B1), 20);
	assert_int_equal(sent(A1, B1) + sent(A2, B2), 0);
	/* with A1 preferred too, the whole path is pinned: 100% and 0% */
	rule(A1, NULL, 0);
	puts_to(B1, 40);
	assert_int_equal(sent(A1, B2), 40);
	rules_clear();
	spreads();
}

/* Health comes before any rule: the preferred NI failing does not stop traffic. */
static void
test_node_health_first(void **state)
{
	struct lnet_nid a2nid = nid(A2);
	struct lnet_ni *a2 = lnet_ni_find_by_nid(ln(), &a2nid);

	(void)state;
	assert_non_null(a2);
	rule(A2, NULL, 0);
	__atomic_store_n(&a2->health.value, 500, __ATOMIC_RELAXED);
	puts_to(B1, 10);
	assert_int_equal(sent(A1, NULL), 10);
	__atomic_store_n(&a2->health.value, LNET_MAX_HEALTH_VALUE, __ATOMIC_RELAXED);
	puts_to(B1, 10);
	assert_int_equal(sent(A2, NULL), 10);
	rules_clear();
}

static struct lnet_ctl_ni
ctl_ni(const char *n)
{
	struct lnet_ctl_ni nis[8];
	struct lnet_nid x = nid(n);
	int k = lnet_ctl_ni_list(nis, 8);
	int i;

	for (i = 0; i < k; i++) {
		if (lnet_nid_same(&nis[i].nid, &x)) {
			return nis[i];
		}
	}
	fail_msg("no NI %s", n);
	return nis[0];
}

/* Rules apply to NIs and peers that come after them, and show as net/peer show -v 4 do. */
static void
test_node_rules_follow_new_nis_and_peers(void **state)
{
	struct lnet_ctl_udsp_info info;
	struct lnet_nid c1 = nid("10.0.2.1@o2ib");
	struct lnet_nid a3 = nid("10.0.0.3@o2ib");

	(void)state;
	rule("10.0.0.[3-4]@o2ib", NULL, 2);
	rule("o2ib", NULL, 1);
	rule(NULL, "10.0.2.[1-9]@o2ib", 4);
	rule(NULL, "o2ib", 3);
	rule("10.0.0.3@o2ib", "10.0.2.1@o2ib", -1);
	assert_int_equal(ctl_ni(A1).udsp_nid_priority, -1);
	assert_int_equal(ctl_ni(A1).udsp_net_priority, 1);
	ni_add("10.0.0.3@o2ib");
	assert_int_equal(ctl_ni("10.0.0.3@o2ib").udsp_nid_priority, 2);
	peer_add("10.0.2.1@o2ib", "10.0.2.2@o2ib");
	poll_idle();
	assert_int_equal(lnet_ctl_peer_ni_udsp(&c1, &info), 0);
	assert_int_equal(info.nid_priority, 4);
	assert_int_equal(info.net_priority, 3);
	assert_int_equal(info.npref_src, 1);
	assert_true(lnet_nid_same(&info.pref_src[0], &a3));
	assert_int_equal(info.npref_gw, 0);
	/* the new peer's traffic follows: its preferred NID from the preferred NI */
	puts_to("10.0.2.1@o2ib", 10);
	assert_int_equal(sent("10.0.0.3@o2ib", "10.0.2.1@o2ib"), 10);
	/* deleting the NI takes it out of the peer's preferred list */
	assert_int_equal(lnet_ni_del(ln(), &a3), 0);
	poll_idle();
	assert_int_equal(lnet_ctl_peer_ni_udsp(&c1, &info), 0);
	assert_int_equal(info.npref_src, 0);
	rules_clear();
	assert_int_equal(lnet_ctl_peer_ni_udsp(&c1, &info), 0);
	assert_int_equal(info.nid_priority, -1);
	assert_int_equal(info.net_priority, -1);
	assert_int_equal(ctl_ni(A1).udsp_net_priority, -1);
}

/* What lnetctl udsp show reads, and the errors it hands on. */
static void
test_node_ctl_list_and_errors(void **state)
{
	struct lnet_ctl_udsp r[4];
	unsigned int total = 0;
	char err[256];

	(void)state;
	rule("o2ib", NULL, 1);
	assert_int_equal(lnet_ctl_udsp_add(NULL, B1, "10.0.3.1@o2ib", -1, 0, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_udsp_add("o2ib", NULL, NULL, 1, -1, err, sizeof(err)), -EALREADY);
	assert_string_equal(err, "cannot add udsp: Operation already in progress");
	assert_int_equal(lnet_ctl_udsp_add("o2ib", NULL, "x", 1, -1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "src and rte cannot be combined");
	assert_int_equal(lnet_ctl_udsp_list(0, r, 4, &total), 2);
	assert_int_equal(total, 2);
	assert_int_equal(r[0].idx, 0);
	assert_string_equal(r[0].src, "");
	assert_string_equal(r[0].dst, "10.0.1.1@o2ib");
	assert_string_equal(r[0].rte, "10.0.3.1@o2ib");
	assert_false(r[0].has_priority);
	assert_int_equal(r[1].idx, 1);
	assert_string_equal(r[1].src, "o2ib");
	assert_true(r[1].has_priority);
	assert_int_equal(r[1].priority, 1);
	assert_int_equal(lnet_ctl_udsp_list(1, r, 4, &total), 1);
	assert_int_equal(lnet_ctl_udsp_del(5), -ENOENT);
	assert_int_equal(lnet_ctl_udsp_del(0), 0);
	assert_int_equal(lnet_ctl_udsp_list(0, r, 4, &total), 1);
	assert_string_equal(r[0].src, "o2ib");
	rules_clear();
	assert_int_equal(lnet_ctl_udsp_list(0, r, 4, &total), 0);
}

/* Two nets, a peer on both: a net priority rule picks the net. */
static int
setup_two_nets(void **state)
{
	(void)state;
	ut_up(1);
	ut_discovery(0);
	ni_add(A1);
	ni_add("10.1.0.1@o2ib1");
	peer_add(B1, "10.1.1.1@o2ib1");
	poll_idle();
	return 0;
}

/*
 * A net pair as 2.17 takes one: NID descriptors whose addresses are all
 * wildcards (a bare net as src matches no NI, as in the kernel).
 */
static void
test_node_net_pair(void **state)
{
	struct lnet_ctl_udsp_info info;
	struct lnet_nid b1 = nid(B1);
	struct lnet_nid c1 = nid("10.1.1.1@o2ib1");
	struct lnet_nid a1 = nid("10.1.0.1@o2ib1");

	(void)state;
	rule("*.*.*.*@o2ib1", "*.*.*.*@o2ib1", -1);
	rule("o2ib", "*.*.*.*@o2ib", -1);
	assert_int_equal(lnet_ctl_peer_ni_udsp(&c1, &info), 0);
	assert_int_equal(info.npref_src, 1);
	assert_true(lnet_nid_same(&info.pref_src[0], &a1));
	assert_int_equal(lnet_ctl_peer_ni_udsp(&b1, &info), 0);
	assert_int_equal(info.npref_src, 0);
	rules_clear();
}

static void
test_node_net_priority(void **state)
{
	(void)state;
	puts_to(B1, 20);
	assert_int_equal(sent(A1, NULL), 10);
	rule("o2ib1", NULL, 0); /* the local net */
	puts_to(B1, 20);
	assert_int_equal(sent("10.1.0.1@o2ib1", "10.1.1.1@o2ib1"), 20);
	rules_clear();
	rule(NULL, "o2ib", 0); /* the peer's net */
	puts_to(B1, 20);
	assert_int_equal(sent(A1, B1), 20);
	rules_clear();
	puts_to(B1, 20);
	assert_int_equal(sent(A1, NULL), 10);
}

/* Peers 10.0.5.N with a second NID 10.0.6.N. */
static void
peers_add(unsigned int n)
{
	unsigned int i;
	char a[32];
	char b[32];

	for (i = 1; i <= n; i++) {
		snprintf(a, sizeof(a), "10.0.5.%u@o2ib", i);
		snprintf(b, sizeof(b), "10.0.6.%u@o2ib", i);
		peer_add(a, b);
	}
	poll_idle();
}

static unsigned int
pref_count(unsigned int i)
{
	struct lnet_ctl_udsp_info info;
	char a[32];
	struct lnet_nid x;

	snprintf(a, sizeof(a), "10.0.5.%u@o2ib", i);
	x = nid(a);
	assert_int_equal(lnet_ctl_peer_ni_udsp(&x, &info), 0);
	return info.npref_src;
}

static struct lnet_ctl_udsp_stats
stats(void)
{
	struct lnet_ctl_udsp_stats st;

	assert_int_equal(lnet_ctl_udsp_stats(&st), 0);
	return st;
}

/* A slice at a time: every peer is reached, and only those whose values change are published. */
static void
test_refresh_in_slices(void **state)
{
	struct lnet_ctl_udsp_stats st0;
	struct lnet_ctl_udsp_stats st1;
	unsigned int i;

	(void)state;
	peers_add(20);
	lnet_udsp_slice_peers(ln(), 3);
	st0 = stats();
	rule("10.0.0.[1-3]@o2ib", "10.0.5.[1-10]@o2ib", -1);
	st1 = stats();
	assert_int_equal(st1.applies - st0.applies, 1);
	assert_int_equal(st1.peers_updated - st0.peers_updated, 10);
	for (i = 1; i <= 20; i++) {
		assert_int_equal(pref_count(i), i <= 10 ? 2 : 0);
	}
	/* a rule that changes nothing of the peers publishes none of them */
	rule("o2ib", NULL, 3);
	assert_int_equal(stats().peers_updated, st1.peers_updated);
	/* an NI that the pair's src matches reaches the peers through a refresh of its own */
	ni_add("10.0.0.3@o2ib");
	poll_idle();
	for (i = 1; i <= 20; i++) {
		assert_int_equal(pref_count(i), i <= 10 ? 3 : 0);
	}
	rules_clear();
	for (i = 1; i <= 20; i++) {
		assert_int_equal(pref_count(i), 0);
	}
}

struct del_under_refresh {
	unsigned int deleted;
};

/* On mgmt: an NI change starts a refresh, then peers are deleted before its first slice. */
static int
change_then_delete_next(void *arg)
{
	struct del_under_refresh *x = arg;
	struct lnet_peer_dir *d = lnet_node(ln())->peer_dir;

	lnet_udsp_table_changed(ln());
	while (x->deleted < 3 && !TAILQ_EMPTY(&d->peers)) {
		lnet_peer_delete(d, TAILQ_FIRST(&d->peers), -EHOSTUNREACH);
		x->deleted++;
	}
	return 0;
}

/* The refresh's slice fires after the peers it was at are gone: it goes on with the next. */
static void
test_refresh_peer_deleted_under_it(void **state)
{
	struct del_under_refresh x = { 0 };
	struct lnet_ctl_udsp_stats st0;
	unsigned int i;

	(void)state;
	peers_add(8);
	lnet_udsp_slice_peers(ln(), 1);
	rule("10.0.0.[1-3]@o2ib", "10.0.5.[1-8]@o2ib", -1);
	st0 = stats();
	ni_add("10.0.0.3@o2ib");
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(ln()->rt), change_then_delete_next, &x), 0);
	assert_int_equal(x.deleted, 3);
	poll_idle();
	assert_true(stats().applies > st0.applies);
	for (i = 4; i <= 8; i++) {
		assert_int_equal(pref_count(i), 3);
	}
}

/* LNet shuts down while a refresh still has slices to go: its timer goes with it, nothing read after free. */
static void
test_refresh_pending_at_shutdown(void **state)
{
	struct del_under_refresh none = { .deleted = 3 };

	(void)state;
	peers_add(6);
	lnet_udsp_slice_peers(ln(), 1);
	rule("10.0.0.[1-3]@o2ib", "10.0.5.[1-6]@o2ib", -1);
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(ln()->rt), change_then_delete_next, &none), 0);
	assert_true(lnet_udsp_refresh_pending(ln()));
	/* teardown: LNetNIFini with the slice armed */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descr_forms),
		cmocka_unit_test(test_descr_refused),
		cmocka_unit_test(test_descr_matching),
		cmocka_unit_test(test_rule_checks),
		cmocka_unit_test(test_index_order),
		cmocka_unit_test(test_flatten_lowest_index_wins),
		cmocka_unit_test(test_compiled_preferred_lists),
		cmocka_unit_test(test_compiled_router_lists),
		cmocka_unit_test_setup_teardown(test_node_nid_priority, setup_one_net, teardown),
		cmocka_unit_test_setup_teardown(test_node_nid_pair, setup_one_net, teardown),
		cmocka_unit_test_setup_teardown(test_node_non_mr_peer_sticks, setup_one_net,
						teardown),
		cmocka_unit_test_setup_teardown(test_node_health_first, setup_one_net, teardown),
		cmocka_unit_test_setup_teardown(test_node_rules_follow_new_nis_and_peers,
						setup_one_net, teardown),
		cmocka_unit_test_setup_teardown(test_node_ctl_list_and_errors, setup_one_net,
						teardown),
		cmocka_unit_test_setup_teardown(test_node_net_priority, setup_two_nets, teardown),
		cmocka_unit_test_setup_teardown(test_node_net_pair, setup_two_nets, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_in_slices, setup_one_net, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_peer_deleted_under_it, setup_one_net,
						teardown),
		cmocka_unit_test_setup_teardown(test_refresh_pending_at_shutdown, setup_one_net,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
