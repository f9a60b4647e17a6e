/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * End-point addresses, match bits and header data: the decoder's cases the
 * seed implementation tests (a non-numeric part, TMID 0, `*`), the limits
 * around them, printing, and the NID-part comparison.
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

static void
expect_addr(const char *text, const char *nid, uint32_t pid, uint32_t portal, uint32_t tmid)
{
	struct xprt_addr a;
	struct lnet_nid want;

	assert_int_equal(xprt_addr_parse(text, &a), 0);
	assert_int_equal(libcfs_strnid(&want, nid), 0);
	assert_true(lnet_nid_same(&a.nid, &want));
	assert_int_equal(a.pid, pid);
	assert_int_equal(a.portal, portal);
	assert_int_equal(a.tmid, tmid);
}

static void
test_parse_good(void **state)
{
	(void)state;
	expect_addr("0@lo:12345:33:1", "0@lo", 12345, 33, 1);
	expect_addr("10.72.49.14@o2ib0:12345:31:7", "10.72.49.14@o2ib", 12345, 31, 7);
	expect_addr("192.168.96.128@tcp1:12345:32:*", "192.168.96.128@tcp1", 12345, 32,
		    XPRT_TMID_DYNAMIC);
	expect_addr("0@lo:12345:33:4095", "0@lo", 12345, 33, 4095);
	/* Only start checks the PID and portal against the node. */
	expect_addr("0@lo:1:0:9", "0@lo", 1, 0, 9);
	expect_addr("0@lo:4294967295:64:9", "0@lo", UINT32_MAX, 64, 9);
}

static void
test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"0@lo:12345:33:0",                                   /* TMID 0 is refused */
		"0@lo:12345:33:4096",                                /* past the 12 bits */
		"0@lo:12345:33:99999",                               /* far past */
		"0@lo:x:33:1",                                       /* non-numeric PID */
		"0@lo:12345:x:1",                                    /* non-numeric portal */
		"0@lo:12345:33:x",                                   /* non-numeric TMID */
		"0@lo:12345:33:1x",                                  /* trailing text */
		"0@lo:12345:33:**",                                  /* one star only */
		"0@lo:12345:33:",                                    /* no TMID */
		"0@lo:12345:33",                                     /* three parts */
		"0@lo:12345",                                        /* two */
		"0@lo",                                              /* one */
		":12345:33:1",                                       /* empty NID */
		"garbage@nowhere:12345:33:1",                        /* a NID LNet does not parse */
		"0@lo:-1:33:1",                                      /* signs are not digits */
		"0@lo: 1:33:1",                                      /* nor spaces */
		"0@lo:4294967296:33:1",                              /* PID past u32 */
		"0@lo:12345:4294967296:1",                           /* portal past u32 */
		"0123456789012345678901234567890123@tcp:12345:33:1", /* NID of 34 characters */
		"",
	};
	struct xprt_addr a;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(xprt_addr_parse(bad[i], &a), -EINVAL);
	}
}

/* Texts of XPRT_ADDR_LEN characters or more are refused, however well formed. */
static void
test_parse_too_long(void **state)
{
	char text[XPRT_ADDR_LEN + 8];
	struct xprt_addr a;
	size_t n;

	(void)state;
	strcpy(text, "0@lo:12345:33:");
	n = strlen(text);
	memset(text + n, '0', XPRT_ADDR_LEN - 1 - n - 1);
	text[XPRT_ADDR_LEN - 2] = '7';
	text[XPRT_ADDR_LEN - 1] = '\0'; /* 79 characters: leading zeros, TMID 7 */
	assert_int_equal(xprt_addr_parse(text, &a), 0);
	assert_int_equal(a.tmid, 7);
	text[XPRT_ADDR_LEN - 1] = '7';
	text[XPRT_ADDR_LEN] = '\0'; /* 80: TMID 77, but too long */
	assert_int_equal(xprt_addr_parse(text, &a), -EINVAL);
}

