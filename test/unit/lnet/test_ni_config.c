/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net add / net del as one operation on the management lcore with the ping
 * target rebuild (lnet_ni.c, lnet_ping.c): the ping lists exactly the NIs
 * configured, and old ping buffers and deleted NIs are retired, so a
 * thousand cycles leave nothing behind.
 */
#include "lnet_ut.h"
#include "lnp_test_nid.h"

UT_LND_NO_WIRE(t_ops, "cfg", 0xfc)

/* <addr>@ on t_ops' network type: lnet_ctl_ni_add() finds the LND by it. */
static struct lnet_nid
t_nid(uint32_t addr)
{
	struct lnet_nid nid = lnp_tcp_nid(addr);

	nid.nid_type = 0xfc;
	return nid;
}

static int
ctl_add(const struct lnet_nid *nid, unsigned int cpt)
{
	struct lnet_ctl_ni_tunables tun = { 180, 8, 0, 64 };
	char err[256] = "";
	int rc = lnet_ctl_ni_add(nid, NULL, &tun, NULL, cpt, err, sizeof(err));

	if (rc != 0) {
		print_message("net add: %s\n", err);
	}
	return rc;
}

static int
ctl_del(const struct lnet_nid *nid)
{
	char err[256] = "";
	int rc = lnet_ctl_ni_del(nid, err, sizeof(err));

	if (rc != 0) {
		print_message("net del: %s\n", err);
	}
	return rc;
}

static unsigned int
ping_self(struct lnet_ping_entry *nis, unsigned int cap, uint32_t *seqno)
{
	struct lnet_ping_decoded d;
	unsigned int n = ut_ping_self(nis, cap, &d);

	*seqno = d.seqno;
	return n;
}

static unsigned int
ping_bufs(void)
{
	struct lnet_ping_buf *b;
	unsigned int n = 0;

	LIST_FOREACH(b, &lnet_node(lnet_instance())->ping_bufs, link) {
		n++;
	}
	return n;
}

/*
 * net add / net del 1,000 times: each is one operation with its ping target
 * rebuild; old ping buffers and deleted NIs are retired, so nothing grows;
 * the ping lists exactly the NIs configured, with a new sequence number.
 */
static void
test_ni_cycles_bounded(void **state)
{
	struct lnet *ln = lnet_instance();
	struct lnet_nid nid = t_nid(0x0a000063);
	struct lnet_nid nid0 = t_nid(0x0a000062);
	struct lnet_ni_req add = {
		.add = true,
		.nid = &nid,
		.lnd = &t_ops,
		.tun = { .peer_tx_credits = 8, .max_tx_credits = 64 },
		.cpt = 0,
	};
	struct lnet_ping_entry nis[4];
	uint32_t seq0;
	uint32_t seq;
	uint32_t active = ln->cpts[0]->mds.nactive;
	unsigned int i;

	(void)state;
	assert_int_equal(ctl_add(&nid0, ln->ncpts - 1), 0);
	assert_int_equal(ping_self(nis, 4, &seq0), 1);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(ctl_add(&nid, i % ln->ncpts), 0);
		assert_int_equal(ctl_del(&nid), 0);
		rt_runtime_poll_until_idle(ln->rt, 100);
		assert_true(ping_bufs() <= 2);
		assert_null(lnet_node(ln)->zombie_nis);
		assert_true(rt_rcu_pending(ln->rt) <= 4);
	}
	assert_int_equal(ln->cpts[0]->mds.nactive, active);
	assert_int_equal(ping_self(nis, 4, &seq), 1);
	assert_true(lnet_nid_same(&nis[0].nid, &nid0));
	assert_int_equal(seq, seq0 + 2000);
	assert_int_equal(lnet_ni_config(ln, &add), 0);
	assert_int_equal(ping_self(nis, 4, &seq), 2);
	assert_true(lnet_nid_same(&nis[1].nid, &nid));
	assert_int_equal(lnet_ni_del(ln, &ln->loni->nid), -EPERM);
	assert_int_equal(lnet_ni_del(ln, &nid), 0);
	assert_int_equal(lnet_ni_del(ln, &nid), -ENOENT);
	assert_int_equal(lnet_ni_config(ln, &add), 0);
	add.ping_rc = 1;
	assert_int_equal(lnet_ni_config(ln, &add), -EEXIST);
	assert_int_equal(add.ping_rc, 0);
}

