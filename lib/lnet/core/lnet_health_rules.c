/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Health's rules (lnet_health_rules.h): what each completion status does,
 * the value arithmetic and the recovery-ping back-off, as the kernel's
 * lnet_health_check and lnet_recover_*; no node, no lcore.
 */
#include "lnet_health_rules.h"

/* The kernel's lnet_health_check, one row per status (lnet-facts §8.3). */
static const struct lnet_hs_reaction lnet_hs_table[LNET_MSG_STATUS_END] = {
	[LNET_MSG_STATUS_OK] = { false, false, LNET_HS_RESEND_NONE },
	[LNET_MSG_STATUS_LOCAL_INTERRUPT] = { true, false, LNET_HS_RESEND_LOCAL },
	[LNET_MSG_STATUS_LOCAL_DROPPED] = { true, false, LNET_HS_RESEND_LOCAL },
	[LNET_MSG_STATUS_LOCAL_ABORTED] = { true, false, LNET_HS_RESEND_LOCAL },
	[LNET_MSG_STATUS_LOCAL_NO_ROUTE] = { true, false, LNET_HS_RESEND_LOCAL },
	[LNET_MSG_STATUS_LOCAL_TIMEOUT] = { true, false, LNET_HS_RESEND_LOCAL },
	[LNET_MSG_STATUS_LOCAL_ERROR] = { true, false, LNET_HS_RESEND_NONE },
	[LNET_MSG_STATUS_REMOTE_ERROR] = { false, true, LNET_HS_RESEND_NONE },
	[LNET_MSG_STATUS_REMOTE_DROPPED] = { false, true, LNET_HS_RESEND_REMOTE },
	[LNET_MSG_STATUS_REMOTE_TIMEOUT] = { false, true, LNET_HS_RESEND_NONE },
	/*
	 * The kernel resends no network timeout. Ours go again (issue 31): an
	 * LND reports one for bytes the peer's transport never acknowledged
	 * within lnd_timeout (a path that drops silently), which is how a
	 * remote drop looks when nothing tells: resent inside
	 * transaction_timeout, not failed after it. Which end dropped is not
	 * known (without source routing a rail's local NI reaches the peer's
	 * other NID through the other link, and the answers come back through
	 * its own): the next try avoids both, the path.
	 */
	[LNET_MSG_STATUS_NETWORK_TIMEOUT] = { true, true, LNET_HS_RESEND_PATH },
};

const struct lnet_hs_reaction *
lnet_hs_reaction(enum lnet_msg_hstatus hs)
{
	return (unsigned int)hs < LNET_MSG_STATUS_END ? &lnet_hs_table[hs] : NULL;
}

const char *
lnet_hs_str(enum lnet_msg_hstatus hs)
{
	static const char *const names[LNET_MSG_STATUS_END] = {
		[LNET_MSG_STATUS_OK] = "OK",
		[LNET_MSG_STATUS_LOCAL_INTERRUPT] = "LOCAL_INTERRUPT",
		[LNET_MSG_STATUS_LOCAL_DROPPED] = "LOCAL_DROPPED",
		[LNET_MSG_STATUS_LOCAL_ABORTED] = "LOCAL_ABORTED",
		[LNET_MSG_STATUS_LOCAL_NO_ROUTE] = "LOCAL_NO_ROUTE",
		[LNET_MSG_STATUS_LOCAL_ERROR] = "LOCAL_ERROR",
		[LNET_MSG_STATUS_LOCAL_TIMEOUT] = "LOCAL_TIMEOUT",
		[LNET_MSG_STATUS_REMOTE_ERROR] = "REMOTE_ERROR",
		[LNET_MSG_STATUS_REMOTE_DROPPED] = "REMOTE_DROPPED",
		[LNET_MSG_STATUS_REMOTE_TIMEOUT] = "REMOTE_TIMEOUT",
		[LNET_MSG_STATUS_NETWORK_TIMEOUT] = "NETWORK_TIMEOUT",
	};

	return (unsigned int)hs < LNET_MSG_STATUS_END ? names[hs] : "<UNKNOWN>";
}

int
lnet_health_lowered(int value, int sensitivity)
{
	return value < sensitivity ? 0 : value - sensitivity;
}

int
lnet_health_raised(int value, int sensitivity)
{
	return value + sensitivity >= LNET_MAX_HEALTH_VALUE ? LNET_MAX_HEALTH_VALUE :
							      value + sensitivity;
}

int64_t
lnet_recovery_next_ping(uint32_t ping_count, int64_t now, int max_interval)
{
	return now + (ping_count > LNET_RECOVERY_PING_COUNT_MAX ? max_interval : 1LL << ping_count);
}
