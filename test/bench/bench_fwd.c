/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In-process cost of a forwarded message: a router node (polled mode, one
 * CPT, no EAL) with NIs on tcp and tcp1 over an LND with no wire, whose
 * receive copies the payload from memory as socklnd copies it from a
 * socket and whose send completes at once. Each message arrives on tcp
 * for a peer on tcp1 and is forwarded (router credits, a pool buffer, the
 * payload received into it, selection of the next hop, the send). Beside
 * it in the same run, the same message received for this node (a PUT to
 * a posted MD, its ACK sent back): what the node does with a message of
 * its own. Prints YAML.
 *
 *   bench_fwd [--iters N] [--size BYTES] [--only fwd|local] [--mr-udsp] [--cpts N]
 *             [--batch N]
 *
 * The messages arrive as an LND's poll delivers them: a poller on the NI's
 * lcore hands LNet up to --batch headers (32, as socklnd's epoll batch and
 * the runtime's message batch) each round of its loop, so what a message
 * costs is LNet's, not a call onto the lcore and an idle round of its own.
 *
 * --mr-udsp measures it with what a deployed router has: a second NI on
 * each net (Multi-Rail: the next hop is chosen between two), health, and
 * 20 UDSP rules of every kind, some of them matching these NIDs.
 *
 * --cpts 2 puts the tcp1 NIs on CPT 1 (the tcp ones stay on CPT 0), so a
 * forwarded message changes lcores between its NI in and its NI out; each
 * run prints its ring hops per message (hops_per_msg).
 *
 * usertools/lnet-bench (--figures router) runs it under callgrind at two
 * iteration counts and divides the difference: instructions per message.
 * The LND's own payload copy is fwd_payload_copy (never inlined), so that
 * the script can read its inclusive cost from the profile and report it
 * apart from LNet's.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "lnet_ctl.h"
#include "bench_udsp.h"
#include "lnet_mgmt.h"

#define FWD_PORTAL 7
#define TCP LNET_MKNET(LNET_LND_SOCK, 0)
#define TCP1 LNET_MKNET(LNET_LND_SOCK, 1)

struct fwd_bench {
	unsigned long iters;
	unsigned int size;
	const char *only;
	bool mr_udsp;
	unsigned int ncpts;
	unsigned int batch;     /* headers handed to LNet a poll round */
	unsigned int to_inject; /* messages still to arrive: the injector's lcore's */
	int inject_rc;          /* the first lnet_parse() that refused one */
	struct rt_poller *inject;
	struct lnet_hdr hdr;  /* this run's message, as "the socket" delivers each */
	uint8_t *wire;        /* the payload as it "arrives" */
	uint8_t *sink;        /* the local MD */
	struct lnet_ni *in;   /* 10.0.0.1@tcp */
	struct lnet_nid from; /* 10.0.0.7@tcp */
	struct lnet_nid far;  /* 10.1.0.8@tcp1 */
	unsigned long sent;
};

static struct fwd_bench g_b;

static int
fwd_startup(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

static void
fwd_shutdown(struct lnet_ni *ni)
{
	(void)ni;
}

static int
fwd_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	(void)ni;
	g_b.sent++;
	lnet_finalize(msg, 0);
	return 0;
}

/*
 * What a real LND's receive would cost the CPU, not LNet: out of line so
 * that callgrind shows it as one function whose inclusive cost lnet-bench
 * subtracts from the forwarded figure.
 */
static __attribute__((noinline)) void
fwd_payload_copy(const struct iovec *iov, unsigned int niov, unsigned int offset, unsigned int mlen,
		 unsigned int rlen)
{
	struct iovec src = { g_b.wire, rlen };

	lnet_iov_copy(iov, niov, offset, &src, 1, 0, mlen);
}

/* The payload comes in: copied from "the socket" into where LNet wants it. */
static int
fwd_recv(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
	 const struct iovec *iov, unsigned int offset, unsigned int mlen, unsigned int rlen)
{
	(void)ni;
	(void)private;
	if (msg == NULL) {
		return 0;
	}
	if (mlen != 0) {
		fwd_payload_copy(iov, niov, offset, mlen, rlen);
	}
	lnet_finalize(msg, 0);
	return 0;
}

static const struct lnet_lnd_ops fwd_ops = {
	.name = "benchfwd",
	.type = 0xfb,
	.startup = fwd_startup,
	.shutdown = fwd_shutdown,
	.send = fwd_send,
	.recv = fwd_recv,
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct lnet_nid
nid_on(uint32_t net, uint32_t addr)
{
	struct lnet_nid n;

	lnet_nid4_to_nid(LNET_MKNID(net, addr), &n);
	return n;
}

/* tcp1's NIs on the last CPT (CPT 1 with --cpts 2), tcp's on CPT 0. */
static struct lnet_ni *
ni_add(struct lnet_nid nid)
{
	struct lnet_ni_req req = {
		.add = true,
		.lnd = &fwd_ops,
		.nid = &nid,
		.cpt = lnet_nid_net(&nid) == TCP1 ? (int)g_b.ncpts - 1 : 0,
		.tun = { .peer_tx_credits = 64, .max_tx_credits = 256, .peer_rtr_credits = 64 },
	};

	return lnet_ni_config(lnet_instance(), &req) == 0 ?
		       lnet_ni_find_by_nid(lnet_instance(), &nid) :
		       NULL;
}

/* --mr-udsp: each net's second NI, beside 10.0.0.1@tcp and 10.1.0.1@tcp1. */
static const uint32_t mr_second_nis[][2] = { { TCP, 0x0a000002U }, { TCP1, 0x0a010002U } };

/*
 * --mr-udsp: 20 UDSP rules of every kind (bench_udsp.h). Both rails of each
 * net get the same priority and straight pairs (.1/.8, .2/.9), so the next
 * hop to 10.1.0.8@tcp1 is chosen by the rules, not by default.
 */
static const struct bench_udsp_rule mr_rules[] = {
	{ "tcp1", NULL, NULL, 0, -1 },              /* local net priority */
	{ NULL, "tcp1", NULL, 0, -1 },              /* peer net priority */
	{ "10.1.0.[1-2]@tcp1", NULL, NULL, 1, -1 }, /* local NID priorities, equal */
	{ "10.0.0.[1-2]@tcp", NULL, NULL, 1, -1 },
	{ NULL, "10.1.0.[8-9]@tcp1", NULL, 1, -1 }, /* peer NID priorities, equal */
	{ NULL, "10.0.0.[7-8]@tcp", NULL, 1, -1 },
	{ "10.1.0.1@tcp1", "10.1.0.8@tcp1", NULL, -1, -1 }, /* src/dst pairs, straight */
	{ "10.1.0.2@tcp1", "10.1.0.9@tcp1", NULL, -1, -1 },
	{ "10.0.0.1@tcp", "10.0.0.7@tcp", NULL, -1, -1 },
	{ "10.0.0.2@tcp", "10.0.0.8@tcp", NULL, -1, -1 },
	{ NULL, "10.2.[0-127].*@tcp", NULL, 2, -1 }, /* other ranges */
	{ NULL, "12.0.*.*@tcp", NULL, 3, -1 },
	{ NULL, "13.[0-1].*.*@tcp", NULL, 4, -1 },
	{ "10.0.0.1@tcp", "12.*.*.*@tcp", NULL, -1, -1 },
	{ NULL, "tcp2", NULL, 5, -1 },
	{ "tcp", NULL, NULL, 2, -1 },
	{ NULL, "12.0.[0-31].[0-255/2]@tcp", NULL, 7, 0 },  /* inserted first */
	{ NULL, "13.1.[100-134].*@tcp", NULL, 8, 3 },       /* inserted at 3 */
	{ NULL, "10.5.*.*@tcp2", "10.1.0.9@tcp1", -1, -1 }, /* a preferred router */
	{ NULL, "10.1.0.*@tcp1", NULL, 1, -1 },             /* every far peer alike */
};

#define MR_NRULES (sizeof(mr_rules) / sizeof(mr_rules[0]))

/* After the first NIs: the second ones, then the rules. */
static int
mr_setup(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(mr_second_nis) / sizeof(mr_second_nis[0]); i++) {
		if (ni_add(nid_on(mr_second_nis[i][0], mr_second_nis[i][1])) == NULL) {
			fprintf(stderr, "bench_fwd: the second NI on net %u was not added\n", i);
			return -1;
		}
	}
	return bench_udsp_add_all(mr_rules, MR_NRULES, "bench_fwd") == 0 ? 0 : -1;
}

/* What was in place while it measured. */
static void
print_in_place(void)
{
	struct lnet_ctl_ni nis[8];
	struct lnet_ctl_global g = { 0 };
	struct lnet_ctl_udsp r[1];
	unsigned int nrules = 0;
	int nnis = lnet_ctl_ni_list(nis, 8);

	lnet_ctl_global_get(&g);
	if (lnet_ctl_udsp_list(0, r, 1, &nrules) < 0) {
		nrules = 0;
	}
	printf("bench_fwd:\n    mr_udsp: %s\n    nis: %d\n    udsp_rules: %u\n"
	       "    health_sensitivity: %d\n    cpts: %u\n    batch: %u\n",
	       g_b.mr_udsp ? "true" : "false", nnis, nrules, g.health_sensitivity, g_b.ncpts,
	       g_b.batch);
}

/*
 * The LND's poll: up to a batch of headers handed to LNet, each run by LNet
 * as far as it goes on this lcore before the next (as socklnd's poll hands
 * it the messages one read found).
 */
static int
fwd_inject_poll(void *arg)
{
	unsigned int n = g_b.to_inject < g_b.batch ? g_b.to_inject : g_b.batch;
	unsigned int i;

	(void)arg;
	for (i = 0; i < n; i++) {
		int rc = lnet_parse(g_b.in, &g_b.hdr, &g_b.from, NULL);

		if (rc != 0) {
			g_b.inject_rc = rc;
			g_b.to_inject = 0;
			return RT_POLLER_BUSY;
		}
	}
	g_b.to_inject -= n;
	return n != 0 ? RT_POLLER_BUSY : RT_POLLER_IDLE;
}

/* On the NI's lcore: the injector, called only while messages are left to arrive. */
static int
fwd_inject_register(void *arg)
{
	(void)arg;
	g_b.inject = rt_poller_register(g_b.in->ln->cpts[g_b.in->cpt]->lcore, fwd_inject_poll, NULL,
					0, "bench_fwd inject");
	if (g_b.inject == NULL) {
		return -1;
	}
	rt_poller_set_pending(g_b.inject, &g_b.to_inject);
	return 0;
}

static int
fwd_inject_start(void *arg)
{
	g_b.to_inject = (unsigned int)(uintptr_t)arg;
	g_b.inject_rc = 0;
	return 0;
}

static int
fwd_inject_unregister(void *arg)
{
	(void)arg;
	rt_poller_unregister(&g_b.inject);
	return 0;
}

/* This run's PUT from 10.0.0.7@tcp for @p dst (@p ack: it asks for one). */
static void
hdr_make(const struct lnet_nid *dst, bool ack)
{
	g_b.hdr = (struct lnet_hdr){ .type = LNET_MSG_PUT,
				     .src_nid = g_b.from,
				     .dest_nid = *dst,
				     .src_pid = LNET_PID_LUSTRE,
				     .dest_pid = LNET_PID_LUSTRE,
				     .payload_length = g_b.size };
	g_b.hdr.msg.put.ptl_index = FWD_PORTAL;
	g_b.hdr.msg.put.match_bits = 1;
	if (ack) {
		g_b.hdr.msg.put.ack_wmd.wh_interface_cookie = 1;
		g_b.hdr.msg.put.ack_wmd.wh_object_cookie = 2;
	} else {
		g_b.hdr.msg.put.ack_wmd.wh_object_cookie = LNET_WIRE_HANDLE_COOKIE_NONE;
	}
}

/*
 * @p n messages arrive, a batch a poll round, and LNet runs until it is
 * done with them; nonzero when one was refused or they stopped arriving.
 */
static int
arrive(unsigned long n)
{
	struct rt_lcore *lc = g_b.in->ln->cpts[g_b.in->cpt]->lcore;
	struct rt_runtime *rt = lnet_instance()->rt;
	unsigned int max_rounds = 1024;

	if (rt_lcore_call(lc, fwd_inject_start, (void *)(uintptr_t)n) != 0) {
		return -1;
	}
	/* POLLED without EAL: every lcore is polled on this thread, so its count is read as it is. */
	while (g_b.to_inject != 0) {
		if (rt_runtime_poll_until_idle(rt, max_rounds) < max_rounds && g_b.to_inject != 0) {
			return -1; /* idle with messages left: the injector is not polled */
		}
	}
	rt_runtime_poll_until_idle(rt, max_rounds);
	return g_b.inject_rc;
}

static int
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
		if (lnet_ctl_param_set(params[i][0], atoi(params[i][1]), err, sizeof(err)) != 0) {
			return -1;
		}
	}
	if (lnet_ctl_routing_set(true, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_fwd: %s\n", err);
		return -1;
	}
	for (i = 0; i < 100; i++) {
		rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
		if (lnet_ctl_routing_get(&r) == 0 && r.enable == LNET_CTL_ROUTING_ENABLED) {
			return 0;
		}
	}
	return -1;
}

