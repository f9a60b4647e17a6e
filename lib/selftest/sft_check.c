/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Range checks of decoded selftest messages, in the order a 2.17 node
 * applies them, so the first failure is the one the kernel would act on.
 * Only checks that need no session state live here: the framework layer
 * compares sids and feature masks with its session.
 */
#include <string.h>

#include "sft_wire.h"

static bool
sft_name_terminated(const char *name)
{
	return memchr(name, '\0', SFT_NAME_SIZE) != NULL;
}

static bool
sft_feats_known(const struct sft_msg *m)
{
	return (m->ses_feats & ~SFT_FEATS_MASK) == 0;
}

static int
sft_check_rw_flags(uint32_t rw, uint32_t flags)
{
	if (rw != SFT_BRW_READ && rw != SFT_BRW_WRITE) {
		return -SFT_WIRE_ERW;
	}
	if (flags != SFT_BRW_CHECK_NONE && flags != SFT_BRW_CHECK_SIMPLE &&
	    flags != SFT_BRW_CHECK_FULL) {
		return -SFT_WIRE_ECHECK;
	}
	return 0;
}

/*
 * A brw length: whole 8-byte words (the kernel's fill and check assert
 * it), 1 byte to 1 MiB, and whole pages without BULK_LEN.
 */
static int
sft_check_bulk_len(uint32_t len, uint32_t feats)
{
	if ((feats & SFT_FEAT_BULK_LEN) == 0 && len % 4096u != 0) {
		return -SFT_WIRE_EBULKLEN;
	}
	if (len == 0 || len > SFT_BRW_MAX_LEN || len % 8u != 0) {
		return -SFT_WIRE_EBULKLEN;
	}
	return 0;
}

/* brw_server_handle's order: rw and pattern, features, length. */
static int
sft_check_brw_reqst(const struct sft_msg *m)
{
	const struct sft_brw_reqst *r = &m->body.brw_reqst;
	int rc = sft_check_rw_flags(r->rw, r->flags);

	if (rc != 0) {
		return rc;
	}
	if (!sft_feats_known(m)) {
		return -SFT_WIRE_EFEATS;
	}
	return sft_check_bulk_len(r->len, m->ses_feats);
}

int
sft_check_test_bulk_params(const union sft_test_params *p, uint32_t feats)
{
	if (sft_test_params_view(SFT_SVC_BRW, feats) == SFT_TPARAMS_BULK_V0) {
		if (p->bulk_v0.npg == 0 || p->bulk_v0.npg > SFT_BRW_MAX_LEN / 4096u) {
			return -SFT_WIRE_EBULKLEN;
		}
		return sft_check_rw_flags(p->bulk_v0.opc, p->bulk_v0.flags);
	}
	if ((p->bulk_v1.offset % 4096u) % 8u != 0) {
		return -SFT_WIRE_EBULKOFF;
	}
	if (p->bulk_v1.len == 0 || p->bulk_v1.len > SFT_BRW_MAX_LEN || p->bulk_v1.len % 8u != 0) {
		return -SFT_WIRE_EBULKLEN;
	}
	return sft_check_rw_flags(p->bulk_v1.opc, p->bulk_v1.flags);
}

int
sft_check_test_counts(const struct sft_test_reqst *r)
{
	if (r->sid.nid == SFT_SID_NID_NONE) {
		return -SFT_WIRE_ESID;
	}
	if (r->loop == 0 || r->concur == 0 || r->concur > SFT_MAX_CONCUR ||
	    r->ndest > SFT_MAX_NDESTS || (r->is_client != 0 && r->ndest == 0)) {
		return -SFT_WIRE_ETESTCOUNT;
	}
	if (r->service != SFT_SVC_BRW && r->service != SFT_SVC_PING) {
		return -SFT_WIRE_ESERVICE;
	}
	return 0;
}

/* sfw_add_test's EINVAL conditions, then the client's test parameters. */
static int
sft_check_test_reqst(const struct sft_msg *m)
{
	const struct sft_test_reqst *r = &m->body.test_reqst;
	int rc = sft_check_test_counts(r);

	if (rc == 0 && r->is_client != 0 && r->service == SFT_SVC_BRW) {
		rc = sft_check_test_bulk_params(&r->params, m->ses_feats);
	}
	return rc;
}

static int
sft_check_names(const struct sft_msg *m)
{
	const char *name;

	switch (m->type) {
	case SFT_MSG_MKSN_REQST:
		name = m->body.mksn_reqst.name;
		break;
	case SFT_MSG_MKSN_REPLY:
		name = m->body.mksn_reply.name;
		break;
	case SFT_MSG_DEBUG_REPLY:
		name = m->body.debug_reply.name;
		break;
	case SFT_MSG_JOIN_REQST:
		name = m->body.join_reqst.group;
		break;
	case SFT_MSG_JOIN_REPLY:
		name = m->body.join_reply.session;
		break;
	default:
		return 0;
	}
	return sft_name_terminated(name) ? 0 : -SFT_WIRE_ENAME;
}

/* Checks of one type, after the version. */
static int
sft_check_body(const struct sft_msg *m)
{
	switch (m->type) {
	case SFT_MSG_MKSN_REQST:
		if (!sft_feats_known(m)) {
			return -SFT_WIRE_EFEATS;
		}
		return m->body.mksn_reqst.sid.nid == SFT_SID_NID_NONE ? -SFT_WIRE_ESID : 0;
	case SFT_MSG_DEBUG_REQST:
		return sft_feats_known(m) ? 0 : -SFT_WIRE_EFEATS;
	case SFT_MSG_STAT_REQST:
		return m->body.stat_reqst.sid.nid == SFT_SID_NID_NONE ? -SFT_WIRE_ESID : 0;
	case SFT_MSG_BATCH_REQST:
		return m->body.batch_reqst.opc >= SFT_BATCH_RUN &&
				       m->body.batch_reqst.opc <= SFT_BATCH_QUERY ?
			       0 :
			       -SFT_WIRE_EOPC;
	case SFT_MSG_TEST_REQST:
		return sft_check_test_reqst(m);
	case SFT_MSG_BRW_REQST:
		return sft_check_brw_reqst(m);
	case SFT_MSG_PING_REQST:
		if (m->body.ping_reqst.magic != SFT_PING_MAGIC) {
			return -SFT_WIRE_EPINGMAGIC;
		}
		return sft_feats_known(m) ? 0 : -SFT_WIRE_EFEATS;
	case SFT_MSG_PING_REPLY:
		return m->body.ping_reply.magic == SFT_PING_MAGIC ? 0 : -SFT_WIRE_EPINGMAGIC;
	default:
		return 0;
	}
}

int
sft_msg_check(const struct sft_msg *m)
{
	int rc;

	if (m == NULL || m->type >= SFT_MSG_TYPE_MAX) {
		return -SFT_WIRE_EINVAL;
	}
	if (m->version != SFT_MSG_VERSION) {
		return -SFT_WIRE_EVERSION;
	}
	rc = sft_check_body(m);
	if (rc != 0) {
		return rc;
	}
	/* Last: a 2.17 node goes on with the name cut to 31 characters. */
	return sft_check_names(m);
}
