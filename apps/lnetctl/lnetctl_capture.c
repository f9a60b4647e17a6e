/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * capture start|stop|show: record tcp NIs' traffic to a pcapng (or pcap)
 * file that Wireshark reads (its LNet dissector decodes port 988). The kernel's
 * lnetctl has no such command; it follows its shape: start is silent,
 * stop and show print a mapping under "capture:".
 */
#include <errno.h>
#include <getopt.h>
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

/*
 * capture start's options, getopt_long as the kernel's commands parse
 * theirs (--file F or --file=F); a value may not hold a comma, which
 * separates the daemon's request parameters.
 */
static int
lnetctl_capture_opts(int argc, char **argv, const char *slot[5])
{
	static const struct option opts[] = {
		{ .name = "file", .has_arg = required_argument, .val = 0 },
		{ .name = "net", .has_arg = required_argument, .val = 1 },
		{ .name = "nid", .has_arg = required_argument, .val = 2 },
		{ .name = "max-bytes", .has_arg = required_argument, .val = 3 },
		{ .name = "format", .has_arg = required_argument, .val = 4 },
		{ .name = "help", .has_arg = no_argument, .val = 'h' },
		{ .name = NULL },
	};
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'h') {
			lnetctl_print_cmd_help("capture", "start");
			return 1;
		}
		if (opt < 0 || opt > 4 || slot[opt] != NULL || strchr(optarg, ',') != NULL) {
			return -EINVAL;
		}
		slot[opt] = optarg;
	}
	return optind < argc || slot[0] == NULL ? -EINVAL : 0;
}

static int
lnetctl_capture_start(struct lnetctl_conn *c, int argc, char **argv)
{
	char path[PATH_MAX];
	char params[PATH_MAX + 256];
	size_t off;
	const char *slot[5] = { NULL };
	const char *file, *net, *nid, *max, *format;
	yaml_document_t doc;
	yaml_node_t *v;
	int rc = lnetctl_capture_opts(argc, argv, slot);

	if (rc != 0) {
		return rc > 0 ? 0 : lnetctl_usage_error("start", "capture", lnetctl_capture_usage);
	}
	file = slot[0];
	net = slot[1];
	nid = slot[2];
	max = slot[3];
	format = slot[4];
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

/* @p argv[0] is the subcommand word (start, stop, show). */
int
lnetctl_capture(struct lnetctl_conn *c, int argc, char **argv)
{
	const char *sub = argv[0];
	yaml_document_t doc;
	yaml_node_t *v;
	int rc;

	if (strcmp(sub, "start") == 0) {
		return lnetctl_capture_start(c, argc, argv);
	}
	if (argc != 1) {
		return lnetctl_usage_error(sub, "capture", lnetctl_capture_usage);
	}
	rc = lnetctl_request_status(c,
				    strcmp(sub, "stop") == 0 ? "/lnet/capture_stop" :
							       "/lnet/capture_show",
				    NULL, &doc, &v, sub, "capture");
	if (rc == 0) {
		lnetctl_capture_print(&doc, v);
		yaml_document_delete(&doc);
	}
	return rc;
}
