/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net add / net del: command lines and import items become NIs of the
 * configuration model (lnetcfg_ni), and each NI one telemetry request.
 * --ip2net is resolved here against this host's interfaces, as the
 * kernel's lnetctl does before it configures anything.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "lnetctl.h"

#define LNETCTL_MAX_NEW_NIS 64

static size_t
lnetctl_param_int(char *buf, size_t len, size_t off, const char *key, int v)
{
	if (v == LNETCFG_UNSET || off >= len) {
		return off;
	}
	return off + (size_t)snprintf(buf + off, len - off, ",%s=%d", key, v);
}

/* The /lnet/net_add (or net_del) parameters of @p ni. */
static void
lnetctl_ni_params(const struct lnetcfg_ni *ni, bool add, char *buf, size_t len)
{
	char s[LNET_NIDSTR_SIZE];
	size_t off = (size_t)snprintf(buf, len, "net=%s", libcfs_net2str_r(ni->net, s, sizeof(s)));

	if (ni->has_nid) {
		off += (size_t)snprintf(buf + off, len - off, ",nid=%s",
					libcfs_nidstr_r(&ni->nid, s, sizeof(s)));
	}
	if (ni->ifname[0] != '\0' && (add || !ni->has_nid)) {
		off += (size_t)snprintf(buf + off, len - off, ",if=%s", ni->ifname);
	}
	if (!add) {
		return;
	}
	off = lnetctl_param_int(buf, len, off, "peer_timeout", ni->peer_timeout);
	off = lnetctl_param_int(buf, len, off, "peer_credits", ni->peer_credits);
	off = lnetctl_param_int(buf, len, off, "peer_buffer_credits", ni->peer_buffer_credits);
	off = lnetctl_param_int(buf, len, off, "credits", ni->credits);
	off = lnetctl_param_int(buf, len, off, "cpt", ni->cpt);
	off = lnetctl_param_int(buf, len, off, "conns_per_peer", ni->conns_per_peer);
	off = lnetctl_param_int(buf, len, off, "lnd_timeout", ni->lnd_timeout);
	lnetctl_param_int(buf, len, off, "tos", ni->tos);
}

static int lnetctl_ni_send(struct lnetctl_conn *c, const struct lnetcfg_ni *ni, bool add,
			   const char *extra, const char *verb, const char *object);

int
lnetctl_ni_request(struct lnetctl_conn *c, const struct lnetcfg_ni *ni, bool add)
{
	return lnetctl_ni_request_as(c, ni, add, add ? "add" : "del", "net");
}

/* One NI to the daemon; its refusal is the error block @p verb / @p object. */
int
lnetctl_ni_request_as(struct lnetctl_conn *c, const struct lnetcfg_ni *ni, bool add,
		      const char *verb, const char *object)
{
	return lnetctl_ni_send(c, ni, add, "", verb, object);
}

/* lnet unconfigure's: the NI deleted with no push to peers, as the kernel's shutdown. */
int
lnetctl_ni_unconfigure(struct lnetctl_conn *c, const struct lnetcfg_ni *ni)
{
	return lnetctl_ni_send(c, ni, false, ",push=0", "unconfigure", "lnet");
}

static int
lnetctl_ni_send(struct lnetctl_conn *c, const struct lnetcfg_ni *ni, bool add, const char *extra,
		const char *verb, const char *object)
{
	yaml_document_t doc;
	yaml_node_t *v;
	char params[512];
	size_t off;
	int rc;

	lnetctl_ni_params(ni, add, params, sizeof(params));
	off = strlen(params);
	snprintf(params + off, sizeof(params) - off, "%s", extra);
	rc = lnetctl_request_status(c, add ? "/lnet/net_add" : "/lnet/net_del", params, &doc, &v,
				    verb, object);
	if (rc == 0) {
		yaml_document_delete(&doc);
	}
	return rc;
}

/* An integer option value; false when it is not one. */
static bool
lnetctl_opt_int(const char *s, int lo, int hi, int *out)
{
	char *end = NULL;
	long x = strtol(s, &end, 10);

	if (s[0] == '\0' || *end != '\0' || x < lo || x > hi) {
		return false;
	}
	*out = (int)x;
	return true;
}

