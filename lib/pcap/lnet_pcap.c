/* SPDX-License-Identifier: BSD-3-Clause */
/* pcap capture of LND byte streams, framed as Ethernet/IPv4/TCP (see lnet_pcap.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include <pcap/pcap.h>
#include <rte_ring.h>

#include "lnet_pcap.h"

#define CAP_RING_SIZE 8192 /* records in flight to the writer */
#define CAP_SNAPLEN 65535
#define CAP_SEG_MAX (CAP_SNAPLEN - 74) /* payload per synthesized segment */
#define CAP_HDRS4 54                   /* Ethernet 14 + IPv4 20 + TCP 20 */
#define CAP_HDRS6 74                   /* Ethernet 14 + IPv6 40 + TCP 20 */
#define CAP_PCAP_FILE_HDR 24
#define CAP_PCAP_REC_HDR 16
/* pcapng (draft-ietf-opsawg-pcapng): block types and the fixed parts of blocks */
#define PCAPNG_SHB 0x0A0D0D0AU
#define PCAPNG_IDB 0x00000001U
#define PCAPNG_EPB 0x00000006U
#define PCAPNG_BYTE_ORDER 0x1A2B3C4DU
#define PCAPNG_SHB_LEN 28
#define PCAPNG_EPB_FIXED 32 /* type, length, if, ts x2, caplen, len, length */
#define PCAPNG_OPT_IF_NAME 2
#define PCAPNG_OPT_IF_DESCRIPTION 3
#define PCAPNG_IDB_MAX 512

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_PSH 0x08
#define TCP_ACK 0x10

struct lnet_pcap_rec {
	struct pcap_pkthdr h;
	uint8_t data[];
};

struct lnet_pcap {
	enum lnet_pcap_format format;
	pcap_t *dead; /* classic pcap: libpcap's dumper */
	pcap_dumper_t *dumper;
	FILE *ng;          /* pcapng: our own blocks */
	uint64_t file_hdr; /* bytes before the first record */
	struct rte_ring *ring;
	pthread_t writer;
	bool stop; /* atomic */
	uint64_t max_bytes;
	uint64_t reserved; /* atomic: file bytes promised to records so far */
	uint64_t dropped;  /* atomic */
	uint64_t packets;  /* atomic: written by the writer */
	uint64_t bytes;    /* atomic */
	uint32_t ip_id;    /* atomic */
};

/* ---- pcapng blocks (libpcap reads pcapng but cannot write it) ---- */

static size_t
pcapng_pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* A record's size in the file: what --max-bytes counts. */
static uint64_t
lnet_pcap_rec_size(const struct lnet_pcap *cap, size_t frame)
{
	return cap->format == LNET_PCAP_PCAPNG ? PCAPNG_EPB_FIXED + pcapng_pad4(frame) :
						 CAP_PCAP_REC_HDR + frame;
}

static size_t
pcapng_put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4); /* the section's byte order is ours: readers check the magic */
	return off + 4;
}

static size_t
pcapng_put16x2(uint8_t *b, size_t off, uint16_t hi, uint16_t lo)
{
	memcpy(b + off, &hi, 2);
	memcpy(b + off + 2, &lo, 2);
	return off + 4;
}

static size_t
pcapng_option(uint8_t *b, size_t off, uint16_t code, const char *text)
{
	size_t len = strlen(text);

	memcpy(b + off, &code, 2);
	memcpy(b + off + 2, &(uint16_t){ (uint16_t)len }, 2);
	memset(b + off + 4, 0, pcapng_pad4(len));
	memcpy(b + off + 4, text, len);
	return off + 4 + pcapng_pad4(len);
}

