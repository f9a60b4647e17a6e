/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration's ports: (apps/common/lnetcfg.h): each a DPDK device
 * under the userspace IP stack (drivers/net: port, ARP, IPv4, TCP) on
 * LNet's data lcores, named for the socklnd (sock_utcp_port_add), so that
 * `net add --net tcp --if NAME` puts a tcp NI on it: the NID is the port's
 * address, and the NI's connections are the port's TCP. Opened from the
 * main thread before the configuration's nets; closed once the NIs on them
 * are gone, before LNet's runtime.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_internal.h"
#include "lnetd.h"
#include "net_ip.h"
#include "net_neigh.h"
#include "net_port.h"
#include "net_tcp.h"
#include "sock_stream.h"

struct lnetd_port {
	struct lnetcfg_port cfg;
	struct net_port *port;
	struct net_neigh *nb;
	struct net_ip *ip;
	struct net_tcp *tcp;
};

static struct lnetd_port lnetd_ports[LNETCFG_PORTS_MAX];
static unsigned int lnetd_nports;

static const struct lnetd_port *
lnetd_port_find(const char *name)
{
	for (unsigned int i = 0; i < lnetd_nports; i++) {
		if (strcmp(lnetd_ports[i].cfg.name, name) == 0) {
			return &lnetd_ports[i];
		}
	}
	return NULL;
}

bool
lnetd_port_addr(const char *name, uint32_t *addr)
{
	const struct lnetd_port *p = name != NULL ? lnetd_port_find(name) : NULL;

	if (p != NULL) {
		*addr = p->cfg.addr;
	}
	return p != NULL;
}

const char *
lnetd_port_of_addr(uint32_t addr)
{
	for (unsigned int i = 0; i < lnetd_nports; i++) {
		if (lnetd_ports[i].cfg.addr == addr) {
			return lnetd_ports[i].cfg.name;
		}
	}
	return NULL;
}

static void
lnetd_port_free(struct lnetd_port *p)
{
	net_port_close(p->port);
	net_tcp_destroy(p->tcp);
	net_ip_destroy(p->ip);
	net_neigh_destroy(p->nb);
	memset(p, 0, sizeof(*p));
}

/*
 * The port's link changed (net_port's poll, on the management lcore): the
 * NIs on it follow, as a socket NI follows its interface's link.
 */
static void
lnetd_port_link(void *arg, struct net_port *port, bool up, uint32_t speed_mbps)
{
	const struct lnetd_port *p = arg;

	(void)port;
	(void)speed_mbps;
	sock_utcp_port_link(p->cfg.name, up);
}

/* The stack on @p p's device, up and announced; @return 0 or -errno with @p err. */
static int
lnetd_port_open(struct lnetd_port *p, char *err, size_t errlen)
{
	struct net_port_conf pc = { .conf_size = sizeof(pc),
				    .devargs = p->cfg.device,
				    .link_fn = lnetd_port_link,
				    .link_arg = p };
	struct net_ip_conf ic = { .conf_size = sizeof(ic), .gateway = htonl(p->cfg.gateway) };
	struct net_tcp_conf tc = { .conf_size = sizeof(tc) };
	const char *what = "open";
	int rc = net_port_open(lnet_instance()->rt, &pc, &p->port);

	if (rc == 0) {
		what = "ARP";
		rc = net_neigh_create(p->port, NULL, &p->nb);
	}
	if (rc == 0) {
		what = "IPv4";
		rc = net_ip_create(p->nb, &ic, &p->ip);
	}
	if (rc == 0) {
		what = "TCP";
		rc = net_tcp_create(p->nb, p->ip, &tc, &p->tcp);
	}
	if (rc == 0) {
		what = "address";
		rc = net_neigh_addr_add(p->nb, htonl(p->cfg.addr), p->cfg.prefix);
	}
	if (rc == 0) {
		what = "start";
		rc = net_port_start(p->port);
	}
	if (rc == 0) {
		net_neigh_announce(p->nb); /* a gratuitous ARP: a best effort */
		what = "name";
		rc = sock_utcp_port_add(p->cfg.name, htonl(p->cfg.addr), p->tcp);
	}
	if (rc == 0) {
		/* A change before the name existed was not heard: the state now. */
		sock_utcp_port_link(p->cfg.name, net_port_state(p->port) == NET_PORT_LINK_UP);
	}
	if (rc != 0) {
		snprintf(err, errlen, "ports: %s (%s): %s: %s", p->cfg.name, p->cfg.device, what,
			 strerror(-rc));
		lnetd_port_free(p);
	}
	return rc;
}

int
lnetd_ports_open(const struct lnetcfg *cfg, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < cfg->nports; i++) {
		int rc;

		if (lnetd_port_find(cfg->ports[i].name) != NULL) {
			continue; /* opened by an earlier configuration */
		}
		if (lnetd_nports == LNETCFG_PORTS_MAX) {
			snprintf(err, errlen, "ports: at most %d", LNETCFG_PORTS_MAX);
			return -ENOSPC;
		}
		lnetd_ports[lnetd_nports].cfg = cfg->ports[i];
		rc = lnetd_port_open(&lnetd_ports[lnetd_nports], err, errlen);
		if (rc != 0) {
			return rc;
		}
		lnetd_nports++;
	}
	return 0;
}

/* The NIs on the ports first (their connections are the ports' TCP), then the stacks. */
void
lnetd_ports_close(void)
{
	static struct lnet_ctl_ni nis[64];
	int n = lnetd_nports > 0 ? lnet_ctl_ni_list(nis, 64) : 0;
	char err[128];

	for (int i = 0; i < n; i++) {
		if (lnetd_port_find(nis[i].ifname) != NULL) {
			lnet_ctl_ni_remove(&nis[i].nid, false, err, sizeof(err));
		}
	}
	while (lnetd_nports > 0) {
		struct lnetd_port *p = &lnetd_ports[--lnetd_nports];

		sock_utcp_port_del(p->cfg.name);
		lnetd_port_free(p);
	}
}
