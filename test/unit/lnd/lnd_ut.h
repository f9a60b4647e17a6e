/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the LND unit tests share: running LNet's lcores (the SIM runtime:
 * the test's thread runs them) until idle, or until a condition holds.
 */
#ifndef LND_UT_H
#define LND_UT_H

#include <stdint.h>
#include <unistd.h>

#include "lnet_ut.h"
#include "lnp_test.h"

/* LNet's lcores (this thread runs them) until none has work, or many rounds. */
static inline void
settle(void)
{
	rt_runtime_poll_until_idle(lnet_instance()->rt, 1000);
}

/*
 * Run LNet until @p cond holds (looked at after each run), at most
 * LNP_TEST_WAIT_LIMIT_US on the real clock; the limit fails the test with
 * @p what, the condition awaited. Between looks, a pause for the kernel.
 */
#define PUMP_UNTIL(what, cond)                                                                   \
	do {                                                                                     \
		uint64_t pu_t0_ = lnp_test_real_us();                                            \
                                                                                                 \
		for (;;) {                                                                       \
			settle();                                                                \
			if (cond) {                                                              \
				break;                                                           \
			}                                                                        \
			if (lnp_test_real_us() - pu_t0_ > LNP_TEST_WAIT_LIMIT_US) {              \
				fail_msg("%s:%d: waited %llu s for %s (%s)", __FILE__, __LINE__, \
					 LNP_TEST_WAIT_LIMIT_US / 1000000, what, #cond);         \
			}                                                                        \
			usleep(100);                                                             \
		}                                                                                \
	} while (0)

#endif /* LND_UT_H */
