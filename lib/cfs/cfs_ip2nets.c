/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip2nets (seed 000): rules "<net>[(<if>[<cpts>],...)] <ip-range> ..."
 * separated by ';' or newlines, '#' to the end of a rule is a comment.
 * Matching happens in user space against the interfaces' addresses.
 */
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "cfs_internal.h"

#define CFS_IP2NETS_MAX_RULES 64
#define CFS_IP2NETS_MAX_IFS 16
#define CFS_IP2NETS_MAX_RANGES 16

struct cfs_ip2nets_if {
	char name[IF_NAMESIZE];
	char cpts[64];
};

struct cfs_ip2nets_rule {
	uint32_t net;
	unsigned int nifs;
	struct cfs_ip2nets_if ifs[CFS_IP2NETS_MAX_IFS];
	unsigned int nranges;
	struct cfs_expr_list *range[CFS_IP2NETS_MAX_RANGES][4];
};

struct cfs_ip2nets {
	unsigned int n;
	struct cfs_ip2nets_rule rules[CFS_IP2NETS_MAX_RULES];
};

void
cfs_ip2nets_free(struct cfs_ip2nets *rules)
{
	unsigned int i;
	unsigned int j;
	unsigned int k;

	if (rules == NULL) {
		return;
	}
	for (i = 0; i < rules->n; i++) {
		for (j = 0; j < rules->rules[i].nranges; j++) {
			for (k = 0; k < 4; k++) {
				cfs_expr_list_free(rules->rules[i].range[j][k]);
			}
		}
	}
	free(rules);
}

/* "eth0" or "eth0[0,1]" */
static int
cfs_ip2nets_if_parse(const char *tok, struct cfs_ip2nets_if *ifc, unsigned int rule, char *err,
		     size_t errlen)
{
	const char *br = strchr(tok, '[');
	size_t n = br == NULL ? strlen(tok) : (size_t)(br - tok);
	struct cfs_expr_list *el;

	memset(ifc, 0, sizeof(*ifc));
	if (n == 0 || n >= sizeof(ifc->name)) {
		return cfs_err(err, errlen, "rule %u: bad interface name \"%s\"", rule, tok);
	}
	memcpy(ifc->name, tok, n);
	if (br == NULL) {
		return 0;
	}
	if (cfs_expr_list_parse(br, strlen(br), 0, 255, &el) != 0) {
		return cfs_err(err, errlen, "rule %u: bad CPT list \"%s\"", rule, br);
	}
	cfs_expr_list_print(ifc->cpts, sizeof(ifc->cpts), el);
	cfs_expr_list_free(el);
	return 0;
}

