/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP streams of a capture put back together (see capstream.h). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "capstream.h"

/* A TCP segment as captured: @c len bytes on the wire, @c caplen of them here. */
struct capstream_seg {
	uint32_t seq;
	uint32_t len;
	uint32_t caplen;
	uint64_t frame;
	double ts;
	uint8_t *data;
};

static void *
grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap != 0 ? *cap : 16;
	void *q;

	if (need <= *cap) {
		return p;
	}
	while (n < need) {
		n *= 2;
	}
	q = realloc(p, n * elem);
	if (q == NULL) {
		abort(); /* a capture checker out of memory has nothing better to do */
	}
	*cap = n;
	return q;
}

static bool
is_lnet_port(const struct capstream_set *set, uint16_t port)
{
	size_t i;

	for (i = 0; i < set->nports; i++) {
		if (set->ports[i] == port) {
			return true;
		}
	}
	return false;
}

/* The direction a segment belongs to, made when first seen. */
static struct capstream_dir *
dir_of(struct capstream_set *set, uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport)
{
	struct capstream_conn *c;
	size_t i;
	int d;

	for (i = 0; i < set->nconns; i++) {
		for (d = 0; d < 2; d++) {
			struct capstream_dir *x = &set->conns[i].dir[d];

			if (x->saddr == saddr && x->daddr == daddr && x->sport == sport &&
			    x->dport == dport) {
				return x;
			}
		}
	}
	set->conns = grow(set->conns, &set->cap, set->nconns + 1, sizeof(*set->conns));
	c = &set->conns[set->nconns++];
	memset(c, 0, sizeof(*c));
	/* dir[0] is the side that connected to the LNet port */
	d = is_lnet_port(set, dport) ? 0 : 1;
	c->dir[d] = (struct capstream_dir){
		.saddr = saddr, .daddr = daddr, .sport = sport, .dport = dport
	};
	c->dir[1 - d] = (struct capstream_dir){
		.saddr = daddr, .daddr = saddr, .sport = dport, .dport = sport
	};
	return &c->dir[d];
}

static void
dir_add_seg(struct capstream_dir *d, const struct tcphdr *tcp, const uint8_t *p, uint32_t len,
	    uint32_t caplen, uint64_t frame, double ts)
{
	struct capstream_seg *s;

	if (d->first_frame == 0) {
		d->first_frame = frame;
	}
	d->last_frame = frame;
	if (tcp->syn) {
		d->syn = true;
		d->based = true;
		d->base = ntohl(tcp->seq) + 1;
	}
	if (tcp->fin || tcp->rst) {
		d->fin = true;
	}
	if (len == 0) {
		return;
	}
	d->segs = grow(d->segs, &d->segs_cap, d->nsegs + 1, sizeof(*d->segs));
	s = &d->segs[d->nsegs++];
	s->seq = ntohl(tcp->seq);
	s->len = len;
	s->caplen = caplen;
	s->frame = frame;
	s->ts = ts;
	s->data = malloc(caplen != 0 ? caplen : 1);
	if (s->data == NULL) {
		abort();
	}
	memcpy(s->data, p, caplen);
}

/* Where the IPv4 header starts in a frame of @p linktype, or SIZE_MAX when it is not IPv4. */
static size_t
ip_offset(int linktype, const uint8_t *pkt, size_t caplen)
{
	size_t off;
	uint16_t et;

	switch (linktype) {
	case DLT_EN10MB:
		off = 12;
		break;
	case DLT_LINUX_SLL:
		off = 14;
		break;
	case DLT_RAW:
		return caplen > 0 && (pkt[0] >> 4) == 4 ? 0 : SIZE_MAX;
	default:
		return SIZE_MAX;
	}
	if (caplen < off + 2) {
		return SIZE_MAX;
	}
	et = (uint16_t)(pkt[off] << 8 | pkt[off + 1]);
	while (et == 0x8100 && caplen >= off + 6) { /* 802.1Q tags */
		off += 4;
		et = (uint16_t)(pkt[off] << 8 | pkt[off + 1]);
	}
	return et == 0x0800 ? off + 2 : SIZE_MAX;
}

