/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnet_node: an application embedding liblnet with the socklnd, for tests
 * that check data end to end (and later benchmarks).
 *
 *   lnet_node serve  --nid NID [--port P]
 *       Exposes a 64 MiB buffer on portal 40 for PUT and GET (the initiator
 *       says where, MANAGE_REMOTE) until SIGTERM.
 *   lnet_node client --nid NID --peer NID [--port P] [--sizes 0,1,4096,1048576]
 *                    [--count N] [--inflight K] [--timeout S] [--stop-on-error]
 *                    [--log FILE]
 *       Runs N operations, K at a time, each in its own 1 MiB slot of the
 *       server: PUT a pattern (with ACK), GET it back, compare every byte.
 *       Prints a YAML summary; exit 0 when every operation verified.
 *       --timeout sets transaction_timeout (--retry-count retry_count, first).
 *       With --stop-on-error it stops
 *       starting operations at the first failure and reports how long the
 *       ones in flight took to complete (each must end with an event).
 *       --put-only: each operation is a PUT with ACK and nothing more (no
 *       pattern, no GET, no compare): the message rate and bandwidth
 *       workloads of benchmarks; --inflight 1 with 8 bytes is the
 *       ping-pong (the ACK is the pong). --get-only: a GET and its REPLY.
 *       --warmup N runs N operations before the clock starts; the counts
 *       after them are printed under "warm:" (and "warm_peer_nis:"), so a
 *       test can subtract what discovery and the warm-up sent.
 *       With --paths, at exit "run_paths:" counts the run's PUTs and GETs (not the
 *       warm-up's, none of LNet's own) by the path each took, from the
 *       ACK or REPLY that answered it (it comes back the same way): our
 *       NID "from", the peer NID "to", "messages".
 *   Both: --nid may be given up to 4 times: one NI each (Multi-Rail); at
 *   exit each NI's send and receive counts are printed under "nis:", and
 *   a client's lcore loop iterations (all, busy) and ring hops under "loops:".
 *   --discovery 0|1: `set discovery` once the NIs are up.
 *   --change-after N: once N operations have started, --del-nid NID
 *   deletes that NI and --add-nid NID adds one, at runtime (client).
 *   --run-after N:CMD (up to 4): once N operations of the run (after any
 *   warm-up) have started, print the NIs' counts and health under "at_N:"
 *   (the paths so far under "at_N_paths:") and run the shell command CMD
 *   (a link going down under the traffic), then go on (client). CMD
 *   "@fault NID" adds a drop rule failing every PUT and GET of the node's
 *   portal to NID as a remote drop (lnetctl fault drop add -s '*' -d NID
 *   -p 40 -r 1 -e remote_dropped: LNet's own pings go through); "@nofault"
 *   deletes it. "@udsp SPEC [SPEC...]" adds UDSP rules (in order) as
 *   --udsp does; "@noudsp" deletes every rule (udsp del --all). With N 0
 *   they apply once the warm-up is done, before the run's first operation.
 *   "@healthy NID [NID...]" waits (60 s at most) until each NID, a local NI
 *   or a peer NI, is at full health (a local NI up, too; a peer NI LNet
 *   does not know reads as full, as LNet reports it); "@replied NID"
 *   until a REPLY comes from that peer NI (the application starting
 *   nothing meanwhile: a recovery ping's, while a rule fails its GETs).
 *   Either says on stderr when the 60 s ran out, and the run goes on.
 *   Both: --router makes the node a router (set routing 1) with small
 *   buffer pools and a forwarding delay of 4 s (alive_router_check_interval
 *   1, router_ping_timeout 3: a net with no ping for 4 s is down).
 *   Both: --route NET:GATEWAY (up to 4) adds a route to NET through the
 *   gateway NID once the NIs are up (lnetctl route add), its gateways then
 *   checked every second (alive_router_check_interval 1, as --router
 *   expects); a client waits (60 s at most) for its routes to come up.
 *   Both: --udsp SPEC (up to 32) adds a UDSP rule once the NIs are up,
 *   before any traffic (lnetctl udsp add): SPEC is a comma-separated
 *   subset of src=DESCR,dst=DESCR,rte=DESCR,priority=P,idx=I (a comma
 *   inside [...] belongs to the descriptor); without priority the rule is
 *   a preferred-list one. A rule refused ends the program with LNet's words.
 *   At exit the client prints each NI's health and LNet's health counters.
 *   Each "..._peer_nis:" list gives each peer NI's health, drops, recovery
 *   pings and the messages sent to it and received from it (send_count,
 *   recv_count).
 *   --recovery-load N (client): before the run, N peer NIs on the client's
 *   net (127.1.x.y, where nobody listens) heard from and at health 0, so
 *   recovery pings them all (each refused) while the run goes: the cost of
 *   recovery to the data path, for lnet-bench.
 *   Both: --conns-per-peer N sets the socklnd's conns_per_peer (module
 *   parameter, 0-127; default 1): N bulk connections each way per peer, as
 *   the kernel's ksocklnd opens several on fast links (lnet-bench's bw1m).
 *   Both: --exec threads (default: LNet's lcores on EAL worker threads,
 *   --lcores LIST for EAL's -l, default every CPU) or --exec polled (no
 *   thread but the application's: it runs LNet inside LNetEQPoll).
 *   Both: --cpts N runs N CPTs (data lcores), the i-th --nid's NI on CPT
 *   i % N (lnet-bench's 2-CPT figures); the default is LNet's.
 *       --log writes the LNet header fields of every PUT and GET it sends,
 *       one line each, for comparison with a packet capture:
 *       type|payload_length|portal|match_bits|offset|sink_length (- for a PUT)
 */
#include <errno.h>
#include <sched.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "cfs.h"
#include "lnet_ctl.h"
#include "lnet_fault.h"
#include "lnet_fault_ctl.h"
#include "lnet_mgmt.h"
#include "lnet_lnd.h"

#define NODE_PORTAL 40
#define NODE_SLOT (1u << 20)
#define NODE_SLOTS 64
#define NODE_MAX_SIZES 8
#define NODE_MAX_NIDS 4
#define NODE_MAX_RUNS 4
#define NODE_MAX_UDSP 32
#define NODE_MAX_PATHS 16
#define NODE_WAIT_LIMIT_TRIES 600 /* waits for a condition: 100 ms each, 60 s */

enum node_phase { SLOT_IDLE = 0, SLOT_PUT, SLOT_GET };

struct node_slot {
	unsigned int index;
	enum node_phase phase;
	uint64_t op; /* which operation runs in it */
	unsigned int size;
	unsigned int events; /* SEND + ACK, or SEND + REPLY */
	bool failed;
	bool on_idle; /* on the node's idle stack */
	uint8_t *tx;
	uint8_t *rx;
};

struct node {
	struct lnet_nid nid; /* nids[0] */
	struct lnet_nid nids[NODE_MAX_NIDS];
	unsigned int nnids;
	unsigned int ncpts;         /* --cpts: CPTs (0: LNet's default); NI i on CPT i % ncpts */
	uint64_t change_after;      /* 0: no runtime change */
	unsigned int recovery_load; /* peer NIs put in recovery before the run */
	struct lnet_nid add_nid;    /* ANY: none */
	struct lnet_nid del_nid;
	bool changed;
	struct {
		uint64_t after;
		const char *cmd;
		bool done;
	} runs[NODE_MAX_RUNS];
	unsigned int nruns;
	bool warming;                    /* in the warm-up: --run-after waits for the run */
	const char *udsp[NODE_MAX_UDSP]; /* --udsp, applied once the NIs are up */
	unsigned int nudsp;
	const char *routes[4]; /* --route NET:GATEWAY */
	unsigned int nroutes;
	bool router;   /* --router */
	int discovery; /* `set discovery`; -1: the default (on) */
	struct lnet_processid peer;
	uint16_t port;
	int conns_per_peer; /* --conns-per-peer; -1: the socklnd's default */
	unsigned int sizes[NODE_MAX_SIZES];
	unsigned int nsizes;
	uint64_t count;
	uint64_t warmup;
	unsigned int inflight;
	int timeout;
	int retry_count; /* --retry-count: set before --timeout; -1 the default */
	bool stop_on_error;
	bool put_only;
	bool get_only;
	enum lnet_exec_mode exec;
	const char *lcores;
	FILE *log;
	struct lnet_eq *eq;
	struct node_slot slots[NODE_SLOTS];
	unsigned int idle[NODE_SLOTS]; /* indexes of the idle slots: a stack */
	unsigned int nidle;
	struct {
		struct lnet_nid from; /* our NI */
		struct lnet_nid to;   /* the peer's */
		uint64_t messages;
	} paths[NODE_MAX_PATHS]; /* the run's PUTs and GETs by the path they took */
	unsigned int npaths;
	bool count_paths; /* --paths: count them (off for benchmarks: no work per answer) */
	uint64_t started, verified, failed, mismatched;
	uint64_t bytes;
	double first_error_at;
	unsigned int pending_at_error;
};

static volatile sig_atomic_t g_stop;

static void
node_on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

static double
node_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * EAL lcores on the CPUs of our affinity: one each, or with one CPU the main
 * lcore and a worker sharing it (threads mode needs a worker).
 */
static void
node_lcores_of_affinity(char *out, size_t len)
{
	cpu_set_t set;
	int first = -1;
	int count = 0;
	size_t used;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		snprintf(out, len, "-l 0-1");
		return;
	}
	used = (size_t)snprintf(out, len, "--lcores ");
	for (cpu = 0; cpu < CPU_SETSIZE && used < len; cpu++) {
		if (CPU_ISSET(cpu, &set)) {
			used += (size_t)snprintf(out + used, len - used, "%s%d@%d",
						 count > 0 ? "," : "", count, cpu);
			first = first < 0 ? cpu : first;
			count++;
		}
	}
	if (count == 1) {
		snprintf(out, len, "--lcores 0@%d,1@%d", first, first);
	}
}

/* --router: routing on, small pools, forwarding within 4 s. */
static int
node_router(char *err, size_t errlen)
{
	static const struct {
		const char *name;
		int value;
	} params[] = {
		{ "alive_router_check_interval", 1 }, { "router_ping_timeout", 3 },
		{ "tiny_router_buffers", 256 },       { "small_router_buffers", 256 },
		{ "large_router_buffers", 32 },
	};
	int rc = 0;

	for (unsigned int i = 0; rc == 0 && i < sizeof(params) / sizeof(params[0]); i++) {
		rc = lnet_ctl_param_set(params[i].name, params[i].value, err, errlen);
	}
	return rc != 0 ? rc : lnet_ctl_routing_set(true, err, errlen);
}

/*
 * Until @p cond holds, 60 s at most. Polled, LNet runs only in LNetEQPoll:
 * the wait is there; with threads, a sleep. @return whether it held.
 */
static bool
node_wait_until(const struct node *n, bool (*cond)(void *arg), void *arg)
{
	struct lnet_eq *eq = n->exec == LNET_EXEC_POLLED ? LNetEQAlloc(1) : NULL;
	bool held = cond(arg);

	for (int tries = 1; !held && tries < NODE_WAIT_LIMIT_TRIES; tries++) {
		struct lnet_event ev;

		if (eq != NULL) {
			LNetEQPoll(&eq, 1, 100, &ev, NULL);
		} else {
			usleep(100000);
		}
		held = cond(arg);
	}
	if (eq != NULL) {
		LNetEQFree(eq);
	}
	return held;
}

static bool
node_routes_up(void *arg)
{
	struct lnet_ctl_route r[4];
	int nr = lnet_ctl_route_list(r, 4);
	int up = 0;

	(void)arg;
	for (int i = 0; i < nr && i < 4; i++) {
		up += r[i].alive;
	}
	return nr > 0 && up == nr;
}

/* A route is down until its gateway answered a ping saying it routes: wait for that. */
static void
node_routes_wait_up(const struct node *n)
{
	if (!node_wait_until(n, node_routes_up, NULL)) {
		fprintf(stderr, "lnet_node: routes still down after 60 s\n");
	}
}

/* --route NET:GATEWAY, as lnetctl route add --net NET --gateway GATEWAY. */
static int
node_route_add(const char *spec, char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	struct lnet_nid gw;
	char net[32];
	uint32_t netid;

	if (colon == NULL || (size_t)(colon - spec) >= sizeof(net)) {
		snprintf(err, errlen, "NET:GATEWAY expected");
		return -EINVAL;
	}
	snprintf(net, sizeof(net), "%.*s", (int)(colon - spec), spec);
	netid = libcfs_str2net(net);
	if (netid == LNET_NET_ANY || libcfs_strnid(&gw, colon + 1) != 0) {
		snprintf(err, errlen, "bad net or gateway NID");
		return -EINVAL;
	}
	return lnet_ctl_route_add(netid, &gw, LNET_CTL_UNDEFINED_HOPS, 0, 0, err, errlen);
}

/*
 * A UDSP rule from "src=X,dst=Y,rte=Z,priority=P,idx=I" (any subset; no
 * priority: the preferred-list action) added as lnetctl udsp add does.
 * 0, or -errno with the reason in @p err.
 */
static int
node_udsp_add(const char *spec, char *err, size_t errlen)
{
	char buf[512];
	char *descr[3] = { NULL, NULL, NULL }; /* src, dst, rte */
	static const char *const names[3] = { "src", "dst", "rte" };
	long priority = -1;
	long idx = -1;
	char *p = buf;

	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf)) {
		snprintf(err, errlen, "too long");
		return -EINVAL;
	}
	while (*p != '\0') {
		char *item = p;
		char *eq;
		char *end;
		int depth = 0;
		int k;

		/* The item ends at a comma outside brackets: 10.0.0.[1,2]@tcp is one descriptor. */
		for (; *p != '\0' && (*p != ',' || depth > 0); p++) {
			depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
		}
		if (*p == ',') {
			*p++ = '\0';
		}
		eq = strchr(item, '=');
		if (eq == NULL || eq[1] == '\0') {
			snprintf(err, errlen, "'%.64s' is not KEY=VALUE", item);
			return -EINVAL;
		}
		*eq++ = '\0';
		k = 0;
		while (k < 3 && strcmp(item, names[k]) != 0) {
			k++;
		}
		if (k < 3) {
			descr[k] = eq;
		} else if (strcmp(item, "priority") == 0 || strcmp(item, "idx") == 0) {
			long v = strtol(eq, &end, 10);

			if (*end != '\0' || v < 0) {
				snprintf(err, errlen, "bad %.16s '%.64s'", item, eq);
				return -EINVAL;
			}
			*(item[0] == 'p' ? &priority : &idx) = v;
		} else {
			snprintf(err, errlen, "unknown key '%.64s' (src, dst, rte, priority, idx)",
				 item);
			return -EINVAL;
		}
	}
	return lnet_ctl_udsp_add(descr[0], descr[1], descr[2], priority, (int)idx, err, errlen);
}

