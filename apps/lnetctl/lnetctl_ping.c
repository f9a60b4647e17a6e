/* SPDX-License-Identifier: BSD-3-Clause */
/* lnetctl ping: the daemon GETs each target's ping info; print as §12.10 shows. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnetctl.h"

static void
lnetctl_ping_out(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *v)
{
	yaml_node_pair_t *p;

	lnetctl_out_map_begin(o);
	lnetctl_out_kv(o, "primary nid", lnetctl_scalar(lnetctl_map_get(doc, v, "primary_nid")));
	lnetctl_out_kv(o, "Multi-Rail", lnetctl_scalar(lnetctl_map_get(doc, v, "multi_rail")));
	lnetctl_out_scalar(o, "peer_ni");
	lnetctl_out_seq_begin(o);
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		const char *k = lnetctl_scalar(yaml_document_get_node(doc, p->key));

		if (k != NULL && strncmp(k, "nid", 3) == 0) {
			lnetctl_out_map_begin(o);
			lnetctl_out_kv(o, "nid", lnetctl_scalar(yaml_document_get_node(doc, p->value)));
			lnetctl_out_map_end(o);
		}
	}
	lnetctl_out_seq_end(o);
	lnetctl_out_map_end(o);
}

/* @p nids: "a,b,c". Replies print as one list; failures as error blocks after it. */
int
lnetctl_ping(struct lnetctl_conn *c, const char *nids, int timeout_s)
{
	char *copy = strdup(nids);
	char *save = NULL;
	char *tok;
	struct lnetctl_out o;
	bool open = false;
	int rc = 0;

	if (copy == NULL) {
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char params[256];
		yaml_document_t doc;
		yaml_node_t *v;
		int one;

		snprintf(params, sizeof(params), "nid=%s,timeout=%d", tok, timeout_s * 1000);
		one = lnetctl_request_status(c, "/lnet/ping", params, &doc, &v, "manage", "ping");
		if (one != 0) {
			rc = one;
			continue;
		}
		if (!open) {
			lnetctl_out_begin(&o, 2); /* as the kernel prints ping */
			lnetctl_out_map_begin(&o);
			lnetctl_out_scalar(&o, "ping");
			lnetctl_out_seq_begin(&o);
			open = true;
		}
		lnetctl_ping_out(&o, &doc, v);
		yaml_document_delete(&doc);
	}
	if (open) {
		lnetctl_out_seq_end(&o);
		lnetctl_out_map_end(&o);
		lnetctl_out_end(&o);
	}
	free(copy);
	return rc;
}
