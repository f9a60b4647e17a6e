/* SPDX-License-Identifier: BSD-3-Clause */
/* The checks of lnet-capcheck (see capcheck.h). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "capcheck.h"
#include "cfs.h"
#include "ksock_proto.h"
#include "lnet_wire.h"

/* A message as framed, for the checks that span streams (done in frame order). */
struct capcheck_msg {
	uint64_t frame;
	size_t seq; /* order of framing: keeps a frame's messages in stream order */
	size_t conn;
	int dir;
	double ts;
	bool lnet;
	struct ksock_msg km;
	struct lnet_hdr h;
};

/* One direction while it is framed. */
struct dir_state {
	const struct capstream_dir *d;
	size_t conn;
	int dir;
	const struct ksock_proto *proto; /* NULL until a hello or a resync says */
	bool swapped;
	bool have_hello;
	bool stop; /* the handshake went wrong or ended the stream: nothing to frame */
	struct ksock_hello hello;
	size_t off;
};

struct checker {
	const struct capstream_set *set;
	struct capcheck_report *r;
	struct capcheck_msg *msgs;
	size_t nmsgs, msgs_cap;
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
		abort();
	}
	*cap = n;
	return q;
}

static void __attribute__((format(printf, 6, 7)))
report(struct checker *c, const struct dir_state *s, uint64_t frame, enum capcheck_level level,
       const char *kind, const char *fmt, ...)
{
	struct capcheck_report *r = c->r;
	struct capcheck_finding *f;
	va_list ap;

	r->findings = grow(r->findings, &r->cap, r->nfindings + 1, sizeof(*r->findings));
	f = &r->findings[r->nfindings++];
	f->conn = s->conn;
	f->dir = s->dir;
	f->frame = frame;
	f->level = level;
	f->kind = kind;
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	if (level == CAPCHECK_PROBLEM) {
		r->problems++;
	}
}

static struct capcheck_summary *
summary(struct checker *c, const struct dir_state *s)
{
	return &c->r->sum[s->conn * 2 + (size_t)s->dir];
}

static uint64_t
frame_at(const struct dir_state *s, size_t off)
{
	return capstream_frame_at(s->d, off);
}

static const char *
nidstr(const struct lnet_nid *nid, char *buf, size_t len)
{
	return libcfs_nidstr_r(nid, buf, len);
}

static const char *const msg_type_names[] = { "ACK", "PUT", "GET", "REPLY", "HELLO" };

static const char *
msg_type_name(uint32_t type)
{
	return type < 5 ? msg_type_names[type] : "?";
}

static const char *const conn_type_names[] = { "any", "control", "bulk_in", "bulk_out" };

static const char *
conn_type_name(int32_t type)
{
	return type >= 0 && type < SOCKLND_CONN_NTYPES ? conn_type_names[type] : "?";
}

/* ---- the handshake: acceptor request, then hello ---- */

/* The active side's acceptor request; false when the stream cannot go on. */
static bool
check_connreq(struct checker *c, struct dir_state *s)
{
	const struct capstream_dir *d = s->d;
	struct ksock_connreq cr;
	char nid[LNET_NIDSTR_SIZE];
	size_t used = 0;
	int rc;

	if (d->len == 0) {
		return false;
	}
	if (!capstream_present(d, 0, d->len < 28 ? d->len : 28)) {
		report(c, s, frame_at(s, 0), CAPCHECK_NOTE, "resync",
		       "the capture lacks the acceptor request");
		return false;
	}
	rc = ksock_connreq_decode(d->data, d->len, &cr, &used);
	if (rc == -KSOCK_ESHORT) {
		report(c, s, frame_at(s, 0), d->fin ? CAPCHECK_PROBLEM : CAPCHECK_NOTE, "framing",
		       "the stream ends inside the acceptor request (%zu of %zu bytes)", d->len,
		       used);
		s->stop = true;
		return false;
	}
	if (rc != 0) {
		report(c, s, frame_at(s, 0), CAPCHECK_PROBLEM, "connreq",
		       "acceptor request does not decode: %s", ksock_strerror(rc));
		s->stop = true;
		return false;
	}
	if (cr.probe) {
		report(c, s, frame_at(s, 0), CAPCHECK_INFO, "connreq",
		       "acceptor version probe (LNET_PROTO_MAGIC)");
		s->stop = true;
		return false;
	}
	report(c, s, frame_at(s, 0), CAPCHECK_INFO, "connreq",
	       "acceptor request: version %u, target %s%s", cr.version,
	       nidstr(&cr.nid, nid, sizeof(nid)), cr.swapped ? ", byte-swapped" : "");
	s->off = used;
	return true;
}

