/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The handshake glue (socklnd_hs.c): how a socklnd NI's connections come
 * to be, passive (the listener's, or handed over by another NI of ours)
 * and active, up to UP.
 */
#ifndef SOCKLND_HS_H
#define SOCKLND_HS_H

#include "socklnd_ni.h"

/* The listener is readable: take the connection, as the accept policy says. */
void socklnd_accept(struct socklnd_ni *s);
/* Open one typed connection to @p p (a NID of our NI's address family, on our net). */
int socklnd_connect_one(struct socklnd_ni *s, struct socklnd_peer *p, int type);
/* The NI's handshake hook (struct socklnd_conn_hooks). */
bool socklnd_hs_event(struct socklnd_conn *c, uint32_t events);

#endif /* SOCKLND_HS_H */
