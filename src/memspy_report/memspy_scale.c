/* memspy_scale.c — what sampled counts say about the whole run, with the
 * error bounds each kind of sampling implies (docs/memspy.md, "Sampling").
 *
 * Time sampling (seed 001, section 6): in each sample the first reference
 * to a set not yet primed in that sample is "unknown"; known misses Mk and
 * unknown U give the miss count bounds [Mk, Mk + U], estimated with
 * mu = 1/2 at Mk + U/2, each times total / simulated references.
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
    double f = s->factor, miss = (double)m->miss, unknown = (double)m->unknown;
    if (s->sampling == MR_SAMPLE_TIME)
        return (mr_estimate){(miss - unknown / 2) * f, (miss - unknown) * f, miss * f};
    if (s->sampling == MR_SAMPLE_SETS && s->simulated > 0) {
        double n = (double)s->simulated, p = miss / n;
        double half = 1.96 * sqrt(p * (1 - p) / n) * (double)s->total;
        double est = miss * f;
        return (mr_estimate){est, est - half < 0 ? 0 : est - half, est + half};
    }
    return (mr_estimate){miss * f, miss * f, miss * f};
}
