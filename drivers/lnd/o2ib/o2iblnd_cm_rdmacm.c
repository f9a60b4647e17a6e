/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The o2ib CM calls over librdmacm (o2iblnd_cm.h): one event channel per
 * NI, non-blocking, polled. Each event is copied (with its private data)
 * and acknowledged at once, so an id may be destroyed while its event is
 * being handled (rdma_destroy_id waits for unacknowledged events).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>
#include <rdma/rdma_cma.h>

#include "o2iblnd_cm.h"

#define RDMACM_BACKLOG 256
#define RDMACM_PRIV_PORT_HIGH 1023 /* privileged source ports are tried downwards ... */
#define RDMACM_PRIV_PORT_LOW 512   /* ... to here, as the kernel's kiblnd_resolve_addr */

struct rdmacm_ctx {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listener;
	uint8_t priv[256];
};

int
o2iblnd_cm_rdmacm_open(void **ctx)
{
	struct rdmacm_ctx *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		return -ENOMEM;
	}
	c->ch = rdma_create_event_channel();
	if (c->ch == NULL) {
		free(c);
		return -ENODEV;
	}
	if (fcntl(c->ch->fd, F_SETFL, fcntl(c->ch->fd, F_GETFL) | O_NONBLOCK) != 0) {
		rdma_destroy_event_channel(c->ch);
		free(c);
		return -errno;
	}
	*ctx = c;
	return 0;
}

void
o2iblnd_cm_rdmacm_close(void *ctx)
{
	struct rdmacm_ctx *c = ctx;

	if (c == NULL) {
		return;
	}
	if (c->listener != NULL) {
		rdma_destroy_id(c->listener);
	}
	rdma_destroy_event_channel(c->ch);
	free(c);
}

static struct sockaddr_in
sin_of(uint32_t ipv4, uint16_t port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET,
				     .sin_port = htons(port),
				     .sin_addr.s_addr = ipv4 };
}

static int
rdmacm_listen(void *ctx, uint32_t ipv4, uint16_t port)
{
	struct rdmacm_ctx *c = ctx;
	struct sockaddr_in sin = sin_of(ipv4, port);

	if (rdma_create_id(c->ch, &c->listener, NULL, RDMA_PS_TCP) != 0) {
		return -errno;
	}
	if (rdma_bind_addr(c->listener, (struct sockaddr *)&sin) != 0 ||
	    rdma_listen(c->listener, RDMACM_BACKLOG) != 0) {
		int rc = -errno;

		rdma_destroy_id(c->listener);
		c->listener = NULL;
		return rc;
	}
	return 0;
}

/* Bind @p id to @p src on the highest free privileged port. */
static int
bind_privileged(struct rdma_cm_id *id, uint32_t src)
{
	for (int port = RDMACM_PRIV_PORT_HIGH; port >= RDMACM_PRIV_PORT_LOW; port--) {
		struct sockaddr_in sin = sin_of(src, (uint16_t)port);

		if (rdma_bind_addr(id, (struct sockaddr *)&sin) == 0) {
			return 0;
		}
		if (errno != EADDRINUSE && errno != EADDRNOTAVAIL) {
			return -errno;
		}
	}
	return -EADDRINUSE;
}

static int
rdmacm_resolve_addr(void *ctx, uint32_t src, uint32_t dst, uint16_t port, bool privileged,
		    int timeout_ms, void **idp)
{
	struct rdmacm_ctx *c = ctx;
	struct sockaddr_in s = sin_of(src, 0);
	struct sockaddr_in d = sin_of(dst, port);
	struct rdma_cm_id *id;
	int rc;

	if (rdma_create_id(c->ch, &id, NULL, RDMA_PS_TCP) != 0) {
		return -errno;
	}
	rc = privileged ? bind_privileged(id, src) : 0;
	if (rc == 0 && rdma_resolve_addr(id, privileged ? NULL : (struct sockaddr *)&s,
					 (struct sockaddr *)&d, timeout_ms) != 0) {
		rc = -errno;
	}
	if (rc != 0) {
		rdma_destroy_id(id);
		return rc;
	}
	*idp = id;
	return 0;
}

