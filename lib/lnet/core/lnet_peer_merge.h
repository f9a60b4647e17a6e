/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ping and push data checked before it touches the peer table (lnet-facts
 * §3.2, §9.3, §9.4). Two pure steps, no allocation, no lock, no DPDK:
 *
 *   1. lnet_merge_propose(): the bytes of a ping REPLY or a push, as
 *      delivered, decoded by lnet_ping_info_decode() and checked further
 *      (0@lo listed again, a NID listed twice, no primary) into a proposal:
 *      the peer's primary NID by the kernel's rule, its NIDs with their
 *      status, its sequence number and feature bits; or a truncation with
 *      the size to re-ping with; or a refusal with its reason.
 *   2. lnet_merge_plan(): a proposal against one peer of the table, seen
 *      through a NID -> owner callback, gives the operations that make the
 *      peer match it as the kernel's discovery would (peer.c's data_present,
 *      merge_data, add_nid, del_nid, set_primary_nid): NIDs added, moved
 *      from another peer, taken with another peer that is then deleted,
 *      removed, status updated, or refused; the primary NID after; or a
 *      hand-off to the peer that owns the proposal's primary, which the
 *      caller plans again (the two peers merge).
 *
 * The management lcore applies a plan; nothing here changes the table.
 * Every refusal has a reason and a counter in the caller's struct.
 *
 * Applying a plan (the wiring's part): ops in order (TAKE_PEER deletes
 * peer `from` with all its NIDs, then attaches the NID); then the primary
 * (first peer net, first peer NI, as the kernel orders them), the lock and
 * its timestamp, Multi-Rail; BAD_CONFIG on both peers when bad_config. On
 * HANDOFF: the target peer inherits MULTI_RAIL and clears NO_DISCOVERY if
 * this peer has them, then is planned with handed_off set. STATUS_ONLY
 * plans may still hold the ops that take the data's primary (the kernel's
 * set_primary_nid runs before it looks at discovery).
 */
#ifndef LNET_PEER_MERGE_H
#define LNET_PEER_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lnet_wire.h"

/* What a proposal or a plan step says; every value but OK is counted. */
enum lnet_merge_rc {
	LNET_MERGE_OK = 0,
	LNET_MERGE_TRUNCATED,  /* shorter than the sender's data: re-ping with need bytes */
	LNET_MERGE_ESHORT,     /* shorter than a header, or than it declares (not cut by us) */
	LNET_MERGE_EMAGIC,     /* magic neither "ping" nor swapped */
	LNET_MERGE_EFEATURES,  /* NI_STATUS missing (unknown bits pass, as in the kernel) */
	LNET_MERGE_ENNIS,      /* NID count (or declared size) beyond max_nids */
	LNET_MERGE_ELO,        /* entry 0 not 0@lo, or 0@lo listed again */
	LNET_MERGE_ESIZE,      /* declared size inconsistent with the entries */
	LNET_MERGE_ENID,       /* malformed NID, or the ANY NID */
	LNET_MERGE_EDUP,       /* a NID listed twice */
	LNET_MERGE_ENOPRIMARY, /* no NID but 0@lo: the kernel drops such data too */
	LNET_MERGE_ENOTMR,     /* a push without the MULTI_RAIL feature */
	LNET_MERGE_EMAX,
};

/* Text naming @rc. */
const char *lnet_merge_strerror(enum lnet_merge_rc rc);

/* Counters the caller keeps (one per reason, and the outcomes of plans). */
struct lnet_merge_counters {
	uint64_t accepted; /* proposals made */
	uint64_t truncated;
	uint64_t short_data;
	uint64_t bad_magic;
	uint64_t bad_features;
	uint64_t bad_count;
	uint64_t bad_lo;
	uint64_t bad_size;
	uint64_t bad_nid;
	uint64_t dup_nid;
	uint64_t no_primary;
	uint64_t not_mr;
	/* lnet_merge_plan(): NIDs refused, each counted once per plan */
	uint64_t claimed_configured; /* a configured NI of another peer (-EEXIST) */
	uint64_t claimed_locked;     /* the locked primary of another peer (BAD_CONFIG) */
	uint64_t configured_differs; /* data that DLC configuration overrides */
	uint64_t non_mr_net;         /* a second NID on one net of a non-MR peer (-ENOTUNIQ) */
	uint64_t not_mr_peer;        /* non-MR data for a MR peer (-EPERM) */
};

enum lnet_merge_kind {
	LNET_MERGE_PING_REPLY,
	LNET_MERGE_PUSH,
};

/* Data as delivered by the REPLY or PUT event. */
struct lnet_merge_input {
	enum lnet_merge_kind kind;
	const void *buf;
	size_t mlength; /* bytes received */
	size_t rlength; /* bytes the sender sent; 0: mlength */
};

/* A decoded, checked ping info. */
struct lnet_merge_proposal {
	struct lnet_nid primary; /* the kernel's find_primary() */
	uint32_t seqno;          /* 0@lo's status: the sender's ping target version */
	uint32_t features;
	lnet_pid_t pid;
	bool multi_rail;              /* MULTI_RAIL */
	bool discovery;               /* DISCOVERY: without it the peer gets NO_DISCOVERY */
	bool router;                  /* RTE_DISABLED absent */
	size_t need;                  /* TRUNCATED: bytes the whole data takes */
	unsigned int nnids;           /* entries of nids[] used, 0@lo excluded */
	struct lnet_ping_entry *nids; /* caller's array, in the sender's order */
	unsigned int cap;             /* its room: the most NIDs a peer may have */
};

