/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socklnd's log type, for every file of the driver: the handshake FSM
 * (sock_conn.c) logs its transitions with it at DEBUG, the NI's files
 * their warnings through SOCK_LOG.
 */
#ifndef SOCK_LOG_H
#define SOCK_LOG_H

#include <rte_log.h>

extern int socklnd_logtype;

#define SOCK_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, socklnd_logtype, "socklnd: " fmt "\n", ##__VA_ARGS__)

#endif /* SOCK_LOG_H */
