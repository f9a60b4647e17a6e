/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The LNet header's wire coding as the socklnd client pays it each
 * operation: a 72-byte PUT header encoded, a 72-byte ACK header decoded
 * and validated (lnet_wire.c, the ksock V2/V3 formats). Nothing else runs
 * in the loop, so callgrind at two iteration counts, the difference
 * divided by the difference of the counts, is the coding's instructions
 * per operation:
 *
 *   bench_wire [--iters N]
 *
 * Prints YAML.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_wire.h"

static void
bench_wire_hdrs(struct lnet_hdr *put, struct lnet_hdr *ack)
{
	memset(put, 0, sizeof(*put));
	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(LNET_LND_SOCK, 0), 0x7f000002U), &put->src_nid);
	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(LNET_LND_SOCK, 0), 0x7f000001U), &put->dest_nid);
	put->src_pid = 12345;
	put->dest_pid = 12345;
	put->type = LNET_MSG_PUT;
	put->payload_length = 4096;
	put->msg.put.ack_wmd.wh_interface_cookie = 0x1122334455667788ULL;
	put->msg.put.ack_wmd.wh_object_cookie = 0x99aabbccddeeff00ULL;
	put->msg.put.ptl_index = 7;

	*ack = *put;
	ack->src_nid = put->dest_nid;
	ack->dest_nid = put->src_nid;
	ack->type = LNET_MSG_ACK;
	ack->payload_length = 0;
	memset(&ack->msg, 0, sizeof(ack->msg));
	ack->msg.ack.dst_wmd = put->msg.put.ack_wmd;
	ack->msg.ack.mlength = 4096;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = { { "iters", required_argument, NULL, 'n' },
					      { NULL, 0, NULL, 0 } };
	struct lnet_hdr put, ack, got;
	uint8_t tx[LNET_HDR_NID4_SIZE];
	uint8_t rx[LNET_HDR_NID4_SIZE];
	unsigned long iters = 100000;
	uint64_t sum = 0;
	unsigned long i;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'n') {
			fprintf(stderr, "usage: %s [--iters N]\n", argv[0]);
			return 2;
		}
		iters = strtoul(optarg, NULL, 0);
	}
	bench_wire_hdrs(&put, &ack);
	if (lnet_hdr_encode_nid4(&ack, rx, sizeof(rx)) != 0) {
		return 1;
	}
	for (i = 0; i < iters; i++) {
		put.msg.put.match_bits = i;
		if (lnet_hdr_encode_nid4(&put, tx, sizeof(tx)) != 0 ||
		    lnet_hdr_decode_nid4(rx, sizeof(rx), &got) != 0) {
			return 1;
		}
		/* Keep both results live, so neither call is optimised out. */
		__asm__ volatile("" : : "r"(tx), "r"(&got) : "memory");
		sum += got.msg.ack.mlength;
	}
	printf("bench_wire:\n  iters: %lu\n  checksum: %llu\n", iters, (unsigned long long)sum);
	return 0;
}
