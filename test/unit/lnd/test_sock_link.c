/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socklnd's link table: rtnetlink messages add, change and delete its
 * links and addresses; a link message of the NI's interface concerns it,
 * one of another interface does not; an address message concerns it by
 * interface or by the NI's address; a message cut short or claiming more
 * than was read is passed over. The NI's link and the links to peers are
 * answered from the table alone: once it is loaded from the host (lo's /8
 * serves 127.x NIDs), no question asks the kernel again (issue 31: a
 * blocking netlink dump on the lcore, waiting for the rtnl lock).
 */
#include <dlfcn.h>
#include <ifaddrs.h>
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
link_msg_flags(size_t off, uint16_t type, int index, unsigned int flags)
{
	struct ifinfomsg ifi = { .ifi_index = index, .ifi_flags = flags };

	return msg(off, type, &ifi, sizeof(ifi));
}

#define RUNNING (IFF_UP | IFF_RUNNING)

static size_t
link_msg(size_t off, uint16_t type, int index)
{
	return link_msg_flags(off, type, index, RUNNING);
}

static size_t
addr_msg_prefix(size_t off, uint16_t type, int index, const char *v4, unsigned int prefix)
{
	uint8_t body[sizeof(struct ifaddrmsg) + RTA_LENGTH(4)];
	struct ifaddrmsg ifa = {
		.ifa_family = AF_INET,
		.ifa_index = (uint32_t)index,
		.ifa_prefixlen = (uint8_t)prefix,
	};
	struct rtattr rta = { .rta_len = RTA_LENGTH(4), .rta_type = IFA_LOCAL };
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, v4, &a), 1);
	memcpy(body, &ifa, sizeof(ifa));
	memcpy(body + sizeof(ifa), &rta, sizeof(rta));
	memcpy(body + sizeof(ifa) + RTA_LENGTH(0), &a, 4);
	return msg(off, type, body, sizeof(body));
}

static size_t
addr_msg(size_t off, uint16_t type, int index, const char *v4)
{
	return addr_msg_prefix(off, type, index, v4, 24);
}

static struct lnet_nid
nid(const char *s)
{
	struct lnet_nid n;

	assert_int_equal(libcfs_strnid(&n, s), 0);
	return n;
}

/* getifaddrs calls: the table's load only, never a question of the message path. */
static unsigned int g_getifaddrs_calls;

int getifaddrs(struct ifaddrs **ifap);

int
getifaddrs(struct ifaddrs **ifap)
{
	int (*real)(struct ifaddrs **) = (int (*)(struct ifaddrs **))dlsym(RTLD_NEXT, "getifaddrs");

	g_getifaddrs_calls++;
	return real(ifap);
}

/* Apply the @p n bytes of g_buf to @p t as the NI @p own: did they concern it? */
static bool
apply(struct sock_link_table *t, size_t n, const struct sock_link_own *own)
{
	bool ours = true;

	assert_int_equal(sock_link_table_apply(t, g_buf, n, own, &ours), 0);
	return ours;
}

static void
test_link_messages_by_interface(void **state)
{
	struct lnet_nid me = nid("10.1.1.1@tcp");
	struct sock_link_own own = { 3, &me };
	struct sock_link_table *t = sock_link_table_create();
	size_t n;

	(void)state;
	n = link_msg(0, RTM_NEWLINK, 7);
	assert_false(apply(t, n, &own));
	own.ifindex = 7;
	assert_true(apply(t, n, &own));
	own.ifindex = 3;
	n = link_msg(link_msg(0, RTM_NEWLINK, 9), RTM_DELLINK, 3); /* the second of two */
	assert_true(apply(t, n, &own));
	sock_link_table_destroy(t);
}

static void
test_address_messages_by_interface_or_address(void **state)
{
	struct lnet_nid me = nid("10.1.1.1@tcp");
	struct sock_link_own own = { 3, &me };
	struct sock_link_table *t = sock_link_table_create();
	size_t n;

	(void)state;
	n = addr_msg(0, RTM_NEWADDR, 9, "10.9.9.9");
	assert_false(apply(t, n, &own));
	n = addr_msg(0, RTM_DELADDR, 3, "10.9.9.9");
	assert_true(apply(t, n, &own));
	own.ifindex = 0;
	n = addr_msg(0, RTM_NEWADDR, 9, "10.1.1.1"); /* our address, come back elsewhere */
	assert_true(apply(t, n, &own));
	n = msg(0, RTM_NEWROUTE, "route", 5);
	assert_false(apply(t, n, &own));
	sock_link_table_destroy(t);
}

