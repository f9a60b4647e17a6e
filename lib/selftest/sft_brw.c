/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * brw fragments and data patterns (brw_fill_page/brw_check_page of 2.17,
 * restated). Words are copied with memcpy: fragments need not be aligned
 * in this process's memory, only in the bulk.
 */
#include <errno.h>
#include <string.h>

#include "sft_brw.h"

uint32_t
sft_brw_npages(uint32_t off, uint32_t len)
{
	return (uint32_t)(((uint64_t)off + len + SFT_BRW_PAGE_SIZE - 1) / SFT_BRW_PAGE_SIZE);
}

uint32_t
sft_brw_frags(uint32_t off, uint32_t len, struct sft_brw_frag *f, uint32_t max)
{
	uint32_t n = 0;

	if (off >= SFT_BRW_PAGE_SIZE || sft_brw_npages(off, len) > max) {
		return 0;
	}
	while (len > 0) {
		uint32_t room = SFT_BRW_PAGE_SIZE - off;
		uint32_t nob = len < room ? len : room;

		f[n] = (struct sft_brw_frag){ .page = n, .off = off, .len = nob };
		n++;
		len -= nob;
		off = 0;
	}
	return n;
}

static bool
sft_brw_args_ok(size_t size, uint32_t off, uint32_t len, uint32_t check)
{
	if (check != SFT_BRW_CHECK_NONE && check != SFT_BRW_CHECK_SIMPLE &&
	    check != SFT_BRW_CHECK_FULL) {
		return false;
	}
	if (off >= SFT_BRW_PAGE_SIZE || off % SFT_BRW_WORD != 0 || len % SFT_BRW_WORD != 0) {
		return false;
	}
	return (uint64_t)sft_brw_npages(off, len) * SFT_BRW_PAGE_SIZE <= size;
}

/* Byte offsets, within a fragment, of the words a pattern covers. */
static bool
sft_brw_word_covered(uint32_t check, uint32_t at, uint32_t len)
{
	if (check == SFT_BRW_CHECK_FULL) {
		return true;
	}
	return at == 0 || at == len - SFT_BRW_WORD;
}

int
sft_brw_fill(void *pages, size_t size, uint32_t off, uint32_t len, uint32_t check, uint64_t magic)
{
	uint8_t *base = pages;
	uint32_t at;

	if (pages == NULL || !sft_brw_args_ok(size, off, len, check)) {
		return -EINVAL;
	}
	if (check == SFT_BRW_CHECK_NONE) {
		return 0;
	}
	/* Walk fragment by fragment without a fragment array. */
	while (len > 0) {
		uint32_t room = SFT_BRW_PAGE_SIZE - off;
		uint32_t nob = len < room ? len : room;

		for (at = 0; at < nob; at += SFT_BRW_WORD) {
			if (sft_brw_word_covered(check, at, nob)) {
				memcpy(base + off + at, &magic, SFT_BRW_WORD);
			}
		}
		base += SFT_BRW_PAGE_SIZE;
		len -= nob;
		off = 0;
	}
	return 0;
}

/* The first byte of an 8-byte word that differs from @p want, or -1. */
static int
sft_brw_word_diff(const uint8_t *word, uint64_t want)
{
	uint8_t w[SFT_BRW_WORD];
	int i;

	memcpy(w, &want, sizeof(w));
	for (i = 0; i < (int)SFT_BRW_WORD; i++) {
		if (word[i] != w[i]) {
			return i;
		}
	}
	return -1;
}

int
sft_brw_check(const void *pages, size_t size, uint32_t off, uint32_t len, uint32_t check,
	      uint64_t magic, bool swabbed, size_t *bad)
{
	const uint8_t *base = pages;
	uint64_t want = swabbed ? __builtin_bswap64(magic) : magic;
	size_t page_start = 0;
	uint32_t at;

	if (pages == NULL || bad == NULL || !sft_brw_args_ok(size, off, len, check)) {
		return -EINVAL;
	}
	if (check == SFT_BRW_CHECK_NONE) {
		return 0;
	}
	while (len > 0) {
		uint32_t room = SFT_BRW_PAGE_SIZE - off;
		uint32_t nob = len < room ? len : room;

		for (at = 0; at < nob; at += SFT_BRW_WORD) {
			size_t word = page_start + off + at;
			int d;

			if (!sft_brw_word_covered(check, at, nob)) {
				continue;
			}
			d = sft_brw_word_diff(base + word, want);
			if (d >= 0) {
				*bad = word + (size_t)d;
				return 1;
			}
		}
		page_start += SFT_BRW_PAGE_SIZE;
		len -= nob;
		off = 0;
	}
	return 0;
}
