/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * IPv4 for the port's own addresses, no forwarding: input checks (version,
 * header and total lengths, header checksum unless the PMD checked it),
 * fragments refused and counted, delivery by protocol to the upper layers
 * registered in a dispatch table; output with DF set, a TTL, the header
 * checksum offloaded or done in software, and the next hop (on-link, or the
 * gateway) resolved by the ARP cache. ICMP: echo requests answered, echo
 * replies reported, and destination-unreachable (fragmentation-needed with
 * its MTU), time-exceeded and parameter-problem messages about packets we
 * sent handed to the error callback of the protocol that sent them.
 *
 * IPv6 is not in this slice: IPv6 frames are counted and dropped ("not
 * supported").
 *
 * Everything runs on the data lcore that owns the frame; counters are per
 * data lcore.
 */
#ifndef NET_IP_H
#define NET_IP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "net_neigh.h"
#include "net_port.h"

struct net_ip_conf {
	size_t conf_size; /**< sizeof(struct net_ip_conf) */
	uint32_t gateway; /**< default gateway (network order); 0: on-link only */
	uint8_t ttl;      /**< of what we send; 0 = 64 */
};

/** Counters of one data lcore. */
struct net_ip_stats {
	uint64_t rx;                 /**< IPv4 packets received */
	uint64_t rx_delivered;       /**< handed to ICMP or an upper layer */
	uint64_t rx_short;           /**< shorter than its header or total length */
	uint64_t rx_bad_version;     /**< version not 4 */
	uint64_t rx_bad_hlen;        /**< IHL below 5 or past the data */
	uint64_t rx_bad_len;         /**< total length below the header or past the frame */
	uint64_t rx_bad_cksum;       /**< header checksum wrong */
	uint64_t rx_bad_src;         /**< source 0, broadcast or multicast */
	uint64_t rx_frag;            /**< fragments (refused) */
	uint64_t rx_not_ours;        /**< destination not one of our addresses */
	uint64_t rx_no_proto;        /**< no upper layer for its protocol */
	uint64_t rx_ipv6;            /**< IPv6 frames (not supported, dropped) */
	uint64_t icmp_rx;            /**< ICMP messages received */
	uint64_t icmp_bad;           /**< short or bad checksum */
	uint64_t icmp_echo_rx;       /**< echo requests */
	uint64_t icmp_echo_tx;       /**< echo replies sent */
	uint64_t icmp_echo_reply_rx; /**< echo replies received */
	uint64_t icmp_err_rx;        /**< unreachable, time exceeded, parameter problem */
	uint64_t icmp_err_delivered; /**< of those, handed to an upper layer */
	uint64_t icmp_other;         /**< other types (dropped) */
	uint64_t tx;                 /**< packets sent on (to the ARP cache) */
	uint64_t tx_no_route;        /**< no address, or off-link without a gateway */
	uint64_t tx_too_big;         /**< longer than the MTU (DF: never fragmented) */
	uint64_t tx_no_mbuf;         /**< no mbuf for a reply or a request */
};

/** An ICMP error about a packet we sent. */
struct net_icmp_err {
	uint32_t from; /**< who sent the ICMP message (network order) */
	uint8_t type;  /**< 3 (unreachable), 11 or 12 */
	uint8_t code;
	uint16_t mtu;      /**< type 3 code 4: the next hop's MTU (0 when not given) */
	uint32_t src, dst; /**< the quoted packet's addresses (network order) */
	uint8_t proto;     /**< the quoted packet's protocol */
	const uint8_t *l4; /**< its first bytes past the IP header (>= 8) */
	size_t l4_len;
};

struct net_ip;

/** Upper-layer input: @p m's data starts at the L4 header, its length is the payload's. */
typedef void (*net_ip_rx_fn)(void *arg, struct net_ip *ip, unsigned int lcore, struct rte_mbuf *m,
			     const struct rte_ipv4_hdr *h);
/** Upper-layer ICMP error input (on the lcore that received it). */
typedef void (*net_ip_err_fn)(void *arg, struct net_ip *ip, unsigned int lcore,
			      const struct net_icmp_err *e);
/** Echo reply received. */
typedef void (*net_ip_echo_fn)(void *arg, unsigned int lcore, uint32_t from, uint16_t id,
			       uint16_t seq, const void *data, size_t len);

/** What the IPv4 header check found (the parser shared with the fuzzer). */
enum net_ipv4_verdict {
	NET_IPV4_OK = 0,
	NET_IPV4_SHORT,
	NET_IPV4_BAD_VERSION,
	NET_IPV4_BAD_HLEN,
	NET_IPV4_BAD_LEN,
	NET_IPV4_BAD_CKSUM,
	NET_IPV4_BAD_SRC,
	NET_IPV4_FRAGMENT,
};

/**
 * Check the IPv4 packet of @p len bytes at @p p (@p cksum_checked: the PMD
 * has verified the header checksum). On NET_IPV4_OK, *hlen and *tlen are
 * its header and total lengths.
 */
enum net_ipv4_verdict net_ipv4_check(const void *p, size_t len, bool cksum_checked, uint16_t *hlen,
				     uint16_t *tlen);

/** What an ICMP message says (the parser shared with the fuzzer). */
struct net_icmp_view {
	uint8_t type, code;
	uint16_t id, seq;    /**< echo */
	const uint8_t *data; /**< echo payload */
	size_t data_len;
	struct net_icmp_err err; /**< error types: the quoted packet (from unset) */
};

enum net_icmp_verdict {
	NET_ICMP_OK = 0,
	NET_ICMP_SHORT, /**< under 8 bytes, or an error quoting under 28 */
	NET_ICMP_BAD_CKSUM,
	NET_ICMP_BAD_QUOTE, /**< an error whose quoted header is not IPv4 */
};

/** Parse the ICMP message of @p len bytes at @p p. */
enum net_icmp_verdict net_icmp_parse(const void *p, size_t len, struct net_icmp_view *v);

/**
 * IPv4 over @p nb's port and addresses: takes the port's IPv4 and IPv6
 * handlers. Call off the lcores, before the port starts.
 * @return 0, -EINVAL, -ENOMEM
 */
int net_ip_create(struct net_neigh *nb, const struct net_ip_conf *conf, struct net_ip **out);

/** Free it (after the port closed). NULL is a no-op. */
void net_ip_destroy(struct net_ip *ip);

/**
 * Register the upper layer of protocol @p proto (before start): its input
 * and its ICMP errors (either may be NULL). ICMP itself is built in.
 * @return 0, -EEXIST, -EINVAL
 */
int net_ip_register(struct net_ip *ip, uint8_t proto, net_ip_rx_fn rx, net_ip_err_fn err,
		    void *arg);

/** Where echo replies go (before start). */
void net_ip_set_echo_fn(struct net_ip *ip, net_ip_echo_fn fn, void *arg);

/**
 * Send @p m (data at the L4 header, IPv4 header and Ethernet header room in
 * front) to @p dst from @p src (0: the address facing @p dst), on data lcore
 * @p lcore (the caller). @p m always changes hands.
 * @return 0, -EHOSTUNREACH (no route), -EMSGSIZE (over the MTU)
 */
int net_ip_output(struct net_ip *ip, unsigned int lcore, struct rte_mbuf *m, uint32_t src,
		  uint32_t dst, uint8_t proto);

/**
 * Send an echo request with @p len bytes of payload to @p dst, on data
 * lcore @p lcore (the caller). @return as net_ip_output(), or -ENOMEM.
 */
int net_ip_ping(struct net_ip *ip, unsigned int lcore, uint32_t dst, uint16_t id, uint16_t seq,
		uint16_t len);

/** Copy of @p lcore's counters. */
void net_ip_lcore_stats(const struct net_ip *ip, unsigned int lcore, struct net_ip_stats *out);

/** The counters of every lcore added up. */
void net_ip_stats(const struct net_ip *ip, struct net_ip_stats *out);

#endif /* NET_IP_H */
