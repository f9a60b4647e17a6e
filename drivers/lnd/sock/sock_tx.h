/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Transmit framing: one ksock_msg header + LNet header + payload fragments
 * written with one gathered send on the stream (sock_stream.h), picking up where a partial write stopped. Queued
 * messages go out coalesced: one sendmsg carries as many as fit in
 * SOCK_TX_MAX_IOV fragments (ksocklnd's tx coalescing).
 */
#ifndef SOCK_TX_H
#define SOCK_TX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/uio.h>

#include "ksock_proto.h"
#include "sock_stream.h"
#include "sock_tap.h"

#define SOCK_TX_MAX_IOV 128

struct sock_tx {
	TAILQ_ENTRY(sock_tx) link;
	uint8_t hdr[sizeof(struct ksock_msg_hdr) + LNET_HDR_NID16_SIZE];
	size_t hdr_len;
	const struct iovec *iov; /* payload fragments (LNet's MD) */
	unsigned int niov;
	unsigned int offset;
	unsigned int len;
	size_t sent;        /* bytes of hdr + payload already written */
	uint64_t end;       /* written whole: the connection's byte count at its last byte */
	void *cookie;       /* the LNet message */
	bool requeued;      /* its connection died before a byte went: moved once already */
	uint64_t queued_us; /* put on its peer's queue (waiting for a connection) at */
};

TAILQ_HEAD(sock_tx_list, sock_tx);

/**
 * Frame a message for @p proto. @p km NULL: an LNET message without ZC
 * cookies; a NOOP has @p hdr NULL. @return 0 or -KSOCK_EINVAL.
 */
int sock_tx_prepare(struct sock_tx *tx, const struct ksock_proto *proto, const struct ksock_msg *km,
		    const struct lnet_hdr *hdr, const struct iovec *iov, unsigned int niov,
		    unsigned int offset, unsigned int len, void *cookie);

/**
 * Fill in ksm_csum over the framed header and the payload (ksocklnd's
 * enable_csum; the kernel does it on V2 connections only). Before any
 * byte is sent. @return 0, or -KSOCK_EINVAL for a frame without ksock header.
 */
int sock_tx_checksum(struct sock_tx *tx);

/** Write what the socket takes: 1 all sent, 0 partial (wait), -errno. @p tap may be NULL. */
int sock_tx_send(struct sock_tx *tx, int fd, const struct sock_tap *tap);

/**
 * One sendmsg of the messages at the head of @p q, as many as fit in
 * SOCK_TX_MAX_IOV fragments. Each one's `sent` advances; *@p done gets how
 * many from the head are now whole on the wire (they stay queued: the
 * caller completes them). @return 1 all that was offered went, 0 the
 * socket is full (wait for POLLOUT), -errno.
 */
int sock_txq_send(struct sock_tx_list *q, int fd, const struct sock_tap *tap, unsigned int *done);

/** sock_tx_send() and sock_txq_send() over any transport's stream (sock_stream.h). */
int sock_tx_send_stream(struct sock_tx *tx, struct sock_stream *st, const struct sock_tap *tap);
int sock_txq_send_stream(struct sock_tx_list *q, struct sock_stream *st, const struct sock_tap *tap,
			 unsigned int *done);

#endif /* SOCK_TX_H */
