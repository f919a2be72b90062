/* collect_runtime.c — what instrumented code calls while the program runs,
 * thread switches, fork, and turning counters into counts at the end.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"

#include "collector/collect.h"
#include "vgcommon/vg_alloc.h"

#define NO_BLOCK (~0ULL) /* no block number: addresses >> 3 never reach it */

void collect_thread_engines(ThreadState *t)
{
    Collector *c = &collector;
    for (UInt i = 0; i < c->nblock_sizes; i++)
        t->stack[i] = rd_stack_new(&c->alloc);
    for (UInt j = 0; j < c->nset_counts; j++)
        t->sets[j] = rd_sets_new(c->set_count[j], &c->alloc);
}

ThreadState *collect_thread_state(ThreadId tid)
{
    Collector *c = &collector;
    tl_assert(tid < MAX_THREADS);
    if (!c->thread[tid]) {
        ThreadState *t = VG_(calloc)("augur.thread", 1, sizeof *t);
        if (!c->channel)
            collect_thread_engines(t);
        t->top_block = NO_BLOCK;
        t->counting = c->nregion_fns == 0; /* outside every region function */
        c->thread[tid] = t;
    }
    return c->thread[tid];
}

/* Point the inline distance-1 check at the stack fronts of t (NULL: at
 * none, so that it always hands the access to the helper). */
static void point_fronts(ThreadState *t)
{
    Collector *c = &collector;
    for (UInt i = 0; i < c->nblock_sizes; i++)
        c->front[i] = t && t->stack[i] ? rd_stack_front(t->stack[i]) : c->no_front;
}

/* Valgrind runs one thread at a time; switch the fast path's notion of "the
 * most recent block", and the call waiting for its callee, with it.
 * Valgrind calls this at least once per scheduling quantum (100,000
 * blocks), which paces the progress lines. */
static void on_start_client_code(ThreadId tid, ULong blocks_dispatched)
{
    Collector *c = &collector;
    if (blocks_dispatched - c->progress_blocks >= PROGRESS_BLOCKS) {
        c->progress_blocks = blocks_dispatched;
        collect_progress_check();
    }
    ThreadState *t = collect_thread_state(tid);
    if (t == c->current)
        return;
    if (c->current) {
        c->current->top_block = c->top_block;
        c->current->pending_call = c->pending_call;
        c->current->resolve_call = c->resolve_call;
        collect_regions_save(c->current);
    }
    c->current = t;
    if (c->channel)
        collect_pipe_thread(tid);
    c->top_block = t->top_block;
    point_fronts(t);
    c->pending_call = t->pending_call;
    c->resolve_call = t->resolve_call;
    collect_regions_load(t);
}

/* A signal handler is no callee of the call the thread may be between:
 * the wait is set aside while the handler runs. */
static void on_pre_deliver_signal(ThreadId tid, Int sig, Bool alt_stack)
{
    (void)sig, (void)alt_stack;
    ThreadState *t = collect_thread_state(tid);
    t->signal_call = collector.pending_call;
    collector.pending_call = 0;
}

static void on_post_deliver_signal(ThreadId tid, Int sig)
{
    (void)sig;
    ThreadState *t = collect_thread_state(tid);
    collector.pending_call = t->signal_call;
    t->signal_call = 0;
}

/* Valgrind reuses the ids of exited threads: a new thread must not inherit
 * an old one's LRU stacks, or its first touches would not be cold. */
static void on_thread_exit(ThreadId tid)
{
    Collector *c = &collector;
    ThreadState *t = tid < MAX_THREADS ? c->thread[tid] : NULL;
    if (!t)
        return;
    for (UInt i = 0; i < c->nblock_sizes; i++)
        rd_stack_free(t->stack[i]);
    for (UInt j = 0; j < c->nset_counts; j++)
        rd_sets_free(t->sets[j], &c->alloc);
    if (c->channel)
        collect_pipe_thread_exit(tid);
    if (c->current == t) {
        c->current = NULL;
        c->top_block = NO_BLOCK;
        point_fronts(NULL);
        c->pending_call = c->resolve_call = 0;
        c->region_sp = c->skip_sp = 0;
        c->counting = c->nregion_fns == 0;
    }
    VG_(free)(t);
    c->thread[tid] = NULL;
}

/* Called for the main thread too (with an invalid parent). */
static void on_thread_create(ThreadId parent, ThreadId child)
{
    (void)parent, (void)child;
    collector.threads_created++;
}

