/* cmd_static.c — `augur static`: the static model of a C program from its
 * sources, without running it: loop trip counts and source operations per
 * function, loop and statement as exact formulas in the program's unknowns,
 * printed as text, JSON, Python or C, and with --db stored beside the runs
 * (docs/static.md).  Exit status: 0 success, 2 usage error, 1 anything
 * else (no DWARF, a source that does not parse, an uncountable domain, no
 * build-id with --db). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output_file.h"
#include "cli/runs.h"
#include "binary/buildid.h"
#include "db/db.h"
#include "static/join.h"
#include "static/parse.h"
#include "static/static.h"
#include "static/store.h"

typedef enum out_format { OUT_TEXT, OUT_JSON, OUT_PYTHON, OUT_C } out_format;

typedef struct static_options {
    out_format format;
    const char *build_dir; /* -p */
    const char *prefix;    /* -o: the C model's PREFIX.h and PREFIX.c */
    const char *db;        /* --db: store the model there */
    const char *machine;   /* --machine NAME|FILE, or NULL */
    const char *program;
    run_params params;
    char **sources, **clang_args;
    size_t nsources, nclang_args;
} static_options;

static void print_help(FILE *to)
{
    fprintf(to,
            "usage: augur static [--db FILE] [--format text|json|python|c] [-o|--output PREFIX]\n"
            "                    [--param NAME=VALUE]... [--machine NAME|FILE] [-p|--build-dir BUILD_DIR]\n"
            "                    PROGRAM [-- SOURCE... [-- CLANG_ARGS...]]\n"
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
            "  --db FILE            also store the model in the experiment database FILE (created if\n"
            "                       missing), tied to PROGRAM by its build-id, where augur report\n"
            "                       --scopes, model and predict find it\n"
            "  --format text|json|python|c  formulas per scope (default); JSON (functions[], loops[],\n"
            "                       unknowns[], total); a Python module, one function per source\n"
            "                       function returning its counts; or C, the same functions returning\n"
            "                       a struct augur_counts (a header and a source as one unit on stdout)\n"
            "  -o, --output PREFIX  with --format c: write the header to PREFIX.h and the source to\n"
            "                       PREFIX.c instead\n"
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
            "  augur static --format c -o matmul_model ./matmul   # matmul_model.h, matmul_model.c\n"
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
        static const char *const formats[] = {"text", "json", "python", "c", NULL}; /* in out_format's order */
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
    case 'o':
        o->prefix = arg;
        return 0;
    case 'd':
        o->db = arg;
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
        {"build-dir", required_argument, NULL, 'p'}, {"output", required_argument, NULL, 'o'},
        {"db", required_argument, NULL, 'd'}, {"machine", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int operands;
    int rc = cli_getopt_program_short("static", "p:o:", argc, argv, longopts, take_option, o, &operands);
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
    if (o->prefix && o->format != OUT_C)
        return usage_error("-o PREFIX names the C model's files: give --format c with it (the other formats go "
                           "to stdout)");
    if (o->prefix && !*o->prefix)
        return usage_error("-o needs a PREFIX for PREFIX.h and PREFIX.c");
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

/* The C model as PREFIX.h and PREFIX.c, each replaced whole or not at
 * all; the source is removed again when the header cannot be put in place. */
static int write_c_files(const static_options *o, const sa_program *p, const sa_results *r, char *err,
                         size_t errlen)
{
    const char *h = sa_printf(p->arena, "%s.h", o->prefix), *c = sa_printf(p->arena, "%s.c", o->prefix);
    const char *base = strrchr(h, '/') ? strrchr(h, '/') + 1 : h;
    output_file hf, cf;
    char why[512]; /* a second failure's message, after the first is told */
    if (output_open(&hf, h, err, errlen) != 0)
        return -1;
    if (output_open(&cf, c, err, errlen) != 0) {
        output_close(&hf, 0, why, sizeof why);
        return -1;
    }
    sa_print_c_pair(hf.f, cf.f, base, o->program, p, r);
    int ok = !ferror(hf.f) && !ferror(cf.f);
    if (output_close(&cf, ok, err, errlen) != 0) {
        output_close(&hf, 0, why, sizeof why);
        return -1;
    }
    if (output_close(&hf, 1, err, errlen) != 0) {
        remove(cf.target);
        return -1;
    }
    return 0;
}

/* Store the model in --db, keyed by PROGRAM's build-id. */
static int store_model(const static_options *o, const sa_program *p, const sa_results *r, char *err,
                       size_t errlen)
{
    char build_id[BUILD_ID_HEX_MAX], created[32];
    if (elf_build_id(o->program, build_id, sizeof build_id) != 0 || !build_id[0]) {
        snprintf(err, errlen,
                 "%s has no build-id, which ties a static model to its binary in --db: link it with "
                 "-Wl,--build-id",
                 o->program);
        return -1;
    }
    iso_now(created, sizeof created);
    db_static_model m = {.build_id = build_id, .path = (char *)o->program, .created = created,
                         .augur_version = AUGUR_VERSION};
    sa_store_model(p, r, &m);
    db *d;
    if (db_open(o->db, 1, &d, err, errlen) != 0)
        return -1;
    int rc = db_static_put(d, &m, err, errlen);
    db_close(d);
    if (rc == 0)
        fprintf(stderr, "augur static: stored the model of %s (build-id %s: %zu functions and loops) in %s\n",
                o->program, build_id, m.nscopes, o->db);
    return rc;
}

/* Print the model in the chosen format (the C model to files with -o). */
static int print_model(const static_options *o, const sa_program *p, const sa_results *r, const sa_values *v,
                       char *err, size_t errlen)
{
    switch (o->format) {
    case OUT_TEXT:
        sa_print_text(stdout, o->program, p, r, v);
        return 0;
    case OUT_JSON:
        if (sa_print_json(stdout, o->program, p, r, v) == 0)
            return 0;
        snprintf(err, errlen, "cannot write the JSON model to stdout");
        return -1;
    case OUT_PYTHON:
        sa_print_python(stdout, o->program, p, r);
        return 0;
    case OUT_C:
        if (o->prefix)
            return write_c_files(o, p, r, err, errlen);
        sa_print_c(stdout, o->program, p, r);
        return 0;
    }
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
    if (o->prefix && (output_check(sa_printf(p->arena, "%s.h", o->prefix), err, sizeof err) != 0 ||
                      output_check(sa_printf(p->arena, "%s.c", o->prefix), err, sizeof err) != 0)) {
        fprintf(stderr, "augur static: %s\n", err);
        return EXIT_FAILURE_OTHER;
    }
    int rc = find_sources(o, p, &srcs, err, sizeof err) == 0 && sa_analyse_sources(p, &srcs, err, sizeof err) == 0 &&
                     check_lines(o, p) == 0 && join_binary(o, p, err, sizeof err) == 0 &&
                     sa_compose(p, &r, err, sizeof err) == 0 &&
                     sa_values_bind(p, (const char *const *)o->params.names, (const char *const *)o->params.values,
                                    (size_t)o->params.n, &v, err, sizeof err) == 0
                 ? 0
                 : -1;
    for (size_t i = 0; i < p->nwarnings; i++)
        fprintf(stderr, "augur static: warning: %s\n", p->warnings[i]);
    if (rc == 0 && o->db)
        rc = store_model(o, p, &r, err, sizeof err);
    if (rc == 0)
        rc = print_model(o, p, &r, &v, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "augur static: %s\n", err);
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
