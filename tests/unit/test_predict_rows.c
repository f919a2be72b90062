/* test_predict_rows.c — predict_rows_at (src/predict/predict.c), which
 * evaluates a model set at a training run's parameters for the misses'
 * in-sample errors (predict_miss_errors.c): it reads the set's parameters
 * from a row of train_x and nothing past it.
 *
 * The parameters are placed at the very end of a readable page followed by
 * an inaccessible one, as the last run's row ends train_x's allocation: a
 * read past them faults in any build, not only under AddressSanitizer
 * (which reported `augur predict` reading 32 bytes from this row of 8 or
 * 16).  The model is written here term by term, so its value is known by
 * hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "predict/predict_internal.h"

/* n doubles ending where a PROT_NONE page begins; release with
 * release_guarded(p, n). */
static double *guarded_doubles(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *base = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(base != MAP_FAILED);
    assert_int_equal(mprotect(base + page, page, PROT_NONE), 0);
    return (double *)(base + page) - n;
}

static void release_guarded(double *x, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    munmap((char *)(x + n) - page, 2 * page);
}

/* One function whose instructions are 3 + 2*N + 5*M, predicted at N=10,
 * M=7 from parameters that end at a guard page: 58. */
static void test_reads_only_the_set_parameters(void **state)
{
    (void)state;
    model m = {.constant = 3,
               .nterms = 2,
               .terms = {{.coef = 2, .nfactors = 1, .factors = {{.param = 0, .exponent = 1}}},
                         {.coef = 5, .nfactors = 1, .factors = {{.param = 1, .exponent = 1}}}}};
    db_model_row row = {.kind = "function", .module = "prog", .function = "kernel", .metric = "instructions",
                        .m = &m};
    prediction p = {.set = {.nparams = 2, .params = {"N", "M"}}, .rows = &row, .nrows = 1};
    double *x = guarded_doubles(2);
    x[0] = 10;
    x[1] = 7;
    report out;
    char err[512] = "";
    int rc = predict_rows_at(&p, x, NULL, 0, &out, err, sizeof err);
    assert_int_equal(rc, 0);
    assert_int_equal(out.nfunctions, 1);
    assert_string_equal(out.functions[0].function, "kernel");
    assert_int_equal(out.functions[0].c.instructions, 58);
    assert_int_equal(out.total.instructions, 58);
    report_free(&out);
    release_guarded(x, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_only_the_set_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
