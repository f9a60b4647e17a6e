/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socklnd serving a peer that behaves as a kernel node: it connects to
 * our acceptor, sends the connreq and a V3 hello, PUTs with a zero-copy
 * ACK request, and pings our ping target. LNet runs inline (SIM), so the
 * test runs its lcores between socket steps.
 *
 * Real TCP on loopback is between the two, so a step never waits a fixed
 * time: PUMP_UNTIL runs LNet until the condition the next check needs
 * holds, bounded by LNP_TEST_WAIT_LIMIT_US on the real clock, and fails
 * naming the condition if it does not come. What must not happen is
 * checked after settle() (LNet has handled everything it has been given)
 * and after whatever positive step would have come later.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lnd_ut.h"
#include "lnet_ut.h"
#include "socklnd.h"
#include "socklnd_internal.h"
#include "sock_rx.h"
#include "sock_tx.h"
#include "lnp_test.h"
#include "lnp_test_fsm.h"
#include "lnp_test_nid.h"

#define OUR_ADDR 0x7f000001U  /* 127.0.0.1@tcp */
#define PEER_ADDR 0x7f000002U /* 127.0.0.2@tcp, the "kernel" */

static struct lnet_ni *g_sni;
static uint16_t g_port;
static uint32_t g_our = OUR_ADDR;   /* our NI's address; the race tests move it */
static uint32_t g_peer = PEER_ADDR; /* the fake kernel's */
static int g_conns_per_peer = 1;
static int g_tx_buffer; /* SO_SNDBUF of our sockets; 0: the system's */

static int
add_sock_ni(void *arg)
{
	struct lnet_ni_tunables tun = { .peer_tx_credits = 8,
					.max_tx_credits = 256,
					.peer_timeout = 180 };
	struct lnet_nid nid = lnp_tcp_nid(g_our);
	char params[160];
	char err[160];

	(void)arg;
	/* accept=all: the test connects from an unprivileged port */
	snprintf(params, sizeof(params),
		 "accept_port=%u,accept=all,conns_per_peer=%d,tx_buffer_size=%d", g_port,
		 g_conns_per_peer, g_tx_buffer);
	socklnd_params_reset();
	assert_int_equal(socklnd_params_set(params, err, sizeof(err)), 0);
	return lnet_ni_add(lnet_instance(), &nid, socklnd_lnd_ops(), &tun, NULL, 0, &g_sni);
}

/* The next event, running LNet until there is one. */
static struct lnet_event
wait_event(void)
{
	struct lnet_event ev = { 0 };

	PUMP_UNTIL("an event", (ev = ut_event()).type != 0);
	return ev;
}

/* What a nonblocking read of up to @p n bytes got: 0 when nothing (or EOF). */
static size_t
read_some(int fd, void *buf, size_t n)
{
	ssize_t r = read(fd, buf, n);

	return r > 0 ? (size_t)r : 0;
}

/* Read exactly @p n bytes from nonblocking @p fd, running LNet until they came. */
static void
read_all(int fd, void *buf, size_t n, const char *what)
{
	size_t got = 0;

	PUMP_UNTIL(what, (got += read_some(fd, (uint8_t *)buf + got, n - got)) == n);
}

/* Is there something to read on @p fd (bytes or EOF), now. */
static bool
readable(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, 0) == 1;
}

/* Run LNet until the node has closed @p fd (EOF; bytes before it, a keepalive NOOP, are dropped). */
static void
wait_closed_by_node(int fd)
{
	char c[64];

	PUMP_UNTIL("the node closing our connection", read(fd, c, sizeof(c)) == 0);
}

/*
 * The node has not closed @p fd: once LNet has handled all it was given,
 * there is no EOF to read (a keepalive NOOP may be). Meaningful after a
 * positive step that would come after the close in question.
 */
static void
still_open(int fd)
{
	char c[64];
	ssize_t r;

	settle();
	while ((r = read(fd, c, sizeof(c))) > 0) {
	}
	assert_int_equal(r, -1);
	assert_int_equal(errno, EAGAIN);
}

/* LNet on @p ncpts CPTs with our socklnd NI on CPT 0. */
static void
setup_cpts(unsigned int ncpts)
{
	g_our = OUR_ADDR;
	g_peer = PEER_ADDR;
	g_conns_per_peer = 1;
	g_tx_buffer = 0;
	g_port = (uint16_t)(20000 + getpid() % 20000);
	ut_up(ncpts);
	ut_discovery(0); /* the LND alone: no discovery ping before the first PUT */
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_sock_ni, NULL), 0);
	settle(); /* no socket yet: nothing to wait for */
}

static int
setup(void **state)
{
	(void)state;
	setup_cpts(1);
	return 0;
}

/* The fake kernel: connect, connreq + V3 hello of @p ctype, read the answer. */
static int
kernel_connect_as(struct ksock_hello *answer, int ctype, uint64_t incarnation)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(g_port),
				  .sin_addr.s_addr = htonl(g_our) };
	struct ksock_hello me = { .src_pid = LNET_PID_LUSTRE,
				  .src_incarnation = incarnation,
				  .ctype = ctype };
	struct lnet_nid target = lnp_tcp_nid(g_our);
	uint8_t b[128];
	size_t n = 0;
	size_t h = 0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	me.src_nid = lnp_tcp_nid(g_peer);
	me.dst_nid = target;
	me.version = KSOCK_PROTO_V3;
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	assert_int_equal(ksock_connreq_encode(&target, b, sizeof(b), &n), 0);
	assert_int_equal(ksock_proto_v3.hello_encode(&me, b + n, sizeof(b) - n, &h), 0);
	assert_int_equal(write(fd, b, n + h), (ssize_t)(n + h));
	read_all(fd, b, 56, "the node's hello in answer");
	assert_int_equal(ksock_proto_v3.hello_decode(b, 56, answer, &n), 0);
	return fd;
}

static int
kernel_connect_type(struct ksock_hello *answer, int ctype)
{
	return kernel_connect_as(answer, ctype, 42);
}

static int
kernel_connect(struct ksock_hello *answer)
{
	return kernel_connect_type(answer, SOCKLND_CONN_CONTROL);
}

/* A frame the LND sent: ksock header, LNet header + payload for KSOCK_MSG_LNET. */
struct frame {
	struct ksock_msg km;
	struct lnet_hdr hdr;
	uint8_t payload[4096];
};

/* The whole frames at the start of @p buf[0, @p have), decoded into @p f (up to @p max). */
static unsigned int
frames_decode(const uint8_t *buf, size_t have, struct frame *f, unsigned int max)
{
	unsigned int n = 0;

	for (size_t off = 0; n < max && off + 24 <= have;) {
		assert_int_equal(ksock_msg_hdr_decode(buf + off, have - off, false, &f[n].km), 0);
		memset(&f[n].hdr, 0, sizeof(f[n].hdr));
		if (f[n].km.type == KSOCK_MSG_LNET) {
			if (off + 24 + 72 > have) {
				break;
			}
			assert_int_equal(lnet_hdr_decode_nid4(buf + off + 24, 72, &f[n].hdr), 0);
			assert_true(f[n].hdr.payload_length <= sizeof(f[n].payload));
			if (off + 24 + 72 + f[n].hdr.payload_length > have) {
				break;
			}
			memcpy(f[n].payload, buf + off + 24 + 72, f[n].hdr.payload_length);
			off += 72 + f[n].hdr.payload_length;
		}
		off += 24;
		n++;
	}
	return n;
}

/*
 * Read the frames the LND sent on @p fd, running LNet until @p want whole
 * ones came; then whatever else is already there: @return how many (up to
 * @p max), which the caller compares with @p want to see nothing more came.
 */
static unsigned int
kernel_read_frames(int fd, struct frame *f, unsigned int max, unsigned int want)
{
	static uint8_t buf[65536];
	size_t have = 0;

	assert_true(want <= max);
	PUMP_UNTIL("the frames the node sends",
		   frames_decode(buf, have += read_some(fd, buf + have, sizeof(buf) - have), f,
				 max) >= want);
	settle();
	have += read_some(fd, buf + have, sizeof(buf) - have);
	return frames_decode(buf, have, f, max);
}

/* A PUT from the kernel peer to us on UT_PORTAL; the caller sets its ack_wmd. */
static struct lnet_hdr
kernel_put_hdr(unsigned int len, uint64_t bits)
{
	struct lnet_hdr put;

	memset(&put, 0, sizeof(put));
	put.type = LNET_MSG_PUT;
	put.src_nid = lnp_tcp_nid(PEER_ADDR);
	put.dest_nid = lnp_tcp_nid(OUR_ADDR);
	put.src_pid = put.dest_pid = LNET_PID_LUSTRE;
	put.payload_length = len;
	put.msg.put.match_bits = bits;
	put.msg.put.ptl_index = UT_PORTAL;
	return put;
}

static void
kernel_send(int fd, const struct ksock_msg *km, const struct lnet_hdr *h, const void *payload,
	    unsigned int len)
{
	struct iovec iov = { (void *)payload, len };
	struct sock_tx tx;

	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, km, h, len ? &iov : NULL, 1, 0, len,
					 NULL),
			 0);
	assert_int_equal(sock_tx_send(&tx, fd, NULL), 1);
}

static int stats_on_lcore(void *arg);
static struct socklnd_stats sock_stats(void);

