/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * TCP streams of a capture put back together, one byte array per direction
 * of a connection, with the frame number that carried each byte. Segments
 * are ordered by sequence number, so retransmissions and out-of-order
 * arrival do not matter; bytes the capture lacks (lost segments, a snap
 * length shorter than the frame, a stream caught mid-way) are holes of
 * known length, zero-filled, that a reader must skip.
 */
#ifndef CAPSTREAM_H
#define CAPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Which frame carried the bytes from @c off on. */
struct capstream_mark {
	size_t off;
	uint64_t frame;
	double ts; /**< its capture time, seconds */
};

/** Bytes the capture does not hold. */
struct capstream_hole {
	size_t off;
	size_t len;
};

/** One direction of a TCP connection. */
struct capstream_dir {
	uint32_t saddr, daddr; /**< IPv4, network order */
	uint16_t sport, dport; /**< host order */
	bool syn;              /**< began with a SYN: the stream is whole from its start */
	bool fin;              /**< a FIN or RST ended it */
	bool cut;              /**< longer than CAPSTREAM_MAX_LEN: the rest was dropped */
	uint64_t first_frame, last_frame;
	uint8_t *data;
	size_t len;
	struct capstream_mark *marks; /**< by offset */
	size_t nmarks;
	struct capstream_hole *holes; /**< by offset */
	size_t nholes;
	/* while reading: segments not yet ordered */
	struct capstream_seg *segs;
	size_t nsegs, segs_cap;
	uint32_t base; /**< sequence number of byte 0 */
	bool based;
};

/** A connection: dir[0] towards the LNet port (the active side), dir[1] back. */
struct capstream_conn {
	struct capstream_dir dir[2];
};

struct capstream_set {
	struct capstream_conn *conns;
	size_t nconns, cap;
	uint64_t frames;       /**< frames read */
	double last_ts;        /**< the last frame's time, seconds */
	const uint16_t *ports; /**< the LNet ports */
	size_t nports;
	size_t max_len; /**< longest direction kept; 0: CAPSTREAM_MAX_LEN */
};

/** No stream direction grows past this by default; the rest is dropped and @c cut set. */
#define CAPSTREAM_MAX_LEN (256U << 20)

/**
 * Read a pcap or pcapng capture from @p f, which is closed, into @p set,
 * whose ports must be set. @return 0, or -1 with @p err (PCAP_ERRBUF_SIZE)
 * filled when the file is not a capture libpcap reads. A capture cut short
 * is read up to the cut and returns 0 with @p err saying so.
 */
int capstream_read(FILE *f, struct capstream_set *set, char *err);

/** The mark of the frame that carried byte @p off of @p d (NULL when there is none). */
const struct capstream_mark *capstream_mark_at(const struct capstream_dir *d, size_t off);

/** The frame that carried byte @p off of @p d (0 when there is none). */
uint64_t capstream_frame_at(const struct capstream_dir *d, size_t off);

/** True when bytes [@p off, @p off + @p len) are all in @p d. */
bool capstream_present(const struct capstream_dir *d, size_t off, size_t len);

/** The end of the hole holding byte @p off, or @p off when it is present. */
size_t capstream_hole_end(const struct capstream_dir *d, size_t off);

void capstream_free(struct capstream_set *set);

#endif /* CAPSTREAM_H */
