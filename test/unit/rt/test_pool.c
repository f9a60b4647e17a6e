/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Object pools (rt_pool.h): per-lcore caches, objects returned on another
 * lcore than took them, an empty pool, and both places objects live (a
 * slab without EAL, an rte_mempool with it: the same tests run in both).
 */
#include <stdbool.h>

#include <rte_eal.h>

#include "lnp_test.h"
#include "rt_pool.h"
#include "rt_ut.h"

#define ELT 72U /* not a multiple of a cache line: objects are aligned anyway */
#define CACHE 4U

struct pool_fix {
	struct rt_runtime *rt;
	struct rt_pool *pool;
	bool mempool; /* expected: objects in an rte_mempool */
};

static struct pool_fix g_fix;

static struct rt_pool *
pool_make(unsigned int n, unsigned int cache)
{
	struct rt_pool_opts o = {
		.opts_size = sizeof(o),
		.name = "ut",
		.elt_size = ELT,
		.n = n,
		.cache_size = cache,
	};
	struct rt_pool_stats s;
	struct rt_pool *p = NULL;

	assert_int_equal(rt_pool_create(g_fix.rt, &o, &p), 0);
	rt_pool_stats_get(p, &s);
	assert_int_equal(s.n, n);
	assert_int_equal(s.avail, n);
	assert_int_equal(s.mempool, g_fix.mempool ? 1 : 0);
	g_fix.pool = p;
	return p;
}

static int
setup(void **state)
{
	(void)state;
	g_fix.rt = ut_sim(2, 64);
	g_fix.pool = NULL;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	rt_pool_destroy(g_fix.pool);
	rt_runtime_stop(g_fix.rt);
	rt_runtime_destroy(g_fix.rt);
	return 0;
}

/* What a call on a lcore does: take or give back objects there. */
struct pool_op {
	struct rt_pool *p;
	void **objs;
	unsigned int n;
	unsigned int done;
};

static int
op_get(void *arg)
{
	struct pool_op *op = arg;

	for (op->done = 0; op->done < op->n; op->done++) {
		op->objs[op->done] = rt_pool_get(op->p);
		if (op->objs[op->done] == NULL) {
			break;
		}
	}
	return 0;
}

static int
op_put(void *arg)
{
	struct pool_op *op = arg;

	for (op->done = 0; op->done < op->n; op->done++) {
		rt_pool_put(op->p, op->objs[op->done]);
	}
	return 0;
}

static unsigned int
get_on(struct rt_lcore *lc, struct rt_pool *p, void **objs, unsigned int n)
{
	struct pool_op op = { p, objs, n, 0 };

	assert_int_equal(rt_lcore_call(lc, op_get, &op), 0);
	return op.done;
}

static void
put_on(struct rt_lcore *lc, struct rt_pool *p, void **objs, unsigned int n)
{
	struct pool_op op = { p, objs, n, 0 };

	assert_int_equal(rt_lcore_call(lc, op_put, &op), 0);
}

static void
assert_avail(struct rt_pool *p, unsigned int avail, unsigned int cached)
{
	struct rt_pool_stats s;

	rt_pool_stats_get(p, &s);
	assert_int_equal(s.avail, avail);
	assert_int_equal(s.cached, cached);
}

/* A get on a lcore fills that lcore's cache with a batch; the other lcores' stay empty. */
static void
test_pool_get_fills_own_cache(void **state)
{
	struct rt_lcore *a = rt_data_lcore(g_fix.rt, 0);
	struct rt_lcore *b = rt_data_lcore(g_fix.rt, 1);
	struct rt_pool *p = pool_make(32, CACHE);
	void *obj;

	(void)state;
	assert_int_equal(get_on(a, p, &obj, 1), 1);
	assert_int_equal(rt_pool_cache_count(p, a), CACHE - 1);
	assert_int_equal(rt_pool_cache_count(p, b), 0);
	assert_int_equal(rt_pool_cache_count(p, rt_mgmt_lcore(g_fix.rt)), 0);
	assert_avail(p, 31, CACHE - 1);
	/* Given back on the same lcore, it is the next one taken there (LIFO: still warm). */
	put_on(a, p, &obj, 1);
	assert_int_equal(rt_pool_cache_count(p, a), CACHE);
	{
		void *again = NULL;

		assert_int_equal(get_on(a, p, &again, 1), 1);
		assert_ptr_equal(again, obj);
		put_on(a, p, &again, 1);
	}
	assert_avail(p, 32, CACHE);
}

