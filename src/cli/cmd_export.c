/* cmd_export.c — `augur export`: the counts and misses of many runs in
 * Extra-P's text input format or as a CSV table (docs/exports.md).  Exit
 * status: 0 success, 2 usage error, 1 other errors (no database, no runs,
 * an unknown run, runs Extra-P cannot take as one experiment). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output_file.h"
#include "db/db.h"
#include "report/export.h"

#define MAX_RUNS 4096

enum { FORMAT_NONE = -1, FORMAT_EXTRAP, FORMAT_CSV };

typedef struct export_options {
    const char *db_path, *output;
    int format;
    size_t nruns;
    int64_t runs[MAX_RUNS];
    size_t ncaches;
    report_cache caches[REPORT_MAX_CACHES];
} export_options;

static void print_help(FILE *to)
{
    fprintf(to,
            "usage: augur export --format extrap|csv [--db FILE] [--output FILE] [--runs LIST]\n"
            "                    [--cache SIZE[:LINE]]...\n"
            "\n"
            "Write the counts of many runs for other tools: per run, the program's, each function's\n"
            "(and in CSV each source line's) instructions, reads, writes, accesses and misses of\n"
            "fully-associative LRU caches.\n"
            "\n"
            "options:\n"
            "  --format extrap      Extra-P's text input format: the parameters that vary over the runs,\n"
            "                       a point per distinct values (repeated runs are repetitions), one\n"
            "                       METRIC per count and a REGION per function; open it in Extra-P\n"
            "                       (extrap --text FILE)\n"
            "  --format csv         a table with a header line and one record per run, scope (program,\n"
            "                       function, line) and metric: run, the parameters, scope, function,\n"
            "                       module, file, line, metric, cache, value (RFC 4180)\n"
            "  --db FILE            the experiment database (default: $AUGUR_DB, else augur.db; now %s)\n"
            "  --output FILE        write to FILE, replaced whole when complete (default: standard output)\n"
            "  --runs LIST          the runs to export, e.g. 1-5,8 (default: every complete run whose\n"
            "                       program exited with status 0); list them with\n"
            "                       sqlite3 FILE 'SELECT * FROM run_list'\n"
            "  --cache SIZE[:LINE]  misses of a fully-associative LRU cache of SIZE bytes in LINE-byte\n"
            "                       lines (suffixes K, KiB, M, MiB, G, GiB; LINE defaults to %d and must\n"
            "                       be a block size every run measured); repeat for more (at most %d).\n"
            "                       Default: 32K and 1M when every run measured %d-byte blocks\n"
            "  -h, --help           show this help\n"
            "\n"
            "examples:\n"
            "  augur export --format extrap --output mm.txt && extrap --text mm.txt\n"
            "  augur export --format csv --runs 1-5 --cache 32K --cache 2M > runs.csv\n"
            "\n"
            "Exit status: 0 success, 2 usage error, 1 other errors.  See docs/exports.md.\n",
            default_db_path(), REPORT_DEFAULT_LINE, REPORT_MAX_CACHES, REPORT_DEFAULT_LINE);
}

#define usage_error(...) cli_usage_error("export", __VA_ARGS__)

static int parse_option(int opt, const char *arg, void *ctx)
{
    export_options *o = ctx;
    static const char *const formats[] = {"extrap", "csv", NULL};
    switch (opt) {
    case 'd':
        o->db_path = arg;
        return 0;
    case 'o':
        o->output = arg;
        return 0;
    case 'f':
        return cli_take_format_of("export", arg, formats, &o->format);
    case 'r':
        return cli_take_runs("export", arg, o->runs, &o->nruns, MAX_RUNS);
    case 'c':
        return cli_take_cache("export", arg, o->caches, &o->ncaches);
    default:
        return EXIT_USAGE;
    }
}

static int parse_options(int argc, char **argv, export_options *o)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},     {"output", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, 'f'}, {"runs", required_argument, NULL, 'r'},
        {"cache", required_argument, NULL, 'c'},  {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int operands, rc = cli_getopt("export", argc, argv, longopts, parse_option, o, &operands);
    if (rc != 0)
        return rc;
    if (operands < argc)
        return usage_error("unexpected argument '%s'", argv[operands]);
    if (o->format == FORMAT_NONE)
        return usage_error("give the format to write: --format extrap or --format csv");
    return 0;
}

/* The runs read in one snapshot, then written. */
static int write_export(db *d, const export_options *o, FILE *out, char *err, size_t errlen)
{
    export_set s;
    if (db_read_begin(d, err, errlen) != 0)
        return -1;
    int rc = export_set_load(d, o->runs, o->nruns, o->caches, o->ncaches, &s, err, errlen);
    db_read_end(d);
    if (rc == 0)
        rc = o->format == FORMAT_EXTRAP ? export_extrap(&s, db_path(d), out, err, errlen)
                                        : export_csv(&s, out, err, errlen);
    export_set_free(&s);
    return rc;
}

/* To --output (a whole file or none) or standard output. */
static int run_export(db *d, const export_options *o, char *err, size_t errlen)
{
    if (!o->output)
        return write_export(d, o, stdout, err, errlen);
    output_file of;
    if (output_open(&of, o->output, err, errlen) != 0)
        return -1;
    int rc = write_export(d, o, of.f, err, errlen);
    char close_err[1024];
    if (output_close(&of, rc == 0, close_err, sizeof close_err) != 0 && rc == 0) {
        snprintf(err, errlen, "%s", close_err);
        rc = -1;
    }
    return rc;
}

int cmd_export(int argc, char **argv)
{
    export_options *o = calloc(1, sizeof *o); /* large: the run list */
    if (!o) {
        fprintf(stderr, "augur export: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    o->db_path = default_db_path();
    o->format = FORMAT_NONE;
    int rc = parse_options(argc, argv, o);
    if (rc == SHOW_HELP) {
        print_help(stdout);
        free(o);
        return EXIT_OK;
    }
    if (rc != 0) {
        free(o);
        return rc;
    }
    char err[1024];
    db *d = NULL;
    rc = o->output && output_check(o->output, err, sizeof err) != 0 ? -1 : 0;
    if (rc == 0 && db_open(o->db_path, 0, &d, err, sizeof err) != 0)
        rc = -1;
    if (rc == 0)
        rc = run_export(d, o, err, sizeof err);
    db_close(d);
    free(o);
    if (rc != 0) {
        fprintf(stderr, "augur export: %s\n", err);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}
