/* predict.c — evaluating a model set into a report: the count models of
 * every function and of every line give the counts (the total is the sum
 * of the functions'), every
 * reuse-distance group whose block size is a cache's line gives its misses
 * (rd_model_misses at the cache's capacity in lines), shared among the
 * group's member instructions by their share of its touches and added to
 * their lines and functions; scope models give the scope section. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict.h"

/* A count model's value as a count: rounded, never negative. */
static uint64_t as_count(const model *m, const double *x)
{
    double v = model_eval(m, x);
    return isfinite(v) && v > 0 ? (uint64_t)llround(v) : 0;
}

static void add_metric(report_counts *c, const char *metric, uint64_t v)
{
    if (!strcmp(metric, "instructions"))
        c->instructions = v;
    else if (!strcmp(metric, "reads"))
        c->reads = v;
    else if (!strcmp(metric, "writes"))
        c->writes = v;
}

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* ---- parameters ------------------------------------------------------------ */

static int set_params(prediction *p, const char *const *names, const double *values, int n, char *err,
                      size_t errlen)
{
    const db_model_set *s = &p->set;
    char list[512] = "";
    for (int k = 0; k < s->nparams; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", s->params[k]);
    int given[MODEL_MAX_PARAMS] = {0};
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < s->nparams && strcmp(s->params[k], names[i]))
            k++;
        if (k == s->nparams) {
            snprintf(err, errlen, "the models have no parameter %s: they are functions of %s", names[i], list);
            return -1;
        }
        p->x[k] = values[i];
        given[k] = 1;
    }
    for (int k = 0; k < s->nparams; k++)
        if (!given[k]) {
            snprintf(err, errlen, "give every parameter of the models (%s): --param %s=VALUE is missing", list,
                     s->params[k]);
            return -1;
        }
    return 0;
}

static int add_warning(prediction *p, const char *text)
{
    char **grown = realloc(p->info.warnings, (p->info.nwarnings + 1) * sizeof *grown);
    if (!grown)
        return -1;
    p->info.warnings = grown;
    return (grown[p->info.nwarnings++] = strdup(text)) ? 0 : -1;
}

/* Note every parameter outside the range the models were fitted on. */
static int warn_extrapolation(prediction *p)
{
    const db_model_set *s = &p->set;
    for (int k = 0; k < s->nparams; k++) {
        char text[256];
        double v = p->x[k];
        if (v > s->hi[k] && s->hi[k] > 0)
            snprintf(text, sizeof text, "%s=%.10g is %.3gx the largest fitted value (%.10g): an extrapolation",
                     s->params[k], v, v / s->hi[k], s->hi[k]);
        else if (v < s->lo[k])
            snprintf(text, sizeof text, "%s=%.10g is below the smallest fitted value (%.10g): an extrapolation",
                     s->params[k], v, s->lo[k]);
        else
            continue;
        if (add_warning(p, text) != 0)
            return -1;
    }
    return 0;
}

static int check_caches(const prediction *p, const report_cache *caches, size_t ncaches, char *err, size_t errlen)
{
    for (size_t c = 0; c < ncaches; c++) {
        int ok = 0;
        for (int b = 0; b < p->set.nblock_sizes; b++)
            ok |= p->set.block_sizes[b] == caches[c].line;
        if (!ok) {
            char sizes[128] = "";
            for (int b = 0; b < p->set.nblock_sizes; b++)
                snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%u", b ? ", " : "",
                         p->set.block_sizes[b]);
            snprintf(err, errlen,
                     "the models have no reuse distances for %u-byte lines: the runs measured block sizes %s (use "
                     "one of them as LINE in SIZE:LINE)",
                     caches[c].line, sizes);
            return -1;
        }
    }
    return 0;
}

/* ---- rows: functions and lines ------------------------------------------------ */

static int cmp_str(const char *a, const char *b)
{
    if (!a || !b)
        return !a - !b;
    return strcmp(a, b);
}

static int cmp_function(const report_function *a, const char *function, const char *module)
{
    int c = cmp_str(a->function, function);
    return c ? c : cmp_str(a->module, module);
}

