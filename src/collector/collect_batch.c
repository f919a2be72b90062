/* collect_batch.c — a thread's batch of far accesses through its
 * reuse-distance engines, and the judgement of when to batch
 * (collect_batch.h). */
#include "pub_tool_basics.h"

#include "collector/collect.h"

/* The accesses of batch b through stack s of block size index i (shift:
 * log2 of the size), the slot of the access BATCH_AHEAD later asked for
 * first. */
static void run_size(Batch *b, rd_stack *s, UInt i, UInt shift)
{
    Collector *c = &collector;
    for (UInt k = 0; k < b->n; k++) {
        const PendingAccess *p = &b->a[k];
        if (k + BATCH_AHEAD < b->n)
            rd_stack_prefetch(s, b->a[k + BATCH_AHEAD].addr >> shift);
        collect_take_blocks(s, p->rec, i, shift, p->addr, p->addr + p->size - 1, p->counting, &c->alloc);
    }
}

void collect_batch_judge(ThreadState *t)
{
    Collector *c = &collector;
    Batch *b = &t->batch;
    ULong below = 0;
    for (UInt i = 0; i < c->nblock_sizes; i++)
        below += rd_stack_below_front(t->stack[i]);
    b->far = (below - b->below) * BATCH_FAR_SHARE >= (ULong)b->since * c->nblock_sizes;
    b->below = below;
    b->since = 0;
}

void collect_batch_run(ThreadState *t)
{
    Collector *c = &collector;
    Batch *b = &t->batch;
    for (UInt i = 0; i < c->nblock_sizes; i++)
        run_size(b, t->stack[i], i, c->block_shift[i]);
    b->since += b->n;
    b->n = 0;
    collect_batch_judge(t);
}

void collect_batch_run_all(void)
{
    for (UInt tid = 0; tid < MAX_THREADS; tid++)
        if (collector.thread[tid] && collector.thread[tid]->batch.n)
            collect_batch_run(collector.thread[tid]);
}
