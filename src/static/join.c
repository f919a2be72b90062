/* join.c — the join of source and binary (issue 24 item 4): each loop of
 * the binary's functions to the source loop whose lines it carries, the
 * number of source iterations one binary iteration does (vector width
 * times unroll factor, from its flops or bytes against the source's), and
 * so each binary loop's iterations from the source loop's domain: all of
 * them, whole blocks of `factor` (a vector or unrolled body), or what such
 * a body leaves (its remainder copy).  Each basic block then becomes code
 * of its source loop and statement (sa_bin) that runs as often as its loop
 * iterates (once more or less per entry on the far side of the exit test;
 * a block of a guarded statement as often as the statement), and
 * compose.c counts it with the statements (docs/static.md, "The binary"). */
#include "static/join.h"
#include "static/walk.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(OP_CYCLES - OP_CLASS0 == ST_CLASS_COUNT, "one operation slot per instruction class");

/* What the join of one binary function knows. */
typedef struct joiner {
    sa_program *p;
    const st_module *m;
    size_t bfi;          /* the binary function */
    const st_function *bf;
    int fi;              /* its source function */
    const sa_func *f;
    int *in_f;           /* per instruction: its line, when it is one of f's, else 0 */
    int *src;            /* per binary loop: its source loop, -1 */
    int *bloop;          /* per binary loop: its index in p->bloops, -1 */
    int8_t *adj;         /* per block: runs its loop's iterations plus adj times its entries */
    int threads;         /* GCC's outlined OpenMP region (NAME._omp_fn.N): the symbol threads, else -1 */
} joiner;

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

/* The source function a binary function's symbol is (its name up to the
 * first '.': GCC's clones foo.constprop.0, foo.part.0), or -1; cold parts
 * (foo.cold) are not joined: they run rarely, not once per call. */
static int source_function(const sa_program *p, const char *symbol)
{
    if (strstr(symbol, ".cold"))
        return -1;
    size_t n = strcspn(symbol, ".");
    for (size_t i = 0; i < p->nfuncs; i++)
        if (strlen(p->funcs[i].name) == n && !strncmp(p->funcs[i].name, symbol, n))
            return (int)i;
    return -1;
}

static int depth_of(const sa_func *f, int l)
{
    int d = 0;
    for (; l >= 0; l = f->loops[l].parent)
        d++;
    return d;
}

/* The innermost source loop of f whose lines hold `line`, or -1. */
static int loop_at_line(const sa_func *f, int line)
{
    int best = -1;
    for (size_t l = 0; l < f->nloops; l++)
        if (f->loops[l].line <= line && line <= f->loops[l].end_line &&
            (best < 0 || depth_of(f, (int)l) > depth_of(f, best)))
            best = (int)l;
    return best;
}

static int is_ancestor(const sa_func *f, int anc, int l)
{
    for (l = l >= 0 ? f->loops[l].parent : -1; l >= 0; l = f->loops[l].parent)
        if (l == anc)
            return 1;
    return 0;
}

/* The source loop binary loop bl carries: the one most of its own
 * instructions' lines lie in, innermost first; when a loop nested in it is
 * joined already, one of that source loop's ancestors (the nearest with
 * votes, else its parent). -1 when none. */
static int vote_source_loop(const joiner *j, uint32_t bl)
{
    const st_function *bf = j->bf;
    int inner = -1;
    for (uint32_t c = 0; c < bf->nloops && inner < 0; c++)
        if (bf->loops[c].parent == (int32_t)bl && j->src[c] >= 0)
            inner = j->src[c];
    size_t nl = j->f->nloops;
    int *votes = calloc(nl + 1, sizeof *votes);
    if (!votes)
        return -1;
    for (uint32_t b = 0; b < bf->nblocks; b++) {
        if (bf->blocks[b].loop != (int32_t)bl)
            continue;
        for (uint32_t i = bf->blocks[b].first; i < bf->blocks[b].first + bf->blocks[b].n; i++) {
            int s = j->in_f[i] ? loop_at_line(j->f, j->in_f[i]) : -1;
            while (s >= 0 && inner >= 0 && !is_ancestor(j->f, s, inner))
                s = j->f->loops[s].parent;
            if (s >= 0)
                votes[s]++;
        }
    }
    int best = -1;
    for (size_t l = 0; l < nl; l++)
        if (votes[l] > 0 && (best < 0 || votes[l] > votes[best]))
            best = (int)l;
    free(votes);
    if (best < 0 && inner >= 0)
        best = j->f->loops[inner].parent;
    return best;
}

