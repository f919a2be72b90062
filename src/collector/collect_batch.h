/* collect_batch.h — the accesses a thread's reuse-distance engines have yet
 * to take, while they take far ones.  The helper hands an access to the
 * engines at once (the stacks' fronts answer most accesses of regular loops
 * from the host's cache) until, over BATCH_ACCESSES accesses, 1 in
 * BATCH_FAR_SHARE block touches missed the front and read the hash table;
 * then it appends the accesses (record, address, size, whether counts are
 * taken) and the engines take BATCH_ACCESSES at once, each told the hash
 * slot of the block BATCH_AHEAD accesses ahead before it takes one
 * (rd_stack_prefetch), so that the host-memory waits of far accesses
 * overlap instead of following one another; each batch judges the next
 * the same way (docs/benchmarks.md, "Cheaper engine paths"). */
#ifndef AUGUR_COLLECT_BATCH_H
#define AUGUR_COLLECT_BATCH_H

#include "pub_tool_basics.h"

#define BATCH_ACCESSES 256u
#define BATCH_AHEAD 8u
#define BATCH_FAR_SHARE 2u

struct InstrRec;

typedef struct PendingAccess {
    struct InstrRec *rec;
    Addr addr;
    UInt size;     /* bytes, >= 1 */
    UInt counting; /* collector.counting when it happened */
} PendingAccess;

typedef struct Batch {
    Bool far;    /* accesses wait in a[] for the engines, which prefetch */
    UInt n;      /* accesses waiting in a[] */
    UInt since;  /* accesses taken since the last judgement */
    ULong below; /* the stacks' rd_stack_below_front summed, then */
    PendingAccess a[BATCH_ACCESSES];
} Batch;

#endif