/* --cpt N or "[N,...]": the NI is served by the first CPT listed. */
static bool
lnetctl_opt_cpt(const char *s, int *out)
{
	char buf[64];
	char *end;

	snprintf(buf, sizeof(buf), "%s", s[0] == '[' ? s + 1 : s);
	end = buf + strcspn(buf, ",]");
	if (s[0] == '[' && s[strlen(s) - 1] != ']') {
		return false;
	}
	*end = '\0';
	return lnetctl_opt_int(buf, 0, 1023, out);
}

/* Interfaces named by --ip2net RULES on this host, as NIs of @p tmpl. */
static int
lnetctl_ip2net(const char *rules, const struct lnetcfg_ni *tmpl, struct lnetcfg_ni *out,
	       unsigned int max, char *err, size_t errlen)
{
	struct cfs_ip2nets_match m[LNETCTL_MAX_NEW_NIS];
	struct cfs_ip2nets *r = NULL;
	struct cfs_ifaddr *ifs = NULL;
	unsigned int nifs = 0;
	int n;
	int i;

	n = cfs_ip2nets_parse(rules, &r, err, errlen);
	if (n == 0) {
		n = cfs_ifaddrs_get(&ifs, &nifs);
		if (n != 0) {
			snprintf(err, errlen, "cannot list interfaces: %s", strerror(-n));
		}
	}
	if (n == 0) {
		n = cfs_ip2nets_match(r, ifs, nifs, m, max < LNETCTL_MAX_NEW_NIS ? max :
						     LNETCTL_MAX_NEW_NIS, err, errlen);
	}
	for (i = 0; i < n; i++) {
		out[i] = *tmpl;
		out[i].net = m[i].net;
		snprintf(out[i].ifname, sizeof(out[i].ifname), "%s", m[i].ifname);
		if (m[i].cpts[0] != '\0' && tmpl->cpt == LNETCFG_UNSET) {
			lnetctl_opt_cpt(m[i].cpts, &out[i].cpt);
		}
	}
	if (n == 0) {
		snprintf(err, errlen, "no interface of this host matches the ip2net rules");
		n = -ENOENT;
	}
	cfs_ip2nets_free(r);
	free(ifs);
	return n;
}

/* --if eth0,eth1: one NI per interface. */
static int
lnetctl_if_list(const char *list, const struct lnetcfg_ni *tmpl, struct lnetcfg_ni *out,
		unsigned int max, char *err, size_t errlen)
{
	char *copy = strdup(list);
	char *save = NULL;
	char *tok;
	unsigned int n = 0;

	for (tok = copy != NULL ? strtok_r(copy, ",", &save) : NULL; tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max || strlen(tok) >= sizeof(out[0].ifname)) {
			free(copy);
			snprintf(err, errlen, n == max ? "too many interfaces" : "bad interface name");
			return -EINVAL;
		}
		out[n] = *tmpl;
		snprintf(out[n++].ifname, sizeof(out[0].ifname), "%s", tok);
	}
	free(copy);
	if (n == 0) {
		snprintf(err, errlen, "--if needs an interface name");
		return -EINVAL;
	}
	return (int)n;
}

static const char lnetctl_net_add_usage[] =
	"usage: net add --net NET (--if IFACE[,IFACE...] | --nid NID) | --ip2net RULES "
	"[--peer-timeout N] [--peer-credits N] [--peer-buffer-credits N] [--credits N] "
	"[--cpt CPT] [--conns-per-peer N] [--tos N]";

