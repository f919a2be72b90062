/* mem_model.c — memory time of a piece of code from its misses per cache
 * level: a latency term over the overlap that independent misses allow,
 * a bandwidth bound per level, and page walks (docs/performance-model.md,
 * "Memory time"). */
#include <math.h>
#include <string.h>

#include "perf/perf.h"

/* Load-to-use latency, cycles, of level i (i = ncaches: memory). */
static double level_latency(const machine *m, size_t i)
{
    return i < m->ncaches ? m->cache[i].latency : m->mem_latency_ns * m->clock_ghz;
}

/* Bytes per cycle that level i (i = ncaches: memory) delivers upwards. */
static double level_bandwidth(const machine *m, size_t i)
{
    return i < m->ncaches ? m->cache[i].bandwidth : m->mem_bandwidth_core_gbs / m->clock_ghz;
}

/* The latency term: every miss that is not streamed waits for the level
 * that serves it, `overlap` of them at a time.  In a loop that chases
 * pointers nothing is streamed: the next address is known only when the
 * load before it completes, so no prefetcher can run ahead of it (an
 * affine-looking next[p] is as unpredictable as p->next). */
static double latency_term(const machine *m, const perf_traffic *t, double overlap)
{
    double sum = 0;
    for (size_t i = 1; i <= t->nlevels; i++) {
        double above = t->misses[i - 1] - (t->dependent ? 0 : t->stream_misses[i - 1]);
        double below = i < t->nlevels ? t->misses[i] - (t->dependent ? 0 : t->stream_misses[i]) : 0;
        sum += fmax(above - below, 0) * level_latency(m, i);
    }
    return sum / overlap;
}

void perf_mem_time(const machine *m, const perf_traffic *t, perf_mem *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 1; i <= t->nlevels; i++)
        out->served[i] = t->misses[i - 1] - (i < t->nlevels ? t->misses[i] : 0);
    out->overlap = t->dependent || m->max_outstanding_misses == 0 ? 1 : m->max_outstanding_misses;
    out->latency_cycles = latency_term(m, t, out->overlap);
    out->bound = -1;
    double worst = out->latency_cycles;
    for (size_t i = 0; i < t->nlevels; i++) {
        out->bw_cycles[i] = (t->misses[i] + t->dirty_misses[i]) * m->cache[i].line / level_bandwidth(m, i + 1);
        if (out->bw_cycles[i] > worst) {
            worst = out->bw_cycles[i];
            out->bound = (int)i;
        }
    }
    /* page walks of independent loads proceed while other misses are in
     * flight, as those misses do; a chase waits for each */
    for (size_t j = 0; j < t->ntlbs && j < m->ntlbs; j++)
        out->tlb_cycles += t->tlb_misses[j] * m->tlb[j].miss_latency / out->overlap;
    out->cycles = worst + out->tlb_cycles;
}
