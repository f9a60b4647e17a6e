/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client service (issue 36, doc/xprt.md "Many processes on one
 * daemon"): off until --xprt-clients. A thread of its own (not an lcore:
 * it waits on sockets) listens at xprt.sock in the EAL runtime directory,
 * beside the telemetry socket, for processes of the uids --xprt-uids
 * names (the daemon's own by default), and maps the memfd regions they
 * hand over (lib/xprt's xprt_attach.h). Telemetry /lnet/xprt_clients
 * lists them.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

#include "lnetd.h"
#include "xprt_attach.h"

/* How long the thread waits on its sockets before it looks at its stop flag. */
#define LNETD_XPRT_POLL_MS 100
#define LNETD_XPRT_MAX_UIDS 16

static struct {
	pthread_mutex_t lock; /* svc's life (start, stop, telemetry's reads) */
	struct xprt_svc *svc;
	pthread_t thread;
	atomic_bool stop;
	uid_t uids[LNETD_XPRT_MAX_UIDS];
	unsigned int nuids;
	char path[256];
} lnetd_xprt = { .lock = PTHREAD_MUTEX_INITIALIZER };

int
lnetd_xprt_uids(const char *list)
{
	char *copy = strdup(list);
	char *save = NULL;
	char *tok;
	int rc = 0;

	if (copy == NULL) {
		return -ENOMEM;
	}
	lnetd_xprt.nuids = 0;
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long v = strtoul(tok, &end, 10);

		if (*tok == '\0' || *end != '\0' || v >= (unsigned long)(uid_t)-1 ||
		    lnetd_xprt.nuids == LNETD_XPRT_MAX_UIDS) {
			rc = -EINVAL;
			break;
		}
		lnetd_xprt.uids[lnetd_xprt.nuids++] = (uid_t)v;
	}
	free(copy);
	return rc != 0 || lnetd_xprt.nuids == 0 ? -EINVAL : 0;
}

static void *
lnetd_xprt_main(void *arg)
{
	struct xprt_svc *svc = arg;

	while (!atomic_load(&lnetd_xprt.stop)) {
		if (xprt_svc_poll(svc, LNETD_XPRT_POLL_MS) < 0) {
			break; /* poll(2) itself failed: nothing more to serve */
		}
	}
	return NULL;
}

int
lnetd_xprt_start(void)
{
	struct xprt_svc *svc;
	int rc;

	if (lnetd_xprt.nuids == 0) {
		lnetd_xprt.uids[lnetd_xprt.nuids++] = geteuid();
	}
	snprintf(lnetd_xprt.path, sizeof(lnetd_xprt.path), "%s/xprt.sock",
		 rte_eal_get_runtime_dir());
	rc = xprt_svc_open(lnetd_xprt.path, lnetd_xprt.uids, lnetd_xprt.nuids, &svc);
	if (rc != 0) {
		return rc;
	}
	atomic_store(&lnetd_xprt.stop, false);
	rc = pthread_create(&lnetd_xprt.thread, NULL, lnetd_xprt_main, svc);
	if (rc != 0) {
		xprt_svc_close(svc);
		return -rc;
	}
	/* Published once its thread runs: telemetry may read it from now on. */
	pthread_mutex_lock(&lnetd_xprt.lock);
	lnetd_xprt.svc = svc;
	pthread_mutex_unlock(&lnetd_xprt.lock);
	return 0;
}

void
lnetd_xprt_shutdown(void)
{
	struct xprt_svc *svc;

	pthread_mutex_lock(&lnetd_xprt.lock);
	svc = lnetd_xprt.svc;
	lnetd_xprt.svc = NULL;
	pthread_mutex_unlock(&lnetd_xprt.lock);
	if (svc == NULL) {
		return;
	}
	atomic_store(&lnetd_xprt.stop, true);
	pthread_join(lnetd_xprt.thread, NULL);
	xprt_svc_close(svc);
}

/* /lnet/xprt_clients: the service's counters and each attached client. */
static int
lnetd_xprt_clients_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct xprt_svc_client_info ci[XPRT_ATT_MAX_CLIENTS];
	struct xprt_svc_stats st;
	unsigned int n;
	unsigned int i;

	(void)cmd;
	(void)params;
	pthread_mutex_lock(&lnetd_xprt.lock);
	if (lnetd_xprt.svc == NULL) {
		pthread_mutex_unlock(&lnetd_xprt.lock);
		return lnetd_reply_status(d, -ENODEV, "the client service is off (--xprt-clients)");
	}
	xprt_svc_stats_get(lnetd_xprt.svc, &st);
	n = xprt_svc_clients(lnetd_xprt.svc, ci, XPRT_ATT_MAX_CLIENTS);
	pthread_mutex_unlock(&lnetd_xprt.lock);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "socket", lnetd_xprt.path);
	rte_tel_data_add_dict_u64(d, "attached", st.attached);
	rte_tel_data_add_dict_u64(d, "refused", st.refused);
	rte_tel_data_add_dict_u64(d, "failed", st.failed);
	rte_tel_data_add_dict_u64(d, "detached", st.detached);
	rte_tel_data_add_dict_u64(d, "regions", st.regions);
	rte_tel_data_add_dict_u64(d, "mapped_bytes", st.mapped_bytes);
	rte_tel_data_add_dict_u64(d, "tms", st.tms);
	/* DPDK 22.11's telemetry nests one level: a dict per client, "client<id>". */
	for (i = 0; i < n; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		char key[32];

		if (c == NULL) {
			return -ENOMEM;
		}
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "id", ci[i].id);
		rte_tel_data_add_dict_int(c, "pid", ci[i].pid);
		rte_tel_data_add_dict_u64(c, "uid", ci[i].uid);
		rte_tel_data_add_dict_u64(c, "regions", ci[i].regions);
		rte_tel_data_add_dict_u64(c, "mapped_bytes", ci[i].mapped_bytes);
		rte_tel_data_add_dict_u64(c, "tms", ci[i].tms);
		snprintf(key, sizeof(key), "client%" PRIu64, ci[i].id);
		if (rte_tel_data_add_dict_container(d, key, c, 0) != 0) {
			rte_tel_data_free(c);
			return -ENOMEM;
		}
	}
	return 0;
}

int
lnetd_xprt_register(void)
{
	return lnetd_telemetry_add(
		"/lnet/xprt_clients", lnetd_xprt_clients_show,
		"Client processes attached to the transport service. No parameters");
}