/* The kernel's net add options: its short letters; --nid and --tos are long only. */
static const struct option lnetctl_net_add_opts[] = {
	{ "auth-key", required_argument, NULL, 'a' },
	{ "peer-buffer-credits", required_argument, NULL, 'b' },
	{ "peer-credits", required_argument, NULL, 'c' },
	{ "if", required_argument, NULL, 'i' },
	{ "skip-mr-route-setup", no_argument, NULL, 'k' },
	{ "conns-per-peer", required_argument, NULL, 'm' },
	{ "net", required_argument, NULL, 'n' },
	{ "nid", required_argument, NULL, 'N' },
	{ "ip2net", required_argument, NULL, 'p' },
	{ "credits", required_argument, NULL, 'r' },
	{ "cpt", required_argument, NULL, 's' },
	{ "peer-timeout", required_argument, NULL, 't' },
	{ "traffic-class", required_argument, NULL, 'T' },
	{ "tos", required_argument, NULL, 'S' },
	{ NULL, 0, NULL, 0 },
};

/* Integer options of net add, by option letter, and where each goes in the NI. */
static int *
lnetctl_net_add_int(struct lnetcfg_ni *ni, int opt, int *lo, int *hi)
{
	static const struct {
		int opt;
		size_t off;
		int lo;
		int hi;
	} ints[] = {
		{ 't', offsetof(struct lnetcfg_ni, peer_timeout), 0, 1000000 },
		{ 'c', offsetof(struct lnetcfg_ni, peer_credits), 0, 1000000 },
		{ 'b', offsetof(struct lnetcfg_ni, peer_buffer_credits), 0, 1000000 },
		{ 'r', offsetof(struct lnetcfg_ni, credits), 0, 1000000 },
		{ 'm', offsetof(struct lnetcfg_ni, conns_per_peer), 0, 127 },
		{ 'S', offsetof(struct lnetcfg_ni, tos), -1, 255 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		if (ints[i].opt == opt) {
			*lo = ints[i].lo;
			*hi = ints[i].hi;
			return (int *)((char *)ni + ints[i].off);
		}
	}
	return NULL;
}

/* What net add was asked: the NI template and where its NIs come from. */
struct lnetctl_net_add_args {
	struct lnetcfg_ni tmpl;
	const char *net;
	const char *ifs;
	const char *nid;
	const char *ip2net;
};

/* Whether jt_add_ni's parse_long() takes @p val: strtol, base 0, to the end. */
static bool
lnetctl_net_add_parses(const char *val)
{
	char *end = NULL;

	(void)strtol(val, &end, 0);
	return *end == '\0';
}

/* One option into @p a; false with @p err set when it is refused. */
static bool
lnetctl_net_add_opt(struct lnetctl_net_add_args *a, int opt, const char *val, char *err,
		    size_t errlen)
{
	const char **str = opt == 'n' ? &a->net : opt == 'i' ? &a->ifs : opt == 'N' ? &a->nid :
			   opt == 'p' ? &a->ip2net : NULL;
	int lo = 0, hi = 0;
	int *slot = lnetctl_net_add_int(&a->tmpl, opt, &lo, &hi);

	if (opt == 'a' || opt == 'k' || opt == 'T') {
		snprintf(err, errlen, "--%s: not supported by lnetd-pmd yet",
			 opt == 'a' ? "auth-key" : opt == 'k' ? "skip-mr-route-setup" :
			 "traffic-class");
		return false;
	}
	if (slot != NULL && opt != 'S' && !lnetctl_net_add_parses(val)) {
		return true; /* jt_add_ni ignores a value parse_long refuses */
	}
	if (slot != NULL) {
		if (*slot != LNETCFG_UNSET || !lnetctl_opt_int(val, lo, hi, slot)) {
			snprintf(err, errlen, "%s: an integer from %d to %d, once", val, lo, hi);
			return false;
		}
	} else if (opt == 's') {
		if (a->tmpl.cpt != LNETCFG_UNSET || !lnetctl_opt_cpt(val, &a->tmpl.cpt)) {
			snprintf(err, errlen, "--cpt: a CPT number or list such as \"[0]\"");
			return false;
		}
	} else if (str == NULL || *str != NULL) {
		snprintf(err, errlen, "%s", lnetctl_net_add_usage);
		return false;
	} else {
		*str = val;
	}
	return true;
}

/* The NIs @p a names: --ip2net's matches, one per --if interface, or the --nid one. */
static int
lnetctl_net_add_nis(struct lnetctl_net_add_args *a, struct lnetcfg_ni *nis, char *err,
		    size_t errlen)
{
	if (a->ip2net != NULL) {
		if (a->net != NULL || a->ifs != NULL || a->nid != NULL) {
			snprintf(err, errlen, "--ip2net replaces --net, --if and --nid");
			return -EINVAL;
		}
		return lnetctl_ip2net(a->ip2net, &a->tmpl, nis, LNETCTL_MAX_NEW_NIS, err, errlen);
	}
	if ((a->ifs == NULL) == (a->nid == NULL)) {
		snprintf(err, errlen, "%s", a->net == NULL && a->ifs == NULL ?
			 lnetctl_net_add_usage : "one of --if and --nid is needed");
		return -EINVAL;
	}
	if (a->nid != NULL) {
		if (libcfs_strnid_err(&a->tmpl.nid, a->nid, err, errlen) != 0) {
			return -EINVAL;
		}
		a->tmpl.has_nid = true;
		a->tmpl.net = lnet_nid_net(&a->tmpl.nid);
	}
	if (a->net != NULL) {
		uint32_t net = libcfs_str2net(a->net);

		if (net == LNET_NET_ANY || (a->nid != NULL && net != a->tmpl.net)) {
			snprintf(err, errlen, net == LNET_NET_ANY ? "--net: not a network" :
				 "--nid is not on --net");
			return -EINVAL;
		}
		a->tmpl.net = net;
	} else if (a->nid == NULL) {
		snprintf(err, errlen, "%s", lnetctl_net_add_usage);
		return -EINVAL;
	}
	if (a->nid != NULL) {
		nis[0] = a->tmpl;
		return 1;
	}
	return lnetctl_if_list(a->ifs, &a->tmpl, nis, LNETCTL_MAX_NEW_NIS, err, errlen);
}

/*
 * The extack text the kernel's lnet_net_cmd() gives a refused NI add, by
 * lnet_dyn_add_ni()'s errno.
 */
static const char *
lnetctl_ni_add_refusal(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "cannot parse net";
	case -ERANGE:
		return "invalid CPT set";
	case -ENOSPC:
		return "too many NIs, check lnet_interfaces_max";
	default:
		return "cannot add LNet NI";
	}
}

