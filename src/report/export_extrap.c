/* export_extrap.c — `augur export --format extrap`: the runs as an
 * Extra-P experiment in its text input format (Extra-P's docs/
 * file-formats.md, "Text file format"):
 *
 *   PARAMETER N                  the parameters that vary
 *   POINTS 64 128 256            one point per distinct values, ascending
 *   METRIC instructions          one section per metric
 *   REGION main                  one per function, and (program)
 *   DATA 1234 1236               one line per point: its runs' values
 *
 * Each METRIC line comes once, followed by all its regions: Extra-P 4's
 * reader takes a METRIC line naming a metric seen before for the last
 * new one.  Names are printable ASCII without "->" (Extra-P splits
 * call paths there): other bytes become '?', "->" becomes "- >". */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "report/export.h"

static int by_key(const void *pa, const void *pb)
{
    const report_function *a = *(const report_function *const *)pa, *b = *(const report_function *const *)pb;
    int c = report_cmp_names(a->function, b->function);
    return c ? c : report_cmp_names(a->module, b->module);
}

/* ---- parameters and points ------------------------------------------------------- */

/* The parameters of the experiment: those of run 0 that vary over the
 * runs, or all of them when none varies; every run must have the same
 * names.  Their indices into each run's params (ordered by name) go into
 * use[], *n of them. */
static int choose_params(const export_set *s, size_t *use, size_t *n, char *err, size_t errlen)
{
    const db_run *first = &s->runs[0];
    if (first->nparams == 0) {
        snprintf(err, errlen, "run %lld has no parameters: Extra-P models counts as functions of parameters "
                 "(collect the runs with --param NAME=VALUE)", (long long)first->id);
        return -1;
    }
    for (size_t r = 1; r < s->nruns; r++) {
        int same = s->runs[r].nparams == first->nparams;
        for (size_t p = 0; same && p < first->nparams; p++)
            same = !strcmp(s->runs[r].params[p].name, first->params[p].name);
        if (!same) {
            snprintf(err, errlen, "runs %lld and %lld have different parameters: an Extra-P experiment needs the "
                     "same ones in every run (choose the runs of one experiment with --runs)",
                     (long long)first->id, (long long)s->runs[r].id);
            return -1;
        }
    }
    char *varies = calloc(first->nparams, 1); /* per parameter of run 0 */
    if (!varies) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t nvarying = 0, nall = first->nparams;
    for (size_t p = 0; p < nall; p++) {
        for (size_t r = 1; r < s->nruns && !varies[p]; r++)
            varies[p] = s->runs[r].params[p].value != first->params[p].value;
        nvarying += varies[p];
    }
    size_t chosen = nvarying ? nvarying : first->nparams;
    *n = 0;
    for (size_t p = 0; p < nall && chosen <= EXPORT_EXTRAP_MAX_PARAMS; p++)
        if (varies[p] || !nvarying)
            use[(*n)++] = p;
    free(varies);
    if (chosen > EXPORT_EXTRAP_MAX_PARAMS) {
        snprintf(err, errlen, "the runs %s %zu parameters, and Extra-P's text format takes at most %d: choose "
                 "runs that vary fewer with --runs", nvarying ? "vary" : "have", chosen, EXPORT_EXTRAP_MAX_PARAMS);
        return -1;
    }
    return 0;
}

/* The experiment's points: coords[pt * np + k], and point[r] of each run. */
typedef struct points {
    size_t np, n;
    size_t use[EXPORT_EXTRAP_MAX_PARAMS];
    double *coords;
    size_t *point; /* of each run */
} points;

