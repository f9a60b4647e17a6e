/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * NID, net and process-id types with their constants (lnet-facts §1).
 *
 * Internally every NID is a large NID (struct lnet_nid); the 64-bit nid4
 * form exists only at the wire edge for peers and formats that need it.
 * Everything here is pure data and inline helpers, callable from any thread.
 */
#ifndef CFS_NID_H
#define CFS_NID_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>

#include "lnp_api.h"

LNP_BEGIN_DECLS

/** Legacy 64-bit NID: net in bits 63..32, address in bits 31..0. */
typedef uint64_t lnet_nid_t;
/** Process id number (12345 for kernel LNet). */
typedef uint32_t lnet_pid_t;

/** LND type numbers (nidstr.h; never renumbered). */
enum lnet_lnd_type {
	LNET_LND_QSW = 1,
	LNET_LND_SOCK = 2, /**< tcp */
	LNET_LND_GM = 3,
	LNET_LND_PTL = 4,
	LNET_LND_O2IB = 5, /**< o2ib */
	LNET_LND_CIB = 6,
	LNET_LND_OPENIB = 7,
	LNET_LND_IIB = 8,
	LNET_LND_LO = 9, /**< lo */
	LNET_LND_RA = 10,
	LNET_LND_VIB = 11,
	LNET_LND_MX = 12,
	LNET_LND_GNI = 13,   /**< gni */
	LNET_LND_GNIIP = 14, /**< gip */
	LNET_LND_PTL4 = 15,  /**< ptlf */
	LNET_LND_KFI = 16,   /**< kfi */
	LNET_LND_TOFU = 17,
	LNET_LND_EFA = 18,  /**< efa */
	LNET_LND_BXI3 = 19, /**< bxi3f */
};

/** Largest address a large NID holds: four 32-bit words (IPv6). */
#define LNET_NID_ADDR_WORDS 4

/**
 * Large NID (20 bytes). nid_num and nid_addr are big-endian; the struct is
 * never byte-swapped on the wire.
 */
struct lnet_nid {
	uint8_t nid_size; /**< address bytes minus 4: 0 (IPv4/number), 12 (IPv6) */
	uint8_t nid_type; /**< enum lnet_lnd_type; 0xff = ANY */
	uint16_t nid_num; /**< net number, big-endian */
	uint32_t nid_addr[LNET_NID_ADDR_WORDS]; /**< address words, big-endian */
};
_Static_assert(sizeof(struct lnet_nid) == 20 && __builtin_offsetof(struct lnet_nid, nid_addr) == 4,
	       "lnet_nid_same() compares a header word and two address words");

/** Process identity: PID plus large NID (current Lustre order). */
struct lnet_processid {
	lnet_pid_t pid;      /**< process id */
	struct lnet_nid nid; /**< node id */
};

/** Legacy process identity (nid4). */
struct lnet_process_id {
	lnet_nid_t nid; /**< nid4 */
	lnet_pid_t pid; /**< process id */
};

/** nid4 wildcard. */
#define LNET_NID_ANY ((lnet_nid_t)-1)
/** net wildcard. */
#define LNET_NET_ANY ((uint32_t)-1)
/** PID wildcard. */
#define LNET_PID_ANY ((lnet_pid_t)-1)
/** The PID kernel LNet always runs with. */
#define LNET_PID_LUSTRE 12345
/** Marks a userspace peer's PID. */
#define LNET_PID_USERFLAG 0x80000000U
/** Reserved PID bits. */
#define LNET_PID_RESERVED 0xf0000000U
/** Address wildcard. */
#define LNET_ADDR_ANY ((uint32_t)-1)

/** Large-NID wildcard initializer. */
#define LNET_ANY_NID        \
	((struct lnet_nid){ \
		0xff, 0xff, 0xffff, { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff } })

/** Address part of a nid4. */
#define LNET_NIDADDR(nid) ((uint32_t)((nid)&0xffffffff))
/** Net part of a nid4. */
#define LNET_NIDNET(nid) ((uint32_t)(((nid) >> 32)) & 0xffffffff)
/** Build a nid4 from net and address. */
#define LNET_MKNID(net, addr) ((((uint64_t)(net)) << 32) | ((uint64_t)(addr)))
/** Net number of a net. */
#define LNET_NETNUM(net) ((net)&0xffff)
/** LND type of a net. */
#define LNET_NETTYP(net) (((net) >> 16) & 0xff)
/** Build a net from LND type and number. */
#define LNET_MKNET(typ, num) ((((uint32_t)(typ)) << 16) | ((uint32_t)(num)))

