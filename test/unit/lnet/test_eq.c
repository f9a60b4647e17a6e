/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event queue's rings on their own (lnet_eq.c): capacity, overflow,
 * order across many laps, and several consumer threads against producers
 * on two CPTs, every event taken exactly once. Events are posted with
 * lnet_eq_enqueue as a data lcore posts them; no LNet instance is up.
 */
#include <pthread.h>
#include <time.h>

#include "lnet_ut.h"

static struct lnet_event
numbered(uint64_t n)
{
	struct lnet_event ev = { .type = LNET_EVENT_PUT, .match_bits = n, .hdr_data = ~n };

	return ev;
}

static void
expect_event(struct lnet_eq *eq, int rc, uint64_t n)
{
	struct lnet_event ev;

	memset(&ev, 0, sizeof(ev));
	assert_int_equal(LNetEQPoll(&eq, 1, 0, &ev, NULL), rc);
	assert_int_equal(ev.match_bits, n);
	assert_int_equal(ev.hdr_data, ~n); /* the whole event came across, not a torn one */
}

static void
expect_empty(struct lnet_eq *eq)
{
	struct lnet_event ev;

	assert_int_equal(LNetEQPoll(&eq, 1, 0, &ev, NULL), 0);
}

/* A capacity of 3 holds 4 (a power of two, as the kernel's EQ); the fifth is lost and reported. */
static void
test_capacity_rounds_up_and_overflow_reports_once(void **state)
{
	struct lnet_eq *eq = LNetEQAlloc(3);
	uint64_t i;

	(void)state;
	assert_non_null(eq);
	for (i = 0; i < 5; i++) {
		struct lnet_event ev = numbered(i);

		lnet_eq_enqueue(eq, 0, &ev);
	}
	expect_event(eq, -EOVERFLOW, 0); /* the oldest, with the news of the loss */
	for (i = 1; i < 4; i++) {
		expect_event(eq, 1, i);
	}
	expect_empty(eq);
	assert_int_equal(LNetEQFree(eq), 0);
}

/* Thousands of laps round a ring of 4, filled to 1..4 each time: order and contents hold. */
static void
test_order_holds_over_many_laps(void **state)
{
	struct lnet_eq *eq = LNetEQAlloc(4);
	uint64_t posted = 0;
	uint64_t taken = 0;
	unsigned int lap;

	(void)state;
	assert_non_null(eq);
	for (lap = 0; lap < 5000; lap++) {
		unsigned int burst = lap % 4 + 1;
		unsigned int k;

		for (k = 0; k < burst; k++) {
			struct lnet_event ev = numbered(posted++);

			lnet_eq_enqueue(eq, 0, &ev);
		}
		for (k = 0; k < burst; k++) {
			expect_event(eq, 1, taken++);
		}
		expect_empty(eq);
	}
	assert_int_equal(LNetEQFree(eq), 0);
}

#define STRESS_CPTS 2
#define STRESS_CONSUMERS 3
#define STRESS_EVENTS 200000ULL /* per CPT */
#define STRESS_CAPACITY 8

