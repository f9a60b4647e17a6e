/* SPDX-License-Identifier: BSD-3-Clause */
/* NID strings: what parses prints canonically and parses back to the same NID. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	char out[LNET_NIDSTR_SIZE];
	struct lnet_processid id;
	struct lnet_nid nid;
	struct lnet_nid again;

	if (s == NULL) {
		return 0;
	}
	memcpy(s, data, size);
	s[size] = '\0';
	if (libcfs_strnid(&nid, s) == 0) {
		libcfs_nidstr_r(&nid, out, sizeof(out));
		if (libcfs_strnid(&again, out) != 0 || !lnet_nid_same(&nid, &again)) {
			__builtin_trap();
		}
	}
	if (libcfs_strid(&id, s) == 0) {
		libcfs_idstr_r(&id, out, sizeof(out));
	}
	if (libcfs_str2net(s) != LNET_NET_ANY &&
	    libcfs_str2net(libcfs_net2str(libcfs_str2net(s))) != libcfs_str2net(s)) {
		__builtin_trap();
	}
	free(s);
	return 0;
}
