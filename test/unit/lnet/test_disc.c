/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Discovery of one peer (lnet_disc.c), in simulated time with fake ops that
 * write what they are asked into a log: every (state, event) cell of the
 * table, the transitions with the actions they call in order and the state
 * the decisions lead to, the refused ones changing nothing; then seed 002's
 * races and the kernel's rules (sequence numbers, pushes owed to Multi-Rail
 * peers, discovery off) through the entry points.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lnet_disc.h"
#include "lnp_test_fsm.h"

#define NOW 1000u
#define TMO 10u

static struct {
	char log[512];
	int ping_rc;
	int merge_rc;
	uint32_t last_ping_token;
	uint32_t last_push_token;
	struct lnet_disc *moved_to;
} g;

static void __attribute__((format(printf, 1, 2))) logf_(const char *fmt, ...)
{
	size_t len = strlen(g.log);
	va_list ap;

	if (len > 0) {
		snprintf(g.log + len, sizeof(g.log) - len, " ");
		len++;
	}
	va_start(ap, fmt);
	vsnprintf(g.log + len, sizeof(g.log) - len, fmt, ap);
	va_end(ap);
}

static int
f_send_ping(struct lnet_disc *d, uint32_t token, uint32_t size)
{
	(void)d;
	g.last_ping_token = token;
	logf_("ping:%u", size);
	return g.ping_rc;
}

static int
f_send_push(struct lnet_disc *d, uint32_t token, uint32_t seqno)
{
	(void)d;
	g.last_push_token = token;
	logf_("push:%u", seqno);
	return 0;
}

static int
f_merge(struct lnet_disc *d, const struct lnet_disc_data *data)
{
	(void)d;
	logf_("merge:%u", data->seqno);
	return g.merge_rc;
}

static void
f_release(struct lnet_disc *d)
{
	(void)d;
	logf_("release");
}

static void
f_fail(struct lnet_disc *d, int error)
{
	(void)d;
	logf_("fail:%d", error);
}

static void
f_move(struct lnet_disc *from, struct lnet_disc *to)
{
	(void)from;
	g.moved_to = to;
	logf_("move");
}

static void
f_arm(struct lnet_disc *d, uint64_t deadline)
{
	(void)d;
	logf_("arm:%u", (unsigned int)deadline);
}

static void
f_cancel(struct lnet_disc *d)
{
	(void)d;
	logf_("cancel");
}

static const struct lnet_disc_ops fake_ops = {
	.send_ping = f_send_ping,
	.send_push = f_send_push,
	.merge = f_merge,
	.release_held = f_release,
	.fail_held = f_fail,
	.move_held = f_move,
	.arm_timer = f_arm,
	.cancel_timer = f_cancel,
};

static struct lnet_disc_node node;
static struct lnet_disc peer_a;
static struct lnet_disc peer_b;

static int
setup(void **state)
{
	(void)state;
	memset(&g, 0, sizeof(g));
	lnet_disc_node_init(&node, &fake_ops, NULL, TMO);
	lnet_disc_init(&node, &peer_a, &peer_a);
	lnet_disc_init(&node, &peer_b, &peer_b);
	return 0;
}

static void
clear_log(void)
{
	g.log[0] = '\0';
}

/* Put @p d in @p st as a real run would have left it (step in flight, timer armed). */
static void
put_in(struct lnet_disc *d, enum lnet_disc_state st)
{
	d->state = st;
	if (st == LNET_DISC_PING_SENT) {
		d->ping_token = 77;
		d->timer_armed = true;
		d->deadline = NOW;
	} else if (st == LNET_DISC_PUSH_SENT) {
		d->push_token = 78;
		d->pushed_seqno = node.local_seqno;
		d->timer_armed = true;
		d->deadline = NOW;
	}
}

/* ---- the table itself, with lnp_test_fsm.h ---- */

#define U LNET_DISC_UNDISCOVERED
#define PG LNET_DISC_PING_SENT
#define W LNET_DISC_WORK
#define PS LNET_DISC_PUSH_SENT
#define D LNET_DISC_DISCOVERED
#define N LNET_DISC_NO_DISCOVERY
#define E LNET_DISC_ERROR
#define X LNET_DISC_DELETED
#define M LNET_DISC_MERGED

/* A transition cell: the table's next state, where the decisions end, the actions in order. */
struct cell {
	int from;
	int ev;
	int to;  /* the table's */
	int end; /* after the decisions the actions lead to */
	const char *log;
};

#define PING "ping:272 arm:1010"

