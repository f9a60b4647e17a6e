/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net add / net del: command lines and import items become NIs of the
 * configuration model (lnetcfg_ni), and each NI one telemetry request.
 * --ip2net is resolved here against this host's interfaces, as the
 * kernel's lnetctl does before it configures anything.
 */
#include <errno.h>
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

int
lnetctl_ni_request(struct lnetctl_conn *c, const struct lnetcfg_ni *ni, bool add)
{
	yaml_document_t doc;
	yaml_node_t *v;
	char params[512];
	int rc;

	lnetctl_ni_params(ni, add, params, sizeof(params));
	rc = lnetctl_request_status(c, add ? "/lnet/net_add" : "/lnet/net_del", params, &doc, &v,
				    add ? "add" : "del", "net");
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

/* Integer options of net add, and where each goes in the NI. */
static int *
lnetctl_net_add_int(struct lnetcfg_ni *ni, const char *opt, int *lo, int *hi)
{
	static const struct {
		const char *opt;
		size_t off;
		int lo;
		int hi;
	} ints[] = {
		{ "--peer-timeout", offsetof(struct lnetcfg_ni, peer_timeout), 0, 1000000 },
		{ "--peer-credits", offsetof(struct lnetcfg_ni, peer_credits), 0, 1000000 },
		{ "--peer-buffer-credits", offsetof(struct lnetcfg_ni, peer_buffer_credits), 0,
		  1000000 },
		{ "--credits", offsetof(struct lnetcfg_ni, credits), 0, 1000000 },
		{ "--conns-per-peer", offsetof(struct lnetcfg_ni, conns_per_peer), 0, 127 },
		{ "--tos", offsetof(struct lnetcfg_ni, tos), -1, 255 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		if (strcmp(ints[i].opt, opt) == 0) {
			*lo = ints[i].lo;
			*hi = ints[i].hi;
			return (int *)((char *)ni + ints[i].off);
		}
	}
	return NULL;
}

/* Options named in the kernel's net add that this daemon does not do yet. */
static bool
lnetctl_net_add_unsupported(const char *opt)
{
	return strcmp(opt, "--skip-mr-route-setup") == 0 || strcmp(opt, "--auth-key") == 0 ||
	       strcmp(opt, "--traffic-class") == 0;
}

int
lnetctl_net_add(struct lnetctl_conn *c, int argc, char **argv)
{
	struct lnetcfg_ni tmpl;
	struct lnetcfg_ni nis[LNETCTL_MAX_NEW_NIS];
	const char *net = NULL, *ifs = NULL, *nid = NULL, *ip2net = NULL;
	char err[256] = "";
	int n = 0;
	int i;
	int rc = 0;

	lnetcfg_ni_init(&tmpl, LNET_NET_ANY);
	for (i = 0; i < argc; i++) {
		const char *o = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		int lo = 0, hi = 0;
		int *slot = lnetctl_net_add_int(&tmpl, o, &lo, &hi);

		if (lnetctl_net_add_unsupported(o)) {
			snprintf(err, sizeof(err), "net add %s: not supported yet", o);
			lnetctl_print_error("add", "net", -EOPNOTSUPP, err);
			return -EOPNOTSUPP;
		}
		if (val == NULL) {
			break;
		}
		i++;
		if (slot != NULL) {
			if (*slot != LNETCFG_UNSET || !lnetctl_opt_int(val, lo, hi, slot)) {
				snprintf(err, sizeof(err), "%s: an integer from %d to %d, once", o, lo, hi);
				break;
			}
		} else if (strcmp(o, "--cpt") == 0 && tmpl.cpt == LNETCFG_UNSET) {
			if (!lnetctl_opt_cpt(val, &tmpl.cpt)) {
				snprintf(err, sizeof(err), "--cpt: a CPT number or list such as \"[0]\"");
				break;
			}
		} else if (strcmp(o, "--net") == 0 && net == NULL) {
			net = val;
		} else if (strcmp(o, "--if") == 0 && ifs == NULL) {
			ifs = val;
		} else if (strcmp(o, "--nid") == 0 && nid == NULL) {
			nid = val;
		} else if (strcmp(o, "--ip2net") == 0 && ip2net == NULL) {
			ip2net = val;
		} else {
			break;
		}
	}
	if (i < argc || err[0] != '\0') {
		return lnetctl_usage_error("add", "net", err[0] != '\0' ? err : lnetctl_net_add_usage);
	}
	if (ip2net != NULL) {
		if (net != NULL || ifs != NULL || nid != NULL) {
			return lnetctl_usage_error("add", "net", "--ip2net replaces --net, --if and --nid");
		}
		n = lnetctl_ip2net(ip2net, &tmpl, nis, LNETCTL_MAX_NEW_NIS, err, sizeof(err));
	} else if (net == NULL || (tmpl.net = libcfs_str2net(net)) == LNET_NET_ANY) {
		return lnetctl_usage_error("add", "net", net == NULL ? lnetctl_net_add_usage :
								     "--net: not a network");
	} else if ((ifs == NULL) == (nid == NULL)) {
		return lnetctl_usage_error("add", "net", "one of --if and --nid is needed");
	} else if (nid != NULL) {
		char why[160];

		if (libcfs_strnid_err(&tmpl.nid, nid, why, sizeof(why)) != 0) {
			return lnetctl_usage_error("add", "net", why);
		}
		tmpl.has_nid = true;
		nis[0] = tmpl;
		n = 1;
	} else {
		n = lnetctl_if_list(ifs, &tmpl, nis, LNETCTL_MAX_NEW_NIS, err, sizeof(err));
	}
	if (n < 0) {
		lnetctl_print_error("add", "net", n, err);
		return n;
	}
	for (i = 0; i < n && rc == 0; i++) {
		rc = lnetctl_ni_request(c, &nis[i], true);
	}
	return rc;
}

/* net del --net NET [--if IFACE] | --nid NID */
int
lnetctl_net_del(struct lnetctl_conn *c, int argc, char **argv)
{
	static const char usage[] = "usage: net del --net NET [--if IFACE] | --nid NID";
	struct lnetcfg_ni ni;
	const char *net = NULL, *ifname = NULL, *nid = NULL;
	int i;

	lnetcfg_ni_init(&ni, LNET_NET_ANY);
	for (i = 0; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--net") == 0 && net == NULL) {
			net = argv[i + 1];
		} else if (strcmp(argv[i], "--if") == 0 && ifname == NULL) {
			ifname = argv[i + 1];
		} else if (strcmp(argv[i], "--nid") == 0 && nid == NULL) {
			nid = argv[i + 1];
		} else {
			break;
		}
	}
	if (i < argc || (net == NULL && nid == NULL) || (ifname != NULL && net == NULL) ||
	    (ifname != NULL && strlen(ifname) >= sizeof(ni.ifname))) {
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
	return lnetctl_ni_request(c, &ni, false);
}

/* "-v" / "--verbose" with an optional level in the next word; "--net NET". */
int
lnetctl_net_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	const char *net = NULL;
	int detail = 0;
	int i;
	int rc;

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	for (i = 0; i < argc; i++) {
		if ((strcmp(argv[i], "--net") == 0) && i + 1 < argc) {
			net = argv[++i];
		} else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
			detail = 1;
			if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') {
				detail = atoi(argv[++i]);
			}
		} else {
			lnetctl_print_error("show", "net", -EINVAL, "unknown option");
			return -EINVAL;
		}
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_net_show(&ctx->conn, net, detail);
}

int
lnetctl_net_add_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_need_conn(ctx);

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	return rc != 0 ? rc : lnetctl_net_add(&ctx->conn, argc, argv);
}

int
lnetctl_net_del_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_need_conn(ctx);

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	return rc != 0 ? rc : lnetctl_net_del(&ctx->conn, argc, argv);
}
