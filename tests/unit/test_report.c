/* test_report.c — the report (src/report): misses of hand-made histograms
 * equal their closed forms, functions and lines add up to the totals over
 * all processes, the JSON and text renderings carry them, the misses query
 * of docs/database.md agrees, and cache specifications parse as documented. */
#include "host_fixtures.h"

#include <jansson.h>
#include <math.h>
#include <sqlite3.h>

#include "db/db.h"
#include "report/report.h"
#include "util/parse.h"

/* kernel() at app.c:10 loads 160 times: cold 10, 100 at distance 3, 50 at
 * distance 100 (bin 36 = [96, 104)).  Its store at util.h:3 (inlined) only
 * touches new blocks.  main() at app.c:20 loads 7 times: cold 2, 5 at
 * distance 5. */
static const char main_body[] = "augur-profile 1\n"
                                "tool augur-collect 0.1.0\n"
                                "pid 200\n"
                                "ppid 1\n"
                                "exe /src/app\n"
                                "arg 100\n"
                                "block-size 64\n"
                                "block-size 4096\n"
                                "threads 1\n"
                                "module 0 /src/app 0\n"
                                "fn 0 main\n"
                                "fn 1 kernel\n"
                                "file 0 /src/app.c\n"
                                "file 1 /src/util.h\n"
                                "ins 0 1000 4 1 0 10 160 160 0\n"
                                "hist 64 160 10 2 3 100 300 36 50 5000\n"
                                "hist 4096 160 1 1 0 159 0\n"
                                "ins 0 1004 3 1 0 10 160 0 0\n"
                                "br 150\n"
                                "ins 0 1010 4 1 1 3 40 0 40\n"
                                "hist 64 40 40 0\n"
                                "hist 4096 40 1 1 0 39 0\n"
                                "ins 0 2000 4 0 0 20 7 7 0\n"
                                "hist 64 7 2 1 5 5 25\n"
                                "hist 4096 7 1 1 0 6 0\n"
                                "exit 0\n";

/* A child running kernel() too: 10 more loads at distance 3. */
static const char child_body[] = "augur-profile 1\n"
                                 "tool augur-collect 0.1.0\n"
                                 "pid 201\n"
                                 "ppid 200\n"
                                 "exe /src/app\n"
                                 "block-size 64\n"
                                 "block-size 4096\n"
                                 "threads 1\n"
                                 "module 0 /src/app 0\n"
                                 "fn 0 kernel\n"
                                 "file 0 /src/app.c\n"
                                 "ins 0 1000 4 0 0 10 10 10 0\n"
                                 "hist 64 10 0 1 3 10 30\n"
                                 "hist 4096 10 1 1 0 9 0\n"
                                 "exit 0\n";

/* 64, 2, 98 (inside bin 36) and 1024 lines of 64 bytes; 2 lines of 4 KiB. */
static const report_cache caches[] = {{4096, 64}, {128, 64}, {6272, 64}, {65536, 64}, {8192, 4096}};
#define NCACHES (sizeof caches / sizeof *caches)

typedef struct fixture {
    char *dir, *db_path;
    db *d;
    db_run run;
    report rep;
} fixture;

/* Import a run of the given profiles (NULL-terminated) and build its report. */
static void import_and_build(fixture *f, const char *const *bodies)
{
    static char *argv[] = {"./app", "100"}, *names[] = {"N"}, *values[] = {"100"};
    run_info ri = {.argc = 2, .argv = argv, .nparams = 1, .param_names = names, .param_values = values,
                   .started = "2026-11-21T19:42:50Z", .finished = "2026-11-21T19:42:51Z", .host = "h",
                   .cwd = "/src", .status = "complete", .status_detail = "", .exit_code = 0};
    profile procs[4];
    profile *ptrs[4];
    size_t n = 0;
    for (; bodies[n]; n++) {
        char name[32];
        snprintf(name, sizeof name, "augur.%zu.prof", n);
        fixture_read(f->dir, name, bodies[n], &procs[n]);
        ptrs[n] = &procs[n];
    }
    char err[1024];
    int64_t id;
    if (db_open(f->db_path, 1, &f->d, err, sizeof err) != 0 || db_import_run(f->d, &ri, ptrs, n, &id, err, sizeof err) != 0 ||
        db_get_run(f->d, id, &f->run, err, sizeof err) != 0 ||
        report_build(f->d, &f->run, caches, NCACHES, &f->rep, err, sizeof err) != 0)
        fail_msg("%s", err);
    for (size_t i = 0; i < n; i++)
        profile_free(&procs[i]);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = fixture_tmpdir();
    f->db_path = fixture_path(f->dir, "augur.db");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    report_free(&f->rep);
    db_run_free(&f->run);
    db_close(f->d);
    free(f->db_path);
    fixture_remove(f->dir);
    free(f);
    return 0;
}

