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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lnetctl.h"
#include "lnp_build_config.h"

#define LNETCTL_MAX_ARGS 512 /* the kernel parser's MAXARGS */

struct lnetctl_cmd {
	const char *name;
	const char *sub;
	lnetctl_fn fn; /* NULL: not supported yet (under set: the command's fn runs) */
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

/*
 * A subcommand that is a level of its own, as the kernel's nested parsers
 * (fault drop|delay <verb>): lnetctl_run_sub() runs that level, whose
 * entries are named by this subcommand's word. Never called.
 */
static int
lnetctl_sublevel_cmd(struct lnetctl_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	return -EINVAL;
}

/*
 * Top-level commands, in the kernel's order; leaf: no subcommand word.
 * A command with subcommands and an fn (set) is one function for all of
 * them: the dispatcher checks the subcommand word and its help as the
 * kernel's parser does, then calls fn with the whole line (argv[0] "set").
 */
struct lnetctl_top {
	const char *name;
	bool leaf;
	lnetctl_fn fn; /* NULL: not supported yet, or one function per subcommand */
	const char *help;
};

static const struct lnetctl_top lnetctl_tops[] = {
	{ "lnet", false, NULL, "lnet {configure | unconfigure} [--all|--large]" },
	{ "route", false, NULL, "route {add | del | show | help}" },
	{ "net", false, NULL, "net {add | del | show | set | help}" },
	{ "routing", false, NULL, "routing {show | help}" },
	{ "set", false, lnetctl_set_cmd,
	  "set {tiny_buffers | small_buffers | large_buffers"
	  " | routing | numa_range | max_interfaces"
	  " | discovery | drop_asym_route | retry_count"
	  " | transaction_timeout | health_sensitivity"
	  " | recovery_interval | router_sensitivity"
	  " | response_tracking | recovery_limit}" },
	{ "import", true, lnetctl_import_cmd, "import FILE.yaml" },
	{ "export", true, lnetctl_export_cmd, "export FILE.yaml" },
	{ "stats", false, NULL, "stats {show | help}" },
	{ "debug", false, NULL, "debug {recovery {local | peer} | peer}" },
	{ "global", false, NULL, "global {show | help}" },
	{ "peer", false, NULL, "peer {add | del | show | list | set | help}" },
	{ "ping", true, lnetctl_ping_cmd, "ping nid,[nid,...]" },
	{ "discover", true, lnetctl_discover_cmd, "discover nid[,nid,...]" },
	{ "service-id", true, lnetctl_not_applicable_cmd, "Calculate IB Lustre service ID\n" },
	{ "udsp", false, NULL, "udsp {add | del | help}" },
	{ "fault", false, NULL, "{drop | delay | help}" },
	{ "setup-mrrouting", true, lnetctl_not_applicable_cmd, "setup linux routing tables\n" },
	{ "setup-sysctl", true, lnetctl_not_applicable_cmd,
	  "setup linux sysctl parameter for large systems\n" },
	{ "cpt-of-nid", true, lnetctl_cpt_of_nid_cmd,
	  "Calculate the CPTs associated with NIDs\n"
	  " usage:\n\tlnetctl cpt-of-nid nid[ nid ...]\n" },
	/* ours: 2.17's lnetctl has no capture */
	{ "capture", false, NULL, "capture {start | stop | show} (lnetd-pmd only)" },
};

#define LNETCTL_NTOPS (sizeof(lnetctl_tops) / sizeof(lnetctl_tops[0]))

/*
 * Subcommands, grouped by command in the kernel's order; each help is
 * 2.17's text of that command (lnetctl.c's command tables) byte for byte,
 * options lnetd-pmd does not do yet included: they fail when used.
 */
static const struct lnetctl_cmd lnetctl_cmds[] = {
	{ "lnet", "configure", lnetctl_lnet_configure_cmd,
	  "configure lnet\n"
	  "\t--all: load NI configuration from module parameters\n"
	  "\t--large: start LNet with large NIDs\n" },
	{ "lnet", "unconfigure", lnetctl_lnet_unconfigure_cmd, "unconfigure lnet\n" },
	/* --health_sensitivity is in the kernel's help, not in its getopt: it prints this help */
	{ "route", "add", lnetctl_route_add_cmd,
	  "add a route\n"
	  "\t--net: net name (e.g. tcp0)\n"
	  "\t--gateway: gateway nid (e.g. 10.1.1.2@tcp)\n"
	  "\t--hop|hop-count: number to final destination (1 <= hops <= 255)\n"
	  "\t--priority: priority of route (0 - highest prio\n"
	  "\t--health_sensitivity: gateway health sensitivity (>= 1)\n" },
	{ "route", "del", lnetctl_route_del_cmd,
	  "delete a route\n"
	  "\t--net: net name (e.g. tcp0)\n"
	  "\t--gateway: gateway nid (e.g. 10.1.1.2@tcp)\n" },
	{ "route", "show", lnetctl_route_show_cmd,
	  "show routes\n"
	  "\t--net: net name (e.g. tcp0) to filter on\n"
	  "\t--gateway: gateway nid (e.g. 10.1.1.2@tcp) to filter on\n"
	  "\t--hop|hop-count: number to final destination (1 <= hops <= 255) to filter on\n"
	  "\t--priority: priority of route (0 - highest prio to filter on\n"
	  "\t--verbose: display detailed output per route\n" },
	{ "net", "add", lnetctl_net_add_cmd,
	  "add a network\n"
	  "\t--net: net name (e.g. tcp0)\n"
	  "\t--if: physical interface (e.g. eth0)\n"
	  "\t--nid: bring up NI based on the address of the specified LNet NID\n"
	  "\t--ip2net: specify networks based on IP address patterns\n"
	  "\t--peer-timeout: time to wait before declaring a peer dead\n"
	  "\t--peer-credits: define the max number of inflight messages\n"
	  "\t--peer-buffer-credits: the number of buffer credits per peer\n"
	  "\t--credits: Network Interface credits\n"
	  "\t--cpt: CPU Partitions configured net uses (e.g. [0,1]\n"
	  "\t--conns-per-peer: number of connections per peer\n"
	  "\t--skip-mr-route-setup: do not add linux route for the ni\n"
	  "\t--auth-key: Network authorization key (kfilnd only)\n"
	  "\t--traffic-class: Traffic class (kfilnd only)\n"
	  "\t--tos: IP's Type of Service\n" },
	{ "net", "del", lnetctl_net_del_cmd,
	  "delete a network\n"
	  "\t--net: net name (e.g. tcp0)\n"
	  "\t--nid: shutdown NI based on the address of the specified LNet NID\n"
	  "\t--if: physical interface (e.g. eth0)\n" },
	{ "net", "show", lnetctl_net_show_cmd,
	  "show networks\n"
	  "\t--net: net name (e.g. tcp0) to filter on\n"
	  "\t--verbose: display detailed output per network."
	  " Optional argument of '2' outputs more stats\n" },
	{ "net", "set", lnetctl_net_set_cmd,
	  "set local NI specific parameter\n"
	  "\t--nid: NI NID to set the value on\n"
	  "\t--net: network to set the value on (e.g. tcp, o2ib, kfi)\n"
	  "\t--lnd-timeout: set LND timeout (seconds) for LND used by --net argument\n"
	  "\t--health: specify health value to set\n"
	  "\t--conns-per-peer: number of connections per peer\n"
	  "\t--all: set all NIs value to the one specified\n" },
	{ "routing", "show", lnetctl_routing_show_cmd, "show routing information\n" },
	{ "set", "tiny_buffers", NULL,
	  "set tiny routing buffers\n"
	  "\tVALUE must be greater than 0\n" },
	{ "set", "small_buffers", NULL,
	  "set small routing buffers\n"
	  "\tVALUE must be greater than 0\n" },
	{ "set", "large_buffers", NULL,
	  "set large routing buffers\n"
	  "\tVALUE must be greater than 0\n" },
	{ "set", "routing", NULL,
	  "enable/disable routing\n"
	  "\t0 - disable routing\n"
	  "\t1 - enable routing\n" },
	{ "set", "numa_range", NULL,
	  "set NUMA range for NI selection\n"
	  "\tVALUE must be at least 0\n" },
	{ "set", "max_interfaces", NULL,
	  "set the default value for "
	  "max interfaces\n"
	  "\tValue must be greater than 16\n" },
	{ "set", "discovery", NULL,
	  "enable/disable peer discovery\n"
	  "\t0 - disable peer discovery\n"
	  "\t1 - enable peer discovery (default)\n" },
	{ "set", "drop_asym_route", NULL,
	  "drop/accept asymmetrical route messages\n"
	  "\t0 - accept asymmetrical route messages (default)\n"
	  "\t1 - drop asymmetrical route messages\n" },
	{ "set", "retry_count", NULL,
	  "number of retries\n"
	  "\t0 - turn of retries\n"
	  "\t>0 - number of retries\n" },
	{ "set", "transaction_timeout", NULL,
	  "Message/Response timeout\n"
	  "\t>0 - timeout in seconds\n" },
	{ "set", "health_sensitivity", NULL,
	  "sensitivity to failure\n"
	  "\t0 - turn off health evaluation\n"
	  "\t>0 - sensitivity value not more than 1000\n" },
	{ "set", "recovery_interval", NULL,
	  "interval to ping in seconds (at least 1)\n"
	  "\t>0 - time in seconds between pings\n" },
	{ "set", "router_sensitivity", NULL,
	  "router sensitivity %\n"
	  "\t100 - router interfaces need to be fully healthy to be used\n"
	  "\t<100 - router interfaces can be used even if not healthy\n" },
	{ "set", "response_tracking", NULL,
	  "Set the behavior of response tracking\n"
	  "\t0 - Only LNet pings and discovery pushes utilize response tracking\n"
	  "\t1 - GETs are eligible for response tracking\n"
	  "\t2 - PUTs are eligible for response tracking\n"
	  "\t3 - Both PUTs and GETs are eligible for response tracking (default)\n"
	  "\tNote: Regardless of the value of the response_tracking parameter LNet\n"
	  "\t      pings and discovery pushes always utilize response tracking\n" },
	{ "set", "recovery_limit", NULL,
	  "Set how long LNet will attempt to recover unhealthy interfaces.\n"
	  "\t0 - Recover indefinitely (default)\n"
	  "\t>0 - Recover for the specified number of seconds.\n" },
	{ "set", "max_recovery_ping_interval", NULL,
	  "maximum recovery ping interval\n"
	  "\t>0 - maximum recovery ping interval in seconds\n" },
	{ "stats", "show", lnetctl_stats_show_cmd, "show LNET statistics\n" },
	{ "stats", "reset", lnetctl_stats_reset_cmd, "reset LNET statistics\n" },
	{ "debug", "recovery", lnetctl_debug_recovery_cmd,
	  "list recovery queues\n"
	  "\t--local : list local recovery queue\n"
	  "\t--peer : list peer recovery queue\n" },
	{ "debug", "peer", lnetctl_debug_peer_cmd,
	  "show peer debug info\n"
	  "\t--nid: peer's NID\n" },
	{ "debug", "nidlist", lnetctl_debug_nidlist_cmd, "debug nidlist parsing\n" },
	{ "global", "show", lnetctl_global_show_cmd, "show global variables\n" },
	{ "peer", "add", lnetctl_peer_add_cmd,
	  "add a peer NID\n"
	  "\t--prim_nid: Primary NID of the peer.\n"
	  "\t--nid: one or more peer NIDs\n"
	  "\t--non_mr: create this peer as not Multi-Rail capable\n"
	  "\t--ip2nets: specify a range of nids per peer\n"
	  "\t--lock_prim: lock primary nid\n" },
	{ "peer", "del", lnetctl_peer_del_cmd,
	  "delete a peer NID\n"
	  "\t--prim_nid: Primary NID of the peer.\n"
	  "\t--nid: list of NIDs to remove. If none provided,\n"
	  "\t       peer is deleted\n"
	  "\t--ip2nets: specify a range of nids per peer\n"
	  "\t--force: force-delete locked primary NID\n" },
	{ "peer", "show", lnetctl_peer_show_cmd,
	  "show peer information\n"
	  "\t--nid: NID of peer to filter on.\n"
	  "\t--verbose: display detailed output per peer."
	  " Optional argument of '2' outputs more stats\n" },
	{ "peer", "list", lnetctl_peer_list_cmd, "list all peers\n" },
	{ "peer", "set", lnetctl_peer_set_cmd,
	  "set peer ni specific parameter\n"
	  "\t--nid: Peer NI NID to set the\n"
	  "\t--health: specify health value to set\n"
	  "\t--all: set all peer_nis values to the one specified\n"
	  "\t--state: set peer state (DANGEROUS: for test/debug only)" },
	{ "udsp", "add", lnetctl_udsp_add_cmd,
	  "add a udsp\n"
	  "\t--src nid|net: ip2nets syntax specifying the local NID or network to match.\n"
	  "\t--dst nid:     ip2nets syntax specifying the remote NID to match.\n"
	  "\t--rte nid:     ip2nets syntax specifying the router NID to match.\n"
	  "\t--priority p:  Assign priority value p where p >= 0.\n"
	  "\t               Note: 0 is the highest priority.\n"
	  "\t--idx n:       Insert the rule in the n'th position on the list of rules.\n"
	  "\t               By default, rules are appended to the end of the rule list.\n" },
	{ "udsp", "del", lnetctl_udsp_del_cmd,
	  "delete a udsp\n"
	  "\t--all:   Delete all rules.\n"
	  "\t--idx n: Delete the rule at index n.\n" },
	{ "udsp", "show", lnetctl_udsp_show_cmd,
	  "show udsps\n"
	  "\t--idx n: Show the rule at at index n.\n"
	  "\t         By default, all rules are shown.\n" },
	{ "fault", "drop", lnetctl_sublevel_cmd,
	  "Manage drop rules\n"
	  "usage: lnetctl fault drop add [<options>] -r <rate>|-i <interval> -s <src> -d <dest>\n"
	  "   or: lnetctl fault drop del -s <src> -d <dest>\n"
	  "   or: lnetctl fault drop show\n"
	  "   or: lnetctl fault drop reset\n" },
	{ "fault", "delay", lnetctl_sublevel_cmd,
	  "Manage delay rules\n"
	  "usage: lnetctl fault delay add [<options>] -r <rate>|-i <interval> -s <src> -d <dest>\n"
	  "   or: lnetctl fault delay del -s <src> -d <dest>\n"
	  "   or: lnetctl fault delay show\n"
	  "   or: lnetctl fault delay reset\n" },
	{ "drop", "add", lnetctl_fault_drop_cmd,
	  "add LNet drop rule\n"
	  "\t--source nid:  Drop messages originating from <nid>.\n"
	  "\t--dest nid:    Drop messages destined for <nid>.\n"
	  "\t--rate r:      Drop messages at specified rate (1/<r>).\n"
	  "\t--interval i:  Drop messages at specified time interval (seconds).\n"
	  "\t--portal p:    Drop messages on specified portal.\n"
	  "\t--message m:   Drop messages of specified type <PUT|ACK|GET|REPLY>.\n"
	  "\t--health_error: Dropped messages simulate the specified health status\n"
	  "\t                <local_timeout|remote_dropped|network_timeout|...>.\n" },
	{ "drop", "del", lnetctl_fault_drop_cmd,
	  "delete LNet drop rules\n"
	  "\t--all:         Delete all drop rules\n"
	  "\t--source nid:  Delete drop rule with specified source NID\n"
	  "\t--dest nid:    Delete drop rule with specified destination NID\n" },
	{ "drop", "reset", lnetctl_fault_drop_cmd, "reset counters for all drop rules\n" },
	{ "drop", "show", lnetctl_fault_drop_cmd, "show drop rules\n" },
	{ "delay", "add", lnetctl_fault_delay_cmd,
	  "add LNet delay rule\n"
	  "\t--source nid:  Delay messages originating from <nid>.\n"
	  "\t--dest nid:    Delay messages destined for <nid>.\n"
	  "\t--rate r:      Delay messages at specified rate (1/<r>).\n"
	  "\t--interval i:  Delay messages at specified time interval (seconds).\n"
	  "\t--portal p:    Delay messages on specified portal.\n"
	  "\t--message m:   Delay messages of specified type <PUT|ACK|GET|REPLY>.\n"
	  "\t--latency:     Delay sending a message (delay only).\n" },
	{ "delay", "del", lnetctl_fault_delay_cmd,
	  "delete LNet delay rules\n"
	  "\t--all:         Delete all delay rules\n"
	  "\t--source nid:  Delete delay rule with specified source NID\n"
	  "\t--dest nid:    Delete delay rule with specified destination NID\n" },
	{ "delay", "reset", lnetctl_fault_delay_cmd, "reset counters for all delay rules\n" },
	{ "delay", "show", lnetctl_fault_delay_cmd, "show delay rules\n" },
	{ "capture", "start", lnetctl_capture_cmd,
	  "record the traffic of tcp NIs to a pcapng file (lnetd-pmd only)\n"
	  "\t--file: the file to write\n"
	  "\t--net: only this network's NIs\n"
	  "\t--nid: only traffic to or from this peer NID\n"
	  "\t--max-bytes: stop after this many bytes\n"
	  "\t--format: pcapng (the default) or pcap\n" },
	{ "capture", "stop", lnetctl_capture_cmd, "stop recording and print the totals\n" },
	{ "capture", "show", lnetctl_capture_cmd, "print the running capture's totals\n" },
};

#define LNETCTL_NCMDS (sizeof(lnetctl_cmds) / sizeof(lnetctl_cmds[0]))

/* What the kernel's parser answers itself, at every level. */
enum lnetctl_word { LW_QUIT, LW_HELP, LW_VERSION, LW_LIST, LW_IGNORE };

struct lnetctl_override {
	const char *name;
	enum lnetctl_word word;
	const char *help;
};

static const struct lnetctl_override lnetctl_overrides[] = {
	{ "quit", LW_QUIT, "quit" },
	{ "exit", LW_QUIT, "exit" },
	{ "help", LW_HELP, "provide useful information about a command" },
	{ "--help", LW_HELP, "provide useful information about a command" },
	{ "version", LW_VERSION, "show program version" },
	{ "--version", LW_VERSION, "show program version" },
	{ "list-commands", LW_LIST, "list available commands" },
	{ "--list-commands", LW_LIST, "list available commands" },
	{ "--ignore_errors", LW_IGNORE, "ignore errors that occur during script processing" },
	{ "ignore_errors", LW_IGNORE, "ignore errors that occur during script processing" },
};

#define LNETCTL_NOVERRIDES (sizeof(lnetctl_overrides) / sizeof(lnetctl_overrides[0]))

/* The parser's state over one run: the prompt's quit and ignore_errors. */
struct lnetctl_parser {
	struct lnetctl_ctx *ctx;
	bool done;
	bool ignore_errors;
};

/*
 * A level of the tree as the kernel's parser sees it: its own words, then
 * the commands (top level, @p cmd NULL) or one command's subcommands.
 * Entry i names one of them; NULL past the end.
 */
static const char *
lnetctl_level_name(const char *cmd, unsigned int i, const char **help)
{
	unsigned int j;

	if (i < LNETCTL_NOVERRIDES) {
		*help = lnetctl_overrides[i].help;
		return lnetctl_overrides[i].name;
	}
	i -= LNETCTL_NOVERRIDES;
	if (cmd == NULL) {
		if (i >= LNETCTL_NTOPS) {
			return NULL;
		}
		*help = lnetctl_tops[i].help;
		return lnetctl_tops[i].name;
	}
	for (j = 0; j < LNETCTL_NCMDS; j++) {
		if (strcmp(lnetctl_cmds[j].name, cmd) == 0 && i-- == 0) {
			*help = lnetctl_cmds[j].help;
			return lnetctl_cmds[j].sub;
		}
	}
	return NULL;
}

enum lnetctl_match { LM_NONE, LM_ONE, LM_AMBIG };

/*
 * The kernel's find_cmd/process: a word names the first entry it is a
 * case-insensitive prefix of; the exact name wins; two prefixes are
 * ambiguous.
 */
static enum lnetctl_match
lnetctl_level_find(const char *cmd, const char *word, unsigned int *found)
{
	size_t len = strlen(word);
	const char *help;
	const char *name;
	unsigned int n = 0;
	unsigned int i;

	for (i = 0; (name = lnetctl_level_name(cmd, i, &help)) != NULL; i++) {
		if (len == 0 || strncasecmp(word, name, len) != 0) {
			continue;
		}
		if (strcasecmp(word, name) == 0) {
			*found = i;
			return LM_ONE;
		}
		if (n++ == 0) {
			*found = i;
		}
	}
	return n == 0 ? LM_NONE : n == 1 ? LM_ONE : LM_AMBIG;
}

static void
lnetctl_print_ambiguous(const char *cmd, const char *word)
{
	size_t len = strlen(word);
	const char *help;
	const char *name;
	unsigned int i;

	fprintf(stderr, "Ambiguous command '%s'\nOptions: ", word);
	for (i = 0; (name = lnetctl_level_name(cmd, i, &help)) != NULL; i++) {
		if (strncasecmp(word, name, len) == 0) {
			fprintf(stderr, "%s ", name);
		}
	}
	fprintf(stderr, "\n");
}

static void
lnetctl_not_valid(const char *word)
{
	fprintf(stderr, "lnetctl: '%s' is not a valid command. See 'lnetctl --list-commands'.\n",
		word);
}

void
lnetctl_print_cmd_help(const char *cmd, const char *sub)
{
	unsigned int i;

	for (i = 0; i < LNETCTL_NCMDS; i++) {
		if (strcmp(lnetctl_cmds[i].name, cmd) == 0 &&
		    (sub == NULL || strcmp(lnetctl_cmds[i].sub, sub) == 0)) {
			printf("%s %s: %s\n", cmd, lnetctl_cmds[i].sub, lnetctl_cmds[i].help);
		}
	}
	/* A command without subcommands prints its own help, after "" as the kernel's. */
	for (i = 0; sub == NULL && i < LNETCTL_NTOPS; i++) {
		if (lnetctl_tops[i].leaf && strcmp(lnetctl_tops[i].name, cmd) == 0) {
			printf(" %s: %s\n", cmd, lnetctl_tops[i].help);
		}
	}
}

/*
 * help [WORDS]: alone, the usage on stdout; with words, they are joined
 * without spaces as the kernel's parser joins them and looked up at this
 * level, the answer on stderr. Always 0, as the kernel's.
 */
static int
lnetctl_parser_help(const char *cmd, int argc, char **argv)
{
	char line[1024] = "";
	const char *help = "";
	unsigned int found = 0;
	int i;

	if (argc <= 1) {
		printf("usage: lnetctl [COMMAND] [OPTIONS]... [ARGS]\n"
		       "Without any parameters, interactive mode is invoked\n"
		       "Try 'lnetctl help <COMMAND>', or 'lnetctl --list-commands' for a list of "
		       "commands.\n");
		return 0;
	}
	for (i = 1; i < argc; i++) {
		if (strlen(argv[i]) >= sizeof(line) - strlen(line) - 1) {
			return -E2BIG;
		}
		strncat(line, argv[i], sizeof(line) - strlen(line) - 1);
	}
	switch (lnetctl_level_find(cmd, line, &found)) {
	case LM_ONE:
		lnetctl_level_name(cmd, found, &help);
		fprintf(stderr, "%s: %s\n", line, help);
		break;
	case LM_NONE:
		lnetctl_not_valid(line);
		break;
	case LM_AMBIG:
		lnetctl_print_ambiguous(cmd, line);
		break;
	}
	return 0;
}

/*
 * The kernel's --list-commands: every word of the level it is typed at
 * (the top, or after a command: its subcommands), the parser's own first,
 * four to a line in columns of 20.
 */
static void
lnetctl_list_commands(const char *cmd)
{
	const char *help;
	const char *name;
	unsigned int i;

	int offset = 0;

	for (i = 0; (name = lnetctl_level_name(cmd, i, &help)) != NULL; i++) {
		int n = printf("%-*s ", 19 - offset, name);

		/* a name wider than its column pushes the next ones right */
		offset = offset + n - 20 > 0 ? offset + n - 20 : 0;
		if (i % 4 == 3) {
			printf("\n");
			offset = 0;
		}
	}
	if (i % 4 != 0) {
		printf("\n");
	}
}

/* The parser's own words; @p cmd is the level they were typed at. */
static int
lnetctl_run_override(struct lnetctl_parser *p, const char *cmd, enum lnetctl_word w, int argc,
		     char **argv)
{
	switch (w) {
	case LW_QUIT:
		p->done = true;
		return 0;
	case LW_HELP:
		return lnetctl_parser_help(cmd, argc, argv);
	case LW_VERSION:
		/* The lnetctl of Lustre 2.17, as this tool's commands and YAML are. */
		printf("lnetctl 2.17.0 (lnet-pmd %s)\n", LNP_VERSION);
		return 0;
	case LW_LIST:
		lnetctl_list_commands(cmd);
		return 0;
	case LW_IGNORE:
		p->ignore_errors = true;
		return 0;
	}
	return 0;
}

/*
 * The kernel's check_cmd(): with one word at most after the command, a
 * -h/--help among them (getopt's forms: -h, --help, --he...) prints the help.
 */
static bool
lnetctl_wants_help(int argc, char **argv)
{
	static const struct option opts[] = {
		{ .name = "help", .has_arg = no_argument, .val = 'h' },
		{ .name = NULL },
	};
	bool help = false;
	int opt;

	if (argc > 2) {
		return false;
	}
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		help = help || opt == 'h';
	}
	opterr = 1;
	optind = 0;
	return help;
}

