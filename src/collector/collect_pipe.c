/* collect_pipe.c — the tool's side of `augur collect --analysis pipe`: the
 * accesses that reach the reuse-distance engines go, batched, to augur's
 * consumer process (src/rdpipe, the protocol in rdpipe_proto.h) through a
 * ring of shared memory, and the consumer runs the engines on another core;
 * at each fold the tool asks for the histograms and adds them to its
 * records, so that everything from collect_take_counts on is as with the
 * engines inline.  docs/collector.md, "Analysis off the program's core".
 *
 * The channel comes from augur collect, open in this process at the
 * descriptors --augur-channel names, and is taken out of the program's
 * reach as src/vgcommon/vg_ring.h says, which also holds the ring's
 * mechanics (batches, the doorbell, requests and answers) memspy shares.
 *
 * A forked child cannot share the channel (its records would mix with the
 * parent's), so it runs the engines inline from the fork on: before the
 * fork the parent asks the consumer for every thread's LRU stacks, and the
 * child rebuilds its own from them, as on_fork_child wants them (copies of
 * the parent's).  An exec'd program finds no channel at the numbers given
 * (they were closed on exec, or are the program's files: the inode numbers
 * differ) and runs inline.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_xarray.h"

#include "collector/collect.h"

/* --augur-channel as given. */
static VgRingOption option;

/* An export's stacks, between the fork's pre and child hooks. */
typedef struct ExportedStack {
    UInt thread, size_index;
    ULong nblocks;
    ULong *blocks; /* least recently used first */
} ExportedStack;

static XArray *exported; /* of ExportedStack, NULL but during a fork */

Bool collect_pipe_option(const HChar *value)
{
    return vg_ring_option(&option, value);
}

void collect_pipe_init(void)
{
    VgRing r;
    if (!vg_ring_open(&r, &option, "the reuse-distance consumer",
                      "no profile is written; augur collect says why it ended"))
        return; /* inline: no channel, or an exec'd program's files at its numbers */
    Channel *ch = VG_(calloc)("augur.channel", 1, sizeof *ch);
    ch->ring = r;
    ch->by_id = VG_(newXA)(VG_(malloc), "augur.by_id", VG_(free), sizeof(InstrRec *));
    collector.channel = ch;
}

void collect_pipe_register(InstrRec *rec)
{
    Channel *ch = collector.channel;
    rec->id = (UInt)VG_(sizeXA)(ch->by_id);
    tl_assert(rec->id < RDP_CONTROL);
    VG_(addToXA)(ch->by_id, &rec);
}

void collect_pipe_flush(void)
{
    Collector *c = &collector;
    Channel *ch = c->channel;
    vg_ring_request(&ch->ring, RDP_FLUSH, 0);
    for (;;) {
        rdp_hist_head h;
        vg_ring_read(&ch->ring, &h, sizeof h);
        if (h.instr == RDP_CONTROL)
            break;
        if (h.instr >= VG_(sizeXA)(ch->by_id) || h.size_index >= c->nengines || h.nbins > RD_MAX_BINS)
            vg_ring_lost(&ch->ring, "it answered with an instruction or block size the tool has not");
        if (h.nbins > ch->nbins_cap) {
            ch->bins = VG_(realloc)("augur.channel.bins", ch->bins, h.nbins * sizeof *ch->bins);
            ch->nbins_cap = h.nbins;
        }
        vg_ring_read(&ch->ring, ch->bins, h.nbins * sizeof *ch->bins);
        InstrRec *rec = *(InstrRec **)VG_(indexXA)(ch->by_id, h.instr);
        rd_hist got = {h.cold, h.nbins, ch->bins};
        rd_hist_merge(&rec->n.hist[h.size_index], &got, &c->alloc);
    }
    vg_ring_answered(&ch->ring);
}

void collect_pipe_thread(ThreadId tid)
{
    Channel *ch = collector.channel;
    collect_pipe_put(ch, RDP_CONTROL, tid, RDP_THREAD);
}

void collect_pipe_thread_exit(ThreadId tid)
{
    Channel *ch = collector.channel;
    collect_pipe_put(ch, RDP_CONTROL, tid, RDP_THREAD_EXIT);
}

void collect_pipe_fork_pre(void)
{
    Collector *c = &collector;
    Channel *ch = c->channel;
    vg_ring_request(&ch->ring, RDP_EXPORT, 0);
    exported = VG_(newXA)(VG_(malloc), "augur.exported", VG_(free), sizeof(ExportedStack));
    for (;;) {
        rdp_stack_head h;
        vg_ring_read(&ch->ring, &h, sizeof h);
        if (h.thread == RDP_CONTROL)
            break;
        if (h.thread >= MAX_THREADS || h.size_index >= c->nengines)
            vg_ring_lost(&ch->ring, "it exported a thread or block size the tool has not");
        ExportedStack e = {h.thread, h.size_index, h.nblocks, NULL};
        e.blocks = VG_(malloc)("augur.exported.blocks", (h.nblocks ? h.nblocks : 1) * sizeof *e.blocks);
        vg_ring_read(&ch->ring, e.blocks, h.nblocks * sizeof *e.blocks);
        VG_(addToXA)(exported, &e);
    }
    vg_ring_answered(&ch->ring);
}

/* Free what collect_pipe_fork_pre read. */
static void drop_exported(void)
{
    for (Word i = 0; exported && i < VG_(sizeXA)(exported); i++)
        VG_(free)(((ExportedStack *)VG_(indexXA)(exported, i))->blocks);
    if (exported)
        VG_(deleteXA)(exported);
    exported = NULL;
}

void collect_pipe_fork_parent(void)
{
    drop_exported();
}

void collect_pipe_fork_child(void)
{
    Collector *c = &collector;
    Channel *ch = c->channel;
    vg_ring_close(&ch->ring);
    VG_(deleteXA)(ch->by_id);
    VG_(free)(ch->bins);
    VG_(free)(ch);
    c->channel = NULL; /* inline from here: the stacks the parent's engines had, rebuilt */
    for (UInt t = 0; t < MAX_THREADS; t++)
        if (c->thread[t])
            collect_thread_engines(c->thread[t]);
    for (Word i = 0; i < VG_(sizeXA)(exported); i++) {
        ExportedStack *e = VG_(indexXA)(exported, i);
        ThreadState *t = collect_thread_state(e->thread);
        for (ULong k = 0; k < e->nblocks; k++)
            if (e->size_index < c->nblock_sizes)
                rd_stack_access(t->stack[e->size_index], e->blocks[k]);
            else
                rd_sets_access(t->sets[e->size_index - c->nblock_sizes], e->blocks[k]);
    }
    drop_exported();
}
