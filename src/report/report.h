/* report.h — what `augur report` shows for a run: totals, per-function and
 * per-source-line counts, and the misses of fully-associative LRU caches
 * computed from the reuse-distance histograms; rendered as aligned text
 * tables or as JSON (docs/report.md documents both and the miss formula).
 *
 *   report_cache.c  cache specifications: parsing "SIZE[:LINE]", naming
 *   report_build.c  gathering the numbers from the database
 *   report_text.c   text rendering
 *   report_json.c   JSON rendering
 */
#ifndef AUGUR_REPORT_H
#define AUGUR_REPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "db/db.h"
#include "perf/core_model.h"
#include "structure/structure.h"
#include "util/numfmt.h"

#define REPORT_MAX_CACHES 16
#define REPORT_DEFAULT_LINE 64 /* bytes, when a cache is given as SIZE only */
#define REPORT_DEFAULT_TOP 20  /* rows per table */
#define REPORT_DEFAULT_THRESHOLD 1.0 /* percent of instructions, scope view */
#define REPORT_WRAP_COLUMN 100 /* free text (warnings) is wrapped before this column */
#define REPORT_NAME_WIDTH 40 /* characters of a function name in text tables (st_short_name); JSON: all */

/* A fully-associative LRU cache of size / line lines of `line` bytes. */
typedef struct report_cache {
    uint64_t size; /* bytes, a multiple of line */
    uint32_t line; /* bytes, a power of two: one of the run's block sizes */
} report_cache;

/* ---- caches (report_cache.c) --------------------------------------------- */

/* Parse "SIZE[:LINE]": SIZE as parse_size() takes it (32K, 32KiB, 1M, 1MiB,
 * 8M, plain bytes), LINE likewise and REPORT_DEFAULT_LINE when absent.
 * Returns 0, or -1 with a message saying what is wrong and how to write it. */
int report_cache_parse(const char *spec, report_cache *out, char *err, size_t errlen);

/* Check that the run has histograms for the cache's line size; -1 with a
 * message listing the block sizes the run has. */
int report_cache_check(const report_cache *c, const db_run *run, char *err, size_t errlen);

/* The cache's key in JSON, "SIZE_BYTES:LINE_BYTES", e.g. "65536:64". */
void report_cache_key(const report_cache *c, char *buf, size_t len);

/* A short name for people, e.g. "64KiB:64" or "1000:8". */
void report_cache_label(const report_cache *c, char *buf, size_t len);

/* bytes in the largest binary unit that divides it exactly, "300 MiB",
 * "48 KiB", "1000 bytes", in buf; returns buf. */
const char *report_bytes_text(uint64_t bytes, char *buf, size_t len);

/* ---- data (report_build.c) ----------------------------------------------- */

typedef struct report_counts {
    uint64_t instructions;             /* executed instructions */
    uint64_t reads, writes;            /* memory accesses; accesses = reads + writes */
    double misses[REPORT_MAX_CACHES];  /* per cache of the report, in order */
    /* A prediction's range of misses per cache (docs/models.md,
     * "Uncertainty"), misses_low <= misses <= misses_high; both 0 in a
     * measured report. */
    double misses_low[REPORT_MAX_CACHES], misses_high[REPORT_MAX_CACHES];
    /* A prediction's range of instructions, reads and writes (in that
     * order; docs/models.md, "Uncertainty of counts"); 0 in a measured
     * report. */
    double count_low[3], count_high[3];
} report_counts;

typedef struct report_function {
    char *function; /* NULL: unknown */
    char *module;   /* NULL: code outside any known object */
    report_counts c;
    int startup;    /* hidden start-up or loader code (report_hide_startup) */
} report_function;

typedef struct report_line {
    char *file;     /* NULL: unknown */
    uint32_t line;  /* 0: unknown */
    char *function; /* NULL: unknown */
    report_counts c;
    int startup;    /* as report_function's */
} report_line;

/* What a prediction's lines leave of its total: the total minus the sum
 * of the lines, or for one function name its function rows minus its
 * lines.  A prediction's total is the sum of its functions' models, and
 * every line has a model of its own, fitted separately: where a series is
 * no exact polynomial the two sums differ, and this names by how much. */
typedef struct report_line_gap {
    char *function; /* NULL: the whole program */
    int64_t instructions, reads, writes;
    double misses[REPORT_MAX_CACHES];
} report_line_gap;
/* The start-up and loader code of a report (src/binary/startup.h): the
 * functions, and the lines of functions whose name is start-up code in
 * every module that has one. */
