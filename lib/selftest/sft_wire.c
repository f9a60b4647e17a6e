/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Selftest message encoding. Each message type is a table of fields (wire
 * offset, width, where it lives in struct sft_msg), so the byte layout of
 * selftest-facts §2 is written down once and read by the decoder, the
 * encoder and the swapping alike. Bytes are copied with memcpy: a wire
 * buffer is never assumed aligned, and no packed struct is cast onto it.
 */
#include <stddef.h>
#include <string.h>

#include "sft_wire.h"

enum sft_field_kind {
	SFT_U8,
	SFT_U16,
	SFT_U32,
	SFT_U64,
	SFT_NAME, /* SFT_NAME_SIZE bytes, never swapped */
};

struct sft_field {
	uint8_t kind;
	uint8_t wire_off;  /* from the start of the message */
	uint16_t host_off; /* from the start of struct sft_msg */
};

struct sft_layout {
	const struct sft_field *fields;
	unsigned int n;
};

#define FLD(k, off, member)                                  \
	{                                                    \
		(k), (off), offsetof(struct sft_msg, member) \
	}
/* A session id: nid then stamp, 16 bytes. */
#define SID(off, member) FLD(SFT_U64, (off), member.nid), FLD(SFT_U64, (off) + 8, member.stamp)
#define LAYOUT(f)                               \
	{                                       \
		(f), sizeof(f) / sizeof((f)[0]) \
	}

/* The magic is read apart: it decides the order of everything else. */
static const struct sft_field hdr_fields[] = {
	FLD(SFT_U32, 4, version),    FLD(SFT_U32, 8, type),       FLD(SFT_U32, 12, reserved0),
	FLD(SFT_U32, 16, reserved1), FLD(SFT_U32, 20, ses_feats),
};

static const struct sft_field mksn_reqst[] = {
	FLD(SFT_U64, 24, body.mksn_reqst.rpyid),
	SID(32, body.mksn_reqst.sid),
	FLD(SFT_U32, 48, body.mksn_reqst.force),
	FLD(SFT_NAME, 52, body.mksn_reqst.name),
};

static const struct sft_field mksn_reply[] = {
	FLD(SFT_U32, 24, body.mksn_reply.status),
	SID(28, body.mksn_reply.sid),
	FLD(SFT_U32, 44, body.mksn_reply.timeout),
	FLD(SFT_NAME, 48, body.mksn_reply.name),
};

static const struct sft_field rmsn_reqst[] = {
	FLD(SFT_U64, 24, body.rmsn_reqst.rpyid),
	SID(32, body.rmsn_reqst.sid),
};

static const struct sft_field rmsn_reply[] = {
	FLD(SFT_U32, 24, body.rmsn_reply.status),
	SID(28, body.rmsn_reply.sid),
};

static const struct sft_field debug_reqst[] = {
	FLD(SFT_U64, 24, body.debug_reqst.rpyid),
	SID(32, body.debug_reqst.sid),
	FLD(SFT_U32, 48, body.debug_reqst.flags),
};

static const struct sft_field debug_reply[] = {
	FLD(SFT_U32, 24, body.debug_reply.status),  SID(28, body.debug_reply.sid),
	FLD(SFT_U32, 44, body.debug_reply.timeout), FLD(SFT_U32, 48, body.debug_reply.nbatch),
	FLD(SFT_NAME, 52, body.debug_reply.name),
};

static const struct sft_field batch_reqst[] = {
	FLD(SFT_U64, 24, body.batch_reqst.rpyid),   SID(32, body.batch_reqst.sid),
	FLD(SFT_U64, 48, body.batch_reqst.bid),     FLD(SFT_U32, 56, body.batch_reqst.opc),
	FLD(SFT_U32, 60, body.batch_reqst.testidx), FLD(SFT_U32, 64, body.batch_reqst.arg),
};

static const struct sft_field batch_reply[] = {
	FLD(SFT_U32, 24, body.batch_reply.status),
	SID(28, body.batch_reply.sid),
	FLD(SFT_U32, 44, body.batch_reply.active),
	FLD(SFT_U32, 48, body.batch_reply.time),
};

