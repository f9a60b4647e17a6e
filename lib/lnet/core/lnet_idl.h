/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * LNet wire layouts (lnet-facts §2, §3) as packed structures with the names
 * of Lustre's lnet-idl.h, and the protocol's magic numbers and constants.
 * Only layouts and constants live here; lnet_wire.h converts them.
 */
#ifndef LNET_IDL_H
#define LNET_IDL_H

#include <stddef.h>
#include <stdint.h>

#include "cfs_nid.h"

/** Message types (u32 on the wire). */
enum lnet_msg_type {
	LNET_MSG_ACK = 0,
	LNET_MSG_PUT = 1,
	LNET_MSG_GET = 2,
	LNET_MSG_REPLY = 3,
	LNET_MSG_HELLO = 4,
};

/** Opaque MD handle as it travels: echoed verbatim by the peer. */
struct lnet_handle_wire {
	uint64_t wh_interface_cookie;
	uint64_t wh_object_cookie;
} __attribute__((packed));

/** Both cookies all ones: no handle. */
#define LNET_WIRE_HANDLE_COOKIE_NONE (~0ULL)

struct lnet_ack {
	struct lnet_handle_wire dst_wmd;
	uint64_t match_bits;
	uint32_t mlength;
} __attribute__((packed));

struct lnet_put {
	struct lnet_handle_wire ack_wmd;
	uint64_t match_bits;
	uint64_t hdr_data;
	uint32_t ptl_index;
	uint32_t offset;
} __attribute__((packed));

struct lnet_get {
	struct lnet_handle_wire return_wmd;
	uint64_t match_bits;
	uint32_t ptl_index;
	uint32_t src_offset;
	uint32_t sink_length;
} __attribute__((packed));

struct lnet_reply {
	struct lnet_handle_wire dst_wmd;
} __attribute__((packed));

struct lnet_hello {
	uint64_t incarnation;
	uint32_t type;
} __attribute__((packed));

union lnet_msg_union {
	struct lnet_ack ack;
	struct lnet_put put;
	struct lnet_get get;
	struct lnet_reply reply;
	struct lnet_hello hello;
} __attribute__((packed));

/** The 72-byte header with 64-bit NIDs: every scalar little-endian. */
struct lnet_hdr_nid4 {
	uint64_t dest_nid;
	uint64_t src_nid;
	uint32_t dest_pid;
	uint32_t src_pid;
	uint32_t type;
	uint32_t payload_length;
	union lnet_msg_union msg;
} __attribute__((packed));

/** The 96-byte header with large NIDs (socklnd V4); NIDs are never swapped. */
struct lnet_hdr_nid16 {
	struct lnet_nid dest_nid;
	struct lnet_nid src_nid;
	uint32_t dest_pid;
	uint32_t src_pid;
	uint32_t type;
	uint32_t payload_length;
	union lnet_msg_union msg;
} __attribute__((packed));

#define LNET_HDR_NID4_SIZE 72U
#define LNET_HDR_NID16_SIZE 96U

/** One NI in ping info (sender-native order). */
struct lnet_ni_status {
	uint64_t ns_nid;
	uint32_t ns_status;
	uint32_t ns_msg_size;
} __attribute__((packed));

/** One large-NID NI after the nid4 array; padded to 4 bytes on the wire. */
struct lnet_ni_large_status {
	uint32_t ns_status;
	struct lnet_nid ns_nid; /* only 8 + nid_size bytes are sent */
} __attribute__((packed));

/** Ping/push payload header, followed by pi_nnis struct lnet_ni_status. */
struct lnet_ping_info {
	uint32_t pi_magic;
	uint32_t pi_features;
	uint32_t pi_pid;
	uint32_t pi_nnis;
	struct lnet_ni_status pi_ni[];
} __attribute__((packed));

#define LNET_PROTO_PING_MAGIC 0x70696E67U /* "ping" */
#define LNET_PROTO_PING_MATCHBITS 0x8000000000000000ULL
#define LNET_RESERVED_PORTAL 0

#define LNET_NI_STATUS_UP 0x15aac0deU
#define LNET_NI_STATUS_DOWN 0xdeadfaceU
#define LNET_NI_STATUS_INVALID 0x00000000U

#define LNET_PING_FEAT_BASE (1U << 0)
#define LNET_PING_FEAT_NI_STATUS (1U << 1)
#define LNET_PING_FEAT_RTE_DISABLED (1U << 2)
#define LNET_PING_FEAT_MULTI_RAIL (1U << 3)
#define LNET_PING_FEAT_DISCOVERY (1U << 4)
#define LNET_PING_FEAT_LARGE_ADDR (1U << 5)
#define LNET_PING_FEAT_PRIMARY_LARGE (1U << 6)
#define LNET_PING_FEAT_METADATA (1U << 7)
#define LNET_PING_FEAT_MASK 0xffU /* the bits 2.17 knows; a received ping may carry more */

