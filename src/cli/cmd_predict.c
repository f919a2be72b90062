/* cmd_predict.c — `augur predict`: evaluate the newest model set at
 * parameter values that were never run: counts per function, line and
 * scope, and the misses of fully-associative LRU caches, as text or as JSON
 * of the same shape as `augur report`'s (docs/models.md).  Exit status:
 * 0 success, 2 usage error, 1 other errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/runs.h"
#include "machine/machine.h"
#include "predict/predict.h"
#include "predict/predict_callgrind.h"
#include "predict/predict_perf.h"


typedef struct predict_cli {
    const char *db_path;
    run_params params;
    size_t ncaches;
    report_cache caches[REPORT_MAX_CACHES];
    predict_output out;  /* --format, --top, --error-threshold, --plain-numbers */
    int callgrind;       /* --format callgrind */
    int threshold_given, top_given; /* to refuse them where they do nothing */
    const char *machine; /* name or path; NULL: fully-associative --cache caches */
    int show_startup;    /* --show-startup: rank the loader's and C runtime's start-up code too */
    const char *phase;   /* --phase: the model set of that phase of the runs; NULL: of the whole runs */
} predict_cli;

static void print_help(FILE *to)
{
    fprintf(to,
            "usage: augur predict [--db FILE] --param NAME=VALUE... [--cache SIZE[:LINE]]...\n"
            "                     [--machine NAME|FILE] [--format text|json|callgrind] [--top N]\n"
            "                     [--error-threshold PERCENT] [--plain-numbers] [--show-startup]\n"
            "                     [--phase PHASE]\n"
            "\n"
            "Evaluate the models of `augur model` at parameters that were never run: the counts of\n"
            "the program, its functions, source lines and scopes, and the misses of fully-associative\n"
            "LRU caches from the reuse-distance models.  The JSON has the total, functions and lines\n"
            "of augur report's, with a \"prediction\" object instead of \"runs\".\n"
            "\n"
            "options:\n"
            "  --db FILE            the experiment database (default: $AUGUR_DB, else augur.db; now %s)\n"
            "  --param NAME=VALUE   a value of every parameter of the models, e.g. --param N=1000\n"
            "  --cache SIZE[:LINE]  a cache to predict the misses of (suffixes K, KiB, M, MiB, G, GiB;\n"
            "                       LINE defaults to %d and must be a block size the runs measured);\n"
            "                       repeat for more (at most %d); default --cache 32K --cache 1M\n"
            "  --machine NAME|FILE  a described machine (machines/NAME.yaml, or a file): misses per\n"
            "                       cache level and TLB of its geometry, and the time of every loop,\n"
            "                       function and the program on it (instead of --cache)\n"
            "  --format text|json|callgrind\n"
            "                       aligned tables (default), JSON, or Callgrind's file format for\n"
            "                       KCachegrind and callgrind_annotate: every function and line with its\n"
            "                       predicted instructions (Ir), accesses (Acc), misses per cache or\n"
            "                       per level and cycles (--machine), and the calls between functions\n"
            "                       at their predicted counts, with inclusive costs (docs/exports.md)\n"
            "  --top N              rows per table (default %d; 0 for all)\n"
            "  --error-threshold PERCENT\n"
            "                       text: the error tables show the functions (of the --top ones)\n"
            "                       with an error of at least PERCENT (default %g; 0 shows every row)\n"
            "  --plain-numbers      text: counts without thousands separators (1234567, not\n"
            "                       1,234,567), for scripts; JSON numbers are plain anyway\n"
            "  --show-startup       also rank the dynamic loader's and the C runtime's start-up and exit\n"
            "                       code, which the tables leave out by default and sum in one line\n"
            "  --phase PHASE        predict one phase of the runs (their intervals, augur report\n"
            "                       --interval): its own models, which augur model fits for each phase\n"
            "                       every training run has; without it the whole runs, and the\n"
            "                       phases that have models are listed\n"
            "  -h, --help           show this help\n"
            "\n"
            "examples:\n"
            "  augur predict --param N=1000\n"
            "  augur predict --param N=4000 --cache 32K --cache 1M --cache 32M --format json\n"
            "  augur predict --param N=4000 --machine zen4\n"
            "  augur predict --param N=4000 --format callgrind > callgrind.out.4000\n"
            "  augur predict --param N=4000 --phase step.c:57\n"
            "\n"
            "Values outside the range the models were fitted on are predicted with a warning; a value\n"
            "outside a term's domain (N <= 0 where a model has log2(N) or N^k) and counts at or above\n"
            "2^63 are refused.  --top also limits the scope table (JSON keeps every scope).\n"
            "Counts and misses carry ranges [low, high] (JSON: *_range), wider the further the\n"
            "prediction extrapolates and where reuse distances lie near a capacity; a warning names\n"
            "the functions whose misses may be more than 50%% off. Counts also carry their models'\n"
            "cross-validation error, misses their error at the training runs.\n"
            "Each warning is shown once: in the text, or with --format json on standard error (and in\n"
            "the JSON's prediction.warnings).\n"
            "Exit status: 0 success, 2 usage error, 1 other errors.  See docs/models.md.\n",
            default_db_path(), REPORT_DEFAULT_LINE, REPORT_MAX_CACHES, REPORT_DEFAULT_TOP,
            PREDICT_DEFAULT_ERROR_THRESHOLD);
}

