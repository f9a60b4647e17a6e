/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node. The public API has no context argument (it mirrors kernel
 * LNet's), so its instance is the one global; every internal function
 * takes the struct lnet it works on. LNetNIInit and LNetNIFini
 * (mgmt/lnet_init.c) publish it and raise the stop flag, which outlives
 * the instance.
 */
#include "lnet_internal.h"

static struct lnet *g_lnet;
static bool g_stopping;

struct lnet *
lnet_instance(void)
{
	return __atomic_load_n(&g_lnet, __ATOMIC_SEQ_CST);
}

void
lnet_instance_publish(struct lnet *ln)
{
	__atomic_store_n(&g_lnet, ln, __ATOMIC_SEQ_CST);
}

bool
lnet_stopping(void)
{
	return __atomic_load_n(&g_stopping, __ATOMIC_SEQ_CST);
}

void
lnet_stopping_set(bool stopping)
{
	__atomic_store_n(&g_stopping, stopping, __ATOMIC_SEQ_CST);
}
