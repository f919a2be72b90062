/* cmd_collect.c — `augur collect`: run a program under the collector and
 * store its profile as a run in the experiment database.
 *
 * Order of work, chosen so that bad input never changes the database:
 *   1. check every option, the program, the tool and the database;
 *   2. run the program under Valgrind, profiles going to a private folder;
 *   3. read and verify every profile (a corrupt one aborts the import);
 *   4. import the run in one transaction;
 *   5. exit with the program's own exit status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/collect_builds.h"
#include "cli/collect_mpi.h"
#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/run_dir.h"
#include "cli/runs.h"
#include "db/db.h"
#include "rdpipe/rdpipe.h"
#include "report/report.h"
#include "util/parse.h"

#define MAX_FN_PATTERNS 32 /* the tool's MAX_PATTERNS */

/* --region-function and --interval-functions patterns, as the tool's options. */
typedef struct fn_patterns {
    int n;
    char *opt[MAX_FN_PATTERNS]; /* "--augur-region-fn=GLOB" */
} fn_patterns;

typedef struct collect_options {
    const char *db_path;
    const char *block_sizes;       /* --block-sizes as given, for the tool */
    uint32_t block_size[PROFILE_MAX_BLOCK_SIZES]; /* ... parsed */
    int nblock_sizes;
    const char *keep_dir;
    run_params params;
    char **program_argv;
    int instr_at_start;      /* --instr-at-start: 1 yes, 0 no */
    int by_callsite;         /* --interval-by callsite */
    fn_patterns region_fns, interval_fns;
    uint32_t sample_threshold; /* --sample-rd RATE: RATE * RD_SAMPLE_MODULUS, rounded; 0: exact */
    const char *analysis;      /* --analysis pipe|inline|auto */
    const char *set_counts;    /* --set-counts as given (NULL: the default), for the tool */
    uint32_t set_count[RD_MAX_SET_COUNTS]; /* ... parsed; none: nset_counts 0 */
    unsigned nset_counts;
} collect_options;

/* The set counts measured by default: the L1's and L2's of the machines
 * shipped (the machines/ descriptions at 64-byte lines: 64 sets for every x86 L1,
 * 1024 and 2048 for the L2s; Neoverse V1's L1 has 256). */
#define DEFAULT_SET_COUNTS "64,1024,2048"

/* What the start message promises (docs/benchmarks.md, "Small runs"; measured
 * with bench/collect_small.sh on the bench kernels at training sizes, and on
 * dense at 1200 with one and two block sizes): a fixed cost, Valgrind's start
 * on the loader's and libc's code and the profile's store, then a multiple of
 * the program's native time that grows with the memory accesses per
 * instruction (least for a pointer chase, which waits on memory natively
 * too; most for a matrix multiply's inner loop) and with the engines run
 * on every access that leaves the last block touched: one per block size,
 * and one per set count, which costs about a third of a block size's
 * (docs/benchmarks.md, "Where collect's and memspy's CPU goes": 0.07-0.21 s
 * of CPU each on dense 300 and stencil 1000 10, against 0.35-0.67 s a block
 * size). */
