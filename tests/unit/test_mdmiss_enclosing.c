/* test_mdmiss_enclosing.c — unit tests of a count inside a chain of loops
 * modelled through the innermost loop whose iterations are exact
 * (model_enclosing.c, model_compose_enclosing): the shape of md's reuse
 * groups in its neighbour scan (bench/accuracy/md.c), whose touches follow
 * the atoms per bin, 4N^3 / floor(1.1997 N)^3, a quantity that steps with
 * the bins per side.
 *
 * The series are made here from that closed form at md's training sizes
 * (N = 5..9) and compared at 2x and 4x (N = 18, 36). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "model/model.h"

#define NTRAIN 5

static const double train[NTRAIN] = {5, 6, 7, 8, 9};

/* md's atoms per bin at N: 4 N^3 atoms in floor(1.1997 N)^3 bins. */
static double atoms_per_bin(double n)
{
    double b = floor(1.1997 * n);
    return 4 * n * n * n / (b * b * b);
}

/* The exact loop around the scan: 1380 N^3 iterations (md's bin offsets
 * around each atom, as its structure counts them). */
static double outer_trips(double n)
{
    return 1380 * n * n * n;
}

/* The group's touches: half the atoms of a bin per iteration of the exact
 * loop (the half shell), one touch per candidate. */
static double touches(double n)
{
    return round(outer_trips(n) * atoms_per_bin(n) / 2);
}

/* The failure's shape: fitted directly, the touches' steps (4, 2.52,
 * 2.68, 2.81, 2.92 atoms per bin, 2.35 at N = 36) are taken for growth
 * beyond N^3; through the exact loop around the data-dependent scan, the
 * touches per iteration are a bounded mix and the prediction stays within
 * the steps' range.  The scan's own loop (its trips are the touches
 * themselves, no exact form) is passed over. */
static void test_mdmiss_touches_through_exact_loop(void **state)
{
    (void)state;
    double x[NTRAIN], y[NTRAIN], scan[NTRAIN], outer[NTRAIN];
    for (int i = 0; i < NTRAIN; i++) {
        x[i] = train[i];
        y[i] = scan[i] = touches(train[i]);
        outer[i] = outer_trips(train[i]);
    }
    model_series s = {NTRAIN, 1, x, y};
    model_options o = {.integer_counts = 1};
    model m;
    char err[256];
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), 0);
    double n36 = 36, direct = model_eval(&m, &n36);
    const double *trips[] = {scan, outer};
    const int degree[] = {0, 1};
    assert_int_equal(model_compose_enclosing(&s, 2, trips, degree, &o, &m), 1);
    assert_int_equal(m.method, MODEL_COMPOSED);
    double lo = INFINITY, hi = 0; /* the touches per iteration at the training sizes */
    for (int i = 0; i < NTRAIN; i++)
        lo = fmin(lo, y[i] / outer[i]), hi = fmax(hi, y[i] / outer[i]);
    const double targets[] = {18, 36};
    for (int k = 0; k < 2; k++) {
        double n = targets[k], got = model_eval(&m, &n), want = touches(n);
        if (!(got >= lo * outer_trips(n) * 0.999 && got <= hi * outer_trips(n) * 1.001))
            fail_msg("N=%g: %g touches, outside the training steps' %g .. %g per iteration", n, got, lo, hi);
        if (!(fabs(got / want - 1) < 0.3))
            fail_msg("N=%g: %g touches, want %g within 30%% (the steps' range)", n, got, want);
    }
    if (!(direct / touches(36) - 1 > 0.5))
        fail_msg("the direct fit %g at N=36 is within 50%% of %g: the series no longer has md's shape", direct,
                 touches(36));
    /* the direct fit is kept in the range */
    assert_true(model_spread_at(&m, 4) > 0.1);
}

/* An exact direct model stays, and so does one with no exact loop around. */
static void test_mdmiss_touches_kept(void **state)
{
    (void)state;
    double x[NTRAIN], y[NTRAIN], trips[NTRAIN];
    for (int i = 0; i < NTRAIN; i++)
        x[i] = train[i], y[i] = 12 * pow(train[i], 3), trips[i] = 4 * pow(train[i], 3);
    model_series s = {NTRAIN, 1, x, y};
    model_options o = {.integer_counts = 1};
    model m;
    char err[256];
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), 0);
    assert_int_equal(m.method, MODEL_EXACT);
    const double *chain[] = {trips};
    const int degree[] = {0};
    assert_int_equal(model_compose_enclosing(&s, 1, chain, degree, &o, &m), -1);
    assert_int_equal(m.method, MODEL_EXACT);

    double scan[NTRAIN];
    for (int i = 0; i < NTRAIN; i++)
        y[i] = scan[i] = touches(train[i]);
    assert_int_equal(model_fit(&s, &o, &m, err, sizeof err), 0);
    model before = m;
    const double *data_dependent[] = {scan};
    assert_int_equal(model_compose_enclosing(&s, 1, data_dependent, degree, &o, &m), -1);
    assert_int_equal(m.method, before.method);
    assert_true(m.constant == before.constant && m.nterms == before.nterms);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mdmiss_touches_through_exact_loop),
        cmocka_unit_test(test_mdmiss_touches_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
