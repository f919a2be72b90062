/* test_db.c — the experiment database (src/db): a run of two processes is
 * imported and read back, by SQL and through db_query; concurrent imports
 * from two processes both land; bad paths, foreign files, newer schemas
 * and failed imports leave nothing behind; and an import of 100k
 * instructions is timed. */
#include "host_fixtures.h"

#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>

#include "binary/buildid.h"
#include "db/db.h"
#include "model/model.h"
#include "structure/structure.h"

/* DB_SCHEMA_VERSION as the meta table and the messages spell it. */
#define SCHEMA_TEXT_OF(v) #v
#define SCHEMA_TEXT(v) SCHEMA_TEXT_OF(v)
#define SCHEMA_VERSION_TEXT SCHEMA_TEXT(DB_SCHEMA_VERSION)

/* The main process: sweep() loads at distances 3 and ~100, 990 of its 999
 * address deltas 64 bytes; a branch and an indirect call in main() that
 * entered sweep once. */
static const char main_body[] = "augur-profile 3\n"
                                "tool augur-collect 0.1.0\n"
                                "pid 100\n"
                                "ppid 99\n"
                                "exe /proc/self/exe\n"
                                "arg 100\n"
                                "block-size 64\n"
                                "block-size 4096\n"
                                "threads 1\n"
                                "module 0 /proc/self/exe 555555554000\n"
                                "fn 0 main\n"
                                "fn 1 sweep\n"
                                "file 0 /src/sweep.c\n"
                                "ins 0 1000 4 1 0 10 1000 1000 0\n"
                                "hist 64 1000 10 2 3 100 300 36 890 89000\n"
                                "hist 4096 1000 2 1 0 998 0\n"
                                "stride 64 990 999\n"
                                "ins 0 1004 2 1 0 11 1000 0 0\n"
                                "br 990\n"
                                "ins 0 1010 5 0 0 20 1 0 1\n"
                                "ind 0 1000 1\n"
                                "call 0 1000 1\n"
                                "hist 64 1 1 0\n"
                                "hist 4096 1 1 0\n"
                                "exit 0\n";

/* A child process killed by a signal (no exit line); its name ids differ
 * from the main process's; no delta of its load is the majority. */
static const char child_body[] = "augur-profile 3\n"
                                 "tool augur-collect 0.1.0\n"
                                 "pid 101\n"
                                 "ppid 100\n"
                                 "exe /proc/self/exe\n"
                                 "block-size 64\n"
                                 "block-size 4096\n"
                                 "threads 3\n"
                                 "module 0 /proc/self/exe 555555554000\n"
                                 "fn 0 sweep\n"
                                 "file 0 /src/sweep.c\n"
                                 "ins 0 1000 4 0 0 10 500 500 0\n"
                                 "hist 64 500 5 1 3 495 1485\n"
                                 "hist 4096 500 1 1 0 499 0\n"
                                 "stride -8 200 499\n"
                                 "ins -1 7fff0000 1 -1 -1 0 3 0 0\n";

static char *run_argv[] = {"./sweep", "100"};
static char *param_names[] = {"N", "M"};
static char *param_values[] = {"100", "2.5"};

static const run_info sample_run = {
    .argc = 2,
    .argv = run_argv,
    .nparams = 2,
    .param_names = param_names,
    .param_values = param_values,
    .started = "2026-11-21T19:42:50Z",
    .finished = "2026-11-21T19:42:55Z",
    .host = "testhost",
    .cwd = "/src",
    .status = "complete",
    .status_detail = "",
    .exit_code = 0,
};

typedef struct fixture {
    char *dir, *db_path;
    profile procs[2];
    profile *ptrs[2];
    profile extra; /* a test's own profile, freed by teardown even when it fails */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = fixture_tmpdir();
    f->db_path = fixture_path(f->dir, "augur.db");
    fixture_read(f->dir, "augur.100.prof", main_body, &f->procs[0]);
    fixture_read(f->dir, "augur.101.prof", child_body, &f->procs[1]);
    f->ptrs[0] = &f->procs[0];
    f->ptrs[1] = &f->procs[1];
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    profile_free(&f->procs[0]);
    profile_free(&f->procs[1]);
    profile_free(&f->extra);
    free(f->db_path);
    fixture_remove(f->dir);
    free(f);
    return 0;
}

/* Open (creating) and import the sample run; returns its id. */
static int64_t import_sample(const fixture *f)
{
    db *d;
    char err[1024];
    int64_t id;
    if (db_open(f->db_path, 1, &d, err, sizeof err) != 0 ||
        db_import_run(d, &sample_run, f->ptrs, 2, &id, err, sizeof err) != 0)
        fail_msg("%s", err);
    db_close(d);
    return id;
}

/* ---- SQL helpers --------------------------------------------------------- */

