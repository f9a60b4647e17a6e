/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ping target (lnet-facts §3.1): a GET-only, TRUNCATE, MANAGE_REMOTE
 * MD of infinite threshold on the reserved portal 0 with the ping match
 * bits, over a buffer holding this node's ping info: 0@lo first with the
 * sequence number, then every other NI, the primary first. Portal 0 is
 * lazy, as pushes must wait for their MD.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_internal.h"

/* Features a kernel node advertises with routing off and discovery on. */
#define LNET_PING_FEATURES \
	(LNET_PING_FEAT_NI_STATUS | LNET_PING_FEAT_RTE_DISABLED | LNET_PING_FEAT_MULTI_RAIL | \
	 LNET_PING_FEAT_DISCOVERY)

struct lnet_ping_buffer_args {
	struct lnet *ln;
	void *buf;
	size_t len;
};

/* On the management lcore: encode the ping info from the published NI table. */
static int
lnet_ping_buffer_on_mgmt(void *arg)
{
	struct lnet_ping_buffer_args *a = arg;
	const struct lnet_ni_table *t = lnet_ni_table_get(a->ln);
	struct lnet_ping_entry *nis = calloc(t->nnis, sizeof(*nis));
	struct lnet_ping_src src = {
		.features = LNET_PING_FEATURES, .pid = a->ln->pid, .seqno = ++a->ln->ping_seqno,
		.nis = nis,
	};
	unsigned int i;
	int rc;

	if (nis == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < t->nnis; i++) {
		if (t->nis[i] != a->ln->loni) {
			nis[src.nnis].nid = t->nis[i]->nid;
			nis[src.nnis++].status = t->nis[i]->status;
		}
	}
	rc = lnet_ping_info_size(&src, &a->len);
	a->buf = rc == 0 ? calloc(1, a->len) : NULL;
	if (rc == 0 && a->buf == NULL) {
		rc = -ENOMEM;
	}
	if (rc == 0) {
		rc = lnet_ping_info_encode(&src, a->buf, a->len, &a->len);
	}
	free(nis);
	return rc == 0 ? 0 : -EINVAL;
}

/* Post the ping target; called from a thread that is not a logical lcore. */
int
lnet_ping_target_init(struct lnet *ln)
{
	struct lnet_ping_buffer_args a = { ln, NULL, 0 };
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_md md;
	struct lnet_me *me;
	int rc;

	rc = rt_lcore_call(rt_mgmt_lcore(ln->rt), lnet_ping_buffer_on_mgmt, &a);
	if (rc != 0) {
		return rc;
	}
	rc = LNetSetLazyPortal(LNET_RESERVED_PORTAL);
	me = rc == 0 ? LNetMEAttach(LNET_RESERVED_PORTAL, &any, LNET_PROTO_PING_MATCHBITS, 0,
				    LNET_UNLINK, LNET_INS_AFTER) :
		       NULL;
	if (me == NULL) {
		free(a.buf);
		return rc != 0 ? rc : -errno;
	}
	memset(&md, 0, sizeof(md));
	md.umd_start = a.buf;
	md.umd_length = (unsigned int)a.len;
	md.umd_threshold = LNET_MD_THRESH_INF;
	md.umd_options = LNET_MD_OP_GET | LNET_MD_TRUNCATE | LNET_MD_MANAGE_REMOTE;
	rc = LNetMDAttach(me, &md, LNET_RETAIN, &ln->ping_mdh);
	if (rc != 0) {
		free(a.buf);
		return rc;
	}
	if (ln->ping_buf != NULL) {
		/* A REPLY may still read the old buffer: keep it until shutdown. */
		ln->old_ping_bufs[ln->nold_ping_bufs++ % LNET_OLD_PING_BUFS] = ln->ping_buf;
	}
	ln->ping_buf = a.buf;
	return 0;
}

/*
 * The NIs changed: post a new ping target with a new sequence number, then
 * unlink the old one (lnet-facts §3.2: seqno changes with the NI set).
 */
int
lnet_ping_target_update(struct lnet *ln)
{
	struct lnet_handle_md old = ln->ping_mdh;
	int rc;

	if (ln->nold_ping_bufs >= LNET_OLD_PING_BUFS) {
		return -ENOSPC; /* bounded memory for old buffers */
	}
	rc = lnet_ping_target_init(ln);
	if (rc == 0) {
		rc = LNetMDUnlink(old);
	}
	return rc;
}

/* At shutdown, after the lcores stopped: the MD went with its table. */
void
lnet_ping_target_fini(struct lnet *ln)
{
	unsigned int i;

	for (i = 0; i < ln->nold_ping_bufs && i < LNET_OLD_PING_BUFS; i++) {
		free(ln->old_ping_bufs[i]);
	}
	free(ln->ping_buf);
	ln->ping_buf = NULL;
}
