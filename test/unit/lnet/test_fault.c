/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection rules (lnet_fault.c, lnet_fault_ctl.c): matching by NID,
 * net, wildcard, local NID, portal and message type; 1 in N per window and
 * once per interval on a fake clock, reproducible from a seed; health
 * errors on the send path and silent drops on receive; delays; counters,
 * reset, del, every refusal; lists retired through RCU; exactness with
 * threads matching at once; the control calls on a running instance.
 */
#include <pthread.h>

#include "lnet_fault.h"
#include "lnet_fault_ctl.h"
#include "lnet_ut.h"
#include "lnp_test_nid.h"
#include "rt.h"

#define US 1000000ULL

static struct lnet_nid
nid_on(uint32_t net_num, uint32_t addr)
{
	struct lnet_nid nid;

	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(LNET_LND_SOCK, net_num), addr), &nid);
	return nid;
}

static struct lnet_hdr
hdr_of(uint32_t type, struct lnet_nid src, struct lnet_nid dst, uint32_t portal)
{
	struct lnet_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = type;
	h.src_nid = src;
	h.dest_nid = dst;
	if (type == LNET_MSG_PUT) {
		h.msg.put.ptl_index = portal;
	} else if (type == LNET_MSG_GET) {
		h.msg.get.ptl_index = portal;
	}
	return h;
}

/* A rule from any to any, firing on every match (rate 1). */
static struct lnet_fault_attr
attr_any(void)
{
	struct lnet_fault_attr a;

	memset(&a, 0, sizeof(a));
	a.src = LNET_ANY_NID;
	a.dst = LNET_ANY_NID;
	a.local_nid = LNET_ANY_NID;
	a.rate = 1;
	return a;
}

static void
add_ok(struct lnet_fault *f, enum lnet_fault_kind kind, const struct lnet_fault_attr *a)
{
	char err[128] = "";

	assert_int_equal(lnet_fault_add(f, kind, a, 0, err, sizeof(err)), 0);
}

/* Receive-path drop (silent) of @p h with no local NID. */
static bool
drops(struct lnet_fault *f, const struct lnet_hdr *h)
{
	uint32_t rs = 1;

	return lnet_fault_drop_match(f, h, NULL, 0, &rs, NULL);
}

static struct lnet_fault_stat
stat_of(struct lnet_fault *f, enum lnet_fault_kind kind, unsigned int i)
{
	struct lnet_fault_info info;

	assert_int_equal(lnet_fault_list(f, kind, i, &info, 1), 1);
	return info.stat;
}

static void
test_match_nids(void **state)
{
	struct lnet_fault *f = lnet_fault_create(NULL, 1);
	struct lnet_nid a = lnp_tcp_nid(0x0a000001), b = lnp_tcp_nid(0x0a000002);
	struct lnet_nid c1 = nid_on(1, 0x0a000003);
	struct lnet_fault_attr at = attr_any();
	struct lnet_hdr h;
	uint32_t rs = 7;

	(void)state;
	assert_false(lnet_fault_any(f, LNET_FAULT_DROP));
	assert_false(drops(f, &(struct lnet_hdr){ .type = LNET_MSG_PUT }));
	at.src = a;
	assert_int_equal(lnet_fault_nid_parse("*@tcp1", &at.dst), 0);
	add_ok(f, LNET_FAULT_DROP, &at);
	assert_true(lnet_fault_any(f, LNET_FAULT_DROP));
	assert_false(lnet_fault_any(f, LNET_FAULT_DELAY));
	h = hdr_of(LNET_MSG_PUT, a, c1, 0);
	assert_true(drops(f, &h)); /* a -> any NID of tcp1 */
	h = hdr_of(LNET_MSG_PUT, b, c1, 0);
	assert_false(drops(f, &h)); /* another source */
	h = hdr_of(LNET_MSG_PUT, a, b, 0);
	assert_false(drops(f, &h)); /* a NID of tcp, not tcp1 */
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, NULL, NULL), 1);
	/* the local NID: given, it must be the NI's; a caller passing none never matches it */
	at = attr_any();
	at.local_nid = b;
	add_ok(f, LNET_FAULT_DROP, &at);
	h = hdr_of(LNET_MSG_GET, a, b, 3);
	assert_false(lnet_fault_drop_match(f, &h, NULL, 0, &rs, NULL));
	assert_false(lnet_fault_drop_match(f, &h, &a, 0, &rs, NULL));
	assert_true(lnet_fault_drop_match(f, &h, &b, 0, &rs, NULL));
	/* the wildcard rule (any, any) matches everything */
	at = attr_any();
	add_ok(f, LNET_FAULT_DROP, &at);
	h = hdr_of(LNET_MSG_REPLY, c1, a, 0);
	assert_true(drops(f, &h));
	lnet_fault_destroy(f);
	lnet_fault_destroy(NULL);
}