static const struct sft_field stat_reqst[] = {
	FLD(SFT_U64, 24, body.stat_reqst.rpyid),
	SID(32, body.stat_reqst.sid),
	FLD(SFT_U32, 48, body.stat_reqst.type),
};

#define STR(m) body.stat_reply.m
static const struct sft_field stat_reply[] = {
	FLD(SFT_U32, 24, STR(status)),
	SID(28, STR(sid)),
	/* framework counters, 20 bytes at 44 */
	FLD(SFT_U32, 44, STR(fw.running_ms)),
	FLD(SFT_U32, 48, STR(fw.active_batches)),
	FLD(SFT_U32, 52, STR(fw.zombie_sessions)),
	FLD(SFT_U32, 56, STR(fw.brw_errors)),
	FLD(SFT_U32, 60, STR(fw.ping_errors)),
	/* RPC counters, 36 bytes at 64 */
	FLD(SFT_U32, 64, STR(rpc.errors)),
	FLD(SFT_U32, 68, STR(rpc.rpcs_sent)),
	FLD(SFT_U32, 72, STR(rpc.rpcs_rcvd)),
	FLD(SFT_U32, 76, STR(rpc.rpcs_dropped)),
	FLD(SFT_U32, 80, STR(rpc.rpcs_expired)),
	FLD(SFT_U64, 84, STR(rpc.bulk_get)),
	FLD(SFT_U64, 92, STR(rpc.bulk_put)),
	/* LNet counters, 60 bytes at 100 */
	FLD(SFT_U32, 100, STR(lnet.msgs_alloc)),
	FLD(SFT_U32, 104, STR(lnet.msgs_max)),
	FLD(SFT_U32, 108, STR(lnet.errors)),
	FLD(SFT_U32, 112, STR(lnet.send_count)),
	FLD(SFT_U32, 116, STR(lnet.recv_count)),
	FLD(SFT_U32, 120, STR(lnet.route_count)),
	FLD(SFT_U32, 124, STR(lnet.drop_count)),
	FLD(SFT_U64, 128, STR(lnet.send_length)),
	FLD(SFT_U64, 136, STR(lnet.recv_length)),
	FLD(SFT_U64, 144, STR(lnet.route_length)),
	FLD(SFT_U64, 152, STR(lnet.drop_length)),
};
#undef STR

#define TSR(m) body.test_reqst.m
static const struct sft_field test_reqst[] = {
	FLD(SFT_U64, 24, TSR(rpyid)),
	FLD(SFT_U64, 32, TSR(bulkid)),
	SID(40, TSR(sid)),
	FLD(SFT_U64, 56, TSR(bid)),
	FLD(SFT_U32, 64, TSR(service)),
	FLD(SFT_U32, 68, TSR(loop)),
	FLD(SFT_U32, 72, TSR(concur)),
	FLD(SFT_U8, 76, TSR(is_client)),
	FLD(SFT_U8, 77, TSR(stop_onerr)),
	FLD(SFT_U32, 78, TSR(ndest)),
};

/* The 12 bytes at 82, one table per view. */
static const struct sft_field test_ping_params[] = {
	FLD(SFT_U32, 82, TSR(params.ping.size)),
	FLD(SFT_U32, 86, TSR(params.ping.flags)),
};

static const struct sft_field test_bulk_v0_params[] = {
	FLD(SFT_U32, 82, TSR(params.bulk_v0.opc)),
	FLD(SFT_U32, 86, TSR(params.bulk_v0.npg)),
	FLD(SFT_U32, 90, TSR(params.bulk_v0.flags)),
};

static const struct sft_field test_bulk_v1_params[] = {
	FLD(SFT_U16, 82, TSR(params.bulk_v1.opc)),
	FLD(SFT_U16, 84, TSR(params.bulk_v1.flags)),
	FLD(SFT_U32, 86, TSR(params.bulk_v1.len)),
	FLD(SFT_U32, 90, TSR(params.bulk_v1.offset)),
};
#undef TSR

static const struct sft_field test_reply[] = {
	FLD(SFT_U32, 24, body.test_reply.status),
	SID(28, body.test_reply.sid),
};

static const struct sft_field join_reqst[] = {
	FLD(SFT_U64, 24, body.join_reqst.rpyid),
	SID(32, body.join_reqst.sid),
	FLD(SFT_NAME, 48, body.join_reqst.group),
};

