/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnetctl for lnetd-pmd: the kernel lnetctl's command tree over the
 * daemon's telemetry socket. Commands whose capability is not built yet
 * answer with the kernel's error block and "not supported".
 *
 *   lnetctl [--name NAME] <command> <subcommand> [options]
 *   lnetctl [--name NAME]            (interactive prompt)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnetctl.h"
#include "lnp_build_config.h"

#define LNETCTL_MAX_ARGS 64

struct lnetctl_cmd {
	const char *name;
	const char *sub;   /* NULL: the command takes no subcommand */
	lnetctl_fn fn;     /* NULL: not supported yet */
	const char *help;
};

int
lnetctl_need_conn(struct lnetctl_ctx *ctx)
{
	char err[512];

	if (ctx->connected) {
		return 0;
	}
	if (lnetctl_connect(ctx->name, &ctx->conn, err, sizeof(err)) != 0) {
		fprintf(stderr, "lnetctl: %s\n", err);
		return -ENOTCONN;
	}
	ctx->connected = true;
	return 0;
}

static int
lnetctl_no_args(const char *object, int argc)
{
	if (argc > 0) {
		lnetctl_print_error("show", object, -EINVAL, "this command takes no options");
		return -EINVAL;
	}
	return 0;
}

static int
lnetctl_stats_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_no_args("statistics", argc - 1);

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	(void)argv;
	if (rc == 0) {
		rc = lnetctl_need_conn(ctx);
	}
	return rc != 0 ? rc : lnetctl_stats_show(&ctx->conn);
}

/* stats reset: as the kernel's, silent on success. */
static int
lnetctl_stats_reset_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	yaml_document_t doc;
	yaml_node_t *v;
	int rc = lnetctl_no_args("statistics", argc - 1);

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	(void)argv;
	if (rc == 0) {
		rc = lnetctl_need_conn(ctx);
	}
	if (rc == 0) {
		rc = lnetctl_request_status(&ctx->conn, "/lnet/stats_reset", NULL, &doc, &v, "reset",
					    "statistics");
	}
	if (rc == 0) {
		yaml_document_delete(&doc);
	}
	return rc;
}

static int
lnetctl_global_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_no_args("global", argc - 1);

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	(void)argv;
	if (rc == 0) {
		rc = lnetctl_need_conn(ctx);
	}
	return rc != 0 ? rc : lnetctl_global_show(&ctx->conn);
}

int
lnetctl_usage_error(const char *verb, const char *object, const char *usage)
{
	lnetctl_print_error(verb, object, -EINVAL, usage);
	return -EINVAL;
}

/* ping NID[,NID...] [--timeout SECONDS] */
static int
lnetctl_ping_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	const char *nids = NULL;
	int timeout = 1;
	int i;
	int rc;

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
			timeout = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--source") == 0) {
			lnetctl_print_error("manage", "ping", -EOPNOTSUPP,
					    "ping --source: not supported yet");
			return -EOPNOTSUPP;
		} else if (argv[i][0] != '-' && nids == NULL) {
			nids = argv[i];
		} else {
			return lnetctl_usage_error("manage", "ping",
						   "usage: ping NID[,NID...] [--timeout SECONDS]");
		}
	}
	if (nids == NULL || timeout <= 0) {
		return lnetctl_usage_error("manage", "ping",
					   "usage: ping NID[,NID...] [--timeout SECONDS]");
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_ping(&ctx->conn, nids, timeout);
}

/*
 * lnet configure [--all] [--large]: LNet runs for as long as the daemon
 * does, so this only confirms it answers (the kernel's is idempotent too).
 */
static int
lnetctl_lnet_configure_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	yaml_document_t doc;
	char err[256];
	int i;
	int rc;

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--all") != 0 && strcmp(argv[i], "--large") != 0) {
			return lnetctl_usage_error("configure", "lnet",
						   "usage: lnet configure [--all] [--large]");
		}
	}
	rc = lnetctl_need_conn(ctx);
	if (rc == 0) {
		rc = lnetctl_request(&ctx->conn, "/lnet/global_show", NULL, &doc, err, sizeof(err));
		if (rc != 0) {
			lnetctl_print_error("configure", "lnet", rc, err);
			return rc;
		}
		yaml_document_delete(&doc);
	}
	return rc;
}

