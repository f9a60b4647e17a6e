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

/*
 * "NI deleted while a message to its lcore is in flight": a message carrying a
 * pointer to the NI is queued on data lcore 0; mgmt then unpublishes the NI and
 * retires it. The NI must stay allocated until the in-flight message has run
 * (it sees the deleted mark, not freed memory: ASan would catch that), and be
 * freed once every lcore has passed a quiescent state.
 */
struct fake_ni {
	int deleted;
	unsigned int uses;
};

static int g_saw_deleted;

static void
ni_msg(void *ctx)
{
	struct fake_ni *ni = ctx;

	if (__atomic_load_n(&ni->deleted, __ATOMIC_ACQUIRE) != 0) {
		g_saw_deleted = 1;
		return;
	}
	ni->uses++;
}

struct ni_del_req {
	struct rt_runtime *rt;
	struct fake_ni **slot;
};

static void
ni_delete(void *ctx)
{
	struct ni_del_req *r = ctx;
	struct fake_ni *ni = rt_rcu_read((void *const *)r->slot);

	__atomic_store_n(&ni->deleted, 1, __ATOMIC_RELEASE);
	rt_rcu_publish((void **)r->slot, NULL);
	assert_int_equal(rt_rcu_retire(r->rt, ni, count_free), 0);
}

static void
test_ni_deleted_with_message_in_flight(void **state)
{
	struct rt_runtime *rt = ut_sim(2, 64);
	struct fake_ni *ni = calloc(1, sizeof(*ni));
	struct fake_ni *slot = NULL;
	struct ni_del_req del = { rt, &slot };

	(void)state;
	g_frees = 0;
	g_saw_deleted = 0;
	rt_rcu_publish((void **)&slot, ni);
	assert_int_equal(rt_lcore_send_msg(rt_data_lcore(rt, 0), ni_msg, ni), 0);
	assert_int_equal(rt_lcore_send_msg(rt_mgmt_lcore(rt), ni_delete, &del), 0);
	/* Mgmt deletes first, and polls again: data lcore 0 has not run since. */
	assert_int_equal(rt_lcore_poll(rt_mgmt_lcore(rt)), 1);
	rt_lcore_poll(rt_data_lcore(rt, 1));
	assert_int_equal(rt_lcore_poll(rt_mgmt_lcore(rt)), 0);
	assert_null(rt_rcu_read((void *const *)&slot));
	assert_int_equal(g_frees, 0);
	assert_int_equal(rt_rcu_pending(rt), 1);
	/* The in-flight message runs on live memory and sees the mark. */
	assert_int_equal(rt_lcore_poll(rt_data_lcore(rt, 0)), 1);
	assert_int_equal(g_saw_deleted, 1);
	assert_int_equal(rt_lcore_poll(rt_mgmt_lcore(rt)), 1); /* reclaimed: 1 unit */
	assert_int_equal(g_frees, 1);
	assert_int_equal(rt_rcu_pending(rt), 0);
	rt_runtime_destroy(rt);
	assert_int_equal(g_frees, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_retire_after_all_lcores_quiesce),
		cmocka_unit_test(test_ni_deleted_with_message_in_flight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