static void
test_match_portal_and_type(void **state)
{
	struct lnet_fault *f = lnet_fault_create(NULL, 1);
	struct lnet_nid a = lnp_tcp_nid(1), b = lnp_tcp_nid(2);
	struct lnet_fault_attr at = attr_any();
	struct lnet_fault_info info;
	struct lnet_hdr h;

	(void)state;
	at.msg_mask = LNET_FAULT_PUT_BIT | LNET_FAULT_ACK_BIT;
	add_ok(f, LNET_FAULT_DROP, &at);
	h = hdr_of(LNET_MSG_PUT, a, b, 9);
	assert_true(drops(f, &h));
	h = hdr_of(LNET_MSG_ACK, a, b, 0);
	assert_true(drops(f, &h));
	h = hdr_of(LNET_MSG_GET, a, b, 9);
	assert_false(drops(f, &h));
	h = hdr_of(LNET_MSG_HELLO, a, b, 0);
	assert_false(drops(f, &h));
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, &LNET_ANY_NID, &LNET_ANY_NID), 1);
	/* portals 4 and 63, every type given: only PUT and GET can carry a portal */
	at = attr_any();
	at.ptl_mask = (1ULL << 4) | (1ULL << 63);
	add_ok(f, LNET_FAULT_DROP, &at);
	assert_int_equal(lnet_fault_list(f, LNET_FAULT_DROP, 0, &info, 1), 1);
	assert_int_equal(info.attr.msg_mask, LNET_FAULT_PUT_BIT | LNET_FAULT_GET_BIT);
	h = hdr_of(LNET_MSG_PUT, a, b, 4);
	assert_true(drops(f, &h));
	h = hdr_of(LNET_MSG_GET, a, b, 63);
	assert_true(drops(f, &h));
	h = hdr_of(LNET_MSG_PUT, a, b, 5);
	assert_false(drops(f, &h));
	h = hdr_of(LNET_MSG_PUT, a, b, 68); /* past the mask: never */
	assert_false(drops(f, &h));
	h = hdr_of(LNET_MSG_ACK, a, b, 0);
	assert_false(drops(f, &h));
	h = hdr_of(LNET_MSG_REPLY, a, b, 0);
	assert_false(drops(f, &h));
	lnet_fault_destroy(f);
}

/* Which of @p n matches of a 1-in-@p rate rule seeded @p seed drop, as a bitmap. */
static void
rate_pattern(uint64_t seed, uint32_t rate, unsigned int n, uint8_t *dropped)
{
	struct lnet_fault *f = lnet_fault_create(NULL, seed);
	struct lnet_fault_attr at = attr_any();
	struct lnet_hdr h = hdr_of(LNET_MSG_PUT, lnp_tcp_nid(1), lnp_tcp_nid(2), 0);
	unsigned int i;

	at.rate = rate;
	add_ok(f, LNET_FAULT_DROP, &at);
	for (i = 0; i < n; i++) {
		dropped[i] = drops(f, &h);
	}
	assert_int_equal(stat_of(f, LNET_FAULT_DROP, 0).count, n);
	lnet_fault_destroy(f);
}

