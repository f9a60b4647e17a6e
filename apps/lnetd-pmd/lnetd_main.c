/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnetd-pmd: one process that is a whole LNet node.
 *
 *   lnetd-pmd [EAL args] [-- [--config FILE] [--name NAME] [--lnet-params N=V,...]]
 *
 * With no EAL arguments it runs the embedded default: no hugepages, no PCI,
 * the management lcore and the data lcores on the EAL workers, and
 * config/default.yaml. SIGINT/SIGTERM stop it cleanly (exit 0).
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "api.h"
#include "lnetd.h"
#include "rt.h"

#define LNETD_MAX_ARGS 64

static void
lnetd_usage(FILE *f)
{
	fprintf(f,
		"usage: lnetd-pmd [EAL options] [-- [--config FILE] [--name NAME]\n"
		"                                    [--cpu-pattern PATTERN]\n"
		"                                    [--lnet-params NAME=VALUE,...] [--stall-ms "
		"MS]\n"
		"                                    [--drain-ms MS] [--selftest]]\n"
		"  --config FILE          configuration in lnetctl export format\n"
		"                         (default: the embedded config/default.yaml)\n"
		"  --name NAME            instance name: EAL file prefix, lnetctl --name\n"
		"                         (default %s)\n"
		"  --cpu-pattern PATTERN  CPU partitions, as the kernel's cpu_pattern:\n"
		"                         \"0[0,1] 1[2,3]\" or \"N 0[0] 1[1]\" (default: NUMA "
		"nodes)\n"
		"  --stall-ms MS          the stall watchdog: count and log every poll of an\n"
		"                         lcore that runs longer than MS milliseconds\n"
		"                         (default %d; 0: no watchdog)\n"
		"  --drain-ms MS          on SIGINT/SIGTERM, give messages in flight up to MS\n"
		"                         milliseconds to complete before LNet stops\n"
		"                         (default 0: stop at once; the unit gives 5000)\n"
		"  --selftest             serve lnet_selftest (as modprobe lnet_selftest);\n"
		"                         also global lnet_selftest: 1 in the configuration\n"
		"  --xprt-clients         serve client processes of lib/xprt at xprt.sock in\n"
		"                         the EAL runtime directory (default: off)\n"
		"  --xprt-uids UID,...    the uids those may run as (default: the daemon's)\n"
		"  --lnd-params TYPE:NAME=VALUE[,NAME=VALUE...]\n"
		"                         module parameters of the LND of net type TYPE, by\n"
		"                         the kernel module's names; the LND checks them\n"
		"  --socklnd NAME=VALUE[,NAME=VALUE...]\n"
		"                         --lnd-params tcp:...: ksocklnd module parameters\n"
		"                         (sock_timeout, conns_per_peer, tos, typed_conns, nagle,\n"
		"                         keepalive*, min/max_reconnectms, min_bulk, enable_csum,\n"
		"                         tx/rx_buffer_size, accept_port, accept): defaults of\n"
		"                         every tcp NI\n"
		"  --lnet-params NAME=VALUE[,NAME=VALUE...]\n"
		"                         lnet module parameters, by the kernel module's\n"
		"                         names: alive_router_check_interval (60),\n"
		"                         router_ping_timeout (50), check_routers_before_use\n"
		"                         (0), avoid_asym_router_failure (1),\n"
		"                         tiny|small|large_router_buffers (0: default); set\n"
		"                         once LNet is up, before --config is applied\n"
		"  --accept-port PORT     --socklnd accept_port=PORT (default 988)\n"
		"  --accept POLICY        --socklnd accept=POLICY: secure (privileged source\n"
		"                         ports, default), all, none\n"
		"  --enable-csum          --socklnd enable_csum=1: checksum what goes on V2\n"
		"                         connections; received checksums are always checked\n",
		LNETD_DEFAULT_NAME, LNET_STALL_MS_DEFAULT);
}

/*
 * Module parameters @p prefix@p value for the LND of net type @p lnd_type,
 * from option --@p opt: the LND parses and checks them.
 */
static int
lnetd_opt_lnd_params(const char *opt, const char *lnd_type, const char *prefix, const char *value)
{
	char err[256];
	char *list = NULL;
	int rc = asprintf(&list, "%s%s", prefix, value) < 0 ? -ENOMEM : 0;

	if (rc == 0) {
		rc = lnetd_lnd_params(lnd_type, list, err, sizeof(err));
	}
	if (rc != 0) {
		fprintf(stderr, "lnetd-pmd: --%s: %s\n", opt,
			rc == -ENOMEM ? strerror(ENOMEM) : err);
	}
	free(list);
	return rc;
}

/* --lnd-params TYPE:NAME=VALUE[,...] */
static int
lnetd_opt_lnd_spec(const char *spec)
{
	const char *colon = strchr(spec, ':');
	char type[16];

	if (colon == NULL || colon == spec || (size_t)(colon - spec) >= sizeof(type)) {
		fprintf(stderr,
			"lnetd-pmd: --lnd-params: TYPE:NAME=VALUE[,NAME=VALUE...] expected, "
			"as --lnd-params tcp:sock_timeout=20\n");
		return -EINVAL;
	}
	snprintf(type, sizeof(type), "%.*s", (int)(colon - spec), spec);
	return lnetd_opt_lnd_params("lnd-params", type, "", colon + 1);
}