static void assert_misses(const report_counts *c, const double *want)
{
    for (size_t k = 0; k < NCACHES; k++)
        if (fabs(c->misses[k] - want[k]) > 1e-9)
            fail_msg("cache %zu: %g misses, expected %g", k, c->misses[k], want[k]);
}

static const report_function *find_function(const report *r, const char *name)
{
    for (size_t i = 0; i < r->nfunctions; i++)
        if (r->functions[i].function && strcmp(r->functions[i].function, name) == 0)
            return &r->functions[i];
    fail_msg("no function %s in the report", name);
    return NULL;
}

/* ---- numbers ------------------------------------------------------------- */

static void test_closed_form_misses(void **state)
{
    fixture *f = *state;
    import_and_build(f, (const char *const[]){main_body, NULL});
    const report *r = &f->rep;

    /* app.c:10, the load: cold 10 + the 50 at distance 100 miss in 64 lines;
     * in 2 lines everything misses; in 98 lines, (104 - 98) / 8 of bin 36
     * does; in 1024 lines only the cold ones; in two 4 KiB lines, 1 cold. */
    assert_int_equal(r->nlines, 3);
    const report_line *l = &r->lines[0];
    assert_string_equal(l->file, "/src/app.c");
    assert_int_equal(l->line, 10);
    assert_string_equal(l->function, "kernel");
    assert_int_equal(l->c.instructions, 320);
    assert_int_equal(l->c.reads, 160);
    assert_misses(&l->c, (const double[]){60, 160, 47.5, 10, 1});

    assert_string_equal(r->lines[1].file, "/src/util.h");
    assert_misses(&r->lines[1].c, (const double[]){40, 40, 40, 40, 1});
    assert_int_equal(r->lines[2].line, 20);
    assert_misses(&r->lines[2].c, (const double[]){2, 7, 2, 2, 1});

    assert_int_equal(r->nfunctions, 2);
    const report_function *k = &r->functions[0]; /* most instructions first */
    assert_string_equal(k->function, "kernel");
    assert_string_equal(k->module, "/src/app");
    assert_int_equal(k->c.instructions, 360);
    assert_int_equal(k->c.reads + k->c.writes, 200);
    assert_misses(&k->c, (const double[]){100, 200, 87.5, 50, 2});

    assert_int_equal(r->total.instructions, 367);
    assert_int_equal(r->total.reads, 167);
    assert_int_equal(r->total.writes, 40);
    assert_misses(&r->total, (const double[]){102, 207, 89.5, 52, 3});
}

static void test_totals_are_sums(void **state)
{
    fixture *f = *state;
    import_and_build(f, (const char *const[]){main_body, child_body, NULL});
    const report *r = &f->rep;
    /* kernel of both processes is one function, app.c:10 one line */
    assert_int_equal(r->nfunctions, 2);
    assert_int_equal(find_function(r, "kernel")->c.instructions, 370);
    assert_misses(&find_function(r, "kernel")->c, (const double[]){100, 210, 87.5, 50, 3});
    assert_int_equal(r->nlines, 3);
    assert_int_equal(r->lines[0].c.reads, 170);

    report_counts fsum = {0}, lsum = {0};
    for (size_t i = 0; i < r->nfunctions; i++) {
        fsum.instructions += r->functions[i].c.instructions;
        fsum.reads += r->functions[i].c.reads;
        fsum.writes += r->functions[i].c.writes;
        for (size_t c = 0; c < NCACHES; c++)
            fsum.misses[c] += r->functions[i].c.misses[c];
    }
    for (size_t i = 0; i < r->nlines; i++) {
        lsum.instructions += r->lines[i].c.instructions;
        lsum.reads += r->lines[i].c.reads;
        lsum.writes += r->lines[i].c.writes;
        for (size_t c = 0; c < NCACHES; c++)
            lsum.misses[c] += r->lines[i].c.misses[c];
    }
    const report_counts *sums[] = {&fsum, &lsum};
    for (int s = 0; s < 2; s++) {
        assert_int_equal(sums[s]->instructions, r->total.instructions);
        assert_int_equal(sums[s]->reads, r->total.reads);
        assert_int_equal(sums[s]->writes, r->total.writes);
        assert_misses(sums[s], r->total.misses);
    }
    assert_int_equal(r->total.instructions, 377);
}