static bool
check_hello(struct checker *c, struct dir_state *s)
{
	const struct capstream_dir *d = s->d;
	const struct ksock_proto *p;
	char src[LNET_NIDSTR_SIZE], dst[LNET_NIDSTR_SIZE];
	uint64_t frame = frame_at(s, s->off);
	uint32_t version = 0;
	size_t used = 0;
	int rc;

	if (s->off >= d->len) {
		return false;
	}
	if (!capstream_present(d, s->off, d->len - s->off < 8 ? d->len - s->off : 8)) {
		report(c, s, frame, CAPCHECK_NOTE, "resync", "the capture lacks the hello");
		return false;
	}
	rc = ksock_hello_version(d->data + s->off, d->len - s->off, &version, &used);
	p = rc == 0 ? ksock_proto_by_version(version) : NULL;
	if (rc == 0 && p == NULL) {
		rc = -KSOCK_EVERSION;
	}
	if (rc == 0) {
		rc = p->hello_decode(d->data + s->off, d->len - s->off, &s->hello, &used);
	}
	if (rc == -KSOCK_ESHORT) {
		report(c, s, frame, d->fin ? CAPCHECK_PROBLEM : CAPCHECK_NOTE, "framing",
		       "the stream ends inside the hello");
		s->stop = true;
		return false;
	}
	if (rc != 0) {
		report(c, s, frame, CAPCHECK_PROBLEM, "hello", "hello does not decode: %s",
		       ksock_strerror(rc));
		s->stop = true;
		return false;
	}
	s->proto = p;
	s->swapped = s->hello.swapped;
	s->have_hello = true;
	summary(c, s)->version = p->version;
	report(c, s, frame, CAPCHECK_INFO, "hello",
	       "hello V%u%s: %s pid %u -> %s pid %u, incarnation 0x%016" PRIx64
	       " (peer's 0x%016" PRIx64 "), type %s, %u IPs",
	       s->hello.version, s->swapped ? " byte-swapped" : "",
	       nidstr(&s->hello.src_nid, src, sizeof(src)), s->hello.src_pid,
	       nidstr(&s->hello.dst_nid, dst, sizeof(dst)), s->hello.dst_pid,
	       s->hello.src_incarnation, s->hello.dst_incarnation, conn_type_name(s->hello.ctype),
	       s->hello.nips);
	s->off += used;
	return true;
}

/* ---- framing after the hello ---- */

/* Header sizes of @p p: the ksock header (0 for V1) and the LNet header. */
static size_t
frame_hdr_size(const struct ksock_proto *p)
{
	return p->msg_hdr_size + p->lnet_hdr_size;
}

/* Where the bytes present from @p off end: the next hole, or the stream's end. */
static size_t
present_end(const struct capstream_dir *d, size_t off)
{
	size_t i;

	for (i = 0; i < d->nholes; i++) { /* resync runs this only at NOOPs on segment starts */
		if (d->holes[i].off > off) {
			return d->holes[i].off;
		}
	}
	return d->len;
}

/*
 * One message at @p off under @p p: 0 and *@p next past it, or -1. *@p noop
 * says it was a NOOP.
 */
static int
message_at(const struct dir_state *s, const struct ksock_proto *p, bool swapped, size_t off,
	   size_t *next, bool *noop)
{
	const struct capstream_dir *d = s->d;
	struct ksock_msg km = { .type = KSOCK_MSG_LNET };
	struct lnet_hdr h;

	if (!capstream_present(d, off, p->msg_hdr_size)) {
		return -1;
	}
	if (p->msg_hdr_size != 0 &&
	    ksock_msg_hdr_decode(d->data + off, p->msg_hdr_size, swapped, &km) != 0) {
		return -1;
	}
	*noop = km.type == KSOCK_MSG_NOOP;
	if (*noop) {
		*next = off + p->msg_hdr_size;
		return 0;
	}
	if (!capstream_present(d, off, frame_hdr_size(p)) ||
	    p->lnet_hdr_decode(d->data + off + p->msg_hdr_size, p->lnet_hdr_size, &h) != 0) {
		return -1;
	}
	if (s->have_hello && p->version != 1 && !lnet_nid_same(&h.src_nid, &s->hello.src_nid) &&
	    lnet_nid_net(&h.src_nid) == lnet_nid_net(&s->hello.src_nid)) {
		return -1;
	}
	*next = off + frame_hdr_size(p) + h.payload_length;
	return 0;
}

