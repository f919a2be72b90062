/* test_memspy_report.c — memspy's host side on hand-written raw files:
 * the reader accepts a good file (and one written before an exec) and
 * refuses damaged, truncated and inconsistent ones by name; the report ranks by stall cycles computed by
 * hand from the formula, sums causes and replacements, scales sampled
 * counts with the bounds of docs/memspy.md; the callgrind rendering has
 * one event per cause and callgrind_annotate reads it; colliding object
 * names are made unique (the tool's `other` is `(other memory)`); JSON
 * names lines by base name and objects by id; the notes on a run shorter
 * than one sample and on the dynamic loader's share of the stall. */
#include "host_fixtures.h"

#include <jansson.h>
#include <math.h>

#include "memspy_report/memspy_report.h"

/* Two levels, three objects (two heap arrays from two malloc sites, one
 * global), three instructions in two functions.  By hand, with L2 hits
 * costing 14 cycles and memory 200:
 *   pair 0 (kernel, A): L1 100 L2 40 -> 60*14 + 40*200 = 8840
 *   pair 1 (kernel, B): L1 50  L2 50 -> 50*200          = 10000
 *   pair 2 (main, counter): L1 1 L2 1 -> 200
 *   total 19040; A's L1 replacements: 60 by A, 15 by B. */
static const char header[] = "augur-memspy 2\n"
                             "tool augur-memspy 0.1.0\n"
                             "pid 100\n"
                             "ppid 1\n"
                             "exe /bin/prog\n"
                                                          "arg 5\n"
                             "level 0 L1 32768 64 8 1\n"
                             "level 1 L2 1048576 64 16 1\n";
static const char body[] = "threads 1\n"
                           "warning a%%20note\n"
                           "module 0 /bin/prog 0\n"
                           "fn 0 main\n"
                           "fn 1 kernel\n"
                           "file 0 /src/prog.c\n"
                           "obj 0 heap A 8000 1\n"
                           "site 0 0 1139 0 0 10\n"
                           "obj 1 heap B 8000 1\n"
                           "site 0 0 1150 0 0 11\n"
                           "obj 2 global counter 8 1\n"
                           "code 0 0 1200 1 0 20\n"
                           "code 1 0 1210 1 0 21\n"
                           "code 2 0 1300 0 0 30\n"
                           "pair 0 0 1000 1000 0 100 10 20 70 0 0 %s 40 10 30 0 0 0 0 0\n"
                           "pair 1 1 500 400 100 50 50 0 0 0 0 0 0 50 50 0 0 0 0 0 0\n"
                           "pair 2 2 10 5 5 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n"
                           "evict 0 0 0 60\n"
                           "evict 0 0 1 15\n"
                           "evict 0 1 0 5\n"
                           "thread 0 1510 151 91\n"
                           "skipped %s\n"
                           "exit 0\n";

static const mr_costs costs = {{4, 14, 200}};

/* Level misses (MISS, cold, capacity, conflict, unsplit) for the split tests. */
static mr_misses misses(uint64_t miss, uint64_t cold, uint64_t cap, uint64_t conf, uint64_t unsplit)
{
    mr_misses m = {0};
    m.miss = miss;
    m.cause[MS_COLD] = cold;
    m.cause[MS_CAPACITY] = cap;
    m.cause[MS_CONFLICT] = conf;
    m.cause[MS_UNSPLIT] = unsplit;
    return m;
}

/* The raw file with sampling line `sampling`, pair 0's L1 unknown misses
 * and unknown hits ("UNKNOWN UNKNOWN-HITS") and the skipped count, written
 * with a correct end line. */
static char *raw_text(const char *sampling, const char *unknown, const char *skipped)
{
    char *b, *all;
    assert_true(asprintf(&b, body, unknown, skipped) > 0);
    assert_true(asprintf(&all, "%s%s\n%s", header, sampling, b) > 0);
    free(b);
    char *framed = fixture_with_end(all);
    free(all);
    return framed;
}

static void read_text(const char *dir, const char *text, memspy_raw *m)
{
    char *path = fixture_path(dir, "memspy.1.out"), err[512];
    fixture_write(path, text, strlen(text));
    int rc = memspy_read(path, m, err, sizeof err);
    if (rc != 0)
        fail_msg("%s", err);
    free(path);
}

/* The reader's message for text, which must be refused. */
static void expect_refused(const char *dir, const char *text, size_t len, const char *message)
{
    char *path = fixture_path(dir, "bad.out"), err[512];
    memspy_raw m;
    fixture_write(path, text, len);
    assert_int_equal(memspy_read(path, &m, err, sizeof err), -1);
    if (!strstr(err, message))
        fail_msg("expected '%s' in: %s", message, err);
    free(path);
}

