/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnetd-pmd as a service (packaging/systemd/lnetd-pmd.service): what the
 * main thread does once the configuration is applied, until a stop signal.
 *
 *  - READY=1 (sd_notify) only when every NI is up, with STATUS= lines a
 *    person reads in `systemctl status`.
 *  - The watchdog (WatchdogSec=) is fed only while every lcore makes
 *    progress: each lcore counts its loop iterations (an idle one still
 *    wakes at least every millisecond), the main thread reads the counts
 *    and pings systemd when every lcore's has moved within half the
 *    watchdog's period and none is inside a stall. A lcore stuck in one
 *    poll stops the pings, and systemd restarts the node.
 *  - SIGHUP (ExecReload=) reads --config again and applies only what
 *    changed, as `lnetctl import` and `import --del` would: NIs, peers and
 *    routes the new file no longer has are deleted, new ones added, globals,
 *    routing and buffers set; what stayed is not touched, so its traffic
 *    goes on.
 *  - SIGINT/SIGTERM: STOPPING=1; the caller drains and stops (LNetNIFini).
 *
 * Without NOTIFY_SOCKET (run by hand) every sd_notify is a no-op.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "api.h"
#include "lnet_ctl.h"
#include "lnetd.h"
#include "lnp_build_config.h"
#include "rt.h"

#define LNETD_NIS_MAX 256
#define LNETD_TICK_IDLE_US 1000000ULL /* no watchdog: look for signals this often anyway */
#define LNETD_NI_WAIT_STEP_NS 10000000L

/* The last loop count seen of each lcore (management first), and when it last moved. */
struct lnetd_lcore_seen {
	uint64_t loops;
	uint64_t moved_us;
};

struct lnetd_service {
	const struct lnetd_opts *o;
	struct lnetcfg *applied; /* the --config last applied (NULL: the embedded default) */
	uint64_t watchdog_us;    /* WATCHDOG_USEC; 0: no watchdog */
	struct lnetd_lcore_seen seen[LNP_MAX_CPTS + 1];
	int late_lcore; /* the lcore whose lateness STATUS= says (-1: none) */
};

/*
 * "<N>" before a line of ours on stderr when it is journald's stream, whose
 * syslog priority N journald then gives the line; nothing on a terminal.
 */
static const char *
lnetd_prio(unsigned int n)
{
	static const char *const prefix[] = {
		"<0>", "<1>", "<2>", "<3>", "<4>", "<5>", "<6>", "<7>"
	};

	return rt_log_journal() && n < 8 ? prefix[n] : "";
}

static uint64_t
lnetd_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

void
lnetd_service_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/* NIs listed and how many are up (0@lo counts); -errno. */
static int
lnetd_nis_up(unsigned int *up)
{
	struct lnet_ctl_ni *nis = calloc(LNETD_NIS_MAX, sizeof(*nis));
	int n = nis != NULL ? lnet_ctl_ni_list(nis, LNETD_NIS_MAX) : -ENOMEM;
	int i;

	*up = 0;
	for (i = 0; i < n; i++) {
		*up += nis[i].up ? 1 : 0;
	}
	free(nis);
	return n;
}

/*
 * Wait until every NI is up, or a stop signal (returned in *@p sig; a
 * SIGHUP meanwhile is dropped: the file was only just read). No bound of
 * our own: the unit's TimeoutStartSec= is it, and a node whose NI never
 * comes up fails to start, visibly, rather than reporting ready without its
 * fabric. @return how many NIs are up, or -errno.
 */
static int
lnetd_wait_nis_up(int *sig)
{
	const struct timespec step = { 0, LNETD_NI_WAIT_STEP_NS };
	unsigned int up = 0;
	bool told = false;
	sigset_t set;
	int n;

	lnetd_service_sigset(&set);
	*sig = 0;
	while ((n = lnetd_nis_up(&up)) > 0 && up < (unsigned int)n) {
		if (!told) {
			sd_notifyf(0, "STATUS=waiting for NIs: %u of %d up", up, n);
			told = true;
		}
		*sig = sigtimedwait(&set, NULL, &step);
		if (*sig == SIGINT || *sig == SIGTERM) {
			break;
		}
	}
	return n < 0 ? n : (int)up;
}

/* Every error of a configuration read, one line each on stderr (journald: an error). */
static void
lnetd_service_report(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%slnetd-pmd: %s\n", lnetd_prio(LOG_ERR), msg);
}