/* Taken on one lcore, given back on another: it goes into the other's cache. */
static void
test_pool_put_on_other_lcore(void **state)
{
	struct rt_lcore *a = rt_data_lcore(g_fix.rt, 0);
	struct rt_lcore *b = rt_data_lcore(g_fix.rt, 1);
	struct rt_pool *p = pool_make(32, CACHE);
	void *objs[3];
	void *back = NULL;

	(void)state;
	assert_int_equal(get_on(a, p, objs, 3), 3);
	assert_int_equal(rt_pool_cache_count(p, a), CACHE - 3);
	put_on(b, p, objs, 3);
	assert_int_equal(rt_pool_cache_count(p, a), CACHE - 3);
	assert_int_equal(rt_pool_cache_count(p, b), 3);
	/* b takes from its own cache first: the last one it was given. */
	assert_int_equal(get_on(b, p, &back, 1), 1);
	assert_ptr_equal(back, objs[2]);
	assert_int_equal(rt_pool_cache_count(p, b), 2);
	put_on(b, p, &back, 1);
	assert_avail(p, 32, CACHE - 3 + 3);
}

/* A full cache gives its oldest half back to the pool; it never holds more than twice the batch. */
static void
test_pool_full_cache_flushes(void **state)
{
	struct rt_lcore *a = rt_data_lcore(g_fix.rt, 0);
	struct rt_pool *p = pool_make(64, CACHE);
	void *objs[2 * CACHE + 1];

	(void)state;
	/* Taken by the test's thread, not a lcore: straight from the pool, no cache. */
	assert_null(rt_lcore_self());
	{
		unsigned int i;

		for (i = 0; i < 2 * CACHE + 1; i++) {
			objs[i] = rt_pool_get(p);
			assert_non_null(objs[i]);
		}
	}
	assert_avail(p, 64 - (2 * CACHE + 1), 0);
	put_on(a, p, objs, 2 * CACHE);
	assert_int_equal(rt_pool_cache_count(p, a), 2 * CACHE);
	put_on(a, p, &objs[2 * CACHE], 1);
	assert_int_equal(rt_pool_cache_count(p, a), CACHE + 1);
	assert_avail(p, 64, CACHE + 1);
}

/* Every object is distinct, zero at first, cache-line aligned and holds ELT bytes of its own. */
static void
test_pool_objects_distinct(void **state)
{
	struct rt_lcore *a = rt_data_lcore(g_fix.rt, 0);
	struct rt_pool *p = pool_make(16, CACHE);
	void *objs[16];
	unsigned int i;
	unsigned int j;

	(void)state;
	assert_int_equal(get_on(a, p, objs, 16), 16);
	for (i = 0; i < 16; i++) {
		static const unsigned char zero[ELT];

		assert_memory_equal(objs[i], zero, ELT); /* never taken before: zero */
		assert_int_equal((uintptr_t)objs[i] % 64, 0);
		memset(objs[i], (int)i, ELT);
		for (j = 0; j < i; j++) {
			assert_ptr_not_equal(objs[i], objs[j]);
		}
	}
	for (i = 0; i < 16; i++) {
		assert_int_equal(((unsigned char *)objs[i])[ELT - 1], i);
	}
	put_on(a, p, objs, 16);
	assert_avail(p, 16, 2 * CACHE);
}

/*
 * An empty pool: the get fails with NULL and is counted, on a lcore and on
 * another thread alike; nothing is made. Objects in another lcore's cache
 * are not reachable (the headroom rt_pool_headroom() tells).
 */
