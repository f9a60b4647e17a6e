/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The o2iblnd protocol without verbs (o2ib-facts §1-§3): messages written
 * in two steps as the kernel does (the body when a tx is set up, the header
 * with credits and checksum when it is posted), the receiver's checks,
 * RDMA descriptors of up to 257 fragments, and the RDMA CM private data
 * (CONNREQ/CONNACK are whole messages; a reject carries a kib_rej).
 *
 * Versions 1 and 2 share every layout; only the version field and the
 * credit rules differ. We write in host order; a peer of the other order
 * is recognised by its magic and read field by field. Cookies are opaque
 * to the receiver and echoed back unchanged, so they are kept as their raw
 * 8 bytes and never swapped (as the kernel does). Decoders take untrusted
 * bytes and return 0 or -O2IB_E*; writers return the message's nob or
 * -O2IB_E*.
 */
#ifndef O2IB_WIRE_H
#define O2IB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs_nid.h"
#include "lnet_wire.h"
#include "lnp_api.h"
#include "o2ib_idl.h"

LNP_BEGIN_DECLS

/** What a decoder found wrong; the LND closes the connection with -EPROTO for any. */
enum o2ib_err {
	O2IB_OK = 0,
	O2IB_ESHORT,   /**< fewer bytes than the header or the type's body needs */
	O2IB_ENOB,     /**< nob claims more bytes than were received */
	O2IB_EMAGIC,   /**< neither the IB magic nor its byte swap */
	O2IB_EVERSION, /**< not 0x11 or 0x12 */
	O2IB_ECKSUM,   /**< checksum mismatch */
	O2IB_ESRCANY,  /**< source NID is LNET_NID_ANY */
	O2IB_ETYPE,    /**< unknown message type */
	O2IB_EFRAGS,   /**< RDMA fragments outside 1..257 */
	O2IB_EINVAL,   /**< bad argument from the caller */
	O2IB_EMAX,
};

/** Text naming what -O2IB_E* @p rc means. */
LNP_API const char *o2ib_strerror(int rc);

/** Name of a message type ("CONNREQ", ...), "???" if unknown. */
LNP_API const char *o2ib_msg_type_str(unsigned int type);

/** The smallest nob of a message of @p type (a descriptor of 0 fragments); 0 if unknown. */
LNP_API uint32_t o2ib_msg_type_min_nob(unsigned int type);

/** Connection parameters of CONNREQ, CONNACK and a reject, host order. */
struct o2ib_connparams {
	uint16_t queue_depth;
	uint16_t max_frags;
	uint32_t max_msg_size;
};

/** One RDMA fragment, host order. */
struct o2ib_frag {
	uint32_t nob;
	uint64_t addr;
};

/** A received RDMA descriptor: its fragments stay in the buffer (see o2ib_rd_frag). */
struct o2ib_rd {
	uint32_t key;
	uint32_t nfrags;
	const uint8_t *frags; /**< nfrags x 12 bytes in the sender's order */
	bool swapped;
};

/** Fragment @p i of a received descriptor (i < rd->nfrags). */
LNP_API void o2ib_rd_frag(const struct o2ib_rd *rd, uint32_t i, struct o2ib_frag *f);

/** Total bytes a received descriptor describes. */
LNP_API uint64_t o2ib_rd_nob(const struct o2ib_rd *rd);

/** A received message in host order; pointers are into the received buffer. */
struct o2ib_msg {
	uint16_t version;
	uint8_t type;
	uint8_t credits;
	uint32_t nob;
	uint32_t cksum;
	lnet_nid_t srcnid;
	uint64_t srcstamp;
	lnet_nid_t dstnid;
	uint64_t dststamp;
	bool swapped; /**< the sender's byte order is not ours */
	union {
		struct o2ib_connparams cp; /**< CONNREQ, CONNACK */
		struct {
			const uint8_t *lnet_hdr; /**< 72 bytes, LE, not yet validated */
			const uint8_t *payload;
			uint32_t payload_nob; /**< nob - 120 */
		} imm;
		struct {
			const uint8_t *lnet_hdr;
			uint64_t cookie; /**< raw */
		} put_req;
		struct {
			uint64_t src_cookie; /**< raw: the PUT_REQ's cookie echoed */
			uint64_t dst_cookie; /**< raw: the sink's cookie */
			struct o2ib_rd rd;
		} put_ack;
		struct {
			const uint8_t *lnet_hdr;
			uint64_t cookie; /**< raw */
			struct o2ib_rd rd;
		} get_req;
		struct {
			uint64_t cookie; /**< raw */
			int32_t status;  /**< >= 0 bytes moved, < 0 -errno */
		} completion;            /**< PUT_NAK, PUT_DONE, GET_DONE */
	} u;
};