#define usage_error(...) cli_usage_error("predict", __VA_ARGS__)

static int parse_option(int opt, const char *arg, void *ctx)
{
    predict_cli *o = ctx;
    char err[256];
    switch (opt) {
    case 'd':
        o->db_path = arg;
        return 0;
    case 'p':
        if (run_params_add(&o->params, arg, err, sizeof err) != 0)
            return usage_error("%s", err);
        return 0;
    case 'c':
        return cli_take_cache("predict", arg, o->caches, &o->ncaches);
    case 'm':
        o->machine = arg;
        return 0;
    case 'f': {
        static const char *const formats[] = {"text", "json", "callgrind", NULL};
        int format, rc = cli_take_format_of("predict", arg, formats, &format);
        o->out.json = format == 1, o->callgrind = format == 2;
        return rc;
    }
    case 't':
        o->top_given = 1;
        return cli_take_top("predict", arg, &o->out.top);
    case 'e':
        o->threshold_given = 1;
        return cli_take_percent("predict", "--error-threshold", arg, &o->out.error_threshold);
    case 'P':
        o->out.numbers = NUM_PLAIN;
        return 0;
    case 'S':
        o->show_startup = 1;
        return 0;
    case 'H':
        o->phase = arg;
        return 0;
    default:
        return EXIT_USAGE;
    }
}

static int parse_options(int argc, char **argv, predict_cli *o)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},     {"param", required_argument, NULL, 'p'},
        {"cache", required_argument, NULL, 'c'},  {"format", required_argument, NULL, 'f'},
        {"top", required_argument, NULL, 't'},    {"machine", required_argument, NULL, 'm'},
        {"error-threshold", required_argument, NULL, 'e'}, {"plain-numbers", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},         {"show-startup", no_argument, NULL, 'S'},
        {"phase", required_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    int operands, rc = cli_getopt("predict", argc, argv, longopts, parse_option, o, &operands);
    if (rc != 0)
        return rc;
    if (operands < argc)
        return usage_error("unexpected argument '%s'", argv[operands]);
    if (o->params.n == 0)
        return usage_error("give the parameters to predict at, e.g. --param N=1000");
    if (o->out.json && o->out.numbers == NUM_PLAIN)
        return cli_plain_numbers_json("predict");
    if (o->callgrind && (o->top_given || o->threshold_given || o->out.numbers == NUM_PLAIN || o->show_startup))
        return usage_error("--format callgrind writes every function and line: %s does nothing there (drop it)",
                           o->top_given ? "--top" : o->threshold_given ? "--error-threshold"
                                         : o->show_startup ? "--show-startup" : "--plain-numbers");
    if (o->out.json && o->threshold_given)
        return usage_error("--error-threshold selects rows of the text's error tables: the JSON has every "
                           "row's errors (drop one of --error-threshold and --format json)");
    if (o->machine && o->ncaches)
        return usage_error("--machine and --cache exclude each other: the machine's levels are the caches");
    if (o->ncaches == 0 && !o->machine) {
        o->caches[o->ncaches++] = (report_cache){.size = 32 << 10, .line = REPORT_DEFAULT_LINE};
        o->caches[o->ncaches++] = (report_cache){.size = 1 << 20, .line = REPORT_DEFAULT_LINE};
    }
    return 0;
}