static int
node_up(struct node *n)
{
	const struct lnet_lnd_ops *sock = lnet_lnd_find(LNET_LND_SOCK);
	struct lnet_ctl_ni_tunables tun = { 180, 8, 0, 256 };
	char params[96];
	struct lnet_init_opts lo = { .opts_size = sizeof(lo), .mode = n->exec };
	char mine[64];
	char eal[384];
	const char *extra = getenv("LNP_NODE_EAL_EXTRA"); /* e.g. --log-level=lnet*:debug */
	char err[256] = "";
	struct lnet_ctl_global g;
	int rc;

	/* Our own EAL, no shared files; its lcores on the CPUs we may run on (taskset holds). */
	node_lcores_of_affinity(mine, sizeof(mine));
	snprintf(eal, sizeof(eal), "--no-huge -m 256 --no-pci --no-shconf --no-telemetry %s%s %s",
		 n->lcores != NULL ? "-l " : "", n->lcores != NULL ? n->lcores : mine,
		 extra != NULL ? extra : "");
	lo.ncpts = n->ncpts;
	lo.no_eal = n->exec == LNET_EXEC_POLLED; /* one thread: nothing of EAL's is needed */
	lo.eal_args = lo.no_eal ? NULL : eal;    /* lnet_init refuses both */
	/* The socklnd's module parameters, which its NIs start from. */
	snprintf(params, sizeof(params), "accept_port=%u,accept=all", n->port);
	if (n->conns_per_peer >= 0) {
		size_t used = strlen(params);

		snprintf(params + used, sizeof(params) - used, ",conns_per_peer=%d",
			 n->conns_per_peer);
	}
	rc = sock == NULL || sock->params_set == NULL ? -EOPNOTSUPP :
							sock->params_set(params, err, sizeof(err));
	if (rc == 0) {
		rc = lnet_init_opts_set(&lo);
	}
	if (rc == 0) {
		rc = LNetNIInit(LNET_PID_LUSTRE);
	}
	for (unsigned int i = 0; rc == 0 && i < n->nnids; i++) {
		rc = lnet_ctl_ni_add(&n->nids[i], NULL, &tun, NULL, n->ncpts > 1 ? i % n->ncpts : 0,
				     err, sizeof(err));
	}
	if (rc == 0 && n->retry_count >= 0) {
		rc = lnet_ctl_global_set("retry_count", n->retry_count, err, sizeof(err));
	}
	/* As the kernel, LNet refuses a timeout not above retry_count: fewer retries then. */
	if (rc == 0 && n->timeout > 0 && lnet_ctl_global_get(&g) == 0 &&
	    n->timeout <= g.retry_count) {
		rc = lnet_ctl_global_set("retry_count", n->timeout - 1, err, sizeof(err));
	}
	if (rc == 0 && n->timeout > 0) {
		rc = lnet_ctl_global_set("transaction_timeout", n->timeout, err, sizeof(err));
	}
	if (rc == 0 && n->discovery >= 0) {
		rc = lnet_ctl_global_set("discovery", n->discovery, err, sizeof(err));
	}
	if (rc != 0) {
		fprintf(stderr, "lnet_node: %s\n", err[0] != '\0' ? err : strerror(-rc));
	}
	if (rc == 0 && n->router) {
		rc = node_router(err, sizeof(err));
	}
	if (rc == 0 && n->nroutes > 0) {
		/* Its gateways checked each second: a router built as --router counts a net
		 * with no ping for 4 s as down (the kernel's, with those settings). */
		rc = lnet_ctl_param_set("alive_router_check_interval", 1, err, sizeof(err));
	}
	for (unsigned int i = 0; rc == 0 && i < n->nroutes; i++) {
		rc = node_route_add(n->routes[i], err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "lnet_node: --route '%s': %s\n", n->routes[i],
				err[0] != '\0' ? err : strerror(-rc));
		}
	}
	for (unsigned int i = 0; rc == 0 && i < n->nudsp; i++) {
		rc = node_udsp_add(n->udsp[i], err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "lnet_node: --udsp '%s': %s\n", n->udsp[i],
				err[0] != '\0' ? err : strerror(-rc));
		}
	}
	return rc;
}