struct stress {
	struct lnet_eq *eq;
	uint64_t taken;                           /* atomic: events taken, all consumers */
	uint8_t seen[STRESS_CPTS][STRESS_EVENTS]; /* atomic: times each event was taken */
	uint64_t out_of_order;                    /* atomic: a consumer saw a ring go back */
	uint64_t full;                            /* atomic: posts a full ring refused */
	uint64_t deadline_ns;                     /* a broken ring fails the test, not hangs it */
	bool timed_out;                           /* atomic */
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Called where a thread waits (a full ring, an empty one): past the deadline, all stop. */
static bool
stress_expired(struct stress *s)
{
	if (__atomic_load_n(&s->timed_out, __ATOMIC_RELAXED) || now_ns() > s->deadline_ns) {
		__atomic_store_n(&s->timed_out, true, __ATOMIC_RELAXED);
		return true;
	}
	sched_yield();
	return false;
}

struct producer {
	struct stress *s;
	unsigned int cpt;
};

/* The ring's tail: only its producer moves it, and only for an event it posted. */
static uint64_t
ring_tail(const struct lnet_eq *eq, unsigned int cpt)
{
	const struct lnet_eq_ring *r = eq->ring[cpt];

	return r != NULL ? r->tail : 0;
}

/*
 * A data lcore's posting; an event the full ring refused is posted again,
 * so all get through. Whether a post took is told by this ring's tail (the
 * drop count is shared by both producers).
 */
static void *
stress_produce(void *arg)
{
	struct producer *p = arg;
	uint64_t n;

	for (n = 0; n < STRESS_EVENTS; n++) {
		struct lnet_event ev = numbered(n);

		ev.pt_index = p->cpt;
		for (;;) {
			uint64_t tail = ring_tail(p->s->eq, p->cpt);

			lnet_eq_enqueue(p->s->eq, p->cpt, &ev);
			if (ring_tail(p->s->eq, p->cpt) == tail + 1 || stress_expired(p->s)) {
				break;
			}
			__atomic_fetch_add(&p->s->full, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static void *
stress_consume(void *arg)
{
	struct stress *s = arg;
	uint64_t last[STRESS_CPTS] = { 0, 0 };
	bool any[STRESS_CPTS] = { false, false };

	while (__atomic_load_n(&s->taken, __ATOMIC_RELAXED) < STRESS_CPTS * STRESS_EVENTS) {
		struct lnet_event ev;
		int rc = LNetEQPoll(&s->eq, 1, 0, &ev, NULL);

		if (rc == 0) {
			if (stress_expired(s)) {
				break;
			}
			continue;
		}
		/* -EOVERFLOW reports a refused post (posted again) and still gives an event. */
		if ((rc != 1 && rc != -EOVERFLOW) || ev.pt_index >= STRESS_CPTS ||
		    ev.match_bits >= STRESS_EVENTS || ev.hdr_data != ~ev.match_bits) {
			__atomic_fetch_add(&s->out_of_order, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&s->taken, 1, __ATOMIC_RELEASE);
			continue;
		}
		/* One consumer sees each ring's events in the order they were posted. */
		if (any[ev.pt_index] && ev.match_bits <= last[ev.pt_index]) {
			__atomic_fetch_add(&s->out_of_order, 1, __ATOMIC_RELAXED);
		}
		any[ev.pt_index] = true;
		last[ev.pt_index] = ev.match_bits;
		__atomic_fetch_add(&s->seen[ev.pt_index][ev.match_bits], 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&s->taken, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * Producers on two CPTs, three consumer threads, rings of 8 so that they
 * fill and wrap all the time: every event taken once, none torn.
 */
static void
test_consumers_take_each_event_once(void **state)
{
	struct stress *s = calloc(1, sizeof(*s));
	struct producer p[STRESS_CPTS];
	pthread_t prod[STRESS_CPTS];
	pthread_t cons[STRESS_CONSUMERS];
	unsigned int i;
	uint64_t n;

	(void)state;
	assert_non_null(s);
	s->eq = LNetEQAlloc(STRESS_CAPACITY);
	assert_non_null(s->eq);
	s->deadline_ns = now_ns() + 30ULL * 1000000000ULL;
	for (i = 0; i < STRESS_CONSUMERS; i++) {
		assert_int_equal(pthread_create(&cons[i], NULL, stress_consume, s), 0);
	}
	for (i = 0; i < STRESS_CPTS; i++) {
		p[i] = (struct producer){ s, i };
		assert_int_equal(pthread_create(&prod[i], NULL, stress_produce, &p[i]), 0);
	}
	for (i = 0; i < STRESS_CPTS; i++) {
		assert_int_equal(pthread_join(prod[i], NULL), 0);
	}
	for (i = 0; i < STRESS_CONSUMERS; i++) {
		assert_int_equal(pthread_join(cons[i], NULL), 0);
	}
	assert_false(s->timed_out);
	assert_int_equal(s->out_of_order, 0);
	for (i = 0; i < STRESS_CPTS; i++) {
		for (n = 0; n < STRESS_EVENTS; n++) {
			if (s->seen[i][n] != 1) {
				fail_msg("cpt %u event %llu taken %u times", i,
					 (unsigned long long)n, s->seen[i][n]);
			}
		}
	}
	print_message("%llu posts found the ring full\n", (unsigned long long)s->full);
	expect_empty(s->eq);
	assert_int_equal(LNetEQFree(s->eq), 0);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capacity_rounds_up_and_overflow_reports_once),
		cmocka_unit_test(test_order_holds_over_many_laps),
		cmocka_unit_test(test_consumers_take_each_event_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
