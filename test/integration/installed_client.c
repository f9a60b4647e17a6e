/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program written only against the installed headers and linked with
 * `pkg-config --libs liblnet`: PUT to itself over 0@lo with SEND, PUT and
 * ACK events, GET the data back with REPLY, and a mismatched PUT that is
 * dropped and counted. Exit 0 only if all of it happened.
 *
 * It names things as code written against Lustre 2.17's lnet/api.h and
 * lnet-types.h does: the target MD sets every struct lnet_md field by its
 * Lustre name (umd_start ... umd_bulk_handle), and its handler sees the
 * events; umd_eq_handle is our extension. NIDs print with <lnet/nidstr.h>.
 *
 * It sets no options, so LNet runs as any application gets it: on the real
 * clock. A 300 ms LNetEQPoll takes 300 ms, and a PUT to a peer this node
 * cannot reach completes with an error event.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <lnet/api.h>
#include <lnet/nidstr.h>

#define PORTAL 7
#define BITS 0xC0FFEEULL

static int g_failures;
static int g_handled; /* events seen by the target MD's umd_handler */
static int g_user;    /* its umd_user_ptr */

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			g_failures++;                                                            \
		}                                                                                \
	} while (0)

/* Runs on the data lcore that owns the MD, before the event is queued. */
static void
target_handler(struct lnet_event *ev)
{
	if (ev->md_user_ptr == &g_user) {
		__atomic_fetch_add(&g_handled, 1, __ATOMIC_RELEASE);
	}
}

static struct lnet_event
next_event(struct lnet_eq *eq)
{
	struct lnet_event ev;

	memset(&ev, 0, sizeof(ev));
	if (LNetEQPoll(&eq, 1, 1000, &ev, NULL) != 1) {
		memset(&ev, 0, sizeof(ev));
	}
	return ev;
}

static long
elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* No event comes: the wait lasts the timeout, on the real clock. */
static void
check_real_clock_timeout(struct lnet_eq *eq)
{
	struct lnet_event ev;
	struct timespec t0;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(LNetEQPoll(&eq, 1, 300, &ev, NULL) == 0);
	ms = elapsed_ms(&t0);
	CHECK(ms >= 300 && ms < 5000);
	printf("installed client: LNetEQPoll(300 ms) returned after %ld ms\n", ms);
}

static struct lnet_handle_md
bind_md(struct lnet_eq *eq, void *buf, unsigned int len)
{
	struct lnet_md md = {
		.umd_start = buf, .umd_length = len, .umd_threshold = 2, .umd_eq_handle = eq
	};
	struct lnet_handle_md h;

	CHECK(LNetMDBind(&md, LNET_UNLINK, &h) == 0);
	return h;
}

