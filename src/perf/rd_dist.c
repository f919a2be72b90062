/* rd_dist.c — reuse-distance distributions for the cache model: a
 * measured histogram's bins, or a histogram model evaluated at a parameter
 * point, as touches spread evenly over distance intervals
 * (docs/performance-model.md, "Cache misses per level"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf.h"

/* Distances past 2^48 blocks exceed every cache and TLB; a model's tail
 * beyond them is kept as one last interval. */
#define DIST_TOP_BIN (RD_EXACT_BINS + (48u - 4u) * RD_SUBBINS)

int perf_rd_dist_measured(uint64_t cold, const rd_binrec *bins, size_t nbins, perf_rd_dist *out)
{
    *out = (perf_rd_dist){.cold = (double)cold};
    out->bins = malloc((nbins + 1) * sizeof *out->bins);
    if (!out->bins)
        return -1;
    for (size_t i = 0; i < nbins; i++) {
        if (bins[i].count == 0)
            continue;
        double mean = (double)bins[i].sum / (double)bins[i].count;
        out->bins[out->nbins++] = (perf_rd_bin){(double)bins[i].count, mean, mean};
    }
    return 0;
}

int perf_rd_dist_modeled(const rd_model *m, const double *x, perf_rd_dist *out)
{
    double cold = rd_model_misses(m, x, UINT64_MAX);
    *out = (perf_rd_dist){.cold = cold};
    out->bins = malloc((DIST_TOP_BIN + 1) * sizeof *out->bins);
    if (!out->bins)
        return -1;
    double above = rd_model_misses(m, x, 0) - cold; /* touches at distance >= b_k */
    for (unsigned k = 0; k < DIST_TOP_BIN && above > 0; k++) {
        double next = rd_model_misses(m, x, rd_bin_high(k)) - cold;
        double count = above - next;
        if (count > 0)
            out->bins[out->nbins++] = (perf_rd_bin){count, (double)rd_bin_low(k), (double)rd_bin_high(k)};
        above = next;
    }
    if (above > 0) {
        double top = (double)rd_bin_low(DIST_TOP_BIN);
        out->bins[out->nbins++] = (perf_rd_bin){above, top, 2 * top};
    }
    return 0;
}

double perf_rd_dist_accesses(const perf_rd_dist *d)
{
    double n = d->cold;
    for (size_t i = 0; i < d->nbins; i++)
        n += d->bins[i].count;
    return n;
}

void perf_rd_dist_free(perf_rd_dist *d)
{
    free(d->bins);
    memset(d, 0, sizeof *d);
}