/* cpt-of-nid NID[,NID...]: "cpt-of-nid:" then "- nid: / cpt:" per NID (§12.11) */
static int
lnetctl_cpt_of_nid_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	struct lnetctl_out o;
	char *save = NULL;
	char *copy;
	char *tok;
	bool open = false;
	int rc;

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	if (argc != 1) {
		return lnetctl_usage_error("cpt-of-nid", "nid", "usage: cpt-of-nid NID[,NID...]");
	}
	rc = lnetctl_need_conn(ctx);
	copy = rc == 0 ? strdup(argv[0]) : NULL;
	if (copy == NULL) {
		return rc != 0 ? rc : -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok != NULL && rc == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		char params[160];
		yaml_document_t doc;
		yaml_node_t *v;

		snprintf(params, sizeof(params), "nid=%s", tok);
		rc = lnetctl_request_status(&ctx->conn, "/lnet/cpt_of_nid", params, &doc, &v,
					    "cpt-of-nid", "nid");
		if (rc != 0) {
			break;
		}
		if (!open) {
			lnetctl_out_begin(&o, 4);
			lnetctl_out_map_begin(&o);
			lnetctl_out_scalar(&o, "cpt-of-nid");
			lnetctl_out_seq_begin(&o);
			open = true;
		}
		lnetctl_out_map_begin(&o);
		lnetctl_out_kv(&o, "nid", tok);
		lnetctl_out_kv(&o, "cpt", lnetctl_scalar(lnetctl_map_get(&doc, v, "cpt")));
		lnetctl_out_map_end(&o);
		yaml_document_delete(&doc);
	}
	if (open) {
		lnetctl_out_seq_end(&o);
		lnetctl_out_map_end(&o);
		lnetctl_out_end(&o);
	}
	free(copy);
	return rc;
}

/* lnet unconfigure: every network but 0@lo goes; the daemon keeps running. */
static int
lnetctl_lnet_unconfigure_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc;

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	(void)argv;
	if (argc != 0) {
		return lnetctl_usage_error("unconfigure", "lnet", "usage: lnet unconfigure");
	}
	rc = lnetctl_need_conn(ctx);
	return rc != 0 ? rc : lnetctl_unconfigure(&ctx->conn);
}

static int
lnetctl_capture_start_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_need_conn(ctx);

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	return rc != 0 ? rc : lnetctl_capture(&ctx->conn, "start", argc, argv);
}

static int
lnetctl_capture_stop_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_need_conn(ctx);

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	return rc != 0 ? rc : lnetctl_capture(&ctx->conn, "stop", argc, argv);
}

static int
lnetctl_capture_show_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	int rc = lnetctl_need_conn(ctx);

	/* argv[0] is the (sub)command word */
	argc--;
	argv++;

	return rc != 0 ? rc : lnetctl_capture(&ctx->conn, "show", argc, argv);
}

