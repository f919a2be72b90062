/* collect_pipe.c — the tool's side of `augur collect --analysis pipe`: the
 * accesses that reach the reuse-distance engines go, batched, to augur's
 * consumer process (src/rdpipe, the protocol in rdpipe_proto.h) through a
 * ring of shared memory, and the consumer runs the engines on another core;
 * at each fold the tool asks for the histograms and adds them to its
 * records, so that everything from collect_take_counts on is as with the
 * engines inline.  docs/collector.md, "Analysis off the program's core".
 *
 * The channel comes from augur collect, open in this process at the
 * descriptors --augur-channel names.  The ring is mapped shared, as
 * Valgrind's gdbserver maps the file it shares with vgdb, by
 * VG_(am_shared_mmap_file_float_valgrind): Valgrind's memory, which the
 * program's loads and stores and its mmap and munmap cannot reach.  The
 * pipes are moved to Valgrind's own range of descriptors, above the
 * program's RLIMIT_NOFILE, where the program cannot close, read or write
 * them (Valgrind refuses its system calls there), and marked close-on-exec,
 * by VG_(safe_fd), as Valgrind keeps its logs'.  Both are core-private,
 * declared below and linked from the libcoregrind the tool links
 * statically, so that their absence from another Valgrind fails the link.
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
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

#include "collector/collect.h"

/* coregrind/pub_core_libcfile.h: dup oldfd into Valgrind's reserved range,
 * close-on-exec, and close oldfd. */
extern Int VG_(safe_fd)(Int oldfd);
/* coregrind/pub_core_aspacemgr.h: map a file shared, in Valgrind's memory. */
extern SysRes VG_(am_shared_mmap_file_float_valgrind)(SizeT length, UInt prot, Int fd, Off64T offset);

/* --augur-channel as given: the descriptors (doorbell, answers, ring) and
 * their inodes. */
static struct {
    Bool given;
    Int fd[3];
    ULong ino[3];
} option;

/* An export's stacks, between the fork's pre and child hooks. */
typedef struct ExportedStack {
    UInt thread, size_index;
    ULong nblocks;
    ULong *blocks; /* least recently used first */
} ExportedStack;

static XArray *exported; /* of ExportedStack, NULL but during a fork */

/* Parse "B:INO,A:INO,R:INO" (rdpipe_tool_option); False when malformed. */
Bool collect_pipe_option(const HChar *value)
{
    const HChar *p = value;
    for (UInt i = 0; i < 3; i++) {
        HChar *end;
        Long fd = VG_(strtoll10)(p, &end);
        if (end == p || *end != ':' || fd < 0)
            return False;
        p = end + 1;
        Long ino = VG_(strtoll10)(p, &end);
        if (end == p || *end != (i < 2 ? ',' : '\0'))
            return False;
        option.fd[i] = (Int)fd;
        option.ino[i] = (ULong)ino;
        p = end + 1;
    }
    option.given = True;
    return True;
}

/* Whether fd is open on a pipe (fifo), or a regular file (not), whose
 * inode is ino. */
static Bool is_open_on(Int fd, Bool fifo, ULong ino)
{
    struct vg_stat st;
    return VG_(fstat)(fd, &st) == 0 && (VKI_S_ISFIFO(st.mode) ? fifo : !fifo && VKI_S_ISREG(st.mode)) &&
           st.ino == ino;
}

/* The batch after ch->head: to the ring's end, RDP_BATCH at most. */
static void start_batch(Channel *ch)
{
    UInt at = (UInt)(ch->head % RDP_RING_RECS);
    ch->batch = ch->recs + at;
    ch->used = 0;
    ch->room = RDP_RING_RECS - at < RDP_BATCH ? RDP_RING_RECS - at : RDP_BATCH;
}

void collect_pipe_init(void)
{
    Collector *c = &collector;
    if (!option.given || !is_open_on(option.fd[0], True, option.ino[0]) ||
        !is_open_on(option.fd[1], True, option.ino[1]) || !is_open_on(option.fd[2], False, option.ino[2]))
        return; /* inline: no channel, or an exec'd program's files at its numbers */
    SysRes m = VG_(am_shared_mmap_file_float_valgrind)(RDP_RING_BYTES, VKI_PROT_READ | VKI_PROT_WRITE,
                                                         option.fd[2], 0);
    VG_(close)(option.fd[2]); /* the mapping stays */
    if (sr_isError(m)) {
        VG_(umsg)("augur: cannot map the memory shared with the reuse-distance consumer (error %lu)\n", sr_Err(m));
        VG_(exit)(125);
    }
    Channel *ch = VG_(calloc)("augur.channel", 1, sizeof *ch);
    ch->ring = (RdpRing *)sr_Res(m);
    ch->recs = (rdp_rec *)(sr_Res(m) + RDP_RING_OFFSET);
    ch->head = ch->ring->head;
    start_batch(ch);
    ch->bell = VG_(safe_fd)(option.fd[0]);
    ch->in = VG_(safe_fd)(option.fd[1]);
    ch->by_id = VG_(newXA)(VG_(malloc), "augur.by_id", VG_(free), sizeof(InstrRec *));
    c->channel = ch;
}