#define COLLECT_FIXED_SECONDS 1.5
static int slowdown_low(int nblock_sizes, int nset_counts)
{
    return 5 + 3 * nblock_sizes + nset_counts; /* chase 20000-200000: 7, 9, 16 with 1, 2, 4 block sizes, no set count */
}
static int slowdown_high(int nblock_sizes, int nset_counts)
{
    /* dense 1200: 86 and 128 with 1 and 2 block sizes; triad 200000: 103 with 4 (measured without set counts) */
    return 40 + 45 * nblock_sizes + 15 * nset_counts;
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: augur collect [--db FILE] [--param NAME=VALUE]... [--block-sizes 64,4096]\n"
            "                     [--keep-profiles DIR] [--instr-at-start yes|no] [--region-function GLOB]...\n"
            "                     [--interval-functions GLOB[,GLOB...]] [--interval-by index|callsite]\n"
            "                     [--sample-rd RATE] [--set-counts LIST|none] [--analysis pipe|inline|auto]\n"
            "                     -- PROGRAM [ARGS...]\n\n"
            "Runs PROGRAM under augur's Valgrind tool (expect about %.1f s, then %d-%dx the native\n"
            "time with the default block sizes and set counts: docs/benchmarks.md, \"Small runs\") and\n"
            "stores, as one run in the experiment database: the exact execution count of every\n"
            "instruction, taken counts of conditional branches, indirect-branch targets, and for\n"
            "every instruction that touches memory a reuse-distance histogram per block size.\n\n"
            "options:\n"
            "  --db FILE            experiment database (default: $AUGUR_DB or ./augur.db)\n"
            "  --param NAME=VALUE   a numeric run parameter, e.g. --param N=1000; repeat for more.\n"
            "                       Models (augur model) are fitted over these.\n"
            "  --block-sizes LIST   reuse-distance block sizes in bytes, ascending powers of two\n"
            "                       from 8 to 2^30, at most 8 (default: 64,4096: cache lines and pages)\n"
            "  --sample-rd RATE     reuse distances of a sample of the blocks, about RATE of them\n"
            "                       (0 < RATE <= 1; SHARDS), scaled to the whole run: for runs too\n"
            "                       long to measure exactly (instruction counts stay exact; 1: exact)\n"
            "  --set-counts LIST|none  set-local reuse distances per memory instruction at these set\n"
            "                       counts of 64-byte lines (ascending powers of two, at most 4), for\n"
            "                       misses of set-associative caches exactly (augur report --machine);\n"
            "                       default " DEFAULT_SET_COUNTS " (none with --sample-rd or without 64 as\n"
            "                       the smallest block size)\n"
            "  --analysis pipe|inline|auto  where the reuse distances are measured: in a process of\n"
            "                       augur's beside Valgrind, on another core (pipe), or in Valgrind's\n"
            "                       process (inline); the same profile either way.  auto (the default):\n"
            "                       pipe when this process may use three cores or more\n"
            "  --keep-profiles DIR  also keep the raw profiles (docs/profile-format.md) in a new\n"
            "                       folder DIR/augur-collect-XXXXXX of the run (named at the end)\n"
            "  --instr-at-start yes|no  count from the start (yes), or only once the program asks\n"
            "                       (CALLGRIND_START_INSTRUMENTATION of <valgrind/callgrind.h>); the\n"
            "                       program's STOP_INSTRUMENTATION and ZERO_STATS are obeyed either way\n"
            "  --region-function GLOB  count only inside calls of the functions GLOB names (* and ?\n"
            "                       as in a shell; repeat for more)\n"
            "  --interval-functions GLOB[,GLOB...]  each call of a function named (e.g. 'MPI_*') ends an\n"
            "                       interval, as the program's DUMP_STATS does; the calls themselves are\n"
            "                       not counted.  Each interval is stored as a run of its own\n"
            "                       (augur report --interval lists them)\n"
            "  --interval-by index|callsite  one run per interval (index, the default), or per call\n"
            "                       site that closes intervals: the phases of a time-stepping loop\n"
            "  -h, --help           this text\n\n"
            "The program's output and exit status pass through: augur exits with the program's\n"
            "status (128+N if it died of signal N, its profile then stored as 'partial').\n"
            "SIGINT, SIGTERM, SIGHUP or SIGQUIT sent to augur is passed on to the program; a second\n"
            "one kills it at once (SIGKILL: nothing stored).\n"
            "augur's own failures exit with 125, a program not found with 127, not executable 126.\n"
            "Child processes are followed; each writes a profile of its own, stored in the same run.\n"
            "An MPI program runs as mpirun -np P augur collect ... -- PROGRAM: one run per launch,\n"
            "a profile per rank, P a parameter, the MPI calls recorded (docs/user-guide.md, \"MPI programs\").\n\n"
            "example:\n"
            "  augur collect --db mm.db --param N=200 -- ./matmul 200\n"
            "  augur report --db mm.db --cache 32K --cache 1M\n",
            COLLECT_FIXED_SECONDS, slowdown_low(2, 3), slowdown_high(2, 3)); /* 64,4096 and DEFAULT_SET_COUNTS */
}

