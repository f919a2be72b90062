/* join_code.c — the join of source and binary, its code: each basic block
 * of a joined binary function becomes code of the source function (sa_bin)
 * in a source loop and statement, running as often as its binary loop
 * iterates (once more or less per entry on the far side of the exit test;
 * a block of a guarded statement as often as the statement; straight-line
 * code of a loop run in blocks elsewhere as its remainder; an OpenMP
 * static schedule's remainder branch on N mod threads threads), with its
 * instructions per class, flops, loads, stores and bytes, and with a
 * machine its cycles (a loop's in steps by its entries' iterations; a
 * parallel loop's split over the threads); compose.c counts it with the
 * statements (docs/static.md, "The binary", "Cycles"). */
#include "static/join_int.h"
#include "static/walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(OP_CYCLES - OP_CLASS0 == ST_CLASS_COUNT, "one operation slot per instruction class");

/* The statement of instruction i (in the function of its call site), or -1. */
static int insn_stmt(const joiner *j, uint32_t i)
{
    return j->line[i] ? sa_join_stmt(j, j->site[i], j->line[i]) : -1;
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
    stack[top++] = x; /* what follows the test in the loop, up to the header */
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
                body_before |= insn_stmt(j, i) >= 0;
    for (uint32_t b = 0; b < bf->nblocks; b++)
        if (bf->blocks[b].loop == (int32_t)bl)
            adj[b] = (int8_t)(body_before ? (after[b] ? -1 : 0) : (after[b] ? 0 : 1));
out:
    free(inloop);
    free(after);
    free(stack);
}

/* fr, once per thread in an OpenMP region (each thread runs the region's
 * code outside the shared loop, and enters that loop). */
static sa_frame per_thread(const joiner *j, sa_frame fr)
{
    return j->threads >= 0 ? sa_frame_scale(j->p->arena, fr, 1, 1, j->threads) : fr;
}

/* The binary loop of this function that runs loop l of the function at
 * call site `site` in blocks, or NULL. */
static const sa_bloop *blocks_of(const joiner *j, int site, int l)
{
    int g = (int)(sa_join_func(j, site) - j->p->funcs), via = site >= 0 ? j->f->calls[site].line : 0;
    for (size_t i = 0; i < j->p->nbloops; i++) {
        const sa_bloop *b = &j->p->bloops[i];
        if (b->func == g && b->loop == l && b->via_line == via && b->role == SA_BLOOP_BLOCKS && !strcmp(b->symbol, j->bf->name))
            return b;
    }
    return NULL;
}

/* The statement all of block b's lines that are statements belong to, and
 * its call site; -1 when none or several. */
static int block_statement(const joiner *j, uint32_t b, int *site)
{
    const st_block *bk = &j->bf->blocks[b];
    int stmt = -2;
    *site = -1;
    for (uint32_t i = bk->first; i < bk->first + bk->n && stmt != -1; i++) {
        int s = insn_stmt(j, i);
        if (s < 0)
            continue;
        stmt = (stmt == -2 || (stmt == s && *site == j->site[i])) ? s : -1;
        *site = j->site[i];
    }
    return stmt < 0 ? -1 : stmt;
}

/* Does binary loop bl (joined) lie around loop l of the function at call
 * site `site`: its target an ancestor of l there, or f's loop around the
 * call (or one of its ancestors)? */
static int lies_around(const joiner *j, int bl, int site, int l)
{
    int ts = j->src_site[bl], tl = j->src[bl];
    if (ts == site)
        return sa_join_is_ancestor(sa_join_func(j, site), tl, l);
    if (ts >= 0 || site < 0)
        return 0;
    int around = j->f->calls[site].loop;
    return tl == around || sa_join_is_ancestor(j->f, tl, around);
}

/* The loop of f that holds binary loop bl's code: its target, or the loop
 * around the call site of an inlined callee's. */
static int f_loop(const joiner *j, int bl)
{
    return j->src_site[bl] < 0 ? j->src[bl] : j->f->calls[j->src_site[bl]].loop;
}

static int remainder_frame(const joiner *j, uint32_t b, sa_frame *out);

/* Where block b runs, in f's symbols, into *out, and f's loop holding it:
 * its loop's iterations (once more or less per entry beyond the exit
 * test), a guarded statement's domain when all of the block's lines are
 * that statement's in a copy that runs every iteration, the function's
 * entry outside loops; straight-line code of a statement of a loop run in
 * blocks elsewhere is its remainder (the leftover iterations after the
 * vector body).  0; 1 for a copy left uncounted (assign_roles said so); -1
 * when the block's loop is not joined. */
