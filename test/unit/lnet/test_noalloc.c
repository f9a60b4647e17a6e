/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * No allocation on the data path: once warmed up, PUT+ACK and GET+REPLY
 * over 0@lo (each from an MD bound for it) and PUTs forwarded between two nets make no malloc, calloc,
 * realloc or aligned allocation at all, on any thread: messages come from
 * the message pool, MDs from their cache, events go into the event queue's
 * ring, router buffers from their pool.
 *
 * Counting: in sanitizer builds the allocator's hooks
 * (__sanitizer_install_malloc_and_free_hooks: a test cannot define malloc
 * under ASan); otherwise this executable's own malloc family, which hands
 * every call on to glibc's. The first allocations counted keep their call
 * stacks, printed when the test fails.
 *
 * LNet runs with 1 CPT here (test_lnet_noalloc) and with 2
 * (test_lnet_noalloc_2cpts, the same source with NOALLOC_CPTS=2).
 */
#include <execinfo.h>
#include <malloc.h>
#include <unistd.h>

#include "lnet_ut.h"
#include "lnp_test_nid.h"

#ifndef NOALLOC_CPTS
#define NOALLOC_CPTS 1
#endif

#define WARMUP 2000U
#define MSGS 100000U /* of each kind */
#define PAYLOAD 64U
#define TCP LNET_MKNET(LNET_LND_SOCK, 0)
#define TCP1 LNET_MKNET(LNET_LND_SOCK, 1)

/* ---- counting allocations ------------------------------------------------------------- */

#define STACKS 4
#define STACK_DEPTH 24

static int g_counting;    /* atomic */
static uint64_t g_allocs; /* atomic */
static void *g_stacks[STACKS][STACK_DEPTH];
static int g_depth[STACKS];

static void
alloc_seen(void)
{
	uint64_t n;

	if (!__atomic_load_n(&g_counting, __ATOMIC_RELAXED)) {
		return;
	}
	n = __atomic_fetch_add(&g_allocs, 1, __ATOMIC_RELAXED);
	if (n < STACKS) {
		/* backtrace() was called once before counting: it allocates nothing now. */
		__atomic_store_n(&g_counting, 0, __ATOMIC_RELAXED);
		g_depth[n] = backtrace(g_stacks[n], STACK_DEPTH);
		__atomic_store_n(&g_counting, 1, __ATOMIC_RELAXED);
	}
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NOALLOC_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(NOALLOC_ASAN)
#if __has_include(<sanitizer/allocator_interface.h>)
#include <sanitizer/allocator_interface.h>
#else
/* The sanitizer runtime's (GCC installs no header for it). */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
					      void (*free_hook)(const volatile void *));
#endif

static void
hook_malloc(const volatile void *ptr, size_t size)
{
	(void)ptr;
	(void)size;
	alloc_seen();
}

static void
hook_free(const volatile void *ptr)
{
	(void)ptr;
}

static void
counting_install(void)
{
	assert_int_not_equal(__sanitizer_install_malloc_and_free_hooks(hook_malloc, hook_free), 0);
}
#else
/* glibc's own entry points: this executable's malloc family counts, then calls them. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t align, size_t size);

void *
malloc(size_t size)
{
	alloc_seen();
	return __libc_malloc(size);
}

void *
calloc(size_t n, size_t size)
{
	alloc_seen();
	return __libc_calloc(n, size);
}

void *
realloc(void *ptr, size_t size)
{
	alloc_seen();
	return __libc_realloc(ptr, size);
}

void *
memalign(size_t align, size_t size)
{
	alloc_seen();
	return __libc_memalign(align, size);
}

void *
aligned_alloc(size_t align, size_t size)
{
	alloc_seen();
	return __libc_memalign(align, size);
}

int
posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	alloc_seen();
	p = __libc_memalign(align, size);
	if (p == NULL) {
		return ENOMEM;
	}
	*out = p;
	return 0;
}

static void
counting_install(void)
{
}
#endif

static void
counting_start(void)
{
	void *warm[2];

	backtrace(warm, 2); /* its first call loads the unwinder, which allocates */
	__atomic_store_n(&g_allocs, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g_counting, 1, __ATOMIC_RELAXED);
}

