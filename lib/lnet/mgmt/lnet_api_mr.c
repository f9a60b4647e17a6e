/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel's Multi-Rail API calls (api.h of current Lustre): distance and
 * source NID to a NID, our primary NID, whether a NID is ours, a peer's
 * primary NID (discovered first when discovery is on and the peer is not
 * up to date, as the kernel's LNetPrimaryNID does), whether a peer is
 * discovered (a new one queued for discovery), the discovery setting, and
 * LNetAddPeer on the peer directory. Each reads the NI table or the peer
 * directory on the management lcore, which owns them, from the application
 * thread as every other control call does.
 */
#include <errno.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"

/* The kernel's lock_prim_nid module parameter, on by default. */
#define LNET_API_LOCK_PRIM_NID true

/* ---- the NI table, read on the management lcore ------------------------- */

/* Index of the first NI of net @p net in the table, or t->nnis. */
static unsigned int
lnet_ni_first_of_net(const struct lnet_ni_table *t, uint32_t net)
{
	unsigned int i;

	for (i = 0; i < t->nnis && t->nis[i]->net_id != net; i++) {
	}
	return i;
}

/*
 * Position of the first NI of the net first seen at table index @p first,
 * with the NIs grouped by net in the order the nets first appear (the
 * kernel's walk: nets in the order they were added, each net's NIs): the
 * NIs of every net that appears earlier come before it.
 */
static unsigned int
lnet_ni_net_position(const struct lnet_ni_table *t, unsigned int first)
{
	unsigned int pos = 0;
	unsigned int i;

	for (i = 0; i < t->nnis; i++) {
		if (lnet_ni_first_of_net(t, t->nis[i]->net_id) < first) {
			pos++;
		}
	}
	return pos;
}

struct lnet_dist_args {
	struct lnet *ln;
	struct lnet_nid dst;
	struct lnet_nid src;
	uint32_t order;
};

/* The kernel keeps order 0 for 0@lo and 1 for our other NIDs, nets from 2. */
static int
lnet_dist_on_mgmt(void *arg)
{
	struct lnet_dist_args *a = arg;
	const struct lnet_ni_table *t = lnet_ni_table_get(a->ln);
	struct lnet_ni *ni = lnet_ni_find_by_nid(a->ln, &a->dst);
	unsigned int first;

	if (ni != NULL) {
		a->src = a->dst;
		a->order = lnet_nid_is_lo0(&a->dst) ? 0 : 1;
		return 0;
	}
	first = lnet_ni_first_of_net(t, lnet_nid_net(&a->dst));
	if (first == t->nnis) {
		return -EHOSTUNREACH; /* a remote net: the kernel's looks at routes, not done here */
	}
	a->src = t->nis[first]->nid;
	a->order = 2 + lnet_ni_net_position(t, first);
	return 1;
}

int
LNetDist(const struct lnet_nid *dstnid, struct lnet_nid *srcnid, uint32_t *order)
{
	struct lnet_dist_args a = { .ln = lnet_instance() };
	int rc;

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (dstnid == NULL) {
		return -EINVAL;
	}
	a.dst = *dstnid; /* @p srcnid may be @p dstnid: written only at the end */
	rc = rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_dist_on_mgmt, &a);
	if (rc >= 0) {
		if (srcnid != NULL) {
			*srcnid = a.src;
		}
		if (order != NULL) {
			*order = a.order;
		}
	}
	return rc;
}

struct lnet_nid_query {
	struct lnet *ln;
	struct lnet_nid nid;
};

static int
lnet_nid_is_ours_on_mgmt(void *arg)
{
	struct lnet_nid_query *q = arg;

	return lnet_ni_find_by_nid(q->ln, &q->nid) != NULL;
}

bool
LNetIsPeerLocal(const struct lnet_nid *nid)
{
	struct lnet_nid_query q = { .ln = lnet_instance() };

	if (q.ln == NULL || nid == NULL) {
		return false;
	}
	q.nid = *nid;
	return rt_lcore_call(rt_mgmt_lcore(q.ln->rt), lnet_nid_is_ours_on_mgmt, &q) == 1;
}

