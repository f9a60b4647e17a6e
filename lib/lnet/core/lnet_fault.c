/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection rules (lnet_fault.h). A kind's rules are an array copied
 * on every change and published whole, so a data lcore walks a list nobody
 * writes. Rules are separate objects the copies point to: a rule keeps its
 * counters and window state while others are added or deleted.
 *
 * Firing is decided without a lock. The kernel keeps "the next message to
 * drop" under a spinlock per rule; here a rule's position in each window is
 * a function of the window's number and the rule's seed, so any lcore
 * computes it and exactly one match per window fires whatever the
 * interleaving.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "cfs.h"
#include "lnet_fault.h"
#include "rt.h"

RTE_LOG_REGISTER_SUFFIX(lnet_fault_logtype, fault, NOTICE);
#define FAULT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, lnet_fault_logtype, "lnet.fault: " fmt "\n", ##__VA_ARGS__)

_Static_assert(LNET_FAULT_ACK_BIT == 1U << LNET_MSG_ACK, "message bits follow the types");
_Static_assert(LNET_FAULT_PUT_BIT == 1U << LNET_MSG_PUT, "message bits follow the types");
_Static_assert(LNET_FAULT_GET_BIT == 1U << LNET_MSG_GET, "message bits follow the types");
_Static_assert(LNET_FAULT_REPLY_BIT == 1U << LNET_MSG_REPLY, "message bits follow the types");
_Static_assert(LNET_FAULT_HSTATUS_ALL == ((1U << LNET_MSG_STATUS_END) - 2U),
	       "health bits are the failed statuses");

#define FAULT_GOLDEN 0x9e3779b97f4a7c15ULL /* splitmix64's increment */

struct lnet_fault_rule {
	struct lnet_fault_attr attr; /* immutable once published */
	uint64_t seed;               /* atomic: where each window fires */
	uint64_t base_us;            /* atomic: start of interval window 0 */
	int64_t last_window;         /* atomic: interval window last fired in, -1: none */
	struct lnet_fault_stat stat; /* atomic counters */
};

struct lnet_fault_list {
	unsigned int n;
	struct lnet_fault_rule *rules[]; /* match order: newest first */
};

struct lnet_fault {
	struct rt_runtime *rt;                           /* NULL: single-threaded, free at once */
	uint64_t prng;                                   /* management lcore: seeds rules */
	struct lnet_fault_list *lists[LNET_FAULT_KINDS]; /* RCU-published; NULL: empty */
};

