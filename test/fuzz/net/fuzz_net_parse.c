/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The userspace IP stack's parsers on a whole Ethernet frame, as the receive
 * path walks it: Ethernet (VLAN tags) to ARP, or to IPv4 or IPv6 and then
 * ICMP, ICMPv6 (neighbour discovery) or the TCP header's options. What
 * a parser accepts must lie inside the bytes it was given and hold the
 * invariants the layers above rely on.
 */
#include <stdint.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_ip.h>

#include "net_ip.h"
#include "net_neigh.h"
#include "net_port.h"
#include "net_tcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_arp(const uint8_t *p, size_t len)
{
	struct net_arp_view v;

	if (net_arp_parse(p, len, &v) != NET_ARP_OK) {
		return;
	}
	if ((v.op != RTE_ARP_OP_REQUEST && v.op != RTE_ARP_OP_REPLY) ||
	    rte_is_multicast_ether_addr(&v.sha) || len < sizeof(struct rte_arp_hdr)) {
		__builtin_trap();
	}
}

static void
fuzz_icmp(const uint8_t *p, size_t len)
{
	struct net_icmp_view v;

	if (net_icmp_parse(p, len, &v) != NET_ICMP_OK) {
		return;
	}
	if (rte_raw_cksum(p, len) != 0xffff) {
		__builtin_trap();
	}
	if (v.data != NULL && (v.data < p || v.data + v.data_len != p + len)) {
		__builtin_trap();
	}
	if (v.err.l4 != NULL &&
	    (v.err.l4 < p + 28 || v.err.l4 + v.err.l4_len != p + len || v.err.l4_len < 8)) {
		__builtin_trap();
	}
}

static void
fuzz_tcp_opts(const uint8_t *p, size_t len)
{
	struct net_tcp_opts o;
	size_t hlen;

	if (len < 20) {
		return;
	}
	hlen = (size_t)(p[12] >> 4) * 4;
	if (hlen < 20 || hlen > len || !net_tcp_parse_opts(p + 20, hlen - 20, &o)) {
		return;
	}
	if (o.wscale < -1 || o.wscale > 14) {
		__builtin_trap();
	}
}

static void
fuzz_ipv4(const uint8_t *p, size_t len, bool cksum_checked)
{
	uint16_t hlen = 0, tlen = 0;

	if (net_ipv4_check(p, len, cksum_checked, &hlen, &tlen) != NET_IPV4_OK) {
		return;
	}
	if (hlen < sizeof(struct rte_ipv4_hdr) || hlen > tlen || tlen > len) {
		__builtin_trap();
	}
	if (!cksum_checked && rte_raw_cksum(p, hlen) != 0xffff) {
		__builtin_trap();
	}
	if (((const struct rte_ipv4_hdr *)p)->next_proto_id == IPPROTO_ICMP) {
		fuzz_icmp(p + hlen, tlen - hlen);
	} else if (((const struct rte_ipv4_hdr *)p)->next_proto_id == IPPROTO_TCP) {
		fuzz_tcp_opts(p + hlen, tlen - hlen);
	}
}

static void
fuzz_nd(const struct rte_ipv6_hdr *h, const uint8_t *p, size_t len)
{
	struct net_nd_view v;

	if (net_nd_parse(h, p, len, &v) != NET_ND_OK) {
		return;
	}
	if (len < 24 || h->hop_limits != 255 || net_ipv6_is_multicast(v.target) ||
	    (v.type != NET_ND_NS && v.type != NET_ND_NA) || memcmp(v.target, p + 8, 16) != 0) {
		__builtin_trap();
	}
}

static void
fuzz_icmp6(const struct rte_ipv6_hdr *h, const uint8_t *p, size_t len)
{
	struct net_icmp6_view v;

	if (net_icmp6_parse(h, p, len, &v) != NET_ICMP6_OK) {
		return;
	}
	if (v.type == NET_ND_NS || v.type == NET_ND_NA) {
		fuzz_nd(h, p, len);
	}
	if (!net_ipv6_l4_cksum_ok(h->src_addr, h->dst_addr, IPPROTO_ICMPV6, p, len)) {
		__builtin_trap();
	}
	if (v.data != NULL && (v.data < p || v.data + v.data_len != p + len)) {
		__builtin_trap();
	}
	/* An error quotes a whole IPv6 header and 8 bytes past it, inside the message. */
	if (v.err.l4 != NULL &&
	    (v.err.l4 < p + 48 || v.err.l4 + v.err.l4_len != p + len || v.err.l4_len < 8)) {
		__builtin_trap();
	}
}

static void
fuzz_ipv6(const uint8_t *p, size_t len)
{
	const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)p;
	uint16_t plen = 0;

	if (net_ipv6_check(p, len, &plen) != NET_IPV6_OK) {
		return;
	}
	if (len < sizeof(*h) || plen > len - sizeof(*h) || net_ipv6_is_multicast(h->src_addr) ||
	    h->proto == IPPROTO_FRAGMENT || h->proto == IPPROTO_HOPOPTS) {
		__builtin_trap();
	}
	if (h->proto == IPPROTO_ICMPV6) {
		fuzz_icmp6(h, p + sizeof(*h), plen);
	} else if (h->proto == IPPROTO_TCP) {
		fuzz_tcp_opts(p + sizeof(*h), plen);
	}
}

/* Frames start where an mbuf's data does: aligned, as the parsers expect. */
static uint8_t g_frame[RTE_ETHER_MAX_JUMBO_FRAME_LEN] __rte_aligned(RTE_CACHE_LINE_SIZE);

int
LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	const uint8_t *data = g_frame;
	uint16_t l2 = 0;
	bool cksum_checked;

	if (size < 1 || size - 1 > sizeof(g_frame)) {
		return 0;
	}
	/* The first byte: did the PMD check the IPv4 header checksum? */
	cksum_checked = in[0] & 1;
	size--;
	memcpy(g_frame, in + 1, size);
	switch (net_eth_classify(data, size, &l2)) {
	case NET_CLASS_ARP:
		if (l2 > size) {
			__builtin_trap();
		}
		fuzz_arp(data + l2, size - l2);
		break;
	case NET_CLASS_IPV4:
		if (l2 > size) {
			__builtin_trap();
		}
		fuzz_ipv4(data + l2, size - l2, cksum_checked);
		break;
	case NET_CLASS_IPV6:
		if (l2 > size) {
			__builtin_trap();
		}
		fuzz_ipv6(data + l2, size - l2);
		break;
	default:
		break;
	}
	return 0;
}
