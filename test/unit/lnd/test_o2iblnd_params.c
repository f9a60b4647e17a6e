/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ko2iblnd's module parameters as --lnd-params o2ib:... takes them: the
 * kernel's names and defaults (o2ib-facts §7), ranges, ib_mtu's rule,
 * map_on_demand's rewrite, the parameters that mean nothing here, all or
 * nothing, and the credit tunables an NI derives from them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "o2iblnd_params.h"

static int
value_of(const char *name)
{
	struct lnet_lnd_param p[64];
	unsigned int n = o2iblnd_params_get(p, 64);

	for (unsigned int i = 0; i < n; i++) {
		if (strcmp(p[i].name, name) == 0) {
			return p[i].value;
		}
	}
	fail_msg("no parameter %s", name);
	return 0;
}

static int
reset(void **state)
{
	(void)state;
	o2iblnd_params_reset();
	return 0;
}

static void
test_defaults(void **state)
{
	struct lnet_lnd_param p[64];

	(void)state;
	assert_int_equal(o2iblnd_params_get(p, 64), 20);
	assert_string_equal(p[0].name, "service");
	assert_int_equal(value_of("service"), 987);
	assert_int_equal(value_of("cksum"), 0);
	assert_int_equal(value_of("timeout"), 50);
	assert_int_equal(value_of("conns_per_peer"), 1);
	assert_int_equal(value_of("ntx"), 512);
	assert_int_equal(value_of("peer_credits_hiw"), 0);
	assert_int_equal(value_of("retry_count"), 5);
	assert_int_equal(value_of("rnr_retry_count"), 6);
	assert_int_equal(value_of("keepalive"), 100);
	assert_int_equal(value_of("ib_mtu"), 0);
	assert_int_equal(value_of("concurrent_sends"), 0);
	assert_int_equal(value_of("map_on_demand"), 1);
	assert_int_equal(value_of("fmr_pool_size"), 512);
	assert_int_equal(value_of("fmr_flush_trigger"), 384);
	assert_int_equal(value_of("fmr_cache"), 1);
	assert_int_equal(value_of("require_privileged_port"), 0);
	assert_int_equal(value_of("use_privileged_port"), 1);
	assert_int_equal(value_of("wrq_sge"), 2);
	assert_int_equal(value_of("tos"), -1);
	/* a short buffer gets the first ones */
	assert_int_equal(o2iblnd_params_get(p, 3), 3);
}

static void
test_set(void **state)
{
	char err[160] = "";

	(void)state;
	assert_int_equal(o2iblnd_params_set("peer_credits_hiw=7,concurrent_sends=16,cksum=1", err,
					    sizeof(err)),
			 0);
	assert_int_equal(value_of("peer_credits_hiw"), 7);
	assert_int_equal(value_of("concurrent_sends"), 16);
	assert_int_equal(value_of("cksum"), 1);
	assert_int_equal(o2iblnd_params_set("service=0x3db,tos=-1", err, sizeof(err)), 0);
	assert_int_equal(value_of("service"), 987);
	/* map_on_demand 0 is forced to 1, as the kernel does */
	assert_int_equal(o2iblnd_params_set("map_on_demand=0", err, sizeof(err)), 0);
	assert_int_equal(value_of("map_on_demand"), 1);
	assert_int_equal(o2iblnd_params_set("map_on_demand=32", err, sizeof(err)), 0);
	assert_int_equal(value_of("map_on_demand"), 32);
}

static void
test_refused(void **state)
{
	char err[160] = "";

	(void)state;
	assert_int_equal(o2iblnd_params_set("ib_mtu=1000", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "256/512/1024/2048/4096"));
	assert_int_equal(o2iblnd_params_set("ib_mtu=2048", err, sizeof(err)), 0);
	assert_int_equal(o2iblnd_params_set("retry_count=8", err, sizeof(err)), -EINVAL);
	assert_int_equal(o2iblnd_params_set("tos=256", err, sizeof(err)), -EINVAL);
	assert_int_equal(o2iblnd_params_set("nscheds=4", err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "data lcore"));
	assert_int_equal(o2iblnd_params_set("peer_credits=16", err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "--peer-credits"));
	assert_int_equal(o2iblnd_params_set("ipif_name=1", err, sizeof(err)), -EOPNOTSUPP);
	assert_int_equal(o2iblnd_params_set("no_such=1", err, sizeof(err)), -ENOENT);
	assert_int_equal(o2iblnd_params_set("keepalive", err, sizeof(err)), -EINVAL);
	assert_int_equal(o2iblnd_params_set("keepalive=ten", err, sizeof(err)), -EINVAL);
	assert_int_equal(o2iblnd_params_set("", err, sizeof(err)), -EINVAL);
	/* all or nothing: the good first item is not kept */
	assert_int_equal(o2iblnd_params_set("keepalive=5,cksum=2", err, sizeof(err)), -EINVAL);
	assert_int_equal(value_of("keepalive"), 100);
	assert_int_equal(value_of("ib_mtu"), 2048);
}

