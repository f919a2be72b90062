/* model_fit.c — fit one series of measurements to a model (model.h): a
 * constant, an exact polynomial, or the best performance-model normal form
 * (PMNF) as in Extra-P, chosen by leave-one-out cross-validation; for
 * several parameters, combinations of the one-parameter models.
 *
 * Every fit is linear least squares over a fixed set of terms plus a
 * constant (GSL's SVD solver, gsl_multifit_linear) of the relative
 * residuals (f - y) / y, with each column scaled to a largest magnitude of
 * 1 so that parameters up to 1e4 and counts up to 1e13 stay well
 * conditioned (hyp_solve).
 *
 * One parameter, after averaging repeated points:
 *   1. all values equal: MODEL_CONSTANT.
 *   2. integer counts: for degree d = 1 .. min(4, n-2) the full polynomial
 *      1, p, ..., p^d; the lowest degree that is exact wins (MODEL_EXACT).
 *      Exact means: every point, predicted by the fit on the other n-1
 *      points, and every point, reproduced by the fit on all points, lies
 *      within max(0.5, 1e-9 |y|) of its value (EXACT_ABS, EXACT_REL).
 *      Coefficients are then snapped (see snap_fit): zero terms dropped,
 *      fractions k/d with d <= 12 made exact, as long as every point still
 *      reproduces.
 *   3. PMNF search.  Hypotheses, each with a constant c0:
 *        c1 * p^i * log2(p)^j, i in PMNF_EXP, j in {0,1,2}, not i = j = 0;
 *        c1 * t1 + c2 * t2 for distinct t1, t2 in {p, p log2 p, p^2,
 *          p^2 log2 p, p^3, p^3 log2 p};
 *        c1 * u for each user basis term u over this parameter;
 *        the best one-term hypothesis + c2 * u for each such u.
 *      log2 terms only when every p >= 1, fractional exponents only when
 *      every p >= 0.  A hypothesis with t terms needs t+2 points.  As in
 *      Extra-P a hypothesis is rejected when one of its terms contributes
 *      less than 0.0005 of the model's magnitude at every point, or when,
 *      rising over the points, it falls beyond them (turns_down), and the
 *      constant model is the initial best.
 *      With a term set in the options (o->only), the hypotheses are
 *      instead c0 plus each non-empty subset of that set.
 *      Choice (better()), by leave-one-out SMAPE (cv): a hypothesis with
 *      more terms than another wins only if its cv is lower by more than
 *      half the other's (plus 1e-9), so noise does not buy extra terms; with equal numbers of terms the
 *      lower cv wins unless the two are within 1e-9 + 1% of the larger,
 *      a tie, which goes to fewer logs, then to fewer fractional
 *      exponents (halves count less than other fractions), then to the
 *      smaller sum of exponents, then to the lower cv (the same terms met
 *      twice keep the first): the plainest model that cross-validates.  With integer counts, a winner that is exact in the
 *      sense above gets its coefficients snapped as well.
 *
 * Several parameters: each parameter k is fitted alone (steps 1-3) on its
 * longest "line", the points where all other parameters are fixed (it
 * needs 3 or more).  Its non-constant terms T_k are kept.  Then over all
 * points, for the parameters with terms: every set of products (one
 * product per non-empty subset S of the parameters: all terms prod_{k in S}
 * t_k, t_k in T_k) that covers every parameter — for two parameters a+b,
 * a*b, a*b+a, a*b+b, a*b+a+b; with four only a+b+c+d, a*b*c*d and the full
 * expansion — then, for two parameters, the nested fits (for each value of
 * the outer parameter fit the inner's terms; model each coefficient along
 * the outer parameter with steps 1-3 without exactness; expand into
 * products), and each user basis term added to the best so far.  The
 * choice and the snapping are as for one parameter; the method says which
 * family won (sums only: additive; products: multiplicative; nested).
 *
 * Shortcuts that change no result (docs/models.md, "Speed"; with
 * model_options.exhaustive they are off, for tests): the leave-one-out
 * fits of a hypothesis are skipped when its leave-one-out error, estimated
 * from the fit on all points and its leverages (loo_estimate), is above
 * anything that could beat the best so far (cannot_beat), and for an exact
 * polynomial candidate whose fit on all points is not exact; a hypothesis
 * offered to two bests is scored once; model_fit_memo keeps the scores of
 * one series across fits with different options.  A hypothesis left out
 * may still be a plausible alternative for model.spread: it waits until
 * the search's best is known and is cross-validated then if it could be
 * one and would widen the spread (resolve_alts), so that the spread too is
 * the exhaustive search's.
 *
 * Nothing here keeps state between calls (but a caller's memo), so that
 * series can be fitted on several threads at once.
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multifit.h>

#include "model.h"
#include "static/evalue.h"

#define EXACT_ABS 0.5    /* an integer count is exact when within this... */
#define EXACT_REL 1e-9   /* ...or within this fraction of itself */
#define SMALL_TERM 5e-4  /* Extra-P: a term below this share everywhere is noise */
#define CANCEL_SHARE 0.95 /* no_cancel: negative parts at most this share of the positive (cancels) */
#define GROWTH_SHARE 0.5  /* evidenced_growth: the terms hold at least this share at the largest point */
#define TIE_REL 0.01     /* LOO SMAPEs this close (relative) are a tie */
#define TIE_ABS 1e-9     /* ...or this close in percent */
#define TERM_MARGIN 0.5  /* an extra term must cut the LOO SMAPE by this share */
#define SNAP_REL 1e-9    /* a coefficient this close to k/d (d <= 12) is k/d */
#define NO_SKIP ((size_t)-1)
#define INTERP_CHANCE_MAX 0.01 /* simple fractions by chance at most this often (simple_by_chance) */
#define MIN_RCOND 1e-7   /* worse conditioned fits are always cross-validated (loo_boundable) */

/* ---- the least-squares solver ---------------------------------------------- */

/* What every least-squares solve of one model_fit uses, allocated once for
 * its largest system (nmax points, MODEL_MAX_TERMS + 1 coefficients): GSL
 * solves smaller ones on views of it, with the same arithmetic, and an
 * allocation per solve was a third of the fitting time.  B holds the basis
 * values of the hypothesis being solved (hyp_basis), which the n + 1 solves
 * of a leave-one-out scoring share. */
typedef struct solver {
    size_t nmax;
    gsl_matrix *X, *cov;
    gsl_vector *yv, *c;
    gsl_multifit_linear_workspace *w;
    double *B;   /* B[i * MODEL_MAX_TERMS + j]: term j at point i */
    double *lev;    /* the leverages of the last fit on all points (solver_leverages) */
    double *Q, *r;  /* mgs_loo_estimate's columns (nmax x (MODEL_MAX_TERMS + 1)) and residuals */
    int exhaustive; /* model_options.exhaustive: no shortcut (hyp_score) */
    int no_cancel;  /* model_options.no_cancel: reject cancelling hypotheses (hyp_score) */
    int evidenced_growth; /* model_options.evidenced_growth: reject weak growth (hyp_score) */
} solver;

/* Release what solver_alloc allocated. */
static void solver_free(solver *sv)
{
    gsl_multifit_linear_free(sv->w);
    gsl_vector_free(sv->c);
    gsl_vector_free(sv->yv);
    gsl_matrix_free(sv->cov);
    gsl_matrix_free(sv->X);
    free(sv->B);
    free(sv->lev);
    free(sv->Q);
    free(sv->r);
    memset(sv, 0, sizeof *sv);
}

/* A solver for systems of up to nmax points; 0, or -1 when out of memory
 * (sv is then freed). */
static int solver_alloc(solver *sv, size_t nmax)
{
    size_t k = MODEL_MAX_TERMS + 1;
    nmax = nmax > k ? nmax : k;
    sv->nmax = nmax;
    sv->X = gsl_matrix_alloc(nmax, k);
    sv->cov = gsl_matrix_alloc(k, k);
    sv->yv = gsl_vector_alloc(nmax);
    sv->c = gsl_vector_alloc(k);
    sv->w = gsl_multifit_linear_alloc(nmax, k);
    sv->B = malloc(nmax * MODEL_MAX_TERMS * sizeof *sv->B);
    sv->lev = malloc(nmax * sizeof *sv->lev);
    sv->Q = malloc(nmax * k * sizeof *sv->Q);
    sv->r = malloc(nmax * sizeof *sv->r);
    if (!sv->X || !sv->cov || !sv->yv || !sv->c || !sv->w || !sv->B || !sv->lev || !sv->Q || !sv->r) {
        solver_free(sv);
        return -1;
    }
    return 0;
}

/* ---- points -------------------------------------------------------------- */

/* Distinct points with averaged values: x[i * np + k], y[i]; sv solves
 * over them (any points of one model_fit share its solver). */
typedef struct points {
    size_t n;
    int np;
    double *x;
    double *y;
    solver *sv;
    model_memo *memo; /* scores of hypotheses on these points, or NULL */
} points;

/* Free the arrays of P (P itself is the caller's). */
static void points_free(points *P)
{
    free(P->x);
    free(P->y);
    P->x = P->y = NULL;
    P->n = 0;
}

/* Allocate P for n points of np coordinates, solved by sv; 0 or -1. */
static int points_alloc(points *P, size_t n, int np, solver *sv)
{
    P->n = n;
    P->np = np;
    P->sv = sv;
    P->memo = NULL;
    P->x = malloc((n ? n : 1) * (size_t)np * sizeof *P->x);
    P->y = malloc((n ? n : 1) * sizeof *P->y);
    if (!P->x || !P->y) {
        points_free(P);
        return -1;
    }
    return 0;
}

/* qsort_r comparison of point indices by their coordinates. */
static int cmp_coords(const void *a, const void *b, void *ctx)
{
    const model_series *s = ctx;
    const double *xa = s->x + *(const size_t *)a * (size_t)s->nparams;
    const double *xb = s->x + *(const size_t *)b * (size_t)s->nparams;
    for (int k = 0; k < s->nparams; k++)
        if (xa[k] != xb[k])
            return xa[k] < xb[k] ? -1 : 1;
    return 0;
}

/* The distinct points of s in coordinate order, the values of equal
 * coordinates averaged.  0, or -1 when out of memory. */
