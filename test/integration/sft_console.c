/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sft_console: a stand-in for a kernel lst console, for tests of a node's
 * lnet_selftest service over the wire. It embeds liblnet with the socklnd
 * and sends the kernel's own captured request bytes (captured_msgs.h: the
 * s4_01 session) to the server's selftest portals, each with its reply MD
 * (and brw bulk) posted as 2.17's rpc.c posts them, and compares each
 * reply with the kernel's captured reply, byte for byte.
 *
 *   sft_console --nid NID --server NID [--port P] [--timeout S] [--send-only]
 *
 * Without --send-only: MKSN, TEST (the brw server side), a brw WRITE of
 * 4 KiB with its bulk, RMSN; "ok: STEP" or "FAIL: STEP" each; exit 0 when
 * all four replies are the kernel's bytes, 1 otherwise, 2 on bad usage or
 * when LNet cannot start. --send-only sends the MKSN request and exits 0
 * once it left, waiting for nothing (a test then looks at the server).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "captured_msgs.h"
#include "cfs.h"
#include "lnet_ctl.h"
#include "lnet_lnd.h"
#include "selftest.h"

#define CONSOLE_EQ_SIZE 64
#define CONSOLE_MS_PER_S 1000

struct console {
	struct lnet_eq *eq;
	struct lnet_processid server;
	int timeout_ms;
	uint8_t reply[SFT_MSG_SIZE];
	uint8_t out[SFT_MSG_SIZE];
	uint8_t bulk[4096];
};

static int
console_up(const struct lnet_nid *nid, unsigned int port)
{
	const struct lnet_lnd_ops *sock = lnet_lnd_find(LNET_LND_SOCK);
	struct lnet_ctl_ni_tunables tun = { 180, 8, 0, 256 };
	struct lnet_init_opts lo = {
		.opts_size = sizeof(lo),
		.mode = LNET_EXEC_POLLED,
		.no_eal = true,
	};
	char params[64];
	char err[256] = "";
	int rc;

	snprintf(params, sizeof(params), "accept_port=%u,accept=all", port);
	rc = sock == NULL || sock->params_set == NULL ? -EOPNOTSUPP :
							sock->params_set(params, err, sizeof(err));
	if (rc == 0) {
		rc = lnet_init_opts_set(&lo);
	}
	if (rc == 0) {
		rc = LNetNIInit(SFT_PID);
	}
	if (rc == 0) {
		rc = lnet_ctl_ni_add(nid, NULL, &tun, NULL, 0, err, sizeof(err));
	}
	if (rc != 0) {
		fprintf(stderr, "sft_console: %s\n", err[0] != '\0' ? err : strerror(-rc));
	}
	return rc;
}

/* The next event within the timeout, or false. */
static bool
console_event(struct console *c, struct lnet_event *ev)
{
	return LNetEQPoll(&c->eq, 1, c->timeout_ms, ev, NULL) >= 1;
}

/* A passive MD on portal 52 under @p bits, from the server only (srpc_post_passive_rdma). */
static int
console_post(struct console *c, void *buf, unsigned int len, unsigned int op, uint64_t bits)
{
	struct lnet_md md = {
		.umd_start = buf,
		.umd_length = len,
		.umd_threshold = 1,
		.umd_options = op,
		.umd_eq_handle = c->eq,
	};
	struct lnet_handle_md h;
	struct lnet_me *me =
		LNetMEAttach(SFT_PORTAL_RDMA, &c->server, bits, 0, LNET_UNLINK, LNET_INS_AFTER);

	return me == NULL ? -errno : LNetMDAttach(me, &md, LNET_UNLINK, &h);
}

/* PUT the 160 bytes of @p req to the server's service @p svc, no ACK. */
static int
console_put(struct console *c, const uint8_t *req, uint32_t svc)
{
	struct lnet_md md = {
		.umd_start = c->out,
		.umd_length = SFT_MSG_SIZE,
		.umd_threshold = 1,
		.umd_eq_handle = c->eq,
	};
	struct lnet_handle_md h;
	int rc;

	memcpy(c->out, req, SFT_MSG_SIZE);
	rc = LNetMDBind(&md, LNET_UNLINK, &h);
	return rc != 0 ? rc :
			 LNetPut(NULL, h, LNET_NOACK_REQ, &c->server, sft_service_portal(svc),
				 sft_request_match_bits(svc), 0, 0);
}

