/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A socklnd NI and the host's links: the table of interfaces and addresses
 * (sock_link.c) that rtnetlink keeps current, read at start-up, answering
 * the message path without a system call; what a change means for the NI
 * (its own link state to LNet, connections to peers behind a link that
 * went down); and the reload after lost notifications, done by a thread of
 * its own so that the lcore never waits for the kernel's rtnl lock.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cfs.h"
#include "lnet_lnd.h"
#include "sock_link.h"
#include "socklnd_conn.h"
#include "socklnd_link.h"
#include "socklnd_peer.h"

/*
 * The link went down: what the NI's connections carry goes nowhere, so they
 * close now and their messages fail as a local drop, for LNet to resend over
 * another NI, instead of waiting for the socket timeout.
 */
static void
socklnd_close_all(struct socklnd_ni *s, int status, enum lnet_msg_hstatus hs)
{
	struct socklnd_conn *c;

	TAILQ_FOREACH(c, &s->conns, link) {
		if (c->state != SOCKLND_CONN_DEAD) {
			socklnd_conn_close_hs(c, status, hs);
		}
	}
	socklnd_peers_fail_waiting(s, status, hs);
}

/*
 * A link went down somewhere: the NI's connections to peers behind it
 * carry nothing any more (a rail's NI talks to the other rail's peer NIDs
 * through the other link). They close now, their messages failing as the
 * peer NID's drop, for LNet to send them to the peer's other NIDs.
 */
static void
socklnd_close_unreachable(struct socklnd_ni *s)
{
	struct socklnd_conn *c;

	TAILQ_FOREACH(c, &s->conns, link) {
		if (c->state != SOCKLND_CONN_DEAD && c->peer != NULL &&
		    socklnd_peer_link_down(s, &c->peer_nid)) {
			s->stats.link_closes++;
			socklnd_conn_close_hs(c, -ENETUNREACH, LNET_MSG_STATUS_REMOTE_DROPPED);
		}
	}
}

/* The NI's link is @p up: a change goes to LNet, and a link gone down closes every connection. */
static void
socklnd_link_set(struct socklnd_ni *s, bool up)
{
	s->stats.link_checks++;
	if (up != s->link_up) {
		s->stats.link_changes++;
		s->link_up = up;
		lnet_ni_link_state(s->ni, up);
		if (!up) {
			socklnd_close_all(s, -ENETDOWN, LNET_MSG_STATUS_LOCAL_DROPPED);
		}
	}
}

/* The table changed: the NI's own link state to LNet, and connections the table says are cut. */
static void
socklnd_link_recheck(struct socklnd_ni *s)
{
	socklnd_link_set(s, sock_link_is_up(s->links, lnet_ni_nid(s->ni), &s->link_ifindex));
	socklnd_close_unreachable(s);
}

/*
 * The reloader: the host's interfaces and addresses read anew with
 * getifaddrs, a netlink dump that waits for the kernel's rtnl lock, which
 * another namespace's teardown can hold for seconds. So never on the lcore:
 * this thread writes only link_fresh, then link_reload_done (release); the
 * lcore reads them once it sees the flag, and joins it.
 */
static void *
socklnd_link_reloader(void *arg)
{
	struct socklnd_ni *s = arg;
	struct sock_link_table *t = sock_link_table_create();
	int rc = t != NULL ? sock_link_table_load(t) : -ENOMEM;

	if (rc != 0) {
		sock_link_table_destroy(t);
		t = NULL;
	}
	s->link_fresh = t;
	__atomic_store_n(&s->link_reload_done, true, __ATOMIC_RELEASE);
	return NULL;
}

void
socklnd_link_reload_start(struct socklnd_ni *s)
{
	int rc;

	if (s->link_reloading) {
		s->link_changed_meanwhile = true; /* the one under way may have read before it */
		return;
	}
	s->stats.link_reloads++;
	s->link_fresh = NULL;
	s->link_changed_meanwhile = false;
	__atomic_store_n(&s->link_reload_done, false, __ATOMIC_RELAXED);
	rc = pthread_create(&s->link_reloader, NULL, socklnd_link_reloader, s);
	if (rc != 0) {
		SOCK_LOG(WARNING,
			 "%s: link table not reloaded: %s (the next lost notification tries again)",
			 libcfs_nidstr(lnet_ni_nid(s->ni)), strerror(rc));
		return;
	}
	s->link_reloading = true;
}

