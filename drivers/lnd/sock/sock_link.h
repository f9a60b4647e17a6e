/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The link under a tcp NI, as ksocklnd's netdev and inetaddr notifiers see
 * it: the NI's address is on an interface that is up and running. A
 * rtnetlink socket in the NI's epoll set says when links or addresses
 * change; the state is then read again and a change reported to LNet
 * (lnet_ni_link_state), which marks the NI fatal and pushes to peers.
 */
#ifndef SOCK_LINK_H
#define SOCK_LINK_H

#include <stdbool.h>

#include "lnet_lnd.h"

/**
 * True when an interface that is up and running holds @p nid's address;
 * @p ifindex gets that interface's index (0: none holds it).
 */
bool sock_link_is_up(const struct lnet_nid *nid, int *ifindex);

/** A non-blocking rtnetlink socket listening to link and address changes, or -errno. */
int sock_link_open(void);

/**
 * @p fd is readable: drain it. @return true when a message read concerns
 * interface @p ifindex or @p nid's address, or some were lost (ENOBUFS):
 * the link state is worth reading again. Other interfaces' changes (a host
 * making containers' veths) cost the NI's lcore no more than the read.
 * *@p any: anything at all was read (some link or address changed: the
 * links under the NI's connections are worth a look).
 */
bool sock_link_drain(int fd, int ifindex, const struct lnet_nid *nid, bool *any);

/**
 * Whether the link to @p peer is down: the interface whose subnet holds the
 * peer's address (the longest prefix; a running one on a tie) is not
 * running. False when no interface's subnet holds it (a routed peer, whose
 * path this cannot see). A connection of any NI goes by that link, whatever
 * its source address (without source routing a rail's NI reaches the other
 * rail's peer NIDs through the other link, as the kernel's cross-rail
 * connections of captures/kernel-routing-health scenario 2 do).
 */
bool sock_link_peer_down(const struct lnet_nid *peer);

/**
 * Whether rtnetlink messages @p buf (@p len bytes, as one recv got them)
 * concern interface @p ifindex or @p nid's address; malformed ones are
 * passed over (fuzz_sock_link).
 */
bool sock_link_msgs_concern(const void *buf, size_t len, int ifindex, const struct lnet_nid *nid);

#endif /* SOCK_LINK_H */