/*
 * Whether messages start at @p off under @p p. An LNET message whose header
 * decodes, followed by another that decodes (or by nothing captured), is
 * not chance. NOOPs are 24 bytes of mostly zeros, easy to find anywhere: a
 * start on one stands only at a segment's first byte and when messages
 * follow each other exactly up to the next hole or the end.
 */
static bool
frames_at(const struct dir_state *s, const struct ksock_proto *p, bool swapped, size_t off)
{
	size_t end = present_end(s->d, off), next;
	bool noop, first_noop;
	int i;

	if (message_at(s, p, swapped, off, &next, &first_noop) != 0) {
		return false;
	}
	if (first_noop) {
		const struct capstream_mark *m = capstream_mark_at(s->d, off);

		if (m == NULL || m->off != off) {
			return false;
		}
		while (next < end) {
			if (message_at(s, p, swapped, next, &next, &noop) != 0) {
				return false;
			}
		}
		return true;
	}
	for (i = 0; i < 1 && next < end; i++) {
		if (message_at(s, p, swapped, next, &next, &noop) != 0) {
			return false;
		}
	}
	return true;
}

/*
 * Find the next message start at or after @p from: under the hello's
 * protocol when there is one, else under each header size (V3's 72-byte
 * LNet header, V4's 96), either byte order. Sets s->off and returns true,
 * or false when none is left.
 */
static bool
resync(struct dir_state *s, size_t from)
{
	static const struct ksock_proto *const guesses[] = { &ksock_proto_v3, &ksock_proto_v4 };
	const struct capstream_dir *d = s->d;
	size_t off;
	int g, sw;

	for (off = capstream_hole_end(d, from); off < d->len; off++) {
		size_t hole_end = capstream_hole_end(d, off);

		if (hole_end != off) {
			off = hole_end - 1; /* nothing starts inside a hole */
			continue;
		}
		if (s->proto != NULL) {
			if (frames_at(s, s->proto, s->swapped, off)) {
				s->off = off;
				return true;
			}
			continue;
		}
		for (g = 0; g < 2; g++) {
			for (sw = 0; sw < 2; sw++) {
				if (frames_at(s, guesses[g], sw != 0, off)) {
					s->proto = guesses[g];
					s->swapped = sw != 0;
					s->off = off;
					return true;
				}
			}
		}
	}
	s->off = d->len;
	return false;
}

/* Lost sync at @p at: say what the capture lacks and where framing resumes. */
static void
resync_report(struct checker *c, struct dir_state *s, size_t at, const char *why)
{
	size_t from = at;

	if (resync(s, from)) {
		report(c, s, frame_at(s, s->off), CAPCHECK_NOTE, "resync",
		       "%s (from frame %" PRIu64 "): resynchronised at frame %" PRIu64
		       ", %zu bytes skipped",
		       why, frame_at(s, from), frame_at(s, s->off), s->off - from);
	} else {
		report(c, s, frame_at(s, from), CAPCHECK_NOTE, "resync",
		       "%s: no message start found in the %zu bytes left", why, s->d->len - from);
	}
}

static void
record(struct checker *c, const struct dir_state *s, size_t off, const struct ksock_msg *km,
       const struct lnet_hdr *h)
{
	const struct capstream_mark *m = capstream_mark_at(s->d, off);
	struct capcheck_msg *x;

	c->msgs = grow(c->msgs, &c->msgs_cap, c->nmsgs + 1, sizeof(*c->msgs));
	x = &c->msgs[c->nmsgs];
	memset(x, 0, sizeof(*x));
	x->frame = m != NULL ? m->frame : 0;
	x->ts = m != NULL ? m->ts : 0;
	x->seq = c->nmsgs++;
	x->conn = s->conn;
	x->dir = s->dir;
	x->km = *km;
	x->lnet = h != NULL;
	if (h != NULL) {
		x->h = *h;
	}
}

/* ksm_csum over header and payload (lnet-facts §4.6), when the capture holds them all. */
static void
check_csum(struct checker *c, const struct dir_state *s, size_t off, size_t total,
	   const struct ksock_msg *km)
{
	const uint8_t *p = s->d->data + off;
	uint32_t crc;

	if (km->csum == 0 || s->proto->msg_hdr_size == 0 || !capstream_present(s->d, off, total)) {
		return;
	}
	crc = ksock_csum_msg_hdr(p);
	crc = ksock_csum_update(crc, p + s->proto->msg_hdr_size, total - s->proto->msg_hdr_size);
	crc = ksock_csum_final(crc);
	if (crc != km->csum) {
		report(c, s, frame_at(s, off), CAPCHECK_PROBLEM, "csum",
		       "ksm_csum 0x%08x, the bytes give 0x%08x", km->csum, crc);
	}
}

