/* test_model_fit.c — unit tests of the model terms and the series fitter
 * (model_term.c, model_fit.c).
 *
 * Every expected number is known independently of the fitter: the series
 * are generated here from closed forms (polynomials with integer or half
 * coefficients, n log n, square roots, products of two parameters), and
 * the fitter must recover the form, predict far outside the training range,
 * and refuse series that cannot be modeled with a message that says why;
 * a walk's stride is modeled only when exact.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"

static const char *const names1[] = {"N"};
static const char *const names2[] = {"N", "M"};

/* ---- helpers ---------------------------------------------------------------- */

/* Fit y = f(x) at the n values xs of one parameter; asserts success. */
static void fit1(const double *xs, size_t n, double (*f)(double), const model_options *o, model *m)
{
    double y[64];
    assert_true(n <= 64);
    for (size_t i = 0; i < n; i++)
        y[i] = f(xs[i]);
    model_series s = {n, 1, xs, y};
    char err[256];
    int rc = model_fit(&s, o, m, err, sizeof err);
    if (rc)
        fail_msg("model_fit: %s", err);
}

/* The formula of m over `names`. */
static const char *formula(const model *m, const char *const *names, char *buf, size_t len)
{
    model_format(m, names, buf, len);
    return buf;
}

/* Assert that |got - want| <= rel * |want|, printing both otherwise. */
static void assert_close(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.17g, want %.17g (rel %g)", got, want, rel);
}

/* Assert that `text` contains `part`. */
static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

/* The one term of m must be p^e * log2(p)^j of parameter 0. */
static void assert_single_term(const model *m, double e, int j)
{
    char buf[256];
    if (m->nterms != 1)
        fail_msg("%d terms in %s", m->nterms, formula(m, names1, buf, sizeof buf));
    assert_int_equal(m->terms[0].nfactors, 1);
    assert_int_equal(m->terms[0].factors[0].param, 0);
    assert_true(fabs(m->terms[0].factors[0].exponent - e) < 1e-12);
    assert_int_equal(m->terms[0].factors[0].log_exponent, j);
}

static const double sizes5[] = {8, 16, 24, 32, 40};

/* ---- exact polynomials ---------------------------------------------------------- */

static double matmul(double n) { return n * n * n + n * n; }
static double triangle(double n) { return n * (n + 1) / 2; }
static double linear(double n) { return 3 * n + 7; }
static double flat(double n) { (void)n; return 4096; }

/* N^3 + N^2 (a matrix product's multiply-adds plus a row sweep). */
static void test_exact_cubic(void **state)
{
    (void)state;
    model_options o = {.integer_counts = 1};
    model m;
    char buf[256];
    fit1(sizes5, 5, matmul, &o, &m);
    assert_int_equal(m.method, MODEL_EXACT);
    assert_string_equal(formula(&m, names1, buf, sizeof buf), "N^3 + N^2");
    double x = 320;
    assert_true(model_eval(&m, &x) == 32870400.0);
    assert_true(m.fit_max_rel == 0.0);
    assert_true(m.fit_smape == 0.0);
    assert_true(m.cv_smape < 1e-9);
    assert_int_equal(m.npoints, 5);
}

/* N(N+1)/2: the coefficients are stored exactly as 0.5. */
static void test_exact_triangle(void **state)
{
    (void)state;
    model_options o = {.integer_counts = 1};
    model m;
    char buf[256];
    fit1(sizes5, 5, triangle, &o, &m);
    assert_int_equal(m.method, MODEL_EXACT);
    assert_int_equal(m.nterms, 2);
    assert_true(m.constant == 0.0);
    assert_true(m.terms[0].coef == 0.5 && m.terms[1].coef == 0.5);
    assert_string_equal(formula(&m, names1, buf, sizeof buf), "N^2/2 + N/2");
    double x = 320;
    assert_true(model_eval(&m, &x) == 51360.0);
}

/* 3N + 7, and the constant. */
static void test_exact_linear_and_constant(void **state)
{
    (void)state;
    model_options o = {.integer_counts = 1};
    model m;
    char buf[256];
    fit1(sizes5, 5, linear, &o, &m);
    assert_int_equal(m.method, MODEL_EXACT);
    assert_string_equal(formula(&m, names1, buf, sizeof buf), "7 + 3*N");
    double x = 320;
    assert_true(model_eval(&m, &x) == 967.0);

    fit1(sizes5, 5, flat, &o, &m);
    assert_int_equal(m.method, MODEL_CONSTANT);
    assert_int_equal(m.nterms, 0);
    assert_true(model_eval(&m, &x) == 4096.0);
    assert_true(m.fit_smape == 0.0 && m.cv_smape == 0.0 && m.fit_max_rel == 0.0);
    assert_string_equal(formula(&m, names1, buf, sizeof buf), "4096");
}

