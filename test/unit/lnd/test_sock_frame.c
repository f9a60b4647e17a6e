/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ksocklnd framing over a socketpair: sock_tx writes, sock_rx reads. A
 * 1 MiB payload in uneven fragments with partial writes, NOOPs, a sink
 * shorter than the payload, the kernel's own GET frame, V1 and V4 framing,
 * garbage and a closed peer; a queue of messages written coalesced.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "sock_rx.h"
#include "sock_tx.h"

struct sink {
	struct sock_rx *rx;
	unsigned int noops;
	unsigned int lnets;
	unsigned int payloads;
	struct lnet_hdr hdr;
	struct ksock_msg km;
	struct ksock_msg noop_km;
	struct iovec iov[3];
	unsigned int mlen;
	bool defer; /* answer on_lnet later, as a lazy portal would */
	void *done_cookie;
	int want_status;         /* what on_payload must report */
	int refuse;              /* on_lnet's answer: 0, or -errno to refuse the header */
	struct lnet_hdr hdrs[8]; /* each header, in order */
};

static void
on_noop(void *ctx, const struct ksock_msg *km)
{
	struct sink *s = ctx;

	s->noops++;
	s->noop_km = *km;
}

static int
on_lnet(void *ctx, const struct ksock_msg *km, const struct lnet_hdr *hdr)
{
	struct sink *s = ctx;

	if (s->lnets < 8) {
		s->hdrs[s->lnets] = *hdr;
	}
	s->lnets++;
	s->km = *km;
	s->hdr = *hdr;
	if (s->refuse != 0) {
		return s->refuse;
	}
	if (!s->defer) {
		sock_rx_set_sink(s->rx, s->mlen != 0 ? s->iov : NULL, 3, 0, s->mlen,
				 hdr->payload_length, s);
	}
	return 0;
}

static void
on_payload(void *ctx, void *cookie, int status)
{
	struct sink *s = ctx;

	assert_int_equal(status, s->want_status);
	s->payloads++;
	s->done_cookie = cookie;
}

static void
pair(int fds[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
}

static struct lnet_hdr
put_hdr(unsigned int len)
{
	struct lnet_hdr h;

	memset(&h, 0, sizeof(h));
	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(2, 0), 0x0a000002), &h.dest_nid);
	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(2, 0), 0x0a000001), &h.src_nid);
	h.dest_pid = h.src_pid = 12345;
	h.type = LNET_MSG_PUT;
	h.payload_length = len;
	h.msg.put.match_bits = 0x77;
	memset(&h.msg.put.ack_wmd, 0xff, sizeof(h.msg.put.ack_wmd));
	return h;
}

static void
sink_init(struct sink *s, struct sock_rx *rx, const struct ksock_proto *p, uint8_t *buf,
	  unsigned int len)
{
	struct sock_rx_ops ops = { on_noop, on_lnet, on_payload, s };
	unsigned int a = len / 3;

	memset(s, 0, sizeof(*s));
	s->rx = rx;
	s->iov[0] = (struct iovec){ buf, a };
	s->iov[1] = (struct iovec){ buf + a, 1 };
	s->iov[2] = (struct iovec){ buf + a + 1, len - a - 1 };
	s->mlen = len;
	sock_rx_init(rx, p, false, &ops);
}

static void
test_large_fragmented_put(void **state)
{
	const unsigned int len = 1U << 20;
	uint8_t *src = malloc(len);
	uint8_t *dst = calloc(1, len);
	struct iovec siov[4] = {
		{ src, 1000 },
		{ src + 1000, 3 },
		{ src + 1003, 500000 },
		{ src + 501003, len - 501003 },
	};
	struct lnet_hdr h = put_hdr(len);
	struct sock_tx tx;
	struct sock_rx rx;
	struct sink s;
	int fds[2];
	int sent = 0;
	unsigned int i;

	(void)state;
	for (i = 0; i < len; i++) {
		src[i] = (uint8_t)(i * 7 + 3);
	}
	pair(fds);
	sink_init(&s, &rx, &ksock_proto_v3, dst, len);
	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, NULL, &h, siov, 4, 0, len, &h), 0);
	for (i = 0; i < 100000 && (sent != 1 || s.payloads == 0); i++) {
		if (sent != 1) {
			sent = sock_tx_send(&tx, fds[0], NULL);
			assert_true(sent >= 0);
		}
		assert_true(sock_rx_poll(&rx, fds[1]) >= 0);
	}
	assert_int_equal(sent, 1);
	assert_int_equal(s.lnets, 1);
	assert_int_equal(s.payloads, 1);
	assert_ptr_equal(s.done_cookie, &s);
	assert_int_equal(s.hdr.msg.put.match_bits, 0x77);
	assert_memory_equal(dst, src, len);
	assert_int_equal(rx.msgs, 1);
	assert_int_equal(rx.bytes, 24 + 72 + len);
	free(src);
	free(dst);
	close(fds[0]);
	close(fds[1]);
}