/*
 * set discovery 0 clears the DISCOVERY feature of the ping target and 1
 * sets it again, with the same sequence number, as the kernel flips the
 * bit in place (s2_01 shows features 0xe); setting the same value again
 * rebuilds nothing.
 */
static void
test_discovery_feature_follows_setting(void **state)
{
	struct lnet_ping_entry nis[4];
	struct lnet_ping_decoded d;
	char err[128];
	unsigned int bufs;
	uint32_t seq;

	(void)state;
	ut_ping_self(nis, 4, &d);
	assert_int_equal(d.features & LNET_PING_FEAT_DISCOVERY, LNET_PING_FEAT_DISCOVERY);
	seq = d.seqno;
	assert_int_equal(lnet_ctl_global_set("discovery", 0, err, sizeof(err)), 0);
	ut_ping_self(nis, 4, &d);
	assert_int_equal(d.features & LNET_PING_FEAT_DISCOVERY, 0);
	assert_int_equal(d.features, LNET_PING_FEAT_NI_STATUS | LNET_PING_FEAT_RTE_DISABLED |
					     LNET_PING_FEAT_MULTI_RAIL);
	assert_int_equal(d.seqno, seq);
	bufs = ping_bufs();
	assert_int_equal(lnet_ctl_global_set("discovery", 0, err, sizeof(err)), 0);
	assert_true(ping_bufs() <= bufs);
	assert_int_equal(lnet_ctl_global_set("discovery", 1, err, sizeof(err)), 0);
	ut_ping_self(nis, 4, &d);
	assert_int_equal(d.features & LNET_PING_FEAT_DISCOVERY, LNET_PING_FEAT_DISCOVERY);
	assert_int_equal(d.seqno, seq);
}

/*
 * Whether a NID is ours (lnet_ni_find_by_nid, the NI table's NID index):
 * every NI of 40 is found, on two nets, and nothing else is (the same
 * address on another net or type, an address word beyond the first);
 * after half are deleted the rest are still found and the deleted not.
 */
static void
test_ni_lookup_by_nid(void **state)
{
	struct lnet *ln = lnet_instance();
	struct lnet_nid nids[40];
	unsigned int i;

	(void)state;
	for (i = 0; i < 40; i++) {
		nids[i] = t_nid(0x0a000100U + i);
		nids[i].nid_num = htons((uint16_t)(i % 2));
		assert_int_equal(ctl_add(&nids[i], i % ln->ncpts), 0);
	}
	for (i = 0; i < 40; i++) {
		struct lnet_ni *ni = lnet_ni_find_by_nid(ln, &nids[i]);
		struct lnet_nid other = nids[i];

		assert_non_null(ni);
		assert_true(lnet_nid_same(&ni->nid, &nids[i]));
		other.nid_num = htons((uint16_t)(2 + i % 2));
		assert_null(lnet_ni_find_by_nid(ln, &other));
		other = nids[i];
		other.nid_type = LNET_LND_SOCK;
		assert_null(lnet_ni_find_by_nid(ln, &other));
		other = nids[i];
		other.nid_addr[3] = 1;
		assert_null(lnet_ni_find_by_nid(ln, &other));
		other = nids[i];
		other.nid_addr[0] = htonl(0x0b000100U + i);
		assert_null(lnet_ni_find_by_nid(ln, &other));
	}
	assert_ptr_equal(lnet_ni_find_by_nid(ln, &ln->loni->nid), ln->loni);
	for (i = 0; i < 40; i += 2) {
		assert_int_equal(ctl_del(&nids[i]), 0);
	}
	rt_runtime_poll_until_idle(ln->rt, 100);
	for (i = 0; i < 40; i++) {
		struct lnet_ni *ni = lnet_ni_find_by_nid(ln, &nids[i]);

		if (i % 2 == 0) {
			assert_null(ni);
		} else {
			assert_non_null(ni);
			assert_true(lnet_nid_same(&ni->nid, &nids[i]));
		}
	}
}