static int points_average(const model_series *s, points *P)
{
    size_t *idx = malloc(s->npoints * sizeof *idx);
    if (!idx || points_alloc(P, s->npoints, s->nparams, NULL)) {
        free(idx);
        return -1;
    }
    for (size_t i = 0; i < s->npoints; i++)
        idx[i] = i;
    qsort_r(idx, s->npoints, sizeof *idx, cmp_coords, (void *)s);
    size_t n = 0;
    for (size_t i = 0; i < s->npoints;) {
        size_t j = i;
        double sum = 0.0;
        while (j < s->npoints && cmp_coords(&idx[i], &idx[j], (void *)s) == 0)
            sum += s->y[idx[j++]];
        memcpy(P->x + n * (size_t)s->nparams, s->x + idx[i] * (size_t)s->nparams,
               (size_t)s->nparams * sizeof *P->x);
        P->y[n++] = sum / (double)(j - i);
        i = j;
    }
    P->n = n;
    free(idx);
    return 0;
}

/* The largest |y| of P (0 if none). */
static double points_ymax(const points *P)
{
    double m = 0.0;
    for (size_t i = 0; i < P->n; i++)
        m = fmax(m, fabs(P->y[i]));
    return m;
}

/* 1 if every value of P is the same. */
static int points_constant(const points *P)
{
    for (size_t i = 1; i < P->n; i++)
        if (P->y[i] != P->y[0])
            return 0;
    return 1;
}

/* Number of distinct values of parameter k in P. */
static size_t distinct_values(const points *P, int k)
{
    size_t count = 0;
    for (size_t i = 0; i < P->n; i++) {
        size_t j = 0;
        while (j < i && P->x[j * P->np + k] != P->x[i * P->np + k])
            j++;
        count += j == i;
    }
    return count;
}

/* ---- errors -------------------------------------------------------------- */

/* SMAPE of one point in percent: 200 |f - y| / (|f| + |y|), 0 if both 0. */
double model_smape_point(double f, double y)
{
    double d = fabs(f) + fabs(y);
    return d == 0.0 ? 0.0 : 200.0 * fabs(f - y) / d;
}

/* |f - y| / |y|; 0 where f = y = 0, counted as 1 where y = 0 != f. */
static double rel1(double f, double y)
{
    if (y == 0.0)
        return f == 0.0 ? 0.0 : 1.0;
    return fabs(f - y) / fabs(y);
}

/* 1 if f reproduces the count y exactly (see the header). */
static int exact1(double f, double y)
{
    double d = fabs(f - y);
    return d < EXACT_ABS || d <= EXACT_REL * fabs(y);
}

/* ---- hypotheses ---------------------------------------------------------- */

/* A set of terms to fit with a constant; coefficients of t are ignored. */
typedef struct hyp {
    int nterms;
    model_term t[MODEL_MAX_TERMS];
    enum model_method method; /* the family it belongs to */
} hyp;

/* A hypothesis fitted and cross-validated. */
typedef struct score {
    double c0, coef[MODEL_MAX_TERMS]; /* fitted on all points */
    double fit_smape, cv_smape, max_rel;
    int exact;    /* every LOO prediction and every fitted value exact1 */
    double floor; /* the leave-one-out SMAPE as estimated from the fit on all points (loo_estimate), or -1 */
} score;

/* The hypotheses scored in a one-parameter search, each with its
 * leave-one-out SMAPE and its values at 2^(i+1) times the largest
 * training value: the alternatives model.spread is made of.  Room for
 * every hypothesis of the largest search (subset_search over
 * MODEL_MAX_TERMS terms: the constant and 2^8 - 1 subsets; pmnf_search
 * scores at most 107), so that none is left out and the spread does not
 * depend on the order they are scored in.  pending[0..npending) are the
 * hypotheses whose cross-validation a shortcut left out, with their
 * floor: plausible alternatives among them are cross-validated once the
 * search's best is known (resolve_alts). */
#define MAX_ALTS (1 << MODEL_MAX_TERMS)
typedef struct alts {
    size_t n;
    double far[MODEL_SPREAD_POINTS]; /* the points of the values */
    struct {
        double cv, v[MODEL_SPREAD_POINTS];
        int nterms;
    } a[MAX_ALTS];
    size_t npending, cap;
    int lost; /* a pending hypothesis found no memory: no spread */
    struct pending {
        hyp h;
        double floor;
        double part[MODEL_SPREAD_POINTS]; /* resolve_alts: what it would add to the spread (spread_part) */
        int open;                         /* resolve_alts: it could still change the spread */
    } *pending;
} alts;

/* The best hypothesis seen so far; alt, when set, records every
 * hypothesis scored. */
typedef struct best {
    int have;
    hyp h;
    score s;
    alts *alt;
} best;

/* 1 if a and b have the same factors (both sorted by parameter). */
static int same_basis(const model_term *a, const model_term *b)
{
    if (a->nfactors != b->nfactors)
        return 0;
    for (int f = 0; f < a->nfactors; f++)
        if (a->factors[f].param != b->factors[f].param || a->factors[f].exponent != b->factors[f].exponent ||
            a->factors[f].log_exponent != b->factors[f].log_exponent)
            return 0;
    return 1;
}

/* Add term t to h unless h has it already.  0, or -1 when h is full. */
static int hyp_add(hyp *h, const model_term *t)
{
    for (int i = 0; i < h->nterms; i++)
        if (same_basis(&h->t[i], t))
            return 0;
    if (h->nterms == MODEL_MAX_TERMS)
        return -1;
    h->t[h->nterms] = *t;
    h->t[h->nterms++].coef = 1.0;
    return 0;
}

/* The term p^e * log2(p)^j of parameter k, coefficient 1. */
static model_term term_make(int k, double e, int j)
{
    model_term t = {.coef = 1.0, .nfactors = 1};
    t.factors[0] = (model_factor){k, e, j};
    return t;
}

/* The basis values of h's terms at every point of P into P->sv->B, for
 * hyp_solve. */
static void hyp_basis(const points *P, const hyp *h)
{
    for (size_t i = 0; i < P->n; i++)
        for (int j = 0; j < h->nterms; j++)
            P->sv->B[i * MODEL_MAX_TERMS + (size_t)j] = model_term_basis(&h->t[j], P->x + i * (size_t)P->np);
}

/* Least squares fit of y ~ c0 + sum_j coef[j] * basis_j(x) over the points
 * of P except point `skip` (NO_SKIP: all), with y given separately so that
 * residuals can be fitted too, and the basis values of h at P in P->sv->B
 * (hyp_basis).  The residuals are relative: each row is
 * divided by max(|y_i|, 1e-9 max|y|) (weighted least squares, weights
 * 1/y^2), because measurements spanning decades carry relative noise and
 * the models are judged by relative errors; then each column is scaled to
 * a largest magnitude of 1 for conditioning.  0, or -1 if there are fewer
 * points than coefficients or the solver fails. */
static int hyp_solve(const points *P, const double *y, const hyp *h, size_t skip, double *c0, double *coef)
{
    size_t m = P->n - (skip < P->n ? 1 : 0);
    size_t k = (size_t)h->nterms + 1;
    if (m < k)
        return -1;
    solver *sv = P->sv;
    gsl_matrix_view Xv = gsl_matrix_submatrix(sv->X, 0, 0, m, k), covv = gsl_matrix_submatrix(sv->cov, 0, 0, k, k);
    gsl_vector_view yvv = gsl_vector_subvector(sv->yv, 0, m), cv = gsl_vector_subvector(sv->c, 0, k);
    gsl_matrix *X = &Xv.matrix, *cov = &covv.matrix;
    gsl_vector *yv = &yvv.vector, *c = &cv.vector;
    double scale[MODEL_MAX_TERMS + 1], ymax = 0.0;
    for (size_t i = 0; i < P->n; i++)
        if (i != skip)
            ymax = fmax(ymax, fabs(y[i]));
    double floor_y = ymax > 0.0 ? 1e-9 * ymax : 1.0;
    for (size_t j = 0; j < k; j++)
        scale[j] = 0.0;
    for (size_t i = 0, r = 0; i < P->n; i++) {
        if (i == skip)
            continue;
        const double *b = sv->B + i * MODEL_MAX_TERMS;
        double wi = 1.0 / fmax(fabs(y[i]), floor_y);
        for (size_t j = 0; j < k; j++) {
            double v = (j == 0 ? 1.0 : b[j - 1]) * wi;
            gsl_matrix_set(X, r, j, v);
            scale[j] = fmax(scale[j], fabs(v));
        }
        gsl_vector_set(yv, r, y[i] * wi);
        r++;
    }
    for (size_t j = 0; j < k; j++)
        if (scale[j] == 0.0 || !isfinite(scale[j]))
            scale[j] = 1.0;
    for (size_t r = 0; r < m; r++)
        for (size_t j = 0; j < k; j++)
            gsl_matrix_set(X, r, j, gsl_matrix_get(X, r, j) / scale[j]);
    double chisq;
    if (gsl_multifit_linear(X, yv, c, cov, &chisq, sv->w) != 0)
        return -1;
    *c0 = gsl_vector_get(c, 0) / scale[0];
    for (size_t j = 1; j < k; j++)
        coef[j - 1] = gsl_vector_get(c, j) / scale[j];
    int rc = isfinite(*c0) ? 0 : -1;
    for (size_t j = 1; j < k; j++)
        if (!isfinite(coef[j - 1]))
            rc = -1;
    return rc;
}

/* The leverages h_ii of the weighted least-squares fit of k coefficients
 * that hyp_solve just made on all n points of P, into P->sv->lev: the
 * squared row norms of U of its SVD, which GSL leaves in the workspace
 * (multifit_linear_svd: "work->A contains the matrix U").  0, or -1 when
 * the fit is rank deficient or the values fail their identities (each in
 * [0, 1], summing to k), which would say the workspace holds something
 * else. */
static int solver_leverages(const points *P, size_t k)
{
    solver *sv = P->sv;
    if (gsl_multifit_linear_rank(GSL_DBL_EPSILON, sv->w) != k || sv->w->n != P->n || sv->w->p != k)
        return -1;
    double sum = 0.0;
    for (size_t i = 0; i < P->n; i++) {
        double h = 0.0;
        for (size_t j = 0; j < k; j++) {
            double u = gsl_matrix_get(sv->w->A, i, j);
            h += u * u;
        }
        if (!(h >= 0.0 && h <= 1.0 + 1e-9))
            return -1;
        sv->lev[i] = h;
        sum += h;
    }
    return fabs(sum - (double)k) <= 1e-6 * (double)k ? 0 : -1;
}

