/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The socklnd's parameters: ksocklnd's module parameters and an NI's lnd
 * tunables, checked and turned into the options of one NI
 * (socklnd_params.c). Part of the public socklnd.h.
 */
#ifndef SOCKLND_PARAMS_H
#define SOCKLND_PARAMS_H

#include <stddef.h>

#include "ksock_idl.h" /* LNET_ACCEPTOR_PORT */
#include "lnet_lnd.h"

/** The acceptor's policy (module parameter "accept"). */
enum socklnd_accept {
	SOCKLND_ACCEPT_SECURE = 0, /**< privileged source ports only (default) */
	SOCKLND_ACCEPT_ALL,        /**< any source port */
	SOCKLND_ACCEPT_NONE,       /**< refuse every connection */
};

/*
 * ksocklnd's module parameters (lnet-facts §4.9) that this LND honours, and
 * LNet's acceptor parameters accept_port and accept (the acceptor is the
 * socklnd's here): the LND's defaults (socklnd_params_set()), then each
 * NI's own, with its lnd tunables applied.
 */
struct socklnd_opts {
	int port;           /**< accept_port, 988 */
	int accept;         /**< enum socklnd_accept */
	int min_bulk;       /**< bytes; smaller messages go on CONTROL */
	int conns_per_peer; /**< 0: auto (1 below 10 Gb/s) */
	int timeout;        /**< sock_timeout, seconds */
	int tos;            /**< IP TOS of every connection; -1: unset */
	int enable_csum;    /**< ksm_csum on what we send over V2 connections */
	int typed_conns;    /**< 1: CONTROL + BULK_IN + BULK_OUT; 0: one ANY */
	int nagle;          /**< 0: TCP_NODELAY */
	int keepalive;      /**< s without traffic from a peer before a NOOP ping; 0 off */
	int keepalive_idle; /**< TCP keepalive; any of the three 0: off */
	int keepalive_intvl;
	int keepalive_count;
	int min_reconnectms; /**< reconnect backoff doubles from this ... */
	int max_reconnectms; /**< ... to this */
	int tx_buffer_size;  /**< SO_SNDBUF / SO_RCVBUF; 0: the system's */
	int rx_buffer_size;
};

#define SOCKLND_DEFAULT_TIMEOUT 50

/* conns_per_peer shows as 1: the kernel's auto value on links under 10 Gb/s. */
#define SOCKLND_OPTS_DEFAULT                                                                   \
	{                                                                                      \
		.port = LNET_ACCEPTOR_PORT, .accept = SOCKLND_ACCEPT_SECURE, .min_bulk = 1024, \
		.conns_per_peer = 1, .timeout = SOCKLND_DEFAULT_TIMEOUT, .tos = -1,            \
		.enable_csum = 0, .typed_conns = 1, .nagle = 0, .keepalive = 30,               \
		.keepalive_idle = 30, .keepalive_intvl = 5, .keepalive_count = 5,              \
		.min_reconnectms = 1000, .max_reconnectms = 60000, .tx_buffer_size = 0,        \
		.rx_buffer_size = 0                                                            \
	}

/**
 * Set ksocklnd module parameter @p name (its kernel name) to @p value.
 * @return 0; -ENOENT no such parameter; -EINVAL out of range; -EOPNOTSUPP
 * a parameter of the kernel's that has no meaning here (@p err says why).
 */
int socklnd_param_set(struct socklnd_opts *o, const char *name, long value, char *err,
		      size_t errlen);

/**
 * "name=value[,name=value...]" into @p o, as modprobe takes them (accept
 * by name: secure, all, none): all or nothing.
 */
int socklnd_params_parse(struct socklnd_opts *o, const char *list, char *err, size_t errlen);

/** The parameters this LND honours and their values in @p o; @return how many (<= @p max). */
unsigned int socklnd_params_list(const struct socklnd_opts *o, struct lnet_lnd_param *out,
				 unsigned int max);

/** Check NI options: -EINVAL when out of range. */
int socklnd_opts_check(const struct socklnd_opts *o);

/**
 * The LND's module parameters (lnet_lnd_ops.params_set/params_get): the
 * defaults of every tcp NI started later. lnetd-pmd --socklnd sets them; an
 * application embedding the socklnd sets them before it adds NIs.
 */
int socklnd_params_set(const char *list, char *err, size_t errlen);
unsigned int socklnd_params_get(struct lnet_lnd_param *out, unsigned int max);
/** Reset the module parameters to ksocklnd's defaults (tests). */
void socklnd_params_reset(void);

/**
 * A NI's options: the module parameters, then its lnd tunables @p tun
 * (NULL: none): conns_per_peer, timeout and tos, as `net show -v` names
 * them; conns_per_peer 0 and timeout 0 take the module parameter's value.
 * 0, or -ENOENT (a key it does not take) / -EINVAL (out of range), @p err
 * saying which (may be NULL).
 */
int socklnd_ni_opts(const struct lnet_ctl_lnd_tunables *tun, struct socklnd_opts *out, char *err,
		    size_t errlen);
/** lnet_lnd_ops.ni_check: socklnd_ni_opts() without keeping the result. */
int socklnd_ni_check(const struct lnet_ctl_lnd_tunables *tun, char *err, size_t errlen);

#endif /* SOCKLND_PARAMS_H */
