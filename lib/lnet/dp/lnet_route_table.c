/* SPDX-License-Identifier: BSD-3-Clause */
/* Lookups in the routes' snapshot (lnet_route_table.h), on any lcore. */
#include "lnet_route_table.h"

const struct lnet_route_view *
lnet_route_find(const struct lnet_route_table *t, uint32_t net, unsigned int *n)
{
	unsigned int lo = 0;
	unsigned int hi;
	unsigned int end;

	*n = 0;
	if (t == NULL) {
		return NULL;
	}
	hi = t->nroutes;
	while (lo < hi) { /* the first route whose net is not below @p net */
		unsigned int mid = lo + (hi - lo) / 2;

		if (t->routes[mid].net < net) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (end = lo; end < t->nroutes && t->routes[end].net == net; end++) {
	}
	*n = end - lo;
	return *n != 0 ? &t->routes[lo] : NULL;
}

bool
lnet_route_is_gateway_nid(const struct lnet_route_table *t, const struct lnet_nid *nid)
{
	unsigned int i;
	unsigned int j;

	for (i = 0; t != NULL && i < t->nroutes; i++) {
		const struct lnet_peer_comp *gw = t->routes[i].gw;

		if (lnet_nid_same(&t->routes[i].gw_nid, nid)) {
			return true;
		}
		for (j = 0; gw != NULL && j < gw->nnis; j++) {
			if (lnet_nid_same(&gw->nis[j].nid, nid)) {
				return true;
			}
		}
	}
	return false;
}

bool
lnet_route_via(const struct lnet_route_table *t, uint32_t net, const struct lnet_nid *gw_nid)
{
	unsigned int n;
	const struct lnet_route_view *rv = lnet_route_find(t, net, &n);
	unsigned int i;
	unsigned int j;

	for (i = 0; i < n; i++) {
		if (lnet_nid_same(&rv[i].gw_nid, gw_nid)) {
			return true;
		}
		for (j = 0; rv[i].gw != NULL && j < rv[i].gw->nnis; j++) {
			if (lnet_nid_same(&rv[i].gw->nis[j].nid, gw_nid)) {
				return true;
			}
		}
	}
	return false;
}

void
lnet_route_gw_traffic(struct lnet_cpt *c, struct lnet_peer_ni *lpni, const struct lnet_nid *from,
		      uint32_t src_net)
{
	unsigned int n;
	const struct lnet_route_view *rv =
		lnet_route_find(lnet_route_table_get(c->ln), src_net, &n);
	unsigned int i;
	unsigned int j;
	bool dead = false;
	uint64_t now;

	for (i = 0; i < n && !dead; i++) { /* the routes to that net only: a binary search */
		bool via = lnet_nid_same(&rv[i].gw_nid, from);

		for (j = 0; !via && rv[i].gw != NULL && j < rv[i].gw->nnis; j++) {
			via = lnet_nid_same(&rv[i].gw->nis[j].nid, from);
		}
		dead = via && !rv[i].gw_alive;
	}
	if (!dead) {
		return;
	}
	now = rt_lcore_now_us(c->lcore);
	if (lpni->gw_heard_us != 0 && now - lpni->gw_heard_us < LNP_US_PER_S) {
		return; /* told already; mgmt has not republished yet */
	}
	if (c->ln->mgmt->gw_heard(c->ln, from, src_net) == 0) {
		lpni->gw_heard_us = now; /* else the next message tells */
	}
}
