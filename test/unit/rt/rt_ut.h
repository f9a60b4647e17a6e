/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RT_UT_H
#define RT_UT_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt.h"

/* A SIM runtime with @p n_data data lcores and a small ring. */
static inline struct rt_runtime *
ut_sim(unsigned int n_data, unsigned int ring_size)
{
	struct rt_runtime_opts o = {
		.opts_size = sizeof(o),
		.mode = RT_MODE_SIM,
		.n_data = n_data,
		.ring_size = ring_size,
	};
	struct rt_runtime *rt = NULL;

	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	assert_non_null(rt);
	return rt;
}

#endif /* RT_UT_H */