static void
test_kernel_peer_puts_and_pings(void **state)
{
	char dst[64];
	struct lnet_md md = ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF, LNET_MD_OP_PUT);
	struct ksock_hello answer;
	struct ksock_msg zc = { KSOCK_MSG_LNET, 0, { 5, 0 } };
	struct lnet_hdr put;
	struct lnet_hdr get;
	static struct frame f[4];
	struct socklnd_stats st;
	struct lnet_event ev;
	unsigned int n;
	unsigned int i;
	bool saw_ack = false;
	bool saw_zcack = false;
	int fd;

	(void)state;
	ut_attach(&md, 0x99, 0, LNET_INS_AFTER, LNET_RETAIN);
	fd = kernel_connect(&answer);
	assert_true(lnet_nid_same(&answer.src_nid, &(struct lnet_nid){ 0 }) == false);
	assert_int_equal(lnet_nid_to_nid4(&answer.src_nid), LNET_MKNID(LNET_MKNET(2, 0), OUR_ADDR));
	assert_int_equal(answer.ctype, SOCKLND_CONN_CONTROL);
	/* the kernel's reply reuses the hello it got: our dst slots (0) come back as sent */
	assert_int_equal(answer.dst_incarnation, 0);
	assert_int_equal(answer.dst_pid, 0);

	/* A PUT asking for an ACK and a zero-copy ACK (cookie 5). */
	put = kernel_put_hdr(11, 0x99);
	put.msg.put.ack_wmd.wh_interface_cookie = 0xabc;
	put.msg.put.ack_wmd.wh_object_cookie = 0xdef;
	kernel_send(fd, &zc, &put, "from kernel", 11);
	n = kernel_read_frames(fd, f, 4, 2); /* the zero-copy ACK (a NOOP) and the ACK */
	assert_int_equal(n, 2);
	ev = wait_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.mlength, 11);
	assert_memory_equal(dst, "from kernel", 11);
	assert_int_equal(lnet_nid_to_nid4(&ev.initiator.nid),
			 LNET_MKNID(LNET_MKNET(2, 0), PEER_ADDR));
	for (i = 0; i < n; i++) {
		if (f[i].km.type == KSOCK_MSG_NOOP && f[i].km.zc_cookies[1] == 5) {
			saw_zcack = true;
		}
		if (f[i].km.type == KSOCK_MSG_LNET && f[i].hdr.type == LNET_MSG_ACK) {
			saw_ack = true;
			assert_int_equal(f[i].hdr.msg.ack.dst_wmd.wh_interface_cookie, 0xabc);
			assert_int_equal(f[i].hdr.msg.ack.dst_wmd.wh_object_cookie, 0xdef);
			assert_int_equal(f[i].hdr.msg.ack.mlength, 11);
		}
	}
	assert_true(saw_zcack);
	assert_true(saw_ack);

	/* A ping: GET on portal 0; the REPLY carries our ping info. */
	memset(&get, 0, sizeof(get));
	get.type = LNET_MSG_GET;
	get.src_nid = lnp_tcp_nid(PEER_ADDR);
	get.dest_nid = lnp_tcp_nid(OUR_ADDR);
	get.src_pid = get.dest_pid = LNET_PID_LUSTRE;
	get.msg.get.return_wmd.wh_object_cookie = 0x77;
	get.msg.get.match_bits = LNET_PROTO_PING_MATCHBITS;
	get.msg.get.sink_length = 3960;
	kernel_send(fd, NULL, &get, NULL, 0);
	n = kernel_read_frames(fd, f, 4, 1);
	assert_int_equal(n, 1);
	assert_int_equal(f[0].hdr.type, LNET_MSG_REPLY);
	assert_int_equal(f[0].hdr.msg.reply.dst_wmd.wh_object_cookie, 0x77);
	{
		struct lnet_ping_decoded d;

		assert_int_equal(lnet_ping_info_decode(f[0].payload, f[0].hdr.payload_length, 16,
						       &d, NULL, 0),
				 0);
		assert_int_equal(d.pid, LNET_PID_LUSTRE);
	}

	/* Sending to the kernel's NID uses the connection it opened. */
	assert_int_equal(LNetPut(NULL, ut_bind("to kernel", 10, 1), LNET_NOACK_REQ,
				 &(struct lnet_processid){ LNET_PID_LUSTRE,
							   lnp_tcp_nid(PEER_ADDR) },
				 3, 7, 0, 0),
			 0);
	n = kernel_read_frames(fd, f, 4, 1);
	assert_int_equal(n, 1);
	assert_int_equal(f[0].hdr.type, LNET_MSG_PUT);
	assert_memory_equal(f[0].payload, "to kernel", 10);
	assert_int_equal(wait_event().type, LNET_EVENT_SEND);

	/* Garbage closes the connection and is counted. */
	assert_int_equal(write(fd,
			       "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"
			       "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c",
			       24),
			 24);
	PUMP_UNTIL("the LND closing the connection", readable(fd));
	{
		char c;

		assert_int_equal(read(fd, &c, 1), 0); /* closed by the LND, nothing before */
	}
	close(fd);
	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, stats_on_lcore, &st), 0);
	assert_int_equal(st.accepted, 1);
	assert_int_equal(st.conns_up, 1);
	assert_int_equal(st.proto_errors, 1);
	assert_int_equal(st.zc_acks, 1);
	assert_int_equal(st.rx_msgs, 2);
}

static int
stats_on_lcore(void *arg)
{
	socklnd_stats_get(g_sni, arg);
	return 0;
}

static void
test_stats_and_no_conn(void **state)
{
	struct socklnd_stats st;
	struct lnet_event ev;

	(void)state;
	/* Nobody listens on 127.0.0.3: the three connects fail, so does the SEND. */
	assert_int_equal(LNetPut(NULL, ut_bind("x", 2, 1), LNET_NOACK_REQ,
				 &(struct lnet_processid){ LNET_PID_LUSTRE,
							   lnp_tcp_nid(0x7f000003) },
				 3, 7, 0, 0),
			 0);
	ev = wait_event(); /* the SEND, once the connects failed */
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status,
			 -ECONNREFUSED); /* as the kernel reports it, not -EHOSTUNREACH */
	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, stats_on_lcore, &st), 0);
	assert_int_equal(st.connects, 3);
	assert_int_equal(st.connect_failures, 3);
	/* Another peer on our net where nobody listens (127.0.0.4@tcp): refused too. */
	assert_int_equal(LNetPut(NULL, ut_bind("y", 2, 1), LNET_NOACK_REQ,
				 &(struct lnet_processid){ LNET_PID_LUSTRE,
							   lnp_tcp_nid(0x7f000004) },
				 3, 7, 0, 0),
			 0);
	assert_int_equal(wait_event().status, -ECONNREFUSED);
}

struct tx_pool_look {
	struct rt_pool_stats st;
	unsigned int cached; /* in the NI lcore's cache */
};

static int
tx_pool_look_on_lcore(void *arg)
{
	struct tx_pool_look *l = arg;
	struct socklnd_ni *s = lnet_ni_lnd_data(g_sni);

	rt_pool_stats_get(s->tx_pool, &l->st);
	l->cached = rt_pool_cache_count(s->tx_pool, rt_lcore_self());
	return 0;
}

static struct tx_pool_look
tx_pool_look(void)
{
	struct tx_pool_look l;

	assert_int_equal(rt_lcore_call(lnet_ni_lcore(g_sni), tx_pool_look_on_lcore, &l), 0);
	return l;
}

/*
 * The NI's transmits are made as it starts, one at least for each of its
 * tx credits, and a send takes one from its lcore's cache of them: after a
 * send that failed every one is back, none was missing.
 */
static void
test_tx_pool_made_at_startup(void **state)
{
	struct tx_pool_look l = tx_pool_look();

	(void)state;
	assert_true(l.st.n >= (unsigned int)lnet_ni_credits(g_sni));
	assert_int_equal(l.st.avail, l.st.n);
	assert_int_equal(l.cached, 0); /* nothing sent yet: nothing taken into the cache */
	assert_int_equal(LNetPut(NULL, ut_bind("x", 2, 1), LNET_NOACK_REQ,
				 &(struct lnet_processid){ LNET_PID_LUSTRE,
							   lnp_tcp_nid(0x7f000003) },
				 3, 7, 0, 0),
			 0);
	assert_int_equal(wait_event().status, -ECONNREFUSED);
	l = tx_pool_look();
	assert_int_equal(l.st.avail, l.st.n);
	assert_int_equal(l.st.empty, 0);
	assert_true(l.cached > 0); /* the tx came through the lcore's cache and went back to it */
}

/* The kernel side of an accepted connection: accept, read connreq + our hello into @p h. */
static int
kernel_accept_read(int lfd, struct ksock_hello *hp)
{
	struct ksock_connreq cr;
	uint8_t b[128];
	size_t n;
	int fd = -1;

	PUMP_UNTIL("a connect from the node", (fd = accept(lfd, NULL, NULL)) >= 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	read_all(fd, b, 72, "the node's connection request and hello");
	assert_int_equal(ksock_connreq_decode(b, 16, &cr, &n), 0);
	assert_int_equal(lnet_nid_to_nid4(&cr.nid), LNET_MKNID(LNET_MKNET(2, 0), g_peer));
	assert_int_equal(ksock_proto_v3.hello_decode(b + 16, 56, hp, &n), 0);
	assert_int_equal(lnet_nid_to_nid4(&hp->src_nid), LNET_MKNID(LNET_MKNET(2, 0), g_our));
	return fd;
}

/* The kernel side of an accepted connection: read connreq + hello, answer (or refuse). */
static int
kernel_accept_answer(int lfd, int *ctype, bool refuse)
{
	struct ksock_hello h;
	struct ksock_hello me = { .version = KSOCK_PROTO_V3,
				  .src_pid = LNET_PID_LUSTRE,
				  .src_incarnation = 7 };
	uint8_t b[128];
	size_t n;
	int fd = kernel_accept_read(lfd, &h);

	*ctype = h.ctype;
	me.src_nid = lnp_tcp_nid(g_peer);
	me.dst_nid = h.src_nid;
	me.ctype = refuse ? SOCKLND_CONN_NONE : ksock_conn_type_invert(h.ctype);
	assert_int_equal(ksock_proto_v3.hello_encode(&me, b, sizeof(b), &n), 0);
	assert_int_equal(write(fd, b, n), (ssize_t)n);
	return fd;
}

static int
kernel_accept_one(int lfd, int *ctype)
{
	return kernel_accept_answer(lfd, ctype, false);
}

/* LNet sends to a peer it has no connection to: it opens the kernel's three. */
static void
test_active_connects(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(g_port),
				  .sin_addr.s_addr = htonl(PEER_ADDR) };
	static struct frame f[4];
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	int one = 1;
	int fds[3];
	int types = 0;
	int control = -1;
	unsigned int i;
	unsigned int n;

	(void)state;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 8), 0);
	assert_int_equal(LNetPut(NULL, ut_bind("active!", 8, 1), LNET_NOACK_REQ,
				 &(struct lnet_processid){ LNET_PID_LUSTRE,
							   lnp_tcp_nid(PEER_ADDR) },
				 3, 7, 0, 0),
			 0);
	for (i = 0; i < 3; i++) {
		int t;

		fds[i] = kernel_accept_one(lfd, &t);
		types |= 1 << t;
		if (t == SOCKLND_CONN_CONTROL) {
			control = fds[i];
		}
	}
	/* CONTROL, BULK_IN and BULK_OUT, as a kernel connects */
	assert_int_equal(types, (1 << SOCKLND_CONN_CONTROL) | (1 << SOCKLND_CONN_BULK_IN) |
					(1 << SOCKLND_CONN_BULK_OUT));
	n = kernel_read_frames(control, f, 4, 1);
	assert_int_equal(n, 1);
	assert_int_equal(f[0].hdr.type, LNET_MSG_PUT);
	assert_memory_equal(f[0].payload, "active!", 8);
	assert_int_equal(wait_event().type, LNET_EVENT_SEND);
	for (i = 0; i < 3; i++) {
		close(fds[i]);
	}
	close(lfd);
}

/*
 * sock_timeout on the virtual clock: a peer that stops mid-message is cut
 * off once the timeout passes with no progress; an idle one stays.
 */
