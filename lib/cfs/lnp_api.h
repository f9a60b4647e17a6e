/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Project-wide helper macros shared by every public header.
 */
#ifndef LNP_API_H
#define LNP_API_H

/** Marks a symbol exported from liblnet.so (everything else is hidden). */
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