/* The kernel lnetctl's tree (lnet-facts §12.1). */
static const struct lnetctl_cmd lnetctl_cmds[] = {
	{ "lnet", "configure", lnetctl_lnet_configure_cmd, "configure lnet [--all] [--large]" },
	{ "lnet", "unconfigure", lnetctl_lnet_unconfigure_cmd,
	  "delete every network but lo (the daemon keeps running)" },
	{ "route", "add", NULL, "add a route" },
	{ "route", "del", NULL, "delete a route" },
	{ "route", "show", NULL, "show routes" },
	{ "net", "add", lnetctl_net_add_cmd,
	  "add a network --net NET (--if IFACE[,...] | --nid NID) | --ip2net RULES ..." },
	{ "net", "del", lnetctl_net_del_cmd, "delete a network --net NET [--if IFACE] | --nid NID" },
	{ "net", "show", lnetctl_net_show_cmd, "show networks [--net NET] [-v [N]]" },
	{ "net", "set", lnetctl_net_set_cmd, "set network parameters" },
	{ "routing", "show", NULL, "show routing information" },
	{ "set", NULL, lnetctl_set_cmd, "set a global tunable: set <tunable> <value>" },
	{ "import", NULL, lnetctl_import_cmd,
	  "import configuration from YAML [--add|--del] [FILE]" },
	{ "export", NULL, lnetctl_export_cmd, "export configuration as YAML [--backup] [FILE]" },
	{ "stats", "show", lnetctl_stats_show_cmd, "show LNet statistics" },
	{ "stats", "reset", lnetctl_stats_reset_cmd, "reset LNet statistics" },
	{ "debug", "recovery", NULL, "show recovery queues" },
	{ "debug", "peer", NULL, "show peer debug information" },
	{ "global", "show", lnetctl_global_show_cmd, "show global settings" },
	{ "peer", "add", lnetctl_peer_add_cmd, "add a peer --prim_nid NID [--nid LIST] [--non_mr]" },
	{ "peer", "del", lnetctl_peer_del_cmd, "delete a peer --prim_nid NID [--nid LIST]" },
	{ "peer", "show", lnetctl_peer_show_cmd, "show peers [--nid NID] [-v [N]]" },
	{ "peer", "list", lnetctl_peer_list_cmd, "list peers" },
	{ "peer", "set", lnetctl_peer_set_cmd, "set peer parameters" },
	{ "ping", NULL, lnetctl_ping_cmd, "ping NIDs: NID[,NID...] [--timeout SECONDS]" },
	{ "discover", NULL, NULL, "discover peers" },
	{ "service-id", NULL, NULL, "calculate the IB Lustre service ID" },
	{ "udsp", "add", NULL, "add a selection policy" },
	{ "udsp", "del", NULL, "delete a selection policy" },
	{ "udsp", "show", NULL, "show selection policies" },
	{ "fault", "drop", NULL, "drop rules" },
	{ "fault", "delay", NULL, "delay rules" },
	{ "setup-mrrouting", NULL, NULL, "set up Linux routing tables" },
	{ "setup-sysctl", NULL, NULL, "set up Linux sysctl parameters for large systems" },
	{ "cpt-of-nid", NULL, lnetctl_cpt_of_nid_cmd, "show the CPT of NIDs: NID[,NID...]" },
	{ "capture", "start", lnetctl_capture_start_cmd,
	  "record tcp traffic to pcap: --file F [--net NET] [--nid NID] [--max-bytes N]" },
	{ "capture", "stop", lnetctl_capture_stop_cmd, "stop recording; print the totals" },
	{ "capture", "show", lnetctl_capture_show_cmd, "the running capture's totals" },
};

#define LNETCTL_NCMDS (sizeof(lnetctl_cmds) / sizeof(lnetctl_cmds[0]))

static void
lnetctl_help(FILE *f)
{
	unsigned int i;

	fprintf(f, "usage: lnetctl [--name NAME] <command> [<subcommand>] [options]\n"
		   "commands:\n");
	for (i = 0; i < LNETCTL_NCMDS; i++) {
		fprintf(f, "  %-10s %-12s %s%s\n", lnetctl_cmds[i].name,
			lnetctl_cmds[i].sub != NULL ? lnetctl_cmds[i].sub : "", lnetctl_cmds[i].help,
			lnetctl_cmds[i].fn == NULL ? " (not supported yet)" : "");
	}
	fprintf(f, "  %-23s the kernel lnetctl followed, and lnet-pmd's version\n"
		   "  %-23s the commands, as the kernel's lnetctl lists them\n",
		"version, --version", "list-commands");
}

/*
 * The kernel's `lnetctl --list-commands`: each top-level command once, in
 * table order, four to a line in columns of 20.
 */
static void
lnetctl_list_commands(void)
{
	unsigned int col = 0;
	unsigned int i;

	for (i = 0; i < LNETCTL_NCMDS; i++) {
		if (i > 0 && strcmp(lnetctl_cmds[i].name, lnetctl_cmds[i - 1].name) == 0) {
			continue;
		}
		printf("%-19s ", lnetctl_cmds[i].name);
		if (++col == 4) {
			printf("\n");
			col = 0;
		}
	}
	if (col != 0) {
		printf("\n");
	}
}

/* The words the kernel's parser answers itself, before any command. */
static bool
lnetctl_parser_word(const char *word, int *rc)
{
	if (strcmp(word, "version") == 0 || strcmp(word, "--version") == 0) {
		/* The lnetctl of Lustre 2.17, as this tool's commands and YAML are. */
		printf("lnetctl 2.17.0 (lnet-pmd %s)\n", LNP_VERSION);
	} else if (strcmp(word, "list-commands") == 0 || strcmp(word, "--list-commands") == 0) {
		lnetctl_list_commands();
	} else {
		return false;
	}
	*rc = 0;
	return true;
}

