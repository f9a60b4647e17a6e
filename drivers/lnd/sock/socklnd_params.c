/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ksocklnd's module parameters (lnet-facts §4.9) by their kernel names:
 * the ones this LND honours, with their ranges, and the ones that mean
 * nothing here, with the reason, so that a configuration carried over
 * from a kernel node gets a clear answer for each.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "socklnd.h"

struct socklnd_param {
	const char *name;
	size_t offset;           /* an int in struct socklnd_opts */
	int min;
	int max;
};

#define P(n, f, lo, hi) { n, offsetof(struct socklnd_opts, f), lo, hi }

static const struct socklnd_param socklnd_params[] = {
	P("sock_timeout", timeout, 0, 3600),
	P("conns_per_peer", conns_per_peer, 0, 127),
	P("tos", tos, -1, 255),
	P("min_bulk", min_bulk, 0, 1 << 20),
	P("typed_conns", typed_conns, 0, 1),
	P("nagle", nagle, 0, 1),
	P("enable_csum", enable_csum, 0, 1),
	P("keepalive", keepalive, 0, 3600),
	P("keepalive_idle", keepalive_idle, 0, 32767),
	P("keepalive_intvl", keepalive_intvl, 0, 32767),
	P("keepalive_count", keepalive_count, 0, 127),
	P("min_reconnectms", min_reconnectms, 1, 3600000),
	P("max_reconnectms", max_reconnectms, 1, 3600000),
	P("tx_buffer_size", tx_buffer_size, 0, 1 << 30),
	P("rx_buffer_size", rx_buffer_size, 0, 1 << 30),
};

struct socklnd_param_na {
	const char *name;
	const char *why;
};

static const struct socklnd_param_na socklnd_params_na[] = {
	{ "nscheds", "no scheduler threads: each NI is polled by its CPT's data lcore" },
	{ "nconnds", "no connection daemons: connects are non-blocking, all in parallel" },
	{ "nconnds_max", "no connection daemons: connects are non-blocking, all in parallel" },
	{ "round_robin", "one data lcore per NI: no scheduler to rotate" },
	{ "eager_ack", "no zero-copy sends, so no ACKs to hurry" },
	{ "nonblk_zcack", "no zero-copy sends, so no ZC-ACKs of ours" },
	{ "zc_min_payload", "no zero-copy sends (peers' ZC requests are answered)" },
	{ "zc_recv", "no zero-copy receive" },
	{ "zc_recv_min_nfrags", "no zero-copy receive" },
	{ "skip_mr_route_setup", "no kernel routes are set up" },
	{ "inject_csum_error", "not built: use a raw peer to send bad sums" },
	{ "credits", "an NI tunable: lnetctl net add --credits" },
	{ "peer_credits", "an NI tunable: lnetctl net add --peer-credits" },
	{ "peer_buffer_credits", "an NI tunable: lnetctl net add --peer-buffer-credits" },
	{ "peer_timeout", "an NI tunable: lnetctl net add --peer-timeout" },
};

static int *
socklnd_param_field(struct socklnd_opts *o, const struct socklnd_param *p)
{
	return (int *)((char *)o + p->offset);
}

int
socklnd_param_set(struct socklnd_opts *o, const char *name, long value, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < sizeof(socklnd_params) / sizeof(socklnd_params[0]); i++) {
		const struct socklnd_param *p = &socklnd_params[i];

		if (strcmp(name, p->name) != 0) {
			continue;
		}
		if (value < p->min || value > p->max) {
			snprintf(err, errlen, "socklnd parameter %s: %ld is out of range %d-%d", name,
				 value, p->min, p->max);
			return -EINVAL;
		}
		*socklnd_param_field(o, p) = (int)value;
		return 0;
	}
	for (i = 0; i < sizeof(socklnd_params_na) / sizeof(socklnd_params_na[0]); i++) {
		if (strcmp(name, socklnd_params_na[i].name) == 0) {
			snprintf(err, errlen, "socklnd parameter %s is not supported: %s", name,
				 socklnd_params_na[i].why);
			return -EOPNOTSUPP;
		}
	}
	snprintf(err, errlen, "no socklnd parameter %s", name);
	return -ENOENT;
}

int
socklnd_params_parse(struct socklnd_opts *o, const char *list, char *err, size_t errlen)
{
	struct socklnd_opts next = *o;
	char *copy = strdup(list);
	char *save = NULL;
	char *item;
	int rc = copy == NULL ? -ENOMEM : 0;

	for (item = copy != NULL ? strtok_r(copy, ",", &save) : NULL; rc == 0 && item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		char *end = NULL;
		long v;

		if (eq == NULL || eq[1] == '\0') {
			snprintf(err, errlen, "socklnd parameter \"%s\": NAME=VALUE expected", item);
			rc = -EINVAL;
			break;
		}
		*eq = '\0';
		v = strtol(eq + 1, &end, 0);
		if (*end != '\0') {
			snprintf(err, errlen, "socklnd parameter %s: \"%s\" is not a number", item, eq + 1);
			rc = -EINVAL;
			break;
		}
		rc = socklnd_param_set(&next, item, v, err, errlen);
	}
	if (rc == 0 && next.min_reconnectms > next.max_reconnectms) {
		snprintf(err, errlen, "socklnd parameters: min_reconnectms above max_reconnectms");
		rc = -EINVAL;
	}
	free(copy);
	if (rc == 0) {
		*o = next;
	}
	return rc;
}

unsigned int
socklnd_params_list(const struct socklnd_opts *o, struct socklnd_param_value *out, unsigned int max)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < sizeof(socklnd_params) / sizeof(socklnd_params[0]) && n < max; i++) {
		out[n].name = socklnd_params[i].name;
		out[n].value = *(const int *)((const char *)o + socklnd_params[i].offset);
		n++;
	}
	return n;
}