static void
test_bad_lengths_passed_over(void **state)
{
	struct lnet_nid me = nid("10.1.1.1@tcp");
	struct sock_link_own own = { 3, &me };
	struct sock_link_table *t = sock_link_table_create();
	struct nlmsghdr *h = (struct nlmsghdr *)g_buf;
	size_t n = link_msg(0, RTM_NEWLINK, 3);
	int index;

	(void)state;
	assert_false(apply(t, n - 1, &own)); /* cut short */
	h->nlmsg_len = (uint32_t)n + 64;     /* claims more than read */
	assert_false(apply(t, n, &own));
	h->nlmsg_len = 4; /* less than a header */
	assert_false(apply(t, n, &own));
	n = msg(0, RTM_NEWLINK, "x", 1); /* body too short for ifinfomsg */
	assert_false(apply(t, n, &own));
	assert_false(apply(t, 0, &own));
	n = addr_msg(0, RTM_NEWADDR, 3, "10.1.1.1");
	((struct rtattr *)(g_buf + NLMSG_HDRLEN + sizeof(struct ifaddrmsg)))->rta_len = 200;
	assert_false(apply(t, n, &own));               /* an attribute past the message */
	assert_false(sock_link_is_up(t, &me, &index)); /* nothing of it was taken */
	sock_link_table_destroy(t);
}

/* The NI's link and the links to peers, from messages alone. */
static void
test_link_state_from_messages(void **state)
{
	struct lnet_nid me = nid("10.1.1.1@tcp");
	struct lnet_nid peer = nid("10.1.1.9@tcp");
	struct lnet_nid routed = nid("192.0.2.1@tcp");
	struct sock_link_own own = { 0, &me };
	struct sock_link_table *t = sock_link_table_create();
	int index = -1;
	size_t n;

	(void)state;
	n = addr_msg(link_msg(0, RTM_NEWLINK, 3), RTM_NEWADDR, 3, "10.1.1.1");
	assert_true(apply(t, n, &own));
	assert_true(sock_link_is_up(t, &me, &index));
	assert_int_equal(index, 3);
	assert_false(sock_link_peer_down(t, &peer));
	assert_false(sock_link_peer_down(t, &routed)); /* no subnet holds it: not knowable */

	own.ifindex = 3;
	assert_true(apply(t, link_msg_flags(0, RTM_NEWLINK, 3, IFF_UP), &own)); /* carrier lost */
	assert_false(sock_link_is_up(t, &me, &index));
	assert_true(sock_link_peer_down(t, &peer));

	/* A /16 on a running interface and the /24 on the down one: the /24 is the way. */
	n = addr_msg_prefix(link_msg(0, RTM_NEWLINK, 4), RTM_NEWADDR, 4, "10.1.0.5", 16);
	assert_false(apply(t, n, &own));
	assert_true(sock_link_peer_down(t, &peer));
	assert_true(apply(t, link_msg(0, RTM_NEWLINK, 3), &own)); /* back */
	assert_false(sock_link_peer_down(t, &peer));

	assert_true(apply(t, addr_msg(0, RTM_DELADDR, 3, "10.1.1.1"), &own)); /* address gone */
	assert_false(sock_link_is_up(t, &me, &index));
	assert_int_equal(index, 0);
	assert_true(apply(t, addr_msg(0, RTM_NEWADDR, 3, "10.1.1.1"), &own));
	assert_true(sock_link_is_up(t, &me, &index));
	assert_true(apply(t, link_msg(0, RTM_DELLINK, 3),
			  &own)); /* the interface goes, its address too */
	assert_false(sock_link_is_up(t, &me, &index));
	assert_false(sock_link_peer_down(t, &peer)); /* the /16's running interface is left */
	sock_link_table_destroy(t);
}

/* Loaded from the host once; every question after that is answered without the kernel. */
static void
test_link_state_of_loopback_nids(void **state)
{
	struct lnet_nid lo = nid("127.0.42.7@tcp");
	struct lnet_nid gone = nid("192.0.2.250@tcp"); /* TEST-NET-1: on no interface here */
	struct sock_link_own own = { 0, &lo };
	struct sock_link_table *t = sock_link_table_create();
	unsigned int loads;
	int index = -1;
	int i;

	(void)state;
	g_getifaddrs_calls = 0;
	assert_int_equal(sock_link_table_load(t), 0);
	loads = g_getifaddrs_calls;
	assert_int_equal(loads, 1);
	for (i = 0; i < 100; i++) {
		assert_true(sock_link_is_up(t, &lo, &index)); /* lo's 127.0.0.1/8 serves it */
		assert_int_equal(index, (int)if_nametoindex("lo"));
		assert_false(sock_link_is_up(t, &gone, &index));
		assert_int_equal(index, 0);
		assert_false(sock_link_peer_down(t, &gone));
		(void)apply(t, link_msg(0, RTM_NEWLINK, 999), &own);
	}
	assert_int_equal(g_getifaddrs_calls, loads);
	sock_link_table_destroy(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_messages_by_interface),
		cmocka_unit_test(test_address_messages_by_interface_or_address),
		cmocka_unit_test(test_bad_lengths_passed_over),
		cmocka_unit_test(test_link_state_from_messages),
		cmocka_unit_test(test_link_state_of_loopback_nids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
