/* join.c — the join of source and binary (issue 24 item 4), its loops:
 * each loop of the binary's functions to the source loop whose lines it
 * carries (the function's own, or a loop of a callee the compiler inlined,
 * counted at its call site), the number of source iterations one binary
 * iteration does (vector width times unroll factor, from its flops or
 * bytes against the source's), and so each binary loop's iterations from
 * the source loop's domain: all of them, whole blocks of `factor` (a
 * vector or unrolled body), or what such a body leaves (its remainder
 * copy).  join_code.c then makes the blocks code of the model
 * (docs/static.md, "The binary"). */
#include "static/join_int.h"
#include "static/walk.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Do a DWARF file path and a source path name one file?  Their real paths
 * when both exist, else their ends (one path ends with the other at a '/'). */
static int same_file(const char *dwarf, const char *src)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (realpath(dwarf, a) && realpath(src, b))
        return !strcmp(a, b);
    size_t la = strlen(dwarf), lb = strlen(src);
    const char *lng = la >= lb ? dwarf : src, *sht = la >= lb ? src : dwarf;
    size_t ll = la >= lb ? la : lb, ls = la >= lb ? lb : la;
    return !strcmp(lng + ll - ls, sht) && (ll == ls || lng[ll - ls - 1] == '/');
}

int sa_symbol_is(const char *symbol, const char *name)
{
    size_t n = strcspn(symbol, ".");
    return !strstr(symbol, ".cold") && strlen(name) == n && !strncmp(name, symbol, n);
}

/* The source function binary function `symbol` is (sa_symbol_is), or -1. */
static int source_function(const sa_program *p, const char *symbol)
{
    for (size_t i = 0; i < p->nfuncs; i++)
        if (sa_symbol_is(symbol, p->funcs[i].name))
            return (int)i;
    return -1;
}

const sa_func *sa_join_func(const joiner *j, int site)
{
    return site < 0 ? j->f : sa_find_func(j->p, j->f->calls[site].callee);
}

sa_frame sa_join_at(const joiner *j, int site, sa_frame fr)
{
    return site < 0 ? fr : sa_frame_at_call(j->p, sa_join_func(j, site), &j->f->calls[site], fr);
}

int sa_join_stmt(const joiner *j, int site, int line)
{
    const sa_func *g = sa_join_func(j, site);
    for (size_t s = 0; s < g->nstmts; s++)
        if (g->stmts[s].line == line)
            return (int)s;
    return -1;
}

int sa_join_is_ancestor(const sa_func *g, int anc, int l)
{
    for (l = l >= 0 ? g->loops[l].parent : -1; l >= 0; l = g->loops[l].parent)
        if (l == anc)
            return 1;
    return 0;
}

static int depth_of(const sa_func *f, int l)
{
    int d = 0;
    for (; l >= 0; l = f->loops[l].parent)
        d++;
    return d;
}

/* The innermost source loop of g whose lines hold `line`, or -1. */
static int loop_at_line(const sa_func *g, int line)
{
    int best = -1;
    for (size_t l = 0; l < g->nloops; l++)
        if (g->loops[l].line <= line && line <= g->loops[l].end_line &&
            (best < 0 || depth_of(g, (int)l) > depth_of(g, best)))
            best = (int)l;
    return best;
}

/* The function of f whose lines hold (file, line), or NULL. */
static const sa_func *func_at(const sa_program *p, const char *file, int line)
{
    for (size_t i = 0; i < p->nfuncs; i++)
        if (line >= p->funcs[i].line && line <= p->funcs[i].end_line && same_file(file, p->funcs[i].file))
            return &p->funcs[i];
    return NULL;
}

/* The call site of f that code of inlined scope `sc` comes from: the
 * outermost inlined scope under the function holds the call's line; the
 * site calls g there.  -1 when f has no such call. */
