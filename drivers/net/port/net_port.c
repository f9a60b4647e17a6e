/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ethdev port layer: see net_port.h for ownership. The port's state is
 * written on the management lcore only (start and close reach it with
 * rt_lcore_call()); each data lcore's counters, TX buffer and steering ring
 * belong to that lcore.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "net_port.h"

#define NET_PORT_BURST 32
#define NET_PORT_STEER_RING 1024
#define NET_PORT_DEFAULT_DESC 1024
#define NET_PORT_DEFAULT_MBUFS 8191
#define NET_PORT_MBUF_CACHE 256
#define NET_PORT_DEFAULT_LINK_POLL_US (100 * 1000)

/* Counters are written by one lcore and read by any thread. */
#define NET_STAT_ADD(s, field, n) __atomic_store_n(&(s)->field, (s)->field + (n), __ATOMIC_RELAXED)

struct net_port_lcore {
	struct net_port_lcore_stats stats;
	struct rte_eth_dev_tx_buffer *txb; /* frames waiting for the end of the poll */
	struct rte_ring *steer;            /* frames other lcores hand over (MP/SC) */
	struct rt_poller *poller;
	uint16_t rxq;          /* its RX queue, or UINT16_MAX: steered only */
	uint16_t txq;          /* its TX queue (shared when lcores > queues) */
	struct net_port *port; /* for the poller */
	unsigned int idx;      /* its data lcore index */
} __rte_cache_aligned;

struct net_port {
	struct rt_runtime *rt;
	struct net_port_info info;
	enum net_port_state state; /* written on the management lcore */
	bool started;              /* data pollers run the queues (acquire/release) */
	bool txq_shared;           /* more lcores than TX queues: take txq_lock */
	bool probed;               /* we probed the device: we remove it */
	struct rte_device *dev;    /* the EAL device under the port */
	struct rte_mempool *pool;
	struct rt_poller *link_poller;
	uint32_t link_poll_us;
	net_port_link_fn link_fn;
	void *link_arg;
	net_port_owner_fn owner_fn;
	void *owner_arg;
	struct {
		net_port_rx_fn fn;
		void *arg;
	} handler[NET_CLASS_N];
	char devname[RTE_ETH_NAME_MAX_LEN];
	struct rte_ether_addr mcast[NET_PORT_MAX_MCAST]; /* groups joined by list */
	unsigned int n_mcast;
	enum net_port_mcast_mode mcast_mode;
	rte_spinlock_t txq_lock[NET_PORT_MAX_LCORES];
	struct net_port_lcore lc[NET_PORT_MAX_LCORES];
};

/*
 * One mbuf pool per NUMA socket, shared by the ports on that socket and
 * freed with the last of them.
 */
static struct {
	struct rte_mempool *mp;
	unsigned int users;
} g_pools[RTE_MAX_NUMA_NODES];
static pthread_mutex_t g_pools_lock = PTHREAD_MUTEX_INITIALIZER;

static struct rte_mempool *
pool_get(int socket, uint32_t n)
{
	struct rte_mempool *mp;
	char name[RTE_MEMPOOL_NAMESIZE];

	pthread_mutex_lock(&g_pools_lock);
	mp = g_pools[socket].mp;
	if (mp == NULL) {
		snprintf(name, sizeof(name), "net_mbuf_s%d", socket);
		mp = rte_pktmbuf_pool_create(name, n, NET_PORT_MBUF_CACHE, 0,
					     RTE_MBUF_DEFAULT_BUF_SIZE, socket);
		g_pools[socket].mp = mp;
	}
	if (mp != NULL) {
		g_pools[socket].users++;
	}
	pthread_mutex_unlock(&g_pools_lock);
	return mp;
}

static void
pool_put(int socket)
{
	pthread_mutex_lock(&g_pools_lock);
	if (g_pools[socket].users > 0 && --g_pools[socket].users == 0) {
		rte_mempool_free(g_pools[socket].mp);
		g_pools[socket].mp = NULL;
	}
	pthread_mutex_unlock(&g_pools_lock);
}

