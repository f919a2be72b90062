/* model.h — the static model of a program as src/static builds it: per
 * source function its statements (with their source operations and the
 * weighted domains they run in), loops, call sites and unknowns, then the
 * formulas per scope once calls are composed (docs/static.md). */
#ifndef AUGUR_STATIC_MODEL_H
#define AUGUR_STATIC_MODEL_H

#include "static/sa.h"

/* Operations per execution of a statement: the source's (OP_FLOPS ..
 * OP_BYTES, src/static/ops.c), then the binary's joined to the source
 * (join.c): its instructions, their flops, memory operands read and
 * written and their bytes, and the instructions of each class (in enum
 * st_class's order, src/structure/structure.h); with --machine, the
 * core's cycles and the memory term of the streams (cycles.c, in units
 * of 1/SA_CYCLE_DEN: sa_op_den). */
enum {
    OP_FLOPS, OP_LOADS, OP_STORES, OP_BYTES,
    OP_INSNS, OP_BFLOPS, OP_BLOADS, OP_BSTORES, OP_BBYTES,
    OP_CLASS0, /* OP_CLASS0 + c for class c */
    OP_CYCLES = OP_CLASS0 + 15,
    OP_MEM_CYCLES,
    OP_N
};
#define OP_SOURCE_N OP_INSNS /* the source's operations come first */
extern const char *const sa_op_names[OP_N];
/* The denominator of each operation's per-execution value: 1, or
 * SA_CYCLE_DEN for cycles, whose per-iteration values the core model gives
 * in thirds, quarters, sixths... of a cycle (uops over an issue width, port
 * shares): 3600 keeps those exact. */
#define SA_CYCLE_DEN 3600
extern const int64_t sa_op_den[OP_N];

/* A domain with a weight: num/den times the product of unknown factors
 * (branch ratios).  A statement runs in a list of them (an else branch of
 * an unknown ratio r runs in (dom, 1) and (dom, -r)). */
typedef struct sa_wdom {
    sa_dom d;
    int64_t num, den;
    size_t nf;
    int *f;
    /* the bounds of a time band (join_code.c: entries of a loop running at
     * most so many iterations), counted with d; in the function's
     * parameters only, and dropped where a call makes them depend on the
     * caller's loops, so that the band's cost falls back to the first's */
    size_t nband;
    sa_cons *band;
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
    int inlined;       /* the binary inlined it: the caller's code holds the callee's (join.c) */
} sa_callsite;

/* A loop's iteration space: iterator `it` runs from `start` by `step`
 * while `it REL bound` (a loop of unknown or annotated iterations counts a
 * new iterator from 0 while below them). */
typedef struct sa_iterspace {
    int it;
    sa_pwa start, bound;
    const char *rel;
    long long step;
} sa_iterspace;

typedef struct sa_loop {
    int line, end_line;
    int parent;        /* index of the enclosing loop in the function, -1 */
    sa_frame body;     /* where the body runs: the loop's iterations */
    const char *unknown; /* the named unknown of its iterations per entry, if any */
    sa_frame entry;    /* where the loop statement runs: its entries */
    sa_iterspace space;
    int parallel;      /* under `#pragma omp parallel for` (or `omp for`): its iterations split over threads */
} sa_loop;

/* Code of the binary joined to the source (join.c): instructions that run
 * `where`, in source loop `loop` (-1: none) and statement `stmt` (-1: none
 * known), with their operations per execution (the binary's slots of
 * sa_op_names). */
typedef struct sa_bin {
    sa_frame where;
    int loop, stmt;
    int64_t ops[OP_N];
} sa_bin;

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
    size_t nbins;
    sa_bin *bins;      /* its binary's code, when joined (join.c) */
} sa_func;

/* A loop of the binary joined to source loop `loop` of function `func`
 * (join.c): a copy that runs all of its iterations, the vector or unrolled
 * body that runs them in blocks of `factor` (vector width `lanes` times
 * `unroll`), or the scalar remainder of such a body. */
enum sa_bloop_role { SA_BLOOP_ALL, SA_BLOOP_BLOCKS, SA_BLOOP_REMAINDER };
/* With a machine, the time of one iteration of a binary loop whose entries
 * run at most `most` source iterations (and more than the band before's):
 * its streams then miss the levels too small for one entry's blocks
 * (cycles.c, docs/static.md "Cycles"). */
