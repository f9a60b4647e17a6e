/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * o2iblnd codecs (o2ib_wire.h). Fields are read with memcpy (the packed
 * layout puts u64s on odd offsets in descriptors) and swapped when the
 * magic says the sender's order is not ours.
 */
#include <endian.h>
#include <string.h>

#include "o2ib_wire.h"

static const char *const o2ib_errs[O2IB_EMAX] = {
	[O2IB_OK] = "ok",
	[O2IB_ESHORT] = "message shorter than its header or type",
	[O2IB_ENOB] = "nob larger than the bytes received",
	[O2IB_EMAGIC] = "bad magic",
	[O2IB_EVERSION] = "bad version",
	[O2IB_ECKSUM] = "bad checksum",
	[O2IB_ESRCANY] = "source NID is ANY",
	[O2IB_ETYPE] = "unknown message type",
	[O2IB_EFRAGS] = "bad RDMA fragment count",
	[O2IB_EINVAL] = "invalid argument",
};

const char *
o2ib_strerror(int rc)
{
	int e = rc < 0 ? -rc : rc;

	return e < O2IB_EMAX ? o2ib_errs[e] : "unknown o2ib error";
}

const char *
o2ib_msg_type_str(unsigned int type)
{
	switch (type) {
	case O2IB_MSG_CONNREQ:
		return "CONNREQ";
	case O2IB_MSG_CONNACK:
		return "CONNACK";
	case O2IB_MSG_NOOP:
		return "NOOP";
	case O2IB_MSG_IMMEDIATE:
		return "IMMEDIATE";
	case O2IB_MSG_PUT_REQ:
		return "PUT_REQ";
	case O2IB_MSG_PUT_NAK:
		return "PUT_NAK";
	case O2IB_MSG_PUT_ACK:
		return "PUT_ACK";
	case O2IB_MSG_PUT_DONE:
		return "PUT_DONE";
	case O2IB_MSG_GET_REQ:
		return "GET_REQ";
	case O2IB_MSG_GET_DONE:
		return "GET_DONE";
	default:
		return "???";
	}
}

uint32_t
o2ib_msg_type_min_nob(unsigned int type)
{
	switch (type) {
	case O2IB_MSG_CONNREQ:
	case O2IB_MSG_CONNACK:
		return O2IB_HDR_SIZE + O2IB_CONNPARAMS_SIZE;
	case O2IB_MSG_NOOP:
		return O2IB_HDR_SIZE;
	case O2IB_MSG_IMMEDIATE:
		return O2IB_OFF_IMM_PAYLOAD;
	case O2IB_MSG_PUT_REQ:
		return O2IB_HDR_SIZE + O2IB_LNET_HDR_SIZE + 8U;
	case O2IB_MSG_PUT_ACK:
		return O2IB_OFF_PUTACK_RD + O2IB_RD_HDR_SIZE;
	case O2IB_MSG_GET_REQ:
		return O2IB_OFF_GETREQ_RD + O2IB_RD_HDR_SIZE;
	case O2IB_MSG_PUT_NAK:
	case O2IB_MSG_PUT_DONE:
	case O2IB_MSG_GET_DONE:
		return O2IB_HDR_SIZE + O2IB_COMPLETION_SIZE;
	default:
		return 0;
	}
}

/* ---- loads and stores in the sender's order ---- */

static uint16_t
ld16(const uint8_t *p, bool swap)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap16(v) : v;
}

static uint32_t
ld32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t
ld64(const uint8_t *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

static void
st16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void
st32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void
st64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* ---- checksum ---- */

static uint32_t
cksum_bytes(uint32_t sum, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		/* char is signed on the kernels that matter (x86): sign-extend */
		sum = ((sum << 1) | (sum >> 31)) + (uint32_t)(int32_t)(int8_t)p[i];
	}
	return sum;
}

