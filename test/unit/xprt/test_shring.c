/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared-memory SPSC ring (xprt_shring.h): order, full and empty, the
 * 32-bit indices wrapping, two processes on one memfd, and a peer that
 * writes any index it likes: -EPROTO or a slot inside the ring, never an
 * access outside it (the ring ends at a PROT_NONE page).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "xprt_ring.h"
#include "xprt_shring.h"

#define COUNT 64u
#define ESIZE ((uint32_t)sizeof(struct xprt_op))

static void
test_order_full_empty(void **state)
{
	uint64_t bytes = xprt_shring_bytes(COUNT, ESIZE);
	void *mem = aligned_alloc(64, (size_t)bytes);
	struct xprt_shring p;
	struct xprt_shring c;
	struct xprt_op op = { 0 };
	uint32_t i;

	(void)state;
	assert_int_equal(xprt_shring_bytes(48, ESIZE), 0);
	assert_int_equal(xprt_shring_bytes(0, ESIZE), 0);
	xprt_shring_format(mem);
	xprt_shring_attach(&p, mem, COUNT, ESIZE, true);
	xprt_shring_attach(&c, mem, COUNT, ESIZE, false);
	assert_int_equal(xprt_shring_dequeue(&c, &op), -EAGAIN);
	for (i = 0; i < COUNT; i++) {
		op.buf = i;
		assert_int_equal(xprt_shring_enqueue(&p, &op), 0);
	}
	assert_int_equal(xprt_shring_enqueue(&p, &op), -ENOBUFS);
	for (i = 0; i < COUNT; i++) {
		assert_int_equal(xprt_shring_dequeue(&c, &op), 0);
		assert_int_equal(op.buf, i);
	}
	assert_int_equal(xprt_shring_dequeue(&c, &op), -EAGAIN);
	free(mem);
}

/* Indices near 2^32: entries keep their order across the wrap. */
static void
test_wrap(void **state)
{
	uint64_t bytes = xprt_shring_bytes(COUNT, ESIZE);
	struct xprt_shring_hdr *h = aligned_alloc(64, (size_t)bytes);
	struct xprt_shring p;
	struct xprt_shring c;
	struct xprt_op op = { 0 };
	uint32_t i;

	(void)state;
	atomic_store(&h->head, UINT32_MAX - 3);
	atomic_store(&h->tail, UINT32_MAX - 3);
	xprt_shring_attach(&p, h, COUNT, ESIZE, true);
	xprt_shring_attach(&c, h, COUNT, ESIZE, false);
	for (i = 0; i < 3 * COUNT; i++) {
		op.buf = i;
		assert_int_equal(xprt_shring_enqueue(&p, &op), 0);
		assert_int_equal(xprt_shring_dequeue(&c, &op), 0);
		assert_int_equal(op.buf, i);
	}
	assert_true(atomic_load(&h->head) < COUNT * 3);
	free(h);
}

/* A child produces 200,000 numbered entries through a memfd; the parent takes them in order. */
static void
test_two_processes(void **state)
{
	const uint64_t n = 200000;
	uint64_t bytes = xprt_shring_bytes(COUNT, ESIZE);
	int fd = memfd_create("shring", MFD_CLOEXEC);
	void *mem;
	struct xprt_shring c;
	struct xprt_op op;
	uint64_t want = 0;
	pid_t child;
	int ws;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)bytes), 0);
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(mem != MAP_FAILED);
	xprt_shring_format(mem);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		/* Its own mapping of the memfd, as a client's is. */
		void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		struct xprt_shring p;
		struct xprt_op e = { .kind = XPRT_OP_BUF_ADD };
		uint64_t i;

		xprt_shring_attach(&p, m, COUNT, ESIZE, true);
		for (i = 0; i < n; i++) {
			e.buf = i;
			e.length = i * 3;
			while (xprt_shring_enqueue(&p, &e) == -ENOBUFS) {
				sched_yield();
			}
		}
		_exit(0);
	}
	xprt_shring_attach(&c, mem, COUNT, ESIZE, false);
	while (want < n) {
		int rc = xprt_shring_dequeue(&c, &op);

		if (rc == -EAGAIN) {
			sched_yield();
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(op.buf, want);
		assert_int_equal(op.length, want * 3);
		want++;
	}
	assert_int_equal(waitpid(child, &ws, 0), child);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	munmap(mem, bytes);
	close(fd);
}

/*
 * Indices a peer writes at random: every call answers -EPROTO, or works on
 * a slot inside the ring. The ring's last byte is the last before a
 * PROT_NONE page, so a slot outside it would end the test with SIGSEGV.
 */
static void
test_lying_peer(void **state)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t bytes = xprt_shring_bytes(COUNT, ESIZE);
	size_t span = ((size_t)bytes + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
	uint8_t *map = mmap(NULL, span + (size_t)pg, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct xprt_shring_hdr *h;
	struct xprt_shring p;
	struct xprt_shring c;
	struct xprt_op op = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15u;
	unsigned int proto = 0;
	unsigned int ok = 0;
	unsigned int i;

	(void)state;
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + span, (size_t)pg, PROT_NONE), 0);
	/* 64-byte aligned, ending at the guard page. */
	h = (struct xprt_shring_hdr *)(map + span - bytes);
	assert_int_equal((uintptr_t)h % 64, 0);
	xprt_shring_format(h);
	xprt_shring_attach(&p, h, COUNT, ESIZE, true);
	xprt_shring_attach(&c, h, COUNT, ESIZE, false);
	for (i = 0; i < 100000; i++) {
		int rc;

		x = x * 6364136223846793005u + 1442695040888963407u;
		/* The consumer's side is the liar for the producer, and the other way round. */
		atomic_store(&h->tail, (uint32_t)(x >> 32));
		rc = xprt_shring_enqueue(&p, &op);
		assert_true(rc == 0 || rc == -ENOBUFS || rc == -EPROTO);
		proto += rc == -EPROTO;
		ok += rc == 0;
		atomic_store(&h->head, (uint32_t)x);
		rc = xprt_shring_dequeue(&c, &op);
		assert_true(rc == 0 || rc == -EAGAIN || rc == -EPROTO);
		proto += rc == -EPROTO;
		ok += rc == 0;
		/* Now and then indices a little apart: the calls that go through. */
		if ((x & 3) == 0) {
			atomic_store(&h->tail, p.mine - (uint32_t)(x >> 60));
			assert_int_equal(xprt_shring_enqueue(&p, &op), 0);
			ok++;
		}
	}
	assert_true(proto > 0);
	assert_true(ok > 0);
	munmap(map, span + (size_t)pg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_full_empty),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_two_processes),
		cmocka_unit_test(test_lying_peer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