/**
 * Check and read a message of @p len received bytes, in the kernel's
 * order of checks: magic+version present (6 bytes), magic, version, the
 * 48-byte header, nob ≤ len, checksum (when non-zero, before any swap),
 * srcnid ≠ ANY, nob ≥ the type's body, a known type, and for PUT_ACK and
 * GET_REQ 1..257 fragments that fit nob. The buffer is not changed.
 */
LNP_API int o2ib_msg_unpack(const void *buf, size_t len, struct o2ib_msg *m);

/**
 * The o2iblnd checksum of @p nob bytes: sum = rotl32(sum, 1) + byte with
 * each byte a signed char (bytes ≥ 0x80 add negative values, as the
 * kernel on x86), and 0 sent as 1. The cksum field is taken as 0.
 */
LNP_API uint32_t o2ib_cksum_msg(const void *buf, uint32_t nob);

/* ---- writers: the body first ---- */

/** NOOP: header only. */
LNP_API int o2ib_msg_noop(void *buf, size_t len);
/** CONNREQ or CONNACK (@p type) with @p cp. */
LNP_API int o2ib_msg_connparams(void *buf, size_t len, unsigned int type,
				const struct o2ib_connparams *cp);
/**
 * IMMEDIATE with @p hdr and @p payload_nob bytes of payload at offset 120,
 * copied from @p payload unless it is NULL (the caller copies).
 */
LNP_API int o2ib_msg_immediate(void *buf, size_t len, const struct lnet_hdr *hdr,
			       const void *payload, uint32_t payload_nob);
LNP_API int o2ib_msg_put_req(void *buf, size_t len, const struct lnet_hdr *hdr, uint64_t cookie);
LNP_API int o2ib_msg_put_ack(void *buf, size_t len, uint64_t src_cookie, uint64_t dst_cookie,
			     uint32_t key, const struct o2ib_frag *frags, uint32_t nfrags);
LNP_API int o2ib_msg_get_req(void *buf, size_t len, const struct lnet_hdr *hdr, uint64_t cookie,
			     uint32_t key, const struct o2ib_frag *frags, uint32_t nfrags);
/** PUT_NAK, PUT_DONE or GET_DONE (@p type). */
LNP_API int o2ib_msg_completion(void *buf, size_t len, unsigned int type, uint64_t cookie,
				int32_t status);

/** What the header says, filled in when the message is posted. */
struct o2ib_stamp {
	uint16_t version;
	uint8_t credits; /**< credits returned with this message */
	bool cksum;      /**< compute a checksum (module parameter cksum) */
	lnet_nid_t srcnid;
	uint64_t srcstamp; /**< my incarnation */
	lnet_nid_t dstnid;
	uint64_t dststamp; /**< the peer's incarnation as I know it */
};

/** Write the header of a message whose body a writer above has set (it reads type and nob). */
LNP_API void o2ib_msg_stamp(void *buf, const struct o2ib_stamp *s);

/* ---- RDMA CM private data: rejects ---- */

/** A reject's private data, host order. */
struct o2ib_rej {
	uint32_t magic; /**< O2IB_MSG_MAGIC or LNET_PROTO_MAGIC */
	uint16_t version;
	uint8_t why;          /**< enum o2ib_reject_why */
	bool has_cp;          /**< 24 bytes from a v2 peer: incarnation and cp are valid */
	uint64_t incarnation; /**< the rejecter's; all ones when not carried */
	struct o2ib_connparams cp;
	bool swapped;
};

/** Write the 24-byte kib_rej. */
LNP_API int o2ib_rej_pack(void *buf, size_t len, const struct o2ib_rej *r);

/**
 * Read a reject as the active side does: at least 7 bytes, swapped when
 * the magic is a swapped IB or LNet magic; incarnation and connparams only
 * from 24 bytes of a version above 1; then the magic must be the IB or
 * the LNet magic and the version 0x11 or 0x12.
 */
LNP_API int o2ib_rej_unpack(const void *buf, size_t len, struct o2ib_rej *r);

/**
 * The value the kernel's nidhash() gives a nid4 on this host: the net
 * number XOR the IPv4 address word as stored big-endian in a large NID. A
 * passive side rejects a racing CONNREQ with CONN_RACE when the
 * requester's value is below its own.
 */
LNP_API uint64_t o2ib_nid_race_hash(lnet_nid_t nid4);

LNP_END_DECLS

#endif /* O2IB_WIRE_H */
