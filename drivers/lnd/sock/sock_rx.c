/* SPDX-License-Identifier: BSD-3-Clause */
/* Receive framing of an established connection (see sock_rx.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sock_rx.h"

#define SOCK_RX_DISCARD 4096

void
sock_rx_init(struct sock_rx *rx, const struct ksock_proto *proto, bool swapped,
	     const struct sock_rx_ops *ops)
{
	memset(rx, 0, sizeof(*rx));
	rx->proto = proto;
	rx->swapped = swapped;
	rx->ops = *ops;
	rx->state = SOCK_RX_KSOCK_HDR;
}

static int
sock_rx_fail(struct sock_rx *rx, int err, const char *why)
{
	snprintf(rx->why, sizeof(rx->why), "%s", why);
	rx->error = err;
	rx->state = SOCK_RX_FAILED;
	return err;
}

void
sock_rx_abort(struct sock_rx *rx, int err)
{
	sock_rx_fail(rx, err, "connection closed");
}

/* sock_rx_recv() on a socket not known to be drained. */
static inline __attribute__((always_inline)) ssize_t
sock_rx_recv_now(struct sock_rx *rx, struct sock_stream *st, void *p, size_t n)
{
	ssize_t r = sock_stream_recv(st, p, n);

	if (r > 0) {
		rx->recvs++;
		rx->drained = (size_t)r < n;
		return r;
	}
	if (r == 0) {
		rx->drained = true;
		return 0;
	}
	if (r == -ENODATA) {
		return sock_rx_fail(rx, -ECONNRESET, "peer closed the connection");
	}
	return sock_rx_fail(rx, (int)r, "recv failed");
}

/* recv() into @p p; >0 bytes, 0 would block, <0 error/closed. */
static ssize_t
sock_rx_recv(struct sock_rx *rx, struct sock_stream *st, void *p, size_t n)
{
	return rx->drained ? 0 : sock_rx_recv_now(rx, st, p, n);
}

/* An empty stage filled by one recv: >0 bytes, 0 would block, <0 error/closed. */
static ssize_t
sock_rx_restage(struct sock_rx *rx, struct sock_stream *st)
{
	ssize_t r = sock_rx_recv(rx, st, rx->stage, sizeof(rx->stage));

	if (r > 0) {
		rx->stage_off = 0;
		rx->stage_len = (unsigned int)r;
	}
	return r;
}

/* Up to @p n staged bytes into @p p, refilling the stage first if it is empty. */
static ssize_t
sock_rx_unstage(struct sock_rx *rx, struct sock_stream *st, void *p, size_t n)
{
	size_t avail;

	if (!sock_rx_staged(rx)) {
		ssize_t r = sock_rx_restage(rx, st);

		if (r <= 0) {
			return r;
		}
	}
	avail = rx->stage_len - rx->stage_off;
	if (n > avail) {
		n = avail;
	}
	memcpy(p, rx->stage + rx->stage_off, n);
	rx->stage_off += (unsigned int)n;
	return (ssize_t)n;
}

/* Up to @p n bytes of the stream into @p p: >0 bytes, 0 would block, <0 error/closed. */
static ssize_t
sock_rx_read(struct sock_rx *rx, struct sock_stream *st, void *p, size_t n)
{
	/* A new message starts where a ksock header starts from nothing. */
	bool boundary = rx->state == SOCK_RX_KSOCK_HDR && rx->have == 0;
	ssize_t r;

	if (rx->exact || (!sock_rx_staged(rx) && n >= sizeof(rx->stage) / 2)) {
		r = sock_rx_recv(rx, st, p,
				 n); /* bulk (or exact reads): straight into its buffer */
	} else {
		r = sock_rx_unstage(rx, st, p, n);
	}
	if (r > 0) {
		struct iovec v = { p, (size_t)r };

		sock_tap_io(rx->tap, false, boundary, &v, 1, r);
		rx->bytes += (uint64_t)r;
	}
	return r;
}

/* sock_rx_fill() when the header is not all staged: read into rx->buf. */
static __attribute__((noinline)) int
sock_rx_fill_read(struct sock_rx *rx, struct sock_stream *st, size_t need, const uint8_t **at)
{
	while (rx->have < need) {
		ssize_t r = sock_rx_read(rx, st, rx->buf + rx->have, need - rx->have);

		if (r <= 0) {
			return (int)r;
		}
		rx->have += (size_t)r;
	}
	*at = rx->buf;
	return 1;
}