/* Predict (and with a machine, evaluate its models) inside one read. */
static int evaluate(db *d, const predict_cli *o, const machine *m, prediction *p, predict_perf *pp, char *err,
                    size_t errlen)
{
    double values[MAX_PARAMS];
    for (int i = 0; i < o->params.n; i++)
        values[i] = strtod(o->params.values[i], NULL); /* checked by run_params_add */
    if (db_read_begin(d, err, errlen) != 0)
        return -1;
    int rc = predict(d, (const char *const *)o->params.names, values, o->params.n, o->caches, o->ncaches,
                     o->show_startup, o->phase, p, err, errlen);
    if (rc == 0 && m)
        rc = predict_perf_eval(d, p, m, pp, err, errlen);
    if (rc == 0 && m && predict_warn_wide_levels(p, pp) != 0)
        rc = -1, snprintf(err, errlen, "out of memory");
    db_read_end(d);
    return rc;
}

/* The prediction as a Callgrind file, its header naming the program, the
 * parameters and the models. */
static int write_callgrind(db *d, prediction *p, const predict_perf *pp, char *err, size_t errlen)
{
    cg_header h = {0};
    char params[256];
    predict_params_text(p, params, sizeof params);
    snprintf(h.cmd, sizeof h.cmd, "%s", p->set.program ? p->set.program : "");
    cg_header_add(&h, "Prediction: %s%s%s (model set %lld, fitted on runs %s)", params, p->set.phase ? ", phase " : "",
                  p->set.phase ? p->set.phase : "", (long long)p->set.id, p->set.runs ? p->set.runs : "[]");
    if (pp)
        cg_header_add(&h, "Costs: predicted; misses per level and cycles of %s from its models", pp->m->name);
    else
        cg_header_add(&h, "Costs: predicted; misses of fully-associative LRU caches from the reuse-distance models");
    return predict_callgrind_write(d, &p->rep, p, pp, NULL, &h, "predict", stdout, err, errlen);
}

static int run_predict(db *d, const predict_cli *o, const machine *m, char *err, size_t errlen)
{
    prediction p;
    predict_perf pp = {0};
    int rc = evaluate(d, o, m, &p, &pp, err, errlen);
    /* Each warning once: the text holds them; the JSON and the callgrind
     * file are for programs, so people see them on stderr. */
    for (size_t i = 0; rc == 0 && (o->out.json || o->callgrind) && i < p.info.nwarnings; i++)
        report_print_wrapped(stderr, "augur predict: warning:", p.info.warnings[i], REPORT_WRAP_COLUMN);
    if (rc == 0 && o->callgrind)
        rc = write_callgrind(d, &p, m ? &pp : NULL, err, errlen);
    else if (rc == 0) {
        errno = 0;
        rc = prediction_write(&p, m ? &pp : NULL, &o->out, stdout);
        if (rc == 0 && fflush(stdout) != 0)
            rc = -1;
        if (rc != 0)
            snprintf(err, errlen, "cannot write the prediction: %s", errno ? strerror(errno) : "out of memory");
    }
    predict_perf_free(&pp);
    prediction_free(&p);
    return rc;
}

int cmd_predict(int argc, char **argv)
{
    predict_cli o = {.db_path = default_db_path(),
                     .out = {.top = REPORT_DEFAULT_TOP, .error_threshold = PREDICT_DEFAULT_ERROR_THRESHOLD,
                             .numbers = NUM_GROUPED}};
    int rc = parse_options(argc, argv, &o);
    if (rc == SHOW_HELP) {
        print_help(stdout);
        run_params_free(&o.params);
        return EXIT_OK;
    }
    if (rc != 0) {
        run_params_free(&o.params);
        return rc;
    }
    char err[1024];
    machine m;
    int have_machine = o.machine && machine_find(o.machine, &m, err, sizeof err) == 0;
    rc = o.machine && !have_machine ? -1 : 0;
    db *d;
    if (rc == 0 && db_open(o.db_path, 0, &d, err, sizeof err) == 0) {
        rc = run_predict(d, &o, have_machine ? &m : NULL, err, sizeof err);
        db_close(d);
    } else
        rc = -1;
    if (have_machine)
        machine_free(&m);
    run_params_free(&o.params);
    if (rc != 0) {
        fprintf(stderr, "augur predict: %s\n", err);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}
