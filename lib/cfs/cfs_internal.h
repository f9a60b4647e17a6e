/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CFS_INTERNAL_H
#define CFS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One "lo-hi/stride" term of an expression list. */
struct cfs_range_expr {
	uint32_t lo;
	uint32_t hi;
	uint32_t stride;
};

struct cfs_expr_list {
	unsigned int n;
	struct cfs_range_expr r[];
};

bool cfs_trim(const char *str, size_t len, char *out, size_t outlen);
bool cfs_parse_u32(const char *str, uint32_t max, uint32_t *out);
int cfs_parse_net(const char *str, uint32_t *net);
bool cfs_parse_ipv4(const char *str, uint32_t *addr);
/* Write a message into @p err (if given) and return -EINVAL. */
int cfs_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Split "a.b.[c,d].e" on dots outside brackets into exactly @p n parts. */
int cfs_split_dotted(const char *str, char parts[][64], unsigned int n);
/*
 * The address part of a NID pattern: four dotted expressions (0-255) for
 * an IP LND, one (any 32-bit number) for the others, into expr[0..*nexpr);
 * on an error those parsed so far stay there for the caller to free.
 */
int cfs_addr_exprs_parse(const char *addr, bool ip, struct cfs_expr_list *expr[4],
			 unsigned int *nexpr);

#endif /* CFS_INTERNAL_H */
