/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnet-capcheck: judge the LNet traffic in a capture (pcap or pcapng,
 * gzip-compressed or not) the way the node would, and say, frame by frame,
 * what breaks the protocol. See doc/lnet-capcheck.1.
 *   exit 0: clean; 1: problems found; 2: a capture could not be read
 */
#include <getopt.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "capcheck.h"
#include "capstream.h"

#define MAX_PORTS 16

static ssize_t
gz_read(void *cookie, char *buf, size_t len)
{
	int n = gzread(cookie, buf, len > (1U << 30) ? (1U << 30) : (unsigned int)len);

	return n < 0 ? -1 : n;
}

static int
gz_close(void *cookie)
{
	return gzclose(cookie) == Z_OK ? 0 : -1;
}

/* The capture as a stream of bytes: zlib reads plain files through unchanged. */
static FILE *
open_capture(const char *path)
{
	static const cookie_io_functions_t gz_io = { .read = gz_read, .close = gz_close };
	gzFile gz = gzopen(path, "rb");
	FILE *f;

	if (gz == NULL) {
		return NULL;
	}
	f = fopencookie(gz, "rb", gz_io);
	if (f == NULL) {
		gzclose(gz);
	}
	return f;
}

/* 0 clean, 1 problems, 2 unreadable. */
static int
check_file(const char *path, const uint16_t *ports, size_t nports, bool json)
{
	struct capstream_set set = { .ports = ports, .nports = nports };
	struct capcheck_report r = { 0 };
	char err[PCAP_ERRBUF_SIZE];
	FILE *f = open_capture(path);
	int rc;

	if (f == NULL) {
		perror(path);
		return 2;
	}
	if (capstream_read(f, &set, err) != 0) {
		fprintf(stderr, "%s: %s\n", path, err);
		return 2;
	}
	if (err[0] != '\0') {
		fprintf(stderr, "%s: read up to frame %" PRIu64 ": %s\n", path, set.frames, err);
	}
	capcheck_run(&set, &r);
	if (json) {
		capcheck_print_json(stdout, path, &set, &r);
	} else {
		capcheck_print_text(stdout, path, &set, &r);
	}
	rc = r.problems != 0 ? 1 : 0;
	capcheck_free(&r);
	capstream_free(&set);
	return rc;
}

static void
usage(FILE *out)
{
	fprintf(out, "usage: lnet-capcheck [--json] [--port N]... CAPTURE...\n"
		     "Check the LNet (ksocklnd) traffic in pcap/pcapng captures, .gz too.\n"
		     "  --port N  also an LNet port (988 always is)\n"
		     "  --json    one JSON object per capture\n"
		     "Exit: 0 clean, 1 problems found, 2 a capture unreadable.\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint16_t ports[MAX_PORTS] = { 988 };
	size_t nports = 1;
	bool json = false;
	int opt, i, worst = 0;

	while ((opt = getopt_long(argc, argv, "jp:h", opts, NULL)) != -1) {
		char *end;
		unsigned long v;

		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'p':
			v = strtoul(optarg, &end, 10);
			if (*end != '\0' || v == 0 || v > 65535 || nports == MAX_PORTS) {
				fprintf(stderr, "lnet-capcheck: bad or too many --port: %s\n",
					optarg);
				return 2;
			}
			ports[nports++] = (uint16_t)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		int rc = check_file(argv[i], ports, nports, json);

		worst = rc > worst ? rc : worst;
	}
	return worst;
}
