/* memspy_split.c — under shadow sampling (docs/memspy.md, "Shadow
 * sampling") the simulator tells capacity from conflict only for the
 * sampled lines; the other non-cold, non-sharing misses are "unsplit".
 * This apportions a bin's unsplit misses between capacity and conflict by
 * the capacity share measured on its own sampled misses (or the whole
 * level's, when it has too few), with a binomial 95% interval on that
 * share (Wilson's score interval, which stays inside [0, 1] at shares of
 * 0 and 1). */
#include <math.h>

#include "memspy_report/memspy_report.h"

#define Z95 1.959963984540054

mr_share mr_share_of(uint64_t k, uint64_t n)
{
    mr_share s = {0.5, 0, 1, n, 0};
    if (n == 0)
        return s; /* nothing measured: any share */
    double p = (double)k / (double)n, z2n = Z95 * Z95 / (double)n;
    double center = (p + z2n / 2) / (1 + z2n);
    double half = Z95 / (1 + z2n) * sqrt(p * (1 - p) / (double)n + z2n / (4 * (double)n));
    s.p = p;
    s.lo = k == 0 ? 0 : center - half; /* exactly 0 and 1 at the ends, */
    s.hi = k == n ? 1 : center + half; /* which rounding would miss */
    return s;
}

mr_share mr_capacity_share(const mr_misses *m, const mr_misses *level)
{
    uint64_t n = m->cause[MS_CAPACITY] + m->cause[MS_CONFLICT];
    if (n >= MR_SPLIT_MIN)
        return mr_share_of(m->cause[MS_CAPACITY], n);
    mr_share s = mr_share_of(level->cause[MS_CAPACITY], level->cause[MS_CAPACITY] + level->cause[MS_CONFLICT]);
    s.from_level = 1;
    return s;
}

mr_split mr_split_of(const mr_misses *m, const mr_misses *level)
{
    double u = (double)m->cause[MS_UNSPLIT], cap = (double)m->cause[MS_CAPACITY];
    double conf = (double)m->cause[MS_CONFLICT];
    if (u == 0) /* every miss split: exact, the bin's own share */
        return (mr_split){mr_share_of(m->cause[MS_CAPACITY], m->cause[MS_CAPACITY] + m->cause[MS_CONFLICT]), cap,
                          conf, cap, cap};
    mr_split r = {mr_capacity_share(m, level), cap, conf, cap, cap};
    r.capacity = cap + u * r.share.p;
    r.conflict = conf + u * (1 - r.share.p);
    r.capacity_lo = cap + u * r.share.lo;
    r.capacity_hi = cap + u * r.share.hi;
    return r;
}

double mr_split_cause(const mr_split *sp, const mr_misses *m, enum ms_cause c)
{
    return c == MS_CAPACITY ? sp->capacity : c == MS_CONFLICT ? sp->conflict : (double)m->cause[c];
}
