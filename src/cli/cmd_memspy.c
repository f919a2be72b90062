/* cmd_memspy.c — `augur memspy`: run a program under the memspy Valgrind
 * tool with a machine's cache hierarchy and print the MemSpy report: where
 * misses come from and why, by code and by data (docs/memspy.md).
 *
 * Order of work: check the options, --output, the machine, the program and
 * the tool;
 * run; read the raw file of the main process (memspy_read refuses a
 * damaged one); build and print the report (--output: output_file.h, a
 * failure leaves no half report); exit with the program's own status. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary/elf_static.h"
#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/options.h"
#include "cli/output_file.h"
#include "cli/run_dir.h"
#include "cli/runs.h"
#include "machine/machine.h"
#include "memspy_report/memspy_loops.h"
#include "memspy_report/memspy_report.h"
#include "rdpipe/rdpipe.h"
#include "rdpipe/spy_consumer.h"
#include "report/report.h"
#include "util/parse.h"

/* References per time sample: seed 001's 0.5 M, long enough to warm
 * 16-128 KB caches (MemSpy's error stayed within 0.3 points there). */
#define SAMPLE_ON 500000

enum format { FORMAT_TEXT, FORMAT_JSON, FORMAT_CALLGRIND };

typedef struct memspy_options {
    const char *machine;  /* NULL: this host, as `augur machine detect` sees it */
    double ratio;         /* simulated share of references, (0, 1] */
    int by_sets;          /* sample sets instead of time */
    unsigned long shadow; /* --shadow-sample: 1 line in `shadow` splits capacity/conflict */
    int interleave;       /* merge threads' buffered references (the tool's default) */
    int instr_at_start;   /* simulate from the start; 0: only inside the program's regions */
    enum format format;
    const char *output;   /* NULL: stdout */
    const char *raw;      /* --raw FILE: report this raw file, run nothing */
    const char *keep_raw; /* --keep-raw FILE: keep the run's raw file there */
    int dry_run;          /* print the Valgrind command, run nothing */
    num_style numbers;    /* --plain-numbers: text counts without separators */
    size_t top;           /* rows per ranked list in text; 0: all */
    int show_startup;     /* list the loader's and C runtime's start-up code and its data too */
    const char *analysis; /* --analysis pipe|inline|auto: where the simulator runs */
    unsigned sim_threads; /* --sim-threads N: the pipe's simulator threads; 0: by the cores */
    char **program_argv;
} memspy_options;