static const struct lnetctl_cmd *
lnetctl_find(int argc, char **argv, bool *known_command)
{
	unsigned int i;

	*known_command = false;
	for (i = 0; i < LNETCTL_NCMDS; i++) {
		if (strcmp(lnetctl_cmds[i].name, argv[0]) != 0) {
			continue;
		}
		*known_command = true;
		if (lnetctl_cmds[i].sub == NULL ||
		    (argc > 1 && strcmp(lnetctl_cmds[i].sub, argv[1]) == 0)) {
			return &lnetctl_cmds[i];
		}
	}
	return NULL;
}

/* Run one command line; returns the process exit code for it. */
static int
lnetctl_run(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	const struct lnetctl_cmd *cmd;
	char descr[160];
	bool known;
	int skip;

	if (argc == 0) {
		return 0;
	}
	if (strcmp(argv[0], "help") == 0 || strcmp(argv[0], "--help") == 0 ||
	    strcmp(argv[0], "-h") == 0) {
		lnetctl_help(stdout);
		return 0;
	}
	if (lnetctl_parser_word(argv[0], &skip)) {
		return skip;
	}
	cmd = lnetctl_find(argc, argv, &known);
	if (!known) {
		/* The kernel's parser: one line on stderr, and main() returns -1. */
		fprintf(stderr, "lnetctl: '%s' is not a valid command. See 'lnetctl --list-commands'.\n",
			argv[0]);
		return 255;
	}
	if (cmd == NULL) {
		snprintf(descr, sizeof(descr), "%s: %s", argv[0],
			 argc > 1 ? "unknown subcommand" : "missing subcommand");
		lnetctl_print_error(argv[0], argc > 1 ? argv[1] : argv[0], -EINVAL, descr);
		return 1;
	}
	if (cmd->fn == NULL) {
		snprintf(descr, sizeof(descr), "%s%s%s: not supported yet by lnetd-pmd", cmd->name,
			 cmd->sub != NULL ? " " : "", cmd->sub != NULL ? cmd->sub : "");
		lnetctl_print_error(cmd->sub != NULL ? cmd->sub : cmd->name, cmd->name, -EOPNOTSUPP,
				    descr);
		return 1;
	}
	skip = cmd->sub != NULL ? 1 : 0;
	return cmd->fn(ctx, argc - skip, argv + skip); /* the negative errno, as the kernel exits */
}

/* Interactive prompt, as the kernel lnetctl opens without arguments. */
static int
lnetctl_interactive(struct lnetctl_ctx *ctx)
{
	char line[1024];
	int last = 0;

	for (;;) {
		char *argv[LNETCTL_MAX_ARGS];
		char *save = NULL;
		char *tok;
		int argc = 0;

		printf("lnetctl > ");
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) == NULL) {
			printf("\n");
			return last;
		}
		for (tok = strtok_r(line, " \t\n", &save); tok != NULL && argc < LNETCTL_MAX_ARGS;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			argv[argc++] = tok;
		}
		if (argc > 0 && (strcmp(argv[0], "quit") == 0 || strcmp(argv[0], "exit") == 0 ||
				 strcmp(argv[0], "q") == 0)) {
			return last;
		}
		last = lnetctl_run(ctx, argc, argv);
	}
}

int
main(int argc, char **argv)
{
	struct lnetctl_ctx ctx = { .name = getenv("LNETCTL_NAME"), .conn = { .fd = -1 } };
	int first = 1;
	int rc;

	if (ctx.name == NULL) {
		ctx.name = LNETCTL_DEFAULT_NAME;
	}
	if (argc > 2 && strcmp(argv[1], "--name") == 0) {
		ctx.name = argv[2];
		first = 3;
	}
	rc = first >= argc ? lnetctl_interactive(&ctx) :
			     lnetctl_run(&ctx, argc - first, argv + first);
	if (ctx.connected) {
		lnetctl_close(&ctx.conn);
	}
	return rc;
}
