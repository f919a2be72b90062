/* cmd_model.c — `augur model`: fit models of every count and of the
 * reuse-distance histograms over the runs of the experiment database, as
 * functions of the run parameters, and store them (docs/models.md); with
 * --show, print the stored formulas.  Exit status: 0 success, 2 usage
 * error, 1 other errors (no database, runs that cannot be modeled, ...). */
#define _GNU_SOURCE /* asprintf */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/structure_store.h"
#include "modelset/modelset.h"
#include "predict/predict.h"
#include "util/parallel.h"
#include "util/parse.h"

#define MAX_RUNS 4096
#define MAX_JOBS 1024

typedef struct model_cli {
    const char *db_path;
    int64_t runs[MAX_RUNS];
    size_t nruns;
    const char *params[MODEL_MAX_PARAMS];
    int nparams;
    const char *basis[MODEL_MAX_BASIS];
    int nbasis;
    int static_basis; /* --basis static */
    int show, quiet;
    int jobs; /* --jobs: fitting threads; 0: not given, the processors online */
    int include_failed; /* --include-failed: also runs whose program exited non-zero */
    const char *scope; /* --scope NAME for --show */
    const char *phase; /* --phase PHASE for --show */
    int json, format_given; /* --format for --show */
} model_cli;

static void print_help(FILE *to)
{
    fprintf(to,
            "usage: augur model [--db FILE] [--runs LIST] [--include-failed] [--param NAME]...\n"
            "                   [--basis TERM|static]... [--jobs N] [--quiet]\n"
            "       augur model --show [--scope NAME] [--phase PHASE] [--format text|json] [--db FILE]\n"
            "\n"
            "Fit, over the runs in the database, a model of every count (total, function, line,\n"
            "block and scope counts; per-class counts; memory accesses) and of the reuse-distance\n"
            "histograms, as functions of the run parameters (--param of augur collect), and store\n"
            "them as a new model set.  Counts of affine loops are found as exact polynomials; other\n"
            "series by a search over c0 + c*p^i*log2(p)^j chosen by leave-one-out cross-validation.\n"
            "Runs of several builds of one source (one per size compiled in, -DN=...) are modeled\n"
            "together, matched by source location (function, file, line, loop).  Runs split into\n"
            "intervals (augur collect --interval-functions) also get one model set per phase that\n"
            "every run has (augur predict --phase); a phase some runs lack is named in a warning.\n"
            "\n"
            "options:\n"
            "  --db FILE      the experiment database (default: $AUGUR_DB, else augur.db; now %s)\n"
            "  --runs LIST    the runs to fit over, e.g. 1-5,8 (default: every complete run whose\n"
            "                 program exited with status 0; the others are named in a warning)\n"
            "  --include-failed  also fit complete runs whose program exited non-zero\n"
            "  --param NAME   a parameter to model (repeat for several, at most %d); default: every\n"
            "                 parameter that varies.  Runs must agree on the others.\n"
            "  --basis TERM   also try TERM as a basis function, e.g. 'N^2*log2(N)', 'sqrt(N)',\n"
            "                 'N^(1/3)', 'N*M' (repeat for several, at most %d); --basis static:\n"
            "                 also fit the scopes of the static model stored by augur static --db\n"
            "                 on its formulas (the form from the source, coefficients from the runs)\n"
            "  --jobs N       fit on N threads (default: the processors online, now %d); the\n"
            "                 models stored are the same for any N\n"
            "  --show         print the newest model set's formulas with their errors and, under each,\n"
            "                 what every training run measured, the model's value there and the\n"
            "                 residual\n"
            "  --scope NAME   with --show: only functions and scopes whose name contains NAME\n"
            "  --phase PHASE  with --show: the model set of that phase of the runs\n"
            "  --format text|json  with --show: text (default) or JSON (docs/models.md)\n"
            "  --quiet        no progress lines (on a terminal they include a count of the\n"
            "                 reuse-distance groups fitted, updated in place)\n"
            "  -h, --help     show this help\n"
            "\n"
            "examples:\n"
            "  for n in 16 24 32 40 48; do augur collect --param N=$n -- ./matmul $n; done\n"
            "  augur model\n"
            "  augur model --show --scope multiply\n"
            "  augur predict --param N=400 --cache 32K --cache 1M\n"
            "\n"
            "Exit status: 0 success, 2 usage error, 1 other errors.  See docs/models.md.\n",
            default_db_path(), MODEL_MAX_PARAMS, MODEL_MAX_BASIS, par_online_cpus());
}

#define usage_error(...) cli_usage_error("model", __VA_ARGS__)

