/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffers on the six queues over LNet (inline runtime, 0@lo): messages and
 * their sender, several messages into one receive buffer (offsets, QUEUED
 * until the last, max messages, min receive size, a message too big),
 * passive and active bulk both ways with the bytes checked, cancel,
 * deadlines, synchronous delivery, and the refusals of add.
 */
#include "xprt_ut.h"

#define PORTAL 33

struct pair {
	struct xprt_dom *dom;
	struct xprt_tm *a; /* 0@lo:12345:33:10 */
	struct xprt_tm *b; /* 0@lo:12345:33:20 */
	struct xprt_addr aa, ba;
};

static struct pair
pair_on(struct xprt_dom *dom, bool sync_a)
{
	struct pair p;

	p.dom = dom;
	p.a = ut_x_tm(p.dom, "0@lo:12345:33:10", sync_a);
	p.b = ut_x_tm(p.dom, "0@lo:12345:33:20", false);
	assert_int_equal(xprt_tm_addr(p.a, &p.aa), 0);
	assert_int_equal(xprt_tm_addr(p.b, &p.ba), 0);
	return p;
}

static struct pair
pair_up(bool own_clock, bool sync_a)
{
	return pair_on(ut_x_dom(own_clock), sync_a);
}

static void
pair_down(struct pair *p, bool sync_a)
{
	ut_x_tm_down(p->a, 0, sync_a);
	ut_x_tm_down(p->b, 0, false);
	assert_int_equal(xprt_dom_fini(p->dom), 0);
}

/* Send @p len bytes of @p fill from b to a; wait for the send's event and return it. */
static struct ut_ev
send_msg(struct pair *p, uint8_t fill, size_t len, unsigned int expect_more)
{
	static uint8_t mem[4096];
	struct iovec seg;
	struct xprt_buf s;
	unsigned int n = ut_x_count();
	struct ut_ev e = { 0 };
	unsigned int i;

	memset(mem, fill, len);
	ut_x_buf(p->dom, &s, &seg, 1, mem, sizeof(mem));
	s.qtype = XPRT_Q_MSG_SEND;
	s.length = len;
	s.dest = p->aa;
	assert_int_equal(xprt_buf_add(p->b, &s), 0);
	ut_x_wait(n + 1 + expect_more);
	for (i = n; i < n + 1 + expect_more; i++) {
		if (ut_x_ev(i).be.buf == &s) {
			e = ut_x_ev(i);
		}
	}
	assert_ptr_equal(e.be.buf, &s);
	assert_int_equal(e.be.status, 0);
	assert_int_equal(s.flags, XPRT_BUF_REGISTERED);
	assert_int_equal(xprt_buf_deregister(&s), 0);
	return e;
}

/* The event of @p b among the last @p k recorded. */
static struct ut_ev
event_of(const struct xprt_buf *b, unsigned int k)
{
	unsigned int n = ut_x_count();
	unsigned int i;

	for (i = n - k; i < n; i++) {
		struct ut_ev e = ut_x_ev(i);

		if (!e.tm && e.be.buf == b) {
			return e;
		}
	}
	fail_msg("no event of the buffer");
	return ut_x_ev(0);
}

static void
test_message(void **state)
{
	struct pair p = pair_up(false, false);
	uint8_t mem[1000];
	struct iovec segs[3];
	struct xprt_buf r;
	struct ut_ev e;

	(void)state;
	ut_x_buf(p.dom, &r, segs, 3, mem, sizeof(mem));
	r.qtype = XPRT_Q_MSG_RECV;
	r.min_recv_size = 1000;
	r.max_recv_msgs = 1;
	assert_int_equal(xprt_buf_add(p.a, &r), 0);
	assert_true((r.flags & XPRT_BUF_QUEUED) != 0);
	send_msg(&p, 0x5a, 700, 1);
	e = event_of(&r, 2);
	assert_int_equal(e.be.status, 0);
	assert_int_equal(e.be.length, 700);
	assert_int_equal(e.be.offset, 0);
	/* The sender as its header data names it: its NID, PID, portal and TMID. */
	assert_true(lnet_nid_same(&e.be.from.nid, &p.ba.nid));
	assert_int_equal(e.be.from.pid, 12345);
	assert_int_equal(e.be.from.portal, PORTAL);
	assert_int_equal(e.be.from.tmid, 20);
	assert_int_equal(e.flags, XPRT_BUF_REGISTERED);
	/* Asynchronous delivery: on the library's thread, not ours. */
	assert_false(pthread_equal(e.thread, pthread_self()));
	assert_int_equal(r.msgs_received, 1);
	for (size_t i = 0; i < 700; i++) {
		assert_int_equal(mem[i], 0x5a);
	}
	assert_int_equal(xprt_buf_deregister(&r), 0);
	pair_down(&p, false);
}

