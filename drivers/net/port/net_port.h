/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * An ethdev port under the userspace IP stack: one RX/TX queue pair per data
 * lcore where the PMD has them (one otherwise), mbufs from a pool per NUMA
 * socket, checksum offloads taken when offered, the MTU, link state polled
 * and reported to the owner, and a receive path that classifies each frame
 * (ARP, IPv4, IPv6, other) and hands it to the handler of its class on the
 * lcore that owns it.
 *
 * Ownership. Data lcore i owns RX queue i (i < the queue count) and its TX
 * buffer. When the PMD has fewer queues than there are data lcores (af_packet,
 * af_xdp on veth, vhost, net_ring), the lcores past the queue count receive
 * through software steering: the queue's lcore asks the port's flow-owner hook
 * which lcore a frame belongs to and passes it over that lcore's steering ring
 * (an rte_ring, multi-producer); such lcores share a TX queue, under a
 * spinlock. ARP always goes to lcore 0, the neighbour cache's writer.
 *
 * A frame handed to a handler belongs to it (it frees or sends the mbuf).
 * Frames queued with net_port_tx() go out at the end of the lcore's poll.
 */
#ifndef NET_PORT_H
#define NET_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "rt.h"

/** Most data lcores one port serves. */
#define NET_PORT_MAX_LCORES 16

/** What a received frame carries, by its EtherType (after VLAN tags). */
enum net_class {
	NET_CLASS_ARP = 0,
	NET_CLASS_IPV4,
	NET_CLASS_IPV6,
	NET_CLASS_OTHER,
	NET_CLASS_N,
};

/** The port's states; net_port_state_name() spells them. */
enum net_port_state {
	NET_PORT_CONFIGURED = 0, /**< queues set up, not started */
	NET_PORT_LINK_DOWN,      /**< started, link down */
	NET_PORT_LINK_UP,        /**< started, link up */
	NET_PORT_STOPPED,        /**< stopped; only closing remains */
	NET_PORT_STATE_N,
};

struct net_port;

/**
 * A class handler: runs on the owning data lcore @p lcore (its index in the
 * runtime's data lcores); @p m starts at the Ethernet header, m->l2_len set.
 */
typedef void (*net_port_rx_fn)(void *arg, struct net_port *port, unsigned int lcore,
			       struct rte_mbuf *m);

/** Link state changes, reported on the management lcore. */
typedef void (*net_port_link_fn)(void *arg, struct net_port *port, bool up, uint32_t speed_mbps);

/**
 * The software steering hook: the data lcore that owns the flow of @p m
 * (IPv4 or IPv6, l2_len set). Any value is reduced modulo the lcore count.
 */
typedef unsigned int (*net_port_owner_fn)(void *arg, const struct net_port *port,
					  const struct rte_mbuf *m);

/** How to open a port. */
struct net_port_conf {
	size_t conf_size; /**< sizeof(struct net_port_conf) */
	/**
	 * EAL device arguments ("net_af_packet0,iface=veth0"), probed with
	 * rte_dev_probe(); NULL to take the existing ethdev @p port_id.
	 */
	const char *devargs;
	uint16_t port_id; /**< with devargs NULL: an ethdev already probed */
	uint16_t mtu;     /**< 0: leave the PMD's */
	/**
	 * The port's MAC; NULL: the device's. Set on the device, or, when the
	 * PMD cannot (net_ring), used by the port all the same.
	 */
	const struct rte_ether_addr *mac;
	uint16_t nb_desc;         /**< ring descriptors per queue; 0 = 1024 */
	uint32_t nb_mbufs;        /**< mbufs in each socket's pool; 0 = 8191 */
	uint32_t link_poll_us;    /**< link polling period; 0 = 100 ms */
	net_port_link_fn link_fn; /**< may be NULL */
	void *link_arg;
};

/** Counters of one data lcore's share of the port (written by that lcore only). */
struct net_port_lcore_stats {
	uint64_t rx_pkts;               /**< frames taken from its RX queue */
	uint64_t rx_class[NET_CLASS_N]; /**< frames dispatched, by class */
	uint64_t rx_no_handler;         /**< frames of a class nobody handles (freed) */
	uint64_t rx_runt;               /**< shorter than an Ethernet header (freed) */
	uint64_t rx_other_host;         /**< unicast to another MAC (freed) */
	uint64_t steered_out;           /**< frames passed to another lcore */
	uint64_t steered_in;            /**< frames received from another lcore */
	uint64_t steer_drops;           /**< steering ring full (freed) */
	uint64_t tx_pkts;               /**< frames the PMD took */
	uint64_t tx_drops;              /**< frames the PMD refused at a flush (freed) */
	uint64_t tx_sw_cksum;           /**< checksums done in software */
};

/** What the port negotiated with its PMD. */
struct net_port_info {
	uint16_t port_id;
	uint16_t n_queues; /**< RX/TX queue pairs */
	uint16_t n_lcores; /**< data lcores served */
	uint16_t mtu;
	int socket;       /**< NUMA socket of the device (0 when not known) */
	bool rx_ip_cksum; /**< the PMD checks IPv4 header checksums */
	bool rx_l4_cksum; /**< the PMD checks TCP/UDP checksums */
	bool tx_ip_cksum; /**< the PMD fills IPv4 header checksums */
	bool tx_l4_cksum; /**< the PMD fills TCP/UDP checksums */
	struct rte_ether_addr mac;
};