static void
test_stalled_peer_times_out(void **state)
{
	struct ksock_hello answer;
	struct socklnd_stats st;
	uint8_t half[30] = { 0xc1, 0, 0, 0 };
	uint8_t ka[64];
	struct ksock_msg km;
	uint64_t reads;
	int idle;
	int stalled = kernel_connect_type(&answer, SOCKLND_CONN_BULK_OUT);
	char c;

	(void)state;
	g_peer = 0x7f000005U; /* another peer: a timeout closes the stalled one's siblings */
	idle = kernel_connect(&answer);
	g_peer = PEER_ADDR;
	reads = sock_stats().rx_reads;
	assert_int_equal(write(stalled, half, sizeof(half)), (ssize_t)sizeof(half));
	PUMP_UNTIL("the node reading the half message", sock_stats().rx_reads > reads);
	rt_sim_advance_us(lnet_instance()->rt, 49ULL * 1000000);
	settle(); /* the virtual clock: whatever was due at 49 s has run */
	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, stats_on_lcore, &st), 0);
	assert_int_equal(st.timeouts, 0); /* not yet: 50 s is the default */
	rt_sim_advance_us(lnet_instance()->rt, 3ULL * 1000000);
	settle();
	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, stats_on_lcore, &st), 0);
	assert_int_equal(st.timeouts, 1);
	PUMP_UNTIL("the stalled connection's EOF", readable(stalled));
	assert_int_equal(read(stalled, &c, 1), 0); /* closed by the node */
	/* The idle one is still open: silent for over `keepalive` (30 s), it got one NOOP {0, 1}. */
	read_all(idle, ka, 24, "the keepalive NOOP");
	assert_int_equal(ksock_msg_hdr_decode(ka, 24, false, &km), 0);
	assert_int_equal(km.type, KSOCK_MSG_NOOP);
	assert_int_equal(km.zc_cookies[0], 0);
	assert_int_equal(km.zc_cookies[1], SOCKNAL_KEEPALIVE_PING);
	settle();
	assert_int_equal(read(idle, &c, 1), -1); /* only the one NOOP, and no EOF */
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(sock_stats().keepalives, 1); /* not again within 10 s */
	close(stalled);
	close(idle);
}

static struct socklnd_stats
sock_stats(void)
{
	struct socklnd_stats st;

	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, stats_on_lcore, &st), 0);
	return st;
}

/* A second CONTROL connection from the same peer is a duplicate: CONN_NONE. */
static void
test_duplicate_refused(void **state)
{
	struct ksock_hello answer;
	int first = kernel_connect(&answer);
	int second;

	(void)state;
	assert_int_equal(answer.ctype, SOCKLND_CONN_CONTROL);
	second = kernel_connect(&answer);
	assert_int_equal(answer.ctype, SOCKLND_CONN_NONE);
	wait_closed_by_node(second);
	still_open(first);
	assert_int_equal(sock_stats().duplicates, 1);
	assert_int_equal(sock_stats().handshake_failures, 0); /* a refusal is not an error */
	close(first);
	close(second);
}

/* The peer restarted (new incarnation): its old connections go, the new one stays. */
static void
test_new_incarnation_closes_old(void **state)
{
	struct ksock_hello answer;
	int old = kernel_connect_as(&answer, SOCKLND_CONN_CONTROL, 42);
	int fresh = kernel_connect_as(&answer, SOCKLND_CONN_CONTROL, 43);

	(void)state;
	assert_int_equal(answer.ctype, SOCKLND_CONN_CONTROL); /* not a duplicate: a new life */
	wait_closed_by_node(old);
	still_open(fresh);
	assert_int_equal(sock_stats().stale_conns, 1);
	close(old);
	close(fresh);
}

static int
kernel_listen(uint32_t addr)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(g_port),
				  .sin_addr.s_addr = htonl(addr) };
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	int one = 1;

	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 8), 0);
	return lfd;
}

/*
 * Both sides connect at once and the peer's NID is higher: its CONTROL
 * connection is accepted, it refuses ours (CONN_NONE), and the waiting PUT
 * goes out on the connection the peer opened.
 */
static void
test_race_higher_peer_wins(void **state)
{
	static struct frame f[2];
	struct ksock_hello answer;
	int lfd = kernel_listen(PEER_ADDR);
	int theirs;
	int ours;
	int t;

	(void)state;
	assert_int_equal(LNetPut(NULL, ut_bind("race!", 6, 1), LNET_NOACK_REQ,
				 &(struct lnet_processid){ LNET_PID_LUSTRE,
							   lnp_tcp_nid(PEER_ADDR) },
				 3, 7, 0, 0),
			 0);
	PUMP_UNTIL("our three connects in flight", sock_stats().connects == 3);
	theirs = kernel_connect(&answer);
	assert_int_equal(answer.ctype, SOCKLND_CONN_CONTROL); /* 127.0.0.2 > 127.0.0.1: accepted */
	do {
		ours = kernel_accept_answer(lfd, &t, true);
		if (t != SOCKLND_CONN_CONTROL) {
			close(ours);
		}
	} while (t != SOCKLND_CONN_CONTROL);
	assert_int_equal(kernel_read_frames(theirs, f, 2, 1), 1);
	assert_int_equal(f[0].hdr.type, LNET_MSG_PUT);
	assert_memory_equal(f[0].payload, "race!", 6);
	assert_int_equal(wait_event().status, 0);
	close(ours);
	close(theirs);
	close(lfd);
}

static int
setup_high(void **state)
{
	(void)state;
	g_our = 0x7f000009U;  /* 127.0.0.9: higher than the peer */
	g_peer = 0x7f000003U; /* 127.0.0.3 */
	g_port = (uint16_t)(20000 + getpid() % 20000);
	ut_up(1);
	ut_discovery(0); /* the LND alone: no discovery ping before the first PUT */
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_sock_ni, NULL), 0);
	settle(); /* no socket yet: nothing to wait for */
	return 0;
}

/* Both connect at once and this node's NID is higher: the peer's connection is refused. */
static void
test_race_lower_peer_refused(void **state)
{
	struct ksock_hello answer;
	int lfd = kernel_listen(g_peer);
	int fd;
	int t;

	(void)state;
	assert_int_equal(LNetPut(NULL, ut_bind("mine", 5, 1), LNET_NOACK_REQ,
				 &(struct lnet_processid){ LNET_PID_LUSTRE, lnp_tcp_nid(g_peer) },
				 3, 7, 0, 0),
			 0);
	PUMP_UNTIL("our three connects in flight", sock_stats().connects == 3);
	fd = kernel_connect(&answer);
	assert_int_equal(answer.ctype, SOCKLND_CONN_NONE);
	wait_closed_by_node(fd);
	assert_int_equal(sock_stats().races_won, 1);
	close(fd);
	for (int i = 0; i < 3; i++) {
		close(kernel_accept_one(lfd, &t)); /* ours proceed; then the peer goes away */
	}
	settle();
	(void)ut_event(); /* whichever way the PUT went: not what this test is about */
	close(lfd);
}

/* A peer nobody answers for: the next send fails at once until the backoff passes, doubling. */
static void
test_reconnect_backoff(void **state)
{
	struct lnet_processid nobody = { LNET_PID_LUSTRE, lnp_tcp_nid(0x7f000004U) };

	(void)state;
	assert_int_equal(LNetPut(NULL, ut_bind("a", 2, 1), LNET_NOACK_REQ, &nobody, 3, 7, 0, 0), 0);
	assert_int_equal(wait_event().status, -ECONNREFUSED);
	assert_int_equal(sock_stats().connects, 3);
	assert_int_equal(LNetPut(NULL, ut_bind("b", 2, 1), LNET_NOACK_REQ, &nobody, 3, 7, 0, 0), 0);
	assert_int_equal(wait_event().status, -EHOSTUNREACH);
	assert_int_equal(sock_stats().connects, 3); /* backing off: no new attempt */
	rt_sim_advance_us(lnet_instance()->rt, 1100000);
	assert_int_equal(LNetPut(NULL, ut_bind("c", 2, 1), LNET_NOACK_REQ, &nobody, 3, 7, 0, 0), 0);
	assert_int_equal(wait_event().status, -ECONNREFUSED);
	assert_int_equal(sock_stats().connects, 6); /* 1 s passed: tried again */
	rt_sim_advance_us(lnet_instance()->rt, 1100000);
	assert_int_equal(LNetPut(NULL, ut_bind("d", 2, 1), LNET_NOACK_REQ, &nobody, 3, 7, 0, 0), 0);
	assert_int_equal(wait_event().status, -EHOSTUNREACH);
	assert_int_equal(sock_stats().connects, 6); /* now it waits 2 s */
	/* the peer went idle -> connecting -> backoff, twice */
	assert_int_equal(sock_stats().peer_entered[SOCKLND_PEER_CONNECTING], 2);
	assert_int_equal(sock_stats().peer_entered[SOCKLND_PEER_BACKOFF], 2);
	assert_int_equal(sock_stats().peer_entered[SOCKLND_PEER_UP], 0);
}

static int
setup_two_per_peer(void **state)
{
	setup(state);
	ut_teardown(state);
	g_conns_per_peer = 2;
	ut_up(1);
	ut_discovery(0); /* the LND alone: no discovery ping before the first PUT */
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_sock_ni, NULL), 0);
	settle(); /* no socket yet: nothing to wait for */
	return 0;
}

/*
 * conns_per_peer 2: LNet opens one CONTROL and two each of BULK_IN and
 * BULK_OUT; large messages take turns on the two BULK_OUT. The peer's
 * connections are taken up to two of a bulk type: with both of ours up a
 * third is a duplicate; with one of them gone, the peer's is taken.
 */
static void
test_two_conns_per_peer(void **state)
{
	struct lnet_processid peer = { LNET_PID_LUSTRE, lnp_tcp_nid(PEER_ADDR) };
	static uint8_t big[2048];
	static struct frame f[4];
	struct ksock_hello answer;
	int lfd = kernel_listen(PEER_ADDR);
	int fds[5];
	int types[5];
	int count[4] = { 0 };
	unsigned int total = 0;
	int bulk_in = -1;
	uint64_t dead;
	int extra;
	unsigned int i;

	(void)state;
	assert_int_equal(LNetPut(NULL, ut_bind("hi", 3, 1), LNET_NOACK_REQ, &peer, 3, 7, 0, 0), 0);
	for (i = 0; i < 5; i++) {
		fds[i] = kernel_accept_one(lfd, &types[i]);
		count[types[i]]++;
		bulk_in = types[i] == SOCKLND_CONN_BULK_IN ? (int)i : bulk_in;
	}
	assert_int_equal(count[SOCKLND_CONN_CONTROL], 1);
	assert_int_equal(count[SOCKLND_CONN_BULK_IN], 2);
	assert_int_equal(count[SOCKLND_CONN_BULK_OUT], 2);
	assert_int_equal(wait_event().status, 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(LNetPut(NULL, ut_bind(big, sizeof(big), 1), LNET_NOACK_REQ, &peer,
					 3, 7, 0, 0),
				 0);
		assert_int_equal(wait_event().status, 0); /* the peer's TCP has it: all sent */
	}
	for (i = 0; i < 5; i++) {
		/* they took turns on the BULK_OUTs; "hi" on CONTROL; BULK_IN carries no LNet messages */
		unsigned int want = types[i] == SOCKLND_CONN_BULK_OUT ? 2 :
				    types[i] == SOCKLND_CONN_CONTROL  ? 1 :
									0;
		unsigned int n = kernel_read_frames(fds[i], f, 4, want);

		total += n;
		assert_int_equal(n, want);
	}
	assert_int_equal(total, 5);
	/* The same incarnation as its accepted side's hellos (7): not a restart. */
	extra = kernel_connect_as(&answer, SOCKLND_CONN_BULK_OUT, 7); /* our BULK_IN: 2 up */
	assert_int_equal(answer.ctype, SOCKLND_CONN_NONE);
	assert_int_equal(sock_stats().duplicates, 1);
	wait_closed_by_node(extra); /* its end counted before the one awaited below */
	close(extra);
	dead = sock_stats().conn_entered[SOCKLND_CONN_DEAD];
	close(fds[bulk_in]);
	fds[bulk_in] = -1;
	PUMP_UNTIL("the node closing its side of the BULK_IN",
		   sock_stats().conn_entered[SOCKLND_CONN_DEAD] > dead);
	extra = kernel_connect_as(&answer, SOCKLND_CONN_BULK_OUT, 7); /* one left: taken */
	assert_int_equal(answer.ctype, SOCKLND_CONN_BULK_IN);
	assert_int_equal(sock_stats().duplicates, 1);
	assert_int_equal(sock_stats().stale_conns, 0);
	close(extra);
	for (i = 0; i < 5; i++) {
		if (fds[i] >= 0) {
			close(fds[i]);
		}
	}
	close(lfd);
}