static const struct cell cells[] = {
	{ U, LNET_DISC_EV_SEND, PG, PG, PING },
	{ U, LNET_DISC_EV_DISCOVER, PG, PG, PING },
	{ U, LNET_DISC_EV_FORCE, PG, PG, PING },
	{ U, LNET_DISC_EV_PUSH, W, D, "merge:5 release" },
	{ U, LNET_DISC_EV_PUSH_BAD, PG, PG, PING },
	{ U, LNET_DISC_EV_LOCAL_NI, U, U, "" },
	{ U, LNET_DISC_EV_DISC_OFF, N, N, "" },
	{ U, LNET_DISC_EV_ADOPT, PG, PG, PING },
	{ U, LNET_DISC_EV_DELETE, X, X, "fail:-113" },
	{ U, LNET_DISC_EV_MERGED, M, M, "move" },

	{ PG, LNET_DISC_EV_SEND, PG, PG, "" },
	{ PG, LNET_DISC_EV_DISCOVER, PG, PG, "" },
	{ PG, LNET_DISC_EV_REPLY, W, D, "cancel merge:5 release" },
	{ PG, LNET_DISC_EV_REPLY_TRUNC, PG, PG, "cancel ping:600 arm:1010" },
	{ PG, LNET_DISC_EV_PUSH, PG, PG, "merge:5" },
	{ PG, LNET_DISC_EV_PUSH_BAD, PG, PG, "" },
	{ PG, LNET_DISC_EV_FAIL, E, E, "cancel fail:-5" },
	{ PG, LNET_DISC_EV_TIMEOUT, E, E, "fail:-110" },
	{ PG, LNET_DISC_EV_LOCAL_NI, PG, PG, "" },
	{ PG, LNET_DISC_EV_DISC_OFF, N, N, "cancel release" },
	{ PG, LNET_DISC_EV_ADOPT, PG, PG, "" },
	{ PG, LNET_DISC_EV_DELETE, X, X, "cancel fail:-113" },
	{ PG, LNET_DISC_EV_MERGED, M, M, "cancel move" },

	{ W, LNET_DISC_EV_FORCE, PG, PG, PING },
	{ W, LNET_DISC_EV_FAIL, E, E, "fail:-5" },
	{ W, LNET_DISC_EV_DISC_OFF, N, N, "release" },
	{ W, LNET_DISC_EV_NEEDS_PUSH, PS, PS, "push:1 arm:1010" },
	{ W, LNET_DISC_EV_UPTODATE, D, D, "release" },

	{ PS, LNET_DISC_EV_SEND, PS, PS, "" },
	{ PS, LNET_DISC_EV_DISCOVER, PS, PS, "" },
	{ PS, LNET_DISC_EV_PUSH, PS, PS, "merge:5" },
	{ PS, LNET_DISC_EV_PUSH_BAD, PS, PS, "" },
	{ PS, LNET_DISC_EV_ACK, W, D, "cancel release" },
	{ PS, LNET_DISC_EV_FAIL, E, E, "cancel fail:-5" },
	{ PS, LNET_DISC_EV_TIMEOUT, E, E, "fail:-110" },
	{ PS, LNET_DISC_EV_LOCAL_NI, PS, PS, "" },
	{ PS, LNET_DISC_EV_DISC_OFF, N, N, "cancel release" },
	{ PS, LNET_DISC_EV_ADOPT, PS, PS, "" },
	{ PS, LNET_DISC_EV_DELETE, X, X, "cancel fail:-113" },
	{ PS, LNET_DISC_EV_MERGED, M, M, "cancel move" },

	{ D, LNET_DISC_EV_SEND, D, D, "" },
	{ D, LNET_DISC_EV_DISCOVER, D, D, "" },
	{ D, LNET_DISC_EV_FORCE, PG, PG, PING },
	{ D, LNET_DISC_EV_PUSH, W, D, "merge:5 release" },
	{ D, LNET_DISC_EV_PUSH_BAD, PG, PG, PING },
	{ D, LNET_DISC_EV_LOCAL_NI, W, D, "release" },
	{ D, LNET_DISC_EV_DISC_OFF, N, N, "" },
	{ D, LNET_DISC_EV_ADOPT, D, D, "release" },
	{ D, LNET_DISC_EV_DELETE, X, X, "fail:-113" },
	{ D, LNET_DISC_EV_MERGED, M, M, "move" },

	{ N, LNET_DISC_EV_SEND, N, N, "" },
	{ N, LNET_DISC_EV_DISCOVER, PG, PG, PING },
	{ N, LNET_DISC_EV_FORCE, PG, PG, PING },
	{ N, LNET_DISC_EV_PUSH, N, N, "merge:5" },
	{ N, LNET_DISC_EV_LOCAL_NI, N, N, "" },
	{ N, LNET_DISC_EV_DISC_OFF, N, N, "" },
	{ N, LNET_DISC_EV_DISC_ON, U, U, "" },
	{ N, LNET_DISC_EV_ADOPT, N, N, "release" },
	{ N, LNET_DISC_EV_DELETE, X, X, "fail:-113" },
	{ N, LNET_DISC_EV_MERGED, M, M, "move" },

	{ E, LNET_DISC_EV_SEND, PG, PG, PING },
	{ E, LNET_DISC_EV_DISCOVER, PG, PG, PING },
	{ E, LNET_DISC_EV_FORCE, PG, PG, PING },
	{ E, LNET_DISC_EV_PUSH, W, D, "merge:5 release" },
	{ E, LNET_DISC_EV_PUSH_BAD, PG, PG, PING },
	{ E, LNET_DISC_EV_LOCAL_NI, E, E, "" },
	{ E, LNET_DISC_EV_DISC_OFF, N, N, "" },
	{ E, LNET_DISC_EV_ADOPT, PG, PG, PING },
	{ E, LNET_DISC_EV_DELETE, X, X, "fail:-113" },
	{ E, LNET_DISC_EV_MERGED, M, M, "move" },
};