static void
test_rate_one_in_n(void **state)
{
	static uint8_t d1[1000], d2[1000], d3[1000];
	unsigned int w, i, positions = 0;

	(void)state;
	rate_pattern(42, 10, 1000, d1);
	for (w = 0; w < 100; w++) {
		unsigned int n = 0, at = 0;

		for (i = 0; i < 10; i++) {
			n += d1[w * 10 + i];
			at = d1[w * 10 + i] ? i : at;
		}
		assert_int_equal(n, 1); /* exactly one of each window of 10 */
		positions |= 1U << at;
	}
	assert_true(__builtin_popcount(positions) > 5); /* at random places in the windows */
	rate_pattern(42, 10, 1000, d2);
	assert_memory_equal(d1, d2, sizeof(d1)); /* the same seed, the same drops */
	rate_pattern(43, 10, 1000, d3);
	assert_memory_not_equal(d1, d3, sizeof(d1)); /* another seed, other places */
	rate_pattern(9, 1, 50, d1);
	for (i = 0; i < 50; i++) {
		assert_true(d1[i]); /* rate 1: every message */
	}
	for (i = 1; i < 30; i++) {
		rate_pattern(i, 2, 2, d1);
		assert_true(d1[0] && !d1[1]); /* 1 in 2: the first, as the kernel's */
	}
}

static void
test_interval_fake_clock(void **state)
{
	struct lnet_fault *f = lnet_fault_create(NULL, 5);
	struct lnet_fault_attr at = attr_any();
	struct lnet_hdr h = hdr_of(LNET_MSG_GET, lnp_tcp_nid(1), lnp_tcp_nid(2), 1);
	uint64_t t0 = 1000 * US;
	uint64_t t;
	uint32_t rs = 3;
	unsigned int per_window[12] = { 0 };
	unsigned int w;

	(void)state;
	at.rate = 0;
	at.interval = 5;
	assert_int_equal(lnet_fault_add(f, LNET_FAULT_DROP, &at, t0, NULL, 0), 0);
	/* a message every 10 ms for a minute: one drop in each 5 s window from the add */
	for (t = t0; t < t0 + 60 * US; t += 10000) {
		if (lnet_fault_drop_match(f, &h, NULL, t, &rs, NULL)) {
			per_window[(t - t0) / (5 * US)]++;
		}
	}
	for (w = 0; w < 12; w++) {
		assert_int_equal(per_window[w], 1);
	}
	assert_int_equal(stat_of(f, LNET_FAULT_DROP, 0).count, 6000);
	assert_int_equal(stat_of(f, LNET_FAULT_DROP, 0).fired, 12);
	/* silence through window 14 and the start of 15: its first message drops at once... */
	t = t0 + 75 * US;
	assert_true(lnet_fault_drop_match(f, &h, NULL, t, &rs, NULL));
	/* ...and no other until window 16 */
	for (t += 10000; t < t0 + 80 * US; t += 10000) {
		assert_false(lnet_fault_drop_match(f, &h, NULL, t, &rs, NULL));
	}
	/* reset: counters zero, windows start again from the reset */
	lnet_fault_reset(f, LNET_FAULT_DROP, t0 + 200 * US);
	assert_int_equal(stat_of(f, LNET_FAULT_DROP, 0).fired, 0);
	memset(per_window, 0, sizeof(per_window));
	for (t = t0 + 200 * US; t < t0 + 210 * US; t += 10000) {
		if (lnet_fault_drop_match(f, &h, NULL, t, &rs, NULL)) {
			per_window[(t - t0 - 200 * US) / (5 * US)]++;
		}
	}
	assert_int_equal(per_window[0], 1);
	assert_int_equal(per_window[1], 1);
	lnet_fault_destroy(f);
}

