/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The routes' snapshot as the data lcores read it (lnet-facts §11): the
 * management lcore (mgmt/lnet_route.c) owns the routes and publishes an
 * immutable table by RCU, rebuilt whenever a route, a gateway's
 * composition or a route's state changes; a send to a remote net reads it
 * once, with no lock and no write (each lcore keeps the routes'
 * round-robin turns in its own selection view, lnet_send_mr.c).
 */
#ifndef LNET_ROUTE_TABLE_H
#define LNET_ROUTE_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "lnet_internal.h"

/* One route as the data lcores see it. */
struct lnet_route_view {
	uint32_t net;  /* remote net */
	uint32_t lnet; /* local net of the gateway NID as added */
	uint32_t hops;
	uint32_t priority;
	bool alive;
	bool gw_alive; /* its gateway's lp_alive: false, traffic through it says it is up */
	struct lnet_nid gw_nid; /* as added */
	struct lnet_nid gw_primary;
	const struct lnet_peer_comp *gw; /* NULL: the gateway peer is not published yet */
};

/* The published snapshot; routes grouped by remote net, nets sorted. */
struct lnet_route_table {
	uint64_t gen;
	unsigned int nroutes;
	struct lnet_route_view routes[];
};

/* Any lcore, in an RCU read section: the snapshot (NULL when there are no routes). */
static inline const struct lnet_route_table *
lnet_route_table_get(const struct lnet *ln)
{
	return rt_rcu_read((void *const *)&ln->route_table);
}

/* Routes to @p net in @p t: *n of them from the returned one (NULL: none). */
const struct lnet_route_view *lnet_route_find(const struct lnet_route_table *t, uint32_t net,
					      unsigned int *n);
/* Whether a route to @p net goes through the gateway that has @p gw_nid (drop_asym_route). */
bool lnet_route_via(const struct lnet_route_table *t, uint32_t net, const struct lnet_nid *gw_nid);
/* Whether @p nid is a NID of a gateway of @p t (for routed responses). */
bool lnet_route_is_gateway_nid(const struct lnet_route_table *t, const struct lnet_nid *nid);

/*
 * Any lcore, in an RCU read section: a message from @p from whose source is
 * on @p src_net came through it. When @p from is a gateway we hold dead
 * with a route to that net, mgmt is told (at most once a second per
 * @p lpni): the kernel's lnet_parse takes the gateway as alive again.
 */
void lnet_route_gw_traffic(struct lnet_cpt *c, struct lnet_peer_ni *lpni,
			   const struct lnet_nid *from, uint32_t src_net);

#endif /* LNET_ROUTE_TABLE_H */
