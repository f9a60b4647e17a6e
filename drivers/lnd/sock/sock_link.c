/* SPDX-License-Identifier: BSD-3-Clause */
/* The links under a tcp NI: a table of the host's interfaces and addresses, kept by rtnetlink. */
#include <errno.h>
#include <ifaddrs.h>
#include <stdint.h>
#include <stdlib.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include "sock_addr.h"
#include "sock_link.h"

struct sock_link_if {
	int index;
	unsigned int flags; /* IFF_UP, IFF_RUNNING (carrier included), IFF_LOOPBACK */
};

struct sock_link_addr {
	int index;           /* the interface that holds it */
	int family;          /* AF_INET or AF_INET6 */
	unsigned int prefix; /* its subnet's prefix length */
	uint8_t a[16];       /* 4 bytes for AF_INET */
};

struct sock_link_table {
	struct sock_link_if *ifs;
	unsigned int nifs;
	unsigned int ifs_cap;
	struct sock_link_addr *addrs;
	unsigned int naddrs;
	unsigned int addrs_cap;
};

static size_t
sock_link_alen(int family)
{
	return family == AF_INET ? 4 : 16;
}

struct sock_link_table *
sock_link_table_create(void)
{
	return calloc(1, sizeof(struct sock_link_table));
}

void
sock_link_table_destroy(struct sock_link_table *t)
{
	if (t != NULL) {
		free(t->ifs);
		free(t->addrs);
		free(t);
	}
}

/* Room for one more of @p n elements of @p size in *@p arr. */
static int
sock_link_grow(void **arr, unsigned int n, unsigned int *cap, size_t size)
{
	unsigned int want = *cap == 0 ? 16 : *cap * 2;
	void *p;

	if (n < *cap) {
		return 0;
	}
	p = realloc(*arr, want * size);
	if (p == NULL) {
		return -ENOMEM;
	}
	*arr = p;
	*cap = want;
	return 0;
}

static struct sock_link_if *
sock_link_if_find(const struct sock_link_table *t, int index)
{
	for (unsigned int i = 0; i < t->nifs; i++) {
		if (t->ifs[i].index == index) {
			return &t->ifs[i];
		}
	}
	return NULL;
}

static int
sock_link_if_set(struct sock_link_table *t, int index, unsigned int flags)
{
	struct sock_link_if *i = sock_link_if_find(t, index);

	if (i == NULL) {
		if (sock_link_grow((void **)&t->ifs, t->nifs, &t->ifs_cap, sizeof(*t->ifs)) != 0) {
			return -ENOMEM;
		}
		i = &t->ifs[t->nifs++];
		i->index = index;
	}
	i->flags = flags;
	return 0;
}

static bool
sock_link_addr_same(const struct sock_link_addr *x, const struct sock_link_addr *y)
{
	return x->index == y->index && x->family == y->family &&
	       memcmp(x->a, y->a, sock_link_alen(x->family)) == 0;
}

static void
sock_link_addr_del(struct sock_link_table *t, const struct sock_link_addr *a)
{
	for (unsigned int i = 0; i < t->naddrs; i++) {
		if (sock_link_addr_same(&t->addrs[i], a)) {
			t->addrs[i] = t->addrs[--t->naddrs];
			return;
		}
	}
}

static int
sock_link_addr_set(struct sock_link_table *t, const struct sock_link_addr *a)
{
	for (unsigned int i = 0; i < t->naddrs; i++) {
		if (sock_link_addr_same(&t->addrs[i], a)) {
			t->addrs[i].prefix = a->prefix;
			return 0;
		}
	}
	if (sock_link_grow((void **)&t->addrs, t->naddrs, &t->addrs_cap, sizeof(*t->addrs)) != 0) {
		return -ENOMEM;
	}
	t->addrs[t->naddrs++] = *a;
	return 0;
}

/* An interface goes, and its addresses with it. */
static void
sock_link_if_del(struct sock_link_table *t, int index)
{
	unsigned int i = 0;

	while (i < t->naddrs) {
		if (t->addrs[i].index == index) {
			t->addrs[i] = t->addrs[--t->naddrs];
		} else {
			i++;
		}
	}
	for (i = 0; i < t->nifs; i++) {
		if (t->ifs[i].index == index) {
			t->ifs[i] = t->ifs[--t->nifs];
			return;
		}
	}
}

/* ---- filling from the kernel (blocking) ---- */

static unsigned int
sock_link_prefix_of_mask(const struct sockaddr *mask)
{
	const uint8_t *b = mask->sa_family == AF_INET ?
				   (const uint8_t *)&((const struct sockaddr_in *)mask)->sin_addr :
				   (const uint8_t *)&((const struct sockaddr_in6 *)mask)->sin6_addr;
	unsigned int bits = 0;

	for (size_t i = 0; i < sock_link_alen(mask->sa_family); i++) {
		bits += (unsigned int)__builtin_popcount(b[i]);
	}
	return bits;
}