static int cmp_coords(const double *a, const double *b, size_t np)
{
    for (size_t k = 0; k < np; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

static int make_points(const export_set *s, points *pt)
{
    pt->coords = malloc((s->nruns * pt->np + 1) * sizeof *pt->coords);
    pt->point = malloc((s->nruns + 1) * sizeof *pt->point);
    if (!pt->coords || !pt->point)
        return -1;
    pt->n = 0;
    for (size_t r = 0; r < s->nruns; r++) { /* insertion into sorted distinct points */
        double x[EXPORT_EXTRAP_MAX_PARAMS];
        for (size_t k = 0; k < pt->np; k++)
            x[k] = s->runs[r].params[pt->use[k]].value;
        size_t at = 0;
        while (at < pt->n && cmp_coords(&pt->coords[at * pt->np], x, pt->np) < 0)
            at++;
        if (at == pt->n || cmp_coords(&pt->coords[at * pt->np], x, pt->np) != 0) {
            memmove(&pt->coords[(at + 1) * pt->np], &pt->coords[at * pt->np], (pt->n - at) * pt->np * sizeof(double));
            memcpy(&pt->coords[at * pt->np], x, pt->np * sizeof(double));
            pt->n++;
        }
    }
    for (size_t r = 0; r < s->nruns; r++) {
        double x[EXPORT_EXTRAP_MAX_PARAMS];
        for (size_t k = 0; k < pt->np; k++)
            x[k] = s->runs[r].params[pt->use[k]].value;
        for (pt->point[r] = 0; cmp_coords(&pt->coords[pt->point[r] * pt->np], x, pt->np) != 0; pt->point[r]++)
            ;
    }
    return 0;
}

/* ---- regions ------------------------------------------------------------------------ */

/* The functions of all runs, each (name, module) once, with their labels
 * (report_function_labels), and each run's function rows sorted by key. */
typedef struct regions {
    size_t n;
    report_function *fn;  /* names borrowed from the reports */
    char **label;
    size_t *order;        /* by label */
    const report_function ***sorted; /* sorted[r]: run r's rows by key */
} regions;

static int by_label(const void *pa, const void *pb, void *labels)
{
    char **l = labels;
    return strcmp(l[*(const size_t *)pa], l[*(const size_t *)pb]);
}

static int make_regions(const export_set *s, regions *g)
{
    size_t all = 0;
    for (size_t r = 0; r < s->nruns; r++)
        all += s->reps[r].nfunctions;
    const report_function **every = malloc((all + 1) * sizeof *every);
    g->sorted = calloc(s->nruns + 1, sizeof *g->sorted);
    g->fn = malloc((all + 1) * sizeof *g->fn);
    g->label = calloc(all + 1, sizeof *g->label);
    g->order = malloc((all + 1) * sizeof *g->order);
    int rc = every && g->sorted && g->fn && g->label && g->order ? 0 : -1;
    size_t k = 0;
    for (size_t r = 0; rc == 0 && r < s->nruns; r++) {
        const report *rep = &s->reps[r];
        if (!(g->sorted[r] = malloc((rep->nfunctions + 1) * sizeof *g->sorted[r]))) {
            rc = -1;
            break;
        }
        for (size_t f = 0; f < rep->nfunctions; f++)
            g->sorted[r][f] = every[k++] = &rep->functions[f];
        qsort(g->sorted[r], rep->nfunctions, sizeof *g->sorted[r], by_key);
    }
    if (rc == 0) {
        qsort(every, all, sizeof *every, by_key);
        for (size_t i = 0; i < all; i++)
            if (g->n == 0 || by_key(&every[i], &every[i - 1]) != 0)
                g->fn[g->n++] = (report_function){.function = every[i]->function, .module = every[i]->module};
        rc = report_function_labels(g->fn, g->n, g->label);
    }
    for (size_t i = 0; rc == 0 && i < g->n; i++)
        g->order[i] = i;
    if (rc == 0)
        qsort_r(g->order, g->n, sizeof *g->order, by_label, g->label);
    free(every);
    return rc;
}

static void regions_free(regions *g, size_t nruns)
{
    for (size_t i = 0; g->label && i < g->n; i++)
        free(g->label[i]);
    for (size_t r = 0; g->sorted && r < nruns; r++)
        free(g->sorted[r]);
    free(g->fn), free(g->label), free(g->order), free(g->sorted);
}

/* Run r's counts of region function f, NULL when the run did not execute it. */
static const report_counts *counts_in(const export_set *s, const regions *g, size_t r, const report_function *f)
{
    const report_function **hit =
        bsearch(&f, g->sorted[r], s->reps[r].nfunctions, sizeof *g->sorted[r], by_key);
    return hit ? &(*hit)->c : NULL;
}

/* ---- writing ---------------------------------------------------------------------------- */

/* A name as Extra-P's NAMESTRING takes it (see the top of this file). */
static void put_name(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (s[0] == '-' && s[1] == '>')
            fputs("- ", out);
        else
            fputc(*s >= 0x20 && *s < 0x7f ? *s : '?', out);
    }
    fputc('\n', out);
}

static void put_header(const export_set *s, const points *pt, const char *db_path, FILE *out)
{
    fprintf(out, "# Extra-P text input written by augur %s from %s, runs", AUGUR_VERSION, db_path);
    for (size_t r = 0; r < s->nruns; r++)
        fprintf(out, "%s%lld", r ? ", " : " ", (long long)s->runs[r].id);
    fprintf(out, "\n# one region per function and (program) for the whole; repeated runs are repetitions\n");
    fprintf(out, "PARAMETER");
    for (size_t k = 0; k < pt->np; k++) {
        fputc(' ', out);
        for (const char *c = s->runs[0].params[pt->use[k]].name; *c; c++) /* a NAME: printable, no space */
            fputc(*c > 0x20 && *c < 0x7f ? *c : '_', out);
    }
    fprintf(out, "\nPOINTS");
    for (size_t i = 0; i < pt->n; i++) {
        fputs(pt->np > 1 ? " (" : " ", out);
        for (size_t k = 0; k < pt->np; k++) {
            char v[64];
            fprintf(out, "%s%s", k ? " " : "", export_param(pt->coords[i * pt->np + k], v));
        }
        fputs(pt->np > 1 ? ")" : "", out);
    }
    fprintf(out, "\n");
}

/* One region of metric k: its DATA lines, a value per run at each point;
 * c[r] is run r's counts (NULL: not executed, 0). */
static void put_data(const export_set *s, const points *pt, size_t k, const report_counts *const *c, FILE *out)
{
    static const report_counts none;
    for (size_t i = 0; i < pt->n; i++) {
        fprintf(out, "DATA");
        for (size_t r = 0; r < s->nruns; r++) {
            if (pt->point[r] != i)
                continue;
            char value[48];
            const report_cache *cache;
            export_metric(s, k, c[r] ? c[r] : &none, value, &cache);
            fprintf(out, " %s", value);
        }
        fprintf(out, "\n");
    }
}

static int put_metrics(const export_set *s, const points *pt, const regions *g, FILE *out)
{
    const report_counts **c = malloc((s->nruns + 1) * sizeof *c);
    if (!c)
        return -1;
    for (size_t k = 0; k < EXPORT_NMETRICS(s); k++) {
        char value[48], label[64] = "";
        const report_cache *cache;
        const char *metric = export_metric(s, k, &s->reps[0].total, value, &cache);
        if (cache)
            report_cache_label(cache, label, sizeof label);
        fprintf(out, "\nMETRIC %s%s%s\nREGION (program)\n", metric, cache ? " " : "", label);
        for (size_t r = 0; r < s->nruns; r++)
            c[r] = &s->reps[r].total;
        put_data(s, pt, k, c, out);
        for (size_t i = 0; i < g->n; i++) {
            const report_function *f = &g->fn[g->order[i]];
            fprintf(out, "REGION ");
            put_name(out, g->label[g->order[i]]);
            for (size_t r = 0; r < s->nruns; r++)
                c[r] = counts_in(s, g, r, f);
            put_data(s, pt, k, c, out);
        }
    }
    free(c);
    return 0;
}

int export_extrap(const export_set *s, const char *db_path, FILE *out, char *err, size_t errlen)
{
    points pt = {0};
    regions g = {0};
    if (choose_params(s, pt.use, &pt.np, err, errlen) != 0)
        return -1;
    int rc = make_points(s, &pt) == 0 && make_regions(s, &g) == 0 ? 0 : -1;
    if (rc == 0) {
        put_header(s, &pt, db_path, out);
        rc = put_metrics(s, &pt, &g, out);
    }
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    else if (fflush(out) != 0 || ferror(out)) {
        snprintf(err, errlen, "cannot write the Extra-P file");
        rc = -1;
    }
    free(pt.coords), free(pt.point);
    regions_free(&g, s->nruns);
    return rc;
}
