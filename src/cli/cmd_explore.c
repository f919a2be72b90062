/* cmd_explore.c — `augur explore`: write one self-contained HTML page of
 * the database's runs, models and predictions (src/explore,
 * docs/explore.md).  Exit status: 0 success, 2 usage error, 1 other errors
 * (no database or run, a bad machine or memspy file, an output that
 * cannot be written; nothing is left half-written). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output_file.h"
#include "cli/structure_store.h"
#include "explore/explore.h"
#include "report/report.h"
#include "util/parse.h"

#define MAX_MACHINES 8
#define DEFAULT_OUTPUT "explore.html"

typedef struct explore_cli {
    const char *db_path, *output, *memspy;
    const char *machines[MAX_MACHINES];
    size_t nmachines;
    size_t grid;
    int quiet;
} explore_cli;

static void print_help(FILE *to)
{
    fprintf(to,
            "usage: augur explore [--db FILE] [--output FILE.html] [--machine NAME|FILE]...\n"
            "                     [--memspy FILE.json] [--grid N] [--quiet]\n"
            "\n"
            "Write one HTML page that opens in any browser without network: the program's source\n"
            "annotated with the counts and misses of a chosen run or of a prediction, the scope tree\n"
            "with misses per level, cycles, time and each loop's bound, every model's formula with a\n"
            "plot of the measured points, the fitted curve, its extrapolation and its range, the\n"
            "reuse-distance histograms of the loops with the machine's cache capacities marked,\n"
            "sliders for the parameters and a machine selector, and memspy's ranking.  The page\n"
            "evaluates the models itself as augur predict does; the machine models' cycles and times\n"
            "are computed here on a grid of parameter values.\n"
            "\n"
            "options:\n"
            "  --db FILE            the experiment database (default: $AUGUR_DB, else augur.db; now %s)\n"
            "  --output FILE.html   the page to write (default: %s)\n"
            "  --machine NAME|FILE  a described machine (machines/NAME.yaml, or a file); repeat for\n"
            "                       more (at most %d; the page has a selector); default %s\n"
            "  --memspy FILE.json   a memspy report (augur memspy --format json) to rank code and data\n"
            "  --grid N             parameter values per parameter at which the machine models are\n"
            "                       computed (default %d, 2 to %d): more is smoother and slower\n"
            "  --quiet              no progress lines\n"
            "  -h, --help           show this help\n"
            "\n"
            "examples:\n"
            "  augur explore --db mm.db --output mm.html\n"
            "  augur explore --db mm.db --machine zen4 --machine sapphire-rapids --memspy ms.json\n"
            "\n"
            "Without models (augur model) the page shows the measured runs and says what to run.\n"
            "Exit status: 0 success, 2 usage error, 1 other errors.  See docs/explore.md.\n",
            default_db_path(), DEFAULT_OUTPUT, MAX_MACHINES, EXPLORE_DEFAULT_MACHINE, EXPLORE_DEFAULT_GRID,
            EXPLORE_MAX_GRID);
}

#define usage_error(...) cli_usage_error("explore", __VA_ARGS__)

static int parse_option(int opt, const char *arg, void *ctx)
{
    explore_cli *o = ctx;
    uint64_t v;
    switch (opt) {
    case 'd':
        o->db_path = arg;
        return 0;
    case 'o':
        o->output = arg;
        return 0;
    case 'm':
        if (o->nmachines == MAX_MACHINES)
            return usage_error("at most %d --machine options", MAX_MACHINES);
        o->machines[o->nmachines++] = arg;
        return 0;
    case 's':
        o->memspy = arg;
        return 0;
    case 'g':
        if (parse_u64(arg, &v) != 0 || v < 2 || v > EXPLORE_MAX_GRID)
            return usage_error("--grid '%s': give a whole number from 2 to %d", arg, EXPLORE_MAX_GRID);
        o->grid = (size_t)v;
        return 0;
    case 'q':
        o->quiet = 1;
        return 0;
    default:
        return EXIT_USAGE;
    }
}

static int parse_options(int argc, char **argv, explore_cli *o)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},      {"output", required_argument, NULL, 'o'},
        {"machine", required_argument, NULL, 'm'}, {"memspy", required_argument, NULL, 's'},
        {"grid", required_argument, NULL, 'g'},    {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    *o = (explore_cli){.db_path = default_db_path(), .output = DEFAULT_OUTPUT, .grid = EXPLORE_DEFAULT_GRID};
    int operands, rc = cli_getopt("explore", argc, argv, longopts, parse_option, o, &operands);
    if (rc != 0)
        return rc;
    if (operands < argc)
        return usage_error("unexpected argument '%s'", argv[operands]);
    if (o->nmachines == 0)
        o->machines[o->nmachines++] = EXPLORE_DEFAULT_MACHINE;
    return 0;
}

/* ---- the runs and their program's scope trees ---------------------------------------- */

/* The runs to show (every complete run) with the scope tree of each one's
 * program, analysed now if never before; trees of one build are loaded
 * once (trees[0..*ntrees)). */
typedef struct run_set {
    explore_run *runs;
    size_t nruns;
    scope_tree *trees;
    char **keys; /* "path\nbuild-id" of each tree */
    size_t ntrees;
} run_set;

static void run_set_free(run_set *s)
{
    for (size_t i = 0; i < s->ntrees; i++) {
        scope_tree_free(&s->trees[i]);
        free(s->keys[i]);
    }
    free(s->trees);
    free(s->keys);
    free(s->runs);
}

