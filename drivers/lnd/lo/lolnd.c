/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loopback LND (0@lo, and every message a node sends to itself): send
 * hands the header straight back to lnet_parse with the outgoing message as
 * the LND cookie; recv copies the payload from it and completes both.
 * The header never crossed a wire: LNet built it, so of lnet_parse's
 * checks only the payload limit can fail, and send makes that one itself.
 */
#include <errno.h>
#include <stddef.h>

#include "lnet_lnd.h"

static int
lolnd_startup(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

static void
lolnd_shutdown(struct lnet_ni *ni)
{
	(void)ni;
}

static int
lolnd_send(struct lnet_ni *ni, struct lnet_msg *tx)
{
	const struct lnet_hdr *hdr = lnet_msg_hdr(tx);

	if (hdr->payload_length > LNET_MTU) {
		return -EPROTO; /* as lnet_parse refuses it from a wire, and the kernel's lolnd */
	}
	return lnet_parse(ni, hdr, lnet_ni_nid(ni), tx);
}

static int
lolnd_recv(struct lnet_ni *ni, void *private, struct lnet_msg *rx, unsigned int niov,
	   const struct iovec *iov, unsigned int offset, unsigned int mlen, unsigned int rlen)
{
	struct lnet_msg *tx = private;
	const struct iovec *src_iov;
	unsigned int src_niov;
	unsigned int src_off;
	unsigned int src_len;

	(void)ni;
	(void)rlen;
	if (rx != NULL && mlen != 0) {
		lnet_msg_payload(tx, &src_niov, &src_iov, &src_off, &src_len);
		lnet_iov_copy(iov, niov, offset, src_iov, src_niov, src_off,
			      mlen < src_len ? mlen : src_len);
	}
	/* The sender completes first, so its SEND precedes any ACK/REPLY. */
	lnet_finalize(tx, 0);
	if (rx != NULL) {
		lnet_finalize(rx, 0);
	}
	return 0;
}

static const struct lnet_lnd_ops lolnd_ops = {
	.name = "lo",
	.type = LNET_LND_LO,
	.caps = LNET_LND_CAP_ANY_CPT | LNET_LND_CAP_NO_CREDITS | LNET_LND_CAP_NO_HEALTH |
		LNET_LND_CAP_BUILTIN | LNET_LND_CAP_HDR_CHECKED,
	.startup = lolnd_startup,
	.shutdown = lolnd_shutdown,
	.send = lolnd_send,
	.recv = lolnd_recv,
};

LNET_LND_REGISTER(lolnd_ops)
