/* cmd_report.c — `augur report`: the counts and cache misses of one run of
 * the experiment database, per function and per source line, as text or
 * JSON (docs/report.md).  Exit status: 0 success, 2 usage error (anything
 * wrong with the command line itself), 1 other errors (no database, unknown
 * run, a line size the run did not measure, ...). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/report_mpi.h"
#include "cli/structure_store.h"
#include "db/db.h"
#include "machine/machine.h"
#include "predict/predict_callgrind.h"
#include "predict/predict_run.h"
#include "report/report.h"
#include "report/text_table.h"
#include "util/numfmt.h"
#include "util/parse.h"



typedef struct report_options {
    const char *db_path;
    int64_t run_id; /* 0: the newest run */
    size_t ncaches;
    report_cache caches[REPORT_MAX_CACHES];
    int json, callgrind; /* --format json, --format callgrind */
    size_t top;
    int scopes;       /* --scopes: the scope view instead of the tables */
    double threshold; /* percent, for the scope view */
    int threshold_given, top_given; /* to refuse them where they do nothing */
    const char *machine; /* --machine NAME|FILE: misses per level and time on it */
    num_style numbers;   /* --plain-numbers: counts without thousands separators */
    int show_startup;    /* --show-startup: rank the loader's and C runtime's start-up code too */
    int intervals;       /* --interval: list the run's intervals */
    const char *phase;   /* --phase KEY: the report of that interval run of the run */
    int comm;            /* --comm: the run's MPI calls per call site and peer */
} report_options;

static void print_help(FILE *to)
{
    fprintf(to,
            "usage: augur report [--db FILE] [--run ID] [--cache SIZE[:LINE]]... [--format text|json] [--top N]\n"
            "                    [--plain-numbers] [--show-startup] [--phase PHASE]\n"
            "       augur report --format callgrind [--db FILE] [--run ID] [--cache SIZE[:LINE]]...\n"
            "       augur report --scopes [--threshold PERCENT] [--db FILE] [--run ID] [--format text|json]\n"
            "       augur report --interval [--db FILE] [--run ID]\n"
            "       augur report --comm [--db FILE] [--run ID] [--format text|json] [--plain-numbers]\n"
            "                    [--plain-numbers]\n"
            "       augur report --machine NAME|FILE [--db FILE] [--run ID] [--format text|json|callgrind]\n"
            "                    [--top N] [--plain-numbers] [--show-startup]\n"
            "\n"
            "Show what a run executed: totals, then the functions and the source lines with the\n"
            "most executed instructions, with the misses of fully-associative LRU caches computed\n"
            "from the measured reuse distances.\n"
            "\n"
            "options:\n"
            "  --db FILE            the experiment database (default: $AUGUR_DB, else augur.db;\n"
            "                       now %s)\n"
            "  --run ID             the run to report (default: the newest run); list the runs with\n"
            "                       sqlite3 FILE 'SELECT * FROM run_list'\n"
            "  --cache SIZE[:LINE]  also show the misses of a fully-associative LRU cache of SIZE\n"
            "                       bytes in lines of LINE bytes.  SIZE and LINE take the suffixes\n"
            "                       K, KiB, M, MiB, G, GiB (32K = 32KiB = 32768); LINE defaults to %d\n"
            "                       and must be one of the block sizes the run measured.  Repeat for\n"
            "                       more caches (at most %d).  Default: --cache 32K --cache 1M when\n"
            "                       the run measured %d-byte blocks, else none.\n"
            "  --format text|json|callgrind\n"
            "                       aligned tables for people (default), JSON for programs, or Callgrind's\n"
            "                       file format for KCachegrind and callgrind_annotate: every function\n"
            "                       and source line with instructions (Ir), accesses (Acc) and misses\n"
            "                       per cache (--cache) or per level with cycles (--machine), and the\n"
            "                       calls between functions with their inclusive costs\n"
            "                       (docs/exports.md)\n"
            "  --top N              rows per table (default %d; 0 shows every row)\n"
            "  --plain-numbers      text: counts without thousands separators (1234567, not\n"
            "                       1,234,567), for scripts; JSON numbers are plain anyway\n"
            "  --show-startup       also rank the dynamic loader's and the C runtime's start-up and exit\n"
            "                       code (ld.so, _start, __libc_start_main, IFUNC resolvers, exit\n"
            "                       handlers), which the tables leave out by default and sum in one line\n"
            "  --interval           list the run's intervals (augur collect --interval-functions): one run\n"
            "                       each, per interval or per call site that closed them\n"
            "  --comm               an MPI run's calls per call site and peer (bytes sent and received,\n"
            "                       calls), summed over its ranks, and the ranks' totals\n"
            "  --phase PHASE        the report of the run's interval run of PHASE (as --interval names\n"
            "                       it: an index, FILE:LINE of the closing call, or end)\n"
            "  --scopes             the scope view instead: per function, inlined function and loop,\n"
            "                       instructions per class, memory accesses, floating-point\n"
            "                       operations, loop entries and iterations per entry (binaries are\n"
            "                       analysed as by augur structure on first use)\n"
            "  --threshold PERCENT  scope view: leave out scopes under PERCENT of all instructions\n"
            "                       (default %.1f; 0 shows every executed scope)\n"
            "  --machine NAME|FILE  misses per cache level and TLB of a described machine and the time\n"
            "                       per loop, function and program, from the run's measured reuse\n"
            "                       distances and counts (as augur predict --machine; machines/NAME.yaml\n"
            "                       or a file; see docs/performance-model.md)\n"
            "  -h, --help           show this help\n"
            "\n"
            "examples:\n"
            "  augur report\n"
            "  augur report --db app.db --run 3 --cache 32K --cache 1MiB:64 --top 10\n"
            "  augur report --format json --top 0 > run3.json\n"
            "  augur report --format callgrind > callgrind.out.run && kcachegrind callgrind.out.run\n"
            "\n"
            "Exit status: 0 success, 2 usage error, 1 other errors.  See docs/report.md.\n",
            default_db_path(), REPORT_DEFAULT_LINE, REPORT_MAX_CACHES, REPORT_DEFAULT_LINE, REPORT_DEFAULT_TOP,
            REPORT_DEFAULT_THRESHOLD);
}