/* Three messages into one buffer: each at its offset, QUEUED kept until the last. */
static void
test_multi_message(void **state)
{
	struct pair p = pair_up(false, false);
	uint8_t mem[256];
	struct iovec seg;
	struct xprt_buf r;
	struct xprt_qstats st;
	struct ut_ev e;

	(void)state;
	ut_x_buf(p.dom, &r, &seg, 1, mem, sizeof(mem));
	r.qtype = XPRT_Q_MSG_RECV;
	r.min_recv_size = 64;
	r.max_recv_msgs = 3;
	assert_int_equal(xprt_buf_add(p.a, &r), 0);
	send_msg(&p, 1, 50, 1);
	e = event_of(&r, 2);
	assert_int_equal(e.be.offset, 0);
	assert_int_equal(e.be.length, 50);
	assert_int_equal(e.flags, XPRT_BUF_REGISTERED | XPRT_BUF_QUEUED);
	send_msg(&p, 2, 40, 1);
	e = event_of(&r, 2);
	assert_int_equal(e.be.offset, 50);
	assert_int_equal(e.be.length, 40);
	assert_true((e.flags & XPRT_BUF_QUEUED) != 0);
	/* The third is the last the buffer takes (max messages): it leaves the queue. */
	send_msg(&p, 3, 60, 1);
	e = event_of(&r, 2);
	assert_int_equal(e.be.offset, 90);
	assert_int_equal(e.be.length, 60);
	assert_int_equal(e.flags, XPRT_BUF_REGISTERED);
	assert_int_equal(r.msgs_received, 3);
	assert_int_equal(mem[0], 1);
	assert_int_equal(mem[49], 1);
	assert_int_equal(mem[50], 2);
	assert_int_equal(mem[89], 2);
	assert_int_equal(mem[90], 3);
	assert_int_equal(mem[149], 3);
	assert_int_equal(xprt_tm_stats(p.a, XPRT_Q_MSG_RECV, &st, false), 0);
	assert_int_equal(st.adds, 1);
	assert_int_equal(st.successes, 3);
	assert_int_equal(st.bytes, 150);
	assert_int_equal(st.max_bytes, 60);
	assert_int_equal(xprt_buf_deregister(&r), 0);
	pair_down(&p, false);
}

/*
 * Min receive size: the buffer leaves its queue once less than that is left.
 * A message bigger than it is dropped (LNet gives the sender no proof).
 */
static void
test_min_receive_size(void **state)
{
	struct pair p = pair_up(false, false);
	uint8_t mem[256];
	struct iovec seg;
	struct xprt_buf r;
	struct ut_ev e;

	(void)state;
	ut_x_buf(p.dom, &r, &seg, 1, mem, sizeof(mem));
	r.qtype = XPRT_Q_MSG_RECV;
	r.min_recv_size = 100;
	r.max_recv_msgs = 10;
	assert_int_equal(xprt_buf_add(p.a, &r), 0);
	send_msg(&p, 9, 120, 0); /* too big: nothing arrives */
	assert_int_equal(r.msgs_received, 0);
	send_msg(&p, 1, 60, 1);
	e = event_of(&r, 2);
	assert_int_equal(e.be.offset, 0);
	assert_true((e.flags & XPRT_BUF_QUEUED) != 0);
	send_msg(&p, 2, 60, 1);
	e = event_of(&r, 2);
	assert_int_equal(e.be.offset, 60);
	assert_true((e.flags & XPRT_BUF_QUEUED) != 0);
	send_msg(&p, 3, 60, 1); /* 76 bytes are left after it: less than 100 */
	e = event_of(&r, 2);
	assert_int_equal(e.be.offset, 120);
	assert_int_equal(e.flags, XPRT_BUF_REGISTERED);
	assert_int_equal(r.msgs_received, 3);
	assert_int_equal(xprt_buf_deregister(&r), 0);
	pair_down(&p, false);
}

