/* SPDX-License-Identifier: BSD-3-Clause */
/* Control-plane queries, answered on the management lcore from published state. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"

struct lnet_ctl_ni_args {
	struct lnet *ln;
	struct lnet_ctl_ni *out;
	unsigned int max;
};

static void
lnet_ctl_cpts_str(const struct lnet *ln, const struct lnet_ni *ni, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	off += (size_t)snprintf(buf, len, "[");
	for (i = 0; i < ln->ncpts && off < len; i++) {
		/* lo is served by every CPT; other NIs by their own. */
		if (ni->any_cpt || ni->cpt == i) {
			off += (size_t)snprintf(buf + off, len - off, "%s%u", off > 1 ? "," : "",
						i);
		}
	}
	if (off < len) {
		snprintf(buf + off, len - off, "]");
	}
}

static uint32_t
lnet_ctl_hs(const struct lnet_health *h, enum lnet_msg_hstatus hs)
{
	return __atomic_load_n(&h->hs[hs], __ATOMIC_RELAXED);
}

/* net show -v 2's health stats: the local failures by kind, and recovery. */
static void
lnet_ctl_ni_health(const struct lnet_ni *ni, struct lnet_ctl_ni *o)
{
	const struct lnet_health *h = &ni->health;

	o->health_value = lnet_health_value(h);
	o->hs_interrupts = lnet_ctl_hs(h, LNET_MSG_STATUS_LOCAL_INTERRUPT);
	o->hs_dropped = lnet_ctl_hs(h, LNET_MSG_STATUS_LOCAL_DROPPED);
	o->hs_aborted = lnet_ctl_hs(h, LNET_MSG_STATUS_LOCAL_ABORTED);
	o->hs_no_route = lnet_ctl_hs(h, LNET_MSG_STATUS_LOCAL_NO_ROUTE);
	o->hs_timeouts = lnet_ctl_hs(h, LNET_MSG_STATUS_LOCAL_TIMEOUT);
	o->hs_error = lnet_ctl_hs(h, LNET_MSG_STATUS_LOCAL_ERROR);
	o->ping_count = lnet_health_ping_count(h);
	o->next_ping = __atomic_load_n(&h->next_ping, __ATOMIC_RELAXED);
}

/* The NI's counts: the sum of every CPT's slot (lo's are written by all of them). */
static void
lnet_ctl_ni_fill(const struct lnet *ln, const struct lnet_ni *ni, struct lnet_ctl_ni *o)
{
	uint64_t by_type[LNET_STATS_KINDS][LNET_STATS_NTYPES];
	uint64_t total[LNET_STATS_KINDS];

	memset(o, 0, sizeof(*o));
	o->nid = ni->nid;
	o->net = ni->net_id;
	o->up = lnet_ni_wire_status(ni) == LNET_NI_STATUS_UP;
	lnet_stats_sum(ni->stats, ln->ncpts, by_type, total);
	o->send_count = total[LNET_STATS_SEND];
	o->recv_count = total[LNET_STATS_RECV];
	o->drop_count = total[LNET_STATS_DROP];
	lnet_stats_by_type(by_type[LNET_STATS_SEND], o->sent);
	lnet_stats_by_type(by_type[LNET_STATS_RECV], o->received);
	lnet_stats_by_type(by_type[LNET_STATS_DROP], o->dropped);
	lnet_ctl_ni_health(ni, o);
	o->fatal_error = __atomic_load_n(&ni->fatal, __ATOMIC_RELAXED) ? 1 : 0;
	o->peer_timeout = ni->tun.peer_timeout;
	o->peer_credits = ni->tun.peer_tx_credits;
	o->peer_buffer_credits = ni->tun.peer_rtr_credits;
	o->credits = ni->tun.max_tx_credits;
	o->dev_cpt = ni->any_cpt ? 0 : ni->dev_cpt;
	/* the kernel shows the u32 as a signed int: no rule is -1 */
	o->udsp_net_priority = (int)__atomic_load_n(&ni->udsp_net_prio, __ATOMIC_RELAXED);
	o->udsp_nid_priority = (int)__atomic_load_n(&ni->udsp_prio, __ATOMIC_RELAXED);
	lnet_ctl_cpts_str(ln, ni, o->cpts, sizeof(o->cpts));
	memcpy(o->ifname, ni->ifname, sizeof(o->ifname));
	if (ni->lnd->tunables != NULL && ni->started) {
		o->nlnd_tunables = ni->lnd->tunables(ni, o->lnd_tunables, LNET_CTL_LND_TUNABLES);
	}
	if (ni->lnd->transport != NULL && ni->started) {
		const char *t = ni->lnd->transport(ni);

		snprintf(o->transport, sizeof(o->transport), "%s", t != NULL ? t : "");
	}
}