/* Put rec on collector.touched unless it is there. */
static void mark_touched(InstrRec *rec)
{
    Collector *c = &collector;
    if (rec->touched_epoch != c->epoch) {
        rec->touched_epoch = c->epoch;
        VG_(addToXA)(c->touched, &rec);
    }
}

/* Put the records of every superblock that ran since the last fold on
 * collector.touched: a superblock that ran was entered (ctr[0] > 0), and
 * only what runs changes a record's counts (the helpers are called from
 * the superblock of their instruction). */
static void touch_ran(void)
{
    for (SbCounters *sb = collector.sbs; sb; sb = sb->next_sb)
        if (sb->ctr[0])
            for (UInt i = 0; i < sb->nitems; i++)
                mark_touched(sb->items[i].rec);
}

InstrRec **collect_touched(UInt *n)
{
    *n = (UInt)VG_(sizeXA)(collector.touched);
    return *n ? VG_(indexXA)(collector.touched, 0) : NULL;
}

/* Zero the counts of rec. */
static void reset_record(InstrRec *rec)
{
    Collector *c = &collector;
    rec->fast_path_misses = rec->guarded_reads = rec->guarded_writes = 0;
    rec->n.execs = rec->n.reads = rec->n.writes = rec->n.taken = rec->n.exact_zero = 0;
    rec->has_last = False;
    rec->n.vote = (StrideVote){0};
    for (UInt i = 0; i < c->nengines; i++)
        rec->near[i] = 0;
    for (UInt i = 0; i < rec->n.targets.n; i++)
        rec->n.targets.e[i].count = 0;
    for (UInt i = 0; i < rec->n.callees.n; i++)
        rec->n.callees.e[i].count = 0;
    for (UInt i = 0; i < c->nengines; i++)
        rd_hist_clear(&rec->n.hist[i]);
}

void collect_reset_counts(void)
{
    Collector *c = &collector;
    if (c->channel) /* what the engines counted since the last fold, as inline: to be zeroed with the rest */
        collect_pipe_flush();
    touch_ran();
    for (SbCounters *sb = c->sbs; sb; sb = sb->next_sb)
        if (sb->ctr[0])
            for (UInt k = 0; k <= sb->nexits; k++)
                sb->ctr[k] = 0;
    UInt n;
    InstrRec **recs = collect_touched(&n);
    for (UInt i = 0; i < n; i++)
        reset_record(recs[i]);
    VG_(dropTailXA)(c->touched, n);
    c->epoch++; /* every record is off the list */
}

/* The forked child profiles only what it does itself: zero every count but
 * keep the LRU stacks, whose contents the child's memory inherited.  The
 * parent's intervals so far are not the child's either (their memory,
 * copied, is left as it is). */
static void on_fork_child(ThreadId tid)
{
    (void)tid;
    Collector *c = &collector;
    if (c->channel) {
        collect_pipe_fork_child();
        point_fronts(c->current); /* its stacks are new */
    }
    collect_reset_counts();
    c->threads_created = 1;
    c->instructions_taken = 0;
    c->intervals_closed = 0;
    c->total = NULL;
    c->phases = NULL;
}

/* With a channel, the parent fetches the stacks its child will start with. */
static void on_fork_pre(ThreadId tid)
{
    (void)tid;
    if (collector.channel)
        collect_pipe_fork_pre();
}

static void on_fork_parent(ThreadId tid)
{
    (void)tid;
    if (collector.channel)
        collect_pipe_fork_parent();
}

void collect_runtime_init(void)
{
    Collector *c = &collector;
    c->alloc = vg_rd_allocator("augur.rd");
    c->touched = VG_(newXA)(VG_(malloc), "augur.touched", VG_(free), sizeof(InstrRec *));
    c->epoch = 1; /* records are made with touched_epoch 0: on no list */
    c->top_block = NO_BLOCK;
    c->no_front[0] = c->no_front[1] = RD_NO_BLOCK;
    point_fronts(NULL);
    /* Gated counts and sampled histograms are the helper's alone, and with a
     * channel the stacks are the consumer's. */
    c->near_check = c->near_check_allowed && !c->channel && !c->gated && !c->sample_threshold;
    VG_(track_start_client_code)(on_start_client_code);
    VG_(track_pre_thread_ll_create)(on_thread_create);
    VG_(track_pre_thread_ll_exit)(on_thread_exit);
    VG_(track_pre_deliver_signal)(on_pre_deliver_signal);
    VG_(track_post_deliver_signal)(on_post_deliver_signal);
    VG_(atfork)(on_fork_pre, on_fork_parent, on_fork_child);
}