static int fail(int code, const char *fmt, const char *detail)
{
    fprintf(stderr, "augur collect: ");
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    return code;
}

/* --block-sizes: a comma-separated list of at most PROFILE_MAX_BLOCK_SIZES
 * ascending powers of two from RD_MIN_BLOCK_SIZE to RD_MAX_BLOCK_SIZE,
 * decimal (util/parse.h: no blanks, signs or empty items), checked here so
 * that the tool, which takes the same, never refuses it after Valgrind has
 * started.  The sizes into sizes[], their number into *n; 0, or -1 with the
 * message. */
static int parse_block_sizes(const char *list, uint32_t *sizes, int *n_out, char *err, size_t errlen)
{
    char item[32];
    uint64_t prev = 0;
    int n = 0;
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        uint64_t v = 0;
        int ok = len > 0 && len < sizeof item;
        if (ok) {
            memcpy(item, p, len);
            item[len] = '\0';
            ok = parse_u64(item, &v) == 0 && v >= RD_MIN_BLOCK_SIZE && v <= RD_MAX_BLOCK_SIZE && !(v & (v - 1)) &&
                 v > prev && ++n <= PROFILE_MAX_BLOCK_SIZES;
        }
        if (!ok) {
            snprintf(err, errlen,
                     "--block-sizes '%s': give ascending powers of two from %u to %u (1 GiB), at most %d, separated "
                     "by commas (e.g. 64,4096)",
                     list, RD_MIN_BLOCK_SIZE, RD_MAX_BLOCK_SIZE, PROFILE_MAX_BLOCK_SIZES);
            return -1;
        }
        sizes[n - 1] = (uint32_t)v;
        prev = v;
        p += len;
        if (!*p) {
            *n_out = n;
            return 0;
        }
    }
}

/* --sample-rd RATE: a number in (0, 1] into *threshold, RATE *
 * RD_SAMPLE_MODULUS rounded (0 at RATE 1: every block, no sampling).  0, or
 * -1 with the message. */
static int parse_sample_rate(const char *text, uint32_t *threshold, char *err, size_t errlen)
{
    double rate;
    if (parse_double(text, &rate) != 0 || !(rate > 0 && rate <= 1)) {
        snprintf(err, errlen, "--sample-rd '%s': give the share of blocks to sample, a number above 0 and at most 1 "
                 "(e.g. 0.1; 1 measures every block)", text);
        return -1;
    }
    double t = rate * RD_SAMPLE_MODULUS + 0.5;
    if (t < 1) {
        snprintf(err, errlen, "--sample-rd '%s': below the smallest rate, 2^-24 (%.3g): give a larger one", text,
                 1.0 / RD_SAMPLE_MODULUS);
        return -1;
    }
    *threshold = t >= RD_SAMPLE_MODULUS ? 0 : (uint32_t)t;
    return 0;
}

/* Add the patterns of `list` (GLOB[,GLOB...]) as the tool's `tool_opt`.
 * 0, or -1 with the message. */
static int add_patterns(fn_patterns *p, const char *option, const char *tool_opt, const char *list, int split,
                        char *err, size_t errlen)
{
    for (const char *s = list;;) {
        size_t len = split ? strcspn(s, ",") : strlen(s);
        if (len == 0 || strcspn(s, " \t\n") < len) {
            snprintf(err, errlen, "%s '%s': give function names or glob patterns (e.g. 'MPI_*'), not empty, "
                     "without blanks%s", option, list, split ? ", separated by commas" : "");
            return -1;
        }
        if (p->n == MAX_FN_PATTERNS) {
            snprintf(err, errlen, "%s: more than %d patterns", option, MAX_FN_PATTERNS);
            return -1;
        }
        if (asprintf(&p->opt[p->n], "%s=%.*s", tool_opt, (int)len, s) < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        p->n++;
        s += len;
        if (!*s)
            return 0;
        s++;
    }
}

static void fn_patterns_free(fn_patterns *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->opt[i]);
    p->n = 0;
}