/* The state machine: which state may follow which. */
static const bool g_port_next[NET_PORT_STATE_N][NET_PORT_STATE_N] = {
	[NET_PORT_CONFIGURED] = { [NET_PORT_LINK_DOWN] = true,
				  [NET_PORT_LINK_UP] = true,
				  [NET_PORT_STOPPED] = true },
	[NET_PORT_LINK_DOWN] = { [NET_PORT_LINK_UP] = true, [NET_PORT_STOPPED] = true },
	[NET_PORT_LINK_UP] = { [NET_PORT_LINK_DOWN] = true, [NET_PORT_STOPPED] = true },
	[NET_PORT_STOPPED] = { false },
};

static const char *const g_state_names[NET_PORT_STATE_N] = {
	[NET_PORT_CONFIGURED] = "configured",
	[NET_PORT_LINK_DOWN] = "link-down",
	[NET_PORT_LINK_UP] = "link-up",
	[NET_PORT_STOPPED] = "stopped",
};

const char *
net_port_state_name(enum net_port_state s)
{
	return s < NET_PORT_STATE_N ? g_state_names[s] : "?";
}

/* The one place the state changes (management lcore). */
static int
port_set_state(struct net_port *port, enum net_port_state next)
{
	if (!g_port_next[port->state][next]) {
		RTE_LOG(ERR, USER1, "port %u: no transition %s -> %s\n", port->info.port_id,
			net_port_state_name(port->state), net_port_state_name(next));
		return -EINVAL;
	}
	__atomic_store_n(&port->state, next, __ATOMIC_RELEASE);
	return 0;
}

enum net_port_state
net_port_state(const struct net_port *port)
{
	return __atomic_load_n(&port->state, __ATOMIC_ACQUIRE);
}

enum net_class
net_eth_classify(const void *frame, size_t len, uint16_t *l2_len)
{
	const uint8_t *p = frame;
	size_t off = RTE_ETHER_HDR_LEN;
	uint16_t type;
	int tags;

	if (len < RTE_ETHER_HDR_LEN) {
		return NET_CLASS_N;
	}
	type = rte_be_to_cpu_16(((const struct rte_ether_hdr *)p)->ether_type);
	/* Up to two VLAN tags (802.1Q inside 802.1ad), as rte_net_get_ptype reads them. */
	for (tags = 0; tags < 2 && (type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ);
	     tags++) {
		if (len < off + sizeof(struct rte_vlan_hdr)) {
			return NET_CLASS_N;
		}
		type = rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(p + off))->eth_proto);
		off += sizeof(struct rte_vlan_hdr);
	}
	*l2_len = (uint16_t)off;
	switch (type) {
	case RTE_ETHER_TYPE_ARP:
		return NET_CLASS_ARP;
	case RTE_ETHER_TYPE_IPV4:
		return NET_CLASS_IPV4;
	case RTE_ETHER_TYPE_IPV6:
		return NET_CLASS_IPV6;
	default:
		return NET_CLASS_OTHER;
	}
}

enum net_class
net_port_classify(struct rte_mbuf *m)
{
	uint16_t l2_len = 0;
	enum net_class c = net_eth_classify(rte_pktmbuf_mtod(m, const void *),
					    rte_pktmbuf_data_len(m), &l2_len);

	m->l2_len = l2_len;
	return c;
}

unsigned int
net_port_owner(const struct net_port *port, enum net_class c, unsigned int here,
	       const struct rte_mbuf *m)
{
	switch (c) {
	case NET_CLASS_ARP:
		return 0; /* the lcore that feeds the neighbour cache's writer */
	case NET_CLASS_IPV4:
	case NET_CLASS_IPV6:
		if (port->owner_fn != NULL && port->info.n_lcores > 1) {
			return port->owner_fn(port->owner_arg, port, m) % port->info.n_lcores;
		}
		return here;
	default:
		return here;
	}
}