/* The verb of the kernel's error block for a subcommand: what it does. */
static const char *
lnetctl_unsupported_verb(const char *sub)
{
	static const char *const verbs[][2] = {
		{ "add", "add" },   { "del", "del" },     { "show", "show" },
		{ "set", "set" },   { "reset", "reset" }, { "recovery", "show" },
		{ "peer", "show" }, { "list", "show" },
	};
	unsigned int i;

	for (i = 0; sub != NULL && i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (strcmp(sub, verbs[i][0]) == 0) {
			return verbs[i][1];
		}
	}
	return "manage";
}

static int
lnetctl_unsupported(const char *cmd, const char *sub)
{
	char descr[160];

	snprintf(descr, sizeof(descr), "%s%s%s: not supported by lnetd-pmd yet", cmd,
		 sub != NULL ? " " : "", sub != NULL ? sub : "");
	lnetctl_print_error(lnetctl_unsupported_verb(sub), cmd, -EOPNOTSUPP, descr);
	return -EOPNOTSUPP;
}

/*
 * "set TUNABLE VALUE": the kernel's check_cmd with two words at least
 * (the tunable alone prints its help and fails -EINVAL), then the
 * command's one function with the whole line.
 */
static int
lnetctl_run_whole(struct lnetctl_parser *p, const struct lnetctl_top *top,
		  const struct lnetctl_cmd *c, int argc, char **argv)
{
	if (argc - 1 < 2) {
		lnetctl_print_cmd_help(c->name, c->sub);
		return -EINVAL;
	}
	optind = 0;
	return top->fn(p->ctx, argc, argv);
}

