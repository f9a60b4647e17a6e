/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration model (apps/common/lnetcfg): lnet.conf in the shapes
 * the kernel's lnetctl import reads, its warnings, its errors.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cfs.h"
#include "lnetcfg.h"

/* What one parse reported: errors and warnings, each line after the last. */
struct seen {
	char errors[1024];
	char warnings[1024];
};

static void
add_line(char *buf, size_t len, const char *msg)
{
	size_t used = strlen(buf);

	snprintf(buf + used, len - used, "%s\n", msg);
}

static void
on_error(void *arg, const char *msg)
{
	add_line(((struct seen *)arg)->errors, sizeof(((struct seen *)arg)->errors), msg);
}

static void
on_warn(void *arg, const char *msg)
{
	add_line(((struct seen *)arg)->warnings, sizeof(((struct seen *)arg)->warnings), msg);
}

static int
parse(struct lnetcfg *cfg, struct seen *s, const char *text)
{
	memset(s, 0, sizeof(*s));
	lnetcfg_init(cfg, "f.yaml", on_error, s);
	cfg->warn = on_warn;
	return lnetcfg_parse(cfg, text, strlen(text));
}

static void
assert_ni(const struct lnetcfg_ni *ni, const char *net, const char *ifname, int peer_credits)
{
	assert_int_equal(ni->net, libcfs_str2net(net));
	assert_string_equal(ni->ifname, ifname);
	assert_int_equal(ni->peer_credits, peer_credits);
}

/* cYAML's indentation and libyaml's give the same model; one NI per interface. */
static void
test_indentations_and_interfaces(void **state)
{
	static const char *const forms[] = {
		"net:\n    -   net type: tcp\n        local NI(s):\n          -   interfaces:\n"
		"                  0: eth0\n                  1: eth1\n              tunables:\n"
		"                  peer_credits: 8\n              status: up\n",
		"net:\n- net type: tcp\n  local NI(s):\n  - interfaces:\n      0: eth0\n      1: eth1\n"
		"    tunables:\n      peer_credits: 8\n    statistics:\n      send_count: 3\n",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct lnetcfg cfg;
		struct seen s;

		assert_int_equal(parse(&cfg, &s, forms[i]), 0);
		assert_string_equal(s.errors, "");
		assert_int_equal(cfg.nnis, 2);
		assert_ni(&cfg.nis[0], "tcp", "eth0", 8);
		assert_ni(&cfg.nis[1], "tcp", "eth1", 8);
		lnetcfg_fini(&cfg);
	}
}

/* The flat form: interfaces and tunables beside "net type". */
static void
test_flat_net_form(void **state)
{
	struct lnetcfg cfg;
	struct seen s;

	(void)state;
	assert_int_equal(parse(&cfg, &s, "net:\n  - net type: tcp1\n    interfaces:\n      0: eth1\n"
				  "      1: eth0\n    tunables:\n      peer_credits: 4\n"), 0);
	assert_int_equal(cfg.nnis, 2);
	assert_ni(&cfg.nis[0], "tcp1", "eth1", 4);
	assert_ni(&cfg.nis[1], "tcp1", "eth0", 4);
	lnetcfg_fini(&cfg);
}

/* Unknown tunables keys: the kernel's warning, in its words, and no error. */
static void
test_unknown_tunables_warn(void **state)
{
	struct lnetcfg cfg;
	struct seen s;

	(void)state;
	assert_int_equal(parse(&cfg, &s, "net:\n  - net type: tcp\n    local NI(s):\n"
				  "      - interfaces: {0: eth0}\n        tunables: {frobs: 3}\n"
				  "        lnd tunables: {knob: 4, tos: 16}\n"), 0);
	assert_string_equal(s.warnings, "Ignoring unrecognized key 'frobs' for 'tunables'\n"
					"Ignoring unrecognized key 'knob' for 'lnd tunables'\n");
	assert_int_equal(cfg.nis[0].tos, 16);
	lnetcfg_fini(&cfg);
}

