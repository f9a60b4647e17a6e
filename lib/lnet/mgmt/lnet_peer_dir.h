/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peer directory of the management lcore: every peer (primary NID,
 * Multi-Rail or not, its NIDs, configured or met by traffic), its discovery
 * and the messages held behind it. A peer's composition reaches the data
 * lcores as a struct lnet_peer_comp published in the peer NI of each of
 * its NIDs (lnet_peer_publish); they never read this directory.
 */
#ifndef LNET_PEER_DIR_H
#define LNET_PEER_DIR_H

#include "lnet_disc.h"
#include "lnet_ctl.h"
#include "lnet_mgmt.h"
#include "lnet_peer_merge.h"

struct lnet_peer {
	TAILQ_ENTRY(lnet_peer) link;
	uint64_t seq; /* position for paging, increasing; also its merge id */
	bool mr;
	bool configured;   /* added by peer add / import, not learned from traffic */
	bool locked;       /* primary NID locked (peer add --lock_prim) */
	bool no_discovery; /* the peer said it runs no discovery */
	bool bad_config;
	bool dead; /* deleted or merged: freed by the reaper */
	uint64_t lock_ts;
	unsigned int nnis;
	unsigned int cap;
	struct lnet_nid *nis;        /* nis[0] is the primary NID */
	struct lnet_peer_ni **lpnis; /* [cap]: each NID's peer NI in its shard, NULL unknown */
	struct lnet_peer_comp *comp; /* published in each known peer NI */
	struct lnet_disc disc;
	struct lnet_msg_list held; /* messages waiting for discovery */
	struct rt_timer disc_timer;
	/*
	 * The path the last ping reply came by (our NI, the peer's NID), as the
	 * kernel's lp_disc_src_nid/lp_disc_dst_nid: the next push goes back by
	 * it, then both are cleared (any NI, to the primary NID).
	 */
	bool disc_path;
	struct lnet_nid disc_src;
	struct lnet_nid disc_dst;
	uint64_t merge_into;   /* emptied by a merge: seq of the peer that took its NIDs */
	unsigned int rtr_refs; /* routes through it (a gateway: lnet_route.c) */
	bool gw_alive;         /* a gateway: the kernel's lp_alive (discovery or traffic says so) */
	uint64_t rtr_next_check_us; /* the router checker's next ping of it */
	struct lnet_peer *next_dead;
};

TAILQ_HEAD(lnet_peer_list, lnet_peer);

/* NID -> peer, open addressing with linear probing; resized at 50% load. */
struct lnet_nid_slot {
	struct lnet_nid nid;
	struct lnet_peer *peer; /* NULL: empty; LNET_PEER_TOMB: deleted */
	struct lnet_peer_comp
		*comp; /* the peer's published composition: a UDSP refresh reads only slots */
};

struct lnet_peer_dir {
	struct lnet *ln;
	struct lnet_peer_list peers;
	uint64_t next_seq;
	uint64_t next_lock_ts;
	unsigned int npeers;
	struct lnet_nid_slot *slots;
	unsigned int nslots;
	unsigned int used; /* live + tombstones */
	struct lnet_disc_node disc;
	struct lnet_merge_counters merge;
	unsigned int merges_pending; /* peers with merge_into set */
	bool stopping;               /* LNetNIFini: nothing is held any more */
	struct lnet_peer *dead;      /* waiting for the reaper */
	/* A UDSP refresh's place in the NID index (lnet_peer_dir_udsp_step). */
	bool udsp_active;
	unsigned int udsp_slot;
	const struct lnet_nid_slot *udsp_slots; /* the array it walks: a resize starts it again */
	struct rt_timer reaper;
};

/* The directory, made on first use (management lcore); NULL without memory. */
struct lnet_peer_dir *lnet_peer_dir_get(struct lnet *ln);
struct lnet_peer *lnet_peer_find(struct lnet_peer_dir *d, const struct lnet_nid *nid);
struct lnet_peer *lnet_peer_by_seq(struct lnet_peer_dir *d, uint64_t seq);
/* A peer with @p nid as its only NID, as traffic or discover makes one. */
struct lnet_peer *lnet_peer_create(struct lnet_peer_dir *d, const struct lnet_nid *nid);
/* Add @p nid to @p p, with its shard's peer NI when known (NULL otherwise). */
/* The peer owning @p nid, made (published, its peer NIs asked for) if none does. */
struct lnet_peer *lnet_peer_get(struct lnet_peer_dir *d, const struct lnet_nid *nid);
int lnet_peer_nid_add(struct lnet_peer_dir *d, struct lnet_peer *p, const struct lnet_nid *nid,
		      struct lnet_peer_ni *lpni);
struct lnet_peer_ni *lnet_peer_nid_lpni(const struct lnet_peer *p, const struct lnet_nid *nid);
void lnet_peer_nid_remove(struct lnet_peer_dir *d, struct lnet_peer *p, const struct lnet_nid *nid);
void lnet_peer_set_primary(struct lnet_peer *p, const struct lnet_nid *nid);
/* Publish @p p's composition to the data lcores (after any change to it). */
void lnet_peer_publish(struct lnet_peer_dir *d, struct lnet_peer *p);
/*
 * UDSP rules or NIs changed: every peer in the refresh's scope gets its
 * values in place, a slice at a time (the management lcore keeps its
 * other work going, and a data lcore sharing its thread is not held up).
 * restart puts the place at the start; step goes on until @p deadline_us
 * or @p max peers (counting the peers changed in *updated) and says
 * whether it is done.
 */
void lnet_peer_dir_udsp_restart(struct lnet_peer_dir *d);
bool lnet_peer_dir_udsp_step(struct lnet_peer_dir *d, uint64_t deadline_us, unsigned int max,
			     unsigned int *updated);
/* Remove @p p from the directory; its held messages fail with @p error. */
void lnet_peer_delete(struct lnet_peer_dir *d, struct lnet_peer *p, int error);

/* Record @p lpni, the shard's peer NI of @p nid (a peer is made for an unknown NID). */
void lnet_peer_learn_lpni(struct lnet_peer_dir *d, const struct lnet_nid *nid,
			  struct lnet_peer_ni *lpni);
/* Ask the shards for the peer NIs of @p p's NIDs not known yet. */
void lnet_peer_want_lpnis(struct lnet_peer_dir *d, struct lnet_peer *p);
void lnet_peer_export(const struct lnet_peer *p, struct lnet_ctl_peer *o);

/* lnet_discovery.c: the discovery of each peer, driven by lnet_disc. */
void lnet_discovery_node_init(struct lnet_peer_dir *d);
void lnet_discovery_peer_init(struct lnet_peer_dir *d, struct lnet_peer *p);
void lnet_discovery_peer_fini(struct lnet_peer_dir *d, struct lnet_peer *p, int error);
/* After an lnet_disc call on @p p: publish what changed, start held messages. */
void lnet_discovery_settle(struct lnet_peer_dir *d, struct lnet_peer *p);
/* The kernel's lp_state bits of @p p (peer show's "peer state"). */
uint32_t lnet_discovery_state_bits(const struct lnet_peer *p);
void lnet_discovery_report_on_mgmt(void *arg);
/* The clock discovery's deadlines are on (microseconds). */
uint64_t lnet_disc_now(const struct lnet_peer_dir *d);

#endif /* LNET_PEER_DIR_H */