/* Count delta in its 2-adic class (profile_writer.h, PROFILE_POW2_FIRST),
 * when it is a multiple of 2^PROFILE_POW2_FIRST bytes. */
static inline void count_pow2(StrideVote *v, Long delta)
{
    if (delta == 0 || (delta & ((1L << PROFILE_POW2_FIRST) - 1)))
        return;
    UInt k = (UInt)__builtin_ctzll((ULong)delta) - PROFILE_POW2_FIRST;
    v->pow2[k < PROFILE_POW2_CLASSES ? k : PROFILE_POW2_CLASSES - 1]++;
}

/* One step of the majority vote over the instruction's address deltas
 * (Boyer-Moore): the candidate gains a vote when the delta equals it,
 * loses one otherwise, and is replaced when it has none.  A delta that
 * is the majority of all deltas is the candidate at the end;
 * stride_count, the deltas equal to the candidate since it last became
 * one, is then at most its true count (exact when it never lost the vote
 * after taking it, as in the steady walk of a loop).  The last address is
 * the instruction's, not the thread's: threads switch every 100,000
 * superblocks, so interleaving adds few deltas. */
static inline void vote_stride(InstrRec *rec, Addr addr)
{
    StrideVote *v = &rec->n.vote;
    if (LIKELY(rec->has_last)) {
        Long delta = (Long)(addr - rec->last_addr);
        v->deltas++;
        count_pow2(v, delta);
        if (delta == v->stride) {
            v->votes++;
            v->count++;
        } else if (v->votes == 0) {
            v->stride = delta;
            v->votes = v->count = 1;
        } else
            v->votes--;
    }
    rec->has_last = True;
    rec->last_addr = addr;
}

/* touch()'s blocks when sampling: only the sampled blocks enter the stacks,
 * and their histograms take the distance scaled to the whole run (their
 * number is scaled when the profile is written: collect_output.c).  Out of
 * line, so that touch(), the hot path, stays the exact case's size. */
static __attribute__((noinline)) void touch_sampled(InstrRec *rec, ThreadState *t, Addr addr, Addr end)
{
    Collector *c = &collector;
    for (UInt i = 0; i < c->nblock_sizes; i++)
        rd_touch_blocks(t->stack[i], addr >> c->block_shift[i], end >> c->block_shift[i], c->sample_threshold,
                        c->counting ? &rec->n.hist[i] : NULL, &c->alloc);
}

/* Every block of [addr, addr+size) at every block size enters the current
 * thread's stacks and the instruction's histograms (or, sampling, those
 * sampled: touch_sampled); the address its stride vote. */
static inline void touch(InstrRec *rec, Addr addr, UWord size)
{
    Collector *c = &collector;
    ThreadState *t = c->current;
    if (UNLIKELY(!t)) { /* only if code runs between a thread's exit and the next switch */
        ThreadId tid = VG_(get_running_tid)();
        t = c->current = collect_thread_state(tid);
        point_fronts(t);
        if (c->channel)
            collect_pipe_thread(tid);
    }
    if (c->counting) /* a delta between two counted accesses only: DELTAS < READS + WRITES */
        vote_stride(rec, addr);
    else
        rec->has_last = False;
    Addr end = addr + size - 1;
    c->top_block = end >> c->block_shift[0];
    if (c->channel) {
        collect_pipe_put(c->channel, rec->id, addr, (UInt)size | (c->counting ? RDP_COUNTING : 0));
        return;
    }
    if (UNLIKELY(c->sample_threshold)) {
        touch_sampled(rec, t, addr, end);
        return;
    }
    for (UInt i = 0; i < c->nblock_sizes; i++) /* the stacks outside a region too: the cache's view */
        rd_touch_blocks(t->stack[i], addr >> c->block_shift[i], end >> c->block_shift[i], 0,
                        c->counting ? &rec->n.hist[i] : NULL, &c->alloc);
    if (c->nset_counts)
        rd_sets_touch_nested(t->sets, c->nset_counts, addr >> RD_SET_LINE_SHIFT, end >> RD_SET_LINE_SHIFT,
                             c->counting ? &rec->n.hist[c->nblock_sizes] : NULL, &c->alloc);
}

/* Is [addr, addr+size) within the current thread's second most recent
 * block at the smallest block size (so at distance 1 there)? */
static inline Bool is_near(Addr addr, UWord size)
{
    Collector *c = &collector;
    uint64_t first = addr >> c->block_shift[0], last = (addr + size - 1) >> c->block_shift[0];
    return first == last && first == c->front[0][1];
}