/* A passive buffer on a, the active one on b with its descriptor; the bytes checked. */
static void
bulk(enum xprt_qtype passive, size_t passive_len, size_t active_len, size_t moved)
{
	static uint8_t pm[1 << 20];
	static uint8_t am[1 << 20];
	struct pair p = pair_up(false, false);
	struct iovec psegs[16], asegs[16];
	struct xprt_buf pb, ab;
	struct ut_ev pe, ae;
	unsigned int n;
	size_t i;

	for (i = 0; i < sizeof(pm); i++) {
		pm[i] = (uint8_t)(i * 7 + 1);
		am[i] = (uint8_t)(i * 13 + 5);
	}
	ut_x_buf(p.dom, &pb, psegs, 16, pm, passive_len);
	ut_x_buf(p.dom, &ab, asegs, 3, am, active_len);
	pb.qtype = passive;
	pb.length = passive == XPRT_Q_PASSIVE_SEND ? passive_len : 0;
	assert_int_equal(xprt_buf_add(p.a, &pb), 0);
	assert_int_equal(pb.desc.len, XPRT_DESC_SIZE);
	ab.qtype = passive == XPRT_Q_PASSIVE_SEND ? XPRT_Q_ACTIVE_RECV : XPRT_Q_ACTIVE_SEND;
	ab.length = ab.qtype == XPRT_Q_ACTIVE_SEND ? active_len : 0;
	ab.desc = pb.desc; /* as the application carries it in a message */
	n = ut_x_count();
	assert_int_equal(xprt_buf_add(p.b, &ab), 0);
	ut_x_wait(n + 2);
	pe = event_of(&pb, 2);
	ae = event_of(&ab, 2);
	assert_int_equal(pe.be.status, 0);
	assert_int_equal(ae.be.status, 0);
	if (passive == XPRT_Q_PASSIVE_RECV) {
		assert_int_equal(pe.be.length, moved);
		assert_memory_equal(pm, am, moved);
	} else {
		assert_int_equal(ae.be.length, moved);
		assert_memory_equal(am, pm, moved);
	}
	assert_int_equal(pb.flags, XPRT_BUF_REGISTERED);
	assert_int_equal(ab.flags, XPRT_BUF_REGISTERED);
	assert_int_equal(xprt_buf_deregister(&pb), 0);
	assert_int_equal(xprt_buf_deregister(&ab), 0);
	pair_down(&p, false);
}

static void
test_bulk_passive_recv(void **state)
{
	(void)state;
	bulk(XPRT_Q_PASSIVE_RECV, 8192, 5000, 5000);
	bulk(XPRT_Q_PASSIVE_RECV, 1 << 20, 1 << 20, 1 << 20);
}

static void
test_bulk_passive_send(void **state)
{
	(void)state;
	bulk(XPRT_Q_PASSIVE_SEND, 6000, 8192, 6000);
	bulk(XPRT_Q_PASSIVE_SEND, 1 << 20, 1 << 20, 1 << 20);
}

/* Descriptors that do not fit are refused by add, before anything moves. */
static void
test_bulk_refusals(void **state)
{
	struct pair p = pair_up(false, false);
	uint8_t pm[4096], am[8192];
	struct iovec ps, as;
	struct xprt_buf pb, ab;
	unsigned int n;

	(void)state;
	ut_x_buf(p.dom, &pb, &ps, 1, pm, sizeof(pm));
	ut_x_buf(p.dom, &ab, &as, 1, am, sizeof(am));
	pb.qtype = XPRT_Q_PASSIVE_RECV;
	assert_int_equal(xprt_buf_add(p.a, &pb), 0);
	ab.desc = pb.desc;
	ab.qtype = XPRT_Q_ACTIVE_RECV; /* reading from a passive receive */
	assert_int_equal(xprt_buf_add(p.b, &ab), -EPERM);
	ab.qtype = XPRT_Q_ACTIVE_SEND;
	ab.length = 5000; /* more than the passive buffer holds */
	assert_int_equal(xprt_buf_add(p.b, &ab), -EFBIG);
	ab.desc.bytes[3] ^= 1;
	ab.length = 100;
	assert_int_equal(xprt_buf_add(p.b, &ab), -EINVAL);
	assert_int_equal(ab.flags, XPRT_BUF_REGISTERED);
	n = ut_x_count();
	assert_true(xprt_buf_del(p.a, &pb));
	ut_x_wait(n + 1);
	assert_int_equal(event_of(&pb, 1).be.status, -ECANCELED);
	assert_int_equal(xprt_buf_deregister(&pb), 0);
	assert_int_equal(xprt_buf_deregister(&ab), 0);
	pair_down(&p, false);
}

