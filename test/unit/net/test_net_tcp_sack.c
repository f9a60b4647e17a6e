/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/net/tcp's SACK pieces on their own (tcp_sack.c, through the
 * private tcp_internal.h): the sender's scoreboard and RFC 6675's IsLost,
 * pipe and NextSeg over it, and the receiver's RFC 2018 blocks with their
 * option bytes. No stack runs: test_net_tcp drives them end to end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tcp_internal.h"

#define MSS 100u
#define UNA 1000u

static void
assert_ranges(const struct tcp_sack_sb *sb, const uint32_t (*want)[2], unsigned int n)
{
	assert_int_equal(sb->n, n);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(sb->r[i].start, want[i][0]);
		assert_int_equal(sb->r[i].end, want[i][1]);
	}
}

static void
test_sb_add_merges(void **state)
{
	struct tcp_sack_sb sb = { 0 };

	(void)state;
	assert_int_equal(tcp_sb_add(&sb, 1400, 1500), 100);
	assert_int_equal(tcp_sb_add(&sb, 1200, 1300), 100);
	assert_int_equal(tcp_sb_add(&sb, 1600, 1700), 100);
	assert_ranges(&sb, (const uint32_t[][2]){ { 1200, 1300 }, { 1400, 1500 }, { 1600, 1700 } },
		      3);
	/* Again: nothing new. Touching on the left: one range grows. */
	assert_int_equal(tcp_sb_add(&sb, 1400, 1500), 0);
	assert_int_equal(tcp_sb_add(&sb, 1150, 1200), 50);
	assert_ranges(&sb, (const uint32_t[][2]){ { 1150, 1300 }, { 1400, 1500 }, { 1600, 1700 } },
		      3);
	/* One block over two holes: the three become one, 200 bytes new. */
	assert_int_equal(tcp_sb_add(&sb, 1250, 1650), 200);
	assert_ranges(&sb, (const uint32_t[][2]){ { 1150, 1700 } }, 1);
	/* Empty or reversed blocks are nothing. */
	assert_int_equal(tcp_sb_add(&sb, 1800, 1800), 0);
	assert_int_equal(tcp_sb_add(&sb, 1900, 1850), 0);
	assert_int_equal(sb.n, 1);
}

static void
test_sb_add_across_wrap(void **state)
{
	struct tcp_sack_sb sb = { 0 };

	(void)state;
	/* Sequence numbers wrap at 2^32: order is modular. */
	tcp_sb_add(&sb, 100, 200);
	tcp_sb_add(&sb, UINT32_MAX - 99, 50);
	assert_ranges(&sb, (const uint32_t[][2]){ { UINT32_MAX - 99, 50 }, { 100, 200 } }, 2);
	tcp_sb_add(&sb, 50, 100);
	assert_ranges(&sb, (const uint32_t[][2]){ { UINT32_MAX - 99, 200 } }, 1);
	assert_int_equal(tcp_sb_bytes(&sb), 300);
}

static void
test_sb_full_forgets_new_ranges(void **state)
{
	struct tcp_sack_sb sb = { 0 };

	(void)state;
	for (uint32_t i = 0; i < TCP_SB_MAX; i++) {
		assert_int_equal(tcp_sb_add(&sb, 2000 + 200 * i, 2100 + 200 * i), 100);
	}
	/* Full: a block that needs a new range is forgotten, one that grows a range is not. */
	assert_int_equal(tcp_sb_add(&sb, 1000, 1100), 0);
	assert_int_equal(sb.n, TCP_SB_MAX);
	assert_int_equal(tcp_sb_add(&sb, 2100, 2200), 100);
	assert_int_equal(sb.n, TCP_SB_MAX - 1);
}

static void
test_sb_ack_trims(void **state)
{
	struct tcp_sack_sb sb = { 0 };

	(void)state;
	tcp_sb_add(&sb, 1200, 1300);
	tcp_sb_add(&sb, 1400, 1500);
	tcp_sb_ack(&sb, 1250);
	assert_ranges(&sb, (const uint32_t[][2]){ { 1250, 1300 }, { 1400, 1500 } }, 2);
	tcp_sb_ack(&sb, 1300);
	assert_ranges(&sb, (const uint32_t[][2]){ { 1400, 1500 } }, 1);
	tcp_sb_ack(&sb, 1600);
	assert_int_equal(sb.n, 0);
}

