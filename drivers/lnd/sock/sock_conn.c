/* SPDX-License-Identifier: BSD-3-Clause */
/* The connection handshake state machine (see sock_conn.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_log.h>

#include "cfs.h"
#include "sock_conn.h"
#include "sock_log.h"

#define NONE RT_FSM_NONE

/*
 * The handshake's transitions (see sock_conn.h), NONE: refused. Columns:
 * start_active, start_passive, sent, connreq, reply, hello, fail.
 */
static const int8_t sock_conn_table[SOCK_CONN_NSTATES][SOCK_CONN_NEVENTS] = {
	[SOCK_CONN_IDLE] = { SOCK_CONN_SEND_CONNREQ_HELLO, SOCK_CONN_RECV_CONNREQ, NONE, NONE, NONE,
			     NONE, SOCK_CONN_FAILED },
	[SOCK_CONN_SEND_CONNREQ_HELLO] = { NONE, NONE, SOCK_CONN_RECV_HELLO, NONE, NONE, NONE,
					   SOCK_CONN_FAILED },
	[SOCK_CONN_RECV_CONNREQ] = { NONE, NONE, NONE, SOCK_CONN_RECV_HELLO, NONE, NONE,
				     SOCK_CONN_FAILED },
	[SOCK_CONN_RECV_HELLO] = { NONE, NONE, NONE, NONE, SOCK_CONN_ESTABLISHED,
				   SOCK_CONN_SEND_HELLO, SOCK_CONN_FAILED },
	[SOCK_CONN_SEND_HELLO] = { NONE, NONE, SOCK_CONN_ESTABLISHED, NONE, NONE, NONE,
				   SOCK_CONN_FAILED },
	[SOCK_CONN_ESTABLISHED] = { NONE, NONE, NONE, NONE, NONE, NONE, NONE },
	[SOCK_CONN_FAILED] = { NONE, NONE, NONE, NONE, NONE, NONE, NONE },
};

static const char *const sock_conn_states[SOCK_CONN_NSTATES] = {
	"idle",       "send_connreq_hello", "recv_connreq", "recv_hello",
	"send_hello", "established",        "failed",
};

static const char *const sock_conn_events[SOCK_CONN_NEVENTS] = {
	"start_active", "start_passive", "sent", "connreq", "reply", "hello", "fail",
};

const struct rt_fsm sock_conn_fsm = {
	.name = "socklnd: handshake",
	.nstates = SOCK_CONN_NSTATES,
	.nevents = SOCK_CONN_NEVENTS,
	.table = &sock_conn_table[0][0],
	.states = sock_conn_states,
	.events = sock_conn_events,
};

int
sock_conn_set_state(struct sock_conn *c, enum sock_conn_event ev)
{
	char who[16];
	int next;

	snprintf(who, sizeof(who), "fd %d", c->fd);
	next = rt_fsm_step(&sock_conn_fsm, socklnd_logtype, who, c->state, ev, c->counts);
	if (next == RT_FSM_NONE) {
		return -EINVAL;
	}
	c->state = (enum sock_conn_state)next;
	return 0;
}

static int __attribute__((format(printf, 3, 4)))
sock_conn_fail(struct sock_conn *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	sock_conn_set_state(c, SOCK_CONN_EV_FAIL);
	c->error = err;
	return err;
}

/* Write what is pending; 1 when all is out, 0 when the socket is full. */
static int
sock_conn_flush(struct sock_conn *c)
{
	while (c->txoff < c->txlen) {
		struct iovec v = { c->tx + c->txoff, c->txlen - c->txoff };
		ssize_t n = sock_stream_sendv(c->st, &v, 1);

		sock_tap_io(c->tap, true, c->txoff == 0, &v, 1, n);
		if (n == 0) {
			return 0;
		}
		if (n < 0) {
			return sock_conn_fail(c, (int)n, "send: %s", strerror((int)-n));
		}
		c->txoff += (size_t)n;
	}
	return 1;
}

/* Read until @p need bytes are buffered; 1 when there, 0 to wait. */
static int
sock_conn_fill(struct sock_conn *c, size_t need)
{
	if (need > sizeof(c->rx)) {
		return sock_conn_fail(c, -EPROTO, "handshake message of %zu bytes", need);
	}
	while (c->rxlen < need) {
		struct iovec v = { c->rx + c->rxlen, need - c->rxlen };
		ssize_t n = sock_stream_recv(c->st, v.iov_base, v.iov_len);

		sock_tap_io(c->tap, false, c->rxlen == 0, &v, 1, n);
		if (n == -ENODATA) {
			return sock_conn_fail(c, -ECONNRESET, "peer closed during the handshake");
		}
		if (n == 0) {
			return 0;
		}
		if (n < 0) {
			return sock_conn_fail(c, (int)n, "recv: %s", strerror((int)-n));
		}
		c->rxlen += (size_t)n;
	}
	return 1;
}

