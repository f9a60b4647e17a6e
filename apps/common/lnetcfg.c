/* SPDX-License-Identifier: BSD-3-Clause */
/* `lnetctl export` YAML to the configuration model, with located errors. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "cfs.h"
#include "lnetcfg.h"

const char *const lnetcfg_global_keys[] = {
	"numa_range",
	"max_interfaces",
	"discovery",
	"drop_asym_route",
	"retry_count",
	"transaction_timeout",
	"health_sensitivity",
	"recovery_interval",
	"router_sensitivity",
	"lnd_timeout",
	"response_tracking",
	"recovery_limit",
	"max_recovery_ping_interval",
	"lnet_selftest", /* lnetd-pmd's extension: its lnet_selftest service, 0 or 1 */
};
const unsigned int lnetcfg_nglobal_keys =
	sizeof(lnetcfg_global_keys) / sizeof(lnetcfg_global_keys[0]);
const char *const lnetcfg_rtr_pool_names[LNETCFG_RTR_POOLS] = { "tiny", "small", "large" };

#define LNETCFG_MAX_IFS 16 /* interfaces of one NI block */

/* The parse in progress: the document and where errors go. */
struct lnetcfg_doc {
	struct lnetcfg *cfg;
	yaml_document_t doc;
	/*
	 * A file libyaml failed part-way (cut): the pairs read so far;
	 * flushed when what was read last ends a netlink section (the next
	 * section's key, the end of the document), always so for a whole file.
	 */
	bool cut;
	bool flushed;
};

void
lnetcfg_init(struct lnetcfg *cfg, const char *origin, lnetcfg_report_fn report, void *arg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->origin = origin;
	cfg->report = report;
	cfg->arg = arg;
	cfg->routing = LNETCFG_UNSET;
}

void
lnetcfg_fini(struct lnetcfg *cfg)
{
	free(cfg->nis);
	free(cfg->peers);
	free(cfg->ip2nets);
	free(cfg->udsps);
	free(cfg->routes);
	cfg->nis = NULL;
	cfg->peers = NULL;
	cfg->ip2nets = NULL;
	cfg->udsps = NULL;
	cfg->routes = NULL;
	cfg->nnis = cfg->npeers = cfg->nglobals = cfg->nip2nets = cfg->nudsps = cfg->nroutes = 0;
	cfg->nports = 0;
}

void
lnetcfg_error(struct lnetcfg *cfg, const struct lnetcfg_loc *at, const char *fmt, ...)
{
	char msg[384];
	char line[512];
	va_list ap;

	cfg->nerrors++;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s:%zu:%zu: %s", cfg->origin, at != NULL ? at->line : 0,
		 at != NULL ? at->col : 0, msg);
	if (cfg->report != NULL) {
		cfg->report(cfg->arg, line);
	}
}

static struct lnetcfg_loc
lnetcfg_at(const yaml_node_t *n)
{
	struct lnetcfg_loc l = { n->start_mark.line + 1, n->start_mark.column + 1 };

	return l;
}

#define LNETCFG_ERR(d, node, ...)                          \
	do {                                               \
		struct lnetcfg_loc _l = lnetcfg_at(node);  \
		lnetcfg_error((d)->cfg, &_l, __VA_ARGS__); \
	} while (0)

/*
 * What the kernel's import says of the error about to be reported, when
 * it is the file's first: its errno and descr (lnetcfg.h, kerr).
 */
static void lnetcfg_kerr(struct lnetcfg_doc *d, int err, bool silent, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
lnetcfg_kerr(struct lnetcfg_doc *d, int err, bool silent, const char *fmt, ...)
{
	va_list ap;

	if (d->cfg->nerrors > 0) {
		return;
	}
	d->cfg->kerr = err;
	d->cfg->kerr_silent = silent;
	va_start(ap, fmt);
	vsnprintf(d->cfg->kdescr, sizeof(d->cfg->kdescr), fmt, ap);
	va_end(ap);
}

/* A key the kernel's import skips with a warning, in its words. */
static void
lnetcfg_warn_ignored(struct lnetcfg_doc *d, const char *key, const char *section)
{
	char msg[160];

	if (d->cfg->warn != NULL) {
		snprintf(msg, sizeof(msg), "Ignoring unrecognized key '%s' for '%s'", key, section);
		d->cfg->warn(d->cfg->arg, msg);
	}
}

const char *
lnetcfg_scalar(const yaml_node_t *n)
{
	return n != NULL && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

yaml_node_t *
lnetcfg_yaml_get(yaml_document_t *doc, const yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	if (map == NULL || map->type != YAML_MAPPING_NODE) {
		return NULL;
	}
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = lnetcfg_scalar(yaml_document_get_node(doc, p->key));

		if (k != NULL && strcmp(k, key) == 0) {
			return yaml_document_get_node(doc, p->value);
		}
	}
	return NULL;
}

static yaml_node_t *
lnetcfg_node(struct lnetcfg_doc *d, int id)
{
	return yaml_document_get_node(&d->doc, id);
}

static yaml_node_t *
lnetcfg_map_get(struct lnetcfg_doc *d, const yaml_node_t *map, const char *key)
{
	return lnetcfg_yaml_get(&d->doc, map, key);
}

/* An integer scalar in [lo, hi]; false after reporting. */
static bool
lnetcfg_int(struct lnetcfg_doc *d, const yaml_node_t *n, const char *what, long lo, long hi,
	    long *out)
{
	const char *v = lnetcfg_scalar(n);
	char *end = NULL;
	long x;

	errno = 0;
	/* Any base strtol reads, as the kernel's parse_long. */
	x = v != NULL ? strtol(v, &end, 0) : 0;
	if (v == NULL || *v == '\0' || *end != '\0' || errno != 0) {
		LNETCFG_ERR(d, n, "%s must be an integer", what);
		return false;
	}
	if (x < lo || x > hi) {
		LNETCFG_ERR(d, n, "%s must be between %ld and %ld", what, lo, hi);
		return false;
	}
	*out = x;
	return true;
}

static bool
lnetcfg_nid(struct lnetcfg_doc *d, const yaml_node_t *n, const yaml_node_t *parent,
	    const char *what, struct lnet_nid *nid)
{
	const char *s = lnetcfg_scalar(n);
	char why[160];

	if (s == NULL) {
		LNETCFG_ERR(d, n != NULL ? n : parent, "%s: missing or not a NID", what);
		return false;
	}
	if (libcfs_strnid_err(nid, s, why, sizeof(why)) != 0 || lnet_nid_is_any(nid)) {
		LNETCFG_ERR(d, n, "%s: %s", what, lnet_nid_is_any(nid) ? "not a NID" : why);
		return false;
	}
	return true;
}

/*
 * yaml_lnet_extract_long's words (2.17 lnetctl.c) for a value the kernel's
 * import reads as a number: none, or not one parse_long takes.
 */
static void
lnetcfg_kerr_long(struct lnetcfg_doc *d, const yaml_node_t *n, const char *key)
{
	const char *v = lnetcfg_scalar(n);
	char *end = NULL;

	if (v == NULL) {
		return;
	}
	if (*v == '\0') {
		lnetcfg_kerr(d, -EINVAL, false, "no value specified for key '%s'", key);
		return;
	}
	(void)strtol(v, &end, 0);
	if (*end != '\0') {
		lnetcfg_kerr(d, -EINVAL, false, "invalid value '%s' for key '%s'", v, key);
	}
}

/* A peer NID lnet_peer_ni_cmd() cannot read (libcfs_strnid: -EINVAL), in its words. */
static void
lnetcfg_kerr_nid(struct lnetcfg_doc *d, const yaml_node_t *n, const char *what)
{
	const char *s = lnetcfg_scalar(n);
	struct lnet_nid nid;

	if (s != NULL && libcfs_strnid(&nid, s) != 0) {
		lnetcfg_kerr(d, -EINVAL, false, "%s", what);
	}
}

void
lnetcfg_ni_init(struct lnetcfg_ni *ni, uint32_t net)
{
	memset(ni, 0, sizeof(*ni));
	ni->net = net;
	ni->peer_timeout = ni->peer_credits = ni->peer_buffer_credits = ni->credits = LNETCFG_UNSET;
	ni->conns_per_peer = ni->lnd_timeout = ni->tos = ni->cpt = LNETCFG_UNSET;
}

/* Mapping @p m of integer settings named in @p keys into @p vals. */
static void
lnetcfg_ints(struct lnetcfg_doc *d, const yaml_node_t *m, const char *section,
	     const char *const *keys, int *const *vals, unsigned int n, const long *lo,
	     const long *hi)
{
	yaml_node_pair_t *p;

	if (m->type != YAML_MAPPING_NODE) {
		LNETCFG_ERR(d, m, "%s: expected a mapping", section);
		return;
	}
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = lnetcfg_node(d, p->key);
		const char *k = lnetcfg_scalar(kn);
		unsigned int i;
		long x;

		for (i = 0; k != NULL && i < n && strcmp(keys[i], k) != 0; i++) {
		}
		if (k == NULL) {
			LNETCFG_ERR(d, kn, "%s: keys must be scalars", section);
		} else if (i == n) {
			lnetcfg_warn_ignored(d, k, section);
		} else if (lnetcfg_int(d, lnetcfg_node(d, p->value), k, lo[i], hi[i], &x)) {
			*vals[i] = (int)x;
		}
	}
}

