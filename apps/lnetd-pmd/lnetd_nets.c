/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local NIs from the configuration model: the one place that turns a
 * `net add` request or a config file's NI into a running NI, and a
 * `net del` into deleted ones. Defaults are ksocklnd's (lnet-facts §4.9).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "lnet_ctl.h"
#include "lnetd.h"
#include "socklnd.h"

#define LNETD_MAX_NIS 64

/* socklnd options every tcp NI starts from (daemon options --accept-port, --accept, --enable-csum). */
static struct socklnd_opts g_lnetd_socklnd = SOCKLND_OPTS_DEFAULT;

void
lnetd_socklnd_opts_set(uint16_t port, int accept, bool enable_csum)
{
	g_lnetd_socklnd.port = port;
	g_lnetd_socklnd.accept = (enum socklnd_accept)accept;
	g_lnetd_socklnd.enable_csum = enable_csum ? 1 : g_lnetd_socklnd.enable_csum;
}

/* --socklnd: ksocklnd module parameters; tcp NIs added later start from them. */
int
lnetd_socklnd_params(const char *list, char *err, size_t errlen)
{
	return socklnd_params_parse(&g_lnetd_socklnd, list, err, errlen);
}

unsigned int
lnetd_socklnd_params_list(struct socklnd_param_value *out, unsigned int max)
{
	return socklnd_params_list(&g_lnetd_socklnd, out, max);
}

static bool
lnetd_ifaddr_is_nid(const struct cfs_ifaddr *a, const struct lnet_nid *nid)
{
	if (a->family == AF_INET && nid->nid_size == 0) {
		return a->ipv4 == ntohl(nid->nid_addr[0]);
	}
	return a->family == AF_INET6 && nid->nid_size == 12 &&
	       memcmp(a->ipv6, nid->nid_addr, sizeof(a->ipv6)) == 0;
}

/*
 * The NID of @p net on @p ifname: its IPv4 address, or else its first
 * IPv6 address that is not link-local (a large NID: socklnd V4).
 */
int
lnetd_if_nid(const char *ifname, uint32_t net, struct lnet_nid *nid)
{
	struct cfs_ifaddr *ifs = NULL;
	const struct cfs_ifaddr *v6 = NULL;
	unsigned int n = 0;
	unsigned int i;
	int rc = cfs_ifaddrs_get(&ifs, &n);

	for (i = 0; rc == 0 && i < n; i++) {
		if (strcmp(ifs[i].name, ifname) != 0) {
			continue;
		}
		if (ifs[i].family == AF_INET) {
			lnet_nid4_to_nid(LNET_MKNID(net, ifs[i].ipv4), nid);
			free(ifs);
			return 0;
		}
		if (v6 == NULL && ifs[i].family == AF_INET6 &&
		    !(ifs[i].ipv6[0] == 0xfe && (ifs[i].ipv6[1] & 0xc0) == 0x80)) {
			v6 = &ifs[i];
		}
	}
	if (v6 != NULL) {
		memset(nid, 0, sizeof(*nid));
		nid->nid_size = 12;
		nid->nid_type = (uint8_t)LNET_NETTYP(net);
		nid->nid_num = htons((uint16_t)LNET_NETNUM(net));
		memcpy(nid->nid_addr, v6->ipv6, sizeof(v6->ipv6));
	}
	free(ifs);
	return v6 != NULL ? 0 : -ENODEV;
}

/* The interface that holds @p nid's address, as the kernel names a NI added by --nid. */
static void
lnetd_if_of_nid(const struct lnet_nid *nid, char *ifname, size_t len)
{
	struct cfs_ifaddr *ifs = NULL;
	unsigned int n = 0;
	unsigned int i;

	ifname[0] = '\0';
	if (cfs_ifaddrs_get(&ifs, &n) != 0) {
		return;
	}
	for (i = 0; i < n; i++) {
		if (lnetd_ifaddr_is_nid(&ifs[i], nid)) {
			snprintf(ifname, len, "%s", ifs[i].name);
			break;
		}
	}
	free(ifs);
}

static int
lnetd_or(int v, int dflt)
{
	return v == LNETCFG_UNSET || (v == 0 && dflt > 0) ? dflt : v;
}

static int
lnetd_ni_resolve(const struct lnetcfg_ni *spec, struct lnet_nid *nid, char *ifname, size_t len,
		 char *err, size_t errlen)
{
	ifname[0] = '\0';
	if (spec->has_nid) {
		*nid = spec->nid;
		if (spec->ifname[0] != '\0') {
			snprintf(ifname, len, "%s", spec->ifname);
		} else {
			lnetd_if_of_nid(nid, ifname, len);
		}
		return 0;
	}
	if (lnetd_if_nid(spec->ifname, spec->net, nid) != 0) {
		snprintf(err, errlen, "interface %s has no IPv4 or global IPv6 address", spec->ifname);
		return -ENODEV;
	}
	snprintf(ifname, len, "%s", spec->ifname);
	return 0;
}

