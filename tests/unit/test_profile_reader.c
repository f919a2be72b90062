/* test_profile_reader.c — the raw-profile reader (src/profile/profile_reader.c):
 * a profile using every kind of line is read back field by field, and every
 * kind of damage or mistake is refused with a message naming the file, the
 * line and the problem. */
#include "host_fixtures.h"

#include "profile/profile.h"

/* Every kind of line; line numbers are quoted by the cases below. */
static const char sample[] = "augur-profile 2\n"                                     /* 1 */
                             "tool augur-collect 0.1.0\n"                            /* 2 */
                             "pid 4242\n"                                            /* 3 */
                             "ppid 4241\n"                                           /* 4 */
                             "exe /home/u/my%20prog\n"                               /* 5 */
                             "arg 1000\n"                                            /* 6 */
                             "arg -\n"                                               /* 7 */
                             "arg %2D\n"                                             /* 8 */
                             "arg a%25b\n"                                           /* 9 */
                             "block-size 64\n"                                       /* 10 */
                             "block-size 4096\n"                                     /* 11 */
                             "threads 2\n"                                           /* 12 */
                             "module 0 /home/u/my%20prog 555555554000\n"             /* 13 */
                             "module 1 /lib/x86_64-linux-gnu/libc.so.6 7ffff7d80000\n" /* 14 */
                             "fn 0 main\n"                                           /* 15 */
                             "fn 1 std::vector<int>::push_back(int%20const&)\n"      /* 16 */
                             "file 0 /home/u/sweep.c\n"                              /* 17 */
                             "ins 0 1139 4 0 0 12 1000 1000 0\n"                     /* 18 */
                             "hist 64 1000 125 2 0 875 0 10 0 0\n"                   /* 19 */
                             "hist 4096 1000 2 1 0 998 0\n"                          /* 20 */
                             "ins 0 1140 2 0 0 13 1000 0 0\n"                        /* 21 */
                             "br 10\n"                                               /* 22 */
                             "ins 1 2a0 3 1 -1 0 5 0 5\n"                            /* 23 */
                             "ind 0 1139 3\n"                                        /* 24 */
                             "ind -1 7fff0000 2\n"                                   /* 25 */
                             "call 0 1139 3\n"                                       /* 26 */
                             "call -1 7fff0010 2\n"                                  /* 27 */
                             "hist 64 5 1 1 20 4 100\n"                              /* 28 */
                             "hist 4096 5 5 0\n"                                     /* 29 */
                             "ins -1 7fff0010 1 -1 -1 0 7 0 0\n"                     /* 30 */
                             "exit 3\n";                                             /* 31 */

typedef struct fixture {
    char *dir, *path;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = fixture_tmpdir();
    f->path = fixture_path(f->dir, "augur.1.prof");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    free(f->path);
    fixture_remove(f->dir);
    free(f);
    return 0;
}

/* Read the file and expect the error "<path>: <want>" (want may be a
 * prefix of the rest of the message); the profile must be left empty. */
static void expect_error(const char *path, const char *want)
{
    profile p;
    char err[1024], expected[1024];
    if (profile_read(path, &p, err, sizeof err) == 0)
        fail_msg("accepted a profile that should fail with: %s", want);
    snprintf(expected, sizeof expected, "%s: %s", path, want);
    if (strncmp(err, expected, strlen(expected)) != 0)
        fail_msg("error\n  %s\nexpected to start with\n  %s", err, expected);
    assert_null(p.instrs);
    assert_int_equal(p.ninstrs, 0);
    assert_null(p.tool);
}

/* ---- a valid profile ---------------------------------------------------- */

