/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration model both programs read: a YAML file in `lnetctl
 * export` format (lnet-facts §12.9) parsed into nets, peers and globals,
 * every error reported with origin:line:column. lnetd-pmd applies it at
 * start-up (--config); lnetctl applies it over telemetry (import).
 * Checks that need the running node (which globals it can change, which
 * interfaces exist) are the caller's, through lnetcfg_error().
 */
#ifndef LNETCFG_H
#define LNETCFG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "cfs_nid.h"

#define LNETCFG_UNSET INT_MIN /* an integer the file did not set */
#define LNETCFG_IFNAMSIZ 16
#define LNETCFG_PEER_NIS 64
#define LNETCFG_MAX_GLOBALS 32
#define LNETCFG_RULE_LEN 512       /* one ip2nets item as a cfs_ip2nets rule */
#define LNETCFG_UDSP_DESCR_LEN 256 /* one UDSP descriptor ("10.0.0.[1-4]@tcp[1-2]") */

struct lnetcfg_loc {
	size_t line;
	size_t col;
};

/* One local NI: `net type` plus one `local NI(s)` item. */
struct lnetcfg_ni {
	uint32_t net;
	bool has_nid;
	struct lnet_nid nid;
	char ifname[LNETCFG_IFNAMSIZ]; /* "" when none given */
	int peer_timeout;              /* tunables; LNETCFG_UNSET: the LND's default */
	int peer_credits;
	int peer_buffer_credits;
	int credits;
	int conns_per_peer; /* lnd tunables */
	int lnd_timeout;
	int tos;
	int cpt; /* first CPT of "CPT", or LNETCFG_UNSET */
	struct lnetcfg_loc at;
};

struct lnetcfg_peer {
	struct lnet_nid prim;
	bool mr;
	unsigned int nnis; /* secondary NIDs */
	struct lnet_nid nis[LNETCFG_PEER_NIS];
	bool has_ni_list;             /* a "peer ni" list was given */
	bool lists_prim;              /* ... and it names the primary NID */
	unsigned int nis_before_prim; /* nis[] that come before it there (all when it does not) */
	struct lnetcfg_loc at;
};

struct lnetcfg_global {
	char key[32];
	long value;
	struct lnetcfg_loc at;
};

/*
 * One ip2nets: item, as the cfs_ip2nets rule "net(if,...) range ...": it
 * becomes NIs (with @p base's tunables) on the interfaces of this node it
 * matches, when lnetcfg_ip2nets_resolve() is given them.
 */
struct lnetcfg_ip2net {
	char rule[LNETCFG_RULE_LEN];
	struct lnetcfg_ni base;
};

/*
 * One udsp: item (lnet-facts §10), as `lnetctl udsp show` prints it:
 * idx, src/dst/rte descriptors, and the priority under action: (the
 * kernel's import also reads it beside the descriptors). A rule with no
 * priority is the kernel's "pref" action.
 */
struct lnetcfg_udsp {
	long idx;                         /* -1: none given (the rule is appended) */
	char src[LNETCFG_UDSP_DESCR_LEN]; /* "" when absent */
	char dst[LNETCFG_UDSP_DESCR_LEN];
	char rte[LNETCFG_UDSP_DESCR_LEN];
	long priority; /* -1: none */
	struct lnetcfg_loc at;
};

/*
 * One route: item (lnet-facts §12.5), as `lnetctl export` prints it. The
 * checks are those the kernel's route command makes on what import sends
 * (net, gateway, hop, priority, state), in its words; state and type,
 * which a full export prints, are read past as the kernel does.
 */
struct lnetcfg_route {
	uint32_t net; /* the remote net */
	struct lnet_nid gateway;
	long hops;               /* 1..255, or -1: none (shown as -1) */
	long priority;           /* 0 when none, as the kernel's */
	long health_sensitivity; /* 0 when none (the router_sensitivity global) */
	struct lnetcfg_loc at;
};

/*
 * One ports: item, lnetd-pmd's own section (no kernel has one): a DPDK
 * device under the userspace TCP, and the name `net add --if` gives for
 * an NI on it.
 *
 *   ports:
 *     - name: eth0
 *       device: net_af_packet0,iface=veth1    # EAL device arguments
 *       address: 10.0.0.2/24
 *       gateway: 10.0.0.1                      # optional
 */
#define LNETCFG_PORTS_MAX 8
#define LNETCFG_PORT_NAME_LEN 16

struct lnetcfg_port {
	char name[LNETCFG_PORT_NAME_LEN];
	char device[256];
	uint32_t addr;    /* host order */
	uint8_t prefix;   /* 1..32 */
	uint32_t gateway; /* host order; 0: none */
	struct lnetcfg_loc at;
};

/* Router buffer pools, in the kernel's order (buffers: tiny, small, large). */
#define LNETCFG_RTR_POOLS 3
extern const char *const lnetcfg_rtr_pool_names[LNETCFG_RTR_POOLS];

typedef void (*lnetcfg_report_fn)(void *arg, const char *msg);