static int
lnet_net_is_local_on_mgmt(void *arg)
{
	struct lnet_nid_query *q = arg;

	return lnet_ni_find_by_net(q->ln, lnet_nid_net(&q->nid)) != NULL;
}

/* The kernel's lnet_islocalnet(): we have an NI on @p nid's net. */
static bool
lnet_api_net_is_local(struct lnet *ln, const struct lnet_nid *nid)
{
	struct lnet_nid_query q = { ln, *nid };

	return rt_lcore_call(rt_mgmt_lcore(ln->rt), lnet_net_is_local_on_mgmt, &q) == 1;
}

/* q->nid = the first NI after 0@lo: the first net added is the first in the table. */
static int
lnet_first_nid_on_mgmt(void *arg)
{
	struct lnet_nid_query *q = arg;
	const struct lnet_ni_table *t = lnet_ni_table_get(q->ln);
	unsigned int i;

	for (i = 0; i < t->nnis; i++) {
		if (!lnet_nid_is_lo0(&t->nis[i]->nid)) {
			q->nid = t->nis[i]->nid;
			return 1;
		}
	}
	return 0;
}

/* ---- peers: the peer directory ------------------------------------------ */

/* The peer owning @p nid, looked up on the management lcore. @return 1 found, 0, -errno */
static int
lnet_api_peer_of(const struct lnet_nid *nid, struct lnet_ctl_peer *peer)
{
	uint64_t next;

	return lnet_ctl_peer_list(0, nid, peer, 1, &next);
}

void
LNetPrimaryNID(struct lnet_nid *nid)
{
	struct lnet_ctl_peer peer;

	if (nid == NULL || lnet_nid_is_lo0(nid) || lnet_instance() == NULL) {
		return;
	}
	/* As the kernel's: an unknown NID gets a peer, discovered first when discovery is on. */
	if (lnet_nid_is_any(nid) || lnet_ni_find_by_nid(lnet_instance(), nid) != NULL) {
		return;
	}
	if (lnet_discovery_primary_nid(nid) != 0 && lnet_api_peer_of(nid, &peer) == 1) {
		*nid = peer.nis[0]; /* discovery failed: the primary as the peer has it */
	}
}

void
LNetLocalPrimaryNID(struct lnet_nid *nid)
{
	struct lnet_nid_query q = { .ln = lnet_instance() };

	if (nid == NULL || q.ln == NULL) {
		return;
	}
	if (rt_lcore_call(rt_mgmt_lcore(q.ln->rt), lnet_first_nid_on_mgmt, &q) == 1) {
		*nid = q.nid;
	}
	LNetPrimaryNID(nid);
}

int
LNetPeerDiscovered(const struct lnet_nid *nid)
{
	if (nid == NULL) {
		return -EINVAL;
	}
	if (lnet_nid_is_lo0(nid)) {
		return 1;
	}
	if (lnet_instance() == NULL) {
		return -ENETRESET; /* the kernel's answer when it cannot have a peer */
	}
	/*
	 * As the kernel's: 1 for a discovered (or no-discovery) peer, -EALREADY
	 * while discovering, -EHOSTUNREACH after a failed ping, and a peer not
	 * discovered yet is queued for discovery with -EAGAIN.
	 */
	return lnet_discovery_peer_discovered(nid);
}

int
LNetGetPeerDiscoveryStatus(void)
{
	struct lnet_ctl_global g;
	int rc = lnet_ctl_global_get(&g);

	return rc != 0 ? rc : g.discovery != 0;
}

/*
 * One NID of LNetAddPeer as the kernel's peer add with no other NID: a new
 * peer; nothing (-EEXIST) when a configured or locked peer has it as its
 * primary (-EPERM for a configured one of the other Multi-Rail kind);
 * -EALREADY when a locked peer has it as another NID (@p prim gets that
 * peer's primary); -EEXIST when a configured peer has it so. A peer only
 * traffic or discovery made is replaced, except that without @p lock a
 * NID that is already such a peer's primary stays as it is.
 */