static void
port_dispatch(struct net_port *port, unsigned int lcore, enum net_class c, struct rte_mbuf *m)
{
	struct net_port_lcore_stats *s = &port->lc[lcore].stats;

	NET_STAT_ADD(s, rx_class[c], 1);
	if (port->handler[c].fn == NULL) {
		NET_STAT_ADD(s, rx_no_handler, 1);
		rte_pktmbuf_free(m);
		return;
	}
	port->handler[c].fn(port->handler[c].arg, port, lcore, m);
}

/*
 * Unicast to our MAC, broadcast or multicast: a PMD in promiscuous mode
 * (af_packet sets it) also hands us frames for the other hosts of the link.
 */
static bool
port_l2_ours(const struct net_port *port, const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	return rte_is_multicast_ether_addr(&eh->dst_addr) ||
	       rte_is_same_ether_addr(&eh->dst_addr, &port->info.mac);
}

/* A frame from the wire: to its class's handler here, or to its owner's ring. */
static void
port_receive(struct net_port *port, unsigned int lcore, struct rte_mbuf *m)
{
	struct net_port_lcore_stats *s = &port->lc[lcore].stats;
	enum net_class c = net_port_classify(m);
	unsigned int owner;

	if (c == NET_CLASS_N) {
		NET_STAT_ADD(s, rx_runt, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (!port_l2_ours(port, m)) {
		NET_STAT_ADD(s, rx_other_host, 1);
		rte_pktmbuf_free(m);
		return;
	}
	owner = net_port_owner(port, c, lcore, m);
	if (owner == lcore) {
		port_dispatch(port, lcore, c, m);
		return;
	}
	if (rte_ring_mp_enqueue(port->lc[owner].steer, m) != 0) {
		NET_STAT_ADD(s, steer_drops, 1);
		rte_pktmbuf_free(m);
		return;
	}
	NET_STAT_ADD(s, steered_out, 1);
}

static unsigned int
port_rx_queue(struct net_port *port, unsigned int lcore)
{
	struct net_port_lcore *lc = &port->lc[lcore];
	struct rte_mbuf *pkts[NET_PORT_BURST];
	uint16_t i, n;

	if (lc->rxq == UINT16_MAX) {
		return 0;
	}
	n = rte_eth_rx_burst(port->info.port_id, lc->rxq, pkts, NET_PORT_BURST);
	NET_STAT_ADD(&lc->stats, rx_pkts, n);
	for (i = 0; i < n; i++) {
		port_receive(port, lcore, pkts[i]);
	}
	return n;
}

static unsigned int
port_rx_steered(struct net_port *port, unsigned int lcore)
{
	struct net_port_lcore *lc = &port->lc[lcore];
	struct rte_mbuf *pkts[NET_PORT_BURST];
	unsigned int i, n;

	n = rte_ring_sc_dequeue_burst(lc->steer, (void **)pkts, NET_PORT_BURST, NULL);
	NET_STAT_ADD(&lc->stats, steered_in, n);
	for (i = 0; i < n; i++) {
		port_dispatch(port, lcore, net_port_classify(pkts[i]), pkts[i]);
	}
	return n;
}

/* A data lcore's poll: its RX queue, frames steered to it, then its TX flush. */
static int
port_poll(void *arg)
{
	struct net_port_lcore *lc = arg;
	struct net_port *port = lc->port;
	unsigned int work;

	if (!__atomic_load_n(&port->started, __ATOMIC_ACQUIRE)) {
		return RT_POLLER_IDLE;
	}
	work = port_rx_queue(port, lc->idx) + port_rx_steered(port, lc->idx);
	work += lc->txb->length;
	net_port_tx_flush(port, lc->idx);
	return work > 0 ? RT_POLLER_BUSY : RT_POLLER_IDLE;
}

void
net_port_sw_cksum(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip;
	uint16_t *l4_cksum;

	if ((m->ol_flags & RTE_MBUF_F_TX_IPV4) == 0) {
		return; /* IPv6 has no header checksum; its L4 comes with IPv6 */
	}
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, m->l2_len);
	if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) {
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	switch (m->ol_flags & RTE_MBUF_F_TX_L4_MASK) {
	case RTE_MBUF_F_TX_TCP_CKSUM:
		l4_cksum = rte_pktmbuf_mtod_offset(m, uint16_t *, m->l2_len + m->l3_len + 16);
		break;
	case RTE_MBUF_F_TX_UDP_CKSUM:
		l4_cksum = rte_pktmbuf_mtod_offset(m, uint16_t *, m->l2_len + m->l3_len + 6);
		break;
	default:
		return;
	}
	*l4_cksum = 0;
	*l4_cksum = rte_ipv4_udptcp_cksum(ip, (const char *)ip + m->l3_len);
}

/* Do in software what the frame asks of a PMD that cannot, and clear those flags. */
static void
port_tx_cksum(struct net_port *port, struct net_port_lcore_stats *s, struct rte_mbuf *m)
{
	uint64_t want = m->ol_flags & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK);
	uint64_t sw = 0;

	if ((want & RTE_MBUF_F_TX_IP_CKSUM) && !port->info.tx_ip_cksum) {
		sw |= RTE_MBUF_F_TX_IP_CKSUM;
	}
	if ((want & RTE_MBUF_F_TX_L4_MASK) && !port->info.tx_l4_cksum) {
		sw |= want & RTE_MBUF_F_TX_L4_MASK;
	}
	if (sw == 0) {
		return;
	}
	m->ol_flags = (m->ol_flags & ~(RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)) | sw;
	net_port_sw_cksum(m);
	m->ol_flags =
		(m->ol_flags & ~(RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)) | (want & ~sw);
	NET_STAT_ADD(s, tx_sw_cksum, 1);
}