static void
lnetcfg_tunables(struct lnetcfg_doc *d, const yaml_node_t *m, struct lnetcfg_ni *ni)
{
	static const char *const keys[] = {
		"peer_timeout",
		"peer_credits",
		"peer_buffer_credits",
		"credits",
	};
	static const long lo[] = { 0, 0, 0, 0 };
	static const long hi[] = { 1000000, 1000000, 1000000, 1000000 };
	int *const vals[] = {
		&ni->peer_timeout,
		&ni->peer_credits,
		&ni->peer_buffer_credits,
		&ni->credits,
	};

	lnetcfg_ints(d, m, "tunables", keys, vals, 4, lo, hi);
}

static void
lnetcfg_lnd_tunables(struct lnetcfg_doc *d, const yaml_node_t *m, struct lnetcfg_ni *ni)
{
	static const char *const keys[] = { "conns_per_peer", "timeout", "tos" };
	static const long lo[] = { 0, 0, -1 };
	static const long hi[] = { 127, 1000000, 255 };
	int *const vals[] = { &ni->conns_per_peer, &ni->lnd_timeout, &ni->tos };

	lnetcfg_ints(d, m, "lnd tunables", keys, vals, 3, lo, hi);
}

/* The names of an interface list {0: eth0, 1: eth1}, the kernel's one NI per interface. */
struct lnetcfg_ifs {
	unsigned int n;
	char names[LNETCFG_MAX_IFS][LNETCFG_IFNAMSIZ];
};

static void
lnetcfg_interfaces(struct lnetcfg_doc *d, const yaml_node_t *m, struct lnetcfg_ifs *ifs)
{
	yaml_node_pair_t *p;

	if (m->type != YAML_MAPPING_NODE ||
	    m->data.mapping.pairs.top == m->data.mapping.pairs.start) {
		LNETCFG_ERR(d, m, "interfaces: expected a mapping such as \"0: eth0\"");
		return;
	}
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *vn = lnetcfg_node(d, p->value);
		const char *name = lnetcfg_scalar(vn);

		if (name == NULL || name[0] == '\0' || strlen(name) >= LNETCFG_IFNAMSIZ) {
			LNETCFG_ERR(d, vn, "interfaces: bad interface name");
		} else if (ifs->n == LNETCFG_MAX_IFS) {
			LNETCFG_ERR(d, vn, "interfaces: more than %d in one NI", LNETCFG_MAX_IFS);
			return;
		} else {
			snprintf(ifs->names[ifs->n++], LNETCFG_IFNAMSIZ, "%s", name);
		}
	}
}

/* CPT: "[0,1]": the NI is served by the first listed CPT. */
static void
lnetcfg_cpt(struct lnetcfg_doc *d, const yaml_node_t *n, struct lnetcfg_ni *ni)
{
	const char *s = lnetcfg_scalar(n);
	char *end = NULL;
	long x;

	if (s == NULL || s[0] != '[') {
		LNETCFG_ERR(d, n, "CPT: expected a list such as \"[0,1]\"");
		return;
	}
	errno = 0;
	x = strtol(s + 1, &end, 10);
	if (end == s + 1 || errno != 0 || x < 0 || x > 1023 || (*end != ',' && *end != ']') ||
	    s[strlen(s) - 1] != ']') {
		LNETCFG_ERR(d, n, "CPT: expected a list such as \"[0,1]\"");
		return;
	}
	ni->cpt = (int)x;
}

/* One more element of a growing array: doubles from @p first; NULL when out of memory. */
static void *
lnetcfg_grow(void *arr_p, unsigned int *n, unsigned int *cap, size_t elem, unsigned int first)
{
	void **arr = arr_p;

	if (*n == *cap) {
		unsigned int ncap = *cap == 0 ? first : *cap * 2;
		void *p = realloc(*arr, (size_t)ncap * elem);

		if (p == NULL) {
			return NULL;
		}
		*arr = p;
		*cap = ncap;
	}
	return (char *)*arr + (size_t)(*n)++ * elem;
}

/* One NI of @p ni per interface of @p ifs, or @p ni itself when it has a NID and no interface. */
static void
lnetcfg_add_nis(struct lnetcfg_doc *d, const yaml_node_t *at, const struct lnetcfg_ni *ni,
		const struct lnetcfg_ifs *ifs)
{
	unsigned int i;

	if (!ni->has_nid && ifs->n == 0) {
		LNETCFG_ERR(d, at, "local NI(s): each NI needs \"interfaces\" or a \"nid\"");
		return;
	}
	if (ni->has_nid && ifs->n > 1) {
		LNETCFG_ERR(d, at, "nid: one NID names one interface, not %u", ifs->n);
		return;
	}
	for (i = 0; i < (ifs->n > 0 ? ifs->n : 1); i++) {
		struct lnetcfg_ni *slot = lnetcfg_grow(&d->cfg->nis, &d->cfg->nnis,
						       &d->cfg->nis_cap, sizeof(*slot), 8);

		if (slot == NULL) {
			LNETCFG_ERR(d, at, "out of memory");
			return;
		}
		*slot = *ni;
		if (ifs->n > 0) {
			snprintf(slot->ifname, sizeof(slot->ifname), "%s", ifs->names[i]);
		}
	}
}

/*
 * Keys of an NI block both forms share: interfaces, tunables, CPT. The
 * others (nid apart) describe the running NI in an export (status,
 * statistics...): the kernel's import skips them, so does this one.
 */
static void
lnetcfg_ni_key(struct lnetcfg_doc *d, const char *k, const yaml_node_t *vn, struct lnetcfg_ni *ni,
	       struct lnetcfg_ifs *ifs)
{
	if (strcmp(k, "interfaces") == 0) {
		lnetcfg_interfaces(d, vn, ifs);
	} else if (strcmp(k, "tunables") == 0) {
		lnetcfg_tunables(d, vn, ni);
	} else if (strcmp(k, "lnd tunables") == 0) {
		lnetcfg_lnd_tunables(d, vn, ni);
	} else if (strcmp(k, "CPT") == 0) {
		lnetcfg_cpt(d, vn, ni);
	}
}

static void
lnetcfg_local_ni(struct lnetcfg_doc *d, const yaml_node_t *item, const struct lnetcfg_ni *base)
{
	struct lnetcfg_ni ni = *base;
	struct lnetcfg_ifs ifs = { 0 };
	yaml_node_pair_t *p;

	ni.at = lnetcfg_at(item);
	if (item->type != YAML_MAPPING_NODE) {
		LNETCFG_ERR(d, item, "local NI(s): each item must be a mapping");
		return;
	}
	for (p = item->data.mapping.pairs.start; p < item->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = lnetcfg_node(d, p->key);
		const yaml_node_t *vn = lnetcfg_node(d, p->value);
		const char *k = lnetcfg_scalar(kn);

		if (k == NULL) {
			LNETCFG_ERR(d, kn, "local NI(s): keys must be scalars");
		} else if (strcmp(k, "nid") == 0) {
			ni.has_nid = lnetcfg_nid(d, vn, item, "nid", &ni.nid);
			if (ni.has_nid && lnet_nid_net(&ni.nid) != ni.net) {
				LNETCFG_ERR(d, vn, "nid: not on the item's net type");
				ni.has_nid = false;
			}
		} else {
			lnetcfg_ni_key(d, k, vn, &ni, &ifs);
		}
	}
	lnetcfg_add_nis(d, item, &ni, &ifs);
}

/* A net type / net-spec value: the net, or LNET_NET_ANY after reporting. */
static uint32_t
lnetcfg_net_id(struct lnetcfg_doc *d, const yaml_node_t *item, const char *key)
{
	const yaml_node_t *type = lnetcfg_map_get(d, item, key);
	const char *name = lnetcfg_scalar(type);
	uint32_t net;

	if (name == NULL) {
		LNETCFG_ERR(d, type != NULL ? type : item, "missing \"%s\"", key);
		return LNET_NET_ANY;
	}
	net = libcfs_str2net(name);
	if (net == LNET_NET_ANY) {
		LNETCFG_ERR(d, type, "%s \"%s\": not a network", key, name);
	}
	return net;
}

/*
 * net: items, in both forms the kernel's import reads: the export's
 * ("local NI(s)": a list of NIs) and the flat one (interfaces, tunables
 * and CPT beside "net type"). Net-level settings apply to every NI of the
 * item; each interface of an "interfaces" list is one NI.
 */
static void
lnetcfg_net(struct lnetcfg_doc *d, const yaml_node_t *item)
{
	const yaml_node_t *list = lnetcfg_map_get(d, item, "local NI(s)");
	struct lnetcfg_ifs ifs = { 0 };
	struct lnetcfg_ni base;
	yaml_node_pair_t *p;
	yaml_node_item_t *it;
	uint32_t net;

	if (item->type != YAML_MAPPING_NODE) {
		LNETCFG_ERR(d, item, "net: each item must be a mapping");
		return;
	}
	net = lnetcfg_net_id(d, item, "net type");
	if (net == LNET_NET_ANY || LNET_NETTYP(net) == LNET_LND_LO) {
		return; /* 0@lo is always there, with fixed settings */
	}
	lnetcfg_ni_init(&base, net);
	base.at = lnetcfg_at(item);
	for (p = item->data.mapping.pairs.start; p < item->data.mapping.pairs.top; p++) {
		const char *k = lnetcfg_scalar(lnetcfg_node(d, p->key));

		if (k != NULL) {
			lnetcfg_ni_key(d, k, lnetcfg_node(d, p->value), &base, &ifs);
		}
	}
	if (ifs.n > 0) {
		lnetcfg_add_nis(d, item, &base, &ifs);
	}
	if (list == NULL) {
		if (ifs.n == 0) {
			LNETCFG_ERR(d, item, "net: needs \"local NI(s)\" or \"interfaces\"");
		}
		return;
	}
	if (list->type != YAML_SEQUENCE_NODE) {
		LNETCFG_ERR(d, list, "net: \"local NI(s)\" must be a list");
		return;
	}
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		lnetcfg_local_ni(d, lnetcfg_node(d, *it), &base);
	}
}

