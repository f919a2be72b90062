/* rd_model.c — models of one group's reuse-distance histogram as functions
 * of the run parameters, and the misses they predict at sizes never run
 * (docs/models.md; the seed method of Marin & Mellor-Crummey, notes 000 §3.9
 * and 002 §3.5).
 *
 * Input: npoints >= 3 training histograms at parameter points x_s, each a
 * cold count cold_s and sparse bins (count, sum of distances).  Let
 * T_s = sum of the bin counts (the non-cold touches) at point s.
 *
 * 1. Counts.  cold(x) = model_fit of cold_s and touches(x) = model_fit of
 *    T_s, both with integer_counts = 1 (and without evidenced_growth,
 *    which is the distances'; modelset_groups.c may then compose the
 *    touches through the loops around the group).
 *
 * 2. Leading constant bins (spatial reuse in the innermost loop, e.g. 7/8 of
 *    a stride-1 double sweep at distance 0).  The exact bins (distance
 *    d < 16, one distance each) are walked from d = 0 upward over the union
 *    of the non-empty bins:
 *      - a bin empty at every point does not exist in the union: skipped;
 *      - a bin whose share count_s/T_s is below LEAD_MIN_SHARE (1%) at every
 *        point is noise: it stays in the rest and the walk goes on;
 *      - a bin non-empty at every point with a share >= 1% at some point is
 *        a leading bin of distance d;
 *      - any other bin (significant somewhere, empty somewhere: its distance
 *        moves with size) ends the walk, as does the first inexact bin;
 *      - so does a significant bin whose count does not grow with the
 *        touches (at the point with the most touches, at most its count at
 *        the point with the fewest, the touches having grown at least 2x):
 *        a fixed number of touches is not a share of the loop's, but the
 *        low tail of distances that spread with size (an LU update's
 *        pivot-row reuse, 8d^2 touches at each d <= N/4 whatever N; as
 *        leads up to d = 12 they left in the rest a tail whose quantiles
 *        were noise at N = 40 and were fitted with N^3 edges).
 *    Beyond the exact bins, every bin whose touches lie at one whole
 *    distance D, the same at every point (sum = D * count), with a share
 *    >= 1% somewhere is a leading bin of distance D too (at most 16 of
 *    them, after the exact ones): rows a fixed number of lines apart.
 *    Leading bin i keeps the model of the *cumulative* share
 *        F_i(x) = model_fit of (sum_{j<=i} count_j,s) / T_s
 *    (integer_counts = 0), and holds F_i - F_{i-1} of the touches.  Row
 *    alignment moves touches between adjacent distances as the size
 *    changes (a stencil load: 62%/25% at distances 3/4 when rows are not a
 *    multiple of a block long, 75%/12.5% when they are), so each bin's own
 *    share jumps between sizes while their sum rises smoothly to its limit
 *    (0.8733 ... 0.8747 towards 7/8); fitted one by one, the shares were
 *    extrapolated to a sum 5% off, and the rest, which holds the misses,
 *    by 35%.
 *
 * 3. The rest, R_s = T_s - (leading counts), as a quantile function Q_s(u),
 *    u in [0,1] (u = rank of a touch among the rest / R_s, distances
 *    ascending).  Each remaining bin occupies a u-interval of width
 *    count/R_s, over which Q is the bin's mean distance sum/count (a
 *    constant piece; an exact bin: Q = d; a bin whose sum overflowed so
 *    that the mean falls outside it: Q rises linearly over [low, high)).
 *    A slice's low and high edges ignore a piece it overlaps by less than
 *    half a touch (a sliver left by rounding in u).  Slices [u0,u1] of the
 *    u-range are the same at every point (the seed's "ratio between the
 *    number of references in the two partitions is the same across all
 *    problem sizes").  Per slice,
 *    three models over the points with a rest (integer_counts = 0):
 *      low(x)  from Q_s(u0) (right limit),  high(x) from Q_s(u1) (left limit),
 *      mean(x) from (1/(u1-u0)) * integral of Q_s over [u0,u1].
 *    Recursive split, starting from [0,1] at depth 0:
 *      - split point: at each point s whose slice spans a range a < b
 *        (a = Q_s(u0), b = Q_s(u1)) the middle distance is
 *            m_s = 2^((log2(a+1) + log2(b+1)) / 2) - 1   if b+1 > 2(a+1),
 *            m_s = (a + b) / 2                             otherwise,
 *        (halving the range in log distance when it spans more than a factor
 *        of two, linearly otherwise), and u_s = F_s(m_s), the share of the
 *        rest with Q_s < m_s (clamped into [u0,u1]).  The split is
 *        u* = sum_s w_s u_s / sum_s w_s with w_s = log2((b+1)/(a+1)): "the
 *        two subsets cover equal parts of the remaining range of reuse
 *        distances", the points where the slice spans the widest range
 *        having the most say (where it is nearly one distance, any split
 *        halves it; where it holds a jump between two groups of distances,
 *        the split should fall on the jump).
 *      - a slice is a leaf when depth = MAX_DEPTH (12); or it holds less than
 *        1/512 of the touches ((u1-u0) R_s / T_s < 1/512) at every point; or
 *        no point has a range (a = b everywhere: one distance); or u* falls
 *        within 1e-9 of u0 or u1; or the mean models of the two halves
 *        [u0,u*] and [u*,u1] agree AND the slice is narrow or thin.
 *        Narrow: it spans at most a factor of two at every point,
 *        b+1 <= 2(a+1).  Thin: it holds less than 1/64 of the touches at
 *        every point.  A slice neither narrow nor thin is split without
 *        fitting its halves; the 1/64 bounds the number of such forced
 *        splits on irregular histograms.  (The narrowness
 *        clause is ours: when the groups' shares drift slightly with size,
 *        a slice can hold a sliver of a far group at some sizes; its mean
 *        hardly moves but its high edge leaps, and the even spread from low
 *        to high then puts many touches at distances none of them have.
 *        One histogram bin spans at most 9/8, so single distances stay one
 *        slice.)
 *      - two models agree when at every training point and at the point
 *        8x the largest training coordinates (each coordinate 8 * its
 *        maximum) their values differ by less than 10% of the larger
 *        magnitude, or by less than half a block (|f-g| < 0.5: distances are
 *        integers).  Non-finite values never agree.
 *    Coalescing: the leaves, in ascending u, are merged left to right: while
 *    a slice's mean model agrees with its right neighbour's and their union
 *    is narrow (as above), the two become one slice (models refitted over
 *    the union), which is then compared with the next.
 *    Degenerate rests: no slices when R_s = 0 at every point; when fewer
 *    than 3 points have a rest, one slice [0,1] with constant models (the
 *    averages of the points that have one).
 *
 * 3b. One term set for the group (one parameter p, 4 or more points with a
 *    rest).  The slices found above are refitted, all with one set of
 *    terms S: each of their low, high and mean series gets c0 plus the
 *    subset of S that model_fit's rules choose (options.only: lowest
 *    leave-one-out SMAPE, an extra term must halve it), so a slice that is
 *    a constant stays one.  S is chosen among every set of one, two or
 *    three (at most npoints - 2) of the base terms p, p^2, p^3, p log2 p
 *    (when every p >= 1) and the user's basis terms over p, by the group's
 *    leave-one-out error  sum over slices of (u1 - u0) (cv_low + cv_high +
 *    cv_mean);  a set within 1% of the best with fewer terms wins.  Then
 *    each series whose subset of S is not the group's commonest takes the
 *    commonest unless its own fits twice as well (common_form).  (A
 *    merge sort's distance quantiles grow as fractional powers N^u, which
 *    no set of whole powers fits: docs/models.md, measured accuracy.)  The
 *    distances of one loop nest grow with its trip counts, so a group's
 *    slices share their terms (N, N^2, N^3 for a 3-D stencil); chosen
 *    slice by slice from Extra-P's 57 forms over five points, exponents
 *    such as N^(5/3), N^(8/3), N^(9/4) stood side by side in one group and
 *    drew apart beyond the training range.  The splitting and coalescing
 *    above still use the free search.  Every fit of a slice's low, high
 *    or mean rejects hypotheses whose terms cancel (model_options.no_cancel):
 *    a distance sums the lines touched in between.  With
 *    o->evidenced_growth (a group in a loop whose trips the data decide,
 *    modelset_groups.c), also those whose terms hold less than half of
 *    the value at the largest point: the loop's mix moves with the size
 *    and moves touches between fixed distances, a drift that a growing
 *    term multiplies beyond the training sizes.
 *
 * 4. Misses of a fully-associative LRU cache of C blocks at x:
 *      misses = cold(x) + sum over leads with distance >= C of
 *                          (F_i(x) - F_{i-1}(x)) touches(x)
 *             + sum over slices of (u1-u0) rest(x) * above_C(slice),
 *      rest(x) = touches(x) (1 - F_last(x)),  F_{-1} = 0,
 *      above_C = 1 if low(x) >= C, 0 if high(x) <= C, else the share
 *                above C of the spread closest to even between the edges
 *                that has the slice's mean(x) (above(); the even spread,
 *                (high(x) - C) / (high(x) - low(x)), when the mean is the
 *                middle).
 *    Beyond the largest training value, a slice edge with a term of a
 *    higher power than the footprint's grows no faster than the footprint
 *    from its value there (rd_growth.c; rd_model.max_power, set when a
 *    set's groups are loaded).
 *    Model values are clamped on evaluation: counts >= 0, F_last to
 *    [0, 1] and, downwards, each F_i to [0, F_{i+1}] (the sum of all the
 *    leads is the smoothest series), 0 <= low <=
 *    high, low <= mean <= high, non-finite values to the
 *    nearest sane bound; the result is never NaN (when memory for the
 *    slices runs out, the leads and cold only).  Then, because the rest is
 *    in rank order, the edges low_0 <= high_0 <= low_1 <= ... must not fall
 *    with u: they are replaced by their weighted isotonic (pool adjacent
 *    violators) fit in absolute error, each pooled run of edges at the
 *    weighted median of their own values, each edge weighing half its
 *    slice's share, so that a
 *    thin slice left between two groups, whose models run off when
 *    extrapolated, is pulled to its neighbours instead of putting touches
 *    at distances far beyond every group, and a heavy slice never moves
 *    for thin ones (in squares, two 1% slices lifted a 94% slice past an
 *    L1's capacity: +676% misses on a Cholesky update).
 *
 * Choices beyond a literal reading of the seed, each needed on the
 * matrix-multiply test (tests/unit/test_rd_model.c), where without it the
 * misses at 4x/8x were off by 10% to several hundred percent:
 *  - a bin's touches sit at its recorded mean distance sum/count, not
 *    spread over the bin: regular loops put a group at one distance, and
 *    the bin edges (steps of 1/8 to 1/16) made the edge series too noisy
 *    for the PMNF search to extrapolate;
 *  - shares are fitted as c0 + c1/p + c2/p^2 (see fraction_options):
 *    the PMNF alone picked c0 + c1 p + c2 p log2 p for a share falling
 *    from 0.441 to 0.439 and predicted 0.50 at 8x;
 *  - the split point is weighted by each point's log range, a slice must
 *    be narrow (or thin) to stay whole, and the edges are made monotone in
 *    u on evaluation (all above).
 *
 * No global mutable state; memory from malloc, released by rd_model_free.
 */
