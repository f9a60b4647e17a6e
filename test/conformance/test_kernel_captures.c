/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Conformance: every LNet header in the real kernel captures
 * (shared/captures/kernel/ *.pcap) decodes with our decoder, and encodes
 * back to the very same 72 bytes. TCP streams to/from port 988 are put
 * back together by sequence number, then walked as ksocklnd does: acceptor
 * connection request, V3 hello, then ksock_msg frames (lnet-facts §4).
 *
 *   test_kernel_captures CAPTURE_DIR
 * Exits 77 (skipped) when the directory is not there.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_wire.h"
#include "capstream.h"

#define KSOCK_MSG_NOOP 0xc0U
#define KSOCK_MSG_LNET 0xc1U
#define KSOCK_MSG_HDR 24U
#define HELLO_V3_SIZE 56U

struct tally {
	unsigned int headers;
	unsigned int noops;
	unsigned int by_type[5];
	unsigned int failures;
};

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

/* Walk one direction of a ksocklnd connection; check every LNet header. */
static void
walk_stream(const struct capstream_dir *s, struct tally *t, const char *name)
{
	size_t off = 0;

	if (s->len >= 16 && rd32(s->data) == LNET_PROTO_ACCEPTOR_MAGIC) {
		off = 16; /* connection request, from the connecting side only */
	}
	if (s->len < off + HELLO_V3_SIZE || rd32(s->data + off) != LNET_PROTO_MAGIC ||
	    rd32(s->data + off + 4) != 3) {
		return; /* not a V3 connection (or cut before the hello) */
	}
	off += HELLO_V3_SIZE + 4 * rd32(s->data + off + 52);
	while (off + KSOCK_MSG_HDR <= s->len) {
		uint32_t type = rd32(s->data + off);
		struct lnet_hdr h;
		uint8_t again[LNET_HDR_NID4_SIZE];
		int rc;

		if (type == KSOCK_MSG_NOOP) {
			t->noops++;
			off += KSOCK_MSG_HDR;
			continue;
		}
		if (type != KSOCK_MSG_LNET || off + KSOCK_MSG_HDR + LNET_HDR_NID4_SIZE > s->len) {
			break;
		}
		off += KSOCK_MSG_HDR;
		rc = lnet_hdr_decode_nid4(s->data + off, LNET_HDR_NID4_SIZE, &h);
		if (rc != 0 || lnet_hdr_encode_nid4(&h, again, sizeof(again)) != 0 ||
		    memcmp(again, s->data + off, sizeof(again)) != 0) {
			fprintf(stderr, "%s: header at stream offset %zu: %s\n", name, off,
				rc != 0 ? lnet_wire_strerror(rc) : "re-encoding differs");
			t->failures++;
			return;
		}
		t->headers++;
		t->by_type[h.type]++;
		off += LNET_HDR_NID4_SIZE + h.payload_length;
	}
}

static int
is_pcap(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && strcmp(d->d_name + n - 5, ".pcap") == 0;
}

int
main(int argc, char **argv)
{
	struct dirent **files;
	struct tally t = { 0 };
	int nfiles;
	int i;

	if (argc < 2 || (nfiles = scandir(argv[1], &files, is_pcap, alphasort)) < 0) {
		printf("captures not found: skipped\n");
		return 77;
	}
	for (i = 0; i < nfiles; i++) {
		static const uint16_t port = 988; /* the acceptor's */
		struct capstream_set set = { .ports = &port, .nports = 1 };
		char path[4096], err[PCAP_ERRBUF_SIZE];
		FILE *f;
		size_t j;

		snprintf(path, sizeof(path), "%s/%s", argv[1], files[i]->d_name);
		f = fopen(path, "rb");
		if (f == NULL || capstream_read(f, &set, err) != 0) {
			fprintf(stderr, "%s: cannot read\n", path);
			t.failures++;
		}
		for (j = 0; j < set.nconns; j++) {
			walk_stream(&set.conns[j].dir[0], &t, files[i]->d_name);
			walk_stream(&set.conns[j].dir[1], &t, files[i]->d_name);
		}
		capstream_free(&set);
		free(files[i]);
	}
	free(files);
	printf("kernel captures: %d files, %u LNet headers (ACK %u, PUT %u, GET %u, REPLY %u), "
	       "%u NOOPs, %u failures\n",
	       nfiles, t.headers, t.by_type[0], t.by_type[1], t.by_type[2], t.by_type[3], t.noops,
	       t.failures);
	return t.failures == 0 && t.headers > 0 ? 0 : 1;
}
