/* model_compose.c — a loop's count as its iterations times its cost per
 * iteration (model.h, model_compose; docs/models.md, "Loops: iterations
 * times cost per iteration").
 *
 * A loop repeated by a data-dependent condition (Sweep3D's fix-up `go to`)
 * can run an exact polynomial number of times while the mix of paths its
 * body takes drifts with the size: its total count then follows no normal
 * form, and a free fit of it bends the drift into the growth (issue 21:
 * -50% at 4x).  Split, the iterations are an integer count, exact where
 * they are a polynomial, and the cost per iteration a bounded quantity
 * whose growth the structure limits to the loop levels nested inside; the
 * shares of the body's paths tend to limits, so its terms are c0, p^-1
 * and the powers up to that depth.  A cost whose terms cancel into a
 * constant over the runs (libm's sin in adi: 77.5-77.9 instructions a
 * call fitted as 88.47 - 0.0732 N + 0.000152 N^2 - 475/N, +554% at 8x) is
 * its mean, the cancelling fit kept as its alternative in the spread.
 * A function or an outer loop is the same product for a loop it holds,
 * plus the count outside that loop, which must be exact (model_compose_
 * nested: snap's octant_sweep, 192 N^3 cell-angle updates around its
 * fix-up, was fitted as 13068 N^(5/2) log2 N, -22% at 4x).
 * Nothing here knows the database:
 * modelset_counts.c decides which model to keep. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define MAX_DEGREE 3 /* loop levels inside that the cost's powers follow */
#define COST_CANCEL_SHARE 0.1 /* terms whose sum varies less than this are a constant (cost_cancels) */
#define OUTSIDE_SMALL 1e-3     /* a count outside the loop fitted within this share of the total need not be exact */

/* The terms of the cost per iteration of a loop with `degree` loop levels
 * inside: p^-1, then p .. p^degree.  Into o->only.  The shares of a body's
 * paths approach their limits as boundaries do, the faces of a grid first
 * (1/N); p^-2 as well let a few points near each other (16 .. 24) choose
 * it for a wiggle, and put the limit 7% off at 8x in test_model_compose. */
static void cost_terms(int degree, model_options *o)
{
    o->nonly = 0;
    o->only[o->nonly++] = (model_term){.coef = 1, .nfactors = 1, .factors = {{0, -1, 0}}};
    for (int e = 1; e <= degree && e <= MAX_DEGREE; e++)
        o->only[o->nonly++] = (model_term){.coef = 1, .nfactors = 1, .factors = {{0, e, 0}}};
}

/* The two parts' series over the points of s: trips s->y, cost
 * total / trips, and their leave-one-out values (model_loo_values). */
typedef struct parts {
    model m[2];          /* the trips' and the cost's models */
    double *cost;        /* total[i] / trips[i] */
    double *loo[2];      /* each part's leave-one-out values */
} parts;

static void parts_free(parts *p)
{
    free(p->cost), free(p->loo[0]), free(p->loo[1]);
}

/* Fit both parts of s into *p with the options to (trips) and co (cost),
 * and their leave-one-out values with the forms fixed: the composed
 * model's error is judged as a hypothesis of model_fit is, on its form.
 * 0, or -1 with a reason. */
static int fit_parts(const model_series *s, const double *total, const model_options *to, const model_options *co,
                     parts *p, char *err, size_t errlen)
{
    size_t n = s->npoints;
    p->cost = malloc(n * sizeof *p->cost);
    p->loo[0] = malloc(n * sizeof *p->loo[0]);
    p->loo[1] = malloc(n * sizeof *p->loo[1]);
    if (!p->cost || !p->loo[0] || !p->loo[1])
        return snprintf(err, errlen, "out of memory"), -1;
    for (size_t i = 0; i < n; i++)
        p->cost[i] = total[i] / s->y[i];
    model_series cs = *s;
    cs.y = p->cost;
    if (model_fit(s, to, &p->m[0], err, errlen) != 0 || model_fit(&cs, co, &p->m[1], err, errlen) != 0)
        return -1;
    if (model_loo_values(s, &p->m[0], p->loo[0]) != 0 || model_loo_values(&cs, &p->m[1], p->loo[1]) != 0)
        return snprintf(err, errlen, "a part cannot be fitted without each run"), -1;
    return 0;
}

