/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ksocklnd's module parameters (lnet-facts §4.9) by their kernel names:
 * the ones this LND honours, with their ranges, and the ones that mean
 * nothing here, with the reason, so that a configuration carried over
 * from a kernel node gets a clear answer for each. LNet's acceptor
 * parameters accept_port and accept are taken too: the acceptor is the
 * socklnd's here. The LND keeps its module parameters (the defaults of
 * every NI started later) and parses them itself, as a DPDK driver parses
 * its devargs; the daemon passes --socklnd through lnet_lnd_ops.params_set.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "socklnd_params.h"

struct socklnd_param {
	const char *name;
	size_t offset; /* an int in struct socklnd_opts */
	int min;
	int max;
	const char *const *names; /* named values min..max (accept); NULL: a number */
};

static const char *const socklnd_accept_names[] = { "secure", "all", "none", NULL };

#define P(n, f, lo, hi)                                           \
	{                                                         \
		n, offsetof(struct socklnd_opts, f), lo, hi, NULL \
	}

/* In /lnet/socklnd_params order: new ones go at the end. */
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
	P("accept_port", port, 1, 65535),
	{ "accept", offsetof(struct socklnd_opts, accept), SOCKLND_ACCEPT_SECURE,
	  SOCKLND_ACCEPT_NONE, socklnd_accept_names },
};

#define SOCKLND_NPARAMS (sizeof(socklnd_params) / sizeof(socklnd_params[0]))

/*
 * The module parameters: what every NI started from now on begins with.
 * Written by socklnd_params_set() before NIs are added (lnetd-pmd's main
 * thread at start-up, or an embedding application), read by NI start-up
 * on the management lcore and by telemetry.
 */
static struct socklnd_opts g_socklnd_params = SOCKLND_OPTS_DEFAULT;

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
			snprintf(err, errlen, "socklnd parameter %s: %ld is out of range %d-%d",
				 name, value, p->min, p->max);
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

static const struct socklnd_param *
socklnd_param_find(const char *name)
{
	size_t i;

	for (i = 0; i < SOCKLND_NPARAMS; i++) {
		if (strcmp(name, socklnd_params[i].name) == 0) {
			return &socklnd_params[i];
		}
	}
	return NULL;
}

/* "NAME=VALUE" (cut at '='): its number, or the index of its named value. */
static int
socklnd_param_value(char *item, long *v, char *err, size_t errlen)
{
	char *eq = strchr(item, '=');
	const struct socklnd_param *p;
	char *end = NULL;
	int i;

	if (eq == NULL || eq[1] == '\0' || eq == item) {
		snprintf(err, errlen, "socklnd parameter \"%s\": NAME=VALUE expected", item);
		return -EINVAL;
	}
	*eq = '\0';
	p = socklnd_param_find(item);
	if (p != NULL && p->names != NULL) {
		for (i = 0; p->names[i] != NULL; i++) {
			if (strcmp(eq + 1, p->names[i]) == 0) {
				*v = p->min + i;
				return 0;
			}
		}
		snprintf(err, errlen,
			 "socklnd parameter %s: \"%s\" is not one of secure, all, none", item,
			 eq + 1);
		return -EINVAL;
	}
	*v = strtol(eq + 1, &end, 0);
	if (*end != '\0') {
		snprintf(err, errlen, "socklnd parameter %s: \"%s\" is not a number", item, eq + 1);
		return -EINVAL;
	}
	return 0;
}

int
socklnd_params_parse(struct socklnd_opts *o, const char *list, char *err, size_t errlen)
{
	struct socklnd_opts next = *o;
	char *copy = strdup(list);
	char *save = NULL;
	char *item;
	int rc = copy == NULL ? -ENOMEM : 0;

	if (copy != NULL && copy[0] == '\0') {
		snprintf(err, errlen, "socklnd parameters: NAME=VALUE[,NAME=VALUE...] expected");
		rc = -EINVAL;
	}
	for (item = rc == 0 ? strtok_r(copy, ",", &save) : NULL; rc == 0 && item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		long v = 0;

		rc = socklnd_param_value(item, &v, err, errlen);
		if (rc == 0) {
			rc = socklnd_param_set(&next, item, v, err, errlen);
		}
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
socklnd_params_list(const struct socklnd_opts *o, struct lnet_lnd_param *out, unsigned int max)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < SOCKLND_NPARAMS && n < max; i++) {
		const struct socklnd_param *p = &socklnd_params[i];

		out[n].name = p->name;
		out[n].value = *(const int *)((const char *)o + p->offset);
		out[n].str = p->names != NULL && out[n].value >= p->min && out[n].value <= p->max ?
				     p->names[out[n].value - p->min] :
				     NULL;
		n++;
	}
	return n;
}

