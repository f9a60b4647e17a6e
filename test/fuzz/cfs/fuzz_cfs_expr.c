/* SPDX-License-Identifier: BSD-3-Clause */
/* Expression lists: parse -> print -> parse gives the same membership. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfs_expr_list *a = NULL;
	struct cfs_expr_list *b = NULL;
	char out[1024];
	uint32_t v;

	if (cfs_expr_list_parse((const char *)data, size, 0, 1023, &a) != 0) {
		return 0;
	}
	if (cfs_expr_list_print(out, sizeof(out), a) > 0) {
		if (cfs_expr_list_parse(out, strlen(out), 0, 1023, &b) != 0) {
			__builtin_trap();
		}
		for (v = 0; v < 1024; v++) {
			if (cfs_expr_list_match(v, a) != cfs_expr_list_match(v, b)) {
				__builtin_trap();
			}
		}
	}
	cfs_expr_list_free(a);
	cfs_expr_list_free(b);
	return 0;
}
