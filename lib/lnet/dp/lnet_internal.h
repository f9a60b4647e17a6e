/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LNet core internals. Ownership (ARCHITECTURE.md "Cores and ownership"):
 * everything under struct lnet_cpt is written only by that CPT's data lcore;
 * struct lnet fields are set at init and read-only after, except the
 * published NI table (RCU) and the portal flags (atomics).
 */
#ifndef LNET_INTERNAL_H
#define LNET_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/uio.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_log.h>

#include "api.h"
#include "lnp_build_config.h"
#include "cfs.h"
#include "lnet_tunables.h"
#include "lnet_health_rules.h"
#include "lnet_idl.h"
#include "lnet_lnd.h"
#include "lnet_log.h"
#include "lnet_select.h"
#include "lnet_types.h"
#include "lnet_wire.h"
#include "rt.h"
#include "rt_hop.h"
#include "rt_op.h"
#include "rt_outbox.h"
#include "rt_pool.h"

#define LNET_MT_HASH_BITS 8
#define LNET_MT_HASH_SIZE (1U << LNET_MT_HASH_BITS)
#define LNET_PEER_HASH_SIZE 1024U
/*
 * The message pool's batch between a lcore's cache and the shared pool: a
 * lcore goes to the pool at most once per this many messages taken, and a
 * cache that reaches twice this gives this many back in one burst.
 */
#define LNET_MSG_POOL_CACHE 64U
#define LNET_MD_CACHE_MAX 1024U
#define LNET_MD_CPT_BITS 8
#define LNET_MD_IDX_BITS 24

TAILQ_HEAD(lnet_msg_list, lnet_msg);
TAILQ_HEAD(lnet_me_list, lnet_me);
TAILQ_HEAD(lnet_peer_ni_list, lnet_peer_ni);

struct lnet;
struct lnet_cpt;

/* ---- memory descriptors ---------------------------------------------- */

#define LNET_MD_FLAG_ZOMBIE (1U << 0)      /* unlinked; freed at refcount 0 */
#define LNET_MD_FLAG_AUTO_UNLINK (1U << 1) /* unlink when exhausted */

struct lnet_libmd {
	uint64_t cookie;
	struct lnet_me *me; /* NULL for LNetMDBind MDs */
	void *start;
	unsigned int length; /* bytes */
	unsigned int offset; /* local offset for !MANAGE_REMOTE */
	int threshold;
	unsigned int max_size;
	unsigned int options;
	unsigned int flags;
	void *user_ptr;
	lnet_handler_t handler;
	struct lnet_eq *eq;
	int refcount; /* messages attached */
	uint16_t cpt;
	bool rsp_tracked; /* an ACK or REPLY is due (lnet_rsp.c) */
	uint64_t rsp_deadline_us;
	struct lnet_peer_ni
		*rsp_next_hop; /* where its last PUT/GET went (peer NIs live until shutdown) */
	uint32_t asks;         /* PUTs with ACK and GETs sent from it */
	uint32_t answers;      /* ACKs and REPLYs it received */
	TAILQ_ENTRY(lnet_libmd) rsp_link;
	unsigned int niov;
	struct lnet_libmd *next_cached; /* on the table's cache */
	struct iovec iov[];             /* one fragment unless LNET_MD_KIOV */
};

struct lnet_md_slot {
	struct lnet_libmd *md;
	uint32_t gen;
	uint32_t next_free;
};

struct lnet_md_table {
	struct lnet_md_slot *slots;
	uint32_t nslots;
	uint32_t cap;
	uint32_t free_head; /* UINT32_MAX: none */
	uint32_t nactive;
	struct lnet_libmd *cache; /* freed one-fragment MDs, reused: no malloc per MD */
	uint32_t ncache;
};

/* ---- match entries and portals ---------------------------------------- */

struct lnet_me {
	TAILQ_ENTRY(lnet_me) link;
	struct lnet_processid match_id;
	uint64_t match_bits;
	uint64_t ignore_bits;
	unsigned int portal;
	enum lnet_unlink unlink;
	enum lnet_ins_pos pos;
	uint16_t cpt; /* match table it goes into */
	bool unique;
	bool inserted;
	struct lnet_libmd *md;
};

enum lnet_ptl_type {
	LNET_PTL_UNSET = 0,
	LNET_PTL_UNIQUE = 1,
	LNET_PTL_WILDCARD = 2,
};

/* Portal flags shared by every lcore: written with atomics only. */
struct lnet_portal {
	int type; /* enum lnet_ptl_type, set once by the first ME */
	int lazy;
};

struct lnet_match_table {
	struct lnet_me_list wildcard;
	struct lnet_me_list *uhash;   /* unique MEs by match bits; NULL until used */
	struct lnet_msg_list delayed; /* lazy portal: messages waiting for an MD */
	unsigned int ndelayed;
};

/* ---- NIs and peers ----------------------------------------------------- */

struct lnet_ni_tunables {
	int peer_tx_credits;  /* peer_credits */
	int max_tx_credits;   /* credits */
	int peer_rtr_credits; /* peer_buffer_credits */
	int peer_timeout;
};

/* Per-NI transmit queue and its credits (lnet-facts §6). */
struct lnet_tx_queue {
	int credits;
	int mincredits;
	struct lnet_msg_list queue;
};

/* Message counts of an NI or a peer NI, by kind and by wire type (the kernel's lnet_element_stats). */
enum lnet_stats_kind {
	LNET_STATS_SEND = 0,
	LNET_STATS_RECV,
	LNET_STATS_DROP,
	LNET_STATS_KINDS,
};
#define LNET_STATS_NTYPES (LNET_MSG_HELLO + 1)

/*
 * One CPT's slot of those counts: one cache line, written only by that
 * CPT's lcore with plain adds (no atomic RMW, no line shared with another
 * writer); readers sum the slots of every CPT. 32 bits, as the kernel's.
 * The line's last word is that lcore's round-robin turn of the NI or peer
 * NI (the kernel's ni_seq, lpni_seq), which only that lcore's selection
 * reads (lnet_send_mr.c).
 */
struct lnet_msg_stats {
	uint32_t n[LNET_STATS_KINDS][LNET_STATS_NTYPES];
	uint32_t rr_seq;
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct lnet_msg_stats) == 64, "one cache line per CPT");

/*
 * Count one message of wire type @p type (< LNET_STATS_NTYPES: a validated
 * header's) in CPT @p cpt's slot, on that CPT's lcore.
 */
