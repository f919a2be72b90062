/* spy_consumer.h — memspy's simulator in a consumer process of augur's
 * (`augur memspy --analysis pipe`): the loop (spy_consumer.c), apart from
 * how it is started (rdpipe_launch) so that tests can run it in a thread. */
#ifndef AUGUR_SPY_CONSUMER_H
#define AUGUR_SPY_CONSUMER_H

#include "rdpipe/rdpipe_proto.h"

#define SPY_CONSUMER_NAME "the simulator's consumer"

/* Run the records the memspy tool publishes in `ring` (spy_proto.h)
 * through the simulator its configuration record describes, sleeping on
 * `doorbell` when there are none, and answer flushes on `out`; return 0
 * when the doorbell's end says the tool is gone, or the tool stopped
 * reading answers.  ctx (rdpipe_consume_fn's) is NULL or points to the
 * number of threads the simulator may use (spy_stages.h: 1, or NULL, is
 * every level on the consumer's one thread).  A record that
 * breaks the protocol, or memory exhausted, ends the process with a
 * message. */
int spy_consume(int doorbell, int out, RdpRing *ring, void *ctx);

#endif