static int inlined_site(const joiner *j, uint32_t sc, const sa_func *g)
{
    const st_module *m = j->m;
    while (sc < m->nscopes && m->scopes[sc].kind != ST_SCOPE_INLINED)
        sc = m->scopes[sc].parent >= 0 ? (uint32_t)m->scopes[sc].parent : UINT32_MAX;
    uint32_t outer = UINT32_MAX;
    for (; sc < m->nscopes && m->scopes[sc].kind != ST_SCOPE_FUNCTION;
         sc = m->scopes[sc].parent >= 0 ? (uint32_t)m->scopes[sc].parent : UINT32_MAX)
        if (m->scopes[sc].kind == ST_SCOPE_INLINED)
            outer = sc;
    if (outer == UINT32_MAX)
        return -1;
    for (size_t s = 0; s < j->f->ncalls; s++)
        if (j->f->calls[s].line == (int)m->scopes[outer].call_line && !strcmp(j->f->calls[s].callee, g->name))
            return (int)s;
    return -1;
}

/* Each instruction's source line: f's own, or a callee's inlined at one of
 * f's call sites (that site marked inlined). */
static void read_lines(joiner *j)
{
    const st_module *m = j->m;
    for (uint32_t i = 0; i < j->bf->ninsns; i++) {
        const st_place *pl = &m->places[j->bfi][i];
        int line = (int)pl->line;
        j->site[i] = -1;
        if (pl->file >= m->nfiles || line <= 0)
            continue;
        const sa_func *g = func_at(j->p, m->files[pl->file], line);
        if (g == j->f) {
            j->line[i] = line;
        } else if (g && (j->site[i] = inlined_site(j, pl->scope, g)) >= 0) {
            j->line[i] = line;
            j->f->calls[j->site[i]].inlined = 1;
        }
    }
}

/* A candidate source loop: loop `loop` of the function at call site `site`. */
typedef struct target {
    int site, loop;
} target;

/* Candidate t moved out to the nearest loop that can enclose inner target
 * `in` (an ancestor of it, in its function or around its call site);
 * loop -1 when none can. */
static target enclosing(const joiner *j, target t, target in)
{
    if (in.loop < 0)
        return t;
    if (t.site == in.site) {
        const sa_func *g = sa_join_func(j, t.site);
        while (t.loop >= 0 && !sa_join_is_ancestor(g, t.loop, in.loop))
            t.loop = g->loops[t.loop].parent;
        return t;
    }
    if (t.site >= 0) /* a callee's loop cannot hold f's, nor another call's */
        return (target){t.site, -1};
    int around = j->f->calls[in.site].loop; /* f's loop holding the call */
    while (t.loop >= 0 && t.loop != around && !sa_join_is_ancestor(j->f, t.loop, around))
        t.loop = j->f->loops[t.loop].parent;
    return t;
}

/* The target binary loop bl carries: the one most of its own instructions'
 * lines lie in, innermost first; when a loop nested in it is joined
 * already, one that encloses that one (the nearest with votes, else its
 * parent, or the loop around its call).  loop -1 when none. */
static target vote_source_loop(const joiner *j, uint32_t bl)
{
    const st_function *bf = j->bf;
    target in = {-1, -1};
    for (uint32_t c = 0; c < bf->nloops && in.loop < 0; c++)
        if (bf->loops[c].parent == (int32_t)bl && j->src[c] >= 0)
            in = (target){j->src_site[c], j->src[c]};
    size_t nv = 0, ncand = 0;
    target *cand = NULL;
    int *votes = NULL;
    for (uint32_t b = 0; b < bf->nblocks; b++) {
        if (bf->blocks[b].loop != (int32_t)bl)
            continue;
        for (uint32_t i = bf->blocks[b].first; i < bf->blocks[b].first + bf->blocks[b].n; i++) {
            if (!j->line[i])
                continue;
            target t = enclosing(j, (target){j->site[i], loop_at_line(sa_join_func(j, j->site[i]), j->line[i])}, in);
            if (t.loop < 0)
                continue;
            size_t k = 0;
            while (k < nv && (cand[k].site != t.site || cand[k].loop != t.loop))
                k++;
            if (k == nv) {
                int zero = 0;
                cand = sa_push(j->p->arena, cand, &ncand, sizeof t, &t);
                votes = sa_push(j->p->arena, votes, &nv, sizeof zero, &zero);
            }
            votes[k]++;
        }
    }
    target best = {-1, -1};
    int most = 0;
    for (size_t k = 0; k < nv; k++)
        if (votes[k] > most) {
            most = votes[k];
            best = cand[k];
        }
    if (best.loop < 0 && in.loop >= 0) {
        const sa_func *g = sa_join_func(j, in.site);
        best = g->loops[in.loop].parent >= 0 ? (target){in.site, g->loops[in.loop].parent}
               : in.site >= 0                 ? (target){-1, j->f->calls[in.site].loop}
                                              : (target){-1, -1};
    }
    return best;
}

