/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A router fed arbitrary traffic: a node in simulated mode with NIs on tcp
 * and tcp1, routing on with tiny pools, a route to tcp5, receives headers
 * the input makes up (any type, source, destination, length, on either
 * NI), while the input also holds, completes and fails its sends, turns
 * routing off and on, resizes the pools and lets time pass. Nothing may
 * crash; once everything is let go, every pool's credits and every peer's
 * router credits are back and no message is left allocated.
 *
 * Input: a sequence of operations, each one byte of kind and its operands.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "lnet_ctl.h"
#include "lnet_mgmt.h"
#include "lnet_sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TCP LNET_MKNET(LNET_LND_SOCK, 0)
#define TCP1 LNET_MKNET(LNET_LND_SOCK, 1)
#define TCP5 LNET_MKNET(LNET_LND_SOCK, 5)
#define HELD_MAX 64

static struct {
	bool up;
	bool hold;
	struct lnet_msg *held[HELD_MAX];
	unsigned int nheld;
	struct lnet_ni *ni[2];
	struct lnet_nid nids[8]; /* what headers name: ours, peers on both nets, far, lo */
} g;

static int
fz_startup(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

static void
fz_shutdown(struct lnet_ni *ni)
{
	(void)ni;
}

static int
fz_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	(void)ni;
	if (g.hold && g.nheld < HELD_MAX) {
		g.held[g.nheld++] = msg;
		return 0;
	}
	lnet_finalize(msg, 0);
	return 0;
}

static int
fz_recv(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
	const struct iovec *iov, unsigned int offset, unsigned int mlen, unsigned int rlen)
{
	(void)ni;
	(void)private;
	(void)niov;
	(void)iov;
	(void)offset;
	(void)mlen;
	(void)rlen;
	if (msg != NULL) {
		lnet_finalize(msg, 0);
	}
	return 0;
}

static const struct lnet_lnd_ops fz_ops = {
	.name = "fzrtr",
	.type = 0xfa,
	.startup = fz_startup,
	.shutdown = fz_shutdown,
	.send = fz_send,
	.recv = fz_recv,
};

static struct lnet_nid
nid_on(uint32_t net, uint32_t addr)
{
	struct lnet_nid n;

	lnet_nid4_to_nid(LNET_MKNID(net, addr), &n);
	return n;
}

static struct lnet *
ln(void)
{
	return lnet_instance();
}

static void
settle(void)
{
	rt_runtime_poll_until_idle(ln()->rt, 50);
}

static struct lnet_ni *
ni_add(struct lnet_nid nid)
{
	struct lnet_ni_req req = {
		.add = true,
		.lnd = &fz_ops,
		.nid = &nid,
		.cpt = 0,
		.tun = { .peer_tx_credits = 2, .max_tx_credits = 4, .peer_rtr_credits = 2 },
	};

	if (lnet_ni_config(ln(), &req) != 0) {
		abort();
	}
	return lnet_ni_find_by_nid(ln(), &nid);
}

static void
fz_up(void)
{
	struct lnet_init_opts o = {
		.opts_size = sizeof(o), .mode = LNET_EXEC_INLINE, .ncpts = 1, .no_eal = true
	};
	static const char *const params[] = { "alive_router_check_interval",
					      "router_ping_timeout" };
	struct lnet_nid gw = nid_on(TCP, 0x0a000009U);
	char err[128];
	unsigned int i;

	if (lnet_init_opts_set(&o) != 0 || LNetNIInit(LNET_PID_LUSTRE) < 0) {
		abort();
	}
	g.ni[0] = ni_add(nid_on(TCP, 0x0a000001U));
	g.ni[1] = ni_add(nid_on(TCP1, 0x0a010001U));
	g.nids[0] = g.ni[0]->nid;
	g.nids[1] = g.ni[1]->nid;
	g.nids[2] = nid_on(TCP, 0x0a000007U);
	g.nids[3] = nid_on(TCP1, 0x0a010008U);
	g.nids[4] = gw;
	g.nids[5] = nid_on(TCP5, 0x0a050002U);
	g.nids[6] = nid_on(LNET_MKNET(LNET_LND_SOCK, 9), 0x0a090002U);
	lnet_nid_set_lo0(&g.nids[7]);
	lnet_ctl_global_set("discovery", 0, err, sizeof(err));
	for (i = 0; i < 2; i++) {
		lnet_ctl_param_set(params[i], 0, err, sizeof(err));
	}
	lnet_ctl_route_add(TCP5, &gw, 1, 0, 0, err, sizeof(err));
	g.up = true;
}

struct fz_parse {
	struct lnet_ni *ni;
	struct lnet_hdr hdr;
	struct lnet_nid from;
};

static int
fz_parse_on_lcore(void *arg)
{
	struct fz_parse *p = arg;

	lnet_parse(p->ni, &p->hdr, &p->from, NULL); /* an error: the LND closes the connection */
	return 0;
}