uint32_t
o2ib_cksum_msg(const void *buf, uint32_t nob)
{
	const uint8_t *p = buf;
	uint32_t before = nob < O2IB_OFF_CKSUM ? nob : O2IB_OFF_CKSUM;
	uint32_t sum = cksum_bytes(0, p, before);

	/* the 4 bytes of the cksum field count as zeros: they only rotate */
	for (uint32_t i = O2IB_OFF_CKSUM; i < O2IB_OFF_CKSUM + 4 && i < nob; i++) {
		sum = (sum << 1) | (sum >> 31);
	}
	if (nob > O2IB_OFF_CKSUM + 4) {
		sum = cksum_bytes(sum, p + O2IB_OFF_CKSUM + 4, nob - (O2IB_OFF_CKSUM + 4));
	}
	return sum == 0 ? 1 : sum; /* 0 means "no checksum" */
}

/* ---- RDMA descriptors ---- */

void
o2ib_rd_frag(const struct o2ib_rd *rd, uint32_t i, struct o2ib_frag *f)
{
	const uint8_t *p = rd->frags + (size_t)i * O2IB_RD_FRAG_SIZE;

	f->nob = ld32(p, rd->swapped);
	f->addr = ld64(p + 4, rd->swapped); /* misaligned: the u32 before it */
}

uint64_t
o2ib_rd_nob(const struct o2ib_rd *rd)
{
	struct o2ib_frag f;
	uint64_t nob = 0;

	for (uint32_t i = 0; i < rd->nfrags; i++) {
		o2ib_rd_frag(rd, i, &f);
		nob += f.nob;
	}
	return nob;
}

static int
unpack_rd(const uint8_t *p, uint32_t off, uint32_t nob, bool swap, struct o2ib_rd *rd)
{
	rd->key = ld32(p + off, swap);
	rd->nfrags = ld32(p + off + 4, swap);
	rd->swapped = swap;
	rd->frags = p + off + O2IB_RD_HDR_SIZE;
	if (rd->nfrags == 0 || rd->nfrags > O2IB_MAX_RDMA_FRAGS) {
		return -O2IB_EFRAGS;
	}
	if (nob < off + O2IB_RD_HDR_SIZE + rd->nfrags * O2IB_RD_FRAG_SIZE) {
		return -O2IB_ESHORT;
	}
	return 0;
}

/* ---- unpack ---- */

static int
unpack_hdr(const uint8_t *p, size_t len, struct o2ib_msg *m)
{
	uint32_t magic;
	bool swap;

	if (len < O2IB_OFF_TYPE) { /* magic and version */
		return -O2IB_ESHORT;
	}
	magic = ld32(p, false);
	swap = magic == __builtin_bswap32(O2IB_MSG_MAGIC);
	if (magic != O2IB_MSG_MAGIC && !swap) {
		return -O2IB_EMAGIC;
	}
	m->swapped = swap;
	m->version = ld16(p + O2IB_OFF_VERSION, swap);
	if (m->version != O2IB_MSG_VERSION_1 && m->version != O2IB_MSG_VERSION_2) {
		return -O2IB_EVERSION;
	}
	if (len < O2IB_HDR_SIZE) {
		return -O2IB_ESHORT;
	}
	m->nob = ld32(p + O2IB_OFF_NOB, swap);
	if (m->nob > len) {
		return -O2IB_ENOB;
	}
	/* before anything is read as a number: the sum is over the sender's bytes */
	m->cksum = ld32(p + O2IB_OFF_CKSUM, swap);
	if (m->cksum != 0 && m->cksum != o2ib_cksum_msg(p, m->nob)) {
		return -O2IB_ECKSUM;
	}
	m->type = p[O2IB_OFF_TYPE];
	m->credits = p[O2IB_OFF_CREDITS];
	m->srcnid = ld64(p + O2IB_OFF_SRCNID, swap);
	m->srcstamp = ld64(p + O2IB_OFF_SRCSTAMP, swap);
	m->dstnid = ld64(p + O2IB_OFF_DSTNID, swap);
	m->dststamp = ld64(p + O2IB_OFF_DSTSTAMP, swap);
	if (m->srcnid == LNET_NID_ANY) {
		return -O2IB_ESRCANY;
	}
	return 0;
}