int
main(void)
{
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_processid self;
	struct lnet_nid parsed;
	char nidbuf[LNET_NIDSTR_SIZE];
	char target[32];
	char data[] = "installed headers work";
	char back[sizeof(data)];
	struct lnet_counters c;
	struct lnet_handle_md th;
	struct lnet_event ev;
	struct lnet_eq *eq;
	struct lnet_me *me;

	CHECK(LNetNIInit(LNET_PID_LUSTRE) == 0);
	CHECK(LNetGetId(0, &self, true) == 0);
	CHECK(strcmp(libcfs_nidstr_r(&self.nid, nidbuf, sizeof(nidbuf)), "0@lo") == 0);
	CHECK(strcmp(libcfs_nidstr(&self.nid), "0@lo") == 0);
	CHECK(libcfs_strnid(&parsed, "0@lo") == 0 &&
	      memcmp(&parsed, &self.nid, sizeof(parsed)) == 0);
	eq = LNetEQAlloc(16);
	CHECK(eq != NULL);
	me = LNetMEAttach(PORTAL, &any, BITS, 0, LNET_UNLINK, LNET_INS_AFTER);
	CHECK(me != NULL);
	struct lnet_md tmd = { .umd_start = target,
			       .umd_length = sizeof(target),
			       .umd_threshold = LNET_MD_THRESH_INF,
			       .umd_max_size = 0, /* no LNET_MD_MAX_SIZE */
			       .umd_options =
				       LNET_MD_OP_PUT | LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE,
			       .umd_user_ptr = &g_user,
			       .umd_handler = target_handler,
			       .umd_eq_handle = eq };
	LNetInvalidateMDHandle(&tmd.umd_bulk_handle); /* no LNET_MD_BULK_HANDLE */
	CHECK(LNetMDAttach(me, &tmd, LNET_UNLINK, &th) == 0);

	CHECK(LNetPut(NULL, bind_md(eq, data, sizeof(data)), LNET_ACK_REQ, &self, PORTAL, BITS, 0,
		      42) == 0);
	ev = next_event(eq);
	CHECK(ev.type == LNET_EVENT_SEND && ev.mlength == sizeof(data));
	ev = next_event(eq);
	CHECK(ev.type == LNET_EVENT_PUT && ev.mlength == sizeof(data) && ev.match_bits == BITS);
	CHECK(ev.rlength == sizeof(data) && ev.hdr_data == 42 && ev.md_user_ptr == &g_user);
	ev = next_event(eq);
	CHECK(ev.type == LNET_EVENT_ACK && ev.mlength == sizeof(data) && ev.match_bits == BITS);
	CHECK(memcmp(target, data, sizeof(data)) == 0);

	memset(back, 0, sizeof(back));
	CHECK(LNetGet(NULL, bind_md(eq, back, sizeof(back)), &self, PORTAL, BITS, 0, false) == 0);
	CHECK(next_event(eq).type == LNET_EVENT_SEND);
	ev = next_event(eq);
	CHECK(ev.type == LNET_EVENT_GET && ev.mlength == sizeof(data));
	ev = next_event(eq);
	CHECK(ev.type == LNET_EVENT_REPLY && ev.mlength == sizeof(data));
	CHECK(memcmp(back, data, sizeof(data)) == 0);

	CHECK(LNetPut(NULL, bind_md(eq, data, sizeof(data)), LNET_ACK_REQ, &self, PORTAL, BITS ^ 1,
		      0, 0) == 0);
	CHECK(next_event(eq).type == LNET_EVENT_SEND);
	CHECK(next_event(eq).type == 0); /* no PUT, no ACK */
	CHECK(lnet_counters_get(&c) == 0);
	CHECK(c.drop_count == 1 && c.drop_length == sizeof(data));
	CHECK(c.send_count == 5 && c.recv_count == 4); /* PUT ACK GET REPLY PUT */

	check_real_clock_timeout(eq);
	{
		struct lnet_processid far = { .pid = LNET_PID_LUSTRE };
		struct lnet_handle_md fh = bind_md(eq, data, sizeof(data));

		CHECK(libcfs_strnid(&far.nid, "127.0.0.77@tcp") == 0); /* no tcp NI: no route */
		CHECK(LNetPut(NULL, fh, LNET_ACK_REQ, &far, PORTAL, BITS, 0, 0) == 0);
		ev = next_event(eq);
		CHECK(ev.type == LNET_EVENT_SEND && ev.status == -EHOSTUNREACH);
		CHECK(LNetMDUnlink(fh) == 0);
		ev = next_event(eq);
		CHECK(ev.type == LNET_EVENT_UNLINK && ev.unlinked);
	}

	CHECK(LNetMDUnlink(th) == 0);
	CHECK(next_event(eq).type == LNET_EVENT_UNLINK);
	CHECK(__atomic_load_n(&g_handled, __ATOMIC_ACQUIRE) == 3); /* PUT, GET, UNLINK */
	CHECK(LNetNIFini() == 0);
	CHECK(LNetEQFree(eq) == 0);
	printf("installed client: %s\n", g_failures == 0 ? "ok" : "FAILED");
	return g_failures == 0 ? 0 : 1;
}
