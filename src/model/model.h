/* model.h — models of measured quantities as functions of the run
 * parameters (docs/models.md): counts fitted over runs, and reuse-distance
 * histogram models that predict misses at sizes never run.
 *
 *   model_term.c   terms: evaluation, formulas for people, parsing user basis terms
 *   model_fit.c    one series: exact polynomials, then the PMNF hypothesis search
 *                  with leave-one-out cross-validation; several parameters
 *   model_compose.c a loop's count as its iterations times its cost per iteration
 *   model_enclosing.c a count inside loops through the innermost with exact iterations
 *   rd_model.c     one reuse-distance histogram series: leading constant bins,
 *                  recursive equal-ratio splits, coalescing; misses at a capacity
 *
 * A model is plain data: a constant and a sum of terms c * prod p^i * log2(p)^j,
 * so it is stored in the database as rows and evaluated anywhere.  Nothing
 * here touches the database or the file system.
 */
#ifndef AUGUR_MODEL_H
#define AUGUR_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "rd/rd.h"

#define MODEL_MAX_PARAMS 4 /* parameters a model can depend on */
#define MODEL_MAX_TERMS 8  /* non-constant terms of one model */
#define MODEL_MAX_BASIS 16 /* user-supplied basis terms */

/* p^exponent * log2(p)^log_exponent of parameter `param` (an index into the
 * point coordinates).  exponent may be fractional (1/2 for sqrt) or 0. */
typedef struct model_factor {
    int param;
    double exponent;
    int log_exponent;
} model_factor;

/* coef * product of factors; a term with no factors is a constant. */
typedef struct model_term {
    double coef;
    int nfactors;
    model_factor factors[MODEL_MAX_PARAMS];
} model_term;

/* How a model was found (docs/models.md). */
enum model_method {
    MODEL_CONSTANT,       /* every point equal */
    MODEL_EXACT,          /* a polynomial that reproduces every point and predicts every left-out point exactly */
    MODEL_PMNF,           /* the best single-parameter normal form by LOO SMAPE */
    MODEL_ADDITIVE,       /* several parameters: f1(p1) + f2(p2) */
    MODEL_MULTIPLICATIVE, /* several parameters: f1(p1) * f2(p2) (+ the parts alone) */
    MODEL_NESTED,         /* several parameters: coefficients of the inner fit modeled in the outer one */
    MODEL_COMPOSED,       /* a loop's count: its iterations' model times its cost per iteration's (model_compose) */
    MODEL_STATIC          /* the constant plus coefficients times static formulas (model_static.c) */
};
#define MODEL_METHOD_LAST MODEL_STATIC

#define MODEL_SPREAD_POINTS 4 /* model.spread at 2x, 4x, 8x and 16x the largest training value */


typedef struct model {
    enum model_method method;
    double constant;
    int nterms;
    model_term terms[MODEL_MAX_TERMS];
    /* Errors over the training points, in percent (SMAPE = mean of
     * 200 |f - y| / (|f| + |y|), 0 where both are 0). */
    double fit_smape;   /* model fitted on all points, evaluated on them */
    double cv_smape;    /* leave-one-out: each point predicted by the model fitted without it */
    double fit_max_rel; /* largest |f - y| / |y| over the points, as a fraction (0 where y = 0 = f) */
    size_t npoints;     /* points it was fitted on */
    /* How far the plausible alternatives of a one-parameter model part
     * from it beyond the training range (docs/models.md, "Uncertainty of
     * counts"): spread[i] is the largest |alt - model| / |model| at
     * 2^(i+1) times the largest training value over the hypotheses whose
     * leave-one-out SMAPE is within MODEL_PLAUSIBLE of the best's; 0 when
     * none differs, or for models fitted before it was kept. */
    double spread[MODEL_SPREAD_POINTS];
    /* MODEL_STATIC: its terms, formulas of the static model (NULL for the
     * other methods, which keep theirs in terms[]).  Not owned: whoever
     * made or loaded the model frees it (model_static_free). */
    struct model_static *st;
    /* For a reuse-distance slice edge: the largest (model - alt) / model
     * at the same points over the slice's edges under the group's other
     * plausible term sets that lie below it (rd_model.c, share_terms), in
     * [0, 1]; 0 for every other model.  spread cannot say which side its
     * alternatives lie on, and one above hides one below. */
    double spread_below[MODEL_SPREAD_POINTS];
} model;

/* A series to fit: npoints points with nparams coordinates each
 * (x[i * nparams + k] is parameter k of point i) and their values y[i].
 * Points with equal coordinates are allowed (repeated runs): they are
 * averaged before fitting. */
