/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CFS_H
#define CFS_H
#include "cfs_nid.h"
#endif
