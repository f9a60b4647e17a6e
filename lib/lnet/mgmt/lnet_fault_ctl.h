/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Fault injection rules of the running LNet instance, for the daemon
 * (`lnetctl fault drop|delay add|del|reset|show`). As the lnet_ctl_*
 * calls, each runs its work on the management lcore and may be made from
 * any thread that is not a logical lcore, such as DPDK's telemetry thread.
 */
#ifndef LNET_FAULT_CTL_H
#define LNET_FAULT_CTL_H

#include <stddef.h>

#include "lnet_fault.h"
#include "lnp_api.h"

LNP_BEGIN_DECLS

struct lnet;

/**
 * The instance's fault injection engine (created with it), or NULL. The
 * LNet core defines it; until it does, lnet_fault_ctl.c keeps an engine of
 * its own that the data path never sees.
 */
struct lnet_fault *lnet_fault_of(struct lnet *ln);

/**
 * Add a rule (lnet_fault_add()).
 * @return 0, -EINVAL with @p err, -ENOSPC, -ENOMEM, -ENETDOWN (LNet is not
 * running)
 */
LNP_API int lnet_fault_ctl_add(enum lnet_fault_kind kind, const struct lnet_fault_attr *attr,
			       char *err, size_t errlen);

/**
 * Delete the rules from @p src to @p dst (NULL or LNET_ANY_NID: any).
 * @return how many were deleted, -ENOENT (none), -ENETDOWN
 */
LNP_API int lnet_fault_ctl_del(enum lnet_fault_kind kind, const struct lnet_nid *src,
			       const struct lnet_nid *dst);

/** Zero the counters of every rule of @p kind. @return 0 or -ENETDOWN */
LNP_API int lnet_fault_ctl_reset(enum lnet_fault_kind kind);

/**
 * Up to @p max rules of @p kind from position @p start, and in *total
 * how many there are (one snapshot).
 * @return number filled, or -ENETDOWN
 */
LNP_API int lnet_fault_ctl_list(enum lnet_fault_kind kind, unsigned int start,
				struct lnet_fault_info *out, unsigned int max, unsigned int *total);

LNP_END_DECLS

#endif /* LNET_FAULT_CTL_H */