/* The send path: only rules with a health error fire, and say which status. */
static void
test_health_error(void **state)
{
	struct lnet_fault *f = lnet_fault_create(NULL, 1);
	struct lnet_fault_attr at = attr_any();
	struct lnet_hdr h = hdr_of(LNET_MSG_PUT, lnp_tcp_nid(1), lnp_tcp_nid(2), 0);
	enum lnet_msg_hstatus hs = LNET_MSG_STATUS_END;
	uint32_t rs = 11, seen = 0;
	unsigned int i;

	(void)state;
	add_ok(f, LNET_FAULT_DROP, &at); /* silent: receive only */
	assert_false(lnet_fault_drop_match(f, &h, NULL, 0, &rs, &hs));
	assert_int_equal(hs, LNET_MSG_STATUS_OK);
	assert_true(lnet_fault_drop_match(f, &h, NULL, 0, &rs, NULL));
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, NULL, NULL), 1);
	at.health_mask = 1U << LNET_MSG_STATUS_LOCAL_ERROR;
	add_ok(f, LNET_FAULT_DROP, &at);
	assert_false(lnet_fault_drop_match(f, &h, NULL, 0, &rs, NULL)); /* not on receive */
	for (i = 0; i < 50; i++) {
		assert_true(lnet_fault_drop_match(f, &h, NULL, 0, &rs, &hs));
		assert_int_equal(hs, LNET_MSG_STATUS_LOCAL_ERROR);
	}
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, NULL, NULL), 1);
	/* two statuses: every pick is one of them; both come up */
	at.health_mask =
		(1U << LNET_MSG_STATUS_LOCAL_DROPPED) | (1U << LNET_MSG_STATUS_REMOTE_DROPPED);
	add_ok(f, LNET_FAULT_DROP, &at);
	for (i = 0; i < 200; i++) {
		assert_true(lnet_fault_drop_match(f, &h, NULL, 0, &rs, &hs));
		assert_true((at.health_mask & (1U << hs)) != 0);
		seen |= 1U << hs;
	}
	assert_int_equal(seen, at.health_mask);
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, NULL, NULL), 1);
	/* "random": any failed status */
	at.health_mask = LNET_FAULT_HSTATUS_RANDOM;
	add_ok(f, LNET_FAULT_DROP, &at);
	for (seen = 0, i = 0; i < 500; i++) {
		assert_true(lnet_fault_drop_match(f, &h, NULL, 0, &rs, &hs));
		assert_true(hs > LNET_MSG_STATUS_OK && hs < LNET_MSG_STATUS_END);
		seen |= 1U << hs;
	}
	assert_int_equal(seen, LNET_FAULT_HSTATUS_ALL);
	lnet_fault_destroy(f);
}

/* drop_all fires on both paths, rate aside; a random rule on about half the matches. */
static void
test_drop_all_and_random(void **state)
{
	struct lnet_fault *f = lnet_fault_create(NULL, 1);
	struct lnet_fault_attr at = attr_any();
	struct lnet_hdr h = hdr_of(LNET_MSG_ACK, lnp_tcp_nid(1), lnp_tcp_nid(2), 0);
	enum lnet_msg_hstatus hs;
	uint32_t rs = 99;
	unsigned int i, n = 0;

	(void)state;
	at.rate = 1000;
	at.drop_all = true;
	add_ok(f, LNET_FAULT_DROP, &at);
	for (i = 0; i < 20; i++) {
		assert_true(lnet_fault_drop_match(f, &h, NULL, 0, &rs, NULL));
		assert_true(lnet_fault_drop_match(f, &h, NULL, 0, &rs, &hs));
		assert_true(hs > LNET_MSG_STATUS_OK && hs < LNET_MSG_STATUS_END);
	}
	assert_int_equal(stat_of(f, LNET_FAULT_DROP, 0).fired, 40);
	assert_int_equal(stat_of(f, LNET_FAULT_DROP, 0).ack, 40);
	assert_int_equal(stat_of(f, LNET_FAULT_DROP, 0).count,
			 0); /* the kernel counts only rate and interval */
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, NULL, NULL), 1);
	at = attr_any();
	at.rate = 0;
	at.interval = 10;
	at.random = true;
	add_ok(f, LNET_FAULT_DROP, &at);
	for (i = 0; i < 1000; i++) {
		n += lnet_fault_drop_match(f, &h, NULL, 0, &rs, NULL);
	}
	assert_in_range(n, 400, 600);
	lnet_fault_destroy(f);
}