/*
 * A header of @p need bytes: rx->buf filled up to @p need, or, when none of
 * it was taken yet and all of it is staged (the usual case: one recv brings
 * many), the stage itself, taken as sock_rx_read() would take it but without
 * copying it. *@p at: where its bytes are, until the next recv. 1 when there,
 * 0 to wait, <0 error.
 */
static inline int
sock_rx_fill(struct sock_rx *rx, struct sock_stream *st, size_t need, const uint8_t **at)
{
	if (rx->have == 0 && rx->stage_len - rx->stage_off >= need) {
		const uint8_t *p = rx->stage + rx->stage_off;
		struct iovec v = { (void *)(uintptr_t)p, need };

		sock_tap_io(rx->tap, false, rx->state == SOCK_RX_KSOCK_HDR, &v, 1, (ssize_t)need);
		rx->stage_off += (unsigned int)need;
		rx->bytes += need;
		rx->have = need;
		*at = p;
		return 1;
	}
	return sock_rx_fill_read(rx, st, need, at);
}

static void
sock_rx_csum_add(struct sock_rx *rx, const void *p, size_t n)
{
	if (rx->csum_on) {
		rx->csum_run = ksock_csum_update(rx->csum_run, p, n);
	}
}

/* At the end of a message: 0 when it had no checksum or it matched. */
static int
sock_rx_csum_check(struct sock_rx *rx)
{
	if (!rx->csum_on) {
		return 0;
	}
	if (ksock_csum_final(rx->csum_run) != rx->km.csum) {
		return -EBADMSG;
	}
	rx->csum_checked++;
	return 0;
}

static int
sock_rx_ksock_hdr(struct sock_rx *rx, struct sock_stream *st)
{
	const uint8_t *at;
	int rc;

	if (rx->proto->msg_hdr_size == 0) {
		/* V1 frames are bare LNet messages. */
		memset(&rx->km, 0, sizeof(rx->km));
		rx->km.type = KSOCK_MSG_LNET;
		rx->state = SOCK_RX_LNET_HDR;
		return 1;
	}
	rc = sock_rx_fill(rx, st, rx->proto->msg_hdr_size, &at);

	if (rc <= 0) {
		return rc;
	}
	rc = ksock_msg_hdr_decode(at, rx->have, rx->swapped, &rx->km);
	if (rc != 0) {
		return sock_rx_fail(rx, -EPROTO, ksock_strerror(rc));
	}
	rx->have = 0;
	rx->csum_on = rx->km.csum != 0;
	if (rx->csum_on) {
		rx->csum_run = ksock_csum_msg_hdr(at);
	}
	if (rx->km.type == KSOCK_MSG_NOOP) {
		if (sock_rx_csum_check(rx) != 0) {
			return sock_rx_fail(rx, -EBADMSG, "NOOP checksum mismatch");
		}
		rx->ops.on_noop(rx->ops.ctx, &rx->km);
		return 1;
	}
	rx->state = SOCK_RX_LNET_HDR;
	return 1;
}

static int
sock_rx_lnet_hdr(struct sock_rx *rx, struct sock_stream *st)
{
	const uint8_t *at;
	int rc = sock_rx_fill(rx, st, rx->proto->lnet_hdr_size, &at);

	if (rc <= 0) {
		return rc;
	}
	rc = rx->proto->lnet_hdr_decode(at, rx->have, &rx->hdr);
	if (rc != 0) {
		return sock_rx_fail(rx, -EPROTO, lnet_wire_strerror(rc));
	}
	sock_rx_csum_add(rx, at, rx->have);
	rx->have = 0;
	rx->state = SOCK_RX_WAIT_SINK;
	rx->msgs++;
	rc = rx->ops.on_lnet(rx->ops.ctx, &rx->km, &rx->hdr);
	if (rc != 0) {
		return sock_rx_fail(rx, rc, "LNet refused the header");
	}
	return 1;
}

