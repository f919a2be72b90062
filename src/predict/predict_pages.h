/* predict_pages.h — a prediction's reuse distances at a page size from
 * those of the same instructions at the line size (predict_pages.c). */
#ifndef AUGUR_PREDICT_PAGES_H
#define AUGUR_PREDICT_PAGES_H

#include <stddef.h>

#include "model/model.h"
#include "perf/perf.h"
#include "predict/predict_internal.h"

/* Into a new array (free() it; NULL when memory runs out), for each of
 * groups[0..n): the index of the group at `line` bytes of the same module,
 * loop and member addresses when it is of a larger block (a page), else
 * -1. */
ptrdiff_t *predict_page_twins(const db_rd_group *groups, size_t n, uint32_t line);

/* The distribution of page group g at parameters x into *out (free with
 * perf_rd_dist_free): perf_page_dist of g's model and of its line twin's
 * at x, with the twin's first touches at x times the share of pages per
 * line first touched at the training run tx (the one with the most lines):
 * there a page model holds its training points, and the ratio, pages per
 * line of the arrays swept, is what changes least with the size (1/64 for
 * a sweep at 8 bytes).  g's own model alone where its first touches are
 * not small counts at tx (100 pages or more), or where the twin's are not
 * checked by its points (an interpolation) or its alternatives part from
 * it by more than half at the target, `reach` times beyond the training
 * (predict_reach), and without tx.  -1 when memory runs out. */
int predict_page_dist(const db_rd_group *g, const db_rd_group *twin, const double *x, const double *tx, double reach,
                      perf_rd_dist *out);

#endif
