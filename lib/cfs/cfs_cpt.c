/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CPU partitions: which CPUs (and so NUMA nodes) each CPT has, and the
 * distance between CPTs: the maximum node distance over their nodes
 * (seed 000, "NUMA distance").
 */
#include <ctype.h>
#include <errno.h>
#include <numa.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs.h"
#include "cfs_internal.h"

#define CFS_CPT_MAX 256U

struct cfs_cpt {
	unsigned int ncpus;
	int *cpus;      /* ascending */
	uint8_t *nodes; /* [nnodes]: 1 if the CPT has a CPU there */
};

struct cfs_cpt_table {
	unsigned int ncpts;
	unsigned int ncpus;
	unsigned int nnodes;
	int *cpu_cpt; /* [ncpus] */
	struct cfs_cpt *cpts;
	unsigned int *distance; /* [ncpts * ncpts] */
};

int
cfs_topology_from_libnuma(struct cfs_topology **out)
{
	struct cfs_topology *t = calloc(1, sizeof(*t));
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	bool numa = numa_available() >= 0;
	unsigned int i;
	unsigned int j;

	if (t == NULL || ncpus <= 0) {
		free(t);
		return t == NULL ? -ENOMEM : -ENODEV;
	}
	t->ncpus = (unsigned int)ncpus;
	t->nnodes = numa ? (unsigned int)numa_max_node() + 1 : 1;
	t->cpu_node = calloc(t->ncpus, sizeof(*t->cpu_node));
	t->node_distance = calloc((size_t)t->nnodes * t->nnodes, sizeof(*t->node_distance));
	if (t->cpu_node == NULL || t->node_distance == NULL) {
		cfs_topology_free(t);
		return -ENOMEM;
	}
	for (i = 0; i < t->ncpus; i++) {
		t->cpu_node[i] = numa ? numa_node_of_cpu((int)i) : 0;
	}
	for (i = 0; i < t->nnodes; i++) {
		for (j = 0; j < t->nnodes; j++) {
			int d = numa ? numa_distance((int)i, (int)j) : 10;

			t->node_distance[i * t->nnodes + j] = d > 0 ? (unsigned int)d : 10;
		}
	}
	*out = t;
	return 0;
}

void
cfs_topology_free(struct cfs_topology *topo)
{
	if (topo == NULL) {
		return;
	}
	free(topo->cpu_node);
	free(topo->node_distance);
	free(topo);
}

void
cfs_cpt_table_free(struct cfs_cpt_table *t)
{
	unsigned int i;

	if (t == NULL) {
		return;
	}
	for (i = 0; t->cpts != NULL && i < t->ncpts; i++) {
		free(t->cpts[i].cpus);
		free(t->cpts[i].nodes);
	}
	free(t->cpts);
	free(t->cpu_cpt);
	free(t->distance);
	free(t);
}

static struct cfs_cpt_table *
cfs_cpt_table_alloc(const struct cfs_topology *topo, unsigned int ncpts)
{
	struct cfs_cpt_table *t = calloc(1, sizeof(*t));
	unsigned int i;

	if (t == NULL) {
		return NULL;
	}
	t->ncpts = ncpts;
	t->ncpus = topo->ncpus;
	t->nnodes = topo->nnodes;
	t->cpu_cpt = malloc(topo->ncpus * sizeof(*t->cpu_cpt));
	t->cpts = calloc(ncpts, sizeof(*t->cpts));
	t->distance = calloc((size_t)ncpts * ncpts, sizeof(*t->distance));
	if (t->cpu_cpt == NULL || t->cpts == NULL || t->distance == NULL) {
		cfs_cpt_table_free(t);
		return NULL;
	}
	for (i = 0; i < topo->ncpus; i++) {
		t->cpu_cpt[i] = -1;
	}
	for (i = 0; i < ncpts; i++) {
		t->cpts[i].cpus = calloc(topo->ncpus, sizeof(int));
		t->cpts[i].nodes = calloc(topo->nnodes, 1);
		if (t->cpts[i].cpus == NULL || t->cpts[i].nodes == NULL) {
			cfs_cpt_table_free(t);
			return NULL;
		}
	}
	return t;
}

static int
cfs_cpt_add_cpu(struct cfs_cpt_table *t, const struct cfs_topology *topo, unsigned int cpt,
		unsigned int cpu, char *err, size_t errlen)
{
	struct cfs_cpt *c = &t->cpts[cpt];

	if (cpu >= topo->ncpus || topo->cpu_node[cpu] < 0) {
		return cfs_err(err, errlen, "CPU %u does not exist", cpu);
	}
	if (t->cpu_cpt[cpu] >= 0) {
		return cfs_err(err, errlen, "CPU %u is in CPT %d and CPT %u", cpu, t->cpu_cpt[cpu],
			       cpt);
	}
	t->cpu_cpt[cpu] = (int)cpt;
	c->cpus[c->ncpus++] = (int)cpu;
	c->nodes[topo->cpu_node[cpu]] = 1;
	return 0;
}