/* 0, or -1 with the reason the series cannot be composed. */
static int check_composable(const model_series *s, const double *total, char *err, size_t errlen)
{
    if (s->nparams != 1)
        return snprintf(err, errlen, "composed models are of one parameter"), -1;
    if (s->npoints < 4)
        return snprintf(err, errlen, "a composed model needs 4 runs (3 without each)"), -1;
    for (size_t i = 0; i < s->npoints; i++)
        if (!(s->y[i] > 0) || !isfinite(total[i]))
            return snprintf(err, errlen, "run %zu has no iterations of the loop", i + 1), -1;
    return 0;
}

/* Whether the cost model m's terms cancel into a constant over the points
 * of s: their sum (the model less its constant) varies over the points by
 * under COST_CANCEL_SHARE of its largest magnitude.  One term over any
 * useful range varies by much more (N over 80..240: two thirds of it). */
static int cost_cancels(const model *m, const model_series *s)
{
    if (m->nterms < 2)
        return 0;
    double lo = INFINITY, hi = -INFINITY, mag = 0;
    for (size_t i = 0; i < s->npoints; i++) {
        double v = model_eval(m, &s->x[i]) - m->constant;
        lo = fmin(lo, v), hi = fmax(hi, v), mag = fmax(mag, fabs(v));
    }
    return mag > 0 && hi - lo < COST_CANCEL_SHARE * mag;
}

/* Whether the cost model m bends rather than costs: a negative constant
 * that cancels more than half of its other terms at the smallest training
 * point (md's neighbour build, 3 calls of -159e6 + 16.0e6 N + 432e6/N
 * instructions, 92% of the terms cancelled at N = 5: a difference of large
 * terms fitted to the steps of its bins per side, 1.29e9 at N = 36 against
 * 5.36e9 measured).  A cost per iteration or call is a mix of paths whose
 * shares tend to limits; predict_paths.c names the same form in a library
 * function's model. */
static int cost_bends(const model *m, const model_series *s)
{
    if (!(m->constant < 0) || m->nterms == 0)
        return 0;
    size_t lo = 0;
    for (size_t i = 1; i < s->npoints; i++)
        if (s->x[i] < s->x[lo])
            lo = i;
    return -m->constant > 0.5 * (model_eval(m, &s->x[lo]) - m->constant);
}

/* Replace the cost model of p, whose terms cancel, by the mean of the
 * costs (a model of no terms, whose leave-one-out values are the means of
 * the others), with the cancelling model as its alternative: each spread
 * point holds how far that one lies from the mean there. */
static int mean_cost(parts *p, const model_series *s)
{
    model old = p->m[1], *m = &p->m[1];
    size_t n = s->npoints;
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += p->cost[i] / (double)n;
    memset(m, 0, sizeof *m);
    m->method = MODEL_PMNF;
    m->constant = mean;
    m->npoints = n;
    double xmax = s->x[0];
    for (size_t i = 1; i < n; i++)
        xmax = fmax(xmax, s->x[i]);
    for (int j = 0; j < MODEL_SPREAD_POINTS; j++) {
        double x = ldexp(xmax, j + 1), a = model_eval(&old, &x);
        m->spread[j] = fmax(old.spread[j], isfinite(a) && mean != 0 ? fabs(a - mean) / fabs(mean) : 0);
    }
    model_series cs = *s;
    cs.y = p->cost;
    return model_loo_values(&cs, m, p->loo[1]);
}

/* (1 + a)(1 + b) - 1: how far a product may be off when its factors may
 * be off by a and b. */
static double product_doubt(double a, double b)
{
    return (1 + a) * (1 + b) - 1;
}

/* Whether m reproduces the count outside the loop, s->y, within
 * OUTSIDE_SMALL of the total at every run: its error is then not the
 * count's. */
static int outside_close(const model *m, const model_series *s, const double *total)
{
    for (size_t i = 0; i < s->npoints; i++)
        if (!(fabs(model_eval(m, &s->x[i]) - s->y[i]) < OUTSIDE_SMALL * fabs(total[i])))
            return 0;
    return 1;
}

/* The model of the count outside the loop, total - inner, into *m with
 * its leave-one-out values: it must be known exactly (a constant, 0 for
 * the loop's own count, or a confirmed exact polynomial), so that all the
 * doubt is the loop's, or be fitted within a thousandth of the total (a
 * branch some sizes take: dataloop.c's 1 instruction from N = 12 on).  0,
 * or -1 with a reason. */
