/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UDSP rules a benchmark puts in place with --mr-udsp (bench_lo,
 * bench_fwd): in lnetctl udsp add's terms, NULL for a descriptor not
 * given, priority -1 for a preferred-list rule, idx -1 to append.
 */
#ifndef BENCH_UDSP_H
#define BENCH_UDSP_H

#include <stdio.h>
#include <string.h>

#include "lnet_ctl.h"

struct bench_udsp_rule {
	const char *src;
	const char *dst;
	const char *rte;
	long priority;
	int idx;
};

/* Add @p n rules in order; 0, or the first failure's -errno (said on stderr as @p prog's). */
static inline int
bench_udsp_add_all(const struct bench_udsp_rule *rules, unsigned int n, const char *prog)
{
	char err[256] = "";

	for (unsigned int i = 0; i < n; i++) {
		const struct bench_udsp_rule *r = &rules[i];
		int rc = lnet_ctl_udsp_add(r->src, r->dst, r->rte, r->priority, r->idx, err,
					   sizeof(err));

		if (rc != 0) {
			fprintf(stderr,
				"%s: udsp rule %u (src %s dst %s rte %s priority %ld): %s\n", prog,
				i, r->src ? r->src : "-", r->dst ? r->dst : "-",
				r->rte ? r->rte : "-", r->priority,
				err[0] != '\0' ? err : strerror(-rc));
			return rc;
		}
	}
	return 0;
}

#endif /* BENCH_UDSP_H */