typedef struct model_series {
    size_t npoints;
    int nparams;
    const double *x;
    const double *y;
} model_series;

typedef struct model_options {
    int nbasis;                          /* user basis terms (coef ignored), tried as extra hypotheses */
    model_term basis[MODEL_MAX_BASIS];
    int integer_counts;                  /* the values are integer counts: try exact polynomials first */
    /* With nonly > 0 (one parameter only): instead of the PMNF search, the
     * hypotheses are c0 plus each non-empty subset of these terms (coef
     * ignored), chosen by the same rules; the basis above is not tried.  A
     * family of series that must extrapolate alike (the slices of one
     * reuse-distance histogram) is fitted with one such term set. */
    int nonly;
    model_term only[MODEL_MAX_TERMS];
    /* Cross-validate every hypothesis in full, as if no shortcut existed
     * (model_fit.c: the shortcuts skip only what cannot change the model;
     * tests compare against this). */
    int exhaustive;
    /* The series is a sum of parts that do not cancel (a reuse distance: the
     * lines its loops touch in between): a hypothesis whose negative parts
     * cancel all but 5% of its positive ones at some point is rejected
     * (model_fit.c, cancels), as one whose term is negligible is. */
    int no_cancel;
    /* The series' growth must be evidenced (one parameter): a hypothesis
     * whose terms hold less than half of its value at the largest point is
     * rejected (model_fit.c, weak_growth): a drift, not a growth.  Set for
     * the distances of a reuse group in a loop whose trips the data decide
     * (rd_model.c), whose mix moves with the size. */
    int evidenced_growth;
} model_options;

/* 1 when m is an exact polynomial that no spare run confirms: fitted
 * through as many points as it has coefficients (model_fit's
 * interpolating polynomial of simple fractions); one more run at another
 * value would.  Its range then holds the other forms (m->spread). */
int model_unconfirmed(const model *m);

/* The largest leave-one-out SMAPE (percent) of a plausible alternative
 * with `nterms` terms to a model of model_nterms terms whose search's
 * best has best_cv: one the training runs cannot tell from the model
 * (model_fit.c; also rd_model.c's term sets). */
double model_plausible_cv(int nterms, int model_nterms, double best_cv);

/* m->spread at `reach` times the largest training value: linear in
 * log2(reach) between 0 at reach <= 1 and spread[i] at 2^(i+1),
 * continued along the last two points beyond 16. */
double model_spread_at(const model *m, double reach);

/* ---- static terms (model_static.c) ---------------------------------------
 * A count modeled on the form the source gives it (augur model --basis
 * static, docs/models.md "Static basis"): the constant plus coef[k] times
 * static formula k (a form of static/form.h: a loop's iterations in the
 * run, exact quasi-polynomials in the program's unknowns) evaluated with
 * the unknowns named as the set's parameters. */
struct json_t;
typedef struct model_static {
    int nterms;
    double coef[MODEL_MAX_TERMS];
    struct json_t *forms[MODEL_MAX_TERMS]; /* owned references */
    char *labels[MODEL_MAX_TERMS];         /* what each formula counts: "loop at basis.c:19" */
    int nnames;
    char *names[MODEL_MAX_PARAMS];         /* the coordinates' names */
} model_static;

/* A new model_static without terms over coordinates names[0..nnames), or
 * NULL when memory runs out. */
model_static *model_static_new(int nnames, char *const *names);
/* Add form (a new reference is taken) with its label; its index, or -1
 * when there are MODEL_MAX_TERMS already or memory runs out. */
int model_static_add(model_static *st, struct json_t *form, const char *label);
void model_static_free(model_static *st);
/* Formula k at the point x (without its coefficient); NAN when one of its
 * unknowns is not a coordinate. */
double model_static_term(const model_static *st, int k, const double *x);

/* Fit the constant and st's coefficients on s by least squares weighted
 * by 1/|y| (as model_fit's hypotheses), with the fit and leave-one-out
 * errors, coefficients within rounding noise of simple fractions snapped to
 * them when the model stays exact, terms of coefficient 0 dropped from st;
 * *out is the model (method MODEL_STATIC, out->st = st).  0, or -1
 * when s has no more distinct points than coefficients (leave-one-out
 * needs one spare) or a term has no value at a point. */
int model_fit_static(const model_series *s, model_static *st, model *out);
/* m->spread_below at the reach, interpolated as model_spread_at
 * interpolates m->spread, in [0, 1]. */
double model_spread_below_at(const model *m, double reach);

/* ---- terms (model_term.c) ----------------------------------------------- */

