/* test_numfmt.c — unit tests of src/util/numfmt.c, the numbers of every
 * text report: thousands grouped or plain, fixed decimals, a column's
 * decimals from its largest value, rounding to significant digits.  The
 * expected strings are written out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/numfmt.h"

static char buf[NUMFMT_LEN];

static void counts_grouped(void **state)
{
    (void)state;
    assert_string_equal(numfmt_count(0, NUM_GROUPED, buf), "0");
    assert_string_equal(numfmt_count(999, NUM_GROUPED, buf), "999");
    assert_string_equal(numfmt_count(1000, NUM_GROUPED, buf), "1,000");
    assert_string_equal(numfmt_count(48196150973ull, NUM_GROUPED, buf), "48,196,150,973");
    assert_string_equal(numfmt_count(UINT64_MAX, NUM_GROUPED, buf), "18,446,744,073,709,551,615");
    assert_string_equal(numfmt_count(48196150973ull, NUM_PLAIN, buf), "48196150973");
}

static void fixed_decimals(void **state)
{
    (void)state;
    assert_string_equal(numfmt_fixed(3519541.8297, 1, NUM_GROUPED, buf), "3,519,541.8");
    assert_string_equal(numfmt_fixed(3519541.8297, 0, NUM_GROUPED, buf), "3,519,542");
    assert_string_equal(numfmt_fixed(3519541.8297, 0, NUM_PLAIN, buf), "3519542");
    assert_string_equal(numfmt_fixed(421.04, 0, NUM_GROUPED, buf), "421");
    assert_string_equal(numfmt_fixed(999.96, 1, NUM_GROUPED, buf), "1,000.0");
    assert_string_equal(numfmt_fixed(-1234.5, 2, NUM_GROUPED, buf), "-1,234.50");
    assert_string_equal(numfmt_fixed(-0.0001, 2, NUM_GROUPED, buf), "0.00");
    assert_string_equal(numfmt_fixed(1.127e-06, 3, NUM_GROUPED, buf), "0.000");
    assert_string_equal(numfmt_fixed(0.5, 12, NUM_GROUPED, buf), "0.500000000"); /* at most 9 decimals */
    assert_string_equal(numfmt_fixed(INFINITY, 1, NUM_GROUPED, buf), "inf");
    assert_string_equal(numfmt_fixed(NAN, 1, NUM_GROUPED, buf), "nan");
    assert_string_equal(numfmt_fixed(9.2e18, 0, NUM_GROUPED, buf), "9,200,000,000,000,000,000");
}

static void column_decimals(void **state)
{
    (void)state;
    assert_int_equal(numfmt_decimals(9.014, 4), 3);
    assert_int_equal(numfmt_decimals(0.0123, 4), 5);
    assert_int_equal(numfmt_decimals(123.4, 4), 1);
    assert_int_equal(numfmt_decimals(31549013, 4), 0);
    assert_int_equal(numfmt_decimals(-9.014, 4), 3);
    assert_int_equal(numfmt_decimals(9.9996, 4), 2); /* rounds to 10.00 */
    assert_int_equal(numfmt_decimals(0, 4), 3);
    assert_int_equal(numfmt_decimals(1e-15, 4), 9);
}

static void significant_digits(void **state)
{
    (void)state;
    assert_true(numfmt_round_sig(31549013, 4) == 31550000);
    assert_true(numfmt_round_sig(-0.00012345, 2) == -0.00012);
    assert_true(numfmt_round_sig(0, 4) == 0);
    assert_true(numfmt_round_sig(9.9996, 4) == 10);
    assert_true(isinf(numfmt_round_sig(INFINITY, 4)));
}

/* The digits a range supports: down to the decimal place of its
 * half-width, 2 to 15; 0 (all) without a range. */
static void digits_of_a_range(void **state)
{
    (void)state;
    /* snap's predicted instructions at 8x: half-width 2.7e9, place 10^9 */
    assert_int_equal(numfmt_range_digits(4960252692, 2455208282, 7838477577), 2);
    /* +-1%: half-width 8.4e6 of 8.4e8, places 10^8 down to 10^6 */
    assert_int_equal(numfmt_range_digits(839585629, 831189773, 847981485), 3);
    assert_int_equal(numfmt_range_digits(839585629, 839585629, 839585629), 0); /* exact */
    assert_int_equal(numfmt_range_digits(1000, 999.6, 1000.4), 0);             /* under a unit */
    assert_int_equal(numfmt_range_digits(12, 0, 1e6), 2);                      /* at least 2 */
    assert_int_equal(numfmt_range_digits(0, 0, 10), 0);
    assert_true(numfmt_shown(4960252692, 2455208282, 7838477577) == 5000000000);
    assert_true(numfmt_shown(123456789, 0, 0) == 123456789); /* measured */
    /* the ends round outward, to 3 digits: the range never narrows */
    assert_true(numfmt_range_end(8176846, 8176846, 1509456576, 0) == 8170000);
    assert_true(numfmt_range_end(1509456576, 8176846, 1509456576, 1) == 1510000000);
    char r[NUMFMT_RANGE_LEN];
    assert_string_equal(numfmt_range(8176846, 1509456576, NUM_GROUPED, r), "8,170,000 to 1,510,000,000");
    assert_string_equal(numfmt_range(999.6, 1000.4, NUM_PLAIN, r), "1000 to 1000"); /* every digit, whole */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_grouped),
        cmocka_unit_test(fixed_decimals),
        cmocka_unit_test(column_decimals),
        cmocka_unit_test(significant_digits),
        cmocka_unit_test(digits_of_a_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
