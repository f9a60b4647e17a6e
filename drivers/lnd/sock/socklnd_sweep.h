/* SPDX-License-Identifier: BSD-3-Clause */
/* socklnd_sweep.c: a socklnd NI's timeouts and slow waits, looked at once a second. */
#ifndef SOCKLND_SWEEP_H
#define SOCKLND_SWEEP_H

#include "socklnd_ni.h"

#define SOCKLND_SWEEP_US SOCKLND_US_PER_S

/* The sweep's limit: min(sock_timeout, LNet's lnd_timeout); sock_timeout 0 is lnd_timeout. */
uint64_t socklnd_timeout_us(const struct socklnd_ni *s);
/* The NI's sweep timer: it arms itself again, SOCKLND_SWEEP_US on. */
void socklnd_sweep(void *arg);

#endif /* SOCKLND_SWEEP_H */