static void
test_counters_reset_del(void **state)
{
	struct lnet_fault *f = lnet_fault_create(NULL, 1);
	struct lnet_nid a = lnp_tcp_nid(1), b = lnp_tcp_nid(2), c = lnp_tcp_nid(3);
	struct lnet_fault_attr at = attr_any();
	struct lnet_fault_info info[4];
	static const uint32_t types[] = { LNET_MSG_PUT, LNET_MSG_ACK, LNET_MSG_GET,
					  LNET_MSG_REPLY };
	struct lnet_fault_stat s;
	unsigned int i;

	(void)state;
	at.src = a;
	at.dst = b;
	add_ok(f, LNET_FAULT_DROP, &at);
	at.dst = c;
	add_ok(f, LNET_FAULT_DROP, &at);
	at.src = b;
	add_ok(f, LNET_FAULT_DROP, &at);
	for (i = 0; i < 8; i++) {
		struct lnet_hdr h = hdr_of(types[i % 4], a, b, 0);

		assert_true(drops(f, &h));
	}
	s = stat_of(f, LNET_FAULT_DROP, 2); /* the oldest rule, listed last */
	assert_int_equal(s.count, 8);
	assert_int_equal(s.fired, 8);
	assert_true(s.put == 2 && s.ack == 2 && s.get == 2 && s.reply == 2);
	assert_int_equal(stat_of(f, LNET_FAULT_DROP, 0).count, 0);
	/* newest first, as the kernel lists them */
	assert_int_equal(lnet_fault_list(f, LNET_FAULT_DROP, 0, info, 4), 3);
	assert_true(lnet_nid_same(&info[0].attr.src, &b) && lnet_nid_same(&info[2].attr.dst, &b));
	assert_int_equal(lnet_fault_list(f, LNET_FAULT_DROP, 2, info, 4), 1);
	assert_int_equal(lnet_fault_list(f, LNET_FAULT_DROP, 3, info, 4), 0);
	lnet_fault_reset(f, LNET_FAULT_DROP, 0);
	s = stat_of(f, LNET_FAULT_DROP, 2);
	assert_true(s.count == 0 && s.fired == 0 && s.put == 0 && s.reply == 0);
	/* del: by source and destination, either one alone, -ENOENT for none */
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, &a, &a), -ENOENT);
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, &a, &c), 1);
	assert_int_equal(lnet_fault_count(f, LNET_FAULT_DROP), 2);
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, NULL, &c), 1);
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, &a, NULL), 1);
	assert_int_equal(lnet_fault_count(f, LNET_FAULT_DROP), 0);
	assert_false(lnet_fault_any(f, LNET_FAULT_DROP));
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, NULL, NULL), -ENOENT);
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DELAY, NULL, NULL), -ENOENT);
	lnet_fault_destroy(f);
}