static void test_reads_good_file(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir(), *text = raw_text("sampling none", "0 0", "0");
    memspy_raw m;
    read_text(dir, text, &m);
    assert_int_equal(m.nlevels, 2);
    assert_string_equal(m.level[1].name, "L2");
    assert_int_equal(m.level[1].ways, 16);
    assert_int_equal(m.nobjs, 3);
    assert_int_equal(m.objs[1].nsites, 1);
    assert_int_equal(m.sites[m.objs[1].first_site].line, 11);
    assert_int_equal(m.npairs, 3);
    assert_int_equal(m.pairs[0].lv[0].cause[MS_CONFLICT], 70);
    assert_int_equal(m.pairs[0].lv[1].miss, 40);
    assert_int_equal(m.argc, 1);
    assert_string_equal(m.argv[0], "5");
    assert_string_equal(m.warnings[0], "a note");
    memspy_raw_free(&m);
    free(text);
    fixture_remove(dir);
}

static void test_refuses_damage(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir(), *text = raw_text("sampling none", "0 0", "0");
    size_t len = strlen(text);
    expect_refused(dir, text, len / 2, "truncated");
    expect_refused(dir, "", 0, "empty file: the memspy output is truncated");
    char *bad = strdup(text);
    bad[strstr(bad, "kernel") - bad] = 'K';
    expect_refused(dir, bad, len, "checksum mismatch");
    expect_refused(dir, "augur-memspy 3\nend 1 0\n", 23, "memspy output format version 3 is not supported");
    expect_refused(dir, "augur-profile 1\nend 1 0\n", 24, "not an augur memspy output");
    free(bad);
    free(text);
    fixture_remove(dir);
}

/* s (freed) with its first `from` replaced by `to`. */
static char *replace_once(char *s, const char *from, const char *to)
{
    char *at = strstr(s, from), *edited;
    assert_non_null(at);
    assert_true(asprintf(&edited, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from)) > 0);
    free(s);
    return edited;
}

/* The good file with sampling line `sampling`, `skipped` references
 * skipped, and each edits[i][0] replaced by edits[i][1] (n edits), framed. */
static char *edited_text(const char *sampling, const char *skipped, const char *const (*edits)[2], int n)
{
    char *b, *all;
    assert_true(asprintf(&b, body, "0 0", skipped) > 0);
    assert_true(asprintf(&all, "%s%s\n%s", header, sampling, b) > 0);
    free(b);
    for (int i = 0; i < n; i++)
        all = replace_once(all, edits[i][0], edits[i][1]);
    char *framed = fixture_with_end(all);
    free(all);
    return framed;
}

/* The good file with `from` replaced by `to`, framed again: the framing
 * holds, so the content's own rule must refuse it. */
static void expect_inconsistent(const char *dir, const char *from, const char *to, const char *message)
{
    const char *const edit[1][2] = {{from, to}};
    char *framed = edited_text("sampling none", "0", edit, 1);
    expect_refused(dir, framed, strlen(framed), message);
    free(framed);
}

/* A file written before an exec: `exec PATH` instead of `exit`, read as the
 * path and a warning after the tool's own; `exec` after `exit` is out of
 * order. */
static void test_reads_exec(void **state)
{
    (void)state;
    const char *const exec_edit[1][2] = {{"exit 0\n", "exec /bin/my%20prog\n"}};
    char *dir = fixture_tmpdir(), *text = edited_text("sampling none", "0", exec_edit, 1);
    memspy_raw m;
    read_text(dir, text, &m);
    assert_string_equal(m.exec_path, "/bin/my prog");
    assert_int_equal(m.has_exit, 0);
    assert_int_equal(m.nwarnings, 2);
    assert_string_equal(m.warnings[1], "the program exec'd /bin/my prog; memspy does not follow exec: the report "
                                       "covers the part before it");
    memspy_raw_free(&m);
    expect_inconsistent(dir, "exit 0\n", "exit 0\nexec /bin/sh\n", "exec");
    free(text);
    fixture_remove(dir);
}

static void test_refuses_inconsistent_counts(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir();
    expect_inconsistent(dir, "pair 1 1 500 400 100 50 50", "pair 1 1 500 400 100 50 51",
                        "line 25: level L1: the causes add up to 51, more than MISS (50)");
    expect_inconsistent(dir, "pair 2 2 10 5 5 1 1 0 0 0 0 0 0 1 1", "pair 2 2 10 5 5 1 1 0 0 0 0 0 0 2 2",
                        "level L2: 2 misses, more than the level above it has (1)");
    expect_inconsistent(dir, "pair 2 2 10 5 5 1 1 0 0 0 0 0 0 1", "pair 2 2 10 5 5 1 1 0 0 0 0 0 10 1",
                        "level L1: UNKNOWN-HITS 10 exceeds the 9 references that did not miss");
    expect_inconsistent(dir, "pair 2 2 10 5 5", "pair 2 3 10 5 5", "obj 3 is not defined");
    expect_inconsistent(dir, "pair 2 2 10 5 5", "pair 2 2 10 5 4", "READS + WRITES is not REFS");
    expect_inconsistent(dir, "obj 2 global", "obj 2 weird", "object kind 'weird' is none of heap");
    expect_inconsistent(dir, "skipped 0\n", "", "no 'skipped' line before this 'exit' line");
    expect_inconsistent(dir, "obj 2 global counter 8 1\n", "obj 2 global counter 8 1\nsite 2 0 1 0 0 1\n",
                        "'site' line not directly after a heap object");
    fixture_remove(dir);
}

