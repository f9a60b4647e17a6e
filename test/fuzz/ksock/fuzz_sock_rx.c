/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socklnd receive state machine fed arbitrary bytes through a socket:
 * it must end in an error or consume everything, never crash or spin. The
 * first byte picks the protocol version and how much LNet keeps. A message
 * whose ksm_csum does not match completes with -EIO and ends the stream
 * with -EBADMSG; nothing else may complete with an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sock_rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz {
	struct sock_rx *rx;
	uint8_t buf[256];
	struct iovec iov;
	unsigned int keep;
	bool bad_sum; /* a payload completed with -EIO */
};

static void
fz_noop(void *ctx, const struct ksock_msg *km)
{
	(void)ctx;
	(void)km;
}

static int
fz_lnet(void *ctx, const struct ksock_msg *km, const struct lnet_hdr *hdr)
{
	struct fz *f = ctx;

	(void)km;
	sock_rx_set_sink(f->rx, &f->iov, 1, 0,
			 f->keep < hdr->payload_length ? f->keep : hdr->payload_length,
			 hdr->payload_length, f);
	return 0;
}

static void
fz_payload(void *ctx, void *cookie, int status)
{
	struct fz *f = ctx;

	if (cookie != ctx || (status != 0 && status != -EIO)) {
		__builtin_trap();
	}
	f->bad_sum |= status == -EIO;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { .keep = 0 };
	struct sock_rx_ops ops = { fz_noop, fz_lnet, fz_payload, &f };
	struct sock_rx rx;
	int fds[2];
	unsigned int rounds;

	if (size < 1 || size > 60000 || socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
		return 0;
	}
	f.rx = &rx;
	f.iov = (struct iovec){ f.buf, sizeof(f.buf) };
	f.keep = (unsigned int)(data[0] >> 2) * 4;
	sock_rx_init(&rx, ksock_proto_by_version(1 + data[0] % 4), (data[0] & 0x40) != 0, &ops);
	if (write(fds[0], data + 1, size - 1) != (ssize_t)(size - 1)) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	close(fds[0]);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	/* Bounded: every round consumes input or stops. */
	for (rounds = 0; rounds < 100000; rounds++) {
		if (sock_rx_poll(&rx, fds[1]) != 1) {
			break;
		}
	}
	if (rounds == 100000 || (f.bad_sum && rx.error != -EBADMSG)) {
		__builtin_trap();
	}
	close(fds[1]);
	return 0;
}
