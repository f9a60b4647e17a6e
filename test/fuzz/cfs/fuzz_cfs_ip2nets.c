/* SPDX-License-Identifier: BSD-3-Clause */
/* ip2nets rules: parse, then match against a fixed interface list. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct cfs_ifaddr ifs[3] = {
		{ "eth0", AF_INET, 0x0a000001, { 0 } },
		{ "ib0", AF_INET, 0xc0a80203, { 0 } },
		{ "eth1", AF_INET6, 0, { 0xfe, 0x80, [15] = 1 } },
	};
	struct cfs_ip2nets_match m[8];
	struct cfs_ip2nets *r = NULL;
	char err[128];
	char *s = malloc(size + 1);
	int n;

	if (s == NULL) {
		return 0;
	}
	memcpy(s, data, size);
	s[size] = '\0';
	if (cfs_ip2nets_parse(s, &r, err, sizeof(err)) == 0) {
		n = cfs_ip2nets_match(r, ifs, 3, m, 8, err, sizeof(err));
		if (n > 3) { /* at most one NI per IPv4 interface and net... per rule set */
			unsigned int i;

			for (i = 0; i < (unsigned int)n; i++) {
				if (m[i].addr.family != AF_INET) {
					__builtin_trap();
				}
			}
		}
		cfs_ip2nets_free(r);
	}
	free(s);
	return 0;
}