/* A posted MD on FWD_PORTAL that takes every PUT (its events are not asked for). */
static int
local_target(void)
{
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_md md = { .umd_start = g_b.sink,
			      .umd_length = g_b.size,
			      .umd_threshold = LNET_MD_THRESH_INF,
			      .umd_options = LNET_MD_OP_PUT | LNET_MD_MANAGE_REMOTE };
	struct lnet_me *me = LNetMEAttach(FWD_PORTAL, &any, 1, 0, LNET_RETAIN, LNET_INS_AFTER);
	struct lnet_handle_md h;

	return me == NULL ? -1 : LNetMDAttach(me, &md, LNET_RETAIN, &h);
}

/* Ring hops (lcore changes) of every kind, summed. */
static uint64_t
hops_now(void)
{
	struct lnet_ctl_hops h = { 0 };

	lnet_ctl_hops_get(&h);
	return h.put + h.get + h.ack + h.reply + h.forward;
}

static int
run(const char *name, const struct lnet_nid *dst, bool ack)
{
	uint64_t hops = hops_now();
	unsigned long before = g_b.sent;
	double t0 = now_s();
	double secs;

	hdr_make(dst, ack);
	if (arrive(g_b.iters) != 0) {
		fprintf(stderr, "bench_fwd: %s: a message was refused (%d)\n", name, g_b.inject_rc);
		return -1;
	}
	secs = now_s() - t0;
	if (g_b.sent - before != g_b.iters) {
		fprintf(stderr, "bench_fwd: %s: %lu of %lu sent on\n", name, g_b.sent - before,
			g_b.iters);
		return -1;
	}
	printf("%s:\n    msgs: %lu\n    size: %u\n    msgs_per_sec: %.0f\n    ns_per_msg: %.1f\n"
	       "    hops_per_msg: %.3f\n",
	       name, g_b.iters, g_b.size, (double)g_b.iters / secs, secs * 1e9 / (double)g_b.iters,
	       (double)(hops_now() - hops) / (double)g_b.iters);
	return 0;
}

