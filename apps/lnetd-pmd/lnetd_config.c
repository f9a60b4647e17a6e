/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration files in `lnetctl export` format, read with libyaml. The
 * whole file is checked before anything changes; every error names its
 * line and column. Sections whose capability is not built yet are refused
 * with "not supported" rather than ignored.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "cfs.h"
#include "lnet_ctl.h"
#include "lnetd.h"

#define LNETD_CFG_PEER_NIS 64

/* A peer from the file, checked; added once the whole file is valid. */
struct lnetd_cfg_peer {
	struct lnet_nid prim;
	bool mr;
	unsigned int nnis;
	struct lnet_nid nis[LNETD_CFG_PEER_NIS];
	const yaml_node_t *at;
};

struct lnetd_cfg {
	yaml_document_t doc;
	struct lnetd_cfg_peer *peers;
	unsigned int npeers;
	unsigned int peers_cap;
	const char *origin;
	char *err;
	size_t errlen;
	size_t used;
	int nerrors;
};

static void __attribute__((format(printf, 3, 4)))
lnetd_cfg_error(struct lnetd_cfg *c, const yaml_node_t *at, const char *fmt, ...)
{
	va_list ap;
	int w;

	c->nerrors++;
	if (c->used >= c->errlen) {
		return;
	}
	w = snprintf(c->err + c->used, c->errlen - c->used, "%s%s:%zu:%zu: ",
		     c->used > 0 ? "\n" : "", c->origin, at != NULL ? at->start_mark.line + 1 : 0,
		     at != NULL ? at->start_mark.column + 1 : 0);
	c->used += w > 0 ? (size_t)w : 0;
	if (c->used >= c->errlen) {
		return;
	}
	va_start(ap, fmt);
	w = vsnprintf(c->err + c->used, c->errlen - c->used, fmt, ap);
	va_end(ap);
	c->used += w > 0 ? (size_t)w : 0;
}

static const char *
lnetd_scalar(const yaml_node_t *n)
{
	return n != NULL && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of @p key in mapping @p map, or NULL. */
static yaml_node_t *
lnetd_map_get(struct lnetd_cfg *c, const yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = lnetd_scalar(yaml_document_get_node(&c->doc, p->key));

		if (k != NULL && strcmp(k, key) == 0) {
			return yaml_document_get_node(&c->doc, p->value);
		}
	}
	return NULL;
}

static void
lnetd_check_net(struct lnetd_cfg *c, const yaml_node_t *item)
{
	const yaml_node_t *type;
	const char *name;
	uint32_t net;

	if (item->type != YAML_MAPPING_NODE) {
		lnetd_cfg_error(c, item, "net: each item must be a mapping");
		return;
	}
	type = lnetd_map_get(c, item, "net type");
	name = lnetd_scalar(type);
	if (name == NULL) {
		lnetd_cfg_error(c, item, "net: missing \"net type\"");
		return;
	}
	net = libcfs_str2net(name);
	if (net == LNET_NET_ANY) {
		lnetd_cfg_error(c, type, "net type \"%s\": not a network", name);
	} else if (LNET_NETTYP(net) != LNET_LND_LO) {
		lnetd_cfg_error(c, type, "net type \"%s\": not supported yet (no %s LND in this build)",
				name, libcfs_lnd2str((int)LNET_NETTYP(net)));
	}
}

static void
lnetd_check_nets(struct lnetd_cfg *c, const yaml_node_t *nets)
{
	yaml_node_item_t *it;

	if (nets->type != YAML_SEQUENCE_NODE) {
		lnetd_cfg_error(c, nets, "net: expected a list");
		return;
	}
	for (it = nets->data.sequence.items.start; it < nets->data.sequence.items.top; it++) {
		lnetd_check_net(c, yaml_document_get_node(&c->doc, *it));
	}
}

static bool
lnetd_cfg_nid(struct lnetd_cfg *c, const yaml_node_t *n, struct lnet_nid *nid, const char *what)
{
	const char *s = lnetd_scalar(n);
	char why[160];

	if (s == NULL || libcfs_strnid_err(nid, s, why, sizeof(why)) != 0 || lnet_nid_is_any(nid)) {
		lnetd_cfg_error(c, n, "%s: %s", what, s == NULL ? "missing or not a NID" : why);
		return false;
	}
	return true;
}

