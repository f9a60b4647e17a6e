/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * End-point address texts: what parses has a TMID of 1..4095 or `*`, prints
 * within XPRT_ADDR_LEN, and parses back to the same address.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xprt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_addr_round_trip(const struct xprt_addr *a)
{
	char out[XPRT_ADDR_LEN + 64];
	struct xprt_addr again;
	int n;

	if (a->tmid == 0 || (a->tmid > XPRT_TMID_MAX && a->tmid != XPRT_TMID_DYNAMIC)) {
		__builtin_trap();
	}
	n = xprt_addr_format(a, out, sizeof(out));
	if (n < 0) {
		__builtin_trap();
	}
	if ((size_t)n >= XPRT_ADDR_LEN) {
		return; /* a NID printed longer than typed (IPv6 forms) may not read back */
	}
	if (xprt_addr_parse(out, &again) != 0 || !lnet_nid_same(&a->nid, &again.nid) ||
	    a->pid != again.pid || a->portal != again.portal || a->tmid != again.tmid) {
		__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct xprt_addr a;

	if (s == NULL) {
		return 0;
	}
	memcpy(s, data, size);
	s[size] = '\0';
	if (xprt_addr_parse(s, &a) == 0) {
		fuzz_addr_round_trip(&a);
	}
	(void)xprt_addr_net_cmp(s, "0@lo:12345:33:1");
	free(s);
	return 0;
}
