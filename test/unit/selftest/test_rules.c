/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/selftest (sft_rules.c): service ids to portals and request types, the
 * request/reply type pairs, match bits and reply ids (the captures' ids),
 * status names, and what a 2.17 server does with each refused request.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "selftest.h"

static void
test_services_and_portals(void **state)
{
	(void)state;
	/* Framework services on 51, test services on 50 (s4_01: MKSN ptl 51, BRW ptl 50). */
	for (uint32_t svc = SFT_SVC_DEBUG; svc <= SFT_SVC_JOIN; svc++) {
		assert_true(sft_service_known(svc));
		assert_int_equal(sft_service_portal(svc), SFT_PORTAL_FRAMEWORK);
	}
	assert_int_equal(sft_service_portal(SFT_SVC_BRW), SFT_PORTAL_REQUEST);
	assert_int_equal(sft_service_portal(SFT_SVC_PING), SFT_PORTAL_REQUEST);
	assert_int_equal(sft_service_portal(SFT_SVC_FRAMEWORK_MAX), SFT_PORTAL_REQUEST);
	assert_int_equal(sft_service_portal(9), SFT_PORTAL_FRAMEWORK);
	assert_false(sft_service_known(7));
	assert_false(sft_service_known(SFT_SVC_FRAMEWORK_MAX));
	assert_false(sft_service_known(SFT_SVC_MAX));
	assert_false(sft_service_known(UINT32_MAX));
	assert_true(sft_request_match_bits(SFT_SVC_BRW) == 0xb);
	assert_true(sft_request_match_bits(SFT_SVC_MAKE_SESSION) == 0x1);
}

static void
test_type_pairs(void **state)
{
	static const struct {
		uint32_t svc;
		int reqst;
	} pairs[] = {
		{ SFT_SVC_DEBUG, SFT_MSG_DEBUG_REQST },
		{ SFT_SVC_MAKE_SESSION, SFT_MSG_MKSN_REQST },
		{ SFT_SVC_REMOVE_SESSION, SFT_MSG_RMSN_REQST },
		{ SFT_SVC_BATCH, SFT_MSG_BATCH_REQST },
		{ SFT_SVC_TEST, SFT_MSG_TEST_REQST },
		{ SFT_SVC_QUERY_STAT, SFT_MSG_STAT_REQST },
		{ SFT_SVC_JOIN, SFT_MSG_JOIN_REQST },
		{ SFT_SVC_BRW, SFT_MSG_BRW_REQST },
		{ SFT_SVC_PING, SFT_MSG_PING_REQST },
	};

	(void)state;
	for (unsigned int i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		assert_int_equal(sft_service_request_type(pairs[i].svc), pairs[i].reqst);
		assert_int_equal(sft_request_type_service(pairs[i].reqst), pairs[i].svc);
		assert_int_equal(sft_reply_type(pairs[i].reqst), pairs[i].reqst + 1);
	}
	assert_int_equal(sft_service_request_type(SFT_SVC_FRAMEWORK_MAX), -1);
	assert_int_equal(sft_service_request_type(13), -1);
	for (uint32_t t = 0; t < SFT_MSG_TYPE_MAX; t++) {
		assert_int_equal(sft_msg_type_is_request(t), t % 2 == 0);
		if (t % 2 == 1) {
			assert_int_equal(sft_reply_type(t), -1);
			assert_int_equal(sft_request_type_service(t), -1);
		}
		assert_string_not_equal(sft_msg_type_name(t), "?");
	}
	assert_int_equal(sft_reply_type(SFT_MSG_TYPE_MAX), -1);
	assert_string_equal(sft_msg_type_name(SFT_MSG_MKSN_REQST), "MKSN_REQST");
	assert_string_equal(sft_msg_type_name(SFT_MSG_TYPE_MAX), "?");
}

/* Ids of s4_01: the node started when (unix seconds & 0xffff) was 0xd04d. */
static void
test_reply_ids(void **state)
{
	struct sft_ids ids;

	(void)state;
	sft_ids_init(&ids, 0x6920d04dull);
	assert_true(sft_ids_next(&ids) == 0xd04d000000000001ull);
	assert_true(sft_ids_next(&ids) == 0xd04d000000000002ull);
	/* A brw RPC takes two: the reply id, then the bulk id just above it. */
	uint64_t rpyid = sft_ids_next(&ids);

	assert_true(sft_ids_next(&ids) == rpyid + 1);
}

static void
test_statuses(void **state)
{
	(void)state;
	/* Linux's numbers, since they travel on the wire. */
	assert_int_equal(SFT_STATUS_ENOENT, 2);
	assert_int_equal(SFT_STATUS_ESRCH, 3);
	assert_int_equal(SFT_STATUS_EIO, 5);
	assert_int_equal(SFT_STATUS_EBUSY, 16);
	assert_int_equal(SFT_STATUS_EINVAL, 22);
	assert_int_equal(SFT_STATUS_EPROTO, 71);
	assert_int_equal(SFT_STATUS_EBADMSG, 74);
	assert_string_equal(sft_status_name(SFT_STATUS_EBUSY), "EBUSY");
	assert_string_equal(sft_status_name(SFT_STATUS_EBADMSG), "EBADMSG");
	assert_string_equal(sft_status_name(1), "?");
}

static void
test_server_verdicts(void **state)
{
	static const struct {
		int rc;
		enum sft_verdict verdict;
		uint32_t status;
	} cases[] = {
		{ 0, SFT_VERDICT_PROCEED, 0 },
		{ -SFT_WIRE_ELEN, SFT_VERDICT_DROP, 0 },
		{ -SFT_WIRE_EMAGIC, SFT_VERDICT_DROP, 0 },
		{ -SFT_WIRE_ETYPE, SFT_VERDICT_DROP, 0 },
		{ -SFT_WIRE_EVERSION, SFT_VERDICT_REPLY, SFT_STATUS_EPROTO },
		{ -SFT_WIRE_EFEATS, SFT_VERDICT_REPLY, SFT_STATUS_EPROTO },
		{ -SFT_WIRE_ENAME, SFT_VERDICT_PROCEED, 0 },
		{ -SFT_WIRE_ESID, SFT_VERDICT_REPLY, SFT_STATUS_EINVAL },
		{ -SFT_WIRE_EOPC, SFT_VERDICT_DROP, 0 },
		{ -SFT_WIRE_ESERVICE, SFT_VERDICT_REPLY, SFT_STATUS_EINVAL },
		{ -SFT_WIRE_ETESTCOUNT, SFT_VERDICT_REPLY, SFT_STATUS_EINVAL },
		{ -SFT_WIRE_ERW, SFT_VERDICT_REPLY, SFT_STATUS_EINVAL },
		{ -SFT_WIRE_ECHECK, SFT_VERDICT_REPLY, SFT_STATUS_EINVAL },
		{ -SFT_WIRE_EBULKLEN, SFT_VERDICT_REPLY, SFT_STATUS_EINVAL },
		{ -SFT_WIRE_EBULKOFF, SFT_VERDICT_REPLY, SFT_STATUS_EINVAL },
		{ -SFT_WIRE_EPINGMAGIC, SFT_VERDICT_DROP, 0 },
	};
	uint32_t status;

	(void)state;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(sft_server_verdict(cases[i].rc, &status), cases[i].verdict);
		assert_int_equal(status, cases[i].status);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_services_and_portals),
		cmocka_unit_test(test_type_pairs),
		cmocka_unit_test(test_reply_ids),
		cmocka_unit_test(test_statuses),
		cmocka_unit_test(test_server_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
