/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LNP_TEST_H
#define LNP_TEST_H

/*
 * Shared by unit, integration and fuzz tests: the EAL arguments that work on
 * a machine without hugepages, NICs or a shared config (see
 * shared/reference/dpdk-on-this-machine.md), with a per-process file prefix
 * so tests run in parallel without colliding.
 */
#include <stdio.h>
#include <unistd.h>

#define LNP_TEST_EAL_MAX_ARGS 16

struct lnp_test_eal_args {
	int argc;
	char *argv[LNP_TEST_EAL_MAX_ARGS];
	char prefix[64];
};

static inline void
lnp_test_eal_args_init(struct lnp_test_eal_args *a, const char *name, const char *lcores)
{
	static char *const fixed[] = {
		"--no-huge", "-m", "128", "--no-pci", "--no-shconf",
		"--no-telemetry", "--log-level=*:warning",
	};
	unsigned int i;

	snprintf(a->prefix, sizeof(a->prefix), "--file-prefix=%s-%d", name, (int)getpid());
	a->argc = 0;
	a->argv[a->argc++] = (char *)name;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		a->argv[a->argc++] = fixed[i];
	}
	a->argv[a->argc++] = a->prefix;
	a->argv[a->argc++] = "-l";
	a->argv[a->argc++] = (char *)lcores;
	a->argv[a->argc] = NULL;
}

#endif /* LNP_TEST_H */
