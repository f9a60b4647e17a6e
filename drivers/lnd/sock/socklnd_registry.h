/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * socklnd_registry.c: every socklnd NI of the process, for connection
 * requests naming another; an RCU-published table, read lock-free. add on
 * the management lcore, del on the NI's lcore (or mgmt if start fails).
 */
#ifndef SOCKLND_REGISTRY_H
#define SOCKLND_REGISTRY_H

#include "socklnd_ni.h"

int socklnd_registry_add(struct socklnd_ni *s, struct rt_lcore *lcore);
void socklnd_registry_del(struct socklnd_ni *s);
struct rt_lcore *socklnd_registry_lcore(const struct lnet_nid *nid);
struct socklnd_ni *socklnd_registry_here(const struct lnet_nid *nid);

#endif /* SOCKLND_REGISTRY_H */