#define LNET_INTERFACES_MIN 16U
#define LNET_INTERFACES_NUM 16U
#define LNET_INTERFACES_MAX_DEFAULT 4096U
#define LNET_PING_INFO_HDR_SIZE 16U
#define LNET_PING_INFO_MIN_SIZE (LNET_PING_INFO_HDR_SIZE + 16U * LNET_INTERFACES_MIN)

#define LNET_MTU (1U << 20)
#define LNET_MAX_PAYLOAD LNET_MTU
#define LNET_MAX_IOV 256U

/* Magics shared with the LNDs (acceptor, socklnd, o2iblnd). */
#define LNET_PROTO_ACCEPTOR_MAGIC 0xacce7100U
#define LNET_PROTO_TCP_MAGIC 0xeebc0dedU
#define LNET_PROTO_IB_MAGIC 0x0be91b91U
#define LNET_PROTO_MAGIC 0x45726963U

#define LNET_IDL_CHECK(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field)

_Static_assert(sizeof(struct lnet_nid) == 20, "lnet_nid is 20 bytes");
_Static_assert(sizeof(struct lnet_handle_wire) == 16, "wire handle is 16 bytes");
_Static_assert(sizeof(struct lnet_hdr_nid4) == LNET_HDR_NID4_SIZE, "nid4 header is 72 bytes");
_Static_assert(sizeof(struct lnet_hdr_nid16) == LNET_HDR_NID16_SIZE, "nid16 header is 96 bytes");
_Static_assert(sizeof(struct lnet_ni_status) == 16, "ni status is 16 bytes");
_Static_assert(sizeof(struct lnet_ping_info) == LNET_PING_INFO_HDR_SIZE, "ping info header");
_Static_assert(sizeof(union lnet_msg_union) == 40, "message union is 40 bytes");
LNET_IDL_CHECK(lnet_hdr_nid4, dest_nid, 0);
LNET_IDL_CHECK(lnet_hdr_nid4, src_nid, 8);
LNET_IDL_CHECK(lnet_hdr_nid4, dest_pid, 16);
LNET_IDL_CHECK(lnet_hdr_nid4, src_pid, 20);
LNET_IDL_CHECK(lnet_hdr_nid4, type, 24);
LNET_IDL_CHECK(lnet_hdr_nid4, payload_length, 28);
LNET_IDL_CHECK(lnet_hdr_nid4, msg, 32);
LNET_IDL_CHECK(lnet_hdr_nid4, msg.ack.match_bits, 48);
LNET_IDL_CHECK(lnet_hdr_nid4, msg.ack.mlength, 56);
LNET_IDL_CHECK(lnet_hdr_nid4, msg.put.match_bits, 48);
LNET_IDL_CHECK(lnet_hdr_nid4, msg.put.hdr_data, 56);
LNET_IDL_CHECK(lnet_hdr_nid4, msg.put.ptl_index, 64);
LNET_IDL_CHECK(lnet_hdr_nid4, msg.put.offset, 68);
LNET_IDL_CHECK(lnet_hdr_nid4, msg.get.match_bits, 48);
LNET_IDL_CHECK(lnet_hdr_nid4, msg.get.ptl_index, 56);
LNET_IDL_CHECK(lnet_hdr_nid4, msg.get.src_offset, 60);
LNET_IDL_CHECK(lnet_hdr_nid4, msg.get.sink_length, 64);
LNET_IDL_CHECK(lnet_hdr_nid4, msg.hello.type, 40);
LNET_IDL_CHECK(lnet_hdr_nid16, src_nid, 20);
LNET_IDL_CHECK(lnet_hdr_nid16, dest_pid, 40);
LNET_IDL_CHECK(lnet_hdr_nid16, src_pid, 44);
LNET_IDL_CHECK(lnet_hdr_nid16, type, 48);
LNET_IDL_CHECK(lnet_hdr_nid16, payload_length, 52);
LNET_IDL_CHECK(lnet_hdr_nid16, msg, 56);
LNET_IDL_CHECK(lnet_ni_status, ns_status, 8);
LNET_IDL_CHECK(lnet_ni_status, ns_msg_size, 12);
LNET_IDL_CHECK(lnet_ping_info, pi_nnis, 12);
LNET_IDL_CHECK(lnet_ni_large_status, ns_nid, 4);

#endif /* LNET_IDL_H */