/* ---- renderings ---------------------------------------------------------- */

static void test_json(void **state)
{
    fixture *f = *state;
    import_and_build(f, (const char *const[]){main_body, NULL});
    json_t *j = report_json(&f->rep, 1);
    assert_non_null(j);
    json_t *run = json_array_get(json_object_get(j, "runs"), 0);
    assert_int_equal(json_integer_value(json_object_get(run, "id")), 1);
    assert_true(json_is_integer(json_object_get(json_object_get(run, "params"), "N")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(run, "params"), "N")), 100);
    assert_string_equal(json_string_value(json_array_get(json_object_get(run, "command"), 0)), "./app");
    assert_string_equal(json_string_value(json_object_get(run, "status")), "complete");
    assert_string_equal(json_string_value(json_object_get(run, "started")), "2026-11-21T19:42:50Z");

    json_t *total = json_object_get(j, "total");
    assert_int_equal(json_integer_value(json_object_get(total, "instructions")), 367);
    assert_int_equal(json_integer_value(json_object_get(total, "accesses")), 207);
    json_t *misses = json_object_get(total, "misses");
    assert_true(json_is_integer(json_object_get(misses, "4096:64")));
    assert_int_equal(json_integer_value(json_object_get(misses, "4096:64")), 102);
    assert_true(json_is_real(json_object_get(misses, "6272:64"))); /* capacity 98 lies inside a bin */
    assert_true(json_real_value(json_object_get(misses, "6272:64")) == 89.5);

    json_t *fns = json_object_get(j, "functions");
    assert_int_equal(json_array_size(fns), 1); /* --top 1 */
    assert_int_equal(json_integer_value(json_object_get(j, "function_count")), 2);
    json_t *fn = json_array_get(fns, 0);
    assert_string_equal(json_string_value(json_object_get(fn, "function")), "kernel");
    assert_string_equal(json_string_value(json_object_get(fn, "module")), "/src/app");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(fn, "misses"), "4096:64")), 100);

    json_t *line = json_array_get(json_object_get(j, "lines"), 0);
    assert_string_equal(json_string_value(json_object_get(line, "file")), "/src/app.c");
    assert_int_equal(json_integer_value(json_object_get(line, "line")), 10);
    assert_string_equal(json_string_value(json_object_get(line, "function")), "kernel");

    json_t *cache = json_array_get(json_object_get(j, "caches"), 0);
    assert_string_equal(json_string_value(json_object_get(cache, "key")), "4096:64");
    assert_int_equal(json_integer_value(json_object_get(cache, "lines")), 64);
    json_decref(j);
}

static void test_text(void **state)
{
    fixture *f = *state;
    import_and_build(f, (const char *const[]){main_body, NULL});
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_int_equal(report_write_text(&f->rep, 1, NUM_GROUPED, out), 0);
    fclose(out);
    const char *want[] = {"Run 1: ./app 100\n",
                          "  parameters  N=100\n",
                          "  misses 4KiB:64    102  fully-associative LRU cache of 64 lines of 64 bytes\n",
                          "Functions: 1 of 2, most instructions first\n",
                          "  instructions     %  accesses  misses 4KiB:64  misses 128:64  misses 6272:64  "
                          "misses 64KiB:64  misses 8KiB:4096  function  module\n",
                          /* misses as whole numbers: 87.5 (a capacity inside a bin) is 88 */
                          "           360  98.1       200             100            200              88  "
                          "             50                 2  kernel    app\n",
                          "  misses 64KiB:64    52  fully-associative LRU cache of 1,024 lines of 64 bytes\n",
                          "  instructions      367\n",
                          "Source lines: 1 of 3, most instructions first\n",
                          "  app.c:10   kernel\n"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(text, want[i])) {
            print_message("%s", text);
            fail_msg("the text report above lacks\n%s", want[i]);
        }
    free(text);
}

