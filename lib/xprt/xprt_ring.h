/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The queue pair between the library's front (the application's calls and
 * callbacks) and its engine (every LNet call): operations go in one ring
 * per domain, events come back in one ring per TM. Entries are fixed-size
 * and hold no pointers, only handles with generations, so that a later
 * slice can put the rings in shared memory between a client process and
 * lnetd-pmd without changing what crosses them.
 */
#ifndef XPRT_RING_H
#define XPRT_RING_H

#include <stdint.h>

#include "xprt.h"

/*
 * A handle: a slot in a domain's table and the slot's generation, which
 * moves on each reuse, so a stale or forged handle names nothing.
 */
static inline uint64_t
xprt_handle_make(uint32_t slot, uint32_t gen)
{
	return ((uint64_t)gen << 32) | slot;
}

static inline uint32_t
xprt_handle_slot(uint64_t h)
{
	return (uint32_t)h;
}

static inline uint32_t
xprt_handle_gen(uint64_t h)
{
	return (uint32_t)(h >> 32);
}

/* What the front asks of the engine. */
enum xprt_op_kind {
	XPRT_OP_TM_START = 1, /* tm, addr (TMID maybe dynamic) */
	XPRT_OP_TM_STOP,      /* tm, abort */
	XPRT_OP_BUF_ADD,      /* tm, buf, qtype and the queue's fields */
	XPRT_OP_BUF_DEL,      /* tm, buf */
};

struct xprt_op {
	uint32_t kind;         /* enum xprt_op_kind */
	uint32_t qtype;        /* BUF_ADD: enum xprt_qtype */
	uint64_t tm;           /* TM handle */
	uint64_t buf;          /* buffer handle */
	uint64_t length;       /* BUF_ADD: bytes the operation moves or offers */
	uint64_t min_recv;     /* MSG_RECV: bytes per message at most, and left to stay queued */
	uint64_t deadline_ns;  /* BUF_ADD: XPRT_NEVER or when to cancel it */
	uint64_t match_bits;   /* PASSIVE_*: the buffer's; ACTIVE_*: the descriptor's */
	uint32_t max_msgs;     /* MSG_RECV: messages at most */
	uint32_t abort;        /* TM_STOP: cancel everything queued */
	struct xprt_addr addr; /* TM_START: where; MSG_SEND / ACTIVE_*: the peer TM */
};

/* What the engine tells the front. */
enum xprt_ev_kind {
	XPRT_EV_BUF = 1, /* an event of buffer `buf` */
	XPRT_EV_TM,      /* a TM state change or error */
};

struct xprt_ev {
	uint32_t kind;     /* enum xprt_ev_kind */
	int32_t status;    /* 0 or -errno */
	uint64_t buf;      /* XPRT_EV_BUF: the buffer's handle */
	uint64_t length;   /* bytes moved */
	uint64_t offset;   /* where the message starts in the buffer */
	uint32_t unlinked; /* the buffer's last event: it leaves its queue */
	uint32_t tm_event; /* XPRT_EV_TM: enum xprt_tm_event_type */
	uint32_t state;    /* XPRT_EV_TM STATE: enum xprt_tm_state */
	uint32_t pad;
	struct xprt_addr addr; /* the sender (MSG_RECV), or the TM's address (STARTED) */
};

/* rte_ring's element sizes are multiples of 4 bytes. */
_Static_assert(sizeof(struct xprt_op) % 4 == 0, "op ring element");
_Static_assert(sizeof(struct xprt_ev) % 4 == 0, "event ring element");

/* Event-ring slots a TM keeps for its own events (STARTED/FAILED, STOPPED, an error). */
#define XPRT_TM_EV_RESERVE 4u

#endif /* XPRT_RING_H */
