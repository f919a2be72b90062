/* spy_stages.h — memspy's simulator by levels on threads of their own, in
 * the simulator's consumer (spy_consumer.c): the consumer's thread (the
 * head) reads the records and simulates the first level; each further
 * stage, on its own thread, simulates its levels (and their shadows) for
 * the references the stage above passes on (memsim.h, ms_pass) and counts
 * them in its own tally, added to the head's before a flush.  The counts
 * are those of one thread simulating every level (test_rdpipe). */
#ifndef AUGUR_SPY_STAGES_H
#define AUGUR_SPY_STAGES_H

#include "rdpipe/spy_proto.h"
#include "rdpipe/spy_tally.h"

typedef struct spy_stages spy_stages;

/* Stages for sim (configured by cfg) on `threads` threads, the head's
 * included: stage i > 0 takes level i, the last one every level from its
 * own to the last.  NULL when threads < 2 or the hierarchy has one level
 * (the head simulates every level), or when a thread cannot be started. */
spy_stages *spy_stages_new(ms_sim *sim, const spy_config *cfg, unsigned threads);

/* The levels the head simulates: [0, spy_stages_head_levels(st)). */
unsigned spy_stages_head_levels(const spy_stages *st);

/* Pass reference p of instruction `code` on to the second stage (the head
 * has simulated its levels: p->walking or p->descending). */
void spy_stages_send(spy_stages *st, uint32_t code, const ms_pass *p);

/* Wait until every stage has simulated and counted what it was sent; then
 * (and until the next send) the simulator is the head's alone. */
void spy_stages_sync(spy_stages *st);

/* After spy_stages_sync: every stage's counts added to `into`, theirs
 * zeroed. */
void spy_stages_merge(spy_stages *st, spy_tally *into);

/* End the stages' threads (after what they were sent) and free them. */
void spy_stages_free(spy_stages *st);

#endif
