/* SPDX-License-Identifier: BSD-3-Clause */
/* Expression lists: "N", "*", "[lo-hi/stride,N,...]" as lnetctl accepts them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "cfs_internal.h"

#define CFS_EXPR_MAX_TERMS 64

/* A number with blanks around it allowed, as the kernel's parser does. */
static bool
cfs_parse_u32_blanks(const char *str, uint32_t max, uint32_t *out)
{
	char num[24];

	return cfs_trim(str, strlen(str), num, sizeof(num)) && cfs_parse_u32(num, max, out);
}

/* "N", "N-M" or "N-M/S" within [min, max]. */
static int
cfs_range_parse(char *term, uint32_t min, uint32_t max, struct cfs_range_expr *r)
{
	char *dash = strchr(term, '-');
	char *slash = strchr(term, '/');

	r->stride = 1;
	if (slash != NULL) {
		*slash = '\0';
		if (dash == NULL || !cfs_parse_u32_blanks(slash + 1, UINT32_MAX, &r->stride) ||
		    r->stride == 0) {
			return -EINVAL;
		}
	}
	if (dash != NULL) {
		*dash = '\0';
		if (!cfs_parse_u32_blanks(term, max, &r->lo) ||
		    !cfs_parse_u32_blanks(dash + 1, max, &r->hi)) {
			return -EINVAL;
		}
	} else if (cfs_parse_u32_blanks(term, max, &r->lo)) {
		r->hi = r->lo;
	} else {
		return -EINVAL;
	}
	return r->lo < min || r->lo > r->hi ? -EINVAL : 0;
}

static int
cfs_expr_list_alloc(unsigned int n, struct cfs_expr_list **out)
{
	*out = calloc(1, sizeof(**out) + n * sizeof((*out)->r[0]));
	if (*out == NULL) {
		return -ENOMEM;
	}
	(*out)->n = n;
	return 0;
}

/* The terms of "[a,b-c/d]" (brackets already stripped). */
static int
cfs_expr_terms_parse(char *body, uint32_t min, uint32_t max, struct cfs_expr_list **out)
{
	struct cfs_range_expr terms[CFS_EXPR_MAX_TERMS];
	unsigned int n = 0;
	char *save = NULL;
	char *tok;
	int rc;

	if (*body == '\0' || body[strlen(body) - 1] == ',' || body[0] == ',' ||
	    strstr(body, ",,") != NULL) {
		return -EINVAL;
	}
	for (tok = strtok_r(body, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char term[32];

		if (n == CFS_EXPR_MAX_TERMS || !cfs_trim(tok, strlen(tok), term, sizeof(term))) {
			return -EINVAL;
		}
		rc = cfs_range_parse(term, min, max, &terms[n++]);
		if (rc != 0) {
			return rc;
		}
	}
	rc = cfs_expr_list_alloc(n, out);
	if (rc == 0) {
		memcpy((*out)->r, terms, n * sizeof(terms[0]));
	}
	return rc;
}

int
cfs_expr_list_parse(const char *str, size_t len, uint32_t min, uint32_t max,
		    struct cfs_expr_list **out)
{
	char buf[256];
	size_t n;
	int rc;

	if (str == NULL || out == NULL || min > max || !cfs_trim(str, len, buf, sizeof(buf))) {
		return -EINVAL;
	}
	if (strcmp(buf, "*") == 0) {
		rc = cfs_expr_list_alloc(1, out);
		if (rc == 0) {
			(*out)->r[0] = (struct cfs_range_expr){ min, max, 1 };
		}
		return rc;
	}
	n = strlen(buf);
	if (buf[0] == '[') {
		if (buf[n - 1] != ']' || n < 3) {
			return -EINVAL;
		}
		buf[n - 1] = '\0';
		return cfs_expr_terms_parse(buf + 1, min, max, out);
	}
	if (strchr(buf, '-') != NULL || strchr(buf, ',') != NULL) {
		return -EINVAL; /* ranges only inside brackets */
	}
	return cfs_expr_terms_parse(buf, min, max, out);
}

bool
cfs_expr_list_match(uint32_t value, const struct cfs_expr_list *el)
{
	unsigned int i;

	for (i = 0; el != NULL && i < el->n; i++) {
		const struct cfs_range_expr *r = &el->r[i];

		/* no division for the common stride of 1 */
		if (value >= r->lo && value <= r->hi &&
		    (r->stride == 1 || (value - r->lo) % r->stride == 0)) {
			return true;
		}
	}
	return false;
}

static int
cfs_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a;
	uint32_t y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Values of the list, ascending, without duplicates. Each range is walked
 * by its stride and counted first, so "[1-4000000000]" costs nothing to
 * refuse (fuzzing found the span walk).
 */
int
cfs_expr_list_values(const struct cfs_expr_list *el, uint32_t max, uint32_t **values)
{
	uint64_t total = 0;
	unsigned int n = 0;
	unsigned int i;
	unsigned int j;
	uint32_t *v;

	for (i = 0; i < el->n; i++) {
		uint64_t c = ((uint64_t)el->r[i].hi - el->r[i].lo) / el->r[i].stride + 1;

		if (c > max) {
			return -E2BIG; /* one range alone has too many distinct values */
		}
		total += c; /* at most n * max: ranges may overlap */
	}
	v = malloc((size_t)(total == 0 ? 1 : total) * sizeof(*v));
	if (v == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < el->n; i++) {
		uint64_t x;

		for (x = el->r[i].lo; x <= el->r[i].hi; x += el->r[i].stride) {
			v[n++] = (uint32_t)x;
		}
	}
	qsort(v, n, sizeof(*v), cfs_u32_cmp);
	for (i = 0, j = 0; i < n; i++) {
		if (j == 0 || v[j - 1] != v[i]) {
			v[j++] = v[i];
		}
	}
	if (j > max) {
		free(v);
		return -E2BIG;
	}
	*values = v;
	return (int)j;
}

static int
cfs_append_str(char *buf, size_t len, size_t *off, const char *str)
{
	size_t n = strlen(str);

	if (n >= len - *off) {
		return -ENOSPC;
	}
	memcpy(buf + *off, str, n + 1);
	*off += n;
	return 0;
}

static int
cfs_append_u32(char *buf, size_t len, size_t *off, uint32_t v)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", v);
	return cfs_append_str(buf, len, off, num);
}