/* One frame: a TCP segment to or from an LNet port goes to its direction. */
static void
add_frame(struct capstream_set *set, int linktype, const struct pcap_pkthdr *h, const uint8_t *pkt)
{
	size_t ip_off = ip_offset(linktype, pkt, h->caplen);
	struct iphdr ip;
	struct tcphdr tcp;
	size_t tcp_off, data_off, ip_end, have;

	/* Frames are not aligned: copy the headers out. */
	if (ip_off == SIZE_MAX || h->caplen < ip_off + sizeof(ip)) {
		return;
	}
	memcpy(&ip, pkt + ip_off, sizeof(ip));
	tcp_off = ip_off + ip.ihl * 4U;
	if (ip.version != 4 || ip.ihl < 5 || ip.protocol != IPPROTO_TCP ||
	    (ntohs(ip.frag_off) & 0x3fff) != 0 || h->caplen < tcp_off + sizeof(tcp)) {
		return;
	}
	memcpy(&tcp, pkt + tcp_off, sizeof(tcp));
	if (!is_lnet_port(set, ntohs(tcp.source)) && !is_lnet_port(set, ntohs(tcp.dest))) {
		return;
	}
	data_off = tcp_off + tcp.doff * 4U;
	ip_end = ip_off + ntohs(ip.tot_len);
	if (tcp.doff < 5 || ip_end < data_off) {
		return;
	}
	/* A short Ethernet frame carries padding past the IP datagram: not data. */
	have = h->caplen < ip_end ? h->caplen : ip_end;
	dir_add_seg(dir_of(set, ip.saddr, ip.daddr, ntohs(tcp.source), ntohs(tcp.dest)), &tcp,
		    pkt + data_off, (uint32_t)(ip_end - data_off),
		    have > data_off ? (uint32_t)(have - data_off) : 0, set->frames, set->last_ts);
}

