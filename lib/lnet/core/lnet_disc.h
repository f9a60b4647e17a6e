/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Discovery of one peer as an explicit state machine (seed 002, lnet-facts
 * §9), independent of the peer table and of the network: what it does goes
 * through the caller's lnet_disc_ops, time is the caller's "now", and timers
 * are events the caller feeds back. One lnet_disc per peer, one
 * lnet_disc_node per node (its discovery switch, its ping-target sequence
 * number, the ops, the counters).
 *
 * States (U undiscovered, PG ping sent, W work, PS push sent, D discovered,
 * N no discovery, E error, X deleted, M merged):
 *   U   nothing learnt yet; the first message or `discover` sends a ping.
 *   PG  a ping is out; messages are held. Its REPLY is told from a late one
 *       by the token given to send_ping.
 *   W   transient: data was merged or a push ACKed; the next step is decided
 *       at once, in the kernel's order (a re-ping asked for, discovery off,
 *       a push owed to a Multi-Rail peer behind our sequence number, else
 *       done). Nothing from outside is accepted in W.
 *   PS  our push is out; messages are held until its ACK.
 *   D   NIDs up to date; messages pass.
 *   N   discovery off locally (set discovery 0, s2_01): the peer is used as
 *       configured or as first seen, no ping, no push; messages pass.
 *   E   the last discovery failed (timeout, error, bad data); held messages
 *       were failed with that error; `discover` retries at once, a message
 *       once the back-off below has passed (until then it fails at once
 *       with that error, no ping sent).
 *   X   deleted, M merged into another peer: terminal, nothing fires after.
 *
 * Table (event: transitions; "-" everywhere else = refused, nothing done):
 *   SEND        U,E->PG ping+arm (hold) | PG,PS hold | D,N pass
 *   DISCOVER    U,E,N->PG ping+arm | PG,PS,D stay
 *   FORCE       U,E,N,D->PG ping+arm | W->PG ping+arm (decision)
 *   REPLY       PG->W cancel, merge unless a newer push came (then W decides)
 *   REPLY_TRUNC PG->PG cancel, ping(size the reply announced)+arm
 *   PUSH        U,D,E->W merge | PG,PS,N stay, merge
 *   PUSH_BAD    U,D,E->PG ping+arm | PG,PS stay, re-ping after
 *   ACK         PS->W cancel, note the seqno the peer now has
 *   FAIL        PG,PS->E cancel, fail held | W->E fail held (merge refused)
 *   TIMEOUT     PG,PS->E fail held with -ETIMEDOUT
 *   LOCAL_NI    D->W (owes a push if MR) | U,PG,PS,E,N stay
 *   DISC_OFF    U,E,D->N | PG,PS->N cancel, release | W->N release | N stay
 *   DISC_ON     N->U
 *   NEEDS_PUSH  W->PS push+arm
 *   UPTODATE    W->D release
 *   ADOPT       U,E->PG ping+arm | PG,PS stay | D,N release
 *   DELETE      U,PG,PS,D,N,E->X cancel, fail held (-EHOSTUNREACH)
 *   MERGED      U,PG,PS,D,N,E->M cancel, move held to the survivor
 * Back-off (SEND in E only): after the k-th discovery in a row that failed,
 * a message brings no new ping before 2^(k-1) s have passed, and
 * max_recovery_ping_interval once k-1 > 9: the kernel's schedule for
 * pinging an unhealthy peer NI (lnet_get_next_recovery_ping), applied to
 * the re-ping a message asks for. 2.17's discovery has none of its own
 * (lnet_discover_peer_locked clears lp_dc_error and queues the peer again
 * for each message, lp_last_queued is not read): a peer that never answers
 * would cost a ping per message. A discovery that succeeds, or a push
 * from the peer, ends the back-off; `discover`, the router checker
 * (FORCE) and a push do not wait for it. No timer: the next message
 * after the back-off pings.
 * Sequence numbers: a push that arrives during a ping wins over that ping's
 * reply when the reply's seqno is not higher (the reply is ignored, the ping
 * still completes). Otherwise the last data received is merged, even with a
 * lower seqno: the peer restarted (the kernel does the same).
 *
 * Wiring (everything here runs on the management lcore, which owns every
 * lnet_disc; data lcores hand it what they see and never call in):
 *   - a message to a peer that is not up to date: lnet_disc_send(); HOLD =>
 *     queue it on the peer (the caller's queue), PASS => send, <0 => fail it.
 *   - `lnetctl discover [--force]`: lnet_disc_discover().
 *   - the discovery ping's REPLY event (or its error): lnet_disc_reply() with
 *     the token send_ping was given and the validated info's summary.
 *   - a push received from the peer: lnet_disc_push() (NULL data when it was
 *     corrupt or truncated); the push's ACK/error: lnet_disc_ack().
 *   - the timer armed by arm_timer fired: lnet_disc_timer().
 *   - our NI list changed: lnet_disc_node_local_changed() with the new
 *     ping-target seqno, then lnet_disc_local_changed() on every peer.
 *   - `set discovery 0|1`: lnet_disc_node_enable(), then lnet_disc_enable()
 *     on every peer.
 *   - peer del: lnet_disc_delete(); a merge of two peers found to be one:
 *     lnet_disc_merge(gone, survivor).
 * release_held() resends the queued messages (selection runs again with the
 * new NIDs); fail_held() finalizes them with the error; move_held() splices
 * one peer's queue onto the survivor's.
 *
 * Verification: a peer made by `peer add` starts in U like one met by
 * traffic when discovery is on; its first message or `discover` pings it,
 * and the caller's merge() applies the configured-peer rules of seed 000 /
 * lnet-facts §9.4 (configured NIDs kept, primary locked, a configured
 * non-MR flag kept: merge() may clear d->multi_rail, set from the data just
 * before: Multi-Rail only when the data says so, both ends run discovery).
 * Bad data (wrong magic, impossible count, repeated NIDs...) is refused by
 * the caller's validation before any call here: a bad reply is reported as
 * status < 0, a bad push as NULL data; merge() returning < 0 (NIDs of
 * another peer) fails the discovery without touching the state of others.
 * Tokens: the caller keeps the token with the ping's or push's MD
 * (user_ptr) and hands it back with the event, so a late REPLY or ACK is
 * told from the current one; timers need no token (lnet_disc_timer checks
 * the deadline and that one is armed).
 */
#ifndef LNET_DISC_H
#define LNET_DISC_H

#include <stdbool.h>
#include <stdint.h>

#include "lnp_api.h"
#include "rt_fsm.h"

LNP_BEGIN_DECLS

enum lnet_disc_state {
	LNET_DISC_UNDISCOVERED,
	LNET_DISC_PING_SENT,
	LNET_DISC_WORK,
	LNET_DISC_PUSH_SENT,
	LNET_DISC_DISCOVERED,
	LNET_DISC_NO_DISCOVERY,
	LNET_DISC_ERROR,
	LNET_DISC_DELETED,
	LNET_DISC_MERGED,
	LNET_DISC_NSTATES
};

enum lnet_disc_event {
	LNET_DISC_EV_SEND,
	LNET_DISC_EV_DISCOVER,
	LNET_DISC_EV_FORCE,
	LNET_DISC_EV_REPLY,
	LNET_DISC_EV_REPLY_TRUNC,
	LNET_DISC_EV_PUSH,
	LNET_DISC_EV_PUSH_BAD,
	LNET_DISC_EV_ACK,
	LNET_DISC_EV_FAIL,
	LNET_DISC_EV_TIMEOUT,
	LNET_DISC_EV_LOCAL_NI,
	LNET_DISC_EV_DISC_OFF,
	LNET_DISC_EV_DISC_ON,
	LNET_DISC_EV_NEEDS_PUSH,
	LNET_DISC_EV_UPTODATE,
	LNET_DISC_EV_ADOPT,
	LNET_DISC_EV_DELETE,
	LNET_DISC_EV_MERGED,
	LNET_DISC_NEVENTS
};

/** lnet_disc_send()'s verdicts on a message (errors are negative). */
enum lnet_disc_verdict {
	LNET_DISC_PASS = 0, /**< send it now */
	LNET_DISC_HOLD = 1, /**< queue it behind the peer until release or fail */
};

/** Smallest discovery reply buffer: 0@lo and 15 NIDs (LNET_PING_INFO_MIN_SIZE). */
#define LNET_DISC_PING_MIN_SIZE 272u

/** Largest by default: 0@lo and lnet_interfaces_max (4096) NIDs, each up to 16 + 24 bytes. */
#define LNET_DISC_PING_MAX_SIZE (16u + 4096u * 40u)

/** What the caller read from a validated ping reply or push. */
struct lnet_disc_data {
	uint32_t seqno;   /**< entry 0's ns_status: the peer's ping-target seqno */
	uint32_t nbytes;  /**< the info's full size as it announces it */
	bool multi_rail;  /**< MULTI_RAIL feature */
	bool discovery;   /**< DISCOVERY feature: the peer runs discovery */
	const void *info; /**< the caller's buffer, handed to merge() as is */
};

struct lnet_disc;

/** What the machine does; all called on the management lcore. */
struct lnet_disc_ops {
	/** GET the peer's ping info into @p size bytes; its REPLY comes back with @p token. */
	int (*send_ping)(struct lnet_disc *d, uint32_t token, uint32_t size);
	/** PUT our ping info (seqno @p seqno) to the peer, ACK wanted, tagged @p token. */
	int (*send_push)(struct lnet_disc *d, uint32_t token, uint32_t seqno);
	/** Merge the peer's NIDs into the peer table; < 0 refuses the data. */
	int (*merge)(struct lnet_disc *d, const struct lnet_disc_data *data);
	void (*release_held)(struct lnet_disc *d);
	void (*fail_held)(struct lnet_disc *d, int error);
	void (*move_held)(struct lnet_disc *from, struct lnet_disc *to);
	void (*arm_timer)(struct lnet_disc *d, uint64_t deadline);
	void (*cancel_timer)(struct lnet_disc *d);
};

/** Counts of inputs the machine did not act on, for telemetry. */
struct lnet_disc_stats {
	uint64_t refused;     /**< event refused by the table */
	uint64_t stale_reply; /**< REPLY of no ping in flight (late, or of an earlier ping) */
	uint64_t stale_ack;   /**< ACK of no push in flight */
	uint64_t stale_timer; /**< timer with nothing armed, or before its deadline */
	uint64_t old_data;    /**< ping replies older than a push received during the ping */
	uint64_t too_big;     /**< reply announcing more than ping_max bytes */
	uint64_t backoff;     /**< messages failed at once, the peer's back-off not over */
};

/** Node-wide discovery: one per LNet instance. */
struct lnet_disc_node {
	const struct lnet_disc_ops *ops;
	void *arg;             /**< the caller's */
	uint64_t timeout;      /**< a ping's or push's deadline after sending, in "now" units */
	uint32_t ping_max;     /**< largest reply buffer a re-ping may ask for */
	uint32_t local_seqno;  /**< our ping target's seqno */
	bool enabled;          /**< `set discovery` */
	uint64_t backoff_unit; /**< "now" units in a second of back-off; 0: no back-off */
	int backoff_max;       /**< longest back-off, seconds (max_recovery_ping_interval) */
	uint32_t next_token;
	uint64_t entered[LNET_DISC_NSTATES]; /**< rt_fsm_step counts */
	struct lnet_disc_stats stats;
};

/** One peer's discovery. */
struct lnet_disc {
	struct lnet_disc_node *node;
	void *peer; /**< the caller's peer */
	enum lnet_disc_state state;
	uint32_t ping_size;    /**< reply buffer of the next ping */
	uint32_t ping_token;   /**< of the ping in flight, 0 = none */
	uint32_t push_token;   /**< of the push in flight, 0 = none */
	uint32_t peer_seqno;   /**< seqno of the peer data merged last */
	uint32_t node_seqno;   /**< our seqno the peer has ACKed */
	uint32_t pushed_seqno; /**< our seqno in the push in flight */
	bool have_peer_seqno;
	bool push_during_ping; /**< peer_seqno came from a push while the ping was out */
	bool multi_rail;       /**< the peer said MULTI_RAIL */
	bool peer_discovery;   /**< the peer said DISCOVERY */
	bool reping;           /**< ping again once the step in flight ends */
	bool timer_armed;
	uint64_t deadline;
	int error;         /**< of the last failed discovery, 0 if none */
	uint32_t fails;    /**< discoveries failed in a row */
	uint64_t retry_at; /**< in E: a message pings again from then on */
	unsigned int held; /**< messages held since the last release/fail/move */
	char name[48];     /**< for logs (the caller may write the primary NID) */
};

/** The one arguments bag of lnet_disc_fire(); fields unused by an event are ignored. */
struct lnet_disc_arg {
	const struct lnet_disc_data *data; /**< REPLY, REPLY_TRUNC, PUSH */
	int error;                         /**< FAIL */
	struct lnet_disc *survivor;        /**< MERGED */
};

extern const struct rt_fsm lnet_disc_fsm;

void lnet_disc_node_init(struct lnet_disc_node *n, const struct lnet_disc_ops *ops, void *arg,
			 uint64_t timeout);
void lnet_disc_init(struct lnet_disc_node *n, struct lnet_disc *d, void *peer);

/** The one place a peer's discovery state changes: by the table, logged, counted. */
int lnet_disc_set_state(struct lnet_disc *d, enum lnet_disc_event ev);

/**
 * Apply @p ev and its actions, then the decisions they lead to.
 * @return 0, or -EINVAL when the table refuses @p ev in the current state
 */
int lnet_disc_fire(struct lnet_disc *d, enum lnet_disc_event ev, const struct lnet_disc_arg *a,
		   uint64_t now);

/** A message wants the peer: LNET_DISC_PASS, LNET_DISC_HOLD or -errno (fail it). */
int lnet_disc_send(struct lnet_disc *d, uint64_t now);
/** `lnetctl discover` (@p force: ping even a discovered peer); -EBUSY while one runs. */
int lnet_disc_discover(struct lnet_disc *d, bool force, uint64_t now);
/** REPLY of ping @p token: @p status < 0 (error event) or validated @p data; -ESTALE if late. */
int lnet_disc_reply(struct lnet_disc *d, uint32_t token, int status,
		    const struct lnet_disc_data *data, uint64_t now);
/** A push from the peer: validated @p data, or NULL when it was corrupt or truncated. */
int lnet_disc_push(struct lnet_disc *d, const struct lnet_disc_data *data, uint64_t now);
/** The ACK (status 0) or failure of our push @p token; -ESTALE when none is in flight. */
int lnet_disc_ack(struct lnet_disc *d, uint32_t token, int status, uint64_t now);
/** The timer armed by arm_timer fired at @p now; -ESTALE when none is due. */
int lnet_disc_timer(struct lnet_disc *d, uint64_t now);
/** Our NI list changed and the node's seqno with it (after lnet_disc_node_local_changed). */
int lnet_disc_local_changed(struct lnet_disc *d, uint64_t now);
/** Discovery turned on or off (after lnet_disc_node_enable). */
int lnet_disc_enable(struct lnet_disc *d, bool on, uint64_t now);
/** The peer is deleted; its held messages fail; nothing fires after. */
int lnet_disc_delete(struct lnet_disc *d, uint64_t now);
/** @p gone was found to be @p survivor: its held messages move there and @p gone ends. */
int lnet_disc_merge(struct lnet_disc *gone, struct lnet_disc *survivor, uint64_t now);

void lnet_disc_node_local_changed(struct lnet_disc_node *n, uint32_t seqno);
void lnet_disc_node_enable(struct lnet_disc_node *n, bool on);

/** Messages may pass (D or N). */
bool lnet_disc_uptodate(const struct lnet_disc *d);
const char *lnet_disc_state_str(enum lnet_disc_state s);

LNP_END_DECLS

#endif /* LNET_DISC_H */