/* A header's destination against the hello: same net, so no router between, same NID. */
static void
check_dest(struct checker *c, const struct dir_state *s, size_t off, const struct lnet_hdr *h)
{
	char want[LNET_NIDSTR_SIZE], got[LNET_NIDSTR_SIZE];
	const struct lnet_nid *peer = &s->hello.dst_nid;

	if (!s->have_hello || lnet_nid_is_any(peer) || lnet_nid_same(&h->dest_nid, peer) ||
	    lnet_nid_net(&h->dest_nid) != lnet_nid_net(peer)) {
		return;
	}
	report(c, s, frame_at(s, off), CAPCHECK_PROBLEM, "lnet",
	       "%s to %s on a connection whose hello names %s", msg_type_name(h->type),
	       nidstr(&h->dest_nid, got, sizeof(got)), nidstr(peer, want, sizeof(want)));
}

enum step { STEP_NEXT, STEP_RESYNC, STEP_END };

/* A message that runs past the stream: the peer's fault only when the stream was closed. */
static enum step
past_end(struct checker *c, struct dir_state *s, size_t need, const char *what)
{
	const struct capstream_dir *d = s->d;

	report(c, s, frame_at(s, s->off), d->fin && !d->cut ? CAPCHECK_PROBLEM : CAPCHECK_NOTE,
	       "framing", "%s needs %zu bytes, the stream %s after %zu", what, need,
	       d->fin ? "closed" : "was captured no further", d->len - s->off);
	return STEP_END;
}

/* Frame one message at s->off. */
static enum step
frame_one(struct checker *c, struct dir_state *s)
{
	const struct capstream_dir *d = s->d;
	const struct ksock_proto *p = s->proto;
	struct ksock_msg km = { .type = KSOCK_MSG_LNET };
	struct lnet_hdr h;
	size_t off = s->off, total;
	int rc;

	if (!capstream_present(d, off, p->msg_hdr_size != 0 ? p->msg_hdr_size : p->lnet_hdr_size)) {
		if (off + p->msg_hdr_size > d->len) {
			return past_end(c, s, p->msg_hdr_size, "a ksock header");
		}
		return STEP_RESYNC;
	}
	if (p->msg_hdr_size != 0) {
		rc = ksock_msg_hdr_decode(d->data + off, p->msg_hdr_size, s->swapped, &km);
		if (rc != 0) {
			report(c, s, frame_at(s, off), CAPCHECK_PROBLEM, "framing",
			       "ksock header does not decode: %s", ksock_strerror(rc));
			return STEP_RESYNC;
		}
	}
	if (km.type == KSOCK_MSG_NOOP) {
		summary(c, s)->noops++;
		check_csum(c, s, off, p->msg_hdr_size, &km);
		record(c, s, off, &km, NULL);
		s->off += p->msg_hdr_size;
		return STEP_NEXT;
	}
	if (!capstream_present(d, off, frame_hdr_size(p))) {
		if (off + frame_hdr_size(p) > d->len) {
			return past_end(c, s, frame_hdr_size(p), "an LNet header");
		}
		return STEP_RESYNC;
	}
	rc = p->lnet_hdr_decode(d->data + off + p->msg_hdr_size, p->lnet_hdr_size, &h);
	if (rc != 0) {
		report(c, s, frame_at(s, off), CAPCHECK_PROBLEM, "lnet",
		       "LNet header does not decode: %s", lnet_wire_strerror(rc));
		return STEP_RESYNC;
	}
	total = frame_hdr_size(p) + h.payload_length;
	if (off + total > d->len) {
		return past_end(c, s, total, "a message");
	}
	check_csum(c, s, off, total, &km);
	check_dest(c, s, off, &h);
	summary(c, s)->by_type[h.type < 5 ? h.type : 4]++;
	summary(c, s)->zc_requests += km.zc_cookies[0] != 0;
	record(c, s, off, &km, &h);
	s->off += total;
	return STEP_NEXT;
}

static void
frame_all(struct checker *c, struct dir_state *s)
{
	while (s->off < s->d->len) {
		enum step st = frame_one(c, s);

		if (st == STEP_END) {
			return;
		}
		if (st == STEP_RESYNC) {
			size_t at = s->off;
			bool lacks = !capstream_present(s->d, at, 1);

			resync_report(c, s, lacks ? at : at + 1,
				      lacks ? "the capture lacks bytes" : "framing lost");
		}
	}
}