/** nid4 of 0@lo. */
#define LNET_NID_LO_0 LNET_MKNID(LNET_MKNET(LNET_LND_LO, 0), 0)

/** Bytes of address carried by @p nid. */
static inline unsigned int
lnet_nid_addr_bytes(const struct lnet_nid *nid)
{
	return (unsigned int)nid->nid_size + 4;
}

/** Bytes of the whole NID on the wire (8 + nid_size). */
static inline unsigned int
lnet_nid_bytes(const struct lnet_nid *nid)
{
	return (unsigned int)nid->nid_size + 8;
}

/** True for the wildcard NID. */
static inline bool
lnet_nid_is_any(const struct lnet_nid *nid)
{
	return nid->nid_type == 0xff;
}

/** True when @p nid fits the legacy 64-bit form. */
static inline bool
lnet_nid_is_nid4(const struct lnet_nid *nid)
{
	return nid->nid_size == 0 || lnet_nid_is_any(nid);
}

/** Net (type << 16 | number) of a large NID; LNET_NET_ANY for ANY. */
static inline uint32_t
lnet_nid_net(const struct lnet_nid *nid)
{
	if (lnet_nid_is_any(nid))
		return LNET_NET_ANY;
	return LNET_MKNET(nid->nid_type, ntohs(nid->nid_num));
}

/** Converts a nid4-representable large NID to nid4 (ANY maps to ANY). */
static inline lnet_nid_t
lnet_nid_to_nid4(const struct lnet_nid *nid)
{
	if (lnet_nid_is_any(nid))
		return LNET_NID_ANY;
	return LNET_MKNID(lnet_nid_net(nid), ntohl(nid->nid_addr[0]));
}

/** Converts a nid4 to a large NID (ANY maps to ANY). */
static inline void
lnet_nid4_to_nid(lnet_nid_t nid4, struct lnet_nid *nid)
{
	if (nid4 == LNET_NID_ANY) {
		*nid = LNET_ANY_NID;
		return;
	}
	memset(nid, 0, sizeof(*nid));
	nid->nid_type = (uint8_t)LNET_NETTYP(LNET_NIDNET(nid4));
	nid->nid_num = htons((uint16_t)LNET_NETNUM(LNET_NIDNET(nid4)));
	nid->nid_addr[0] = htonl(LNET_NIDADDR(nid4));
}

/** Equality of two large NIDs (size, type, number, all address words). */
static inline bool
lnet_nid_same(const struct lnet_nid *a, const struct lnet_nid *b)
{
	/* All 20 bytes, as three words and no branch: unused address words are zero. */
	uint32_t ha, hb;
	uint64_t a0, a1, b0, b1;

	memcpy(&ha, a, sizeof(ha));
	memcpy(&hb, b, sizeof(hb));
	memcpy(&a0, &a->nid_addr[0], sizeof(a0));
	memcpy(&b0, &b->nid_addr[0], sizeof(b0));
	memcpy(&a1, &a->nid_addr[2], sizeof(a1));
	memcpy(&b1, &b->nid_addr[2], sizeof(b1));
	return ((uint64_t)(ha ^ hb) | (a0 ^ b0) | (a1 ^ b1)) == 0;
}

/** True for 0@lo. */
static inline bool
lnet_nid_is_lo0(const struct lnet_nid *nid)
{
	return nid->nid_size == 0 && nid->nid_type == LNET_LND_LO && nid->nid_num == 0 &&
	       nid->nid_addr[0] == 0;
}

/** Sets @p nid to 0@lo. */
static inline void
lnet_nid_set_lo0(struct lnet_nid *nid)
{
	lnet_nid4_to_nid(LNET_NID_LO_0, nid);
}

/** True when two NIDs are on the same net. */
static inline bool
lnet_nid_same_net(const struct lnet_nid *a, const struct lnet_nid *b)
{
	return lnet_nid_net(a) == lnet_nid_net(b);
}

LNP_END_DECLS

#endif /* CFS_NID_H */
