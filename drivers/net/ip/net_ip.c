/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 and ICMP for the port's own addresses: see net_ip.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "net_ip.h"

#define NET_STAT_ADD(s, field, n) __atomic_store_n(&(s)->field, (s)->field + (n), __ATOMIC_RELAXED)

#define ICMP_DEST_UNREACH 3
#define ICMP_TIME_EXCEEDED 11
#define ICMP_PARAM_PROBLEM 12
#define ICMP_FRAG_NEEDED 4
#define ICMP_HDR_LEN 8

struct net_ip_lcore {
	struct net_ip_stats stats;
	uint16_t next_id; /* IPv4 identification of what this lcore sends */
} __rte_cache_aligned;

struct net_ip {
	struct net_neigh *nb;
	struct net_port *port;
	struct net_ip_conf conf;
	struct {
		net_ip_rx_fn rx;
		net_ip_err_fn err;
		void *arg;
	} proto[256];
	net_ip_echo_fn echo_fn;
	void *echo_arg;
	/* IPv6 unicast addresses, [0] the link-local one; set before start, read unlocked. */
	uint8_t addr6[NET_IP6_MAX_ADDRS][16];
	unsigned int n_addr6;
	/* enum net_ip6_addr_state; atomic: any data lcore may find a duplicate. */
	uint8_t addr6_state[NET_IP6_MAX_ADDRS];
	struct rt_timer dad_timer; /* on data lcore 0: the wait after the DAD probes */
	bool dad_armed;            /* ever armed: destroy must cancel it there */
	struct rt_runtime *rt;     /* the port's: destroy comes after the port is gone */
	struct net_ip_lcore lc[NET_PORT_MAX_LCORES];
};

/* ---- parsers ---- */

static bool
ip_src_ok(uint32_t src)
{
	uint32_t h = rte_be_to_cpu_32(src);

	return h != 0 && h != UINT32_MAX && (h >> 28) != 0xe; /* not 224.0.0.0/4 */
}

enum net_ipv4_verdict
net_ipv4_check(const void *p, size_t len, bool cksum_checked, uint16_t *hlen, uint16_t *tlen)
{
	const struct rte_ipv4_hdr *h = p;

	if (len < sizeof(*h)) {
		return NET_IPV4_SHORT;
	}
	if ((h->version_ihl >> 4) != 4) {
		return NET_IPV4_BAD_VERSION;
	}
	*hlen = rte_ipv4_hdr_len(h);
	if (*hlen < sizeof(*h) || *hlen > len) {
		return NET_IPV4_BAD_HLEN;
	}
	*tlen = rte_be_to_cpu_16(h->total_length);
	if (*tlen < *hlen || *tlen > len) {
		return NET_IPV4_BAD_LEN;
	}
	/* A header with its checksum sums to all ones. */
	if (!cksum_checked && rte_raw_cksum(h, *hlen) != 0xffff) {
		return NET_IPV4_BAD_CKSUM;
	}
	if (!ip_src_ok(h->src_addr)) {
		return NET_IPV4_BAD_SRC;
	}
	/* More fragments, or not the first one: reassembly is not ours to do. */
	if (h->fragment_offset &
	    rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) {
		return NET_IPV4_FRAGMENT;
	}
	return NET_IPV4_OK;
}

static enum net_icmp_verdict
icmp_parse_quote(const uint8_t *q, size_t len, struct net_icmp_view *v)
{
	const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)q;
	uint16_t hlen;

	/* RFC 792: the quoted header and at least 64 bits of its data. */
	if (len < sizeof(*h) + 8) {
		return NET_ICMP_SHORT;
	}
	hlen = rte_ipv4_hdr_len(h);
	if ((h->version_ihl >> 4) != 4 || hlen < sizeof(*h) || len < (size_t)hlen + 8) {
		return NET_ICMP_BAD_QUOTE;
	}
	v->err.type = v->type;
	v->err.code = v->code;
	v->err.src = h->src_addr;
	v->err.dst = h->dst_addr;
	v->err.proto = h->next_proto_id;
	v->err.l4 = q + hlen;
	v->err.l4_len = len - hlen;
	return NET_ICMP_OK;
}

