/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ko2iblnd's module parameters (o2iblnd_params.h). The ranges are ours
 * where the kernel checks none (it takes any int); ib_mtu's rule and
 * map_on_demand's rewrite are the kernel's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "o2iblnd_params.h"

struct o2iblnd_param {
	const char *name;
	size_t offset; /* an int in struct o2iblnd_opts */
	int min;
	int max;
};

#define P(n, lo, hi)                                         \
	{                                                    \
#n, offsetof(struct o2iblnd_opts, n), lo, hi \
	}

/* In ko2iblnd's declaration order. */
static const struct o2iblnd_param o2iblnd_params[] = {
	P(service, 1, 65535),
	P(cksum, 0, 1),
	P(timeout, 0, 3600),
	P(conns_per_peer, 1, 127),
	P(ntx, 1, 65536),
	P(peer_credits_hiw, 0, 255),
	P(retry_count, 0, 7),
	P(rnr_retry_count, 0, 7),
	P(keepalive, 0, 3600),
	P(ib_mtu, 0, 4096),
	P(concurrent_sends, 0, 510),
	P(use_fastreg_gaps, 0, 1),
	P(map_on_demand, 0, 256),
	P(fmr_pool_size, 1, 65536),
	P(fmr_flush_trigger, 1, 65536),
	P(fmr_cache, 0, 1),
	P(require_privileged_port, 0, 1),
	P(use_privileged_port, 0, 1),
	P(wrq_sge, 1, 30),
	P(tos, -1, 255),
};

#define O2IBLND_NPARAMS (sizeof(o2iblnd_params) / sizeof(o2iblnd_params[0]))

struct o2iblnd_param_na {
	const char *name;
	const char *why;
};

static const struct o2iblnd_param_na o2iblnd_params_na[] = {
	{ "nscheds", "no scheduler threads: each NI is polled by its CPT's data lcore" },
	{ "ipif_name", "an NI's interface is given when it is added: lnetctl net add --if" },
	{ "dev_failover", "no HCA failover: one device per NI" },
	{ "credits", "an NI tunable: lnetctl net add --credits" },
	{ "peer_credits", "an NI tunable: lnetctl net add --peer-credits" },
	{ "peer_buffer_credits", "an NI tunable: lnetctl net add --peer-buffer-credits" },
	{ "peer_timeout", "an NI tunable: lnetctl net add --peer-timeout" },
};

/*
 * The module parameters: the defaults of every NI started from now on.
 * Written by o2iblnd_params_set() before NIs are added (lnetd-pmd's main
 * thread at start-up), read by NI start-up on the management lcore.
 */
static struct o2iblnd_opts g_o2iblnd_params = O2IBLND_OPTS_DEFAULT;

static int *
o2iblnd_field(struct o2iblnd_opts *o, const struct o2iblnd_param *p)
{
	return (int *)((char *)o + p->offset);
}

static bool
ib_mtu_ok(long v)
{
	return v == 0 || v == 256 || v == 512 || v == 1024 || v == 2048 || v == 4096;
}

int
o2iblnd_param_set(struct o2iblnd_opts *o, const char *name, long value, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < O2IBLND_NPARAMS; i++) {
		const struct o2iblnd_param *p = &o2iblnd_params[i];

		if (strcmp(name, p->name) != 0) {
			continue;
		}
		if (value < p->min || value > p->max) {
			snprintf(err, errlen, "o2iblnd parameter %s: %ld is out of range %d-%d",
				 name, value, p->min, p->max);
			return -EINVAL;
		}
		if (strcmp(name, "ib_mtu") == 0 && !ib_mtu_ok(value)) {
			snprintf(err, errlen,
				 "o2iblnd parameter ib_mtu: %ld, expected 0 or "
				 "256/512/1024/2048/4096",
				 value);
			return -EINVAL;
		}
		if (strcmp(name, "map_on_demand") == 0 && value == 0) {
			value = 1; /* no global MR: every buffer is mapped, as the kernel forces */
		}
		*o2iblnd_field(o, p) = (int)value;
		return 0;
	}
	for (i = 0; i < sizeof(o2iblnd_params_na) / sizeof(o2iblnd_params_na[0]); i++) {
		if (strcmp(name, o2iblnd_params_na[i].name) == 0) {
			snprintf(err, errlen, "o2iblnd parameter %s is not supported: %s", name,
				 o2iblnd_params_na[i].why);
			return -EOPNOTSUPP;
		}
	}
	snprintf(err, errlen, "no o2iblnd parameter %s", name);
	return -ENOENT;
}

