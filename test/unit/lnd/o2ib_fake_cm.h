/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake RDMA CM for the o2ib unit tests: two sides (sides[0], sides[1])
 * exchanging CM events and private data in-process, their QPs (made by
 * the QP model, o2ib_hw_model) joined when a connection is accepted. The
 * calls check what the kernel's module parameters make the CM side ask
 * (port 987, privileged source ports, retries, private data lengths).
 * Included by one test file each; set model_qp_created = on_qp_created.
 */
#ifndef O2IB_FAKE_CM_H
#define O2IB_FAKE_CM_H

#include <string.h>

#include "o2ib_hw_model.h"
#include "o2iblnd_cm.h"

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

#endif /* O2IB_FAKE_CM_H */
