/* SPDX-License-Identifier: BSD-3-Clause */
/* The link under a tcp NI: rtnetlink notifications and the state they prompt a look at. */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include "sock_addr.h"
#include "sock_link.h"

static bool
sock_link_same_addr(const struct sockaddr *ifa, const struct sock_addr *want)
{
	if (ifa == NULL || ifa->sa_family != want->ss.ss_family) {
		return false;
	}
	if (ifa->sa_family == AF_INET) {
		return ((const struct sockaddr_in *)ifa)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)&want->ss)->sin_addr.s_addr;
	}
	return memcmp(&((const struct sockaddr_in6 *)ifa)->sin6_addr,
		      &((const struct sockaddr_in6 *)&want->ss)->sin6_addr,
		      sizeof(struct in6_addr)) == 0;
}

/* A loopback interface's subnet is local as a whole: 127.0.0.1/8 serves 127.0.5.9. */
static bool
sock_link_loopback_covers(const struct ifaddrs *i, const struct sock_addr *want)
{
	const struct sockaddr_in *a = (const struct sockaddr_in *)i->ifa_addr;
	const struct sockaddr_in *m = (const struct sockaddr_in *)i->ifa_netmask;
	const struct sockaddr_in *w = (const struct sockaddr_in *)&want->ss;

	return (i->ifa_flags & IFF_LOOPBACK) != 0 && a != NULL && m != NULL &&
	       a->sin_family == AF_INET && want->ss.ss_family == AF_INET &&
	       ((a->sin_addr.s_addr ^ w->sin_addr.s_addr) & m->sin_addr.s_addr) == 0;
}

static bool
sock_link_running(const struct ifaddrs *i)
{
	return (i->ifa_flags & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING);
}

/*
 * The kernel's lnet_get_link_status(): running (IFF_UP and the operational
 * state, which IFF_RUNNING reflects: carrier included); and, as its
 * inetaddr notifier, the NI's address still on it.
 */
bool
sock_link_is_up(const struct lnet_nid *nid)
{
	struct ifaddrs *all;
	struct ifaddrs *i;
	struct sock_addr want;
	int up = -1;

	if (sock_addr_of_nid(nid, 0, &want) != 0 || getifaddrs(&all) != 0) {
		return true; /* not knowable: leave the NI as it is */
	}
	for (i = all; i != NULL && up < 0; i = i->ifa_next) {
		if (sock_link_same_addr(i->ifa_addr, &want)) {
			up = sock_link_running(i);
		}
	}
	for (i = all; i != NULL && up < 0; i = i->ifa_next) {
		if (sock_link_loopback_covers(i, &want)) {
			up = sock_link_running(i);
		}
	}
	freeifaddrs(all);
	return up > 0;
}

int
sock_link_open(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR,
	};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0) {
		return -errno;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

/* The messages themselves are not parsed: any of them means "look again" (ENOBUFS too). */
bool
sock_link_drain(int fd)
{
	char buf[8192];
	bool any = false;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		if (n < 0 && errno != ENOBUFS) {
			break; /* EAGAIN: drained */
		}
		any = true;
	}
	return any;
}
