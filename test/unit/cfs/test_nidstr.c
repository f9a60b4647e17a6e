/* SPDX-License-Identifier: BSD-3-Clause */
/* NID/net/id strings: every form of lnet-facts §1.3/§1.4 both ways; malformed input. */
#include "cfs_ut.h"

static void
round_trip(const char *in, const char *want)
{
	char out[LNET_NIDSTR_SIZE];
	struct lnet_nid nid;

	assert_int_equal(libcfs_strnid(&nid, in), 0);
	assert_string_equal(libcfs_nidstr_r(&nid, out, sizeof(out)), want);
	assert_int_equal(libcfs_strnid(&nid, out), 0);
	assert_string_equal(libcfs_nidstr(&nid), want);
}

static void
test_forms_round_trip(void **state)
{
	(void)state;
	round_trip("0@lo", "0@lo");
	round_trip("10.0.0.1@tcp", "10.0.0.1@tcp");
	round_trip("10.0.0.1@tcp0", "10.0.0.1@tcp");
	round_trip("10.0.0.1@tcp1", "10.0.0.1@tcp1");
	round_trip("192.168.1.1@o2ib100", "192.168.1.1@o2ib100");
	round_trip("6@gni", "6@gni");
	round_trip("7@gip3", "7@gip3");
	round_trip("5@kfi", "5@kfi");
	round_trip("9@ptlf", "9@ptlf");
	round_trip("11@efa", "11@efa");
	round_trip("12@bxi3f", "12@bxi3f");
	round_trip("fe80::1@tcp", "fe80::1@tcp");
	round_trip("2001:DB8:0:0:0:0:0:5@o2ib3", "2001:db8::5@o2ib3");
	round_trip("<?>", "<?>");
	round_trip("  10.0.0.1@tcp  ", "10.0.0.1@tcp");
}

static void
test_large_nid_bytes(void **state)
{
	struct lnet_nid nid;
	const uint8_t *b = (const uint8_t *)&nid;

	(void)state;
	assert_int_equal(libcfs_strnid(&nid, "2001:db8::5@o2ib3"), 0);
	assert_int_equal(b[0], 12); /* nid_size */
	assert_int_equal(b[1], 5);  /* o2ib */
	assert_int_equal(b[2], 0);  /* net 3, big-endian */
	assert_int_equal(b[3], 3);
	assert_int_equal(b[4], 0x20);
	assert_int_equal(b[5], 0x01);
	assert_int_equal(b[19], 0x05);
	assert_int_equal(libcfs_strnid(&nid, "10.0.0.1@tcp1"), 0);
	assert_int_equal(b[0], 0);
	assert_int_equal(b[1], 2);
	assert_int_equal(b[3], 1);
	assert_int_equal(b[4], 10);
	assert_int_equal(b[7], 1);
	assert_true(lnet_nid_is_nid4(&nid));
	assert_int_equal(libcfs_str2nid("10.0.0.1@tcp1"), 0x000200010a000001ULL);
	assert_int_equal(libcfs_str2nid("0@lo"), LNET_NID_LO_0);
	assert_int_equal(libcfs_str2nid("fe80::1@tcp"), LNET_NID_ANY); /* not 64-bit */
}

static void
test_nets(void **state)
{
	char b[LNET_NIDSTR_SIZE];

	(void)state;
	assert_int_equal(libcfs_str2net("tcp"), LNET_MKNET(2, 0));
	assert_int_equal(libcfs_str2net("tcp0"), LNET_MKNET(2, 0));
	assert_int_equal(libcfs_str2net("o2ib100"), LNET_MKNET(5, 100));
	assert_string_equal(libcfs_net2str(LNET_MKNET(2, 0)), "tcp");
	assert_string_equal(libcfs_net2str_r(LNET_MKNET(5, 7), b, sizeof(b)), "o2ib7");
	assert_string_equal(libcfs_net2str(LNET_MKNET(77, 2)), "<77:2>");
	assert_string_equal(libcfs_net2str(LNET_NET_ANY), "<?>");
	assert_int_equal(libcfs_str2net("tcp65536"), LNET_NET_ANY);
	assert_int_equal(libcfs_str2net("foo"), LNET_NET_ANY);
	assert_int_equal(libcfs_str2net(""), LNET_NET_ANY);
	assert_int_equal(libcfs_str2net(NULL), LNET_NET_ANY);
	assert_int_equal(libcfs_str2lnd("o2ib"), LNET_LND_O2IB);
	assert_int_equal(libcfs_str2lnd("nope"), -1);
	assert_string_equal(libcfs_lnd2str(LNET_LND_LO), "lo");
	assert_null(libcfs_lnd2str(17)); /* TOFU has no string form */
	assert_true(cfs_lnd_is_ip(LNET_LND_SOCK));
	assert_false(cfs_lnd_is_ip(LNET_LND_GNI));
	assert_string_equal(libcfs_nid2str(LNET_NID_ANY), "<?>");
	assert_string_equal(libcfs_nid2str(LNET_MKNID(LNET_MKNET(2, 0), 0xc000020b)),
			    "192.0.2.11@tcp");
}