enum net_icmp_verdict
net_icmp_parse(const void *p, size_t len, struct net_icmp_view *v)
{
	const struct rte_icmp_hdr *ic = p;

	memset(v, 0, sizeof(*v));
	if (len < ICMP_HDR_LEN) {
		return NET_ICMP_SHORT;
	}
	if (rte_raw_cksum(p, len) != 0xffff) {
		return NET_ICMP_BAD_CKSUM;
	}
	v->type = ic->icmp_type;
	v->code = ic->icmp_code;
	switch (v->type) {
	case RTE_IP_ICMP_ECHO_REQUEST:
	case RTE_IP_ICMP_ECHO_REPLY:
		v->id = rte_be_to_cpu_16(ic->icmp_ident);
		v->seq = rte_be_to_cpu_16(ic->icmp_seq_nb);
		v->data = (const uint8_t *)p + ICMP_HDR_LEN;
		v->data_len = len - ICMP_HDR_LEN;
		return NET_ICMP_OK;
	case ICMP_DEST_UNREACH:
		if (v->code == ICMP_FRAG_NEEDED) {
			/* RFC 1191: the next-hop MTU in the low half of the unused word. */
			v->err.mtu = rte_be_to_cpu_16(ic->icmp_seq_nb);
		}
		/* fall through */
	case ICMP_TIME_EXCEEDED:
	case ICMP_PARAM_PROBLEM:
		return icmp_parse_quote((const uint8_t *)p + ICMP_HDR_LEN, len - ICMP_HDR_LEN, v);
	default:
		return NET_ICMP_OK;
	}
}

/* ---- output ---- */

int
net_ip_output(struct net_ip *ip, unsigned int lcore, struct rte_mbuf *m, uint32_t src, uint32_t dst,
	      uint8_t proto)
{
	struct net_ip_lcore *lc = &ip->lc[lcore];
	struct rte_ipv4_hdr *h;
	uint32_t from, nexthop;
	bool onlink;

	if (!net_neigh_src_for(ip->nb, dst, &from, &onlink) || (!onlink && ip->conf.gateway == 0)) {
		NET_STAT_ADD(&lc->stats, tx_no_route, 1);
		rte_pktmbuf_free(m);
		return -EHOSTUNREACH;
	}
	nexthop = onlink ? dst : ip->conf.gateway;
	if (rte_pktmbuf_pkt_len(m) + sizeof(*h) > net_port_info(ip->port)->mtu) {
		NET_STAT_ADD(&lc->stats, tx_too_big, 1);
		rte_pktmbuf_free(m);
		return -EMSGSIZE;
	}
	h = (struct rte_ipv4_hdr *)rte_pktmbuf_prepend(m, sizeof(*h));
	if (h == NULL) {
		NET_STAT_ADD(&lc->stats, tx_no_mbuf, 1);
		rte_pktmbuf_free(m);
		return -ENOMEM;
	}
	h->version_ihl = RTE_IPV4_VHL_DEF;
	h->type_of_service = 0;
	h->total_length = rte_cpu_to_be_16(rte_pktmbuf_pkt_len(m));
	h->packet_id = rte_cpu_to_be_16(lc->next_id++);
	h->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	h->time_to_live = ip->conf.ttl;
	h->next_proto_id = proto;
	h->src_addr = src != 0 ? src : from;
	h->dst_addr = dst;
	h->hdr_checksum = 0;
	/* The port offloads the checksum, or computes it when the PMD cannot. */
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = sizeof(*h);
	m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	NET_STAT_ADD(&lc->stats, tx, 1);
	net_neigh_output(ip->nb, lcore, m, nexthop);
	return 0;
}

static void
icmp_fill_cksum(struct rte_icmp_hdr *ic, size_t len)
{
	ic->icmp_cksum = 0;
	ic->icmp_cksum = (uint16_t)~rte_raw_cksum(ic, len);
}

int
net_ip_ping(struct net_ip *ip, unsigned int lcore, uint32_t dst, uint16_t id, uint16_t seq,
	    uint16_t len)
{
	struct rte_mbuf *m = net_port_alloc(ip->port);
	struct rte_icmp_hdr *ic;
	uint16_t i;

	ic = m != NULL ? (struct rte_icmp_hdr *)rte_pktmbuf_append(m, ICMP_HDR_LEN + len) : NULL;
	if (ic == NULL) {
		NET_STAT_ADD(&ip->lc[lcore].stats, tx_no_mbuf, 1);
		rte_pktmbuf_free(m);
		return -ENOMEM;
	}
	ic->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
	ic->icmp_code = 0;
	ic->icmp_ident = rte_cpu_to_be_16(id);
	ic->icmp_seq_nb = rte_cpu_to_be_16(seq);
	for (i = 0; i < len; i++) {
		((uint8_t *)(ic + 1))[i] = (uint8_t)(seq + i);
	}
	icmp_fill_cksum(ic, ICMP_HDR_LEN + len);
	return net_ip_output(ip, lcore, m, 0, dst, IPPROTO_ICMP);
}

/* ---- ICMP input ---- */