#include "model/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

#define LEAD_MIN_SHARE 0.01          /* a leading bin holds >= 1% of the touches somewhere */
#define LEAD_GROWTH_MIN 2.0         /* a lead's count must grow when the touches grow this much */
#define AGREE_REL 0.10               /* models agree within 10% ... */
#define AGREE_ABS 0.5                /* ... or within half a block */
#define EXTRAP_FACTOR 8.0            /* agreement is also checked at 8x the largest point */
#define MIN_SLICE_SHARE (1.0 / 512)  /* slices below this share of touches everywhere are leaves */
#define NARROW_MIN_SHARE (1.0 / 64)  /* only slices this big somewhere must be narrow */
#define MAX_DEPTH 12                 /* deepest split */
#define MAX_LEADS (2 * RD_EXACT_BINS) /* leading bins: the exact ones and as many constant far ones */
#define SPLIT_EPS 1e-9               /* a split this close to a slice end is no split */
#define NAN_GUARD(v, fallback) (isfinite(v) ? (v) : (fallback))

/* ---- small helpers ------------------------------------------------------- */

/* Write a printf-style message to err (when err and errlen allow). */
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* v when finite, else `fallback`. */
static double finite_or(double v, double fallback)
{
    return isfinite(v) ? v : fallback;
}

/* v clamped into [lo, hi]; NaN gives lo. */
static double clamp(double v, double lo, double hi)
{
    if (!(v >= lo))
        return lo;
    return v > hi ? hi : v;
}

/* A model that is the constant v everywhere, as if fitted on n points. */
static void constant_model(double v, size_t n, model *m)
{
    memset(m, 0, sizeof *m);
    m->method = MODEL_CONSTANT;
    m->constant = v;
    m->npoints = n;
}

/* Sum of the bin counts of one histogram (its non-cold touches). */
static double touches_of(const rd_series_point *p)
{
    double t = 0;
    for (size_t i = 0; i < p->nbins; i++)
        t += (double)p->bins[i].count;
    return t;
}

/* Count of `bin` in histogram p (0 when absent); bins are ascending. */
static uint64_t bin_count(const rd_series_point *p, unsigned bin)
{
    for (size_t i = 0; i < p->nbins && p->bins[i].bin <= bin; i++)
        if (p->bins[i].bin == bin)
            return p->bins[i].count;
    return 0;
}

/* Fit y[0..n) over the points xs (n * nparams coordinates) with the user's
 * options and the given integer_counts, with the memo of this series'
 * earlier fits (NULL: none).  Returns 0, or -1 with model_fit's message
 * prefixed by `what`. */
static int fit_values(const double *xs, const double *y, size_t n, int nparams, const model_options *o,
                      int integer_counts, model_memo *memo, model *out, const char *what, char *err, size_t errlen)
{
    model_options opt = *o;
    opt.integer_counts = integer_counts;
    model_series s = {n, nparams, xs, y};
    char msg[256] = "";
    if (model_fit_memo(&s, &opt, memo, out, msg, sizeof msg) != 0) {
        set_err(err, errlen, "reuse-distance model: %s: %s", what, msg);
        return -1;
    }
    return 0;
}

/* ---- input --------------------------------------------------------------- */

/* Whether points i and j have equal coordinates. */
static int same_point(const rd_series_point *pts, size_t i, size_t j, int nparams)
{
    for (int k = 0; k < nparams; k++)
        if (pts[i].x[k] != pts[j].x[k])
            return 0;
    return 1;
}

/* Check the training series: >= 3 points, 3 of them distinct, nparams in
 * 1..MODEL_MAX_PARAMS, finite coordinates, bins present, non-empty-bin
 * records strictly ascending and below RD_MAX_BINS.  Returns 0 or -1 with
 * a message. */
static int check_input(const rd_series_point *pts, size_t npoints, int nparams, char *err, size_t errlen)
{
    if (!pts || npoints < 3) {
        set_err(err, errlen,
                "reuse-distance model: %zu histogram(s); at least 3 runs at different sizes are needed", npoints);
        return -1;
    }
    if (nparams < 1 || nparams > MODEL_MAX_PARAMS) {
        set_err(err, errlen, "reuse-distance model: %d parameters; 1 to %d are supported", nparams,
                MODEL_MAX_PARAMS);
        return -1;
    }
    size_t distinct = 0;
    for (size_t i = 0; i < npoints; i++) {
        if (!pts[i].x || (pts[i].nbins && !pts[i].bins)) {
            set_err(err, errlen, "reuse-distance model: histogram %zu has no coordinates or no bins", i);
            return -1;
        }
        for (int k = 0; k < nparams; k++)
            if (!isfinite(pts[i].x[k])) {
                set_err(err, errlen, "reuse-distance model: histogram %zu: parameter %d is not finite", i, k);
                return -1;
            }
        for (size_t b = 0; b < pts[i].nbins; b++)
            if (pts[i].bins[b].bin >= RD_MAX_BINS || (b && pts[i].bins[b].bin <= pts[i].bins[b - 1].bin)) {
                set_err(err, errlen, "reuse-distance model: histogram %zu: bins not ascending or out of range", i);
                return -1;
            }
        size_t j = 0;
        while (j < i && !same_point(pts, i, j, nparams))
            j++;
        distinct += j == i;
    }
    if (distinct < 3) {
        set_err(err, errlen,
                "reuse-distance model: %zu distinct parameter points; at least 3 runs at different sizes are needed",
                distinct);
        return -1;
    }
    return 0;
}

/* ---- leading constant bins ------------------------------------------------ */

/* The one whole distance every touch of `bin` has at every point (its
 * recorded sum is count * D with the same D everywhere), or -1 when the
 * bin is empty somewhere or holds several distances. */
static double constant_distance(const rd_series_point *pts, size_t npoints, unsigned bin)
{
    double D = -1;
    for (size_t s = 0; s < npoints; s++) {
        const rd_binrec *b = NULL;
        for (size_t i = 0; i < pts[s].nbins && pts[s].bins[i].bin <= bin; i++)
            if (pts[s].bins[i].bin == bin)
                b = &pts[s].bins[i];
        if (!b || !b->count || b->sum % b->count)
            return -1;
        double d = (double)(b->sum / b->count);
        if (s > 0 && d != D)
            return -1;
        D = d;
    }
    return D;
}

/* Whether the count of exact bin d fails to grow with the touches: at the
 * point with the most touches it is at most its count at the point with
 * the fewest, while the touches grew at least LEAD_GROWTH_MIN times.  A
 * spatial reuse of the loop is a share of its touches and grows with
 * them; a bin whose count stays put is the low tail of distances that
 * spread with the size (an LU update's pivot-row reuse at (N - k)/4 lines:
 * 8d^2 touches at each distance d whatever N), not a constant distance. */
