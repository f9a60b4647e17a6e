/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The passive buffer descriptor: its bytes (little-endian, the XOR), the
 * round trip, and each error in the decoder's order: size and checksum,
 * pairing, sizes, match bits.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nidstr.h"
#include "xprt.h"

static struct xprt_desc_info
passive(enum xprt_qtype q, uint64_t size)
{
	struct xprt_desc_info info;

	memset(&info, 0, sizeof(info));
	assert_int_equal(xprt_addr_parse("192.168.1.5@tcp:12345:39:12", &info.addr), 0);
	info.match_bits = xprt_mb_make(12, 77);
	info.qtype = q;
	info.size = size;
	return info;
}

static uint64_t
le64_at(const struct xprt_desc *d, unsigned int off)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < 8; i++) {
		v |= (uint64_t)d->bytes[off + i] << (8 * i);
	}
	return v;
}

/* Rewrite the checksum after a test changed a field, so the later checks are reached. */
static void
reseal(struct xprt_desc *d)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < 40; i += 8) {
		sum ^= le64_at(d, i);
	}
	for (i = 0; i < 8; i++) {
		d->bytes[40 + i] = (uint8_t)(sum >> (8 * i));
	}
}

static void
test_layout(void **state)
{
	struct xprt_desc_info info = passive(XPRT_Q_PASSIVE_SEND, 4096);
	struct xprt_desc d;

	(void)state;
	assert_int_equal(xprt_desc_encode(&info, &d), 0);
	assert_int_equal(d.len, 48);
	assert_int_equal(le64_at(&d, 0), xprt_mb_make(12, 77));
	assert_int_equal(le64_at(&d, 8), lnet_nid_to_nid4(&info.addr.nid));
	assert_int_equal(le64_at(&d, 16), 12345 | ((uint64_t)39 << 32));
	assert_int_equal(le64_at(&d, 24), 12 | ((uint64_t)XPRT_Q_PASSIVE_SEND << 32));
	assert_int_equal(le64_at(&d, 32), 4096);
	assert_int_equal(le64_at(&d, 40), le64_at(&d, 0) ^ le64_at(&d, 8) ^ le64_at(&d, 16) ^
						  le64_at(&d, 24) ^ le64_at(&d, 32));
}

static void
test_round_trip(void **state)
{
	struct xprt_desc_info in = passive(XPRT_Q_PASSIVE_RECV, 1 << 20);
	struct xprt_desc_info out;
	struct xprt_desc d;
	uint64_t xfer = 0;

	(void)state;
	assert_int_equal(xprt_desc_encode(&in, &d), 0);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_SEND, 4096, 3000, &out, &xfer), 0);
	assert_int_equal(xfer, 3000);
	assert_int_equal(out.match_bits, in.match_bits);
	assert_true(lnet_nid_same(&out.addr.nid, &in.addr.nid));
	assert_int_equal(out.addr.pid, 12345);
	assert_int_equal(out.addr.portal, 39);
	assert_int_equal(out.addr.tmid, 12);
	assert_int_equal(out.qtype, XPRT_Q_PASSIVE_RECV);
	assert_int_equal(out.size, 1 << 20);

	/* An active receive moves the passive send's length into a buffer at least as big. */
	in = passive(XPRT_Q_PASSIVE_SEND, 5000);
	assert_int_equal(xprt_desc_encode(&in, &d), 0);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_RECV, 5000, 0, &out, &xfer), 0);
	assert_int_equal(xfer, 5000);
}

static void
test_encode_refuses(void **state)
{
	struct xprt_desc_info info = passive(XPRT_Q_ACTIVE_SEND, 10);
	struct xprt_desc d;

	(void)state;
	assert_int_equal(xprt_desc_encode(&info, &d), -EINVAL);
	info = passive(XPRT_Q_PASSIVE_SEND, 10);
	assert_int_equal(libcfs_strnid(&info.addr.nid, "fe80::1@tcp"), 0);
	assert_int_equal(xprt_desc_encode(&info, &d), -EINVAL); /* 8 bytes hold no IPv6 NID */
}