static void
icmp_echo_reply(struct net_ip *ip, unsigned int lcore, struct rte_mbuf *m,
		const struct rte_ipv4_hdr *h)
{
	struct rte_icmp_hdr *ic = rte_pktmbuf_mtod(m, struct rte_icmp_hdr *);
	uint32_t to = h->src_addr, from = h->dst_addr;

	/* The request's own mbuf carries the reply: same id, sequence and data. */
	ic->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp_fill_cksum(ic, rte_pktmbuf_pkt_len(m));
	/* What the PMD said on receive means nothing on the way out; how the buffer is held does. */
	m->ol_flags &= RTE_MBUF_F_EXTERNAL | RTE_MBUF_F_INDIRECT;
	if (net_ip_output(ip, lcore, m, from, to, IPPROTO_ICMP) == 0) {
		NET_STAT_ADD(&ip->lc[lcore].stats, icmp_echo_tx, 1);
	}
}

static void
icmp_error_input(struct net_ip *ip, unsigned int lcore, struct net_icmp_view *v, uint32_t from)
{
	struct net_ip_stats *s = &ip->lc[lcore].stats;

	NET_STAT_ADD(s, icmp_err_rx, 1);
	/* Only about what we sent, to the layer that sent it. */
	if (!net_neigh_is_local(ip->nb, v->err.src) || ip->proto[v->err.proto].err == NULL) {
		return;
	}
	v->err.from = from;
	NET_STAT_ADD(s, icmp_err_delivered, 1);
	ip->proto[v->err.proto].err(ip->proto[v->err.proto].arg, ip, lcore, &v->err);
}

static void
icmp_input(struct net_ip *ip, unsigned int lcore, struct rte_mbuf *m, const struct rte_ipv4_hdr *h)
{
	struct net_ip_stats *s = &ip->lc[lcore].stats;
	struct net_icmp_view v;

	NET_STAT_ADD(s, icmp_rx, 1);
	if (m->nb_segs > 1 && rte_pktmbuf_linearize(m) != 0) {
		NET_STAT_ADD(s, icmp_bad, 1);
		rte_pktmbuf_free(m);
		return;
	}
	switch (net_icmp_parse(rte_pktmbuf_mtod(m, const void *), rte_pktmbuf_pkt_len(m), &v)) {
	case NET_ICMP_OK:
		break;
	default:
		NET_STAT_ADD(s, icmp_bad, 1);
		rte_pktmbuf_free(m);
		return;
	}
	switch (v.type) {
	case RTE_IP_ICMP_ECHO_REQUEST:
		NET_STAT_ADD(s, icmp_echo_rx, 1);
		icmp_echo_reply(ip, lcore, m, h);
		return;
	case RTE_IP_ICMP_ECHO_REPLY:
		NET_STAT_ADD(s, icmp_echo_reply_rx, 1);
		if (ip->echo_fn != NULL) {
			ip->echo_fn(ip->echo_arg, lcore, h->src_addr, v.id, v.seq, v.data,
				    v.data_len);
		}
		break;
	case ICMP_DEST_UNREACH:
	case ICMP_TIME_EXCEEDED:
	case ICMP_PARAM_PROBLEM:
		icmp_error_input(ip, lcore, &v, h->src_addr);
		break;
	default:
		NET_STAT_ADD(s, icmp_other, 1);
		break;
	}
	rte_pktmbuf_free(m);
}

/* ---- IPv4 input ---- */

static void
ip_count_verdict(struct net_ip_stats *s, enum net_ipv4_verdict v)
{
	switch (v) {
	case NET_IPV4_SHORT:
		NET_STAT_ADD(s, rx_short, 1);
		break;
	case NET_IPV4_BAD_VERSION:
		NET_STAT_ADD(s, rx_bad_version, 1);
		break;
	case NET_IPV4_BAD_HLEN:
		NET_STAT_ADD(s, rx_bad_hlen, 1);
		break;
	case NET_IPV4_BAD_LEN:
		NET_STAT_ADD(s, rx_bad_len, 1);
		break;
	case NET_IPV4_BAD_CKSUM:
		NET_STAT_ADD(s, rx_bad_cksum, 1);
		break;
	case NET_IPV4_BAD_SRC:
		NET_STAT_ADD(s, rx_bad_src, 1);
		break;
	case NET_IPV4_FRAGMENT:
		NET_STAT_ADD(s, rx_frag, 1);
		break;
	default:
		break;
	}
}