/* The model's value at the point x (x[k] = parameter k). */
double model_eval(const model *m, const double *x);

/* The value of one term without its coefficient, i.e. prod p^i log2(p)^j. */
double model_term_basis(const model_term *t, const double *x);

/* The product a*b as one term, factors merged per parameter (exponents
 * and log exponents added) and sorted by parameter; coefficient 1. */
model_term model_term_mul(const model_term *a, const model_term *b);

/* 1 if term a is written before term b: larger sum of exponents first,
 * then more logs (so "N^2 + N*log2(N) + N"). */
int model_term_before(const model_term *a, const model_term *b);

/* The product a*b expanded into *out (method, errors and spread left 0):
 * terms of equal factors merged, terms whose factors cancel added to the
 * constant, zero terms dropped, in model_term_before's order.  0, or -1
 * when it has more than MODEL_MAX_TERMS terms. */
int model_multiply(const model *a, const model *b, model *out);
/* a*b + c (c NULL: a*b) expanded as model_multiply expands a*b. */
int model_multiply_add(const model *a, const model *b, const model *c, model *out);

/* A formula for people, e.g. "3 + 0.5*N^2 + 2*N*log2(N)" with `names[k]`
 * for parameter k; coefficients are printed with up to 6 significant
 * digits, or as fractions such as 1/3 when they are one exactly.  Returns
 * the length written (as snprintf). */
int model_format(const model *m, const char *const *names, char *buf, size_t len);

/* Parse a basis term such as "N^2*log2(N)", "sqrt(N)", "N^(1/3)", "N*M",
 * "log2(N)^2" over parameters names[0..nnames).  Returns 0, or -1 with a
 * message naming the unknown parameter or the bad syntax and showing the
 * accepted forms. */
int model_parse_term(const char *text, const char *const *names, int nnames, model_term *out, char *err,
                     size_t errlen);

/* ---- fitting (model_fit.c) ---------------------------------------------- */

/* Fit the series.  Single parameter: constant; then, with integer_counts,
 * exact polynomials of rising degree; then the PMNF search (Extra-P's
 * exponent sets, plus the user basis), choosing by leave-one-out SMAPE.
 * Several parameters: each alone on the lines of points where the others
 * are fixed, then additive, multiplicative and nested combinations refitted
 * on all points.  Returns 0, or -1 with a message when the series cannot
 * be modeled: fewer distinct points than the simplest non-constant model
 * needs (naming how many are needed), a parameter that never varies, or
 * non-finite values. */
int model_fit(const model_series *s, const model_options *o, model *out, char *err, size_t errlen);

/* A loop's count (instructions, accesses, flops) as its iterations times
 * its cost per iteration (docs/models.md, "Loops: iterations times cost
 * per iteration"): trips->y are the loop's header executions per run
 * (all > 0), total[] the count; both over trips->x, one parameter.  The
 * trips are fitted as any integer count (exact where they are a
 * polynomial), the cost total/trips over c0 and the subsets of
 * {p^-1, p, ..., p^degree} (degree, 0..3: the loop levels nested
 * inside, which bound its growth; p^-1: the shares of paths tending to
 * their limits), by model_fit's rules; *out is their product
 * (method MODEL_COMPOSED), its fit errors over the points, its
 * leave-one-out SMAPE from both parts refitted without each point, and
 * its spread from both parts' spreads.  0, or -1 (with a reason) when it
 * cannot be composed: not one parameter, fewer than 4 points, a run with
 * no iterations, a part that cannot be fitted, a cost whose negative
 * constant cancels more than half of its other terms at the smallest
 * point (a bend fitted, not a cost), more terms than a model holds. */
int model_compose(const model_series *trips, const double *total, int degree, const model_options *o, model *out,
                  char *err, size_t errlen);
/* model_compose of a loop nested in the subject counted: total[] is the
 * subject's count (a function, or a loop around the loop), inner[] the
 * loop's, trips->y its header executions.  The count outside the loop,
 * total - inner, must be a constant or a confirmed exact polynomial (the
 * loops around it have exact trips and their bodies a fixed cost), or
 * a model within a thousandth of total at every run (its error does not
 * matter); the
 * model is it plus the loop's iterations times its cost per iteration,
 * its errors against total, its spread the product's scaled by its share
 * of the model at 2x..16x.  The trips' model into *trips_out (unless
 * NULL).  model_compose is the case inner == total.  0, or -1 (with a
 * reason) as model_compose, or when the count outside is not exact. */
int model_compose_nested(const model_series *trips, const double *total, const double *inner, int degree,
                         const model_options *o, model *out, model *trips_out, char *err, size_t errlen);

