/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The 160-byte selftest message (struct srpc_msg of Lustre 2.17) in host
 * order, and its encoding. Every field is written in the sender's order;
 * a receiver knows a byte-swapped sender by its magic and swaps each field
 * (selftest-facts §2). Decoders take untrusted bytes and never read past
 * the 160 they were given.
 */
#ifndef SFT_WIRE_H
#define SFT_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Every request and reply is exactly this long. */
#define SFT_MSG_SIZE 160u
/** Bytes of the header before the body. */
#define SFT_MSG_HDR_SIZE 24u
#define SFT_MSG_MAGIC 0xeeb0f00du
#define SFT_MSG_VERSION 1u

/** Feature bit: brw length in bytes, with an offset (the default). */
#define SFT_FEAT_BULK_LEN 0x1u
/** Every feature bit a 2.17 node knows. */
#define SFT_FEATS_MASK SFT_FEAT_BULK_LEN

/** Session, group and batch names: a NUL-padded char[32] on the wire. */
#define SFT_NAME_SIZE 32u

/** Ping test magic in the request and in the reply. */
#define SFT_PING_MAGIC 0xbabefaceu

/** "No session" as a sid's nid (LNET_NID_ANY) and stamp. */
#define SFT_SID_NID_NONE UINT64_MAX
#define SFT_SID_STAMP_NONE ((int64_t)-1)

/** Most TEST concurrency a 2.17 node accepts. */
#define SFT_MAX_CONCUR 1024u
/** Most TEST destinations (256 pages of 12-byte ids, 4 KiB pages). */
#define SFT_MAX_NDESTS (256u * (4096u / 12u))
/** Largest brw transfer (LNET_MTU). */
#define SFT_BRW_MAX_LEN (1u << 20)

/** Service ids; a request's match bits are its service id. */
enum sft_service {
	SFT_SVC_DEBUG = 0,
	SFT_SVC_MAKE_SESSION = 1,
	SFT_SVC_REMOVE_SESSION = 2,
	SFT_SVC_BATCH = 3,
	SFT_SVC_TEST = 4,
	SFT_SVC_QUERY_STAT = 5,
	SFT_SVC_JOIN = 6,           /**< defined; test nodes have no handler */
	SFT_SVC_FRAMEWORK_MAX = 10, /**< not a service: framework ids are below */
	SFT_SVC_BRW = 11,
	SFT_SVC_PING = 12,
	SFT_SVC_MAX,
};

/** Message types; a reply is its request's type + 1. */
enum sft_msg_type {
	SFT_MSG_MKSN_REQST = 0,
	SFT_MSG_MKSN_REPLY = 1,
	SFT_MSG_RMSN_REQST = 2,
	SFT_MSG_RMSN_REPLY = 3,
	SFT_MSG_BATCH_REQST = 4,
	SFT_MSG_BATCH_REPLY = 5,
	SFT_MSG_STAT_REQST = 6,
	SFT_MSG_STAT_REPLY = 7,
	SFT_MSG_TEST_REQST = 8,
	SFT_MSG_TEST_REPLY = 9,
	SFT_MSG_DEBUG_REQST = 10,
	SFT_MSG_DEBUG_REPLY = 11,
	SFT_MSG_BRW_REQST = 12,
	SFT_MSG_BRW_REPLY = 13,
	SFT_MSG_PING_REQST = 14,
	SFT_MSG_PING_REPLY = 15,
	SFT_MSG_JOIN_REQST = 16,
	SFT_MSG_JOIN_REPLY = 17,
	SFT_MSG_TYPE_MAX,
};

/** BATCH request operations. */
enum sft_batch_opc {
	SFT_BATCH_RUN = 1,
	SFT_BATCH_STOP = 2,
	SFT_BATCH_QUERY = 3,
};

/** brw direction, seen from the test client. */
enum sft_brw_rw {
	SFT_BRW_READ = 1,
	SFT_BRW_WRITE = 2,
};

/** brw data check patterns. */
enum sft_brw_check {
	SFT_BRW_CHECK_NONE = 1,
	SFT_BRW_CHECK_SIMPLE = 2,
	SFT_BRW_CHECK_FULL = 3,
};

