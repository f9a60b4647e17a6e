/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies between fragment lists, for LNDs that move payload by memcpy. */
#include <string.h>

#include "lnet_internal.h"

/* Advance (*iov, *niov) past @p off bytes; returns the offset in *iov. */
static size_t
lnet_iov_seek(const struct iovec **iov, unsigned int *niov, size_t off)
{
	while (*niov > 0 && off >= (*iov)->iov_len) {
		off -= (*iov)->iov_len;
		(*iov)++;
		(*niov)--;
	}
	return off;
}

static inline __attribute__((always_inline)) void
lnet_iov_copy_run(const struct iovec *dst_iov, unsigned int dst_niov, unsigned int dst_off,
		  const struct iovec *src_iov, unsigned int src_niov, unsigned int src_off,
		  unsigned int len)
{
	size_t doff;
	size_t soff;

	if (dst_niov == 1 && src_niov == 1 && len != 0 && dst_off < dst_iov->iov_len &&
	    len <= dst_iov->iov_len - dst_off && src_off < src_iov->iov_len &&
	    len <= src_iov->iov_len - src_off) {
		/* One fragment each side, and it all fits: the usual MD. */
		memcpy((char *)dst_iov->iov_base + dst_off,
		       (const char *)src_iov->iov_base + src_off, len);
		return;
	}
	doff = lnet_iov_seek(&dst_iov, &dst_niov, dst_off);
	soff = lnet_iov_seek(&src_iov, &src_niov, src_off);
	while (len > 0 && dst_niov > 0 && src_niov > 0) {
		size_t dleft = dst_iov->iov_len - doff;
		size_t sleft = src_iov->iov_len - soff;
		size_t n = len;

		n = n < dleft ? n : dleft;
		n = n < sleft ? n : sleft;
		if (n != 0) { /* empty fragments may have a NULL base */
			memcpy((char *)dst_iov->iov_base + doff,
			       (const char *)src_iov->iov_base + soff, n);
		}
		len -= (unsigned int)n;
		doff += n;
		soff += n;
		if (doff == dst_iov->iov_len) {
			dst_iov++;
			dst_niov--;
			doff = 0;
		}
		if (soff == src_iov->iov_len) {
			src_iov++;
			src_niov--;
			soff = 0;
		}
	}
}

void
lnet_iov_copy(const struct iovec *dst_iov, unsigned int dst_niov, unsigned int dst_off,
	      const struct iovec *src_iov, unsigned int src_niov, unsigned int src_off,
	      unsigned int len)
{
	lnet_iov_copy_run(dst_iov, dst_niov, dst_off, src_iov, src_niov, src_off, len);
}

/*
 * The same copy, for the receive path's lent payloads (lnet_rx_taken_run).
 * A function of its own so that an LND's recv stays lnet_iov_copy's only
 * caller in a build where one LND is linked (lo's, in bench_lo): LTO then
 * inlines the copy into it, as before lent payloads existed (8 instructions
 * a PUT+ACK, the call and its saved registers).
 */
__attribute__((noinline)) void
lnet_iov_copy_lent(const struct iovec *dst_iov, unsigned int dst_niov, unsigned int dst_off,
		   const struct iovec *src_iov, unsigned int src_niov, unsigned int len)
{
	lnet_iov_copy_run(dst_iov, dst_niov, dst_off, src_iov, src_niov, 0, len);
}
