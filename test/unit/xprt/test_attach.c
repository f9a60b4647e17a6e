/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Client processes attaching to the daemon's service (xprt_attach.h): each
 * client here is a forked process, the service runs on the test's thread.
 * Credentials are checked before a byte is read; a memfd region is mapped
 * shared (the client's later writes are seen, no copy) and reached only
 * within its bounds and by a live handle; a client killed with SIGKILL
 * leaves nothing mapped; a client that sends what no client makes, or an
 * fd that is not a sealed memfd, is refused and the service goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "xprt_attach.h"
#include "xprt_ring.h"
#include "xprt_shring.h"

#define REGION_SIZE (64u * 1024u)
/* How long the service is polled for what must come before the test fails. */
#define WAIT_MS 20000

static char g_dir[64];
static char g_path[128];

static int
setup(void **state)
{
	(void)state;
	strcpy(g_dir, "/tmp/xprt_attach.XXXXXX");
	if (mkdtemp(g_dir) == NULL) {
		return -1;
	}
	snprintf(g_path, sizeof(g_path), "%s/xprt.sock", g_dir);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	(void)unlink(g_path);
	return rmdir(g_dir);
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Serve until the stats say @p done, within WAIT_MS. */
static void
serve_until(struct xprt_svc *svc, bool (*done)(const struct xprt_svc_stats *, uint64_t),
	    uint64_t arg)
{
	uint64_t end = now_ms() + WAIT_MS;
	struct xprt_svc_stats st;

	for (;;) {
		xprt_svc_stats_get(svc, &st);
		if (done(&st, arg)) {
			return;
		}
		assert_true(now_ms() < end);
		assert_true(xprt_svc_poll(svc, 10) >= 0);
	}
}

static bool
regions_are(const struct xprt_svc_stats *st, uint64_t n)
{
	return st->regions == n;
}

static bool
clients_are(const struct xprt_svc_stats *st, uint64_t n)
{
	return st->clients == n;
}

static bool
refused_is(const struct xprt_svc_stats *st, uint64_t n)
{
	return st->refused == n;
}

static bool
failed_is(const struct xprt_svc_stats *st, uint64_t n)
{
	return st->failed == n;
}

/* A memfd of REGION_SIZE bytes of @p fill, sealed against shrinking when @p seal. */
static int
region_memfd(uint8_t fill, bool seal)
{
	int fd = memfd_create("xprt-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *p;

	if (fd < 0 || ftruncate(fd, REGION_SIZE) != 0) {
		_exit(90);
	}
	p = mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		_exit(91);
	}
	memset(p, fill, REGION_SIZE);
	munmap(p, REGION_SIZE);
	if (seal && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
		_exit(92);
	}
	return fd;
}

static void
put_u64(int fd, uint64_t v)
{
	if (write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		_exit(93);
	}
}

static uint64_t
get_u64(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		_exit(94); /* also in the parent: fails the test with a child's code */
	}
	return v;
}

/*
 * The child of test_map_and_kill: attaches a region of 0xA5, says its
 * handle, waits for a word, writes 0x5A at the word's offset, says so and
 * then waits to be killed.
 */
static void
mapping_client(int to_parent, int from_parent)
{
	uint64_t id;
	uint64_t h;
	int s;
	int mfd = region_memfd(0xA5, true);
	uint8_t *p = mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);

	if (p == MAP_FAILED || xprt_att_connect(g_path, &s, &id) != 0 ||
	    xprt_att_region_add(s, mfd, REGION_SIZE, &h) != 0) {
		_exit(95);
	}
	put_u64(to_parent, id);
	put_u64(to_parent, h);
	p[get_u64(from_parent)] = 0x5A;
	put_u64(to_parent, 1);
	pause();
	_exit(0);
}

