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
		n = cfs_ip2nets_match(r, ifs, nifs, m,
				      max < LNETCTL_MAX_NEW_NIS ? max : LNETCTL_MAX_NEW_NIS, err,
				      errlen);
	}
	for (i = 0; i < n; i++) {
		out[i] = *tmpl;
		out[i].net = m[i].net;
		snprintf(out[i].ifname, sizeof(out[i].ifname), "%s", m[i].ifname);
		if (m[i].cpts[0] != '\0' && tmpl->cpt == LNETCFG_UNSET) {
			struct cfs_expr_list *el = NULL;
			uint32_t *v = NULL;

			if (cfs_expr_list_parse(m[i].cpts, strlen(m[i].cpts), 0, 1023, &el) == 0 &&
			    cfs_expr_list_values(el, 1024, &v) > 0) {
				out[i].cpt = (int)v[0];
			}
			free(v);
			cfs_expr_list_free(el);
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

/* 2.17's LNET_MAX_STR_LEN: the longest --if/--nid item, and --traffic-class, plus one. */
#define LNETCTL_NET_STR_LEN 128

/* One item of --if / --nid: an interface name, or a NID when it holds '@'. */
struct lnetctl_net_item {
	char name[LNETCTL_NET_STR_LEN];
	int cpt; /* the first CPT of its "[...]", or LNETCFG_UNSET */
};

/* What net add was asked, as 2.17's jt_add_ni keeps it. */
struct lnetctl_net_add_args {
	long pto, pc, pbc, cre, cpp, tos; /* -1: not given */
	int cpt;                          /* the first CPT of --cpt, or LNETCFG_UNSET */
	const char *net_id;               /* --net as typed */
	uint32_t nw_id;                   /* 0: none yet */
	const char *ip2net;
	bool nid_request;
	unsigned int nitems;
	struct lnetctl_net_item items[LNETCTL_MAX_NEW_NIS];
};

/* The first value of an expression list ("[0,1]", "3"); LNETCFG_UNSET when it is not one. */
static int
lnetctl_net_first_cpt(const char *s, size_t len, bool *ok)
{
	struct cfs_expr_list *el = NULL;
	uint32_t *v = NULL;
	int cpt = LNETCFG_UNSET;

	*ok = cfs_expr_list_parse(s, len, 0, UINT32_MAX, &el) == 0;
	if (*ok && cfs_expr_list_values(el, 4096, &v) > 0) {
		cpt = v[0] > INT32_MAX ? INT32_MAX : (int)v[0];
	}
	free(v);
	cfs_expr_list_free(el);
	return cpt;
}

/*
 * One item of @p len bytes at @p s into @p a: its name and the CPTs of a
 * bracket in it; false where 2.17's lustre_lnet_add_intf_descr() refuses
 * one (too long, a bracket not closed, CPTs it cannot parse).
 */
static bool
lnetctl_net_add_item(struct lnetctl_net_add_args *a, const char *s, size_t len)
{
	struct lnetctl_net_item *it = &a->items[a->nitems];
	char buf[LNETCTL_NET_STR_LEN];
	char *open;
	bool ok = true;

	if (len >= sizeof(buf) || a->nitems == LNETCTL_MAX_NEW_NIS) {
		return false;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	it->cpt = LNETCFG_UNSET;
	open = strchr(buf, '[');
	if (open != NULL) {
		if (strchr(buf, ']') == NULL) {
			return false;
		}
		it->cpt = lnetctl_net_first_cpt(open, strlen(open), &ok);
		*open = '\0';
	}
	if (!ok) {
		return false;
	}
	snprintf(it->name, sizeof(it->name), "%s", buf);
	a->nitems++;
	return true;
}

/*
 * An --if or --nid list, split as 2.17's lustre_lnet_parse_interfaces()
 * splits it: at commas, except that once a '[' is ahead the item runs to
 * the end, or, with a comma after the ']', is the two bytes from the ']'
 * (that function's length); each '@' met sets the net from what follows it
 * to the end of the list. False when an item is refused.
 */
static bool
lnetctl_net_add_list(struct lnetctl_net_add_args *a, const char *list)
{
	const char *cur = list;
	const char *end = list + strlen(list);

	while (cur < end) {
		const char *open = strchr(cur, '[');
		const char *comma = strchr(cur, ',');
		const char *at = strchr(cur, '@');
		const char *next;
		size_t len;

		if (open != NULL) {
			const char *close = strchr(cur, ']');

			if (close == NULL) {
				return false;
			}
			if (comma != NULL && comma > close) {
				next = comma + 1;
				len = (size_t)(next - close);
			} else {
				len = strlen(cur);
				next = cur + len;
			}
		} else if (comma != NULL) {
			next = comma + 1;
			len = (size_t)(comma - cur);
		} else {
			len = strlen(cur);
			next = cur + len;
		}
		if (at != NULL) {
			a->nw_id = libcfs_str2net(at + 1);
		}
		if (!lnetctl_net_add_item(a, cur, len)) {
			return false;
		}
		cur = next;
	}
	return true;
}

/* jt_add_ni's parse_long(): strtol, base 0, to the end; -1 (not given) when it refuses. */
static long
lnetctl_net_add_long(const char *val)
{
	char *end = NULL;
	long x = strtol(val, &end, 0);

	return *end == '\0' ? x : -1;
}

/* The int the daemon is sent for a long option value; LNETCFG_UNSET when not sent. */
static int
lnetctl_net_add_int(long v, bool sent)
{
	return !sent ? LNETCFG_UNSET : v > INT32_MAX ? INT32_MAX : (int)v;
}

/*
 * One option into @p a as jt_add_ni takes it; 0, or the command's return
 * value once its error is printed: a refused --if/--nid list, an empty or
 * long --traffic-class and a --tos out of -1..255 are its cYAML_build_error
 * blocks ("ni" then "add", errno -1) and -EINVAL. An integer parse_long()
 * refuses is ignored, as is a --cpt cfs_expr_list_parse() refuses; the last
 * of an option given twice wins, --if and --nid lists add up.
 */
static int
lnetctl_net_add_opt(struct lnetctl_net_add_args *a, int opt, const char *val)
{
	bool ok = true;

	switch (opt) {
	case 'b':
	case 'c':
	case 'm':
	case 'r':
	case 't':
		*(opt == 'b' ? &a->pbc :
		  opt == 'c' ? &a->pc :
		  opt == 'm' ? &a->cpp :
		  opt == 'r' ? &a->cre :
			       &a->pto) = lnetctl_net_add_long(val);
		break;
	case 'i':
	case 'N':
		if (!lnetctl_net_add_list(a, val)) {
			lnetctl_print_error("ni", "add", -1,
					    opt == 'i' ? "bad interface list" : "bad NID list");
			return -EINVAL;
		}
		a->nid_request = a->nid_request || opt == 'N';
		break;
	case 'n':
		a->nw_id = libcfs_str2net(val);
		a->net_id = val;
		break;
	case 'p':
		a->ip2net = val;
		break;
	case 's': {
		int cpt = lnetctl_net_first_cpt(val, strlen(val), &ok);

		if (ok) {
			a->cpt = cpt;
		}
		break;
	}
	case 'T':
		if (val[0] == '\0' || strlen(val) >= LNETCTL_NET_STR_LEN) {
			lnetctl_print_error("ni", "add", -1, "Invalid traffic-class argument");
			return -EINVAL;
		}
		break; /* kfilnd's only, as --auth-key: no such LND here */
	case 'S': {
		char *end = NULL;

		a->tos = strtol(val, &end, 0);
		if (*end != '\0' || a->tos < -1 || a->tos > 0xff) {
			lnetctl_print_error("ni", "add", -1, "Invalid ToS argument");
			return -EINVAL;
		}
		break;
	}
	default:
		break; /* --auth-key (kfilnd's), --skip-mr-route-setup (no Linux routes here) */
	}
	return 0;
}

/*
 * The extack text the kernel's lnet_net_cmd() gives a refused NI add, by
 * the errno: lnet_genl_parse_local_ni()'s CPT check (-ERANGE) comes
 * before lnet_dyn_add_ni(), whose other answers are named there.
 */
static const char *
lnetctl_ni_add_refusal(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "cannot parse net";
	case -ERANGE:
		return "invalid CPT value";
	case -ENOSPC:
		return "too many NIs, check lnet_interfaces_max";
	default:
		return "cannot add LNet NI";
	}
}

/*
 * One NI of net add to the daemon. A refusal prints as 2.17's
 * yaml_lnet_config_ni() prints the kernel's (yaml_lnet_print_error under
 * "add" and "net", the errno with the extack text: @p why, or the one
 * lnet_net_cmd() gives that errno) and the command ends with -EINVAL as
 * that function returns. The daemon's -EOPNOTSUPP (no such LND in this
 * build) keeps its own words: the kernel has no such answer (it would
 * load the LND's module).
 */
static int
lnetctl_net_add_one(struct lnetctl_conn *c, const struct lnetcfg_ni *ni, const char *why)
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
	lnetctl_print_nl_error("add", "net", rc, why != NULL ? why : lnetctl_ni_add_refusal(rc));
	return -EINVAL;
}

/* The kernel's refusal of net add's request, printed; net add's -EINVAL. */
static int
lnetctl_net_add_refused(int rc, const char *why)
{
	lnetctl_print_nl_error("add", "net", rc, why);
	return -EINVAL;
}

/* --ip2net alone: the NIs it names on this host, as lnet_handle_legacy_ip2nets() adds them. */
static int
lnetctl_net_add_ip2net(struct lnetctl_ctx *ctx, const struct lnetctl_net_add_args *a,
		       const struct lnetcfg_ni *tmpl)
{
	struct lnetcfg_ni nis[LNETCTL_MAX_NEW_NIS];
	char err[256] = "";
	int n = lnetctl_ip2net(a->ip2net, tmpl, nis, LNETCTL_MAX_NEW_NIS, err, sizeof(err));
	int rc;
	int i;

	if (n < 0) {
		return lnetctl_net_add_refused(n, "cannot setup ip2nets");
	}
	rc = lnetctl_need_conn(ctx);
	for (i = 0; i < n && rc == 0; i++) {
		rc = lnetctl_net_add_one(&ctx->conn, &nis[i], "cannot setup ip2nets");
	}
	return rc;
}

/*
 * What the kernel's lnet_net_cmd() does with the request 2.17's
 * yaml_lnet_config_ni() makes of net add: a net type (--net, or the net of
 * the --nid list) with the items in order, each its own NI (a NID by its
 * address, an interface by name, an empty name nothing), the first refusal
 * ending it; a net type with no item does nothing; the net type
 * libcfs_str2net() cannot read names no LND: a NID under it is passed over,
 * an interface is "cannot parse net". Without a net type: --ip2net alone is
 * its rules; --ip2net with items loses its rules to the items' key (the
 * parser clears them), so the items are under no net; neither (an --if
 * item with '@' gave the net) sends an empty request, "no configuration".
 */
static int
lnetctl_net_add_send(struct lnetctl_ctx *ctx, const struct lnetctl_net_add_args *a)
{
	struct lnetcfg_ni tmpl;
	uint32_t net = a->net_id != NULL || a->nid_request ? a->nw_id : LNET_NET_ANY;
	unsigned int lnd = LNET_NETTYP(net);
	unsigned int i;
	int rc = 0;

	lnetcfg_ni_init(&tmpl, net);
	tmpl.peer_timeout = lnetctl_net_add_int(a->pto, a->pto >= 0);
	tmpl.peer_credits = lnetctl_net_add_int(a->pc, a->pc > 0);
	tmpl.peer_buffer_credits = lnetctl_net_add_int(a->pbc, a->pbc > 0);
	tmpl.credits = lnetctl_net_add_int(a->cre, a->cre > 0);
	tmpl.cpt = a->cpt;
	if (lnd == LNET_LND_SOCK || lnd == LNET_LND_O2IB) {
		tmpl.conns_per_peer = lnetctl_net_add_int(a->cpp, a->cpp > -1);
		tmpl.tos = lnetctl_net_add_int(a->tos, a->tos != -1);
	}
	if (a->net_id == NULL && !a->nid_request) {
		if (a->ip2net == NULL) {
			return lnetctl_net_add_refused(-ENOMSG, "no configuration");
		}
		if (a->nitems == 0) {
			return lnetctl_net_add_ip2net(ctx, a, &tmpl);
		}
	}
	if (net == 0 || LNET_NETTYP(net) == LNET_LND_LO) {
		return lnetctl_net_add_refused(-ENODEV, net == 0 ? "cannot parse net" :
								   "setting @lo not allowed");
	}
	for (i = 0; i < a->nitems && rc == 0; i++) {
		const struct lnetctl_net_item *it = &a->items[i];
		struct lnetcfg_ni ni = tmpl;
		char why[160];

		if (it->cpt != LNETCFG_UNSET) {
			ni.cpt = it->cpt;
		}
		if (strchr(it->name, '@') != NULL) {
			if (net == LNET_NET_ANY) {
				continue; /* "interface / NID is missing", and no error */
			}
			if (libcfs_strnid_err(&ni.nid, it->name, why, sizeof(why)) != 0) {
				return lnetctl_net_add_refused(-EINVAL, "unsupported NID");
			}
			ni.has_nid = true;
		} else if (it->name[0] == '\0') {
			continue; /* no interface nor NID: the kernel adds nothing, no error */
		} else if (net == LNET_NET_ANY) {
			return lnetctl_net_add_refused(-ENOENT, "cannot parse net");
		} else if (strlen(it->name) >= sizeof(ni.ifname)) {
			/* no such interface: ksocknal_startup's -ENETDOWN, as the daemon's */
			return lnetctl_net_add_refused(-ENETDOWN, "cannot add LNet NI");
		} else {
			snprintf(ni.ifname, sizeof(ni.ifname), "%s", it->name);
		}
		if (lnd == LNET_LND_SOCK && ni.conns_per_peer > 127) {
			/* ksocknal_nl_set's range */
			return lnetctl_net_add_refused(-ERANGE, "failed to parse lnd tunables");
		}
		rc = lnetctl_need_conn(ctx);
		if (rc == 0) {
			rc = lnetctl_net_add_one(&ctx->conn, &ni, NULL);
		}
	}
	return rc;
}

/*
 * net add (argv[0] = "add"), as 2.17's jt_add_ni reads it and
 * yaml_lnet_config_ni() checks it before it asks the kernel: an unknown
 * option prints getopt's complaint and the help and ends with 0; other
 * words are ignored; --nid with --net, then no net at all, then a net with
 * no interface (and no --ip2net) are lines on stdout and -EINVAL.
 */
static int
lnetctl_net_add(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	struct lnetctl_net_add_args *a = calloc(1, sizeof(*a));
	int opt;
	int rc = 0;

	if (a == NULL) {
		return -ENOMEM;
	}
	a->pto = a->pc = a->pbc = a->cre = a->cpp = a->tos = -1;
	a->cpt = LNETCFG_UNSET;
	lnetctl_check_cmd_opterr(argc);
	while (rc == 0 && (opt = getopt_long(argc, argv, "a:b:c:i:k:m:n:p:r:s:t:T:",
					     lnetctl_net_add_opts, NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			lnetctl_print_cmd_help("net", "add");
			free(a);
			return 0;
		}
		rc = lnetctl_net_add_opt(a, opt, optarg);
	}
	if (rc == 0 && a->nid_request && a->net_id != NULL) {
		printf("--net is invalid with --nid option\n");
		rc = -EINVAL;
	} else if (rc == 0 && a->ip2net == NULL && a->nw_id == 0) {
		printf("missing mandatory parameters in NI config: 'network'\n");
		rc = -EINVAL;
	} else if (rc == 0 && a->ip2net == NULL && a->nitems == 0) {
		printf("creating a local NI needs at least one interface\n");
		rc = -EINVAL;
	} else if (rc == 0) {
		rc = lnetctl_net_add_send(ctx, a);
	}
	free(a);
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
	int rc = add ? lnetctl_net_add_one(c, ni, NULL) : lnetctl_net_del_one(c, ni);

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
 * "missing mandatory parameters" on stdout and ends with -EINVAL, as
 * --net beside --nid ends with jt_del_ni's "--net is invalid with --nid
 * option".
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
		const char **slot = opt == 'n' ? &net :
				    opt == 'i' ? &ifname :
				    opt == 'N' ? &nid :
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
	if (net != NULL && nid != NULL) {
		printf("--net is invalid with --nid option\n");
		return -EINVAL;
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

		if (n == LNET_NET_ANY) {
			return lnetctl_usage_error("del", "net", "--net: not a network");
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
		snprintf(err, errlen,
			 "--lnd-timeout: not supported by lnetd-pmd yet "
			 "(an NI's sock_timeout is set when it is added)");
		return -EOPNOTSUPP;
	}
	if (a->conns_per_peer >= 0) {
		snprintf(err, errlen,
			 "--conns-per-peer: not supported by lnetd-pmd yet "
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
