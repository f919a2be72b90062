/* test_model_shortcuts.c — the fitting shortcuts of model_fit.c and
 * rd_model.c change no model: every series and histogram series here is
 * fitted twice, with model_options.exhaustive (every hypothesis
 * cross-validated in full, as before the shortcuts existed) and without,
 * and the two models must agree to the last bit in every field, the
 * spread of their plausible alternatives included.
 *
 * The series are drawn at random (fixed seed) from the forms the fitter
 * meets: exact polynomials of integer counts, normal forms c0 + c1 p^i
 * log2(p)^j and sums of two, with relative noise from none to 20%, at 5 to
 * 8 points; with and without user basis terms and term sets (options.only);
 * two parameters on grids; and reuse-distance histograms, random and of a
 * matrix multiply's loads.
 */
#include <math.h>
#include <stdio.h>

#include "rd_test_support.h"

#include "model/model.h"

/* Assert that two doubles are the same bits (what the database stores). */
static void assert_same_double(double a, double b, const char *what, int item)
{
    if (memcmp(&a, &b, sizeof a))
        fail_msg("%s of item %d: %.17g with shortcuts, %.17g exhaustive", what, item, a, b);
}

/* Assert that models a (shortcuts) and b (exhaustive) agree in every field. */
static void assert_same_model(const model *a, const model *b, int item)
{
    if (a->method != b->method || a->nterms != b->nterms || a->npoints != b->npoints)
        fail_msg("item %d: method %d/%d, %d/%d terms, %zu/%zu points (shortcuts/exhaustive)", item, a->method,
                 b->method, a->nterms, b->nterms, a->npoints, b->npoints);
    assert_same_double(a->constant, b->constant, "constant", item);
    assert_same_double(a->fit_smape, b->fit_smape, "fit_smape", item);
    assert_same_double(a->cv_smape, b->cv_smape, "cv_smape", item);
    assert_same_double(a->fit_max_rel, b->fit_max_rel, "fit_max_rel", item);
    for (int i = 0; i < MODEL_SPREAD_POINTS; i++)
        assert_same_double(a->spread[i], b->spread[i], "spread", item);
    for (int j = 0; j < a->nterms; j++) {
        const model_term *s = &a->terms[j], *t = &b->terms[j];
        assert_same_double(s->coef, t->coef, "coefficient", item);
        assert_int_equal(s->nfactors, t->nfactors);
        for (int f = 0; f < s->nfactors; f++) {
            assert_int_equal(s->factors[f].param, t->factors[f].param);
            assert_same_double(s->factors[f].exponent, t->factors[f].exponent, "exponent", item);
            assert_int_equal(s->factors[f].log_exponent, t->factors[f].log_exponent);
        }
    }
}

/* A uniform value in [0, 1). */
static double rng_unit(void)
{
    return (double)(rng_next() >> 11) / 9007199254740992.0;
}

/* Fit s with o both ways and compare; returns the model's method. */
static enum model_method fit_both(const model_series *s, model_options o, int item)
{
    model fast, full;
    char e1[256] = "", e2[256] = "";
    o.exhaustive = 0;
    int r1 = model_fit(s, &o, &fast, e1, sizeof e1);
    o.exhaustive = 1;
    int r2 = model_fit(s, &o, &full, e2, sizeof e2);
    assert_int_equal(r1, r2);
    assert_string_equal(e1, e2);
    if (r1 == 0)
        assert_same_model(&fast, &full, item);
    return full.method;
}

/* The value at p of a random form drawn by `kind` with coefficients c[]. */
static double form_value(int kind, const double *c, double e, int j, double p)
{
    switch (kind) {
    case 0: return c[0] + c[1] * p + c[2] * p * p + c[3] * p * p * p; /* polynomial */
    case 1: return c[0] + c[1] * pow(p, e) * pow(log2(p), j);           /* one PMNF term */
    case 2: return c[0] + c[1] * p * log2(p) + c[2] * p * p;            /* two terms */
    default: return c[0] + c[1] / p;                                    /* a share tending to c0 */
    }
}

/* One-parameter series of every kind, noise level and option. */
static void test_series(void **state)
{
    (void)state;
    static const double noise[] = {0, 1e-9, 1e-4, 1e-2, 0.2};
    static const double exps[] = {0.5, 1, 4.0 / 3, 2, 2.5, 3};
    rng_state = 2027;
    int methods[6] = {0};
    for (int item = 0; item < 200; item++) {
        size_t n = 5 + rng_below(4);
        double x[8], y[8], c[4];
        double p = 2 + (double)rng_below(20);
        for (size_t i = 0; i < n; i++) {
            x[i] = p;
            p += 1 + (double)rng_below(40) * (1 + (double)rng_below(5));
        }
        int kind = (int)rng_below(4), integer = kind == 0 || rng_below(3) == 0, j = (int)rng_below(3);
        double e = exps[rng_below(6)], nz = noise[rng_below(5)];
        for (int k = 0; k < 4; k++)
            c[k] = (double)rng_below(200) - 50 + (kind == 0 ? 0 : rng_unit());
        for (size_t i = 0; i < n; i++) {
            y[i] = form_value(kind, c, e, j, x[i]) * (1 + nz * (2 * rng_unit() - 1));
            if (integer)
                y[i] = nearbyint(y[i]);
        }
        model_options o = {.integer_counts = integer};
        if (rng_below(4) == 0) { /* a user term: sqrt(N) */
            o.nbasis = 1;
            o.basis[0] = (model_term){1.0, 1, {{0, 0.5, 0}}};
        }
        if (rng_below(4) == 0) { /* a term set, as the slices of a histogram get */
            o.nonly = 2;
            o.only[0] = (model_term){1.0, 1, {{0, 1, 0}}};
            o.only[1] = (model_term){1.0, 1, {{0, 2, 0}}};
        }
        model_series s = {n, 1, x, y};
        methods[fit_both(&s, o, item)]++;
    }
    print_message("methods: %d constant, %d exact, %d pmnf\n", methods[MODEL_CONSTANT], methods[MODEL_EXACT],
                  methods[MODEL_PMNF]);
    assert_true(methods[MODEL_EXACT] > 10 && methods[MODEL_PMNF] > 100); /* both searches were exercised */
}