static int
lnet_ctl_ni_list_on_mgmt(void *arg)
{
	struct lnet_ctl_ni_args *a = arg;
	const struct lnet_ni_table *t = lnet_ni_table_get(a->ln);
	unsigned int i;

	for (i = 0; t != NULL && i < t->nnis && i < a->max; i++) {
		lnet_ctl_ni_fill(a->ln, t->nis[i], &a->out[i]);
	}
	return t == NULL ? 0 : (int)(t->nnis < a->max ? t->nnis : a->max);
}

int
lnet_ctl_ni_list(struct lnet_ctl_ni *out, unsigned int max)
{
	struct lnet_ctl_ni_args a = { lnet_instance(), out, max };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_ctl_ni_list_on_mgmt, &a);
}

struct lnet_ctl_global_args {
	struct lnet *ln;
	struct lnet_ctl_global *out;
};

static int
lnet_ctl_global_on_mgmt(void *arg)
{
	struct lnet_ctl_global_args *a = arg;

	*a->out = a->ln->tunables;
	return 0;
}

int
lnet_ctl_global_get(struct lnet_ctl_global *out)
{
	struct lnet_ctl_global_args a = { lnet_instance(), out };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_ctl_global_on_mgmt, &a);
}

int
lnet_ctl_ncpts(void)
{
	struct lnet *ln = lnet_instance();

	return ln == NULL ? -ENETDOWN : (int)ln->ncpts;
}

uint64_t
lnet_ctl_stall_threshold_us(void)
{
	struct lnet *ln = lnet_instance();

	return ln == NULL ? 0 : rt_watchdog_threshold_us(ln->rt);
}

/* One lcore's hop counts added into @p sum (relaxed reads of another lcore's single-writer slots). */
static void
lnet_hops_add(uint64_t sum[LNET_HOP_KINDS], const struct lnet_hop_counts *h)
{
	unsigned int k;

	for (k = 0; k < LNET_HOP_KINDS; k++) {
		sum[k] += __atomic_load_n(&h->n[k], __ATOMIC_RELAXED);
	}
}

int
lnet_ctl_hops_get(struct lnet_ctl_hops *out)
{
	struct lnet *ln = lnet_instance();
	uint64_t sum[LNET_HOP_KINDS] = { 0 };
	unsigned int i;

	if (ln == NULL) {
		return -ENETDOWN;
	}
	if (out == NULL) {
		return -EINVAL;
	}
	for (i = 0; i < ln->ncpts; i++) {
		lnet_hops_add(sum, &ln->cpts[i]->hops);
	}
	lnet_hops_add(sum, &ln->mgmt_hops);
	*out = (struct lnet_ctl_hops){ .put = sum[LNET_HOP_PUT],
				       .get = sum[LNET_HOP_GET],
				       .ack = sum[LNET_HOP_ACK],
				       .reply = sum[LNET_HOP_REPLY],
				       .forward = sum[LNET_HOP_FWD],
				       .rx_unlent = sum[LNET_HOP_RX_UNLENT] };
	return 0;
}

int
lnet_ctl_lcore_stats(struct lnet_ctl_lcore *out, unsigned int max, bool reset_gap)
{
	struct lnet *ln = lnet_instance();
	unsigned int i;

	if (ln == NULL) {
		return -ENETDOWN;
	}
	for (i = 0; i <= ln->ncpts && i < max; i++) {
		struct rt_lcore *lc = i == 0 ? rt_mgmt_lcore(ln->rt) : rt_data_lcore(ln->rt, i - 1);

		struct rt_lcore_stats st;
		struct rt_lcore_stalls ss;

		rt_lcore_stats_get(lc, &st);
		rt_lcore_stalls_get(lc, &ss);
		out[i] = (struct lnet_ctl_lcore){
			.mgmt = i == 0,
			.cpt = i == 0 ? -1 : (int)i - 1,
			.loops = st.loops,
			.busy_loops = st.busy_loops,
			.msgs = st.msgs,
			.timers = st.timers,
			.send_full = st.send_full,
			.sleeps = st.sleeps,
			.max_gap_us = st.max_gap_us,
			.oversleeps = st.oversleeps,
			.oversleep_longest_us = st.oversleep_longest_us,
			.stalls = ss.stalls,
			.stall_longest_us = ss.longest_us,
			.stall_last_us = ss.last_us,
			.stall_ongoing = ss.ongoing,
			.stalls_blocked = ss.blocked,
			.stall_state = ss.last_state,
			.stall_syscall = ss.last_syscall,
			.stall_step = rt_step_name(ss.last_step),
		};
		rt_fn_describe(ss.last_fn, out[i].stall_fn, sizeof(out[i].stall_fn));
		if (reset_gap && lc != NULL) {
			rt_lcore_gap_reset(lc);
		}
	}
	return (int)i;
}