/* The value of hypothesis h with coefficients c0, coef at x. */
static double hyp_eval(const hyp *h, double c0, const double *coef, const double *x)
{
    double v = c0;
    for (int j = 0; j < h->nterms; j++)
        v += coef[j] * model_term_basis(&h->t[j], x);
    return v;
}

/* 1 if some term of h (fitted as c0, coef) contributes less than
 * SMALL_TERM of the model's magnitude (sum of |parts|) at every point. */
static int has_small_term(const points *P, const hyp *h, double c0, const double *coef)
{
    for (int j = 0; j < h->nterms; j++) {
        int small = 1;
        for (size_t i = 0; i < P->n && small; i++) {
            const double *x = P->x + i * (size_t)P->np;
            double total = fabs(c0);
            for (int q = 0; q < h->nterms; q++)
                total += fabs(coef[q] * model_term_basis(&h->t[q], x));
            if (fabs(coef[j] * model_term_basis(&h->t[j], x)) >= SMALL_TERM * total)
                small = 0;
        }
        if (small)
            return 1;
    }
    return 0;
}

/* 1 if at some point of P the negative parts of h (fitted as c0, coef)
 * cancel more than CANCEL_SHARE of its positive ones
 * (model_options.no_cancel): so nearly complete a difference of large
 * terms is a bend fitted to steps, not a sum of the lines a loop touches.
 * md's neighbour search, a slice edge at 41, 68, 76, 76, 84 lines at
 * N = 5..9 (a gap between two groups of distances that the runs' bins
 * moved across), was fitted as -836 + 2.16 N^3 - 48.5 N^2 + 364 N, 98-99%
 * cancelled at every run, and put at 50,000 lines at N = 36, where it is
 * 61.5.  Lesser cancellation is left alone: floyd's slices hold terms
 * that cancel up to 95% at N = 40 (-614 + 0.00255 N^3 - 0.552 N^2 +
 * 39.6 N, 86%) and extrapolate right (L1 -0.9% at 4x; rejected from 50%
 * on, -21.7%). */
static int cancels(const points *P, const hyp *h, double c0, const double *coef)
{
    for (size_t i = 0; i < P->n; i++) {
        const double *x = P->x + i * (size_t)P->np;
        double pos = fmax(c0, 0), neg = fmax(-c0, 0);
        for (int j = 0; j < h->nterms; j++) {
            double part = coef[j] * model_term_basis(&h->t[j], x);
            pos += fmax(part, 0);
            neg += fmax(-part, 0);
        }
        if (neg > CANCEL_SHARE * pos)
            return 1;
    }
    return 0;
}

/* 1 if the terms of h (fitted as c0, coef) hold less than GROWTH_SHARE of
 * its value at the largest point (model_options.evidenced_growth): the
 * series drifts over the training sizes more than it grows, and a term
 * that reads the drift as growth multiplies it beyond them.  md's
 * neighbour loads, distances in a loop over the atoms of a bin: a slice at
 * 136, 136, 152, 152, 167 lines at N = 5..9 (the atoms per bin, 2.5 to
 * 2.9, moving the touches between fixed groups of distances) was fitted as
 * 128.3 + 0.0525 N^3 (23% of it at N = 9), 2,577 lines at N = 36, where
 * the run has 137 to 151: past an L1 of 512 lines. */
static int weak_growth(const points *P, const hyp *h, double c0, const double *coef)
{
    if (h->nterms == 0 || P->np != 1)
        return 0;
    size_t top = 0;
    for (size_t i = 1; i < P->n; i++)
        if (P->x[i] > P->x[top])
            top = i;
    double terms = 0;
    for (int j = 0; j < h->nterms; j++)
        terms += coef[j] * model_term_basis(&h->t[j], P->x + top);
    return !(terms >= GROWTH_SHARE * (terms + c0));
}

/* 1 if h (fitted as c0, coef) turns against the data beyond it: with one
 * parameter and values rising from the smallest to the largest point, its
 * fastest-growing term has a negative coefficient, or the model at 2x, 4x
 * or 8x the largest point falls below its value there.  A
 * negative higher-order term that fits a slight curvature of the training
 * range (c*N*log2(N) - 5e-6*N^2) would take over outside it; seeds 000
 * and 002 constrain their fits against such oscillations likewise.
 * Only a term that grows can take over: a decaying one (N^-1) vanishes
 * beyond the data, and c0 - c1/N is how a share rises to its limit (the
 * first touches of a row's lines, 1/N of a sweep's), so its negative
 * coefficient is no turn; the values at 2x..8x still must not fall. */
static int turns_down(const points *P, const hyp *h, double c0, const double *coef)
{
    if (P->np != 1 || P->n < 2)
        return 0;
    size_t lo = 0, hi = 0;
    for (size_t i = 1; i < P->n; i++) {
        if (P->x[i] < P->x[lo])
            lo = i;
        if (P->x[i] > P->x[hi])
            hi = i;
    }
    if (!(P->y[hi] > P->y[lo]) || !(P->x[hi] > 0))
        return 0;
    int lead = -1; /* the term that grows fastest: it decides the model far out */
    double growth = 0, far = 64 * P->x[hi];
    for (int j = 0; j < h->nterms; j++) {
        double b0 = fabs(model_term_basis(&h->t[j], &P->x[hi])), b1 = fabs(model_term_basis(&h->t[j], &far));
        if (b0 > 0 && b1 / b0 > 1 && b1 / b0 > growth)
            growth = b1 / b0, lead = j;
    }
    if (lead >= 0 && coef[lead] < 0)
        return 1;
    double prev = hyp_eval(h, c0, coef, &P->x[hi]);
    for (double k = 2; k <= 8; k *= 2) {
        double x = k * P->x[hi], v = hyp_eval(h, c0, coef, &x);
        if (v < prev)
            return 1;
        prev = v;
    }
    return 0;
}

/* h with coefficients c0, coef at point i of P, from the basis values in
 * P->sv->B (the same value as hyp_eval at that point). */
static double hyp_eval_row(const points *P, const hyp *h, double c0, const double *coef, size_t i)
{
    const double *b = P->sv->B + i * MODEL_MAX_TERMS;
    double v = c0;
    for (int j = 0; j < h->nterms; j++)
        v += coef[j] * b[j];
    return v;
}

/* Whether each point of P keeps its weight 1/|y_i| in hyp_solve whichever
 * point is left out: no |y_i| is below the floor 1e-9 max|y|. */
static int weights_fixed(const points *P)
{
    double ymax = points_ymax(P);
    for (size_t i = 0; i < P->n; i++)
        if (!(fabs(P->y[i]) >= 1e-9 * ymax) || P->y[i] == 0.0)
            return 0;
    return 1;
}

/* Whether the fit just made on all points of P tells its leave-one-out
 * errors (loo_estimate): the weights are fixed, and the system is
 * conditioned well enough (reciprocal condition number of the balanced
 * matrix >= MIN_RCOND) that the rounding of the fits stays far below the
 * margins of cannot_beat. */
static int loo_boundable(const points *P)
{
    return gsl_multifit_linear_rcond(P->sv->w) >= MIN_RCOND && weights_fixed(P);
}

/* Point i's SMAPE term of its leave-one-out prediction g, from the value
 * f of the fit on all points, without refitting: with its leverage lev
 * (solver_leverages; a negative lev: unknown), g = y - (y - f) / (1 - lev),
 * the identity of least squares (the point keeps its weight whichever
 * point is left out: loo_boundable), exact up to rounding; without one,
 * the floor 200 d / (2|y| + d), d = |f - y|, since |g - y| >= d (the fit
 * on all points minimises the weighted squares with the point, the other
 * without it) and the SMAPE term rises with |g - y|. */
static double loo_estimate(double f, double y, double lev)
{
    double d = fabs(f - y);
    if (lev >= 0.0 && 1.0 - lev > 1e-6)
        return model_smape_point(y - (y - f) / (1.0 - lev), y);
    return 200.0 * d / (2.0 * fabs(y) + d);
}

/* Whether a leave-one-out SMAPE of at least `floor` (or estimated at
 * `floor`) is above `limit` with a margin (1% and 1e-4 percent) far above
 * the rounding that separates the computed errors from the exact ones and
 * from loo_estimate's. */
static int clearly_above(double floor, double limit)
{
    return floor > 1.01 * limit + 1e-4;
}

/* v -= (q . v) q over n elements, q and v with strides qs and vs. */
static void orthogonalise(const double *q, size_t qs, double *v, size_t vs, size_t n)
{
    double dot = 0.0;
    for (size_t i = 0; i < n; i++)
        dot += q[i * qs] * v[i * vs];
    for (size_t i = 0; i < n; i++)
        v[i * vs] -= dot * q[i * qs];
}

/* The leave-one-out SMAPE of h on P (its basis values in P->sv->B:
 * hyp_basis), estimated without GSL's solve: the weighted columns
 * [1, t_1, ..., t_k] / |y| and the right-hand side y / |y| are
 * orthogonalised by modified Gram-Schmidt (Bjorck: backward stable for
 * least squares on the augmented system), which gives the residuals and,
 * as the squared row norms of Q, the leverages for loo_estimate.  -1 when
 * the weights are not fixed, or a column keeps less than 1e-5 of its norm
 * (a condition number above about 1e5, where the estimate could stray from
 * the solver's fits). */
static double mgs_loo_estimate(const points *P, const hyp *h)
{
    if (!weights_fixed(P))
        return -1.0;
    enum { K = MODEL_MAX_TERMS + 1 };
    size_t n = P->n, k = (size_t)h->nterms + 1;
    double *Q = P->sv->Q, *r = P->sv->r, norm0[K] = {0}, est = 0.0;
    for (size_t i = 0; i < n; i++) {
        double w = 1.0 / fabs(P->y[i]);
        for (size_t j = 0; j < k; j++) {
            Q[i * K + j] = w * (j ? P->sv->B[i * MODEL_MAX_TERMS + j - 1] : 1.0);
            norm0[j] += Q[i * K + j] * Q[i * K + j];
        }
        r[i] = w * P->y[i];
    }
    for (size_t j = 0; j < k; j++) {
        double norm = 0.0;
        for (size_t i = 0; i < n; i++)
            norm += Q[i * K + j] * Q[i * K + j];
        if (!(norm > 1e-10 * norm0[j]) || !isfinite(norm)) /* 1e-10 of the squared norm */
            return -1.0;
        norm = sqrt(norm);
        for (size_t i = 0; i < n; i++)
            Q[i * K + j] /= norm;
        for (size_t l = j + 1; l < k; l++)
            orthogonalise(Q + j, K, Q + l, K, n);
        orthogonalise(Q + j, K, r, 1, n);
    }
    for (size_t i = 0; i < n; i++) {
        double lev = 0.0;
        for (size_t j = 0; j < k; j++)
            lev += Q[i * K + j] * Q[i * K + j];
        est += loo_estimate(P->y[i] - r[i] * fabs(P->y[i]), P->y[i], lev);
    }
    est /= (double)n;
    return isfinite(est) ? est : -1.0;
}

