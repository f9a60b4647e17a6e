/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * capture start|stop|show: record tcp NIs' traffic to a pcapng (or pcap)
 * file that Wireshark reads (its LNet dissector decodes port 988). The kernel's
 * lnetctl has no such command; it follows its shape: start is silent,
 * stop and show print a mapping under "capture:".
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lnetctl.h"

static const char lnetctl_capture_usage[] =
	"usage: capture start --file FILE [--net NET] [--nid NID] [--max-bytes N]\n"
	"                     [--format pcapng|pcap] | stop | show";

/* The daemon runs elsewhere: it gets an absolute path. */
static int
lnetctl_abs_path(const char *file, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (file[0] == '/') {
		return snprintf(out, len, "%s", file) < (int)len ? 0 : -ENAMETOOLONG;
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		return -errno;
	}
	return snprintf(out, len, "%s/%s", cwd, file) < (int)len ? 0 : -ENAMETOOLONG;
}

static void
lnetctl_capture_print(yaml_document_t *doc, yaml_node_t *v)
{
	static const char *const keys[] = { "file", "packets", "bytes", "dropped", "max_bytes" };
	struct lnetctl_out o;
	yaml_node_pair_t *p;
	bool nis = false;
	unsigned int i;

	lnetctl_out_begin(&o, 4);
	lnetctl_out_map_begin(&o);
	lnetctl_out_scalar(&o, "capture");
	lnetctl_out_map_begin(&o);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		lnetctl_out_kv(&o, keys[i], lnetctl_scalar(lnetctl_map_get(doc, v, keys[i])));
	}
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		const char *k = lnetctl_scalar(yaml_document_get_node(doc, p->key));

		if (k == NULL || strncmp(k, "nid", 3) != 0) {
			continue;
		}
		if (!nis) {
			lnetctl_out_scalar(&o, "nis");
			lnetctl_out_seq_begin(&o);
			nis = true;
		}
		lnetctl_out_scalar(&o, lnetctl_scalar(yaml_document_get_node(doc, p->value)));
	}
	if (nis) {
		lnetctl_out_seq_end(&o);
	}
	lnetctl_out_map_end(&o);
	lnetctl_out_map_end(&o);
	lnetctl_out_end(&o);
}

static int
lnetctl_capture_start(struct lnetctl_conn *c, int argc, char **argv)
{
	char path[PATH_MAX];
	char params[PATH_MAX + 256];
	size_t off;
	const char *file = NULL, *net = NULL, *nid = NULL, *max = NULL, *format = NULL;
	yaml_document_t doc;
	yaml_node_t *v;
	int i;
	int rc;

	for (i = 0; i + 1 < argc; i += 2) {
		const char **slot = strcmp(argv[i], "--file") == 0      ? &file :
				    strcmp(argv[i], "--net") == 0       ? &net :
				    strcmp(argv[i], "--nid") == 0       ? &nid :
				    strcmp(argv[i], "--max-bytes") == 0 ? &max :
				    strcmp(argv[i], "--format") == 0    ? &format : NULL;

		if (slot == NULL || *slot != NULL || strchr(argv[i + 1], ',') != NULL) {
			break;
		}
		*slot = argv[i + 1];
	}
	if (i < argc || file == NULL) {
		return lnetctl_usage_error("start", "capture", lnetctl_capture_usage);
	}
	rc = lnetctl_abs_path(file, path, sizeof(path));
	if (rc != 0) {
		lnetctl_print_error("start", "capture", rc, "the file's path is too long");
		return rc;
	}
	off = (size_t)snprintf(params, sizeof(params), "file=%s", path);
	if (net != NULL) {
		off += (size_t)snprintf(params + off, sizeof(params) - off, ",net=%s", net);
	}
	if (nid != NULL) {
		off += (size_t)snprintf(params + off, sizeof(params) - off, ",nid=%s", nid);
	}
	if (max != NULL) {
		off += (size_t)snprintf(params + off, sizeof(params) - off, ",max_bytes=%s", max);
	}
	if (format != NULL) {
		snprintf(params + off, sizeof(params) - off, ",format=%s", format);
	}
	rc = lnetctl_request_status(c, "/lnet/capture_start", params, &doc, &v, "start", "capture");
	if (rc == 0) {
		yaml_document_delete(&doc);
	}
	return rc;
}

int
lnetctl_capture(struct lnetctl_conn *c, const char *sub, int argc, char **argv)
{
	yaml_document_t doc;
	yaml_node_t *v;
	int rc;

	if (strcmp(sub, "start") == 0) {
		return lnetctl_capture_start(c, argc, argv);
	}
	if (argc != 0) {
		return lnetctl_usage_error(sub, "capture", lnetctl_capture_usage);
	}
	rc = lnetctl_request_status(c, strcmp(sub, "stop") == 0 ? "/lnet/capture_stop" :
								  "/lnet/capture_show",
				    NULL, &doc, &v, sub, "capture");
	if (rc == 0) {
		lnetctl_capture_print(&doc, v);
		yaml_document_delete(&doc);
	}
	return rc;
}
