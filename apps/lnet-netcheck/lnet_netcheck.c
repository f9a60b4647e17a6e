/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnet-netcheck: run the userspace IP stack (drivers/net) on one DPDK port
 * and answer ARP and ICMP echo for the given address, so a site can check a
 * port and the path to it (`ping`, `arping` from a peer) before putting
 * LNet on it; optionally ping a peer from the stack. It is the seed of
 * issue 34's user tool, which will answer and measure TCP.
 *
 *   lnet-netcheck [EAL args] -- --port DEVARGS --addr A.B.C.D/LEN [--gw A.B.C.D]
 *                 [--ping A.B.C.D [--count N]] [--mtu N]
 *
 * One thread runs the management and the data lcore (rt's POLLED mode).
 * It prints "ready <mac>" once the port is up and announced, and its
 * counters as "name value" lines when it ends (SIGINT/SIGTERM, or after its
 * pings are answered or have timed out).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_ether.h>

#include "net_ip.h"
#include "net_neigh.h"
#include "net_port.h"
#include "rt.h"

#define PING_INTERVAL_US (200 * 1000)
#define PING_WAIT_US (3 * 1000 * 1000)

static volatile sig_atomic_t g_stop;

struct opts {
	const char *devargs;
	uint32_t addr, gw, ping;
	uint8_t plen;
	unsigned int count;
	uint16_t mtu;
};

struct stack {
	struct rt_runtime *rt;
	struct net_port *port;
	struct net_neigh *nb;
	struct net_ip *ip;
	unsigned int replies;
};

static void
on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

static void
on_echo(void *arg, unsigned int lcore, uint32_t from, uint16_t id, uint16_t seq, const void *data,
	size_t len)
{
	struct stack *s = arg;
	char a[INET_ADDRSTRLEN];

	(void)lcore;
	(void)id;
	(void)data;
	inet_ntop(AF_INET, &from, a, sizeof(a));
	printf("reply from %s seq %u bytes %zu\n", a, seq, len);
	fflush(stdout);
	s->replies++;
}

static int
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL args] -- --port DEVARGS --addr A.B.C.D/LEN [--gw A.B.C.D]\n"
		"       [--ping A.B.C.D [--count N]] [--mtu N]\n",
		prog);
	return 2;
}

static int
parse_addr(const char *s, uint32_t *ip, uint8_t *plen)
{
	char buf[32];
	char *slash;
	long n = 32;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash = '\0';
		n = strtol(slash + 1, NULL, 10);
	}
	if (inet_pton(AF_INET, buf, ip) != 1 || n < 0 || n > 32 || (plen == NULL && slash)) {
		return -EINVAL;
	}
	if (plen != NULL) {
		*plen = (uint8_t)n;
	}
	return 0;
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "addr", required_argument, NULL, 'a' },
		{ "gw", required_argument, NULL, 'g' },
		{ "ping", required_argument, NULL, 'P' },
		{ "count", required_argument, NULL, 'c' },
		{ "mtu", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->count = 3;
	while (rc == 0 && (c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->devargs = optarg;
			break;
		case 'a':
			rc = parse_addr(optarg, &o->addr, &o->plen);
			break;
		case 'g':
			rc = parse_addr(optarg, &o->gw, NULL);
			break;
		case 'P':
			rc = parse_addr(optarg, &o->ping, NULL);
			break;
		case 'c':
			o->count = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'm':
			o->mtu = (uint16_t)strtoul(optarg, NULL, 10);
			break;
		default:
			rc = -EINVAL;
		}
	}
	return rc != 0 || o->devargs == NULL || o->addr == 0 ? -EINVAL : 0;
}

static int
stack_open(struct stack *s, const struct opts *o)
{
	struct rt_runtime_opts ro = { .opts_size = sizeof(ro),
				      .mode = RT_MODE_POLLED,
				      .n_data = 1 };
	struct net_port_conf pc = { .conf_size = sizeof(pc), .devargs = o->devargs, .mtu = o->mtu };
	struct net_ip_conf ic = { .conf_size = sizeof(ic), .gateway = o->gw };
	int rc;

	rc = rt_runtime_create(&ro, &s->rt);
	if (rc == 0) {
		rc = net_port_open(s->rt, &pc, &s->port);
	}
	if (rc == 0) {
		rc = net_neigh_create(s->port, NULL, &s->nb);
	}
	if (rc == 0) {
		rc = net_ip_create(s->nb, &ic, &s->ip);
	}
	if (rc == 0) {
		net_ip_set_echo_fn(s->ip, on_echo, s);
		rc = net_neigh_addr_add(s->nb, o->addr, o->plen);
	}
	if (rc == 0) {
		rc = net_port_start(s->port);
	}
	if (rc == 0) {
		rc = net_neigh_announce(s->nb);
	}
	return rc;
}

