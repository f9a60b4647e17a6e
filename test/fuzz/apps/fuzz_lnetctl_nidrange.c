/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnetctl's NID list reader (apps/lnetctl/lnetctl_nidrange.c, 2.17's
 * lustre_lnet_parse_nid_range() step for step): any argument gives NIDs as
 * text or one of that reader's errors, never a crash nor a leak; an error
 * has its text and errno (-EINVAL, -ERANGE, -ENOMEM, or -E2BIG for a
 * number 2.17 cannot hold) and leaves the list empty, a success has no
 * text and each NID it names has an '@'. The input's bytes up to the first NUL are one
 * command-line word.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lnetctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ARG_MAX 4096 /* a command-line word longer than this teaches nothing new */

static void
check_result(int rc, const struct lnetctl_nidrange *l, const char *msg)
{
	static const char prefix[] = "\"Unable to parse nidlist: ";
	unsigned int i;

	if (rc != 0) {
		if ((rc != -EINVAL && rc != -ERANGE && rc != -ENOMEM && rc != -E2BIG) ||
		    msg == NULL || l->n != 0 || l->nid != NULL ||
		    (strncmp(msg, prefix, sizeof(prefix) - 1) != 0 &&
		     strcmp(msg, "asterisk not allowed in nidstring") != 0)) {
			abort();
		}
		return;
	}
	if (msg != NULL || l->n > l->max) {
		abort();
	}
	for (i = 0; i < l->n; i++) {
		if (l->nid[i] == NULL || strchr(l->nid[i], '@') == NULL) {
			abort();
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lnetctl_nidrange l;
	const char *msg = NULL;
	char *arg;
	char *argv[2];
	int rc;

	if (size > FUZZ_ARG_MAX) {
		size = FUZZ_ARG_MAX;
	}
	arg = malloc(size + 1);
	if (arg == NULL) {
		return 0;
	}
	memcpy(arg, data, size);
	arg[size] = '\0';

	memset(&l, 0, sizeof(l));
	rc = lnetctl_nidrange_add(arg, &l, &msg);
	check_result(rc, &l, msg);
	lnetctl_nidrange_free(&l);

	/* the same word twice, as two words of one command line: the list adds up */
	argv[0] = arg;
	argv[1] = arg;
	rc = lnetctl_nidrange_args(2, argv, &l, &msg);
	check_result(rc, &l, msg);
	lnetctl_nidrange_free(&l);
	free(arg);
	return 0;
}
