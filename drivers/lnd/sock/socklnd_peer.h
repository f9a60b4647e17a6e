/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * socklnd_peer.c: a socklnd NI's peers, which connections each needs and
 * when to open them. Its connection hooks (the hello, up, gone, requeue,
 * close_siblings of struct socklnd_conn_hooks) are here for socklnd.c to
 * put in the table.
 */
#ifndef SOCKLND_PEER_H
#define SOCKLND_PEER_H

#include "socklnd_ni.h"

extern const struct rt_fsm socklnd_peer_fsm;
int socklnd_peer_set_state(struct socklnd_ni *s, struct socklnd_peer *p,
			   enum socklnd_peer_event ev);
struct socklnd_peer *socklnd_peer_get(struct socklnd_ni *s, const struct lnet_nid *nid);
/* @p p: the peer of @p nid, known to be one this NI reaches; NULL: looked up (and so marked). */
int socklnd_peer_send(struct socklnd_ni *s, struct socklnd_peer *p, const struct lnet_nid *nid,
		      struct sock_tx *tx);
int socklnd_peer_accept(struct socklnd_conn *c, const struct ksock_hello *hello);
void socklnd_peer_conn_up(struct socklnd_conn *c);
void socklnd_peer_conn_gone(struct socklnd_conn *c, enum socklnd_conn_state was, int status);
void socklnd_peer_reconsider(struct socklnd_ni *s, struct socklnd_peer *p);
void socklnd_peer_close_siblings(struct socklnd_conn *c, int status);
bool socklnd_peer_requeue(struct socklnd_conn *c, struct sock_tx *tx, int status);
void socklnd_peer_tick(struct socklnd_ni *s, uint64_t now_us);
void socklnd_peers_fail_waiting(struct socklnd_ni *s, int status, enum lnet_msg_hstatus hs);
void socklnd_peers_destroy(struct socklnd_ni *s, int status);

#endif /* SOCKLND_PEER_H */
