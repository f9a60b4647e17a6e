/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LNETCTL_H
#define LNETCTL_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

#include "lnetcfg.h"
#include "nidstr.h"

#define LNETCTL_DEFAULT_NAME "lnetd"

/* A connection to one lnetd-pmd instance's telemetry socket. */
struct lnetctl_conn {
	int fd; /* -1 after a reply did not come in time: the next request reconnects */
	char path[256];
	long reply_ms; /* how long the next request waits for its reply */
};

/*
 * How long a request waits for the daemon's reply unless the command says
 * (LNETCTL_REPLY_TIMEOUT in seconds overrides it): a daemon that does not
 * answer within it is stuck, and lnetctl gives up rather than hang.
 */
#define LNETCTL_REPLY_MS_DEFAULT 60000L
/*
 * A ping or discover with --timeout N waits N s and this much more: the
 * daemon answers after N s what the LND says of the message (the kernel's
 * lnet_ping() waits for its GET's end after the timeout, as ours does: a
 * neighbour that never answered ARP is -113 after about 3 s).
 */
#define LNETCTL_REPLY_GRACE_MS 5000L

/*
 * One run of lnetctl: which daemon, and the connection opened on the
 * first command that needs it.
 */
struct lnetctl_ctx {
	const char *name;
	struct lnetctl_conn conn;
	bool connected;
};

/*
 * A command's entry point, called as the kernel calls its jt_* functions:
 * argv[0] is the subcommand word ("add" of "net add"), or the command word
 * for a command without subcommands, so getopt_long() can run on argv as
 * is. Returns 0 or a negative errno; lnetctl exits with it as the kernel's
 * does.
 */
typedef int (*lnetctl_fn)(struct lnetctl_ctx *ctx, int argc, char **argv);

/*
 * Before a subcommand's getopt_long: the kernel's check_cmd() turns
 * getopt's own complaints off and leaves them off when the command has
 * more than two words (argv[0] and one); with fewer, getopt complains.
 */
static inline void
lnetctl_check_cmd_opterr(int argc)
{
	optind = 0;
	opterr = argc > 2 ? 0 : 1;
}

/* Connect to the daemon once per run; prints the error itself. */
int lnetctl_need_conn(struct lnetctl_ctx *ctx);

/* lnetctl_client.c */
int lnetctl_connect(const char *name, struct lnetctl_conn *c, char *err, size_t errlen);
void lnetctl_close(struct lnetctl_conn *c);
/* Send "/cmd[,params]"; parse the JSON reply's value into @p doc (root = value). */
int lnetctl_request(struct lnetctl_conn *c, const char *cmd, const char *params,
		    yaml_document_t *doc, char *err, size_t errlen);

/*
 * A request whose reply is {"status": N[, "descr": ...]}: N with the node's
 * words in @p descr, or the connection's error and its words.
 */
int lnetctl_call(struct lnetctl_conn *c, const char *cmd, const char *params, char *descr,
		 size_t len);
int lnetctl_request_status(struct lnetctl_conn *c, const char *cmd, const char *params,
			   yaml_document_t *doc, yaml_node_t **value, const char *verb,
			   const char *object);

/* lnetctl_yaml.c: small helpers over libyaml documents and the emitter. */
yaml_node_t *lnetctl_map_get(yaml_document_t *doc, yaml_node_t *map, const char *key);
const char *lnetctl_scalar(yaml_node_t *n);
struct lnetctl_out {
	yaml_emitter_t em;
	bool failed;
};
void lnetctl_out_begin(struct lnetctl_out *o, int indent);
void lnetctl_out_end(struct lnetctl_out *o);
void lnetctl_out_map_begin(struct lnetctl_out *o);
void lnetctl_out_map_end(struct lnetctl_out *o);
void lnetctl_out_seq_begin(struct lnetctl_out *o);
void lnetctl_out_seq_end(struct lnetctl_out *o);
void lnetctl_out_scalar(struct lnetctl_out *o, const char *s);
void lnetctl_out_quoted(struct lnetctl_out *o, const char *s);
/* Plain when it can be, else quoted after libyaml's "!" tag (the kernel's ping/discover descr). */
void lnetctl_out_tagged(struct lnetctl_out *o, const char *s);
void lnetctl_out_kv(struct lnetctl_out *o, const char *key, const char *value);
/*
 * The kernel's error block on stderr, as cYAML prints it:
 * "<verb>:\n    - <object>:\n          errno: N\n          descr: \"...\"".
 * Errors of one run under the same verb share one block (one document).
 */
