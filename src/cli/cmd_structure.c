/* cmd_structure.c — `augur structure`: the static structure of a program
 * (and, with --libs, of its shared objects): functions, loops, inlined
 * code, with source lines, analysed once per build-id and kept in the
 * experiment database (docs/structure.md).  Exit status: 0 success, 2
 * usage error, 1 anything else (not an ELF file, truncated, database). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/launch.h"
#include "cli/shared_libs.h"
#include "cli/structure_store.h"
#include "machine/machine.h"
#include "perf/core_model.h"
#include "report/report.h"


typedef struct structure_options {
    const char *db_path;
    const char *program;
    const char *machine; /* --machine NAME|FILE, or NULL */
    int json, libs, timing;
} structure_options;

/* The core model of the program's loops on the --machine core. */
typedef struct core_view {
    machine m;
    st_module *mod;
    perf_loop_core *rows;
    size_t n;
} core_view;

static void print_help(FILE *to)
{
    fprintf(to,
            "usage: augur structure [--db FILE] [--format text|json] [--libs] [--timing]\n"
            "                       [--machine NAME|FILE] PROGRAM\n"
            "\n"
            "Analyse the machine code of PROGRAM (an x86-64 ELF executable or shared object):\n"
            "functions, basic blocks, loops and their nesting, code inlined from other functions,\n"
            "with their source files and lines, and print the scope tree\n"
            "program -> module -> function -> loop / inlined -> ...\n"
            "The analysis is stored in the experiment database under the binary's build-id, so that\n"
            "profiles join to it (augur report --scopes) and a second call reuses it.\n"
            "\n"
            "options:\n"
            "  --db FILE            the experiment database (default: $AUGUR_DB, else augur.db;\n"
            "                       now %s); created if missing\n"
            "  --format text|json   an indented tree (default), or nested JSON scopes\n"
            "  --libs               also analyse the shared objects PROGRAM loads\n"
            "  --timing             print the time spent analysing and storing to stderr\n"
            "  --machine NAME|FILE  after the tree, a table of the program's loops with their cycles\n"
            "                       per iteration on that machine's core (issue, port and recurrence\n"
            "                       bounds, every access an L1 hit; text format only)\n"
            "  -h, --help           show this help\n"
            "\n"
            "A stripped binary is analysed with function names from its dynamic symbols only; a binary\n"
            "without DWARF (built without -g) has no source lines. Both are said in the output.\n"
            "\n"
            "examples:\n"
            "  augur structure ./matmul\n"
            "  augur structure --format json --libs ./matmul > structure.json\n"
            "  augur structure --machine sapphire-rapids ./matmul\n"
            "\n"
            "Exit status: 0 success, 2 usage error, 1 other errors.  See docs/structure.md.\n",
            default_db_path());
}

#define usage_error(...) cli_usage_error("structure", __VA_ARGS__)

static int parse_option(int opt, const char *arg, void *ctx)
{
    structure_options *o = ctx;
    switch (opt) {
    case 'd':
        o->db_path = arg;
        return 0;
    case 'f':
        return cli_take_format("structure", arg, &o->json);
    case 'l':
        o->libs = 1;
        return 0;
    case 't':
        o->timing = 1;
        return 0;
    case 'm':
        o->machine = arg;
        return 0;
    default:
        return EXIT_USAGE;
    }
}

static int parse_options(int argc, char **argv, structure_options *o)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'}, {"format", required_argument, NULL, 'f'},
        {"libs", no_argument, NULL, 'l'},     {"timing", no_argument, NULL, 't'},
        {"machine", required_argument, NULL, 'm'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (structure_options){.db_path = default_db_path()};
    int operands, rc = cli_getopt("structure", argc, argv, longopts, parse_option, o, &operands);
    if (rc != 0)
        return rc;
    if (operands >= argc)
        return usage_error("no PROGRAM given");
    if (operands + 1 < argc)
        return usage_error("unexpected argument '%s': give one PROGRAM", argv[operands + 1]);
    o->program = argv[operands];
    if (o->machine && o->json)
        return usage_error("--machine prints a text table: drop --format json");
    return 0;
}

/* The program, then its shared objects when asked for. */
static int module_paths(const structure_options *o, const char *program, char ***paths, size_t *n, char *err,
                        size_t errlen)
{
    char **libs = NULL;
    size_t nlibs = 0;
    if (o->libs && list_shared_objects(program, &libs, &nlibs, err, errlen) != 0) {
        fprintf(stderr, "augur structure: warning: %s; analysing the program alone\n", err);
        nlibs = 0;
    }
    *paths = calloc(nlibs + 1, sizeof **paths);
    if (!*paths || !((*paths)[0] = strdup(program))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < nlibs; i++)
        (*paths)[i + 1] = libs[i];
    free(libs);
    *n = nlibs + 1;
    return 0;
}