/* Whether a hypothesis of h's terms whose leave-one-out SMAPE is (at
 * least) `floor` cannot be better() than the best b: the least cv that
 * could win against b's is clearly below floor. */
static int cannot_beat(const hyp *h, double floor, const best *b)
{
    if (!b->have)
        return 0;
    double y = b->s.cv_smape, lose; /* any cv above `lose` loses (better()) */
    if (h->nterms > b->h.nterms)
        lose = (1.0 - TERM_MARGIN) * y;
    else if (h->nterms < b->h.nterms)
        lose = (y + TIE_ABS) / (1.0 - TERM_MARGIN);
    else
        lose = (y + TIE_ABS) / (1.0 - TIE_REL);
    return clearly_above(floor, lose);
}

/* What a scoring may leave out because it cannot change the outcome: with
 * exact_only, the leave-one-out fits when the fit on all points is not
 * exact (the score's `exact` is then 0 whatever they give, and only an
 * exact score is wanted); with fit_only, the leave-one-out fits always
 * (the caller wants the fit on all points, and whether it is rejected);
 * the leave-one-out fits when their error, known from the fit on all
 * points (loo_estimate), is above anything that could beat every one of
 * rivals[0..nrivals) (cannot_beat). */
typedef struct shortcut {
    int exact_only;
    int fit_only;
    int nrivals;
    const struct best *rivals[2];
} shortcut;

/* Whether h, with leave-one-out SMAPE estimated at `floor` (>= 0), can
 * beat none of sc's rivals. */
static int loses_to_all(const hyp *h, double floor, const shortcut *sc)
{
    for (int r = 0; r < sc->nrivals; r++)
        if (!cannot_beat(h, floor, sc->rivals[r]))
            return 0;
    return 1;
}

/* Fit h on all points of P and cross-validate it (leave-one-out) into *s.
 * 0; 1 when the shortcut `sc` (NULL: none) left the cross-validation out,
 * so that *s holds only the fit on all points (and, unless exact_only
 * did, s->floor), or, when the estimate without a solve ruled it out
 * (mgs_loo_estimate), only s->floor; -1 when h needs more points
 * than P has (t terms need t+2), a fit fails, or — with reject_small — a
 * term is negligible everywhere or the model turns down beyond the data. */
static int hyp_score(const points *P, const hyp *h, int reject_small, const shortcut *sc, score *s)
{
    if (P->n < (size_t)h->nterms + 2)
        return -1;
    if (P->sv->exhaustive)
        sc = NULL;
    hyp_basis(P, h);
    if (sc && sc->nrivals) { /* most hypotheses: try to rule it out before solving */
        s->floor = mgs_loo_estimate(P, h);
        if (s->floor >= 0 && loses_to_all(h, s->floor, sc))
            return 1;
    }
    if (hyp_solve(P, P->y, h, NO_SKIP, &s->c0, s->coef))
        return -1;
    if (reject_small && (has_small_term(P, h, s->c0, s->coef) || turns_down(P, h, s->c0, s->coef) ||
                         (P->sv->no_cancel && cancels(P, h, s->c0, s->coef)) ||
                         (P->sv->evidenced_growth && weak_growth(P, h, s->c0, s->coef))))
        return -1;
    if (sc && sc->fit_only)
        return 1;
    int bounded = sc && sc->nrivals && loo_boundable(P);
    int lev = bounded && solver_leverages(P, (size_t)h->nterms + 1) == 0;
    s->fit_smape = s->cv_smape = s->max_rel = 0.0;
    s->exact = 1;
    double floor = 0.0;
    for (size_t i = 0; i < P->n; i++) {
        double f = hyp_eval_row(P, h, s->c0, s->coef, i);
        s->fit_smape += model_smape_point(f, P->y[i]);
        s->max_rel = fmax(s->max_rel, rel1(f, P->y[i]));
        s->exact &= exact1(f, P->y[i]);
        floor += loo_estimate(f, P->y[i], lev ? P->sv->lev[i] : -1.0);
    }
    s->fit_smape /= (double)P->n;
    if (sc && sc->exact_only && !s->exact)
        return 1;
    s->floor = bounded ? floor / (double)P->n : -1.0;
    if (bounded && loses_to_all(h, s->floor, sc))
        return 1;
    for (size_t i = 0; i < P->n; i++) {
        double c0, coef[MODEL_MAX_TERMS];
        if (hyp_solve(P, P->y, h, i, &c0, coef))
            return -1;
        double g = hyp_eval_row(P, h, c0, coef, i);
        s->cv_smape += model_smape_point(g, P->y[i]);
        s->exact &= exact1(g, P->y[i]);
    }
    s->cv_smape /= (double)P->n;
    return 0;
}

/* 1 if a and b have the same terms, in any order. */
static int same_terms(const hyp *a, const hyp *b)
{
    if (a->nterms != b->nterms)
        return 0;
    for (int i = 0; i < a->nterms; i++) {
        int found = 0;
        for (int j = 0; j < b->nterms && !found; j++)
            found = same_basis(&a->t[i], &b->t[j]);
        if (!found)
            return 0;
    }
    return 1;
}

/* How plain h is, for breaking ties (lower is plainer): *logs = the sum
 * of its log exponents, *odd = the number of its exponents that are not
 * whole (halves count 1, other fractions 2), *pow_sum = the sum of its
 * exponents. */
static void hyp_plainness(const hyp *h, int *logs, int *odd, double *pow_sum)
{
    *logs = *odd = 0;
    *pow_sum = 0.0;
    for (int j = 0; j < h->nterms; j++)
        for (int f = 0; f < h->t[j].nfactors; f++) {
            double e = h->t[j].factors[f].exponent;
            *pow_sum += e;
            *logs += h->t[j].factors[f].log_exponent;
            if (e != floor(e))
                *odd += 2 * e == floor(2 * e) ? 1 : 2;
        }
}

/* 1 if (a, sa) is to be preferred to (b, sb): see "Choice" in the header. */
static int better(const hyp *a, const score *sa, const hyp *b, const score *sb)
{
    double x = sa->cv_smape, y = sb->cv_smape;
    if (a->nterms > b->nterms) /* more terms must earn their place */
        return x < (1.0 - TERM_MARGIN) * y - TIE_ABS;
    if (a->nterms < b->nterms)
        return !(y < (1.0 - TERM_MARGIN) * x - TIE_ABS);
    if (fabs(x - y) > TIE_ABS + TIE_REL * fmax(x, y))
        return x < y;
    int la, lb, oa, ob;
    double pa, pb;
    hyp_plainness(a, &la, &oa, &pa);
    hyp_plainness(b, &lb, &ob, &pb);
    if (la != lb)
        return la < lb;
    if (oa != ob)
        return oa < ob;
    if (fabs(pa - pb) > 1e-9)
        return pa < pb;
    return !same_terms(a, b) && x < y;
}

/* Record h, fitted as s, in A (when there is room). */
static void record_alt(alts *A, const hyp *h, const score *s)
{
    if (A->n == MAX_ALTS)
        return;
    A->a[A->n].cv = s->cv_smape;
    A->a[A->n].nterms = h->nterms;
    for (int i = 0; i < MODEL_SPREAD_POINTS; i++)
        A->a[A->n].v[i] = hyp_eval(h, s->c0, s->coef, &A->far[i]);
    A->n++;
}

/* Keep h, whose cross-validation was left out at a leave-one-out SMAPE of
 * at least `floor`, in A's pending ones (without memory, A is lost: no
 * spread, as without memory for A). */
static void defer_alt(alts *A, const hyp *h, double floor)
{
    if (A->npending == A->cap) {
        size_t cap = A->cap ? 2 * A->cap : 32;
        struct pending *grown = realloc(A->pending, cap * sizeof *grown);
        if (!grown) {
            A->lost = 1;
            return;
        }
        A->pending = grown;
        A->cap = cap;
    }
    A->pending[A->npending++] = (struct pending){.h = *h, .floor = floor};
}

/* ---- the memo of scores (model.h) ------------------------------------------ */

/* One hypothesis as scored on the memo's series: status is hyp_score's
 * result (-1 rejected, 1 fitted on all points only, 0 cross-validated). */
typedef struct memo_entry {
    hyp h;
    int status;
    score s;
} memo_entry;

struct model_memo {
    memo_entry *e;
    size_t n, cap;
};

model_memo *model_memo_new(void)
{
    return calloc(1, sizeof(model_memo));
}

void model_memo_free(model_memo *m)
{
    if (m)
        free(m->e);
    free(m);
}

/* 1 if a and b have the same terms in the same order (the order of the
 * columns changes the rounding of a fit). */
static int same_hyp(const hyp *a, const hyp *b)
{
    if (a->nterms != b->nterms)
        return 0;
    for (int j = 0; j < a->nterms; j++)
        if (!same_basis(&a->t[j], &b->t[j]))
            return 0;
    return 1;
}

/* The score of h on P, as hyp_score(P, h, 1, sc, s) gives it, from P's
 * memo when h was scored on P before (cross-validating it now if it was
 * skipped then and could win now, or sc is NULL); new results go into the
 * memo (unless memory runs out: then they are only returned). */
static int memo_score(const points *P, const hyp *h, const shortcut *sc, score *s)
{
    model_memo *m = P->memo;
    if (!m)
        return hyp_score(P, h, 1, sc, s);
    memo_entry *e = NULL;
    for (size_t i = 0; i < m->n && !e; i++)
        if (same_hyp(&m->e[i].h, h))
            e = &m->e[i];
    if (e && (e->status != 1 || (sc && e->s.floor >= 0 && loses_to_all(h, e->s.floor, sc)))) {
        *s = e->s;
        return e->status;
    }
    int status = hyp_score(P, h, 1, e ? NULL : sc, s);
    if (!e && m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        memo_entry *grown = realloc(m->e, cap * sizeof *grown);
        if (!grown)
            return status;
        m->e = grown;
        m->cap = cap;
    }
    if (!e)
        e = &m->e[m->n++];
    *e = (memo_entry){.h = *h, .status = status, .s = *s};
    return status;
}

