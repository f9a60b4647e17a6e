/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pcap (lnet_pcap.c): a byte stream framed as Ethernet/IP/TCP, written
 * as pcapng or classic pcap, read back with libpcap: one segment per
 * 65,461 bytes, continuous sequence numbers, valid IPv4 and TCP checksums,
 * the handshake of a flow opened while capturing, FINs, the size bound,
 * and a file that cannot be opened. No EAL, no network: a flow is either
 * filled by hand or taken from a TCP connection over 127.0.0.1.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "lnet_pcap.h"

#define SEG_MAX (65535 - 74) /* payload per segment (lnet_pcap.c's CAP_SEG_MAX) */

struct frame {
	size_t len;
	uint8_t data[65536];
};

static char g_dir[64];

static void
path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", g_dir, name);
}

/* Every frame of @p file (at most @p max), in order; @return the count. */
static unsigned int
read_frames(const char *file, struct frame *out, unsigned int max, int *linktype)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(file, errbuf);
	struct pcap_pkthdr *h;
	const u_char *d;
	unsigned int n = 0;

	assert_non_null(p);
	*linktype = pcap_datalink(p);
	while (n < max && pcap_next_ex(p, &h, &d) == 1) {
		assert_int_equal(h->caplen, h->len);
		out[n].len = h->caplen;
		memcpy(out[n].data, d, h->caplen);
		n++;
	}
	pcap_close(p);
	return n;
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) << 16 | rd16(p + 2);
}

static uint32_t
sum16(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		sum += rd16(p + i);
	}
	if (n & 1) {
		sum += (uint32_t)p[n - 1] << 8;
	}
	return sum;
}

static uint16_t
fold(uint32_t sum)
{
	while (sum >> 16) {
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)sum;
}

/* An IPv4 frame's checks; @return its TCP header. */
static const uint8_t *
check_ipv4(const struct frame *f)
{
	const uint8_t *ip = f->data + 14;
	const uint8_t *tcp = ip + 20;
	size_t tcp_len = f->len - 34;
	uint32_t pseudo;

	assert_int_equal(rd16(f->data + 12), 0x0800);
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(ip[9], IPPROTO_TCP);
	assert_int_equal(rd16(ip + 2), f->len - 14);
	assert_int_equal(fold(sum16(0, ip, 20)), 0xffff);
	pseudo = sum16(0, ip + 12, 8) + IPPROTO_TCP + (uint32_t)tcp_len;
	assert_int_equal(fold(sum16(pseudo, tcp, tcp_len)), 0xffff);
	return tcp;
}

static void
flow_v4(struct lnet_pcap_flow *f)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->local_ip, (uint8_t[]){ 127, 0, 0, 1 }, 4);
	memcpy(f->remote_ip, (uint8_t[]){ 127, 0, 0, 2 }, 4);
	f->local_port = htons(1023);
	f->remote_port = htons(988);
	f->seq_out = 1000;
	f->seq_in = 5000;
	f->known = true;
}

/* A stream of @p n bytes out in two fragments, and one message in, then FINs. */
static void
capture_stream(enum lnet_pcap_format format, const char *name, uint8_t *payload, size_t n,
	       struct lnet_pcap_stats *st)
{
	char file[128];
	char err[256] = "";
	struct lnet_pcap *cap = NULL;
	struct lnet_pcap_flow f;
	struct iovec iov[2] = { { payload, 100 }, { payload + 100, n - 100 } };
	struct iovec in = { payload, 48 };

	path_of(file, sizeof(file), name);
	assert_int_equal(lnet_pcap_open(file, format, "unit test", 0, &cap, err, sizeof(err)), 0);
	flow_v4(&f);
	/* Mid-message on a flow opened before the capture: not recorded yet. */
	lnet_pcap_stream(cap, &f, true, false, iov, 2, 10);
	assert_false(f.synced);
	assert_int_equal(f.seq_out, 1000);
	lnet_pcap_stream(cap, &f, true, true, iov, 2, n);
	assert_true(f.synced);
	assert_int_equal(f.seq_out, 1000 + n);
	lnet_pcap_stream(cap, &f, false, false, &in, 1, 48);
	lnet_pcap_fin(cap, &f);
	assert_false(f.synced);
	lnet_pcap_close(cap, st);
}

