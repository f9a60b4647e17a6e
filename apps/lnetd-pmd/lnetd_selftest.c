/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lnet_selftest service of the daemon, what `modprobe lnet_selftest`
 * is to a kernel node: off until --selftest or the configuration's
 * `global: lnet_selftest: 1` (or an import of it) turns it on. A thread of
 * its own runs the selftest server (lib/selftest_rpc): it waits for LNet
 * events, not an lcore's poll, and its replies and bulk go through LNet's
 * API as any application's.
 *
 * The lst console (sft_con) lives on the same thread, over the same
 * engine, and only while the service is on: the kernel's console is part
 * of the lnet_selftest module, so lst needs it loaded. A telemetry thread
 * hands a console request over (lnetd_selftest_con_call) and sleeps until
 * the console's answer is written: the console's state is written by the
 * selftest thread only (and, once that thread is joined, by the stopping
 * one).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "lnetd.h"
#include "sft_con.h"
#include "sft_srv.h"

/*
 * How long a wait for LNet events may block before the thread looks at its
 * stop flag and for a console request: a command waits at most this long
 * to start.
 */
#define LNETD_SELFTEST_POLL_MS 10
/* How long stopping waits for LNet to give back the server's MDs. */
#define LNETD_SELFTEST_STOP_MS 5000

struct lnetd_selftest {
	pthread_mutex_t lock; /* start, stop and the enabled state */
	bool enabled;
	pthread_t thread;
	struct sft_srv *srv; /* the thread's; read here only when it is stopped */
	struct sft_con *con; /* the thread's, as srv */
	int stop;            /* atomic: the thread ends its loop */
	/* A console request in hand-over. */
	pthread_mutex_t serial;    /* one request at a time */
	pthread_mutex_t call_lock; /* call, call_taken, con_open and a call's done */
	pthread_cond_t call_cond;
	struct lnetd_lst_call *call;
	bool call_taken; /* the selftest thread submitted it */
	bool con_open;   /* the thread runs: requests are taken */
};

/* One console request, on its caller's stack until done. */
struct lnetd_lst_call {
	const struct sft_con_req *rq;
	struct rte_tel_data *d;
	int rc;
	bool done;
};

static struct lnetd_selftest lnetd_sft = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.serial = PTHREAD_MUTEX_INITIALIZER,
	.call_lock = PTHREAD_MUTEX_INITIALIZER,
	.call_cond = PTHREAD_COND_INITIALIZER,
};

/* The console answered: the reply is written, the caller wakes. */
static void
lnetd_selftest_con_done(void *arg, const struct sft_con_result *r)
{
	struct lnetd_lst_call *call = arg;
	struct lnetd_selftest *st = &lnetd_sft;

	lnetd_lst_reply(call->d, call->rq->op, r);
	pthread_mutex_lock(&st->call_lock);
	call->rc = 0;
	call->done = true;
	pthread_cond_broadcast(&st->call_cond);
	pthread_mutex_unlock(&st->call_lock);
}

/* Answer @p call with @p rc and no reply (call_lock held). */
static void
lnetd_selftest_con_refuse(struct lnetd_selftest *st, struct lnetd_lst_call *call, int rc)
{
	call->rc = rc;
	call->done = true;
	pthread_cond_broadcast(&st->call_cond);
}

/* On the selftest thread: submit the request waiting, if any. */
static void
lnetd_selftest_con_take(struct lnetd_selftest *st)
{
	struct lnetd_lst_call *call;
	int rc;

	pthread_mutex_lock(&st->call_lock);
	call = st->call != NULL && !st->call_taken ? st->call : NULL;
	st->call_taken = st->call != NULL;
	pthread_mutex_unlock(&st->call_lock);
	if (call == NULL) {
		return;
	}
	rc = sft_con_submit(st->con, call->rq, lnetd_selftest_con_done, call);
	if (rc != 0) {
		pthread_mutex_lock(&st->call_lock);
		lnetd_selftest_con_refuse(st, call, rc);
		pthread_mutex_unlock(&st->call_lock);
	}
}

int
lnetd_selftest_con_call(const struct sft_con_req *rq, struct rte_tel_data *d)
{
	struct lnetd_selftest *st = &lnetd_sft;
	struct lnetd_lst_call call = { .rq = rq, .d = d };

	pthread_mutex_lock(&st->serial);
	pthread_mutex_lock(&st->call_lock);
	if (!st->con_open) {
		call.rc = -ENODEV;
		call.done = true;
	} else {
		st->call = &call;
		st->call_taken = false;
	}
	while (!call.done) {
		pthread_cond_wait(&st->call_cond, &st->call_lock);
	}
	st->call = NULL;
	pthread_mutex_unlock(&st->call_lock);
	pthread_mutex_unlock(&st->serial);
	return call.rc;
}

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
		sft_con_tick(st->con);
		lnetd_selftest_con_take(st);
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
	rc = sft_con_create(st->srv, &st->con);
	if (rc != 0) {
		sft_srv_stop(st->srv, LNETD_SELFTEST_STOP_MS);
		st->srv = NULL;
		return rc;
	}
	__atomic_store_n(&st->stop, 0, __ATOMIC_RELEASE);
	rc = -pthread_create(&st->thread, NULL, lnetd_selftest_main, st);
	if (rc != 0) {
		sft_con_destroy(st->con);
		st->con = NULL;
		sft_srv_stop(st->srv, LNETD_SELFTEST_STOP_MS);
		st->srv = NULL;
		return rc;
	}
	pthread_mutex_lock(&st->call_lock);
	st->con_open = true;
	pthread_mutex_unlock(&st->call_lock);
	pthread_setname_np(st->thread, "lnet-selftest");
	st->enabled = true;
	return 0;
}

static void
lnetd_selftest_stop_locked(struct lnetd_selftest *st)
{
	pthread_mutex_lock(&st->call_lock);
	st->con_open = false;
	pthread_mutex_unlock(&st->call_lock);
	__atomic_store_n(&st->stop, 1, __ATOMIC_RELEASE);
	pthread_join(st->thread, NULL);
	/* A request the thread never took is refused; one it took ends in sft_srv_stop's aborts. */
	pthread_mutex_lock(&st->call_lock);
	if (st->call != NULL && !st->call_taken) {
		lnetd_selftest_con_refuse(st, st->call, -ENODEV);
	}
	pthread_mutex_unlock(&st->call_lock);
	/* The thread is gone: the console and the server are this thread's to stop. */
	sft_con_destroy(st->con);
	st->con = NULL;
	sft_srv_stop(st->srv, LNETD_SELFTEST_STOP_MS);
	/*
	 * Its aborts ended the request in flight, unless LNet kept an MD past
	 * the wait: then nothing polls the engine again (it is left, not
	 * freed), and the caller is answered here.
	 */
	pthread_mutex_lock(&st->call_lock);
	if (st->call != NULL && !st->call->done) {
		lnetd_selftest_con_refuse(st, st->call, -ESHUTDOWN);
	}
	pthread_mutex_unlock(&st->call_lock);
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
	lnetd_lst_forget();
}
