/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * brw test data: how a bulk of @c len bytes at offset @c off is cut into
 * page fragments, and the check patterns written into and verified in each
 * fragment as a 2.17 node does (selftest-facts §4.1). A bulk is a flat
 * buffer of whole 4 KiB pages here; fragments follow 4 KiB pages whatever
 * this host's page size is, because the kernel peers cut them so and a
 * SIMPLE check only agrees when both sides cut the same way.
 */
#ifndef SFT_BRW_H
#define SFT_BRW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sft_wire.h"

/** Data word of the SIMPLE and FULL patterns, in the writer's order. */
#define SFT_BRW_MAGIC 0xeeb0eeb1eeb2eeb3ull
/** Word a sink is filled with before the transfer. */
#define SFT_BRW_POISON 0xbeefbeefbeefbeefull
/** Fragment (page) size of the kernel peers. */
#define SFT_BRW_PAGE_SIZE 4096u
/** Patterns are made of 8-byte words. */
#define SFT_BRW_WORD 8u

/** One fragment: bytes [off, off + len) of page @c page. */
struct sft_brw_frag {
	uint32_t page;
	uint32_t off;
	uint32_t len;
};

/**
 * Pages a bulk of @p len bytes starting @p off bytes into its first page
 * spans (@p off < SFT_BRW_PAGE_SIZE).
 */
uint32_t sft_brw_npages(uint32_t off, uint32_t len);

/**
 * Cut a bulk into fragments: the first from @p off to the end of its page
 * or of the data, each next one from 0 to the end of its page or of the
 * data (srpc_init_bulk's rule).
 * @return the number of fragments, or 0 if @p off >= SFT_BRW_PAGE_SIZE or
 * more than @p max would be needed.
 */
uint32_t sft_brw_frags(uint32_t off, uint32_t len, struct sft_brw_frag *f, uint32_t max);

/**
 * Write pattern @p check (enum sft_brw_check) with word @p magic, in this
 * host's order, into each fragment of the bulk (@p off, @p len) held in
 * @p pages (@p size bytes, whole pages). SIMPLE: the first and the last
 * word of each fragment (one word if the fragment is one word); FULL: every
 * word; NONE: nothing.
 * @return 0, or -EINVAL if @p off or @p len is not whole words, the pattern
 * is unknown, or @p size is too small.
 */
int sft_brw_fill(void *pages, size_t size, uint32_t off, uint32_t len, uint32_t check,
		 uint64_t magic);

/**
 * Verify what sft_brw_fill() writes, as the receiving side does: the words
 * are compared with @p magic, byte-swapped first if the writer was
 * (@p swabbed, from the RPC's message magic).
 * @param bad set to the byte offset in @p pages of the first byte that
 * differs, when the result is 1.
 * @return 0 if intact, 1 if corrupt, -EINVAL as sft_brw_fill().
 */
int sft_brw_check(const void *pages, size_t size, uint32_t off, uint32_t len, uint32_t check,
		  uint64_t magic, bool swabbed, size_t *bad);

#endif /* SFT_BRW_H */