/* Polled mode: this thread is LNet's, so it waits inside LNetEQPoll (which runs LNet). */
static void
node_idle_until_stopped(struct node *n)
{
	struct lnet_eq *eq = n->exec == LNET_EXEC_POLLED ? LNetEQAlloc(1) : NULL;

	while (!g_stop) {
		struct timespec t = { 0, 100000000 };
		struct lnet_event ev;

		if (eq != NULL) {
			LNetEQPoll(&eq, 1, 100, &ev, NULL);
		} else {
			nanosleep(&t, NULL);
		}
	}
	if (eq != NULL) {
		LNetEQFree(eq);
	}
}

static void node_print_nis(void);

static int
node_serve(struct node *n)
{
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_md md = { 0 };
	struct lnet_handle_md mdh;
	struct lnet_me *me;
	void *buf = calloc(NODE_SLOTS, NODE_SLOT);

	if (buf == NULL) {
		return 1;
	}
	md.umd_start = buf;
	md.umd_length = NODE_SLOTS * NODE_SLOT;
	md.umd_threshold = LNET_MD_THRESH_INF;
	md.umd_options = LNET_MD_OP_PUT | LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE;
	me = LNetMEAttach(NODE_PORTAL, &any, 0, ~0ULL, LNET_UNLINK, LNET_INS_AFTER);
	if (me == NULL || LNetMDAttach(me, &md, LNET_RETAIN, &mdh) != 0) {
		fprintf(stderr, "lnet_node: cannot expose the buffer\n");
		free(buf);
		return 1;
	}
	printf("serving: %s\n", libcfs_nidstr(&n->nid));
	fflush(stdout);
	node_idle_until_stopped(n);
	node_print_nis();
	LNetMDUnlink(mdh);
	free(buf);
	return 0;
}

