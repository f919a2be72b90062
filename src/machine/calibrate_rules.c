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

/* The index in m->tlb of the TLB of `level` for 4 KiB pages, or -1. */
static int tlb_of(const machine *m, uint32_t level)
{
    for (uint32_t i = 0; i < m->ntlbs; i++)
        if (m->tlb[i].level == level && m->tlb[i].page_size == 4096)
            return (int)i;
    return -1;
}

void cal_tlb_plan_for(const machine *m, cal_tlb_plan *p)
{
    memset(p, 0, sizeof *p);
    p->first_tlb = tlb_of(m, 1);
    p->walk_tlb = tlb_of(m, 2);
    uint32_t page_lines = m->ncaches ? 4096 / m->cache[0].line : 0;
    if (page_lines == 0)
        return;
    uint64_t half_stlb = p->walk_tlb >= 0 ? m->tlb[p->walk_tlb].entries / 2 : UINT64_MAX;
    if (p->first_tlb >= 0) {
        uint64_t e1 = m->tlb[p->first_tlb].entries, l1_lines = m->cache[0].size / m->cache[0].line;
        uint64_t pages = 4 * e1 < l1_lines / 2 ? 4 * e1 : l1_lines / 2;
        pages = pages / page_lines * page_lines; /* its base fills whole pages */
        if (pages >= 2 * e1 && pages <= half_stlb) {
            p->ch[CAL_TLB_FIRST] = (cal_tlb_chase){(uint32_t)pages, 1};
            p->ch[CAL_TLB_FIRST_BASE] = (cal_tlb_chase){(uint32_t)(pages / page_lines), page_lines};
        } else
            p->first_tlb = -1;
    }
    if (p->walk_tlb < 0 || half_stlb == 0)
        return;
    static const int pair[2] = {CAL_TLB_WALK, CAL_TLB_FAR};
    static const uint32_t times[2] = {2, 32};
    for (int k = 0; k < 2; k++) {
        uint64_t pages = (uint64_t)times[k] * m->tlb[p->walk_tlb].entries, per = pages / half_stlb;
        if (per > page_lines || pages > UINT32_MAX)
            continue;
        p->ch[pair[k]] = (cal_tlb_chase){(uint32_t)pages, 1};
        p->ch[pair[k] + 1] = (cal_tlb_chase){(uint32_t)half_stlb, (uint32_t)per};
    }
    if (!p->ch[CAL_TLB_WALK].pages)
        p->walk_tlb = -1;
}

double cal_tlb_cost(double ns, double base_ns)
{
    double d = ns - base_ns;
    return d > 0 ? d : NAN;
}
