/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The LND contract: what an LNet network driver (lo, sock, eth, o2ib)
 * implements and what the core offers it. One const ops table per LND,
 * registered at start-up with LNET_LND_REGISTER().
 *
 * Threading: startup runs on the management lcore; shutdown on the NI's
 * data lcore (on the management lcore when the NI fails to join the NI
 * table right after its startup). send/recv run on the data lcore that owns
 * the NI (ni->cpt), except for the loopback NI, which any data lcore drives.
 * An LND registers its pollers on that lcore from startup.
 */
#ifndef LNET_LND_H
#define LNET_LND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "cfs_nid.h"
#include "lnet_tunables.h"
#include "lnet_types.h"
#include "lnet_wire.h"
#include "lnp_api.h"

LNP_BEGIN_DECLS

struct lnet_ni;
struct lnet_msg;
struct lnet_pcap;

/**
 * @name LND capabilities (lnet_lnd_ops.caps)
 * What the core and the daemon ask of an LND, instead of asking which LND
 * it is (as DPDK's RTE_ETH_DEV_CAPA_*). The first five describe the
 * loopback LND.
 * @{
 */
/** Its NIs have no owning data lcore: send and recv run on whichever lcore sends. */
#define LNET_LND_CAP_ANY_CPT (1u << 0)
/** No NI or peer NI tx credits: what it sends never waits for a wire. */
#define LNET_LND_CAP_NO_CREDITS (1u << 1)
/** Its NIs have no health (shown as 0): they cannot fail. */
#define LNET_LND_CAP_NO_HEALTH (1u << 2)
/** Its one NI lives as long as LNet: never added or deleted by net add/del. */
#define LNET_LND_CAP_BUILTIN (1u << 3)
/** Every header it gives lnet_parse() passed lnet_hdr_validate() (its wire decoder's last step). */
#define LNET_LND_CAP_HDR_CHECKED (1u << 4)
/**
 * It may answer a GET itself, by RDMA into the requester's sink (o2iblnd's
 * GET_REQ): its recv() of a matched GET is given the REPLY (see recv), and
 * it completes a GET it sent by RDMA with lnet_get_rdma_done().
 */
#define LNET_LND_CAP_RDMA_GET (1u << 5)
/** @} */

/** One module parameter of an LND and its current value (lnet_lnd_ops.params_get). */
struct lnet_lnd_param {
	const char *name; /**< static: the kernel module's name ("sock_timeout") */
	int value;
	const char *str; /**< static; non-NULL for a named value ("secure"), shown instead */
};

/**
 * A received payload an LND lends to LNet (lnet_lnd_ops.recv_take): the
 * LND embeds it in its buffer object and frees that in release().
 */
struct lnet_rx_payload {
	const struct iovec *iov; /**< where the bytes are, in order */
	unsigned int niov;
	/** Give the buffer back: once, from any lcore (a pool or mbuf free). */
	void (*release)(struct lnet_rx_payload *payload);
};

