/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The management plane's internal header: what its files call of each
 * other, on the management lcore unless said. It builds on the data
 * path's header (lnet_internal.h); the data path reaches the management
 * plane only through the hooks it is given (struct lnet_mgmt_hooks).
 */
#ifndef LNET_MGMT_H
#define LNET_MGMT_H

#include <stddef.h>
#include <stdint.h>

#include "lnet_ctl.h"
#include "lnet_internal.h"

/*
 * A configuration operation (net add/del with its ping target rebuild): an
 * rt_op of ln->ops, run on the management lcore one at a time, in
 * submission order.
 */
struct lnet_mgmt_op {
	struct rt_op op; /* first */
	struct lnet *ln;
	void (*start)(struct lnet_mgmt_op *op); /* on mgmt, when its turn comes */
};

/* A ping target's buffer (lnet_ping.c). */
struct lnet_ping_buf {
	LIST_ENTRY(lnet_ping_buf) link; /* ln->ping_bufs, mgmt's */
	struct lnet *ln;
	struct rt_hop hop; /* the drained buffer's way back to mgmt */
	unsigned int nnis; /* NIs it lists after 0@lo */
	size_t len;
	uint8_t data[];
};
LIST_HEAD(lnet_ping_buf_list, lnet_ping_buf);
struct lnet_push_target;

/* The kernel lnet module's router parameters (lnetd-pmd --lnet-params); atomics. */
struct lnet_rtr_params {
	int alive_router_check_interval; /* seconds between router checks (60) */
	int router_ping_timeout;         /* seconds a router check may take (50) */
	int check_routers_before_use;    /* routes start down until checked (0) */
	int avoid_asym_router_failure;   /* single-hop routes need the remote net up (1) */
	int tiny_router_buffers;         /* 0: the kernel's defaults */
	int small_router_buffers;
	int large_router_buffers;
};

/*
 * What the management plane keeps on a CPT's lcore, written by that lcore
 * alone: the I/O it has in flight there, released at the CPT's teardown.
 */
struct lnet_cpt_mgmt {
	LIST_HEAD(, lnet_disc_io) disc_ios;   /* lnet_discovery.c: pings and pushes in flight */
	LIST_HEAD(, lnet_rec_ping) rec_pings; /* lnet_recovery.c: recovery pings in flight */
} __rte_cache_aligned;

/*
 * The node as the management plane sees it: the data path's struct lnet
 * and what only the management plane touches, most of it on the
 * management lcore. The data path never names it (lnet_node() goes from
 * the one to the other).
 */
struct lnet_node {
	struct lnet ln;
	struct lnet_ni *zombie_nis;   /* mgmt: deleted, retired once unreferenced */
	struct rt_timer zombie_timer; /* mgmt: looks at zombie_nis' references */
	unsigned int zombie_checks;
	struct rt_op_queue ops;              /* mgmt: configuration operations, head runs */
	struct lnet_peer_dir *peer_dir;      /* configured peers; management lcore */
	uint32_t ping_seqno;                 /* bumped when the ping buffer is rebuilt (mgmt) */
	struct lnet_ping_buf *ping_buf;      /* mgmt: the posted ping target's */
	struct lnet_ping_buf_list ping_bufs; /* mgmt: posted or draining, not retired */
	struct lnet_handle_md ping_mdh;
	struct lnet_push_target *push;  /* owned by portal 0's home CPT */
	bool ping_quiet;                /* mgmt: the ping target rebuild under way pushes nothing */
	struct lnet_recovery *recovery; /* mgmt: health recovery queues (lnet_recovery.c) */
	struct lnet_udsp_state
		*udsp; /* mgmt: UDSP rules and what they flatten to (lnet_udsp_ctl.c) */
	struct lnet_rtr_params rtr_params;
	struct lnet_route_state *routes; /* mgmt: route add/del, gateways (lnet_route.c) */
	struct lnet_router *router;      /* mgmt: set routing's state machine */
	struct lnet_cpt_mgmt cpt_mgmt[LNP_MAX_CPTS];
};

static inline struct lnet_node *
lnet_node(const struct lnet *ln)
{
	return (struct lnet_node *)((uintptr_t)ln - offsetof(struct lnet_node, ln));
}

static inline struct lnet_cpt_mgmt *
lnet_cpt_mgmt(const struct lnet_cpt *c)
{
	return &lnet_node(c->ln)->cpt_mgmt[c->cpt];
}

/* lnet_router_ctl.c: set routing */
struct lnet_router;
int lnet_router_init(struct lnet *ln);
void lnet_router_fini(struct lnet *ln);

/* lnet_ni.c: NI add/del/config, the NI table built and replaced */
int lnet_ni_table_create(struct lnet *ln);
void lnet_ni_table_destroy(struct lnet *ln);
void lnet_ni_shutdown_all(struct lnet *ln);
int lnet_ni_shutdown_on_cpt(void *ni);