static void usage(FILE *to)
{
    fprintf(to,
            "usage: augur memspy [--machine NAME|FILE] [--sample RATIO [--sample-by sets|time]]\n"
            "                    [--shadow-sample N] [--interleave yes|no] [--instr-at-start yes|no]\n"
            "                    [--format text|json|callgrind] [--plain-numbers] [--output FILE]\n"
            "                    [--analysis pipe|inline|auto] [--keep-raw FILE] [--dry-run] [--top N]\n"
            "                    [--show-startup] -- PROGRAM [ARGS...]\n"
            "       augur memspy [--machine NAME|FILE] [--format F] [--plain-numbers] [--output FILE] [--top N]\n"
            "                    [--show-startup] --raw FILE\n\n"
            "Runs PROGRAM under the memspy Valgrind tool, which simulates the machine's data caches\n"
            "(set-associative LRU, private levels per thread, shared levels shared) and reports, for\n"
            "every data object (heap blocks by allocation stack, globals, stacks), every function,\n"
            "loop and source line, and every (function, data object) pair: references, misses per\n"
            "level, their causes (cold, capacity, conflict, true and false sharing), who replaced\n"
            "whose lines, and stall cycles from the machine's latencies, ranked by stall.\n\n"
            "options:\n"
            "  --machine NAME|FILE  machine description (machines/NAME.yaml); default: this host, as\n"
            "                       'augur machine detect' describes it (its caches, from hwloc)\n"
            "  --sample RATIO       simulate this share of references, 0 < RATIO <= 1 (default 1);\n"
            "                       counts are scaled and shown with the error bounds sampling implies\n"
            "  --sample-by sets     (default) set sampling: one set in 2^k (ratio rounded; k at most\n"
            "                       log2 of the smallest level's sets); counts times 2^k, within\n"
            "                       0.2 points of full simulation in the benchmark, bounds from the\n"
            "                       spread of 16 groups of the sampled lines; small objects may be\n"
            "                       missed\n"
            "  --sample-by time     time sampling: %d references on, then off (seed 001); every\n"
            "                       object is sampled, bounds from unknown references; off by 1-3\n"
            "                       points at L2/L3 when samples are too short to warm them\n"
            "  --shadow-sample N    tell capacity from conflict on 1 line in N (a power of two, by a\n"
            "                       hash of the line), the rest apportioned by that split, stated with\n"
            "                       its 95%% interval; misses, cold and sharing stay exact (default 1:\n"
            "                       every miss split)\n"
            "  --interleave yes|no  yes (default): simulate the threads' references interleaved\n"
            "                       evenly between synchronizations, as if they ran at once; no:\n"
            "                       in Valgrind's order (one thread at a time, long stretches)\n"
            "  --instr-at-start yes|no\n"
            "                       yes (default): simulate from the start; no: only between the\n"
            "                       program's CALLGRIND_START_INSTRUMENTATION and _STOP_ (from\n"
            "                       <valgrind/callgrind.h>; Cachegrind's CACHEGRIND_* too), which are\n"
            "                       obeyed either way; outside them the program runs as fast as\n"
            "                       under valgrind --tool=none and nothing is counted\n"
            "  --analysis pipe|inline|auto\n"
            "                       where the simulator runs: in a process of augur's beside\n"
            "                       Valgrind, on another core (pipe), or in Valgrind's process\n"
            "                       (inline); the same report either way.  auto (the default): pipe\n"
            "                       when this process may use three cores or more\n"
            "  --sim-threads N      with the pipe: simulate the levels below the first on threads\n"
            "                       of their own, N threads in all (1 to 4; the same counts).\n"
            "                       Default: 1 on up to two cores, else one per core beyond the\n"
            "                       program's, at most one per level\n"
            "  --format F           text (default), json, or callgrind (for callgrind_annotate and\n"
            "                       KCachegrind: one event per level and cause)\n"
            "  --plain-numbers      text: counts without thousands separators (1234567, not\n"
            "                       1,234,567), for scripts\n"
            "  --top N              rows per ranked list of the text (default %d; 0 shows every row);\n"
            "                       JSON and callgrind keep every row\n"
            "  --show-startup       also list the dynamic loader's and the C runtime's start-up and exit\n"
            "                       code and the data only it uses, which the text and JSON leave out\n"
            "                       by default and sum in one line\n"
            "  --output FILE        write the report to FILE instead of standard output; without it the\n"
            "                       program's standard output is sent to standard error (give --output\n"
            "                       to keep the program's output on standard output)\n"
            "  --raw FILE           report a raw file the tool wrote (docs/memspy-format.md), run nothing;\n"
            "                       --machine gives the latencies\n"
            "  --keep-raw FILE      also keep the run's raw file in FILE, so that --raw FILE reports it\n"
            "                       again (another --format, another machine's latencies) without\n"
            "                       running the program again\n"
            "  --dry-run            print the Valgrind command the run would be (DIR: the folder the\n"
            "                       tool writes to) and run nothing\n"
            "  -h, --help           this text\n\n"
            "augur exits with the program's status; with 125 when augur itself failed, 127 when the\n"
            "program is not found, 126 when it cannot run, 2 for a bad command line.\n\n"
            "example:\n"
            "  augur memspy --machine zen4 -- ./matmul 256\n",
            SAMPLE_ON, MR_DEFAULT_TOP);
}

static int fail(int code, const char *msg)
{
    fprintf(stderr, "augur memspy: %s\n", msg);
    return code;
}

/* A yes|no option's value into *out (1 for yes); a usage error naming the
 * option otherwise. */
static int yes_no(const char *option, const char *arg, int *out)
{
    if (strcmp(arg, "yes") && strcmp(arg, "no"))
        return cli_usage_error("memspy", "--%s '%s': give yes or no", option, arg);
    *out = !strcmp(arg, "yes");
    return 0;
}

