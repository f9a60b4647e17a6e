/* SPDX-License-Identifier: BSD-3-Clause */
/* NID patterns as lnetctl accepts them: match, expand, print, malformed. */
#include "cfs_ut.h"

static struct cfs_nidlist *
parse(const char *s)
{
	struct cfs_nidlist *nl = NULL;

	assert_int_equal(cfs_parse_nidlist(s, strlen(s), &nl), 0);
	return nl;
}

static bool
match(const struct cfs_nidlist *nl, const char *nidstr)
{
	struct lnet_nid nid;

	assert_int_equal(libcfs_strnid(&nid, nidstr), 0);
	return cfs_match_nid(&nid, nl);
}

static void
test_ipv4_ranges(void **state)
{
	struct cfs_nidlist *nl = parse("10.0.0.[1-4]@tcp [13-14/1].[13-15/2].13.13@o2ib");
	struct lnet_nid *nids;
	char b[128];

	(void)state;
	assert_true(match(nl, "10.0.0.1@tcp"));
	assert_true(match(nl, "10.0.0.4@tcp"));
	assert_false(match(nl, "10.0.0.5@tcp"));
	assert_false(match(nl, "10.0.0.1@tcp1"));
	assert_true(match(nl, "14.15.13.13@o2ib"));
	assert_false(match(nl, "14.14.13.13@o2ib"));
	assert_int_equal(cfs_nidlist_expand(nl, 100, &nids), 4 + 2 * 2);
	assert_string_equal(libcfs_nidstr(&nids[0]), "10.0.0.1@tcp");
	assert_string_equal(libcfs_nidstr(&nids[3]), "10.0.0.4@tcp");
	assert_string_equal(libcfs_nidstr(&nids[4]), "13.13.13.13@o2ib");
	assert_string_equal(libcfs_nidstr(&nids[7]), "14.15.13.13@o2ib");
	free(nids);
	assert_int_equal(cfs_nidlist_expand(nl, 5, &nids), -E2BIG);
	assert_true(cfs_nidlist_print(b, sizeof(b), nl) > 0);
	assert_string_equal(b, "10.0.0.[1-4]@tcp [13-14].[13-15/2].13.13@o2ib");
	assert_int_equal(cfs_nidlist_print(b, 10, nl), -ENOSPC);
	cfs_free_nidlist(nl);
}

static void
test_numeric_wildcard_ipv6(void **state)
{
	struct cfs_nidlist *nl = parse("6@gni [1-3]@kfi *@tcp1 fe80::1@tcp 10.0.[0-1].*@tcp2");
	struct lnet_nid *nids;

	(void)state;
	assert_true(match(nl, "6@gni"));
	assert_false(match(nl, "7@gni"));
	assert_true(match(nl, "2@kfi"));
	assert_true(match(nl, "1.2.3.4@tcp1"));
	assert_false(match(nl, "1.2.3.4@tcp"));
	assert_true(match(nl, "fe80::1@tcp"));
	assert_false(match(nl, "fe80::2@tcp"));
	assert_true(match(nl, "10.0.1.200@tcp2"));
	assert_false(match(nl, "10.0.2.1@tcp2"));
	assert_false(cfs_match_nid(&LNET_ANY_NID, nl));
	assert_int_equal(cfs_nidlist_expand(nl, 1000, &nids), -E2BIG); /* '*' */
	cfs_free_nidlist(nl);
	nl = parse("fe80::1@tcp [1-3]@gni");
	assert_int_equal(cfs_nidlist_expand(nl, 10, &nids), 4);
	assert_int_equal(nids[0].nid_size, 12);
	assert_string_equal(libcfs_nidstr(&nids[3]), "3@gni");
	free(nids);
	cfs_free_nidlist(nl);
}

static void
test_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		" ",
		"10.0.0.[1-4]",
		"10.0.0.[1-4]@",
		"10.0.0.[1-4]@foo",
		"10.0.[1-4]@tcp",
		"10.0.0.0.1@tcp",
		"10.0.0.[1-300]@tcp",
		"10.0.0.[4-1]@tcp",
		"@tcp",
		"x@gni",
		"fe80::zz@tcp",
		"10.0.0.1@tcp 10.0.0.[@tcp",
		"10.0.0.]1[@tcp",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cfs_nidlist *nl = NULL;

		if (cfs_parse_nidlist(bad[i], strlen(bad[i]), &nl) == 0) {
			fail_msg("\"%s\" was accepted", bad[i]);
		}
	}
	cfs_free_nidlist(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_ranges),
		cmocka_unit_test(test_numeric_wildcard_ipv6),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
