/* collect_progress.c — progress lines on long runs (docs/collector.md,
 * "Progress").
 *
 * Half an interval after the tool starts, then every --augur-progress-ms
 * ms of run time (10 s by default; `augur collect` passes its own
 * interval), the tool writes to its Valgrind log
 *   collector: progress: <N> instructions
 * N the guest instructions executed so far by the process, all threads,
 * as the profile will count them.  The half-interval offset puts a fresh
 * line in the log before each of augur's ticks, which count from the
 * fork, a little before the tool starts: without it the first tick found
 * no line and a run shorter than two intervals showed no count.  `augur
 * collect` shows the latest of
 * every process's log, summed, on a terminal (src/cli/launch.c); the
 * prefix is not "augur:", which marks the lines an error message quotes
 * from the log (valgrind_log_tail).  The
 * clock is read when a thread starts running client code and
 * PROGRESS_BLOCKS blocks were dispatched since it was last read, so the
 * instrumented code pays nothing; a line walks every superblock's
 * counters once. */
#include "pub_tool_basics.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"

#include "collector/collect.h"

/* Start the clock: the first line comes half an interval from now. */
void collect_progress_init(void)
{
    collector.progress_start = VG_(read_millisecond_timer)();
    collector.progress_next = collector.progress_start + collector.progress_interval / 2;
}

void collect_progress_check(void)
{
    Collector *c = &collector;
    UInt now = VG_(read_millisecond_timer)();
    if ((Int)(now - c->progress_next) < 0)
        return;
    VG_(umsg)("collector: progress: %llu instructions\n", collect_instructions_so_far());
    c->progress_next = now + c->progress_interval;
}
