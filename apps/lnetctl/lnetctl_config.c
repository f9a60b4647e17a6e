/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export and import. export prints what `net show -v 2` and `global show`
 * print, in the kernel's section order (lnet-facts §12.9); import checks a
 * whole file against what this daemon can configure before changing
 * anything, and reports every error with file:line:column.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>

#include "cfs.h"
#include "lnetctl.h"

#define LNETCTL_NIDLEN 64

int
lnetctl_export(struct lnetctl_conn *c, bool backup)
{
	int rc = 0;

	/* --backup leaves out lo and runtime state; lo is the only net yet. */
	if (!backup) {
		rc = lnetctl_net_show(c, NULL, 2);
	}
	fflush(stdout);
	if (rc == 0) {
		rc = lnetctl_peer_show(c, NULL, backup ? -1 : 1);
	}
	fflush(stdout);
	return rc != 0 ? rc : lnetctl_global_show(c);
}

/* A peer from the file, checked, to add once the whole file is valid. */
struct lnetctl_import_peer {
	char prim[LNETCTL_NIDLEN];
	char *nids;               /* "a,b,c" or NULL */
	bool mr;
};

struct lnetctl_import {
	yaml_document_t doc;
	struct lnetctl_import_peer *peers;
	unsigned int npeers;
	unsigned int peers_cap;
	yaml_document_t cur;      /* the daemon's /lnet/global_show reply */
	yaml_node_t *globals;
	const char *file;
	int nerrors;
};