/*
 * --lnet-params NAME=VALUE[,...]: its form is checked now; the names and
 * values once LNet is up (lnet_ctl_param_set), before --config.
 */
static int
lnetd_opt_lnet_params(const char *list)
{
	char err[256];
	int rc = lnetd_lnet_params(list, false, err, sizeof(err));

	if (rc != 0) {
		fprintf(stderr, "lnetd-pmd: --lnet-params: %s\n", err);
	}
	return rc;
}

/* --stall-ms MS: 0 turns the watchdog off (lnet_init_opts.stall_ms -1). */
static int
lnetd_opt_stall_ms(const char *arg, int *stall_ms)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > INT_MAX) {
		fprintf(stderr,
			"lnetd-pmd: --stall-ms: a number of milliseconds expected, not '%s'\n",
			arg);
		return -EINVAL;
	}
	*stall_ms = v == 0 ? -1 : (int)v;
	return 0;
}

/* --drain-ms MS */
static int
lnetd_opt_drain_ms(const char *arg, unsigned int *drain_ms)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > INT_MAX) {
		fprintf(stderr,
			"lnetd-pmd: --drain-ms: a number of milliseconds expected, not '%s'\n",
			arg);
		return -EINVAL;
	}
	*drain_ms = (unsigned int)v;
	return 0;
}

/* Options after "--". Returns 0, 1 (help shown) or -1. */
static int
lnetd_parse_opts(int argc, char **argv, struct lnetd_opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "name", required_argument, NULL, 'n' },
		{ "cpu-pattern", required_argument, NULL, 'p' },
		{ "accept-port", required_argument, NULL, 'P' },
		{ "accept", required_argument, NULL, 'a' },
		{ "enable-csum", no_argument, NULL, 'C' },
		{ "socklnd", required_argument, NULL, 'S' },
		{ "lnd-params", required_argument, NULL, 'L' },
		{ "lnet-params", required_argument, NULL, 'l' },
		{ "stall-ms", required_argument, NULL, 's' },
		{ "drain-ms", required_argument, NULL, 'D' },
		{ "selftest", no_argument, NULL, 'T' },
		{ "xprt-clients", no_argument, NULL, 'X' },
		{ "xprt-uids", required_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = 0;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:n:p:P:a:CS:L:l:s:D:TXU:h", longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'c':
			o->config = optarg;
			break;
		case 'n':
			o->name = optarg;
			break;
		case 'p':
			o->cpu_pattern = optarg;
			break;
		case 'P': /* the socklnd's options of old, as its parameters */
			rc = lnetd_opt_lnd_params("accept-port", "tcp", "accept_port=", optarg);
			break;
		case 'a':
			rc = lnetd_opt_lnd_params("accept", "tcp", "accept=", optarg);
			break;
		case 'C':
			rc = lnetd_opt_lnd_params("enable-csum", "tcp", "enable_csum=1", "");
			break;
		case 'S':
			rc = lnetd_opt_lnd_params("socklnd", "tcp", "", optarg);
			break;
		case 'L':
			rc = lnetd_opt_lnd_spec(optarg);
			break;
		case 'l':
			rc = lnetd_opt_lnet_params(optarg);
			o->lnet_params = optarg;
			break;
		case 's':
			rc = lnetd_opt_stall_ms(optarg, &o->stall_ms);
			break;
		case 'D':
			rc = lnetd_opt_drain_ms(optarg, &o->drain_ms);
			break;
		case 'T':
			o->selftest = true;
			break;
		case 'X':
			o->xprt_clients = true;
			break;
		case 'U':
			if (lnetd_xprt_uids(optarg) != 0) {
				fprintf(stderr,
					"lnetd-pmd: --xprt-uids: a list of uids, as 0,1000\n");
				rc = -1;
			}
			break;
		case 'h':
			lnetd_usage(stdout);
			return 1;
		default:
			lnetd_usage(stderr);
			return -1;
		}
		if (rc != 0) {
			return -1;
		}
	}
	if (optind != argc || strspn(o->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					      "0123456789_-") != strlen(o->name)) {
		fprintf(stderr, "lnetd-pmd: bad arguments or instance name\n");
		return -1;
	}
	return 0;
}