#define NCELLS (sizeof(cells) / sizeof(cells[0]))

static int
apply_set_state(unsigned int st, unsigned int ev, uint64_t *counts, unsigned int *after)
{
	int rc;

	setup(NULL);
	put_in(&peer_a, (enum lnet_disc_state)st);
	rc = lnet_disc_set_state(&peer_a, (enum lnet_disc_event)ev);
	memcpy(counts, node.entered, sizeof(node.entered));
	*after = peer_a.state;
	return rc;
}

static void
test_table(void **state)
{
	struct lnp_fsm_edge edges[NCELLS];

	(void)state;
	for (size_t i = 0; i < NCELLS; i++) {
		edges[i] = (struct lnp_fsm_edge){ cells[i].from, cells[i].ev, cells[i].to };
	}
	lnp_fsm_check(&lnet_disc_fsm, edges, NCELLS, apply_set_state);
}

/* The argument each event gets in the cell walk. */
static const struct lnet_disc_data data5 = { .seqno = 5, .nbytes = 100, .discovery = true };
static const struct lnet_disc_data data600 = { .seqno = 5, .nbytes = 600, .discovery = true };

static struct lnet_disc_arg
arg_for(unsigned int ev)
{
	struct lnet_disc_arg a = { .data = &data5, .error = -EIO, .survivor = &peer_b };

	if (ev == LNET_DISC_EV_REPLY_TRUNC) {
		a.data = &data600;
	}
	return a;
}

static const struct cell *
cell_of(unsigned int st, unsigned int ev)
{
	for (size_t i = 0; i < NCELLS; i++) {
		if (cells[i].from == (int)st && cells[i].ev == (int)ev) {
			return &cells[i];
		}
	}
	return NULL;
}

/* Every cell through lnet_disc_fire: actions in order and the end state; refusals do nothing. */
static void
test_every_cell_actions(void **state)
{
	unsigned int checked = 0;

	(void)state;
	for (unsigned int st = 0; st < LNET_DISC_NSTATES; st++) {
		for (unsigned int ev = 0; ev < LNET_DISC_NEVENTS; ev++) {
			const struct cell *c = cell_of(st, ev);
			struct lnet_disc_arg a = arg_for(ev);
			struct lnet_disc before;
			int rc;

			setup(NULL);
			put_in(&peer_a, (enum lnet_disc_state)st);
			before = peer_a;
			rc = lnet_disc_fire(&peer_a, (enum lnet_disc_event)ev, &a, NOW);
			if (c == NULL) {
				assert_int_equal(rc, -EINVAL);
				assert_string_equal(g.log, "");
				assert_memory_equal(&before, &peer_a, sizeof(before));
				assert_int_equal(node.stats.refused, 1);
			} else {
				if (rc != 0 || peer_a.state != (enum lnet_disc_state)c->end ||
				    strcmp(g.log, c->log) != 0) {
					print_error("cell %s x %s: rc %d, ended %s, log \"%s\"\n",
						    lnet_disc_state_str(st),
						    rt_fsm_event_str(&lnet_disc_fsm, ev), rc,
						    lnet_disc_state_str(peer_a.state), g.log);
				}
				assert_int_equal(rc, 0);
				assert_int_equal(peer_a.state, c->end);
				assert_string_equal(g.log, c->log);
				assert_int_equal(node.stats.refused, 0);
			}
			checked++;
		}
	}
	assert_int_equal(checked, LNET_DISC_NSTATES * LNET_DISC_NEVENTS);
}

/* ---- through the entry points ---- */

static const struct lnet_disc_data mr7 = {
	.seqno = 7,
	.nbytes = 48,
	.multi_rail = true,
	.discovery = true,
};

/* First message to a Multi-Rail peer: held, ping, reply, our push, its ACK, released. */
static void
test_first_message_mr_peer(void **state)
{
	(void)state;
	assert_int_equal(peer_a.state, U);
	assert_int_equal(lnet_disc_send(&peer_a, NOW), LNET_DISC_HOLD);
	assert_int_equal(lnet_disc_send(&peer_a, NOW + 1), LNET_DISC_HOLD);
	assert_int_equal(peer_a.held, 2);
	assert_string_equal(g.log, PING);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &mr7, NOW + 2), 0);
	assert_string_equal(g.log, "cancel merge:7 push:1 arm:1012");
	assert_int_equal(peer_a.state, PS);
	assert_true(peer_a.multi_rail);
	assert_int_equal(lnet_disc_send(&peer_a, NOW + 3), LNET_DISC_HOLD);
	clear_log();
	assert_int_equal(lnet_disc_ack(&peer_a, g.last_push_token, 0, NOW + 4), 0);
	assert_string_equal(g.log, "cancel release");
	assert_int_equal(peer_a.state, D);
	assert_int_equal(peer_a.held, 0);
	assert_int_equal(peer_a.node_seqno, 1);
	assert_int_equal(lnet_disc_send(&peer_a, NOW + 5), LNET_DISC_PASS);
	assert_int_equal(node.entered[PG], 1);
	assert_int_equal(node.entered[W], 2);
	assert_int_equal(node.entered[PS], 1);
	assert_int_equal(node.entered[D], 1);
}

