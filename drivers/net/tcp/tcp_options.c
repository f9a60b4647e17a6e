/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP options: parsing, the layouts we send (as Linux), and what the handshake
 * settles from them.
 */
#include <string.h>

#include <rte_byteorder.h>

#include "tcp_internal.h"

/* RFC 2018 blocks: 8 bytes each (a length that is not is ignored), at most 4. */
static void
parse_sack(const uint8_t *p, size_t len, struct net_tcp_opts *o)
{
	if (len == 0 || len % 8 != 0) {
		return;
	}
	o->nsack = (uint8_t)RTE_MIN(len / 8, RTE_DIM(o->sack));
	for (uint8_t k = 0; k < o->nsack; k++) {
		uint32_t e[2];

		memcpy(e, &p[8 * k], sizeof(e));
		o->sack[k].start = rte_be_to_cpu_32(e[0]);
		o->sack[k].end = rte_be_to_cpu_32(e[1]);
	}
}

bool
net_tcp_parse_opts(const uint8_t *p, size_t len, struct net_tcp_opts *o)
{
	size_t i = 0;

	memset(o, 0, sizeof(*o));
	o->wscale = -1;
	while (i < len) {
		uint8_t kind = p[i], olen;

		if (kind == OPT_EOL) {
			break;
		}
		if (kind == OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len) {
			return false;
		}
		olen = p[i + 1];
		if (olen < 2 || i + olen > len) {
			return false;
		}
		switch (kind) {
		case OPT_MSS:
			if (olen == 4) {
				o->mss = (uint16_t)(p[i + 2] << 8 | p[i + 3]);
			}
			break;
		case OPT_WS:
			if (olen == 3) {
				o->wscale = (int8_t)RTE_MIN(p[i + 2], TCP_MAX_WSCALE);
			}
			break;
		case OPT_SACK_PERM:
			o->sack_ok = olen == 2;
			break;
		case OPT_SACK:
			parse_sack(&p[i + 2], olen - 2u, o);
			break;
		case OPT_TS:
			if (olen == 10) {
				uint32_t v, e;

				memcpy(&v, &p[i + 2], 4);
				memcpy(&e, &p[i + 6], 4);
				o->ts = true;
				o->tsval = rte_be_to_cpu_32(v);
				o->tsecr = rte_be_to_cpu_32(e);
			}
			break;
		default:
			break;
		}
		i += olen;
	}
	return true;
}

/* The options of a SYN (or SYN-ACK), laid out as Linux does. */
size_t
tcp_syn_opts(const struct net_tcp_conn *c, uint8_t *o, bool ws, bool sack, bool ts, uint16_t mss)
{
	size_t n = 0;

	o[n++] = OPT_MSS;
	o[n++] = 4;
	o[n++] = (uint8_t)(mss >> 8);
	o[n++] = (uint8_t)mss;
	if (sack && ts) {
		o[n++] = OPT_SACK_PERM;
		o[n++] = 2;
	} else if (sack) {
		o[n++] = OPT_NOP;
		o[n++] = OPT_NOP;
		o[n++] = OPT_SACK_PERM;
		o[n++] = 2;
	}
	if (ts) {
		uint32_t v = rte_cpu_to_be_32(tcp_ts_now(c->t)), e = rte_cpu_to_be_32(c->ts_recent);

		if (!sack) {
			o[n++] = OPT_NOP;
			o[n++] = OPT_NOP;
		}
		o[n++] = OPT_TS;
		o[n++] = 10;
		memcpy(&o[n], &v, 4);
		memcpy(&o[n + 4], &e, 4);
		n += 8;
	}
	if (ws) {
		o[n++] = OPT_NOP;
		o[n++] = OPT_WS;
		o[n++] = 3;
		o[n++] = (uint8_t)c->rcv_ws;
	}
	return n;
}

/*
 * The options of a segment after the handshake: timestamps, then (@p sack:
 * a segment without data, whose room the MSS does not count on) the SACK
 * blocks, as Linux lays them out.
 */
size_t
tcp_data_opts(struct net_tcp_conn *c, uint8_t *o, bool sack)
{
	size_t n = 0;

	if (c->ts_ok) {
		uint32_t v = rte_cpu_to_be_32(tcp_ts_now(c->t)), e = rte_cpu_to_be_32(c->ts_recent);

		o[0] = OPT_NOP;
		o[1] = OPT_NOP;
		o[2] = OPT_TS;
		o[3] = 10;
		memcpy(&o[4], &v, 4);
		memcpy(&o[8], &e, 4);
		n = 12;
	}
	if (sack && c->sack_ok) {
		n += tcp_sack_opts(c, &o[n]);
	}
	return n;
}

/* Our window shift: the smallest that lets the receive buffer show whole. */
int8_t
tcp_our_wscale(const struct net_tcp *t)
{
	int8_t s = 0;

	while (s < TCP_MAX_WSCALE && (t->conf.rcv_buf >> s) > 65535) {
		s++;
	}
	return s;
}

/* What the handshake settled, from the peer's SYN options. */
void
tcp_negotiate(struct net_tcp_conn *c, const struct net_tcp_opts *o)
{
	const struct net_tcp_conf *cf = &c->t->conf;
	uint16_t our_mss = (uint16_t)(net_port_info(c->t->port)->mtu - 40);

	c->mss_peer = o->mss != 0 ? o->mss : 536;
	if (o->wscale >= 0 && !cf->no_wscale) {
		c->snd_ws = RTE_MIN(o->wscale, TCP_MAX_WSCALE);
		c->rcv_ws = tcp_our_wscale(c->t);
	} else {
		c->snd_ws = -1;
		c->rcv_ws = -1;
	}
	c->sack_ok = o->sack_ok && !cf->no_sack;
	c->ts_ok = o->ts && !cf->no_timestamps;
	if (c->ts_ok) {
		c->ts_recent = o->tsval;
	}
	c->mss_snd = (uint16_t)(RTE_MIN(c->mss_peer, our_mss) - (c->ts_ok ? 12 : 0));
	c->cwnd = TCP_INIT_CWND_SEGS * c->mss_snd;
}
