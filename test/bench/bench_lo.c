/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In-process PUT+ACK and GET+REPLY rate over 0@lo, polled mode (the calling
 * thread runs LNet, as an embedding application would), against a
 * peer measured in the same run: the bare memcpy of the same payload (the
 * least any loopback transfer costs). Prints YAML.
 *
 *   bench_lo [--iters N] [--size BYTES] [--cpts N] [--only put|get|memcpy]
 *            [--mr-udsp [--port P]] [--handler]
 *
 * --handler delivers the events to MD handlers (on the lcore, as Lustre
 * 2.17 takes every event) instead of the event queue the application
 * polls: the LNet path without the queue's hand-off between threads.
 *
 * --mr-udsp measures the same 0@lo path with what a deployed node has in
 * place: two socklnd NIs (127.0.0.2@tcp and 127.0.0.3@tcp, added at
 * runtime after LNetNIInit, as lnet_node adds its NIs; Multi-Rail), health
 * at its defaults (printed) and 20 UDSP rules of every kind (net and NID
 * priorities, src/dst NID pairs, a router preference, some matching the
 * 127.0.0.x NIDs, some other ranges, two inserted with idx). The NIs listen
 * on port P (accept_port), by default a free one the kernel picks (bound
 * then closed: another listener there would have made that bind fail).
 * Under the YAML's "bench_lo:" it says what was in place (nis, udsp_rules).
 * Each operation's section has hops_per_op: its ring hops (lcore changes),
 * 0 with one CPT.
 *
 * For instruction counts, usertools/lnet-bench (--figures inproc) runs this under callgrind at two
 * iteration counts and divides the difference.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "cfs.h"
#include "lnet_ctl.h"
#include "bench_udsp.h"
#include "lnet_lnd.h"

#define BENCH_PORTAL 5
#define BENCH_BITS 1ULL

