/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * libcfs equivalents: NID and net strings (lnet-facts §1), expression lists
 * and NID ranges as lnetctl accepts them, ip2nets rules (seed 000), and the
 * CPU partition (CPT) table with NUMA distances. Pure C and libnuma.
 */
#ifndef CFS_H
#define CFS_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs_nid.h"
#include "lnp_api.h"
#include "nidstr.h" /* LNET_NIDSTR_SIZE, libcfs_nidstr(_r), libcfs_strnid */

LNP_BEGIN_DECLS

/* ---- NID and net strings (cfs_nidstr.c; the exported ones are in nidstr.h) ---- */

/** Name of LND type @p lnd ("tcp", "o2ib", "lo", ...), NULL if unknown. */
LNP_API const char *libcfs_lnd2str(int lnd);
/** LND type of a name, -1 if unknown. */
LNP_API int libcfs_str2lnd(const char *str);
/** True for LNDs whose addresses are IP addresses (tcp, o2ib). */
LNP_API bool cfs_lnd_is_ip(int lnd);

/** "tcp", "tcp1", "o2ib100", "<type:num>" for unknown LNDs. Returns @p buf. */
LNP_API char *libcfs_net2str_r(uint32_t net, char *buf, size_t len);
/** A 64-bit NID as a string; "<?>" for LNET_NID_ANY. */
LNP_API char *libcfs_nid2str_r(lnet_nid_t nid, char *buf, size_t len);
/** "[U]<pid>-<nid>": U when LNET_PID_USERFLAG is set. */
LNP_API char *libcfs_idstr_r(const struct lnet_processid *id, char *buf, size_t len);

/** Convenience forms for logs: a small per-thread ring of buffers. */
LNP_API const char *libcfs_net2str(uint32_t net);
LNP_API const char *libcfs_nid2str(lnet_nid_t nid);
LNP_API const char *libcfs_idstr(const struct lnet_processid *id);

/** Parse a net ("tcp" == "tcp0"); LNET_NET_ANY when malformed. */
LNP_API uint32_t libcfs_str2net(const char *str);
/** As libcfs_strnid(), writing what is wrong into @p err (may be NULL). */
LNP_API int libcfs_strnid_err(struct lnet_nid *nid, const char *str, char *err, size_t errlen);
/** Parse a NID that fits 64 bits; LNET_NID_ANY when malformed or larger. */
LNP_API lnet_nid_t libcfs_str2nid(const char *str);
/** Parse "[U]<pid>-<nid>" (or a bare NID: pid LNET_PID_LUSTRE). 0 or -EINVAL. */
LNP_API int libcfs_strid(struct lnet_processid *id, const char *str);

/* ---- expression lists (cfs_expr.c) ---- */

struct cfs_expr_list;

/**
 * Parse "N", "*" or "[a-b/s,c,...]" with every value within [min, max].
 * @return 0, -EINVAL (malformed or out of range), -ENOMEM
 */
LNP_API int cfs_expr_list_parse(const char *str, size_t len, uint32_t min, uint32_t max,
				struct cfs_expr_list **out);
/** True when @p value is in the list. */
LNP_API bool cfs_expr_list_match(uint32_t value, const struct cfs_expr_list *el);
/** All values in order (caller frees *values): count, -E2BIG above @p max, -ENOMEM. */
LNP_API int cfs_expr_list_values(const struct cfs_expr_list *el, uint32_t max, uint32_t **values);
/** Print in canonical form ("3", "*", "[1-9/2,13]"); length or -ENOSPC. */
LNP_API int cfs_expr_list_print(char *buf, size_t len, const struct cfs_expr_list *el);
/** Free a list (NULL is fine). */
LNP_API void cfs_expr_list_free(struct cfs_expr_list *el);

/* ---- NID ranges (cfs_nidrange.c) ---- */

struct cfs_nidlist;

/**
 * Parse space-separated NID patterns: "10.0.0.[1-4]@tcp",
 * "[13-14/1].[13-15/2].13.13@o2ib", "[1-3]@gni", "*@tcp1", "fe80::1@tcp".
 * @return 0, -EINVAL, -ENOMEM
 */
