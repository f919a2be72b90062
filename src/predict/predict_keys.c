/* predict_keys.c — the keys of a prediction's rows: a function is
 * (function, module), a line (file, line, function), NULL names last;
 * build_rows sorts by them and the misses and errors find rows by them
 * (predict_internal.h). */
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

