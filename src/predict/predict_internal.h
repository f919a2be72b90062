/* predict_internal.h — what the files of src/predict share and no other
 * stage needs: the rows' keys (predict_keys.c), the models' errors
 * (predict_errors.c, predict_miss_errors.c), the evaluation of the rows at
 * other parameters and the warnings (predict.c), the capacity crossings
 * (predict_crossing.c). */
#ifndef AUGUR_PREDICT_INTERNAL_H
#define AUGUR_PREDICT_INTERNAL_H

#include "predict/predict.h"

/* Order of a function row against (function, module), and of a line row
 * against (file, line, function): <0, 0, >0 as strcmp; NULL names last. */
int predict_cmp_function(const report_function *a, const char *function, const char *module);
int predict_cmp_line(const report_line *a, const char *file, uint32_t line, const char *function);

/* qsort/bsearch comparators of report_function and report_line (or of
 * structs that begin with one) by those keys. */
int predict_by_function_key(const void *pa, const void *pb);
int predict_by_line_key(const void *pa, const void *pb);

/* Sort r's functions and lines by those keys; then the row of r with
 * key's key, or NULL when r has none. */
void predict_sort_rows(report *r);
report_function *predict_find_function(const report *r, const report_function *key);
report_line *predict_find_line(const report *r, const report_line *key);

/* Set e's member for metric ("instructions", "reads", "writes"; others
 * ignored) to cv. */
void predict_error_metric(predict_error *e, const char *metric, double cv);

/* p->function_errors, line_errors (index for index with the report's rows
 * in their final order) and total_error from p->rows; -1 when memory
 * runs out. */
int predict_attach_errors(prediction *p);


/* Add a copy of text to p's warnings unless it is there already (each
 * warning is shown once); -1 when memory runs out. */
int predict_add_warning(prediction *p, const char *text);

/* The function and line rows (sorted by key, not in report order) and the
 * total that p's models give at the parameters x (p->set.nparams values,
 * in the set's order), misses from the groups for p's caches, lowered to
 * the accesses as predict lowers them.  Free *out with report_free, also
 * after failure; -1 with a message as predict gives it. */
int predict_rows_at(const prediction *p, const double *x, const db_rd_group *groups, size_t n, report *out,
                    char *err, size_t errlen);

/* The runs of set->runs into *runs (*n of them) and their values of the
 * set's parameters into *x (x[t * nparams + k]).  -1 with a message when
 * a run is gone or lacks a parameter.  Free the runs with db_run_free and
 * both arrays with free(), also after failure. */
int predict_training_runs(db *d, const db_model_set *set, db_run **runs, double **x, size_t *n, char *err,
                          size_t errlen);

/* p->train_runs and train_x: predict_training_runs of p->set. */
int predict_load_training(db *d, prediction *p, char *err, size_t errlen);

/* The newest of runs[0..n): its program is the one a model set's scopes,
 * blocks and groups are of (the reference build of a set across builds,
 * docs/models.md); 0 when n is 0. */
int64_t predict_newest_run(const db_run *runs, size_t n);

/* In report r of run `run`, measured: when set spans builds and the run ran
 * another build than the reference, the function rows of its program
 * renamed to set->program, whose rows the models have.  -1 with a
 * message. */
int predict_as_set_program(db *d, const db_model_set *set, int64_t run, report *r, char *err, size_t errlen);

/* The misses' in-sample errors (predict_miss_error) of p's total,
 * functions and lines (in their final order), from the groups and the
 * training runs' measured reports; nothing without caches or training
 * runs.  -1 with a message. */
int predict_attach_miss_errors(db *d, prediction *p, const db_rd_group *groups, size_t n, char *err,
                               size_t errlen);

/* The stored structure's binary id of the program training run `run_id`
 * ran (path and build-id of its main module) into *binary_id, and its
 * path into *path (free() it; path may be NULL); 1 when the database holds
 * no structure of that build, -1 with a message on error. */
int predict_program_binary(db *d, int64_t run_id, int64_t *binary_id, char **path, char *err, size_t errlen);

/* p->statics: every predicted loop paired with a loop of the static
 * model stored for the program's build, its static iterations at p->x
 * against the predicted ones (docs/static.md, "Static and measured");
 * nothing without a stored structure or static model.  -1 with a message. */
int predict_static_checks(db *d, prediction *p, char *err, size_t errlen);
void predict_static_free(prediction *p);

/* Lower every predicted scope's nested counts (instructions, reads,
 * writes, flops, classes) to those of its nearest predicted ancestor in the
 * program's stored structure (a function's: its module's function rows
 * summed), and a loop's headers and entries to its own counts, marking it
 * lowered, with one warning when a
 * scope lost more than 0.1% of the program's instructions; nothing
 * when the structure of the training runs' program is not stored.  Needs
 * p->train_runs.  -1 with a message. */
int predict_nest_scopes(db *d, prediction *p, char *err, size_t errlen);

/* One warning for the instructions and one per cache of p naming the
 * functions (those holding 1% of the count or more) whose predicted count
 * has a wide range: above 1.5 times the count, or below it divided by 1.5
 * (predict_wide.c).  -1 when memory runs out. */
int predict_warn_wide(prediction *p);

/* The ranges of the library functions whose work per call grows over
 * the training runs, widened beyond them to hold a byte-wise path
 * (predict_paths.c): instructions up to the count plus 32 per access,
 * reads and writes up to 33 times theirs.  Nothing inside the training
 * range.  Needs the rows sorted (build_rows).  0. */
int predict_widen_paths(prediction *p);

/* One warning per library function predicted to hold 1% of the program's
 * instructions or more whose instructions model has a form
 * (a fractional power, a negative constant cancelling most of it) that
 * its calls model, whole powers of the parameters, does not explain
 * (predict_paths.c).  -1 when memory runs out. */
int predict_warn_forms(prediction *p);

/* p->info.line_gap and gap_functions: the total minus the sum of the
 * lines, for the program and per function name (report_line_gap).  -1
 * when memory runs out; free with predict_line_gap_free. */
int predict_line_gap(prediction *p);
void predict_line_gap_free(report_prediction *info);
/* ---- `augur model --show`'s points (model_show_points.c) ---------------- */

/* What the runs a model set was fitted on measured. */
typedef struct show_points {
    size_t nruns;
    db_run *runs;           /* the set's runs, in ascending order of their parameters */
    int nparams;
    double *x;              /* x[r * nparams + k]: run r's value of the set's parameter k */
    report *reps;           /* per run: its report, rows sorted by key (predict_sort_rows) */
    scope_counts **scopes;  /* per run: counts by scope id of the program's stored structure; NULL without one */
    size_t nscopes;
} show_points;

/* Read the runs of set and what they measured.  -1 with a message (a run
 * gone, a database error); free with show_points_free, also after failure. */
int show_points_load(db *d, const db_model_set *set, show_points *p, char *err, size_t errlen);

/* *v = what row's series was in run r (a total, function or scope row);
 * 1 when known, 0 when not (another kind of row, no stored structure). */
int show_measured(const show_points *p, size_t r, const db_model_row *row, double *v);
void show_points_free(show_points *p);

#endif
