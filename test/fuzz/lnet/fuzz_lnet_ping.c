/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ping info decoder. Whatever decodes must re-encode (in our order) and
 * decode to the same NIs, features and sequence number.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_wire.h"

#define FUZZ_MAX_NIS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lnet_ping_entry nis[FUZZ_MAX_NIS];
	struct lnet_ping_entry again[FUZZ_MAX_NIS];
	struct lnet_ping_decoded d;
	struct lnet_ping_decoded d2;
	struct lnet_ping_src src;
	uint8_t *buf;
	size_t need;
	size_t n;
	unsigned int i;

	/* Read as a ping reply cut at size: never more entries than whole ones fit. */
	if (lnet_ping_reply_read(data, size, size, 16, &d, nis, FUZZ_MAX_NIS) == 0 &&
	    (d.nnis_total + 1) * 12 > size) {
		__builtin_trap();
	}
	if (lnet_ping_info_decode(data, size, FUZZ_MAX_NIS, &d, nis, FUZZ_MAX_NIS) != 0) {
		return 0;
	}
	if (d.info_size > size || d.nnis_total > FUZZ_MAX_NIS) {
		__builtin_trap();
	}
	src = (struct lnet_ping_src){ d.features, d.pid, d.seqno, nis, d.nnis_total };
	if (lnet_ping_info_size(&src, &need) != 0) {
		__builtin_trap();
	}
	buf = malloc(need);
	if (buf == NULL || lnet_ping_info_encode(&src, buf, need, &n) != 0 || n != need) {
		__builtin_trap();
	}
	if (lnet_ping_info_decode(buf, n, FUZZ_MAX_NIS, &d2, again, FUZZ_MAX_NIS) != 0 ||
	    d2.seqno != d.seqno || d2.pid != d.pid || d2.nnis_total != d.nnis_total) {
		__builtin_trap();
	}
	/* nid4 NIs keep their order; large ones follow them in their order. */
	for (i = 0; i < d.nnis_total; i++) {
		bool found = false;
		unsigned int j;

		for (j = 0; j < d2.nnis_total && !found; j++) {
			found = lnet_nid_same(&again[j].nid, &nis[i].nid) &&
				again[j].status == nis[i].status;
		}
		if (!found) {
			__builtin_trap();
		}
	}
	free(buf);
	return 0;
}
