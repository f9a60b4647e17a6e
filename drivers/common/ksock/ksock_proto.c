/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ksocklnd protocol codecs. Sender-native structures are read with a swap
 * flag found from the magic; large NIDs are never swapped; V1 is LE.
 */
#include <endian.h>
#include <stddef.h>
#include <string.h>

#include <zlib.h>

#include "ksock_proto.h"

static const char *const ksock_errs[KSOCK_EMAX] = {
	[KSOCK_OK] = "ok",
	[KSOCK_ESHORT] = "more bytes needed",
	[KSOCK_EMAGIC] = "unknown magic",
	[KSOCK_EVERSION] = "unknown protocol version",
	[KSOCK_ENIPS] = "bad address list in hello",
	[KSOCK_ENID] = "malformed or wildcard NID",
	[KSOCK_ETYPE] = "unknown ksock message type",
	[KSOCK_ECTYPE] = "unknown connection type",
	[KSOCK_EINVAL] = "invalid argument",
};

const char *
ksock_strerror(int rc)
{
	int e = rc < 0 ? -rc : rc;

	return e < KSOCK_EMAX ? ksock_errs[e] : "unknown ksock error";
}

static uint32_t
ksock_sw32(uint32_t v, bool swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t
ksock_sw64(uint64_t v, bool swap)
{
	return swap ? __builtin_bswap64(v) : v;
}

static int
ksock_short(size_t need, size_t *used)
{
	if (used != NULL) {
		*used = need;
	}
	return -KSOCK_ESHORT;
}

static bool
ksock_nid_ok(const struct lnet_nid *nid)
{
	return !lnet_nid_is_any(nid) && nid->nid_size <= 12 && nid->nid_size % 4 == 0;
}

/* ---- connection request ---- */

int
ksock_connreq_encode(const struct lnet_nid *target, void *buf, size_t len, size_t *written)
{
	if (target == NULL || buf == NULL || !ksock_nid_ok(target)) {
		return -KSOCK_EINVAL;
	}
	if (lnet_nid_is_nid4(target)) {
		struct lnet_acceptor_connreq cr = {
			LNET_PROTO_ACCEPTOR_MAGIC,
			LNET_PROTO_ACCEPTOR_VERSION,
			lnet_nid_to_nid4(target),
		};

		if (len < sizeof(cr)) {
			return -KSOCK_ESHORT;
		}
		memcpy(buf, &cr, sizeof(cr));
		*written = sizeof(cr);
		return 0;
	}
	struct lnet_acceptor_connreq_v2 cr2 = {
		LNET_PROTO_ACCEPTOR_MAGIC,
		LNET_PROTO_ACCEPTOR_VERSION_16,
		*target,
	};

	if (len < sizeof(cr2)) {
		return -KSOCK_ESHORT;
	}
	memcpy(buf, &cr2, sizeof(cr2));
	*written = sizeof(cr2);
	return 0;
}

int
ksock_connreq_decode(const void *buf, size_t len, struct ksock_connreq *out, size_t *used)
{
	struct lnet_acceptor_connreq cr;
	struct lnet_acceptor_connreq_v2 cr2;
	uint32_t magic;

	memset(out, 0, sizeof(*out));
	if (buf == NULL || len < 4) {
		return ksock_short(4, used);
	}
	memcpy(&magic, buf, 4);
	if (magic == LNET_PROTO_MAGIC || magic == __builtin_bswap32(LNET_PROTO_MAGIC)) {
		out->probe = true; /* the acceptor answers with its version and closes */
		*used = 4;
		return 0;
	}
	out->swapped = magic == __builtin_bswap32(LNET_PROTO_ACCEPTOR_MAGIC);
	if (magic != LNET_PROTO_ACCEPTOR_MAGIC && !out->swapped) {
		return -KSOCK_EMAGIC;
	}
	if (len < 8) {
		return ksock_short(8, used);
	}
	memcpy(&cr, buf, 8);
	out->version = ksock_sw32(cr.acr_version, out->swapped);
	if (out->version == LNET_PROTO_ACCEPTOR_VERSION) {
		if (len < sizeof(cr)) {
			return ksock_short(sizeof(cr), used);
		}
		memcpy(&cr, buf, sizeof(cr));
		lnet_nid4_to_nid(ksock_sw64(cr.acr_nid, out->swapped), &out->nid);
		*used = sizeof(cr);
	} else if (out->version == LNET_PROTO_ACCEPTOR_VERSION_16) {
		if (len < sizeof(cr2)) {
			return ksock_short(sizeof(cr2), used);
		}
		memcpy(&cr2, buf, sizeof(cr2));
		out->nid = cr2.acr_nid;
		*used = sizeof(cr2);
	} else {
		return -KSOCK_EVERSION;
	}
	return ksock_nid_ok(&out->nid) ? 0 : -KSOCK_ENID;
}

/* ---- hellos ---- */

int
ksock_hello_version(const void *buf, size_t len, uint32_t *version, size_t *used)
{
	uint32_t w[2];

	if (buf == NULL || len < 8) {
		return ksock_short(8, used);
	}
	memcpy(w, buf, 8);
	if (le32toh(w[0]) == LNET_PROTO_TCP_MAGIC) {
		uint16_t major;

		memcpy(&major, (const uint8_t *)buf + 4, 2);
		*version = le16toh(major) == KSOCK_PROTO_V1_MAJOR ? KSOCK_PROTO_V1 : 0;
	} else if (w[0] == LNET_PROTO_MAGIC) {
		*version = w[1];
	} else if (w[0] == __builtin_bswap32(LNET_PROTO_MAGIC)) {
		*version = __builtin_bswap32(w[1]);
	} else {
		return -KSOCK_EMAGIC;
	}
	*used = 8;
	return ksock_proto_by_version(*version) != NULL ? 0 : -KSOCK_EVERSION;
}

static int
ksock_hello_check(const struct ksock_hello *h)
{
	unsigned int i;

	if (!ksock_nid_ok(&h->src_nid)) {
		return -KSOCK_ENID;
	}
	if (h->ctype < SOCKLND_CONN_NONE || h->ctype >= SOCKLND_CONN_NTYPES) {
		return -KSOCK_ECTYPE;
	}
	for (i = 0; i < h->nips; i++) {
		if (h->ips[i] == 0) {
			return -KSOCK_ENIPS;
		}
	}
	return 0;
}

/* V2 and V3 share the 56-byte hello (they differ in framing, not here). */
static int
ksock_hello_nid4_encode(uint32_t version, const struct ksock_hello *h, void *buf, size_t len,
			size_t *written)
{
	struct ksock_hello_msg_nid4 m = {
		.kshm_magic = LNET_PROTO_MAGIC,
		.kshm_version = version,
		.kshm_src_nid = lnet_nid_to_nid4(&h->src_nid),
		.kshm_dst_nid = lnet_nid_to_nid4(&h->dst_nid),
		.kshm_src_pid = h->src_pid,
		.kshm_dst_pid = h->dst_pid,
		.kshm_src_incarnation = h->src_incarnation,
		.kshm_dst_incarnation = h->dst_incarnation,
		.kshm_ctype = (uint32_t)h->ctype,
		.kshm_nips = h->nips,
	};
	size_t n = sizeof(m) + 4 * (size_t)h->nips;

	if (h->nips > KSOCK_MAX_NIPS || !lnet_nid_is_nid4(&h->src_nid) ||
	    !lnet_nid_is_nid4(&h->dst_nid)) {
		return -KSOCK_EINVAL;
	}
	if (len < n) {
		return -KSOCK_ESHORT;
	}
	memcpy(buf, &m, sizeof(m));
	memcpy((uint8_t *)buf + sizeof(m), h->ips, 4 * (size_t)h->nips);
	*written = n;
	return 0;
}

static int
ksock_hello_nid4_decode(const void *buf, size_t len, struct ksock_hello *h, size_t *used)
{
	struct ksock_hello_msg_nid4 m;
	bool sw;
	unsigned int i;

	memset(h, 0, sizeof(*h));
	if (buf == NULL || len < sizeof(m)) {
		return ksock_short(sizeof(m), used);
	}
	memcpy(&m, buf, sizeof(m));
	sw = m.kshm_magic == __builtin_bswap32(LNET_PROTO_MAGIC);
	if (!sw && m.kshm_magic != LNET_PROTO_MAGIC) {
		return -KSOCK_EMAGIC;
	}
	h->swapped = sw;
	h->version = ksock_sw32(m.kshm_version, sw);
	h->nips = ksock_sw32(m.kshm_nips, sw);
	if (h->nips > KSOCK_MAX_NIPS) {
		return -KSOCK_ENIPS;
	}
	if (len < sizeof(m) + 4 * (size_t)h->nips) {
		return ksock_short(sizeof(m) + 4 * (size_t)h->nips, used);
	}
	lnet_nid4_to_nid(ksock_sw64(m.kshm_src_nid, sw), &h->src_nid);
	lnet_nid4_to_nid(ksock_sw64(m.kshm_dst_nid, sw), &h->dst_nid);
	h->src_pid = ksock_sw32(m.kshm_src_pid, sw);
	h->dst_pid = ksock_sw32(m.kshm_dst_pid, sw);
	h->src_incarnation = ksock_sw64(m.kshm_src_incarnation, sw);
	h->dst_incarnation = ksock_sw64(m.kshm_dst_incarnation, sw);
	h->ctype = (int32_t)ksock_sw32(m.kshm_ctype, sw);
	for (i = 0; i < h->nips; i++) {
		uint32_t ip;

		memcpy(&ip, (const uint8_t *)buf + sizeof(m) + 4 * i, 4);
		h->ips[i] = ksock_sw32(ip, sw);
	}
	*used = sizeof(m) + 4 * (size_t)h->nips;
	return ksock_hello_check(h);
}

static int
ksock_hello_v2_encode(const struct ksock_hello *h, void *buf, size_t len, size_t *written)
{
	return ksock_hello_nid4_encode(KSOCK_PROTO_V2, h, buf, len, written);
}

static int
ksock_hello_v3_encode(const struct ksock_hello *h, void *buf, size_t len, size_t *written)
{
	return ksock_hello_nid4_encode(KSOCK_PROTO_V3, h, buf, len, written);
}

static int
ksock_hello_v4_encode(const struct ksock_hello *h, void *buf, size_t len, size_t *written)
{
	struct ksock_hello_msg m = {
		.kshm_magic = LNET_PROTO_MAGIC,
		.kshm_version = KSOCK_PROTO_V4,
		.kshm_src_nid = h->src_nid,
		.kshm_dst_nid = h->dst_nid,
		.kshm_src_pid = h->src_pid,
		.kshm_dst_pid = h->dst_pid,
		.kshm_src_incarnation = h->src_incarnation,
		.kshm_dst_incarnation = h->dst_incarnation,
		.kshm_ctype = (uint32_t)h->ctype,
		.kshm_nips = 0,
	};

	if (len < sizeof(m)) {
		return -KSOCK_ESHORT;
	}
	memcpy(buf, &m, sizeof(m));
	*written = sizeof(m);
	return 0;
}

static int
ksock_hello_v4_decode(const void *buf, size_t len, struct ksock_hello *h, size_t *used)
{
	struct ksock_hello_msg m;
	bool sw;

	memset(h, 0, sizeof(*h));
	if (buf == NULL || len < sizeof(m)) {
		return ksock_short(sizeof(m), used);
	}
	memcpy(&m, buf, sizeof(m));
	sw = m.kshm_magic == __builtin_bswap32(LNET_PROTO_MAGIC);
	if (!sw && m.kshm_magic != LNET_PROTO_MAGIC) {
		return -KSOCK_EMAGIC;
	}
	h->swapped = sw;
	h->version = ksock_sw32(m.kshm_version, sw);
	h->src_nid = m.kshm_src_nid; /* large NIDs are never swapped */
	h->dst_nid = m.kshm_dst_nid;
	h->src_pid = ksock_sw32(m.kshm_src_pid, sw);
	h->dst_pid = ksock_sw32(m.kshm_dst_pid, sw);
	h->src_incarnation = ksock_sw64(m.kshm_src_incarnation, sw);
	h->dst_incarnation = ksock_sw64(m.kshm_dst_incarnation, sw);
	h->ctype = (int32_t)ksock_sw32(m.kshm_ctype, sw);
	if (ksock_sw32(m.kshm_nips, sw) != 0) {
		return -KSOCK_ENIPS;
	}
	*used = sizeof(m);
	return ksock_hello_check(h);
}

/*
 * V1: a 72-byte LNet header (LE) whose dest_nid slot holds the TCP magic
 * and version, type HELLO, then 4 x nips address bytes as payload.
 */
static int
ksock_hello_v1_encode(const struct ksock_hello *h, void *buf, size_t len, size_t *written)
{
	struct lnet_hdr_nid4 w;
	size_t n = sizeof(w) + 4 * (size_t)h->nips;
	uint32_t i;

	if (h->nips > KSOCK_MAX_NIPS || !lnet_nid_is_nid4(&h->src_nid)) {
		return -KSOCK_EINVAL;
	}
	if (len < n) {
		return -KSOCK_ESHORT;
	}
	memset(&w, 0, sizeof(w));
	w.dest_nid =
		htole64((uint64_t)LNET_PROTO_TCP_MAGIC | ((uint64_t)KSOCK_PROTO_V1_MAJOR << 32) |
			((uint64_t)KSOCK_PROTO_V1_MINOR << 48));
	w.src_nid = htole64(lnet_nid_to_nid4(&h->src_nid));
	w.dest_pid = htole32(h->dst_pid);
	w.src_pid = htole32(h->src_pid);
	w.type = htole32(LNET_MSG_HELLO);
	w.payload_length = htole32(4 * h->nips);
	w.msg.hello.incarnation = htole64(h->src_incarnation);
	w.msg.hello.type = htole32((uint32_t)h->ctype);
	memcpy(buf, &w, sizeof(w));
	for (i = 0; i < h->nips; i++) {
		uint32_t ip = htole32(h->ips[i]);

		memcpy((uint8_t *)buf + sizeof(w) + 4 * i, &ip, 4);
	}
	*written = n;
	return 0;
}

static int
ksock_hello_v1_decode(const void *buf, size_t len, struct ksock_hello *h, size_t *used)
{
	struct lnet_hdr_nid4 w;
	uint32_t payload;
	unsigned int i;

	memset(h, 0, sizeof(*h));
	if (buf == NULL || len < sizeof(w)) {
		return ksock_short(sizeof(w), used);
	}
	memcpy(&w, buf, sizeof(w));
	if ((le64toh(w.dest_nid) & 0xffffffffULL) != LNET_PROTO_TCP_MAGIC) {
		return -KSOCK_EMAGIC;
	}
	if (le32toh(w.type) != LNET_MSG_HELLO) {
		return -KSOCK_EVERSION;
	}
	payload = le32toh(w.payload_length);
	if (payload % 4 != 0 || payload / 4 > KSOCK_MAX_NIPS) {
		return -KSOCK_ENIPS;
	}
	if (len < sizeof(w) + payload) {
		return ksock_short(sizeof(w) + payload, used);
	}
	h->version = KSOCK_PROTO_V1;
	lnet_nid4_to_nid(le64toh(w.src_nid), &h->src_nid);
	h->dst_nid = LNET_ANY_NID;
	h->src_pid = le32toh(w.src_pid);
	h->dst_pid = le32toh(w.dest_pid);
	h->src_incarnation = le64toh(w.msg.hello.incarnation);
	h->ctype = (int32_t)le32toh(w.msg.hello.type);
	h->nips = payload / 4;
	for (i = 0; i < h->nips; i++) {
		uint32_t ip;

		memcpy(&ip, (const uint8_t *)buf + sizeof(w) + 4 * i, 4);
		h->ips[i] = le32toh(ip);
	}
	*used = sizeof(w) + payload;
	return ksock_hello_check(h);
}

const struct ksock_proto ksock_proto_v1 = {
	.version = KSOCK_PROTO_V1,
	.lnet_hdr_size = LNET_HDR_NID4_SIZE,
	.msg_hdr_size = 0,
	.hello_encode = ksock_hello_v1_encode,
	.hello_decode = ksock_hello_v1_decode,
	.lnet_hdr_encode = lnet_hdr_encode_nid4,
	.lnet_hdr_decode = lnet_hdr_decode_nid4,
};

const struct ksock_proto ksock_proto_v2 = {
	.version = KSOCK_PROTO_V2,
	.lnet_hdr_size = LNET_HDR_NID4_SIZE,
	.msg_hdr_size = sizeof(struct ksock_msg_hdr),
	.hello_encode = ksock_hello_v2_encode,
	.hello_decode = ksock_hello_nid4_decode,
	.lnet_hdr_encode = lnet_hdr_encode_nid4,
	.lnet_hdr_decode = lnet_hdr_decode_nid4,
};

const struct ksock_proto ksock_proto_v3 = {
	.version = KSOCK_PROTO_V3,
	.lnet_hdr_size = LNET_HDR_NID4_SIZE,
	.msg_hdr_size = sizeof(struct ksock_msg_hdr),
	.hello_encode = ksock_hello_v3_encode,
	.hello_decode = ksock_hello_nid4_decode,
	.lnet_hdr_encode = lnet_hdr_encode_nid4,
	.lnet_hdr_decode = lnet_hdr_decode_nid4,
};

const struct ksock_proto ksock_proto_v4 = {
	.version = KSOCK_PROTO_V4,
	.lnet_hdr_size = LNET_HDR_NID16_SIZE,
	.msg_hdr_size = sizeof(struct ksock_msg_hdr),
	.hello_encode = ksock_hello_v4_encode,
	.hello_decode = ksock_hello_v4_decode,
	.lnet_hdr_encode = lnet_hdr_encode_nid16,
	.lnet_hdr_decode = lnet_hdr_decode_nid16,
};

const struct ksock_proto *
ksock_proto_by_version(uint32_t version)
{
	static const struct ksock_proto *const protos[] = {
		NULL, &ksock_proto_v1, &ksock_proto_v2, &ksock_proto_v3, &ksock_proto_v4,
	};

	return version < sizeof(protos) / sizeof(protos[0]) ? protos[version] : NULL;
}

/* ---- messages, ACK cookies, connection types, races ---- */

int
ksock_msg_hdr_encode(const struct ksock_msg *m, void *buf, size_t len)
{
	struct ksock_msg_hdr w = { m->type, m->csum, { m->zc_cookies[0], m->zc_cookies[1] } };

	if (len < sizeof(w)) {
		return -KSOCK_ESHORT;
	}
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int
ksock_msg_hdr_decode(const void *buf, size_t len, bool swapped, struct ksock_msg *m)
{
	struct ksock_msg_hdr w;

	if (buf == NULL || len < sizeof(w)) {
		return -KSOCK_ESHORT;
	}
	memcpy(&w, buf, sizeof(w));
	m->type = ksock_sw32(w.ksm_type, swapped);
	m->csum = ksock_sw32(w.ksm_csum, swapped);
	m->zc_cookies[0] = ksock_sw64(w.ksm_zc_cookies[0], swapped);
	m->zc_cookies[1] = ksock_sw64(w.ksm_zc_cookies[1], swapped);
	return m->type == KSOCK_MSG_NOOP || m->type == KSOCK_MSG_LNET ? 0 : -KSOCK_ETYPE;
}

void
ksock_zcack_parse(const struct ksock_msg *m, struct ksock_zcack *out)
{
	uint64_t c1 = m->zc_cookies[0];
	uint64_t c2 = m->zc_cookies[1];

	out->a = 0;
	out->b = 0;
	if (m->type == KSOCK_MSG_LNET || c1 == 0) {
		/* An LNET message acks only through cookie[1]; so does a NOOP with c1 == 0. */
		out->kind = c2 == 0 ? KSOCK_ZCACK_NONE :
			    (m->type == KSOCK_MSG_NOOP && c2 == SOCKNAL_KEEPALIVE_PING) ?
				      KSOCK_ZCACK_KEEPALIVE :
				      KSOCK_ZCACK_ONE;
		out->a = c2;
		return;
	}
	out->a = c1;
	out->b = c2;
	out->kind = c1 > c2 ? KSOCK_ZCACK_TWO : KSOCK_ZCACK_RANGE;
}

int
ksock_conn_type_invert(int type)
{
	switch (type) {
	case SOCKLND_CONN_ANY:
	case SOCKLND_CONN_CONTROL:
		return type;
	case SOCKLND_CONN_BULK_IN:
		return SOCKLND_CONN_BULK_OUT;
	case SOCKLND_CONN_BULK_OUT:
		return SOCKLND_CONN_BULK_IN;
	default:
		return -1;
	}
}

int
ksock_nid_cmp(const struct lnet_nid *a, const struct lnet_nid *b)
{
	return memcmp(a, b, sizeof(*a));
}

uint32_t
ksock_csum_update(uint32_t running, const void *p, size_t len)
{
	while (len > 0) {
		uInt n = len > UINT32_MAX ? UINT32_MAX : (uInt)len;

		running = (uint32_t)crc32(running, p, n);
		p = (const uint8_t *)p + n;
		len -= n;
	}
	return running;
}

uint32_t
ksock_csum_final(uint32_t running)
{
	return ~running;
}

_Static_assert(offsetof(struct ksock_msg_hdr, ksm_csum) == KSOCK_CSUM_OFFSET, "ksm_csum offset");

uint32_t
ksock_csum_msg_hdr(const void *buf)
{
	uint8_t h[sizeof(struct ksock_msg_hdr)];

	memcpy(h, buf, sizeof(h));
	memset(h + KSOCK_CSUM_OFFSET, 0, sizeof(uint32_t));
	return ksock_csum_update(0, h, sizeof(h));
}
