/* cache_model.c — misses of a cache or TLB level from a reuse-distance
 * distribution: the fully-associative cut with the set-associative
 * corrections (binomial for random placement, round-robin for contiguous
 * sweeps, and for strided walks over the sets a stride reaches), and each
 * level's geometry from a machine description (docs/performance-model.md,
 * "Cache misses per level", "Strides", "TLB"). */
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

/* A hit probability of distance d in level L; ctx is the model's own. */
typedef double hit_fn(double d, const perf_level *L, const void *ctx);

/* The mean of hit over bin b's distances: at its one distance when it
 * spans at most one, else by the midpoint rule on SA_POINTS points. */
static double bin_mean_hits(const perf_rd_bin *b, const perf_level *L, hit_fn *hit, const void *ctx)
{
    double width = b->high - b->low;
    if (width <= 1)
        return hit(b->low, L, ctx);
    double sum = 0;
    for (int k = 0; k < SA_POINTS; k++)
        sum += hit(b->low + (k + 0.5) * width / SA_POINTS, L, ctx);
    return sum / SA_POINTS;
}

/* Misses of L over d when each touch hits with probability hit. */
static double misses_by(const perf_rd_dist *d, const perf_level *L, hit_fn *hit, const void *ctx)
{
    double misses = d->cold;
    for (size_t i = 0; i < d->nbins; i++)
        misses += d->bins[i].count * (1 - bin_mean_hits(&d->bins[i], L, hit, ctx));
    return misses;
}

/* perf_hit_probability as a hit_fn. */
static double binomial_hit(double d, const perf_level *L, const void *ctx)
{
    (void)ctx;
    return perf_hit_probability(d, L->sets, L->ways);
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
    return bin_mean_hits(b, L, binomial_hit, NULL);
}

/* The share of n lines dealt round-robin into `sets` sets (real: sets
 * filled as evenly as n / sets per set on average) that lie in sets
 * holding at most `ways` of them: q = floor(n / sets) lines in each set,
 * one more in r = n - q * sets of them. */
static double round_robin_hit(double n, double sets, double ways)
{
    double q = floor(n / sets), r = n - q * sets;
    if (q + (r > 0) <= ways)
        return 1;
    if (q > ways)
        return 0;
    return (sets - r) * q / n; /* q == ways: the lines of the sets that got no extra one hit */
}

double perf_contiguous_hit(double d, double sets, double ways)
{
    double n = floor(d) + 1, S = floor(sets), W = floor(ways);
    if (S <= 1)
        return n <= W ? 1 : 0;
    return round_robin_hit(n, S, W);
}

/* perf_contiguous_hit as a hit_fn. */
static double contiguous_hit(double d, const perf_level *L, const void *ctx)
{
    (void)ctx;
    return perf_contiguous_hit(d, L->sets, L->ways);
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
    return misses_by(d, L, contiguous_hit, NULL);
}

/* ---- strides -------------------------------------------------------------------- */

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

double perf_stride_sets(double stride, uint32_t block, double sets)
{
    double S = floor(sets), s = fabs(round(stride));
    if (S <= 1 || s < block || s > 0x1p62)
        return S < 1 ? 1 : S;
    /* i * s mod (S * block) runs over the multiples of g below S * block:
     * one in every set when g <= block, else one in every g / block sets */
    uint64_t span = (uint64_t)S * block, g = gcd((uint64_t)s, span);
    return g <= block ? S : (double)(span / g);
}

double perf_strided_hit(double d, const perf_level *L, double stream_sets, double run)
{
    double n = floor(d) + 1, S = floor(L->sets), W = floor(L->ways);
    if (stream_sets >= S || S <= 1)
        return perf_contiguous_hit(d, L->sets, L->ways);
    run = fmax(run, 1);
    double own = fmin(n, run), other = n - own;
    /* whole runs of the walk beyond its own fill the other cosets of its
     * sets first (a run shifted by a line lands on other sets) */
    double runs = fmin(floor(other / run), S / stream_sets - 1);
    double per_set = own / stream_sets + (other - runs * run) / S;
    return round_robin_hit(n, n / per_set, W);
}

double perf_strided_capacity(const perf_level *L, double stream_sets, double run)
{
    double S = floor(L->sets), W = floor(L->ways);
    return stream_sets < S && fmax(run, 1) / stream_sets > W ? stream_sets * W : S * W;
}

double perf_pow2_narrow_share(const double *share, int first_shift, int nclasses, const perf_level *L)
{
    double narrow = 0;
    for (int k = 0; k < nclasses; k++)
        if (share[k] > 0 && perf_stride_sets(ldexp(1, first_shift + k), L->block, L->sets) < floor(L->sets))
            narrow += share[k];
    return fmin(narrow, 1);
}

double perf_pow2_conflict_high(const perf_rd_dist *d, const perf_level *L, double footprint, double misses,
                               double narrow)
{
    if (footprint <= floor(L->sets) * floor(L->ways))
        return misses;
    double touches = d->cold;
    for (size_t k = 0; k < d->nbins; k++)
        touches += d->bins[k].count;
    return misses + narrow * fmax(touches - misses, 0);
}

/* Buckets per power of two of the span histogram (walk_span). */
#define SPAN_STEPS 8