static void
test_noop_short_sink_and_deferred_answer(void **state)
{
	uint8_t src[100];
	uint8_t dst[100];
	struct iovec siov = { src, sizeof(src) };
	struct ksock_msg noop = { KSOCK_MSG_NOOP, 0, { 3, 9 } };
	struct lnet_hdr h = put_hdr(sizeof(src));
	struct sock_tx tx;
	struct sock_rx rx;
	struct sink s;
	int fds[2];

	(void)state;
	memset(src, 0x5a, sizeof(src));
	memset(dst, 0, sizeof(dst));
	pair(fds);
	sink_init(&s, &rx, &ksock_proto_v3, dst, 40); /* LNet takes 40 of 100 */
	s.defer = true;
	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, &noop, NULL, NULL, 0, 0, 0, NULL),
			 0);
	assert_int_equal(sock_tx_send(&tx, fds[0], NULL), 1);
	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, NULL, &h, &siov, 1, 0, 100, NULL),
			 0);
	assert_int_equal(sock_tx_send(&tx, fds[0], NULL), 1);
	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, &noop, NULL, NULL, 0, 0, 0, NULL),
			 0);
	assert_int_equal(sock_tx_send(&tx, fds[0], NULL), 1);
	assert_int_equal(sock_rx_poll(&rx, fds[1]), 1);
	assert_int_equal(s.noops, 1);
	assert_int_equal(s.noop_km.zc_cookies[0], 3);
	assert_int_equal(s.noop_km.zc_cookies[1], 9);
	assert_int_equal(s.lnets, 1);
	/* Waiting for LNet: nothing more is read, the second NOOP stays queued. */
	assert_int_equal(rx.state, SOCK_RX_WAIT_SINK);
	assert_int_equal(sock_rx_poll(&rx, fds[1]), 0);
	assert_int_equal(s.noops, 1);
	sock_rx_set_sink(&rx, s.iov, 3, 0, 40, 100, &s);
	assert_int_equal(sock_rx_poll(&rx, fds[1]), 1);
	assert_int_equal(s.payloads, 1);
	assert_int_equal(s.noops, 2); /* the rest was discarded, the stream kept in step */
	assert_memory_equal(dst, src, 40);
	assert_int_equal(dst[40], 0);
	close(fds[0]);
	close(fds[1]);
}