/** Session id: the console's nid4 and its monotonic milliseconds. */
struct sft_sid {
	uint64_t nid;
	int64_t stamp;
};

struct sft_mksn_reqst {
	uint64_t rpyid;
	struct sft_sid sid;
	uint32_t force;
	char name[SFT_NAME_SIZE];
};

struct sft_mksn_reply {
	uint32_t status;
	struct sft_sid sid;
	uint32_t timeout;
	char name[SFT_NAME_SIZE]; /**< the owner's name when status is EBUSY */
};

/** RMSN request; also the layout-alike parts of others. */
struct sft_rmsn_reqst {
	uint64_t rpyid;
	struct sft_sid sid;
};

/** The generic reply: RMSN and TEST replies are only this. */
struct sft_generic_reply {
	uint32_t status;
	struct sft_sid sid;
};

struct sft_debug_reqst {
	uint64_t rpyid;
	struct sft_sid sid;
	uint32_t flags;
};

struct sft_debug_reply {
	uint32_t status;
	struct sft_sid sid;
	uint32_t timeout;
	uint32_t nbatch;
	char name[SFT_NAME_SIZE];
};

struct sft_batch_reqst {
	uint64_t rpyid;
	struct sft_sid sid;
	uint64_t bid;
	uint32_t opc;     /**< enum sft_batch_opc */
	uint32_t testidx; /**< 0: the whole batch, n: its n-th test */
	uint32_t arg;     /**< STOP: force; RUN: timeout */
};

struct sft_batch_reply {
	uint32_t status;
	struct sft_sid sid;
	uint32_t active;
	uint32_t time;
};

struct sft_stat_reqst {
	uint64_t rpyid;
	struct sft_sid sid;
	uint32_t type;
};

/** Framework counters of a STAT reply. */
struct sft_fw_counters {
	uint32_t running_ms;
	uint32_t active_batches;
	uint32_t zombie_sessions;
	uint32_t brw_errors;
	uint32_t ping_errors;
};

/** RPC counters of a STAT reply. */
struct sft_rpc_counters {
	uint32_t errors;
	uint32_t rpcs_sent;
	uint32_t rpcs_rcvd;
	uint32_t rpcs_dropped;
	uint32_t rpcs_expired;
	uint64_t bulk_get;
	uint64_t bulk_put;
};

/** LNet counters of a STAT reply (lnet_counters_common). */
struct sft_lnet_counters {
	uint32_t msgs_alloc;
	uint32_t msgs_max;
	uint32_t errors;
	uint32_t send_count;
	uint32_t recv_count;
	uint32_t route_count;
	uint32_t drop_count;
	uint64_t send_length;
	uint64_t recv_length;
	uint64_t route_length;
	uint64_t drop_length;
};

struct sft_stat_reply {
	uint32_t status;
	struct sft_sid sid;
	struct sft_fw_counters fw;
	struct sft_rpc_counters rpc;
	struct sft_lnet_counters lnet;
};

/**
 * Test parameters of a TEST request: 12 bytes whose meaning depends on the
 * service and the session features (sft_test_params_view()).
 */
union sft_test_params {
	struct {
		uint32_t size;
		uint32_t flags;
	} ping;
	struct {                /**< without SFT_FEAT_BULK_LEN */
		uint32_t opc;   /**< enum sft_brw_rw */
		uint32_t npg;   /**< pages */
		uint32_t flags; /**< enum sft_brw_check */
	} bulk_v0;
	struct { /**< with SFT_FEAT_BULK_LEN */
		uint16_t opc;
		uint16_t flags;
		uint32_t len;
		uint32_t offset;
	} bulk_v1;
};

/** Which member of union sft_test_params a TEST request carries. */
enum sft_test_params_view {
	SFT_TPARAMS_NONE, /**< not a test service: the 12 bytes are not read */
	SFT_TPARAMS_PING,
	SFT_TPARAMS_BULK_V0,
	SFT_TPARAMS_BULK_V1,
};

