/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory descriptors: validation, the per-CPT handle table, reference
 * counting by attached messages, unlink and event delivery.
 *
 * A handle cookie is gen << 32 | slot << 8 | cpt, so any lcore can tell the
 * owning CPT from a handle (or from an ACK's / REPLY's wire handle) and a
 * stale handle never resolves to a reused slot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_internal.h"

#define LNET_MD_TABLE_MIN 64U
#define LNET_MD_SLOT_NONE UINT32_MAX

unsigned int
lnet_cookie_cpt(uint64_t cookie)
{
	return (unsigned int)(cookie & ((1U << LNET_MD_CPT_BITS) - 1));
}

static uint32_t
lnet_cookie_slot(uint64_t cookie)
{
	return (uint32_t)((cookie >> LNET_MD_CPT_BITS) & ((1U << LNET_MD_IDX_BITS) - 1));
}

static uint64_t
lnet_cookie_make(uint32_t gen, uint32_t slot, unsigned int cpt)
{
	return ((uint64_t)gen << 32) | ((uint64_t)slot << LNET_MD_CPT_BITS) | cpt;
}

static int
lnet_md_count_kiov(const struct lnet_md *umd, size_t *total)
{
	const struct iovec *iov = umd->umd_start;
	unsigned int i;

	if (umd->umd_length == 0 || umd->umd_length > LNET_MAX_MD_FRAGS || iov == NULL) {
		return -EINVAL;
	}
	*total = 0;
	for (i = 0; i < umd->umd_length; i++) {
		if (iov[i].iov_len != 0 && iov[i].iov_base == NULL) {
			return -EINVAL;
		}
		*total += iov[i].iov_len;
	}
	return *total > UINT32_MAX ? -EINVAL : 0;
}

static int
lnet_md_validate(const struct lnet_md *umd, size_t *total, unsigned int *niov)
{
	int rc = 0;

	if ((umd->umd_options & LNET_MD_KIOV) != 0) {
		rc = lnet_md_count_kiov(umd, total);
		*niov = umd->umd_length;
	} else {
		if (umd->umd_start == NULL && umd->umd_length != 0) {
			rc = -EINVAL;
		}
		*total = umd->umd_length;
		*niov = 1;
	}
	if (rc != 0) {
		return rc;
	}
	if (umd->umd_threshold < 0 && umd->umd_threshold != LNET_MD_THRESH_INF) {
		return -EINVAL;
	}
	if ((umd->umd_options & LNET_MD_MAX_SIZE) != 0 &&
	    (umd->umd_max_size <= 0 || (size_t)umd->umd_max_size > *total)) {
		return -EINVAL;
	}
	return 0;
}

/* MDs of one fragment (the common LNetMDBind case) are kept and reused. */
static struct lnet_libmd *
lnet_md_from_cache(struct lnet_md_table *t)
{
	struct lnet_libmd *md = t->cache;

	if (md != NULL) {
		t->cache = md->next_cached;
		t->ncache--;
		lnet_zero16(md, sizeof(*md) + sizeof(struct iovec));
	}
	return md;
}

void
lnet_md_recycle(struct lnet_md_table *t, struct lnet_libmd *md)
{
	if (md->eq != NULL) {
		lnet_eq_put(md->eq, md->cpt);
		md->eq = NULL;
	}
	if (md->niov == 1 && t->ncache < LNET_MD_CACHE_MAX) {
		md->next_cached = t->cache;
		t->cache = md;
		t->ncache++;
		return;
	}
	free(md);
}

int
lnet_md_build(struct lnet_md_table *t, const struct lnet_md *umd, enum lnet_unlink unlink,
	      uint16_t cpt, struct lnet_libmd **out)
{
	struct lnet_libmd *md;
	unsigned int niov;
	size_t total;
	int rc;

	rc = lnet_md_validate(umd, &total, &niov);
	if (rc != 0) {
		return rc;
	}
	md = niov == 1 ? lnet_md_from_cache(t) : NULL;
	if (md == NULL) {
		md = calloc(1, sizeof(*md) + niov * sizeof(struct iovec));
	}
	if (md == NULL) {
		return -ENOMEM;
	}
	md->start = umd->umd_start;
	md->length = (unsigned int)total;
	md->threshold = umd->umd_threshold;
	md->max_size =
		(umd->umd_options & LNET_MD_MAX_SIZE) != 0 ? (unsigned int)umd->umd_max_size : 0;
	md->options = umd->umd_options;
	md->flags = unlink == LNET_UNLINK ? LNET_MD_FLAG_AUTO_UNLINK : 0;
	md->user_ptr = umd->umd_user_ptr;
	md->handler = umd->umd_handler;
	md->eq = umd->umd_eq_handle;
	if (md->eq != NULL) {
		lnet_eq_get(md->eq, cpt);
	}
	md->cpt = cpt;
	md->niov = niov;
	if ((umd->umd_options & LNET_MD_KIOV) != 0) {
		memcpy(md->iov, umd->umd_start, niov * sizeof(struct iovec));
	} else {
		md->iov[0].iov_base = umd->umd_start;
		md->iov[0].iov_len = umd->umd_length;
	}
	*out = md;
	return 0;
}

int
lnet_md_table_init(struct lnet_md_table *t)
{
	memset(t, 0, sizeof(*t));
	t->free_head = LNET_MD_SLOT_NONE;
	return 0;
}

