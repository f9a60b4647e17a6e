/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A socklnd NI whose rtnetlink notifications were lost reloads its table of
 * the host's links beside its lcore, never on it: getifaddrs waits for the
 * kernel's rtnl lock, which another namespace's teardown holds for seconds
 * (issue 31: a lcore must never wait for the kernel). getifaddrs is
 * interposed with a gate the test holds closed: the lcore goes on while the
 * reloader waits at it; the fresh table is taken in at the next sweep; an
 * NI deleted with a reload's table still pending frees it (ASan: no leak).
 */
#include <dlfcn.h>
#include <errno.h>
#include <ifaddrs.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "lnd_ut.h"
#include "lnet_ut.h"
#include "socklnd.h"
#include "socklnd_internal.h"
#include "lnp_test.h"
#include "lnp_test_nid.h"

#define OUR_ADDR 0x7f000001U
#define GATE_LIMIT_S 10 /* a reloader is let through after this, so a broken test ends */

static struct lnet_ni *g_sni;
static uint16_t g_port;

/* ---- getifaddrs behind a gate ---- */

static pthread_mutex_t g_gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gate_cond = PTHREAD_COND_INITIALIZER;
static bool g_gate_closed;
static unsigned int g_gate_waiting; /* callers held at the gate now */
static unsigned int
	g_gate_passed; /* callers let through while the gate was closed, or after it opened */

int getifaddrs(struct ifaddrs **ifap);

int
getifaddrs(struct ifaddrs **ifap)
{
	int (*real)(struct ifaddrs **) = (int (*)(struct ifaddrs **))dlsym(RTLD_NEXT, "getifaddrs");
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += GATE_LIMIT_S;
	pthread_mutex_lock(&g_gate_lock);
	g_gate_waiting++;
	while (g_gate_closed && pthread_cond_timedwait(&g_gate_cond, &g_gate_lock, &until) == 0) {
	}
	g_gate_waiting--;
	g_gate_passed++;
	pthread_mutex_unlock(&g_gate_lock);
	return real(ifap);
}

static void
gate_set(bool closed)
{
	pthread_mutex_lock(&g_gate_lock);
	g_gate_closed = closed;
	g_gate_passed = 0;
	pthread_cond_broadcast(&g_gate_cond);
	pthread_mutex_unlock(&g_gate_lock);
}

static unsigned int
gate_read(unsigned int *what)
{
	unsigned int v;

	pthread_mutex_lock(&g_gate_lock);
	v = *what;
	pthread_mutex_unlock(&g_gate_lock);
	return v;
}

/* ---- the NI ---- */

static int
add_sock_ni(void *arg)
{
	struct lnet_ni_tunables tun = { .peer_tx_credits = 8,
					.max_tx_credits = 256,
					.peer_timeout = 180 };
	struct lnet_nid nid = lnp_tcp_nid(OUR_ADDR);
	char params[96];
	char err[160];

	(void)arg;
	snprintf(params, sizeof(params), "accept_port=%u,accept=all", g_port);
	socklnd_params_reset();
	assert_int_equal(socklnd_params_set(params, err, sizeof(err)), 0);
	return lnet_ni_add(lnet_instance(), &nid, socklnd_lnd_ops(), &tun, NULL, 0, &g_sni);
}

static int
setup(void **state)
{
	(void)state;
	gate_set(false);
	g_port = (uint16_t)(20000 + getpid() % 20000);
	ut_up(1);
	ut_discovery(0);
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_sock_ni, NULL), 0);
	settle();
	return 0;
}

/* What the lcore knows of its reload, read on the lcore. */
struct link_look {
	bool reloading;
	const struct sock_link_table *links;
	uint64_t reloads;
	uint64_t checks;
};

static int
look_on_lcore(void *arg)
{
	const struct socklnd_ni *s = lnet_ni_lnd_data(g_sni);
	struct link_look *l = arg;

	l->reloading = s->link_reloading;
	l->links = s->links;
	l->reloads = s->stats.link_reloads;
	l->checks = s->stats.link_checks;
	return 0;
}

static struct link_look
look(void)
{
	struct link_look l;

	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, look_on_lcore, &l), 0);
	return l;
}

/* What the NI's lcore does when rtnetlink says notifications were lost. */
static int
lost_on_lcore(void *arg)
{
	(void)arg;
	socklnd_link_reload_start(lnet_ni_lnd_data(g_sni));
	return 0;
}

static void
notifications_lost(void)
{
	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, lost_on_lcore, NULL), 0);
}

/* The reloader has read the table (its result waits for the lcore). */
static int
reload_done_on_lcore(void *arg)
{
	const struct socklnd_ni *s = lnet_ni_lnd_data(g_sni);

	*(bool *)arg = __atomic_load_n(&s->link_reload_done, __ATOMIC_ACQUIRE);
	return 0;
}

static bool
reload_done(void)
{
	bool done;

	assert_int_equal(rt_lcore_call(lnet_instance()->cpts[0]->lcore, reload_done_on_lcore,
				       &done),
			 0);
	return done;
}

/*
 * Notifications lost: the lcore starts a reload and goes on at once while
 * the reloader waits for the kernel (the gate); the sweep takes the fresh
 * table in once it is read, and looks at the link state with it.
 */
static void
test_reload_beside_the_lcore(void **state)
{
	struct link_look before;
	struct link_look l;

	(void)state;
	before = look();
	gate_set(true);
	notifications_lost();
	/* back on the lcore while the reloader is held: nothing waited for getifaddrs */
	assert_int_equal(gate_read(&g_gate_passed), 0);
	PUMP_UNTIL("the reloader at the gate", gate_read(&g_gate_waiting) == 1);
	l = look();
	assert_true(l.reloading);
	assert_ptr_equal(l.links, before.links); /* the old table serves meanwhile */
	assert_int_equal(l.reloads, before.reloads + 1);
	notifications_lost(); /* another loss meanwhile: no second reloader */
	rt_sim_advance_us(lnet_instance()->rt, 1100000);
	settle(); /* a sweep: the reload is not done, nothing changes */
	assert_true(look().reloading);
	assert_int_equal(gate_read(&g_gate_waiting), 1);

	gate_set(false);
	PUMP_UNTIL("the reloader done", reload_done());
	rt_sim_advance_us(lnet_instance()->rt, 1100000);
	settle(); /* the sweep takes the table in, then starts again: a loss came meanwhile */
	l = look();
	assert_ptr_not_equal(l.links, before.links);
	assert_int_equal(l.checks, before.checks + 1);
	assert_int_equal(l.reloads, before.reloads + 2);
	PUMP_UNTIL("the second reloader done", reload_done());
	rt_sim_advance_us(lnet_instance()->rt, 1100000);
	settle();
	l = look();
	assert_false(l.reloading);
	assert_int_equal(l.reloads, before.reloads + 2); /* nothing came during the second */
	assert_int_equal(l.checks, before.checks + 2);
}

/* The NI deleted with a reload's table read and not yet taken in: freed with it, not leaked. */
static void
test_reload_pending_when_ni_deleted(void **state)
{
	struct lnet_nid our = lnp_tcp_nid(OUR_ADDR);

	(void)state;
	notifications_lost();
	PUMP_UNTIL("the reloader done", reload_done());
	assert_true(look().reloading); /* its table waits for the next sweep */
	assert_int_equal(lnet_ni_del(lnet_instance(), &our), 0);
	settle();
	rt_sim_advance_us(lnet_instance()->rt, 1100000);
	settle(); /* the sweep's time: nothing runs on the freed NI */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reload_beside_the_lcore, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_reload_pending_when_ni_deleted, setup,
						ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