static int
cfs_range_print(char *buf, size_t len, size_t *off, const struct cfs_range_expr *r)
{
	int rc = cfs_append_u32(buf, len, off, r->lo);

	if (rc == 0 && r->lo != r->hi) {
		rc = cfs_append_str(buf, len, off, "-");
		if (rc == 0) {
			rc = cfs_append_u32(buf, len, off, r->hi);
		}
		if (rc == 0 && r->stride != 1) {
			rc = cfs_append_str(buf, len, off, "/");
			if (rc == 0) {
				rc = cfs_append_u32(buf, len, off, r->stride);
			}
		}
	}
	return rc;
}

int
cfs_expr_list_print(char *buf, size_t len, const struct cfs_expr_list *el)
{
	size_t off = 0;
	unsigned int i;
	int rc = 0;

	if (len == 0) {
		return -ENOSPC;
	}
	buf[0] = '\0';
	if (el->n == 1 && el->r[0].lo == el->r[0].hi) {
		rc = cfs_append_u32(buf, len, &off, el->r[0].lo);
		return rc == 0 ? (int)off : rc;
	}
	rc = cfs_append_str(buf, len, &off, "[");
	for (i = 0; rc == 0 && i < el->n; i++) {
		if (i != 0) {
			rc = cfs_append_str(buf, len, &off, ",");
		}
		if (rc == 0) {
			rc = cfs_range_print(buf, len, &off, &el->r[i]);
		}
	}
	if (rc == 0) {
		rc = cfs_append_str(buf, len, &off, "]");
	}
	return rc == 0 ? (int)off : rc;
}

void
cfs_expr_list_free(struct cfs_expr_list *el)
{
	free(el);
}

int
cfs_split_dotted(const char *str, char parts[][64], unsigned int n)
{
	unsigned int i = 0;
	size_t k = 0;
	int depth = 0;

	for (; *str != '\0'; str++) {
		if (*str == '[') {
			depth++;
		} else if (*str == ']') {
			depth--;
		}
		if (depth < 0 || depth > 1) {
			return -EINVAL;
		}
		if (*str == '.' && depth == 0) {
			parts[i][k] = '\0';
			if (++i == n) {
				return -EINVAL;
			}
			k = 0;
			continue;
		}
		if (k == 63) {
			return -EINVAL;
		}
		parts[i][k++] = *str;
	}
	parts[i][k] = '\0';
	return i + 1 == n && depth == 0 ? 0 : -EINVAL;
}

int
cfs_addr_exprs_parse(const char *addr, bool ip, struct cfs_expr_list *expr[4], unsigned int *nexpr)
{
	char parts[4][64];
	unsigned int i;
	int rc;

	*nexpr = 0;
	if (!ip) {
		*nexpr = 1;
		return cfs_expr_list_parse(addr, strlen(addr), 0, UINT32_MAX, &expr[0]);
	}
	if (cfs_split_dotted(addr, parts, 4) != 0) {
		return -EINVAL;
	}
	for (i = 0; i < 4; i++) {
		rc = cfs_expr_list_parse(parts[i], strlen(parts[i]), 0, 255, &expr[i]);
		if (rc != 0) {
			return rc;
		}
		*nexpr = i + 1;
	}
	return 0;
}

int
cfs_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}