#define usage_error(...) cli_usage_error("report", __VA_ARGS__)

static int parse_option(int opt, const char *arg, void *ctx)
{
    report_options *o = ctx;
    uint64_t v;
    switch (opt) {
    case 'd':
        o->db_path = arg;
        return 0;
    case 'r':
        if (parse_u64(arg, &v) != 0 || v == 0 || v > INT64_MAX)
            return usage_error("bad run id '%s': give a positive number", arg);
        o->run_id = (int64_t)v;
        return 0;
    case 'c':
        return cli_take_cache("report", arg, o->caches, &o->ncaches);
    case 'f': {
        static const char *const formats[] = {"text", "json", "callgrind", NULL};
        int format, rc = cli_take_format_of("report", arg, formats, &format);
        o->json = format == 1, o->callgrind = format == 2;
        return rc;
    }
    case 'm':
        o->machine = arg;
        return 0;
    case 's':
        o->scopes = 1;
        return 0;
    case 'p':
        o->threshold_given = 1;
        return cli_take_percent("report", "--threshold", arg, &o->threshold);
    case 't':
        o->top_given = 1;
        return cli_take_top("report", arg, &o->top);
    case 'P':
        o->numbers = NUM_PLAIN;
        return 0;
    case 'S':
        o->show_startup = 1;
        return 0;
    case 'i':
        o->intervals = 1;
        return 0;
    case 'F':
        o->phase = arg;
        return 0;
    case 'C':
        o->comm = 1;
        return 0;
    default:
        return EXIT_USAGE;
    }
}

