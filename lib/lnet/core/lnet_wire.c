/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LNet header and ping info encoding (lnet-facts §2, §3). Everything is
 * copied with memcpy: wire buffers are never assumed aligned.
 */
#include <endian.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include <rte_branch_prediction.h>

#include "lnet_wire.h"

static const char *const lnet_wire_errs[LNET_WIRE_EMAX] = {
	[LNET_WIRE_OK] = "ok",
	[LNET_WIRE_ESHORT] = "buffer shorter than the format",
	[LNET_WIRE_ETYPE] = "unknown LNet message type",
	[LNET_WIRE_EPAYLOAD] = "payload length invalid for the message type",
	[LNET_WIRE_ENID] = "malformed NID",
	[LNET_WIRE_ESRCANY] = "source NID is the ANY wildcard",
	[LNET_WIRE_ENID4] = "NID does not fit a 64-bit NID",
	[LNET_WIRE_EMAGIC] = "bad ping info magic",
	[LNET_WIRE_EFEATURES] = "ping info features without NI_STATUS",
	[LNET_WIRE_ENNIS] = "ping info NI count out of range",
	[LNET_WIRE_ELO] = "ping info entry 0 is not 0@lo",
	[LNET_WIRE_ESIZE] = "ping info size inconsistent with its contents",
	[LNET_WIRE_EINVAL] = "invalid argument",
};

const char *
lnet_wire_strerror(int rc)
{
	int e = rc < 0 ? -rc : rc;

	return e < LNET_WIRE_EMAX ? lnet_wire_errs[e] : "unknown wire error";
}

bool
lnet_wire_handle_is_none(const struct lnet_handle_wire *wh)
{
	return wh->wh_interface_cookie == LNET_WIRE_HANDLE_COOKIE_NONE &&
	       wh->wh_object_cookie == LNET_WIRE_HANDLE_COOKIE_NONE;
}

/* A NID as sent: ANY exactly, or a known size with unused words zero. */
static bool
lnet_nid_wellformed(const struct lnet_nid *nid)
{
	unsigned int w;

	if (likely(nid->nid_size == 0 && nid->nid_type != 0xff)) {
		/* The usual 4-byte address: one test of the unused words. */
		return (nid->nid_addr[1] | nid->nid_addr[2] | nid->nid_addr[3]) == 0;
	}
	if (nid->nid_type == 0xff) {
		return nid->nid_size == 0xff;
	}
	if (nid->nid_size > 12 || nid->nid_size % 4 != 0) {
		return false;
	}
	for (w = lnet_nid_addr_bytes(nid) / 4; w < LNET_NID_ADDR_WORDS; w++) {
		if (nid->nid_addr[w] != 0) {
			return false;
		}
	}
	return true;
}

/*
 * A 64-bit NID from the wire: its top byte must be 0 (a set top byte would
 * mean a large NID) and only the exact wildcard may have LND type 0xff.
 * A well-formed one's big-endian bytes are the large NID's first 8 (size 0,
 * type, number and first address word, both big-endian): one store, not a
 * field at a time.
 */
static bool
lnet_nid4_decode(uint64_t nid4, struct lnet_nid *nid)
{
	if (likely((nid4 >> 56) == 0 && (uint8_t)(nid4 >> 48) != 0xff)) {
		uint64_t head = htobe64(nid4);

		memcpy(nid, &head, sizeof(head));
		memset(&nid->nid_addr[1], 0, sizeof(nid->nid_addr) - sizeof(nid->nid_addr[0]));
		return true;
	}
	lnet_nid4_to_nid(nid4, nid);
	return nid4 == LNET_NID_ANY;
}

/* lnet_nid_to_nid4() of a NID that fits, by the byte layout lnet_nid4_decode() uses. */
static uint64_t
lnet_nid4_encode(const struct lnet_nid *nid)
{
	uint64_t head;

	if (unlikely(lnet_nid_is_any(nid))) {
		return LNET_NID_ANY;
	}
	memcpy(&head, nid, sizeof(head));
	return be64toh(head);
}