/*
 * One word of a rule: no blank, separator or comment, and commas only in
 * an interface's CPT list ("eth0[0,1]") or a range's brackets.
 */
static bool
lnetcfg_rule_word(const char *v)
{
	int depth = 0;

	for (; *v != '\0'; v++) {
		if (strchr(" \t;#()", *v) != NULL || (*v == ',' && depth == 0)) {
			return false;
		}
		depth += *v == '[' ? 1 : *v == ']' ? -1 : 0;
	}
	return depth == 0;
}

/* "ip-range: {0: 192.168.1.*}" appended to a rule as " 192.168.1.*"; false after reporting. */
static bool
lnetcfg_rule_add(struct lnetcfg_doc *d, const yaml_node_t *m, const char *what, char *rule,
		 size_t len, const char *sep)
{
	yaml_node_pair_t *p;
	size_t off = strlen(rule);

	if (m->type != YAML_MAPPING_NODE ||
	    m->data.mapping.pairs.top == m->data.mapping.pairs.start) {
		LNETCFG_ERR(d, m, "%s: expected a mapping such as \"0: ...\"", what);
		return false;
	}
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *vn = lnetcfg_node(d, p->value);
		const char *v = lnetcfg_scalar(vn);

		if (v == NULL || v[0] == '\0' || !lnetcfg_rule_word(v) ||
		    off + strlen(v) + 2 >= len) {
			LNETCFG_ERR(d, vn, "%s: bad value", what);
			return false;
		}
		off += (size_t)snprintf(rule + off, len - off, "%s%s",
					p == m->data.mapping.pairs.start ? "" : sep, v);
	}
	return true;
}

/*
 * ip2nets: items (net-spec, interfaces, ip-range, tunables, CPT) become
 * cfs_ip2nets rules, checked now and matched against the node's
 * interfaces by lnetcfg_ip2nets_resolve().
 */
static void
lnetcfg_ip2net_item(struct lnetcfg_doc *d, const yaml_node_t *item)
{
	const yaml_node_t *ifs = lnetcfg_map_get(d, item, "interfaces");
	const yaml_node_t *range = lnetcfg_map_get(d, item, "ip-range");
	struct lnetcfg_ifs unused = { 0 };
	struct lnetcfg_ip2net r;
	struct lnetcfg_ip2net *slot;
	struct cfs_ip2nets *parsed = NULL;
	yaml_node_pair_t *p;
	char why[256];
	uint32_t net;

	if (item->type != YAML_MAPPING_NODE) {
		LNETCFG_ERR(d, item, "ip2nets: each item must be a mapping");
		return;
	}
	if (lnetcfg_map_get(d, item, "local NI(s)") != NULL) {
		LNETCFG_ERR(d, item, "ip2nets: \"local NI(s)\" is not valid here");
		return;
	}
	net = lnetcfg_net_id(d, item, "net-spec");
	if (net == LNET_NET_ANY) {
		return;
	}
	memset(&r, 0, sizeof(r));
	lnetcfg_ni_init(&r.base, net);
	r.base.at = lnetcfg_at(item);
	for (p = item->data.mapping.pairs.start; p < item->data.mapping.pairs.top; p++) {
		const char *k = lnetcfg_scalar(lnetcfg_node(d, p->key));

		if (k != NULL && strcmp(k, "interfaces") != 0) {
			lnetcfg_ni_key(d, k, lnetcfg_node(d, p->value), &r.base, &unused);
		}
	}
	libcfs_net2str_r(net, r.rule, sizeof(r.rule));
	if (ifs != NULL) {
		strcat(r.rule, "(");
		if (!lnetcfg_rule_add(d, ifs, "interfaces", r.rule, sizeof(r.rule) - 1, ",")) {
			return;
		}
		strcat(r.rule, ")");
	}
	strcat(r.rule, " ");
	if (range == NULL) {
		strcat(r.rule, "*.*.*.*"); /* the named interfaces, whatever their address */
	} else if (!lnetcfg_rule_add(d, range, "ip-range", r.rule, sizeof(r.rule), " ")) {
		return;
	}
	if (cfs_ip2nets_parse(r.rule, &parsed, why, sizeof(why)) < 0) {
		LNETCFG_ERR(d, item, "ip2nets: %s", why);
		return;
	}
	cfs_ip2nets_free(parsed);
	slot = lnetcfg_grow(&d->cfg->ip2nets, &d->cfg->nip2nets, &d->cfg->ip2nets_cap,
			    sizeof(*slot), 4);
	if (slot == NULL) {
		LNETCFG_ERR(d, item, "out of memory");
		return;
	}
	*slot = r;
}

static bool
lnetcfg_net_configured(const struct lnetcfg *cfg, unsigned int from, uint32_t net)
{
	unsigned int i;

	for (i = from; i < cfg->nnis; i++) {
		if (cfg->nis[i].net == net) {
			return true;
		}
	}
	return false;
}

/* One ip2nets item's matches as NIs; the number added, or -errno after reporting. */
static int
lnetcfg_ip2net_apply(struct lnetcfg *cfg, const struct lnetcfg_ip2net *r,
		     const struct cfs_ifaddr *ifs, unsigned int nifs)
{
	struct cfs_ip2nets_match m[LNETCFG_MAX_IFS];
	struct cfs_ip2nets *rules = NULL;
	char why[256] = "";
	int n = cfs_ip2nets_parse(r->rule, &rules, why, sizeof(why));
	int i;

	if (n >= 0) {
		n = cfs_ip2nets_match(rules, ifs, nifs, m, LNETCFG_MAX_IFS, why, sizeof(why));
	}
	cfs_ip2nets_free(rules);
	if (n < 0) {
		lnetcfg_error(cfg, &r->base.at, "ip2nets: %s", why);
		return n;
	}
	for (i = 0; i < n; i++) {
		struct lnetcfg_ni *slot =
			lnetcfg_grow(&cfg->nis, &cfg->nnis, &cfg->nis_cap, sizeof(*slot), 8);

		if (slot == NULL) {
			lnetcfg_error(cfg, &r->base.at, "out of memory");
			return -ENOMEM;
		}
		*slot = r->base;
		snprintf(slot->ifname, sizeof(slot->ifname), "%s", m[i].ifname);
		if (slot->cpt == LNETCFG_UNSET && m[i].cpts[0] == '[') {
			/* "eth0[1,2]": its first CPT */
			slot->cpt = (int)strtol(m[i].cpts + 1, NULL, 10);
		}
	}
	return n;
}

int
lnetcfg_ip2nets_resolve(struct lnetcfg *cfg, const struct cfs_ifaddr *ifs, unsigned int nifs)
{
	unsigned int first = cfg->nnis;
	unsigned int i;
	int added = 0;

	for (i = 0; i < cfg->nip2nets; i++) {
		int n;

		if (lnetcfg_net_configured(cfg, first, cfg->ip2nets[i].base.net)) {
			continue; /* a later rule for a net already configured is skipped */
		}
		n = lnetcfg_ip2net_apply(cfg, &cfg->ip2nets[i], ifs, nifs);
		if (n < 0) {
			return -EINVAL;
		}
		added += n;
	}
	if (cfg->nip2nets > 0 && added == 0) {
		lnetcfg_error(cfg, &cfg->ip2nets[0].base.at,
			      "ip2nets: no rule matches an interface of this node");
		return -EINVAL;
	}
	return 0;
}

void
lnetcfg_ip2nets_resolve_here(struct lnetcfg *cfg)
{
	struct cfs_ifaddr *ifs = NULL;
	unsigned int nifs = 0;
	int rc;

	if (cfg->nip2nets == 0) {
		return;
	}
	rc = cfs_ifaddrs_get(&ifs, &nifs);
	if (rc != 0) {
		lnetcfg_error(cfg, &cfg->ip2nets[0].base.at, "ip2nets: cannot list interfaces: %s",
			      strerror(-rc));
		return;
	}
	lnetcfg_ip2nets_resolve(cfg, ifs, nifs);
	free(ifs);
}

static void
lnetcfg_peer_nis(struct lnetcfg_doc *d, const yaml_node_t *list, struct lnetcfg_peer *p)
{
	yaml_node_item_t *it;

	if (list->type != YAML_SEQUENCE_NODE) {
		lnetcfg_kerr(d, -EINVAL, false, "invalid NIDs list");
		LNETCFG_ERR(d, list, "peer: \"peer ni\" must be a list");
		return;
	}
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		const yaml_node_t *e = lnetcfg_node(d, *it);
		const yaml_node_t *nn = lnetcfg_map_get(d, e, "nid");
		struct lnet_nid nid;

		lnetcfg_kerr_nid(d, nn, "unsupported secondary NID");
		if (!lnetcfg_nid(d, nn != NULL ? nn : e, e, "peer ni", &nid)) {
			continue;
		}
		if (lnet_nid_same(&nid, &p->prim)) {
			p->lists_prim = true;
			continue;
		}
		if (p->nnis == LNETCFG_PEER_NIS) {
			LNETCFG_ERR(d, e, "peer: more than %d NIDs", LNETCFG_PEER_NIS);
			return;
		}
		p->nis[p->nnis++] = nid;
		if (!p->lists_prim) {
			p->nis_before_prim = p->nnis;
		}
	}
}