/* The misses query of docs/database.md gives the report's numbers. */
static void test_documented_sql(void **state)
{
    fixture *f = *state;
    import_and_build(f, (const char *const[]){main_body, NULL});
    sqlite3 *s;
    assert_int_equal(sqlite3_open(f->db_path, &s), SQLITE_OK);
    static const char sql[] =
        "WITH params(run, line, capacity) AS (VALUES (1, 64, 98)),\n"
        "bin_misses AS (\n"
        "  SELECT b.instruction_id,\n"
        "         sum(b.count * CASE WHEN r.low >= p.capacity THEN 1.0\n"
        "                            WHEN r.high <= p.capacity THEN 0.0\n"
        "                            ELSE (r.high - p.capacity) * 1.0 / (r.high - r.low) END) AS misses\n"
        "  FROM params p\n"
        "  JOIN processes pr ON pr.run_id = p.run\n"
        "  JOIN instructions i ON i.process_id = pr.id\n"
        "  JOIN hist_bins b ON b.instruction_id = i.id AND b.block_size = p.line\n"
        "  JOIN rd_bins r ON r.bin = b.bin\n"
        "  GROUP BY b.instruction_id)\n"
        "SELECT f.name AS function, sum(h.cold + ifnull(bm.misses, 0)) AS misses\n"
        "FROM params p\n"
        "JOIN processes pr ON pr.run_id = p.run\n"
        "JOIN instructions i ON i.process_id = pr.id\n"
        "JOIN histograms h ON h.instruction_id = i.id AND h.block_size = p.line\n"
        "LEFT JOIN bin_misses bm ON bm.instruction_id = i.id\n"
        "LEFT JOIN functions f ON f.id = i.function_id\n"
        "GROUP BY i.function_id ORDER BY misses DESC;";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s", sqlite3_errmsg(s));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "kernel");
    assert_true(sqlite3_column_double(st, 1) == find_function(&f->rep, "kernel")->c.misses[2]);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_true(sqlite3_column_double(st, 1) == find_function(&f->rep, "main")->c.misses[2]);
    sqlite3_finalize(st);
    sqlite3_close(s);
}

/* ---- cache specifications ------------------------------------------------ */

static void test_cache_specs(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        uint64_t size;
        uint32_t line;
        const char *key, *label;
    } good[] = {
        {"32K", 32768, 64, "32768:64", "32KiB:64"},       {"32KiB:128", 32768, 128, "32768:128", "32KiB:128"},
        {"1M", 1048576, 64, "1048576:64", "1MiB:64"},     {"1MiB", 1048576, 64, "1048576:64", "1MiB:64"},
        {"8M", 8388608, 64, "8388608:64", "8MiB:64"},     {"65536", 65536, 64, "65536:64", "64KiB:64"},
        {"6272:64", 6272, 64, "6272:64", "6272:64"},      {"2m:4k", 2097152, 4096, "2097152:4096", "2MiB:4096"},
    };
    char err[256], buf[64];
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        report_cache c;
        if (report_cache_parse(good[i].spec, &c, err, sizeof err) != 0)
            fail_msg("%s: %s", good[i].spec, err);
        assert_int_equal(c.size, good[i].size);
        assert_int_equal(c.line, good[i].line);
        report_cache_key(&c, buf, sizeof buf);
        assert_string_equal(buf, good[i].key);
        report_cache_label(&c, buf, sizeof buf);
        assert_string_equal(buf, good[i].label);
    }
    static const struct {
        const char *spec, *error;
    } bad[] = {
        {"32Q", "bad cache '32Q': write SIZE[:LINE] in bytes with an optional suffix K, KiB, M, MiB, G or GiB"},
        {"", "bad cache '': write SIZE[:LINE]"},
        {":64", "bad cache ':64': write SIZE[:LINE]"},
        {"32K:", "bad cache '32K:': write SIZE[:LINE]"},
        {"32KB", "bad cache '32KB': write SIZE[:LINE]"},
        {"32K:48", "bad cache '32K:48': the line size 48 is not a power of two >= 8"},
        {"1000:64", "bad cache '1000:64': the size 1000 bytes is not a positive multiple of the line size 64"},
        {"32:64", "bad cache '32:64': the size 32 bytes is not a positive multiple of the line size 64"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        report_cache c;
        assert_int_equal(report_cache_parse(bad[i].spec, &c, err, sizeof err), -1);
        if (strncmp(err, bad[i].error, strlen(bad[i].error)) != 0)
            fail_msg("%s gave\n  %s\nexpected\n  %s", bad[i].spec, err, bad[i].error);
    }
    db_run run = {.id = 4, .nblock_sizes = 2, .block_sizes = {64, 4096}};
    report_cache c = {32768, 128};
    assert_int_equal(report_cache_check(&c, &run, err, sizeof err), -1);
    assert_string_equal(err, "run 4 has no histograms for 128-byte lines: it measured block sizes 64, 4096 (use one "
                             "of them as LINE in SIZE:LINE, or collect again with that block size)");
    c.line = 4096;
    assert_int_equal(report_cache_check(&c, &run, err, sizeof err), 0);
}

