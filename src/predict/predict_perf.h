/* predict_perf.h — `augur predict --machine`: a prediction's misses per
 * cache and TLB level of a described machine, and its time per loop,
 * function and program (docs/performance-model.md).
 *
 *   predict_perf.c        misses per group, attributed to functions and
 *                         loops; core and memory time per loop; sums
 *   predict_perf_body.c   a loop's body and weights for the core model,
 *                         from the program's structure and block models
 *   predict_perf_print.c  the text tables and the JSON members */
#ifndef AUGUR_PREDICT_PERF_H
#define AUGUR_PREDICT_PERF_H

#include <jansson.h>
#include <stdio.h>

#include "machine/machine.h"
#include "perf/perf.h"
#include "predict/predict.h"

/* The page size whose first touches are page faults: the kernel's base
 * page (no huge pages assumed: malloc'd arrays fault in 4 KiB pages). */
#define PREDICT_PAGE_BYTES 4096u

/* What one piece of code (a loop without its inner loops, or a function's
 * code outside loops) costs. */
typedef struct predict_cost {
    perf_traffic traffic;
    perf_core core;        /* per iteration (outside loops: per instruction) */
    perf_mem mem;
    perf_loop_time time;
} predict_cost;

typedef struct predict_loop {
    int64_t scope;         /* id in the program's structure */
    const predict_scope *s; /* its predicted counts */
    const char *function;  /* borrowed from the structure */
    double instructions;   /* without its inner loops' */
    double mispredicts;    /* of its own conditional branches */
    predict_cost cost;
} predict_loop;

/* A function of the report (same index as prediction.rep.functions). */
typedef struct predict_function_perf {
    double misses[PERF_MAX_LEVELS], tlb_misses[MACHINE_MAX_TLBS];
    double misses_low[PERF_MAX_LEVELS], misses_high[PERF_MAX_LEVELS]; /* their range (ranged only) */
    double page_faults;    /* first touches of 4 KiB pages */
    double fault_cycles;   /* their cost, in its loops and rest */
    double mispredicts, mispredict_cycles; /* branch mispredictions of its loops */
    double loop_instructions;
    predict_cost rest;     /* its code outside the program's loops */
    double cycles, seconds; /* loops + rest */
    int bound;             /* of its most costly part */
} predict_function_perf;

typedef struct predict_perf {
    const machine *m;       /* borrowed */
    size_t nlevels, ntlbs;
    perf_level levels[PERF_MAX_LEVELS], tlbs[MACHINE_MAX_TLBS];
    double misses[PERF_MAX_LEVELS], tlb_misses[MACHINE_MAX_TLBS]; /* program */
    int ranged;                                                    /* a prediction: misses have ranges */
    double misses_low[PERF_MAX_LEVELS], misses_high[PERF_MAX_LEVELS]; /* program (ranged only) */
    double page_faults, fault_cycles;                             /* program */
    double mispredicts, mispredict_cycles;                        /* program */
    double cycles, seconds;
    size_t nloops;
    predict_loop *loops;    /* ascending scope */
    predict_function_perf *functions;
    /* Misses of cache level i on line row k of the prediction's report:
     * line_misses[k * PERF_MAX_LEVELS + i], attributed as to functions. */
    double *line_misses;
    void *structure;        /* st_module of the program (owned) */
} predict_perf;

typedef struct predict_blocks predict_blocks; /* predict_perf_body.h */

/* What the machine models are evaluated from: reuse-distance groups (their
 * members give functions, instructions and shares) with, when `dists` is
 * set, each group's measured distribution (dists[i] for groups[i]; else
 * each group's model at the prediction's parameters) and its measured walk
 * (walks[i], bytes 0 for none; else the group's stride and run models), and
 * the executions of the program's instructions (blocks). */
typedef struct predict_perf_input {
    db_rd_group *groups;
    size_t ngroups;
    perf_rd_dist *dists;
    perf_stride *walks;
    /* per group, its accesses' shares by 2-adic class of their deltas
     * (predict_pow2_shares); NULL: none known */
    double *pow2;
    predict_blocks *blocks;
    /* a measured run's set-local histograms (predict_sets.h): per group
     * (sets[i] for groups[i]), from the table; NULL: none */
    struct predict_sets *sets;
    struct predict_set_table *set_table;
} predict_perf_input;

/* The machine models over p (its report, loop scopes, program and block
 * sizes) with the groups and blocks of `in`; predict_perf_eval and
 * report_perf_eval (a measured run) are this with their inputs.  Errors as
 * predict_perf_eval's. */
int predict_perf_evaluate(db *d, const prediction *p, const machine *m, const predict_perf_input *in,
                          predict_perf *out, char *err, size_t errlen);

/* Evaluate the machine models over prediction p (made with no --cache
 * caches): the reuse-distance groups of p's model set at the machine's line
 * size and at its TLBs' page sizes give misses per level, attributed to
 * functions by member share and to loops through the program's structure
 * (analysed again from the program file); each loop's body on m's core
 * gives its cycles per iteration.  -1 with a message when the machine's
 * line or page size was not measured, or the program cannot be analysed. */
int predict_perf_eval(db *d, const prediction *p, const machine *m, predict_perf *out, char *err, size_t errlen);

/* predict_warn_wide (predict_internal.h) for the levels of pp: one
 * warning in p per cache level whose functions' predicted misses have a
 * wide range; nothing for a measured run.  -1 when memory runs out. */
int predict_warn_wide_levels(prediction *p, const predict_perf *pp);
void predict_perf_free(predict_perf *pp);

/* Text: the levels' misses, the program's time, a table of the loops
 * (iterations, core cycles per iteration, memory cycles, bound, time) and
 * of the functions, `top` rows each.  -1 on a write error. */
int predict_perf_write_text(const prediction *p, const predict_perf *pp, const predict_output *o, FILE *out);

/* Add the machine members to the JSON of report_json + scopes: total and
 * functions get misses per level name, tlb_misses, cycles, time_seconds,
 * bound; loop scopes the same plus every term.  -1 when memory runs out. */
int predict_perf_json(const prediction *p, const predict_perf *pp, json_t *doc);

/* The JSON document prediction_write writes (report_json with `top`
 * rows, the scopes, the models' errors and, when pp is set, the machine's
 * members); NULL when memory runs out.  json_decref it. */
json_t *prediction_json(const prediction *p, const predict_perf *pp, size_t top);

/* The report, the scopes and, when pp is set, the machine's levels and
 * times: text tables or one JSON document (`augur predict`, `augur report
 * --machine`).  -1 on a write error or when memory runs out. */
int prediction_write(const prediction *p, const predict_perf *pp, const predict_output *o, FILE *out);

#endif