/* The kernel's ping GET (captures/kernel/s2_01 frame 12). */
static const uint8_t kernel_get[96] = {
	0xc1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x02, 0x00, 0xc0,
	0x00, 0x00, 0x02, 0x00, 0x0b, 0x02, 0x00, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x39, 0x30,
	0x00, 0x00, 0x39, 0x30, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x35, 0x9c, 0xdf, 0x96, 0x14, 0x5a, 0xea, 0x18, 0x0d, 0x1c, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x78, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void
test_kernel_frame_and_errors(void **state)
{
	uint8_t dst[8];
	struct sock_rx rx;
	struct sink s;
	int fds[2];
	uint8_t bad[24] = { 0xc5 };

	(void)state;
	pair(fds);
	sink_init(&s, &rx, &ksock_proto_v3, dst, 0);
	assert_int_equal(write(fds[0], kernel_get, sizeof(kernel_get)), 96);
	assert_int_equal(sock_rx_poll(&rx, fds[1]), 1);
	assert_int_equal(s.lnets, 1);
	assert_int_equal(s.payloads, 1); /* a GET has no payload */
	assert_int_equal(s.hdr.type, LNET_MSG_GET);
	assert_int_equal(s.hdr.msg.get.match_bits, LNET_PROTO_PING_MATCHBITS);
	/* Frames that arrived together come in with one recv(): no call per header. */
	{
		uint8_t three[3 * 96];

		memcpy(three, kernel_get, 96);
		memcpy(three + 96, kernel_get, 96);
		memcpy(three + 192, kernel_get, 96);
		assert_int_equal(write(fds[0], three, sizeof(three)), 288);
		rx.recvs = 0;
		assert_int_equal(sock_rx_poll(&rx, fds[1]), 1);
		assert_int_equal(s.lnets, 4);
		assert_int_equal(s.payloads, 4);
		assert_int_equal(rx.recvs, 1);
	}
	/* an unknown ksock message type ends the connection */
	assert_int_equal(write(fds[0], bad, sizeof(bad)), 24);
	assert_int_equal(sock_rx_poll(&rx, fds[1]), -EPROTO);
	assert_non_null(strstr(rx.why, "message type"));
	close(fds[0]);
	close(fds[1]);

	pair(fds); /* a malformed LNet header too */
	sink_init(&s, &rx, &ksock_proto_v3, dst, 0);
	{
		uint8_t f[96];

		memcpy(f, kernel_get, 96);
		f[24 + 24] = 9; /* LNet message type 9 */
		assert_int_equal(write(fds[0], f, 96), 96);
	}
	assert_int_equal(sock_rx_poll(&rx, fds[1]), -EPROTO);
	close(fds[0]);
	close(fds[1]);

	pair(fds); /* the peer closes mid-header */
	sink_init(&s, &rx, &ksock_proto_v3, dst, 0);
	assert_int_equal(write(fds[0], kernel_get, 50), 50);
	close(fds[0]);
	/* One short recv() says the socket is empty; the end shows at the next poll. */
	assert_int_equal(sock_rx_poll(&rx, fds[1]), 1);
	assert_int_equal(rx.recvs, 1);
	assert_int_equal(sock_rx_poll(&rx, fds[1]), -ECONNRESET);
	close(fds[1]);
}

static void
test_v1_and_v4_framing(void **state)
{
	static const struct ksock_proto *const protos[2] = { &ksock_proto_v1, &ksock_proto_v4 };
	uint8_t src[10] = "0123456789";
	uint8_t dst[10];
	struct iovec siov = { src, sizeof(src) };
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct lnet_hdr h = put_hdr(sizeof(src));
		struct sock_tx tx;
		struct sock_rx rx;
		struct sink s;
		int fds[2];

		memset(dst, 0, sizeof(dst));
		pair(fds);
		sink_init(&s, &rx, protos[i], dst, sizeof(dst));
		assert_int_equal(sock_tx_prepare(&tx, protos[i], NULL, &h, &siov, 1, 0, 10, NULL),
				 0);
		assert_int_equal(tx.hdr_len, protos[i]->msg_hdr_size + protos[i]->lnet_hdr_size);
		assert_int_equal(sock_tx_send(&tx, fds[0], NULL), 1);
		assert_int_equal(sock_rx_poll(&rx, fds[1]), 1);
		assert_int_equal(s.payloads, 1);
		assert_memory_equal(dst, src, 10);
		close(fds[0]);
		close(fds[1]);
	}
	/* V1 has no NOOP */
	{
		struct ksock_msg noop = { KSOCK_MSG_NOOP, 0, { 0, 1 } };
		struct sock_tx tx;

		assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v1, &noop, NULL, NULL, 0, 0, 0,
						 NULL),
				 -KSOCK_EINVAL);
	}
}

/* Frames for the coalescing test: NOOPs and PUTs whose payloads come in 3 fragments. */
#define COALESCE_MSGS 40

static void
coalesce_prepare(struct sock_tx *tx, uint8_t *payload, struct iovec iov[][3])
{
	struct ksock_msg noop = { KSOCK_MSG_NOOP, 0, { 0, 5 } };
	unsigned int i;

	for (i = 0; i < COALESCE_MSGS; i++) {
		unsigned int len = i * 37;
		struct lnet_hdr h = put_hdr(len);

		iov[i][0] = (struct iovec){ payload, len / 2 };
		iov[i][1] = (struct iovec){ payload + len / 2, len / 4 };
		iov[i][2] = (struct iovec){ payload + len / 2 + len / 4, len - len / 2 - len / 4 };
		if (i % 5 == 4) {
			assert_int_equal(sock_tx_prepare(&tx[i], &ksock_proto_v3, &noop, NULL, NULL,
							 0, 0, 0, NULL),
					 0);
		} else {
			assert_int_equal(sock_tx_prepare(&tx[i], &ksock_proto_v3, NULL, &h, iov[i],
							 3, 0, len, NULL),
					 0);
		}
	}
}

static size_t
drain(int fd, uint8_t *buf, size_t have, size_t cap)
{
	ssize_t n;

	while (have < cap && (n = read(fd, buf + have, cap - have)) > 0) {
		have += (size_t)n;
	}
	return have;
}

