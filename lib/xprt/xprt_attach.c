/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The local socket between client processes and lnetd-pmd (xprt_attach.h):
 * both ends' halves. The daemon's service is driven by one thread
 * (xprt_svc_poll); its lock is there for readers of its tables (telemetry).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "xprt_attach.h"
#include "xprt_internal.h"
#include "xprt_ring.h"
#include "xprt_shring.h"

/* ---- both ends ---- */

static void
xprt_att_msg_init(struct xprt_att_msg *m, enum xprt_att_kind kind)
{
	memset(m, 0, sizeof(*m));
	m->magic = XPRT_ATT_MAGIC;
	m->kind = kind;
	m->version = XPRT_ATT_VERSION;
}

/* Send @p m with @p passfd (or -1) as SCM_RIGHTS. */
static int
xprt_att_send(int fd, const struct xprt_att_msg *m, int passfd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = (void *)(uintptr_t)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (passfd >= 0) {
		struct cmsghdr *c;

		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &passfd, sizeof(int));
	}
	do {
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		return -errno;
	}
	return n == (ssize_t)sizeof(*m) ? 0 : -EPROTO;
}

/*
 * Read one message; a descriptor that came with it in @p passfd (else -1).
 * -ECONNRESET at the end of the stream, -EPROTO for a short message.
 */
static int
xprt_att_recv(int fd, struct xprt_att_msg *m, int *passfd)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 4)];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	ssize_t n;

	*passfd = -1;
	do {
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_WAITALL);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		return -errno;
	}
	/* Every descriptor that came is ours to close: keep the first, close the rest. */
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		size_t nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		size_t i;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
			continue;
		}
		for (i = 0; i < nfds; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*passfd < 0) {
				*passfd = got;
			} else {
				close(got);
			}
		}
	}
	if (n == 0) {
		return -ECONNRESET;
	}
	if (n != (ssize_t)sizeof(*m) || (mh.msg_flags & MSG_CTRUNC) != 0) {
		return -EPROTO;
	}
	return 0;
}

uint64_t
xprt_att_ev_ring_off(uint32_t count)
{
	uint64_t ops = xprt_shring_bytes(count, sizeof(struct xprt_op));

	return (ops + 63u) & ~UINT64_C(63);
}

uint64_t
xprt_att_rings_bytes(uint32_t count)
{
	if (count < 2 || count > XPRT_ATT_MAX_RING ||
	    xprt_shring_bytes(count, sizeof(struct xprt_ev)) == 0) {
		return 0;
	}
	return xprt_att_ev_ring_off(count) + xprt_shring_bytes(count, sizeof(struct xprt_ev));
}

/* ---- the client's side ---- */

/* Send @p m (with @p passfd) and wait for the daemon's reply: its status. */
static int
xprt_att_call(int fd, const struct xprt_att_msg *m, int passfd, uint64_t *handle)
{
	struct xprt_att_msg r;
	int extra;
	int rc = xprt_att_send(fd, m, passfd);

	if (rc == 0) {
		rc = xprt_att_recv(fd, &r, &extra);
	}
	if (rc == 0 && extra >= 0) {
		close(extra);
		rc = -EPROTO; /* the daemon hands no descriptor back */
	}
	if (rc == 0 && (r.magic != XPRT_ATT_MAGIC || r.kind != XPRT_ATT_REPLY)) {
		rc = -EPROTO;
	}
	if (rc == 0) {
		rc = r.status;
		if (rc == 0 && handle != NULL) {
			*handle = r.handle;
		}
	}
	return rc;
}

int
xprt_att_connect(const char *path, int *fd, uint64_t *client_id)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct xprt_att_msg m;
	int s;
	int rc;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		return -errno;
	}
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		rc = -errno;
		close(s);
		return rc;
	}
	xprt_att_msg_init(&m, XPRT_ATT_HELLO);
	rc = xprt_att_call(s, &m, -1, client_id);
	if (rc != 0) {
		close(s);
		return rc;
	}
	*fd = s;
	return 0;
}

int
xprt_att_region_add(int fd, int memfd, uint64_t size, uint64_t *handle)
{
	struct xprt_att_msg m;

	xprt_att_msg_init(&m, XPRT_ATT_REGION);
	m.size = size;
	return xprt_att_call(fd, &m, memfd, handle);
}

