/* model_show_points.c — the points `augur model --show` prints beside each
 * formula: the value its series had in each run the set was fitted on,
 * read again from the runs as `augur model` read them (the program's total
 * and its functions as report_build adds up the run's instructions, the
 * scopes as report_scope_counts charges them to the program's stored
 * structure, ms_scope_metric naming the counter; for a set across builds,
 * each run in its own build's structure, ms_run_scope_counts), so that the measured
 * value, the model's value at the run's parameters and their difference
 * can be set side by side (docs/models.md, "Showing the models"). */
#include <stdlib.h>
#include <string.h>

#include "modelset/modelset.h"
#include "predict/predict_internal.h"

/* The program's stored structure (of the build the runs ran, or the
 * reference's of several: the newest run's) into *t; 1, loading nothing,
 * when the database holds none. */
static int program_tree(db *d, const show_points *p, scope_tree *t, char *err, size_t errlen)
{
    int64_t binary_id;
    int rc = p->nruns ? predict_program_binary(d, predict_newest_run(p->runs, p->nruns), &binary_id, NULL, err,
                                               errlen)
                      : 1;
    return rc == 0 ? scope_tree_load(d, binary_id, t, err, errlen) : rc;
}

/* Order runs r and s of p by their parameters, first parameter first. */
static int by_params(const show_points *p, size_t r, size_t s)
{
    for (int k = 0; k < p->nparams; k++) {
        double a = p->x[r * (size_t)p->nparams + (size_t)k], b = p->x[s * (size_t)p->nparams + (size_t)k];
        if (a != b)
            return a < b ? -1 : 1;
    }
    return 0;
}

/* Put p's runs (and their parameters) in ascending order of the
 * parameters, as a reader scans a series (insertion: a set has few runs). */
static void sort_runs(show_points *p)
{
    size_t np = (size_t)p->nparams;
    double x[MODEL_MAX_PARAMS];
    for (size_t i = 1; i < p->nruns; i++)
        for (size_t j = i; j > 0 && by_params(p, j - 1, j) > 0; j--) {
            db_run run = p->runs[j];
            p->runs[j] = p->runs[j - 1], p->runs[j - 1] = run;
            memcpy(x, p->x + j * np, np * sizeof *x);
            memcpy(p->x + j * np, p->x + (j - 1) * np, np * sizeof *x);
            memcpy(p->x + (j - 1) * np, x, np * sizeof *x);
        }
}

int show_points_load(db *d, const db_model_set *set, show_points *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->nparams = set->nparams;
    if (predict_training_runs(d, set, &p->runs, &p->x, &p->nruns, err, errlen) != 0)
        return -1;
    sort_runs(p);
    scope_tree t = {0};
    int have_tree = program_tree(d, p, &t, err, errlen);
    if (have_tree < 0)
        return -1;
    p->reps = calloc(p->nruns + 1, sizeof *p->reps);
    p->scopes = have_tree == 0 ? calloc(p->nruns + 1, sizeof *p->scopes) : NULL;
    p->nscopes = have_tree == 0 ? t.nscopes : 0;
    int rc = p->reps && (have_tree != 0 || p->scopes) ? 0 : (snprintf(err, errlen, "out of memory"), -1);
    for (size_t r = 0; rc == 0 && r < p->nruns; r++) {
        rc = report_build(d, &p->runs[r], NULL, 0, &p->reps[r], err, errlen);
        if (rc == 0) /* a run of another build of the set's: its program's functions by the set's name */
            rc = predict_as_set_program(d, set, p->runs[r].id, &p->reps[r], err, errlen);
        if (rc == 0)
            predict_sort_rows(&p->reps[r]);
        if (rc == 0 && p->scopes) /* a build without stored structure: its scopes unknown (NULL) */
            rc = ms_run_scope_counts(d, p->runs[r].id, &t, &p->scopes[r], err, errlen) < 0 ? -1 : 0;
    }
    if (have_tree == 0)
        scope_tree_free(&t);
    return rc;
}

/* The count of a total or function row that `metric` names in c. */
static int counts_metric(const report_counts *c, const char *metric, double *v)
{
    if (!strcmp(metric, "instructions"))
        *v = (double)c->instructions;
    else if (!strcmp(metric, "reads"))
        *v = (double)c->reads;
    else if (!strcmp(metric, "writes"))
        *v = (double)c->writes;
    else
        return 0;
    return 1;
}

int show_measured(const show_points *p, size_t r, const db_model_row *row, double *v)
{
    const report *rep = &p->reps[r];
    if (!strcmp(row->kind, "total"))
        return counts_metric(&rep->total, row->metric, v);
    if (!strcmp(row->kind, "function")) {
        report_function key = {.function = row->function, .module = row->module};
        const report_function *f = predict_find_function(rep, &key);
        static const report_counts none; /* a function that did not run in r: its series was 0 there */
        return counts_metric(f ? &f->c : &none, row->metric, v);
    }
    uint64_t u;
    if (strcmp(row->kind, "scope") || !p->scopes || !p->scopes[r] || row->scope < 0 ||
        (size_t)row->scope >= p->nscopes ||
        ms_scope_metric(&p->scopes[r][row->scope], row->metric, &u) != 0)
        return 0;
    *v = (double)u;
    return 1;
}

void show_points_free(show_points *p)
{
    for (size_t r = 0; r < p->nruns; r++) {
        db_run_free(&p->runs[r]);
        if (p->reps)
            report_free(&p->reps[r]);
        if (p->scopes)
            free(p->scopes[r]);
    }
    free(p->runs), free(p->x), free(p->reps), free(p->scopes);
    memset(p, 0, sizeof *p);
}
