/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The byte-stream transport under the ksocklnd protocol: what the protocol
 * code (sock_conn, sock_rx, sock_tx and the socklnd NI) asks of a TCP
 * connection and of the NI's listener, as two ops tables. A backend moves
 * bytes and reports readiness; it knows nothing of hellos, framing or
 * peers, so the protocol exists once over every backend:
 *
 *  - kernel (sock_be_kernel.c): the host's TCP sockets, an epoll set per NI;
 *  - utcp (sock_be_utcp.c): the per-lcore userspace TCP (net_tcp.h) on a
 *    DPDK port named with sock_utcp_port_add().
 *
 * Readiness uses epoll's bits (EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP) and
 * struct epoll_event whatever the backend, so the NI's poll reads one kind
 * of event. Errors are negative errno values. Everything runs on the NI's
 * lcore, except sock_xport create/listen/fini (the NI's start and end).
 */
#ifndef SOCK_STREAM_H
#define SOCK_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "sock_addr.h"

struct net_tcp;
struct sock_stream;
struct sock_xport;

/** Socket options, as ksocklnd sets them on each connection (lnet-facts; socklnd_hs.c). */
struct sock_stream_opts {
	bool nodelay;        /**< no Nagle (TCP_NODELAY) */
	int keepalive_idle;  /**< s; keepalive only when idle, intvl and count are all > 0 */
	int keepalive_intvl; /**< s */
	int keepalive_count; /**< probes */
	int tx_buffer_size;  /**< SO_SNDBUF when > 0 */
	int rx_buffer_size;  /**< SO_RCVBUF when > 0 */
	int tos;             /**< IP_TOS / IPV6_TCLASS when >= 0 */
	bool v6;             /**< the connection is IPv6 */
};

/** What one connection does; every call on the NI's lcore. */
struct sock_stream_ops {
	/**
	 * recv is a function call, not a system call: the framing reads each
	 * piece exactly into its own buffer (sock_rx.exact), so a payload is
	 * copied once out of the stream whatever its size.
	 */
	bool exact_reads;
	/**
	 * Up to @p len received bytes into @p buf. @return >0 bytes, 0
	 * nothing now, -ENODATA the peer closed and all was read, other -errno.
	 */
	ssize_t (*recv)(struct sock_stream *st, void *buf, size_t len);
	/**
	 * Take what fits of @p iovcnt fragments (copied, or referenced until
	 * acknowledged: see unacked). @return bytes taken (0: no room now),
	 * or -errno (-EPIPE, -ECONNRESET...).
	 */
	ssize_t (*sendv)(struct sock_stream *st, const struct iovec *iov, int iovcnt);
	/**
	 * Bytes taken by sendv that the peer's TCP has not acknowledged yet
	 * (the kernel's SIOCOUTQ): a message written whole completes once its
	 * last byte is out of this count. @return >= 0, or -errno.
	 */
	long (*unacked)(struct sock_stream *st);
	/** A connect's outcome once readiness says it is over: 0 or -errno (SO_ERROR). */
	int (*error)(struct sock_stream *st);
	/** Set options as ksocklnd does; what a backend cannot do it leaves. */
	void (*setopts)(struct sock_stream *st, const struct sock_stream_opts *o);
	/** Close (FIN after what was taken); @p st is unusable afterwards. */
	void (*close)(struct sock_stream *st);
	/**
	 * The connection's addresses and ports (ours in @p local), for a
	 * capture to frame its bytes with. @return 0 or -errno (not connected).
	 */
	int (*addrs)(struct sock_stream *st, struct sock_addr *local, struct sock_addr *remote);
};

/**
 * One connection's handle: its backend's ops and what the backend needs.
 * Plain data, kept by value in its owner.
 */
struct sock_stream {
	const struct sock_stream_ops *ops;
	int fd;  /**< the kernel backend's socket; -1 otherwise */
	void *h; /**< the userspace backend's connection */
	struct sock_xport *xp;
};

/** How sock_xport_ops.watch changes a stream's readiness interest (as EPOLL_CTL_*). */
enum sock_watch_op {
	SOCK_WATCH_ADD = EPOLL_CTL_ADD,
	SOCK_WATCH_DEL = EPOLL_CTL_DEL,
	SOCK_WATCH_MOD = EPOLL_CTL_MOD,
};

/** What an NI's transport does: listen, accept, connect, readiness. */
struct sock_xport_ops {
	const char *name; /**< "socket" (kernel), "eth" (utcp): net show -v's transport */
	/**
	 * Listen on @p sa (the NI's address and the acceptor port); accepted
	 * connections are announced by a readiness event with data.ptr NULL.
	 * Off the lcore, at NI start. @return 0 or -errno
	 */
	int (*listen)(struct sock_xport *x, const struct sock_addr *sa, int backlog);
	/** On the NI's lcore as it starts polling; may be NULL. @return 0 or -errno */
	int (*start)(struct sock_xport *x);
	/**
	 * The next accepted connection into @p st, its peer's address into
	 * @p peer. @return 1, 0 (none now), -errno.
	 */
	int (*accept)(struct sock_xport *x, struct sock_stream *st, struct sock_addr *peer);
	/**
	 * Start a non-blocking connect to @p to from @p self, from the highest
	 * free source port in [@p port_lo, @p port_hi], else any port;
	 * @p o set first. Completion is readiness (EPOLLOUT, EPOLLERR) and
	 * then ops->error. @return 0 or -errno
	 */
	int (*connect)(struct sock_xport *x, struct sock_stream *st, const struct sock_addr *self,
		       uint16_t port_lo, uint16_t port_hi, const struct sock_addr *to,
		       const struct sock_stream_opts *o);
	/** Readiness of @p st (@p events) reported with @p ptr; @return 0 or -errno */
	int (*watch)(struct sock_xport *x, struct sock_stream *st, enum sock_watch_op op,
		     uint32_t events, void *ptr);
	/**
	 * Readiness of a host fd (rtnetlink) in the same set. NULL: the
	 * transport is not on the host's interfaces (no kernel link to watch),
	 * and its streams live on one lcore (none is handed to another NI).
	 */
	int (*watch_fd)(struct sock_xport *x, int fd, void *ptr);
	/**
	 * For a transport on a device of its own (watch_fd NULL): from now on,
	 * a change of the device's link is a readiness event with data.ptr
	 * @p ptr in wait(), until link_up() reads it. NULL: no link to watch.
	 */
	void (*watch_link)(struct sock_xport *x, void *ptr);
	/** The device's link: true while up (what changed is read: wait() is quiet again). */
	bool (*link_up)(struct sock_xport *x);
	/** Up to @p max ready streams, without waiting. @return how many, or -errno */
	int (*wait)(struct sock_xport *x, struct epoll_event *evs, int max);
	/** An fd the lcore may sleep on while idle (the epoll set), or -1. */
	int (*wait_fd)(const struct sock_xport *x);
	/** Stop listening and free @p x (its streams are closed already). */
	void (*fini)(struct sock_xport *x);
};

/** An NI's transport: its ops; each backend extends it. */
struct sock_xport {
	const struct sock_xport_ops *ops;
	const struct sock_stream_ops *sops; /**< of the streams it makes */
};

/** The kernel backend over sockets: a new epoll set. @return 0 or -errno */
int sock_xport_kernel_create(struct sock_xport **out);

/**
 * The userspace-TCP backend: connections on data lcore @p lcore (index) of
 * @p tcp, the NI's address @p laddr (network order). @return 0 or -ENOMEM
 */
int sock_xport_utcp_create(struct net_tcp *tcp, unsigned int lcore, uint32_t laddr,
			   struct sock_xport **out);

/**
 * Name a port's TCP for NIs: an NI whose interface is @p name, or (no
 * interface given) whose IPv4 address is @p addr (network order), runs on
 * @p tcp. Any thread, before the NI is added. @return 0, -EINVAL,
 * -EEXIST, -ENOSPC
 */
int sock_utcp_port_add(const char *name, uint32_t addr, struct net_tcp *tcp);
/** Forget it (its NIs are gone). */
void sock_utcp_port_del(const char *name);
/**
 * The link of the port named @p name is @p up now (its net_port link
 * callback, or a test): the NIs on it go down or up with it, as socket NIs
 * with their interface's link. Any thread; a port not named is ignored.
 * A port named starts up.
 */
void sock_utcp_port_link(const char *name, bool up);
/** The TCP of the port named @p name, or (@p name NULL) of address @p addr; NULL none. */
struct net_tcp *sock_utcp_port_find(const char *name, uint32_t addr);

/** A kernel stream over an fd someone else opened (tests, fd-based callers). */
struct sock_stream sock_stream_of_fd(int fd);

/** The kernel backend's stream ops (sock_stream_of_fd's). */
extern const struct sock_stream_ops sock_stream_kernel_ops;

/* The calls, spelled as what they do. */
static inline ssize_t
sock_stream_recv(struct sock_stream *st, void *buf, size_t len)
{
	return st->ops->recv(st, buf, len);
}

static inline ssize_t
sock_stream_sendv(struct sock_stream *st, const struct iovec *iov, int iovcnt)
{
	return st->ops->sendv(st, iov, iovcnt);
}

static inline bool
sock_stream_open(const struct sock_stream *st)
{
	return st->ops != NULL;
}

#endif /* SOCK_STREAM_H */