/** Operations of one LND. */
struct lnet_lnd_ops {
	const char *name; /**< "lo", "tcp", "o2ib" */
	uint32_t type;    /**< enum lnet_lnd_type */
	uint32_t caps;    /**< LNET_LND_CAP_* */
	/** Bring up @p ni (its NID, credits and tunables are set). 0 or -errno. */
	int (*startup)(struct lnet_ni *ni);
	/**
	 * Tear down @p ni, on its data lcore. The LND finalizes every message it
	 * still holds (-ESHUTDOWN), so each one gets its completion event.
	 */
	void (*shutdown)(struct lnet_ni *ni);
	/**
	 * Transmit @p msg (header: lnet_msg_hdr(); payload: lnet_msg_payload()).
	 * Return 0 and call lnet_finalize() when done, or return -errno (the
	 * core finalizes the message with that error).
	 */
	int (*send)(struct lnet_ni *ni, struct lnet_msg *msg);
	/**
	 * Deliver the payload of the message the LND passed to lnet_parse()
	 * with @p private into @p iov at @p offset, @p mlen bytes of @p rlen;
	 * @p msg is NULL when the message is dropped (discard @p rlen bytes).
	 * Call lnet_finalize(msg, status) when done (not when @p msg is NULL).
	 *
	 * A matched GET, with LNET_LND_CAP_RDMA_GET: @p msg is its REPLY, and
	 * @p iov / @p offset / @p mlen (= @p rlen) the REPLY's payload in the
	 * MD. Either the LND sends it itself (writes the bytes into the
	 * requester's sink, then its completion message), calls
	 * lnet_finalize(msg, status) once done and returns 0; or the GET came
	 * without an RDMA request and it returns LNET_LND_RECV_SEND_REPLY,
	 * having consumed the GET: LNet sends the REPLY as for any LND.
	 */
	int (*recv)(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
		    const struct iovec *iov, unsigned int offset, unsigned int mlen,
		    unsigned int rlen);
	/**
	 * Optional: lend LNet the payload of the message passed to lnet_parse()
	 * with @p private, all @p rlen bytes, in memory the LND owns, so the
	 * message can be delivered on another lcore (its MD's) without coming
	 * back to this one for recv(). On the NI's lcore, right after
	 * lnet_parse() handed the header, before recv(). Return 0 with
	 * @p *out set: the LND is done with @p private (recv() will not be
	 * called for it) and LNet calls (*out)->release() once, from any
	 * lcore, when it has copied the bytes out or dropped them. Return
	 * -errno when it cannot (the bytes are not all at hand, no buffer):
	 * recv() comes later, as without this op. An LND whose payloads land
	 * in buffers anyway (mbufs, pre-posted receives) lends those.
	 */
	int (*recv_take)(struct lnet_ni *ni, void *private, unsigned int rlen,
			 struct lnet_rx_payload **out);
	/**
	 * Optional: the NI's LND tunables as `net show -v` prints them under
	 * "lnd tunables", in order. Called on the management lcore; reads only
	 * what startup set. @return the number filled (at most @p max).
	 */
	unsigned int (*tunables)(const struct lnet_ni *ni, struct lnet_ctl_lnd_tunable *out,
				 unsigned int max);
	/**
	 * Optional: what the NI's bytes travel on ("socket", "eth"), a static
	 * string `net show -v` prints as "transport", an extension key after
	 * the kernel's. Called on the management lcore; reads only what
	 * startup set. NULL, or no op: the key is left out.
	 */
	const char *(*transport)(const struct lnet_ni *ni);
	/**
	 * Optional: the LND's own counters (connections, protocol errors, ...)
	 * for telemetry. Called on the NI's data lcore. @return number filled.
	 */
	unsigned int (*counters)(const struct lnet_ni *ni, struct lnet_ctl_lnd_counter *out,
				 unsigned int max);
	/**
	 * Optional: record the NI's traffic into @p cap (lib/pcap), or stop
	 * with NULL. On the NI's data lcore; the LND must not touch @p cap
	 * once it returned from the call that stops it.
	 */
	int (*capture)(struct lnet_ni *ni, struct lnet_pcap *cap);
	/**
	 * Optional: set the LND's module parameters, the defaults every NI
	 * added later starts from, from "NAME=VALUE[,NAME=VALUE...]" by the
	 * kernel module's parameter names (ksocklnd's sock_timeout,
	 * conns_per_peer, ...), as DPDK drivers parse their devargs. All or
	 * nothing. From a thread that is not an lcore, while no NI of this LND
	 * is being added (at start-up).
	 * @return 0; -ENOENT no such parameter; -EINVAL a malformed item or a
	 *         bad or out-of-range value; -EOPNOTSUPP a kernel parameter with
	 *         no meaning here. @p err says which and why.
	 */
	int (*params_set)(const char *list, char *err, size_t errlen);
	/**
	 * Optional: the module parameters and their current values, in a fixed
	 * order. Any thread. @return the number filled (at most @p max).
	 */
	unsigned int (*params_get)(struct lnet_lnd_param *out, unsigned int max);
	/**
	 * Optional: check a new NI's LND tunables (net add --conns-per-peer,
	 * YAML "lnd tunables") as startup would, over the current module
	 * parameters, without adding anything. Any thread. An LND without it
	 * takes no LND tunables. 0, or -errno with @p err saying why.
	 */
	int (*ni_check)(const struct lnet_ctl_lnd_tunables *tun, char *err, size_t errlen);
};

