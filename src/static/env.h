/* env.h — what the walk of one function knows while it translates
 * expressions (expr.c) and annotations (pragma.c) into affine forms: the
 * loop iterators in scope, the variables written in the function and in
 * the enclosing loops (a bound must not change while the loop runs), the
 * annotations' parameter definitions, and why the last translation
 * failed. */
#ifndef AUGUR_STATIC_ENV_H
#define AUGUR_STATIC_ENV_H

#include "static/cx.h"
#include "static/model.h"

typedef struct sa_binding {
    const char *name;
    sa_pwa value;
    int from_line;
} sa_binding;

typedef struct sa_env {
    sa_program *p;
    sa_arena *a;
    const char *func, *file;
    size_t nbound;
    CXCursor *bound_decl; /* iterators in scope, innermost last */
    int *bound_sym;
    cx_list fwrites;      /* variables written anywhere in the function (declarations with a value excepted) */
    cx_list lwrites;      /* variables written in the outermost enclosing loop */
    CXCursor nest;        /* the outermost enclosing loop (null outside loops) */
    size_t nparams;       /* `#pragma augur param NAME(EXPR)` definitions */
    sa_binding *params;
    int line;             /* the statement being translated */
    const char *why;      /* why the last translation failed */
} sa_env;

/* ---- writes.c ---- */
/* The variables written (assigned, incremented, address taken) in c's subtree. */
cx_list sa_writes(sa_arena *a, CXCursor c);
int sa_written(const cx_list *w, CXCursor decl);

/* ---- expr.c ---- */
/* The affine value of integer expression c; -1 with e->why when it is not
 * affine in the function's unknowns and iterators. */
int sa_expr_pwa(sa_env *e, CXCursor c, sa_pwa *out);
/* The part of d where condition c holds; -1 with e->why. */
int sa_cond_dom(sa_env *e, sa_dom d, CXCursor c, sa_dom *out);
/* The value of a name written in an annotation: an iterator in scope, a
 * parameter, global or local of the function, or else a new unknown. */
sa_pwa sa_name_value(sa_env *e, const char *name);

#endif