struct sft_test_reqst {
	uint64_t rpyid;
	uint64_t bulkid; /**< the destination list's bulk (client side), or 0 */
	struct sft_sid sid;
	uint64_t bid;
	uint32_t service; /**< enum sft_service: SFT_SVC_BRW or SFT_SVC_PING */
	uint32_t loop;    /**< client: loop count; server: buffers needed */
	uint32_t concur;
	uint8_t is_client;
	uint8_t stop_onerr;
	uint32_t ndest;
	union sft_test_params params;
};

struct sft_join_reqst {
	uint64_t rpyid;
	struct sft_sid sid;
	char group[SFT_NAME_SIZE];
};

struct sft_join_reply {
	uint32_t status;
	struct sft_sid sid;
	uint32_t timeout;
	char session[SFT_NAME_SIZE];
};

struct sft_ping_reqst {
	uint64_t rpyid;
	uint32_t magic; /**< SFT_PING_MAGIC */
	uint32_t seq;
	uint64_t time_sec;
	uint64_t time_nsec;
};

struct sft_ping_reply {
	uint32_t status;
	uint32_t magic;
	uint32_t seq;
};

struct sft_brw_reqst {
	uint64_t rpyid;
	uint64_t bulkid;
	uint32_t rw; /**< enum sft_brw_rw */
	uint32_t len;
	uint32_t flags; /**< enum sft_brw_check */
};

struct sft_brw_reply {
	uint32_t status;
};

/** One message in host order. */
struct sft_msg {
	uint32_t version;
	uint32_t type; /**< enum sft_msg_type */
	uint32_t reserved0;
	uint32_t reserved1;
	uint32_t ses_feats;
	bool swabbed; /**< decoded from a byte-swapped sender */
	union {
		struct sft_mksn_reqst mksn_reqst;
		struct sft_mksn_reply mksn_reply;
		struct sft_rmsn_reqst rmsn_reqst;
		struct sft_generic_reply rmsn_reply;
		struct sft_debug_reqst debug_reqst;
		struct sft_debug_reply debug_reply;
		struct sft_batch_reqst batch_reqst;
		struct sft_batch_reply batch_reply;
		struct sft_stat_reqst stat_reqst;
		struct sft_stat_reply stat_reply;
		struct sft_test_reqst test_reqst;
		struct sft_generic_reply test_reply;
		struct sft_join_reqst join_reqst;
		struct sft_join_reply join_reply;
		struct sft_ping_reqst ping_reqst;
		struct sft_ping_reply ping_reply;
		struct sft_brw_reqst brw_reqst;
		struct sft_brw_reply brw_reply;
	} body;
};

/**
 * What a decoder or checker found wrong. The first three come from
 * sft_msg_decode() and leave the message unusable (a 2.17 server drops it);
 * the others come from sft_msg_check() on a fully decoded message, so a
 * server can still answer it (sft_server_verdict()).
 */
enum sft_wire_err {
	SFT_WIRE_OK = 0,
	SFT_WIRE_ELEN,       /**< not SFT_MSG_SIZE bytes */
	SFT_WIRE_EMAGIC,     /**< magic in neither byte order */
	SFT_WIRE_ETYPE,      /**< message type unknown */
	SFT_WIRE_EVERSION,   /**< version is not SFT_MSG_VERSION */
	SFT_WIRE_EFEATS,     /**< feature bits outside SFT_FEATS_MASK */
	SFT_WIRE_ENAME,      /**< a name with no NUL in its 32 bytes */
	SFT_WIRE_ESID,       /**< MKSN, STAT or TEST for the "no session" nid */
	SFT_WIRE_EOPC,       /**< BATCH operation unknown */
	SFT_WIRE_ESERVICE,   /**< TEST for a service that is not brw or ping */
	SFT_WIRE_ETESTCOUNT, /**< TEST loop, concurrency or destinations out of range */
	SFT_WIRE_ERW,        /**< brw neither READ nor WRITE */
	SFT_WIRE_ECHECK,     /**< brw check pattern unknown */
	SFT_WIRE_EBULKLEN,   /**< brw length 0, above 1 MiB, or not whole words/pages */
	SFT_WIRE_EBULKOFF,   /**< brw offset not a multiple of 8 */
	SFT_WIRE_EPINGMAGIC, /**< ping magic is not SFT_PING_MAGIC */
	SFT_WIRE_EINVAL,     /**< bad argument from the caller */
	SFT_WIRE_EMAX,
};

