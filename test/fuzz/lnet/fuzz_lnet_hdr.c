/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LNet header decoders. The first byte picks the format; whatever decodes
 * must encode back to the same bytes and decode to the same header.
 */
#include <stdint.h>
#include <string.h>

#include "lnet_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_round_trip(const struct lnet_hdr *h, const uint8_t *wire, size_t n, bool nid16)
{
	struct lnet_hdr again;
	uint8_t buf[LNET_HDR_NID16_SIZE];
	int rc;

	rc = nid16 ? lnet_hdr_encode_nid16(h, buf, sizeof(buf)) :
		     lnet_hdr_encode_nid4(h, buf, sizeof(buf));
	if (rc != 0) {
		__builtin_trap();
	}
	rc = nid16 ? lnet_hdr_decode_nid16(buf, n, &again) : lnet_hdr_decode_nid4(buf, n, &again);
	if (rc != 0 || memcmp(&again, h, sizeof(again)) != 0) {
		__builtin_trap();
	}
	/* Unused union bytes are zero on our side, so compare only the used prefix. */
	if (memcmp(buf, wire, nid16 ? 56 : 32) != 0) {
		__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lnet_hdr h;
	bool nid16;

	if (size < 1) {
		return 0;
	}
	nid16 = (data[0] & 1) != 0;
	data++;
	size--;
	memset(&h, 0, sizeof(h));
	if (nid16) {
		if (lnet_hdr_decode_nid16(data, size, &h) == 0) {
			check_round_trip(&h, data, LNET_HDR_NID16_SIZE, true);
		}
	} else if (lnet_hdr_decode_nid4(data, size, &h) == 0) {
		check_round_trip(&h, data, LNET_HDR_NID4_SIZE, false);
	}
	(void)lnet_wire_strerror(lnet_hdr_validate(&h));
	return 0;
}
