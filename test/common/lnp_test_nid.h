/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LNP_TEST_NID_H
#define LNP_TEST_NID_H

#include <stdint.h>

#include "cfs_nid.h"

/* The NID <addr>@tcp (net 0), for tests. */
static inline struct lnet_nid
lnp_tcp_nid(uint32_t addr)
{
	struct lnet_nid nid;

	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(LNET_LND_SOCK, 0), addr), &nid);
	return nid;
}

#endif /* LNP_TEST_NID_H */