/* The source's flops, bytes and stored bytes per iteration of loop l of
 * g: its statements directly in the body (a statement's stores taken at
 * the mean size of its accesses). */
static void source_per_iteration(const sa_func *g, int l, int64_t *flops, int64_t *bytes, double *stored)
{
    *flops = *bytes = 0;
    *stored = 0;
    for (size_t s = 0; s < g->nstmts; s++)
        if (g->stmts[s].loop == l) {
            const int64_t *ops = g->stmts[s].ops;
            *flops += ops[OP_FLOPS];
            *bytes += ops[OP_BYTES];
            if (ops[OP_STORES] > 0)
                *stored += (double)ops[OP_BYTES] * (double)ops[OP_STORES] / (double)(ops[OP_LOADS] + ops[OP_STORES]);
        }
}

/* Is the memory operand a stack slot (a spill or a local at -O0)? */
static int on_stack(const st_memop *mo)
{
    return mo->base == ST_REG_RSP || mo->base == ST_REG_RBP;
}

/* Source iterations per iteration of binary loop bl (joined to loop l of
 * g): for a body with packed data that stores, its stored bytes outside
 * the stack over the source's (stores stay in the loop, where a vector
 * body may compute a product invariant in the loop once, outside it: then
 * its flops say 1); else its flops over the source's per iteration, else,
 * for a body with packed data, its bytes outside the stack over the
 * source's; 1 when none says (a ratio within 5% of a power of two up to 64 is one);
 * 0 when the binary does more than that (another ratio above 1: an inner
 * loop unrolled in full into this one).  As the source's counts are of
 * the statements directly in l, the binary's leave out the instructions
 * of l's inner loops' lines (an inner loop's scalar leftover after its
 * vector body, which GCC -O3 puts in the outer loop's body).
 * *lanes: the most elements one of its instructions works on. */
static int block_factor(const joiner *j, uint32_t bl, int site, const sa_func *g, int l, int *lanes)
{
    const st_function *bf = j->bf;
    int64_t bflops = 0, bbytes = 0, bstored = 0, sflops, sbytes;
    double sstored;
    *lanes = 1;
    for (uint32_t b = 0; b < bf->nblocks; b++) {
        if (bf->blocks[b].loop != (int32_t)bl)
            continue;
        for (uint32_t i = bf->blocks[b].first; i < bf->blocks[b].first + bf->blocks[b].n; i++) {
            const st_insn *in = &bf->insns[i];
            if (j->line[i] && j->site[i] == site && sa_join_is_ancestor(g, l, loop_at_line(g, j->line[i])))
                continue; /* an inner loop's code */
            bflops += st_insn_flops(in);
            if (in->elem_bits && in->width > in->elem_bits && in->width / in->elem_bits > *lanes &&
                (in->cls != ST_CLASS_INT_ALU && in->cls != ST_CLASS_MOVE))
                *lanes = in->width / in->elem_bits;
            for (int k = 0; k < in->nmem; k++)
                if (in->mem[k].access && !on_stack(&in->mem[k])) {
                    bbytes += in->mem[k].size;
                    bstored += in->mem[k].access & ST_MEM_WRITE ? in->mem[k].size : 0;
                }
        }
    }
    source_per_iteration(g, l, &sflops, &sbytes, &sstored);
    double ratio = *lanes > 1 && sstored > 0 && bstored > 0 ? (double)bstored / sstored
                   : sflops > 0 && bflops > 0                ? (double)bflops / (double)sflops
                   : *lanes > 1 && sbytes > 0 ? (double)bbytes / (double)sbytes
                                              : 1;
    double k = round(ratio);
    /* vector widths and unroll factors are powers of two: another ratio
     * comes from code the source does not show one for one (a loop nest
     * unrolled into this one) */
    int pow2 = k >= 1 && k <= 64 && ((long)k & ((long)k - 1)) == 0;
    if (pow2 && fabs(ratio - k) <= 0.05 * k)
        return (int)k;
    return ratio > 1.5 ? 0 : 1;
}

