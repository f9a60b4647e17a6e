/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The transfer-machine transport over LNet (seed 003, issue 36; doc/xprt.md
 * maps the seed's terms to these names).
 *
 * An application opens a domain, starts transfer machines (TMs) at end-point
 * addresses `NID:PID:portal:TMID`, registers network buffers and adds them to
 * one of six queues; each completed operation is reported by one buffer event
 * (several for a receive buffer that takes several messages). This header
 * also holds the pure pieces the transport and its peers share: the address
 * grammar, the match bits and header data that carry a TMID through LNet,
 * and the 48-byte descriptor that names a passive buffer to a peer.
 *
 * Include as <lnet/xprt.h> and link with `pkg-config --libs liblnet-xprt`.
 */
#ifndef LNET_XPRT_H
#define LNET_XPRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "cfs_nid.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Exported by liblnet-xprt.so (lib/xprt/xprt.map); a macro of its own, as
 * LNP_API marks what liblnet.so exports.
 */
#define XPRT_API __attribute__((visibility("default")))

/** The six queues a buffer is added to (the numbering is in descriptors). */
enum xprt_qtype {
	XPRT_Q_MSG_RECV = 0,     /**< unsolicited messages come in here */
	XPRT_Q_MSG_SEND = 1,     /**< a message to an address */
	XPRT_Q_PASSIVE_RECV = 2, /**< a peer will PUT into it (its descriptor says where) */
	XPRT_Q_PASSIVE_SEND = 3, /**< a peer will GET from it */
	XPRT_Q_ACTIVE_RECV = 4,  /**< GET from a peer's passive send buffer */
	XPRT_Q_ACTIVE_SEND = 5,  /**< PUT into a peer's passive receive buffer */
	XPRT_Q_NR = 6,           /**< the number of queues; "all" for statistics */
};

/* ---- end-point addresses: NID:PID:portal:TMID ---- */

/** The PID a TM's address must carry (LNet's, as kernel peers deliver only to it). */
#define XPRT_PID LNET_PID_LUSTRE
/** Largest TMID an address may name. */
#define XPRT_TMID_MAX 4095u
/** The TMID of an address ending in `*`: the TM gets the highest free one at start. */
#define XPRT_TMID_DYNAMIC 4096u
/** Portals a TM may use are 1..XPRT_PORTAL_MAX - 1 (0 is LNet's reserved portal). */
#define XPRT_PORTAL_MAX 64u
/** Longest address text, its NUL included. */
#define XPRT_ADDR_LEN 80u
/** Longest NID part of an address text, its NUL included. */
#define XPRT_ADDR_NID_LEN 32u

/** An end-point address, decoded. */
struct xprt_addr {
	struct lnet_nid nid;
	uint32_t pid;
	uint32_t portal;
	uint32_t tmid; /**< 1..XPRT_TMID_MAX, or XPRT_TMID_DYNAMIC */
};

/**
 * Decode `NID:PID:portal:TMID` (TMID `*` for a dynamic one). The PID and the
 * portal are only decoded here; a TM's start checks them against the node.
 * @return 0, or -EINVAL (a part missing, not a number, out of range, TMID 0,
 *         a NID LNet does not know, text too long)
 */
XPRT_API int xprt_addr_parse(const char *text, struct xprt_addr *out);

/**
 * Print @p a as xprt_addr_parse() reads it (`*` for a dynamic TMID).
 * @return the length printed (without the NUL), or -ENOSPC when @p len is too small
 */
XPRT_API int xprt_addr_format(const struct xprt_addr *a, char *buf, size_t len);

/**
 * Compare the NID parts of two address texts as strcmp does, to group TMs by NID.
 * @return <0, 0 or >0; -1 when either text has no ':'
 */
XPRT_API int xprt_addr_net_cmp(const char *a, const char *b);

/* ---- match bits and header data ---- */

/** Match bits: the TMID of the TM that owns the ME in the top 12 bits. */
#define XPRT_MB_TMID_SHIFT 52
/** The low 52 bits: 0 for a TM's receive queue, else a passive buffer's id. */
#define XPRT_MB_ID_MASK ((UINT64_C(1) << XPRT_MB_TMID_SHIFT) - 1)
/** Largest passive buffer id; ids wrap from here back to 1. */
#define XPRT_MB_ID_MAX XPRT_MB_ID_MASK

/** The match bits of buffer @p id of TM @p tmid (id 0: its receive queue). */
static inline uint64_t
xprt_mb_make(uint32_t tmid, uint64_t id)
{
	return ((uint64_t)tmid << XPRT_MB_TMID_SHIFT) | (id & XPRT_MB_ID_MASK);
}

/** The TMID in match bits. */
static inline uint32_t
xprt_mb_tmid(uint64_t mb)
{
	return (uint32_t)(mb >> XPRT_MB_TMID_SHIFT);
}

/** The buffer id in match bits. */
static inline uint64_t
xprt_mb_id(uint64_t mb)
{
	return mb & XPRT_MB_ID_MASK;
}

/** The passive buffer id after @p id: 1..XPRT_MB_ID_MAX, wrapping (0 is the receive queue's). */
static inline uint64_t
xprt_mb_id_next(uint64_t id)
{
	return id >= XPRT_MB_ID_MAX ? 1 : id + 1;
}

/** Header data of every PUT a TM sends: its TMID and portal, for the receiver to name it. */
static inline uint64_t
xprt_hdr_data_make(uint32_t tmid, uint32_t portal)
{
	return ((uint64_t)tmid << XPRT_MB_TMID_SHIFT) | ((uint64_t)portal & XPRT_MB_ID_MASK);
}

/**
 * The sender of a PUT: the initiator's NID and PID, the TMID and portal its
 * header data carries (header data 0: all zero, as from a sender that is no TM).
 */
XPRT_API void xprt_hdr_data_sender(uint64_t hdr_data, const struct lnet_nid *nid, uint32_t pid,
				   struct xprt_addr *out);

/* ---- the passive buffer descriptor ---- */

/** Bytes of a descriptor: five little-endian u64 words (some split in u32s) and their XOR. */
#define XPRT_DESC_SIZE 48u

/** What a descriptor says about a passive buffer. */
struct xprt_desc_info {
	uint64_t match_bits;   /**< (the passive TM's TMID, the buffer's id) */
	struct xprt_addr addr; /**< the passive TM's address (a NID that fits 64 bits) */
	uint32_t qtype;        /**< XPRT_Q_PASSIVE_RECV or XPRT_Q_PASSIVE_SEND */
	uint64_t size;         /**< a passive receive's whole buffer; a passive send's length */
};

/** A descriptor as an application carries it in its own messages. */
struct xprt_desc {
	uint32_t len; /**< XPRT_DESC_SIZE when set, 0 when empty */
	uint8_t bytes[XPRT_DESC_SIZE];
};

/**
 * Encode @p info into @p out.
 * @return 0, or -EINVAL (a NID wider than 64 bits, a queue that is not passive)
 */
XPRT_API int xprt_desc_encode(const struct xprt_desc_info *info, struct xprt_desc *out);

/**
 * Decode a peer's descriptor for an active operation, checking in this
 * order: its size and checksum (-EINVAL); that its passive queue pairs with
 * @p active_qtype, a passive send with an active receive and a passive
 * receive with an active send (-EPERM; -EINVAL for a queue that is not
 * passive); the sizes (-EFBIG: a passive send longer than @p buf_size, or a
 * @p send_len longer than the passive receive); the match bits' buffer id
 * (1..XPRT_MB_ID_MAX) and TMID (the descriptor's), and a NID we can name
 * (not ANY, nothing in the top byte) (-EINVAL).
 * @param xfer_len receives the bytes the active operation moves
 * @return 0 or -errno as above
 */
XPRT_API int xprt_desc_decode(const struct xprt_desc *d, enum xprt_qtype active_qtype,
			      uint64_t buf_size, uint64_t send_len, struct xprt_desc_info *info,
			      uint64_t *xfer_len);

/* ---- domains, transfer machines and buffers ---- */

struct xprt_dom;
struct xprt_tm;
struct xprt_buf;
struct xprt_pool;

/** Deadline of a buffer that never times out. */
#define XPRT_NEVER UINT64_MAX
/** Largest buffer: one LNet message. */
#define XPRT_BUF_MAX_SIZE (1u << 20)
/** Most segments of a buffer (one MD's fragments). */
#define XPRT_BUF_MAX_SEGS 256u

/** Options of a domain; zero fields take the defaults. */
struct xprt_dom_opts {
	size_t opts_size; /**< sizeof(struct xprt_dom_opts) */
	/** The clock of buffer deadlines (ns); NULL: CLOCK_MONOTONIC. */
	uint64_t (*now_ns)(void *ctx);
	void *clock_ctx;
	unsigned int max_tms;     /**< TMs at once; 0: 64 */
	unsigned int max_bufs;    /**< registered buffers at once; 0: 4096 */
	unsigned int ring_events; /**< each TM's event ring, a power of two; 0: 4096 */
	unsigned int op_ring;     /**< the domain's operation ring, a power of two; 0: 4096 */
	/**
	 * CPUs the engine thread may run on (bit i: CPU i); 0: wherever the
	 * scheduler puts it. The engine runs LNet for the domain's TMs and
	 * delivers their asynchronous events: pinning it near the buffers' memory
	 * is this slice's processor affinity (doc/xprt.md).
	 */
	uint64_t engine_cpus;
};

/**
 * Open a domain on this process's LNet (up already: LNetNIInit). Its engine
 * thread makes every LNet call of the domain's TMs and buffers; it is the
 * part a later slice moves into lnetd-pmd, behind the same operation and
 * event rings.
 * @return 0, -EINVAL (bad options, engine_cpus naming no CPU we may use),
 *         -ENOMEM, -errno
 */
XPRT_API int xprt_dom_init(const struct xprt_dom_opts *opts, struct xprt_dom **out);

/**
 * Close a domain: every TM finalized and every buffer deregistered first.
 * @return 0 or -EBUSY (nothing is closed)
 */
XPRT_API int xprt_dom_fini(struct xprt_dom *dom);

/** Transfer machine states. */
enum xprt_tm_state {
	XPRT_TM_UNDEFINED = 0,
	XPRT_TM_INITIALIZED,
	XPRT_TM_STARTING,
	XPRT_TM_STARTED,
	XPRT_TM_STOPPING,
	XPRT_TM_STOPPED,
	XPRT_TM_FAILED, /**< only xprt_tm_fini() is left */
};

/** Kinds of TM events. */
enum xprt_tm_event_type {
	XPRT_TM_EV_ERROR = 0, /**< an error outside any buffer (-ENOBUFS: messages lost) */
	XPRT_TM_EV_STATE = 1, /**< the TM entered next_state */
};

/** A TM event. */
struct xprt_tm_event {
	enum xprt_tm_event_type type;
	int status;                    /**< 0, or why the TM failed / the error */
	enum xprt_tm_state next_state; /**< XPRT_TM_EV_STATE: STARTED, STOPPED or FAILED */
	struct xprt_addr addr;         /**< STARTED: the TM's address (its TMID assigned) */
};

/** What a TM tells its owner. */
struct xprt_tm_cbs {
	void (*event)(struct xprt_tm *tm, const struct xprt_tm_event *ev, void *ctx);
};

/**
 * A TM in state INITIALIZED.
 * @return 0, -EINVAL (no event callback), -ENOSPC (the domain's max_tms), -ENOMEM
 */
XPRT_API int xprt_tm_init(struct xprt_dom *dom, const struct xprt_tm_cbs *cbs, void *ctx,
			  struct xprt_tm **out);

/**
 * Buffer events of @p tm wait for xprt_tm_deliver_all() (on the caller's
 * thread) instead of being delivered on the domain's thread. Before start.
 * @return 0 or -EINVAL (not INITIALIZED)
 */
XPRT_API int xprt_tm_sync_delivery(struct xprt_tm *tm);

/**
 * Start @p tm at @p addr (TMID `*`: the highest free one, from 4095 down).
 * The TM is STARTING on return; a STATE event says STARTED (with the
 * address) or FAILED: -ENOENT (the NID is not one of this node's, or the
 * PID is not XPRT_PID), -EINVAL (portal 0 or past 63), -EADDRINUSE (the
 * address is another TM's), -EADDRNOTAVAIL (no TMID is free).
 * @return 0, -EINVAL (bad text, not INITIALIZED), -ENOMEM
 */
XPRT_API int xprt_tm_start(struct xprt_tm *tm, const char *addr);

/**
 * Stop @p tm: STOPPING on return, a STATE event STOPPED once every queue is
 * empty. Receive buffers are cancelled; with @p abort, every other queued
 * buffer too (its event says -ECANCELED), else they complete first.
 * @return 0 or -EINVAL (not STARTING or STARTED)
 */
XPRT_API int xprt_tm_stop(struct xprt_tm *tm, bool abort);

/**
 * Release a TM that is INITIALIZED, STOPPED or FAILED.
 * @return 0 or -EBUSY
 */
XPRT_API int xprt_tm_fini(struct xprt_tm *tm);

/** The TM's state. */
XPRT_API enum xprt_tm_state xprt_tm_state_get(const struct xprt_tm *tm);

/**
 * The TM's address once STARTED.
 * @return 0 or -EINVAL (not started)
 */
XPRT_API int xprt_tm_addr(const struct xprt_tm *tm, struct xprt_addr *out);

/** True when buffer events wait for xprt_tm_deliver_all(). */
XPRT_API bool xprt_tm_events_pending(struct xprt_tm *tm);

/**
 * Deliver every waiting event of @p tm on the calling thread (none is not an error).
 * @return the number delivered, or -EINVAL (not in synchronous delivery)
 */
XPRT_API int xprt_tm_deliver_all(struct xprt_tm *tm);

/**
 * Write 1 to eventfd @p fd when the next event of @p tm arrives (once; at
 * once if one is waiting). Does not block.
 * @return 0 or -EINVAL
 */
XPRT_API int xprt_tm_notify(struct xprt_tm *tm, int fd);

/** Statistics of one queue. */
struct xprt_qstats {
	uint64_t adds;      /**< buffers added */
	uint64_t dels;      /**< buffers deleted by xprt_buf_del() */
	uint64_t successes; /**< events with status 0 */
	uint64_t
		failures; /**< events with an error (receive: plus buffers a pool could not give) */
	uint64_t time_ns; /**< total time buffers spent queued */
	uint64_t bytes;   /**< total bytes moved */
	uint64_t max_bytes; /**< most bytes of one event */
};

/**
 * Read (and with @p reset zero) the statistics of queue @p q, or of all
 * queues summed with XPRT_Q_NR.
 * @return 0 or -EINVAL
 */
XPRT_API int xprt_tm_stats(struct xprt_tm *tm, enum xprt_qtype q, struct xprt_qstats *out,
			   bool reset);

/** Buffer flags (struct xprt_buf.flags), set by the library. */
#define XPRT_BUF_REGISTERED 0x01u /**< registered with its domain */
#define XPRT_BUF_QUEUED 0x02u     /**< on a queue: not to be added, returned or deregistered */
#define XPRT_BUF_IN_USE 0x04u     /**< the transport has started using it */
#define XPRT_BUF_CANCELLED 0x08u  /**< xprt_buf_del() asked for it to come back */
#define XPRT_BUF_TIMED_OUT 0x10u  /**< its deadline passed; it is being cancelled */

/** One completed operation (or one message into a receive buffer). */
struct xprt_buf_event {
	struct xprt_buf *buf;
	int status;            /**< 0, -ECANCELED (deleted), -ETIMEDOUT, or an LNet -errno */
	uint64_t length;       /**< bytes received (receive queues) */
	uint64_t offset;       /**< where this message starts in the buffer */
	struct xprt_addr from; /**< MSG_RECV: the sender */
};

/** A buffer's callbacks, one per queue; NULL where the buffer is never added. */
struct xprt_buf_cbs {
	void (*done[XPRT_Q_NR])(const struct xprt_buf_event *ev);
};

/**
 * A network buffer. The application fills the fields above the line; the
 * library owns those below it.
 */
struct xprt_buf {
	const struct iovec *segs; /**< its memory; fixed from registration on */
	unsigned int nsegs;
	enum xprt_qtype qtype; /**< the queue of the next xprt_buf_add() */
	const struct xprt_buf_cbs *cbs;
	uint64_t length;        /**< bytes to send (sending queues) */
	uint64_t deadline_ns;   /**< absolute on the domain's clock, or XPRT_NEVER */
	struct xprt_addr dest;  /**< MSG_SEND: where to */
	struct xprt_desc desc;  /**< ACTIVE_*: the peer's; PASSIVE_*: set by add */
	uint64_t min_recv_size; /**< MSG_RECV: keep queued while this much is left */
	uint32_t max_recv_msgs; /**< MSG_RECV: at most this many messages */
	void *app;              /**< the application's */
	/* ---- owned by the library ---- */
	uint32_t flags;         /**< XPRT_BUF_* */
	struct xprt_dom *dom;   /**< set by registration */
	struct xprt_tm *tm;     /**< set by add */
	struct xprt_pool *pool; /**< the pool it came from, or NULL */
	uint64_t size;          /**< the sum of its segments */
	uint64_t add_time_ns;   /**< when it was added */
	uint64_t msgs_received; /**< messages received into it, ever */
	uint64_t handle;        /**< its slot and generation in the domain */
	uint32_t reserved;      /**< event-ring slots its add reserved */
};

/**
 * Register @p buf with @p dom: its flags must be 0, its segments 1..256
 * non-empty ones of at most XPRT_BUF_MAX_SIZE bytes in all.
 * @return 0, -EINVAL, -EFBIG (too big), -ENOSPC (the domain's max_bufs)
 */
XPRT_API int xprt_buf_register(struct xprt_dom *dom, struct xprt_buf *buf);

/**
 * Deregister @p buf (flags exactly REGISTERED; not from a callback).
 * @return 0 or -EBUSY
 */
XPRT_API int xprt_buf_deregister(struct xprt_buf *buf);

/**
 * Add @p buf to queue buf->qtype of @p tm. A passive buffer's descriptor is
 * in buf->desc on return; an active one's is checked as xprt_desc_decode()
 * says. The callback of buf->qtype runs once per event; a receive buffer
 * stays QUEUED (several events) until its last message or its cancel.
 * @return 0, -EINVAL (state, flags, fields), -ETIME (deadline already past),
 *         -EPERM / -EFBIG (a descriptor that does not fit), -ENOBUFS (the
 *         TM's event ring would be over-committed)
 */
XPRT_API int xprt_buf_add(struct xprt_tm *tm, struct xprt_buf *buf);

/**
 * Cancel @p buf if it is still queued on @p tm: its event comes with
 * -ECANCELED, unless the operation completes first.
 * @return true if it was queued
 */
XPRT_API bool xprt_buf_del(struct xprt_tm *tm, struct xprt_buf *buf);

/* ---- buffer pools, and TMs whose receive queue they fill ---- */

/** The colour of a get or put that prefers none. */
#define XPRT_ANY_COLOUR UINT32_MAX
/** A pool's low-water mark unless said otherwise. */
#define XPRT_POOL_THRESHOLD 2u
/** Buffers a pool keeps on a TM's receive queue unless said otherwise. */
#define XPRT_RECV_QUEUE_LEN 2u

/** What a pool tells its owner; both are called without the pool's lock. */
struct xprt_pool_ops {
	/** Free buffers went from 0 to 1: call xprt_pool_signal(), nothing that takes. */
	void (*not_empty)(struct xprt_pool *pool, void *ctx);
	/** A get left fewer free buffers than the threshold: time to provision. */
	void (*below_threshold)(struct xprt_pool *pool, void *ctx);
};

/** A pool's shape; zero fields take the defaults. */
struct xprt_pool_opts {
	size_t opts_size;       /**< sizeof(struct xprt_pool_opts) */
	unsigned int threshold; /**< 0: XPRT_POOL_THRESHOLD */
	unsigned int nsegs;     /**< segments per buffer (1..XPRT_BUF_MAX_SEGS) */
	size_t seg_size;        /**< bytes per segment */
	unsigned int colours;   /**< colour lists: colours 0..colours-1 */
};

/**
 * An empty pool of buffers registered with @p dom.
 * @return 0, -EINVAL (no ops, a shape no buffer can have), -ENOMEM
 */
XPRT_API int xprt_pool_init(struct xprt_dom *dom, const struct xprt_pool_ops *ops, void *ctx,
			    const struct xprt_pool_opts *opts, struct xprt_pool **out);

/** Allocate and register @p n more buffers; returns how many were added. */
XPRT_API unsigned int xprt_pool_provision(struct xprt_pool *pool, unsigned int n);

/**
 * Take a buffer: the last one put with @p colour if there is one, else the
 * least recently put. NULL when the pool is empty.
 */
XPRT_API struct xprt_buf *xprt_pool_get(struct xprt_pool *pool, uint32_t colour);

/**
 * Give @p buf back (not QUEUED), under @p colour (XPRT_ANY_COLOUR: none).
 * @return 0 or -EINVAL
 */
XPRT_API int xprt_pool_put(struct xprt_pool *pool, struct xprt_buf *buf, uint32_t colour);

/** Free the least recently put buffer if more than the threshold are free. */
XPRT_API bool xprt_pool_prune(struct xprt_pool *pool);

/** Buffers in the pool now. */
XPRT_API unsigned int xprt_pool_free_count(struct xprt_pool *pool);

/**
 * Free the pool: every buffer back first.
 * @return 0 or -EBUSY
 */
XPRT_API int xprt_pool_fini(struct xprt_pool *pool);

/**
 * The pool has buffers again: TMs it left short refill their receive
 * queues (on the domain's thread). What a not_empty op calls.
 */
XPRT_API void xprt_pool_signal(struct xprt_pool *pool);

/**
 * Keep @p tm's receive queue at least @p min_len buffers long (0:
 * XPRT_RECV_QUEUE_LEN) from @p pool: at start, before each receive event
 * that took a buffer off the queue is delivered, when the pool is signalled,
 * and when the length changes. Buffers are taken with the TM's colour; on
 * stop they go back to the pool by themselves. Before start.
 * @return 0 or -EINVAL
 */
XPRT_API int xprt_tm_pool_attach(struct xprt_tm *tm, struct xprt_pool *pool,
				 const struct xprt_buf_cbs *cbs, uint64_t min_recv_size,
				 uint32_t max_recv_msgs, unsigned int min_len);

/**
 * Change the receive queue's minimum length (it refills now).
 * @return 0 or -EINVAL (no pool)
 */
XPRT_API int xprt_tm_pool_length_set(struct xprt_tm *tm, unsigned int min_len);

/**
 * The colour the TM takes pool buffers with (XPRT_ANY_COLOUR by default).
 * @return 0 or -EINVAL (not INITIALIZED or STARTED)
 */
XPRT_API int xprt_tm_colour_set(struct xprt_tm *tm, uint32_t colour);

/** The TM's colour. */
XPRT_API uint32_t xprt_tm_colour_get(struct xprt_tm *tm);

#ifdef __cplusplus
}
#endif

#endif /* LNET_XPRT_H */