static void
test_delay_latency(void **state)
{
	struct lnet_fault *f = lnet_fault_create(NULL, 8);
	struct lnet_fault_attr at = attr_any();
	struct lnet_hdr h = hdr_of(LNET_MSG_PUT, lnp_tcp_nid(1), lnp_tcp_nid(2), 0);
	unsigned int i, n = 0;

	(void)state;
	at.rate = 3;
	at.latency = 4;
	add_ok(f, LNET_FAULT_DELAY, &at);
	assert_false(drops(f, &h)); /* a delay rule drops nothing */
	for (i = 0; i < 300; i++) {
		uint64_t d = lnet_fault_delay_match(f, &h, NULL, 0);

		assert_true(d == 0 || d == 4 * US);
		n += d != 0;
	}
	assert_int_equal(n, 100);
	assert_int_equal(stat_of(f, LNET_FAULT_DELAY, 0).fired, 100);
	assert_int_equal(stat_of(f, LNET_FAULT_DELAY, 0).put, 100);
	h.type = LNET_MSG_GET;
	at.rate = 1;
	at.latency = 1;
	at.msg_mask = LNET_FAULT_GET_BIT;
	add_ok(f, LNET_FAULT_DELAY, &at); /* newest first: this one decides GETs */
	assert_int_equal(lnet_fault_delay_match(f, &h, NULL, 0), US);
	assert_int_equal(lnet_fault_delay_match(NULL, &h, NULL, 0), 0);
	lnet_fault_destroy(f);
}

static void
add_refused(struct lnet_fault *f, enum lnet_fault_kind kind, const struct lnet_fault_attr *a,
	    const char *why)
{
	char err[128] = "";

	assert_int_equal(lnet_fault_add(f, kind, a, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, why));
}

static void
test_bad_input(void **state)
{
	struct lnet_fault *f = lnet_fault_create(NULL, 1);
	struct lnet_fault_attr at = attr_any();
	struct lnet_nid nid;
	char err[128];
	unsigned int i;

	(void)state;
	at.interval = 5;
	add_refused(f, LNET_FAULT_DROP, &at, "rate or an interval");
	at.rate = at.interval = 0;
	add_refused(f, LNET_FAULT_DROP, &at, "rate or an interval");
	at = attr_any();
	at.msg_mask = 0x10; /* HELLO */
	add_refused(f, LNET_FAULT_DROP, &at, "message type");
	at = attr_any();
	at.health_mask = 1U << 11;
	add_refused(f, LNET_FAULT_DROP, &at, "health status");
	at = attr_any();
	at.random = true;
	add_refused(f, LNET_FAULT_DROP, &at, "needs an interval");
	at = attr_any();
	at.latency = 2;
	add_refused(f, LNET_FAULT_DROP, &at, "delay rules");
	at = attr_any();
	at.ptl_mask = 1;
	at.msg_mask = LNET_FAULT_ACK_BIT | LNET_FAULT_REPLY_BIT;
	add_refused(f, LNET_FAULT_DROP, &at, "only PUT and GET");
	at = attr_any();
	add_refused(f, LNET_FAULT_DELAY, &at, "needs a latency");
	at.latency = 1;
	at.health_mask = 2;
	add_refused(f, LNET_FAULT_DELAY, &at, "drop rules");
	at.health_mask = 0;
	at.drop_all = true;
	add_refused(f, LNET_FAULT_DELAY, &at, "drop rules");
	at = attr_any();
	assert_int_equal(lnet_fault_add(f, LNET_FAULT_DROP, &at, 0, NULL, 0), 0); /* err optional */
	for (i = 1; i < LNET_FAULT_MAX_RULES; i++) {
		add_ok(f, LNET_FAULT_DROP, &at);
	}
	assert_int_equal(lnet_fault_add(f, LNET_FAULT_DROP, &at, 0, err, sizeof(err)), -ENOSPC);
	assert_int_equal(lnet_fault_count(f, LNET_FAULT_DROP), LNET_FAULT_MAX_RULES);
	/* rule NIDs as lnetctl and the kernel take them */
	assert_int_equal(lnet_fault_nid_parse("*", &nid), 0);
	assert_true(lnet_nid_is_any(&nid));
	assert_int_equal(lnet_fault_nid_parse("<?>", &nid), 0);
	assert_true(lnet_nid_is_any(&nid));
	assert_int_equal(lnet_fault_nid_parse("*@o2ib3", &nid), 0);
	assert_string_equal(libcfs_nidstr(&nid), "255.255.255.255@o2ib3");
	assert_int_equal(lnet_fault_nid_parse("255.255.255.255@tcp", &nid), 0);
	assert_int_equal(nid.nid_addr[0], LNET_ADDR_ANY);
	assert_int_equal(lnet_fault_nid_parse("10.1.2.3@tcp", &nid), 0);
	assert_int_equal(lnet_fault_nid_parse("*@", &nid), -EINVAL);
	assert_int_equal(lnet_fault_nid_parse("*@bogus", &nid), -EINVAL);
	assert_int_equal(lnet_fault_nid_parse("10.1.2@tcp", &nid), -EINVAL);
	assert_int_equal(lnet_fault_nid_parse("", &nid), -EINVAL);
	assert_int_equal(lnet_fault_nid_parse(NULL, &nid), -EINVAL);
	lnet_fault_destroy(f);
}