static uint16_t
port_tx_locked(struct net_port *port, struct net_port_lcore *lc, struct rte_mbuf *m)
{
	uint16_t sent;

	if (!port->txq_shared) {
		return m != NULL ? rte_eth_tx_buffer(port->info.port_id, lc->txq, lc->txb, m) :
				   rte_eth_tx_buffer_flush(port->info.port_id, lc->txq, lc->txb);
	}
	rte_spinlock_lock(&port->txq_lock[lc->txq]);
	sent = m != NULL ? rte_eth_tx_buffer(port->info.port_id, lc->txq, lc->txb, m) :
			   rte_eth_tx_buffer_flush(port->info.port_id, lc->txq, lc->txb);
	rte_spinlock_unlock(&port->txq_lock[lc->txq]);
	return sent;
}

void
net_port_tx(struct net_port *port, unsigned int lcore, struct rte_mbuf *m)
{
	struct net_port_lcore *lc = &port->lc[lcore];

	port_tx_cksum(port, &lc->stats, m);
	NET_STAT_ADD(&lc->stats, tx_pkts, port_tx_locked(port, lc, m));
}

void
net_port_tx_flush(struct net_port *port, unsigned int lcore)
{
	struct net_port_lcore *lc = &port->lc[lcore];

	if (lc->txb->length == 0) {
		return;
	}
	NET_STAT_ADD(&lc->stats, tx_pkts, port_tx_locked(port, lc, NULL));
}

struct rte_mbuf *
net_port_alloc(struct net_port *port)
{
	return rte_pktmbuf_alloc(port->pool);
}

const struct net_port_info *
net_port_info(const struct net_port *port)
{
	return &port->info;
}

struct rt_runtime *
net_port_runtime(const struct net_port *port)
{
	return port->rt;
}

void
net_port_lcore_stats(const struct net_port *port, unsigned int lcore,
		     struct net_port_lcore_stats *out)
{
	const uint64_t *src = (const uint64_t *)&port->lc[lcore].stats;
	uint64_t *dst = (uint64_t *)out;
	size_t i;

	for (i = 0; i < sizeof(*out) / sizeof(uint64_t); i++) {
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	}
}

