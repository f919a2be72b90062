/* sources.c — where the sources of a program are and how to parse them:
 * each DWARF compilation unit names its file (DW_AT_name, relative to
 * DW_AT_comp_dir), its language and the compiler and options that built it
 * (DW_AT_producer: GCC records -std, -D, -I, -f options there); or clang
 * tooling's compile_commands.json.  Only the options that change what the
 * parser sees are kept. */
#include "static/sources.h"
#include "structure/dwfl_offline.h"

#include <clang-c/CXCompilationDatabase.h>
#include <dwarf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* An option (and, for -I DIR style, its value) that matters to parsing. */
static int parse_option(const char *o)
{
    return !strncmp(o, "-D", 2) || !strncmp(o, "-U", 2) || !strncmp(o, "-I", 2) || !strncmp(o, "-std=", 5) ||
           !strcmp(o, "-include") || !strcmp(o, "-isystem") || !strcmp(o, "-iquote") || !strcmp(o, "-fopenmp");
}

/* -fopenmp as the parser takes it: libclang 14 hides the statement under
 * an OpenMP directive (in a captured statement it does not visit), so the
 * source is parsed as sequential code with _OPENMP defined, and the
 * directives are read as pragmas (pragma.c). */
static const char *as_parsed(const char *o)
{
    return strcmp(o, "-fopenmp") ? o : "-D_OPENMP=201511";
}

void sa_source_take_args(sa_arena *a, sa_source *s, const char *const *argv, size_t argc)
{
    for (size_t i = 0; i < argc; i++) {
        if (!parse_option(argv[i]))
            continue;
        const char *o = sa_strdup(a, as_parsed(argv[i]));
        s->args = sa_push(a, s->args, &s->nargs, sizeof o, &o);
        int takes_value = !strcmp(o, "-D") || !strcmp(o, "-U") || !strcmp(o, "-I") || !strcmp(o, "-include") ||
                          !strcmp(o, "-isystem") || !strcmp(o, "-iquote");
        if (takes_value && i + 1 < argc) {
            const char *v = sa_strdup(a, argv[++i]);
            s->args = sa_push(a, s->args, &s->nargs, sizeof v, &v);
        }
    }
}

/* The options of a producer string ("GNU C17 12.2.0 -mtune=generic -O2
 * -std=c99"); the dialect of "GNU C17" when no -std is given. */
static void producer_args(sa_arena *a, sa_source *s, const char *producer)
{
    char *copy = sa_strdup(a, producer), *save = NULL;
    const char **words = NULL;
    size_t n = 0;
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
        words = sa_push(a, words, &n, sizeof(char *), (const char *[]){w});
    sa_source_take_args(a, s, words, n);
    int has_std = 0;
    for (size_t i = 0; i < s->nargs; i++)
        has_std |= !strncmp(s->args[i], "-std=", 5);
    if (!has_std && n >= 2 && !strcmp(words[0], "GNU") && words[1][0] == 'C' && words[1][1] >= '0' &&
        words[1][1] <= '9') {
        const char *std = sa_printf(a, "-std=gnu%s", words[1] + 1);
        s->args = sa_push(a, s->args, &s->nargs, sizeof std, &std);
    }
}

static const char *language_name(int lang)
{
    switch (lang) {
    case DW_LANG_C_plus_plus:
    case DW_LANG_C_plus_plus_03:
    case DW_LANG_C_plus_plus_11:
    case DW_LANG_C_plus_plus_14:
        return "C++";
    case DW_LANG_Fortran77:
    case DW_LANG_Fortran90:
    case DW_LANG_Fortran95:
    case DW_LANG_Fortran03:
    case DW_LANG_Fortran08:
        return "Fortran";
    case DW_LANG_Mips_Assembler:
        return "assembler";
    default:
        return NULL;
    }
}

static int is_c(int lang)
{
    return lang == DW_LANG_C89 || lang == DW_LANG_C || lang == DW_LANG_C99 || lang == DW_LANG_C11;
}

/* Warn when source is newer than the binary: its lines may have moved. */
static void check_age(sa_program *p, const char *source, const char *program)
{
    struct stat ss, ps;
    if (stat(source, &ss) == 0 && stat(program, &ps) == 0 && ss.st_mtime > ps.st_mtime)
        sa_warn(p, source, 0, "is newer than %s: rebuild it, or its lines may not match the binary", program);
}