static void
test_process_ids(void **state)
{
	struct lnet_processid id;
	char b[LNET_NIDSTR_SIZE];

	(void)state;
	assert_int_equal(libcfs_strid(&id, "12345-10.0.0.1@tcp"), 0);
	assert_int_equal(id.pid, 12345);
	assert_string_equal(libcfs_idstr_r(&id, b, sizeof(b)), "12345-10.0.0.1@tcp");
	assert_int_equal(libcfs_strid(&id, "U1023-10.0.0.1@tcp"), 0);
	assert_int_equal(id.pid, LNET_PID_USERFLAG | 1023);
	assert_string_equal(libcfs_idstr(&id), "U1023-10.0.0.1@tcp");
	assert_int_equal(libcfs_strid(&id, "0@lo"), 0);
	assert_int_equal(id.pid, LNET_PID_LUSTRE);
	assert_int_equal(libcfs_strid(&id, "x-0@lo"), -EINVAL);
	assert_int_equal(libcfs_strid(&id, "12345-"), -EINVAL);
	assert_int_equal(libcfs_strid(&id, "99999999999-0@lo"), -EINVAL);
	assert_int_equal(libcfs_strid(NULL, "0@lo"), -EINVAL);
}

static void
test_malformed_nids(void **state)
{
	static const char *const bad[] = {
		"",
		" ",
		"@tcp",
		"1.2.3@tcp",
		"1.2.3.4.5@tcp",
		"256.1.1.1@tcp",
		"1.2.3.4@",
		"1.2.3.4@tcp99999999",
		"1.2.3.4@foo",
		"x@lo",
		"1.2.3.4",
		"1.2.3.4@tcp x",
		"1.2.3.4 @tcp",
		"-1@lo",
		"4294967296@lo",
		"1..2.3@tcp",
		".1.2.3@tcp",
		"1.2.3.@tcp",
		"01234.1.1.1@tcp",
		"host.example@tcp",
		"fe80::1::2@tcp",
		"fe80::1@gni",
		"1.2.3.4@tcp-1",
		"1.2.3.4@@tcp",
		"a@tcp",
		"@",
		"1@",
		"1@lo1x",
		"12@LO",
		"1.2.3.4@tcp1.5",
		"[1-2]@gni",
		"1.2.3.4@o2ib ib",
		"99999999999999999999@gni",
		"1,2@gni",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lnet_nid nid;

		if (libcfs_strnid(&nid, bad[i]) != -EINVAL) {
			fail_msg("\"%s\" was accepted", bad[i]);
		}
		assert_int_equal(libcfs_str2nid(bad[i]), LNET_NID_ANY);
	}
	assert_int_equal(libcfs_strnid(NULL, "0@lo"), -EINVAL);
}

static void
test_error_messages(void **state)
{
	struct lnet_nid nid;
	char err[128];

	(void)state;
	assert_int_equal(libcfs_strnid_err(&nid, "1.2.3.4", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "\"1.2.3.4\": expected <address>@<net>");
	assert_int_equal(libcfs_strnid_err(&nid, "1.2.3.4@foo", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "\"foo\" is not a network"));
	assert_int_equal(libcfs_strnid_err(&nid, "256.1.1.1@tcp", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "\"256.1.1.1\" is not an IPv4 or IPv6 address");
	assert_int_equal(libcfs_strnid_err(&nid, "x@gni", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is not a number"));
	assert_int_equal(libcfs_strnid_err(&nid, "", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "empty or too long NID");
}

static void
test_truncation(void **state)
{
	char b[6];
	struct lnet_nid nid;

	(void)state;
	assert_int_equal(libcfs_strnid(&nid, "192.168.100.100@tcp"), 0);
	assert_string_equal(libcfs_nidstr_r(&nid, b, sizeof(b)), "192.1");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms_round_trip),
		cmocka_unit_test(test_large_nid_bytes),
		cmocka_unit_test(test_nets),
		cmocka_unit_test(test_process_ids),
		cmocka_unit_test(test_malformed_nids),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_error_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