/* Section header, then the one interface: Ethernet, named, described by @p comment. */
static int
pcapng_start(struct lnet_pcap *cap, const char *comment)
{
	uint8_t b[PCAPNG_SHB_LEN + PCAPNG_IDB_MAX];
	char desc[256];
	size_t idb = PCAPNG_SHB_LEN;
	size_t off;

	off = pcapng_put32(b, 0, PCAPNG_SHB);
	off = pcapng_put32(b, off, PCAPNG_SHB_LEN);
	off = pcapng_put32(b, off, PCAPNG_BYTE_ORDER);
	off = pcapng_put16x2(b, off, 1, 0);     /* version 1.0 */
	off = pcapng_put32(b, off, UINT32_MAX); /* section length: unknown (two words) */
	off = pcapng_put32(b, off, UINT32_MAX);
	off = pcapng_put32(b, off, PCAPNG_SHB_LEN);
	off = pcapng_put32(b, off, PCAPNG_IDB);
	off = pcapng_put32(b, off, 0);      /* length, filled below */
	off = pcapng_put16x2(b, off, 1, 0); /* LINKTYPE_ETHERNET, reserved */
	off = pcapng_put32(b, off, CAP_SNAPLEN);
	snprintf(desc, sizeof(desc), "%s", comment != NULL ? comment : "lnetd-pmd");
	off = pcapng_option(b, off, PCAPNG_OPT_IF_NAME, "lnet");
	off = pcapng_option(b, off, PCAPNG_OPT_IF_DESCRIPTION, desc);
	off = pcapng_put32(b, off, 0); /* opt_endofopt */
	off = pcapng_put32(b, off, 0); /* total length, again */
	pcapng_put32(b, idb + 4, (uint32_t)(off - idb));
	pcapng_put32(b, off - 4, (uint32_t)(off - idb));
	cap->file_hdr = off;
	return fwrite(b, 1, off, cap->ng) == off ? 0 : -EIO;
}

static void
pcapng_packet(struct lnet_pcap *cap, const struct pcap_pkthdr *h, const uint8_t *data)
{
	uint64_t us = (uint64_t)h->ts.tv_sec * LNP_US_PER_S + (uint64_t)h->ts.tv_usec;
	uint32_t total = (uint32_t)lnet_pcap_rec_size(cap, h->caplen);
	uint8_t head[28];
	static const uint8_t zero[4];
	size_t off;

	off = pcapng_put32(head, 0, PCAPNG_EPB);
	off = pcapng_put32(head, off, total);
	off = pcapng_put32(head, off, 0); /* interface 0 */
	/* Timestamp in microseconds: the default if_tsresol. */
	off = pcapng_put32(head, off, (uint32_t)(us >> 32));
	off = pcapng_put32(head, off, (uint32_t)us);
	off = pcapng_put32(head, off, h->caplen);
	pcapng_put32(head, off, h->len);
	fwrite(head, 1, sizeof(head), cap->ng);
	fwrite(data, 1, h->caplen, cap->ng);
	fwrite(zero, 1, pcapng_pad4(h->caplen) - h->caplen, cap->ng);
	fwrite(&total, 1, 4, cap->ng);
}

/* ---- the writer ---- */

static void
lnet_pcap_write(struct lnet_pcap *cap, const struct lnet_pcap_rec *r)
{
	if (cap->format == LNET_PCAP_PCAPNG) {
		pcapng_packet(cap, &r->h, r->data);
	} else {
		pcap_dump((u_char *)cap->dumper, &r->h, r->data);
	}
}

static unsigned int
lnet_pcap_drain(struct lnet_pcap *cap)
{
	void *recs[64];
	unsigned int n = rte_ring_sc_dequeue_burst(cap->ring, recs, 64, NULL);
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct lnet_pcap_rec *r = recs[i];

		lnet_pcap_write(cap, r);
		__atomic_fetch_add(&cap->packets, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&cap->bytes, lnet_pcap_rec_size(cap, r->h.caplen),
				   __ATOMIC_RELAXED);
		free(r);
	}
	return n;
}

static void
lnet_pcap_flush(struct lnet_pcap *cap)
{
	if (cap->format == LNET_PCAP_PCAPNG) {
		fflush(cap->ng);
	} else {
		pcap_dump_flush(cap->dumper);
	}
}

