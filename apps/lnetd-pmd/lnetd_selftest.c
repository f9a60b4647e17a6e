/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lnet_selftest service of the daemon, what `modprobe lnet_selftest`
 * is to a kernel node: off until --selftest or the configuration's
 * `global: lnet_selftest: 1` (or an import of it) turns it on. A thread of
 * its own runs the selftest server (lib/selftest_rpc): it waits for LNet
 * events, not an lcore's poll, and its replies and bulk go through LNet's
 * API as any application's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "lnetd.h"
#include "sft_srv.h"

/* How long a wait for LNet events may block before the thread looks at its stop flag. */
#define LNETD_SELFTEST_POLL_MS 100
/* How long stopping waits for LNet to give back the server's MDs. */
#define LNETD_SELFTEST_STOP_MS 5000

struct lnetd_selftest {
	pthread_mutex_t lock; /* start, stop and the enabled state */
	bool enabled;
	pthread_t thread;
	struct sft_srv *srv; /* the thread's; read here only when it is stopped */
	int stop;            /* atomic: the thread ends its loop */
};

static struct lnetd_selftest lnetd_sft = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t
lnetd_selftest_now_ms(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * LNP_MS_PER_S + (uint64_t)ts.tv_nsec / LNP_NS_PER_MS;
}

static void *
lnetd_selftest_main(void *arg)
{
	struct lnetd_selftest *st = arg;

	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		sft_srv_poll(st->srv, LNETD_SELFTEST_POLL_MS);
	}
	return NULL;
}

static int
lnetd_selftest_start_locked(struct lnetd_selftest *st)
{
	const struct sft_srv_opts opts = { .now_ms = lnetd_selftest_now_ms };
	int rc = sft_srv_start(&opts, &st->srv);

	if (rc != 0) {
		return rc;
	}
	__atomic_store_n(&st->stop, 0, __ATOMIC_RELEASE);
	rc = -pthread_create(&st->thread, NULL, lnetd_selftest_main, st);
	if (rc != 0) {
		sft_srv_stop(st->srv, LNETD_SELFTEST_STOP_MS);
		st->srv = NULL;
		return rc;
	}
	pthread_setname_np(st->thread, "lnet-selftest");
	st->enabled = true;
	return 0;
}

static void
lnetd_selftest_stop_locked(struct lnetd_selftest *st)
{
	__atomic_store_n(&st->stop, 1, __ATOMIC_RELEASE);
	pthread_join(st->thread, NULL);
	/* The thread is gone: the server is this thread's to stop. */
	sft_srv_stop(st->srv, LNETD_SELFTEST_STOP_MS);
	st->srv = NULL;
	st->enabled = false;
}

int
lnetd_selftest_set(int on)
{
	struct lnetd_selftest *st = &lnetd_sft;
	int rc = 0;

	if (on != 0 && on != 1) {
		return -EINVAL;
	}
	pthread_mutex_lock(&st->lock);
	if (on && !st->enabled) {
		rc = lnetd_selftest_start_locked(st);
	} else if (!on && st->enabled) {
		lnetd_selftest_stop_locked(st);
	}
	pthread_mutex_unlock(&st->lock);
	return rc;
}

bool
lnetd_selftest_enabled(void)
{
	struct lnetd_selftest *st = &lnetd_sft;
	bool on;

	pthread_mutex_lock(&st->lock);
	on = st->enabled;
	pthread_mutex_unlock(&st->lock);
	return on;
}

void
lnetd_selftest_shutdown(void)
{
	lnetd_selftest_set(0);
}