static void
stack_close(struct stack *s)
{
	/* Frames still in messages between the lcores go first. */
	rt_runtime_poll_until_idle(s->rt, 1000);
	net_port_close(s->port);
	net_ip_destroy(s->ip);
	net_neigh_destroy(s->nb);
	rt_runtime_destroy(s->rt);
}

/*
 * Run the lcores once. Busy, or busy within the last SPIN_US: poll again at
 * once (a reply's round trip stays in the poll loop); idle longer than
 * that: sleep a little between polls, not to take a core of a shared host.
 */
#define SPIN_US 2000
static void
run_once(struct stack *s)
{
	static uint64_t last_busy_us;
	const struct timespec idle = { 0, 50 * 1000 };
	uint64_t now = rt_now_us(s->rt);

	if (rt_runtime_poll_until_idle(s->rt, 64) > 1) {
		last_busy_us = now;
	} else if (now - last_busy_us > SPIN_US) {
		nanosleep(&idle, NULL);
	}
}

struct ping_req {
	struct net_ip *ip;
	uint32_t dst;
	uint16_t seq;
};

static int
ping_on_lcore(void *arg)
{
	struct ping_req *p = arg;

	return net_ip_ping(p->ip, 0, p->dst, (uint16_t)getpid(), p->seq, 56);
}

/* Send o->count echo requests PING_INTERVAL_US apart; wait for the replies. */
static void
run_pings(struct stack *s, const struct opts *o)
{
	uint64_t next = rt_now_us(s->rt), end = UINT64_MAX;
	unsigned int sent = 0;

	while (!g_stop && s->replies < o->count && rt_now_us(s->rt) < end) {
		if (sent < o->count && rt_now_us(s->rt) >= next) {
			struct ping_req p = { s->ip, o->ping, (uint16_t)(sent + 1) };

			rt_lcore_call(rt_data_lcore(s->rt, 0), ping_on_lcore, &p);
			sent++;
			next += PING_INTERVAL_US;
			if (sent == o->count) {
				end = rt_now_us(s->rt) + PING_WAIT_US;
			}
		}
		run_once(s);
	}
	printf("ping: %u sent, %u replies\n", sent, s->replies);
}

#define PRINT(st, f) printf("%s %" PRIu64 "\n", #f, (uint64_t)(st).f)

static void
print_counters(const struct stack *s)
{
	struct net_port_lcore_stats ps;
	struct net_neigh_stats ns;
	struct net_ip_stats is;

	net_port_lcore_stats(s->port, 0, &ps);
	net_neigh_stats(s->nb, &ns);
	net_ip_stats(s->ip, &is);
	PRINT(ps, rx_pkts);
	PRINT(ps, rx_other_host);
	PRINT(ps, tx_pkts);
	PRINT(ps, tx_drops);
	PRINT(ns, arp_req_rx);
	PRINT(ns, arp_reply_tx);
	PRINT(ns, arp_req_tx);
	PRINT(ns, arp_reply_rx);
	PRINT(ns, garp_tx);
	PRINT(ns, resolve_failed);
	PRINT(is, rx);
	PRINT(is, rx_bad_cksum);
	PRINT(is, rx_ipv6);
	PRINT(is, icmp_echo_rx);
	PRINT(is, icmp_echo_tx);
	PRINT(is, icmp_echo_reply_rx);
	PRINT(is, icmp_bad);
}

int
main(int argc, char **argv)
{
	struct stack s = { 0 };
	struct opts o;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	int n, rc;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "lnet-netcheck: EAL init failed\n");
		return 1;
	}
	argc -= n;
	argv += n;
	argv[0] = "lnet-netcheck";
	if (parse_opts(argc, argv, &o) != 0) {
		rte_eal_cleanup();
		return usage("lnet-netcheck");
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = stack_open(&s, &o);
	if (rc != 0) {
		fprintf(stderr, "lnet-netcheck: %s: %s\n", o.devargs, strerror(-rc));
	} else {
		rte_ether_format_addr(mac, sizeof(mac), &net_port_info(s.port)->mac);
		printf("ready %s\n", mac);
		fflush(stdout);
		if (o.ping != 0) {
			run_pings(&s, &o);
		}
		while (!g_stop && o.ping == 0) {
			run_once(&s);
		}
		print_counters(&s);
	}
	if (s.rt != NULL) {
		stack_close(&s);
	}
	rte_eal_cleanup();
	return rc != 0 || (o.ping != 0 && s.replies < o.count) ? 1 : 0;
}