/* take_near's set counts (the smallest block size is their 64-byte line):
 * the line, second most recent of all, is the most recent of its set
 * (distance 0) unless the top line, `top`, shares its set; then the two
 * are its set's first two (distance 1: swapped). */
static inline void take_near_sets(InstrRec *rec, ThreadState *t, uint64_t top, uint64_t line)
{
    Collector *c = &collector;
    for (UInt j = 0; j < c->nset_counts; j++) {
        rd_sets *s = t->sets[j];
        if ((top ^ line) & s->mask)
            continue;
        uint64_t *w = s->lines + (line & s->mask) * RD_SET_WAYS;
        w[0] = line;
        w[1] = top;
        rec->near[c->nblock_sizes + j]++;
    }
}

/* What touch() does for an access is_near found, in exact inline analysis,
 * ungated (Collector.near_check), without the engines: the block swaps with
 * the top of the front; at each larger block size its block is the top
 * (distance 0) or, as nothing but the top was touched since the second, the
 * second (distance 1: swapped); at each set count as take_near_sets.  The
 * distances are counted in rec->near, folded by add_near_accesses. */
static void take_near(InstrRec *rec, Addr addr)
{
    Collector *c = &collector;
    vote_stride(rec, addr);
    uint64_t *f = c->front[0];
    if (c->nset_counts)
        take_near_sets(rec, c->current, f[0], f[1]);
    c->top_block = f[1];
    f[1] = f[0];
    f[0] = c->top_block;
    rec->near[0]++;
    for (UInt i = 1; i < c->nblock_sizes; i++) {
        f = c->front[i];
        uint64_t block = addr >> c->block_shift[i];
        if (block != f[0]) {
            f[1] = f[0];
            f[0] = block;
            rec->near[i]++;
        }
    }
}

VG_REGPARM(3) void collect_on_access(InstrRec *rec, Addr addr, UWord size)
{
    if (collector.near_check && is_near(addr, size)) {
        take_near(rec, addr);
        return;
    }
    rec->fast_path_misses += collector.counting; /* as the gated counters count the access */
    touch(rec, addr, size);
}

VG_REGPARM(3) void collect_on_guarded_access(InstrRec *rec, Addr addr, UWord size_and_write)
{
    if (!collector.counting)
        ;
    else if (size_and_write & 1)
        rec->guarded_writes++;
    else
        rec->guarded_reads++;
    touch(rec, addr, size_and_write >> 1);
}

void collect_count_key(KeyCounts *k, UWord key, ULong n)
{
    for (UInt i = 0; i < k->n; i++) {
        if (k->e[i].key == key) {
            k->e[i].count += n;
            return;
        }
    }
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 4;
        k->e = VG_(realloc)("augur.keycounts", k->e, k->cap * sizeof *k->e);
    }
    k->e[k->n++] = (KeyCount){key, n};
}

VG_REGPARM(2) void collect_on_indirect(InstrRec *rec, Addr target)
{
    if (collector.counting)
        collect_count_key(&rec->n.targets, target, 1);
}

/* The first superblock of a named function after `call` (the current
 * thread's pending call or tail jump), starting at the function's entry
 * when is_entry: count the edge, end the wait.  A jump counts only into
 * another function's entry: an indirect jump that stays in its function
 * (a switch) or lands inside one (longjmp) is no call. */
VG_REGPARM(3) void collect_on_enter(InstrRec *call, InstrRec *entered, UWord is_entry)
{
    collector.pending_call = 0;
    if (!collector.counting || (call->tail_jump && (!is_entry || call->fn == entered->fn)))
        return;
    collect_count_key(&call->n.callees, (UWord)entered, 1);
    mark_touched(call); /* its superblock may have run before the last reset */
}

/* Calls fn(ctx, item, execs, taken) for each count item of sb, in order:
 * execs the executions of the item's segment, taken the times the exit
 * ending it was taken. */
typedef void (*item_fn)(void *ctx, const CountItem *it, ULong execs, ULong taken);

static void for_each_item(const SbCounters *sb, item_fn fn, void *ctx)
{
    ULong execs = sb->ctr[0]; /* executions of segment `seg` */
    UInt seg = 0;
    for (UInt i = 0; i < sb->nitems; i++) {
        const CountItem *it = &sb->items[i];
        for (; seg < it->seg; seg++)
            execs -= sb->ctr[seg + 1];
        fn(ctx, it, execs, sb->ctr[seg + 1]);
    }
}

