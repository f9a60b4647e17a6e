/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Control-plane queries for the daemon (what lnetctl shows). Every call runs
 * its work on the management lcore and may be made from any thread that is
 * not a logical lcore, such as DPDK's telemetry thread.
 */
#ifndef LNET_CTL_H
#define LNET_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs_nid.h"
#include "lnet_tunables.h"
#include "lnp_api.h"

LNP_BEGIN_DECLS

/** One local NI as `lnetctl net show -v` prints it. */
struct lnet_ctl_ni {
	struct lnet_nid nid;
	uint32_t net;
	bool up;
	char ifname[LNET_CTL_IFNAMSIZ]; /**< "" when the NI has no interface */
	unsigned int nlnd_tunables;
	struct lnet_ctl_lnd_tunable lnd_tunables[LNET_CTL_LND_TUNABLES];
	char transport[16]; /**< "socket", "eth" (lnet_lnd_ops.transport); "" none */
	uint64_t send_count;
	uint64_t recv_count;
	uint64_t drop_count;
	uint64_t sent[5]; /**< put, get, reply, ack, hello (sent_stats order) */
	uint64_t received[5];
	uint64_t dropped[5];
	int health_value;
	int fatal_error; /**< 1 while its link is down (the kernel's ni_fatal_error_on) */
	/** health stats (net show -v 2): local failures by kind, recovery pings */
	uint32_t hs_interrupts;
	uint32_t hs_dropped;
	uint32_t hs_aborted;
	uint32_t hs_no_route;
	uint32_t hs_timeouts;
	uint32_t hs_error;
	uint32_t ping_count;
	int64_t next_ping; /**< seconds (CLOCK_MONOTONIC) of the next recovery ping; 0 none */
	int peer_timeout;
	int peer_credits;
	int peer_buffer_credits;
	int credits;
	int dev_cpt;           /**< -1 when unknown */
	char cpts[64];         /**< "[0,1]" */
	int udsp_net_priority; /**< UDSP priority of its net, -1 when no rule applies */
	int udsp_nid_priority; /**< UDSP priority of the NI, -1 when no rule applies */
};

/** NIDs of one peer returned by a listing (more are not listed). */
#define LNET_CTL_PEER_MAX_NIS 64

/** A configured peer: nis[0] is its primary NID. */
struct lnet_ctl_peer {
	uint64_t seq; /**< cursor that lists from this peer on */
	bool mr;
	unsigned int nnis;       /**< in nis[] */
	unsigned int nnis_total; /**< the peer's NIDs */
	struct lnet_nid nis[LNET_CTL_PEER_MAX_NIS];
	uint32_t state; /**< the kernel's lp_state bits we keep (LNET_CTL_PEER_*) */
};

/*
 * The kernel's peer state bits (lp_state, `peer show -v 3` "peer state")
 * this node keeps: discovery's bits come with discovery.
 */
#define LNET_CTL_PEER_MULTI_RAIL 0x1U
#define LNET_CTL_PEER_NO_DISCOVERY 0x2U
#define LNET_CTL_PEER_CONFIGURED 0x8U
#define LNET_CTL_PEER_DISCOVERED 0x10U
#define LNET_CTL_PEER_DISCOVERING 0x40U
#define LNET_CTL_PEER_DATA_PRESENT 0x80U
#define LNET_CTL_PEER_NIDS_UPTODATE 0x100U
#define LNET_CTL_PEER_PING_SENT 0x200U
#define LNET_CTL_PEER_PUSH_SENT 0x400U
#define LNET_CTL_PEER_PING_FAILED 0x800U
#define LNET_CTL_PEER_LOCK_PRIMARY 0x100000U

