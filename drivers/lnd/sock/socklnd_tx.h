/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A socklnd NI's transmit descriptors (struct sock_tx) and how a message
 * the LND could not deliver completes. socklnd_tx_alloc() is the one place
 * a descriptor comes from.
 */
#ifndef SOCKLND_TX_H
#define SOCKLND_TX_H

#include "socklnd_ni.h"

struct sock_tx *socklnd_tx_alloc(struct socklnd_ni *s);
void socklnd_tx_free(struct socklnd_ni *s, struct sock_tx *tx);
int socklnd_tx_pool_create(struct socklnd_ni *s);
void socklnd_tx_pool_destroy(struct socklnd_ni *s);

enum lnet_msg_hstatus socklnd_hstatus(int status);
void socklnd_msg_fail(void *cookie, int status, enum lnet_msg_hstatus hs);

#endif /* SOCKLND_TX_H */
