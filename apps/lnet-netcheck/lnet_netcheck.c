/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnet-netcheck: run the userspace IP stack (drivers/net) on one DPDK port
 * and answer ARP and ICMP echo for the given address, so a site can check a
 * port and the path to it (`ping`, `arping` from a peer) before putting
 * LNet on it; optionally ping a peer from the stack; over TCP
 * (drivers/net/tcp), echo what a client sends (--tcp-echo PORT), or connect
 * to a peer that echoes, send it N bytes and check they come back
 * (--tcp-send A.B.C.D:PORT --bytes N). With --addr6 the port also carries
 * that IPv6 address (besides its link-local one), runs DAD for both before
 * "ready", and answers neighbour solicitations for those it got; nothing
 * else goes out over IPv6 yet.
 *
 *   lnet-netcheck [EAL args] -- --port DEVARGS --addr A.B.C.D/LEN [--gw A.B.C.D]
 *                 [--ping A.B.C.D [--count N]] [--mtu N]
 *                 [--tcp-echo PORT | --tcp-send A.B.C.D:PORT [--bytes N]]
 *                 [--addr6 X:X::X]
 *
 * One thread runs the management and the data lcore (rt's POLLED mode).
 * It prints "ready <mac>" once the port is up and announced, and its
 * counters as "name value" lines when it ends (SIGINT/SIGTERM, or after its
 * pings are answered or have timed out), and after a TCP run its
 * connection's own (net_tcp_get_stats) as "conn_name value": retransmits,
 * RTOs, duplicate ACKs, SACK blocks, out-of-order segments, window probes,
 * resets. The tool runs one connection and ends; the daemon's rte_telemetry
 * is for what stays up, so the counters are in its output.
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
#include "net_tcp.h"
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
	uint16_t tcp_echo; /* port to echo on */
	uint32_t tcp_dst;  /* --tcp-send: the echoing peer */
	uint16_t tcp_dport;
	size_t tcp_bytes;
	bool has_addr6;
	uint8_t addr6[16];
};

/* One TCP stream of the tool: an echo, or a client checking its echo. */
struct stream {
	struct net_tcp_conn *c;
	size_t to_send, sent, rcvd;
	bool client, bad, done, closed;
	uint64_t err;
	/* The connection's counters, last read before it was closed or as it closed. */
	struct net_tcp_conn_stats cs;
	bool has_cs;
};

/* Read the connection's counters while it is still ours to read. */
static void
stream_snapshot(struct stream *t, const struct net_tcp_conn *c)
{
	net_tcp_get_stats(c, &t->cs);
	t->has_cs = true;
}