static int
seg_cmp(const void *a, const void *b)
{
	const struct capstream_seg *x = a, *y = b;

	if (x->seq != y->seq) {
		return x->seq < y->seq ? -1 : 1;
	}
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static void
add_hole(struct capstream_dir *d, size_t *holes_cap, size_t off, size_t len)
{
	if (d->nholes > 0 && d->holes[d->nholes - 1].off + d->holes[d->nholes - 1].len == off) {
		d->holes[d->nholes - 1].len += len;
		return;
	}
	d->holes = grow(d->holes, holes_cap, d->nholes + 1, sizeof(*d->holes));
	d->holes[d->nholes++] = (struct capstream_hole){ off, len };
}

/*
 * Order the segments and lay them end to end. Sequence numbers become
 * offsets from the first byte (after the SYN, or the lowest seen), taken
 * modulo 2^32 so a stream may wrap; bytes already laid are retransmitted
 * ones and skipped, a jump forward is a hole.
 */
static void
dir_assemble(struct capstream_dir *d, size_t max_len)
{
	size_t data_cap = 0, marks_cap = 0, holes_cap = 0;
	uint32_t lowest = 0;
	size_t i;

	if (d->nsegs == 0) {
		return;
	}
	if (!d->based) {
		/* mid-stream: the lowest sequence number, wrap allowed, is byte 0 */
		lowest = d->segs[0].seq;
		for (i = 1; i < d->nsegs; i++) {
			if ((int32_t)(d->segs[i].seq - lowest) < 0) {
				lowest = d->segs[i].seq;
			}
		}
		d->base = lowest;
	}
	for (i = 0; i < d->nsegs; i++) {
		d->segs[i].seq -= d->base; /* now an offset */
	}
	qsort(d->segs, d->nsegs, sizeof(*d->segs), seg_cmp);
	for (i = 0; i < d->nsegs; i++) {
		struct capstream_seg *s = &d->segs[i];
		size_t end = (size_t)s->seq + s->len;
		size_t from = d->len > s->seq ? d->len - s->seq : 0; /* first new byte in s */

		if (end <= d->len || (int32_t)s->seq < 0) {
			continue; /* retransmitted, or before a SYN's first byte */
		}
		if (end > max_len) {
			d->cut = true;
			break;
		}
		d->data = grow(d->data, &data_cap, end, 1);
		if (s->seq > d->len) {
			add_hole(d, &holes_cap, d->len, s->seq - d->len);
			memset(d->data + d->len, 0, s->seq - d->len);
		}
		d->marks = grow(d->marks, &marks_cap, d->nmarks + 1, sizeof(*d->marks));
		d->marks[d->nmarks++] = (struct capstream_mark){ s->seq + from, s->frame, s->ts };
		if (from < s->caplen) {
			memcpy(d->data + s->seq + from, s->data + from, s->caplen - from);
		}
		if (s->caplen < s->len) { /* the snap length cut the frame */
			size_t lo = s->seq + (from > s->caplen ? from : s->caplen);

			add_hole(d, &holes_cap, lo, end - lo);
			memset(d->data + lo, 0, end - lo);
		}
		d->len = end;
	}
	for (i = 0; i < d->nsegs; i++) {
		free(d->segs[i].data);
	}
	free(d->segs);
	d->segs = NULL;
	d->nsegs = 0;
}

int
capstream_read(FILE *f, struct capstream_set *set, char *err)
{
	pcap_t *pc = pcap_fopen_offline(f, err);
	struct pcap_pkthdr *h;
	const uint8_t *pkt;
	size_t max_len = set->max_len != 0 ? set->max_len : CAPSTREAM_MAX_LEN;
	int linktype, rc;
	size_t i;

	if (pc == NULL) {
		fclose(f);
		return -1;
	}
	linktype = pcap_datalink(pc);
	while ((rc = pcap_next_ex(pc, &h, &pkt)) == 1) {
		set->frames++;
		set->last_ts = (double)h->ts.tv_sec + (double)h->ts.tv_usec / 1e6;
		add_frame(set, linktype, h, pkt);
	}
	if (rc == PCAP_ERROR) {
		/* a capture cut short: keep what came before, as tshark does */
		snprintf(err, PCAP_ERRBUF_SIZE, "%s", pcap_geterr(pc));
	} else {
		err[0] = '\0';
	}
	pcap_close(pc); /* closes @p f */
	for (i = 0; i < set->nconns; i++) {
		dir_assemble(&set->conns[i].dir[0], max_len);
		dir_assemble(&set->conns[i].dir[1], max_len);
	}
	return 0;
}

const struct capstream_mark *
capstream_mark_at(const struct capstream_dir *d, size_t off)
{
	size_t lo = 0, hi = d->nmarks;

	/* the last mark at or before @p off */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->marks[mid].off <= off) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo == 0 ? NULL : &d->marks[lo - 1];
}

uint64_t
capstream_frame_at(const struct capstream_dir *d, size_t off)
{
	const struct capstream_mark *m = capstream_mark_at(d, off);

	return m != NULL ? m->frame : 0;
}

/* The first hole that ends after @p off (holes are sorted and apart): nholes when none. */
static size_t
first_hole_after(const struct capstream_dir *d, size_t off)
{
	size_t lo = 0, hi = d->nholes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->holes[mid].off + d->holes[mid].len <= off) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

bool
capstream_present(const struct capstream_dir *d, size_t off, size_t len)
{
	size_t i;

	if (off + len > d->len) {
		return false;
	}
	i = first_hole_after(d, off);
	return i == d->nholes || d->holes[i].off >= off + len;
}

size_t
capstream_hole_end(const struct capstream_dir *d, size_t off)
{
	size_t i = first_hole_after(d, off);

	if (i < d->nholes && d->holes[i].off <= off) {
		return d->holes[i].off + d->holes[i].len;
	}
	return off;
}

void
capstream_free(struct capstream_set *set)
{
	size_t i;
	int d;

	for (i = 0; i < set->nconns; i++) {
		for (d = 0; d < 2; d++) {
			struct capstream_dir *x = &set->conns[i].dir[d];
			size_t j;

			for (j = 0; j < x->nsegs; j++) {
				free(x->segs[j].data);
			}
			free(x->segs);
			free(x->data);
			free(x->marks);
			free(x->holes);
		}
	}
	free(set->conns);
	set->conns = NULL;
	set->nconns = 0;
}
