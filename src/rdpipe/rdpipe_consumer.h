/* rdpipe_consumer.h — the consumer's loop (rdpipe_consumer.c), apart from
 * how it is started (rdpipe.c) so that tests can run it in a thread. */
#ifndef AUGUR_RDPIPE_CONSUMER_H
#define AUGUR_RDPIPE_CONSUMER_H

#include "rdpipe/rdpipe.h"
#include "rdpipe/rdpipe_proto.h"

/* Run the records the tool publishes in `ring` (rdpipe_proto.h) through
 * the engines of cfg on `threads` threads (1: on the caller's), sleeping on
 * `doorbell` when there are none, and answer flushes and exports on `out`;
 * return 0 when the doorbell's end says the tool's processes are gone, or
 * the tool stopped reading answers.  A record that breaks the protocol, or
 * memory exhausted, ends the process with a message. */
int rdpipe_consume(int doorbell, int out, RdpRing *ring, const rdpipe_config *cfg, unsigned threads);

#endif
