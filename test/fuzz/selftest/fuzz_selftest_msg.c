/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Selftest message decoder. Whatever decodes must check without crashing,
 * re-encode in its own order to the same fields, and decode alike when
 * encoded byte-swapped. The input also drives the brw checker over pages it
 * fills, so a corruption the fuzzer makes is found at the byte it made.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_msg(const uint8_t *data, size_t size)
{
	uint8_t wire[SFT_MSG_SIZE];
	struct sft_msg m;
	struct sft_msg again;
	uint32_t status;
	int rc = sft_msg_decode(data, size, &m);

	if (rc != 0) {
		if (rc != -SFT_WIRE_ELEN && rc != -SFT_WIRE_EMAGIC && rc != -SFT_WIRE_ETYPE) {
			__builtin_trap();
		}
		if (sft_server_verdict(rc, &status) != SFT_VERDICT_DROP) {
			__builtin_trap();
		}
		return;
	}
	rc = sft_msg_check(&m);
	if (rc > 0 || rc <= -SFT_WIRE_EMAX || rc == -SFT_WIRE_ELEN || rc == -SFT_WIRE_EMAGIC ||
	    rc == -SFT_WIRE_ETYPE) {
		__builtin_trap();
	}
	(void)sft_server_verdict(rc, &status);
	(void)sft_msg_type_name(m.type);

	/* Same order: the same bytes wherever the layout reads. */
	if (sft_msg_encode(&m, wire, sizeof(wire)) != 0 ||
	    sft_msg_decode(wire, sizeof(wire), &again) != 0) {
		__builtin_trap();
	}
	again.swabbed = m.swabbed;
	if (memcmp(&m, &again, sizeof(m)) != 0 || sft_msg_check(&again) != rc) {
		__builtin_trap();
	}
	/* The other order: the same fields, known to come from a swapped sender. */
	if (sft_msg_encode_swabbed(&m, wire, sizeof(wire)) != 0 ||
	    sft_msg_decode(wire, sizeof(wire), &again) != 0 || !again.swabbed) {
		__builtin_trap();
	}
	again.swabbed = m.swabbed;
	if (memcmp(&m, &again, sizeof(m)) != 0) {
		__builtin_trap();
	}
}

/*
 * The first 8 bytes pick a bulk (offset, length, pattern); the pages are
 * filled, one byte is flipped where the rest of the input says, and the
 * check must name that byte if the pattern covers it.
 */
static void
fuzz_brw(const uint8_t *data, size_t size)
{
	static uint8_t pages[3 * SFT_BRW_PAGE_SIZE];
	uint32_t off, len, check, flip;
	size_t bad = SIZE_MAX;
	int rc;

	if (size < 12) {
		return;
	}
	off = (uint32_t)(data[0] | data[1] << 8) % SFT_BRW_PAGE_SIZE;
	len = (uint32_t)(data[2] | data[3] << 8 | (data[4] & 1) << 16);
	check = data[5] % 4;
	flip = (uint32_t)(data[6] | data[7] << 8 | data[8] << 16) % sizeof(pages);
	memset(pages, 0, sizeof(pages));
	rc = sft_brw_fill(pages, sizeof(pages), off, len, check, SFT_BRW_MAGIC);
	if (rc != 0) {
		return;
	}
	if (sft_brw_check(pages, sizeof(pages), off, len, check, SFT_BRW_MAGIC, false, &bad) != 0) {
		__builtin_trap();
	}
	pages[flip] ^= data[9] | 1;
	rc = sft_brw_check(pages, sizeof(pages), off, len, check, SFT_BRW_MAGIC, false, &bad);
	if (rc < 0 || (rc == 1 && bad != flip)) {
		__builtin_trap();
	}
	/* Found means it was in the data; FULL finds every byte of the data. */
	if (check == SFT_BRW_CHECK_FULL && flip >= off && flip < off + len && rc != 1) {
		__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_msg(data, size);
	fuzz_brw(data, size);
	return 0;
}
