/* predict_miss_errors.c — the error estimate of predicted misses: the
 * models evaluated at each training run's parameters (predict_rows_at)
 * against the misses that run measured (report_build, exactly as `augur
 * report --run R --cache C` computes them), summarized per row and cache
 * with the SMAPE of the count models' cv_smape (docs/models.md, "Error
 * estimates").  It is an in-sample error: refitting every group without
 * each run would multiply the time of `augur model` by the runs, at
 * predict time.  The runs the set was fitted on are loaded here too. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict_internal.h"

/* The integers of the JSON array text into a new array *ids (free() it,
 * also after failure); -1 when text is not such an array or memory runs
 * out. */
static int run_ids(const char *text, int64_t **ids, size_t *n)
{
    json_t *a = json_loads(text ? text : "", 0, NULL);
    *n = 0;
    *ids = json_is_array(a) ? malloc((json_array_size(a) + 1) * sizeof **ids) : NULL;
    int rc = *ids ? 0 : -1;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        if (rc == 0 && !json_is_integer(v))
            rc = -1;
        if (rc == 0)
            (*ids)[(*n)++] = json_integer_value(v);
    }
    json_decref(a);
    return rc;
}

/* x[k] = run r's value of set's parameter k; -1 with a message when the
 * run has no such parameter. */
static int run_point(const db_model_set *set, const db_run *r, double *x, char *err, size_t errlen)
{
    for (int k = 0; k < set->nparams; k++) {
        size_t i = 0;
        while (i < r->nparams && strcmp(r->params[i].name, set->params[k]))
            i++;
        if (i == r->nparams) {
            snprintf(err, errlen,
                     "run %lld, which model set %lld was fitted on, has no parameter %s; fit the models again "
                     "with augur model",
                     (long long)r->id, (long long)set->id, set->params[k]);
            return -1;
        }
        x[k] = r->params[i].value;
    }
    return 0;
}

int predict_training_runs(db *d, const db_model_set *set, db_run **runs, double **x, size_t *n, char *err,
                          size_t errlen)
{
    int64_t *ids;
    size_t nids;
    *runs = NULL, *x = NULL, *n = 0;
    if (run_ids(set->runs, &ids, &nids) != 0) {
        free(ids);
        snprintf(err, errlen,
                 "model set %lld lists its runs as '%.100s', not a JSON array of run ids; fit the models again with "
                 "augur model",
                 (long long)set->id, set->runs ? set->runs : "");
        return -1;
    }
    size_t np = (size_t)set->nparams;
    *runs = calloc(nids + 1, sizeof **runs);
    *x = calloc(nids * np + 1, sizeof **x);
    int rc = *runs && *x ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    for (size_t t = 0; rc == 0 && t < nids; t++) {
        char why[512];
        *n = t + 1; /* db_run_free frees a partly read run too */
        if (db_get_run(d, ids[t], &(*runs)[t], why, sizeof why) != 0) {
            snprintf(err, errlen, "run %lld, which model set %lld was fitted on, cannot be read (%s); fit the "
                     "models again with augur model", (long long)ids[t], (long long)set->id, why);
            rc = -1;
        } else
            rc = run_point(set, &(*runs)[t], *x + t * np, err, errlen);
    }
    free(ids);
    return rc;
}

int predict_load_training(db *d, prediction *p, char *err, size_t errlen)
{
    return predict_training_runs(d, &p->set, &p->train_runs, &p->train_x, &p->ntrain, err, errlen);
}

int64_t predict_newest_run(const db_run *runs, size_t n)
{
    int64_t newest = 0;
    for (size_t t = 0; t < n; t++)
        newest = runs[t].id > newest ? runs[t].id : newest;
    return newest;
}