static const struct sft_field join_reply[] = {
	FLD(SFT_U32, 24, body.join_reply.status),
	SID(28, body.join_reply.sid),
	FLD(SFT_U32, 44, body.join_reply.timeout),
	FLD(SFT_NAME, 48, body.join_reply.session),
};

static const struct sft_field ping_reqst[] = {
	FLD(SFT_U64, 24, body.ping_reqst.rpyid),     FLD(SFT_U32, 32, body.ping_reqst.magic),
	FLD(SFT_U32, 36, body.ping_reqst.seq),       FLD(SFT_U64, 40, body.ping_reqst.time_sec),
	FLD(SFT_U64, 48, body.ping_reqst.time_nsec),
};

static const struct sft_field ping_reply[] = {
	FLD(SFT_U32, 24, body.ping_reply.status),
	FLD(SFT_U32, 28, body.ping_reply.magic),
	FLD(SFT_U32, 32, body.ping_reply.seq),
};

static const struct sft_field brw_reqst[] = {
	FLD(SFT_U64, 24, body.brw_reqst.rpyid), FLD(SFT_U64, 32, body.brw_reqst.bulkid),
	FLD(SFT_U32, 40, body.brw_reqst.rw),    FLD(SFT_U32, 44, body.brw_reqst.len),
	FLD(SFT_U32, 48, body.brw_reqst.flags),
};

static const struct sft_field brw_reply[] = {
	FLD(SFT_U32, 24, body.brw_reply.status),
};

static const struct sft_layout body_layouts[SFT_MSG_TYPE_MAX] = {
	[SFT_MSG_MKSN_REQST] = LAYOUT(mksn_reqst),   [SFT_MSG_MKSN_REPLY] = LAYOUT(mksn_reply),
	[SFT_MSG_RMSN_REQST] = LAYOUT(rmsn_reqst),   [SFT_MSG_RMSN_REPLY] = LAYOUT(rmsn_reply),
	[SFT_MSG_BATCH_REQST] = LAYOUT(batch_reqst), [SFT_MSG_BATCH_REPLY] = LAYOUT(batch_reply),
	[SFT_MSG_STAT_REQST] = LAYOUT(stat_reqst),   [SFT_MSG_STAT_REPLY] = LAYOUT(stat_reply),
	[SFT_MSG_TEST_REQST] = LAYOUT(test_reqst),   [SFT_MSG_TEST_REPLY] = LAYOUT(test_reply),
	[SFT_MSG_DEBUG_REQST] = LAYOUT(debug_reqst), [SFT_MSG_DEBUG_REPLY] = LAYOUT(debug_reply),
	[SFT_MSG_BRW_REQST] = LAYOUT(brw_reqst),     [SFT_MSG_BRW_REPLY] = LAYOUT(brw_reply),
	[SFT_MSG_PING_REQST] = LAYOUT(ping_reqst),   [SFT_MSG_PING_REPLY] = LAYOUT(ping_reply),
	[SFT_MSG_JOIN_REQST] = LAYOUT(join_reqst),   [SFT_MSG_JOIN_REPLY] = LAYOUT(join_reply),
};

static const struct sft_layout hdr_layout = LAYOUT(hdr_fields);

static const struct sft_layout params_layouts[] = {
	[SFT_TPARAMS_NONE] = { NULL, 0 },
	[SFT_TPARAMS_PING] = LAYOUT(test_ping_params),
	[SFT_TPARAMS_BULK_V0] = LAYOUT(test_bulk_v0_params),
	[SFT_TPARAMS_BULK_V1] = LAYOUT(test_bulk_v1_params),
};

/* The largest body (STAT reply) ends exactly at the end of the message. */
_Static_assert(SFT_MSG_HDR_SIZE + 136 == SFT_MSG_SIZE, "stat reply fills the message");