/* Large parameters and counts: N^4/2 + 3N at N = 1000 .. 10000 reaches 5e15
 * and is still recovered exactly. */
static double quartic(double n) { return n * n * n * n / 2 + 3 * n; }
static void test_exact_large(void **state)
{
    (void)state;
    static const double xs[] = {1000, 2500, 4000, 5500, 7000, 8500, 10000};
    model_options o = {.integer_counts = 1};
    model m;
    char buf[256];
    fit1(xs, 7, quartic, &o, &m);
    assert_int_equal(m.method, MODEL_EXACT);
    assert_string_equal(formula(&m, names1, buf, sizeof buf), "N^4/2 + 3*N");
}

/* Repeated runs are averaged: two runs per size with counts c and c + 2
 * average to the odd series 2N + 1 exactly. */
static void test_repeated_points(void **state)
{
    (void)state;
    double x[10], y[10];
    for (int i = 0; i < 5; i++) {
        x[2 * i] = x[2 * i + 1] = sizes5[i];
        y[2 * i] = 2 * sizes5[i];
        y[2 * i + 1] = 2 * sizes5[i] + 2;
    }
    model_series s = {10, 1, x, y};
    model_options o = {.integer_counts = 1};
    model m;
    char err[256], buf[256];
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), 0);
    assert_int_equal(m.npoints, 5);
    assert_int_equal(m.method, MODEL_EXACT);
    assert_string_equal(formula(&m, names1, buf, sizeof buf), "1 + 2*N");
}

/* ---- PMNF ------------------------------------------------------------------------- */

static double nlogn(double n) { return 5 * n * log2(n) + 100; }

/* 5 N log2 N + 100 at powers of two (integer counts): not a polynomial,
 * found as the N*log2(N) term, and 8x beyond the range within 0.1 %. */
static void test_pmnf_nlogn(void **state)
{
    (void)state;
    static const double xs[] = {64, 128, 256, 512, 1024};
    model_options o = {.integer_counts = 1};
    model m;
    char buf[256];
    fit1(xs, 5, nlogn, &o, &m);
    assert_int_equal(m.method, MODEL_PMNF);
    assert_single_term(&m, 1.0, 1);
    double x = 8192;
    assert_close(model_eval(&m, &x), nlogn(x), 1e-3);
    /* exact integers: the coefficients are snapped */
    assert_string_equal(formula(&m, names1, buf, sizeof buf), "100 + 5*N*log2(N)");

    /* the same at spaced sizes, as real numbers */
    static const double ys[] = {100, 300, 700, 1500, 2600, 4000};
    o.integer_counts = 0;
    fit1(ys, 6, nlogn, &o, &m);
    assert_int_equal(m.method, MODEL_PMNF);
    assert_single_term(&m, 1.0, 1);
    x = 32000;
    assert_close(model_eval(&m, &x), nlogn(x), 1e-3);
}

static double root(double n) { return 3 * sqrt(n) + 10; }

/* 3 sqrt(N) + 10: the exponent 1/2. */
static void test_pmnf_sqrt(void **state)
{
    (void)state;
    static const double xs[] = {16, 64, 256, 1024, 4096};
    model_options o = {.integer_counts = 1};
    model m;
    char buf[256];
    fit1(xs, 5, root, &o, &m);
    assert_int_equal(m.method, MODEL_PMNF);
    assert_single_term(&m, 0.5, 0);
    assert_string_equal(formula(&m, names1, buf, sizeof buf), "10 + 3*sqrt(N)");
    double x = 65536;
    assert_close(model_eval(&m, &x), root(x), 1e-6);
}

/* Deterministic pseudo-noise in [-1, 1]. */
static double noise(unsigned i)
{
    uint32_t s = i * 2654435761u + 12345u;
    s ^= s >> 13;
    s *= 0x5bd1e995u;
    s ^= s >> 15;
    return (double)(s % 2001u) / 1000.0 - 1.0;
}

/* 2 N^2 + 50 with +-1 % noise: the quadratic, not a higher-degree overfit. */
static void test_pmnf_noisy_quadratic(void **state)
{
    (void)state;
    static const double xs[] = {16, 32, 64, 96, 128, 192, 256, 384, 512};
    double y[9];
    for (unsigned i = 0; i < 9; i++)
        y[i] = (2 * xs[i] * xs[i] + 50) * (1 + 0.01 * noise(i));
    model_series s = {9, 1, xs, y};
    model_options o = {.integer_counts = 0};
    model m;
    char err[256];
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), 0);
    assert_int_equal(m.method, MODEL_PMNF);
    assert_single_term(&m, 2.0, 0);
    assert_close(m.terms[0].coef, 2.0, 0.02);
    assert_true(m.cv_smape > 0.1 && m.cv_smape < 2.0);
    assert_true(m.fit_max_rel < 0.1); /* least squares: the small values fit worst */

    /* integer counts do not change that: rounded noisy values are no polynomial */
    for (unsigned i = 0; i < 9; i++)
        y[i] = nearbyint(y[i]);
    o.integer_counts = 1;
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), 0);
    assert_int_equal(m.method, MODEL_PMNF);
    assert_single_term(&m, 2.0, 0);
}

