/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's objects. Each is split by who writes it: the front (the
 * application's calls and the delivery of events) and the engine (the
 * domain's thread, which makes every LNet call). The two talk only through
 * the rings of xprt_ring.h; the engine's halves (struct xprt_eng_*) are
 * what a later slice moves into lnetd-pmd.
 */
#ifndef XPRT_INTERNAL_H
#define XPRT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <rte_log.h>

#include "api.h"
#include "xprt.h"
#include "xprt_ring.h"

struct rte_ring;

/* The library's log type, "xprt" in DPDK's log (lnetd-pmd --log-level xprt:debug). */
extern int xprt_logtype;
#define XPRT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, xprt_logtype, "xprt: " fmt "\n", ##__VA_ARGS__)

/* The engine's record of a buffer: the LNet side of its current operation. */
struct xprt_eng_buf {
	bool active;               /* an operation is in flight */
	uint32_t tm_slot;          /* the TM it is queued on */
	uint32_t qtype;            /* enum xprt_qtype */
	struct lnet_handle_md mdh; /* its MD while active */
	unsigned int niov;         /* the slot's iov entries its MD covers */
	uint64_t deadline_ns;      /* XPRT_NEVER or when to cancel it */
	bool timed_out;            /* cancelled for its deadline: -ECANCELED becomes -ETIMEDOUT */
	int refused;               /* LNet refused the operation: the status of its last event */
	bool reply_seen;           /* ACTIVE_RECV: the REPLY came (before or after the SEND) */
	int reply_status;
	uint64_t reply_len;
	uint64_t reply_off;
};

/* A slot of the domain's buffer table. */
struct xprt_buf_slot {
	uint32_t gen;         /* moves at each registration */
	struct xprt_buf *buf; /* the front's buffer, NULL when free */
	/*
	 * What registration gave the engine (a later slice: a memfd range):
	 * the segments and their sum, fixed while registered; the engine never
	 * reads the front's struct xprt_buf.
	 */
	struct iovec *segs;
	unsigned int nsegs;
	uint64_t size;
	struct iovec *iov;       /* scratch: the segments cut at an operation's length */
	struct xprt_eng_buf eng; /* written by the engine only */
};

/* The engine's record of a TM. */
struct xprt_eng_tm {
	bool started;          /* holds a TMID */
	bool stopping;         /* STOPPED goes out once no buffer is active */
	unsigned int active;   /* buffers with an operation in flight */
	struct xprt_addr addr; /* with the TMID assigned */
	uint64_t handle;
	int failed;        /* 0, or why the TM failed: its buffers are being cancelled */
	bool failure_told; /* the front was told (tm->failed) once nothing was active */
};

struct xprt_tm {
	struct xprt_dom *dom;
	uint64_t handle;
	struct xprt_tm_cbs cbs;
	void *ctx;
	bool sync;                /* buffer events wait for xprt_tm_deliver_all */
	struct rte_ring *evr;     /* events from the engine */
	unsigned int ev_budget;   /* slots buffers may reserve in evr */
	pthread_mutex_t lock;     /* the fields below */
	enum xprt_tm_state state; /* through xprt_tm_fsm only */
	struct xprt_addr addr;    /* once STARTED */
	uint64_t next_id;         /* the last passive buffer id given */
	unsigned int reserved;    /* evr slots reserved by queued buffers */
	unsigned int queued[XPRT_Q_NR];
	struct xprt_qstats stats[XPRT_Q_NR];
	atomic_int notify_fd;         /* -1, or the eventfd the next event writes */
	pthread_mutex_t deliver_lock; /* one deliverer at a time: events stay in order */
	/* Its receive queue from a pool (xprt_tm_pool_attach), fixed once started. */
	struct xprt_pool *pool;
	struct xprt_buf_cbs pool_cbs;
	uint64_t pool_min_recv;
	uint32_t pool_max_msgs;
	unsigned int recv_min_len;      /* under lock */
	uint32_t colour;                /* under lock */
	atomic_uint deficit;            /* receive buffers the pool could not give */
	uint64_t pool_signals_seen;     /* engine: the pool's signals it has acted on */
	pthread_mutex_t provision_lock; /* one refill at a time */
	struct xprt_eng_tm eng;         /* written by the engine only */
	/*
	 * 0, or why the engine failed the TM, set once it has let go of all of
	 * it (no MD, no TMID): the front then reports FAILED after the events
	 * before it. fail_reported: the front did (under deliver_lock).
	 */
	atomic_int failed;
	bool fail_reported;
};

