/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Public LNet types with the names and semantics of current Lustre's
 * lnet-types.h: memory descriptors, handles, events, match/insert options.
 */
#ifndef LNET_TYPES_H
#define LNET_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "cfs_nid.h"
#include "lnp_api.h"

LNP_BEGIN_DECLS

/** Number of portals. */
#define LNET_MAX_PORTALS 64

/** Largest payload of one message (1 MiB). */
#define LNET_MAX_MSG_SIZE (1U << 20)

/** Fragments per memory descriptor. */
#define LNET_MAX_MD_FRAGS 256

/** Handle of a memory descriptor: an opaque cookie. */
struct lnet_handle_md {
	uint64_t cookie; /**< LNET_WIRE_HANDLE_COOKIE_NONE when invalid */
};

/** Invalidates a handle. */
#define LNetInvalidateMDHandle(h) ((h)->cookie = UINT64_MAX)
/** True for an invalid handle. */
#define LNetMDHandleIsInvalid(h) ((h).cookie == UINT64_MAX)

/** MD option bits (struct lnet_md.umd_options). */
#define LNET_MD_OP_PUT (1U << 0)             /**< accept PUTs */
#define LNET_MD_OP_GET (1U << 1)             /**< accept GETs */
#define LNET_MD_MANAGE_REMOTE (1U << 2)      /**< initiator chooses the offset */
#define LNET_MD_TRUNCATE (1U << 4)           /**< accept and truncate oversize messages */
#define LNET_MD_ACK_DISABLE (1U << 5)        /**< never send ACKs for PUTs into this MD */
#define LNET_MD_MAX_SIZE (1U << 7)           /**< max_size bounds each message (several per MD) */
#define LNET_MD_KIOV (1U << 8)               /**< start is a struct iovec array of length frags */
#define LNET_MD_BULK_HANDLE (1U << 9)        /**< bulk_handle is valid */
#define LNET_MD_TRACK_RESPONSE (1U << 10)    /**< force response tracking */
#define LNET_MD_NO_TRACK_RESPONSE (1U << 11) /**< disable response tracking */

/** Infinite threshold. */
#define LNET_MD_THRESH_INF (-1)

/** Event types (numbering of current Lustre). */
enum lnet_event_kind {
	LNET_EVENT_GET = 1, /**< a GET matched an MD here (target side) */
	LNET_EVENT_PUT,     /**< a PUT was received into an MD here */
	LNET_EVENT_REPLY,   /**< the REPLY to our GET arrived */
	LNET_EVENT_ACK,     /**< the ACK to our PUT arrived */
	LNET_EVENT_SEND,    /**< our PUT/GET left (or failed) */
	LNET_EVENT_UNLINK,  /**< the MD was unlinked with nothing in flight */
};

/** Health status of a completed message (lnet-facts §8.2). */
enum lnet_msg_hstatus {
	LNET_MSG_STATUS_OK = 0,
	LNET_MSG_STATUS_LOCAL_INTERRUPT,
	LNET_MSG_STATUS_LOCAL_DROPPED,
	LNET_MSG_STATUS_LOCAL_ABORTED,
	LNET_MSG_STATUS_LOCAL_NO_ROUTE,
	LNET_MSG_STATUS_LOCAL_ERROR,
	LNET_MSG_STATUS_LOCAL_TIMEOUT,
	LNET_MSG_STATUS_REMOTE_ERROR,
	LNET_MSG_STATUS_REMOTE_DROPPED,
	LNET_MSG_STATUS_REMOTE_TIMEOUT,
	LNET_MSG_STATUS_NETWORK_TIMEOUT,
	LNET_MSG_STATUS_END,
};

/** Whether LNetPut() asks for an ACK. */
enum lnet_ack_req {
	LNET_ACK_REQ = 0,   /**< request an ACK */
	LNET_NOACK_REQ = 1, /**< no ACK */
};

/** Whether an ME/MD is unlinked automatically when exhausted. */
enum lnet_unlink {
	LNET_RETAIN = 0, /**< keep it */
	LNET_UNLINK = 1, /**< unlink when threshold reaches 0 or space runs out */
};

/** Where LNetMEAttach() inserts an ME in its portal's match list. */
enum lnet_ins_pos {
	LNET_INS_BEFORE = 0, /**< at the head */
	LNET_INS_AFTER = 1,  /**< at the tail */
	LNET_INS_LOCAL = 2,  /**< at the tail of the caller's CPT (wildcard portals) */
};

