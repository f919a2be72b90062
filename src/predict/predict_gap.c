/* predict_gap.c — what a prediction's lines leave of its total
 * (report_line_gap, docs/models.md "Counts"): the total is the sum of the
 * functions' models, and each line has a model of its own.  Where a series
 * is an exact polynomial the two agree to the instruction; where it is not
 * (a switch's cases, the digits printf makes, allocator paths) each fit
 * extrapolates its own way and the lines' sum drifts from the total.  The
 * difference is named here, for the program and per function name, so
 * that the lines plus the difference add up to the total exactly. */
#include <stdlib.h>
#include <string.h>

#include "predict/predict_internal.h"

/* One row's counts with a sign: +1 for a function, -1 for a line. */
typedef struct signed_row {
    const char *function;
    const report_counts *c;
    int sign;
} signed_row;

/* By function name, the unknown (NULL) first. */
static int by_function_name(const void *pa, const void *pb)
{
    const signed_row *a = pa, *b = pb;
    if (!a->function || !b->function)
        return (a->function != NULL) - (b->function != NULL);
    return strcmp(a->function, b->function);
}

/* g += sign * c.  The counts are added modulo 2^64 and read as signed: the
 * difference fits in 63 bits where a sum of lines alone might not. */
static void add_signed(report_line_gap *g, const report_counts *c, int sign, size_t ncaches)
{
    uint64_t s = sign > 0 ? 1 : (uint64_t)-1;
    g->instructions = (int64_t)((uint64_t)g->instructions + s * c->instructions);
    g->reads = (int64_t)((uint64_t)g->reads + s * c->reads);
    g->writes = (int64_t)((uint64_t)g->writes + s * c->writes);
    for (size_t k = 0; k < ncaches; k++)
        g->misses[k] += sign * c->misses[k];
}

/* Largest |instructions| first, then largest |accesses|. */
static int by_size(const void *pa, const void *pb)
{
    const report_line_gap *a = pa, *b = pb;
    uint64_t x = (uint64_t)llabs(a->instructions), y = (uint64_t)llabs(b->instructions);
    if (x != y)
        return x < y ? 1 : -1;
    x = (uint64_t)llabs(a->reads) + (uint64_t)llabs(a->writes);
    y = (uint64_t)llabs(b->reads) + (uint64_t)llabs(b->writes);
    return (x < y) - (x > y);
}

/* The per-function gaps of rows[0..n) sorted by name, nonzero counts only,
 * into info->gap_functions.  -1 when memory runs out. */
static int function_gaps(report_prediction *info, const signed_row *rows, size_t n, size_t ncaches)
{
    info->gap_functions = calloc(n + 1, sizeof *info->gap_functions);
    if (!info->gap_functions)
        return -1;
    for (size_t i = 0; i < n;) {
        report_line_gap g = {0};
        size_t j = i;
        for (; j < n && by_function_name(&rows[i], &rows[j]) == 0; j++)
            add_signed(&g, rows[j].c, rows[j].sign, ncaches);
        if (g.instructions || g.reads || g.writes) {
            if (rows[i].function && !(g.function = strdup(rows[i].function)))
                return -1;
            info->gap_functions[info->ngap_functions++] = g;
        }
        i = j;
    }
    qsort(info->gap_functions, info->ngap_functions, sizeof *info->gap_functions, by_size);
    return 0;
}

int predict_line_gap(prediction *p)
{
    const report *r = &p->rep;
    report_prediction *info = &p->info;
    info->line_gap = (report_line_gap){0};
    add_signed(&info->line_gap, &r->total, 1, r->ncaches);
    size_t n = r->nfunctions + r->nlines;
    signed_row *rows = malloc((n + 1) * sizeof *rows);
    if (!rows)
        return -1;
    for (size_t i = 0; i < r->nfunctions; i++)
        rows[i] = (signed_row){r->functions[i].function, &r->functions[i].c, 1};
    for (size_t i = 0; i < r->nlines; i++) {
        rows[r->nfunctions + i] = (signed_row){r->lines[i].function, &r->lines[i].c, -1};
        add_signed(&info->line_gap, &r->lines[i].c, -1, r->ncaches);
    }
    qsort(rows, n, sizeof *rows, by_function_name);
    int rc = function_gaps(info, rows, n, r->ncaches);
    free(rows);
    return rc;
}

void predict_line_gap_free(report_prediction *info)
{
    for (size_t i = 0; i < info->ngap_functions; i++)
        free(info->gap_functions[i].function);
    free(info->gap_functions);
    info->gap_functions = NULL;
    info->ngap_functions = 0;
}
