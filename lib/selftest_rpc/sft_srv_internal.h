/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The selftest server's insides, shared by its files: sft_srv.c (objects,
 * events, request buffers, start/poll/stop), sft_srv_bulk.c (bulk
 * transfers and their buffers) and sft_srv_test.c (the brw and ping
 * services). Every MD the server makes carries a struct sft_obj first in
 * its user pointer, so an event finds its object and kind; an object is
 * freed on its MD's last event (unlinked), never before, so LNet never
 * writes into freed memory.
 */
#ifndef SFT_SRV_INTERNAL_H
#define SFT_SRV_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "api.h"
#include "sft_cli.h"
#include "sft_srv.h"

enum sft_obj_kind {
	SFT_OBJ_REQBUF, /* a posted request buffer */
	SFT_OBJ_REPLY,  /* a reply being sent */
	SFT_OBJ_BULK,   /* a bulk transfer of a TEST or brw request */
	SFT_OBJ_CRPC,   /* one of a client RPC's MDs (sft_cli.c) */
};

struct sft_obj {
	enum sft_obj_kind kind;
	LIST_ENTRY(sft_obj) link; /* the server's live objects */
	struct lnet_handle_md mdh;
	bool md_live; /* its MD has not had its last event */
};
LIST_HEAD(sft_obj_list, sft_obj);

struct sft_reqbuf {
	struct sft_obj obj;
	uint32_t svc;
	uint8_t msg[SFT_MSG_SIZE];
};

struct sft_srv;
struct sft_bulk;

/* What a bulk's request does once its transfer ended (status in b->status). */
typedef void (*sft_bulk_done_fn)(struct sft_srv *s, struct sft_bulk *b);

/*
 * One bulk transfer the server makes as the active side (srpc_do_bulk): a
 * GET into @c buf when the server is the sink, a PUT from it when it is the
 * source, at the requester's @c bulkid on portal 52.
 */
struct sft_bulk {
	struct sft_obj obj;
	struct sft_msg req;         /* the request it serves, decoded */
	struct lnet_processid peer; /* who asked */
	struct lnet_nid self;       /* the NID the request came to */
	uint64_t bulkid;
	bool sink;
	int status; /* -EIO until the transfer ends whole */
	bool answered;
	uint32_t len;
	uint8_t *buf;
	bool pooled; /* buf is a brw buffer of the pool */
	sft_bulk_done_fn done;
};

/* The MDs of a client RPC, in the order srpc_send_rpc reads their events. */
enum sft_crpc_role {
	SFT_CRPC_REQ,
	SFT_CRPC_REPLY,
	SFT_CRPC_BULK,
	SFT_CRPC_NMD,
};

struct sft_crpc_md {
	struct sft_obj obj; /* not on the server's list: the RPC's */
	struct sft_crpc *rpc;
	enum sft_crpc_role role;
	int status; /* its last event's; -EINTR when unlinked unused */
};

struct sft_crpc {
	struct sft_crpc_md md[SFT_CRPC_NMD];
	TAILQ_ENTRY(sft_crpc) link; /* the engine's RPCs, in deadline order */
	uint32_t svc;
	struct lnet_processid dest;
	uint64_t rpyid;
	uint64_t bulkid;
	bool has_bulk;
	bool aborted;
	bool remote_error;    /* the reply said an error: the bulk was let go */
	uint64_t deadline_ms; /* 0: none */
	sft_crpc_done_fn done;
	struct sft_crpc_result res;
	uint8_t req_buf[SFT_MSG_SIZE];
	uint8_t reply_buf[SFT_MSG_SIZE];
};
TAILQ_HEAD(sft_crpc_list, sft_crpc);

struct sft_trans;
TAILQ_HEAD(sft_trans_list, sft_trans);

/* A test service's request buffers on portal 50 (the kernel's srpc_service for brw and ping). */
struct sft_tsvc {
	uint32_t wanted; /* what the loaded server tests asked for */
	uint32_t posted; /* buffers made for it */
};