static inline void
lnet_stats_incr(struct lnet_msg_stats *slots, unsigned int cpt, enum lnet_stats_kind kind,
		uint32_t type)
{
	uint32_t *p = &slots[cpt].n[kind][type];

	/* Single writer: a load and a store (a plain add), atomic only so readers may sum. */
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/*
 * Zero the first @p len bytes of a hot object (a message, an MD) with
 * 16-byte stores the compiler unrolls for a constant @p len (an
 * instruction per 16 bytes, no call; memset would be a call, rep stos an
 * instruction per 8 bytes). may_alias: the stores are seen as writes of
 * the object's fields.
 */
typedef long long lnet_v16 __attribute__((vector_size(16), aligned(8), may_alias));

static inline void
lnet_zero16(void *p, size_t len)
{
	lnet_v16 *q = p;
	size_t i;

#pragma GCC unroll 32
	for (i = 0; i < len / sizeof(*q); i++) {
		q[i] = (lnet_v16){ 0, 0 };
	}
	memset((char *)p + len / sizeof(*q) * sizeof(*q), 0, len % sizeof(*q));
}

struct lnet_msg_stats *lnet_stats_alloc(unsigned int ncpts);
void lnet_stats_free(struct lnet_msg_stats *slots);
/* Sum of every CPT's slot: out[kind][type]; *total[kind] over the types. */
void lnet_stats_sum(const struct lnet_msg_stats *slots, unsigned int ncpts,
		    uint64_t out[LNET_STATS_KINDS][LNET_STATS_NTYPES],
		    uint64_t total[LNET_STATS_KINDS]);
/* One kind's counts from wire-type order (ACK, PUT, GET, REPLY, HELLO) to lnetctl's (put, get, reply, ack, hello). */
void lnet_stats_by_type(const uint64_t by_type[LNET_STATS_NTYPES], uint64_t out[5]);

/*
 * Health of a local NI or a peer NI (lnet-facts §8): its value and its
 * counts by completion status, written by its owner alone (the NI's CPT,
 * the peer NI's shard: lnet_health.c), and its place in the management
 * lcore's recovery (lnet_recovery.c). The two sides' handshakes are pairs
 * of counters, each written by one side: "queued" is rec_asked !=
 * rec_taken, and the ping count is pings less the later of pings_heard and
 * ping_base (lnet_health_ping_count).
 */
struct lnet_health {
	int value;          /* 0..LNET_MAX_HEALTH_VALUE: its owner writes, anyone reads (relaxed) */
	uint32_t rec_asked; /* owner: recovery requests sent (one at a time: asked - taken <= 1) */
	uint32_t pings_heard; /* owner: pings, as it read it when last heard from (relaxed) */
	uint32_t hs[LNET_MSG_STATUS_END]; /* its owner's: failures by enum lnet_msg_hstatus */
	int64_t last_alive; /* atomic, peer NI: seconds (runtime clock) of its last message; 0 never */
	uint32_t
		ns_status; /* mgmt, peer NI: the status its peer's ping data last gave it (0: none) */
	/* management lcore */
	TAILQ_ENTRY(lnet_health) rec_link;
	bool on_queue;
	bool ping_pending;  /* a recovery ping is out */
	uint32_t rec_taken; /* requests it is done with (dropped, or refused): release stores */
	uint32_t pings;     /* recovery pings sent, ever (relaxed stores: the owner reads it) */
	uint32_t ping_base; /* pings when it last restarted counting (full health, aged out) */
	int64_t next_ping;  /* seconds (runtime clock) */
};
TAILQ_HEAD(lnet_health_list, lnet_health);

struct lnet_ni {
	struct lnet *ln;
	struct lnet_nid nid;
	uint32_t net_id;
	const struct lnet_lnd_ops *lnd;
	uint16_t cpt;         /* owning data lcore; any for lo */
	bool credits_enabled; /* false for lo: no credit accounting */
	bool started;
	/*
	 * lo: driven by whichever lcore sends, so everything of it that
	 * messages write (stats, refs) is per CPT, and it has no credits or
	 * queue: in effect one instance per CPT, summed when shown.
	 */
	bool any_cpt;
	bool unref;                /* lo: never deleted, so messages hold no reference on it */
	uint32_t status;           /* LNET_NI_STATUS_*: mgmt (DOWN once net del starts) */
	bool fatal;                /* atomic: its link is down (the kernel's ni_fatal_error_on) */
	struct lnet_health health; /* lo: value 0, never changes (LNET_LND_CAP_NO_HEALTH) */
	struct lnet_ni_tunables tun;
	char ifname[LNET_CTL_IFNAMSIZ];
	int dev_cpt; /* CPT of the device's NUMA node, -1 (CFS_CPT_ANY) unknown */
	uint64_t
		last_ping_us; /* atomic: a ping from another node came (the kernel's net_last_alive) */
	/* UDSP priorities of the NI and of its net (lnet_udsp_ctl.c): set by
	 * mgmt before the NI is published, or followed by an ni_state_gen bump. */
	uint32_t udsp_prio;
	uint32_t udsp_net_prio;
	struct lnet_tx_queue tq; /* owned by cpt */
	struct lnet_msg_stats
		*stats; /* ncpts slots, slot i written by CPT i only (its rr_seq too) */
	void *lnd_data;
	const struct lnet_ctl_lnd_tunables *lnd_tun; /* valid during startup() only */
	/*
	 * Messages holding this NI (txni/rxni), counted per CPT: refs[cpt *
	 * LNET_NI_REF_STRIDE] is written only by that CPT's lcore, so taking a
	 * reference costs no atomic and no shared line. Only the sum means
	 * anything; it is read once the NI is unpublished (net del).
	 */
	int64_t *refs;
	struct lnet_ni *next_zombie; /* deleted but still referenced */
};

#define LNET_NI_REF_STRIDE 8 /* one 64-byte line per CPT */

/* The published set of local NIs; replaced whole, retired with RCU. */
/* One net's CPTs in a published NI table (lnet_cpt_of_peer_net). */
struct lnet_net_cpts {
	uint32_t net_id;
	uint16_t n;     /* its NIs bound to a CPT; 0: an empty slot */
	uint16_t first; /* their CPTs, in table order: net_cpts[first .. first + n) */
};

struct lnet_ni_table {
	uint64_t gen; /* one more than the table it replaced */
	unsigned int nnis;
	/* Our NIs by NID (NULL: empty), open addressing: whether a NID is ours
	 * is asked of every forwarded message and every send, and a scan costs
	 * a compare per NI. Power-of-two size, at least twice nnis. */
	unsigned int by_nid_mask;
	struct lnet_ni **by_nid;
	/* Each net's CPTs, open addressing by net in as many slots as by_nid:
	 * which shard a peer NI lives in is asked of every message. */
	struct lnet_net_cpts *by_net;
	uint16_t *net_cpts;
	struct lnet_ni *nis[]; /* nis[0] is 0@lo */
};

/*
 * A peer as the data lcores see it: its NIDs grouped by net (primary's net
 * first, primary first), Multi-Rail or not, and whether messages must wait
 * for discovery. Built and replaced whole by the management lcore, which
 * publishes it in the peer NI of each of its NIDs (RCU); never changed once
 * published, so selection reads it with no lock.
 */
struct lnet_peer_comp_ni {
	struct lnet_nid nid;
	/* Its shard's peer NI once the management lcore knows it (credits are
	 * read from there, relaxed); peer NIs live until shutdown. */
	struct lnet_peer_ni *lpni;
	/*
	 * UDSP (lnet_udsp_ctl.c), the one part of a published composition that
	 * changes in place, so a rule reaching 100,000 peers rebuilds none of
	 * them: its priority (atomic), its preferred local NIDs and gateways
	 * (RCU: a new list replaces the old, which is retired; NULL: none).
	 * The composition's nets' sel_prio likewise.
	 */
	uint32_t sel_prio;
	struct lnet_udsp_nids *pref;
	struct lnet_udsp_nids *rtr;
};

/* A preferred-NID list of a peer NI; never changed once published. */
struct lnet_udsp_nids {
	unsigned int n;
	struct lnet_nid nids[];
};

struct lnet_peer_comp {
	struct lnet_nid primary;
	bool multi_rail;
	bool gated; /* discovery is not up to date: messages go to mgmt */
	uint16_t nnets;
	uint16_t nnis;
	struct lnet_sel_net *nets; /* first_ni/nr_nis index nis[] */
	struct lnet_peer_comp_ni *nis;
};

struct lnet_sel_pview;

struct lnet_peer_ni {
	TAILQ_ENTRY(lnet_peer_ni) link;
	struct lnet_nid nid;
	struct lnet_peer_comp *comp; /* RCU: written by mgmt; NULL until it knows the NID */
	/* When this NID is a send's destination (selection runs in its shard):
	 * round robin over the peer's nets, and the local NID a non-Multi-Rail
	 * peer is always sent from (the kernel's lpni_pref). */
	uint64_t *rr; /* [rr_cap]: the peer nets' seqs */
	uint16_t rr_cap;
	struct lnet_nid pref;
	bool has_pref;
	struct lnet_sel_pview *selv; /* the peer as selection sees it from this NID, cached */
	int txcredits;
	int mintxcredits;
	uint64_t txqnob;
	struct lnet_msg_list txq;
	int rtrcredits; /* router credits (peer_buffer_credits) for what it sends us */
	int minrtrcredits;
	struct lnet_msg_list rtrq; /* messages waiting for one */
	uint64_t gw_heard_us;      /* last told mgmt that traffic came through this dead gateway */
	/*
	 * Counts of messages to and from this peer NI, one slot per CPT: a
	 * message is counted where it completes (its MD's CPT), which need
	 * not be the shard's; the slot is that CPT's, so no line is shared.
	 */
	struct lnet_msg_stats *stats;
	struct lnet_health health;
	uint16_t cpt; /* the shard it lives in (lnet_cpt_of_peer when made): its owner */
	bool retired; /* its shard's: out of the NID table for good (lnet_peer_ni_retire) */
};

enum lnet_peer_last {
	LNET_PEER_LAST_SENDER, /* lnet_peer_ni_find_or_create(): the receive side's */
	LNET_PEER_LAST_DEST,   /* lnet_peer_ni_find(): a destination's */
	LNET_PEER_LAST_KINDS,
};

struct lnet_peer_table {
	struct lnet_peer_ni_list *hash;
	unsigned int npeer_nis; /* in hash */
	/*
	 * The last peer NI each kind of lookup found (enum lnet_peer_last).
	 * A peer NI leaving hash (retired) is forgotten here, so a remembered
	 * one is always in the table; a hit still compares the whole NID.
	 */
	struct lnet_peer_ni *last[LNET_PEER_LAST_KINDS];
	/* Out of hash since their net moved to another CPT; freed with the table. */
	struct lnet_peer_ni_list retired;
};

/* ---- messages ----------------------------------------------------------- */

#include "lnet_step.h"

/* What the LND's recv() is asked to do with a received message. */
enum lnet_rx_action {
	LNET_RX_DELIVER = 0, /* payload into the attached MD */
	LNET_RX_DROP,        /* discard the payload, free the message */
	LNET_RX_GET,         /* consume the GET, then send the REPLY */
};

/* What a GET's event reports once its header has become the REPLY's (lnet_send_reply). */
struct lnet_msg_get_req {
	struct lnet_processid target; /* the GET's destination */
	uint64_t match_bits;
	unsigned int portal;
	unsigned int rlength; /* its sink length */
};

/* Failed paths a resent message remembers: the retries of a 2x2 Multi-Rail pair and more. */
#define LNET_MSG_FAILED_PATHS 4

struct lnet_msg {
	/*
	 * Zeroed by lnet_msg_alloc(), up to hdr: the fields every message
	 * reads, or reads before anything writes them. Widest first, so the
	 * prefix has no holes: each 16 bytes of it is a store per message.
	 */
	struct lnet *ln;
	struct lnet_ni *txni;
	struct lnet_ni *rxni;
	struct lnet_peer_ni *txpeer;
	struct lnet_peer_ni *rxpeer; /* rx: the last hop's peer NI (NULL on lo) */
	void *lnd_private;           /* rx: the LND's cookie for recv() */
	struct lnet_libmd *md;
	void *rtr_buf;        /* forwarded: the router buffer the payload is in (NULL: none) */
	uint64_t deadline_us; /* tx: resends stop here (transaction_timeout from the first send) */
	struct lnet_ni *avoid_ni;        /* resend: the local NI that failed it (compared only) */
	struct lnet_peer_ni *avoid_lpni; /* resend: the peer NI that failed it */
	struct lnet_peer_ni
		*sel_lpni;            /* tx: the next hop's peer NI as selection knew it, or NULL */
	struct lnet_processid target; /* tx: where it goes (the caller's NID) */
	struct lnet_nid src_param;    /* tx: the caller's source NID, or ANY */
	struct lnet_nid from;         /* rx: last hop */
	struct lnet_nid nexthop;      /* tx: the peer NID of this hop (a gateway when routed) */
	enum lnet_msg_step step;
	enum lnet_rx_action rx_action;
	unsigned int offset; /* in the MD */
	unsigned int wanted; /* bytes moved (mlength) */
	unsigned int len;    /* bytes requested (rlength / payload) */
	int status;
	enum lnet_msg_hstatus hstatus; /* what the LND said of its failure */
	uint32_t md_ask;               /* tx: its MD's asks when it was sent (1: the first) */
	uint16_t home_cpt;             /* CPT that allocated it (its msgs_max counts it) */
	uint16_t md_cpt;
	uint16_t peer_cpt;
	uint16_t match_tries;
	uint16_t rtr_cpt; /* forwarded: the lcore of the router credits and buffer */
	bool tx;          /* an outgoing message */
	bool rx_committed;
	bool rx_consumed; /* rx: the LND is done with it; lnd_private is what it lent (lnet_rx_take) */
	bool tx_committed;
	bool ack_pending;      /* PUT received: send ACK after the event */
	bool txcredit;         /* holds an NI tx credit */
	bool peertxcredit;     /* holds a peer NI tx credit */
	bool is_reply_to_get;  /* REPLY built from a received GET */
	bool disc_passed;      /* discovery let it through: no second gate */
	bool recovery;         /* a health recovery ping: never resent, this peer NI only */
	bool no_resend;        /* its MD went: no resend (the kernel's msg_no_resend) */
	bool routing;          /* forwarded by this router: header kept as received */
	bool rtrcredit;        /* holds a router buffer pool credit (and maybe a buffer) */
	bool peerrtrcredit;    /* holds a router credit of its last hop's peer NI */
	uint8_t retry_count;   /* resends so far */
	uint8_t nfailed_paths; /* resend: entries of failed_paths (those past hdr) */
	/*
	 * Not zeroed by lnet_msg_alloc() (most of the message's bytes): whoever
	 * makes the message writes every field, the header first of all.
	 */
	struct lnet_hdr hdr;
	/*
	 * Its event is written at completion, straight into the event queue's
	 * slot (lnet_msg.c), from the header and these: no copy staged here.
	 */
	struct lnet_nid initiator_nid;   /* rx for us: the sender, by its primary NID if known */
	struct lnet_msg_get_req get_req; /* a GET turned into its REPLY: the GET's own fields */
	/*
	 * Rare fields, not zeroed either: each is written where it is set and
	 * read only after that, or under a zeroed flag that says it was set.
	 */
	union {
		TAILQ_ENTRY(lnet_msg) link; /* credit queue or delayed list: written on insert */
		struct rt_outbox_item out;  /* an outbox's (then on no list): rt_outbox_send's */
	};
	/* Forwarded (routing): all four written by lnet_parse, then as it goes on. */
	uint64_t fwd_us
		[4]; /* came in, had its buffer, had its payload, to the LND (µs; 0: not yet) */
	struct iovec rtr_iov; /* forwarded: written by lnet_fwd_recv, read while rtr_buf is set */
	uint32_t rtr_gen;     /* rtrcredit: its pool's generation when its credit was taken */
	uint8_t rtr_pool;     /* rtrcredit: which pool of rtr_cpt */
	bool fault_rx;        /* held by a delay rule (fault_held): on its way in (else out) */
	uint64_t fault_release_us;     /* held by a delay rule until then */
	struct lnet_peer_ni *dst_lpni; /* sent to discovery: the destination NID's peer NI */
	/*
	 * Resends after a network timeout: the paths (local NI, peer NI,
	 * compared only) that failed it, the oldest first; nfailed_paths of
	 * them are valid. A next try avoids each of them (issue 31).
	 */
	struct lnet_msg_path {
		const struct lnet_ni *ni;
		const struct lnet_peer_ni *lpni;
	} failed_paths[LNET_MSG_FAILED_PATHS];
};

/* ---- per-CPT state --------------------------------------------------- */

/*
 * Ring hops (lcore changes) an lcore made, by the kind of the message that
 * made them (lnet_hop_count, lnet_cpt.c): one cache line per lcore, written
 * by that lcore alone; readers sum the lcores' (lnet_ctl_hops_get).
 */
enum lnet_hop_kind {
	LNET_HOP_PUT = 0,
	LNET_HOP_GET,
	LNET_HOP_ACK,
	LNET_HOP_REPLY,
	LNET_HOP_FWD, /* a message this router forwards, whatever its type */
	/*
	 * Not a hop: a received payload whose LND could not lend it
	 * (lnet_rx_take), so its message comes back to the NI's lcore.
	 */
	LNET_HOP_RX_UNLENT,
	LNET_HOP_KINDS,
};

struct lnet_hop_counts {
	uint64_t n[LNET_HOP_KINDS];
} __attribute__((aligned(64)));

/* One router buffer pool of a CPT (lnet_rtr_pool.c), owned by its data lcore. */
struct lnet_rtr_pool {
	unsigned int npages; /* of each buffer: 0 (tiny), 1 (small), 256 (large) */
	int nbuffers;        /* made (and not freed yet) */
	int req;             /* wanted: a buffer back while credits are at it is freed */
	int credits;         /* negative: messages waiting in waitq */
	int mincredits;
	struct rte_ring *free; /* the free buffers; NULL for tiny */
	uint32_t gen;          /* emptied (routing off) so many times */
	struct lnet_msg_list waitq;
	struct rt_lcore *reaper; /* frees the buffers it lets go: the management lcore */
};

/* A pool's growth: planned on its lcore, made off it, linked in on it (lnet_rtr_pool.c). */
struct lnet_rtr_grow {
	int old_req;            /* plan: req before it, back if the making fails */
	unsigned int add;       /* plan: buffers (and credits) to add; 0: nothing to make */
	size_t buf_size;        /* plan: of each buffer (0: tiny, credits only) */
	unsigned int ring_size; /* plan: a new free ring of this size; 0: the old one holds */
	struct rte_ring *ring;  /* made: the new ring; after commit, the old one, to free */
	void **bufs;            /* made: [add] */
	unsigned int nbufs;     /* of bufs, made and not yet the pool's */
};

struct lnet_sel_cache;
struct lnet_fault;

struct lnet_cpt {
	struct lnet *ln;
	uint16_t cpt;
	struct rt_lcore *lcore;
	uint64_t fwd_max_us; /* the longest a forwarded message took here, in to out */
	struct lnet_md_table mds;
	struct lnet_match_table mt[LNET_MAX_PORTALS];
	struct lnet_peer_table peers;
	struct rt_pool_cache *msg_cache; /* this lcore's cache of the message pool */
	/*
	 * Messages of another home CPT freed here, by home (written here
	 * only; each home reads its slot, relaxed, to know how many of its
	 * messages are alive: lnet_msg_alloc).
	 */
	uint32_t *msg_frees_of;
	uint32_t msg_frees_back_seen; /* this CPT's messages the others freed, last it looked */
	/*
	 * This CPT's messages alive, at least: it allocated them, and has not
	 * yet seen the others free those they freed (lnet_msg_alloc).
	 */
	uint32_t msg_alive_bound;
	struct rt_outbox outbox; /* to each CPT, then mgmt: hand-offs their rings refused */
	struct lnet_counters counters;
	uint64_t ev_seq;
	TAILQ_HEAD(, lnet_libmd) rsp_list; /* MDs waiting for an ACK/REPLY, by deadline */
	struct rt_timer rsp_timer;
	struct lnet_sel_cache *sel; /* lnet_send_mr.c: the local NIs as selection sees them */
	struct lnet_msg_list
		fault_held; /* lnet_fault_path.c: held by delay rules, by release time */
	struct rt_timer fault_timer;
	uint32_t fault_rand;         /* the fault rules' random state on this lcore */
	struct lnet_rtr_pool rtr[3]; /* lnet_router.c: tiny, small, large */
	struct lnet_hop_counts hops; /* ring hops this lcore made */
};

/* ---- event queues ------------------------------------------------------- */

#define LNET_EQ_REF_STRIDE 8 /* one 64-byte line per CPT */

/*
 * The sequence word of the slot for position pos: pos while it is free for
 * the producer, pos + 1 once the event is in it, pos + size once a consumer
 * has copied it out (free for position pos + size, the next lap).
 */
struct lnet_eq_slot {
	uint64_t seq;
	struct lnet_event ev;
};

struct lnet_eq_ring {
	uint64_t head __rte_cache_aligned; /* the next position to take: consumers' CAS */
	uint64_t tail __rte_cache_aligned; /* the next position to fill: the producer's own */
	uint64_t mask;
	struct lnet_eq_slot slot[] __rte_cache_aligned;
};

struct lnet_eq {
	/*
	 * One ring per CPT that posts here, made on its first event: each has
	 * one producer, that CPT's lcore, so posting takes no atomic
	 * read-modify-write. Published with release; read with acquire.
	 */
	struct lnet_eq_ring *ring[LNP_MAX_CPTS];
	unsigned int nring; /* atomic: rings [0, nring) may exist */
	unsigned int next;  /* atomic, a hint: the ring LNetEQPoll looks at first */
	unsigned int size;  /* each ring's capacity */
	uint64_t dropped;   /* atomic: events lost to overflow */
	uint64_t reported;  /* atomic: drops already reported */
	int evfd;           /* written after an enqueue when a poller sleeps */
	int sleepers;       /* atomic: LNetEQPoll callers asleep on evfd */
	/*
	 * MDs that post here, counted on their CPT: refs[cpt * LNET_EQ_REF_STRIDE]
	 * is written only by that CPT's lcore (no shared line between data
	 * lcores); LNetEQFree sums them.
	 */
	int64_t refs[LNP_MAX_CPTS * LNET_EQ_REF_STRIDE];
};

/* ---- the node ------------------------------------------------------------ */

struct lnet_route_table;

/*
 * What the data path asks of the management plane. mgmt/ fills the table
 * in (mgmt/lnet_init.c) before any CPT exists; dp/ calls up only through
 * it, so the data path depends on nothing of the management plane. Each
 * runs on the caller's lcore and hands its work to the management lcore
 * itself; none is on the good path of a message.
 */
struct lnet_mgmt_hooks {
	/* The management lcore's step for a message handed to it (the outboxes' last destination). */
	rt_msg_fn msg_on_mgmt;
	/* On @p c's lcore as it goes away: what the management plane keeps there is released. */
	void (*cpt_fini)(struct lnet_cpt *c);
	/* @p ni (by NID) or @p lpni lost health: recovery takes it. */
	void (*recovery_ni)(struct lnet *ln, struct lnet_ni *ni);
	void (*recovery_lpni)(struct lnet *ln, struct lnet_peer_ni *lpni);
	/* A peer NI made by traffic: the peer directory learns of its NID. */
	void (*peer_learn)(struct lnet *ln, const struct lnet_nid *nid, struct lnet_peer_ni *lpni);
	/* @p ni's link (@p health false) or health went up or down: ping target, push, net show. */
	void (*ni_state)(struct lnet_ni *ni, bool up, bool health);
	/* Traffic came through @p from, a gateway held dead; -ENOMEM: not told. */
	int (*gw_heard)(struct lnet *ln, const struct lnet_nid *from, uint32_t net);
};

struct lnet {
	struct rt_runtime *rt;
	const struct lnet_mgmt_hooks *mgmt; /* set before any CPT exists; read-only */
	bool owns_eal;
	enum lnet_exec_mode mode;
	unsigned int ncpts;
	lnet_pid_t pid;
	uint64_t interface_cookie;
	struct lnet_cpt **cpts;
	struct rt_pool *msg_pool;     /* every message, a cache per lcore (lnet_msg.c) */
	uint64_t msg_pool_empty_base; /* mgmt, atomic: its empty count at the last counters reset */
	struct lnet_portal portals[LNET_MAX_PORTALS];
	struct lnet_ni_table *ni_table;  /* RCU-published */
	struct lnet_ctl_global tunables; /* global show's settings; management lcore */
	struct lnet_ni *loni;
	struct cfs_cpt_table *cpt_table;
	unsigned int bind_rotor;          /* atomic: CPT for LNetMDBind from foreign threads */
	struct rt_outbox mgmt_outbox;     /* mgmt: its hand-offs the CPTs' rings refused */
	struct lnet_hop_counts mgmt_hops; /* mgmt: ring hops the management lcore made */
	uint32_t
		ni_state_gen; /* atomic: bumped when an NI's fatal state changes, or the NI table */
	/*
	 * Atomic: every build of any CPT's local selection view takes the next
	 * (lnet_send_mr.c), so a plan made with one is known current by one
	 * compare (0: none).
	 */
	uint64_t sel_epochs;
	/*
	 * atomic: bumped when a peer composition is published or UDSP changes
	 * one in place (priorities, preferred NIDs), before anything replaced
	 * is retired: selection's cached peer views (lnet_send_mr.c) rebuild.
	 */
	uint64_t sel_gen;
	struct lnet_fault *fault; /* fault rules (lnet_fault.c): read by every lcore */
	unsigned int ping_nnis;   /* atomic: NIs the posted ping target lists after 0@lo */
	struct lnet_route_table *route_table; /* RCU-published routes for the data lcores */
	int routing;                          /* atomic: LNET_CTL_ROUTING_* (lnet_router.c) */
};

/* lnet_router.c: this node as a router */
int lnet_routing_state(const struct lnet *ln);
void lnet_fwd_rx_step(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_fwd_fin(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_fwd_abort_queued(struct lnet_cpt *c);
void lnet_fwd_recv(struct lnet_cpt *c, struct lnet_msg *msg);
/* lnet_rtr_pool.c: one router buffer pool, on its CPT's lcore */
void lnet_rtr_pool_init(struct lnet_rtr_pool *p, unsigned int kind, struct rt_lcore *reaper);
unsigned int lnet_rtr_pool_kind(unsigned int len);
void lnet_rtr_grow_plan(struct lnet_rtr_pool *p, int n, struct lnet_rtr_grow *g);
int lnet_rtr_grow_make(struct lnet_rtr_grow *g);
void lnet_rtr_grow_abort(struct lnet_rtr_pool *p, const struct lnet_rtr_grow *g);
void lnet_rtr_grow_commit(struct lnet_cpt *c, struct lnet_rtr_pool *p, struct lnet_rtr_grow *g,
			  void (*give)(struct lnet_cpt *c, struct lnet_msg *msg));
void lnet_rtr_grow_release(struct lnet_rtr_grow *g);
void *lnet_rtr_buf_get(struct lnet_rtr_pool *p);
struct lnet_msg *lnet_rtr_buf_put(struct lnet_rtr_pool *p, void *b, uint32_t gen);
void lnet_rtr_pool_empty(struct lnet_rtr_pool *p);
void lnet_rtr_pool_fini(struct lnet_rtr_pool *p);

/* lnet_node.c: the node's one instance, and whether LNetNIFini has begun */
struct lnet *lnet_instance(void);
void lnet_instance_publish(struct lnet *ln);
bool lnet_stopping(void);
void lnet_stopping_set(bool stopping);

/* The status the ping target and net show give @p ni: DOWN while fatal, as the kernel's. */
static inline uint32_t
lnet_ni_wire_status(const struct lnet_ni *ni)
{
	return __atomic_load_n(&ni->fatal, __ATOMIC_RELAXED) ? LNET_NI_STATUS_DOWN : ni->status;
}

/* lnet_cpt.c: per-CPT state and messages between CPTs */
int lnet_cpts_create(struct lnet *ln);
void lnet_cpts_destroy(struct lnet *ln);
struct lnet_cpt *lnet_cpt_self(struct lnet *ln);
struct lnet_cpt *lnet_cpt_get(struct lnet *ln, unsigned int cpt);
void lnet_msg_step_on(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_msg_dispatch_away(struct lnet *ln, struct lnet_msg *msg, unsigned int dst_cpt);
void lnet_msg_run_step(void *arg);
/* The calling lcore (a data lcore or mgmt) sends @p msg, or a note of it, to another lcore. */
void lnet_hop_count(struct lnet *ln, const struct lnet_msg *msg);
/* Zero the calling lcore's hop counts (stats reset, run on each lcore). */
void lnet_hop_counts_reset_self(struct lnet *ln);
int lnet_call_on_cpt(struct lnet *ln, unsigned int cpt, rt_call_fn fn, void *ctx);

/* lnet_md.c */
void lnet_md_recycle(struct lnet_md_table *t, struct lnet_libmd *md);
int lnet_md_build(struct lnet_md_table *t, const struct lnet_md *umd, enum lnet_unlink unlink,
		  uint16_t cpt, struct lnet_libmd **out);
int lnet_md_table_init(struct lnet_md_table *t);
void lnet_md_table_fini(struct lnet_md_table *t);
int lnet_md_insert(struct lnet_cpt *c, struct lnet_libmd *md);
struct lnet_libmd *lnet_md_lookup(struct lnet_cpt *c, uint64_t cookie);
void lnet_md_unlink(struct lnet_cpt *c, struct lnet_libmd *md);
void lnet_md_release(struct lnet_cpt *c, struct lnet_libmd *md);
bool lnet_md_exhausted(const struct lnet_libmd *md);
bool lnet_md_active(const struct lnet_libmd *md);
unsigned int lnet_cookie_cpt(uint64_t cookie);
void lnet_md_attach_msg(struct lnet_libmd *md, struct lnet_msg *msg, unsigned int offset,
			unsigned int mlength);

/* lnet_ptl.c: portals, MEs, matching */
int lnet_ptl_claim(struct lnet *ln, unsigned int portal, bool unique);
bool lnet_ptl_is_unique(const struct lnet *ln, unsigned int portal);
bool lnet_ptl_is_lazy(const struct lnet *ln, unsigned int portal);
int lnet_mt_init(struct lnet_match_table *mt);
void lnet_mt_fini(struct lnet_cpt *c, struct lnet_match_table *mt);
void lnet_me_insert(struct lnet_cpt *c, struct lnet_me *me);
void lnet_me_remove(struct lnet_cpt *c, struct lnet_me *me);
unsigned int lnet_ptl_match_cpt_first(const struct lnet *ln, const struct lnet_msg *msg);
void lnet_ptl_rematch(struct lnet_cpt *c, unsigned int portal);
void lnet_ptl_drop_delayed(struct lnet_cpt *c, unsigned int portal);
void lnet_ptl_drop_delayed_ni(struct lnet_cpt *c, const struct lnet_ni *ni);

/* lnet_msg.c */
void lnet_msg_free(struct lnet_msg *msg);
int lnet_msg_pool_create(struct lnet *ln, unsigned int msgs_per_cpt);
void lnet_msg_pool_destroy(struct lnet *ln);
/* On the management lcore, at a counters reset: pool_msg_empty counts from now. */
void lnet_msg_pool_empty_mark(struct lnet *ln);
/* Gets that found the message pool empty since the last mark. */
uint64_t lnet_msg_pool_empty_since_mark(struct lnet *ln);
uint32_t lnet_msg_alive_home(struct lnet_cpt *c);
void lnet_msg_max_update(struct lnet_cpt *c) __attribute__((noinline, cold));
void lnet_msg_count_free_away(struct lnet_cpt *c, unsigned int home);
void lnet_drop_rx(struct lnet_cpt *c, struct lnet_msg *msg, const char *why);
const char *lnet_msg_type_str(uint32_t type);

/* lnet_send.c */
void lnet_send_ack(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_send_reply(struct lnet_cpt *c, struct lnet_msg *msg);
/* A matched GET turned into its REPLY in place (lnet_send_reply's first half). */
void lnet_reply_of_get(struct lnet_cpt *c, struct lnet_msg *msg);
/* ... addressed from its NI for an LND that sends it itself (LNET_LND_CAP_RDMA_GET). */
void lnet_reply_by_lnd(struct lnet_cpt *c, struct lnet_msg *msg);
/* ... which its LND left to LNet after all (LNET_LND_RECV_SEND_REPLY): sent as any REPLY. */
void lnet_send_reply_made(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_ni_send(struct lnet_cpt *c, struct lnet_msg *msg);
/* lnet_ni_send() once the fault rules let it go. */
void lnet_ni_send_now(struct lnet_cpt *c, struct lnet_msg *msg);

/* lnet_send_mr.c: Multi-Rail selection in the destination NID's shard */
int lnet_send_mr_select(struct lnet_cpt *c, struct lnet_msg *msg, struct lnet_peer_ni *lpni,
			const struct lnet_peer_comp *comp, struct lnet_ni **ni,
			struct lnet_nid *dst, struct lnet_nid *nexthop,
			struct lnet_peer_ni **nexthop_lpni);
void lnet_sel_cache_free(struct lnet_sel_cache *sc);
/* A response leaves on @p ni to @p lpni: it takes @p c's turn as a send would (lnet_handle_send). */
void lnet_sel_stamp_response(struct lnet_cpt *c, struct lnet_ni *ni, struct lnet_peer_ni *lpni);

/* Cached peer views are stale from here (release: what was changed is seen with the new value). */
static inline void
lnet_sel_gen_bump(struct lnet *ln)
{
	__atomic_fetch_add(&ln->sel_gen, 1, __ATOMIC_RELEASE);
}

/* A PUT or GET on the reserved portal (ping, push): never held by discovery. */
static inline bool
lnet_msg_is_reserved(const struct lnet_msg *msg)
{
	return (msg->hdr.type == LNET_MSG_PUT &&
		msg->hdr.msg.put.ptl_index == LNET_RESERVED_PORTAL) ||
	       (msg->hdr.type == LNET_MSG_GET &&
		msg->hdr.msg.get.ptl_index == LNET_RESERVED_PORTAL);
}

/* The kernel's lnet_msg_discovery(): what waits for a peer's discovery. */
static inline bool
lnet_msg_wants_discovery(const struct lnet_msg *msg)
{
	return (msg->hdr.type == LNET_MSG_PUT || msg->hdr.type == LNET_MSG_GET) &&
	       !lnet_msg_is_reserved(msg);
}

/* lnet_recv.c */
void lnet_ni_recv(struct lnet_cpt *c, struct lnet_msg *msg, enum lnet_rx_action action);
/* lnet_iov_copy of a lent payload (from its start) into an MD: lnet_iov.c says why it is apart. */
void lnet_iov_copy_lent(const struct iovec *dst_iov, unsigned int dst_niov, unsigned int dst_off,
			const struct iovec *src_iov, unsigned int src_niov, unsigned int len);

/* lnet_peer.c */
int lnet_peer_table_init(struct lnet_peer_table *pt);
void lnet_peer_table_fini(struct lnet_peer_table *pt);
/*
 * Management lcore: @p lpni is no longer its NID's peer NI (another
 * shard's took its place): no composition, and out of its shard's table.
 */
void lnet_peer_ni_retire(struct lnet *ln, struct lnet_peer_ni *lpni);
struct lnet_peer_ni *lnet_peer_ni_find_or_create_walk(struct lnet_cpt *c,
						      const struct lnet_nid *nid,
						      struct lnet_ni *ni);
struct lnet_peer_ni *lnet_peer_ni_find(struct lnet_cpt *c, const struct lnet_nid *nid);

/* The peer NI the @p kind of lookup found last, if it is @p nid's; else NULL. */
static inline struct lnet_peer_ni *
lnet_peer_ni_last(const struct lnet_cpt *c, const struct lnet_nid *nid, enum lnet_peer_last kind)
{
	struct lnet_peer_ni *lpni = c->peers.last[kind];

	return lpni != NULL && lnet_nid_same(&lpni->nid, nid) ? lpni : NULL;
}

/*
 * @p nid's peer NI in @p c's shard, made (with @p ni's credits) if new.
 * The sender's last one is checked here, inline: the hash walk and the
 * making, with the frame they need, only on a miss.
 */
static inline struct lnet_peer_ni *
lnet_peer_ni_find_or_create(struct lnet_cpt *c, const struct lnet_nid *nid, struct lnet_ni *ni)
{
	struct lnet_peer_ni *lpni = lnet_peer_ni_last(c, nid, LNET_PEER_LAST_SENDER);

	return likely(lpni != NULL) ? lpni : lnet_peer_ni_find_or_create_walk(c, nid, ni);
}

/* lnet_ni_table.c */
struct lnet_ni *lnet_ni_find_by_net(struct lnet *ln, uint32_t net);
/*
 * NUMA distance from CPT @p md_cpt (where a message's memory is) to @p
 * ni's device, as selection ranks local NIs: the largest distance when
 * either CPT is unknown, and every distance below numa_range counted as
 * numa_range, so NIs within range are equal.
 */
unsigned int lnet_ni_distance(const struct lnet *ln, const struct lnet_ni *ni, int md_cpt);
struct lnet_ni *lnet_ni_find_by_nid(struct lnet *ln, const struct lnet_nid *nid);

/* The slot a NID's probe starts at in lnet_ni_table.by_nid: all 20 bytes folded, then mixed. */
static inline unsigned int
lnet_ni_nid_slot(const struct lnet_nid *nid, unsigned int mask)
{
	uint32_t h;
	uint64_t a0, a1;

	memcpy(&h, nid, sizeof(h));
	memcpy(&a0, &nid->nid_addr[0], sizeof(a0));
	memcpy(&a1, &nid->nid_addr[2], sizeof(a1));
	return (unsigned int)(((a0 ^ a1 ^ h) * 0x9e3779b97f4a7c15ULL) >> 40) & mask;
}

static inline unsigned int
lnet_ni_net_slot(uint32_t net, unsigned int mask)
{
	return (unsigned int)(((uint64_t)net * 0x9e3779b97f4a7c15ULL) >> 40) & mask;
}

/* Our NI with @p nid in table @p t, or NULL (lnet_ni_find_by_nid, inlined where it is hot). */
static inline struct lnet_ni *
lnet_ni_lookup(const struct lnet_ni_table *t, const struct lnet_nid *nid)
{
	unsigned int i;

	if (t == NULL) {
		return NULL;
	}
	/* At most half full: an empty slot always ends the probe. */
	for (i = lnet_ni_nid_slot(nid, t->by_nid_mask); t->by_nid[i] != NULL;
	     i = (i + 1) & t->by_nid_mask) {
		if (lnet_nid_same(&t->by_nid[i]->nid, nid)) {
			return t->by_nid[i];
		}
	}
	return NULL;
}

const struct lnet_ni_table *lnet_ni_table_get(struct lnet *ln);
void lnet_msg_set_txni(struct lnet_cpt *c, struct lnet_msg *msg, struct lnet_ni *ni);
void lnet_msg_set_rxni(struct lnet_cpt *c, struct lnet_msg *msg, struct lnet_ni *ni);
void lnet_msg_put_nis(struct lnet_cpt *c, struct lnet_msg *msg);

/* Data lcore: hand @p msg (dst_lpni set) to discovery, in order, never lost. */
void lnet_msg_to_mgmt(struct lnet *ln, struct lnet_msg *msg);

/* lnet_health.c: health values, the status table, resends (lnet-facts §8) */

static inline int
lnet_health_value(const struct lnet_health *h)
{
	return __atomic_load_n(&h->value, __ATOMIC_RELAXED);
}

/*
 * Recovery pings since @p h was last heard from or last at full health
 * (the kernel's ping_count), any thread: the distance from the later of
 * the two marks, each a past value of pings.
 */
static inline uint32_t
lnet_health_ping_count(const struct lnet_health *h)
{
	uint32_t pings = __atomic_load_n(&h->pings, __ATOMIC_RELAXED);
	uint32_t since_heard = pings - __atomic_load_n(&h->pings_heard, __ATOMIC_RELAXED);
	uint32_t since_base = pings - __atomic_load_n(&h->ping_base, __ATOMIC_RELAXED);

	return since_heard < since_base ? since_heard : since_base;
}

void lnet_health_init(struct lnet_health *h, int value);
/* On the MD's CPT before a message's completion: true when it was resent instead. */
bool lnet_health_fin(struct lnet_cpt *c, struct lnet_msg *msg);
/* A message arrived from @p lpni (its shard's lcore): alive now. */
void lnet_health_rx_alive(struct lnet_cpt *c, struct lnet_peer_ni *lpni);
/*
 * Health changes, from any lcore: each is applied by the value's owner (an
 * NI's CPT, a peer NI's shard), inline when the caller is that lcore, else
 * over a hop (lnet_health.c).
 */
/* Failures seen outside a message's completion (a response timeout, a down NID in ping data). */
void lnet_health_local_failure(struct lnet *ln, struct lnet_ni *ni);
void lnet_health_remote_failure(struct lnet *ln, struct lnet_peer_ni *lpni);
/* A message received from @p lpni: healthier (full health from a gateway, or on a router). */
void lnet_health_heard(struct lnet *ln, struct lnet_peer_ni *lpni);
/* Set by configuration or discovery; recovery takes it below the maximum. */
void lnet_health_ni_set(struct lnet *ln, struct lnet_ni *ni, int value);
void lnet_health_lpni_set(struct lnet *ln, struct lnet_peer_ni *lpni, int value);
/* Any lcore: @p ni's health reached 0 (DOWN) or the maximum (UP): its ping status follows. */
void lnet_ni_health_status(struct lnet_ni *ni, bool up);
/* Success on local NI @p ni (any lcore): health up; UP in the ping target at the maximum again. */
void lnet_health_ni_raise(struct lnet *ln, struct lnet_ni *ni);
/* Count a message's deadline: transaction_timeout from its first send. */
void lnet_health_stamp_deadline(struct lnet_cpt *c, struct lnet_msg *msg);

/* lnet_fault_path.c: fault rules on the data path (true: the rule took the message) */
void lnet_fault_cpt_init(struct lnet_cpt *c);
bool lnet_fault_rx_drop(struct lnet_cpt *c, struct lnet_ni *ni, const struct lnet_hdr *hdr);
bool lnet_fault_rx_delay(struct lnet_cpt *c, struct lnet_msg *msg);
bool lnet_fault_tx(struct lnet_cpt *c, struct lnet_msg *msg);
void lnet_fault_drop_held(struct lnet_cpt *c, const struct lnet_ni *ni, int status);
/* The last delay rule went: every CPT lets its held messages go (management lcore). */
void lnet_fault_release_held(struct lnet *ln);

/* lnet_eq.c */
void lnet_eq_enqueue_slow(struct lnet_eq *eq, unsigned int cpt, const struct lnet_event *ev);
void lnet_eq_wake(struct lnet_eq *eq);
void lnet_eq_get(struct lnet_eq *eq, unsigned int cpt);
void lnet_eq_put(struct lnet_eq *eq, unsigned int cpt);

/* lnet_rsp.c: response tracking */
void lnet_rsp_init(struct lnet_cpt *c);
void lnet_rsp_fini(struct lnet_cpt *c);
void lnet_rsp_track(struct lnet_cpt *c, struct lnet_libmd *md, uint32_t type);
void lnet_rsp_untrack(struct lnet_cpt *c, struct lnet_libmd *md);

/* lnet_credits.c */
bool lnet_credits_take_peer(struct lnet_peer_ni *lpni, struct lnet_msg *msg);
struct lnet_msg *lnet_credits_return_peer(struct lnet_peer_ni *lpni, struct lnet_msg *msg);
uint64_t lnet_credits_msg_bytes(const struct lnet_msg *msg);
bool lnet_credits_take_ni(struct lnet_ni *ni, struct lnet_msg *msg);
struct lnet_msg *lnet_credits_return_ni(struct lnet_ni *ni, struct lnet_msg *msg);
void lnet_credits_abort_queued(struct lnet_cpt *c, int status);
void lnet_credits_abort_ni(struct lnet_cpt *c, struct lnet_ni *ni, int status);

static inline unsigned int
lnet_msg_payload_len(const struct lnet_msg *msg)
{
	return msg->hdr.payload_length;
}

/*
 * Back into the pool's cache of @p c's lcore, the one running this,
 * whichever CPT allocated it: no hop home. msgs_alloc is a gauge summed over the
 * CPTs, so the freeing CPT's goes down; the home's msgs_max learns of it
 * through msg_frees_of (lnet_msg_alloc).
 */
static inline void
lnet_msg_free_local(struct lnet_cpt *c, struct lnet_msg *msg)
{
#ifdef __SANITIZE_ADDRESS__
	if (rt_lcore_self() != c->lcore) {
		abort(); /* @p c's cache is its lcore's alone; the sanitizer builds check it */
	}
#endif
	lnet_msg_put_nis(c, msg);
	c->counters.msgs_alloc--;
	if (likely(msg->home_cpt == c->cpt)) {
		c->msg_alive_bound--;
	} else {
		lnet_msg_count_free_away(c, msg->home_cpt);
	}
	rt_pool_cache_put(c->ln->msg_pool, c->msg_cache, msg);
}

/* The zeroed part of a message: up to its header (struct lnet_msg says which fields). */
#define LNET_MSG_ZEROED offsetof(struct lnet_msg, hdr)

/*
 * A message from the pool (@p c's lcore's cache: on that lcore), zeroed up
 * to its header: the header and the event are its maker's to write
 * (lnet_send_on_cpt, lnet_parse). NULL when the pool is empty: the pool
 * counts it, the caller fails with -ENOMEM; nothing is allocated here.
 * Inline: a call costed more than the rest of it.
 */
static inline __attribute__((always_inline)) struct lnet_msg *
lnet_msg_alloc(struct lnet_cpt *c)
{
	struct lnet_msg *msg;

#ifdef __SANITIZE_ADDRESS__
	if (rt_lcore_self() != c->lcore) {
		abort(); /* @p c's cache is its lcore's alone; the sanitizer builds check it */
	}
#endif
	msg = rt_pool_cache_get(c->ln->msg_pool, c->msg_cache);
	if (unlikely(msg == NULL)) {
		return NULL;
	}
	lnet_zero16(msg, LNET_MSG_ZEROED);
#ifdef __SANITIZE_ADDRESS__
	/* The test builds: a field read before it is written reads garbage, loudly. */
	memset((char *)msg + LNET_MSG_ZEROED, 0xa5, sizeof(*msg) - LNET_MSG_ZEROED);
#endif
	msg->ln = c->ln;
	msg->home_cpt = c->cpt;
	c->counters.msgs_alloc++;
	if (unlikely(++c->msg_alive_bound > c->counters.msgs_max)) {
		lnet_msg_max_update(c);
	}
	return msg;
}

/*
 * Test builds (the sanitizer builds every test runs): abort unless the
 * caller runs on the lcore of CPT @p cpt, the owner of the state it is
 * about to write (credit queues, peer NIs, MDs, selection views:
 * ARCHITECTURE.md "Cores and ownership"). Release builds: nothing.
 */
#ifdef __SANITIZE_ADDRESS__
#define LNET_OWNER_ASSERT(ln, cpt) lnet_owner_assert((ln), (cpt), __func__)
#else
#define LNET_OWNER_ASSERT(ln, cpt) ((void)(ln), (void)(cpt))
#endif

__attribute__((noreturn, cold)) void lnet_owner_violation(unsigned int cpt, const char *fn);

static inline void
lnet_owner_assert(const struct lnet *ln, unsigned int cpt, const char *fn)
{
	if (unlikely(rt_lcore_self() != ln->cpts[cpt]->lcore)) {
		lnet_owner_violation(cpt, fn);
	}
}

/* The CPT of @p nid's peer state; one CPT (no hash to take) is decided inline. */
static inline unsigned int
lnet_cpt_of_nid(const struct lnet *ln, const struct lnet_nid *nid)
{
	return ln->ncpts <= 1 ? 0 : lnet_nid_cpt_hash(nid, ln->ncpts);
}

/*
 * The CPT owning @p nid's peer NI (its credits, queues and counts): the
 * CPT of our NI on its net, so that receiving from it, its peer step and
 * the LND's work run on one lcore, as the kernel keeps peer NIs per net per
 * CPT. When a net's NIs span CPTs, one of theirs by NID hash: a message to
 * or from that peer NI through another of them crosses once more. A NID on
 * a net we have no NI on (behind a gateway): by NID hash. One probe of
 * the published NI table's net index. A peer NI made before net add/del
 * moved its net keeps its shard (lnet_peer_ni.cpt) until a lookup makes
 * one in the new shard, which takes its place (lnet_peer_ni_retire).
 */
unsigned int lnet_cpt_of_peer_net(struct lnet *ln, const struct lnet_nid *nid);

static inline unsigned int
lnet_cpt_of_peer(struct lnet *ln, const struct lnet_nid *nid)
{
	return ln->ncpts <= 1 ? 0 : lnet_cpt_of_peer_net(ln, nid);
}

/*
 * Run @p step of @p msg on @p dst_cpt: inline when the caller is that CPT's
 * lcore (the common case: one call, the step known at the call site), else
 * on that lcore's ring or, ring full, from this lcore's outbox in order.
 */
static inline void
lnet_msg_dispatch(struct lnet *ln, struct lnet_msg *msg, unsigned int dst_cpt,
		  enum lnet_msg_step step)
{
	struct lnet_cpt *dst = ln->cpts[dst_cpt];

	msg->step = step;
	if (likely(rt_lcore_self() == dst->lcore)) {
		lnet_msg_step_run(dst, msg, step);
		return;
	}
	lnet_msg_dispatch_away(ln, msg, dst_cpt);
}

/*
 * lnet_msg_dispatch() from a step running on @p c's own lcore (every step
 * and LNet's work on a CPT have theirs): which lcore this is, is known
 * without asking. The sanitizer builds every test runs check that it is
 * (LNET_OWNER_ASSERT).
 */
static inline void
lnet_msg_dispatch_c(struct lnet_cpt *c, struct lnet_msg *msg, unsigned int dst_cpt,
		    enum lnet_msg_step step)
{
	LNET_OWNER_ASSERT(c->ln, c->cpt);
	msg->step = step;
	if (likely(dst_cpt == c->cpt)) {
		lnet_msg_step_run(c, msg, step);
		return;
	}
	lnet_msg_dispatch_away(c->ln, msg, dst_cpt);
}

/*
 * The slot of @p cpt's ring of @p eq that the next event goes into, on that
 * CPT's lcore (its only producer), or NULL: no ring yet, or a full one
 * (then lnet_eq_enqueue_slow). Fill its event, then lnet_eq_commit().
 */
static inline struct lnet_eq_slot *
lnet_eq_reserve(struct lnet_eq *eq, unsigned int cpt)
{
	struct lnet_eq_ring *r = eq->ring[cpt]; /* only this lcore writes it */
	struct lnet_eq_slot *s;

	if (unlikely(r == NULL)) {
		return NULL;
	}
	s = &r->slot[r->tail & r->mask];
	if (unlikely(__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != r->tail)) {
		return NULL; /* full */
	}
	return s;
}

/* Publish the event filled in @p s (from lnet_eq_reserve) to its consumers. */
static inline void
lnet_eq_commit(struct lnet_eq *eq, unsigned int cpt, struct lnet_eq_slot *s)
{
	struct lnet_eq_ring *r = eq->ring[cpt];

	__atomic_store_n(&s->seq, r->tail + 1, __ATOMIC_RELEASE);
	r->tail++;
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST); /* the event before our look at sleepers */
	if (unlikely(__atomic_load_n(&eq->sleepers, __ATOMIC_RELAXED) != 0)) {
		lnet_eq_wake(eq);
	}
}

/* Post a copy of @p ev to @p cpt's ring of @p eq, on that CPT's lcore. */
static inline void
lnet_eq_enqueue(struct lnet_eq *eq, unsigned int cpt, const struct lnet_event *ev)
{
	struct lnet_eq_slot *s = lnet_eq_reserve(eq, cpt);

	if (unlikely(s == NULL)) {
		lnet_eq_enqueue_slow(eq, cpt, ev);
		return;
	}
	memcpy(&s->ev, ev, sizeof(*ev));
	lnet_eq_commit(eq, cpt, s);
}

static inline void
lnet_md_fill_event(const struct lnet_libmd *md, struct lnet_event *ev)
{
	ev->md_handle.cookie = md->cookie;
	ev->md_start = md->start;
	ev->md_user_ptr = md->user_ptr;
	ev->md_options = md->options;
}

/*
 * The event queue an event of @p md goes to, or NULL. With the MD's last
 * event (@p unlinked) the MD lets its queue go: whoever sees that event
 * may free the queue (LNetEQFree).
 */
static inline __attribute__((always_inline)) struct lnet_eq *
lnet_md_event_queue(struct lnet_libmd *md, bool unlinked)
{
	struct lnet_eq *eq = md->eq;

	if (unlikely(unlinked) && eq != NULL) {
		md->eq = NULL;
		lnet_eq_put(eq, md->cpt);
	}
	return eq;
}

/* Post @p ev of @p md: its handler, then its event queue (inlined: every completion has one). */
static inline void
lnet_md_deliver_event(struct lnet_cpt *c, struct lnet_libmd *md, struct lnet_event *ev)
{
	struct lnet_eq *eq;

	lnet_md_fill_event(md, ev);
	ev->sequence = ++c->ev_seq;
	if (md->handler != NULL) {
		md->handler(ev);
	}
	eq = lnet_md_event_queue(md, ev->unlinked);
	if (eq != NULL) {
		lnet_eq_enqueue(eq, c->cpt, ev);
	}
}

#endif /* LNET_INTERNAL_H */
