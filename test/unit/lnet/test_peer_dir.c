/* SPDX-License-Identifier: BSD-3-Clause */
/* The peer directory: add/del rules, paging with a cursor, 100,000 peers. */
#include "lnet_ctl.h"
#include "lnet_ut.h"
#include "lnp_test_nid.h"

static void
test_add_del_rules(void **state)
{
	struct lnet_nid p = lnp_tcp_nid(0x0a000001);
	struct lnet_nid s[2] = { lnp_tcp_nid(0x0a000002), lnp_tcp_nid(0x0a000003) };
	struct lnet_ctl_peer out[4];
	struct lnet_ctl_peer_ni st;
	uint64_t next = 99;
	char err[128];

	(void)state;
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
	/* non-MR peers have one NID */
	assert_int_equal(lnet_ctl_peer_add(&(struct lnet_nid){ 0 }, NULL, 0, false, err,
					   sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_add(&(struct lnet_nid){ 0 }, s, 1, false, err,
					   sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "not Multi-Rail"));
	assert_int_equal(lnet_ctl_peer_add(&LNET_ANY_NID, NULL, 0, true, err, sizeof(err)),
			 -EINVAL);
	/* delete one secondary, then the peer */
	assert_int_equal(lnet_ctl_peer_del(&p, &s[0], 1, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_list(0, &p, out, 4, &next), 1);
	assert_int_equal(out[0].nnis, 2);
	assert_int_equal(lnet_ctl_peer_del(&p, &s[0], 1, err, sizeof(err)), -ENOENT);
	assert_int_equal(lnet_ctl_peer_del(&p, &p, 1, err, sizeof(err)), -ENOENT);
	assert_int_equal(lnet_ctl_peer_del(&s[1], NULL, 0, err, sizeof(err)), -ENODEV); /* not its primary */
	assert_int_equal(lnet_ctl_peer_del(&p, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_peer_list(0, &p, out, 4, &next), 0);
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
	assert_int_equal(out[0].state, 0x1 | 0x8 | 0x100000); /* MULTI_RAIL|CONFIGURED|LOCK_PRIMARY */
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
		cmocka_unit_test_setup_teardown(test_paging_100k, ut_setup1, ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