/**
 * Open a port for the data lcores of @p rt (called off the data lcores: it
 * registers a poller on each through rt_lcore_call()). EAL must be up.
 * @return 0, -EINVAL, -ENODEV (no such device), -ENOMEM, or an ethdev -errno
 */
int net_port_open(struct rt_runtime *rt, const struct net_port_conf *conf, struct net_port **out);

/** Start the port: the state becomes LINK_DOWN or LINK_UP. @return 0 or -errno. */
int net_port_start(struct net_port *port);

/**
 * Stop and close the port, unregister its pollers, free it. NULL is a no-op.
 * Call once the runtime is quiet (nothing for the port still queued in an
 * lcore's ring: the layers above send it frames in messages).
 */
void net_port_close(struct net_port *port);

/** Set the handler of class @p c (before start). */
void net_port_set_handler(struct net_port *port, enum net_class c, net_port_rx_fn fn, void *arg);

/** Set the software steering hook (before start); without one, all stays where it lands. */
void net_port_set_owner_fn(struct net_port *port, net_port_owner_fn fn, void *arg);

/**
 * Queue @p m for transmission on @p lcore's TX queue (on that lcore). It
 * leaves at the end of the lcore's poll. Checksums flagged in m->ol_flags
 * (RTE_MBUF_F_TX_IP_CKSUM, RTE_MBUF_F_TX_TCP/UDP_CKSUM) are done in software
 * first when the PMD does not offer them.
 */
void net_port_tx(struct net_port *port, unsigned int lcore, struct rte_mbuf *m);

/** Send what @p lcore has queued now (its poll does this at its end). */
void net_port_tx_flush(struct net_port *port, unsigned int lcore);

/** An mbuf from the pool of the port's socket, or NULL. */
struct rte_mbuf *net_port_alloc(struct net_port *port);

/** What was negotiated. */
const struct net_port_info *net_port_info(const struct net_port *port);

/** Most Ethernet multicast groups a port joins by list before it takes them all. */
#define NET_PORT_MAX_MCAST 16

/** How the device lets the multicast groups the port joined in. */
enum net_port_mcast_mode {
	NET_PORT_MCAST_NONE = 0, /**< no group joined yet */
	NET_PORT_MCAST_LIST,     /**< the PMD filters to the joined groups */
	NET_PORT_MCAST_ALL,      /**< no list in the PMD (or too many): all multicast */
	NET_PORT_MCAST_PMD,      /**< neither: the PMD's own (promiscuous, say) */
};

/**
 * Join the Ethernet multicast group @p mac: IPv6's all-nodes and
 * solicited-node groups must reach the port on a NIC that filters
 * multicast. The PMD gets the whole list; without list support it is put in
 * all-multicast mode. Off the data lcores.
 * @return 0, -EEXIST, -EINVAL (not multicast)
 */
int net_port_mcast_join(struct net_port *port, const struct rte_ether_addr *mac);

/** How the joined groups get in (NET_PORT_MCAST_*). */
enum net_port_mcast_mode net_port_mcast_mode(const struct net_port *port);

/** The current state. */
enum net_port_state net_port_state(const struct net_port *port);

/** "configured", "link-down", "link-up", "stopped". */
const char *net_port_state_name(enum net_port_state s);

/** Copy of @p lcore's counters (relaxed reads, any thread). */
void net_port_lcore_stats(const struct net_port *port, unsigned int lcore,
			  struct net_port_lcore_stats *out);

/** The port as a whole: its lcores' counters added up, and the PMD's own. */
struct net_port_stats {
	struct net_port_lcore_stats sum; /**< every data lcore's, added up */
	uint64_t hw_ipackets;            /**< rte_eth_stats: received */
	uint64_t hw_opackets;            /**< sent */
	uint64_t hw_imissed;             /**< dropped by the device: RX queues full */
	uint64_t hw_ierrors;             /**< received with errors */
	uint64_t hw_oerrors;             /**< failed to send */
	uint64_t hw_rx_nombuf;           /**< RX mbuf allocation failures */
};

/** The port's counters (any thread). @return 0 or the ethdev -errno. */
int net_port_stats(const struct net_port *port, struct net_port_stats *out);

/** The runtime the port runs on. */
struct rt_runtime *net_port_runtime(const struct net_port *port);

/**
 * The data lcore a frame of class @p c goes to, given the steering hook:
 * ARP to 0; IPv4/IPv6 by the hook; others stay on @p here. Exposed for tests.
 */
unsigned int net_port_owner(const struct net_port *port, enum net_class c, unsigned int here,
			    const struct rte_mbuf *m);

/**
 * Classify the frame in @p m: its class, with m->l2_len set to the bytes
 * before the L3 header (VLAN tags included). A frame shorter than an
 * Ethernet header returns NET_CLASS_N.
 */
enum net_class net_port_classify(struct rte_mbuf *m);

/**
 * The class of the Ethernet frame of @p len bytes at @p frame, with the
 * bytes before its L3 header in *@p l2_len (no mbuf: shared with the fuzzer).
 */
enum net_class net_eth_classify(const void *frame, size_t len, uint16_t *l2_len);

/** Fill the checksums @p m's TX flags ask for, in software (l2_len, l3_len set). */
void net_port_sw_cksum(struct rte_mbuf *m);

#endif /* NET_PORT_H */
