/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ksocklnd wire layouts (lnet-facts §4): the acceptor's connection request,
 * the hellos of protocol versions 1-4 and the ksock_msg header, as packed
 * structures with size and offset checks. Sender-native byte order except
 * V1, which is little-endian like an LNet header.
 */
#ifndef KSOCK_IDL_H
#define KSOCK_IDL_H

#include <stddef.h>
#include <stdint.h>

#include "cfs_nid.h"
#include "lnet_idl.h"

#define LNET_ACCEPTOR_PORT 988
#define LNET_ACCEPTOR_MIN_RESERVED_PORT 512
#define LNET_ACCEPTOR_MAX_RESERVED_PORT 1023
#define LNET_PROTO_ACCEPTOR_VERSION 1
#define LNET_PROTO_ACCEPTOR_VERSION_16 2 /* target NID as a 20-byte large NID */

/** Connection request V1: the target's 64-bit NID. */
struct lnet_acceptor_connreq {
	uint32_t acr_magic;
	uint32_t acr_version;
	uint64_t acr_nid;
} __attribute__((packed));

/** Connection request V2: the target's large NID. */
struct lnet_acceptor_connreq_v2 {
	uint32_t acr_magic;
	uint32_t acr_version;
	struct lnet_nid acr_nid;
} __attribute__((packed));

#define KSOCK_PROTO_V1 1
#define KSOCK_PROTO_V2 2
#define KSOCK_PROTO_V3 3
#define KSOCK_PROTO_V4 4
#define KSOCK_PROTO_V1_MAJOR 1
#define KSOCK_PROTO_V1_MINOR 0

/** Hello of V2/V3: 56 bytes then kshm_nips IPv4 addresses. */
struct ksock_hello_msg_nid4 {
	uint32_t kshm_magic;
	uint32_t kshm_version;
	uint64_t kshm_src_nid;
	uint64_t kshm_dst_nid;
	uint32_t kshm_src_pid;
	uint32_t kshm_dst_pid;
	uint64_t kshm_src_incarnation;
	uint64_t kshm_dst_incarnation;
	uint32_t kshm_ctype;
	uint32_t kshm_nips;
} __attribute__((packed));

/** Hello of V4: large NIDs, no address list. */
struct ksock_hello_msg {
	uint32_t kshm_magic;
	uint32_t kshm_version;
	struct lnet_nid kshm_src_nid;
	struct lnet_nid kshm_dst_nid;
	uint32_t kshm_src_pid;
	uint32_t kshm_dst_pid;
	uint64_t kshm_src_incarnation;
	uint64_t kshm_dst_incarnation;
	uint32_t kshm_ctype;
	uint32_t kshm_nips;
} __attribute__((packed));

#define KSOCK_MAX_NIPS 16

/** Connection types; the passive side inverts BULK_IN and BULK_OUT. */
#define SOCKLND_CONN_NONE (-1)
#define SOCKLND_CONN_ANY 0
#define SOCKLND_CONN_CONTROL 1
#define SOCKLND_CONN_BULK_IN 2
#define SOCKLND_CONN_BULK_OUT 3
#define SOCKLND_CONN_NTYPES 4
#define SOCKLND_CONN_ACK SOCKLND_CONN_BULK_IN

/** Header before every message after the hello (V2-V4), sender-native. */
struct ksock_msg_hdr {
	uint32_t ksm_type;
	uint32_t ksm_csum;
	uint64_t ksm_zc_cookies[2];
} __attribute__((packed));

#define KSOCK_MSG_NOOP 0xc0U
#define KSOCK_MSG_LNET 0xc1U
#define SOCKNAL_KEEPALIVE_PING 1ULL

_Static_assert(sizeof(struct lnet_acceptor_connreq) == 16, "connreq V1 is 16 bytes");
_Static_assert(sizeof(struct lnet_acceptor_connreq_v2) == 28, "connreq V2 is 28 bytes");
_Static_assert(sizeof(struct ksock_hello_msg_nid4) == 56, "V2/V3 hello is 56 bytes");
_Static_assert(sizeof(struct ksock_hello_msg) == 80, "V4 hello is 80 bytes");
_Static_assert(sizeof(struct ksock_msg_hdr) == 24, "ksock_msg header is 24 bytes");
_Static_assert(offsetof(struct ksock_hello_msg_nid4, kshm_src_pid) == 24, "V3 src_pid");
_Static_assert(offsetof(struct ksock_hello_msg_nid4, kshm_src_incarnation) == 32, "V3 inc");
_Static_assert(offsetof(struct ksock_hello_msg_nid4, kshm_ctype) == 48, "V3 ctype");
_Static_assert(offsetof(struct ksock_hello_msg, kshm_dst_nid) == 28, "V4 dst_nid");
_Static_assert(offsetof(struct ksock_hello_msg, kshm_src_pid) == 48, "V4 src_pid");
_Static_assert(offsetof(struct ksock_hello_msg, kshm_src_incarnation) == 56, "V4 inc");
_Static_assert(offsetof(struct ksock_hello_msg, kshm_ctype) == 72, "V4 ctype");
_Static_assert(offsetof(struct ksock_msg_hdr, ksm_zc_cookies) == 8, "zc cookies");

#endif /* KSOCK_IDL_H */
