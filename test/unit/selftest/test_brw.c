/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/selftest (sft_brw.c): bulk fragments as srpc_init_bulk cuts them, the
 * SIMPLE and FULL patterns against bytes written out by hand from the
 * kernel's rules (little-endian writer, so BRW_MAGIC reads b3 ee b2 ee b1
 * ee b0 ee), a big-endian writer's pages, and a corrupted byte reported at
 * its offset.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "selftest.h"

#define PG SFT_BRW_PAGE_SIZE

static const uint8_t magic_le[8] = { 0xb3, 0xee, 0xb2, 0xee, 0xb1, 0xee, 0xb0, 0xee };
static const uint8_t magic_be[8] = { 0xee, 0xb0, 0xee, 0xb1, 0xee, 0xb2, 0xee, 0xb3 };

static void
test_fragments(void **state)
{
	struct sft_brw_frag f[300];

	(void)state;
	assert_int_equal(sft_brw_frags(0, 4096, f, 300), 1);
	assert_true(f[0].page == 0 && f[0].off == 0 && f[0].len == 4096);
	/* Offset 4088, 16 bytes: the last word of page 0, the first of page 1. */
	assert_int_equal(sft_brw_frags(4088, 16, f, 300), 2);
	assert_true(f[0].page == 0 && f[0].off == 4088 && f[0].len == 8);
	assert_true(f[1].page == 1 && f[1].off == 0 && f[1].len == 8);
	/* 1 MiB is 256 pages; shifted by 8 bytes it spills into a 257th. */
	assert_int_equal(sft_brw_frags(0, SFT_BRW_MAX_LEN, f, 300), 256);
	assert_int_equal(sft_brw_frags(8, SFT_BRW_MAX_LEN, f, 300), 257);
	assert_true(f[256].off == 0 && f[256].len == 8 && f[0].len == 4088);
	assert_int_equal(sft_brw_npages(8, SFT_BRW_MAX_LEN), 257);
	assert_int_equal(sft_brw_frags(8, SFT_BRW_MAX_LEN, f, 256), 0);
	assert_int_equal(sft_brw_frags(4096, 8, f, 300), 0);
	assert_int_equal(sft_brw_frags(0, 0, f, 300), 0);
}

/* The offsets of a bulk that hold a pattern word, from the kernel's rules. */
static bool
word_expected(size_t at, bool full)
{
	/* Bulk off 8, len 8192: [8,4096) of page 0, all of page 1, [0,8) of page 2. */
	static const size_t simple[] = { 8, 4088, 4096, 8184, 8192 };

	if (full) {
		return at >= 8 && at < 8200;
	}
	for (unsigned int i = 0; i < 5; i++) {
		if (at == simple[i]) {
			return true;
		}
	}
	return false;
}

static void
check_layout(uint32_t check)
{
	size_t size = 3 * PG;
	uint8_t *pages = malloc(size);
	size_t bad = 0;

	assert_non_null(pages);
	memset(pages, 0x5a, size);
	assert_int_equal(sft_brw_fill(pages, size, 8, 8192, check, SFT_BRW_MAGIC), 0);
	for (size_t at = 0; at < size; at += 8) {
		if (word_expected(at, check == SFT_BRW_CHECK_FULL)) {
			assert_memory_equal(pages + at, magic_le, 8);
		} else {
			for (size_t i = 0; i < 8; i++) {
				assert_int_equal(pages[at + i], 0x5a);
			}
		}
	}
	assert_int_equal(sft_brw_check(pages, size, 8, 8192, check, SFT_BRW_MAGIC, false, &bad), 0);
	free(pages);
}

static void
test_simple_layout(void **state)
{
	(void)state;
	check_layout(SFT_BRW_CHECK_SIMPLE);
}

static void
test_full_layout(void **state)
{
	(void)state;
	check_layout(SFT_BRW_CHECK_FULL);
}

static void
test_none_untouched(void **state)
{
	uint8_t pages[PG];
	size_t bad = 0;

	(void)state;
	memset(pages, 0x77, sizeof(pages));
	assert_int_equal(sft_brw_fill(pages, sizeof(pages), 0, PG, SFT_BRW_CHECK_NONE,
				      SFT_BRW_MAGIC),
			 0);
	for (size_t i = 0; i < sizeof(pages); i++) {
		assert_int_equal(pages[i], 0x77);
	}
	assert_int_equal(sft_brw_check(pages, sizeof(pages), 0, PG, SFT_BRW_CHECK_NONE,
				       SFT_BRW_MAGIC, false, &bad),
			 0);
}

/* A one-word fragment holds the magic once (SIMPLE writes first == last). */
static void
test_one_word_fragment(void **state)
{
	uint8_t pages[2 * PG];
	size_t bad = 0;

	(void)state;
	memset(pages, 0, sizeof(pages));
	assert_int_equal(sft_brw_fill(pages, sizeof(pages), 4088, 16, SFT_BRW_CHECK_SIMPLE,
				      SFT_BRW_MAGIC),
			 0);
	assert_memory_equal(pages + 4088, magic_le, 8);
	assert_memory_equal(pages + 4096, magic_le, 8);
	assert_int_equal(pages[4087], 0);
	assert_int_equal(pages[4104], 0);
	assert_int_equal(sft_brw_check(pages, sizeof(pages), 4088, 16, SFT_BRW_CHECK_SIMPLE,
				       SFT_BRW_MAGIC, false, &bad),
			 0);
}

