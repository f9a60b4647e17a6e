/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Health's pure parts (lnet_health_rules.c; the node applies them in
 * dp/lnet_health.c and mgmt/lnet_recovery.c), apart so unit
 * tests check them without a node: the reaction to each completion
 * status, the value arithmetic and the recovery-ping back-off.
 */
#ifndef LNET_HEALTH_RULES_H
#define LNET_HEALTH_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "lnet_types.h"

/* Every NI and peer NI starts here (the kernel's LNET_MAX_HEALTH_VALUE). */
#define LNET_MAX_HEALTH_VALUE 1000

/* Which path a failure may be resent around. */
enum lnet_hs_resend {
	LNET_HS_RESEND_NONE = 0,
	LNET_HS_RESEND_LOCAL,  /* another local NI (if this node has two) */
	LNET_HS_RESEND_REMOTE, /* another peer NI (if the peer has two) */
	LNET_HS_RESEND_PATH,   /* another peer NI, and another local NI if there is one */
};

/* What one completion status does (the kernel's lnet_health_check). */
struct lnet_hs_reaction {
	bool local;  /* the local NI's health drops, it joins local recovery */
	bool remote; /* the peer NI's health drops, it joins peer recovery */
	enum lnet_hs_resend resend;
};

/* NULL for a value outside the enum. */
const struct lnet_hs_reaction *lnet_hs_reaction(enum lnet_msg_hstatus hs);
/* "LOCAL_DROPPED", as the kernel's lnet_health_error2str. */
const char *lnet_hs_str(enum lnet_msg_hstatus hs);

/* A failure's new value: @p sensitivity less, not below 0. */
int lnet_health_lowered(int value, int sensitivity);
/* A success's: @p sensitivity more, at most LNET_MAX_HEALTH_VALUE. */
int lnet_health_raised(int value, int sensitivity);

/* Pings after which the interval stops doubling (the kernel's lnet_max_recovery_ping_count). */
#define LNET_RECOVERY_PING_COUNT_MAX 9

/*
 * When the next recovery ping goes (seconds): 2^ping_count after @p now,
 * or @p max_interval once more than LNET_RECOVERY_PING_COUNT_MAX pings went.
 */
int64_t lnet_recovery_next_ping(uint32_t ping_count, int64_t now, int max_interval);

#endif /* LNET_HEALTH_RULES_H */
