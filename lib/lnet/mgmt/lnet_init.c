/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bringing the node up and down: CPTs, the runtime (threads on EAL workers,
 * or inline), the loopback NI; plus the node-wide queries of the API.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "lnet_fault.h"
#include "lnet_ctl.h"
#include "lnet_mgmt.h"
#include "lnet_route.h"
#include "lnet_sim.h"
#include "lnp_build_config.h"
#include "rt_wait.h"

#define LNET_EAL_MAX_ARGS 64

static int g_lnet_refcount;
/* Serialises LNetNIInit/LNetNIFini and the options: any application thread may call them. */
static pthread_mutex_t g_lnet_init_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lnet_init_opts g_lnet_opts = { .opts_size = sizeof(struct lnet_init_opts) };

/*
 * Kernel LNet's defaults (lnet-facts §12.8); max_interfaces is 200 as Lustre
 * 2.17 shows it (the global_show.yaml files of captures/kernel/tool-output).
 */
/* The kernel lnet module's router parameters' defaults (lnet-facts §11). */
static const struct lnet_rtr_params lnet_default_rtr_params = {
	.alive_router_check_interval = 60,
	.router_ping_timeout = 50,
	.check_routers_before_use = 0,
	.avoid_asym_router_failure = 1,
};

/* On @p c's lcore as it goes away: discovery's and recovery's I/O in flight there. */
static void
lnet_mgmt_cpt_fini(struct lnet_cpt *c)
{
	lnet_discovery_cpt_fini(c);
	lnet_recovery_cpt_fini(c);
}

const struct lnet_mgmt_hooks lnet_node_hooks = {
	.msg_on_mgmt = lnet_discovery_msg_on_mgmt,
	.cpt_fini = lnet_mgmt_cpt_fini,
	.recovery_ni = lnet_recovery_queue_ni,
	.recovery_lpni = lnet_recovery_queue_lpni,
	.peer_learn = lnet_peer_dir_learn,
	.ni_state = lnet_ni_state_change,
	.gw_heard = lnet_route_gw_heard,
};

static const struct lnet_ctl_global lnet_default_tunables = {
	.numa_range = 0,
	.max_interfaces = 200,
	.discovery = 1,
	.drop_asym_route = 0,
	.retry_count = 2,
	.transaction_timeout = 150,
	.health_sensitivity = 100,
	.recovery_interval = 1,
	.router_sensitivity = 100,
	.lnd_timeout = 49,
	.response_tracking = 3,
	.recovery_limit = 0,
	.max_recovery_ping_interval = 900,
};

/*
 * Holders live outside the instance that LNetNIFini frees, as the stop
 * flag does (dp/lnet_node.c). Sequentially consistent both ways: a holder
 * that counted itself before the flag was set is waited for; one after it
 * sees the flag.
 */
static unsigned int g_ctl_holds;
static unsigned int g_ctl_hold_waits;

int
lnet_ctl_hold(void)
{
	__atomic_fetch_add(&g_ctl_holds, 1, __ATOMIC_SEQ_CST);
	if (lnet_stopping() || lnet_instance() == NULL) {
		lnet_ctl_release();
		return -ESHUTDOWN;
	}
	return 0;
}

void
lnet_ctl_release(void)
{
	__atomic_fetch_sub(&g_ctl_holds, 1, __ATOMIC_SEQ_CST);
}

unsigned int
lnet_ctl_hold_waits(void)
{
	return __atomic_load_n(&g_ctl_hold_waits, __ATOMIC_SEQ_CST);
}

/* No control-plane call holds LNet any more; else one more wait for them counted. */
static bool
lnet_holders_gone(void *arg)
{
	(void)arg;
	if (__atomic_load_n(&g_ctl_holds, __ATOMIC_SEQ_CST) == 0) {
		return true;
	}
	__atomic_fetch_add(&g_ctl_hold_waits, 1, __ATOMIC_SEQ_CST);
	return false;
}