/* The bins of d from distance 1 on (at distance 0 a line was just
 * touched, not walked back to) in ascending order, given to the classes of
 * share[0..nclasses) from the largest down, share[k] times d's accesses
 * each: calls each(bin, k, touches, ctx) for every part so given, then
 * each(bin, -1, rest, ctx) for the rest of a bin (no class left, or
 * distance 0). */
typedef void couple_fn(const perf_rd_bin *b, int k, double touches, void *ctx);

static void couple_classes(const perf_rd_dist *d, const double *share, int nclasses, couple_fn *each, void *ctx)
{
    double accesses = perf_rd_dist_accesses(d);
    int k = nclasses - 1;
    double left = k >= 0 ? share[k] * accesses : 0; /* class k's accesses not yet given a distance */
    for (size_t i = 0; i < d->nbins; i++) {
        const perf_rd_bin *b = &d->bins[i];
        double rest = b->count;
        while (rest > 0 && k >= 0 && b->low >= 1) {
            double take = fmin(rest, left);
            if (take > 0)
                each(b, k, take, ctx);
            rest -= take;
            if ((left -= take) <= 0 && --k >= 0)
                left = share[k] * accesses;
        }
        if (rest > 0)
            each(b, -1, rest, ctx);
    }
}

/* log2 of the lines a touch at the middle of bin b comes back after. */
static double log2_lines(const perf_rd_bin *b)
{
    return log2(floor((b->low + b->high) / 2) + 1);
}

/* The touches of each class by log2 of lines times stride (bytes), in
 * SPAN_STEPS buckets a power of two, for perf_pow2_span. */
typedef struct span_hist {
    int first_shift;
    double count[64 * SPAN_STEPS], total;
} span_hist;

/* couple_classes' each: touches given class k into the span histogram. */
static void add_span(const perf_rd_bin *b, int k, double touches, void *ctx)
{
    span_hist *h = ctx;
    if (k < 0)
        return;
    int at = (int)lround((log2_lines(b) + h->first_shift + k) * SPAN_STEPS);
    h->count[at < 0 ? 0 : at >= 64 * SPAN_STEPS ? 64 * SPAN_STEPS - 1 : at] += touches;
    h->total += touches;
}

double perf_pow2_span(const perf_rd_dist *d, const double *share, int first_shift, int nclasses)
{
    span_hist h = {.first_shift = first_shift};
    couple_classes(d, share, nclasses, add_span, &h);
    double below = 0;
    for (int i = 0; i < 64 * SPAN_STEPS && h.total > 0; i++)
        if ((below += h.count[i]) >= h.total / 2)
            return (double)i / SPAN_STEPS;
    return -1;
}

/* A group's walks in a level (couple_classes' ctx): log2 of their span
 * in bytes, the most lines of the program any set can hold (its lines
 * over the sets, rounded up: contiguous arrays put no more in one), the
 * level and the misses so far. */
typedef struct walk_reach {
    double log2_span, most, misses;
    const perf_level *L;
} walk_reach;

/* A touch of a walk at distance d: the share of it that hits
 * (perf_level_misses_pow2: its own lines in the sets its stride reaches,
 * the others spread). */
static double walk_hit(double d, const perf_level *L, const void *ctx)
{
    const walk_reach *w = ctx;
    double n = floor(d) + 1, own = exp2(floor(log2(n))), S = floor(L->sets);
    if (n - own >= floor(L->ways))
        own = n;
    double sets = fmax(S * L->block * own / exp2(w->log2_span), 1);
    if (sets >= S)
        return perf_contiguous_hit(d, L->sets, L->ways);
    double per_set = fmin(own / sets + (n - own) / S, w->most);
    return round_robin_hit(n, n / per_set, floor(L->ways));
}

/* couple_classes' each: the misses of a bin's touches, as a walk's
 * returns when given a class, else contiguous. */
static void add_walk_misses(const perf_rd_bin *b, int k, double touches, void *ctx)
{
    walk_reach *w = ctx;
    w->misses += touches * (1 - bin_mean_hits(b, w->L, k >= 0 ? walk_hit : contiguous_hit, w));
}

double perf_level_misses_pow2(const perf_rd_dist *d, const perf_level *L, const double *share, int nclasses,
                              double log2_span, double footprint)
{
    walk_reach w = {.log2_span = log2_span, .most = fmax(ceil(footprint / floor(L->sets)), 1), .misses = d->cold,
                    .L = L};
    if (w.log2_span < 0)
        return perf_level_misses_contiguous(d, L);
    couple_classes(d, share, nclasses, add_walk_misses, &w);
    return w.misses;
}

/* The stream's sets and run length, for strided_hit. */
typedef struct stride_ctx {
    double sets, run;
} stride_ctx;

static double strided_hit(double d, const perf_level *L, const void *ctx)
{
    const stride_ctx *c = ctx;
    return perf_strided_hit(d, L, c->sets, c->run);
}

double perf_level_misses_strided(const perf_rd_dist *d, const perf_level *L, const perf_stride *s)
{
    stride_ctx c = {s ? perf_stride_sets(s->bytes, L->block, L->sets) : L->sets, s ? s->run : 0};
    if (!s || s->bytes == 0 || c.sets >= floor(L->sets))
        return perf_level_misses_contiguous(d, L);
    return misses_by(d, L, strided_hit, &c);
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
                              .sets = (double)t->entries / t->ways, .ways = t->ways,
                              .miss_latency = t->miss_latency, .tlb_level = t->level};
    }
    return m->ntlbs;
}
