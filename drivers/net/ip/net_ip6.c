/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 and ICMPv6 parsers, checksums and address helpers: see net_ip.h. */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "net_ip.h"

#define ICMP6_HDR_LEN 8

/* Next-header values that are extension headers (RFC 8200 4, IANA list), not upper layers. */
static bool
ip6_is_ext_hdr(uint8_t nh)
{
	switch (nh) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_DSTOPTS:
	case IPPROTO_AH:
	case IPPROTO_ESP:
	case 135: /* mobility */
	case 139: /* HIP */
	case 140: /* shim6 */
		return true;
	default:
		return false;
	}
}

bool
net_ipv6_is_multicast(const uint8_t a[16])
{
	return a[0] == 0xff;
}

enum net_ipv6_verdict
net_ipv6_check(const void *p, size_t len, uint16_t *plen)
{
	const struct rte_ipv6_hdr *h = p;

	if (len < sizeof(*h)) {
		return NET_IPV6_SHORT;
	}
	if ((rte_be_to_cpu_32(h->vtc_flow) >> 28) != 6) {
		return NET_IPV6_BAD_VERSION;
	}
	*plen = rte_be_to_cpu_16(h->payload_len);
	/* A zero payload length means a jumbogram (RFC 2675): not on Ethernet. */
	if (*plen == 0 && h->proto != IPPROTO_NONE) {
		return NET_IPV6_BAD_LEN;
	}
	if (*plen > len - sizeof(*h)) {
		return NET_IPV6_BAD_LEN;
	}
	if (net_ipv6_is_multicast(h->src_addr)) {
		return NET_IPV6_BAD_SRC;
	}
	/* Reassembly is not ours to do; the other extension headers are not parsed. */
	if (h->proto == IPPROTO_FRAGMENT) {
		return NET_IPV6_FRAGMENT;
	}
	if (ip6_is_ext_hdr(h->proto)) {
		return NET_IPV6_EXT_HDR;
	}
	return NET_IPV6_OK;
}

/* The one's-complement sum (unfolded) of the RFC 8200 8.1 pseudo-header. */
static uint32_t
ip6_pseudo_sum(const uint8_t src[16], const uint8_t dst[16], uint8_t proto, uint32_t len)
{
	uint32_t sum = __rte_raw_cksum(src, 16, 0);

	sum = __rte_raw_cksum(dst, 16, sum);
	sum += rte_cpu_to_be_16((uint16_t)(len >> 16)) + rte_cpu_to_be_16((uint16_t)len);
	sum += rte_cpu_to_be_16(proto);
	return sum;
}

uint16_t
net_ipv6_l4_cksum(const uint8_t src[16], const uint8_t dst[16], uint8_t proto, const void *l4,
		  size_t len)
{
	uint32_t sum = ip6_pseudo_sum(src, dst, proto, (uint32_t)len);

	return (uint16_t)~__rte_raw_cksum_reduce(__rte_raw_cksum(l4, len, sum));
}

bool
net_ipv6_l4_cksum_ok(const uint8_t src[16], const uint8_t dst[16], uint8_t proto, const void *l4,
		     size_t len)
{
	/* With its checksum field in, a segment and its pseudo-header sum to all ones. */
	return net_ipv6_l4_cksum(src, dst, proto, l4, len) == 0;
}

void
net_ipv6_link_local(const struct rte_ether_addr *mac, uint8_t out[16])
{
	/* RFC 4291 2.5.1 and appendix A: modified EUI-64, the universal/local bit inverted. */
	memset(out, 0, 16);
	out[0] = 0xfe;
	out[1] = 0x80;
	out[8] = mac->addr_bytes[0] ^ 0x02;
	out[9] = mac->addr_bytes[1];
	out[10] = mac->addr_bytes[2];
	out[11] = 0xff;
	out[12] = 0xfe;
	out[13] = mac->addr_bytes[3];
	out[14] = mac->addr_bytes[4];
	out[15] = mac->addr_bytes[5];
}

void
net_ipv6_solicited_node(const uint8_t addr[16], uint8_t out[16])
{
	uint8_t low[3];

	/* RFC 4291 2.7.1: ff02::1:ff00:0/104 and the address's low 24 bits (out may be addr). */
	memcpy(low, &addr[13], 3);
	memset(out, 0, 16);
	out[0] = 0xff;
	out[1] = 0x02;
	out[11] = 0x01;
	out[12] = 0xff;
	memcpy(&out[13], low, 3);
}

static enum net_icmp6_verdict
icmp6_parse_quote(const uint8_t *q, size_t len, struct net_icmp6_view *v)
{
	const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)q;

	/* The quoted header and the first 8 bytes past it: TCP's ports and sequence. */
	if (len < sizeof(*h) + 8) {
		return NET_ICMP6_SHORT;
	}
	if ((rte_be_to_cpu_32(h->vtc_flow) >> 28) != 6) {
		return NET_ICMP6_BAD_QUOTE;
	}
	v->err.type = v->type;
	v->err.code = v->code;
	memcpy(v->err.src, h->src_addr, 16);
	memcpy(v->err.dst, h->dst_addr, 16);
	v->err.proto = h->proto;
	v->err.l4 = q + sizeof(*h);
	v->err.l4_len = len - sizeof(*h);
	return NET_ICMP6_OK;
}

