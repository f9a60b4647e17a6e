/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACK tracking: a message written whole waits on its connection's ackq
 * until the peer's TCP acknowledged its last byte (SIOCOUTQ), and only
 * then completes; a connection that ends first fails what still waits.
 */
#ifndef SOCKLND_ACK_H
#define SOCKLND_ACK_H

#include "socklnd_ni.h"

#define SOCKLND_ACK_TICK_US 50 /* an lcore that would sleep looks again this soon */

void socklnd_tx_written(struct socklnd_conn *c, struct sock_tx *tx);
unsigned int socklnd_conn_reap(struct socklnd_conn *c);
void socklnd_ackq_fail(struct socklnd_conn *c, int status, enum lnet_msg_hstatus hs);
/* Every connection of the NI with messages waiting: @return how many completed. */
unsigned int socklnd_reap_all(struct socklnd_ni *s);
/* The NI's ack_timer: while messages wait, a sleeping lcore looks every SOCKLND_ACK_TICK_US. */
void socklnd_ack_tick(void *arg);

#endif /* SOCKLND_ACK_H */
