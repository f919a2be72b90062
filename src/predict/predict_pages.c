/* predict_pages.c — a prediction's reuse distances at a page size (the TLB
 * levels, first touches of pages: page faults) from its groups' models at
 * the page size bounded by those at the line size: at training sizes an
 * array is a few pages, so the page models' counts are small integers
 * whose rounding their fits chase, and their distances have not reached
 * their large-size regime; the same instructions' line models see 64
 * times the counts (perf_page_dist, docs/performance-model.md, "TLB"). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict_pages.h"

/* Do a and b hold the same instructions: module, loop and members? */
static int same_members(const db_rd_group *a, const db_rd_group *b)
{
    if (a->loop != b->loop || a->nmembers != b->nmembers || !a->module != !b->module ||
        (a->module && strcmp(a->module, b->module)))
        return 0;
    for (size_t k = 0; k < a->nmembers; k++)
        if (a->members[k].addr != b->members[k].addr)
            return 0;
    return 1;
}

ptrdiff_t *predict_page_twins(const db_rd_group *groups, size_t n, uint32_t line)
{
    ptrdiff_t *twin = malloc((n + 1) * sizeof *twin);
    if (!twin)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        twin[i] = -1;
        for (size_t j = 0; groups[i].block_size > line && j < n && twin[i] < 0; j++)
            if (groups[j].block_size == line && same_members(&groups[i], &groups[j]))
                twin[i] = (ptrdiff_t)j;
    }
    return twin;
}

/* Pages first touched at the training run at which a page model is taken
 * as it is: the rounding of an array's ends, a page each, is then 2% of
 * the count or less. */
#define TRUSTED_PAGES 100.0

/* The most a line model's plausible alternatives may part from it at the
 * target (model_spread_at) for its first touches to be taken: snap's
 * source-array fill, 81..375 lines at N = 6..10, got -75 + 6.43 N^(5/4)
 * log2 N, alternatives 136% away at 8x, and 130 pages at N = 80 where the
 * run has 3000. */
#define TRUSTED_SPREAD 0.5

/* Pages first touched at x: the twin's lines first touched there times
 * pages per line at the training run (pages_tx of lines_tx), at most 1. */
static double first_pages(const db_rd_group *twin, const double *x, double pages_tx, double lines_tx)
{
    return rd_model_misses(twin->m, x, UINT64_MAX) * fmin(fmax(pages_tx, 0) / lines_tx, 1);
}

/* Does model m pass through its points by construction, a coefficient a
 * point (the constant and its terms), so that no point checks it? */
static int interpolates(const model *m)
{
    return (size_t)m->nterms + 1 >= m->npoints;
}

int predict_page_dist(const db_rd_group *g, const db_rd_group *twin, const double *x, const double *tx, double reach,
                      perf_rd_dist *out)
{
    double pages_tx = tx ? rd_model_misses(g->m, tx, UINT64_MAX) : 0;
    double lines_tx = tx ? rd_model_misses(twin->m, tx, UINT64_MAX) : 0;
    if (!tx || pages_tx >= TRUSTED_PAGES || interpolates(&twin->m->cold) ||
        model_spread_at(&twin->m->cold, reach) > TRUSTED_SPREAD || !(lines_tx > 0))
        return perf_rd_dist_modeled(g->m, x, out);
    perf_rd_dist page = {0}, line = {0};
    int rc = perf_rd_dist_modeled(g->m, x, &page) == 0 && perf_rd_dist_modeled(twin->m, x, &line) == 0
                 ? perf_page_dist(&page, &line, first_pages(twin, x, pages_tx, lines_tx), out)
                 : -1;
    perf_rd_dist_free(&page);
    perf_rd_dist_free(&line);
    return rc;
}
