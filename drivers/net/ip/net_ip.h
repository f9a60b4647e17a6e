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
 * IPv6 (net_ip6.c): the header checked (version, payload length, source
 * not multicast), fragments and other extension headers refused and
 * counted, delivery only to our addresses (the link-local one made from
 * the port's MAC, configured ones, all-nodes and their solicited-node
 * groups); ICMPv6 checked with its pseudo-header checksum, echo requests
 * and errors (packet too big with its MTU) parsed and counted. Neighbour
 * solicitations (RFC 4861 7.1.1) for our addresses are answered from the
 * data lcore straight to the solicitor's link-layer address option (to
 * all-nodes for a DAD probe). Addresses, the link-local one included, go
 * through DAD (RFC 4862 5.4: one probe, then conf.dad_ms) before use; an
 * advertisement for one of them from another node, or another node's probe
 * for one still tentative, takes it out of use. Not
 * yet in this slice: the neighbour cache, hence no IPv6 output, echo
 * replies or ICMPv6 errors handed to an upper layer.
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
	bool no_dad;      /**< IPv6 addresses usable at once, without DAD */
	uint32_t dad_ms;  /**< how long DAD waits for an answer to its probe; 0 = 1000 */
};

/** Where an IPv6 address of the port stands (RFC 4862 5.4). */
enum net_ip6_addr_state {
	NET_IP6_TENTATIVE = 0, /**< DAD not done: neither accepted nor answered for */
	NET_IP6_PREFERRED,     /**< ours: accepted, answered for, announced */
	NET_IP6_DUPLICATE,     /**< another node holds it: never used */
	NET_IP6_NONE,          /**< not one of the port's */
};

