/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UDSP rules as lnetctl's command line gives them (lnet_udsp.c and
 * lib/cfs/cfs_nidparts.c). The input is up to four lines: src, dst, rte
 * ("" absent) and a priority. Whatever is refused must be refused with
 * the kernel's words and nothing made; what is made must print, parse back
 * to the same descriptors, be refused a second time as a duplicate (or
 * update a priority), and flatten without a fault; every descriptor must
 * match the NIDs it prints, as bounds and as expression lists.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "lnet_udsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_LINE 300

/* Line @p i of the input (at most FZ_LINE - 1 bytes), "" when missing. */
static void
fz_line(const uint8_t *data, size_t size, unsigned int i, char *out)
{
	size_t start = 0;
	size_t end;

	while (i > 0 && start < size) {
		if (data[start++] == '\n') {
			i--;
		}
	}
	for (end = start; end < size && data[end] != '\n' && end - start < FZ_LINE - 1; end++) {
	}
	memcpy(out, data + start, end - start);
	out[end - start] = '\0';
	if (i > 0) {
		out[0] = '\0';
	}
}

static void
fz_descr_round_trip(const struct cfs_nid_parts *d)
{
	char text[CFS_NID_PARTS_LEN];
	char again_text[CFS_NID_PARTS_LEN];
	struct cfs_nid_parts again;

	if (!cfs_nid_parts_present(d)) {
		return;
	}
	if (cfs_nid_parts_print(d, text, sizeof(text)) <= 0) {
		return; /* too long to print: nothing to check */
	}
	if (cfs_nid_parts_parse(text, &again) != 0 || !cfs_nid_parts_same(d, &again)) {
		__builtin_trap();
	}
	if (cfs_nid_parts_print(&again, again_text, sizeof(again_text)) <= 0 ||
	    strcmp(text, again_text) != 0) {
		__builtin_trap();
	}
	/* the lowest IPv4 NID of the descriptor matches it, by bounds or by lists alike */
	if (d->naddr == 4) {
		struct lnet_nid nid;
		uint32_t addr = 0;
		unsigned int i;
		struct cfs_nid_parts slow = again;

		for (i = 0; i < 4; i++) {
			char part[16];
			unsigned int lo;

			if (cfs_expr_list_print(part, sizeof(part), d->addr[i]) <= 0 ||
			    sscanf(part[0] == '[' ? part + 1 : part, "%u", &lo) != 1 || lo > 255) {
				cfs_nid_parts_fini(&again);
				return;
			}
			addr = addr << 8 | lo;
		}
		lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(d->net_type, d->bounds ? d->num_lo : 0),
					    addr),
				 &nid);
		slow.bounds = false;
		if (cfs_nid_parts_match_nid(d, &nid) != cfs_nid_parts_match_nid(&slow, &nid)) {
			__builtin_trap();
		}
	}
	cfs_nid_parts_fini(&again);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char src[FZ_LINE];
	char dst[FZ_LINE];
	char rte[FZ_LINE];
	char prio[FZ_LINE];
	char err[256] = "";
	struct lnet_udsp_rule *r = NULL;
	struct lnet_udsp_rule *dup = NULL;
	struct lnet_udsp_set set;
	struct lnet_udsp_compiled comp;
	struct lnet_nid probe;
	long priority;
	int rc;

	fz_line(data, size, 0, src);
	fz_line(data, size, 1, dst);
	fz_line(data, size, 2, rte);
	fz_line(data, size, 3, prio);
	priority = prio[0] != '\0' ? strtol(prio, NULL, 10) : -1;
	rc = lnet_udsp_rule_make(src, dst, rte, priority, &r, err, sizeof(err));
	if (rc != 0) {
		if (r != NULL || rc != -EINVAL || err[0] == '\0') {
			__builtin_trap();
		}
		return 0;
	}
	fz_descr_round_trip(&r->src);
	fz_descr_round_trip(&r->dst);
	fz_descr_round_trip(&r->rte);

	lnet_udsp_set_init(&set);
	if (lnet_udsp_set_add(&set, r, -1, NULL) != 0) {
		__builtin_trap();
	}
	if (lnet_udsp_rule_make(src, dst, rte, priority, &dup, err, sizeof(err)) != 0) {
		__builtin_trap(); /* the same text made a rule once */
	}
	rc = lnet_udsp_set_add(&set, dup, 0, NULL);
	if (rc == -EALREADY) {
		lnet_udsp_rule_free(dup);
	} else if (rc != 0 || set.n != 1) {
		__builtin_trap(); /* same descriptors, same priority: refused; else an update */
	}
	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(LNET_LND_SOCK, 0), 0x0a000001), &probe);
	(void)lnet_udsp_local_ni_prio(&set, &probe);
	(void)lnet_udsp_peer_ni_prio(&set, &probe);
	(void)lnet_udsp_peer_net_prio(&set, lnet_nid_net(&probe));
	if (lnet_udsp_compile(&set, &probe, 1, &probe, 1, &comp) == 0) {
		unsigned int n;

		(void)lnet_udsp_pref(&comp, false, &probe, &n);
		(void)lnet_udsp_pref(&comp, true, &probe, &n);
		lnet_udsp_compiled_fini(&comp);
	}
	if (lnet_udsp_set_del(&set, 0) != 0 || set.n != 0) {
		__builtin_trap();
	}
	lnet_udsp_set_fini(&set);
	return 0;
}