/* for_each_item's callback when counts are taken: into the records. */
static void fold_item(void *ctx, const CountItem *it, ULong execs, ULong taken)
{
    (void)ctx;
    InstrCounts *n = &it->rec->n;
    switch ((ItemKind)it->kind) {
    case ITEM_EXEC: n->execs += execs; collector.instructions_taken += execs; break;
    case ITEM_READ: n->reads += execs; break;
    case ITEM_WRITE: n->writes += execs; break;
    case ITEM_TAKEN: n->taken += taken; break;
    case ITEM_TAKEN_INVERTED: n->taken += execs - taken; break;
    }
}

/* for_each_item's callback for progress: executed instructions, summed. */
static void count_item(void *ctx, const CountItem *it, ULong execs, ULong taken)
{
    (void)taken;
    if (it->kind == ITEM_EXEC)
        *(ULong *)ctx += execs;
}

ULong collect_instructions_so_far(void)
{
    ULong n = collector.instructions_taken;
    for (SbCounters *sb = collector.sbs; sb; sb = sb->next_sb)
        for_each_item(sb, count_item, &n);
    return n;
}

/* The accesses take_near took (rec->near) into the histograms, and its
 * counts zeroed. */
static void add_near_accesses(InstrRec *rec)
{
    Collector *c = &collector;
    ULong took = rec->near[0];
    if (took) {
        rd_hist_add(&rec->n.hist[0], 1, took, &c->alloc);
        for (UInt i = 1; i < c->nengines; i++) {
            if (rec->near[i])
                rd_hist_add(&rec->n.hist[i], 1, rec->near[i], &c->alloc);
            if (took > rec->near[i])
                rd_hist_add(&rec->n.hist[i], 0, took - rec->near[i], &c->alloc);
        }
    }
    for (UInt i = 0; i < c->nengines; i++)
        rec->near[i] = 0;
}

/* Accesses the fast path skipped had distance 0 at every block size, but
 * those take_near took (add_near_accesses).  Called once
 * per fold: n.reads and n.writes hold the unguarded accesses folded since
 * the last reset, fast_path_misses those of them that reached the helper. */
static void add_skipped_accesses(InstrRec *rec, ULong reads_before, ULong writes_before)
{
    Collector *c = &collector;
    ULong unguarded = rec->n.reads - reads_before + rec->n.writes - writes_before;
    tl_assert(unguarded >= rec->fast_path_misses + rec->near[0]);
    ULong skipped = unguarded - rec->fast_path_misses - rec->near[0];
    add_near_accesses(rec);
    if (c->sample_threshold)
        rec->n.exact_zero += skipped;
    else if (skipped)
        for (UInt i = 0; i < c->nengines; i++)
            rd_hist_add(&rec->n.hist[i], 0, skipped, &c->alloc);
    rec->n.reads += rec->guarded_reads;
    rec->n.writes += rec->guarded_writes;
    rec->fast_path_misses = rec->guarded_reads = rec->guarded_writes = 0;
}

/* A direct call to a named function entered its target every time it
 * executed.  (The target executed, so it has a record, unless Valgrind
 * redirected the call to a replacement, which the augur tool asks for
 * none of.) */
static void add_direct_call(InstrRec *rec, ULong execs)
{
    InstrRec *callee = rec->direct_callee ? VG_(HT_lookup)(collector.instrs, rec->direct_callee) : NULL;
    if (callee && execs)
        collect_count_key(&rec->n.callees, (UWord)callee, execs);
}

/* The records' counts before a fold, to tell what the fold added. */
typedef struct Before {
    ULong execs, reads, writes;
} Before;

void collect_take_counts(void)
{
    Collector *c = &collector;
    if (c->channel)
        collect_pipe_flush();
    touch_ran();
    UInt n;
    InstrRec **recs = collect_touched(&n);
    Before *before = VG_(malloc)("augur.before", (n ? n : 1) * sizeof *before);
    for (UInt i = 0; i < n; i++)
        before[i] = (Before){recs[i]->n.execs, recs[i]->n.reads, recs[i]->n.writes};
    for (SbCounters *sb = c->sbs; sb; sb = sb->next_sb) {
        if (!sb->ctr[0])
            continue;
        for_each_item(sb, fold_item, NULL);
        for (UInt k = 0; k <= sb->nexits; k++)
            sb->ctr[k] = 0;
    }
    for (UInt i = 0; i < n; i++) {
        add_skipped_accesses(recs[i], before[i].reads, before[i].writes);
        add_direct_call(recs[i], recs[i]->n.execs - before[i].execs);
    }
    VG_(free)(before);
}