/*
 * Decode and check @in into @p (whose nids/cap the caller set). OK, or
 * TRUNCATED with p->need set (the data is not used: re-ping), or a refusal.
 * The counter of the outcome is incremented.
 */
enum lnet_merge_rc lnet_merge_propose(const struct lnet_merge_input *in,
				      struct lnet_merge_proposal *p,
				      struct lnet_merge_counters *cnt);

/* Bytes a ping info of @nids NIDs (0@lo excluded) may take at most. */
size_t lnet_merge_max_info_size(unsigned int nids);

/* Peers are named by the table's own 64-bit ids. */
typedef uint64_t lnet_merge_peer_id;

/* The peer a proposal is merged into, as the table has it now. */
struct lnet_merge_peer {
	lnet_merge_peer_id id;
	struct lnet_nid primary;      /* 0@lo: the peer of this node (primary set from data) */
	struct lnet_nid want_primary; /* ANY, or the primary `discover` asked for;
					 used when it is one of nids[] */
	bool configured;              /* created by peer add: discovery may not change it */
	bool lock_primary;
	uint64_t lock_ts; /* when the primary was locked: the earliest wins */
	bool multi_rail;
	bool no_discovery;        /* the peer has discovery off (as last seen) */
	bool local_discovery_off; /* `set discovery 0` on this node */
	bool handed_off;          /* planned again after a HANDOFF to this peer: the
				      primary step is skipped, the NIDs merged */
	unsigned int nnids;
	const struct lnet_nid *nids;
};

/* Who owns a NID in the table. */
struct lnet_merge_owner {
	lnet_merge_peer_id peer;
	bool is_primary;      /* the NID is that peer's primary */
	bool peer_configured; /* that peer came from peer add: its NIs stay */
	bool peer_lock_primary;
	uint64_t peer_lock_ts;
	unsigned int peer_nnids;
};

/* true and *out filled when some peer owns @nid. */
typedef bool (*lnet_merge_lookup_fn)(void *arg, const struct lnet_nid *nid,
				     struct lnet_merge_owner *out);

enum lnet_merge_op_type {
	LNET_MERGE_OP_ADD,       /* a NID no peer has */
	LNET_MERGE_OP_MOVE,      /* detach from peer `from`, attach here */
	LNET_MERGE_OP_TAKE_PEER, /* `from`'s primary: delete peer `from`, then add */
	LNET_MERGE_OP_UPDATE,    /* already ours: cache its status */
	LNET_MERGE_OP_REMOVE,    /* ours, no longer listed */
	LNET_MERGE_OP_KEEP,      /* ours, not listed, kept (configured or primary) */
	LNET_MERGE_OP_REFUSE,    /* listed, not taken: reason says why */
};

enum lnet_merge_refusal {
	LNET_MERGE_REFUSE_NONE,
	LNET_MERGE_REFUSE_CONFIGURED_NI,   /* a configured NI of `from` */
	LNET_MERGE_REFUSE_LOCKED_PRIMARY,  /* `from`'s locked primary: both peers BAD_CONFIG */
	LNET_MERGE_REFUSE_CONFIGURED_PEER, /* this peer is configured */
	LNET_MERGE_REFUSE_NON_MR_NET,      /* non-MR: one NID per net */
	LNET_MERGE_REFUSE_NOT_MR,          /* MR peer, data not MR */
};

struct lnet_merge_op {
	enum lnet_merge_op_type type;
	struct lnet_nid nid;
	uint32_t status;         /* from the data; 0 for REMOVE/KEEP */
	lnet_merge_peer_id from; /* MOVE, TAKE_PEER, REFUSE of another peer's NID */
	enum lnet_merge_refusal why;
};

enum lnet_merge_action {
	LNET_MERGE_APPLY,       /* apply ops[] to the peer, set primary */
	LNET_MERGE_STATUS_ONLY, /* discovery off: only UPDATE ops */
	LNET_MERGE_HANDOFF,     /* the data's primary is peer `handoff`'s: plan it there
				      with handed_off set (it inherits this peer's MR and
				      discovery state); its ops take this peer's NIDs */
};

struct lnet_merge_plan {
	enum lnet_merge_action action;
	lnet_merge_peer_id handoff;
	struct lnet_nid primary; /* the peer's primary once applied */
	bool primary_changes;
	bool lock_primary; /* the peer's lock once applied (inherited on TAKE_PEER) */
	uint64_t lock_ts;
	bool multi_rail; /* set, never cleared, as the kernel */
	bool bad_config; /* flag this peer and `from` of a LOCKED_PRIMARY refusal */
	unsigned int nops;
	struct lnet_merge_op *ops; /* caller's array */
	unsigned int cap;          /* proposal's nnids + peer's nnids suffices */
};

/*
 * Plan how @peer takes proposal @p, asking @lookup who owns each NID.
 * 0, or -ENOSPC when plan->cap is too small (nothing counted then).
 * Refused NIDs are counted in @cnt.
 */
int lnet_merge_plan(const struct lnet_merge_proposal *p, const struct lnet_merge_peer *peer,
		    lnet_merge_lookup_fn lookup, void *arg, struct lnet_merge_plan *plan,
		    struct lnet_merge_counters *cnt);

#endif /* LNET_PEER_MERGE_H */
