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
 * Set sampling (Kessler, Hill and Wood): one line in N is simulated (the
 * sets s with s mod N == 0 at every level), so every count scales by N.
 * Not by total / simulated references: hot lines (the stack, the loader's)
 * fall unevenly into the sampled sets, which skews the reference ratio
 * (sort: 1 in 32 sampled 1 reference in 36.4) but not the misses of the
 * lines that miss.  The error bound comes from random groups (Wolter): the
 * tool deals the sampled lines into G = MS_SET_GROUPS groups by the address
 * bits above the sampling's; each group alone is a 1-in-G*N sample whose
 * estimate is x_g = G N m_g.  Their mean is the estimate N M, its standard
 * error s / sqrt(G) with s the x_g's standard deviation, and the 95% bounds
 * N M +- t(G-1) s / sqrt(G), no lower than the M misses the sampled lines
 * made.  Files of older writers carry no groups: there the binomial bound
 * (p +- 1.96 sqrt(p(1-p)/n)) * N n of the rate p = M/n is used. */
#include <math.h>

#include "memspy_report/memspy_report.h"

mr_scale mr_scale_of(const memspy_raw *r)
{
    mr_scale s = {.sampling = r->sampling, .simulated = 0};
    for (size_t i = 0; i < r->npairs; i++)
        s.simulated += r->pairs[i].refs;
    s.total = s.simulated + r->skipped;
    s.refs_factor = s.simulated ? (double)s.total / (double)s.simulated : 1.0;
    s.factor = r->sampling == MR_SAMPLE_SETS ? (double)r->sets : s.refs_factor;
    s.groups = r->has_groups;
    return s;
}

/* Student's t quantile 0.975 for G - 1 = 15 degrees of freedom. */
#define T_975_15 2.131
_Static_assert(MS_SET_GROUPS == 16, "T_975_15 is for 16 groups");

/* Set sampling's estimate of misses m with random-group bounds. */
static mr_estimate random_groups(const mr_scale *s, const mr_misses *m)
{
    double n_groups = MS_SET_GROUPS, miss = (double)m->miss, ss = 0;
    for (int g = 0; g < MS_SET_GROUPS; g++) {
        double d = n_groups * (double)m->group[g] - miss; /* (x_g - mean) / N */
        ss += d * d;
    }
    double est = miss * s->factor;
    double half = T_975_15 * s->factor * sqrt(ss / (n_groups - 1) / n_groups);
    return (mr_estimate){est, est - half < miss ? miss : est - half, est + half};
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
    if (s->sampling == MR_SAMPLE_SETS && s->groups)
        return random_groups(s, m);
    if (s->sampling == MR_SAMPLE_SETS && s->simulated > 0) {
        double n = (double)s->simulated, p = miss / n;
        double half = 1.96 * sqrt(p * (1 - p) / n) * n * f;
        double est = miss * f;
        return (mr_estimate){est, est - half < 0 ? 0 : est - half, est + half};
    }
    return (mr_estimate){miss * f, miss * f, miss * f};
}
