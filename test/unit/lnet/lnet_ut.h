/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for LNet core unit tests: bring LNet up inline (no EAL, no
 * threads: the test thread drives the lcores), one event queue, and MDs on
 * portals with it.
 */
#ifndef LNET_UT_H
#define LNET_UT_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api.h"
#include "lnet_ctl.h"
#include "lnet_mgmt.h"
#include "lnet_sim.h"

#define UT_PORTAL 10
#define UT_EQ_SIZE 256

struct ut_ctx {
	struct lnet_eq *eq;
	struct lnet_processid self; /* 12345-0@lo */
};

static struct ut_ctx g_ut __attribute__((unused));

static inline void
ut_up(unsigned int ncpts)
{
	struct lnet_init_opts o = {
		.opts_size = sizeof(o),
		.mode = LNET_EXEC_INLINE,
		.ncpts = ncpts,
		.no_eal = true,
	};

	assert_int_equal(lnet_init_opts_set(&o), 0);
	assert_int_equal(LNetNIInit(LNET_PID_LUSTRE), 0);
	g_ut.eq = LNetEQAlloc(UT_EQ_SIZE);
	assert_non_null(g_ut.eq);
	g_ut.self.pid = LNET_PID_LUSTRE;
	lnet_nid_set_lo0(&g_ut.self.nid);
}

/*
 * `set discovery @p on`: tests of other mechanics (credits, counts, the push
 * target) turn it off, so a first message to a peer is not held behind a
 * discovery ping nobody answers.
 */
static inline void
ut_discovery(int on)
{
	char err[128];

	assert_int_equal(lnet_ctl_global_set("discovery", on, err, sizeof(err)), 0);
}

static inline void
ut_down(void)
{
	assert_int_equal(LNetNIFini(), 0);
	assert_int_equal(LNetEQFree(g_ut.eq), 0);
	g_ut.eq = NULL;
}

/* cmocka fixtures: LNet up with one or two CPTs, and down. */
static inline int
ut_setup1(void **state)
{
	(void)state;
	ut_up(1);
	return 0;
}

static inline int
ut_setup2(void **state)
{
	(void)state;
	ut_up(2);
	return 0;
}

static inline int
ut_teardown(void **state)
{
	(void)state;
	ut_down();
	return 0;
}

/* Next event, or type 0 when the queue is empty. */
static inline struct lnet_event
ut_event(void)
{
	struct lnet_event ev;
	int rc;

	memset(&ev, 0, sizeof(ev));
	/* Inline tests move the virtual clock themselves: waiting would spend it. */
	rc = LNetEQPoll(&g_ut.eq, 1, lnet_instance()->mode == LNET_EXEC_INLINE ? 0 : 5000, &ev,
			NULL);
	assert_true(rc == 0 || rc == 1);
	if (rc == 0) {
		memset(&ev, 0, sizeof(ev));
	}
	return ev;
}

static inline void
ut_no_event(void)
{
	struct lnet_event ev = ut_event();

	assert_int_equal(ev.type, 0);
}

static inline struct lnet_md
ut_md(void *buf, unsigned int len, int threshold, unsigned int options)
{
	struct lnet_md md = {
		.umd_start = buf,
		.umd_length = len,
		.umd_threshold = threshold,
		.umd_options = options,
		.umd_eq_handle = g_ut.eq,
	};

	return md;
}

/* Attach an MD on UT_PORTAL matching any peer with @p bits / @p ignore. */
static inline struct lnet_handle_md
ut_attach(const struct lnet_md *md, uint64_t bits, uint64_t ignore, enum lnet_ins_pos pos,
	  enum lnet_unlink unlink)
{
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_handle_md h;
	struct lnet_me *me;

	me = LNetMEAttach(UT_PORTAL, &any, bits, ignore, unlink, pos);
	assert_non_null(me);
	assert_int_equal(LNetMDAttach(me, md, unlink, &h), 0);
	return h;
}

/*
 * GET 0@lo's ping info (the node's own ping target) into @p d, its first
 * @p cap NIs after 0@lo into @p nis; returns how many NIs it lists after 0@lo.
 */