/* One connection: the handshakes of both sides first (a mid-stream side borrows the other's version). */
static void
check_conn(struct checker *c, size_t conn)
{
	struct dir_state st[2];
	int i;

	for (i = 0; i < 2; i++) {
		const struct capstream_dir *d = &c->set->conns[conn].dir[i];
		struct capcheck_summary *sum = &c->r->sum[conn * 2 + (size_t)i];
		size_t h;

		memset(&st[i], 0, sizeof(st[i]));
		st[i].d = d;
		st[i].conn = conn;
		st[i].dir = i;
		sum->bytes = d->len;
		for (h = 0; h < d->nholes; h++) {
			sum->missing += d->holes[h].len;
		}
		if (d->syn && (i == 1 || check_connreq(c, &st[i]))) {
			check_hello(c, &st[i]);
		}
	}
	for (i = 0; i < 2; i++) {
		struct dir_state *s = &st[i];

		if (s->stop) {
			continue; /* the handshake failed, reported above */
		}
		if (s->proto == NULL) {
			s->proto = st[1 - i].proto;
			s->swapped = st[1 - i].swapped;
			if (s->d->len != 0) {
				resync_report(c, s, s->off,
					      s->d->syn ? "the capture lacks the handshake" :
							  "the capture starts mid-stream");
			}
			summary(c, s)->version = s->proto != NULL ? s->proto->version : 0;
		}
		frame_all(c, s);
	}
}

/* ---- checks across streams, in frame order ---- */

/* What a message left for a later one to answer, keyed by 16 bytes. */
struct sent {
	uint64_t key[2];
	uint64_t frame;
	double ts;
	uint32_t type; /* LNET_MSG_PUT or _GET, or ZC_COOKIE */
	uint32_t sink; /* a GET's sink_length */
	size_t conn;   /* where it was sent */
	int dir;
	bool used; /* answered */
};

#define ZC_COOKIE 0xffffu
#define PUT_NO_ACK 0xfffeu

/* Open addressing, linear probing, at most half full. */
struct sent_table {
	struct sent *v;
	size_t cap, n;
};