static sqlite3 *sql_open(const char *path)
{
    sqlite3 *s;
    assert_int_equal(sqlite3_open_v2(path, &s, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    return s;
}

/* The first column of the first row of a query, as an integer. */
static int64_t sql_int(sqlite3 *s, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(s));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The same as text; a new string, NULL for SQL NULL. */
static char *sql_text(sqlite3 *s, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(s));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const unsigned char *t = sqlite3_column_text(st, 0);
    char *v = t ? strdup((const char *)t) : NULL;
    sqlite3_finalize(st);
    return v;
}

static void assert_sql_text(sqlite3 *s, const char *sql, const char *want)
{
    char *got = sql_text(s, sql);
    if (!got || strcmp(got, want) != 0)
        fail_msg("%s\n  gave %s\n  expected %s", sql, got ? got : "NULL", want);
    free(got);
}

static void sql_exec(sqlite3 *s, const char *sql)
{
    if (sqlite3_exec(s, sql, NULL, NULL, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(s));
}

/* Number of entries in a directory, "." and ".." excluded. */
static int dir_entries(const char *dir)
{
    char *cmd;
    assert_true(asprintf(&cmd, "ls -A '%s' | wc -l", dir) > 0);
    FILE *p = popen(cmd, "r");
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    free(cmd);
    return n;
}

/* The spread of a stored model, and its spread_below (docs/database.md,
 * models.spread: four values, then four more for a reuse-distance slice
 * edge), read back as stored; a model with a spread alone reads a
 * spread_below of 0. */
static void test_model_spread_text(void **state)
{
    fixture *f = *state;
    import_sample(f);
    db *d;
    char err[1024];
    assert_int_equal(db_open(f->db_path, 0, &d, err, sizeof err), 0);
    db_model_set set = {.program = (char *)"prog", .nparams = 1, .params = {(char *)"N"}, .lo = {1}, .hi = {8},
                        .runs = (char *)"[1]", .basis = (char *)"[]", .nblock_sizes = 1, .block_sizes = {64}};
    db_model_writer *w;
    assert_int_equal(db_model_begin(d, &set, &w, err, sizeof err), 0);
    model both = {.method = MODEL_PMNF, .constant = 2, .npoints = 5, .spread = {0.5, 1, 2, 4},
                  .spread_below = {0.25, 0.5, 0.75, 0.875}};
    model alone = both;
    memset(alone.spread_below, 0, sizeof alone.spread_below);
    db_model_subject f1 = {.kind = "function", .module = "prog", .function = "f1", .scope = -1};
    db_model_subject f2 = {.kind = "function", .module = "prog", .function = "f2", .scope = -1};
    assert_int_equal(db_model_put(w, &f1, "instructions", &both, NULL, err, sizeof err), 0);
    assert_int_equal(db_model_put(w, &f2, "instructions", &alone, NULL, err, sizeof err), 0);
    assert_int_equal(db_model_commit(w, err, sizeof err), 0);
    db_model_row *rows;
    size_t n;
    assert_int_equal(db_models_load(d, &set, &rows, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) {
        const model *want = strcmp(rows[i].function, "f1") == 0 ? &both : &alone;
        for (int k = 0; k < MODEL_SPREAD_POINTS; k++) {
            assert_true(rows[i].m->spread[k] == want->spread[k]);
            assert_true(rows[i].m->spread_below[k] == want->spread_below[k]);
        }
    }
    db_model_rows_free(rows, n);
    db_close(d);
    sqlite3 *s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT group_concat(spread, ' | ') FROM (SELECT spread FROM models ORDER BY id)",
                    "0.5 1 2 4 0.25 0.5 0.75 0.875 | 0.5 1 2 4");
    sqlite3_close(s);
}

/* A stored group of a one-parameter set reads back with the growth bound
 * of its block size's footprint (rd_models_bound_growth): the largest
 * power among the groups' cold models (here N^2 and N), and the set's
 * fitted maximum as the top; a second block size whose cold models are
 * constant bounds nothing. */
static void test_l2tail_groups_growth_bound(void **state)
{
    fixture *f = *state;
    import_sample(f);
    db *d;
    char err[1024];
    assert_int_equal(db_open(f->db_path, 0, &d, err, sizeof err), 0);
    db_model_set set = {.program = (char *)"prog", .nparams = 1, .params = {(char *)"N"}, .lo = {10}, .hi = {56},
                        .runs = (char *)"[1]", .basis = (char *)"[]", .nblock_sizes = 2, .block_sizes = {64, 4096}};
    db_model_writer *w;
    assert_int_equal(db_model_begin(d, &set, &w, err, sizeof err), 0);
    model square = {.method = MODEL_PMNF, .nterms = 1, .terms = {{0.375, 1, {{0, 2, 0}}}}, .npoints = 5};
    model line = square, flat = {.method = MODEL_CONSTANT, .constant = 3, .npoints = 5};
    line.terms[0].factors[0].exponent = 1;
    rd_model m[3] = {{.cold = square, .touches = square}, {.cold = line, .touches = line}, {.cold = flat, .touches = flat}};
    db_rd_member member = {.addr = 16, .function = "f", .file = "f.c", .line = 3, .share = 1};
    uint32_t sizes[3] = {64, 64, 4096};
    for (int i = 0; i < 3; i++) {
        db_rd_group_spec g = {.block_size = sizes[i], .module = "prog", .loop = -1, .members = &member, .nmembers = 1,
                              .m = &m[i]};
        assert_int_equal(db_rd_group_put(w, &g, err, sizeof err), 0);
    }
    assert_int_equal(db_model_commit(w, err, sizeof err), 0);
    db_rd_group *groups;
    size_t n;
    assert_int_equal(db_rd_groups_load(d, &set, &groups, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
        assert_true(groups[i].m->max_power == (groups[i].block_size == 64 ? 2 : 0));
        assert_true(groups[i].m->top == 56);
    }
    db_rd_groups_free(groups, n);
    db_close(d);
}

/* ---- import and read back ------------------------------------------------ */

static void test_import_rows(void **state)
{
    fixture *f = *state;
    assert_int_equal(import_sample(f), 1);
    sqlite3 *s = sql_open(f->db_path);

    assert_sql_text(s, "SELECT command FROM runs", "[\"./sweep\",\"100\"]");
    assert_sql_text(s, "SELECT started || ' ' || finished || ' ' || host || ' ' || cwd || ' ' || status FROM runs",
                    "2026-11-21T19:42:50Z 2026-11-21T19:42:55Z testhost /src complete");
    assert_sql_text(s, "SELECT status_detail || exit_code FROM runs", "0");
    assert_sql_text(s, "SELECT augur_version FROM runs", AUGUR_VERSION);
    assert_sql_text(s,
                    "SELECT group_concat(p, ' ') FROM (SELECT name || '=' || value || '/' || value_text AS p "
                    "FROM params ORDER BY name)",
                    "M=2.5/2.5 N=100.0/100");
    assert_sql_text(s, "SELECT group_concat(block_size) FROM block_sizes WHERE run_id = 1", "64,4096");

    assert_sql_text(s,
                    "SELECT group_concat(p, ' ') FROM (SELECT position || ':' || pid || ':' || ppid || ':' || args "
                    "|| ':' || threads || ':' || ifnull(exit_code, 'null') || ':' || tool AS p FROM processes "
                    "ORDER BY position)",
                    "0:100:99:[\"100\"]:1:0:augur-collect 0.1.0 1:101:100:[]:3:null:augur-collect 0.1.0");

    /* one module (same path and build-id in both processes), with its build-id */
    char build_id[BUILD_ID_HEX_MAX];
    elf_build_id("/proc/self/exe", build_id, sizeof build_id);
    assert_int_equal(strlen(build_id), 40);
    assert_string_equal(f->procs[0].modules[0].build_id, build_id);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM modules"), 1);
    assert_sql_text(s, "SELECT path FROM modules", "/proc/self/exe");
    assert_sql_text(s, "SELECT build_id FROM modules", build_id);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM process_modules WHERE bias = 93824992231424"), 2);
    /* both processes' exe names that module exactly: it is their executable */
    assert_int_equal(sql_int(s, "SELECT count(*) FROM processes WHERE exe_module_id = (SELECT id FROM modules)"), 2);

    /* names are interned once across processes */
    assert_sql_text(s, "SELECT group_concat(name) FROM (SELECT name FROM functions ORDER BY name)", "main,sweep");
    assert_int_equal(sql_int(s, "SELECT count(*) FROM files"), 1);

    assert_int_equal(sql_int(s, "SELECT count(*) FROM instructions"), 5);
    assert_int_equal(sql_int(s, "SELECT sum(executions) FROM instructions"), 2504);
    assert_int_equal(sql_int(s, "SELECT sum(reads) FROM instructions"), 1500);
    assert_int_equal(sql_int(s, "SELECT sum(writes) FROM instructions"), 1);
    assert_sql_text(s, "SELECT group_concat(ifnull(taken, '-')) FROM (SELECT taken FROM instructions ORDER BY id)",
                    "-,990,-,-,-");
    assert_sql_text(s,
                    "SELECT printf('%x %d %s %s %d', addr, len, ifnull(module_id, 'abs'), ifnull(function_id, '?'), "
                    "ifnull(line, 0)) FROM instructions WHERE id = 5",
                    "7fff0000 1 abs ? 0");
    assert_sql_text(s, "SELECT printf('%d %x %d', instruction_id, addr, count) FROM branch_targets", "3 1000 1");
    /* the call's callee is the instruction of its own process at 0x1000 */
    assert_sql_text(s, "SELECT printf('%d %d %d', call_id, callee_id, count) FROM call_edges", "3 1 1");

    assert_int_equal(sql_int(s, "SELECT count(*) FROM histograms"), 6);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM hist_bins"), 5);
    assert_sql_text(s,
                    "SELECT group_concat(bin || ':' || count || ':' || sum, ' ') FROM hist_bins "
                    "WHERE instruction_id = 1 AND block_size = 64",
                    "3:100:300 36:890:89000");
    assert_sql_text(s, "SELECT cold || '/' || touches FROM histograms WHERE instruction_id = 4 AND block_size = 64",
                    "5/500");
    assert_sql_text(s,
                    "SELECT group_concat(s, ' ') FROM (SELECT instruction_id || ':' || delta || ':' || count || ':' || "
                    "deltas AS s FROM strides ORDER BY instruction_id)",
                    "1:64:990:999 4:-8:200:499");

    /* views */
    assert_sql_text(s, "SELECT instructions || '/' || reads FROM function_totals WHERE function = 'sweep'", "2500/1500");
    assert_sql_text(s, "SELECT instructions FROM line_totals WHERE file = '/src/sweep.c' AND line = 10", "1500");
    assert_sql_text(s, "SELECT command || ' | ' || params || ' | ' || processes FROM run_list",
                    "./sweep 100 | M=2.5 N=100 | 2");
    assert_sql_text(s, "SELECT addr_hex || ' ' || function FROM instruction_info WHERE id = 2", "1004 sweep");
    assert_int_equal(sql_int(s, "SELECT count(*) FROM rd_bins"), RD_MAX_BINS);
    assert_int_equal(sql_int(s, "SELECT low FROM rd_bins WHERE bin = 36"), 96);
    assert_int_equal(sql_int(s, "SELECT high FROM rd_bins WHERE bin = 36"), 104);
    sqlite3_close(s);

    /* a second run reuses modules and names */
    assert_int_equal(import_sample(f), 2);
    s = sql_open(f->db_path);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM modules"), 1);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM functions"), 2);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM instructions"), 10);
    sqlite3_close(s);
}

/* db_for_each_histogram callback: records what it is given. */
typedef struct seen_hists {
    int n;
    int64_t ids[8];
    uint64_t cold[8], bin_counts[8], bin_sums[8];
    size_t nbins[8];
} seen_hists;

static int record_hist(void *ctx, int64_t id, uint64_t cold, const rd_binrec *bins, size_t nbins)
{
    seen_hists *s = ctx;
    assert_true(s->n < 8);
    s->ids[s->n] = id;
    s->cold[s->n] = cold;
    s->nbins[s->n] = nbins;
    for (size_t i = 0; i < nbins; i++)
    {
        s->bin_counts[s->n] += bins[i].count;
        s->bin_sums[s->n] += bins[i].sum;
    }
    s->n++;
    return 0;
}

static void test_query_api(void **state)
{
    fixture *f = *state;
    import_sample(f);
    db *d;
    char err[1024];
    if (db_open(f->db_path, 0, &d, err, sizeof err) != 0)
        fail_msg("%s", err);
    int64_t id;
    assert_int_equal(db_newest_run(d, &id, err, sizeof err), 0);
    assert_int_equal(id, 1);

    db_run run;
    assert_int_equal(db_get_run(d, 1, &run, err, sizeof err), 0);
    assert_string_equal(run.command, "[\"./sweep\",\"100\"]");
    assert_string_equal(run.status, "complete");
    assert_string_equal(run.cwd, "/src");
    assert_int_equal(run.nparams, 2);
    assert_string_equal(run.params[0].name, "M"); /* ordered by name */
    assert_true(run.params[0].value == 2.5);
    assert_string_equal(run.params[1].text, "100");
    assert_int_equal(run.nprocesses, 2);
    assert_int_equal(run.nblock_sizes, 2);
    assert_int_equal(run.block_sizes[1], 4096);
    db_run_free(&run);

    db_instr *ins;
    size_t n;
    assert_int_equal(db_run_instructions(d, 1, &ins, &n, err, sizeof err), 0);
    assert_int_equal(n, 5);
    assert_int_equal(ins[0].executions, 1000);
    assert_int_equal(ins[0].reads, 1000);
    assert_int_equal(ins[0].line, 10);
    assert_int_equal(ins[4].module_id, 0); /* absolute address: no module */
    assert_int_equal(ins[4].function_id, 0);

    db_stride *st;
    size_t nst;
    assert_int_equal(db_run_strides(d, 1, &st, &nst, err, sizeof err), 0);
    assert_int_equal(nst, 2);
    assert_int_equal(db_stride_find(st, nst, 1), 0);
    assert_int_equal(db_stride_find(st, nst, 4), 1);
    assert_int_equal(db_stride_find(st, nst, 2), nst);
    assert_int_equal(st[0].delta, 64);
    assert_true(db_stride_dominant(&st[0])); /* 990 of 999 */
    assert_int_equal(st[1].delta, -8);
    assert_false(db_stride_dominant(&st[1])); /* 200 of 499 */
    st[1].count = 250;
    assert_true(db_stride_dominant(&st[1])); /* half is enough */
    st[1].count = 500;
    assert_false(db_stride_dominant(&st[1])); /* more than the deltas: damaged */
    free(st);

    int64_t fn_ids[2] = {ins[0].function_id, ins[4].function_id};
    char *names[2];
    assert_int_equal(db_names(d, DB_FUNCTION_NAME, fn_ids, 2, names, err, sizeof err), 0);
    assert_string_equal(names[0], "sweep");
    assert_null(names[1]);
    free(names[0]);
    free(ins);

    seen_hists seen = {0};
    assert_int_equal(db_for_each_histogram(d, 1, 64, record_hist, &seen, err, sizeof err), 0);
    assert_int_equal(seen.n, 3); /* ins 1 and 3 of main, ins 4 of the child */
    assert_int_equal(seen.ids[0], 1);
    assert_int_equal(seen.cold[0], 10);
    assert_int_equal(seen.nbins[0], 2);
    assert_int_equal(seen.bin_counts[0], 990);
    assert_int_equal(seen.ids[1], 3);
    assert_int_equal(seen.nbins[1], 0); /* cold only */
    assert_int_equal(seen.ids[2], 4);
    assert_int_equal(seen.bin_counts[2], 495);

    assert_int_equal(db_get_run(d, 7, &run, err, sizeof err), DB_NOT_FOUND);
    db_run_free(&run);
    assert_non_null(strstr(err, "no run 7 in "));
    assert_non_null(strstr(err, "its run ids go from 1 to 1; list the runs with: sqlite3 "));
    db_close(d);
}

/* Counts beyond INT64_MAX are stored as REAL and read back. */
static void test_huge_values(void **state)
{
    fixture *f = *state;
    fixture_read(f->dir, "big.prof",
                 "augur-profile 1\ntool t 1\npid 1\nppid 0\nexe x\nblock-size 64\nthreads 1\n"
                 "ins -1 10 1 -1 -1 0 1 1 0\nhist 64 1 0 1 495 1 17293822569102704640\n",
                 &f->extra);
    profile *procs[] = {&f->extra};
    db *d;
    char err[1024];
    int64_t id;
    if (db_open(f->db_path, 1, &d, err, sizeof err) != 0 ||
        db_import_run(d, &sample_run, procs, 1, &id, err, sizeof err) != 0)
        fail_msg("%s", err);
    seen_hists seen = {0};
    assert_int_equal(db_for_each_histogram(d, id, 64, record_hist, &seen, err, sizeof err), 0);
    assert_int_equal(seen.n, 1);
    assert_true(seen.bin_sums[0] == 17293822569102704640u);
    db_close(d);
    sqlite3 *s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT typeof(sum) FROM hist_bins", "real");
    assert_true(sql_int(s, "SELECT sum = 17293822569102704640.0 FROM hist_bins") == 1);
    sqlite3_close(s);
}

/* The run's instructions after `update` (SQL) on the sample run: refused
 * as damaged with `want` in the message, or read when want is NULL. */
static void expect_run_counts(const fixture *f, const char *update, const char *want)
{
    int64_t id = import_sample(f);
    sqlite3 *s = sql_open(f->db_path);
    sql_exec(s, update);
    sqlite3_close(s);
    db *d;
    db_instr *ins;
    size_t n;
    char err[1024];
    if (db_open(f->db_path, 0, &d, err, sizeof err) != 0)
        fail_msg("%s", err);
    int rc = db_run_instructions(d, id, &ins, &n, err, sizeof err);
    db_close(d);
    remove(f->db_path);
    if (!want) {
        if (rc != 0)
            fail_msg("%s", err);
        free(ins);
        return;
    }
    assert_int_equal(rc, -1);
    assert_null(ins);
    if (!strstr(err, want))
        fail_msg("expected '%s' in: %s", want, err);
}

/* Counts a damaged (or edited) database holds were read as 0 when
 * negative, or saturated when REAL, and their sums wrapped in the report. */
static void test_damaged_counts(void **state)
{
    fixture *f = *state;
    expect_run_counts(f, "UPDATE instructions SET executions = 9223372036854770000 WHERE id = 1", NULL);
    expect_run_counts(f, "UPDATE instructions SET executions = -5 WHERE id = 1",
                      "instruction 1 of run 1 has executions -5, not a count (a whole number from 0 to 2^63 - 1): "
                      "the database is damaged");
    expect_run_counts(f, "UPDATE instructions SET reads = 1.5e19 WHERE id = 1", "instruction 1 of run 1 has reads 1.5e+19, not a count");
    expect_run_counts(f, "UPDATE instructions SET taken = 'x' WHERE id = 2", "instruction 2 of run 1 has taken x, not a count");
    expect_run_counts(f, "UPDATE instructions SET executions = 9223372036854775000 WHERE id IN (1, 2)",
                      "the executions of run 1 add up to more than 2^63 - 1");
}

/* ---- concurrency --------------------------------------------------------- */

/* In a child process: wait for the go, open the database and import. */
static void child_import(const fixture *f, int go_fd)
{
    char c, err[1024];
    db *d;
    int64_t id;
    if (read(go_fd, &c, 1) != 1)
        _exit(3);
    if (db_open(f->db_path, 1, &d, err, sizeof err) != 0 ||
        db_import_run(d, &sample_run, f->ptrs, 2, &id, err, sizeof err) != 0) {
        fprintf(stderr, "child %d: %s\n", (int)getpid(), err);
        _exit(1);
    }
    db_close(d);
    _exit(0);
}

static void test_concurrent_imports(void **state)
{
    fixture *f = *state;
    for (int round = 0; round < 3; round++) { /* a fresh database each round: creation races too */
        unlink(f->db_path);
        int go[2];
        assert_int_equal(pipe(go), 0);
        pid_t kids[2];
        for (int k = 0; k < 2; k++) {
            kids[k] = fork();
            assert_true(kids[k] >= 0);
            if (kids[k] == 0)
                child_import(f, go[0]);
        }
        assert_int_equal(write(go[1], "gg", 2), 2);
        close(go[0]);
        close(go[1]);
        for (int k = 0; k < 2; k++) {
            int status;
            assert_int_equal(waitpid(kids[k], &status, 0), kids[k]);
            assert_true(WIFEXITED(status));
            assert_int_equal(WEXITSTATUS(status), 0);
        }
        sqlite3 *s = sql_open(f->db_path);
        assert_sql_text(s, "SELECT group_concat(id || status) FROM (SELECT id, status FROM runs ORDER BY id)",
                        "1complete,2complete");
        assert_int_equal(sql_int(s, "SELECT count(*) FROM processes GROUP BY run_id HAVING run_id = 2"), 2);
        assert_int_equal(sql_int(s, "SELECT count(*) FROM instructions"), 10);
        assert_int_equal(sql_int(s, "SELECT count(*) FROM meta WHERE key = 'schema_version'"), 1);
        assert_int_equal(sql_int(s, "SELECT count(*) FROM rd_bins"), RD_MAX_BINS);
        sqlite3_close(s);
    }
}

/* ---- MPI runs --------------------------------------------------------------- */

/* Rank `rank` of `size` (main_body as a version-6 profile with an mpi
 * line and a comm line), read into *p. */
static void read_rank(const fixture *f, int rank, int size, profile *p)
{
    const char *threads = strstr(main_body, "threads 1\n"), *exit_at = strstr(main_body, "exit 0\n");
    char *body, name[64];
    assert_true(asprintf(&body, "augur-profile 6\n%.*sthreads 1\nmpi %d %d\n%.*scomm 1 %d 0 -1 2 16 16 0 12 1 0\n%s",
                         (int)(threads - main_body - 16), main_body + 16, rank, size,
                         (int)(exit_at - threads - 10), threads + 10, (rank + 1) % size, exit_at) > 0);
    snprintf(name, sizeof name, "augur.%d.prof", 200 + rank);
    fixture_read(f->dir, name, body, p);
    p->pid = 200 + rank;
    free(body);
}

/* Import rank `rank` of launch `launch` with status and detail; 0 or -1,
 * the message in err. */
static int import_rank(const fixture *f, const char *launch, profile *p, const char *status, const char *detail,
                       int exit_code, char *err, size_t errlen)
{
    db *d;
    int64_t id;
    run_info ri = sample_run;
    ri.mpi_launch = launch, ri.status = status, ri.status_detail = detail, ri.exit_code = exit_code;
    if (db_open(f->db_path, 1, &d, err, errlen) != 0)
        return -1;
    int rc = db_import_run(d, &ri, &p, 1, &id, err, errlen);
    db_close(d);
    return rc;
}

/* Three ranks of one launch storing at once land in one run, complete once
 * all are there; a rank stored twice and a rank with other parameters are
 * refused; a rank that died leaves the run partial, named. */
static void test_mpi_ranks(void **state)
{
    fixture *f = *state;
    profile ranks[3];
    for (int r = 0; r < 3; r++)
        read_rank(f, r, 3, &ranks[r]);
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t kids[3];
    for (int r = 0; r < 3; r++) {
        kids[r] = fork();
        assert_true(kids[r] >= 0);
        if (kids[r] == 0) {
            char c, err[1024];
            if (read(go[0], &c, 1) != 1 || import_rank(f, "L1", &ranks[r], "complete", "", 0, err, sizeof err)) {
                fprintf(stderr, "rank %d: %s\n", r, err);
                _exit(1);
            }
            _exit(0);
        }
    }
    assert_int_equal(write(go[1], "ggg", 3), 3);
    for (int r = 0; r < 3; r++) {
        int status;
        assert_int_equal(waitpid(kids[r], &status, 0), kids[r]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    close(go[0]);
    close(go[1]);
    sqlite3 *s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT group_concat(id || ':' || status || ':' || status_detail) FROM runs", "1:complete:");
    /* positions in the order the ranks stored, whichever that was */
    assert_sql_text(s, "SELECT group_concat(position) FROM (SELECT p.position FROM mpi_ranks k JOIN processes p "
                       "ON p.id = k.process_id WHERE p.run_id = 1 ORDER BY p.position)", "0,1,2");
    assert_sql_text(s, "SELECT group_concat(peer || ':' || bytes_sent || ':' || stack, ' ') FROM (SELECT c.peer, "
                       "c.bytes_sent, c.stack FROM comm c JOIN mpi_ranks k ON k.process_id = c.process_id "
                       "ORDER BY k.rank)", "1:16:[\"main\"] 2:16:[\"main\"] 0:16:[\"main\"]");
    sqlite3_close(s);

    char err[1024];
    assert_int_equal(import_rank(f, "L1", &ranks[1], "complete", "", 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 1 of this MPI launch is stored already, in run 1"));
    run_info other = sample_run;
    char *values[] = {"200", "2.5"};
    other.param_values = values, other.mpi_launch = "L2";
    db *d;
    int64_t id;
    assert_int_equal(import_rank(f, "L2", &ranks[0], "complete", "", 0, err, sizeof err), 0);
    assert_int_equal(db_open(f->db_path, 1, &d, err, sizeof err), 0);
    profile *one = &ranks[1];
    assert_int_equal(db_import_run(d, &other, &one, 1, &id, err, sizeof err), -1);
    db_close(d);
    assert_non_null(strstr(err, "has no parameter N=200: give every rank the same --param options"));

    assert_int_equal(import_rank(f, "L3", &ranks[0], "complete", "", 0, err, sizeof err), 0);
    s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT status || ':' || status_detail FROM runs r JOIN mpi_runs m ON m.run_id = r.id "
                       "WHERE m.launch = 'L3'", "partial:ranks stored: 1 of 3");
    sqlite3_close(s);
    assert_int_equal(import_rank(f, "L3", &ranks[1], "partial", "killed by signal 11 (SIGSEGV)", 139, err,
                                 sizeof err), 0);
    assert_int_equal(import_rank(f, "L3", &ranks[2], "partial", "killed by signal 15 (SIGTERM)", 143, err,
                                 sizeof err), 0);
    s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT status || ':' || exit_code || ':' || status_detail FROM runs r JOIN mpi_runs m "
                       "ON m.run_id = r.id WHERE m.launch = 'L3'",
                    "partial:139:rank 1: killed by signal 11 (SIGSEGV); rank 2: killed by signal 15 (SIGTERM)");
    sqlite3_close(s);
    for (int r = 0; r < 3; r++)
        profile_free(&ranks[r]);
}

/* ---- refusals ------------------------------------------------------------ */

static void expect_open_error(const char *path, int create, const char *want)
{
    db *d;
    char err[1024];
    assert_int_equal(db_open(path, create, &d, err, sizeof err), -1);
    assert_null(d);
    if (!strstr(err, want))
        fail_msg("error\n  %s\ndoes not contain\n  %s", err, want);
    if (!strstr(err, path))
        fail_msg("error\n  %s\ndoes not name %s", err, path);
}

/* Close s, let augur open (upgrade) and check the database at path, and
 * open it again: the upgraded database, at the current schema version. */
static sqlite3 *upgraded(const char *path, sqlite3 *s)
{
    sqlite3_close(s);
    db *d;
    char err[1024];
    if (db_open(path, 0, &d, err, sizeof err) != 0 || db_check(d, err, sizeof err) != 0)
        fail_msg("%s", err);
    db_close(d);
    s = sql_open(path);
    assert_sql_text(s, "SELECT value FROM meta WHERE key = 'schema_version'", SCHEMA_VERSION_TEXT);
    return s;
}

static void test_unwritable_path(void **state)
{
    fixture *f = *state;
    char *file = fixture_path(f->dir, "plain-file"), *under_file = fixture_path(f->dir, "plain-file/x.db"),
         *no_dir = fixture_path(f->dir, "no-such-dir/x.db");
    fixture_write(file, "x", 1);
    int before = dir_entries(f->dir);
    expect_open_error(under_file, 1, "choose another file with --db");
    expect_open_error(no_dir, 1, "check that its directory exists and is writable");
    assert_int_equal(dir_entries(f->dir), before); /* nothing created */
    if (geteuid() != 0) { /* root writes read-only files anyway */
        char *ro_dir = fixture_path(f->dir, "ro"), *in_ro = fixture_path(f->dir, "ro/x.db");
        assert_int_equal(mkdir(ro_dir, 0555), 0);
        expect_open_error(in_ro, 1, "cannot create the database");
        assert_int_equal(dir_entries(ro_dir), 0);
        free(ro_dir);
        free(in_ro);
    }
    free(file);
    free(under_file);
    free(no_dir);
}

static void test_missing_database(void **state)
{
    fixture *f = *state;
    expect_open_error(f->db_path, 0, "no database");
    expect_open_error(f->db_path, 0, "run `augur collect --db");
    assert_int_equal(access(f->db_path, F_OK), -1);
}

static void test_foreign_files(void **state)
{
    fixture *f = *state;
    fixture_write(f->db_path, "", 0); /* an empty file: refused for reading, filled for writing */
    expect_open_error(f->db_path, 0, "is empty, not an augur database: remove it");
    import_sample(f);
    unlink(f->db_path);

    fixture_write(f->db_path, "just some text, long enough to be a header of something else\n", 62);
    expect_open_error(f->db_path, 1, "not an augur database");
    unlink(f->db_path);

    sqlite3 *s;
    assert_int_equal(sqlite3_open(f->db_path, &s), SQLITE_OK);
    sql_exec(s, "CREATE TABLE customers (name TEXT)");
    sqlite3_close(s);
    expect_open_error(f->db_path, 1, "is an SQLite database but not an augur database");
    unlink(f->db_path);

    import_sample(f);
    s = sql_open(f->db_path);
    sql_exec(s, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
    sqlite3_close(s);
    expect_open_error(f->db_path, 0, "has schema version 99, newer than this augur understands (" SCHEMA_VERSION_TEXT "): use a newer");
    /* a version-1 database (before the structure tables) is upgraded in place */
    s = sql_open(f->db_path);
    sql_exec(s, "UPDATE meta SET value = '1' WHERE key = 'schema_version';"
                "DROP VIEW scope_list; DROP TABLE dependences; DROP TABLE memory_operands; DROP TABLE loop_edges;"
                "DROP TABLE static_instructions; DROP TABLE scopes; DROP TABLE instruction_classes;"
                "DROP TABLE binary_units; DROP TABLE binaries; DROP TABLE registers; DROP TABLE rd_parts;"
                "DROP TABLE rd_members; DROP TABLE rd_groups; DROP TABLE models; DROP TABLE model_sets;"
                "DROP TABLE strides;");
    sqlite3_close(s);
    db *d;
    char err[1024];
    assert_int_equal(db_open(f->db_path, 0, &d, err, sizeof err), 0);
    db_close(d);
    s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT value FROM meta WHERE key = 'schema_version'", SCHEMA_VERSION_TEXT);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM instruction_classes"), ST_CLASS_COUNT);
    /* a version-2 database (before the model tables) gains them */
    sql_exec(s, "UPDATE meta SET value = '2' WHERE key = 'schema_version';"
                "DROP TABLE rd_parts; DROP TABLE rd_members; DROP TABLE rd_groups; DROP TABLE models;"
                "DROP TABLE model_sets;");
    sqlite3_close(s);
    assert_int_equal(db_open(f->db_path, 0, &d, err, sizeof err), 0);
    db_close(d);
    s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT value FROM meta WHERE key = 'schema_version'", SCHEMA_VERSION_TEXT);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM model_sets"), 0);
    /* a version-3 database keeps its model sets, but one fitted then (leads
     * stored as single shares) is refused rather than misread */
    sql_exec(s, "UPDATE meta SET value = '3' WHERE key = 'schema_version';"
                "ALTER TABLE model_sets DROP COLUMN rd_method;"
                "INSERT INTO model_sets (created, program, params, ranges, runs, basis, block_sizes, augur_version) "
                "VALUES ('2026-11-01T00:00:00Z', 'p', '[\"N\"]', '[[1,3]]', '[1]', '[]', '[64]', '0.1.0');");
    sqlite3_close(s);
    assert_int_equal(db_open(f->db_path, 0, &d, err, sizeof err), 0);
    db_model_set set;
    assert_int_equal(db_model_set_newest(d, NULL, &set, err, sizeof err), -1);
    assert_non_null(strstr(err, "model set 1 was fitted by an older augur"));
    assert_non_null(strstr(err, "run `augur model --db"));
    db_model_set_free(&set);
    db_close(d);
    s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT value FROM meta WHERE key = 'schema_version'", SCHEMA_VERSION_TEXT);
    /* a version-4 database gains processes.exe_module_id, NULL in its rows */
    sql_exec(s, "UPDATE meta SET value = '4' WHERE key = 'schema_version';"
                "ALTER TABLE processes DROP COLUMN exe_module_id;");
    sqlite3_close(s);
    assert_int_equal(db_open(f->db_path, 0, &d, err, sizeof err), 0);
    db_close(d);
    s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT value FROM meta WHERE key = 'schema_version'", SCHEMA_VERSION_TEXT);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM processes WHERE exe_module_id IS NULL"),
                     sql_int(s, "SELECT count(*) FROM processes"));
    /* a version-5 database calls class 0 `none`, in its class table and in
     * its models' per-class metrics: version 6 names it load_store */
    sql_exec(s, "UPDATE meta SET value = '5' WHERE key = 'schema_version';"
                "UPDATE instruction_classes SET name = 'none' WHERE id = 0;"
                "INSERT INTO models (set_id, kind, metric, method, formula, constant, terms, fit_smape, cv_smape, "
                "fit_max_rel, points) VALUES (1, 'scope', 'class:none', 'exact', '3*N', 0, '[]', 0, 0, 0, 5),"
                "(1, 'scope', 'class:move', 'exact', 'N', 0, '[]', 0, 0, 0, 5);");
    sqlite3_close(s);
    assert_int_equal(db_open(f->db_path, 0, &d, err, sizeof err), 0);
    db_close(d);
    s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT value FROM meta WHERE key = 'schema_version'", SCHEMA_VERSION_TEXT);
    assert_sql_text(s, "SELECT name FROM instruction_classes WHERE id = 0", "load_store");
    assert_sql_text(s, "SELECT group_concat(metric, ' ') FROM (SELECT metric FROM models ORDER BY id)",
                    "class:load_store class:move");
    /* a version-7 database gains the call edges' table, empty: its runs
     * were collected before calls were recorded */
    sql_exec(s, "UPDATE meta SET value = '7' WHERE key = 'schema_version'; DROP TABLE call_edges;");
    sqlite3_close(s);
    assert_int_equal(db_open(f->db_path, 0, &d, err, sizeof err), 0);
    db_close(d);
    s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT value FROM meta WHERE key = 'schema_version'", SCHEMA_VERSION_TEXT);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM call_edges"), 0);
    /* a version-8 database gains the compilation units of binaries and the
     * builds of model sets; its sets read as sets of one build */
    sql_exec(s, "UPDATE meta SET value = '8' WHERE key = 'schema_version'; DROP TABLE binary_units;"
                "ALTER TABLE model_sets DROP COLUMN builds; ALTER TABLE model_sets DROP COLUMN unmatched;"
                "UPDATE model_sets SET rd_method = 2, ranges = '{\"N\": [1, 3]}';");
    sqlite3_close(s);
    assert_int_equal(db_open(f->db_path, 0, &d, err, sizeof err), 0);
    assert_int_equal(db_check(d, err, sizeof err), 0);
    assert_int_equal(db_model_set_newest(d, NULL, &set, err, sizeof err), 0);
    assert_null(set.builds);
    assert_null(set.unmatched);
    db_model_set_free(&set);
    db_close(d);
    s = sql_open(f->db_path);
    assert_sql_text(s, "SELECT value FROM meta WHERE key = 'schema_version'", SCHEMA_VERSION_TEXT);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM binary_units"), 0);
    /* a version-9 database, with a model group, gains the table of strides
     * (empty: its runs were collected without them) and rd_groups.stride_model
     * and run_model (NULL: no stride model) */
    sql_exec(s, "UPDATE meta SET value = '9' WHERE key = 'schema_version';"
                "DROP TABLE strides; ALTER TABLE rd_groups DROP COLUMN stride_model;"
                "ALTER TABLE rd_groups DROP COLUMN run_model;"
                "INSERT INTO rd_groups (set_id, block_size, module, cold_model, touches_model) VALUES (1, 64, 'p', 1, 2);");
    s = upgraded(f->db_path, s);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM strides"), 0);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM rd_groups WHERE stride_model IS NULL AND run_model IS NULL"), 1);
    /* a version-10 database gains runs.parent_id and phase, processes.regions
     * (NULL: its runs were counted whole) and the table of intervals, after
     * the step to version 10 (which finds the strides table there) */
    sql_exec(s, "UPDATE meta SET value = '10' WHERE key = 'schema_version';"
                "DROP INDEX runs_by_parent; DROP TABLE intervals; ALTER TABLE runs DROP COLUMN parent_id;"
                "ALTER TABLE runs DROP COLUMN phase; ALTER TABLE processes DROP COLUMN regions;");
    s = upgraded(f->db_path, s);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM intervals"), 0);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM runs WHERE parent_id IS NULL AND phase IS NULL"),
                     sql_int(s, "SELECT count(*) FROM runs"));
    assert_int_equal(sql_int(s, "SELECT count(*) FROM processes WHERE regions IS NULL"),
                     sql_int(s, "SELECT count(*) FROM processes"));
    assert_int_equal(sql_int(s, "SELECT count(*) FROM rd_groups WHERE stride_model IS NULL"), 1);
    /* a version-11 database gains model_sets.parent_id and phase (NULL: its
     * sets are of whole runs), and its newest set still reads as one */
    sql_exec(s, "UPDATE meta SET value = '11' WHERE key = 'schema_version';"
                "ALTER TABLE model_sets DROP COLUMN parent_id; ALTER TABLE model_sets DROP COLUMN phase;");
    s = upgraded(f->db_path, s);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM model_sets WHERE parent_id IS NULL AND phase IS NULL"),
                     sql_int(s, "SELECT count(*) FROM model_sets"));
    /* a version-12 database gains runs.sample_rd, NULL: its histograms are exact */
    sql_exec(s, "UPDATE meta SET value = '12' WHERE key = 'schema_version'; ALTER TABLE runs DROP COLUMN sample_rd;");
    s = upgraded(f->db_path, s);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM runs WHERE sample_rd IS NULL"),
                     sql_int(s, "SELECT count(*) FROM runs"));
    assert_int_equal(sql_int(s, "SELECT count(*) FROM runs"), 1);
    /* a version-13 database gains the static models' tables, empty */
    sql_exec(s, "UPDATE meta SET value = '13' WHERE key = 'schema_version';"
                "DROP TABLE static_scopes; DROP TABLE static_models;");
    s = upgraded(f->db_path, s);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM static_models"), 0);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM static_scopes"), 0);
    /* a version-14 database gains the MPI tables, empty: its runs are no
     * MPI launches */
    sql_exec(s, "UPDATE meta SET value = '14' WHERE key = 'schema_version';"
                "DROP TABLE mpi_runs; DROP TABLE mpi_ranks; DROP INDEX comm_by_process; DROP TABLE comm;");
    s = upgraded(f->db_path, s);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM mpi_runs") + sql_int(s, "SELECT count(*) FROM mpi_ranks") +
                         sql_int(s, "SELECT count(*) FROM comm"),
                     0);
    /* a version-15 database's stored static scopes gain binary_loops, '[]':
     * no binary loops known until the model is stored again */
    sql_exec(s, "UPDATE meta SET value = '15' WHERE key = 'schema_version';"
                "ALTER TABLE static_scopes DROP COLUMN binary_loops;"
                "INSERT INTO static_models (id, build_id, path, created, augur_version, unknowns, warnings)"
                " VALUES (1, 'ab12', 'k', 't', 'v', '[]', '[]');"
                "INSERT INTO static_scopes (model_id, position, kind, function, file, first_line, last_line,"
                " unknowns, formulas, forms) VALUES (1, 0, 'function', 'f', 'k.c', 1, 9, '[]', '{}', '{}');");
    s = upgraded(f->db_path, s);
    assert_sql_text(s, "SELECT binary_loops FROM static_scopes", "[]");
    /* a version-17 database gains the set-local tables, empty: its runs
     * were collected without set counts */
    sql_exec(s, "UPDATE meta SET value = '17' WHERE key = 'schema_version';"
                "DROP TABLE set_bins; DROP TABLE set_histograms; DROP TABLE set_counts;");
    s = upgraded(f->db_path, s);
    assert_int_equal(sql_int(s, "SELECT count(*) FROM set_counts") + sql_int(s, "SELECT count(*) FROM set_histograms") +
                         sql_int(s, "SELECT count(*) FROM set_bins"),
                     0);
    sqlite3_close(s);
    assert_int_equal(db_open(f->db_path, 0, &d, err, sizeof err), 0);
    assert_int_equal(db_model_set_newest(d, NULL, &set, err, sizeof err), 0);
    assert_null(set.phase);
    db_model_set_free(&set);
    assert_int_equal(db_model_set_newest(d, "step.c:57", &set, err, sizeof err), DB_NOT_FOUND);
    if (!strstr(err, "has no models of phase 'step.c:57': its runs had no phases"))
        fail_msg("no phase: %s", err);
    db_close(d);
}

