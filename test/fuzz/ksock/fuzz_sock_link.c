/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socklnd's link table fed arbitrary rtnetlink bytes
 * (sock_link_table_apply): it must never read outside them, whatever the
 * lengths claim, and the table it builds answers the questions of the
 * message path. The first byte picks the interface index and NID asked about.
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
	struct sock_link_table *t;
	struct sock_link_own own;
	bool ours;
	int index;

	if (size < 1 || size - 1 > sizeof(buf)) {
		return 0;
	}
	if (libcfs_strnid(&nid, (data[0] & 1) != 0 ? "10.0.0.1@tcp" : "[fe80::1]@tcp") != 0) {
		return 0;
	}
	memcpy(buf, data + 1, size - 1); /* aligned, as a recv buffer is */
	t = sock_link_table_create();
	if (t == NULL) {
		return 0;
	}
	own = (struct sock_link_own){ data[0] >> 1, &nid };
	(void)sock_link_table_apply(t, buf, size - 1, &own, &ours);
	(void)sock_link_table_apply(t, buf, size - 1, &own, &ours); /* the same again: updates */
	(void)sock_link_is_up(t, &nid, &index);
	(void)sock_link_peer_down(t, &nid);
	sock_link_table_destroy(t);
	return 0;
}