static int
unpack_body(const uint8_t *p, struct o2ib_msg *m)
{
	const uint8_t *b = p + O2IB_HDR_SIZE;
	bool swap = m->swapped;

	switch (m->type) {
	case O2IB_MSG_NOOP:
		return 0;
	case O2IB_MSG_CONNREQ:
	case O2IB_MSG_CONNACK:
		m->u.cp.queue_depth = ld16(b, swap);
		m->u.cp.max_frags = ld16(b + 2, swap);
		m->u.cp.max_msg_size = ld32(b + 4, swap);
		return 0;
	case O2IB_MSG_IMMEDIATE:
		m->u.imm.lnet_hdr = b;
		m->u.imm.payload = p + O2IB_OFF_IMM_PAYLOAD;
		m->u.imm.payload_nob = m->nob - O2IB_OFF_IMM_PAYLOAD;
		return 0;
	case O2IB_MSG_PUT_REQ:
		m->u.put_req.lnet_hdr = b;
		m->u.put_req.cookie = ld64(b + O2IB_LNET_HDR_SIZE, false);
		return 0;
	case O2IB_MSG_PUT_ACK:
		m->u.put_ack.src_cookie = ld64(b, false);
		m->u.put_ack.dst_cookie = ld64(b + 8, false);
		return unpack_rd(p, O2IB_OFF_PUTACK_RD, m->nob, swap, &m->u.put_ack.rd);
	case O2IB_MSG_GET_REQ:
		m->u.get_req.lnet_hdr = b;
		m->u.get_req.cookie = ld64(b + O2IB_LNET_HDR_SIZE, false);
		return unpack_rd(p, O2IB_OFF_GETREQ_RD, m->nob, swap, &m->u.get_req.rd);
	case O2IB_MSG_PUT_NAK:
	case O2IB_MSG_PUT_DONE:
	case O2IB_MSG_GET_DONE:
		m->u.completion.cookie = ld64(b, false);
		m->u.completion.status = (int32_t)ld32(b + 8, swap);
		return 0;
	default:
		return -O2IB_ETYPE;
	}
}

int
o2ib_msg_unpack(const void *buf, size_t len, struct o2ib_msg *m)
{
	const uint8_t *p = buf;
	uint32_t need;
	int rc;

	memset(m, 0, sizeof(*m));
	if (buf == NULL) {
		return -O2IB_EINVAL;
	}
	rc = unpack_hdr(p, len, m);
	if (rc != 0) {
		return rc;
	}
	need = o2ib_msg_type_min_nob(m->type);
	if (need == 0) {
		return -O2IB_ETYPE;
	}
	if (m->nob < need) {
		return -O2IB_ESHORT;
	}
	return unpack_body(p, m);
}

/* ---- writers ---- */

static int
msg_init(void *buf, size_t len, unsigned int type, uint32_t nob)
{
	uint8_t *p = buf;

	if (buf == NULL || nob > O2IB_MSG_SIZE) {
		return -O2IB_EINVAL;
	}
	if (len < nob) {
		return -O2IB_ESHORT;
	}
	p[O2IB_OFF_TYPE] = (uint8_t)type;
	st32(p + O2IB_OFF_NOB, nob);
	return (int)nob;
}

int
o2ib_msg_noop(void *buf, size_t len)
{
	return msg_init(buf, len, O2IB_MSG_NOOP, O2IB_HDR_SIZE);
}

int
o2ib_msg_connparams(void *buf, size_t len, unsigned int type, const struct o2ib_connparams *cp)
{
	uint8_t *b = (uint8_t *)buf + O2IB_HDR_SIZE;
	int rc;

	if ((type != O2IB_MSG_CONNREQ && type != O2IB_MSG_CONNACK) || cp == NULL) {
		return -O2IB_EINVAL;
	}
	rc = msg_init(buf, len, type, O2IB_HDR_SIZE + O2IB_CONNPARAMS_SIZE);
	if (rc > 0) {
		st16(b, cp->queue_depth);
		st16(b + 2, cp->max_frags);
		st32(b + 4, cp->max_msg_size);
	}
	return rc;
}

static int
put_lnet_hdr(uint8_t *p, const struct lnet_hdr *hdr)
{
	if (hdr == NULL || lnet_hdr_encode_nid4(hdr, p + O2IB_HDR_SIZE, O2IB_LNET_HDR_SIZE) != 0) {
		return -O2IB_EINVAL;
	}
	return 0;
}

