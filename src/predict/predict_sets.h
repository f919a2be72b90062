/* predict_sets.h — a measured run's set-local histograms (schema 18) for the
 * machine models: a level whose set count was recorded gets its misses from
 * them exactly, as an LRU set-associative cache of its geometry would miss
 * (docs/performance-model.md, "Set-local distances"). */
#ifndef AUGUR_PREDICT_SETS_H
#define AUGUR_PREDICT_SETS_H

#include "db/db.h"
#include "perf/perf.h"

/* One instruction's set-local histogram at one set count. */
typedef struct predict_set_hist {
    uint32_t sets;
    uint64_t far; /* touches beyond the ways recorded, and first touches */
    size_t nbins;
    rd_binrec *bins;
} predict_set_hist;

/* A group's set-local histograms (borrowed from a predict_set_table). */
typedef struct predict_sets {
    unsigned n;
    const predict_set_hist *h[PROFILE_MAX_SET_COUNTS];
} predict_sets;

/* Every set-local histogram of a run, per set count by instruction id. */
typedef struct predict_set_table {
    unsigned n;
    uint32_t ways; /* the distances recorded: 0..ways-1 */
    struct set_rows {
        size_t n, cap;
        int64_t *ids; /* ascending */
        predict_set_hist *h;
    } rows[PROFILE_MAX_SET_COUNTS];
} predict_set_table;

/* Read the run's set-local histograms into *t (empty for a run without
 * them).  0, or -1 with the reason in err. */
int predict_set_table_load(db *d, const db_run *run, predict_set_table *t, char *err, size_t errlen);

/* The histograms of instruction `instr` into *out (n 0: none). */
void predict_set_table_find(const predict_set_table *t, int64_t instr, predict_sets *out);

void predict_set_table_free(predict_set_table *t);

/* Whether s (NULL: none) has L's set count at a ways count the table
 * recorded (ways <= `ways`), 64-byte lines: then 1 and *misses, the touches
 * at set-local distance >= L's ways and the far ones; else 0. */
int predict_sets_misses(const predict_sets *s, uint32_t ways, const perf_level *L, double *misses);

#endif
