/* test_predict_check.c — unit tests of the checks that refuse a prediction
 * (src/predict/predict_check.c): the domain of a model's terms and the
 * range of a count.
 *
 * The models are written here term by term, so what is outside their
 * domain is known by hand: log2(N) and N^k need N > 0 (model_term.c
 * evaluates them as 0 below), a constant has no domain; the count limit is
 * 2^63, the first value a signed 64-bit integer cannot hold.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "predict/predict_check.h"

static const char *const names2[] = {"N", "M"};

/* 3 + 2*N^2 + 5*M*log2(M): M's term has the log. */
static model two_terms(void)
{
    return (model){.constant = 3,
                   .nterms = 2,
                   .terms = {{.coef = 2, .nfactors = 1, .factors = {{.param = 0, .exponent = 2}}},
                             {.coef = 5, .nfactors = 1, .factors = {{.param = 1, .exponent = 1, .log_exponent = 1}}}}};
}

/* Returns predict_term_outside's result; fills term and need. */
static int outside(const model *m, double n, double mm, char *term, char *need)
{
    double x[2] = {n, mm};
    return predict_term_outside(m, x, names2, term, 64, need, 64);
}

static void test_domain_inside(void **state)
{
    (void)state;
    model m = two_terms();
    char term[64], need[64];
    assert_int_equal(outside(&m, 1000, 3, term, need), 0);
    /* log2 of a value in (0, 1) is negative but defined */
    assert_int_equal(outside(&m, 0.5, 0.25, term, need), 0);
    model constant = {.constant = 7};
    assert_int_equal(outside(&constant, -5, -5, term, need), 0);
}

static void test_domain_log_named(void **state)
{
    (void)state;
    model m = two_terms();
    char term[64], need[64];
    assert_int_equal(outside(&m, 10, 0, term, need), 1);
    assert_string_equal(term, "M*log2(M)");
    assert_string_equal(need, "M > 0");
    assert_int_equal(outside(&m, 10, -5, term, need), 1);
    assert_string_equal(term, "M*log2(M)");
    /* both outside: the factor with a log is named first */
    assert_int_equal(outside(&m, -1, -1, term, need), 1);
    assert_string_equal(term, "M*log2(M)");
}

static void test_domain_power(void **state)
{
    (void)state;
    model m = two_terms();
    char term[64], need[64];
    assert_int_equal(outside(&m, 0, 4, term, need), 1);
    assert_string_equal(term, "N^2");
    assert_string_equal(need, "N > 0");
    model root = {.nterms = 1, .terms = {{.coef = 1, .nfactors = 1, .factors = {{.param = 0, .exponent = 0.5}}}}};
    assert_int_equal(outside(&root, -4, 1, term, need), 1);
    assert_string_equal(term, "sqrt(N)");
}

static void test_domain_rd_model(void **state)
{
    (void)state;
    rd_model_bin bin = {.u_low = 0, .u_high = 1, .low = {.constant = 1}, .high = two_terms(), .mean = {.constant = 2}};
    rd_model m = {.cold = {.constant = 4}, .touches = {.constant = 9}, .nbins = 1, .bins = &bin};
    char term[64], need[64];
    double inside[2] = {8, 8}, at_zero[2] = {8, 0};
    assert_int_equal(predict_rd_term_outside(&m, inside, names2, term, sizeof term, need, sizeof need), 0);
    assert_int_equal(predict_rd_term_outside(&m, at_zero, names2, term, sizeof term, need, sizeof need), 1);
    assert_string_equal(term, "M*log2(M)");
}

static void test_count_range(void **state)
{
    (void)state;
    uint64_t v = 1;
    assert_int_equal(predict_count(41.5, &v), 0);
    assert_int_equal(v, 42); /* rounded half away from zero */
    assert_int_equal(predict_count(-3.2, &v), 0);
    assert_int_equal(v, 0); /* noise below zero */
    /* the largest double below 2^63 is 2^63 - 1024 */
    assert_int_equal(predict_count(9223372036854774784.0, &v), 0);
    assert_true(v == UINT64_C(9223372036854774784));
    assert_int_equal(predict_count(9223372036854775808.0, &v), -1);
    assert_int_equal(predict_count(1.15e36, &v), -1);
    assert_int_equal(predict_count(INFINITY, &v), -1);
    assert_int_equal(predict_count(-INFINITY, &v), -1);
    assert_int_equal(predict_count(NAN, &v), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_domain_inside),    cmocka_unit_test(test_domain_log_named),
        cmocka_unit_test(test_domain_power),     cmocka_unit_test(test_domain_rd_model),
        cmocka_unit_test(test_count_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
