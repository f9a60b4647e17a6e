/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Socket addresses of tcp NIDs: a 4-byte NID is an IPv4 address and its
 * connections speak ksocklnd V3; a 16-byte one (nid_size 12) is IPv6 and
 * speaks V4, with 96-byte LNet headers (lnet-facts §4.2, trap 4).
 */
#ifndef SOCK_ADDR_H
#define SOCK_ADDR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "ksock_proto.h"

struct sock_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

/** @p nid's address and @p port; -EAFNOSUPPORT for a NID that is not IPv4 or IPv6. */
int sock_addr_of_nid(const struct lnet_nid *nid, uint16_t port, struct sock_addr *out);

/** The address family of @p nid's address: AF_INET, AF_INET6, or AF_UNSPEC. */
int sock_addr_family(const struct lnet_nid *nid);

/** The protocol a connection to @p nid starts with: V3 for IPv4, V4 for IPv6. */
const struct ksock_proto *sock_addr_proto(const struct lnet_nid *nid);

uint16_t sock_addr_port(const struct sock_addr *a);
void sock_addr_set_port(struct sock_addr *a, uint16_t port);

#endif /* SOCK_ADDR_H */