/** Runtime state of one peer NI (lnet-facts §12.4). */
struct lnet_ctl_peer_ni {
	int max_tx_credits;
	int tx_credits;
	int min_tx_credits;
	uint64_t txqnob;
	int rtr_credits;
	int min_rtr_credits;
	uint64_t send_count;
	uint64_t recv_count;
	uint64_t drop_count;
	uint64_t sent[5]; /**< put, get, reply, ack, hello (sent_stats order) */
	uint64_t received[5];
	uint64_t dropped[5];
	int health_value;    /**< 0..LNET_CTL_MAX_HEALTH */
	uint32_t hs_dropped; /**< health stats: remote dropped, timeout, error */
	uint32_t hs_timeout;
	uint32_t hs_error;
	uint32_t hs_network_timeout;
	uint32_t ping_count; /**< recovery pings since it was last heard from */
	int64_t next_ping;   /**< seconds (CLOCK_MONOTONIC) of the next one; 0 none */
};

/**
 * Add a peer with @p prim as its primary NID, then @p nids to it, as 2.17's
 * lnetctl peer add has the kernel do it (lnet_peer_add, then
 * lnet_add_peer_ni for each NID): a peer traffic, discovery or a route made
 * is made again as a configured one, NIDs of such peers are taken from
 * them; a configured peer's NIDs are refused. The NIDs go in turn, up to
 * the first refused; @p err explains a refusal.
 */
LNP_API int lnet_ctl_peer_add(const struct lnet_nid *prim, const struct lnet_nid *nids,
			      unsigned int n, bool mr, char *err, size_t errlen);
/**
 * Delete a peer, or some of its secondary NIDs in turn (up to the first
 * refused); a NID that is the primary deletes the peer, as 2.17's
 * lnet_del_peer_ni.
 */
LNP_API int lnet_ctl_peer_del(const struct lnet_nid *prim, const struct lnet_nid *nids,
			      unsigned int n, char *err, size_t errlen);
/**
 * lnet_ctl_peer_add() that can also lock the primary NID (peer add
 * --lock_prim): nothing but a forced delete removes that NID from the peer.
 */
LNP_API int lnet_ctl_peer_add_lock(const struct lnet_nid *prim, const struct lnet_nid *nids,
				   unsigned int n, bool mr, bool lock_prim, char *err,
				   size_t errlen);
/**
 * Only the NIDs of lnet_ctl_peer_add_lock(), each in turn, to the
 * configured peer whose primary NID is @p prim (2.17's lnet_add_peer_ni
 * with a NID, as each "peer ni" entry of a peer add asks): -ENOENT when no
 * configured peer has @p prim, -ENODEV when it is not its primary.
 */
LNP_API int lnet_ctl_peer_add_nids(const struct lnet_nid *prim, const struct lnet_nid *nids,
				   unsigned int n, bool mr, bool lock_prim, char *err,
				   size_t errlen);
/**
 * lnet_ctl_peer_del() as the kernel deletes with and without --force: a
 * peer whose primary is locked keeps it (only its other NIDs go) unless
 * @p force.
 */
LNP_API int lnet_ctl_peer_del_force(const struct lnet_nid *prim, const struct lnet_nid *nids,
				    unsigned int n, bool force, char *err, size_t errlen);
/**
 * Up to @p max peers from @p cursor (0: the first) in insertion order, or
 * the one peer owning @p only. *next is the cursor of the following page,
 * 0 at the end. @return number filled, or -errno.
 */
LNP_API int lnet_ctl_peer_list(uint64_t cursor, const struct lnet_nid *only,
			       struct lnet_ctl_peer *out, unsigned int max, uint64_t *next);
/** Runtime state of a peer NI, read on the data lcore that owns it. */
/** One named count; names are static strings. */
struct lnet_ctl_counter {
	const char *name;
	uint64_t value;
};

#define LNET_CTL_DISC_COUNTERS_MAX 48

/**
 * Discovery's counters (telemetry /lnet/discovery_show): peers by discovery
 * state, messages held, and every input refused or not acted on: events the
 * state table refused, stale REPLYs, ACKs and timers, ping or push data
 * refused by reason, NIDs a merge would not take.
 */