/* The source's flops and bytes per iteration of loop l: its statements
 * directly in the body. */
static void source_per_iteration(const sa_func *f, int l, int64_t *flops, int64_t *bytes)
{
    *flops = *bytes = 0;
    for (size_t s = 0; s < f->nstmts; s++)
        if (f->stmts[s].loop == l) {
            *flops += f->stmts[s].ops[OP_FLOPS];
            *bytes += f->stmts[s].ops[OP_BYTES];
        }
}

/* Is the memory operand a stack slot (a spill or a local at -O0)? */
static int on_stack(const st_memop *mo)
{
    return mo->base == ST_REG_RSP || mo->base == ST_REG_RBP;
}

/* Source iterations per iteration of binary loop bl (joined to source loop
 * l): its flops over the source's per iteration, else, for a body with
 * packed data, its bytes outside the stack over the source's; 1 when
 * neither says (a ratio within 5% of a power of two up to 64 is one);
 * 0 when the binary does more than that (another ratio above 1: an inner
 * loop unrolled in full into this one).
 * *lanes: the most elements one of its instructions works on. */
static int block_factor(const joiner *j, uint32_t bl, int l, int *lanes)
{
    const st_function *bf = j->bf;
    int64_t bflops = 0, bbytes = 0, sflops, sbytes;
    *lanes = 1;
    for (uint32_t b = 0; b < bf->nblocks; b++) {
        if (bf->blocks[b].loop != (int32_t)bl)
            continue;
        for (uint32_t i = bf->blocks[b].first; i < bf->blocks[b].first + bf->blocks[b].n; i++) {
            const st_insn *in = &bf->insns[i];
            bflops += st_insn_flops(in);
            if (in->elem_bits && in->width > in->elem_bits && in->width / in->elem_bits > *lanes &&
                (in->cls != ST_CLASS_INT_ALU && in->cls != ST_CLASS_MOVE))
                *lanes = in->width / in->elem_bits;
            for (int k = 0; k < in->nmem; k++)
                if (in->mem[k].access && !on_stack(&in->mem[k]))
                    bbytes += in->mem[k].size;
        }
    }
    source_per_iteration(j->f, l, &sflops, &sbytes);
    double ratio = sflops > 0 && bflops > 0 ? (double)bflops / (double)sflops
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
static sa_frame frame_axpy(sa_arena *a, sa_frame x, int64_t num, sa_frame y)
{
    sa_frame ys = sa_frame_scale(a, y, num, 1, -1);
    sa_frame r = {0};
    for (size_t i = 0; i < x.n; i++)
        r.v = sa_push(a, r.v, &r.n, sizeof *x.v, &x.v[i]);
    for (size_t i = 0; i < ys.n; i++)
        r.v = sa_push(a, r.v, &r.n, sizeof *ys.v, &ys.v[i]);
    return r;
}

/* Give the binary loops joined to source loop l their roles and
 * iterations: with a vector or unrolled body (the largest factor), that
 * body runs the whole blocks, the first copy of factor 1 the remainder;
 * else the first copy runs them all.  Other copies (a second vector body,
 * a second scalar copy: a version taken when arrays overlap, a loop split
 * at a guard) are not counted, with a warning. */
static void assign_roles(joiner *j, int l, const int *factor, const int *lanes)
{
    sa_program *p = j->p;
    const st_function *bf = j->bf;
    int main_loop = -1;
    for (uint32_t b = 0; b < bf->nloops; b++)
        if (j->src[b] == l && (main_loop < 0 || factor[b] > factor[main_loop]))
            main_loop = (int)b;
    if (main_loop < 0)
        return;
    const sa_loop *sl = &j->f->loops[l];
    int kmax = factor[main_loop];
    sa_frame blocks = kmax > 1 ? sa_loop_blocked(p, sl, kmax) : sl->body;
    int taken_all = 0, taken_rest = 0;
    for (uint32_t b = 0; b < bf->nloops; b++) {
        if (j->src[b] != l)
            continue;
        uint32_t ninsns = 0;
        for (uint32_t k = 0; k < bf->nblocks; k++)
            ninsns += bf->blocks[k].loop == (int32_t)b ? bf->blocks[k].n : 0;
        sa_bloop bl = {.ninsns = (int)ninsns, .func = j->fi, .loop = l, .symbol = sa_strdup(p->arena, bf->name), .addr = bf->blocks[bf->loops[b].header].first < bf->ninsns ? bf->insns[bf->blocks[bf->loops[b].header].first].addr : 0,
                       .factor = factor[b], .lanes = lanes[b], .unroll = factor[b] % lanes[b] ? factor[b] : factor[b] / lanes[b]};
        bl.parallel = sl->parallel;
        if ((int)b == main_loop) {
            bl.role = kmax > 1 ? SA_BLOOP_BLOCKS : SA_BLOOP_ALL;
            bl.iters = blocks;
            taken_all = kmax == 1;
        } else if (kmax > 1 && factor[b] == 1 && !taken_rest) {
            bl.role = SA_BLOOP_REMAINDER;
            taken_rest = 1;
            bl.iters = frame_axpy(p->arena, sl->body, -kmax, blocks);
        } else {
            sa_warn(p, j->f->file, sl->line,
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

/* The statement of f on `line`, or -1. */
static int stmt_at_line(const sa_func *f, int line)
{
    for (size_t s = 0; s < f->nstmts; s++)
        if (f->stmts[s].line == line)
            return (int)s;
    return -1;
}

/* The block of binary loop bl with an edge out of it (the header when it
 * has one), or UINT32_MAX; inloop[] marks the loop's blocks. */
static uint32_t exiting_block(const st_function *bf, uint32_t bl, const char *inloop)
{
    uint32_t found = UINT32_MAX;
    for (uint32_t e = 0; e < bf->nedges; e++) {
        uint32_t from = bf->edges[e].from;
        if (inloop[from] && !inloop[bf->edges[e].to] && (found == UINT32_MAX || from == bf->loops[bl].header))
            found = from;
    }
    return found;
}

/* How often each block of binary loop bl (its own, inner loops' aside)
 * runs against the loop's iterations n per entry, into adj[b] (-1, 0,
 * +1 times the entries): an iteration runs the blocks from the header to
 * the exit test, then those after it.  When the source's statements lie
 * before the test (a rotated loop: body, then test), the blocks after it
 * run n - 1 times; when they lie after it (the test at the top, GCC -O0),
 * the blocks up to the test run n + 1 times. */
static void entry_adjust(const joiner *j, uint32_t bl, int8_t *adj)
{
    const st_function *bf = j->bf;
    const st_loop *L = &bf->loops[bl];
    char *inloop = calloc(bf->nblocks, 1), *after = calloc(bf->nblocks, 1);
    uint32_t *stack = malloc((bf->nblocks + 1) * sizeof *stack);
    if (!inloop || !after || !stack)
        goto out;
    for (uint32_t k = 0; k < L->nblocks; k++)
        inloop[L->blocks[k]] = 1;
    uint32_t x = exiting_block(bf, bl, inloop), top = 0;
    if (x == UINT32_MAX)
        goto out;
    for (uint32_t e = 0; e < bf->nedges; e++) /* what follows the test in the loop, up to the header */
        if (bf->edges[e].from == x && inloop[bf->edges[e].to] && bf->edges[e].to != L->header &&
            !after[bf->edges[e].to])
            after[stack[top++] = bf->edges[e].to] = 1;
    while (top > 0) {
        uint32_t b = stack[--top];
        for (uint32_t e = 0; e < bf->nedges; e++)
            if (bf->edges[e].from == b && inloop[bf->edges[e].to] && bf->edges[e].to != L->header &&
                !after[bf->edges[e].to])
                after[stack[top++] = bf->edges[e].to] = 1;
    }
    int body_before = 0; /* statements before the test, in inner loops too */
    for (uint32_t b = 0; b < bf->nblocks; b++)
        if (inloop[b] && !after[b])
            for (uint32_t i = bf->blocks[b].first; i < bf->blocks[b].first + bf->blocks[b].n; i++)
                body_before |= j->in_f[i] && stmt_at_line(j->f, j->in_f[i]) >= 0;
    for (uint32_t b = 0; b < bf->nblocks; b++)
        if (bf->blocks[b].loop == (int32_t)bl)
            adj[b] = (int8_t)(body_before ? (after[b] ? -1 : 0) : (after[b] ? 0 : 1));
out:
    free(inloop);
    free(after);
    free(stack);
}

/* The frame of one execution outside every loop. */
static sa_frame unit_frame(sa_arena *a)
{
    sa_wdom w = {sa_dom_unit(a), 1, 1, 0, NULL};
    sa_frame f = {0};
    f.v = sa_push(a, f.v, &f.n, sizeof w, &w);
    return f;
}

/* fr, once per thread in an OpenMP region (each thread runs the region's
 * code outside the shared loop, and enters that loop). */
static sa_frame per_thread(const joiner *j, sa_frame fr)
{
    return j->threads >= 0 ? sa_frame_scale(j->p->arena, fr, 1, 1, j->threads) : fr;
}

/* The binary loop that runs source loop l in blocks, or NULL. */
static const sa_bloop *blocks_of(const joiner *j, int l)
{
    for (size_t i = 0; i < j->p->nbloops; i++)
        if (j->p->bloops[i].func == j->fi && j->p->bloops[i].loop == l && j->p->bloops[i].role == SA_BLOOP_BLOCKS)
            return &j->p->bloops[i];
    return NULL;
}

/* The statement all of block b's lines that are statements belong to
 * (-1: none or several). */
static int block_statement(const joiner *j, uint32_t b)
{
    const st_block *bk = &j->bf->blocks[b];
    int stmt = -2;
    for (uint32_t i = bk->first; i < bk->first + bk->n && stmt != -1; i++) {
        int s = j->in_f[i] ? stmt_at_line(j->f, j->in_f[i]) : -1;
        if (s >= 0)
            stmt = stmt == -2 || stmt == s ? s : -1;
    }
    return stmt < 0 ? -1 : stmt;
}

/* Where block b runs: its loop's iterations (the header's once more per
 * entry when the exit test is at the top), a guarded statement's domain
 * when all of the block's lines are that statement's in a copy that runs
 * every iteration, the function's entry outside loops; straight-line code
 * of a statement of a loop run in blocks elsewhere is its remainder (the
 * leftover iterations after the vector body).  0; 1 for a copy
 * left uncounted (assign_roles said so); -1 when the block's loop is not
 * joined. */
static int block_frame(const joiner *j, uint32_t b, sa_frame *out, int *src_loop)
{
    const st_function *bf = j->bf;
    int bl = bf->blocks[b].loop, stmt = block_statement(j, b);
    *src_loop = -1;
    int sl_of_stmt = stmt >= 0 ? j->f->stmts[stmt].loop : -1;
    const sa_bloop *vec = sl_of_stmt >= 0 ? blocks_of(j, sl_of_stmt) : NULL;
    if (vec && (bl < 0 || (j->bloop[bl] >= 0 && is_ancestor(j->f, j->p->bloops[j->bloop[bl]].loop, sl_of_stmt)))) {
        const sa_loop *l = &j->f->loops[sl_of_stmt];
        *src_loop = sl_of_stmt;
        *out = frame_axpy(j->p->arena, l->body, -vec->factor, vec->iters);
        return 0;
    }
    if (bl < 0) { /* once per call; in an OpenMP region, once per thread */
        *out = per_thread(j, unit_frame(j->p->arena));
        return 0;
    }
    if (j->bloop[bl] < 0)
        return j->src[bl] == -2 ? 1 : -1;
    const sa_bloop *B = &j->p->bloops[j->bloop[bl]];
    const sa_loop *sl = &j->f->loops[B->loop];
    *src_loop = B->loop;
    *out = B->iters;
    if (j->adj[b]) {
        *out = frame_axpy(j->p->arena, B->iters, j->adj[b], per_thread(j, sl->entry));
        return 0;
    }
    if (B->role == SA_BLOOP_ALL && stmt >= 0 && j->f->stmts[stmt].loop == B->loop &&
        j->f->stmts[stmt].where.v != sl->body.v)
        *out = j->f->stmts[stmt].where;
    return 0;
}

/* The binary's operations of one instruction, added to ops. */
static void insn_ops(const st_insn *in, int64_t *ops)
{
    ops[OP_INSNS]++;
    ops[OP_BFLOPS] += st_insn_flops(in);
    ops[OP_BLOADS] += in->nloads;
    ops[OP_BSTORES] += in->nstores;
    for (int k = 0; k < in->nmem; k++)
        if (in->mem[k].access)
            ops[OP_BBYTES] += in->mem[k].size;
    if (in->cls < ST_CLASS_COUNT)
        ops[OP_CLASS0 + in->cls]++;
}

/* The code of block b, one sa_bin per statement its lines belong to;
 * with a machine, a block outside loops carries its cycles. */
static void add_block(joiner *j, uint32_t b, sa_frame where, int src_loop, const sa_machine *mc)
{
    const st_function *bf = j->bf;
    sa_func *f = &j->p->funcs[j->fi];
    size_t first = f->nbins;
    for (uint32_t i = bf->blocks[b].first; i < bf->blocks[b].first + bf->blocks[b].n; i++) {
        int s = j->in_f[i] ? stmt_at_line(f, j->in_f[i]) : -1;
        size_t k = first;
        while (k < f->nbins && f->bins[k].stmt != s)
            k++;
        if (k == f->nbins) {
            sa_bin nb = {.where = where, .loop = src_loop, .stmt = s};
            f->bins = sa_push(j->p->arena, f->bins, &f->nbins, sizeof nb, &nb);
        }
        insn_ops(&bf->insns[i], f->bins[k].ops);
    }
    if (mc && bf->blocks[b].loop < 0) { /* the threads run their copies at once: once in time */
        sa_bin cb = {.where = j->threads >= 0 ? unit_frame(j->p->arena) : where, .loop = src_loop, .stmt = -1};
        cb.ops[OP_CYCLES] = sa_block_cycles(mc, bf, b);
        f->bins = sa_push(j->p->arena, f->bins, &f->nbins, sizeof cb, &cb);
    }
}

/* With a machine: the cycles of binary loop b per iteration, as code that
 * runs its iterations; a parallel loop's time is its own formula
 * (out_join.c: sa_parallel_cycles), not code that adds up. */
static void add_loop_cycles(joiner *j, uint32_t b, const sa_machine *mc)
{
    sa_bloop *B = &j->p->bloops[j->bloop[b]];
    sa_loop_cycles(mc, j->m, j->bfi, b, B);
    if (B->parallel)
        return;
    sa_bin nb = {.where = B->iters, .loop = B->loop, .stmt = -1};
    nb.ops[OP_CYCLES] = llround(SA_CYCLE_DEN * B->cycles);
    nb.ops[OP_MEM_CYCLES] = llround(SA_CYCLE_DEN * B->mem_cycles);
    sa_func *f = &j->p->funcs[j->fi];
    f->bins = sa_push(j->p->arena, f->bins, &f->nbins, sizeof nb, &nb);
}

/* Join binary function bfi of m to its source function. */
static void join_function(sa_program *p, const st_module *m, size_t bfi, const sa_machine *mc)
{
    const st_function *bf = &m->functions[bfi];
    int fi = source_function(p, bf->name);
    if (fi < 0 || bf->nblocks == 0)
        return;
    joiner j = {p, m, bfi, bf, fi, &p->funcs[fi], NULL, NULL, NULL, NULL, -1};
    if (strstr(bf->name, "._omp_fn.")) {
        j.threads = sa_sym_get(&p->syms, "threads", SYM_UNKNOWN, NULL);
        sa_add_unknown(p, "threads", j.f->file, j.f->line,
                       "the threads of OpenMP's parallel regions (OMP_NUM_THREADS), each running the region once");
    }
    j.adj = sa_alloc(p->arena, bf->nblocks + 1);
    j.in_f = sa_alloc(p->arena, (bf->ninsns + 1) * sizeof *j.in_f);
    j.src = sa_alloc(p->arena, (bf->nloops + 1) * sizeof *j.src);
    j.bloop = sa_alloc(p->arena, (bf->nloops + 1) * sizeof *j.bloop);
    int *factor = sa_alloc(p->arena, (bf->nloops + 1) * sizeof *factor);
    int *lanes = sa_alloc(p->arena, (bf->nloops + 1) * sizeof *lanes);
    for (uint32_t i = 0; i < bf->ninsns; i++) {
        const st_place *pl = &m->places[bfi][i];
        int line = (int)pl->line;
        if (pl->file < m->nfiles && line >= j.f->line && line <= j.f->end_line && same_file(m->files[pl->file], j.f->file))
            j.in_f[i] = line;
    }
    for (uint32_t b = bf->nloops; b-- > 0;) { /* children first: they come after their parents */
        j.bloop[b] = -1;
        j.src[b] = vote_source_loop(&j, b);
        while (j.src[b] >= 0 && (factor[b] = block_factor(&j, b, j.src[b], &lanes[b])) == 0)
            j.src[b] = j.f->loops[j.src[b]].parent; /* it holds an inner loop unrolled: an outer loop's */
    }
    for (size_t l = 0; l < j.f->nloops; l++)
        assign_roles(&j, (int)l, factor, lanes);
    for (uint32_t b = 0; b < bf->nloops; b++)
        if (j.bloop[b] >= 0)
            entry_adjust(&j, b, j.adj);
    for (uint32_t b = 0; b < bf->nblocks; b++) {
        sa_frame where;
        int src_loop, rc;
        if (bf->blocks[b].idom == UINT32_MAX || bf->blocks[b].n == 0)
            continue;
        if ((rc = block_frame(&j, b, &where, &src_loop)) < 0) {
            int bl = bf->blocks[b].loop;
            sa_warn(p, j.f->file, j.f->line,
                    "the binary loop at 0x%llx of %s carries no line of %s's loops (code inlined from another "
                    "function?): its instructions are not counted",
                    (unsigned long long)bf->insns[bf->blocks[bf->loops[bl].header].first].addr, bf->name, j.f->name);
        }
        if (rc == 0)
            add_block(&j, b, where, src_loop, mc);
    }
    for (uint32_t b = 0; b < bf->nloops && mc; b++)
        if (j.bloop[b] >= 0)
            add_loop_cycles(&j, b, mc);
}

void sa_join_binary(sa_program *p, const st_module *m, const sa_machine *mc)
{
    for (size_t i = 0; i < m->nfunctions; i++)
        join_function(p, m, i, mc);
}