int
net_port_stats(const struct net_port *port, struct net_port_stats *out)
{
	struct net_port_lcore_stats one;
	struct rte_eth_stats es;
	uint64_t *sum = (uint64_t *)&out->sum;
	const uint64_t *add = (const uint64_t *)&one;
	unsigned int l;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	for (l = 0; l < port->info.n_lcores; l++) {
		net_port_lcore_stats(port, l, &one);
		for (i = 0; i < sizeof(one) / sizeof(uint64_t); i++) {
			sum[i] += add[i];
		}
	}
	rc = rte_eth_stats_get(port->info.port_id, &es);
	if (rc != 0) {
		return rc;
	}
	out->hw_ipackets = es.ipackets;
	out->hw_opackets = es.opackets;
	out->hw_imissed = es.imissed;
	out->hw_ierrors = es.ierrors;
	out->hw_oerrors = es.oerrors;
	out->hw_rx_nombuf = es.rx_nombuf;
	return 0;
}

void
net_port_set_handler(struct net_port *port, enum net_class c, net_port_rx_fn fn, void *arg)
{
	port->handler[c].fn = fn;
	port->handler[c].arg = arg;
}

void
net_port_set_owner_fn(struct net_port *port, net_port_owner_fn fn, void *arg)
{
	port->owner_fn = fn;
	port->owner_arg = arg;
}

/* ---- link state: polled on the management lcore ---- */

static void
port_link_update(struct net_port *port)
{
	struct rte_eth_link link;
	enum net_port_state next;

	if (rte_eth_link_get_nowait(port->info.port_id, &link) != 0) {
		return;
	}
	next = link.link_status == RTE_ETH_LINK_UP ? NET_PORT_LINK_UP : NET_PORT_LINK_DOWN;
	if (next == port->state || port_set_state(port, next) != 0) {
		return;
	}
	RTE_LOG(INFO, USER1, "port %u (%s): %s\n", port->info.port_id, port->devname,
		net_port_state_name(next));
	if (port->link_fn != NULL) {
		port->link_fn(port->link_arg, port, next == NET_PORT_LINK_UP, link.link_speed);
	}
}

static int
port_link_poll(void *arg)
{
	struct net_port *port = arg;

	if (port->state == NET_PORT_LINK_UP || port->state == NET_PORT_LINK_DOWN) {
		port_link_update(port);
	}
	return RT_POLLER_IDLE;
}

/* ---- opening, starting, closing ---- */

static int
port_find(const struct net_port_conf *conf, struct net_port *port)
{
	size_t n;
	int rc;

	if (conf->devargs == NULL) {
		if (!rte_eth_dev_is_valid_port(conf->port_id)) {
			return -ENODEV;
		}
		port->info.port_id = conf->port_id;
		return rte_eth_dev_get_name_by_port(conf->port_id, port->devname);
	}
	n = strcspn(conf->devargs, ",");
	if (n == 0 || n >= sizeof(port->devname)) {
		return -EINVAL;
	}
	memcpy(port->devname, conf->devargs, n);
	port->devname[n] = '\0';
	rc = rte_dev_probe(conf->devargs);
	if (rc < 0 && rc != -EEXIST) { /* -EEXIST: probed already (--vdev, --allow): ours to use */
		RTE_LOG(ERR, USER1, "probe %s: %s\n", conf->devargs, rte_strerror(-rc));
		return rc;
	}
	port->probed = rc == 0;
	return rte_eth_dev_get_port_by_name(port->devname, &port->info.port_id) == 0 ? 0 : -ENODEV;
}

/* Take each checksum offload the PMD offers; the rest is done in software. */
static void
port_negotiate(struct net_port *port, const struct rte_eth_dev_info *di, struct rte_eth_conf *ec)
{
	const uint64_t rx_l4 = RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM;
	const uint64_t tx_l4 = RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM;

	port->info.rx_ip_cksum = (di->rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) != 0;
	port->info.rx_l4_cksum = (di->rx_offload_capa & rx_l4) == rx_l4;
	port->info.tx_ip_cksum = (di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) != 0;
	port->info.tx_l4_cksum = (di->tx_offload_capa & tx_l4) == tx_l4;
	ec->rxmode.offloads = (port->info.rx_ip_cksum ? RTE_ETH_RX_OFFLOAD_IPV4_CKSUM : 0) |
			      (port->info.rx_l4_cksum ? rx_l4 : 0);
	ec->txmode.offloads = (port->info.tx_ip_cksum ? RTE_ETH_TX_OFFLOAD_IPV4_CKSUM : 0) |
			      (port->info.tx_l4_cksum ? tx_l4 : 0);
	if (port->info.n_queues > 1) {
		ec->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		ec->rx_adv_conf.rss_conf.rss_hf =
			di->flow_type_rss_offloads & (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP);
	}
}

