/* diff.h — `augur diff`: what changed between two runs, per function and
 * per source line, as cg_diff does for Cachegrind's files (docs/exports.md).
 *
 *   report_diff.c        matching the rows of two reports, the changes
 *   report_diff_write.c  text and JSON
 *
 * A change is B's count minus A's; relative to A.  Functions are matched
 * by name and the file name of their module, lines by file (relative to
 * the run's directory when below it), line and function, so that runs of
 * two builds or two databases compare. */
#ifndef AUGUR_DIFF_H
#define AUGUR_DIFF_H

#include <stdio.h>

#include "report/report.h"

/* What the rows are ordered by: the magnitude of the change of ... */
enum diff_sort { DIFF_BY_INSTRUCTIONS, DIFF_BY_ACCESSES, DIFF_BY_MISSES };

/* A function or line of A, B or both, with its counts in each (zero where
 * it is absent). */
typedef struct diff_row {
    const char *function, *module, *file; /* borrowed from the reports, B's when in both */
    uint32_t line;
    int in_a, in_b;
    report_counts a, b;
} diff_row;

typedef struct report_diff {
    const report *a, *b;       /* borrowed; built with the same caches */
    const char *db_a, *db_b;   /* the databases, for people */
    enum diff_sort sort;
    size_t nfunctions, functions_changed;
    diff_row *functions;       /* changed rows first, largest change first */
    size_t nlines, lines_changed;
    diff_row *lines;
} report_diff;

/* Match the rows of a and b (reports of two runs with the same caches)
 * and order them; DIFF_BY_MISSES orders by the first cache's misses.  -1
 * when memory runs out.  Free with report_diff_free. */
int report_diff_build(const report *a, const report *b, enum diff_sort sort, report_diff *out);
void report_diff_free(report_diff *d);

/* The diff as text (the runs, the totals, the `top` changed functions and
 * lines, 0: all) or as JSON (docs/exports.md); -1 on a write error or when
 * memory runs out. */
int report_diff_write_text(const report_diff *d, size_t top, num_style numbers, FILE *out);
int report_diff_write_json(const report_diff *d, size_t top, FILE *out);

#endif
