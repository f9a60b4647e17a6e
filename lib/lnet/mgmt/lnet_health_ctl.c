/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `lnetctl peer set --health`: a peer NI's health value set by hand, on
 * the lcore of the shard that owns it, and the peer NI queued for
 * recovery, as the kernel's lnet_peer_ni_set_healthv.
 */
#include <errno.h>
#include <stdio.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"

struct lnet_health_set_args {
	struct lnet *ln;
	const struct lnet_nid *nid; /* NULL: every peer NI */
	int value;
	unsigned int found;
};

/* On a shard's lcore: the named peer NI, or all of them. */
static int
lnet_health_set_on_cpt(void *arg)
{
	struct lnet_health_set_args *a = arg;
	struct lnet_cpt *c = lnet_cpt_self(a->ln);
	struct lnet_peer_ni *lpni;
	unsigned int i;

	if (a->nid != NULL) {
		lpni = lnet_peer_ni_find(c, a->nid);
		if (lpni != NULL && rt_rcu_read((void *const *)&lpni->comp) != NULL) {
			lnet_health_lpni_set(a->ln, lpni, a->value);
			a->found++;
		}
		return 0;
	}
	for (i = 0; i < LNET_PEER_HASH_SIZE; i++) {
		TAILQ_FOREACH(lpni, &c->peers.hash[i], link) {
			if (rt_rcu_read((void *const *)&lpni->comp) != NULL) {
				lnet_health_lpni_set(a->ln, lpni, a->value);
				a->found++;
			}
		}
	}
	return 0;
}

int
lnet_ctl_peer_ni_health_set(const struct lnet_nid *nid, int value, char *err, size_t errlen)
{
	struct lnet_health_set_args a = { lnet_instance(), nid, value, 0 };
	char s[LNET_NIDSTR_SIZE];
	unsigned int cpt;

	if (a.ln == NULL) {
		return -ENETDOWN;
	}
	if (value < 0 || value > LNET_MAX_HEALTH_VALUE) {
		snprintf(err, errlen, "health value %d: from 0 to %d", value,
			 LNET_MAX_HEALTH_VALUE);
		return -EINVAL;
	}
	for (cpt = 0; cpt < a.ln->ncpts; cpt++) {
		if (nid == NULL || cpt == lnet_cpt_of_peer(a.ln, nid)) {
			rt_lcore_call(a.ln->cpts[cpt]->lcore, lnet_health_set_on_cpt, &a);
		}
	}
	if (nid != NULL && a.found == 0) {
		snprintf(err, errlen, "%s is not a peer NI", libcfs_nidstr_r(nid, s, sizeof(s)));
		return -ENOENT;
	}
	return 0;
}
