/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The test node's framework fed a stream of requests from hostile
 * consoles. The input is records of one control byte and 160 message bytes:
 * the control byte advances the clock, picks whether a TEST's destination
 * bulk arrives (its bytes are the next record) or fails, and ends units of
 * running tests. Every request must give a reply of the right type or a
 * drop, never a crash or a leak, and the framework's counts stay
 * consistent (zombies exist only while their tests run).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sft_fw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REC_SIZE (1u + SFT_MSG_SIZE)
#define MAX_RUNNING 64u

struct engine {
	struct sft_fw_test *running[MAX_RUNNING];
	unsigned int nrunning;
};

static void
engine_start(void *ctx, struct sft_fw_test *t)
{
	struct engine *e = ctx;

	if (e->nrunning < MAX_RUNNING) {
		e->running[e->nrunning++] = t;
	}
}

/* A test that goes must not be running (the framework's promise to the engine). */
static void
engine_gone(void *ctx, struct sft_fw_test *t)
{
	struct engine *e = ctx;
	unsigned int i;

	for (i = 0; i < e->nrunning; i++) {
		if (e->running[i] == t) {
			__builtin_trap();
		}
	}
}

/*
 * End one unit of the first running test. Its last unit leaves the list
 * first: the framework may free the test in sft_fw_unit_done().
 */
static void
engine_unit_done(struct engine *e, struct sft_fw *fw)
{
	struct sft_fw_test *t;

	if (e->nrunning == 0) {
		return;
	}
	t = e->running[0];
	if (t->nactive == 1) {
		memmove(&e->running[0], &e->running[1], (e->nrunning - 1) * sizeof(e->running[0]));
		e->nrunning--;
	}
	sft_fw_unit_done(fw, t);
}

static void
check_reply(const struct sft_msg *req, const struct sft_msg *reply)
{
	uint8_t wire[SFT_MSG_SIZE];

	if (reply->type != req->type + 1 || reply->version != SFT_MSG_VERSION ||
	    sft_msg_encode(reply, wire, sizeof(wire)) != 0) {
		__builtin_trap();
	}
}

static void
check_counts(const struct sft_fw *fw)
{
	const struct sft_fw_session *sn;
	uint32_t n = 0;

	for (sn = fw->zombies; sn != NULL; sn = sn->next) {
		n++;
	}
	if (n != fw->nzombies || (fw->session == NULL && fw->deadline_ms != 0)) {
		__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct engine eng;
	struct sft_fw_ops ops = {
		.test_start = engine_start,
		.test_gone = engine_gone,
		.ctx = &eng,
	};
	struct sft_fw fw;
	uint64_t now = 1;
	size_t at = 0;

	memset(&eng, 0, sizeof(eng));
	sft_fw_init(&fw, &ops, SFT_FW_SESSION_TIMEOUT_S);
	while (size - at >= REC_SIZE) {
		uint8_t ctl = data[at];
		struct sft_msg req, reply;
		uint32_t bulk_len = 0;
		enum sft_fw_action act;

		now += (uint64_t)(ctl & 0x0f) * 20000u; /* up to 300 s a step: the timer fires */
		sft_fw_expire(&fw, now);
		if (ctl & 0x10) {
			engine_unit_done(&eng, &fw);
		}
		at += REC_SIZE;
		if (sft_msg_decode(&data[at - SFT_MSG_SIZE], SFT_MSG_SIZE, &req) != 0) {
			continue;
		}
		act = sft_fw_handle(&fw, &req, now, &reply, &bulk_len);
		if (act == SFT_FW_BULK) {
			/* The bulk: the next record's bytes, cut to what was asked; or it failed. */
			size_t have = size - at < bulk_len ? size - at : bulk_len;

			act = sft_fw_test_bulk_ready(&fw, &req, (ctl & 0x20) ? -5 : 0, &data[at],
						     (uint32_t)have, now, &reply);
			if (act == SFT_FW_BULK) {
				__builtin_trap();
			}
		}
		if (act == SFT_FW_REPLY) {
			check_reply(&req, &reply);
		}
		check_counts(&fw);
	}
	/* The engine stops what it ran before the framework goes (as shutdown does). */
	while (eng.nrunning != 0) {
		engine_unit_done(&eng, &fw);
	}
	sft_fw_fini(&fw);
	return 0;
}
