/* rdpipe_consumer.h — the consumer's loop (rdpipe_consumer.c), apart from
 * how it is started (rdpipe.c) so that tests can run it in a thread. */
#ifndef AUGUR_RDPIPE_CONSUMER_H
#define AUGUR_RDPIPE_CONSUMER_H

#include "rdpipe/rdpipe.h"

/* Read records from `in` until it ends, running the engines of cfg on
 * `threads` threads (1: on the caller's), and answer flushes and exports
 * on `out`.  0 at the end of the records or when the tool stopped reading
 * answers; -1 on a read error.  A record that breaks the protocol, or
 * memory exhausted, ends the process with a message. */
int rdpipe_consume(int in, int out, const rdpipe_config *cfg, unsigned threads);

#endif
