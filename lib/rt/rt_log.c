/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Log lines leave the lcores without a system call. DPDK's default stream
 * writes each line to stderr and sends it to syslog from the thread that
 * logs: both block when their reader is slow (a pipe nobody drains, a
 * journal busy with its disk), and an lcore that blocks stops forwarding.
 * Here the stream's write copies the line into a ring slot; a thread of its
 * own writes the slots out. A full ring drops the line and counts it: a log
 * line is never worth a stalled router. Lines keep their order. The writer
 * itself never blocks either (rt_log_output): it waits for its output with
 * poll(), so even at exit an output that takes nothing holds the process a
 * second at most.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_ring.h>

#include "rt_internal.h"

/* One line: its length, then its bytes (a longer one is cut, and says so). */
#define RT_LOG_LINE 252
#define RT_LOG_SLOTS 1024
#define RT_LOG_DRAIN_NS 10000000L /* the writer looks every 10 ms: a log line can wait that long */
#define RT_LOG_STOP_WAIT_MS \
	1000 /* at exit, how long in all an output that takes nothing is waited for */

struct rt_log_slot {
	uint32_t len;
	char text[RT_LOG_LINE];
};

struct rt_log {
	struct rte_ring *ring;
	int fd;       /* where the lines go: stderr, as rt_log_output() opened it */
	bool sock;    /* ... a socket: written with MSG_DONTWAIT */
	bool journal; /* ... journald's stream (JOURNAL_STREAM): lines get a <N> priority */
	FILE *stream; /* the one DPDK writes to */
	pthread_t writer;
	int stop;              /* atomic */
	uint64_t dropped;      /* atomic: lines the full ring refused, or the output at exit */
	uint64_t dropped_told; /* writer's: dropped lines already reported */
	int stop_waited_ms;    /* writer's: how long it waited for the output since stop */
	bool gave_up;          /* writer's: past RT_LOG_STOP_WAIT_MS, drops the rest */
};

static struct rt_log *g_rt_log;

static void rt_log_write_now(struct rt_log *l, const char *p, size_t n);

/* The logging thread's current message level as a syslog priority (0 emerg .. 7 debug). */
static unsigned int
rt_log_syslog_priority(void)
{
	int level = rte_log_cur_msg_loglevel();

	return level >= (int)RTE_LOG_EMERG && level <= (int)RTE_LOG_DEBUG ?
		       (unsigned int)(level - 1) :
		       6;
}

/*
 * The stream's write (any thread, under the stream's lock): into the ring or
 * dropped; once the writer is gone (stop), straight out if the output takes
 * it at once, else dropped.
 */
static ssize_t
rt_log_cookie_write(void *cookie, const char *buf, size_t size)
{
	struct rt_log *l = cookie;
	struct rt_log_slot slot;
	size_t n = size;

	if (__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE)) {
		rt_log_write_now(l, buf, size);
		return (ssize_t)size;
	}

	/* journald reads a leading "<N>" as the line's syslog priority (DPDK's levels are N+1). */
	size_t pre = l->journal ? (size_t)snprintf(slot.text, sizeof(slot.text), "<%u>",
						   rt_log_syslog_priority()) :
				  0;

	if (pre + n > RT_LOG_LINE) {
		n = RT_LOG_LINE;
		memcpy(slot.text + RT_LOG_LINE - 4, "...\n", 4); /* cut: said so */
		memcpy(slot.text + pre, buf, RT_LOG_LINE - 4 - pre);
	} else {
		memcpy(slot.text + pre, buf, n);
		n += pre;
	}
	slot.len = (uint32_t)n;
	if (rte_ring_mp_enqueue_elem(l->ring, &slot, sizeof(slot)) != 0) {
		__atomic_fetch_add(&l->dropped, 1, __ATOMIC_RELAXED);
	}
	return (ssize_t)size; /* taken, whatever became of it */
}

/*
 * Wait until the output takes more, never for good: a reader that stopped
 * holds the writer here, not an lcore, and not the process's exit (once
 * stop is asked, RT_LOG_STOP_WAIT_MS at most, then the rest is dropped).
 */
static bool
rt_log_writable(struct rt_log *l)
{
	struct pollfd p = { .fd = l->fd, .events = POLLOUT };

	while (!l->gave_up && poll(&p, 1, 100) == 0) {
		if (__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE) &&
		    (l->stop_waited_ms += 100) >= RT_LOG_STOP_WAIT_MS) {
			l->gave_up = true; /* the rest is dropped at once */
		}
	}
	if (l->gave_up) {
		return false;
	}
	return (p.revents & (POLLOUT | POLLERR | POLLHUP)) == POLLOUT;
}

/* One line out, without blocking; false when the output is gone or would take nothing. */
static bool
rt_log_write_line(struct rt_log *l, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = l->sock ? send(l->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL) :
				      write(l->fd, p, n);

		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!rt_log_writable(l)) {
				return false;
			}
			continue;
		}
		if (w <= 0) {
			return false;
		}
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* After stop: one try, no wait; what the output does not take is dropped. */
static void
rt_log_write_now(struct rt_log *l, const char *p, size_t n)
{
	ssize_t w = l->sock ? send(l->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL) : write(l->fd, p, n);

	if (w != (ssize_t)n) {
		__atomic_fetch_add(&l->dropped, 1, __ATOMIC_RELAXED);
	}
}

