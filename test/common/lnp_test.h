/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LNP_TEST_H
#define LNP_TEST_H

/*
 * Shared by unit, integration and fuzz tests: the EAL arguments that work on
 * a machine without hugepages, NICs or a shared config (see
 * shared/reference/dpdk-on-this-machine.md), with a per-process file prefix
 * so tests run in parallel without colliding.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/*
 * A test waits for a condition, never for a fixed time: this generous bound
 * on the real clock (seconds, for a loaded shared machine under ASan) only
 * turns a condition that never comes into a loud failure.
 */
#define LNP_TEST_WAIT_LIMIT_US (20ULL * 1000 * 1000)

/* The real monotonic clock in microseconds, for LNP_TEST_WAIT_LIMIT_US. */
static inline uint64_t
lnp_test_real_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

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
		"--no-huge",
		"-m",
		"128",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--log-level=*:warning",
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
