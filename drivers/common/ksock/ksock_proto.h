/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The ksocklnd protocol (lnet-facts §4) without sockets: the acceptor's
 * connection request, hellos of every version behind one const table per
 * version, the ksock_msg header, zero-copy ACK cookies, connection types
 * and the NID order that settles connection races. Decoders take untrusted
 * bytes and return 0 or -KSOCK_E* naming what was wrong; -KSOCK_ESHORT sets
 * *used to the bytes needed, so a reader can wait for more.
 */
#ifndef KSOCK_PROTO_H
#define KSOCK_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs_nid.h"
#include "ksock_idl.h"
#include "lnet_wire.h"
#include "lnp_api.h"

LNP_BEGIN_DECLS

enum ksock_err {
	KSOCK_OK = 0,
	KSOCK_ESHORT,   /**< more bytes needed (see *used) */
	KSOCK_EMAGIC,   /**< unknown magic */
	KSOCK_EVERSION, /**< unknown or unsupported version */
	KSOCK_ENIPS,    /**< more than 16 addresses, or a zero address */
	KSOCK_ENID,     /**< malformed or ANY NID where one is required */
	KSOCK_ETYPE,    /**< unknown ksock message type */
	KSOCK_ECTYPE,   /**< unknown connection type */
	KSOCK_EINVAL,   /**< bad argument from the caller */
	KSOCK_EMAX,
};

/** Text naming what -KSOCK_E* @p rc means. */
LNP_API const char *ksock_strerror(int rc);

/** A decoded connection request. */
struct ksock_connreq {
	uint32_t version;    /**< LNET_PROTO_ACCEPTOR_VERSION or _16 */
	struct lnet_nid nid; /**< the target NID */
	bool swapped;
	bool probe; /**< LNET_PROTO_MAGIC: a version probe, answer and close */
};

/** Write the request for @p target: V1 when it fits 64 bits, else V2. */
LNP_API int ksock_connreq_encode(const struct lnet_nid *target, void *buf, size_t len,
				 size_t *written);
/** Read a request (either byte order). */
LNP_API int ksock_connreq_decode(const void *buf, size_t len, struct ksock_connreq *out,
				 size_t *used);

/** A hello of any version, host order. */
struct ksock_hello {
	uint32_t version;
	struct lnet_nid src_nid;
	struct lnet_nid dst_nid; /**< ANY for V1, which does not carry it */
	lnet_pid_t src_pid;
	lnet_pid_t dst_pid;
	uint64_t src_incarnation;
	uint64_t dst_incarnation;
	int32_t ctype; /**< SOCKLND_CONN_* */
	uint32_t nips;
	uint32_t ips[KSOCK_MAX_NIPS]; /**< host order */
	bool swapped;                 /**< sender's byte order differs from ours */
};

/** One protocol version. */
struct ksock_proto {
	uint32_t version;
	size_t lnet_hdr_size; /**< 72, or 96 for V4 */
	size_t msg_hdr_size;  /**< 24; 0 for V1 (no ksock_msg header) */
	int (*hello_encode)(const struct ksock_hello *h, void *buf, size_t len, size_t *written);
	int (*hello_decode)(const void *buf, size_t len, struct ksock_hello *h, size_t *used);
	int (*lnet_hdr_encode)(const struct lnet_hdr *h, void *buf, size_t len);
	int (*lnet_hdr_decode)(const void *buf, size_t len, struct lnet_hdr *h);
};

LNP_API extern const struct ksock_proto ksock_proto_v1;
LNP_API extern const struct ksock_proto ksock_proto_v2;
LNP_API extern const struct ksock_proto ksock_proto_v3;
LNP_API extern const struct ksock_proto ksock_proto_v4;

/** The table for @p version, or NULL. */
LNP_API const struct ksock_proto *ksock_proto_by_version(uint32_t version);

/** Which version a hello in @p buf is (needs 8 bytes). */
LNP_API int ksock_hello_version(const void *buf, size_t len, uint32_t *version, size_t *used);

/** A ksock_msg header, host order. */
struct ksock_msg {
	uint32_t type; /**< KSOCK_MSG_NOOP or KSOCK_MSG_LNET */
	uint32_t csum;
	uint64_t zc_cookies[2];
};

LNP_API int ksock_msg_hdr_encode(const struct ksock_msg *m, void *buf, size_t len);
/** @p swapped: the peer's hello came byte-swapped. */
LNP_API int ksock_msg_hdr_decode(const void *buf, size_t len, bool swapped, struct ksock_msg *m);

/*
 * ksm_csum (lnet-facts §4.6): Linux crc32_le seeded with ~0 and not
 * inverted at the end, over the ksock header (csum field 0), the LNet
 * header and the payload. Carried as zlib's running CRC, which differs
 * from crc32_le's only by the inversions: start with 0, update, then
 * ksock_csum_final(). A message whose final value is 0 goes unchecked.
 */
#define KSOCK_CSUM_OFFSET 4
LNP_API uint32_t ksock_csum_update(uint32_t running, const void *p, size_t len);
LNP_API uint32_t ksock_csum_final(uint32_t running);
/** The running CRC of a 24-byte ksock header in @p buf, its csum field taken as 0. */
LNP_API uint32_t ksock_csum_msg_hdr(const void *buf);

/** What a received header acknowledges (lnet-facts §4.7). */
enum ksock_zcack_kind {
	KSOCK_ZCACK_NONE = 0,  /**< nothing */
	KSOCK_ZCACK_KEEPALIVE, /**< NOOP {0, 1}: ignore */
	KSOCK_ZCACK_ONE,       /**< cookie a */
	KSOCK_ZCACK_TWO,       /**< cookies a and b */
	KSOCK_ZCACK_RANGE,     /**< cookies a..b inclusive */
};

struct ksock_zcack {
	enum ksock_zcack_kind kind;
	uint64_t a;
	uint64_t b;
};

LNP_API void ksock_zcack_parse(const struct ksock_msg *m, struct ksock_zcack *out);

/** The passive side's view of a connection type; -1 for an unknown one. */
LNP_API int ksock_conn_type_invert(int type);

/** Byte order of the 20-byte large NIDs: the higher NID keeps its outgoing conn. */
LNP_API int ksock_nid_cmp(const struct lnet_nid *a, const struct lnet_nid *b);

LNP_END_DECLS

#endif /* KSOCK_PROTO_H */
