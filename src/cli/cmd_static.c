/* cmd_static.c — `augur static`: the static model of a C program from its
 * sources, without running it: loop trip counts and source operations per
 * function, loop and statement as exact formulas in the program's unknowns
 * (docs/static.md).  Exit status: 0 success, 2 usage error, 1 anything
 * else (no DWARF, a source that does not parse, an uncountable domain). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/runs.h"
#include "static/join.h"
#include "static/parse.h"
#include "static/static.h"

typedef enum out_format { OUT_TEXT, OUT_JSON, OUT_PYTHON } out_format;

typedef struct static_options {
    out_format format;
    const char *build_dir; /* -p */
    const char *machine;   /* --machine NAME|FILE, or NULL */
    const char *program;
    run_params params;
    char **sources, **clang_args;
    size_t nsources, nclang_args;
} static_options;

static void print_help(FILE *to)
{
    fprintf(to,
            "usage: augur static [--format text|json|python] [--param NAME=VALUE]... [--machine NAME|FILE]\n"
            "                    [-p|--build-dir BUILD_DIR] PROGRAM [-- SOURCE... [-- CLANG_ARGS...]]\n"
            "\n"
            "Build a static model of PROGRAM (a C program built with -g) from its sources, without\n"
            "running it: per function, loop and statement, the loops' trip counts and the source\n"
            "operations (floating-point + - * /, loads and stores of memory, their bytes) as exact\n"
            "formulas in the program's unknowns (function parameters, globals, values read at run\n"
            "time), counted over the loops' iteration domains (affine bounds, steps, min/max, affine\n"
            "and modulo guards) with PolyLib's Ehrhart polynomials; calls are composed with their\n"
            "arguments. PROGRAM's loops and blocks are joined to the source's (vector and unrolled\n"
            "bodies run the source iterations in blocks, remainder copies the rest): its instructions\n"
            "per class, flops, loads, stores and bytes as formulas too; with --machine, cycles. What cannot be counted becomes a named unknown, with a warning that gives its\n"
            "line and the annotation that settles it (#pragma augur loop iterations(EXPR), branch\n"
            "ratio(X), skip, param NAME(EXPR); or #pragma @Annotation {lp_init:X,lp_cond:Y,skip:yes}).\n"
            "\n"
            "The sources are the C compilation units of PROGRAM's DWARF, parsed with the options\n"
            "their DW_AT_producer records; or those of BUILD_DIR/compile_commands.json with -p; or\n"
            "the SOURCEs named after --, parsed with the CLANG_ARGS after a second --.\n"
            "\n"
            "options:\n"
            "  --format text|json|python  formulas per scope (default); JSON (functions[], loops[],\n"
            "                       unknowns[], total); or a Python module, one function per source\n"
            "                       function returning its counts\n"
            "  --param NAME=VALUE   a value of an unknown (an integer); formulas are then evaluated\n"
            "  --machine NAME|FILE  cycles on that machine (augur machine list): the core model's cycles\n"
            "                       per iteration of each binary loop times its iterations, and the\n"
            "                       memory term of its streams (bytes over one core's bandwidth)\n"
            "  -p, --build-dir BUILD_DIR  the sources and options of BUILD_DIR/compile_commands.json\n"
            "  -h, --help           show this help\n"
            "\n"
            "examples:\n"
            "  augur static ./matmul\n"
            "  augur static --param n=200 --format json ./matmul\n"
            "  augur static --format python ./matmul > matmul_model.py\n"
            "  augur static ./matmul -- matmul.c -- -DN=100\n"
            "\n"
            "Warnings go to stderr. Exit status: 0 success, 2 usage error, 1 other errors.\n"
            "See docs/static.md.\n");
}

#define usage_error(...) cli_usage_error("static", __VA_ARGS__)

static int take_option(int opt, const char *arg, void *ctx)
{
    static_options *o = ctx;
    char err[256];
    switch (opt) {
    case 'f': {
        static const char *const formats[] = {"text", "json", "python", NULL}; /* in out_format's order */
        int f;
        if (cli_take_format_of("static", arg, formats, &f) != 0)
            return EXIT_USAGE;
        o->format = (out_format)f;
        return 0;
    }
    case 'P':
        if (run_params_add(&o->params, arg, err, sizeof err) != 0)
            return usage_error("%s", err);
        return 0;
    case 'p':
        o->build_dir = arg;
        return 0;
    case 'm':
        o->machine = arg;
        return 0;
    default:
        return EXIT_USAGE;
    }
}