/* Counts whose sums pass 2^63 - 1, levels the simulator cannot have, and
 * thread counts the tool cannot have written: all were taken, 2^64 - 1
 * REFS reported as "references 18446744073709545472". */
static void test_refuses_impossible_counts(void **state)
{
    (void)state;
    static const char *const cases[][3] = { /* the good file's text, its replacement, the error */
        {"pair 0 0 1000 1000 0", "pair 0 0 18446744073709551615 18446744073709551615 0",
         "line 24: the pairs' REFS add up to more than 9223372036854775807 (2^63 - 1), the most a count may be: the "
         "file is damaged (run augur memspy again)"},
        {"pair 0 0 1000 1000 0", "pair 0 0 9223372036854775300 9223372036854775300 0",
         "line 26: the pairs' REFS add up to more than 9223372036854775807"},
        {"skipped 0", "skipped 9223372036854775000", "line 31: the pairs' REFS and the skipped references add up to"},
        {"evict 0 0 0 60", "evict 0 0 0 18446744073709551615", "line 27: the evictions' COUNTs add up to more than"},
        {"thread 0 1510", "thread 0 18446744073709551615", "line 30: the threads' REFS add up to more than"},
        {"level 1 L2 1048576 64 16 1", "level 1 L2 0 64 16 1",
         "line 8: level L2: SIZE 0, LINE 64, WAYS 16: cache size must not be zero"},
        {"level 1 L2 1048576 64 16 1", "level 1 L2 1015808 64 16 1",
         "line 8: level L2: SIZE 1015808, LINE 64, WAYS 16: number of sets (size / (line * ways)) must be a power of two"},
        {"threads 1\n", "threads 4294967295\n",
         "line 10: threads 4294967295, but 1 'thread' lines: memspy writes one for each thread up to 64, so there "
         "should be 64"},
        {"thread 0 1510 151 91\n", "thread 0 1510 151 91\nthread 1 0 0 0\n",
         "line 31: more 'thread' lines than min(threads 1, 64)"},
        {"thread 0 1510", "thread 1 1510", "line 30: thread 1 defined where thread 0 was expected"},
    };
    char *dir = fixture_tmpdir();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_inconsistent(dir, cases[i][0], cases[i][1], cases[i][2]);
    fixture_remove(dir);
}