static int
port_setup_queues(struct net_port *port, const struct net_port_conf *conf)
{
	uint16_t pid = port->info.port_id;
	uint16_t nrx = conf->nb_desc != 0 ? conf->nb_desc : NET_PORT_DEFAULT_DESC;
	uint16_t ntx = nrx;
	uint16_t q;
	int rc;

	rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nrx, &ntx);
	for (q = 0; rc == 0 && q < port->info.n_queues; q++) {
		rc = rte_eth_rx_queue_setup(pid, q, nrx, port->info.socket, NULL, port->pool);
		if (rc == 0) {
			rc = rte_eth_tx_queue_setup(pid, q, ntx, port->info.socket, NULL);
		}
	}
	return rc;
}

static int
port_setup_lcores(struct net_port *port)
{
	unsigned int i;
	char name[RTE_RING_NAMESIZE];

	for (i = 0; i < port->info.n_lcores; i++) {
		struct net_port_lcore *lc = &port->lc[i];

		lc->port = port;
		lc->idx = i;
		lc->rxq = i < port->info.n_queues ? i : UINT16_MAX;
		lc->txq = i % port->info.n_queues;
		lc->txb = rte_zmalloc_socket("net_txb", RTE_ETH_TX_BUFFER_SIZE(NET_PORT_BURST), 0,
					     port->info.socket);
		snprintf(name, sizeof(name), "net_st_%u_%u", port->info.port_id, i);
		lc->steer = rte_ring_create(name, NET_PORT_STEER_RING, port->info.socket,
					    RING_F_SC_DEQ);
		if (lc->txb == NULL || lc->steer == NULL) {
			return -ENOMEM;
		}
		rte_eth_tx_buffer_init(lc->txb, NET_PORT_BURST);
		/* Frames the PMD refuses at a flush are freed and counted. */
		rte_eth_tx_buffer_set_err_callback(lc->txb, rte_eth_tx_buffer_count_callback,
						   &lc->stats.tx_drops);
		rte_spinlock_init(&port->txq_lock[i]);
	}
	port->txq_shared = port->info.n_lcores > port->info.n_queues;
	return 0;
}

static int
port_register_poller(void *arg)
{
	struct net_port_lcore *lc = arg;

	lc->poller = rt_poller_register(rt_lcore_self(), port_poll, lc, 0, "net_port");
	return lc->poller != NULL ? 0 : -ENOMEM;
}

static int
port_unregister_poller(void *arg)
{
	struct net_port_lcore *lc = arg;

	rt_poller_unregister(&lc->poller);
	return 0;
}

static int
port_register_link_poller(void *arg)
{
	struct net_port *port = arg;

	port->link_poller = rt_poller_register(rt_lcore_self(), port_link_poll, port,
					       port->link_poll_us, "net_link");
	return port->link_poller != NULL ? 0 : -ENOMEM;
}

static int
port_unregister_link_poller(void *arg)
{
	struct net_port *port = arg;

	rt_poller_unregister(&port->link_poller);
	return 0;
}

static int
port_attach_pollers(struct net_port *port)
{
	unsigned int i;
	int rc;

	for (i = 0; i < port->info.n_lcores; i++) {
		rc = rt_lcore_call(rt_data_lcore(port->rt, i), port_register_poller, &port->lc[i]);
		if (rc != 0) {
			return rc;
		}
	}
	return rt_lcore_call(rt_mgmt_lcore(port->rt), port_register_link_poller, port);
}

