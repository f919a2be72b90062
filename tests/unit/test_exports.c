/* test_exports.c — the writers of `augur export` (src/report/export_*.c)
 * on hand-made runs: numbers as Extra-P's grammar takes them (no exponent,
 * misses to one decimal), names that would break a file (a comma and a
 * quote in CSV, "->" and a byte outside ASCII in Extra-P), repetitions,
 * and the refusals (no parameters, different ones, more than 4 varying). */
#include "host_fixtures.h"

#include "report/export.h"

static void test_numbers(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(export_param(64, buf), "64");
    assert_string_equal(export_param(-3, buf), "-3");
    assert_string_equal(export_param(0.5, buf), "0.5");
    assert_string_equal(export_param(1e-7, buf), "0.0000001");
    assert_string_equal(export_param(1e20, buf), "100000000000000000000");
    assert_string_equal(export_param(1.0 / 3, buf), "0.333333333333333");
    assert_string_equal(export_misses(47.5, buf), "47.5");
    assert_string_equal(export_misses(47.04, buf), "47");
    assert_string_equal(export_misses(1e18, buf), "1000000000000000000");
}

/* Two runs of N = 1 and one of N = 2, each with one function of an awkward
 * name; run r has (r + 1) * 10 instructions in it. */
typedef struct sample {
    db_param params[3][2];
    db_run runs[3];
    report_function fns[3][1];
    report reps[3];
    export_set s;
} sample;

static void make_sample(sample *x, const char *name, int nparams, const double *n)
{
    memset(x, 0, sizeof *x);
    for (int r = 0; r < 3; r++) {
        x->params[r][0] = (db_param){.name = "N", .text = "?", .value = n[r]};
        x->params[r][1] = (db_param){.name = "P", .text = "4", .value = 4};
        x->runs[r] = (db_run){.id = r + 1, .nparams = (size_t)nparams, .params = x->params[r], .cwd = "/"};
        x->fns[r][0] = (report_function){.function = (char *)name, .module = "/bin/prog",
                                         .c = {.instructions = (uint64_t)(r + 1) * 10}};
        x->reps[r] = (report){.run = &x->runs[r], .nfunctions = 1, .functions = x->fns[r],
                              .total = {.instructions = (uint64_t)(r + 1) * 10}};
    }
    x->s = (export_set){.nruns = 3, .runs = x->runs, .reps = x->reps};
}

/* The file a writer makes of x, as a new string. */
static char *written(const sample *x, int extrap, int want_rc, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    int rc = extrap ? export_extrap(&x->s, "t.db", out, err, errlen) : export_csv(&x->s, out, err, errlen);
    fclose(out);
    assert_int_equal(rc, want_rc);
    return text;
}

static void test_extrap(void **state)
{
    (void)state;
    sample x;
    const double n[3] = {1, 1, 2};
    make_sample(&x, "a->b \xc3\xa9", 2, n);
    char err[256];
    char *text = written(&x, 1, 0, err, sizeof err);
    /* P is the same in every run: only N is a parameter; N = 1 twice */
    assert_non_null(strstr(text, "\nPARAMETER N\nPOINTS 1 2\n"));
    assert_non_null(strstr(text, "\nMETRIC instructions\nREGION (program)\nDATA 10 20\nDATA 30\n"
                                 "REGION a- >b ??\nDATA 10 20\nDATA 30\n"));
    assert_non_null(strstr(text, "\nMETRIC accesses\n"));
    free(text);
}

static void test_extrap_refusals(void **state)
{
    (void)state;
    sample x;
    const double n[3] = {1, 2, 3};
    char err[256];
    make_sample(&x, "f", 0, n);
    free(written(&x, 1, -1, err, sizeof err));
    assert_non_null(strstr(err, "run 1 has no parameters: Extra-P models counts as functions of parameters"));
    make_sample(&x, "f", 2, n);
    x.runs[2].nparams = 1;
    free(written(&x, 1, -1, err, sizeof err));
    assert_non_null(strstr(err, "runs 1 and 3 have different parameters"));
    db_param many[3][5];
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 5; k++)
            many[r][k] = (db_param){.name = (char *)(const char *[]){"A", "B", "C", "D", "E"}[k], .value = r + k};
        x.runs[r].params = many[r];
        x.runs[r].nparams = 5;
    }
    free(written(&x, 1, -1, err, sizeof err));
    assert_non_null(strstr(err, "the runs vary 5 parameters, and Extra-P's text format takes at most 4"));
}

static void test_csv(void **state)
{
    (void)state;
    sample x;
    const double n[3] = {1, 1, 2};
    make_sample(&x, "f<int, \"x\">", 1, n);
    char err[256];
    char *text = written(&x, 0, 0, err, sizeof err);
    assert_non_null(strstr(text, "run,N,scope,function,module,file,line,metric,cache,value\r\n"
                                 "1,?,program,,,,,instructions,,10\r\n"));
    assert_non_null(strstr(text, "\r\n3,?,function,\"f<int, \"\"x\"\">\",/bin/prog,,,instructions,,30\r\n"));
    assert_null(strstr(text, "misses")); /* no caches: no misses metric */
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_extrap),
        cmocka_unit_test(test_extrap_refusals),
        cmocka_unit_test(test_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