static int
sock_link_load_one(struct sock_link_table *t, const struct ifaddrs *i)
{
	int index = (int)if_nametoindex(i->ifa_name);
	struct sock_link_addr a = { .index = index };
	const struct sockaddr *sa = i->ifa_addr;

	if (index == 0 || sock_link_if_set(t, index, i->ifa_flags) != 0) {
		return index == 0 ? 0 : -ENOMEM; /* gone meanwhile: its notification follows */
	}
	if (sa == NULL || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
	    i->ifa_netmask == NULL || i->ifa_netmask->sa_family != sa->sa_family) {
		return 0; /* a link without an address of ours (AF_PACKET) */
	}
	a.family = sa->sa_family;
	a.prefix = sock_link_prefix_of_mask(i->ifa_netmask);
	memcpy(a.a,
	       sa->sa_family == AF_INET ?
		       (const void *)&((const struct sockaddr_in *)sa)->sin_addr :
		       (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr,
	       sock_link_alen(a.family));
	return sock_link_addr_set(t, &a);
}

int
sock_link_table_load(struct sock_link_table *t)
{
	struct sock_link_table fresh = { 0 };
	struct ifaddrs *all;
	struct ifaddrs *i;
	int rc = 0;

	if (getifaddrs(&all) != 0) {
		return -errno;
	}
	for (i = all; i != NULL && rc == 0; i = i->ifa_next) {
		rc = sock_link_load_one(&fresh, i);
	}
	freeifaddrs(all);
	if (rc != 0) {
		free(fresh.ifs);
		free(fresh.addrs);
		return rc;
	}
	free(t->ifs);
	free(t->addrs);
	*t = fresh;
	return 0;
}

/* ---- keeping it current (rtnetlink messages) ---- */

static bool sock_link_want(const struct lnet_nid *nid, struct sock_link_addr *want);

/* @p a (of any interface) is @p own's address. */
static bool
sock_link_is_own_addr(const struct sock_link_addr *a, const struct sock_link_own *own)
{
	struct sock_link_addr want = { 0 };

	return own->nid != NULL && sock_link_want(own->nid, &want) && want.family == a->family &&
	       memcmp(want.a, a->a, sock_link_alen(a->family)) == 0;
}

static int
sock_link_apply_link(struct sock_link_table *t, const struct nlmsghdr *h,
		     const struct sock_link_own *own, bool *ours)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi))) {
		return 0;
	}
	*ours |= ifi->ifi_index == own->ifindex;
	if (h->nlmsg_type == RTM_DELLINK) {
		sock_link_if_del(t, ifi->ifi_index);
		return 0;
	}
	return sock_link_if_set(t, ifi->ifi_index, ifi->ifi_flags);
}

/* IFA_LOCAL is the interface's own address (IFA_ADDRESS the peer's on point-to-point links). */
static int
sock_link_apply_addr(struct sock_link_table *t, const struct nlmsghdr *h,
		     const struct sock_link_own *own, bool *ours)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	const struct rtattr *rta;
	const struct rtattr *local = NULL;
	const struct rtattr *address = NULL;
	const struct rtattr *use;
	struct sock_link_addr a = { 0 };
	int len;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)) {
		return 0;
	}
	len = (int)IFA_PAYLOAD(h);
	for (rta = IFA_RTA(ifa); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (RTA_PAYLOAD(rta) != sock_link_alen(ifa->ifa_family)) {
			continue;
		}
		if (rta->rta_type == IFA_LOCAL) {
			local = rta;
		} else if (rta->rta_type == IFA_ADDRESS) {
			address = rta;
		}
	}
	use = local != NULL ? local : address;
	if (use == NULL) {
		return 0;
	}
	a.index = (int)ifa->ifa_index;
	a.family = ifa->ifa_family;
	a.prefix = ifa->ifa_prefixlen;
	memcpy(a.a, RTA_DATA(use), sock_link_alen(a.family));
	*ours |= a.index == own->ifindex || sock_link_is_own_addr(&a, own);
	if (h->nlmsg_type == RTM_DELADDR) {
		sock_link_addr_del(t, &a);
		return 0;
	}
	return sock_link_addr_set(t, &a);
}