static int lead_count_flat(const rd_series_point *pts, size_t npoints, const double *T, unsigned d)
{
    size_t lo = 0, hi = 0;
    for (size_t s = 1; s < npoints; s++) {
        lo = T[s] < T[lo] ? s : lo;
        hi = T[s] > T[hi] ? s : hi;
    }
    return T[hi] >= LEAD_GROWTH_MIN * T[lo] && bin_count(&pts[hi], d) <= bin_count(&pts[lo], d);
}

/* Choose the leading bins (rule in the file header) of the histograms with
 * touches T[s]; writes their bin numbers, ascending, to lead[] and their
 * distances to dist[] (room for MAX_LEADS) and returns how many.  Beyond
 * the exact bins, a bin whose touches all lie at one constant distance at
 * every point and hold LEAD_MIN_SHARE somewhere is a lead too: the
 * short reuses of a stencil whose rows are a fixed number of lines apart
 * (97% of one line's touches at distances 25 and 27), which as slices of
 * the rest were split 37 ways with edges fitted to noise. */
static size_t choose_leads(const rd_series_point *pts, size_t npoints, const double *T, unsigned *lead,
                           double *dist)
{
    size_t n = 0;
    for (unsigned bin = RD_EXACT_BINS; bin < RD_MAX_BINS && n < MAX_LEADS - RD_EXACT_BINS; bin++) {
        double share = 0, D = constant_distance(pts, npoints, bin);
        for (size_t s = 0; D >= 0 && s < npoints; s++)
            share = fmax(share, (double)bin_count(&pts[s], bin) / T[s]);
        if (D >= 0 && share >= LEAD_MIN_SHARE) {
            lead[n] = bin;
            dist[n++] = D;
        }
    }
    size_t nfar = n;
    memmove(lead + RD_EXACT_BINS, lead, nfar * sizeof *lead); /* the exact ones go first */
    memmove(dist + RD_EXACT_BINS, dist, nfar * sizeof *dist);
    n = 0;
    for (unsigned d = 0; d < RD_EXACT_BINS; d++) {
        int everywhere = 1, somewhere = 0;
        double share = 0;
        for (size_t s = 0; s < npoints; s++) {
            uint64_t c = bin_count(&pts[s], d);
            everywhere &= c > 0;
            somewhere |= c > 0;
            if (c && (double)c / T[s] > share)
                share = (double)c / T[s];
        }
        if (!somewhere || share < LEAD_MIN_SHARE)
            continue;
        if (!everywhere || lead_count_flat(pts, npoints, T, d))
            break;
        dist[n] = d;
        lead[n++] = d;
    }
    memmove(lead + n, lead + RD_EXACT_BINS, nfar * sizeof *lead);
    memmove(dist + n, dist + RD_EXACT_BINS, nfar * sizeof *dist);
    return n + nfar;
}

/* Whether bin b is one of the nlead leading bins. */
static int is_lead(unsigned b, const unsigned *lead, size_t nlead)
{
    for (size_t i = 0; i < nlead; i++)
        if (lead[i] == b)
            return 1;
    return 0;
}

/* ---- the rest as a quantile function --------------------------------------- */

/* The non-leading touches of one histogram: piece j covers u in
 * [ub[j], ub[j+1]] (ub[0] = 0, ub[n] = 1) over which Q rises linearly from
 * lo[j] to hi[j] (equal for an exact bin). */
typedef struct rest_q {
    size_t n;
    double *ub, *lo, *hi;
    double rest;    /* R_s */
    double touches; /* T_s */
} rest_q;

/* The distances [lo, hi] over which the touches of bin b are spread
 * evenly: its recorded mean sum/count (lo = hi), so that a bin holding one
 * distance (as in regular loops) gives that distance exactly, and the
 * whole bin [low, high] when the mean lies outside it (a sum that
 * overflowed). */
static void bin_spread(const rd_binrec *b, double *lo, double *hi)
{
    double low = (double)rd_bin_low(b->bin), high = (double)rd_bin_high(b->bin);
    double mean = (double)b->sum / (double)b->count;
    if (b->bin < RD_EXACT_BINS) {
        *lo = *hi = low;
    } else if (mean >= low && mean < high) {
        *lo = *hi = mean;
    } else {
        *lo = low;
        *hi = high;
    }
}

/* Build the quantile of histogram p without its leading bins.  Returns 0,
 * or -1 when memory runs out (q is then still freeable). */
static int build_rest(const rd_series_point *p, const unsigned *lead, size_t nlead, rest_q *q)
{
    memset(q, 0, sizeof *q);
    q->touches = touches_of(p);
    size_t n = 0;
    for (size_t i = 0; i < p->nbins; i++)
        if (p->bins[i].count && !is_lead(p->bins[i].bin, lead, nlead)) {
            n++;
            q->rest += (double)p->bins[i].count;
        }
    q->ub = malloc((n + 1) * sizeof *q->ub);
    q->lo = malloc((n + 1) * sizeof *q->lo);
    q->hi = malloc((n + 1) * sizeof *q->hi);
    if (!q->ub || !q->lo || !q->hi)
        return -1;
    double cum = 0;
    q->ub[0] = 0;
    for (size_t i = 0; i < p->nbins; i++) {
        const rd_binrec *b = &p->bins[i];
        if (!b->count || is_lead(b->bin, lead, nlead))
            continue;
        cum += (double)b->count;
        bin_spread(b, &q->lo[q->n], &q->hi[q->n]);
        q->ub[++q->n] = cum / q->rest;
    }
    if (q->n)
        q->ub[q->n] = 1.0;
    return 0;
}

/* Release what build_rest allocated. */
static void free_rest(rest_q *q)
{
    free(q->ub);
    free(q->lo);
    free(q->hi);
}

/* Q on piece j at u (u clamped into the piece). */
static double piece_value(const rest_q *q, size_t j, double u)
{
    double w = q->ub[j + 1] - q->ub[j];
    double t = w > 0 ? clamp((u - q->ub[j]) / w, 0, 1) : 0;
    return q->lo[j] + (q->hi[j] - q->lo[j]) * t;
}

/* Q(u) as the slice starting at u sees it (right limit): the piece j with
 * ub[j] <= u < ub[j+1], the last piece for u >= 1.  q->n > 0. */
static double q_low(const rest_q *q, double u)
{
    size_t j = 0;
    while (j + 1 < q->n && q->ub[j + 1] <= u)
        j++;
    return piece_value(q, j, u);
}

/* Q(u) as the slice ending at u sees it (left limit): the piece j with
 * ub[j] < u <= ub[j+1], the first piece for u <= 0.  q->n > 0. */
static double q_high(const rest_q *q, double u)
{
    size_t j = 0;
    while (j + 1 < q->n && q->ub[j + 1] < u)
        j++;
    return piece_value(q, j, u);
}

/* The distances at the ends of slice [u0,u1] at this point: Q just after
 * u0 and just before u1, ignoring a piece that overlaps the slice by less
 * than half a touch (a sliver left by rounding in u). */
static void slice_edges(const rest_q *q, double u0, double u1, double *a, double *b)
{
    double tol = fmin(0.5 / q->rest, (u1 - u0) / 4);
    *a = q_low(q, u0 + tol);
    *b = q_high(q, u1 - tol);
}

/* Mean of Q over [u0, u1] (u0 < u1): the integral of the piecewise-linear
 * Q divided by the width.  q->n > 0. */
static double q_mean(const rest_q *q, double u0, double u1)
{
    double sum = 0;
    for (size_t j = 0; j < q->n; j++) {
        double a = fmax(u0, q->ub[j]), b = fmin(u1, q->ub[j + 1]);
        if (b > a)
            sum += (b - a) * (piece_value(q, j, a) + piece_value(q, j, b)) / 2;
    }
    return sum / (u1 - u0);
}

/* F(d): the share of the rest whose Q is below d (the inverse of Q). */
static double q_cdf(const rest_q *q, double d)
{
    double u = 0;
    for (size_t j = 0; j < q->n; j++) {
        double w = q->ub[j + 1] - q->ub[j];
        if (q->hi[j] > q->lo[j])
            u += w * clamp((d - q->lo[j]) / (q->hi[j] - q->lo[j]), 0, 1);
        else if (q->lo[j] < d)
            u += w;
    }
    return u;
}

/* The distance halfway through [a, b] (a < b): in log2(d+1) when the range
 * spans more than a factor of two, else linearly. */
static double range_middle(double a, double b)
{
    if (b + 1 > 2 * (a + 1))
        return exp2((log2(a + 1) + log2(b + 1)) / 2) - 1;
    return (a + b) / 2;
}

/* ---- slices ---------------------------------------------------------------- */

/* Everything the slicing needs.  Only the points with a rest (R_s > 0) take
 * part: use[0..nuse) are their indices, xs their coordinates. */
