/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUBIC (RFC 9438) in drivers/net/tcp/tcp_cc.c on its own, through the
 * private tcp_internal.h: K, the window function at fixed times after an
 * epoch begins, fast convergence, the Reno-friendly region and the
 * concave and convex growth per ACK. Windows in segments, times in
 * seconds, as the RFC writes them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tcp_internal.h"

#define EPS 1e-9

static void
assert_near(double got, double want, double tol)
{
	if (fabs(got - want) > tol) {
		fail_msg("%.9f is not %.9f (+-%g)", got, want, tol);
	}
}

/* A loss at 100 segments, then the epoch begins at 70 (beta 0.7) at t = 10 s. */
static struct tcp_cubic
after_loss_at_100(void)
{
	struct tcp_cubic cb = { 0 };

	tcp_cubic_loss(&cb, 100.0);
	assert_near(cb.w_max, 100.0, EPS);
	assert_false(cb.epoch);
	tcp_cubic_epoch(&cb, 100.0 * TCP_CUBIC_BETA, 10.0);
	return cb;
}

static void
test_cubic_k(void **state)
{
	(void)state;
	/* K = cbrt((W_max - cwnd_epoch) / C) = cbrt(30 / 0.4) = cbrt(75). */
	assert_near(tcp_cubic_k(100.0, 70.0), 4.217163326508746, 1e-12);
	/* Starting at or above W_max: the plateau is now. */
	assert_near(tcp_cubic_k(100.0, 100.0), 0.0, EPS);
	assert_near(tcp_cubic_k(100.0, 120.0), 0.0, EPS);
}

static void
test_cubic_window_at_fixed_times(void **state)
{
	struct tcp_cubic cb = after_loss_at_100();
	double k = cbrt(75.0);

	(void)state;
	assert_true(cb.epoch);
	assert_near(cb.t_epoch, 10.0, EPS);
	assert_near(cb.k, k, 1e-12);
	/* W_cubic(t) = C (t - K)^3 + W_max, t from the epoch's start. */
	assert_near(tcp_cubic_w(&cb, 0.0), 70.0, 1e-9); /* where the epoch began */
	assert_near(tcp_cubic_w(&cb, 1.0), 100.0 + 0.4 * pow(1.0 - k, 3), 1e-9);
	assert_near(tcp_cubic_w(&cb, 2.0), 100.0 + 0.4 * pow(2.0 - k, 3), 1e-9);
	assert_near(tcp_cubic_w(&cb, k), 100.0, 1e-9);       /* the plateau at W_max */
	assert_near(tcp_cubic_w(&cb, k + 1.0), 100.4, 1e-9); /* convex past it */
	assert_near(tcp_cubic_w(&cb, 2.0 * k), 130.0, 1e-9); /* C K^3 = 30 above */
	assert_near(tcp_cubic_w(&cb, k - 1.0), 99.6, 1e-9);  /* concave below it */
}

static void
test_cubic_fast_convergence(void **state)
{
	struct tcp_cubic cb = { 0 };

	(void)state;
	tcp_cubic_loss(&cb, 100.0);
	/* A loss below the last W_max: release more, W_max = cwnd (1 + beta) / 2. */
	tcp_cubic_loss(&cb, 80.0);
	assert_near(cb.w_max, 68.0, 1e-9);
	/* A loss above it: W_max is where it came. */
	tcp_cubic_loss(&cb, 120.0);
	assert_near(cb.w_max, 120.0, EPS);
}

static void
test_cubic_reno_friendly_at_start(void **state)
{
	struct tcp_cubic cb = after_loss_at_100();
	const double alpha = 3.0 * (1.0 - 0.7) / (1.0 + 0.7);
	double cwnd;

	(void)state;
	/*
	 * At the epoch's start W_cubic(0) = 70, and W_est has just grown by
	 * alpha / cwnd for one segment acknowledged: W_est leads, cwnd takes it.
	 */
	cwnd = tcp_cubic_update(&cb, 70.0, 1.0, 10.0, 0.1);
	assert_near(cb.w_est, 70.0 + alpha / 70.0, 1e-12);
	assert_near(cwnd, cb.w_est, 1e-12);
}

static void
test_cubic_concave_growth_per_ack(void **state)
{
	struct tcp_cubic cb = after_loss_at_100();
	double k = cbrt(75.0), target, cwnd;

	(void)state;
	/* One second in: W_cubic(1) ~ 86.7 is above W_est; cwnd moves toward W_cubic(1 + RTT). */
	target = 100.0 + 0.4 * pow(1.1 - k, 3);
	cwnd = tcp_cubic_update(&cb, 72.0, 1.0, 11.0, 0.1);
	assert_near(cwnd, 72.0 + (target - 72.0) / 72.0, 1e-9);
	/* Far behind the curve: the target is capped at 1.5 cwnd. */
	cwnd = tcp_cubic_update(&cb, 40.0, 1.0, 11.0, 0.1);
	assert_near(cwnd, 40.0 + (60.0 - 40.0) / 40.0, 1e-9);
	/* Ahead of the curve: no growth from it. */
	cwnd = tcp_cubic_update(&cb, 95.0, 1.0, 11.0, 0.1);
	assert_near(cwnd, 95.0, 1e-9);
}

static void
test_cubic_convex_past_w_max(void **state)
{
	struct tcp_cubic cb = after_loss_at_100();
	double k = cbrt(75.0), target, cwnd;

	(void)state;
	/* Two seconds past K: probing above W_max, growth speeds up. */
	target = 100.0 + 0.4 * pow(2.1, 3);
	cwnd = tcp_cubic_update(&cb, 100.0, 10.0, 10.0 + k + 2.0, 0.1);
	assert_near(cwnd, 100.0 + (target - 100.0) / 100.0 * 10.0, 1e-9);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cubic_k),
		cmocka_unit_test(test_cubic_window_at_fixed_times),
		cmocka_unit_test(test_cubic_fast_convergence),
		cmocka_unit_test(test_cubic_reno_friendly_at_start),
		cmocka_unit_test(test_cubic_concave_growth_per_ack),
		cmocka_unit_test(test_cubic_convex_past_w_max),
	};

	return cmocka_run_group_tests_name("net_tcp_cc", tests, NULL, NULL);
}
