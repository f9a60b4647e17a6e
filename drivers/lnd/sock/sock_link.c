/* SPDX-License-Identifier: BSD-3-Clause */
/* The link under a tcp NI: rtnetlink notifications and the state they prompt a look at. */
#include <errno.h>
#include <ifaddrs.h>
#include <stdint.h>
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
sock_link_is_up(const struct lnet_nid *nid, int *ifindex)
{
	struct ifaddrs *all;
	struct ifaddrs *i;
	struct ifaddrs *found = NULL;
	struct sock_addr want;
	bool up;

	*ifindex = 0;
	if (sock_addr_of_nid(nid, 0, &want) != 0 || getifaddrs(&all) != 0) {
		return true; /* not knowable: leave the NI as it is */
	}
	for (i = all; i != NULL && found == NULL; i = i->ifa_next) {
		if (sock_link_same_addr(i->ifa_addr, &want)) {
			found = i;
		}
	}
	for (i = all; i != NULL && found == NULL; i = i->ifa_next) {
		if (sock_link_loopback_covers(i, &want)) {
			found = i;
		}
	}
	up = found != NULL && sock_link_running(found);
	if (found != NULL) {
		*ifindex = (int)if_nametoindex(found->ifa_name);
	}
	freeifaddrs(all);
	return up;
}

/* An address message naming @p want (IFA_LOCAL or IFA_ADDRESS). */
static bool
sock_link_addr_is(const struct nlmsghdr *h, const struct sock_addr *want)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	const struct rtattr *rta = IFA_RTA(ifa);
	int len = (int)IFA_PAYLOAD(h);
	size_t alen = want->ss.ss_family == AF_INET ? 4 : 16;
	const void *a = want->ss.ss_family == AF_INET ?
				(const void *)&((const struct sockaddr_in *)&want->ss)->sin_addr :
				(const void *)&((const struct sockaddr_in6 *)&want->ss)->sin6_addr;

	if (want->ss.ss_family == AF_UNSPEC || ifa->ifa_family != want->ss.ss_family) {
		return false;
	}
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if ((rta->rta_type == IFA_LOCAL || rta->rta_type == IFA_ADDRESS) &&
		    RTA_PAYLOAD(rta) == alen && memcmp(RTA_DATA(rta), a, alen) == 0) {
			return true;
		}
	}
	return false;
}

/* One rtnetlink message: does it concern our interface or our address? */
static bool
sock_link_msg_concerns(const struct nlmsghdr *h, int ifindex, const struct sock_addr *want)
{
	switch (h->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		return h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifinfomsg)) &&
		       ((const struct ifinfomsg *)NLMSG_DATA(h))->ifi_index == ifindex;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		return h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifaddrmsg)) &&
		       ((int)((const struct ifaddrmsg *)NLMSG_DATA(h))->ifa_index == ifindex ||
			sock_link_addr_is(h, want));
	default:
		return false;
	}
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

bool
sock_link_msgs_concern(const void *buf, size_t len, int ifindex, const struct lnet_nid *nid)
{
	struct sock_addr want;
	size_t off = 0;

	if (sock_addr_of_nid(nid, 0, &want) != 0) {
		want.ss.ss_family = AF_UNSPEC;
	}
	/* NLMSG_OK/NLMSG_NEXT's walk, with every length checked against what is left. */
	while (len - off >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *h = (const void *)((const char *)buf + off);
		size_t mlen = h->nlmsg_len;

		if (mlen < sizeof(*h) || mlen > len - off) {
			return false; /* truncated or bogus: nothing more to trust */
		}
		if (sock_link_msg_concerns(h, ifindex, &want)) {
			return true;
		}
		if (NLMSG_ALIGN(mlen) >= len - off) {
			return false;
		}
		off += NLMSG_ALIGN(mlen);
	}
	return false;
}

bool
sock_link_drain(int fd, int ifindex, const struct lnet_nid *nid, bool *any)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	bool ours = false;
	ssize_t n;

	*any = false;
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		if (n < 0) {
			if (errno != ENOBUFS) {
				break; /* EAGAIN: drained */
			}
			ours = true; /* some were lost: ours among them, perhaps */
			*any = true;
			continue;
		}
		*any = true;
		ours = ours || sock_link_msgs_concern(buf, (size_t)n, ifindex, nid);
	}
	return ours;
}

/* Bits set in a netmask: its prefix length. */
static unsigned int
sock_link_prefix(const struct sockaddr *mask)
{
	const uint8_t *b = mask->sa_family == AF_INET ?
				   (const uint8_t *)&((const struct sockaddr_in *)mask)->sin_addr :
				   (const uint8_t *)&((const struct sockaddr_in6 *)mask)->sin6_addr;
	size_t len = mask->sa_family == AF_INET ? 4 : 16;
	unsigned int bits = 0;

	for (size_t i = 0; i < len; i++) {
		bits += (unsigned int)__builtin_popcount(b[i]);
	}
	return bits;
}

/* @p want is in the subnet of interface address @p i. */
static bool
sock_link_subnet_holds(const struct ifaddrs *i, const struct sock_addr *want)
{
	const uint8_t *a;
	const uint8_t *m;
	const uint8_t *w;
	size_t len;

	if (i->ifa_addr == NULL || i->ifa_netmask == NULL ||
	    i->ifa_addr->sa_family != want->ss.ss_family ||
	    i->ifa_netmask->sa_family != want->ss.ss_family) {
		return false;
	}
	if (want->ss.ss_family == AF_INET) {
		a = (const uint8_t *)&((const struct sockaddr_in *)i->ifa_addr)->sin_addr;
		m = (const uint8_t *)&((const struct sockaddr_in *)i->ifa_netmask)->sin_addr;
		w = (const uint8_t *)&((const struct sockaddr_in *)&want->ss)->sin_addr;
		len = 4;
	} else {
		a = (const uint8_t *)&((const struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
		m = (const uint8_t *)&((const struct sockaddr_in6 *)i->ifa_netmask)->sin6_addr;
		w = (const uint8_t *)&((const struct sockaddr_in6 *)&want->ss)->sin6_addr;
		len = 16;
	}
	for (size_t k = 0; k < len; k++) {
		if (((a[k] ^ w[k]) & m[k]) != 0) {
			return false;
		}
	}
	return true;
}

bool
sock_link_peer_down(const struct lnet_nid *peer)
{
	const struct ifaddrs *best = NULL;
	struct ifaddrs *all;
	struct ifaddrs *i;
	struct sock_addr want;
	bool down;

	if (sock_addr_of_nid(peer, 0, &want) != 0 || getifaddrs(&all) != 0) {
		return false; /* not knowable: try */
	}
	for (i = all; i != NULL; i = i->ifa_next) {
		if (sock_link_subnet_holds(i, &want) &&
		    (best == NULL || sock_link_prefix(i->ifa_netmask) > sock_link_prefix(best->ifa_netmask) ||
		     (sock_link_prefix(i->ifa_netmask) == sock_link_prefix(best->ifa_netmask) &&
		      sock_link_running(i) && !sock_link_running(best)))) {
			best = i;
		}
	}
	down = best != NULL && !sock_link_running(best);
	freeifaddrs(all);
	return down;
}