struct bench {
	unsigned long iters;
	unsigned int size;
	unsigned int ncpts;
	const char *only;
	bool mr_udsp; /* --mr-udsp: two socklnd NIs and 20 UDSP rules in place */
	bool handler; /* --handler: events to MD handlers (as Lustre takes them), no EQ */
	unsigned long handled_want; /* --handler: events drained so far */
	unsigned int port;          /* --port: their accept_port; 0: a free one */
	struct lnet_eq *eq;
	struct lnet_processid self;
	char *src;
	char *dst;  /* the target MD: PUT lands here, GET reads from here */
	char *sink; /* where a GET's REPLY lands */
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --handler: events the MD handlers were given, and the failed ones among them. */
static unsigned long g_handled;
static unsigned long g_handled_failed;

/* On the lcore that owns the MD (polled mode: inside the LNet call that made the event). */
static void
count_event(struct lnet_event *ev)
{
	g_handled++;
	g_handled_failed += ev->status != 0;
}

static int
drain(struct bench *b, unsigned int nevents)
{
	struct lnet_event ev;

	if (b->handler) {
		/* Over 0@lo they came inside the call that started them; else a poll runs the lcores. */
		b->handled_want += nevents;
		while (g_handled < b->handled_want && g_handled_failed == 0) {
			if (LNetEQPoll(&b->eq, 1, 0, &ev, NULL) < 0) {
				return -1;
			}
		}
		if (g_handled_failed != 0) {
			fprintf(stderr, "bench: %lu events failed\n", g_handled_failed);
			return -1;
		}
		return 0;
	}
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
		.umd_start = b->dst,
		.umd_length = b->size,
		.umd_threshold = LNET_MD_THRESH_INF,
		.umd_options = LNET_MD_OP_PUT | LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE,
		.umd_eq_handle = b->handler ? NULL : b->eq,
		.umd_handler = b->handler ? count_event : NULL,
	};
	struct lnet_me *me =
		LNetMEAttach(BENCH_PORTAL, &any, BENCH_BITS, 0, LNET_RETAIN, LNET_INS_AFTER);
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

/* Ring hops (lcore changes) of every kind, summed: 0 when all runs on one lcore. */
static uint64_t
hops_now(void)
{
	struct lnet_ctl_hops h = { 0 };

	lnet_ctl_hops_get(&h);
	return h.put + h.get + h.ack + h.reply + h.forward;
}

static int
bench_lnet(struct bench *b, bool put, double floor_ops)
{
	struct lnet_md md = { .umd_start = b->src,
			      .umd_length = b->size,
			      .umd_threshold = LNET_MD_THRESH_INF,
			      .umd_eq_handle = b->handler ? NULL : b->eq,
			      .umd_handler = b->handler ? count_event : NULL };
	struct lnet_handle_md h;
	uint64_t hops;
	double t0;

	if (!put) {
		md.umd_start = b->sink;
	}
	if (LNetMDBind(&md, LNET_UNLINK, &h) != 0) {
		return -1;
	}
	hops = hops_now();
	t0 = now_s();
	if (run_ops(b, put, h) != 0) {
		return -1;
	}
	report(put ? "put_ack" : "get_reply", b, now_s() - t0, 2, floor_ops);
	printf("    hops_per_op: %.3f\n", (double)(hops_now() - hops) / (double)b->iters);
	return LNetMDUnlink(h) == 0 && drain(b, 1) == 0 ? 0 : -1;
}

/* --mr-udsp: the two socklnd NIs added at runtime (the loopback has every 127.x address). */
static const char *const mr_nids[] = { "127.0.0.2@tcp", "127.0.0.3@tcp" };

/*
 * --mr-udsp: 20 UDSP rules of every kind, in lnetctl udsp add's terms
 * (NULL: no such descriptor; priority -1: a preferred-list rule; idx -1:
 * appended). usertools/lnet-bench gives lnet_node the same 20 (as --udsp
 * SPECs, MR_UDSP_RULES) with a client on 127.0.0.2/3 and a server on
 * 127.0.0.1/4: rules matching those NIDs give both rails of each side the
 * same priority and pair them straight (.2/.1, .3/.4), so both stay in use.
 */
static const struct bench_udsp_rule mr_rules[] = {
	{ "tcp", NULL, NULL, 0, -1 },               /* local net priority */
	{ NULL, "tcp", NULL, 0, -1 },               /* peer net priority */
	{ "127.0.0.[2-3]@tcp", NULL, NULL, 1, -1 }, /* local NID priorities, equal */
	{ "127.0.0.[1,4]@tcp", NULL, NULL, 1, -1 },
	{ NULL, "127.0.0.[1,4]@tcp", NULL, 1, -1 }, /* peer NID priorities, equal */
	{ NULL, "127.0.0.[2-3]@tcp", NULL, 1, -1 },
	{ "127.0.0.2@tcp", "127.0.0.1@tcp", NULL, -1, -1 }, /* src/dst pairs, straight */
	{ "127.0.0.3@tcp", "127.0.0.4@tcp", NULL, -1, -1 },
	{ "127.0.0.1@tcp", "127.0.0.2@tcp", NULL, -1, -1 },
	{ "127.0.0.4@tcp", "127.0.0.3@tcp", NULL, -1, -1 },
	{ NULL, "10.0.[0-127].*@tcp", NULL, 2, -1 }, /* other ranges */
	{ NULL, "12.0.*.*@tcp", NULL, 3, -1 },
	{ NULL, "13.[0-1].*.*@tcp", NULL, 4, -1 },
	{ "10.1.1.1@tcp", "12.*.*.*@tcp", NULL, -1, -1 },
	{ NULL, "tcp1", NULL, 5, -1 },
	{ "tcp1", NULL, NULL, 2, -1 },
	{ NULL, "12.0.[0-31].[0-255/2]@tcp", NULL, 7, 0 }, /* inserted first */
	{ NULL, "13.1.[100-134].*@tcp", NULL, 8, 3 },      /* inserted at 3 */
	{ NULL, "10.2.*.*@tcp", "10.9.9.1@tcp", -1, -1 },  /* a preferred router */
	{ NULL, "127.0.0.*@tcp", NULL, 1, -1 },            /* every 127.0.0.x peer alike */
};

#define MR_NNIDS (sizeof(mr_nids) / sizeof(mr_nids[0]))
#define MR_NRULES (sizeof(mr_rules) / sizeof(mr_rules[0]))

/* A port free on both NIs' addresses: bound there (the kernel picks it), then closed. */
static unsigned int
mr_free_port(void)
{
	for (int tries = 0; tries < 16; tries++) {
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_addr.s_addr = htonl(0x7f000002) };
		socklen_t len = sizeof(sa);
		int fd[MR_NNIDS];
		unsigned int port = 0;
		bool ok = true;

		for (unsigned int i = 0; i < MR_NNIDS; i++) {
			sa.sin_addr.s_addr = htonl(0x7f000002 + i);
			fd[i] = socket(AF_INET, SOCK_STREAM, 0);
			ok = ok && fd[i] >= 0 &&
			     bind(fd[i], (struct sockaddr *)&sa, sizeof(sa)) == 0;
			if (ok && i == 0 && getsockname(fd[0], (struct sockaddr *)&sa, &len) == 0) {
				port = ntohs(sa.sin_port);
			}
			ok = ok && port != 0;
		}
		for (unsigned int i = 0; i < MR_NNIDS; i++) {
			if (fd[i] >= 0) {
				close(fd[i]);
			}
		}
		if (ok) {
			return port;
		}
	}
	return 0;
}

