/* modelset.h — `augur model`'s pipeline: from the runs of a database to a
 * stored model set (docs/models.md).
 *
 *   modelset_runs.c    choosing the runs and the modeled parameters, with
 *                      the errors for what cannot be modeled
 *   modelset_series.c  every executed instruction as a series over the runs
 *   modelset_counts.c  count models: total, functions, lines, blocks, scopes
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
} modelset_options;

/* The training runs: the points every series is fitted on. */
typedef struct ms_runs {
    size_t n;
    int64_t *ids;
    int nparams;
    char *names[MODEL_MAX_PARAMS];
    double *x; /* x[r * nparams + k]: parameter k of run r */
    double lo[MODEL_MAX_PARAMS], hi[MODEL_MAX_PARAMS];
    char *program;    /* path of the main module of every run */
    int64_t program_module; /* its modules.id */
    int nblock_sizes; /* block sizes every run measured */
    uint32_t block_sizes[PROFILE_MAX_BLOCK_SIZES];
} ms_runs;

/* Select and check the runs (modelset_runs.c).  -1 with a message when
 * they cannot be modeled: fewer than 3, a run without a modeled parameter,
 * runs that differ in a parameter that is not modeled, runs of different
 * programs.  Runs repeating another run's parameters are dropped, the
 * newest kept, with a note on o->progress. */
int ms_runs_select(db *d, const modelset_options *o, ms_runs *out, char *err, size_t errlen);
void ms_runs_free(ms_runs *r);

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

int ms_series_load(db *d, const ms_runs *runs, ms_series *out, char *err, size_t errlen);
void ms_series_free(ms_series *s);

/* What the fitting stage shares: the writer, the options, counters. */
typedef struct ms_fitter {
    db *d;
    const ms_runs *runs;
    const ms_series *series;
    const modelset_options *opts;
    model_options mo;
    db_model_writer *w;
    size_t models, failed; /* stored, not modelable */
    char *err;
    size_t errlen;
} ms_fitter;

/* Fit one series (one value per run) and store it for subject s.  A series
 * that cannot be fitted is counted in f->failed and skipped; -1 only on a
 * database error. */
int ms_fit_put(ms_fitter *f, const db_model_subject *s, const char *metric, const double *y);

/* Count models (modelset_counts.c). */
int ms_fit_counts(ms_fitter *f);
int ms_fit_scopes(ms_fitter *f);

/* Reuse-distance group models, one block size (modelset_groups.c). */
int ms_fit_groups(ms_fitter *f, uint32_t block_size, size_t *ngroups);

/* What a fit produced. */
typedef struct modelset_summary {
    int64_t set_id;
    size_t runs, models, failed, groups;
} modelset_summary;

/* Fit and store a model set (modelset.c), in one transaction. */
int modelset_fit(db *d, const modelset_options *o, modelset_summary *out, char *err, size_t errlen);

#endif