/* "tcp" or "tcp1(eth0[0],eth1)" */
static int
cfs_ip2nets_netspec_parse(char *spec, struct cfs_ip2nets_rule *r, unsigned int rule, char *err,
			  size_t errlen)
{
	char *paren = strchr(spec, '(');
	char *save = NULL;
	char *tok;
	int depth = 0;
	char *p;

	if (paren != NULL) {
		size_t n = strlen(paren);

		if (paren[n - 1] != ')') {
			return cfs_err(err, errlen, "rule %u: missing ')' in \"%s\"", rule, spec);
		}
		paren[n - 1] = '\0';
		*paren++ = '\0';
		/* Commas inside CPT brackets are not interface separators. */
		for (p = paren; *p != '\0'; p++) {
			depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
			if (*p == ',' && depth > 0) {
				*p = ';';
			}
		}
	}
	if (cfs_parse_net(spec, &r->net) != 0) {
		return cfs_err(err, errlen, "rule %u: unknown network \"%s\"", rule, spec);
	}
	for (tok = paren == NULL ? NULL : strtok_r(paren, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		char name[80];

		for (p = tok; *p != '\0'; p++) {
			*p = *p == ';' ? ',' : *p;
		}
		if (r->nifs == CFS_IP2NETS_MAX_IFS ||
		    !cfs_trim(tok, strlen(tok), name, sizeof(name)) ||
		    cfs_ip2nets_if_parse(name, &r->ifs[r->nifs++], rule, err, errlen) != 0) {
			return cfs_err(err, errlen, "rule %u: bad interface list", rule);
		}
	}
	return paren != NULL && r->nifs == 0 ?
		       cfs_err(err, errlen, "rule %u: empty interface list", rule) :
		       0;
}

static int
cfs_ip2nets_range_parse(const char *tok, struct cfs_ip2nets_rule *r, unsigned int rule, char *err,
			size_t errlen)
{
	char parts[4][64];
	unsigned int k;

	if (r->nranges == CFS_IP2NETS_MAX_RANGES || cfs_split_dotted(tok, parts, 4) != 0) {
		return cfs_err(err, errlen, "rule %u: bad IP range \"%s\"", rule, tok);
	}
	for (k = 0; k < 4; k++) {
		if (cfs_expr_list_parse(parts[k], strlen(parts[k]), 0, 255,
					&r->range[r->nranges][k]) != 0) {
			r->nranges++;
			return cfs_err(err, errlen, "rule %u: bad IP range \"%s\"", rule, tok);
		}
	}
	r->nranges++;
	return 0;
}

/* One rule: net-spec then one or more IP ranges, blank separated. */
static int
cfs_ip2nets_rule_parse(char *text, struct cfs_ip2nets_rule *r, unsigned int rule, char *err,
		       size_t errlen)
{
	char *save = NULL;
	char *tok;
	int rc = 0;

	tok = strtok_r(text, " \t", &save);
	if (tok == NULL) {
		return cfs_err(err, errlen, "rule %u: empty", rule);
	}
	rc = cfs_ip2nets_netspec_parse(tok, r, rule, err, errlen);
	while (rc == 0 && (tok = strtok_r(NULL, " \t", &save)) != NULL) {
		rc = cfs_ip2nets_range_parse(tok, r, rule, err, errlen);
	}
	if (rc == 0 && r->nranges == 0) {
		rc = cfs_err(err, errlen, "rule %u: no IP range", rule);
	}
	return rc;
}

int
cfs_ip2nets_parse(const char *str, struct cfs_ip2nets **out, char *err, size_t errlen)
{
	struct cfs_ip2nets *rules;
	char *copy;
	char *save = NULL;
	char *line;
	int rc = 0;

	if (str == NULL || out == NULL) {
		return cfs_err(err, errlen, "no ip2nets rules");
	}
	copy = strdup(str);
	rules = calloc(1, sizeof(*rules));
	if (copy == NULL || rules == NULL) {
		free(copy);
		free(rules);
		return -ENOMEM;
	}
	for (line = strtok_r(copy, ";\n", &save); line != NULL && rc == 0;
	     line = strtok_r(NULL, ";\n", &save)) {
		char *hash = strchr(line, '#');
		char body[512];

		if (hash != NULL) {
			*hash = '\0';
		}
		if (!cfs_trim(line, strlen(line), body, sizeof(body))) {
			continue; /* blank or comment only */
		}
		if (rules->n == CFS_IP2NETS_MAX_RULES) {
			rc = cfs_err(err, errlen, "more than %d rules", CFS_IP2NETS_MAX_RULES);
			break;
		}
		rc = cfs_ip2nets_rule_parse(body, &rules->rules[rules->n], rules->n + 1, err,
					    errlen);
		rules->n++;
	}
	free(copy);
	if (rc == 0 && rules->n == 0) {
		rc = cfs_err(err, errlen, "no ip2nets rules");
	}
	if (rc != 0) {
		cfs_ip2nets_free(rules);
		return rc;
	}
	*out = rules;
	return 0;
}

static bool
cfs_rule_matches_ip(const struct cfs_ip2nets_rule *r, uint32_t ip)
{
	unsigned int i;
	unsigned int k;

	for (i = 0; i < r->nranges; i++) {
		for (k = 0; k < 4; k++) {
			if (!cfs_expr_list_match((ip >> (24 - 8 * k)) & 0xff, r->range[i][k])) {
				break;
			}
		}
		if (k == 4) {
			return true;
		}
	}
	return false;
}

static const struct cfs_ip2nets_if *
cfs_rule_if(const struct cfs_ip2nets_rule *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->nifs; i++) {
		if (strcmp(r->ifs[i].name, name) == 0) {
			return &r->ifs[i];
		}
	}
	return NULL;
}