static void
check_stream(const char *name, int want_linktype, const uint8_t *payload, size_t n)
{
	static struct frame frames[8];
	char file[128];
	int linktype = -1;
	unsigned int cnt;
	const uint8_t *tcp;

	path_of(file, sizeof(file), name);
	cnt = read_frames(file, frames, 8, &linktype);
	assert_int_equal(linktype, want_linktype);
	assert_int_equal(cnt, 2 + 1 + 3); /* two segments out, one in, FIN, FIN, ACK */
	tcp = check_ipv4(&frames[0]);
	assert_int_equal(rd16(tcp), 1023);
	assert_int_equal(rd16(tcp + 2), 988);
	assert_int_equal(rd32(tcp + 4), 1000);
	assert_int_equal(rd32(tcp + 8), 5000);
	assert_int_equal(frames[0].len, 54 + SEG_MAX);
	assert_memory_equal(frames[0].data + 54, payload, SEG_MAX);
	tcp = check_ipv4(&frames[1]);
	assert_int_equal(rd32(tcp + 4), 1000 + SEG_MAX);
	assert_int_equal(frames[1].len, 54 + n - SEG_MAX);
	assert_memory_equal(frames[1].data + 54, payload + SEG_MAX, n - SEG_MAX);
	tcp = check_ipv4(&frames[2]); /* in: the peer's ports and sequence */
	assert_int_equal(rd16(tcp), 988);
	assert_int_equal(rd32(tcp + 4), 5000);
	assert_int_equal(rd32(tcp + 8), 1000 + n);
	assert_memory_equal(frames[2].data + 54, payload, 48);
	tcp = check_ipv4(&frames[3]);
	assert_int_equal(tcp[13], 0x11); /* FIN|ACK */
	tcp = check_ipv4(&frames[5]);
	assert_int_equal(tcp[13], 0x10);
}

static uint8_t *
make_payload(size_t n)
{
	uint8_t *p = malloc(n);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < n; i++) {
		p[i] = (uint8_t)(i * 7 + 3);
	}
	return p;
}

static void
test_pcapng(void **state)
{
	size_t n = SEG_MAX + 1000;
	uint8_t *payload = make_payload(n);
	struct lnet_pcap_stats st;
	uint8_t magic[4];
	char file[128];
	FILE *fp;

	(void)state;
	capture_stream(LNET_PCAP_PCAPNG, "s.pcapng", payload, n, &st);
	assert_int_equal(st.packets, 6);
	assert_int_equal(st.dropped, 0);
	path_of(file, sizeof(file), "s.pcapng");
	fp = fopen(file, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(magic, 1, 4, fp), 4);
	fclose(fp);
	assert_memory_equal(magic, "\x0a\x0d\x0d\x0a", 4); /* a section header block */
	check_stream("s.pcapng", DLT_EN10MB, payload, n);
	free(payload);
}

static void
test_pcap_classic(void **state)
{
	size_t n = SEG_MAX + 1;
	uint8_t *payload = make_payload(n);
	struct lnet_pcap_stats st;
	struct stat sb;
	char file[128];

	(void)state;
	capture_stream(LNET_PCAP_PCAP, "s.pcap", payload, n, &st);
	assert_int_equal(st.packets, 6);
	path_of(file, sizeof(file), "s.pcap");
	assert_int_equal(stat(file, &sb), 0);
	assert_int_equal((uint64_t)sb.st_size, st.bytes); /* bytes counts the file */
	check_stream("s.pcap", DLT_EN10MB, payload, n);
	free(payload);
}