static uint64_t
counting_stop(const char *what)
{
	uint64_t n;
	unsigned int i;

	__atomic_store_n(&g_counting, 0, __ATOMIC_RELAXED);
	n = __atomic_load_n(&g_allocs, __ATOMIC_RELAXED);
	for (i = 0; i < n && i < STACKS; i++) {
		fprintf(stderr, "%s: allocation %u of %llu made at:\n", what, i + 1,
			(unsigned long long)n);
		backtrace_symbols_fd(g_stacks[i], g_depth[i], STDERR_FILENO);
	}
	return n;
}

/* ---- an LND with no wire: a send completes at once, a receive copies from memory ---- */

static uint8_t g_wire[PAYLOAD];
static unsigned long g_sent;

static int
nw_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	(void)ni;
	g_sent++;
	lnet_msg_on_wire(msg); /* its credits go back now, as socklnd's do once it is written */
	lnet_finalize(msg, 0);
	return 0;
}

static int
nw_recv(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
	const struct iovec *iov, unsigned int offset, unsigned int mlen, unsigned int rlen)
{
	struct iovec src = { g_wire, rlen };

	(void)ni;
	(void)private;
	if (msg == NULL) {
		return 0;
	}
	if (mlen != 0) {
		lnet_iov_copy(iov, niov, offset, &src, 1, 0, mlen);
	}
	lnet_finalize(msg, 0);
	return 0;
}

static const struct lnet_lnd_ops nw_ops = {
	.name = "nowire",
	.type = 0xfa,
	.startup = ut_lnd_startup_nothing,
	.shutdown = ut_lnd_shutdown_nothing,
	.send = nw_send,
	.recv = nw_recv,
};

static struct lnet_nid
nid_on(uint32_t net, uint32_t addr)
{
	struct lnet_nid n;

	lnet_nid4_to_nid(LNET_MKNID(net, addr), &n);
	return n;
}

struct ni_add_args {
	struct lnet_nid nid;
	unsigned int cpt;
};

static struct lnet_ni *
nw_ni_add(struct lnet_nid nid, unsigned int cpt)
{
	struct lnet_ni_req req = {
		.add = true,
		.lnd = &nw_ops,
		.nid = &nid,
		.cpt = cpt,
		.tun = { .peer_tx_credits = 64, .max_tx_credits = 256, .peer_rtr_credits = 64 },
	};

	assert_int_equal(lnet_ni_config(lnet_instance(), &req), 0);
	return lnet_ni_find_by_nid(lnet_instance(), &nid);
}

/* ---- the traffic ---------------------------------------------------------------------- */

static uint8_t g_src[PAYLOAD];
static uint8_t g_sink[PAYLOAD];
static struct lnet_ni *g_in;
static struct lnet_nid g_from;
static struct lnet_nid g_far;

static void
settle(void)
{
	rt_runtime_poll_until_idle(lnet_instance()->rt, UINT32_MAX);
}

static void
events_drain(unsigned int expect)
{
	struct lnet_event ev;
	unsigned int got = 0;

	while (LNetEQPoll(&g_ut.eq, 1, 0, &ev, NULL) > 0) {
		assert_int_equal(ev.status, 0);
		got++;
	}
	assert_int_equal(got, expect);
}

/* As an application sends: an MD bound for the one message, gone with its last event. */
static void
put_ack(void)
{
	assert_int_equal(ut_put(ut_bind(g_src, sizeof(g_src), 2), LNET_ACK_REQ, 1, 0), 0);
	settle();
	events_drain(3); /* SEND, PUT, ACK */
}

static void
get_reply(void)
{
	assert_int_equal(ut_get(ut_bind(g_src, sizeof(g_src), 2), 1, 0), 0);
	settle();
	events_drain(3); /* SEND, GET, REPLY */
}

struct fwd_parse {
	struct lnet_hdr hdr;
	int rc;
};