/* "net show ...": argv[0] is the command word as typed. */
static int
lnetctl_run_sub(struct lnetctl_parser *p, const struct lnetctl_top *top, int argc, char **argv)
{
	unsigned int i;
	int rc;

	if (argc < 2) {
		lnetctl_print_cmd_help(top->name, NULL);
		return -EINVAL;
	}
	if (lnetctl_wants_help(argc, argv)) {
		lnetctl_print_cmd_help(top->name, NULL);
		return 1;
	}
	for (i = 0; i < LNETCTL_NOVERRIDES; i++) {
		if (strcmp(argv[1], lnetctl_overrides[i].name) == 0) {
			return lnetctl_run_override(p, top->name, lnetctl_overrides[i].word,
						    argc - 1, argv + 1);
		}
	}
	for (i = 0; i < LNETCTL_NCMDS; i++) {
		const struct lnetctl_cmd *c = &lnetctl_cmds[i];

		if (strcmp(c->name, top->name) != 0 || strcmp(c->sub, argv[1]) != 0) {
			continue;
		}
		if (c->fn == lnetctl_sublevel_cmd) {
			/* Its own check_cmd: -h lists the level's verbs, not this entry. */
			const struct lnetctl_top level = { .name = c->sub };

			return lnetctl_run_sub(p, &level, argc - 1, argv + 1);
		}
		if (lnetctl_wants_help(argc - 1, argv + 1)) {
			lnetctl_print_cmd_help(c->name, c->sub);
			return 1;
		}
		if (top->fn != NULL) {
			return lnetctl_run_whole(p, top, c, argc, argv);
		}
		if (c->fn == NULL) {
			return lnetctl_unsupported(c->name, c->sub);
		}
		optind = 0;
		rc = c->fn(p->ctx, argc - 1, argv + 1);
		opterr = 1; /* lnetctl_check_cmd_opterr() may have turned it off */
		return rc;
	}
	lnetctl_not_valid(argv[1]);
	return -1;
}