/* A bound: records past it are dropped and counted, the file stays under it. */
static void
test_max_bytes(void **state)
{
	uint8_t payload[1000];
	struct iovec iov = { payload, sizeof(payload) };
	struct lnet_pcap_stats st;
	struct lnet_pcap_flow f;
	struct lnet_pcap *cap = NULL;
	struct stat sb;
	char file[128];
	char err[256];
	int i;

	(void)state;
	memset(payload, 0x5a, sizeof(payload));
	path_of(file, sizeof(file), "bound.pcapng");
	assert_int_equal(lnet_pcap_open(file, LNET_PCAP_PCAPNG, NULL, 4096, &cap, err, sizeof(err)),
			 0);
	flow_v4(&f);
	for (i = 0; i < 10; i++) {
		lnet_pcap_stream(cap, &f, true, true, &iov, 1, sizeof(payload));
	}
	lnet_pcap_close(cap, &st);
	assert_int_equal(st.max_bytes, 4096);
	assert_true(st.packets >= 2);
	assert_int_equal(st.packets + st.dropped, 10);
	assert_int_equal(stat(file, &sb), 0);
	assert_true(sb.st_size <= 4096);
	assert_int_equal((uint64_t)sb.st_size, st.bytes);
}

/* An IPv6 flow: 86dd, a 40-byte header, the addresses as given. */
static void
test_ipv6(void **state)
{
	static struct frame frames[4];
	uint8_t payload[64];
	struct iovec iov = { payload, sizeof(payload) };
	struct lnet_pcap_stats st;
	struct lnet_pcap_flow f;
	struct lnet_pcap *cap = NULL;
	char file[128];
	char err[256];
	int linktype;

	(void)state;
	memset(payload, 0xa5, sizeof(payload));
	path_of(file, sizeof(file), "v6.pcapng");
	assert_int_equal(lnet_pcap_open(file, LNET_PCAP_PCAPNG, "v6", 0, &cap, err, sizeof(err)),
			 0);
	flow_v4(&f);
	f.v6 = true;
	memset(f.local_ip, 0, 16);
	memset(f.remote_ip, 0, 16);
	f.local_ip[15] = 1;
	f.remote_ip[0] = 0xfd;
	f.remote_ip[15] = 2;
	lnet_pcap_stream(cap, &f, true, true, &iov, 1, sizeof(payload));
	lnet_pcap_close(cap, &st);
	assert_int_equal(read_frames(file, frames, 4, &linktype), 1);
	assert_int_equal(rd16(frames[0].data + 12), 0x86dd);
	assert_int_equal(frames[0].data[14] >> 4, 6);
	assert_int_equal(frames[0].data[14 + 6], IPPROTO_TCP);
	assert_memory_equal(frames[0].data + 14 + 8, f.local_ip, 16);
	assert_memory_equal(frames[0].data + 14 + 24, f.remote_ip, 16);
	assert_int_equal(frames[0].len, 74 + sizeof(payload));
}