/*
 * stderr as the writer's own: a pipe or a terminal opened again with
 * O_NONBLOCK (a description of its own: fd 2's stays as it is for the rest
 * of the process), a socket (journald's stream) written with MSG_DONTWAIT,
 * a regular file shared (its offset is fd 2's; a file does not block).
 */
static int
rt_log_output(bool *sock)
{
	struct stat st;
	int fd;

	*sock = false;
	if (fstat(STDERR_FILENO, &st) != 0) {
		return -errno;
	}
	if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
		fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			return fd;
		}
	}
	*sock = S_ISSOCK(st.st_mode);
	fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	return fd >= 0 ? fd : -errno;
}

/*
 * Is stderr journald's stream? systemd says so in JOURNAL_STREAM ("dev:ino"
 * of the socket it gave as stderr); a stderr redirected since is not.
 */
static bool
rt_log_to_journal(int fd)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev;
	unsigned long long ino;
	struct stat st;

	return js != NULL && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(fd, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* Everything queued, oldest first, then a word on what was dropped. @return lines taken. */
static unsigned int
rt_log_drain(struct rt_log *l)
{
	struct rt_log_slot slot;
	unsigned int n = 0;
	uint64_t dropped;

	while (rte_ring_sc_dequeue_elem(l->ring, &slot, sizeof(slot)) == 0) {
		if (!rt_log_write_line(l, slot.text, slot.len)) {
			__atomic_fetch_add(&l->dropped, 1, __ATOMIC_RELAXED);
		}
		n++;
	}
	dropped = __atomic_load_n(&l->dropped, __ATOMIC_RELAXED);
	if (dropped != l->dropped_told) {
		char line[96];
		int len = snprintf(line, sizeof(line),
				   "rt: %llu log line(s) dropped: the log ring was full\n",
				   (unsigned long long)(dropped - l->dropped_told));

		if (rt_log_write_line(l, line, (size_t)len)) {
			l->dropped_told = dropped;
		}
	}
	return n;
}

static void *
rt_log_writer(void *arg)
{
	struct rt_log *l = arg;
	const struct timespec nap = { 0, RT_LOG_DRAIN_NS };

	while (!__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE)) {
		if (rt_log_drain(l) == 0) {
			nanosleep(&nap, NULL);
		}
	}
	rt_log_drain(l);
	return NULL;
}

int
rt_log_async_start(void)
{
	cookie_io_functions_t io = { .write = rt_log_cookie_write };
	struct rt_log *l;
	int rc;

	if (g_rt_log != NULL) {
		return -EALREADY;
	}
	l = calloc(1, sizeof(*l));
	if (l == NULL) {
		return -ENOMEM;
	}
	l->fd = rt_log_output(&l->sock);
	if (l->fd < 0) {
		rc = l->fd;
		free(l);
		return rc;
	}
	l->journal = rt_log_to_journal(l->fd);
	l->ring = rte_ring_create_elem("rt_log", sizeof(struct rt_log_slot), RT_LOG_SLOTS,
				       SOCKET_ID_ANY, RING_F_SC_DEQ);
	l->stream = l->ring != NULL ? fopencookie(l, "w", io) : NULL;
	if (l->stream == NULL) {
		rte_ring_free(l->ring);
		close(l->fd);
		free(l);
		return -ENOMEM;
	}
	/* One write per line: rte_vlog() flushes after each. */
	setvbuf(l->stream, NULL, _IOFBF, 4096);
	rc = pthread_create(&l->writer, NULL, rt_log_writer, l);
	if (rc != 0) {
		fclose(l->stream);
		rte_ring_free(l->ring);
		close(l->fd);
		free(l);
		return -rc;
	}
	pthread_setname_np(l->writer, "lnet-log");
	rte_openlog_stream(l->stream);
	g_rt_log = l;
	return 0;
}

/*
 * The writer writes what the ring holds (a second at most for an output
 * that takes nothing) and goes; later lines are written by whoever logs,
 * without waiting (DPDK's own stream would block on a full pipe: exit with
 * it would hang). The ring and the stream stay, reachable from g_rt_log.
 */
void
rt_log_async_stop(void)
{
	struct rt_log *l = g_rt_log;

	if (l == NULL || __atomic_load_n(&l->stop, __ATOMIC_ACQUIRE)) {
		return;
	}
	__atomic_store_n(&l->stop, 1, __ATOMIC_RELEASE);
	pthread_join(l->writer, NULL);
}

uint64_t
rt_log_dropped(void)
{
	return g_rt_log != NULL ? __atomic_load_n(&g_rt_log->dropped, __ATOMIC_RELAXED) : 0;
}

bool
rt_log_journal(void)
{
	return g_rt_log != NULL && g_rt_log->journal;
}