static int
lnet_api_add_one(const struct lnet_nid *nid, bool mr, bool lock, struct lnet_nid *prim)
{
	struct lnet_ctl_peer peer;
	char err[128] = "";
	int rc = lnet_api_peer_of(nid, &peer);
	bool same = rc == 1 && lnet_nid_same(&peer.nis[0], nid);

	if (rc < 0) {
		return rc;
	}
	if (rc == 1 && (peer.state & LNET_CTL_PEER_LOCK_PRIMARY) != 0) {
		*prim = peer.nis[0];
		return same ? -EEXIST : -EALREADY;
	}
	if (rc == 1 && (peer.state & LNET_CTL_PEER_CONFIGURED) != 0) {
		return same && peer.mr != mr ? -EPERM : -EEXIST;
	}
	if (rc == 1 && same && !lock) {
		return -EEXIST;
	}
	if (rc == 1) {
		rc = lnet_ctl_peer_del_force(&peer.nis[0], NULL, 0, true, err, sizeof(err));
		if (rc != 0) {
			LNET_LOG(NOTICE, "LNetAddPeer: %s", err);
			return rc;
		}
	}
	rc = lnet_peer_add_api(nid, mr, lock, err, sizeof(err));
	if (rc != 0) {
		LNET_LOG(NOTICE, "LNetAddPeer: %s", err);
	}
	return rc;
}

void
LNetAddPeer(const struct lnet_nid *nids, int num_nids)
{
	struct lnet *ln = lnet_instance();
	struct lnet_nid pnid = LNET_ANY_NID;
	char s[LNET_NIDSTR_SIZE];
	int discovery;
	int rc;
	int i;

	if (ln == NULL || nids == NULL || num_nids < 1) {
		LNET_LOG(ERR, "LNetAddPeer: %s", ln == NULL ? "LNet is down" : "no NIDs");
		return;
	}
	discovery = LNetGetPeerDiscoveryStatus();
	for (i = 0; i < num_nids && discovery >= 0; i++) {
		const struct lnet_nid *nid = &nids[i];
		struct lnet_nid owner = LNET_ANY_NID;

		if (lnet_nid_is_lo0(nid) || lnet_nid_is_any(nid) ||
		    (discovery == 0 && !lnet_api_net_is_local(ln, nid))) {
			continue; /* without discovery, only NIDs we can reach ourselves */
		}
		if (lnet_nid_is_any(&pnid)) {
			pnid = *nid;
			rc = lnet_api_add_one(nid, discovery == 1, LNET_API_LOCK_PRIM_NID, &owner);
			if (rc == -EALREADY) {
				pnid = owner; /* the peer Lustre named first keeps its primary */
			} else if (rc != 0 && rc != -EEXIST) {
				pnid = LNET_ANY_NID;
			} else if (discovery == 1) {
				lnet_discovery_peer_discovered(&pnid); /* queued, not waited for */
			}
		} else if (discovery == 0) {
			rc = lnet_api_add_one(nid, false, LNET_API_LOCK_PRIM_NID, &owner);
		} else if (!lnet_nid_same(&pnid, nid)) {
			/*
			 * A peer of its own, discovered: its ping reply names pnid
			 * too, and the merge keeps pnid's locked primary (the
			 * kernel's lp_merge_primary_nid).
			 */
			rc = lnet_api_add_one(nid, true, false, &owner);
			if (rc == 0) {
				lnet_discovery_peer_discovered(nid);
			}
		} else {
			continue;
		}
		if (rc != 0 && rc != -EEXIST && rc != -EALREADY) {
			LNET_LOG(NOTICE, "LNetAddPeer: %s not added: %s",
				 libcfs_nidstr_r(nid, s, sizeof(s)), strerror(-rc));
		}
	}
}
