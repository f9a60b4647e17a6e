/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Passive buffer descriptors as a peer may send them. The first 16 bytes
 * choose the local buffer's size and send length; the rest (the first 48 of
 * it, or all of it when shorter) is the descriptor. Whatever decodes must
 * pair, fit and name its own TMID, and encode back to the same bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "xprt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_desc_check(const struct xprt_desc *d, enum xprt_qtype active, uint64_t buf_size,
		uint64_t send_len)
{
	struct xprt_desc_info info;
	struct xprt_desc again;
	uint64_t xfer = UINT64_MAX;
	int rc = xprt_desc_decode(d, active, buf_size, send_len, &info, &xfer);

	if (rc != 0) {
		if (rc != -EINVAL && rc != -EPERM && rc != -EFBIG) {
			__builtin_trap();
		}
		return;
	}
	if ((active == XPRT_Q_ACTIVE_RECV) != (info.qtype == XPRT_Q_PASSIVE_SEND) ||
	    xprt_mb_tmid(info.match_bits) != info.addr.tmid || xprt_mb_id(info.match_bits) == 0) {
		__builtin_trap();
	}
	if (active == XPRT_Q_ACTIVE_RECV ? xfer != info.size || xfer > buf_size :
					   xfer != send_len || xfer > info.size) {
		__builtin_trap();
	}
	if (xprt_desc_encode(&info, &again) != 0 || again.len != XPRT_DESC_SIZE ||
	    memcmp(again.bytes, d->bytes, XPRT_DESC_SIZE) != 0) {
		__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xprt_desc d;
	uint64_t sizes[2] = { 0, 0 };
	unsigned int q;

	if (size < sizeof(sizes)) {
		return 0;
	}
	memcpy(sizes, data, sizeof(sizes));
	data += sizeof(sizes);
	size -= sizeof(sizes);
	memset(&d, 0, sizeof(d));
	d.len = (uint32_t)size;
	memcpy(d.bytes, data, size < XPRT_DESC_SIZE ? size : XPRT_DESC_SIZE);
	for (q = 0; q < XPRT_Q_NR; q++) {
		fuzz_desc_check(&d, (enum xprt_qtype)q, sizes[0], sizes[1]);
	}
	return 0;
}