static size_t
sent_hash(const uint64_t key[2], size_t cap)
{
	uint64_t h = (key[0] ^ (key[1] * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;

	return (size_t)(h >> 17) & (cap - 1);
}

static struct sent *
sent_slot(struct sent *v, size_t cap, const uint64_t key[2])
{
	size_t i = sent_hash(key, cap);

	while (v[i].type != 0 && (v[i].key[0] != key[0] || v[i].key[1] != key[1])) {
		i = (i + 1) & (cap - 1);
	}
	return &v[i];
}

static struct sent *
sent_find(const struct sent_table *t, const uint64_t key[2])
{
	struct sent *e;

	if (t->cap == 0) {
		return NULL;
	}
	e = sent_slot(t->v, t->cap, key);
	return e->type != 0 ? e : NULL;
}

/* Add (or overwrite: a cookie or handle reused later) @p e. */
static void
sent_add(struct sent_table *t, const struct sent *e)
{
	struct sent *slot;

	if ((t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap != 0 ? t->cap * 2 : 256, i;
		struct sent *v = calloc(cap, sizeof(*v));

		if (v == NULL) {
			abort();
		}
		for (i = 0; i < t->cap; i++) {
			if (t->v[i].type != 0) {
				*sent_slot(v, cap, t->v[i].key) = t->v[i];
			}
		}
		free(t->v);
		t->v = v;
		t->cap = cap;
	}
	slot = sent_slot(t->v, t->cap, e->key);
	if (slot->type == 0) {
		t->n++;
	}
	*slot = *e;
}

static int
msg_order(const void *a, const void *b)
{
	const struct capcheck_msg *x = a, *y = b;

	if (x->frame != y->frame) {
		return x->frame < y->frame ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct dir_state
msg_dir(const struct checker *c, const struct capcheck_msg *m)
{
	return (struct dir_state){ .d = &c->set->conns[m->conn].dir[m->dir],
				   .conn = m->conn,
				   .dir = m->dir };
}

/* What a PUT or GET asks to be answered: the handle an ACK or REPLY must name. */
static void
remember_request(struct sent_table *t, const struct capcheck_msg *m)
{
	const struct lnet_handle_wire *wh =
		m->h.type == LNET_MSG_PUT ? &m->h.msg.put.ack_wmd : &m->h.msg.get.return_wmd;
	struct sent e = {
		.frame = m->frame, .ts = m->ts, .type = m->h.type, .conn = m->conn, .dir = m->dir
	};

	if (lnet_wire_handle_is_none(wh)) {
		if (m->h.type ==
		    LNET_MSG_PUT) { /* an ACK naming its match bits is one it never asked */
			e.key[0] = m->h.msg.put.match_bits;
			e.key[1] = PUT_NO_ACK;
			e.type = PUT_NO_ACK;
			sent_add(t, &e);
		}
		return;
	}
	e.key[0] = wh->wh_interface_cookie;
	e.key[1] = wh->wh_object_cookie;
	e.sink = m->h.type == LNET_MSG_GET ? m->h.msg.get.sink_length : 0;
	sent_add(t, &e);
}

/*
 * Whether the capture holds all that @p requester sent @p responder before
 * @p frame: it has their streams (by IP, as a tcp NID is one) and each
 * from its SYN with no bytes missing. A request absent from a capture that
 * began mid-stream, or taken on another interface, is the capture's gap.
 */
static bool
pair_captured_whole(const struct checker *c, const struct lnet_nid *requester,
		    const struct lnet_nid *responder, uint64_t frame)
{
	bool found = false;
	size_t i;
	int d;

	if (requester->nid_size != 0 || responder->nid_size != 0) {
		return false; /* not an IPv4 NID: no stream to match */
	}
	for (i = 0; i < c->set->nconns; i++) {
		for (d = 0; d < 2; d++) {
			const struct capstream_dir *x = &c->set->conns[i].dir[d];

			if (x->first_frame == 0 || x->first_frame > frame ||
			    x->saddr != requester->nid_addr[0] ||
			    x->daddr != responder->nid_addr[0]) {
				continue;
			}
			if (!x->syn || x->nholes != 0 || x->cut) {
				return false;
			}
			found = true;
		}
	}
	return found;
}

/* An ACK or REPLY against the requests seen so far. */
static void
check_answer(struct checker *c, const struct sent_table *t, const struct capcheck_msg *m)
{
	const struct lnet_handle_wire *wh =
		m->h.type == LNET_MSG_ACK ? &m->h.msg.ack.dst_wmd : &m->h.msg.reply.dst_wmd;
	uint64_t key[2] = { wh->wh_interface_cookie, wh->wh_object_cookie };
	uint32_t want = m->h.type == LNET_MSG_ACK ? LNET_MSG_PUT : LNET_MSG_GET;
	const struct sent *e = sent_find(t, key);
	struct dir_state s = msg_dir(c, m);
	bool whole;

	if (e != NULL && e->type == want) {
		if (m->h.type == LNET_MSG_REPLY && m->h.payload_length > e->sink) {
			report(c, &s, m->frame, CAPCHECK_PROBLEM, "lnet",
			       "REPLY of %u bytes to the GET of frame %" PRIu64
			       " whose sink is %u bytes",
			       m->h.payload_length, e->frame, e->sink);
		}
		return;
	}
	if (m->h.type == LNET_MSG_ACK) {
		uint64_t noack[2] = { m->h.msg.ack.match_bits, PUT_NO_ACK };

		e = sent_find(t, noack);
		if (e != NULL) {
			report(c, &s, m->frame, CAPCHECK_PROBLEM, "lnet",
			       "ACK for the PUT of frame %" PRIu64 ", which asked for none",
			       e->frame);
			return;
		}
	}
	whole = pair_captured_whole(c, &m->h.dest_nid, &m->h.src_nid, m->frame);
	report(c, &s, m->frame, whole ? CAPCHECK_PROBLEM : CAPCHECK_NOTE, "lnet",
	       "%s to handle %016" PRIx64 ":%016" PRIx64 " that no %s %s", msg_type_name(m->h.type),
	       key[0], key[1], msg_type_name(want),
	       whole ? "sent" :
		       "in the capture sent (the capture lacks some of that pair's streams)");
}

/* The IP pair a ZC cookie belongs to: cookies count per peer, not per connection. */
static uint64_t
zc_pair(const struct checker *c, const struct capcheck_msg *m, bool reverse)
{
	const struct capstream_dir *d = &c->set->conns[m->conn].dir[m->dir];

	return reverse ? (uint64_t)d->daddr << 32 | d->saddr : (uint64_t)d->saddr << 32 | d->daddr;
}

static void
zc_ack_one(const struct checker *c, struct sent_table *zc, const struct capcheck_msg *m,
	   uint64_t cookie)
{
	uint64_t key[2] = { cookie, zc_pair(c, m, true) };
	struct sent *e = sent_find(zc, key);

	if (e != NULL) {
		e->used = true;
	}
}

/* The cookies @p m acknowledges (lnet-facts §4.7). */
static void
zc_acks(const struct checker *c, struct sent_table *zc, const struct capcheck_msg *m)
{
	struct ksock_zcack a;
	uint64_t k;

	if (m->lnet) {
		if (m->km.zc_cookies[1] != 0) {
			zc_ack_one(c, zc, m, m->km.zc_cookies[1]);
		}
		return;
	}
	ksock_zcack_parse(&m->km, &a);
	switch (a.kind) {
	case KSOCK_ZCACK_ONE:
		zc_ack_one(c, zc, m, a.a);
		break;
	case KSOCK_ZCACK_TWO:
		zc_ack_one(c, zc, m, a.a);
		zc_ack_one(c, zc, m, a.b);
		break;
	case KSOCK_ZCACK_RANGE:
		/* a range names cookies, not a count: walk only the ones asked for */
		for (k = 0; k < zc->cap; k++) {
			struct sent *e = &zc->v[k];

			if (e->type != 0 && e->key[1] == zc_pair(c, m, true) && e->key[0] >= a.a &&
			    e->key[0] <= a.b) {
				e->used = true;
			}
		}
		break;
	default:
		break;
	}
}

/* ZC requests still unanswered when the capture ends, a sock_timeout or more later. */
#define ZC_ACK_LATE_S 50.0

static void
zc_report_unanswered(struct checker *c, const struct sent_table *zc)
{
	size_t i;

	for (i = 0; i < zc->cap; i++) {
		const struct sent *e = &zc->v[i];
		struct dir_state s;

		if (e->type == 0 || e->used) {
			continue;
		}
		s = (struct dir_state){ .d = &c->set->conns[e->conn].dir[e->dir],
					.conn = e->conn,
					.dir = e->dir };
		report(c, &s, e->frame,
		       c->set->last_ts - e->ts >= ZC_ACK_LATE_S ? CAPCHECK_PROBLEM : CAPCHECK_NOTE,
		       "zcack",
		       "ZC cookie %" PRIu64 " never acknowledged in the %.1f s captured after it",
		       e->key[0], c->set->last_ts - e->ts);
	}
}

static void
check_across(struct checker *c)
{
	struct sent_table sent = { 0 }, zc = { 0 };
	size_t i;

	if (c->nmsgs != 0) {
		qsort(c->msgs, c->nmsgs, sizeof(*c->msgs), msg_order);
	}
	for (i = 0; i < c->nmsgs; i++) {
		const struct capcheck_msg *m = &c->msgs[i];

		zc_acks(c, &zc, m);
		if (!m->lnet) {
			continue;
		}
		if (m->km.zc_cookies[0] != 0) {
			struct sent e = { .key = { m->km.zc_cookies[0], zc_pair(c, m, false) },
					  .frame = m->frame,
					  .ts = m->ts,
					  .type = ZC_COOKIE,
					  .conn = m->conn,
					  .dir = m->dir };

			sent_add(&zc, &e);
		}
		switch (m->h.type) {
		case LNET_MSG_PUT:
		case LNET_MSG_GET:
			remember_request(&sent, m);
			break;
		case LNET_MSG_ACK:
		case LNET_MSG_REPLY:
			check_answer(c, &sent, m);
			break;
		default:
			break;
		}
	}
	zc_report_unanswered(c, &zc);
	free(sent.v);
	free(zc.v);
}

void
capcheck_run(const struct capstream_set *set, struct capcheck_report *r)
{
	struct checker c = { .set = set, .r = r };
	size_t i;

	r->sum = calloc(set->nconns * 2 + 1, sizeof(*r->sum));
	if (r->sum == NULL) {
		abort();
	}
	for (i = 0; i < set->nconns; i++) {
		check_conn(&c, i);
	}
	check_across(&c);
	free(c.msgs);
}

/* ---- output ---- */

static const char *const level_names[] = { "info", "note", "problem" };

static void
addr_str(uint32_t addr, uint16_t port, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &addr, ip, sizeof(ip));
	snprintf(buf, len, "%s:%u", ip, port);
}

static void
print_summary_text(FILE *out, const struct capcheck_summary *s)
{
	fprintf(out,
		"    summary: V%u, %" PRIu64 " bytes (%" PRIu64 " not captured), PUT %" PRIu64
		", GET %" PRIu64 ", ACK %" PRIu64 ", REPLY %" PRIu64 ", NOOP %" PRIu64
		", ZC requests %" PRIu64 "\n",
		s->version, s->bytes, s->missing, s->by_type[LNET_MSG_PUT],
		s->by_type[LNET_MSG_GET], s->by_type[LNET_MSG_ACK], s->by_type[LNET_MSG_REPLY],
		s->noops, s->zc_requests);
}

void
capcheck_print_text(FILE *out, const char *name, const struct capstream_set *set,
		    const struct capcheck_report *r)
{
	size_t i, f;
	int d;

	fprintf(out, "%s: %" PRIu64 " frames, %zu LNet connections, %zu problems\n", name,
		set->frames, set->nconns, r->problems);
	for (i = 0; i < set->nconns; i++) {
		for (d = 0; d < 2; d++) {
			const struct capstream_dir *x = &set->conns[i].dir[d];
			char src[32], dst[32];

			if (x->first_frame == 0) {
				continue;
			}
			addr_str(x->saddr, x->sport, src, sizeof(src));
			addr_str(x->daddr, x->dport, dst, sizeof(dst));
			fprintf(out,
				"  stream %zu%c %s -> %s, frames %" PRIu64 "-%" PRIu64 "%s%s\n", i,
				d == 0 ? 'a' : 'b', src, dst, x->first_frame, x->last_frame,
				x->syn ? "" : ", no SYN", x->fin ? ", closed" : "");
			for (f = 0; f < r->nfindings; f++) {
				const struct capcheck_finding *y = &r->findings[f];

				if (y->conn == i && y->dir == d) {
					fprintf(out, "    frame %" PRIu64 ": %s: %s: %s\n",
						y->frame, level_names[y->level], y->kind, y->text);
				}
			}
			print_summary_text(out, &r->sum[i * 2 + (size_t)d]);
		}
	}
}

static void
json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\') {
			fprintf(out, "\\%c", ch);
		} else if (ch < 0x20) {
			fprintf(out, "\\u%04x", ch);
		} else {
			fputc(ch, out);
		}
	}
	fputc('"', out);
}

void
capcheck_print_json(FILE *out, const char *name, const struct capstream_set *set,
		    const struct capcheck_report *r)
{
	const char *sep = "";
	size_t i, f;
	int d;

	fprintf(out, "{\"file\":");
	json_string(out, name);
	fprintf(out, ",\"frames\":%" PRIu64 ",\"problems\":%zu,\"streams\":[", set->frames,
		r->problems);
	for (i = 0; i < set->nconns; i++) {
		for (d = 0; d < 2; d++) {
			const struct capstream_dir *x = &set->conns[i].dir[d];
			const struct capcheck_summary *s = &r->sum[i * 2 + (size_t)d];
			const char *fsep = "";
			char src[32], dst[32];

			if (x->first_frame == 0) {
				continue;
			}
			addr_str(x->saddr, x->sport, src, sizeof(src));
			addr_str(x->daddr, x->dport, dst, sizeof(dst));
			fprintf(out,
				"%s{\"conn\":%zu,\"dir\":%d,\"src\":\"%s\",\"dst\":\"%s\","
				"\"first_frame\":%" PRIu64 ",\"last_frame\":%" PRIu64
				",\"syn\":%s,\"closed\":%s,\"version\":%u,\"bytes\":%" PRIu64
				",\"missing\":%" PRIu64 ",\"put\":%" PRIu64 ",\"get\":%" PRIu64
				",\"ack\":%" PRIu64 ",\"reply\":%" PRIu64 ",\"noop\":%" PRIu64
				",\"zc\":%" PRIu64 ",\"findings\":[",
				sep, i, d, src, dst, x->first_frame, x->last_frame,
				x->syn ? "true" : "false", x->fin ? "true" : "false", s->version,
				s->bytes, s->missing, s->by_type[LNET_MSG_PUT],
				s->by_type[LNET_MSG_GET], s->by_type[LNET_MSG_ACK],
				s->by_type[LNET_MSG_REPLY], s->noops, s->zc_requests);
			for (f = 0; f < r->nfindings; f++) {
				const struct capcheck_finding *y = &r->findings[f];

				if (y->conn != i || y->dir != d) {
					continue;
				}
				fprintf(out,
					"%s{\"frame\":%" PRIu64
					",\"level\":\"%s\",\"kind\":\"%s\",\"text\":",
					fsep, y->frame, level_names[y->level], y->kind);
				json_string(out, y->text);
				fputc('}', out);
				fsep = ",";
			}
			fprintf(out, "]}");
			sep = ",";
		}
	}
	fprintf(out, "]}\n");
}

void
capcheck_free(struct capcheck_report *r)
{
	free(r->findings);
	free(r->sum);
	memset(r, 0, sizeof(*r));
}