/* Sizes for people in the largest unit that divides them exactly: a
 * sliced L3 (300 MiB = 15 x 20 MiB) and its simulated power of two. */
static void test_bytes_text(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(report_bytes_text(314572800, buf, sizeof buf), "300 MiB");
    assert_string_equal(report_bytes_text(167772160, buf, sizeof buf), "160 MiB");
    assert_string_equal(report_bytes_text(1572864, buf, sizeof buf), "1536 KiB");
    assert_string_equal(report_bytes_text(1000, buf, sizeof buf), "1000 bytes");
    assert_string_equal(report_bytes_text(1ull << 40, buf, sizeof buf), "1 TiB");
}

static void test_parsers(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(parse_u64("18446744073709551615", &v), 0);
    assert_true(v == UINT64_MAX);
    assert_int_equal(parse_u64("18446744073709551616", &v), -1);
    assert_int_equal(parse_u64("-1", &v), -1);
    assert_int_equal(parse_u64(" 1", &v), -1);
    assert_int_equal(parse_u64("", &v), -1);
    int64_t sv = 7;
    assert_int_equal(parse_i64("-9223372036854775808", &sv), 0);
    assert_true(sv == INT64_MIN);
    assert_int_equal(parse_i64("9223372036854775807", &sv), 0);
    assert_true(sv == INT64_MAX);
    assert_int_equal(parse_i64("-1792", &sv), 0);
    assert_int_equal(sv, -1792);
    const char *bad_signed[] = {"9223372036854775808", "-9223372036854775809", "+1", "-", "", "--1", " 1", "1 "};
    for (size_t i = 0; i < sizeof bad_signed / sizeof *bad_signed; i++)
        if (parse_i64(bad_signed[i], &sv) != -1)
            fail_msg("parse_i64 accepted '%s'", bad_signed[i]);
    assert_int_equal(sv, -1792); /* unchanged on failure */
    assert_int_equal(parse_hex_u64("ffffffffffffffff", &v), 0);
    assert_true(v == UINT64_MAX);
    assert_int_equal(parse_hex_u64("1ffffffffffffffff", &v), -1);
    assert_int_equal(parse_hex_u64("FF", &v), -1);
    assert_int_equal(parse_hex_u64("0x1", &v), -1);
    assert_int_equal(parse_size("1G", &v), 0);
    assert_int_equal(v, 1073741824);
    assert_int_equal(parse_size("64B", &v), 0);
    assert_int_equal(v, 64);
    assert_int_equal(parse_size("17179869184G", &v), -1); /* 2^64 bytes */
    double x = 7;
    const char *good[] = {"4", "0.5", "-1.25e3", ".5", "5.", "1E-3", "2e+2"};
    const double want[] = {4, 0.5, -1250, 0.5, 5, 1e-3, 200};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        assert_int_equal(parse_double(good[i], &x), 0);
        assert_true(x == want[i]);
    }
    /* strtod takes every one of these */
    const char *bad[] = {"0x10", "inf", "nan", "-inf", " 4", "4 ", "+4", "", ".", "-", "1e", "1e+", "1e999", "4,5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        x = 7;
        if (parse_double(bad[i], &x) != -1)
            fail_msg("parse_double accepted '%s'", bad[i]);
        assert_true(x == 7);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_closed_form_misses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_totals_are_sums, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_documented_sql, setup, teardown),
        cmocka_unit_test(test_cache_specs),
        cmocka_unit_test(test_bytes_text),
        cmocka_unit_test(test_parsers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
