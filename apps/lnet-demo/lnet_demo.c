/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnet-demo: bring LNet up on 0@lo, PUT a buffer to ourselves with an ACK,
 * GET it back, send one PUT nobody matches, and print every event and the
 * counters as YAML. Exit status 0 only if everything happened as expected.
 *
 *   lnet-demo [--cpts N] [--eal "EAL ARGS"]
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cfs.h"

#define DEMO_PORTAL 10
#define DEMO_BITS 0x1234ULL

struct demo {
	struct lnet_eq *eq;
	struct lnet_processid self;
	int failures;
};

static void
demo_print_event(const struct lnet_event *ev)
{
	char nid[LNET_NIDSTR_SIZE];

	printf("  - event: %s\n", lnet_event_kind_str(ev->type));
	printf("    status: %d\n", ev->status);
	printf("    initiator: %u-%s\n", ev->initiator.pid,
	       libcfs_nidstr_r(&ev->initiator.nid, nid, sizeof(nid)));
	printf("    portal: %u\n", ev->pt_index);
	printf("    match_bits: 0x%llx\n", (unsigned long long)ev->match_bits);
	printf("    rlength: %u\n", ev->rlength);
	printf("    mlength: %u\n", ev->mlength);
	printf("    offset: %u\n", ev->offset);
	printf("    unlinked: %d\n", ev->unlinked);
}

/*
 * Take the next @p n events and check they are @p kinds with @p lengths.
 * Events of different MDs may arrive in any order (they come from the
 * lcores owning each MD); an initiator's SEND always precedes its ACK/REPLY.
 */
static void
demo_expect(struct demo *d, const enum lnet_event_kind *kinds, const unsigned int *lengths,
	    unsigned int n)
{
	bool seen[4] = { false };
	bool send_seen = false;
	unsigned int i;
	unsigned int k;

	for (i = 0; i < n; i++) {
		struct lnet_event ev;
		int rc = LNetEQPoll(&d->eq, 1, 1000, &ev, NULL);

		if (rc != 1) {
			printf("  - error: expected %u more event(s), got none (rc %d)\n", n - i,
			       rc);
			d->failures++;
			return;
		}
		demo_print_event(&ev);
		for (k = 0; k < n; k++) {
			if (!seen[k] && kinds[k] == ev.type && lengths[k] == ev.mlength) {
				seen[k] = true;
				break;
			}
		}
		if (k == n || ev.status != 0 ||
		    ((ev.type == LNET_EVENT_ACK || ev.type == LNET_EVENT_REPLY) && !send_seen)) {
			printf("    error: unexpected event\n");
			d->failures++;
		}
		send_seen |= ev.type == LNET_EVENT_SEND;
	}
}

static int
demo_attach_target(struct demo *d, void *buf, unsigned int len)
{
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_md md = {
		.umd_start = buf,
		.umd_length = len,
		.umd_threshold = LNET_MD_THRESH_INF,
		.umd_options = LNET_MD_OP_PUT | LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE,
		.umd_eq_handle = d->eq,
	};
	struct lnet_handle_md h;
	struct lnet_me *me;

	me = LNetMEAttach(DEMO_PORTAL, &any, DEMO_BITS, 0, LNET_UNLINK, LNET_INS_AFTER);
	if (me == NULL) {
		return -errno;
	}
	return LNetMDAttach(me, &md, LNET_UNLINK, &h);
}

static int
demo_bind(struct demo *d, void *buf, unsigned int len, struct lnet_handle_md *h)
{
	struct lnet_md md = {
		.umd_start = buf,
		.umd_length = len,
		.umd_threshold = 2,
		.umd_eq_handle = d->eq,
	};

	return LNetMDBind(&md, LNET_UNLINK, h);
}

