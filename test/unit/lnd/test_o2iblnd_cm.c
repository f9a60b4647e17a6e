/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An o2ib NI's CM side over a fake RDMA CM (two endpoints exchanging
 * events and private data in-process) and the software QP model: a
 * connect accepted and carrying messages, no listener, a queue depth
 * lowered by the peer's reject and retried, a depth lowered because the
 * device cannot hold the QP, two NIs connecting to each other at once,
 * and a close seen by both. The private data each side sends is the
 * kernel's layout (o2ib_wire), checked by the other side's o2ib_conn rules.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "o2ib_hw_model.h"
#include "o2iblnd_cm.h"

#define NID_A 0x00050000c0a80101ULL
#define NID_B 0x00050000c0a80102ULL
#define FAKE_IDS 128
#define FAKE_EVS 64

struct fake_side;

struct fake_id {
	struct fake_side *side;
	struct fake_side *target;
	struct fake_id *remote;
	struct o2ib_hw_qp *qp;
};

struct fake_ev {
	struct o2iblnd_cm_event ev;
	uint8_t priv[256];
};

struct fake_side {
	uint32_t ipv4;
	bool listening;
	struct fake_ev q[FAKE_EVS];
	unsigned int head;
	unsigned int tail;
};

static struct fake_side sides[2];
static struct fake_id ids[FAKE_IDS];
static unsigned int nids; /* never reused: a late event never finds a new id */

static void
push(struct fake_side *s, enum o2iblnd_cm_ev_type t, struct fake_id *id, int status,
     const void *priv, uint8_t len)
{
	struct fake_ev *e = &s->q[s->tail++ % FAKE_EVS];

	if (len > 0) {
		memcpy(e->priv, priv, len);
	}
	e->ev = (struct o2iblnd_cm_event){ t, id, status, e->priv, len };
}

static struct fake_id *
new_id(struct fake_side *s)
{
	assert_true(nids < FAKE_IDS);
	ids[nids] = (struct fake_id){ .side = s };
	return &ids[nids++];
}

static int
f_listen(void *ctx, uint32_t ipv4, uint16_t port)
{
	struct fake_side *s = ctx;

	assert_int_equal(port, 987);
	assert_int_equal(ipv4, s->ipv4);
	s->listening = true;
	return 0;
}

static int
f_resolve_addr(void *ctx, uint32_t src, uint32_t dst, uint16_t port, bool privileged,
	       int timeout_ms, void **idp)
{
	struct fake_side *s = ctx;
	struct fake_id *id = new_id(s);

	assert_int_equal(src, s->ipv4);
	assert_int_equal(port, 987);
	assert_true(privileged); /* use_privileged_port=1 */
	assert_int_equal(timeout_ms, 5000);
	for (int i = 0; i < 2; i++) {
		if (sides[i].ipv4 == dst) {
			id->target = &sides[i];
		}
	}
	push(s, id->target != NULL ? O2IBLND_CM_ADDR_RESOLVED : O2IBLND_CM_ADDR_ERROR, id, 0, NULL,
	     0);
	*idp = id;
	return 0;
}

static int
f_resolve_route(void *idp, int timeout_ms)
{
	struct fake_id *id = idp;

	(void)timeout_ms;
	push(id->side, O2IBLND_CM_ROUTE_RESOLVED, id, 0, NULL, 0);
	return 0;
}

static int
f_connect(void *idp, const void *priv, uint8_t len, uint8_t retry, uint8_t rnr)
{
	struct fake_id *id = idp;
	struct fake_id *peer;

	assert_int_equal(len, 56); /* a CONNREQ: the whole of the IB CM REQ's private data */
	assert_int_equal(retry, 5);
	assert_int_equal(rnr, 6);
	if (!id->target->listening) {
		push(id->side, O2IBLND_CM_REJECTED, id, O2IB_CM_REJ_INVALID_SERVICE_ID, NULL, 0);
		return 0;
	}
	peer = new_id(id->target);
	peer->remote = id;
	id->remote = peer;
	push(id->target, O2IBLND_CM_CONNECT_REQUEST, peer, 0, priv, len);
	return 0;
}

