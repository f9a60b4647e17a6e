/* SPDX-License-Identifier: BSD-3-Clause */
/* Transmit framing (see sock_tx.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "sock_tx.h"

int
sock_tx_prepare(struct sock_tx *tx, const struct ksock_proto *proto, const struct ksock_msg *km,
		const struct lnet_hdr *hdr, const struct iovec *iov, unsigned int niov,
		unsigned int offset, unsigned int len, void *cookie)
{
	static const struct ksock_msg lnet = { KSOCK_MSG_LNET, 0, { 0, 0 } };
	/* ksock_msg_hdr_encode() of it, done once: an LNET message without ZC cookies. */
	static const struct ksock_msg_hdr lnet_w = { KSOCK_MSG_LNET, 0, { 0, 0 } };
	size_t n = 0;

	/* Every field but the header bytes, which the encoders write up to hdr_len. */
	tx->hdr_len = 0;
	tx->sent = 0;
	tx->end = 0;
	tx->requeued = false;
	if (proto->msg_hdr_size != 0) {
		if (km == NULL && proto->msg_hdr_size == sizeof(lnet_w)) {
			memcpy(tx->hdr, &lnet_w, sizeof(lnet_w));
		} else if (ksock_msg_hdr_encode(km != NULL ? km : &lnet, tx->hdr,
						sizeof(tx->hdr)) != 0) {
			return -KSOCK_EINVAL;
		}
		n = proto->msg_hdr_size;
	}
	if (km == NULL) {
		km = &lnet;
	}
	if (hdr != NULL) {
		if (proto->lnet_hdr_encode(hdr, tx->hdr + n, sizeof(tx->hdr) - n) != 0) {
			return -KSOCK_EINVAL;
		}
		n += proto->lnet_hdr_size;
	} else if (km->type != KSOCK_MSG_NOOP || proto->msg_hdr_size == 0) {
		return -KSOCK_EINVAL; /* only V2+ NOOPs go without an LNet header */
	}
	tx->hdr_len = n;
	tx->iov = iov;
	tx->niov = iov == NULL ? 0 : niov;
	tx->offset = offset;
	tx->len = iov == NULL ? 0 : len;
	tx->cookie = cookie;
	return 0;
}

/* The payload's pieces from its byte @skip on: at most @max iovecs. */
static __attribute__((noinline)) int
sock_tx_payload_iov_walk(const struct sock_tx *tx, size_t skip, struct iovec *out, int max,
			 size_t *bytes)
{
	size_t off = (size_t)tx->offset + skip;
	size_t left = tx->len - skip;
	unsigned int i;
	int n = 0;

	*bytes = 0;

	for (i = 0; i < tx->niov && left > 0 && n < max; i++) {
		size_t take;

		if (off >= tx->iov[i].iov_len) {
			off -= tx->iov[i].iov_len;
			continue;
		}
		take = tx->iov[i].iov_len - off;
		take = take < left ? take : left;
		out[n].iov_base = (char *)tx->iov[i].iov_base + off;
		out[n++].iov_len = take;
		*bytes += take;
		left -= take;
		off = 0;
	}
	return n;
}

/*
 * sock_tx_payload_iov_walk(), without the walk when the payload lies in one
 * fragment (an LNet MD of one buffer: the usual case): the same iovec.
 * *@p bytes: how many the iovecs hold.
 */
static inline int
sock_tx_payload_iov(const struct sock_tx *tx, size_t skip, struct iovec *out, int max,
		    size_t *bytes)
{
	if (tx->niov == 1 && (size_t)tx->offset + tx->len <= tx->iov[0].iov_len) {
		if (skip >= tx->len || max <= 0) {
			*bytes = 0;
			return 0;
		}
		out[0].iov_base = (char *)tx->iov[0].iov_base + tx->offset + skip;
		out[0].iov_len = tx->len - skip;
		*bytes = tx->len - skip;
		return 1;
	}
	return sock_tx_payload_iov_walk(tx, skip, out, max, bytes);
}

/*
 * The iovecs still to write (at most @max), starting at byte tx->sent of the
 * frame. *@p bytes: how many they hold.
 */
static int
sock_tx_iov(const struct sock_tx *tx, struct iovec *out, int max, size_t *bytes)
{
	size_t skip = tx->sent;
	size_t head = 0;
	int n = 0;

	*bytes = 0;
	if (max <= 0) {
		return 0;
	}
	if (skip < tx->hdr_len) {
		head = tx->hdr_len - skip;
		out[n].iov_base = (void *)(tx->hdr + skip);
		out[n++].iov_len = head;
		skip = 0;
	} else {
		skip -= tx->hdr_len;
	}
	n += sock_tx_payload_iov(tx, skip, out + n, max - n, bytes);
	*bytes += head;
	return n;
}