static int
demo_put_get(struct demo *d)
{
	static char target[64];
	char msg[] = "hello from lnet-pmd over 0@lo";
	char back[sizeof(msg)];
	struct lnet_handle_md h;
	int rc;

	rc = demo_attach_target(d, target, sizeof(target));
	if (rc == 0) {
		rc = demo_bind(d, msg, sizeof(msg), &h);
	}
	if (rc == 0) {
		printf("put:\n");
		rc = LNetPut(NULL, h, LNET_ACK_REQ, &d->self, DEMO_PORTAL, DEMO_BITS, 0, 0);
	}
	if (rc != 0) {
		return rc;
	}
	demo_expect(d, (enum lnet_event_kind[]){ LNET_EVENT_SEND, LNET_EVENT_PUT, LNET_EVENT_ACK },
		    (unsigned int[]){ sizeof(msg), sizeof(msg), sizeof(msg) }, 3);
	memset(back, 0, sizeof(back));
	rc = demo_bind(d, back, sizeof(back), &h);
	if (rc == 0) {
		printf("get:\n");
		rc = LNetGet(NULL, h, &d->self, DEMO_PORTAL, DEMO_BITS, 0, false);
	}
	if (rc != 0) {
		return rc;
	}
	demo_expect(d,
		    (enum lnet_event_kind[]){ LNET_EVENT_SEND, LNET_EVENT_GET, LNET_EVENT_REPLY },
		    (unsigned int[]){ 0, sizeof(msg), sizeof(msg) }, 3);
	printf("data_returned: \"%s\"\n", back);
	if (strcmp(back, msg) != 0) {
		d->failures++;
	}
	return 0;
}

/* A PUT whose match bits nobody posted: dropped at the target and counted. */
static int
demo_mismatch(struct demo *d)
{
	char msg[] = "nobody wants this";
	struct lnet_handle_md h;
	int rc = demo_bind(d, msg, sizeof(msg), &h);

	if (rc == 0) {
		printf("mismatched_put:\n");
		rc = LNetPut(NULL, h, LNET_ACK_REQ, &d->self, DEMO_PORTAL, DEMO_BITS + 1, 0, 0);
	}
	if (rc == 0) {
		demo_expect(d, (enum lnet_event_kind[]){ LNET_EVENT_SEND },
			    (unsigned int[]){ sizeof(msg) }, 1);
	}
	return rc;
}

static void
demo_print_counters(struct demo *d)
{
	struct lnet_counters c;

	if (lnet_counters_get(&c) != 0) {
		d->failures++;
		return;
	}
	printf("statistics:\n");
	printf("    msgs_alloc: %u\n    msgs_max: %u\n    errors: %u\n", c.msgs_alloc, c.msgs_max,
	       c.errors);
	printf("    send_count: %u\n    recv_count: %u\n    drop_count: %u\n", c.send_count,
	       c.recv_count, c.drop_count);
	printf("    send_length: %llu\n    recv_length: %llu\n    drop_length: %llu\n",
	       (unsigned long long)c.send_length, (unsigned long long)c.recv_length,
	       (unsigned long long)c.drop_length);
	if (c.drop_count != 1 || c.msgs_alloc != 0) {
		d->failures++;
	}
}

static int
demo_parse_args(int argc, char **argv, struct lnet_init_opts *o)
{
	static const struct option longopts[] = {
		{ "cpts", required_argument, NULL, 'c' },
		{ "eal", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "c:e:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			o->ncpts = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'e':
			o->eal_args = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [--cpts N] [--eal \"EAL ARGS\"]\n", argv[0]);
			return opt == 'h' ? 1 : -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct lnet_init_opts o = { .opts_size = sizeof(o), .ncpts = 1 };
	struct demo d = { 0 };
	int rc = demo_parse_args(argc, argv, &o);

	if (rc != 0) {
		return rc > 0 ? 0 : 2;
	}
	if (lnet_init_opts_set(&o) != 0 || LNetNIInit(LNET_PID_LUSTRE) != 0 ||
	    LNetGetId(0, &d.self, true) != 0) {
		fprintf(stderr, "lnet-demo: LNet initialization failed\n");
		return 1;
	}
	printf("nid: %s\n", libcfs_nidstr(&d.self.nid));
	d.eq = LNetEQAlloc(64);
	rc = d.eq == NULL ? -ENOMEM : demo_put_get(&d);
	if (rc == 0) {
		rc = demo_mismatch(&d);
	}
	if (rc == 0) {
		demo_print_counters(&d);
	}
	LNetNIFini();
	LNetEQFree(d.eq);
	if (rc != 0 || d.failures != 0) {
		fprintf(stderr, "lnet-demo: FAILED (rc %d, %d unexpected results)\n", rc,
			d.failures);
		return 1;
	}
	printf("result: ok\n");
	return 0;
}