struct lnet_event;
struct lnet_eq;

/** Event handler: runs on the data lcore that owns the MD. Must not block. */
typedef void (*lnet_handler_t)(struct lnet_event *event);

/** A memory descriptor, as given to LNetMDAttach()/LNetMDBind(). */
struct lnet_md {
	void *umd_start;            /**< buffer, or struct iovec[] with LNET_MD_KIOV */
	unsigned int umd_length;    /**< bytes, or number of fragments with LNET_MD_KIOV */
	int umd_threshold;          /**< operations before inactive; LNET_MD_THRESH_INF */
	int umd_max_size;           /**< with LNET_MD_MAX_SIZE: bytes per message */
	unsigned int umd_options;   /**< LNET_MD_* bits */
	void *umd_user_ptr;         /**< returned in events */
	lnet_handler_t umd_handler; /**< event callback on the owning lcore, or NULL */
	struct lnet_handle_md umd_bulk_handle; /**< with LNET_MD_BULK_HANDLE */
	/** lnet-pmd extension: events are also queued here for LNetEQPoll(); NULL = none. */
	struct lnet_eq *umd_eq_handle;
};

/** An event delivered to an MD's handler or event queue. */
struct lnet_event {
	struct lnet_processid target;    /**< the target of the operation */
	struct lnet_processid initiator; /**< the initiator (primary NID of the peer) */
	struct lnet_processid source;    /**< the NID the message actually came from */
	struct lnet_nid sender;          /**< the NID of the last hop */
	enum lnet_event_kind type;       /**< event type */
	unsigned int pt_index;           /**< portal */
	uint64_t match_bits;             /**< match bits of the message */
	unsigned int rlength;            /**< length requested by the initiator */
	unsigned int mlength;            /**< length actually moved */
	struct lnet_handle_md md_handle; /**< the MD */
	void *md_start;                  /**< the MD's start */
	void *md_user_ptr;               /**< the MD's user_ptr */
	unsigned int md_options;         /**< the MD's options */
	uint64_t hdr_data;               /**< PUT header data */
	enum lnet_msg_hstatus mhealth;   /**< health status */
	int status;                      /**< 0 or -errno */
	int unlinked;                    /**< 1 when this is the MD's last event */
	unsigned int offset;             /**< offset in the MD of the data */
	uint64_t sequence;               /**< per-node event sequence */
};

/** Counters common to every node (lnet_counters_common, lnet-facts §2.5 + health). */
struct lnet_counters {
	uint32_t msgs_alloc;             /**< messages allocated now */
	uint32_t msgs_max;               /**< high-water mark of msgs_alloc */
	uint32_t rst_alloc;              /**< response trackers allocated */
	uint32_t errors;                 /**< errors */
	uint32_t send_count;             /**< messages sent */
	uint32_t recv_count;             /**< messages received */
	uint32_t route_count;            /**< messages forwarded */
	uint32_t drop_count;             /**< messages dropped */
	uint64_t send_length;            /**< payload bytes sent */
	uint64_t recv_length;            /**< payload bytes received */
	uint64_t route_length;           /**< payload bytes forwarded */
	uint64_t drop_length;            /**< payload bytes dropped */
	uint32_t resend_count;           /**< resends */
	uint32_t response_timeout_count; /**< responses that timed out */
	uint32_t local_interrupt_count;  /**< health: local interrupt */
	uint32_t local_dropped_count;    /**< health: local dropped */
	uint32_t local_aborted_count;    /**< health: local aborted */
	uint32_t local_no_route_count;   /**< health: no route */
	uint32_t local_timeout_count;    /**< health: local timeout */
	uint32_t local_error_count;      /**< health: local error */
	uint32_t remote_dropped_count;   /**< health: remote dropped */
	uint32_t remote_error_count;     /**< health: remote error */
	uint32_t remote_timeout_count;   /**< health: remote timeout */
	uint32_t network_timeout_count;  /**< health: network timeout */
	uint32_t failed_resends;         /**< resends that failed */
	uint32_t successful_resends;     /**< resends that succeeded */
};

LNP_END_DECLS

#endif /* LNET_TYPES_H */