/* una 1000, high 2000, SACKed 1200-1300, 1400-1500, 1600-1700 (MSS 100). */
static void
three_ranges(struct tcp_sack_sb *sb)
{
	memset(sb, 0, sizeof(*sb));
	tcp_sb_add(sb, 1200, 1300);
	tcp_sb_add(sb, 1400, 1500);
	tcp_sb_add(sb, 1600, 1700);
}

static void
test_is_lost(void **state)
{
	struct tcp_sack_sb sb = { 0 };

	(void)state;
	/* One range of one segment above: not lost. */
	tcp_sb_add(&sb, 1200, 1300);
	assert_false(tcp_sb_is_lost(&sb, UNA, MSS));
	/* Three discontiguous ranges above the first hole: lost (DupThresh ranges). */
	three_ranges(&sb);
	assert_true(tcp_sb_is_lost(&sb, UNA, MSS));
	assert_true(tcp_sb_is_lost(&sb, 1199, MSS));
	/* Two ranges, 200 bytes: not more than (DupThresh - 1) * SMSS. */
	assert_false(tcp_sb_is_lost(&sb, 1300, MSS));
	/* Above the highest SACK: never. */
	assert_false(tcp_sb_is_lost(&sb, 1800, MSS));
	/* One range of more than two segments: lost by bytes. */
	memset(&sb, 0, sizeof(sb));
	tcp_sb_add(&sb, 1100, 1301);
	assert_true(tcp_sb_is_lost(&sb, UNA, MSS));
}

static void
test_holes(void **state)
{
	struct tcp_sack_sb sb;
	struct tcp_sb_hole h[TCP_SB_MAX + 1];

	(void)state;
	three_ranges(&sb);
	assert_int_equal(tcp_sb_holes(&sb, UNA, 2000, MSS, h), 4);
	assert_int_equal(h[0].start, 1000);
	assert_int_equal(h[0].end, 1200);
	assert_true(h[0].lost && h[0].below_sack);
	assert_int_equal(h[1].start, 1300);
	assert_false(h[1].lost);
	assert_true(h[1].below_sack);
	assert_int_equal(h[3].start, 1700);
	assert_int_equal(h[3].end, 2000);
	assert_false(h[3].lost || h[3].below_sack);
	/* Everything up to high SACKed but the first hole: no tail. */
	assert_int_equal(tcp_sb_holes(&sb, UNA, 1700, MSS, h), 3);
}

static void
test_pipe(void **state)
{
	struct tcp_sack_sb sb;

	(void)state;
	three_ranges(&sb);
	/* Nothing sent again: the holes not lost (100 + 100 + 300). */
	assert_int_equal(tcp_sb_pipe(&sb, UNA, 2000, UNA, MSS), 500);
	/* The lost hole's first segment sent again counts once. */
	assert_int_equal(tcp_sb_pipe(&sb, UNA, 2000, 1100, MSS), 600);
	/* HighRxt past the second hole: it counts twice (not lost, and sent again). */
	assert_int_equal(tcp_sb_pipe(&sb, UNA, 2000, 1400, MSS), 800);
	/* No scoreboard: pipe is the flight. */
	memset(&sb, 0, sizeof(sb));
	assert_int_equal(tcp_sb_pipe(&sb, UNA, 2000, UNA, MSS), 1000);
}

static void
test_next_seg(void **state)
{
	struct tcp_sack_sb sb;
	uint32_t seq = 0, len = 0;

	(void)state;
	three_ranges(&sb);
	/* Rule 1: the lost hole, a segment at a time from HighRxt. */
	assert_true(tcp_sb_next_seg(&sb, UNA, 2000, UNA, MSS, true, &seq, &len));
	assert_int_equal(seq, 1000);
	assert_int_equal(len, 100);
	assert_true(tcp_sb_next_seg(&sb, UNA, 2000, 1100, MSS, true, &seq, &len));
	assert_int_equal(seq, 1100);
	assert_int_equal(len, 100);
	/* All of it sent again: no lost octet past HighRxt. */
	assert_false(tcp_sb_next_seg(&sb, UNA, 2000, 1200, MSS, true, &seq, &len));
	/* Rule 3: the next hole under a SACK, lost or not; never the tail. */
	assert_true(tcp_sb_next_seg(&sb, UNA, 2000, 1200, MSS, false, &seq, &len));
	assert_int_equal(seq, 1300);
	assert_int_equal(len, 100);
	assert_false(tcp_sb_next_seg(&sb, UNA, 2000, 1600, MSS, false, &seq, &len));
	/* A segment is at most MSS, cut at the hole's end. */
	memset(&sb, 0, sizeof(sb));
	tcp_sb_add(&sb, 1250, 1600);
	assert_true(tcp_sb_next_seg(&sb, UNA, 2000, 1200, MSS, true, &seq, &len));
	assert_int_equal(seq, 1200);
	assert_int_equal(len, 50);
}