/* A share that rises towards its limit as c0 - c1/N (the first touches of a
 * row's lines, N^2/8 of N^3, leave the short distances as 1/N): with the
 * share terms N^-1, N^-2 (rd_model.c's fraction options) it must be fitted
 * with its negative N^-1 term, not as a constant.  The shape of an ADI
 * solver's distance-0 share (issue 20): 0.9 - 1.4/N over N = 8..16 gives
 * 0.725 ... 0.8125; the constant fit predicted 0.7758 at N = 64 against
 * 0.878. */
static void test_rising_share(void **state)
{
    (void)state;
    static const double xs[] = {8, 10, 12, 14, 16};
    double y[5];
    for (unsigned i = 0; i < 5; i++)
        y[i] = 0.9 - 1.4 / xs[i];
    model_series s = {5, 1, xs, y};
    model_options o = {.nonly = 2};
    o.only[0] = (model_term){1.0, 1, {{0, -1, 0}}};
    o.only[1] = (model_term){1.0, 1, {{0, -2, 0}}};
    model m;
    char err[256];
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), 0);
    assert_int_equal(m.nterms, 1);
    double x = 64;
    assert_close(model_eval(&m, &x), 0.9 - 1.4 / 64, 1e-9);
    /* falling as c0 + c1/N is accepted as before */
    for (unsigned i = 0; i < 5; i++)
        y[i] = 0.5 + 2.0 / xs[i];
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), 0);
    assert_close(model_eval(&m, &x), 0.5 + 2.0 / 64, 1e-9);
}

static double stencil_sweep(double n) { return 140 + 36 * n * n - 88 * n; }
static double nlogn_100(double n) { return 5 * n * log2(n) + 100; }

/* The integer counts of stencil_sweep at N = 100, 200, 400 into *m, which
 * must be their quadratic (exact, right at 1600). */
static void fit_stencil_three(model *m)
{
    static const double three[] = {100, 200, 400};
    model_options o = {.integer_counts = 1};
    fit1(three, 3, stencil_sweep, &o, m);
    assert_int_equal(m->method, MODEL_EXACT);
    double x = 1600;
    assert_close(model_eval(m, &x), stencil_sweep(1600), 1e-12);
}

/* Three runs (issue 22): a 5-point stencil sweep's instructions
 * 140 + 36 N^2 - 88 N at N = 100, 200, 400 are the quadratic through them,
 * whose coefficients are whole: exact (the PMNF search chose
 * 16790 + 3.5 N^(5/3) log2(N)^2, -5.2% at N = 1600); its spread says
 * that three runs cannot rule the other forms out (over 1% at 4x).  A
 * series of another form (5 N log2 N + 100) is not taken for a
 * polynomial: its quadratic through three points has no simple
 * coefficients.  With five runs the quadratic is confirmed: spread 0. */
static void test_three_runs(void **state)
{
    (void)state;
    static const double three[] = {100, 200, 400}, five[] = {100, 200, 300, 400, 500};
    model_options o = {.integer_counts = 1};
    model m;
    fit_stencil_three(&m);
    printf("    spread at 2x..16x: %g %g %g %g\n", m.spread[0], m.spread[1], m.spread[2], m.spread[3]);
    assert_true(m.spread[1] > 0.01);
    assert_true(m.spread[0] <= m.spread[1] && m.spread[1] <= m.spread[2]);
    fit1(three, 3, nlogn_100, &o, &m);
    assert_int_not_equal(m.method, MODEL_EXACT);
    fit1(five, 5, stencil_sweep, &o, &m);
    assert_int_equal(m.method, MODEL_EXACT);
    assert_true(m.spread[3] == 0);
}

/* A fit reads no memory it has not written: the interpolating polynomial
 * of test_three_runs was solved from basis values left in the solver's
 * scratch by the hypotheses before it, whose column for its second term
 * no hypothesis of three points had written (a NaN there lost the
 * polynomial).  With the heap's free chunks full of NaN bits (0xff), the
 * stencil's quadratic is still found. */
