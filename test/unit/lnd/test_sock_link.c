/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socklnd's rtnetlink filter: a link message of the NI's interface
 * concerns it, one of another interface does not; an address message
 * concerns it by interface or by the NI's address; a message cut short or
 * claiming more than was read is passed over; the NI's link state is read
 * from the host (lo's /8 serves 127.x NIDs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include <cmocka.h>

#include "nidstr.h"
#include "sock_link.h"

static uint8_t g_buf[512] __attribute__((aligned(NLMSG_ALIGNTO)));

/* One message of @p type with @p body, at @p off in g_buf; the offset after it. */
static size_t
msg(size_t off, uint16_t type, const void *body, size_t len)
{
	struct nlmsghdr h = { .nlmsg_len = (uint32_t)NLMSG_LENGTH(len), .nlmsg_type = type };

	memcpy(g_buf + off, &h, sizeof(h));
	memcpy(g_buf + off + NLMSG_HDRLEN, body, len);
	return off + NLMSG_ALIGN(h.nlmsg_len);
}

static size_t
link_msg(size_t off, uint16_t type, int index)
{
	struct ifinfomsg ifi = { .ifi_index = index };

	return msg(off, type, &ifi, sizeof(ifi));
}

static size_t
addr_msg(size_t off, uint16_t type, int index, const char *v4)
{
	uint8_t body[sizeof(struct ifaddrmsg) + RTA_LENGTH(4)];
	struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_index = (uint32_t)index };
	struct rtattr rta = { .rta_len = RTA_LENGTH(4), .rta_type = IFA_LOCAL };
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, v4, &a), 1);
	memcpy(body, &ifa, sizeof(ifa));
	memcpy(body + sizeof(ifa), &rta, sizeof(rta));
	memcpy(body + sizeof(ifa) + RTA_LENGTH(0), &a, 4);
	return msg(off, type, body, sizeof(body));
}

static struct lnet_nid
nid(const char *s)
{
	struct lnet_nid n;

	assert_int_equal(libcfs_strnid(&n, s), 0);
	return n;
}

static void
test_link_messages_by_interface(void **state)
{
	struct lnet_nid me = nid("10.1.1.1@tcp");
	size_t n;

	(void)state;
	n = link_msg(0, RTM_NEWLINK, 7);
	assert_false(sock_link_msgs_concern(g_buf, n, 3, &me));
	assert_true(sock_link_msgs_concern(g_buf, n, 7, &me));
	n = link_msg(link_msg(0, RTM_NEWLINK, 9), RTM_DELLINK, 3); /* the second of two */
	assert_true(sock_link_msgs_concern(g_buf, n, 3, &me));
}

static void
test_address_messages_by_interface_or_address(void **state)
{
	struct lnet_nid me = nid("10.1.1.1@tcp");
	size_t n;

	(void)state;
	n = addr_msg(0, RTM_NEWADDR, 9, "10.9.9.9");
	assert_false(sock_link_msgs_concern(g_buf, n, 3, &me));
	n = addr_msg(0, RTM_DELADDR, 3, "10.9.9.9");
	assert_true(sock_link_msgs_concern(g_buf, n, 3, &me));
	n = addr_msg(0, RTM_NEWADDR, 9, "10.1.1.1"); /* our address, come back elsewhere */
	assert_true(sock_link_msgs_concern(g_buf, n, 0, &me));
	n = msg(0, RTM_NEWROUTE, "route", 5);
	assert_false(sock_link_msgs_concern(g_buf, n, 3, &me));
}

static void
test_bad_lengths_passed_over(void **state)
{
	struct lnet_nid me = nid("10.1.1.1@tcp");
	struct nlmsghdr *h = (struct nlmsghdr *)g_buf;
	size_t n = link_msg(0, RTM_NEWLINK, 3);

	(void)state;
	assert_false(sock_link_msgs_concern(g_buf, n - 1, 3, &me)); /* cut short */
	h->nlmsg_len = (uint32_t)n + 64;                             /* claims more than read */
	assert_false(sock_link_msgs_concern(g_buf, n, 3, &me));
	h->nlmsg_len = 4;                                            /* less than a header */
	assert_false(sock_link_msgs_concern(g_buf, n, 3, &me));
	n = msg(0, RTM_NEWLINK, "x", 1);                             /* body too short for ifinfomsg */
	assert_false(sock_link_msgs_concern(g_buf, n, 0, &me));
	assert_false(sock_link_msgs_concern(g_buf, 0, 3, &me));
}

static void
test_link_state_of_loopback_nids(void **state)
{
	struct lnet_nid lo = nid("127.0.42.7@tcp");
	struct lnet_nid gone = nid("192.0.2.250@tcp"); /* TEST-NET-1: on no interface here */
	int index = -1;

	(void)state;
	assert_true(sock_link_is_up(&lo, &index)); /* lo's 127.0.0.1/8 serves it */
	assert_int_equal(index, (int)if_nametoindex("lo"));
	assert_false(sock_link_is_up(&gone, &index));
	assert_int_equal(index, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_messages_by_interface),
		cmocka_unit_test(test_address_messages_by_interface_or_address),
		cmocka_unit_test(test_bad_lengths_passed_over),
		cmocka_unit_test(test_link_state_of_loopback_nids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
