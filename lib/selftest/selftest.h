/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * lnet_selftest for lnet-pmd: the wire layer and the protocol's pure rules
 * (issue 33, first slice). Internal to the tree for now: nothing here is
 * installed or exported from liblnet.so.
 *
 * Layering (each layer only uses the one below it and LNet's public API):
 *
 *  1. wire (this slice, no DPDK, no LNet state): sft_wire.h encodes and
 *     decodes the 160-byte selftest message of Lustre 2.17 field by field in
 *     either byte order, and checks field ranges with one error code per
 *     fault; sft_brw.h lays out and verifies the brw data patterns; this
 *     header holds the rules: service ids and their portals, message type
 *     pairs, match bits and reply ids, the positive errno statuses.
 *  2. RPC engine (lib/selftest_rpc; the framework server is done, the
 *     test services and the client next): on LNet's public API as any
 *     LNet user would. A
 *     server posts 160-byte MDs on lazy portals 51 (framework) and 50 (test
 *     services) matching the service id; it decodes, answers with LNetPut to
 *     portal 52 and the request's rpyid, and runs bulk as LNetGet/LNetPut to
 *     the client's bulkid on 52. A client posts its reply MD (and a passive
 *     bulk MD) on 52 with fresh ids from struct sft_ids before its LNetPut.
 *     It runs on the lcore that owns the MDs, polled, with timers for
 *     rpc_timeout; it counts what the kernel counts (struct sft_rpc_counters).
 *  3. framework and services: the session (sid, features, refcount,
 *     timeout), batches and test instances (sft_fw.h: pure state, done), the brw and ping servers and
 *     clients (concurrency, loops, distribution), filling the replies from
 *     the decoded requests; state machines kept in tables (rt_fsm).
 *  4. console: lst's state (groups, batches, transactions) lives in the
 *     daemon's selftest thread, which owns the engine it sends on
 *     (lib/selftest_rpc/sft_con.h), and is driven over telemetry commands
 *     (/lnet/selftest/...); the `lst` app is a client of that socket, as
 *     lnetctl is.
 *
 * Kernel sources read for facts: lnet/selftest/{rpc.h,rpc.c,framework.c,
 * brw_test.c,ping_test.c} and uapi lnetst.h of v2_17_0; layouts as in
 * selftest-facts.md and the captures in test/unit/selftest/captured_msgs.h.
 */
#ifndef SELFTEST_H
#define SELFTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "sft_brw.h"
#include "sft_wire.h"

/** LNet pid of selftest at both ends (LNET_PID_LUSTRE). */
#define SFT_PID 12345u

/** Request portal of the test services (brw, ping). */
#define SFT_PORTAL_REQUEST 50u
/** Request portal of the framework services (ids below SFT_SVC_FRAMEWORK_MAX). */
#define SFT_PORTAL_FRAMEWORK 51u
/** Portal of replies and bulk, matched by ids from struct sft_ids. */
#define SFT_PORTAL_RDMA 52u

/**
 * Reply statuses: Linux's positive errno numbers, whatever this host's
 * errno.h says, since they travel on the wire.
 */
enum sft_status {
	SFT_STATUS_OK = 0,
	SFT_STATUS_ENOENT = 2, /**< no such test/batch (TEST, BATCH) */
	SFT_STATUS_ESRCH = 3,  /**< no session, or not this session */
	SFT_STATUS_EIO = 5,    /**< bulk transfer failed */
	SFT_STATUS_ENOMEM = 12,
	SFT_STATUS_EBUSY = 16,   /**< node owned by another session, batch running */
	SFT_STATUS_EINVAL = 22,  /**< field out of range */
	SFT_STATUS_EPROTO = 71,  /**< version or feature bits not understood */
	SFT_STATUS_EBADMSG = 74, /**< brw data did not match its pattern */
};

/** What a server does with a request its checks refused. */
enum sft_verdict {
	SFT_VERDICT_REPLY,   /**< answer with the status given */
	SFT_VERDICT_DROP,    /**< no reply; counted in rpcs_dropped */
	SFT_VERDICT_PROCEED, /**< handle it anyway (a name is cut to 31 characters) */
};

/** True for the ids that have a service on a 2.17 test node or console. */
bool sft_service_known(uint32_t svc);

/**
 * The portal a request for @p svc goes to: 51 below SFT_SVC_FRAMEWORK_MAX,
 * 50 otherwise (the kernel's rule, applied to any id).
 */
uint32_t sft_service_portal(uint32_t svc);

/** Match bits of a request for @p svc: the service id itself. */
uint64_t sft_request_match_bits(uint32_t svc);

/**
 * The request type of service @p svc.
 * @return an enum sft_msg_type, or -1 for an id with no service.
 */
int sft_service_request_type(uint32_t svc);

/**
 * The service a request type belongs to.
 * @return an enum sft_service, or -1 if @p type is not a request type.
 */
int sft_request_type_service(uint32_t type);

/** True for the request types (even numbers below SFT_MSG_TYPE_MAX). */
bool sft_msg_type_is_request(uint32_t type);

/**
 * The reply type that answers request type @p type (request + 1).
 * @return the reply type, or -1 if @p type is not a request type.
 */
int sft_reply_type(uint32_t type);

/** True when @p a and @p b are the same session (its console's nid and stamp). */
bool sft_sid_equal(const struct sft_sid *a, const struct sft_sid *b);

/**
 * Start the reply to @p req in @p reply: zeroed, the version and the reply
 * type set (what srpc_send_reply sets; the rest is the service's).
 */
void sft_reply_init(const struct sft_msg *req, struct sft_msg *reply);

/** Short name of a message type ("MKSN_REQST"), "?" if unknown. */
const char *sft_msg_type_name(uint32_t type);

/** Name of a reply status ("EBUSY"); "?" for one the kernel never sends. */
const char *sft_status_name(uint32_t status);

/**
 * How a 2.17 server answers a request whose sft_msg_decode() or
 * sft_msg_check() failed with @p rc: the status it replies with (EPROTO for
 * version and features, EINVAL for fields out of range), or that it drops
 * the request (length, magic, type, a ping's magic, a BATCH opc), or goes
 * on (a name with no NUL). Drops of BATCH come after its session and batch
 * lookups, so the framework applies that verdict in its own order.
 * @param rc -SFT_WIRE_E* from sft_msg_decode() or sft_msg_check().
 * @param status set to the SFT_STATUS_* to reply with (SFT_VERDICT_REPLY).
 */
enum sft_verdict sft_server_verdict(int rc, uint32_t *status);

/**
 * Reply and bulk match bits of one node: a 64-bit counter seeded with the
 * wall-clock seconds at start in the top 16 bits, pre-incremented for each
 * new id, so ids of a restarted node differ from its previous run's.
 */
struct sft_ids {
	uint64_t last; /**< the last id handed out */
};

/** Seed @p ids from @p unix_seconds (only its low 16 bits survive). */
void sft_ids_init(struct sft_ids *ids, uint64_t unix_seconds);

/** A new reply or bulk id (the counter, pre-incremented). */
uint64_t sft_ids_next(struct sft_ids *ids);

#endif /* SELFTEST_H */
