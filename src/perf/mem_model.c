/* mem_model.c — memory time of a piece of code from its misses per cache
 * level: a latency term over the overlap that independent misses allow
 * (the miss buffers, and the misses one reorder-buffer window holds), a
 * bandwidth bound per level, and TLB misses, whose walks overlap no more
 * than the core's page walkers allow (docs/performance-model.md,
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

/* The misses of level i that a prefetcher fetched ahead: a stream's
 * misses but the first in each page it enters anew (prefetchers work
 * within a 4 KiB page, whose successor's frame they do not know), none in
 * a loop that chases pointers (the next address is known only when the
 * load before it completes, so nothing runs ahead of it: an
 * affine-looking next[p] is as unpredictable as p->next). */
static double prefetched(const perf_traffic *t, size_t i)
{
    return t->dependent ? 0 : fmax(t->stream_misses[i] - t->stream_pages, 0);
}

/* The misses of level i the core waits for: those not prefetched, but for
 * the share of stores (which retire into the store buffer and wait for
 * nobody; their lines cost bandwidth). */
static double waited(const perf_traffic *t, size_t i)
{
    double loads = t->misses[i] > 0 ? 1 - t->store_misses[i] / t->misses[i] : 1;
    return (t->misses[i] - prefetched(t, i)) * fmax(loads, 0);
}

/* The latency term: every miss waited for waits for the level that serves
 * it beyond an L1 hit (whose latency the core model counts, in a chain),
 * `overlap` of them at a time. */
static double latency_term(const machine *m, const perf_traffic *t, double overlap)
{
    double sum = 0, hit = m->ncaches ? m->cache[0].latency : 0;
    for (size_t i = 1; i <= t->nlevels; i++) {
        double above = waited(t, i - 1);
        double below = i < t->nlevels ? waited(t, i) : 0;
        sum += fmax(above - below, 0) * fmax(level_latency(m, i) - hit, 0);
    }
    return sum / overlap;
}

/* Misses in flight at once: the miss buffers' count, but no more than the
 * loads that miss within one reorder-buffer window of instructions (a
 * miss at the head of the window stops retirement, so only the misses
 * behind it in the window overlap with it; every load miss counts, since
 * where a prefetcher restarts, at a page, all lines of the stream miss),
 * at least 1; 1 for a chase. */
static double overlap_of(const machine *m, const perf_traffic *t)
{
    if (t->dependent || m->max_outstanding_misses == 0)
        return 1;
    double most = m->max_outstanding_misses;
    if (m->reorder_buffer == 0 || !(t->instructions > 0) || t->nlevels == 0)
        return most;
    double window = m->reorder_buffer * (t->misses[0] - t->store_misses[0]) / t->instructions;
    return fmin(most, fmax(window, 1));
}

/* TLB misses of level j in flight at once: a first-level miss looks up
 * the second level while other misses are in flight, as those misses do
 * (`overlap`; a chase waits for each); a second-level miss walks the page
 * tables, and no more walks proceed at once than the core has page
 * walkers (core.page_walkers; not described: as the misses). */
static double tlb_overlap(const machine *m, const perf_traffic *t, size_t j, double overlap)
{
    if (!t->tlb_walk[j] || m->page_walkers == 0)
        return overlap;
    return fmin(overlap, m->page_walkers);
}

void perf_mem_time(const machine *m, const perf_traffic *t, perf_mem *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 1; i <= t->nlevels; i++)
        out->served[i] = t->misses[i - 1] - (i < t->nlevels ? t->misses[i] : 0);
    out->overlap = overlap_of(m, t);
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
    for (size_t j = 0; j < t->ntlbs; j++)
        out->tlb_cycles += t->tlb_misses[j] * t->tlb_latency[j] / tlb_overlap(m, t, j, out->overlap);
    out->cycles = worst + out->tlb_cycles;
}