int
lnet_ctl_ni_add(const struct lnet_nid *nid, const char *ifname,
		const struct lnet_ctl_ni_tunables *tun, const struct lnet_ctl_lnd_tunables *lnd_tun,
		unsigned int cpt, char *err, size_t errlen)
{
	struct lnet *ln = lnet_instance();
	struct lnet_ni_req req = {
		.add = true,
		.nid = nid,
		.lnd_tun = lnd_tun,
		.cpt = cpt,
		.ifname = ifname != NULL && ifname[0] != '\0' ? ifname : NULL,
	};
	char s[LNET_NIDSTR_SIZE];
	int rc;

	if (ln == NULL) {
		return -ENETDOWN;
	}
	req.lnd = lnet_lnd_find(nid->nid_type);
	if (req.lnd == NULL || (req.lnd->caps & LNET_LND_CAP_BUILTIN) != 0) {
		snprintf(err, errlen, "no LND for %s in this build",
			 libcfs_nidstr_r(nid, s, sizeof(s)));
		return -EOPNOTSUPP;
	}
	if (cpt >= ln->ncpts) {
		snprintf(err, errlen, "CPT %u does not exist (%u CPTs)", cpt, ln->ncpts);
		return -EINVAL;
	}
	req.tun.peer_timeout = tun->peer_timeout;
	req.tun.peer_tx_credits = tun->peer_credits;
	req.tun.peer_rtr_credits = tun->peer_buffer_credits;
	req.tun.max_tx_credits = tun->credits;
	rc = lnet_ni_config(ln, &req);
	if (rc != 0) {
		snprintf(err, errlen, "cannot add %s: %s", libcfs_nidstr_r(nid, s, sizeof(s)),
			 strerror(-rc));
		return rc;
	}
	if (req.ping_rc != 0) {
		snprintf(err, errlen, "%s added, but the ping target was not updated: %s",
			 libcfs_nidstr_r(nid, s, sizeof(s)), strerror(-req.ping_rc));
	}
	return req.ping_rc;
}

int
lnet_ctl_ni_del(const struct lnet_nid *nid, char *err, size_t errlen)
{
	return lnet_ctl_ni_remove(nid, true, err, errlen);
}

int
lnet_ctl_ni_remove(const struct lnet_nid *nid, bool push, char *err, size_t errlen)
{
	struct lnet *ln = lnet_instance();
	struct lnet_ni_req req = { .add = false, .nid = nid, .quiet = !push };
	char s[LNET_NIDSTR_SIZE];
	int rc;

	if (ln == NULL) {
		return -ENETDOWN;
	}
	libcfs_nidstr_r(nid, s, sizeof(s));
	rc = lnet_ni_config(ln, &req);
	if (rc == -ENOENT) {
		snprintf(err, errlen, "%s is not a local NI", s);
	} else if (rc == -EPERM) {
		snprintf(err, errlen, "%s cannot be deleted", s);
	} else if (rc != 0) {
		snprintf(err, errlen, "cannot delete %s: %s", s, strerror(-rc));
	} else if (req.ping_rc != 0) {
		snprintf(err, errlen, "%s deleted, but the ping target was not updated: %s", s,
			 strerror(-req.ping_rc));
	}
	return rc != 0 ? rc : req.ping_rc;
}

struct lnet_ctl_health_args {
	struct lnet *ln;
	const struct lnet_nid *nid;
	int value;
};

/* Every NI named (each with health when @p nid is NULL); lo has none to set. */
static int
lnet_ctl_ni_health_on_mgmt(void *arg)
{
	struct lnet_ctl_health_args *a = arg;
	const struct lnet_ni_table *t = lnet_ni_table_get(a->ln);
	unsigned int i;
	int found = 0;

	for (i = 0; t != NULL && i < t->nnis; i++) {
		struct lnet_ni *ni = t->nis[i];

		if ((a->nid != NULL && !lnet_nid_same(&ni->nid, a->nid)) ||
		    (ni->lnd->caps & LNET_LND_CAP_NO_HEALTH) != 0) {
			continue;
		}
		lnet_health_ni_set(a->ln, ni, a->value); /* and recovery, below the maximum */
		found++;
	}
	return a->nid != NULL && found == 0 ? -ENOENT : 0;
}