static void test_no_stale_memory(void **state)
{
    (void)state;
    enum { NBLOCKS = 256 };
    void *blocks[NBLOCKS];
    for (int i = 0; i < NBLOCKS; i++) {
        size_t size = 16 * (size_t)(i + 1);
        blocks[i] = malloc(size);
        assert_non_null(blocks[i]);
        memset(blocks[i], 0xff, size);
    }
    for (int i = 0; i < NBLOCKS; i++)
        free(blocks[i]);
    model m;
    fit_stencil_three(&m);
}

/* Fit the series y at xs (n points) as integer counts; asserts success. */
static void fit_counts(const double *xs, const double *y, size_t n, model *m)
{
    model_options o = {.integer_counts = 1};
    model_series s = {n, 1, xs, y};
    char err[256];
    if (model_fit(&s, &o, m, err, sizeof err))
        fail_msg("model_fit: %s", err);
}

/* Library code at the edge of a program (HPCCG trained at N = 6..10,
 * issue 20): libc's __printf_fp_l, _int_free and sysmalloc executed
 * 2049 1748 1874 1916 1889, 985 985 985 869 869 and 154 154 271 194 311
 * instructions.  Through five consecutive small N any quartic has
 * coefficients of denominator 24 at most, so the interpolating rule took
 * them for exact quartics (__printf_fp_l = 107714 + 263 N^4/12 - ...),
 * which put the program's instructions +45% at 4x.  A polynomial of an
 * affine loop nest rises steadily: the interpolating form is taken only
 * for counts that rise at every run, by a polynomial that keeps rising. */
static void test_library_series_not_polynomial(void **state)
{
    (void)state;
    static const double xs[] = {6, 7, 8, 9, 10};
    static const double series[][5] = {
        {2049, 1748, 1874, 1916, 1889}, {985, 985, 985, 869, 869}, {154, 154, 271, 194, 311}};
    for (int k = 0; k < 3; k++) {
        model m;
        fit_counts(xs, series[k], 5, &m);
        double x = 40;
        printf("    series %d at N=40: %g (%s)\n", k, model_eval(&m, &x), model_method_name(m.method));
        assert_int_not_equal(m.method, MODEL_EXACT);
        assert_true(model_eval(&m, &x) < 2 * 2049);
    }
    static const double three[] = {6, 8, 10}, y3[] = {154, 271, 194};
    model m;
    fit_counts(three, y3, 3, &m);
    assert_int_not_equal(m.method, MODEL_EXACT);
}

/* Candidate pairs of a neighbour search over bins (the validation's md): 4N^3
 * atoms, each against the atoms of its bin and of 62 around it, 4N^3 / b^3 a
 * bin, with b = floor(1.1997 N) bins per side. */
static double bin_pairs(double n)
{
    double b = floor(1.1997 * n);
    return nearbyint(4 * n * n * n * 63 * 4 * n * n * n / (b * b * b));
}

/* Five consecutive sizes do not confirm a polynomial (issue 21): md's
 * neighbour-list reads at N = 5..9 (5 574 045 .. 26 564 153, the steps of its
 * bins per side) were taken for the quartic through them,
 * 211614755 + 209152 N^4/3 - ..., whose coefficients are simple only because
 * through consecutive N every quartic's are (denominators of 24 at most):
 * 4.78e10 at N = 36, 33 times the 1 463 899 369 measured, and with the reuse
 * groups' touches fitted the same way, L1 misses +1500%.  Neither that
 * series nor bin_pairs' is taken for a polynomial now: md's is a normal form
 * within 3 times the run (the steps, which no form of five sizes one apart
 * follows, are the rest; the function's loops compose it closer,
 * docs/models.md).  At N = 100, 200, 400 the stencil's quadratic is still
 * taken (test_three_runs): there the points' denominators are 60000. */
static void test_consecutive_sizes_not_polynomial(void **state)
{
    (void)state;
    static const double xs[] = {5, 6, 7, 8, 9},
                        reads[] = {5574045, 7115753, 11793567, 18190843, 26564153};
    double y[5], x = 36;
    for (int i = 0; i < 5; i++)
        y[i] = bin_pairs(xs[i]);
    model m;
    fit_counts(xs, reads, 5, &m);
    printf("    md's reads at N=36: %g (%s), measured 1463899369\n", model_eval(&m, &x),
           model_method_name(m.method));
    assert_int_not_equal(m.method, MODEL_EXACT);
    assert_true(model_eval(&m, &x) < 3 * 1463899369.0);
    fit_counts(xs, y, 5, &m);
    printf("    bin pairs at N=36: %g (%s), closed form %g\n", model_eval(&m, &x), model_method_name(m.method),
           bin_pairs(x));
    assert_int_not_equal(m.method, MODEL_EXACT);
}