/* 0 when the basis term is well formed, whatever its parameters are called
 * (the runs, read later, say which exist); else -1 with the parser's
 * message.  Every identifier of the term is offered as a parameter name, so
 * that only the syntax is judged here: a usage error, not a failed fit. */
static int check_basis_syntax(const char *term, char *err, size_t errlen)
{
    enum { MAX_IDS = 32 };
    char ids[MAX_IDS][64];
    const char *names[MAX_IDS];
    int n = 0;
    for (const char *p = term; *p && n < MAX_IDS;) {
        size_t len = 0;
        while (p[len] == '_' || isalpha((unsigned char)p[len]) || (len && isdigit((unsigned char)p[len])))
            len++;
        if (len) {
            snprintf(ids[n], sizeof ids[n], "%.*s", (int)len, p);
            names[n] = ids[n];
            n++;
        }
        p += len ? len : 1;
    }
    model_term t;
    return model_parse_term(term, names, n, &t, err, errlen);
}

static int parse_option(int opt, const char *arg, void *ctx)
{
    model_cli *o = ctx;
    char why[512];
    switch (opt) {
    case 'd':
        o->db_path = arg;
        return 0;
    case 'r':
        return cli_take_runs("model", arg, o->runs, &o->nruns, MAX_RUNS);
    case 'p':
        if (o->nparams == MODEL_MAX_PARAMS)
            return usage_error("too many --param options (at most %d)", MODEL_MAX_PARAMS);
        o->params[o->nparams++] = arg;
        return 0;
    case 'b':
        if (!strcmp(arg, "static")) {
            o->static_basis = 1;
            return 0;
        }
        if (o->nbasis == MODEL_MAX_BASIS)
            return usage_error("too many --basis options (at most %d)", MODEL_MAX_BASIS);
        if (check_basis_syntax(arg, why, sizeof why) != 0)
            return usage_error("--basis: %s", why);
        o->basis[o->nbasis++] = arg;
        return 0;
    case 's':
        o->show = 1;
        return 0;
    case 'S':
        o->scope = arg;
        return 0;
    case 'H':
        o->phase = arg;
        return 0;
    case 'q':
        o->quiet = 1;
        return 0;
    case 'j': {
        uint64_t n;
        if (parse_u64(arg, &n) != 0 || n < 1 || n > MAX_JOBS)
            return usage_error("bad --jobs '%s': give a number of threads from 1 to %d", arg, MAX_JOBS);
        o->jobs = (int)n;
        return 0;
    }
    case 'f':
        o->include_failed = 1;
        return 0;
    case 'F':
        o->format_given = 1;
        return cli_take_format("model", arg, &o->json);
    default:
        return EXIT_USAGE;
    }
}

static int parse_options(int argc, char **argv, model_cli *o)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},    {"runs", required_argument, NULL, 'r'},
        {"param", required_argument, NULL, 'p'}, {"basis", required_argument, NULL, 'b'},
        {"show", no_argument, NULL, 's'},        {"scope", required_argument, NULL, 'S'},
        {"quiet", no_argument, NULL, 'q'},       {"help", no_argument, NULL, 'h'},
        {"include-failed", no_argument, NULL, 'f'}, {"format", required_argument, NULL, 'F'},
        {"jobs", required_argument, NULL, 'j'},  {"phase", required_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->db_path = default_db_path();
    int operands, rc = cli_getopt("model", argc, argv, longopts, parse_option, o, &operands);
    if (rc != 0)
        return rc;
    if (operands < argc)
        return usage_error("unexpected argument '%s'", argv[operands]);
    if (o->scope && !o->show)
        return usage_error("--scope goes with --show");
    if (o->phase && !o->show)
        return usage_error("--phase goes with --show (a fit models every phase the runs share)");
    if (o->format_given && !o->show)
        return usage_error("--format goes with --show (a fit prints one summary line)");
    if (o->show && (o->nruns || o->include_failed || o->nparams || o->nbasis || o->static_basis || o->jobs))
        return usage_error("--show prints the newest model set as stored; --runs, --include-failed, --param, "
                           "--basis and --jobs choose what a new fit uses (run augur model with them, then --show)");
    return 0;
}

/* Analyse and store the structure of every build the candidate runs
 * (o->runs, else every run) ran whose file is still that build and whose
 * structure is not stored yet: runs of several builds are matched by their
 * structures, which `augur collect` stores, but not an older one. */