typedef struct slicer {
    const rd_series_point *pts;
    size_t npoints;
    int nparams;
    const model_options *opt;
    rest_q *q;                     /* per point */
    size_t *use, nuse;
    double *xs;                    /* nuse * nparams coordinates */
    double *ys;                    /* 3 * nuse values, scratch */
    double xext[MODEL_MAX_PARAMS]; /* 8x the largest coordinates */
    rd_model_bin *bins;            /* leaves, ascending u */
    size_t nbins, cap;
    char *err;
    size_t errlen;
} slicer;

/* The values of one quantity of slice [u0,u1] at the used points into
 * ys[0..nuse): which = 0 low edge, 1 high edge, 2 mean. */
static void slice_values(const slicer *sl, double u0, double u1, int which, double *ys)
{
    for (size_t i = 0; i < sl->nuse; i++) {
        const rest_q *q = &sl->q[sl->use[i]];
        double a, b;
        slice_edges(q, u0, u1, &a, &b);
        ys[i] = which == 0 ? a : which == 1 ? b : q_mean(q, u0, u1);
    }
}

/* Fit the values ys of quantity `which` (as slice_values) of slice
 * [u0,u1] over the used points, with their memo (NULL: none).  Returns 0
 * or -1 (message). */
static int fit_part_values(slicer *sl, const model_options *o, double u0, double u1, int which, const double *ys,
                           model_memo *memo, model *out)
{
    static const char *const names[] = {"low edge of a slice", "high edge of a slice", "mean of a slice"};
    char what[96];
    snprintf(what, sizeof what, "%s [%.6g, %.6g] of the non-leading distances", names[which], u0, u1);
    return fit_values(sl->xs, ys, sl->nuse, sl->nparams, o, 0, memo, out, what, sl->err, sl->errlen);
}

/* Fit the model of one quantity of slice [u0,u1] (as slice_values).
 * Returns 0 or -1 (message). */
static int fit_slice_part(slicer *sl, const model_options *o, double u0, double u1, int which, model *out)
{
    slice_values(sl, u0, u1, which, sl->ys);
    return fit_part_values(sl, o, u0, u1, which, sl->ys, NULL, out);
}

/* Fit all three models of slice [u0,u1] into *out with options o; `mean`,
 * unless NULL, is its mean's model with these options, fitted before.  A
 * series equal to one fitted before (the three are one when the slice is
 * one distance at every point) gets its model, which the fit would
 * repeat.  memo, unless NULL, holds the memos of the low, high and mean
 * series (model_fit_memo).  Returns 0 or -1. */
static int fit_slice(slicer *sl, const model_options *o, double u0, double u1, const model *mean, model_memo **memo,
                     rd_model_bin *out)
{
    memset(out, 0, sizeof *out);
    out->u_low = u0;
    out->u_high = u1;
    model *m[3] = {&out->low, &out->high, &out->mean};
    for (int w = 0; w < 3; w++) {
        double *ys = sl->ys + (size_t)w * sl->nuse;
        slice_values(sl, u0, u1, w, ys);
        int same = -1;
        for (int v = 0; v < w && same < 0; v++)
            if (!memcmp(sl->ys + (size_t)v * sl->nuse, ys, sl->nuse * sizeof *ys))
                same = v;
        if (same >= 0)
            *m[w] = *m[same];
        else if (w == 2 && mean)
            *m[w] = *mean;
        else if (fit_part_values(sl, o, u0, u1, w, ys, memo ? memo[w] : NULL, m[w]))
            return -1;
    }
    return 0;
}

/* Whether the values f and g agree (rule in the file header). */
static int values_agree(double f, double g)
{
    if (!isfinite(f) || !isfinite(g))
        return 0;
    double diff = fabs(f - g);
    return diff < AGREE_ABS || diff < AGREE_REL * fmax(fabs(f), fabs(g));
}

/* Whether models a and b agree at every training point and at 8x the
 * largest one. */
static int models_agree(const slicer *sl, const model *a, const model *b)
{
    for (size_t s = 0; s < sl->npoints; s++)
        if (!values_agree(model_eval(a, sl->pts[s].x), model_eval(b, sl->pts[s].x)))
            return 0;
    return values_agree(model_eval(a, sl->xext), model_eval(b, sl->xext));
}

/* Whether slice [u0,u1] holds less than `share` of the touches at every
 * used point. */
static int slice_small(const slicer *sl, double u0, double u1, double share)
{
    for (size_t i = 0; i < sl->nuse; i++) {
        const rest_q *q = &sl->q[sl->use[i]];
        if ((u1 - u0) * q->rest >= share * q->touches)
            return 0;
    }
    return 1;
}

/* The split point of slice [u0,u1] (rule in the file header), or -1 when
 * it has no range at any point or the split would fall on an end. */
static double split_point(const slicer *sl, double u0, double u1)
{
    double sum = 0, wsum = 0;
    for (size_t i = 0; i < sl->nuse; i++) {
        const rest_q *q = &sl->q[sl->use[i]];
        double a, b;
        slice_edges(q, u0, u1, &a, &b);
        if (!(b > a))
            continue;
        double w = log2((b + 1) / (a + 1));
        sum += w * clamp(q_cdf(q, range_middle(a, b)), u0, u1);
        wsum += w;
    }
    if (!(wsum > 0))
        return -1;
    double u = sum / wsum;
    if (u - u0 <= SPLIT_EPS || u1 - u <= SPLIT_EPS)
        return -1;
    return u;
}

/* Append the leaf slice [u0,u1] with its fitted models (`mean`: as in
 * fit_slice).  Returns 0 or -1. */
static int add_leaf(slicer *sl, double u0, double u1, const model *mean)
{
    rd_model_bin *bins = array_grow(sl->bins, sl->nbins, &sl->cap, sizeof *bins);
    if (!bins) {
        set_err(sl->err, sl->errlen, "reuse-distance model: out of memory");
        return -1;
    }
    sl->bins = bins;
    if (fit_slice(sl, sl->opt, u0, u1, mean, NULL, &sl->bins[sl->nbins]))
        return -1;
    sl->nbins++;
    return 0;
}

/* Whether slice [u0,u1] spans at most a factor of two of distance at every
 * used point: Q(u1) + 1 <= 2 (Q(u0) + 1). */
static int slice_narrow(const slicer *sl, double u0, double u1)
{
    for (size_t i = 0; i < sl->nuse; i++) {
        double a, b;
        slice_edges(&sl->q[sl->use[i]], u0, u1, &a, &b);
        if (b + 1 > 2 * (a + 1))
            return 0;
    }
    return 1;
}

/* Split slice [u0,u1] recursively (rules in the file header), appending
 * its leaves in ascending u; `mean`, unless NULL, is the slice's mean
 * model, fitted as a half of its parent.  Returns 0 or -1. */
static int split_slice(slicer *sl, double u0, double u1, int depth, const model *mean)
{
    double u = depth < MAX_DEPTH && !slice_small(sl, u0, u1, MIN_SLICE_SHARE) ? split_point(sl, u0, u1) : -1;
    if (u < 0)
        return add_leaf(sl, u0, u1, mean);
    model left, right;
    int halves = slice_small(sl, u0, u1, NARROW_MIN_SHARE) || slice_narrow(sl, u0, u1);
    if (halves) {
        if (fit_slice_part(sl, sl->opt, u0, u, 2, &left) || fit_slice_part(sl, sl->opt, u, u1, 2, &right))
            return -1;
        if (models_agree(sl, &left, &right))
            return add_leaf(sl, u0, u1, mean);
    }
    if (split_slice(sl, u0, u, depth + 1, halves ? &left : NULL))
        return -1;
    return split_slice(sl, u, u1, depth + 1, halves ? &right : NULL);
}

/* Merge adjacent leaves whose mean models agree, left to right, refitting
 * each merged slice.  Returns 0 or -1. */
static int coalesce(slicer *sl)
{
    size_t i = 0;
    while (i + 1 < sl->nbins) {
        if (!models_agree(sl, &sl->bins[i].mean, &sl->bins[i + 1].mean) ||
            !slice_narrow(sl, sl->bins[i].u_low, sl->bins[i + 1].u_high)) {
            i++;
            continue;
        }
        rd_model_bin merged;
        if (fit_slice(sl, sl->opt, sl->bins[i].u_low, sl->bins[i + 1].u_high, NULL, NULL, &merged))
            return -1;
        sl->bins[i] = merged;
        memmove(&sl->bins[i + 1], &sl->bins[i + 2], (sl->nbins - i - 2) * sizeof *sl->bins);
        sl->nbins--;
    }
    return 0;
}

/* One slice [0,1] with constant models, the averages over the fewer than
 * three points that have a rest.  Returns 0 or -1. */