/* A reuse distance is a sum of the lines touched in between, so its model
 * has no terms that cancel (model_options.no_cancel, which rd_model sets
 * for slice edges and means).  md's neighbour loads at N = 5..9: a slice
 * edge at 41.19, 67.6, 75.77, 75.83, 83.75 lines (a gap between two groups
 * of distances that the runs' bin steps moved across), under the group's
 * terms {N, N^2, N^3}, was -835.8 + 2.157 N^3 - 48.50 N^2 + 364.0 N (99%
 * of its positive parts cancelled at N = 9): 50,000 lines at N = 36, where
 * the run has 61.5.  Without cancelling terms it stays under 200. */
static void test_distance_terms_do_not_cancel(void **state)
{
    (void)state;
    static const double xs[] = {5, 6, 7, 8, 9}, edge[] = {41.19, 67.6, 75.77, 75.83, 83.75};
    model_options o = {.nonly = 3, .no_cancel = 1};
    for (int e = 1; e <= 3; e++)
        o.only[e - 1] = (model_term){1.0, 1, {{0, e, 0}}};
    model_series s = {5, 1, xs, edge};
    model m;
    char err[256];
    double x = 36;
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), 0);
    printf("    edge at N=36: %g lines (run: 61.5)\n", model_eval(&m, &x));
    assert_true(model_eval(&m, &x) < 200);
    o.no_cancel = 0;
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), 0);
    printf("    cancelling terms allowed: %g lines\n", model_eval(&m, &x));
    assert_true(model_eval(&m, &x) > 10000);
}

/* Counts that differ by one between runs (cold misses of the dynamic
 * loader's tunables: 64 64 63 63 63 as the environment's alignment
 * changes, seen in CI) are constant within what integer counts resolve.
 * Forms with more terms that fit the one-count step no better than the
 * constant are not plausible alternatives: the spread stays near the
 * data's own 1.6% (it was 49% at 2x and 8.9x at 4x, so a warning named
 * the loader's start-up among the uncertain functions). */
static void test_noise_spread(void **state)
{
    (void)state;
    static const double xs[] = {64, 96, 128, 192, 256}, y[] = {64, 64, 63, 63, 63};
    model m;
    fit_counts(xs, y, 5, &m);
    printf("    spread at 2x..16x: %g %g %g %g\n", m.spread[0], m.spread[1], m.spread[2], m.spread[3]);
    double x = 1024;
    assert_close(model_eval(&m, &x), 63.4, 0.02);
    assert_true(m.spread[1] < 0.05);
    assert_true(m.spread[3] < 0.05);
}

/* ---- several parameters ------------------------------------------------------------- */

/* Fit f over the 5 x 5 grid N in nv, M in mv; asserts success. */
static void fit_grid(double (*f)(double, double), const double *nv, const double *mv, const model_options *o,
                     model *m)
{
    double x[50], y[25];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            x[2 * (5 * i + j)] = nv[i];
            x[2 * (5 * i + j) + 1] = mv[j];
            y[5 * i + j] = f(nv[i], mv[j]);
        }
    model_series s = {25, 2, x, y};
    char err[256];
    if (model_fit(&s, o, m, err, sizeof err))
        fail_msg("model_fit: %s", err);
}

static double nm_plus_n(double n, double m) { return 2 * n * m + n; }
static double sq_plus_m(double n, double m) { return n * n + 3 * m; }
static double nlogn_m(double n, double m) { return 3 * n * log2(n) * m + 40 * m; }

static const double gridN[] = {8, 16, 24, 32, 40}, gridM[] = {2, 4, 6, 8, 10};

/* 2 N M + N: a product plus one parameter alone (Extra-P's a*b + a). */
static void test_two_params_product(void **state)
{
    (void)state;
    model m;
    char buf[256];
    double x[2] = {8 * 40, 4 * 10};
    for (int integer = 0; integer <= 1; integer++) {
        model_options o = {.integer_counts = integer};
        fit_grid(nm_plus_n, gridN, gridM, &o, &m);
        assert_true(m.method == MODEL_MULTIPLICATIVE || m.method == MODEL_NESTED);
        assert_int_equal(m.nterms, 2);
        assert_close(model_eval(&m, x), nm_plus_n(x[0], x[1]), 1e-3);
        assert_int_equal(m.npoints, 25);
    }
    /* exact integers: snapped */
    assert_string_equal(formula(&m, names2, buf, sizeof buf), "2*N*M + N");
    assert_true(m.fit_max_rel == 0.0);
}

/* N^2 + 3M: additive. */
static void test_two_params_additive(void **state)
{
    (void)state;
    model m;
    char buf[256];
    model_options o = {.integer_counts = 1};
    fit_grid(sq_plus_m, gridN, gridM, &o, &m);
    assert_int_equal(m.method, MODEL_ADDITIVE);
    double x[2] = {320, 40};
    assert_true(model_eval(&m, x) == 320.0 * 320.0 + 120.0);
    assert_string_equal(formula(&m, names2, buf, sizeof buf), "N^2 + 3*M");
}