/* Whether model m of a loop's trips is known exactly (a constant, or a
 * confirmed exact polynomial): the structure's loops around a
 * data-dependent part run a polynomial number of times. */
int model_exact_trips(const model *m);

/* Widen the spread of m, which replaced the direct fit alt of the series
 * over s's points, to hold alt where the runs cannot tell them apart
 * (alt's leave-one-out error at most twice m's): at 2x..16x the largest
 * point. */
void model_keep_alternative(model *m, const model *alt, const model_series *s);

/* A count s->y every event of which lies inside each of nloops nested
 * loops, innermost first (loop k: trips[k][i] header executions at point
 * i, degree[k] loop levels inside it), whose direct fit is *m: *m becomes
 * the iterations of the innermost of those loops whose trips are known
 * exactly (model_exact_trips) times its cost per iteration (model_compose)
 * when the direct fit is neither exact nor constant and the product's
 * leave-one-out error is at most twice the direct one's, the direct kept
 * in its spread (model_enclosing.c; docs/models.md, "Reuse-distance
 * histogram models": a reuse group's touches).  Returns the index of the
 * loop taken, or -1 with *m unchanged. */
int model_compose_enclosing(const model_series *s, size_t nloops, const double *const *trips, const int *degree,
                            const model_options *o, model *m);

/* The scores of the hypotheses tried on one series, kept across fits of
 * that series with different options (the term sets of a histogram's
 * slices, rd_model.c, share most of their hypotheses): a hypothesis met
 * again is not fitted again.  Opaque; one memo serves one series (the
 * same x and y) only. */
typedef struct model_memo model_memo;

/* A new empty memo, or NULL when out of memory. */
model_memo *model_memo_new(void);
void model_memo_free(model_memo *m);

/* model_fit, with the scores of hypotheses met before on this series taken
 * from memo and the new ones added to it (memo NULL: model_fit).  The
 * model is the one model_fit gives. */
int model_fit_memo(const model_series *s, const model_options *o, model_memo *memo, model *out, char *err,
                   size_t errlen);

/* A walk's models (docs/models.md, "Strides"): `stride` holds the
 * magnitude in bytes of an instruction's dominant address delta in each
 * run, `run` its mean accesses per run.  Fits both (model_fit with o) into
 * *stride_out and *run_out and returns 1 when the stride model gives every
 * run's stride back (fit_max_rel <= MODEL_WALK_MAX_REL: the sets a stride
 * reaches change with its last bits, so a stride that is not an exact
 * function of the parameters is not extrapolated), is not a constant
 * below `block` bytes (a contiguous walk: nothing to model), and the run
 * model predicts each run from the others within MODEL_WALK_RUN_MAX_CV
 * percent (leave-one-out SMAPE: a run length that jumps between sizes,
 * as the vote's count does when its candidate loses the lead for a
 * while, extrapolates anywhere); else 0. */
#define MODEL_WALK_MAX_REL 1e-9
#define MODEL_WALK_RUN_MAX_CV 5.0
int model_walk_fit(const model_series *stride, const model_series *run, double block, const model_options *o,
                   model *stride_out, model *run_out);

/* One point's SMAPE term in percent, 200 |f - y| / (|f| + |y|) (0 when
 * both are 0): fit_smape and cv_smape are its mean over the points. */
double model_smape_point(double f, double y);

/* The leave-one-out values of m's form on s: pred[i] is the model of m's
 * terms and a constant fitted as model_fit fits a hypothesis (least
 * squares weighted by 1/|y|) on every point of s but i, evaluated at
 * point i.  0, or -1 when a fit fails or has fewer points than
 * coefficients, or memory runs out. */
int model_loo_values(const model_series *s, const model *m, double *pred);

/* Human name of a method: "constant", "exact", "pmnf", ... */
const char *model_method_name(enum model_method m);

/* ---- reuse-distance histogram models (rd_model.c) ------------------------ */

/* One training histogram: the group's summed histogram in one run. */
typedef struct rd_series_point {
    const double *x;      /* nparams coordinates */
    uint64_t cold;        /* first touches */
    size_t nbins;
    const rd_binrec *bins; /* non-empty bins, ascending */
} rd_series_point;

/* A leading bin whose distance is the same constant at every size
 * (spatial reuse in the innermost loop): only its share is modeled, as the
 * cumulative share of it and the leading bins before it, so that touches
 * moving between adjacent distances with the size leave the model smooth. */
typedef struct rd_model_lead {
    double distance; /* the constant distance */
    model fraction;  /* share of all non-cold touches at the leading distances <= distance, 0..1 */
} rd_model_lead;