static int
f_accept(void *idp, const void *priv, uint8_t len, uint8_t retry, uint8_t rnr)
{
	struct fake_id *id = idp;

	(void)retry;
	(void)rnr;
	assert_int_equal(len, 56);
	if (id->remote == NULL) {
		return -ECONNABORTED;
	}
	model_qp_join(id->qp, id->remote->qp);
	push(id->remote->side, O2IBLND_CM_ESTABLISHED, id->remote, 0, priv, len);
	push(id->side, O2IBLND_CM_ESTABLISHED, id, 0, NULL, 0);
	return 0;
}

static int
f_reject(void *idp, const void *priv, uint8_t len)
{
	struct fake_id *id = idp;

	assert_int_equal(len, 24); /* a kib_rej */
	if (id->remote != NULL) {
		push(id->remote->side, O2IBLND_CM_REJECTED, id->remote,
		     O2IB_CM_REJ_CONSUMER_DEFINED, priv, len);
	}
	return 0;
}

static int
f_disconnect(void *idp)
{
	struct fake_id *id = idp;

	push(id->side, O2IBLND_CM_DISCONNECTED, id, 0, NULL, 0);
	if (id->remote != NULL) {
		push(id->remote->side, O2IBLND_CM_DISCONNECTED, id->remote, 0, NULL, 0);
	}
	return 0;
}

static void
f_destroy(void *idp)
{
	struct fake_id *id = idp;

	if (id->remote != NULL) {
		id->remote->remote = NULL;
	}
	id->remote = NULL;
	id->side = NULL;
}

static int
f_get_event(void *ctx, struct o2iblnd_cm_event *ev)
{
	struct fake_side *s = ctx;

	if (s->head == s->tail) {
		return -EAGAIN;
	}
	*ev = s->q[s->head++ % FAKE_EVS].ev;
	return 0;
}

static const struct o2iblnd_cm_ops fake_ops = {
	f_listen, f_resolve_addr, f_resolve_route, f_connect,   f_accept,
	f_reject, f_disconnect,   f_destroy,       f_get_event,
};

static void
on_qp_created(void *cm_id, struct o2ib_hw_qp *qp)
{
	((struct fake_id *)cm_id)->qp = qp;
}

/* ---- an NI ---- */

struct ni {
	struct o2ib_hw_dev *dev;
	struct o2iblnd_cm *cm;
	int up;
	struct o2iblnd_conn *conn;
	int down;
	int down_status;
	bool down_had_conn;
	int rx;
};

static void
ni_rx(void *arg, struct o2iblnd_rx *rx, const struct o2ib_msg *m)
{
	struct ni *n = arg;

	(void)m;
	n->rx++;
	o2iblnd_rx_done(n->conn, rx);
}

static void
ni_done(void *arg, void *user, int status)
{
	(void)arg;
	(void)user;
	(void)status;
}

static const struct o2iblnd_conn_ops ni_conn_ops = { ni_rx, ni_done, ni_done };

static void
ni_up(void *arg, lnet_nid_t peer, struct o2iblnd_conn *c)
{
	struct ni *n = arg;

	(void)peer;
	n->up++;
	n->conn = c;
}

static void
ni_down(void *arg, lnet_nid_t peer, struct o2iblnd_conn *c, int status)
{
	struct ni *n = arg;

	(void)peer;
	n->down++;
	n->down_status = status;
	n->down_had_conn = c != NULL;
	if (c == n->conn) {
		n->conn = NULL;
	}
}