/* A non-Multi-Rail peer is never pushed, not even when our NIs change. */
static void
test_non_mr_peer_no_push(void **state)
{
	struct lnet_disc_data plain = mr7;

	(void)state;
	plain.multi_rail = false;
	assert_int_equal(lnet_disc_send(&peer_a, NOW), LNET_DISC_HOLD);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &plain, NOW), 0);
	assert_string_equal(g.log, "cancel merge:7 release");
	clear_log();
	lnet_disc_node_local_changed(&node, 2);
	assert_int_equal(lnet_disc_local_changed(&peer_a, NOW), 0);
	assert_string_equal(g.log, "release");
	assert_int_equal(peer_a.state, D);
}

/* A Multi-Rail peer that runs without discovery is not taken as Multi-Rail, nor pushed. */
static void
test_peer_without_discovery_not_mr(void **state)
{
	struct lnet_disc_data nodisc = mr7;

	(void)state;
	nodisc.discovery = false;
	lnet_disc_send(&peer_a, NOW);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &nodisc, NOW), 0);
	assert_string_equal(g.log, "cancel merge:7 release");
	assert_false(peer_a.multi_rail);
	assert_false(peer_a.peer_discovery);
	lnet_disc_node_local_changed(&node, 2);
	clear_log();
	assert_int_equal(lnet_disc_local_changed(&peer_a, NOW), 0);
	assert_string_equal(g.log, "release");
}

/* s1_04/s1_05: our NI list changes, every discovered MR peer is pushed the new seqno. */
static void
test_local_change_pushes_mr_peer(void **state)
{
	(void)state;
	lnet_disc_send(&peer_a, NOW);
	lnet_disc_reply(&peer_a, g.last_ping_token, 0, &mr7, NOW);
	lnet_disc_ack(&peer_a, g.last_push_token, 0, NOW);
	assert_int_equal(peer_a.state, D);
	clear_log();
	lnet_disc_node_local_changed(&node, 2);
	assert_int_equal(lnet_disc_local_changed(&peer_a, NOW + 50), 0);
	assert_string_equal(g.log, "push:2 arm:1060");
	assert_int_equal(lnet_disc_send(&peer_a, NOW + 51), LNET_DISC_HOLD);
	/* and again while that push is out: one more push after its ACK */
	lnet_disc_node_local_changed(&node, 3);
	assert_int_equal(lnet_disc_local_changed(&peer_a, NOW + 52), 0);
	clear_log();
	assert_int_equal(lnet_disc_ack(&peer_a, g.last_push_token, 0, NOW + 53), 0);
	assert_string_equal(g.log, "cancel push:3 arm:1063");
	assert_int_equal(peer_a.node_seqno, 2);
	clear_log();
	assert_int_equal(lnet_disc_ack(&peer_a, g.last_push_token, 0, NOW + 54), 0);
	assert_string_equal(g.log, "cancel release");
	assert_int_equal(peer_a.node_seqno, 3);
}

/* Seed 002: a push arrives while our ping is out; the ping's older reply does not undo it. */
static void
test_race_push_during_ping(void **state)
{
	struct lnet_disc_data push = mr7;
	struct lnet_disc_data reply = mr7;

	(void)state;
	push.seqno = 8;
	reply.seqno = 7;
	assert_int_equal(lnet_disc_send(&peer_a, NOW), LNET_DISC_HOLD);
	clear_log();
	assert_int_equal(lnet_disc_push(&peer_a, &push, NOW + 1), 0);
	assert_string_equal(g.log, "merge:8");
	assert_int_equal(peer_a.state, PG);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &reply, NOW + 2), 0);
	assert_string_equal(g.log, "cancel push:1 arm:1012");
	assert_int_equal(node.stats.old_data, 1);
	assert_int_equal(peer_a.peer_seqno, 8);
	/* a reply with the push's own seqno is no newer either */
	assert_int_equal(lnet_disc_ack(&peer_a, g.last_push_token, 0, NOW + 3), 0);
	assert_int_equal(lnet_disc_discover(&peer_a, true, NOW + 4), 0);
	lnet_disc_push(&peer_a, &push, NOW + 5);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &push, NOW + 6), 0);
	assert_string_equal(g.log, "cancel release");
	assert_int_equal(node.stats.old_data, 2);
	/* outside a ping, a push is always merged (the kernel takes every push as new) */
	clear_log();
	assert_int_equal(lnet_disc_push(&peer_a, &push, NOW + 3), 0);
	assert_string_equal(g.log, "merge:8 release");
	assert_int_equal(node.stats.old_data, 2);
}