static int
rand_zero_state(void)
{
	uint32_t s = 0;

	return lnet_fault_rand(&s) != 0 && s != 0;
}

/* With a runtime, replaced lists and deleted rules wait for every lcore's quiescent state. */
static void
test_rcu_retire(void **state)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_SIM, .n_data = 2 };
	struct rt_runtime *rt = NULL;
	struct lnet_fault *f;
	struct lnet_fault_attr at = attr_any();
	struct lnet_hdr h = hdr_of(LNET_MSG_PUT, lnp_tcp_nid(1), lnp_tcp_nid(2), 0);

	(void)state;
	assert_true(rand_zero_state());
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	f = lnet_fault_create(rt, 0);
	assert_non_null(f);
	add_ok(f, LNET_FAULT_DROP, &at);
	assert_int_equal(rt_rcu_pending(rt), 0); /* nothing replaced yet */
	add_ok(f, LNET_FAULT_DROP, &at);
	assert_int_equal(rt_rcu_pending(rt), 1); /* the one-rule list */
	assert_int_equal(lnet_fault_del(f, LNET_FAULT_DROP, NULL, NULL), 2);
	assert_int_equal(rt_rcu_pending(rt), 4); /* two rules and the two-rule list */
	assert_false(drops(f, &h));
	rt_lcore_poll(rt_mgmt_lcore(rt));
	rt_lcore_poll(rt_data_lcore(rt, 0));
	rt_lcore_poll(rt_mgmt_lcore(rt));
	assert_int_equal(rt_rcu_pending(rt), 4); /* data lcore 1 may still read them */
	rt_lcore_poll(rt_data_lcore(rt, 1));
	rt_lcore_poll(rt_mgmt_lcore(rt));
	assert_int_equal(rt_rcu_pending(rt), 0);
	add_ok(f, LNET_FAULT_DELAY, &(struct lnet_fault_attr){ .rate = 1, .latency = 1 });
	lnet_fault_destroy(f); /* frees what is published */
	rt_runtime_destroy(rt);
}

struct hammer {
	struct lnet_fault *f;
	unsigned int n;
	unsigned int dropped;
};

static void *
hammer_run(void *arg)
{
	struct hammer *h = arg;
	struct lnet_hdr hdr = hdr_of(LNET_MSG_PUT, lnp_tcp_nid(1), lnp_tcp_nid(2), 0);
	uint32_t rs = (uint32_t)(uintptr_t)arg;
	unsigned int i;

	for (i = 0; i < h->n; i++) {
		h->dropped += lnet_fault_drop_match(h->f, &hdr, NULL, 0, &rs, NULL);
	}
	return NULL;
}

