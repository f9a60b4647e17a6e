/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel backend of the byte-stream transport (sock_stream.h): the
 * host's TCP sockets, non-blocking, and one epoll set per NI that holds
 * its listener, its connections and the rtnetlink socket. What each call
 * does is what socklnd did on its fds before the transport had two
 * backends: nothing on the wire changed with the move.
 */
#include <errno.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sock_stream.h"

struct sock_xport_kernel {
	struct sock_xport base;
	int epfd;
	int listen_fd;
};

static struct sock_xport_kernel *
sock_xk(struct sock_xport *x)
{
	return (struct sock_xport_kernel *)x;
}

static bool
sock_be_would_block(int err)
{
	return err == EAGAIN || err == EWOULDBLOCK || err == EINTR;
}

static ssize_t
sock_be_recv(struct sock_stream *st, void *buf, size_t len)
{
	ssize_t r = recv(st->fd, buf, len, 0);

	if (r > 0) {
		return r;
	}
	if (r == 0) {
		return -ENODATA;
	}
	return sock_be_would_block(errno) ? 0 : -errno;
}

static ssize_t
sock_be_sendv(struct sock_stream *st, const struct iovec *iov, int iovcnt)
{
	struct msghdr mh = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt };
	ssize_t n = sendmsg(st->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n >= 0) {
		return n;
	}
	return sock_be_would_block(errno) ? 0 : -errno;
}

/* SIOCOUTQ: bytes in the send queue, not sent or sent and not acknowledged. */
static long
sock_be_unacked(struct sock_stream *st)
{
	int outq = 0;

	if (ioctl(st->fd, SIOCOUTQ, &outq) != 0) {
		return -errno;
	}
	return outq;
}

static int
sock_be_error(struct sock_stream *st)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(st->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
		return -errno;
	}
	return -err;
}

static void
sock_be_setopts(struct sock_stream *st, const struct sock_stream_opts *o)
{
	int fd = st->fd;
	int one = 1;
	int keepalive = o->keepalive_idle > 0 && o->keepalive_intvl > 0 && o->keepalive_count > 0;

	if (o->nodelay) {
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &keepalive, sizeof(keepalive));
	if (keepalive) {
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &o->keepalive_idle, sizeof(int));
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &o->keepalive_intvl, sizeof(int));
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &o->keepalive_count, sizeof(int));
	}
	if (o->tx_buffer_size > 0) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o->tx_buffer_size, sizeof(int));
	}
	if (o->rx_buffer_size > 0) {
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o->rx_buffer_size, sizeof(int));
	}
	if (o->tos >= 0 && o->v6) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &o->tos, sizeof(o->tos));
	} else if (o->tos >= 0) {
		setsockopt(fd, IPPROTO_IP, IP_TOS, &o->tos, sizeof(o->tos));
	}
}

static void
sock_be_close(struct sock_stream *st)
{
	if (st->fd >= 0) {
		close(st->fd);
	}
	st->fd = -1;
	st->ops = NULL;
}

static int
sock_be_addrs(struct sock_stream *st, struct sock_addr *local, struct sock_addr *remote)
{
	local->len = sizeof(local->ss);
	remote->len = sizeof(remote->ss);
	if (getsockname(st->fd, (struct sockaddr *)&local->ss, &local->len) != 0 ||
	    getpeername(st->fd, (struct sockaddr *)&remote->ss, &remote->len) != 0) {
		return -errno;
	}
	return 0;
}

const struct sock_stream_ops sock_stream_kernel_ops = {
	.recv = sock_be_recv,
	.sendv = sock_be_sendv,
	.unacked = sock_be_unacked,
	.error = sock_be_error,
	.setopts = sock_be_setopts,
	.close = sock_be_close,
	.addrs = sock_be_addrs,
};

struct sock_stream
sock_stream_of_fd(int fd)
{
	return (struct sock_stream){ .ops = &sock_stream_kernel_ops, .fd = fd };
}