/* Analyse (or find) every module, then load their trees. */
static int load_trees(db *d, const structure_options *o, char **paths, size_t n, scope_tree *trees, char *err,
                      size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        int64_t id;
        int analysed;
        structure_timing tm;
        char label[PATH_MAX + 64];
        snprintf(label, sizeof label, "%s (module %zu of %zu)", report_base_name(paths[i]), i + 1, n);
        if (structure_ensure(d, paths[i], n > 1 ? label : NULL, &id, &analysed, &tm, err, errlen) != 0)
            return -1;
        if (o->timing && analysed)
            fprintf(stderr, "augur structure: %s: analysed in %.3f s, stored in %.3f s\n", paths[i], tm.analyse,
                    tm.store);
        else if (o->timing)
            fprintf(stderr, "augur structure: %s: found in the database\n", paths[i]);
        if (scope_tree_load(d, id, &trees[i], err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* The machine, the program's analysis and its loops' core model, all
 * before anything is printed.  Returns 0 or -1 with a message. */
static int core_view_build(const char *machine_name, const char *program, core_view *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    if (machine_find(machine_name, &v->m, err, errlen) != 0)
        return -1;
    if (st_analyse(program, NULL, &v->mod, err, errlen) != 0)
        return -1;
    return perf_core_module(&v->m, v->mod, &v->rows, &v->n, err, errlen);
}

static void core_view_free(core_view *v)
{
    free(v->rows);
    if (v->mod)
        st_module_free(v->mod);
    machine_free(&v->m);
}

static int run(const structure_options *o, const char *program, char *err, size_t errlen)
{
    char **paths = NULL;
    size_t n = 0;
    db *d = NULL;
    scope_tree *trees = NULL;
    core_view core = {0};
    int rc = o->machine ? core_view_build(o->machine, program, &core, err, errlen) : 0;
    if (rc == 0)
        rc = module_paths(o, program, &paths, &n, err, errlen);
    if (rc == 0)
        rc = db_open(o->db_path, 1, &d, err, errlen);
    if (rc == 0 && !(trees = calloc(n, sizeof *trees))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        rc = load_trees(d, o, paths, n, trees, err, errlen);
    if (rc == 0) {
        errno = 0;
        rc = o->json ? structure_write_json(program, trees, n, stdout) : structure_write_text(program, trees, n, stdout);
        if (rc == 0 && o->machine)
            rc = structure_write_core_text(&core.m, core.mod, core.rows, core.n, stdout);
        if (rc == 0 && fflush(stdout) != 0)
            rc = -1;
        if (rc != 0)
            snprintf(err, errlen, "cannot write the output: %s", errno ? strerror(errno) : "out of memory");
    }
    for (size_t i = 0; trees && i < n; i++)
        scope_tree_free(&trees[i]);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(trees);
    free(paths);
    db_close(d);
    core_view_free(&core);
    return rc;
}

int cmd_structure(int argc, char **argv)
{
    structure_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc == SHOW_HELP) {
        print_help(stdout);
        return EXIT_OK;
    }
    if (rc != 0)
        return rc;
    char err[1024], found[PATH_MAX], program[PATH_MAX];
    /* A path names any ELF file (shared objects are not executable); a bare
     * name is looked up in PATH as the shell would. */
    if (strchr(o.program, '/') && access(o.program, R_OK) == 0) {
        snprintf(found, sizeof found, "%s", o.program);
    } else if (strchr(o.program, '/')) {
        fprintf(stderr, "augur structure: cannot read %s: %s\n", o.program, strerror(errno));
        return EXIT_FAILURE_OTHER;
    } else if (find_program(o.program, found, sizeof found, err, sizeof err) != 0) {
        fprintf(stderr, "augur structure: %s\n", err);
        return EXIT_FAILURE_OTHER;
    }
    /* The canonical path, as runs' modules name the file (structure_ensure). */
    if (!realpath(found, program)) {
        fprintf(stderr, "augur structure: cannot resolve %s: %s\n", found, strerror(errno));
        return EXIT_FAILURE_OTHER;
    }
    if (run(&o, program, err, sizeof err) != 0) {
        fprintf(stderr, "augur structure: %s\n", err);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}