/* ksocklnd module parameters by name: ranges, the kernel's that mean nothing here, all or nothing. */
static void
test_module_params(void **state)
{
	static const struct socklnd_opts defaults = SOCKLND_OPTS_DEFAULT;
	struct socklnd_opts o = SOCKLND_OPTS_DEFAULT;
	struct lnet_lnd_param v[32];
	char err[160];
	unsigned int n;
	unsigned int i;

	(void)state;
	assert_int_equal(socklnd_params_parse(&o, "typed_conns=0,keepalive=7,min_reconnectms=200",
					      err, sizeof(err)),
			 0);
	assert_int_equal(o.typed_conns, 0);
	assert_int_equal(o.keepalive, 7);
	assert_int_equal(o.min_reconnectms, 200);
	assert_int_equal(socklnd_opts_check(&o), 0);
	o = defaults;
	assert_int_equal(socklnd_params_parse(&o, "nagle=1,tos=300", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(o.nagle, 0); /* nothing applied */
	assert_int_equal(socklnd_params_parse(&o, "nconnds=8", err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "not supported"));
	assert_int_equal(socklnd_params_parse(&o, "bogus=1", err, sizeof(err)), -ENOENT);
	assert_int_equal(socklnd_params_parse(&o, "nagle=x", err, sizeof(err)), -EINVAL);
	assert_int_equal(socklnd_params_parse(&o, "min_reconnectms=9000,max_reconnectms=100", err,
					      sizeof(err)),
			 -EINVAL);
	{
		struct lnet_lnd_param now[32];

		n = socklnd_params_list(&defaults, v, 32);
		assert_int_equal(socklnd_params_list(&o, now, 32), n);
		for (i = 0; i < n; i++) {
			assert_int_equal(now[i].value,
					 v[i].value); /* every refusal left them alone */
		}
	}
	o.min_reconnectms = 5000;
	o.max_reconnectms = 10;
	assert_int_equal(socklnd_opts_check(&o), -EINVAL);
	n = socklnd_params_list(&defaults, v, 32);
	assert_true(n >= 15);
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].name, "sock_timeout") == 0) {
			assert_int_equal(v[i].value, 50);
		}
	}
}

/* The value of module parameter @p name as the LND lists it (params_get). */
static const struct lnet_lnd_param *
lnd_param(const struct lnet_lnd_ops *lnd, const char *name)
{
	static struct lnet_lnd_param v[64];
	unsigned int n = lnd->params_get(v, 64);
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (strcmp(v[i].name, name) == 0) {
			return &v[i];
		}
	}
	fail_msg("no parameter %s", name);
	return NULL;
}

/* "NAME=VALUE,..." refused: @p rc, an error naming @p why, nothing changed. */
static void
refused(const struct lnet_lnd_ops *lnd, const char *list, int rc, const char *why)
{
	struct lnet_lnd_param before[64];
	struct lnet_lnd_param after[64];
	unsigned int n = lnd->params_get(before, 64);
	char err[160] = "";
	unsigned int i;

	assert_int_equal(lnd->params_set(list, err, sizeof(err)), rc);
	if (strstr(err, why) == NULL) {
		fail_msg("\"%s\": error \"%s\" does not say \"%s\"", list, err, why);
	}
	assert_int_equal(lnd->params_get(after, 64), n);
	for (i = 0; i < n; i++) {
		assert_int_equal(after[i].value, before[i].value);
	}
}

/*
 * The socklnd parses its own module parameters through the LND contract
 * (lnet_lnd_ops.params_set/params_get/ni_check), as the daemon reaches it
 * by net type: accepted ones become the defaults of NIs started later;
 * bad names, bad values, values out of range and malformed items are
 * refused as a whole, with an error that names the parameter.
 */
static void
test_lnd_params(void **state)
{
	const struct lnet_lnd_ops *lnd = lnet_lnd_find(LNET_LND_SOCK);
	struct lnet_ctl_lnd_tunables tun = { 0 };
	struct socklnd_opts o;
	char err[160] = "";

	(void)state;
	assert_non_null(lnd);
	assert_non_null(lnd->params_set);
	assert_non_null(lnd->params_get);
	assert_non_null(lnd->ni_check);
	socklnd_params_reset();
	assert_int_equal(lnd_param(lnd, "sock_timeout")->value, 50);
	assert_int_equal(lnd_param(lnd, "accept_port")->value, 988);
	assert_string_equal(lnd_param(lnd, "accept")->str, "secure");
	assert_null(lnd_param(lnd, "nagle")->str);

	refused(lnd, "bogus=1", -ENOENT, "no socklnd parameter bogus");
	refused(lnd, "nagle=1,bogus=1", -ENOENT, "no socklnd parameter bogus"); /* all or nothing */
	refused(lnd, "nscheds=4", -EOPNOTSUPP, "nscheds is not supported: no scheduler threads");
	refused(lnd, "nagle=yes", -EINVAL, "nagle: \"yes\" is not a number");
	refused(lnd, "sock_timeout=", -EINVAL, "NAME=VALUE expected");
	refused(lnd, "nagle", -EINVAL, "\"nagle\": NAME=VALUE expected");
	refused(lnd, "=1", -EINVAL, "NAME=VALUE expected");
	refused(lnd, "", -EINVAL, "NAME=VALUE");
	refused(lnd, "typed_conns=5", -EINVAL, "typed_conns: 5 is out of range 0-1");
	refused(lnd, "sock_timeout=-1", -EINVAL, "sock_timeout: -1 is out of range 0-3600");
	refused(lnd, "accept_port=0", -EINVAL, "accept_port: 0 is out of range 1-65535");
	refused(lnd, "accept_port=70000", -EINVAL, "accept_port: 70000 is out of range 1-65535");
	refused(lnd, "accept=maybe", -EINVAL, "accept: \"maybe\" is not one of secure, all, none");
	refused(lnd, "min_reconnectms=9000,max_reconnectms=100", -EINVAL,
		"min_reconnectms above max_reconnectms");

	assert_int_equal(lnd->params_set("sock_timeout=20,accept=all,accept_port=1988,nagle=1", err,
					 sizeof(err)),
			 0);
	assert_int_equal(lnd_param(lnd, "sock_timeout")->value, 20);
	assert_int_equal(lnd_param(lnd, "accept_port")->value, 1988);
	assert_string_equal(lnd_param(lnd, "accept")->str, "all");
	assert_int_equal(lnd_param(lnd, "nagle")->value, 1);

	/* A NI's lnd tunables over them: 0 keeps the module's; others are checked. */
	assert_int_equal(socklnd_ni_opts(NULL, &o, err, sizeof(err)), 0);
	assert_int_equal(o.timeout, 20);
	assert_int_equal(o.port, 1988);
	assert_int_equal(o.accept, SOCKLND_ACCEPT_ALL);
	tun.n = 3;
	tun.t[0] = (struct lnet_ctl_lnd_tunable){ "conns_per_peer", 4 };
	tun.t[1] = (struct lnet_ctl_lnd_tunable){ "timeout", 0 };
	tun.t[2] = (struct lnet_ctl_lnd_tunable){ "tos", 16 };
	assert_int_equal(lnd->ni_check(&tun, err, sizeof(err)), 0);
	assert_int_equal(socklnd_ni_opts(&tun, &o, err, sizeof(err)), 0);
	assert_int_equal(o.conns_per_peer, 4);
	assert_int_equal(o.timeout, 20);
	assert_int_equal(o.tos, 16);
	tun.t[0].value = 128;
	assert_int_equal(lnd->ni_check(&tun, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "lnd tunable conns_per_peer: 128 is out of range 0-127"));
	tun.t[0] = (struct lnet_ctl_lnd_tunable){ "peercredits_hiw", 4 }; /* an o2iblnd tunable */
	assert_int_equal(lnd->ni_check(&tun, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no lnd tunable peercredits_hiw"));
	socklnd_params_reset();
	assert_int_equal(lnd_param(lnd, "sock_timeout")->value, 50);
}

/*
 * A PUT waiting on a lazy portal: its payload came in the recv() that
 * brought its header, so no readable event will announce it. It is read
 * when an MD appears, and the rest of the stream after it too.
 */
static void
test_lazy_put_staged_payload(void **state)
{
	char dst[64] = "";
	struct lnet_md md = ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF, LNET_MD_OP_PUT);
	struct ksock_hello answer;
	struct ksock_msg km = { KSOCK_MSG_LNET, 0, { 0, 0 } };
	struct socklnd_stats st;
	struct lnet_hdr put;
	struct lnet_event ev;
	int one = 1;
	int fd;

	(void)state;
	assert_int_equal(LNetSetLazyPortal(UT_PORTAL), 0);
	fd = kernel_connect(&answer);
	/* Nagle would hold the second PUT back for an ACK; inline mode does not wait. */
	assert_int_equal(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)), 0);
	put = kernel_put_hdr(12, 0x55);
	memset(&put.msg.put.ack_wmd, 0xff, sizeof(put.msg.put.ack_wmd)); /* no ACK */
	kernel_send(fd, &km, &put, "staged bytes", 12);
	put.msg.put.match_bits = 0x56;
	kernel_send(fd, &km, &put, "second put..", 12);
	ut_no_event(); /* both are in; the first waits for an MD, the second behind it */
	ut_attach(&md, 0x55, 0x3, LNET_INS_AFTER, LNET_RETAIN);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.match_bits, 0x55);
	assert_memory_equal(dst, "staged bytes", 12);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.match_bits, 0x56);
	assert_memory_equal(dst + 12, "second put..", 12);
	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, stats_on_lcore, &st), 0);
	assert_int_equal(st.rx_msgs, 2);
	assert_true(st.rx_reads < st.rx_msgs * 3); /* not a recv() per header and payload */
	assert_int_equal(LNetClearLazyPortal(UT_PORTAL), 0);
	close(fd);
}

/*
 * A PUT held by a lazy portal (LNet has not called recv): the kernel's
 * ksnc_rx_deadline closes the connection after sock_timeout with no
 * progress; it must not stall forever. LNet lets go of it afterwards.
 */
static void
test_lazy_put_held_times_out(void **state)
{
	struct ksock_hello answer;
	struct ksock_msg km = { KSOCK_MSG_LNET, 0, { 0, 0 } };
	struct lnet_hdr put;
	uint64_t reads;
	int fd;

	(void)state;
	assert_int_equal(LNetSetLazyPortal(UT_PORTAL), 0);
	fd = kernel_connect(&answer);
	put = kernel_put_hdr(12, 0x55);
	memset(&put.msg.put.ack_wmd, 0xff, sizeof(put.msg.put.ack_wmd));
	reads = sock_stats().rx_reads;
	kernel_send(fd, &km, &put, "held forever", 12);
	PUMP_UNTIL("the node reading the PUT", sock_stats().rx_reads > reads);
	rt_sim_advance_us(lnet_instance()->rt, 49ULL * 1000000);
	settle(); /* the virtual clock: whatever was due at 49 s has run */
	assert_int_equal(sock_stats().timeouts, 0); /* not yet: sock_timeout is 50 s */
	still_open(fd);
	rt_sim_advance_us(lnet_instance()->rt, 3ULL * 1000000);
	wait_closed_by_node(fd);
	assert_int_equal(sock_stats().timeouts, 1);
	assert_int_equal(LNetClearLazyPortal(UT_PORTAL), 0); /* drops it: the connection is freed */
	settle();
	close(fd);
}

