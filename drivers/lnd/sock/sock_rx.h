/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Receive framing of an established ksocklnd connection (lnet-facts §4.6):
 * ksock_msg header, LNet header, then the payload read straight into the
 * buffer LNet chose (or discarded). Non-blocking and explicit:
 *
 *   KSOCK_HDR -> LNET_HDR -> WAIT_SINK -> PAYLOAD -> KSOCK_HDR
 *        \-> (NOOP) ------------------------------> KSOCK_HDR
 *
 * After the LNet header the owner hands it to lnet_parse(); LNet answers,
 * now or later (lazy portal, another lcore), through sock_rx_set_sink().
 * Reading stops meanwhile, so the stream stays in order.
 *
 * Bytes come from the stream (sock_stream.h) through a small staging buffer: one recv()
 * brings a whole small message (often several), where reading each piece
 * separately would cost three system calls per message. A payload at least
 * half the stage's size is read straight into LNet's buffer instead, so bulk
 * data is copied once; over a stream whose recv costs no system call
 * (rx->exact) every piece is read that way, without the stage. A short recv() means the socket is empty: no more
 * calls until the next poll. The tap sees bytes as the framing consumes
 * them, so a capture frames messages as before.
 *
 * A message whose ksm_csum is not 0 is checked as it arrives (every byte,
 * discarded ones too): a NOOP that fails, or an LNET message that fails
 * once its payload is in (completed with -EIO), ends the connection with
 * -EBADMSG, as ksocklnd does.
 */
#ifndef SOCK_RX_H
#define SOCK_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "ksock_proto.h"
#include "sock_stream.h"
#include "sock_tap.h"

enum sock_rx_state {
	SOCK_RX_KSOCK_HDR = 0,
	SOCK_RX_LNET_HDR,
	SOCK_RX_WAIT_SINK,
	SOCK_RX_PAYLOAD,
	SOCK_RX_FAILED,
};

struct sock_rx;

/** Staging buffer: two 4 KiB messages with their headers fit. */
#define SOCK_RX_STAGE 9216

/** What the connection's owner does with what arrives. */
struct sock_rx_ops {
	/** A NOOP (ZC-ACKs and keepalives). */
	void (*on_noop)(void *ctx, const struct ksock_msg *km);
	/**
	 * An LNET message's headers: call lnet_parse(); return 0, or -errno to
	 * drop the connection (a header LNet refused: EPROTO).
	 */
	int (*on_lnet)(void *ctx, const struct ksock_msg *km, const struct lnet_hdr *hdr);
	/** The payload is in (or discarded): complete the message with @p status. */
	void (*on_payload)(void *ctx, void *cookie, int status);
	void *ctx;
};

struct sock_rx {
	enum sock_rx_state state;
	const struct ksock_proto *proto;
	bool swapped;
	struct sock_rx_ops ops;
	int error;
	char why[96];
	uint8_t buf[sizeof(struct ksock_msg_hdr) + LNET_HDR_NID16_SIZE];
	size_t have;
	struct ksock_msg km;
	struct lnet_hdr hdr;
	/* payload sink, set by sock_rx_set_sink() */
	const struct iovec *iov;
	unsigned int niov;
	unsigned int offset;
	unsigned int mlen;
	unsigned int rlen;
	unsigned int done;
	void *cookie;
	bool csum_on;      /* this message carries a checksum */
	uint32_t csum_run; /* its running CRC so far */
	uint64_t msgs;
	uint64_t bytes;
	uint64_t csum_checked; /* messages whose checksum matched */
	uint64_t recvs;        /* recv() calls that returned bytes */
	/*
	 * Read each piece exactly, straight into its own buffer (headers into
	 * buf, the payload into LNet's): no stage. For a stream whose recv is
	 * a function call (sock_stream_ops.exact_reads): every payload byte
	 * is copied once out of the stream, small messages too.
	 */
	bool exact;
	const struct sock_tap *tap; /**< the owner's, or NULL: set after init */
	bool drained;               /* the last recv() came back short: socket empty */
	unsigned int stage_off;     /* next unread staged byte */
	unsigned int stage_len;     /* staged bytes */
	uint8_t stage[SOCK_RX_STAGE];
};

void sock_rx_init(struct sock_rx *rx, const struct ksock_proto *proto, bool swapped,
		  const struct sock_rx_ops *ops);

/**
 * Instead of a sink (WAIT_SINK): the message's whole payload, @p rlen
 * bytes, copied out of the stage into @p dst now, and the stream moved on
 * past it, as if it had been read into a sink and completed (nothing calls
 * on_payload). Only when it is all staged and carries no checksum (whose
 * failure must fail the message): else -EAGAIN and nothing changes.
 */
int sock_rx_take(struct sock_rx *rx, void *dst, unsigned int rlen);

/**
 * Read what the socket has. @return 1 if anything moved, 0 if it must wait
 * (socket empty, or LNet not answered yet), or -errno (peer closed,
 * malformed stream: rx->why).
 */
int sock_rx_poll(struct sock_rx *rx, int fd);

/**
 * sock_rx_poll() in two steps, for an owner that polls a connection whose
 * socket is mostly empty: when sock_rx_between(), sock_rx_probe() is the
 * recv sock_rx_poll() starts with. It returns 0 when the socket is empty
 * (nothing else moved: sock_rx_poll() would have returned 0 there), else
 * 1 or -errno, and then sock_rx_resume() returns what sock_rx_poll() would
 * have.
 */
int sock_rx_probe(struct sock_rx *rx, int fd);
int sock_rx_resume(struct sock_rx *rx, int fd);

/** The same three over any transport's stream (sock_stream.h): what the NI calls. */
int sock_rx_poll_stream(struct sock_rx *rx, struct sock_stream *st);
int sock_rx_probe_stream(struct sock_rx *rx, struct sock_stream *st);
int sock_rx_resume_stream(struct sock_rx *rx, struct sock_stream *st);

/** Bytes received and not yet consumed: the owner must poll again without waiting for the socket. */
static inline bool
sock_rx_staged(const struct sock_rx *rx)
{
	return rx->stage_off < rx->stage_len;
}

/** Between messages with nothing staged: the next byte can only come from the socket (V2+ framing). */
static inline bool
sock_rx_between(const struct sock_rx *rx)
{
	return rx->state == SOCK_RX_KSOCK_HDR && rx->have == 0 && !sock_rx_staged(rx) &&
	       rx->proto->msg_hdr_size != 0 && !rx->exact;
}

/** In the middle of a payload large enough to be read straight into LNet's buffer. */
static inline bool
sock_rx_in_bulk(const struct sock_rx *rx)
{
	return rx->state == SOCK_RX_PAYLOAD && rx->rlen - rx->done >= SOCK_RX_STAGE / 2;
}

/**
 * LNet's answer for the current message: @p mlen bytes of its @p rlen into
 * (@p iov, @p niov) at @p offset, the rest discarded; @p cookie comes back
 * in on_payload. @p iov NULL / @p mlen 0: discard everything.
 */
void sock_rx_set_sink(struct sock_rx *rx, const struct iovec *iov, unsigned int niov,
		      unsigned int offset, unsigned int mlen, unsigned int rlen, void *cookie);

/** The connection is gone: stop framing (FAILED with @p err); nothing waits on LNet any more. */
void sock_rx_abort(struct sock_rx *rx, int err);

#endif /* SOCK_RX_H */