typedef struct report_startup {
    int classified;             /* report_hide_startup was called */
    int hidden;                 /* the rows are marked and last, out of the rankings */
    size_t nfunctions, nlines;  /* start-up rows */
    report_counts c;            /* the start-up functions' counts, summed */
} report_startup;

/* What a predicted report (`augur predict`) shows instead of a run. */
typedef struct report_prediction {
    int64_t set_id;        /* the model set evaluated */
    const char *runs;      /* JSON array of the run ids it was fitted on */
    const char *phase;     /* the phase its runs are (a set of one phase), else NULL */
    int64_t parent_set;    /* with phase: the set of the whole runs it was fitted with */
    size_t nphases;
    const char *const *phases; /* the phases with model sets (augur predict --phase) */
    size_t ntrain;
    const db_run *train;   /* those runs (what each counted: db_run.counted); borrowed */
    int nparams;
    const char *const *names;
    const double *values;  /* the parameters predicted for */
    size_t nwarnings;
    char **warnings;       /* extrapolation notes, for people */
    report_line_gap line_gap;     /* total minus lines */
    size_t ngap_functions;
    report_line_gap *gap_functions; /* the function names with a gap, largest |instructions| first */
} report_prediction;

typedef struct report {
    const db_run *run; /* borrowed: outlives the report; NULL for a prediction */
    const report_prediction *prediction; /* borrowed; set when run is NULL */
    size_t ncaches;
    report_cache caches[REPORT_MAX_CACHES];
    report_counts total;
    size_t nfunctions;
    report_function *functions; /* all, most instructions first */
    size_t nlines;
    report_line *lines;         /* all, most instructions first */
    report_startup startup;     /* zero until report_hide_startup */
} report;

/* Gather the report of `run` (from db_get_run) for the given caches (at most
 * REPORT_MAX_CACHES, each passing report_cache_check).  Functions and lines
 * add up the instructions of all processes of the run; misses are rd_misses()
 * of each instruction's histogram at the cache's line size with the cache's
 * capacity in lines, summed.  Call it between db_read_begin and db_read_end
 * (with db_get_run) for a consistent and fast read.  Free with report_free,
 * also after failure. */
int report_build(db *d, const db_run *run, const report_cache *caches, size_t ncaches, report *out, char *err,
                 size_t errlen);
void report_free(report *r);

/* Names in byte order (strcmp), unknown (NULL) last. */
int report_cmp_names(const char *a, const char *b);

/* Order functions and lines as a report shows them: most instructions
 * first, then most accesses, then by name; rows marked start-up last. */
void report_sort(report *r);

/* Find r's start-up and loader rows and sum them into r->startup; with
 * `hide`, mark them and order them last (report_sort), so that the
 * rankings (report_ranked_functions, _lines) leave them out.  Call it
 * before anything is attached to the rows' order (predict's errors).  -1
 * with a message when memory runs out (report_startup.c). */
int report_hide_startup(report *r, int hide, char *err, size_t errlen);

/* How many rows a ranking shows: all, or those before the hidden start-up
 * rows. */
static inline size_t report_ranked_functions(const report *r)
{
    return r->nfunctions - (r->startup.hidden ? r->startup.nfunctions : 0);
}
static inline size_t report_ranked_lines(const report *r)
{
    return r->nlines - (r->startup.hidden ? r->startup.nlines : 0);
}

/* ---- rendering (report_text.c, report_json.c) ----------------------------
 * `top` limits the rows of each table (functions, lines); 0 shows all.
 * The text writes counts grouped by thousands or plain (`numbers`,
 * util/numfmt.h), and misses as whole numbers.  The writers return 0, or
 * -1 when writing fails. */

int report_write_text(const report *r, size_t top, num_style numbers, FILE *out);

/* The file name of a path (after its last '/'); NULL for NULL. */
const char *report_base_name(const char *path);

/* A source path relative to the run's directory cwd when it lies below
 * it, else the path. */
const char *report_relative_path(const char *path, const char *cwd);

/* A name for each of rows[0..n) that tells it from the others in files
 * that name a function by one string (report_labels.c): its name,
 * "(unknown)" when it has none, with " [MODULE]" (the module's file name,
 * or "no module") when another row shows the same name.  labels[i] gets a
 * new string (free() each); -1 when memory runs out (then all NULL). */
int report_function_labels(const report_function *rows, size_t n, char **labels);

/* "signal N (SIGNAME)" for signal sig, in buf (SIG? for a number with no
 * name); returns buf. */