/* x + num * y, as one frame of both lists of domains. */
sa_frame sa_frame_axpy(sa_arena *a, sa_frame x, int64_t num, sa_frame y)
{
    sa_frame ys = sa_frame_scale(a, y, num, 1, -1);
    sa_frame r = {0};
    for (size_t i = 0; i < x.n; i++)
        r.v = sa_push(a, r.v, &r.n, sizeof *x.v, &x.v[i]);
    for (size_t i = 0; i < ys.n; i++)
        r.v = sa_push(a, r.v, &r.n, sizeof *ys.v, &ys.v[i]);
    return r;
}

/* The record of binary loop b joined to loop l at call site `site`. */
static sa_bloop bloop_record(const joiner *j, uint32_t b, int site, int l, int factor, int lanes)
{
    const st_function *bf = j->bf;
    uint32_t ninsns = 0, first = bf->blocks[bf->loops[b].header].first;
    for (uint32_t k = 0; k < bf->nblocks; k++)
        ninsns += bf->blocks[k].loop == (int32_t)b ? bf->blocks[k].n : 0;
    const sa_func *g = sa_join_func(j, site);
    return (sa_bloop){.func = (int)(g - j->p->funcs), .loop = l, .symbol = sa_strdup(j->p->arena, bf->name),
                      .addr = first < bf->ninsns ? bf->insns[first].addr : 0, .factor = factor, .lanes = lanes,
                      .unroll = factor % lanes ? factor : factor / lanes, .ninsns = (int)ninsns,
                      .parallel = g->loops[l].parallel, .via_func = site >= 0 ? j->fi : -1,
                      .via_line = site >= 0 ? j->f->calls[site].line : 0};
}

/* Does block x dominate block y of f? */
static int dominates(const st_function *f, uint32_t x, uint32_t y)
{
    for (;; y = f->blocks[y].idom) {
        if (y == x)
            return 1;
        if (y == UINT32_MAX || f->blocks[y].idom == y)
            return 0;
    }
}

/* The iterations of loop l of g (at call site `site`) that GCC peeled off
 * before binary loop bl: a copy of l's own statements' code, with their
 * stores and their flops, in the straight-line code around bl (its parent
 * binary loop's blocks, or those outside loops) that dominates bl's header:
 * its flops over the source's per iteration (bench_kernels.c's trisolve at
 * -O3: x[0] = b[0] / l[0] before the loop over the rows from 1).  0 when
 * there is none. */
static int peeled_iterations(const joiner *j, uint32_t bl, int site, const sa_func *g, int l)
{
    const st_function *bf = j->bf;
    int64_t flops = 0, stores = 0, sflops, sbytes;
    double sstored;
    for (uint32_t b = 0; b < bf->nblocks; b++) {
        if (bf->blocks[b].loop != bf->loops[bl].parent || !dominates(bf, b, bf->loops[bl].header))
            continue;
        for (uint32_t i = bf->blocks[b].first; i < bf->blocks[b].first + bf->blocks[b].n; i++)
            if (j->line[i] && j->site[i] == site && loop_at_line(g, j->line[i]) == l) {
                flops += st_insn_flops(&bf->insns[i]);
                stores += bf->insns[i].nstores;
            }
    }
    source_per_iteration(g, l, &sflops, &sbytes, &sstored);
    if (sflops <= 0 || flops <= 0 || stores <= 0 || flops % sflops)
        return 0;
    return (int)(flops / sflops);
}

/* Loop l's iterations less the first `peeled` of each entry. */
static sa_frame after_peeled(sa_program *p, const sa_loop *l, int peeled)
{
    sa_iterspace rest = l->space;
    rest.start = sa_pwa_comb(p->arena, 1, rest.start, 1, sa_pwa_lin(p->arena, sa_lin_const(peeled * rest.step)));
    return sa_iterate(p, l->entry, &rest);
}