enum net_icmp6_verdict
net_icmp6_parse(const struct rte_ipv6_hdr *ip, const void *p, size_t len, struct net_icmp6_view *v)
{
	const uint8_t *b = p;

	memset(v, 0, sizeof(*v));
	if (len < ICMP6_HDR_LEN) {
		return NET_ICMP6_SHORT;
	}
	if (!net_ipv6_l4_cksum_ok(ip->src_addr, ip->dst_addr, IPPROTO_ICMPV6, p, len)) {
		return NET_ICMP6_BAD_CKSUM;
	}
	v->type = b[0];
	v->code = b[1];
	switch (v->type) {
	case NET_ICMP6_ECHO_REQUEST:
	case NET_ICMP6_ECHO_REPLY:
		v->id = (uint16_t)(b[4] << 8 | b[5]);
		v->seq = (uint16_t)(b[6] << 8 | b[7]);
		v->data = b + ICMP6_HDR_LEN;
		v->data_len = len - ICMP6_HDR_LEN;
		return NET_ICMP6_OK;
	case NET_ICMP6_PACKET_TOO_BIG:
		/* RFC 4443 3.2: the next hop's MTU, 32 bits. */
		memcpy(&v->err.mtu, b + 4, sizeof(v->err.mtu));
		v->err.mtu = rte_be_to_cpu_32(v->err.mtu);
		/* fall through */
	case NET_ICMP6_DEST_UNREACH:
	case NET_ICMP6_TIME_EXCEEDED:
	case NET_ICMP6_PARAM_PROBLEM:
		return icmp6_parse_quote(b + ICMP6_HDR_LEN, len - ICMP6_HDR_LEN, v);
	default:
		return NET_ICMP6_OK;
	}
}

/* ---- neighbour discovery messages (RFC 4861 4.3, 4.4, 4.6.1) ---- */

#define ND_MSG_LEN 24 /* type, code, checksum, flags or reserved, target */
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define ND_HOP_LIMIT 255

static bool
ip6_is_unspecified(const uint8_t a[16])
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

/* Walk the options: each at least 8 bytes and inside the message (RFC 4861 4.6). */
static enum net_nd_verdict
nd_parse_opts(const uint8_t *o, size_t len, uint8_t lla_type, struct net_nd_view *v)
{
	size_t olen;

	while (len > 0) {
		if (len < 2 || o[1] == 0 || (size_t)o[1] * 8 > len) {
			return NET_ND_BAD_OPT;
		}
		olen = (size_t)o[1] * 8;
		/* An Ethernet link-layer address option is exactly 8 bytes (RFC 2464 6). */
		if (o[0] == lla_type && olen == 8) {
			v->has_lla = true;
			memcpy(&v->lla, o + 2, RTE_ETHER_ADDR_LEN);
		}
		o += olen;
		len -= olen;
	}
	return NET_ND_OK;
}

enum net_nd_verdict
net_nd_parse(const struct rte_ipv6_hdr *ip, const void *p, size_t len, struct net_nd_view *v)
{
	const uint8_t *b = p;
	enum net_nd_verdict r;

	memset(v, 0, sizeof(*v));
	if (len < ND_MSG_LEN) {
		return NET_ND_SHORT;
	}
	v->type = b[0];
	if ((v->type != NET_ND_NS && v->type != NET_ND_NA) || b[1] != 0) {
		return NET_ND_BAD_CODE;
	}
	/* 255 proves it was not forwarded: it comes from this link. */
	if (ip->hop_limits != ND_HOP_LIMIT) {
		return NET_ND_BAD_HOP;
	}
	memcpy(v->target, b + 8, 16);
	if (net_ipv6_is_multicast(v->target)) {
		return NET_ND_BAD_TARGET;
	}
	v->flags = b[4];
	r = nd_parse_opts(b + ND_MSG_LEN, len - ND_MSG_LEN,
			  v->type == NET_ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA, v);
	if (r != NET_ND_OK) {
		return r;
	}
	if (v->type == NET_ND_NS) {
		v->flags = 0;
		/* DAD (unspecified source): to a solicited-node group, no source address option. */
		if (ip6_is_unspecified(ip->src_addr) &&
		    (v->has_lla || ip->dst_addr[0] != 0xff || ip->dst_addr[11] != 0x01 ||
		     ip->dst_addr[12] != 0xff)) {
			return NET_ND_BAD_DAD;
		}
	} else if (net_ipv6_is_multicast(ip->dst_addr) && (v->flags & NET_ND_NA_SOLICITED)) {
		return NET_ND_BAD_TARGET; /* a solicited answer goes to the solicitor alone */
	}
	return NET_ND_OK;
}

size_t
net_nd_na_fill(uint8_t *buf, const uint8_t target[16], const struct rte_ether_addr *mac,
	       uint8_t flags)
{
	memset(buf, 0, NET_ND_NA_LEN);
	buf[0] = NET_ND_NA;
	buf[4] = flags;
	memcpy(buf + 8, target, 16);
	buf[ND_MSG_LEN] = ND_OPT_TLLA;
	buf[ND_MSG_LEN + 1] = 1; /* 8 bytes */
	memcpy(buf + ND_MSG_LEN + 2, mac, RTE_ETHER_ADDR_LEN);
	return NET_ND_NA_LEN;
}

void
net_ipv6_mcast_mac(const uint8_t group[16], struct rte_ether_addr *mac)
{
	/* RFC 2464 7: 33:33 and the group's low 32 bits. */
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], &group[12], 4);
}
