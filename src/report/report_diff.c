/* report_diff.c — the rows of two reports matched by key, and ordered by
 * how much they changed (diff.h). */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/diff.h"

/* A row of one report under its key: (name, module file name) for a
 * function, (file relative to the run's directory, function) and the line
 * for a source line. */
typedef struct row_key {
    const char *s[2];
    uint32_t line;
    const char *function, *module, *file;
    const report_counts *c;
} row_key;

static int by_key(const void *pa, const void *pb)
{
    const row_key *a = pa, *b = pb;
    int c = report_cmp_names(a->s[0], b->s[0]);
    if (!c && a->line != b->line)
        c = a->line < b->line ? -1 : 1;
    return c ? c : report_cmp_names(a->s[1], b->s[1]);
}

static row_key *function_keys(const report *r)
{
    row_key *k = malloc((r->nfunctions + 1) * sizeof *k);
    for (size_t i = 0; k && i < r->nfunctions; i++) {
        const report_function *f = &r->functions[i];
        k[i] = (row_key){.s = {f->function, report_base_name(f->module)}, .function = f->function,
                         .module = f->module, .c = &f->c};
    }
    if (k)
        qsort(k, r->nfunctions, sizeof *k, by_key);
    return k;
}

static row_key *line_keys(const report *r)
{
    row_key *k = malloc((r->nlines + 1) * sizeof *k);
    for (size_t i = 0; k && i < r->nlines; i++) {
        const report_line *l = &r->lines[i];
        const char *file = l->file ? report_relative_path(l->file, r->run->cwd) : NULL;
        k[i] = (row_key){.s = {file, l->function}, .line = l->line, .function = l->function, .file = file,
                         .c = &l->c};
    }
    if (k)
        qsort(k, r->nlines, sizeof *k, by_key);
    return k;
}

/* The union of a[0..na) and b[0..nb) (both sorted by key) into a new
 * array *rows of *n. */
static int merge(const row_key *a, size_t na, const row_key *b, size_t nb, diff_row **rows, size_t *n)
{
    *n = 0;
    if (!(*rows = calloc(na + nb + 1, sizeof **rows)))
        return -1;
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : by_key(&a[i], &b[j]);
        const row_key *k = c < 0 ? &a[i] : &b[j]; /* B's names when in both */
        diff_row *d = &(*rows)[(*n)++];
        *d = (diff_row){.function = k->function, .module = k->module, .file = k->file, .line = k->line};
        if (c <= 0)
            d->in_a = 1, d->a = *a[i++].c;
        if (c >= 0)
            d->in_b = 1, d->b = *b[j++].c;
    }
    return 0;
}

/* ---- order ------------------------------------------------------------------------ */

static int changed(const diff_row *d, size_t ncaches)
{
    if (d->a.instructions != d->b.instructions || d->a.reads != d->b.reads || d->a.writes != d->b.writes)
        return 1;
    for (size_t k = 0; k < ncaches; k++)
        if (d->a.misses[k] != d->b.misses[k])
            return 1;
    return 0;
}

/* |B - A| of the counts the rows are ordered by. */
static double magnitude(const diff_row *d, enum diff_sort sort)
{
    switch (sort) {
    case DIFF_BY_ACCESSES:
        return fabs((double)(d->b.reads + d->b.writes) - (double)(d->a.reads + d->a.writes));
    case DIFF_BY_MISSES:
        return fabs(d->b.misses[0] - d->a.misses[0]);
    default:
        return fabs((double)d->b.instructions - (double)d->a.instructions);
    }
}

typedef struct order_ctx {
    enum diff_sort sort;
    size_t ncaches;
} order_ctx;

/* Changed rows first, the largest change first, then by instructions'
 * change, then by name and line. */
static int by_change(const void *pa, const void *pb, void *ctx)
{
    const diff_row *a = pa, *b = pb;
    const order_ctx *o = ctx;
    int ca = changed(a, o->ncaches), cb = changed(b, o->ncaches);
    if (ca != cb)
        return cb - ca;
    double ma = magnitude(a, o->sort), mb = magnitude(b, o->sort);
    if (ma != mb)
        return ma > mb ? -1 : 1;
    ma = magnitude(a, DIFF_BY_INSTRUCTIONS), mb = magnitude(b, DIFF_BY_INSTRUCTIONS);
    if (ma != mb)
        return ma > mb ? -1 : 1;
    int c = report_cmp_names(a->function, b->function);
    if (!c)
        c = report_cmp_names(a->file, b->file);
    if (!c && a->line != b->line)
        c = a->line < b->line ? -1 : 1;
    return c ? c : report_cmp_names(a->module, b->module);
}

static size_t order(diff_row *rows, size_t n, const report_diff *d)
{
    order_ctx o = {d->sort, d->a->ncaches};
    qsort_r(rows, n, sizeof *rows, by_change, &o);
    size_t k = 0;
    while (k < n && changed(&rows[k], o.ncaches))
        k++;
    return k;
}

int report_diff_build(const report *a, const report *b, enum diff_sort sort, report_diff *out)
{
    *out = (report_diff){.a = a, .b = b, .sort = sort};
    row_key *fa = function_keys(a), *fb = function_keys(b), *la = line_keys(a), *lb = line_keys(b);
    int rc = fa && fb && la && lb ? 0 : -1;
    if (rc == 0)
        rc = merge(fa, a->nfunctions, fb, b->nfunctions, &out->functions, &out->nfunctions);
    if (rc == 0)
        rc = merge(la, a->nlines, lb, b->nlines, &out->lines, &out->nlines);
    if (rc == 0) {
        out->functions_changed = order(out->functions, out->nfunctions, out);
        out->lines_changed = order(out->lines, out->nlines, out);
    }
    free(fa), free(fb), free(la), free(lb);
    return rc;
}

void report_diff_free(report_diff *d)
{
    free(d->functions);
    free(d->lines);
    d->functions = d->lines = NULL;
}