LNP_API int cfs_parse_nidlist(const char *str, size_t len, struct cfs_nidlist **out);
/** True when @p nid matches any pattern. */
LNP_API bool cfs_match_nid(const struct lnet_nid *nid, const struct cfs_nidlist *nl);
/** Every NID the list names (caller frees): count, -E2BIG (over max, or '*'), -ENOMEM. */
LNP_API int cfs_nidlist_expand(const struct cfs_nidlist *nl, unsigned int max,
			       struct lnet_nid **nids);
/** Canonical text of the list; length or -ENOSPC. */
LNP_API int cfs_nidlist_print(char *buf, size_t len, const struct cfs_nidlist *nl);
/** Free a list (NULL is fine). */
LNP_API void cfs_free_nidlist(struct cfs_nidlist *nl);

/* ---- NID descriptors of UDSP rules (cfs_nidparts.c) ---- */

/** The longest descriptor text. */
#define CFS_NID_PARTS_LEN 256

/**
 * One of a UDSP rule's src, dst, rte: an LND type (0: the rule has no such
 * descriptor), the net numbers it takes (NULL: number 0 only, as "tcp"
 * means tcp0) and, for a NID descriptor, one expression list per address
 * part (4 for IP addresses, 1 for numeric ones; naddr 0: a net descriptor).
 * bounds: every list is one range of stride 1, matched by lo/hi alone.
 */
struct cfs_nid_parts {
	uint32_t net_type;
	struct cfs_expr_list *net_num;
	unsigned int naddr;
	struct cfs_expr_list *addr[4];
	bool bounds;
	uint32_t num_lo, num_hi;
	uint32_t lo[4], hi[4];
};

/**
 * Parse "NET", "NET*", "NET[range]", "ADDR@NET..." as the kernel's
 * cfs_parse_nid_parts: an IP address needs four parts, each a number, "*"
 * or "[...]"; numeric LNDs take one; a '[' after the LND name starts the
 * net numbers wherever it is ("tcp1[2]" is tcp2, as in the kernel).
 * @return 0, -EINVAL, -ENOMEM (@p d then absent)
 */
LNP_API int cfs_nid_parts_parse(const char *str, struct cfs_nid_parts *d);
LNP_API void cfs_nid_parts_fini(struct cfs_nid_parts *d);
static inline bool
cfs_nid_parts_present(const struct cfs_nid_parts *d)
{
	return d->net_type != 0;
}
/** The kernel lnetctl's print form ("" when absent): length, or -ENOSPC. */
LNP_API int cfs_nid_parts_print(const struct cfs_nid_parts *d, char *buf, size_t len);
/** cfs_match_net: @p net is of the type and its number is listed (0 when none is). */
LNP_API bool cfs_nid_parts_match_net(const struct cfs_nid_parts *d, uint32_t net);
/** cfs_match_nid_net: a NID descriptor whose address and net match @p nid (4-byte addresses). */
LNP_API bool cfs_nid_parts_match_nid(const struct cfs_nid_parts *d, const struct lnet_nid *nid);
/** The same descriptor (the kernel's lnet_udsp_nid_descr_equal). */
LNP_API bool cfs_nid_parts_same(const struct cfs_nid_parts *a, const struct cfs_nid_parts *b);
/**
 * The descriptors a UDSP rule may have, as the kernel's lnetctl library
 * checks them: NULL when the shape is fine, else its words ("Missing
 * required argument(s)", "src and rte cannot be combined", ...).
 */
LNP_API const char *cfs_udsp_shape_error(bool src, bool dst, bool rte);

/* ---- ip2nets (cfs_ip2nets.c) ---- */

/** A local interface address. */
struct cfs_ifaddr {
	char name[IF_NAMESIZE];
	int family;    /**< AF_INET or AF_INET6 */
	uint32_t ipv4; /**< host order */
	uint8_t ipv6[16];
};

/** One NI an ip2nets rule set selects. */
struct cfs_ip2nets_match {
	uint32_t net;
	char ifname[IF_NAMESIZE];
	struct cfs_ifaddr addr;
	char cpts[64]; /**< "[0,1]" from "eth0[0,1]", or "" */
};

struct cfs_ip2nets;

/**
 * Parse ip2nets rules: "<net>[(<if>[<cpts>],...)] <ip-range> ..." separated
 * by ';' or newlines, '#' comments. @p err says where and what is wrong.
 */