static void
ni_start(struct ni *n, int side, lnet_nid_t nid, uint64_t inc, int peer_credits)
{
	struct o2iblnd_cm_cfg cfg = {
		.ops = &fake_ops,
		.ctx = &sides[side],
		.hw = &o2ib_hw_model,
		.max_qp_wr = 16384,
		.me = { nid, inc, (uint16_t)peer_credits, true },
		.ipv4 = htonl((uint32_t)nid),
		.conn_ops = &ni_conn_ops,
		.conn_up = ni_up,
		.conn_down = ni_down,
	};

	memset(n, 0, sizeof(*n));
	n->dev = model_dev_new();
	cfg.dev = n->dev;
	cfg.conn_arg = n;
	cfg.arg = n;
	o2iblnd_params_reset();
	o2iblnd_params_current(&cfg.opts);
	o2iblnd_credit_tunables(&cfg.opts, 256, peer_credits, &cfg.tun);
	sides[side].ipv4 = cfg.ipv4;
	assert_int_equal(o2iblnd_cm_create(&cfg, &n->cm), 0);
}

static void
ni_stop(struct ni *n)
{
	o2iblnd_cm_destroy(n->cm);
	model_dev_free(n->dev);
}

static void
run(struct ni *a, struct ni *b)
{
	int rounds = 0;

	while (o2iblnd_cm_poll(a->cm) + o2iblnd_cm_poll(b->cm) > 0) {
		assert_true(++rounds < 100);
	}
}

static int
setup(void **state)
{
	(void)state;
	memset(sides, 0, sizeof(sides));
	nids = 0;
	model_qp_created = on_qp_created;
	model_qp_max_wr = UINT32_MAX;
	return 0;
}

static void
send_one(struct ni *from)
{
	struct lnet_hdr h = { 0 };

	lnet_nid4_to_nid(NID_B, &h.dest_nid);
	lnet_nid4_to_nid(NID_A, &h.src_nid);
	h.type = LNET_MSG_PUT;
	assert_int_equal(o2iblnd_send_immediate(from->conn, &h, NULL, 0, 0, 0, from), 0);
}

static void
test_connect(void **state)
{
	struct ni a;
	struct ni b;

	(void)state;
	ni_start(&a, 0, NID_A, 0x1111, 8);
	ni_start(&b, 1, NID_B, 0x2222, 8);
	assert_int_equal(o2iblnd_cm_listen(b.cm), 0);
	assert_int_equal(o2iblnd_cm_connect(a.cm, NID_B, true), 0);
	run(&a, &b);
	assert_int_equal(a.up, 1);
	assert_int_equal(b.up, 1);
	assert_int_equal(o2iblnd_conn_proto(a.conn)->state, O2IB_CONN_ESTABLISHED);
	assert_true(o2iblnd_conn_proto(a.conn)->peer_incarnation == 0x2222);
	assert_true(o2iblnd_conn_proto(b.conn)->peer_incarnation == 0x1111);
	assert_int_equal(o2iblnd_cm_peer(a.cm, NID_B)->connecting, 0);
	assert_int_equal(o2iblnd_cm_peer(b.cm, NID_A)->accepting, 0);
	send_one(&a);
	run(&a, &b);
	assert_int_equal(b.rx, 1);
	/* A closes: both are told */
	o2iblnd_cm_close(a.cm, a.conn, -ECONNRESET);
	run(&a, &b);
	assert_int_equal(a.down, 1);
	assert_true(a.down_had_conn);
	assert_int_equal(b.down, 1);
	ni_stop(&a);
	ni_stop(&b);
}

static void
test_no_listener(void **state)
{
	struct ni a;
	struct ni b;

	(void)state;
	ni_start(&a, 0, NID_A, 0x1111, 8);
	ni_start(&b, 1, NID_B, 0x2222, 8);
	assert_int_equal(o2iblnd_cm_connect(a.cm, NID_B, true), 0);
	run(&a, &b);
	assert_int_equal(a.up, 0);
	assert_int_equal(a.down, 1);
	assert_int_equal(a.down_status, -EHOSTUNREACH);
	assert_false(a.down_had_conn);
	ni_stop(&a);
	ni_stop(&b);
}