/* One RPC: its reply (under the request's rpyid) must be @p want's bytes. */
static bool
console_rpc(struct console *c, const char *step, const uint8_t *req, uint32_t svc,
	    const uint8_t *want)
{
	struct lnet_event ev;
	struct sft_msg m;
	bool replied = false;

	if (sft_msg_decode(req, SFT_MSG_SIZE, &m) != 0 ||
	    console_post(c, c->reply, sizeof(c->reply), LNET_MD_OP_PUT, m.body.rmsn_reqst.rpyid) !=
		    0 ||
	    console_put(c, req, svc) != 0) {
		printf("FAIL: %s: not sent\n", step);
		return false;
	}
	/* The request's SEND, the server's bulk GET if any, then the reply. */
	while (!replied && console_event(c, &ev)) {
		replied = ev.type == LNET_EVENT_PUT && ev.match_bits == m.body.rmsn_reqst.rpyid;
	}
	if (!replied || ev.mlength != SFT_MSG_SIZE || memcmp(c->reply, want, SFT_MSG_SIZE) != 0) {
		printf("FAIL: %s: %s\n", step, replied ? "not the kernel's reply" : "no reply");
		return false;
	}
	printf("ok: %s\n", step);
	return true;
}

/* The kernel's brw WRITE of 4 KiB: its bulk is posted for the server to GET. */
static bool
console_brw_write(struct console *c)
{
	struct sft_msg m;

	if (sft_msg_decode(s4_brw_reqst, SFT_MSG_SIZE, &m) != 0 ||
	    console_post(c, c->bulk, sizeof(c->bulk), LNET_MD_OP_GET, m.body.brw_reqst.bulkid) !=
		    0) {
		printf("FAIL: brw write: bulk not posted\n");
		return false;
	}
	return console_rpc(c, "brw write 4 KiB", s4_brw_reqst, SFT_SVC_BRW, s4_brw_reply);
}

static int
console_session(struct console *c)
{
	bool ok =
		console_rpc(c, "make session", s4_mksn_reqst, SFT_SVC_MAKE_SESSION, s4_mksn_reply);

	ok = ok && console_rpc(c, "add the brw server test", s4_test_reqst_brw_server, SFT_SVC_TEST,
			       s4_test_reply);
	ok = ok && console_brw_write(c);
	ok = ok &&
	     console_rpc(c, "remove session", s4_rmsn_reqst, SFT_SVC_REMOVE_SESSION, s4_rmsn_reply);
	return ok ? 0 : 1;
}

/* --send-only: the MKSN request leaves; nothing is waited for but its SEND. */
static int
console_send_only(struct console *c)
{
	struct lnet_event ev;

	if (console_put(c, s4_mksn_reqst, SFT_SVC_MAKE_SESSION) != 0 || !console_event(c, &ev) ||
	    ev.type != LNET_EVENT_SEND || ev.status != 0) {
		printf("FAIL: make session: not sent\n");
		return 1;
	}
	printf("ok: make session sent\n");
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "nid", required_argument, NULL, 'n' },
		{ "server", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "send-only", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct console c = { .timeout_ms = 10 * CONSOLE_MS_PER_S };
	struct lnet_nid nid;
	unsigned int port = 988;
	bool have_nid = false, have_server = false, send_only = false;
	int opt;
	int rc;

	while ((opt = getopt_long(argc, argv, "n:s:p:t:o", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			have_nid = libcfs_strnid(&nid, optarg) == 0;
			break;
		case 's':
			have_server = libcfs_strnid(&c.server.nid, optarg) == 0;
			break;
		case 'p':
			port = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 't':
			c.timeout_ms = atoi(optarg) * CONSOLE_MS_PER_S;
			break;
		case 'o':
			send_only = true;
			break;
		default:
			return 2;
		}
	}
	if (!have_nid || !have_server || c.timeout_ms <= 0) {
		fprintf(stderr,
			"usage: sft_console --nid NID --server NID [--port P] [--timeout S] "
			"[--send-only]\n");
		return 2;
	}
	c.server.pid = SFT_PID;
	if (console_up(&nid, port) != 0) {
		return 2;
	}
	c.eq = LNetEQAlloc(CONSOLE_EQ_SIZE);
	if (c.eq == NULL) {
		LNetNIFini();
		return 2;
	}
	rc = send_only ? console_send_only(&c) : console_session(&c);
	LNetNIFini();
	LNetEQFree(c.eq);
	return rc;
}