/*
 * LNetNIFini, its NIs gone: the holders' waits have ended; let them leave
 * (their calls need the lcores to move, which this thread runs where no
 * other does).
 */
static void
lnet_wait_for_holders(struct lnet *ln)
{
	rt_wait_for(ln->rt, lnet_holders_gone, NULL);
}

int
lnet_init_opts_set(const struct lnet_init_opts *opts)
{
	int rc = 0;

	if (opts == NULL || opts->opts_size == 0 || opts->opts_size > sizeof(g_lnet_opts) ||
	    opts->mode > LNET_EXEC_POLLED) {
		return -EINVAL;
	}
	pthread_mutex_lock(&g_lnet_init_lock);
	if (lnet_instance() != NULL) {
		rc = -EBUSY;
	} else {
		memset(&g_lnet_opts, 0, sizeof(g_lnet_opts));
		memcpy(&g_lnet_opts, opts, opts->opts_size);
		g_lnet_opts.opts_size = sizeof(g_lnet_opts);
	}
	pthread_mutex_unlock(&g_lnet_init_lock);
	return rc;
}

/* Start EAL with @p args (space separated); the node then owns it. */
static int
lnet_eal_start(const char *args)
{
	char *argv[LNET_EAL_MAX_ARGS];
	char *copy = strdup(args);
	char *save = NULL;
	char *tok;
	int argc = 0;
	int rc;

	if (copy == NULL) {
		return -ENOMEM;
	}
	argv[argc++] = "lnet";
	for (tok = strtok_r(copy, " \t", &save); tok != NULL && argc < LNET_EAL_MAX_ARGS - 1;
	     tok = strtok_r(NULL, " \t", &save)) {
		argv[argc++] = tok;
	}
	argv[argc] = NULL;
	rc = rte_eal_init(argc, argv);
	free(copy);
	if (rc < 0) {
		LNET_LOG(ERR, "EAL initialization failed with \"%s\": %s", args,
			 rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

/*
 * AUTO runs on the real clock: threads when EAL runs (or is asked for) with a
 * worker lcore, else polled on the application's thread. The virtual clock
 * (INLINE) is for tests and only ever chosen by name.
 */
static int
lnet_choose_mode(struct lnet *ln, const struct lnet_init_opts *o)
{
	const char *args = o->eal_args != NULL ? o->eal_args : getenv("LNET_EAL_ARGS");
	int rc;

	if (o->no_eal && (o->eal_args != NULL || o->mode == LNET_EXEC_THREADS)) {
		LNET_LOG(ERR, "no_eal contradicts %s",
			 o->eal_args != NULL ? "eal_args" : "threads mode");
		return -EINVAL;
	}
	if (!o->no_eal && args != NULL && rte_lcore_count() == 0 &&
	    (o->mode == LNET_EXEC_AUTO || o->mode == LNET_EXEC_THREADS)) {
		rc = lnet_eal_start(args);
		if (rc != 0) {
			return rc;
		}
		ln->owns_eal = true;
	}
	if (o->mode == LNET_EXEC_INLINE || o->mode == LNET_EXEC_POLLED) {
		ln->mode = o->mode;
		return 0;
	}
	switch (o->mode) {
	case LNET_EXEC_THREADS:
		if (rte_lcore_count() < 2) {
			LNET_LOG(ERR,
				 "threads mode needs EAL with a worker lcore "
				 "(eal_args or LNET_EAL_ARGS, e.g. \"-l 0,1 --no-huge --no-pci\")");
			return -ENODEV;
		}
		ln->mode = LNET_EXEC_THREADS;
		return 0;
	default:
		ln->mode = rte_lcore_count() >= 2 ? LNET_EXEC_THREADS : LNET_EXEC_POLLED;
		return 0;
	}
}

static int
lnet_choose_cpts(struct lnet *ln, const struct lnet_init_opts *o)
{
	struct cfs_topology *topo = NULL;
	char err[128] = "";
	int rc;

	if (o->ncpts != 0 && o->cpu_pattern == NULL) {
		ln->ncpts = o->ncpts > LNP_MAX_CPTS ? LNP_MAX_CPTS : o->ncpts;
		return 0;
	}
	rc = cfs_topology_from_libnuma(&topo);
	if (rc == 0) {
		rc = cfs_cpt_table_create(topo, o->cpu_pattern, o->ncpts, &ln->cpt_table, err,
					  sizeof(err));
		cfs_topology_free(topo);
	}
	if (rc != 0) {
		LNET_LOG(ERR, "CPT table: %s", err[0] != '\0' ? err : strerror(-rc));
		return rc;
	}
	ln->ncpts = cfs_cpt_number(ln->cpt_table);
	if (ln->ncpts > LNP_MAX_CPTS) {
		ln->ncpts = LNP_MAX_CPTS;
	}
	return 0;
}

static const char *
lnet_exec_mode_name(enum lnet_exec_mode mode)
{
	switch (mode) {
	case LNET_EXEC_THREADS:
		return "threads";
	case LNET_EXEC_POLLED:
		return "polled";
	default:
		return "inline";
	}
}

static enum rt_mode
lnet_rt_mode(enum lnet_exec_mode mode)
{
	switch (mode) {
	case LNET_EXEC_THREADS:
		return RT_MODE_THREADS;
	case LNET_EXEC_POLLED:
		return RT_MODE_POLLED;
	default:
		return RT_MODE_SIM;
	}
}

/* The stall watchdog's threshold (lnet_init_opts.stall_ms); 0: none. */
static uint64_t
lnet_stall_us(const struct lnet *ln, const struct lnet_init_opts *o)
{
	if (o->stall_ms < 0 || ln->mode == LNET_EXEC_INLINE) {
		return 0;
	}
	if (o->stall_ms == 0) {
		return ln->mode == LNET_EXEC_THREADS ? LNET_STALL_MS_DEFAULT * LNP_US_PER_MS : 0;
	}
	return (uint64_t)o->stall_ms * LNP_US_PER_MS;
}

static int
lnet_runtime_start(struct lnet *ln)
{
	struct rt_runtime_opts ro = {
		.opts_size = sizeof(ro),
		.mode = lnet_rt_mode(ln->mode),
		.n_data = ln->ncpts,
		.name = "lnet",
		.stall_us = lnet_stall_us(ln, &g_lnet_opts),
	};
	int rc;

	rc = rt_runtime_create(&ro, &ln->rt);
	if (rc != 0) {
		return rc;
	}
	rc = lnet_msg_pool_create(ln, g_lnet_opts.msgs_per_cpt != 0 ? g_lnet_opts.msgs_per_cpt :
								      LNET_MSGS_PER_CPT_DEFAULT);
	if (rc != 0) {
		return rc;
	}
	ln->fault = lnet_fault_create(ln->rt, 0);
	lnet_node(ln)->udsp = lnet_udsp_state_create(ln);
	if (ln->fault == NULL || lnet_node(ln)->udsp == NULL || lnet_route_init(ln) != 0 ||
	    lnet_router_init(ln) != 0) {
		return -ENOMEM;
	}
	rc = lnet_cpts_create(ln);
	if (rc == 0) {
		rc = rt_runtime_start(ln->rt); /* no thread to start where the caller polls */
	}
	return rc;
}

static uint64_t
lnet_new_interface_cookie(void)
{
	struct timespec ts;
	uint64_t cookie;

	/* Distinguishes this instance's MD handles from a previous one's. */
	clock_gettime(CLOCK_REALTIME, &ts);
	cookie = (uint64_t)ts.tv_sec * LNP_NS_PER_S + (uint64_t)ts.tv_nsec;
	return cookie == UINT64_MAX ? 1 : cookie;
}

static int
lnet_ni_table_create_on_mgmt(void *arg)
{
	return lnet_ni_table_create(arg);
}

static void
lnet_destroy(struct lnet *ln)
{
	if (ln->rt != NULL) {
		rt_runtime_stop(ln->rt);
	}
	lnet_recovery_fini(ln);
	lnet_router_fini(ln);
	lnet_cpts_destroy(ln);
	lnet_fault_destroy(ln->fault);
	ln->fault = NULL;
	lnet_ping_target_fini(ln);
	lnet_route_fini(ln);
	lnet_peer_dir_destroy(ln);
	lnet_ni_table_destroy(ln);
	lnet_udsp_state_destroy(lnet_node(ln)->udsp);
	lnet_node(ln)->udsp = NULL;
	lnet_msg_pool_destroy(ln);
	if (ln->rt != NULL) {
		rt_runtime_destroy(ln->rt);
	}
	if (ln->cpt_table != NULL) {
		cfs_cpt_table_free(ln->cpt_table);
	}
	if (ln->owns_eal) {
		rte_eal_cleanup();
	}
	free(lnet_node(ln));
}

static int lnet_ni_fini_locked(void);

static int
lnet_ni_init_locked(lnet_pid_t requested_pid)
{
	struct lnet_node *node;
	struct lnet *ln;
	int rc;

	if (lnet_instance() != NULL) {
		return g_lnet_refcount++;
	}
	/* Cache-line aligned: per-lcore parts of it are (hop counts, cpt_mgmt). */
	node = aligned_alloc(RTE_CACHE_LINE_SIZE,
			     RTE_ALIGN_CEIL(sizeof(*node), RTE_CACHE_LINE_SIZE));
	if (node == NULL) {
		return -ENOMEM;
	}
	memset(node, 0, sizeof(*node));
	ln = &node->ln;
	ln->mgmt = &lnet_node_hooks;
	ln->pid = requested_pid == LNET_PID_ANY ? LNET_PID_LUSTRE : requested_pid;
	ln->tunables = lnet_default_tunables;
	lnet_node(ln)->rtr_params = lnet_default_rtr_params;
	ln->interface_cookie = lnet_new_interface_cookie();
	rc = lnet_choose_mode(ln, &g_lnet_opts);
	if (rc == 0) {
		rc = lnet_choose_cpts(ln, &g_lnet_opts);
	}
	if (rc == 0) {
		rc = lnet_runtime_start(ln);
	}
	if (rc == 0) {
		rc = rt_lcore_call(rt_mgmt_lcore(ln->rt), lnet_ni_table_create_on_mgmt, ln);
	}
	if (rc != 0) {
		lnet_destroy(ln);
		return rc;
	}
	lnet_stopping_set(false);
	lnet_instance_publish(ln);
	g_lnet_refcount = 1;
	rc = lnet_ping_target_init(ln);
	if (rc != 0) {
		LNET_LOG(ERR, "ping target: %s", strerror(-rc));
		lnet_ni_fini_locked();
		return rc;
	}
	LNET_LOG(INFO, "up: %u CPT(s), %s mode, pid %u", ln->ncpts, lnet_exec_mode_name(ln->mode),
		 ln->pid);
	return 0;
}

/*
 * Shutdown on each data lcore: messages waiting on a lazy portal are
 * dropped, and messages waiting for credits complete with -ESHUTDOWN, so
 * none ends without its event.
 */
static int
lnet_cpt_quiesce(void *arg)
{
	struct lnet_cpt *c = arg;
	unsigned int p;

	for (p = 0; p < LNET_MAX_PORTALS; p++) {
		lnet_ptl_drop_delayed(c, p);
	}
	lnet_credits_abort_queued(c, -ESHUTDOWN);
	lnet_fault_drop_held(c, NULL, -ESHUTDOWN);
	lnet_fwd_abort_queued(c);
	lnet_rsp_fini(c);
	return 0;
}

static int
lnet_ni_fini_locked(void)
{
	struct lnet *ln = lnet_instance();
	unsigned int i;

	if (ln == NULL) {
		return -ENETDOWN;
	}
	if (--g_lnet_refcount > 0) {
		return 0;
	}
	lnet_stopping_set(true);
	for (i = 0; i < LNET_MAX_PORTALS; i++) {
		__atomic_store_n(&ln->portals[i].lazy, 0, __ATOMIC_RELEASE);
	}
	lnet_discovery_shutdown(ln);
	for (i = 0; i < ln->ncpts; i++) {
		lnet_call_on_cpt(ln, i, lnet_cpt_quiesce, ln->cpts[i]);
	}
	lnet_ni_shutdown_all(ln);
	rt_wait_settle(ln->rt);
	lnet_wait_for_holders(ln);
	lnet_instance_publish(NULL);
	lnet_destroy(ln);
	return 0;
}

int
LNetNIInit(lnet_pid_t requested_pid)
{
	int rc;

	pthread_mutex_lock(&g_lnet_init_lock);
	rc = lnet_ni_init_locked(requested_pid);
	pthread_mutex_unlock(&g_lnet_init_lock);
	return rc;
}

int
LNetNIFini(void)
{
	int rc;

	pthread_mutex_lock(&g_lnet_init_lock);
	rc = lnet_ni_fini_locked();
	pthread_mutex_unlock(&g_lnet_init_lock);
	return rc;
}

int
LNetSetLazyPortal(int portal)
{
	struct lnet *ln = lnet_instance();

	if (ln == NULL) {
		return -ENETDOWN;
	}
	if (portal < 0 || portal >= LNET_MAX_PORTALS) {
		return -EINVAL;
	}
	__atomic_store_n(&ln->portals[portal].lazy, 1, __ATOMIC_RELEASE);
	return 0;
}

struct lnet_clear_lazy_args {
	struct lnet *ln;
	unsigned int portal;
	unsigned int cpt;
};

static int
lnet_clear_lazy_on_cpt(void *arg)
{
	struct lnet_clear_lazy_args *a = arg;

	lnet_ptl_drop_delayed(a->ln->cpts[a->cpt], a->portal);
	return 0;
}

int
LNetClearLazyPortal(int portal)
{
	struct lnet_clear_lazy_args a = { lnet_instance(), (unsigned int)portal, 0 };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (portal < 0 || portal >= LNET_MAX_PORTALS) {
		return -EINVAL;
	}
	__atomic_store_n(&a.ln->portals[portal].lazy, 0, __ATOMIC_RELEASE);
	for (a.cpt = 0; a.cpt < a.ln->ncpts; a.cpt++) {
		lnet_call_on_cpt(a.ln, a.cpt, lnet_clear_lazy_on_cpt, &a);
	}
	return 0;
}

struct lnet_getid_args {
	struct lnet *ln;
	unsigned int index;
	bool large_nids;
	struct lnet_processid *id;
};

static int
lnet_getid_on_mgmt(void *arg)
{
	struct lnet_getid_args *a = arg;
	const struct lnet_ni_table *t = lnet_ni_table_get(a->ln);
	unsigned int i;
	unsigned int n = 0;

	for (i = 0; i < t->nnis; i++) {
		if (!a->large_nids && !lnet_nid_is_nid4(&t->nis[i]->nid)) {
			continue;
		}
		if (n++ == a->index) {
			a->id->nid = t->nis[i]->nid;
			a->id->pid = a->ln->pid;
			return 0;
		}
	}
	return -ENOENT;
}

int
LNetGetId(unsigned int index, struct lnet_processid *id, bool large_nids)
{
	struct lnet_getid_args a = { lnet_instance(), index, large_nids, id };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (id == NULL) {
		return -EINVAL;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_getid_on_mgmt, &a);
}

struct lnet_counters_args {
	struct lnet *ln;
	unsigned int cpt;
	struct lnet_counters *sum;
};

static int
lnet_counters_add_on_cpt(void *arg)
{
	struct lnet_counters_args *a = arg;
	const struct lnet_counters *c = &a->ln->cpts[a->cpt]->counters;
	struct lnet_counters *s = a->sum;

	s->msgs_alloc += c->msgs_alloc;
	s->msgs_max += c->msgs_max;
	s->rst_alloc += c->rst_alloc;
	s->errors += c->errors;
	s->send_count += c->send_count;
	s->recv_count += c->recv_count;
	s->route_count += c->route_count;
	s->drop_count += c->drop_count;
	s->send_length += c->send_length;
	s->recv_length += c->recv_length;
	s->route_length += c->route_length;
	s->drop_length += c->drop_length;
	s->resend_count += c->resend_count;
	s->response_timeout_count += c->response_timeout_count;
	s->local_interrupt_count += c->local_interrupt_count;
	s->local_dropped_count += c->local_dropped_count;
	s->local_aborted_count += c->local_aborted_count;
	s->local_no_route_count += c->local_no_route_count;
	s->local_timeout_count += c->local_timeout_count;
	s->local_error_count += c->local_error_count;
	s->remote_dropped_count += c->remote_dropped_count;
	s->remote_error_count += c->remote_error_count;
	s->remote_timeout_count += c->remote_timeout_count;
	s->network_timeout_count += c->network_timeout_count;
	s->failed_resends += c->failed_resends;
	s->successful_resends += c->successful_resends;
	return 0;
}

int
lnet_counters_get(struct lnet_counters *out)
{
	struct lnet_counters_args a = { lnet_instance(), 0, out };

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (out == NULL) {
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	for (a.cpt = 0; a.cpt < a.ln->ncpts; a.cpt++) {
		int rc = lnet_call_on_cpt(a.ln, a.cpt, lnet_counters_add_on_cpt, &a);

		if (rc != 0) {
			return rc;
		}
	}
	return 0;
}

/*
 * Messages alive now stay counted: msgs_alloc is a gauge, not a total (each
 * CPT's share of it, the sum alone means something); the high-water mark
 * starts again from this CPT's messages alive.
 */
static int
lnet_counters_reset_on_cpt(void *arg)
{
	struct lnet_cpt *cpt = arg;
	struct lnet_counters *c = &cpt->counters;
	uint32_t gauge = c->msgs_alloc;

	memset(c, 0, sizeof(*c));
	c->msgs_alloc = gauge;
	c->msgs_max = lnet_msg_alive_home(cpt);
	lnet_hop_counts_reset_self(cpt->ln);
	return 0;
}

/* On the management lcore: its hop counts, and where the message pool's empty count stands. */
static int
lnet_counters_reset_on_mgmt(void *arg)
{
	lnet_hop_counts_reset_self(arg);
	lnet_msg_pool_empty_mark(arg);
	return 0;
}

int
lnet_counters_reset(void)
{
	struct lnet *ln = lnet_instance();
	unsigned int cpt;

	if (ln == NULL) {
		return -ENETDOWN;
	}
	for (cpt = 0; cpt < ln->ncpts; cpt++) {
		int rc = lnet_call_on_cpt(ln, cpt, lnet_counters_reset_on_cpt, ln->cpts[cpt]);

		if (rc != 0) {
			return rc;
		}
	}
	return rt_lcore_call(rt_mgmt_lcore(ln->rt), lnet_counters_reset_on_mgmt, ln);
}

const char *
lnet_event_kind_str(enum lnet_event_kind kind)
{
	switch (kind) {
	case LNET_EVENT_GET:
		return "GET";
	case LNET_EVENT_PUT:
		return "PUT";
	case LNET_EVENT_REPLY:
		return "REPLY";
	case LNET_EVENT_ACK:
		return "ACK";
	case LNET_EVENT_SEND:
		return "SEND";
	case LNET_EVENT_UNLINK:
		return "UNLINK";
	}
	return "UNKNOWN";
}