/* Do two constraints say the same? */
static int same_cons(const sa_cons *x, const sa_cons *y)
{
    if (x->eq != y->eq || x->e.c != y->e.c || x->e.n != y->e.n)
        return 0;
    for (int k = 0; k < x->e.n; k++)
        if (x->e.sym[k] != y->e.sym[k] || x->e.k[k] != y->e.k[k])
            return 0;
    return 1;
}

/* The statement of g that is loop l's work under a guard GCC may split l
 * at: l's one own statement whose domain is not l's body, one piece of
 * weight 1 that adds one constraint to the body's, a lower bound on l's
 * iterator (`j > i + 2`: j - i - 3 >= 0), in a loop of positive step; its
 * index and the bound (i + 3) into *lower, else -1. */
static int split_guard(sa_program *p, const sa_func *g, int l, sa_lin *lower)
{
    const sa_loop *sl = &g->loops[l];
    int found = -1;
    for (size_t s = 0; s < g->nstmts; s++)
        if (g->stmts[s].loop == l && g->stmts[s].where.v != sl->body.v) {
            if (found >= 0)
                return -1;
            found = (int)s;
        }
    if (found < 0 || sl->space.step <= 0 || sl->body.n != 1 || sl->body.v[0].d.n != 1)
        return -1;
    const sa_frame *w = &g->stmts[found].where;
    if (w->n != 1 || w->v[0].num != w->v[0].den || w->v[0].nf || w->v[0].d.n != 1 || w->v[0].d.p[0].sign != 1)
        return -1;
    const sa_piece *body = &sl->body.v[0].d.p[0], *under = &w->v[0].d.p[0];
    const sa_cons *extra = NULL;
    for (size_t c = 0; c < under->n; c++) {
        size_t k = 0;
        while (k < body->n && !same_cons(&under->c[c], &body->c[k]))
            k++;
        if (k < body->n)
            continue;
        if (extra)
            return -1;
        extra = &under->c[c];
    }
    int coef = 0;
    for (int k = 0; extra && k < extra->e.n; k++)
        coef = extra->e.sym[k] == sl->space.it ? (int)extra->e.k[k] : coef;
    if (!extra || extra->eq || coef != 1)
        return -1;
    *lower = sa_lin_comb(p->arena, 1, sa_lin_sym(p->arena, sl->space.it), -1, extra->e);
    return found;
}

/* Does binary loop bl hold code of line `line` of the function at call
 * site `site`? */
static int holds_line(const joiner *j, uint32_t bl, int site, int line)
{
    const st_function *bf = j->bf;
    for (uint32_t b = 0; b < bf->nblocks; b++)
        for (uint32_t i = bf->blocks[b].first; i < bf->blocks[b].first + bf->blocks[b].n && bf->blocks[b].loop == (int32_t)bl;
             i++)
            if (j->line[i] == line && j->site[i] == site)
                return 1;
    return 0;
}

/* Give the binary loops joined to loop l at call site `site` their roles
 * and iterations (in f's symbols): with a vector or unrolled body (the
 * largest factor), that body runs the whole blocks, the first copy of
 * factor 1 the remainder; else the first copy runs them all but those
 * peeled off before it.  A loop GCC split at the guard of its work (the
 * vector body holds the guarded statement's code, a scalar copy does not)
 * runs the blocks of the guarded iterations, from the guard's bound; the
 * copy without it is not counted (GCC -O3 vectorizes its empty loop, run
 * on long stretches only, and does the rest in straight-line code).  Other
 * copies (a second vector body, a second
 * scalar copy: a version taken when arrays overlap) are not counted, with
 * a warning. */