/* A raw client connected to our acceptor that sends @p n bytes of @p b, then stalls. */
static int
client_stalls_after(const uint8_t *b, size_t n)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(g_port),
				  .sin_addr.s_addr = htonl(g_our) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (n > 0) {
		assert_int_equal(write(fd, b, n), (ssize_t)n);
	}
	return fd;
}

/*
 * The kernel's acceptor reads the request and the hello with accept_timeout
 * (5 s), not sock_timeout (50 s): a client that sends nothing, half the
 * request (magic and version) or half a hello is closed after 5 s and
 * counted; a peer that completes its handshake meanwhile is served.
 */
static void
test_stalled_handshake_accept_timeout(void **state)
{
	struct lnet_nid target = lnp_tcp_nid(OUR_ADDR);
	struct ksock_hello me = { .version = KSOCK_PROTO_V3,
				  .src_pid = LNET_PID_LUSTRE,
				  .src_incarnation = 42,
				  .ctype = SOCKLND_CONN_CONTROL };
	struct ksock_hello answer;
	uint8_t b[128];
	size_t n = 0;
	size_t h = 0;
	int fds[3];
	int good;
	unsigned int i;

	(void)state;
	me.src_nid = lnp_tcp_nid(PEER_ADDR);
	me.dst_nid = target;
	assert_int_equal(ksock_connreq_encode(&target, b, sizeof(b), &n), 0);
	assert_int_equal(ksock_proto_v3.hello_encode(&me, b + n, sizeof(b) - n, &h), 0);
	fds[0] = client_stalls_after(b, 0);         /* nothing */
	fds[1] = client_stalls_after(b, 8);         /* the acceptor magic and version */
	fds[2] = client_stalls_after(b, n + h / 2); /* the request and half a hello */
	PUMP_UNTIL("the node accepting the three", sock_stats().accepted == 3);
	PUMP_UNTIL("the node reading what they sent",
		   sock_stats().hs_entered[SOCK_CONN_RECV_HELLO] == 1); /* the third's request */
	rt_sim_advance_us(lnet_instance()->rt, 4ULL * 1000000);
	for (i = 0; i < 3; i++) {
		still_open(fds[i]); /* not before accept_timeout */
	}
	good = kernel_connect(&answer); /* others are served meanwhile */
	assert_int_equal(answer.ctype, SOCKLND_CONN_CONTROL);
	rt_sim_advance_us(lnet_instance()->rt, 2ULL * 1000000);
	for (i = 0; i < 3; i++) {
		wait_closed_by_node(fds[i]);
		close(fds[i]);
	}
	still_open(good); /* a finished handshake is not timed */
	assert_int_equal(sock_stats().handshake_timeouts, 3);
	assert_int_equal(sock_stats().timeouts, 0);
	assert_int_equal(sock_stats().conns_up, 1);
	close(good);
}

/*
 * A kernel node's reply hello, as captured (kernel-vs-pmd/61, frame 35:
 * 192.0.2.11@tcp answering 192.0.2.21@tcp after `rmmod lnet` and reload):
 * V3, pid 12345, dst_pid 0, its new incarnation 0x18eb0dab313282eb,
 * dst_incarnation 0, CONTROL, no IPs. Replayed with our test NIDs and the
 * type asked for patched in.
 */
static const uint8_t kernel_reply_61_35[56] = {
	0x63, 0x69, 0x72, 0x45, 0x03, 0x00, 0x00, 0x00, 0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00,
	0x02, 0x00, 0x15, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x39, 0x30, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xeb, 0x82, 0x32, 0x31, 0xab, 0x0d, 0xeb, 0x18, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
#define KERNEL_NEW_INCARNATION 0x18eb0dab313282ebULL

/* Accept one of our connects and leave it waiting for the kernel's reply: @return its fd. */
static int
kernel_accept_pending(int lfd, int *ctype)
{
	struct ksock_hello h;
	int fd = kernel_accept_read(lfd, &h);

	*ctype = h.ctype;
	return fd;
}

/* Answer a pending connection with the captured kernel hello (NIDs, type patched). */
static void
kernel_reply_captured(int fd, int ctype)
{
	uint8_t b[56];
	uint64_t src = lnet_nid_to_nid4(&(struct lnet_nid){ 0 });
	uint64_t dst;
	uint32_t t = (uint32_t)ksock_conn_type_invert(ctype);
	struct ksock_hello h;
	size_t n;

	memcpy(b, kernel_reply_61_35, sizeof(b));
	src = LNET_MKNID(LNET_MKNET(2, 0), g_peer);
	dst = LNET_MKNID(LNET_MKNET(2, 0), g_our);
	memcpy(b + 8, &src, 8);
	memcpy(b + 16, &dst, 8);
	memcpy(b + 48, &t, 4);
	assert_int_equal(ksock_proto_v3.hello_decode(b, sizeof(b), &h, &n), 0);
	assert_int_equal(h.src_incarnation, KERNEL_NEW_INCARNATION);
	assert_int_equal(write(fd, b, sizeof(b)), (ssize_t)sizeof(b));
}

/* Accept our three connects (kernel_accept_one answers with incarnation 7): CONTROL's fd in @p fds[0]. */
static void
kernel_accept_three(int lfd, int fds[3])
{
	int t;
	int k = 1;

	for (unsigned int i = 0; i < 3; i++) {
		int fd = kernel_accept_one(lfd, &t);

		fds[t == SOCKLND_CONN_CONTROL ? 0 : k++] = fd;
	}
}

/*
 * The kernel peer reloaded LNet (capture 61): it closed our connections,
 * and our next message opens three new ones. Its first reply carries its
 * new incarnation; the two connects whose replies have not come yet are
 * of no known incarnation and must not be closed (lnetd-pmd FIN'd them,
 * frames 37-38, then RST them as the replies came). All three come up.
 */
static void
test_new_incarnation_spares_pending_connects(void **state)
{
	static struct frame f[2];
	int lfd = kernel_listen(PEER_ADDR);
	struct lnet_processid peer = { LNET_PID_LUSTRE, lnp_tcp_nid(PEER_ADDR) };
	int old[3];
	int fds[3];
	int types[3];
	int control = -1;
	unsigned int i;

	(void)state;
	assert_int_equal(LNetPut(NULL, ut_bind("before", 7, 1), LNET_NOACK_REQ, &peer, 3, 7, 0, 0),
			 0);
	kernel_accept_three(lfd, old); /* incarnation 7 */
	assert_int_equal(kernel_read_frames(old[0], f, 2, 1), 1);
	assert_int_equal(wait_event().status, 0);
	for (i = 0; i < 3; i++) {
		close(old[i]); /* rmmod */
	}
	PUMP_UNTIL("the node closing the three on their EOF",
		   sock_stats().conn_entered[SOCKLND_CONN_DEAD] == 3);
	assert_int_equal(LNetPut(NULL, ut_bind("after", 6, 1), LNET_NOACK_REQ, &peer, 3, 7, 0, 0),
			 0);
	for (i = 0; i < 3; i++) {
		fds[i] = kernel_accept_pending(lfd, &types[i]);
		control = types[i] == SOCKLND_CONN_CONTROL ? (int)i : control;
	}
	assert_true(control >= 0);
	kernel_reply_captured(fds[control], types[control]); /* the new incarnation, first */
	PUMP_UNTIL("the node taking the new incarnation's reply", sock_stats().conns_up == 4);
	for (i = 0; i < 3; i++) {
		if ((int)i != control) {
			still_open(fds[i]); /* pending: not stale */
			kernel_reply_captured(fds[i], types[i]);
		}
	}
	assert_int_equal(kernel_read_frames(fds[control], f, 2, 1), 1);
	assert_memory_equal(f[0].payload, "after", 6);
	assert_int_equal(wait_event().status, 0);
	PUMP_UNTIL("the node taking the other two replies", sock_stats().conns_up == 6);
	for (i = 0; i < 3; i++) {
		still_open(fds[i]);
	}
	for (i = 0; i < 3; i++) {
		close(fds[i]);
	}
	assert_int_equal(sock_stats().conns_up, 6);
	assert_int_equal(sock_stats().stale_conns, 0); /* the old ones had closed on their EOF */
	close(lfd);
}

/*
 * The kernel peer crashed and rebooted (capture 62): our connections to
 * it are dead and we do not know. The first message on one of them is
 * answered with a reset; its siblings must go with it (ksocknal_close_
 * conn_and_siblings), so the next message opens new connections instead
 * of going down another dead one (lnetd-pmd's did, frames 16-19). The new
 * connections take the rebooted node's new incarnation.
 */
static void
test_reset_closes_siblings_after_crash(void **state)
{
	static struct frame f[2];
	int lfd = kernel_listen(PEER_ADDR);
	struct lnet_processid peer = { LNET_PID_LUSTRE, lnp_tcp_nid(PEER_ADDR) };
	struct linger rst = { 1, 0 };
	int old[3];
	int fds[3];
	int types[3];
	int control = -1;
	unsigned int i;

	(void)state;
	assert_int_equal(LNetPut(NULL, ut_bind("before", 7, 1), LNET_NOACK_REQ, &peer, 3, 7, 0, 0),
			 0);
	kernel_accept_three(lfd, old);
	assert_int_equal(kernel_read_frames(old[0], f, 2, 1), 1);
	assert_int_equal(wait_event().status, 0);
	/* The crash: the CONTROL connection answers with a reset. */
	assert_int_equal(setsockopt(old[0], SOL_SOCKET, SO_LINGER, &rst, sizeof(rst)), 0);
	close(old[0]);
	wait_closed_by_node(old[1]); /* the siblings went with it */
	wait_closed_by_node(old[2]);
	assert_int_equal(sock_stats().sibling_closes, 1);
	assert_int_equal(LNetPut(NULL, ut_bind("after", 6, 1), LNET_NOACK_REQ, &peer, 3, 7, 0, 0),
			 0);
	for (i = 0; i < 3; i++) {
		fds[i] = kernel_accept_pending(lfd, &types[i]);
		control = types[i] == SOCKLND_CONN_CONTROL ? (int)i : control;
		kernel_reply_captured(fds[i], types[i]);
	}
	assert_true(control >= 0);
	assert_int_equal(kernel_read_frames(fds[control], f, 2, 1), 1);
	assert_memory_equal(f[0].payload, "after", 6);
	assert_int_equal(wait_event().status, 0);
	for (i = 0; i < 3; i++) {
		close(fds[i]);
		close(old[i == 0 ? 1 : i]);
	}
	close(lfd);
}

/* Read one LNET frame of @p len payload bytes from @p fd into @p payload, pumping LNet. */
static void
kernel_read_big(int fd, uint8_t *payload, size_t len)
{
	static uint8_t buf[24 + 72 + (256 << 10)];
	size_t want = 24 + 72 + len;

	assert_true(want <= sizeof(buf));
	read_all(fd, buf, want, "the large PUT, whole");
	memcpy(payload, buf + 24 + 72, len);
}

static int
setup_small_sndbuf(void **state)
{
	setup(state);
	ut_teardown(state);
	g_tx_buffer = 4096;
	ut_up(1);
	ut_discovery(0); /* the LND alone: no discovery ping before the first PUT */
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_sock_ni, NULL), 0);
	settle(); /* no socket yet: nothing to wait for */
	return 0;
}