/* The configuration file parsed and resolved against this host, or NULL after reporting. */
static struct lnetcfg *
lnetd_cfg_read(const char *path)
{
	struct lnetcfg *cfg = calloc(1, sizeof(*cfg));

	if (cfg == NULL) {
		return NULL;
	}
	lnetcfg_init(cfg, path, lnetd_service_report, NULL);
	if (lnetcfg_parse_file(cfg, path) == 0) {
		lnetcfg_ip2nets_resolve_here(cfg);
	}
	if (cfg->nerrors > 0) {
		lnetcfg_fini(cfg);
		free(cfg);
		return NULL;
	}
	return cfg;
}

static void
lnetd_cfg_free(struct lnetcfg *cfg)
{
	if (cfg != NULL) {
		lnetcfg_fini(cfg);
		free(cfg);
	}
}

/* The same NI: its net, then its interface or (with none) its NID. */
static bool
lnetd_ni_same_place(const struct lnetcfg_ni *a, const struct lnetcfg_ni *b)
{
	if (a->net != b->net || strcmp(a->ifname, b->ifname) != 0) {
		return false;
	}
	return a->ifname[0] != '\0' ||
	       (a->has_nid && b->has_nid && lnet_nid_same(&a->nid, &b->nid));
}

/* ... with the same tunables: nothing to change. */
static bool
lnetd_ni_same(const struct lnetcfg_ni *a, const struct lnetcfg_ni *b)
{
	return lnetd_ni_same_place(a, b) && a->peer_timeout == b->peer_timeout &&
	       a->peer_credits == b->peer_credits &&
	       a->peer_buffer_credits == b->peer_buffer_credits && a->credits == b->credits &&
	       a->conns_per_peer == b->conns_per_peer && a->lnd_timeout == b->lnd_timeout &&
	       a->tos == b->tos && a->cpt == b->cpt;
}

static bool
lnetd_peer_same(const struct lnetcfg_peer *a, const struct lnetcfg_peer *b)
{
	unsigned int i;

	if (!lnet_nid_same(&a->prim, &b->prim) || a->mr != b->mr || a->nnis != b->nnis) {
		return false;
	}
	for (i = 0; i < a->nnis; i++) {
		if (!lnet_nid_same(&a->nis[i], &b->nis[i])) {
			return false;
		}
	}
	return true;
}

static bool
lnetd_route_same(const struct lnetcfg_route *a, const struct lnetcfg_route *b)
{
	return a->net == b->net && lnet_nid_same(&a->gateway, &b->gateway) && a->hops == b->hops &&
	       a->priority == b->priority && a->health_sensitivity == b->health_sensitivity;
}

static bool
lnetd_udsps_same(const struct lnetcfg *a, const struct lnetcfg *b)
{
	unsigned int i;

	if (a->nudsps != b->nudsps) {
		return false;
	}
	for (i = 0; i < a->nudsps; i++) {
		const struct lnetcfg_udsp *x = &a->udsps[i];
		const struct lnetcfg_udsp *y = &b->udsps[i];

		if (x->idx != y->idx || x->priority != y->priority || strcmp(x->src, y->src) != 0 ||
		    strcmp(x->dst, y->dst) != 0 || strcmp(x->rte, y->rte) != 0) {
			return false;
		}
	}
	return true;
}

/* Is NI @p ni (of one file) in @p cfg (the other) unchanged? */
static bool
lnetd_cfg_has_ni(const struct lnetcfg *cfg, const struct lnetcfg_ni *ni)
{
	unsigned int i;

	for (i = 0; i < cfg->nnis; i++) {
		if (lnetd_ni_same(&cfg->nis[i], ni)) {
			return true;
		}
	}
	return false;
}

static bool
lnetd_cfg_has_peer(const struct lnetcfg *cfg, const struct lnetcfg_peer *p)
{
	unsigned int i;

	for (i = 0; i < cfg->npeers; i++) {
		if (lnetd_peer_same(&cfg->peers[i], p)) {
			return true;
		}
	}
	return false;
}

static bool
lnetd_cfg_has_route(const struct lnetcfg *cfg, const struct lnetcfg_route *r)
{
	unsigned int i;

	for (i = 0; i < cfg->nroutes; i++) {
		if (lnetd_route_same(&cfg->routes[i], r)) {
			return true;
		}
	}
	return false;
}

/* One change refused: said on stderr and in @p first (the first one only). */
static int
lnetd_reload_fail(char *first, size_t len, const char *what, const char *why, int rc)
{
	fprintf(stderr, "%slnetd-pmd: reload: %s: %s\n", lnetd_prio(LOG_ERR), what,
		why[0] != '\0' ? why : strerror(-rc));
	if (first[0] == '\0') {
		snprintf(first, len, "%s: %s", what, why[0] != '\0' ? why : strerror(-rc));
	}
	return rc;
}

