/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ksocklnd decoders: the first byte picks connreq, a hello version or a
 * ksock_msg header. Whatever decodes must encode and decode to the same.
 */
#include <stdint.h>
#include <string.h>

#include "ksock_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_hello(const struct ksock_proto *p, const uint8_t *data, size_t size)
{
	struct ksock_hello h;
	struct ksock_hello again;
	uint8_t buf[256];
	size_t used = 0;
	size_t n = 0;

	if (p->hello_decode(data, size, &h, &used) != 0) {
		return;
	}
	if (used > size) {
		__builtin_trap();
	}
	if (h.swapped || h.version != p->version) {
		return; /* we always encode in our own order and version */
	}
	if (p->hello_encode(&h, buf, sizeof(buf), &n) != 0 ||
	    p->hello_decode(buf, n, &again, &used) != 0 ||
	    !lnet_nid_same(&again.src_nid, &h.src_nid) || again.ctype != h.ctype ||
	    again.src_incarnation != h.src_incarnation || again.nips != h.nips) {
		__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksock_connreq cr;
	struct ksock_msg m;
	struct ksock_zcack a;
	uint8_t buf[64];
	size_t used = 0;
	size_t n = 0;

	if (size < 1) {
		return 0;
	}
	switch (data[0] % 6) {
	case 0:
		if (ksock_connreq_decode(data + 1, size - 1, &cr, &used) == 0 && !cr.probe &&
		    (ksock_connreq_encode(&cr.nid, buf, sizeof(buf), &n) != 0 || used > size - 1)) {
			__builtin_trap();
		}
		break;
	case 5:
		if (ksock_msg_hdr_decode(data + 1, size - 1, data[0] & 0x80, &m) == 0) {
			ksock_zcack_parse(&m, &a);
			if (a.kind == KSOCK_ZCACK_RANGE && a.a > a.b) {
				__builtin_trap();
			}
		}
		break;
	default:
		fuzz_hello(ksock_proto_by_version(data[0] % 6), data + 1, size - 1);
		break;
	}
	return 0;
}
