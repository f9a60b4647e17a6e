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
		"net:\n- net type: tcp\n  local NI(s):\n  - interfaces:\n      0: eth0\n      1: "
		"eth1\n"
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
	assert_int_equal(parse(&cfg, &s,
			       "net:\n  - net type: tcp1\n    interfaces:\n      0: eth1\n"
			       "      1: eth0\n    tunables:\n      peer_credits: 4\n"),
			 0);
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
	assert_int_equal(parse(&cfg, &s,
			       "net:\n  - net type: tcp\n    local NI(s):\n"
			       "      - interfaces: {0: eth0}\n        tunables: {frobs: 3}\n"
			       "        lnd tunables: {knob: 4, tos: 16}\n"),
			 0);
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
	assert_int_equal(parse(&cfg, &s,
			       "global:\n  max_intf: 64\n  lnd_timeout: 9\n"
			       "  transaction_timeout: 0x29\n  recovery_limit: -1\n"),
			 0);
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

/* ports: (lnetd-pmd's DPDK ports): each item's values, then what a bad item is told. */
static void
test_ports(void **state)
{
	struct lnetcfg cfg;
	struct seen s;

	(void)state;
	assert_int_equal(parse(&cfg, &s,
			       "ports:\n"
			       "  - name: eth0\n"
			       "    device: net_af_packet0,iface=veth1\n"
			       "    address: 10.1.0.2/24\n"
			       "    gateway: 10.1.0.1\n"
			       "  - name: eth1\n"
			       "    device: net_ring0\n"
			       "    address: 192.168.7.9/16\n"
			       "net:\n  - net type: tcp\n    local NI(s):\n      - interfaces:\n"
			       "          0: eth0\n"),
			 0);
	assert_int_equal(cfg.nports, 2);
	assert_string_equal(cfg.ports[0].name, "eth0");
	assert_string_equal(cfg.ports[0].device, "net_af_packet0,iface=veth1");
	assert_int_equal(cfg.ports[0].addr, 0x0a010002);
	assert_int_equal(cfg.ports[0].prefix, 24);
	assert_int_equal(cfg.ports[0].gateway, 0x0a010001);
	assert_string_equal(cfg.ports[1].name, "eth1");
	assert_int_equal(cfg.ports[1].addr, 0xc0a80709);
	assert_int_equal(cfg.ports[1].prefix, 16);
	assert_int_equal(cfg.ports[1].gateway, 0);
	assert_int_equal(cfg.nnis, 1);
	assert_string_equal(cfg.nis[0].ifname, "eth0");
	assert_string_equal(s.warnings, "");
	lnetcfg_fini(&cfg);
	assert_int_equal(parse(&cfg, &s,
			       "ports:\n"
			       "  - name: eth0\n    device: d\n    address: 10.0.0.1\n"
			       "  - name: eth0\n    device: d\n    address: 10.0.0.1/8\n"
			       "  - name: eth0\n    device: d\n    address: 10.0.0.2/8\n"
			       "  - name: x\n    address: 10.0.0.3/8\n    speed: 9\n"),
			 -EINVAL);
	assert_string_equal(
		s.errors,
		"f.yaml:4:14: ports: address: an IPv4 address/prefix expected, not "
		"'10.0.0.1'\n"
		"f.yaml:8:5: ports: 'eth0' is listed twice\n" /* the first, refused, is not in */
		"f.yaml:13:12: ports: unknown key 'speed' (name, device, address, gateway)\n");
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
	assert_non_null(strstr(s.errors,
			       "Parser error: while parsing a block collection at line 2, "
			       "column 3\n"));
	lnetcfg_fini(&cfg);
}

/* section() by section: the names it was called with, and each one's globals/peers/udsps counts. */
static int
on_section(struct lnetcfg *cfg, const char *name, void *arg)
{
	char line[96];

	snprintf(line, sizeof(line), "%s g%u p%u u%u e%u",
		 strcmp(name, LNETCFG_WRITER_ERROR) == 0 ? "WRITER" : name, cfg->nglobals,
		 cfg->npeers, cfg->nudsps, cfg->nerrors);
	add_line(((struct seen *)arg)->warnings, sizeof(((struct seen *)arg)->warnings), line);
	return cfg->nerrors > 0 ? -EINVAL : 0;
}

static int
parse_sections(struct lnetcfg *cfg, struct seen *s, const char *text)
{
	memset(s, 0, sizeof(*s));
	lnetcfg_init(cfg, "f.yaml", on_error, s);
	cfg->section = on_section;
	return lnetcfg_parse(cfg, text, strlen(text));
}