/* 3 N log2(N) M + 40 M over real numbers: a product with a log. */
static void test_two_params_nlogn(void **state)
{
    (void)state;
    static const double nv[] = {100, 300, 700, 1500, 3000}, mv[] = {1, 2, 3, 5, 8};
    model m;
    model_options o = {0};
    fit_grid(nlogn_m, nv, mv, &o, &m);
    double x[2] = {24000, 32};
    assert_close(model_eval(&m, x), nlogn_m(x[0], x[1]), 1e-3);
}

/* ---- user basis terms ----------------------------------------------------------------- */

/* Parse `text` over N, M; assert success. */
static model_term parse_ok(const char *text)
{
    model_term t;
    char err[256];
    if (model_parse_term(text, names2, 2, &t, err, sizeof err))
        fail_msg("parse \"%s\": %s", text, err);
    assert_true(t.coef == 1.0);
    return t;
}

static void test_parse_terms(void **state)
{
    (void)state;
    model_term t = parse_ok("N^2*log2(N)");
    assert_int_equal(t.nfactors, 1);
    assert_int_equal(t.factors[0].param, 0);
    assert_true(t.factors[0].exponent == 2.0);
    assert_int_equal(t.factors[0].log_exponent, 1);

    t = parse_ok(" sqrt( N ) ");
    assert_int_equal(t.nfactors, 1);
    assert_true(t.factors[0].exponent == 0.5 && t.factors[0].log_exponent == 0);

    t = parse_ok("N^(1/3)");
    assert_true(fabs(t.factors[0].exponent - 1.0 / 3) < 1e-15);

    t = parse_ok("log2(M)^2 * N^1.5");
    assert_int_equal(t.nfactors, 2);
    assert_int_equal(t.factors[0].param, 1);
    assert_true(t.factors[0].exponent == 0.0 && t.factors[0].log_exponent == 2);
    assert_int_equal(t.factors[1].param, 0);
    assert_true(t.factors[1].exponent == 1.5 && t.factors[1].log_exponent == 0);

    t = parse_ok("N*M");
    assert_int_equal(t.nfactors, 2);
    double x[2] = {8, 3};
    assert_true(model_term_basis(&t, x) == 24.0);

    /* the formula of a parsed term round-trips */
    model m = {.nterms = 1};
    m.terms[0] = parse_ok("N^(2/3)*log2(N)^2");
    char buf[128];
    assert_string_equal(formula(&m, names2, buf, sizeof buf), "N^(2/3)*log2(N)^2");
}

static void test_parse_errors(void **state)
{
    (void)state;
    model_term t;
    char err[512];
    assert_int_equal(model_parse_term("Q^2", names2, 2, &t, err, sizeof err), -1);
    assert_string_equal(err, "unknown parameter \"Q\" in basis term \"Q^2\" (parameters: N, M)");

    assert_int_equal(model_parse_term("N^", names2, 2, &t, err, sizeof err), -1);
    assert_contains(err, "bad basis term \"N^\"");
    assert_contains(err, "accepted forms: NAME, NAME^R, NAME^(A/B), sqrt(NAME), log2(NAME), log2(NAME)^K");

    assert_int_equal(model_parse_term("N**2", names2, 2, &t, err, sizeof err), -1);
    assert_contains(err, "at \"*2\"");
    assert_int_equal(model_parse_term("N^2 M", names2, 2, &t, err, sizeof err), -1);
    assert_contains(err, "expected '*' or the end at \"M\"");
    assert_int_equal(model_parse_term("log(N)", names2, 2, &t, err, sizeof err), -1);
    assert_contains(err, "log2(NAME)");
    assert_int_equal(model_parse_term("sqrt(N", names2, 2, &t, err, sizeof err), -1);
    assert_contains(err, "')'");
    assert_int_equal(model_parse_term("N^2*N", names2, 2, &t, err, sizeof err), -1);
    assert_contains(err, "N appears twice");
    assert_int_equal(model_parse_term("", names2, 2, &t, err, sizeof err), -1);
    assert_int_equal(model_parse_term("sqrt(Q)", names2, 2, &t, err, sizeof err), -1);
    assert_contains(err, "unknown parameter \"Q\"");
}

static double n2logn(double n) { return 2 * n * n * log2(n) + 5; }
static double n2log3(double n) { double l = log2(n); return n * n * l * l * l + 7; }

/* 2 N^2 log2(N) + 5 at sizes that are no powers of two, with the term
 * given by the user; and N^2 log2(N)^3 + 7, a term only the user offers. */
