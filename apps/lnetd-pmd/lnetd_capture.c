/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnetctl capture: one pcap capture at a time over the chosen tcp NIs.
 * /lnet/capture_start,file=F[,net=NET][,nid=NID][,max_bytes=N][,format=pcapng|pcap]
 * /lnet/capture_stop and /lnet/capture_show. Telemetry serves each client
 * on its own thread, so the capture's state is under a mutex; the NIs are
 * attached and detached on their own lcores (lnet_ctl_ni_capture).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "cfs.h"
#include "lnet_ctl.h"
#include "lnet_pcap.h"
#include "lnetd.h"

#define LNETD_CAPTURE_NIS 64

struct lnetd_capture {
	pthread_mutex_t lock;
	struct lnet_pcap *cap; /* NULL: no capture runs */
	char file[PATH_MAX];
	struct lnet_nid nis[LNETD_CAPTURE_NIS];
	unsigned int nnis;
};

static struct lnetd_capture g_lnetd_capture = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void
lnetd_capture_reply(struct rte_tel_data *d, const struct lnetd_capture *lc,
		    const struct lnet_pcap_stats *st)
{
	char nid[LNET_NIDSTR_SIZE];
	char key[16];
	unsigned int i;

	rte_tel_data_add_dict_string(d, "file", lc->file);
	rte_tel_data_add_dict_u64(d, "packets", st->packets);
	rte_tel_data_add_dict_u64(d, "bytes", st->bytes);
	rte_tel_data_add_dict_u64(d, "dropped", st->dropped);
	rte_tel_data_add_dict_u64(d, "max_bytes", st->max_bytes);
	for (i = 0; i < lc->nnis; i++) {
		snprintf(key, sizeof(key), "nid%u", i);
		rte_tel_data_add_dict_string(d, key,
					     libcfs_nidstr_r(&lc->nis[i], nid, sizeof(nid)));
	}
}

/* Attach the NIs that match @p net / @p only (none given: every NI but lo). */
static int
lnetd_capture_attach(struct lnetd_capture *lc, uint32_t net, const struct lnet_nid *only, char *err,
		     size_t errlen)
{
	struct lnet_ctl_ni *nis = calloc(LNETD_CAPTURE_NIS, sizeof(*nis));
	int n = nis != NULL ? lnet_ctl_ni_list(nis, LNETD_CAPTURE_NIS) : -ENOMEM;
	int rc = 0;
	int i;

	for (i = 0; i < n && rc == 0; i++) {
		if (lnet_nid_is_lo0(&nis[i].nid) || (net != LNET_NET_ANY && nis[i].net != net) ||
		    (only != NULL && !lnet_nid_same(&nis[i].nid, only))) {
			continue;
		}
		rc = lnet_ctl_ni_capture(&nis[i].nid, lc->cap);
		if (rc == 0) {
			lc->nis[lc->nnis++] = nis[i].nid;
		} else {
			snprintf(err, errlen, "%s: cannot capture: %s", libcfs_nidstr(&nis[i].nid),
				 strerror(-rc));
		}
	}
	free(nis);
	if (n < 0) {
		return n;
	}
	if (rc == 0 && lc->nnis == 0) {
		snprintf(err, errlen, "no NI to capture (lo has no wire traffic)");
		rc = -ENOENT;
	}
	return rc;
}

/* Detach every NI, then close: nothing can enqueue once each lcore let go. */
static void
lnetd_capture_end(struct lnetd_capture *lc, struct lnet_pcap_stats *st)
{
	unsigned int i;

	for (i = 0; i < lc->nnis; i++) {
		lnet_ctl_ni_capture(&lc->nis[i], NULL); /* a NI deleted meanwhile is fine */
	}
	lnet_pcap_close(lc->cap, st);
	lc->cap = NULL;
}

/* What capture_start asked for, beyond the file. */
struct lnetd_capture_req {
	uint32_t net;
	struct lnet_nid nid;
	bool has_nid;
	uint64_t max_bytes;
	enum lnet_pcap_format format;
};

