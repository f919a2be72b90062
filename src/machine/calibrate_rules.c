/* calibrate_rules.c — the rules by which `augur machine calibrate` turns
 * rounds of measurements into figures, refuses rounds that disagree, and
 * compares the last level's reach with its reported size
 * (calibrate_rules.h). */
#include "machine/calibrate_rules.h"

#include "util/numfmt.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double cal_median(double *x, size_t n)
{
    gsl_sort(x, 1, n);
    return gsl_stats_median_from_sorted_data(x, 1, n);
}

double cal_value(const cal_series *s)
{
    if (s->n < 1)
        return NAN;
    return s->rate ? gsl_stats_max(s->round, 1, (size_t)s->n) : gsl_stats_min(s->round, 1, (size_t)s->n);
}

double cal_spread(const cal_series *s)
{
    if (s->n < 1)
        return NAN;
    double lo, hi;
    gsl_stats_minmax(&lo, &hi, s->round, 1, (size_t)s->n);
    return lo > 0 ? hi / lo : INFINITY;
}

double cal_typical(const cal_series *s)
{
    if (s->n < 1)
        return NAN;
    double sorted[CAL_MAX_ROUNDS];
    memcpy(sorted, s->round, (size_t)s->n * sizeof *sorted);
    return cal_median(sorted, (size_t)s->n);
}

double cal_agreement(const cal_series *s)
{
    if (s->n < 1)
        return NAN;
    double median = cal_typical(s), value = cal_value(s);
    double lo = s->rate ? median : value, hi = s->rate ? value : median;
    return lo > 0 ? hi / lo : INFINITY;
}

/* "median/least" or "most/median": what cal_agreement divides. */
static const char *agreement_name(const cal_series *s)
{
    return s->rate ? "most/median" : "median/least";
}

void cal_spread_text(const cal_series *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s %.2f, max/min %.2f", agreement_name(s), cal_agreement(s), cal_spread(s));
}

void cal_figure(double x, char *buf, size_t len)
{
    char fig[NUMFMT_LEN];
    numfmt_fixed(numfmt_round_sig(x, 3), numfmt_decimals(fabs(x), 3), NUM_PLAIN, fig);
    snprintf(buf, len, "%s", fig);
}

void cal_rounds_text(const cal_series *s, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int r = 0; r < s->n && at < len; r++) {
        char fig[32];
        cal_figure(s->round[r], fig, sizeof fig);
        at += (size_t)snprintf(buf + at, len - at, "%s%s", r ? ", " : "", fig);
    }
    if (at < len)
        snprintf(buf + at, len - at, " %s", s->unit);
}

int cal_disagreements(const cal_series *s, size_t n, double tolerance, char *msg, size_t len)
{
    int count = 0;
    size_t at = 0;
    msg[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        double agreement = cal_agreement(&s[i]);
        if (!s[i].written || agreement <= tolerance) /* NAN (no rounds) refuses too */
            continue;
        char rounds[512];
        cal_rounds_text(&s[i], rounds, sizeof rounds);
        if (at < len)
            at += (size_t)snprintf(msg + at, len - at, "%s%s %s (%s %.2f)", count ? "; " : "", s[i].what, rounds,
                                   agreement_name(&s[i]), agreement);
        count++;
    }
    return count;
}

uint64_t cal_chase_bytes(uint64_t size, uint64_t above)
{
    uint64_t half = size / 2;
    return above > 0 && 4 * above < half ? 4 * above : half;
}

double cal_probe_adds_per_cycle(const machine *m)
{
    const machine_class *alu = &m->cls[ST_CLASS_INT_ALU];
    if (!(alu->rthroughput > 0))
        return 0;
    double latency = alu->latency > 1 ? alu->latency : 1, width = m->issue_width > 0 ? m->issue_width : 1;
    return 32.0 / fmax(8 * latency, fmax(33 * alu->rthroughput, 33 / width));
}

/* The largest slices * line * ways * 2^k (a size machine_check_cache
 * accepts) that is at most `bytes` and above `floor`; 0 when none is. */
static uint64_t valid_size_at_most(const machine_cache *c, uint64_t bytes, uint64_t floor)
{
    uint64_t unit = (uint64_t)c->slices * c->line * c->ways, largest = 0;
    for (uint64_t s = unit; s <= bytes; s *= 2)
        if (s > floor)
            largest = s;
    return largest;
}

void cal_last_level_reach(const machine_cache *c, const machine_cache *above, const uint64_t *bytes,
                          const double *ns, int nb, double mem_ns, cal_reach *out)
{
    out->mid_ns = nb > 0 ? (ns[0] + mem_ns) / 2 : mem_ns;
    out->fit = -1;
    while (out->fit + 1 < nb && ns[out->fit + 1] < out->mid_ns)
        out->fit++;
    out->holds = nb > 0 && out->fit == nb - 1;
    out->latency = out->holds ? nb - 1 : out->fit >= 0 ? 0 : -1;
    /* below the first buffer that did not fit: a level as large as that
     * buffer would have held it */
    if (out->holds)
        out->size = c->size;
    else if (out->fit >= 0)
        out->size = valid_size_at_most(c, bytes[out->fit + 1] - 1, above->size);
    else
        out->size = valid_size_at_most(c, 2 * above->size, above->size);
}