static void
test_cancel(void **state)
{
	struct pair p = pair_up(false, false);
	uint8_t mem[512];
	struct iovec seg;
	struct xprt_buf r;
	struct xprt_qstats st;
	struct ut_ev e;
	unsigned int n;

	(void)state;
	ut_x_buf(p.dom, &r, &seg, 1, mem, sizeof(mem));
	r.qtype = XPRT_Q_MSG_RECV;
	r.min_recv_size = 64;
	r.max_recv_msgs = 4;
	assert_int_equal(xprt_buf_add(p.a, &r), 0);
	assert_int_equal(xprt_buf_deregister(&r), -EBUSY); /* queued */
	assert_int_equal(xprt_buf_add(p.a, &r), -EINVAL);  /* already queued */
	n = ut_x_count();
	assert_true(xprt_buf_del(p.a, &r));
	ut_x_wait(n + 1);
	e = event_of(&r, 1);
	assert_int_equal(e.be.status, -ECANCELED);
	assert_int_equal(e.flags, XPRT_BUF_REGISTERED);
	assert_false(xprt_buf_del(p.a, &r)); /* no longer queued */
	assert_int_equal(xprt_tm_stats(p.a, XPRT_Q_NR, &st, true), 0);
	assert_int_equal(st.adds, 1);
	assert_int_equal(st.dels, 1);
	assert_int_equal(st.failures, 1);
	assert_int_equal(xprt_tm_stats(p.a, XPRT_Q_MSG_RECV, &st, false), 0);
	assert_int_equal(st.adds, 0); /* reset */
	assert_int_equal(xprt_buf_deregister(&r), 0);
	pair_down(&p, false);
}

/* Deadlines on the domain's clock: past at add is -ETIME; passed later, -ETIMEDOUT. */
static void
test_timeout(void **state)
{
	struct pair p = pair_up(true, false);
	uint8_t mem[512];
	struct iovec seg;
	struct xprt_buf r;
	struct ut_ev e;
	unsigned int n;

	(void)state;
	ut_x_clock_set(1000000);
	ut_x_buf(p.dom, &r, &seg, 1, mem, sizeof(mem));
	r.qtype = XPRT_Q_PASSIVE_RECV;
	r.deadline_ns = 1000000;
	assert_int_equal(xprt_buf_add(p.a, &r), -ETIME);
	r.deadline_ns = 5000000;
	assert_int_equal(xprt_buf_add(p.a, &r), 0);
	n = ut_x_count();
	ut_x_clock_set(4999999);
	/* Nothing is due yet: a message through b shows the engine went round. */
	send_msg(&p, 1, 10, 0);
	assert_int_equal(ut_x_count(), n + 1);
	ut_x_clock_set(5000000);
	ut_x_wait(n + 2);
	e = event_of(&r, 1);
	assert_int_equal(e.be.status, -ETIMEDOUT);
	assert_int_equal(e.flags, XPRT_BUF_REGISTERED);
	assert_int_equal(r.deadline_ns, XPRT_NEVER);
	assert_int_equal(xprt_buf_deregister(&r), 0);
	pair_down(&p, false);
}

