/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The links under a tcp NI, as ksocklnd's netdev and inetaddr notifiers see
 * them: the NI's address is on an interface that is up and running, and a
 * peer is reached through the interface whose subnet holds its address.
 *
 * The host's interfaces and addresses are kept in a table that rtnetlink's
 * notifications keep current (a socket in the NI's epoll set). Asking the
 * kernel instead (getifaddrs: a netlink dump that waits for the rtnl lock
 * any other process may hold) is a blocking call, made only when the table
 * is filled: at NI start-up and after the kernel dropped notifications.
 * The message path (a link event, a connection attempt) reads the table.
 */
#ifndef SOCK_LINK_H
#define SOCK_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include "lnet_lnd.h"

/** The host's interfaces (index, flags) and their addresses (with prefixes). */
struct sock_link_table;

/** An empty table, or NULL (no memory). */
struct sock_link_table *sock_link_table_create(void);
void sock_link_table_destroy(struct sock_link_table *t);

/**
 * Fill @p t from the kernel (getifaddrs): blocking, so only at start-up or
 * after sock_link_drain() reported lost messages. @return 0 or -errno (@p t
 * then left as it was).
 */
int sock_link_table_load(struct sock_link_table *t);

/** An NI's own link: its interface and its address (what concerns it). */
struct sock_link_own {
	int ifindex; /**< 0: none holds its address */
	const struct lnet_nid *nid;
};

/**
 * Apply rtnetlink messages @p buf (@p len bytes, as one recv got them):
 * links and addresses added, changed, deleted. Malformed messages are
 * passed over (fuzz_sock_link). *@p ours: one concerned @p own's interface
 * or address. @return -ENOMEM when an entry could not be added (the table
 * then no longer says the whole truth), else 0.
 */
int sock_link_table_apply(struct sock_link_table *t, const void *buf, size_t len,
			  const struct sock_link_own *own, bool *ours);

/**
 * True when an interface that is up and running holds @p nid's address (or
 * a running loopback interface's subnet holds it: lo's /8 serves 127.x);
 * @p ifindex gets that interface's index (0: none holds it).
 */
bool sock_link_is_up(const struct sock_link_table *t, const struct lnet_nid *nid, int *ifindex);

/**
 * Whether the link to @p peer is down: the interface whose subnet holds the
 * peer's address (the longest prefix; a running one on a tie) is not
 * running. False when no interface's subnet holds it (a routed peer, whose
 * path this cannot see). A connection of any NI goes by that link, whatever
 * its source address (without source routing a rail's NI reaches the other
 * rail's peer NIDs through the other link, as the kernel's cross-rail
 * connections of captures/kernel-routing-health scenario 2 do).
 */
bool sock_link_peer_down(const struct sock_link_table *t, const struct lnet_nid *peer);

/** A non-blocking rtnetlink socket listening to link and address changes, or -errno. */
int sock_link_open(void);

/** What one drain of the rtnetlink socket found. */
enum sock_link_drained {
	SOCK_LINK_NOTHING = 0, /**< nothing was read */
	SOCK_LINK_OTHERS,      /**< other interfaces changed (the paths to peers may have) */
	SOCK_LINK_OURS,        /**< ... and the NI's own interface or address did */
	SOCK_LINK_LOST, /**< the kernel dropped some (ENOBUFS), or the table is short: reload it */
};

/**
 * @p fd is readable: read what it holds into @p t. A host making
 * containers' veths costs the NI's lcore the read and the table's update.
 */
enum sock_link_drained sock_link_drain(int fd, struct sock_link_table *t,
				       const struct sock_link_own *own);

#endif /* SOCK_LINK_H */
