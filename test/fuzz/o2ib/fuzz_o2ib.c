/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * o2iblnd decoders fed arbitrary bytes: a message (o2ib_msg_unpack), a
 * reject's private data (o2ib_rej_unpack) or a CONNREQ at the passive
 * side (o2ib_passive_check), picked by the first byte. What decodes must
 * point inside the bytes given, and the kinds we can write again must
 * decode to the same values; a passive answer is an accept within my
 * limits or a reject with a reason the kernel sends.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "o2ib_conn.h"
#include "o2ib_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_inside(const uint8_t *p, size_t n, const uint8_t *end)
{
	if (p > end || (size_t)(end - p) < n) {
		__builtin_trap();
	}
}

static void
walk_rd(const struct o2ib_rd *rd, const uint8_t *end)
{
	struct o2ib_frag f;

	if (rd->nfrags < 1 || rd->nfrags > O2IB_MAX_RDMA_FRAGS) {
		__builtin_trap();
	}
	check_inside(rd->frags, (size_t)rd->nfrags * O2IB_RD_FRAG_SIZE, end);
	for (uint32_t i = 0; i < rd->nfrags; i++) {
		o2ib_rd_frag(rd, i, &f); /* ASan sees any read past the copy */
	}
}

/* Write @p m again (our byte order) and decode it: the same values. */
static void
round_trip(const struct o2ib_msg *m)
{
	static uint8_t out[O2IB_MSG_SIZE];
	static struct o2ib_frag frags[O2IB_MAX_RDMA_FRAGS];
	const struct o2ib_stamp s = { m->version,  m->credits, m->cksum != 0, m->srcnid,
				      m->srcstamp, m->dstnid,  m->dststamp };
	struct o2ib_msg again;
	int nob;

	switch (m->type) {
	case O2IB_MSG_NOOP:
		nob = o2ib_msg_noop(out, sizeof(out));
		break;
	case O2IB_MSG_CONNREQ:
	case O2IB_MSG_CONNACK:
		nob = o2ib_msg_connparams(out, sizeof(out), m->type, &m->u.cp);
		break;
	case O2IB_MSG_PUT_NAK:
	case O2IB_MSG_PUT_DONE:
	case O2IB_MSG_GET_DONE:
		nob = o2ib_msg_completion(out, sizeof(out), m->type, m->u.completion.cookie,
					  m->u.completion.status);
		break;
	case O2IB_MSG_PUT_ACK:
		for (uint32_t i = 0; i < m->u.put_ack.rd.nfrags; i++) {
			o2ib_rd_frag(&m->u.put_ack.rd, i, &frags[i]);
		}
		nob = o2ib_msg_put_ack(out, sizeof(out), m->u.put_ack.src_cookie,
				       m->u.put_ack.dst_cookie, m->u.put_ack.rd.key, frags,
				       m->u.put_ack.rd.nfrags);
		break;
	default:
		return; /* the LNet header kinds: lnet_wire has its own fuzz target */
	}
	if (nob <= 0) {
		__builtin_trap();
	}
	o2ib_msg_stamp(out, &s);
	if (o2ib_msg_unpack(out, (size_t)nob, &again) != 0 || again.type != m->type ||
	    again.credits != m->credits || again.srcnid != m->srcnid ||
	    again.dststamp != m->dststamp || again.version != m->version ||
	    (m->type != O2IB_MSG_PUT_ACK &&
	     memcmp(&again.u, &m->u, sizeof(m->u.completion)) != 0) ||
	    (m->type == O2IB_MSG_PUT_ACK &&
	     o2ib_rd_nob(&again.u.put_ack.rd) != o2ib_rd_nob(&m->u.put_ack.rd))) {
		__builtin_trap();
	}
}

static void
fuzz_msg(const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;
	struct o2ib_msg m;

	if (o2ib_msg_unpack(p, n, &m) != 0) {
		return;
	}
	if (m.nob > n || m.nob < O2IB_HDR_SIZE) {
		__builtin_trap();
	}
	switch (m.type) {
	case O2IB_MSG_IMMEDIATE:
		check_inside(m.u.imm.payload, m.u.imm.payload_nob, end);
		break;
	case O2IB_MSG_PUT_ACK:
		walk_rd(&m.u.put_ack.rd, end);
		break;
	case O2IB_MSG_GET_REQ:
		check_inside(m.u.get_req.lnet_hdr, O2IB_LNET_HDR_SIZE, end);
		walk_rd(&m.u.get_req.rd, end);
		break;
	default:
		break;
	}
	round_trip(&m);
}

static void
fuzz_rej(const uint8_t *p, size_t n)
{
	struct o2ib_rej r;
	struct o2ib_rej again;
	uint8_t out[O2IB_REJ_SIZE];

	if (o2ib_rej_unpack(p, n, &r) != 0 || !r.has_cp) {
		return;
	}
	if (o2ib_rej_pack(out, sizeof(out), &r) != (int)O2IB_REJ_SIZE ||
	    o2ib_rej_unpack(out, sizeof(out), &again) != 0 || again.why != r.why ||
	    again.incarnation != r.incarnation || again.cp.max_frags != r.cp.max_frags ||
	    again.version != r.version) {
		__builtin_trap();
	}
}

static void
fuzz_passive(const uint8_t *p, size_t n, uint8_t how)
{
	static const struct o2ib_local me = { 0x00050000c0a80102ULL, 0x2222, 8, true };
	struct o2ib_peer_cm peer;
	struct o2ib_passive out;

	o2ib_peer_cm_init(&peer, 8);
	peer.version = (how & 4) != 0 ? 0x12 : 0;
	peer.connecting = (how & 8) != 0;
	o2ib_passive_check(&me, (enum o2ib_dst_match)((how >> 4) % 3), p, n, &peer,
			   (how & 0x40) != 0, &out);
	if (out.accept) {
		if (out.cp.queue_depth > 8 || out.cp.max_frags > O2IB_MAX_RDMA_FRAGS ||
		    out.req.type != O2IB_MSG_CONNREQ || peer.accepting != 1) {
			__builtin_trap();
		}
	} else if (out.rej.why < O2IB_REJECT_CONN_RACE || out.rej.why > O2IB_REJECT_EARLY ||
		   out.rej.why == O2IB_REJECT_CONN_UNCOMPAT ||
		   out.rej.why == O2IB_REJECT_INVALID_SRV_ID ||
		   out.rej.why == O2IB_REJECT_NO_RESOURCES) {
		__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (size < 1 || size - 1 > O2IB_MSG_SIZE) {
		return 0;
	}
	/* an exact-size heap copy: ASan reports a read one byte past it */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (copy == NULL) {
		return 0;
	}
	memcpy(copy, data + 1, size - 1);
	if (data[0] & 2) {
		fuzz_passive(copy, size - 1, data[0]);
	} else if (data[0] & 1) {
		fuzz_rej(copy, size - 1);
	} else {
		fuzz_msg(copy, size - 1);
	}
	free(copy);
	return 0;
}