struct lnet_ctl_discovery {
	bool enabled;
	unsigned int n;
	struct lnet_ctl_counter c[LNET_CTL_DISC_COUNTERS_MAX];
};

LNP_API int lnet_ctl_discovery_get(struct lnet_ctl_discovery *out);

/**
 * `lnetctl discover [--force] NID`: discover the peer owning @p nid (made if
 * unknown) and wait until its discovery ends. As the kernel's, it pings the
 * peer even when discovered already or when discovery is off (`set
 * discovery 0`: one ping, no push); @p force also pushes to it. 0 and @p
 * out filled (the peer as discovery left it), or -errno with @p err
 * (-ETIMEDOUT, -EHOSTUNREACH... when the ping failed).
 */
LNP_API int lnet_ctl_discover(const struct lnet_nid *nid, bool force, struct lnet_ctl_peer *out,
			      char *err, size_t errlen);
/**
 * For threads that make control calls while another may call LNetNIFini
 * (the daemon's telemetry clients, which nobody joins): 0 and the instance
 * held, or -ESHUTDOWN once LNetNIFini has begun. LNetNIFini ends every wait
 * for the network inside a control call (a discover answers -ESHUTDOWN; a
 * ping's GET fails as its NI goes), then waits for each hold to be
 * released before it frees what they use.
 */
LNP_API int lnet_ctl_hold(void);
LNP_API void lnet_ctl_release(void);
/**
 * How many times LNetNIFini has looked at the holds, found one outstanding
 * and waited: lets a test see LNetNIFini blocked on a hold it controls,
 * without guessing how long that takes.
 */
unsigned int lnet_ctl_hold_waits(void);
LNP_API int lnet_ctl_peer_ni_state(const struct lnet_nid *nid, struct lnet_ctl_peer_ni *out);

/** Local NIs, lo first, in configuration order. @return count (up to @p max) or -errno. */
LNP_API int lnet_ctl_ni_list(struct lnet_ctl_ni *out, unsigned int max);

/** Current global settings. */
LNP_API int lnet_ctl_global_get(struct lnet_ctl_global *out);

/** Tunables of a new NI (lnetctl net add --peer-credits etc.). */
struct lnet_ctl_ni_tunables {
	int peer_timeout;
	int peer_credits;
	int peer_buffer_credits;
	int credits;
};

/**
 * Add a NI on the LND its NID's type names, on interface @p ifname (NULL
 * or "": none), owned by CPT @p cpt, with LND tunables @p lnd_tun (NULL:
 * none given, the LND's module parameters give them all). The ping target is re-posted with the new NI set, in
 * the same operation on the management lcore (concurrent adds and deletes
 * run one after the other). Call from a thread that is not an lcore.
 */
LNP_API int lnet_ctl_ni_add(const struct lnet_nid *nid, const char *ifname,
			    const struct lnet_ctl_ni_tunables *tun,
			    const struct lnet_ctl_lnd_tunables *lnd_tun, unsigned int cpt,
			    char *err, size_t errlen);

/**
 * Delete a NI (net del): its connections close, every message still
 * queued on it completes with -ENETDOWN, and the ping target is re-posted
 * without it, as one operation on the management lcore. 0@lo cannot be
 * deleted. Call from a thread that is not an lcore. The NI's memory is
 * freed (after an RCU grace period) once no message references it.
 */
LNP_API int lnet_ctl_ni_del(const struct lnet_nid *nid, char *err, size_t errlen);
/**
 * lnet_ctl_ni_del(), and with @p push false the new ping target is not
 * pushed to Multi-Rail peers: `lnet unconfigure`, which the kernel does as
 * a shutdown that pushes nothing (s1_07).
 */
LNP_API int lnet_ctl_ni_remove(const struct lnet_nid *nid, bool push, char *err, size_t errlen);