/* "NAME=VALUE" cut at '=': the name in @p item, the number in @p v. */
static int
o2iblnd_param_value(char *item, long *v, char *err, size_t errlen)
{
	char *eq = strchr(item, '=');
	char *end = NULL;

	if (eq == NULL || eq == item || eq[1] == '\0') {
		snprintf(err, errlen, "o2iblnd parameter \"%s\": NAME=VALUE expected", item);
		return -EINVAL;
	}
	*eq = '\0';
	*v = strtol(eq + 1, &end, 0);
	if (*end != '\0') {
		snprintf(err, errlen, "o2iblnd parameter %s: \"%s\" is not a number", item, eq + 1);
		return -EINVAL;
	}
	return 0;
}

int
o2iblnd_params_parse(struct o2iblnd_opts *o, const char *list, char *err, size_t errlen)
{
	struct o2iblnd_opts next = *o;
	char *copy = strdup(list);
	char *save = NULL;
	char *item;
	int rc = copy == NULL ? -ENOMEM : 0;

	if (copy != NULL && copy[0] == '\0') {
		snprintf(err, errlen, "o2iblnd parameters: NAME=VALUE[,NAME=VALUE...] expected");
		rc = -EINVAL;
	}
	for (item = rc == 0 ? strtok_r(copy, ",", &save) : NULL; rc == 0 && item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		long v = 0;

		rc = o2iblnd_param_value(item, &v, err, errlen);
		if (rc == 0) {
			rc = o2iblnd_param_set(&next, item, v, err, errlen);
		}
	}
	free(copy);
	if (rc == 0) {
		*o = next;
	}
	return rc;
}

unsigned int
o2iblnd_params_list(const struct o2iblnd_opts *o, struct lnet_lnd_param *out, unsigned int max)
{
	unsigned int n = 0;

	for (size_t i = 0; i < O2IBLND_NPARAMS && n < max; i++, n++) {
		out[n].name = o2iblnd_params[i].name;
		out[n].value = *(const int *)((const char *)o + o2iblnd_params[i].offset);
		out[n].str = NULL;
	}
	return n;
}

int
o2iblnd_params_set(const char *list, char *err, size_t errlen)
{
	return o2iblnd_params_parse(&g_o2iblnd_params, list, err, errlen);
}

unsigned int
o2iblnd_params_get(struct lnet_lnd_param *out, unsigned int max)
{
	return o2iblnd_params_list(&g_o2iblnd_params, out, max);
}

void
o2iblnd_params_reset(void)
{
	static const struct o2iblnd_opts defaults = O2IBLND_OPTS_DEFAULT;

	g_o2iblnd_params = defaults;
}

void
o2iblnd_params_current(struct o2iblnd_opts *out)
{
	*out = g_o2iblnd_params;
}

void
o2iblnd_credit_tunables(const struct o2iblnd_opts *o, int credits, int peer_credits,
			struct o2ib_credit_tunables *out)
{
	*out = (struct o2ib_credit_tunables){ credits, peer_credits, o->peer_credits_hiw,
					      o->concurrent_sends };
	o2ib_tunables_fix(out);
}

/* An lnd tunable key and the module parameter it overrides. */
struct o2iblnd_tun_key {
	const char *key;
	const char *param;
	bool ignored; /* taken and dropped, as the kernel does */
};

