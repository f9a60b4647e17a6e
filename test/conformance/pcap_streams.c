/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP streams of port 988 from a capture (see pcap_streams.h). */
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap_streams.h"

#define ACCEPTOR_PORT 988

static struct stream *
stream_of(struct stream *s, unsigned int *n, const struct iphdr *ip, const struct tcphdr *tcp)
{
	unsigned int i;

	for (i = 0; i < *n; i++) {
		if (s[i].saddr == ip->saddr && s[i].daddr == ip->daddr &&
		    s[i].sport == tcp->source && s[i].dport == tcp->dest) {
			return &s[i];
		}
	}
	if (*n == MAX_STREAMS) {
		return NULL;
	}
	memset(&s[*n], 0, sizeof(s[0]));
	s[*n].saddr = ip->saddr;
	s[*n].daddr = ip->daddr;
	s[*n].sport = tcp->source;
	s[*n].dport = tcp->dest;
	return &s[(*n)++];
}

/* Append in-order bytes; retransmitted or out-of-window bytes are skipped. */
static void
stream_add(struct stream *s, uint32_t seq, const uint8_t *p, size_t n, bool syn)
{
	if (syn) {
		s->next_seq = seq + 1;
		s->started = true;
		s->syn = true;
		return;
	}
	if (!s->started) {
		s->next_seq = seq;
		s->started = true;
	}
	if (n == 0 || seq != s->next_seq) {
		return;
	}
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2;
		s->data = realloc(s->data, s->cap);
	}
	memcpy(s->data + s->len, p, n);
	s->len += n;
	s->next_seq += (uint32_t)n;
}

int
pcap_streams_read(const char *path, struct stream *s, unsigned int *n)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const uint8_t *pkt;

	if (pc == NULL) {
		fprintf(stderr, "%s: %s\n", path, err);
		return -1;
	}
	while (pcap_next_ex(pc, &h, &pkt) == 1) {
		struct iphdr ip;
		struct tcphdr tcp;
		struct stream *st;
		size_t ip_off = 14;
		size_t tcp_off;
		size_t off;

		/* Frames are not aligned: copy the headers out. */
		if (h->caplen < ip_off + sizeof(ip) || pkt[12] != 0x08 || pkt[13] != 0x00) {
			continue;
		}
		memcpy(&ip, pkt + ip_off, sizeof(ip));
		tcp_off = ip_off + ip.ihl * 4U;
		if (ip.protocol != IPPROTO_TCP || h->caplen < tcp_off + sizeof(tcp)) {
			continue;
		}
		memcpy(&tcp, pkt + tcp_off, sizeof(tcp));
		if (ntohs(tcp.source) != ACCEPTOR_PORT && ntohs(tcp.dest) != ACCEPTOR_PORT) {
			continue;
		}
		off = tcp_off + tcp.doff * 4U;
		st = stream_of(s, n, &ip, &tcp);
		if (st != NULL && off <= h->caplen && ip_off + ntohs(ip.tot_len) <= h->caplen) {
			stream_add(st, ntohl(tcp.seq), pkt + off, ip_off + ntohs(ip.tot_len) - off,
				   tcp.syn);
		}
	}
	pcap_close(pc);
	return 0;
}

void
pcap_streams_free(struct stream *s, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		free(s[i].data);
	}
}
