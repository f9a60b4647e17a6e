/* SPDX-License-Identifier: BSD-3-Clause */
/* lnet_iov_copy: offsets into both fragment lists, uneven fragments, short lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "lnet_lnd.h"

static void
test_copy_across_uneven_fragments(void **state)
{
	char s0[3] = "abc";
	char s1[1] = "d";
	char s2[5] = "efghi";
	struct iovec src[3] = { { s0, 3 }, { s1, 1 }, { s2, 5 } };
	char d0[2];
	char d1[4];
	char d2[6];
	struct iovec dst[3] = { { d0, 2 }, { d1, 4 }, { d2, 6 } };

	(void)state;
	memset(d0, '.', 2);
	memset(d1, '.', 4);
	memset(d2, '.', 6);
	/* 6 bytes from source offset 2 ("cdefgh") to destination offset 1 */
	lnet_iov_copy(dst, 3, 1, src, 3, 2, 6);
	assert_memory_equal(d0, ".c", 2);
	assert_memory_equal(d1, "defg", 4);
	assert_memory_equal(d2, "h.....", 6);
}

static void
test_copy_stops_at_end_of_shorter_list(void **state)
{
	char s[4] = "wxyz";
	struct iovec src[1] = { { s, 4 } };
	char d[8];
	struct iovec dst[1] = { { d, 8 } };

	(void)state;
	memset(d, '.', sizeof(d));
	lnet_iov_copy(dst, 1, 0, src, 1, 1, 100);
	assert_memory_equal(d, "xyz.....", 8);
	/* An offset past the end copies nothing. */
	lnet_iov_copy(dst, 1, 8, src, 1, 0, 4);
	assert_memory_equal(d, "xyz.....", 8);
}

/* One fragment each side: exactly len bytes between the offsets, to the last byte of either. */
static void
test_single_fragments_copy_exactly(void **state)
{
	char s[6] = "abcdef";
	struct iovec src[1] = { { s, 6 } };
	char d[6];
	struct iovec dst[1] = { { d, 6 } };

	(void)state;
	memset(d, '.', sizeof(d));
	lnet_iov_copy(dst, 1, 2, src, 1, 1, 3);
	assert_memory_equal(d, "..bcd.", 6);
	lnet_iov_copy(dst, 1, 5, src, 1, 5, 1); /* the last byte of both */
	assert_memory_equal(d, "..bcdf", 6);
	lnet_iov_copy(dst, 1, 0, src, 1, 0, 0); /* nothing */
	assert_memory_equal(d, "..bcdf", 6);
	lnet_iov_copy(dst, 1, 4, src, 1, 0, 6); /* more than the destination holds */
	assert_memory_equal(d, "..bcab", 6);
	lnet_iov_copy(dst, 1, 0, src, 1, 3, 6); /* more than the source has */
	assert_memory_equal(d, "defcab", 6);
}

static void
test_zero_length_fragments_are_skipped(void **state)
{
	char s[2] = "ok";
	struct iovec src[3] = { { NULL, 0 }, { s, 2 }, { NULL, 0 } };
	char d[2];
	struct iovec dst[2] = { { NULL, 0 }, { d, 2 } };

	(void)state;
	lnet_iov_copy(dst, 2, 0, src, 3, 0, 2);
	assert_memory_equal(d, "ok", 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_across_uneven_fragments),
		cmocka_unit_test(test_copy_stops_at_end_of_shorter_list),
		cmocka_unit_test(test_single_fragments_copy_exactly),
		cmocka_unit_test(test_zero_length_fragments_are_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