/*
 * The usual small message, in one step: an LNET message whose two headers
 * are both staged, with no checksum, while nothing taps the stream (the tap
 * sees each header as its own piece: sock_rx_fill() keeps doing that). Both
 * are decoded where they lie and go to LNet; if LNet's answer takes no
 * payload (rlen 0: an ACK, a GET) the message completes here too, as
 * sock_rx_payload() would complete it. @return 0 when it is not such a
 * message (sock_rx_ksock_hdr() takes it, its errors included), 1 done or
 * waiting for LNet, <0 LNet refused the header.
 */
static inline int
sock_rx_lnet_staged(struct sock_rx *rx, bool tapped)
{
	const struct ksock_proto *p = rx->proto;
	size_t hsz = p->msg_hdr_size;
	size_t n = hsz + p->lnet_hdr_size;
	const uint8_t *at = rx->stage + rx->stage_off;
	int rc;

	struct ksock_msg_hdr w;
	uint32_t lnet = rx->swapped ? __builtin_bswap32(KSOCK_MSG_LNET) : KSOCK_MSG_LNET;

	if (tapped || rx->have != 0 || hsz != sizeof(w) || rx->stage_len - rx->stage_off < n) {
		return 0;
	}
	/* ksock_msg_hdr_decode() of the one kind taken here: LNET, no checksum. */
	memcpy(&w, at, sizeof(w));
	if (w.ksm_type != lnet || w.ksm_csum != 0 ||
	    p->lnet_hdr_decode(at + hsz, n - hsz, &rx->hdr) != 0) {
		return 0;
	}
	rx->km.type = KSOCK_MSG_LNET;
	rx->km.csum = 0;
	rx->km.zc_cookies[0] =
		rx->swapped ? __builtin_bswap64(w.ksm_zc_cookies[0]) : w.ksm_zc_cookies[0];
	rx->km.zc_cookies[1] =
		rx->swapped ? __builtin_bswap64(w.ksm_zc_cookies[1]) : w.ksm_zc_cookies[1];
	rx->stage_off += (unsigned int)n;
	rx->bytes += n;
	rx->csum_on = false;
	rx->state = SOCK_RX_WAIT_SINK;
	rx->msgs++;
	rc = rx->ops.on_lnet(rx->ops.ctx, &rx->km, &rx->hdr);
	if (rc != 0) {
		return sock_rx_fail(rx, rc, "LNet refused the header");
	}
	if (rx->state == SOCK_RX_PAYLOAD && rx->rlen == 0) {
		rx->state = SOCK_RX_KSOCK_HDR;
		rx->ops.on_payload(rx->ops.ctx, rx->cookie, 0);
	}
	return 1;
}

void
sock_rx_set_sink(struct sock_rx *rx, const struct iovec *iov, unsigned int niov,
		 unsigned int offset, unsigned int mlen, unsigned int rlen, void *cookie)
{
	rx->iov = iov;
	rx->niov = iov == NULL ? 0 : niov;
	rx->offset = offset;
	rx->mlen = iov == NULL ? 0 : mlen;
	rx->rlen = rlen;
	rx->done = 0;
	rx->cookie = cookie;
	rx->state = SOCK_RX_PAYLOAD;
}

int
sock_rx_take(struct sock_rx *rx, void *dst, unsigned int rlen)
{
	struct iovec v = { dst, rlen };

	if (rx->state != SOCK_RX_WAIT_SINK || rx->csum_on || rx->stage_len - rx->stage_off < rlen) {
		return -EAGAIN;
	}
	memcpy(dst, rx->stage + rx->stage_off, rlen);
	sock_tap_io(rx->tap, false, false, &v, 1, (ssize_t)rlen);
	rx->stage_off += rlen;
	rx->bytes += rlen;
	rx->state = SOCK_RX_KSOCK_HDR;
	return 0;
}

/* Where byte @p pos of the sink lands: a pointer and the room after it. */
static void *
sock_rx_sink_at(const struct sock_rx *rx, unsigned int pos, size_t *room)
{
	size_t off = (size_t)rx->offset + pos;
	unsigned int i;

	for (i = 0; i < rx->niov; i++) {
		if (off < rx->iov[i].iov_len) {
			*room = rx->iov[i].iov_len - off;
			return (char *)rx->iov[i].iov_base + off;
		}
		off -= rx->iov[i].iov_len;
	}
	*room = 0;
	return NULL;
}