/*
 * Queued messages go out coalesced (4 fragments each, 128 per sendmsg: 40
 * messages in 2 calls), and the stream is byte for byte what one write per
 * message gives, also when the socket takes only part of a batch.
 */
static void
test_coalesced_queue(void **state)
{
	static uint8_t payload[COALESCE_MSGS * 37];
	static uint8_t one_by_one[1 << 17];
	static uint8_t coalesced[1 << 17];
	static struct iovec iov[COALESCE_MSGS][3];
	struct sock_tx tx[COALESCE_MSGS];
	int small = 4096;
	int round;

	(void)state;
	for (size_t i = 0; i < sizeof(payload); i++) {
		payload[i] = (uint8_t)(i * 7 + 1);
	}
	for (round = 0; round < 2; round++) {
		struct sock_tx_list q = TAILQ_HEAD_INITIALIZER(q);
		size_t want = 0;
		size_t got = 0;
		unsigned int completed = 0;
		unsigned int calls = 0;
		int a[2];
		int b[2];
		int i;

		pair(a);
		pair(b);
		coalesce_prepare(tx, payload, iov);
		for (i = 0; i < COALESCE_MSGS; i++) {
			assert_int_equal(sock_tx_send(&tx[i], a[0], NULL), 1);
			want = drain(a[1], one_by_one, want, sizeof(one_by_one));
		}
		coalesce_prepare(tx, payload, iov);
		for (i = 0; i < COALESCE_MSGS; i++) {
			TAILQ_INSERT_TAIL(&q, &tx[i], link);
		}
		if (round == 1) {
			assert_int_equal(setsockopt(b[0], SOL_SOCKET, SO_SNDBUF, &small,
						    sizeof(small)),
					 0);
		}
		while (!TAILQ_EMPTY(&q)) {
			unsigned int done;
			int rc = sock_txq_send(&q, b[0], NULL, &done);

			assert_true(rc >= 0);
			calls++;
			completed += done;
			while (done-- > 0) {
				struct sock_tx *t = TAILQ_FIRST(&q);

				assert_int_equal(t->sent, t->hdr_len + t->len);
				TAILQ_REMOVE(&q, t, link);
			}
			/* A message not yet whole on the wire stays at the head. */
			if (!TAILQ_EMPTY(&q)) {
				assert_true(TAILQ_FIRST(&q)->sent <
					    TAILQ_FIRST(&q)->hdr_len + TAILQ_FIRST(&q)->len);
			}
			got = drain(b[1], coalesced, got, sizeof(coalesced));
		}
		assert_int_equal(completed, COALESCE_MSGS);
		assert_int_equal(got, want);
		assert_memory_equal(coalesced, one_by_one, want);
		if (round == 0) {
			assert_int_equal(
				calls,
				2); /* 31 PUTs x 4 + an empty PUT + 8 NOOPs = 133 fragments */
		} else {
			assert_true(calls > 2);
		}
		close(a[0]);
		close(a[1]);
		close(b[0]);
		close(b[1]);
	}
}

/*
 * ksm_csum: a checksummed PUT (part of it discarded by LNet) is checked
 * and taken; one with a payload byte changed on the way completes with
 * -EIO and ends the stream with -EBADMSG; so does a NOOP with a bad sum.
 */
