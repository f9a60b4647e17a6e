/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rules of selftest RPCs that need no state: which service answers on
 * which portal with which message types, how reply and bulk ids are made,
 * and how a 2.17 server answers a request it refuses (selftest-facts §1-3).
 */
#include <stddef.h>
#include <string.h>

#include "selftest.h"

/* Request type of each service id; -1 where no service exists. */
static const int service_request[SFT_SVC_MAX] = {
	[SFT_SVC_DEBUG] = SFT_MSG_DEBUG_REQST,
	[SFT_SVC_MAKE_SESSION] = SFT_MSG_MKSN_REQST,
	[SFT_SVC_REMOVE_SESSION] = SFT_MSG_RMSN_REQST,
	[SFT_SVC_BATCH] = SFT_MSG_BATCH_REQST,
	[SFT_SVC_TEST] = SFT_MSG_TEST_REQST,
	[SFT_SVC_QUERY_STAT] = SFT_MSG_STAT_REQST,
	[SFT_SVC_JOIN] = SFT_MSG_JOIN_REQST,
	[7] = -1,
	[8] = -1,
	[9] = -1,
	[SFT_SVC_FRAMEWORK_MAX] = -1,
	[SFT_SVC_BRW] = SFT_MSG_BRW_REQST,
	[SFT_SVC_PING] = SFT_MSG_PING_REQST,
};

static const char *const msg_type_names[SFT_MSG_TYPE_MAX] = {
	[SFT_MSG_MKSN_REQST] = "MKSN_REQST",   [SFT_MSG_MKSN_REPLY] = "MKSN_REPLY",
	[SFT_MSG_RMSN_REQST] = "RMSN_REQST",   [SFT_MSG_RMSN_REPLY] = "RMSN_REPLY",
	[SFT_MSG_BATCH_REQST] = "BATCH_REQST", [SFT_MSG_BATCH_REPLY] = "BATCH_REPLY",
	[SFT_MSG_STAT_REQST] = "STAT_REQST",   [SFT_MSG_STAT_REPLY] = "STAT_REPLY",
	[SFT_MSG_TEST_REQST] = "TEST_REQST",   [SFT_MSG_TEST_REPLY] = "TEST_REPLY",
	[SFT_MSG_DEBUG_REQST] = "DEBUG_REQST", [SFT_MSG_DEBUG_REPLY] = "DEBUG_REPLY",
	[SFT_MSG_BRW_REQST] = "BRW_REQST",     [SFT_MSG_BRW_REPLY] = "BRW_REPLY",
	[SFT_MSG_PING_REQST] = "PING_REQST",   [SFT_MSG_PING_REPLY] = "PING_REPLY",
	[SFT_MSG_JOIN_REQST] = "JOIN_REQST",   [SFT_MSG_JOIN_REPLY] = "JOIN_REPLY",
};

bool
sft_service_known(uint32_t svc)
{
	return svc < SFT_SVC_MAX && service_request[svc] >= 0;
}

uint32_t
sft_service_portal(uint32_t svc)
{
	return svc < SFT_SVC_FRAMEWORK_MAX ? SFT_PORTAL_FRAMEWORK : SFT_PORTAL_REQUEST;
}

uint64_t
sft_request_match_bits(uint32_t svc)
{
	return svc;
}

int
sft_service_request_type(uint32_t svc)
{
	return svc < SFT_SVC_MAX ? service_request[svc] : -1;
}

int
sft_request_type_service(uint32_t type)
{
	uint32_t svc;

	for (svc = 0; svc < SFT_SVC_MAX; svc++) {
		if (service_request[svc] >= 0 && (uint32_t)service_request[svc] == type) {
			return (int)svc;
		}
	}
	return -1;
}

bool
sft_msg_type_is_request(uint32_t type)
{
	return type < SFT_MSG_TYPE_MAX && type % 2 == 0;
}

int
sft_reply_type(uint32_t type)
{
	return sft_msg_type_is_request(type) ? (int)type + 1 : -1;
}

const char *
sft_msg_type_name(uint32_t type)
{
	return type < SFT_MSG_TYPE_MAX ? msg_type_names[type] : "?";
}

const char *
sft_status_name(uint32_t status)
{
	switch (status) {
	case SFT_STATUS_OK:
		return "OK";
	case SFT_STATUS_ENOENT:
		return "ENOENT";
	case SFT_STATUS_ESRCH:
		return "ESRCH";
	case SFT_STATUS_EIO:
		return "EIO";
	case SFT_STATUS_ENOMEM:
		return "ENOMEM";
	case SFT_STATUS_EBUSY:
		return "EBUSY";
	case SFT_STATUS_EINVAL:
		return "EINVAL";
	case SFT_STATUS_EPROTO:
		return "EPROTO";
	case SFT_STATUS_EBADMSG:
		return "EBADMSG";
	default:
		return "?";
	}
}

enum sft_verdict
sft_server_verdict(int rc, uint32_t *status)
{
	*status = SFT_STATUS_OK;
	switch (-rc) {
	case SFT_WIRE_OK:
	case SFT_WIRE_ENAME:
		return SFT_VERDICT_PROCEED;
	case SFT_WIRE_EVERSION:
	case SFT_WIRE_EFEATS:
		*status = SFT_STATUS_EPROTO;
		return SFT_VERDICT_REPLY;
	case SFT_WIRE_ESID:
	case SFT_WIRE_ESERVICE:
	case SFT_WIRE_ETESTCOUNT:
	case SFT_WIRE_ERW:
	case SFT_WIRE_ECHECK:
	case SFT_WIRE_EBULKLEN:
	case SFT_WIRE_EBULKOFF:
		*status = SFT_STATUS_EINVAL;
		return SFT_VERDICT_REPLY;
	default: /* ELEN, EMAGIC, ETYPE, EOPC, EPINGMAGIC, EINVAL */
		return SFT_VERDICT_DROP;
	}
}

void
sft_ids_init(struct sft_ids *ids, uint64_t unix_seconds)
{
	ids->last = unix_seconds << 48;
}

uint64_t
sft_ids_next(struct sft_ids *ids)
{
	return ++ids->last;
}

bool
sft_sid_equal(const struct sft_sid *a, const struct sft_sid *b)
{
	return a->nid == b->nid && a->stamp == b->stamp;
}

void
sft_reply_init(const struct sft_msg *req, struct sft_msg *reply)
{
	memset(reply, 0, sizeof(*reply));
	reply->version = SFT_MSG_VERSION;
	reply->type = req->type + 1;
}