/*
 * 2.17's lnet_peer_ni_cmd reads an item's keys in order: "peer ni" before
 * any "primary nid", or an item with neither, ends its loop with the
 * status it has, 0 ("missing required primary NID", "missing primary
 * NID"): the rest of the list is not read and the section succeeds. Only
 * import reads peer: that way; for the others it is the located error.
 */
static bool
lnetcfg_peer_cut(struct lnetcfg_doc *d, const yaml_node_t *item)
{
	yaml_node_pair_t *p;

	if (d->cfg->section == NULL) {
		return false;
	}
	for (p = item->data.mapping.pairs.start; p < item->data.mapping.pairs.top; p++) {
		const char *k = lnetcfg_scalar(lnetcfg_node(d, p->key));

		if (k != NULL && strcmp(k, "primary nid") == 0) {
			return false;
		}
		if (k != NULL && strcmp(k, "peer ni") == 0) {
			return true;
		}
	}
	return true;
}

static void
lnetcfg_peer(struct lnetcfg_doc *d, const yaml_node_t *item)
{
	struct lnetcfg_peer *p;
	const yaml_node_t *mn;
	const yaml_node_t *list;
	const char *mr;

	if (item->type != YAML_MAPPING_NODE) {
		LNETCFG_ERR(d, item, "peer: each item must be a mapping");
		return;
	}
	p = lnetcfg_grow(&d->cfg->peers, &d->cfg->npeers, &d->cfg->peers_cap, sizeof(*p), 64);
	if (p == NULL) {
		LNETCFG_ERR(d, item, "out of memory");
		return;
	}
	memset(p, 0, sizeof(*p));
	p->at = lnetcfg_at(item);
	if (lnetcfg_peer_cut(d, item)) {
		d->cfg->npeers--;
		d->cfg->cut = true;
		return;
	}
	lnetcfg_kerr_nid(d, lnetcfg_map_get(d, item, "primary nid"), "unsupported primary NID");
	if (!lnetcfg_nid(d, lnetcfg_map_get(d, item, "primary nid"), item, "peer: primary nid",
			 &p->prim)) {
		d->cfg->npeers--;
		return;
	}
	mn = lnetcfg_map_get(d, item, "Multi-Rail");
	mr = lnetcfg_scalar(mn);
	p->mr = mr == NULL || strcasecmp(mr, "true") == 0;
	if (mr != NULL && !p->mr && strcasecmp(mr, "false") != 0) {
		lnetcfg_kerr(d, -EINVAL, false, "invalid MR flag param");
		LNETCFG_ERR(d, mn, "peer: Multi-Rail must be True or False");
	}
	list = lnetcfg_map_get(d, item, "peer ni");
	if (list != NULL) {
		p->has_ni_list = true;
		lnetcfg_peer_nis(d, list, p);
	}
}

bool
lnetcfg_udsp_descr_ok(const char *descr)
{
	struct cfs_nid_parts d;

	if (strpbrk(descr, " \t\r\n") != NULL || cfs_nid_parts_parse(descr, &d) != 0) {
		return false;
	}
	cfs_nid_parts_fini(&d);
	return true;
}

/* src/dst/rte of a udsp item: a descriptor that parses; false after reporting. */
static bool
lnetcfg_udsp_descr(struct lnetcfg_doc *d, const yaml_node_t *vn, const char *key, char *out)
{
	const char *v = lnetcfg_scalar(vn);

	if (v == NULL) {
		LNETCFG_ERR(d, vn, "udsp: %s must be a NID or network descriptor", key);
		return false;
	}
	if (!d->cfg->udsp_del && !lnetcfg_udsp_descr_ok(v)) {
		/* the kernel's words for what its lnetctl cannot parse */
		lnetcfg_kerr(d, -EINVAL, true, "failed to parse %s parameter", key);
		LNETCFG_ERR(d, vn, "udsp: failed to parse %s parameter", key);
		return false;
	}
	snprintf(out, LNETCFG_UDSP_DESCR_LEN, "%s", v);
	return true;
}

/* "priority: N", beside the descriptors or under "action:". */
static void
lnetcfg_udsp_priority(struct lnetcfg_doc *d, const yaml_node_t *vn, struct lnetcfg_udsp *u,
		      bool *seen)
{
	long x;

	if (*seen) {
		LNETCFG_ERR(d, vn, "udsp: priority given twice");
		return;
	}
	*seen = true;
	lnetcfg_kerr_long(d, vn, "priority");
	if (lnetcfg_int(d, vn, "udsp: priority", 0, INT_MAX, &x)) {
		u->priority = x;
	}
}

static void
lnetcfg_udsp_action(struct lnetcfg_doc *d, const yaml_node_t *m, struct lnetcfg_udsp *u, bool *seen)
{
	yaml_node_pair_t *p;

	if (m->type != YAML_MAPPING_NODE) {
		LNETCFG_ERR(d, m, "udsp: action must be a mapping such as \"priority: 0\"");
		return;
	}
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = lnetcfg_node(d, p->key);
		const char *k = lnetcfg_scalar(kn);

		if (k == NULL) {
			LNETCFG_ERR(d, kn, "udsp: keys must be scalars");
		} else if (strcmp(k, "priority") == 0) {
			lnetcfg_udsp_priority(d, lnetcfg_node(d, p->value), u, seen);
		} else {
			lnetcfg_warn_ignored(d, k, "action");
		}
	}
}

/* The kernel library's checks of which descriptors a rule has, in its order and words. */
static bool
lnetcfg_udsp_combination(struct lnetcfg_doc *d, const yaml_node_t *item,
			 const struct lnetcfg_udsp *u)
{
	const char *why =
		cfs_udsp_shape_error(u->src[0] != '\0', u->dst[0] != '\0', u->rte[0] != '\0');

	if (why != NULL) {
		lnetcfg_kerr(d, -EINVAL, true, "%s", why);
		LNETCFG_ERR(d, item, "udsp: %s", why);
		return false;
	}
	return true;
}

/*
 * One udsp: item. What the kernel's lnetctl refuses before asking the
 * node (no descriptor, src with rte) is refused here, in its words, so
 * that a file the node would refuse changes nothing.
 */
static void
lnetcfg_udsp(struct lnetcfg_doc *d, const yaml_node_t *item)
{
	struct lnetcfg_udsp u;
	struct lnetcfg_udsp *slot;
	yaml_node_pair_t *p;
	unsigned int errors = d->cfg->nerrors;
	bool prio_seen = false;

	if (item->type != YAML_MAPPING_NODE) {
		LNETCFG_ERR(d, item, "udsp: each item must be a mapping");
		return;
	}
	memset(&u, 0, sizeof(u));
	u.idx = -1;
	u.priority = -1;
	u.at = lnetcfg_at(item);
	for (p = item->data.mapping.pairs.start; p < item->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = lnetcfg_node(d, p->key);
		const yaml_node_t *vn = lnetcfg_node(d, p->value);
		const char *k = lnetcfg_scalar(kn);

		if (k == NULL) {
			LNETCFG_ERR(d, kn, "udsp: keys must be scalars");
		} else if (strcmp(k, "idx") == 0) {
			lnetcfg_kerr_long(d, vn, k);
			lnetcfg_int(d, vn, "udsp: idx", 0, INT_MAX, &u.idx);
		} else if (strcmp(k, "src") == 0) {
			lnetcfg_udsp_descr(d, vn, k, u.src);
		} else if (strcmp(k, "dst") == 0) {
			lnetcfg_udsp_descr(d, vn, k, u.dst);
		} else if (strcmp(k, "rte") == 0) {
			lnetcfg_udsp_descr(d, vn, k, u.rte);
		} else if (strcmp(k, "priority") == 0) {
			lnetcfg_udsp_priority(d, vn, &u, &prio_seen);
		} else if (strcmp(k, "action") == 0) {
			lnetcfg_udsp_action(d, vn, &u, &prio_seen);
		} else {
			lnetcfg_warn_ignored(d, k, "udsp");
		}
	}
	if (d->cfg->nerrors != errors) {
		return;
	}
	if (!d->cfg->udsp_del && !lnetcfg_udsp_combination(d, item, &u)) {
		return;
	}
	slot = lnetcfg_grow(&d->cfg->udsps, &d->cfg->nudsps, &d->cfg->udsps_cap, sizeof(*slot), 8);
	if (slot == NULL) {
		LNETCFG_ERR(d, item, "out of memory");
		return;
	}
	*slot = u;
}

/* An integer scalar, strtol in any base as the kernel's parse_long; false when it is none. */
static bool
lnetcfg_long(const yaml_node_t *n, long *out)
{
	const char *v = lnetcfg_scalar(n);
	char *end = NULL;

	if (v == NULL || *v == '\0') {
		return false;
	}
	errno = 0;
	*out = strtol(v, &end, 0);
	return *end == '\0' && errno == 0;
}

/* route: net. What the kernel refuses before it looks at its routes, in its words. */
static void
lnetcfg_route_net(struct lnetcfg_doc *d, const yaml_node_t *vn, struct lnetcfg_route *r)
{
	const char *v = lnetcfg_scalar(vn);

	if (v == NULL) {
		lnetcfg_kerr(d, -EINVAL, false, "net is invalid key");
		LNETCFG_ERR(d, vn, "route: net is invalid key");
		return;
	}
	r->net = libcfs_str2net(v);
	if (r->net != LNET_NET_ANY && LNET_NETTYP(r->net) == LNET_LND_LO) {
		lnetcfg_kerr(d, -EACCES, false, "setting @lo not allowed");
		LNETCFG_ERR(d, vn, "route: setting @lo not allowed");
	} else if (r->net == LNET_NET_ANY) {
		/* an unparsable net reads as ANY, which the kernel names so */
		lnetcfg_kerr(d, -ENXIO, false, "setting LNET_NET_ANY not allowed");
		LNETCFG_ERR(d, vn, "route: setting LNET_NET_ANY not allowed");
	}
}