/* EAL argv: the user's, or the embedded default; --file-prefix from --name. */
static int
lnetd_eal_argv(int n_eal, char **user, const struct lnetd_opts *o, char **argv, char *prefix,
	       size_t prefix_len)
{
	static char *const defaults[] = { "--no-huge", "-m", "256", "--no-pci", "--no-shconf" };
	char lcores[32];
	static char lcore_arg[32];
	int argc = 0;
	int i;
	bool has_prefix = false;

	argv[argc++] = "lnetd-pmd";
	for (i = 1; i < n_eal && argc < LNETD_MAX_ARGS - 4; i++) {
		has_prefix |= strncmp(user[i], "--file-prefix", 13) == 0;
		argv[argc++] = user[i];
	}
	if (n_eal <= 1) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		for (i = 0; i < (int)(sizeof(defaults) / sizeof(defaults[0])); i++) {
			argv[argc++] = defaults[i];
		}
		/* The main thread waits for signals; workers run the lcores. */
		snprintf(lcores, sizeof(lcores), "0-%ld", ncpu > 1 ? ncpu - 1 : 1);
		snprintf(lcore_arg, sizeof(lcore_arg), "%s", lcores);
		argv[argc++] = "-l";
		argv[argc++] = lcore_arg;
	}
	if (!has_prefix) {
		snprintf(prefix, prefix_len, "--file-prefix=%s", o->name);
		argv[argc++] = prefix;
	}
	argv[argc] = NULL;
	return argc;
}

static int
lnetd_run(const struct lnetd_opts *o)
{
	char err[512] = "";
	struct lnet_init_opts lo = {
		.opts_size = sizeof(lo),
		.mode = LNET_EXEC_THREADS,
		.cpu_pattern = o->cpu_pattern,
		.stall_ms = o->stall_ms,
	};
	int sig = 0;
	int rc;

	rc = lnet_init_opts_set(&lo);
	if (rc == 0) {
		rc = LNetNIInit(LNET_PID_LUSTRE);
	}
	if (rc != 0) {
		fprintf(stderr, "lnetd-pmd: LNet start failed: %s\n", strerror(-rc));
		return 1;
	}
	/* The module parameters first: the configuration's routing starts with them. */
	if (o->lnet_params != NULL &&
	    lnetd_lnet_params(o->lnet_params, true, err, sizeof(err)) != 0) {
		fprintf(stderr, "lnetd-pmd: --lnet-params: %s\n", err);
		LNetNIFini();
		return 1;
	}
	rc = o->config != NULL ?
		     lnetd_config_apply_file(o->config, err, sizeof(err)) :
		     lnetd_config_apply_text(lnetd_default_yaml, strlen(lnetd_default_yaml),
					     "default.yaml", err, sizeof(err));
	if (rc == 0 && o->selftest) {
		rc = lnetd_selftest_set(1);
		if (rc != 0) {
			snprintf(err, sizeof(err), "--selftest: %s", strerror(-rc));
		}
	}
	if (rc == 0) {
		rc = lnetd_telemetry_register();
		rc = rc != 0 ? rc : lnetd_xprt_register();
		if (rc != 0) {
			snprintf(err, sizeof(err), "telemetry: %s", strerror(-rc));
		}
	}
	if (rc == 0 && o->xprt_clients) {
		rc = lnetd_xprt_start();
		if (rc != 0) {
			snprintf(err, sizeof(err), "--xprt-clients: %s", strerror(-rc));
		}
	}
	if (rc != 0) {
		fprintf(stderr, "lnetd-pmd: %s\n", err);
		lnetd_xprt_shutdown();
		lnetd_selftest_shutdown();
		lnetd_ports_close();
		LNetNIFini();
		return 1;
	}
	printf("lnetd-pmd: %s up (pid %d)\n", o->name, (int)getpid());
	fflush(stdout);
	sig = lnetd_service_run(o);
	printf("lnetd-pmd: %s stopping on signal %d\n", o->name, sig);
	lnetd_service_drain(o, o->drain_ms);
	lnetd_capture_shutdown();
	lnetd_xprt_shutdown();
	lnetd_selftest_shutdown();
	lnetd_ports_close();
	LNetNIFini();
	return 0;
}

int
main(int argc, char **argv)
{
	struct lnetd_opts o = { .config = NULL, .name = LNETD_DEFAULT_NAME };
	char *eal_argv[LNETD_MAX_ARGS];
	char prefix[128];
	int n_eal = argc;
	int eal_argc;
	sigset_t set;
	int rc;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			n_eal = i;
			break;
		}
	}
	/* getopt over the daemon's part: argv[n_eal] ("--") stands in for argv[0]. */
	rc = n_eal < argc ? lnetd_parse_opts(argc - n_eal, argv + n_eal, &o) : 0;
	if (rc != 0) {
		return rc > 0 ? 0 : 2;
	}
	/* Block the stop and reload signals in every thread EAL creates; main waits for them. */
	lnetd_service_sigset(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	eal_argc = lnetd_eal_argv(n_eal, argv, &o, eal_argv, prefix, sizeof(prefix));
	if (rte_eal_init(eal_argc, eal_argv) < 0) {
		fprintf(stderr, "lnetd-pmd: EAL initialization failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	/* From here the lcores log through a ring: a slow stderr or syslog never stalls them. */
	rc = rt_log_async_start();
	if (rc != 0) {
		fprintf(stderr, "lnetd-pmd: log ring: %s\n", strerror(-rc));
		rte_eal_cleanup();
		return 1;
	}
	rc = lnetd_run(&o);
	rt_log_async_stop();
	rte_eal_cleanup();
	return rc;
}