/* The port's IPv4 handler. */
static void
ip_input(void *arg, struct net_port *port, unsigned int lcore, struct rte_mbuf *m)
{
	struct net_ip *ip = arg;
	struct net_ip_stats *s = &ip->lc[lcore].stats;
	struct rte_ipv4_hdr hdr;
	const struct rte_ipv4_hdr *h;
	enum net_ipv4_verdict v;
	uint16_t hlen = 0, tlen = 0;
	uint64_t ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;

	RTE_SET_USED(port);
	NET_STAT_ADD(s, rx, 1);
	rte_pktmbuf_adj(m, m->l2_len);
	h = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	if (ck == RTE_MBUF_F_RX_IP_CKSUM_BAD) {
		v = NET_IPV4_BAD_CKSUM;
	} else if (rte_pktmbuf_data_len(m) < sizeof(*h)) {
		v = NET_IPV4_SHORT;
	} else {
		/* Header fields from the first segment; lengths against the whole packet. */
		v = net_ipv4_check(h, RTE_MIN(rte_pktmbuf_pkt_len(m), (uint32_t)UINT16_MAX),
				   ck == RTE_MBUF_F_RX_IP_CKSUM_GOOD, &hlen, &tlen);
		if (v == NET_IPV4_OK && hlen > rte_pktmbuf_data_len(m)) {
			v = NET_IPV4_BAD_HLEN;
		}
	}
	if (v != NET_IPV4_OK) {
		ip_count_verdict(s, v);
		rte_pktmbuf_free(m);
		return;
	}
	if (!net_neigh_is_local(ip->nb, h->dst_addr)) {
		NET_STAT_ADD(s, rx_not_ours, 1);
		rte_pktmbuf_free(m);
		return;
	}
	/* Ethernet padding goes; the upper layer sees its payload only. */
	rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - tlen);
	hdr = *h;
	rte_pktmbuf_adj(m, hlen);
	if (hdr.next_proto_id == IPPROTO_ICMP) {
		NET_STAT_ADD(s, rx_delivered, 1);
		icmp_input(ip, lcore, m, &hdr);
		return;
	}
	if (ip->proto[hdr.next_proto_id].rx == NULL) {
		NET_STAT_ADD(s, rx_no_proto, 1);
		rte_pktmbuf_free(m);
		return;
	}
	NET_STAT_ADD(s, rx_delivered, 1);
	ip->proto[hdr.next_proto_id].rx(ip->proto[hdr.next_proto_id].arg, ip, lcore, m, &hdr);
}

/* ---- IPv6 input ---- */

static void
ip6_count_verdict(struct net_ip_stats *s, enum net_ipv6_verdict v)
{
	switch (v) {
	case NET_IPV6_SHORT:
		NET_STAT_ADD(s, rx6_short, 1);
		break;
	case NET_IPV6_BAD_VERSION:
		NET_STAT_ADD(s, rx6_bad_version, 1);
		break;
	case NET_IPV6_BAD_LEN:
		NET_STAT_ADD(s, rx6_bad_len, 1);
		break;
	case NET_IPV6_BAD_SRC:
		NET_STAT_ADD(s, rx6_bad_src, 1);
		break;
	case NET_IPV6_FRAGMENT:
		NET_STAT_ADD(s, rx6_frag, 1);
		break;
	case NET_IPV6_EXT_HDR:
		NET_STAT_ADD(s, rx6_ext_hdr, 1);
		break;
	default:
		break;
	}
}

static enum net_ip6_addr_state
addr6_state(const struct net_ip *ip, unsigned int i)
{
	return (enum net_ip6_addr_state)__atomic_load_n(&ip->addr6_state[i], __ATOMIC_RELAXED);
}

/* Move slot @p i from @p from to @p to unless someone else moved it first. */
static bool
addr6_move(struct net_ip *ip, unsigned int i, enum net_ip6_addr_state from,
	   enum net_ip6_addr_state to)
{
	uint8_t expect = (uint8_t)from;

