/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * o2iblnd wire constants (o2ib-facts §1-§3): the message header and body
 * offsets, message types, versions, reject reasons and the limits both
 * sides advertise. Every multi-byte field travels in the sender's native
 * order; a receiver finds the order from the magic.
 */
#ifndef O2IB_IDL_H
#define O2IB_IDL_H

#include "lnet_idl.h"

/** The o2iblnd magic (LNET_PROTO_IB_MAGIC). */
#define O2IB_MSG_MAGIC LNET_PROTO_IB_MAGIC

#define O2IB_MSG_VERSION_1 0x11 /**< legacy: queue depth 8, no out-of-band NOOPs */
#define O2IB_MSG_VERSION_2 0x12 /**< current */
#define O2IB_MSG_VERSION O2IB_MSG_VERSION_2

/** Message types (kib_msg.ibm_type). */
enum o2ib_msg_type {
	O2IB_MSG_CONNREQ = 0xc0,
	O2IB_MSG_CONNACK = 0xc1,
	O2IB_MSG_NOOP = 0xd0,
	O2IB_MSG_IMMEDIATE = 0xd1,
	O2IB_MSG_PUT_REQ = 0xd2,
	O2IB_MSG_PUT_NAK = 0xd3,
	O2IB_MSG_PUT_ACK = 0xd4,
	O2IB_MSG_PUT_DONE = 0xd5,
	O2IB_MSG_GET_REQ = 0xd6,
	O2IB_MSG_GET_DONE = 0xd7,
};

/** Reasons a passive side gives in a kib_rej (why). */
enum o2ib_reject_why {
	O2IB_REJECT_CONN_RACE = 1,      /**< you lost the connection race */
	O2IB_REJECT_NO_RESOURCES = 2,   /**< out of memory or connections */
	O2IB_REJECT_FATAL = 3,          /**< anything else */
	O2IB_REJECT_CONN_UNCOMPAT = 4,  /**< incompatible version */
	O2IB_REJECT_CONN_STALE = 5,     /**< stale incarnation */
	O2IB_REJECT_RDMA_FRAGS = 6,     /**< max_frags does not suit me */
	O2IB_REJECT_MSG_QUEUE_SIZE = 7, /**< queue depth too large for me */
	O2IB_REJECT_INVALID_SRV_ID = 8,
	O2IB_REJECT_EARLY = 9, /**< the NI is not initialised yet */
};

/** Every message fits one 4 KiB receive buffer. */
#define O2IB_MSG_SIZE 4096U
/** Fragments of an RDMA descriptor: LNET_MAX_IOV (256) + 1 for an unaligned buffer. */
#define O2IB_MAX_RDMA_FRAGS 257U
/** v1 connections: fixed queue depth and credit high-water. */
#define O2IB_MSG_QUEUE_SIZE_V1 8U
#define O2IB_CREDIT_HIGHWATER_V1 7U
/** NOOPs that v2 may post without a credit at any one time. */
#define O2IB_OOB_MSGS_V2 2U
/** Connect races a higher NID wins before it lets the lower one through. */
#define O2IB_MAX_CONN_RACES 20U
/** The RDMA CM port (module parameter service). */
#define O2IB_SERVICE_DEFAULT 987U

/*
 * Byte offsets in a message (all structures are packed): the 48-byte
 * header is magic u32, version u16, type u8, credits u8, nob u32, cksum
 * u32, then four u64s (srcnid, srcstamp, dstnid, dststamp).
 */
#define O2IB_OFF_MAGIC 0
#define O2IB_OFF_VERSION 4
#define O2IB_OFF_TYPE 6
#define O2IB_OFF_CREDITS 7
#define O2IB_OFF_NOB 8
#define O2IB_OFF_CKSUM 12
#define O2IB_OFF_SRCNID 16
#define O2IB_OFF_SRCSTAMP 24
#define O2IB_OFF_DSTNID 32
#define O2IB_OFF_DSTSTAMP 40
#define O2IB_HDR_SIZE 48U

/** The LNet header embedded in IMMEDIATE, PUT_REQ and GET_REQ (nid4, 72 bytes, LE). */
#define O2IB_LNET_HDR_SIZE 72U
/** connparams: queue_depth u16, max_frags u16, max_msg_size u32. */
#define O2IB_CONNPARAMS_SIZE 8U
/** completion: cookie u64, status s32. */
#define O2IB_COMPLETION_SIZE 12U
/** RDMA descriptor: key u32, nfrags u32, then {nob u32, addr u64} per fragment. */
#define O2IB_RD_HDR_SIZE 8U
#define O2IB_RD_FRAG_SIZE 12U

/** The largest payload an IMMEDIATE carries: 4096 - 48 - 72. */
#define O2IB_IMMEDIATE_MAX (O2IB_MSG_SIZE - O2IB_HDR_SIZE - O2IB_LNET_HDR_SIZE)
#define O2IB_OFF_IMM_PAYLOAD (O2IB_HDR_SIZE + O2IB_LNET_HDR_SIZE)
/** PUT_ACK: src_cookie @48, dst_cookie @56, descriptor @64. */
#define O2IB_OFF_PUTACK_RD (O2IB_HDR_SIZE + 16U)
/** GET_REQ: LNet header @48, cookie @120, descriptor @128. */
#define O2IB_OFF_GETREQ_RD (O2IB_HDR_SIZE + O2IB_LNET_HDR_SIZE + 8U)

/** A kib_rej: magic u32, version u16, why u8, pad u8, incarnation u64, connparams. */
#define O2IB_REJ_SIZE 24U
/** The bytes of a kib_rej a reject must carry to be read as one (up to the padding). */
#define O2IB_REJ_MIN 7U

#endif /* O2IB_IDL_H */