/* Distance between CPTs: the largest over every pair of their nodes. */
static void
cfs_cpt_distances(struct cfs_cpt_table *t, const struct cfs_topology *topo)
{
	unsigned int a, b, n1, n2;

	for (a = 0; a < t->ncpts; a++) {
		for (b = 0; b < t->ncpts; b++) {
			unsigned int d = 0;

			for (n1 = 0; n1 < t->nnodes; n1++) {
				for (n2 = 0; n2 < t->nnodes; n2++) {
					unsigned int x = topo->node_distance[n1 * t->nnodes + n2];

					if (t->cpts[a].nodes[n1] && t->cpts[b].nodes[n2] && x > d) {
						d = x;
					}
				}
			}
			t->distance[a * t->ncpts + b] = d;
		}
	}
}

/* No pattern: one CPT per node with CPUs, or @p ncpt CPTs sharing CPUs evenly. */
static int
cfs_cpt_table_default(const struct cfs_topology *topo, unsigned int ncpt,
		      struct cfs_cpt_table **out, char *err, size_t errlen)
{
	unsigned int *node_cpt = calloc(topo->nnodes, sizeof(*node_cpt));
	struct cfs_cpt_table *t = NULL;
	unsigned int nnodes_used = 0;
	unsigned int nonline = 0;
	unsigned int n = 0;
	unsigned int i;
	int rc = 0;

	if (node_cpt == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < topo->ncpus; i++) {
		int node = topo->cpu_node[i];

		if (node >= 0 && node_cpt[node] == 0) {
			node_cpt[node] = ++nnodes_used; /* 1-based: 0 means unseen */
		}
		nonline += node >= 0;
	}
	if (ncpt == 0) {
		ncpt = nnodes_used;
	}
	if (ncpt == 0 || ncpt > nonline || ncpt > CFS_CPT_MAX) {
		free(node_cpt);
		return cfs_err(err, errlen, "cannot make %u CPTs from %u online CPUs", ncpt,
			       nonline);
	}
	t = cfs_cpt_table_alloc(topo, ncpt);
	for (i = 0; t != NULL && rc == 0 && i < topo->ncpus; i++) {
		int node = topo->cpu_node[i];
		unsigned int cpt;

		if (node < 0) {
			continue;
		}
		cpt = ncpt == nnodes_used ? node_cpt[node] - 1 : n * ncpt / nonline;
		rc = cfs_cpt_add_cpu(t, topo, cpt, i, err, errlen);
		n++;
	}
	free(node_cpt);
	if (t == NULL) {
		return -ENOMEM;
	}
	*out = t;
	return rc;
}

/* Add every CPU of @p node to @p cpt. */
static int
cfs_cpt_add_node(struct cfs_cpt_table *t, const struct cfs_topology *topo, unsigned int cpt,
		 uint32_t node, char *err, size_t errlen)
{
	unsigned int i;
	int rc = 0;
	bool any = false;

	if (node >= topo->nnodes) {
		return cfs_err(err, errlen, "node %u does not exist", node);
	}
	for (i = 0; rc == 0 && i < topo->ncpus; i++) {
		if (topo->cpu_node[i] == (int)node) {
			rc = cfs_cpt_add_cpu(t, topo, cpt, i, err, errlen);
			any = true;
		}
	}
	return rc == 0 && !any ? cfs_err(err, errlen, "node %u has no CPU", node) : rc;
}

/* One "<cpt>[<list>]" item. */
static int
cfs_cpt_pattern_item(struct cfs_cpt_table *t, const struct cfs_topology *topo, const char *item,
		     bool nodes, char *err, size_t errlen)
{
	const char *br = strchr(item, '[');
	struct cfs_expr_list *el = NULL;
	char num[16];
	uint32_t cpt;
	uint32_t *vals = NULL;
	int nvals;
	int i;
	int rc = 0;

	if (br == NULL || (size_t)(br - item) >= sizeof(num) || br == item) {
		return cfs_err(err, errlen, "\"%s\": expected <cpt>[<list>]", item);
	}
	memcpy(num, item, (size_t)(br - item));
	num[br - item] = '\0';
	if (!cfs_parse_u32(num, t->ncpts - 1, &cpt)) {
		return cfs_err(err, errlen, "\"%s\": CPT must be 0-%u in order", item,
			       t->ncpts - 1);
	}
	if (cfs_expr_list_parse(br, strlen(br), 0, (nodes ? topo->nnodes : topo->ncpus) - 1, &el) !=
	    0) {
		return cfs_err(err, errlen, "\"%s\": bad or out-of-range %s list", item,
			       nodes ? "node" : "CPU");
	}
	nvals = cfs_expr_list_values(el, nodes ? topo->nnodes : topo->ncpus, &vals);
	cfs_expr_list_free(el);
	for (i = 0; rc == 0 && i < nvals; i++) {
		rc = nodes ? cfs_cpt_add_node(t, topo, cpt, vals[i], err, errlen) :
			     cfs_cpt_add_cpu(t, topo, cpt, vals[i], err, errlen);
	}
	free(vals);
	return nvals < 0 ? nvals : rc;
}

