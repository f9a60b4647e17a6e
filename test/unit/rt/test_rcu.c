/* SPDX-License-Identifier: BSD-3-Clause */
/* RCU: a retired object lives until every lcore has passed a quiescent state. */
#include "rt_ut.h"

static unsigned int g_frees;

static void
count_free(void *obj)
{
	g_frees++;
	free(obj);
}

struct table {
	int version;
};

struct publish_req {
	struct rt_runtime *rt;
	struct table **slot;
	struct table *next;
};

static int
publish_and_retire(void *ctx)
{
	struct publish_req *r = ctx;
	struct table *old = rt_rcu_read((void *const *)r->slot);

	rt_rcu_publish((void **)r->slot, r->next);
	return old == NULL ? 0 : rt_rcu_retire(r->rt, old, count_free);
}

static void
publish_msg(void *ctx)
{
	assert_int_equal(publish_and_retire(ctx), 0);
}

/* Run the publish on the management lcore alone, so no other lcore polls. */
static void
publish_on_mgmt_only(struct rt_runtime *rt, struct publish_req *req)
{
	assert_int_equal(rt_lcore_send_msg(rt_mgmt_lcore(rt), publish_msg, req), 0);
	assert_int_equal(rt_lcore_poll(rt_mgmt_lcore(rt)), 1);
}

/* A reader on data lcore 1 holding the old table across messages would break;
 * it may only use it within one iteration. */
static int g_seen_version;

static void
reader(void *ctx)
{
	struct table *t = rt_rcu_read(ctx);

	g_seen_version = t->version;
}

static void
test_retire_after_all_lcores_quiesce(void **state)
{
	struct rt_runtime *rt = ut_sim(2, 64);
	struct table *slot = NULL;
	struct table *v1 = calloc(1, sizeof(*v1));
	struct table *v2 = calloc(1, sizeof(*v2));
	struct publish_req req = { rt, &slot, v1 };

	(void)state;
	g_frees = 0;
	v1->version = 1;
	v2->version = 2;
	publish_on_mgmt_only(rt, &req);
	req.next = v2;
	publish_on_mgmt_only(rt, &req);
	assert_int_equal(rt_rcu_pending(rt), 1);
	/* Only mgmt and data lcore 0 have polled since: v1 must survive. */
	rt_lcore_poll(rt_data_lcore(rt, 0));
	rt_lcore_poll(rt_mgmt_lcore(rt));
	assert_int_equal(g_frees, 0);
	assert_int_equal(rt_rcu_pending(rt), 1);
	/* In flight to lcore 1: it reads the new table when it runs. */
	rt_lcore_send_msg(rt_data_lcore(rt, 1), reader, &slot);
	rt_lcore_poll(rt_data_lcore(rt, 1));
	assert_int_equal(g_seen_version, 2);
	rt_lcore_poll(rt_mgmt_lcore(rt)); /* every lcore passed: reclaimed */
	assert_int_equal(g_frees, 1);
	assert_int_equal(rt_rcu_pending(rt), 0);
	/* Destroy frees what is still retired. */
	req.next = NULL;
	publish_on_mgmt_only(rt, &req);
	assert_int_equal(rt_rcu_pending(rt), 1);
	rt_runtime_destroy(rt);
	assert_int_equal(g_frees, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_retire_after_all_lcores_quiesce),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
