/* memspy_buffer.c — per-thread reference buffers: which one the
 * instrumented code fills, and flushing them through the simulator.
 *
 * The instrumented code appends one RefEntry per reference to the running
 * thread's buffer (memspy.buf_cur, memspy_instrument.c) and calls
 * memspy_flush when a superblock's references might not fit before
 * memspy.buf_end (the allocation has MEMSPY_SB_REFS entries more).  A flush simulates the
 * pending entries in the order each thread made them.  When several threads
 * have entries pending (--interleave=yes), they are merged so that each
 * thread's entries are spread evenly over the window: entry i of a thread
 * with n pending sits at (i + 1/2) / n, and the merge takes the smallest
 * position next (ties: the lower thread id).  Valgrind runs one thread at a
 * time for long stretches; the merge models threads that ran concurrently
 * at rates proportional to their pending work (docs/memspy.md, "Threads").
 *
 * Capacity: a lone thread's buffer is kept small (LONE_ENTRIES, 16 KiB, so
 * entries are read back from the host's L1 and the simulator's own data is
 * not pushed out: on matmul and spmv 1 Ki entries ran 7-11% faster than the
 * unbuffered tool, 16 Ki no faster); with several live threads
 * and interleaving on, each holds memspy.buf_entries, several of Valgrind's
 * scheduling quanta, so that the threads' quanta overlap in one window.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"

#include "memspy/memspy.h"

#define LONE_ENTRIES 1024

/* Entries pending in b. */
static SizeT pending(const RefBuf *b)
{
    return b->start ? (SizeT)(b->cur - b->start) : 0;
}

/* All of b's entries, in order. */
static void simulate_all(const RefBuf *b)
{
    memspy_simulate_run(b, b->start, b->cur);
}

/* The entries of the n buffers in `bufs` (n >= 2), merged evenly: next is
 * the buffer whose next entry i of `cnt` has the smallest (2i + 1) / (2 cnt). */
static void simulate_merged(RefBuf **bufs, SizeT *cnt, UInt n)
{
    SizeT done[MAX_VG_THREADS] = {0}, total = 0;
    for (UInt k = 0; k < n; k++)
        total += cnt[k];
    for (SizeT step = 0; step < total; step++) {
        UInt best = n;
        for (UInt k = 0; k < n; k++) {
            if (done[k] == cnt[k])
                continue;
            /* (2 done[k] + 1) / cnt[k] < (2 done[best] + 1) / cnt[best] */
            if (best == n || (2 * done[k] + 1) * cnt[best] < (2 * done[best] + 1) * cnt[k])
                best = k;
        }
        const RefEntry *e = &bufs[best]->start[done[best]];
        memspy_simulate_run(bufs[best], e, e + 1);
        done[best]++;
    }
}

void memspy_flush(void)
{
    Memspy *m = &memspy;
    if (m->running)
        m->running->cur = m->buf_cur;
    RefBuf *bufs[MAX_VG_THREADS];
    SizeT cnt[MAX_VG_THREADS];
    UInt n = 0;
    for (UInt tid = 0; tid < m->buf_tids; tid++)
        if (pending(&m->buf[tid])) {
            bufs[n] = &m->buf[tid];
            cnt[n++] = pending(&m->buf[tid]);
        }
    if (n == 0)
        return;
    if (n == 1)
        simulate_all(bufs[0]);
    else
        simulate_merged(bufs, cnt, n);
    SizeT flushed = 0;
    for (UInt k = 0; k < n; k++) {
        bufs[k]->cur = bufs[k]->start;
        flushed += cnt[k];
    }
    if (m->running)
        m->buf_cur = m->running->cur;
    memspy_progress_count(flushed);
}

/* The entries a buffer should hold now. */
static SizeT wanted_entries(void)
{
    Memspy *m = &memspy;
    SizeT lone = m->buf_entries < LONE_ENTRIES ? m->buf_entries : LONE_ENTRIES;
    return m->interleave && m->threads_live > 1 ? m->buf_entries : lone;
}

/* Must b's pending entries be simulated before b runs again with `stack`
 * and room for `want` entries? */
static Bool must_flush(const RefBuf *b, StackRange stack, SizeT want)
{
    Memspy *m = &memspy;
    SizeT mine = pending(b);
    if (mine && (stack.lo != b->stack.lo || stack.hi != b->stack.hi))
        return True; /* its references' stack lookups need the old bounds */
    if (mine && want > b->cap)
        return True; /* the buffer is reallocated below */
    if (mine >= want)
        return True;
    return !m->interleave && m->running && m->running != b && pending(m->running);
}

void memspy_buffer_switch(ThreadId tid, UInt thread, StackRange stack)
{
    Memspy *m = &memspy;
    tl_assert(tid < MAX_VG_THREADS);
    RefBuf *b = &m->buf[tid];
    if (m->running)
        m->running->cur = m->buf_cur;
    SizeT want = wanted_entries();
    if (must_flush(b, stack, want))
        memspy_flush();
    if (want > b->cap) {
        if (b->start)
            VG_(free)(b->start);
        b->start = VG_(malloc)("memspy.refbuf", (want + MEMSPY_SB_REFS) * sizeof *b->start);
        b->cap = want;
        b->cur = b->start;
    }
    if (tid >= m->buf_tids)
        m->buf_tids = tid + 1;
    b->thread = thread;
    b->stack = stack;
    m->running = b;
    m->buf_cur = b->cur;
    m->buf_end = b->start + want;
}