static void
node_slot_idle(struct node *n, struct node_slot *s)
{
	s->phase = SLOT_IDLE;
	if (!s->on_idle) { /* a failed start, then its MD's last event: once only */
		s->on_idle = true;
		n->idle[n->nidle++] = s->index;
	}
}

/* The pattern of operation @p op: no two operations look alike. */
static void
node_fill(uint8_t *p, unsigned int len, uint64_t op)
{
	uint64_t x = op * 0x9e3779b97f4a7c15ULL + 1;
	unsigned int i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)x;
	}
}

/*
 * Verified operations each use their own slot. The benchmark workloads
 * (--put-only, --get-only) check no data, so every operation moves the same
 * 1 MiB on each side, as iperf3 and ucx_perftest do: cache-warm, not 64 MiB.
 */
static bool
node_one_buffer(const struct node *n)
{
	return n->put_only || n->get_only;
}

static unsigned int
node_remote_offset(const struct node *n, const struct node_slot *s)
{
	return node_one_buffer(n) ? 0 : s->index * NODE_SLOT;
}

static void *
node_local_buf(const struct node *n, const struct node_slot *s, void *own)
{
	(void)s;
	return node_one_buffer(n) ? n->slots[0].tx : own;
}

/* As tshark prints lnet.msg_type, payload_length, ptl_index, match_bits, offset, sink_length. */
static void
node_log(const struct node *n, bool put, const struct node_slot *s)
{
	if (n->log != NULL) {
		fprintf(n->log, "%d|%u|%d|0x%016llx|%u|", put ? 1 : 2, put ? s->size : 0,
			NODE_PORTAL, 0ULL, node_remote_offset(n, s));
		fprintf(n->log, put ? "-\n" : "%u\n", s->size); /* a PUT has no sink_length */
	}
}

static int
node_bind(struct node *n, struct node_slot *s, void *buf, struct lnet_handle_md *h)
{
	struct lnet_md md = { 0 };

	md.umd_start = buf;
	md.umd_length = s->size;
	md.umd_threshold = 2; /* the send, then its ACK or REPLY */
	md.umd_user_ptr = s;
	md.umd_eq_handle = n->eq;
	return LNetMDBind(&md, LNET_UNLINK, h);
}

static void
node_fail(struct node *n, struct node_slot *s)
{
	if (!s->failed) {
		s->failed = true;
		n->failed++;
		if (n->failed == 1) {
			unsigned int i;

			n->first_error_at = node_now();
			for (i = 0; i < n->inflight; i++) {
				n->pending_at_error += n->slots[i].phase != SLOT_IDLE;
			}
		}
	}
}

/* After binding and LNetPut/LNetGet (@p rc): log what went out, or the slot failed. */
static void
node_posted(struct node *n, struct node_slot *s, bool put, int rc)
{
	if (rc == 0) {
		node_log(n, put, s);
		return;
	}
	node_fail(n, s);
	node_slot_idle(n, s);
}

static void
node_get(struct node *n, struct node_slot *s)
{
	struct lnet_handle_md h;
	int rc;

	s->phase = SLOT_GET;
	s->events = 0;
	rc = node_bind(n, s, node_local_buf(n, s, s->rx), &h);
	if (rc == 0) {
		rc = LNetGet(NULL, h, &n->peer, NODE_PORTAL, 0, node_remote_offset(n, s), false);
	}
	node_posted(n, s, false, rc);
}

static void
node_start(struct node *n, struct node_slot *s)
{
	struct lnet_handle_md h;
	int rc;

	s->op = n->started++;
	s->size = n->sizes[s->op % n->nsizes];
	s->events = 0;
	s->failed = false;
	if (n->get_only) {
		node_get(n, s);
		return;
	}
	s->phase = SLOT_PUT;
	if (!n->put_only) {
		node_fill(s->tx, s->size, s->op);
		memset(s->rx, 0, s->size);
	}
	rc = node_bind(n, s, node_local_buf(n, s, s->tx), &h);
	if (rc == 0) {
		rc = LNetPut(NULL, h, LNET_ACK_REQ, &n->peer, NODE_PORTAL, 0,
			     node_remote_offset(n, s), 0);
	}
	node_posted(n, s, true, rc);
}

/*
 * A PUT or GET answered (its ACK or REPLY): the answer came back over the
 * path the request took, from the peer NI it reached (sender) to our NI
 * that sent it (target), so this counts the request on its path.
 */
static void
node_count_path(struct node *n, const struct lnet_event *ev)
{
	unsigned int i;

	for (i = 0; i < n->npaths; i++) {
		if (lnet_nid_same(&n->paths[i].from, &ev->target.nid) &&
		    lnet_nid_same(&n->paths[i].to, &ev->sender)) {
			break;
		}
	}
	if (i == n->npaths) {
		if (n->npaths == NODE_MAX_PATHS) {
			return;
		}
		n->paths[i].from = ev->target.nid;
		n->paths[i].to = ev->sender;
		n->paths[i].messages = 0;
		n->npaths++;
	}
	n->paths[i].messages++;
}

/* One event of a slot's MD; the MD is done after its "unlinked" event. */
static void
node_event(struct node *n, const struct lnet_event *ev)
{
	struct node_slot *s = ev->md_user_ptr;

	if (n->count_paths && ev->status == 0 &&
	    (ev->type == LNET_EVENT_ACK || ev->type == LNET_EVENT_REPLY)) {
		node_count_path(n, ev);
	}
	if (ev->status != 0 || ev->type == LNET_EVENT_UNLINK ||
	    ((ev->type == LNET_EVENT_ACK || ev->type == LNET_EVENT_REPLY) &&
	     ev->mlength != s->size)) {
		if (n->failed < 4) { /* the first few, for whoever reads the log */
			fprintf(stderr,
				"lnet_node: op %llu (%s): event %d status %d health %d mlength "
				"%u\n",
				(unsigned long long)s->op, s->phase == SLOT_PUT ? "PUT" : "GET",
				ev->type, ev->status, ev->mhealth, ev->mlength);
		}
		node_fail(n, s);
	}
	s->events++;
	if (!ev->unlinked) {
		return;
	}
	if (s->failed) {
		node_slot_idle(n, s);
		return;
	}
	if (s->phase == SLOT_PUT && n->put_only) {
		n->verified++; /* ACKed with the length sent: all a PUT-only run checks */
		n->bytes += s->size;
		node_slot_idle(n, s);
		return;
	}
	if (s->phase == SLOT_PUT) {
		node_get(n, s);
		return;
	}
	if (n->get_only) {
		n->verified++; /* REPLYed with the length asked for */
		n->bytes += s->size;
		node_slot_idle(n, s);
		return;
	}
	if (memcmp(s->tx, s->rx, s->size) != 0) {
		n->mismatched++;
		node_fail(n, s);
	} else {
		n->verified++;
		n->bytes += 2ULL * s->size;
	}
	node_slot_idle(n, s);
}