static const char *const sft_wire_errs[SFT_WIRE_EMAX] = {
	[SFT_WIRE_OK] = "ok",
	[SFT_WIRE_ELEN] = "selftest message is not 160 bytes",
	[SFT_WIRE_EMAGIC] = "bad selftest message magic",
	[SFT_WIRE_ETYPE] = "unknown selftest message type",
	[SFT_WIRE_EVERSION] = "unknown selftest message version",
	[SFT_WIRE_EFEATS] = "unknown session feature bits",
	[SFT_WIRE_ENAME] = "name not NUL-terminated",
	[SFT_WIRE_ESID] = "session id is the no-session nid",
	[SFT_WIRE_EOPC] = "unknown batch operation",
	[SFT_WIRE_ESERVICE] = "test for an unknown service",
	[SFT_WIRE_ETESTCOUNT] = "test loop, concurrency or destinations out of range",
	[SFT_WIRE_ERW] = "brw neither read nor write",
	[SFT_WIRE_ECHECK] = "unknown brw check pattern",
	[SFT_WIRE_EBULKLEN] = "brw length out of range",
	[SFT_WIRE_EBULKOFF] = "brw offset not a multiple of 8",
	[SFT_WIRE_EPINGMAGIC] = "bad ping test magic",
	[SFT_WIRE_EINVAL] = "invalid argument",
};

const char *
sft_wire_strerror(int rc)
{
	int e = rc < 0 ? -rc : rc;

	return e < SFT_WIRE_EMAX ? sft_wire_errs[e] : "unknown selftest wire error";
}

enum sft_test_params_view
sft_test_params_view(uint32_t service, uint32_t feats)
{
	if (service == SFT_SVC_PING) {
		return SFT_TPARAMS_PING;
	}
	if (service == SFT_SVC_BRW) {
		return (feats & SFT_FEAT_BULK_LEN) != 0 ? SFT_TPARAMS_BULK_V1 : SFT_TPARAMS_BULK_V0;
	}
	return SFT_TPARAMS_NONE;
}

static unsigned int
sft_field_width(uint8_t kind)
{
	static const unsigned int width[] = {
		[SFT_U8] = 1,
		[SFT_U16] = 2,
		[SFT_U32] = 4,
		[SFT_U64] = 8,
		[SFT_NAME] = SFT_NAME_SIZE,
	};

	return width[kind];
}

size_t
sft_msg_body_size(uint32_t type)
{
	const struct sft_layout *l;
	size_t end = SFT_MSG_HDR_SIZE;
	unsigned int i;

	if (type >= SFT_MSG_TYPE_MAX) {
		return 0;
	}
	l = &body_layouts[type];
	for (i = 0; i < l->n; i++) {
		size_t e = l->fields[i].wire_off + sft_field_width(l->fields[i].kind);

		end = e > end ? e : end;
	}
	if (type == SFT_MSG_TEST_REQST) {
		end += 12; /* the params union follows ndest */
	}
	return end - SFT_MSG_HDR_SIZE;
}

/*
 * One field of @p kind from @p src to @p dst, byte-swapped when @p swab:
 * the same step reads the wire into the message and writes it back out.
 */
static void
sft_field_copy(uint8_t kind, uint8_t *dst, const uint8_t *src, bool swab)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (kind) {
	case SFT_U8:
		*dst = *src;
		break;
	case SFT_U16:
		memcpy(&v16, src, sizeof(v16));
		v16 = swab ? __builtin_bswap16(v16) : v16;
		memcpy(dst, &v16, sizeof(v16));
		break;
	case SFT_U32:
		memcpy(&v32, src, sizeof(v32));
		v32 = swab ? __builtin_bswap32(v32) : v32;
		memcpy(dst, &v32, sizeof(v32));
		break;
	case SFT_U64:
		memcpy(&v64, src, sizeof(v64));
		v64 = swab ? __builtin_bswap64(v64) : v64;
		memcpy(dst, &v64, sizeof(v64));
		break;
	default:
		memcpy(dst, src, SFT_NAME_SIZE);
		break;
	}
}

/* One field from the wire into the message, swapped if the sender was. */
static void
sft_field_read(const struct sft_field *f, const uint8_t *wire, struct sft_msg *m, bool swab)
{
	sft_field_copy(f->kind, (uint8_t *)m + f->host_off, wire + f->wire_off, swab);
}

/* One field of the message onto the wire, swapped on request. */
static void
sft_field_write(const struct sft_field *f, const struct sft_msg *m, uint8_t *wire, bool swab)
{
	sft_field_copy(f->kind, wire + f->wire_off, (const uint8_t *)m + f->host_off, swab);
}