/** lnet_lnd_ops.recv of a GET with LNET_LND_CAP_RDMA_GET: "not by RDMA, LNet sends the REPLY". */
#define LNET_LND_RECV_SEND_REPLY 1

/** Register an LND (called from a constructor; the table must be static). */
LNP_API void lnet_lnd_register(const struct lnet_lnd_ops *ops);

/** Find a registered LND by type. */
LNP_API const struct lnet_lnd_ops *lnet_lnd_find(uint32_t type);

/** Registers @p ops at program start. */
#define LNET_LND_REGISTER(ops)                                                       \
	static void __attribute__((constructor, used)) lnet_lnd_register_##ops(void) \
	{                                                                            \
		lnet_lnd_register(&(ops));                                           \
	}

/**
 * Hand a received header to LNet. Called by the LND on the NI's lcore.
 * @param from the NID of the peer that sent it (the last hop)
 * @param private passed back to the LND's recv()
 * @return 0, or -errno when the header is invalid (the LND should then
 *         close the connection it came from: kernel LNet returns -EPROTO)
 */
LNP_API int lnet_parse(struct lnet_ni *ni, const struct lnet_hdr *hdr, const struct lnet_nid *from,
		       void *private);

/**
 * Count an error the LND saw on @p ni that never became a message (a bad
 * hello, a broken stream): `stats show` errors. On the NI's lcore.
 */
LNP_API void lnet_ni_count_error(struct lnet_ni *ni);

/**
 * On the NI's lcore: @p msg is written whole to the wire, but the LND
 * completes it later (once the peer acknowledged it). Its NI and peer NI
 * credits go back now, as the kernel's are once its LND took the bytes, so
 * what waits for them moves on and the credit counts read as the kernel's;
 * a peer NI kept on another CPT (a net whose NIs span CPTs) gets its
 * credit back at completion instead.
 */
LNP_API void lnet_msg_on_wire(struct lnet_msg *msg);

/** Complete @p msg with @p status (0 or -errno). Any lcore. */
LNP_API void lnet_finalize(struct lnet_msg *msg, int status);

/**
 * Complete @p msg with the error @p status and what it says of the path
 * (@p hstatus, lnet-facts §8.2: a local or remote failure, a timeout),
 * which decides health and whether LNet sends it again over another path
 * instead of completing it. A status of 0 ignores @p hstatus. Any lcore.
 */
LNP_API void lnet_finalize_hstatus(struct lnet_msg *msg, int status, enum lnet_msg_hstatus hstatus);

/** The header of @p msg. */
LNP_API const struct lnet_hdr *lnet_msg_hdr(const struct lnet_msg *msg);

/**
 * The peer NID @p msg goes to on this hop: the header's destination, or
 * the gateway of a route to its net (the header keeps the final one).
 */
LNP_API const struct lnet_nid *lnet_msg_nexthop(const struct lnet_msg *msg);

/**
 * The payload of @p msg: @p *niov fragments at @p *iov, starting @p *offset
 * bytes in, @p *len bytes in all (0 and NULL for messages without payload).
 */
LNP_API void lnet_msg_payload(const struct lnet_msg *msg, unsigned int *niov,
			      const struct iovec **iov, unsigned int *offset, unsigned int *len);

/**
 * Where the REPLY to the GET @p msg lands: its MD's @p *niov fragments at
 * @p *iov from offset 0, @p *len bytes (the GET's sink length), which an
 * LND doing GETs by RDMA advertises to the peer (the fragments stay as they
 * are while the message is the LND's). 0 and NULL for other messages.
 */
