/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Capture of LND traffic to a pcapng file (or classic pcap, written by
 * libpcap, which cannot write pcapng), for Wireshark. An LND over byte
 * streams (kernel sockets, or the userspace TCP, whose segments are the
 * TCP's business) records what its streams carry, and that is framed here
 * as Ethernet/IPv4/TCP with the connection's real addresses and ports and
 * continuous sequence numbers (a SYN exchange for connections opened while
 * capturing). Data lcores only copy into a record and enqueue it on a
 * lockless ring; a writer thread of the capture's own does the file I/O.
 * Nothing blocks and nothing waits: a full ring or the size bound drops
 * records and counts them.
 *
 * A library of the tree, not of the installed package: the daemon opens and
 * closes a capture (lnetctl capture) and hands it to NIs through
 * lnet_ctl_ni_capture(); an LND's capture op records its streams into it.
 * Open, close and stats_get: any thread that is not an lcore. flow_init,
 * stream and fin: the lcore that owns the flow (they never block).
 */
#ifndef LNET_PCAP_H
#define LNET_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "lnp_api.h"

LNP_BEGIN_DECLS

/** A running capture: one file, its writer thread and the ring to it. */
struct lnet_pcap;

/** A capture's totals. */
struct lnet_pcap_stats {
	uint64_t packets;   /**< frames written */
	uint64_t bytes;     /**< bytes written to the file (with pcap headers) */
	uint64_t dropped;   /**< frames not written: ring full or size bound */
	uint64_t max_bytes; /**< the bound; 0: none */
};

/** The file format. */
enum lnet_pcap_format {
	LNET_PCAP_PCAPNG = 0, /**< one section, one Ethernet interface, enhanced packet blocks */
	LNET_PCAP_PCAP,       /**< classic libpcap format */
};

/**
 * Open @p file for writing and start the writer. @p comment (may be NULL)
 * names what is captured: pcapng keeps it as the interface's description.
 * 0 or -errno (@p err says why).
 */
LNP_API int lnet_pcap_open(const char *file, enum lnet_pcap_format format, const char *comment,
			   uint64_t max_bytes, struct lnet_pcap **out, char *err, size_t errlen);
/**
 * Stop: once no LND can still enqueue (every NI detached on its lcore),
 * write what is queued, close the file and free. @p stats gets the totals.
 */
LNP_API void lnet_pcap_close(struct lnet_pcap *cap, struct lnet_pcap_stats *stats);
LNP_API void lnet_pcap_stats_get(const struct lnet_pcap *cap, struct lnet_pcap_stats *out);

/** One TCP connection as the capture shows it (addresses and ports in network order). */
struct lnet_pcap_flow {
	bool v6; /**< IPv6: 16-byte addresses; else IPv4 in the first 4 */
	uint8_t local_ip[16];
	uint8_t remote_ip[16];
	uint16_t local_port;
	uint16_t remote_port;
	uint32_t seq_out; /**< next sequence number we send */
	uint32_t seq_in;  /**< next one the peer sends */
	bool known;       /**< addresses filled */
	bool synced;      /**< stream bytes are being recorded */
};

/**
 * Fill @p f with a connection's addresses and ports (AF_INET or AF_INET6
 * sockaddrs, @p local ours): any byte stream, a kernel socket's or a
 * userspace TCP's. @p active: we opened it; @p opened_now: the SYN
 * exchange is recorded too. Another family leaves @p f unknown (not
 * recorded).
 */
LNP_API void lnet_pcap_flow_init_addr(struct lnet_pcap *cap, struct lnet_pcap_flow *f,
				      const struct sockaddr *local, const struct sockaddr *remote,
				      bool active, bool opened_now);

/** lnet_pcap_flow_init_addr() with a connected socket's addresses (unknown when it has none). */
LNP_API void lnet_pcap_flow_init(struct lnet_pcap *cap, struct lnet_pcap_flow *f, int fd,
				 bool active, bool opened_now);

/**
 * @p n bytes of @p f's stream went out (@p out) or came in, as @p iov
 * holds them. @p boundary: they start a message, so a flow opened before
 * the capture may start being recorded here (Wireshark's LNet dissector
 * reads a message from the start of a segment).
 */
LNP_API void lnet_pcap_stream(struct lnet_pcap *cap, struct lnet_pcap_flow *f, bool out,
			      bool boundary, const struct iovec *iov, int iovcnt, size_t n);

/** The connection closed: a FIN each way. */
LNP_API void lnet_pcap_fin(struct lnet_pcap *cap, struct lnet_pcap_flow *f);

LNP_END_DECLS

#endif /* LNET_PCAP_H */
