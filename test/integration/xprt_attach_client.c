/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A client process of lnetd-pmd's client service, for xprt_attach.sh:
 * attach at SOCKET, hand over a sealed memfd region of SIZE bytes, print
 * "id HANDLE pid PID" and, with "hold", stay attached until stdin ends
 * (or the process is killed). Exit 0 attached, 1 refused (the error on
 * stderr), 2 usage.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "xprt_attach.h"

int
main(int argc, char **argv)
{
	uint64_t size;
	uint64_t id;
	uint64_t h;
	char c;
	int mfd;
	int s;
	int rc;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "hold") != 0)) {
		fprintf(stderr, "usage: xprt_attach_client SOCKET SIZE [hold]\n");
		return 2;
	}
	size = strtoull(argv[2], NULL, 0);
	mfd = memfd_create("xprt-client", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0 || ftruncate(mfd, (off_t)size) != 0 ||
	    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
		perror("memfd");
		return 1;
	}
	rc = xprt_att_connect(argv[1], &s, &id);
	if (rc == 0) {
		rc = xprt_att_region_add(s, mfd, size, &h);
	}
	if (rc != 0) {
		fprintf(stderr, "xprt_attach_client: %s\n", strerror(-rc));
		return 1;
	}
	printf("id %" PRIu64 " pid %d\n", id, (int)getpid());
	fflush(stdout);
	while (argc == 4 && read(0, &c, 1) > 0) {
	}
	return 0;
}