static void __attribute__((format(printf, 3, 4)))
lnetctl_import_error(struct lnetctl_import *im, const yaml_node_t *at, const char *fmt, ...)
{
	char msg[256];
	char descr[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(descr, sizeof(descr), "%s:%zu:%zu: %s", im->file, at->start_mark.line + 1,
		 at->start_mark.column + 1, msg);
	lnetctl_print_error("import", "config", -EINVAL, descr);
	im->nerrors++;
}

static void
lnetctl_import_nets(struct lnetctl_import *im, yaml_node_t *nets)
{
	yaml_node_item_t *it;

	if (nets->type != YAML_SEQUENCE_NODE) {
		lnetctl_import_error(im, nets, "net: expected a list");
		return;
	}
	for (it = nets->data.sequence.items.start; it < nets->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(&im->doc, *it);
		yaml_node_t *type = lnetctl_map_get(&im->doc, item, "net type");
		const char *t = lnetctl_scalar(type);

		if (t == NULL) {
			lnetctl_import_error(im, item, "net: each item needs a \"net type\"");
		} else if (strcmp(t, "lo") != 0) {
			lnetctl_import_error(im, type, "net type \"%s\": not supported yet", t);
		}
	}
}

static bool
lnetctl_nid_ok(const char *s)
{
	struct lnet_nid nid;

	return s != NULL && libcfs_strnid(&nid, s) == 0 && !lnet_nid_is_any(&nid);
}

/* Secondary NIDs of one peer as "a,b,c"; false (with an error) on a bad one. */
static bool
lnetctl_import_peer_nis(struct lnetctl_import *im, yaml_node_t *list, const char *prim,
			char **out)
{
	yaml_node_item_t *it;
	size_t len = 1;
	char *s = calloc(1, 1);

	for (it = list->data.sequence.items.start; s != NULL && it < list->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = yaml_document_get_node(&im->doc, *it);
		yaml_node_t *nn = lnetctl_map_get(&im->doc, e, "nid");
		const char *nid = lnetctl_scalar(nn);
		char *grown;

		if (!lnetctl_nid_ok(nid)) {
			lnetctl_import_error(im, nn != NULL ? nn : e, "peer ni: bad or missing nid");
			free(s);
			return false;
		}
		if (strcmp(nid, prim) == 0) {
			continue;
		}
		len += strlen(nid) + 1;
		grown = realloc(s, len);
		if (grown == NULL) {
			break;
		}
		s = grown;
		if (s[0] != '\0') {
			strcat(s, ",");
		}
		strcat(s, nid);
	}
	*out = s != NULL && s[0] != '\0' ? s : (free(s), NULL);
	return true;
}

static void
lnetctl_import_peer(struct lnetctl_import *im, yaml_node_t *item)
{
	yaml_node_t *pn = lnetctl_map_get(&im->doc, item, "primary nid");
	yaml_node_t *mn = lnetctl_map_get(&im->doc, item, "Multi-Rail");
	yaml_node_t *list = lnetctl_map_get(&im->doc, item, "peer ni");
	const char *prim = lnetctl_scalar(pn);
	const char *mr = lnetctl_scalar(mn);
	struct lnetctl_import_peer *p;
	char *nids = NULL;

	if (!lnetctl_nid_ok(prim) || strlen(prim) >= LNETCTL_NIDLEN) {
		lnetctl_import_error(im, pn != NULL ? pn : item, "peer: bad or missing primary nid");
		return;
	}
	if (mr != NULL && strcasecmp(mr, "true") != 0 && strcasecmp(mr, "false") != 0) {
		lnetctl_import_error(im, mn, "peer: Multi-Rail must be true or false");
		return;
	}
	if (list != NULL && list->type != YAML_SEQUENCE_NODE) {
		lnetctl_import_error(im, list, "peer: \"peer ni\" must be a list");
		return;
	}
	if (list != NULL && !lnetctl_import_peer_nis(im, list, prim, &nids)) {
		return;
	}
	if (im->npeers == im->peers_cap) {
		unsigned int cap = im->peers_cap == 0 ? 64 : im->peers_cap * 2;
		struct lnetctl_import_peer *grown = realloc(im->peers, cap * sizeof(*grown));

		if (grown == NULL) {
			free(nids);
			lnetctl_import_error(im, item, "out of memory");
			return;
		}
		im->peers = grown;
		im->peers_cap = cap;
	}
	p = &im->peers[im->npeers++];
	snprintf(p->prim, sizeof(p->prim), "%s", prim);
	p->nids = nids;
	p->mr = mr == NULL || strcasecmp(mr, "true") == 0;
}

static void
lnetctl_import_peers(struct lnetctl_import *im, yaml_node_t *peers)
{
	yaml_node_item_t *it;

	if (peers->type != YAML_SEQUENCE_NODE) {
		lnetctl_import_error(im, peers, "peer: expected a list");
		return;
	}
	for (it = peers->data.sequence.items.start; it < peers->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(&im->doc, *it);

		if (item->type != YAML_MAPPING_NODE) {
			lnetctl_import_error(im, item, "peer: each item must be a mapping");
		} else {
			lnetctl_import_peer(im, item);
		}
	}
}

static void
lnetctl_import_global(struct lnetctl_import *im, yaml_node_t *g)
{
	yaml_node_pair_t *p;

	if (g->type != YAML_MAPPING_NODE) {
		lnetctl_import_error(im, g, "global: expected a mapping");
		return;
	}
	for (p = g->data.mapping.pairs.start; p < g->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(&im->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(&im->doc, p->value);
		const char *k = lnetctl_scalar(kn);
		const char *v = lnetctl_scalar(vn);
		const char *now = k != NULL ? lnetctl_scalar(lnetctl_map_get(&im->cur, im->globals, k)) :
					      NULL;

		if (now == NULL) {
			lnetctl_import_error(im, kn, "global: unknown setting \"%s\"", k != NULL ? k : "?");
		} else if (v == NULL || strcmp(v, now) != 0) {
			lnetctl_import_error(im, vn, "global: setting %s is not supported yet (it is %s)",
					     k, now);
		}
	}
}

static void
lnetctl_import_check(struct lnetctl_import *im)
{
	yaml_node_t *root = yaml_document_get_root_node(&im->doc);
	yaml_node_pair_t *p;

	if (root == NULL) {
		return;
	}
	if (root->type != YAML_MAPPING_NODE) {
		lnetctl_import_error(im, root, "expected sections (net, peer, route, global, ...)");
		return;
	}
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(&im->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(&im->doc, p->value);
		const char *k = lnetctl_scalar(kn);

		if (k != NULL && strcmp(k, "net") == 0) {
			lnetctl_import_nets(im, vn);
		} else if (k != NULL && strcmp(k, "global") == 0) {
			lnetctl_import_global(im, vn);
		} else if (k != NULL && strcmp(k, "peer") == 0) {
			lnetctl_import_peers(im, vn);
		} else if (k != NULL && (strcmp(k, "route") == 0 ||
					 strcmp(k, "routing") == 0 || strcmp(k, "buffers") == 0 ||
					 strcmp(k, "udsp") == 0)) {
			lnetctl_import_error(im, kn, "%s: not supported yet", k);
		} else {
			lnetctl_import_error(im, kn, "unknown section \"%s\"", k != NULL ? k : "?");
		}
	}
}

static int
lnetctl_load_file(const char *file, yaml_document_t *doc)
{
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "rb");
	yaml_parser_t parser;
	char descr[512];
	int ok;

	if (f == NULL) {
		snprintf(descr, sizeof(descr), "%s: %s", file, strerror(errno));
		lnetctl_print_error("import", "config", -errno, descr);
		return -1;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	ok = yaml_parser_load(&parser, doc);
	if (!ok) {
		snprintf(descr, sizeof(descr), "%s:%zu:%zu: %s", file, parser.problem_mark.line + 1,
			 parser.problem_mark.column + 1,
			 parser.problem != NULL ? parser.problem : "malformed YAML");
		lnetctl_print_error("import", "config", -EINVAL, descr);
	}
	yaml_parser_delete(&parser);
	if (f != stdin) {
		fclose(f);
	}
	return ok ? 0 : -1;
}

/*
 * The file is checked whole first; an invalid one changes nothing. Then
 * one request per item: peers (nets and globals can only match what runs).
 * A peer the daemon refuses (say, a NID owned by another peer) stops the
 * import there with its error.
 */
int
lnetctl_import(struct lnetctl_conn *c, const char *file)
{
	struct lnetctl_import im = { .file = file };
	char err[256];
	int rc;

	if (lnetctl_load_file(file, &im.doc) != 0) {
		return -EINVAL;
	}
	rc = lnetctl_request(c, "/lnet/global_show", NULL, &im.cur, err, sizeof(err));
	if (rc != 0) {
		yaml_document_delete(&im.doc);
		lnetctl_print_error("import", "config", rc, err);
		return rc;
	}
	im.globals = yaml_document_get_node(
		&im.cur, yaml_document_get_root_node(&im.cur)->data.mapping.pairs.start->value);
	lnetctl_import_check(&im);
	yaml_document_delete(&im.doc);
	yaml_document_delete(&im.cur);
	rc = im.nerrors == 0 ? 0 : -EINVAL;
	for (unsigned int i = 0; i < im.npeers; i++) {
		if (rc == 0) {
			rc = lnetctl_peer_change(c, true, im.peers[i].prim, im.peers[i].nids,
						 !im.peers[i].mr);
		}
		free(im.peers[i].nids);
	}
	free(im.peers);
	return rc;
}