static void *
lnet_pcap_writer(void *arg)
{
	struct lnet_pcap *cap = arg;
	struct timespec idle = { 0, (long)LNP_NS_PER_MS };
	bool dirty = false;

	for (;;) {
		if (lnet_pcap_drain(cap) > 0) {
			dirty = true;
			continue;
		}
		if (__atomic_load_n(&cap->stop, __ATOMIC_ACQUIRE)) {
			break;
		}
		if (dirty) {
			lnet_pcap_flush(cap); /* readable while it runs */
			dirty = false;
		}
		nanosleep(&idle, NULL);
	}
	while (lnet_pcap_drain(cap) > 0) {
	}
	return NULL;
}

/* The file, its header written: libpcap's dumper, or our pcapng stream. */
static int
lnet_pcap_file_open(struct lnet_pcap *cap, const char *file, const char *comment, char *err,
		    size_t errlen)
{
	if (cap->format == LNET_PCAP_PCAP) {
		cap->dumper = pcap_dump_open(cap->dead, file);
		if (cap->dumper == NULL) {
			snprintf(err, errlen, "%s", pcap_geterr(cap->dead));
			return -EIO;
		}
		cap->file_hdr = CAP_PCAP_FILE_HDR;
		return 0;
	}
	cap->ng = fopen(file, "wb");
	if (cap->ng == NULL) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -EIO;
	}
	if (pcapng_start(cap, comment) != 0) {
		fclose(cap->ng);
		cap->ng = NULL;
		snprintf(err, errlen, "%s: cannot write", file);
		return -EIO;
	}
	return 0;
}

static void
lnet_pcap_file_close(struct lnet_pcap *cap)
{
	if (cap->dumper != NULL) {
		pcap_dump_close(cap->dumper);
	}
	if (cap->ng != NULL) {
		fclose(cap->ng);
	}
}