/*
 * The peer crashes while a large PUT is half written and a second one
 * waits behind it, not a byte of it sent. The reset closes the peer's
 * connections; the first PUT fails, the second goes on the connection the
 * next incarnation accepts (LNet would resend it, the kernel's
 * REMOTE_DROPPED; ours does not, so the LND moves it, once).
 */
static void
test_unsent_message_moves_to_new_connection(void **state)
{
	static uint8_t big1[128 << 10];
	static uint8_t big2[128 << 10];
	static uint8_t got[128 << 10];
	struct lnet_processid peer = { LNET_PID_LUSTRE, lnp_tcp_nid(PEER_ADDR) };
	static struct frame f[2];
	struct linger rst = { 1, 0 };
	int small = 2048;
	int lfd = kernel_listen(PEER_ADDR);
	struct lnet_event ev;
	uint64_t writes;
	int old[3];
	int fds[3];
	int types[3];
	struct pollfd pf[3];
	int carrier = -1;
	unsigned int i;

	(void)state;
	memset(big1, 'a', sizeof(big1));
	memset(big2, 'b', sizeof(big2));
	assert_int_equal(setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
	assert_int_equal(LNetPut(NULL, ut_bind("before", 7, 1), LNET_NOACK_REQ, &peer, 3, 7, 0, 0),
			 0);
	kernel_accept_three(lfd, old);
	assert_int_equal(kernel_read_frames(old[0], f, 2, 1), 1);
	assert_int_equal(wait_event().status, 0);
	writes = sock_stats().tx_writes;
	assert_int_equal(LNetPut(NULL, ut_bind(big1, sizeof(big1), 1), LNET_NOACK_REQ, &peer, 3, 7,
				 0, 0),
			 0);
	assert_int_equal(LNetPut(NULL, ut_bind(big2, sizeof(big2), 1), LNET_NOACK_REQ, &peer, 3, 7,
				 0, 0),
			 0);
	PUMP_UNTIL("the node writing the first", sock_stats().tx_writes > writes);
	ut_no_event(); /* the socket is full: neither is out */
	for (i = 0; i < 3; i++) {
		assert_int_equal(setsockopt(old[i], SOL_SOCKET, SO_LINGER, &rst, sizeof(rst)), 0);
		close(old[i]); /* the crash */
	}
	ev = wait_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_true(ev.status == -ECONNRESET || ev.status == -EPIPE); /* half sent: lost */
	assert_int_equal(sock_stats().tx_requeued, 1);
	for (i = 0; i < 3; i++) {
		fds[i] = kernel_accept_pending(lfd, &types[i]);
		kernel_reply_captured(fds[i], types[i]);
		pf[i] = (struct pollfd){ fds[i], POLLIN, 0 };
	}
	PUMP_UNTIL("the second PUT on a new connection", poll(pf, 3, 0) > 0);
	assert_int_equal(poll(pf, 3, 0), 1); /* on whichever new connection came up first */
	for (i = 0; i < 3; i++) {
		carrier = pf[i].revents != 0 ? (int)i : carrier;
	}
	kernel_read_big(fds[carrier], got, sizeof(got));
	assert_memory_equal(got, big2, sizeof(big2));
	ev = wait_event(); /* it completes once the peer's TCP acknowledged it (delayed ACK) */
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
	for (i = 0; i < 3; i++) {
		close(fds[i]);
	}
	close(lfd);
}

struct registry_here_args {
	struct lnet_nid nid;
	struct socklnd_ni *s;
};

static int
registry_here_on_lcore(void *arg)
{
	struct registry_here_args *a = arg;

	a->s = socklnd_registry_here(&a->nid);
	return 0;
}

/*
 * The NID -> lcore table (RCU, no lock): published on net add, gone on net
 * del, published again when the NID comes back; only the owner lcore gets
 * its socklnd_ni from it. Tables and gone entries are freed after a grace
 * period (LeakSanitizer sees the rest).
 */
static void
test_registry_published_and_gone(void **state)
{
	struct lnet *ln = lnet_instance();
	struct registry_here_args a = { .nid = lnp_tcp_nid(g_our) };
	struct lnet_nid other = lnp_tcp_nid(g_our + 1);
	unsigned int i;

	(void)state;
	assert_ptr_equal(socklnd_registry_lcore(&a.nid), rt_data_lcore(ln->rt, 0));
	assert_null(socklnd_registry_lcore(&other));
	assert_null(socklnd_registry_here(&a.nid)); /* not on its lcore */
	assert_int_equal(rt_lcore_call(rt_data_lcore(ln->rt, 0), registry_here_on_lcore, &a), 0);
	assert_ptr_equal(a.s, lnet_ni_lnd_data(g_sni));
	for (i = 0; i < 3; i++) {
		assert_int_equal(lnet_ni_del(ln, &a.nid), 0);
		PUMP_UNTIL("the NID gone from the registry",
			   socklnd_registry_lcore(&a.nid) == NULL);
		assert_int_equal(rt_lcore_call(rt_data_lcore(ln->rt, 0), registry_here_on_lcore,
					       &a),
				 0);
		assert_null(a.s);
		assert_int_equal(rt_lcore_call(rt_mgmt_lcore(ln->rt), add_sock_ni, NULL), 0);
		PUMP_UNTIL("the NID in the registry again",
			   socklnd_registry_lcore(&a.nid) == rt_data_lcore(ln->rt, 0));
		assert_int_equal(rt_lcore_call(rt_data_lcore(ln->rt, 0), registry_here_on_lcore,
					       &a),
				 0);
		assert_ptr_equal(a.s, lnet_ni_lnd_data(g_sni));
	}
}

/*
 * Every (state, event) pair of the connection FSM, against the
 * transitions written out here: moved and counted in the NI's
 * conn_entered[], or refused with the state and counts untouched.
 */
static int
conn_apply(unsigned int st, unsigned int ev, uint64_t *counts, unsigned int *after)
{
	static struct socklnd_ni s;
	static struct socklnd_conn c;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(&c, 0, sizeof(c));
	c.sni = &s;
	c.st.fd = -1;
	c.state = (enum socklnd_conn_state)st;
	rc = socklnd_conn_set_state(&c, (enum socklnd_conn_event)ev);
	memcpy(counts, s.stats.conn_entered, sizeof(s.stats.conn_entered));
	*after = c.state;
	return rc;
}

/*
 * The peer lookup remembers the last peer found: asked for another one it
 * still finds it (or makes it, once), the list keeps one peer per NID in
 * the order they came, and shutdown forgets them all.
 */
static void
test_peer_get_remembers_last(void **state)
{
	static struct socklnd_ni s;
	struct lnet_nid a, b, c;
	struct socklnd_peer *pa, *pb, *pc, *p;
	unsigned int n = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	TAILQ_INIT(&s.peers);
	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(2, 0), 0x0a000001), &a);
	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(2, 0), 0x0a000002), &b);
	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(2, 1), 0x0a000001),
			 &c); /* a's address, another net */
	pa = socklnd_peer_get(&s, &a);
	assert_non_null(pa);
	assert_ptr_equal(socklnd_peer_get(&s, &a), pa);
	pb = socklnd_peer_get(&s, &b);
	assert_non_null(pb);
	assert_ptr_not_equal(pb, pa);
	assert_ptr_equal(socklnd_peer_get(&s, &a), pa);
	assert_ptr_equal(socklnd_peer_get(&s, &b), pb);
	assert_ptr_equal(socklnd_peer_get(&s, &b), pb);
	pc = socklnd_peer_get(&s, &c);
	assert_non_null(pc);
	assert_ptr_not_equal(pc, pa);
	assert_ptr_equal(socklnd_peer_get(&s, &a), pa);
	assert_ptr_equal(socklnd_peer_get(&s, &c), pc);
	TAILQ_FOREACH(p, &s.peers, link) {
		assert_ptr_equal(p, n == 0 ? pa : n == 1 ? pb : pc);
		n++;
	}
	assert_int_equal(n, 3);
	socklnd_peers_destroy(&s, -ESHUTDOWN);
	assert_true(TAILQ_EMPTY(&s.peers));
	assert_null(s.last_peer);
	pa = socklnd_peer_get(&s, &a); /* a new one after shutdown's, not the freed one */
	assert_non_null(pa);
	assert_ptr_equal(TAILQ_FIRST(&s.peers), pa);
	socklnd_peers_destroy(&s, -ESHUTDOWN);
}

/* A connection of @p type on @p p, brought UP through the state table (each step a state change). */
static void
pick_conn(struct socklnd_ni *s, struct socklnd_peer *p, struct socklnd_conn *c, int type,
	  struct sock_tx *busy)
{
	memset(c, 0, sizeof(*c));
	c->sni = s;
	c->peer = p;
	c->st.fd = -1;
	c->type = type;
	TAILQ_INIT(&c->txq);
	TAILQ_INIT(&c->ackq);
	TAILQ_INSERT_TAIL(&c->txq, busy, link); /* never empty: no clock read for the send clock */
	TAILQ_INSERT_TAIL(&p->conns, c, plink);
	assert_int_equal(socklnd_conn_set_state(c, SOCKLND_CONN_EV_CONNECT), 0);
	assert_int_equal(socklnd_conn_set_state(c, SOCKLND_CONN_EV_TCP_UP), 0);
	assert_int_equal(socklnd_conn_set_state(c, SOCKLND_CONN_EV_HS_DONE), 0);
}

/* Send @p len payload bytes to @p p (NULL: by NID): the connection the message was queued on. */
static struct socklnd_conn *
pick_send(struct socklnd_ni *s, struct socklnd_peer *p, const struct lnet_nid *nid,
	  struct sock_tx *tx, unsigned int len)
{
	struct socklnd_peer *q;
	struct socklnd_conn *c;

	memset(tx, 0, sizeof(*tx));
	tx->hdr_len = 96;
	tx->len = len;
	assert_int_equal(socklnd_peer_send(s, p, nid, tx), 0);
	TAILQ_FOREACH(q, &s->peers, link) {
		TAILQ_FOREACH(c, &q->conns, plink) {
			if (TAILQ_LAST(&c->txq, sock_tx_list) == tx) {
				return c;
			}
		}
	}
	fail_msg("the message was queued nowhere");
	return NULL;
}

/*
 * The send path keeps a peer's only carrying connection of a type: while
 * no connection changes state it is the pick; a second one of the type
 * (conns_per_peer 2) brings back the choice by queue length, taking turns;
 * one closing leaves the other; none of the type falls back to any that
 * carries; a peer found by NID is marked as one this NI sends to.
 */
