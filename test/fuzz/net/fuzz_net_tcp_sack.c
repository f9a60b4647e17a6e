/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SACK scoreboard (drivers/net/tcp/tcp_sack.c) under any sequence of
 * SACK blocks and cumulative ACKs. Each input is a run of 9-byte steps over
 * a flight of at most 64 KiB from a base sequence (the first 4 bytes, so
 * runs cross the 2^32 wrap): an op byte (bit 0: a cumulative ACK, else a
 * block) and two 32-bit offsets into the flight. After every step the
 * scoreboard must be ascending, apart, inside [una, high), and RFC 6675's
 * pipe and NextSeg must stay inside the flight.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcp_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FLIGHT (64u * 1024)
#define MSS 1448u

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_net_tcp_sack: %s\n", what);
	abort();
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void
check(const struct tcp_sack_sb *sb, uint32_t una, uint32_t high)
{
	struct tcp_sb_hole h[TCP_SB_MAX + 1];
	uint32_t seq, len, sacked = 0;
	unsigned int n;

	if (sb->n > TCP_SB_MAX) {
		fail("too many ranges");
	}
	for (uint8_t i = 0; i < sb->n; i++) {
		if (!SEQ_LT(sb->r[i].start, sb->r[i].end) || SEQ_LT(sb->r[i].start, una) ||
		    SEQ_GT(sb->r[i].end, high)) {
			fail("a range empty or outside the flight");
		}
		if (i > 0 && !SEQ_GT(sb->r[i].start, sb->r[i - 1].end)) {
			fail("ranges not ascending and apart");
		}
		sacked += sb->r[i].end - sb->r[i].start;
	}
	if (tcp_sb_bytes(sb) != sacked) {
		fail("bytes");
	}
	n = tcp_sb_holes(sb, una, high, MSS, h);
	for (unsigned int i = 0; i < n; i++) {
		sacked += h[i].end - h[i].start;
	}
	if (sacked != high - una) {
		fail("holes and ranges do not tile the flight");
	}
	if (tcp_sb_pipe(sb, una, high, una, MSS) > high - una ||
	    tcp_sb_pipe(sb, una, high, high, MSS) > 2 * (high - una)) {
		fail("pipe past the flight");
	}
	for (int lost = 0; lost < 2; lost++) {
		if (tcp_sb_next_seg(sb, una, high, una, MSS, lost != 0, &seq, &len) &&
		    (len == 0 || len > MSS || SEQ_LT(seq, una) || SEQ_GT(seq + len, high) ||
		     (lost && !tcp_sb_is_lost(sb, seq, MSS)))) {
			fail("NextSeg outside a hole");
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tcp_sack_sb sb = { 0 };
	uint32_t una, high;

	if (size < 4) {
		return 0;
	}
	una = get32(data);
	high = una + FLIGHT;
	for (size_t i = 4; i + 9 <= size; i += 9) {
		uint32_t a = get32(&data[i + 1]) % (FLIGHT + 1),
			 b = get32(&data[i + 5]) % (FLIGHT + 1);

		if (data[i] & 1) {
			una += RTE_MIN(a, high - una);
			tcp_sb_ack(&sb, una);
		} else {
			uint32_t start = una + a, end = SEQ_GT(una + b, high) ? high : una + b;

			if (SEQ_LT(start, end)) {
				tcp_sb_add(&sb, start, end);
			}
		}
		check(&sb, una, high);
	}
	return 0;
}