static int take_option(int opt, const char *arg, void *ctx)
{
    memspy_options *o = ctx;
    switch (opt) {
    case 'm':
        o->machine = arg;
        return 0;
    case 's':
        if (parse_double(arg, &o->ratio) != 0 || !(o->ratio > 0 && o->ratio <= 1))
            return cli_usage_error("memspy", "--sample '%s': give a ratio in (0, 1], such as 0.1", arg);
        return 0;
    case 'b':
        if (strcmp(arg, "time") && strcmp(arg, "sets"))
            return cli_usage_error("memspy", "--sample-by '%s': give time or sets", arg);
        o->by_sets = !strcmp(arg, "sets");
        return 0;
    case 'f':
        if (!strcmp(arg, "text"))
            o->format = FORMAT_TEXT;
        else if (!strcmp(arg, "json"))
            o->format = FORMAT_JSON;
        else if (!strcmp(arg, "callgrind"))
            o->format = FORMAT_CALLGRIND;
        else
            return cli_usage_error("memspy", "--format '%s': give text, json or callgrind", arg);
        return 0;
    case 'r':
        o->raw = arg;
        return 0;
    case 'n':
        o->dry_run = 1;
        return 0;
    case 'k':
        o->keep_raw = arg;
        return 0;
    case 'S':
        if (parse_u64(arg, &o->shadow) != 0 || o->shadow == 0 || (o->shadow & (o->shadow - 1)) || o->shadow > 1ul << 30)
            return cli_usage_error("memspy", "--shadow-sample '%s': give a power of two N >= 1, such as 8 "
                                             "(1: every miss split exactly)", arg);
        return 0;
    case 'i':
        return yes_no("interleave", arg, &o->interleave);
    case 'a':
        return yes_no("instr-at-start", arg, &o->instr_at_start);
    case 'P':
        o->numbers = NUM_PLAIN;
        return 0;
    case 't':
        return cli_take_top("memspy", arg, &o->top);
    case 'u':
        o->show_startup = 1;
        return 0;
    case 'T': {
        char *end;
        long n = strtol(arg, &end, 10);
        if (*end || end == arg || n < 1 || n > CS_MAX_LEVELS)
            return cli_usage_error("memspy", "--sim-threads '%s': give a number of threads from 1 to %d", arg,
                                   CS_MAX_LEVELS);
        o->sim_threads = (unsigned)n;
        return 0;
    }
    case 'A':
        if (strcmp(arg, "pipe") && strcmp(arg, "inline") && strcmp(arg, "auto"))
            return cli_usage_error("memspy", "--analysis '%s': give pipe (a process beside Valgrind), inline (in "
                                             "Valgrind's) or auto (pipe on three cores or more)", arg);
        o->analysis = arg;
        return 0;
    default:
        o->output = arg;
        return 0;
    }
}