	return __atomic_compare_exchange_n(&ip->addr6_state[i], &expect, (uint8_t)to, false,
					   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

bool
net_ip_is_local6(const struct net_ip *ip, const uint8_t addr[16])
{
	unsigned int i;

	for (i = 0; i < ip->n_addr6; i++) {
		if (memcmp(ip->addr6[i], addr, 16) == 0) {
			return addr6_state(ip, i) == NET_IP6_PREFERRED;
		}
	}
	return false;
}

/* The slot of @p addr in the table, duplicates included, or -1. */
static int
ip6_addr_slot(const struct net_ip *ip, const uint8_t addr[16])
{
	unsigned int i;

	for (i = 0; i < ip->n_addr6; i++) {
		if (memcmp(ip->addr6[i], addr, 16) == 0) {
			return (int)i;
		}
	}
	return -1;
}

/* Ours: a unicast address, all-nodes, or the solicited-node group of one of ours. */
static bool
ip6_dst_ours(const struct net_ip *ip, const uint8_t dst[16])
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	uint8_t group[16];
	unsigned int i;

	if (!net_ipv6_is_multicast(dst)) {
		return net_ip_is_local6(ip, dst);
	}
	if (memcmp(dst, all_nodes, 16) == 0) {
		return true;
	}
	for (i = 0; i < ip->n_addr6; i++) {
		net_ipv6_solicited_node(ip->addr6[i], group);
		if (memcmp(dst, group, 16) == 0) {
			return true;
		}
	}
	return false;
}

/*
 * Send the ICMPv6 message that fills @p m from @p src to @p dst at @p dst_mac
 * with hop limit 255: neighbour discovery's own messages name their
 * link-layer destination and never wait on a resolution.
 */
static void
ip6_send_nd(struct net_ip *ip, unsigned int lcore, struct rte_mbuf *m, const uint8_t src[16],
	    const uint8_t dst[16], const struct rte_ether_addr *dst_mac)
{
	uint16_t len = (uint16_t)rte_pktmbuf_pkt_len(m);
	uint8_t *ic = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t ck = net_ipv6_l4_cksum(src, dst, IPPROTO_ICMPV6, ic, len);
	struct rte_ipv6_hdr *h;
	struct rte_ether_hdr *eh;

	memcpy(ic + 2, &ck, sizeof(ck));
	h = (struct rte_ipv6_hdr *)rte_pktmbuf_prepend(m, sizeof(*h));
	eh = h != NULL ? (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, sizeof(*eh)) : NULL;
	if (eh == NULL) {
		NET_STAT_ADD(&ip->lc[lcore].stats, tx_no_mbuf, 1);
		rte_pktmbuf_free(m);
		return;
	}
	h->vtc_flow = rte_cpu_to_be_32(6u << 28);
	h->payload_len = rte_cpu_to_be_16(len);
	h->proto = IPPROTO_ICMPV6;
	h->hop_limits = 255;
	memcpy(h->src_addr, src, 16);
	memcpy(h->dst_addr, dst, 16);
	eh->src_addr = net_port_info(ip->port)->mac;
	eh->dst_addr = *dst_mac;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	net_port_tx(ip->port, lcore, m);
}

/* Answer a solicitation for one of our addresses (RFC 4861 7.2.4). */
static void
nd_answer_ns(struct net_ip *ip, unsigned int lcore, const struct rte_ipv6_hdr *h,
	     const struct net_nd_view *v)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	static const uint8_t unspecified[16];
	struct net_ip_stats *s = &ip->lc[lcore].stats;
	bool dad = memcmp(h->src_addr, unspecified, 16) == 0;
	struct rte_ether_addr to;
	int i;
	struct rte_mbuf *m;
	uint8_t *na;

	i = ip6_addr_slot(ip, v->target);
	/* Another node probing for an address we are still probing for: neither gets it. */
	if (i >= 0 && dad &&
	    addr6_move(ip, (unsigned int)i, NET_IP6_TENTATIVE, NET_IP6_DUPLICATE)) {
		NET_STAT_ADD(s, nd_dup_addr, 1);
		return;
	}
	if (!net_ip_is_local6(ip, v->target)) {
		NET_STAT_ADD(s, nd_ns_not_ours, 1);
		return;
	}
	/* Without the solicitor's MAC the answer would need a resolution of its own. */
	if (!dad && !v->has_lla) {
		NET_STAT_ADD(s, nd_ns_no_lla, 1);
		return;
	}
	m = net_port_alloc(ip->port);
	na = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, NET_ND_NA_LEN) : NULL;
	if (na == NULL) {
		NET_STAT_ADD(s, tx_no_mbuf, 1);
		rte_pktmbuf_free(m);
		return;
	}
	/* A node probing for the address (DAD) hears the answer on all-nodes, unsolicited. */
	net_nd_na_fill(na, v->target, &net_port_info(ip->port)->mac,
		       dad ? NET_ND_NA_OVERRIDE : NET_ND_NA_SOLICITED | NET_ND_NA_OVERRIDE);
	if (dad) {
		net_ipv6_mcast_mac(all_nodes, &to);
	} else {
		to = v->lla;
	}
	NET_STAT_ADD(s, nd_na_tx, 1);
	ip6_send_nd(ip, lcore, m, v->target, dad ? all_nodes : h->src_addr, &to);
}

/*
 * An advertisement for one of our addresses that is not ours (ours always
 * carry our MAC): another node holds it, so we stop using it, as RFC 4862
 * 5.4.4 has a node do when DAD finds a duplicate.
 */