/* An option of the regions and intervals (a, with its value); 0, 1 when
 * `a` is none of them, or -1 with the message. */
static int region_option(collect_options *o, const char *a, const char *value, char *err, size_t errlen)
{
    if (!strcmp(a, "--region-function"))
        return add_patterns(&o->region_fns, a, "--augur-region-fn", value, 0, err, errlen);
    if (!strcmp(a, "--interval-functions"))
        return add_patterns(&o->interval_fns, a, "--augur-interval-fn", value, 1, err, errlen);
    if (!strcmp(a, "--instr-at-start") || !strcmp(a, "--interval-by")) {
        int second = !strcmp(a, "--instr-at-start") ? !strcmp(value, "no") : !strcmp(value, "callsite");
        int first = !strcmp(a, "--instr-at-start") ? !strcmp(value, "yes") : !strcmp(value, "index");
        if (!first && !second) {
            snprintf(err, errlen, "%s '%s': give %s", a, value,
                     !strcmp(a, "--instr-at-start") ? "yes or no" : "index or callsite");
            return -1;
        }
        if (!strcmp(a, "--instr-at-start"))
            o->instr_at_start = first;
        else
            o->by_callsite = second;
        return 0;
    }
    return 1;
}

/* --set-counts (after --block-sizes and --sample-rd): the list, or none;
 * without the option the default where the histograms are exact and 64
 * bytes the smallest block size, else none.  0, or -1 with the reason. */
static int parse_set_counts(collect_options *o, char *err, size_t errlen)
{
    int fits = !o->sample_threshold && o->block_size[0] == 1u << RD_SET_LINE_SHIFT;
    if (!o->set_counts)
        o->set_counts = fits ? DEFAULT_SET_COUNTS : "none";
    o->nset_counts = 0;
    if (!strcmp(o->set_counts, "none"))
        return 0;
    if (rd_sets_parse(o->set_counts, o->set_count, &o->nset_counts) != 0) {
        snprintf(err, errlen, "--set-counts '%s': give none or ascending powers of two from 1 to %u, at most %u "
                 "(e.g. %s)", o->set_counts, RD_MAX_SETS, RD_MAX_SET_COUNTS, DEFAULT_SET_COUNTS);
        return -1;
    }
    if (!fits) {
        snprintf(err, errlen, "--set-counts %s needs exact histograms (no --sample-rd) and 64 as the smallest of "
                 "--block-sizes: give --set-counts none", o->set_counts);
        return -1;
    }
    return 0;
}