/* A slot of the domain's TM table. */
struct xprt_tm_slot {
	uint32_t gen;
	struct xprt_tm *tm;
};

struct xprt_dom {
	struct xprt_dom_opts opts;
	pthread_mutex_t lock; /* slot allocation */
	struct xprt_tm_slot *tms;
	struct xprt_buf_slot *bufs;
	unsigned int nbufs; /* registered */
	unsigned int ntms;  /* initialised */
	atomic_uint tms_hi; /* slots below this were ever used: what the engine's passes scan */
	struct rte_ring *ops;
	int kick_fd;            /* eventfd: an operation came while the engine slept */
	atomic_int engine_naps; /* 1 while the engine sleeps on kick_fd */
	atomic_bool stopping;
	atomic_uint_fast64_t passes; /* engine loops completed: TMs unpublished before are unseen */
	pthread_t engine;
	struct lnet_eq *eq;
	uint64_t next_deadline_ns; /* engine: the earliest buffer deadline, or XPRT_NEVER */
};

/* ---- front ---- */
uint64_t xprt_dom_now(const struct xprt_dom *dom);
struct xprt_tm *xprt_dom_tm(struct xprt_dom *dom, uint64_t handle);
struct xprt_buf_slot *xprt_dom_buf(struct xprt_dom *dom, uint64_t handle);
void xprt_op_submit(struct xprt_dom *dom, const struct xprt_op *op);
void xprt_op_submit_held(struct xprt_dom *dom, const struct xprt_op *op, pthread_mutex_t *held);
struct rte_ring *xprt_ring_new(const char *name, unsigned int esize, unsigned int count);
void xprt_tm_wake(struct xprt_tm *tm);
int xprt_tm_deliver(struct xprt_tm *tm, unsigned int max);
void xprt_tm_stats_count(struct xprt_tm *tm, const struct xprt_buf *buf, const struct xprt_ev *ev,
			 uint64_t now);

/* The TM state machine: the state @p input leads to from @p from, or UNDEFINED (refused). */
enum xprt_tm_input {
	XPRT_TMI_START = 0, /* xprt_tm_start */
	XPRT_TMI_STARTED,   /* the engine started it */
	XPRT_TMI_STOP,      /* xprt_tm_stop */
	XPRT_TMI_STOPPED,   /* the engine stopped it */
	XPRT_TMI_FAIL,      /* the engine failed it */
	XPRT_TMI_FINI,      /* xprt_tm_fini */
	XPRT_TMI_NR,
};
enum xprt_tm_state xprt_tm_fsm(enum xprt_tm_state from, enum xprt_tm_input input);

/* ---- pools ---- */
struct xprt_pool {
	struct xprt_dom *dom;
	struct xprt_pool_ops ops;
	void *ctx;
	struct xprt_pool_opts opts;
	pthread_mutex_t lock;
	struct xprt_pool_item_list *colour_lists; /* one per colour: LIFO */
	struct xprt_pool_item_list *lru;          /* every free buffer: put at the tail */
	unsigned int free;
	unsigned int total;
	atomic_uint_fast64_t signals; /* xprt_pool_signal calls */
};
void xprt_tm_provision(struct xprt_tm *tm);
bool xprt_tm_pool_reclaim(struct xprt_tm *tm, struct xprt_buf *buf, const struct xprt_ev *ev);

/* ---- engine ---- */
int xprt_engine_start(struct xprt_dom *dom);
void xprt_engine_stop(struct xprt_dom *dom);
bool xprt_engine_self(const struct xprt_dom *dom);
/* Carry out up to a burst of queued operations (the engine's thread only). */
unsigned int xprt_engine_take_ops(struct xprt_dom *dom);
void xprt_engine_quiesce(struct xprt_dom *dom);

#endif /* XPRT_INTERNAL_H */