/*
 * A file libyaml fails part-way, read section by section as 2.17's
 * jt_import acts on its events: the sections before the error, a netlink
 * one only once the next section's key was read, the items and settings
 * of the section being read that were whole; then libyaml's words.
 */
static void
test_syntax_error_cut(void **state)
{
	struct lnetcfg cfg;
	struct seen s;

	(void)state;
	assert_int_equal(parse_sections(&cfg, &s,
					"global:\n  retry_count: 4\npeer:\n  - primary nid: "
					"1.2.3.4@tcp\nroute:\n  - net: tcp9\n    gateway: [x\n"),
			 -EINVAL);
	assert_true(cfg.syntax);
	assert_string_equal(s.warnings, "global g1 p0 u0 e0\npeer g0 p1 u0 e0\n");
	assert_non_null(strstr(s.errors, "Parser error: while parsing a flow sequence at line 7"));
	lnetcfg_fini(&cfg);

	/* the peer: is never sent: no key after it */
	assert_int_equal(parse_sections(&cfg, &s, "peer:\n  - primary nid: 1.2.3.4@tcp\n bad: x\n"),
			 -EINVAL);
	assert_string_equal(s.warnings, "");
	lnetcfg_fini(&cfg);

	/* global: up to the setting being read; udsp: the whole rules */
	assert_int_equal(parse_sections(&cfg, &s,
					"global:\n  retry_count: 4\n  discovery: 0\n"
					"  retry_count: \"1\n"),
			 -EINVAL);
	assert_string_equal(s.warnings, "global g2 p0 u0 e0\n");
	lnetcfg_fini(&cfg);
	assert_int_equal(parse_sections(&cfg, &s,
					"udsp:\n  - idx: 0\n    src: tcp\n  - idx: 1\n"
					"    src: [\n"),
			 -EINVAL);
	assert_string_equal(s.warnings, "udsp g0 p0 u1 e0\n");
	lnetcfg_fini(&cfg);

	/* a key handle_global_parameter refuses comes before libyaml's error */
	assert_int_equal(parse_sections(&cfg, &s, "global:\n  frob: [\n"), -EINVAL);
	assert_string_equal(s.warnings, "global g0 p0 u0 e1\n");
	assert_false(cfg.syntax);
	lnetcfg_fini(&cfg);

	/* a key after a netlink section: into its message, which cannot be written */
	assert_int_equal(parse_sections(&cfg, &s,
					"peer:\n  - primary nid: 1.2.3.4@tcp\nretry_count: 1\n"),
			 0);
	assert_string_equal(s.warnings, "WRITER g0 p0 u0 e0\n");
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
	assert_int_equal(parse(&cfg, &s,
			       "ip2nets:\n  - net-spec: tcp2\n    ip-range: {0: 10.77.2.*}\n"
			       "    tunables: {peer_credits: 16}\n"
			       "  - net-spec: tcp3\n    interfaces: {0: eth0}\n"
			       "    ip-range: {0: 10.77.*.*}\n"
			       "  - net-spec: tcp2\n    ip-range: {0: 10.77.1.*}\n"),
			 0);
	assert_int_equal(cfg.nnis, 0);
	assert_int_equal(lnetcfg_ip2nets_resolve(&cfg, ifs, 2), 0);
	assert_int_equal(cfg.nnis, 2);
	assert_ni(&cfg.nis[0], "tcp2", "eth1", 16);
	assert_ni(&cfg.nis[1], "tcp3", "eth0", LNETCFG_UNSET);
	lnetcfg_fini(&cfg);

	assert_int_equal(parse(&cfg, &s,
			       "ip2nets:\n  - net-spec: tcp5\n    ip-range: {0: 192.0.2.*}\n"),
			 0);
	assert_int_equal(lnetcfg_ip2nets_resolve(&cfg, ifs, 2), -EINVAL);
	assert_non_null(strstr(s.errors, "no rule matches"));
	lnetcfg_fini(&cfg);

	/* an interface's CPTs and a range's brackets keep their commas */
	assert_int_equal(parse(&cfg, &s,
			       "ip2nets:\n  - net-spec: tcp\n    interfaces: {0: 'eth1[0,1]'}\n"
			       "    ip-range: {0: '10.77.[1,2].*'}\n"),
			 0);
	assert_int_equal(lnetcfg_ip2nets_resolve(&cfg, ifs, 2), 0);
	assert_int_equal(cfg.nnis, 1);
	assert_ni(&cfg.nis[0], "tcp", "eth1", LNETCFG_UNSET);
	assert_int_equal(cfg.nis[0].cpt, 0);
	lnetcfg_fini(&cfg);
	assert_int_equal(parse(&cfg, &s,
			       "ip2nets:\n  - net-spec: tcp\n    interfaces: {0: 'eth1,eth0'}\n"),
			 -EINVAL);
	assert_non_null(strstr(s.errors, "interfaces: bad value"));
	lnetcfg_fini(&cfg);

	assert_int_equal(parse(&cfg, &s, "ip2nets:\n  - net type: tcp\n"), -EINVAL);
	assert_non_null(strstr(s.errors, "missing \"net-spec\""));
	lnetcfg_fini(&cfg);
}