static int constant_slice(slicer *sl)
{
    double low = 0, high = 0, mean = 0;
    for (size_t i = 0; i < sl->nuse; i++) {
        const rest_q *q = &sl->q[sl->use[i]];
        double a, b;
        slice_edges(q, 0, 1, &a, &b);
        low += a / (double)sl->nuse;
        high += b / (double)sl->nuse;
        mean += q_mean(q, 0, 1) / (double)sl->nuse;
    }
    rd_model_bin *bins = array_grow(sl->bins, sl->nbins, &sl->cap, sizeof *bins);
    if (!bins) {
        set_err(sl->err, sl->errlen, "reuse-distance model: out of memory");
        return -1;
    }
    sl->bins = bins;
    rd_model_bin *b = &sl->bins[sl->nbins++];
    b->u_low = 0;
    b->u_high = 1;
    constant_model(low, sl->nuse, &b->low);
    constant_model(high, sl->nuse, &b->high);
    constant_model(mean, sl->nuse, &b->mean);
    return 0;
}

/* ---- one term set for the whole group ------------------------------------- */

/* The term p^e * log2(p)^j of parameter 0, coefficient 1. */
static model_term term_of(double e, int j)
{
    return (model_term){1.0, 1, {{0, e, j}}};
}

/* The base terms of the shared fit (file header, step 3b) into
 * base[0..return) (room for 4 + MODEL_MAX_BASIS): p, p^2, p^3, p log2 p
 * (when every p >= 1) and the user's terms over the one parameter. */
static int base_terms(const slicer *sl, model_term *base)
{
    int nb = 0, logs_ok = 1;
    for (size_t i = 0; i < sl->nuse; i++)
        logs_ok &= sl->xs[i] >= 1;
    for (int e = 1; e <= 3; e++)
        base[nb++] = term_of(e, 0);
    if (logs_ok)
        base[nb++] = term_of(1, 1);
    for (int u = 0; u < sl->opt->nbasis; u++) {
        const model_term *t = &sl->opt->basis[u];
        int ok = t->nfactors > 0;
        for (int f = 0; f < t->nfactors; f++)
            ok &= t->factors[f].param == 0 && (logs_ok || t->factors[f].log_exponent == 0);
        if (ok)
            base[nb++] = *t;
    }
    return nb;
}

/* The candidate term set number `code` = a + nb (b + nb c) over the nb
 * base terms, as options with `only` filled: {a} when a = b = c, {a, b}
 * when a < b = c, {a, b, c} when a < b < c; returns its size, or 0 when
 * the code is not one of these forms or the set has more than `most`
 * terms. */
static int term_set(const slicer *sl, const model_term *base, int nb, int code, int most, model_options *o)
{
    int a = code % nb, b = code / nb % nb, c = code / (nb * nb);
    int k = 1 + (b > a) + (c > b);
    if (a > b || b > c || (a == b && c > b) || k > most)
        return 0;
    *o = *sl->opt;
    o->nbasis = 0;
    o->nonly = k;
    o->only[0] = base[a];
    o->only[1] = base[b];
    o->only[2] = base[c];
    return k;
}

/* Fit every slice of sl->bins with the options o into out[0..nbins), and
 * return in *score the group's leave-one-out error: the sum over slices
 * of (u1 - u0) * (cv of low + cv of high + cv of mean).  memo[3 i + w]
 * is the memo of slice i's series w (low, high, mean): the term sets
 * share most hypotheses.  0 or -1. */
static int fit_all_slices(slicer *sl, const model_options *o, model_memo **memo, rd_model_bin *out, double *score)
{
    *score = 0;
    for (size_t i = 0; i < sl->nbins; i++) {
        if (fit_slice(sl, o, sl->bins[i].u_low, sl->bins[i].u_high, NULL, memo + 3 * i, &out[i]))
            return -1;
        *score += (out[i].u_high - out[i].u_low) * (out[i].low.cv_smape + out[i].high.cv_smape + out[i].mean.cv_smape);
    }
    return 0;
}

/* Widen the spreads of the edges of best[0..nbins) (one parameter), at
 * each far point 2^(j+1) times the largest training value, to how far the
 * edges of alt lie from them (|alt - best| / |best|), and their
 * spread_below to how far below ((best - alt) / best). */
static void widen_edge_spreads(const slicer *sl, rd_model_bin *best, const rd_model_bin *alt)
{
    double xmax = sl->xs[0];
    for (size_t i = 1; i < sl->nuse; i++)
        xmax = fmax(xmax, sl->xs[i]);
    for (size_t i = 0; i < sl->nbins; i++)
        for (int j = 0; j < MODEL_SPREAD_POINTS; j++) {
            double x = ldexp(xmax, j + 1);
            model *edge[2] = {&best[i].low, &best[i].high};
            const model *other[2] = {&alt[i].low, &alt[i].high};
            for (int k = 0; k < 2; k++) {
                double v = model_eval(edge[k], &x), a = model_eval(other[k], &x);
                if (!isfinite(a) || !isfinite(v) || v == 0)
                    continue;
                edge[k]->spread[j] = fmax(edge[k]->spread[j], fabs(a - v) / fabs(v));
                if (v > 0 && a < v)
                    edge[k]->spread_below[j] = fmax(edge[k]->spread_below[j], fmin((v - a) / v, 1));
            }
        }
}

/* The subset of the terms of `set` (bit i: set->only[i]) that m uses. */
static unsigned form_of(const model *m, const model_options *set)
{
    unsigned mask = 0;
    for (int t = 0; t < m->nterms; t++)
        for (int i = 0; i < set->nonly; i++)
            if (!model_term_before(&m->terms[t], &set->only[i]) && !model_term_before(&set->only[i], &m->terms[t]))
                mask |= 1u << i;
    return mask;
}

/* Give every series of the slices bins[] (fitted under `set`) the group's
 * commonest form, the subset of the set's terms its series use weighted by
 * their slices' shares, unless its own fits at most half as badly (its
 * leave-one-out error under half the common form's), as model_fit lets a
 * hypothesis with more terms win: the slices of one loop nest's distances
 * grow alike, and a slice that takes another power of the set for a
 * better fit of the noise of five runs parts from its neighbours beyond
 * them (lu's update: 54 slices of N^2/8-line distances under {N^2, N^3,
 * N log2 N}, a tenth of them N^3, 250,000 lines at N = 640 where the
 * distances reach 50,000, and some N log2 N, 5,000).  A constant series
 * stays one, and so does every series when the commonest form is the
 * constant.  0 or -1. */
static int common_form(slicer *sl, const model_options *set, rd_model_bin *bins)
{
    double weight[1u << 3] = {0};
    for (size_t i = 0; i < sl->nbins; i++) {
        model *m[3] = {&bins[i].low, &bins[i].high, &bins[i].mean};
        for (int w = 0; w < 3; w++)
            weight[form_of(m[w], set)] += bins[i].u_high - bins[i].u_low;
    }
    unsigned common = 0;
    for (unsigned f = 1; f < 1u << set->nonly; f++)
        common = weight[f] > weight[common] ? f : common;
    if (common == 0)
        return 0;
    model_options o = *set;
    o.nonly = 0;
    for (int i = 0; i < set->nonly; i++)
        if (common >> i & 1)
            o.only[o.nonly++] = set->only[i];
    for (size_t i = 0; i < sl->nbins; i++) {
        model *m[3] = {&bins[i].low, &bins[i].high, &bins[i].mean};
        for (int w = 0; w < 3; w++) {
            unsigned f = form_of(m[w], set);
            if (f == 0 || f == common)
                continue;
            model alt;
            slice_values(sl, bins[i].u_low, bins[i].u_high, w, sl->ys);
            if (fit_part_values(sl, &o, bins[i].u_low, bins[i].u_high, w, sl->ys, NULL, &alt))
                return -1;
            if (!(m[w]->cv_smape < 0.5 * alt.cv_smape - 1e-9))
                *m[w] = alt;
        }
    }
    return 0;
}

/* Refit every slice with the one term set that gives the group the lowest
 * leave-one-out error (file header, step 3b); ties within 1% go to the
 * set with fewer terms.  The other term sets whose error is plausible
 * against the best's (model_plausible_cv) are its alternatives:
 * the training runs cannot tell them from it, so their slice edges widen
 * the spreads of the chosen ones (a subset search within one set sees only
 * that set's forms: Cholesky's column reuse at N^2/32 blocks fitted as
 * 3.7e-4 N^3 with cv 1% and no spread, 96,000 blocks at N = 640, where
 * the set with N^2 put it under a 1 MiB L2).  Only for one parameter and
 * 4 or more points.  Returns 0 or -1. */