static struct lnetd_cfg_peer *
lnetd_cfg_peer_new(struct lnetd_cfg *c)
{
	if (c->npeers == c->peers_cap) {
		unsigned int cap = c->peers_cap == 0 ? 64 : c->peers_cap * 2;
		struct lnetd_cfg_peer *p = realloc(c->peers, cap * sizeof(*p));

		if (p == NULL) {
			return NULL;
		}
		c->peers = p;
		c->peers_cap = cap;
	}
	memset(&c->peers[c->npeers], 0, sizeof(c->peers[0]));
	return &c->peers[c->npeers++];
}

static void
lnetd_check_peer_nis(struct lnetd_cfg *c, const yaml_node_t *list, struct lnetd_cfg_peer *p)
{
	yaml_node_item_t *it;

	if (list->type != YAML_SEQUENCE_NODE) {
		lnetd_cfg_error(c, list, "peer: \"peer ni\" must be a list");
		return;
	}
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		const yaml_node_t *e = yaml_document_get_node(&c->doc, *it);
		const yaml_node_t *nn = e->type == YAML_MAPPING_NODE ? lnetd_map_get(c, e, "nid") : NULL;
		struct lnet_nid nid;

		if (!lnetd_cfg_nid(c, nn != NULL ? nn : e, &nid, "peer ni")) {
			continue;
		}
		if (lnet_nid_same(&nid, &p->prim)) {
			continue;
		}
		if (p->nnis == LNETD_CFG_PEER_NIS) {
			lnetd_cfg_error(c, e, "peer: more than %d NIDs", LNETD_CFG_PEER_NIS);
			return;
		}
		p->nis[p->nnis++] = nid;
	}
}

static void
lnetd_check_peer(struct lnetd_cfg *c, const yaml_node_t *item)
{
	struct lnetd_cfg_peer *p;
	const yaml_node_t *mn;
	const yaml_node_t *list;
	const char *mr;

	if (item->type != YAML_MAPPING_NODE) {
		lnetd_cfg_error(c, item, "peer: each item must be a mapping");
		return;
	}
	p = lnetd_cfg_peer_new(c);
	if (p == NULL) {
		lnetd_cfg_error(c, item, "out of memory");
		return;
	}
	p->at = item;
	if (!lnetd_cfg_nid(c, lnetd_map_get(c, item, "primary nid"), &p->prim, "peer: primary nid")) {
		return;
	}
	mn = lnetd_map_get(c, item, "Multi-Rail");
	mr = lnetd_scalar(mn);
	p->mr = mr == NULL || strcasecmp(mr, "true") == 0;
	if (mr != NULL && !p->mr && strcasecmp(mr, "false") != 0) {
		lnetd_cfg_error(c, mn, "peer: Multi-Rail must be true or false");
	}
	list = lnetd_map_get(c, item, "peer ni");
	if (list != NULL) {
		lnetd_check_peer_nis(c, list, p);
	}
}

static void
lnetd_check_peers(struct lnetd_cfg *c, const yaml_node_t *peers)
{
	yaml_node_item_t *it;

	if (peers->type != YAML_SEQUENCE_NODE) {
		lnetd_cfg_error(c, peers, "peer: expected a list");
		return;
	}
	for (it = peers->data.sequence.items.start; it < peers->data.sequence.items.top; it++) {
		lnetd_check_peer(c, yaml_document_get_node(&c->doc, *it));
	}
}

/* After the whole file checked clean: add the peers. */
static int
lnetd_apply_peers(struct lnetd_cfg *c)
{
	unsigned int i;

	for (i = 0; i < c->npeers; i++) {
		struct lnetd_cfg_peer *p = &c->peers[i];
		char why[256];

		if (lnet_ctl_peer_add(&p->prim, p->nis, p->nnis, p->mr, why, sizeof(why)) != 0) {
			lnetd_cfg_error(c, p->at, "peer: %s", why);
			return -EINVAL;
		}
	}
	return 0;
}