/* Score h on P once and keep it in *b, and in *b2 unless NULL, where it is
 * better; the cross-validation is left out when the fit on all points
 * shows that h can beat neither (shortcut).  b's alternatives, if it
 * records them, get h, cross-validated or pending. */
static void consider(const points *P, const hyp *h, best *b, best *b2)
{
    shortcut sc = {.nrivals = b2 ? 2 : 1, .rivals = {b, b2}};
    score s;
    int status = memo_score(P, h, &sc, &s);
    if (status == 1 && b->alt)
        defer_alt(b->alt, h, s.floor);
    if (status != 0)
        return;
    if (b->alt)
        record_alt(b->alt, h, &s);
    for (int r = 0; r < sc.nrivals; r++) {
        best *to = r ? b2 : b;
        if (!to->have || better(h, &s, &to->h, &to->s)) {
            to->have = 1;
            to->h = *h;
            to->s = s;
        }
    }
}

/* ---- the model out of a hypothesis ---------------------------------------- */

/* If v is within SNAP_REL (relative) of k/d, d <= 12, that fraction, else v. */
static double snap_fraction(double v)
{
    if (v == 0.0 || !(fabs(v) < 1e14))
        return v;
    for (int d = 1; d <= 12; d++) {
        double k = nearbyint(v * d);
        if (k != 0.0 && fabs(v - k / d) <= SNAP_REL * fabs(v))
            return k / d;
    }
    return v;
}

/* Store h with coefficients c0, coef into *m (zero terms dropped, the
 * rest in the order of model_term_before) and its errors over P; cv is the
 * leave-one-out SMAPE. */
static void model_store(const points *P, const hyp *h, double c0, const double *coef, double cv, model *m)
{
    memset(m, 0, sizeof *m);
    m->method = h->method;
    m->constant = c0;
    for (int j = 0; j < h->nterms; j++)
        if (coef[j] != 0.0) {
            model_term t = h->t[j];
            t.coef = coef[j];
            int at = m->nterms++;
            for (; at > 0 && model_term_before(&t, &m->terms[at - 1]); at--)
                m->terms[at] = m->terms[at - 1];
            m->terms[at] = t;
        }
    for (size_t i = 0; i < P->n; i++) {
        double f = model_eval(m, P->x + i * (size_t)P->np);
        m->fit_smape += model_smape_point(f, P->y[i]);
        m->fit_max_rel = fmax(m->fit_max_rel, rel1(f, P->y[i]));
    }
    m->fit_smape /= (double)(P->n ? P->n : 1);
    m->cv_smape = cv;
    m->npoints = P->n;
}

/* Largest |coef * basis| of term j over P. */
static double term_reach(const points *P, const model_term *t, double coef)
{
    double r = 0.0;
    for (size_t i = 0; i < P->n; i++)
        r = fmax(r, fabs(coef * model_term_basis(t, P->x + i * (size_t)P->np)));
    return r;
}

/* Snap the coefficients of an exact fit of h on P (c0, coef in/out).
 * Terms are fixed one at a time: the unfixed ones are refitted (with a
 * constant) on what the fixed ones leave of y, and the one reaching
 * furthest (largest |coef * basis| over P) is fixed — at 0 when it reaches
 * less than min(SNAP_REL * max|y|, max(EXACT_ABS / 2, 1e-13 * max|y|)),
 * i.e. below what the data resolves, else at the fraction k/d
 * (d <= 12) within SNAP_REL of it, if any, else at the value as fitted.
 * The constant is then the mean remainder, made 0 or k/d likewise with an
 * absolute tolerance max(SNAP_REL * |c0|, 1e-11 * max|y|).  The snapped
 * coefficients are kept only if every point still reproduces exactly
 * (exact1); returns 1 if they were. */
static int snap_fit(const points *P, const hyp *h, double *c0, double *coef)
{
    int n = h->nterms, fixed[MODEL_MAX_TERMS] = {0}, ok = 1;
    double val[MODEL_MAX_TERMS], ymax = points_ymax(P), k0 = *c0;
    double *res = malloc((P->n ? P->n : 1) * sizeof *res);
    if (!res)
        return 0;
    for (int step = 0; step <= n && ok; step++) {
        hyp rest = {.method = h->method};
        int map[MODEL_MAX_TERMS];
        for (int j = 0; j < n; j++)
            if (!fixed[j]) {
                map[rest.nterms] = j;
                rest.t[rest.nterms++] = h->t[j];
            }
        for (size_t i = 0; i < P->n; i++) {
            res[i] = P->y[i];
            for (int j = 0; j < n; j++)
                if (fixed[j])
                    res[i] -= val[j] * model_term_basis(&h->t[j], P->x + i * (size_t)P->np);
        }
        double rc[MODEL_MAX_TERMS];
        hyp_basis(P, &rest);
        if (hyp_solve(P, res, &rest, NO_SKIP, &k0, rc)) {
            ok = 0;
            break;
        }
        if (step == n)
            break;
        int r = 0;
        double reach = -1.0;
        for (int q = 0; q < rest.nterms; q++) {
            double rq = term_reach(P, &rest.t[q], rc[q]);
            if (rq > reach) {
                reach = rq;
                r = q;
            }
        }
        int j = map[r];
        double negligible = fmin(SNAP_REL * ymax, fmax(EXACT_ABS / 2, 1e-13 * ymax));
        val[j] = reach < negligible ? 0.0 : snap_fraction(rc[r]);
        fixed[j] = 1;
    }
    if (ok) {
        double tol = fmax(SNAP_REL * fabs(k0), 1e-11 * ymax);
        if (fabs(k0) <= tol)
            k0 = 0.0;
        else
            for (int d = 1; d <= 12; d++)
                if (fabs(k0 - nearbyint(k0 * d) / d) <= tol) {
                    k0 = nearbyint(k0 * d) / d;
                    break;
                }
        for (size_t i = 0; i < P->n && ok; i++)
            ok = exact1(hyp_eval(h, k0, val, P->x + i * (size_t)P->np), P->y[i]);
    }
    free(res);
    if (!ok)
        return 0;
    *c0 = k0;
    memcpy(coef, val, (size_t)n * sizeof *coef);
    return 1;
}

/* Store the winner b into *m, snapped if integer counts made it exact; a
 * constant below 1e-12 of the largest value is rounding noise, made 0. */
static void store_best(const points *P, const best *b, int integer, model *m)
{
    double c0 = b->s.c0, coef[MODEL_MAX_TERMS];
    memcpy(coef, b->s.coef, sizeof coef);
    if (integer && b->s.exact)
        snap_fit(P, &b->h, &c0, coef);
    if (fabs(c0) <= 1e-12 * points_ymax(P)) /* rounding noise, not a constant */
        c0 = 0.0;
    model_store(P, &b->h, c0, coef, b->s.cv_smape, m);
}

/* ---- one parameter -------------------------------------------------------- */

/* Exponents i of the PMNF search as fractions {numerator, denominator}. */
static const int pmnf_exp[][2] = {{0, 1}, {1, 4}, {1, 3}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {1, 1}, {5, 4}, {4, 3},
                                  {3, 2}, {5, 3}, {7, 4}, {2, 1}, {9, 4}, {7, 3}, {5, 2}, {8, 3}, {11, 4}, {3, 1}};

/* Terms of the two-term hypotheses: {exponent, log exponent}. */
static const int pair_terms[][2] = {{1, 0}, {1, 1}, {2, 0}, {2, 1}, {3, 0}, {3, 1}};

/* The exact polynomial of lowest degree 1..min(4, n-2) on the 1-parameter
 * points P, into *m.  1 if found, else 0. */
static int fit_exact_poly(const points *P, model *m)
{
    for (int d = 1; d <= 4 && (size_t)d + 2 <= P->n; d++) {
        hyp h = {.method = MODEL_EXACT};
        for (int e = d; e >= 1; e--) /* highest power first, as people write it */
            h.t[h.nterms++] = term_make(0, e, 0);
        score s;
        shortcut sc = {.exact_only = 1};
        if (hyp_score(P, &h, 0, &sc, &s) != 0 || !s.exact)
            continue;
        double c0 = s.c0, coef[MODEL_MAX_TERMS];
        memcpy(coef, s.coef, sizeof coef);
        snap_fit(P, &h, &c0, coef);
        model_store(P, &h, c0, coef, s.cv_smape, m);
        return 1;
    }
    return 0;
}

/* 1 if user basis term u involves parameter k only; *t is then u over
 * parameter 0. */
static int user_term_for(const model_term *u, int k, model_term *t)
{
    if (u->nfactors == 0)
        return 0;
    *t = *u;
    t->coef = 1.0;
    for (int f = 0; f < u->nfactors; f++) {
        if (u->factors[f].param != k)
            return 0;
        t->factors[f].param = 0;
    }
    return 1;
}

/* Whether the exponent e, log exponent j term is safe on P's values: logs
 * need every p >= 1, fractional powers every p >= 0. */
static int term_allowed(const points *P, double e, int j)
{
    for (size_t i = 0; i < P->n; i++) {
        double p = P->x[i * (size_t)P->np];
        if ((j && p < 1.0) || (e != floor(e) && p < 0.0))
            return 0;
    }
    return 1;
}

/* The PMNF search on the 1-parameter points P (header, step 3); user basis
 * terms of o over parameter `param` of the series are included.  Fills *b
 * (always: the constant model at least) and, when b->alt is set, the
 * alternatives. */