static void
sock_conn_consume(struct sock_conn *c, size_t n)
{
	memmove(c->rx, c->rx + n, c->rxlen - n);
	c->rxlen -= n;
}

int
sock_conn_init_active(struct sock_conn *c, int fd, const struct ksock_proto *proto,
		      const struct lnet_nid *target, const struct ksock_hello *local,
		      uint64_t *counts)
{
	size_t n = 0;
	size_t h = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	c->counts = counts;
	c->fd = fd;
	c->own = sock_stream_of_fd(fd);
	c->st = &c->own;
	c->active = true;
	c->proto = proto;
	c->target = *target;
	c->local = *local;
	c->local.version = proto->version;
	c->local.dst_nid = *target;
	c->local.dst_pid = 0; /* never examined by the receiver; the kernel sends 0 */
	c->local.dst_incarnation = 0;
	rc = ksock_connreq_encode(target, c->tx, sizeof(c->tx), &n);
	if (rc == 0) {
		rc = proto->hello_encode(&c->local, c->tx + n, sizeof(c->tx) - n, &h);
	}
	if (rc != 0) {
		return sock_conn_fail(c, -EINVAL, "cannot encode the handshake: %s",
				      ksock_strerror(rc));
	}
	c->txlen = n + h;
	return sock_conn_set_state(c, SOCK_CONN_EV_START_ACTIVE);
}

int
sock_conn_init_passive(struct sock_conn *c, int fd, const struct ksock_hello *local,
		       const struct sock_conn_policy *policy, uint64_t *counts)
{
	memset(c, 0, sizeof(*c));
	c->counts = counts;
	c->fd = fd;
	c->own = sock_stream_of_fd(fd);
	c->st = &c->own;
	c->local = *local;
	c->policy = *policy;
	return sock_conn_set_state(c, SOCK_CONN_EV_START_PASSIVE);
}

void
sock_conn_set_stream(struct sock_conn *c, struct sock_stream *st)
{
	c->st = st;
	c->fd = st->fd;
}

int
sock_conn_prefill(struct sock_conn *c, const uint8_t *bytes, size_t n)
{
	if (c->active || c->state != SOCK_CONN_RECV_CONNREQ || n > sizeof(c->rx)) {
		return -EINVAL;
	}
	memcpy(c->rx, bytes, n);
	c->rxlen = n;
	return 0;
}

bool
sock_conn_wants_write(const struct sock_conn *c)
{
	return c->state == SOCK_CONN_SEND_CONNREQ_HELLO || c->state == SOCK_CONN_SEND_HELLO;
}

/* Passive: the connreq names one of our NIs (or is a version probe). */
static int
sock_conn_recv_connreq(struct sock_conn *c)
{
	struct ksock_connreq cr;
	size_t used = 4;
	int rc;

	for (;;) {
		rc = sock_conn_fill(c, used);
		if (rc <= 0) {
			return rc;
		}
		rc = ksock_connreq_decode(c->rx, c->rxlen, &cr, &used);
		if (rc != -KSOCK_ESHORT) {
			break;
		}
	}
	if (rc != 0) {
		return sock_conn_fail(c, -EPROTO, "connection request: %s", ksock_strerror(rc));
	}
	if (cr.probe) {
		/* Answer the version probe with our request format, then close. */
		struct lnet_acceptor_connreq v = { LNET_PROTO_ACCEPTOR_MAGIC,
						   LNET_PROTO_ACCEPTOR_VERSION, 0 };

		struct iovec iov = { &v, sizeof(v) };

		/* The prober goes away either way: what the send returns does not matter. */
		(void)sock_stream_sendv(c->st, &iov, 1);
		return sock_conn_fail(c, -EPROTO, "version probe answered");
	}
	if (!c->policy.nid_is_local(c->policy.ctx, &cr.nid)) {
		if (c->policy.hand_off != NULL && c->policy.hand_off(c->policy.ctx, &cr.nid)) {
			return sock_conn_fail(c, -EXDEV, "connection request for %s: handed to it",
					      libcfs_nidstr(&cr.nid));
		}
		return sock_conn_fail(c, -EHOSTUNREACH, "connection request for %s: not a local NI",
				      libcfs_nidstr(&cr.nid));
	}
	c->local.src_nid = cr.nid;
	sock_conn_consume(c, used);
	return sock_conn_set_state(c, SOCK_CONN_EV_CONNREQ);
}