static int
lnetctl_run_top(struct lnetctl_parser *p, const struct lnetctl_top *top, int argc, char **argv)
{
	lnetctl_error_reset();
	if (!top->leaf) {
		return lnetctl_run_sub(p, top, argc, argv);
	}
	if (top->fn == NULL) {
		return lnetctl_unsupported(top->name, NULL);
	}
	optind = 0;
	return top->fn(p->ctx, argc, argv);
}

/* One command line from the shell: words are matched exactly, as the kernel's. */
static int
lnetctl_run(struct lnetctl_parser *p, int argc, char **argv)
{
	unsigned int i;

	for (i = 0; i < LNETCTL_NOVERRIDES; i++) {
		if (strcmp(argv[0], lnetctl_overrides[i].name) == 0) {
			return lnetctl_run_override(p, NULL, lnetctl_overrides[i].word, argc, argv);
		}
	}
	for (i = 0; i < LNETCTL_NTOPS; i++) {
		if (strcmp(argv[0], lnetctl_tops[i].name) == 0) {
			return lnetctl_run_top(p, &lnetctl_tops[i], argc, argv);
		}
	}
	lnetctl_not_valid(argv[0]);
	return -1;
}

/*
 * One line at the prompt: its first word may be a unique prefix
 * ("ne show"); a word that names nothing prints the usage, as the
 * kernel's execute_line.
 */