static void assign_roles(joiner *j, int site, int l, const int *factor, const int *lanes)
{
    sa_program *p = j->p;
    const st_function *bf = j->bf;
    int main_loop = -1;
    for (uint32_t b = 0; b < bf->nloops; b++)
        if (j->src[b] == l && j->src_site[b] == site && (main_loop < 0 || factor[b] > factor[main_loop]))
            main_loop = (int)b;
    if (main_loop < 0)
        return;
    const sa_func *g = sa_join_func(j, site);
    const sa_loop *sl = &g->loops[l];
    int kmax = factor[main_loop];
    sa_loop part = *sl; /* the iterations the blocks are cut from */
    sa_lin lower;
    int guard = kmax > 1 ? split_guard(p, g, l, &lower) : -1, line = guard >= 0 ? g->stmts[guard].line : 0;
    sa_frame covers = sa_join_at(j, site, sl->body);
    if (guard >= 0 && holds_line(j, (uint32_t)main_loop, site, line)) { /* split at the guard: the blocks from it */
        part.space.start = sa_pwa_minmax(p->arena, sl->space.start, sa_pwa_lin(p->arena, lower), 1);
        covers = sa_join_at(j, site, g->stmts[guard].where);
    } else {
        guard = -1;
    }
    sa_frame blocks = sa_join_at(j, site, kmax > 1 ? sa_loop_blocked(p, &part, kmax) : sl->body);
    int taken_all = 0, taken_rest = 0;
    for (uint32_t b = 0; b < bf->nloops; b++) {
        if (j->src[b] != l || j->src_site[b] != site)
            continue;
        sa_bloop bl = bloop_record(j, b, site, l, factor[b], lanes[b]);
        if (guard >= 0 && factor[b] == 1 && !holds_line(j, b, site, line)) {
            sa_warn(p, g->file, sl->line,
                    "the copy of the loop at 0x%llx in %s before the guard GCC split it at is not counted: it may be "
                    "a vector loop of no work that runs only on long stretches",
                    (unsigned long long)bl.addr, bf->name);
            j->src[b] = -2;
            continue;
        } else if ((int)b == main_loop) {
            bl.role = kmax > 1 ? SA_BLOOP_BLOCKS : SA_BLOOP_ALL;
            bl.iters = blocks;
            bl.covers = covers;
            taken_all = kmax == 1;
            int peeled = kmax == 1 ? peeled_iterations(j, b, site, g, l) : 0;
            if (peeled > 0)
                bl.iters = sa_join_at(j, site, after_peeled(p, sl, peeled));
        } else if (kmax > 1 && factor[b] == 1 && !taken_rest) {
            bl.role = SA_BLOOP_REMAINDER;
            taken_rest = 1;
            bl.iters = sa_frame_axpy(p->arena, covers, -kmax, blocks);
        } else {
            sa_warn(p, g->file, sl->line,
                    "a %s copy of the loop at 0x%llx in %s (%d source iterations per iteration) is not counted: "
                    "the loop has one already",
                    taken_all ? "second" : "further", (unsigned long long)bl.addr, bf->name, factor[b]);
            j->src[b] = -2; /* not counted, and said so */
            continue;
        }
        j->bloop[b] = (int)p->nbloops;
        p->bloops = sa_push(p->arena, p->bloops, &p->nbloops, sizeof bl, &bl);
    }
}