static int
port_set_mac(struct net_port *port, const struct rte_ether_addr *mac)
{
	int rc;

	if (mac == NULL) {
		return rte_eth_macaddr_get(port->info.port_id, &port->info.mac);
	}
	port->info.mac = *mac;
	rc = rte_eth_dev_default_mac_addr_set(port->info.port_id, &port->info.mac);
	/* A PMD that cannot take a MAC filters nothing by it either. */
	return rc == -ENOTSUP ? 0 : rc;
}

/* A queue pair per data lcore, as far as the PMD has them; at least one. */
static uint16_t
port_queue_count(uint16_t n_lcores, const struct rte_eth_dev_info *di)
{
	uint16_t n = n_lcores;

	if (di->max_rx_queues < n) {
		n = di->max_rx_queues;
	}
	if (di->max_tx_queues < n) {
		n = di->max_tx_queues;
	}
	return n > 0 ? n : 1;
}

static int
port_configure(struct net_port *port, const struct net_port_conf *conf)
{
	struct rte_eth_dev_info di;
	struct rte_eth_conf ec;
	uint16_t pid = port->info.port_id;
	int rc;

	rc = rte_eth_dev_info_get(pid, &di);
	if (rc != 0) {
		return rc;
	}
	port->dev = di.device;
	port->info.socket = rte_eth_dev_socket_id(pid) >= 0 ? rte_eth_dev_socket_id(pid) : 0;
	port->info.n_queues = port_queue_count(port->info.n_lcores, &di);
	memset(&ec, 0, sizeof(ec));
	port_negotiate(port, &di, &ec);
	rc = rte_eth_dev_configure(pid, port->info.n_queues, port->info.n_queues, &ec);
	if (rc != 0) {
		return rc;
	}
	port->pool = pool_get(port->info.socket,
			      conf->nb_mbufs != 0 ? conf->nb_mbufs : NET_PORT_DEFAULT_MBUFS);
	if (port->pool == NULL) {
		return -ENOMEM;
	}
	rc = port_setup_queues(port, conf);
	if (rc == 0 && conf->mtu != 0) {
		rc = rte_eth_dev_set_mtu(pid, conf->mtu);
	}
	if (rc == 0 && rte_eth_dev_get_mtu(pid, &port->info.mtu) != 0) {
		port->info.mtu = RTE_ETHER_MTU;
	}
	if (rc == 0) {
		rc = port_set_mac(port, conf->mac);
	}
	return rc != 0 ? rc : port_setup_lcores(port);
}

int
net_port_open(struct rt_runtime *rt, const struct net_port_conf *conf, struct net_port **out)
{
	struct net_port *port;
	int rc;

	*out = NULL;
	if (rt == NULL || conf == NULL || conf->conf_size < sizeof(*conf) ||
	    rt_data_lcore_count(rt) == 0) {
		return -EINVAL;
	}
	port = calloc(1, sizeof(*port));
	if (port == NULL) {
		return -ENOMEM;
	}
	port->rt = rt;
	port->state = NET_PORT_CONFIGURED;
	port->info.n_lcores = RTE_MIN(rt_data_lcore_count(rt), (unsigned int)NET_PORT_MAX_LCORES);
	port->link_poll_us =
		conf->link_poll_us != 0 ? conf->link_poll_us : NET_PORT_DEFAULT_LINK_POLL_US;
	port->link_fn = conf->link_fn;
	port->link_arg = conf->link_arg;
	rc = port_find(conf, port);
	if (rc == 0) {
		rc = port_configure(port, conf);
	}
	if (rc == 0) {
		rc = port_attach_pollers(port);
	}
	if (rc != 0) {
		net_port_close(port);
		return rc < 0 ? rc : -rc;
	}
	*out = port;
	return 0;
}

static int
port_start_on_mgmt(void *arg)
{
	struct net_port *port = arg;
	int rc;

	if (port->state != NET_PORT_CONFIGURED) {
		return -EBUSY;
	}
	rc = rte_eth_dev_start(port->info.port_id);
	if (rc != 0) {
		return rc;
	}
	__atomic_store_n(&port->started, true, __ATOMIC_RELEASE);
	rc = port_set_state(port, NET_PORT_LINK_DOWN);
	port_link_update(port);
	return rc;
}