/* Returns 0 to go on, or an exit status (0 for --help). */
static int parse_options(int argc, char **argv, collect_options *o, int *done)
{
    char err[512];
    *done = 0;
    o->db_path = default_db_path();
    o->block_sizes = "64,4096";
    o->instr_at_start = 1;
    o->analysis = "auto";
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            *done = 1;
            return 0;
        }
        if (a[0] != '-')
            break; /* the program */
        int takes_value = !strcmp(a, "--db") || !strcmp(a, "--param") || !strcmp(a, "--block-sizes") ||
                          !strcmp(a, "--keep-profiles") || !strcmp(a, "--instr-at-start") ||
                          !strcmp(a, "--region-function") || !strcmp(a, "--interval-functions") ||
                          !strcmp(a, "--interval-by") || !strcmp(a, "--sample-rd") || !strcmp(a, "--analysis") ||
                          !strcmp(a, "--set-counts");
        if (!takes_value) {
            fprintf(stderr, "augur collect: unknown option '%s' (see augur collect --help)\n", a);
            *done = 1;
            return 2;
        }
        if (!value || !strcmp(value, "--")) { /* `--db -- ./prog`: the value was forgotten */
            fprintf(stderr, "augur collect: %s needs a value%s (see augur collect --help)\n", a,
                    value ? ", not '--' (which ends the options)" : "");
            *done = 1;
            return 2;
        }
        i++;
        int rc = region_option(o, a, value, err, sizeof err);
        if (rc < 0) {
            *done = 1;
            return fail(2, "%s", err);
        }
        if (rc == 0)
            continue;
        if (!strcmp(a, "--db"))
            o->db_path = value;
        else if (!strcmp(a, "--block-sizes"))
            o->block_sizes = value;
        else if (!strcmp(a, "--keep-profiles"))
            o->keep_dir = value;
        else if (!strcmp(a, "--set-counts"))
            o->set_counts = value;
        else if (!strcmp(a, "--analysis")) {
            if (strcmp(value, "pipe") && strcmp(value, "inline") && strcmp(value, "auto")) {
                *done = 1;
                return fail(2, "--analysis '%s': give pipe (a process beside Valgrind), inline (in Valgrind's) or "
                               "auto (pipe on three cores or more)", value);
            }
            o->analysis = value;
        }
        else if (!strcmp(a, "--sample-rd") ? parse_sample_rate(value, &o->sample_threshold, err, sizeof err) != 0
                                           : run_params_add(&o->params, value, err, sizeof err) != 0) {
            *done = 1;
            return fail(2, "%s", err);
        }
    }
    if (o->by_callsite && o->interval_fns.n == 0) {
        *done = 1;
        return fail(2, "%s", "--interval-by callsite needs --interval-functions GLOB (the functions whose calls end "
                             "intervals)");
    }
    if (parse_block_sizes(o->block_sizes, o->block_size, &o->nblock_sizes, err, sizeof err) != 0 ||
        parse_set_counts(o, err, sizeof err) != 0) {
        *done = 1;
        return fail(2, "%s", err);
    }
    if (i >= argc) {
        fprintf(stderr, "augur collect: no program given (augur collect [OPTIONS] -- PROGRAM [ARGS...])\n");
        *done = 1;
        return 2;
    }
    o->program_argv = argv + i;
    return 0;
}

/* The database must be sound and writable before we spend minutes running
 * the program (db_check); a new database is only created at import, so
 * failures leave no file. */