/**
 * The LND counters of local NI @p nid, read on its data lcore.
 * @return number filled (up to @p max), or -errno (-ENOENT: no such NI).
 */
LNP_API int lnet_ctl_lnd_counters(const struct lnet_nid *nid, struct lnet_ctl_lnd_counter *out,
				  unsigned int max);

struct lnet_pcap;

/**
 * Start (@p cap: a capture opened with lnet_pcap_open(), lib/pcap) or stop
 * (NULL) recording local NI @p nid's traffic, on its data lcore.
 * -EOPNOTSUPP when its LND cannot.
 */
LNP_API int lnet_ctl_ni_capture(const struct lnet_nid *nid, struct lnet_pcap *cap);

/** max_interfaces below this minimum falls back to the default (the kernel's). */
#define LNET_CTL_INTERFACES_MIN 16
#define LNET_CTL_INTERFACES_DEFAULT 200

/**
 * Set a global tunable (lnetctl set, import, --config) with the kernel's
 * checks: -EINVAL for a value it refuses (@p err says which), -EOPNOTSUPP
 * for a key that is not a setting (lnd_timeout is derived). Each one of
 * `global show` is stored and shown; transaction_timeout and
 * response_tracking have behaviour, max_interfaces bounds the local NIs (a
 * net add beyond it fails with -ENOSPC), numa_range flattens the NUMA
 * distances local NI selection ranks (lnet_ni_distance), the others are
 * kept for the capabilities that use them (health, discovery, routing).
 */
LNP_API int lnet_ctl_global_set(const char *key, int value, char *err, size_t errlen);

/** The highest health value (the kernel's LNET_MAX_HEALTH_VALUE). */
#define LNET_CTL_MAX_HEALTH 1000

/**
 * Set the health value of local NI @p nid, or of every NI that has one
 * (@p nid NULL: lnetctl net set --all). -ENOENT: no such NI; -EINVAL: out
 * of 0..LNET_CTL_MAX_HEALTH.
 */
LNP_API int lnet_ctl_ni_health_set(const struct lnet_nid *nid, int value, char *err, size_t errlen);

/** The push target's counters and the last push taken (telemetry /lnet/push_show). */
struct lnet_ctl_push {
	uint64_t received;         /**< pushes matched (each ACKed if the peer asked) */
	uint64_t accepted;         /**< whole, valid ping info of a Multi-Rail peer */
	uint64_t truncated;        /**< bigger than the target, which then grows */
	uint64_t invalid;          /**< not ping info, or not from a Multi-Rail peer */
	uint64_t errors;           /**< completed with an error */
	unsigned int target_bytes; /**< room for one push (the kernel's push target size) */
	bool has_last;             /**< the last_* fields describe an accepted push */
	struct lnet_nid last_src;
	struct lnet_nid last_primary;
	uint32_t last_seqno;
	uint32_t last_features;
	unsigned int last_nnis; /**< NIs after 0@lo */
};

/** A snapshot of the push target's counters, read on the lcore that owns it. */
LNP_API int lnet_ctl_push_get(struct lnet_ctl_push *out);

/**
 * Set the health value of peer NI @p nid, or of every peer NI (@p nid NULL:
 * lnetctl peer set --all); below the maximum it joins recovery if it was
 * ever heard from, as the kernel's. -ENOENT: no such peer NI; -EINVAL: out
 * of 0..LNET_CTL_MAX_HEALTH.
 */
LNP_API int lnet_ctl_peer_ni_health_set(const struct lnet_nid *nid, int value, char *err,
					size_t errlen);

/**
 * lnetctl debug recovery: the NIDs of the local NIs (@p local) or peer NIs
 * waiting for health recovery, in queue order; the first @p max in @p out,
 * how many there are in @p total.
 */
LNP_API int lnet_ctl_recovery_list(bool local, struct lnet_nid *out, unsigned int max,
				   unsigned int *total);