static void
test_checksum_and_size(void **state)
{
	struct xprt_desc_info info = passive(XPRT_Q_PASSIVE_SEND, 100);
	struct xprt_desc_info out;
	struct xprt_desc d;
	uint64_t xfer;
	unsigned int i;

	(void)state;
	assert_int_equal(xprt_desc_encode(&info, &d), 0);
	for (i = 0; i < XPRT_DESC_SIZE; i++) {
		struct xprt_desc bad = d;

		bad.bytes[i] ^= 0x40;
		assert_int_equal(xprt_desc_decode(&bad, XPRT_Q_ACTIVE_RECV, 100, 0, &out, &xfer),
				 -EINVAL);
	}
	d.len = 47;
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_RECV, 100, 0, &out, &xfer), -EINVAL);
	d.len = 0;
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_RECV, 100, 0, &out, &xfer), -EINVAL);
}

static void
test_pairing(void **state)
{
	struct xprt_desc_info info = passive(XPRT_Q_PASSIVE_SEND, 100);
	struct xprt_desc_info out;
	struct xprt_desc d;
	uint64_t xfer;

	(void)state;
	assert_int_equal(xprt_desc_encode(&info, &d), 0);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_SEND, 100, 10, &out, &xfer), -EPERM);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_MSG_RECV, 100, 10, &out, &xfer), -EPERM);
	info = passive(XPRT_Q_PASSIVE_RECV, 100);
	assert_int_equal(xprt_desc_encode(&info, &d), 0);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_RECV, 100, 10, &out, &xfer), -EPERM);
	/* A queue that is not passive, with a good checksum. */
	d.bytes[28] = XPRT_Q_ACTIVE_SEND;
	reseal(&d);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_SEND, 100, 10, &out, &xfer), -EINVAL);
	/* Pairing comes before sizes: an oversize wrong pair is -EPERM. */
	info = passive(XPRT_Q_PASSIVE_SEND, 1000);
	assert_int_equal(xprt_desc_encode(&info, &d), 0);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_SEND, 10, 5000, &out, &xfer), -EPERM);
}

static void
test_sizes(void **state)
{
	struct xprt_desc_info info = passive(XPRT_Q_PASSIVE_SEND, 4097);
	struct xprt_desc_info out;
	struct xprt_desc d;
	uint64_t xfer;

	(void)state;
	assert_int_equal(xprt_desc_encode(&info, &d), 0);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_RECV, 4096, 0, &out, &xfer), -EFBIG);
	info = passive(XPRT_Q_PASSIVE_RECV, 4096);
	assert_int_equal(xprt_desc_encode(&info, &d), 0);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_SEND, 8192, 4097, &out, &xfer), -EFBIG);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_SEND, 8192, 4096, &out, &xfer), 0);
	assert_int_equal(xfer, 4096);
}

static void
test_match_bits_checked(void **state)
{
	struct xprt_desc_info info = passive(XPRT_Q_PASSIVE_SEND, 100);
	struct xprt_desc_info out;
	struct xprt_desc d;
	uint64_t xfer;

	(void)state;
	info.match_bits = xprt_mb_make(12, 0); /* the receive queue's id is no passive buffer */
	assert_int_equal(xprt_desc_encode(&info, &d), 0);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_RECV, 100, 0, &out, &xfer), -EINVAL);
	info.match_bits = xprt_mb_make(13, 1); /* another TM's TMID */
	assert_int_equal(xprt_desc_encode(&info, &d), 0);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_RECV, 100, 0, &out, &xfer), -EINVAL);
	/* Sizes come before match bits. */
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_RECV, 99, 0, &out, &xfer), -EFBIG);
	info.match_bits = xprt_mb_make(12, XPRT_MB_ID_MAX);
	assert_int_equal(xprt_desc_encode(&info, &d), 0);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_RECV, 100, 0, &out, &xfer), 0);
	/* A 64-bit NID with bits where struct lnet_nid has no room (found by fuzz_xprt_desc). */
	d.bytes[15] = 0x40;
	reseal(&d);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_RECV, 100, 0, &out, &xfer), -EINVAL);
	memset(d.bytes + 8, 0xff, 8); /* ANY */
	reseal(&d);
	assert_int_equal(xprt_desc_decode(&d, XPRT_Q_ACTIVE_RECV, 100, 0, &out, &xfer), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_encode_refuses),
		cmocka_unit_test(test_checksum_and_size),
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_match_bits_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
