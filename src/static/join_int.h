/* join_int.h — what the two halves of the join share while one binary
 * function is joined (docs/static.md, "The binary"): join.c finds the
 * source loop each binary loop runs (the function's own, or a loop of a
 * callee the binary inlined, at its call site), its factor and role;
 * join_code.c makes the blocks code of the model. */
#ifndef AUGUR_STATIC_JOIN_INT_H
#define AUGUR_STATIC_JOIN_INT_H

#include "static/join.h"

/* The join of one binary function to its source function f. */
typedef struct joiner {
    sa_program *p;
    const st_module *m;
    size_t bfi;          /* the binary function */
    const st_function *bf;
    int fi;              /* its source function */
    sa_func *f;
    int *line;           /* per instruction: its source line, in f or (site >= 0) in an inlined callee, else 0 */
    int *site;           /* per instruction: the call site of f whose inlined callee it is, -1 for f's own */
    int *src, *src_site; /* per binary loop: its source loop in f (site -1) or in the callee at call site
                            src_site; src -1 when none, -2 for a copy left uncounted */
    int *bloop;          /* per binary loop: its index in p->bloops, -1 */
    int8_t *adj;         /* per block: runs its loop's iterations plus adj times its entries */
    int threads;         /* GCC's outlined OpenMP region (NAME._omp_fn.N): the symbol threads, else -1 */
} joiner;

/* join.c: the source function of call site `site` (-1: f itself). */
const sa_func *sa_join_func(const joiner *j, int site);
/* Frame fr of that function in f's symbols (composed at the call site). */
sa_frame sa_join_at(const joiner *j, int site, sa_frame fr);
/* The statement on `line` of the function of call site `site`, or -1. */
int sa_join_stmt(const joiner *j, int site, int line);
/* x + num * y, as one frame of both lists of domains. */
sa_frame sa_frame_axpy(sa_arena *a, sa_frame x, int64_t num, sa_frame y);
/* Is loop anc of g an ancestor of loop l (not l itself)? */
int sa_join_is_ancestor(const sa_func *g, int anc, int l);

/* join_code.c: the blocks of the binary function as code of f (its bins),
 * with a machine their cycles.  Loops are joined (j->src, j->bloop). */
void sa_join_blocks(joiner *j, const sa_machine *mc);

#endif
