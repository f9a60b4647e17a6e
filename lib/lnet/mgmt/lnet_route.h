/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes to remote nets (lnet-facts §11). The management lcore owns the
 * table (route add/del, gateways as peers, their aliveness); the data
 * lcores read an immutable snapshot published by RCU, rebuilt whenever a
 * route, a gateway's composition or a route's state changes: a send to a
 * remote net reads it once, with no lock and no write (each lcore keeps
 * the routes' round-robin turns in its own selection view, lnet_send_mr.c).
 */
#ifndef LNET_ROUTE_H
#define LNET_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "lnet_mgmt.h"
#include "lnet_route_table.h"

struct lnet_peer;
struct lnet_peer_dir;
struct lnet_merge_proposal;

/* mgmt: make and free the table (LNetNIInit, LNetNIFini). */
int lnet_route_init(struct lnet *ln);
void lnet_route_fini(struct lnet *ln);

/*
 * Traffic came through @p from, a gateway held dead, from @p net (the
 * management hook lnet_route_gw_traffic calls, on its lcore): mgmt takes
 * it as alive again. -ENOMEM: not told.
 */
int lnet_route_gw_heard(struct lnet *ln, const struct lnet_nid *from, uint32_t net);

/* Peer directory hooks (mgmt). A gateway peer's composition changed: */
void lnet_route_gw_published(struct lnet_peer_dir *d, struct lnet_peer *p);
/* ... it is being deleted or merged away: */
void lnet_route_gw_gone(struct lnet_peer_dir *d, struct lnet_peer *p);
/* ... its ping data arrived (@p prop) or its discovery failed (@p prop NULL): */
void lnet_route_gw_data(struct lnet_peer_dir *d, struct lnet_peer *p,
			const struct lnet_merge_proposal *prop);

/* Gateways' primary NIDs for UDSP router rules (mgmt): *n of them, caller frees. */
struct lnet_nid *lnet_route_gateways(struct lnet *ln, unsigned int *n);

#endif /* LNET_ROUTE_H */