/* What @p old has and @p next has not, or has changed: routes, then peers, then NIs. */
static int
lnetd_reload_delete(const struct lnetcfg *old, const struct lnetcfg *next, char *first, size_t len)
{
	unsigned int i;
	int bad = 0;

	for (i = 0; i < old->nroutes; i++) {
		const struct lnetcfg_route *r = &old->routes[i];
		char why[256] = "";
		int rc;

		if (!lnetd_cfg_has_route(next, r)) {
			rc = lnet_ctl_route_del(r->net, &r->gateway, why, sizeof(why));
			bad = rc != 0 ? lnetd_reload_fail(first, len, "route del", why, rc) : bad;
		}
	}
	for (i = 0; i < old->npeers; i++) {
		const struct lnetcfg_peer *p = &old->peers[i];
		char why[256] = "";
		int rc;

		if (!lnetd_cfg_has_peer(next, p)) {
			rc = lnet_ctl_peer_del(&p->prim, NULL, 0, why, sizeof(why));
			bad = rc != 0 ? lnetd_reload_fail(first, len, "peer del", why, rc) : bad;
		}
	}
	for (i = 0; i < old->nnis; i++) {
		const struct lnetcfg_ni *ni = &old->nis[i];
		char why[256] = "";
		int rc;

		if (!lnetd_cfg_has_ni(next, ni)) {
			rc = lnetd_ni_del(ni->net, ni->ifname[0] != '\0' ? ni->ifname : NULL,
					  ni->ifname[0] == '\0' ? &ni->nid : NULL, true, why,
					  sizeof(why));
			bad = rc != 0 ? lnetd_reload_fail(first, len, "net del", why, rc) : bad;
		}
	}
	return bad;
}

/* What @p next has and @p old has not: NIs, then peers, then routes (they may use both). */
static int
lnetd_reload_add(const struct lnetcfg *old, const struct lnetcfg *next, char *first, size_t len)
{
	unsigned int i;
	int bad = 0;

	for (i = 0; i < next->nnis; i++) {
		char why[256] = "";
		int rc;

		if (!lnetd_cfg_has_ni(old, &next->nis[i])) {
			rc = lnetd_ni_add(&next->nis[i], why, sizeof(why));
			bad = rc != 0 ? lnetd_reload_fail(first, len, "net add", why, rc) : bad;
		}
	}
	for (i = 0; i < next->npeers; i++) {
		const struct lnetcfg_peer *p = &next->peers[i];
		char why[256] = "";
		int rc;

		if (!lnetd_cfg_has_peer(old, p)) {
			rc = lnet_ctl_peer_add(&p->prim, p->nis, p->nnis, p->mr, why, sizeof(why));
			bad = rc != 0 ? lnetd_reload_fail(first, len, "peer add", why, rc) : bad;
		}
	}
	for (i = 0; i < next->nroutes; i++) {
		const struct lnetcfg_route *r = &next->routes[i];
		char why[256] = "";
		int rc;

		if (lnetd_cfg_has_route(old, r)) {
			continue;
		}
		rc = lnet_ctl_route_add(r->net, &r->gateway,
					r->hops < 0 ? LNET_CTL_UNDEFINED_HOPS : (uint32_t)r->hops,
					(uint32_t)r->priority, (uint32_t)r->health_sensitivity, why,
					sizeof(why));
		if (rc != 0 && why[0] == '\0') {
			snprintf(why, sizeof(why), "%s", lnetd_route_add_descr(rc));
		}
		bad = rc != 0 ? lnetd_reload_fail(first, len, "route add", why, rc) : bad;
	}
	return bad;
}

/*
 * Globals the new file sets (each to its value: setting an unchanged one
 * changes nothing), routing when it changed (a section removed turns
 * routing off, the kernel's default), buffers when given.
 */
static int
lnetd_reload_settings(const struct lnetcfg *old, const struct lnetcfg *next, char *first,
		      size_t len)
{
	char why[256] = "";
	unsigned int i;
	int bad = 0;
	int rc;

	for (i = 0; i < next->nglobals; i++) {
		why[0] = '\0';
		rc = lnetd_global_apply(next->globals[i].key, (int)next->globals[i].value, why,
					sizeof(why));
		bad = rc != 0 ? lnetd_reload_fail(first, len, "global", why, rc) : bad;
	}
	if (next->routing != old->routing &&
	    (next->routing != LNETCFG_UNSET || old->routing == 1)) {
		why[0] = '\0';
		rc = lnet_ctl_routing_set(next->routing == 1, why, sizeof(why));
		bad = rc != 0 ? lnetd_reload_fail(first, len, "routing", why, rc) : bad;
	}
	for (i = 0; next->has_buffers && i < LNETCFG_RTR_POOLS; i++) {
		if (old->has_buffers && old->buffers[i] == next->buffers[i]) {
			continue;
		}
		why[0] = '\0';
		rc = lnet_ctl_buffers_set((enum lnet_ctl_rtr_pool_kind)i, next->buffers[i], why,
					  sizeof(why));
		bad = rc != 0 ? lnetd_reload_fail(first, len, "buffers", why, rc) : bad;
	}
	return bad;
}

