/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A tap on a connection's byte stream: after every read or write that
 * moved bytes, the owner sees them (for capture). @p boundary: they start a
 * message (or a handshake), where a recording may begin.
 */
#ifndef SOCK_TAP_H
#define SOCK_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

struct lnet_pcap;

struct sock_tap {
	void (*io)(void *ctx, bool out, bool boundary, const struct iovec *iov, int iovcnt,
		   size_t n);
	void *ctx;
	/* Where the owner keeps the capture it feeds (NULL: always call): no call while none runs. */
	struct lnet_pcap *const *cap;
};

/** Does a read or write of @p t's stream go to anyone now? */
static inline bool
sock_tap_on(const struct sock_tap *t)
{
	return t != NULL && t->io != NULL && (t->cap == NULL || *t->cap != NULL);
}

static inline void
sock_tap_io(const struct sock_tap *t, bool out, bool boundary, const struct iovec *iov, int iovcnt,
	    ssize_t n)
{
	if (t != NULL && t->io != NULL && n > 0 && (t->cap == NULL || *t->cap != NULL)) {
		t->io(t->ctx, out, boundary, iov, iovcnt, (size_t)n);
	}
}

#endif /* SOCK_TAP_H */