static void
lnetcfg_route_gateway(struct lnetcfg_doc *d, const yaml_node_t *vn, struct lnetcfg_route *r)
{
	const char *v = lnetcfg_scalar(vn);

	if (v == NULL) {
		lnetcfg_kerr(d, -EINVAL, false, "gateway is invalid key");
		LNETCFG_ERR(d, vn, "route: gateway is invalid key");
	} else if (libcfs_strnid(&r->gateway, v) != 0) {
		r->gateway = LNET_ANY_NID;
		lnetcfg_kerr(d, -ENODEV, false, "cannot parse gateway");
		LNETCFG_ERR(d, vn, "route: cannot parse gateway");
	}
}

/* hop and priority: -1 for hop is "none"; the kernel's bounds and words. */
static void
lnetcfg_route_number(struct lnetcfg_doc *d, const char *k, const yaml_node_t *vn,
		     struct lnetcfg_route *r)
{
	long x;

	if (!lnetcfg_long(vn, &x) && strcmp(k, "health_sensitivity") == 0) {
		return;
	}
	if (!lnetcfg_long(vn, &x)) {
		lnetcfg_kerr(d, -EINVAL, false, "%s has invalid key", k);
		LNETCFG_ERR(d, vn, "route: %s has invalid key", k);
	} else if (strcmp(k, "hop") == 0) {
		if ((x < 1 || x > 255) && x != -1) {
			lnetcfg_kerr(d, -EINVAL, false,
				     "invalid hop count must be between 1 and 255");
			LNETCFG_ERR(d, vn, "route: invalid hop count must be between 1 and 255");
		}
		r->hops = x;
	} else if (strcmp(k, "priority") == 0) {
		if (x < 0) {
			lnetcfg_kerr(d, -EINVAL, false, "invalid priority, must not be negative");
			LNETCFG_ERR(d, vn, "route: invalid priority, must not be negative");
		}
		/* 2.17's lnet_route_cmd keeps the low 32 bits (its u32 priority) */
		r->priority = (long)(uint32_t)x;
	} else if (x >= 0 && x <= INT32_MAX) {
		/* 2.17's route command does not read it: a bad one is no error either */
		r->health_sensitivity = x;
	}
}

/* One route: key; what the kernel's route command does not read is passed over, as it does. */
static void
lnetcfg_route_key(struct lnetcfg_doc *d, const char *k, const yaml_node_t *vn,
		  struct lnetcfg_route *r)
{
	const char *v = lnetcfg_scalar(vn);

	if (strcmp(k, "net") == 0) {
		lnetcfg_route_net(d, vn, r);
	} else if (strcmp(k, "gateway") == 0) {
		lnetcfg_route_gateway(d, vn, r);
	} else if (strcmp(k, "hop") == 0 || strcmp(k, "priority") == 0 ||
		   strcmp(k, "health_sensitivity") == 0) {
		lnetcfg_route_number(d, k, vn, r);
	} else if (strcmp(k, "state") == 0 && v == NULL) {
		lnetcfg_kerr(d, -EINVAL, false, "state is invalid key");
		LNETCFG_ERR(d, vn, "route: state is invalid key");
	} else if (strcmp(k, "state") == 0 && strcmp(v, "up") != 0 && strcmp(v, "down") != 0) {
		lnetcfg_kerr(d, -EINVAL, false, "status string bad value");
		LNETCFG_ERR(d, vn, "route: status string bad value");
	}
}

/*
 * One route: item: net and gateway are needed (the kernel's "missing
 * mandatory parameter"); whether this node takes the route (a local net,
 * a gateway it cannot reach) is the applier's check.
 */
static void
lnetcfg_route(struct lnetcfg_doc *d, const yaml_node_t *item)
{
	struct lnetcfg_route r = { .net = LNET_NET_ANY, .gateway = LNET_ANY_NID, .hops = -1 };
	struct lnetcfg_route *slot;
	unsigned int errors = d->cfg->nerrors;
	yaml_node_pair_t *p;

	if (item->type != YAML_MAPPING_NODE) {
		LNETCFG_ERR(d, item, "route: each item must be a mapping");
		return;
	}
	r.at = lnetcfg_at(item);
	for (p = item->data.mapping.pairs.start; p < item->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = lnetcfg_node(d, p->key);
		const char *k = lnetcfg_scalar(kn);

		if (k == NULL) {
			LNETCFG_ERR(d, kn, "route: keys must be scalars");
		} else {
			lnetcfg_route_key(d, k, lnetcfg_node(d, p->value), &r);
		}
	}
	if (d->cfg->nerrors != errors) {
		return;
	}
	if (r.net == LNET_NET_ANY || lnet_nid_is_any(&r.gateway)) {
		lnetcfg_kerr(d, -ENODEV, false, "missing mandatory parameter: %s",
			     r.net == LNET_NET_ANY ? "network" : "gateway");
		LNETCFG_ERR(d, item, "route: missing mandatory parameter: %s",
			    r.net == LNET_NET_ANY ? "network" : "gateway");
		return;
	}
	slot = lnetcfg_grow(&d->cfg->routes, &d->cfg->nroutes, &d->cfg->routes_cap, sizeof(*slot),
			    8);
	if (slot == NULL) {
		LNETCFG_ERR(d, item, "out of memory");
		return;
	}
	*slot = r;
}

/*
 * "enable: N" of routing:. The kernel's states: 1 (enabled) and 3 (still
 * starting, which an export taken in the first minutes shows) ask for
 * routing; 0 and 2 (stopping) for none.
 */
static void
lnetcfg_routing_enable(struct lnetcfg_doc *d, const yaml_node_t *vn)
{
	long x;

	if (!lnetcfg_long(vn, &x) || x < 0 || x > 3) {
		LNETCFG_ERR(d, vn, "routing: enable must be 0, 1, 2 or 3");
		return;
	}
	d->cfg->routing = x == 1 || x == 3;
}

/* routing: --backup's mapping, or show's sequence (cpt[N] items, then "enable"). */
static void
lnetcfg_routing(struct lnetcfg_doc *d, const yaml_node_t *r)
{
	const yaml_node_t *vn = NULL;
	yaml_node_item_t *it;

	d->cfg->routing_at = lnetcfg_at(r);
	d->cfg->routing = 0; /* no "enable" is no routing, as the kernel reads it */
	if (r->type == YAML_MAPPING_NODE) {
		vn = lnetcfg_map_get(d, r, "enable");
	} else if (r->type == YAML_SEQUENCE_NODE) {
		for (it = r->data.sequence.items.start; it < r->data.sequence.items.top; it++) {
			const yaml_node_t *e = lnetcfg_map_get(d, lnetcfg_node(d, *it), "enable");

			vn = e != NULL ? e : vn;
		}
	} else {
		LNETCFG_ERR(d, r, "routing: expected a mapping such as \"enable: 1\"");
		return;
	}
	if (vn != NULL) {
		lnetcfg_routing_enable(d, vn);
	}
}

/* buffers: tiny, small, large; one left out goes back to its default (0). */
static void
lnetcfg_buffers(struct lnetcfg_doc *d, const yaml_node_t *b)
{
	yaml_node_pair_t *p;

	if (b->type != YAML_MAPPING_NODE) {
		LNETCFG_ERR(d, b, "buffers: expected a mapping such as \"tiny: 2048\"");
		return;
	}
	d->cfg->has_buffers = true;
	d->cfg->buffers_at = lnetcfg_at(b);
	memset(d->cfg->buffers, 0, sizeof(d->cfg->buffers));
	for (p = b->data.mapping.pairs.start; p < b->data.mapping.pairs.top; p++) {
		const yaml_node_t *vn = lnetcfg_node(d, p->value);
		const char *k = lnetcfg_scalar(lnetcfg_node(d, p->key));
		unsigned int i;
		long x;

		for (i = 0; k != NULL && i < LNETCFG_RTR_POOLS &&
			    strcmp(k, lnetcfg_rtr_pool_names[i]) != 0;
		     i++) {
		}
		if (k == NULL || i == LNETCFG_RTR_POOLS) {
			continue; /* the kernel's buffers command reads these three only */
		}
		if (!lnetcfg_long(vn, &x)) {
			LNETCFG_ERR(d, vn, "buffers: %s must be an integer", k);
		} else if (x < 0 || x > INT32_MAX) {
			LNETCFG_ERR(d, vn, "buffers: tiny, small and large must be >= 0");
		} else {
			d->cfg->buffers[i] = (int)x;
		}
	}
}

/* A global: key's name in global show ("max_intf" is the kernel's other name), or NULL. */
static const char *
lnetcfg_global_name(const char *k)
{
	unsigned int i;

	if (strcmp(k, "max_intf") == 0) {
		return "max_interfaces";
	}
	for (i = 0; i < lnetcfg_nglobal_keys; i++) {
		if (strcmp(lnetcfg_global_keys[i], k) == 0) {
			return lnetcfg_global_keys[i];
		}
	}
	return NULL;
}

/*
 * One "key: value" of global: (or of the top level, which 2.17's import
 * reads the same way: handle_global_parameter).
 */