int
lnet_pcap_open(const char *file, enum lnet_pcap_format format, const char *comment,
	       uint64_t max_bytes, struct lnet_pcap **out, char *err, size_t errlen)
{
	struct lnet_pcap *cap = calloc(1, sizeof(*cap));
	ssize_t rsz = rte_ring_get_memsize(CAP_RING_SIZE);

	if (cap == NULL || rsz < 0) {
		free(cap);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	cap->format = format;
	cap->max_bytes = max_bytes;
	cap->ring = aligned_alloc(64, ((size_t)rsz + 63) & ~(size_t)63);
	cap->dead = pcap_open_dead(DLT_EN10MB, CAP_SNAPLEN);
	if (cap->ring == NULL || cap->dead == NULL ||
	    rte_ring_init(cap->ring, "lnet_pcap", CAP_RING_SIZE, RING_F_SC_DEQ) != 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (lnet_pcap_file_open(cap, file, comment, err, errlen) != 0) {
		goto fail;
	}
	cap->reserved = cap->file_hdr;
	if (pthread_create(&cap->writer, NULL, lnet_pcap_writer, cap) != 0) {
		lnet_pcap_file_close(cap);
		snprintf(err, errlen, "cannot start the capture writer");
		goto fail;
	}
	*out = cap;
	return 0;
fail:
	if (cap->dead != NULL) {
		pcap_close(cap->dead);
	}
	free(cap->ring);
	free(cap);
	return -EIO;
}

void
lnet_pcap_stats_get(const struct lnet_pcap *cap, struct lnet_pcap_stats *out)
{
	out->packets = __atomic_load_n(&cap->packets, __ATOMIC_RELAXED);
	out->bytes = cap->file_hdr + __atomic_load_n(&cap->bytes, __ATOMIC_RELAXED);
	out->dropped = __atomic_load_n(&cap->dropped, __ATOMIC_RELAXED);
	out->max_bytes = cap->max_bytes;
}

void
lnet_pcap_close(struct lnet_pcap *cap, struct lnet_pcap_stats *stats)
{
	__atomic_store_n(&cap->stop, true, __ATOMIC_RELEASE);
	pthread_join(cap->writer, NULL);
	lnet_pcap_file_close(cap);
	pcap_close(cap->dead);
	if (stats != NULL) {
		lnet_pcap_stats_get(cap, stats);
	}
	free(cap->ring);
	free(cap);
}

/* ---- frames ---- */

static uint32_t
lnet_pcap_sum(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	}
	if (n & 1) {
		sum += (uint32_t)(p[n - 1] << 8);
	}
	return sum;
}

static uint16_t
lnet_pcap_fold(uint32_t sum)
{
	while (sum >> 16) {
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)~sum;
}

static void
lnet_pcap_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
lnet_pcap_put32(uint8_t *p, uint32_t v)
{
	lnet_pcap_put16(p, (uint16_t)(v >> 16));
	lnet_pcap_put16(p + 2, (uint16_t)v);
}

/* A locally administered MAC made of the address's last 4 bytes, so each host keeps one. */
static void
lnet_pcap_mac(uint8_t *p, const uint8_t *ip, bool v6)
{
	p[0] = 0x02;
	p[1] = 0x00;
	memcpy(p + 2, ip + (v6 ? 12 : 0), 4);
}

/* Copy @p len bytes from @p iov starting @p skip bytes in. */
static void
lnet_pcap_gather(uint8_t *dst, const struct iovec *iov, int cnt, size_t skip, size_t len)
{
	int i;

	for (i = 0; i < cnt && len > 0; i++) {
		size_t l = iov[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		l -= skip;
		l = l < len ? l : len;
		memcpy(dst, (const uint8_t *)iov[i].iov_base + skip, l);
		dst += l;
		len -= l;
		skip = 0;
	}
}

struct lnet_pcap_seg {
	bool v6;
	const uint8_t *src_ip, *dst_ip; /* network order: 4 or 16 bytes */
	uint16_t src_port, dst_port;
	uint32_t seq, ack;
	uint8_t flags;
};

static size_t
lnet_pcap_hdrs(const struct lnet_pcap_seg *s)
{
	return s->v6 ? CAP_HDRS6 : CAP_HDRS4;
}

/* The IP header at @p ip; @return the TCP pseudo-header sum. */
static uint32_t
lnet_pcap_ip(struct lnet_pcap *cap, uint8_t *ip, const struct lnet_pcap_seg *s, size_t len)
{
	if (s->v6) {
		lnet_pcap_put32(ip, 0x60000000); /* version 6, no traffic class or flow label */
		lnet_pcap_put16(ip + 4, (uint16_t)(20 + len));
		ip[6] = IPPROTO_TCP;
		ip[7] = 64;
		memcpy(ip + 8, s->src_ip, 16);
		memcpy(ip + 24, s->dst_ip, 16);
		return lnet_pcap_sum(0, ip + 8, 32) + IPPROTO_TCP + (uint32_t)(20 + len);
	}
	ip[0] = 0x45;
	ip[1] = 0;
	lnet_pcap_put16(ip + 2, (uint16_t)(40 + len));
	lnet_pcap_put16(ip + 4, (uint16_t)__atomic_fetch_add(&cap->ip_id, 1, __ATOMIC_RELAXED));
	lnet_pcap_put16(ip + 6, 0x4000); /* don't fragment */
	ip[8] = 64;
	ip[9] = IPPROTO_TCP;
	lnet_pcap_put16(ip + 10, 0);
	memcpy(ip + 12, s->src_ip, 4);
	memcpy(ip + 16, s->dst_ip, 4);
	lnet_pcap_put16(ip + 10, lnet_pcap_fold(lnet_pcap_sum(0, ip, 20)));
	return lnet_pcap_sum(0, ip + 12, 8) + IPPROTO_TCP + (uint32_t)(20 + len);
}

static void
lnet_pcap_headers(struct lnet_pcap *cap, uint8_t *d, const struct lnet_pcap_seg *s,
		  const uint8_t *payload, size_t len)
{
	uint8_t *ip = d + 14;
	uint8_t *tcp = d + lnet_pcap_hdrs(s) - 20;
	uint32_t sum;

	lnet_pcap_mac(d, s->dst_ip, s->v6);
	lnet_pcap_mac(d + 6, s->src_ip, s->v6);
	lnet_pcap_put16(d + 12, s->v6 ? 0x86dd : 0x0800);
	sum = lnet_pcap_ip(cap, ip, s, len);
	memcpy(tcp, &s->src_port, 2);
	memcpy(tcp + 2, &s->dst_port, 2);
	lnet_pcap_put32(tcp + 4, s->seq);
	lnet_pcap_put32(tcp + 8, (s->flags & TCP_ACK) != 0 ? s->ack : 0);
	tcp[12] = 5 << 4;
	tcp[13] = s->flags;
	lnet_pcap_put16(tcp + 14, 65535);
	lnet_pcap_put16(tcp + 16, 0);
	lnet_pcap_put16(tcp + 18, 0);
	/* pseudo header, TCP header, payload */
	sum = lnet_pcap_sum(sum, tcp, 20);
	sum = lnet_pcap_sum(sum, payload, len);
	lnet_pcap_put16(tcp + 16, lnet_pcap_fold(sum));
}

/* One segment of @p len payload bytes (from @p iov, @p skip in): reserve, build, enqueue. */
static void
lnet_pcap_segment(struct lnet_pcap *cap, const struct lnet_pcap_seg *s, const struct iovec *iov,
		  int cnt, size_t skip, size_t len)
{
	size_t hdrs = lnet_pcap_hdrs(s);
	size_t frame = hdrs + len;
	struct lnet_pcap_rec *r;
	struct timeval tv;

	if (cap->max_bytes != 0 &&
	    __atomic_add_fetch(&cap->reserved, lnet_pcap_rec_size(cap, frame), __ATOMIC_RELAXED) >
		    cap->max_bytes) {
		__atomic_fetch_add(&cap->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	r = malloc(sizeof(*r) + frame);
	if (r == NULL) {
		__atomic_fetch_add(&cap->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	gettimeofday(&tv, NULL);
	r->h.ts = tv;
	r->h.caplen = (bpf_u_int32)frame;
	r->h.len = (bpf_u_int32)frame;
	lnet_pcap_gather(r->data + hdrs, iov, cnt, skip, len);
	lnet_pcap_headers(cap, r->data, s, r->data + hdrs, len);
	if (rte_ring_mp_enqueue(cap->ring, r) != 0) {
		free(r);
		__atomic_fetch_add(&cap->dropped, 1, __ATOMIC_RELAXED);
	}
}

static struct lnet_pcap_seg
lnet_pcap_dir(const struct lnet_pcap_flow *f, bool out, uint8_t flags)
{
	struct lnet_pcap_seg s = {
		.v6 = f->v6,
		.src_ip = out ? f->local_ip : f->remote_ip,
		.dst_ip = out ? f->remote_ip : f->local_ip,
		.src_port = out ? f->local_port : f->remote_port,
		.dst_port = out ? f->remote_port : f->local_port,
		.seq = out ? f->seq_out : f->seq_in,
		.ack = out ? f->seq_in : f->seq_out,
		.flags = flags,
	};

	return s;
}

void
lnet_pcap_flow_init(struct lnet_pcap *cap, struct lnet_pcap_flow *f, int fd, bool active,
		    bool opened_now)
{
	struct sockaddr_storage local, remote;
	socklen_t ll = sizeof(local), rl = sizeof(remote);

	if (getsockname(fd, (struct sockaddr *)&local, &ll) != 0 ||
	    getpeername(fd, (struct sockaddr *)&remote, &rl) != 0) {
		memset(f, 0, sizeof(*f));
		return;
	}
	lnet_pcap_flow_init_addr(cap, f, (const struct sockaddr *)&local,
				 (const struct sockaddr *)&remote, active, opened_now);
}

void
lnet_pcap_flow_init_addr(struct lnet_pcap *cap, struct lnet_pcap_flow *f,
			 const struct sockaddr *local, const struct sockaddr *remote, bool active,
			 bool opened_now)
{
	struct lnet_pcap_seg s;

	memset(f, 0, sizeof(*f));
	if (local->sa_family != remote->sa_family) {
		return;
	}
	if (local->sa_family == AF_INET6) {
		const struct sockaddr_in6 *l6 = (const struct sockaddr_in6 *)local;
		const struct sockaddr_in6 *r6 = (const struct sockaddr_in6 *)remote;

		f->v6 = true;
		memcpy(f->local_ip, &l6->sin6_addr, 16);
		memcpy(f->remote_ip, &r6->sin6_addr, 16);
		f->local_port = l6->sin6_port;
		f->remote_port = r6->sin6_port;
	} else if (local->sa_family == AF_INET) {
		const struct sockaddr_in *l4 = (const struct sockaddr_in *)local;
		const struct sockaddr_in *r4 = (const struct sockaddr_in *)remote;

		memcpy(f->local_ip, &l4->sin_addr, 4);
		memcpy(f->remote_ip, &r4->sin_addr, 4);
		f->local_port = l4->sin_port;
		f->remote_port = r4->sin_port;
	} else {
		return;
	}
	f->seq_out = (uint32_t)random();
	f->seq_in = (uint32_t)random();
	f->known = true;
	if (cap == NULL || !opened_now) {
		return;
	}
	/* The three-way handshake, from whichever side opened it. */
	s = lnet_pcap_dir(f, active, TCP_SYN);
	lnet_pcap_segment(cap, &s, NULL, 0, 0, 0);
	s = lnet_pcap_dir(f, !active, TCP_SYN | TCP_ACK);
	s.ack = s.ack + 1;
	lnet_pcap_segment(cap, &s, NULL, 0, 0, 0);
	f->seq_out++;
	f->seq_in++;
	s = lnet_pcap_dir(f, active, TCP_ACK);
	lnet_pcap_segment(cap, &s, NULL, 0, 0, 0);
	f->synced = true;
}

void
lnet_pcap_stream(struct lnet_pcap *cap, struct lnet_pcap_flow *f, bool out, bool boundary,
		 const struct iovec *iov, int iovcnt, size_t n)
{
	size_t done;

	if (cap == NULL || !f->known || n == 0) {
		return;
	}
	if (!f->synced) {
		if (!boundary) {
			return;
		}
		f->synced = true;
	}
	for (done = 0; done < n;) {
		size_t len = n - done < CAP_SEG_MAX ? n - done : CAP_SEG_MAX;
		struct lnet_pcap_seg s = lnet_pcap_dir(f, out, TCP_PSH | TCP_ACK);

		lnet_pcap_segment(cap, &s, iov, iovcnt, done, len);
		if (out) {
			f->seq_out += (uint32_t)len;
		} else {
			f->seq_in += (uint32_t)len;
		}
		done += len;
	}
}

void
lnet_pcap_fin(struct lnet_pcap *cap, struct lnet_pcap_flow *f)
{
	struct lnet_pcap_seg s;

	if (cap == NULL || !f->known || !f->synced) {
		return;
	}
	s = lnet_pcap_dir(f, true, TCP_FIN | TCP_ACK);
	lnet_pcap_segment(cap, &s, NULL, 0, 0, 0);
	f->seq_out++;
	s = lnet_pcap_dir(f, false, TCP_FIN | TCP_ACK);
	lnet_pcap_segment(cap, &s, NULL, 0, 0, 0);
	f->seq_in++;
	s = lnet_pcap_dir(f, true, TCP_ACK);
	lnet_pcap_segment(cap, &s, NULL, 0, 0, 0);
	f->synced = false;
}
