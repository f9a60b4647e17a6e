/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A single-producer single-consumer ring of fixed-size entries in memory
 * shared with a process the other side does not trust (a client's memfd
 * region, mapped by lnetd-pmd): issue 36's per-TM queue pair across
 * processes.
 *
 * Why not rte_ring here: rte_ring keeps its size, mask and capacity in its
 * header, beside the entries, and reads them on every call. In shared
 * memory the client can rewrite them between the daemon's check and its
 * use, and an index masked with a mask the client chose reaches outside
 * the mapping. Here the shared part is only the two indices and the slots;
 * each side keeps the geometry (count, entry size) and its own index in
 * its private struct xprt_shring, and every index it reads from the other
 * side is checked against them: entries in flight never exceed count, so a
 * lying peer yields -EPROTO (the daemon fails that client), never an access
 * outside the slots. Entries are copied out before they are looked at, so
 * the peer cannot change one between the check and the use.
 */
#ifndef XPRT_SHRING_H
#define XPRT_SHRING_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The shared layout: producer index, consumer index, each on its own line, then the slots. */
struct xprt_shring_hdr {
	_Alignas(64) _Atomic uint32_t head; /* written by the producer: entries ever produced */
	_Alignas(64) _Atomic uint32_t tail; /* written by the consumer: entries ever consumed */
	_Alignas(64) uint8_t slots[];
};

/* One side's private view. */
struct xprt_shring {
	struct xprt_shring_hdr *hdr;
	uint32_t count; /* slots: a power of two */
	uint32_t esize; /* bytes an entry */
	uint32_t mine;  /* the index this side writes (head or tail), never read back */
};

/* Bytes a ring of @p count entries of @p esize takes; 0 if @p count is no power of two. */
static inline uint64_t
xprt_shring_bytes(uint32_t count, uint32_t esize)
{
	if (count == 0 || (count & (count - 1)) != 0 || esize == 0) {
		return 0;
	}
	return sizeof(struct xprt_shring_hdr) + (uint64_t)count * esize;
}

/* A fresh ring at @p mem (zeroed indices), by whoever makes the memory. */
static inline void
xprt_shring_format(void *mem)
{
	struct xprt_shring_hdr *h = mem;

	atomic_store_explicit(&h->head, 0, memory_order_relaxed);
	atomic_store_explicit(&h->tail, 0, memory_order_relaxed);
}

/*
 * Take a side of the ring at @p mem: the index this side writes starts from
 * what is there now (a daemon attaching to a client's ring does not reset it).
 * @p producer: this side enqueues.
 */
static inline void
xprt_shring_attach(struct xprt_shring *r, void *mem, uint32_t count, uint32_t esize, bool producer)
{
	r->hdr = mem;
	r->count = count;
	r->esize = esize;
	r->mine = atomic_load_explicit(producer ? &r->hdr->head : &r->hdr->tail,
				       memory_order_relaxed);
}

static inline void *
xprt_shring_slot(const struct xprt_shring *r, uint32_t idx)
{
	return r->hdr->slots + (uint64_t)(idx & (r->count - 1)) * r->esize;
}

/*
 * Enqueue @p e (esize bytes): 0, -ENOBUFS when full, or -EPROTO when the
 * consumer's index is one no consumer could have written.
 */
static inline int
xprt_shring_enqueue(struct xprt_shring *r, const void *e)
{
	uint32_t tail = atomic_load_explicit(&r->hdr->tail, memory_order_acquire);
	uint32_t used = r->mine - tail;

	if (used > r->count) {
		return -EPROTO; /* consumed what was never produced */
	}
	if (used == r->count) {
		return -ENOBUFS;
	}
	memcpy(xprt_shring_slot(r, r->mine), e, r->esize);
	r->mine++;
	atomic_store_explicit(&r->hdr->head, r->mine, memory_order_release);
	return 0;
}

/*
 * Dequeue into @p e (esize bytes): 0, -EAGAIN when empty, or -EPROTO when the
 * producer's index says more than the ring holds.
 */
static inline int
xprt_shring_dequeue(struct xprt_shring *r, void *e)
{
	uint32_t head = atomic_load_explicit(&r->hdr->head, memory_order_acquire);
	uint32_t ready = head - r->mine;

	if (ready > r->count) {
		return -EPROTO;
	}
	if (ready == 0) {
		return -EAGAIN;
	}
	memcpy(e, xprt_shring_slot(r, r->mine), r->esize);
	r->mine++;
	atomic_store_explicit(&r->hdr->tail, r->mine, memory_order_release);
	return 0;
}

#endif /* XPRT_SHRING_H */