/* Fill *o from the command line: 0, EXIT_USAGE (message printed) or
 * SHOW_HELP. */
static int parse_options(int argc, char **argv, report_options *o)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},    {"run", required_argument, NULL, 'r'},
        {"cache", required_argument, NULL, 'c'}, {"format", required_argument, NULL, 'f'},
        {"top", required_argument, NULL, 't'},   {"help", no_argument, NULL, 'h'},
        {"scopes", no_argument, NULL, 's'},      {"threshold", required_argument, NULL, 'p'},
        {"machine", required_argument, NULL, 'm'}, {"plain-numbers", no_argument, NULL, 'P'},
        {"show-startup", no_argument, NULL, 'S'}, {"interval", no_argument, NULL, 'i'},
        {"phase", required_argument, NULL, 'F'}, {"comm", no_argument, NULL, 'C'},
        {NULL, 0, NULL, 0},
    };
    *o = (report_options){.db_path = default_db_path(), .top = REPORT_DEFAULT_TOP,
                          .threshold = REPORT_DEFAULT_THRESHOLD, .numbers = NUM_GROUPED};
    int operands, rc = cli_getopt("report", argc, argv, longopts, parse_option, o, &operands);
    if (rc != 0)
        return rc;
    if (operands < argc)
        return usage_error("unexpected argument '%s'", argv[operands]);
    if (o->machine && (o->ncaches || o->scopes))
        return usage_error("--machine excludes %s: the machine's levels are the caches",
                           o->scopes ? "--scopes" : "--cache");
    if (o->numbers == NUM_PLAIN && o->json)
        return cli_plain_numbers_json("report");
    if (o->callgrind && (o->scopes || o->top_given || o->numbers == NUM_PLAIN || o->show_startup))
        return usage_error("--format callgrind writes every function and line of the run: %s does nothing there "
                           "(drop it)", o->scopes ? "--scopes" : o->top_given ? "--top"
                                        : o->show_startup ? "--show-startup" : "--plain-numbers");
    if (o->threshold_given && !o->scopes)
        return usage_error("--threshold goes with --scopes (it leaves small scopes out of the scope view)");
    if (o->scopes && (o->ncaches || o->top_given || o->show_startup))
        return usage_error("--scopes shows no cache misses and every scope above --threshold: %s does nothing "
                           "there (leave it out, or drop --scopes)",
                           o->ncaches ? "--cache" : o->top_given ? "--top" : "--show-startup");
    return 0;
}

/* The caches given, or the default ones when none was given. */
static size_t choose_caches(const report_options *o, const db_run *run, report_cache *caches)
{
    if (o->ncaches) {
        memcpy(caches, o->caches, o->ncaches * sizeof *caches);
        return o->ncaches;
    }
    for (int i = 0; i < run->nblock_sizes; i++)
        if (run->block_sizes[i] == REPORT_DEFAULT_LINE) {
            caches[0] = (report_cache){.size = 32 << 10, .line = REPORT_DEFAULT_LINE};
            caches[1] = (report_cache){.size = 1 << 20, .line = REPORT_DEFAULT_LINE};
            return 2;
        }
    return 0;
}

/* The report's JSON with an MPI run's ranks as its "mpi" member (null
 * for other runs), to stdout.  0, or -1 with the message in err when the
 * database fails (else empty: the caller names the write's failure). */
static int write_json_with_ranks(db *d, int64_t run_id, const report *rep, size_t top, char *err, size_t errlen)
{
    json_t *ranks;
    if (report_mpi_ranks_json(d, run_id, &ranks, err, errlen) != 0)
        return -1;
    json_t *j = report_json(rep, top);
    if (j && json_object_set_new(j, "mpi", ranks) != 0) {
        json_decref(j);
        j = NULL;
    } else if (!j)
        json_decref(ranks);
    return report_json_dump(j, stdout);
}

/* Build and print the report of the chosen run, from one snapshot of the
 * database (inside db_read_begin/db_read_end). */
