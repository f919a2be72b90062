/* modelset.h — `augur model`'s pipeline: from the runs of a database to a
 * stored model set (docs/models.md).
 *
 *   modelset_runs.c    choosing the runs and the modeled parameters, with
 *                      the errors for what cannot be modeled
 *   modelset_builds.c  runs of several builds of one source (sizes
 *                      compiled in): compared, and matched by source
 *                      location (builds.h, build_match.c)
 *   modelset_series.c  every executed instruction as a series over the runs
 *   modelset_counts.c  count models: total, functions, lines, blocks, scopes
 *   modelset_paths.c   functions whose paths change with the size (libraries):
 *                      their calls, and their mix of lines and blocks
 *   modelset_groups.c  reuse-distance groups and their histogram models
 *   modelset.c         the driver
 *
 * The math (fitting, histogram models) is src/model/; storage is
 * src/db/db_model.c.
 */
#ifndef AUGUR_MODELSET_H
#define AUGUR_MODELSET_H

#include <stdint.h>
#include <stdio.h>

#include "db/db.h"
#include "model/model.h"
#include "modelset/builds.h"
#include "report/report.h"

typedef struct modelset_options {
    const int64_t *runs; /* runs to fit over; NULL: every complete run */
    size_t nruns;
    const char *const *params; /* parameters to model; NULL: every one that varies */
    int nparams;
    const char *const *basis; /* user basis terms, as text */
    int nbasis;
    const scope_tree *program; /* the program's stored structure, or NULL: no scope models, no groups */
    FILE *progress;            /* progress lines, or NULL */
    int progress_counts;       /* progress is a terminal: also counts of the groups fitted, in place */
    int jobs;                  /* threads that fit (>= 1; the stored set is the same for any number) */
    const char *phase;         /* a set of one phase: its name (runs are that phase's interval runs); else NULL */
    int64_t parent_set;        /* with phase: the set of the whole runs it belongs to */
    int static_basis;          /* --basis static: scopes of the stored static model also fitted on its formulas */
} modelset_options;

/* A program as a run ran it: its main module. */
typedef struct ms_program {
    char *path, *build_id;
    int64_t module_id;
} ms_program;

/* The training runs: the points every series is fitted on. */
typedef struct ms_runs {
    size_t n;
    int64_t *ids;
    int nparams;
    char *names[MODEL_MAX_PARAMS];
    double *x; /* x[r * nparams + k]: parameter k of run r */
    double lo[MODEL_MAX_PARAMS], hi[MODEL_MAX_PARAMS];
    char *program;    /* path of the main module of the reference build */
    int64_t program_module; /* its modules.id */
    size_t nbuilds;   /* builds of the program the runs ran: 1, or more (modelset_builds.c) */
    ms_program *builds; /* the reference first: the build of the newest run */
    size_t *run_build;  /* per run: the index of its build */
    int nblock_sizes; /* block sizes every run measured */
    uint32_t block_sizes[PROFILE_MAX_BLOCK_SIZES];
} ms_runs;

/* Select and check the runs (modelset_runs.c).  -1 with a message when
 * they cannot be modeled: fewer than 3, a run without a modeled parameter,
 * runs that differ in a parameter that is not modeled, a run whose program
 * is unknown.  Runs repeating another run's parameters are dropped, the
 * newest kept, with a note on o->progress.  Runs of several builds are
 * grouped by build (out->builds); whether those can be modeled together is
 * ms_builds_load's to say. */
int ms_runs_select(db *d, const modelset_options *o, ms_runs *out, char *err, size_t errlen);
void ms_runs_free(ms_runs *r);

/* One build of a model set across builds: its stored structure and
 * compilation units, and how it matches the reference (build 0). */
typedef struct ms_build {
    scope_tree tree;
    st_unit *units;
    size_t nunits;
    int64_t *of_ref;     /* per scope of the reference: this build's matched scope, or -1 */
    int64_t *ref_of;     /* per scope of this build: the reference's, or -1 */
    build_insn_map *map; /* this build's matched instructions, ascending addr */
    size_t nmap;
} ms_build;

