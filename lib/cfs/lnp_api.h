/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Project-wide helper macros shared by every public header.
 */
#ifndef LNP_API_H
#define LNP_API_H

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

#endif /* LNP_API_H */