struct stack {
	struct rt_runtime *rt;
	struct net_port *port;
	struct net_neigh *nb;
	struct net_ip *ip;
	struct net_tcp *tcp;
	unsigned int replies;
	struct stream st;
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

static uint8_t
pattern(size_t i)
{
	return (uint8_t)(i * 7 + (i >> 11));
}

static void
client_pump(struct stream *t)
{
	uint8_t buf[8192];

	while (t->sent < t->to_send) {
		size_t n = RTE_MIN(sizeof(buf), t->to_send - t->sent);
		long r;

		for (size_t i = 0; i < n; i++) {
			buf[i] = pattern(t->sent + i);
		}
		r = net_tcp_send(t->c, buf, n);
		if (r <= 0) {
			return;
		}
		t->sent += (size_t)r;
	}
}

/* Echo what was received, as far as the send buffer takes it. */
static void
echo_pump(struct stream *t)
{
	struct net_tcp_view v;
	int r;

	while ((r = net_tcp_peek(t->c, &v)) == 1) {
		long n = net_tcp_send(t->c, v.data, v.len);

		if (n <= 0) {
			return;
		}
		t->rcvd += (size_t)n;
		net_tcp_consume(t->c, (size_t)n);
	}
	if (r == -ENODATA && !t->done) {
		t->done = true;
		stream_snapshot(t, t->c);
		net_tcp_close(t->c);
	}
}

static void
client_read(struct stream *t)
{
	struct net_tcp_view v;

	while (net_tcp_peek(t->c, &v) == 1) {
		for (size_t i = 0; i < v.len; i++) {
			t->bad |= v.data[i] != pattern(t->rcvd + i);
		}
		t->rcvd += v.len;
		net_tcp_consume(t->c, v.len);
	}
	if (t->rcvd >= t->to_send && !t->done) {
		t->done = true;
		stream_snapshot(t, t->c);
		net_tcp_close(t->c);
	}
}

static void
on_tcp(void *arg, struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n)
{
	struct stream *t = arg;

	switch (ev) {
	case NET_TCP_EV_ACCEPT:
		if (t->c != NULL) {
			net_tcp_abort(c); /* one client per run */
			return;
		}
		t->c = c;
		printf("tcp: accepted\n");
		fflush(stdout);
		break;
	case NET_TCP_EV_CONNECTED:
		printf("tcp: connected\n");
		fflush(stdout);
		client_pump(t);
		break;
	case NET_TCP_EV_READABLE:
	case NET_TCP_EV_ACKED:
		if (t->client) {
			client_pump(t);
			client_read(t);
		} else {
			echo_pump(t);
		}
		break;
	case NET_TCP_EV_CLOSED:
		t->closed = true;
		t->err = n;
		stream_snapshot(t, c);
		printf("tcp: closed: %s\n", n != 0 ? strerror((int)n) : "by the peer");
		fflush(stdout);
		break;
	}
}

static int
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL args] -- --port DEVARGS --addr A.B.C.D/LEN [--gw A.B.C.D]\n"
		"       [--ping A.B.C.D [--count N]] [--mtu N]\n"
		"       [--tcp-echo PORT | --tcp-send A.B.C.D:PORT [--bytes N]] [--addr6 X:X::X]\n",
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
		{ "tcp-echo", required_argument, NULL, 'e' },
		{ "tcp-send", required_argument, NULL, 's' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "addr6", required_argument, NULL, '6' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->count = 3;
	o->tcp_bytes = 1 << 20;
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
		case 'e':
			o->tcp_echo = (uint16_t)strtoul(optarg, NULL, 10);
			break;
		case 's': {
			char buf[32], *colon;

			snprintf(buf, sizeof(buf), "%s", optarg);
			colon = strchr(buf, ':');
			if (colon == NULL) {
				rc = -EINVAL;
				break;
			}
			*colon = '\0';
			o->tcp_dport = (uint16_t)strtoul(colon + 1, NULL, 10);
			rc = parse_addr(buf, &o->tcp_dst, NULL);
			break;
		}
		case 'b':
			o->tcp_bytes = strtoull(optarg, NULL, 10);
			break;
		case '6':
			o->has_addr6 = true;
			rc = inet_pton(AF_INET6, optarg, o->addr6) == 1 ? 0 : -EINVAL;
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
	struct net_tcp_conf tc = { .conf_size = sizeof(tc) };
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
		rc = net_tcp_create(s->nb, s->ip, &tc, &s->tcp);
	}
	if (rc == 0) {
		net_ip_set_echo_fn(s->ip, on_echo, s);
		rc = net_neigh_addr_add(s->nb, o->addr, o->plen);
	}
	if (rc == 0 && o->has_addr6) {
		rc = net_ip_addr6_add(s->ip, o->addr6);
	}
	if (rc == 0) {
		rc = net_port_start(s->port);
	}
	if (rc == 0) {
		rc = net_neigh_announce(s->nb);
	}
	if (rc == 0 && o->has_addr6) {
		rc = net_ip_announce6(s->ip); /* DAD first: "ready" waits for it */
	}
	return rc;
}