static int
sock_xk_listen(struct sock_xport *x, const struct sock_addr *sa, int backlog)
{
	struct sock_xport_kernel *k = sock_xk(x);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	int one = 1;

	k->listen_fd = socket(sa->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (k->listen_fd < 0) {
		return -errno;
	}
	setsockopt(k->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Two NIs on one address (tcp and tcp1 on eth0) share addr:port, as one kernel acceptor. */
	setsockopt(k->listen_fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	if (sa->ss.ss_family == AF_INET6) {
		setsockopt(k->listen_fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	}
	if (bind(k->listen_fd, (const struct sockaddr *)&sa->ss, sa->len) != 0 ||
	    listen(k->listen_fd, backlog) != 0 ||
	    epoll_ctl(k->epfd, EPOLL_CTL_ADD, k->listen_fd, &ev) != 0) {
		return -errno;
	}
	return 0;
}

static int
sock_xk_accept(struct sock_xport *x, struct sock_stream *st, struct sock_addr *peer)
{
	struct sock_xport_kernel *k = sock_xk(x);
	int fd;

	peer->len = sizeof(peer->ss);
	fd = accept4(k->listen_fd, (struct sockaddr *)&peer->ss, &peer->len,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		return sock_be_would_block(errno) ? 0 : -errno;
	}
	*st = sock_stream_of_fd(fd);
	st->xp = x;
	return 1;
}

/* The highest free port of [lo, hi] (peers in accept=secure demand a privileged one), else any. */
static void
sock_xk_bind_from(int fd, const struct sock_addr *self, uint16_t lo, uint16_t hi)
{
	struct sock_addr sa = *self;
	int port;

	for (port = hi; lo != 0 && port >= lo; port--) {
		sock_addr_set_port(&sa, (uint16_t)port);
		if (bind(fd, (struct sockaddr *)&sa.ss, sa.len) == 0) {
			return;
		}
		if (errno != EADDRINUSE && errno != EADDRNOTAVAIL) {
			break; /* not root: an ephemeral port it is */
		}
	}
	sock_addr_set_port(&sa, 0);
	bind(fd, (struct sockaddr *)&sa.ss, sa.len);
}

static int
sock_xk_connect(struct sock_xport *x, struct sock_stream *st, const struct sock_addr *self,
		uint16_t port_lo, uint16_t port_hi, const struct sock_addr *to,
		const struct sock_stream_opts *o)
{
	int fd = socket(to->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		return -errno;
	}
	*st = sock_stream_of_fd(fd);
	st->xp = x;
	sock_be_setopts(st, o);
	if (self != NULL) {
		sock_xk_bind_from(fd, self, port_lo, port_hi);
	}
	if (connect(fd, (const struct sockaddr *)&to->ss, to->len) != 0 && errno != EINPROGRESS) {
		int err = -errno;

		sock_be_close(st);
		return err;
	}
	return 0;
}

static int
sock_xk_watch(struct sock_xport *x, struct sock_stream *st, enum sock_watch_op op, uint32_t events,
	      void *ptr)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	if (epoll_ctl(sock_xk(x)->epfd, (int)op, st->fd, op == SOCK_WATCH_DEL ? NULL : &ev) != 0) {
		return -errno;
	}
	return 0;
}

static int
sock_xk_watch_fd(struct sock_xport *x, int fd, void *ptr)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ptr };

	return epoll_ctl(sock_xk(x)->epfd, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : -errno;
}

static int
sock_xk_wait(struct sock_xport *x, struct epoll_event *evs, int max)
{
	int n = epoll_wait(sock_xk(x)->epfd, evs, max, 0);

	return n >= 0 ? n : -errno;
}

static int
sock_xk_wait_fd(const struct sock_xport *x)
{
	return ((const struct sock_xport_kernel *)x)->epfd;
}

static void
sock_xk_fini(struct sock_xport *x)
{
	struct sock_xport_kernel *k = sock_xk(x);

	if (k->listen_fd >= 0) {
		close(k->listen_fd);
	}
	if (k->epfd >= 0) {
		close(k->epfd);
	}
	free(k);
}

static const struct sock_xport_ops sock_xport_kernel_ops = {
	.name = "socket",
	.listen = sock_xk_listen,
	.accept = sock_xk_accept,
	.connect = sock_xk_connect,
	.watch = sock_xk_watch,
	.watch_fd = sock_xk_watch_fd,
	.wait = sock_xk_wait,
	.wait_fd = sock_xk_wait_fd,
	.fini = sock_xk_fini,
};

int
sock_xport_kernel_create(struct sock_xport **out)
{
	struct sock_xport_kernel *k = calloc(1, sizeof(*k));

	if (k == NULL) {
		return -ENOMEM;
	}
	k->base.ops = &sock_xport_kernel_ops;
	k->base.sops = &sock_stream_kernel_ops;
	k->listen_fd = -1;
	k->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (k->epfd < 0) {
		int rc = -errno;

		free(k);
		return rc;
	}
	*out = &k->base;
	return 0;
}