int
xprt_att_region_del(int fd, uint64_t handle)
{
	struct xprt_att_msg m;

	xprt_att_msg_init(&m, XPRT_ATT_REGION_DEL);
	m.handle = handle;
	return xprt_att_call(fd, &m, -1, NULL);
}

int
xprt_att_tm_rings(int fd, uint64_t region, uint64_t off, uint32_t count, uint64_t *handle)
{
	struct xprt_att_msg m;

	xprt_att_msg_init(&m, XPRT_ATT_TM_RINGS);
	m.handle = region;
	m.size = off;
	m.count = count;
	return xprt_att_call(fd, &m, -1, handle);
}

/* ---- the daemon's side ---- */

/* A TM's ring pair: the daemon's private views of rings in a client's region. */
struct xprt_svc_tm {
	uint32_t gen;
	bool used;
	uint32_t region_slot;   /* its region stays mapped while it is used */
	struct xprt_shring ops; /* the daemon consumes */
	struct xprt_shring evs; /* the daemon produces */
};

struct xprt_svc_region {
	uint32_t gen; /* moves at each mapping: a stale handle names nothing */
	void *base;   /* NULL: free */
	uint64_t size;
};

struct xprt_svc_client {
	int fd; /* -1: a free slot */
	bool hello;
	uint64_t id;
	pid_t pid;
	uid_t uid;
	unsigned int nregions;
	uint64_t mapped_bytes;
	struct xprt_svc_region regions[XPRT_ATT_MAX_REGIONS];
	unsigned int ntms;
	struct xprt_svc_tm tms[XPRT_ATT_MAX_TMS];
};

struct xprt_svc {
	int lfd;
	char path[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
	uid_t *uids;
	unsigned int nuids;
	uint64_t next_id;
	pthread_mutex_t lock; /* the tables and counters, for readers off the service thread */
	struct xprt_svc_stats st;
	struct xprt_svc_client clients[XPRT_ATT_MAX_CLIENTS];
};

int
xprt_svc_open(const char *path, const uid_t *uids, unsigned int nuids, struct xprt_svc **out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct xprt_svc *svc;
	unsigned int i;
	int rc;

	if (strlen(path) >= sizeof(sa.sun_path) || nuids == 0) {
		return -EINVAL;
	}
	svc = calloc(1, sizeof(*svc));
	if (svc == NULL) {
		return -ENOMEM;
	}
	svc->uids = calloc(nuids, sizeof(uid_t));
	if (svc->uids == NULL) {
		free(svc);
		return -ENOMEM;
	}
	memcpy(svc->uids, uids, nuids * sizeof(uid_t));
	svc->nuids = nuids;
	svc->next_id = 1;
	pthread_mutex_init(&svc->lock, NULL);
	for (i = 0; i < XPRT_ATT_MAX_CLIENTS; i++) {
		svc->clients[i].fd = -1;
	}
	strcpy(sa.sun_path, path);
	strcpy(svc->path, path);
	svc->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (svc->lfd < 0) {
		rc = -errno;
		goto fail;
	}
	(void)unlink(path); /* a socket file a dead daemon left */
	if (bind(svc->lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(svc->lfd, 16) != 0) {
		rc = -errno;
		close(svc->lfd);
		goto fail;
	}
	*out = svc;
	return 0;
fail:
	pthread_mutex_destroy(&svc->lock);
	free(svc->uids);
	free(svc);
	return rc;
}

static bool
xprt_svc_uid_allowed(const struct xprt_svc *svc, uid_t uid)
{
	unsigned int i;

	for (i = 0; i < svc->nuids; i++) {
		if (svc->uids[i] == uid) {
			return true;
		}
	}
	return false;
}

static void
xprt_svc_region_unmap(struct xprt_svc *svc, struct xprt_svc_client *c, struct xprt_svc_region *r)
{
	munmap(r->base, r->size);
	c->nregions--;
	c->mapped_bytes -= r->size;
	svc->st.regions--;
	svc->st.mapped_bytes -= r->size;
	r->base = NULL;
	r->size = 0;
}

/* Let go of everything of @p c (lock held). */
static void
xprt_svc_detach(struct xprt_svc *svc, struct xprt_svc_client *c)
{
	unsigned int i;

	for (i = 0; i < XPRT_ATT_MAX_TMS; i++) {
		c->tms[i].used = false;
	}
	svc->st.tms -= c->ntms;
	c->ntms = 0;
	for (i = 0; i < XPRT_ATT_MAX_REGIONS; i++) {
		if (c->regions[i].base != NULL) {
			xprt_svc_region_unmap(svc, c, &c->regions[i]);
		}
	}
	close(c->fd);
	c->fd = -1;
	if (c->hello) {
		svc->st.clients--;
		svc->st.detached++;
	}
	c->hello = false;
}

/* A connection: kept if its credentials are allowed and a slot is free. */
static void
xprt_svc_accept(struct xprt_svc *svc)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	unsigned int i;
	/* Non-blocking: a client that stops half-way through a message never holds the daemon. */
	int fd = accept4(svc->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0) {
		return; /* EAGAIN, or a connection that went away */
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    !xprt_svc_uid_allowed(svc, cred.uid)) {
		XPRT_LOG(WARNING, "client pid %d uid %u refused: uid not allowed", (int)cred.pid,
			 (unsigned int)cred.uid);
		pthread_mutex_lock(&svc->lock);
		svc->st.refused++;
		pthread_mutex_unlock(&svc->lock);
		close(fd);
		return;
	}
	for (i = 0; i < XPRT_ATT_MAX_CLIENTS && svc->clients[i].fd >= 0; i++) {
	}
	if (i == XPRT_ATT_MAX_CLIENTS) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&svc->lock);
	memset(&svc->clients[i], 0, sizeof(svc->clients[i]));
	svc->clients[i].fd = fd;
	svc->clients[i].pid = cred.pid;
	svc->clients[i].uid = cred.uid;
	pthread_mutex_unlock(&svc->lock);
}

