/* page_dist.c — a group's reuse distances at a page size, made to agree
 * with those of the same instructions at the line size: the same accesses,
 * the pages first touched given, and at every distance no more touches at
 * or beyond it than the lines have, since a page is never further back in
 * the LRU stack than a line in it (docs/performance-model.md, "TLB"). */
#include <math.h>
#include <stdlib.h>

#include "perf/perf.h"

double perf_rd_dist_beyond(const perf_rd_dist *d, double distance)
{
    perf_level all = {.sets = 1, .ways = distance};
    return perf_level_misses(d, &all);
}

/* Is bin b wholly below distance q: all of it when `past` (touches at q
 * itself count as below), else all but those at q? */
static int below(const perf_rd_bin *b, double q, int past)
{
    if (b->high > b->low)
        return b->high <= q;
    return past ? b->low <= q : b->low < q;
}

/* S[j] = d's touches (cold included) at q[j] or beyond, or, when `past`,
 * beyond q[j] only; q ascending.  One pass over the bins. */
static void survival(const perf_rd_dist *d, const double *q, size_t n, int past, double *S)
{
    double total = perf_rd_dist_accesses(d), under = 0;
    size_t i = 0;
    for (size_t j = 0; j < n; j++) {
        while (i < d->nbins && below(&d->bins[i], q[j], past))
            under += d->bins[i++].count;
        double part = 0;
        if (i < d->nbins && d->bins[i].high > d->bins[i].low && d->bins[i].low < q[j])
            part = d->bins[i].count * (q[j] - d->bins[i].low) / (d->bins[i].high - d->bins[i].low);
        S[j] = total - under - part;
    }
}

static int ascending(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The distances where a or b change: 0 and their bins' ends, ascending,
 * each once, into a new array (*n of them); NULL when memory runs out. */
static double *breakpoints(const perf_rd_dist *a, const perf_rd_dist *b, size_t *n)
{
    double *q = malloc((2 * (a->nbins + b->nbins) + 1) * sizeof *q);
    if (!q)
        return NULL;
    size_t m = 0;
    q[m++] = 0;
    for (size_t k = 0; k < a->nbins; k++) {
        q[m++] = a->bins[k].low;
        q[m++] = a->bins[k].high;
    }
    for (size_t k = 0; k < b->nbins; k++) {
        q[m++] = b->bins[k].low;
        q[m++] = b->bins[k].high;
    }
    qsort(q, m, sizeof *q, ascending);
    *n = 0;
    for (size_t k = 0; k < m; k++)
        if (*n == 0 || q[k] > q[*n - 1])
            q[(*n)++] = q[k];
    return q;
}

/* out's bins from the pointwise least of a's and b's touches at or beyond
 * (S) and beyond (T) each breakpoint q: the touches at q itself, S - T,
 * and those between q and the next, T there less S at the next, spread
 * evenly; the least of two such counts falls as both do, so none is
 * negative.  The last breakpoint is a bin's end, beyond which only cold
 * touches lie. */
static int least_of(const perf_rd_dist *a, const perf_rd_dist *b, perf_rd_dist *out)
{
    size_t n = 0;
    double *q = breakpoints(a, b, &n);
    double *S = malloc(4 * (n + 1) * sizeof *S);
    out->bins = malloc((2 * n + 1) * sizeof *out->bins);
    if (!q || !S || !out->bins) {
        free(q);
        free(S);
        perf_rd_dist_free(out);
        return -1;
    }
    double *Sb = S + n, *T = S + 2 * n, *Tb = S + 3 * n;
    survival(a, q, n, 0, S);
    survival(b, q, n, 0, Sb);
    survival(a, q, n, 1, T);
    survival(b, q, n, 1, Tb);
    for (size_t j = 0; j < n; j++) {
        double at = fmin(S[j], Sb[j]), past = fmin(T[j], Tb[j]);
        double next = j + 1 < n ? fmin(S[j + 1], Sb[j + 1]) : out->cold;
        if (at - past > 0)
            out->bins[out->nbins++] = (perf_rd_bin){at - past, q[j], q[j]};
        if (past - next > 0 && j + 1 < n)
            out->bins[out->nbins++] = (perf_rd_bin){past - next, q[j], q[j + 1]};
    }
    free(q);
    free(S);
    return 0;
}

int perf_page_dist(const perf_rd_dist *page, const perf_rd_dist *line, double cold, perf_rd_dist *out)
{
    double accesses = perf_rd_dist_accesses(line), had = perf_rd_dist_accesses(page) - page->cold;
    *out = (perf_rd_dist){.cold = fmin(fmax(cold, 0), line->cold)};
    double touches = fmax(accesses - out->cold, 0);
    perf_rd_bin zero = {touches, 0, 0};
    perf_rd_dist scaled = {.cold = out->cold, .nbins = had > 0 ? page->nbins : 1,
                           .bins = had > 0 ? malloc((page->nbins + 1) * sizeof *scaled.bins) : &zero};
    if (!scaled.bins)
        return -1;
    for (size_t k = 0; had > 0 && k < page->nbins; k++)
        scaled.bins[k] = (perf_rd_bin){page->bins[k].count * touches / had, page->bins[k].low, page->bins[k].high};
    int rc = least_of(&scaled, line, out);
    if (had > 0)
        free(scaled.bins);
    return rc;
}