/* Synchronous delivery: nothing runs until deliver_all, which runs on the caller's thread. */
static void
test_sync_delivery(void **state)
{
	struct pair p = pair_up(false, true);
	uint8_t mem[512];
	struct iovec seg;
	struct xprt_buf r;
	struct ut_ev e;
	unsigned int n;
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t v;

	(void)state;
	assert_int_equal(xprt_tm_deliver_all(p.b), -EINVAL); /* b is asynchronous */
	assert_int_equal(xprt_tm_deliver_all(p.a), 0);       /* none waiting: not an error */
	assert_false(xprt_tm_events_pending(p.a));
	ut_x_buf(p.dom, &r, &seg, 1, mem, sizeof(mem));
	r.qtype = XPRT_Q_MSG_RECV;
	r.min_recv_size = 100;
	r.max_recv_msgs = 2;
	assert_int_equal(xprt_buf_add(p.a, &r), 0);
	assert_int_equal(xprt_tm_notify(p.a, fd), 0);
	n = ut_x_count();
	send_msg(&p, 1, 10, 0);
	send_msg(&p, 2, 10, 0);
	/* The wait object says when the first came; the events wait for us. */
	assert_int_equal(poll(&pfd, 1, UT_WAIT_MS), 1);
	assert_int_equal(read(fd, &v, sizeof(v)), sizeof(v));
	assert_int_equal(ut_x_count(), n + 2); /* the two sends only */
	ut_x_wait_sync(p.a, n + 4);
	e = ut_x_ev(n + 2);
	assert_ptr_equal(e.be.buf, &r);
	assert_true(pthread_equal(e.thread, pthread_self()));
	assert_int_equal(e.be.offset, 0);
	assert_true((e.flags & XPRT_BUF_QUEUED) != 0);
	e = ut_x_ev(n + 3);
	assert_ptr_equal(e.be.buf, &r);
	assert_int_equal(e.be.offset, 10);
	assert_int_equal(e.flags, XPRT_BUF_REGISTERED);
	assert_int_equal(r.msgs_received, 2);
	assert_false(xprt_tm_events_pending(p.a));
	close(fd);
	assert_int_equal(xprt_buf_deregister(&r), 0);
	pair_down(&p, true);
}

/*
 * Event rings go round many times: 16 slots each, 80 events through them
 * (a ring's memory once covered only the slots asked for, not the power of
 * two above them the ring indexes).
 */
static void
test_rings_wrap(void **state)
{
	struct xprt_dom_opts o = { .opts_size = sizeof(o), .ring_events = 16, .op_ring = 16 };
	struct xprt_dom *dom;
	struct pair p;
	uint8_t mem[512];
	struct iovec seg;
	struct xprt_buf r;
	unsigned int round, i;

	(void)state;
	assert_int_equal(xprt_dom_init(&o, &dom), 0);
	p = pair_on(dom, false);
	ut_x_buf(p.dom, &r, &seg, 1, mem, sizeof(mem));
	r.qtype = XPRT_Q_MSG_RECV;
	r.min_recv_size = 64;
	r.max_recv_msgs = 4;
	for (round = 0; round < 10; round++) {
		assert_int_equal(xprt_buf_add(p.a, &r), 0);
		for (i = 0; i < 4; i++) {
			struct ut_ev e;

			send_msg(&p, (uint8_t)(round * 4 + i), 32, 1);
			e = event_of(&r, 2);
			assert_int_equal(e.be.status, 0);
			assert_int_equal(e.be.offset, 32 * i);
			assert_int_equal((e.flags & XPRT_BUF_QUEUED) != 0, i < 3);
		}
		assert_int_equal(mem[96], (uint8_t)(round * 4 + 3));
		/* The event log holds 256: start it again. */
		pthread_mutex_lock(&g_x.lock);
		g_x.n = 0;
		pthread_mutex_unlock(&g_x.lock);
	}
	assert_int_equal(r.msgs_received, 40);
	assert_int_equal(xprt_buf_deregister(&r), 0);
	pair_down(&p, false);
}

/* Sends a receive callback adds, on the engine's thread, more than the op ring holds. */
#define FAN 24
static struct {
	struct xprt_tm *from;
	struct xprt_buf bufs[FAN];
	struct iovec segs[FAN];
	uint8_t mem[FAN][16];
	int rc[FAN];
} g_fan;

static void
fan_out(const struct xprt_buf_event *ev)
{
	unsigned int i;

	for (i = 0; i < FAN; i++) {
		g_fan.rc[i] = xprt_buf_add(g_fan.from, &g_fan.bufs[i]);
	}
	ut_x_buf_cb(ev);
}

