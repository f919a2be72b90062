/* test_rd_crossings.c — unit tests of rd_model_crossings (rd_model.c):
 * which slices of a reuse-distance model change sides of a cache's
 * capacity between the training points and a predicted point.
 *
 * The models are written here by hand, so the answers are known: a slice
 * whose edges are a*N and b*N has its midpoint at (a + b)/2 * N, on the
 * miss side of C blocks when that is >= C.  A sweep's slice at distance N
 * trained at N = 64 .. 256 is below 512 blocks at every training point:
 * it crosses at N = 1024 and at N = 512 (at the capacity), not at 400 nor
 * inside the range; trained at 600 .. 1000 it crosses at 100 (the
 * reverse); trained across the capacity it never crosses; a slice spread
 * from N/2 to 3N/2 counts by its midpoint, not its high edge; constant
 * slices and leading bins never cross.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/model.h"

/* c + k*N: a model of one parameter. */
static model linear(double c, double k)
{
    model m = {.constant = c};
    if (k != 0)
        m = (model){.constant = c, .nterms = 1,
                    .terms = {{.coef = k, .nfactors = 1, .factors = {{.param = 0, .exponent = 1}}}}};
    return m;
}

/* A slice [u0, u1) with edges a*N + c .. b*N + c. */
static rd_model_bin slice(double u0, double u1, double a, double b, double c)
{
    return (rd_model_bin){.u_low = u0, .u_high = u1, .low = linear(c, a), .high = linear(c, b),
                          .mean = linear(c, (a + b) / 2)};
}

static const double train_small[] = {64, 96, 128, 192, 256};
static const double train_large[] = {600, 700, 800, 900, 1000};
static const double train_across[] = {256, 384, 512, 768, 1024};

/* rd_model_crossings of m at N = x for a cache of 512 blocks. */
static int crossings(const rd_model *m, const double *train, double x)
{
    return rd_model_crossings(m, train, 5, 1, &x, 512);
}

/* A model of N cold misses and 3N touches whose reuse distances are the
 * slices bins[0..nbins), as the tests below share. */
static rd_model sweep_model(rd_model_bin *bins, size_t nbins)
{
    return (rd_model){.cold = linear(0, 1), .touches = linear(0, 3), .nbins = nbins, .bins = bins};
}

static void test_sweep_crosses_upward(void **state)
{
    (void)state;
    rd_model_bin bins[] = {slice(0, 1, 1, 1, 0)};
    rd_model m = sweep_model(bins, 1);
    assert_int_equal(crossings(&m, train_small, 1024), 1);
    assert_int_equal(crossings(&m, train_small, 512), 1); /* at the capacity: misses */
    assert_int_equal(crossings(&m, train_small, 400), 0); /* extrapolated, still below */
    assert_int_equal(crossings(&m, train_small, 160), 0);
    assert_int_equal(crossings(&m, train_small, 64), 0);
}

static void test_sweep_crosses_downward(void **state)
{
    (void)state;
    rd_model_bin bins[] = {slice(0, 1, 1, 1, 0)};
    rd_model m = sweep_model(bins, 1);
    assert_int_equal(crossings(&m, train_large, 100), 1);
    assert_int_equal(crossings(&m, train_large, 2000), 0);
    assert_int_equal(crossings(&m, train_large, 650), 0);
}

static void test_trained_across_never_crosses(void **state)
{
    (void)state;
    rd_model_bin bins[] = {slice(0, 1, 1, 1, 0)};
    rd_model m = sweep_model(bins, 1);
    assert_int_equal(crossings(&m, train_across, 8192), 0);
    assert_int_equal(crossings(&m, train_across, 16), 0);
}

/* A slice from N/2 to 3N/2: at N = 400 its high edge (600) is above 512
 * and part of it misses, but its midpoint (400) is below: no crossing;
 * at N = 600 the midpoint is 600: a crossing. */
static void test_midpoint_decides(void **state)
{
    (void)state;
    rd_model_bin bins[] = {slice(0, 1, 0.5, 1.5, 0)};
    rd_model m = sweep_model(bins, 1);
    assert_true(rd_model_misses(&m, (double[]){400}, 512) > 400); /* some of the slice misses */
    assert_int_equal(crossings(&m, train_small, 400), 0);
    assert_int_equal(crossings(&m, train_small, 600), 1);
}

/* Three slices: constant at 10, at N and at 4N: at N = 200 only the 4N
 * one is across (800), at N = 1024 two are. */
static void test_counts_slices(void **state)
{
    (void)state;
    rd_model_bin bins[] = {slice(0, 0.5, 0, 0, 10), slice(0.5, 0.75, 1, 1, 0), slice(0.75, 1, 4, 4, 0)};
    rd_model m = sweep_model(bins, 3);
    double train[] = {16, 24, 32, 48, 64}; /* 4N <= 256 */
    double x = 200;
    assert_int_equal(rd_model_crossings(&m, train, 5, 1, &x, 512), 1);
    x = 1024;
    assert_int_equal(rd_model_crossings(&m, train, 5, 1, &x, 512), 2);
}

static void test_leads_and_no_training(void **state)
{
    (void)state;
    rd_model_lead leads[] = {{.distance = 0, .fraction = linear(0.875, 0)}};
    rd_model m = {.cold = linear(0, 1), .touches = linear(0, 8), .nlead = 1, .lead = leads};
    assert_int_equal(crossings(&m, train_small, 1e6), 0);
    rd_model_bin bins[] = {slice(0, 1, 1, 1, 0)};
    rd_model s = sweep_model(bins, 1);
    double x = 1024;
    assert_int_equal(rd_model_crossings(&s, train_small, 0, 1, &x, 512), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_crosses_upward),   cmocka_unit_test(test_sweep_crosses_downward),
        cmocka_unit_test(test_trained_across_never_crosses), cmocka_unit_test(test_midpoint_decides),
        cmocka_unit_test(test_counts_slices),          cmocka_unit_test(test_leads_and_no_training),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
