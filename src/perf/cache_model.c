/* cache_model.c — misses of a cache or TLB level from a reuse-distance
 * distribution: the fully-associative cut with the set-associative
 * (binomial) correction, and each level's geometry from a machine
 * description (docs/performance-model.md, "Cache misses per level", "TLB"). */
#include <math.h>

#include "perf/perf.h"

/* Points per distance interval of the set-associative mean (midpoint rule). */
#define SA_POINTS 16

/* Tail bounds beyond which P(hit) is 0 or 1 to double precision: the
 * binomial sum is then skipped (it is the cost of the model). */
static int surely_miss(double mu, double ways)
{
    return mu > ways && (mu - ways) * (mu - ways) / (2 * mu) > 40; /* Chernoff, lower tail */
}

static int surely_hit(double mu, double ways)
{
    return mu < ways && ways * log(M_E * mu / ways) - mu < -40; /* P(X >= A) <= (e mu / A)^A e^-mu */
}

double perf_hit_probability(double d, double sets, double ways)
{
    if (sets <= 1)
        return d < ways ? 1 : 0;
    if (d < ways)
        return 1; /* fewer blocks than ways can fall into the set */
    double p = 1 / sets, mu = d * p;
    if (surely_miss(mu, ways))
        return 0;
    if (surely_hit(mu, ways))
        return 1;
    double lg = lgamma(d + 1), lp = log(p), lq = log1p(-p), sum = 0;
    for (double k = 0; k < ways; k++)
        sum += exp(lg - lgamma(k + 1) - lgamma(d - k + 1) + k * lp + (d - k) * lq);
    return fmin(fmax(sum, 0), 1);
}

/* A hit probability of distance d in `sets` sets of `ways` ways. */
typedef double hit_fn(double d, double sets, double ways);

/* The mean of hit over bin b's distances: at its one distance when it
 * spans at most one, else by the midpoint rule on SA_POINTS points. */
static double bin_mean_hits(const perf_rd_bin *b, const perf_level *L, hit_fn *hit)
{
    double width = b->high - b->low;
    if (width <= 1)
        return hit(b->low, L->sets, L->ways);
    double sum = 0;
    for (int k = 0; k < SA_POINTS; k++)
        sum += hit(b->low + (k + 0.5) * width / SA_POINTS, L->sets, L->ways);
    return sum / SA_POINTS;
}

/* Share of the touches of bin b that hit L. */
static double bin_hits(const perf_rd_bin *b, const perf_level *L)
{
    double width = b->high - b->low;
    if (L->sets <= 1) { /* the share below the capacity, exactly */
        if (width <= 0)
            return b->low < L->ways;
        if (b->high <= L->ways)
            return 1;
        return b->low >= L->ways ? 0 : (L->ways - b->low) / width;
    }
    return bin_mean_hits(b, L, perf_hit_probability);
}

double perf_contiguous_hit(double d, double sets, double ways)
{
    double n = floor(d) + 1, S = floor(sets), W = floor(ways);
    if (S <= 1)
        return n <= W ? 1 : 0;
    double q = floor(n / S), r = n - q * S;
    if (q + (r > 0) <= W)
        return 1;
    if (q > W)
        return 0;
    return (S - r) * q / n; /* q == W: the lines of the sets that got no extra one hit */
}

/* Share of the touches of bin b that hit L, by perf_contiguous_hit. */
static double bin_contiguous_hits(const perf_rd_bin *b, const perf_level *L)
{
    return bin_mean_hits(b, L, perf_contiguous_hit);
}

double perf_level_misses(const perf_rd_dist *d, const perf_level *L)
{
    double misses = d->cold;
    for (size_t i = 0; i < d->nbins; i++)
        misses += d->bins[i].count * (1 - bin_hits(&d->bins[i], L));
    return misses;
}

double perf_level_misses_contiguous(const perf_rd_dist *d, const perf_level *L)
{
    double misses = d->cold;
    for (size_t i = 0; i < d->nbins; i++)
        misses += d->bins[i].count * (1 - bin_contiguous_hits(&d->bins[i], L));
    return misses;
}

size_t perf_cache_levels(const machine *m, perf_level *out)
{
    for (uint32_t i = 0; i < m->ncaches; i++) {
        const machine_cache *c = &m->cache[i];
        double sets = (double)c->size / ((double)c->line * c->ways), ways = c->ways;
        if (c->policy == MACHINE_VICTIM && i > 0)
            ways += out[i - 1].sets * out[i - 1].ways * ((double)m->cache[i - 1].line / c->line) / sets;
        out[i] = (perf_level){.name = c->name, .block = c->line, .sets = sets, .ways = ways};
    }
    return m->ncaches;
}

size_t perf_tlb_levels(const machine *m, perf_level *out)
{
    for (uint32_t i = 0; i < m->ntlbs; i++) {
        const machine_tlb *t = &m->tlb[i];
        out[i] = (perf_level){.name = t->name, .block = (uint32_t)t->page_size,
                              .sets = (double)t->entries / t->ways, .ways = t->ways};
    }
    return m->ntlbs;
}