/* "0[0,1] 1[2,3]" or "N 0[0] 1[1]" (kernel cpu_pattern). */
static int
cfs_cpt_table_pattern(const struct cfs_topology *topo, const char *pattern,
		      struct cfs_cpt_table **out, char *err, size_t errlen)
{
	char *copy = strdup(pattern);
	char *items[CFS_CPT_MAX];
	unsigned int n = 0;
	bool nodes = false;
	char *save = NULL;
	char *tok;
	struct cfs_cpt_table *t;
	unsigned int i;
	int rc = 0;

	if (copy == NULL) {
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		if (n == 0 && !nodes && strcmp(tok, "N") == 0) {
			nodes = true;
		} else if (n < CFS_CPT_MAX) {
			items[n++] = tok;
		} else {
			rc = cfs_err(err, errlen, "more than %u CPTs", CFS_CPT_MAX);
		}
	}
	t = rc == 0 && n > 0 ? cfs_cpt_table_alloc(topo, n) : NULL;
	if (rc == 0 && n == 0) {
		rc = cfs_err(err, errlen, "empty CPU pattern");
	} else if (rc == 0 && t == NULL) {
		rc = -ENOMEM;
	}
	for (i = 0; rc == 0 && i < n; i++) {
		rc = cfs_cpt_pattern_item(t, topo, items[i], nodes, err, errlen);
	}
	for (i = 0; rc == 0 && i < n; i++) {
		if (t->cpts[i].ncpus == 0) {
			rc = cfs_err(err, errlen, "CPT %u has no CPU", i);
		}
	}
	free(copy);
	if (rc != 0) {
		cfs_cpt_table_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

static int
cfs_int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int
cfs_cpt_table_create(const struct cfs_topology *topo, const char *pattern, unsigned int ncpt_hint,
		     struct cfs_cpt_table **out, char *err, size_t errlen)
{
	struct cfs_cpt_table *t = NULL;
	unsigned int i;
	int rc;

	if (topo == NULL || out == NULL || topo->ncpus == 0 || topo->nnodes == 0) {
		return cfs_err(err, errlen, "no topology");
	}
	if (pattern == NULL || pattern[strspn(pattern, " \t")] == '\0') {
		rc = cfs_cpt_table_default(topo, ncpt_hint, &t, err, errlen);
	} else {
		rc = cfs_cpt_table_pattern(topo, pattern, &t, err, errlen);
	}
	if (rc != 0) {
		cfs_cpt_table_free(t);
		return rc;
	}
	for (i = 0; i < t->ncpts; i++) {
		qsort(t->cpts[i].cpus, t->cpts[i].ncpus, sizeof(int), cfs_int_cmp);
	}
	cfs_cpt_distances(t, topo);
	*out = t;
	return 0;
}

unsigned int
cfs_cpt_number(const struct cfs_cpt_table *t)
{
	return t->ncpts;
}

int
cfs_cpt_of_cpu(const struct cfs_cpt_table *t, unsigned int cpu)
{
	return cpu < t->ncpus ? t->cpu_cpt[cpu] : -1;
}

int
cfs_cpt_of_node(const struct cfs_cpt_table *t, int node)
{
	unsigned int i;

	for (i = 0; node >= 0 && (unsigned int)node < t->nnodes && i < t->ncpts; i++) {
		if (t->cpts[i].nodes[node]) {
			return (int)i;
		}
	}
	return -1;
}

unsigned int
cfs_cpt_distance(const struct cfs_cpt_table *t, int cpt1, int cpt2)
{
	unsigned int max = 0;
	unsigned int i;

	if (cpt1 == CFS_CPT_ANY || cpt2 == CFS_CPT_ANY) {
		for (i = 0; i < t->ncpts * t->ncpts; i++) {
			max = t->distance[i] > max ? t->distance[i] : max;
		}
		return max;
	}
	if (cpt1 < 0 || cpt2 < 0 || (unsigned int)cpt1 >= t->ncpts ||
	    (unsigned int)cpt2 >= t->ncpts) {
		return 0;
	}
	return t->distance[(unsigned int)cpt1 * t->ncpts + (unsigned int)cpt2];
}

int
cfs_cpt_cpus(const struct cfs_cpt_table *t, int cpt, int *cpus, unsigned int max)
{
	const struct cfs_cpt *c;
	unsigned int n;

	if (cpt < 0 || (unsigned int)cpt >= t->ncpts) {
		return -EINVAL;
	}
	c = &t->cpts[cpt];
	n = c->ncpus < max ? c->ncpus : max;
	memcpy(cpus, c->cpus, n * sizeof(int));
	return (int)n;
}

static int
cfs_buf_printf(char *buf, size_t len, size_t *off, const char *what, unsigned int a, unsigned int b)
{
	int w;

	/* Literal formats only (-Wformat-nonliteral). */
	if (strcmp(what, "cpt") == 0) {
		w = snprintf(buf + *off, len - *off, "%u\t:", a);
	} else if (strcmp(what, "cpu") == 0) {
		w = snprintf(buf + *off, len - *off, " %u", a);
	} else if (strcmp(what, "dist") == 0) {
		w = snprintf(buf + *off, len - *off, " %u:%u", a, b);
	} else {
		w = snprintf(buf + *off, len - *off, "\n");
	}
	if (w < 0 || (size_t)w >= len - *off) {
		return -ENOSPC;
	}
	*off += (size_t)w;
	return 0;
}

int
cfs_cpt_table_print(const struct cfs_cpt_table *t, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;
	unsigned int j;
	int rc = len == 0 ? -ENOSPC : 0;

	for (i = 0; rc == 0 && i < t->ncpts; i++) {
		rc = cfs_buf_printf(buf, len, &off, "cpt", i, 0);
		for (j = 0; rc == 0 && j < t->cpts[i].ncpus; j++) {
			rc = cfs_buf_printf(buf, len, &off, "cpu", (unsigned int)t->cpts[i].cpus[j],
					    0);
		}
		if (rc == 0) {
			rc = cfs_buf_printf(buf, len, &off, "nl", 0, 0);
		}
	}
	return rc == 0 ? (int)off : rc;
}

int
cfs_cpt_distance_print(const struct cfs_cpt_table *t, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;
	unsigned int j;
	int rc = len == 0 ? -ENOSPC : 0;

	for (i = 0; rc == 0 && i < t->ncpts; i++) {
		rc = cfs_buf_printf(buf, len, &off, "cpt", i, 0);
		for (j = 0; rc == 0 && j < t->ncpts; j++) {
			rc = cfs_buf_printf(buf, len, &off, "dist", j,
					    t->distance[i * t->ncpts + j]);
		}
		if (rc == 0) {
			rc = cfs_buf_printf(buf, len, &off, "nl", 0, 0);
		}
	}
	return rc == 0 ? (int)off : rc;
}

/*
 * A 64-bit multiplicative (Fibonacci) hash of the NID's bytes: stable
 * across runs and machines, and consecutive IPv4 addresses spread evenly.
 */
unsigned int
lnet_nid_cpt_hash(const struct lnet_nid *nid, unsigned int ncpts)
{
	uint64_t key = ((uint64_t)nid->nid_type << 48) ^ ((uint64_t)ntohs(nid->nid_num) << 32);
	unsigned int i;

	if (ncpts <= 1) {
		return 0;
	}
	for (i = 0; i < lnet_nid_addr_bytes(nid) / 4 && i < LNET_NID_ADDR_WORDS; i++) {
		key = (key ^ ntohl(nid->nid_addr[i])) * 0x9e3779b97f4a7c15ULL;
	}
	return (unsigned int)((key >> 32) % ncpts);
}

/* An interface name that cannot climb out of class/net (no '/', not "." or ".."). */
static bool
cfs_ifname_is_plain(const char *ifname)
{
	return ifname != NULL && ifname[0] != '\0' && strchr(ifname, '/') == NULL &&
	       strcmp(ifname, ".") != 0 && strcmp(ifname, "..") != 0;
}

int
cfs_if_numa_node(const char *sysfs, const char *ifname)
{
	char path[512];
	char line[32];
	char *end;
	long node;
	FILE *f;

	if (!cfs_ifname_is_plain(ifname) ||
	    (size_t)snprintf(path, sizeof(path), "%s/class/net/%s/device/numa_node",
			     sysfs != NULL ? sysfs : "/sys", ifname) >= sizeof(path)) {
		return -1;
	}
	f = fopen(path, "r");
	if (f == NULL) {
		return -1; /* no device behind it: a virtual interface */
	}
	if (fgets(line, sizeof(line), f) == NULL) {
		line[0] = '\0';
	}
	fclose(f);
	errno = 0;
	node = strtol(line, &end, 10);
	if (end == line || (*end != '\0' && *end != '\n') || errno != 0 || node < -1 ||
	    node > 4096) {
		return -1;
	}
	return (int)node;
}