static int
lnetctl_execute_line(struct lnetctl_parser *p, char *line)
{
	char *argv[LNETCTL_MAX_ARGS];
	char *save = NULL;
	char *tok;
	unsigned int found = 0;
	int argc = 0;

	for (tok = strtok_r(line, " \t", &save); tok != NULL && argc < LNETCTL_MAX_ARGS;
	     tok = strtok_r(NULL, " \t", &save)) {
		argv[argc++] = tok;
	}
	if (argc == 0) {
		return 0;
	}
	switch (lnetctl_level_find(NULL, argv[0], &found)) {
	case LM_NONE:
		return lnetctl_parser_help(NULL, 1, NULL);
	case LM_AMBIG:
		lnetctl_print_ambiguous(NULL, argv[0]);
		return 0;
	case LM_ONE:
		break;
	}
	if (found < LNETCTL_NOVERRIDES) {
		return lnetctl_run_override(p, NULL, lnetctl_overrides[found].word, argc, argv);
	}
	return lnetctl_run_top(p, &lnetctl_tops[found - LNETCTL_NOVERRIDES], argc, argv);
}

/*
 * The prompt, as the kernel's lnetctl opens without arguments: "> " when
 * stdin is a terminal, nothing otherwise; a script stops at its first
 * failing line (unless ignore_errors) and lnetctl exits with that error.
 */