/* Returns SHOW_HELP, EXIT_USAGE (message printed) or 0. */
static int parse_options(int argc, char **argv, memspy_options *o)
{
    static const struct option longopts[] = {
        {"machine", required_argument, NULL, 'm'}, {"sample", required_argument, NULL, 's'},
        {"sample-by", required_argument, NULL, 'b'}, {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},   {"raw", required_argument, NULL, 'r'},
        {"shadow-sample", required_argument, NULL, 'S'},
        {"interleave", required_argument, NULL, 'i'}, {"dry-run", no_argument, NULL, 'n'},
        {"instr-at-start", required_argument, NULL, 'a'},
        {"keep-raw", required_argument, NULL, 'k'},   {"plain-numbers", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {"top", required_argument, NULL, 't'},        {"show-startup", no_argument, NULL, 'u'},
        {"analysis", required_argument, NULL, 'A'},   {"sim-threads", required_argument, NULL, 'T'},
        {NULL, 0, NULL, 0},
    };
    *o = (memspy_options){.ratio = 1.0, .by_sets = 1, .shadow = 1, .interleave = 1,
                            .instr_at_start = 1, .top = MR_DEFAULT_TOP, .analysis = "auto"}; /* sets: docs/memspy.md, Benchmark */
    int first;
    int rc = cli_getopt_program("memspy", argc, argv, longopts, take_option, o, &first);
    if (rc != 0)
        return rc;
    if (o->numbers == NUM_PLAIN && o->format != FORMAT_TEXT)
        return cli_usage_error("memspy", "--plain-numbers is for the text report: %s numbers have no separators "
                                         "(drop one of --plain-numbers and --format)",
                               o->format == FORMAT_JSON ? "JSON" : "callgrind");
    if (o->raw && o->dry_run)
        return cli_usage_error("memspy", "--dry-run prints the command of a run; --raw FILE runs nothing: give one");
    if (o->keep_raw && (o->raw || o->dry_run))
        return cli_usage_error("memspy", "--keep-raw FILE keeps the raw file of a run; %s runs nothing: give one",
                               o->raw ? "--raw FILE" : "--dry-run");
    if (o->keep_raw && o->output && !strcmp(o->keep_raw, o->output))
        return cli_usage_error("memspy", "--keep-raw and --output name the same file '%s': give two", o->output);
    if (o->raw)
        return first < argc ? cli_usage_error("memspy", "--raw FILE reports a file: give no program") : 0;
    if (first >= argc)
        return cli_usage_error("memspy", "no program given (augur memspy [OPTIONS] -- PROGRAM [ARGS...])");
    o->program_argv = argv + first;
    return 0;
}

/* ---- the tool's options -------------------------------------------------- */

/* The sets of level c as simulated: the simulator needs a power of two, so
 * a sliced level gets the largest power of two below its set count. */
static uint64_t simulated_sets(const machine_cache *c)
{
    uint64_t sets = c->size / ((uint64_t)c->line * c->ways), pow2 = 1;
    while (pow2 * 2 <= sets)
        pow2 *= 2;
    return pow2;
}

/* The cache levels as the simulator takes them; a level whose set count
 * is no power of two is simulated smaller (said on stderr). */
static void level_args(const machine *m, char args[][160])
{
    for (uint32_t k = 0; k < m->ncaches; k++) {
        const machine_cache *c = &m->cache[k];
        uint64_t pow2 = simulated_sets(c);
        uint64_t size = pow2 * c->line * c->ways;
        char real[32], sim[32];
        if (size != c->size)
            fprintf(stderr,
                    "augur memspy: %s of %s is %s (%llu sets, not a power of two), simulated as %s (%llu sets: "
                    "the simulator needs a power of two)\n",
                    c->name, m->name, report_bytes_text(c->size, real, sizeof real),
                    (unsigned long long)(c->size / ((uint64_t)c->line * c->ways)),
                    report_bytes_text(size, sim, sizeof sim), (unsigned long long)pow2);
        snprintf(args[k], 160, "--level=%s,%llu,%u,%u,%u", c->name, (unsigned long long)size, c->line, c->ways,
                 c->shared_by);
    }
}

/* N of set sampling's one set in N for ratio: 2^round(log2(1/ratio)),
 * at most 2^63 (a tiny ratio such as 1e-30 must not overflow the shift;
 * no level has that many sets, so it is refused). */
static unsigned long sets_per_sample(double ratio)
{
    long k = lround(log2(1.0 / ratio));
    return 1ul << (k < 63 ? k : 63);
}

/* Set sampling takes one set in N of every level, so N may not exceed the
 * smallest level's sets (the tool would refuse it once started).  0, or
 * EXIT_USAGE naming the smallest ratio and the alternative. */
static int check_set_sampling(const memspy_options *o, const machine *m)
{
    if (!o->by_sets || o->ratio >= 1.0)
        return 0;
    uint32_t least = 0;
    for (uint32_t k = 1; k < m->ncaches; k++)
        if (simulated_sets(&m->cache[k]) < simulated_sets(&m->cache[least]))
            least = k;
    unsigned long n = sets_per_sample(o->ratio), sets = simulated_sets(&m->cache[least]);
    if (n <= sets)
        return 0;
    return cli_usage_error("memspy",
                           "--sample %g samples 1 set in %lu, but %s of %s has %lu sets: the smallest set-sampling "
                           "ratio is 1/%lu (--sample %.3g); give --sample-by time for smaller ratios",
                           o->ratio, n, m->cache[least].name, m->name, sets, sets, 1.0 / sets);
}

/* Shadow sampling feeds 1 line in N to each level's shadow, which holds
 * the level's lines / set sampling's N: that many lines at least (the
 * tool would refuse it once started).  0, or EXIT_USAGE naming the
 * largest N. */
static int check_shadow_sampling(const memspy_options *o, const machine *m)
{
    unsigned long per_set = o->by_sets && o->ratio < 1.0 ? sets_per_sample(o->ratio) : 1, most = ULONG_MAX;
    uint32_t least = 0;
    for (uint32_t k = 0; k < m->ncaches; k++) {
        unsigned long lines = simulated_sets(&m->cache[k]) * m->cache[k].ways / per_set;
        if (lines < most)
            most = lines, least = k;
    }
    if (o->shadow <= most)
        return 0;
    return cli_usage_error("memspy",
                           "--shadow-sample %lu exceeds the %lu lines of %s of %s%s: give --shadow-sample %lu or less",
                           o->shadow, most, m->cache[least].name, m->name,
                           per_set > 1 ? " that set sampling simulates" : "", most);
}

/* Say on stderr that a statically linked program's heap blocks cannot be
 * told apart: the tool's malloc is preloaded by the dynamic loader, which
 * such a program does not have. */
static void warn_if_static(const char *program)
{
    if (elf_is_static(program))
        fprintf(stderr, "augur memspy: %s is statically linked: memspy cannot replace its malloc, so heap blocks "
                        "are reported as the object " MR_OTHER_NAME " (link it dynamically to see them by "
                        "allocation site)\n",
                program);
}

/* --sample-time=ON,OFF or --sample-sets=N for the ratio, or "" for none. */
static void sampling_arg(const memspy_options *o, char *arg, size_t len)
{
    arg[0] = '\0';
    if (o->ratio >= 1.0)
        return;
    if (o->by_sets) {
        unsigned long n = sets_per_sample(o->ratio);
        if (n > 1)
            snprintf(arg, len, "--sample-sets=%lu", n);
        return;
    }
    unsigned long off = (unsigned long)llround(SAMPLE_ON * (1.0 - o->ratio) / o->ratio);
    snprintf(arg, len, "--sample-time=%d,%lu", SAMPLE_ON, off);
}

/* ---- the run ------------------------------------------------------------- */

/* The memspy tool's options for a run, and the words they are made of. */
typedef struct tool_args {
    char levels[MACHINE_MAX_CACHES][160], out_opt[PATH_MAX + 16], sample[64], shadow[48], progress[32];
    char channel[128];
    char *argv[MACHINE_MAX_CACHES + 9]; /* NULL-terminated */
} tool_args;

/* t's options for o on machine m, the tool writing to out_dir. */
static void make_tool_args(const memspy_options *o, const machine *m, const char *out_dir, tool_args *t)
{
    size_t n = 0;
    level_args(m, t->levels);
    sampling_arg(o, t->sample, sizeof t->sample);
    snprintf(t->out_opt, sizeof t->out_opt, "--out-dir=%s", out_dir);
    t->argv[n++] = t->out_opt;
    /* Valgrind runs one thread at a time; its default lock lets a thread
     * take it back again and again on a busy host, so threads would not
     * interleave and sharing misses would depend on the load.  The fair
     * lock hands it round in turn. */
    t->argv[n++] = "--fair-sched=yes";
    for (uint32_t k = 0; k < m->ncaches; k++)
        t->argv[n++] = t->levels[k];
    if (t->sample[0])
        t->argv[n++] = t->sample;
    if (o->shadow > 1) {
        snprintf(t->shadow, sizeof t->shadow, "--shadow-sample=%lu", o->shadow);
        t->argv[n++] = t->shadow;
    }
    if (!o->interleave)
        t->argv[n++] = "--interleave=no";
    if (!o->instr_at_start)
        t->argv[n++] = "--instr-at-start=no";
    /* the tool's progress lines as often as augur shows them (launch.c) */
    snprintf(t->progress, sizeof t->progress, "--progress-ms=%d", 1000 * launch_progress_seconds());
    t->argv[n++] = t->progress;
    t->argv[n] = NULL;
}

/* The threads of the pipe's simulator (spy_stages.h): --sim-threads, or
 * by the cores augur may use, one of them the program's: every level on
 * the consumer's one thread on one or two cores (docs/benchmarks.md,
 * "Levels on threads of their own": more did not pay on two), else one
 * thread per core beyond the program's (the stages take at most one per
 * level). */
static unsigned sim_threads(const memspy_options *o)
{
    if (o->sim_threads)
        return o->sim_threads;
    int cores = rdpipe_cores_available();
    return cores > 2 ? (unsigned)(cores - 1) : 1;
}

/* Append the option naming the channel to pipe's consumer (NULL: none)
 * to t's. */
static void add_channel(tool_args *t, const rdpipe *pipe)
{
    size_t n = 0;
    while (t->argv[n])
        n++;
    rdpipe_tool_option(pipe, t->channel, sizeof t->channel);
    t->argv[n++] = t->channel;
    t->argv[n] = NULL;
}

/* --dry-run: print the command a run would be, with DIR for the folder the
 * tool writes to (augur makes a temporary one).  Returns 0 or 125. */
static int print_run(const memspy_options *o, const machine *m, const char *tool_dir)
{
    tool_args t;
    make_tool_args(o, m, "DIR", &t);
    add_channel(&t, NULL); /* as an inline run has it */
    launch_request rq = {o->program_argv, "DIR", "memspy", t.argv, 0, "simulating", 0, NULL, NULL, NULL, 0, NULL, NULL};
    if (launch_print_command(stdout, &rq, tool_dir) != 0 || fflush(stdout) != 0)
        return fail(EXIT_AUGUR_FAILED, "cannot write the command to standard output");
    return 0;
}

/* Run the program; *raw receives the main process's file, read from
 * `path` (PATH_MAX + 32 bytes).  0, or an exit status after a message:
 * 128+N when Valgrind was killed by signal N before it wrote the file (an
 * external kill -9), as for the program's own death. */
static int run(const memspy_options *o, const machine *m, const char *tool_dir, const char *out_dir,
               memspy_raw *raw, launch_result *lr, char *path)
{
    char err[2048], sig[48];
    tool_args t;
    make_tool_args(o, m, out_dir, &t);
    /* docs/memspy.md, Benchmark: full simulation is 3-7x Cachegrind, itself 20-100x native. */
    fprintf(stderr, "augur: running %s under memspy with %s's caches (expect 40-500x native time; "
                    "--sample 0.1 takes several times less)...\n",
            o->program_argv[0], m->name);
    /* Without --output the report goes to stdout: the program's output must not mix with it. */
    rdpipe pipe = {0, {-1, -1, -1}, {0, 0, 0}, NULL};
    unsigned threads = sim_threads(o);
    if (rdpipe_wanted(o->analysis) && rdpipe_launch(&pipe, SPY_CONSUMER_NAME, spy_consume, &threads, err, sizeof err) != 0)
        return fail(EXIT_AUGUR_FAILED, err);
    add_channel(&t, pipe.pid ? &pipe : NULL); /* inline too: rdpipe_tool_option says why */
    launch_request rq = {o->program_argv, out_dir, "memspy", t.argv, 0, "simulating", !o->output,
                         "memspy: progress: ", NULL, pipe.tool_fd, pipe.pid ? 3 : 0, rdpipe_tool_started, &pipe};
    int launched = launch_tool(&rq, tool_dir, lr, err, sizeof err);
    char pipe_err[256], msg[512];
    int pipe_rc = rdpipe_finish(&pipe, pipe_err, sizeof pipe_err);
    if (launched != 0)
        return fail(EXIT_AUGUR_FAILED, err);
    if (pipe_rc != 0) {
        snprintf(msg, sizeof msg, "%s; no report (augur memspy --analysis inline simulates without it)", pipe_err);
        return fail(EXIT_AUGUR_FAILED, msg);
    }
    if (!lr->exited && lr->term_signal == SIGILL && diagnose_undecodable(out_dir, err, sizeof err))
        return fail(EXIT_AUGUR_FAILED, err);
    snprintf(path, PATH_MAX + 32, "%s/memspy.%d.out", out_dir, lr->pid);
    if (memspy_read(path, raw, err, sizeof err) != 0) {
        char tail[2048], msg[4200];
        valgrind_log_tail(out_dir, tail, sizeof tail);
        if (!lr->exited) {
            snprintf(msg, sizeof msg, "the program was killed by %s before memspy wrote its results%s%s",
                     report_signal_text(lr->term_signal, sig, sizeof sig), tail[0] ? "; Valgrind said:\n" : "", tail);
            return fail(128 + lr->term_signal, msg);
        }
        snprintf(msg, sizeof msg, "%s%s%s", err, tail[0] ? "\n  Valgrind said:\n" : "", tail);
        return fail(EXIT_AUGUR_FAILED, msg);
    }
    return 0;
}

/* ---- the report ---------------------------------------------------------- */

/* The latencies of the levels the raw file simulated, matched by name to
 * the machine's caches (a --raw file may come from another machine). */
static int costs_of(const machine *m, const memspy_raw *raw, mr_costs *c)
{
    char msg[256];
    *c = (mr_costs){{0}};
    for (unsigned k = 0; k < raw->nlevels; k++) {
        uint32_t j = 0;
        while (j < m->ncaches && strcmp(m->cache[j].name, raw->level[k].name) != 0)
            j++;
        if (j == m->ncaches) {
            snprintf(msg, sizeof msg, "machine %s has no cache level %s, which the run simulated; give the run's --machine",
                     m->name, raw->level[k].name);
            return fail(EXIT_USAGE, msg);
        }
        c->lat[k] = m->cache[j].latency;
    }
    c->lat[raw->nlevels] = m->mem_latency_ns * m->clock_ghz;
    return 0;
}

/* The report in o's format to out; nonzero when it could not be written. */
static int render(const memspy_options *o, const memspy_report *rep, const mr_header *h, FILE *out)
{
    if (o->format == FORMAT_JSON)
        return memspy_write_json(rep, h, out);
    if (o->format == FORMAT_CALLGRIND)
        return memspy_write_callgrind(rep, out);
    return memspy_write_text(rep, h, o->numbers, out);
}

/* Write the report to --output (output_file.h: through symlinks, into
 * FIFOs, regular files replaced atomically) or to stdout. */
static int write_report(const memspy_options *o, const memspy_report *rep, const mr_header *h)
{
    if (!o->output)
        return render(o, rep, h, stdout) != 0 || fflush(stdout) != 0 ? fail(EXIT_AUGUR_FAILED, "cannot write the report")
                                                                      : 0;
    char msg[PATH_MAX + 256];
    output_file of;
    if (output_open(&of, o->output, msg, sizeof msg) != 0)
        return fail(EXIT_AUGUR_FAILED, msg);
    int ok = render(o, rep, h, of.f) == 0;
    if (output_close(&of, ok, msg, sizeof msg) != 0)
        return fail(EXIT_AUGUR_FAILED, msg);
    fprintf(stderr, "augur: memspy report written to %s\n", o->output);
    return 0;
}

/* The report of raw, priced by m; term_signal: the signal that killed the
 * program, when known (0: none or unknown). */
static int build_and_write(const memspy_options *o, const machine *m, const char *why, memspy_raw *raw, int term_signal)
{
    char err[512];
    mr_loops loops;
    memspy_report rep;
    mr_costs c;
    if (costs_of(m, raw, &c) != 0)
        return EXIT_USAGE;
    if (mr_loops_load(&loops, raw, stderr) != 0 || mr_loops_name_globals(&loops, raw) != 0 ||
        mr_loops_name_heap(&loops, raw) != 0) {
        mr_loops_free(&loops);
        return fail(EXIT_AUGUR_FAILED, "out of memory");
    }
    int rc = memspy_report_build(raw, &c, mr_loops_names, &loops, &rep, err, sizeof err);
    if (rc == 0) {
        rep.top = o->top;
        rep.hide_startup = !o->show_startup;
        mr_header h = {m->name, why, m->clock_ghz, m->mem_latency_ns, term_signal};
        rc = write_report(o, &rep, &h);
        memspy_report_free(&rep);
    } else {
        rc = fail(EXIT_AUGUR_FAILED, err);
    }
    mr_loops_free(&loops);
    return rc;
}

/* --raw FILE: the report of a kept raw file. */
static int report_file(const memspy_options *o, const machine *m, const char *why)
{
    char err[1024];
    memspy_raw raw;
    if (memspy_read(o->raw, &raw, err, sizeof err) != 0)
        return fail(EXIT_AUGUR_FAILED, err);
    int rc = build_and_write(o, m, why[0] ? why : NULL, &raw, 0);
    memspy_raw_free(&raw);
    return rc;
}

/* Copy the raw file `from` to --keep-raw `to` (output_file.h); 0, or -1
 * after a message. */
static int keep_raw_file(const char *from, const char *to)
{
    char msg[PATH_MAX + 256], buf[65536];
    output_file of;
    FILE *in = fopen(from, "rb");
    if (!in) {
        snprintf(msg, sizeof msg, "cannot read the raw file %s to keep it: %s", from, strerror(errno));
        return fail(-1, msg);
    }
    if (output_open(&of, to, msg, sizeof msg) != 0) {
        fclose(in);
        return fail(-1, msg);
    }
    int ok = 1;
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, of.f) == n;
    ok = ok && !ferror(in);
    fclose(in);
    if (output_close(&of, ok, msg, sizeof msg) != 0)
        return fail(-1, msg);
    fprintf(stderr, "augur: memspy raw file kept in %s ('augur memspy --raw %s' reports it again)\n", to, to);
    return 0;
}