static int print_snapshot(db *d, const report_options *o, char *err, size_t errlen)
{
    int64_t id = o->run_id;
    if (!id && db_newest_run(d, &id, err, errlen) != 0)
        return -1;
    db_run run;
    report rep = {0};
    report_cache caches[REPORT_MAX_CACHES];
    int rc = db_get_run(d, id, &run, err, errlen) != 0 ? -1 : 0;
    size_t ncaches = rc == 0 ? choose_caches(o, &run, caches) : 0;
    for (size_t k = 0; rc == 0 && k < ncaches; k++)
        rc = report_cache_check(&caches[k], &run, err, errlen);
    if (rc == 0)
        rc = report_build(d, &run, caches, ncaches, &rep, err, errlen);
    if (rc == 0 && !o->callgrind) /* the callgrind file has every row */
        rc = report_hide_startup(&rep, !o->show_startup, err, errlen);
    if (rc == 0 && o->callgrind) {
        cg_header h;
        cg_header_run(&run, "measured; misses of fully-associative LRU caches from the reuse distances", &h);
        rc = predict_callgrind_write(d, &rep, NULL, NULL, &run, &h, "report", stdout, err, errlen);
    } else if (rc == 0) {
        errno = 0;
        if (o->json)
            rc = write_json_with_ranks(d, id, &rep, o->top, err, errlen);
        else if ((rc = report_write_text(&rep, o->top, o->numbers, stdout)) == 0)
            rc = report_mpi_ranks(d, id, o->numbers, stdout, err, errlen);
        if (rc == 0 && fflush(stdout) != 0)
            rc = -1;
        if (rc != 0 && !err[0])
            snprintf(err, errlen, "cannot write the report: %s", errno ? strerror(errno) : "out of memory");
    }
    report_free(&rep);
    db_run_free(&run);
    return rc;
}

/* The scope trees of the run's modules whose files are still the ones
 * that ran (same build-id), analysed now if never before; *n of them. */
static int load_run_trees(db *d, int64_t run_id, scope_tree **trees, size_t *n, char *err, size_t errlen)
{
    db_run_module *mods;
    size_t nmods;
    *trees = NULL;
    *n = 0;
    if (db_run_modules(d, run_id, &mods, &nmods, err, errlen) != 0)
        return -1;
    int rc = (*trees = calloc(nmods ? nmods : 1, sizeof **trees)) ? 0 : -1;
    for (size_t i = 0; i < nmods && rc == 0; i++) {
        char label[PATH_MAX + 64];
        snprintf(label, sizeof label, "%s (module %zu of %zu)", report_base_name(mods[i].path), i + 1, nmods);
        rc = structure_tree_of_build(d, mods[i].path, mods[i].build_id, label, &(*trees)[*n], err, errlen);
        if (rc == 1 && *mods[i].build_id)
            fprintf(stderr, "augur report: warning: %s is missing or was rebuilt since the run, and its "
                            "structure was not stored; its scopes are left out\n", mods[i].path);
        if (rc == 0)
            ++*n;
        rc = rc == 1 ? 0 : rc;
    }
    db_run_modules_free(mods, nmods);
    if (rc != 0 && !*trees)
        snprintf(err, errlen, "out of memory");
    return rc;
}

/* The scope view; binaries are analysed first, outside the read snapshot
 * (analysing writes to the database). */
static int print_scopes(db *d, const report_options *o, char *err, size_t errlen)
{
    int64_t id = o->run_id;
    db_run run;
    if (!id && db_newest_run(d, &id, err, errlen) != 0)
        return -1;
    if (db_get_run(d, id, &run, err, errlen) != 0)
        return -1;
    db_run_free(&run);
    scope_tree *trees;
    size_t n;
    int rc = load_run_trees(d, id, &trees, &n, err, errlen);
    if (rc == 0 && (rc = db_read_begin(d, err, errlen)) == 0) {
        rc = report_scopes_write(d, id, trees, n, o->threshold, o->json, o->numbers, stdout, err, errlen);
        db_read_end(d);
    }
    if (rc == 0 && fflush(stdout) != 0) {
        snprintf(err, errlen, "cannot write the report: %s", strerror(errno));
        rc = -1;
    }
    for (size_t i = 0; trees && i < n; i++)
        scope_tree_free(&trees[i]);
    free(trees);
    return rc;
}

