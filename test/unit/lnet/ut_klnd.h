/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A LND standing for a socklnd connection to a kernel peer, for unit tests:
 * everything LNet sends is recorded (header and payload) and completed at
 * once; what the test delivers with ut_parse() is received from g_k.rx.
 */
#ifndef UT_KLND_H
#define UT_KLND_H

#include "lnet_ut.h"

#define SENT_MAX 128

struct sent {
	struct lnet_hdr hdr;
	uint8_t payload[4096];
	unsigned int len;
};

static struct {
	struct sent sent[SENT_MAX];
	unsigned int nsent;
	const uint8_t *rx; /* payload of the message being parsed */
	unsigned int rx_len;
	struct lnet_ni *ni;
} g_k;

static int
k_startup(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

static void
k_shutdown(struct lnet_ni *ni)
{
	(void)ni;
}

static int
k_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	struct sent *s = &g_k.sent[g_k.nsent % SENT_MAX];
	const struct iovec *iov;
	struct iovec dst = { s->payload, sizeof(s->payload) };
	unsigned int niov;
	unsigned int off;
	unsigned int len;

	(void)ni;
	s->hdr = *lnet_msg_hdr(msg);
	lnet_msg_payload(msg, &niov, &iov, &off, &len);
	assert_true(len <= sizeof(s->payload));
	lnet_iov_copy(&dst, 1, 0, iov, niov, off, len);
	s->len = len;
	g_k.nsent++;
	lnet_finalize(msg, 0);
	return 0;
}

static int
k_recv(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
       const struct iovec *iov, unsigned int offset, unsigned int mlen, unsigned int rlen)
{
	struct iovec src = { (void *)g_k.rx, g_k.rx_len };

	(void)ni;
	(void)private;
	assert_true(rlen == g_k.rx_len);
	if (msg == NULL) {
		return 0;
	}
	if (mlen != 0) {
		lnet_iov_copy(iov, niov, offset, &src, 1, 0, mlen);
	}
	lnet_finalize(msg, 0);
	return 0;
}

static const struct lnet_lnd_ops k_ops __attribute__((unused)) = {
	.name = "kpeer",
	.type = 0xfd,
	.startup = k_startup,
	.shutdown = k_shutdown,
	.send = k_send,
	.recv = k_recv,
};

#endif /* UT_KLND_H */
