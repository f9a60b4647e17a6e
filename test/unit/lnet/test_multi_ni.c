/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The local side of Multi-Rail (lnet_ni.c, lnet_ctl.c, cfs_cpt.c): several
 * NIs on one net, each listed in the ping target and shown on its own;
 * deleting one leaves the others working and the ping target without it;
 * each NI's "dev cpt" is the CPT of its device's NUMA node (-1 without a
 * device); numa_range flattens distances for selection; max_interfaces
 * bounds the NIs as the kernel's lnet_interfaces_max does.
 */
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lnet_ut.h"
#include "lnp_test_nid.h"

#define T_LND_TYPE 0xfb

/* The fake machine: which NUMA node each interface's device is on (-1: none). */
struct t_if_node {
	const char *ifname;
	int node;
};

static const struct t_if_node t_if_nodes[] = {
	{ "eth0", 0 },
	{ "eth1", 0 },
	{ "veth0", -1 },
	{ "far0", 7 },
};

static int
t_node_of(const char *ifname)
{
	size_t i;

	for (i = 0; i < sizeof(t_if_nodes) / sizeof(t_if_nodes[0]); i++) {
		if (strcmp(t_if_nodes[i].ifname, ifname) == 0) {
			return t_if_nodes[i].node;
		}
	}
	return -1;
}

/* As socklnd's startup: report the device's node, here from the fake map. */
static int
t_startup(struct lnet_ni *ni)
{
	lnet_ni_set_dev_node(ni, t_node_of(lnet_ni_ifname(ni)));
	return 0;
}

static const struct lnet_lnd_ops t_ops = {
	.name = "mni",
	.type = T_LND_TYPE,
	.startup = t_startup,
	.shutdown = ut_lnd_shutdown_nothing,
	.send = ut_lnd_send_done,
	.recv = ut_lnd_recv_arrived,
};
LNET_LND_REGISTER(t_ops)

static struct lnet_nid
t_nid(uint32_t addr)
{
	struct lnet_nid nid = lnp_tcp_nid(addr);

	nid.nid_type = T_LND_TYPE;
	return nid;
}

static int
ctl_add(const struct lnet_nid *nid, const char *ifname, char *err, size_t errlen)
{
	struct lnet_ctl_ni_tunables tun = { 180, 8, 0, 64 };

	return lnet_ctl_ni_add(nid, ifname, &tun, NULL, 0, err, errlen);
}

static void
add_ok(const struct lnet_nid *nid, const char *ifname)
{
	char err[256] = "";
	int rc = ctl_add(nid, ifname, err, sizeof(err));

	if (rc != 0) {
		print_message("net add: %s\n", err);
	}
	assert_int_equal(rc, 0);
}

static void
del_ok(const struct lnet_nid *nid)
{
	char err[256] = "";
	int rc = lnet_ctl_ni_del(nid, err, sizeof(err));

	if (rc != 0) {
		print_message("net del: %s\n", err);
	}
	assert_int_equal(rc, 0);
}

/* The NIs 0@lo's ping info lists after 0@lo. */
static unsigned int
ping_self(struct lnet_ping_entry *nis, unsigned int cap)
{
	struct lnet_ping_decoded d;

	return ut_ping_self(nis, cap, &d);
}

/* The NI of @p nid as `net show -v` shows it; fails the test if absent. */
static struct lnet_ctl_ni
shown(const struct lnet_nid *nid)
{
	struct lnet_ctl_ni nis[32];
	int n = lnet_ctl_ni_list(nis, 32);
	int i;

	for (i = 0; i < n; i++) {
		if (lnet_nid_same(&nis[i].nid, nid)) {
			return nis[i];
		}
	}
	fail_msg("NI not listed");
	return nis[0];
}

/* LNet up with a CPT table from CPU 0 alone: one CPT, which holds node 0. */
static int
setup_numa(void **state)
{
	struct lnet_init_opts o = {
		.opts_size = sizeof(o),
		.mode = LNET_EXEC_INLINE,
		.cpu_pattern = "0[0]",
		.no_eal = true,
	};

	(void)state;
	assert_int_equal(lnet_init_opts_set(&o), 0);
	assert_int_equal(LNetNIInit(LNET_PID_LUSTRE), 0);
	g_ut.eq = LNetEQAlloc(UT_EQ_SIZE);
	assert_non_null(g_ut.eq);
	g_ut.self.pid = LNET_PID_LUSTRE;
	lnet_nid_set_lo0(&g_ut.self.nid);
	assert_non_null(lnet_instance()->cpt_table);
	return 0;
}

/*
 * Two NIs on one net (net add --if eth0,eth1): both listed in order, on
 * the same net, up, in the ping target; net del of one keeps the other up
 * and rebuilds the ping target without it; added back, both are listed.
 */