/* A slice [u_low, u_high) of the non-leading touches in rank order, the
 * same slice at every size; its distances at p spread from low(p) to
 * high(p) with mean mean(p). */
typedef struct rd_model_bin {
    double u_low, u_high;
    model low, high, mean;
} rd_model_bin;

typedef struct rd_model {
    model cold;     /* first touches */
    model touches;  /* non-cold touches */
    size_t nlead;
    rd_model_lead *lead;
    size_t nbins;
    rd_model_bin *bins; /* ascending u */
    /* The growth bound beyond the training range (one parameter; set when
     * a model set's groups are loaded, rd_models_bound_growth; not
     * stored): a slice edge with a term of a power above max_power grows
     * past top, the largest training value, no faster than p^max_power
     * from its value at top.  max_power 0: no bound. */
    double max_power, top;
} rd_model;

/* Fit the histogram series of one group (npoints >= 3 histograms at
 * distinct parameter points, nparams coordinates each).  Returns 0, or -1
 * with a message. Free with rd_model_free, also after failure. */
int rd_model_fit(const rd_series_point *pts, size_t npoints, int nparams, const model_options *o, rd_model *out,
                 char *err, size_t errlen);

/* The largest power of parameter 0 among the terms of m with a positive
 * coefficient (log factors ignored); 0 for a constant. */
double model_power(const model *m);

/* Bound the growth of the slice edges of the n models ms[] (the groups of
 * one block size of a one-parameter model set fitted up to `top`) by
 * their footprint: the sum of their cold models, the distinct blocks the
 * run touches, grows as p^k with k the largest power among the cold
 * models' positive terms, rounded up to a whole one; a reuse distance
 * counts the distinct blocks touched in between, never more than that
 * (rd_growth.c).  Sets each model's max_power (k, or 0 when the
 * footprint does not grow) and top. */
void rd_models_bound_growth(rd_model *const *ms, size_t n, double top);

/* Predicted misses of a fully-associative LRU cache of `capacity` blocks
 * at the point x: cold + leading bins with distance >= capacity + the part
 * of each slice at or above capacity (its touches spread evenly from low to
 * high). */
double rd_model_misses(const rd_model *m, const double *x, uint64_t capacity);

/* The range [range[0], range[1]] of m's misses at x for a cache of
 * `capacity` blocks (docs/models.md, "Uncertainty"), x lying `reach`
 * times beyond the training points (the largest ratio over the
 * parameters; <= 1 inside them).  With g = 1 + log2(max(reach, 1)) and,
 * for a model M, doubt(M) = max(cv(M) * g, model_spread_at(M, reach))
 * (cv: its leave-one-out SMAPE as a fraction), the extremes of the misses
 * when
 *   - each slice's distances are scaled by (1 + d_i) or 1 / (1 + d_i),
 *     d_i = max(RD_DOUBT_DISTANCE_FLOOR * g, doubt(low_i), doubt(high_i)),
 *     or down by 1 - s where an edge's spread s at the reach is below 1
 *     (its alternatives may lie below it, at (1 - s) times its value);
 *   - cold and touches by 1 -+ max(doubt(cold), doubt(touches));
 *   - the leads' share moves by +- doubt(F_last) * F_last(x);
 *   - the slice edges are taken with or without their monotone repair
 *     (whether slices passing each other are one group's distances
 *     running off, or two groups changing places);
 * widened to at least +- RD_DOUBT_SHARE_FLOOR * g of the misses above the
 * cold ones (the slices' shares are fixed in u; the real ones drift with
 * the size).  Always range[0] <= rd_model_misses(m, x, capacity) <=
 * range[1]. */
#define RD_DOUBT_DISTANCE_FLOOR 0.02
#define RD_DOUBT_SHARE_FLOOR 0.02
void rd_model_misses_range(const rd_model *m, const double *x, uint64_t capacity, double reach, double range[2]);

/* The slices of m that cross a cache of `capacity` blocks between the
 * training points and x (docs/models.md, "Capacity crossings").  A slice
 * is on the miss side at a point when the midpoint of its edges there (as
 * rd_model_misses evaluates them) is >= capacity, i.e. when at least half
 * of its touches miss; it crosses when it is on the same side at every
 * training point train[t * nparams ..] (t < ntrain) and on the other at x.
 * Leading bins have one constant distance and never cross.  Returns how
 * many slices cross (0 for no training points), or -1 when memory runs
 * out. */
int rd_model_crossings(const rd_model *m, const double *train, size_t ntrain, int nparams, const double *x,
                       uint64_t capacity);

void rd_model_free(rd_model *m);

#endif