/* Four threads matching one rule at once, no lock: still exactly 1 of every 10. */
static void
test_concurrent_rate(void **state)
{
	struct lnet_fault *f = lnet_fault_create(NULL, 77);
	struct lnet_fault_attr at = attr_any();
	struct hammer h[4];
	pthread_t t[4];
	unsigned int i, total = 0;

	(void)state;
	at.rate = 10;
	add_ok(f, LNET_FAULT_DROP, &at);
	for (i = 0; i < 4; i++) {
		h[i] = (struct hammer){ f, 25000, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, hammer_run, &h[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		total += h[i].dropped;
	}
	assert_int_equal(total, 10000);
	assert_int_equal(stat_of(f, LNET_FAULT_DROP, 0).count, 100000);
	assert_int_equal(stat_of(f, LNET_FAULT_DROP, 0).fired, 10000);
	assert_int_equal(stat_of(f, LNET_FAULT_DROP, 0).put, 10000);
	lnet_fault_destroy(f);
}

/* The daemon's calls, on a running instance; none without one. */
static void
test_ctl_round_trip(void **state)
{
	struct lnet_fault_attr at = attr_any();
	struct lnet_fault_info info[2];
	unsigned int total = 99;
	char err[128] = "";

	(void)state;
	at.src = lnp_tcp_nid(5);
	at.dst = lnp_tcp_nid(6);
	assert_int_equal(lnet_fault_ctl_list(LNET_FAULT_DROP, 0, info, 2, &total), 0);
	assert_int_equal(total, 0);
	assert_int_equal(lnet_fault_ctl_add(LNET_FAULT_DROP, &at, err, sizeof(err)), 0);
	at.latency = 3;
	assert_int_equal(lnet_fault_ctl_add(LNET_FAULT_DROP, &at, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "delay rules"));
	assert_int_equal(lnet_fault_ctl_add(LNET_FAULT_DELAY, &at, err, sizeof(err)), 0);
	assert_int_equal(lnet_fault_ctl_list(LNET_FAULT_DROP, 0, info, 2, &total), 1);
	assert_int_equal(total, 1);
	assert_true(lnet_nid_same(&info[0].attr.src, &at.src));
	assert_int_equal(info[0].attr.msg_mask, LNET_FAULT_MSG_ALL);
	assert_int_equal(lnet_fault_ctl_reset(LNET_FAULT_DROP), 0);
	assert_int_equal(lnet_fault_ctl_del(LNET_FAULT_DROP, &at.dst, NULL), -ENOENT);
	assert_int_equal(lnet_fault_ctl_del(LNET_FAULT_DROP, &at.src, &at.dst), 1);
	assert_int_equal(lnet_fault_ctl_del(LNET_FAULT_DELAY, NULL, NULL), 1);
	assert_int_equal(lnet_fault_ctl_list(LNET_FAULT_DELAY, 0, info, 2, &total), 0);
	ut_down();
	assert_int_equal(lnet_fault_ctl_add(LNET_FAULT_DROP, &at, err, sizeof(err)), -ENETDOWN);
	assert_int_equal(lnet_fault_ctl_del(LNET_FAULT_DROP, NULL, NULL), -ENETDOWN);
	assert_int_equal(lnet_fault_ctl_reset(LNET_FAULT_DROP), -ENETDOWN);
	assert_int_equal(lnet_fault_ctl_list(LNET_FAULT_DROP, 0, info, 2, &total), -ENETDOWN);
	ut_up(1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_nids),
		cmocka_unit_test(test_match_portal_and_type),
		cmocka_unit_test(test_rate_one_in_n),
		cmocka_unit_test(test_interval_fake_clock),
		cmocka_unit_test(test_health_error),
		cmocka_unit_test(test_drop_all_and_random),
		cmocka_unit_test(test_counters_reset_del),
		cmocka_unit_test(test_delay_latency),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_rcu_retire),
		cmocka_unit_test(test_concurrent_rate),
		cmocka_unit_test_setup_teardown(test_ctl_round_trip, ut_setup1, ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
