/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The layers under TCP with real threads: the management lcore and the data
 * lcore on two EAL workers, the test on the main thread. ARP goes from the
 * data lcore to the writer and back, echo requests and replies cross the
 * ring wire, while the test thread asks for pings; under the sanitizers this
 * is where a race between the writer and its RCU readers would show.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include "lnp_test.h"
#include "net_ip.h"
#include "net_neigh.h"
#include "net_port.h"
#include "rt.h"

#define IP4(a, b, c, d) \
	rte_cpu_to_be_32((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define PINGS 200

struct node {
	struct net_port *port;
	struct net_neigh *nb;
	struct net_ip *ip;
	unsigned int replies; /* written by the data lcore, read by the test */
};

static void
on_echo(void *arg, unsigned int lcore, uint32_t from, uint16_t id, uint16_t seq, const void *data,
	size_t len)
{
	struct node *n = arg;

	(void)lcore;
	(void)from;
	(void)id;
	(void)seq;
	(void)data;
	(void)len;
	__atomic_store_n(&n->replies, n->replies + 1, __ATOMIC_RELEASE);
}

static void
node_open(struct rt_runtime *rt, struct node *n, const char *name, struct rte_ring *rx,
	  struct rte_ring *tx, uint32_t addr, uint8_t mac_last)
{
	struct rte_ether_addr mac = { .addr_bytes = { 0x02, 0, 0, 0, 0x7e, mac_last } };
	struct net_port_conf pc = { .conf_size = sizeof(pc), .nb_mbufs = 4095, .mac = &mac };
	int id = rte_eth_from_rings(name, &rx, 1, &tx, 1, SOCKET_ID_ANY);

	assert_true(id >= 0);
	pc.port_id = (uint16_t)id;
	assert_int_equal(net_port_open(rt, &pc, &n->port), 0);
	assert_int_equal(net_neigh_create(n->port, NULL, &n->nb), 0);
	assert_int_equal(net_ip_create(n->nb, NULL, &n->ip), 0);
	net_ip_set_echo_fn(n->ip, on_echo, n);
	assert_int_equal(net_neigh_addr_add(n->nb, addr, 24), 0);
	assert_int_equal(net_port_start(n->port), 0);
}

struct ping_req {
	struct net_ip *ip;
	uint32_t dst;
	uint16_t seq;
};

static int
ping_on_lcore(void *arg)
{
	struct ping_req *p = arg;

	return net_ip_ping(p->ip, 0, p->dst, 1, p->seq, 64);
}

struct want {
	struct node *n;
	unsigned int replies;
};

static bool
replies_reached(void *arg)
{
	struct want *w = arg;

	return __atomic_load_n(&w->n->replies, __ATOMIC_ACQUIRE) >= w->replies;
}

static struct rt_runtime *rt;
static struct rte_ring *ab, *ba;
static struct node na, nb_; /* the two stacks */

/* The runtime stops even when an assertion failed: its workers would keep EAL from ending. */
static int
teardown(void **state)
{
	(void)state;
	if (rt == NULL) {
		return 0;
	}
	if (na.port != NULL) {
		net_port_close(na.port);
	}
	if (nb_.port != NULL) {
		net_port_close(nb_.port);
	}
	/* The caches go on the management lcore: before it stops. */
	net_neigh_destroy(na.nb);
	net_neigh_destroy(nb_.nb);
	rt_runtime_stop(rt);
	net_ip_destroy(na.ip);
	net_ip_destroy(nb_.ip);
	rt_runtime_destroy(rt);
	rte_ring_free(ab);
	rte_ring_free(ba);
	return 0;
}

static void
test_threads_ping_both_ways(void **state)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_THREADS, .n_data = 1 };
	struct net_neigh_stats ns;
	unsigned int i;

	(void)state;
	ab = rte_ring_create("net_th_ab", 1024, SOCKET_ID_ANY, 0);
	ba = rte_ring_create("net_th_ba", 1024, SOCKET_ID_ANY, 0);
	assert_non_null(ab);
	assert_non_null(ba);
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	assert_int_equal(rt_runtime_start(rt), 0);
	node_open(rt, &na, "net_th_a", ba, ab, IP4(10, 1, 0, 1), 0xa);
	node_open(rt, &nb_, "net_th_b", ab, ba, IP4(10, 1, 0, 2), 0xb);
	/* Each ping waits for its reply: the first one waits for ARP too. */
	for (i = 1; i <= PINGS; i++) {
		struct ping_req pa = { na.ip, IP4(10, 1, 0, 2), (uint16_t)i };
		struct ping_req pb = { nb_.ip, IP4(10, 1, 0, 1), (uint16_t)i };
		struct want wa = { &na, i }, wb = { &nb_, i };

		assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 0), ping_on_lcore, &pa), 0);
		assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 0), ping_on_lcore, &pb), 0);
		assert_true(rt_wait_until(rt, replies_reached, &wa, LNP_TEST_WAIT_LIMIT_US));
		assert_true(rt_wait_until(rt, replies_reached, &wb, LNP_TEST_WAIT_LIMIT_US));
	}
	net_neigh_stats(na.nb, &ns);
	assert_int_equal(ns.arp_req_tx, 1);
	assert_int_equal(ns.resolved, 1);
	/* B's first ping may leave before A's request reaches B: then B asks too. */
	net_neigh_stats(nb_.nb, &ns);
	assert_true(ns.arp_req_tx <= 1);
	assert_int_equal(ns.resolved, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_threads_ping_both_ways, teardown),
	};
	struct lnp_test_eal_args a;
	int rc;

	/* Three EAL lcores on the machine's CPUs: the main thread and two workers. */
	lnp_test_eal_args_init(&a, "net-th-ut", "0");
	a.argv[a.argc - 2] = "--lcores";
	a.argv[a.argc - 1] = "0@0,1@(0-1),2@(0-1)";
	if (rte_eal_init(a.argc, a.argv) < 0) {
		return 1;
	}
	setvbuf(stdout, NULL, _IONBF, 0); /* a failure leaves workers running: print it first */
	rc = cmocka_run_group_tests_name("net, threads", tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