static void
test_corrupt_byte_found(void **state)
{
	size_t size = 2 * PG;
	uint8_t *pages = malloc(size);
	size_t bad = 0;

	(void)state;
	assert_non_null(pages);
	assert_int_equal(sft_brw_fill(pages, size, 0, 2 * PG, SFT_BRW_CHECK_FULL, SFT_BRW_MAGIC),
			 0);
	pages[5000] ^= 0x10;
	assert_int_equal(sft_brw_check(pages, size, 0, 2 * PG, SFT_BRW_CHECK_FULL, SFT_BRW_MAGIC,
				       false, &bad),
			 1);
	assert_int_equal(bad, 5000);
	/* A second fault later on: the first is still the one reported. */
	pages[7000] ^= 0x01;
	assert_int_equal(sft_brw_check(pages, size, 0, 2 * PG, SFT_BRW_CHECK_FULL, SFT_BRW_MAGIC,
				       false, &bad),
			 1);
	assert_int_equal(bad, 5000);
	/* SIMPLE looks at each fragment's ends only: 5000 goes unseen, 8191 not. */
	assert_int_equal(sft_brw_check(pages, size, 0, 2 * PG, SFT_BRW_CHECK_SIMPLE, SFT_BRW_MAGIC,
				       false, &bad),
			 0);
	pages[8191] = 0;
	assert_int_equal(sft_brw_check(pages, size, 0, 2 * PG, SFT_BRW_CHECK_SIMPLE, SFT_BRW_MAGIC,
				       false, &bad),
			 1);
	assert_int_equal(bad, 8191);
	free(pages);
}

/* A sink poisoned before the transfer and never written is corrupt at once. */
static void
test_poisoned_sink(void **state)
{
	uint8_t pages[PG];
	size_t bad = 99;

	(void)state;
	assert_int_equal(sft_brw_fill(pages, sizeof(pages), 16, 64, SFT_BRW_CHECK_FULL,
				      SFT_BRW_POISON),
			 0);
	for (size_t i = 16; i < 80; i++) {
		assert_int_equal(pages[i], i % 2 == 0 ? 0xef : 0xbe);
	}
	assert_int_equal(sft_brw_check(pages, sizeof(pages), 16, 64, SFT_BRW_CHECK_FULL,
				       SFT_BRW_MAGIC, false, &bad),
			 1);
	/* POISON and MAGIC differ in the first byte already (ef vs b3). */
	assert_int_equal(bad, 16);
}

/* Pages written by a big-endian peer pass only when checked as swabbed. */
static void
test_swabbed_writer(void **state)
{
	uint8_t pages[PG];
	size_t bad = 0;

	(void)state;
	for (size_t at = 0; at < sizeof(pages); at += 8) {
		memcpy(pages + at, magic_be, 8);
	}
	assert_int_equal(sft_brw_check(pages, sizeof(pages), 0, PG, SFT_BRW_CHECK_FULL,
				       SFT_BRW_MAGIC, true, &bad),
			 0);
	assert_int_equal(sft_brw_check(pages, sizeof(pages), 0, PG, SFT_BRW_CHECK_FULL,
				       SFT_BRW_MAGIC, false, &bad),
			 1);
	assert_int_equal(bad, 0);
}

static void
test_bad_arguments(void **state)
{
	uint8_t pages[2 * PG];
	size_t bad;

	(void)state;
	assert_int_equal(sft_brw_fill(pages, sizeof(pages), 4, 8, SFT_BRW_CHECK_FULL, 0), -EINVAL);
	assert_int_equal(sft_brw_fill(pages, sizeof(pages), 0, 12, SFT_BRW_CHECK_FULL, 0), -EINVAL);
	assert_int_equal(sft_brw_fill(pages, sizeof(pages), 0, 8, 0, 0), -EINVAL);
	assert_int_equal(sft_brw_fill(pages, sizeof(pages), 0, 8, 4, 0), -EINVAL);
	assert_int_equal(sft_brw_fill(pages, sizeof(pages), PG, 8, SFT_BRW_CHECK_FULL, 0), -EINVAL);
	/* 8 bytes at 4088 plus a page: three pages, only two given. */
	assert_int_equal(sft_brw_fill(pages, sizeof(pages), 4088, PG + 16, SFT_BRW_CHECK_FULL, 0),
			 -EINVAL);
	assert_int_equal(sft_brw_fill(NULL, 0, 0, 8, SFT_BRW_CHECK_FULL, 0), -EINVAL);
	assert_int_equal(sft_brw_check(pages, sizeof(pages), 0, 8, SFT_BRW_CHECK_FULL, 0, false,
				       NULL),
			 -EINVAL);
	assert_int_equal(sft_brw_check(pages, PG - 1, 0, 8, SFT_BRW_CHECK_FULL, 0, false, &bad),
			 -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fragments),         cmocka_unit_test(test_simple_layout),
		cmocka_unit_test(test_full_layout),       cmocka_unit_test(test_none_untouched),
		cmocka_unit_test(test_one_word_fragment), cmocka_unit_test(test_corrupt_byte_found),
		cmocka_unit_test(test_poisoned_sink),     cmocka_unit_test(test_swabbed_writer),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