struct lnetcfg {
	const char *origin;       /* file name in messages */
	lnetcfg_report_fn report; /* each error, "origin:line:col: what" */
	void *arg;
	/* Keys the kernel's import ignores with a warning ("Ignoring unrecognized key ..."). */
	lnetcfg_report_fn warn;
	unsigned int nerrors;
	/*
	 * The first error as 2.17's import (jt_import, lnetctl.c) reports it,
	 * when it has a form there: kerr its errno (0: none), kdescr the
	 * netlink block's descr; kerr_silent when the kernel's import prints
	 * nothing and ends with kerr (its library refusing a udsp rule).
	 */
	int kerr;
	bool kerr_silent;
	char kdescr[160];
	bool syntax;            /* the file is not YAML: report() had libyaml's words */
	struct lnetcfg_ni *nis; /* non-lo NIs; lo is always there */
	unsigned int nnis;
	unsigned int nis_cap;
	struct lnetcfg_peer *peers;
	unsigned int npeers;
	unsigned int peers_cap;
	struct lnetcfg_global globals[LNETCFG_MAX_GLOBALS];
	unsigned int nglobals;
	struct lnetcfg_ip2net *ip2nets;
	unsigned int nip2nets;
	unsigned int ip2nets_cap;
	/*
	 * Set before parsing for import --del: a udsp: item then only names an
	 * index (as the kernel's import --del reads it), its descriptors unchecked.
	 */
	bool udsp_del;
	/*
	 * Set before parsing for import --exec: ping: and discover: are then
	 * the netlink sections, and peer:, route:, routing:, buffers: and
	 * numa: keys read as global settings (2.17's find_command_mapping).
	 */
	bool import_exec;
	struct lnetcfg_udsp *udsps; /* in file order */
	unsigned int nudsps;
	unsigned int udsps_cap;
	struct lnetcfg_route *routes; /* in file order */
	unsigned int nroutes;
	unsigned int routes_cap;
	struct lnetcfg_port ports[LNETCFG_PORTS_MAX]; /* ports: in file order */
	unsigned int nports;
	/*
	 * routing: in either form export prints (--backup's mapping "enable:
	 * N", or the sequence of cpt[N] items then "enable: N"): 1 to route,
	 * 0 not to, LNETCFG_UNSET when the file has no routing: section.
	 */
	int routing;
	struct lnetcfg_loc routing_at;
	/*
	 * buffers: the totals over all CPTs, 0 for a pool the section leaves
	 * out (the kernel's import sets those back to their defaults).
	 */
	bool has_buffers;
	int buffers[LNETCFG_RTR_POOLS];
	struct lnetcfg_loc buffers_at;
	/*
	 * Section by section (lnetctl import): when set, each top-level
	 * section is read on its own, in file order, and handed to section()
	 * with its name ("global" for a global setting written at the top
	 * level, or a key import reads as one); the lists, the errors and the
	 * kernel error above then hold that section alone. Reading a list
	 * stops at its first error, so what the lists hold is what comes
	 * before it. A nonzero return ends the parse, which returns it.
	 */
	int (*section)(struct lnetcfg *cfg, const char *name, void *arg);
	/*
	 * section()'s name LNETCFG_WRITER_ERROR: a key that is no section
	 * follows a netlink one (peer:, route:, routing:, buffers:, numa:).
	 * 2.17's import puts it into that section's netlink message, which
	 * then cannot be written (no multicast group of its name): neither
	 * is applied, and the import ends there.
	 */
	/*
	 * The section's list ends here without an error: 2.17's kernel stops
	 * reading peer: at an item with no primary NID and reports success.
	 */
	bool cut;
};

#define LNETCFG_WRITER_ERROR "\x01writer"

/* The global settings a file may name, in `global show` order. */
extern const char *const lnetcfg_global_keys[];
extern const unsigned int lnetcfg_nglobal_keys;

void lnetcfg_init(struct lnetcfg *cfg, const char *origin, lnetcfg_report_fn report, void *arg);
/*
 * Parse @p text; 0, or -EINVAL after reporting every error found. With
 * section() set: what the last section() call returned (0 when all went).
 */
int lnetcfg_parse(struct lnetcfg *cfg, const char *text, size_t len);
/* Read a whole file ("-": stdin) and parse it. */
int lnetcfg_parse_file(struct lnetcfg *cfg, const char *path);
void lnetcfg_error(struct lnetcfg *cfg, const struct lnetcfg_loc *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void lnetcfg_fini(struct lnetcfg *cfg);
/*
 * The ip2nets: items against this node's interfaces: each matching
 * interface becomes one more NI (an item's net already configured by an
 * earlier item is skipped, as the kernel does). 0, or -EINVAL after
 * reporting (no item matches anything).
 */
struct cfs_ifaddr;
int lnetcfg_ip2nets_resolve(struct lnetcfg *cfg, const struct cfs_ifaddr *ifs, unsigned int nifs);
/* The same against the interfaces of the host this runs on (both programs run on the node). */
void lnetcfg_ip2nets_resolve_here(struct lnetcfg *cfg);
/* An NI with nothing set: every field LNETCFG_UNSET. */
void lnetcfg_ni_init(struct lnetcfg_ni *ni, uint32_t net);

/*
 * A UDSP descriptor in the grammar of the kernel's cfs_parse_nid_parts:
 * "NET" (an LND name then nothing, a number, "*" or "[...]") or
 * "ADDR@NET", ADDR an address range of that LND ("10.0.0.[1-4]", "*").
 * The node checks rules fully; this catches what it would refuse to
 * parse before anything changes.
 */
bool lnetcfg_udsp_descr_ok(const char *descr);

/* libyaml document helpers: a scalar's text, a mapping's value by key. */
const char *lnetcfg_scalar(const yaml_node_t *n);
yaml_node_t *lnetcfg_yaml_get(yaml_document_t *doc, const yaml_node_t *map, const char *key);

#endif /* LNETCFG_H */