static void
nd_check_conflict(struct net_ip *ip, unsigned int lcore, const struct net_nd_view *v)
{
	int i = ip6_addr_slot(ip, v->target);

	if (i < 0 ||
	    (v->has_lla && rte_is_same_ether_addr(&v->lla, &net_port_info(ip->port)->mac))) {
		return;
	}
	if (addr6_move(ip, (unsigned int)i, NET_IP6_TENTATIVE, NET_IP6_DUPLICATE) ||
	    addr6_move(ip, (unsigned int)i, NET_IP6_PREFERRED, NET_IP6_DUPLICATE)) {
		NET_STAT_ADD(&ip->lc[lcore].stats, nd_dup_addr, 1);
	}
}

/* On data lcore 0: an NS (a DAD probe) or NA (an announcement) for @p target, to group @p dst. */
static int
nd_send_lcore0(struct net_ip *ip, uint8_t type, const uint8_t target[16], const uint8_t src[16],
	       const uint8_t dst[16])
{
	struct rte_mbuf *m = net_port_alloc(ip->port);
	struct rte_ether_addr to;
	uint8_t *b;

	b = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, NET_ND_NA_LEN) : NULL;
	if (b == NULL) {
		NET_STAT_ADD(&ip->lc[0].stats, tx_no_mbuf, 1);
		rte_pktmbuf_free(m);
		return -ENOMEM;
	}
	net_nd_na_fill(b, target, &net_port_info(ip->port)->mac, NET_ND_NA_OVERRIDE);
	if (type == NET_ND_NS) {
		/* A DAD probe: from the unspecified address, so no source link-layer option. */
		b[0] = NET_ND_NS;
		b[4] = 0;
		rte_pktmbuf_trim(m, NET_ND_NA_LEN - 24);
		NET_STAT_ADD(&ip->lc[0].stats, nd_dad_ns_tx, 1);
	} else {
		NET_STAT_ADD(&ip->lc[0].stats, nd_na_tx, 1);
	}
	net_ipv6_mcast_mac(dst, &to);
	ip6_send_nd(ip, 0, m, src, dst, &to);
	return 0;
}

static const uint8_t g_all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
static const uint8_t g_unspecified[16];

/* DAD waited long enough: what nobody claimed is ours, and announced (RFC 4862 5.4.5). */
static void
nd_dad_timer(void *arg)
{
	struct net_ip *ip = arg;
	unsigned int i;

	for (i = 0; i < ip->n_addr6; i++) {
		if (addr6_move(ip, i, NET_IP6_TENTATIVE, NET_IP6_PREFERRED)) {
			(void)nd_send_lcore0(ip, NET_ND_NA, ip->addr6[i], ip->addr6[i],
					     g_all_nodes);
		}
	}
}

/*
 * Probe every tentative address (an NS from the unspecified address to its
 * solicited-node group, RFC 4862 5.4.2) and announce every usable one (an
 * unsolicited, override NA to all nodes, RFC 4861 7.2.6).
 */
static int
nd_announce_on_lcore(void *arg)
{
	struct net_ip *ip = arg;
	bool probing = false;
	uint8_t group[16];
	unsigned int i;
	int rc = 0;

	for (i = 0; i < ip->n_addr6 && rc == 0; i++) {
		switch (addr6_state(ip, i)) {
		case NET_IP6_TENTATIVE:
			net_ipv6_solicited_node(ip->addr6[i], group);
			rc = nd_send_lcore0(ip, NET_ND_NS, ip->addr6[i], g_unspecified, group);
			probing = true;
			break;
		case NET_IP6_PREFERRED:
			rc = nd_send_lcore0(ip, NET_ND_NA, ip->addr6[i], ip->addr6[i], g_all_nodes);
			break;
		default:
			break;
		}
	}
	if (probing) {
		ip->dad_armed = true;
		rt_timer_arm(&ip->dad_timer, (uint64_t)ip->conf.dad_ms * 1000);
	}
	return rc;
}

int
net_ip_announce6(struct net_ip *ip)
{
	return rt_lcore_call(rt_data_lcore(net_port_runtime(ip->port), 0), nd_announce_on_lcore,
			     ip);
}

static void
nd_input(struct net_ip *ip, unsigned int lcore, const struct rte_ipv6_hdr *h, const void *p,
	 size_t len)
{
	struct net_ip_stats *s = &ip->lc[lcore].stats;
	struct net_nd_view v;

	if (net_nd_parse(h, p, len, &v) != NET_ND_OK) {
		NET_STAT_ADD(s, nd_bad, 1);
		return;
	}
	if (v.type == NET_ND_NA) {
		/* Otherwise counted only: the neighbour cache that takes them is the next step. */
		NET_STAT_ADD(s, nd_na_rx, 1);
		nd_check_conflict(ip, lcore, &v);
		return;
	}
	NET_STAT_ADD(s, nd_ns_rx, 1);
	nd_answer_ns(ip, lcore, h, &v);
}

