/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Encoding and validation of LNet headers and ping/push info. Decoders take
 * untrusted bytes and return 0 or -LNET_WIRE_E* naming what was wrong
 * (lnet_wire_strerror()). No DPDK: fuzz targets and the pcap writer link
 * this alone.
 */
#ifndef LNET_WIRE_H
#define LNET_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs_nid.h"
#include "lnet_idl.h"
#include "lnp_api.h"

LNP_BEGIN_DECLS

/**
 * A header in host order, whatever the wire format. Handle cookies are the
 * raw 8 bytes from the wire (never converted); hdr_data likewise (it is
 * little-endian on every practical peer).
 */
struct lnet_hdr {
	struct lnet_nid dest_nid;
	struct lnet_nid src_nid;
	lnet_pid_t dest_pid;
	lnet_pid_t src_pid;
	uint32_t type; /**< enum lnet_msg_type */
	uint32_t payload_length;
	union {
		struct {
			struct lnet_handle_wire dst_wmd;
			uint64_t match_bits;
			uint32_t mlength;
		} ack;
		struct {
			struct lnet_handle_wire ack_wmd;
			uint64_t match_bits;
			uint64_t hdr_data;
			uint32_t ptl_index;
			uint32_t offset;
		} put;
		struct {
			struct lnet_handle_wire return_wmd;
			uint64_t match_bits;
			uint32_t ptl_index;
			uint32_t src_offset;
			uint32_t sink_length;
		} get;
		struct {
			struct lnet_handle_wire dst_wmd;
		} reply;
		struct {
			uint64_t incarnation;
			uint32_t type;
		} hello;
	} msg;
};

/** What a decoder or validator found wrong. */
enum lnet_wire_err {
	LNET_WIRE_OK = 0,
	LNET_WIRE_ESHORT,    /**< buffer shorter than the format */
	LNET_WIRE_ETYPE,     /**< unknown message type */
	LNET_WIRE_EPAYLOAD,  /**< ACK/GET with payload, or PUT/REPLY above LNET_MTU */
	LNET_WIRE_ENID,      /**< malformed NID (bad size or type) */
	LNET_WIRE_ESRCANY,   /**< source NID is the ANY wildcard */
	LNET_WIRE_ENID4,     /**< NID not representable in a 64-bit NID format */
	LNET_WIRE_EMAGIC,    /**< bad ping info magic */
	LNET_WIRE_EFEATURES, /**< ping features: NI_STATUS missing (unknown bits pass) */
	LNET_WIRE_ENNIS,     /**< ping NI count out of range */
	LNET_WIRE_ELO,       /**< ping entry 0 is not 0@lo */
	LNET_WIRE_ESIZE,     /**< declared size inconsistent with the contents */
	LNET_WIRE_EINVAL,    /**< bad argument from the caller */
	LNET_WIRE_EMAX,
};

/** Text naming what -LNET_WIRE_E* @p rc means. */
LNP_API const char *lnet_wire_strerror(int rc);

/** Both cookies all ones. */
LNP_API bool lnet_wire_handle_is_none(const struct lnet_handle_wire *wh);

/** Checks of lnet-facts §2.4 that need no local state. 0 or -LNET_WIRE_E*. */
LNP_API int lnet_hdr_validate(const struct lnet_hdr *h);

/** Write the 72-byte header. 0, -LNET_WIRE_ESHORT, -LNET_WIRE_ENID4. */
LNP_API int lnet_hdr_encode_nid4(const struct lnet_hdr *h, void *buf, size_t len);

/** Write the 96-byte header. 0 or -LNET_WIRE_ESHORT. */
LNP_API int lnet_hdr_encode_nid16(const struct lnet_hdr *h, void *buf, size_t len);

/** Read and validate a 72-byte header. */
LNP_API int lnet_hdr_decode_nid4(const void *buf, size_t len, struct lnet_hdr *h);

/** Read and validate a 96-byte header. */
LNP_API int lnet_hdr_decode_nid16(const void *buf, size_t len, struct lnet_hdr *h);

/** A NI in ping info. */
struct lnet_ping_entry {
	struct lnet_nid nid;
	uint32_t status; /**< LNET_NI_STATUS_* */
};

/** What to put in a ping buffer; @c nis excludes 0@lo, nis[0] is the primary. */
struct lnet_ping_src {
	uint32_t features; /**< LARGE_ADDR/PRIMARY_LARGE are added as needed */
	lnet_pid_t pid;
	uint32_t seqno; /**< carried in 0@lo's status */
	const struct lnet_ping_entry *nis;
	unsigned int nnis;
};

/** Bytes lnet_ping_info_encode() writes for @p src. */
LNP_API int lnet_ping_info_size(const struct lnet_ping_src *src, size_t *size);

/**
 * Encode ping info in host (sender-native) order: 0@lo first with the
 * sequence number, then nid4 NIs in order, then (LARGE_ADDR) large ones.
 */
LNP_API int lnet_ping_info_encode(const struct lnet_ping_src *src, void *buf, size_t len,
				  size_t *written);

/** A decoded ping info. */
struct lnet_ping_decoded {
	uint32_t features;
	lnet_pid_t pid;
	uint32_t seqno;
	bool swapped;            /**< the sender's byte order differs from ours */
	size_t info_size;        /**< total size the sender declared or implies */
	struct lnet_nid primary; /**< with PRIMARY_LARGE the first NID that does not fit nid4,
				       else (or if there is none) the first after 0@lo */
	unsigned int nnis_total; /**< NIs after 0@lo, nid4 and large */
};

/**
 * Validate and decode ping info (either byte order). Fills up to @p nis_cap
 * entries of @p nis (0@lo excluded). At most @p max_nis entries, 0@lo
 * included, in the nid4 and large sections together (-LNET_WIRE_ENNIS). When the buffer is shorter than the
 * declared size, returns -LNET_WIRE_ESHORT with out->info_size set so the
 * caller can retry with a bigger buffer, as discovery does.
 */
LNP_API int lnet_ping_info_decode(const void *buf, size_t len, unsigned int max_nis,
				  struct lnet_ping_decoded *out, struct lnet_ping_entry *nis,
				  unsigned int nis_cap);

/** The kernel's LNET_PING_BUFFER_MAX (api-ni.c): no ping reply buffer is bigger. */
#define LNET_PING_REPLY_MAX 3960U

/**
 * The reply buffer, so the GET's sink_length, the kernel's lnet_ping()
 * posts for @p n_ids NIs (lnet_interfaces_max): 16 bytes and a largest
 * (24-byte) entry per NI, at most LNET_PING_REPLY_MAX (3960 for 200).
 */
LNP_API size_t lnet_ping_reply_bufsize(int n_ids);

/**
 * Read a ping reply of @p len bytes that landed in a @p bufsize buffer as
 * the kernel's lnet_ping() does: the header checks of
 * lnet_ping_info_decode() without its NI count bound, then every entry
 * that came whole. A reply the buffer cut stands when that is @p n_ids
 * entries or more, 0@lo included (all are read, even past @p n_ids);
 * fewer, or a reply short of the size it declares, is -LNET_WIRE_ESHORT.
 * As in the kernel, a whole reply of @p n_ids entries or more that leaves
 * the buffer unfilled is -LNET_WIRE_ESHORT too.
 */
LNP_API int lnet_ping_reply_read(const void *buf, size_t len, size_t bufsize, int n_ids,
				 struct lnet_ping_decoded *out, struct lnet_ping_entry *nis,
				 unsigned int nis_cap);

LNP_END_DECLS

#endif /* LNET_WIRE_H */