static int
lnetd_capture_params(const char *params, char *file, size_t flen, struct lnetd_capture_req *rq,
		     char *err, size_t errlen)
{
	char val[PATH_MAX];
	char *end = NULL;

	if (!lnetd_param(params, "file", file, flen) || file[0] == '\0') {
		snprintf(err, errlen, "--file is required");
		return -EINVAL;
	}
	if (lnetd_param(params, "net", val, sizeof(val)) &&
	    (rq->net = libcfs_str2net(val)) == LNET_NET_ANY) {
		snprintf(err, errlen, "--net %s: not a network", val);
		return -EINVAL;
	}
	rq->has_nid = lnetd_param(params, "nid", val, sizeof(val));
	if (rq->has_nid && libcfs_strnid_err(&rq->nid, val, err, errlen) != 0) {
		return -EINVAL;
	}
	if (lnetd_param(params, "max_bytes", val, sizeof(val))) {
		rq->max_bytes = strtoull(val, &end, 10);
		if (val[0] == '\0' || val[0] == '-' || *end != '\0' || rq->max_bytes < 4096) {
			snprintf(err, errlen, "--max-bytes: a number of bytes, at least 4096");
			return -EINVAL;
		}
	}
	if (lnetd_param(params, "format", val, sizeof(val))) {
		if (strcmp(val, "pcapng") != 0 && strcmp(val, "pcap") != 0) {
			snprintf(err, errlen, "--format %s: pcapng or pcap", val);
			return -EINVAL;
		}
		rq->format = strcmp(val, "pcap") == 0 ? LNET_PCAP_PCAP : LNET_PCAP_PCAPNG;
	}
	return 0;
}

static int
lnetd_capture_start(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lnetd_capture *lc = &g_lnetd_capture;
	struct lnet_pcap_stats st;
	struct lnetd_capture_req rq = { .net = LNET_NET_ANY, .format = LNET_PCAP_PCAPNG };
	char err[PATH_MAX + 64] = "";
	int rc;

	(void)cmd;
	pthread_mutex_lock(&lc->lock);
	rc = lnetd_capture_params(params, lc->file, sizeof(lc->file), &rq, err, sizeof(err));
	if (rc == 0 && lc->cap != NULL) {
		snprintf(err, sizeof(err), "a capture to another file runs: lnetctl capture stop");
		rc = -EALREADY;
	}
	if (rc == 0) {
		rc = lnet_pcap_open(lc->file, rq.format, "LNet traffic of lnetd-pmd's tcp NIs",
				    rq.max_bytes, &lc->cap, err, sizeof(err));
	}
	if (rc == 0) {
		lc->nnis = 0;
		rc = lnetd_capture_attach(lc, rq.net, rq.has_nid ? &rq.nid : NULL, err,
					  sizeof(err));
		if (rc != 0) {
			lnetd_capture_end(lc, &st);
			remove(lc->file);
		}
	}
	lnetd_reply_status(d, rc, err);
	if (rc == 0) {
		lnet_pcap_stats_get(lc->cap, &st);
		lnetd_capture_reply(d, lc, &st);
	}
	pthread_mutex_unlock(&lc->lock);
	return 0;
}

/* stop and show: the running capture's totals, ending it first for stop. */
static int
lnetd_capture_report(struct rte_tel_data *d, bool stop)
{
	struct lnetd_capture *lc = &g_lnetd_capture;
	struct lnet_pcap_stats st;

	pthread_mutex_lock(&lc->lock);
	if (lc->cap == NULL) {
		pthread_mutex_unlock(&lc->lock);
		return lnetd_reply_status(d, -ENOENT, "no capture runs");
	}
	if (stop) {
		lnetd_capture_end(lc, &st);
	} else {
		lnet_pcap_stats_get(lc->cap, &st);
	}
	lnetd_reply_status(d, 0, "");
	lnetd_capture_reply(d, lc, &st);
	pthread_mutex_unlock(&lc->lock);
	return 0;
}

static int
lnetd_capture_stop(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	return lnetd_capture_report(d, true);
}

static int
lnetd_capture_show(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	return lnetd_capture_report(d, false);
}

void
lnetd_capture_shutdown(void)
{
	struct lnetd_capture *lc = &g_lnetd_capture;

	pthread_mutex_lock(&lc->lock);
	if (lc->cap != NULL) {
		lnetd_capture_end(lc, NULL);
	}
	pthread_mutex_unlock(&lc->lock);
}

int
lnetd_capture_register(void)
{
	int rc = lnetd_telemetry_add("/lnet/capture_start", lnetd_capture_start,
				     "Capture tcp NIs' traffic to pcap. Params: file=F, "
				     "net=NET, nid=NID, max_bytes=N");

	if (rc == 0) {
		rc = lnetd_telemetry_add("/lnet/capture_stop", lnetd_capture_stop,
					 "Stop the capture: file, packets, bytes, dropped");
	}
	if (rc == 0) {
		rc = lnetd_telemetry_add("/lnet/capture_show", lnetd_capture_show,
					 "The running capture: file, packets, bytes, dropped");
	}
	return rc;
}