/* --change-after: the NIs added and deleted while operations are in flight. */
static void
node_change_nis(struct node *n)
{
	struct lnet_ctl_ni_tunables tun = { 180, 8, 0, 256 };
	char err[256] = "";

	n->changed = true;
	if (!lnet_nid_is_any(&n->add_nid) &&
	    lnet_ctl_ni_add(&n->add_nid, NULL, &tun, NULL, 0, err, sizeof(err)) != 0) {
		fprintf(stderr, "lnet_node: add %s: %s\n", libcfs_nidstr(&n->add_nid), err);
	}
	if (!lnet_nid_is_any(&n->del_nid) && lnet_ctl_ni_del(&n->del_nid, err, sizeof(err)) != 0) {
		fprintf(stderr, "lnet_node: del %s: %s\n", libcfs_nidstr(&n->del_nid), err);
	}
}

/* The peers' NIs and their health, under "<title>_peer_nis:". */
static void
node_print_peer_nis(const char *title)
{
	static struct lnet_ctl_peer peers[2];
	uint64_t next = 0;
	int n = lnet_ctl_peer_list(0, NULL, peers, 2, &next);

	struct lnet_nid q[4];
	unsigned int nq = 0;

	lnet_ctl_recovery_list(false, q, 4, &nq);
	printf("%s_peer_nis:\n    in_recovery: %u\n", title, nq);
	for (int p = 0; p < n; p++) {
		for (unsigned int i = 0; i < peers[p].nnis; i++) {
			struct lnet_ctl_peer_ni st;

			if (lnet_ctl_peer_ni_state(&peers[p].nis[i], &st) == 0) {
				printf("    - nid: %s\n      health: %d\n      dropped: %u\n"
				       "      ping_count: %u\n      send_count: %llu\n"
				       "      recv_count: %llu\n",
				       libcfs_nidstr(&peers[p].nis[i]), st.health_value,
				       st.hs_dropped, st.ping_count,
				       (unsigned long long)st.send_count,
				       (unsigned long long)st.recv_count);
			}
		}
	}
}

/* Each NI's counts and health, under @p title, for tests of how traffic spreads over them. */
static void
node_print_nis_as(const char *title)
{
	struct lnet_ctl_ni nis[8];
	int n = lnet_ctl_ni_list(nis, 8);

	printf("%s:\n", title);
	for (int i = 0; i < n; i++) {
		if (lnet_nid_is_lo0(&nis[i].nid)) {
			continue;
		}
		printf("    - nid: %s\n      send_count: %llu\n      recv_count: %llu\n"
		       "      health: %d\n",
		       libcfs_nidstr(&nis[i].nid), (unsigned long long)nis[i].send_count,
		       (unsigned long long)nis[i].recv_count, nis[i].health_value);
	}
	node_print_peer_nis(title);
	fflush(stdout);
}

/* --run-after's in-process UDSP commands: "@udsp SPEC..." adds rules, "@noudsp" deletes all. */
static void
node_udsp_cmd(const char *cmd)
{
	char err[256] = "";
	int rc;

	if (strcmp(cmd, "@noudsp") == 0) {
		rc = lnet_ctl_udsp_del(-1);
		if (rc != 0 && rc != -ENOENT) {
			fprintf(stderr, "lnet_node: '%s' failed: %s\n", cmd, strerror(-rc));
		}
		return;
	}
	for (const char *p = cmd + 6; *p != '\0';) { /* SPEC SPEC...: one rule each, in order */
		size_t len = strcspn(p, " ");
		char spec[512];

		if (len >= sizeof(spec)) {
			fprintf(stderr, "lnet_node: '%s': a rule too long\n", cmd);
		} else if (len > 0) {
			memcpy(spec, p, len);
			spec[len] = '\0';
			rc = node_udsp_add(spec, err, sizeof(err));
			if (rc != 0) {
				fprintf(stderr, "lnet_node: '%s' failed: %s\n", spec,
					err[0] != '\0' ? err : strerror(-rc));
			}
		}
		p += len + (p[len] == ' ');
	}
}

/* --run-after's in-process commands: a fault rule on one peer NID's PUTs, or none. */
static void
node_fault(const char *cmd)
{
	struct lnet_fault_attr a = {
		.src = LNET_ANY_NID,
		.local_nid = LNET_ANY_NID,
		.ptl_mask = 1ULL << NODE_PORTAL,
		.rate = 1,
		.health_mask = 1U << LNET_MSG_STATUS_REMOTE_DROPPED,
	};
	char err[160] = "";

	if (strcmp(cmd, "@nofault") == 0) {
		lnet_fault_ctl_del(LNET_FAULT_DROP, NULL, NULL);
		return;
	}
	if (strncmp(cmd, "@fault ", 7) != 0 || libcfs_strnid(&a.dst, cmd + 7) != 0 ||
	    lnet_fault_ctl_add(LNET_FAULT_DROP, &a, err, sizeof(err)) != 0) {
		fprintf(stderr, "lnet_node: '%s' failed: %s\n", cmd, err);
	}
}

/* The drop rules' firings at exit. */
static void
node_print_faults(void)
{
	struct lnet_fault_info info[4];
	unsigned int total = 0;
	int n = lnet_fault_ctl_list(LNET_FAULT_DROP, 0, info, 4, &total);
	uint64_t fired = 0;

	for (int i = 0; i < n; i++) {
		fired += info[i].stat.fired;
	}
	printf("faults:\n    drop_rules: %u\n    dropped: %llu\n", total,
	       (unsigned long long)fired);
}

/*
 * Every lcore's loop iterations and the busy ones among them, summed:
 * lnet-bench fits its instruction counts against the messages and the idle
 * iterations (loops - busy_loops), so polling an empty socket is not
 * counted as the messages' cost.
 */
static void
node_print_loops(void)
{
	struct lnet_ctl_lcore lc[LNP_MAX_CPTS + 1]; /* the management lcore, then each CPT's */
	unsigned long long loops = 0;
	unsigned long long busy = 0;
	int n = lnet_ctl_lcore_stats(lc, LNP_MAX_CPTS + 1, false);
	struct lnet_ctl_hops h = { 0 };
	int i;

	for (i = 0; i < n; i++) {
		loops += lc[i].loops;
		busy += lc[i].busy_loops;
	}
	lnet_ctl_hops_get(&h); /* ring hops (lcore changes) of every kind, summed */
	printf("loops:\n    loops: %llu\n    busy_loops: %llu\n    hops: %llu\n", loops, busy,
	       (unsigned long long)(h.put + h.get + h.ack + h.reply + h.forward));
}