static void
test_send_pick_kept(void **state)
{
	static struct socklnd_ni s;
	static struct socklnd_conn ctl, out1, out2, in;
	static struct sock_tx busy[4];
	static struct sock_tx tx[16];
	struct lnet_nid nid;
	struct socklnd_peer *p;
	unsigned int i;

	(void)state;
	memset(&s, 0, sizeof(s));
	TAILQ_INIT(&s.peers);
	TAILQ_INIT(&s.conns);
	TAILQ_INIT(&s.flushq);
	s.opts.min_bulk = 1024;
	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(2, 0), 0x0a000009), &nid);
	p = socklnd_peer_get(&s, &nid);
	assert_non_null(p);
	assert_false(p->send_ok);
	pick_conn(&s, p, &ctl, SOCKLND_CONN_CONTROL, &busy[0]);
	pick_conn(&s, p, &in, SOCKLND_CONN_BULK_IN, &busy[1]);
	pick_conn(&s, p, &out1, SOCKLND_CONN_BULK_OUT, &busy[2]);
	/* By NID: the peer is found and marked. */
	assert_ptr_equal(pick_send(&s, NULL, &nid, &tx[0], 4096), &out1);
	assert_true(p->send_ok);
	assert_ptr_equal(p->pick[1], &out1);
	assert_ptr_equal(pick_send(&s, p, &nid, &tx[1], 4096), &out1);
	assert_ptr_equal(pick_send(&s, p, &nid, &tx[2], 8), &ctl);
	assert_ptr_equal(p->pick[0], &ctl);
	assert_ptr_equal(pick_send(&s, p, &nid, &tx[3], 4096), &out1);
	assert_ptr_equal(TAILQ_LAST(&p->conns, socklnd_conn_list),
			 &out1); /* to the back, as before */
	/* A second BULK_OUT: the one with fewer queued, then turns. */
	pick_conn(&s, p, &out2, SOCKLND_CONN_BULK_OUT, &busy[3]);
	assert_ptr_equal(pick_send(&s, p, &nid, &tx[4], 4096), &out2);
	assert_null(p->pick[1]);
	assert_ptr_equal(pick_send(&s, p, &nid, &tx[5], 4096), &out2);
	assert_ptr_equal(pick_send(&s, p, &nid, &tx[6], 4096), &out2);
	assert_int_equal(out1.nqueued, 3);
	assert_int_equal(out2.nqueued, 3);
	assert_ptr_equal(pick_send(&s, p, &nid, &tx[7], 4096), &out1);
	assert_ptr_equal(pick_send(&s, p, &nid, &tx[8], 4096), &out2);
	/* out2 closes: out1 alone again, and kept. */
	assert_int_equal(socklnd_conn_set_state(&out2, SOCKLND_CONN_EV_CLOSE), 0);
	for (i = 9; i < 12; i++) {
		assert_ptr_equal(pick_send(&s, p, &nid, &tx[i], 4096), &out1);
	}
	assert_ptr_equal(p->pick[1], &out1);
	/* out1 closes too: large messages go on any that carries (CONTROL, not BULK_IN). */
	assert_int_equal(socklnd_conn_set_state(&out1, SOCKLND_CONN_EV_CLOSE), 0);
	assert_ptr_equal(pick_send(&s, p, &nid, &tx[12], 4096), &ctl);
	assert_null(p->pick[1]);
	assert_ptr_equal(pick_send(&s, p, &nid, &tx[13], 8), &ctl);
	/* The kept CONTROL goes with its state too. */
	assert_int_equal(socklnd_conn_set_state(&ctl, SOCKLND_CONN_EV_CLOSE), 0);
	assert_true(p->pick_gen[0] != s.conn_gen);
	TAILQ_REMOVE(&s.peers, p,
		     link); /* its connections are not real enough for socklnd_peers_destroy */
	s.last_peer = NULL;
	free(p);
}

static void
test_conn_fsm_every_pair(void **state)
{
	static const struct lnp_fsm_edge allowed[] = {
		{ SOCKLND_CONN_NEW, SOCKLND_CONN_EV_CONNECT, SOCKLND_CONN_CONNECTING },
		{ SOCKLND_CONN_NEW, SOCKLND_CONN_EV_TCP_UP, SOCKLND_CONN_HANDSHAKE },
		{ SOCKLND_CONN_NEW, SOCKLND_CONN_EV_CLOSE, SOCKLND_CONN_DEAD },
		{ SOCKLND_CONN_CONNECTING, SOCKLND_CONN_EV_TCP_UP, SOCKLND_CONN_HANDSHAKE },
		{ SOCKLND_CONN_CONNECTING, SOCKLND_CONN_EV_CLOSE, SOCKLND_CONN_DEAD },
		{ SOCKLND_CONN_HANDSHAKE, SOCKLND_CONN_EV_HS_DONE, SOCKLND_CONN_UP },
		{ SOCKLND_CONN_HANDSHAKE, SOCKLND_CONN_EV_CLOSE, SOCKLND_CONN_DEAD },
		{ SOCKLND_CONN_UP, SOCKLND_CONN_EV_CLOSE, SOCKLND_CONN_DEAD },
	};

	(void)state;
	lnp_fsm_check(&socklnd_conn_fsm, allowed, sizeof(allowed) / sizeof(allowed[0]), conn_apply);
	assert_string_equal(rt_fsm_event_str(&socklnd_conn_fsm, SOCKLND_CONN_EV_HS_DONE),
			    "hs_done");
}

static int
peer_apply(unsigned int st, unsigned int ev, uint64_t *counts, unsigned int *after)
{
	static struct socklnd_ni s;
	static struct socklnd_peer p;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(&p, 0, sizeof(p));
	p.state = (enum socklnd_peer_state)st;
	rc = socklnd_peer_set_state(&s, &p, (enum socklnd_peer_event)ev);
	memcpy(counts, s.stats.peer_entered, sizeof(s.stats.peer_entered));
	*after = p.state;
	return rc;
}

/* The peer FSM; a stay (UP -launch-> UP: a missing type retried) is not counted. */
static void
test_peer_fsm_every_pair(void **state)
{
	static const struct lnp_fsm_edge allowed[] = {
		{ SOCKLND_PEER_IDLE, SOCKLND_PEER_EV_LAUNCH, SOCKLND_PEER_CONNECTING },
		{ SOCKLND_PEER_IDLE, SOCKLND_PEER_EV_CARRIER_UP, SOCKLND_PEER_UP },
		{ SOCKLND_PEER_CONNECTING, SOCKLND_PEER_EV_LAUNCH, SOCKLND_PEER_CONNECTING },
		{ SOCKLND_PEER_CONNECTING, SOCKLND_PEER_EV_CARRIER_UP, SOCKLND_PEER_UP },
		{ SOCKLND_PEER_CONNECTING, SOCKLND_PEER_EV_GIVE_UP, SOCKLND_PEER_BACKOFF },
		{ SOCKLND_PEER_UP, SOCKLND_PEER_EV_LAUNCH, SOCKLND_PEER_UP },
		{ SOCKLND_PEER_UP, SOCKLND_PEER_EV_CARRIER_UP, SOCKLND_PEER_UP },
		{ SOCKLND_PEER_UP, SOCKLND_PEER_EV_CARRIERS_GONE, SOCKLND_PEER_IDLE },
		{ SOCKLND_PEER_BACKOFF, SOCKLND_PEER_EV_LAUNCH, SOCKLND_PEER_CONNECTING },
		{ SOCKLND_PEER_BACKOFF, SOCKLND_PEER_EV_CARRIER_UP, SOCKLND_PEER_UP },
	};

	(void)state;
	lnp_fsm_check(&socklnd_peer_fsm, allowed, sizeof(allowed) / sizeof(allowed[0]), peer_apply);
	assert_string_equal(rt_fsm_event_str(&socklnd_peer_fsm, SOCKLND_PEER_EV_CARRIERS_GONE),
			    "carriers_gone");
}

/* A connection's life in the counters: an accepted one, up and closed. */
static void
test_conn_states_counted(void **state)
{
	struct ksock_hello answer;
	int fd;

	(void)state;
	fd = kernel_connect(&answer);
	close(fd);
	PUMP_UNTIL("the node closing its side", sock_stats().conn_entered[SOCKLND_CONN_DEAD] == 1);
	assert_int_equal(sock_stats().conn_entered[SOCKLND_CONN_HANDSHAKE], 1);
	assert_int_equal(sock_stats().conn_entered[SOCKLND_CONN_UP], 1);
	assert_int_equal(sock_stats().conn_entered[SOCKLND_CONN_CONNECTING], 0);
	assert_int_equal(sock_stats().hs_entered[SOCK_CONN_RECV_CONNREQ], 1);
	assert_int_equal(sock_stats().hs_entered[SOCK_CONN_SEND_HELLO], 1);
	assert_int_equal(sock_stats().hs_entered[SOCK_CONN_ESTABLISHED], 1);
}

/* Our side of the only connection: is it read directly (hot), is its fd in the epoll set. */
struct conn_look {
	bool hot;
	bool in_epoll;
};

static int
conn_look_on_lcore(void *arg)
{
	struct socklnd_ni *s = lnet_ni_lnd_data(g_sni);
	struct socklnd_conn *c = TAILQ_FIRST(&s->conns);
	struct conn_look *l = arg;

	assert_non_null(c);
	assert_int_equal(c->state, SOCKLND_CONN_UP);
	l->hot = c->hot_until > s->polls;
	l->in_epoll = c->in_epoll;
	return 0;
}

static struct conn_look
conn_look(void)
{
	struct conn_look l;

	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, conn_look_on_lcore, &l), 0);
	return l;
}

/*
 * A connection read directly leaves the epoll set (SIM: the caller polls,
 * nothing sleeps on it); after SOCKLND_HOT_POLLS polls without a byte it
 * goes back in and waits for epoll_wait, and a message then still arrives
 * and makes it hot again.
 */
static void
test_cold_connection_still_receives(void **state)
{
	char dst[64];
	struct lnet_md md = ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF, LNET_MD_OP_PUT);
	struct ksock_hello answer;
	struct lnet_hdr put = kernel_put_hdr(5, 0x99);
	struct conn_look l;
	struct lnet_event ev;
	unsigned int i;
	int fd;

	(void)state;
	ut_attach(&md, 0x99, 0, LNET_INS_AFTER, LNET_RETAIN);
	fd = kernel_connect(&answer);
	kernel_send(fd, NULL, &put, "first", 5);
	ev = wait_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_memory_equal(dst, "first", 5);
	for (i = 0; i < 2 * SOCKLND_EPOLL_EVERY; i++) { /* out after a streak of direct polls */
		rt_runtime_poll_until_idle(lnet_instance()->rt, 1);
	}
	l = conn_look();
	assert_true(l.hot);
	assert_false(l.in_epoll);
	for (i = 0; i < SOCKLND_HOT_POLLS + 2 * SOCKLND_EPOLL_EVERY_COLD; i++) {
		rt_runtime_poll_until_idle(lnet_instance()->rt, 1);
	}
	l = conn_look();
	assert_false(l.hot);
	assert_true(l.in_epoll);
	kernel_send(fd, NULL, &put, "again", 5);
	ev = wait_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_memory_equal(dst + 5, "again", 5); /* the MD's offset moved on */
	for (i = 0; i < 2 * SOCKLND_EPOLL_EVERY; i++) {
		rt_runtime_poll_until_idle(lnet_instance()->rt, 1);
	}
	l = conn_look();
	assert_true(l.hot);
	assert_false(l.in_epoll);
	close(fd);
	PUMP_UNTIL("the node closing its side", sock_stats().conn_entered[SOCKLND_CONN_DEAD] == 1);
}

