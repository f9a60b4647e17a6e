/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Operation entries as a client could write them into a shared ring: the
 * input is a run of struct xprt_op, each put straight into the domain's
 * ring (no front checks), its handles pointed at a live TM and buffers or
 * left as they came. Whatever they say, the engine must not crash, and an
 * aborting stop must still end with STOPPED (or FAILED, when they overflowed
 * the TM's event ring) and every buffer back to the front: the TM's state
 * and the domain's tables stay sound.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_sim.h"
#include "xprt_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NBUFS 3

static uint8_t g_mem[NBUFS][8192];
static enum xprt_tm_state g_state;

static void
on_tm(struct xprt_tm *tm, const struct xprt_tm_event *ev, void *ctx)
{
	(void)tm;
	(void)ctx;
	if (ev->type == XPRT_TM_EV_STATE) {
		g_state = ev->next_state;
	}
}

static void
on_buf(const struct xprt_buf_event *ev)
{
	(void)ev;
}

static const struct xprt_tm_cbs tm_cbs = { .event = on_tm };
static const struct xprt_buf_cbs buf_cbs = { .done = { on_buf, on_buf, on_buf, on_buf, on_buf,
						       on_buf } };

static void
lnet_once(void)
{
	static bool up;
	struct lnet_init_opts o = {
		.opts_size = sizeof(o),
		.mode = LNET_EXEC_INLINE,
		.ncpts = 1,
		.no_eal = true,
	};

	if (!up) {
		if (lnet_init_opts_set(&o) != 0 || LNetNIInit(LNET_PID_LUSTRE) != 0) {
			__builtin_trap();
		}
		up = true;
	}
}

/* Deliver until the TM is STOPPED or FAILED; the fuzzer's timeout bounds it. */
static void
until_end(struct xprt_tm *tm)
{
	while (g_state != XPRT_TM_STOPPED && g_state != XPRT_TM_FAILED) {
		(void)xprt_tm_deliver_all(tm);
		xprt_engine_quiesce(tm->dom);
	}
}

/* Deliver on this (synchronous) TM until it reaches @p state; the fuzzer's timeout bounds it. */
static void
until_state(struct xprt_tm *tm, enum xprt_tm_state state)
{
	while (g_state != state) {
		(void)xprt_tm_deliver_all(tm);
		xprt_engine_quiesce(tm->dom);
	}
}

/* Point the entry's handles at live objects, as its first bytes choose. */
static void
aim(struct xprt_op *op, const struct xprt_tm *tm, const struct xprt_buf *bufs)
{
	if ((op->kind & 0x100) == 0) {
		op->kind &= 0xff;
		op->tm = tm->handle;
		/* A stop of its own TM only harms the client that sends it: keep ours for the end. */
		if (op->kind == XPRT_OP_TM_STOP) {
			op->kind = XPRT_OP_BUF_DEL;
		}
	}
	if ((op->qtype & 0x100) == 0) {
		op->buf = bufs[(op->qtype >> 9) % NBUFS].handle;
		op->qtype &= 0xff;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xprt_buf bufs[NBUFS];
	struct iovec segs[NBUFS][2];
	struct xprt_dom *dom;
	struct xprt_tm *tm;
	unsigned int i;

	lnet_once();
	g_state = XPRT_TM_UNDEFINED;
	if (xprt_dom_init(NULL, &dom) != 0 || xprt_tm_init(dom, &tm_cbs, NULL, &tm) != 0 ||
	    xprt_tm_sync_delivery(tm) != 0 || xprt_tm_start(tm, "0@lo:12345:33:7") != 0) {
		__builtin_trap();
	}
	until_state(tm, XPRT_TM_STARTED);
	for (i = 0; i < NBUFS; i++) {
		memset(&bufs[i], 0, sizeof(bufs[i]));
		segs[i][0] = (struct iovec){ g_mem[i], 4096 };
		segs[i][1] = (struct iovec){ g_mem[i] + 4096, 4096 };
		bufs[i].segs = segs[i];
		bufs[i].nsegs = 2;
		bufs[i].cbs = &buf_cbs;
		if (xprt_buf_register(dom, &bufs[i]) != 0) {
			__builtin_trap();
		}
	}
	for (; size >= sizeof(struct xprt_op); size -= sizeof(struct xprt_op)) {
		struct xprt_op op;

		memcpy(&op, data, sizeof(op));
		data += sizeof(op);
		aim(&op, tm, bufs);
		xprt_op_submit(dom, &op);
	}
	/* Entries that overflow the TM's event ring fail it: that too is an end. */
	if (xprt_tm_stop(tm, true) != 0 && xprt_tm_state_get(tm) != XPRT_TM_FAILED) {
		__builtin_trap();
	}
	until_end(tm);
	if (xprt_tm_fini(tm) != 0) {
		__builtin_trap();
	}
	for (i = 0; i < NBUFS; i++) {
		if (xprt_buf_deregister(&bufs[i]) != 0) {
			__builtin_trap();
		}
	}
	if (xprt_dom_fini(dom) != 0) {
		__builtin_trap();
	}
	return 0;
}