/* ---- the receiver's blocks ---- */

static struct tcp_lcore g_lc;
static struct net_tcp g_t = { .lc = &g_lc };
static struct net_tcp_conn g_c;

static struct net_tcp_conn *
fresh_conn(bool ts)
{
	memset(&g_c, 0, sizeof(g_c));
	memset(&g_lc.stats, 0, sizeof(g_lc.stats));
	g_c.t = &g_t;
	g_c.sack_ok = true;
	g_c.ts_ok = ts;
	return &g_c;
}

static void
assert_blocks(const struct net_tcp_conn *c, const uint32_t (*want)[2], unsigned int n)
{
	assert_int_equal(c->rcv_sack_n, n);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(c->rcv_sack[i].start, want[i][0]);
		assert_int_equal(c->rcv_sack[i].end, want[i][1]);
	}
}

static void
test_rcv_blocks_latest_first(void **state)
{
	struct net_tcp_conn *c = fresh_conn(true);

	(void)state;
	c->rcv_nxt = 1000;
	for (uint32_t s = 1100; s <= 1500; s += 200) {
		tcp_sack_rcv_note(c, s, s + 100);
	}
	assert_blocks(c, (const uint32_t[][2]){ { 1500, 1600 }, { 1300, 1400 }, { 1100, 1200 } },
		      3);
	/* 1200-1300 joins the oldest two into one, which goes first. */
	tcp_sack_rcv_note(c, 1200, 1300);
	assert_blocks(c, (const uint32_t[][2]){ { 1100, 1400 }, { 1500, 1600 } }, 2);
	/* More than four: the oldest falls off. */
	for (uint32_t s = 1700; s <= 2100; s += 200) {
		tcp_sack_rcv_note(c, s, s + 100);
	}
	assert_blocks(c,
		      (const uint32_t[][2]){
			      { 2100, 2200 }, { 1900, 2000 }, { 1700, 1800 }, { 1100, 1400 } },
		      4);
	/* rcv_nxt passes the oldest and enters none: it goes. */
	c->rcv_nxt = 1400;
	tcp_sack_rcv_trim(c);
	assert_blocks(c, (const uint32_t[][2]){ { 2100, 2200 }, { 1900, 2000 }, { 1700, 1800 } },
		      3);
}

static void
test_rcv_block_bytes(void **state)
{
	struct net_tcp_conn *c = fresh_conn(false);
	uint8_t o[40];
	const uint8_t four[36] = {
		1, 1, 5,    34,                     /* NOP NOP SACK, 2 + 4 * 8 */
		0, 0, 0x08, 0x34, 0, 0, 0x08, 0x98, /* 2100-2200 */
		0, 0, 0x07, 0x6c, 0, 0, 0x07, 0xd0, /* 1900-2000 */
		0, 0, 0x06, 0xa4, 0, 0, 0x07, 0x08, /* 1700-1800 */
		0, 0, 0x05, 0xdc, 0, 0, 0x06, 0x40, /* 1500-1600 */
	};

	(void)state;
	assert_int_equal(tcp_sack_opts(c, o), 0);
	for (uint32_t s = 1500; s <= 2100; s += 200) {
		tcp_sack_rcv_note(c, s, s + 100);
	}
	/* Without timestamps all four fit. */
	assert_int_equal(tcp_sack_opts(c, o), sizeof(four));
	assert_memory_equal(o, four, sizeof(four));
	assert_int_equal(g_lc.stats.sack_blocks_tx, 4);
	/* Beside timestamps (12 bytes), three: the latest. */
	c->ts_ok = true;
	assert_int_equal(tcp_sack_opts(c, o), 28);
	assert_int_equal(o[3], 26);
	assert_memory_equal(&o[4], &four[4], 24);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sb_add_merges),
		cmocka_unit_test(test_sb_add_across_wrap),
		cmocka_unit_test(test_sb_full_forgets_new_ranges),
		cmocka_unit_test(test_sb_ack_trims),
		cmocka_unit_test(test_is_lost),
		cmocka_unit_test(test_holes),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_next_seg),
		cmocka_unit_test(test_rcv_blocks_latest_first),
		cmocka_unit_test(test_rcv_block_bytes),
	};

	return cmocka_run_group_tests_name("net_tcp_sack", tests, NULL, NULL);
}