int sa_sources_from_dwarf(sa_program *p, const char *program, sa_sources *out, char *err, size_t errlen)
{
    st_dwfl s;
    int rc = st_dwfl_open(program, &s, err, errlen);
    if (rc == 1) {
        snprintf(err, errlen, "%s has no DWARF debug information: build it with -g, or name its sources after --",
                 program);
        return -1;
    }
    if (rc != 0)
        return -1;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(s.dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        Dwarf_Attribute at;
        int got = dwarf_offdie(s.dw, off + hsize, &cu) != NULL;
        off = next;
        const char *name = got ? dwarf_diename(&cu) : NULL;
        if (!name)
            continue;
        const char *dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
        const char *path = name[0] == '/' || !dir ? sa_strdup(p->arena, name) : sa_printf(p->arena, "%s/%s", dir, name);
        int lang = dwarf_srclang(&cu);
        if (!is_c(lang)) {
            const char *ln = language_name(lang);
            sa_warn(p, path, 0, "is a %s unit, not C: skipped", ln ? ln : "non-C");
            continue;
        }
        struct stat st;
        if (stat(path, &st) != 0) {
            sa_warn(p, path, 0, "(a unit of %s) is not on disk: skipped; name the sources after --", program);
            continue;
        }
        sa_source src = {.path = path};
        const char *producer = dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &at));
        if (producer)
            producer_args(p->arena, &src, producer);
        check_age(p, path, program);
        out->v = sa_push(p->arena, out->v, &out->n, sizeof src, &src);
    }
    st_dwfl_close(&s);
    if (out->n == 0) {
        snprintf(err, errlen, "%s has no C compilation unit whose source is on disk: name its sources after --", program);
        return -1;
    }
    return 0;
}

/* Copy a CXString into the arena. */
static const char *take(sa_arena *a, CXString s)
{
    const char *r = sa_strdup(a, clang_getCString(s) ? clang_getCString(s) : "");
    clang_disposeString(s);
    return r;
}

int sa_sources_from_database(sa_program *p, const char *dir, sa_sources *out, char *err, size_t errlen)
{
    CXCompilationDatabase_Error e;
    CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(dir, &e);
    if (e != CXCompilationDatabase_NoError || !db) {
        snprintf(err, errlen, "-p %s: no compile_commands.json there that clang can read "
                              "(CMake writes one with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON; bear makes one for make)",
                 dir);
        return -1;
    }
    CXCompileCommands cmds = clang_CompilationDatabase_getAllCompileCommands(db);
    unsigned n = clang_CompileCommands_getSize(cmds);
    for (unsigned i = 0; i < n; i++) {
        CXCompileCommand cmd = clang_CompileCommands_getCommand(cmds, i);
        const char *file = take(p->arena, clang_CompileCommand_getFilename(cmd));
        const char *cwd = take(p->arena, clang_CompileCommand_getDirectory(cmd));
        const char *path = file[0] == '/' ? file : sa_printf(p->arena, "%s/%s", cwd, file);
        size_t len = strlen(path);
        if (len < 2 || strcmp(path + len - 2, ".c")) {
            sa_warn(p, path, 0, "is not a C file: skipped");
            continue;
        }
        sa_source src = {.path = path};
        unsigned na = clang_CompileCommand_getNumArgs(cmd);
        const char **argv = sa_alloc(p->arena, (na + 1) * sizeof *argv);
        for (unsigned k = 0; k < na; k++) {
            argv[k] = take(p->arena, clang_CompileCommand_getArg(cmd, k));
            if (!strncmp(argv[k], "-I", 2) && argv[k][2] && argv[k][2] != '/') /* relative to the command's directory */
                argv[k] = sa_printf(p->arena, "-I%s/%s", cwd, argv[k] + 2);
        }
        sa_source_take_args(p->arena, &src, argv, na);
        out->v = sa_push(p->arena, out->v, &out->n, sizeof src, &src);
    }
    clang_CompileCommands_dispose(cmds);
    clang_CompilationDatabase_dispose(db);
    if (out->n == 0) {
        snprintf(err, errlen, "-p %s: compile_commands.json lists no C file", dir);
        return -1;
    }
    return 0;
}
