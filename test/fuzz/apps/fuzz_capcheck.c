/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lnet-capcheck on arbitrary capture bytes: libpcap's reader, the TCP
 * reassembly and every check must end in a report or a refusal, never a
 * crash, a leak or a read outside the streams. The seeds are real kernel
 * captures (shared/captures/kernel).
 */
#include <stdint.h>
#include <stdio.h>

#include <pcap/pcap.h>

#include "capcheck.h"
#include "capstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t ports[] = { 988 };
	/* a sequence number far ahead would otherwise zero-fill 256 MiB per stream */
	struct capstream_set set = { .ports = ports, .nports = 1, .max_len = 1U << 20 };
	struct capcheck_report r = { 0 };
	char err[PCAP_ERRBUF_SIZE];
	FILE *out, *f;

	if (size == 0) {
		return 0;
	}
	f = fmemopen((void *)(uintptr_t)data, size, "rb");
	if (f == NULL || capstream_read(f, &set, err) != 0) {
		return 0;
	}
	capcheck_run(&set, &r);
	out = fopen("/dev/null", "w");
	if (out != NULL) {
		capcheck_print_text(out, "fuzz", &set, &r);
		capcheck_print_json(out, "fuzz", &set, &r);
		fclose(out);
	}
	capcheck_free(&r);
	capstream_free(&set);
	return 0;
}
