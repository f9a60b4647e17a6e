/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A socklnd NI's counters, kept on its data lcore. Part of the public
 * socklnd.h.
 */
#ifndef SOCKLND_STATS_H
#define SOCKLND_STATS_H

#include <stdint.h>

#define SOCKLND_STATS_HS_STATES 7   /* sock_conn.h's SOCK_CONN_NSTATES */
#define SOCKLND_STATS_CONN_STATES 5 /* socklnd_ni.h's SOCKLND_CONN_NSTATES */
#define SOCKLND_STATS_PEER_STATES 4 /* socklnd_ni.h's SOCKLND_PEER_NSTATES */

struct socklnd_stats {
	uint64_t accepted;
	uint64_t refused;
	uint64_t conns_up;
	uint64_t conns_closed;
	uint64_t handshake_failures;
	uint64_t proto_errors;
	uint64_t rx_msgs;
	uint64_t
		rx_reads; /**< recv calls that returned bytes: rx_msgs / rx_reads is the batching */
	uint64_t tx_msgs; /**< messages the peer's TCP acknowledged whole (completed) */
	uint64_t tx_writes;  /**< sendmsg calls: tx_msgs / tx_writes is the coalescing */
	uint64_t ack_checks; /**< SIOCOUTQ reads for messages waiting for the peer's TCP ACK */
	uint64_t
		unacked_failed; /**< messages written whole that never got it: failed for a resend */
	uint64_t zc_acks;
	uint64_t no_conn;
	uint64_t connects;
	uint64_t connect_failures;
	uint64_t timeouts;       /**< connections closed for no progress in sock_timeout */
	uint64_t races_won;      /**< peer's connects refused: ours, from the higher NID, win */
	uint64_t duplicates;     /**< peer's connects refused: that type is already up */
	uint64_t stale_conns;    /**< times a new incarnation closed a peer's connections */
	uint64_t handed_off;     /**< accepted connections whose request named another NI */
	uint64_t sibling_closes; /**< a peer's error on one connection closed its others */
	uint64_t tx_requeued;    /**< messages moved off a dead connection, unsent, to the next */
	uint64_t
		handshake_timeouts; /**< accepted connections closed for stalling in the handshake (accept_timeout) */
	uint64_t keepalives;   /**< keepalive NOOPs sent to quiet peers */
	uint64_t csum_checked; /**< received messages whose ksm_csum matched */
	uint64_t csum_errors;  /**< ... that did not: connection closed */
	uint64_t link_checks;  /**< link state looked at again: rtnetlink said something changed */
	uint64_t
		link_reloads; /**< the link table read from the kernel again: notifications were lost */
	uint64_t link_changes; /**< ... and it had changed: reported to LNet */
	uint64_t link_closes;  /**< connections closed: the link to their peer went down */
	uint64_t
		slow_conn_waits; /**< messages that waited SOCKLND_SLOW_US or more for a connection */
	uint64_t
		slow_writes; /**< connections whose socket took nothing for SOCKLND_SLOW_US or more */
	uint64_t
		slow_acks; /**< connections whose peer acknowledged nothing for SOCKLND_SLOW_US or more */
	uint64_t lent; /**< payloads lent to LNet for an MD on another lcore (socklnd_lend.c) */
	uint64_t lend_empty; /**< ... not lent: the lend pool was empty */
	uint64_t hs_entered
		[SOCKLND_STATS_HS_STATES]; /**< handshakes entering each sock_conn_state */
	uint64_t conn_entered[SOCKLND_STATS_CONN_STATES]; /**< connections entering each state */
	uint64_t peer_entered[SOCKLND_STATS_PEER_STATES]; /**< peers entering each state */
};

#endif /* SOCKLND_STATS_H */
