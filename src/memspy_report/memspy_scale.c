/* memspy_scale.c — what sampled counts say about the whole run, with the
 * error bounds each kind of sampling implies (docs/memspy.md, "Sampling").
 *
 * Time sampling (seed 001, section 6): in each sample the first touch of a
 * line in a set not yet primed in that sample is "unknown", whether the
 * simulation, whose caches keep what the samples before left, made it a
 * hit or a miss (memsim.h, unknown_from); so is every level below an
 * unknown one.  Known misses Mk = MISS - UNKNOWN and the unknown
 * references U = UNKNOWN + UNKNOWN-HITS give the bounds [Mk, Mk + U]
 * times total / simulated references.  The estimate is not seed 001's Mk +
 * U/2 but the simulated count MISS: the caches keep their contents across
 * the gap, and for caches larger than a sample that verdict measured
 * closer to full simulation (docs/memspy.md, "Sampling").
 *
 * Set sampling (Kessler, Hill and Wood): the sampled sets' references are
 * taken as a random sample of all; misses M among n simulated references
 * estimate the rate p = M/n, whose standard error is sqrt(p(1-p)/n); the
 * bounds are (p +- 1.96 se) * total, a 95% interval. */
#include <math.h>

#include "memspy_report/memspy_report.h"

mr_scale mr_scale_of(const memspy_raw *r)
{
    mr_scale s = {.sampling = r->sampling, .simulated = 0};
    for (size_t i = 0; i < r->npairs; i++)
        s.simulated += r->pairs[i].refs;
    s.total = s.simulated + r->skipped;
    s.factor = s.simulated ? (double)s.total / (double)s.simulated : 1.0;
    return s;
}

double mr_scaled(const mr_scale *s, uint64_t count)
{
    return (double)count * s->factor;
}

mr_estimate mr_estimate_misses(const mr_scale *s, const mr_misses *m)
{
    double f = s->factor, miss = (double)m->miss;
    if (s->sampling == MR_SAMPLE_TIME) {
        double known = miss - (double)m->unknown, u = (double)(m->unknown + m->unknown_hits);
        return (mr_estimate){miss * f, known * f, (known + u) * f};
    }
    if (s->sampling == MR_SAMPLE_SETS && s->simulated > 0) {
        double n = (double)s->simulated, p = miss / n;
        double half = 1.96 * sqrt(p * (1 - p) / n) * (double)s->total;
        double est = miss * f;
        return (mr_estimate){est, est - half < 0 ? 0 : est - half, est + half};
    }
    return (mr_estimate){miss * f, miss * f, miss * f};
}