static int fit_outside(const model_series *trips, const double *total, const double *inner, const model_options *o,
                       model *m, double *loo, char *err, size_t errlen)
{
    size_t n = trips->npoints;
    double *y = malloc(n * sizeof *y);
    if (!y)
        return snprintf(err, errlen, "out of memory"), -1;
    for (size_t i = 0; i < n; i++)
        y[i] = total[i] - inner[i];
    model_series s = *trips;
    s.y = y;
    model_options to = *o;
    to.integer_counts = 1, to.nonly = 0;
    int rc = model_fit(&s, &to, m, err, errlen);
    if (rc == 0 && m->method != MODEL_CONSTANT && (m->method != MODEL_EXACT || model_unconfirmed(m)) &&
        !outside_close(m, &s, total))
        rc = -1, snprintf(err, errlen, "the count outside the loop is not an exact polynomial");
    if (rc == 0 && model_loo_values(&s, m, loo) != 0)
        rc = -1, snprintf(err, errlen, "the count outside the loop cannot be fitted without each run");
    free(y);
    return rc;
}

/* The composed model's fit and leave-one-out errors over the points of
 * trips (model.h's fields): its value f(x_i) against total[i], and the
 * parts refitted without each point, loo_out[i] + trips * cost. */
static void set_errors(model *out, const model_series *trips, const double *total, const double *loo_out,
                       const parts *p)
{
    size_t n = trips->npoints;
    for (size_t i = 0; i < n; i++) {
        double f = model_eval(out, &trips->x[i]);
        out->fit_smape += model_smape_point(f, total[i]) / (double)n;
        out->cv_smape += model_smape_point(loo_out[i] + p->loo[0][i] * p->loo[1][i], total[i]) / (double)n;
        double rel = total[i] != 0 ? fabs(f - total[i]) / fabs(total[i]) : f != 0; /* model.h's fit_max_rel */
        out->fit_max_rel = fmax(out->fit_max_rel, rel);
    }
}

/* The spread of out = prod + outside at 2x..16x the largest point: the
 * product's doubt from its parts', in proportion to the product's share
 * of out there (the outside is exact). */
static void set_spread(model *out, const model *prod, const model_series *trips, const parts *p)
{
    double xmax = trips->x[0];
    for (size_t i = 1; i < trips->npoints; i++)
        xmax = fmax(xmax, trips->x[i]);
    for (int j = 0; j < MODEL_SPREAD_POINTS; j++) {
        double x = ldexp(xmax, j + 1), whole = fabs(model_eval(out, &x));
        double share = whole > 0 ? fmin(fabs(model_eval(prod, &x)) / whole, 1) : 1;
        out->spread[j] = product_doubt(p->m[0].spread[j], p->m[1].spread[j]) * share;
    }
}

int model_compose(const model_series *trips, const double *total, int degree, const model_options *o, model *out,
                  char *err, size_t errlen)
{
    return model_compose_nested(trips, total, total, degree, o, out, NULL, err, errlen);
}

int model_compose_nested(const model_series *trips, const double *total, const double *inner, int degree,
                         const model_options *o, model *out, model *trips_out, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || !errlen)
        err = dummy, errlen = sizeof dummy;
    memset(out, 0, sizeof *out);
    if (check_composable(trips, inner, err, errlen) != 0)
        return -1;
    model_options to = o ? *o : (model_options){0}, co = to;
    to.integer_counts = 1;
    to.nonly = 0;
    co.integer_counts = 0;
    cost_terms(degree, &co);
    parts p = {0};
    model outside, prod;
    double *loo_out = malloc(trips->npoints * sizeof *loo_out);
    int rc = loo_out ? fit_outside(trips, total, inner, &to, &outside, loo_out, err, errlen)
                     : (snprintf(err, errlen, "out of memory"), -1);
    if (rc == 0)
        rc = fit_parts(trips, inner, &to, &co, &p, err, errlen);
    if (rc == 0 && cost_cancels(&p.m[1], trips) && mean_cost(&p, trips) != 0)
        rc = -1, snprintf(err, errlen, "the mean cost cannot be fitted without each run");
    if (rc == 0 && cost_bends(&p.m[1], trips))
        rc = -1, snprintf(err, errlen, "the cost's negative constant cancels most of its terms: a bend, not a cost");
    if (rc == 0 && (model_multiply(&p.m[0], &p.m[1], &prod) != 0 || model_multiply_add(&p.m[0], &p.m[1], &outside, out) != 0)) {
        snprintf(err, errlen, "the product has more than %d terms", MODEL_MAX_TERMS);
        rc = -1;
    }
    if (rc == 0) {
        set_errors(out, trips, total, loo_out, &p);
        set_spread(out, &prod, trips, &p);
        out->method = MODEL_COMPOSED;
        out->npoints = trips->npoints;
        if (trips_out)
            *trips_out = p.m[0];
    }
    free(loo_out);
    parts_free(&p);
    return rc;
}
