/* SPDX-License-Identifier: BSD-3-Clause */
/* CPT tables from synthetic topologies: patterns, node CPTs, NUMA distance, NID hash. */
#include "cfs_ut.h"

/* 4 nodes x 2 CPUs; asymmetric distances. */
static int g_cpu_node[8] = { 0, 0, 1, 1, 2, 2, 3, 3 };
static unsigned int g_dist[16] = {
	10, 20, 30, 40, 20, 10, 25, 35, 30, 25, 10, 15, 40, 35, 15, 10,
};
static struct cfs_topology g_topo = { 8, g_cpu_node, 4, g_dist };

static struct cfs_cpt_table *
make(const char *pattern, unsigned int hint)
{
	struct cfs_cpt_table *t = NULL;
	char err[128] = "";

	if (cfs_cpt_table_create(&g_topo, pattern, hint, &t, err, sizeof(err)) != 0) {
		fail_msg("\"%s\": %s", pattern != NULL ? pattern : "(null)", err);
	}
	return t;
}

static void
test_one_cpt_per_node(void **state)
{
	struct cfs_cpt_table *t = make(NULL, 0);
	char buf[256];
	int cpus[8];

	(void)state;
	assert_int_equal(cfs_cpt_number(t), 4);
	assert_int_equal(cfs_cpt_of_cpu(t, 5), 2);
	assert_int_equal(cfs_cpt_of_cpu(t, 99), -1);
	assert_int_equal(cfs_cpt_of_node(t, 3), 3);
	assert_int_equal(cfs_cpt_of_node(t, 9), -1);
	assert_int_equal(cfs_cpt_distance(t, 0, 3), 40);
	assert_int_equal(cfs_cpt_distance(t, 2, 3), 15);
	assert_int_equal(cfs_cpt_distance(t, 1, 1), 10);
	assert_int_equal(cfs_cpt_distance(t, CFS_CPT_ANY, 1), 40);
	assert_int_equal(cfs_cpt_distance(t, 7, 1), 0);
	assert_int_equal(cfs_cpt_cpus(t, 1, cpus, 8), 2);
	assert_int_equal(cpus[0], 2);
	assert_int_equal(cpus[1], 3);
	assert_int_equal(cfs_cpt_cpus(t, 4, cpus, 8), -EINVAL);
	assert_true(cfs_cpt_table_print(t, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "0\t: 0 1\n1\t: 2 3\n2\t: 4 5\n3\t: 6 7\n");
	assert_true(cfs_cpt_distance_print(t, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "0\t: 0:10 1:20 2:30 3:40\n"));
	assert_int_equal(cfs_cpt_table_print(t, buf, 8), -ENOSPC);
	cfs_cpt_table_free(t);
}

/* A CPT spanning nodes takes the maximum distance over its nodes. */
static void
test_spanning_cpt_max_distance(void **state)
{
	struct cfs_cpt_table *t = make("0[0-3] 1[4,5] 2[6,7]", 0);

	(void)state;
	assert_int_equal(cfs_cpt_number(t), 3);
	assert_int_equal(cfs_cpt_distance(t, 0, 0), 20); /* nodes 0,1 */
	assert_int_equal(cfs_cpt_distance(t, 0, 1), 30); /* max(30, 25) */
	assert_int_equal(cfs_cpt_distance(t, 0, 2), 40);
	assert_int_equal(cfs_cpt_distance(t, 1, 2), 15);
	assert_int_equal(cfs_cpt_of_node(t, 1), 0);
	cfs_cpt_table_free(t);

	t = make("N 0[0,2] 1[1,3]", 0); /* node lists */
	assert_int_equal(cfs_cpt_of_cpu(t, 4), 0);
	assert_int_equal(cfs_cpt_of_cpu(t, 2), 1);
	assert_int_equal(cfs_cpt_distance(t, 0, 1), 40);
	cfs_cpt_table_free(t);

	t = make("", 2); /* two CPTs over eight CPUs */
	assert_int_equal(cfs_cpt_number(t), 2);
	assert_int_equal(cfs_cpt_of_cpu(t, 3), 0);
	assert_int_equal(cfs_cpt_of_cpu(t, 4), 1);
	cfs_cpt_table_free(t);
}

static void
test_pattern_errors(void **state)
{
	static const char *const bad[] = {
		"0[0,1] 1[1,2]", "0[0-8]", "0[]", "0",      "x[0]",   "1[0]",
		"0[0] 2[1]",     "N 0[4]", "N",   "0[0] 1", "0[[0]]",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cfs_cpt_table *t = NULL;
		char err[128] = "";

		if (cfs_cpt_table_create(&g_topo, bad[i], 0, &t, err, sizeof(err)) == 0) {
			fail_msg("\"%s\" was accepted", bad[i]);
		}
		assert_true(err[0] != '\0');
	}
	assert_int_not_equal(cfs_cpt_table_create(&g_topo, NULL, 9, &(struct cfs_cpt_table *){ 0 },
						  NULL, 0),
			     0);
}

static void
test_libnuma(void **state)
{
	struct cfs_topology *topo = NULL;
	struct cfs_cpt_table *t = NULL;

	(void)state;
	assert_int_equal(cfs_topology_from_libnuma(&topo), 0);
	assert_true(topo->ncpus >= 1);
	assert_int_equal(cfs_cpt_table_create(topo, NULL, 0, &t, NULL, 0), 0);
	assert_true(cfs_cpt_number(t) >= 1);
	assert_true(cfs_cpt_distance(t, 0, 0) >= 10);
	cfs_cpt_table_free(t);
	cfs_topology_free(topo);
}

static void
test_nid_hash_spreads(void **state)
{
	unsigned int hist[4] = { 0 };
	unsigned int i;

	(void)state;
	for (i = 0; i < 4000; i++) {
		struct lnet_nid nid;

		lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(2, 0), 0x0a000000 + i), &nid);
		assert_int_equal(lnet_nid_cpt_hash(&nid, 1), 0);
		assert_int_equal(lnet_nid_cpt_hash(&nid, 4), lnet_nid_cpt_hash(&nid, 4));
		hist[lnet_nid_cpt_hash(&nid, 4)]++;
	}
	for (i = 0; i < 4; i++) {
		assert_true(hist[i] > 800 && hist[i] < 1200);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_cpt_per_node),
		cmocka_unit_test(test_spanning_cpt_max_distance),
		cmocka_unit_test(test_pattern_errors),
		cmocka_unit_test(test_libnuma),
		cmocka_unit_test(test_nid_hash_spreads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
