/* predict_errors.c — each predicted value's error estimate: the
 * leave-one-out cross-validation error of its models, found for the
 * report's functions and lines by key, and the total's as the functions'
 * weighted by their counts (docs/models.md, "Error estimates"). */
#include <stdlib.h>
#include <string.h>

#include "predict/predict_internal.h"

void predict_error_metric(predict_error *e, const char *metric, double cv)
{
    if (!strcmp(metric, "instructions"))
        e->instructions = cv;
    else if (!strcmp(metric, "reads"))
        e->reads = cv;
    else if (!strcmp(metric, "writes"))
        e->writes = cv;
}

/* A function's or line's key (first, so that predict_by_function_key and
 * predict_by_line_key compare these) with its errors. */
typedef struct function_error {
    report_function key;
    predict_error e;
} function_error;

typedef struct line_error {
    report_line key;
    predict_error e;
} line_error;

/* The errors of the function and line models, each table sorted by key.
 * Keys borrow the rows' strings. */
static void error_tables(prediction *p, function_error *fe, size_t *nf, line_error *le, size_t *nl)
{
    *nf = *nl = 0;
    for (size_t i = 0; i < p->nrows; i++) {
        const db_model_row *row = &p->rows[i];
        if (!strcmp(row->kind, "function")) {
            report_function key = {.function = row->function, .module = row->module};
            if (*nf == 0 || predict_by_function_key(&fe[*nf - 1].key, &key))
                fe[(*nf)++] = (function_error){.key = key};
            predict_error_metric(&fe[*nf - 1].e, row->metric, row->m->cv_smape);
        } else if (!strcmp(row->kind, "line")) {
            report_line key = {.file = row->file, .line = row->line, .function = row->function};
            if (*nl == 0 || predict_by_line_key(&le[*nl - 1].key, &key))
                le[(*nl)++] = (line_error){.key = key};
            predict_error_metric(&le[*nl - 1].e, row->metric, row->m->cv_smape);
        }
    }
    qsort(fe, *nf, sizeof *fe, predict_by_function_key);
    qsort(le, *nl, sizeof *le, predict_by_line_key);
}

/* The total's error: the functions' weighted by their counts, the
 * relative error of their sum (the total shown) when each function is off
 * by its error in the same direction.  The total model's own error is not
 * it: the total shown is not that model's value (sum_functions). */
static void total_error(prediction *p)
{
    const report *r = &p->rep;
    double sum[3] = {0}, weighted[3] = {0};
    for (size_t i = 0; i < r->nfunctions; i++) {
        const report_counts *c = &r->functions[i].c;
        const predict_error *e = &p->function_errors[i];
        double v[3] = {(double)c->instructions, (double)c->reads, (double)c->writes};
        double cv[3] = {e->instructions, e->reads, e->writes};
        for (int k = 0; k < 3; k++) {
            sum[k] += v[k];
            weighted[k] += v[k] * cv[k];
        }
    }
    p->total_error = (predict_error){.instructions = sum[0] > 0 ? weighted[0] / sum[0] : 0,
                                     .reads = sum[1] > 0 ? weighted[1] / sum[1] : 0,
                                     .writes = sum[2] > 0 ? weighted[2] / sum[2] : 0};
}

/* p->function_errors and line_errors, index for index with the report's
 * rows (in their final order); -1 when memory runs out. */
int predict_attach_errors(prediction *p)
{
    const report *r = &p->rep;
    function_error *fe = malloc((p->nrows + 1) * sizeof *fe);
    line_error *le = malloc((p->nrows + 1) * sizeof *le);
    p->function_errors = calloc(r->nfunctions + 1, sizeof *p->function_errors);
    p->line_errors = calloc(r->nlines + 1, sizeof *p->line_errors);
    int rc = fe && le && p->function_errors && p->line_errors ? 0 : -1;
    size_t nf = 0, nl = 0;
    if (rc == 0)
        error_tables(p, fe, &nf, le, &nl);
    for (size_t i = 0; rc == 0 && i < r->nfunctions; i++) {
        const function_error *e = bsearch(&r->functions[i], fe, nf, sizeof *fe, predict_by_function_key);
        if (e)
            p->function_errors[i] = e->e;
    }
    for (size_t i = 0; rc == 0 && i < r->nlines; i++) {
        const line_error *e = bsearch(&r->lines[i], le, nl, sizeof *le, predict_by_line_key);
        if (e)
            p->line_errors[i] = e->e;
    }
    if (rc == 0)
        total_error(p);
    free(fe);
    free(le);
    return rc;
}