static void
stack_close(struct stack *s)
{
	/* Frames still in messages between the lcores go first. */
	rt_runtime_poll_until_idle(s->rt, 1000);
	net_port_close(s->port);
	net_tcp_destroy(s->tcp);
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

struct tcp_req {
	struct stack *s;
	const struct opts *o;
};

static int
tcp_start_on_lcore(void *arg)
{
	struct tcp_req *r = arg;
	struct stack *s = r->s;

	if (r->o->tcp_echo != 0) {
		return net_tcp_listen(s->tcp, 0, r->o->tcp_echo, on_tcp, &s->st);
	}
	s->st.client = true;
	s->st.to_send = r->o->tcp_bytes;
	/* From ksocklnd's range of source ports, as the LND will. */
	return net_tcp_connect(s->tcp, 0, r->o->tcp_dst, r->o->tcp_dport, 512, 1023, on_tcp, &s->st,
			       &s->st.c);
}

/* --tcp-send: until the echo came back whole, or the connection ended. */
static int
run_tcp_client(struct stack *s, const struct opts *o)
{
	struct tcp_req r = { s, o };
	uint64_t end;
	int rc = rt_lcore_call(rt_data_lcore(s->rt, 0), tcp_start_on_lcore, &r);

	if (rc != 0) {
		fprintf(stderr, "lnet-netcheck: tcp: %s\n", strerror(-rc));
		return rc;
	}
	while (!g_stop && !s->st.done && !s->st.closed) {
		run_once(s);
	}
	/* Our FIN, and the peer's, before the port goes (1 s at most). */
	end = rt_now_us(s->rt) + 1000 * 1000;
	while (!g_stop && rt_now_us(s->rt) < end) {
		run_once(s);
	}
	printf("tcp: sent %zu, echoed %zu, %s\n", s->st.sent, s->st.rcvd,
	       s->st.bad ? "mismatch" : "verified");
	return s->st.done && !s->st.bad && s->st.rcvd == o->tcp_bytes ? 0 : -EIO;
}

#define PRINT(st, f) printf("%s %" PRIu64 "\n", #f, (uint64_t)(st).f)
/* A connection's counter, as conn_NAME beside the lcore's NAME. */
#define PRINT_CONN(st, f) printf("conn_%s %" PRIu64 "\n", #f, (uint64_t)(st).f)

/* The TCP connection's own counters (net_tcp_get_stats), when there was one. */
static void
print_conn_counters(const struct stream *t)
{
	if (!t->has_cs) {
		return;
	}
	PRINT_CONN(t->cs, retransmits);
	PRINT_CONN(t->cs, rto);
	PRINT_CONN(t->cs, fast_retransmits);
	PRINT_CONN(t->cs, dupacks);
	PRINT_CONN(t->cs, sack_blocks_rx);
	PRINT_CONN(t->cs, sack_blocks_tx);
	PRINT_CONN(t->cs, ooo);
	PRINT_CONN(t->cs, win_probes);
	PRINT_CONN(t->cs, rst_rx);
	PRINT_CONN(t->cs, rst_tx);
}

static void
print_counters(const struct stack *s)
{
	struct net_port_lcore_stats ps;
	struct net_neigh_stats ns;
	struct net_ip_stats is;
	struct net_tcp_stats ts;

	net_port_lcore_stats(s->port, 0, &ps);
	net_neigh_stats(s->nb, &ns);
	net_ip_stats(s->ip, &is);
	net_tcp_stats(s->tcp, &ts);
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
	PRINT(is, icmp6_rx);
	PRINT(is, icmp6_bad);
	PRINT(is, icmp6_echo_rx);
	PRINT(is, nd_bad);
	PRINT(is, nd_ns_rx);
	PRINT(is, nd_na_tx);
	PRINT(is, nd_na_rx);
	PRINT(is, nd_dup_addr);
	PRINT(is, nd_dad_ns_tx);
	PRINT(ts, rx);
	PRINT(ts, tx);
	PRINT(ts, rx_bad);
	PRINT(ts, retransmits);
	PRINT(ts, rst_rx);
	PRINT(ts, rst_tx);
	PRINT(ts, opened);
	print_conn_counters(&s->st);
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
	while (rc == 0 && !g_stop && o.has_addr6 && net_ip_dad_pending(s.ip)) {
		run_once(&s);
	}
	if (rc != 0) {
		fprintf(stderr, "lnet-netcheck: %s: %s\n", o.devargs, strerror(-rc));
	} else {
		rte_ether_format_addr(mac, sizeof(mac), &net_port_info(s.port)->mac);
		printf("ready %s\n", mac);
		fflush(stdout);
		if (o.ping != 0) {
			run_pings(&s, &o);
		} else if (o.tcp_dst != 0) {
			rc = run_tcp_client(&s, &o);
		} else if (o.tcp_echo != 0) {
			struct tcp_req r = { &s, &o };

			rc = rt_lcore_call(rt_data_lcore(s.rt, 0), tcp_start_on_lcore, &r);
		}
		while (!g_stop && o.ping == 0 && o.tcp_dst == 0 && rc == 0) {
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
