/* penalty_model.c — costs that stop a loop's work instead of overlapping
 * with it: the kernel's page faults on first touches of 4 KiB pages and
 * branch mispredictions (docs/performance-model.md, "Penalties"). */
#include "perf/perf.h"

double perf_fault_cycles(const machine *m, double faults)
{
    return faults * m->page_fault_ns * m->clock_ghz;
}

double perf_branch_mispredicts(double executions, double taken, int back_edge)
{
    if (back_edge || executions <= 0)
        return 0;
    double t = taken < 0 ? 0 : taken > executions ? executions : taken;
    return t < executions - t ? t : executions - t;
}

void perf_loop_add_penalties(const machine *m, double fault_cycles, double mispredict_cycles, perf_loop_time *t)
{
    double rest = t->cycles;
    t->fault_cycles = fault_cycles;
    t->mispredict_cycles = mispredict_cycles;
    t->cycles = rest + fault_cycles + mispredict_cycles;
    t->seconds = t->cycles / (m->clock_ghz * 1e9);
    if (fault_cycles > rest && fault_cycles >= mispredict_cycles)
        t->bound = PERF_TIME_PAGE_FAULTS;
    else if (mispredict_cycles > rest && mispredict_cycles > fault_cycles)
        t->bound = PERF_TIME_MISPREDICTS;
}
