/* SPDX-License-Identifier: BSD-3-Clause */
/* The peer directory: add/del rules (over configured and unconfigured peers), paging, 100,000 peers. */
#include "lnet_ctl.h"
#include "lnet_peer_dir.h"
#include "lnet_ut.h"
#include "lnp_test_nid.h"

static void
test_add_del_rules(void **state)
{
	struct lnet_nid p = lnp_tcp_nid(0x0a000001);
	struct lnet_nid s[2] = { lnp_tcp_nid(0x0a000002), lnp_tcp_nid(0x0a000003) };
	struct lnet_ctl_peer out[4];
	struct lnet_nid o = lnp_tcp_nid(0x0a000010);
	struct lnet_nid o1 = o;
	struct lnet_nid o2 = lnp_tcp_nid(0x0a000011);
	struct lnet_ctl_peer_ni st;
	uint64_t next = 99;
	char err[128];

	(void)state;
	o1.nid_num = 1; /* the same address on tcp1 */
	assert_int_equal(lnet_ctl_peer_add(&p, s, 2, true, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_list(0, NULL, out, 4, &next), 1);
	assert_int_equal(next, 0);
	assert_true(out[0].mr);
	assert_int_equal(out[0].nnis, 3);
	assert_true(lnet_nid_same(&out[0].nis[0], &p));
	/* a NID belongs to one peer */
	assert_int_equal(lnet_ctl_peer_add(&s[0], NULL, 0, true, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "not a primary NID"));
	/* the peer's own NIDs again: no error, nothing added (the kernel's lnet_peer_add_nid) */
	assert_int_equal(lnet_ctl_peer_add(&p, &s[1], 1, true, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_add(&p, &p, 1, true, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_list(0, NULL, out, 4, &next), 1);
	assert_int_equal(out[0].nnis, 3);
	/* a configured peer's NID is refused to another peer (lnet_peer_add_nid's -EEXIST) */
	assert_int_equal(lnet_ctl_peer_add(&o, NULL, 0, false, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_add(&o, s, 1, false, err, sizeof(err)), -EEXIST);
	/* a non-MR peer: one NID a net (-ENOTUNIQ), other nets are fine */
	assert_int_equal(lnet_ctl_peer_add(&o, &o2, 1, false, err, sizeof(err)), -ENOTUNIQ);
	assert_non_null(strstr(err, "not Multi-Rail"));
	assert_int_equal(lnet_ctl_peer_add(&o, &o1, 1, false, err, sizeof(err)), 0);
	/* the Multi-Rail flag of a configured peer stays (lnet_add_peer_ni's -EPERM) */
	assert_int_equal(lnet_ctl_peer_add(&o, NULL, 0, true, err, sizeof(err)), -EPERM);
	assert_int_equal(lnet_ctl_peer_add_nids(&o, &o2, 1, true, false, err, sizeof(err)), -EPERM);
	assert_int_equal(lnet_ctl_peer_del(&o, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_add(&LNET_ANY_NID, NULL, 0, true, err, sizeof(err)),
			 -EINVAL);
	/* delete one secondary, then the peer */
	assert_int_equal(lnet_ctl_peer_del(&p, &s[0], 1, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_list(0, &p, out, 4, &next), 1);
	assert_int_equal(out[0].nnis, 2);
	assert_int_equal(lnet_ctl_peer_del(&p, &s[0], 1, err, sizeof(err)), -ENOENT);
	assert_int_equal(lnet_ctl_peer_del(&s[1], NULL, 0, err, sizeof(err)),
			 -ENODEV); /* not its primary */
	/* the primary as a NID: the whole peer goes (lnet_del_peer_ni) */
	assert_int_equal(lnet_ctl_peer_del(&p, &p, 1, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_list(0, &p, out, 4, &next), 0);
	assert_int_equal(lnet_ctl_peer_list(0, &s[1], out, 4, &next), 0);
	assert_int_equal(lnet_ctl_peer_del(&p, NULL, 0, err, sizeof(err)), -ENOENT);
	/* its NIDs are free again */
	assert_int_equal(lnet_ctl_peer_add(&s[0], NULL, 0, true, err, sizeof(err)), 0);
	/* runtime state of a peer NI nobody sent to: no local tcp net, no credits */
	assert_int_equal(lnet_ctl_peer_ni_state(&s[0], &st), 0);
	assert_int_equal(st.max_tx_credits, 0);
	assert_int_equal(st.send_count, 0);
}

/* peer add --lock_prim / peer del [--force], and "peer state" (the kernel's lp_state bits). */
static void
test_lock_prim_and_force(void **state)
{
	struct lnet_nid p = lnp_tcp_nid(0x0c000001);
	struct lnet_nid s[2] = { lnp_tcp_nid(0x0c000002), lnp_tcp_nid(0x0c000003) };
	struct lnet_nid q = lnp_tcp_nid(0x0c000009);
	struct lnet_ctl_peer out[2];
	uint64_t next;
	char err[128];

	(void)state;
	assert_int_equal(lnet_ctl_peer_add_lock(&p, s, 2, true, true, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_list(0, &p, out, 2, &next), 1);
	assert_int_equal(out[0].state,
			 0x1 | 0x8 | 0x100000); /* MULTI_RAIL|CONFIGURED|LOCK_PRIMARY */
	/* without --force the locked primary stays, its other NIDs go */
	assert_int_equal(lnet_ctl_peer_del_force(&p, NULL, 0, false, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_list(0, &p, out, 2, &next), 1);
	assert_int_equal(out[0].nnis, 1);
	assert_true(lnet_nid_same(&out[0].nis[0], &p));
	assert_int_equal(lnet_ctl_peer_list(0, &s[0], out, 2, &next), 0); /* free again */
	/* --force deletes it */
	assert_int_equal(lnet_ctl_peer_del_force(&p, NULL, 0, true, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_list(0, &p, out, 2, &next), 0);
	/* an unlocked non-MR peer: CONFIGURED only; plain del removes it */
	assert_int_equal(lnet_ctl_peer_add(&q, NULL, 0, false, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_list(0, &q, out, 2, &next), 1);
	assert_int_equal(out[0].state, 0x8);
	assert_int_equal(lnet_ctl_peer_del(&q, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_list(0, &q, out, 2, &next), 0);
}

/* An unconfigured peer as discovery leaves one: Multi-Rail, its NIDs, discovered. */
struct disc_peer {
	const struct lnet_nid *nids;
	unsigned int n;
	bool locked;
};

static int
disc_peer_on_mgmt(void *arg)
{
	const struct disc_peer *dp = arg;
	struct lnet_peer_dir *d = lnet_peer_dir_get(lnet_instance());
	struct lnet_peer *p = lnet_peer_create(d, &dp->nids[0]);
	unsigned int i;

	assert_non_null(p);
	for (i = 1; i < dp->n; i++) {
		assert_int_equal(lnet_peer_nid_add(d, p, &dp->nids[i], NULL), 0);
	}
	p->mr = true;
	p->disc.state = LNET_DISC_DISCOVERED;
	if (dp->locked) {
		p->locked = true;
		p->lock_ts = d->next_lock_ts++;
	}
	lnet_peer_publish(d, p);
	return 0;
}

static void
disc_peer(const struct lnet_nid *nids, unsigned int n, bool locked)
{
	struct disc_peer dp = { nids, n, locked };

	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), disc_peer_on_mgmt, &dp),
			 0);
}

/* The peer owning @p nid (0 when none): its primary, NID count and state. */
static int
peer_of(const struct lnet_nid *nid, struct lnet_ctl_peer *out)
{
	uint64_t next;

	return lnet_ctl_peer_list(0, nid, out, 1, &next);
}

#define ST_MR 0x1U
#define ST_CONF 0x8U
#define ST_DISC (0x10U | 0x100U) /* DISCOVERED | NIDS_UPTODATE */
#define ST_LOCK 0x100000U

/*
 * peer add over what discovery made, as 2.17's lnet_peer_add and
 * lnet_peer_add_nid: the unconfigured peer is made again, configured, with
 * the primary alone; NIDs of unconfigured peers move (a primary takes its
 * whole peer away); only configured owners refuse.
 */
static void
test_add_over_unconfigured(void **state)
{
	struct lnet_nid x[3] = { lnp_tcp_nid(0x0d000001), lnp_tcp_nid(0x0d000002),
				 lnp_tcp_nid(0x0d000003) };
	struct lnet_nid y[3] = { lnp_tcp_nid(0x0d000011), lnp_tcp_nid(0x0d000012),
				 lnp_tcp_nid(0x0d000013) };
	struct lnet_nid z[2] = { lnp_tcp_nid(0x0d000021), lnp_tcp_nid(0x0d000022) };
	struct lnet_ctl_peer o;
	char err[128];

	(void)state;
	/* 1. peer add --prim_nid X on X's discovered peer: made again, X alone, state 9 */
	disc_peer(x, 3, false);
	assert_int_equal(peer_of(&x[0], &o), 1);
	assert_int_equal(o.state, ST_MR | ST_DISC);
	assert_int_equal(lnet_ctl_peer_add(&x[0], NULL, 0, true, err, sizeof(err)), 0);
	assert_int_equal(peer_of(&x[0], &o), 1);
	assert_int_equal(o.state, ST_MR | ST_CONF);
	assert_int_equal(o.nnis, 1);
	assert_int_equal(peer_of(&x[1], &o), 0);
	assert_int_equal(peer_of(&x[2], &o), 0);
	/* again: a configured peer, nothing changes (no lock taken either) */
	assert_int_equal(lnet_ctl_peer_add_lock(&x[0], NULL, 0, true, true, err, sizeof(err)), 0);
	assert_int_equal(peer_of(&x[0], &o), 1);
	assert_int_equal(o.state, ST_MR | ST_CONF);

	/* 2. a secondary NID of an unconfigured peer moves; the peer keeps the rest */
	disc_peer(y, 3, false);
	assert_int_equal(lnet_ctl_peer_add_nids(&x[0], &y[1], 1, true, false, err, sizeof(err)), 0);
	assert_int_equal(peer_of(&y[1], &o), 1);
	assert_true(lnet_nid_same(&o.nis[0], &x[0]));
	assert_int_equal(o.nnis, 2);
	assert_int_equal(peer_of(&y[0], &o), 1);
	assert_int_equal(o.nnis, 2);
	assert_true(lnet_nid_same(&o.nis[1], &y[2]));
	/* ... its primary takes the whole peer away: y[2] belongs to nobody after */
	assert_int_equal(lnet_ctl_peer_add_nids(&x[0], &y[0], 1, true, false, err, sizeof(err)), 0);
	assert_int_equal(peer_of(&y[0], &o), 1);
	assert_true(lnet_nid_same(&o.nis[0], &x[0]));
	assert_int_equal(o.nnis, 3);
	assert_int_equal(peer_of(&y[2], &o), 0);
	/* ... a configured owner refuses (-EEXIST), the NIDs before it are added */
	assert_int_equal(lnet_ctl_peer_add(&z[0], NULL, 0, true, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_add_nids(&z[0], (struct lnet_nid[]){ z[1], y[1], y[2] }, 3,
						true, false, err, sizeof(err)),
			 -EEXIST);
	assert_int_equal(peer_of(&z[1], &o), 1);
	assert_true(lnet_nid_same(&o.nis[0], &z[0]));
	assert_int_equal(peer_of(&y[2], &o), 0);
	/* ... to a peer that is not there, or not configured: -ENOENT */
	assert_int_equal(lnet_ctl_peer_add_nids(&y[2], &x[2], 1, true, false, err, sizeof(err)),
			 -ENOENT);
	disc_peer(y + 2, 1, false);
	assert_int_equal(lnet_ctl_peer_add_nids(&y[2], &x[2], 1, true, false, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(lnet_ctl_peer_add_nids(&z[1], &x[2], 1, true, false, err, sizeof(err)),
			 -ENODEV);

	/* 3. peer add --prim_nid of a secondary NID of an unconfigured peer: that peer goes */
	assert_int_equal(lnet_ctl_peer_del(&x[0], NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_del(&y[2], NULL, 0, err, sizeof(err)), 0);
	disc_peer(x, 3, false);
	assert_int_equal(lnet_ctl_peer_add(&x[1], NULL, 0, true, err, sizeof(err)), 0);
	assert_int_equal(peer_of(&x[1], &o), 1);
	assert_true(lnet_nid_same(&o.nis[0], &x[1]));
	assert_int_equal(o.nnis, 1);
	assert_int_equal(o.state, ST_MR | ST_CONF);
	assert_int_equal(peer_of(&x[0], &o), 0);
	assert_int_equal(peer_of(&x[2], &o), 0);
	/* ... of a configured peer's secondary: -EEXIST */
	assert_int_equal(lnet_ctl_peer_add(&z[1], NULL, 0, true, err, sizeof(err)), -EEXIST);
}

/*
 * An unconfigured peer with a locked primary (LNetAddPeer's): peer add
 * answers -EEXIST (its primary) or -EALREADY (another NID); lnetctl's
 * undo, a del of the named primary, keeps the primary alone without
 * --force and deletes the peer with it (lnet_del_peer_ni, lnet_reset_peer).
 */
static void
test_add_over_locked_unconfigured(void **state)
{
	struct lnet_nid l[3] = { lnp_tcp_nid(0x0e000001), lnp_tcp_nid(0x0e000002),
				 lnp_tcp_nid(0x0e000003) };
	struct lnet_nid c = lnp_tcp_nid(0x0e000011);
	struct lnet_ctl_peer o;
	char err[128];

	(void)state;
	disc_peer(l, 3, true);
	assert_int_equal(lnet_ctl_peer_add(&l[0], NULL, 0, true, err, sizeof(err)), -EEXIST);
	assert_int_equal(lnet_ctl_peer_add(&l[1], NULL, 0, true, err, sizeof(err)), -EALREADY);
	assert_int_equal(peer_of(&l[0], &o), 1);
	assert_int_equal(o.nnis, 3);
	assert_int_equal(o.state, ST_MR | ST_DISC | ST_LOCK);
	/* the undo of the second: l[1] is no primary, -ENODEV, nothing changes */
	assert_int_equal(lnet_ctl_peer_del(&l[1], NULL, 0, err, sizeof(err)), -ENODEV);
	/* the undo of the first without --force: the primary stays, alone */
	assert_int_equal(lnet_ctl_peer_del(&l[0], NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(peer_of(&l[0], &o), 1);
	assert_int_equal(o.nnis, 1);
	assert_int_equal(peer_of(&l[1], &o), 0);
	/* with --force (peer add --lock_prim's undo): gone */
	assert_int_equal(lnet_ctl_peer_add_lock(&l[0], NULL, 0, true, true, err, sizeof(err)),
			 -EEXIST);
	assert_int_equal(lnet_ctl_peer_del_force(&l[0], NULL, 0, true, err, sizeof(err)), 0);
	assert_int_equal(peer_of(&l[0], &o), 0);

	/* its primary as a configured peer's NID: locked with other NIDs, both BAD_CONFIG, nothing added */
	disc_peer(l, 3, true);
	assert_int_equal(lnet_ctl_peer_add(&c, NULL, 0, true, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_add_nids(&c, &l[0], 1, true, false, err, sizeof(err)), 0);
	assert_int_equal(peer_of(&l[0], &o), 1);
	assert_true(lnet_nid_same(&o.nis[0], &l[0]));
	assert_int_equal(peer_of(&c, &o), 1);
	assert_int_equal(o.nnis, 1);
	/* locked and alone: its peer goes, and its NID becomes the primary, locked (earlier lock) */
	assert_int_equal(lnet_ctl_peer_del(&l[0], NULL, 0, err, sizeof(err)),
			 0); /* reset: l[0] alone */
	assert_int_equal(lnet_ctl_peer_add_nids(&c, &l[0], 1, true, false, err, sizeof(err)), 0);
	assert_int_equal(peer_of(&c, &o), 1);
	assert_true(lnet_nid_same(&o.nis[0], &l[0]));
	assert_int_equal(o.nnis, 2);
	assert_int_equal(o.state & ST_LOCK, ST_LOCK);
	/* c is no longer the primary: adding to it is -ENODEV */
	assert_int_equal(lnet_ctl_peer_add_nids(&c, &l[1], 1, true, false, err, sizeof(err)),
			 -ENODEV);
}

static void
test_paging_100k(void **state)
{
	static struct lnet_ctl_peer page[100];
	uint64_t cursor = 0;
	unsigned int total = 0;
	unsigned int i;
	char err[128];

	(void)state;
	for (i = 0; i < 100000; i++) {
		struct lnet_nid p = lnp_tcp_nid(0x0b000000 + i);

		assert_int_equal(lnet_ctl_peer_add(&p, NULL, 0, true, err, sizeof(err)), 0);
	}
	/* delete every 10th while listing: pages stay consistent */
	do {
		uint64_t next;
		int n = lnet_ctl_peer_list(cursor, NULL, page, 100, &next);

		assert_true(n >= 0);
		for (i = 0; i < (unsigned int)n; i++) {
			uint32_t addr = ntohl(page[i].nis[0].nid_addr[0]);

			assert_int_equal(addr, 0x0b000000 + total); /* insertion order, no gaps */
			total++;
		}
		cursor = next;
	} while (cursor != 0);
	assert_int_equal(total, 100000);
	for (i = 0; i < 100000; i += 10) {
		struct lnet_nid p = lnp_tcp_nid(0x0b000000 + i);

		assert_int_equal(lnet_ctl_peer_del(&p, NULL, 0, err, sizeof(err)), 0);
	}
	total = 0;
	cursor = 0;
	do {
		uint64_t next;
		int n = lnet_ctl_peer_list(cursor, NULL, page, 100, &next);

		total += (unsigned int)n;
		cursor = next;
	} while (cursor != 0);
	assert_int_equal(total, 90000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_del_rules, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_lock_prim_and_force, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_add_over_unconfigured, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_add_over_locked_unconfigured, ut_setup2,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_paging_100k, ut_setup1, ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