/*
 * Map @p memfd for @p c: a memfd (it has seals), sealed against shrinking,
 * at least @p size bytes long. 0 and the handle, or -errno.
 */
static int
xprt_svc_region_map(struct xprt_svc *svc, struct xprt_svc_client *c, int memfd, uint64_t size,
		    uint64_t *handle)
{
	int seals = fcntl(memfd, F_GET_SEALS);
	struct xprt_svc_region *r;
	struct stat sb;
	unsigned int i;
	void *p;

	if (seals < 0 || (seals & F_SEAL_SHRINK) == 0) {
		return -EPERM; /* not a memfd, or one that could shrink under the daemon */
	}
	if (size == 0 || fstat(memfd, &sb) != 0 || (uint64_t)sb.st_size < size) {
		return -EINVAL;
	}
	for (i = 0; i < XPRT_ATT_MAX_REGIONS && c->regions[i].base != NULL; i++) {
	}
	if (i == XPRT_ATT_MAX_REGIONS) {
		return -ENOSPC;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (p == MAP_FAILED) {
		return -errno;
	}
	r = &c->regions[i];
	r->gen++;
	r->base = p;
	r->size = size;
	c->nregions++;
	c->mapped_bytes += size;
	svc->st.regions++;
	svc->st.mapped_bytes += size;
	*handle = xprt_handle_make(i, r->gen);
	return 0;
}

static struct xprt_svc_region *
xprt_svc_region_find(struct xprt_svc_client *c, uint64_t handle)
{
	uint32_t slot = xprt_handle_slot(handle);

	if (slot >= XPRT_ATT_MAX_REGIONS || c->regions[slot].base == NULL ||
	    c->regions[slot].gen != xprt_handle_gen(handle)) {
		return NULL;
	}
	return &c->regions[slot];
}

static bool
xprt_svc_region_busy(const struct xprt_svc_client *c, uint32_t slot)
{
	unsigned int i;

	for (i = 0; i < XPRT_ATT_MAX_TMS; i++) {
		if (c->tms[i].used && c->tms[i].region_slot == slot) {
			return true;
		}
	}
	return false;
}

/*
 * Take the ring pair @p m names: an aligned offset, an allowed count, every
 * byte within the region. 0 and its handle, or -errno.
 */
static int
xprt_svc_tm_add(struct xprt_svc *svc, struct xprt_svc_client *c, const struct xprt_att_msg *m,
		uint64_t *handle)
{
	uint64_t bytes = xprt_att_rings_bytes(m->count);
	struct xprt_svc_tm *t;
	uint8_t *base;
	unsigned int i;

	if (bytes == 0 || m->size % 64 != 0) {
		return -EINVAL;
	}
	base = xprt_svc_region_ptr(svc, c->id, m->handle, m->size, bytes);
	if (base == NULL) {
		return -ERANGE;
	}
	for (i = 0; i < XPRT_ATT_MAX_TMS && c->tms[i].used; i++) {
	}
	if (i == XPRT_ATT_MAX_TMS) {
		return -ENOSPC;
	}
	t = &c->tms[i];
	t->gen++;
	t->used = true;
	t->region_slot = xprt_handle_slot(m->handle);
	xprt_shring_attach(&t->ops, base, m->count, sizeof(struct xprt_op), false);
	xprt_shring_attach(&t->evs, base + xprt_att_ev_ring_off(m->count), m->count,
			   sizeof(struct xprt_ev), true);
	c->ntms++;
	svc->st.tms++;
	*handle = xprt_handle_make(i, t->gen);
	return 0;
}

/* One message of @p c, answered; false: the client is to be cut off. */
static bool
xprt_svc_message(struct xprt_svc *svc, struct xprt_svc_client *c, const struct xprt_att_msg *m,
		 int passfd)
{
	struct xprt_att_msg r;
	struct xprt_svc_region *reg;

	if (m->magic != XPRT_ATT_MAGIC || m->version != XPRT_ATT_VERSION ||
	    (m->kind == XPRT_ATT_HELLO) == c->hello ||
	    (m->kind == XPRT_ATT_REGION) != (passfd >= 0)) {
		return false; /* no client makes it: a hello first and once, a region with its fd */
	}
	xprt_att_msg_init(&r, XPRT_ATT_REPLY);
	switch (m->kind) {
	case XPRT_ATT_HELLO:
		c->hello = true;
		c->id = svc->next_id++;
		svc->st.clients++;
		svc->st.attached++;
		r.handle = c->id;
		XPRT_LOG(INFO, "client %" PRIu64 " attached: pid %d uid %u", c->id, (int)c->pid,
			 (unsigned int)c->uid);
		break;
	case XPRT_ATT_REGION:
		r.status = xprt_svc_region_map(svc, c, passfd, m->size, &r.handle);
		break;
	case XPRT_ATT_REGION_DEL:
		reg = xprt_svc_region_find(c, m->handle);
		if (reg == NULL) {
			r.status = -ENOENT;
		} else if (xprt_svc_region_busy(c, xprt_handle_slot(m->handle))) {
			r.status = -EBUSY;
		} else {
			xprt_svc_region_unmap(svc, c, reg);
		}
		break;
	case XPRT_ATT_TM_RINGS:
		r.status = xprt_svc_tm_add(svc, c, m, &r.handle);
		break;
	default:
		return false;
	}
	return xprt_att_send(c->fd, &r, -1) == 0;
}

/* Read and answer a message of @p c; a client that went or misbehaved is detached. */
static void
xprt_svc_serve(struct xprt_svc *svc, struct xprt_svc_client *c)
{
	struct xprt_att_msg m;
	int passfd;
	int rc = xprt_att_recv(c->fd, &m, &passfd);
	bool ok;

	if (rc == -EAGAIN) {
		return; /* poll's readiness was stale: nothing came */
	}
	pthread_mutex_lock(&svc->lock);
	ok = rc == 0 && xprt_svc_message(svc, c, &m, passfd);
	if (!ok) {
		if (rc != -ECONNRESET) {
			svc->st.failed++;
			XPRT_LOG(WARNING, "client pid %d cut off: %s", (int)c->pid,
				 rc != 0 ? strerror(-rc) : "a message no client makes");
		}
		xprt_svc_detach(svc, c);
	}
	pthread_mutex_unlock(&svc->lock);
	if (passfd >= 0) {
		close(passfd); /* a mapping outlives its descriptor */
	}
}

int
xprt_svc_poll(struct xprt_svc *svc, int timeout_ms)
{
	struct pollfd p[XPRT_ATT_MAX_CLIENTS + 1];
	unsigned int who[XPRT_ATT_MAX_CLIENTS + 1];
	unsigned int n = 0;
	unsigned int i;
	int handled = 0;
	int rc;

	p[n].fd = svc->lfd;
	p[n++].events = POLLIN;
	for (i = 0; i < XPRT_ATT_MAX_CLIENTS; i++) {
		if (svc->clients[i].fd >= 0) {
			who[n] = i;
			p[n].fd = svc->clients[i].fd;
			p[n++].events = POLLIN;
		}
	}
	rc = poll(p, n, timeout_ms);
	if (rc < 0) {
		return errno == EINTR ? 0 : -errno;
	}
	for (i = 1; i < n; i++) {
		if (p[i].revents != 0) {
			xprt_svc_serve(svc, &svc->clients[who[i]]);
			handled++;
		}
	}
	if (p[0].revents != 0) {
		xprt_svc_accept(svc);
		handled++;
	}
	return handled;
}

void
xprt_svc_close(struct xprt_svc *svc)
{
	unsigned int i;

	if (svc == NULL) {
		return;
	}
	pthread_mutex_lock(&svc->lock);
	for (i = 0; i < XPRT_ATT_MAX_CLIENTS; i++) {
		if (svc->clients[i].fd >= 0) {
			xprt_svc_detach(svc, &svc->clients[i]);
		}
	}
	pthread_mutex_unlock(&svc->lock);
	close(svc->lfd);
	(void)unlink(svc->path);
	pthread_mutex_destroy(&svc->lock);
	free(svc->uids);
	free(svc);
}

void
xprt_svc_stats_get(struct xprt_svc *svc, struct xprt_svc_stats *st)
{
	pthread_mutex_lock(&svc->lock);
	*st = svc->st;
	pthread_mutex_unlock(&svc->lock);
}

unsigned int
xprt_svc_clients(struct xprt_svc *svc, struct xprt_svc_client_info *out, unsigned int cap)
{
	unsigned int n = 0;
	unsigned int i;

	pthread_mutex_lock(&svc->lock);
	for (i = 0; i < XPRT_ATT_MAX_CLIENTS && n < cap; i++) {
		const struct xprt_svc_client *c = &svc->clients[i];

		if (c->fd >= 0 && c->hello) {
			out[n++] = (struct xprt_svc_client_info){
				.id = c->id,
				.pid = c->pid,
				.uid = c->uid,
				.regions = c->nregions,
				.mapped_bytes = c->mapped_bytes,
				.tms = c->ntms,
			};
		}
	}
	pthread_mutex_unlock(&svc->lock);
	return n;
}

static struct xprt_svc_client *
xprt_svc_client_find(struct xprt_svc *svc, uint64_t id)
{
	unsigned int i;

	for (i = 0; i < XPRT_ATT_MAX_CLIENTS; i++) {
		struct xprt_svc_client *c = &svc->clients[i];

		if (c->fd >= 0 && c->hello && c->id == id) {
			return c;
		}
	}
	return NULL;
}

int
xprt_svc_tm_rings(struct xprt_svc *svc, uint64_t id, uint64_t tm, struct xprt_shring **ops,
		  struct xprt_shring **evs)
{
	struct xprt_svc_client *c = xprt_svc_client_find(svc, id);
	uint32_t slot = xprt_handle_slot(tm);

	if (c == NULL || slot >= XPRT_ATT_MAX_TMS || !c->tms[slot].used ||
	    c->tms[slot].gen != xprt_handle_gen(tm)) {
		return -ENOENT;
	}
	*ops = &c->tms[slot].ops;
	*evs = &c->tms[slot].evs;
	return 0;
}

void *
xprt_svc_region_ptr(struct xprt_svc *svc, uint64_t id, uint64_t handle, uint64_t off, uint64_t len)
{
	struct xprt_svc_client *c = xprt_svc_client_find(svc, id);
	struct xprt_svc_region *r = c != NULL ? xprt_svc_region_find(c, handle) : NULL;

	/* Written so that no sum can wrap: off <= size, then len <= size - off. */
	if (r == NULL || off > r->size || len > r->size - off) {
		return NULL;
	}
	return (char *)r->base + off;
}