static void
sft_layout_read(const struct sft_layout *l, const uint8_t *wire, struct sft_msg *m, bool swab)
{
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		sft_field_read(&l->fields[i], wire, m, swab);
	}
}

static void
sft_layout_write(const struct sft_layout *l, const struct sft_msg *m, uint8_t *wire, bool swab)
{
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		sft_field_write(&l->fields[i], m, wire, swab);
	}
}

/* TEST's params are read once service and features are known. */
static const struct sft_layout *
sft_params_layout(const struct sft_msg *m)
{
	if (m->type != SFT_MSG_TEST_REQST) {
		return &params_layouts[SFT_TPARAMS_NONE];
	}
	return &params_layouts[sft_test_params_view(m->body.test_reqst.service, m->ses_feats)];
}

int
sft_msg_decode(const void *buf, size_t len, struct sft_msg *m)
{
	const uint8_t *wire = buf;
	uint32_t magic;
	bool swab;

	memset(m, 0, sizeof(*m));
	if (buf == NULL || len != SFT_MSG_SIZE) {
		return -SFT_WIRE_ELEN;
	}
	memcpy(&magic, wire, sizeof(magic));
	if (magic == SFT_MSG_MAGIC) {
		swab = false;
	} else if (magic == __builtin_bswap32(SFT_MSG_MAGIC)) {
		swab = true;
	} else {
		return -SFT_WIRE_EMAGIC;
	}
	sft_layout_read(&hdr_layout, wire, m, swab);
	m->swabbed = swab;
	if (m->type >= SFT_MSG_TYPE_MAX) {
		return -SFT_WIRE_ETYPE;
	}
	sft_layout_read(&body_layouts[m->type], wire, m, swab);
	sft_layout_read(sft_params_layout(m), wire, m, swab);
	return 0;
}

static int
sft_msg_write(const struct sft_msg *m, void *buf, size_t len, bool swab)
{
	uint8_t *wire = buf;
	uint32_t magic = swab ? __builtin_bswap32(SFT_MSG_MAGIC) : SFT_MSG_MAGIC;

	if (m == NULL || buf == NULL || len < SFT_MSG_SIZE) {
		return -SFT_WIRE_ELEN;
	}
	if (m->type >= SFT_MSG_TYPE_MAX) {
		return -SFT_WIRE_ETYPE;
	}
	memset(wire, 0, SFT_MSG_SIZE);
	memcpy(wire, &magic, sizeof(magic));
	sft_layout_write(&hdr_layout, m, wire, swab);
	sft_layout_write(&body_layouts[m->type], m, wire, swab);
	sft_layout_write(sft_params_layout(m), m, wire, swab);
	return 0;
}

int
sft_msg_encode(const struct sft_msg *m, void *buf, size_t len)
{
	return sft_msg_write(m, buf, len, false);
}

int
sft_msg_encode_swabbed(const struct sft_msg *m, void *buf, size_t len)
{
	return sft_msg_write(m, buf, len, true);
}

int
sft_dests_decode(const void *buf, size_t len, bool swabbed, struct sft_dest *d, uint32_t n)
{
	const uint8_t *p = buf;
	uint32_t i;

	if (buf == NULL || len / SFT_DEST_SIZE < n) {
		return -SFT_WIRE_ELEN;
	}
	for (i = 0; i < n; i++, p += SFT_DEST_SIZE) {
		memcpy(&d[i].nid, p, sizeof(d[i].nid));
		memcpy(&d[i].pid, p + 8, sizeof(d[i].pid));
		if (swabbed) {
			d[i].nid = __builtin_bswap64(d[i].nid);
			d[i].pid = __builtin_bswap32(d[i].pid);
		}
	}
	return 0;
}

int
sft_dests_encode(const struct sft_dest *d, uint32_t n, void *buf, size_t len)
{
	uint8_t *p = buf;
	uint32_t i;

	if (buf == NULL || len / SFT_DEST_SIZE < n) {
		return -SFT_WIRE_ELEN;
	}
	for (i = 0; i < n; i++, p += SFT_DEST_SIZE) {
		memcpy(p, &d[i].nid, sizeof(d[i].nid));
		memcpy(p + 8, &d[i].pid, sizeof(d[i].pid));
	}
	return 0;
}