/* Two parameters on grids of 3 x 3 to 4 x 5 points. */
static void test_two_parameters(void **state)
{
    (void)state;
    rng_state = 99;
    for (int item = 0; item < 40; item++) {
        size_t na = 3 + rng_below(2), nb = 3 + rng_below(3), n = 0;
        double x[2 * 20], y[20], c[4];
        for (int k = 0; k < 4; k++)
            c[k] = 1 + (double)rng_below(30);
        double nz = rng_below(2) ? 0 : 1e-3;
        for (size_t a = 0; a < na; a++)
            for (size_t b = 0; b < nb; b++) {
                double N = 10 + 10.0 * (double)a, M = 4 + 3.0 * (double)b;
                x[2 * n] = N;
                x[2 * n + 1] = M;
                double v = c[0] + c[1] * N * M + (item % 2 ? c[2] * N * N : c[3] * M * log2(M));
                y[n++] = nearbyint(v * (1 + nz * (2 * rng_unit() - 1)));
            }
        model_series s = {n, 2, x, y};
        fit_both(&s, (model_options){.integer_counts = item % 3 != 0}, item);
    }
}

/* rd_model_fit both ways on the 5 histograms pts; compare every model. */
static void rd_fit_both(const rd_series_point *pts, int item)
{
    rd_model fast, full;
    model_options o = {0};
    char err[256] = "";
    assert_int_equal(rd_model_fit(pts, 5, 1, &o, &fast, err, sizeof err), 0);
    o.exhaustive = 1;
    assert_int_equal(rd_model_fit(pts, 5, 1, &o, &full, err, sizeof err), 0);
    assert_same_model(&fast.cold, &full.cold, item);
    assert_same_model(&fast.touches, &full.touches, item);
    assert_int_equal(fast.nlead, full.nlead);
    for (size_t i = 0; i < fast.nlead; i++) {
        assert_same_double(fast.lead[i].distance, full.lead[i].distance, "lead distance", item);
        assert_same_model(&fast.lead[i].fraction, &full.lead[i].fraction, item);
    }
    assert_int_equal(fast.nbins, full.nbins);
    for (size_t i = 0; i < fast.nbins; i++) {
        assert_same_double(fast.bins[i].u_low, full.bins[i].u_low, "u_low", item);
        assert_same_double(fast.bins[i].u_high, full.bins[i].u_high, "u_high", item);
        assert_same_model(&fast.bins[i].low, &full.bins[i].low, item);
        assert_same_model(&fast.bins[i].high, &full.bins[i].high, item);
        assert_same_model(&fast.bins[i].mean, &full.bins[i].mean, item);
    }
    rd_model_free(&fast);
    rd_model_free(&full);
}

/* Random sparse histograms whose bins move with the size, and groups of
 * distances growing as N, N^2 and N^3 with jitter. */
static void test_histograms(void **state)
{
    (void)state;
    rng_state = 31;
    for (int item = 0; item < 12; item++) {
        double x[5];
        rd_binrec bins[5][64];
        rd_series_point pts[5];
        for (int i = 0; i < 5; i++) {
            double N = x[i] = 8.0 * (i + 2);
            size_t n = 0;
            if (item % 2) {
                n = rng_bins(bins[i], 40);
            } else { /* a leading bin and three growing groups */
                bins[i][n++] = (rd_binrec){0, (uint64_t)(7 * N * N), 0};
                double d[3] = {2 * N + (double)rng_below(3), N * N / 4, N * N * N / 8 + (double)rng_below(5)};
                for (int g = 0; g < 3; g++) {
                    unsigned b = rd_bin_index((uint64_t)d[g]);
                    if (n && bins[i][n - 1].bin >= b)
                        continue;
                    uint64_t cnt = (uint64_t)(N * (g + 1)) + rng_below(4);
                    bins[i][n++] = (rd_binrec){b, cnt, cnt * (uint64_t)d[g]};
                }
            }
            pts[i] = (rd_series_point){&x[i], 10 + rng_below(100), n, bins[i]};
        }
        rd_fit_both(pts, item);
    }
}

#define T(f) cmocka_unit_test_setup_teardown(f, reset_counts, check_no_leaks)

/* Run every test; cmocka returns the number of failures. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_series),
        T(test_two_parameters),
        T(test_histograms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