static inline unsigned int
ut_ping_self(struct lnet_ping_entry *nis, unsigned int cap, struct lnet_ping_decoded *d)
{
	static uint8_t sink[8192];
	struct lnet_md md = ut_md(sink, sizeof(sink), 2, LNET_MD_TRUNCATE);
	struct lnet_handle_md h;
	struct lnet_event ev;

	assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h), 0);
	assert_int_equal(LNetGet(NULL, h, &g_ut.self, LNET_RESERVED_PORTAL,
				 LNET_PROTO_PING_MATCHBITS, 0, false),
			 0);
	ev = ut_event();
	if (ev.type == LNET_EVENT_SEND) {
		ev = ut_event();
	} else {
		assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	}
	assert_int_equal(ev.type, LNET_EVENT_REPLY);
	assert_int_equal(lnet_ping_info_decode(sink, ev.mlength, 256, d, nis, cap), 0);
	return d->nnis_total;
}

/* A fake LND's recv(): the payload "arrived" at once (nothing to copy). */
static inline int
ut_lnd_recv_arrived(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
		    const struct iovec *iov, unsigned int offset, unsigned int mlen,
		    unsigned int rlen)
{
	(void)ni;
	(void)private;
	(void)niov;
	(void)iov;
	(void)offset;
	(void)mlen;
	(void)rlen;
	if (msg != NULL) {
		lnet_finalize(msg, 0);
	}
	return 0;
}

/*
 * An LND that needs no wire: startup and shutdown do nothing and a send
 * completes at once. For tests of configuration (several NIs on one net).
 */
static inline int
ut_lnd_startup_nothing(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

static inline void
ut_lnd_shutdown_nothing(struct lnet_ni *ni)
{
	(void)ni;
}

static inline int
ut_lnd_send_done(struct lnet_ni *ni, struct lnet_msg *msg)
{
	(void)ni;
	lnet_finalize(msg, 0);
	return 0;
}

/* Defines and registers @p ops, such an LND named @p name of network type @p type. */
#define UT_LND_NO_WIRE(ops, lnd_name, lnd_type)      \
	static const struct lnet_lnd_ops ops = {     \
		.name = (lnd_name),                  \
		.type = (lnd_type),                  \
		.startup = ut_lnd_startup_nothing,   \
		.shutdown = ut_lnd_shutdown_nothing, \
		.send = ut_lnd_send_done,            \
		.recv = ut_lnd_recv_arrived,         \
	};                                           \
	LNET_LND_REGISTER(ops)

struct ut_parse {
	struct lnet_ni *ni;
	struct lnet_hdr hdr;
	struct lnet_nid from;
	void *cookie;
	int rc;
};

static inline int
ut_parse_on_lcore(void *arg)
{
	struct ut_parse *a = arg;

	a->rc = lnet_parse(a->ni, &a->hdr, &a->from, a->cookie);
	return 0;
}

/* As an LND's receive path: @p hdr arrives on @p ni from @p from; lnet_parse()'s result. */
static inline int
ut_parse(struct lnet_ni *ni, const struct lnet_hdr *hdr, const struct lnet_nid *from, void *cookie)
{
	struct ut_parse a = { ni, *hdr, *from, cookie, 0 };

	assert_int_equal(rt_lcore_call(lnet_ni_lcore(ni), ut_parse_on_lcore, &a), 0);
	return a.rc;
}

struct ut_bind_req {
	struct lnet_md md;
	struct lnet_handle_md h;
	int rc;
};

static inline int
ut_bind_on_lcore(void *arg)
{
	struct ut_bind_req *b = arg;

	b->rc = LNetMDBind(&b->md, LNET_UNLINK, &b->h);
	return 0;
}

/* An MD bound on CPT @p cpt (LNetMDBind on a data lcore binds on its CPT). */
static inline struct lnet_handle_md
ut_bind_on(unsigned int cpt, void *buf, unsigned int len, int threshold)
{
	struct ut_bind_req b = { .md = ut_md(buf, len, threshold, 0) };

	assert_int_equal(rt_lcore_call(rt_data_lcore(lnet_instance()->rt, cpt), ut_bind_on_lcore,
				       &b),
			 0);
	assert_int_equal(b.rc, 0);
	assert_int_equal(lnet_cookie_cpt(b.h.cookie), cpt);
	return b.h;
}

/* The NID @p addr on @p net (an LNET_MKNET). */
static inline struct lnet_nid
ut_nid4(uint32_t net, uint32_t addr)
{
	struct lnet_nid n;

	lnet_nid4_to_nid(LNET_MKNID(net, addr), &n);
	return n;
}

/* The ring hops made since the last call, by kind (then zero: counted afresh). */
static inline struct lnet_ctl_hops
ut_hops_since(void)
{
	struct lnet_ctl_hops h;

	assert_int_equal(lnet_ctl_hops_get(&h), 0);
	assert_int_equal(lnet_counters_reset(), 0);
	return h;
}

static inline struct lnet_handle_md
ut_bind(void *buf, unsigned int len, int threshold)
{
	struct lnet_md md = ut_md(buf, len, threshold, 0);
	struct lnet_handle_md h;

	assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h), 0);
	return h;
}

