/* SPDX-License-Identifier: BSD-3-Clause */
/* The ordered outbox (rt_outbox.h). */
#include <errno.h>
#include <stdlib.h>

#include "rt_outbox.h"

/* Offer what waits for each destination to its ring, oldest first; stop at the first refusal. */
static int
rt_outbox_poll(void *arg)
{
	struct rt_outbox *o = arg;
	int busy = RT_POLLER_IDLE;
	unsigned int i;

	if (o->queued == 0) {
		return RT_POLLER_IDLE;
	}
	for (i = 0; i < o->n; i++) {
		struct rt_outbox_dst *d = &o->dst[i];
		struct rt_outbox_item *it;

		while ((it = STAILQ_FIRST(&d->waiting)) != NULL) {
			if (rt_lcore_send_msg(d->lc, d->fn, it->ctx) != 0) {
				break;
			}
			STAILQ_REMOVE_HEAD(&d->waiting, next);
			o->queued--;
			busy = RT_POLLER_BUSY;
		}
	}
	return busy;
}

int
rt_outbox_init(struct rt_outbox *o, struct rt_lcore *lc, unsigned int n, const char *name)
{
	unsigned int i;

	if (n == 0) {
		return -EINVAL;
	}
	o->dst = calloc(n, sizeof(*o->dst));
	if (o->dst == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		STAILQ_INIT(&o->dst[i].waiting);
	}
	o->queued = 0;
	o->poller = rt_poller_register(lc, rt_outbox_poll, o, 0, name);
	if (o->poller == NULL) {
		free(o->dst);
		o->dst = NULL;
		return -ENOMEM;
	}
	rt_poller_set_pending(o->poller, &o->queued); /* an empty outbox costs its loop nothing */
	o->n = n;
	return 0;
}

void
rt_outbox_set_dst(struct rt_outbox *o, unsigned int i, struct rt_lcore *lc, rt_msg_fn fn)
{
	o->dst[i].lc = lc;
	o->dst[i].fn = fn;
}

bool
rt_outbox_ready(const struct rt_outbox *o)
{
	return o->n != 0;
}

void
rt_outbox_hold(struct rt_outbox *o, unsigned int i, struct rt_outbox_item *it, void *ctx)
{
	it->ctx = ctx;
	STAILQ_INSERT_TAIL(&o->dst[i].waiting, it, next);
	o->queued++;
}

bool
rt_outbox_waiting(const struct rt_outbox *o, unsigned int i)
{
	return !STAILQ_EMPTY(&o->dst[i].waiting);
}

void
rt_outbox_fini(struct rt_outbox *o)
{
	if (o->poller != NULL) {
		rt_poller_unregister(&o->poller);
	}
	free(o->dst);
	o->dst = NULL;
	o->n = 0;
	o->queued = 0;
}