static void
test_map_and_kill(void **state)
{
	uid_t me = getuid();
	struct xprt_svc *svc;
	struct xprt_svc_stats st;
	struct xprt_svc_client_info ci[4];
	int up[2];
	int down[2];
	pid_t child;
	uint64_t id;
	uint64_t h;
	uint8_t *p;
	int ws;

	(void)state;
	assert_int_equal(xprt_svc_open(g_path, &me, 1, &svc), 0);
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		mapping_client(up[1], down[0]);
	}
	serve_until(svc, regions_are, 1);
	id = get_u64(up[0]);
	h = get_u64(up[0]);

	/* Its credentials, as the kernel gave them. */
	assert_int_equal(xprt_svc_clients(svc, ci, 4), 1);
	assert_int_equal(ci[0].id, id);
	assert_int_equal(ci[0].pid, child);
	assert_int_equal(ci[0].uid, me);
	assert_int_equal(ci[0].regions, 1);
	assert_int_equal(ci[0].mapped_bytes, REGION_SIZE);

	/* The client's bytes, at any offset within the region and nowhere else. */
	p = xprt_svc_region_ptr(svc, id, h, 0, REGION_SIZE);
	assert_non_null(p);
	assert_int_equal(p[0], 0xA5);
	assert_int_equal(p[REGION_SIZE - 1], 0xA5);
	assert_ptr_equal(xprt_svc_region_ptr(svc, id, h, REGION_SIZE - 1, 1), p + REGION_SIZE - 1);
	assert_ptr_equal(xprt_svc_region_ptr(svc, id, h, REGION_SIZE, 0), p + REGION_SIZE);
	assert_null(xprt_svc_region_ptr(svc, id, h, REGION_SIZE, 1));
	assert_null(xprt_svc_region_ptr(svc, id, h, 1, REGION_SIZE));
	assert_null(xprt_svc_region_ptr(svc, id, h, 8, UINT64_MAX));
	assert_null(xprt_svc_region_ptr(svc, id, h, UINT64_MAX, 2));
	/* A handle of another generation or slot, another client: nothing. */
	assert_null(xprt_svc_region_ptr(svc, id, h + (UINT64_C(1) << 32), 0, 1));
	assert_null(xprt_svc_region_ptr(svc, id, h + 1, 0, 1));
	assert_null(xprt_svc_region_ptr(svc, id + 1, h, 0, 1));

	/* Shared pages: what the client writes after attaching is what the daemon reads. */
	put_u64(down[1], 4097);
	assert_int_equal(get_u64(up[0]), 1);
	assert_int_equal(p[4097], 0x5A);
	assert_int_equal(p[4096], 0xA5);

	/* Killed: nothing of it stays mapped, and it is counted. */
	assert_int_equal(kill(child, SIGKILL), 0);
	assert_int_equal(waitpid(child, &ws, 0), child);
	serve_until(svc, clients_are, 0);
	xprt_svc_stats_get(svc, &st);
	assert_int_equal(st.regions, 0);
	assert_int_equal(st.mapped_bytes, 0);
	assert_int_equal(st.attached, 1);
	assert_int_equal(st.detached, 1);
	assert_int_equal(st.failed, 0);
	assert_null(xprt_svc_region_ptr(svc, id, h, 0, 1));
	xprt_svc_close(svc);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

/* Run @p fn in a child while serving until @p done; the child's exit status. */
static int
with_child(struct xprt_svc *svc, void (*fn)(void),
	   bool (*done)(const struct xprt_svc_stats *, uint64_t), uint64_t arg)
{
	pid_t child = fork();
	int ws = 0;

	assert_true(child >= 0);
	if (child == 0) {
		fn();
		_exit(0);
	}
	serve_until(svc, done, arg);
	/* The child may still wait for an answer the service has to give. */
	while (waitpid(child, &ws, WNOHANG) == 0) {
		assert_true(xprt_svc_poll(svc, 10) >= 0);
	}
	assert_true(WIFEXITED(ws));
	return WEXITSTATUS(ws);
}

static void
refused_client(void)
{
	uint64_t id;
	int s;

	_exit(xprt_att_connect(g_path, &s, &id) != 0 ? 0 : 96);
}

static void
test_uid_refused(void **state)
{
	uid_t other = getuid() + 1;
	struct xprt_svc *svc;
	struct xprt_svc_stats st;

	(void)state;
	assert_int_equal(xprt_svc_open(g_path, &other, 1, &svc), 0);
	assert_int_equal(with_child(svc, refused_client, refused_is, 1), 0);
	xprt_svc_stats_get(svc, &st);
	assert_int_equal(st.attached, 0);
	assert_int_equal(st.clients, 0);
	xprt_svc_close(svc);
}