int
lnet_ctl_ni_health_set(const struct lnet_nid *nid, int value, char *err, size_t errlen)
{
	struct lnet_ctl_health_args a = { lnet_instance(), nid, value };
	char s[LNET_NIDSTR_SIZE];
	int rc;

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (value < 0 || value > LNET_CTL_MAX_HEALTH) {
		snprintf(err, errlen, "health value %d: from 0 to %d", value, LNET_CTL_MAX_HEALTH);
		return -EINVAL;
	}
	rc = rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_ctl_ni_health_on_mgmt, &a);
	if (rc == -ENOENT) {
		snprintf(err, errlen, "%s is not a local NI with a health value",
			 libcfs_nidstr_r(nid, s, sizeof(s)));
	}
	return rc;
}

typedef int (*lnet_ctl_ni_fn)(struct lnet_ni *ni, void *arg);

struct lnet_ctl_on_ni_args {
	struct lnet *ln;
	const struct lnet_nid *nid;
	lnet_ctl_ni_fn fn;
	void *arg;
};

/*
 * On each data lcore in turn: the NI is looked up in the published table
 * and handled only by the lcore that owns it. net del frees a NI only
 * after a pass over every data lcore, so it cannot vanish under this step.
 */
static int
lnet_ctl_on_ni_cpt(void *arg)
{
	struct lnet_ctl_on_ni_args *a = arg;
	struct lnet_cpt *c = lnet_cpt_self(a->ln);
	struct lnet_ni *ni = lnet_ni_find_by_nid(a->ln, a->nid);

	if (ni == NULL) {
		return -ENOENT;
	}
	if ((ni->any_cpt ? 0 : ni->cpt) != c->cpt) {
		return -EAGAIN; /* another lcore's */
	}
	if (!ni->started) {
		return -ENETDOWN;
	}
	return a->fn(ni, a->arg);
}

/* Run @p fn on the data lcore that owns local NI @p nid. */
static int
lnet_ctl_on_ni(const struct lnet_nid *nid, lnet_ctl_ni_fn fn, void *arg)
{
	struct lnet_ctl_on_ni_args a = { lnet_instance(), nid, fn, arg };
	unsigned int cpt;
	int rc = -ENOENT;

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	for (cpt = 0; cpt < a.ln->ncpts; cpt++) {
		rc = lnet_call_on_cpt(a.ln, cpt, lnet_ctl_on_ni_cpt, &a);
		if (rc != -EAGAIN) {
			break;
		}
	}
	return rc;
}

struct lnet_ctl_lnd_counters_args {
	struct lnet_ctl_lnd_counter *out;
	unsigned int max;
};

static int
lnet_ctl_lnd_counters_on_ni(struct lnet_ni *ni, void *arg)
{
	struct lnet_ctl_lnd_counters_args *a = arg;

	return ni->lnd->counters == NULL ? 0 : (int)ni->lnd->counters(ni, a->out, a->max);
}

int
lnet_ctl_lnd_counters(const struct lnet_nid *nid, struct lnet_ctl_lnd_counter *out,
		      unsigned int max)
{
	struct lnet_ctl_lnd_counters_args a = { out, max };

	return lnet_ctl_on_ni(nid, lnet_ctl_lnd_counters_on_ni, &a);
}

static int
lnet_ctl_capture_on_ni(struct lnet_ni *ni, void *cap)
{
	return ni->lnd->capture == NULL ? -EOPNOTSUPP : ni->lnd->capture(ni, cap);
}

int
lnet_ctl_ni_capture(const struct lnet_nid *nid, struct lnet_pcap *cap)
{
	return lnet_ctl_on_ni(nid, lnet_ctl_capture_on_ni, cap);
}

struct lnet_ctl_global_set_args {
	struct lnet *ln;
	const char *key;
	int value;
	bool discovery_changed; /* the ping target's features follow it */
};

/* lnd_timeout follows (transaction_timeout - 1) / (retry_count + 1), at least 1 (lnet-facts §8.1). */
static void
lnet_ctl_lnd_timeout_update(struct lnet_ctl_global *t)
{
	int lnd = (t->transaction_timeout - 1) / (t->retry_count + 1);

	__atomic_store_n(&t->lnd_timeout, lnd < 1 ? 1 : lnd, __ATOMIC_RELAXED);
}

static void
lnet_ctl_store(int *field, int value)
{
	__atomic_store_n(field, value, __ATOMIC_RELAXED);
}

