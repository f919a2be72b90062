/* explore_internal.h — what the files of src/explore share: the tables
 * of names the data refers to by index, and the parts of the data
 * document each file builds (explore.h lists the files). */
#ifndef AUGUR_EXPLORE_INTERNAL_H
#define AUGUR_EXPLORE_INTERNAL_H

#include "explore/explore.h"
#include "report/report.h"

/* The data's "functions" table ({name, module}) and "files" table ({path,
 * text, note}), with their lookups: rows name functions and files by
 * index, so that a name is written once however many rows hold it. */
typedef struct explore_names {
    json_t *functions, *function_index; /* array; object "module\x1fname" -> index */
    json_t *files, *file_index;         /* array; object path -> index, embedded files only */
} explore_names;

int explore_names_init(explore_names *n);
void explore_names_free(explore_names *n);

/* The index of (function, module) in n's functions, added when new (NULL
 * names are "(unknown)"); -1 when memory runs out. */
int explore_function_index(explore_names *n, const char *function, const char *module);

/* The index of an embedded source file, or -1 for a file whose text is
 * not in the page (its lines are left out of the line tables). */
int explore_file_index(const explore_names *n, const char *path);

/* The model set as data (explore_models.c): {set, counts, groups}, count
 * models of the total, functions, embedded lines and scopes with their
 * terms, and the reuse-distance groups of the block sizes of `blocks`
 * with their histogram models and members. */
int explore_models_json(db *d, const db_model_set *set, const uint32_t *blocks, size_t nblocks,
                        explore_names *names, json_t **out, char *err, size_t errlen);

/* The machine models' values at one evaluation point on m, compacted
 * from the JSON `augur report --machine` (a run) and `augur predict
 * --machine` (the model set at the parameters x, the set's order) write
 * (explore_points.c): {total, functions, loops}. */
int explore_run_point(db *d, const db_run *run, const scope_tree *t, const machine *m, explore_names *names,
                      json_t **out, char *err, size_t errlen);
int explore_model_point(db *d, const db_model_set *set, const double *x, const machine *m, explore_names *names,
                        json_t **out, char *err, size_t errlen);

/* The fully-associative caches of the machines' cache levels, each once,
 * in order (at most REPORT_MAX_CACHES): the caches of the page's line
 * misses.  Returns how many. */
size_t explore_caches(const machine *machines, size_t nmachines, report_cache *caches);

/* Measured counts of a run (explore_points.c): {functions, lines, scopes,
 * line_misses}: the report's functions and its lines of embedded files,
 * the scopes of t (NULL: none) and, per machine, the fully-associative
 * misses of its cache levels per line. */
int explore_run_counts(db *d, const db_run *run, const scope_tree *t, const machine *machines, size_t nmachines,
                       explore_names *names, json_t **out, char *err, size_t errlen);

/* The "files" table (explore_sources.c): the files of the lines of the
 * runs, each readable one's text embedded within EXPLORE_FILE_MAX_BYTES
 * and EXPLORE_SOURCES_MAX_BYTES in all. */
int explore_sources(db *d, const int64_t *runs, size_t nruns, explore_names *names, char *err, size_t errlen);

/* Per loop of the program's tree t, the run's measured reuse-distance
 * histogram at block size `block` summed over the loop's memory
 * instructions (explore_hist.c): [{scope, cold, bins: [[low, high,
 * count], ...]}]. */
int explore_histograms(db *d, int64_t run_id, const scope_tree *t, uint32_t block, json_t **out, char *err,
                       size_t errlen);

#endif