int lnet_ni_del(struct lnet *ln, const struct lnet_nid *nid);
/* net add/del and the ping target rebuild as one management operation. */
struct lnet_ni_req {
	bool add;
	const struct lnet_nid *nid;
	const struct lnet_lnd_ops *lnd;              /* add */
	struct lnet_ni_tunables tun;                 /* add */
	const struct lnet_ctl_lnd_tunables *lnd_tun; /* add; NULL: none */
	unsigned int cpt;                            /* add */
	const char *ifname;                          /* add; NULL: none */
	bool quiet;  /* del: no push (lnet unconfigure, as the kernel's) */
	int ping_rc; /* out: the ping target rebuild's */
};
int lnet_ni_config(struct lnet *ln, struct lnet_ni_req *req);
int lnet_mgmt_op_run(struct lnet *ln, struct lnet_mgmt_op *op);
void lnet_mgmt_op_done(struct lnet_mgmt_op *op, int rc);
/* On mgmt: queue @p op (its ln and start set); it runs when the ones before it are done. */
void lnet_mgmt_op_submit(void *arg);
int lnet_ni_add(struct lnet *ln, const struct lnet_nid *nid, const struct lnet_lnd_ops *lnd,
		const struct lnet_ni_tunables *tun, const struct lnet_ctl_lnd_tunables *lnd_tun,
		unsigned int cpt, struct lnet_ni **out);

/* lnet_ping.c */
int lnet_ping_target_init(struct lnet *ln);
void lnet_ping_target_rebuild(struct lnet *ln, void (*cb)(void *arg, int rc), void *arg);
/* After the discovery setting changed: the ping target with its features (blocks). */
int lnet_ping_target_features_update(struct lnet *ln);
void lnet_ping_target_fini(struct lnet *ln);

/* lnet_push.c: the push target (portal 0, PUT, ping match bits) */
int lnet_push_target_init(struct lnet *ln);
void lnet_push_target_fini(struct lnet *ln);

/* lnet_peer_dir.c */
void lnet_peer_dir_destroy(struct lnet *ln);

/* lnet_discovery.c (management lcore unless said) */
/* The push target's CPT: a push from @p src (whole or truncated) for discovery. */
void lnet_discovery_push_received(struct lnet *ln, const struct lnet_nid *src, const void *data,
				  size_t mlength, size_t rlength);
void lnet_discovery_local_changed(struct lnet *ln);
/* LNetPrimaryNID: discover @p nid's peer if it is not up to date, then its primary. */
int lnet_discovery_primary_nid(struct lnet_nid *nid);
/* LNetPeerDiscovered: 1, -EALREADY, -EHOSTUNREACH, or -EAGAIN (now queued). */
int lnet_discovery_peer_discovered(const struct lnet_nid *nid);
int lnet_peer_add_api(const struct lnet_nid *prim, bool mr, bool lock_prim, char *err,
		      size_t errlen);
/* From LNetNIFini's thread, before the lcores quiesce. */
void lnet_discovery_shutdown(struct lnet *ln);
void lnet_discovery_set_enabled(struct lnet *ln, bool on);
/* rt_call_fn: discovery turned on, once the ping target carries DISCOVERY. */
int lnet_discovery_enable_on_mgmt(void *ln);
/* A global setting changed (transaction_timeout bounds a ping or push). */
void lnet_discovery_tunables_changed(struct lnet *ln);

/* lnet_recovery.c: the management lcore's recovery queues and pings */
int lnet_recovery_init(struct lnet *ln);
void lnet_recovery_fini(struct lnet *ln);
/* Management lcore, net del: @p ni leaves recovery before it is freed. */
void lnet_recovery_ni_gone(struct lnet *ln, struct lnet_ni *ni);

/* lnet_udsp_ctl.c: UDSP rules on the management lcore */
struct lnet_udsp_state *lnet_udsp_state_create(struct lnet *ln);
void lnet_udsp_state_destroy(struct lnet_udsp_state *u);
/* Mgmt, before NI table @p t is published: each NI's priorities. */
void lnet_udsp_table_prios(struct lnet *ln, const struct lnet_ni_table *t);
/* Mgmt, after the NI table changed: the peers' preferred local NIDs follow (a refresh, not waited for). */
void lnet_udsp_table_changed(struct lnet *ln);
/* Mgmt, after the gateways changed (route add/del): router rules follow. */
void lnet_udsp_gateways_changed(struct lnet *ln);
/* Tests: at most @p n peers per refresh slice (0: the default); is a refresh under way? */
void lnet_udsp_slice_peers(struct lnet *ln, unsigned int n);
bool lnet_udsp_refresh_pending(const struct lnet *ln);
/* Mgmt: fill the UDSP values of a composition being built (its nets and NIs set). */
void lnet_udsp_comp_fill(struct lnet *ln, struct lnet_peer_comp *c);
/* Free a composition and its lists (an rt_free_fn, for compositions past their grace period). */
void lnet_peer_comp_free(void *c);
/* Mgmt: may the refresh under way change the values of the peer NI @p nid? */
bool lnet_udsp_nid_in_scope(const struct lnet *ln, const struct lnet_nid *nid);
/* Mgmt: bring @p c's values to what the rules say now, in place; true when one changed. */
bool lnet_udsp_comp_update(struct lnet *ln, struct lnet_peer_comp *c);

/* The hooks the data path calls up through (lnet_init.c). */
extern const struct lnet_mgmt_hooks lnet_node_hooks;

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