static int64_t count_rows(const char *db_path, const char *table)
{
    sqlite3 *s = sql_open(db_path);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    int64_t n = sql_int(s, sql);
    sqlite3_close(s);
    return n;
}

static void expect_import_error(const fixture *f, const run_info *ri, profile *const *procs, size_t n,
                                const char *want)
{
    db *d;
    char err[1024];
    int64_t id;
    if (db_open(f->db_path, 1, &d, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(db_import_run(d, ri, procs, n, &id, err, sizeof err), -1);
    db_close(d);
    if (!strstr(err, want))
        fail_msg("error\n  %s\ndoes not contain\n  %s", err, want);
    static const char *const tables[] = {"runs", "params", "processes", "modules", "functions", "files",
                                         "instructions", "histograms", "hist_bins", "branch_targets",
                                         "call_edges"};
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
        if (count_rows(f->db_path, tables[t]) != 0)
            fail_msg("a failed import left rows in %s", tables[t]);
}

static void test_failed_import_writes_nothing(void **state)
{
    fixture *f = *state;
    run_info ri = sample_run;
    char *bad_values[] = {"100", "abc"};
    ri.param_values = bad_values;
    expect_import_error(f, &ri, f->ptrs, 2, "parameter M: 'abc' is not a number (give --param M=NUMBER)");

    ri = sample_run;
    ri.status = "finished";
    expect_import_error(f, &ri, f->ptrs, 2, "status 'finished'");

    f->procs[1].block_sizes[1] = 2048;
    expect_import_error(f, &sample_run, f->ptrs, 2, "have different block sizes");
    f->procs[1].block_sizes[1] = 4096;

    f->procs[1].sample_threshold = 1677722; /* a child sampled, its parent exact: not one collect */
    expect_import_error(f, &sample_run, f->ptrs, 2, "have different sampling rates (sample-rd)");
    f->procs[1].sample_threshold = 0;

    /* a failure in the middle of the transaction rolls everything back */
    sqlite3 *s = sql_open(f->db_path);
    sql_exec(s, "CREATE TRIGGER fail_late BEFORE INSERT ON hist_bins WHEN NEW.count = 495 "
                "BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
    sqlite3_close(s);
    expect_import_error(f, &sample_run, f->ptrs, 2, "cannot import the run: injected failure");
}

/* ---- speed --------------------------------------------------------------- */

/* A profile of n instructions, 40% of them accessing memory with a
 * 6-bin histogram at each of two block sizes, spread over 200 functions. */
static char *synthetic_body(size_t n)
{
    char *body = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&body, &len);
    fputs("augur-profile 1\ntool augur-collect 0.1.0\npid 7\nppid 1\nexe /bin/app\n"
          "block-size 64\nblock-size 4096\nthreads 1\nmodule 0 /bin/app 400000\nfile 0 /src/app.c\n",
          m);
    for (int fn = 0; fn < 200; fn++)
        fprintf(m, "fn %d function_%d\n", fn, fn);
    for (size_t i = 0; i < n; i++) {
        unsigned execs = 1000 + (unsigned)(i % 97);
        int mem = i % 5 < 2;
        fprintf(m, "ins 0 %zx 4 %zu 0 %zu %u %u 0\n", 0x1000 + 4 * i, i % 200, 1 + i / 10, execs, mem ? execs : 0);
        if (mem) /* 6 bins: 0, 3, 16, 24, 36 and 60 */
            for (int b = 0; b < 2; b++)
                fprintf(m, "hist %d %u 10 6 0 %u 0 3 100 300 16 100 1600 24 100 3200 36 100 9600 60 100 76800\n",
                        b ? 4096 : 64, execs, execs - 510);
    }
    fclose(m);
    return body;
}

/* Wall-clock and CPU seconds since *t0 and *c0 (CLOCK_MONOTONIC and
 * CLOCK_PROCESS_CPUTIME_ID); CPU time shows the cost on a busy machine. */
static double seconds_since(clockid_t clock, const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(clock, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

static void test_import_speed(void **state)
{
    fixture *f = *state;
    const size_t n = 100000;
    char *body = synthetic_body(n);
    struct timespec t0, c0;
    char *path = fixture_path(f->dir, "big.prof"), err[1024];
    fixture_profile(path, body);
    free(body);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    if (profile_read(path, &f->extra, err, sizeof err) != 0)
        fail_msg("%s", err);
    double read_cpu = seconds_since(CLOCK_PROCESS_CPUTIME_ID, &c0);
    free(path);

    profile *procs[] = {&f->extra};
    db *d;
    int64_t id;
    if (db_open(f->db_path, 1, &d, err, sizeof err) != 0)
        fail_msg("%s", err);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    if (db_import_run(d, &sample_run, procs, 1, &id, err, sizeof err) != 0)
        fail_msg("%s", err);
    double import_s = seconds_since(CLOCK_MONOTONIC, &t0), import_cpu = seconds_since(CLOCK_PROCESS_CPUTIME_ID, &c0);
    db_close(d);
    print_message("      %zu instructions (%zu histograms, %zu bins): profile_read %.3f s CPU; "
                  "db_import_run %.3f s (%.3f s CPU)\n",
                  n, 2 * (n * 2 / 5), 12 * (n * 2 / 5), read_cpu, import_s, import_cpu);
    assert_int_equal(count_rows(f->db_path, "instructions"), n);
    assert_int_equal(count_rows(f->db_path, "hist_bins"), 12 * (n * 2 / 5));
    assert_true(import_cpu < 5.0); /* CPU, not wall time (5.5 s wall at 0.6 s CPU at load 15): catches pathologies only */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_import_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_api, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_imports, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mpi_ranks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unwritable_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_database, setup, teardown),
        cmocka_unit_test_setup_teardown(test_foreign_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_import_writes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_speed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_model_spread_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_l2tail_groups_growth_bound, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