static void
lnetcfg_global_pair(struct lnetcfg_doc *d, const yaml_node_t *kn, const yaml_node_t *vn)
{
	const char *k = lnetcfg_scalar(kn);
	const char *name = k != NULL ? lnetcfg_global_name(k) : NULL;
	struct lnetcfg_global *gl;
	long x;

	if (name == NULL) {
		lnetcfg_kerr(d, -EINVAL, false, "invalid key '%s'", k != NULL ? k : "?");
		LNETCFG_ERR(d, kn, "invalid key '%s'", k != NULL ? k : "?");
		return;
	}
	lnetcfg_kerr_long(d, vn, k);
	if (!lnetcfg_int(d, vn, k, INT_MIN + 1L, INT_MAX, &x) || strcmp(name, "lnd_timeout") == 0) {
		return;
	}
	if (d->cfg->nglobals == LNETCFG_MAX_GLOBALS) {
		LNETCFG_ERR(d, kn, "global: more than %d settings", LNETCFG_MAX_GLOBALS);
		return;
	}
	gl = &d->cfg->globals[d->cfg->nglobals++];
	snprintf(gl->key, sizeof(gl->key), "%s", name);
	gl->value = x;
	gl->at = lnetcfg_at(vn);
}

/*
 * global: every setting of global show, checked by whoever applies it
 * (the daemon's checks are the kernel's). lnd_timeout is derived from
 * transaction_timeout and retry_count: the kernel's import skips it.
 */
static void
lnetcfg_global(struct lnetcfg_doc *d, const yaml_node_t *g)
{
	yaml_node_pair_t *p;

	if (g->type != YAML_MAPPING_NODE) {
		/* the kernel's import reads the value as one more key */
		if (g->type == YAML_SCALAR_NODE) {
			lnetcfg_kerr(d, -EINVAL, false, "invalid key '%s'", lnetcfg_scalar(g));
		}
		LNETCFG_ERR(d, g, "global: expected a mapping");
		return;
	}
	for (p = g->data.mapping.pairs.start; p < g->data.mapping.pairs.top; p++) {
		if (d->cfg->section != NULL && d->cfg->nerrors > 0) {
			return; /* the settings before the first error are applied */
		}
		lnetcfg_global_pair(d, lnetcfg_node(d, p->key), lnetcfg_node(d, p->value));
	}
}

/* "a.b.c.d" (host order into *@p addr), then "/N" into *@p prefix when @p prefix is not NULL. */
static bool
lnetcfg_ipv4(const char *v, uint32_t *addr, uint8_t *prefix)
{
	char buf[32];
	char *slash;
	struct in_addr in;
	char *end = NULL;
	long n;

	if (v == NULL || strlen(v) >= sizeof(buf)) {
		return false;
	}
	snprintf(buf, sizeof(buf), "%s", v);
	slash = strchr(buf, '/');
	if ((slash != NULL) != (prefix != NULL)) {
		return false;
	}
	if (slash != NULL) {
		*slash = '\0';
		n = strtol(slash + 1, &end, 10);
		if (end == slash + 1 || *end != '\0' || n < 1 || n > 32) {
			return false;
		}
		*prefix = (uint8_t)n;
	}
	if (inet_pton(AF_INET, buf, &in) != 1) {
		return false;
	}
	*addr = ntohl(in.s_addr);
	return true;
}

static void
lnetcfg_port_key(struct lnetcfg_doc *d, const char *k, const yaml_node_t *vn,
		 struct lnetcfg_port *p)
{
	const char *v = lnetcfg_scalar(vn);

	if (v == NULL) {
		LNETCFG_ERR(d, vn, "ports: %s: expected a scalar", k);
	} else if (strcmp(k, "name") == 0) {
		if (v[0] == '\0' || strlen(v) >= sizeof(p->name)) {
			LNETCFG_ERR(d, vn, "ports: name: 1 to %zu characters", sizeof(p->name) - 1);
		}
		snprintf(p->name, sizeof(p->name), "%s", v);
	} else if (strcmp(k, "device") == 0) {
		if (v[0] == '\0' || strlen(v) >= sizeof(p->device)) {
			LNETCFG_ERR(d, vn, "ports: device: EAL device arguments expected");
		}
		snprintf(p->device, sizeof(p->device), "%s", v);
	} else if (strcmp(k, "address") == 0) {
		if (!lnetcfg_ipv4(v, &p->addr, &p->prefix)) {
			LNETCFG_ERR(d, vn,
				    "ports: address: an IPv4 address/prefix expected, not '%s'", v);
		}
	} else if (strcmp(k, "gateway") == 0) {
		if (!lnetcfg_ipv4(v, &p->gateway, NULL)) {
			LNETCFG_ERR(d, vn, "ports: gateway: an IPv4 address expected, not '%s'", v);
		}
	} else {
		LNETCFG_ERR(d, vn, "ports: unknown key '%s' (name, device, address, gateway)", k);
	}
}

/* One ports: item (lnetcfg.h): name, device and address are required, names unique. */
static void
lnetcfg_port(struct lnetcfg_doc *d, const yaml_node_t *item)
{
	struct lnetcfg_port p = { .at = lnetcfg_at(item) };
	unsigned int errors = d->cfg->nerrors;
	yaml_node_pair_t *pr;

	if (item->type != YAML_MAPPING_NODE) {
		LNETCFG_ERR(d, item, "ports: each item must be a mapping");
		return;
	}
	for (pr = item->data.mapping.pairs.start; pr < item->data.mapping.pairs.top; pr++) {
		const yaml_node_t *kn = lnetcfg_node(d, pr->key);
		const char *k = lnetcfg_scalar(kn);

		if (k == NULL) {
			LNETCFG_ERR(d, kn, "ports: keys must be scalars");
		} else {
			lnetcfg_port_key(d, k, lnetcfg_node(d, pr->value), &p);
		}
	}
	if (d->cfg->nerrors != errors) {
		return;
	}
	if (p.name[0] == '\0' || p.device[0] == '\0' || p.prefix == 0) {
		LNETCFG_ERR(d, item, "ports: missing %s",
			    p.name[0] == '\0'   ? "name" :
			    p.device[0] == '\0' ? "device" :
						  "address");
		return;
	}
	for (unsigned int i = 0; i < d->cfg->nports; i++) {
		if (strcmp(d->cfg->ports[i].name, p.name) == 0) {
			LNETCFG_ERR(d, item, "ports: '%s' is listed twice", p.name);
			return;
		}
	}
	if (d->cfg->nports == LNETCFG_PORTS_MAX) {
		LNETCFG_ERR(d, item, "ports: at most %d", LNETCFG_PORTS_MAX);
		return;
	}
	d->cfg->ports[d->cfg->nports++] = p;
}

typedef void (*lnetcfg_item_fn)(struct lnetcfg_doc *d, const yaml_node_t *item);

static void
lnetcfg_list(struct lnetcfg_doc *d, const yaml_node_t *l, const char *section, lnetcfg_item_fn fn)
{
	yaml_node_item_t *it;

	if (l->type != YAML_SEQUENCE_NODE) {
		LNETCFG_ERR(d, l, "%s: expected a list", section);
		return;
	}
	for (it = l->data.sequence.items.start; it < l->data.sequence.items.top; it++) {
		struct lnetcfg *c = d->cfg;
		unsigned int errors = c->nerrors;
		unsigned int n[4] = { c->nnis, c->npeers, c->nroutes, c->nudsps };

		if (c->section != NULL && (c->cut || errors > 0)) {
			break; /* the section is read up to its first error */
		}
		fn(d, lnetcfg_node(d, *it));
		if (c->section != NULL && c->nerrors != errors) {
			/* an item with an error is not applied, even in part */
			c->nnis = n[0];
			c->npeers = n[1];
			c->nroutes = n[2];
			c->nudsps = n[3];
		}
	}
}

/*
 * numa: "range: N", what 2.17's lnet_numa_cmd reads: the numa_range
 * tunable, 0 when the section names none. It goes in as one more global
 * setting, which is how global show and export print it.
 */
static void
lnetcfg_numa(struct lnetcfg_doc *d, const yaml_node_t *kn, const yaml_node_t *m)
{
	yaml_node_pair_t *p;
	struct lnetcfg_global *gl;
	long range = 0;
	const yaml_node_t *at = kn;

	if (m->type == YAML_MAPPING_NODE) {
		for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
			const char *k = lnetcfg_scalar(lnetcfg_node(d, p->key));

			if (k != NULL && strcmp(k, "range") == 0) {
				at = lnetcfg_node(d, p->value);
				if (!lnetcfg_int(d, at, "numa: range", 0, INT_MAX, &range)) {
					return;
				}
			}
		}
	} else if (m->type != YAML_SCALAR_NODE || lnetcfg_scalar(m)[0] != '\0') {
		LNETCFG_ERR(d, m, "numa: expected a mapping such as \"range: 0\"");
		return;
	}
	if (d->cfg->nglobals == LNETCFG_MAX_GLOBALS) {
		LNETCFG_ERR(d, kn, "global: more than %d settings", LNETCFG_MAX_GLOBALS);
		return;
	}
	gl = &d->cfg->globals[d->cfg->nglobals++];
	snprintf(gl->key, sizeof(gl->key), "numa_range");
	gl->value = range;
	gl->at = lnetcfg_at(at);
}

