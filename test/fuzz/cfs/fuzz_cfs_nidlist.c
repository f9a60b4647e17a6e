/* SPDX-License-Identifier: BSD-3-Clause */
/* NID patterns: printed patterns parse back; expanded NIDs all match. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfs_nidlist *nl = NULL;
	struct cfs_nidlist *again = NULL;
	struct lnet_nid *nids = NULL;
	char out[4096];
	int n;
	int i;

	if (cfs_parse_nidlist((const char *)data, size, &nl) != 0) {
		return 0;
	}
	if (cfs_nidlist_print(out, sizeof(out), nl) > 0 &&
	    cfs_parse_nidlist(out, strlen(out), &again) != 0) {
		__builtin_trap();
	}
	n = cfs_nidlist_expand(nl, 512, &nids);
	for (i = 0; i < n; i++) {
		if (!cfs_match_nid(&nids[i], nl) ||
		    (again != NULL && !cfs_match_nid(&nids[i], again))) {
			__builtin_trap();
		}
	}
	if (n >= 0) {
		free(nids);
	}
	cfs_free_nidlist(nl);
	cfs_free_nidlist(again);
	return 0;
}