static int store_builds(db *d, const model_cli *o, char *err, size_t errlen)
{
    db_run_program *p;
    size_t n;
    if (db_run_programs(d, &p, &n, err, errlen) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        int wanted = !o->nruns;
        for (size_t k = 0; k < o->nruns; k++)
            wanted |= o->runs[k] == p[i].run_id;
        int64_t id;
        if (!wanted || !p[i].path || !*p[i].build_id ||
            (rc = db_binary_of_build(d, p[i].build_id, &id, err, errlen)) != DB_NOT_FOUND)
            continue;
        scope_tree t;
        rc = structure_tree_if_current(d, p[i].path, p[i].build_id, NULL, &t, err, errlen);
        if (rc == 0)
            scope_tree_free(&t);
        rc = rc < 0 ? -1 : 0;
    }
    db_run_programs_free(p, n);
    return rc;
}

/* The structure of the program the newest candidate run ran (the
 * reference build when there are several): stored, or analysed now if
 * never before; 1 (with a warning) when the program is gone or was rebuilt
 * and its structure was not stored. */
static int program_tree(db *d, const model_cli *o, scope_tree *t, char *err, size_t errlen)
{
    int64_t run = 0;
    for (size_t k = 0; k < o->nruns; k++)
        run = o->runs[k] > run ? o->runs[k] : run;
    if (!run && db_newest_run(d, &run, err, errlen) != 0)
        return -1;
    if (store_builds(d, o, err, errlen) != 0)
        return -1;
    db_run_module *mods;
    size_t n;
    if (db_run_modules(d, run, &mods, &n, err, errlen) != 0)
        return -1;
    int rc = n ? structure_tree_of_build(d, mods[0].path, mods[0].build_id, NULL, t, err, errlen) : 1;
    if (rc == 1 && n)
        fprintf(stderr, "augur model: warning: %s is missing or was rebuilt since the runs, and its structure was "
                        "not stored: no scope models, and every memory instruction of the program is a "
                        "reuse-distance group of its own\n", mods[0].path);
    db_run_modules_free(mods, n);
    return rc;
}

/* Warn of run r when its program exited non-zero; 1 if it did, 0 if not,
 * -1 + err when it cannot be read.  `fate` says what is done with it. */
static int warn_failed(db *d, int64_t r, const char *fate, char *err, size_t errlen)
{
    db_run run;
    int rc = db_get_run(d, r, &run, err, errlen); /* a missing run is modelset's to report */
    int failed = rc == 0 && run.exit_code != 0;
    if (failed)
        fprintf(stderr, "augur model: warning: run %lld: the program exited with status %d; %s\n", (long long)r,
                run.exit_code, fate);
    db_run_free(&run);
    return rc < 0 ? -1 : failed;
}

/* Without --runs, the complete runs whose program exited with status 0
 * (a failed program's counts are those of its error path, not of the
 * problem size), or with --include-failed all of them; o->runs stays empty,
 * the default, when none is left out.  Every failed run is warned of. */
static int select_runs(db *d, model_cli *o, char *err, size_t errlen)
{
    if (o->nruns) {
        for (size_t i = 0; i < o->nruns; i++)
            if (warn_failed(d, o->runs[i], "fitted, as --runs names it", err, errlen) < 0)
                return -1;
        return 0;
    }
    const char *fate = o->include_failed ? "fitted (--include-failed)"
                                         : "left out (--include-failed fits it, --runs names runs)";
    int64_t *ids;
    size_t n, left_out = 0, kept = 0;
    if (db_complete_runs(d, &ids, &n, err, errlen) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc >= 0; i++) {
        rc = warn_failed(d, ids[i], fate, err, errlen);
        if (rc == 0 || (rc == 1 && o->include_failed)) {
            if (kept < MAX_RUNS)
                o->runs[kept] = ids[i];
            kept++;
        }
        left_out += rc == 1 && !o->include_failed;
    }
    free(ids);
    if (rc < 0)
        return -1;
    if (left_out && kept == 0) {
        snprintf(err, errlen, "every complete run's program exited non-zero; fix the runs, or give --include-failed");
        return -1;
    }
    if (left_out && kept > MAX_RUNS) { /* the list cannot hold them; without a failed run none is needed */
        snprintf(err, errlen, "%zu runs to fit, more than %d: name them with --runs", kept, MAX_RUNS);
        return -1;
    }
    o->nruns = left_out ? kept : 0;
    return 0;
}

/* The warning naming the series that could not be modeled, each with its
 * reason, the first MAX_UNMODELED_SHOWN of them (docs/models.md, "Series
 * that cannot be modeled"). */