static void test_round_trip(void **state)
{
    fixture *f = *state;
    fixture_profile(f->path, sample);
    profile p;
    char err[1024];
    if (profile_read(f->path, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_string_equal(p.tool, "augur-collect 0.1.0");
    assert_int_equal(p.pid, 4242);
    assert_int_equal(p.ppid, 4241);
    assert_string_equal(p.exe, "/home/u/my prog");
    assert_int_equal(p.argc, 4);
    assert_string_equal(p.argv[0], "1000");
    assert_string_equal(p.argv[1], "");
    assert_string_equal(p.argv[2], "-");
    assert_string_equal(p.argv[3], "a%b");
    assert_null(p.argv[4]);
    assert_int_equal(p.nblock_sizes, 2);
    assert_int_equal(p.block_sizes[0], 64);
    assert_int_equal(p.block_sizes[1], 4096);
    assert_int_equal(p.threads, 2);
    assert_int_equal(p.nmodules, 2);
    assert_string_equal(p.modules[0].path, "/home/u/my prog");
    assert_int_equal(p.modules[0].bias, 0x555555554000);
    assert_string_equal(p.modules[0].build_id, "");
    assert_string_equal(p.modules[1].path, "/lib/x86_64-linux-gnu/libc.so.6");
    assert_int_equal(p.modules[1].bias, 0x7ffff7d80000);
    assert_int_equal(p.nfns, 2);
    assert_string_equal(p.fns[0], "main");
    assert_string_equal(p.fns[1], "std::vector<int>::push_back(int const&)");
    assert_int_equal(p.nfiles, 1);
    assert_string_equal(p.files[0], "/home/u/sweep.c");
    assert_int_equal(p.ninstrs, 4);

    const prof_instr *in = &p.instrs[0];
    assert_int_equal(in->module, 0);
    assert_int_equal(in->addr, 0x1139);
    assert_int_equal(in->len, 4);
    assert_int_equal(in->fn, 0);
    assert_int_equal(in->file, 0);
    assert_int_equal(in->line, 12);
    assert_int_equal(in->execs, 1000);
    assert_int_equal(in->reads, 1000);
    assert_int_equal(in->writes, 0);
    assert_false(in->is_cond_branch);
    assert_int_equal(in->ntargets, 0);
    assert_int_equal(in->nhists, 2);
    assert_int_equal(in->hists[0].block_size, 64);
    assert_int_equal(in->hists[0].touches, 1000);
    assert_int_equal(in->hists[0].cold, 125);
    assert_int_equal(in->hists[0].nbins, 1); /* the empty bin 10 is dropped */
    assert_int_equal(in->hists[0].bins[0].bin, 0);
    assert_int_equal(in->hists[0].bins[0].count, 875);
    assert_int_equal(in->hists[0].bins[0].sum, 0);
    assert_int_equal(in->hists[1].block_size, 4096);
    assert_int_equal(in->hists[1].cold, 2);
    assert_int_equal(in->hists[1].bins[0].count, 998);

    in = &p.instrs[1];
    assert_true(in->is_cond_branch);
    assert_int_equal(in->taken, 10);
    assert_int_equal(in->nhists, 0);
    assert_null(in->hists);

    in = &p.instrs[2];
    assert_int_equal(in->module, 1);
    assert_int_equal(in->addr, 0x2a0);
    assert_int_equal(in->fn, 1);
    assert_int_equal(in->file, -1);
    assert_int_equal(in->line, 0);
    assert_int_equal(in->writes, 5);
    assert_false(in->is_cond_branch);
    assert_int_equal(in->ntargets, 2);
    assert_int_equal(in->targets[0].module, 0);
    assert_int_equal(in->targets[0].addr, 0x1139);
    assert_int_equal(in->targets[0].count, 3);
    assert_int_equal(in->targets[1].module, -1);
    assert_int_equal(in->targets[1].addr, 0x7fff0000);
    assert_int_equal(in->targets[1].count, 2);
    assert_int_equal(in->ncalls, 2); /* callees resolved to the instructions they entered */
    assert_int_equal(in->calls[0].count, 3);
    assert_int_equal(in->calls[0].instr, 0);
    assert_int_equal(in->calls[1].module, -1);
    assert_int_equal(in->calls[1].instr, 3);
    assert_int_equal(in->hists[0].cold, 1);
    assert_int_equal(in->hists[0].nbins, 1);
    assert_int_equal(in->hists[0].bins[0].bin, 20);
    assert_int_equal(in->hists[0].bins[0].count, 4);
    assert_int_equal(in->hists[0].bins[0].sum, 100);
    assert_int_equal(in->hists[1].touches, 5);
    assert_int_equal(in->hists[1].nbins, 0);

    in = &p.instrs[3];
    assert_int_equal(in->module, -1);
    assert_int_equal(in->addr, 0x7fff0010);
    assert_int_equal(in->fn, -1);
    assert_int_equal(in->nhists, 0);

    assert_true(p.has_exit);
    assert_int_equal(p.exit_code, 3);
    profile_free(&p);
    assert_null(p.instrs);
}

static void test_no_exit_line(void **state)
{
    fixture *f = *state;
    char body[sizeof sample];
    strcpy(body, sample);
    *strstr(body, "exit 3\n") = '\0';
    fixture_profile(f->path, body);
    profile p;
    char err[1024];
    if (profile_read(f->path, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_false(p.has_exit);
    profile_free(&p);
}

/* ---- mistakes in the lines (the end line is correct) --------------------- */

typedef struct edit_case {
    const char *find, *replace; /* first occurrence in the sample */
    const char *error;          /* the message, after "<path>: " */
} edit_case;

static const edit_case edit_cases[] = {
    {"threads 2\n", "threads 2\nfoo 1\n", "line 13: unknown keyword 'foo'"},
    {"pid 4242", "pid 42x2", "line 3: pid '42x2' is not an unsigned decimal number"},
    {"pid 4242", "pid  4242", "line 3: empty field"},
    {"threads 2", "threads 2 3", "line 12: 'threads' line with 2 fields, expected 1"},
    {"1140 2 0 0 13 1000", "1140 2 0 0 13 99999999999999999999",
     "line 21: EXECS '99999999999999999999' is not an unsigned decimal number"},
    {"7ffff7d80000", "7FFFF7D80000", "line 14: module bias '7FFFF7D80000' is not a lower-case hexadecimal number"},
    {"my%20prog\n", "my%2prog\n", "line 5: exe: bad escape at byte 11"},
    {"arg 1000", "arg 10\t00", "line 6: arg: byte 0x09 at byte 3 must be percent-encoded"},
    {"exit 3", "exit 256", "line 31: exit code 256 is out of range"},
    /* undefined identifiers */
    {"ins 0 1139 4 0 0 12", "ins 0 1139 4 7 0 12", "line 18: fn 7 is not defined"},
    {"ins 0 1139 4 0 0 12", "ins 0 1139 4 0 3 12", "line 18: file 3 is not defined"},
    {"ins 0 1140", "ins 5 1140", "line 21: module 5 is not defined"},
    {"ind 0 1139 3", "ind 2 1139 3", "line 24: module 2 is not defined"},
    {"fn 1 std", "fn 2 std", "line 16: fn 2 defined where fn 1 was expected"},
    /* counts that cannot be */
    {"hist 64 1000 125", "hist 64 1000 126",
     "line 19: histogram counts add up to 1001 (COLD + the bins' COUNTs), TOUCHES says 1000"},
    {"br 10", "br 1001", "line 22: branch taken 1001 times but executed 1000 times"},
    {"ind 0 1139 3", "ind 0 1139 4", "line 25: indirect targets taken more often than the instruction executed"},
    {"call 0 1139 3", "call 0 1139 6", "line 26: a callee entered more often than the instruction executed (5 times)"},
    {"call 0 1139 3", "call 0 1138 3", "line 26: the callee at module 0 address 1138 is no instruction of the profile"},
    {"call 0 1139 3", "call 2 1139 3", "line 26: module 2 is not defined"},
    {"20 4 100", "20 4 200", "line 28: bin 20: SUM 200 is impossible for 4 distances in [24, 26)"},
    /* bins */
    {"hist 64 5 1 1 20 4 100", "hist 64 5 1 2 20 2 50 3 2 6", "line 28: bin 3 after bin 20: bins must be listed"},
    {"hist 64 5 1 1 20 4 100", "hist 64 5 1 1 496 4 100", "line 28: bin 496 is out of range"},
    {"hist 4096 1000 2 1 0 998 0", "hist 4096 1000 2 1 0 998",
     "line 20: 'hist' line with N = 1 bins has 6 fields, expected 7"},
    /* hist lines and block sizes */
    {"hist 64 1000 125 2 0 875 0 10 0 0\nhist 4096 1000 2 1 0 998 0\n",
     "hist 4096 1000 2 1 0 998 0\nhist 64 1000 125 2 0 875 0 10 0 0\n",
     "line 19: hist for block size 4096 where block size 64 was expected"},
    {"hist 4096 1000 2 1 0 998 0\n", "", "line 18: the instruction has 1 hist lines, expected 2"},
    {"br 10\n", "br 10\nhist 64 1 1 0\n", "line 23: 'hist' line for an instruction that does not access memory"},
    {"block-size 64\nblock-size 4096\n", "block-size 4096\nblock-size 64\n",
     "line 11: block size 64 after 4096: block sizes must be listed in ascending order"},
    {"block-size 64", "block-size 48", "line 10: block size 48 is not a power of two from 8 to 1073741824"},
    {"block-size 4096", "block-size 2147483648", "line 11: block size 2147483648 is not a power of two from 8 to"},
    /* counts whose sums pass 2^63 - 1: a report showed 2^64 - 1 EXECS as 140,481 instructions */
    {"1140 2 0 0 13 1000", "1140 2 0 0 13 18446744073709551615",
     "line 21: the instructions' EXECS add up to more than 9223372036854775807 (2^63 - 1)"},
    {"1139 4 0 0 12 1000", "1139 4 0 0 12 9223372036854775807",
     "line 21: the instructions' EXECS add up to more than 9223372036854775807"},
    {"ins 0 1139 4 0 0 12 1000 1000 0", "ins 0 1139 4 0 0 12 1000 1000 9223372036854775807",
     "line 23: the instructions' WRITES add up to more than"},
    {"hist 64 1000 125 2", "hist 64 9223372036854775807 9223372036854774932 2",
     "line 28: the instructions' TOUCHES add up to more than"},
    /* what the process cannot have done */
    {"threads 2", "threads 4294967295",
     "line 12: threads 4294967295, but the process executed 2012 instructions, and each thread after the first is "
     "made by one"},
    {"exit 3\n", "ins 0 1140 2 0 0 13 1 0 0\nexit 3\n",
     "line 31: a second 'ins' line for module 0 address 1140, first on line 21"},
    /* order of lines */
    {"file 0 /home/u/sweep.c\n", "file 0 /home/u/sweep.c\nbr 1\n", "line 18: 'br' line before any 'ins' line"},
    {"hist 4096 5 5 0\n", "hist 4096 5 5 0\nbr 1\n", "line 30: misplaced 'br' line"},
    {"call 0 1139 3\n", "call 0 1139 3\nind 0 1139 1\n", "line 27: misplaced 'ind' line"},
    {"hist 4096 5 5 0\n", "hist 4096 5 5 0\ncall 0 1139 1\n", "line 30: misplaced 'call' line"},
    {"augur-profile 2", "augur-profile 1", "line 26: 'call' line in a version-1 profile: calls are recorded from version 2"},
    {"pid 4242\nppid 4241\n", "ppid 4241\npid 4242\n", "line 3: no 'pid' line before this 'ppid' line"},
    {"ppid 4241\n", "ppid 4241\npid 1\n", "line 5: 'pid' line after a 'ppid' line"},
    {"threads 2\n", "threads 2\nthreads 3\n", "line 13: a second 'threads' line"},
    {"threads 2\n", "", "line 12: no 'threads' line before this 'module' line"},
    {"exit 3\n", "exit 3\nins 0 1 1 0 0 1 1 0 0\n", "line 32: 'ins' line after a 'exit' line"},
};

static void test_edits_refused(void **state)
{
    fixture *f = *state;
    for (size_t i = 0; i < sizeof edit_cases / sizeof *edit_cases; i++) {
        const edit_case *c = &edit_cases[i];
        const char *at = strstr(sample, c->find);
        assert_non_null(at);
        char *body;
        assert_true(asprintf(&body, "%.*s%s%s", (int)(at - sample), sample, c->replace, at + strlen(c->find)) > 0);
        fixture_profile(f->path, body);
        free(body);
        expect_error(f->path, c->error);
    }
}

/* ---- stride lines (after an instruction's hist lines) --------------------- */

/* The sample as version 3 with `stride LINE` after the hist lines of its
 * third instruction (5 writes: at most 4 deltas) as line 30, or, with
 * `version` 2, as the version-2 file it is. */
static void write_with_stride(const char *path, const char *stride_line, int version)
{
    const char *at = strstr(sample, "hist 4096 5 5 0\n") + strlen("hist 4096 5 5 0\n");
    const char *rest = sample + strlen("augur-profile 2\n");
    char *body;
    assert_true(asprintf(&body, "augur-profile %d\n%.*s%s%s", version, (int)(at - rest), rest, stride_line, at) > 0);
    fixture_profile(path, body);
    free(body);
}

static void test_stride_line(void **state)
{
    fixture *f = *state;
    write_with_stride(f->path, "stride -1792 3 4\n", 3);
    profile p;
    char err[1024];
    if (profile_read(f->path, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(p.instrs[2].stride, -1792);
    assert_int_equal(p.instrs[2].stride_count, 3);
    assert_int_equal(p.instrs[2].stride_deltas, 4);
    assert_int_equal(p.instrs[0].stride_deltas, 0); /* no stride line: none known, as in older profiles */
    profile_free(&p);

    static const struct {
        const char *line, *error;
    } bad[] = {
        {"stride +1792 3 4\n", "line 30: DELTA '+1792' is not a signed decimal number"},
        {"stride - 3 4\n", "line 30: DELTA '-' is not a signed decimal number"},
        {"stride -9223372036854775809 3 4\n", "line 30: DELTA '-9223372036854775809' is not a signed decimal"},
        {"stride 64 0 4\n", "line 30: stride COUNT 0 is not from 1 to DELTAS (4)"},
        {"stride 64 5 4\n", "line 30: stride COUNT 5 is not from 1 to DELTAS (4)"},
        {"stride 64 1 5\n", "line 30: stride DELTAS 5: an instruction of 5 accesses has 1 to 4 deltas"},
        {"stride 64 1 0\n", "line 30: stride DELTAS 0: an instruction of 5 accesses has 1 to 4 deltas"},
        {"stride 64 1 4\nstride 64 1 4\n", "line 31: misplaced 'stride' line"},
        {"stride 64 1 4\nhist 64 1 1 0\n", "line 31: misplaced 'hist' line"},
        {"stride 64 1\n", "line 30: 'stride' line with 2 fields, expected at least 3: DELTA COUNT DELTAS"},
        {"ins 0 1150 2 0 0 13 1 0 0\nstride 64 1 1\n",
         "line 31: 'stride' line for an instruction that does not access memory"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        write_with_stride(f->path, bad[i].line, 3);
        expect_error(f->path, bad[i].error);
    }
    /* a version-2 profile has no stride lines */
    write_with_stride(f->path, "stride 64 1 4\n", 2);
    expect_error(f->path, "line 30: 'stride' line in a version-2 profile: strides are recorded from version 3 on");
    /* before the hist lines */
    char *body;
    const char *at = strstr(sample, "hist 64 5 1 1"), *rest = sample + strlen("augur-profile 2\n");
    assert_true(asprintf(&body, "augur-profile 3\n%.*sstride 64 1 4\n%s", (int)(at - rest), rest, at) > 0);
    fixture_profile(f->path, body);
    free(body);
    expect_error(f->path, "line 28: 'stride' line before the instruction's hist lines (0 of 2): it comes after them");
}

/* Version 7's 2-adic classes on a stride line: SHIFT COUNT pairs, read
 * into stride_pow2; out of range, unordered, empty or too many refused. */
static void test_stride_pow2(void **state)
{
    fixture *f = *state;
    write_with_stride(f->path, "stride 16 1 4 7 1 12 2\n", 7);
    profile p;
    char err[1024];
    if (profile_read(f->path, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(p.instrs[2].stride_pow2[0], 1);
    assert_int_equal(p.instrs[2].stride_pow2[12 - PROFILE_POW2_FIRST], 2);
    assert_int_equal(p.instrs[2].stride_pow2[1], 0);
    assert_int_equal(p.instrs[0].stride_pow2[0], 0);
    profile_free(&p);

    static const struct {
        const char *line, *error;
    } bad[] = {
        {"stride 16 1 4 7\n", "line 30: 'stride' line with 4 fields: DELTA COUNT DELTAS, then SHIFT COUNT pairs"},
        {"stride 16 1 4 6 1\n", "line 30: stride SHIFT 6: the classes are 7 to 22, ascending"},
        {"stride 16 1 4 23 1\n", "line 30: stride SHIFT 23: the classes are 7 to 22, ascending"},
        {"stride 16 1 4 9 1 8 1\n", "line 30: stride SHIFT 8: the classes are 7 to 22, ascending"},
        {"stride 16 1 4 9 0\n", "line 30: stride class 9 with COUNT 0: empty classes are left out"},
        {"stride 16 1 4 9 3 10 2\n", "line 30: stride classes count 5 deltas, more than DELTAS (4)"},
        {"stride 16 1 4 x 1\n", "line 30: SHIFT 'x' is not"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        write_with_stride(f->path, bad[i].line, 7);
        expect_error(f->path, bad[i].error);
    }
    /* a version-6 profile has no classes */
    write_with_stride(f->path, "stride 16 1 4 7 1\n", 6);
    expect_error(f->path, "line 30: 'stride' line in a version-6 profile: the 2-adic classes of a stride line's "
                          "deltas are recorded from version 7 on");
}

/* ---- regions and intervals (version 4) ------------------------------------ */

/* The sample as format `version` with `head` after its threads line (line
 * 12) and `tail` before its exit line. */
static void write_with_regions(const char *path, int version, const char *head, const char *tail)
{
    const char *rest = sample + strlen("augur-profile 2\n");
    const char *body_at = strstr(sample, "module 0"), *exit_at = strstr(sample, "exit 3\n");
    char *body;
    assert_true(asprintf(&body, "augur-profile %d\n%.*s%s%.*s%s%s", version, (int)(body_at - rest), rest, head,
                         (int)(exit_at - body_at), body_at, tail, exit_at) > 0);
    fixture_profile(path, body);
    free(body);
}

/* A profile of format `version` with lines `head` before the body and
 * `tail` after it (write_with_regions), and the error it must give. */
typedef struct bad_lines {
    int version;
    const char *head, *tail, *error;
} bad_lines;

/* Each of bad[0..n) written to path is refused with its error. */
static void expect_bad_lines(const char *path, const bad_lines *bad, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        write_with_regions(path, bad[i].version, bad[i].head, bad[i].tail);
        expect_error(path, bad[i].error);
    }
}

/* An interval's profile of a run with markers, a region function and an
 * interval function, its stride line beside them, read field by field. */
static void test_regions_lines(void **state)
{
    fixture *f = *state;
    write_with_regions(f->path, 4, "regions 0 2 1 0 1\nregion-fn kern* 3\ninterval-fn MPI_%2A 5\n",
                       "interval 2 3 call 0 1140 0 0 13\n");
    profile p;
    char err[1024];
    if (profile_read(f->path, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    const prof_regions *g = &p.regions;
    assert_true(g->has_regions);
    assert_int_equal(g->instr_at_start, 0);
    assert_int_equal(g->starts, 2);
    assert_int_equal(g->stops, 1);
    assert_int_equal(g->zeros, 0);
    assert_int_equal(g->dumps, 1);
    assert_int_equal(g->nregion_fns, 1);
    assert_string_equal(g->region_fns[0].glob, "kern*");
    assert_int_equal(g->region_fns[0].entries, 3);
    assert_int_equal(g->ninterval_fns, 1);
    assert_string_equal(g->interval_fns[0].glob, "MPI_*");
    assert_int_equal(g->interval_fns[0].entries, 5);
    const prof_interval *iv = &p.interval;
    assert_true(iv->is_interval);
    assert_int_equal(iv->index, 2);
    assert_int_equal(iv->count, 3);
    assert_string_equal(iv->closed_by, "call");
    assert_int_equal(iv->module, 0);
    assert_int_equal(iv->addr, 0x1140);
    assert_int_equal(iv->fn, 0);
    assert_int_equal(iv->file, 0);
    assert_int_equal(iv->line, 13);
    assert_int_equal(p.ninstrs, 4);
    profile_free(&p);

    /* a version-4 profile may have stride lines too; one without regions
     * counted the whole process */
    write_with_stride(f->path, "stride 8 4 4\n", 4);
    if (profile_read(f->path, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(p.instrs[2].stride, 8);
    assert_false(p.regions.has_regions);
    assert_false(p.interval.is_interval);
    profile_free(&p);

    static const bad_lines bad[] = {
        {3, "regions 1 0 0 0 1\n", "", "line 13: 'regions' line in a version-3 profile: regions are recorded from "
                                       "version 4 on"},
        {3, "", "interval 0 1 end -1 0 -1 -1 0\n", "line 31: 'interval' line in a version-3 profile: intervals are "
                                                   "recorded from version 4 on"},
        {4, "region-fn f 1\n", "", "line 13: 'region-fn' line without a 'regions' line before it"},
        {4, "regions 2 0 0 0 0\n", "", "line 13: INSTR_AT_START"},
        {4, "", "interval 0 1 exit -1 0 -1 -1 0\n", "line 31: interval closed by 'exit': expected call, dump or end"},
        {4, "", "interval 0 0 end -1 0 -1 -1 0\n", "line 31: interval COUNT 0: a profile sums at least one interval"},
        {4, "", "interval 0 1 end -1 0 -1 -1 0\ninterval 1 1 end -1 0 -1 -1 0\n", "line 32: a second 'interval' line"},
        {4, "", "interval 0 1 call 2 1140 0 0 13\n", "line 31: module 2"},
    };
    expect_bad_lines(f->path, bad, sizeof bad / sizeof *bad);
}

/* An MPI rank's profile (version 6): its mpi line and comm lines read
 * field by field, and refused where they cannot be. */
static void test_mpi_lines(void **state)
{
    fixture *f = *state;
    write_with_regions(f->path, 6, "mpi 1 4\n", "comm 1 2 0 -1 3 240 240 0 27 2 1 0\ncomm 0 -1 0 5 1 8 8 -1 0 0\n");
    profile p;
    char err[1024];
    if (profile_read(f->path, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(p.mpi.has_mpi);
    assert_int_equal(p.mpi.rank, 1);
    assert_int_equal(p.mpi.size, 4);
    assert_int_equal(p.ncomms, 2);
    const prof_comm *c = &p.comms[0];
    assert_int_equal(c->fn, 1);
    assert_int_equal(c->peer, 2);
    assert_int_equal(c->comm, 0);
    assert_int_equal(c->interval, -1);
    assert_int_equal(c->calls, 3);
    assert_int_equal(c->sent, 240);
    assert_int_equal(c->received, 240);
    assert_int_equal(c->file, 0);
    assert_int_equal(c->line, 27);
    assert_int_equal(c->depth, 2);
    assert_int_equal(c->frames[0], 1);
    assert_int_equal(c->frames[1], 0);
    assert_int_equal(p.comms[1].peer, -1);
    assert_int_equal(p.comms[1].interval, 5);
    assert_int_equal(p.comms[1].file, -1);
    assert_int_equal(p.comms[1].depth, 0);
    profile_free(&p);

    static const bad_lines bad[] = {
        {4, "mpi 0 2\n", "", "line 13: 'mpi' line in a version-4 profile: MPI ranks are recorded from version 6 on"},
        {4, "", "comm 0 1 0 -1 1 8 8 0 1 0\n", "line 31: 'comm' line in a version-4 profile: MPI calls are "
                                               "recorded from version 6 on"},
        {6, "mpi 2 2\n", "", "line 13: mpi RANK 2 is not below SIZE 2"},
        {6, "", "comm 0 1 0 -1 0 8 8 0 1 0\n", "line 31: comm CALLS 0: a line sums at least one call"},
        {6, "", "comm 0 -2 0 -1 1 8 8 0 1 0\n", "line 31: comm PEER -2: -1 (none) or a number from 0"},
        {6, "", "comm 0 1 0 -1 1 8 8 0 1 2 0\n", "line 31: comm DEPTH 2, but 1 callers follow it"},
        {6, "", "comm 0 1 0 -1 1 8 8 0 1 1 7\n", "line 31: fn 7"},
        {6, "", "comm 0 1 0 -1 1 8 8 0 1 0\ninterval 0 1 end -1 0 -1 -1 0\n",
         "line 32: 'interval' line after 'comm' lines: an interval's profile has no MPI calls"},
    };
    expect_bad_lines(f->path, bad, sizeof bad / sizeof *bad);
}

/* ---- sampled histograms (version 5) -------------------------------------- */

/* A version-5 profile sampled at 1677722 / 2^24 (collect --sample-rd 0.1)
 * reads its rate; an exact one has none; the line is refused in older
 * versions, with a threshold of 0 or of the whole modulus, another modulus,
 * twice, or after the regions line. */
static void test_sample_rd_line(void **state)
{
    fixture *f = *state;
    write_with_regions(f->path, 5, "sample-rd 1677722 16777216\n", "");
    profile p;
    char err[1024];
    if (profile_read(f->path, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(p.sample_threshold, 1677722);
    assert_int_equal(p.ninstrs, 4);
    profile_free(&p);
    write_with_regions(f->path, 5, "", "");
    if (profile_read(f->path, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(p.sample_threshold, 0);
    profile_free(&p);

    static const struct {
        int version;
        const char *head, *error;
    } bad[] = {
        {4, "sample-rd 1677722 16777216\n", "line 13: 'sample-rd' line in a version-4 profile: sampled histograms "
                                            "are recorded from version 5 on"},
        {5, "sample-rd 0 16777216\n", "line 13: sample-rd 0 16777216: expected a THRESHOLD from 1 to 16777215"},
        {5, "sample-rd 16777216 16777216\n", "line 13: sample-rd 16777216 16777216: expected a THRESHOLD"},
        {5, "sample-rd 1 1000\n", "line 13: sample-rd 1 1000: expected a THRESHOLD from 1 to 16777215 and MODULUS"},
        {5, "sample-rd 1 16777216\nsample-rd 1 16777216\n", "line 14: a second 'sample-rd' line"},
        {5, "regions 1 0 0 0 1\nsample-rd 1 16777216\n", "line 14: 'sample-rd'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        write_with_regions(f->path, bad[i].version, bad[i].head, "");
        expect_error(f->path, bad[i].error);
    }
}

/* ---- set-local histograms (version 8) ------------------------------------ */

/* The sample as format `version` with `head` after its block-size lines
 * (line 12 on) and `sets0`, `sets3` after the hist lines of its first and
 * third instructions. */
static void write_with_sets(const char *path, int version, const char *head, const char *sets0, const char *sets3)
{
    const char *rest = sample + strlen("augur-profile 2\n");
    const char *threads = strstr(sample, "threads 2\n");
    const char *after0 = strstr(sample, "hist 4096 1000 2 1 0 998 0\n") + strlen("hist 4096 1000 2 1 0 998 0\n");
    const char *after3 = strstr(sample, "hist 4096 5 5 0\n") + strlen("hist 4096 5 5 0\n");
    char *body;
    assert_true(asprintf(&body, "augur-profile %d\n%.*s%s%.*s%s%.*s%s%s", version, (int)(threads - rest), rest, head,
                         (int)(after0 - threads), threads, sets0, (int)(after3 - after0), after0, sets3, after3) > 0);
    fixture_profile(path, body);
    free(body);
}

#define SET_COUNTS "set-count 64 64 32\nset-count 2048 64 32\n"
#define SETS0 "sets 64 1000 125 2 0 800 0 8 75 600\nsets 2048 1000 125 1 0 875 0\n"
#define SETS3 "sets 64 5 5 0\nsets 2048 5 1 1 3 4 12\n"

/* A version-8 profile's set counts and set-local histograms read back, far
 * touches as their cold count; the lines refused in older versions, out of
 * order, with touches other than the 64-byte histogram's, distances at or
 * past WAYS, a set count that is no power of two, other lines than 64
 * bytes, or missing. */
static void test_set_lines(void **state)
{
    fixture *f = *state;
    write_with_sets(f->path, 8, SET_COUNTS, SETS0, SETS3);
    profile p;
    char err[1024];
    if (profile_read(f->path, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(p.nset_counts, 2);
    assert_int_equal(p.set_counts[0], 64);
    assert_int_equal(p.set_counts[1], 2048);
    assert_int_equal(p.set_ways, 32);
    assert_int_equal(p.instrs[0].nsets, 2);
    assert_int_equal(p.instrs[0].sets[0].block_size, 64);
    assert_int_equal(p.instrs[0].sets[0].cold, 125);
    assert_int_equal(p.instrs[0].sets[0].nbins, 2);
    assert_int_equal(p.instrs[0].sets[0].bins[1].bin, 8);
    assert_int_equal(p.instrs[0].sets[0].bins[1].count, 75);
    assert_int_equal(p.instrs[2].sets[1].bins[0].bin, 3);
    assert_int_equal(p.instrs[1].nsets, 0); /* no memory access */
    profile_free(&p);

    static const struct {
        int version;
        const char *head, *sets0, *sets3, *error;
    } bad[] = {
        {7, SET_COUNTS, SETS0, SETS3, "line 12: 'set-count' line in a version-7 profile: set-local histograms are "
                                      "recorded from version 8 on"},
        {7, "", "sets 64 1000 1000 0\n", "", "line 21: 'sets' line in a version-7 profile"},
        {8, "set-count 2048 64 32\nset-count 64 64 32\n", SETS0, SETS3, "line 13: set count 64 after 2048"},
        {8, "set-count 48 64 32\n", "", "", "line 12: set count 48 is not a power of two"},
        {8, "set-count 64 128 32\n", "", "", "line 12: set-count line size 128: set-local histograms are of 64-byte"},
        {8, "set-count 64 64 33\n", "", "", "line 12: WAYS 33 is out of range (at most 32)"},
        {8, "set-count 64 64 8\n", "sets 64 1000 125 2 0 800 0 8 75 600\n", "sets 64 5 5 0\n",
         "line 22: bin 8 of a sets line: set-local distances are below WAYS (8)"},
        {8, SET_COUNTS, "sets 64 999 124 2 0 800 0 8 75 600\nsets 2048 999 124 1 0 875 0\n", SETS3,
         "line 23: sets TOUCHES 999, but the instruction touched 1000 lines of 64 bytes"},
        {8, SET_COUNTS, "sets 2048 1000 125 1 0 875 0\n", SETS3, "line 23: sets for set count 2048 where set count 64"},
        {8, SET_COUNTS, "sets 64 1000 125 2 0 800 0 8 75 600\n", SETS3,
         "line 20: the instruction has 1 sets lines, expected 2"},
        {8, SET_COUNTS, "sets 64 1000 125 2 0 800 0 8 75 601\n", SETS3, "line 23: bin 8: SUM 601 is impossible"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        write_with_sets(f->path, bad[i].version, bad[i].head, bad[i].sets0, bad[i].sets3);
        expect_error(f->path, bad[i].error);
    }
}

/* ---- damage to the file -------------------------------------------------- */

static void test_flipped_byte(void **state)
{
    fixture *f = *state;
    char *text = fixture_with_end(sample);
    text[strstr(text, "arg 1000") - text + 5] ^= 1; /* one bit: "arg 1000" becomes "arg 1100" */
    fixture_write(f->path, text, strlen(text));
    expect_error(f->path, "line 32: checksum mismatch");
    free(text);
}

static void test_truncated(void **state)
{
    fixture *f = *state;
    char *text = fixture_with_end(sample);
    size_t end_line = (size_t)(strstr(text, "end ") - text);

    fixture_write(f->path, text, end_line); /* cut after a whole line: no end line */
    expect_error(f->path, "truncated: no 'end' line after line 31 (the process may have been killed");

    fixture_write(f->path, text, end_line - 3); /* cut inside a line */
    expect_error(f->path, "line 31: truncated: the last line is incomplete");

    fixture_write(f->path, text, strlen(text) - 1); /* the end line lacks its newline */
    expect_error(f->path, "line 32: truncated: the 'end' line is incomplete");

    fixture_write(f->path, text, 0);
    expect_error(f->path, "empty file: the profile is truncated");
    free(text);
}

static void test_bytes_after_end(void **state)
{
    fixture *f = *state;
    char *text = fixture_with_end(sample), *longer;
    assert_true(asprintf(&longer, "%sx\n", text) > 0);
    fixture_write(f->path, longer, strlen(longer));
    expect_error(f->path, "line 32: 2 bytes after the 'end' line: the file is corrupt");
    free(longer);
    free(text);
}

static void test_wrong_line_count(void **state)
{
    fixture *f = *state;
    char *text;
    assert_true(asprintf(&text, "%send 30 %lx\n", sample, crc32(0, (const Bytef *)sample, (uInt)strlen(sample))) > 0);
    fixture_write(f->path, text, strlen(text));
    expect_error(f->path, "line 32: the 'end' line counts 30 lines but 31 precede it");
    free(text);
}

static void test_not_a_profile(void **state)
{
    fixture *f = *state;
    fixture_write(f->path, "hello\n", 6);
    expect_error(f->path, "line 1: not an augur profile (the first line is not 'augur-profile 8')");
    fixture_profile(f->path, "augur-profile 9\n");
    expect_error(f->path, "line 1: profile format version 9 is not supported: this augur reads versions 1 to 8");
}

/* A NUL byte ended its line early, unseen: "ins ... 0<NUL>junk" read as
 * the ins line alone. */
static void test_nul_byte(void **state)
{
    fixture *f = *state;
    static const char body[] = "augur-profile 1\ntool augur-collect 0.1.0\npid 1\nppid 0\nexe /p\nthreads 1\n"
                               "ins -1 1000 1 -1 -1 0 5 0 0\0junk\n";
    size_t len = sizeof body - 1;
    char text[sizeof body + 64];
    memcpy(text, body, len);
    len += (size_t)snprintf(text + len, 64, "end 7 %lx\n", crc32(0, (const Bytef *)body, (uInt)len));
    fixture_write(f->path, text, len);
    expect_error(f->path, "line 7: a NUL byte at byte 28 of the line: the file is corrupt (collect the profile again)");
}

/* What is not a profile by its size or kind is refused before it is read:
 * `augur import /dev/zero` read until memory ran out. */
static void test_size_and_kind(void **state)
{
    fixture *f = *state;
    FILE *fp = fopen(f->path, "w"); /* a sparse file one byte over 4 GiB */
    assert_non_null(fp);
    assert_int_equal(ftruncate(fileno(fp), (off_t)(4ull << 30) + 1), 0);
    fclose(fp);
    expect_error(f->path, "larger than 4294967296 bytes (4 GiB), the most a raw profile may have");
    expect_error("/dev/zero", "not a regular file (a device; give the path of a raw profile file)");
    char *dir = fixture_tmpdir();
    expect_error(dir, "not a regular file (a folder;");
    fixture_remove(dir);
}

static void test_missing_file(void **state)
{
    fixture *f = *state;
    profile p;
    char err[1024], want[1024];
    assert_int_equal(profile_read(f->path, &p, err, sizeof err), -1);
    snprintf(want, sizeof want, "cannot open %s: No such file or directory", f->path);
    assert_string_equal(err, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_exit_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_edits_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stride_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stride_pow2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_regions_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mpi_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sample_rd_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flipped_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bytes_after_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_line_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_profile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nul_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_and_kind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