void
lnet_md_table_fini(struct lnet_md_table *t)
{
	uint32_t i;

	for (i = 0; i < t->nslots; i++) {
		if (t->slots[i].md != NULL) {
			free(t->slots[i].md->me);
			t->slots[i].md->me = NULL;
			lnet_md_recycle(t, t->slots[i].md);
		}
	}
	free(t->slots);
	while (t->cache != NULL) {
		struct lnet_libmd *md = t->cache;

		t->cache = md->next_cached;
		free(md);
	}
	memset(t, 0, sizeof(*t));
}

static int
lnet_md_slot_alloc(struct lnet_md_table *t, uint32_t *slot)
{
	if (t->free_head != LNET_MD_SLOT_NONE) {
		*slot = t->free_head;
		t->free_head = t->slots[*slot].next_free;
		return 0;
	}
	if (t->nslots == t->cap) {
		uint32_t cap = t->cap == 0 ? LNET_MD_TABLE_MIN : t->cap * 2;
		struct lnet_md_slot *s;

		if (cap > (1U << LNET_MD_IDX_BITS)) {
			return -ENOMEM;
		}
		s = realloc(t->slots, cap * sizeof(*s));
		if (s == NULL) {
			return -ENOMEM;
		}
		t->slots = s;
		t->cap = cap;
	}
	*slot = t->nslots++;
	t->slots[*slot].gen = 1;
	return 0;
}

/* Gives @p md a handle in @p c's table. */
int
lnet_md_insert(struct lnet_cpt *c, struct lnet_libmd *md)
{
	struct lnet_md_table *t = &c->mds;
	uint32_t slot;
	int rc;

	rc = lnet_md_slot_alloc(t, &slot);
	if (rc != 0) {
		return rc;
	}
	t->slots[slot].md = md;
	t->nactive++;
	md->cookie = lnet_cookie_make(t->slots[slot].gen, slot, c->cpt);
	return 0;
}

struct lnet_libmd *
lnet_md_lookup(struct lnet_cpt *c, uint64_t cookie)
{
	struct lnet_md_table *t = &c->mds;
	uint32_t slot = lnet_cookie_slot(cookie);
	struct lnet_libmd *md;

	if (lnet_cookie_cpt(cookie) != c->cpt || slot >= t->nslots) {
		return NULL;
	}
	md = t->slots[slot].md;
	if (md == NULL || md->cookie != cookie) {
		return NULL;
	}
	return md;
}

static void
lnet_md_free(struct lnet_cpt *c, struct lnet_libmd *md)
{
	lnet_rsp_untrack(c, md);
	struct lnet_md_table *t = &c->mds;
	uint32_t slot = lnet_cookie_slot(md->cookie);

	t->slots[slot].md = NULL;
	/* Skip the all-ones generation so no cookie equals the NONE handle. */
	t->slots[slot].gen = t->slots[slot].gen + 1 == UINT32_MAX ? 1 : t->slots[slot].gen + 1;
	t->slots[slot].next_free = t->free_head;
	t->free_head = slot;
	t->nactive--;
	free(md->me);
	lnet_md_recycle(t, md);
}

bool
lnet_md_exhausted(const struct lnet_libmd *md)
{
	if (md->threshold == 0) {
		return true;
	}
	return (md->options & LNET_MD_MAX_SIZE) != 0 &&
	       (md->options & LNET_MD_MANAGE_REMOTE) == 0 && md->length - md->offset < md->max_size;
}

bool
lnet_md_active(const struct lnet_libmd *md)
{
	return (md->flags & LNET_MD_FLAG_ZOMBIE) == 0 && !lnet_md_exhausted(md);
}

/* Take @p md out of matching; it is freed once no message holds it. */
void
lnet_md_unlink(struct lnet_cpt *c, struct lnet_libmd *md)
{
	LNET_OWNER_ASSERT(c->ln, md->cpt);
	if ((md->flags & LNET_MD_FLAG_ZOMBIE) != 0) {
		return;
	}
	md->flags |= LNET_MD_FLAG_ZOMBIE;
	if (md->me != NULL && md->me->inserted) {
		lnet_me_remove(c, md->me);
	}
}

/* Consume one operation of @p md for @p msg (lnet_msg_attach_md). */
void
lnet_md_attach_msg(struct lnet_libmd *md, struct lnet_msg *msg, unsigned int offset,
		   unsigned int mlength)
{
	LNET_OWNER_ASSERT(msg->ln, md->cpt);
	msg->md = md;
	msg->md_cpt = md->cpt;
	msg->offset = offset;
	msg->wanted = mlength;
	md->refcount++;
	if (md->threshold != LNET_MD_THRESH_INF) {
		md->threshold--;
	}
}

/*
 * Drop @p msg's reference (already counted out by the caller) and free
 * @p md if it was its last user and it is unlinked or auto-unlinks.
 * Returns through ev->unlinked whether it went.
 */
void
lnet_md_release(struct lnet_cpt *c, struct lnet_libmd *md)
{
	LNET_OWNER_ASSERT(c->ln, md->cpt);
	if (md->refcount != 0) {
		return;
	}
	if ((md->flags & LNET_MD_FLAG_ZOMBIE) != 0) {
		lnet_md_free(c, md);
	}
}