int
o2ib_msg_immediate(void *buf, size_t len, const struct lnet_hdr *hdr, const void *payload,
		   uint32_t payload_nob)
{
	uint8_t *p = buf;
	int rc;

	if (payload_nob > O2IB_IMMEDIATE_MAX) {
		return -O2IB_EINVAL;
	}
	rc = msg_init(buf, len, O2IB_MSG_IMMEDIATE, O2IB_OFF_IMM_PAYLOAD + payload_nob);
	if (rc > 0 && put_lnet_hdr(p, hdr) != 0) {
		return -O2IB_EINVAL;
	}
	if (rc > 0 && payload != NULL && payload_nob > 0) {
		memcpy(p + O2IB_OFF_IMM_PAYLOAD, payload, payload_nob);
	}
	return rc;
}

int
o2ib_msg_put_req(void *buf, size_t len, const struct lnet_hdr *hdr, uint64_t cookie)
{
	uint8_t *p = buf;
	int rc = msg_init(buf, len, O2IB_MSG_PUT_REQ, O2IB_HDR_SIZE + O2IB_LNET_HDR_SIZE + 8U);

	if (rc > 0 && put_lnet_hdr(p, hdr) != 0) {
		return -O2IB_EINVAL;
	}
	if (rc > 0) {
		st64(p + O2IB_HDR_SIZE + O2IB_LNET_HDR_SIZE, cookie);
	}
	return rc;
}

static void
put_rd(uint8_t *p, uint32_t key, const struct o2ib_frag *frags, uint32_t nfrags)
{
	st32(p, key);
	st32(p + 4, nfrags);
	p += O2IB_RD_HDR_SIZE;
	for (uint32_t i = 0; i < nfrags; i++, p += O2IB_RD_FRAG_SIZE) {
		st32(p, frags[i].nob);
		st64(p + 4, frags[i].addr);
	}
}

static bool
rd_args_ok(const struct o2ib_frag *frags, uint32_t nfrags)
{
	return frags != NULL && nfrags >= 1 && nfrags <= O2IB_MAX_RDMA_FRAGS;
}

int
o2ib_msg_put_ack(void *buf, size_t len, uint64_t src_cookie, uint64_t dst_cookie, uint32_t key,
		 const struct o2ib_frag *frags, uint32_t nfrags)
{
	uint8_t *p = buf;
	int rc;

	if (!rd_args_ok(frags, nfrags)) {
		return -O2IB_EINVAL;
	}
	rc = msg_init(buf, len, O2IB_MSG_PUT_ACK,
		      O2IB_OFF_PUTACK_RD + O2IB_RD_HDR_SIZE + nfrags * O2IB_RD_FRAG_SIZE);
	if (rc > 0) {
		st64(p + O2IB_HDR_SIZE, src_cookie);
		st64(p + O2IB_HDR_SIZE + 8, dst_cookie);
		put_rd(p + O2IB_OFF_PUTACK_RD, key, frags, nfrags);
	}
	return rc;
}

int
o2ib_msg_get_req(void *buf, size_t len, const struct lnet_hdr *hdr, uint64_t cookie, uint32_t key,
		 const struct o2ib_frag *frags, uint32_t nfrags)
{
	uint8_t *p = buf;
	int rc;

	if (!rd_args_ok(frags, nfrags)) {
		return -O2IB_EINVAL;
	}
	/* 257 fragments make 136 + 3084 bytes: within one 4 KiB message */
	rc = msg_init(buf, len, O2IB_MSG_GET_REQ,
		      O2IB_OFF_GETREQ_RD + O2IB_RD_HDR_SIZE + nfrags * O2IB_RD_FRAG_SIZE);
	if (rc > 0 && put_lnet_hdr(p, hdr) != 0) {
		return -O2IB_EINVAL;
	}
	if (rc > 0) {
		st64(p + O2IB_HDR_SIZE + O2IB_LNET_HDR_SIZE, cookie);
		put_rd(p + O2IB_OFF_GETREQ_RD, key, frags, nfrags);
	}
	return rc;
}

