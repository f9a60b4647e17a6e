/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socklnd's rtnetlink walk (sock_link_msgs_concern) fed arbitrary
 * bytes: it must never read outside them, whatever the lengths claim. The
 * first byte picks the interface index and NID asked about.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/netlink.h>

#include "nidstr.h"
#include "sock_link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct lnet_nid nid = LNET_ANY_NID;

	if (size < 1 || size - 1 > sizeof(buf)) {
		return 0;
	}
	if (libcfs_strnid(&nid, (data[0] & 1) != 0 ? "10.0.0.1@tcp" : "[fe80::1]@tcp") != 0) {
		return 0;
	}
	memcpy(buf, data + 1, size - 1); /* aligned, as a recv buffer is */
	(void)sock_link_msgs_concern(buf, size - 1, data[0] >> 1, &nid);
	return 0;
}
