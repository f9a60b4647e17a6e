/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The (state, event) table test every FSM gets (include after <cmocka.h>):
 * each pair of the table against the transitions the test writes out, and
 * the FSM's own set_state on an instance in each state: it moves as the table
 * says, counts a change of state once, and leaves a refused pair untouched.
 */
#ifndef LNP_TEST_FSM_H
#define LNP_TEST_FSM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rt_fsm.h"

struct lnp_fsm_edge {
	int from;
	int ev;
	int to;
};

/*
 * Put an instance in @p state, apply @p ev with its set_state, counting into
 * @p counts (zeroed, nstates long); return set_state's result and the state
 * it is in after.
 */
typedef int (*lnp_fsm_apply_fn)(unsigned int state, unsigned int ev, uint64_t *counts,
				unsigned int *after);

static inline int
lnp_fsm_expected(const struct lnp_fsm_edge *allowed, size_t n, unsigned int st, unsigned int ev)
{
	for (size_t i = 0; i < n; i++) {
		if (allowed[i].from == (int)st && allowed[i].ev == (int)ev) {
			return allowed[i].to;
		}
	}
	return RT_FSM_NONE;
}

static inline void
lnp_fsm_check(const struct rt_fsm *f, const struct lnp_fsm_edge *allowed, size_t n,
	      lnp_fsm_apply_fn apply)
{
	uint64_t counts[32];
	unsigned int pairs = 0;

	assert_true(f->nstates <= 32);
	for (unsigned int st = 0; st < f->nstates; st++) {
		assert_string_not_equal(rt_fsm_state_str(f, st), "?");
		for (unsigned int ev = 0; ev < f->nevents; ev++) {
			int want = lnp_fsm_expected(allowed, n, st, ev);
			unsigned int after = UINT32_MAX;

			assert_string_not_equal(rt_fsm_event_str(f, ev), "?");
			assert_int_equal(rt_fsm_next(f, st, ev), want);
			memset(counts, 0, sizeof(counts));
			assert_int_equal(apply(st, ev, counts, &after),
					 want == RT_FSM_NONE ? -EINVAL : 0);
			assert_int_equal(after, want == RT_FSM_NONE ? (int)st : want);
			for (unsigned int k = 0; k < f->nstates; k++) {
				assert_int_equal(counts[k], want != RT_FSM_NONE &&
								    want != (int)st &&
								    k == (unsigned int)want);
			}
			pairs++;
		}
	}
	assert_int_equal(pairs, f->nstates * f->nevents);
	assert_string_equal(rt_fsm_state_str(f, f->nstates), "?");
	assert_string_equal(rt_fsm_event_str(f, f->nevents), "?");
	assert_int_equal(rt_fsm_next(f, f->nstates, 0), RT_FSM_NONE);
	assert_int_equal(rt_fsm_next(f, 0, f->nevents), RT_FSM_NONE);
}

#endif /* LNP_TEST_FSM_H */