/* What lnet_hdr_validate() checks besides the NIDs' forms. */
static int
lnet_hdr_validate_fields(const struct lnet_hdr *h)
{
	if (lnet_nid_is_any(&h->src_nid)) {
		return -LNET_WIRE_ESRCANY;
	}
	switch (h->type) {
	case LNET_MSG_ACK:
	case LNET_MSG_GET:
		return h->payload_length == 0 ? 0 : -LNET_WIRE_EPAYLOAD;
	case LNET_MSG_PUT:
	case LNET_MSG_REPLY:
		return h->payload_length <= LNET_MTU ? 0 : -LNET_WIRE_EPAYLOAD;
	default:
		return -LNET_WIRE_ETYPE;
	}
}

int
lnet_hdr_validate(const struct lnet_hdr *h)
{
	if (!lnet_nid_wellformed(&h->src_nid) || !lnet_nid_wellformed(&h->dest_nid)) {
		return -LNET_WIRE_ENID;
	}
	return lnet_hdr_validate_fields(h);
}

/* ---- the 40-byte message union, shared by both header formats ---- */

static void
lnet_union_encode(const struct lnet_hdr *h, union lnet_msg_union *u)
{
	memset(u, 0, sizeof(*u));
	switch (h->type) {
	case LNET_MSG_ACK:
		u->ack.dst_wmd = h->msg.ack.dst_wmd;
		u->ack.match_bits = htole64(h->msg.ack.match_bits);
		u->ack.mlength = htole32(h->msg.ack.mlength);
		break;
	case LNET_MSG_PUT:
		u->put.ack_wmd = h->msg.put.ack_wmd;
		u->put.match_bits = htole64(h->msg.put.match_bits);
		u->put.hdr_data = h->msg.put.hdr_data;
		u->put.ptl_index = htole32(h->msg.put.ptl_index);
		u->put.offset = htole32(h->msg.put.offset);
		break;
	case LNET_MSG_GET:
		u->get.return_wmd = h->msg.get.return_wmd;
		u->get.match_bits = htole64(h->msg.get.match_bits);
		u->get.ptl_index = htole32(h->msg.get.ptl_index);
		u->get.src_offset = htole32(h->msg.get.src_offset);
		u->get.sink_length = htole32(h->msg.get.sink_length);
		break;
	case LNET_MSG_REPLY:
		u->reply.dst_wmd = h->msg.reply.dst_wmd;
		break;
	default:
		u->hello.incarnation = htole64(h->msg.hello.incarnation);
		u->hello.type = htole32(h->msg.hello.type);
		break;
	}
}

static void
lnet_union_decode(const union lnet_msg_union *u, struct lnet_hdr *h)
{
	memset(&h->msg, 0, sizeof(h->msg));
	switch (h->type) {
	case LNET_MSG_ACK:
		h->msg.ack.dst_wmd = u->ack.dst_wmd;
		h->msg.ack.match_bits = le64toh(u->ack.match_bits);
		h->msg.ack.mlength = le32toh(u->ack.mlength);
		break;
	case LNET_MSG_PUT:
		h->msg.put.ack_wmd = u->put.ack_wmd;
		h->msg.put.match_bits = le64toh(u->put.match_bits);
		h->msg.put.hdr_data = u->put.hdr_data;
		h->msg.put.ptl_index = le32toh(u->put.ptl_index);
		h->msg.put.offset = le32toh(u->put.offset);
		break;
	case LNET_MSG_GET:
		h->msg.get.return_wmd = u->get.return_wmd;
		h->msg.get.match_bits = le64toh(u->get.match_bits);
		h->msg.get.ptl_index = le32toh(u->get.ptl_index);
		h->msg.get.src_offset = le32toh(u->get.src_offset);
		h->msg.get.sink_length = le32toh(u->get.sink_length);
		break;
	case LNET_MSG_REPLY:
		h->msg.reply.dst_wmd = u->reply.dst_wmd;
		break;
	default:
		h->msg.hello.incarnation = le64toh(u->hello.incarnation);
		h->msg.hello.type = le32toh(u->hello.type);
		break;
	}
}

/* ---- headers ---- */

/* Little-endian scalars at a byte offset of an unaligned wire buffer. */
static void
lnet_put32(uint8_t *p, size_t off, uint32_t v)
{
	v = htole32(v);
	memcpy(p + off, &v, sizeof(v));
}