typedef struct ms_builds {
    size_t n;
    ms_build *b;            /* as ms_runs.builds: the reference first */
    unsigned char *modeled; /* per scope of the reference: matched in every build */
    char **unmatched;       /* the outermost scopes left out, as sentences */
    size_t nunmatched;
} ms_builds;

/* The builds of runs (runs->nbuilds > 1) read, compared and matched
 * (modelset_builds.c).  -1 with a message naming the builds and the
 * difference when they are not builds of one source with the same flags
 * (-D/-U aside), when a build has no debug information, or when a build's
 * structure is not stored.  Free with ms_builds_free, also after failure. */
int ms_builds_load(db *d, const ms_runs *runs, ms_builds *out, char *err, size_t errlen);
void ms_builds_free(ms_builds *bs);

/* The counts of run `run_id`, counted in its build's structure `own`, per
 * scope of the reference (nref scopes): scope s gets own's scope of_ref[s]
 * (none when -1: 0).  A new array (free() it); -1 with a message. */
int ms_counts_in_reference(db *d, int64_t run_id, const scope_tree *own, const int64_t *of_ref, size_t nref,
                           scope_counts **out, char *err, size_t errlen);

/* The counts of run `run_id` per scope of the reference structure `ref`:
 * for a run of ref's build report_scope_counts; for a run of another build
 * of its source, counted in that build's stored structure and moved to the
 * scopes of ref they match (build_match_scopes; the others 0).  A new
 * array (free() it); DB_NOT_FOUND when that build's structure is not
 * stored, -1 with a message. */
int ms_run_scope_counts(db *d, int64_t run_id, const scope_tree *ref, scope_counts **out, char *err, size_t errlen);

/* Addresses from here up stand for the instructions of one source line
 * (function, file, line) that are not matched across builds: their counts
 * go to that line and function; they make no blocks, and their accesses one
 * reuse-distance group. */
#define MS_UNMATCHED_ADDR (UINT64_C(1) << 62)

/* Every executed instruction location over the runs (modelset_series.c). */
typedef struct ms_loc {
    int64_t module_id, function_id, file_id;
    uint32_t line, len;
    uint64_t addr;
} ms_loc;

typedef struct ms_series {
    const ms_runs *runs;
    size_t nlocs;
    ms_loc *locs; /* ascending (module_id, addr) */
    double *exec, *reads, *writes; /* [loc * runs->n + r] */
    double *taken;                 /* conditional branches' taken executions, same layout */
    db_instr **run_ins;  /* per run: its instructions, ascending id */
    size_t *run_nins;
    size_t **run_loc;    /* per run: run_loc[r][i] = location of run_ins[r][i] */
    char **function, **file, **module; /* names of each location, NULL when unknown */
} ms_series;

/* Read every run's instructions into locations.  With builds (NULL for a
 * set of one build), the program's instructions of each run are first
 * moved to the reference build's: a matched instruction to the address and
 * length of the one it stands for, any other to MS_UNMATCHED_ADDR + the
 * index of its (function, file, line). */
int ms_series_load(db *d, const ms_runs *runs, const ms_builds *builds, ms_series *out, char *err, size_t errlen);
void ms_series_free(ms_series *s);

/* A function whose code paths may change with the size (modelset_paths.c,
 * docs/models.md "Library routines: work per call"): of a library (a
 * module other than the program), or with instructions that run in some
 * training runs and not in others. */
typedef struct ms_path_fn {
    int64_t function_id, module_id;
    const char *function, *module; /* the series' names (NULL when unknown) */
    int library;                   /* not of the program's module */
    int switches;                  /* its executed instructions differ between the runs */
    double *calls;                 /* per run: the calls entering it */
    size_t largest;                /* the run where it executed the most instructions */
    double totals[3];              /* its instructions, reads, writes in that run */
    model kept[3];                 /* its fitted models of those (npoints 0: none) */
    double *bytes;                 /* per run r: bytes read bytes[r], written bytes[n + r], from the operand
                                      sizes of its module's file; NULL when that file is gone or another build */
    int per_byte;                  /* its instructions per byte differ between the runs by more than a factor
                                      MS_PATH_RATIO: its path changed inside the training sizes, and its counts
                                      are the largest run's per byte times the bytes (ms_path_per_byte) */
} ms_path_fn;