static void build(const memspy_raw *m, memspy_report *rep)
{
    char err[256];
    if (memspy_report_build(m, &costs, NULL, NULL, rep, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static const mr_code_obj *code_named(const memspy_report *rep, const char *name)
{
    for (size_t i = 0; i < rep->ncode; i++)
        if (!strcmp(rep->code[i].name, name))
            return &rep->code[i];
    fail_msg("no code object %s", name);
    return NULL;
}

static void test_stall_and_ranking(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir(), *text = raw_text("sampling none", "0 0", "0");
    memspy_raw m;
    memspy_report rep;
    read_text(dir, text, &m);
    build(&m, &rep);
    double hand[2] = {100, 40};
    assert_float_equal(mr_stall(&costs, 2, hand), 8840, 1e-9);
    assert_float_equal(rep.total.stall, 19040, 1e-9);
    assert_int_equal(rep.total.refs, 1510);
    assert_int_equal(rep.total.lv[0].miss, 151);
    assert_int_equal(rep.total.lv[1].miss, 91);
    /* data objects: B 10000, A 8840, counter 200 */
    assert_string_equal(m.objs[rep.data_rank[0]].name, "B");
    assert_string_equal(m.objs[rep.data_rank[1]].name, "A");
    assert_float_equal(rep.data[0].stall, 8840, 1e-9);
    /* causes add up to the misses of every object */
    for (size_t o = 0; o < m.nobjs; o++)
        for (unsigned k = 0; k < m.nlevels; k++) {
            uint64_t sum = 0;
            for (int c = 0; c < MS_NCAUSES; c++)
                sum += rep.data[o].lv[k].cause[c];
            assert_int_equal(sum, rep.data[o].lv[k].miss);
        }
    /* code objects: kernel (18840) before main (200); lines */
    assert_float_equal(code_named(&rep, "kernel")->s.stall, 18840, 1e-9);
    assert_float_equal(code_named(&rep, "main")->s.stall, 200, 1e-9);
    assert_float_equal(code_named(&rep, "prog.c:21")->s.stall, 10000, 1e-9);
    assert_string_equal(code_named(&rep, "prog.c:21")->file, "/src/prog.c");
    assert_null(code_named(&rep, "kernel")->file);
    assert_string_equal(rep.code[rep.code_rank[0]].name, "kernel");
    /* pairs: (kernel, B) first */
    const mr_pair_stats *top = &rep.pairs[rep.pair_rank[0]];
    assert_string_equal(rep.code[top->function].name, "kernel");
    assert_int_equal(top->obj, 1);
    assert_int_equal(rep.npairs, 3);
    /* replacements of A at L1: 60 self, 15 by B */
    uint64_t by[3];
    assert_int_equal(mr_replacements(&m, 0, 0, by), 75);
    assert_int_equal(by[0], 60);
    assert_int_equal(by[1], 15);
    memspy_report_free(&rep);
    memspy_raw_free(&m);
    free(text);
    fixture_remove(dir);
}

static void test_time_sampling_bounds(void **state)
{
    (void)state;
    /* 1510 simulated, 13590 skipped: factor 10.  L1: 151 misses of which
     * 20 unknown, and 30 unknown hits: known 131, unknown 50 -> [1310,
     * 1810] (seed 001, eq. 6.1); estimate the simulated 151 -> 1510. */
    char *dir = fixture_tmpdir(), *text = raw_text("sampling time 100 900", "20 30", "13590");
    memspy_raw m;
    memspy_report rep;
    read_text(dir, text, &m);
    build(&m, &rep);
    assert_float_equal(rep.scale.factor, 10.0, 1e-12);
    mr_estimate e = mr_stats_misses(&rep, &rep.total, 0);
    assert_float_equal(e.est, 1510, 1e-9);
    assert_float_equal(e.lo, 1310, 1e-9);
    assert_float_equal(e.hi, 1810, 1e-9);
    assert_float_equal(mr_scaled(&rep.scale, rep.total.refs), 15100, 1e-9);
    memspy_report_free(&rep);
    memspy_raw_free(&m);
    free(text);
    fixture_remove(dir);
}

static void test_set_sampling_bounds(void **state)
{
    (void)state;
    /* 1510 simulated of 12080: factor 8; p = 0.1, se = sqrt(0.09/1510);
     * half width 1.96 * se * 12080 = 182.79. */
    char *dir = fixture_tmpdir(), *text = raw_text("sampling sets 8", "0 0", "10570");
    memspy_raw m;
    memspy_report rep;
    read_text(dir, text, &m);
    build(&m, &rep);
    mr_estimate e = mr_stats_misses(&rep, &rep.total, 0);
    double half = 1.96 * sqrt(0.1 * 0.9 / 1510) * 12080;
    assert_float_equal(e.est, 1208, 1e-9);
    assert_float_equal(e.hi - e.est, half, 1e-3); /* cmocka compares as float */
    assert_float_equal(half, 182.79, 0.01);
    memspy_report_free(&rep);
    memspy_raw_free(&m);
    free(text);
    fixture_remove(dir);
}

/* Set sampling's random groups, each pair's misses per level in 16
 * groups, inserted after its pair line: L1 60, 11, 10 x 4, 5 x 8, 0, 0 in
 * all (pair 0: 10 x 6, 5 x 8; pair 1: 50 in group 0; pair 2: 1 in group
 * 1), L2 all in group 0 but pair 2's. */
#define G0_L1 "10 10 10 10 10 10 5 5 5 5 5 5 5 5 0 0"
#define G0_L2 "40 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
#define G1 "50 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
#define G2 "0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
static const char *const group_edits[3][2] = {
    {"pair 1 1", "groups " G0_L1 " " G0_L2 "\npair 1 1"},
    {"pair 2 2", "groups " G1 " " G1 "\npair 2 2"},
    {"evict 0 0 0 60", "groups " G2 " " G2 "\nevict 0 0 0 60"},
};

/* 1510 simulated of 15100 (references 1 in 10) but 1 set in 8: counts
 * scale by 8, the total's references stay exact.  L1's 151 misses: 1208;
 * x_g = 16 * 8 * m_g, whose deviations from the mean, / 8, are 16 m_g -
 * 151: 809, 25, 9 x 4, -71 x 8, -151 x 2; their squares sum to 741,360;
 * s / sqrt(16) * 8 = 8 sqrt(741360 / 15 / 16) = 444.63, times t(15) =
 * 2.131: 947.51 either side. */
static void test_set_sampling_groups(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir(), *text = edited_text("sampling sets 8", "13590", group_edits, 3);
    memspy_raw m;
    memspy_report rep;
    read_text(dir, text, &m);
    assert_true(m.has_groups);
    build(&m, &rep);
    assert_float_equal(rep.scale.factor, 8.0, 1e-12);
    assert_float_equal(mr_stats_refs(&rep, &rep.total, rep.total.refs), 15100, 1e-9);
    assert_float_equal(mr_stats_refs(&rep, &rep.data[0], rep.data[0].refs), 8000, 1e-9);
    mr_estimate e = mr_stats_misses(&rep, &rep.total, 0);
    assert_float_equal(e.est, 1208, 1e-9);
    assert_float_equal(e.hi - e.est, 947.51, 0.01);
    assert_float_equal(e.lo, 1208 - 947.51, 0.01);
    /* object B (pair 1): all 50 misses in one group: 400 +- 2.131 * 8 *
     * sqrt((750^2 + 15 * 50^2) / 240) = 400 +- 852.4, but no lower than
     * the 50 misses the sampled lines made */
    e = mr_stats_misses(&rep, &rep.data[1], 0);
    assert_float_equal(e.est, 400, 1e-9);
    assert_float_equal(e.hi, 400 + 2.131 * 8 * sqrt((750.0 * 750 + 15 * 50 * 50) / 240), 0.01);
    assert_float_equal(e.lo, 50, 1e-9);
    memspy_report_free(&rep);
    memspy_raw_free(&m);
    free(text);
    /* refused: groups not after their pair, not adding up, without set
     * sampling, or missing for a pair that missed */
    const char *const stray[2][2] = {{"pair 1 1", "groups " G0_L1 " " G0_L2 "\npair 1 1"},
                                     {"evict 0 0 1 15", "groups " G2 " " G2 "\nevict 0 0 1 15"}};
    char *bad = edited_text("sampling sets 8", "0", stray, 2);
    expect_refused(dir, bad, strlen(bad), "a 'groups' line must follow the 'pair' line it belongs to");
    free(bad);
    const char *const wrong[1][2] = {{"pair 1 1", "groups " G0_L1 " " G1 "\npair 1 1"}};
    bad = edited_text("sampling sets 8", "0", wrong, 1);
    expect_refused(dir, bad, strlen(bad), "level L2: the groups add up to 50, not the pair's MISS (40)");
    free(bad);
    bad = edited_text("sampling time 100 900", "0", group_edits, 3);
    expect_refused(dir, bad, strlen(bad), "a 'groups' line in a run without set sampling");
    free(bad);
    bad = edited_text("sampling sets 8", "0", group_edits, 2);
    expect_refused(dir, bad, strlen(bad), "pair 2 has misses but no 'groups' line, which other pairs have");
    free(bad);
    fixture_remove(dir);
}

static void test_callgrind_output(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir(), *text = raw_text("sampling none", "0 0", "0");
    char *path = fixture_path(dir, "callgrind.out"), *cmd, line[512];
    memspy_raw m;
    memspy_report rep;
    read_text(dir, text, &m);
    build(&m, &rep);
    FILE *f = fopen(path, "w");
    assert_int_equal(memspy_write_callgrind(&rep, f), 0);
    fclose(f);
    f = fopen(path, "r");
    int events = 0, line21 = 0;
    while (fgets(line, sizeof line, f)) {
        events += !strcmp(line, "events: Ref L1m L1cold L1cap L1conf L1tsh L1fsh L1unspl L2m L2cold L2cap L2conf "
                                "L2tsh L2fsh L2unspl Stall\n");
        line21 += !strcmp(line, "21 500 50 50 0 0 0 0 0 50 50 0 0 0 0 0 10000\n");
    }
    fclose(f);
    assert_int_equal(events, 1);
    assert_int_equal(line21, 1);
    /* callgrind_annotate reads it: kernel's 18840 stall cycles are shown */
    assert_true(asprintf(&cmd, "callgrind_annotate --show=Stall %s 2>&1", path) > 0);
    FILE *p = popen(cmd, "r");
    int kernel = 0;
    while (fgets(line, sizeof line, p))
        kernel += strstr(line, "18,840") && strstr(line, "kernel");
    assert_int_equal(pclose(p), 0);
    assert_int_equal(kernel, 1);
    memspy_report_free(&rep);
    memspy_raw_free(&m);
    free(cmd), free(path), free(text);
    fixture_remove(dir);
}

/* Time and set sampling together (the tool's --sample-time with
 * --sample-sets): both lines read, time first, time's bounds apply; any
 * other second 'sampling' line is refused. */
static void test_time_and_sets(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir(), *both = raw_text("sampling time 5000 45000\nsampling sets 4", "0 0", "0");
    memspy_raw m;
    read_text(dir, both, &m);
    assert_int_equal(m.sampling, MR_SAMPLE_TIME);
    assert_int_equal(m.on, 5000);
    assert_int_equal(m.sets, 4);
    memspy_raw_free(&m);
    const char *bad[] = {"sampling none\nsampling sets 4", "sampling sets 4\nsampling time 5000 45000",
                         "sampling time 5000 45000\nsampling sets 4\nsampling sets 8"};
    for (int i = 0; i < 3; i++) {
        char *text = raw_text(bad[i], "0 0", "0");
        expect_refused(dir, text, strlen(text), "only 'sampling sets N' may follow 'sampling time ON OFF'");
        free(text);
    }
    free(both);
    fixture_remove(dir);
}

/* The good file with `shadow_line` after its sampling line (may be ""),
 * and pair 1's L1 causes (10 + 20 + 70 of 100 misses) cut to 10 + 20 + 40:
 * 30 misses without a cause, framed. */
static char *unsplit_text(const char *shadow_line)
{
    char *b, *all, *edited;
    assert_true(asprintf(&b, body, "0 0", "0") > 0);
    assert_true(asprintf(&all, "%ssampling none\n%s%s", header, shadow_line, b) > 0);
    const char *from = "100 10 20 70 0 0 0 0 40";
    char *at = strstr(all, from);
    assert_non_null(at);
    assert_true(asprintf(&edited, "%.*s100 10 20 40 0 0 0 0 40%s", (int)(at - all), all, at + strlen(from)) > 0);
    char *framed = fixture_with_end(edited);
    free(b), free(all), free(edited);
    return framed;
}

/* Shadow sampling: a pair whose causes add up to less than MISS has the
 * rest as unsplit misses (L1: 100 misses, 10 + 20 + 40 split, so 30), in
 * a file that says `shadow 8` and in one from before that line existed;
 * a file that says `shadow 1` (every miss given its cause) is damaged. */
static void test_unsplit_read(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir();
    const char *readable[] = {"", "shadow 8\n"};
    for (int i = 0; i < 2; i++) {
        char *framed = unsplit_text(readable[i]);
        memspy_raw m;
        read_text(dir, framed, &m);
        assert_int_equal(m.shadow_sample, i ? 8 : 0);
        assert_int_equal(m.pairs[0].lv[0].cause[MS_CONFLICT], 40);
        assert_int_equal(m.pairs[0].lv[0].cause[MS_UNSPLIT], 30);
        assert_int_equal(m.pairs[0].lv[1].cause[MS_UNSPLIT], 0);
        memspy_raw_free(&m);
        free(framed);
    }
    char *exact = unsplit_text("shadow 1\n");
    expect_refused(dir, exact, strlen(exact),
                   "level L1: the causes add up to 70, less than MISS (100), but the run gave every miss its cause "
                   "('shadow 1')");
    char *odd = unsplit_text("shadow 3\n");
    expect_refused(dir, odd, strlen(odd), "shadow sampling N must be a power of two >= 1");
    free(exact), free(odd);
    fixture_remove(dir);
}

/* A bin with 24 capacity and 36 conflict sampled misses (60 >= MR_SPLIT_MIN)
 * and 30 unsplit: share 24/60 = 0.4, so capacity 24 + 30 * 0.4 = 36 and
 * conflict 36 + 30 * 0.6 = 54.  Wilson's 95% interval of 24/60, by hand:
 * z = 1.96, a = z^2/60 = 0.064024, center (0.4 + a/2) / (1 + a) = 0.406017,
 * half z / (1 + a) * sqrt(0.4 * 0.6 / 60 + a / 240) = 0.120322: [0.285695,
 * 0.526339]; capacity in [24 + 30 * 0.285695, 24 + 30 * 0.526339]. */
static void test_split_own_share(void **state)
{
    (void)state;
    mr_misses m = misses(100, 10, 24, 36, 30), level = misses(1000, 100, 500, 100, 300);
    mr_split sp = mr_split_of(&m, &level);
    assert_false(sp.share.from_level);
    assert_int_equal(sp.share.n, 60);
    assert_float_equal(sp.share.p, 0.4, 1e-12);
    assert_float_equal(sp.share.lo, 0.285695, 1e-5);
    assert_float_equal(sp.share.hi, 0.526339, 1e-5);
    assert_float_equal(sp.capacity, 36, 1e-9);
    assert_float_equal(sp.conflict, 54, 1e-9);
    assert_float_equal(sp.capacity_lo, 32.570847, 1e-5);
    assert_float_equal(sp.capacity_hi, 39.790184, 1e-5);
}

/* Too few sampled misses of its own (2 + 8 < 30): the level's share, 26 of
 * 70, apportions the 40 unsplit: capacity 2 + 40 * 26/70 = 16.857143,
 * conflict 8 + 40 * 44/70 = 33.142857. */
static void test_split_level_share(void **state)
{
    (void)state;
    mr_misses m = misses(50, 0, 2, 8, 40), level = misses(200, 30, 26, 44, 100);
    mr_split sp = mr_split_of(&m, &level);
    assert_true(sp.share.from_level);
    assert_int_equal(sp.share.n, 70);
    assert_float_equal(sp.capacity, 16.857143, 1e-5);
    assert_float_equal(sp.conflict, 33.142857, 1e-5);
    assert_float_equal(sp.capacity + sp.conflict, 50, 1e-9);
    /* nothing measured anywhere: half each, interval [0, 1] */
    mr_misses none = misses(10, 0, 0, 0, 10);
    sp = mr_split_of(&none, &none);
    assert_float_equal(sp.capacity, 5, 1e-12);
    assert_float_equal(sp.share.lo, 0, 0);
    assert_float_equal(sp.share.hi, 1, 0);
}

/* No unsplit misses: the counts are the exact ones, bounds equal. */
static void test_split_exact(void **state)
{
    (void)state;
    mr_misses m = misses(100, 10, 20, 70, 0);
    mr_split sp = mr_split_of(&m, &m);
    assert_float_equal(sp.capacity, 20, 0);
    assert_float_equal(sp.conflict, 70, 0);
    assert_float_equal(sp.capacity_lo, 20, 0);
    assert_float_equal(sp.capacity_hi, 20, 0);
}

/* The JSON report: line code objects are named by the file's base name
 * (as loops and the text are), their full path in `file` (null for a
 * function); data objects carry their raw id, which pairs repeat;
 * replaced_by is sorted by count (A's L1 lines: 6 by itself, 15 by B, so
 * B first). */
static void test_json_names(void **state)
{
    (void)state;
    const char *const evict_edit[1][2] = {{"evict 0 0 0 60", "evict 0 0 0 6"}};
    char *dir = fixture_tmpdir(), *text = edited_text("sampling none", "0", evict_edit, 1);
    char *path = fixture_path(dir, "report.json");
    memspy_raw m;
    memspy_report rep;
    read_text(dir, text, &m);
    build(&m, &rep);
    mr_header h = {"test", NULL, 2.0, 100, 0};
    FILE *f = fopen(path, "w");
    assert_int_equal(memspy_write_json(&rep, &h, f), 0);
    fclose(f);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    assert_non_null(doc);
    json_t *code = json_object_get(doc, "code_objects"), *c;
    size_t i;
    int lines = 0;
    json_array_foreach(code, i, c) {
        const char *kind = json_string_value(json_object_get(c, "kind"));
        json_t *file = json_object_get(c, "file");
        if (!strcmp(kind, "line")) {
            lines++;
            assert_non_null(strstr("prog.c:20 prog.c:21 prog.c:30", json_string_value(json_object_get(c, "name"))));
            assert_string_equal(json_string_value(file), "/src/prog.c");
        } else {
            assert_true(json_is_null(file));
        }
    }
    assert_int_equal(lines, 3);
    json_t *top = json_array_get(json_object_get(doc, "pairs"), 0);
    assert_string_equal(json_string_value(json_object_get(top, "data_object")), "B");
    assert_int_equal(json_integer_value(json_object_get(top, "data_object_id")), 1);
    json_t *first = json_array_get(json_object_get(doc, "data_objects"), 0);
    assert_int_equal(json_integer_value(json_object_get(first, "id")), 1);
    json_t *a = json_array_get(json_object_get(doc, "data_objects"), 1);
    assert_string_equal(json_string_value(json_object_get(a, "name")), "A");
    json_t *by = json_object_get(a, "replaced_by");
    assert_int_equal(json_array_size(by), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(by, 0), "by")), "B");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(by, 0), "by_id")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(by, 0), "count")), 15);
    assert_true(json_is_true(json_object_get(json_array_get(by, 1), "self")));
    json_decref(doc);
    memspy_report_free(&rep);
    memspy_raw_free(&m);
    free(path), free(text);
    fixture_remove(dir);
}