/* An NI's credit tunables: the module's hiw and concurrent_sends over its peer_credits. */
static void
test_credit_tunables(void **state)
{
	struct o2iblnd_opts o;
	struct o2ib_credit_tunables t;
	char err[160];

	(void)state;
	o2iblnd_params_current(&o);
	o2iblnd_credit_tunables(&o, 256, 8, &t);
	assert_int_equal(t.peer_credits, 8);
	assert_int_equal(t.peer_credits_hiw, 4);
	assert_int_equal(t.concurrent_sends, 8);
	assert_int_equal(o2iblnd_params_set("peer_credits_hiw=100,concurrent_sends=100", err,
					    sizeof(err)),
			 0);
	o2iblnd_params_current(&o);
	o2iblnd_credit_tunables(&o, 256, 32, &t);
	assert_int_equal(t.peer_credits_hiw, 31);
	assert_int_equal(t.concurrent_sends, 64);
}

/* An NI's lnd tunables over the module parameters, and net show -v's list. */
static void
test_ni_tunables(void **state)
{
	struct lnet_ctl_lnd_tunables tun = {
		4,
		{ { "peercredits_hiw", 6 }, { "conns_per_peer", 2 }, { "tos", -1 }, { "ntx", 0 } }
	};
	struct lnet_ctl_lnd_tunable out[16];
	struct o2iblnd_opts o;
	char err[160] = "";

	(void)state;
	assert_int_equal(o2iblnd_params_set("ntx=1024,tos=5", err, sizeof(err)), 0);
	assert_int_equal(o2iblnd_ni_opts(&tun, &o, err, sizeof(err)), 0);
	assert_int_equal(o.peer_credits_hiw, 6);
	assert_int_equal(o.conns_per_peer, 2);
	assert_int_equal(o.tos, 5);    /* -1: the module's */
	assert_int_equal(o.ntx, 1024); /* 0: the module's */
	/* the kernel's list, in its order; map_on_demand always 1 */
	assert_int_equal(o2iblnd_ni_tunables(&o, 50, out, 16), 10);
	assert_string_equal(out[0].key, "peercredits_hiw");
	assert_int_equal(out[0].value, 6);
	assert_string_equal(out[1].key, "map_on_demand");
	assert_int_equal(out[1].value, 1);
	assert_string_equal(out[6].key, "ntx");
	assert_int_equal(out[6].value, 1024);
	assert_string_equal(out[8].key, "timeout");
	assert_int_equal(out[8].value, 50);
	assert_string_equal(out[9].key, "tos");
	assert_int_equal(out[9].value, 5);
	assert_int_equal(o2iblnd_ni_tunables(&o, 50, out, 8), 8);
	/* refusals */
	tun = (struct lnet_ctl_lnd_tunables){ 1, { { "conns_per_peer", 200 } } };
	assert_int_equal(o2iblnd_ni_check(&tun, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "conns_per_peer"));
	tun = (struct lnet_ctl_lnd_tunables){ 1, { { "nagle", 1 } } };
	assert_int_equal(o2iblnd_ni_check(&tun, err, sizeof(err)), -ENOENT);
	/* map_on_demand and timeout are taken and dropped, as the kernel */
	tun = (struct lnet_ctl_lnd_tunables){ 2, { { "map_on_demand", 0 }, { "timeout", 9 } } };
	assert_int_equal(o2iblnd_ni_opts(&tun, &o, err, sizeof(err)), 0);
	assert_int_equal(o.map_on_demand, 1);
	assert_int_equal(o.timeout, 50);
	assert_int_equal(o2iblnd_ni_check(NULL, err, sizeof(err)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_defaults, reset),
		cmocka_unit_test_setup(test_set, reset),
		cmocka_unit_test_setup(test_refused, reset),
		cmocka_unit_test_setup(test_credit_tunables, reset),
		cmocka_unit_test_setup(test_ni_tunables, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
