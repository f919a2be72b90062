/* predict_wide.c — the uncertainty warnings of `augur predict`: for the
 * instructions and for each cache (--cache) or machine level (--machine),
 * the functions whose predicted count has a wide range (docs/models.md, "Uncertainty"): the
 * truth may lie more than half as far again from the prediction, so the
 * number alone would mislead.  Functions with a narrow range are not
 * named, so the warning says where to look, not that something somewhere
 * is extrapolated (the capacity-crossing warning it replaces fired on
 * nearly every extrapolation).  The start-up and loader functions the
 * rankings hide (report_hide_startup) are not named either: their misses
 * follow the environment's length, not the parameters (the loader's
 * tunables gave 64 64 63 63 63 cold misses, and which loader functions
 * came out wide depended on the path of the test's folder). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict_internal.h"
#include "predict/predict_perf.h"

/* A range is wide when its high end is above WIDE_FACTOR times the
 * misses, or its low end below misses / WIDE_FACTOR: the prediction may be
 * more than 50% off.  Functions holding less than MIN_SHARE of the
 * level's high end are not named; at most MAX_NAMED are. */
#define WIDE_FACTOR 1.5
#define MIN_SHARE 0.01
#define MAX_NAMED 3

/* One function's misses at one level, with their range. */
typedef struct ranged {
    const char *function;
    double misses, low, high;
} ranged;

static int wide(const ranged *r)
{
    return r->high > WIDE_FACTOR * r->misses + 0.5 || r->low < r->misses / WIDE_FACTOR - 0.5;
}

/* qsort order: the largest high end first. */
static int by_high(const void *pa, const void *pb)
{
    const ranged *a = pa, *b = pb;
    return (a->high < b->high) - (a->high > b->high);
}

/* v rounded to 3 significant digits: the ranges say the rest is noise. */
static double sig3(double v)
{
    if (!(fabs(v) >= 1000))
        return round(v);
    double unit = pow(10, floor(log10(fabs(v))) - 2);
    return round(v / unit) * unit;
}

/* Append "name M (L to H)" to buf (len bytes in all). */
static void append_row(char *buf, size_t len, const ranged *r, int first)
{
    char name[REPORT_NAME_WIDTH + 1];
    size_t used = strlen(buf);
    if (used >= len)
        return;
    snprintf(buf + used, len - used, "%s%s %.0f (%.0f to %.0f)", first ? "" : ", ",
             r->function ? st_short_name(r->function, REPORT_NAME_WIDTH, name, sizeof name) : "?",
             sig3(r->misses), sig3(r->low), sig3(r->high));
}

/* Why a range of misses is wide. */
static const char MISSES_WHY[] = "their reuse distances lie near the capacity, their models extrapolate far, "
                                 "or power-of-two strides may crowd their lines into a few sets "
                                 "(ranges: misses_range in JSON)";

/* The warning of one count (`label`: "misses L1 of zen4", "instructions")
 * from its functions' ranges rows[0..n) (reordered) and the count's total
 * high end; nothing when no function holding MIN_SHARE of it has a wide
 * range.  `why` ends the warning.  -1 when memory runs out. */
static int warn_count(prediction *p, const char *label, const char *why, ranged *rows, size_t n, double total_high)
{
    size_t nwide = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].high >= MIN_SHARE * total_high && wide(&rows[i]))
            rows[nwide++] = rows[i];
    if (nwide == 0)
        return 0;
    qsort(rows, nwide, sizeof *rows, by_high);
    char named[1024] = "", params[256], text[1536];
    for (size_t i = 0; i < nwide && i < MAX_NAMED; i++)
        append_row(named, sizeof named, &rows[i], i == 0);
    predict_params_text(p, params, sizeof params);
    snprintf(text, sizeof text, "%s: uncertain for %zu function%s at %s: %s%s; %s", label, nwide,
             nwide == 1 ? "" : "s", params, named, nwide > MAX_NAMED ? ", ..." : "", why);
    return predict_add_warning(p, text);
}

/* The warning of one cache or level `where` (see warn_count). */
static int warn_level(prediction *p, const char *where, ranged *rows, size_t n, double total_high)
{
    char label[128];
    snprintf(label, sizeof label, "misses %s", where);
    return warn_count(p, label, MISSES_WHY, rows, n, total_high);
}

/* The functions whose predicted instructions have a wide range (issue 21:
 * a library routine such as memcpy takes another path at a size no
 * training run reached, and its model cannot know that path's cost). */
