/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The ARP cache of one port (RFC 826), and the port's IPv4 addresses.
 *
 * One writer, readers under RCU: the management lcore owns the table (it is
 * where rt's RCU publishes and retires). Data lcores read entries without
 * locks: an entry is an immutable snapshot in an array slot, replaced by
 * rt_rcu_publish() and freed by rt_rcu_retire(). A data lcore that finds no
 * usable entry hands the packet to the management lcore (rt_lcore_send_msg),
 * which queues it on the entry (a bounded queue, drops beyond it counted),
 * probes, and sends it back to the lcore it came from once resolved. ARP
 * frames reach the management lcore the same way from data lcore 0, which
 * the port steers all ARP to; what the writer transmits leaves through a
 * data lcore's TX queue in a message to that lcore.
 *
 * Entry states, as the data path sees them: a usable MAC (REACHABLE until
 * its confirmation ages out, then STALE: the next packet goes through the
 * writer, which re-probes by unicast while still using the MAC, as PROBE),
 * or none (INCOMPLETE: broadcast requests every retrans_ms, max_probes
 * times, then the queued packets are dropped and counted). An entry nobody
 * used for gc_stale_ms after its confirmation aged out is removed.
 *
 * IPv6 neighbour discovery is not in this slice: only IPv4 resolves.
 */
#ifndef NET_NEIGH_H
#define NET_NEIGH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "net_port.h"

/** Most IPv4 addresses a port carries. */
#define NET_NEIGH_MAX_ADDRS 8

enum net_neigh_state {
	NET_NEIGH_NONE = 0,   /**< no entry */
	NET_NEIGH_INCOMPLETE, /**< probing, no MAC yet */
	NET_NEIGH_REACHABLE,  /**< confirmed within reachable_ms */
	NET_NEIGH_STALE,      /**< MAC known, confirmation aged out */
	NET_NEIGH_PROBE,      /**< MAC in use, unicast re-probe running */
};

struct net_neigh_conf {
	size_t conf_size;      /**< sizeof(struct net_neigh_conf) */
	uint32_t capacity;     /**< entries (rounded up to a power of 2); 0 = 256 */
	uint32_t reachable_ms; /**< 0 = 30000 (Linux's base_reachable_time) */
	uint32_t retrans_ms;   /**< between probes; 0 = 1000 */
	uint32_t max_probes;   /**< 0 = 3 */
	uint32_t gc_stale_ms;  /**< unused stale entries go after this; 0 = 60000 */
	uint32_t pending_max;  /**< packets queued per unresolved entry; 0 = 8 */
};

/** Counters (read relaxed from any thread). */
struct net_neigh_stats {
	uint64_t arp_rx;         /**< ARP frames the writer parsed */
	uint64_t arp_bad;        /**< malformed or not Ethernet/IPv4 (dropped) */
	uint64_t arp_req_rx;     /**< requests received */
	uint64_t arp_reply_rx;   /**< replies received */
	uint64_t arp_req_tx;     /**< requests sent (probes, broadcast or unicast) */
	uint64_t arp_reply_tx;   /**< replies sent for our addresses */
	uint64_t garp_tx;        /**< gratuitous announcements sent */
	uint64_t conflicts;      /**< frames from another host claiming our address */
	uint64_t resolved;       /**< entries that got a MAC */
	uint64_t resolve_failed; /**< packets dropped: resolution failed */
	uint64_t pending_drops;  /**< packets dropped: the entry's queue was full */
	uint64_t table_full;     /**< packets dropped: no free entry */
	uint64_t removed;        /**< entries removed (failed or unused) */
	uint64_t slow_path;      /**< packets a data lcore passed to the writer */
	uint64_t msg_drops;      /**< packets dropped: a message ring was full */
};

/** What an ARP frame says (the parser's output). */
struct net_arp_view {
	uint16_t op;               /**< RTE_ARP_OP_REQUEST or RTE_ARP_OP_REPLY */
	struct rte_ether_addr sha; /**< sender MAC */
	uint32_t spa;              /**< sender IPv4, network order */
	struct rte_ether_addr tha; /**< target MAC */
	uint32_t tpa;              /**< target IPv4, network order */
};

/** Why an ARP frame is refused (0: it is fine). */
enum net_arp_verdict {
	NET_ARP_OK = 0,
	NET_ARP_SHORT,      /**< fewer bytes than an Ethernet/IPv4 ARP body */
	NET_ARP_NOT_ETH_IP, /**< hardware or protocol type/length not Ethernet/IPv4 */
	NET_ARP_BAD_OP,     /**< neither request nor reply */
	NET_ARP_BAD_SENDER, /**< sender MAC multicast or broadcast */
};

/** Parse an ARP body of @p len bytes at @p p (no mbuf: shared with the fuzzer). */
enum net_arp_verdict net_arp_parse(const void *p, size_t len, struct net_arp_view *v);

struct net_neigh;

/**
 * The ARP cache of @p port; takes the port's ARP handler. Call off the
 * lcores, before the port starts.
 * @return 0, -EINVAL, -ENOMEM
 */
int net_neigh_create(struct net_port *port, const struct net_neigh_conf *conf,
		     struct net_neigh **out);

/**
 * Free the cache, its entries and queued packets, on the management lcore:
 * after the port closed, while the runtime still runs. NULL: no-op.
 */
void net_neigh_destroy(struct net_neigh *nb);

/**
 * Add an address (network order) with its prefix length, and announce it
 * when the port is started. Any thread but a data lcore.
 * @return 0, -EEXIST, -ENOSPC, -EINVAL
 */
int net_neigh_addr_add(struct net_neigh *nb, uint32_t ip, uint8_t prefix_len);

/** Remove an address. @return 0 or -ENOENT. */
int net_neigh_addr_del(struct net_neigh *nb, uint32_t ip);

/** Announce every address (gratuitous ARP); the port must be started. */
int net_neigh_announce(struct net_neigh *nb);

/** True if @p ip (network order) is one of the port's addresses. Any lcore. */
bool net_neigh_is_local(const struct net_neigh *nb, uint32_t ip);

/**
 * The address to send to @p dst from, and whether @p dst is on its subnet
 * (else it needs a gateway). @return false when the port has no address.
 */
bool net_neigh_src_for(const struct net_neigh *nb, uint32_t dst, uint32_t *src, bool *onlink);

/**
 * Send the IPv4 packet @p m (starting at its IPv4 header, 14 bytes of
 * headroom) to next hop @p nexthop from data lcore @p lcore: an Ethernet
 * header goes in front and it leaves at the end of the poll, or it waits for
 * resolution on the management lcore. @p m always changes hands.
 */
void net_neigh_output(struct net_neigh *nb, unsigned int lcore, struct rte_mbuf *m,
		      uint32_t nexthop);

/** The state of @p ip's entry and its MAC (when it has one). Any lcore. */
enum net_neigh_state net_neigh_lookup(const struct net_neigh *nb, uint32_t ip,
				      struct rte_ether_addr *mac);

/** Copy of the counters. */
void net_neigh_stats(const struct net_neigh *nb, struct net_neigh_stats *out);

/** The port under the cache. */
struct net_port *net_neigh_port(const struct net_neigh *nb);

#endif /* NET_NEIGH_H */
