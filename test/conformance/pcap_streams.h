/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP streams to and from port 988 put back together from a capture
 * (pcap or pcapng, through libpcap): bytes in sequence order, one entry per
 * direction of a connection. Retransmitted or out-of-window bytes are
 * skipped; a stream with no SYN starts at its first segment.
 */
#ifndef PCAP_STREAMS_H
#define PCAP_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_STREAMS 64

struct stream {
	uint32_t saddr, daddr; /* network order */
	uint16_t sport, dport; /* network order */
	uint32_t next_seq;
	bool started;
	bool syn; /* it began with a SYN: the whole stream is here */
	uint8_t *data;
	size_t len, cap;
};

/* Read @p path, appending to @p s (*n used). @return 0 or -1 (cannot open). */
int pcap_streams_read(const char *path, struct stream *s, unsigned int *n);
void pcap_streams_free(struct stream *s, unsigned int n);

#endif /* PCAP_STREAMS_H */