LNP_API void lnet_msg_get_sink(const struct lnet_msg *msg, unsigned int *niov,
			       const struct iovec **iov, unsigned int *len);

/**
 * On the NI's lcore: the GET @p getmsg the LND sent by RDMA has its
 * REPLY's @p len bytes in its sink already (o2iblnd's GET_DONE); LNet
 * delivers the REPLY to the GET's MD, on the MD's lcore, as if it had
 * arrived on @p ni (its REPLY event, its counts). The LND then completes
 * @p getmsg as any send. A GET whose RDMA failed is only finalized with the
 * error. @return 0, or -ENOMEM (no message: the REPLY is lost as on a wire)
 */
LNP_API int lnet_get_rdma_done(struct lnet_ni *ni, struct lnet_msg *getmsg, unsigned int len);

/** The NID of @p ni. */
LNP_API const struct lnet_nid *lnet_ni_nid(const struct lnet_ni *ni);

/**
 * The LND tunables given when @p ni was added (NULL: none, the LND's module
 * parameters give them all). Valid during startup() only.
 */
LNP_API const struct lnet_ctl_lnd_tunables *lnet_ni_lnd_tunables(const struct lnet_ni *ni);

struct rt_lcore;
/**
 * The NI's credits and peer_credits (its net tunables), and a new
 * peer_credits: an LND's startup() adjusts them as its kernel module does
 * (ksocklnd clamps peer_credits to credits). Before any peer NI exists.
 */
LNP_API int lnet_ni_credits(const struct lnet_ni *ni);
LNP_API int lnet_ni_peer_credits(const struct lnet_ni *ni);
LNP_API void lnet_ni_set_peer_credits(struct lnet_ni *ni, int peer_credits);

/** The interface @p ni was added on ("" when none). */
LNP_API const char *lnet_ni_ifname(const struct lnet_ni *ni);

/**
 * As an LND's startup() reports where @p ni's device is: @p numa_node (-1:
 * no device or not known, as the kernel's dev_to_node()) becomes the NI's
 * "dev cpt", the CPT of that node, or -1 (CFS_CPT_ANY) when no CPT has it.
 * Selection prefers NIs whose device is close to the message's memory.
 */
LNP_API void lnet_ni_set_dev_node(struct lnet_ni *ni, int numa_node);

/**
 * From the NI's lcore: the LND saw @p ni's link go down (@p up false: the
 * interface is down, has no carrier, or lost the NI's address) or come
 * back. As the kernel's: while down the NI is fatal (selection avoids it,
 * net show says "down"), and each change rebuilds the ping target with the
 * NI's status under a new sequence number, pushed to Multi-Rail peers.
 * Asynchronous; a repeated state changes nothing.
 */
LNP_API void lnet_ni_link_state(struct lnet_ni *ni, bool up);

/** The data lcore that drives @p ni (where send/recv/shutdown run). */
LNP_API struct rt_lcore *lnet_ni_lcore(const struct lnet_ni *ni);

/**
 * LNet's lnd_timeout in seconds, as global show prints it: (transaction_timeout
 * - 1) / (retry_count + 1), at least 1. Followed at runtime: an LND reads it
 * again when it looks at its timeouts, so lnetctl set changes it at once.
 */
LNP_API unsigned int lnet_ni_lnd_timeout(const struct lnet_ni *ni);

/** LND-private data of @p ni. */
LNP_API void *lnet_ni_lnd_data(const struct lnet_ni *ni);
LNP_API void lnet_ni_set_lnd_data(struct lnet_ni *ni, void *data);

/**
 * Copy @p len bytes from (@p src_iov, @p src_off) into (@p dst_iov,
 * @p dst_off). Both fragment lists must be long enough.
 */
LNP_API void lnet_iov_copy(const struct iovec *dst_iov, unsigned int dst_niov, unsigned int dst_off,
			   const struct iovec *src_iov, unsigned int src_niov, unsigned int src_off,
			   unsigned int len);

LNP_END_DECLS

#endif /* LNET_LND_H */