#define MAX_UNMODELED_SHOWN 20
static void warn_unmodeled(const modelset_summary *sum, const char *phase)
{
    if (!sum->nfailed)
        return;
    char head[768];
    int n = snprintf(head, sizeof head, "%s%s%s%zu series could not be modeled and were left out (augur predict "
                     "counts a count without a model as 0 and predicts no misses for a group without one)",
                     phase ? "phase " : "", phase ? phase : "", phase ? ": " : "", sum->nfailed);
    for (int k = 0; sum->nparams > 1 && k < sum->nparams && n > 0 && (size_t)n < sizeof head; k++)
        n += snprintf(head + n, sizeof head - (size_t)n, "%s parameter %d is %s", k ? "," : ";", k + 1, sum->params[k]);
    if (n > 0 && (size_t)n < sizeof head - 1)
        strcat(head, ":");
    report_print_wrapped(stderr, "augur model: warning:", head, REPORT_WRAP_COLUMN);
    for (size_t i = 0; i < sum->nfailed && i < MAX_UNMODELED_SHOWN; i++) {
        char lead[64];
        snprintf(lead, sizeof lead, "  %zu.", i + 1);
        char *text = NULL;
        if (asprintf(&text, "%s: %s", sum->failed[i].what, sum->failed[i].why) < 0)
            text = NULL;
        report_print_wrapped(stderr, lead, text ? text : sum->failed[i].what, REPORT_WRAP_COLUMN);
        free(text);
    }
    if (sum->nfailed > MAX_UNMODELED_SHOWN)
        fprintf(stderr, "  ... and %zu more\n", sum->nfailed - MAX_UNMODELED_SHOWN);
}

/* Print what a fit stored (the set of a phase names it) and its warnings. */
static void print_stored(const modelset_summary *sum, const char *phase)
{
    char builds[64] = "", of_phase[300] = "";
    if (sum->builds > 1)
        snprintf(builds, sizeof builds, " (%zu builds, matched by source location)", sum->builds);
    if (phase)
        snprintf(of_phase, sizeof of_phase, " for phase %s", phase);
    printf("model set %lld stored%s: %zu models over %zu runs%s, %zu reuse-distance groups%s\n",
           (long long)sum->set_id, of_phase, sum->models, sum->runs, builds, sum->groups,
           sum->nfailed ? " (some series could not be modeled: named on standard error)" : "");
    warn_unmodeled(sum, phase);
    if (sum->nunmatched)
        fprintf(stderr, "augur model: warning: %zu scope%s could not be matched across the %zu builds and %s left "
                        "out, with the scopes inside (augur model --show lists them):\n",
                sum->nunmatched, sum->nunmatched == 1 ? "" : "s", sum->builds, sum->nunmatched == 1 ? "is" : "are");
    for (size_t i = 0; i < sum->nunmatched; i++)
        fprintf(stderr, "  %s\n", sum->unmatched[i]);
}

/* The interval runs of each of n runs (db_run_intervals), into iv[r], niv[r]. */
static int read_intervals(db *d, const int64_t *runs, size_t n, db_interval **iv, size_t *niv, char *err,
                          size_t errlen)
{
    for (size_t r = 0; r < n; r++)
        if (db_run_intervals(d, runs[r], &iv[r], &niv[r], err, errlen) != 0)
            return -1;
    return 0;
}

/* The interval run of `phase` among iv[0..n), or 0. */
static int64_t phase_run(const db_interval *iv, size_t n, const char *phase)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(iv[i].phase, phase))
            return iv[i].run_id;
    return 0;
}

/* Is phase iv[r][i] the first of its name over runs 0..r (so each phase is
 * met once, in the order the runs list them)? */
static int first_seen(db_interval *const *iv, const size_t *niv, size_t r, size_t i)
{
    for (size_t q = 0; q <= r; q++)
        for (size_t j = 0; j < (q == r ? i : niv[q]); j++)
            if (!strcmp(iv[q][j].phase, iv[r][i].phase))
                return 0;
    return 1;
}

/* Fit and store one phase's set over its interval runs ids[0..n), or warn
 * that it cannot be fitted and why: the whole runs' set stands either way. */
static void fit_phase(db *d, const modelset_options *whole, int64_t parent, const char *phase, const int64_t *ids,
                     size_t n)
{
    char err[1024];
    modelset_options mo = *whole;
    mo.runs = ids, mo.nruns = n;
    mo.phase = phase, mo.parent_set = parent;
    if (mo.progress)
        fprintf(mo.progress, "augur model: phase %s: fitting its interval runs of set %lld's runs\n", phase,
                (long long)parent);
    modelset_summary sum;
    if (modelset_fit(d, &mo, &sum, err, sizeof err) == 0)
        print_stored(&sum, phase);
    else
        fprintf(stderr, "augur model: warning: phase %s was not modeled: %s\n", phase, err);
    modelset_summary_free(&sum);
}

