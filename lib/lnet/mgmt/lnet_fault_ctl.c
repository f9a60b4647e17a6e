/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's fault injection calls: each runs on the management lcore,
 * the only place rules change and where the replaced lists are retired.
 */
#include <errno.h>
#include <stdio.h>

#include "lnet_fault_ctl.h"
#include "lnet_ctl.h"
#include "lnet_mgmt.h"

struct lnet_fault *
lnet_fault_of(struct lnet *ln)
{
	return ln->fault;
}

struct lnet_fault_ctl_args {
	struct lnet *ln;
	enum lnet_fault_kind kind;
	const struct lnet_fault_attr *attr;
	const struct lnet_nid *src;
	const struct lnet_nid *dst;
	struct lnet_fault_info *out;
	unsigned int start;
	unsigned int max;
	unsigned int total;
	char *err;
	size_t errlen;
};

/* Run @p fn on the management lcore of the running instance. */
static int
lnet_fault_ctl_call(struct lnet_fault_ctl_args *a, rt_call_fn fn)
{
	a->ln = lnet_instance();
	if (a->ln == NULL) {
		return -ENETDOWN;
	}
	return rt_lcore_call(rt_mgmt_lcore(a->ln->rt), fn, a);
}

static int
lnet_fault_add_on_mgmt(void *arg)
{
	struct lnet_fault_ctl_args *a = arg;
	struct lnet_fault *f = lnet_fault_of(a->ln);

	if (f == NULL) {
		snprintf(a->err, a->errlen, "no fault injection engine");
		return -ENETDOWN;
	}
	return lnet_fault_add(f, a->kind, a->attr, rt_now_us(a->ln->rt), a->err, a->errlen);
}

int
lnet_fault_ctl_add(enum lnet_fault_kind kind, const struct lnet_fault_attr *attr, char *err,
		   size_t errlen)
{
	struct lnet_fault_ctl_args a = { .kind = kind, .attr = attr, .err = err, .errlen = errlen };

	return lnet_fault_ctl_call(&a, lnet_fault_add_on_mgmt);
}

static int
lnet_fault_del_on_mgmt(void *arg)
{
	struct lnet_fault_ctl_args *a = arg;
	struct lnet_fault *f = lnet_fault_of(a->ln);
	int rc = f == NULL ? -ENETDOWN : lnet_fault_del(f, a->kind, a->src, a->dst);

	if (rc > 0 && a->kind == LNET_FAULT_DELAY && !lnet_fault_any(f, LNET_FAULT_DELAY)) {
		lnet_fault_release_held(
			a->ln); /* the kernel lets delayed messages go with their rule */
	}
	return rc;
}

int
lnet_fault_ctl_del(enum lnet_fault_kind kind, const struct lnet_nid *src,
		   const struct lnet_nid *dst)
{
	struct lnet_fault_ctl_args a = { .kind = kind, .src = src, .dst = dst };

	return lnet_fault_ctl_call(&a, lnet_fault_del_on_mgmt);
}

static int
lnet_fault_reset_on_mgmt(void *arg)
{
	struct lnet_fault_ctl_args *a = arg;
	struct lnet_fault *f = lnet_fault_of(a->ln);

	if (f == NULL) {
		return -ENETDOWN;
	}
	lnet_fault_reset(f, a->kind, rt_now_us(a->ln->rt));
	return 0;
}

int
lnet_fault_ctl_reset(enum lnet_fault_kind kind)
{
	struct lnet_fault_ctl_args a = { .kind = kind };

	return lnet_fault_ctl_call(&a, lnet_fault_reset_on_mgmt);
}

static int
lnet_fault_list_on_mgmt(void *arg)
{
	struct lnet_fault_ctl_args *a = arg;
	struct lnet_fault *f = lnet_fault_of(a->ln);

	if (f == NULL) {
		return -ENETDOWN;
	}
	a->total = lnet_fault_count(f, a->kind);
	return (int)lnet_fault_list(f, a->kind, a->start, a->out, a->max);
}

int
lnet_fault_ctl_list(enum lnet_fault_kind kind, unsigned int start, struct lnet_fault_info *out,
		    unsigned int max, unsigned int *total)
{
	struct lnet_fault_ctl_args a = { .kind = kind, .out = out, .start = start, .max = max };
	int rc = lnet_fault_ctl_call(&a, lnet_fault_list_on_mgmt);

	if (rc >= 0 && total != NULL) {
		*total = a.total;
	}
	return rc;
}
