/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ksocklnd handshake state machine over socketpairs: both sides, the
 * kernel's own bytes as the active side, refusals, version probes, wrong
 * targets, garbage, a peer that closes, and byte-at-a-time delivery.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "sock_conn.h"
#include "lnp_test_fsm.h"
#include "lnp_test_nid.h"

struct policy_state {
	struct lnet_nid local;
	int answer; /* 0: invert the peer's type; else this */
	struct ksock_hello seen;
};

static bool
nid_is_local(void *ctx, const struct lnet_nid *nid)
{
	struct policy_state *p = ctx;

	return lnet_nid_same(nid, &p->local);
}

static int
accept_hello(void *ctx, const struct ksock_hello *peer)
{
	struct policy_state *p = ctx;

	p->seen = *peer;
	return p->answer != 0 ? p->answer : ksock_conn_type_invert(peer->ctype);
}

static void
pair(int fds[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
}

static struct ksock_hello
hello_of(uint32_t addr, uint64_t inc, int ctype)
{
	struct ksock_hello h;

	memset(&h, 0, sizeof(h));
	h.src_nid = lnp_tcp_nid(addr);
	h.src_pid = LNET_PID_LUSTRE;
	h.src_incarnation = inc;
	h.ctype = ctype;
	return h;
}

/* Drive both sides until neither moves; returns the last results. */
static void
run(struct sock_conn *a, struct sock_conn *p, int *ra, int *rp)
{
	unsigned int i;

	for (i = 0; i < 20; i++) {
		*ra = sock_conn_progress(a);
		*rp = sock_conn_progress(p);
	}
}

static void
test_active_passive_establish(void **state)
{
	struct policy_state ps = { .local = lnp_tcp_nid(0xc000020c) };
	struct sock_conn_policy pol = { nid_is_local, accept_hello, NULL, &ps };
	struct ksock_hello me = hello_of(0xc000020b, 0x1111, SOCKLND_CONN_BULK_IN);
	struct ksock_hello them = hello_of(0, 0x2222, 0);
	struct sock_conn a;
	struct sock_conn p;
	int fds[2];
	int ra;
	int rp;

	(void)state;
	pair(fds);
	assert_int_equal(sock_conn_init_active(&a, fds[0], &ksock_proto_v3, &ps.local, &me, NULL),
			 0);
	assert_true(sock_conn_wants_write(&a));
	assert_int_equal(sock_conn_init_passive(&p, fds[1], &them, &pol, NULL), 0);
	run(&a, &p, &ra, &rp);
	assert_int_equal(ra, 1);
	assert_int_equal(rp, 1);
	assert_int_equal(a.state, SOCK_CONN_ESTABLISHED);
	/* the passive side learned who called, and answered as the called NID */
	assert_true(lnet_nid_same(&p.peer.src_nid, &me.src_nid));
	assert_int_equal(p.peer.src_incarnation, 0x1111);
	assert_int_equal(p.peer.ctype, SOCKLND_CONN_BULK_IN);
	assert_int_equal(p.local.ctype, SOCKLND_CONN_BULK_OUT);
	assert_true(lnet_nid_same(&a.peer.src_nid, &ps.local));
	assert_int_equal(a.peer.src_incarnation, 0x2222);
	/* the passive reply's dst slots are the ones the active side sent, as the kernel's */
	assert_int_equal(a.peer.dst_incarnation, a.local.dst_incarnation);
	assert_int_equal(a.peer.dst_pid, a.local.dst_pid);
	assert_int_equal(a.proto->version, KSOCK_PROTO_V3);
	assert_int_equal(p.proto->version, KSOCK_PROTO_V3);
	close(fds[0]);
	close(fds[1]);
}

/* The kernel's connreq + V3 hello (captures/kernel/s2_01 frames 6 and 8). */
static const uint8_t kernel_open[72] = {
	0x00, 0x71, 0xce, 0xac, 0x01, 0x00, 0x00, 0x00, 0x0c, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02,
	0x00, 0x63, 0x69, 0x72, 0x45, 0x03, 0x00, 0x00, 0x00, 0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00,
	0x02, 0x00, 0x0c, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x39, 0x30, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0xc2, 0x20, 0x1b, 0x9c, 0x14, 0x5a, 0xea, 0x18, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void
test_passive_answers_kernel_byte_at_a_time(void **state)
{
	struct policy_state ps = { .local = lnp_tcp_nid(0xc000020c) };
	struct sock_conn_policy pol = { nid_is_local, accept_hello, NULL, &ps };
	struct ksock_hello me = hello_of(0, 0x18ea5a1528c952f5ULL, 0);
	struct ksock_hello reply;
	struct sock_conn p;
	uint8_t buf[128];
	size_t used;
	ssize_t n;
	int fds[2];
	unsigned int i;

	(void)state;
	pair(fds);
	assert_int_equal(sock_conn_init_passive(&p, fds[1], &me, &pol, NULL), 0);
	for (i = 0; i < sizeof(kernel_open); i++) {
		assert_int_equal(write(fds[0], &kernel_open[i], 1), 1);
		assert_int_equal(sock_conn_progress(&p), i + 1 < sizeof(kernel_open) ? 0 : 1);
	}
	n = read(fds[0], buf, sizeof(buf));
	assert_int_equal(n, 56);
	assert_int_equal(ksock_proto_v3.hello_decode(buf, (size_t)n, &reply, &used), 0);
	/* what the kernel's passive side answered in frame 10, field by field */
	assert_int_equal(lnet_nid_to_nid4(&reply.src_nid),
			 LNET_MKNID(LNET_MKNET(2, 0), 0xc000020c));
	assert_int_equal(lnet_nid_to_nid4(&reply.dst_nid),
			 LNET_MKNID(LNET_MKNET(2, 0), 0xc000020b));
	assert_int_equal(reply.src_pid, 12345);
	assert_int_equal(reply.src_incarnation, 0x18ea5a1528c952f5ULL);
	assert_int_equal(reply.ctype, SOCKLND_CONN_CONTROL);
	assert_int_equal(reply.nips, 0);
	close(fds[0]);
	close(fds[1]);
}

static void
test_refusal_both_sides(void **state)
{
	struct policy_state ps = { .local = lnp_tcp_nid(0x0a000002), .answer = SOCKLND_CONN_NONE };
	struct sock_conn_policy pol = { nid_is_local, accept_hello, NULL, &ps };
	struct ksock_hello me = hello_of(0x0a000001, 1, SOCKLND_CONN_CONTROL);
	struct ksock_hello them = hello_of(0, 2, 0);
	struct sock_conn a;
	struct sock_conn p;
	int fds[2];
	int ra;
	int rp;

	(void)state;
	pair(fds);
	sock_conn_init_active(&a, fds[0], &ksock_proto_v3, &ps.local, &me, NULL);
	sock_conn_init_passive(&p, fds[1], &them, &pol, NULL);
	run(&a, &p, &ra, &rp);
	assert_int_equal(ra, -EALREADY);
	assert_int_equal(rp, -EALREADY);
	assert_non_null(strstr(a.why, "refused"));
	close(fds[0]);
	close(fds[1]);
}

static void
test_wrong_target_probe_and_garbage(void **state)
{
	struct policy_state ps = { .local = lnp_tcp_nid(0x0a000002) };
	struct sock_conn_policy pol = { nid_is_local, accept_hello, NULL, &ps };
	struct ksock_hello me = hello_of(0x0a000001, 1, SOCKLND_CONN_CONTROL);
	struct ksock_hello them = hello_of(0, 2, 0);
	struct lnet_nid other = lnp_tcp_nid(0x0a000009);
	uint32_t probe = LNET_PROTO_MAGIC;
	struct lnet_acceptor_connreq answer;
	struct sock_conn a;
	struct sock_conn p;
	int fds[2];
	int ra;
	int rp;

	(void)state;
	pair(fds); /* a connreq for a NID that is not ours */
	sock_conn_init_active(&a, fds[0], &ksock_proto_v3, &other, &me, NULL);
	sock_conn_init_passive(&p, fds[1], &them, &pol, NULL);
	run(&a, &p, &ra, &rp);
	assert_int_equal(rp, -EHOSTUNREACH);
	assert_non_null(strstr(p.why, "not a local NI"));
	close(fds[0]);
	close(fds[1]);

	pair(fds); /* a version probe gets our version, then the conn ends */
	assert_int_equal(write(fds[0], &probe, 4), 4);
	sock_conn_init_passive(&p, fds[1], &them, &pol, NULL);
	assert_int_equal(sock_conn_progress(&p), -EPROTO);
	assert_int_equal(read(fds[0], &answer, sizeof(answer)), (ssize_t)sizeof(answer));
	assert_int_equal(answer.acr_magic, LNET_PROTO_ACCEPTOR_MAGIC);
	assert_int_equal(answer.acr_version, LNET_PROTO_ACCEPTOR_VERSION);
	close(fds[0]);
	close(fds[1]);

	pair(fds); /* garbage */
	assert_int_equal(write(fds[0], "GET / HTTP/1.0\r\n", 16), 16);
	sock_conn_init_passive(&p, fds[1], &them, &pol, NULL);
	assert_int_equal(sock_conn_progress(&p), -EPROTO);
	assert_non_null(strstr(p.why, "unknown magic"));
	close(fds[0]);
	close(fds[1]);

	pair(fds); /* the peer goes away mid-hello */
	assert_int_equal(write(fds[0], kernel_open, 30), 30);
	close(fds[0]);
	ps.local = lnp_tcp_nid(0xc000020c);
	sock_conn_init_passive(&p, fds[1], &them, &pol, NULL);
	assert_int_equal(sock_conn_progress(&p), -ECONNRESET);
	close(fds[1]);
}

static void
test_active_rejects_impostor(void **state)
{
	struct policy_state ps = { .local = lnp_tcp_nid(0x0a000002) };
	struct sock_conn_policy pol = { nid_is_local, accept_hello, NULL, &ps };
	struct ksock_hello me = hello_of(0x0a000001, 1, SOCKLND_CONN_CONTROL);
	struct ksock_hello them = hello_of(0, 2, 0);
	struct sock_conn a;
	struct sock_conn p;
	int fds[2];
	int ra;
	int rp;

	(void)state;
	/* The passive side answers with a type that is not the inverse. */
	ps.answer = SOCKLND_CONN_BULK_IN;
	pair(fds);
	sock_conn_init_active(&a, fds[0], &ksock_proto_v3, &ps.local, &me, NULL);
	sock_conn_init_passive(&p, fds[1], &them, &pol, NULL);
	run(&a, &p, &ra, &rp);
	assert_int_equal(rp, 1);
	assert_int_equal(ra, -EPROTO);
	assert_non_null(strstr(a.why, "answered type"));
	close(fds[0]);
	close(fds[1]);
}

/*
 * Every (state, event) pair of the handshake FSM, against the transitions
 * written out here independently of the driver's table: the pair moves to
 * the state listed (counted once, in the owner's array) or is refused
 * (-EINVAL, state and counts untouched).
 */
static int
handshake_apply(unsigned int st, unsigned int ev, uint64_t *counts, unsigned int *after)
{
	struct sock_conn c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.fd = -1;
	c.counts = counts;
	c.state = (enum sock_conn_state)st;
	rc = sock_conn_set_state(&c, (enum sock_conn_event)ev);
	*after = c.state;
	return rc;
}

static void
test_handshake_fsm_every_pair(void **state)
{
	static const struct lnp_fsm_edge allowed[] = {
		{ SOCK_CONN_IDLE, SOCK_CONN_EV_START_ACTIVE, SOCK_CONN_SEND_CONNREQ_HELLO },
		{ SOCK_CONN_IDLE, SOCK_CONN_EV_START_PASSIVE, SOCK_CONN_RECV_CONNREQ },
		{ SOCK_CONN_IDLE, SOCK_CONN_EV_FAIL, SOCK_CONN_FAILED },
		{ SOCK_CONN_SEND_CONNREQ_HELLO, SOCK_CONN_EV_SENT, SOCK_CONN_RECV_HELLO },
		{ SOCK_CONN_SEND_CONNREQ_HELLO, SOCK_CONN_EV_FAIL, SOCK_CONN_FAILED },
		{ SOCK_CONN_RECV_CONNREQ, SOCK_CONN_EV_CONNREQ, SOCK_CONN_RECV_HELLO },
		{ SOCK_CONN_RECV_CONNREQ, SOCK_CONN_EV_FAIL, SOCK_CONN_FAILED },
		{ SOCK_CONN_RECV_HELLO, SOCK_CONN_EV_REPLY, SOCK_CONN_ESTABLISHED },
		{ SOCK_CONN_RECV_HELLO, SOCK_CONN_EV_HELLO, SOCK_CONN_SEND_HELLO },
		{ SOCK_CONN_RECV_HELLO, SOCK_CONN_EV_FAIL, SOCK_CONN_FAILED },
		{ SOCK_CONN_SEND_HELLO, SOCK_CONN_EV_SENT, SOCK_CONN_ESTABLISHED },
		{ SOCK_CONN_SEND_HELLO, SOCK_CONN_EV_FAIL, SOCK_CONN_FAILED },
	};

	(void)state;
	lnp_fsm_check(&sock_conn_fsm, allowed, sizeof(allowed) / sizeof(allowed[0]),
		      handshake_apply);
	assert_string_equal(rt_fsm_event_str(&sock_conn_fsm, SOCK_CONN_EV_HELLO), "hello");
}

/* A whole handshake counts each state it enters once, on each side. */
static void
test_handshake_counts_states(void **state)
{
	struct policy_state ps = { .local = lnp_tcp_nid(0xc000020c) };
	struct sock_conn_policy pol = { nid_is_local, accept_hello, NULL, &ps };
	struct ksock_hello me = hello_of(0xc000020b, 1, SOCKLND_CONN_CONTROL);
	struct ksock_hello them = hello_of(0, 2, 0);
	uint64_t ca[SOCK_CONN_NSTATES] = { 0 };
	uint64_t cp[SOCK_CONN_NSTATES] = { 0 };
	struct sock_conn a;
	struct sock_conn p;
	int fds[2];
	int ra;
	int rp;

	(void)state;
	pair(fds);
	sock_conn_init_active(&a, fds[0], &ksock_proto_v3, &ps.local, &me, ca);
	sock_conn_init_passive(&p, fds[1], &them, &pol, cp);
	run(&a, &p, &ra, &rp);
	assert_int_equal(ra, 1);
	assert_int_equal(rp, 1);
	assert_int_equal(ca[SOCK_CONN_SEND_CONNREQ_HELLO], 1);
	assert_int_equal(ca[SOCK_CONN_RECV_HELLO], 1);
	assert_int_equal(ca[SOCK_CONN_ESTABLISHED], 1);
	assert_int_equal(ca[SOCK_CONN_RECV_CONNREQ] + ca[SOCK_CONN_SEND_HELLO] +
				 ca[SOCK_CONN_FAILED],
			 0);
	assert_int_equal(cp[SOCK_CONN_RECV_CONNREQ], 1);
	assert_int_equal(cp[SOCK_CONN_RECV_HELLO], 1);
	assert_int_equal(cp[SOCK_CONN_SEND_HELLO], 1);
	assert_int_equal(cp[SOCK_CONN_ESTABLISHED], 1);
	assert_int_equal(cp[SOCK_CONN_SEND_CONNREQ_HELLO] + cp[SOCK_CONN_FAILED], 0);
	close(fds[0]);
	close(fds[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_active_passive_establish),
		cmocka_unit_test(test_passive_answers_kernel_byte_at_a_time),
		cmocka_unit_test(test_refusal_both_sides),
		cmocka_unit_test(test_wrong_target_probe_and_garbage),
		cmocka_unit_test(test_active_rejects_impostor),
		cmocka_unit_test(test_handshake_fsm_every_pair),
		cmocka_unit_test(test_handshake_counts_states),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