/* Objects whose names collide: three heap objects of one helper site
 * `h:5`, called from main:10 and twice from main:11 (under init:3 and
 * init:4), are told apart by the first caller frame that differs; two
 * globals `count`, with no stack, are numbered in raw order; a name used
 * once is kept.  The tool's object `other` is `(other memory)`, so a
 * global `other` keeps its name. */
static const char names_body[] = "threads 1\n"
                                 "module 0 /bin/prog 0\n"
                                 "fn 0 main\n"
                                 "fn 1 h\n"
                                 "fn 2 init\n"
                                 "file 0 /src/prog.c\n"
                                 "obj 0 heap h:5 64 1\n"
                                 "site 0 0 1100 1 0 5\n"
                                 "site 1 0 1200 0 0 10\n"
                                 "obj 1 heap h:5 64 1\n"
                                 "site 0 0 1100 1 0 5\n"
                                 "site 1 0 1210 0 0 11\n"
                                 "site 2 0 1300 2 0 3\n"
                                 "obj 2 heap h:5 64 1\n"
                                 "site 0 0 1100 1 0 5\n"
                                 "site 1 0 1210 0 0 11\n"
                                 "site 2 0 1310 2 0 4\n"
                                 "obj 3 global count 8 1\n"
                                 "obj 4 global count 8 1\n"
                                 "obj 5 global once 8 1\n"
                                 "obj 6 global other 8 1\n"
                                 "obj 7 other other 0 1\n"
                                 "thread 0 0 0 0\n"
                                 "skipped 0\n"
                                 "exit 0\n";

