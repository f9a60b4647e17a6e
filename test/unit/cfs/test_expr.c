/* SPDX-License-Identifier: BSD-3-Clause */
/* Expression lists: parse, match, values, print, bounds and malformed input. */
#include "cfs_ut.h"

static struct cfs_expr_list *
parse(const char *s, uint32_t min, uint32_t max)
{
	struct cfs_expr_list *el = NULL;

	assert_int_equal(cfs_expr_list_parse(s, strlen(s), min, max, &el), 0);
	return el;
}

static void
test_forms(void **state)
{
	struct cfs_expr_list *el;
	uint32_t *v;
	char b[64];

	(void)state;
	el = parse("[1-10/2,13]", 0, 255);
	assert_true(cfs_expr_list_match(1, el));
	assert_true(cfs_expr_list_match(9, el));
	assert_false(cfs_expr_list_match(10, el));
	assert_true(cfs_expr_list_match(13, el));
	assert_int_equal(cfs_expr_list_values(el, 100, &v), 6);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[4], 9);
	assert_int_equal(v[5], 13);
	free(v);
	assert_int_equal(cfs_expr_list_values(el, 5, &v), -E2BIG);
	assert_int_equal(cfs_expr_list_print(b, sizeof(b), el), 11);
	assert_string_equal(b, "[1-10/2,13]");
	assert_int_equal(cfs_expr_list_print(b, 5, el), -ENOSPC);
	cfs_expr_list_free(el);

	el = parse(" 7 ", 0, 255);
	assert_true(cfs_expr_list_match(7, el));
	assert_false(cfs_expr_list_match(8, el));
	assert_int_equal(cfs_expr_list_print(b, sizeof(b), el), 1);
	assert_string_equal(b, "7");
	cfs_expr_list_free(el);

	el = parse("*", 3, 5);
	assert_false(cfs_expr_list_match(2, el));
	assert_true(cfs_expr_list_match(5, el));
	assert_string_equal((cfs_expr_list_print(b, sizeof(b), el), b), "[3-5]");
	cfs_expr_list_free(el);

	el = parse("[1-4000000000]", 0, UINT32_MAX);
	assert_int_equal(cfs_expr_list_values(el, 10, &v), -E2BIG); /* refused without walking */
	cfs_expr_list_free(el);
	el = parse("[1-5,3-7,7]", 0, 255);
	assert_int_equal(cfs_expr_list_values(el, 7, &v), 7); /* overlaps counted once */
	assert_int_equal(v[6], 7);
	free(v);
	cfs_expr_list_free(el);

	el = parse("[ 0 , 2 - 4 ]", 0, 255);
	assert_true(cfs_expr_list_match(3, el));
	cfs_expr_list_free(el);
	cfs_expr_list_free(NULL);
}

static void
test_malformed(void **state)
{
	static const char *const bad[] = {
		"",        "[]",      "[",    "]",         "[1-]",  "[-1]",        "[5-1]",
		"[1-3/0]", "[1,,2]",  "[,1]", "[1,]",      "1-3",   "1,2",         "x",
		"[a]",     "[1-3/x]", "256",  "[250-256]", "[[1]]", "99999999999",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cfs_expr_list *el = NULL;

		if (cfs_expr_list_parse(bad[i], strlen(bad[i]), 0, 255, &el) != -EINVAL) {
			fail_msg("\"%s\" was accepted", bad[i]);
		}
	}
	assert_int_equal(cfs_expr_list_parse("3", 1, 5, 9, &(struct cfs_expr_list *){ NULL }),
			 -EINVAL); /* below min */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