void
socklnd_link_reload_check(struct socklnd_ni *s)
{
	struct sock_link_table *fresh;

	if (!s->link_reloading || !__atomic_load_n(&s->link_reload_done, __ATOMIC_ACQUIRE)) {
		return;
	}
	pthread_join(s->link_reloader, NULL); /* it has returned, or is returning */
	s->link_reloading = false;
	fresh = s->link_fresh;
	s->link_fresh = NULL;
	if (fresh == NULL) {
		SOCK_LOG(WARNING,
			 "%s: link table not reloaded (the next lost notification tries again)",
			 libcfs_nidstr(lnet_ni_nid(s->ni)));
		return;
	}
	sock_link_table_destroy(s->links);
	s->links = fresh;
	socklnd_link_recheck(s);
	if (s->link_changed_meanwhile) {
		socklnd_link_reload_start(
			s); /* what came meanwhile went to the table just replaced */
	}
}

/*
 * On the NI's lcore: rtnetlink said something changed; a new state goes to
 * LNet. Lost notifications (ENOBUFS) start a reload beside the lcore, which
 * goes on with the table it has until the fresh one is in.
 */
void
socklnd_link_event(struct socklnd_ni *s)
{
	struct sock_link_own own = { s->link_ifindex, lnet_ni_nid(s->ni) };
	enum sock_link_drained got;

	if (s->xp->ops->link_up != NULL) {
		socklnd_link_set(s,
				 s->xp->ops->link_up(s->xp)); /* the port's link, not the host's */
		return;
	}
	got = sock_link_drain(s->link_fd, s->links, &own);

	if (got != SOCK_LINK_NOTHING && s->link_reloading) {
		s->link_changed_meanwhile = true;
	}
	switch (got) {
	case SOCK_LINK_NOTHING:
		break;
	case SOCK_LINK_OTHERS:
		socklnd_close_unreachable(s); /* the table's answers: no system call */
		break;
	case SOCK_LINK_LOST:
		socklnd_link_reload_start(s);
		break;
	case SOCK_LINK_OURS:
		socklnd_link_recheck(s);
		break;
	}
	socklnd_link_reload_check(s);
}

/* On mgmt at startup: watch the link; a failure only costs the watching. */
void
socklnd_link_watch(struct socklnd_ni *s)
{
	s->links = sock_link_table_create();
	s->link_fd = sock_link_open(); /* first: a change after the load below is heard */
	/* Start-up may block on the kernel (getifaddrs); the message path never does. */
	if (s->links != NULL && sock_link_table_load(s->links) != 0) {
		sock_link_table_destroy(s->links);
		s->links = NULL;
	}
	s->link_up =
		s->links == NULL || sock_link_is_up(s->links, lnet_ni_nid(s->ni), &s->link_ifindex);
	if (s->links == NULL && s->link_fd >= 0) {
		close(s->link_fd); /* nothing to keep current */
		s->link_fd = -ENOMEM;
	}
	if (s->link_fd >= 0) {
		int rc = s->xp->ops->watch_fd(s->xp, s->link_fd, &s->link_fd);

		if (rc != 0) {
			close(s->link_fd);
			s->link_fd = rc;
		}
	}
	if (s->link_fd < 0) {
		SOCK_LOG(WARNING, "%s: link changes not watched: %s",
			 libcfs_nidstr(lnet_ni_nid(s->ni)), strerror(-s->link_fd));
	}
}

/*
 * On mgmt at startup, for a transport on a device of its own (a DPDK
 * port): the device's link is the NI's; no host interface is watched.
 * Its changes come as readiness events with &s->link_fd, as rtnetlink's do.
 */
void
socklnd_port_link_watch(struct socklnd_ni *s)
{
	s->link_up = true;
	if (s->xp->ops->watch_link != NULL) {
		s->xp->ops->watch_link(s->xp, &s->link_fd);
		s->link_up = s->xp->ops->link_up(s->xp);
	}
}

/* Shutdown, or a start that failed: a reload under way is waited for (it may wait for the kernel). */
void
socklnd_link_fini(struct socklnd_ni *s)
{
	if (s->link_reloading) {
		pthread_join(s->link_reloader, NULL);
		sock_link_table_destroy(s->link_fresh);
		s->link_fresh = NULL;
		s->link_reloading = false;
	}
	if (s->link_fd >= 0) {
		close(s->link_fd);
		s->link_fd = -1;
	}
	sock_link_table_destroy(s->links);
	s->links = NULL;
}