/* The tree of run_id's program into *tree (NULL when the program is not
 * identified, gone or rebuilt). */
static int run_tree(db *d, int64_t run_id, run_set *s, const scope_tree **tree, char *err, size_t errlen)
{
    db_run_module *mods;
    size_t n;
    *tree = NULL;
    if (db_run_modules(d, run_id, &mods, &n, err, errlen) != 0)
        return -1;
    int rc = 0;
    if (n && mods[0].is_program) {
        char key[8192];
        snprintf(key, sizeof key, "%s\n%s", mods[0].path, mods[0].build_id);
        size_t i = 0;
        while (i < s->ntrees && strcmp(s->keys[i], key))
            i++;
        if (i == s->ntrees && (rc = structure_tree_if_current(d, mods[0].path, mods[0].build_id, NULL, &s->trees[i], err,
                                                              errlen)) == 0) {
            if (!(s->keys[i] = strdup(key))) {
                scope_tree_free(&s->trees[i]);
                rc = -1, snprintf(err, errlen, "out of memory");
            } else
                s->ntrees++;
        }
        if (rc == 0)
            *tree = &s->trees[i];
        rc = rc == 1 ? 0 : rc;
    }
    db_run_modules_free(mods, n);
    return rc;
}

static int load_runs(db *d, run_set *s, char *err, size_t errlen)
{
    int64_t *ids;
    size_t n;
    memset(s, 0, sizeof *s);
    if (db_complete_runs(d, &ids, &n, err, errlen) != 0)
        return -1;
    int rc = 0;
    if (n == 0) {
        snprintf(err, errlen, "%s has no complete run: collect one first (augur collect --db %s --param N=... -- "
                 "PROGRAM ARGS)", db_path(d), db_path(d));
        rc = -1;
    }
    s->runs = rc == 0 ? calloc(n, sizeof *s->runs) : NULL;
    s->trees = rc == 0 ? calloc(n, sizeof *s->trees) : NULL;
    s->keys = rc == 0 ? calloc(n, sizeof *s->keys) : NULL;
    if (rc == 0 && (!s->runs || !s->trees || !s->keys))
        rc = -1, snprintf(err, errlen, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        s->runs[i].id = ids[i];
        rc = run_tree(d, ids[i], s, &s->runs[i].tree, err, errlen);
        s->nruns++;
    }
    free(ids);
    return rc;
}

/* ---- the page -------------------------------------------------------------------------- */

/* Write the page to o->output, atomically: a failure leaves no file. */
static int write_page(const explore_cli *o, const json_t *data, char *err, size_t errlen)
{
    output_file of;
    if (output_open(&of, o->output, err, errlen) != 0)
        return -1;
    errno = 0;
    int ok = explore_write_html(data, of.f) == 0;
    char why[512]; /* output_close's message, after a failure already told */
    if (!ok)
        snprintf(err, errlen, "cannot write %s: %s", o->output, errno ? strerror(errno) : "out of memory");
    int closed = output_close(&of, ok, ok ? err : why, ok ? errlen : sizeof why);
    return ok && closed == 0 ? 0 : -1;
}

static int explore(db *d, const explore_cli *o, const machine *machines, json_t *memspy, char *err, size_t errlen)
{
    run_set s;
    json_t *data = NULL;
    int rc = load_runs(d, &s, err, errlen);
    if (rc == 0 && (rc = db_read_begin(d, err, errlen)) == 0) {
        explore_options eo = {.runs = s.runs, .nruns = s.nruns, .machines = machines, .nmachines = o->nmachines,
                              .memspy = memspy, .grid = o->grid, .progress = o->quiet ? NULL : stderr};
        rc = explore_build(d, &eo, &data, err, errlen);
        db_read_end(d);
    }
    if (rc == 0)
        rc = write_page(o, data, err, errlen);
    json_decref(data);
    run_set_free(&s);
    return rc;
}

int cmd_explore(int argc, char **argv)
{
    explore_cli o;
    int rc = parse_options(argc, argv, &o);
    if (rc == SHOW_HELP) {
        print_help(stdout);
        return EXIT_OK;
    }
    if (rc != 0)
        return rc;
    char err[1024];
    machine machines[MAX_MACHINES];
    size_t loaded = 0;
    json_t *memspy = NULL;
    rc = output_check(o.output, err, sizeof err);
    while (rc == 0 && loaded < o.nmachines && (rc = machine_find(o.machines[loaded], &machines[loaded], err,
                                                                 sizeof err)) == 0)
        loaded++;
    if (rc == 0 && o.memspy)
        rc = explore_memspy_load(o.memspy, &memspy, err, sizeof err);
    db *d;
    if (rc == 0 && (rc = db_open(o.db_path, 0, &d, err, sizeof err)) == 0) {
        rc = explore(d, &o, machines, memspy, err, sizeof err);
        db_close(d);
    }
    for (size_t i = 0; i < loaded; i++)
        machine_free(&machines[i]);
    json_decref(memspy);
    if (rc != 0) {
        fprintf(stderr, "augur explore: %s\n", err);
        return EXIT_FAILURE_OTHER;
    }
    if (!o.quiet)
        fprintf(stderr, "augur explore: wrote %s\n", o.output);
    return EXIT_OK;
}
