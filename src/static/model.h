/* model.h — the static model of a program as src/static builds it: per
 * source function its statements (with their source operations and the
 * weighted domains they run in), loops, call sites and unknowns, then the
 * formulas per scope once calls are composed (docs/static.md). */
#ifndef AUGUR_STATIC_MODEL_H
#define AUGUR_STATIC_MODEL_H

#include "static/sa.h"

/* Source-level operations of a statement, per execution. */
enum { OP_FLOPS, OP_LOADS, OP_STORES, OP_BYTES, OP_N };
extern const char *const sa_op_names[OP_N];

/* A domain with a weight: num/den times the product of unknown factors
 * (branch ratios).  A statement runs in a list of them (an else branch of
 * an unknown ratio r runs in (dom, 1) and (dom, -r)). */
typedef struct sa_wdom {
    sa_dom d;
    int64_t num, den;
    size_t nf;
    int *f;
} sa_wdom;

typedef struct sa_frame {
    size_t n;
    sa_wdom *v;
} sa_frame;

typedef struct sa_stmt {
    int line;
    int loop;          /* index of the innermost loop of its function holding it, -1 */
    sa_frame where;
    int64_t ops[OP_N];
} sa_stmt;

typedef struct sa_callsite {
    const char *callee;
    int line;
    int loop;
    sa_frame where;
    size_t nargs;
    sa_pwa *args;      /* the arguments, piecewise affine in the caller's symbols */
    char *affine;      /* affine[i]: is argument i affine (else it becomes an unknown) */
} sa_callsite;

typedef struct sa_loop {
    int line, end_line;
    int parent;        /* index of the enclosing loop in the function, -1 */
    sa_frame body;     /* where the body runs: the loop's iterations */
    const char *unknown; /* the named unknown of its iterations per entry, if any */
} sa_loop;

typedef struct sa_unknown {
    const char *name; /* a symbol of the formulas, or a function without a model */
    const char *file;
    int line;
    const char *reason;
} sa_unknown;

typedef struct sa_func {
    const char *name, *file;
    int line, end_line;
    size_t nparams;
    const char **param_names;
    int *param_syms;   /* -1 for a parameter that is not an integer */
    size_t nstmts, nloops, ncalls;
    sa_stmt *stmts;
    sa_loop *loops;
    sa_callsite *calls;
} sa_func;

/* The program: functions of every analysed source, their symbols, and what
 * the analysis could not settle. */
typedef struct sa_program {
    sa_arena *arena;
    sa_symtab syms;
    size_t nfuncs, nunknowns, nwarnings;
    sa_func *funcs;
    sa_unknown *unknowns;
    char **warnings;   /* "FILE:LINE: message" */
} sa_program;

__attribute__((format(printf, 4, 5))) void sa_warn(sa_program *p, const char *file, int line, const char *fmt, ...);
void sa_add_unknown(sa_program *p, const char *name, const char *file, int line, const char *reason);
sa_func *sa_find_func(sa_program *p, const char *name);

/* ---- compose.c: formulas per scope, with calls composed ---------------------- */
typedef struct sa_scope_formulas {
    sa_formula iterations; /* loops: executions of the body */
    sa_formula ops[OP_N];
    sa_formula statements;  /* statement executions */
} sa_scope_formulas;

typedef struct sa_results {
    sa_counts counts;
    /* per function i: its formulas, inclusive of callees; per loop j of
     * function i: loops[i][j]; per statement k: stmts[i][k] (own count and ops) */
    sa_scope_formulas *funcs;
    sa_scope_formulas **loops;
    sa_scope_formulas **stmts;
    /* program[i][j]: iterations of loop j of function i in the whole run
     * (all its calls from main, composed); zero when main does not reach it */
    sa_formula **program;
} sa_results;

/* Compose calls and count every domain.  Returns 0, or -1 with a message. */
int sa_compose(sa_program *p, sa_results *r, char *err, size_t errlen);

#endif