static int share_terms(slicer *sl)
{
    if (sl->nparams != 1 || sl->nuse < 4 || sl->nbins == 0)
        return 0;
    model_term base[4 + MODEL_MAX_BASIS];
    int nb = base_terms(sl, base), most = sl->nuse - 2 < 3 ? (int)sl->nuse - 2 : 3;
    rd_model_bin *best = malloc(sl->nbins * sizeof *best), *cand = malloc(sl->nbins * sizeof *cand);
    model_memo **memo = calloc(3 * sl->nbins, sizeof *memo);
    double *scores = malloc((size_t)nb * nb * nb * sizeof *scores);
    int rc = -1, have = 0, best_terms = 0, best_code = -1;
    double best_score = 0;
    for (size_t i = 0; memo && i < 3 * sl->nbins; i++)
        memo[i] = model_memo_new(); /* NULL when out of memory: that series is fitted without */
    if (!best || !cand || !memo || !scores) {
        set_err(sl->err, sl->errlen, "reuse-distance model: out of memory");
        goto done;
    }
    for (int code = 0; code < nb * nb * nb; code++) {
        model_options set;
        double score;
        int k = term_set(sl, base, nb, code, most, &set);
        scores[code] = NAN;
        if (k == 0)
            continue;
        if (fit_all_slices(sl, &set, memo, cand, &score))
            goto done;
        scores[code] = score;
        int tie = have && fabs(score - best_score) <= 0.01 * fmax(score, best_score) + 1e-9;
        if (!have || (tie ? k < best_terms : score < best_score)) {
            rd_model_bin *t = best;
            best = cand;
            cand = t;
            best_score = score;
            best_terms = k;
            best_code = code;
            have = 1;
        }
    }
    if (have) {
        model_options set;
        term_set(sl, base, nb, best_code, most, &set);
        memcpy(cand, best, sl->nbins * sizeof *best);
        if (common_form(sl, &set, best))
            goto done;
        widen_edge_spreads(sl, best, cand); /* the slices' own forms stay alternatives */
    }
    /* the plausible alternatives, refitted from the memos */
    for (int code = 0; have && code < nb * nb * nb; code++) {
        model_options set;
        double score;
        if (code == best_code || isnan(scores[code]))
            continue;
        int k = term_set(sl, base, nb, code, most, &set);
        if (!(scores[code] <= model_plausible_cv(k, best_terms, best_score)))
            continue;
        if (fit_all_slices(sl, &set, memo, cand, &score))
            goto done;
        widen_edge_spreads(sl, best, cand);
    }
    if (have)
        memcpy(sl->bins, best, sl->nbins * sizeof *best);
    rc = 0;
done:
    for (size_t i = 0; memo && i < 3 * sl->nbins; i++)
        model_memo_free(memo[i]);
    free(memo);
    free(scores);
    free(best);
    free(cand);
    return rc;
}

/* Model the rest of every histogram (step 3 of the file header) into
 * sl->bins.  sl->q, use, xs, ys are filled.  Returns 0 or -1. */
static int model_rest(slicer *sl)
{
    if (sl->nuse == 0)
        return 0;
    if (sl->nuse < 3)
        return constant_slice(sl);
    if (split_slice(sl, 0, 1, 0, NULL) || coalesce(sl))
        return -1;
    return share_terms(sl);
}

/* ---- fitting ------------------------------------------------------------- */

/* The options for a share: with one parameter p, the hypotheses c0 plus
 * any of p^-1, p^-2 only; with several, the user's options plus the basis
 * terms p^-1 and p^-2 of every parameter p while there is room.  A share
 * is a ratio of two counts and tends to a limit as the sizes grow
 * (1 - stride/line for spatial reuse); c0 + c1/p describes that, where
 * growing terms fit the training points as well and then run off when
 * extrapolated (a cumulative share of 0.84 fitted as
 * 0.95 + 2e-6 N^3 log2 N - 0.004 N log2 N, on a 3-D stencil). */
static model_options fraction_options(const model_options *o, int nparams)
{
    model_options fo = *o;
    if (nparams == 1) { /* one parameter: nothing but c0 + c1/p + c2/p^2 */
        fo.nonly = 2;
        fo.only[0] = term_of(-1, 0);
        fo.only[1] = term_of(-2, 0);
        return fo;
    }
    for (int k = 0; k < nparams; k++)
        for (int e = 1; e <= 2 && fo.nbasis < MODEL_MAX_BASIS; e++)
            fo.basis[fo.nbasis++] = (model_term){1.0, 1, {{k, -(double)e, 0}}};
    return fo;
}

/* Fit the leading-bin fractions into m->lead (m->nlead set as they are
 * fitted): lead i's model is the cumulative share of the touches at the
 * leading distances up to its own, (sum_{j<=i} count_j,s) / T_s.  Returns
 * 0 or -1. */
static int fit_leads(const rd_series_point *pts, size_t npoints, int nparams, const model_options *o,
                     const double *xs, const double *T, const unsigned *lead, const double *dist, size_t nlead,
                     rd_model *m, char *err, size_t errlen)
{
    if (!nlead)
        return 0;
    double *y = malloc(npoints * sizeof *y);
    m->lead = calloc(nlead, sizeof *m->lead);
    if (!y || !m->lead) {
        free(y);
        set_err(err, errlen, "reuse-distance model: out of memory");
        return -1;
    }
    model_options fo = fraction_options(o, nparams);
    for (size_t s = 0; s < npoints; s++)
        y[s] = 0;
    for (size_t i = 0; i < nlead; i++) {
        for (size_t s = 0; s < npoints; s++)
            y[s] += (double)bin_count(&pts[s], lead[i]) / T[s];
        char what[80];
        snprintf(what, sizeof what, "share of the touches at leading distances up to %.0f", dist[i]);
        m->lead[i].distance = dist[i];
        if (fit_values(xs, y, npoints, nparams, &fo, 0, NULL, &m->lead[i].fraction, what, err, errlen)) {
            free(y);
            return -1;
        }
        m->nlead = i + 1;
    }
    free(y);
    return 0;
}

/* Set up the slicer over the points with a rest, after the leads are
 * chosen, and model the rest into m->bins.  Returns 0 or -1. */
static int fit_rest(const rd_series_point *pts, size_t npoints, int nparams, const model_options *o,
                    const unsigned *lead, size_t nlead, rd_model *m, char *err, size_t errlen)
{
    model_options distances = *o; /* a distance sums the lines touched in between */
    distances.no_cancel = 1;
    slicer sl = {.pts = pts, .npoints = npoints, .nparams = nparams, .opt = &distances, .err = err, .errlen = errlen};
    int rc = -1;
    sl.q = calloc(npoints, sizeof *sl.q);
    sl.use = malloc(npoints * sizeof *sl.use);
    sl.xs = malloc(npoints * (size_t)nparams * sizeof *sl.xs);
    sl.ys = malloc(3 * npoints * sizeof *sl.ys);
    if (!sl.q || !sl.use || !sl.xs || !sl.ys)
        goto oom;
    for (size_t s = 0; s < npoints; s++) {
        if (build_rest(&pts[s], lead, nlead, &sl.q[s]))
            goto oom;
        if (sl.q[s].n == 0)
            continue;
        for (int k = 0; k < nparams; k++)
            sl.xs[sl.nuse * (size_t)nparams + (size_t)k] = pts[s].x[k];
        sl.use[sl.nuse++] = s;
    }
    for (int k = 0; k < nparams; k++) {
        double mx = pts[0].x[k];
        for (size_t s = 1; s < npoints; s++)
            mx = fmax(mx, pts[s].x[k]);
        sl.xext[k] = EXTRAP_FACTOR * mx;
    }
    rc = model_rest(&sl);
    if (rc == 0) {
        m->bins = sl.bins;
        m->nbins = sl.nbins;
        sl.bins = NULL;
    }
    goto done;
oom:
    set_err(err, errlen, "reuse-distance model: out of memory");
done:
    for (size_t s = 0; sl.q && s < npoints; s++)
        free_rest(&sl.q[s]);
    free(sl.q);
    free(sl.use);
    free(sl.xs);
    free(sl.ys);
    free(sl.bins);
    return rc;
}

/* Steps 1-3 into the zeroed *out, given checked input.  Returns 0 or -1;
 * *out may be partly filled after failure. */
static int fit_all(const rd_series_point *pts, size_t npoints, int nparams, const model_options *o, rd_model *out,
                   char *err, size_t errlen)
{
    int rc = -1;
    double *xs = malloc(npoints * (size_t)nparams * sizeof *xs);
    double *cold = malloc(npoints * sizeof *cold);
    double *T = malloc(npoints * sizeof *T);
    if (!xs || !cold || !T) {
        set_err(err, errlen, "reuse-distance model: out of memory");
        goto done;
    }
    for (size_t s = 0; s < npoints; s++) {
        for (int k = 0; k < nparams; k++)
            xs[s * (size_t)nparams + (size_t)k] = pts[s].x[k];
        cold[s] = (double)pts[s].cold;
        T[s] = touches_of(&pts[s]);
    }
    model_options counts = *o; /* evidenced_growth is the distances' */
    counts.evidenced_growth = 0;
    if (fit_values(xs, cold, npoints, nparams, &counts, 1, NULL, &out->cold, "first touches", err, errlen) ||
        fit_values(xs, T, npoints, nparams, &counts, 1, NULL, &out->touches, "non-cold touches", err, errlen))
        goto done;
    unsigned lead[MAX_LEADS];
    double dist[MAX_LEADS];
    size_t nlead = choose_leads(pts, npoints, T, lead, dist);
    if (fit_leads(pts, npoints, nparams, &counts, xs, T, lead, dist, nlead, out, err, errlen) ||
        fit_rest(pts, npoints, nparams, o, lead, nlead, out, err, errlen))
        goto done;
    rc = 0;
done:
    free(xs);
    free(cold);
    free(T);
    return rc;
}