/* A reply built after the push (higher seqno) is the newer one: merged. */
static void
test_reply_newer_than_push_during_ping(void **state)
{
	struct lnet_disc_data push = mr7;
	struct lnet_disc_data reply = mr7;

	(void)state;
	push.seqno = 8;
	reply.seqno = 9;
	lnet_disc_send(&peer_a, NOW);
	lnet_disc_push(&peer_a, &push, NOW + 1);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &reply, NOW + 2), 0);
	assert_string_equal(g.log, "cancel merge:9 push:1 arm:1012");
	assert_int_equal(node.stats.old_data, 0);
	assert_int_equal(peer_a.peer_seqno, 9);
}

/* The peer restarted: its seqno starts again lower, and its data is still taken. */
static void
test_peer_restart_lower_seqno(void **state)
{
	struct lnet_disc_data before = mr7;
	struct lnet_disc_data after = mr7;

	(void)state;
	before.seqno = 40;
	after.seqno = 2;
	lnet_disc_send(&peer_a, NOW);
	lnet_disc_reply(&peer_a, g.last_ping_token, 0, &before, NOW);
	lnet_disc_ack(&peer_a, g.last_push_token, 0, NOW);
	assert_int_equal(peer_a.peer_seqno, 40);
	lnet_disc_discover(&peer_a, true, NOW + 1);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &after, NOW + 2), 0);
	assert_string_equal(g.log, "cancel merge:2 release");
	assert_int_equal(peer_a.peer_seqno, 2);
	clear_log();
	after.seqno = 1;
	assert_int_equal(lnet_disc_push(&peer_a, &after, NOW + 3), 0);
	assert_string_equal(g.log, "merge:1 release");
	assert_int_equal(peer_a.peer_seqno, 1);
	/* that push came before the next ping: its reply is merged even at the same seqno */
	assert_int_equal(lnet_disc_discover(&peer_a, true, NOW + 4), 0);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &after, NOW + 5), 0);
	assert_string_equal(g.log, "cancel merge:1 release");
	assert_int_equal(node.stats.old_data, 0);
}

/* Seed 002: the reply comes after its timeout: ignored; the next message pings anew. */
static void
test_race_reply_after_timeout(void **state)
{
	uint32_t first;

	(void)state;
	assert_int_equal(lnet_disc_send(&peer_a, NOW), LNET_DISC_HOLD);
	first = g.last_ping_token;
	clear_log();
	assert_int_equal(lnet_disc_timer(&peer_a, NOW + TMO - 1), -ESTALE); /* not due yet */
	assert_string_equal(g.log, "");
	assert_int_equal(lnet_disc_timer(&peer_a, NOW + TMO), 0);
	assert_string_equal(g.log, "fail:-110");
	assert_int_equal(peer_a.state, E);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, first, 0, &mr7, NOW + TMO + 1), -ESTALE);
	assert_string_equal(g.log, "");
	assert_int_equal(peer_a.state, E);
	assert_int_equal(node.stats.stale_reply, 1);
	assert_int_equal(lnet_disc_timer(&peer_a, NOW + 100), -ESTALE); /* nothing armed */
	/* retried on the next message; the first ping's reply stays stale */
	assert_int_equal(lnet_disc_send(&peer_a, NOW + 200), LNET_DISC_HOLD);
	assert_true(g.last_ping_token != first);
	assert_int_equal(lnet_disc_reply(&peer_a, first, 0, &mr7, NOW + 201), -ESTALE);
	assert_int_equal(peer_a.state, PG);
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &mr7, NOW + 202), 0);
	assert_int_equal(peer_a.state, PS);
}

/* The reply says the info is bigger than our buffer: re-ping with that size, once. */
static void
test_race_truncated_reply_repings(void **state)
{
	struct lnet_disc_data big = mr7;
	uint32_t first;

	(void)state;
	big.nbytes = 16 + 16 * 40; /* 0@lo and 39 NIDs */
	big.multi_rail = false;
	lnet_disc_send(&peer_a, NOW);
	first = g.last_ping_token;
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, first, 0, &big, NOW + 1), 0);
	assert_string_equal(g.log, "cancel ping:656 arm:1011");
	assert_int_equal(peer_a.ping_size, 656);
	assert_int_equal(peer_a.state, PG);
	assert_int_equal(lnet_disc_reply(&peer_a, first, 0, &big, NOW + 2), -ESTALE);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &big, NOW + 3), 0);
	assert_string_equal(g.log, "cancel merge:7 release");
	assert_int_equal(peer_a.state, D);
	/* a size past the largest possible info is bad data, not a bigger ping */
	lnet_disc_discover(&peer_a, true, NOW + 4);
	big.nbytes = LNET_DISC_PING_MAX_SIZE + 4;
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &big, NOW + 5), 0);
	assert_string_equal(g.log, "cancel fail:-7");
	assert_int_equal(node.stats.too_big, 1);
	assert_int_equal(peer_a.state, E);
}

