/* export.h — `augur export`: the counts of many runs for other tools
 * (docs/exports.md):
 *
 *   report_export.c   choosing the runs and building their reports
 *   export_extrap.c   Extra-P's text input format: one metric per count,
 *                     a region per function, the runs' parameters as
 *                     points and repeated runs as repetitions
 *   export_csv.c      a flat table (RFC 4180) of runs x scopes x metrics
 */
#ifndef AUGUR_EXPORT_H
#define AUGUR_EXPORT_H

#include <stdio.h>

#include "report/report.h"

/* Extra-P's text format takes at most this many parameters. */
#define EXPORT_EXTRAP_MAX_PARAMS 4

/* The runs exported and their reports (every row, the same caches). */
typedef struct export_set {
    size_t nruns;
    db_run *runs;  /* ascending id */
    report *reps;  /* reps[i] of runs[i] */
    size_t ncaches;
    report_cache caches[REPORT_MAX_CACHES];
} export_set;

/* Read runs `ids` (n of them; n == 0: every complete run whose program
 * exited with status 0) and build their reports for the caches given, or
 * when none is, --cache 32K and 1M when every run measured 64-byte blocks.
 * -1 with a message naming the problem and the fix: no runs, an unknown
 * run, no run left, a line size a run did not measure.  Call it between
 * db_read_begin and db_read_end.  Free with export_set_free, also after
 * failure. */
int export_set_load(db *d, const int64_t *ids, size_t n, const report_cache *caches, size_t ncaches, export_set *out,
                    char *err, size_t errlen);
void export_set_free(export_set *s);

/* Extra-P's text format (export_extrap.c): the parameters that vary over
 * the runs (every one when none varies), a point per distinct value
 * tuple, and per metric (instructions, reads, writes, accesses, misses per
 * cache) a region for the program and for each function with one DATA
 * line per point, a value per run.  -1 with a message when the runs cannot
 * be one experiment (no parameters, not the same ones, more than
 * EXPORT_EXTRAP_MAX_PARAMS varying) or writing fails. */
int export_extrap(const export_set *s, const char *db_path, FILE *out, char *err, size_t errlen);

/* The CSV table (export_csv.c): a header, then one record per run, scope
 * (program, function, line) and metric, CRLF line ends, fields quoted as
 * RFC 4180 says.  -1 with a message when writing fails. */
int export_csv(const export_set *s, FILE *out, char *err, size_t errlen);

/* Misses as both formats write them: whole, or where a capacity falls
 * inside a histogram bin to one decimal (the bin's split is no more
 * precise); into buf (at least 48 bytes), returned. */
const char *export_misses(double v, char *buf);

/* A parameter value in plain decimal notation (Extra-P's numbers have no
 * exponent), 15 significant digits at most; into buf (at least 64 bytes),
 * returned. */
const char *export_param(double v, char *buf);

/* The metrics of both formats, for row counts c of set s: name k of
 * EXPORT_NMETRICS(s) ("instructions", "reads", "writes", "accesses", then
 * one "misses" per cache) and its value written into buf (at least 48
 * bytes).  *cache gets the cache of a misses metric, else NULL. */
#define EXPORT_NMETRICS(s) (4 + (s)->ncaches)
const char *export_metric(const export_set *s, size_t k, const report_counts *c, char *buf,
                          const report_cache **cache);

#endif