int
net_port_start(struct net_port *port)
{
	return rt_lcore_call(rt_mgmt_lcore(port->rt), port_start_on_mgmt, port);
}

static int
port_stop_on_mgmt(void *arg)
{
	struct net_port *port = arg;

	if (port->state != NET_PORT_CONFIGURED && port->state != NET_PORT_STOPPED) {
		rte_eth_dev_stop(port->info.port_id);
	}
	if (port->state != NET_PORT_STOPPED) {
		port_set_state(port, NET_PORT_STOPPED);
	}
	return 0;
}

static void
port_free_lcores(struct net_port *port)
{
	struct rte_mbuf *m;
	unsigned int i;

	for (i = 0; i < port->info.n_lcores; i++) {
		struct net_port_lcore *lc = &port->lc[i];

		if (lc->txb != NULL) {
			/* Frames still buffered never went out. */
			while (lc->txb->length > 0) {
				rte_pktmbuf_free(lc->txb->pkts[--lc->txb->length]);
			}
			rte_free(lc->txb);
		}
		while (lc->steer != NULL && rte_ring_dequeue(lc->steer, (void **)&m) == 0) {
			rte_pktmbuf_free(m);
		}
		rte_ring_free(lc->steer);
	}
}

void
net_port_close(struct net_port *port)
{
	unsigned int i;

	if (port == NULL) {
		return;
	}
	/* The pollers go first: once the calls return, no lcore touches the queues. */
	for (i = 0; i < port->info.n_lcores; i++) {
		if (port->lc[i].poller != NULL) {
			rt_lcore_call(rt_data_lcore(port->rt, i), port_unregister_poller,
				      &port->lc[i]);
		}
	}
	if (port->link_poller != NULL) {
		rt_lcore_call(rt_mgmt_lcore(port->rt), port_unregister_link_poller, port);
	}
	__atomic_store_n(&port->started, false, __ATOMIC_RELEASE);
	rt_lcore_call(rt_mgmt_lcore(port->rt), port_stop_on_mgmt, port);
	port_free_lcores(port);
	if (port->devname[0] != '\0' && rte_eth_dev_is_valid_port(port->info.port_id)) {
		rte_eth_dev_close(port->info.port_id);
		/* What we probed goes from its bus (vdev, PCI) too. */
		if (port->probed && port->dev != NULL) {
			rte_dev_remove(port->dev);
		}
	}
	if (port->pool != NULL) {
		pool_put(port->info.socket);
	}
	free(port);
}

static bool
port_mcast_joined(const struct net_port *port, const struct rte_ether_addr *mac)
{
	unsigned int i;

	for (i = 0; i < port->n_mcast; i++) {
		if (rte_is_same_ether_addr(&port->mcast[i], mac)) {
			return true;
		}
	}
	return false;
}

int
net_port_mcast_join(struct net_port *port, const struct rte_ether_addr *mac)
{
	uint16_t pid = port->info.port_id;

	if (!rte_is_multicast_ether_addr(mac) || rte_is_broadcast_ether_addr(mac)) {
		return -EINVAL;
	}
	if (port_mcast_joined(port, mac)) {
		return -EEXIST;
	}
	if (port->mcast_mode == NET_PORT_MCAST_ALL || port->mcast_mode == NET_PORT_MCAST_PMD) {
		return 0; /* already let in */
	}
	if (port->n_mcast < NET_PORT_MAX_MCAST) {
		port->mcast[port->n_mcast] = *mac;
		if (rte_eth_dev_set_mc_addr_list(pid, port->mcast, port->n_mcast + 1) == 0) {
			port->n_mcast++;
			port->mcast_mode = NET_PORT_MCAST_LIST;
			return 0;
		}
	}
	/* No list in this PMD, or a full one: every group, which the RX path filters anyway. */
	port->mcast_mode =
		rte_eth_allmulticast_enable(pid) == 0 ? NET_PORT_MCAST_ALL : NET_PORT_MCAST_PMD;
	return 0;
}

enum net_port_mcast_mode
net_port_mcast_mode(const struct net_port *port)
{
	return port->mcast_mode;
}