/* Seed 002: two peers found to be one; the one merged away ends, its messages move. */
static void
test_race_two_peers_merged(void **state)
{
	(void)state;
	/* A is being discovered with two messages held; B is discovered */
	assert_int_equal(lnet_disc_send(&peer_a, NOW), LNET_DISC_HOLD);
	assert_int_equal(lnet_disc_send(&peer_a, NOW), LNET_DISC_HOLD);
	put_in(&peer_b, D);
	clear_log();
	assert_int_equal(lnet_disc_merge(&peer_a, &peer_b, NOW + 1), 0);
	assert_string_equal(g.log, "cancel move release");
	assert_ptr_equal(g.moved_to, &peer_b);
	assert_int_equal(peer_a.state, M);
	assert_int_equal(peer_a.held, 0);
	assert_int_equal(peer_b.held, 0);
	/* nothing fires on A after */
	clear_log();
	assert_int_equal(lnet_disc_timer(&peer_a, NOW + TMO), -ESTALE);
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &mr7, NOW + 2), -ESTALE);
	assert_int_equal(lnet_disc_send(&peer_a, NOW + 3), -ENOENT);
	assert_int_equal(lnet_disc_push(&peer_a, &mr7, NOW + 3), -EINVAL);
	assert_string_equal(g.log, "");
	assert_int_equal(lnet_disc_merge(&peer_b, &peer_a, NOW + 4), -EINVAL);
	assert_int_equal(lnet_disc_merge(&peer_b, &peer_b, NOW + 4), -EINVAL);
	/* merged with no survivor named: its messages fail rather than vanish */
	clear_log();
	assert_int_equal(lnet_disc_fire(&peer_b, LNET_DISC_EV_MERGED, NULL, NOW + 5), 0);
	assert_string_equal(g.log, "fail:-113");
	assert_int_equal(peer_b.state, M);
}

/* Merged into a survivor still under discovery: the messages wait for its end. */
static void
test_merge_into_peer_under_discovery(void **state)
{
	uint32_t b_token;

	(void)state;
	lnet_disc_send(&peer_b, NOW);
	b_token = g.last_ping_token;
	lnet_disc_send(&peer_a, NOW);
	clear_log();
	assert_int_equal(lnet_disc_merge(&peer_a, &peer_b, NOW + 1), 0);
	assert_string_equal(g.log, "cancel move");
	assert_int_equal(peer_b.held, 2);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_b, b_token, 0, &data5, NOW + 2), 0);
	assert_string_equal(g.log, "cancel merge:5 release");
	assert_int_equal(peer_b.held, 0);
}

/* Peer deleted with its timer armed: messages failed; the timer firing after does nothing. */
static void
test_race_deleted_with_timer_armed(void **state)
{
	(void)state;
	assert_int_equal(lnet_disc_send(&peer_a, NOW), LNET_DISC_HOLD);
	assert_true(peer_a.timer_armed);
	clear_log();
	assert_int_equal(lnet_disc_delete(&peer_a, NOW + 1), 0);
	assert_string_equal(g.log, "cancel fail:-113");
	assert_int_equal(peer_a.state, X);
	clear_log();
	assert_int_equal(lnet_disc_timer(&peer_a, NOW + TMO), -ESTALE);
	assert_int_equal(lnet_disc_fire(&peer_a, LNET_DISC_EV_TIMEOUT, NULL, NOW + TMO), -EINVAL);
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &mr7, NOW + 2), -ESTALE);
	assert_int_equal(lnet_disc_send(&peer_a, NOW + 3), -ENOENT);
	assert_int_equal(lnet_disc_discover(&peer_a, true, NOW + 3), -ENOENT);
	assert_int_equal(lnet_disc_delete(&peer_a, NOW + 3), -EINVAL);
	assert_string_equal(g.log, "");
	assert_int_equal(peer_a.state, X);
}

/* `set discovery 0` while a ping is out: held messages go as they are; on again rediscovers. */
static void
test_race_discovery_off_while_discovering(void **state)
{
	uint32_t token;

	(void)state;
	assert_int_equal(lnet_disc_send(&peer_a, NOW), LNET_DISC_HOLD);
	token = g.last_ping_token;
	clear_log();
	lnet_disc_node_enable(&node, false);
	assert_int_equal(lnet_disc_enable(&peer_a, false, NOW + 1), 0);
	assert_string_equal(g.log, "cancel release");
	assert_int_equal(peer_a.state, N);
	assert_int_equal(lnet_disc_send(&peer_a, NOW + 2), LNET_DISC_PASS);
	assert_int_equal(lnet_disc_reply(&peer_a, token, 0, &mr7, NOW + 3), -ESTALE);
	/* a new peer with discovery off is used without a ping (s2_01) */
	lnet_disc_init(&node, &peer_b, &peer_b);
	assert_int_equal(peer_b.state, N);
	clear_log();
	assert_int_equal(lnet_disc_send(&peer_b, NOW), LNET_DISC_PASS);
	assert_string_equal(g.log, "");
	/* `lnetctl discover` still pings; the peer stays undiscovered-by-rule, not pushed */
	assert_int_equal(lnet_disc_discover(&peer_b, false, NOW + 4), 0);
	assert_string_equal(g.log, "ping:272 arm:1014");
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_b, g.last_ping_token, 0, &mr7, NOW + 5), 0);
	assert_string_equal(g.log, "cancel merge:7 release");
	assert_int_equal(peer_b.state, N);
	assert_false(peer_b.multi_rail); /* discovery off here: not Multi-Rail (s2_01) */
	/* on again (s2_02): the next message discovers */
	lnet_disc_node_enable(&node, true);
	assert_int_equal(lnet_disc_enable(&peer_a, true, NOW + 6), 0);
	assert_int_equal(peer_a.state, U);
	clear_log();
	assert_int_equal(lnet_disc_send(&peer_a, NOW + 7), LNET_DISC_HOLD);
	assert_string_equal(g.log, "ping:272 arm:1017");
}