/* In the order the kernel's net show -v prints them. */
static const struct o2iblnd_tun_key o2iblnd_tun_keys[] = {
	{ "peercredits_hiw", "peer_credits_hiw", false },
	{ "map_on_demand", "map_on_demand", true },
	{ "concurrent_sends", "concurrent_sends", false },
	{ "fmr_pool_size", "fmr_pool_size", false },
	{ "fmr_flush_trigger", "fmr_flush_trigger", false },
	{ "fmr_cache", "fmr_cache", false },
	{ "ntx", "ntx", false },
	{ "conns_per_peer", "conns_per_peer", false },
	{ "timeout", "timeout", true },
	{ "tos", "tos", false },
};

#define O2IBLND_NTUN (sizeof(o2iblnd_tun_keys) / sizeof(o2iblnd_tun_keys[0]))

static const struct o2iblnd_param *
o2iblnd_param_find(const char *name)
{
	for (size_t i = 0; i < O2IBLND_NPARAMS; i++) {
		if (strcmp(o2iblnd_params[i].name, name) == 0) {
			return &o2iblnd_params[i];
		}
	}
	return NULL;
}

static int
o2iblnd_ni_tunable(struct o2iblnd_opts *o, const struct lnet_ctl_lnd_tunable *t, char *err,
		   size_t errlen)
{
	for (size_t i = 0; i < O2IBLND_NTUN; i++) {
		const struct o2iblnd_tun_key *k = &o2iblnd_tun_keys[i];
		const struct o2iblnd_param *p = o2iblnd_param_find(k->param);

		if (strcmp(t->key, k->key) != 0) {
			continue;
		}
		if (k->ignored || t->value == 0 || (strcmp(k->key, "tos") == 0 && t->value < 0)) {
			return 0; /* the module's value stays */
		}
		if (t->value < p->min || t->value > p->max) {
			snprintf(err, errlen, "lnd tunable %s: %d is out of range %d-%d", t->key,
				 t->value, p->min, p->max);
			return -EINVAL;
		}
		*o2iblnd_field(o, p) = t->value;
		return 0;
	}
	snprintf(err, errlen, "the o2ib LND has no lnd tunable %s", t->key);
	return -ENOENT;
}

int
o2iblnd_ni_opts(const struct lnet_ctl_lnd_tunables *tun, struct o2iblnd_opts *out, char *err,
		size_t errlen)
{
	char buf[160];
	int rc = 0;

	if (err == NULL) {
		err = buf;
		errlen = sizeof(buf);
	}
	*out = g_o2iblnd_params;
	for (unsigned int i = 0; tun != NULL && i < tun->n && i < LNET_CTL_LND_TUNABLES && rc == 0;
	     i++) {
		rc = o2iblnd_ni_tunable(out, &tun->t[i], err, errlen);
	}
	return rc;
}

int
o2iblnd_ni_check(const struct lnet_ctl_lnd_tunables *tun, char *err, size_t errlen)
{
	struct o2iblnd_opts o;

	return o2iblnd_ni_opts(tun, &o, err, errlen);
}

unsigned int
o2iblnd_ni_tunables(const struct o2iblnd_opts *o, int timeout_s, struct lnet_ctl_lnd_tunable *out,
		    unsigned int max)
{
	unsigned int n = 0;

	for (size_t i = 0; i < O2IBLND_NTUN && n < max; i++, n++) {
		const struct o2iblnd_tun_key *k = &o2iblnd_tun_keys[i];

		out[n].key = k->key;
		if (strcmp(k->key, "map_on_demand") == 0) {
			out[n].value = 1; /* obsolete: always shown as 1 */
		} else if (strcmp(k->key, "timeout") == 0) {
			out[n].value = timeout_s;
		} else {
			out[n].value = *(const int *)((const char *)o +
						      o2iblnd_param_find(k->param)->offset);
		}
	}
	return n;
}
