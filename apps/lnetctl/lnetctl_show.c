/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * show commands: ask the daemon, print the kernel lnetctl's YAML keys in
 * its order (lnet-facts §12.3, §12.7, §12.8).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lnetctl.h"

/* Copy daemon keys to kernel keys, in the given order, within one mapping. */
struct lnetctl_key {
	const char *daemon;
	const char *kernel;
};

static void
lnetctl_out_keys(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *map,
		 const struct lnetctl_key *keys, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const char *v = lnetctl_scalar(lnetctl_map_get(doc, map, keys[i].daemon));

		if (v != NULL) {
			lnetctl_out_kv(o, keys[i].kernel, v);
		}
	}
}

static void
lnetctl_out_section(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *map,
		    const char *title, const struct lnetctl_key *keys, unsigned int n)
{
	lnetctl_out_scalar(o, title);
	lnetctl_out_map_begin(o);
	lnetctl_out_keys(o, doc, map, keys, n);
	lnetctl_out_map_end(o);
}

/* -v 2: messages by type, then health (lnet-facts §12.3). */
static void
lnetctl_out_detail2(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *ni)
{
	static const char *const sections[3] = { "sent", "received", "dropped" };
	static const char *const types[5] = { "put", "get", "reply", "ack", "hello" };
	/* As the kernel prints them, and the daemon's key of each. */
	static const char *const health[][2] = {
		{ "fatal_error", "fatal_error" },      { "health value", "health_value" },
		{ "interrupts", "health_interrupts" }, { "dropped", "health_dropped" },
		{ "aborted", "health_aborted" },       { "no route", "health_no_route" },
		{ "timeouts", "health_timeouts" },     { "error", "health_error" },
		{ "ping_count", "ping_count" },        { "next_ping", "next_ping" },
	};
	unsigned int s;
	unsigned int t;

	for (s = 0; s < 3; s++) {
		char title[32];

		snprintf(title, sizeof(title), "%s_stats", sections[s]);
		lnetctl_out_scalar(o, title);
		lnetctl_out_map_begin(o);
		for (t = 0; t < 5; t++) {
			char key[48];

			snprintf(key, sizeof(key), "%s_%s", sections[s], types[t]);
			lnetctl_out_kv(o, types[t], lnetctl_scalar(lnetctl_map_get(doc, ni, key)));
		}
		lnetctl_out_map_end(o);
	}
	lnetctl_out_scalar(o, "health stats");
	lnetctl_out_map_begin(o);
	for (t = 0; t < sizeof(health) / sizeof(health[0]); t++) {
		const char *v = lnetctl_scalar(lnetctl_map_get(doc, ni, health[t][1]));

		lnetctl_out_kv(o, health[t][0], v != NULL ? v : "0");
	}
	lnetctl_out_map_end(o);
}

/* "interfaces:" as a mapping "0: <ifname>", when the NI has one. */
static void
lnetctl_out_interfaces(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *ni)
{
	const char *ifname = lnetctl_scalar(lnetctl_map_get(doc, ni, "if0"));

	if (ifname != NULL) {
		lnetctl_out_scalar(o, "interfaces");
		lnetctl_out_map_begin(o);
		lnetctl_out_kv(o, "0", ifname);
		lnetctl_out_map_end(o);
	}
}

/* "lnd tunables:" from the daemon's lnd_<key> entries, in its order. */
static void
lnetctl_out_lnd_tunables(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *ni, bool backup)
{
	yaml_node_pair_t *p;
	bool open = false;

	for (p = ni->data.mapping.pairs.start; p < ni->data.mapping.pairs.top; p++) {
		const char *k = lnetctl_scalar(yaml_document_get_node(doc, p->key));

		if (k == NULL || strncmp(k, "lnd_", 4) != 0 ||
		    (backup && strcmp(k, "lnd_timeout") == 0)) {
			continue; /* --backup leaves out timeout, as the kernel does */
		}
		if (!open) {
			lnetctl_out_scalar(o, "lnd tunables");
			lnetctl_out_map_begin(o);
			open = true;
		}
		lnetctl_out_kv(o, k + 4, lnetctl_scalar(yaml_document_get_node(doc, p->value)));
	}
	if (open) {
		lnetctl_out_map_end(o);
	}
}

static const struct lnetctl_key lnetctl_tunable_keys[] = {
	{ "peer_timeout", "peer_timeout" },
	{ "peer_credits", "peer_credits" },
	{ "peer_buffer_credits", "peer_buffer_credits" },
	{ "credits", "credits" },
};