/* Instructions per byte that change by more than this factor between the
 * training runs are a change of path (glibc's memset: 0.07 with 32-byte
 * vector stores, 1.0 with `rep stosb`, which Valgrind counts per byte). */
#define MS_PATH_RATIO 2.0

typedef struct ms_paths {
    const struct ms_runs *runs;
    size_t n;
    ms_path_fn *fn; /* ascending (function_id, module_id) */
} ms_paths;

/* The functions of s that may switch paths, with their calls per run
 * (db_run_calls, matched by name).  -1 with a message; free with
 * ms_paths_free, also after failure. */
int ms_paths_load(db *d, const struct ms_series *s, ms_paths *out, char *err, size_t errlen);
void ms_paths_free(ms_paths *p);

/* The entry of location l's function, or NULL (p may be NULL). */
ms_path_fn *ms_paths_find(const ms_paths *p, const struct ms_loc *l);

/* 1 when fn was entered by calls in each of the nruns runs (so its counts
 * can be modeled as calls times work per call). */
int ms_path_called(const ms_path_fn *fn, size_t nruns);

/* 1 when fn's lines and blocks take their models from its own (its
 * instructions model kept and neither exact nor constant: blocks fitted
 * alone would extrapolate each its own way, and a block of a path a
 * training run did not take would predict 0). */
int ms_path_distributes(const ms_path_fn *fn);

/* *out = fn's model of metric k (0 instructions, 1 reads, 2 writes) times
 * part / its total of k in its largest run: a part's share of the
 * function's model, as that run mixed them.  -1 when the model is not kept
 * or the total is 0. */
int ms_path_share(const ms_path_fn *fn, int k, double part, model *out);

/* fn's bytes (read and written) in every run into y[0 .. nruns); 0, or -1
 * when they are not known. */
int ms_path_bytes(const ms_path_fn *fn, size_t nruns, double *y);

/* *out = bytes (fn's model of the bytes it reads and writes) times the
 * count `total` of a metric in fn's largest run over its bytes there: the
 * counts per byte of the path the largest run took, for the sizes beyond
 * it, whose calls are given more bytes (glibc's paths switch at lengths).
 * The fit errors are the bytes model's; method MODEL_COMPOSED. */
void ms_path_per_byte(const ms_path_fn *fn, size_t nruns, const model *bytes, double total, model *out);

/* A series that could not be modeled: what it is, for people ("reads of
 * function work (prog)"), and the fitter's reason. */
typedef struct ms_failure {
    char *what, *why;
} ms_failure;

/* A loop inside a count's subject (the subject's own loop included) whose
 * iterations times cost per iteration, with the count outside it exact,
 * may model the count (modelset_nests.c, model_compose_nested). */
typedef struct ms_nest {
    double *trips; /* its header executions per run */
    double *count; /* its count of the job's metric per run */
    int degree;    /* the loop levels nested inside it */
    int own;       /* it is the subject itself (a loop's own count) */
} ms_nest;