/** Number of CPTs. */
LNP_API int lnet_ctl_ncpts(void);

/** One logical lcore's loop counters (telemetry /lnet/lcore_stats). */
struct lnet_ctl_lcore {
	bool mgmt; /**< the management lcore; else the data lcore of cpt */
	int cpt;
	uint64_t loops;                /**< loop iterations */
	uint64_t busy_loops;           /**< ... that did work */
	uint64_t msgs;                 /**< messages from other lcores run */
	uint64_t timers;               /**< timers fired */
	uint64_t send_full;            /**< hand-offs to it refused by a full ring */
	uint64_t sleeps;               /**< idle sleeps of its thread */
	uint64_t max_gap_us;           /**< longest time it could not poll (rt_lcore_stats) */
	uint64_t oversleeps;           /**< its thread's sleeps that ended a stall threshold late */
	uint64_t oversleep_longest_us; /**< the longest overshoot */
	/* What the stall watchdog saw (rt_lcore_stalls): */
	uint64_t stalls;           /**< polls that ran past the threshold */
	uint64_t stall_longest_us; /**< the longest */
	uint64_t stall_last_us;    /**< the last (or the one going on) */
	bool stall_ongoing;        /**< the last has not ended */
	uint64_t
		stalls_blocked; /**< stalls whose thread was blocked in a system call (not preempted) */
	char stall_state;       /**< the last one's thread state: 'R', 'S', 'D'; 0 not known */
	long stall_syscall;     /**< ... the system call it was in; -1 none or not known */
	const char *stall_step; /**< its step: "message", "poller", "timer", ... */
	char stall_fn[64];      /**< the step's function (symbol or module+offset) */
};

/**
 * Ring hops: how many times a message (or a note of it) changed lcores,
 * by its kind, summed over the data lcores and the management lcore
 * (telemetry /lnet/stats_show, `lnetctl stats show`: hops_*). Reset with
 * the counters (lnet_counters_reset).
 */
struct lnet_ctl_hops {
	uint64_t put;
	uint64_t get;
	uint64_t ack;
	uint64_t reply;
	uint64_t forward; /**< messages this node forwarded, any type */
	/**
	 * Not hops: received payloads for an MD on another lcore that their
	 * LND could not lend (lnet_lnd_ops.recv_take), each of which then
	 * crossed back to its NI's lcore for the LND's recv (2 hops more).
	 */
	uint64_t rx_unlent;
};

/** The hop counts now. @return 0 or -errno. */
LNP_API int lnet_ctl_hops_get(struct lnet_ctl_hops *out);

/**
 * Gets that found a pool empty since the counters were last reset
 * (lnet_counters_reset), over every lcore and thread (telemetry
 * /lnet/stats_show, `lnetctl stats show`: pool_msg_empty).
 */
struct lnet_ctl_pools {
	uint64_t msg_empty; /**< the message pool's: each a message not made (dropped, -ENOMEM) */
};

/** The pool counts now. @return 0 or -errno. */
LNP_API int lnet_ctl_pools_get(struct lnet_ctl_pools *out);

/** The stall watchdog's threshold in microseconds; 0 when none watches. */
LNP_API uint64_t lnet_ctl_stall_threshold_us(void);
/**
 * The management lcore then each CPT's data lcore, up to @p max; with
 * @p reset_gap each one's max_gap_us starts again after it is read.
 * @return count or -errno.
 */
LNP_API int lnet_ctl_lcore_stats(struct lnet_ctl_lcore *out, unsigned int max, bool reset_gap);

/** A descriptor of a UDSP rule as the kernel's lnetctl prints it. */
#define LNET_CTL_UDSP_DESCR_LEN 256
/** Preferred NIDs shown per peer NI. */
#define LNET_CTL_UDSP_SHOW_NIDS 32

