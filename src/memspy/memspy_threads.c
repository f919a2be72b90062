/* memspy_threads.c — Valgrind thread ids -> dense simulator threads, and
 * the thread events the reference buffers must follow.
 *
 * The simulator keeps private caches for threads 0..MS_MAX_THREADS-1.  Each
 * thread the process creates gets the next number in creation order (the
 * main thread 0), so a Valgrind thread id reused after an exit starts with
 * fresh private caches.  Past MS_MAX_THREADS threads the numbers wrap
 * around (thread n shares the caches of n mod MS_MAX_THREADS) and the raw
 * file says so in a `warning` line.  On every switch the running thread's
 * buffer, number and stack bounds are handed to memspy_buffer.c.  Thread
 * creation flushes the buffers (the parent's earlier references precede the
 * child's, and an exited thread's id may be reused), and so does a fork
 * (the child process starts afresh).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"

#include "memspy/memspy.h"

/* The stack of `tid`, as Valgrind knows it. */
static StackRange stack_of(ThreadId tid)
{
    Addr hi = VG_(thread_get_stack_max)(tid);
    SizeT size = VG_(thread_get_stack_size)(tid);
    return (StackRange){size && size <= hi ? hi - size + 1 : hi, hi};
}

static void on_start_client_code(ThreadId tid, ULong blocks_dispatched)
{
    (void)blocks_dispatched;
    tl_assert(tid < MAX_VG_THREADS);
    memspy_buffer_switch(tid, memspy.thread_of_tid[tid], stack_of(tid));
}

/* Called for the main thread too (with an invalid parent).  What the
 * parent did before creating the child happened before anything the child
 * does, so it is simulated first. */
static void on_thread_create(ThreadId parent, ThreadId child)
{
    (void)parent;
    memspy_flush();
    tl_assert(child < MAX_VG_THREADS);
    memspy.thread_of_tid[child] = memspy.threads_created % MS_MAX_THREADS;
    memspy.threads_created++;
    memspy.threads_live++;
}

/* Its pending references stay in its buffer while other threads still run
 * with it: they overlapped with what those do next (Valgrind may have run
 * the whole thread in one quantum).  Once one thread is left, nothing runs
 * concurrently any more and all pending references precede its next ones
 * (a join that finds the thread gone makes no futex(2) call to flush at).
 * An exited thread's id is reused only by a new thread; creation flushes. */
static void on_thread_exit(ThreadId tid)
{
    (void)tid;
    memspy.threads_live--;
    if (memspy.threads_live <= 1)
        memspy_flush();
}

/* The parent's references are the parent's: none is left to the child. */
static void on_fork_parent_before(ThreadId tid)
{
    (void)tid;
    memspy_flush();
}

/* The forked child is a new process: its threads count from its own. */
static void on_fork_child(ThreadId tid)
{
    if (memspy.channel)
        memspy_pipe_fork_child(); /* inline from here, caches empty */
    memspy_pairs_reset();
    memspy.threads_created = 1;
    memspy.threads_live = 1;
    memspy.thread_of_tid[tid] = 0;
    memspy.buf[tid].thread = 0;
}

void memspy_threads_init(void)
{
    VG_(track_start_client_code)(on_start_client_code);
    VG_(track_pre_thread_ll_create)(on_thread_create);
    VG_(track_pre_thread_ll_exit)(on_thread_exit);
    VG_(atfork)(on_fork_parent_before, NULL, on_fork_child);
}

Bool memspy_threads_folded(void)
{
    return memspy.threads_created > MS_MAX_THREADS;
}