int predict_as_set_program(db *d, const db_model_set *set, int64_t run, report *r, char *err, size_t errlen)
{
    if (!set->builds)
        return 0;
    db_run_module *m = NULL;
    size_t n = 0;
    int rc = db_run_modules(d, run, &m, &n, err, errlen);
    const char *own = rc == 0 && n && m[0].is_program ? m[0].path : NULL;
    for (size_t i = 0; own && strcmp(own, set->program) && i < r->nfunctions; i++) {
        report_function *f = &r->functions[i];
        char *renamed;
        if (!f->module || strcmp(f->module, own))
            continue;
        if (!(renamed = strdup(set->program))) {
            rc = (snprintf(err, errlen, "out of memory"), -1);
            break;
        }
        free(f->module);
        f->module = renamed;
    }
    db_run_modules_free(m, n);
    return rc;
}

/* Add to sum each cache's SMAPE term of the predicted misses of f against
 * the measured of y (a row absent from a report has no misses). */
static void add_terms(predict_miss_error *sum, const report_counts *f, const report_counts *y, size_t ncaches)
{
    for (size_t c = 0; c < ncaches; c++)
        sum->percent[c] += model_smape_point(f ? f->misses[c] : 0, y ? y->misses[c] : 0);
}

/* The counts of the function (line) of r, whose rows are sorted by key,
 * with key's key; NULL when r has none. */
static const report_counts *find_function(const report_function *key, const report *r)
{
    const report_function *f = predict_find_function(r, key);
    return f ? &f->c : NULL;
}

static const report_counts *find_line(const report_line *key, const report *r)
{
    const report_line *l = predict_find_line(r, key);
    return l ? &l->c : NULL;
}

/* Add training run t's SMAPE terms to p's sums: the rows predicted at its
 * parameters against its measured report; -1 with a message. */
static int add_run(db *d, prediction *p, size_t t, const db_rd_group *groups, size_t n, char *err, size_t errlen)
{
    report pred = {0}, meas = {0};
    size_t nc = p->rep.ncaches;
    int rc = predict_rows_at(p, p->train_x + t * (size_t)p->set.nparams, groups, n, &pred, err, errlen);
    if (rc == 0)
        rc = report_build(d, &p->train_runs[t], p->rep.caches, nc, &meas, err, errlen);
    if (rc == 0)
        rc = predict_as_set_program(d, &p->set, p->train_runs[t].id, &meas, err, errlen);
    if (rc == 0) {
        predict_sort_rows(&meas);
        add_terms(&p->total_miss_error, &pred.total, &meas.total, nc);
        for (size_t i = 0; i < p->rep.nfunctions; i++)
            add_terms(&p->function_miss_errors[i], find_function(&p->rep.functions[i], &pred),
                      find_function(&p->rep.functions[i], &meas), nc);
        for (size_t i = 0; i < p->rep.nlines; i++)
            add_terms(&p->line_miss_errors[i], find_line(&p->rep.lines[i], &pred),
                      find_line(&p->rep.lines[i], &meas), nc);
    }
    report_free(&pred);
    report_free(&meas);
    return rc;
}

/* Divide each cache's sum by the number of runs: the mean. */
static void mean_of(predict_miss_error *e, size_t ncaches, size_t nruns)
{
    for (size_t c = 0; c < ncaches; c++)
        e->percent[c] /= (double)nruns;
}

int predict_attach_miss_errors(db *d, prediction *p, const db_rd_group *groups, size_t n, char *err,
                               size_t errlen)
{
    const report *r = &p->rep;
    if (r->ncaches == 0 || p->ntrain == 0)
        return 0;
    p->function_miss_errors = calloc(r->nfunctions + 1, sizeof *p->function_miss_errors);
    p->line_miss_errors = calloc(r->nlines + 1, sizeof *p->line_miss_errors);
    if (!p->function_miss_errors || !p->line_miss_errors) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t t = 0; t < p->ntrain; t++)
        if (add_run(d, p, t, groups, n, err, errlen) != 0)
            return -1;
    mean_of(&p->total_miss_error, r->ncaches, p->ntrain);
    for (size_t i = 0; i < r->nfunctions; i++)
        mean_of(&p->function_miss_errors[i], r->ncaches, p->ntrain);
    for (size_t i = 0; i < r->nlines; i++)
        mean_of(&p->line_miss_errors[i], r->ncaches, p->ntrain);
    return 0;
}