static inline int
ut_put(struct lnet_handle_md h, enum lnet_ack_req ack, uint64_t bits, unsigned int offset)
{
	return LNetPut(NULL, h, ack, &g_ut.self, UT_PORTAL, bits, offset, 0xabcdef);
}

static inline int
ut_get(struct lnet_handle_md h, uint64_t bits, unsigned int offset)
{
	return LNetGet(NULL, h, &g_ut.self, UT_PORTAL, bits, offset, false);
}

static inline struct lnet_counters
ut_counters(void)
{
	struct lnet_counters c;

	assert_int_equal(lnet_counters_get(&c), 0);
	return c;
}

/*
 * Take the next @p n events and check they are exactly @p kinds in some
 * order (events of different MDs may interleave across CPTs), with the
 * initiator's SEND before its ACK/REPLY.
 */
static inline void
ut_events_expect_kinds(const enum lnet_event_kind *kinds, unsigned int n)
{
	bool seen[8] = { false };
	int send_at = -1;
	int resp_at = -1;
	unsigned int i;
	unsigned int k;

	assert_true(n <= 8);
	for (i = 0; i < n; i++) {
		struct lnet_event ev = ut_event();

		for (k = 0; k < n; k++) {
			if (!seen[k] && kinds[k] == ev.type) {
				seen[k] = true;
				break;
			}
		}
		assert_true(k < n);
		assert_int_equal(ev.status, 0);
		if (ev.type == LNET_EVENT_SEND) {
			send_at = (int)i;
		} else if (ev.type == LNET_EVENT_ACK || ev.type == LNET_EVENT_REPLY) {
			resp_at = (int)i;
		}
	}
	assert_true(resp_at < 0 || send_at < resp_at);
}

/* SEND and ACK on @p src, PUT on @p dst, in any valid order. */
static inline void
ut_events_expect_put_ack(struct lnet_handle_md src, struct lnet_handle_md dst)
{
	unsigned int i;
	int state = 0; /* bit 0: SEND, bit 1: PUT, bit 2: ACK */

	for (i = 0; i < 3; i++) {
		struct lnet_event ev = ut_event();

		assert_int_equal(ev.status, 0);
		switch (ev.type) {
		case LNET_EVENT_SEND:
			assert_int_equal(ev.md_handle.cookie, src.cookie);
			state |= 1;
			break;
		case LNET_EVENT_PUT:
			assert_int_equal(ev.md_handle.cookie, dst.cookie);
			state |= 2;
			break;
		case LNET_EVENT_ACK:
			assert_int_equal(ev.md_handle.cookie, src.cookie);
			assert_true((state & 1) != 0); /* SEND came first */
			state |= 4;
			break;
		default:
			fail_msg("unexpected event %d", ev.type);
		}
	}
	assert_int_equal(state, 7);
}

#endif /* LNET_UT_H */
