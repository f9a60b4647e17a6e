/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local NIs from the configuration model: the one place that turns a
 * `net add` request or a config file's NI into a running NI, and a
 * `net del` into deleted ones. What an LND takes (its module parameters,
 * its lnd tunables, their defaults and ranges) is the LND's own business:
 * the daemon finds the LND registered for a net's type and hands it the
 * strings and values it was given (lnet_lnd_ops.params_set, ni_check).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "lnet_ctl.h"
#include "lnet_lnd.h"
#include "lnetd.h"

#define LNETD_MAX_NIS 64

const struct lnet_lnd_ops *
lnetd_lnd_by_name(const char *type_name, char *err, size_t errlen)
{
	int type = libcfs_str2lnd(type_name);
	const struct lnet_lnd_ops *lnd = type < 0 ? NULL : lnet_lnd_find((uint32_t)type);

	if (type < 0) {
		snprintf(err, errlen, "\"%s\" is not a net type (tcp, o2ib, ...)", type_name);
	} else if (lnd == NULL) {
		snprintf(err, errlen, "net type %s is not supported: no such LND in this build",
			 type_name);
	}
	return lnd;
}

/* --lnd-params TYPE:LIST, --socklnd LIST: module parameters of the LND of net type TYPE. */
int
lnetd_lnd_params(const char *type_name, const char *list, char *err, size_t errlen)
{
	const struct lnet_lnd_ops *lnd = lnetd_lnd_by_name(type_name, err, errlen);

	if (lnd == NULL) {
		return libcfs_str2lnd(type_name) < 0 ? -EINVAL : -EOPNOTSUPP;
	}
	if (lnd->params_set == NULL) {
		snprintf(err, errlen, "the %s LND takes no parameters", lnd->name);
		return -EOPNOTSUPP;
	}
	return lnd->params_set(list, err, errlen);
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
	uint32_t addr;
	int rc;

	/* A port of ours (ports:) first: the host's interfaces do not hold its address. */
	if (lnetd_port_addr(ifname, &addr)) {
		lnet_nid4_to_nid(LNET_MKNID(net, addr), nid);
		return 0;
	}
	rc = cfs_ifaddrs_get(&ifs, &n);
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
	const char *port = nid->nid_size == 0 ? lnetd_port_of_addr(ntohl(nid->nid_addr[0])) : NULL;

	ifname[0] = '\0';
	if (port != NULL) {
		snprintf(ifname, len, "%s", port); /* a port of ours holds it */
		return;
	}
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

/* An lnd tunable given in the configuration, by the key `net show -v` prints. */
static void
lnetd_lnd_tunable(struct lnet_ctl_lnd_tunables *t, const char *key, int v)
{
	if (v != LNETCFG_UNSET && t->n < LNET_CTL_LND_TUNABLES) {
		t->t[t->n].key = key;
		t->t[t->n].value = v;
		t->n++;
	}
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
	/* As ksocknal_startup(): an LND that cannot start on the interface is -ENETDOWN. */
	if (lnetd_if_nid(spec->ifname, spec->net, nid) != 0) {
		snprintf(err, errlen, "interface %s has no IPv4 or global IPv6 address",
			 spec->ifname);
		return -ENETDOWN;
	}
	snprintf(ifname, len, "%s", spec->ifname);
	return 0;
}

/* Everything lnet_ctl_ni_add() needs, checked; nothing changes. */
struct lnetd_ni_plan {
	struct lnet_nid nid;
	char ifname[LNET_CTL_IFNAMSIZ];
	struct lnet_ctl_ni_tunables tun;
	struct lnet_ctl_lnd_tunables lnd_tun;
	unsigned int cpt;
};

/*
 * The LND of @p net's type, one net add can add NIs to; NULL with @p err
 * saying why not (no such LND in this build: the net type is named).
 */
static const struct lnet_lnd_ops *
lnetd_ni_lnd(uint32_t net, char *err, size_t errlen)
{
	const char *type = libcfs_lnd2str((int)LNET_NETTYP(net));
	const struct lnet_lnd_ops *lnd = lnet_lnd_find(LNET_NETTYP(net));

	if (lnd == NULL) {
		if (type != NULL) {
			snprintf(err, errlen,
				 "net %s: net type %s is not supported: no such LND in this "
				 "build",
				 libcfs_net2str(net), type);
		} else {
			snprintf(err, errlen,
				 "net %s: net type %u is not supported: no such LND in this "
				 "build",
				 libcfs_net2str(net), LNET_NETTYP(net));
		}
	} else if ((lnd->caps & LNET_LND_CAP_BUILTIN) != 0) {
		snprintf(err, errlen, "net %s: its one NI is built in: it cannot be added",
			 libcfs_net2str(net));
		lnd = NULL;
	}
	return lnd;
}

static int
lnetd_ni_plan(const struct lnetcfg_ni *spec, struct lnetd_ni_plan *p, char *err, size_t errlen)
{
	const struct lnet_lnd_ops *lnd = lnetd_ni_lnd(spec->net, err, errlen);
	int ncpts = lnet_ctl_ncpts();
	int rc;

	if (lnd == NULL) {
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
	/* lnd tunables not given: the LND's module parameters' (--socklnd) */
	memset(&p->lnd_tun, 0, sizeof(p->lnd_tun));
	lnetd_lnd_tunable(&p->lnd_tun, "conns_per_peer", spec->conns_per_peer);
	lnetd_lnd_tunable(&p->lnd_tun, "timeout", spec->lnd_timeout);
	lnetd_lnd_tunable(&p->lnd_tun, "tos", spec->tos);
	if (lnd->ni_check != NULL) {
		rc = lnd->ni_check(&p->lnd_tun, err, errlen);
		if (rc != 0) {
			return rc;
		}
	} else if (p->lnd_tun.n > 0) {
		snprintf(err, errlen, "net %s: the %s LND takes no lnd tunables",
			 libcfs_net2str(spec->net), lnd->name);
		return -EINVAL;
	}
	p->cpt = spec->cpt == LNETCFG_UNSET ? lnet_nid_cpt_hash(&p->nid, (unsigned int)ncpts) :
					      (unsigned int)spec->cpt;
	if (p->cpt >= (unsigned int)ncpts) {
		/* lnet_genl_parse_local_ni()'s errno for a CPT past LNET_CPT_NUMBER */
		snprintf(err, errlen, "CPT %u does not exist (%d CPTs)", p->cpt, ncpts);
		return -ERANGE;
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

	return rc != 0 ? rc :
			 lnet_ctl_ni_add(&p.nid, p.ifname, &p.tun, &p.lnd_tun, p.cpt, err, errlen);
}

int
lnetd_ni_del(uint32_t net, const char *ifname, const struct lnet_nid *nid, bool push, char *err,
	     size_t errlen)
{
	const struct lnet_lnd_ops *lnd = lnet_lnd_find(LNET_NETTYP(net));
	struct lnet_ctl_ni *nis = calloc(LNETD_MAX_NIS, sizeof(*nis));
	int n = nis != NULL ? lnet_ctl_ni_list(nis, LNETD_MAX_NIS) : -ENOMEM;
	bool net_found = false;
	int deleted = 0;
	int rc = 0;
	int i;

	if (lnd != NULL && (lnd->caps & LNET_LND_CAP_BUILTIN) != 0) {
		free(nis);
		snprintf(err, errlen, "the %s network cannot be deleted: it lives as long as LNet",
			 lnd->name);
		return -EINVAL;
	}
	for (i = 0; i < n && rc == 0; i++) {
		net_found = net_found || nis[i].net == net;
		if (nis[i].net != net || (ifname != NULL && strcmp(nis[i].ifname, ifname) != 0) ||
		    (nid != NULL && !lnet_nid_same(&nis[i].nid, nid))) {
			continue;
		}
		rc = lnet_ctl_ni_remove(&nis[i].nid, push, err, errlen);
		deleted++;
	}
	free(nis);
	if (n < 0) {
		return n;
	}
	/* No such net (-ENODEV) told apart from no such NI on it, as the kernel's replies are. */
	if (rc == 0 && deleted == 0) {
		snprintf(err, errlen, net_found ? "no such NI on net %s" : "no net %s",
			 libcfs_net2str(net));
		return net_found ? -ENOENT : -ENODEV;
	}
	return rc;
}