static void
icmp6_input(struct net_ip *ip, unsigned int lcore, struct rte_mbuf *m, const struct rte_ipv6_hdr *h)
{
	struct net_ip_stats *s = &ip->lc[lcore].stats;
	struct net_icmp6_view v;

	NET_STAT_ADD(s, icmp6_rx, 1);
	if ((m->nb_segs > 1 && rte_pktmbuf_linearize(m) != 0) ||
	    net_icmp6_parse(h, rte_pktmbuf_mtod(m, const void *), rte_pktmbuf_pkt_len(m), &v) !=
		    NET_ICMP6_OK) {
		NET_STAT_ADD(s, icmp6_bad, 1);
		rte_pktmbuf_free(m);
		return;
	}
	switch (v.type) {
	case NET_ICMP6_ECHO_REQUEST:
		/* Answered once IPv6 output (and neighbour discovery) is in. */
		NET_STAT_ADD(s, icmp6_echo_rx, 1);
		break;
	case NET_ICMP6_ECHO_REPLY:
		NET_STAT_ADD(s, icmp6_echo_reply_rx, 1);
		break;
	case NET_ICMP6_DEST_UNREACH:
	case NET_ICMP6_PACKET_TOO_BIG:
	case NET_ICMP6_TIME_EXCEEDED:
	case NET_ICMP6_PARAM_PROBLEM:
		NET_STAT_ADD(s, icmp6_err_rx, 1);
		break;
	case NET_ND_NS:
	case NET_ND_NA:
		nd_input(ip, lcore, h, rte_pktmbuf_mtod(m, const void *), rte_pktmbuf_pkt_len(m));
		break;
	default:
		NET_STAT_ADD(s, icmp6_other, 1);
		break;
	}
	rte_pktmbuf_free(m);
}

/* The port's IPv6 handler. */
static void
ip6_input(void *arg, struct net_port *port, unsigned int lcore, struct rte_mbuf *m)
{
	struct net_ip *ip = arg;
	struct net_ip_stats *s = &ip->lc[lcore].stats;
	struct rte_ipv6_hdr hdr;
	enum net_ipv6_verdict v;
	uint16_t plen = 0;

	RTE_SET_USED(port);
	NET_STAT_ADD(s, rx_ipv6, 1);
	rte_pktmbuf_adj(m, m->l2_len);
	if (rte_pktmbuf_data_len(m) < sizeof(hdr)) {
		v = NET_IPV6_SHORT; /* the header must sit in the first segment */
	} else {
		v = net_ipv6_check(rte_pktmbuf_mtod(m, const void *),
				   RTE_MIN(rte_pktmbuf_pkt_len(m),
					   (uint32_t)UINT16_MAX + sizeof(hdr)),
				   &plen);
	}
	if (v != NET_IPV6_OK) {
		ip6_count_verdict(s, v);
		rte_pktmbuf_free(m);
		return;
	}
	hdr = *rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	if (!ip6_dst_ours(ip, hdr.dst_addr)) {
		NET_STAT_ADD(s, rx6_not_ours, 1);
		rte_pktmbuf_free(m);
		return;
	}
	/* Ethernet padding goes; the upper layer sees its payload only. */
	rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - sizeof(hdr) - plen);
	rte_pktmbuf_adj(m, sizeof(hdr));
	if (hdr.proto == IPPROTO_ICMPV6) {
		NET_STAT_ADD(s, rx_delivered, 1);
		icmp6_input(ip, lcore, m, &hdr);
		return;
	}
	/* No upper layer takes IPv6 yet (TCP over IPv6 is the next step). */
	NET_STAT_ADD(s, rx6_no_proto, 1);
	rte_pktmbuf_free(m);
}

/* ---- set-up ---- */

/* Let in what is sent to all nodes and to @p addr's solicited-node group. */
static void
ip6_join_groups(struct net_ip *ip, const uint8_t addr[16])
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	struct rte_ether_addr mac;
	uint8_t group[16];

	/* -EEXIST is fine: addresses share groups (same low 24 bits), all-nodes is everyone's. */
	net_ipv6_mcast_mac(all_nodes, &mac);
	(void)net_port_mcast_join(ip->port, &mac);
	net_ipv6_solicited_node(addr, group);
	net_ipv6_mcast_mac(group, &mac);
	(void)net_port_mcast_join(ip->port, &mac);
}