/* Regions the daemon must not map: each refused with its reason, the client kept. */
static void
bad_region_client(void)
{
	uint64_t id;
	uint64_t h;
	int pfd[2];
	int s;

	if (xprt_att_connect(g_path, &s, &id) != 0 || pipe(pfd) != 0) {
		_exit(97);
	}
	if (xprt_att_region_add(s, region_memfd(1, false), REGION_SIZE, &h) != -EPERM) {
		_exit(98); /* could shrink under the daemon */
	}
	if (xprt_att_region_add(s, pfd[0], REGION_SIZE, &h) != -EPERM) {
		_exit(99); /* not a memfd */
	}
	if (xprt_att_region_add(s, region_memfd(1, true), REGION_SIZE + 1, &h) != -EINVAL) {
		_exit(100); /* more than the file has */
	}
	if (xprt_att_region_del(s, xprt_handle_make(0, 1)) != -ENOENT) {
		_exit(101);
	}
	if (xprt_att_region_add(s, region_memfd(1, true), REGION_SIZE, &h) != 0 ||
	    xprt_att_region_del(s, h) != 0) {
		_exit(102); /* and it is still served */
	}
	_exit(0);
}

static void
test_bad_regions(void **state)
{
	uid_t me = getuid();
	struct xprt_svc *svc;
	struct xprt_svc_stats st;

	(void)state;
	assert_int_equal(xprt_svc_open(g_path, &me, 1, &svc), 0);
	assert_int_equal(with_child(svc, bad_region_client, clients_are, 1), 0);
	serve_until(svc, clients_are, 0);
	xprt_svc_stats_get(svc, &st);
	assert_int_equal(st.failed, 0);
	assert_int_equal(st.regions, 0);
	assert_int_equal(st.mapped_bytes, 0);
	xprt_svc_close(svc);
}

/* Bytes no client library makes: a bad magic, then a hello twice. */
static void
garbage_client(void)
{
	struct xprt_att_msg m = { .magic = 0xdeadbeef, .kind = XPRT_ATT_HELLO, .version = 1 };
	uint64_t id;
	char c;
	int s;

	if (xprt_att_connect(g_path, &s, &id) != 0 || write(s, &m, sizeof(m)) != sizeof(m)) {
		_exit(103);
	}
	/* Cut off: the stream ends with no answer. */
	_exit(read(s, &c, 1) == 0 ? 0 : 104);
}

static void
hello_twice_client(void)
{
	uint64_t id;
	int s;
	struct xprt_att_msg m = { .magic = XPRT_ATT_MAGIC,
				  .kind = XPRT_ATT_HELLO,
				  .version = XPRT_ATT_VERSION };
	char c;

	if (xprt_att_connect(g_path, &s, &id) != 0 || write(s, &m, sizeof(m)) != sizeof(m)) {
		_exit(105);
	}
	_exit(read(s, &c, 1) == 0 ? 0 : 106);
}

static void
good_client(void)
{
	uint64_t id;
	uint64_t h;
	int s;

	_exit(xprt_att_connect(g_path, &s, &id) == 0 &&
			      xprt_att_region_add(s, region_memfd(7, true), REGION_SIZE, &h) == 0 ?
		      0 :
		      107);
}

static void
test_garbage_cut_off(void **state)
{
	uid_t me = getuid();
	struct xprt_svc *svc;
	struct xprt_svc_stats st;

	(void)state;
	assert_int_equal(xprt_svc_open(g_path, &me, 1, &svc), 0);
	assert_int_equal(with_child(svc, garbage_client, failed_is, 1), 0);
	assert_int_equal(with_child(svc, hello_twice_client, failed_is, 2), 0);
	/* The service goes on: the next client attaches and maps. */
	assert_int_equal(with_child(svc, good_client, regions_are, 1), 0);
	serve_until(svc, clients_are, 0);
	xprt_svc_stats_get(svc, &st);
	assert_int_equal(st.attached, 3);
	assert_int_equal(st.detached, 3);
	assert_int_equal(st.failed, 2);
	assert_int_equal(st.mapped_bytes, 0);
	xprt_svc_close(svc);
}

#define RING_COUNT 64u

/*
 * The child of test_tm_rings: a ring pair at 4096 in its region; bad pairs
 * refused; three operations in; then waits for the daemon's event and
 * exits with 0 if it is the one expected.
 */
