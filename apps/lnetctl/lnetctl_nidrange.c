/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NID lists as 2.17's lnetctl reads them on its netlink path
 * (liblnetconfig's lustre_lnet_parse_nid_range() and its range scanner),
 * for ping, discover, cpt-of-nid, route add --gateway and peer add/del
 * --nid. That reader is not cfs_parse_nidlist(): a plain NID is checked
 * and printed back normalised, but the NIDs a bracketed range names are
 * built as text and handed on unchecked (the kernel then refuses the ones
 * it cannot parse), "[0]" names nothing, and every malformed range has a
 * text and an errno of its own. Those texts and errnos are lnetctl's
 * interface, so this reader follows the same steps and keeps its quirks
 * (a '-' range followed by ',' carries the rest of the argument after its
 * '@'; a ',' list element gets no later bracket expanded). Where 2.17
 * crashes or loops for ever (a trailing element without '@', a number of
 * more than 23 digits, a step of 0) this one refuses the list instead.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "lnetctl.h"

#define NR_STR_LEN 128               /* 2.17's LNET_MAX_STR_LEN: one built NID before its '@' */
#define NR_ITEM_LEN (2 * NR_STR_LEN) /* its struct nid_node's nidstr */
#define NR_NUM_MAX 23                /* 2.17's INT_STRING_LEN: digits of one number */
#define NR_MAX_ITEMS (1U << 20)      /* more than this is refused as an allocation failure */
#define NR_MAX_STEPS (1U << 24)      /* range steps, counted across recursion */

#define NR_MSG(text) "\"Unable to parse nidlist: " text "\""

/* snprintf() where cutting the text is meant: 2.17's buffers cut it there too. */
__attribute__((format(printf, 3, 4))) static void
nr_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

struct nr_state {
	struct lnetctl_nidrange *out;
	unsigned long steps;
	const char **msg;
};

static int
nr_add(struct nr_state *st, const char *s)
{
	struct lnetctl_nidrange *l = st->out;

	if (l->n == NR_MAX_ITEMS) {
		*st->msg = NR_MSG("allocation failed");
		return -ENOMEM;
	}
	if (l->n == l->max) {
		unsigned int max = l->max == 0 ? 16 : l->max * 2;
		char **grown = realloc(l->nid, max * sizeof(*l->nid));

		if (grown == NULL) {
			*st->msg = NR_MSG("allocation failed");
			return -ENOMEM;
		}
		l->nid = grown;
		l->max = max;
	}
	l->nid[l->n] = strndup(s, NR_ITEM_LEN - 1);
	if (l->nid[l->n] == NULL) {
		*st->msg = NR_MSG("allocation failed");
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

/* Length of the text of @p net up to its first ',' (all of it without one). */
static int
nr_net_len(const char *net)
{
	const char *comma = strchr(net, ',');

	return comma != NULL ? (int)(comma - net) : (int)strlen(net);
}

/* One built NID: "@p host@net", the net as given or cut at its ','. */
static int
nr_add_nid(struct nr_state *st, const char *host, const char *net, bool whole_net)
{
	char item[NR_ITEM_LEN];

	nr_fmt(item, sizeof(item), "%s@%.*s", host, whole_net ? (int)strlen(net) : nr_net_len(net),
	       net);
	return nr_add(st, item);
}

static bool
nr_step(struct nr_state *st)
{
	if (++st->steps > NR_MAX_STEPS) {
		*st->msg = NR_MSG("allocation failed");
		return false;
	}
	return true;
}

/*
 * The host part @p s (before '@') whose range is the text of @p r between
 * @p lb ('[') and @p rb (']'); @p r is @p s itself except when an earlier
 * range of the same host was already put in (then @p s has no bracket).
 */
static int nr_scan(struct nr_state *st, const char *s, const char *r, const char *lb,
		   const char *rb, const char *net);

/* The numbers of a "first-last[/step]" part that a ',' ends. */
static int
nr_comma_range(struct nr_state *st, const char *s, const char *r, const char *lb, const char *rb,
	       const char *net, unsigned int first, unsigned int last, unsigned int inc)
{
	int plen = r == s ? (int)(lb - s) : (int)strlen(s);
	unsigned int v;

	if (first > last) {
		*st->msg = NR_MSG("range is wrong order");
		return -ERANGE;
	}
	if (inc == 0) {
		*st->msg = NR_MSG("allocation failed"); /* 2.17 loops until memory runs out */
		return -ENOMEM;
	}
	for (v = first; v <= last; v += inc) {
		char hdr[NR_STR_LEN];
		const char *open;
		const char *close;
		int rc;

		if (!nr_step(st)) {
			return -ENOMEM;
		}
		nr_fmt(hdr, sizeof(hdr), "%.*s%d%s", plen, s, (int)v, rb + 1);
		open = strchr(hdr, '[');
		close = open != NULL ? strchr(open, ']') : NULL;
		rc = close != NULL ? nr_scan(st, hdr, hdr, open, close, net) :
				     nr_add_nid(st, hdr, net, true);
		if (rc < 0) {
			return rc;
		}
		if (v + inc < v) {
			break;
		}
	}
	return 0;
}

/* The last part of a range, which no ',' ends: first..last, then the next bracket. */
static int
nr_last_range(struct nr_state *st, const char *s, const char *r, const char *rb, const char *net,
	      unsigned int first, unsigned int last, unsigned int inc)
{
	const char *sb = strchr(s, '[');
	int plen = sb != NULL ? (int)(sb - s) : (int)strlen(s);
	const char *next = rb + 1;
	const char *lb2 = strchr(rb, '[');
	const char *rb2 = lb2 != NULL ? strchr(lb2, ']') : rb;
	int mid = lb2 != NULL ? (int)(lb2 - next) : (int)strlen(next);
	unsigned int v;

	if (first > last) {
		*st->msg = NR_MSG("range is wrong order");
		return -ERANGE;
	}
	for (v = first; v <= last; v += inc) {
		char str[NR_STR_LEN];
		int rc;

		if (!nr_step(st)) {
			return -ENOMEM;
		}
		nr_fmt(str, sizeof(str), "%.*s%u%.*s", plen, s, v, mid, next);
		rc = lb2 != NULL && rb2 != NULL ? nr_scan(st, str, r, lb2, rb2, net) :
						  nr_add_nid(st, str, net, false);
		if (rc < 0) {
			return rc;
		}
		if (v + inc < v) {
			break;
		}
	}
	return 0;
}

static int
nr_scan(struct nr_state *st, const char *s, const char *r, const char *lb, const char *rb,
	const char *net)
{
	unsigned int first = 0;
	unsigned int last = 0;
	unsigned int inc = 1;
	bool hyphen = false;
	bool slash = false;
	char num[NR_NUM_MAX + 2] = "";
	size_t off = 0;
	int base = strchr(s, ':') != NULL ? 16 : 10;
	const char *p;

	if (lb == NULL && rb == NULL) {
		*st->msg = NR_MSG("[] are missing");
		return -ERANGE;
	}
	if (lb == NULL || rb == NULL) {
		*st->msg = NR_MSG("incomplete bracket set");
		return -EINVAL;
	}
	if (lb + 1 > rb) {
		*st->msg = NR_MSG("improper bracket ordering");
		return -EINVAL;
	}
	for (p = lb + 1; p < rb;) {
		unsigned char c = (unsigned char)*p;

		if (isxdigit(c)) {
			if (off > NR_NUM_MAX) {
				/* 2.17 has no text for this and crashes printing its block */
				*st->msg = NR_MSG("number too long");
				return -E2BIG;
			}
			num[off++] = (char)c;
			num[off] = '\0';
			p++;
		} else if (c == ':') {
			p++;
		} else if (c == '-') {
			p++;
			if (!isxdigit((unsigned char)*p)) {
				*st->msg = NR_MSG("range needs number after -");
				return -ERANGE;
			}
			first = (unsigned int)strtoul(num, NULL, base);
			num[0] = '\0';
			off = 0;
			hyphen = true;
		} else if (c == '/') {
			p++;
			if (!isdigit((unsigned char)*p)) {
				*st->msg = NR_MSG("range needs number after /");
				return -ERANGE;
			}
			if (off > 0) {
				last = (unsigned int)strtoul(num, NULL, base);
				num[0] = '\0';
				off = 0;
				slash = true;
			}
		} else if (c == ',') {
			int rc;

			p++;
			if (!isxdigit((unsigned char)*p)) {
				*st->msg = NR_MSG("range needs number after ,");
				return -ERANGE;
			}
			if (hyphen) {
				*(slash ? &inc : &last) = (unsigned int)strtoul(num, NULL, base);
				rc = nr_comma_range(st, s, r, lb, rb, net, first, last, inc);
				hyphen = false;
				slash = false;
				inc = 1;
			} else {
				char host[NR_ITEM_LEN];
				int plen = r == s ? (int)(lb - s) : (int)strlen(s);

				nr_fmt(host, sizeof(host), "%.*s%s%s", plen, s, num, rb + 1);
				rc = nr_add_nid(st, host, net, false);
			}
			if (rc < 0) {
				return rc;
			}
			num[0] = '\0';
			off = 0;
		} else {
			*st->msg = NR_MSG("invalid character in range");
			return -EINVAL;
		}
	}
	if (off > 0) {
		*(slash ? &inc : &last) = (unsigned int)strtoul(num, NULL, base);
	}
	if (!hyphen) {
		first = last;
	}
	if (first == 0 && last == 0) {
		return 0; /* "[0]", "[0-0]": nothing, as 2.17's scanner */
	}
	if (inc == 0 && first <= last) {
		*st->msg = NR_MSG("allocation failed"); /* 2.17 loops until memory runs out */
		return -ENOMEM;
	}
	return nr_last_range(st, s, r, rb, net, first, last, inc);
}

int
lnetctl_nidrange_add(const char *arg, struct lnetctl_nidrange *out, const char **msg)
{
	struct nr_state st = { .out = out, .steps = 0, .msg = msg };
	const char *rest = arg;
	int rc;

	*msg = NULL;
	if (strchr(arg, '*') != NULL) {
		*msg = "asterisk not allowed in nidstring";
		rc = -EINVAL;
		goto fail;
	}
	if (strstr(arg, "<?>") != NULL) {
		*msg = NR_MSG("LNET_ANY_NID is unsupported");
		rc = -EINVAL;
		goto fail;
	}
	if (strchr(arg, '@') == NULL) {
		*msg = NR_MSG("no valid NIDs in string");
		rc = -EINVAL;
		goto fail;
	}
	while (rest != NULL) {
		const char *at = strchr(rest, '@');
		const char *net = at != NULL ? at + 1 : NULL;
		char host[NR_ITEM_LEN];
		const char *lb;
		const char *rb;
		const char *comma;

		nr_fmt(host, sizeof(host), "%.*s",
		       at != NULL ? (int)(at - rest) : (int)strlen(rest), rest);
		if (net == NULL) {
			/* 2.17 dereferences a NULL net here */
			*msg = NR_MSG("invalid NID in nidstr");
			rc = -EINVAL;
			goto fail;
		}
		lb = strchr(host, '[');
		rb = strchr(host, ']');
		if (lb == NULL && rb == NULL) {
			char orig[NR_STR_LEN];
			char nidstr[LNET_NIDSTR_SIZE];
			struct lnet_nid nid;

			nr_fmt(orig, sizeof(orig), "%s@%.*s", host, nr_net_len(net), net);
			if (libcfs_strnid(&nid, orig) != 0) {
				*msg = NR_MSG("invalid NID in nidstr");
				rc = -EINVAL;
				goto fail;
			}
			rc = nr_add(&st, libcfs_nidstr_r(&nid, nidstr, sizeof(nidstr)));
		} else {
			rc = nr_scan(&st, host, host, lb, rb, net);
		}
		if (rc < 0) {
			goto fail;
		}
		comma = strchr(net, ',');
		rest = comma != NULL ? comma + 1 : NULL;
	}
	return 0;
fail:
	lnetctl_nidrange_free(out);
	return rc;
}

void
lnetctl_nidrange_free(struct lnetctl_nidrange *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		free(l->nid[i]);
	}
	free(l->nid);
	memset(l, 0, sizeof(*l));
}

int
lnetctl_nidrange_args(int argc, char **argv, struct lnetctl_nidrange *out, const char **msg)
{
	int rc = 0;
	int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < argc && rc == 0; i++) {
		rc = lnetctl_nidrange_add(argv[i], out, msg);
	}
	return rc;
}

/*
 * cpt-of-nid's words: 2.17's lnetctl sends each as it is and the kernel's
 * lnet_cpt_of_nid_show_start() refuses the whole request ("invalid NID")
 * when one is not a NID: no lists, no ranges.
 */
int
lnetctl_nid_args(int argc, char **argv, char (**nids)[LNET_NIDSTR_SIZE], unsigned int *n,
		 const char **why)
{
	char(*l)[LNET_NIDSTR_SIZE] = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*l));
	int i;

	if (l == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < argc; i++) {
		struct lnet_nid nid;

		if (libcfs_strnid(&nid, argv[i]) != 0) {
			free(l);
			*why = "invalid NID";
			return -EINVAL;
		}
		libcfs_nidstr_r(&nid, l[i], sizeof(l[i]));
	}
	*nids = l;
	*n = (unsigned int)argc;
	return 0;
}