/* A header from 6 bytes: type, NI, from, src, dest, length, portal. */
static void
fz_deliver(const uint8_t *b)
{
	static const uint32_t lengths[] = { 0, 1, 4096, 4097, LNET_MTU, LNET_MTU + 1, 70000, 8 };
	struct fz_parse p = { .ni = g.ni[b[0] & 1] };

	p.hdr.type = (b[0] >> 1) % 5;
	p.from = g.nids[b[1] & 7];
	p.hdr.src_nid = g.nids[(b[1] >> 3) & 7];
	p.hdr.dest_nid = g.nids[b[2] & 7];
	p.hdr.src_pid = LNET_PID_LUSTRE;
	p.hdr.dest_pid = (b[2] & 0x80) != 0 ? LNET_PID_LUSTRE : 4321;
	p.hdr.payload_length = lengths[(b[2] >> 3) & 7];
	p.hdr.msg.put.ptl_index = b[3] % 68;
	p.hdr.msg.put.match_bits = b[4];
	p.hdr.msg.put.ack_wmd.wh_interface_cookie = b[5];
	p.hdr.msg.put.ack_wmd.wh_object_cookie = b[5] & 3;
	if (lnet_nid_net(&p.from) != p.ni->net_id) {
		return; /* an LND only hands over what came on its own net */
	}
	rt_lcore_call(ln()->cpts[0]->lcore, fz_parse_on_lcore, &p);
}

static void
fz_release(unsigned int i, int status)
{
	struct lnet_msg *msg;

	if (g.nheld == 0) {
		return;
	}
	i %= g.nheld;
	msg = g.held[i];
	g.held[i] = g.held[--g.nheld];
	lnet_finalize(msg, status);
}

static void
fz_small_pools(void)
{
	char err[128];

	lnet_ctl_param_set("tiny_router_buffers", 2, err, sizeof(err));
	lnet_ctl_param_set("small_router_buffers", 2, err, sizeof(err));
	lnet_ctl_param_set("large_router_buffers", 1, err, sizeof(err));
}

static void
fz_op(const uint8_t *b)
{
	char err[128];

	switch (b[0] % 8) {
	case 0:
	case 1:
	case 2:
		fz_deliver(b + 1);
		break;
	case 3:
		fz_release(b[1], 0);
		break;
	case 4:
		fz_release(b[1], (b[2] & 1) != 0 ? -EIO : -ETIMEDOUT);
		break;
	case 5:
		g.hold = (b[1] & 1) != 0;
		break;
	case 6:
		fz_small_pools(); /* routing off put the sizes back to the kernel's (1 GiB) */
		lnet_ctl_routing_set((b[1] & 1) != 0, err, sizeof(err));
		break;
	default:
		if ((b[1] & 1) != 0) {
			lnet_ctl_buffers_set((enum lnet_ctl_rtr_pool_kind)(b[2] % 3), b[3] % 6, err,
					     sizeof(err));
		} else {
			rt_sim_advance_us(ln()->rt, 1000000);
		}
		break;
	}
	settle();
}

/* Every peer NI's router credits home, nothing waiting for one. */
static void
fz_check_peers(void)
{
	const struct lnet_peer_table *pt = &ln()->cpts[0]->peers;
	unsigned int i;

	for (i = 0; i < LNET_PEER_HASH_SIZE; i++) {
		const struct lnet_peer_ni *lpni;

		TAILQ_FOREACH(lpni, &pt->hash[i], link) {
			const struct lnet_ni *ni =
				lnet_ni_find_by_net(ln(), lnet_nid_net(&lpni->nid));
			int full = ni == NULL ? 0 : ni->tun.peer_rtr_credits;

			if (!TAILQ_EMPTY(&lpni->rtrq) || lpni->rtrcredits != full) {
				abort();
			}
		}
	}
}

/* Everything let go: the pools' and the peers' credits are whole, no message is left. */
static void
fz_check(uint32_t msgs_before)
{
	struct lnet_ctl_routing r;
	unsigned int k;

	g.hold = false;
	while (g.nheld > 0) {
		fz_release(0, 0);
		settle();
	}
	rt_sim_advance_us(ln()->rt, 1000000);
	settle();
	if (lnet_ctl_routing_get(&r) != 0) {
		abort();
	}
	for (k = 0; r.ncpts > 0 && k < LNET_CTL_RTR_NPOOLS; k++) {
		if (r.pools[0][k].credits != r.pools[0][k].nbuffers) {
			fprintf(stderr, "pool %u: credits %d of %d\n", k, r.pools[0][k].credits,
				r.pools[0][k].nbuffers);
			abort();
		}
	}
	if (ln()->cpts[0]->counters.msgs_alloc != msgs_before) {
		abort();
	}
	fz_check_peers();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t msgs_before;
	char err[128];
	size_t i;

	if (!g.up) {
		fz_up();
	}
	fz_small_pools();
	lnet_ctl_routing_set(true, err, sizeof(err));
	settle();
	msgs_before = ln()->cpts[0]->counters.msgs_alloc;
	for (i = 0; i + 8 <= size && i < 8 * 256; i += 8) {
		fz_op(data + i);
	}
	fz_check(msgs_before);
	return 0;
}
