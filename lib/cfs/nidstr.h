/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * NID strings for applications: the helpers of Lustre's lnet/nidstr.h that
 * liblnet.so exports (the rest of the NID/net string functions are in cfs.h,
 * inside the library). Include as <lnet/nidstr.h>.
 */
#ifndef LNET_NIDSTR_H
#define LNET_NIDSTR_H

#include <stddef.h>

#include "cfs_nid.h"
#include "lnp_api.h"

LNP_BEGIN_DECLS

/** Enough for any NID, net or process id string. */
#define LNET_NIDSTR_SIZE 64

/** A large NID as a string (IPv6 per RFC 5952); "<?>" for ANY. */
LNP_API char *libcfs_nidstr_r(const struct lnet_nid *nid, char *buf, size_t len);
/** As libcfs_nidstr_r(), in a small per-thread ring of buffers (for logs). */
LNP_API const char *libcfs_nidstr(const struct lnet_nid *nid);
/** Parse a NID (IPv4/IPv6 for IP LNDs, a number otherwise). 0 or -EINVAL. */
LNP_API int libcfs_strnid(struct lnet_nid *nid, const char *str);

LNP_END_DECLS

#endif /* LNET_NIDSTR_H */