static void
lnetctl_out_cpt(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *ni)
{
	const char *cpt = lnetctl_scalar(lnetctl_map_get(doc, ni, "CPT"));

	lnetctl_out_scalar(o, "CPT");
	lnetctl_out_quoted(o, cpt != NULL ? cpt : "");
}

/*
 * "transport: eth" (or socket), an extension key: after every key the
 * kernel prints, so a parser of the kernel's output meets it last.
 */
static void
lnetctl_out_transport(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *ni)
{
	const char *t = lnetctl_scalar(lnetctl_map_get(doc, ni, "transport"));

	if (t != NULL) {
		lnetctl_out_kv(o, "transport", t);
	}
}

/*
 * export --backup: what re-creates the NI (lnet-facts §12.3): interfaces,
 * tunables, lnd tunables, CPT. A NI with no interface keeps its nid.
 */
static void
lnetctl_out_ni_backup(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *ni)
{
	lnetctl_out_map_begin(o);
	if (lnetctl_map_get(doc, ni, "if0") == NULL) {
		lnetctl_out_kv(o, "nid", lnetctl_scalar(lnetctl_map_get(doc, ni, "nid")));
	}
	lnetctl_out_interfaces(o, doc, ni);
	lnetctl_out_section(o, doc, ni, "tunables", lnetctl_tunable_keys, 4);
	lnetctl_out_lnd_tunables(o, doc, ni, true);
	lnetctl_out_cpt(o, doc, ni);
	lnetctl_out_map_end(o);
}

static void
lnetctl_out_ni(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *ni, int detail)
{
	static const struct lnetctl_key stats[] = {
		{ "send_count", "send_count" },
		{ "recv_count", "recv_count" },
		{ "drop_count", "drop_count" },
	};

	if (detail < 0) {
		lnetctl_out_ni_backup(o, doc, ni);
		return;
	}
	lnetctl_out_map_begin(o);
	lnetctl_out_kv(o, "nid", lnetctl_scalar(lnetctl_map_get(doc, ni, "nid")));
	lnetctl_out_kv(o, "status", lnetctl_scalar(lnetctl_map_get(doc, ni, "status")));
	lnetctl_out_interfaces(o, doc, ni);
	if (detail > 0) {
		lnetctl_out_section(o, doc, ni, "statistics", stats, 3);
		if (detail >= 4) {
			/* The kernel's place: before sent_stats. */
			lnetctl_out_udsp_info(o, doc, ni);
		}
		if (detail > 1) {
			lnetctl_out_detail2(o, doc, ni);
		}
		lnetctl_out_section(o, doc, ni, "tunables", lnetctl_tunable_keys, 4);
		lnetctl_out_lnd_tunables(o, doc, ni, false);
		lnetctl_out_kv(o, "dev cpt", lnetctl_scalar(lnetctl_map_get(doc, ni, "dev_cpt")));
		lnetctl_out_cpt(o, doc, ni);
		lnetctl_out_transport(o, doc, ni);
	}
	lnetctl_out_map_end(o);
}

static int
lnetctl_fetch(struct lnetctl_conn *c, const char *cmd, const char *params, yaml_document_t *doc,
	      yaml_node_t **value, const char *verb, const char *object)
{
	char err[256];
	yaml_node_t *root;
	int rc = lnetctl_request(c, cmd, params, doc, err, sizeof(err));

	if (rc != 0) {
		lnetctl_print_error(verb, object, rc, err);
		return rc;
	}
	root = yaml_document_get_root_node(doc);
	*value = yaml_document_get_node(doc, root->data.mapping.pairs.start->value);
	return 0;
}

#define LNETCTL_MAX_NIS 256

struct lnetctl_nis {
	yaml_node_t *ni[LNETCTL_MAX_NIS];
	const char *net[LNETCTL_MAX_NIS];
	unsigned int n;
};

/* The reply maps "ni0", "ni1", ... to flat NI dicts, in configuration order. */
static void
lnetctl_nis_collect(yaml_document_t *doc, yaml_node_t *value, struct lnetctl_nis *l, bool skip_lo)
{
	yaml_node_pair_t *p;

	l->n = 0;
	for (p = value->data.mapping.pairs.start;
	     p < value->data.mapping.pairs.top && l->n < LNETCTL_MAX_NIS; p++) {
		yaml_node_t *ni = yaml_document_get_node(doc, p->value);
		const char *net = lnetctl_scalar(lnetctl_map_get(doc, ni, "net_type"));

		if (net != NULL && !(skip_lo && strcmp(net, "lo") == 0)) {
			l->ni[l->n] = ni;
			l->net[l->n++] = net;
		}
	}
}

