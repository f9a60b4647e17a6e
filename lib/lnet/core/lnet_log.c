/* SPDX-License-Identifier: BSD-3-Clause */
#include "lnet_log.h"

RTE_LOG_REGISTER_DEFAULT(lnet_logtype, NOTICE);
