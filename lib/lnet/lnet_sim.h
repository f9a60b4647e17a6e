/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LNet on the simulated runtime, for unit tests only: never installed, and
 * not part of the API (api.h offers AUTO, THREADS and POLLED).
 *
 * LNET_EXEC_INLINE runs no thread and no real clock: the test's thread
 * drives every lcore inside LNet calls and LNetEQPoll, on a virtual clock
 * that only it moves (rt's RT_MODE_SIM), so races between lcores replay
 * the same way every run. LNetEQPoll's timeout is spent in virtual time
 * (due timers fire), and "forever" ends once nothing more can happen.
 */
#ifndef LNET_SIM_H
#define LNET_SIM_H

#include "api.h"

/* The value api.h leaves out between THREADS and POLLED. */
#define LNET_EXEC_INLINE ((enum lnet_exec_mode)2)

#endif /* LNET_SIM_H */