/* Data the peer table refuses (NIDs of another peer...) fails the discovery. */
static void
test_merge_refused_fails(void **state)
{
	(void)state;
	lnet_disc_send(&peer_a, NOW);
	g.merge_rc = -EEXIST;
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &mr7, NOW + 1), 0);
	assert_string_equal(g.log, "cancel merge:7 fail:-17");
	assert_int_equal(peer_a.state, E);
	assert_false(peer_a.have_peer_seqno);
	/* an error event on the reply */
	g.merge_rc = 0;
	lnet_disc_send(&peer_a, NOW + 2);
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, -EIO, NULL, NOW + 3), 0);
	assert_string_equal(g.log, "cancel fail:-5");
	/* a refused push during a ping means a re-ping once the ping ends */
	lnet_disc_send(&peer_a, NOW + 4);
	g.merge_rc = -EEXIST;
	clear_log();
	assert_int_equal(lnet_disc_push(&peer_a, &mr7, NOW + 5), 0);
	assert_string_equal(g.log, "merge:7");
	assert_int_equal(peer_a.state, PG);
	g.merge_rc = 0;
	clear_log();
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &data5, NOW + 6), 0);
	assert_string_equal(g.log, "cancel merge:5 ping:272 arm:1016");
}

/* A corrupt push: a discovered peer is pinged; one during a push is pinged after its ACK. */
static void
test_bad_push_repings(void **state)
{
	(void)state;
	lnet_disc_send(&peer_a, NOW);
	lnet_disc_reply(&peer_a, g.last_ping_token, 0, &mr7, NOW);
	assert_int_equal(peer_a.state, PS);
	clear_log();
	assert_int_equal(lnet_disc_push(&peer_a, NULL, NOW + 1), 0);
	assert_string_equal(g.log, "");
	assert_true(peer_a.reping);
	assert_int_equal(lnet_disc_ack(&peer_a, g.last_push_token, 0, NOW + 2), 0);
	assert_string_equal(g.log, "cancel ping:272 arm:1012");
	assert_false(peer_a.reping);
	lnet_disc_reply(&peer_a, g.last_ping_token, 0, &mr7, NOW + 3);
	assert_int_equal(peer_a.state, D);
	clear_log();
	assert_int_equal(lnet_disc_push(&peer_a, NULL, NOW + 4), 0);
	assert_string_equal(g.log, "ping:272 arm:1014");
}

/* `lnetctl discover`: nothing to do on a discovered peer, --force re-pings, busy while one runs. */
static void
test_discover_and_force(void **state)
{
	(void)state;
	assert_int_equal(lnet_disc_discover(&peer_a, false, NOW), 0);
	assert_int_equal(peer_a.state, PG);
	assert_int_equal(lnet_disc_discover(&peer_a, false, NOW), 0);
	assert_int_equal(lnet_disc_discover(&peer_a, true, NOW), -EBUSY);
	lnet_disc_reply(&peer_a, g.last_ping_token, 0, &data5, NOW + 1);
	assert_int_equal(peer_a.state, D);
	clear_log();
	assert_int_equal(lnet_disc_discover(&peer_a, false, NOW + 2), 0);
	assert_string_equal(g.log, "");
	assert_int_equal(lnet_disc_discover(&peer_a, true, NOW + 2), 0);
	assert_string_equal(g.log, "ping:272 arm:1012");
}

/* The ping cannot be sent: the message fails at once, the next one retries. */
static void
test_ping_send_fails(void **state)
{
	(void)state;
	g.ping_rc = -ENOMEM;
	assert_int_equal(lnet_disc_send(&peer_a, NOW), -ENOMEM);
	assert_string_equal(g.log, "ping:272 fail:-12");
	assert_int_equal(peer_a.state, E);
	assert_false(peer_a.timer_armed);
	assert_int_equal(peer_a.held, 0);
	g.ping_rc = 0;
	assert_int_equal(lnet_disc_send(&peer_a, NOW + 1), LNET_DISC_HOLD);
}

/*
 * The back-off (backoff_unit 1: "now" counts seconds): after the k-th
 * failure in a row a message fails at once with its error, no ping, until
 * 2^(k-1) s have passed (the kernel's recovery ping schedule): 1, 2, 4 ...
 * 512, then max_recovery_ping_interval (900) once k-1 > 9. `discover`
 * does not wait for it; a discovery that succeeds ends it.
 */
