/* time_model.c — time of a loop from the core's cycles per iteration and
 * the loop's memory time: the core's work plus the stalls of the misses it
 * waits for, or the transfers of the busiest level when they take longer;
 * and the name of what bounds it (docs/performance-model.md, "Time per
 * loop, function, program"). */
#include <stdio.h>

#include "perf/perf.h"

/* The core model's bound as a time bound. */
static int core_bound(enum perf_core_bound b)
{
    switch (b) {
    case PERF_BOUND_PORTS:
        return PERF_TIME_PORTS;
    case PERF_BOUND_RECURRENCE:
        return PERF_TIME_RECURRENCE;
    default:
        return PERF_TIME_ISSUE;
    }
}

void perf_loop_combine(const machine *m, double iterations, const perf_core *core, const perf_mem *mem,
                       perf_loop_time *out)
{
    *out = (perf_loop_time){0};
    out->iterations = iterations;
    out->core_cycles = iterations * core->cycles;
    out->mem_cycles = mem->cycles;
    double stalls = mem->latency_cycles + mem->tlb_cycles, waiting = out->core_cycles + stalls;
    if (waiting >= out->mem_cycles) {
        out->cycles = waiting;
        out->bound = out->core_cycles >= stalls ? core_bound(core->bound) : PERF_TIME_LATENCY;
    } else {
        out->cycles = out->mem_cycles;
        out->bound = mem->bound < 0 ? PERF_TIME_LATENCY : PERF_TIME_BANDWIDTH + mem->bound;
    }
    out->seconds = out->cycles / (m->clock_ghz * 1e9);
}

const char *perf_bound_name(const machine *m, int bound, char *buf, size_t len)
{
    static const char *const core[] = {"issue", "ports", "recurrence"};
    if (bound >= PERF_TIME_ISSUE && bound <= PERF_TIME_RECURRENCE)
        snprintf(buf, len, "%s", core[bound]);
    else if (bound == PERF_TIME_LATENCY)
        snprintf(buf, len, "latency");
    else if (bound == PERF_TIME_PAGE_FAULTS)
        snprintf(buf, len, "page faults");
    else if (bound == PERF_TIME_MISPREDICTS)
        snprintf(buf, len, "mispredictions");
    else if (bound - PERF_TIME_BANDWIDTH + 1 < (int)m->ncaches)
        snprintf(buf, len, "%s bandwidth", m->cache[bound - PERF_TIME_BANDWIDTH + 1].name);
    else
        snprintf(buf, len, "memory bandwidth");
    return buf;
}