/* A asks 16; B's 8 comes back in its MSG_QUEUE_SIZE reject; the retry at 8 is accepted. */
static void
test_queue_depth_retry(void **state)
{
	struct ni a;
	struct ni b;

	(void)state;
	ni_start(&a, 0, NID_A, 0x1111, 16);
	ni_start(&b, 1, NID_B, 0x2222, 8);
	assert_int_equal(o2iblnd_cm_listen(b.cm), 0);
	assert_int_equal(o2iblnd_cm_connect(a.cm, NID_B, true), 0);
	run(&a, &b);
	assert_int_equal(a.up, 1);
	assert_int_equal(a.down, 0);
	assert_int_equal(b.up, 1);
	assert_int_equal(o2iblnd_cm_peer(a.cm, NID_B)->queue_depth, 8);
	assert_int_equal(o2iblnd_conn_proto(a.conn)->queue_depth, 8);
	assert_int_equal(o2iblnd_conn_proto(b.conn)->queue_depth, 8);
	assert_int_equal(nids, 4); /* two attempts, each an id on both sides */
	ni_stop(&a);
	ni_stop(&b);
}

/* A device that cannot hold 8 x 260 send WRs: the depth drops until the QP fits. */
static void
test_qp_enomem(void **state)
{
	struct ni a;
	struct ni b;

	(void)state;
	model_qp_max_wr = 4 * 260;
	ni_start(&a, 0, NID_A, 0x1111, 8);
	ni_start(&b, 1, NID_B, 0x2222, 8);
	assert_int_equal(o2iblnd_cm_listen(b.cm), 0);
	assert_int_equal(o2iblnd_cm_connect(a.cm, NID_B, true), 0);
	run(&a, &b);
	assert_int_equal(a.up, 1);
	assert_int_equal(o2iblnd_conn_proto(a.conn)->queue_depth, 4);
	assert_int_equal(o2iblnd_conn_proto(b.conn)->queue_depth, 4);
	ni_stop(&a);
	ni_stop(&b);
}

/* Both connect at once: B (the higher nidhash) refuses A's; one connection results. */
static void
test_race(void **state)
{
	struct ni a;
	struct ni b;

	(void)state;
	ni_start(&a, 0, NID_A, 0x1111, 8);
	ni_start(&b, 1, NID_B, 0x2222, 8);
	assert_int_equal(o2iblnd_cm_listen(a.cm), 0);
	assert_int_equal(o2iblnd_cm_listen(b.cm), 0);
	assert_int_equal(o2iblnd_cm_connect(a.cm, NID_B, true), 0);
	assert_int_equal(o2iblnd_cm_connect(b.cm, NID_A, true), 0);
	run(&a, &b);
	assert_int_equal(a.up, 1);
	assert_int_equal(b.up, 1);
	assert_int_equal(a.down, 0); /* A's refused attempt is not the owner's failure: B's is up */
	send_one(&a);
	send_one(&b);
	run(&a, &b);
	assert_int_equal(a.rx, 1);
	assert_int_equal(b.rx, 1);
	ni_stop(&a);
	ni_stop(&b);
}

/* librdmacm's event channel: -ENODEV where the host has no RDMA CM (this one). */
static void
test_rdmacm_open(void **state)
{
	void *ctx = NULL;
	int rc = o2iblnd_cm_rdmacm_open(&ctx);

	(void)state;
	if (access("/dev/infiniband/rdma_cm", F_OK) != 0) {
		assert_int_equal(rc, -ENODEV);
		return;
	}
	assert_int_equal(rc, 0);
	o2iblnd_cm_rdmacm_close(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_connect, setup),
		cmocka_unit_test_setup(test_no_listener, setup),
		cmocka_unit_test_setup(test_queue_depth_retry, setup),
		cmocka_unit_test_setup(test_qp_enomem, setup),
		cmocka_unit_test_setup(test_race, setup),
		cmocka_unit_test(test_rdmacm_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