/** Counters of one data lcore. */
struct net_ip_stats {
	uint64_t rx;                  /**< IPv4 packets received */
	uint64_t rx_delivered;        /**< handed to ICMP or an upper layer */
	uint64_t rx_short;            /**< shorter than its header or total length */
	uint64_t rx_bad_version;      /**< version not 4 */
	uint64_t rx_bad_hlen;         /**< IHL below 5 or past the data */
	uint64_t rx_bad_len;          /**< total length below the header or past the frame */
	uint64_t rx_bad_cksum;        /**< header checksum wrong */
	uint64_t rx_bad_src;          /**< source 0, broadcast or multicast */
	uint64_t rx_frag;             /**< fragments (refused) */
	uint64_t rx_not_ours;         /**< destination not one of our addresses */
	uint64_t rx_no_proto;         /**< no upper layer for its protocol */
	uint64_t rx_ipv6;             /**< IPv6 packets received */
	uint64_t rx6_short;           /**< IPv6: shorter than its header */
	uint64_t rx6_bad_version;     /**< IPv6: version not 6 */
	uint64_t rx6_bad_len;         /**< IPv6: payload length past the frame, or 0 */
	uint64_t rx6_bad_src;         /**< IPv6: multicast source */
	uint64_t rx6_frag;            /**< IPv6: fragment header (refused) */
	uint64_t rx6_ext_hdr;         /**< IPv6: other extension headers (refused) */
	uint64_t rx6_not_ours;        /**< IPv6: destination not ours */
	uint64_t rx6_no_proto;        /**< IPv6: no upper layer for its next header */
	uint64_t icmp6_rx;            /**< ICMPv6 messages received */
	uint64_t icmp6_bad;           /**< short, bad checksum, or a bad quote */
	uint64_t icmp6_echo_rx;       /**< echo requests */
	uint64_t icmp6_echo_reply_rx; /**< echo replies */
	uint64_t icmp6_err_rx;        /**< unreachable, too big, time exceeded, parameter problem */
	uint64_t icmp6_other;         /**< other types (dropped) */
	uint64_t nd_bad;              /**< NS or NA failing RFC 4861's checks */
	uint64_t nd_ns_rx;            /**< solicitations received */
	uint64_t nd_ns_not_ours;      /**< of those, for a target not ours */
	uint64_t nd_ns_no_lla;        /**< of those, unanswerable: no source link-layer address */
	uint64_t nd_na_tx;            /**< advertisements sent */
	uint64_t nd_na_rx;            /**< advertisements received */
	uint64_t nd_dup_addr;         /**< our addresses another node advertised (now unused) */
	uint64_t nd_dad_ns_tx;        /**< DAD probes sent */
	uint64_t icmp_rx;             /**< ICMP messages received */
	uint64_t icmp_bad;            /**< short or bad checksum */
	uint64_t icmp_echo_rx;        /**< echo requests */
	uint64_t icmp_echo_tx;        /**< echo replies sent */
	uint64_t icmp_echo_reply_rx;  /**< echo replies received */
	uint64_t icmp_err_rx;         /**< unreachable, time exceeded, parameter problem */
	uint64_t icmp_err_delivered;  /**< of those, handed to an upper layer */
	uint64_t icmp_other;          /**< other types (dropped) */
	uint64_t tx;                  /**< packets sent on (to the ARP cache) */
	uint64_t tx_no_route;         /**< no address, or off-link without a gateway */
	uint64_t tx_too_big;          /**< longer than the MTU (DF: never fragmented) */
	uint64_t tx_no_mbuf;          /**< no mbuf for a reply or a request */
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

/** Most IPv6 addresses a port carries, its link-local one included. */
#define NET_IP6_MAX_ADDRS 8

/** What the IPv6 header check found (the parser shared with the fuzzer). */
enum net_ipv6_verdict {
	NET_IPV6_OK = 0,
	NET_IPV6_SHORT,
	NET_IPV6_BAD_VERSION,
	NET_IPV6_BAD_LEN,
	NET_IPV6_BAD_SRC,
	NET_IPV6_FRAGMENT,
	NET_IPV6_EXT_HDR, /**< hop-by-hop, routing, destination options, AH, ESP... */
};

/**
 * Check the IPv6 packet of @p len bytes at @p p. On NET_IPV6_OK, *plen is
 * its payload length (what follows the 40-byte header, padding excluded).
 */
enum net_ipv6_verdict net_ipv6_check(const void *p, size_t len, uint16_t *plen);

/** ff00::/8. */
bool net_ipv6_is_multicast(const uint8_t a[16]);

/**
 * The checksum field value for the upper-layer packet of @p len bytes at
 * @p l4 (its checksum field zero) under the IPv6 pseudo-header (RFC 8200
 * 8.1). Over a packet whose field is filled in, it is 0 when it is right.
 */
uint16_t net_ipv6_l4_cksum(const uint8_t src[16], const uint8_t dst[16], uint8_t proto,
			   const void *l4, size_t len);

/** The checksum of the upper-layer packet at @p l4 is right. */
bool net_ipv6_l4_cksum_ok(const uint8_t src[16], const uint8_t dst[16], uint8_t proto,
			  const void *l4, size_t len);

/** The link-local address fe80::/64 with the modified EUI-64 of @p mac (RFC 4291). */
void net_ipv6_link_local(const struct rte_ether_addr *mac, uint8_t out[16]);

/** The solicited-node multicast group of @p addr (ff02::1:ffXX:XXXX). */
void net_ipv6_solicited_node(const uint8_t addr[16], uint8_t out[16]);

#define NET_ICMP6_DEST_UNREACH 1
#define NET_ICMP6_PACKET_TOO_BIG 2
#define NET_ICMP6_TIME_EXCEEDED 3
#define NET_ICMP6_PARAM_PROBLEM 4
#define NET_ICMP6_ECHO_REQUEST 128
#define NET_ICMP6_ECHO_REPLY 129

/** An ICMPv6 error about a packet we sent. */
struct net_icmp6_err {
	uint8_t from[16]; /**< who sent the ICMPv6 message */
	uint8_t type;     /**< 1 (unreachable), 2 (too big), 3 or 4 */
	uint8_t code;
	uint32_t mtu;             /**< packet too big: the next hop's MTU */
	uint8_t src[16], dst[16]; /**< the quoted packet's addresses */
	uint8_t proto;            /**< the quoted packet's next header */
	const uint8_t *l4;        /**< its bytes past the 40-byte header (>= 8) */
	size_t l4_len;
};

/** What an ICMPv6 message says (the parser shared with the fuzzer). */
struct net_icmp6_view {
	uint8_t type, code;
	uint16_t id, seq;    /**< echo */
	const uint8_t *data; /**< echo payload */
	size_t data_len;
	struct net_icmp6_err err; /**< error types: the quoted packet (from unset) */
};

enum net_icmp6_verdict {
	NET_ICMP6_OK = 0,
	NET_ICMP6_SHORT, /**< under 8 bytes, or an error quoting under 48 */
	NET_ICMP6_BAD_CKSUM,
	NET_ICMP6_BAD_QUOTE, /**< an error whose quoted header is not IPv6 */
};

/**
 * Parse the ICMPv6 message of @p len bytes at @p p, carried in the IPv6
 * packet whose header is @p ip (its addresses make the pseudo-header).
 */
enum net_icmp6_verdict net_icmp6_parse(const struct rte_ipv6_hdr *ip, const void *p, size_t len,
				       struct net_icmp6_view *v);

/** The Ethernet multicast address of IPv6 group @p group (33:33:xx:xx:xx:xx). */
void net_ipv6_mcast_mac(const uint8_t group[16], struct rte_ether_addr *mac);

#define NET_ND_NS 135 /**< neighbour solicitation */
#define NET_ND_NA 136 /**< neighbour advertisement */
#define NET_ND_NA_ROUTER 0x80
#define NET_ND_NA_SOLICITED 0x40
#define NET_ND_NA_OVERRIDE 0x20
/** An advertisement with its target link-layer address option. */
#define NET_ND_NA_LEN 32

/** What a neighbour solicitation or advertisement says. */
struct net_nd_view {
	uint8_t type;              /**< NET_ND_NS or NET_ND_NA */
	uint8_t flags;             /**< NA: NET_ND_NA_* */
	uint8_t target[16];        /**< the address asked or answered for */
	bool has_lla;              /**< a source (NS) or target (NA) link-layer address option */
	struct rte_ether_addr lla; /**< its MAC */
};

/** Why an NS or NA is refused (RFC 4861 7.1.1, 7.1.2). */
enum net_nd_verdict {
	NET_ND_OK = 0,
	NET_ND_SHORT,      /**< under 24 bytes */
	NET_ND_BAD_CODE,   /**< not NS/NA, or code not 0 */
	NET_ND_BAD_HOP,    /**< hop limit not 255: not from this link */
	NET_ND_BAD_TARGET, /**< multicast target, or a solicited NA to a group */
	NET_ND_BAD_OPT,    /**< an option of length 0 or past the message */
	NET_ND_BAD_DAD,    /**< unspecified source not to a solicited-node group, or with SLLA */
};

/**
 * Check and parse the NS or NA of @p len bytes at @p p in the IPv6 packet
 * with header @p ip (its ICMPv6 checksum already verified).
 */
enum net_nd_verdict net_nd_parse(const struct rte_ipv6_hdr *ip, const void *p, size_t len,
				 struct net_nd_view *v);

/**
 * Write at @p buf (NET_ND_NA_LEN bytes) an advertisement for @p target with
 * @p flags and @p mac as its target link-layer address; checksum zero.
 * @return NET_ND_NA_LEN
 */
size_t net_nd_na_fill(uint8_t *buf, const uint8_t target[16], const struct rte_ether_addr *mac,
		      uint8_t flags);

/**
 * IPv4 over @p nb's port and addresses: takes the port's IPv4 and IPv6
 * handlers. Call off the lcores, before the port starts.
 * @return 0, -EINVAL, -ENOMEM
 */
int net_ip_create(struct net_neigh *nb, const struct net_ip_conf *conf, struct net_ip **out);

/**
 * Free it (after the port closed, while the runtime runs: a DAD timer is
 * cancelled on data lcore 0). NULL is a no-op.
 */
void net_ip_destroy(struct net_ip *ip);

/**
 * Register the upper layer of protocol @p proto (before start): its input
 * and its ICMP errors (either may be NULL). ICMP itself is built in.
 * @return 0, -EEXIST, -EINVAL
 */
int net_ip_register(struct net_ip *ip, uint8_t proto, net_ip_rx_fn rx, net_ip_err_fn err,
		    void *arg);

/**
 * Give the port IPv6 address @p addr (besides its link-local one, which it
 * always has), tentative until DAD (net_ip_announce6()) unless conf.no_dad.
 * Before the port starts: data lcores read the table unlocked.
 * @return 0, -EEXIST, -ENOSPC, -EINVAL (multicast or unspecified)
 */
int net_ip_addr6_add(struct net_ip *ip, const uint8_t addr[16]);

/**
 * Whether @p addr is one of the port's IPv6 unicast addresses, and usable:
 * not one another node has advertised, which the port then stops
 * accepting and answering for.
 */
bool net_ip_is_local6(const struct net_ip *ip, const uint8_t addr[16]);

/**
 * From data lcore 0: start DAD for the tentative IPv6 addresses (one probe
 * each; those nobody claims within conf.dad_ms become preferred and are
 * announced), and announce the preferred ones to all nodes (an unsolicited
 * NA each, as gratuitous ARP does for IPv4). After the port started, and
 * after an address is added; off the data lcores.
 * @return 0, -ENOMEM, or rt_lcore_call()'s error
 */
int net_ip_announce6(struct net_ip *ip);

/** Whether DAD is still waiting for answers (off the data lcores). */
bool net_ip_dad_pending(struct net_ip *ip);

/** Where @p addr stands on the port. Any thread. */
enum net_ip6_addr_state net_ip_addr6_state(const struct net_ip *ip, const uint8_t addr[16]);

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
