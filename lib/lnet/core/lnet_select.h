/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-Rail path selection as a pure function (lnet-facts §7, seed 000's
 * selection): which local NI sends a message, to which NID of the peer.
 * No allocation, no lock, no division, no state: read-only views in, a
 * choice out. The rules and tie-breaks are the kernel's (2.17 lib-move.c)
 * in the same order, so two nodes with the same inputs pick the same path.
 *
 * Filling the views (lnet_send_mr.c, in the destination NID's shard):
 *   - struct lnet_sel_local: the local nets and their NIs from the
 *     RCU-published NI table, NIs grouped by net (net.first_ni, net.nr_nis),
 *     cached per CPT; tx credits and seq read from the NIs as they are;
 *     net.health is the best health among its NIs (the kernel's
 *     lnet_get_net_healthv_locked); the CPT distance matrix and numa_range
 *     from the node's topology. Loopback (0@lo) is not in the view.
 *   - struct lnet_sel_peer: the peer's composition as published by the
 *     management lcore (nets and NIs, peer NIs grouped by peer net in the
 *     kernel's order, primary first), with the peer NIs' credits and seqs
 *     read from their shards. pref_nids is the kernel's lpni_pref list: the
 *     sticky local NID of a non-Multi-Rail peer NI, or UDSP preferred NIDs.
 *   - struct lnet_sel_msg: the caller's source NID (ANY or given),
 *     destination, MD's CPT. ACKs and REPLYs do not come here: they leave
 *     on the NI the request arrived on, to the exact NID, as the kernel's.
 *     A destination that is one of our own NIs is the caller's loopback
 *     before it gets here; only 0@lo is recognised.
 *
 * Using the result (struct lnet_sel_result): send from local->nis[ni] to
 * peer->nis[peer_ni] (0@lo through the loopback NI when LNET_SEL_LOOPBACK).
 * When stamp_seq is set the chosen path takes its turn, as the kernel's
 * lnet_handle_send gives the chosen NI, net, peer NI and peer net ever
 * growing sequence numbers (the wiring gives each lcore its own counter and
 * its own slot of each NI's and peer NI's number: round robin per lcore, no
 * counter or cache line shared between lcores). When record_pref is set the peer NI
 * keeps local->nis[ni].nid as its preferred NID (the wiring keeps it in the
 * destination's peer NI, ignored once the peer is Multi-Rail, as the
 * kernel's lnet_peer_clr_non_mr_pref_nids drops it). md_cpt: the caller's
 * CPT when the MD has none, as the kernel does. Cost (gcc -O2, callgrind):
 * a PUT's selection plus its ACK's is about 410 instructions with one NI
 * and one peer NI, 530 with two of each.
 *
 * Health (seed 004, cases A1C..B2D by name in lnet_select.c): NIs and
 * peer NIs are ranked by health first; a resend marks the path that
 * failed (avoid) so it is taken only when nothing else is left; a send
 * from a given NI that is down fails; a resend to a non-Multi-Rail peer
 * fails when the source is fixed or the peer NI is unhealthy.
 *
 * Routes (seed 004 A2C, A2D, B2C, B2D; lnet-facts §7.5): a destination on
 * a net we have no NI on is reached through a gateway of a route to its
 * net, chosen by lnet_select_routed() from struct lnet_sel_routes: the
 * route (alive, UDSP-preferred gateway, priority, hops, then the gateway's
 * best peer NI by health, queued bytes, credits, then round robin), the
 * gateway's peer NI, and the local NI on that peer NI's net. The header
 * keeps the final destination: res.peer_ni (in @peer) is it, res.route and
 * res.gw_ni say where the message goes first.
 *
 * Not here yet: GPU device priority (the field exists; neutral values make
 * it a no-op).
 */
#ifndef LNET_SELECT_H
#define LNET_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "cfs_nid.h"

/* Send-case bits, as the kernel's lnet_select_pathway classifies. */
enum lnet_sel_case {
	LNET_SEL_SRC_ANY = 1u << 0,
	LNET_SEL_SRC_SPEC = 1u << 1,
	LNET_SEL_LOCAL_DST = 1u << 2,
	LNET_SEL_REMOTE_DST = 1u << 3,
	LNET_SEL_MR_DST = 1u << 4,
	LNET_SEL_NMR_DST = 1u << 5,
	LNET_SEL_RESP = 1u << 6,     /* ACK or REPLY: to the exact NID */
	LNET_SEL_LOOPBACK = 1u << 7, /* 0@lo: no selection */
	LNET_SEL_ROUTED = 1u << 8,   /* through a gateway: res.route, res.gw_ni */
};

/* A route's hops when none were given (the kernel's LNET_UNDEFINED_HOPS): ranks as 1. */
#define LNET_SEL_UNDEFINED_HOPS UINT32_MAX

/* The largest health value; UDSP priority when no rule applies (lowest). */
#define LNET_SEL_MAX_HEALTH 1000
#define LNET_SEL_PRIO_NONE UINT32_MAX

/* One local NI. */
struct lnet_sel_ni {
	struct lnet_nid nid;
	int health;        /* 0..LNET_SEL_MAX_HEALTH, higher is better */
	uint32_t sel_prio; /* UDSP, lower is better */
	int dev_cpt;       /* CPT of the device; CFS_CPT_ANY (-1) if unknown */
	int tx_credits;    /* may be negative (messages queued) */
	uint64_t seq;      /* round robin: lower goes first */
	bool fatal;        /* the LND reported a fatal error */
	bool avoid;        /* a resend: the NI the message already failed on */
};

/* One net, local or the peer's; its NIs are nis[first_ni .. first_ni + nr_nis). */
struct lnet_sel_net {
	uint32_t net_id;
	int health;
	uint32_t sel_prio;
	uint64_t seq;
	uint16_t first_ni;
	uint16_t nr_nis;
	/* Local nets: every NI's device on the same CPT, so the distance rule
	 * ties for any MD and is skipped (lnet_sel_nets_mark_same_dist). */
	bool same_dist;
};

struct lnet_sel_local {
	const struct lnet_sel_net *nets;
	const struct lnet_sel_ni *nis;
	uint16_t nr_nets;
	uint16_t nr_nis;
	/* Distance between CPTs: dist[a * ncpts + b]; NULL: all equal. A CPT
	 * outside 0..ncpts-1 (CFS_CPT_ANY) is at dist_far from everything. */
	const uint16_t *dist;
	uint16_t ncpts;
	uint16_t dist_far;
	uint32_t numa_range; /* distances below it count as equal (default 0) */
};

/* One peer NI. */
struct lnet_sel_peer_ni {
	struct lnet_nid nid;
	int health;
	uint32_t sel_prio;
	int tx_credits;
	uint64_t seq;
	const struct lnet_nid *pref_nids; /* the kernel's lpni_pref */
	uint16_t nr_pref_nids;
	const struct lnet_nid *pref_rtrs; /* UDSP preferred gateways (primary NIDs) */
	uint16_t nr_pref_rtrs;
	bool avoid; /* a resend: the peer NI the message already failed on */
	uint64_t
		avoid_with; /* a resend: bit i, it failed on this peer NI from local NI i (a path) */
	uint64_t txqnob;    /* bytes queued to it: ranks a gateway's peer NIs */
};

struct lnet_sel_peer {
	const struct lnet_sel_net *nets;
	const struct lnet_sel_peer_ni *nis;
	uint16_t nr_nets;
	uint16_t nr_nis;
	bool multi_rail;
};

struct lnet_sel_msg {
	struct lnet_nid src; /* LNET_ANY_NID or a local NID */
	struct lnet_nid dst;
	int md_cpt;    /* CPT of the MD's memory (the current CPT if none) */
	bool response; /* ACK or REPLY */
	bool recovery; /* health recovery ping: this peer NI, as non-MR */
	bool reserved; /* on the reserved portal (ping, push): no stickiness */
	bool resend;   /* health resend: seed 004's rules for a second try */
	bool routing;  /* forwarded by this router: the destination NID is kept */
};

/* One route to a remote net, its gateway seen as a peer (lnet-facts §11). */
struct lnet_sel_route {
	uint32_t net;      /* the remote net */
	uint32_t hops;     /* 1..255, or LNET_SEL_UNDEFINED_HOPS */
	uint32_t priority; /* lower is better */
	uint64_t seq;      /* round robin: lower goes first */
	bool alive;
	struct lnet_nid gw_primary;     /* compared with UDSP preferred gateways */
	const struct lnet_sel_peer *gw; /* NULL: the gateway is not known yet */
};

struct lnet_sel_routes {
	const struct lnet_sel_route *routes; /* in the kernel's list order */
	uint16_t nr_routes;
	/* A gateway NI below this health is not alive (router_sensitivity% of
	 * the maximum, the kernel's lnet_is_peer_ni_alive): its routes wait. */
	int min_health;
};

struct lnet_sel_result {
	unsigned int send_case; /* enum lnet_sel_case bits */
	int net;                /* index in local->nets, -1 for loopback */
	int ni;                 /* index in local->nis, -1 for loopback */
	int peer_net;           /* index in peer->nets, -1 for loopback */
	int peer_ni;            /* index in peer->nis, -1 for loopback */
	bool stamp_seq;         /* advance the round-robin counters (above) */
	bool record_pref;       /* record nis[ni].nid as peer NI's preferred */
	int route;              /* LNET_SEL_ROUTED: index in routes, else -1 */
	int gw_ni;              /* ... and the gateway's peer NI sent to */
};

/*
 * Choose the path for @msg to @peer. 0 and @res filled, or:
 * -EINVAL a source NID that is not a local NI; -ENETDOWN the given source
 * NI is down (fatal); -EHOSTUNREACH no local net reaches the peer (and no
 * routes were given), or a resend has no other path (A1D, B1D); -EFAULT the
 * destination NID is missing from @peer (the caller's view is wrong).
 */
int lnet_select(const struct lnet_sel_local *local, const struct lnet_sel_peer *peer,
		const struct lnet_sel_msg *msg, struct lnet_sel_result *res);

/*
 * lnet_select() that reaches remote nets through @routes (NULL: none).
 * -EHOSTUNREACH also when no alive route has a gateway with a peer NI on
 * a local net (on the source NI's net when the source is given).
 */
int lnet_select_routed(const struct lnet_sel_local *local, const struct lnet_sel_peer *peer,
		       const struct lnet_sel_routes *routes, const struct lnet_sel_msg *msg,
		       struct lnet_sel_result *res);

/*
 * A plan: what lnet_select_routed() decides for a destination once its
 * views are known, kept while they stay the same (the wiring keys it on
 * the peer's composition and the NI table). It covers the common message
 * (source ANY; not a response, a recovery ping or a resend) to a peer with
 * one local net to choose: a Multi-Rail peer with exactly one net that is
 * ours (B1C), or a non-Multi-Rail peer on a local net (B1D). Then the nets
 * need no comparing and only that net's NIs are looked at per message.
 * Anything else (routes, two local nets, nothing reachable) has no plan.
 */
enum lnet_sel_plan_kind {
	LNET_SEL_PLAN_NONE = 0,
	LNET_SEL_PLAN_MR,  /* B1C: best NI of net, then best peer NI of pnet */
	LNET_SEL_PLAN_NMR, /* B1D: to dst, from sticky (unless reserved) or the best NI of net */
};

/* A Multi-Rail plan's peer net has at most this many NIs, its local net at most 64. */
#define LNET_SEL_PLAN_MAX_PNIS 16

struct lnet_sel_plan {
	uint8_t kind;       /* enum lnet_sel_plan_kind */
	bool record_pref;   /* NMR: the first send makes its NI sticky */
	int16_t net;        /* local net index (NMR: -1 when no local net has pnet's id) */
	int16_t pnet;       /* peer net index */
	int16_t dst;        /* NMR: the destination's peer NI */
	int16_t sticky;     /* NMR: its sticky local NI, or -1 */
	int16_t sticky_net; /* ... and that NI's local net */
	/* MR: bit j of pref[i]: pnet's NI i prefers net's NI j (UDSP; the lists do not change) */
	uint64_t pref[LNET_SEL_PLAN_MAX_PNIS];
};

/* The plan for messages to @dst over these views (kind NONE: use lnet_select_routed()). */
/* Sets each local net's same_dist from its NIs' dev_cpt (after a view's NIs are filled in). */
void lnet_sel_nets_mark_same_dist(struct lnet_sel_net *nets, unsigned int nr_nets,
				  const struct lnet_sel_ni *nis);

void lnet_sel_plan_make(const struct lnet_sel_local *local, const struct lnet_sel_peer *peer,
			const struct lnet_nid *dst, struct lnet_sel_plan *plan);

/*
 * lnet_select_routed() for a message the plan covers (source ANY, no
 * response, recovery or resend), with the same result; @reserved: on the
 * reserved portal. Reads only the NIs of the plan's nets: the caller need
 * refresh no others. A Multi-Rail plan's pick is lnet_sel_plan_mr_pick()
 * (lnet_select_pick.h), which the data path runs over readers of the NIs
 * themselves instead of refreshed views.
 */
int lnet_select_planned(const struct lnet_sel_local *local, const struct lnet_sel_peer *peer,
			const struct lnet_sel_plan *plan, int md_cpt, bool reserved,
			struct lnet_sel_result *res);

/* Text of a send case, e.g. "SRC_ANY LOCAL MR", for logs and tests. */
const char *lnet_sel_case_str(unsigned int send_case, char *buf, unsigned int len);

#endif /* LNET_SELECT_H */
