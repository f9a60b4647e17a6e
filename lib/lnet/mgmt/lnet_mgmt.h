/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The management plane's internal header: what its files call of each
 * other, on the management lcore unless said. It builds on the data
 * path's header (lnet_internal.h); the data path reaches the management
 * plane only through the hooks it is given (struct lnet_mgmt_hooks).
 */
#ifndef LNET_MGMT_H
#define LNET_MGMT_H

#include "lnet_ctl.h"
#include "lnet_internal.h"

/* The hooks the data path calls up through (lnet_init.c). */
extern const struct lnet_mgmt_hooks lnet_mgmt_hooks;

/* lnet_discovery.c: a message handed to the management lcore; a CPT's discovery I/O at teardown */
void lnet_discovery_msg_on_mgmt(void *msg);
void lnet_discovery_cpt_fini(struct lnet_cpt *c);

/* lnet_recovery.c. Any lcore: @p ni (by NID) or @p lpni lost health; recovery takes it. */
void lnet_recovery_queue_ni(struct lnet *ln, struct lnet_ni *ni);
void lnet_recovery_queue_lpni(struct lnet *ln, struct lnet_peer_ni *lpni);
void lnet_recovery_cpt_fini(struct lnet_cpt *c);

/* lnet_peer_dir.c. A data lcore: a peer NI made by traffic, for the directory. */
void lnet_peer_dir_learn(struct lnet *ln, const struct lnet_nid *nid, struct lnet_peer_ni *lpni);

/* lnet_ni_link.c. Any lcore: @p ni's link (@p health false) or health went up or down. */
void lnet_ni_state_change(struct lnet_ni *ni, bool up, bool health);

#endif /* LNET_MGMT_H */