/* udsp: items as udsp show and export print them, and the kernel's other form (priority beside). */
static void
test_udsp(void **state)
{
	/* for import --del only the index matters, as the kernel's import --del reads it */
	static const char del[] = "udsp:\n  - idx: 3\n  - idx: 1\n    src: x\n    rte: y\n";
	struct lnetcfg cfg;
	struct seen s;

	(void)state;
	assert_int_equal(
		parse(&cfg, &s,
		      "udsp:\n    - idx: 0\n      src: tcp[1-2]\n      action:\n"
		      "          priority: 7\n    - idx: 1\n      src: 10.0.0.1@tcp\n"
		      "      dst: '10.0.0.[2,4]@tcp'\n    - idx: 2\n      dst: 10.0.0.2@tcp\n"
		      "      rte: 10.0.1.1@tcp\n    - dst: o2ib3\n      priority: 0x10\n"),
		0);
	assert_int_equal(cfg.nudsps, 4);
	assert_int_equal(cfg.udsps[0].idx, 0);
	assert_string_equal(cfg.udsps[0].src, "tcp[1-2]");
	assert_string_equal(cfg.udsps[0].dst, "");
	assert_int_equal(cfg.udsps[0].priority, 7);
	assert_int_equal(cfg.udsps[0].at.line, 2);
	assert_int_equal(cfg.udsps[0].at.col, 7);
	assert_string_equal(cfg.udsps[1].src, "10.0.0.1@tcp");
	assert_string_equal(cfg.udsps[1].dst, "10.0.0.[2,4]@tcp");
	assert_int_equal(cfg.udsps[1].priority, -1); /* no action: the kernel's "pref" */
	assert_string_equal(cfg.udsps[2].rte, "10.0.1.1@tcp");
	assert_int_equal(cfg.udsps[3].idx, -1); /* none given: appended */
	assert_string_equal(cfg.udsps[3].dst, "o2ib3");
	assert_int_equal(cfg.udsps[3].priority, 16);
	assert_string_equal(s.warnings, "");
	lnetcfg_fini(&cfg);
	assert_null(cfg.udsps);

	/* other keys are skipped with the kernel's warning */
	assert_int_equal(
		parse(&cfg, &s,
		      "udsp:\n  - src: tcp\n    frob: 1\n    action: {priority: 1, x: 2}\n"),
		0);
	assert_string_equal(s.warnings, "Ignoring unrecognized key 'frob' for 'udsp'\n"
					"Ignoring unrecognized key 'x' for 'action'\n");
	lnetcfg_fini(&cfg);

	memset(&s, 0, sizeof(s));
	lnetcfg_init(&cfg, "f.yaml", on_error, &s);
	cfg.udsp_del = true;
	assert_int_equal(lnetcfg_parse(&cfg, del, strlen(del)), 0);
	assert_int_equal(cfg.nudsps, 2);
	assert_int_equal(cfg.udsps[0].idx, 3);
	assert_int_equal(cfg.udsps[1].idx, 1);
	lnetcfg_fini(&cfg);
	assert_int_equal(parse(&cfg, &s, del), -EINVAL); /* to add, the same file is refused */
	lnetcfg_fini(&cfg);
}

