/* SPDX-License-Identifier: BSD-3-Clause */
/* The socklnd's log type (sock_log.h), registered at start-up. */
#include <rte_log.h>

#include "sock_log.h"

RTE_LOG_REGISTER_DEFAULT(socklnd_logtype, NOTICE);