static void
rings_client(int to_parent)
{
	uint64_t id;
	uint64_t reg;
	uint64_t tm;
	struct xprt_shring ops;
	struct xprt_shring evs;
	struct xprt_op op = { .kind = XPRT_OP_BUF_ADD, .qtype = XPRT_Q_MSG_SEND };
	struct xprt_ev ev;
	int s;
	int mfd = region_memfd(0, true);
	uint8_t *p = mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	uint64_t bytes = xprt_att_rings_bytes(RING_COUNT);
	uint32_t i;

	if (p == MAP_FAILED || bytes == 0 || xprt_att_connect(g_path, &s, &id) != 0 ||
	    xprt_att_region_add(s, mfd, REGION_SIZE, &reg) != 0) {
		_exit(110);
	}
	xprt_shring_format(p + 4096);
	xprt_shring_format(p + 4096 + xprt_att_ev_ring_off(RING_COUNT));
	if (xprt_att_tm_rings(s, reg, 4100, RING_COUNT, &tm) != -EINVAL ||
	    xprt_att_tm_rings(s, reg, 4096, 48, &tm) != -EINVAL ||
	    xprt_att_tm_rings(s, reg, REGION_SIZE - 64, RING_COUNT, &tm) != -ERANGE ||
	    xprt_att_tm_rings(s, reg + (UINT64_C(1) << 32), 4096, RING_COUNT, &tm) != -ERANGE) {
		_exit(111);
	}
	if (xprt_att_tm_rings(s, reg, 4096, RING_COUNT, &tm) != 0 ||
	    xprt_att_region_del(s, reg) != -EBUSY) {
		_exit(112);
	}
	xprt_shring_attach(&ops, p + 4096, RING_COUNT, sizeof(struct xprt_op), true);
	xprt_shring_attach(&evs, p + 4096 + xprt_att_ev_ring_off(RING_COUNT), RING_COUNT,
			   sizeof(struct xprt_ev), false);
	for (i = 0; i < 3; i++) {
		op.buf = i;
		op.length = 100 + i;
		if (xprt_shring_enqueue(&ops, &op) != 0) {
			_exit(113);
		}
	}
	put_u64(to_parent, id);
	put_u64(to_parent, tm);
	while (xprt_shring_dequeue(&evs, &ev) == -EAGAIN) {
		sched_yield();
	}
	_exit(ev.kind == XPRT_EV_BUF && ev.buf == 2 && ev.length == 102 && ev.unlinked == 1 ? 0 :
											      114);
}

static void
test_tm_rings(void **state)
{
	uid_t me = getuid();
	struct xprt_svc *svc;
	struct xprt_svc_stats st;
	struct xprt_shring *ops;
	struct xprt_shring *evs;
	struct xprt_op op;
	struct xprt_ev ev = { .kind = XPRT_EV_BUF, .unlinked = 1 };
	int up[2];
	pid_t child;
	uint64_t id;
	uint64_t tm;
	uint32_t i;
	int ws;

	(void)state;
	assert_int_equal(xprt_svc_open(g_path, &me, 1, &svc), 0);
	assert_int_equal(pipe(up), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		rings_client(up[1]);
	}
	/* Serve until the child says its words: its calls wait for the service's answers. */
	for (;;) {
		struct pollfd pf = { .fd = up[0], .events = POLLIN };

		if (poll(&pf, 1, 0) == 1) {
			break;
		}
		assert_true(xprt_svc_poll(svc, 10) >= 0);
	}
	id = get_u64(up[0]);
	tm = get_u64(up[0]);
	assert_int_equal(xprt_svc_tm_rings(svc, id, tm + (UINT64_C(1) << 32), &ops, &evs), -ENOENT);
	assert_int_equal(xprt_svc_tm_rings(svc, id + 1, tm, &ops, &evs), -ENOENT);
	assert_int_equal(xprt_svc_tm_rings(svc, id, tm, &ops, &evs), 0);
	xprt_svc_stats_get(svc, &st);
	assert_int_equal(st.tms, 1);
	/* The client's three operations, in order; an event back. */
	for (i = 0; i < 3; i++) {
		assert_int_equal(xprt_shring_dequeue(ops, &op), 0);
		assert_int_equal(op.buf, i);
		assert_int_equal(op.length, 100 + i);
	}
	assert_int_equal(xprt_shring_dequeue(ops, &op), -EAGAIN);
	ev.buf = op.buf;
	ev.length = op.length;
	assert_int_equal(xprt_shring_enqueue(evs, &ev), 0);
	while (waitpid(child, &ws, WNOHANG) == 0) {
		assert_true(xprt_svc_poll(svc, 10) >= 0);
	}
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
	serve_until(svc, clients_are, 0);
	xprt_svc_stats_get(svc, &st);
	assert_int_equal(st.tms, 0); /* its pair went with it */
	assert_int_equal(st.mapped_bytes, 0);
	assert_int_equal(st.failed, 0);
	assert_int_equal(xprt_svc_tm_rings(svc, id, tm, &ops, &evs), -ENOENT);
	xprt_svc_close(svc);
	close(up[0]);
	close(up[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_map_and_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uid_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_regions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_cut_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tm_rings, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