static void
test_checksums(void **state)
{
	static uint8_t src[3000];
	static uint8_t dst[3000];
	struct iovec siov[2] = { { src, 1000 }, { src + 1000, 2000 } };
	struct ksock_msg noop = { KSOCK_MSG_NOOP, 0, { 0, 1 } };
	struct lnet_hdr h = put_hdr(sizeof(src));
	uint8_t wire[24 + 72 + sizeof(src)];
	struct sock_tx tx;
	struct sock_rx rx;
	struct sink s;
	uint32_t csum;
	int fds[2];
	int round;

	(void)state;
	for (size_t i = 0; i < sizeof(src); i++) {
		src[i] = (uint8_t)(i * 13 + 5);
	}
	for (round = 0; round < 2; round++) {
		pair(fds);
		sink_init(&s, &rx, &ksock_proto_v3, dst, 2000); /* LNet takes 2000 of 3000 */
		assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, NULL, &h, siov, 2, 0,
						 sizeof(src), NULL),
				 0);
		assert_int_equal(sock_tx_checksum(&tx), 0);
		memcpy(&csum, tx.hdr + KSOCK_CSUM_OFFSET, 4);
		assert_int_not_equal(csum, 0);
		/* the whole frame's crc32_le, as a kernel receiver computes it */
		memcpy(wire, tx.hdr, 96);
		memset(wire + KSOCK_CSUM_OFFSET, 0, 4);
		memcpy(wire + 96, src, sizeof(src));
		assert_int_equal(csum, ksock_csum_final(ksock_csum_update(0, wire, sizeof(wire))));
		if (round == 1) {
			src[2500] ^= 1; /* corrupted after the sum was taken */
		}
		assert_int_equal(sock_tx_send(&tx, fds[0], NULL), 1);
		s.want_status = round == 0 ? 0 : -EIO;
		if (round == 0) {
			assert_int_equal(sock_rx_poll(&rx, fds[1]), 1);
			assert_int_equal(rx.csum_checked, 1);
			assert_memory_equal(dst, src, 2000);
		} else {
			assert_int_equal(sock_rx_poll(&rx, fds[1]), -EBADMSG);
			src[2500] ^= 1;
		}
		assert_int_equal(s.payloads, 1);
		close(fds[0]);
		close(fds[1]);
	}
	/* A NOOP whose sum is wrong. */
	pair(fds);
	sink_init(&s, &rx, &ksock_proto_v3, dst, 0);
	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, &noop, NULL, NULL, 0, 0, 0, NULL),
			 0);
	assert_int_equal(sock_tx_checksum(&tx), 0);
	tx.hdr[KSOCK_CSUM_OFFSET] ^= 0x40;
	assert_int_equal(sock_tx_send(&tx, fds[0], NULL), 1);
	assert_int_equal(sock_rx_poll(&rx, fds[1]), -EBADMSG);
	assert_int_equal(s.noops, 0);
	close(fds[0]);
	close(fds[1]);
}

/* What a tap saw of the stream: its bytes, and where it was told messages start. */
struct tap_log {
	uint8_t bytes[1024];
	size_t n;
	size_t starts[16];
	unsigned int nstarts;
};

static void
tap_record(void *ctx, bool out, bool boundary, const struct iovec *iov, int iovcnt, size_t n)
{
	struct tap_log *t = ctx;
	size_t left = n;

	assert_false(out);
	if (boundary) {
		assert_true(t->nstarts < 16);
		t->starts[t->nstarts++] = t->n;
	}
	for (int i = 0; i < iovcnt && left > 0; i++) {
		size_t k = iov[i].iov_len < left ? iov[i].iov_len : left;

		assert_true(t->n + k <= sizeof(t->bytes));
		memcpy(t->bytes + t->n, iov[i].iov_base, k);
		t->n += k;
		left -= k;
	}
}

/*
 * Headers read whole from the stage (one recv brought the lot) and headers
 * split across recvs (the bytes trickle in): the same messages, and the tap
 * sees the same stream with a start at each message, either way.
 */
static void
test_headers_staged_or_split(void **state)
{
	static uint8_t src[100];
	static uint8_t dst[100];
	struct iovec siov[1] = { { src, sizeof(src) } };
	struct ksock_msg noop = { KSOCK_MSG_NOOP, 0, { 0, 1 } };
	struct lnet_hdr h = put_hdr(sizeof(src));
	struct lnet_hdr ack = put_hdr(0);
	uint8_t wire[1024];
	size_t wlen = 0;
	size_t starts[3];
	struct sock_tx tx;
	int round;

	(void)state;
	ack.type = LNET_MSG_ACK;
	for (size_t i = 0; i < sizeof(src); i++) {
		src[i] = (uint8_t)(i * 7 + 1);
	}
	/* The stream: an ACK (headers only), a NOOP, a PUT with 100 bytes. */
	starts[0] = wlen;
	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, NULL, &ack, NULL, 0, 0, 0, NULL), 0);
	memcpy(wire + wlen, tx.hdr, tx.hdr_len);
	wlen += tx.hdr_len;
	starts[1] = wlen;
	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, &noop, NULL, NULL, 0, 0, 0, NULL),
			 0);
	memcpy(wire + wlen, tx.hdr, tx.hdr_len);
	wlen += tx.hdr_len;
	starts[2] = wlen;
	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, NULL, &h, siov, 1, 0, sizeof(src),
					 NULL),
			 0);
	memcpy(wire + wlen, tx.hdr, tx.hdr_len);
	wlen += tx.hdr_len;
	memcpy(wire + wlen, src, sizeof(src));
	wlen += sizeof(src);

	for (round = 0; round < 2; round++) {
		size_t chunk =
			round == 0 ? wlen : 7; /* 7: every header split, some more than once */
		struct tap_log log = { 0 };
		struct sock_tap tap = { tap_record, &log, NULL };
		struct sock_rx rx;
		struct sink s;
		size_t off = 0;
		int fds[2];

		pair(fds);
		sink_init(&s, &rx, &ksock_proto_v3, dst, sizeof(dst));
		rx.tap = &tap;
		memset(dst, 0, sizeof(dst));
		while (off < wlen) {
			size_t k = wlen - off < chunk ? wlen - off : chunk;

			assert_int_equal(write(fds[0], wire + off, k), (ssize_t)k);
			off += k;
			assert_true(sock_rx_poll(&rx, fds[1]) >= 0);
		}
		assert_int_equal(s.lnets, 2);
		assert_int_equal(s.noops, 1);
		assert_int_equal(s.payloads, 2);
		assert_int_equal(s.hdr.type, LNET_MSG_PUT);
		assert_int_equal(s.hdr.payload_length, sizeof(src));
		assert_int_equal(s.hdr.msg.put.match_bits, 0x77);
		assert_true(lnet_nid_same(&s.hdr.src_nid, &h.src_nid));
		assert_int_equal(s.noop_km.zc_cookies[1], 1);
		assert_memory_equal(dst, src, sizeof(src));
		assert_int_equal(rx.bytes, wlen);
		assert_int_equal(log.n, wlen);
		assert_memory_equal(log.bytes, wire, wlen);
		assert_int_equal(log.nstarts, 3);
		assert_memory_equal(log.starts, starts, sizeof(starts));
		assert_int_equal(rx.state, SOCK_RX_KSOCK_HDR);
		close(fds[0]);
		close(fds[1]);
	}
}

