/* predict_keys.c — the keys of a prediction's rows: a function is
 * (function, module), a line (file, line, function), NULL names last;
 * build_rows sorts by them (predict_sort_rows) and the misses and errors
 * find rows by them (predict_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "predict/predict_internal.h"

/* strcmp with NULL after every string. */
static int cmp_str(const char *a, const char *b)
{
    if (!a || !b)
        return !a - !b;
    return strcmp(a, b);
}

int predict_cmp_function(const report_function *a, const char *function, const char *module)
{
    int c = cmp_str(a->function, function);
    return c ? c : cmp_str(a->module, module);
}

int predict_cmp_line(const report_line *a, const char *file, uint32_t line, const char *function)
{
    int c = cmp_str(a->file, file);
    if (!c && a->line != line)
        c = a->line < line ? -1 : 1;
    return c ? c : cmp_str(a->function, function);
}

int predict_by_function_key(const void *pa, const void *pb)
{
    const report_function *b = pb;
    return predict_cmp_function(pa, b->function, b->module);
}

int predict_by_line_key(const void *pa, const void *pb)
{
    const report_line *b = pb;
    return predict_cmp_line(pa, b->file, b->line, b->function);
}


void predict_sort_rows(report *r)
{
    qsort(r->functions, r->nfunctions, sizeof *r->functions, predict_by_function_key);
    qsort(r->lines, r->nlines, sizeof *r->lines, predict_by_line_key);
}

report_function *predict_find_function(const report *r, const report_function *key)
{
    return bsearch(key, r->functions, r->nfunctions, sizeof *r->functions, predict_by_function_key);
}

report_line *predict_find_line(const report *r, const report_line *key)
{
    return bsearch(key, r->lines, r->nlines, sizeof *r->lines, predict_by_line_key);
}