/* UDSP rules: when they changed, every rule goes and the new file's come, at their indexes. */
static int
lnetd_reload_udsps(const struct lnetcfg *old, const struct lnetcfg *next, char *first, size_t len)
{
	unsigned int i;
	int bad = 0;

	if (lnetd_udsps_same(old, next)) {
		return 0;
	}
	if (old->nudsps > 0) {
		lnet_ctl_udsp_del(-1);
	}
	for (i = 0; i < next->nudsps; i++) {
		const struct lnetcfg_udsp *u = &next->udsps[i];
		char why[256] = "";
		int rc = lnet_ctl_udsp_add(u->src, u->dst, u->rte, u->priority, (int)u->idx, why,
					   sizeof(why));

		bad = rc != 0 ? lnetd_reload_fail(first, len, "udsp", why, rc) : bad;
	}
	return bad;
}

/*
 * SIGHUP: --config again. A file that does not read (or names an NI this
 * node cannot have) changes nothing; else what changed is applied and the
 * new file is what the next reload compares with.
 */
static void
lnetd_service_reload(struct lnetd_service *s)
{
	const char *path = s->o->config;
	char first[256] = "";
	struct lnetcfg *next;
	unsigned int i;
	unsigned int up = 0;
	int bad = 0;
	int n;

	sd_notify(0, "RELOADING=1");
	if (path == NULL || s->applied == NULL) {
		sd_notify(0, "READY=1\nSTATUS=reload: no --config file, nothing to read again");
		return;
	}
	next = lnetd_cfg_read(path);
	for (i = 0; next != NULL && i < next->nnis; i++) {
		char why[256] = "";

		if (!lnetd_cfg_has_ni(s->applied, &next->nis[i]) &&
		    lnetd_ni_check(&next->nis[i], why, sizeof(why)) != 0) {
			bad = lnetd_reload_fail(first, sizeof(first), "net", why, -EINVAL);
		}
	}
	if (next == NULL || bad != 0) {
		lnetd_cfg_free(next);
		sd_notifyf(0, "READY=1\nSTATUS=reload of %s refused, nothing changed: %s", path,
			   first[0] != '\0' ? first : "the file does not read");
		return;
	}
	bad |= lnetd_reload_delete(s->applied, next, first, sizeof(first));
	bad |= lnetd_reload_add(s->applied, next, first, sizeof(first));
	bad |= lnetd_reload_settings(s->applied, next, first, sizeof(first));
	bad |= lnetd_reload_udsps(s->applied, next, first, sizeof(first));
	lnetd_cfg_free(s->applied);
	s->applied = next;
	/*
	 * No wait for a new NI to come up, unlike at start: the main thread
	 * feeds the watchdog, and a link that stays down must not get a running
	 * node restarted. STATUS says how many are up.
	 */
	n = lnetd_nis_up(&up);
	if (bad != 0) {
		sd_notifyf(0, "READY=1\nSTATUS=reloaded %s with errors (%s); %u of %d NIs up", path,
			   first, up, n);
	} else {
		sd_notifyf(0, "READY=1\nSTATUS=reloaded %s; %u of %d NIs up", path, up, n);
	}
	printf("lnetd-pmd: %s reloaded %s%s\n", s->o->name, path, bad != 0 ? " with errors" : "");
	fflush(stdout);
}

/*
 * Has every lcore's loop count moved within half the watchdog's period,
 * with none in a stall now? Half: a ping made just before the period ends
 * still has room to arrive.
 */
