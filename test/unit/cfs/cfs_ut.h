/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CFS_UT_H
#define CFS_UT_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <stdio.h>

#include "cfs.h"

#endif /* CFS_UT_H */
