/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message rate through lib/xprt in-process against the same traffic on
 * LNet's API, over 0@lo in polled mode: SIZE-byte PUTs without ACK, INFLIGHT
 * at once, into receive MDs of 64 messages each (MAX_SIZE), re-posted when
 * full. With xprt, the domain's engine thread runs LNet and the callbacks
 * re-add the buffers; with the API, the main thread does both. Prints YAML.
 *
 *   bench_xprt [--iters N] [--size BYTES] [--inflight N] [--only xprt|lnet]
 */
#include <getopt.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "xprt.h"

#define PORTAL 39
#define RECV_BUFS 8u
#define MSGS_PER_RECV 64u
#define MAX_INFLIGHT 256u

static unsigned long g_iters = 200000;
static unsigned int g_size = 4096;
static unsigned int g_inflight = 64;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
report(const char *name, double secs, unsigned long msgs)
{
	printf("  %s:\n    msgs: %lu\n    seconds: %.3f\n    msgs_per_s: %.0f\n    MiB_per_s: "
	       "%.1f\n",
	       name, msgs, secs, (double)msgs / secs,
	       (double)msgs * g_size / secs / (1024.0 * 1024.0));
}

/* ---- lib/xprt ---- */

static struct {
	struct xprt_tm *rx, *tx;
	struct xprt_addr rx_addr;
	atomic_ulong received;
	unsigned long sent; /* engine thread only */
	unsigned long failed;
} g_x;

static void
x_tm_event(struct xprt_tm *tm, const struct xprt_tm_event *ev, void *ctx)
{
	(void)tm;
	(void)ctx;
	if (ev->type == XPRT_TM_EV_STATE && ev->status != 0) {
		fprintf(stderr, "bench_xprt: TM state %d status %d\n", ev->next_state, ev->status);
		exit(1);
	}
}

static void
x_recv_done(const struct xprt_buf_event *ev)
{
	if (ev->status == 0) {
		atomic_fetch_add(&g_x.received, 1);
	}
	if ((ev->buf->flags & XPRT_BUF_QUEUED) == 0 && xprt_buf_add(g_x.rx, ev->buf) != 0) {
		exit(1);
	}
}

static void
x_send_done(const struct xprt_buf_event *ev)
{
	if (ev->status != 0) {
		g_x.failed++;
	}
	if (g_x.sent < g_iters) {
		g_x.sent++;
		if (xprt_buf_add(g_x.tx, ev->buf) != 0) {
			exit(1);
		}
	}
}

static const struct xprt_tm_cbs x_tm_cbs = { .event = x_tm_event };
static const struct xprt_buf_cbs x_cbs = { .done = { x_recv_done, x_send_done } };

static struct xprt_tm *
x_tm(struct xprt_dom *dom, const char *addr)
{
	struct xprt_tm *tm;
	struct xprt_addr a;

	if (xprt_tm_init(dom, &x_tm_cbs, NULL, &tm) != 0 || xprt_tm_start(tm, addr) != 0) {
		exit(1);
	}
	while (xprt_tm_addr(tm, &a) != 0) {
		sched_yield();
	}
	return tm;
}

static void
bench_xprt(void)
{
	static struct iovec rseg[RECV_BUFS], sseg[MAX_INFLIGHT];
	static struct xprt_buf rbuf[RECV_BUFS], sbuf[MAX_INFLIGHT];
	struct xprt_dom *dom;
	double t0, t1;
	unsigned int i;

	if (xprt_dom_init(NULL, &dom) != 0) {
		exit(1);
	}
	g_x.rx = x_tm(dom, "0@lo:12345:39:1");
	g_x.tx = x_tm(dom, "0@lo:12345:39:2");
	xprt_tm_addr(g_x.rx, &g_x.rx_addr);
	for (i = 0; i < RECV_BUFS; i++) {
		rseg[i].iov_len = (size_t)g_size * MSGS_PER_RECV;
		rseg[i].iov_base = malloc(rseg[i].iov_len);
		rbuf[i] = (struct xprt_buf){ .segs = &rseg[i], .nsegs = 1, .cbs = &x_cbs };
		rbuf[i].qtype = XPRT_Q_MSG_RECV;
		rbuf[i].min_recv_size = g_size;
		rbuf[i].max_recv_msgs = MSGS_PER_RECV;
		if (xprt_buf_register(dom, &rbuf[i]) != 0 || xprt_buf_add(g_x.rx, &rbuf[i]) != 0) {
			exit(1);
		}
	}
	for (i = 0; i < g_inflight; i++) {
		sseg[i].iov_len = g_size;
		sseg[i].iov_base = calloc(1, g_size);
		sbuf[i] = (struct xprt_buf){ .segs = &sseg[i], .nsegs = 1, .cbs = &x_cbs };
		sbuf[i].qtype = XPRT_Q_MSG_SEND;
		sbuf[i].length = g_size;
		sbuf[i].dest = g_x.rx_addr;
		if (xprt_buf_register(dom, &sbuf[i]) != 0) {
			exit(1);
		}
	}
	t0 = now_s();
	g_x.sent = g_inflight;
	for (i = 0; i < g_inflight; i++) {
		if (xprt_buf_add(g_x.tx, &sbuf[i]) != 0) {
			exit(1);
		}
	}
	while (atomic_load(&g_x.received) < g_iters) {
		sched_yield();
	}
	t1 = now_s();
	report("xprt", t1 - t0, atomic_load(&g_x.received));
	printf("    send_failures: %lu\n", g_x.failed);
	/* The process ends here: the benchmark measures, it does not tidy up. */
}