static void
node_print_nis(void)
{
	struct lnet_counters c;

	node_print_nis_as("nis");
	if (lnet_counters_get(&c) != 0) {
		return;
	}
	printf("health:\n    resend_count: %u\n    successful_resends: %u\n"
	       "    failed_resends: %u\n    local_dropped_count: %u\n"
	       "    remote_dropped_count: %u\n    network_timeout_count: %u\n"
	       "    response_timeout_count: %u\n",
	       c.resend_count, c.successful_resends, c.failed_resends, c.local_dropped_count,
	       c.remote_dropped_count, c.network_timeout_count, c.response_timeout_count);
	printf("counts:\n    send_count: %u\n    recv_count: %u\n    route_count: %u\n"
	       "    route_length: %llu\n    drop_count: %u\n    local_no_route_count: %u\n"
	       "    errors: %u\n",
	       c.send_count, c.recv_count, c.route_count, (unsigned long long)c.route_length,
	       c.drop_count, c.local_no_route_count, c.errors);
	node_print_faults();
	fflush(stdout);
}

/* The run's PUTs and GETs so far by path (our NI, the peer NI), under "<title>_paths:". */
static void
node_print_paths(const struct node *n, const char *title)
{
	if (!n->count_paths) {
		return;
	}
	printf("%s_paths:\n", title);
	for (unsigned int i = 0; i < n->npaths; i++) {
		printf("    - from: %s\n", libcfs_nidstr(&n->paths[i].from));
		printf("      to: %s\n      messages: %llu\n", libcfs_nidstr(&n->paths[i].to),
		       (unsigned long long)n->paths[i].messages);
	}
	fflush(stdout);
}

/* --run-after's waits: polled, LNet runs only in LNetEQPoll, so the wait is there. */
static bool
node_nid_healthy(const struct lnet_nid *nid)
{
	struct lnet_ctl_ni nis[8];
	struct lnet_ctl_peer_ni st;
	int n = lnet_ctl_ni_list(nis, 8);

	for (int i = 0; i < n; i++) {
		if (lnet_nid_same(&nis[i].nid, nid)) {
			return nis[i].up && nis[i].health_value == LNET_CTL_MAX_HEALTH;
		}
	}
	return lnet_ctl_peer_ni_state(nid, &st) == 0 && st.health_value == LNET_CTL_MAX_HEALTH;
}

static uint64_t
node_replies_from(const struct lnet_nid *nid)
{
	struct lnet_ctl_peer_ni st;

	return lnet_ctl_peer_ni_state(nid, &st) == 0 ? st.received[2] : 0; /* REPLYs */
}

/* What "@healthy NID..." or "@replied NID" waits for. */
struct node_wait_nids {
	struct lnet_nid nids[NODE_MAX_NIDS * 2];
	unsigned int nn;
	bool replied; /* a REPLY more from nids[0]; else all of them at full health */
	uint64_t replies0;
};

static bool
node_nids_so(void *arg)
{
	const struct node_wait_nids *w = arg;
	bool ok = true;

	for (unsigned int i = 0; ok && i < w->nn; i++) {
		ok = w->replied ? node_replies_from(&w->nids[i]) > w->replies0 :
				  node_nid_healthy(&w->nids[i]);
	}
	return ok;
}

/* "@healthy NID..." or "@replied NID": wait until it holds (60 s at most). */
static void
node_wait_cmd(const struct node *n, const char *cmd)
{
	struct node_wait_nids w = { .nn = 0, .replied = strncmp(cmd, "@replied ", 9) == 0 };
	const char *list = cmd + 9 /* past "@healthy " or "@replied " */;

	for (const char *p = list; *p != '\0' && w.nn < sizeof(w.nids) / sizeof(w.nids[0]);) {
		size_t len = strcspn(p, " ");
		char one[64];

		if (len > 0 && len < sizeof(one)) {
			memcpy(one, p, len);
			one[len] = '\0';
			if (libcfs_strnid(&w.nids[w.nn], one) != 0) {
				fprintf(stderr, "lnet_node: '%s': bad NID %s\n", cmd, one);
				return;
			}
			w.nn++;
		}
		p += len + (p[len] == ' ');
	}
	if (w.nn == 0 || (w.replied && w.nn != 1)) {
		fprintf(stderr, "lnet_node: '%s': NID(s) expected\n", cmd);
		return;
	}
	w.replies0 = w.replied ? node_replies_from(&w.nids[0]) : 0;
	if (!node_wait_until(n, node_nids_so, &w)) {
		fprintf(stderr, "lnet_node: '%s': still not so after 60 s\n", cmd);
	}
}

/* --run-after: the counts so far, then the command (the test's link change). */
static void
node_runs(struct node *n)
{
	for (unsigned int i = 0; i < n->nruns; i++) {
		char title[32];

		if (n->warming || n->runs[i].done || n->started != n->runs[i].after) {
			continue;
		}
		n->runs[i].done = true;
		snprintf(title, sizeof(title), "at_%llu", (unsigned long long)n->runs[i].after);
		node_print_nis_as(title);
		node_print_paths(n, title);
		if (strncmp(n->runs[i].cmd, "@udsp ", 6) == 0 ||
		    strcmp(n->runs[i].cmd, "@noudsp") == 0) {
			node_udsp_cmd(n->runs[i].cmd);
		} else if (strncmp(n->runs[i].cmd, "@healthy ", 9) == 0 ||
			   strncmp(n->runs[i].cmd, "@replied ", 9) == 0) {
			node_wait_cmd(n, n->runs[i].cmd);
		} else if (n->runs[i].cmd[0] == '@') {
			node_fault(n->runs[i].cmd);
		} else if (system(n->runs[i].cmd) != 0) {
			fprintf(stderr, "lnet_node: '%s' failed\n", n->runs[i].cmd);
		}
	}
}

/* 3 s without an event while operations are in flight: the LNDs' counts and the slots' phases, on stderr. */
static void
node_dump_stall(const struct node *n)
{
	struct lnet_ctl_lnd_counter cnt[LNET_CTL_LND_COUNTERS];
	unsigned int phases[3] = { 0 };

	for (unsigned int i = 0; i < n->inflight; i++) {
		phases[n->slots[i].phase]++;
	}
	fprintf(stderr, "lnet_node: stalled: %u idle, %u in PUT, %u in GET\n", phases[SLOT_IDLE],
		phases[SLOT_PUT], phases[SLOT_GET]);
	for (unsigned int i = 0; i < n->nnids; i++) {
		int k = lnet_ctl_lnd_counters(&n->nids[i], cnt, LNET_CTL_LND_COUNTERS);

		fprintf(stderr, "  %s:", libcfs_nidstr(&n->nids[i]));
		for (int j = 0; j < k; j++) {
			if (cnt[j].value != 0) {
				fprintf(stderr, " %s=%llu", cnt[j].key,
					(unsigned long long)cnt[j].value);
			}
		}
		fprintf(stderr, "\n");
	}
}

