/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration files (lnetd-pmd --config, lnetctl import): any bytes give
 * a model or located errors, never a crash; what the model holds is
 * consistent with what the parser promises.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lnetcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned int g_reports;

static void
count_report(void *arg, const char *msg)
{
	(void)arg;
	if (strchr(msg, ':') == NULL) {
		abort(); /* every error names where it is */
	}
	g_reports++;
}

/* lnetctl import's reading: section by section, in file order; the first error stops it. */
static int
one_section(struct lnetcfg *cfg, const char *name, void *arg)
{
	(void)arg;
	if (name == NULL || cfg->npeers > cfg->peers_cap || cfg->nnis > cfg->nis_cap ||
	    cfg->nudsps > cfg->udsps_cap || cfg->nroutes > cfg->routes_cap) {
		abort();
	}
	return cfg->nerrors > 0 ? -EINVAL : 0;
}

/*
 * The same bytes as import reads them (with and without --exec, by the
 * first byte): sections whole or cut by a syntax error, never a crash;
 * a syntax error reached is -EINVAL.
 */
static void
by_sections(const uint8_t *data, size_t size)
{
	struct lnetcfg cfg;
	int rc;

	lnetcfg_init(&cfg, "fuzz", NULL, NULL);
	cfg.section = one_section;
	cfg.import_exec = size > 0 && (data[0] & 1) != 0;
	rc = lnetcfg_parse(&cfg, (const char *)data, size);
	if (cfg.syntax && rc != -EINVAL) {
		abort();
	}
	lnetcfg_fini(&cfg);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lnetcfg cfg;
	unsigned int i;
	int rc;

	g_reports = 0;
	lnetcfg_init(&cfg, "fuzz", count_report, NULL);
	rc = lnetcfg_parse(&cfg, (const char *)data, size);
	if ((rc == 0) != (cfg.nerrors == 0) || g_reports != cfg.nerrors) {
		abort();
	}
	for (i = 0; i < cfg.nnis; i++) {
		const struct lnetcfg_ni *ni = &cfg.nis[i];

		if ((!ni->has_nid && ni->ifname[0] == '\0') ||
		    (ni->has_nid && lnet_nid_net(&ni->nid) != ni->net) ||
		    strnlen(ni->ifname, sizeof(ni->ifname)) == sizeof(ni->ifname) ||
		    (ni->tos != LNETCFG_UNSET && (ni->tos < -1 || ni->tos > 255))) {
			abort();
		}
	}
	for (i = 0; i < cfg.npeers; i++) {
		if (cfg.peers[i].nnis > LNETCFG_PEER_NIS || lnet_nid_is_any(&cfg.peers[i].prim)) {
			abort();
		}
	}
	/* udsp: rules the kernel's lnetctl would send: a descriptor at least, parsable, not src with rte */
	for (i = 0; i < cfg.nudsps; i++) {
		const struct lnetcfg_udsp *u = &cfg.udsps[i];
		const char *const d[3] = { u->src, u->dst, u->rte };
		unsigned int j;
		unsigned int n = 0;

		for (j = 0; j < 3; j++) {
			if (strnlen(d[j], LNETCFG_UDSP_DESCR_LEN) == LNETCFG_UDSP_DESCR_LEN ||
			    (d[j][0] != '\0' && !lnetcfg_udsp_descr_ok(d[j]))) {
				abort();
			}
			n += d[j][0] != '\0';
		}
		if (n == 0 || (u->src[0] != '\0' && u->rte[0] != '\0') || u->idx < -1 ||
		    u->priority < -1 || u->priority > INT32_MAX) {
			abort();
		}
	}
	lnetcfg_fini(&cfg);
	by_sections(data, size);
	return 0;
}