static uint64_t
fault_ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void
fault_st(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static uint64_t
fault_inc(uint64_t *p)
{
	return __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
}

/* splitmix64's output function: scrambles a counter into a random-looking word. */
static uint64_t
fault_mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Where in window @p w (of @p span units) a rule with @p seed fires. */
static uint64_t
fault_window_pos(uint64_t seed, uint64_t w, uint64_t span)
{
	return fault_mix(seed + fault_mix(w * FAULT_GOLDEN + 1)) % span;
}

static uint64_t
fault_next_seed(struct lnet_fault *f)
{
	f->prng += FAULT_GOLDEN;
	return fault_mix(f->prng);
}

uint32_t
lnet_fault_rand(uint32_t *state)
{
	uint32_t x = *state != 0 ? *state : 0x2545f491U;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Uniform in [0, n). */
static uint32_t
fault_below(uint32_t *state, uint32_t n)
{
	return (uint32_t)(((uint64_t)lnet_fault_rand(state) * n) >> 32);
}

static struct lnet_fault_list *
fault_list_get(const struct lnet_fault *f, enum lnet_fault_kind kind)
{
	return rt_rcu_read((void *const *)&f->lists[kind]);
}

struct lnet_fault *
lnet_fault_create(struct rt_runtime *rt, uint64_t seed)
{
	struct lnet_fault *f = calloc(1, sizeof(*f));

	if (f != NULL) {
		f->rt = rt;
		f->prng = seed != 0 ? seed : 0x6c6e6574U; /* "lnet" */
	}
	return f;
}

static void
fault_list_free(struct lnet_fault_list *l)
{
	unsigned int i;

	for (i = 0; l != NULL && i < l->n; i++) {
		free(l->rules[i]);
	}
	free(l);
}

void
lnet_fault_destroy(struct lnet_fault *f)
{
	unsigned int k;

	if (f == NULL) {
		return;
	}
	for (k = 0; k < LNET_FAULT_KINDS; k++) {
		fault_list_free(f->lists[k]);
	}
	free(f);
}

/* Free @p obj once no lcore can still be reading it. */
static void
fault_retire(struct lnet_fault *f, void *obj)
{
	if (obj == NULL) {
		return;
	}
	if (f->rt == NULL) {
		free(obj);
		return;
	}
	if (rt_rcu_retire(f->rt, obj, free) != 0) {
		/* Cannot defer: leak it rather than free it under a reader. */
		FAULT_LOG(WARNING, "cannot retire a replaced rule or list; it is kept");
	}
}

/* @p rc, with @p msg in @p err when the caller gave room for it. */
static int
fault_fail(int rc, char *err, size_t errlen, const char *msg)
{
	if (err != NULL && errlen > 0) {
		snprintf(err, errlen, "%s", msg);
	}
	return rc;
}

static int
fault_err(char *err, size_t errlen, const char *msg)
{
	return fault_fail(-EINVAL, err, errlen, msg);
}

/* What both kinds require: one trigger, known message types. */
static int
fault_check_common(const struct lnet_fault_attr *a, char *err, size_t errlen)
{
	if ((a->rate == 0) == (a->interval == 0)) {
		return fault_err(err, errlen, "give either a rate or an interval, not both");
	}
	if ((a->msg_mask & ~LNET_FAULT_MSG_ALL) != 0) {
		return fault_err(err, errlen, "unknown message type bits");
	}
	return 0;
}

static int
fault_check_kind(enum lnet_fault_kind kind, const struct lnet_fault_attr *a, char *err,
		 size_t errlen)
{
	if (kind == LNET_FAULT_DELAY) {
		if (a->latency == 0) {
			return fault_err(err, errlen, "a delay rule needs a latency");
		}
		if (a->health_mask != 0 || a->random || a->drop_all) {
			return fault_err(err, errlen,
					 "health_error, random and drop_all belong to drop rules");
		}
		return 0;
	}
	if (a->latency != 0) {
		return fault_err(err, errlen, "latency belongs to delay rules");
	}
	if (a->health_mask != LNET_FAULT_HSTATUS_RANDOM &&
	    (a->health_mask & ~LNET_FAULT_HSTATUS_ALL) != 0) {
		return fault_err(err, errlen, "unknown health status bits");
	}
	if (a->random && a->interval == 0) {
		return fault_err(err, errlen, "a random rule needs an interval");
	}
	return 0;
}

/*
 * The kernel's defaults: no message type means every type; a portal filter
 * leaves only PUT and GET, the types that carry a portal.
 */
static int
fault_normalise(struct lnet_fault_attr *a, char *err, size_t errlen)
{
	if (a->msg_mask == 0) {
		a->msg_mask = LNET_FAULT_MSG_ALL;
	}
	if (a->ptl_mask == 0) {
		return 0;
	}
	a->msg_mask &= LNET_FAULT_PUT_BIT | LNET_FAULT_GET_BIT;
	if (a->msg_mask == 0) {
		return fault_err(err, errlen, "a portal filter matches only PUT and GET messages");
	}
	return 0;
}

/* New windows: a new seed, interval windows from @p now_us, counters zero. */
static void
fault_rule_start(struct lnet_fault *f, struct lnet_fault_rule *r, uint64_t now_us)
{
	fault_st(&r->seed, fault_next_seed(f));
	fault_st(&r->base_us, now_us);
	__atomic_store_n(&r->last_window, -1, __ATOMIC_RELAXED);
	fault_st(&r->stat.count, 0);
	fault_st(&r->stat.put, 0);
	fault_st(&r->stat.ack, 0);
	fault_st(&r->stat.get, 0);
	fault_st(&r->stat.reply, 0);
	fault_st(&r->stat.fired, 0);
}

static struct lnet_fault_list *
fault_list_alloc(unsigned int n)
{
	struct lnet_fault_list *l = malloc(sizeof(*l) + n * sizeof(l->rules[0]));

	if (l != NULL) {
		l->n = 0;
	}
	return l;
}

int
lnet_fault_add(struct lnet_fault *f, enum lnet_fault_kind kind, const struct lnet_fault_attr *attr,
	       uint64_t now_us, char *err, size_t errlen)
{
	struct lnet_fault_list *old = fault_list_get(f, kind);
	unsigned int n = old != NULL ? old->n : 0;
	struct lnet_fault_attr a = *attr;
	struct lnet_fault_rule *r;
	struct lnet_fault_list *l;
	int rc = fault_check_common(&a, err, errlen);

	rc = rc != 0 ? rc : fault_check_kind(kind, &a, err, errlen);
	rc = rc != 0 ? rc : fault_normalise(&a, err, errlen);
	if (rc != 0) {
		return rc;
	}
	if (n >= LNET_FAULT_MAX_RULES) {
		return fault_fail(-ENOSPC, err, errlen,
				  kind == LNET_FAULT_DROP ? "too many drop rules" :
							    "too many delay rules");
	}
	r = calloc(1, sizeof(*r));
	l = fault_list_alloc(n + 1);
	if (r == NULL || l == NULL) {
		free(r);
		free(l);
		return fault_fail(-ENOMEM, err, errlen, "out of memory");
	}
	r->attr = a;
	fault_rule_start(f, r, now_us);
	l->rules[0] = r;
	if (n != 0) {
		memcpy(&l->rules[1], old->rules, n * sizeof(l->rules[0]));
	}
	l->n = n + 1;
	rt_rcu_publish((void **)&f->lists[kind], l);
	fault_retire(f, old);
	return 0;
}

/* The kernel's del: a rule goes when its source and destination are the ones given. */
static bool
fault_del_matches(const struct lnet_fault_rule *r, const struct lnet_nid *src,
		  const struct lnet_nid *dst)
{
	return (src == NULL || lnet_nid_is_any(src) || lnet_nid_same(&r->attr.src, src)) &&
	       (dst == NULL || lnet_nid_is_any(dst) || lnet_nid_same(&r->attr.dst, dst));
}

int
lnet_fault_del(struct lnet_fault *f, enum lnet_fault_kind kind, const struct lnet_nid *src,
	       const struct lnet_nid *dst)
{
	struct lnet_fault_list *old = fault_list_get(f, kind);
	struct lnet_fault_list *l;
	unsigned int i;
	int gone;

	if (old == NULL) {
		return -ENOENT;
	}
	l = fault_list_alloc(old->n);
	if (l == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < old->n; i++) {
		if (!fault_del_matches(old->rules[i], src, dst)) {
			l->rules[l->n++] = old->rules[i];
		}
	}
	gone = (int)(old->n - l->n);
	if (gone == 0) {
		free(l);
		return -ENOENT;
	}
	if (l->n == 0) {
		free(l);
		l = NULL;
	}
	/* Publish first: what is retired must be unreachable for new readers. */
	rt_rcu_publish((void **)&f->lists[kind], l);
	for (i = 0; i < old->n; i++) {
		if (fault_del_matches(old->rules[i], src, dst)) {
			fault_retire(f, old->rules[i]);
		}
	}
	fault_retire(f, old);
	return gone;
}

void
lnet_fault_reset(struct lnet_fault *f, enum lnet_fault_kind kind, uint64_t now_us)
{
	struct lnet_fault_list *l = fault_list_get(f, kind);
	unsigned int i;

	for (i = 0; l != NULL && i < l->n; i++) {
		fault_rule_start(f, l->rules[i], now_us);
	}
}

unsigned int
lnet_fault_count(const struct lnet_fault *f, enum lnet_fault_kind kind)
{
	const struct lnet_fault_list *l = fault_list_get(f, kind);

	return l != NULL ? l->n : 0;
}

static void
fault_stat_read(const struct lnet_fault_stat *s, struct lnet_fault_stat *out)
{
	out->count = fault_ld(&s->count);
	out->put = fault_ld(&s->put);
	out->ack = fault_ld(&s->ack);
	out->get = fault_ld(&s->get);
	out->reply = fault_ld(&s->reply);
	out->fired = fault_ld(&s->fired);
}

unsigned int
lnet_fault_list(const struct lnet_fault *f, enum lnet_fault_kind kind, unsigned int start,
		struct lnet_fault_info *out, unsigned int max)
{
	const struct lnet_fault_list *l = fault_list_get(f, kind);
	unsigned int n = 0;

	while (l != NULL && start + n < l->n && n < max) {
		const struct lnet_fault_rule *r = l->rules[start + n];

		out[n].attr = r->attr;
		fault_stat_read(&r->stat, &out[n].stat);
		n++;
	}
	return n;
}

bool
lnet_fault_any(const struct lnet_fault *f, enum lnet_fault_kind kind)
{
	return f != NULL && fault_list_get(f, kind) != NULL;
}

/* A rule's NID against a message's: any, the same NID, or any NID of its net. */
static bool
fault_nid_match(const struct lnet_nid *rule, const struct lnet_nid *nid)
{
	if (lnet_nid_is_any(rule)) {
		return true;
	}
	if (nid == NULL) {
		return false;
	}
	if (lnet_nid_same(rule, nid)) {
		return true;
	}
	return lnet_nid_net(rule) == lnet_nid_net(nid) && rule->nid_addr[0] == LNET_ADDR_ANY;
}

/* The portal of a PUT or GET; other types carry none. */
static uint32_t
fault_portal(const struct lnet_hdr *hdr)
{
	if (hdr->type == LNET_MSG_PUT) {
		return hdr->msg.put.ptl_index;
	}
	if (hdr->type == LNET_MSG_GET) {
		return hdr->msg.get.ptl_index;
	}
	return UINT32_MAX;
}

static bool
fault_attr_match(const struct lnet_fault_attr *a, const struct lnet_hdr *hdr,
		 const struct lnet_nid *local_nid)
{
	uint32_t ptl;

	if (!fault_nid_match(&a->src, &hdr->src_nid) || !fault_nid_match(&a->dst, &hdr->dest_nid) ||
	    !fault_nid_match(&a->local_nid, local_nid)) {
		return false;
	}
	if (hdr->type > LNET_MSG_REPLY || (a->msg_mask & (1U << hdr->type)) == 0) {
		return false;
	}
	if (a->ptl_mask == 0) {
		return true;
	}
	ptl = fault_portal(hdr);
	return ptl < 64 && (a->ptl_mask & (1ULL << ptl)) != 0;
}

/* 1 of every rate matches: the one whose sequence number is its window's position. */
static bool
fault_rate_fires(struct lnet_fault_rule *r)
{
	uint64_t rate = r->attr.rate;
	uint64_t seq = fault_inc(&r->stat.count);
	uint64_t w = seq / rate;
	uint64_t pos;

	/* The kernel drops the first match of a 1-in-2 rule; sanity-lnet relies on it. */
	if (rate == 2 && w == 0) {
		pos = 0;
	} else {
		pos = fault_window_pos(fault_ld(&r->seed), w, rate);
	}
	return seq % rate == pos;
}

/*
 * Once per interval: the first match at or after the window's random
 * moment fires and claims the window. A window that ended without firing
 * hands its turn to the next match, as the kernel's pending drop time does.
 */
static bool
fault_interval_fires(struct lnet_fault_rule *r, uint64_t now_us)
{
	uint64_t span = (uint64_t)r->attr.interval * LNP_US_PER_S;
	uint64_t base = fault_ld(&r->base_us);
	uint64_t elapsed = now_us > base ? now_us - base : 0;
	int64_t w = (int64_t)(elapsed / span);
	uint64_t due = (uint64_t)w * span + fault_window_pos(fault_ld(&r->seed), (uint64_t)w, span);
	int64_t last = __atomic_load_n(&r->last_window, __ATOMIC_RELAXED);

	fault_inc(&r->stat.count);
	for (;;) {
		if (w <= last || (w == last + 1 && elapsed < due)) {
			return false;
		}
		if (__atomic_compare_exchange_n(&r->last_window, &last, w, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			return true;
		}
	}
}

static bool
fault_trigger_fires(struct lnet_fault_rule *r, uint64_t now_us, uint32_t *rand_state)
{
	if (r->attr.random) {
		/* The kernel's coin: a draw below the interval landing in its upper half. */
		return fault_below(rand_state, r->attr.interval) >= r->attr.interval / 2;
	}
	if (r->attr.interval != 0) {
		return fault_interval_fires(r, now_us);
	}
	return fault_rate_fires(r);
}

/*
 * A rule with a health error simulates a failed send, one without a
 * message lost on receive; drop_all rules fire on both, uncounted.
 */
static bool
fault_drop_fires(struct lnet_fault_rule *r, bool send, uint64_t now_us, uint32_t *rand_state)
{
	if (r->attr.drop_all) {
		return true;
	}
	if ((r->attr.health_mask != 0) != send) {
		return false;
	}
	return fault_trigger_fires(r, now_us, rand_state);
}

static void
fault_count_fired(struct lnet_fault_rule *r, uint32_t type)
{
	switch (type) {
	case LNET_MSG_PUT:
		fault_inc(&r->stat.put);
		break;
	case LNET_MSG_ACK:
		fault_inc(&r->stat.ack);
		break;
	case LNET_MSG_GET:
		fault_inc(&r->stat.get);
		break;
	case LNET_MSG_REPLY:
		fault_inc(&r->stat.reply);
		break;
	default:
		break;
	}
	fault_inc(&r->stat.fired);
}

/*
 * A failed status at random; when the rule names some and the draw is not
 * one of them, the nearest of them (the higher on a tie), as the kernel
 * rounds it. A rule naming none (drop_all) gets any.
 */
static enum lnet_msg_hstatus
fault_pick_health(uint32_t mask, uint32_t *rand_state)
{
	uint32_t choice = 1 + fault_below(rand_state, LNET_MSG_STATUS_END - 1);
	uint32_t best = choice;
	uint32_t best_delta = UINT32_MAX;
	uint32_t i;

	if (mask == LNET_FAULT_HSTATUS_RANDOM || (mask & LNET_FAULT_HSTATUS_ALL) == 0 ||
	    (mask & (1U << choice)) != 0) {
		return (enum lnet_msg_hstatus)choice;
	}
	for (i = 1; i < LNET_MSG_STATUS_END; i++) {
		uint32_t delta = i > choice ? i - choice : choice - i;

		if ((mask & (1U << i)) != 0 && delta <= best_delta) {
			best_delta = delta;
			best = i;
		}
	}
	return (enum lnet_msg_hstatus)best;
}

bool
lnet_fault_drop_match(struct lnet_fault *f, const struct lnet_hdr *hdr,
		      const struct lnet_nid *local_nid, uint64_t now_us, uint32_t *rand_state,
		      enum lnet_msg_hstatus *hstatus)
{
	const struct lnet_fault_list *l;
	bool send = hstatus != NULL;
	uint32_t own_state = 1;
	unsigned int i;

	if (rand_state == NULL) {
		rand_state = &own_state;
	}
	if (send) {
		*hstatus = LNET_MSG_STATUS_OK;
	}
	l = f != NULL ? fault_list_get(f, LNET_FAULT_DROP) : NULL;
	for (i = 0; l != NULL && i < l->n; i++) {
		struct lnet_fault_rule *r = l->rules[i];

		if (!fault_attr_match(&r->attr, hdr, local_nid) ||
		    !fault_drop_fires(r, send, now_us, rand_state)) {
			continue;
		}
		fault_count_fired(r, hdr->type);
		if (send) {
			*hstatus = fault_pick_health(r->attr.health_mask, rand_state);
		}
		return true;
	}
	return false;
}

uint64_t
lnet_fault_delay_match(struct lnet_fault *f, const struct lnet_hdr *hdr,
		       const struct lnet_nid *local_nid, uint64_t now_us)
{
	const struct lnet_fault_list *l = f != NULL ? fault_list_get(f, LNET_FAULT_DELAY) : NULL;
	unsigned int i;

	for (i = 0; l != NULL && i < l->n; i++) {
		struct lnet_fault_rule *r = l->rules[i];

		/* Delay rules have no random option: no caller state is drawn from. */
		if (fault_attr_match(&r->attr, hdr, local_nid) &&
		    fault_trigger_fires(r, now_us, NULL)) {
			fault_count_fired(r, hdr->type);
			return (uint64_t)r->attr.latency * LNP_US_PER_S;
		}
	}
	return 0;
}

int
lnet_fault_nid_parse(const char *str, struct lnet_nid *nid)
{
	if (str == NULL) {
		return -EINVAL;
	}
	if (strcmp(str, "*") == 0) {
		*nid = LNET_ANY_NID;
		return 0;
	}
	if (strncmp(str, "*@", 2) == 0) {
		uint32_t net = libcfs_str2net(str + 2);

		if (net == LNET_NET_ANY) {
			return -EINVAL;
		}
		lnet_nid4_to_nid(LNET_MKNID(net, LNET_ADDR_ANY), nid);
		return 0;
	}
	return libcfs_strnid(nid, str) == 0 ? 0 : -EINVAL;
}