/*
 * One NI of net add to the daemon. A refusal prints as 2.17's
 * yaml_lnet_config_ni() prints the kernel's (yaml_lnet_print_error under
 * "add" and "net", the errno with the extack text) and the command ends
 * with -EINVAL as that function returns. The daemon's -EOPNOTSUPP (no
 * such LND in this build) keeps its own words: the kernel has no such
 * answer (it would load the LND's module).
 */
static int
lnetctl_net_add_one(struct lnetctl_conn *c, const struct lnetcfg_ni *ni)
{
	char params[512];
	char descr[256];
	int rc;

	lnetctl_ni_params(ni, true, params, sizeof(params));
	rc = lnetctl_call(c, "/lnet/net_add", params, descr, sizeof(descr));
	if (rc == 0) {
		return 0;
	}
	if (rc == -EOPNOTSUPP) {
		lnetctl_print_error("add", "net", rc, descr);
		return rc;
	}
	lnetctl_print_nl_error("add", "net", rc, lnetctl_ni_add_refusal(rc));
	return -EINVAL;
}

/* jt_add_ni's --tos check: parse_long's number, from -1 to 0xff. */
static bool
lnetctl_net_add_tos_ok(const char *val)
{
	long tos;
	char *end = NULL;

	tos = strtol(val, &end, 0);
	return *end == '\0' && tos >= -1 && tos <= 0xff;
}

/*
 * What 2.17's yaml_lnet_config_ni() checks before it asks the kernel, and
 * prints on stdout: no --net (nor --ip2net, nor --nid, which names its
 * net), then a net with no interface. Both end the command with -EINVAL.
 */
