/* sources.h — the C sources of a program and the options to parse them
 * with (sources.c): from the compilation units of its DWARF, from a
 * compile_commands.json, or as named on the command line. */
#ifndef AUGUR_STATIC_SOURCES_H
#define AUGUR_STATIC_SOURCES_H

#include "static/model.h"

typedef struct sa_source {
    const char *path;
    size_t nargs;
    const char **args; /* for clang: -D, -I, -U, -std, -include, -fopenmp */
} sa_source;

typedef struct sa_sources {
    size_t n;
    sa_source *v;
} sa_sources;

/* The C units of `program`'s DWARF, with the options their DW_AT_producer
 * records; units in other languages, and sources not on disk, are warnings
 * of p that name them.  Returns 0, or -1 with a message when the program
 * cannot be read or has no DWARF. */
int sa_sources_from_dwarf(sa_program *p, const char *program, sa_sources *out, char *err, size_t errlen);
/* The C files of BUILD_DIR/compile_commands.json (libclang's reader), with
 * their options.  Returns 0, or -1 with a message. */
int sa_sources_from_database(sa_program *p, const char *dir, sa_sources *out, char *err, size_t errlen);
/* The options of a compiler command line that matter to parsing. */
void sa_source_take_args(sa_arena *a, sa_source *s, const char *const *argv, size_t argc);

/* ---- code_lines.c ---- */
typedef struct sa_code_line {
    const char *file;
    int line;
} sa_code_line;

typedef struct sa_code_lines {
    size_t n;
    sa_code_line *v;
} sa_code_lines;

/* The (file, line) pairs of program's DWARF line table.  Returns 0, or -1
 * when the program has no DWARF. */
int sa_read_code_lines(sa_program *p, const char *program, sa_code_lines *out);
/* Warn for each function of p without instructions in the binary, and each
 * loop whose line has none: the sources do not match the binary. */
void sa_check_code_lines(sa_program *p, const sa_code_lines *c, const char *program);

#endif