static void
lnet_put64(uint8_t *p, size_t off, uint64_t v)
{
	v = htole64(v);
	memcpy(p + off, &v, sizeof(v));
}

static uint32_t
lnet_get32(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return le32toh(v);
}

static uint64_t
lnet_get64(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return le64toh(v);
}

#define LNET_HDR4_OFF(f) offsetof(struct lnet_hdr_nid4, f)

/* Written straight into the buffer: no 72-byte image on the stack copied out. */
int
lnet_hdr_encode_nid4(const struct lnet_hdr *h, void *buf, size_t len)
{
	union lnet_msg_union u;
	uint8_t *p = buf;

	if (len < sizeof(struct lnet_hdr_nid4)) {
		return -LNET_WIRE_ESHORT;
	}
	if (!lnet_nid_is_nid4(&h->dest_nid) || !lnet_nid_is_nid4(&h->src_nid)) {
		return -LNET_WIRE_ENID4;
	}
	lnet_put64(p, LNET_HDR4_OFF(dest_nid), lnet_nid4_encode(&h->dest_nid));
	lnet_put64(p, LNET_HDR4_OFF(src_nid), lnet_nid4_encode(&h->src_nid));
	lnet_put32(p, LNET_HDR4_OFF(dest_pid), h->dest_pid);
	lnet_put32(p, LNET_HDR4_OFF(src_pid), h->src_pid);
	lnet_put32(p, LNET_HDR4_OFF(type), h->type);
	lnet_put32(p, LNET_HDR4_OFF(payload_length), h->payload_length);
	lnet_union_encode(h, &u);
	memcpy(p + LNET_HDR4_OFF(msg), &u, sizeof(u));
	return 0;
}