/* A new section: nothing of the last one left (section-by-section reading only). */
static void
lnetcfg_section_reset(struct lnetcfg *cfg)
{
	cfg->nerrors = 0;
	cfg->kerr = 0;
	cfg->kerr_silent = false;
	cfg->kdescr[0] = '\0';
	cfg->cut = false;
	cfg->nnis = cfg->npeers = cfg->nglobals = cfg->nip2nets = cfg->nudsps = cfg->nroutes = 0;
	cfg->nports = 0;
	cfg->routing = LNETCFG_UNSET;
	cfg->has_buffers = false;
}

/*
 * The sections 2.17's import sends over netlink (jt_import's
 * cmd_mappings): with --exec, ping: and discover: only.
 */
static bool
lnetcfg_is_nl_section(const struct lnetcfg *cfg, const char *k)
{
	static const char *const add[] = { "peer", "route", "routing", "buffers", "numa" };
	static const char *const exec[] = { "ping", "discover" };
	unsigned int i;

	for (i = 0; k != NULL && !cfg->import_exec && i < sizeof(add) / sizeof(add[0]); i++) {
		if (strcmp(k, add[i]) == 0) {
			return true;
		}
	}
	for (i = 0; k != NULL && cfg->import_exec && i < sizeof(exec) / sizeof(exec[0]); i++) {
		if (strcmp(k, exec[i]) == 0) {
			return true;
		}
	}
	return false;
}

/* A key that begins a section of its own in jt_import (not one more global setting). */
static bool
lnetcfg_is_section(const struct lnetcfg *cfg, const char *k)
{
	return lnetcfg_is_nl_section(cfg, k) ||
	       (k != NULL &&
		(strcmp(k, "global") == 0 || strcmp(k, "net") == 0 || strcmp(k, "ip2nets") == 0 ||
		 strcmp(k, "udsp") == 0 || strcmp(k, "ports") == 0));
}

/* A key handle_global_parameter refuses at once ("invalid key"). */
static bool
lnetcfg_unknown_key(const char *k)
{
	return k == NULL || lnetcfg_global_name(k) == NULL;
}

/*
 * A top-level key that names one of the kernel's netlink multicast groups
 * (lnet_mcast_grps, api-ni.c) but no section: in a netlink section's
 * message, what the kernel then does with it is not modelled.
 */
static bool
lnetcfg_is_nl_group(const char *k)
{
	static const char *const grps[] = { "ip2net",     "ping",      "discover",
					    "cpt-of-nid", "dbg-recov", "fault" };
	unsigned int i;

	for (i = 0; k != NULL && i < sizeof(grps) / sizeof(grps[0]); i++) {
		if (strcmp(k, grps[i]) == 0) {
			return true;
		}
	}
	return false;
}

/* One top-level "key: value"; the name of its kind of section. */
static const char *
lnetcfg_top_pair(struct lnetcfg_doc *d, const yaml_node_t *kn, const yaml_node_t *vn)
{
	const char *k = lnetcfg_scalar(kn);

	if (k == NULL) {
		LNETCFG_ERR(d, kn, "section names must be scalars");
		return "global";
	}
	if (d->cfg->import_exec && lnetcfg_is_nl_section(d->cfg, k)) {
		return k; /* ping:, discover: (not read here) */
	}
	if (d->cfg->import_exec &&
	    (strcmp(k, "peer") == 0 || strcmp(k, "route") == 0 || strcmp(k, "routing") == 0 ||
	     strcmp(k, "buffers") == 0 || strcmp(k, "numa") == 0)) {
		lnetcfg_global_pair(d, kn, vn); /* --exec: find_command_mapping knows them not */
		return "global";
	}
	if (strcmp(k, "net") == 0) {
		lnetcfg_list(d, vn, "net", lnetcfg_net);
	} else if (strcmp(k, "peer") == 0) {
		lnetcfg_list(d, vn, "peer", lnetcfg_peer);
	} else if (strcmp(k, "ip2nets") == 0) {
		lnetcfg_list(d, vn, "ip2nets", lnetcfg_ip2net_item);
	} else if (strcmp(k, "global") == 0) {
		lnetcfg_global(d, vn);
	} else if (strcmp(k, "udsp") == 0) {
		lnetcfg_list(d, vn, "udsp", lnetcfg_udsp);
	} else if (strcmp(k, "route") == 0) {
		lnetcfg_list(d, vn, "route", lnetcfg_route);
	} else if (strcmp(k, "routing") == 0) {
		lnetcfg_routing(d, vn);
	} else if (strcmp(k, "buffers") == 0) {
		lnetcfg_buffers(d, vn);
	} else if (strcmp(k, "numa") == 0) {
		lnetcfg_numa(d, kn, vn);
	} else if (strcmp(k, "ports") == 0) {
		lnetcfg_list(d, vn, "ports", lnetcfg_port);
	} else {
		/*
		 * Any other key is read as a global setting (2.17's jt_import
		 * hands it to handle_global_parameter): a tunable's name sets
		 * it, another is its "invalid key".
		 */
		lnetcfg_global_pair(d, kn, vn);
		return "global";
	}
	return k;
}

static int
lnetcfg_top(struct lnetcfg_doc *d, const yaml_node_t *root)
{
	yaml_node_pair_t *p;
	int rc = 0;

	if (root == NULL) {
		return 0; /* an empty file configures nothing */
	}
	d->flushed = d->flushed || !d->cut;
	if (root->type != YAML_MAPPING_NODE) {
		LNETCFG_ERR(d, root, "expected a mapping of sections (net, peer, global, ...)");
		return d->cfg->section != NULL ? d->cfg->section(d->cfg, "", d->cfg->arg) : 0;
	}
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top && rc == 0; p++) {
		yaml_node_pair_t *end = p + 1;
		bool merged = false;
		const char *name;

		/*
		 * jt_import sends a netlink section's message when the next
		 * section's key is read (complete_and_setup_emitter, or
		 * yaml_netlink_complete_emitter ahead of udsp:, net:, ip2nets:,
		 * global:) or the document ends; any other key read before then
		 * goes into the message, where yaml_netlink_write_handler finds
		 * no multicast group of its name and the message is not sent.
		 */
		name = lnetcfg_scalar(lnetcfg_node(d, p->key));
		if (d->cfg->section != NULL && lnetcfg_is_nl_section(d->cfg, name)) {
			for (; end < root->data.mapping.pairs.top; end++) {
				const char *k = lnetcfg_scalar(lnetcfg_node(d, end->key));

				if (lnetcfg_is_section(d->cfg, k)) {
					break;
				}
				merged = merged || !lnetcfg_is_nl_group(k);
			}
			if (end == root->data.mapping.pairs.top && d->cut && !d->flushed) {
				break; /* never sent: libyaml failed first */
			}
			if (merged) {
				lnetcfg_section_reset(d->cfg);
				rc = d->cfg->section(d->cfg, LNETCFG_WRITER_ERROR, d->cfg->arg);
				break;
			}
		}
		if (d->cfg->section != NULL) {
			lnetcfg_section_reset(d->cfg);
		}
		name = lnetcfg_top_pair(d, lnetcfg_node(d, p->key), lnetcfg_node(d, p->value));
		if (d->cfg->section != NULL) {
			rc = d->cfg->section(d->cfg, name, d->cfg->arg);
			p = end - 1; /* a group's key in the message: not read as a setting */
		}
	}
	return rc;
}

/*
 * libyaml's complaint as the kernel's lnetctl words it
 * (yaml_parser_log_error): "Parser error: ... at line L, column C".
 */
static void
lnetcfg_syntax_msg(const yaml_parser_t *parser, char *msg, size_t len)
{
	const char *kind = parser->error == YAML_SCANNER_ERROR ? "Scanner" :
			   parser->error == YAML_PARSER_ERROR  ? "Parser" :
								 "Reader";
	const char *problem = parser->problem != NULL ? parser->problem : "malformed YAML";

	if (parser->context != NULL) {
		snprintf(msg, len,
			 "%s error: %s at line %zu, column %zu\n%s at line %zu, column %zu", kind,
			 parser->context, parser->context_mark.line + 1,
			 parser->context_mark.column + 1, problem, parser->problem_mark.line + 1,
			 parser->problem_mark.column + 1);
	} else {
		snprintf(msg, len, "%s error: %s at line %zu, column %zu", kind, problem,
			 parser->problem_mark.line + 1, parser->problem_mark.column + 1);
	}
}

static void
lnetcfg_syntax_report(struct lnetcfg *cfg, const char *msg)
{
	cfg->nerrors++;
	cfg->syntax = true;
	if (cfg->report != NULL) {
		cfg->report(cfg->arg, msg);
	}
}

#define LNETCFG_DEPTH 64

/*
 * The first document of a file libyaml stops reading part-way, as far as
 * its events went: the nodes its events opened and closed, in a document
 * as yaml_parser_load builds one, with what was left open when it failed.
 */
struct lnetcfg_compose {
	yaml_node_item_t open[LNETCFG_DEPTH]; /* the nodes not yet closed, outermost first */
	yaml_node_item_t key[LNETCFG_DEPTH];  /* an open mapping's key awaiting its value */
	int depth;
	bool doc_end;
	struct {
		char *name;
		yaml_node_item_t id;
	} anchors[32];
	unsigned int nanchors;
};

static bool
lnetcfg_compose_attach(yaml_document_t *doc, struct lnetcfg_compose *c, yaml_node_item_t id)
{
	yaml_node_item_t parent;

	if (c->depth == 0) {
		return id == 1; /* the root */
	}
	parent = c->open[c->depth - 1];
	if (yaml_document_get_node(doc, parent)->type == YAML_SEQUENCE_NODE) {
		return yaml_document_append_sequence_item(doc, parent, id) != 0;
	}
	if (c->key[c->depth - 1] == 0) {
		c->key[c->depth - 1] = id;
		return true;
	}
	if (!yaml_document_append_mapping_pair(doc, parent, c->key[c->depth - 1], id)) {
		return false;
	}
	c->key[c->depth - 1] = 0;
	return true;
}

