/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The console's insides, shared by sft_con.c (objects, local commands) and
 * sft_con_job.c (commands that send RPCs, the pinger). A node is counted
 * once per list that holds it (groups, a batch's clients or servers), per
 * job that sends to it and per ping in flight, as the kernel's nd_ref is;
 * it goes with its last reference.
 */
#ifndef SFT_CON_INTERNAL_H
#define SFT_CON_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "sft_con.h"
#include "sft_srv_internal.h"

struct sft_con;

struct sft_con_node {
	struct sft_node n;              /* first: transactions take a struct sft_node * */
	TAILQ_ENTRY(sft_con_node) link; /* the session's nodes */
	struct sft_con *con;            /* NULL once the console went */
	uint32_t ref;
	uint32_t timeout_s;    /* the node's session timeout, from its MKSN reply */
	struct sft_crpc *ping; /* the pinger's DEBUG in flight */
};
TAILQ_HEAD(sft_con_node_head, sft_con_node);

/* An ordered list of nodes, each referenced once. */
struct sft_con_list {
	struct sft_con_node **v;
	uint32_t n;
	uint32_t cap;
};

struct sft_con_group {
	TAILQ_ENTRY(sft_con_group) link;
	char name[SFT_NAME_SIZE];
	struct sft_con_list nodes;
	uint32_t ref; /* tests that name it: it cannot change meanwhile */
};

struct sft_con_test {
	TAILQ_ENTRY(sft_con_test) link;
	uint32_t idx; /* 1, 2, ... in its batch */
	struct sft_con_test_args args;
	struct sft_con_group *src, *dst;
	uint32_t cliidx; /* the next client's place, for its destinations */
};

struct sft_con_batch {
	TAILQ_ENTRY(sft_con_batch) link;
	char name[SFT_NAME_SIZE];
	uint64_t id;
	uint32_t state; /* SFT_CON_BATCH_* */
	uint32_t ntest;
	TAILQ_HEAD(, sft_con_test) tests;
	struct sft_con_list cli, srv;
	uint32_t arg; /* RUN's timeout or STOP's force, as the last command set it */
};

struct sft_con_job;

struct sft_con {
	struct sft_srv *srv;
	/* the session */
	bool active;
	bool expired; /* idle too long: nodes were sent RMSN; ended at the next request */
	struct sft_sid sid;
	char name[SFT_NAME_SIZE];
	int32_t key;
	uint32_t feats;
	bool feats_updated; /* a node's MKSN reply set the features */
	uint32_t timeout_s;
	bool force;
	uint64_t laststamp_ms; /* the last request's time */
	uint64_t next_ping_ms;
	uint64_t id_cookie; /* batch ids */
	struct sft_con_node_head nodes;
	uint32_t nnodes;
	TAILQ_HEAD(, sft_con_group) groups;
	TAILQ_HEAD(, sft_con_batch) batches;
	struct sft_con_job *job; /* the request running */
	bool destroyed;          /* freed by the job when it ends */
};

/* sft_con.c */
struct sft_con_node *sft_con_node_find(struct sft_con *c, const struct lnet_processid *id,
				       bool create);
void sft_con_node_put(struct sft_con_node *nd);
bool sft_con_list_has(const struct sft_con_list *l, const struct sft_con_node *nd);
int sft_con_list_add(struct sft_con_list *l, struct sft_con_node *nd);
void sft_con_list_del(struct sft_con_list *l, uint32_t i);
void sft_con_list_clear(struct sft_con_list *l);
struct sft_con_group *sft_con_group_find(struct sft_con *c, const char *name);
void sft_con_group_free(struct sft_con *c, struct sft_con_group *g);
struct sft_con_batch *sft_con_batch_find(struct sft_con *c, const char *name);
struct sft_con_test *sft_con_test_find(struct sft_con_batch *b, uint32_t idx);
int sft_con_batch_add(struct sft_con *c, const char *name);
int sft_con_session_make(struct sft_con *c, const struct sft_con_req *rq);
void sft_con_session_clear(struct sft_con *c);

/* sft_con_job.c */
int sft_con_job_start(struct sft_con *c, const struct sft_con_req *rq, sft_con_done_fn done,
		      void *arg);

#endif /* SFT_CON_INTERNAL_H */