static void
test_callback_fills_op_ring(void **state)
{
	static const struct xprt_buf_cbs fan_cbs = { .done = { fan_out } };
	struct xprt_dom_opts o = { .opts_size = sizeof(o), .ring_events = 64, .op_ring = 16 };
	struct xprt_dom *dom;
	struct pair p;
	uint8_t mem[512];
	struct iovec seg;
	struct xprt_buf r;
	unsigned int i, n;

	(void)state;
	assert_int_equal(xprt_dom_init(&o, &dom), 0);
	p = pair_on(dom, false);
	g_fan.from = p.b;
	for (i = 0; i < FAN; i++) {
		ut_x_buf(dom, &g_fan.bufs[i], &g_fan.segs[i], 1, g_fan.mem[i],
			 sizeof(g_fan.mem[i]));
		g_fan.bufs[i].qtype = XPRT_Q_MSG_SEND;
		g_fan.bufs[i].length = 16;
		g_fan.bufs[i].dest = p.aa;
		g_fan.bufs[i].dest.tmid = 99; /* nobody: each send completes all the same */
	}
	ut_x_buf(dom, &r, &seg, 1, mem, sizeof(mem));
	r.cbs = &fan_cbs;
	r.qtype = XPRT_Q_MSG_RECV;
	r.min_recv_size = 64;
	r.max_recv_msgs = 1;
	assert_int_equal(xprt_buf_add(p.a, &r), 0);
	n = ut_x_count();
	send_msg(&p, 1, 10, 1 + FAN);
	ut_x_wait(n + 2 + FAN);
	for (i = 0; i < FAN; i++) {
		assert_int_equal(g_fan.rc[i], 0);
		assert_int_equal(event_of(&g_fan.bufs[i], 2 + FAN).be.status, 0);
		assert_int_equal(g_fan.bufs[i].flags, XPRT_BUF_REGISTERED);
		assert_int_equal(xprt_buf_deregister(&g_fan.bufs[i]), 0);
	}
	assert_int_equal(xprt_buf_deregister(&r), 0);
	pair_down(&p, false);
}

/*
 * Stop without abort: the receive queue is cancelled at once, a passive
 * buffer stays until its peer has used it, and STOPPED comes after it.
 */
static void
test_stop_lets_bulk_finish(void **state)
{
	struct pair p = pair_up(false, false);
	uint8_t pm[2048], am[2048], rm[256];
	struct iovec ps, as, rs;
	struct xprt_buf pb, ab, r;
	struct ut_ev e;
	unsigned int n;

	(void)state;
	ut_x_buf(p.dom, &r, &rs, 1, rm, sizeof(rm));
	r.qtype = XPRT_Q_MSG_RECV;
	r.min_recv_size = 64;
	r.max_recv_msgs = 2;
	assert_int_equal(xprt_buf_add(p.a, &r), 0);
	memset(pm, 0x3c, sizeof(pm));
	ut_x_buf(p.dom, &pb, &ps, 1, pm, sizeof(pm));
	pb.qtype = XPRT_Q_PASSIVE_SEND;
	pb.length = 1500;
	assert_int_equal(xprt_buf_add(p.a, &pb), 0);
	n = ut_x_count();
	assert_int_equal(xprt_tm_stop(p.a, false), 0);
	assert_int_equal(xprt_tm_state_get(p.a), XPRT_TM_STOPPING);
	ut_x_wait(n + 1);
	e = ut_x_ev(n);
	assert_ptr_equal(e.be.buf, &r);
	assert_int_equal(e.be.status, -ECANCELED);
	assert_int_equal(xprt_buf_add(p.a, &r), -EINVAL); /* no adds while stopping */
	assert_true((pb.flags & XPRT_BUF_QUEUED) != 0);
	assert_int_equal(xprt_tm_state_get(p.a), XPRT_TM_STOPPING);
	/* The peer reads the passive buffer; then, and only then, a stops. */
	ut_x_buf(p.dom, &ab, &as, 1, am, sizeof(am));
	ab.qtype = XPRT_Q_ACTIVE_RECV;
	ab.desc = pb.desc;
	assert_int_equal(xprt_buf_add(p.b, &ab), 0);
	ut_x_wait(n + 4);
	assert_int_equal(event_of(&pb, 3).be.status, 0);
	assert_int_equal(event_of(&ab, 3).be.length, 1500);
	assert_memory_equal(am, pm, 1500);
	/* a's events keep their order: the passive buffer's, then STOPPED (b's may come between). */
	{
		unsigned int i, at_pb = 0, at_stop = 0;

		for (i = n + 1; i < n + 4; i++) {
			e = ut_x_ev(i);
			if (!e.tm && e.be.buf == &pb) {
				at_pb = i;
			} else if (e.tm && e.tmp == p.a && e.te.next_state == XPRT_TM_STOPPED) {
				at_stop = i;
			}
		}
		assert_true(at_pb != 0 && at_stop > at_pb);
	}
	assert_int_equal(xprt_tm_fini(p.a), 0);
	assert_int_equal(xprt_buf_deregister(&r), 0);
	assert_int_equal(xprt_buf_deregister(&pb), 0);
	assert_int_equal(xprt_buf_deregister(&ab), 0);
	ut_x_tm_down(p.b, 0, false);
	assert_int_equal(xprt_dom_fini(p.dom), 0);
}

