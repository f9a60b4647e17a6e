/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tcpbench: plain TCP, the floor and ceiling LNet over sockets is compared
 * with (issue 5, reference/benchmark-peers.md). The same workloads as
 * lnet-bench, with nothing between the application and the socket:
 *
 *   tcpbench server [--port P] [--busy]
 *   tcpbench client --host H [--port P] --test lat|bw|rate [--size N]
 *                   [--iters N] [--inflight K] [--busy]
 *
 *   lat:  ping-pong of --size bytes; prints the one-way time (half the RTT)
 *   bw:   --iters messages of --size bytes one way, one byte back at the end
 *   rate: messages of --size bytes, --inflight unanswered at most, each
 *         answered by one byte
 * --busy: non-blocking sockets polled in a loop (the busy-polling peer),
 * else blocking calls. Prints one YAML mapping.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum tb_test { TB_LAT = 1, TB_BW, TB_RATE };

/* What the client tells the server first: all the server needs to play its part. */
struct tb_hdr {
	uint32_t test;
	uint32_t size;
	uint64_t iters;
	uint32_t inflight;
	uint32_t pad;
};

struct tb_opts {
	const char *host;
	uint16_t port;
	enum tb_test test;
	uint32_t size;
	uint64_t iters;
	uint32_t inflight;
	bool busy;
};

static double
tb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* All @p n bytes, blocking or spinning on EAGAIN (--busy). 0, or -1 on error/EOF. */
static int
tb_io(int fd, void *buf, size_t n, bool out, bool busy)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = out ? send(fd, (char *)buf + done, n - done,
				       MSG_NOSIGNAL | (busy ? MSG_DONTWAIT : 0)) :
				  recv(fd, (char *)buf + done, n - done, busy ? MSG_DONTWAIT : 0);

		if (r > 0) {
			done += (size_t)r;
		} else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
			continue;
		} else {
			return -1;
		}
	}
	return 0;
}

static void
tb_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* The server's side of one client's run. */
static int
tb_serve_one(int fd, bool busy)
{
	struct tb_hdr h;
	uint8_t *buf;
	uint8_t ack = 1;
	uint64_t i;
	int rc = 0;

	if (tb_io(fd, &h, sizeof(h), false, busy) != 0 || h.size == 0 || h.size > (64u << 20)) {
		return -1;
	}
	buf = malloc(h.size);
	if (buf == NULL) {
		return -1;
	}
	for (i = 0; rc == 0 && i < h.iters; i++) {
		rc = tb_io(fd, buf, h.size, false, busy);
		if (rc == 0 && h.test == TB_LAT) {
			rc = tb_io(fd, buf, h.size, true, busy);
		} else if (rc == 0 && h.test == TB_RATE) {
			rc = tb_io(fd, &ack, 1, true, busy);
		}
	}
	if (rc == 0 && h.test == TB_BW) {
		rc = tb_io(fd, &ack, 1, true, busy);
	}
	free(buf);
	return rc;
}

static int
tb_server(const struct tb_opts *o)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(o->port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int one = 1;
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(lfd, 8) != 0) {
		perror("tcpbench: listen");
		return 1;
	}
	printf("listening: %u\n", o->port);
	fflush(stdout);
	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0) {
			continue;
		}
		tb_nodelay(fd);
		tb_serve_one(fd, o->busy);
		close(fd);
	}
	return 0;
}

