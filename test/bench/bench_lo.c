/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In-process PUT+ACK and GET+REPLY rate over 0@lo, polled mode (the calling
 * thread runs LNet, as an embedding application would), against a
 * peer measured in the same run: the bare memcpy of the same payload (the
 * least any loopback transfer costs). Prints YAML.
 *
 *   bench_lo [--iters N] [--size BYTES] [--cpts N] [--only put|get|memcpy]
 *
 * For instruction counts, usertools/lnet-bench (--figures inproc) runs this under callgrind at two
 * iteration counts and divides the difference.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"

#define BENCH_PORTAL 5
#define BENCH_BITS 1ULL

struct bench {
	unsigned long iters;
	unsigned int size;
	unsigned int ncpts;
	const char *only;
	struct lnet_eq *eq;
	struct lnet_processid self;
	char *src;
	char *dst;   /* the target MD: PUT lands here, GET reads from here */
	char *sink;  /* where a GET's REPLY lands */
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
drain(struct bench *b, unsigned int nevents)
{
	struct lnet_event ev;

	while (nevents > 0) {
		int rc = LNetEQPoll(&b->eq, 1, -1, &ev, NULL);

		if (rc != 1 || ev.status != 0) {
			fprintf(stderr, "bench: event poll rc %d status %d\n", rc, ev.status);
			return -1;
		}
		nevents--;
	}
	return 0;
}

static int
setup_target(struct bench *b)
{
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_md md = {
		.umd_start = b->dst, .umd_length = b->size, .umd_threshold = LNET_MD_THRESH_INF,
		.umd_options = LNET_MD_OP_PUT | LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE,
		.umd_eq_handle = b->eq,
	};
	struct lnet_me *me = LNetMEAttach(BENCH_PORTAL, &any, BENCH_BITS, 0, LNET_RETAIN,
					  LNET_INS_AFTER);
	struct lnet_handle_md h;

	return me == NULL ? -1 : LNetMDAttach(me, &md, LNET_RETAIN, &h);
}

/* One operation: PUT+ACK (put) or GET+REPLY; 3 events each. */
static int
run_ops(struct bench *b, bool put, struct lnet_handle_md src)
{
	unsigned long i;

	for (i = 0; i < b->iters; i++) {
		int rc = put ? LNetPut(NULL, src, LNET_ACK_REQ, &b->self, BENCH_PORTAL, BENCH_BITS,
				       0, 0) :
			       LNetGet(NULL, src, &b->self, BENCH_PORTAL, BENCH_BITS, 0, false);

		if (rc != 0 || drain(b, 3) != 0) {
			return -1;
		}
	}
	return 0;
}

static void
report(const char *name, const struct bench *b, double secs, unsigned int msgs_per_op,
       double floor_ops)
{
	double ops = (double)b->iters / secs;

	printf("%s:\n", name);
	printf("    ops: %lu\n", b->iters);
	printf("    ops_per_sec: %.0f\n", ops);
	printf("    lnet_msgs_per_sec: %.0f\n", ops * msgs_per_op);
	printf("    ns_per_op: %.1f\n", secs * 1e9 / (double)b->iters);
	if (floor_ops > 0) {
		printf("    ratio_to_memcpy: %.1f\n", floor_ops / ops);
	}
}

static double
bench_memcpy(struct bench *b)
{
	double t0 = now_s();
	unsigned long i;

	for (i = 0; i < b->iters; i++) {
		memcpy(b->dst, b->src, b->size);
		__asm__ volatile("" ::: "memory");
	}
	return now_s() - t0;
}

static int
bench_lnet(struct bench *b, bool put, double floor_ops)
{
	struct lnet_md md = { .umd_start = b->src, .umd_length = b->size,
			      .umd_threshold = LNET_MD_THRESH_INF, .umd_eq_handle = b->eq };
	struct lnet_handle_md h;
	double t0;

	if (!put) {
		md.umd_start = b->sink;
	}
	if (LNetMDBind(&md, LNET_UNLINK, &h) != 0) {
		return -1;
	}
	t0 = now_s();
	if (run_ops(b, put, h) != 0) {
		return -1;
	}
	report(put ? "put_ack" : "get_reply", b, now_s() - t0, 2, floor_ops);
	return LNetMDUnlink(h) == 0 && drain(b, 1) == 0 ? 0 : -1;
}

static int
parse_args(int argc, char **argv, struct bench *b)
{
	static const struct option longopts[] = {
		{ "iters", required_argument, NULL, 'n' }, { "size", required_argument, NULL, 's' },
		{ "cpts", required_argument, NULL, 'c' }, { "only", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "n:s:c:o:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			b->iters = strtoul(optarg, NULL, 10);
			break;
		case 's':
			b->size = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'c':
			b->ncpts = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'o':
			b->only = optarg;
			break;
		default:
			fprintf(stderr, "usage: bench_lo [--iters N] [--size B] [--cpts N] "
					"[--only put|get|memcpy]\n");
			return -1;
		}
	}
	return b->iters == 0 || b->size == 0 || b->size > LNET_MAX_MSG_SIZE ? -1 : 0;
}

static bool
wanted(const struct bench *b, const char *what)
{
	return b->only == NULL || strcmp(b->only, what) == 0;
}

int
main(int argc, char **argv)
{
	struct bench b = { .iters = 100000, .size = 8, .ncpts = 1 };
	struct lnet_init_opts o = { .opts_size = sizeof(o), .mode = LNET_EXEC_POLLED, .no_eal = true };
	double floor_ops = 0;
	int rc = 0;

	if (parse_args(argc, argv, &b) != 0) {
		return 2;
	}
	o.ncpts = b.ncpts;
	b.src = calloc(1, b.size);
	b.dst = calloc(1, b.size);
	b.sink = calloc(1, b.size);
	if (b.src == NULL || b.dst == NULL || b.sink == NULL || lnet_init_opts_set(&o) != 0 ||
	    LNetNIInit(LNET_PID_LUSTRE) != 0 || LNetGetId(0, &b.self, true) != 0) {
		return 1;
	}
	b.eq = LNetEQAlloc(64);
	printf("bench_lo:\n    size: %u\n    cpts: %u\n    mode: polled\n", b.size, b.ncpts);
	if (b.eq == NULL || setup_target(&b) != 0) {
		rc = 1;
	}
	if (rc == 0 && wanted(&b, "memcpy")) {
		double secs = bench_memcpy(&b);

		floor_ops = (double)b.iters / secs;
		report("memcpy_peer", &b, secs, 0, 0);
	}
	if (rc == 0 && wanted(&b, "put")) {
		rc = bench_lnet(&b, true, floor_ops);
	}
	if (rc == 0 && wanted(&b, "get")) {
		rc = bench_lnet(&b, false, floor_ops);
	}
	LNetNIFini();
	LNetEQFree(b.eq);
	free(b.src);
	free(b.dst);
	free(b.sink);
	return rc == 0 ? 0 : 1;
}