int rd_model_fit(const rd_series_point *pts, size_t npoints, int nparams, const model_options *o, rd_model *out,
                 char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    model_options none;
    memset(&none, 0, sizeof none);
    if (check_input(pts, npoints, nparams, err, errlen))
        return -1;
    if (fit_all(pts, npoints, nparams, o ? o : &none, out, err, errlen)) {
        rd_model_free(out);
        return -1;
    }
    return 0;
}

/* ---- prediction ------------------------------------------------------------ */

/* One value with its weight, for the weighted medians of isotonic(). */
typedef struct weighted {
    double v, w;
} weighted;

/* qsort order of weighted values: ascending v. */
static int by_value(const void *a, const void *b)
{
    double x = ((const weighted *)a)->v, y = ((const weighted *)b)->v;
    return (x > y) - (x < y);
}

/* The weighted median of v[0..n) (weights w > 0): the smallest value at
 * which the weight at or below it reaches half the total, or the mean of
 * it and the next value when it reaches exactly half.  pairs: n scratch. */
static double weighted_median(const double *v, const double *w, size_t n, weighted *pairs)
{
    double total = 0, below = 0;
    for (size_t i = 0; i < n; i++) {
        pairs[i] = (weighted){v[i], w[i]};
        total += w[i];
    }
    qsort(pairs, n, sizeof *pairs, by_value);
    for (size_t i = 0; i < n; i++) {
        below += pairs[i].w;
        if (below >= total / 2)
            return below == total / 2 && i + 1 < n ? (pairs[i].v + pairs[i + 1].v) / 2 : pairs[i].v;
    }
    return pairs[n - 1].v;
}

/* Pool adjacent violators in weighted absolute error: replace v[0..n) by
 * the nondecreasing sequence closest to it in sum w_i |v_i - f_i|, each
 * pooled block at the weighted median of its original values.  Absolute,
 * not squared, error because a heavy slice must not move for thin ones:
 * with squares, two slices of 1% whose N^2 edges ran off when
 * extrapolated pulled the 94% slice of a Cholesky column load from
 * 1.125 N to past the L1's capacity (issue 20); with medians a block takes
 * its heaviest members' value.  The median of a merged block is taken
 * over the values it was made of (orig), never over the levels its parts
 * were set to: a part's level stands for its median member only, and
 * weighed with the whole part it let one runaway edge that won a pool of
 * two carry every slice merged after it (ssor's 4x L3: 0 misses measured,
 * 840,000 predicted).  start holds n block starts, orig n values and
 * pairs n scratch values. */
static void isotonic(double *v, const double *w, size_t n, size_t *start, double *orig, weighted *pairs)
{
    memcpy(orig, v, n * sizeof *v);
    size_t nb = 0;
    for (size_t i = 0; i < n; i++) {
        start[nb++] = i;
        /* block b spans [start[b], start[b+1]) (the last one to i + 1), all at v[start[b]] */
        while (nb > 1 && v[start[nb - 2]] > v[start[nb - 1]]) {
            size_t s = start[nb - 2];
            nb--;
            double level = weighted_median(orig + s, w + s, i + 1 - s, pairs);
            for (size_t k = s; k <= i; k++)
                v[k] = level;
        }
    }
}

/* Scratch for the slice edges of one model at one point: edges e[2i]
 * (low) and e[2i+1] (high) of slice i, their weights, what isotonic()
 * needs, and each slice's mean distance mean[i]; one allocation of
 * 2 * nbins of each. */
typedef struct edge_work {
    size_t n; /* 2 * nbins */
    double *e, *w, *orig, *mean;
    size_t *start;
    weighted *pairs;
} edge_work;

/* Allocate w for m's slices; 0, or -1 when memory runs out (w then holds
 * nothing to free). */
static int edge_work_init(edge_work *w, const rd_model *m)
{
    w->n = 2 * m->nbins;
    w->e = malloc(w->n * (4 * sizeof(double) + sizeof(size_t) + sizeof(weighted)));
    if (!w->e)
        return -1;
    w->w = w->e + w->n;
    w->orig = w->w + w->n;
    w->mean = w->orig + w->n;
    w->pairs = (weighted *)(w->mean + w->n);
    w->start = (size_t *)(w->pairs + w->n);
    return 0;
}

/* Slice edge `edge` of m at x under m's growth bound (model.h, rd_model:
 * max_power, top; rd_growth.c): an edge with a term of a higher power
 * than the footprint's grows beyond top no faster than p^max_power from
 * its value there. */
static double bounded_eval(const rd_model *m, const model *edge, const double *x)
{
    double v = model_eval(edge, x);
    if (!(m->max_power > 0) || !(x[0] > m->top) || !(model_power(edge) > m->max_power + 1e-9))
        return v;
    double at_top = fmax(finite_or(model_eval(edge, &m->top), 0), 0);
    return fmin(v, at_top * pow(x[0] / m->top, m->max_power));
}

/* The edges of every slice at x into w->e and their means into w->mean
 * (edges under the growth bound, bounded_eval; non-finite: the edges'
 * midpoint): non-finite values and
 * negatives clamped to 0, each high raised to its low; then, with repair,
 * the sequence low_0, high_0, low_1, ... made nondecreasing (the rest is
 * in rank order, so its distances cannot fall with u) by weighted
 * isotonic regression, each edge weighing half its slice's share (at
 * least 1e-12): a thin slice whose models run off when extrapolated is
 * pulled to its heavy neighbours, which keep their place.  Without repair
 * each slice keeps its own edges, as if slices could pass each other
 * (the other reading of a crossing, which the miss ranges include). */
static void slice_edges_at(const rd_model *m, const double *x, int repair, edge_work *w)
{
    for (size_t i = 0; i < m->nbins; i++) {
        const rd_model_bin *b = &m->bins[i];
        double low = fmax(finite_or(bounded_eval(m, &b->low, x), 0), 0);
        w->e[2 * i] = low;
        w->e[2 * i + 1] = fmax(finite_or(bounded_eval(m, &b->high, x), low), low);
        w->w[2 * i] = w->w[2 * i + 1] = fmax(clamp(b->u_high - b->u_low, 0, 1), 1e-12) / 2;
        w->mean[i] = finite_or(bounded_eval(m, &b->mean, x), (w->e[2 * i] + w->e[2 * i + 1]) / 2);
    }
    if (repair)
        isotonic(w->e, w->w, w->n, w->start, w->orig, w->pairs);
}

/* The share of a slice with edges [low, high] and mean distance `mean` at
 * or above capacity: 1 when low >= capacity, 0 when high <= capacity,
 * else that of the spread closest to even that has the mean (clamped to
 * the edges).  With t the distance and m the mean as shares of the way
 * from low to high, the density 1 + k (t - 1/2), k = 12 (m - 1/2), while
 * that is one (|k| <= 2); beyond, the steepest one (k = -2 or 2, mean 1/3
 * or 2/3) with the rest of the touches at the edge the mean leans to.  A
 * slice that holds a group of distances and a few far touches has its
 * high edge at the far ones and its mean at the group: md's neighbour
 * loads, 9% of a line's touches at 11 to 16 lines and a few up to 124,000
 * at N = 36 (mean 172), spread evenly put 99.6% of that slice past a
 * 512-line L1, 20 million misses where the run has 3. */
static double above(double low, double high, double mean, double capacity)
{
    if (low >= capacity)
        return 1;
    if (high <= capacity)
        return 0;
    double t = (capacity - low) / (high - low), m = (clamp(mean, low, high) - low) / (high - low);
    if (m < 1.0 / 3)
        return 3 * m * (1 - t) * (1 - t); /* weight 3m on the density 2 (1 - t), the rest at low */
    if (m > 2.0 / 3)
        return 3 * (1 - m) * (1 - t * t) + 1 - 3 * (1 - m); /* on 2t, the rest at high */
    return (1 - t) + 12 * (m - 0.5) * t * (1 - t) / 2;
}

/* The leading bins at x: adds to *misses the touches of those at
 * distance >= c and returns the share of all leads F_last, clamped to
 * [0, 1]; walking down from it, each F_i is clamped to [0, F_{i+1}]
 * (cumulative shares cannot fall with the distance, and the last one,
 * which sums the most touches, is the smoothest: it decides the rest) and
 * lead i holds F_i - F_{i-1}. */
static double lead_misses(const rd_model *m, const double *x, double c, double touches, double *misses)
{
    if (m->nlead == 0)
        return 0;
    double hi = clamp(model_eval(&m->lead[m->nlead - 1].fraction, x), 0, 1), all = hi;
    for (size_t i = m->nlead; i-- > 0;) {
        double lo = i ? clamp(model_eval(&m->lead[i - 1].fraction, x), 0, hi) : 0;
        if (m->lead[i].distance >= c)
            *misses += (hi - lo) * touches;
        hi = lo;
    }
    return all;
}

