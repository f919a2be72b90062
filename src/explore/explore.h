/* explore.h — `augur explore`: one self-contained HTML page of a
 * database's runs, models and predictions (docs/explore.md).
 *
 *   explore.c          the driver: the data document the page reads
 *   explore_models.c   the model set as data the page evaluates: count
 *                      models' terms, reuse-distance group models
 *   explore_points.c   what the C models give at a run or a parameter
 *                      point on each machine (the JSON of `augur report
 *                      --machine` and `augur predict --machine`, compacted)
 *   explore_sources.c  the program's source files, within size limits
 *   explore_hist.c     measured reuse-distance histograms per loop
 *   explore_html.c     the page: template, styles, scripts and data inlined
 *
 * Every number the page shows comes from the C code: measured counts and
 * the machine models' values from the report and predict stages, and the
 * models' formulas as stored data, which the page evaluates with the same
 * arithmetic as src/model (tested against `augur predict`).
 */
#ifndef AUGUR_EXPLORE_H
#define AUGUR_EXPLORE_H

#include <jansson.h>
#include <stdio.h>

#include "db/db.h"
#include "machine/machine.h"

#define EXPLORE_FORMAT "augur-explore 1" /* data.format: what the page's script reads */
#define EXPLORE_DEFAULT_MACHINE "zen4"
#define EXPLORE_DEFAULT_GRID 13          /* points per parameter of the precomputed machine grid */
#define EXPLORE_MAX_GRID 64
#define EXPLORE_GRID_REACH 16.0          /* the grid runs to this times the largest fitted value */
#define EXPLORE_FILE_MAX_BYTES (1u << 20)   /* a source file larger than this is not embedded */
#define EXPLORE_SOURCES_MAX_BYTES (4u << 20) /* nor files beyond this much source in all */
#define EXPLORE_MEMSPY_ROWS 50              /* rows of each memspy ranking kept */

struct scope_tree;

/* A run to show, with the program's scope tree as it ran (the CLI
 * analyses it; NULL when the binary is gone or was rebuilt: the run's
 * scopes, loops and times are then left out, and the page says so). */
typedef struct explore_run {
    int64_t id;
    const struct scope_tree *tree;
} explore_run;

typedef struct explore_options {
    const explore_run *runs; /* ascending id; at least one */
    size_t nruns;
    const machine *machines; /* at least one */
    size_t nmachines;
    json_t *memspy;   /* a memspy JSON report (borrowed), or NULL */
    size_t grid;      /* points per parameter of the machine grid (2..EXPLORE_MAX_GRID) */
    FILE *progress;   /* progress lines, or NULL */
} explore_options;

/* The data document of the page (docs/explore.md, "Data"): runs, the
 * program's scopes and sources, measured counts and machine values per
 * run, the newest model set as evaluable data with machine values on a
 * grid of parameter values, and the memspy report.  A database without
 * models gives a document whose "models" is null and whose notes say what
 * to run.  -1 with a message
 * naming the problem and the fix. */
int explore_build(db *d, const explore_options *o, json_t **out, char *err, size_t errlen);

/* The memspy report at path, checked to be one (program, total, pairs,
 * data_objects and code_objects present), with the first
 * EXPLORE_MEMSPY_ROWS rows of each ranking; -1 with a message. */
int explore_memspy_load(const char *path, json_t **out, char *err, size_t errlen);

/* Write the page: the HTML template with the styles, uPlot and the page's
 * script inlined and `data` embedded as JSON (every '<' escaped, so no
 * string in it can close the script element).  -1 on a write error or
 * when memory runs out. */
int explore_write_html(const json_t *data, FILE *out);

#endif