static void pmnf_search(const points *P, const model_options *o, int param, best *b)
{
    hyp h = {.method = MODEL_PMNF};
    b->have = 0;
    consider(P, &h, b, NULL); /* the constant: n >= 3, always scores */
    best one = {0};
    for (size_t e = 0; e < sizeof pmnf_exp / sizeof *pmnf_exp; e++)
        for (int j = 0; j <= 2; j++) {
            double ex = (double)pmnf_exp[e][0] / pmnf_exp[e][1];
            if ((ex == 0.0 && j == 0) || !term_allowed(P, ex, j))
                continue;
            h.nterms = 1;
            h.t[0] = term_make(0, ex, j);
            consider(P, &h, b, &one);
        }
    size_t npair = sizeof pair_terms / sizeof *pair_terms;
    for (size_t a = 0; a < npair; a++)
        for (size_t c = a + 1; c < npair; c++) {
            if (!term_allowed(P, 1, pair_terms[a][1] | pair_terms[c][1]))
                continue;
            h.nterms = 2;
            h.t[0] = term_make(0, pair_terms[a][0], pair_terms[a][1]);
            h.t[1] = term_make(0, pair_terms[c][0], pair_terms[c][1]);
            consider(P, &h, b, NULL);
        }
    for (int u = 0; o && u < o->nbasis; u++) {
        h.nterms = 1;
        if (user_term_for(&o->basis[u], param, &h.t[0])) {
            consider(P, &h, b, &one);
        }
    }
    for (int u = 0; o && u < o->nbasis && one.have; u++) {
        h = one.h;
        model_term t;
        if (user_term_for(&o->basis[u], param, &t) && hyp_add(&h, &t) == 0 && h.nterms > one.h.nterms)
            consider(P, &h, b, NULL);
    }
}

/* The search restricted to the term set of o->only (model.h): the
 * constant, then c0 + every non-empty subset of the terms that P has
 * enough points for, by the usual choice rules.  Fills *b. */
static void subset_search(const points *P, const model_options *o, best *b)
{
    hyp h = {.method = MODEL_PMNF};
    b->have = 0;
    consider(P, &h, b, NULL);
    int n = o->nonly < MODEL_MAX_TERMS ? o->nonly : MODEL_MAX_TERMS;
    for (unsigned sub = 1; sub < 1u << n; sub++) {
        h.nterms = 0;
        for (int j = 0; j < n; j++)
            if (sub >> j & 1) {
                h.t[h.nterms] = o->only[j];
                h.t[h.nterms++].coef = 1.0;
            }
        consider(P, &h, b, NULL);
    }
}

/* 1 if v is 0 or k/d exactly (d <= 12), as snap_fit leaves a coefficient
 * it could snap. */
static int simple_fraction(double v)
{
    for (int d = 1; d <= 12; d++)
        if (v * d == nearbyint(v * d))
            return 1;
    return 0;
}

/* 1 if y rises strictly with x over the 1-parameter points P. */
static int rises_at_every_run(const points *P)
{
    for (size_t i = 0; i < P->n; i++)
        for (size_t j = 0; j < P->n; j++)
            if (P->x[i] < P->x[j] && !(P->y[i] < P->y[j]))
                return 0;
    return 1;
}

/* 1 if h (c0, coef) does not fall anywhere from the smallest x of P to
 * 16 times the largest (sampled at 256 points). */
static int keeps_rising(const points *P, const hyp *h, double c0, const double *coef)
{
    double lo = P->x[0], hi = P->x[0];
    for (size_t i = 1; i < P->n; i++)
        lo = fmin(lo, P->x[i]), hi = fmax(hi, P->x[i]);
    double step = (16 * hi - lo) / 256, prev = hyp_eval(h, c0, coef, &lo);
    for (int k = 1; k <= 256; k++) {
        double x = lo + k * step, v = hyp_eval(h, c0, coef, &x);
        if (v < prev)
            return 0;
        prev = v;
    }
    return 1;
}

/* The chance that an arbitrary integer series at the 1-parameter points P
 * has a polynomial through it whose leading coefficient is 0 or k/d with
 * d <= 12, as fit_interpolating_poly requires: that coefficient is
 * sum_i y_i / w_i, w_i = prod_{j != i} (x_i - x_j), so over integer y it
 * takes every multiple of 1/L, L = lcm |w_i|, equally often, and
 * sum_{d | L, d <= 12} phi(d) of every L residues are simple.  Through
 * consecutive sizes L is (n-1)!: 2, 6 and 24 for 3, 4 and 5 runs, chances
 * 1, 1 and 2/3, so simple fractions there say nothing; at N = 100, 200,
 * 400, L = 60000 and the chance is 0.04%.  1 (no evidence) for nodes that
 * are not integers; 0 when L passes 2^63 (too many residues to matter). */
static double simple_by_chance(const points *P)
{
    static const int phi[13] = {0, 1, 1, 2, 2, 4, 2, 6, 4, 6, 4, 10, 4};
    int64_t L = 1;
    for (size_t i = 0; i < P->n; i++) {
        double w = 1.0;
        if (P->x[i] != nearbyint(P->x[i]))
            return 1.0;
        for (size_t j = 0; j < P->n; j++)
            if (j != i)
                w *= fabs(P->x[i] - P->x[j]);
        if (!(w < 0x1p63))
            return 0.0;
        int64_t wi = (int64_t)w, g = ev_gcd(L, wi);
        if (L / g > INT64_MAX / wi)
            return 0.0;
        L = L / g * wi;
    }
    int simple = 0;
    for (int d = 1; d <= 12; d++)
        if (L % d == 0)
            simple += phi[d];
    return simple / (double)L;
}

/* The polynomial of degree n-1 (2 to 4) through the n points of P, when
 * snap_fit makes every coefficient and the constant 0 or a fraction k/d
 * (d <= 12) that still reproduces every point: integer counts of an affine
 * loop nest from fewer runs than fit_exact_poly needs to confirm them (a
 * 5-point stencil's 140 + 36 N^2 - 88 N from N = 100, 200, 400, which the
 * PMNF search took for 16790 + 3.5 N^(5/3) log2(N)^2, -5.2% at 4x).
 * Through n points any degree n-1 polynomial fits; simple fractions are
 * the evidence (counts of another form give coefficients with large
 * denominators) only where the points' own denominators are large: an
 * arbitrary series must have at most INTERP_CHANCE_MAX of a chance to
 * pass (simple_by_chance).  Through consecutive small N every quartic has
 * denominators of 24 at most: md's neighbour-list reads at N = 5..9, a
 * cube of steps (its bins per side, floor(1.1997 N)), were taken for a
 * quartic 32 times the run at N = 36.  The counts must also rise at every
 * run, by a polynomial that keeps rising: library counts that jump about
 * (HPCCG's __printf_fp_l) are not polynomials.  Into *m with no
 * leave-one-out error (there is no point to spare): cv_smape is 0 and the
 * caller sets the spread.  1 if found. */
static int fit_interpolating_poly(const points *P, model *m)
{
    int d = (int)P->n - 1;
    if (d < 2 || d > 4 || simple_by_chance(P) > INTERP_CHANCE_MAX)
        return 0;
    hyp h = {.method = MODEL_EXACT};
    for (int e = d; e >= 1; e--)
        h.t[h.nterms++] = term_make(0, e, 0);
    double c0, coef[MODEL_MAX_TERMS];
    if (!rises_at_every_run(P))
        return 0;
    hyp_basis(P, &h);
    if (hyp_solve(P, P->y, &h, NO_SKIP, &c0, coef) || !snap_fit(P, &h, &c0, coef) ||
        !simple_fraction(c0))
        return 0;
    for (int j = 0; j < h.nterms; j++)
        if (!simple_fraction(coef[j]))
            return 0;
    if (!keeps_rising(P, &h, c0, coef))
        return 0;
    model_store(P, &h, c0, coef, 0.0, m);
    return 1;
}

/* The largest leave-one-out SMAPE of a plausible alternative with
 * `nterms` terms to a model of model_nterms terms, one the training runs
 * cannot tell from the model: MODEL_PLAUSIBLE_FACTOR times the best's
 * (best_cv, the search's best) plus MODEL_PLAUSIBLE_ABS (percent) when it
 * has no more terms than the model, and the best's when it has more (as in
 * better(), more terms must earn their place: a term that fits noise no
 * better than the model, 64 64 63 63 63 by a constant, is no evidence of a
 * growth the runs did not see). */
#define MODEL_PLAUSIBLE_FACTOR 2.0
#define MODEL_PLAUSIBLE_ABS 1e-6
double model_plausible_cv(int nterms, int model_nterms, double best_cv)
{
    if (nterms > model_nterms)
        return best_cv + MODEL_PLAUSIBLE_ABS;
    return MODEL_PLAUSIBLE_FACTOR * best_cv + MODEL_PLAUSIBLE_ABS;
}

/* What an alternative of value a at a far point adds to a spread against
 * the model's value v there: their relative difference, or 0 when a is
 * not finite or v is 0. */
static double spread_part(double a, double v)
{
    return isfinite(a) && v != 0 ? fabs(a - v) / fabs(v) : 0;
}

/* The spread at far point i of the alternatives recorded in A that are
 * plausible (model_plausible_cv) against a model of model_nterms terms whose
 * value there is v and whose search's best has leave-one-out SMAPE
 * best_cv: the largest spread_part of any. */
static double spread_at(const alts *A, int i, double v, double best_cv, int model_nterms)
{
    double worst = 0;
    for (size_t k = 0; k < A->n; k++)
        if (A->a[k].cv <= model_plausible_cv(A->a[k].nterms, model_nterms, best_cv))
            worst = fmax(worst, spread_part(A->a[k].v[i], v));
    return worst;
}

/* The pending hypothesis of A that would widen the spread worst[] the
 * most at some far point (the largest part above worst there), or NULL
 * when none would. */
static struct pending *widest_pending(alts *A, const double *worst)
{
    struct pending *widest = NULL;
    double most = 0;
    for (size_t k = 0; k < A->npending; k++)
        for (int i = 0; A->pending[k].open && i < MODEL_SPREAD_POINTS; i++)
            if (A->pending[k].part[i] > worst[i] && A->pending[k].part[i] > most) {
                most = A->pending[k].part[i];
                widest = &A->pending[k];
            }
    return widest;
}

/* Record in A those of its pending hypotheses that could change the
 * spread of m, whose search's best has leave-one-out SMAPE best_cv: the
 * spread is then the one of every alternative an exhaustive search would
 * have recorded.  A pending hypothesis whose floor is clearly above the
 * plausible errors counts for nothing; the others are fitted on all
 * points (rejected ones, as in the search, count for nothing either) for
 * what they would add at each far point.  The spread being a largest
 * value, only those that would widen it need their leave-one-out error:
 * the widest first, cross-validated and recorded, and if plausible its
 * parts widen the spread, which may leave the rest nothing to add. */