int
lnet_hdr_encode_nid16(const struct lnet_hdr *h, void *buf, size_t len)
{
	struct lnet_hdr_nid16 w;

	if (len < sizeof(w)) {
		return -LNET_WIRE_ESHORT;
	}
	w.dest_nid = h->dest_nid;
	w.src_nid = h->src_nid;
	w.dest_pid = htole32(h->dest_pid);
	w.src_pid = htole32(h->src_pid);
	w.type = htole32(h->type);
	w.payload_length = htole32(h->payload_length);
	lnet_union_encode(h, &w.msg);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* Read straight from the buffer: no 72-byte image on the stack. */
int
lnet_hdr_decode_nid4(const void *buf, size_t len, struct lnet_hdr *h)
{
	const uint8_t *p = buf;
	union lnet_msg_union u;

	if (buf == NULL || len < sizeof(struct lnet_hdr_nid4)) {
		return -LNET_WIRE_ESHORT;
	}
	if (!lnet_nid4_decode(lnet_get64(p, LNET_HDR4_OFF(dest_nid)), &h->dest_nid) ||
	    !lnet_nid4_decode(lnet_get64(p, LNET_HDR4_OFF(src_nid)), &h->src_nid)) {
		return -LNET_WIRE_ENID;
	}
	h->dest_pid = lnet_get32(p, LNET_HDR4_OFF(dest_pid));
	h->src_pid = lnet_get32(p, LNET_HDR4_OFF(src_pid));
	h->type = lnet_get32(p, LNET_HDR4_OFF(type));
	h->payload_length = lnet_get32(p, LNET_HDR4_OFF(payload_length));
	memcpy(&u, p + LNET_HDR4_OFF(msg), sizeof(u));
	lnet_union_decode(&u, h);
	return lnet_hdr_validate_fields(h); /* a NID that fits 64 bits is well formed */
}

int
lnet_hdr_decode_nid16(const void *buf, size_t len, struct lnet_hdr *h)
{
	struct lnet_hdr_nid16 w;

	if (buf == NULL || len < sizeof(w)) {
		return -LNET_WIRE_ESHORT;
	}
	memcpy(&w, buf, sizeof(w));
	h->dest_nid = w.dest_nid;
	h->src_nid = w.src_nid;
	h->dest_pid = le32toh(w.dest_pid);
	h->src_pid = le32toh(w.src_pid);
	h->type = le32toh(w.type);
	h->payload_length = le32toh(w.payload_length);
	lnet_union_decode(&w.msg, h);
	return lnet_hdr_validate(h);
}

/* ---- ping info ---- */

static unsigned int
lnet_large_record_size(const struct lnet_nid *nid)
{
	/* status + the NID's used bytes, rounded up to 4 */
	return (4 + lnet_nid_bytes(nid) + 3) & ~3U;
}

static bool
lnet_ping_needs_large(const struct lnet_ping_src *src)
{
	unsigned int i;

	for (i = 0; i < src->nnis; i++) {
		if (!lnet_nid_is_nid4(&src->nis[i].nid)) {
			return true;
		}
	}
	return false;
}

int
lnet_ping_info_size(const struct lnet_ping_src *src, size_t *size)
{
	size_t n = LNET_PING_INFO_HDR_SIZE + sizeof(struct lnet_ni_status);
	unsigned int i;

	if (src == NULL || size == NULL || (src->nnis != 0 && src->nis == NULL)) {
		return -LNET_WIRE_EINVAL;
	}
	for (i = 0; i < src->nnis; i++) {
		const struct lnet_nid *nid = &src->nis[i].nid;

		if (!lnet_nid_wellformed(nid) || lnet_nid_is_any(nid)) {
			return -LNET_WIRE_ENID;
		}
		n += lnet_nid_is_nid4(nid) ? sizeof(struct lnet_ni_status) :
					     lnet_large_record_size(nid);
	}
	*size = n;
	return 0;
}

static void
lnet_ping_put_status(uint8_t *p, lnet_nid_t nid, uint32_t status, uint32_t msg_size)
{
	struct lnet_ni_status ns = { nid, status, msg_size };

	memcpy(p, &ns, sizeof(ns));
}

int
lnet_ping_info_encode(const struct lnet_ping_src *src, void *buf, size_t len, size_t *written)
{
	bool large = false;
	struct lnet_ping_info pi;
	uint8_t *p = buf;
	unsigned int nnis4 = 0;
	unsigned int i;
	size_t size;
	int rc;

	rc = lnet_ping_info_size(src, &size);
	if (rc != 0) {
		return rc;
	}
	if (buf == NULL || len < size) {
		return -LNET_WIRE_ESHORT;
	}
	large = lnet_ping_needs_large(src);
	pi.pi_magic = LNET_PROTO_PING_MAGIC;
	pi.pi_features = (src->features | LNET_PING_FEAT_NI_STATUS) &
			 ~(LNET_PING_FEAT_LARGE_ADDR | LNET_PING_FEAT_PRIMARY_LARGE);
	if (large) {
		pi.pi_features |= LNET_PING_FEAT_LARGE_ADDR;
	}
	if (src->nnis > 0 && !lnet_nid_is_nid4(&src->nis[0].nid)) {
		pi.pi_features |= LNET_PING_FEAT_PRIMARY_LARGE;
	}
	pi.pi_pid = src->pid;
	p += sizeof(pi);
	lnet_ping_put_status(p, LNET_NID_LO_0, src->seqno, large ? (uint32_t)size : 0);
	p += sizeof(struct lnet_ni_status);
	nnis4 = 1;
	for (i = 0; i < src->nnis; i++) {
		if (lnet_nid_is_nid4(&src->nis[i].nid)) {
			lnet_ping_put_status(p, lnet_nid_to_nid4(&src->nis[i].nid),
					     src->nis[i].status, 0);
			p += sizeof(struct lnet_ni_status);
			nnis4++;
		}
	}
	for (i = 0; i < src->nnis; i++) {
		const struct lnet_nid *nid = &src->nis[i].nid;
		unsigned int rec = lnet_large_record_size(nid);

		if (lnet_nid_is_nid4(nid)) {
			continue;
		}
		memset(p, 0, rec);
		memcpy(p, &src->nis[i].status, 4);
		memcpy(p + 4, nid, lnet_nid_bytes(nid));
		p += rec;
	}
	pi.pi_nnis = nnis4;
	memcpy(buf, &pi, sizeof(pi));
	*written = size;
	return 0;
}

/* ---- ping info decoding ---- */

struct lnet_ping_reader {
	const uint8_t *buf;
	size_t len;
	bool swap;
};

static uint32_t
lnet_rd32(const struct lnet_ping_reader *r, size_t off)
{
	uint32_t v;

	memcpy(&v, r->buf + off, sizeof(v));
	return r->swap ? __builtin_bswap32(v) : v;
}

static uint64_t
lnet_rd64(const struct lnet_ping_reader *r, size_t off)
{
	uint64_t v;

	memcpy(&v, r->buf + off, sizeof(v));
	return r->swap ? __builtin_bswap64(v) : v;
}

static int
lnet_ping_decode_header(struct lnet_ping_reader *r, unsigned int max_nis,
			struct lnet_ping_decoded *out, unsigned int *nnis4)
{
	uint32_t magic;

	if (r->len < LNET_PING_INFO_HDR_SIZE + sizeof(struct lnet_ni_status)) {
		out->info_size = LNET_PING_INFO_HDR_SIZE + sizeof(struct lnet_ni_status);
		return -LNET_WIRE_ESHORT;
	}
	memcpy(&magic, r->buf, sizeof(magic));
	if (magic == __builtin_bswap32(LNET_PROTO_PING_MAGIC)) {
		r->swap = true;
	} else if (magic != LNET_PROTO_PING_MAGIC) {
		return -LNET_WIRE_EMAGIC;
	}
	out->swapped = r->swap;
	out->features = lnet_rd32(r, 4);
	out->pid = lnet_rd32(r, 8);
	*nnis4 = lnet_rd32(r, 12);
	/* As the kernel's lnet_ping_info_validate(): only NI_STATUS is required;
	 * bits it does not know (a newer sender's) pass. */
	if ((out->features & LNET_PING_FEAT_NI_STATUS) == 0) {
		return -LNET_WIRE_EFEATURES;
	}
	if (*nnis4 < 1 || *nnis4 > max_nis) {
		return -LNET_WIRE_ENNIS;
	}
	if (lnet_rd64(r, 16) != LNET_NID_LO_0) {
		return -LNET_WIRE_ELO;
	}
	out->seqno = lnet_rd32(r, 24);
	return 0;
}

/* The size the sender says it sent; ESIZE if it cannot hold the nid4 array. */
static int
lnet_ping_declared_size(const struct lnet_ping_reader *r, const struct lnet_ping_decoded *out,
			unsigned int nnis4, size_t *size)
{
	size_t nid4_end = LNET_PING_INFO_HDR_SIZE + (size_t)nnis4 * sizeof(struct lnet_ni_status);

	if ((out->features & LNET_PING_FEAT_LARGE_ADDR) == 0) {
		*size = nid4_end;
		return 0;
	}
	*size = lnet_rd32(r, 28) & ~3U;
	return *size < nid4_end ? -LNET_WIRE_ESIZE : 0;
}

static void
lnet_ping_add(struct lnet_ping_decoded *out, struct lnet_ping_entry *nis, unsigned int cap,
	      const struct lnet_nid *nid, uint32_t status)
{
	if (out->nnis_total < cap) {
		nis[out->nnis_total].nid = *nid;
		nis[out->nnis_total].status = status;
	}
	out->nnis_total++;
}

/* The large section from off to end; cut: end is where a reply was cut, a record it splits ends it. */
static int
lnet_ping_decode_large(const struct lnet_ping_reader *r, size_t off, size_t end, bool cut,
		       unsigned int max_nis, struct lnet_ping_decoded *out,
		       struct lnet_ping_entry *nis, unsigned int cap)
{
	bool first = true;

	while (off < end) {
		struct lnet_nid nid;
		uint32_t status;

		if (end - off < 12) {
			return cut ? 0 : -LNET_WIRE_ESIZE;
		}
		memset(&nid, 0, sizeof(nid));
		status = lnet_rd32(r, off);
		memcpy(&nid, r->buf + off + 4, 8);
		if (nid.nid_size > 12 || nid.nid_size % 4 != 0 || nid.nid_type == 0xff) {
			return -LNET_WIRE_ENID;
		}
		if (end - off < lnet_large_record_size(&nid)) {
			return cut ? 0 : -LNET_WIRE_ESIZE;
		}
		memcpy(&nid, r->buf + off + 4, lnet_nid_bytes(&nid));
		/* max_nis counts 0@lo too, as the header's NI count does. */
		if (out->nnis_total + 1 >= max_nis) {
			return -LNET_WIRE_ENNIS;
		}
		/* The kernel's rule: the first NID that does not fit nid4 is the primary. */
		if (first && !lnet_nid_is_nid4(&nid) &&
		    (out->features & LNET_PING_FEAT_PRIMARY_LARGE) != 0) {
			out->primary = nid;
			first = false;
		}
		lnet_ping_add(out, nis, cap, &nid, status);
		off += lnet_large_record_size(&nid);
	}
	return 0;
}

/* The nid4 entries after 0@lo that end by end (all of them unless a reply was cut). */
static int
lnet_ping_decode_nid4(const struct lnet_ping_reader *r, unsigned int nnis4, size_t end,
		      struct lnet_ping_decoded *out, struct lnet_ping_entry *nis, unsigned int cap)
{
	unsigned int i;

	for (i = 1; i < nnis4; i++) {
		size_t off = LNET_PING_INFO_HDR_SIZE + (size_t)i * sizeof(struct lnet_ni_status);
		struct lnet_nid nid;

		if (off + sizeof(struct lnet_ni_status) > end) {
			break;
		}
		if (!lnet_nid4_decode(lnet_rd64(r, off), &nid) || lnet_nid_is_any(&nid)) {
			return -LNET_WIRE_ENID;
		}
		if (i == 1) {
			out->primary = nid; /* a large one replaces it under PRIMARY_LARGE */
		}
		lnet_ping_add(out, nis, cap, &nid, lnet_rd32(r, off + 8));
	}
	return 0;
}

/* Whole ping info (fit false), or the entries that fit in len (fit true). */
static int
lnet_ping_decode(const void *buf, size_t len, unsigned int max_nis, bool fit,
		 struct lnet_ping_decoded *out, struct lnet_ping_entry *nis, unsigned int nis_cap)
{
	struct lnet_ping_reader r = { buf, len, false };
	unsigned int nnis4 = 0;
	size_t size;
	size_t end;
	int rc;

	if (out == NULL || (nis == NULL && nis_cap != 0)) {
		return -LNET_WIRE_EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->primary = LNET_ANY_NID;
	if (buf == NULL) {
		return -LNET_WIRE_ESHORT;
	}
	rc = lnet_ping_decode_header(&r, max_nis, out, &nnis4);
	if (rc == 0) {
		rc = lnet_ping_declared_size(&r, out, nnis4, &size);
	}
	if (rc != 0) {
		return rc;
	}
	out->info_size = size;
	if (len < size && !fit) {
		return -LNET_WIRE_ESHORT;
	}
	end = len < size ? len : size;
	rc = lnet_ping_decode_nid4(&r, nnis4, end, out, nis, nis_cap);
	if (rc != 0) {
		return rc;
	}
	return lnet_ping_decode_large(&r,
				      LNET_PING_INFO_HDR_SIZE +
					      (size_t)nnis4 * sizeof(struct lnet_ni_status),
				      end, len < size, max_nis, out, nis, nis_cap);
}

int
lnet_ping_info_decode(const void *buf, size_t len, unsigned int max_nis,
		      struct lnet_ping_decoded *out, struct lnet_ping_entry *nis,
		      unsigned int nis_cap)
{
	return lnet_ping_decode(buf, len, max_nis, false, out, nis, nis_cap);
}

size_t
lnet_ping_reply_bufsize(int n_ids)
{
	size_t n = sizeof(struct lnet_ni_status) +
		   (size_t)(n_ids > 0 ? n_ids : 1) * sizeof(struct lnet_ni_large_status);

	return n < LNET_PING_REPLY_MAX ? n : LNET_PING_REPLY_MAX;
}

int
lnet_ping_reply_read(const void *buf, size_t len, size_t bufsize, int n_ids,
		     struct lnet_ping_decoded *out, struct lnet_ping_entry *nis,
		     unsigned int nis_cap)
{
	size_t need;
	int rc = lnet_ping_decode(buf, len < bufsize ? len : bufsize, UINT_MAX, true, out, nis,
				  nis_cap);

	if (rc != 0) {
		return rc;
	}
	/* lnet_ping(): fewer entries than asked for must be all there are. */
	need = (int64_t)out->nnis_total + 1 < n_ids ? out->info_size : bufsize;
	return len < need ? -LNET_WIRE_ESHORT : 0;
}