static void
test_two_nis_one_net(void **state)
{
	struct lnet_nid a = t_nid(0xc0000201);
	struct lnet_nid b = t_nid(0xc6336401);
	struct lnet_ping_entry nis[8];
	struct lnet_ctl_ni list[8];

	(void)state;
	add_ok(&a, "eth0");
	add_ok(&b, "eth1");
	assert_int_equal(lnet_ctl_ni_list(list, 8), 3);
	assert_true(lnet_nid_same(&list[1].nid, &a));
	assert_true(lnet_nid_same(&list[2].nid, &b));
	assert_int_equal(list[1].net, list[2].net);
	assert_string_equal(list[1].ifname, "eth0");
	assert_string_equal(list[2].ifname, "eth1");
	assert_true(list[1].up && list[2].up);
	assert_int_equal(ping_self(nis, 8), 2);
	assert_true(lnet_nid_same(&nis[0].nid, &a));
	assert_true(lnet_nid_same(&nis[1].nid, &b));
	assert_int_equal(nis[0].status, LNET_NI_STATUS_UP);
	assert_int_equal(nis[1].status, LNET_NI_STATUS_UP);

	del_ok(&a);
	assert_int_equal(lnet_ctl_ni_list(list, 8), 2);
	assert_true(lnet_nid_same(&list[1].nid, &b));
	assert_true(list[1].up);
	assert_int_equal(ping_self(nis, 8), 1);
	assert_true(lnet_nid_same(&nis[0].nid, &b));
	assert_ptr_equal(lnet_ni_find_by_net(lnet_instance(), lnet_nid_net(&b)),
			 lnet_ni_find_by_nid(lnet_instance(), &b));

	add_ok(&a, "eth0");
	assert_int_equal(ping_self(nis, 8), 2);
	assert_true(lnet_nid_same(&nis[0].nid, &b));
	assert_true(lnet_nid_same(&nis[1].nid, &a));
}

/* Two NIs cannot share a NID; the refused add changes nothing. */
static void
test_same_nid_refused(void **state)
{
	struct lnet_nid a = t_nid(0xc0000201);
	struct lnet_ping_entry nis[4];
	char err[256] = "";

	(void)state;
	add_ok(&a, "eth0");
	assert_int_equal(ctl_add(&a, "eth1", err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "cannot add"));
	assert_int_equal(ping_self(nis, 4), 1);
	assert_string_equal(shown(&a).ifname, "eth0");
}

/*
 * dev cpt: the CPT of the device's node (eth0 on node 0: CPT 0); -1 when
 * the interface has no device (veth), its node is in no CPT, or it has no
 * interface at all.
 */
static void
test_dev_cpt_from_numa_node(void **state)
{
	struct lnet_nid eth0 = t_nid(0x0a000001);
	struct lnet_nid veth = t_nid(0x0a000002);
	struct lnet_nid far = t_nid(0x0a000003);
	struct lnet_nid none = t_nid(0x0a000004);
	struct lnet_ctl_ni lo;

	(void)state;
	add_ok(&eth0, "eth0");
	add_ok(&veth, "veth0");
	add_ok(&far, "far0");
	add_ok(&none, NULL);
	assert_int_equal(shown(&eth0).dev_cpt, 0);
	assert_int_equal(shown(&veth).dev_cpt, -1);
	assert_int_equal(shown(&far).dev_cpt, -1);
	assert_int_equal(shown(&none).dev_cpt, -1);
	assert_int_equal(lnet_ctl_ni_list(&lo, 1), 1);
	assert_int_equal(lo.dev_cpt, 0); /* as the kernel's s3 captures show 0@lo */
}

/* CPTs given by number alone carry no node map: every dev cpt stays -1. */
static void
test_dev_cpt_without_topology(void **state)
{
	struct lnet_nid eth0 = t_nid(0x0a000001);

	(void)state;
	assert_null(lnet_instance()->cpt_table);
	add_ok(&eth0, "eth0");
	assert_int_equal(shown(&eth0).dev_cpt, -1);
	assert_int_equal(lnet_ni_distance(lnet_instance(),
					  lnet_ni_find_by_nid(lnet_instance(), &eth0), 0),
			 0);
}

/*
 * Selection's distance: an NI whose device is on the message's CPT is
 * nearer than one whose device is unknown (the table's largest distance);
 * numa_range raises every distance below it to itself, so both tie.
 */
