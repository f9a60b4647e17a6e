/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The transfer-machine transport over LNet (seed 003, issue 36; doc/xprt.md
 * maps the seed's terms to these names).
 *
 * An application opens a domain, starts transfer machines (TMs) at end-point
 * addresses `NID:PID:portal:TMID`, registers network buffers and adds them to
 * one of six queues; each completed operation is reported by one buffer event
 * (several for a receive buffer that takes several messages). This header
 * also holds the pure pieces the transport and its peers share: the address
 * grammar, the match bits and header data that carry a TMID through LNet,
 * and the 48-byte descriptor that names a passive buffer to a peer.
 *
 * Include as <lnet/xprt.h> and link with `pkg-config --libs liblnet-xprt`.
 */
#ifndef LNET_XPRT_H
#define LNET_XPRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs_nid.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Exported by liblnet-xprt.so (lib/xprt/xprt.map); a macro of its own, as
 * LNP_API marks what liblnet.so exports.
 */
#define XPRT_API __attribute__((visibility("default")))

/** The six queues a buffer is added to (the numbering is in descriptors). */
enum xprt_qtype {
	XPRT_Q_MSG_RECV = 0,     /**< unsolicited messages come in here */
	XPRT_Q_MSG_SEND = 1,     /**< a message to an address */
	XPRT_Q_PASSIVE_RECV = 2, /**< a peer will PUT into it (its descriptor says where) */
	XPRT_Q_PASSIVE_SEND = 3, /**< a peer will GET from it */
	XPRT_Q_ACTIVE_RECV = 4,  /**< GET from a peer's passive send buffer */
	XPRT_Q_ACTIVE_SEND = 5,  /**< PUT into a peer's passive receive buffer */
	XPRT_Q_NR = 6,           /**< the number of queues; "all" for statistics */
};

/* ---- end-point addresses: NID:PID:portal:TMID ---- */

/** The PID a TM's address must carry (LNet's, as kernel peers deliver only to it). */
#define XPRT_PID LNET_PID_LUSTRE
/** Largest TMID an address may name. */
#define XPRT_TMID_MAX 4095u
/** The TMID of an address ending in `*`: the TM gets the highest free one at start. */
#define XPRT_TMID_DYNAMIC 4096u
/** Portals a TM may use are 1..XPRT_PORTAL_MAX - 1 (0 is LNet's reserved portal). */
#define XPRT_PORTAL_MAX 64u
/** Longest address text, its NUL included. */
#define XPRT_ADDR_LEN 80u
/** Longest NID part of an address text, its NUL included. */
#define XPRT_ADDR_NID_LEN 32u

/** An end-point address, decoded. */
struct xprt_addr {
	struct lnet_nid nid;
	uint32_t pid;
	uint32_t portal;
	uint32_t tmid; /**< 1..XPRT_TMID_MAX, or XPRT_TMID_DYNAMIC */
};

/**
 * Decode `NID:PID:portal:TMID` (TMID `*` for a dynamic one). The PID and the
 * portal are only decoded here; a TM's start checks them against the node.
 * @return 0, or -EINVAL (a part missing, not a number, out of range, TMID 0,
 *         a NID LNet does not know, text too long)
 */
XPRT_API int xprt_addr_parse(const char *text, struct xprt_addr *out);

/**
 * Print @p a as xprt_addr_parse() reads it (`*` for a dynamic TMID).
 * @return the length printed (without the NUL), or -ENOSPC when @p len is too small
 */
XPRT_API int xprt_addr_format(const struct xprt_addr *a, char *buf, size_t len);

/**
 * Compare the NID parts of two address texts as strcmp does, to group TMs by NID.
 * @return <0, 0 or >0; -1 when either text has no ':'
 */
XPRT_API int xprt_addr_net_cmp(const char *a, const char *b);

/* ---- match bits and header data ---- */

/** Match bits: the TMID of the TM that owns the ME in the top 12 bits. */
#define XPRT_MB_TMID_SHIFT 52
/** The low 52 bits: 0 for a TM's receive queue, else a passive buffer's id. */
#define XPRT_MB_ID_MASK ((UINT64_C(1) << XPRT_MB_TMID_SHIFT) - 1)
/** Largest passive buffer id; ids wrap from here back to 1. */
#define XPRT_MB_ID_MAX XPRT_MB_ID_MASK

/** The match bits of buffer @p id of TM @p tmid (id 0: its receive queue). */
static inline uint64_t
xprt_mb_make(uint32_t tmid, uint64_t id)
{
	return ((uint64_t)tmid << XPRT_MB_TMID_SHIFT) | (id & XPRT_MB_ID_MASK);
}

/** The TMID in match bits. */
static inline uint32_t
xprt_mb_tmid(uint64_t mb)
{
	return (uint32_t)(mb >> XPRT_MB_TMID_SHIFT);
}

/** The buffer id in match bits. */
static inline uint64_t
xprt_mb_id(uint64_t mb)
{
	return mb & XPRT_MB_ID_MASK;
}

/** The passive buffer id after @p id: 1..XPRT_MB_ID_MAX, wrapping (0 is the receive queue's). */
static inline uint64_t
xprt_mb_id_next(uint64_t id)
{
	return id >= XPRT_MB_ID_MAX ? 1 : id + 1;
}

/** Header data of every PUT a TM sends: its TMID and portal, for the receiver to name it. */
static inline uint64_t
xprt_hdr_data_make(uint32_t tmid, uint32_t portal)
{
	return ((uint64_t)tmid << XPRT_MB_TMID_SHIFT) | ((uint64_t)portal & XPRT_MB_ID_MASK);
}

/**
 * The sender of a PUT: the initiator's NID and PID, the TMID and portal its
 * header data carries (header data 0: all zero, as from a sender that is no TM).
 */
XPRT_API void xprt_hdr_data_sender(uint64_t hdr_data, const struct lnet_nid *nid, uint32_t pid,
				   struct xprt_addr *out);

/* ---- the passive buffer descriptor ---- */

/** Bytes of a descriptor: five little-endian u64 words (some split in u32s) and their XOR. */
#define XPRT_DESC_SIZE 48u

/** What a descriptor says about a passive buffer. */
struct xprt_desc_info {
	uint64_t match_bits;   /**< (the passive TM's TMID, the buffer's id) */
	struct xprt_addr addr; /**< the passive TM's address (a NID that fits 64 bits) */
	uint32_t qtype;        /**< XPRT_Q_PASSIVE_RECV or XPRT_Q_PASSIVE_SEND */
	uint64_t size;         /**< a passive receive's whole buffer; a passive send's length */
};

/** A descriptor as an application carries it in its own messages. */
struct xprt_desc {
	uint32_t len; /**< XPRT_DESC_SIZE when set, 0 when empty */
	uint8_t bytes[XPRT_DESC_SIZE];
};

/**
 * Encode @p info into @p out.
 * @return 0, or -EINVAL (a NID wider than 64 bits, a queue that is not passive)
 */
XPRT_API int xprt_desc_encode(const struct xprt_desc_info *info, struct xprt_desc *out);

/**
 * Decode a peer's descriptor for an active operation, checking in this
 * order: its size and checksum (-EINVAL); that its passive queue pairs with
 * @p active_qtype, a passive send with an active receive and a passive
 * receive with an active send (-EPERM; -EINVAL for a queue that is not
 * passive); the sizes (-EFBIG: a passive send longer than @p buf_size, or a
 * @p send_len longer than the passive receive); the match bits' buffer id
 * (1..XPRT_MB_ID_MAX) and TMID (the descriptor's), and a NID we can name
 * (not ANY, nothing in the top byte) (-EINVAL).
 * @param xfer_len receives the bytes the active operation moves
 * @return 0 or -errno as above
 */
XPRT_API int xprt_desc_decode(const struct xprt_desc *d, enum xprt_qtype active_qtype,
			      uint64_t buf_size, uint64_t send_len, struct xprt_desc_info *info,
			      uint64_t *xfer_len);

#ifdef __cplusplus
}
#endif

#endif /* LNET_XPRT_H */