int
sock_tx_checksum(struct sock_tx *tx)
{
	struct iovec v[SOCK_TX_MAX_IOV];
	size_t done = 0;
	uint32_t run;
	uint32_t csum;

	if (tx->hdr_len < sizeof(struct ksock_msg_hdr) || tx->sent != 0) {
		return -KSOCK_EINVAL;
	}
	run = ksock_csum_msg_hdr(tx->hdr);
	run = ksock_csum_update(run, tx->hdr + sizeof(struct ksock_msg_hdr),
				tx->hdr_len - sizeof(struct ksock_msg_hdr));
	while (done < tx->len) {
		size_t bytes;
		int n = sock_tx_payload_iov(tx, done, v, SOCK_TX_MAX_IOV, &bytes);
		int i;

		if (n == 0) {
			return -KSOCK_EINVAL; /* the fragments are shorter than len */
		}
		for (i = 0; i < n; i++) {
			run = ksock_csum_update(run, v[i].iov_base, v[i].iov_len);
			done += v[i].iov_len;
		}
	}
	csum = ksock_csum_final(run);
	memcpy(tx->hdr + KSOCK_CSUM_OFFSET, &csum, sizeof(csum)); /* native order, as the header */
	return 0;
}

int
sock_tx_send_stream(struct sock_tx *tx, struct sock_stream *st, const struct sock_tap *tap)
{
	size_t total = tx->hdr_len + tx->len;

	while (tx->sent < total) {
		struct iovec v[SOCK_TX_MAX_IOV];
		size_t bytes;
		int nv = sock_tx_iov(tx, v, SOCK_TX_MAX_IOV, &bytes);
		ssize_t n;

		if (nv == 0) {
			return -EINVAL; /* the payload fragments are shorter than len */
		}
		n = sock_stream_sendv(st, v, nv);
		sock_tap_io(tap, true, tx->sent == 0, v, nv, n);
		if (n <= 0) {
			return (int)n; /* 0: full, wait */
		}
		tx->sent += (size_t)n;
	}
	return 1;
}

int
sock_tx_send(struct sock_tx *tx, int fd, const struct sock_tap *tap)
{
	struct sock_stream st = sock_stream_of_fd(fd);

	return sock_tx_send_stream(tx, &st, tap);
}

static size_t
sock_tx_left(const struct sock_tx *tx)
{
	return tx->hdr_len + tx->len - tx->sent;
}

/*
 * The fragments of the queue's head messages: whole ones, then part of one at
 * most. *@p offered: the bytes they hold.
 */
static int
sock_txq_gather(struct sock_tx_list *q, struct iovec *v, size_t *offered)
{
	struct sock_tx *tx;
	int n = 0;

	*offered = 0;
	TAILQ_FOREACH(tx, q, link) {
		size_t got;

		n += sock_tx_iov(tx, v + n, SOCK_TX_MAX_IOV - n, &got);
		*offered += got;
		if (got < sock_tx_left(tx)) {
			break; /* out of fragments; the rest of it goes next time */
		}
		if (n == SOCK_TX_MAX_IOV) {
			break;
		}
	}
	return n;
}

int
sock_txq_send_stream(struct sock_tx_list *q, struct sock_stream *st, const struct sock_tap *tap,
		     unsigned int *done)
{
	struct iovec v[SOCK_TX_MAX_IOV];
	int nv;
	struct sock_tx *tx;
	struct sock_tx *head = TAILQ_FIRST(q);
	size_t offered;
	size_t wrote;
	ssize_t n;

	*done = 0;
	if (head == NULL) {
		return 1;
	}
	nv = sock_txq_gather(q, v, &offered);
	if (nv == 0) {
		return -EINVAL; /* the head's payload fragments are shorter than its len */
	}
	n = sock_stream_sendv(st, v, nv);
	sock_tap_io(tap, true, head->sent == 0, v, nv, n);
	if (n <= 0) {
		return (int)n; /* 0: full, wait */
	}
	wrote = (size_t)n;
	TAILQ_FOREACH(tx, q, link) {
		size_t left = sock_tx_left(tx);

		if (wrote < left) {
			tx->sent += wrote;
			break;
		}
		tx->sent += left;
		wrote -= left;
		(*done)++;
		if (wrote == 0) {
			break;
		}
	}
	return (size_t)n == offered ? 1 : 0;
}

int
sock_txq_send(struct sock_tx_list *q, int fd, const struct sock_tap *tap, unsigned int *done)
{
	struct sock_stream st = sock_stream_of_fd(fd);

	return sock_txq_send_stream(q, &st, tap, done);
}