/** One UDSP rule (`lnetctl udsp show`); a descriptor the rule lacks is "". */
struct lnet_ctl_udsp {
	unsigned int idx;
	char src[LNET_CTL_UDSP_DESCR_LEN];
	char dst[LNET_CTL_UDSP_DESCR_LEN];
	char rte[LNET_CTL_UDSP_DESCR_LEN];
	bool has_priority; /**< a priority rule; else a preferred-list rule */
	uint32_t priority;
};

/**
 * Add a UDSP rule (lnetctl udsp add, import, --config): descriptors in
 * ip2nets syntax (NULL or "": absent), @p priority < 0 for the kernel's
 * "pref" action, @p idx < 0 to append. The rules are applied to every NI
 * and peer before it returns. -EINVAL only for what the kernel lnetctl's
 * library refuses, with its words in @p err (a combination, a descriptor
 * that does not parse); any other error is the node's, @p err "cannot add
 * udsp: ...": -EALREADY for a rule already there (a priority rule with the
 * same descriptors takes the new priority instead), -ENOMEM.
 */
LNP_API int lnet_ctl_udsp_add(const char *src, const char *dst, const char *rte, long priority,
			      int idx, char *err, size_t errlen);
/** Delete the rule at @p idx, or every rule (@p idx < 0), and apply what remains. -ENOENT. */
LNP_API int lnet_ctl_udsp_del(int idx);
/** Rules from index @p start, up to @p max; *total: how many there are. Count or -errno. */
LNP_API int lnet_ctl_udsp_list(unsigned int start, struct lnet_ctl_udsp *out, unsigned int max,
			       unsigned int *total);

/** The UDSP values of one peer NI (`peer show -v 4` "udsp info"). */
struct lnet_ctl_udsp_info {
	int net_priority; /**< of its peer net; -1 when no rule applies */
	int nid_priority;
	unsigned int npref_src; /**< preferred local NIDs (NID pair rules) */
	struct lnet_nid pref_src[LNET_CTL_UDSP_SHOW_NIDS];
	unsigned int npref_gw; /**< preferred gateways (router rules) */
	struct lnet_nid pref_gw[LNET_CTL_UDSP_SHOW_NIDS];
};
/** -ENOENT when no peer has @p nid. */
LNP_API int lnet_ctl_peer_ni_udsp(const struct lnet_nid *nid, struct lnet_ctl_udsp_info *out);

/**
 * What applying the rules costs the management lcore: a change reaches
 * every NI at once and the peers a slice (at most ~200 us) per loop turn.
 */
struct lnet_ctl_udsp_stats {
	unsigned int rules;
	uint64_t applies;       /**< changes applied to every peer */
	uint64_t peers_updated; /**< compositions published again because their values changed */
	uint64_t last_apply_us; /**< the last change: from the change to its last peer */
	uint64_t last_busy_us;  /**< ... of which the management lcore spent working on it */
	uint64_t max_busy_us;
	uint64_t max_slice_us; /**< the longest the lcore was held at once */
};
LNP_API int lnet_ctl_udsp_stats(struct lnet_ctl_udsp_stats *out);

/* ---- routes and routing (issue 16) ---------------------------------------- */

/** Hops of a route added without --hop (the kernel's LNET_UNDEFINED_HOPS, shown as -1). */
#define LNET_CTL_UNDEFINED_HOPS UINT32_MAX
/** The kernel's default route priority and gateway health sensitivity. */
#define LNET_CTL_ROUTE_PRIO_DEFAULT 0
/** One route as `lnetctl route show -v` prints it. */
struct lnet_ctl_route {
	uint32_t net;                /**< the remote net */
	struct lnet_nid gateway;     /**< the gateway NID as added */
	uint32_t hops;               /**< 1..255 or LNET_CTL_UNDEFINED_HOPS */
	uint32_t priority;           /**< 0 is the best */
	uint32_t health_sensitivity; /**< as added (0: the global router_sensitivity) */
	bool alive;                  /**< "state: up" */
	bool single_hop;             /**< "type: single-hop": the gateway has an NI on net */
};
/**
 * `route add`, with the kernel's refusals: -EINVAL (ANY or 0@lo gateway, a
 * remote net that is ANY or lo, a gateway on the remote net itself, hops
 * outside 1..255 unless LNET_CTL_UNDEFINED_HOPS), -EEXIST (the remote net
 * is local, or a route to it through that gateway peer exists),
 * -EHOSTUNREACH (no local NI on the gateway's net); @p err says which.
 * The gateway becomes a peer, discovered at once.
 */