static int
sock_rx_payload(struct sock_rx *rx, struct sock_stream *st)
{
	static __thread uint8_t discard[SOCK_RX_DISCARD];

	while (rx->done < rx->rlen) {
		size_t room = 0;
		void *p = rx->done < rx->mlen ? sock_rx_sink_at(rx, rx->done, &room) : NULL;
		size_t want = rx->done < rx->mlen ? rx->mlen - rx->done : rx->rlen - rx->done;
		ssize_t r;

		if (p == NULL) {
			/* Beyond mlen (or a short sink): read and drop. */
			p = discard;
			room = sizeof(discard);
			if (rx->done < rx->mlen) {
				rx->mlen = rx->done;
				want = rx->rlen - rx->done;
			}
		}
		r = sock_rx_read(rx, st, p, want < room ? want : room);
		if (r <= 0) {
			return (int)r;
		}
		sock_rx_csum_add(rx, p, (size_t)r);
		rx->done += (unsigned int)r;
	}
	rx->state = SOCK_RX_KSOCK_HDR;
	if (sock_rx_csum_check(rx) != 0) {
		rx->ops.on_payload(rx->ops.ctx, rx->cookie, -EIO);
		return sock_rx_fail(rx, -EBADMSG, "LNET message checksum mismatch");
	}
	rx->ops.on_payload(rx->ops.ctx, rx->cookie, 0);
	return 1;
}

int
sock_rx_probe_stream(struct sock_rx *rx, struct sock_stream *st)
{
	ssize_t r;

	rx->drained = false; /* polled because readable, or to try again */
	r = sock_rx_recv_now(rx, st, rx->stage, sizeof(rx->stage)); /* sock_rx_restage(), in line */
	if (r > 0) {
		rx->stage_off = 0;
		rx->stage_len = (unsigned int)r;
		return 1;
	}
	return (int)r;
}

int
sock_rx_poll_stream(struct sock_rx *rx, struct sock_stream *st)
{
	/*
	 * Between messages with nothing staged, the next byte can only come
	 * from the socket: the recv that sock_rx_ksock_hdr() would reach through
	 * sock_rx_fill() and sock_rx_read() (into the stage: a ksock header is
	 * small), done here first, so a poll that finds the socket empty, the
	 * usual one, ends at once. V1 frames have no ksock header: not here.
	 */
	if (sock_rx_between(rx)) {
		int r = sock_rx_probe_stream(rx, st);

		if (r <= 0) {
			return r;
		}
		return sock_rx_resume_stream(rx, st);
	}
	rx->drained = false;
	return sock_rx_resume_stream(rx, st);
}

int
sock_rx_resume_stream(struct sock_rx *rx, struct sock_stream *st)
{
	/* A capture starts or stops between polls (socklnd_capture, on this lcore), not in one. */
	bool tapped = sock_tap_on(rx->tap);
	int moved = 0;

	for (;;) {
		int rc;

		switch (rx->state) {
		case SOCK_RX_KSOCK_HDR:
			rc = sock_rx_lnet_staged(rx, tapped);
			if (rc == 0) {
				rc = sock_rx_ksock_hdr(rx, st);
			}
			break;
		case SOCK_RX_LNET_HDR:
			rc = sock_rx_lnet_hdr(rx, st);
			break;
		case SOCK_RX_PAYLOAD:
			rc = sock_rx_payload(rx, st);
			break;
		case SOCK_RX_WAIT_SINK:
			return moved;
		default:
			return rx->error;
		}
		if (rc < 0) {
			return rc;
		}
		if (rc == 0) {
			return moved;
		}
		moved = 1;
	}
}

/* The fd-based calls: a kernel stream over @p fd (tests, the fuzzer). */
int
sock_rx_poll(struct sock_rx *rx, int fd)
{
	struct sock_stream st = sock_stream_of_fd(fd);

	return sock_rx_poll_stream(rx, &st);
}

int
sock_rx_probe(struct sock_rx *rx, int fd)
{
	struct sock_stream st = sock_stream_of_fd(fd);

	return sock_rx_probe_stream(rx, &st);
}

int
sock_rx_resume(struct sock_rx *rx, int fd)
{
	struct sock_stream st = sock_stream_of_fd(fd);

	return sock_rx_resume_stream(rx, &st);
}