/* A count series waiting to be fitted (ms_fit_put) and its model. */
typedef struct ms_job {
    db_model_subject subject; /* its strings are the series' or the structure's, which outlive the job */
    char *metric;
    double *y; /* one value per run */
    double *trips; /* a loop's count: its header executions per run, to try iterations times cost; else NULL */
    int degree;    /* with trips: the loop levels nested inside the loop */
    ms_nest *nests; /* the loops of the subject that may model the count (ms_nests_attach) */
    size_t nnests;
    int preset;    /* m is given (ms_fit_put_model): not fitted */
    model *keep;   /* where to copy the model once fitted, or NULL */
    model_static *st; /* a scope's static terms, tried as its model's form (modelset_static.c), or NULL */
    const ms_path_fn *per_byte; /* a path function whose path changed (ms_path_fn.per_byte): the model is its
                                   bytes' times this count per byte in its largest run; else NULL */
    int whole_powers; /* with one parameter, fitted on c0 and p, p^2, p^3 only (a path function's bytes: the
                         lengths its callers' loops give it) */
    model m;
    double direct_cv; /* the direct fit's leave-one-out error, which a model on static terms must match */
    int fitted; /* model_fit succeeded */
    char *why;  /* it did not: the fitter's reason (NULL when memory ran out) */
} ms_job;

/* What the fitting stage shares: the writer, the options, counters. */
typedef struct ms_fitter {
    db *d;
    const ms_runs *runs;
    const ms_series *series;
    const modelset_options *opts;
    const scope_tree *program; /* the (reference build's) structure, or NULL */
    const ms_builds *builds;   /* NULL for a set of one build */
    ms_paths *paths;           /* the functions whose paths change with the size, or NULL */
    model_options mo;
    db_model_writer *w;
    size_t models;         /* stored */
    ms_failure *failures;  /* not modelable, in the order met */
    size_t nfailures, failures_cap;
    scope_counts **scope_runs; /* per run, the counts of every scope of program (ms_scopes_load), or NULL */
    int *levels;               /* per scope of program, the loop levels inside it */
    ms_job *jobs;          /* series put and not yet flushed */
    size_t njobs, cap;
    char *err;
    size_t errlen;
} ms_fitter;

/* Queue one series (one value per run) to be fitted and stored for
 * subject s by ms_fit_flush; a series that is 0 in every run is left out
 * (a missing model means 0).  0, or -1 when out of memory. */
int ms_fit_put(ms_fitter *f, const db_model_subject *s, const char *metric, const double *y);

/* ms_fit_put for a count of a loop with `degree` loop levels inside and
 * header executions trips[] per run: the model kept is the direct fit, or
 * the loop's iterations times its cost per iteration (model_compose) when
 * the direct fit is neither exact nor constant and the composed model's
 * leave-one-out error is at most the direct one's. */
int ms_fit_put_loop(ms_fitter *f, const db_model_subject *s, const char *metric, const double *y,
                    const double *trips, int degree);

/* Queue model m (not fitted) to be stored for subject s in order with the
 * fitted ones.  0, or -1 when out of memory. */
int ms_fit_put_model(ms_fitter *f, const db_model_subject *s, const char *metric, const model *m);

/* Fit the queued series on f->opts->jobs threads and store them in the
 * order they were put (so the stored set does not depend on the threads);
 * a series that cannot be fitted is recorded in f->failures and skipped.
 * The queue is empty afterwards, also after an error.  0, or -1 on a
 * database error or when memory runs out. */
int ms_fit_flush(ms_fitter *f);

/* Empty the queue without fitting (what an error left in it). */
void ms_fit_clear(ms_fitter *f);

/* Record a series that could not be modeled, with the fitter's reason
 * (modelset_failures.c): a count of subject s, or the reuse-distance group
 * of the locations locs[0 .. nlocs) at block_size.  -1 when memory runs
 * out. */
int ms_fail_count(ms_fitter *f, const db_model_subject *s, const char *metric, const char *why);
int ms_fail_group(ms_fitter *f, uint32_t block_size, const size_t *locs, size_t nlocs, const char *why);
void ms_failures_free(ms_failure *failures, size_t n);

/* The per-run counts of every scope of f->program and the loop levels
 * inside each, into f->scope_runs and f->levels (nothing without a
 * structure); ms_scopes_free frees them.  0, or -1 with a message. */