/* Global settings: known keys, integers; changing one is not supported yet. */
static void
lnetd_check_global(struct lnetd_cfg *c, const yaml_node_t *g)
{
	struct lnet_ctl_global cur;
	const int *vals = (const int *)&cur;
	static const char *const keys[] = {
		"numa_range", "max_interfaces", "discovery", "drop_asym_route", "retry_count",
		"transaction_timeout", "health_sensitivity", "recovery_interval",
		"router_sensitivity", "lnd_timeout", "response_tracking", "recovery_limit",
		"max_recovery_ping_interval",
	};
	yaml_node_pair_t *p;

	_Static_assert(sizeof(keys) / sizeof(keys[0]) == sizeof(cur) / sizeof(int), "keys");
	if (g->type != YAML_MAPPING_NODE) {
		lnetd_cfg_error(c, g, "global: expected a mapping");
		return;
	}
	if (lnet_ctl_global_get(&cur) != 0) {
		lnetd_cfg_error(c, g, "global: LNet is not running");
		return;
	}
	for (p = g->data.mapping.pairs.start; p < g->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = yaml_document_get_node(&c->doc, p->key);
		const yaml_node_t *vn = yaml_document_get_node(&c->doc, p->value);
		const char *k = lnetd_scalar(kn);
		const char *v = lnetd_scalar(vn);
		char *end = NULL;
		long x = v != NULL ? strtol(v, &end, 10) : 0;
		unsigned int i;

		for (i = 0; k != NULL && i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (strcmp(keys[i], k) == 0) {
				break;
			}
		}
		if (k == NULL || i == sizeof(keys) / sizeof(keys[0])) {
			lnetd_cfg_error(c, kn, "global: unknown setting \"%s\"", k != NULL ? k : "?");
		} else if (v == NULL || *v == '\0' || *end != '\0') {
			lnetd_cfg_error(c, vn, "global: %s must be an integer", k);
		} else if (x != vals[i]) {
			lnetd_cfg_error(c, vn, "global: setting %s is not supported yet (it stays %d)",
					k, vals[i]);
		}
	}
}

static void
lnetd_check_top(struct lnetd_cfg *c, const yaml_node_t *root)
{
	yaml_node_pair_t *p;

	if (root == NULL) {
		return; /* empty file: nothing to do */
	}
	if (root->type != YAML_MAPPING_NODE) {
		lnetd_cfg_error(c, root, "expected a mapping of sections (net, peer, global, ...)");
		return;
	}
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = yaml_document_get_node(&c->doc, p->key);
		const yaml_node_t *vn = yaml_document_get_node(&c->doc, p->value);
		const char *k = lnetd_scalar(kn);

		if (k == NULL) {
			lnetd_cfg_error(c, kn, "section names must be scalars");
		} else if (strcmp(k, "net") == 0) {
			lnetd_check_nets(c, vn);
		} else if (strcmp(k, "global") == 0) {
			lnetd_check_global(c, vn);
		} else if (strcmp(k, "peer") == 0) {
			lnetd_check_peers(c, vn);
		} else if (strcmp(k, "route") == 0 ||
			   strcmp(k, "routing") == 0 || strcmp(k, "buffers") == 0 ||
			   strcmp(k, "udsp") == 0) {
			lnetd_cfg_error(c, kn, "%s: not supported yet", k);
		} else {
			lnetd_cfg_error(c, kn, "unknown section \"%s\"", k);
		}
	}
}

int
lnetd_config_apply_text(const char *text, size_t len, const char *origin, char *err,
			size_t errlen)
{
	struct lnetd_cfg c = { .origin = origin, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	int rc = 0;

	if (errlen > 0) {
		err[0] = '\0';
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &c.doc)) {
		snprintf(err, errlen, "%s:%zu:%zu: %s", origin, parser.problem_mark.line + 1,
			 parser.problem_mark.column + 1,
			 parser.problem != NULL ? parser.problem : "malformed YAML");
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	lnetd_check_top(&c, yaml_document_get_root_node(&c.doc));
	/* Nets and globals can only match what runs (lo, the defaults); peers are added. */
	rc = c.nerrors > 0 ? -EINVAL : lnetd_apply_peers(&c);
	free(c.peers);
	yaml_document_delete(&c.doc);
	yaml_parser_delete(&parser);
	return rc;
}

int
lnetd_config_apply_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;
	int rc;

	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		snprintf(err, errlen, "%s: cannot read", path);
		return -EIO;
	}
	fclose(f);
	buf[n] = '\0';
	rc = lnetd_config_apply_text(buf, (size_t)n, path, err, errlen);
	free(buf);
	return rc;
}