struct node_rec_load {
	struct lnet *ln;
	unsigned int first;
	unsigned int count;
};

/* On the data lcore: peer NIs heard from a moment ago, at health 0, queued for recovery. */
static int
node_rec_load_on_cpt(void *arg)
{
	struct node_rec_load *a = arg;
	struct lnet_cpt *c = lnet_cpt_self(a->ln);
	struct lnet_ni *ni = lnet_ni_find_by_net(a->ln, LNET_MKNET(LNET_LND_SOCK, 0));
	int64_t now = (int64_t)(rt_now_us(a->ln->rt) / 1000000);

	for (unsigned int i = a->first; ni != NULL && i < a->first + a->count; i++) {
		struct lnet_nid nid;
		struct lnet_peer_ni *lpni;

		lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(LNET_LND_SOCK, 0),
					    (127U << 24) | (1U << 16) | (i / 250 << 8) |
						    (i % 250 + 1)),
				 &nid);
		if (lnet_cpt_of_peer(a->ln, &nid) != c->cpt ||
		    (lpni = lnet_peer_ni_find_or_create(c, &nid, ni)) == NULL) {
			continue;
		}
		__atomic_store_n(&lpni->health.last_alive, now, __ATOMIC_RELAXED);
		__atomic_store_n(&lpni->health.value, 0, __ATOMIC_RELAXED);
	}
	return 0;
}

/* Then, once the management lcore published their peers, into recovery. */
static int
node_rec_queue_on_cpt(void *arg)
{
	struct node_rec_load *a = arg;
	struct lnet_cpt *c = lnet_cpt_self(a->ln);

	for (unsigned int h = 0; h < LNET_PEER_HASH_SIZE; h++) {
		struct lnet_peer_ni *lpni;

		TAILQ_FOREACH(lpni, &c->peers.hash[h], link) {
			if (lnet_health_value(&lpni->health) == 0) {
				lnet_recovery_queue_lpni(a->ln, lpni);
			}
		}
	}
	return 0;
}

static void
node_recovery_load(const struct node *n)
{
	struct node_rec_load a = { lnet_instance(), 0, n->recovery_load };
	struct lnet_nid q[1];
	unsigned int total = 0;

	for (unsigned int cpt = 0; cpt < a.ln->ncpts; cpt++) {
		rt_lcore_call(a.ln->cpts[cpt]->lcore, node_rec_load_on_cpt, &a);
	}
	usleep(500000);
	for (unsigned int cpt = 0; cpt < a.ln->ncpts; cpt++) {
		rt_lcore_call(a.ln->cpts[cpt]->lcore, node_rec_queue_on_cpt, &a);
	}
	usleep(500000);
	lnet_ctl_recovery_list(false, q, 1, &total);
	printf("recovery_load:\n    peer_nis: %u\n    in_recovery: %u\n", n->recovery_load, total);
}

static bool
node_busy(const struct node *n)
{
	return n->nidle < n->inflight;
}

/* Run operations until @p count have started and none is in flight (or stopping). */
static void
node_run(struct node *n, uint64_t count)
{
	unsigned int quiet = 0;

	for (;;) {
		struct lnet_event ev;
		bool stopping = g_stop || (n->stop_on_error && n->failed > 0);

		while (n->nidle > 0 && !stopping && n->started < count) {
			struct node_slot *s = &n->slots[n->idle[--n->nidle]];

			if (n->change_after != 0 && n->started == n->change_after && !n->changed) {
				node_change_nis(n);
			}
			node_runs(n);
			s->on_idle = false;
			node_start(n, s);
		}
		if (!node_busy(n) && (stopping || n->started == count)) {
			break;
		}
		if (LNetEQPoll(&n->eq, 1, 1000, &ev, NULL) == 1) {
			node_event(n, &ev);
			quiet = 0;
		} else if (++quiet == 3) {
			node_dump_stall(n); /* why nothing moves, for whoever debugs it */
		}
	}
}

/*
 * --warmup N: N operations before the clock starts (the connection is made,
 * caches are warm), as tcpbench and ucx_perftest warm up. A failure there
 * counts like any other.
 */
static void
node_warm_up(struct node *n)
{
	if (n->warmup == 0) {
		return;
	}
	n->warming = true;
	node_run(n, n->warmup);
	n->warming = false;
	if (n->failed == 0) {
		n->started = n->verified = n->bytes = 0;
		n->npaths = 0;
	}
	node_print_nis_as("warm"); /* what the run's counts start from */
}

static int
node_client(struct node *n)
{
	double t0;
	double drained = 0;
	unsigned int i;

	n->eq = LNetEQAlloc(4 * NODE_SLOTS);
	for (i = 0; i < n->inflight; i++) {
		n->slots[i].index = i;
		node_slot_idle(n, &n->slots[i]);
		n->slots[i].tx = malloc(NODE_SLOT);
		n->slots[i].rx = malloc(NODE_SLOT);
		if (n->slots[i].tx == NULL || n->slots[i].rx == NULL) {
			return 1;
		}
	}
	if (n->recovery_load > 0) {
		node_recovery_load(n);
	}
	node_warm_up(n);
	t0 = node_now();
	if (n->failed == 0) {
		node_run(n, n->count);
	}
	if (n->failed > 0) {
		drained = node_now() - n->first_error_at;
	}
	printf("client:\n    peer: %s\n    operations: %llu\n    verified: %llu\n"
	       "    failed: %llu\n    mismatched: %llu\n    bytes: %llu\n    seconds: %.3f\n"
	       "    pending_at_first_error: %u\n    seconds_to_complete_them: %.3f\n",
	       libcfs_nidstr(&n->peer.nid), (unsigned long long)n->started,
	       (unsigned long long)n->verified, (unsigned long long)n->failed,
	       (unsigned long long)n->mismatched, (unsigned long long)n->bytes, node_now() - t0,
	       n->pending_at_error, drained);
	if (n->failed == 0 && n->started > 0) {
		double secs = node_now() - t0;

		printf("    ops_per_s: %.0f\n    mb_per_s: %.1f\n    us_per_op: %.3f\n",
		       (double)n->verified / secs, (double)n->bytes / secs / 1e6,
		       secs * 1e6 / (double)n->verified);
	}
	node_print_nis();
	node_print_loops();
	node_print_paths(n, "run");
	for (i = 0; i < n->inflight; i++) {
		free(n->slots[i].tx);
		free(n->slots[i].rx);
	}
	LNetEQFree(n->eq);
	return n->failed == 0 && n->verified == n->count ? 0 : 1;
}

static int
node_sizes(struct node *n, const char *list)
{
	char *copy = strdup(list);
	char *save = NULL;
	char *tok;

	n->nsizes = 0;
	for (tok = copy != NULL ? strtok_r(copy, ",", &save) : NULL; tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		long v = strtol(tok, NULL, 10);

		if (n->nsizes == NODE_MAX_SIZES || v < 0 || v > (long)NODE_SLOT) {
			free(copy);
			return -EINVAL;
		}
		n->sizes[n->nsizes++] = (unsigned int)v;
	}
	free(copy);
	return n->nsizes > 0 ? 0 : -EINVAL;
}