/* The machine models over the run (predict_run.c), inside one read. */
static int write_machine(db *d, const db_run *run, const scope_tree *t, const machine *m, const report_options *o,
                         char *err, size_t errlen)
{
    prediction p;
    predict_perf_input in;
    predict_perf pp = {0};
    if (db_read_begin(d, err, errlen) != 0)
        return -1;
    int rc = predict_from_run(d, run, t, &p, &in, err, errlen);
    if (rc == 0)
        rc = report_hide_startup(&p.rep, !o->show_startup, err, errlen);
    if (rc == 0)
        rc = predict_perf_evaluate(d, &p, m, &in, &pp, err, errlen);
    db_read_end(d);
    if (rc == 0 && o->callgrind) {
        cg_header h;
        char what[160];
        snprintf(what, sizeof what, "measured; misses per level and cycles of %s from its models", m->name);
        cg_header_run(run, what, &h);
        rc = predict_callgrind_write(d, &p.rep, &p, &pp, run, &h, "report", stdout, err, errlen);
    } else if (rc == 0) {
        errno = 0;
        predict_output out = {.json = o->json, .top = o->top, .numbers = o->numbers};
        rc = prediction_write(&p, &pp, &out, stdout);
        if (rc == 0 && fflush(stdout) != 0)
            rc = -1;
        if (rc != 0)
            snprintf(err, errlen, "cannot write the report: %s", errno ? strerror(errno) : "out of memory");
    }
    predict_perf_free(&pp);
    predict_run_free(&p, &in);
    return rc;
}

/* `--machine`: the program's structure (analysed first, outside the read),
 * then the machine models over the run. */
static int print_machine(db *d, const report_options *o, char *err, size_t errlen)
{
    machine m;
    if (machine_find(o->machine, &m, err, errlen) != 0)
        return -1;
    int64_t id = o->run_id;
    db_run run = {0};
    db_run_module *mods = NULL;
    size_t nmods = 0;
    scope_tree t = {0};
    int rc = !id && db_newest_run(d, &id, err, errlen) != 0 ? -1 : 0;
    if (rc == 0)
        rc = db_get_run(d, id, &run, err, errlen);
    if (rc == 0)
        rc = db_run_modules(d, id, &mods, &nmods, err, errlen);
    if (rc == 0 && nmods == 0) {
        snprintf(err, errlen, "run %lld executed no instruction of a known module", (long long)id);
        rc = -1;
    }
    if (rc == 0 && !mods[0].is_program) /* never time ld.so's loops as the program's */
        rc = db_program_unknown(id, err, errlen);
    if (rc == 0 && (rc = structure_tree_if_current(d, mods[0].path, mods[0].build_id, NULL, &t, err, errlen)) == 1) {
        snprintf(err, errlen, "%s is missing or was rebuilt since run %lld: its loops cannot be timed (collect "
                 "the run again)", mods[0].path, (long long)id);
        rc = -1;
    }
    if (rc == 0) {
        rc = write_machine(d, &run, &t, &m, o, err, errlen);
        scope_tree_free(&t);
    }
    db_run_modules_free(mods, nmods);
    db_run_free(&run);
    machine_free(&m);
    return rc;
}

/* The interval runs of the report's run (--run, else the newest) into *id
 * and a new array *v of *n (db_intervals_free). */
static int run_intervals(db *d, const report_options *o, int64_t *id, db_interval **v, size_t *n, char *err,
                         size_t errlen)
{
    *id = o->run_id;
    if (!*id && db_newest_run(d, id, err, errlen) != 0)
        return -1;
    return db_run_intervals(d, *id, v, n, err, errlen);
}