static bool
lnetd_lcores_progress(struct lnetd_service *s, uint64_t now)
{
	struct lnet_ctl_lcore lc[LNP_MAX_CPTS + 1];
	int n = lnet_ctl_lcore_stats(lc, LNP_MAX_CPTS + 1, false);
	bool all = n > 0;
	int late = -1;
	int i;

	for (i = 0; i < n; i++) {
		struct lnetd_lcore_seen *seen = &s->seen[i];

		if (lc[i].loops != seen->loops && !lc[i].stall_ongoing) {
			seen->loops = lc[i].loops;
			seen->moved_us = now;
		}
		if (now - seen->moved_us > s->watchdog_us / 2) {
			all = false;
			late = late < 0 ? i : late;
		}
	}
	if (late != s->late_lcore) {
		if (late >= 0) {
			sd_notifyf(0,
				   "STATUS=%s: lcore %d (0: management, n: CPT n-1) makes no "
				   "progress: watchdog not fed",
				   s->o->name, late);
			fprintf(stderr, "%slnetd-pmd: lcore %d has not moved for %llu us\n",
				lnetd_prio(LOG_CRIT), late,
				(unsigned long long)(now - s->seen[late].moved_us));
		} else {
			sd_notifyf(0, "STATUS=%s up: every lcore moving again", s->o->name);
		}
		s->late_lcore = late;
	}
	return all;
}

static void
lnetd_service_watchdog(struct lnetd_service *s)
{
	if (s->watchdog_us != 0 && lnetd_lcores_progress(s, lnetd_now_us())) {
		sd_notify(0, "WATCHDOG=1");
	}
}

/* READY=1 once every NI is up; 0, or the stop signal that came first. */
static int
lnetd_service_ready(struct lnetd_service *s)
{
	unsigned int i;
	int sig = 0;
	int up = lnetd_wait_nis_up(&sig);
	uint64_t now = lnetd_now_us();

	if (sig == SIGINT || sig == SIGTERM) {
		return sig;
	}
	for (i = 0; i <= LNP_MAX_CPTS; i++) {
		s->seen[i].moved_us = now;
	}
	sd_notifyf(0, "READY=1\nMAINPID=%d\nSTATUS=%s up: %d NIs, configuration %s", (int)getpid(),
		   s->o->name, up, s->o->config != NULL ? s->o->config : "embedded default.yaml");
	return 0;
}

int
lnetd_service_run(const struct lnetd_opts *o)
{
	struct lnetd_service s = { .o = o, .late_lcore = -1 };
	struct timespec tick;
	sigset_t set;
	uint64_t tick_us;
	int sig = 0;

	if (sd_watchdog_enabled(0, &s.watchdog_us) <= 0) {
		s.watchdog_us = 0;
	}
	/* Ping four times a period: two pings fall in every half the lcores are judged on. */
	tick_us = s.watchdog_us != 0 ? s.watchdog_us / 4 : LNETD_TICK_IDLE_US;
	tick_us = tick_us > 0 ? tick_us : 1;
	tick.tv_sec = (time_t)(tick_us / 1000000ULL);
	tick.tv_nsec = (long)(tick_us % 1000000ULL) * 1000L;
	/* The file as it was applied: what a reload compares the new one with. */
	s.applied = o->config != NULL ? lnetd_cfg_read(o->config) : NULL;
	sig = lnetd_service_ready(&s);
	lnetd_service_sigset(&set);
	while (sig != SIGINT && sig != SIGTERM) {
		sig = sigtimedwait(&set, NULL, &tick);
		if (sig == SIGHUP) {
			lnetd_service_reload(&s);
		}
		lnetd_service_watchdog(&s);
	}
	lnetd_cfg_free(s.applied);
	return sig;
}

/*
 * Stopping: messages in flight (the message pool's gauge over every CPT)
 * are given up to @p bound_ms (--drain-ms; 0: none) to complete before LNetNIFini ends the rest
 * with an error event. New ones may still come meanwhile: the bound, not an
 * empty pool, is what ends a busy router's wait.
 */
void
lnetd_service_drain(const struct lnetd_opts *o, unsigned int bound_ms)
{
	const struct timespec step = { 0, LNETD_NI_WAIT_STEP_NS };
	uint64_t until = lnetd_now_us() + (uint64_t)bound_ms * 1000ULL;
	struct lnet_counters c;
	int rc;

	sd_notifyf(0, "STOPPING=1\nSTATUS=%s stopping%s", o->name,
		   bound_ms > 0 ? ": draining in-flight messages" : "");
	if (bound_ms == 0) {
		return;
	}
	while ((rc = lnet_counters_get(&c)) == 0 && c.msgs_alloc > 0 && lnetd_now_us() < until) {
		nanosleep(&step, NULL);
	}
	if (rc == 0 && c.msgs_alloc > 0) {
		fprintf(stderr, "%slnetd-pmd: %s: %u messages still in flight after %u ms\n",
			lnetd_prio(LOG_WARNING), o->name, (unsigned int)c.msgs_alloc, bound_ms);
	}
}