/* A connection opened while capturing: its SYN, SYN-ACK, ACK from the socket's addresses. */
static void
test_flow_from_socket(void **state)
{
	static struct frame frames[4];
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	struct lnet_pcap_stats st;
	struct lnet_pcap_flow f;
	struct lnet_pcap *cap = NULL;
	char file[128];
	char err[256];
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	int cfd = socket(AF_INET, SOCK_STREAM, 0);
	const uint8_t *tcp;
	int linktype;

	(void)state;
	assert_true(lfd >= 0 && cfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	assert_int_equal(connect(cfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	path_of(file, sizeof(file), "syn.pcapng");
	assert_int_equal(lnet_pcap_open(file, LNET_PCAP_PCAPNG, NULL, 0, &cap, err, sizeof(err)),
			 0);
	lnet_pcap_flow_init(cap, &f, cfd, true, true);
	assert_true(f.known);
	assert_true(f.synced);
	assert_int_equal(f.remote_port, sa.sin_port);
	lnet_pcap_close(cap, &st);
	assert_int_equal(read_frames(file, frames, 4, &linktype), 3);
	tcp = check_ipv4(&frames[0]);
	assert_int_equal(tcp[13], 0x02); /* SYN, from us: the active side */
	assert_int_equal(rd16(tcp + 2), ntohs(sa.sin_port));
	tcp = check_ipv4(&frames[1]);
	assert_int_equal(tcp[13], 0x12);
	assert_int_equal(rd16(tcp), ntohs(sa.sin_port));
	tcp = check_ipv4(&frames[2]);
	assert_int_equal(tcp[13], 0x10);
	/* Without a capture, or for a socket that is not connected: nothing. */
	lnet_pcap_flow_init(NULL, &f, cfd, true, true);
	assert_true(f.known);
	assert_false(f.synced);
	lnet_pcap_flow_init(NULL, &f, lfd, false, false);
	assert_false(f.known);
	close(cfd);
	close(lfd);
}

/*
 * A stream with no fd (the userspace TCP's): its addresses and ports frame
 * it all the same, from the side that opened it. Mixed families: unknown.
 */
static void
test_flow_from_addresses(void **state)
{
	static struct frame frames[4];
	struct sockaddr_in l = { .sin_family = AF_INET,
				 .sin_port = htons(1023),
				 .sin_addr.s_addr = htonl(0x0a000001) };
	struct sockaddr_in r = { .sin_family = AF_INET,
				 .sin_port = htons(988),
				 .sin_addr.s_addr = htonl(0x0a000002) };
	struct sockaddr_in6 r6 = { .sin6_family = AF_INET6, .sin6_port = htons(988) };
	struct lnet_pcap_stats st;
	struct lnet_pcap_flow f;
	struct lnet_pcap *cap = NULL;
	char file[128];
	char err[256];
	const uint8_t *tcp;
	int linktype;

	(void)state;
	path_of(file, sizeof(file), "addr.pcapng");
	assert_int_equal(lnet_pcap_open(file, LNET_PCAP_PCAPNG, NULL, 0, &cap, err, sizeof(err)),
			 0);
	lnet_pcap_flow_init_addr(cap, &f, (const struct sockaddr *)&l, (const struct sockaddr *)&r,
				 true, true);
	assert_true(f.known);
	assert_true(f.synced);
	lnet_pcap_close(cap, &st);
	assert_int_equal(read_frames(file, frames, 4, &linktype), 3);
	tcp = check_ipv4(&frames[0]);
	assert_int_equal(tcp[13], 0x02); /* SYN, from us */
	assert_int_equal(rd32(tcp - 8), 0x0a000001);
	assert_int_equal(rd32(tcp - 4), 0x0a000002);
	assert_int_equal(rd16(tcp), 1023);
	assert_int_equal(rd16(tcp + 2), 988);
	tcp = check_ipv4(&frames[1]);
	assert_int_equal(tcp[13], 0x12); /* SYN-ACK, from the peer */
	assert_int_equal(rd32(tcp - 8), 0x0a000002);
	assert_int_equal(rd16(tcp), 988);
	lnet_pcap_flow_init_addr(NULL, &f, (const struct sockaddr *)&l,
				 (const struct sockaddr *)&r6, true, false);
	assert_false(f.known);
}

static void
test_open_fails(void **state)
{
	struct lnet_pcap *cap = NULL;
	char err[256] = "";

	(void)state;
	assert_int_equal(lnet_pcap_open("/nonexistent/dir/x.pcapng", LNET_PCAP_PCAPNG, NULL, 0,
					&cap, err, sizeof(err)),
			 -EIO);
	assert_null(cap);
	assert_non_null(strstr(err, "/nonexistent/dir/x.pcapng"));
	err[0] = '\0';
	assert_int_equal(lnet_pcap_open("/nonexistent/dir/x.pcap", LNET_PCAP_PCAP, NULL, 0, &cap,
					err, sizeof(err)),
			 -EIO);
	assert_null(cap);
	assert_true(err[0] != '\0');
}

static int
setup(void **state)
{
	(void)state;
	snprintf(g_dir, sizeof(g_dir), "/tmp/test_pcap.XXXXXX");
	return mkdtemp(g_dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcapng),           cmocka_unit_test(test_pcap_classic),
		cmocka_unit_test(test_max_bytes),        cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_flow_from_socket), cmocka_unit_test(test_flow_from_addresses),
		cmocka_unit_test(test_open_fails),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