/* Free 1 MiB brw buffers, kept for the next RPC. */
struct sft_bufpool {
	void **free;
	unsigned int n;
	unsigned int cap;
};

struct sft_srv {
	struct sft_srv_opts opts;
	struct sft_fw fw;
	struct lnet_eq *eq;
	struct sft_obj_list objs;
	struct sft_tsvc tsvc[2]; /* brw, ping */
	struct sft_bufpool pool;
	struct sft_ids ids; /* rpyids and bulkids of our RPCs */
	struct sft_crpc_list crpcs;
	struct sft_trans_list transs; /* the console's transactions (sft_trans.c) */
	uint32_t ping_seq;            /* the ping clients' counter (lst_ping_data) */
	bool stopping;
	struct sft_rpc_counters rpc;
	struct sft_srv_stats stats;
};

static inline uint64_t
sft_srv_now(const struct sft_srv *s)
{
	return s->opts.now_ms(s->opts.clock_ctx);
}

/* The rpyid every request body starts with. */
static inline uint64_t
sft_req_rpyid(const struct sft_msg *req)
{
	return req->body.rmsn_reqst.rpyid;
}

/* sft_srv.c */
void sft_srv_obj_live(struct sft_srv *s, struct sft_obj *o, enum sft_obj_kind kind);
void sft_srv_obj_free(struct sft_obj *o);
int sft_srv_add_buffer(struct sft_srv *s, uint32_t svc);
void sft_srv_send_reply(struct sft_srv *s, const struct sft_msg *reply,
			const struct lnet_processid *peer, const struct lnet_nid *self,
			uint64_t rpyid);

/* sft_srv_bulk.c */
/* Start @p b (its fields set, buf and len included); failures end it through done. */
void sft_srv_bulk_start(struct sft_srv *s, struct sft_bulk *b);
void sft_srv_bulk_event(struct sft_srv *s, struct sft_bulk *b, const struct lnet_event *ev);
/* Give @p b's memory back (its buffer to the pool). */
void sft_srv_bulk_free(struct sft_srv *s, struct sft_bulk *b);
void *sft_bufpool_get(struct sft_bufpool *p);
void sft_bufpool_put(struct sft_bufpool *p, void *buf);
void sft_bufpool_fini(struct sft_bufpool *p);

/* sft_cli.c */
void sft_crpc_event(struct sft_srv *s, struct sft_crpc_md *md, const struct lnet_event *ev);
/* Abort the RPCs whose deadline is past (rpcs_expired). */
void sft_crpc_expire(struct sft_srv *s, uint64_t now_ms);
/* The earliest deadline of an RPC not aborted yet; 0: none. */
uint64_t sft_crpc_next_deadline(const struct sft_srv *s);
void sft_crpc_abort_all(struct sft_srv *s, int status);

/* sft_trans.c */
void sft_trans_expire(struct sft_srv *s, uint64_t now_ms);
uint64_t sft_trans_next_deadline(const struct sft_srv *s);

/* sft_cli_test.c: the test clients (fw ops test_start, test_abort) */
void sft_cli_test_start(void *ctx, struct sft_fw_test *t);
void sft_cli_test_abort(void *ctx, struct sft_fw_test *t);
/* A client test goes: what the engine kept for it. */
void sft_cli_test_gone(struct sft_srv *s, struct sft_fw_test *t);

/* sft_srv_test.c */
struct sft_tsvc *sft_srv_tsvc(struct sft_srv *s, uint32_t svc);
int sft_srv_test_load(void *ctx, struct sft_fw_test *t);
void sft_srv_test_gone(void *ctx, struct sft_fw_test *t);
/* A request for a test service (brw, ping): answered, or a bulk started, or dropped. */
void sft_srv_test_request(struct sft_srv *s, uint32_t svc, const struct sft_msg *req,
			  const struct lnet_event *ev);
/* After a buffer of @p svc was used: false if it is surplus (not to be reposted). */
bool sft_srv_tsvc_keep(struct sft_srv *s, uint32_t svc);

#endif /* SFT_SRV_INTERNAL_H */