static void
lnetcfg_compose_anchor(struct lnetcfg_compose *c, const yaml_char_t *anchor, yaml_node_item_t id)
{
	if (anchor != NULL && c->nanchors < sizeof(c->anchors) / sizeof(c->anchors[0])) {
		c->anchors[c->nanchors].name = strdup((const char *)anchor);
		c->anchors[c->nanchors++].id = id;
	}
}

/* One event into the document: false when it cannot go in (then the file is read as a whole). */
static bool
lnetcfg_compose_event(yaml_document_t *doc, struct lnetcfg_compose *c, const yaml_event_t *ev)
{
	yaml_node_item_t id = 0;
	unsigned int i;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		id = yaml_document_add_scalar(doc, NULL, ev->data.scalar.value,
					      (int)ev->data.scalar.length, ev->data.scalar.style);
		lnetcfg_compose_anchor(c, ev->data.scalar.anchor, id);
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (c->depth == LNETCFG_DEPTH) {
			return false;
		}
		id = ev->type == YAML_SEQUENCE_START_EVENT ?
			     yaml_document_add_sequence(doc, NULL, ev->data.sequence_start.style) :
			     yaml_document_add_mapping(doc, NULL, ev->data.mapping_start.style);
		lnetcfg_compose_anchor(c,
				       ev->type == YAML_SEQUENCE_START_EVENT ?
					       ev->data.sequence_start.anchor :
					       ev->data.mapping_start.anchor,
				       id);
		break;
	case YAML_ALIAS_EVENT:
		for (i = c->nanchors; i > 0; i--) {
			if (strcmp(c->anchors[i - 1].name, (const char *)ev->data.alias.anchor) ==
			    0) {
				return lnetcfg_compose_attach(doc, c, c->anchors[i - 1].id);
			}
		}
		return false;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		c->depth--;
		return true;
	case YAML_DOCUMENT_END_EVENT:
		c->doc_end = true;
		return true;
	case YAML_DOCUMENT_START_EVENT:
		return !c->doc_end;
	default:
		return true;
	}
	if (id == 0) {
		return false;
	}
	yaml_document_get_node(doc, id)->start_mark = ev->start_mark;
	yaml_document_get_node(doc, id)->end_mark = ev->end_mark;
	if (!lnetcfg_compose_attach(doc, c, id)) {
		return false;
	}
	if (ev->type != YAML_SCALAR_EVENT) {
		c->key[c->depth] = 0;
		c->open[c->depth++] = id;
	}
	return true;
}

/*
 * What 2.17's jt_import has done when libyaml fails part-way: it acts on
 * the events as they come. A global setting (of global: or the top level)
 * is set once its value is read; a net: or ip2nets: item is configured,
 * and a udsp: rule added, at the end of its mapping; a netlink section
 * (peer:, route:, routing:, buffers:, numa:) is sent when the key of the
 * next section is read, or at the end of the document, so the one being
 * read when the parser fails, or the last one read, is never sent. A
 * key read whose value is not, that handle_global_parameter does not
 * know, is its "invalid key" before the parser goes on. This prunes the
 * document read so far to that, the sections then go to section() as
 * usual, and the syntax error is reported after them; -1 when the events
 * do not make a document (the file is then not applied at all).
 */
static int
lnetcfg_parse_cut(struct lnetcfg_doc *d, const char *text, size_t len, char *msg, size_t msglen)
{
	struct lnetcfg_compose c = { .depth = 0 };
	yaml_node_t *root = NULL;
	yaml_node_t *sec = NULL;
	const char *last = NULL;
	bool nl = false;
	yaml_parser_t parser;
	yaml_event_t ev;
	yaml_node_pair_t *p;
	unsigned int i;
	int rc = -1;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_document_initialize(&d->doc, NULL, NULL, NULL, 1, 1)) {
		yaml_parser_delete(&parser);
		return -1;
	}
	for (;;) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = 0;
			break;
		}
		if (ev.type == YAML_STREAM_END_EVENT || !lnetcfg_compose_event(&d->doc, &c, &ev)) {
			yaml_event_delete(&ev);
			break;
		}
		yaml_event_delete(&ev);
	}
	if (rc == 0) {
		lnetcfg_syntax_msg(&parser, msg, msglen);
	}
	yaml_parser_delete(&parser);
	for (i = 0; i < c.nanchors; i++) {
		free(c.anchors[i].name);
	}
	root = yaml_document_get_root_node(&d->doc);
	if (rc != 0 || (root != NULL && root->type != YAML_MAPPING_NODE)) {
		yaml_document_delete(&d->doc);
		return -1; /* not read as the kernel's import reads it: nothing applied */
	}
	if (root == NULL) {
		return 0; /* no section read */
	}
	/* the kernel's op: the last section key read was a netlink one */
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		last = lnetcfg_scalar(lnetcfg_node(d, p->key));
		if (lnetcfg_is_section(d->cfg, last)) {
			nl = lnetcfg_is_nl_section(d->cfg, last);
		}
	}
	d->cut = true;
	d->flushed = c.doc_end ||
		     (c.depth == 1 && c.key[0] != 0 &&
		      lnetcfg_is_section(d->cfg, lnetcfg_scalar(lnetcfg_node(d, c.key[0]))));
	if (c.depth >= 2 && !lnetcfg_is_nl_section(d->cfg, last)) {
		/* a section part-way: its value is open */
		sec = yaml_document_get_node(&d->doc, c.open[1]);
		if (c.depth >= 3 && sec->type == YAML_SEQUENCE_NODE) {
			sec->data.sequence.items.top--; /* the item being read */
		} else if (c.depth >= 3 && c.key[1] == 0) {
			/* the setting being read: its key, when handle_global_parameter refuses it */
			yaml_node_pair_t *last_pair = sec->data.mapping.pairs.top - 1;

			if (lnetcfg_unknown_key(lnetcfg_scalar(lnetcfg_node(d, last_pair->key)))) {
				last_pair->value =
					yaml_document_add_scalar(&d->doc, NULL, (yaml_char_t *)"",
								 0, YAML_PLAIN_SCALAR_STYLE);
			} else {
				sec->data.mapping.pairs.top--;
			}
		} else if (c.depth == 2 && sec->type == YAML_MAPPING_NODE && c.key[1] != 0 &&
			   lnetcfg_unknown_key(lnetcfg_scalar(lnetcfg_node(d, c.key[1])))) {
			yaml_document_append_mapping_pair(
				&d->doc, c.open[1], c.key[1],
				yaml_document_add_scalar(&d->doc, NULL, (yaml_char_t *)"", 0,
							 YAML_PLAIN_SCALAR_STYLE));
		}
	} else if (c.depth == 1 && c.key[0] != 0) {
		/* a key read, not its value: after a netlink section, it went into its message */
		const char *k = lnetcfg_scalar(lnetcfg_node(d, c.key[0]));

		if (!lnetcfg_is_section(d->cfg, k) && !nl && lnetcfg_unknown_key(k)) {
			yaml_document_append_mapping_pair(
				&d->doc, c.open[0], c.key[0],
				yaml_document_add_scalar(&d->doc, NULL, (yaml_char_t *)"", 0,
							 YAML_PLAIN_SCALAR_STYLE));
		}
	}
	return 0;
}

int
lnetcfg_parse(struct lnetcfg *cfg, const char *text, size_t len)
{
	struct lnetcfg_doc d = { .cfg = cfg };
	yaml_parser_t parser;
	int rc;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &d.doc)) {
		char msg[512];

		lnetcfg_syntax_msg(&parser, msg, sizeof(msg));
		yaml_parser_delete(&parser);
		if (cfg->section != NULL &&
		    lnetcfg_parse_cut(&d, text, len, msg, sizeof(msg)) == 0) {
			/* what 2.17's import did before libyaml failed, then its words */
			rc = lnetcfg_top(&d, yaml_document_get_root_node(&d.doc));
			yaml_document_delete(&d.doc);
			if (rc != 0) {
				return rc;
			}
			lnetcfg_section_reset(cfg);
		}
		lnetcfg_syntax_report(cfg, msg);
		return -EINVAL;
	}
	rc = lnetcfg_top(&d, yaml_document_get_root_node(&d.doc));
	yaml_document_delete(&d.doc);
	yaml_parser_delete(&parser);
	if (cfg->section != NULL) {
		return rc; /* each section's errors went to section() */
	}
	return cfg->nerrors > 0 ? -EINVAL : 0;
}

int
lnetcfg_parse_file(struct lnetcfg *cfg, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0;
	size_t cap = 0;
	size_t n;
	int rc;

	if (f == NULL) {
		rc = -errno;
		lnetcfg_error(cfg, NULL, "%s", strerror(errno));
		return rc;
	}
	do {
		if (len + 4096 > cap) {
			char *p = realloc(buf, cap = cap * 2 + 4096);

			if (p == NULL) {
				free(buf);
				if (f != stdin) {
					fclose(f);
				}
				lnetcfg_error(cfg, NULL, "out of memory");
				return -ENOMEM;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	rc = ferror(f) ? -EIO : 0;
	if (f != stdin) {
		fclose(f);
	}
	if (rc != 0) {
		lnetcfg_error(cfg, NULL, "cannot read");
	} else {
		rc = lnetcfg_parse(cfg, buf, len);
	}
	free(buf);
	return rc;
}