static int check_database(const char *path, char *err, size_t errlen)
{
    if (access(path, F_OK) == 0) {
        db *d;
        if (db_open(path, 0, &d, err, errlen) != 0)
            return -1;
        int rc = db_check(d, err, errlen);
        db_close(d);
        if (rc != 0)
            return -1;
        if (access(path, W_OK) != 0) {
            snprintf(err, errlen, "database %s is not writable: %s", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash == dir ? (void)(dir[1] = '\0') : (void)(*slash = '\0');
    else
        snprintf(dir, sizeof dir, ".");
    if (access(dir, W_OK) != 0) {
        snprintf(err, errlen, "cannot create database %s: folder %s is not writable (%s); choose another --db",
                 path, dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* The run's private folder (run_dir.h), its path in dir: in --keep-profiles
 * DIR (created if missing), or in the temporary folder. */
static int make_out_dir(const collect_options *o, char *dir, size_t len, char *err, size_t errlen)
{
    if (!o->keep_dir)
        return run_dir_make(NULL, "temporary folder", "augur-collect", dir, len, err, errlen);
    struct stat st;
    if (mkdir(o->keep_dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create --keep-profiles folder %s: %s", o->keep_dir, strerror(errno));
        return -1;
    }
    if (stat(o->keep_dir, &st) == 0 && !S_ISDIR(st.st_mode)) { /* EEXIST: it may be a file */
        snprintf(err, errlen, "--keep-profiles %s is a file, not a folder; give a folder", o->keep_dir);
        return -1;
    }
    return run_dir_make(o->keep_dir, "--keep-profiles folder", "augur-collect", dir, len, err, errlen);
}

/* A new random mark for the run's profiles (--augur-run): 16 hex digits. */
static int make_run_token(char token[17], char *err, size_t errlen)
{
    uint64_t r;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
        snprintf(err, errlen, "cannot draw a random number for the run: %s", strerror(errno));
        return -1;
    }
    snprintf(token, 17, "%016llx", (unsigned long long)r);
    return 0;
}

/* The run's status detail for the database: "" for exit 0, "exited with
 * status N" for another exit, "killed by signal N (SIGNAME)" for a death. */
static void describe_status(const launch_result *lr, char *detail, size_t len)
{
    char sig[48];
    if (lr->exited)
        exit_detail(lr->exit_code, detail, len);
    else
        snprintf(detail, len, "killed by %s", report_signal_text(lr->term_signal, sig, sizeof sig));
}

/* Why nothing was stored when the profiles could not be read (err), with
 * Valgrind's last words; returns the exit status: 128 + the signal that
 * killed the program before it wrote its profile, else 125. */
static int nothing_stored(const launch_result *lr, const char *out_dir, const char *err)
{
    char tail[2048], sig[48];
    valgrind_log_tail(out_dir, tail, sizeof tail);
    if (lr->exited)
        fprintf(stderr, "augur collect: %s; nothing was stored.\n", err);
    else
        fprintf(stderr, "augur collect: the program was killed by %s before the collector wrote its profile; "
                        "nothing was stored.\n", report_signal_text(lr->term_signal, sig, sizeof sig));
    fprintf(stderr, "%s%s", tail[0] ? "  Valgrind said:\n" : "", tail);
    return lr->exited ? EXIT_AUGUR_FAILED : 128 + lr->term_signal;
}

/* Warn of each --region-function and --interval-functions pattern that
 * named no function the main process entered (the profile's counts). */
static void warn_unmatched_patterns(const profile *p)
{
    const prof_regions *g = &p->regions;
    for (int i = 0; i < g->nregion_fns; i++)
        if (!g->region_fns[i].entries)
            fprintf(stderr, "augur: warning: --region-function '%s' matched no function the program called: nothing "
                    "was counted (check the name: augur report lists the functions of a run without it)\n",
                    g->region_fns[i].glob);
    for (int i = 0; i < g->ninterval_fns; i++)
        if (!g->interval_fns[i].entries)
            fprintf(stderr, "augur: warning: --interval-functions '%s' matched no function the program called: it "
                    "closed no interval\n", g->interval_fns[i].glob);
}

/* Whether the reuse distances are measured in the consumer (--analysis;
 * rdpipe_wanted says why auto wants three cores: on two the pipe was
 * measured slower and 1.25-1.4x the CPU of inline). */
static int use_pipe(const collect_options *o)
{
    return rdpipe_wanted(o->analysis);
}

/* The consumer's engines: o's block sizes and sampling. */
static rdpipe_config pipe_config(const collect_options *o)
{
    rdpipe_config cfg = {(unsigned)o->nblock_sizes, {0}, o->sample_threshold, o->nset_counts, {0}};
    memcpy(cfg.block_size, o->block_size, (size_t)o->nblock_sizes * sizeof *o->block_size);
    memcpy(cfg.set_count, o->set_count, o->nset_counts * sizeof *o->set_count);
    return cfg;
}

/* Runs the program and stores its run; returns augur's exit status.  The
 * tool marks its profiles with `token`, and only those are read. */
static int collect(collect_options *o, const collect_mpi *mpi, const char *tool_dir, const char *out_dir,
                   const char *token)
{
    char err[2048], started[32], detail[128];
    iso_now(started, sizeof started);
    int nbs = o->nblock_sizes, nsc = (int)o->nset_counts;
    fprintf(stderr,
            "augur: collecting %s under Valgrind (expect about %.1f s to start and store, then %d-%dx the program's "
            "native time with %d block size%s and %d set count%s: the high end for code dense in memory "
            "accesses)...\n",
            o->program_argv[0], COLLECT_FIXED_SECONDS, slowdown_low(nbs, nsc), slowdown_high(nbs, nsc), nbs,
            nbs == 1 ? "" : "s", nsc, nsc == 1 ? "" : "s");
    char out_opt[PATH_MAX + 32], run_opt[64], bs_opt[256], progress_opt[48], sample_opt[48], sets_opt[96];
    snprintf(out_opt, sizeof out_opt, "--augur-out=%s", out_dir);
    snprintf(run_opt, sizeof run_opt, "--augur-run=%s", token);
    snprintf(bs_opt, sizeof bs_opt, "--augur-block-sizes=%s", o->block_sizes);
    /* the tool's progress lines as often as augur shows them (launch.c) */
    snprintf(progress_opt, sizeof progress_opt, "--augur-progress-ms=%d", 1000 * launch_progress_seconds());
    char *tool_args[9 + 2 * MAX_FN_PATTERNS] = {out_opt, run_opt, bs_opt, progress_opt};
    int nargs = 4;
    if (!o->instr_at_start)
        tool_args[nargs++] = "--instr-at-start=no";
    if (o->by_callsite)
        tool_args[nargs++] = "--augur-interval-by=callsite";
    if (o->nset_counts) {
        snprintf(sets_opt, sizeof sets_opt, "--augur-set-counts=%s", o->set_counts);
        tool_args[nargs++] = sets_opt;
    }
    if (o->sample_threshold) {
        snprintf(sample_opt, sizeof sample_opt, "--augur-sample-rd=%u", o->sample_threshold);
        tool_args[nargs++] = sample_opt;
    }
    for (int k = 0; k < o->region_fns.n; k++)
        tool_args[nargs++] = o->region_fns.opt[k];
    for (int k = 0; k < o->interval_fns.n; k++)
        tool_args[nargs++] = o->interval_fns.opt[k];
    rdpipe pipe = {0, {-1, -1, -1}, {0, 0, 0}, NULL};
    char channel_opt[128];
    if (use_pipe(o)) {
        rdpipe_config cfg = pipe_config(o);
        if (rdpipe_start(&pipe, &cfg, err, sizeof err) != 0)
            return fail(EXIT_AUGUR_FAILED, "%s", err);
        rdpipe_tool_option(&pipe, channel_opt, sizeof channel_opt);
        tool_args[nargs++] = channel_opt;
    }
    launch_request rq = {o->program_argv, out_dir, "augur", tool_args, 1, "collecting", 0, "collector: progress: ",
                         mpi->preload[0] ? mpi->preload : NULL, pipe.tool_fd, pipe.pid ? 3 : 0, rdpipe_tool_started, &pipe};
    launch_result lr;
    int launched = launch_tool(&rq, tool_dir, &lr, err, sizeof err);
    char pipe_err[256];
    int pipe_rc = rdpipe_finish(&pipe, pipe_err, sizeof pipe_err);
    if (launched != 0)
        return fail(EXIT_AUGUR_FAILED, "%s", err);
    if (pipe_rc != 0)
        return fail(EXIT_AUGUR_FAILED, "%s; nothing was stored (augur collect --analysis inline measures without it)",
                    pipe_err);
    if (!lr.exited && lr.term_signal == SIGILL && diagnose_undecodable(out_dir, err, sizeof err))
        return fail(EXIT_AUGUR_FAILED, "%s\n  Nothing was stored.", err);
    process_set *s = calloc(1, sizeof *s);
    if (process_set_read_dir(s, out_dir, lr.pid, token, err, sizeof err) != 0) {
        free(s);
        return nothing_stored(&lr, out_dir, err);
    }
    s->by_callsite = o->by_callsite;
    s->mpi_launch = mpi->launched ? mpi->launch : NULL;
    if (collect_mpi_check(mpi, s, &o->params, o->program_argv[0], err, sizeof err) != 0) {
        process_set_free(s);
        free(s);
        return fail(EXIT_AUGUR_FAILED, "%s; nothing was stored", err);
    }
    warn_unmatched_patterns(s->procs[0]);
    describe_status(&lr, detail, sizeof detail);
    run_outcome outcome = {
        .started = started,
        .status = lr.exited ? "complete" : "partial",
        .detail = detail,
        .exit_code = lr.exited ? lr.exit_code : 128 + lr.term_signal,
    };
    int64_t run_id = 0;
    int rc = store_run(o->db_path, o->program_argv, &o->params, &outcome, s, "collect", &run_id);
    if (rc == 0)
        collect_store_structure(o->db_path, run_id);
    if (rc == 0 && !lr.exited)
        fprintf(stderr, "augur: the program was %s; its partial profile is stored\n", detail);
    if (rc == 0 && lr.exited && lr.exit_code != 0)
        fprintf(stderr, "augur: the program %s; augur exits with the program's status, not an error of its own. "
                        "augur model leaves the run out unless given --include-failed\n", detail);
    process_set_free(s);
    free(s);
    return rc != 0 ? rc : outcome.exit_code;
}

/* Compares program with the builds db_path holds (collect_check_build) and
 * prints its notice, one wrapped line per line; returns 0, or -1 with err set
 * when the database refuses the program's build. */
static int check_build(const char *db_path, const char *program, char *err, size_t errsz)
{
    char notice[4096];
    if (collect_check_build(db_path, program, notice, sizeof notice, err, errsz) != 0)
        return -1;
    for (char *line = notice[0] ? notice : NULL, *next; line; line = next) {
        if ((next = strchr(line, '\n')))
            *next++ = '\0';
        report_print_wrapped(stderr, "augur:", line, 100);
    }
    return 0;
}

/* Checks what o names and runs the program; returns augur's exit status. */
static int check_and_collect(collect_options *o)
{
    char err[1024], program[PATH_MAX], out_dir[PATH_MAX], token[17];
    int prc = find_program(o->program_argv[0], program, sizeof program, err, sizeof err);
    if (prc != 0)
        return fail(prc, "%s", err);
    /* A bare name found in PATH runs by the path found, so that the stored
     * `exe` names the executable module (db_exe_module: no PATH lookup later). */
    if (!strchr(o->program_argv[0], '/'))
        o->program_argv[0] = program;
    const char *tool_dir = find_tool_dir("augur", err, sizeof err);
    if (!tool_dir)
        return fail(EXIT_AUGUR_FAILED, "%s", err);
    if (check_database(o->db_path, err, sizeof err) != 0)
        return fail(EXIT_AUGUR_FAILED, "%s", err);
    collect_mpi mpi;
    int mrc = collect_mpi_prepare(&mpi, program, tool_dir, &o->params, err, sizeof err);
    if (mrc != 0)
        return fail(mrc, "%s", err);
    if (check_build(o->db_path, program, err, sizeof err) != 0)
        return fail(EXIT_AUGUR_FAILED, "%s", err);
    if (make_run_token(token, err, sizeof err) != 0 || make_out_dir(o, out_dir, sizeof out_dir, err, sizeof err) != 0)
        return fail(EXIT_AUGUR_FAILED, "%s", err);
    int rc = collect(o, &mpi, tool_dir, out_dir, token);
    run_dir_finish(out_dir, o->keep_dir != NULL);
    if (o->keep_dir)
        fprintf(stderr, "augur: raw profiles kept in %s\n", out_dir);
    return rc;
}

/* Frees what parse_options allocated in o, also when it refused an option. */
static void collect_options_free(collect_options *o)
{
    run_params_free(&o->params);
    fn_patterns_free(&o->region_fns);
    fn_patterns_free(&o->interval_fns);
}

int cmd_collect(int argc, char **argv)
{
    collect_options o = {0};
    int done;
    int rc = parse_options(argc, argv, &o, &done);
    if (!done)
        rc = check_and_collect(&o);
    collect_options_free(&o);
    return rc;
}