/* Every global, max_intf as the kernel's other name, lnd_timeout (derived) skipped. */
static void
test_globals(void **state)
{
	struct lnetcfg cfg;
	struct seen s;

	(void)state;
	assert_int_equal(parse(&cfg, &s, "global:\n  max_intf: 64\n  lnd_timeout: 9\n"
				  "  transaction_timeout: 0x29\n  recovery_limit: -1\n"), 0);
	assert_int_equal(cfg.nglobals, 3);
	assert_string_equal(cfg.globals[0].key, "max_interfaces");
	assert_int_equal(cfg.globals[0].value, 64);
	assert_string_equal(cfg.globals[1].key, "transaction_timeout");
	assert_int_equal(cfg.globals[1].value, 41);
	assert_string_equal(cfg.globals[2].key, "recovery_limit");
	assert_int_equal(cfg.globals[2].value, -1); /* the daemon's checks refuse it */
	lnetcfg_fini(&cfg);
	assert_int_equal(parse(&cfg, &s, "global:\n  frob: 1\nnumbers: 2\n"), -EINVAL);
	assert_string_equal(s.errors, "f.yaml:2:3: invalid key 'frob'\n"
				      "f.yaml:3:1: invalid key 'numbers'\n");
	lnetcfg_fini(&cfg);
}

/* Not YAML: libyaml's words as the kernel prints them, flagged as such. */
static void
test_syntax_error(void **state)
{
	struct lnetcfg cfg;
	struct seen s;

	(void)state;
	assert_int_equal(parse(&cfg, &s, "net:\n  - net type: lo\n   x: [\n"), -EINVAL);
	assert_true(cfg.syntax);
	assert_non_null(strstr(s.errors, "Parser error: while parsing a block collection at line 2, "
					 "column 3\n"));
	lnetcfg_fini(&cfg);
}

static struct cfs_ifaddr
if4(const char *name, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	struct cfs_ifaddr i = { .family = AF_INET, .ipv4 = a << 24 | b << 16 | c << 8 | d };

	snprintf(i.name, sizeof(i.name), "%s", name);
	return i;
}

/* ip2nets: rules matched against the node's interfaces; a net configured once. */
static void
test_ip2nets(void **state)
{
	struct cfs_ifaddr ifs[2] = { if4("eth0", 10, 77, 1, 1), if4("eth1", 10, 77, 2, 1) };
	struct lnetcfg cfg;
	struct seen s;

	(void)state;
	assert_int_equal(parse(&cfg, &s, "ip2nets:\n  - net-spec: tcp2\n    ip-range: {0: 10.77.2.*}\n"
				  "    tunables: {peer_credits: 16}\n"
				  "  - net-spec: tcp3\n    interfaces: {0: eth0}\n"
				  "    ip-range: {0: 10.77.*.*}\n"
				  "  - net-spec: tcp2\n    ip-range: {0: 10.77.1.*}\n"), 0);
	assert_int_equal(cfg.nnis, 0);
	assert_int_equal(lnetcfg_ip2nets_resolve(&cfg, ifs, 2), 0);
	assert_int_equal(cfg.nnis, 2);
	assert_ni(&cfg.nis[0], "tcp2", "eth1", 16);
	assert_ni(&cfg.nis[1], "tcp3", "eth0", LNETCFG_UNSET);
	lnetcfg_fini(&cfg);

	assert_int_equal(parse(&cfg, &s, "ip2nets:\n  - net-spec: tcp5\n    ip-range: {0: 192.0.2.*}\n"),
			 0);
	assert_int_equal(lnetcfg_ip2nets_resolve(&cfg, ifs, 2), -EINVAL);
	assert_non_null(strstr(s.errors, "no rule matches"));
	lnetcfg_fini(&cfg);

	/* an interface's CPTs and a range's brackets keep their commas */
	assert_int_equal(parse(&cfg, &s, "ip2nets:\n  - net-spec: tcp\n    interfaces: {0: 'eth1[0,1]'}\n"
				  "    ip-range: {0: '10.77.[1,2].*'}\n"), 0);
	assert_int_equal(lnetcfg_ip2nets_resolve(&cfg, ifs, 2), 0);
	assert_int_equal(cfg.nnis, 1);
	assert_ni(&cfg.nis[0], "tcp", "eth1", LNETCFG_UNSET);
	assert_int_equal(cfg.nis[0].cpt, 0);
	lnetcfg_fini(&cfg);
	assert_int_equal(parse(&cfg, &s, "ip2nets:\n  - net-spec: tcp\n    interfaces: {0: 'eth1,eth0'}\n"),
			 -EINVAL);
	assert_non_null(strstr(s.errors, "interfaces: bad value"));
	lnetcfg_fini(&cfg);

	assert_int_equal(parse(&cfg, &s, "ip2nets:\n  - net type: tcp\n"), -EINVAL);
	assert_non_null(strstr(s.errors, "missing \"net-spec\""));
	lnetcfg_fini(&cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_indentations_and_interfaces),
		cmocka_unit_test(test_flat_net_form),
		cmocka_unit_test(test_unknown_tunables_warn),
		cmocka_unit_test(test_globals),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_ip2nets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