/* Run the program in a temporary folder and report it; the program's exit
 * status, or augur's failure.  The folder is removed before the report is
 * written: a reader that closes the pipe early (`| head`) kills augur with
 * SIGPIPE while it writes, as it should, and must not leave the raw file. */
static int run_and_report(const memspy_options *o, const machine *m, const char *tool_dir, const char *why)
{
    char err[1024], out_dir[PATH_MAX];
    memspy_raw raw;
    launch_result lr;
    if (run_dir_make(NULL, "temporary folder", "augur-memspy", out_dir, sizeof out_dir, err, sizeof err) != 0)
        return fail(EXIT_AUGUR_FAILED, err);
    char sig[48], path[PATH_MAX + 32];
    int rc = run(o, m, tool_dir, out_dir, &raw, &lr, path);
    /* A raw file that cannot be kept still gets its report: the run is not lost. */
    int kept = rc != 0 || !o->keep_raw || keep_raw_file(path, o->keep_raw) == 0;
    run_dir_finish(out_dir, 0);
    if (rc != 0)
        return rc;
    if (!lr.exited)
        fprintf(stderr, "augur memspy: the program was killed by %s\n", report_signal_text(lr.term_signal, sig, sizeof sig));
    rc = build_and_write(o, m, why, &raw, lr.exited ? 0 : lr.term_signal);
    memspy_raw_free(&raw);
    if (rc == 0 && !kept)
        rc = EXIT_AUGUR_FAILED;
    return rc != 0 ? rc : lr.exited ? lr.exit_code : 128 + lr.term_signal;
}