LNP_API int lnet_ctl_route_add(uint32_t net, const struct lnet_nid *gateway, uint32_t hops,
			       uint32_t priority, uint32_t health_sensitivity, char *err,
			       size_t errlen);
/**
 * `route del`: the routes to @p net (LNET_NET_ANY: every net) through the
 * peer owning @p gateway (NULL: any gateway). -ENOENT when @p net has no
 * route at all, as the kernel's; 0 otherwise, even when nothing matched.
 */
LNP_API int lnet_ctl_route_del(uint32_t net, const struct lnet_nid *gateway, char *err,
			       size_t errlen);
/** Routes in the kernel's listing order. @return how many there are (fills up to @p max), or -errno. */
LNP_API int lnet_ctl_route_list(struct lnet_ctl_route *out, unsigned int max);

struct lnet_ctl_rtr_pool {
	int npages; /**< pages a buffer holds: 0, 1, 256 */
	int nbuffers;
	int credits; /**< may be negative: messages waiting */
	int mincredits;
};
/** CPTs `routing show` lists at most (LNP_MAX_CPTS of the default build). */
#define LNET_CTL_ROUTING_CPTS 64
/** `lnetctl routing show` and `buffers`. */
struct lnet_ctl_routing {
	int enable;         /**< LNET_CTL_ROUTING_* */
	unsigned int ncpts; /**< pools[0..ncpts) are filled (0 while never enabled) */
	struct lnet_ctl_rtr_pool pools[LNET_CTL_ROUTING_CPTS][LNET_CTL_RTR_NPOOLS];
	int buffers[LNET_CTL_RTR_NPOOLS]; /**< the configured totals over all CPTs (0: default) */
	uint32_t forward_delay_s; /**< of the STARTING state: ping timeout + check interval */
};
LNP_API int lnet_ctl_routing_get(struct lnet_ctl_routing *out);
/**
 * `set routing 1|0`: 1 allocates the pools and starts forwarding after
 * the kernel's delay (STARTING, then ENABLED); 0 stops it (STOPPING until
 * the buffers are back, then DISABLED). -EBUSY enabling while stopping.
 */
LNP_API int lnet_ctl_routing_set(bool enable, char *err, size_t errlen);
/**
 * `set tiny_buffers|small_buffers|large_buffers N`: the total over all
 * CPTs (divided between them, at least the kernel's minimum per CPT); 0
 * gives the default. -EINVAL for a negative count. Resizes live pools.
 */
LNP_API int lnet_ctl_buffers_set(enum lnet_ctl_rtr_pool_kind kind, int total, char *err,
				 size_t errlen);

/**
 * The lnet module parameters lnetd-pmd takes (lnetd-pmd --lnet-params), by
 * the kernel's names: alive_router_check_interval (60),
 * router_ping_timeout (50), check_routers_before_use (0),
 * avoid_asym_router_failure (1), tiny_router_buffers,
 * small_router_buffers, large_router_buffers (0: the defaults), as
 * /sys/module/lnet/parameters. -ENOENT for another name, -EINVAL for a
 * value the kernel refuses.
 */
LNP_API int lnet_ctl_param_set(const char *name, int value, char *err, size_t errlen);
LNP_API int lnet_ctl_param_get(const char *name, int *value);

LNP_END_DECLS

#endif /* LNET_CTL_H */