/* Every malformed udsp: item is reported where it is, and none is kept. */
static void
test_udsp_errors(void **state)
{
	static const struct {
		const char *yaml;
		const char *error;
	} cases[] = {
		{ "udsp: {idx: 0}\n", "f.yaml:1:7: udsp: expected a list\n" },
		{ "udsp:\n  - tcp\n", "f.yaml:2:5: udsp: each item must be a mapping\n" },
		{ "udsp:\n  - idx: abc\n    src: tcp\n",
		  "f.yaml:2:10: udsp: idx must be an integer\n" },
		{ "udsp:\n  - idx: -1\n    src: tcp\n",
		  "f.yaml:2:10: udsp: idx must be between 0 and 2147483647\n" },
		{ "udsp:\n  - src: [a, b]\n",
		  "f.yaml:2:10: udsp: src must be a NID or network descriptor\n" },
		{ "udsp:\n  - src: 1.2.3@@tcp\n",
		  "f.yaml:2:10: udsp: failed to parse src parameter\n" },
		{ "udsp:\n  - dst: ''\n", "f.yaml:2:10: udsp: failed to parse dst parameter\n" },
		{ "udsp:\n  - dst: 'tcp;1'\n",
		  "f.yaml:2:10: udsp: failed to parse dst parameter\n" },
		{ "udsp:\n  - rte: '*@tcp'\n",
		  "f.yaml:2:10: udsp: failed to parse rte parameter\n" },
		{ "udsp:\n  - src: tcp\n    priority: -3\n",
		  "f.yaml:3:15: udsp: priority must be between 0 and 2147483647\n" },
		{ "udsp:\n  - src: tcp\n    action: 5\n",
		  "f.yaml:3:13: udsp: action must be a mapping such as \"priority: 0\"\n" },
		{ "udsp:\n  - src: tcp\n    priority: 1\n    action: {priority: 2}\n",
		  "f.yaml:4:24: udsp: priority given twice\n" },
		{ "udsp:\n  - idx: 0\n", "f.yaml:2:5: udsp: Missing required argument(s)\n" },
		{ "udsp:\n  - src: tcp\n    rte: 1.2.3.4@tcp\n",
		  "f.yaml:2:5: udsp: src and rte cannot be combined\n" },
		{ "udsp:\n  - src: tcp\n    dst: tcp\n    rte: 1.2.3.4@tcp\n",
		  "f.yaml:2:5: udsp: The combination of src, dst and rte is not supported\n" },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lnetcfg cfg;
		struct seen s;

		assert_int_equal(parse(&cfg, &s, cases[i].yaml), -EINVAL);
		assert_string_equal(s.errors, cases[i].error);
		assert_int_equal(cfg.nudsps, 0);
		lnetcfg_fini(&cfg);
	}
}

/* route: as export prints it (both forms); state and type read past; hop -1 and priority 0 when left out. */
static void
test_routes(void **state)
{
	struct lnetcfg cfg;
	struct lnet_nid gw;
	struct seen s;

	(void)state;
	assert_int_equal(
		parse(&cfg, &s,
		      "route:\n    - net: tcp1\n      gateway: 10.0.0.254@tcp\n"
		      "      hop: -1\n      priority: 0\n      state: down\n"
		      "      type: multi-hop\n    - net: o2ib3\n      gateway: 10.0.0.253@tcp\n"
		      "      hop: 0x10\n      priority: 7\n      health_sensitivity: 3\n"
		      "    - gateway: 10.0.0.252@tcp\n      net: tcp2\n      frob: 1\n"),
		0);
	assert_int_equal(cfg.nroutes, 3);
	assert_int_equal(cfg.routes[0].net, libcfs_str2net("tcp1"));
	assert_int_equal(libcfs_strnid(&gw, "10.0.0.254@tcp"), 0);
	assert_true(lnet_nid_same(&cfg.routes[0].gateway, &gw));
	assert_int_equal(cfg.routes[0].hops, -1);
	assert_int_equal(cfg.routes[0].priority, 0);
	assert_int_equal(cfg.routes[0].at.line, 2);
	assert_int_equal(cfg.routes[0].at.col, 7);
	assert_int_equal(cfg.routes[1].net, libcfs_str2net("o2ib3"));
	assert_int_equal(cfg.routes[1].hops, 16);
	assert_int_equal(cfg.routes[1].priority, 7);
	assert_int_equal(cfg.routes[1].health_sensitivity, 3);
	assert_int_equal(cfg.routes[2].net, libcfs_str2net("tcp2"));
	assert_int_equal(cfg.routes[2].hops, -1); /* left out: the kernel's undefined hops */
	assert_int_equal(cfg.routes[2].health_sensitivity, 0);
	/* the kernel's route command passes over keys it does not read, without a word */
	assert_string_equal(s.warnings, "");
	assert_int_equal(cfg.routing, LNETCFG_UNSET);
	assert_false(cfg.has_buffers);
	lnetcfg_fini(&cfg);
	assert_null(cfg.routes);
	assert_int_equal(cfg.nroutes, 0);
}