void lnetctl_print_error(const char *verb, const char *object, int err, const char *descr);
/* The same with descr printed as is (the kernel's texts that have no quotes). */
void lnetctl_print_error_raw(const char *verb, const char *object, int err, const char *descr);
/*
 * The error block of the kernel's netlink-based commands (ping, discover,
 * cpt-of-nid): libyaml's layout, "---" to "...", descr double-quoted.
 */
void lnetctl_print_nl_error(const char *verb, const char *object, int err, const char *descr);
/* A new command (at the prompt): its errors start their own block. */
void lnetctl_error_reset(void);

/* lnetctl_show.c */
int lnetctl_net_show(struct lnetctl_conn *c, const char *net, int detail);
int lnetctl_stats_show(struct lnetctl_conn *c);
int lnetctl_global_show(struct lnetctl_conn *c);
/* global show as export prints it: the kernel's keys only. */
int lnetctl_global_export(struct lnetctl_conn *c);

/* lnetctl_peer.c */
int lnetctl_peer_change(struct lnetctl_conn *c, bool add, const char *prim, const char *nidlist,
			bool non_mr);
int lnetctl_peer_show(struct lnetctl_conn *c, const char *nid, int detail);

/* lnetctl_nidrange.c: cpt-of-nid's words, each one plain NID (the kernel's "invalid NID"). */
int lnetctl_nid_args(int argc, char **argv, char (**nids)[LNET_NIDSTR_SIZE], unsigned int *n,
		     const char **why);

/* NIDs as 2.17's lustre_lnet_parse_nid_range() unrolls them, as text, in order. */
struct lnetctl_nidrange {
	char **nid;
	unsigned int n;
	unsigned int max;
};

/*
 * Parse one NID list argument (NIDs and bracketed ranges separated by ','),
 * appending to @p out (zeroed first by the caller for the first word).
 * @return 0, or the negative errno 2.17's parser gives with *@p msg its
 * text ("\"Unable to parse nidlist: ...\""); @p out is freed on error.
 */
int lnetctl_nidrange_add(const char *arg, struct lnetctl_nidrange *out, const char **msg);
/* Every word of a command line through lnetctl_nidrange_add(). */
int lnetctl_nidrange_args(int argc, char **argv, struct lnetctl_nidrange *out, const char **msg);
void lnetctl_nidrange_free(struct lnetctl_nidrange *l);
/* lnetctl_main.c: "<cmd> <sub>: <help>" for one subcommand, or every one when @p sub is NULL. */
void lnetctl_print_cmd_help(const char *cmd, const char *sub);

/* lnetctl_net.c: argv[0] = "add" / "del" */
int lnetctl_ni_request(struct lnetctl_conn *c, const struct lnetcfg_ni *ni, bool add);
int lnetctl_ni_unconfigure(struct lnetctl_conn *c, const struct lnetcfg_ni *ni);
int lnetctl_ni_request_as(struct lnetctl_conn *c, const struct lnetcfg_ni *ni, bool add,
			  const char *verb, const char *object);
/* One NI of an import; a refusal prints the kernel's two netlink blocks (net, import). */
int lnetctl_import_ni(struct lnetctl_conn *c, const struct lnetcfg_ni *ni, bool add);
/* The kernel's error block with errno -EINVAL; returns -EINVAL. */
int lnetctl_usage_error(const char *verb, const char *object, const char *usage);