static int choose_machine(const memspy_options *o, machine *m, char *why, size_t whylen)
{
    char err[2048];
    why[0] = '\0';
    char note[1024];
    int rc = o->machine ? machine_find(o->machine, m, err, sizeof err)
                        : machine_detect(m, note, sizeof note, err, sizeof err);
    if (rc != 0 && !o->machine)
        snprintf(err + strlen(err), sizeof err - strlen(err), " (name a machine with --machine NAME|FILE)");
    if (rc != 0)
        return fail(EXIT_USAGE, err);
    if (!o->machine)
        snprintf(why, whylen, "this host: caches from hwloc, latencies from the nearest known description, "
                              "as 'augur machine detect' writes it");
    if (m->ncaches == 0 || m->ncaches > MR_MAX_LEVELS) {
        snprintf(err, sizeof err, "machine %s has %u cache levels; memspy simulates 1 to %u", m->name, m->ncaches,
                 MR_MAX_LEVELS);
        return fail(EXIT_USAGE, err);
    }
    return 0;
}

int cmd_memspy(int argc, char **argv)
{
    memspy_options o;
    char err[1024], program[PATH_MAX], why[256];
    int rc = parse_options(argc, argv, &o);
    if (rc == SHOW_HELP)
        usage(stdout);
    if (rc != 0)
        return rc == SHOW_HELP ? 0 : rc;
    if ((o.output && output_check(o.output, err, sizeof err) != 0) ||
        (o.keep_raw && output_check(o.keep_raw, err, sizeof err) != 0))
        return fail(EXIT_USAGE, err); /* before the run, which may take hours */
    machine m;
    if ((rc = choose_machine(&o, &m, why, sizeof why)) != 0)
        return rc;
    if (o.raw) {
        rc = report_file(&o, &m, why);
        machine_free(&m);
        return rc;
    }
    const char *tool_dir = NULL;
    if ((rc = check_set_sampling(&o, &m)) != 0 || (rc = check_shadow_sampling(&o, &m)) != 0)
        ;
    else if ((rc = find_program(o.program_argv[0], program, sizeof program, err, sizeof err)) != 0)
        rc = fail(rc, err);
    else if (!(tool_dir = find_tool_dir("memspy", err, sizeof err)))
        rc = fail(EXIT_AUGUR_FAILED, err);
    else if (o.dry_run)
        rc = print_run(&o, &m, tool_dir);
    else {
        warn_if_static(program);
        rc = run_and_report(&o, &m, tool_dir, why[0] ? why : NULL);
    }
    machine_free(&m);
    return rc;
}