static int block_frame(const joiner *j, uint32_t b, sa_frame *out, int *src_loop)
{
    sa_arena *a = j->p->arena;
    int bl = j->bf->blocks[b].loop, site, stmt = block_statement(j, b, &site);
    const sa_func *g = sa_join_func(j, site);
    int sl_of_stmt = stmt >= 0 ? g->stmts[stmt].loop : -1;
    const sa_bloop *vec = sl_of_stmt >= 0 ? blocks_of(j, site, sl_of_stmt) : NULL;
    *src_loop = -1;
    if (vec && (bl < 0 || (j->bloop[bl] >= 0 && lies_around(j, bl, site, sl_of_stmt)))) {
        *src_loop = site < 0 ? sl_of_stmt : j->f->calls[site].loop;
        *out = sa_frame_axpy(a, vec->covers, -vec->factor, vec->iters);
        return 0;
    }
    if (bl < 0) { /* once per call; in an OpenMP region, once per thread, but its schedule's remainder */
        if (remainder_frame(j, b, out) != 0)
            *out = per_thread(j, sa_frame_unit(a));
        return 0;
    }
    if (j->bloop[bl] < 0)
        return j->src[bl] == -2 ? 1 : -1;
    const sa_bloop *B = &j->p->bloops[j->bloop[bl]];
    int ts = j->src_site[bl];
    const sa_loop *sl = &sa_join_func(j, ts)->loops[B->loop];
    *src_loop = f_loop(j, bl);
    *out = B->iters;
    if (j->adj[b]) {
        *out = sa_frame_axpy(a, B->iters, j->adj[b], per_thread(j, sa_join_at(j, ts, sl->entry)));
        return 0;
    }
    if (B->role == SA_BLOOP_ALL && stmt >= 0 && site == ts && g->stmts[stmt].loop == B->loop &&
        g->stmts[stmt].where.v != sl->body.v)
        *out = sa_join_at(j, site, g->stmts[stmt].where);
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

/* The code of block b, one sa_bin per statement of f its lines belong to
 * (an inlined callee's: the call's); with a machine, a block outside
 * loops carries its cycles. */
static void add_block(joiner *j, uint32_t b, sa_frame where, int src_loop, const sa_machine *mc)
{
    const st_function *bf = j->bf;
    sa_func *f = j->f;
    size_t first = f->nbins;
    for (uint32_t i = bf->blocks[b].first; i < bf->blocks[b].first + bf->blocks[b].n; i++) {
        int s = !j->line[i] ? -1 : j->site[i] < 0 ? sa_join_stmt(j, -1, j->line[i])
                                                   : sa_join_stmt(j, -1, f->calls[j->site[i]].line);
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
        sa_bin cb = {.where = j->threads >= 0 ? sa_frame_unit(j->p->arena) : where, .loop = src_loop, .stmt = -1};
        cb.ops[OP_CYCLES] = sa_block_cycles(mc, bf, b);
        f->bins = sa_push(j->p->arena, f->bins, &f->nbins, sizeof cb, &cb);
    }
}

/* One thread's share of the iterations of one entry of source loop sl (of
 * the function at call site `site`; the least with floor_div, else the
 * largest), as a SYM_SHARE symbol of f's
 * symbols, or -1 when the entry's iterations depend on the loops around it
 * (or on a branch ratio): ceil(N/threads) of N per entry is then no
 * formula of the unknowns. */
static int loop_share(const joiner *j, int site, const sa_loop *sl, int floor_div)
{
    sa_arena *a = j->p->arena;
    sa_frame once = sa_join_at(j, site, sa_iterate(j->p, sa_frame_unit(a), &sl->space));
    sa_dom d = {0};
    for (size_t i = 0; i < once.n; i++) {
        const sa_wdom *w = &once.v[i];
        if (w->num != w->den || w->nf)
            return -1;
        for (size_t k = 0; k < w->d.n; k++)
            for (size_t c = 0; c < w->d.p[k].n; c++)
                for (int t = 0; t < w->d.p[k].c[c].e.n; t++) {
                    int sym = w->d.p[k].c[c].e.sym[t];
                    if (j->p->syms.v[sym].kind == SYM_ITER && sym != sl->space.it)
                        return -1;
                }
        d = sa_dom_plus(a, d, w->d);
    }
    return sa_sym_share(&j->p->syms, &d, sa_sym_get(&j->p->syms, "threads", SYM_UNKNOWN, NULL), floor_div);
}

/* Is block b, outside loops, the branch of GCC's static schedule that
 * gives each of the first N % threads threads one iteration more
 * (omp-expand's `if (tid < tt) { q++; tt = 0; }`): its one predecessor
 * divides (N / threads) and branches to it or past it, to the block it goes
 * on to? */
static int schedule_remainder(const joiner *j, uint32_t b)
{
    const st_function *bf = j->bf;
    uint32_t pred = UINT32_MAX, next = UINT32_MAX, npred = 0, nnext = 0;
    for (uint32_t e = 0; e < bf->nedges; e++) {
        if (bf->edges[e].to == b && bf->blocks[bf->edges[e].from].idom != UINT32_MAX) /* padding falls in too */
            pred = bf->edges[e].from, npred++;
        if (bf->edges[e].from == b)
            next = bf->edges[e].to, nnext++;
    }
    if (npred != 1 || nnext != 1 || bf->blocks[pred].loop >= 0)
        return 0;
    int divides = 0, around = 0;
    for (uint32_t i = bf->blocks[pred].first; i < bf->blocks[pred].first + bf->blocks[pred].n; i++)
        divides |= bf->insns[i].cls == ST_CLASS_INT_DIV;
    for (uint32_t e = 0; e < bf->nedges; e++)
        around |= bf->edges[e].from == pred && bf->edges[e].to == next;
    return divides && around;
}

/* Block b of an OpenMP region, when it is its static schedule's remainder
 * branch (schedule_remainder) before its one parallel loop: where it runs,
 * N mod threads times per entry of the loop (N - threads*floor(N/threads)),
 * into *out.  0, or -1 when it is not, or the loop's N per entry is no
 * formula of the unknowns. */
static int remainder_frame(const joiner *j, uint32_t b, sa_frame *out)
{
    const sa_bloop *par = NULL;
    for (uint32_t l = 0; l < j->bf->nloops; l++) {
        const sa_bloop *B = j->bloop[l] >= 0 ? &j->p->bloops[j->bloop[l]] : NULL;
        if (B && B->parallel && par && (par->loop != B->loop || par->func != B->func))
            return -1; /* several: which one's split is it? */
        par = B && B->parallel ? B : par;
    }
    if (j->threads < 0 || !par || par->via_func >= 0 || !schedule_remainder(j, b))
        return -1;
    const sa_loop *sl = &j->f->loops[par->loop];
    int least = loop_share(j, -1, sl, 1);
    if (least < 0)
        return -1;
    sa_frame whole = sa_frame_scale(j->p->arena, sa_frame_scale(j->p->arena, sl->entry, 1, 1, j->threads), 1, 1, least);
    *out = sa_frame_axpy(j->p->arena, sl->body, -1, whole);
    return 0;
}

/* fr where the entries of a loop of iteration space s (its ends affine,
 * span_varies) run at most k iterations: its bound at most k steps from
 * its start, as the wdoms' band. */
static sa_frame entries_at_most(sa_program *p, sa_frame fr, const sa_iterspace *s, int64_t k)
{
    sa_arena *a = p->arena;
    int up = s->step > 0, inclusive = !strcmp(s->rel, "<=") || !strcmp(s->rel, ">=");
    sa_lin span = up ? sa_lin_comb(a, 1, s->bound.v[0].v, -1, s->start.v[0].v)
                     : sa_lin_comb(a, 1, s->start.v[0].v, -1, s->bound.v[0].v);
    sa_cons c = sa_le(a, span, sa_lin_const(k * llabs(s->step) - inclusive));
    sa_frame out = {fr.n, sa_alloc(a, (fr.n + 1) * sizeof *fr.v)};
    for (size_t i = 0; i < fr.n; i++) {
        out.v[i] = fr.v[i];
        out.v[i].nband = 0;
        out.v[i].band = NULL;
        for (size_t b = 0; b < fr.v[i].nband; b++)
            out.v[i].band = sa_push(a, out.v[i].band, &out.v[i].nband, sizeof c, &fr.v[i].band[b]);
        out.v[i].band = sa_push(a, out.v[i].band, &out.v[i].nband, sizeof c, &c);
    }
    return out;
}

/* Does the number of iterations of an entry of a loop of space s depend
 * on the loops around it (a triangular nest) or on a quotient?  Bands of
 * it would be constraints between the iterators, which PolyLib's 64-bit
 * counts overflow on with the capacities' large constants (a triangle cut
 * at n - i <= 131071). */
static int span_varies(const sa_program *p, const sa_iterspace *s)
{
    const sa_pwa *ends[2] = {&s->start, &s->bound};
    for (int e = 0; e < 2; e++) {
        if (ends[e]->n != 1 || ends[e]->v[0].n)
            return 1; /* a min, max or quotient: cases with constraints */
        for (int t = 0; t < ends[e]->v[0].v.n; t++)
            if (sa_sym_is_dim(p->syms.v[ends[e]->v[0].v.sym[t]].kind))
                return 1;
    }
    return 0;
}

/* The cycles of binary loop B (of source loop sl, f's own), as code of f's
 * loop `loop`: per band of its iterations per entry (cycles.c), the
 * band's cycles per iteration in the entries that run that many. */
static void add_band_cycles(joiner *j, const sa_bloop *B, const sa_loop *sl, int loop)
{
    sa_frame upto = {0}; /* the iterations of entries of at most the band before's */
    for (int k = 0; k < B->nbands; k++) {
        const sa_band *bd = &B->bands[k];
        sa_frame within = k + 1 < B->nbands ? entries_at_most(j->p, B->iters, &sl->space, (int64_t)bd->most) : B->iters;
        sa_bin nb = {.where = sa_frame_axpy(j->p->arena, within, -1, upto), .loop = loop, .stmt = -1};
        nb.ops[OP_CYCLES] = llround(SA_CYCLE_DEN * bd->cycles);
        nb.ops[OP_MEM_CYCLES] = llround(SA_CYCLE_DEN * B->mem_cycles);
        j->f->bins = sa_push(j->p->arena, j->f->bins, &j->f->nbins, sizeof nb, &nb);
        upto = within;
    }
}

/* With a machine: the cycles of binary loop b per iteration, as code that
 * runs its iterations.  A parallel loop's iterations are split over the
 * threads (seed 004): per entry, each thread runs its share ceil(N/threads)
 * of the N source iterations (the static schedule's largest), in blocks of
 * the loop's factor, each iteration stretched by the contention of the
 * threads' streams, (1 + R*threads); its remainder copy (at most factor - 1
 * iterations per thread) is left out.  Entries run once in time, not once
 * per thread. */
static void add_loop_cycles(joiner *j, uint32_t b, const sa_machine *mc)
{
    sa_arena *a = j->p->arena;
    sa_bloop *B = &j->p->bloops[j->bloop[b]];
    sa_loop_cycles(mc, j->m, j->bfi, b, B);
    int ts = j->src_site[b];
    const sa_loop *sl = &sa_join_func(j, ts)->loops[B->loop];
    int share = B->parallel ? loop_share(j, ts, sl, 0) : -1;
    if (B->parallel && share < 0)
        sa_warn(j->p, sa_join_func(j, ts)->file, sl->line,
                "the parallel loop's iterations per entry depend on the loops around it: its cycles are counted as "
                "on one thread");
    if (share >= 0 && B->role == SA_BLOOP_REMAINDER)
        return;
    if (!B->parallel && ts < 0 && B->nbands > 1 && !span_varies(j->p, &sl->space)) {
        add_band_cycles(j, B, sl, f_loop(j, (int)b));
        return;
    }
    sa_bin nb = {.where = B->iters, .loop = f_loop(j, (int)b), .stmt = -1};
    nb.ops[OP_CYCLES] = llround(SA_CYCLE_DEN * B->cycles / (share >= 0 ? B->factor : 1));
    nb.ops[OP_MEM_CYCLES] = llround(SA_CYCLE_DEN * B->mem_cycles / (share >= 0 ? B->factor : 1));
    if (share >= 0) {
        nb.where = sa_frame_scale(a, sa_join_at(j, ts, sl->entry), 1, 1, share);
        sa_bin contention = {.where = sa_frame_scale(a, nb.where, 1, 1, sa_sym_get(&j->p->syms, "threads", SYM_UNKNOWN, NULL)),
                             .loop = nb.loop, .stmt = -1};
        contention.ops[OP_CYCLES] = llround(SA_CYCLE_DEN * B->cycles * B->contention / B->factor);
        if (contention.ops[OP_CYCLES])
            j->f->bins = sa_push(a, j->f->bins, &j->f->nbins, sizeof contention, &contention);
    }
    j->f->bins = sa_push(a, j->f->bins, &j->f->nbins, sizeof nb, &nb);
}

void sa_join_blocks(joiner *j, const sa_machine *mc)
{
    const st_function *bf = j->bf;
    for (uint32_t b = 0; b < bf->nloops; b++)
        if (j->bloop[b] >= 0)
            entry_adjust(j, b, j->adj);
    for (uint32_t b = 0; b < bf->nblocks; b++) {
        sa_frame where;
        int src_loop, rc;
        if (bf->blocks[b].idom == UINT32_MAX || bf->blocks[b].n == 0)
            continue;
        if ((rc = block_frame(j, b, &where, &src_loop)) < 0) {
            int bl = bf->blocks[b].loop;
            sa_warn(j->p, j->f->file, j->f->line,
                    "the binary loop at 0x%llx of %s carries no line of the source's loops: its instructions are "
                    "not counted",
                    (unsigned long long)bf->insns[bf->blocks[bf->loops[bl].header].first].addr, bf->name);
        }
        if (rc == 0)
            add_block(j, b, where, src_loop, mc);
    }
    for (uint32_t b = 0; b < bf->nloops && mc; b++)
        if (j->bloop[b] >= 0)
            add_loop_cycles(j, b, mc);
}
