/* SPDX-License-Identifier: BSD-3-Clause */
/* ip2nets rules (seed 000): parse, match against fixed interface lists, errors. */
#include "cfs_ut.h"

static struct cfs_ifaddr
if4(const char *name, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	struct cfs_ifaddr i = { .family = AF_INET, .ipv4 = a << 24 | b << 16 | c << 8 | d };

	snprintf(i.name, sizeof(i.name), "%s", name);
	return i;
}

static struct cfs_ip2nets *
parse(const char *s)
{
	struct cfs_ip2nets *r = NULL;
	char err[128] = "";

	if (cfs_ip2nets_parse(s, &r, err, sizeof(err)) != 0) {
		fail_msg("\"%s\": %s", s, err);
	}
	return r;
}

static void
test_match_all_interfaces_of_pattern(void **state)
{
	struct cfs_ifaddr ifs[3] = { if4("ib0", 192, 168, 2, 3), if4("ib1", 192, 168, 2, 4),
				     if4("eth0", 10, 0, 0, 1) };
	struct cfs_ip2nets *r = parse("o2ib 192.168.2.*");
	struct cfs_ip2nets_match m[4];

	(void)state;
	assert_int_equal(cfs_ip2nets_match(r, ifs, 3, m, 4, NULL, 0), 2);
	assert_int_equal(m[0].net, LNET_MKNET(LNET_LND_O2IB, 0));
	assert_string_equal(m[0].ifname, "ib0");
	assert_string_equal(m[1].ifname, "ib1");
	assert_int_equal(cfs_ip2nets_match(r, ifs, 3, m, 1, NULL, 0), -E2BIG);
	cfs_ip2nets_free(r);
}

static void
test_rules_comments_ifaces_cpts(void **state)
{
	struct cfs_ifaddr ifs[3] = { if4("eth0", 10, 0, 0, 5), if4("eth1", 10, 0, 1, 5),
				     if4("ib0", 192, 168, 0, 9) };
	struct cfs_ip2nets *r = parse("tcp(eth1[0,1]) 10.0.[0-1].*  # the cluster\n"
				      "o2ib1 192.168.0.[1-10/2] 172.16.*.*; tcp 10.*.*.*\n#only\n");
	struct cfs_ip2nets_match m[4];

	(void)state;
	assert_int_equal(cfs_ip2nets_match(r, ifs, 3, m, 4, NULL, 0), 2);
	assert_int_equal(m[0].net, LNET_MKNET(LNET_LND_SOCK, 0));
	assert_string_equal(m[0].ifname, "eth1"); /* eth0 matches but is not named */
	assert_string_equal(m[0].cpts, "[0,1]");
	assert_int_equal(m[0].addr.ipv4, 0x0a000105);
	assert_int_equal(m[1].net, LNET_MKNET(LNET_LND_O2IB, 1));
	assert_string_equal(m[1].ifname, "ib0");
	cfs_ip2nets_free(r);
}

/* Seed 000: tcp(eth0) 192.168.*.3 with eth0 == 192.158.19.3 must fail. */
static void
test_named_interface_contradicts_pattern(void **state)
{
	struct cfs_ifaddr ifs[2] = { if4("eth0", 192, 158, 19, 3), if4("eth1", 192, 168, 3, 3) };
	struct cfs_ip2nets *r = parse("tcp(eth0) 192.168.*.3");
	struct cfs_ip2nets_match m[2];
	char err[128] = "";

	(void)state;
	assert_int_equal(cfs_ip2nets_match(r, ifs, 2, m, 2, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "eth0"));
	cfs_ip2nets_free(r);
	/* No interface matches at all: nothing, no error. */
	r = parse("tcp 172.16.0.*");
	assert_int_equal(cfs_ip2nets_match(r, ifs, 2, m, 2, NULL, 0), 0);
	cfs_ip2nets_free(r);
}

static void
test_parse_errors(void **state)
{
	static const char *const bad[] = {
		"",
		"# nothing",
		"tcp",
		"foo 10.0.0.*",
		"tcp 10.0.0",
		"tcp 10.0.0.300",
		"tcp(eth0 10.0.0.*",
		"tcp() 10.0.0.*",
		"tcp(eth0[x]) 10.0.0.*",
		"tcp 10.0.[5-1].*",
		"tcp 10.0.0.*; o2ib",
		"tcp(averyveryverylongname0) 1.2.3.4",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cfs_ip2nets *r = NULL;
		char err[128] = "";

		if (cfs_ip2nets_parse(bad[i], &r, err, sizeof(err)) != -EINVAL) {
			fail_msg("\"%s\" was accepted", bad[i]);
		}
		assert_true(err[0] != '\0');
	}
}

static void
test_local_interfaces(void **state)
{
	struct cfs_ifaddr *ifs = NULL;
	unsigned int n = 0;
	unsigned int i;
	bool lo = false;

	(void)state;
	assert_int_equal(cfs_ifaddrs_get(&ifs, &n), 0);
	for (i = 0; i < n; i++) {
		lo |= ifs[i].family == AF_INET && ifs[i].ipv4 == 0x7f000001;
	}
	assert_true(lo); /* every machine has 127.0.0.1 up */
	free(ifs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_all_interfaces_of_pattern),
		cmocka_unit_test(test_rules_comments_ifaces_cpts),
		cmocka_unit_test(test_named_interface_contradicts_pattern),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_local_interfaces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