/*
 * A payload in one fragment of a larger buffer (an offset in, ending short
 * of its end), 512 KiB so the socket takes it in pieces: every piece resumes
 * at the right byte, in sock_tx_send and in a coalesced sock_txq_send; a
 * fragment too short for offset + len is refused as before.
 */
static void
test_single_fragment_offset(void **state)
{
	const unsigned int len = 512U << 10;
	const unsigned int off = 777;
	uint8_t *buf = malloc(off + len + 100);
	uint8_t *dst = calloc(1, len);
	struct iovec one = { buf, off + len + 100 };
	struct iovec shorter = { buf, 0 };
	struct lnet_hdr h = put_hdr(len);
	struct sock_tx_list q = TAILQ_HEAD_INITIALIZER(q);
	struct sock_tx tx;
	struct sock_rx rx;
	struct sink s;
	int fds[2];
	int round;
	unsigned int i;

	(void)state;
	for (i = 0; i < off + len + 100; i++) {
		buf[i] = (uint8_t)(i * 11 + 5);
	}
	for (round = 0; round < 2; round++) {
		int sent = 0;

		pair(fds);
		memset(dst, 0, len);
		sink_init(&s, &rx, &ksock_proto_v3, dst, len);
		assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, NULL, &h, &one, 1, off, len,
						 &h),
				 0);
		if (round == 1) {
			TAILQ_INSERT_TAIL(&q, &tx, link);
		}
		for (i = 0; i < 100000 && (sent != 1 || s.payloads == 0); i++) {
			if (sent != 1 && round == 0) {
				sent = sock_tx_send(&tx, fds[0], NULL);
			} else if (sent != 1) {
				unsigned int done = 0;

				sent = sock_txq_send(&q, fds[0], NULL, &done);
				if (done == 1) {
					TAILQ_REMOVE(&q, &tx, link);
				}
			}
			assert_true(sent >= 0);
			assert_true(sock_rx_poll(&rx, fds[1]) >= 0);
		}
		assert_int_equal(sent, 1);
		assert_int_equal(tx.sent, 24 + 72 + len);
		assert_int_equal(s.payloads, 1);
		assert_memory_equal(dst, buf + off, len);
		assert_true(TAILQ_EMPTY(&q));
		close(fds[0]);
		close(fds[1]);
	}
	/* The fragment ends one byte short of offset + len: all but that byte, then -EINVAL. */
	pair(fds);
	h = put_hdr(100);
	shorter.iov_len = off + 100 - 1;
	assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, NULL, &h, &shorter, 1, off, 100, &h),
			 0);
	assert_int_equal(sock_tx_send(&tx, fds[0], NULL), -EINVAL);
	assert_int_equal(tx.sent, 24 + 72 + 99);
	close(fds[0]);
	close(fds[1]);
	free(buf);
	free(dst);
}

