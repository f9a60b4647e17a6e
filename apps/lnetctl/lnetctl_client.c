/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The telemetry socket client: AF_UNIX SOCK_SEQPACKET, one JSON message
 * per request (dpdk-on-this-machine.md §3). JSON is read with libyaml.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lnetctl.h"

#define LNETCTL_MAX_REPLY 16384

/* Where DPDK puts the runtime dir for @p prefix, as root or not. */
static int
lnetctl_socket_candidates(const char *name, char paths[][256], int max)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n = 0;

	snprintf(paths[n++], 256, "/var/run/dpdk/%s/dpdk_telemetry.v2", name);
	if (xdg != NULL && n < max) {
		snprintf(paths[n++], 256, "%s/dpdk/%s/dpdk_telemetry.v2", xdg, name);
	}
	if (n < max) {
		snprintf(paths[n++], 256, "/tmp/dpdk/%s/dpdk_telemetry.v2", name);
	}
	return n;
}

int
lnetctl_connect(const char *name, struct lnetctl_conn *c, char *err, size_t errlen)
{
	char paths[3][256];
	char hello[1024];
	int n = lnetctl_socket_candidates(name, paths, 3);
	int last = ENOENT;
	int i;

	for (i = 0; i < n; i++) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

		if (fd < 0) {
			last = errno;
			continue;
		}
		if (strlen(paths[i]) >= sizeof(sun.sun_path)) {
			close(fd);
			last = ENAMETOOLONG;
			continue;
		}
		memcpy(sun.sun_path, paths[i], strlen(paths[i]) + 1);
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0 &&
		    recv(fd, hello, sizeof(hello), 0) > 0) {
			c->fd = fd;
			memcpy(c->path, paths[i], sizeof(c->path));
			return 0;
		}
		last = errno;
		close(fd);
	}
	snprintf(err, errlen, "cannot reach lnetd-pmd instance \"%s\" (%s: %s)", name, paths[0],
		 strerror(last));
	return -last;
}

void
lnetctl_close(struct lnetctl_conn *c)
{
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
}

/* Reply is {"<cmd>": VALUE}: keep VALUE as the document's root. */
static int
lnetctl_parse_reply(const char *json, size_t len, yaml_document_t *doc, char *err,
		    size_t errlen)
{
	yaml_parser_t p;
	yaml_node_t *root;
	int ok;

	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)json, len);
	ok = yaml_parser_load(&p, doc);
	yaml_parser_delete(&p);
	if (!ok) {
		snprintf(err, errlen, "malformed reply from lnetd-pmd");
		return -EPROTO;
	}
	root = yaml_document_get_root_node(doc);
	if (root == NULL || root->type != YAML_MAPPING_NODE ||
	    root->data.mapping.pairs.top - root->data.mapping.pairs.start != 1) {
		yaml_document_delete(doc);
		snprintf(err, errlen, "unexpected reply from lnetd-pmd");
		return -EPROTO;
	}
	return 0;
}

int
lnetctl_request(struct lnetctl_conn *c, const char *cmd, const char *params,
		yaml_document_t *doc, char *err, size_t errlen)
{
	char req[1024];
	char *reply = malloc(LNETCTL_MAX_REPLY + 1);
	yaml_node_t *value;
	ssize_t n;
	int rc;

	if (reply == NULL) {
		return -ENOMEM;
	}
	n = snprintf(req, sizeof(req), "%s%s%s", cmd, params != NULL ? "," : "",
		     params != NULL ? params : "");
	if (n >= (ssize_t)sizeof(req) || send(c->fd, req, (size_t)n, 0) != n ||
	    (n = recv(c->fd, reply, LNETCTL_MAX_REPLY, 0)) <= 0) {
		snprintf(err, errlen, "lost the connection to lnetd-pmd (%s)", c->path);
		free(reply);
		return -ECONNRESET;
	}
	reply[n] = '\0';
	rc = lnetctl_parse_reply(reply, (size_t)n, doc, err, errlen);
	free(reply);
	if (rc != 0) {
		return rc;
	}
	value = yaml_document_get_node(doc, yaml_document_get_root_node(doc)
						    ->data.mapping.pairs.start->value);
	if (value == NULL || value->type == YAML_SCALAR_NODE) {
		/* {"/cmd": null}: a daemon without this request, or one that failed it outright */
		yaml_document_delete(doc);
		snprintf(err, errlen, "lnetd-pmd could not carry this out (a daemon older than "
				      "this lnetctl, or short of memory)");
		return -EINVAL;
	}
	return 0;
}

/*
 * A request whose reply carries {"status": N[, "descr": ...]}: on failure
 * print the kernel's error block for @p verb / @p object and return N; on
 * success leave the document to the caller with *value at the reply.
 */
int
lnetctl_call(struct lnetctl_conn *c, const char *cmd, const char *params, char *descr, size_t len)
{
	yaml_document_t doc;
	yaml_node_t *v;
	const char *status;
	const char *d;
	int rc = lnetctl_request(c, cmd, params, &doc, descr, len);

	if (rc != 0) {
		return rc;
	}
	v = yaml_document_get_node(&doc, yaml_document_get_root_node(&doc)->data.mapping.pairs.start->value);
	status = lnetctl_scalar(lnetctl_map_get(&doc, v, "status"));
	d = lnetctl_scalar(lnetctl_map_get(&doc, v, "descr"));
	rc = status != NULL ? atoi(status) : -EPROTO;
	snprintf(descr, len, "%s", d != NULL ? d : "");
	yaml_document_delete(&doc);
	return rc;
}

int
lnetctl_request_status(struct lnetctl_conn *c, const char *cmd, const char *params,
		       yaml_document_t *doc, yaml_node_t **value, const char *verb,
		       const char *object)
{
	char err[256];
	const char *status;
	const char *descr;
	int rc = lnetctl_request(c, cmd, params, doc, err, sizeof(err));

	if (rc != 0) {
		lnetctl_print_error(verb, object, rc, err);
		return rc;
	}
	*value = yaml_document_get_node(doc,
					yaml_document_get_root_node(doc)->data.mapping.pairs.start->value);
	status = lnetctl_scalar(lnetctl_map_get(doc, *value, "status"));
	rc = status != NULL ? atoi(status) : -EPROTO;
	if (rc != 0) {
		descr = lnetctl_scalar(lnetctl_map_get(doc, *value, "descr"));
		lnetctl_print_error(verb, object, rc, descr != NULL ? descr : "refused");
		yaml_document_delete(doc);
	}
	return rc;
}
