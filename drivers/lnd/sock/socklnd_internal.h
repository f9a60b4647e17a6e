/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every header of a socklnd NI's inside, for the unit tests that reach
 * into it (test/unit/lnd). No file of the driver includes this: each
 * includes the headers of the layers below it (see socklnd.c's opening
 * comment), so that the includes run one way.
 */
#ifndef SOCKLND_INTERNAL_H
#define SOCKLND_INTERNAL_H

#include "socklnd.h"
#include "socklnd_ack.h"
#include "socklnd_conn.h"
#include "socklnd_hs.h"
#include "socklnd_link.h"
#include "socklnd_ni.h"
#include "socklnd_peer.h"
#include "socklnd_registry.h"
#include "socklnd_sweep.h"
#include "socklnd_tx.h"

#endif /* SOCKLND_INTERNAL_H */