/* lnetctl_capture.c: capture start|stop|show, argv[0] = that word */
int lnetctl_capture(struct lnetctl_conn *c, int argc, char **argv);

/* lnetctl_config.c */
int lnetctl_export(struct lnetctl_conn *c, bool backup);
int lnetctl_import(struct lnetctl_conn *c, const char *file, bool del, bool exec);
/* Delete every NI but 0@lo. */
int lnetctl_unconfigure(struct lnetctl_conn *c);

/* Command entry points (lnetctl_fn), by the file of their concern. */
int lnetctl_peer_add_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_peer_del_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_peer_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_peer_list_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_peer_set_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_net_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_net_add_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_net_del_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_net_set_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_set_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_export_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_import_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_ping_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_discover_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_stats_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_stats_reset_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_global_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_lnet_configure_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_lnet_unconfigure_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_cpt_of_nid_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_debug_nidlist_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_debug_peer_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_debug_recovery_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_not_applicable_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_capture_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
/* lnetctl_fault.c: fault drop|delay <verb>, argv[0] = the verb */
int lnetctl_fault_drop_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_fault_delay_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);

/* lnetctl_udsp.c: udsp add|del|show, argv[0] = that word */
int lnetctl_udsp_add_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_udsp_del_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_udsp_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
/*
 * One rule to the daemon (NULL: no such descriptor; @p priority < 0: the
 * "pref" action; @p idx < 0: appended), its refusal as the kernel's block.
 */
int lnetctl_udsp_add(struct lnetctl_conn *c, const char *src, const char *dst, const char *rte,
		     long priority, long idx);
/* The same for import: nothing printed (2.17's import prints none of its refusals). */
int lnetctl_udsp_import_add(struct lnetctl_conn *c, const char *src, const char *dst,
			    const char *rte, long priority, long idx);
/* Delete the rule at @p idx, or every rule (@p idx < 0). */
int lnetctl_udsp_del(struct lnetctl_conn *c, long idx);
/* udsp show's YAML on stdout: every rule (@p idx < 0) or one; nothing when none. */
int lnetctl_udsp_show(struct lnetctl_conn *c, long idx);
/* "udsp info:" of a local or peer NI entry (-v 4), from its udsp_* keys. */
void lnetctl_out_udsp_info(struct lnetctl_out *o, yaml_document_t *doc, yaml_node_t *ni);

/* lnetctl_route.c: route add|del|show, routing show, argv[0] = that word */
int lnetctl_route_add_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_route_del_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_route_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
int lnetctl_routing_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv);
/*
 * One route to the daemon (import): @p hop -1 for none, @p sensitivity 0
 * for none; a refusal is the kernel's netlink block under @p verb and
 * "import", and -EINVAL.
 */
int lnetctl_route_add(struct lnetctl_conn *c, const char *net, const char *gw, long hop, long prio,
		      long sensitivity, const char *verb);
int lnetctl_route_del(struct lnetctl_conn *c, const char *net, const char *gw, const char *verb);
/* export's route: every route, as show -v prints them (--backup: without state and type). */
int lnetctl_route_export(struct lnetctl_conn *c, bool backup);
/* routing show's YAML (--backup: export's "routing: enable: N"); nothing when routing never ran. */
int lnetctl_routing_show(struct lnetctl_conn *c, bool backup);
/* set routing 0|1, with the kernel's error block. */
int lnetctl_routing_set(struct lnetctl_conn *c, bool enable);
/* set <pool>_buffers N ("tiny", "small", "large"), with the kernel library's checks and block. */
int lnetctl_buffers_set(struct lnetctl_conn *c, const char *pool, int value);

/* lnetctl_net.c: net set's and peer set's options (the kernel's set_value_helper). */
#define LNETCTL_SET_VALUE_SHORTOPTS "ai:l:m:n:s:t:"
extern const struct option lnetctl_set_value_opts[];

#endif /* LNETCTL_H */
