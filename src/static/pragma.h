/* pragma.h — annotations in the source (pragma.c): `#pragma augur ...` and
 * seed 003's `#pragma @Annotation {key:value,...}`, read from the tokens of
 * a file, and their expressions translated in a function's environment. */
#ifndef AUGUR_STATIC_PRAGMA_H
#define AUGUR_STATIC_PRAGMA_H

#include "static/env.h"

/* An expression of an annotation: its tokens. */
typedef struct sa_texpr {
    size_t n;
    char **tok;
} sa_texpr;

typedef struct sa_pragma {
    int line;
    int skip;
    int has_iters, has_init, has_cond, has_ratio;
    sa_texpr iters, init, cond; /* loop iterations(EXPR); lp_init:X; lp_cond:Y */
    int64_t ratio_num, ratio_den;
    const char *param;          /* param NAME(EXPR): NAME, EXPR in iters */
    int file_level;             /* a param written between functions: for those after it */
    int omp_for;                /* `#pragma omp [parallel] for ...`: the next loop's iterations are split over threads */
    int used;
} sa_pragma;

typedef struct sa_pragmas {
    size_t n;
    sa_pragma *v;
} sa_pragmas;

/* The annotations of `file` (one of tu's files), in line order; malformed
 * or unknown ones are warnings of p with their lines, and left out. */
sa_pragmas sa_read_pragmas(sa_program *p, CXTranslationUnit tu, const char *file);
/* The value of x in environment e; -1 with e->why. */
int sa_texpr_pwa(sa_env *e, const sa_texpr *x, sa_pwa *out);

#endif