/*
 * Small messages whose headers lie whole in the stage, nothing tapping the
 * stream: decoded in one step (ACKs complete at once). Written in every
 * chunk size, so each header is split at every byte once; a NOOP and a PUT
 * with a payload in between go the usual way; a tap whose capture is off
 * sees nothing and changes nothing; an answer LNet defers holds the rest;
 * a header LNet refuses ends the stream.
 */
static void
test_staged_headers_fast(void **state)
{
	static uint8_t src[100];
	static uint8_t dst[100];
	struct iovec siov[1] = { { src, sizeof(src) } };
	struct ksock_msg noop = { KSOCK_MSG_NOOP, 0, { 0, 1 } };
	struct lnet_hdr h = put_hdr(sizeof(src));
	struct lnet_hdr ack = put_hdr(0);
	uint8_t wire[2048];
	size_t wlen = 0;
	struct sock_tx tx;
	size_t chunk;
	int i;

	(void)state;
	ack.type = LNET_MSG_ACK;
	for (size_t k = 0; k < sizeof(src); k++) {
		src[k] = (uint8_t)(k * 5 + 3);
	}
	/* ACK x3, NOOP, PUT with 100 bytes, ACK x2: a different match_bits each. */
	for (i = 0; i < 7; i++) {
		struct lnet_hdr *m = i == 4 ? &h : &ack;

		m->msg.ack.match_bits =
			100 + (uint64_t)i; /* ack and put keep match_bits in one place */
		if (i == 3) {
			assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, &noop, NULL, NULL, 0,
							 0, 0, NULL),
					 0);
		} else if (i == 4) {
			h.msg.put.match_bits = 104;
			assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, NULL, &h, siov, 1, 0,
							 sizeof(src), NULL),
					 0);
		} else {
			assert_int_equal(sock_tx_prepare(&tx, &ksock_proto_v3, NULL, &ack, NULL, 0,
							 0, 0, NULL),
					 0);
		}
		memcpy(wire + wlen, tx.hdr, tx.hdr_len);
		wlen += tx.hdr_len;
		if (i == 4) {
			memcpy(wire + wlen, src, sizeof(src));
			wlen += sizeof(src);
		}
	}
	for (chunk = 1; chunk <= wlen; chunk++) {
		struct lnet_pcap *off_cap = NULL;
		struct tap_log log = { 0 };
		struct sock_tap tap = { tap_record, &log, &off_cap };
		struct sock_rx rx;
		struct sink s;
		size_t off = 0;
		int fds[2];

		pair(fds);
		sink_init(&s, &rx, &ksock_proto_v3, dst, sizeof(dst));
		if (chunk % 2 == 0) {
			rx.tap = &tap; /* there, its capture off */
		}
		memset(dst, 0, sizeof(dst));
		while (off < wlen) {
			size_t k = wlen - off < chunk ? wlen - off : chunk;

			assert_int_equal(write(fds[0], wire + off, k), (ssize_t)k);
			off += k;
			assert_true(sock_rx_poll(&rx, fds[1]) >= 0);
		}
		assert_int_equal(s.lnets, 6);
		assert_int_equal(s.noops, 1);
		assert_int_equal(s.payloads, 6);
		for (i = 0; i < 6; i++) {
			unsigned int w = i < 3 ? (unsigned int)i : (unsigned int)i + 1;

			assert_int_equal(s.hdrs[i].type, w == 4 ? LNET_MSG_PUT : LNET_MSG_ACK);
			assert_int_equal(s.hdrs[i].msg.ack.match_bits, 100 + w);
			assert_true(lnet_nid_same(&s.hdrs[i].src_nid, &h.src_nid));
		}
		assert_memory_equal(dst, src, sizeof(src));
		assert_int_equal(rx.bytes, wlen);
		assert_int_equal(rx.msgs, 6);
		assert_int_equal(log.n, 0);
		assert_int_equal(rx.state, SOCK_RX_KSOCK_HDR);
		assert_false(sock_rx_staged(&rx));
		close(fds[0]);
		close(fds[1]);
	}

	/* Deferred: the first ACK waits for LNet, the rest stays staged until it answers. */
	{
		struct sock_rx rx;
		struct sink s;
		int fds[2];

		pair(fds);
		sink_init(&s, &rx, &ksock_proto_v3, dst, sizeof(dst));
		s.defer = true;
		assert_int_equal(write(fds[0], wire, 3 * 96), 3 * 96);
		assert_int_equal(sock_rx_poll(&rx, fds[1]), 1);
		assert_int_equal(s.lnets, 1);
		assert_int_equal(s.payloads, 0);
		assert_int_equal(rx.state, SOCK_RX_WAIT_SINK);
		assert_true(sock_rx_staged(&rx));
		assert_int_equal(sock_rx_poll(&rx, fds[1]), 0);
		s.defer = false;
		sock_rx_set_sink(&rx, NULL, 0, 0, 0, 0, &s);
		assert_int_equal(sock_rx_poll(&rx, fds[1]), 1);
		assert_int_equal(s.lnets, 3);
		assert_int_equal(s.payloads, 3);
		assert_ptr_equal(s.done_cookie, &s);
		assert_int_equal(s.hdrs[2].msg.ack.match_bits, 102);
		close(fds[0]);
		close(fds[1]);
	}

	/* Refused: the poll says why, and nothing after it is read. */
	{
		struct sock_rx rx;
		struct sink s;
		int fds[2];

		pair(fds);
		sink_init(&s, &rx, &ksock_proto_v3, dst, sizeof(dst));
		s.refuse = -EPROTO;
		assert_int_equal(write(fds[0], wire, 2 * 96), 2 * 96);
		assert_int_equal(sock_rx_poll(&rx, fds[1]), -EPROTO);
		assert_int_equal(s.lnets, 1);
		assert_int_equal(s.payloads, 0);
		assert_int_equal(rx.state, SOCK_RX_FAILED);
		assert_non_null(strstr(rx.why, "refused"));
		assert_int_equal(sock_rx_poll(&rx, fds[1]), -EPROTO);
		assert_int_equal(s.lnets, 1);
		close(fds[0]);
		close(fds[1]);
	}
}