/*
 * A message written whole but not acknowledged (the peer's window is shut)
 * waits in the LND; the NI is deleted under it. net del drains the NI
 * first, and the connection's sock_timeout ends the message on the way
 * (-ETIMEDOUT, a network timeout: the peer may have part of it); the
 * acknowledgement tick armed for it never fires on the freed NI.
 */
static void
test_unacked_message_fails_when_ni_deleted(void **state)
{
	static uint8_t msg8k[8 << 10];
	struct lnet_processid peer = { LNET_PID_LUSTRE, lnp_tcp_nid(PEER_ADDR) };
	struct lnet_nid our = lnp_tcp_nid(OUR_ADDR);
	int small = 2048;
	int lfd = kernel_listen(PEER_ADDR);
	struct lnet_event ev;
	int fds[3];

	(void)state;
	assert_int_equal(setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
	assert_int_equal(LNetPut(NULL, ut_bind(msg8k, sizeof(msg8k), 1), LNET_NOACK_REQ, &peer, 3,
				 7, 0, 0),
			 0);
	kernel_accept_three(lfd, fds);
	/* written whole, waiting for the peer's ACK */
	PUMP_UNTIL("the node waiting for the peer's ACK", sock_stats().ack_checks > 0);
	ut_no_event();
	assert_int_equal(lnet_ni_del(lnet_instance(), &our), 0);
	ev = wait_event();
	for (unsigned int i = 0; i < 3; i++) {
		close(fds[i]);
	}
	close(lfd);
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -ETIMEDOUT);
	assert_int_equal(ev.mhealth, LNET_MSG_STATUS_NETWORK_TIMEOUT);
	rt_sim_advance_us(lnet_instance()->rt, 1000000);
	settle(); /* the tick's time has come (virtual clock): nothing runs on the freed NI */
	ut_no_event();
}

/* Connections whose socket is full with messages still queued (socklnd waits for EPOLLOUT). */
static int
conns_full_on_lcore(void *arg)
{
	struct socklnd_ni *s = lnet_ni_lnd_data(g_sni);
	struct socklnd_conn *c;
	unsigned int *n = arg;

	*n = 0;
	TAILQ_FOREACH(c, &s->conns, link) {
		*n += c->state == SOCKLND_CONN_UP && c->want_out && !TAILQ_EMPTY(&c->txq);
	}
	return 0;
}

static unsigned int
conns_full(void)
{
	unsigned int n;

	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, conns_full_on_lcore, &n),
			 0);
	return n;
}

/* The virtual clock @p us on, and what came due has run. */
static void
advance_us(uint64_t us)
{
	rt_sim_advance_us(lnet_instance()->rt, us);
	settle();
}

/*
 * Waits of SOCKLND_SLOW_US inside the LND are found by the sweep and
 * counted once each (virtual clock): messages waiting for a connection
 * whose peer never answers the hello, then, connected, a peer that reads
 * nothing: its window shuts, so bytes written stay unacknowledged and the
 * rest stay queued on a full socket. Not one earlier than 1 s.
 */
static void
test_slow_waits_counted_once(void **state)
{
	static uint8_t big[1 << 20];
	struct lnet_processid peer = { LNET_PID_LUSTRE, lnp_tcp_nid(PEER_ADDR) };
	int small = 4096;
	int lfd = kernel_listen(PEER_ADDR);
	struct socklnd_stats st;
	int fds[3];

	(void)state;
	assert_int_equal(setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
	for (unsigned int i = 0; i < 8; i++) {
		assert_int_equal(LNetPut(NULL, ut_bind(big, sizeof(big), 1), LNET_NOACK_REQ, &peer,
					 3, 7, 0, 0),
				 0);
	}
	PUMP_UNTIL("our three connects in flight", sock_stats().connects == 3);
	advance_us(SOCKLND_SLOW_US - 100000);
	assert_int_equal(sock_stats().slow_conn_waits, 0);
	advance_us(200000);
	assert_int_equal(sock_stats().slow_conn_waits, 1);
	advance_us(SOCKLND_SLOW_US);
	assert_int_equal(sock_stats().slow_conn_waits, 1); /* the same wait, once */

	kernel_accept_three(lfd, fds); /* hellos answered; nothing read after them */
	PUMP_UNTIL("a socket full, messages queued behind it", conns_full() > 0);
	PUMP_UNTIL("messages written and waiting for the peer's ACK", sock_stats().ack_checks > 0);
	st = sock_stats();
	assert_int_equal(st.slow_writes, 0);
	assert_int_equal(st.slow_acks, 0);
	advance_us(SOCKLND_SLOW_US + 100000);
	st = sock_stats();
	assert_int_equal(st.slow_writes, 1);
	assert_int_equal(st.slow_acks, 1);
	advance_us(SOCKLND_SLOW_US);
	st = sock_stats();
	assert_int_equal(st.slow_writes, 1);
	assert_int_equal(st.slow_acks, 1);
	assert_int_equal(st.slow_conn_waits, 1);
	ut_no_event(); /* slow, not failed: sock_timeout is 50 s */
	for (unsigned int i = 0; i < 3; i++) {
		close(fds[i]);
	}
	close(lfd);
}

/* ---- payloads lent to LNet (socklnd_lend.c) ---------------------------- */

#define LEND_PORTAL 11 /* a wildcard portal matched on CPT 1 (11 % 2): the NI is on CPT 0 */

static int
setup_two_cpts(void **state)
{
	(void)state;
	setup_cpts(2);
	return 0;
}

/* An MD on LEND_PORTAL, on CPT 1: its handle. */
static struct lnet_handle_md
lend_md(void *buf, unsigned int len)
{
	struct lnet_md md = ut_md(buf, len, LNET_MD_THRESH_INF, LNET_MD_OP_PUT);
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_handle_md h;
	struct lnet_me *me = LNetMEAttach(LEND_PORTAL, &any, 0, ~0ULL, LNET_RETAIN, LNET_INS_AFTER);

	assert_non_null(me);
	assert_int_equal(LNetMDAttach(me, &md, LNET_RETAIN, &h), 0);
	assert_int_equal(lnet_cookie_cpt(h.cookie), 1);
	return h;
}

/* The kernel peer PUTs @p len bytes of @p data to LEND_PORTAL, no ACK: its PUT event. */
static struct lnet_event
lend_put(int fd, const uint8_t *data, unsigned int len)
{
	struct lnet_hdr put = kernel_put_hdr(len, 0);

	put.msg.put.ptl_index = LEND_PORTAL;
	kernel_send(fd, NULL, &put, data, len);
	return wait_event();
}

/*
 * With the NI on CPT 0 and the MD on CPT 1: a PUT whose payload came
 * staged with its header is lent (copied out of the connection into a
 * buffer of the lend pool) and goes to CPT 1 once; one larger than a lent
 * buffer takes the way back to the NI's lcore for the LND's recv. Both
 * land whole in the MD, and the stream goes on in order behind them.
 */
static void
test_lend_to_other_lcore(void **state)
{
	static uint8_t dst[8192];
	static uint8_t small[1000];
	static uint8_t big[6000];
	struct ksock_hello answer;
	struct socklnd_stats st;
	struct lnet_ctl_hops h;
	struct lnet_event ev;
	int fd;

	(void)state;
	for (unsigned int i = 0; i < sizeof(big); i++) {
		big[i] = (uint8_t)(i * 7 + 1);
		if (i < sizeof(small)) {
			small[i] = (uint8_t)(i * 13 + 5);
		}
	}
	lend_md(dst, sizeof(dst));
	fd = kernel_connect(&answer);
	(void)ut_hops_since();

	ev = lend_put(fd, small, sizeof(small));
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.mlength, sizeof(small));
	assert_memory_equal(dst, small, sizeof(small));
	h = ut_hops_since();
	assert_int_equal(h.put, 1);
	assert_int_equal(h.rx_unlent, 0);
	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, stats_on_lcore, &st), 0);
	assert_int_equal(st.lent, 1);

	ev = lend_put(fd, big, sizeof(big)); /* over SOCKLND_LEND_MAX: not lent */
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.mlength, sizeof(big));
	assert_int_equal(ev.offset, sizeof(small)); /* the MD's own offset moves on */
	assert_memory_equal(dst + ev.offset, big, sizeof(big));
	h = ut_hops_since();
	assert_int_equal(h.put, 3);
	assert_int_equal(h.rx_unlent, 1);

	ev = lend_put(fd, small, 100); /* and lent again after it */
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.offset, sizeof(small) + sizeof(big));
	assert_memory_equal(dst + ev.offset, small, 100);
	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, stats_on_lcore, &st), 0);
	assert_int_equal(st.lent, 2);
	assert_int_equal(st.lend_empty, 0);
	close(fd);
}

/*
 * A lent payload is given back when its message is dropped: a PUT waiting
 * on a lazy portal holds a lent buffer when LNet goes down; the portal's
 * waiting messages are dropped, the buffer goes back, and the pool goes
 * with the NI (LeakSanitizer reports the pool otherwise).
 */
static void
test_lent_given_back_at_shutdown(void **state)
{
	static uint8_t payload[512];
	struct lnet_hdr put = kernel_put_hdr(sizeof(payload), 0);
	struct ksock_hello answer;
	struct socklnd_stats st;
	int fd;

	assert_int_equal(LNetSetLazyPortal(LEND_PORTAL), 0);
	fd = kernel_connect(&answer);
	put.msg.put.ptl_index = LEND_PORTAL;
	kernel_send(fd, NULL, &put, payload, sizeof(payload));
	PUMP_UNTIL("the PUT lent and waiting",
		   rt_lcore_call(lnet_instance()->cpts[0]->lcore, stats_on_lcore, &st) == 0 &&
			   st.lent == 1);
	settle();
	ut_no_event();
	ut_teardown(state); /* LNetNIFini */
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_module_params),
		cmocka_unit_test(test_lnd_params),
		cmocka_unit_test(test_conn_fsm_every_pair),
		cmocka_unit_test(test_peer_get_remembers_last),
		cmocka_unit_test(test_send_pick_kept),
		cmocka_unit_test(test_peer_fsm_every_pair),
		cmocka_unit_test_setup_teardown(test_conn_states_counted, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_lend_to_other_lcore, setup_two_cpts,
						ut_teardown),
		cmocka_unit_test_setup(test_lent_given_back_at_shutdown, setup_two_cpts),
		cmocka_unit_test_setup_teardown(test_kernel_peer_puts_and_pings, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_stats_and_no_conn, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_tx_pool_made_at_startup, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_unacked_message_fails_when_ni_deleted, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_slow_waits_counted_once, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_cold_connection_still_receives, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_active_connects, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_stalled_peer_times_out, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_refused, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_new_incarnation_closes_old, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_race_higher_peer_wins, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_race_lower_peer_refused, setup_high,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_reconnect_backoff, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_two_conns_per_peer, setup_two_per_peer,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_lazy_put_staged_payload, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_lazy_put_held_times_out, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_stalled_handshake_accept_timeout, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_new_incarnation_spares_pending_connects, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_reset_closes_siblings_after_crash, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_registry_published_and_gone, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_unsent_message_moves_to_new_connection,
						setup_small_sndbuf, ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