static int
sock_conn_read_hello(struct sock_conn *c)
{
	uint32_t version = 0;
	size_t used = 8;
	int rc;

	rc = sock_conn_fill(c, used);
	if (rc <= 0) {
		return rc;
	}
	rc = ksock_hello_version(c->rx, c->rxlen, &version, &used);
	if (rc != 0) {
		return sock_conn_fail(c, -EPROTO, "hello: %s", ksock_strerror(rc));
	}
	if (c->proto != NULL && c->proto->version != version) {
		return sock_conn_fail(c, -EPROTO, "hello version %u, expected %u", version,
				      c->proto->version);
	}
	c->proto = ksock_proto_by_version(version);
	for (;;) {
		rc = c->proto->hello_decode(c->rx, c->rxlen, &c->peer, &used);
		if (rc != -KSOCK_ESHORT) {
			break;
		}
		rc = sock_conn_fill(c, used);
		if (rc <= 0) {
			return rc;
		}
	}
	if (rc != 0) {
		return sock_conn_fail(c, -EPROTO, "hello: %s", ksock_strerror(rc));
	}
	sock_conn_consume(c, used);
	return 1;
}

/* Active: the reply must come from the NID we called, with the inverse type. */
static int
sock_conn_check_reply(struct sock_conn *c)
{
	if (!lnet_nid_same(&c->peer.src_nid, &c->target)) {
		return sock_conn_fail(c, -EPROTO, "connected to %s but %s answered",
				      libcfs_nidstr(&c->target), libcfs_nidstr(&c->peer.src_nid));
	}
	if (c->peer.ctype == SOCKLND_CONN_NONE) {
		return sock_conn_fail(c, -EALREADY, "refused by the peer (race or duplicate)");
	}
	if (ksock_conn_type_invert(c->peer.ctype) != c->local.ctype) {
		return sock_conn_fail(c, -EPROTO, "peer answered type %d to type %d", c->peer.ctype,
				      c->local.ctype);
	}
	return sock_conn_set_state(c, SOCK_CONN_EV_REPLY) == 0 ? 1 : -EINVAL;
}

/* Passive: answer with the inverse type, or refuse. */
static int
sock_conn_answer(struct sock_conn *c)
{
	int ctype = c->policy.accept_hello(c->policy.ctx, &c->peer);
	size_t n = 0;
	int rc;

	c->local.version = c->proto->version;
	c->local.dst_nid = c->peer.src_nid;
	/* As the kernel's reply, which reuses the hello it received: its dst slots go back as they came. */
	c->local.dst_pid = c->peer.dst_pid;
	c->local.dst_incarnation = c->peer.dst_incarnation;
	c->local.ctype = ctype;
	c->local.nips = 0;
	rc = c->proto->hello_encode(&c->local, c->tx, sizeof(c->tx), &n);
	if (rc != 0) {
		return sock_conn_fail(c, -EPROTO, "cannot answer a V%u hello: %s",
				      c->proto->version, ksock_strerror(rc));
	}
	c->txlen = n;
	c->txoff = 0;
	return sock_conn_set_state(c, SOCK_CONN_EV_HELLO);
}

static int
sock_conn_step(struct sock_conn *c)
{
	int rc;

	switch (c->state) {
	case SOCK_CONN_SEND_CONNREQ_HELLO:
		rc = sock_conn_flush(c);
		if (rc == 1) {
			return sock_conn_set_state(c, SOCK_CONN_EV_SENT);
		}
		return rc < 0 ? rc : 0;
	case SOCK_CONN_RECV_CONNREQ:
		return sock_conn_recv_connreq(c);
	case SOCK_CONN_RECV_HELLO:
		rc = sock_conn_read_hello(c);
		if (rc <= 0) {
			return rc;
		}
		return c->active ? sock_conn_check_reply(c) : sock_conn_answer(c);
	case SOCK_CONN_SEND_HELLO:
		rc = sock_conn_flush(c);
		if (rc != 1) {
			return rc;
		}
		if (c->local.ctype == SOCKLND_CONN_NONE) {
			return sock_conn_fail(c, -EALREADY, "refused %s (race or duplicate)",
					      libcfs_nidstr(&c->peer.src_nid));
		}
		return sock_conn_set_state(c, SOCK_CONN_EV_SENT) == 0 ? 1 : -EINVAL;
	case SOCK_CONN_ESTABLISHED:
		return 1;
	case SOCK_CONN_FAILED:
		return c->error;
	default:
		break;
	}
	return -EINVAL;
}

int
sock_conn_progress(struct sock_conn *c)
{
	enum sock_conn_state before;
	int rc;

	/* Run states until one has to wait for the socket. */
	do {
		before = c->state;
		rc = sock_conn_step(c);
	} while (rc == 0 && c->state != before);
	return rc < 0 ? c->error : rc;
}