static void
test_distance_and_numa_range(void **state)
{
	struct lnet *ln = lnet_instance();
	struct lnet_nid near = t_nid(0x0a000001);
	struct lnet_nid unknown = t_nid(0x0a000002);
	const struct lnet_ni *n;
	const struct lnet_ni *u;
	unsigned int local = cfs_cpt_distance(ln->cpt_table, 0, 0);
	unsigned int worst = cfs_cpt_distance(ln->cpt_table, 0, CFS_CPT_ANY);
	char err[128];

	(void)state;
	add_ok(&near, "eth0");
	add_ok(&unknown, "veth0");
	n = lnet_ni_find_by_nid(ln, &near);
	u = lnet_ni_find_by_nid(ln, &unknown);
	assert_int_equal(lnet_ni_distance(ln, n, 0), local);
	assert_int_equal(lnet_ni_distance(ln, u, 0), worst);
	assert_int_equal(lnet_ni_distance(ln, n, CFS_CPT_ANY), worst);
	assert_int_equal(lnet_ctl_global_set("numa_range", (int)worst + 5, err, sizeof(err)), 0);
	assert_int_equal(lnet_ni_distance(ln, n, 0), worst + 5);
	assert_int_equal(lnet_ni_distance(ln, u, 0), worst + 5);
	assert_int_equal(lnet_ctl_global_set("numa_range", 0, err, sizeof(err)), 0);
	assert_int_equal(lnet_ni_distance(ln, n, 0), local);
}

/*
 * max_interfaces as the kernel bounds NIs: with 16, the 15th NI (0@lo
 * counted) is refused with -ENOSPC and the ping target keeps 14; once one
 * is deleted there is room again.
 */
static void
test_max_interfaces_bounds_nis(void **state)
{
	struct lnet_ping_entry nis[32];
	struct lnet_nid nid;
	char err[256] = "";
	uint32_t i;

	(void)state;
	assert_int_equal(lnet_ctl_global_set("max_interfaces", 16, err, sizeof(err)), 0);
	for (i = 1; i <= 14; i++) {
		nid = t_nid(0x0a000000 + i);
		add_ok(&nid, NULL);
	}
	nid = t_nid(0x0a0000ff);
	assert_int_equal(ctl_add(&nid, NULL, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "cannot add"));
	assert_int_equal(ping_self(nis, 32), 14);
	assert_null(lnet_ni_find_by_nid(lnet_instance(), &nid));

	nid = t_nid(0x0a000001);
	del_ok(&nid);
	nid = t_nid(0x0a0000ff);
	add_ok(&nid, NULL);
	assert_int_equal(ping_self(nis, 32), 14);

	/* Raised, the bound lets more in. */
	assert_int_equal(lnet_ctl_global_set("max_interfaces", 200, err, sizeof(err)), 0);
	nid = t_nid(0x0a000001);
	add_ok(&nid, NULL);
	assert_int_equal(ping_self(nis, 32), 15);
}

/* ---- cfs_if_numa_node() on a sysfs tree of the test's own ---- */

static char t_sysfs[64];

static void
t_write(const char *ifname, const char *content)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/class/net/%s/device", t_sysfs, ifname);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/class/net/%s/device/numa_node", t_sysfs, ifname);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void
t_mkdir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", t_sysfs, rel);
	assert_int_equal(mkdir(path, 0700), 0);
}

static int
t_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void
test_if_numa_node_from_sysfs(void **state)
{
	(void)state;
	snprintf(t_sysfs, sizeof(t_sysfs), "/tmp/lnp-sysfs-XXXXXX");
	assert_non_null(mkdtemp(t_sysfs));
	t_mkdir("class");
	t_mkdir("class/net");
	t_mkdir("class/net/eth0");
	t_mkdir("class/net/eth1");
	t_mkdir("class/net/noknow");
	t_mkdir("class/net/junk");
	t_mkdir("class/net/veth0"); /* a virtual interface: no device link */
	t_write("eth0", "0\n");
	t_write("eth1", "1\n");
	t_write("noknow", "-1\n");
	t_write("junk", "one\n");

	assert_int_equal(cfs_if_numa_node(t_sysfs, "eth0"), 0);
	assert_int_equal(cfs_if_numa_node(t_sysfs, "eth1"), 1);
	assert_int_equal(cfs_if_numa_node(t_sysfs, "noknow"), -1);
	assert_int_equal(cfs_if_numa_node(t_sysfs, "junk"), -1);
	assert_int_equal(cfs_if_numa_node(t_sysfs, "veth0"), -1);
	assert_int_equal(cfs_if_numa_node(t_sysfs, "absent"), -1);
	assert_int_equal(cfs_if_numa_node(t_sysfs, ""), -1);
	assert_int_equal(cfs_if_numa_node(t_sysfs, NULL), -1);
	assert_int_equal(cfs_if_numa_node(t_sysfs, "../net/eth1"), -1);
	/* The real loopback has no device either. */
	assert_int_equal(cfs_if_numa_node(NULL, "lo"), -1);
	assert_int_equal(nftw(t_sysfs, t_rm, 8, FTW_DEPTH | FTW_PHYS), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_nis_one_net, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_two_nis_one_net, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_same_nid_refused, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_dev_cpt_from_numa_node, setup_numa,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_dev_cpt_without_topology, ut_setup2,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_distance_and_numa_range, setup_numa,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_max_interfaces_bounds_nis, ut_setup1,
						ut_teardown),
		cmocka_unit_test(test_if_numa_node_from_sysfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
