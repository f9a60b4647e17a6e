/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The 48-byte descriptor of a passive buffer, as the seed implementation
 * lays it out so that its peers can read ours: match bits, NID (8 bytes),
 * PID, portal, TMID, passive queue, size, and the XOR of the five words
 * before it, all little-endian. The decoder checks in the seed's order, so
 * that a peer's error numbers mean the same here.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_byteorder.h>

#include "xprt.h"

enum {
	XPRT_DESC_OFF_MB = 0,
	XPRT_DESC_OFF_NID = 8,
	XPRT_DESC_OFF_PID = 16,
	XPRT_DESC_OFF_PORTAL = 20,
	XPRT_DESC_OFF_TMID = 24,
	XPRT_DESC_OFF_QTYPE = 28,
	XPRT_DESC_OFF_SIZE = 32,
	XPRT_DESC_OFF_SUM = 40,
};

static void
xprt_put64(uint8_t *p, uint64_t v)
{
	v = rte_cpu_to_le_64(v);
	memcpy(p, &v, sizeof(v));
}

static void
xprt_put32(uint8_t *p, uint32_t v)
{
	v = rte_cpu_to_le_32(v);
	memcpy(p, &v, sizeof(v));
}

static uint64_t
xprt_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return rte_le_to_cpu_64(v);
}

static uint32_t
xprt_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return rte_le_to_cpu_32(v);
}

/* XOR of the five words before the checksum, each read little-endian. */
static uint64_t
xprt_desc_sum(const uint8_t *b)
{
	uint64_t sum = 0;
	unsigned int off;

	for (off = 0; off < XPRT_DESC_OFF_SUM; off += 8) {
		sum ^= xprt_get64(b + off);
	}
	return sum;
}

int
xprt_desc_encode(const struct xprt_desc_info *info, struct xprt_desc *out)
{
	uint8_t *b = out->bytes;

	if (!lnet_nid_is_nid4(&info->addr.nid) ||
	    (info->qtype != XPRT_Q_PASSIVE_RECV && info->qtype != XPRT_Q_PASSIVE_SEND)) {
		return -EINVAL;
	}
	xprt_put64(b + XPRT_DESC_OFF_MB, info->match_bits);
	xprt_put64(b + XPRT_DESC_OFF_NID, lnet_nid_to_nid4(&info->addr.nid));
	xprt_put32(b + XPRT_DESC_OFF_PID, info->addr.pid);
	xprt_put32(b + XPRT_DESC_OFF_PORTAL, info->addr.portal);
	xprt_put32(b + XPRT_DESC_OFF_TMID, info->addr.tmid);
	xprt_put32(b + XPRT_DESC_OFF_QTYPE, info->qtype);
	xprt_put64(b + XPRT_DESC_OFF_SIZE, info->size);
	xprt_put64(b + XPRT_DESC_OFF_SUM, xprt_desc_sum(b));
	out->len = XPRT_DESC_SIZE;
	return 0;
}

static void
xprt_desc_fields(const uint8_t *b, struct xprt_desc_info *info)
{
	memset(info, 0, sizeof(*info));
	info->match_bits = xprt_get64(b + XPRT_DESC_OFF_MB);
	lnet_nid4_to_nid(xprt_get64(b + XPRT_DESC_OFF_NID), &info->addr.nid);
	info->addr.pid = xprt_get32(b + XPRT_DESC_OFF_PID);
	info->addr.portal = xprt_get32(b + XPRT_DESC_OFF_PORTAL);
	info->addr.tmid = xprt_get32(b + XPRT_DESC_OFF_TMID);
	info->qtype = xprt_get32(b + XPRT_DESC_OFF_QTYPE);
	info->size = xprt_get64(b + XPRT_DESC_OFF_SIZE);
}

/*
 * A NID we can name: not ANY, and no bits in the top byte, where a 64-bit
 * NID's network type has no room in struct lnet_nid.
 */
static bool
xprt_desc_nid_ok(uint64_t nid4)
{
	return nid4 != LNET_NID_ANY && (nid4 >> 56) == 0;
}

/* A passive send is read by an active receive, a passive receive written by an active send. */
static int
xprt_desc_pairs(uint32_t passive, enum xprt_qtype active)
{
	switch (passive) {
	case XPRT_Q_PASSIVE_SEND:
		return active == XPRT_Q_ACTIVE_RECV ? 0 : -EPERM;
	case XPRT_Q_PASSIVE_RECV:
		return active == XPRT_Q_ACTIVE_SEND ? 0 : -EPERM;
	default:
		return -EINVAL;
	}
}

static int
xprt_desc_sizes(const struct xprt_desc_info *info, enum xprt_qtype active, uint64_t buf_size,
		uint64_t send_len, uint64_t *xfer_len)
{
	if (active == XPRT_Q_ACTIVE_RECV) {
		if (info->size > buf_size) {
			return -EFBIG;
		}
		*xfer_len = info->size;
		return 0;
	}
	if (send_len > info->size) {
		return -EFBIG;
	}
	*xfer_len = send_len;
	return 0;
}

int
xprt_desc_decode(const struct xprt_desc *d, enum xprt_qtype active_qtype, uint64_t buf_size,
		 uint64_t send_len, struct xprt_desc_info *info, uint64_t *xfer_len)
{
	uint64_t id;
	int rc;

	if (d->len != XPRT_DESC_SIZE ||
	    xprt_desc_sum(d->bytes) != xprt_get64(d->bytes + XPRT_DESC_OFF_SUM)) {
		return -EINVAL;
	}
	xprt_desc_fields(d->bytes, info);
	rc = xprt_desc_pairs(info->qtype, active_qtype);
	if (rc == 0) {
		rc = xprt_desc_sizes(info, active_qtype, buf_size, send_len, xfer_len);
	}
	if (rc != 0) {
		return rc;
	}
	id = xprt_mb_id(info->match_bits);
	if (id == 0 || xprt_mb_tmid(info->match_bits) != info->addr.tmid ||
	    !xprt_desc_nid_ok(xprt_get64(d->bytes + XPRT_DESC_OFF_NID))) {
		return -EINVAL;
	}
	return 0;
}