/* What add checks before anything is queued. */
static void
test_add_refusals(void **state)
{
	struct xprt_dom_opts o = { .opts_size = sizeof(o), .ring_events = 16 };
	struct xprt_dom *dom;
	struct xprt_tm *tm, *idle;
	uint8_t mem[512];
	struct iovec seg, segs2[2];
	struct xprt_buf b, c;

	(void)state;
	assert_int_equal(xprt_dom_init(&o, &dom), 0);
	tm = ut_x_tm(dom, "0@lo:12345:33:*", false);
	assert_int_equal(xprt_tm_init(dom, &ut_x_tm_cbs, NULL, &idle), 0);
	ut_x_buf(dom, &b, &seg, 1, mem, sizeof(mem));
	b.qtype = XPRT_Q_MSG_RECV;
	b.min_recv_size = 64;
	b.max_recv_msgs = 1;
	assert_int_equal(xprt_buf_add(idle, &b), -EINVAL); /* not started */
	b.min_recv_size = 0;
	assert_int_equal(xprt_buf_add(tm, &b), -EINVAL);
	b.min_recv_size = 513; /* more than the buffer */
	assert_int_equal(xprt_buf_add(tm, &b), -EINVAL);
	b.min_recv_size = 64;
	b.max_recv_msgs = 0;
	assert_int_equal(xprt_buf_add(tm, &b), -EINVAL);
	b.qtype = XPRT_Q_MSG_SEND;
	b.length = 0;
	assert_int_equal(xprt_buf_add(tm, &b), -EINVAL);
	b.length = 513;
	assert_int_equal(xprt_buf_add(tm, &b), -EINVAL);
	b.qtype = XPRT_Q_ACTIVE_SEND;
	b.length = 10;
	assert_int_equal(xprt_buf_add(tm, &b), -EINVAL); /* no descriptor */
	/* The event ring: 16 slots, 4 kept for the TM: 12 messages' worth. */
	b.qtype = XPRT_Q_MSG_RECV;
	b.max_recv_msgs = 10;
	assert_int_equal(xprt_buf_add(tm, &b), 0);
	ut_x_buf(dom, &c, segs2, 2, mem, 256);
	c.qtype = XPRT_Q_MSG_RECV;
	c.min_recv_size = 64;
	c.max_recv_msgs = 3;
	assert_int_equal(xprt_buf_add(tm, &c), -ENOBUFS);
	c.max_recv_msgs = 2;
	assert_int_equal(xprt_buf_add(tm, &c), 0);
	/* Registration's own checks. */
	{
		struct xprt_buf z = { .segs = &seg, .nsegs = 0 };
		struct iovec big = { .iov_base = mem, .iov_len = XPRT_BUF_MAX_SIZE + 1 };

		assert_int_equal(xprt_buf_register(dom, &z), -EINVAL);
		z.nsegs = 1;
		z.segs = &big;
		assert_int_equal(xprt_buf_register(dom, &z), -EFBIG);
		z.flags = XPRT_BUF_REGISTERED;
		assert_int_equal(xprt_buf_register(dom, &z), -EINVAL);
	}
	ut_x_tm_down(tm, 2, false);
	assert_int_equal(xprt_tm_fini(idle), 0);
	assert_int_equal(xprt_buf_deregister(&b), 0);
	assert_int_equal(xprt_buf_deregister(&c), 0);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_message, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_multi_message, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_min_receive_size, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_bulk_passive_recv, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_bulk_passive_send, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_bulk_refusals, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_cancel, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_timeout, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_sync_delivery, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_stop_lets_bulk_finish, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_rings_wrap, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_callback_fills_op_ring, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_add_refusals, ut_x_up, ut_x_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