static void test_unique_names(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir(), *all;
    assert_true(asprintf(&all, "%ssampling none\n%s", header, names_body) > 0);
    char *framed = fixture_with_end(all);
    memspy_raw m;
    read_text(dir, framed, &m);
    assert_int_equal(mr_unique_names(&m), 0);
    const char *want[] = {"h:5 <- main:10", "h:5 <- main:11 <- init:3", "h:5 <- main:11 <- init:4",
                          "count #1",      "count #2",                 "once",
                          "other",         "(other memory)"};
    for (size_t i = 0; i < 8; i++)
        assert_string_equal(m.objs[i].name, want[i]);
    assert_int_equal(mr_unique_names(&m), 0); /* unique names stay as they are */
    assert_string_equal(m.objs[1].name, want[1]);
    memspy_raw_free(&m);
    free(all), free(framed);
    fixture_remove(dir);
}

/* The notes of the report built from the good file edited by edits[n],
 * with sampling line `sampling` and `skipped`; *loader_stall and loader[64]
 * from mr_loader_stall ("" for no loader module). */
static void notes_of(const char *sampling, const char *skipped, const char *const (*edits)[2], int n, mr_notes *notes,
                     double *loader_stall, char *loader)
{
    char *dir = fixture_tmpdir(), *text = edited_text(sampling, skipped, edits, n);
    memspy_raw m;
    memspy_report rep;
    read_text(dir, text, &m);
    build(&m, &rep);
    mr_notes_of(&rep, notes);
    const char *module;
    *loader_stall = mr_loader_stall(&rep, &module);
    snprintf(loader, 64, "%s", module ? module : "");
    memspy_report_free(&rep);
    memspy_raw_free(&m);
    free(text);
    fixture_remove(dir);
}