/*
 * NI options as the module parameters bound them, and the reconnect
 * backoff's floor under its ceiling. conns_per_peer 0 is the kernel's
 * "auto" (from the link speed: 1 under 10 Gb/s); we do not read link
 * speeds and take 1. timeout 0 is LNet's lnd_timeout (socklnd_timeout_us),
 * as ksocklnd's.
 */
int
socklnd_opts_check(const struct socklnd_opts *o)
{
	static const struct socklnd_opts defaults = SOCKLND_OPTS_DEFAULT;
	struct lnet_lnd_param want[32];
	unsigned int n = socklnd_params_list(o, want, 32);
	struct socklnd_opts probe = defaults;
	char err[128];
	unsigned int i;

	/* Every value within its parameter's range, as socklnd_param_set() checks them. */
	for (i = 0; i < n; i++) {
		if (socklnd_param_set(&probe, want[i].name, want[i].value, err, sizeof(err)) != 0) {
			return -EINVAL;
		}
	}
	return o->min_reconnectms <= o->max_reconnectms ? 0 : -EINVAL;
}

int
socklnd_params_set(const char *list, char *err, size_t errlen)
{
	return socklnd_params_parse(&g_socklnd_params, list, err, errlen);
}

unsigned int
socklnd_params_get(struct lnet_lnd_param *out, unsigned int max)
{
	return socklnd_params_list(&g_socklnd_params, out, max);
}

void
socklnd_params_reset(void)
{
	static const struct socklnd_opts defaults = SOCKLND_OPTS_DEFAULT;

	g_socklnd_params = defaults;
}

/* One lnd tunable of a NI into @p o; 0 for conns_per_peer or timeout keeps the module's. */
static int
socklnd_ni_tunable(struct socklnd_opts *o, const struct lnet_ctl_lnd_tunable *t, char *err,
		   size_t errlen)
{
	static const struct {
		const char *key;
		const char *param; /* the module parameter it overrides */
		size_t offset;
		bool zero_is_default;
	} keys[] = {
		{ "conns_per_peer", "conns_per_peer", offsetof(struct socklnd_opts, conns_per_peer),
		  true },
		{ "timeout", "sock_timeout", offsetof(struct socklnd_opts, timeout), true },
		{ "tos", "tos", offsetof(struct socklnd_opts, tos), false },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct socklnd_param *p = socklnd_param_find(keys[i].param);

		if (strcmp(t->key, keys[i].key) != 0) {
			continue;
		}
		if (t->value == 0 && keys[i].zero_is_default) {
			return 0;
		}
		if (t->value < p->min || t->value > p->max) {
			snprintf(err, errlen, "lnd tunable %s: %d is out of range %d-%d", t->key,
				 t->value, p->min, p->max);
			return -EINVAL;
		}
		*(int *)((char *)o + keys[i].offset) = t->value;
		return 0;
	}
	snprintf(err, errlen, "the tcp LND has no lnd tunable %s (conns_per_peer, timeout, tos)",
		 t->key);
	return -ENOENT;
}

int
socklnd_ni_opts(const struct lnet_ctl_lnd_tunables *tun, struct socklnd_opts *out, char *err,
		size_t errlen)
{
	char buf[160];
	unsigned int i;
	int rc = 0;

	if (err == NULL) {
		err = buf;
		errlen = sizeof(buf);
	}
	*out = g_socklnd_params;
	for (i = 0; tun != NULL && i < tun->n && i < LNET_CTL_LND_TUNABLES && rc == 0; i++) {
		rc = socklnd_ni_tunable(out, &tun->t[i], err, errlen);
	}
	if (rc == 0 && socklnd_opts_check(out) != 0) {
		snprintf(err, errlen, "socklnd parameters out of range");
		rc = -EINVAL;
	}
	return rc;
}

int
socklnd_ni_check(const struct lnet_ctl_lnd_tunables *tun, char *err, size_t errlen)
{
	struct socklnd_opts o;

	return socklnd_ni_opts(tun, &o, err, errlen);
}