/* A model evaluated at one point, the parts the misses of any cache are
 * made of: cold and non-cold touches, the leads' share, and the slice
 * edges with and without their monotone repair (NULL without slices or
 * memory: the leads and cold only). */
typedef struct rd_at {
    const double *x;
    double cold, touches, lead_all;
    edge_work repaired, raw;
} rd_at;

/* Evaluate m at x into *a; free with rd_at_free. */
static void rd_at_init(rd_at *a, const rd_model *m, const double *x)
{
    memset(a, 0, sizeof *a);
    a->x = x;
    a->cold = fmax(finite_or(model_eval(&m->cold, x), 0), 0);
    a->touches = fmax(finite_or(model_eval(&m->touches, x), 0), 0);
    a->lead_all = m->nlead ? clamp(model_eval(&m->lead[m->nlead - 1].fraction, x), 0, 1) : 0;
    if (m->nbins == 0 || edge_work_init(&a->repaired, m) != 0)
        return;
    if (edge_work_init(&a->raw, m) != 0) {
        free(a->repaired.e);
        a->repaired.e = NULL;
        return;
    }
    slice_edges_at(m, x, 1, &a->repaired);
    slice_edges_at(m, x, 0, &a->raw);
}

static void rd_at_free(rd_at *a)
{
    free(a->repaired.e);
    free(a->raw.e);
}

/* What may move in misses_at: the counts' scale, the leads' share's
 * shift, and each slice's distances' scale (NULL: 1). */
typedef struct perturb {
    double scale, shift;
    const double *slice_scale;
} perturb;

/* Misses at capacity c of the model evaluated in a, perturbed by q: its
 * counts scaled by q->scale, the leads' share F_last moved by q->shift
 * (clamped to [0, 1]; the leads keep their proportions) and the slices at
 * edges e and means mean (a->repaired or a->raw), slice i's scaled by
 * q->slice_scale[i]. */
static double misses_at(const rd_model *m, const rd_at *a, double c, const perturb *q, const double *e,
                        const double *mean)
{
    double touches = a->touches * q->scale, misses = a->cold * q->scale;
    double all = clamp(a->lead_all + q->shift, 0, 1);
    if (m->nlead && a->lead_all > 0) {
        double lead = 0;
        lead_misses(m, a->x, c, touches, &lead);
        misses += lead * all / a->lead_all;
    }
    double rest = touches * (1 - all);
    for (size_t i = 0; e && i < m->nbins; i++) {
        double share = clamp(m->bins[i].u_high - m->bins[i].u_low, 0, 1);
        double k = q->slice_scale ? q->slice_scale[i] : 1;
        misses += share * rest * above(k * e[2 * i], k * e[2 * i + 1], k * mean[i], c);
    }
    return NAN_GUARD(misses, a->cold * q->scale);
}

double rd_model_misses(const rd_model *m, const double *x, uint64_t capacity)
{
    rd_at a;
    rd_at_init(&a, m, x);
    perturb none = {1, 0, NULL};
    double misses = misses_at(m, &a, (double)capacity, &none, a.repaired.e, a.repaired.mean);
    rd_at_free(&a);
    return misses;
}

/* The relative doubt of one model at the reach (model.h,
 * rd_model_misses_range): its cv grown with the reach, or the spread of
 * its alternatives there. */
static double model_doubt(const model *m, double reach)
{
    double g = 1 + log2(fmax(reach, 1));
    return finite_or(fmax(m->cv_smape / 100 * g, model_spread_at(m, reach)), 1);
}

/* The factors each slice's distances are scaled by at the reach, into
 * down[0..nbins) and up[0..nbins): with d the larger of its edges' doubts
 * and RD_DOUBT_DISTANCE_FLOOR * g, up = 1 + d and down = 1 / (1 + d),
 * lowered to 1 - s where an edge's alternatives part from it by a spread
 * s < 1 (a spread is |alt - model| / |model|: below 1 it may be an
 * alternative below the model, at model * (1 - s), which 1 / (1 + s) puts
 * no lower than half of it), and to 1 - b where the group's other term
 * sets put an edge b below it (spread_below: an alternative above with a
 * larger spread hides it).  LU's dger: a slice edge fitted as N^3 on distances
 * of 1 to 20 lines, 10,000 lines at N = 320, its linear alternatives 91%
 * lower (the distances are 2 (N - k) / 8 lines, at most 80): scaled by
 * 1 / 1.91 it stayed above the L1, and the range missed the truth. */
static void slice_scales(const rd_model *m, double reach, double *down, double *up)
{
    double g = 1 + log2(fmax(reach, 1));
    for (size_t i = 0; i < m->nbins; i++) {
        const model *edge[2] = {&m->bins[i].low, &m->bins[i].high};
        double d = fmax(RD_DOUBT_DISTANCE_FLOOR * g, fmax(model_doubt(edge[0], reach), model_doubt(edge[1], reach)));
        up[i] = 1 + d;
        down[i] = 1 / (1 + d);
        for (int k = 0; k < 2; k++) {
            double spread = finite_or(model_spread_at(edge[k], reach), 0);
            if (spread < 1)
                down[i] = fmin(down[i], 1 - spread);
            down[i] = fmin(down[i], 1 - finite_or(model_spread_below_at(edge[k], reach), 0));
        }
    }
}

/* The extremes of m's misses over the perturbations of the header of
 * rd_model_misses_range, into *lo and *hi (which hold the unperturbed
 * misses on entry); scale: 2 * nbins scratch. */
static void perturbed_extremes(const rd_model *m, const rd_at *a, double c, double reach, double *scale, double *lo,
                               double *hi)
{
    double *down = scale, *up = scale + m->nbins;
    slice_scales(m, reach, down, up);
    double count = fmax(model_doubt(&m->cold, reach), model_doubt(&m->touches, reach));
    double share = m->nlead ? model_doubt(&m->lead[m->nlead - 1].fraction, reach) * a->lead_all : 0;
    const edge_work *edges[2] = {&a->repaired, a->raw.e ? &a->raw : &a->repaired};
    for (int e = 0; e < 2; e++)
        for (int s = -1; s <= 1; s += 2) {
            perturb less = {fmax(1 - count, 0), s * share, down}, more = {1 + count, s * share, up};
            *lo = fmin(*lo, misses_at(m, a, c, &less, edges[e]->e, edges[e]->mean));
            *hi = fmax(*hi, misses_at(m, a, c, &more, edges[e]->e, edges[e]->mean));
        }
}

void rd_model_misses_range(const rd_model *m, const double *x, uint64_t capacity, double reach, double range[2])
{
    rd_at a;
    rd_at_init(&a, m, x);
    perturb none = {1, 0, NULL};
    double c = (double)capacity, mid = misses_at(m, &a, c, &none, a.repaired.e, a.repaired.mean), lo = mid, hi = mid;
    double *scale = malloc(2 * m->nbins * sizeof *scale + 1);
    if (scale) {
        perturbed_extremes(m, &a, c, reach, scale, &lo, &hi);
        free(scale);
    }
    /* the slices' shares, fixed in u, drift with the size: a floor */
    double drift = RD_DOUBT_SHARE_FLOOR * (1 + log2(fmax(reach, 1))) * fmax(mid - a.cold, 0);
    rd_at_free(&a);
    range[0] = fmax(fmin(lo, mid - drift), 0);
    range[1] = fmax(hi, mid + drift);
}

/* 1 when at least half of slice i's touches miss a cache of c blocks:
 * the midpoint of its edges e[2i], e[2i+1] is at or above c (above() is
 * then >= 1/2), else 0. */
static unsigned char slice_side(const double *e, size_t i, double c)
{
    return (e[2 * i] + e[2 * i + 1]) / 2 >= c;
}

int rd_model_crossings(const rd_model *m, const double *train, size_t ntrain, int nparams, const double *x,
                       uint64_t capacity)
{
    if (m->nbins == 0 || ntrain == 0)
        return 0;
    size_t n = m->nbins;
    double c = (double)capacity;
    edge_work w;
    unsigned char *side = malloc(2 * n), *mixed = side + n;
    if (!side || edge_work_init(&w, m) != 0) {
        free(side);
        return -1;
    }
    for (size_t t = 0; t < ntrain; t++) {
        slice_edges_at(m, train + t * (size_t)nparams, 1, &w);
        for (size_t i = 0; i < n; i++) {
            unsigned char s = slice_side(w.e, i, c);
            mixed[i] = t ? mixed[i] | (s != side[i]) : 0;
            side[i] = s;
        }
    }
    int crossings = 0;
    slice_edges_at(m, x, 1, &w);
    for (size_t i = 0; i < n; i++)
        crossings += !mixed[i] && slice_side(w.e, i, c) != side[i];
    free(w.e);
    free(side);
    return crossings;
}

void rd_model_free(rd_model *m)
{
    if (!m)
        return;
    free(m->lead);
    free(m->bins);
    memset(m, 0, sizeof *m);
}
