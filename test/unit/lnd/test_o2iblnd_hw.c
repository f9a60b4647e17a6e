/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generic verbs hardware operations where no RDMA device can be
 * assumed: finding the device behind a netdev fails as documented (a
 * netdev without an IPv4 address; an address no RDMA device carries, as
 * loopback's on any host). With an RDMA device on the host (soft-RoCE in
 * a guest) the netdev named by O2IB_TEST_IF is opened and described.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "o2iblnd_hw.h"

static void
test_no_address(void **state)
{
	struct o2ib_hw_dev *dev = NULL;
	struct o2ib_hw_info info;

	(void)state;
	assert_int_equal(o2ib_hw_verbs.open("nosuchif0", &dev, &info), -EADDRNOTAVAIL);
	assert_null(dev);
}

static void
test_loopback_has_no_rdma_device(void **state)
{
	struct o2ib_hw_dev *dev = NULL;
	struct o2ib_hw_info info;

	(void)state;
	/* rxe cannot sit on lo, and no HCA carries 127.0.0.1 */
	assert_int_equal(o2ib_hw_verbs.open("lo", &dev, &info), -ENODEV);
	assert_null(dev);
	assert_int_equal(info.ipv4, htonl(0x7f000001));
	assert_string_equal(info.ifname, "lo");
}

static void
test_open_device(void **state)
{
	const char *ifname = getenv("O2IB_TEST_IF");
	struct o2ib_hw_dev *dev = NULL;
	struct o2ib_hw_info info;

	(void)state;
	if (ifname == NULL) {
		skip(); /* no RDMA device on this host */
	}
	assert_int_equal(o2ib_hw_verbs.open(ifname, &dev, &info), 0);
	assert_non_null(dev);
	assert_true(info.max_qp_wr > 0);
	assert_true(info.ibdev[0] != '\0');
	o2ib_hw_verbs.close(dev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_address),
		cmocka_unit_test(test_loopback_has_no_rdma_device),
		cmocka_unit_test(test_open_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