const char *report_signal_text(int sig, char *buf, size_t len);

/* Write s as a shell would take it as one word: as is when it holds only
 * [A-Za-z0-9_./=:,+@%-], else single-quoted (a ' as '\''). */
void report_shell_word(const char *s, FILE *out);

/* A run's command (runs.command, a JSON array of words) as a shell would
 * take it, words by report_shell_word. */
void report_print_command(const char *command_json, FILE *out);

/* `lead`, then the words of `text`, wrapped before column `width` with
 * continuation lines indented, then a newline: warnings name groups,
 * shares and parameters and can be longer than a terminal is wide. */
void report_print_wrapped(FILE *out, const char *lead, const char *text, int width);

/* For each of runs[0..n) whose histograms were sampled (db_run.sample_rd),
 * a line "  run 3: reuse distances sampled at rate 0.1 ...", wrapped: under
 * a model set's line, as its histogram models are fitted to estimates. */
void report_print_sampled_runs(FILE *out, const db_run *runs, size_t n);

/* The JSON document of docs/report.md; NULL when memory runs out. */
/* {"65536:64": value, ...}: one member per cache of r, keyed as "misses"
 * is (report_cache_key), with value(values[k]) for the k-th cache; NULL
 * when memory runs out. */
json_t *report_caches_json(const report *r, const double *values, json_t *(*value)(double));
json_t *report_json(const report *r, size_t top);

/* The JSON object of a run (a report's "runs" element) and the array of
 * caches (its "caches"); NULL when memory runs out. */
json_t *report_run_json(const db_run *run);
json_t *report_caches_array_json(const report_cache *caches, size_t n);
/* j written to out as the report writers write JSON (indented, reals to
 * 12 digits, a newline after), then released; -1 when j is NULL (out of
 * memory) or writing fails. */
int report_json_dump(json_t *j, FILE *out);


/* ---- scope trees (scope_tree.c, structure_print.c, report_scopes.c) ------ */

/* The stored scope tree of one binary, linked for walking. */
typedef struct scope_tree {
    db_binary binary;
    size_t nscopes;
    db_scope *scopes;     /* scopes[0] is the module; index = scope id */
    uint32_t *first, *count, *child; /* children of s: child[first[s] .. +count[s]), by address */
    uint64_t *inclusive;  /* static instructions, inner scopes included */
} scope_tree;

int scope_tree_load(db *d, int64_t binary_id, scope_tree *t, char *err, size_t errlen);
void scope_tree_free(scope_tree *t);

/* A new JSON object with what identifies a scope in both views: kind,
 * name, file, lines. */
json_t *scope_json_identity(const db_scope *s);

/* `augur structure`: the program -> module -> ... tree of the given
 * binaries (the program first), as indented text or nested JSON
 * (docs/structure.md).  Returns 0, or -1 on a write error. */
int structure_write_text(const char *program, const scope_tree *trees, size_t n, FILE *out);
int structure_write_json(const char *program, const scope_tree *trees, size_t n, FILE *out);

/* `augur structure --machine`: one row per loop of mod with its core
 * model on m (rows from perf_core_module), as a text table
 * (docs/structure.md).  Returns 0, or -1 on a write error. */
int structure_write_core_text(const machine *m, const st_module *mod, const perf_loop_core *rows, size_t n,
                              FILE *out);


/* Counts of one scope in one run, inner scopes included. */
typedef struct scope_counts {
    uint64_t cls[ST_CLASS_COUNT];       /* executions per instruction class (enum st_class) */
    uint64_t cls_flops[ST_CLASS_COUNT]; /* flops per class, lanes counted, FMA twice */
    uint64_t instructions, flops, reads, writes;
    uint64_t headers, back; /* loops: header executions, back-edge traversals */
} scope_counts;

/* The counts of run `run_id` per scope of tree t: (*out)[s] for scope id s,
 * a new array (free() it, also after failure). */
int report_scope_counts(db *d, int64_t run_id, const scope_tree *t, scope_counts **out, char *err, size_t errlen);

/* `augur report --scopes`: the counts of run `run_id` per scope of the
 * given trees, scopes under `threshold` percent of the instructions left
 * out; text (counts written as `numbers` says) or JSON.  -1 with a message
 * on a database or write error. */
int report_scopes_write(db *d, int64_t run_id, const scope_tree *trees, size_t n, double threshold, int json,
                        num_style numbers, FILE *out, char *err, size_t errlen);

#endif