int
sock_link_table_apply(struct sock_link_table *t, const void *buf, size_t len,
		      const struct sock_link_own *own, bool *ours)
{
	size_t off = 0;
	int rc = 0;

	*ours = false;
	/* NLMSG_OK/NLMSG_NEXT's walk, with every length checked against what is left. */
	while (len - off >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *h = (const void *)((const char *)buf + off);
		size_t mlen = h->nlmsg_len;

		if (mlen < sizeof(*h) || mlen > len - off) {
			break; /* truncated or bogus: nothing more to trust */
		}
		switch (h->nlmsg_type) {
		case RTM_NEWLINK:
		case RTM_DELLINK:
			rc |= sock_link_apply_link(t, h, own, ours);
			break;
		case RTM_NEWADDR:
		case RTM_DELADDR:
			rc |= sock_link_apply_addr(t, h, own, ours);
			break;
		default:
			break;
		}
		if (NLMSG_ALIGN(mlen) >= len - off) {
			break;
		}
		off += NLMSG_ALIGN(mlen);
	}
	return rc != 0 ? -ENOMEM : 0;
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

enum sock_link_drained
sock_link_drain(int fd, struct sock_link_table *t, const struct sock_link_own *own)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	enum sock_link_drained got = SOCK_LINK_NOTHING;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		enum sock_link_drained now = SOCK_LINK_OTHERS;
		bool ours = false;

		if (n < 0) {
			if (errno != ENOBUFS) {
				break; /* EAGAIN: drained */
			}
			got = SOCK_LINK_LOST; /* the kernel dropped some: only a reload knows what */
			continue;
		}
		if (sock_link_table_apply(t, buf, (size_t)n, own, &ours) != 0) {
			now = SOCK_LINK_LOST;
		} else if (ours) {
			now = SOCK_LINK_OURS;
		}
		got = now > got ? now : got;
	}
	return got;
}

/* ---- questions the message path asks ---- */

static bool
sock_link_want(const struct lnet_nid *nid, struct sock_link_addr *want)
{
	struct sock_addr sa;

	if (sock_addr_of_nid(nid, 0, &sa) != 0) {
		return false;
	}
	want->family = sa.ss.ss_family;
	memcpy(want->a,
	       sa.ss.ss_family == AF_INET ?
		       (const void *)&((const struct sockaddr_in *)&sa.ss)->sin_addr :
		       (const void *)&((const struct sockaddr_in6 *)&sa.ss)->sin6_addr,
	       sock_link_alen(want->family));
	return true;
}

/* @p want is in @p a's subnet. */
static bool
sock_link_subnet_holds(const struct sock_link_addr *a, const struct sock_link_addr *want)
{
	unsigned int bits = a->prefix;

	if (a->family != want->family || bits > 8 * sock_link_alen(a->family)) {
		return false;
	}
	for (unsigned int k = 0; bits > 0; k++) {
		uint8_t mask = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));

		if (((a->a[k] ^ want->a[k]) & mask) != 0) {
			return false;
		}
		bits = bits >= 8 ? bits - 8 : 0;
	}
	return true;
}

static bool
sock_link_running(const struct sock_link_if *i)
{
	return i != NULL && (i->flags & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING);
}

/*
 * The kernel's lnet_get_link_status(): running (IFF_UP and the operational
 * state, which IFF_RUNNING reflects: carrier included); and, as its
 * inetaddr notifier, the NI's address still on it.
 */
bool
sock_link_is_up(const struct sock_link_table *t, const struct lnet_nid *nid, int *ifindex)
{
	const struct sock_link_addr *found = NULL;
	struct sock_link_addr want = { 0 };
	unsigned int i;

	*ifindex = 0;
	if (!sock_link_want(nid, &want)) {
		return true; /* not knowable: leave the NI as it is */
	}
	for (i = 0; i < t->naddrs && found == NULL; i++) {
		want.index = t->addrs[i].index;
		if (sock_link_addr_same(&t->addrs[i], &want)) {
			found = &t->addrs[i];
		}
	}
	/* A loopback interface's subnet is local as a whole: 127.0.0.1/8 serves 127.0.5.9. */
	for (i = 0; i < t->naddrs && found == NULL; i++) {
		const struct sock_link_if *li = sock_link_if_find(t, t->addrs[i].index);

		if (li != NULL && (li->flags & IFF_LOOPBACK) != 0 && want.family == AF_INET &&
		    sock_link_subnet_holds(&t->addrs[i], &want)) {
			found = &t->addrs[i];
		}
	}
	if (found == NULL) {
		return false;
	}
	*ifindex = found->index;
	return sock_link_running(sock_link_if_find(t, found->index));
}

bool
sock_link_peer_down(const struct sock_link_table *t, const struct lnet_nid *peer)
{
	const struct sock_link_addr *best = NULL;
	bool best_runs = false;
	struct sock_link_addr want = { 0 };

	if (!sock_link_want(peer, &want)) {
		return false; /* not knowable: try */
	}
	for (unsigned int i = 0; i < t->naddrs; i++) {
		const struct sock_link_addr *a = &t->addrs[i];
		bool runs;

		if (!sock_link_subnet_holds(a, &want)) {
			continue;
		}
		runs = sock_link_running(sock_link_if_find(t, a->index));
		if (best == NULL || a->prefix > best->prefix ||
		    (a->prefix == best->prefix && runs && !best_runs)) {
			best = a;
			best_runs = runs;
		}
	}
	return best != NULL && !best_runs;
}
