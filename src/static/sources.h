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

#endif