int
net_ip_create(struct net_neigh *nb, const struct net_ip_conf *conf, struct net_ip **out)
{
	struct net_ip *ip;

	*out = NULL;
	if (nb == NULL || (conf != NULL && conf->conf_size < sizeof(*conf))) {
		return -EINVAL;
	}
	ip = calloc(1, sizeof(*ip));
	if (ip == NULL) {
		return -ENOMEM;
	}
	if (conf != NULL) {
		ip->conf = *conf;
	}
	if (ip->conf.ttl == 0) {
		ip->conf.ttl = 64; /* Linux's default, RFC 1700 */
	}
	if (ip->conf.dad_ms == 0) {
		ip->conf.dad_ms = 1000; /* RFC 4861 RetransTimer */
	}
	rt_timer_init(&ip->dad_timer, nd_dad_timer, ip);
	ip->nb = nb;
	ip->port = net_neigh_port(nb);
	ip->rt = net_port_runtime(ip->port);
	net_ipv6_link_local(&net_port_info(ip->port)->mac, ip->addr6[0]);
	ip->addr6_state[0] = ip->conf.no_dad ? NET_IP6_PREFERRED : NET_IP6_TENTATIVE;
	ip->n_addr6 = 1;
	ip6_join_groups(ip, ip->addr6[0]);
	net_port_set_handler(ip->port, NET_CLASS_IPV4, ip_input, ip);
	net_port_set_handler(ip->port, NET_CLASS_IPV6, ip6_input, ip);
	*out = ip;
	return 0;
}

static int
dad_cancel_on_lcore(void *arg)
{
	rt_timer_cancel(&((struct net_ip *)arg)->dad_timer);
	return 0;
}

void
net_ip_destroy(struct net_ip *ip)
{
	/* The DAD timer lives on data lcore 0's list: off it before the memory goes. */
	if (ip != NULL && ip->dad_armed) {
		(void)rt_lcore_call(rt_data_lcore(ip->rt, 0), dad_cancel_on_lcore, ip);
	}
	free(ip);
}

int
net_ip_register(struct net_ip *ip, uint8_t proto, net_ip_rx_fn rx, net_ip_err_fn err, void *arg)
{
	if (proto == IPPROTO_ICMP) {
		return -EINVAL;
	}
	if (ip->proto[proto].rx != NULL || ip->proto[proto].err != NULL) {
		return -EEXIST;
	}
	ip->proto[proto].rx = rx;
	ip->proto[proto].err = err;
	ip->proto[proto].arg = arg;
	return 0;
}

int
net_ip_addr6_add(struct net_ip *ip, const uint8_t addr[16])
{
	static const uint8_t unspecified[16];

	if (net_ipv6_is_multicast(addr) || memcmp(addr, unspecified, 16) == 0) {
		return -EINVAL;
	}
	if (ip6_addr_slot(ip, addr) >= 0) {
		return -EEXIST;
	}
	if (ip->n_addr6 == NET_IP6_MAX_ADDRS) {
		return -ENOSPC;
	}
	ip->addr6_state[ip->n_addr6] = ip->conf.no_dad ? NET_IP6_PREFERRED : NET_IP6_TENTATIVE;
	memcpy(ip->addr6[ip->n_addr6++], addr, 16);
	ip6_join_groups(ip, addr);
	return 0;
}

void
net_ip_set_echo_fn(struct net_ip *ip, net_ip_echo_fn fn, void *arg)
{
	ip->echo_fn = fn;
	ip->echo_arg = arg;
}

void
net_ip_lcore_stats(const struct net_ip *ip, unsigned int lcore, struct net_ip_stats *out)
{
	const uint64_t *src = (const uint64_t *)&ip->lc[lcore].stats;
	uint64_t *dst = (uint64_t *)out;
	size_t i;

	for (i = 0; i < sizeof(*out) / sizeof(uint64_t); i++) {
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	}
}

void
net_ip_stats(const struct net_ip *ip, struct net_ip_stats *out)
{
	struct net_ip_stats one;
	uint64_t *sum = (uint64_t *)out;
	const uint64_t *add = (const uint64_t *)&one;
	unsigned int l;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (l = 0; l < net_port_info(ip->port)->n_lcores; l++) {
		net_ip_lcore_stats(ip, l, &one);
		for (i = 0; i < sizeof(*out) / sizeof(uint64_t); i++) {
			sum[i] += add[i];
		}
	}
}

enum net_ip6_addr_state
net_ip_addr6_state(const struct net_ip *ip, const uint8_t addr[16])
{
	int i = ip6_addr_slot(ip, addr);

	return i < 0 ? NET_IP6_NONE : addr6_state(ip, (unsigned int)i);
}

static int
dad_pending_on_lcore(void *arg)
{
	return rt_timer_pending(&((struct net_ip *)arg)->dad_timer) ? 1 : 0;
}

bool
net_ip_dad_pending(struct net_ip *ip)
{
	return rt_lcore_call(rt_data_lcore(net_port_runtime(ip->port), 0), dad_pending_on_lcore,
			     ip) == 1;
}