static int
fwd_parse_on_lcore(void *arg)
{
	struct fwd_parse *p = arg;

	p->rc = lnet_parse(g_in, &p->hdr, &g_from, NULL);
	return 0;
}

/* A PUT from 10.0.0.7@tcp for 10.1.0.8@tcp1 arrives on tcp and goes on. */
static void
forwarded(void)
{
	struct fwd_parse p = { .hdr = { .type = LNET_MSG_PUT,
					.src_nid = g_from,
					.dest_nid = g_far,
					.src_pid = LNET_PID_LUSTRE,
					.dest_pid = LNET_PID_LUSTRE,
					.payload_length = PAYLOAD } };
	unsigned long sent = g_sent;

	p.hdr.msg.put.ptl_index = UT_PORTAL;
	p.hdr.msg.put.ack_wmd.wh_object_cookie = LNET_WIRE_HANDLE_COOKIE_NONE;
	assert_int_equal(rt_lcore_call(g_in->ln->cpts[g_in->cpt]->lcore, fwd_parse_on_lcore, &p),
			 0);
	assert_int_equal(p.rc, 0);
	settle();
	assert_int_equal(g_sent, sent + 1);
}

static void
routing_on(void)
{
	static const char *const params[][2] = {
		{ "alive_router_check_interval", "0" }, { "router_ping_timeout", "0" },
		{ "tiny_router_buffers", "64" },        { "small_router_buffers", "64" },
		{ "large_router_buffers", "16" },
	};
	struct lnet_ctl_routing r;
	char err[128];
	unsigned int i;

	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		assert_int_equal(lnet_ctl_param_set(params[i][0], atoi(params[i][1]), err,
						    sizeof(err)),
				 0);
	}
	assert_int_equal(lnet_ctl_routing_set(true, err, sizeof(err)), 0);
	for (i = 0; i < 100; i++) {
		settle();
		if (lnet_ctl_routing_get(&r) == 0 && r.enable == LNET_CTL_ROUTING_ENABLED) {
			return;
		}
		rt_sim_advance_us(lnet_instance()->rt, 1000000);
	}
	fail_msg("routing did not come up");
}

static int
setup(void **state)
{
	struct lnet_md sink;

	(void)state;
	ut_up(NOALLOC_CPTS);
	ut_discovery(0);
	sink = ut_md(g_sink, sizeof(g_sink), LNET_MD_THRESH_INF,
		     LNET_MD_OP_PUT | LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE);
	ut_attach(&sink, 1, 0, LNET_INS_AFTER, LNET_RETAIN);
	g_from = nid_on(TCP, 0x0a000007U);
	g_far = nid_on(TCP1, 0x0a010008U);
	g_in = nw_ni_add(nid_on(TCP, 0x0a000001U), 0);
	assert_non_null(g_in);
	assert_non_null(nw_ni_add(nid_on(TCP1, 0x0a010001U), NOALLOC_CPTS - 1));
	routing_on();
	return 0;
}

static void
run(void (*one)(void), unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		one();
	}
}

/* Warmed up (caches filled, peers and selection views made), then counted. */
static void
test_no_alloc(void (*one)(void), const char *what)
{
	uint64_t n;

	struct lnet_counters before;
	struct lnet_counters after;

	run(one, WARMUP);
	before = ut_counters();
	counting_start();
	run(one, MSGS);
	n = counting_stop(what);
	after = ut_counters();
	assert_int_equal(n, 0);
	assert_int_equal(after.msgs_alloc, 0);
	/* Each one sent and received once (a forward counts as routed). */
	assert_true(after.send_count + after.route_count - before.send_count - before.route_count >=
		    MSGS);
}

static void
test_put_ack_no_alloc(void **state)
{
	(void)state;
	test_no_alloc(put_ack, "PUT+ACK");
}

static void
test_get_reply_no_alloc(void **state)
{
	(void)state;
	test_no_alloc(get_reply, "GET+REPLY");
}

static void
test_forwarded_no_alloc(void **state)
{
	(void)state;
	test_no_alloc(forwarded, "forwarded PUT");
}