/*
 * The kernel's checks on each setting (its module parameters' setters):
 * retry_count and transaction_timeout bound each other, a health
 * sensitivity of 0 turns retries off, a too small max_interfaces falls
 * back to the default, the deprecated recovery_interval changes nothing.
 * Settings without behaviour here yet are stored, shown as stored.
 */
static int
lnet_ctl_global_check_store(struct lnet_ctl_global *t, const char *key, int v)
{
	if (strcmp(key, "transaction_timeout") == 0) {
		if (v <= 0 || v <= t->retry_count) {
			return -EINVAL;
		}
		lnet_ctl_store(&t->transaction_timeout, v);
	} else if (strcmp(key, "retry_count") == 0) {
		if (v < 0 || (t->health_sensitivity == 0 && v > 0) || v > t->transaction_timeout) {
			return -EINVAL;
		}
		lnet_ctl_store(&t->retry_count, v);
	} else if (strcmp(key, "health_sensitivity") == 0) {
		if (v < 0 || v > 1000) {
			return -EINVAL;
		}
		if (t->health_sensitivity != 0 && v == 0) {
			lnet_ctl_store(&t->retry_count, 0);
		}
		lnet_ctl_store(&t->health_sensitivity, v);
	} else if (strcmp(key, "numa_range") == 0 || strcmp(key, "recovery_limit") == 0) {
		if (v < 0) {
			return -EINVAL;
		}
		lnet_ctl_store(key[0] == 'n' ? &t->numa_range : &t->recovery_limit, v);
	} else if (strcmp(key, "max_interfaces") == 0) {
		lnet_ctl_store(&t->max_interfaces,
			       v < LNET_CTL_INTERFACES_MIN ? LNET_CTL_INTERFACES_DEFAULT : v);
	} else if (strcmp(key, "discovery") == 0) {
		lnet_ctl_store(&t->discovery, v != 0);
	} else if (strcmp(key, "drop_asym_route") == 0) {
		lnet_ctl_store(&t->drop_asym_route, v != 0);
	} else if (strcmp(key, "router_sensitivity") == 0) {
		if (v < 0 || v > 100) {
			return -EINVAL;
		}
		lnet_ctl_store(&t->router_sensitivity, v);
	} else if (strcmp(key, "response_tracking") == 0) {
		if (v < 0 || v > 3) {
			return -EINVAL;
		}
		lnet_ctl_store(&t->response_tracking, v);
	} else if (strcmp(key, "max_recovery_ping_interval") == 0) {
		if (v <= 0) {
			return -EINVAL;
		}
		lnet_ctl_store(&t->max_recovery_ping_interval, v);
	} else if (strcmp(key, "recovery_interval") != 0) {
		return -EOPNOTSUPP; /* lnd_timeout is derived; the rest are not settings */
	}
	return 0;
}

static int
lnet_ctl_global_set_on_mgmt(void *arg)
{
	struct lnet_ctl_global_set_args *a = arg;
	struct lnet_ctl_global *t = &a->ln->tunables;
	int was = t->discovery;
	int rc = lnet_ctl_global_check_store(t, a->key, a->value);

	a->discovery_changed = t->discovery != was;

	if (rc == 0) {
		lnet_ctl_lnd_timeout_update(t);
		lnet_discovery_tunables_changed(a->ln);
	}
	if (a->discovery_changed && t->discovery == 0) {
		lnet_discovery_set_enabled(a->ln, false); /* no push from here on */
	}
	return rc;
}

int
lnet_ctl_global_set(const char *key, int value, char *err, size_t errlen)
{
	struct lnet_ctl_global_set_args a = { lnet_instance(), key, value, false };
	int rc;

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	rc = rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_ctl_global_set_on_mgmt, &a);
	if (rc == 0 && a.discovery_changed) {
		rc = lnet_ping_target_features_update(a.ln);
	}
	if (rc == 0 && a.discovery_changed && value != 0) {
		/* Once the ping target says DISCOVERY: the pushes that follow carry it. */
		rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_discovery_enable_on_mgmt, a.ln);
	}
	if (rc == -EOPNOTSUPP) {
		snprintf(err, errlen, "%s: not a setting", key);
	} else if (rc == -EINVAL) {
		snprintf(err, errlen, "%s: %s", key, strerror(EINVAL));
	}
	return rc;
}

int
lnet_ctl_pools_get(struct lnet_ctl_pools *out)
{
	struct lnet *ln = lnet_instance();

	if (ln == NULL) {
		return -ENETDOWN;
	}
	if (out == NULL) {
		return -EINVAL;
	}
	*out = (struct lnet_ctl_pools){ .msg_empty = lnet_msg_pool_empty_since_mark(ln) };
	return 0;
}