/* Every malformed route: item, in the words of the kernel's route command; none is kept. */
static void
test_route_errors(void **state)
{
	static const struct {
		const char *yaml;
		const char *error;
	} cases[] = {
		{ "route: {net: tcp1}\n", "f.yaml:1:8: route: expected a list\n" },
		{ "route:\n  - tcp1\n", "f.yaml:2:5: route: each item must be a mapping\n" },
		{ "route:\n  - net: lo\n    gateway: 1.2.3.4@tcp\n",
		  "f.yaml:2:10: route: setting @lo not allowed\n" },
		{ "route:\n  - net: frob\n    gateway: 1.2.3.4@tcp\n",
		  "f.yaml:2:10: route: setting LNET_NET_ANY not allowed\n" },
		{ "route:\n  - net: [tcp1]\n    gateway: 1.2.3.4@tcp\n",
		  "f.yaml:2:10: route: net is invalid key\n" },
		{ "route:\n  - net: tcp1\n    gateway: 1.2.3@tcp\n",
		  "f.yaml:3:14: route: cannot parse gateway\n" },
		{ "route:\n  - net: tcp1\n    gateway: 1.2.3.4@tcp\n    hop: 0\n",
		  "f.yaml:4:10: route: invalid hop count must be between 1 and 255\n" },
		{ "route:\n  - net: tcp1\n    gateway: 1.2.3.4@tcp\n    hop: 256\n",
		  "f.yaml:4:10: route: invalid hop count must be between 1 and 255\n" },
		{ "route:\n  - net: tcp1\n    gateway: 1.2.3.4@tcp\n    hop: x\n",
		  "f.yaml:4:10: route: hop has invalid key\n" },
		{ "route:\n  - net: tcp1\n    gateway: 1.2.3.4@tcp\n    priority: -1\n",
		  "f.yaml:4:15: route: invalid priority, must not be negative\n" },
		{ "route:\n  - net: tcp1\n    gateway: 1.2.3.4@tcp\n    state: sideways\n",
		  "f.yaml:4:12: route: status string bad value\n" },
		{ "route:\n  - gateway: 1.2.3.4@tcp\n",
		  "f.yaml:2:5: route: missing mandatory parameter: network\n" },
		{ "route:\n  - net: tcp1\n    hop: 2\n",
		  "f.yaml:2:5: route: missing mandatory parameter: gateway\n" },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lnetcfg cfg;
		struct seen s;

		assert_int_equal(parse(&cfg, &s, cases[i].yaml), -EINVAL);
		assert_string_equal(s.errors, cases[i].error);
		assert_int_equal(cfg.nroutes, 0);
		lnetcfg_fini(&cfg);
	}
}

/*
 * routing: in --backup's mapping form and in routing show's sequence
 * form; enable 1 and 3 (starting) route, 0 and 2 (stopping) do not, none
 * given is none. buffers: a pool left out is 0 (its default).
 */