static int
rdmacm_resolve_route(void *id, int timeout_ms)
{
	return rdma_resolve_route(id, timeout_ms) == 0 ? 0 : -errno;
}

/* No RDMA reads, ever (o2ib-facts §2.1): no responder resources nor initiator depth. */
static struct rdma_conn_param
conn_param(const void *priv, uint8_t len, uint8_t retry, uint8_t rnr_retry)
{
	return (struct rdma_conn_param){ .private_data = priv,
					 .private_data_len = len,
					 .responder_resources = 0,
					 .initiator_depth = 0,
					 .flow_control = 1,
					 .retry_count = retry,
					 .rnr_retry_count = rnr_retry };
}

static int
rdmacm_connect(void *id, const void *priv, uint8_t len, uint8_t retry, uint8_t rnr_retry)
{
	struct rdma_conn_param p = conn_param(priv, len, retry, rnr_retry);

	return rdma_connect(id, &p) == 0 ? 0 : -errno;
}

static int
rdmacm_accept(void *id, const void *priv, uint8_t len, uint8_t retry, uint8_t rnr_retry)
{
	struct rdma_conn_param p = conn_param(priv, len, retry, rnr_retry);

	return rdma_accept(id, &p) == 0 ? 0 : -errno;
}

static int
rdmacm_reject(void *id, const void *priv, uint8_t len)
{
	return rdma_reject(id, priv, len) == 0 ? 0 : -errno;
}

static int
rdmacm_disconnect(void *id)
{
	return rdma_disconnect(id) == 0 ? 0 : -errno;
}

static void
rdmacm_destroy(void *id)
{
	rdma_destroy_id(id); /* its QP went with o2ib_hw_ops.qp_destroy */
}

static enum o2iblnd_cm_ev_type
ev_type(enum rdma_cm_event_type t)
{
	switch (t) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		return O2IBLND_CM_ADDR_RESOLVED;
	case RDMA_CM_EVENT_ADDR_ERROR:
		return O2IBLND_CM_ADDR_ERROR;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		return O2IBLND_CM_ROUTE_RESOLVED;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return O2IBLND_CM_ROUTE_ERROR;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return O2IBLND_CM_CONNECT_REQUEST;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return O2IBLND_CM_CONNECT_ERROR;
	case RDMA_CM_EVENT_UNREACHABLE:
		return O2IBLND_CM_UNREACHABLE;
	case RDMA_CM_EVENT_REJECTED:
		return O2IBLND_CM_REJECTED;
	case RDMA_CM_EVENT_ESTABLISHED:
		return O2IBLND_CM_ESTABLISHED;
	case RDMA_CM_EVENT_DISCONNECTED:
		return O2IBLND_CM_DISCONNECTED;
	default:
		return O2IBLND_CM_OTHER;
	}
}

static int
rdmacm_get_event(void *ctx, struct o2iblnd_cm_event *out)
{
	struct rdmacm_ctx *c = ctx;
	struct rdma_cm_event *ev;
	uint8_t len;

	if (rdma_get_cm_event(c->ch, &ev) != 0) {
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	}
	len = ev->param.conn.private_data != NULL ? ev->param.conn.private_data_len : 0;
	if (len > 0) {
		memcpy(c->priv, ev->param.conn.private_data, len);
	}
	*out = (struct o2iblnd_cm_event){ ev_type(ev->event), ev->id, ev->status, c->priv, len };
	rdma_ack_cm_event(ev);
	return 0;
}

const struct o2iblnd_cm_ops o2iblnd_cm_rdmacm = {
	.listen = rdmacm_listen,
	.resolve_addr = rdmacm_resolve_addr,
	.resolve_route = rdmacm_resolve_route,
	.connect = rdmacm_connect,
	.accept = rdmacm_accept,
	.reject = rdmacm_reject,
	.disconnect = rdmacm_disconnect,
	.destroy = rdmacm_destroy,
	.get_event = rdmacm_get_event,
};
