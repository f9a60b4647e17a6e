/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RFC 9293 state machine: one rt_fsm table and the one place a connection
 * changes state (tcp_set_state), and what reaching CLOSED or TIME_WAIT does.
 */
#include <stdio.h>

#include "tcp_internal.h"

RTE_LOG_REGISTER_SUFFIX(net_tcp_logtype, tcp, NOTICE);

static const char *const tcp_state_names[TCPS_N] = {
	"closed",     "listen",     "syn-sent", "syn-received", "established", "fin-wait-1",
	"fin-wait-2", "close-wait", "closing",  "last-ack",     "time-wait",
};

static const char *const tcp_ev_names[TCPE_N] = {
	"connect", "rcv-syn",    "rcv-syn-ack", "rcv-ack-of-syn", "close",
	"rcv-fin", "ack-of-fin", "rst",         "timeout",        "abort",
};

#define X RT_FSM_NONE
#define C TCPS_CLOSED
/* clang-format off */
static const int8_t tcp_table[TCPS_N * TCPE_N] = {
/*               connect        rcv-syn         rcv-syn-ack       ack-of-syn        close            rcv-fin          ack-fin          rst timeout abort */
/* closed   */   TCPS_SYN_SENT, X,              X,                X,                X,               X,               X,               X,  X,      X,
/* listen   */   X,             TCPS_SYN_RCVD,  X,                X,                C,               X,               X,               C,  C,      C,
/* syn-sent */   X,             TCPS_SYN_RCVD,  TCPS_ESTABLISHED, X,                C,               X,               X,               C,  C,      C,
/* syn-rcvd */   X,             X,              X,                TCPS_ESTABLISHED, TCPS_FIN_WAIT_1, X,               X,               C,  C,      C,
/* estab    */   X,             X,              X,                X,                TCPS_FIN_WAIT_1, TCPS_CLOSE_WAIT, X,               C,  C,      C,
/* fin-w-1  */   X,             X,              X,                X,                X,               TCPS_CLOSING,    TCPS_FIN_WAIT_2, C,  C,      C,
/* fin-w-2  */   X,             X,              X,                X,                X,               TCPS_TIME_WAIT,  X,               C,  C,      C,
/* close-w  */   X,             X,              X,                X,                TCPS_LAST_ACK,   X,               X,               C,  C,      C,
/* closing  */   X,             X,              X,                X,                X,               X,               TCPS_TIME_WAIT,  C,  C,      C,
/* last-ack */   X,             X,              X,                X,                X,               X,               C,               C,  C,      C,
/* time-w   */   X,             X,              X,                X,                X,               X,               X,               X,  C,      C,
};
/* clang-format on */
#undef X
#undef C

static const struct rt_fsm tcp_fsm = {
	.name = "tcp",
	.nstates = TCPS_N,
	.nevents = TCPE_N,
	.table = tcp_table,
	.states = tcp_state_names,
	.events = tcp_ev_names,
};

const char *
tcp_state_str(uint8_t state)
{
	return tcp_state_names[state];
}

void
tcp_set_state(struct net_tcp_conn *c, enum tcp_ev ev)
{
	char who[48];
	int next;

	snprintf(who, sizeof(who), "%u->%u", c->lport, c->rport);
	next = rt_fsm_step(&tcp_fsm, net_tcp_logtype, who, c->state, ev, c->counts);
	if (next == RT_FSM_NONE) {
		return;
	}
	c->state = (uint8_t)next;
}

/* The connection reached CLOSED: tell the user, free it once released. */
static void
conn_closed(struct net_tcp_conn *c, int err)
{
	struct tcp_lcore *lc = &c->t->lc[c->lcore];

	if (c->err == 0) {
		c->err = err;
	}
	rt_timer_cancel(&c->timer);
	rt_timer_cancel(&c->ka_timer);
	tcp_ack_dequeue(c);
	if (c->in_table) {
		LIST_REMOVE(c, hnext);
		c->in_table = false;
		lc->n_conns--;
	}
	if (c->listen_port != 0) {
		/* Never accepted: nobody holds it. */
		c->released = true;
	}
	tcp_conn_event(c, NET_TCP_EV_CLOSED, (uint64_t)c->err);
	tcp_conn_maybe_free(c);
}

void
tcp_apply(struct net_tcp_conn *c, enum tcp_ev ev, int err)
{
	tcp_set_state(c, ev);
	if (c->state == TCPS_CLOSED) {
		conn_closed(c, err);
	} else if (c->state == TCPS_TIME_WAIT) {
		rt_timer_arm(&c->timer, c->t->conf.time_wait_us);
	}
}