/* One net and its NIs, as the kernel groups them. */
static void
lnetctl_out_net(struct lnetctl_out *o, yaml_document_t *doc, const struct lnetctl_nis *l,
		const char *net, int detail)
{
	unsigned int i;

	lnetctl_out_map_begin(o);
	lnetctl_out_kv(o, "net type", net);
	lnetctl_out_scalar(o, "local NI(s)");
	lnetctl_out_seq_begin(o);
	for (i = 0; i < l->n; i++) {
		if (strcmp(l->net[i], net) == 0) {
			lnetctl_out_ni(o, doc, l->ni[i], detail);
		}
	}
	lnetctl_out_seq_end(o);
	lnetctl_out_map_end(o);
}

static bool
lnetctl_net_seen(const struct lnetctl_nis *l, unsigned int upto)
{
	unsigned int i;

	for (i = 0; i < upto; i++) {
		if (strcmp(l->net[i], l->net[upto]) == 0) {
			return true;
		}
	}
	return false;
}

int
lnetctl_net_show(struct lnetctl_conn *c, const char *net, int detail)
{
	static struct lnetctl_nis l;
	char params[128];
	yaml_document_t doc;
	yaml_node_t *value;
	struct lnetctl_out o;
	unsigned int i;
	int rc;

	snprintf(params, sizeof(params), "detail=%d%s%s", detail < 0 ? 1 : detail,
		 net != NULL ? ",net=" : "", net != NULL ? net : "");
	rc = lnetctl_fetch(c, "/lnet/net_show", params, &doc, &value, "show", "net");
	if (rc != 0) {
		return rc;
	}
	lnetctl_nis_collect(&doc, value, &l, detail < 0);
	if (l.n == 0) {
		yaml_document_delete(&doc);
		if (net != NULL) {
			/* lnet_net_show_dump() found no NI of the net */
			lnetctl_print_nl_error("show", "net", -ESRCH, "Network is down");
			return -EINVAL;
		}
		return 0;
	}
	lnetctl_out_begin(&o, 6); /* the netlink path's layout: items at +6 */
	lnetctl_out_map_begin(&o);
	lnetctl_out_scalar(&o, "net");
	lnetctl_out_seq_begin(&o);
	for (i = 0; i < l.n; i++) {
		if (!lnetctl_net_seen(&l, i)) {
			lnetctl_out_net(&o, &doc, &l, l.net[i], detail);
		}
	}
	lnetctl_out_seq_end(&o);
	lnetctl_out_map_end(&o);
	lnetctl_out_end(&o);
	yaml_document_delete(&doc);
	return o.failed ? -EIO : 0;
}

/* A flat mapping under one title, keys as the daemon sent them (same names), but @p skip. */
static int
lnetctl_flat_show(struct lnetctl_conn *c, const char *cmd, const char *title, const char *object,
		  const char *skip)
{
	yaml_document_t doc;
	yaml_node_t *value;
	yaml_node_pair_t *p;
	struct lnetctl_out o;
	int rc = lnetctl_fetch(c, cmd, NULL, &doc, &value, "show", object);

	if (rc != 0) {
		return rc;
	}
	lnetctl_out_begin(&o, 4); /* the ioctl path's cYAML layout */
	lnetctl_out_map_begin(&o);
	lnetctl_out_scalar(&o, title);
	lnetctl_out_map_begin(&o);
	for (p = value->data.mapping.pairs.start; p < value->data.mapping.pairs.top; p++) {
		const char *key = lnetctl_scalar(yaml_document_get_node(&doc, p->key));

		if (skip != NULL && key != NULL && strcmp(key, skip) == 0) {
			continue;
		}
		lnetctl_out_kv(&o, key, lnetctl_scalar(yaml_document_get_node(&doc, p->value)));
	}
	lnetctl_out_map_end(&o);
	lnetctl_out_map_end(&o);
	lnetctl_out_end(&o);
	yaml_document_delete(&doc);
	return o.failed ? -EIO : 0;
}

int
lnetctl_stats_show(struct lnetctl_conn *c)
{
	return lnetctl_flat_show(c, "/lnet/stats_show", "statistics", "statistics", NULL);
}

int
lnetctl_global_show(struct lnetctl_conn *c)
{
	return lnetctl_flat_show(c, "/lnet/global_show", "global", "global", NULL);
}

/*
 * The global section of export: without the daemon's extension key, which
 * a kernel's import refuses as an invalid key.
 */
int
lnetctl_global_export(struct lnetctl_conn *c)
{
	return lnetctl_flat_show(c, "/lnet/global_show", "global", "global", "lnet_selftest");
}