/* ---- LNet's API ---- */

static struct lnet_md
l_recv_md(struct lnet_eq *eq, void *mem, unsigned int i)
{
	struct lnet_md md = {
		.umd_start = mem,
		.umd_length = g_size * MSGS_PER_RECV,
		.umd_threshold = MSGS_PER_RECV,
		.umd_max_size = (int)g_size,
		.umd_options = LNET_MD_OP_PUT | LNET_MD_MAX_SIZE | LNET_MD_ACK_DISABLE,
		.umd_user_ptr = (void *)(uintptr_t)(i + 1),
		.umd_eq_handle = eq,
	};

	return md;
}

static void
l_post_recv(struct lnet_eq *eq, void *mem, unsigned int i)
{
	static const struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_md md = l_recv_md(eq, mem, i);
	struct lnet_handle_md h;
	struct lnet_me *me = LNetMEAttach(PORTAL, &any, 1, 0, LNET_UNLINK, LNET_INS_AFTER);

	if (me == NULL || LNetMDAttach(me, &md, LNET_UNLINK, &h) != 0) {
		exit(1);
	}
}

static void
l_send(struct lnet_eq *eq, void *mem, const struct lnet_processid *self)
{
	struct lnet_md md = {
		.umd_start = mem,
		.umd_length = g_size,
		.umd_threshold = 1,
		.umd_eq_handle = eq,
	};
	struct lnet_handle_md h;

	if (LNetMDBind(&md, LNET_UNLINK, &h) != 0 ||
	    LNetPut(NULL, h, LNET_NOACK_REQ, self, PORTAL, 1, 0, 0) != 0) {
		exit(1);
	}
}

static void
bench_lnet(void)
{
	struct lnet_eq *eq = LNetEQAlloc(4096);
	struct lnet_processid self = { .pid = LNET_PID_LUSTRE };
	void *rmem[RECV_BUFS];
	void *smem = calloc(1, g_size);
	unsigned long sent = 0, received = 0;
	double t0, t1;
	unsigned int i;

	lnet_nid_set_lo0(&self.nid);
	for (i = 0; i < RECV_BUFS; i++) {
		rmem[i] = malloc((size_t)g_size * MSGS_PER_RECV);
		l_post_recv(eq, rmem[i], i);
	}
	t0 = now_s();
	for (i = 0; i < g_inflight; i++, sent++) {
		l_send(eq, smem, &self);
	}
	while (received < g_iters) {
		struct lnet_event ev;

		if (LNetEQPoll(&eq, 1, -1, &ev, NULL) < 1) {
			exit(1);
		}
		if (ev.type == LNET_EVENT_PUT) {
			received += ev.status == 0;
			if (ev.unlinked) {
				unsigned int b = (unsigned int)(uintptr_t)ev.md_user_ptr - 1;

				l_post_recv(eq, rmem[b], b);
			}
		} else if (ev.type == LNET_EVENT_SEND && sent < g_iters) {
			l_send(eq, smem, &self);
			sent++;
		}
	}
	t1 = now_s();
	report("lnet_api", t1 - t0, received);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iters", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "inflight", required_argument, NULL, 'f' },
		{ "only", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct lnet_init_opts lo = {
		.opts_size = sizeof(lo),
		.mode = LNET_EXEC_POLLED,
		.ncpts = 1,
		.no_eal = true,
	};
	const char *only = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			g_iters = strtoul(optarg, NULL, 0);
			break;
		case 's':
			g_size = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'f':
			g_inflight = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			only = optarg;
			break;
		default:
			return 2;
		}
	}
	if (g_inflight == 0 || g_inflight > MAX_INFLIGHT || g_size == 0 ||
	    (size_t)g_size * MSGS_PER_RECV > XPRT_BUF_MAX_SIZE) {
		fprintf(stderr, "bench_xprt: inflight 1..%u, size up to %u\n", MAX_INFLIGHT,
			XPRT_BUF_MAX_SIZE / MSGS_PER_RECV);
		return 2;
	}
	if (lnet_init_opts_set(&lo) != 0 || LNetNIInit(LNET_PID_LUSTRE) < 0) {
		return 1;
	}
	printf("bench_xprt:\n  size: %u\n  inflight: %u\n", g_size, g_inflight);
	/* One at a time: in polled mode only one thread may run LNet. */
	if (only == NULL || strcmp(only, "lnet") == 0) {
		bench_lnet();
	}
	if (only == NULL || strcmp(only, "xprt") == 0) {
		bench_xprt();
	}
	return 0;
}
