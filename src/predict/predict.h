/* predict.h — `augur predict`: evaluating a stored model set at parameter
 * values that were never run (docs/models.md, "Predicting").
 *
 * The result is a report (src/report) of the same shape as `augur
 * report`'s, whose counts are the count models' values and whose misses
 * are the reuse-distance group models' misses, attributed to lines and
 * functions by each member's share; plus the predicted counts of every
 * modeled scope of the program. */
#ifndef AUGUR_PREDICT_H
#define AUGUR_PREDICT_H

#include <stdio.h>

#include "db/db.h"
#include "model/model.h"
#include "report/report.h"
#include "report/static_check.h"
#include "structure/structure.h"

/* The leave-one-out cross-validation errors (model.cv_smape, percent) of
 * the models of a value's counts: how far a training run was from the
 * model fitted without it.  0 for exact and constant models. */
typedef struct predict_error {
    double instructions, reads, writes;
} predict_error;

/* The in-sample error of a row's predicted misses, per cache of the
 * report (docs/models.md, "Error estimates"): the SMAPE (percent) of the
 * misses the same models give at each training run's parameters against
 * the misses that run measured.  Not leave-one-out: the groups are not
 * refitted without each run. */
typedef struct predict_miss_error {
    double percent[REPORT_MAX_CACHES];
} predict_miss_error;

/* Predicted counts of one scope (function, inlined subroutine or loop). */
typedef struct predict_scope {
    const char *kind, *name, *file; /* borrowed from the model rows */
    uint32_t line;
    int64_t scope;
    double instructions, reads, writes, flops, headers, entries;
    double cls[ST_CLASS_COUNT]; /* executions per instruction class */
    predict_error err;          /* of its models (a measured run: 0) */
    double doubt;               /* relative uncertainty of its instructions (predict_count_doubt) */
    int lowered;                /* a count was above its parent's and was
                                   lowered to it (predict_nest_scopes) */
} predict_scope;

/* A predicted loop against the stored static model (predict_static.c):
 * its static iterations at the predicted parameters and the predicted
 * ones (the closer of headers and headers - entries). */
typedef struct predict_static {
    const predict_scope *scope;
    static_loop_check x;
} predict_static;

typedef struct prediction {
    db_model_set set;
    double x[MODEL_MAX_PARAMS]; /* the parameters, in the set's order */
    report_prediction info;
    report rep;
    size_t nscopes;
    predict_scope *scopes; /* ascending scope id */
    db_model_row *rows;
    size_t nrows;
    /* The models' errors, index for index with rep.functions and
     * rep.lines, and of the total (the functions', weighted by their
     * counts); NULL for a measured run (predict_from_run): no models. */
    predict_error *function_errors, *line_errors, total_error;
    /* The runs the set was fitted on and their parameters
     * (train_x[t * set.nparams + k]). */
    size_t ntrain;
    db_run *train_runs;
    double *train_x;
    /* The misses' in-sample errors, index for index with rep.functions and
     * rep.lines, and of the total; NULL without caches or runs. */
    predict_miss_error *function_miss_errors, *line_miss_errors, total_miss_error;
    /* The phases with model sets under the set of whole runs (info.phases). */
    size_t nphases;
    char **phases;
    /* The predicted loops paired with a loop of the static model stored
     * for the program's build (augur static --db); none without one. */
    static_checks st; /* the static model and its pairing (statics point into it) */
    size_t nstatics;
    predict_static *statics;
} prediction;

/* Evaluate the newest model set of d at the parameters names[i] = values[i]
 * (every parameter of the set, no other) for the given caches: of the whole
 * runs, or with `phase` that set's set of the phase (db_model_set_newest;
 * the message names the phases that have models when it has none); the
 * start-up and loader rows are out of the rankings unless show_startup
 * (report_hide_startup).  -1 with a
 * message for a database without models, a missing or unknown parameter,
 * a cache whose line size the runs did not measure, a parameter outside the
 * domain of a model's terms (log2(N) at N <= 0), or a count that does not
 * fit below 2^63 (naming the row, the value and the limit).  Misses above
 * their row's accesses are lowered to them, with a warning.  Values
 * outside the fitted range are predicted, with a warning in out->info.  Free with
 * prediction_free, also after failure. */