static int cmp_line(const report_line *a, const char *file, uint32_t line, const char *function)
{
    int c = cmp_str(a->file, file);
    if (!c && a->line != line)
        c = a->line < line ? -1 : 1;
    return c ? c : cmp_str(a->function, function);
}

static int by_function_key(const void *pa, const void *pb)
{
    const report_function *b = pb;
    return cmp_function(pa, b->function, b->module);
}

static int by_line_key(const void *pa, const void *pb)
{
    const report_line *b = pb;
    return cmp_line(pa, b->file, b->line, b->function);
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Make one row per distinct subject of the function and line models,
 * sorted by key, with their counts. */
static int build_rows(prediction *p)
{
    report *r = &p->rep;
    r->functions = calloc(p->nrows + 1, sizeof *r->functions);
    r->lines = calloc(p->nrows + 1, sizeof *r->lines);
    if (!r->functions || !r->lines)
        return -1;
    for (size_t i = 0; i < p->nrows; i++) {
        const db_model_row *row = &p->rows[i];
        uint64_t v = as_count(row->m, p->x);
        if (!strcmp(row->kind, "total"))
            continue; /* the sum of the functions': see sum_functions */
        else if (!strcmp(row->kind, "function")) {
            report_function *f = &r->functions[r->nfunctions];
            if (r->nfunctions == 0 || cmp_function(f - 1, row->function, row->module)) {
                *f = (report_function){.function = dup_or_null(row->function), .module = dup_or_null(row->module)};
                r->nfunctions++;
            } else
                f--;
            add_metric(&f->c, row->metric, v);
        } else if (!strcmp(row->kind, "line")) {
            report_line *l = &r->lines[r->nlines];
            if (r->nlines == 0 || cmp_line(l - 1, row->file, row->line, row->function)) {
                *l = (report_line){.file = dup_or_null(row->file), .line = row->line,
                                   .function = dup_or_null(row->function)};
                r->nlines++;
            } else
                l--;
            add_metric(&l->c, row->metric, v);
        }
    }
    /* Models of one subject are stored together; sorting by key makes
     * the rows searchable for the misses. */
    qsort(r->functions, r->nfunctions, sizeof *r->functions, by_function_key);
    qsort(r->lines, r->nlines, sizeof *r->lines, by_line_key);
    return 0;
}

/* The total as the sum of the functions' models (seed 000's hierarchical
 * models): a program total mixes exact polynomial parts with library noise
 * (digits printed, allocator paths) that keeps it from fitting any one
 * form, while each part does. */
static void sum_functions(report *r)
{
    for (size_t i = 0; i < r->nfunctions; i++) {
        r->total.instructions += r->functions[i].c.instructions;
        r->total.reads += r->functions[i].c.reads;
        r->total.writes += r->functions[i].c.writes;
    }
}

/* ---- misses ---------------------------------------------------------------------- */

static void add_member_misses(report *r, const db_rd_group *g, const struct db_rd_member_row *mb, size_t c,
                              double misses)
{
    report_line lkey = {.file = mb->file, .line = mb->line, .function = mb->function};
    report_line *l = bsearch(&lkey, r->lines, r->nlines, sizeof *r->lines, by_line_key);
    if (l)
        l->c.misses[c] += misses;
    report_function fkey = {.function = mb->function, .module = g->module};
    report_function *f = bsearch(&fkey, r->functions, r->nfunctions, sizeof *r->functions, by_function_key);
    if (f)
        f->c.misses[c] += misses;
}

static void add_group_misses(prediction *p, const db_rd_group *g)
{
    report *r = &p->rep;
    for (size_t c = 0; c < r->ncaches; c++) {
        if (r->caches[c].line != g->block_size)
            continue;
        double misses = rd_model_misses(g->m, p->x, r->caches[c].size / r->caches[c].line);
        r->total.misses[c] += misses;
        for (size_t k = 0; k < g->nmembers; k++)
            add_member_misses(r, g, &g->members[k], c, misses * g->members[k].share);
    }
}

static int predict_misses(db *d, prediction *p, char *err, size_t errlen)
{
    if (p->rep.ncaches == 0)
        return 0;
    db_rd_group *groups = NULL;
    size_t n = 0;
    int rc = db_rd_groups_load(d, &p->set, &groups, &n, err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++)
        add_group_misses(p, &groups[i]);
    db_rd_groups_free(groups, n);
    return rc;
}

/* ---- scopes ------------------------------------------------------------------------ */

static void scope_metric(predict_scope *s, const char *metric, double v)
{
    static const char cls_prefix[] = "class:";
    if (!strncmp(metric, cls_prefix, sizeof cls_prefix - 1)) {
        for (int c = 0; c < ST_CLASS_COUNT; c++)
            if (!strcmp(metric + sizeof cls_prefix - 1, st_class_name((enum st_class)c)))
                s->cls[c] = v;
        return;
    }
    static const char *const names[] = {"instructions", "reads", "writes", "flops", "headers", "entries"};
    double *slots[] = {&s->instructions, &s->reads, &s->writes, &s->flops, &s->headers, &s->entries};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (!strcmp(metric, names[k]))
            *slots[k] = v;
}

static int build_scopes(prediction *p)
{
    p->scopes = calloc(p->nrows + 1, sizeof *p->scopes);
    if (!p->scopes)
        return -1;
    for (size_t i = 0; i < p->nrows; i++) {
        const db_model_row *row = &p->rows[i];
        if (strcmp(row->kind, "scope"))
            continue;
        predict_scope *s = &p->scopes[p->nscopes];
        if (p->nscopes == 0 || s[-1].scope != row->scope) {
            *s = (predict_scope){.kind = row->scope_kind, .name = row->function, .file = row->file,
                                 .line = row->line, .scope = row->scope};
            p->nscopes++;
        } else
            s--;
        scope_metric(s, row->metric, (double)as_count(row->m, p->x));
    }
    return 0;
}

/* ---- the whole ---------------------------------------------------------------------- */

int predict(db *d, const char *const *names, const double *values, int n, const report_cache *caches,
            size_t ncaches, prediction *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (ncaches > REPORT_MAX_CACHES) {
        snprintf(err, errlen, "too many caches (%zu): at most %d", ncaches, REPORT_MAX_CACHES);
        return -1;
    }
    int rc = db_model_set_newest(d, &out->set, err, errlen) != 0 ? -1 : 0;
    if (rc == 0)
        rc = set_params(out, names, values, n, err, errlen);
    if (rc == 0)
        rc = check_caches(out, caches, ncaches, err, errlen);
    if (rc == 0 && warn_extrapolation(out) != 0)
        rc = oom(err, errlen);
    if (rc == 0)
        rc = db_models_load(d, &out->set, &out->rows, &out->nrows, err, errlen);
    out->info = (report_prediction){.set_id = out->set.id, .runs = out->set.runs, .nparams = out->set.nparams,
                                    .names = (const char *const *)out->set.params, .values = out->x,
                                    .nwarnings = out->info.nwarnings, .warnings = out->info.warnings};
    out->rep.prediction = &out->info;
    out->rep.ncaches = ncaches;
    memcpy(out->rep.caches, caches, ncaches * sizeof *caches);
    if (rc == 0 && (build_rows(out) != 0 || build_scopes(out) != 0))
        rc = oom(err, errlen);
    if (rc == 0)
        sum_functions(&out->rep);
    if (rc == 0)
        rc = predict_misses(d, out, err, errlen);
    if (rc == 0)
        report_sort(&out->rep);
    return rc;
}

void prediction_free(prediction *p)
{
    report_free(&p->rep);
    for (size_t i = 0; i < p->info.nwarnings; i++)
        free(p->info.warnings[i]);
    free(p->info.warnings);
    free(p->scopes);
    db_model_rows_free(p->rows, p->nrows);
    db_model_set_free(&p->set);
    memset(p, 0, sizeof *p);
}