static void resolve_alts(const points *P, alts *A, double best_cv, const model *m)
{
    double v[MODEL_SPREAD_POINTS], worst[MODEL_SPREAD_POINTS];
    for (int i = 0; i < MODEL_SPREAD_POINTS; i++) {
        v[i] = model_eval(m, &A->far[i]);
        worst[i] = spread_at(A, i, v[i], best_cv, m->nterms);
    }
    shortcut fit_only = {.fit_only = 1};
    for (size_t k = 0; k < A->npending; k++) {
        struct pending *q = &A->pending[k];
        score s;
        q->open = !clearly_above(q->floor, model_plausible_cv(q->h.nterms, m->nterms, best_cv)) &&
                  hyp_score(P, &q->h, 1, &fit_only, &s) == 1;
        for (int i = 0; q->open && i < MODEL_SPREAD_POINTS; i++)
            q->part[i] = spread_part(hyp_eval(&q->h, s.c0, s.coef, &A->far[i]), v[i]);
    }
    struct pending *q;
    while ((q = widest_pending(A, worst)) != NULL) {
        q->open = 0;
        score s;
        if (memo_score(P, &q->h, NULL, &s) != 0)
            continue;
        record_alt(A, &q->h, &s);
        if (s.cv_smape <= model_plausible_cv(q->h.nterms, m->nterms, best_cv))
            for (int i = 0; i < MODEL_SPREAD_POINTS; i++)
                worst[i] = fmax(worst[i], spread_part(hyp_eval(&q->h, s.c0, s.coef, &A->far[i]), v[i]));
    }
    A->npending = 0;
}

/* m->spread from the alternatives A (spread_at). */
static void set_spread(const alts *A, double best_cv, model *m)
{
    for (int i = 0; i < MODEL_SPREAD_POINTS; i++)
        m->spread[i] = spread_at(A, i, model_eval(m, &A->far[i]), best_cv, m->nterms);
}

/* Fit the 1-parameter points P (np = 1, n >= 3 distinct values, not all
 * equal): exact polynomial when `integer`, else/then the PMNF search (or
 * the search over o->only's subsets when it has terms); an interpolating
 * polynomial of simple fractions wins over the search with integer counts.
 * With `spread`, every model but a confirmed exact one gets its spread
 * (the fits whose model only lends its terms to another need none). */
static void fit_one(const points *P, const model_options *o, int param, int integer, int spread, model *m)
{
    if (integer && fit_exact_poly(P, m))
        return;
    alts *A = spread ? malloc(sizeof *A) : NULL; /* without memory, no spread */
    best b = {.alt = A};
    if (A) {
        A->n = A->npending = A->cap = 0;
        A->pending = NULL;
        A->lost = 0;
        double xmax = P->x[0];
        for (size_t i = 1; i < P->n; i++)
            xmax = fmax(xmax, P->x[i]);
        for (int i = 0; i < MODEL_SPREAD_POINTS; i++)
            A->far[i] = ldexp(xmax, i + 1);
    }
    if (o && o->nonly > 0)
        subset_search(P, o, &b);
    else
        pmnf_search(P, o, param, &b);
    if (!(integer && fit_interpolating_poly(P, m)))
        store_best(P, &b, integer, m);
    if (A && !A->lost) {
        resolve_alts(P, A, b.s.cv_smape, m);
        set_spread(A, b.s.cv_smape, m);
    }
    if (A)
        free(A->pending);
    free(A);
}

/* ---- several parameters ---------------------------------------------------- */

/* The longest line of parameter k in P (points whose other coordinates
 * are all equal), as 1-parameter points in *L (freed by the caller). 0, or
 * -1 when out of memory. */
static int longest_line(const points *P, int k, points *L)
{
    size_t best_i = 0, best_n = 0;
    int np = P->np;
    for (size_t i = 0; i < P->n; i++) {
        size_t cnt = 0;
        for (size_t j = 0; j < P->n; j++) {
            int same = 1;
            for (int q = 0; q < np && same; q++)
                same = q == k || P->x[i * np + q] == P->x[j * np + q];
            cnt += same;
        }
        if (cnt > best_n) {
            best_n = cnt;
            best_i = i;
        }
    }
    if (points_alloc(L, best_n, 1, P->sv))
        return -1;
    size_t r = 0;
    for (size_t j = 0; j < P->n; j++) {
        int same = 1;
        for (int q = 0; q < np && same; q++)
            same = q == k || P->x[best_i * np + q] == P->x[j * np + q];
        if (same) {
            L->x[r] = P->x[j * np + k];
            L->y[r++] = P->y[j];
        }
    }
    return 0;
}

/* The terms of each parameter: T[k][0..nt[k]). */
typedef struct param_terms {
    int nt[MODEL_MAX_PARAMS];
    model_term T[MODEL_MAX_PARAMS][MODEL_MAX_TERMS];
} param_terms;

/* Add to h every product of one term of each parameter in the bit set
 * `sub` (bits index act[]).  0, or -1 when h would exceed its capacity. */
static int add_products(hyp *h, const param_terms *pt, const int *act, int nact, unsigned sub)
{
    model_term prod[MODEL_MAX_TERMS];
    int np = 1;
    prod[0] = (model_term){.coef = 1.0};
    for (int a = 0; a < nact; a++) {
        if (!(sub >> a & 1u))
            continue;
        int k = act[a];
        model_term next[MODEL_MAX_TERMS];
        int nn = 0;
        for (int i = 0; i < np; i++)
            for (int j = 0; j < pt->nt[k]; j++) {
                if (nn == MODEL_MAX_TERMS)
                    return -1;
                next[nn++] = model_term_mul(&prod[i], &pt->T[k][j]);
            }
        memcpy(prod, next, (size_t)nn * sizeof *prod);
        np = nn;
    }
    for (int i = 0; i < np; i++)
        if (hyp_add(h, &prod[i]))
            return -1;
    return 0;
}

/* Build and consider the hypothesis made of the products of each subset
 * in `subs` (a list of bit sets over act[]). */
static void consider_combo(const points *P, const param_terms *pt, const int *act, int nact, const unsigned *subs,
                           int nsubs, best *b)
{
    hyp h = {.method = MODEL_ADDITIVE};
    for (int s = 0; s < nsubs; s++) {
        if (subs[s] & (subs[s] - 1))
            h.method = MODEL_MULTIPLICATIVE;
        if (add_products(&h, pt, act, nact, subs[s]))
            return;
    }
    consider(P, &h, b, NULL);
}

/* Every additive/multiplicative combination of the active parameters'
 * terms (header). */
static void combos(const points *P, const param_terms *pt, const int *act, int nact, best *b)
{
    unsigned full = (1u << nact) - 1u, subs[15];
    if (nact <= 3) {
        unsigned nsub = full; /* subsets 1..full */
        for (unsigned combo = 1; combo < (1u << nsub); combo++) {
            int ns = 0;
            unsigned cover = 0;
            for (unsigned s = 1; s <= nsub; s++)
                if (combo >> (s - 1) & 1u) {
                    subs[ns++] = s;
                    cover |= s;
                }
            if (cover == full)
                consider_combo(P, pt, act, nact, subs, ns, b);
        }
        return;
    }
    int ns = 0;
    for (int a = 0; a < nact; a++)
        subs[ns++] = 1u << a;
    consider_combo(P, pt, act, nact, subs, ns, b); /* a + b + c + d */
    consider_combo(P, pt, act, nact, &full, 1, b); /* a * b * c * d */
    ns = 0;
    for (unsigned s = 1; s <= full; s++)
        subs[ns++] = s;
    consider_combo(P, pt, act, nact, subs, ns, b); /* the full expansion */
}

/* Nested fit of two parameters: for each value of `outer`, fit the terms of
 * `inner` (with a constant) on its points; model each coefficient along
 * outer (fit_one, no exactness); expand into terms of both.  Returns 0 with
 * the hypothesis in *h, or -1 if the data does not allow it (fewer than 3
 * outer values with enough points) or out of memory. */
static int nested_hyp(const points *P, const param_terms *pt, int inner, int outer, hyp *h)
{
    int ni = pt->nt[inner], np = P->np, rc = -1;
    hyp hin = {.nterms = ni};
    for (int j = 0; j < ni; j++) {
        hin.t[j] = pt->T[inner][j];
        for (int f = 0; f < hin.t[j].nfactors; f++)
            hin.t[j].factors[f].param = 0;
    }
    points line = {0};
    size_t nv = distinct_values(P, outer);
    double *cval = malloc(nv * (size_t)(ni + 1) * sizeof *cval), *ov = malloc(nv * sizeof *ov);
    if (!cval || !ov || points_alloc(&line, P->n, 1, P->sv))
        goto out;
    size_t nout = 0;
    for (size_t i = 0; i < P->n; i++) {
        double v = P->x[i * np + outer];
        int dup = 0;
        for (size_t q = 0; q < i && !dup; q++)
            dup = P->x[q * np + outer] == v;
        if (dup)
            continue;
        line.n = 0;
        for (size_t j = 0; j < P->n; j++)
            if (P->x[j * np + outer] == v) {
                line.x[line.n] = P->x[j * np + inner];
                line.y[line.n++] = P->y[j];
            }
        double c0, cf[MODEL_MAX_TERMS];
        if (line.n < (size_t)ni + 1)
            continue;
        hyp_basis(&line, &hin);
        if (hyp_solve(&line, line.y, &hin, NO_SKIP, &c0, cf))
            continue;
        ov[nout] = v;
        cval[nout * (size_t)(ni + 1)] = c0;
        for (int j = 0; j < ni; j++)
            cval[nout * (size_t)(ni + 1) + 1 + (size_t)j] = cf[j];
        nout++;
    }
    *h = (hyp){.method = MODEL_NESTED};
    if (nout >= 3) {
        points cs = {0};
        if (points_alloc(&cs, nout, 1, P->sv) == 0) {
            rc = 0;
            for (int q = 0; q <= ni && rc == 0; q++) {
                double cmax = 0.0;
                for (size_t r = 0; r < nout; r++) {
                    cs.x[r] = ov[r];
                    cs.y[r] = cval[r * (size_t)(ni + 1) + (size_t)q];
                    cmax = fmax(cmax, fabs(cs.y[r]));
                }
                model cm;
                if (points_constant(&cs))
                    cm = (model){.constant = cs.y[0]};
                else
                    fit_one(&cs, NULL, 0, 0, 0, &cm);
                model_term unit = {.coef = 1.0};
                const model_term *base = q == 0 ? &unit : &pt->T[inner][q - 1];
                if (q > 0 && fabs(cm.constant) > 1e-6 * cmax && hyp_add(h, base))
                    rc = -1;
                for (int j = 0; j < cm.nterms && rc == 0; j++) {
                    model_term ot = cm.terms[j];
                    for (int f = 0; f < ot.nfactors; f++)
                        ot.factors[f].param = outer;
                    model_term t = model_term_mul(base, &ot);
                    if (hyp_add(h, &t))
                        rc = -1;
                }
            }
            points_free(&cs);
        }
    }
out:
    free(cval);
    free(ov);
    points_free(&line);
    return rc;
}