static void
test_format(void **state)
{
	struct xprt_addr a;
	char buf[XPRT_ADDR_LEN];

	(void)state;
	assert_int_equal(xprt_addr_parse("10.72.49.14@o2ib0:12345:31:7", &a), 0);
	assert_int_equal(xprt_addr_format(&a, buf, sizeof(buf)), 27);
	assert_string_equal(buf, "10.72.49.14@o2ib:12345:31:7");
	assert_int_equal(xprt_addr_parse("192.168.96.128@tcp1:12345:32:*", &a), 0);
	assert_int_equal(xprt_addr_format(&a, buf, sizeof(buf)), 30);
	assert_string_equal(buf, "192.168.96.128@tcp1:12345:32:*");
	assert_int_equal(xprt_addr_format(&a, buf, 30), -ENOSPC);
	assert_int_equal(xprt_addr_format(&a, buf, 31), 30);
}

static void
test_net_cmp(void **state)
{
	(void)state;
	assert_int_equal(xprt_addr_net_cmp("0@lo:12345:33:1", "0@lo:12345:33:2"), 0);
	assert_int_equal(xprt_addr_net_cmp("0@lo:12345:33:1", "0@lo:12345:34:*"), 0);
	assert_true(xprt_addr_net_cmp("1.1.1.1@tcp:12345:33:1", "1.1.1.2@tcp:12345:33:1") < 0);
	assert_true(xprt_addr_net_cmp("1.1.1.2@tcp:12345:33:1", "1.1.1.1@tcp:12345:33:1") > 0);
	assert_true(xprt_addr_net_cmp("1.1.1.1@tcp:1", "1.1.1.1@tcp1:1") < 0);
	assert_int_equal(xprt_addr_net_cmp("0@lo", "0@lo:12345:33:1"), -1);
	assert_int_equal(xprt_addr_net_cmp("0@lo:12345:33:1", "0@lo"), -1);
}

static void
test_match_bits(void **state)
{
	(void)state;
	assert_int_equal(xprt_mb_make(7, 0), UINT64_C(7) << 52);
	assert_int_equal(xprt_mb_make(4095, XPRT_MB_ID_MAX), UINT64_MAX);
	assert_int_equal(xprt_mb_make(1, 5), UINT64_C(0x0010000000000005));
	assert_int_equal(xprt_mb_tmid(UINT64_C(0xABC0000000000123)), 0xABC);
	assert_int_equal(xprt_mb_id(UINT64_C(0xABC0000000000123)), 0x123);
	assert_int_equal(xprt_mb_id_next(1), 2);
	assert_int_equal(xprt_mb_id_next(XPRT_MB_ID_MAX), 1);
	assert_int_equal(XPRT_MB_ID_MAX, UINT64_C(0x000FFFFFFFFFFFFF));
}

static void
test_hdr_data(void **state)
{
	static const struct xprt_addr zero;
	struct lnet_nid nid;
	struct xprt_addr a;

	(void)state;
	assert_int_equal(xprt_hdr_data_make(12, 39), (UINT64_C(12) << 52) | 39);
	assert_int_equal(libcfs_strnid(&nid, "192.168.1.5@tcp"), 0);
	xprt_hdr_data_sender(xprt_hdr_data_make(4095, 63), &nid, 12345, &a);
	assert_true(lnet_nid_same(&a.nid, &nid));
	assert_int_equal(a.pid, 12345);
	assert_int_equal(a.portal, 63);
	assert_int_equal(a.tmid, 4095);
	/* No header data: a sender that is no TM, recorded as all zero. */
	xprt_hdr_data_sender(0, &nid, 12345, &a);
	assert_memory_equal(&a, &zero, sizeof(a));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),     cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_too_long), cmocka_unit_test(test_format),
		cmocka_unit_test(test_net_cmp),        cmocka_unit_test(test_match_bits),
		cmocka_unit_test(test_hdr_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