/* The counting works: the test's own malloc is seen (its stack is printed). */
static void
test_counting_counts(void **state)
{
	void *volatile p;

	(void)state;
	counting_start();
	p = malloc(16); /* volatile: the compiler may not drop the pair */
	free(p);
	assert_int_equal(counting_stop("the test's own malloc"), 1);
}

#define FEW_MSGS 8U

struct take_all {
	struct lnet_msg *msgs[FEW_MSGS + 1024];
	unsigned int n;
};

static int
take_all_on_cpt0(void *arg)
{
	struct take_all *t = arg;
	struct lnet_msg *msg;

	while (t->n < sizeof(t->msgs) / sizeof(t->msgs[0]) &&
	       (msg = lnet_msg_alloc(lnet_cpt_self(lnet_instance()))) != NULL) {
		t->msgs[t->n++] = msg;
	}
	return 0;
}

static int
give_all_on_cpt0(void *arg)
{
	struct take_all *t = arg;

	while (t->n > 0) {
		lnet_msg_free(t->msgs[--t->n]);
	}
	return 0;
}

/*
 * msgs_per_cpt sizes the message pool at LNetNIInit; an empty pool is a
 * clear failure (LNetPut -ENOMEM, counted by the pool), nothing allocated,
 * and the messages given back make it work again.
 */
static void
test_empty_pool_fails_without_alloc(void **state)
{
	static struct take_all t;
	struct lnet_init_opts o = {
		.opts_size = sizeof(o),
		.mode = LNET_EXEC_INLINE,
		.ncpts = 1,
		.no_eal = true,
		.msgs_per_cpt = LNET_MSGS_PER_CPT_MAX + 1,
	};
	struct lnet_handle_md md;
	struct lnet *ln;
	struct rt_pool_stats st;

	(void)state;
	assert_int_equal(lnet_init_opts_set(&o), 0);
	assert_int_equal(LNetNIInit(LNET_PID_LUSTRE), -EINVAL);
	o.msgs_per_cpt = FEW_MSGS;
	assert_int_equal(lnet_init_opts_set(&o), 0);
	assert_int_equal(LNetNIInit(LNET_PID_LUSTRE), 0);
	g_ut.eq = LNetEQAlloc(UT_EQ_SIZE);
	g_ut.self.pid = LNET_PID_LUSTRE;
	lnet_nid_set_lo0(&g_ut.self.nid);
	ln = lnet_instance();
	rt_pool_stats_get(ln->msg_pool, &st);
	assert_int_equal(st.n, FEW_MSGS + rt_pool_headroom(ln->rt, LNET_MSG_POOL_CACHE));
	assert_int_equal(lnet_call_on_cpt(ln, 0, take_all_on_cpt0, &t), 0);
	assert_int_equal(t.n, st.n); /* all of them, then no more */
	md = ut_bind(g_src, sizeof(g_src), 2);
	counting_start();
	assert_int_equal(ut_put(md, LNET_ACK_REQ, 1, 0), -ENOMEM);
	assert_int_equal(counting_stop("a send on an empty pool"), 0);
	rt_pool_stats_get(ln->msg_pool, &st);
	assert_int_equal(st.empty, 2); /* take_all's last try, and the PUT */
	assert_int_equal(lnet_call_on_cpt(ln, 0, give_all_on_cpt0, &t), 0);
	assert_int_equal(ut_counters().msgs_alloc, 0);
	assert_int_equal(ut_put(md, LNET_NOACK_REQ, 1, 0), 0);
	settle();
	ut_down();
	o.msgs_per_cpt = 0;
	assert_int_equal(lnet_init_opts_set(&o), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counting_counts),
		cmocka_unit_test(test_put_ack_no_alloc),
		cmocka_unit_test(test_get_reply_no_alloc),
		cmocka_unit_test(test_forwarded_no_alloc),
	};
	const struct CMUnitTest small_pool[] = {
		cmocka_unit_test(test_empty_pool_fails_without_alloc),
	};
	int rc;

	counting_install();
	rc = cmocka_run_group_tests_name("traffic", tests, setup, ut_teardown);
	return rc + cmocka_run_group_tests_name("small pool", small_pool, NULL, NULL);
}
