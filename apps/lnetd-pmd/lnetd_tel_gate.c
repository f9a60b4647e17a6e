/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK runs each telemetry client on a thread of its own that nobody joins,
 * and a command may be inside liblnet (a discover waits up to three
 * transaction timeouts) when the daemon is told to stop. Every command runs
 * holding the LNet instance (lnet_ctl_hold): LNetNIFini ends their waits
 * and waits for them to leave before it frees what they use; a command that
 * comes after is answered -ESHUTDOWN.
 */
#include <errno.h>
#include <string.h>

#include <rte_telemetry.h>

#include "lnet_ctl.h"
#include "lnetd.h"

#define LNETD_TEL_MAX_CMDS 48

struct lnetd_tel_cmd {
	const char *cmd;
	telemetry_cb fn;
};

/* Filled before the daemon says it is up, read-only after. */
static struct {
	struct lnetd_tel_cmd cmds[LNETD_TEL_MAX_CMDS];
	unsigned int ncmds;
} lnetd_tel;

static telemetry_cb
lnetd_tel_find(const char *cmd)
{
	unsigned int i;

	for (i = 0; i < lnetd_tel.ncmds; i++) {
		if (strcmp(lnetd_tel.cmds[i].cmd, cmd) == 0) {
			return lnetd_tel.cmds[i].fn;
		}
	}
	return NULL;
}

static int
lnetd_tel_held(const char *cmd, const char *params, struct rte_tel_data *d)
{
	telemetry_cb fn = lnetd_tel_find(cmd);
	int rc;

	if (fn == NULL || lnet_ctl_hold() != 0) {
		return lnetd_reply_status(d, -ESHUTDOWN, "lnetd-pmd is stopping");
	}
	rc = fn(cmd, params, d);
	lnet_ctl_release();
	return rc;
}

int
lnetd_telemetry_add(const char *cmd, telemetry_cb fn, const char *help)
{
	if (lnetd_tel.ncmds == LNETD_TEL_MAX_CMDS) {
		return -ENOSPC;
	}
	lnetd_tel.cmds[lnetd_tel.ncmds++] = (struct lnetd_tel_cmd){ cmd, fn };
	return rte_telemetry_register_cmd(cmd, lnetd_tel_held, help);
}