static int
lnetctl_interactive(struct lnetctl_parser *p)
{
	bool tty = isatty(STDIN_FILENO);
	char line[4096];
	int saved = 0;
	int rc = 0;

	while (!p->done) {
		char *nl;

		if (tty) {
			printf("> ");
			fflush(stdout);
		}
		if (fgets(line, sizeof(line), stdin) == NULL) {
			break;
		}
		nl = strchr(line, '\n');
		if (nl != NULL) {
			*nl = '\0';
		}
		rc = lnetctl_execute_line(p, line);
		fflush(stdout);
		if (rc != 0 && !tty) {
			saved = saved == 0 ? rc : saved;
			p->done = !p->ignore_errors;
		}
	}
	return saved != 0 ? saved : rc;
}

/*
 * lnetctl exits with its command's return value, as the kernel's main
 * returns cfs_parser's: a negative errno becomes (256 + rc) & 255.
 */
int
main(int argc, char **argv)
{
	struct lnetctl_ctx ctx = { .name = getenv("LNETCTL_NAME"), .conn = { .fd = -1 } };
	struct lnetctl_parser p = { .ctx = &ctx };
	int first = 1;
	int rc;

	if (ctx.name == NULL) {
		ctx.name = LNETCTL_DEFAULT_NAME;
	}
	/* Ours, before the kernel's words: --name NAME or --name=NAME. */
	if (argc > 2 && strcmp(argv[1], "--name") == 0) {
		ctx.name = argv[2];
		first = 3;
	} else if (argc > 1 && strncmp(argv[1], "--name=", 7) == 0) {
		ctx.name = argv[1] + 7;
		first = 2;
	}
	rc = first >= argc ? lnetctl_interactive(&p) : lnetctl_run(&p, argc - first, argv + first);
	if (ctx.connected) {
		lnetctl_close(&ctx.conn);
	}
	fflush(stdout);
	return rc;
}