/* What lnet_cpt_of_peer answered before its net index: a scan of the table's NIs. */
static unsigned int
cpt_of_peer_by_scan(struct lnet *ln, const struct lnet_nid *nid)
{
	const struct lnet_ni_table *t = lnet_ni_table_get(ln);
	unsigned int cpts[LNP_MAX_CPTS];
	unsigned int n = 0;
	unsigned int i;

	for (i = 0; i < t->nnis; i++) {
		if (t->nis[i]->net_id == lnet_nid_net(nid) && !t->nis[i]->any_cpt) {
			cpts[n++] = t->nis[i]->cpt;
		}
	}
	return n == 0 ? lnet_nid_cpt_hash(nid, ln->ncpts) : cpts[lnet_nid_cpt_hash(nid, n)];
}

static struct lnet_nid
t_nid_on(uint32_t addr, uint16_t num)
{
	struct lnet_nid nid = t_nid(addr);

	nid.nid_num = htons(num);
	return nid;
}

/* For 200 peers on each of nets 0..3, the shard the net index gives is the scan's. */
static void
expect_cpt_of_peer_as_scan(void)
{
	struct lnet *ln = lnet_instance();
	uint16_t num;
	uint32_t a;

	for (num = 0; num < 4; num++) {
		for (a = 0; a < 200; a++) {
			struct lnet_nid peer = t_nid_on(0x0b000000U + a * 7919U, num);

			assert_int_equal(lnet_cpt_of_peer(ln, &peer),
					 cpt_of_peer_by_scan(ln, &peer));
		}
	}
}

/*
 * A peer NI's shard from the published table's net index: the CPT of our
 * one NI on its net; by NID hash over a net's NIs' CPTs when they are
 * several (one per NI); by NID hash over all CPTs for a net we have no NI
 * on, or no longer have.
 */
static void
test_cpt_of_peer_by_net(void **state)
{
	struct lnet *ln = lnet_instance();
	struct lnet_nid net0[3] = { t_nid_on(0x0a000001U, 0), t_nid_on(0x0a000002U, 0),
				    t_nid_on(0x0a000003U, 0) };
	struct lnet_nid on1 = t_nid_on(0x0a010001U, 1), on2 = t_nid_on(0x0a020001U, 2);
	struct lnet_nid p1 = t_nid_on(0x0a010099U, 1), p2 = t_nid_on(0x0a020099U, 2);
	unsigned int seen[2] = { 0, 0 };
	uint32_t a;

	(void)state;
	assert_int_equal(ln->ncpts, 2);
	assert_int_equal(ctl_add(&net0[0], 0), 0);
	assert_int_equal(ctl_add(&net0[1], 1), 0);
	assert_int_equal(ctl_add(&net0[2], 0), 0);
	assert_int_equal(ctl_add(&on1, 1), 0);
	assert_int_equal(ctl_add(&on2, 0), 0);
	expect_cpt_of_peer_as_scan();
	assert_int_equal(lnet_cpt_of_peer(ln, &p1), 1);
	assert_int_equal(lnet_cpt_of_peer(ln, &p2), 0);
	for (a = 0; a < 200; a++) {
		struct lnet_nid peer = t_nid_on(0x0b000000U + a, 0);

		seen[lnet_cpt_of_peer(ln, &peer)]++;
	}
	assert_true(seen[0] > 0 && seen[1] > 0); /* net 0 spans both CPTs */

	assert_int_equal(ctl_del(&on1), 0);
	rt_runtime_poll_until_idle(ln->rt, 100);
	assert_int_equal(lnet_cpt_of_peer(ln, &p1), lnet_nid_cpt_hash(&p1, 2));
	assert_int_equal(ctl_add(&on1, 0), 0); /* back, on the other CPT */
	assert_int_equal(lnet_cpt_of_peer(ln, &p1), 0);
	assert_int_equal(ctl_del(&net0[1]), 0);
	rt_runtime_poll_until_idle(ln->rt, 100);
	expect_cpt_of_peer_as_scan();
}

