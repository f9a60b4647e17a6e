/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Client processes attaching to lnetd-pmd (issue 36, doc/xprt.md "Many
 * processes on one daemon"): the messages of the local socket and the
 * daemon's side of it.
 *
 * A client connects to the daemon's AF_UNIX stream socket; the daemon
 * checks the peer's credentials (SO_PEERCRED) against the uids it was
 * given before it reads a byte. The client then hands over its memory as
 * memfd regions (SCM_RIGHTS), each sealed against shrinking, so the pages
 * the daemon maps can never be cut from under it (a SIGBUS in the daemon).
 * The daemon maps each region once, shared: buffers registered later are
 * MDs on those pages, with no copy. Every reference a client makes is a
 * region handle (slot + generation) and an offset, and
 * xprt_svc_region_ptr() is the one place that turns it into an address,
 * only within the region's bounds.
 *
 * Messages are fixed-size, host order (both ends are on one node).
 */
#ifndef XPRT_ATTACH_H
#define XPRT_ATTACH_H

#include <stdint.h>
#include <sys/types.h>

#define XPRT_ATT_MAGIC 0x78707274u /* "xprt" */
#define XPRT_ATT_VERSION 1u
/* Regions a client may map: their table is fixed, like the domain's. */
#define XPRT_ATT_MAX_REGIONS 64u
/* Clients a daemon serves at once. */
#define XPRT_ATT_MAX_CLIENTS 64u
/* TM ring pairs a client may have; entries a ring may hold at most. */
#define XPRT_ATT_MAX_TMS 64u
#define XPRT_ATT_MAX_RING 4096u

enum xprt_att_kind {
	XPRT_ATT_HELLO = 1,  /* client: the first message; reply: the client's id */
	XPRT_ATT_REGION,     /* client: a memfd (SCM_RIGHTS) of `size` bytes; reply: its handle */
	XPRT_ATT_REGION_DEL, /* client: unmap region `handle` (-EBUSY while rings are in it) */
	XPRT_ATT_REPLY,      /* daemon: `status`, and `handle` */
	XPRT_ATT_TM_RINGS, /* client: a TM's ring pair in region `handle` at `size`, `count` each */
};

struct xprt_att_msg {
	uint32_t magic;   /* XPRT_ATT_MAGIC */
	uint32_t kind;    /* enum xprt_att_kind */
	uint32_t version; /* XPRT_ATT_VERSION */
	int32_t status;   /* REPLY: 0 or -errno */
	uint64_t handle;  /* REPLY: the client id or region handle; REGION_DEL: the region */
	uint64_t size;    /* REGION: bytes to map from offset 0; TM_RINGS: the rings' offset */
	uint32_t count;   /* TM_RINGS: entries a ring (a power of two, 2..XPRT_ATT_MAX_RING) */
	uint32_t pad;
};

/*
 * A TM's ring pair in a region, at a 64-byte aligned offset: the operation
 * ring (client -> daemon, struct xprt_op) then, 64-byte aligned, the event
 * ring (daemon -> client, struct xprt_ev), both xprt_shring.h rings of
 * @p count entries. Its bytes, or 0 for a count that is not allowed.
 */
uint64_t xprt_att_rings_bytes(uint32_t count);
/* Where the event ring starts, from the pair's offset. */
uint64_t xprt_att_ev_ring_off(uint32_t count);

/* ---- the client's side ---- */

/* Connect to the daemon at @p path and say hello: 0 and the socket in @p fd, or -errno. */
int xprt_att_connect(const char *path, int *fd, uint64_t *client_id);
/* Hand @p memfd (sealed F_SEAL_SHRINK) over: 0 and its handle, or -errno (the daemon's). */
int xprt_att_region_add(int fd, int memfd, uint64_t size, uint64_t *handle);
int xprt_att_region_del(int fd, uint64_t handle);
/*
 * Give the daemon the ring pair at @p off in region @p region (formatted
 * with xprt_shring_format, both rings): 0 and its handle, or -errno.
 */
int xprt_att_tm_rings(int fd, uint64_t region, uint64_t off, uint32_t count, uint64_t *handle);

/* ---- the daemon's side ---- */

struct xprt_svc;

struct xprt_svc_stats {
	uint64_t attached; /* clients that said hello */
	uint64_t refused;  /* connections whose credentials were not allowed */
	uint64_t failed;   /* clients cut off for a message no client makes */
	uint64_t detached; /* clients gone, whatever the reason */
	unsigned int clients;
	unsigned int regions;
	uint64_t mapped_bytes;
	unsigned int tms; /* ring pairs given */
};

struct xprt_svc_client_info {
	uint64_t id;
	pid_t pid;
	uid_t uid;
	unsigned int regions;
	uint64_t mapped_bytes;
	unsigned int tms;
};

/*
 * Listen at @p path (replacing a stale socket file) for clients whose uid is
 * one of @p uids. 0 or -errno.
 */
int xprt_svc_open(const char *path, const uid_t *uids, unsigned int nuids, struct xprt_svc **out);
/* Accept, read and answer for up to @p timeout_ms: what it handled, or -errno. */
int xprt_svc_poll(struct xprt_svc *svc, int timeout_ms);
/* Detach every client, unmap, close and remove the socket file. */
void xprt_svc_close(struct xprt_svc *svc);
void xprt_svc_stats_get(struct xprt_svc *svc, struct xprt_svc_stats *st);
/* Up to @p cap attached clients: how many were written. */
unsigned int xprt_svc_clients(struct xprt_svc *svc, struct xprt_svc_client_info *out,
			      unsigned int cap);
/*
 * The daemon's address of @p len bytes at @p off in region @p handle of
 * client @p id, or NULL when the client, the handle or the range is not
 * valid: what every reference of a client goes through. On the service's
 * thread; the address stays valid until its next xprt_svc_poll().
 */
void *xprt_svc_region_ptr(struct xprt_svc *svc, uint64_t id, uint64_t handle, uint64_t off,
			  uint64_t len);

struct xprt_shring;
/*
 * The daemon's sides of ring pair @p tm of client @p id: it consumes @p ops
 * and produces @p evs. 0, or -ENOENT for a client or handle that names
 * none. On the service's thread; valid until its next xprt_svc_poll().
 */
int xprt_svc_tm_rings(struct xprt_svc *svc, uint64_t id, uint64_t tm, struct xprt_shring **ops,
		      struct xprt_shring **evs);

#endif /* XPRT_ATTACH_H */