static void test_user_basis_fit(void **state)
{
    (void)state;
    static const double xs[] = {10, 20, 30, 45, 60, 75};
    model_options o = {.nbasis = 1};
    o.basis[0] = parse_ok("N^2*log2(N)");
    model m;
    fit1(xs, 6, n2logn, &o, &m);
    assert_int_equal(m.method, MODEL_PMNF);
    assert_single_term(&m, 2.0, 1);
    assert_close(m.terms[0].coef, 2.0, 1e-9);
    assert_close(m.constant, 5.0, 1e-6);
    double x = 1000;
    assert_close(model_eval(&m, &x), n2logn(x), 1e-9);

    o.basis[0] = parse_ok("N^2*log2(N)^3");
    fit1(xs, 6, n2log3, &o, &m);
    assert_single_term(&m, 2.0, 3);
    assert_close(model_eval(&m, &x), n2log3(x), 1e-9);
}

/* ---- refusals ---------------------------------------------------------------------------- */

static void test_refusals(void **state)
{
    (void)state;
    model m;
    char err[256];
    model_options o = {.integer_counts = 1};

    double x2[] = {8, 16}, y2[] = {10, 20};
    model_series s = {2, 1, x2, y2};
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), -1);
    assert_contains(err, "2 distinct values");
    assert_contains(err, "at least 3");

    /* two distinct sizes repeated three times are still two */
    double x6[] = {8, 8, 8, 16, 16, 16}, y6[] = {10, 10, 10, 20, 20, 20};
    s = (model_series){6, 1, x6, y6};
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), -1);
    assert_contains(err, "2 distinct values");

    /* but a constant series needs only one point */
    double y1[] = {42};
    s = (model_series){1, 1, x2, y1};
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), 0);
    assert_int_equal(m.method, MODEL_CONSTANT);
    assert_true(m.constant == 42.0);

    double xg[] = {8, 1, 16, 1, 24, 1}, yg[] = {1, 2, 3};
    s = (model_series){3, 2, xg, yg};
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), -1);
    assert_contains(err, "parameter 2 has the same value in every run");
    assert_contains(err, "vary it or leave it out");

    double xs[] = {8, 16, 24, 32}, yn[] = {1, 2, NAN, 4};
    s = (model_series){4, 1, xs, yn};
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), -1);
    assert_contains(err, "not a finite number");
    double xi[] = {8, INFINITY, 24, 32}, yi[] = {1, 2, 3, 4};
    s = (model_series){4, 1, xi, yi};
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), -1);
    assert_contains(err, "not a finite number");

    s = (model_series){4, 0, xs, yi};
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), -1);
    assert_contains(err, "parameters");

    /* two parameters varied only together: no line of 3 */
    double xd[] = {8, 1, 16, 2, 24, 3, 32, 4}, yd[] = {1, 2, 3, 4};
    s = (model_series){4, 2, xd, yd};
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), -1);
    assert_contains(err, "parameter 1 has no line of at least 3 points");
}

/* ---- formulas ------------------------------------------------------------------------------- */

static void test_format(void **state)
{
    (void)state;
    char buf[256];
    model m = {.constant = 3, .nterms = 2};
    m.terms[0] = (model_term){0.5, 1, {{0, 2, 0}}};
    m.terms[1] = (model_term){2, 1, {{0, 1, 1}}};
    assert_string_equal(formula(&m, names1, buf, sizeof buf), "3 + N^2/2 + 2*N*log2(N)");

    m = (model){.constant = 0, .nterms = 2};
    m.terms[0] = (model_term){-3, 1, {{0, 1, 0}}};
    m.terms[1] = (model_term){1.0 / 3, 2, {{0, 3, 0}, {1, 0.5, 0}}};
    assert_string_equal(formula(&m, names2, buf, sizeof buf), "-3*N + N^3*sqrt(M)/3");

    m = (model){.constant = 2.5, .nterms = 2};
    m.terms[0] = (model_term){-0.123456789, 1, {{0, 1.0 / 3, 2}}};
    m.terms[1] = (model_term){1, 1, {{1, 0, 1}}};
    assert_string_equal(formula(&m, names2, buf, sizeof buf), "5/2 - 0.123457*N^(1/3)*log2(N)^2 + log2(M)");

    m = (model){.constant = -1234567, .nterms = 1};
    m.terms[0] = (model_term){0.75, 1, {{0, 1.2345, 0}}};
    assert_string_equal(formula(&m, names1, buf, sizeof buf), "-1234567 + 3*N^1.2345/4");

    m = (model){.constant = 0};
    assert_string_equal(formula(&m, names1, buf, sizeof buf), "0");

    /* snprintf semantics: truncated, but the full length returned */
    m = (model){.constant = 7, .nterms = 1};
    m.terms[0] = (model_term){1, 1, {{0, 2, 0}}};
    char small[5];
    assert_int_equal(model_format(&m, names1, small, sizeof small), 7);
    assert_string_equal(small, "7 + ");
    assert_int_equal(model_format(&m, names1, NULL, 0), 7);

    /* no parameter names: p1, p2, ... */
    assert_string_equal(formula(&m, NULL, buf, sizeof buf), "7 + p1^2");

    assert_string_equal(model_method_name(MODEL_EXACT), "exact");
    assert_string_equal(model_method_name(MODEL_PMNF), "pmnf");
    assert_string_equal(model_method_name(MODEL_NESTED), "nested");
}

