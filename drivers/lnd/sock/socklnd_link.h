/* SPDX-License-Identifier: BSD-3-Clause */
/* socklnd_link.c: a socklnd NI and the host's links (on the NI's lcore but watch and fini, on mgmt). */
#ifndef SOCKLND_LINK_H
#define SOCKLND_LINK_H

#include "socklnd_ni.h"

void socklnd_link_watch(struct socklnd_ni *s);
/* The NI's transport is on a device of its own (sock_xport_ops.watch_link): its link is the NI's. */
void socklnd_port_link_watch(struct socklnd_ni *s);
void socklnd_link_event(struct socklnd_ni *s);
/* Lost notifications: a reload starts beside the lcore (the sweep's check takes its table in). */
void socklnd_link_reload_start(struct socklnd_ni *s);
void socklnd_link_reload_check(struct socklnd_ni *s);
void socklnd_link_fini(struct socklnd_ni *s);

#endif /* SOCKLND_LINK_H */