static void
test_routing_buffers(void **state)
{
	static const struct {
		const char *yaml;
		int routing;
	} forms[] = {
		{ "routing:\n    enable: 1\n", 1 },
		{ "routing:\n    enable: 0\n", 0 },
		{ "routing:\n    enable: 3\n", 1 },
		{ "routing:\n    enable: 2\n", 0 },
		{ "routing: {}\n", 0 },
		{ "routing:\n    - cpt[0]:\n          tiny:\n              npages: 0\n"
		  "    - cpt[1]:\n          tiny:\n              npages: 0\n    - enable: 1\n",
		  1 },
		{ "routing:\n    - cpt[0]:\n          tiny:\n              npages: 0\n", 0 },
	};
	struct lnetcfg cfg;
	struct seen s;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		assert_int_equal(parse(&cfg, &s, forms[i].yaml), 0);
		assert_int_equal(cfg.routing, forms[i].routing);
		lnetcfg_fini(&cfg);
	}
	assert_int_equal(parse(&cfg, &s,
			       "buffers:\n    tiny: 2048\n    large: 0x10\n    huge: 3\n"),
			 0);
	assert_true(cfg.has_buffers);
	assert_int_equal(cfg.buffers[0], 2048);
	assert_int_equal(cfg.buffers[1],
			 0); /* left out: back to the default, as the kernel's import */
	assert_int_equal(cfg.buffers[2], 16);
	assert_string_equal(lnetcfg_rtr_pool_names[1], "small");
	lnetcfg_fini(&cfg);

	assert_int_equal(parse(&cfg, &s, "routing: 1\n"), -EINVAL);
	assert_string_equal(s.errors,
			    "f.yaml:1:10: routing: expected a mapping such as \"enable: 1\"\n");
	lnetcfg_fini(&cfg);
	assert_int_equal(parse(&cfg, &s, "routing:\n    enable: 4\n"), -EINVAL);
	assert_string_equal(s.errors, "f.yaml:2:13: routing: enable must be 0, 1, 2 or 3\n");
	lnetcfg_fini(&cfg);
	assert_int_equal(parse(&cfg, &s, "buffers:\n    small: -1\n"), -EINVAL);
	assert_string_equal(s.errors, "f.yaml:2:12: buffers: tiny, small and large must be >= 0\n");
	lnetcfg_fini(&cfg);
	assert_int_equal(parse(&cfg, &s, "buffers:\n    small: x\n"), -EINVAL);
	assert_string_equal(s.errors, "f.yaml:2:12: buffers: small must be an integer\n");
	lnetcfg_fini(&cfg);
	assert_int_equal(parse(&cfg, &s, "buffers: [1]\n"), -EINVAL);
	assert_string_equal(s.errors,
			    "f.yaml:1:10: buffers: expected a mapping such as \"tiny: 2048\"\n");
	lnetcfg_fini(&cfg);
	/* numa: is the numa_range tunable (2.17's lnet_numa_cmd), 0 when it names no range */
	assert_int_equal(parse(&cfg, &s, "numa:\n    range: 3\n"), 0);
	assert_int_equal(cfg.nglobals, 1);
	assert_string_equal(cfg.globals[0].key, "numa_range");
	assert_int_equal(cfg.globals[0].value, 3);
	lnetcfg_fini(&cfg);
	assert_int_equal(parse(&cfg, &s, "numa:\n    frob: 3\n"), 0);
	assert_int_equal(cfg.globals[0].value, 0);
	lnetcfg_fini(&cfg);
	assert_int_equal(parse(&cfg, &s, "numa:\n    range: x\n"), -EINVAL);
	assert_string_equal(s.errors, "f.yaml:2:12: numa: range must be an integer\n");
	lnetcfg_fini(&cfg);
}

/* Descriptors in the grammar of the kernel's cfs_parse_nid_parts. */
static void
test_udsp_descr(void **state)
{
	static const char *const good[] = {
		"tcp",
		"tcp1",
		"tcp[1-2]",
		"tcp*",
		"o2ib3",
		"lo",
		"gni",
		"5@gni",
		"*@gni",
		"[1-3]@gni",
		"127.0.0.1@tcp",
		"127.0.0.[1-3]@tcp",
		"127.0.0.*@tcp",
		"*.0.0.1@tcp",
		"1.2.3.4@tcp[1,3]",
		"1.2.3.4@tcp*",
		"10.0.0.[1-4]@tcp[1-2]",
		"127.0.0.1@o2ib",
		"0@lo",
		"efa",
		"kfi",
		"tcp1[2]", /* the kernel reads the brackets wherever they are */
	};
	static const char *const bad[] = {
		"",
		"*@tcp",
		"1.2.3@tcp",
		"1.2.3.4.5@tcp",
		"1.2.3.4@@tcp",
		"@tcp",
		"tcpx",
		"x",
		"tcp[1-",
		"300.1.1.1@tcp",
		"fe80::1@tcp",
		"1.2.3.4@",
		"tcp*[1]",
		"tcp-1",
		"TCP",
		"1.2.3.4@lo",
		"tcp[2-1]",
		"1.2.3.[4-2]@tcp",
		"a@gni",
		"1.2.3.4@gni",
		"4294967296@gni",
		"tcp 1",
		"tcp;1",
		"src=tcp",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (!lnetcfg_udsp_descr_ok(good[i])) {
			fail_msg("refused: \"%s\"", good[i]);
		}
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (lnetcfg_udsp_descr_ok(bad[i])) {
			fail_msg("accepted: \"%s\"", bad[i]);
		}
	}
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
		cmocka_unit_test(test_syntax_error_cut),
		cmocka_unit_test(test_ip2nets),
		cmocka_unit_test(test_udsp),
		cmocka_unit_test(test_udsp_errors),
		cmocka_unit_test(test_udsp_descr),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_route_errors),
		cmocka_unit_test(test_routing_buffers),
		cmocka_unit_test(test_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