/* A named interface must exist with an address the pattern accepts. */
static int
cfs_rule_check_named(const struct cfs_ip2nets_rule *r, const struct cfs_ifaddr *ifs,
		     unsigned int nifs, char *err, size_t errlen)
{
	char net[LNET_NIDSTR_SIZE];
	unsigned int i;
	unsigned int j;

	for (i = 0; i < r->nifs; i++) {
		bool found = false;

		for (j = 0; j < nifs && !found; j++) {
			found = ifs[j].family == AF_INET &&
				strcmp(ifs[j].name, r->ifs[i].name) == 0 &&
				cfs_rule_matches_ip(r, ifs[j].ipv4);
		}
		if (!found) {
			return cfs_err(err, errlen,
				       "%s(%s): the interface has no address matching the pattern",
				       libcfs_net2str_r(r->net, net, sizeof(net)), r->ifs[i].name);
		}
	}
	return 0;
}

static bool
cfs_net_done(const struct cfs_ip2nets_match *out, unsigned int n, uint32_t net)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (out[i].net == net) {
			return true;
		}
	}
	return false;
}

int
cfs_ip2nets_match(const struct cfs_ip2nets *rules, const struct cfs_ifaddr *ifs, unsigned int nifs,
		  struct cfs_ip2nets_match *out, unsigned int max, char *err, size_t errlen)
{
	unsigned int n = 0;
	unsigned int i;
	unsigned int j;

	if (rules == NULL || (ifs == NULL && nifs != 0) || (out == NULL && max != 0)) {
		return -EINVAL;
	}
	for (i = 0; i < rules->n; i++) {
		const struct cfs_ip2nets_rule *r = &rules->rules[i];
		bool pattern_hit = false;
		int rc;

		if (cfs_net_done(out, n, r->net)) {
			continue; /* the first matching rule of a net wins */
		}
		for (j = 0; j < nifs; j++) {
			const struct cfs_ip2nets_if *named = cfs_rule_if(r, ifs[j].name);

			if (ifs[j].family != AF_INET || !cfs_rule_matches_ip(r, ifs[j].ipv4)) {
				continue;
			}
			pattern_hit = true;
			if (r->nifs != 0 && named == NULL) {
				continue;
			}
			if (n == max) {
				return -E2BIG;
			}
			memset(&out[n], 0, sizeof(out[n]));
			out[n].net = r->net;
			out[n].addr = ifs[j];
			snprintf(out[n].ifname, sizeof(out[n].ifname), "%s", ifs[j].name);
			if (named != NULL) {
				snprintf(out[n].cpts, sizeof(out[n].cpts), "%s", named->cpts);
			}
			n++;
		}
		/* Seed 000: a pattern that contradicts the named interfaces is an error. */
		rc = pattern_hit ? cfs_rule_check_named(r, ifs, nifs, err, errlen) : 0;
		if (rc != 0) {
			return rc;
		}
	}
	return (int)n;
}

int
cfs_ifaddrs_get(struct cfs_ifaddr **out, unsigned int *n)
{
	struct ifaddrs *all;
	struct ifaddrs *ifa;
	struct cfs_ifaddr *v;
	unsigned int cnt = 0;

	if (getifaddrs(&all) != 0) {
		return -errno;
	}
	for (ifa = all; ifa != NULL; ifa = ifa->ifa_next) {
		cnt++;
	}
	v = calloc(cnt == 0 ? 1 : cnt, sizeof(*v));
	if (v == NULL) {
		freeifaddrs(all);
		return -ENOMEM;
	}
	cnt = 0;
	for (ifa = all; ifa != NULL; ifa = ifa->ifa_next) {
		const struct sockaddr *sa = ifa->ifa_addr;

		if (sa == NULL || (ifa->ifa_flags & IFF_UP) == 0 ||
		    (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)) {
			continue;
		}
		snprintf(v[cnt].name, sizeof(v[cnt].name), "%s", ifa->ifa_name);
		v[cnt].family = sa->sa_family;
		if (sa->sa_family == AF_INET) {
			v[cnt].ipv4 = ntohl(
				((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr);
		} else {
			memcpy(v[cnt].ipv6,
			       &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
		}
		cnt++;
	}
	freeifaddrs(all);
	*out = v;
	*n = cnt;
	return 0;
}