static int warn_instructions(prediction *p, ranged *rows)
{
    const report *r = &p->rep;
    for (size_t i = 0; i < r->nfunctions; i++) {
        const report_counts *k = &r->functions[i].c;
        rows[i] = (ranged){r->functions[i].function, (double)k->instructions, k->count_low[0], k->count_high[0]};
    }
    return warn_count(p, "instructions",
                      "their models extrapolate far: a library routine may take another path at this size "
                      "(train nearer to it; ranges: instructions_range in JSON)",
                      rows, report_ranked_functions(r), r->total.count_high[0]);
}

/* A loop's header executions are data-dependent when their model misses a
 * training run by more than rounding: a polynomial trip count, or N log N,
 * is reproduced exactly (snap's fix-up, repeated while new faces turn
 * negative, is fitted within 2.6%).  Counts of a loop's share of the
 * program at most MIN_SHARE are not named. */
#define DATA_DEPENDENT_REL 1e-6

/* The predicted scope of id `scope`, or NULL. */
static const predict_scope *scope_of(const prediction *p, int64_t scope)
{
    for (size_t i = 0; i < p->nscopes; i++)
        if (p->scopes[i].scope == scope)
            return &p->scopes[i];
    return NULL;
}

/* Whether a parameter lies outside the range the set was fitted on. */
static int extrapolated(const prediction *p)
{
    for (int k = 0; k < p->set.nparams; k++)
        if (p->x[k] < p->set.lo[k] || p->x[k] > p->set.hi[k])
            return 1;
    return 0;
}

/* Name the loops whose trip counts depend on the data, one warning each,
 * when the prediction extrapolates and the loop holds MIN_SHARE of the
 * program's instructions: no model of the training sizes knows how often
 * such a loop repeats beyond them, so the count is a range (the composed
 * models of the loops around it carry it, docs/models.md, "Loops"). */
static int warn_data_dependent(prediction *p)
{
    double total = (double)p->rep.total.instructions;
    char params[256], text[1024];
    predict_params_text(p, params, sizeof params);
    for (size_t i = 0; extrapolated(p) && i < p->nrows; i++) {
        const db_model_row *row = &p->rows[i];
        if (strcmp(row->kind, "scope") != 0 || strcmp(row->metric, "headers") != 0 ||
            !(row->m->fit_max_rel > DATA_DEPENDENT_REL))
            continue;
        const predict_scope *s = scope_of(p, row->scope);
        if (!s || !(s->instructions >= MIN_SHARE * total))
            continue;
        snprintf(text, sizeof text,
                 "instructions: data-dependent loop at %s: %s, %.3g instructions predicted (%.0f%% of the "
                 "program): its iterations (%s) fit no form of the training runs exactly (fit error %.2g%%), "
                 "so their count at this size is not known; the ranges of the loops and functions around it "
                 "hold the forms the runs allow (instructions_range in JSON)",
                 params, row->function ? row->function : "a loop", s->instructions, 100 * s->instructions / total,
                 row->formula, row->m->fit_smape);
        if (predict_add_warning(p, text) != 0)
            return -1;
    }
    return 0;
}

int predict_warn_wide(prediction *p)
{
    const report *r = &p->rep;
    ranged *rows = malloc((r->nfunctions + 1) * sizeof *rows);
    if (!rows)
        return -1;
    int rc = warn_data_dependent(p) == 0 ? warn_instructions(p, rows) : -1;
    for (size_t c = 0; rc == 0 && c < r->ncaches; c++) {
        for (size_t i = 0; i < r->nfunctions; i++) {
            const report_counts *k = &r->functions[i].c;
            rows[i] = (ranged){r->functions[i].function, k->misses[c], k->misses_low[c], k->misses_high[c]};
        }
        char label[64];
        report_cache_label(&r->caches[c], label, sizeof label);
        rc = warn_level(p, label, rows, report_ranked_functions(r), r->total.misses_high[c]);
    }
    free(rows);
    return rc;
}

int predict_warn_wide_levels(prediction *p, const predict_perf *pp)
{
    if (!pp->ranged)
        return 0;
    ranged *rows = malloc((p->rep.nfunctions + 1) * sizeof *rows);
    if (!rows)
        return -1;
    int rc = 0;
    for (size_t l = 0; rc == 0 && l < pp->nlevels; l++) {
        for (size_t i = 0; i < p->rep.nfunctions; i++) {
            const predict_function_perf *f = &pp->functions[i];
            rows[i] = (ranged){p->rep.functions[i].function, f->misses[l], f->misses_low[l], f->misses_high[l]};
        }
        char label[96];
        snprintf(label, sizeof label, "%s of %s", pp->levels[l].name, pp->m->name);
        rc = warn_level(p, label, rows, report_ranked_functions(&p->rep), pp->misses_high[l]);
    }
    free(rows);
    return rc;
}