int
o2ib_msg_completion(void *buf, size_t len, unsigned int type, uint64_t cookie, int32_t status)
{
	uint8_t *p = buf;
	int rc;

	if (type != O2IB_MSG_PUT_NAK && type != O2IB_MSG_PUT_DONE && type != O2IB_MSG_GET_DONE) {
		return -O2IB_EINVAL;
	}
	rc = msg_init(buf, len, type, O2IB_HDR_SIZE + O2IB_COMPLETION_SIZE);
	if (rc > 0) {
		st64(p + O2IB_HDR_SIZE, cookie);
		st32(p + O2IB_HDR_SIZE + 8, (uint32_t)status);
	}
	return rc;
}

void
o2ib_msg_stamp(void *buf, const struct o2ib_stamp *s)
{
	uint8_t *p = buf;
	uint32_t nob = ld32(p + O2IB_OFF_NOB, false);

	st32(p + O2IB_OFF_MAGIC, O2IB_MSG_MAGIC);
	st16(p + O2IB_OFF_VERSION, s->version);
	p[O2IB_OFF_CREDITS] = s->credits;
	st32(p + O2IB_OFF_CKSUM, 0);
	st64(p + O2IB_OFF_SRCNID, s->srcnid);
	st64(p + O2IB_OFF_SRCSTAMP, s->srcstamp);
	st64(p + O2IB_OFF_DSTNID, s->dstnid);
	st64(p + O2IB_OFF_DSTSTAMP, s->dststamp);
	if (s->cksum) {
		st32(p + O2IB_OFF_CKSUM, o2ib_cksum_msg(p, nob));
	}
}

/* ---- rejects ---- */

int
o2ib_rej_pack(void *buf, size_t len, const struct o2ib_rej *r)
{
	uint8_t *p = buf;

	if (buf == NULL || r == NULL) {
		return -O2IB_EINVAL;
	}
	if (len < O2IB_REJ_SIZE) {
		return -O2IB_ESHORT;
	}
	st32(p, r->magic);
	st16(p + 4, r->version);
	p[6] = r->why;
	p[7] = 0;
	st64(p + 8, r->incarnation);
	st16(p + 16, r->cp.queue_depth);
	st16(p + 18, r->cp.max_frags);
	st32(p + 20, r->cp.max_msg_size);
	return (int)O2IB_REJ_SIZE;
}

int
o2ib_rej_unpack(const void *buf, size_t len, struct o2ib_rej *r)
{
	const uint8_t *p = buf;
	uint32_t magic;

	memset(r, 0, sizeof(*r));
	r->incarnation = UINT64_MAX; /* "unknown": a v1 peer does not send one */
	if (buf == NULL || len < O2IB_REJ_MIN) {
		return -O2IB_ESHORT;
	}
	magic = ld32(p, false);
	r->swapped = magic == __builtin_bswap32(O2IB_MSG_MAGIC) ||
		     magic == __builtin_bswap32(LNET_PROTO_MAGIC);
	r->magic = ld32(p, r->swapped);
	r->version = ld16(p + 4, r->swapped);
	r->why = p[6];
	if (len >= O2IB_REJ_SIZE && r->version > O2IB_MSG_VERSION_1) {
		r->has_cp = true;
		r->incarnation = ld64(p + 8, r->swapped);
		r->cp.queue_depth = ld16(p + 16, r->swapped);
		r->cp.max_frags = ld16(p + 18, r->swapped);
		r->cp.max_msg_size = ld32(p + 20, r->swapped);
	}
	if (r->magic != O2IB_MSG_MAGIC && r->magic != LNET_PROTO_MAGIC) {
		return -O2IB_EMAGIC;
	}
	if (r->version != O2IB_MSG_VERSION_1 && r->version != O2IB_MSG_VERSION_2) {
		return -O2IB_EVERSION;
	}
	return 0;
}

uint64_t
o2ib_nid_race_hash(lnet_nid_t nid4)
{
	uint32_t net = (uint32_t)(nid4 >> 32);
	uint32_t addr_be = htobe32((uint32_t)nid4); /* nid_addr[0] of the large NID */

	return (uint64_t)(net ^ addr_be);
}