/* The socklnd's module parameters: our port, any peer (before LNetNIInit). */
static int
mr_params(struct bench *b)
{
	const struct lnet_lnd_ops *sock = lnet_lnd_find(LNET_LND_SOCK);
	char params[64];
	char err[256] = "";
	int rc;

	if (b->port == 0) {
		b->port = mr_free_port();
	}
	if (b->port == 0 || b->port > 65535) {
		fprintf(stderr, "bench_lo: no port for the socklnd NIs\n");
		return -1;
	}
	snprintf(params, sizeof(params), "accept_port=%u,accept=all", b->port);
	rc = sock == NULL || sock->params_set == NULL ? -EOPNOTSUPP :
							sock->params_set(params, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "bench_lo: socklnd %s: %s\n", params,
			err[0] != '\0' ? err : strerror(-rc));
	}
	return rc;
}

/* After LNetNIInit: the two NIs, then the rules (applied to every NI and peer before it returns). */
static int
mr_setup(void)
{
	struct lnet_ctl_ni_tunables tun = { 180, 8, 0, 256 };
	char err[256] = "";
	int rc = 0;

	for (unsigned int i = 0; rc == 0 && i < MR_NNIDS; i++) {
		struct lnet_nid nid;

		rc = libcfs_strnid(&nid, mr_nids[i]) != 0 ?
			     -EINVAL :
			     lnet_ctl_ni_add(&nid, NULL, &tun, NULL, 0, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "bench_lo: add %s: %s\n", mr_nids[i],
				err[0] != '\0' ? err : strerror(-rc));
		}
	}
	return rc != 0 ? rc : bench_udsp_add_all(mr_rules, MR_NRULES, "bench_lo");
}

/* What was in place while it measured: the NIs (0@lo counted), the rules, health. */
static void
print_in_place(const struct bench *b)
{
	struct lnet_ctl_ni nis[8];
	struct lnet_ctl_global g = { 0 };
	unsigned int nrules = 0;
	struct lnet_ctl_udsp r[1];
	int nnis = lnet_ctl_ni_list(nis, 8);

	lnet_ctl_global_get(&g);
	if (lnet_ctl_udsp_list(0, r, 1, &nrules) < 0) {
		nrules = 0;
	}
	printf("    mr_udsp: %s\n    nis: %d\n    udsp_rules: %u\n    health_sensitivity: %d\n"
	       "    retry_count: %d\n",
	       b->mr_udsp ? "true" : "false", nnis, nrules, g.health_sensitivity, g.retry_count);
	printf("    handler: %s\n", b->handler ? "true" : "false");
	if (b->mr_udsp) {
		printf("    port: %u\n", b->port);
	}
}

static int
parse_args(int argc, char **argv, struct bench *b)
{
	static const struct option longopts[] = {
		{ "iters", required_argument, NULL, 'n' }, { "size", required_argument, NULL, 's' },
		{ "cpts", required_argument, NULL, 'c' },  { "only", required_argument, NULL, 'o' },
		{ "mr-udsp", no_argument, NULL, 'm' },     { "port", required_argument, NULL, 'p' },
		{ "handler", no_argument, NULL, 'H' },     { NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "n:s:c:o:mp:H", longopts, NULL)) != -1) {
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
		case 'm':
			b->mr_udsp = true;
			break;
		case 'p':
			b->port = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'H':
			b->handler = true;
			break;
		default:
			fprintf(stderr,
				"usage: bench_lo [--iters N] [--size B] [--cpts N] "
				"[--only put|get|memcpy] [--mr-udsp [--port P]] [--handler]\n");
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
	struct lnet_init_opts o = { .opts_size = sizeof(o),
				    .mode = LNET_EXEC_POLLED,
				    .no_eal = true };
	double floor_ops = 0;
	int rc = 0;

	if (parse_args(argc, argv, &b) != 0) {
		return 2;
	}
	o.ncpts = b.ncpts;
	b.src = calloc(1, b.size);
	b.dst = calloc(1, b.size);
	b.sink = calloc(1, b.size);
	if (b.src == NULL || b.dst == NULL || b.sink == NULL || (b.mr_udsp && mr_params(&b) != 0) ||
	    lnet_init_opts_set(&o) != 0 || LNetNIInit(LNET_PID_LUSTRE) != 0 ||
	    LNetGetId(0, &b.self, true) != 0) {
		return 1;
	}
	b.eq = LNetEQAlloc(64);
	printf("bench_lo:\n    size: %u\n    cpts: %u\n    mode: polled\n", b.size, b.ncpts);
	if (b.mr_udsp && mr_setup() != 0) {
		LNetNIFini();
		return 1;
	}
	print_in_place(&b);
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