/* Everything lnet_ctl_ni_add() needs, checked; nothing changes. */
struct lnetd_ni_plan {
	struct lnet_nid nid;
	char ifname[LNET_CTL_IFNAMSIZ];
	struct lnet_ctl_ni_tunables tun;
	struct socklnd_opts opts;
	unsigned int cpt;
};

static int
lnetd_ni_plan(const struct lnetcfg_ni *spec, struct lnetd_ni_plan *p, char *err, size_t errlen)
{
	int ncpts = lnet_ctl_ncpts();
	int rc;

	if (LNET_NETTYP(spec->net) != LNET_LND_SOCK) {
		snprintf(err, errlen, "net %s: no such LND in this build (only tcp)",
			 libcfs_net2str(spec->net));
		return -EOPNOTSUPP;
	}
	if (ncpts < 0) {
		return ncpts;
	}
	rc = lnetd_ni_resolve(spec, &p->nid, p->ifname, sizeof(p->ifname), err, errlen);
	if (rc != 0) {
		return rc;
	}
	p->tun.peer_timeout = lnetd_or(spec->peer_timeout, 180);
	p->tun.peer_credits = lnetd_or(spec->peer_credits, 8);
	p->tun.peer_buffer_credits = lnetd_or(spec->peer_buffer_credits, 0);
	p->tun.credits = lnetd_or(spec->credits, 256);
	p->opts = g_lnetd_socklnd;
	/* lnd tunables not given: the module parameters' (--socklnd) */
	p->opts.conns_per_peer = lnetd_or(spec->conns_per_peer, g_lnetd_socklnd.conns_per_peer);
	p->opts.timeout = lnetd_or(spec->lnd_timeout, g_lnetd_socklnd.timeout);
	p->opts.tos = spec->tos == LNETCFG_UNSET ? g_lnetd_socklnd.tos : spec->tos;
	rc = socklnd_opts_check(&p->opts);
	if (rc != 0) {
		snprintf(err, errlen, "lnd tunables out of range (conns_per_peer 0-127, timeout >= 0, "
			 "tos -1-255)");
		return rc;
	}
	p->cpt = spec->cpt == LNETCFG_UNSET ? lnet_nid_cpt_hash(&p->nid, (unsigned int)ncpts) :
					      (unsigned int)spec->cpt;
	if (p->cpt >= (unsigned int)ncpts) {
		snprintf(err, errlen, "CPT %u does not exist (%d CPTs)", p->cpt, ncpts);
		return -EINVAL;
	}
	return 0;
}

int
lnetd_ni_check(const struct lnetcfg_ni *spec, char *err, size_t errlen)
{
	struct lnetd_ni_plan p;

	return lnetd_ni_plan(spec, &p, err, errlen);
}

int
lnetd_ni_add(const struct lnetcfg_ni *spec, char *err, size_t errlen)
{
	struct lnetd_ni_plan p;
	int rc = lnetd_ni_plan(spec, &p, err, errlen);

	return rc != 0 ? rc : lnet_ctl_ni_add(&p.nid, p.ifname, &p.tun, &p.opts, p.cpt, err,
					      errlen);
}

int
lnetd_ni_del(uint32_t net, const char *ifname, const struct lnet_nid *nid, char *err,
	     size_t errlen)
{
	struct lnet_ctl_ni *nis = calloc(LNETD_MAX_NIS, sizeof(*nis));
	int n = nis != NULL ? lnet_ctl_ni_list(nis, LNETD_MAX_NIS) : -ENOMEM;
	int deleted = 0;
	int rc = 0;
	int i;

	if (LNET_NETTYP(net) == LNET_LND_LO) {
		free(nis);
		snprintf(err, errlen, "the loopback network cannot be deleted");
		return -EINVAL;
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (nis[i].net != net || (ifname != NULL && strcmp(nis[i].ifname, ifname) != 0) ||
		    (nid != NULL && !lnet_nid_same(&nis[i].nid, nid))) {
			continue;
		}
		rc = lnet_ctl_ni_del(&nis[i].nid, err, errlen);
		deleted++;
	}
	free(nis);
	if (n < 0) {
		return n;
	}
	if (rc == 0 && deleted == 0) {
		snprintf(err, errlen, "no such NI on net %s", libcfs_net2str(net));
		return -ENOENT;
	}
	return rc;
}