/*
 * sock_rx_probe() + sock_rx_resume() is sock_rx_poll(): an empty socket
 * ends at the probe (0, nothing moved); bytes go on in resume, a short
 * recv still counting as the socket drained (no second recv); half a
 * header waits for the rest; a closed peer fails in the probe and resume
 * says so again.
 */
static void
test_probe_then_resume(void **state)
{
	uint8_t dst[8];
	struct sock_rx rx;
	struct sink s;
	int fds[2];

	(void)state;
	pair(fds);
	sink_init(&s, &rx, &ksock_proto_v3, dst, 0);
	assert_true(sock_rx_between(&rx));
	assert_int_equal(sock_rx_probe(&rx, fds[1]), 0);
	assert_int_equal(rx.recvs, 0);
	assert_true(sock_rx_between(&rx));
	/* Two frames: one recv brings both, resume takes them without another. */
	assert_int_equal(write(fds[0], kernel_get, 96), 96);
	assert_int_equal(write(fds[0], kernel_get, 96), 96);
	assert_int_equal(sock_rx_probe(&rx, fds[1]), 1);
	assert_int_equal(sock_rx_resume(&rx, fds[1]), 1);
	assert_int_equal(s.lnets, 2);
	assert_int_equal(s.payloads, 2);
	assert_int_equal(rx.recvs, 1);
	assert_true(sock_rx_between(&rx));
	/* Half a header: resume waits; the rest comes through sock_rx_poll(). */
	assert_int_equal(write(fds[0], kernel_get, 20), 20);
	assert_int_equal(sock_rx_probe(&rx, fds[1]), 1);
	assert_int_equal(sock_rx_resume(&rx, fds[1]), 0);
	assert_false(sock_rx_between(&rx));
	assert_int_equal(write(fds[0], kernel_get + 20, 76), 76);
	assert_int_equal(sock_rx_poll(&rx, fds[1]), 1);
	assert_int_equal(s.lnets, 3);
	assert_int_equal(s.payloads, 3);
	assert_true(sock_rx_between(&rx));
	/* The peer closes. */
	close(fds[0]);
	assert_int_equal(sock_rx_probe(&rx, fds[1]), -ECONNRESET);
	assert_int_equal(sock_rx_resume(&rx, fds[1]), -ECONNRESET);
	assert_int_equal(rx.state, SOCK_RX_FAILED);
	close(fds[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_large_fragmented_put),
		cmocka_unit_test(test_noop_short_sink_and_deferred_answer),
		cmocka_unit_test(test_kernel_frame_and_errors),
		cmocka_unit_test(test_v1_and_v4_framing),
		cmocka_unit_test(test_coalesced_queue),
		cmocka_unit_test(test_checksums),
		cmocka_unit_test(test_headers_staged_or_split),
		cmocka_unit_test(test_single_fragment_offset),
		cmocka_unit_test(test_staged_headers_fast),
		cmocka_unit_test(test_probe_then_resume),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
