/* memspy_progress.c — progress lines on long runs (docs/memspy.md,
 * "Progress").
 *
 * Every --progress-ms ms of run time (10 s by default), and only
 * once the first has passed, the tool writes to its Valgrind log
 *   memspy: progress: <N> references, <S> s
 * N the references made so far (simulated, skipped by sampling, or under
 * --simulate=no buffered), S the whole seconds since the tool started.
 * The clock is read at a flush, and only once PROGRESS_ENTRIES entries
 * were flushed since it was last read, so a reference pays nothing and a
 * flush an addition and a compare (memspy_progress_count, memspy.h).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"

#include "memspy/memspy.h"

/* Start the clock: the first line comes one interval from now. */
void memspy_progress_init(void)
{
    memspy.progress_start = VG_(read_millisecond_timer)();
    memspy.progress_next = memspy.progress_start + memspy.progress_interval;
}

/* References made so far: simulated (the threads' totals), skipped, and
 * buffered but not simulated (--simulate=no). */
static ULong references_made(void)
{
    UInt n = memspy.threads_created < MS_MAX_THREADS ? memspy.threads_created : MS_MAX_THREADS;
    ULong refs = memspy_skipped() + memspy.unsimulated;
    for (UInt t = 0; t < n; t++)
        refs += memspy.thread[t].refs;
    return refs;
}

void memspy_progress_check(void)
{
    memspy.progress_entries = 0;
    UInt now = VG_(read_millisecond_timer)();
    if ((Int)(now - memspy.progress_next) < 0)
        return;
    VG_(umsg)("memspy: progress: %llu references, %u s\n", references_made(),
              (now - memspy.progress_start) / 1000);
    memspy.progress_next = now + memspy.progress_interval;
}
