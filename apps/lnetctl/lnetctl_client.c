/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The telemetry socket client: AF_UNIX SOCK_SEQPACKET, one JSON message
 * per request (dpdk-on-this-machine.md §3). JSON is read with libyaml.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
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

/* LNETCTL_REPLY_TIMEOUT (seconds), else the default. */
static long
lnetctl_reply_ms_default(void)
{
	const char *env = getenv("LNETCTL_REPLY_TIMEOUT");
	char *end = NULL;
	long s = env != NULL ? strtol(env, &end, 10) : 0;

	return env != NULL && end != env && *end == '\0' && s > 0 && s < 86400 ?
		       s * (long)LNP_MS_PER_S :
		       LNETCTL_REPLY_MS_DEFAULT;
}

static long
lnetctl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * (long)LNP_MS_PER_S + ts.tv_nsec / (long)LNP_NS_PER_MS;
}

/* recv() one message within @p ms: its length, 0 closed, -1 with errno (ETIMEDOUT). */
static ssize_t
lnetctl_recv_within(int fd, void *buf, size_t len, long ms)
{
	long until = lnetctl_now_ms() + ms;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		long left = until - lnetctl_now_ms();
		int n;

		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		n = poll(&pfd, 1, (int)(left > 1000000 ? 1000000 : left));
		if (n > 0) {
			return recv(fd, buf, len, 0);
		}
		if (n < 0 && errno != EINTR) {
			return -1;
		}
	}
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
		    lnetctl_recv_within(fd, hello, sizeof(hello), lnetctl_reply_ms_default()) > 0) {
			c->fd = fd;
			c->reply_ms = lnetctl_reply_ms_default();
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

/* After a reply that did not come: the same daemon again, past its greeting. */
static int
lnetctl_reconnect(struct lnetctl_conn *c)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char hello[1024];
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	if (fd < 0) {
		return -errno;
	}
	memcpy(sun.sun_path, c->path, sizeof(sun.sun_path) - 1);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    lnetctl_recv_within(fd, hello, sizeof(hello), c->reply_ms) <= 0) {
		close(fd);
		return -ECONNRESET;
	}
	c->fd = fd;
	return 0;
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
lnetctl_parse_reply(const char *json, size_t len, yaml_document_t *doc, char *err, size_t errlen)
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
lnetctl_request(struct lnetctl_conn *c, const char *cmd, const char *params, yaml_document_t *doc,
		char *err, size_t errlen)
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
	if (c->fd < 0 && lnetctl_reconnect(c) != 0) {
		snprintf(err, errlen, "lost the connection to lnetd-pmd (%s)", c->path);
		free(reply);
		return -ECONNRESET;
	}
	if (n >= (ssize_t)sizeof(req) || send(c->fd, req, (size_t)n, 0) != n ||
	    (n = lnetctl_recv_within(c->fd, reply, LNETCTL_MAX_REPLY, c->reply_ms)) <= 0) {
		rc = n < 0 && errno == ETIMEDOUT ? -ETIMEDOUT : -ECONNRESET;
		if (rc == -ETIMEDOUT) {
			snprintf(err, errlen, "lnetd-pmd did not answer within %ld s (%s)",
				 (c->reply_ms + 999) / (long)LNP_MS_PER_S, c->path);
			lnetctl_close(c); /* its late answer must not be read as the next one's */
		} else {
			snprintf(err, errlen, "lost the connection to lnetd-pmd (%s)", c->path);
		}
		free(reply);
		return rc;
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
		snprintf(err, errlen,
			 "lnetd-pmd could not carry this out (a daemon older than "
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
	v = yaml_document_get_node(&doc, yaml_document_get_root_node(&doc)
						 ->data.mapping.pairs.start->value);
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
	*value = yaml_document_get_node(doc, yaml_document_get_root_node(doc)
						     ->data.mapping.pairs.start->value);
	status = lnetctl_scalar(lnetctl_map_get(doc, *value, "status"));
	rc = status != NULL ? atoi(status) : -EPROTO;
	if (rc != 0) {
		descr = lnetctl_scalar(lnetctl_map_get(doc, *value, "descr"));
		lnetctl_print_error(verb, object, rc, descr != NULL ? descr : "refused");
		yaml_document_delete(doc);
	}
	return rc;
}