struct shard_find {
	struct lnet_nid nid;
	struct lnet_peer_ni *lpni;
	unsigned int npeer_nis;
};

static int
shard_find_here(void *arg)
{
	struct shard_find *f = arg;
	struct lnet_cpt *c = lnet_cpt_self(lnet_instance());

	f->lpni = lnet_peer_ni_find(c, &f->nid);
	f->npeer_nis = c->peers.npeer_nis;
	return 0;
}

/* @p nid's peer NI in @p cpt's shard (NULL: none), looked up on that lcore. */
static struct shard_find
shard_find(unsigned int cpt, struct lnet_nid nid)
{
	struct shard_find f = { .nid = nid };

	assert_int_equal(lnet_call_on_cpt(lnet_instance(), cpt, shard_find_here, &f), 0);
	return f;
}

/* A PUT from @p from arrives on @p ni (no MD takes it): its peer NI is found or made. */
static void
put_from(struct lnet_ni *ni, struct lnet_nid from)
{
	struct lnet_hdr h = { .type = LNET_MSG_PUT,
			      .src_nid = from,
			      .dest_nid = ni->nid,
			      .src_pid = LNET_PID_LUSTRE,
			      .dest_pid = LNET_PID_LUSTRE };

	h.msg.put.ptl_index = 9;
	assert_int_equal(ut_parse(ni, &h, &from, NULL), 0);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
}

/*
 * net del, then net add of the same NID on the other CPT: the peer NIs of
 * that net now belong to the new CPT's shard. The one traffic makes there
 * takes the old one's place in its peer; the old one leaves its shard
 * (no second peer NI for the NID, none left holding a composition that
 * is retired) and stays only for what may still name it.
 */
static void
test_peer_ni_follows_its_net_to_another_cpt(void **state)
{
	struct lnet *ln = lnet_instance();
	struct lnet_nid me = t_nid_on(0x0a050001U, 5), peer = t_nid_on(0x0a050009U, 5);
	struct lnet_ctl_peer_ni st;
	struct shard_find old;
	struct shard_find now;

	(void)state;
	assert_int_equal(ctl_add(&me, 0), 0);
	put_from(lnet_ni_find_by_nid(ln, &me), peer);
	old = shard_find(0, peer);
	assert_non_null(old.lpni);
	assert_int_equal(old.lpni->cpt, 0);
	assert_non_null(rt_rcu_read((void *const *)&old.lpni->comp));

	assert_int_equal(ctl_del(&me), 0);
	rt_runtime_poll_until_idle(ln->rt, 100);
	assert_int_equal(ctl_add(&me, 1), 0);
	assert_int_equal(lnet_cpt_of_peer(ln, &peer), 1);
	put_from(lnet_ni_find_by_nid(ln, &me), peer);

	now = shard_find(1, peer);
	assert_non_null(now.lpni);
	assert_ptr_not_equal(now.lpni, old.lpni);
	assert_int_equal(now.lpni->cpt, 1);
	assert_non_null(rt_rcu_read((void *const *)&now.lpni->comp));
	assert_null(shard_find(0, peer).lpni);
	assert_int_equal(shard_find(0, peer).npeer_nis, old.npeer_nis - 1);
	assert_null(rt_rcu_read((void *const *)&old.lpni->comp));
	assert_int_equal(lnet_ctl_peer_ni_state(&peer, &st), 0);

	/* And back: a fresh one on CPT 0, the one on CPT 1 leaves in turn. */
	assert_int_equal(ctl_del(&me), 0);
	rt_runtime_poll_until_idle(ln->rt, 100);
	assert_int_equal(ctl_add(&me, 0), 0);
	put_from(lnet_ni_find_by_nid(ln, &me), peer);
	assert_non_null(shard_find(0, peer).lpni);
	assert_ptr_not_equal(shard_find(0, peer).lpni, old.lpni);
	assert_null(shard_find(1, peer).lpni);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ni_cycles_bounded, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_ni_cycles_bounded, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_discovery_feature_follows_setting, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_ni_lookup_by_nid, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_cpt_of_peer_by_net, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_peer_ni_follows_its_net_to_another_cpt,
						ut_setup2, ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