static void
test_backoff_schedule(void **state)
{
	static const uint64_t wait[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900 };
	struct lnet_disc_data plain = mr7;
	uint64_t now = NOW;
	unsigned int k;

	(void)state;
	node.backoff_unit = 1;
	plain.multi_rail = false;
	for (k = 0; k < sizeof(wait) / sizeof(wait[0]); k++) {
		clear_log();
		assert_int_equal(lnet_disc_send(&peer_a, now), LNET_DISC_HOLD);
		assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, -EIO, NULL, now), 0);
		assert_int_equal(peer_a.state, E);
		assert_int_equal(peer_a.fails, k + 1);
		assert_int_equal(peer_a.retry_at, now + wait[k]);
		clear_log();
		assert_int_equal(lnet_disc_send(&peer_a, now + wait[k] - 1), -EIO);
		assert_string_equal(g.log, ""); /* no ping, nothing held */
		assert_int_equal(peer_a.state, E);
		now += wait[k];
	}
	assert_int_equal(node.stats.backoff, k);

	/* `discover` pings at once, back-off or not; its failure counts as the next one. */
	assert_int_equal(lnet_disc_send(&peer_a, now), LNET_DISC_HOLD);
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, -EIO, NULL, now), 0);
	clear_log();
	assert_int_equal(lnet_disc_discover(&peer_a, false, now + 1), 0);
	assert_int_equal(strncmp(g.log, "ping:272 arm:", 13), 0);
	assert_int_equal(peer_a.state, PG);
	/* Its answer ends the back-off: the next failure waits 1 s again. */
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, 0, &plain, now + 1), 0);
	assert_int_equal(peer_a.state, D);
	assert_int_equal(peer_a.fails, 0);
	assert_int_equal(lnet_disc_discover(&peer_a, true, now + 2), 0);
	assert_int_equal(lnet_disc_reply(&peer_a, g.last_ping_token, -EIO, NULL, now + 2), 0);
	assert_int_equal(peer_a.retry_at, now + 3);
	/* A push from the peer ends it too. */
	assert_int_equal(lnet_disc_push(&peer_a, &plain, now + 2), 0);
	assert_int_equal(peer_a.state, D);
	assert_int_equal(peer_a.fails, 0);
	assert_int_equal(peer_a.retry_at, 0);
}

/* Without backoff_unit (the default of lnet_disc_node_init) a message in E pings at once. */
static void
test_no_backoff_by_default(void **state)
{
	(void)state;
	assert_int_equal(node.backoff_unit, 0);
	assert_int_equal(lnet_disc_send(&peer_a, NOW), LNET_DISC_HOLD);
	assert_int_equal(lnet_disc_timer(&peer_a, NOW + TMO), 0);
	assert_int_equal(peer_a.state, E);
	assert_int_equal(lnet_disc_send(&peer_a, NOW + TMO), LNET_DISC_HOLD);
	assert_int_equal(peer_a.state, PG);
}

/* ACKs and push failures of no push in flight are stale; a failed push fails the step. */
static void
test_push_ack_and_failure(void **state)
{
	uint32_t push_token;

	(void)state;
	assert_int_equal(lnet_disc_ack(&peer_a, 1, 0, NOW), -ESTALE);
	lnet_disc_send(&peer_a, NOW);
	lnet_disc_reply(&peer_a, g.last_ping_token, 0, &mr7, NOW);
	push_token = g.last_push_token;
	assert_int_equal(lnet_disc_ack(&peer_a, push_token + 1, 0, NOW + 1), -ESTALE);
	assert_int_equal(node.stats.stale_ack, 2);
	clear_log();
	assert_int_equal(lnet_disc_ack(&peer_a, push_token, -ECONNRESET, NOW + 2), 0);
	assert_string_equal(g.log, "cancel fail:-104");
	assert_int_equal(peer_a.state, E);
	assert_int_equal(peer_a.node_seqno, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_table, setup),
		cmocka_unit_test_setup(test_every_cell_actions, setup),
		cmocka_unit_test_setup(test_first_message_mr_peer, setup),
		cmocka_unit_test_setup(test_non_mr_peer_no_push, setup),
		cmocka_unit_test_setup(test_peer_without_discovery_not_mr, setup),
		cmocka_unit_test_setup(test_local_change_pushes_mr_peer, setup),
		cmocka_unit_test_setup(test_race_push_during_ping, setup),
		cmocka_unit_test_setup(test_reply_newer_than_push_during_ping, setup),
		cmocka_unit_test_setup(test_peer_restart_lower_seqno, setup),
		cmocka_unit_test_setup(test_race_reply_after_timeout, setup),
		cmocka_unit_test_setup(test_race_truncated_reply_repings, setup),
		cmocka_unit_test_setup(test_race_two_peers_merged, setup),
		cmocka_unit_test_setup(test_merge_into_peer_under_discovery, setup),
		cmocka_unit_test_setup(test_race_deleted_with_timer_armed, setup),
		cmocka_unit_test_setup(test_race_discovery_off_while_discovering, setup),
		cmocka_unit_test_setup(test_merge_refused_fails, setup),
		cmocka_unit_test_setup(test_bad_push_repings, setup),
		cmocka_unit_test_setup(test_discover_and_force, setup),
		cmocka_unit_test_setup(test_ping_send_fails, setup),
		cmocka_unit_test_setup(test_push_ack_and_failure, setup),
		cmocka_unit_test_setup(test_backoff_schedule, setup),
		cmocka_unit_test_setup(test_no_backoff_by_default, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