static void
test_pool_empty_fails_and_counts(void **state)
{
	struct rt_lcore *a = rt_data_lcore(g_fix.rt, 0);
	struct rt_lcore *b = rt_data_lcore(g_fix.rt, 1);
	struct rt_pool *p = pool_make(8, CACHE);
	struct rt_pool_stats s;
	void *objs[9];
	void *one = NULL;

	(void)state;
	assert_int_equal(get_on(a, p, objs, 9), 8);
	assert_null(objs[8]);
	assert_null(rt_pool_get(p));
	rt_pool_stats_get(p, &s);
	assert_int_equal(s.empty, 2);
	assert_int_equal(s.avail, 0);
	/* One back into a's cache: b cannot reach it. */
	put_on(a, p, objs, 1);
	assert_int_equal(get_on(b, p, &one, 1), 0);
	rt_pool_stats_get(p, &s);
	assert_int_equal(s.empty, 3);
	assert_int_equal(s.avail, 1);
	assert_int_equal(rt_pool_headroom(g_fix.rt, CACHE), 3 * 2 * CACHE);
	put_on(a, p, &objs[1], 7);
	assert_avail(p, 8, 2 * CACHE);
}

/* Without caches every get and put goes to the pool. */
static void
test_pool_no_cache(void **state)
{
	struct rt_lcore *a = rt_data_lcore(g_fix.rt, 0);
	struct rt_pool *p = pool_make(4, 0);
	void *objs[4];

	(void)state;
	assert_int_equal(get_on(a, p, objs, 4), 4);
	assert_int_equal(rt_pool_cache_count(p, a), 0);
	assert_avail(p, 0, 0);
	put_on(a, p, objs, 4);
	assert_avail(p, 4, 0);
}

static void
test_pool_bad_options(void **state)
{
	struct rt_pool_opts o = { .opts_size = sizeof(o), .elt_size = 8, .n = 4, .cache_size = 2 };
	struct rt_pool *p = NULL;

	(void)state;
	assert_int_equal(rt_pool_create(NULL, &o, &p), -EINVAL);
	assert_int_equal(rt_pool_create(g_fix.rt, NULL, &p), -EINVAL);
	o.n = 0;
	assert_int_equal(rt_pool_create(g_fix.rt, &o, &p), -EINVAL);
	o.n = 4;
	o.elt_size = 0;
	assert_int_equal(rt_pool_create(g_fix.rt, &o, &p), -EINVAL);
	o.elt_size = 8;
	o.cache_size = 5;
	assert_int_equal(rt_pool_create(g_fix.rt, &o, &p), -EINVAL);
	o.opts_size = 0;
	o.cache_size = 2;
	assert_int_equal(rt_pool_create(g_fix.rt, &o, &p), -EINVAL);
	assert_null(p);
	rt_pool_destroy(NULL);
}

#define POOL_TESTS                                                                              \
	cmocka_unit_test_setup_teardown(test_pool_get_fills_own_cache, setup, teardown),        \
		cmocka_unit_test_setup_teardown(test_pool_put_on_other_lcore, setup, teardown), \
		cmocka_unit_test_setup_teardown(test_pool_full_cache_flushes, setup, teardown), \
		cmocka_unit_test_setup_teardown(test_pool_objects_distinct, setup, teardown),   \
		cmocka_unit_test_setup_teardown(test_pool_empty_fails_and_counts, setup,        \
						teardown),                                      \
		cmocka_unit_test_setup_teardown(test_pool_no_cache, setup, teardown),           \
		cmocka_unit_test_setup_teardown(test_pool_bad_options, setup, teardown)

int
main(void)
{
	const struct CMUnitTest slab_tests[] = { POOL_TESTS };
	const struct CMUnitTest mempool_tests[] = { POOL_TESTS };
	struct lnp_test_eal_args a;
	int rc;

	/* First without EAL (a slab), then the same tests with it (an rte_mempool). */
	g_fix.mempool = false;
	rc = cmocka_run_group_tests_name("slab", slab_tests, NULL, NULL);
	lnp_test_eal_args_init(&a, "rt-pool-ut", "0");
	if (rte_eal_init(a.argc, a.argv) < 0) {
		return 1;
	}
	g_fix.mempool = true;
	rc += cmocka_run_group_tests_name("mempool", mempool_tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