/** Text naming what -SFT_WIRE_E* @p rc means. */
const char *sft_wire_strerror(int rc);

/**
 * Which member of union sft_test_params a TEST request of @p service under
 * session features @p feats carries (what the kernel swabs).
 */
enum sft_test_params_view sft_test_params_view(uint32_t service, uint32_t feats);

/**
 * Bytes of the body of @p type on the wire (selftest-facts §2.4-2.5), or 0
 * for an unknown type.
 */
size_t sft_msg_body_size(uint32_t type);

/**
 * Read @p len bytes into @p m (zeroed first). Checks only what makes the
 * bytes unreadable: length, magic, type; the fields are read in the order
 * the magic says and every one is swapped for a swapped sender.
 * @return 0, -SFT_WIRE_ELEN, -SFT_WIRE_EMAGIC or -SFT_WIRE_ETYPE.
 */
int sft_msg_decode(const void *buf, size_t len, struct sft_msg *m);

/**
 * The range checks a 2.17 node applies to the fields of @p m, first failure
 * returned in the kernel's order: version, then those of its type (unknown
 * feature bits of MKSN, DEBUG, BRW and PING requests; the "no session" nid
 * in MKSN, STAT, TEST; BATCH opc; TEST counts, service and, for a brw
 * client, its parameters; brw rw, pattern and length; ping magic), then
 * names. Feature masks of the other requests are compared with the
 * session's by the framework, not here.
 * @return 0 or -SFT_WIRE_E* (never ELEN, EMAGIC, ETYPE).
 */
int sft_msg_check(const struct sft_msg *m);

/**
 * The EINVAL conditions of a TEST request (the kernel's sfw_add_test, one
 * status for all): the "no session" nid, loop, concurrency and destination
 * counts, a service that is not brw or ping.
 * @return 0, -SFT_WIRE_ESID, -SFT_WIRE_ETESTCOUNT or -SFT_WIRE_ESERVICE.
 */
int sft_check_test_counts(const struct sft_test_reqst *r);

/**
 * A brw client's parameters (the kernel's brw_client_init), read as session
 * features @p feats say: offset in its page a multiple of 8, length 8 to
 * 1 MiB in whole words (2.17 takes a length of 0 and then asserts: refused
 * here), a known direction and pattern.
 * @return 0, -SFT_WIRE_EBULKOFF, -SFT_WIRE_EBULKLEN, -SFT_WIRE_ERW, -SFT_WIRE_ECHECK.
 */
int sft_check_test_bulk_params(const union sft_test_params *p, uint32_t feats);

/**
 * Write @p m as SFT_MSG_SIZE bytes in this host's order (bytes after the
 * body are zero). @p m->swabbed is ignored.
 * @return 0, -SFT_WIRE_ELEN if @p len < SFT_MSG_SIZE, -SFT_WIRE_ETYPE.
 */
int sft_msg_encode(const struct sft_msg *m, void *buf, size_t len);

/**
 * As sft_msg_encode() but every field byte-swapped, as a peer of the other
 * endianness sends it (for tests and fuzzing).
 */
int sft_msg_encode_swabbed(const struct sft_msg *m, void *buf, size_t len);

/** A destination of a TEST client (lnet_process_id_packed, 12 bytes). */
struct sft_dest {
	uint64_t nid;
	uint32_t pid;
};

/** Bytes of one destination in the TEST client's bulk. */
#define SFT_DEST_SIZE 12u

/**
 * Read @p n destinations from the TEST bulk @p buf of @p len bytes, swapping
 * each field if @p swabbed (the TEST request's order).
 * @return 0, or -SFT_WIRE_ELEN if @p len < n * SFT_DEST_SIZE.
 */
int sft_dests_decode(const void *buf, size_t len, bool swabbed, struct sft_dest *d, uint32_t n);

/** Write @p n destinations in this host's order. 0 or -SFT_WIRE_ELEN. */
int sft_dests_encode(const struct sft_dest *d, uint32_t n, void *buf, size_t len);

#endif /* SFT_WIRE_H */