/* Several parameters (header).  0, or -1 with a message. */
static int fit_multi(const points *P, const model_options *o, model *m, char *err, size_t errlen)
{
    param_terms pt = {0};
    int act[MODEL_MAX_PARAMS], nact = 0, integer = o && o->integer_counts;
    for (int k = 0; k < P->np; k++) {
        points L = {0};
        if (longest_line(P, k, &L)) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (L.n < 3) {
            snprintf(err, errlen,
                     "parameter %d has no line of at least 3 points with the other parameters fixed (the longest "
                     "has %zu): vary it at least 3 ways (5 or more recommended) while the others stay the same",
                     k + 1, L.n);
            points_free(&L);
            return -1;
        }
        model mk = {0};
        if (!points_constant(&L))
            fit_one(&L, o, k, integer, 0, &mk);
        points_free(&L);
        for (int j = 0; j < mk.nterms; j++) {
            model_term t = mk.terms[j];
            t.coef = 1.0;
            for (int f = 0; f < t.nfactors; f++)
                t.factors[f].param = k;
            pt.T[k][pt.nt[k]++] = t;
        }
        if (pt.nt[k])
            act[nact++] = k;
    }
    best b = {0};
    hyp h = {.method = MODEL_ADDITIVE};
    consider(P, &h, &b, NULL); /* the constant */
    if (nact)
        combos(P, &pt, act, nact, &b);
    if (nact == 2)
        for (int r = 0; r < 2; r++)
            if (nested_hyp(P, &pt, act[r], act[1 - r], &h) == 0 && h.nterms)
                consider(P, &h, &b, NULL);
    hyp base = b.h;
    for (int u = 0; o && u < o->nbasis; u++) {
        int ok = o->basis[u].nfactors > 0;
        for (int f = 0; f < o->basis[u].nfactors; f++)
            ok &= o->basis[u].factors[f].param >= 0 && o->basis[u].factors[f].param < P->np;
        h = base;
        if (ok && hyp_add(&h, &o->basis[u]) == 0 && h.nterms > base.nterms)
            consider(P, &h, &b, NULL);
    }
    store_best(P, &b, integer, m);
    return 0;
}

/* ---- the entry points ------------------------------------------------------- */

/* Refuse what cannot be modeled before any fitting: 0 or -1 with a message. */
static int check_series(const model_series *s, char *err, size_t errlen)
{
    if (s->nparams < 1 || s->nparams > MODEL_MAX_PARAMS) {
        snprintf(err, errlen, "a series needs 1 to %d parameters, not %d", MODEL_MAX_PARAMS, s->nparams);
        return -1;
    }
    if (s->npoints == 0) {
        snprintf(err, errlen, "no points to model");
        return -1;
    }
    for (size_t i = 0; i < s->npoints; i++) {
        if (!isfinite(s->y[i])) {
            snprintf(err, errlen, "value %zu is not a finite number (%g): it cannot be modeled", i + 1, s->y[i]);
            return -1;
        }
        for (int k = 0; k < s->nparams; k++)
            if (!isfinite(s->x[i * (size_t)s->nparams + (size_t)k])) {
                snprintf(err, errlen, "parameter %d of point %zu is not a finite number: it cannot be modeled",
                         k + 1, i + 1);
                return -1;
            }
    }
    return 0;
}

/* Integer counts that differ by one count at most (cold misses of the
 * dynamic loader, 64 64 63 63 63 as the environment's alignment moves)
 * show no growth the runs could resolve: any shape fitted to the one-count
 * step is noise, and its extrapolation (a 2-term form fitted 106 at 4x)
 * no evidence.  Into *m: the constant mean, with a spread of the data's
 * own relative range at every reach.  1 if P is such a series. */
static int constant_within_one(const points *P, model *m)
{
    double lo = P->y[0], hi = P->y[0], sum = 0;
    for (size_t i = 0; i < P->n; i++) {
        lo = fmin(lo, P->y[i]);
        hi = fmax(hi, P->y[i]);
        sum += P->y[i];
    }
    double mean = sum / (double)P->n;
    if (hi - lo > 1 || mean == 0)
        return 0;
    double cv = 0; /* leave-one-out: each point against the mean of the others */
    for (size_t i = 0; i < P->n; i++)
        cv += model_smape_point((sum - P->y[i]) / (double)(P->n - 1), P->y[i]);
    hyp h = {.method = MODEL_CONSTANT};
    model_store(P, &h, mean, NULL, cv / (double)P->n, m);
    for (int i = 0; i < MODEL_SPREAD_POINTS; i++)
        m->spread[i] = (hi - lo) / fabs(mean);
    return 1;
}

/* Fit the series (model.h; the method in the header of this file). */
int model_fit(const model_series *s, const model_options *o, model *out, char *err, size_t errlen)
{
    return model_fit_memo(s, o, NULL, out, err, errlen);
}

int model_fit_memo(const model_series *s, const model_options *o, model_memo *memo, model *out, char *err,
                   size_t errlen)
{
    char dummy[1];
    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = '\0';
    memset(out, 0, sizeof *out);
    if (check_series(s, err, errlen))
        return -1;
    points P = {0};
    if (points_average(s, &P)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    if (points_constant(&P)) {
        out->method = MODEL_CONSTANT;
        out->constant = P.y[0];
        out->npoints = P.n;
        goto done;
    }
    if (o && o->integer_counts && constant_within_one(&P, out))
        goto done;
    for (int k = 0; k < P.np; k++)
        if (distinct_values(&P, k) < 2) {
            snprintf(err, errlen,
                     "parameter %d has the same value in every run: it cannot be modeled; vary it or leave it out",
                     k + 1);
            rc = -1;
            goto done;
        }
    solver sv = {0};
    if (solver_alloc(&sv, P.n)) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
        goto done;
    }
    P.sv = &sv;
    P.memo = memo;
    sv.exhaustive = o && o->exhaustive;
    sv.no_cancel = o && o->no_cancel;
    sv.evidenced_growth = o && o->evidenced_growth;
    if (P.np == 1) {
        if (P.n < 3) {
            snprintf(err, errlen,
                     "%zu distinct values of parameter 1, a model needs at least 3 (5 or more recommended)", P.n);
            rc = -1;
        } else
            fit_one(&P, o, 0, o && o->integer_counts, 1, out);
    } else {
        model_options mo = o ? *o : (model_options){0};
        mo.nonly = 0; /* a term set is over one parameter only */
        rc = fit_multi(&P, &mo, out, err, errlen);
    }
    solver_free(&sv);
done:
    points_free(&P);
    return rc;
}

int model_loo_values(const model_series *s, const model *m, double *pred)
{
    if (m->nterms > MODEL_MAX_TERMS)
        return -1;
    solver sv = {0};
    points P = {0};
    if (solver_alloc(&sv, s->npoints) != 0)
        return -1;
    int rc = points_alloc(&P, s->npoints, s->nparams, &sv);
    hyp h = {.nterms = m->nterms, .method = m->method};
    for (int j = 0; j < m->nterms; j++)
        h.t[j] = m->terms[j], h.t[j].coef = 1.0;
    if (rc == 0) {
        memcpy(P.x, s->x, s->npoints * (size_t)s->nparams * sizeof *P.x);
        memcpy(P.y, s->y, s->npoints * sizeof *P.y);
        hyp_basis(&P, &h);
    }
    for (size_t i = 0; rc == 0 && i < P.n; i++) {
        double c0, coef[MODEL_MAX_TERMS];
        rc = hyp_solve(&P, P.y, &h, i, &c0, coef);
        pred[i] = hyp_eval(&h, c0, coef, P.x + i * (size_t)P.np);
    }
    points_free(&P);
    solver_free(&sv);
    return rc;
}

int model_walk_fit(const model_series *stride, const model_series *run, double block, const model_options *o,
                   model *stride_out, model *run_out)
{
    return model_fit(stride, o, stride_out, NULL, 0) == 0 && stride_out->fit_max_rel <= MODEL_WALK_MAX_REL &&
           !(stride_out->method == MODEL_CONSTANT && stride_out->constant < block) &&
           model_fit(run, o, run_out, NULL, 0) == 0 && run_out->cv_smape <= MODEL_WALK_RUN_MAX_CV;
}

/* "constant", "exact", "pmnf", "additive", "multiplicative", "nested", "composed". */
const char *model_method_name(enum model_method m)
{
    switch (m) {
    case MODEL_CONSTANT: return "constant";
    case MODEL_EXACT: return "exact";
    case MODEL_PMNF: return "pmnf";
    case MODEL_ADDITIVE: return "additive";
    case MODEL_MULTIPLICATIVE: return "multiplicative";
    case MODEL_NESTED: return "nested";
    case MODEL_COMPOSED: return "composed";
    case MODEL_STATIC: return "static";
    }
    return "unknown";
}

int model_unconfirmed(const model *m)
{
    return m->method == MODEL_EXACT && m->npoints < (size_t)m->nterms + 2;
}

/* The value of the four points v (at 2x, 4x, 8x, 16x) at the reach:
 * linear in log2 of the reach from 0 at 1, continued along the last two
 * points beyond 16x; never below 0. */
static double far_points_at(const double *v, double reach)
{
    double l = log2(fmax(reach, 1));
    if (l <= 1)
        return l * v[0];
    int i = (int)floor(l) - 1; /* between v[i] (at 2^(i+1)) and v[i+1] */
    if (i > MODEL_SPREAD_POINTS - 2)
        i = MODEL_SPREAD_POINTS - 2;
    double a = v[i], b = v[i + 1];
    return fmax(a + (b - a) * (l - (i + 1)), 0);
}

double model_spread_at(const model *m, double reach)
{
    return far_points_at(m->spread, reach);
}

double model_spread_below_at(const model *m, double reach)
{
    return fmin(far_points_at(m->spread_below, reach), 1);
}