static int parse_options(int argc, char **argv, static_options *o)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'}, {"param", required_argument, NULL, 'P'},
        {"build-dir", required_argument, NULL, 'p'}, {"machine", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int operands;
    int rc = cli_getopt_program_short("static", "p:", argc, argv, longopts, take_option, o, &operands);
    if (rc != 0)
        return rc;
    if (operands >= argc)
        return usage_error("no PROGRAM given");
    o->program = argv[operands++];
    if (operands < argc && strcmp(argv[operands], "--"))
        return usage_error("unexpected argument '%s' after PROGRAM: sources come after --", argv[operands]);
    if (operands < argc)
        operands++;
    o->sources = argv + operands;
    while (operands < argc && strcmp(argv[operands], "--"))
        o->nsources++, operands++;
    if (operands < argc) {
        o->clang_args = argv + operands + 1;
        o->nclang_args = (size_t)(argc - operands - 1);
    }
    if (o->nsources && o->build_dir)
        return usage_error("give the sources either after -- or with -p, not both");
    if (o->nclang_args && !o->nsources)
        return usage_error("CLANG_ARGS need SOURCEs before them: PROGRAM -- SOURCE... -- CLANG_ARGS...");
    return 0;
}

/* The sources: named, from -p, or from the program's DWARF. */
static int find_sources(const static_options *o, sa_program *p, sa_sources *s, char *err, size_t errlen)
{
    if (o->build_dir)
        return sa_sources_from_database(p, o->build_dir, s, err, errlen);
    if (!o->nsources)
        return sa_sources_from_dwarf(p, o->program, s, err, errlen);
    for (size_t i = 0; i < o->nsources; i++) {
        sa_source src = {.path = o->sources[i], .args = (const char **)o->clang_args, .nargs = o->nclang_args};
        s->v = sa_push(p->arena, s->v, &s->n, sizeof src, &src);
    }
    return 0;
}

/* Sources found through the DWARF must match the binary's line table:
 * warnings for functions and loops on lines without instructions. */
static int check_lines(const static_options *o, sa_program *p)
{
    sa_code_lines c;
    if (!o->build_dir && !o->nsources && sa_read_code_lines(p, o->program, &c) == 0)
        sa_check_code_lines(p, &c, o->program);
    return 0;
}

/* Join PROGRAM's code to the model (its loops and blocks to the source's
 * loops and statements) and, with --machine, time it on that machine.  A
 * program without DWARF lines is left unjoined, with a warning.  Returns
 * 0, or -1 with a message (a machine that is not known, a file that is
 * not an x86-64 ELF). */
static int join_binary(const static_options *o, sa_program *p, char *err, size_t errlen)
{
    machine mach = {0};
    st_module *m = NULL;
    perf_loop_core *cores = NULL;
    size_t ncores = 0;
    if (o->machine && machine_find(o->machine, &mach, err, errlen) != 0)
        return -1;
    st_options so = {0};
    int rc = st_analyse(o->program, &so, &m, err, errlen);
    if (rc == 0 && o->machine)
        rc = perf_core_module(&mach, m, &cores, &ncores, err, errlen);
    if (rc == 0 && (m->flags & ST_NO_DWARF))
        sa_warn(p, o->program, 0, "has no DWARF lines: its code is not joined to the sources (build it with -g)");
    else if (rc == 0) {
        sa_machine mc = {&mach, cores, ncores};
        sa_join_binary(p, m, o->machine ? &mc : NULL);
    }
    free(cores);
    if (m)
        st_module_free(m);
    if (o->machine)
        machine_free(&mach);
    return rc;
}

/* Build, compose and print the model. */
static int run(const static_options *o, sa_program *p)
{
    char err[8192] = "";
    sa_sources srcs = {0};
    sa_results r = {0};
    sa_values v = {0};
    FILE *probe = fopen(o->program, "rb");
    if (!probe) {
        fprintf(stderr, "augur static: cannot open %s: give the path of a program built with -g\n", o->program);
        return EXIT_FAILURE_OTHER;
    }
    fclose(probe);
    int rc = find_sources(o, p, &srcs, err, sizeof err) == 0 && sa_analyse_sources(p, &srcs, err, sizeof err) == 0 &&
                     check_lines(o, p) == 0 && join_binary(o, p, err, sizeof err) == 0 &&
                     sa_compose(p, &r, err, sizeof err) == 0 &&
                     sa_values_bind(p, (const char *const *)o->params.names, (const char *const *)o->params.values,
                                    (size_t)o->params.n, &v, err, sizeof err) == 0
                 ? 0
                 : -1;
    for (size_t i = 0; i < p->nwarnings; i++)
        fprintf(stderr, "augur static: warning: %s\n", p->warnings[i]);
    if (rc == 0) {
        if (o->format == OUT_TEXT)
            sa_print_text(stdout, o->program, p, &r, &v);
        else if (o->format == OUT_JSON)
            rc = sa_print_json(stdout, o->program, p, &r, &v);
        else
            sa_print_python(stdout, o->program, p, &r);
    } else {
        fprintf(stderr, "augur static: %s\n", err);
    }
    sa_counts_free(&r.counts);
    return rc == 0 ? EXIT_OK : EXIT_FAILURE_OTHER;
}

int cmd_static(int argc, char **argv)
{
    static_options o = {0};
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
    sa_program p = {.arena = sa_arena_new()};
    p.syms.arena = p.arena;
    rc = run(&o, &p);
    sa_arena_free(p.arena);
    run_params_free(&o.params);
    return rc;
}