static int
node_exec_mode(struct node *n, const char *name)
{
	if (strcmp(name, "threads") == 0) {
		n->exec = LNET_EXEC_THREADS;
	} else if (strcmp(name, "polled") == 0) {
		n->exec = LNET_EXEC_POLLED;
	} else {
		return -EINVAL;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nid", required_argument, NULL, 'n' },
		{ "peer", required_argument, NULL, 'p' },
		{ "port", required_argument, NULL, 'P' },
		{ "sizes", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'c' },
		{ "inflight", required_argument, NULL, 'k' },
		{ "timeout", required_argument, NULL, 't' },
		{ "retry-count", required_argument, NULL, 'Y' },
		{ "stop-on-error", no_argument, NULL, 'e' },
		{ "log", required_argument, NULL, 'l' },
		{ "put-only", no_argument, NULL, 'o' },
		{ "get-only", no_argument, NULL, 'g' },
		{ "exec", required_argument, NULL, 'x' },
		{ "lcores", required_argument, NULL, 'L' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "change-after", required_argument, NULL, 'C' },
		{ "discovery", required_argument, NULL, 'd' },
		{ "add-nid", required_argument, NULL, 'A' },
		{ "del-nid", required_argument, NULL, 'D' },
		{ "run-after", required_argument, NULL, 'R' },
		{ "recovery-load", required_argument, NULL, 'Q' },
		{ "udsp", required_argument, NULL, 'U' },
		{ "route", required_argument, NULL, 'r' },
		{ "router", no_argument, NULL, 'W' },
		{ "paths", no_argument, NULL, 'T' },
		{ "conns-per-peer", required_argument, NULL, 'N' },
		{ "cpts", required_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	static struct node n = { .port = 988,
				 .count = 100,
				 .inflight = 8,
				 .nsizes = 4,
				 .sizes = { 0, 1, 4096, NODE_SLOT },
				 .exec = LNET_EXEC_THREADS };
	bool serve;
	int c;
	int rc;

	if (argc < 2 || (strcmp(argv[1], "serve") != 0 && strcmp(argv[1], "client") != 0)) {
		fprintf(stderr, "usage: lnet_node serve|client --nid NID [--peer NID] ...\n");
		return 2;
	}
	serve = strcmp(argv[1], "serve") == 0;
	n.nid = LNET_ANY_NID;
	n.add_nid = LNET_ANY_NID;
	n.discovery = -1;
	n.retry_count = -1;
	n.conns_per_peer = -1;
	n.del_nid = LNET_ANY_NID;
	n.peer.pid = LNET_PID_LUSTRE;
	while ((c = getopt_long(argc - 1, argv + 1, "", opts, NULL)) != -1) {
		rc = 0;
		switch (c) {
		case 'n':
			rc = n.nnids == NODE_MAX_NIDS ? -E2BIG :
							libcfs_strnid(&n.nids[n.nnids], optarg);
			n.nid = n.nids[0];
			n.nnids += rc == 0;
			break;
		case 'C':
			n.change_after = strtoull(optarg, NULL, 10);
			break;
		case 'Q':
			n.recovery_load = (unsigned int)atoi(optarg);
			break;
		case 'R': {
			char *cmd = NULL;

			if (n.nruns == NODE_MAX_RUNS) {
				rc = -E2BIG;
				break;
			}
			n.runs[n.nruns].after = strtoull(optarg, &cmd, 10);
			rc = cmd == optarg || *cmd != ':' ? -EINVAL : 0;
			n.runs[n.nruns++].cmd = cmd + 1;
			break;
		}
		case 'T':
			n.count_paths = true;
			break;
		case 'W':
			n.router = true;
			break;
		case 'r':
			if (n.nroutes == sizeof(n.routes) / sizeof(n.routes[0])) {
				rc = -E2BIG;
				break;
			}
			n.routes[n.nroutes++] = optarg;
			break;
		case 'U':
			if (n.nudsp == NODE_MAX_UDSP) {
				rc = -E2BIG;
				break;
			}
			n.udsp[n.nudsp++] = optarg;
			break;
		case 'd':
			n.discovery = atoi(optarg);
			break;
		case 'N': {
			char *end = NULL;
			long v = strtol(optarg, &end, 10);

			rc = end == optarg || *end != '\0' || v < 0 || v > 127 ? -EINVAL : 0;
			n.conns_per_peer = (int)v;
			break;
		}
		case 'A':
			rc = libcfs_strnid(&n.add_nid, optarg);
			break;
		case 'D':
			rc = libcfs_strnid(&n.del_nid, optarg);
			break;
		case 'p':
			rc = libcfs_strnid(&n.peer.nid, optarg);
			break;
		case 'P':
			n.port = (uint16_t)atoi(optarg);
			break;
		case 's':
			rc = node_sizes(&n, optarg);
			break;
		case 'c':
			n.count = strtoull(optarg, NULL, 10);
			break;
		case 'k':
			n.inflight = (unsigned int)atoi(optarg);
			break;
		case 't':
			n.timeout = atoi(optarg);
			break;
		case 'Y':
			n.retry_count = atoi(optarg);
			break;
		case 'e':
			n.stop_on_error = true;
			break;
		case 'o':
			n.put_only = true;
			break;
		case 'g':
			n.get_only = true;
			break;
		case 'x':
			rc = node_exec_mode(&n, optarg);
			break;
		case 'L':
			n.lcores = optarg;
			break;
		case 'K':
			n.ncpts = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			n.warmup = strtoull(optarg, NULL, 10);
			break;
		case 'l':
			n.log = fopen(optarg, "w");
			rc = n.log == NULL ? -errno : 0;
			break;
		default:
			return 2;
		}
		if (rc != 0) {
			fprintf(stderr, "lnet_node: bad value: %s\n", optarg);
			return 2;
		}
	}
	if (lnet_nid_is_any(&n.nid) || n.inflight == 0 || n.inflight > NODE_SLOTS ||
	    (!serve && lnet_nid_is_any(&n.peer.nid)) || (n.put_only && n.get_only)) {
		fprintf(stderr,
			"lnet_node: --nid (and for a client --peer) are needed; --inflight 1..%d; "
			"--put-only or --get-only\n",
			NODE_SLOTS);
		return 2;
	}
	signal(SIGINT, node_on_signal);
	signal(SIGTERM, node_on_signal);
	if (node_up(&n) != 0) {
		return 1;
	}
	if (!serve && n.nroutes > 0) {
		node_routes_wait_up(
			&n); /* a server serves at once: its routes come up as they may */
	}
	rc = serve ? node_serve(&n) : node_client(&n);
	LNetNIFini();
	if (n.log != NULL) {
		fclose(n.log);
	}
	return rc;
}