#define SA_MAX_BANDS 12
typedef struct sa_band {
    double most;    /* HUGE_VAL for the last */
    double cycles;  /* per iteration: max(core + latency + page walks, bandwidth) */
    char bound[24]; /* what bounds it ("issue", "latency", "L3 bandwidth", ...) */
} sa_band;
extern const char *const sa_bloop_role_names[]; /* "all", "blocks", "remainder" (out_join.c) */
typedef struct sa_bloop {
    int func, loop;      /* indices of the source function and its loop */
    const char *symbol;  /* the binary function holding it */
    uint64_t addr;       /* its header's address */
    int role;            /* enum sa_bloop_role */
    int factor, lanes, unroll;
    int ninsns;          /* instructions of its body (inner loops excluded) */
    sa_frame iters;      /* executions of its body */
    sa_frame covers;     /* blocks: the source iterations its blocks are cut from (the loop's, or
                            those under the guard it was split at) */
    double cycles;       /* per iteration on the machine's core (--machine), else 0 */
    const char *bound;   /* the core model's bound ("ports"...), else NULL */
    double stream_bytes; /* bytes its constant-stride accesses move per iteration */
    double mem_cycles;   /* those bytes over one core's memory bandwidth, cycles */
    int parallel;        /* its source loop is an OpenMP parallel loop */
    int via_func, via_line; /* a loop of code inlined at line via_line of function via_func
                               (iters in that function's symbols), else -1, 0 */
    double contention;   /* with a machine: seed 004's M_r / M_s, its streams' bytes per
                            cycle over the machine's memory bandwidth (all cores) */
    int nbands;          /* with a machine: its time per iteration by the iterations of an entry */
    sa_band bands[SA_MAX_BANDS];
} sa_bloop;

/* The program: functions of every analysed source, their symbols, and what
 * the analysis could not settle. */
typedef struct sa_program {
    sa_arena *arena;
    sa_symtab syms;
    size_t nfuncs, nunknowns, nwarnings;
    sa_func *funcs;
    sa_unknown *unknowns;
    char **warnings;   /* "FILE:LINE: message" */
    size_t nbloops;
    sa_bloop *bloops;  /* the binary's loops joined to source loops, when joined */
} sa_program;

/* Is binary function `symbol` code of source function `name`: its symbol up
 * to the first '.' (GCC's clones f.constprop.0, f.isra.0, f.part.0,
 * OpenMP's outlined f._omp_fn.0)?  Cold parts (f.cold) are not: they run
 * rarely, not once per call.  The join's rule (join.c), and match.c's. */
int sa_symbol_is(const char *symbol, const char *name);

__attribute__((format(printf, 4, 5))) void sa_warn(sa_program *p, const char *file, int line, const char *fmt, ...);
void sa_add_unknown(sa_program *p, const char *name, const char *file, int line, const char *reason);
sa_func *sa_find_func(sa_program *p, const char *name);

/* loop.c: the frame fr iterated over space s (each domain of fr with the
 * iterator's constraints); a loop's body is its entry iterated. */
sa_frame sa_iterate(sa_program *p, sa_frame fr, const sa_iterspace *s);
/* Loop l run in blocks of k iterations: the first iteration of each whole
 * block (floor(n/k) per entry of n iterations). */
sa_frame sa_loop_blocked(sa_program *p, const sa_loop *l, long long k);

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
    /* progfuncs[i]: function i's own operations (its statements and
     * binary code, callees excluded) in the whole run, composed from
     * main; zero when main does not reach it */
    sa_scope_formulas *progfuncs;
    sa_formula *bloops; /* bloops[i]: iterations of the program's binary loop i per call of its function */
    sa_formula *progbloops; /* progbloops[i]: its iterations in the whole run, composed from main; zero when
                               main does not reach it */
} sa_results;

/* Frame gf of callee g (in its symbols) run at call site s: in the
 * caller's symbols, the call's arguments substituted in. */
sa_frame sa_frame_at_call(sa_program *p, const sa_func *g, const sa_callsite *s, sa_frame gf);

/* Compose calls and count every domain.  Returns 0, or -1 with a message. */
int sa_compose(sa_program *p, sa_results *r, char *err, size_t errlen);

#endif