/* Code in the dynamic loader: kernel's second instruction (pair 1, B:
 * 10000 of the 19040 stall cycles, 52.5%) moved into ld-linux is noted as
 * 53% of the stall; main's (pair 2, 200 cycles, 1.1%) is not.  A time-
 * sampled run that skipped nothing is noted as exact; one that skipped,
 * or that also sampled sets, is not. */
static void test_notes(void **state)
{
    (void)state;
    const char *const loader_kernel[2][2] = {
        {"module 0 /bin/prog 0\n", "module 0 /bin/prog 0\nmodule 1 /lib64/ld-linux-x86-64.so.2 0\n"},
        {"code 1 0 1210 1 0 21", "code 1 1 1210 1 0 21"}};
    const char *const loader_main[2][2] = {
        {"module 0 /bin/prog 0\n", "module 0 /bin/prog 0\nmodule 1 /lib64/ld-linux-x86-64.so.2 0\n"},
        {"code 2 0 1300 0 0 30", "code 2 1 1300 0 0 30"}};
    mr_notes notes;
    double stall;
    char loader[64];
    notes_of("sampling none", "0", loader_kernel, 2, &notes, &stall, loader);
    assert_float_equal(stall, 10000, 1e-9);
    assert_string_equal(loader, "ld-linux-x86-64.so.2");
    assert_int_equal(notes.n, 1);
    assert_string_equal(notes.text[0], "the dynamic loader (ld-linux-x86-64.so.2) makes 53% of the stall: the run is "
                                       "short; give the program a larger input");
    notes_of("sampling none", "0", loader_main, 2, &notes, &stall, loader);
    assert_float_equal(stall, 200, 1e-9);
    assert_int_equal(notes.n, 0);
    notes_of("sampling none", "0", NULL, 0, &notes, &stall, loader);
    assert_string_equal(loader, "");
    assert_float_equal(stall, 0, 0);
    assert_int_equal(notes.n, 0);
    notes_of("sampling time 100000 900000", "0", NULL, 0, &notes, &stall, loader);
    assert_int_equal(notes.n, 1);
    assert_string_equal(notes.text[0],
                        "the run was shorter than one sample: everything was simulated, the counts are exact");
    notes_of("sampling time 100000 900000", "13590", NULL, 0, &notes, &stall, loader);
    assert_int_equal(notes.n, 0);
    notes_of("sampling time 100000 900000\nsampling sets 4", "0", NULL, 0, &notes, &stall, loader);
    assert_int_equal(notes.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_good_file),
        cmocka_unit_test(test_refuses_damage),
        cmocka_unit_test(test_reads_exec),
        cmocka_unit_test(test_refuses_inconsistent_counts),
        cmocka_unit_test(test_refuses_impossible_counts),
        cmocka_unit_test(test_stall_and_ranking),
        cmocka_unit_test(test_time_sampling_bounds),
        cmocka_unit_test(test_set_sampling_bounds),
        cmocka_unit_test(test_set_sampling_groups),
        cmocka_unit_test(test_callgrind_output),
        cmocka_unit_test(test_unsplit_read),
        cmocka_unit_test(test_time_and_sets),
        cmocka_unit_test(test_split_own_share),
        cmocka_unit_test(test_split_level_share),
        cmocka_unit_test(test_split_exact),
        cmocka_unit_test(test_unique_names),
        cmocka_unit_test(test_json_names),
        cmocka_unit_test(test_notes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