/* Terms at p <= 0 stay finite. */
/* ---- walks (model_walk_fit) ----------------------------------------------------- */

/* A column's stride 8N and run N are modeled exactly and extrapolate; a
 * stride that misses one run by 8 bytes (not a function of N: which sets
 * it reaches is then unknown), a constant stride below the 64-byte block
 * (contiguous), and run lengths that jump between sizes (LU's dger at N =
 * 40..80: 14.7, 7.6, 6.0, 11.2, 34.4, fitted with N^3 terms that gave
 * 20,000 at N = 320 and doubled its L2 misses there) are refused; a
 * constant stride of two lines is kept. */
static void test_walk_fit(void **state)
{
    (void)state;
    model_options o = {.integer_counts = 1};
    double stride[5], run[5];
    for (int i = 0; i < 5; i++)
        stride[i] = 8 * sizes5[i], run[i] = sizes5[i];
    model_series ss = {5, 1, sizes5, stride}, rs = {5, 1, sizes5, run};
    model ms, mr;
    char buf[256];
    assert_int_equal(model_walk_fit(&ss, &rs, 64, &o, &ms, &mr), 1);
    assert_string_equal(formula(&ms, names1, buf, sizeof buf), "8*N");
    double x = 224;
    assert_true(model_eval(&ms, &x) == 1792.0);
    assert_true(model_eval(&mr, &x) == 224.0);

    stride[3] += 8;
    assert_int_equal(model_walk_fit(&ss, &rs, 64, &o, &ms, &mr), 0);
    for (int i = 0; i < 5; i++)
        stride[i] = 32;
    assert_int_equal(model_walk_fit(&ss, &rs, 64, &o, &ms, &mr), 0);
    for (int i = 0; i < 5; i++)
        stride[i] = 128;
    assert_int_equal(model_walk_fit(&ss, &rs, 64, &o, &ms, &mr), 1);
    assert_true(model_eval(&ms, &x) == 128.0);

    static const double lu_n[5] = {40, 50, 60, 70, 80}, lu_run[5] = {14.7442, 7.64789, 5.96403, 11.2386, 34.3855};
    for (int i = 0; i < 5; i++)
        stride[i] = 8 * lu_n[i];
    model_series lu_s = {5, 1, lu_n, stride}, lu_r = {5, 1, lu_n, lu_run};
    assert_int_equal(model_walk_fit(&lu_s, &lu_r, 64, &o, &ms, &mr), 0);
}

static void test_eval_nonpositive(void **state)
{
    (void)state;
    model_term t = {1, 1, {{0, 0.5, 1}}};
    double x = 0;
    assert_true(model_term_basis(&t, &x) == 0.0);
    x = -4;
    assert_true(model_term_basis(&t, &x) == 0.0);
    t.factors[0] = (model_factor){0, 0, 0};
    assert_true(model_term_basis(&t, &x) == 1.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_cubic),
        cmocka_unit_test(test_exact_triangle),
        cmocka_unit_test(test_exact_linear_and_constant),
        cmocka_unit_test(test_exact_large),
        cmocka_unit_test(test_repeated_points),
        cmocka_unit_test(test_pmnf_nlogn),
        cmocka_unit_test(test_pmnf_sqrt),
        cmocka_unit_test(test_pmnf_noisy_quadratic),
        cmocka_unit_test(test_rising_share),
        cmocka_unit_test(test_three_runs),
        cmocka_unit_test(test_no_stale_memory),
        cmocka_unit_test(test_two_params_product),
        cmocka_unit_test(test_two_params_additive),
        cmocka_unit_test(test_two_params_nlogn),
        cmocka_unit_test(test_parse_terms),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_user_basis_fit),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_eval_nonpositive),
        cmocka_unit_test(test_walk_fit),
        cmocka_unit_test(test_library_series_not_polynomial),
        cmocka_unit_test(test_consecutive_sizes_not_polynomial),
        cmocka_unit_test(test_distance_terms_do_not_cancel),
        cmocka_unit_test(test_noise_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
