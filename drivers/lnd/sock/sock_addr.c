/* SPDX-License-Identifier: BSD-3-Clause */
/* Socket addresses of tcp NIDs (see sock_addr.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "sock_addr.h"

int
sock_addr_family(const struct lnet_nid *nid)
{
	if (nid->nid_size == 0) {
		return AF_INET;
	}
	return nid->nid_size == 12 ? AF_INET6 : AF_UNSPEC;
}

int
sock_addr_of_nid(const struct lnet_nid *nid, uint16_t port, struct sock_addr *out)
{
	memset(out, 0, sizeof(*out));
	switch (sock_addr_family(nid)) {
	case AF_INET: {
		struct sockaddr_in *in = (struct sockaddr_in *)&out->ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		in->sin_addr.s_addr = nid->nid_addr[0]; /* NIDs hold addresses in network order */
		out->len = sizeof(*in);
		return 0;
	}
	case AF_INET6: {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&out->ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		memcpy(&in6->sin6_addr, nid->nid_addr, sizeof(in6->sin6_addr));
		out->len = sizeof(*in6);
		return 0;
	}
	default:
		return -EAFNOSUPPORT;
	}
}

const struct ksock_proto *
sock_addr_proto(const struct lnet_nid *nid)
{
	return sock_addr_family(nid) == AF_INET6 ? &ksock_proto_v4 : &ksock_proto_v3;
}

uint16_t
sock_addr_port(const struct sock_addr *a)
{
	if (a->ss.ss_family == AF_INET6) {
		return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
	}
	return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
}

void
sock_addr_set_port(struct sock_addr *a, uint16_t port)
{
	if (a->ss.ss_family == AF_INET6) {
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
	} else {
		((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
	}
}
