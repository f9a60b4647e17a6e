/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LNETD_H
#define LNETD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_telemetry.h>

#include "lnetcfg.h"

#define LNETD_DEFAULT_NAME "lnetd"

/* Daemon options (after "--"). */
struct lnetd_opts {
	const char *config;      /* --config FILE; NULL: the embedded default */
	const char *name;        /* --name NAME: EAL file prefix, lnetctl --name */
	const char *cpu_pattern; /* --cpu-pattern "0[0,1] 1[2,3]": CPTs; NULL: libnuma */
	const char *lnet_params; /* --lnet-params NAME=VALUE,...: lnet module parameters */
	int stall_ms;            /* --stall-ms: lnet_init_opts.stall_ms (0: default, -1: none) */
	unsigned int drain_ms;   /* --drain-ms: on stop, how long messages in flight may take */
	bool selftest;           /* --selftest: serve lnet_selftest from the start */
	bool xprt_clients;       /* --xprt-clients: serve client processes (lnetd_xprt.c) */
};

/* lnetd_config.c: apply a YAML configuration (lnetctl export format). */
int lnetd_config_apply_file(const char *path, char *err, size_t errlen);
int lnetd_config_apply_text(const char *text, size_t len, const char *origin, char *err,
			    size_t errlen);

/*
 * A global setting of the configuration, an import or `lnetctl set`: LNet's
 * (lnet_ctl_global_set), or the daemon's extension lnet_selftest.
 */
int lnetd_global_apply(const char *key, int value, char *why, size_t whylen);

/* lnetd_selftest.c: the lnet_selftest service (global lnet_selftest, --selftest). */
/* On (1) or off (0); 0, -EINVAL, or why it could not start. */
int lnetd_selftest_set(int on);
bool lnetd_selftest_enabled(void);
/* Off, before LNet goes down. */
void lnetd_selftest_shutdown(void);
struct sft_con_req;
struct sft_con_result;
/*
 * Run a console request on the selftest thread and wait: 0 (its reply is
 * written into @p d), or -ENODEV while the service is off.
 */
int lnetd_selftest_con_call(const struct sft_con_req *rq, struct rte_tel_data *d);

/* lnetd_lst.c: /lnet/lst (the lst console's commands). */
int lnetd_lst_register(void);
/* Write the console's answer to a request of @p op (on the selftest thread). */
void lnetd_lst_reply(struct rte_tel_data *d, int op, const struct sft_con_result *r);
/* Free the entries a reply kept for its pages (op=ents). */
void lnetd_lst_forget(void);

/*
 * lnetd_xprt.c: the client service (--xprt-clients): processes attach over
 * xprt.sock in the EAL runtime directory. --xprt-uids "UID,...": who may
 * (default: the daemon's euid); 0 or -EINVAL.
 */
int lnetd_xprt_uids(const char *list);
/* Listen and serve on a thread of its own: 0 or -errno. */
int lnetd_xprt_start(void);
/* Detach every client and stop (before LNet goes down); nothing if not started. */
void lnetd_xprt_shutdown(void);
/* /lnet/xprt_clients. */
int lnetd_xprt_register(void);

/* lnetd_telemetry.c: register the /lnet/... telemetry commands. */
int lnetd_telemetry_register(void);

/* lnetd_tel_gate.c: every command runs holding LNet (lnet_ctl_hold), so LNetNIFini waits for it. */
int lnetd_telemetry_add(const char *cmd, telemetry_cb fn, const char *help);
/* "key=value,key=value" lookup in a request's parameters. */
bool lnetd_param(const char *params, const char *key, char *val, size_t len);
/* The reply's status: {"status": rc, "descr": ...}; returns 0. */
int lnetd_reply_status(struct rte_tel_data *d, int rc, const char *descr);

/* lnetd_fault.c: /lnet/fault_{drop,delay}_{add,del,reset,show} (lnetctl fault). */
int lnetd_fault_register(void);

/* lnetd_udsp.c: /lnet/udsp_{add,del,show,stats} (lnetctl udsp). */
int lnetd_udsp_register(void);

/*
 * lnetd_route.c: /lnet/route_{add,del,show}, /lnet/routing_{show,set},
 * /lnet/buffers_set (lnetctl route, routing show, set routing|*_buffers).
 */
int lnetd_route_register(void);
/* The kernel's words for a refusal @p rc of route add (its route command's). */
const char *lnetd_route_add_descr(int rc);
/* --lnet-params "NAME=VALUE,...": checked; with @p apply, set (lnet_ctl_param_set). */
int lnetd_lnet_params(const char *list, bool apply, char *err, size_t errlen);

/* lnetd_capture.c: /lnet/capture_start|stop|show. */
int lnetd_capture_register(void);
/* Stop a running capture (before LNet goes down). */
void lnetd_capture_shutdown(void);

/* lnetd_nets.c: NIs from the configuration model. */
struct lnet_lnd_ops;
/* The LND of net type @p type_name ("tcp"); NULL with @p err naming the type. */
const struct lnet_lnd_ops *lnetd_lnd_by_name(const char *type_name, char *err, size_t errlen);
/* Module parameters "NAME=VALUE,..." for the LND of net type @p type_name (its params_set). */
int lnetd_lnd_params(const char *type_name, const char *list, char *err, size_t errlen);
int lnetd_if_nid(const char *ifname, uint32_t net, struct lnet_nid *nid);
int lnetd_ni_add(const struct lnetcfg_ni *spec, char *err, size_t errlen);
/* What lnetd_ni_add() would refuse, without changing anything. */
int lnetd_ni_check(const struct lnetcfg_ni *spec, char *err, size_t errlen);
/* lnetd_ports.c: the configuration's ports: under the userspace TCP, named for tcp NIs. */
int lnetd_ports_open(const struct lnetcfg *cfg, char *err, size_t errlen);
/* Delete the NIs on the ports, then close them (before LNetNIFini). */
void lnetd_ports_close(void);
/* The address (host order) of the port named @p name: false when none is. */
bool lnetd_port_addr(const char *name, uint32_t *addr);
/* The name of the port holding @p addr (host order), or NULL. */
const char *lnetd_port_of_addr(uint32_t addr);
/* Delete the NIs of @p net, only the one on @p ifname or with @p nid when given. */
int lnetd_ni_del(uint32_t net, const char *ifname, const struct lnet_nid *nid, bool push, char *err,
		 size_t errlen);

/*
 * lnetd_service.c: the main thread under a service manager (sd_notify
 * READY/STATUS/STOPPING, the watchdog fed while every lcore makes progress,
 * SIGHUP re-applying --config). The signals main() blocks and waits for.
 */
void lnetd_service_sigset(sigset_t *set);
/* Ready, then serve until SIGINT or SIGTERM, which it returns. */
int lnetd_service_run(const struct lnetd_opts *o);
/* Give messages in flight up to @p bound_ms to complete (before LNetNIFini). */
void lnetd_service_drain(const struct lnetd_opts *o, unsigned int bound_ms);

/* The embedded config/default.yaml (generated). */
extern const char lnetd_default_yaml[];

#endif /* LNETD_H */