/* Join binary function bfi of m to its source function. */
static void join_function(sa_program *p, const st_module *m, size_t bfi, const sa_machine *mc)
{
    const st_function *bf = &m->functions[bfi];
    int fi = source_function(p, bf->name);
    if (fi < 0 || bf->nblocks == 0)
        return;
    sa_arena *a = p->arena;
    joiner j = {p, m, bfi, bf, fi, &p->funcs[fi], NULL, NULL, NULL, NULL, NULL, NULL, -1};
    if (strstr(bf->name, "._omp_fn.")) {
        j.threads = sa_sym_get(&p->syms, "threads", SYM_UNKNOWN, NULL);
        sa_add_unknown(p, "threads", j.f->file, j.f->line,
                       "the threads of OpenMP's parallel regions (OMP_NUM_THREADS), each running the region once");
    }
    j.line = sa_alloc(a, (bf->ninsns + 1) * sizeof *j.line);
    j.site = sa_alloc(a, (bf->ninsns + 1) * sizeof *j.site);
    j.src = sa_alloc(a, (bf->nloops + 1) * sizeof *j.src);
    j.src_site = sa_alloc(a, (bf->nloops + 1) * sizeof *j.src_site);
    j.bloop = sa_alloc(a, (bf->nloops + 1) * sizeof *j.bloop);
    j.adj = sa_alloc(a, bf->nblocks + 1);
    int *factor = sa_alloc(a, (bf->nloops + 1) * sizeof *factor);
    int *lanes = sa_alloc(a, (bf->nloops + 1) * sizeof *lanes);
    read_lines(&j);
    for (uint32_t b = bf->nloops; b-- > 0;) { /* children first: they come after their parents */
        target t = vote_source_loop(&j, b);
        const sa_func *g = sa_join_func(&j, t.site);
        while (t.loop >= 0 && (factor[b] = block_factor(&j, b, t.site, g, t.loop, &lanes[b])) == 0)
            t.loop = g->loops[t.loop].parent; /* it holds an inner loop unrolled: an outer loop's */
        j.src[b] = t.loop;
        j.src_site[b] = t.site;
        j.bloop[b] = -1;
    }
    for (int site = -1; site < (int)j.f->ncalls; site++) {
        if (site >= 0 && !j.f->calls[site].inlined)
            continue;
        for (size_t l = 0; l < sa_join_func(&j, site)->nloops; l++)
            assign_roles(&j, site, (int)l, factor, lanes);
    }
    sa_join_blocks(&j, mc);
}

/* Is binary function `symbol` a whole copy of its source function (the
 * original f, or a clone GCC made: f.constprop.0, f.isra.0), rather than a
 * piece that runs beside it (f.part.0, OpenMP's f._omp_fn.0)? */
static int whole_copy(const char *symbol)
{
    return !strstr(symbol, ".part.") && !strstr(symbol, "._omp_fn.");
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The addresses m's instructions call, or jump to from another function
 * (a tail call), sorted, in the arena; their number into *n. */
static uint64_t *call_targets(sa_arena *ar, const st_module *m, size_t *n)
{
    uint64_t *t = NULL;
    *n = 0;
    for (size_t i = 0; i < m->nfunctions; i++) {
        const st_function *f = &m->functions[i];
        for (uint32_t k = 0; k < f->ninsns; k++) {
            const st_insn *in = &f->insns[k];
            int tail = in->flow == ST_FLOW_JUMP && (in->target < f->start || in->target >= f->start + f->size);
            if (in->flow == ST_FLOW_CALL || tail)
                t = sa_push(ar, t, n, sizeof *t, &in->target);
        }
    }
    if (*n)
        qsort(t, *n, sizeof *t, cmp_u64);
    return t;
}

/* The copy of source function fi that the program's calls reach instead
 * of binary function bi (another whole copy that is called when bi is not:
 * GCC specialised the callers' calls, and bi, kept for callers outside the
 * program, does not run), or -1.  targets[0..nt): call_targets. */
static int called_instead(const sa_program *p, const st_module *m, size_t bi, int fi, const uint64_t *targets,
                          size_t nt)
{
#define CALLED(a) (nt && bsearch(&(a), targets, nt, sizeof *targets, cmp_u64))
    if (!whole_copy(m->functions[bi].name) || CALLED(m->functions[bi].start))
        return -1;
    for (size_t k = 0; k < m->nfunctions; k++)
        if (k != bi && whole_copy(m->functions[k].name) && sa_symbol_is(m->functions[k].name, p->funcs[fi].name) &&
            CALLED(m->functions[k].start))
            return (int)k;
    return -1;
#undef CALLED
}

void sa_join_binary(sa_program *p, const st_module *m, const sa_machine *mc)
{
    size_t nt;
    const uint64_t *targets = call_targets(p->arena, m, &nt);
    for (size_t i = 0; i < m->nfunctions; i++) {
        int fi = source_function(p, m->functions[i].name);
        int k = fi >= 0 ? called_instead(p, m, i, fi, targets, nt) : -1;
        if (k >= 0)
            sa_warn(p, p->funcs[fi].file, p->funcs[fi].line,
                    "%s is not counted: no call of the program reaches it; its calls go to %s, a copy GCC made",
                    m->functions[i].name, m->functions[k].name);
        else
            join_function(p, m, i, mc);
    }
}