static int
lnetctl_net_add_mandatory(const struct lnetctl_net_add_args *a)
{
	if (a->ip2net != NULL || a->nid != NULL) {
		return 0;
	}
	if (a->net == NULL) {
		printf("missing mandatory parameters in NI config: 'network'\n");
		return -EINVAL;
	}
	if (a->ifs == NULL) {
		printf("creating a local NI needs at least one interface\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * argv[0] = "add": getopt_long with the kernel's options; the daemon is
 * asked only once the command line passed the checks jt_add_ni makes first.
 */
static int
lnetctl_net_add(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	struct lnetctl_net_add_args a = { .net = NULL };
	struct lnetcfg_ni nis[LNETCTL_MAX_NEW_NIS];
	char err[256] = "";
	int opt;
	int n;
	int i;
	int rc = 0;

	lnetcfg_ni_init(&a.tmpl, LNET_NET_ANY);
	lnetctl_check_cmd_opterr(argc);
	while ((opt = getopt_long(argc, argv, "a:b:c:i:k:m:n:p:r:s:t:T:", lnetctl_net_add_opts,
				  NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			/* jt_add_ni: getopt's complaint, the help, and 0 */
			lnetctl_print_cmd_help("net", "add");
			return 0;
		}
		if (opt == 'S' && !lnetctl_net_add_tos_ok(optarg)) {
			/* jt_add_ni's cYAML_build_error(-1, -1, "ni", "add", ...) */
			lnetctl_print_error("add", "ni", -1, "Invalid ToS argument");
			return -EINVAL;
		}
		if (!lnetctl_net_add_opt(&a, opt, optarg, err, sizeof(err))) {
			if (strstr(err, "not supported") != NULL) {
				lnetctl_print_error("add", "net", -EOPNOTSUPP, err);
				return -EOPNOTSUPP;
			}
			return lnetctl_usage_error("add", "net", err);
		}
	}
	if (optind < argc) {
		return lnetctl_usage_error("add", "net", lnetctl_net_add_usage);
	}
	rc = lnetctl_net_add_mandatory(&a);
	if (rc != 0) {
		return rc;
	}
	n = lnetctl_net_add_nis(&a, nis, err, sizeof(err));
	if (n == -EINVAL) {
		return lnetctl_usage_error("add", "net", err);
	}
	if (n < 0) {
		lnetctl_print_error("add", "net", n, err);
		return n;
	}
	rc = lnetctl_need_conn(ctx);
	for (i = 0; i < n && rc == 0; i++) {
		rc = lnetctl_net_add_one(&ctx->conn, &nis[i]);
	}
	return rc;
}

/*
 * The kernel's lnet_net_cmd() text and errno for a refused NI delete,
 * from the daemon's answer: no such net (-ENODEV), no such NI on it
 * (-ENOENT), or another refusal. A whole net goes through
 * lnet_dyn_del_net() (no net: -EINVAL), one interface's NI through the
 * delete branch of lnet_genl_parse_local_ni() (-ENODEV either way), one
 * NID's through lnet_dyn_del_ni() (-ENOENT either way).
 */
static const char *
lnetctl_ni_del_refusal(const struct lnetcfg_ni *ni, int *rc)
{
	bool missing = *rc == -ENODEV || *rc == -ENOENT;

	if (ni->has_nid) {
		*rc = missing ? -ENOENT : *rc;
		return "cannot del LNet NI";
	}
	if (ni->ifname[0] != '\0') {
		const char *what = *rc == -ENODEV ? "LNet net doesn't exist" : "cannot del LNet NI";

		*rc = missing ? -ENODEV : *rc;
		return what;
	}
	*rc = missing ? -EINVAL : *rc;
	return "cannot del network";
}

/*
 * One delete to the daemon; a refusal prints as 2.17's
 * yaml_lnet_config_ni() prints the kernel's (under "del" and "net") and
 * the command ends with its -EINVAL. The lo net is refused before, as the
 * kernel's parser refuses its net type ("setting @lo not allowed").
 */
static int
lnetctl_net_del_one(struct lnetctl_conn *c, const struct lnetcfg_ni *ni)
{
	char params[512];
	char descr[256];
	const char *why;
	int rc;

	if (LNET_NETTYP(ni->net) == LNET_LND_LO) {
		lnetctl_print_nl_error("del", "net", -ENODEV, "setting @lo not allowed");
		return -EINVAL;
	}
	lnetctl_ni_params(ni, false, params, sizeof(params));
	rc = lnetctl_call(c, "/lnet/net_del", params, descr, sizeof(descr));
	if (rc == 0) {
		return 0;
	}
	why = lnetctl_ni_del_refusal(ni, &rc);
	lnetctl_print_nl_error("del", "net", rc, why);
	return -EINVAL;
}

/*
 * One NI of an import (add, or del with --del), as 2.17's
 * handle_net_config_sequence() (lnet/utils/lnetctl.c) sends it through
 * yaml_lnet_config_ni(): a refusal prints that function's block under
 * "net", then the import's own ("Failed to configure NI on net 'NET' rc =
 * -22", errno -EINVAL), and the import stops there with -EINVAL.
 */
int
lnetctl_import_ni(struct lnetctl_conn *c, const struct lnetcfg_ni *ni, bool add)
{
	char descr[128];
	int rc = add ? lnetctl_net_add_one(c, ni) : lnetctl_net_del_one(c, ni);

	if (rc == -EINVAL) {
		snprintf(descr, sizeof(descr), "Failed to configure NI on net '%s' rc = %d",
			 libcfs_net2str(ni->net), rc);
		lnetctl_print_nl_error(add ? "add" : "del", "import", rc, descr);
	}
	return rc;
}

/*
 * net del --net NET [--if IFACE] | --nid NID  (argv[0] = "del"), checked
 * as jt_del_ni and yaml_lnet_config_ni check it: an unknown option prints
 * getopt's complaint and the help and ends with 0; no net prints
 * "missing mandatory parameters" on stdout and ends with -EINVAL. --net
 * beside --nid is taken (the kernel refuses it) when both name one net.
 */
static int
lnetctl_net_del(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const char usage[] = "usage: net del --net NET [--if IFACE] | --nid NID";
	static const struct option opts[] = {
		{ "net", required_argument, NULL, 'n' },
		{ "if", required_argument, NULL, 'i' },
		{ "nid", required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	struct lnetcfg_ni ni;
	const char *net = NULL, *ifname = NULL, *nid = NULL;
	int opt;
	int rc;

	lnetcfg_ni_init(&ni, LNET_NET_ANY);
	lnetctl_check_cmd_opterr(argc);
	while ((opt = getopt_long(argc, argv, "n:i:", opts, NULL)) != -1) {
		const char **slot = opt == 'n' ? &net : opt == 'i' ? &ifname : opt == 'N' ? &nid :
				    NULL;

		if (slot == NULL) {
			lnetctl_print_cmd_help("net", "del");
			return 0;
		}
		if (*slot != NULL) {
			return lnetctl_usage_error("del", "net", usage);
		}
		*slot = optarg;
	}
	if (net == NULL && nid == NULL) {
		printf("missing mandatory parameters in NI config: 'network'\n");
		return -EINVAL;
	}
	if (optind < argc || (ifname != NULL && strlen(ifname) >= sizeof(ni.ifname))) {
		return lnetctl_usage_error("del", "net", usage);
	}
	if (nid != NULL) {
		char why[160];

		if (libcfs_strnid_err(&ni.nid, nid, why, sizeof(why)) != 0) {
			return lnetctl_usage_error("del", "net", why);
		}
		ni.has_nid = true;
		ni.net = lnet_nid_net(&ni.nid);
	}
	if (net != NULL) {
		uint32_t n = libcfs_str2net(net);

		if (n == LNET_NET_ANY || (nid != NULL && n != ni.net)) {
			return lnetctl_usage_error("del", "net", n == LNET_NET_ANY ?
					"--net: not a network" : "--nid is not on --net");
		}
		ni.net = n;
	}
	if (ifname != NULL) {
		snprintf(ni.ifname, sizeof(ni.ifname), "%s", ifname);
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_net_del_one(&ctx->conn, &ni);
}

/*
 * net show [--net|-n NET] [--verbose|-v [LEVEL]], read as 2.17's
 * jt_show_net reads it: -v takes no argument of its own ("-v2" is -v and
 * an unknown -2), the level is the next word when parse_long() takes it
 * (a word it refuses is used up, level 1), --verbose=N is level 1; an
 * unknown option prints getopt's complaint and the help and ends with 0;
 * other words are ignored. The kernel's dump refuses a net it cannot
 * parse (-ENOENT "cannot parse net", lnet_net_show_start) and one with no
 * NI (-ESRCH "Network is down", lnet_net_show_dump) in the netlink block.
 */
int
lnetctl_net_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "net", required_argument, NULL, 'n' },
		{ "verbose", optional_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *net = NULL;
	char *end = NULL;
	long detail = 0;
	int opt;
	int rc;

	lnetctl_check_cmd_opterr(argc);
	while ((opt = getopt_long(argc, argv, "n:v", opts, NULL)) != -1) {
		if (opt == 'n') {
			net = optarg;
		} else if (opt == 'v') {
			if (optarg != NULL || optind >= argc || argv[optind][0] == '-') {
				detail = 1;
				continue;
			}
			detail = strtol(argv[optind], &end, 0);
			detail = *end != '\0' ? 1 : detail;
			optind++;
		} else {
			lnetctl_print_cmd_help("net", "show");
			return 0;
		}
	}
	if (net != NULL && libcfs_str2net(net) == LNET_NET_ANY) {
		lnetctl_print_nl_error("show", "net", -ENOENT, "cannot parse net");
		return -EINVAL;
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_net_show(&ctx->conn, net, (int)detail);
}

int
lnetctl_net_add_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	/* argv[0] is "add", as getopt_long wants it */
	return lnetctl_net_add(ctx, argc, argv);
}

int
lnetctl_net_del_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	/* argv[0] is "del", as getopt_long wants it */
	return lnetctl_net_del(ctx, argc, argv);
}

/* What net set was asked; -1: not given (the kernel's defaults). */
struct lnetctl_net_set_args {
	bool all;
	const char *nid;
	long health;
	long conns_per_peer;
	int lnd_timeout;
	bool net;
};

/* One option of net set into @p a; 0, or -EINVAL with @p err set. */
static int
lnetctl_net_set_opt(struct lnetctl_net_set_args *a, int opt, const char *val, char *err,
		    size_t errlen)
{
	char *end = NULL;

	switch (opt) {
	case 'a':
		a->all = true;
		break;
	case 'i':
		if (libcfs_str2net(val) == LNET_NET_ANY) {
			snprintf(err, errlen, "Invalid network type: %s", val);
			return -EINVAL;
		}
		a->net = true;
		break;
	case 'l':
		a->lnd_timeout = atoi(val);
		if (a->lnd_timeout < 0) {
			snprintf(err, errlen, "Invalid LND timeout value '%s', must be >= 0", val);
			return -EINVAL;
		}
		break;
	case 'm':
	case 't':
		/* the kernel ignores a value it cannot parse */
		*(opt == 'm' ? &a->conns_per_peer : &a->health) = strtol(val, &end, 0);
		if (*end != '\0') {
			*(opt == 'm' ? &a->conns_per_peer : &a->health) = -1;
		}
		break;
	case 'n':
		a->nid = val;
		break;
	case 's':
		break; /* --state is for peer NIs */
	default:
		snprintf(err, errlen, "Invalid option or missing argument");
		return -EINVAL;
	}
	return 0;
}

/* The request net set makes of @p a: health of one NI or all of them; the rest is refused. */
static int
lnetctl_net_set_apply(struct lnetctl_ctx *ctx, const struct lnetctl_net_set_args *a, char *err,
		      size_t errlen, bool *quiet)
{
	char params[160];
	char descr[256];
	int rc;

	if (a->lnd_timeout >= 0) {
		snprintf(err, errlen, "--lnd-timeout: not supported by lnetd-pmd yet "
			 "(an NI's sock_timeout is set when it is added)");
		return -EOPNOTSUPP;
	}
	if (a->conns_per_peer >= 0) {
		snprintf(err, errlen, "--conns-per-peer: not supported by lnetd-pmd yet "
			 "(an NI's conns_per_peer is set when it is added)");
		return -EOPNOTSUPP;
	}
	if (a->health < 0) {
		return 0; /* nothing to set, as the kernel's */
	}
	if (a->nid != NULL && strchr(a->nid, '@') == NULL) {
		return -EINVAL; /* yaml_lnet_config_ni_value's, without a word (err stays empty) */
	}
	rc = lnetctl_need_conn(ctx);
	if (rc != 0) {
		*quiet = true; /* its line is printed */
		return rc;
	}
	snprintf(params, sizeof(params), "health=%ld%s%s", a->health, a->nid != NULL ? ",nid=" : "",
		 a->nid != NULL ? a->nid : "");
	rc = lnetctl_call(&ctx->conn, "/lnet/net_set", params, descr, sizeof(descr));
	if (rc == 0 || rc == -ENOENT) {
		return 0; /* lnet_ni_set_healthv() passes over a NID no NI has */
	}
	/* yaml_lnet_config_ni(NLM_F_REPLACE)'s block; set_value_helper's follows */
	lnetctl_print_nl_error("set", "net", rc, descr);
	return -EINVAL;
}

/* The options net set and peer set share, as the kernel's set_value_helper takes them. */
const struct option lnetctl_set_value_opts[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "net", required_argument, NULL, 'i' },
	{ "lnd-timeout", required_argument, NULL, 'l' },
	{ "conns-per-peer", required_argument, NULL, 'm' },
	{ "nid", required_argument, NULL, 'n' },
	{ "state", required_argument, NULL, 's' },
	{ "health", required_argument, NULL, 't' },
	{ NULL, 0, NULL, 0 },
};

/*
 * net set [--all|-a] [--nid|-n NID] [--health|-t V] [--conns-per-peer|-m N]
 * [--lnd-timeout|-l N --net|-i NET]  (argv[0] = "set"): the health value
 * of one NI or of every NI; errors as 2.17's set_value_helper prints them:
 * getopt's complaint, then its "net:"/"set:" block; --all with --nid or a
 * --nid without '@' are yaml_lnet_config_ni_value's -EINVAL with no text;
 * a refusal by the node is yaml_lnet_config_ni()'s netlink block first.
 * A NID no NI has is passed over (lnet_ni_set_healthv), exit 0.
 */
int
lnetctl_net_set_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	struct lnetctl_net_set_args a = { .health = -1, .conns_per_peer = -1, .lnd_timeout = -1 };
	char err[256] = "";
	bool quiet = false;
	int opt;
	int rc = 0;

	lnetctl_check_cmd_opterr(argc);
	while (rc == 0 && (opt = getopt_long(argc, argv, LNETCTL_SET_VALUE_SHORTOPTS,
					     lnetctl_set_value_opts, NULL)) != -1) {
		rc = lnetctl_net_set_opt(&a, opt, optarg, err, sizeof(err));
	}
	if (rc == 0 && a.lnd_timeout >= 0 && !a.net) {
		snprintf(err, sizeof(err), "Specified --lnd-timeout without --net option");
		rc = -EINVAL;
	}
	if (rc == 0 && a.all && a.nid != NULL) {
		rc = -EINVAL; /* yaml_lnet_config_ni_value's, without a word */
	}
	if (rc == 0) {
		rc = lnetctl_net_set_apply(ctx, &a, err, sizeof(err), &quiet);
	}
	/* set_value_helper's cYAML_build_error(rc, -1, "net", "set", err_str) */
	if (rc != 0 && err[0] != '\0') {
		lnetctl_print_error("net", "set", rc, err);
	} else if (rc != 0 && !quiet) {
		lnetctl_print_error_raw("net", "set", rc, "");
	}
	return rc;
}