/* --interval: the interval runs of the run, one line each. */
static int print_intervals(db *d, const report_options *o, char *err, size_t errlen)
{
    int64_t id;
    db_interval *v;
    size_t n;
    if (run_intervals(d, o, &id, &v, &n, err, errlen) != 0)
        return -1;
    if (n == 0) {
        snprintf(err, errlen, "run %lld has no intervals: collect with --interval-functions GLOB (or a program that "
                 "calls CALLGRIND_DUMP_STATS) to have them", (long long)id);
        return -1;
    }
    printf("Intervals of run %lld (each stored as a run: augur report --run %lld --phase PHASE)\n", (long long)id,
           (long long)id);
    text_table t = {.ncols = 7, .align = "rlrrlrr"};
    const char *head[] = {"run", "phase", "intervals", "first", "closed by", "instructions", "accesses"};
    for (int k = 0; k < 7; k++)
        text_table_cell(&t, "%s", head[k]);
    for (size_t i = 0; i < n; i++) {
        char a[NUMFMT_LEN], b[NUMFMT_LEN];
        text_table_cell(&t, "%lld", (long long)v[i].run_id);
        text_table_cell(&t, "%s", v[i].phase);
        text_table_cell(&t, "%llu", (unsigned long long)v[i].count);
        text_table_cell(&t, "%llu", (unsigned long long)v[i].first);
        if (v[i].function)
            text_table_cell(&t, "%s in %s", v[i].closed_by, v[i].function);
        else
            text_table_cell(&t, "%s", v[i].closed_by);
        text_table_cell(&t, "%s", numfmt_count(v[i].instructions, o->numbers, a));
        text_table_cell(&t, "%s", numfmt_count(v[i].accesses, o->numbers, b));
    }
    int rc = text_table_print(&t, stdout);
    text_table_free(&t);
    db_intervals_free(v, n);
    return rc;
}

/* --phase KEY: o->run_id becomes the run's interval run of that phase. */
static int choose_phase(db *d, report_options *o, char *err, size_t errlen)
{
    int64_t id;
    db_interval *v;
    size_t n;
    if (run_intervals(d, o, &id, &v, &n, err, errlen) != 0)
        return -1;
    int64_t found = 0;
    for (size_t i = 0; i < n && !found; i++)
        if (!strcmp(v[i].phase, o->phase))
            found = v[i].run_id;
    db_intervals_free(v, n);
    if (!found) {
        snprintf(err, errlen, "run %lld has no phase '%s' (augur report --run %lld --interval lists its phases)",
                 (long long)id, o->phase, (long long)id);
        return -1;
    }
    o->run_id = found;
    return 0;
}

static int print_report(db *d, report_options *o, char *err, size_t errlen)
{
    if (o->intervals)
        return print_intervals(d, o, err, errlen);
    if (o->phase && choose_phase(d, o, err, errlen) != 0)
        return -1;
    if (o->comm) {
        int64_t id = o->run_id;
        if (!id && db_newest_run(d, &id, err, errlen) != 0)
            return -1;
        return report_mpi_comm(d, id, o->json, o->numbers, stdout, err, errlen);
    }
    if (o->machine)
        return print_machine(d, o, err, errlen);
    if (o->scopes)
        return print_scopes(d, o, err, errlen);
    if (db_read_begin(d, err, errlen) != 0)
        return -1;
    int rc = print_snapshot(d, o, err, errlen);
    db_read_end(d);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    report_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc == SHOW_HELP) {
        print_help(stdout);
        return EXIT_OK;
    }
    if (rc != 0)
        return rc;
    char err[1024] = "";
    db *d;
    if (db_open(o.db_path, 0, &d, err, sizeof err) == 0) {
        rc = print_report(d, &o, err, sizeof err);
        db_close(d);
    } else {
        rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "augur report: %s\n", err);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}
