/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Project-wide helper macros shared by every public header.
 */
#ifndef LNP_API_H
#define LNP_API_H

#include <stdint.h>

/**
 * Gives a symbol default visibility (everything else is hidden), so that
 * liblnet.so can export it. It exports only what lib/version.map lists (the
 * functions of the installed application headers), plus lib/version_sdk.map
 * with -Denable_driver_sdk=true; in-tree programs reach the rest by linking
 * the static libraries.
 */
#define LNP_API __attribute__((visibility("default")))

#ifdef __cplusplus
#define LNP_BEGIN_DECLS extern "C" {
#define LNP_END_DECLS }
#else
/** Opens a C-linkage block in a public header. */
#define LNP_BEGIN_DECLS
/** Closes a C-linkage block in a public header. */
#define LNP_END_DECLS
#endif

/**
 * Time units, for every library and program. The runtime's clocks count
 * microseconds (rt_now_us()); timeouts given by users are in seconds or
 * milliseconds. DPDK's rte_cycles.h has US_PER_S and the like as int: these
 * are 64-bit, so that a count of seconds times one cannot overflow.
 */
#define LNP_MS_PER_S UINT64_C(1000)
#define LNP_US_PER_MS UINT64_C(1000)
#define LNP_US_PER_S UINT64_C(1000000)
#define LNP_NS_PER_US UINT64_C(1000)
#define LNP_NS_PER_MS UINT64_C(1000000)
#define LNP_NS_PER_S UINT64_C(1000000000)

#endif /* LNP_API_H */