/* @return the seconds the workload took, or a negative value on error. */
static double
tb_run(int fd, const struct tb_opts *o, uint8_t *buf)
{
	uint8_t ack;
	uint64_t sent = 0;
	uint64_t acked = 0;
	double t0 = tb_now();

	switch (o->test) {
	case TB_LAT:
		for (; sent < o->iters; sent++) {
			if (tb_io(fd, buf, o->size, true, o->busy) != 0 ||
			    tb_io(fd, buf, o->size, false, o->busy) != 0) {
				return -1;
			}
		}
		break;
	case TB_BW:
		for (; sent < o->iters; sent++) {
			if (tb_io(fd, buf, o->size, true, o->busy) != 0) {
				return -1;
			}
		}
		if (tb_io(fd, &ack, 1, false, o->busy) != 0) {
			return -1;
		}
		break;
	case TB_RATE:
		while (acked < o->iters) {
			while (sent < o->iters && sent - acked < o->inflight) {
				if (tb_io(fd, buf, o->size, true, o->busy) != 0) {
					return -1;
				}
				sent++;
			}
			if (tb_io(fd, &ack, 1, false, o->busy) != 0) {
				return -1;
			}
			acked++;
		}
		break;
	}
	return tb_now() - t0;
}

static int
tb_client(const struct tb_opts *o)
{
	static const char *const names[] = { "", "lat", "bw", "rate" };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(o->port) };
	struct tb_hdr h = { o->test, o->size, o->iters, o->inflight, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	uint8_t *buf = calloc(1, o->size);
	double secs;

	if (fd < 0 || buf == NULL || inet_pton(AF_INET, o->host, &sa.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("tcpbench: connect");
		return 1;
	}
	tb_nodelay(fd);
	if (tb_io(fd, &h, sizeof(h), true, false) != 0 || (secs = tb_run(fd, o, buf)) < 0) {
		fprintf(stderr, "tcpbench: the run failed\n");
		return 1;
	}
	printf("tcpbench:\n    test: %s\n    mode: %s\n    size: %u\n    iters: %llu\n"
	       "    seconds: %.6f\n",
	       names[o->test], o->busy ? "busy" : "blocking", o->size, (unsigned long long)o->iters,
	       secs);
	if (o->test == TB_LAT) {
		printf("    one_way_us: %.3f\n", secs * 1e6 / (double)o->iters / 2);
	} else {
		printf("    msgs_per_s: %.0f\n    mb_per_s: %.1f\n", (double)o->iters / secs,
		       (double)o->iters * o->size / secs / 1e6);
	}
	free(buf);
	close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'h' },
		{ "port", required_argument, NULL, 'p' },
		{ "test", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'i' },
		{ "inflight", required_argument, NULL, 'k' },
		{ "busy", no_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	struct tb_opts o = { .host = "127.0.0.1",
			     .port = 24999,
			     .test = TB_LAT,
			     .size = 8,
			     .iters = 10000,
			     .inflight = 64 };
	bool server;
	int c;

	if (argc < 2 || (strcmp(argv[1], "server") != 0 && strcmp(argv[1], "client") != 0)) {
		fprintf(stderr,
			"usage: tcpbench server|client [--host H] [--port P] "
			"[--test lat|bw|rate] [--size N] [--iters N] [--inflight K] [--busy]\n");
		return 2;
	}
	server = strcmp(argv[1], "server") == 0;
	while ((c = getopt_long(argc - 1, argv + 1, "", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			o.host = optarg;
			break;
		case 'p':
			o.port = (uint16_t)atoi(optarg);
			break;
		case 't':
			o.test = strcmp(optarg, "lat") == 0  ? TB_LAT :
				 strcmp(optarg, "bw") == 0   ? TB_BW :
				 strcmp(optarg, "rate") == 0 ? TB_RATE :
							       0;
			break;
		case 's':
			o.size = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'i':
			o.iters = strtoull(optarg, NULL, 10);
			break;
		case 'k':
			o.inflight = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'b':
			o.busy = true;
			break;
		default:
			return 2;
		}
	}
	if (o.test == 0 || o.size == 0 || o.size > (64u << 20) || o.iters == 0 || o.inflight == 0) {
		fprintf(stderr,
			"tcpbench: bad --test, --size (1..64 MiB), --iters or --inflight\n");
		return 2;
	}
	return server ? tb_server(&o) : tb_client(&o);
}