static int
parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "iters", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "only", required_argument, NULL, 'o' },
		{ "mr-udsp", no_argument, NULL, 'm' },
		{ "cpts", required_argument, NULL, 'c' },
		{ "batch", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "n:s:o:mc:b:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			g_b.iters = strtoul(optarg, NULL, 10);
			break;
		case 's':
			g_b.size = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'o':
			g_b.only = optarg;
			break;
		case 'm':
			g_b.mr_udsp = true;
			break;
		case 'c':
			g_b.ncpts = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'b':
			g_b.batch = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr,
				"usage: bench_fwd [--iters N] [--size B] [--only fwd|local] "
				"[--mr-udsp] [--cpts N] [--batch N]\n");
			return -1;
		}
	}
	return g_b.iters == 0 || g_b.iters > UINT32_MAX || g_b.size > LNET_MAX_MSG_SIZE ||
			       g_b.ncpts == 0 || g_b.batch == 0 ?
		       -1 :
		       0;
}

int
main(int argc, char **argv)
{
	struct lnet_init_opts o = {
		.opts_size = sizeof(o), .mode = LNET_EXEC_POLLED, .ncpts = 1, .no_eal = true
	};
	struct lnet_nid me;
	char err[128];
	int rc = 0;

	g_b.iters = 100000;
	g_b.size = 4096;
	g_b.ncpts = 1;
	g_b.batch = 32;
	if (parse_args(argc, argv) != 0) {
		return 2;
	}
	o.ncpts = g_b.ncpts;
	g_b.wire = calloc(1, g_b.size + 1);
	g_b.sink = calloc(1, g_b.size + 1);
	g_b.from = nid_on(TCP, 0x0a000007U);
	g_b.far = nid_on(TCP1, 0x0a010008U);
	if (g_b.wire == NULL || g_b.sink == NULL || lnet_init_opts_set(&o) != 0 ||
	    LNetNIInit(LNET_PID_LUSTRE) < 0) {
		fprintf(stderr, "bench_fwd: LNet did not come up\n");
		return 1;
	}
	g_b.in = ni_add(nid_on(TCP, 0x0a000001U));
	me = g_b.in != NULL ? g_b.in->nid : LNET_ANY_NID;
	if (g_b.in == NULL || ni_add(nid_on(TCP1, 0x0a010001U)) == NULL ||
	    lnet_ctl_global_set("discovery", 0, err, sizeof(err)) != 0 ||
	    (g_b.mr_udsp && mr_setup() != 0) || routing_on() != 0 || local_target() != 0 ||
	    rt_lcore_call(g_b.in->ln->cpts[g_b.in->cpt]->lcore, fwd_inject_register, NULL) != 0) {
		fprintf(stderr, "bench_fwd: set-up failed\n");
		rc = 1;
	}
	if (rc == 0) {
		print_in_place();
	}
	if (rc == 0 && (g_b.only == NULL || strcmp(g_b.only, "fwd") == 0)) {
		rc = run("forwarded", &g_b.far, false);
	}
	if (rc == 0 && (g_b.only == NULL || strcmp(g_b.only, "local") == 0)) {
		rc = run("received_and_acked", &me, true);
	}
	if (g_b.inject != NULL) {
		rt_lcore_call(g_b.in->ln->cpts[g_b.in->cpt]->lcore, fwd_inject_unregister, NULL);
	}
	LNetNIFini();
	free(g_b.wire);
	free(g_b.sink);
	return rc == 0 ? 0 : 1;
}