int ms_scopes_load(ms_fitter *f);
void ms_scopes_free(ms_fitter *f);
/* Give f->jobs[job], a count of scope s (with one parameter), as
 * candidates of iterations times cost per iteration s itself when a loop
 * and the loops under it that hold at least half of its count in every
 * run (modelset_nests.c); ms_nests_attach_function for a function row:
 * the loops of the program's function scope of that name, when module is
 * the program's.  0, or -1 when memory runs out. */
int ms_nests_attach(ms_fitter *f, size_t job, size_t s);
int ms_nests_attach_function(ms_fitter *f, size_t job, const char *function, const char *module);
/* The loops around scope `loop` (itself first, inlined scopes passed
 * through, up to its function), innermost first, for a count whose events
 * all lie inside them (model_compose_enclosing): loop k's header
 * executions in run r into trips[k * nruns + r] and its loop levels inside
 * into degree[k], at most max of them.  Returns how many: 0 without a
 * structure, with several parameters or for no loop; the walk stops at a
 * loop some run never entered. */
size_t ms_nests_enclosing(const ms_fitter *f, int64_t loop, double *trips, int *degree, size_t max);
/* Per scope of the program's structure, 1 for a loop that every run
 * entered and whose trips fit no exact form (model_exact_trips: the data
 * decide them, or they step with the size), else 0; a new array (free()
 * it), NULL without a structure, with several parameters or when memory
 * runs out. */
unsigned char *ms_loops_inexact(const ms_fitter *f);

/* Count models (modelset_counts.c). */
int ms_fit_counts(ms_fitter *f);
int ms_fit_scopes(ms_fitter *f);
/* MPI runs (modelset_comm.c): the bytes sent and received and the calls of
 * the ranks' MPI calls, summed over the ranks, and the largest rank's
 * instructions, as `total` models (MS_COMM_METRICS); nothing unless every
 * run is an MPI run. */
int ms_fit_comm(ms_fitter *f);

/* ---- static terms (modelset_static.c) -------------------------------------- */

struct static_checks;
/* The static model stored for the program's build, paired with its scopes,
 * into *c; -1 with a message naming the fix when there is none. */
int ms_static_load(ms_fitter *f, struct static_checks *c);
/* Give each job of scope s queued from index `first` on the static terms
 * of the source scope it pairs with in c (none when it pairs with none or
 * they have no value at a run).  0, or -1 when memory runs out. */
int ms_static_attach(ms_fitter *f, const struct static_checks *c, size_t s, size_t first);
/* Replace job j's model by the fit on its static terms when that
 * cross-validates at least as well as it and as the direct fit (a model
 * composed through an exact loop may cross-validate worse than the
 * direct fit: the structure chose it); an exact or constant model stays. */
void ms_static_choose(const ms_fitter *f, ms_job *j, const model_series *series);

/* *v = the counter of c that a scope model of `metric` is fitted on
 * (instructions, reads, writes, flops, headers, entries, class:NAME); -1
 * for a metric scopes do not have. */
int ms_scope_metric(const scope_counts *c, const char *metric, uint64_t *v);

/* Reuse-distance group models at every block size of the runs
 * (modelset_groups.c); *ngroups: the groups of all block sizes. */
int ms_fit_groups(ms_fitter *f, size_t *ngroups);

/* What a fit produced. */
typedef struct modelset_summary {
    int64_t set_id;
    size_t runs, models, groups;
    int64_t *run_ids; /* the runs fitted over (`runs` of them) */
    size_t nfailed;
    ms_failure *failed; /* the series that could not be modeled and why */
    int nparams;
    char *params[MODEL_MAX_PARAMS]; /* the modeled parameters, which reasons name by number (1, 2, ...) */
    size_t builds;      /* builds of the program the runs ran */
    char **unmatched;   /* across builds: the scopes left out, as sentences */
    size_t nunmatched;
} modelset_summary;

/* Fit and store a model set (modelset.c), in one transaction.  Free *out
 * with modelset_summary_free, also after failure. */
int modelset_fit(db *d, const modelset_options *o, modelset_summary *out, char *err, size_t errlen);
void modelset_summary_free(modelset_summary *s);

#endif
