/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Capture of LND traffic to a pcapng file (or classic pcap, written by
 * libpcap, which cannot write pcapng), for Wireshark. LNDs over
 * kernel sockets never see frames, so their byte streams are framed here as
 * Ethernet/IPv4/TCP with the connection's real addresses and ports and
 * continuous sequence numbers (a SYN exchange for connections opened while
 * capturing). Data lcores only copy into a record and enqueue it on a
 * lockless ring; a writer thread of the capture's own does the file I/O.
 * Nothing blocks and nothing waits: a full ring or the size bound drops
 * records and counts them.
 */
#ifndef LND_CAPTURE_H
#define LND_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "lnp_api.h"

LNP_BEGIN_DECLS

struct lnd_capture;

struct lnd_capture_stats {
	uint64_t packets;         /**< frames written */
	uint64_t bytes;           /**< bytes written to the file (with pcap headers) */
	uint64_t dropped;         /**< frames not written: ring full or size bound */
	uint64_t max_bytes;       /**< the bound; 0: none */
};

enum lnd_capture_format {
	LND_CAPTURE_PCAPNG = 0,   /**< one section, one Ethernet interface, enhanced packet blocks */
	LND_CAPTURE_PCAP,         /**< classic libpcap format */
};

/**
 * Open @p file for writing and start the writer. @p comment (may be NULL)
 * names what is captured: pcapng keeps it as the interface's description.
 * 0 or -errno (@p err says why).
 */
LNP_API int lnd_capture_open(const char *file, enum lnd_capture_format format,
			     const char *comment, uint64_t max_bytes, struct lnd_capture **out,
			     char *err, size_t errlen);
/**
 * Stop: once no LND can still enqueue (every NI detached on its lcore),
 * write what is queued, close the file and free. @p stats gets the totals.
 */
LNP_API void lnd_capture_close(struct lnd_capture *cap, struct lnd_capture_stats *stats);
LNP_API void lnd_capture_stats_get(const struct lnd_capture *cap, struct lnd_capture_stats *out);

/** One TCP connection as the capture shows it (addresses and ports in network order). */
struct lnd_capture_flow {
	bool v6;                  /**< IPv6: 16-byte addresses; else IPv4 in the first 4 */
	uint8_t local_ip[16];
	uint8_t remote_ip[16];
	uint16_t local_port;
	uint16_t remote_port;
	uint32_t seq_out;         /**< next sequence number we send */
	uint32_t seq_in;          /**< next one the peer sends */
	bool known;               /**< addresses filled */
	bool synced;              /**< stream bytes are being recorded */
};

/** Fill @p f from a connected socket; @p opened_now: the SYN exchange is recorded too. */
LNP_API void lnd_capture_flow_init(struct lnd_capture *cap, struct lnd_capture_flow *f, int fd,
				   bool active, bool opened_now);

/**
 * @p n bytes of @p f's stream went out (@p out) or came in, as @p iov
 * holds them. @p boundary: they start a message, so a flow opened before
 * the capture may start being recorded here (Wireshark's LNet dissector
 * reads a message from the start of a segment).
 */
LNP_API void lnd_capture_stream(struct lnd_capture *cap, struct lnd_capture_flow *f, bool out,
				bool boundary, const struct iovec *iov, int iovcnt, size_t n);

/** The connection closed: a FIN each way. */
LNP_API void lnd_capture_fin(struct lnd_capture *cap, struct lnd_capture_flow *f);

LNP_END_DECLS

#endif /* LND_CAPTURE_H */