/* Warn that `phase` is missing from some of the runs (it is not fitted). */
static void warn_missing_phase(const char *phase, db_interval *const *iv, const size_t *niv, const int64_t *runs,
                               size_t n)
{
    fprintf(stderr, "augur model: warning: phase %s is not in every training run, so it is not modeled: not in run",
            phase);
    for (size_t r = 0, k = 0; r < n; r++)
        if (!phase_run(iv[r], niv[r], phase))
            fprintf(stderr, "%s %lld", k++ ? "," : "", (long long)runs[r]);
    fputc('\n', stderr);
}

/* One model set per phase that every run of the whole runs' set `sum` has
 * (runs.phase of their interval runs), its runs the interval runs of that
 * phase, with the whole set's parameters; a phase some runs lack is named
 * in a warning. */
static int fit_phases(db *d, const modelset_options *whole, const modelset_summary *sum, char *err, size_t errlen)
{
    size_t n = sum->runs;
    db_interval **iv = calloc(n + 1, sizeof *iv);
    size_t *niv = calloc(n + 1, sizeof *niv);
    int64_t *ids = calloc(n + 1, sizeof *ids);
    int rc = iv && niv && ids ? read_intervals(d, sum->run_ids, n, iv, niv, err, errlen)
                              : (snprintf(err, errlen, "out of memory"), -1);
    const char *params[MODEL_MAX_PARAMS];
    for (int k = 0; k < sum->nparams; k++)
        params[k] = sum->params[k];
    modelset_options mo = *whole;
    mo.params = params, mo.nparams = sum->nparams;
    for (size_t r = 0; rc == 0 && r < n; r++)
        for (size_t i = 0; rc == 0 && i < niv[r]; i++) {
            const char *phase = iv[r][i].phase;
            if (!first_seen(iv, niv, r, i))
                continue;
            size_t have = 0;
            for (size_t q = 0; q < n; q++)
                have += (ids[q] = phase_run(iv[q], niv[q], phase)) != 0;
            if (have < n)
                warn_missing_phase(phase, iv, niv, sum->run_ids, n);
            else
                fit_phase(d, &mo, sum->set_id, phase, ids, n);
        }
    for (size_t r = 0; iv && r < n; r++)
        db_intervals_free(iv[r], niv[r]);
    free(iv), free(niv), free(ids);
    return rc;
}

static int fit(db *d, model_cli *o, char *err, size_t errlen)
{
    scope_tree tree = {0};
    if (select_runs(d, o, err, errlen) != 0)
        return -1;
    int have = program_tree(d, o, &tree, err, errlen);
    if (have < 0)
        return -1;
    modelset_options mo = {.runs = o->nruns ? o->runs : NULL, .nruns = o->nruns,
                           .params = o->nparams ? o->params : NULL, .nparams = o->nparams,
                           .basis = o->basis, .nbasis = o->nbasis, .program = have == 0 ? &tree : NULL,
                           .progress = o->quiet ? NULL : stderr, .progress_counts = isatty(STDERR_FILENO),
                           .jobs = o->jobs ? o->jobs : par_online_cpus(), .static_basis = o->static_basis};
    if (o->static_basis && have != 0) {
        snprintf(err, errlen, "--basis static fits the program's scopes, and the structure of its binary is not "
                 "stored (run augur structure --db %s PROGRAM, or leave --basis static out)", o->db_path);
        return -1;
    }
    modelset_summary sum;
    int rc = modelset_fit(d, &mo, &sum, err, errlen);
    if (rc == 0) {
        print_stored(&sum, NULL);
        rc = fit_phases(d, &mo, &sum, err, errlen);
    }
    modelset_summary_free(&sum);
    if (have == 0)
        scope_tree_free(&tree);
    return rc;
}

int cmd_model(int argc, char **argv)
{
    model_cli o;
    int rc = parse_options(argc, argv, &o);
    if (rc == SHOW_HELP) {
        print_help(stdout);
        return EXIT_OK;
    }
    if (rc != 0)
        return rc;
    char err[1024];
    db *d;
    if (db_open(o.db_path, 0, &d, err, sizeof err) == 0) {
        rc = o.show ? model_show(d, o.phase, o.scope, o.json, stdout, err, sizeof err) : fit(d, &o, err, sizeof err);
        db_close(d);
    } else
        rc = -1;
    if (rc != 0) {
        fprintf(stderr, "augur model: %s\n", err);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}
