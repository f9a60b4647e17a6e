/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The checks of lnet-capcheck on reassembled TCP streams (capstream.h):
 * the acceptor request and hellos, ksock framing, checksums, LNet headers
 * against the protocol, and zero-copy ACK cookies, each finding with the
 * frame that carried it. The decoding is the node's own (ksock_proto,
 * lnet_wire), so bytes are judged as lnetd-pmd would judge them.
 */
#ifndef CAPCHECK_H
#define CAPCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capstream.h"

enum capcheck_level {
	CAPCHECK_INFO,    /**< what was seen: a request, a hello */
	CAPCHECK_NOTE,    /**< the capture lacks something: not the peers' fault */
	CAPCHECK_PROBLEM, /**< bytes that break the protocol */
};

struct capcheck_finding {
	size_t conn;
	int dir;
	uint64_t frame;
	enum capcheck_level level;
	const char *kind; /**< a short fixed name: "hello", "framing", "csum", ... */
	char text[240];
};

/** What one direction carried. */
struct capcheck_summary {
	uint64_t by_type[5]; /**< LNet messages by enum lnet_msg_type (HELLO last) */
	uint64_t noops;
	uint64_t zc_requests; /**< LNET messages asking for a zero-copy ACK */
	uint64_t bytes;       /**< stream bytes, holes included */
	uint64_t missing;     /**< bytes the capture lacks */
	uint32_t version;     /**< ksock protocol version; 0 unknown */
};

struct capcheck_report {
	struct capcheck_finding *findings;
	size_t nfindings, cap;
	struct capcheck_summary *sum; /**< [conn * 2 + dir] */
	size_t problems;
};

/** Check every stream of @p set into @p r (zeroed by the caller). */
void capcheck_run(const struct capstream_set *set, struct capcheck_report *r);

void capcheck_print_text(FILE *out, const char *name, const struct capstream_set *set,
			 const struct capcheck_report *r);
void capcheck_print_json(FILE *out, const char *name, const struct capstream_set *set,
			 const struct capcheck_report *r);

void capcheck_free(struct capcheck_report *r);

#endif /* CAPCHECK_H */