LNP_API int cfs_ip2nets_parse(const char *str, struct cfs_ip2nets **out, char *err, size_t errlen);
/**
 * Apply rules to @p ifs: every interface whose IPv4 address matches a rule
 * becomes a NI on that rule's net (the first matching rule of a net wins).
 * An interface named in a rule must match its pattern: else -EINVAL and
 * @p err explains. @return number of matches (up to @p max), or -errno.
 */
LNP_API int cfs_ip2nets_match(const struct cfs_ip2nets *rules, const struct cfs_ifaddr *ifs,
			      unsigned int nifs, struct cfs_ip2nets_match *out, unsigned int max,
			      char *err, size_t errlen);
/** Free rules (NULL is fine). */
LNP_API void cfs_ip2nets_free(struct cfs_ip2nets *rules);
/** The machine's up interfaces with IPv4/IPv6 addresses (caller frees). */
LNP_API int cfs_ifaddrs_get(struct cfs_ifaddr **ifs, unsigned int *n);

/* ---- CPU partitions (cfs_cpt.c) ---- */

/** Any CPT. */
#define CFS_CPT_ANY (-1)

/** Machine topology: which node each CPU is on, node distances. */
struct cfs_topology {
	unsigned int ncpus;
	int *cpu_node; /**< [ncpus]; -1 for an offline CPU */
	unsigned int nnodes;
	unsigned int *node_distance; /**< [nnodes * nnodes] */
};

struct cfs_cpt_table;

/** The topology from libnuma (one node, distance 10, without NUMA). */
LNP_API int cfs_topology_from_libnuma(struct cfs_topology **out);
/** Free a topology from cfs_topology_from_libnuma (NULL is fine). */
LNP_API void cfs_topology_free(struct cfs_topology *topo);

/**
 * Build the CPT table. @p pattern: NULL/"" for one CPT per node with CPUs
 * (or @p ncpt_hint CPTs sharing the CPUs evenly when non-zero); "0[0,1]
 * 1[2,3]" (CPU lists); "N 0[0] 1[1]" (node lists), as cpu_pattern.
 */
LNP_API int cfs_cpt_table_create(const struct cfs_topology *topo, const char *pattern,
				 unsigned int ncpt_hint, struct cfs_cpt_table **out, char *err,
				 size_t errlen);
LNP_API void cfs_cpt_table_free(struct cfs_cpt_table *t);
LNP_API unsigned int cfs_cpt_number(const struct cfs_cpt_table *t);
/** CPT of a CPU, -1 if none. */
LNP_API int cfs_cpt_of_cpu(const struct cfs_cpt_table *t, unsigned int cpu);
/** The (lowest) CPT holding CPUs of @p node, -1 if none. */
LNP_API int cfs_cpt_of_node(const struct cfs_cpt_table *t, int node);
/** Maximum node distance between two CPTs; the largest overall with CFS_CPT_ANY. */
LNP_API unsigned int cfs_cpt_distance(const struct cfs_cpt_table *t, int cpt1, int cpt2);
/** CPUs of @p cpt in order: count written (at most @p max), or -EINVAL. */
LNP_API int cfs_cpt_cpus(const struct cfs_cpt_table *t, int cpt, int *cpus, unsigned int max);
/** "0\t: 0 1\n1\t: 2 3\n": length or -ENOSPC. */
LNP_API int cfs_cpt_table_print(const struct cfs_cpt_table *t, char *buf, size_t len);
/** "0\t: 0:10 1:20\n...": length or -ENOSPC. */
LNP_API int cfs_cpt_distance_print(const struct cfs_cpt_table *t, char *buf, size_t len);

/**
 * NUMA node of network interface @p ifname's device, as the kernel's
 * dev_to_node() gives it: <sysfs>/class/net/IF/device/numa_node, -1 when
 * the interface has no device (veth, lo, dummy, bridges), the node is not
 * known, or the file cannot be read. @p sysfs: NULL for "/sys" (tests give
 * a tree of their own).
 */
LNP_API int cfs_if_numa_node(const char *sysfs, const char *ifname);

/** CPT a NID belongs to among @p ncpts (0 when ncpts <= 1). Deterministic. */
LNP_API unsigned int lnet_nid_cpt_hash(const struct lnet_nid *nid, unsigned int ncpts);

LNP_END_DECLS

#endif /* CFS_H */