/* The channel broke: the consumer died.  No profile can be right now. */
static void channel_lost(const HChar *what)
{
    VG_(umsg)("augur: the reuse-distance consumer is gone (%s): no profile is written; "
              "augur collect says why it ended\n", what);
    VG_(exit)(125);
}

/* Wait until the consumer has taken enough records for a batch after
 * ch->head, a millisecond at a time: the answers' pipe ends (hangs up) if
 * it dies meanwhile. */
static void wait_for_room(Channel *ch)
{
    while (ch->head - __atomic_load_n(&ch->ring->tail, __ATOMIC_ACQUIRE) > RDP_RING_RECS - RDP_BATCH) {
        struct vki_pollfd pfd = {ch->in, VKI_POLLIN, 0};
        SysRes r = VG_(poll)(&pfd, 1, 1);
        if (!sr_isError(r) && sr_Res(r) > 0)
            channel_lost("its answers ended, or came unasked");
    }
}

/* Make the batch's records the consumer's, ringing its doorbell if it sleeps. */
static void publish(Channel *ch)
{
    ch->head += ch->used;
    ch->used = 0;
    __atomic_store_n(&ch->ring->head, ch->head, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the head before sleeping is read: rdpipe_proto.h */
    if (__atomic_load_n(&ch->ring->sleeping, __ATOMIC_RELAXED) && VG_(write)(ch->bell, "", 1) != 1)
        channel_lost("its doorbell is closed");
}

/* The next batch, once there is room for it. */
static void next_batch(Channel *ch)
{
    wait_for_room(ch);
    start_batch(ch);
}

void collect_pipe_send(Channel *ch)
{
    publish(ch);
    next_batch(ch);
}

/* Read exactly n bytes of an answer. */
static void read_answer(Channel *ch, void *buf, SizeT n)
{
    HChar *p = buf;
    while (n) {
        Int k = VG_(read)(ch->in, p, n > (1 << 30) ? (1 << 30) : (Int)n);
        if (k <= 0)
            channel_lost("its answer ended early");
        p += k;
        n -= (SizeT)k;
    }
}

/* Publish control record op(arg) and everything before it: a request,
 * whose answer the caller reads before it calls next_batch (the consumer
 * may not free the ring's room until it is read). */
static void send_request(Channel *ch, UInt op)
{
    ch->batch[ch->used++] = (rdp_rec){0, RDP_CONTROL, op}; /* collect_pipe_put left room */
    publish(ch);
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
    send_request(ch, RDP_FLUSH);
    for (;;) {
        rdp_hist_head h;
        read_answer(ch, &h, sizeof h);
        if (h.instr == RDP_CONTROL)
            break;
        if (h.instr >= VG_(sizeXA)(ch->by_id) || h.size_index >= c->nblock_sizes || h.nbins > RD_MAX_BINS)
            channel_lost("it answered with an instruction or block size the tool has not");
        if (h.nbins > ch->nbins_cap) {
            ch->bins = VG_(realloc)("augur.channel.bins", ch->bins, h.nbins * sizeof *ch->bins);
            ch->nbins_cap = h.nbins;
        }
        read_answer(ch, ch->bins, h.nbins * sizeof *ch->bins);
        InstrRec *rec = *(InstrRec **)VG_(indexXA)(ch->by_id, h.instr);
        rd_hist got = {h.cold, h.nbins, ch->bins};
        rd_hist_merge(&rec->n.hist[h.size_index], &got, &c->alloc);
    }
    next_batch(ch);
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
    send_request(ch, RDP_EXPORT);
    exported = VG_(newXA)(VG_(malloc), "augur.exported", VG_(free), sizeof(ExportedStack));
    for (;;) {
        rdp_stack_head h;
        read_answer(ch, &h, sizeof h);
        if (h.thread == RDP_CONTROL)
            break;
        if (h.thread >= MAX_THREADS || h.size_index >= c->nblock_sizes)
            channel_lost("it exported a thread or block size the tool has not");
        ExportedStack e = {h.thread, h.size_index, h.nblocks, NULL};
        e.blocks = VG_(malloc)("augur.exported.blocks", (h.nblocks ? h.nblocks : 1) * sizeof *e.blocks);
        read_answer(ch, e.blocks, h.nblocks * sizeof *e.blocks);
        VG_(addToXA)(exported, &e);
    }
    next_batch(ch);
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
    VG_(close)(ch->bell);
    VG_(close)(ch->in);
    VG_(am_munmap_valgrind)((Addr)ch->ring, RDP_RING_BYTES);
    VG_(deleteXA)(ch->by_id);
    VG_(free)(ch->bins);
    VG_(free)(ch);
    c->channel = NULL; /* inline from here: the stacks the parent's engines had, rebuilt */
    for (UInt t = 0; t < MAX_THREADS; t++)
        if (c->thread[t])
            for (UInt i = 0; i < c->nblock_sizes; i++)
                c->thread[t]->stack[i] = rd_stack_new(&c->alloc);
    for (Word i = 0; i < VG_(sizeXA)(exported); i++) {
        ExportedStack *e = VG_(indexXA)(exported, i);
        rd_stack *s = collect_thread_state(e->thread)->stack[e->size_index];
        for (ULong k = 0; k < e->nblocks; k++)
            rd_stack_access(s, e->blocks[k]);
    }
    drop_exported();
}