int predict(db *d, const char *const *names, const double *values, int n, const report_cache *caches,
            size_t ncaches, int show_startup, const char *phase, prediction *out, char *err, size_t errlen);
void prediction_free(prediction *p);

/* "N=1000, M=3": the parameters predicted at, for messages. */
void predict_params_text(const prediction *p, char *buf, size_t len);

/* The relative uncertainty of a count model's value at `reach` (as
 * predict_reach gives it): the larger of the spread of its plausible
 * alternatives there (model.spread, interpolated in log2 of the reach) and
 * its leave-one-out error times 1 + log2(reach) (docs/models.md,
 * "Uncertainty of counts").  0 for a confirmed exact polynomial. */
double predict_count_doubt(const model *m, double reach);

/* How far p->x lies outside the fitted range: the largest ratio of a
 * parameter to the largest fitted value above it, or of the smallest
 * fitted value to it below it; 1 inside the range. */
double predict_reach(const prediction *p);

/* -1 with a message naming the term when a model of the reuse-distance
 * groups has a term undefined at p's parameters (predict_check.h); the
 * machine models evaluate the groups themselves (predict_perf.c). */
int predict_check_groups(const prediction *p, const db_rd_group *groups, size_t n, char *err, size_t errlen);

/* The error tables' default threshold (percent): a function's row shows
 * when one of its errors is at least this (predict_output). */
#define PREDICT_DEFAULT_ERROR_THRESHOLD 1.0

/* How a prediction is written (prediction_write and the writers below):
 * JSON or text, rows per table (`top`, 0: all), and in the text the least
 * error a function's row of the error tables needs to show (percent; 0:
 * every row) and how counts are written. */
typedef struct predict_output {
    int json;
    size_t top;
    double error_threshold;
    num_style numbers;
} predict_output;

/* The models' errors: as text, a table of the total's and of those of the
 * `top` functions with an error at or above the threshold, then one of
 * their misses' in-sample errors per cache, each with a line on the rows
 * left out; in JSON, a "cv_error_percent" object with instructions, reads
 * and writes, and a "misses_error_percent" object by cache key, in the
 * total, every function and line of doc (report_json's, rows in rep
 * order).  Nothing for a measured run.  -1 on a write error or when memory
 * runs out. */
int predict_write_errors_text(const prediction *p, const predict_output *o, FILE *out);
int predict_errors_json(const prediction *p, json_t *doc);

/* The scope section, as text (the `top` scopes with the most
 * instructions, inner scopes included, and a line saying how many were
 * left out; 0: all) or as a JSON array of every scope. */
int predict_write_scopes_text(const prediction *p, const predict_output *o, FILE *out);
json_t *predict_scopes_json(const prediction *p);

/* The loops compared with the static model (predict_static.c) as text:
 * those that disagree, or a line that all agree; nothing without a static
 * model.  As JSON: {"compared": N, "loops": [...], "disagreements":
 * [...]}, each as static_loop_check_json writes it with "predicted" and
 * its scope's name as "scope"; null without a static model. */
int predict_write_static_text(const prediction *p, FILE *out);
json_t *predict_static_json(const prediction *p);

/* An MPI program's models (predict_mpi.c: bytes sent and received and
 * calls summed over the ranks, the largest rank's instructions, each with
 * its range; with the parameter P the mean rank's instructions, the
 * predicted total over P, and the imbalance, largest / mean) as text
 * after the prediction, nothing when the set has none; as JSON
 * {"bytes_sent": {"value": V, "range": [LO, HI]}, "bytes_received",
 * "calls", "largest_rank_instructions" alike, "ranks",
 * "mean_rank_instructions", "imbalance"}, null when the set has none. */
int predict_write_mpi_text(const prediction *p, num_style numbers, FILE *out);
json_t *predict_mpi_json(const prediction *p);

/* `augur model --show`: the newest model set's formulas and errors (of
 * the whole runs, naming the phases that have sets; with `phase`, that
 * phase's set, naming it), for the total, the functions and the program's scopes, each with its points
 * (what each training run measured, the model's value there, the
 * residual); with scope_filter, only the functions and scopes whose name
 * contains it; text, or JSON when `json` (model_show.c).  -1 with a
 * message on a database or write error. */
int model_show(db *d, const char *phase, const char *scope_filter, int json, FILE *out, char *err, size_t errlen);

#endif
