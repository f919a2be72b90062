/* dataflow.c — register dependences, address formulas and strides of one
 * function whose CFG and loops are built (seed 002 section 3.1).
 *
 * Three analyses, each documented in docs/dataflow.md:
 *   - register dependences: within a block the latest earlier def; across
 *     blocks reaching definitions, solved twice (without and with back
 *     edges) so that defs reaching a use only around a back edge are marked
 *     loop-carried;
 *   - address formulas: each memory operand's address as a linear formula
 *     over register values at the entry of its innermost loop (or of the
 *     function), found by walking the CFG backwards;
 *   - strides: how far that address moves per iteration of each enclosing
 *     loop, from basic induction variables.
 * Work is capped on huge functions (RD_BUDGET_BITS, WALK_CAP, REGION_CAP).
 */
#include "structure/structure.h"
#include "util/array.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reaching definitions across blocks only while defs * blocks <= this many
 * bits (8 MiB per bit-vector set, three sets); above it, within-block
 * dependences only.  Functions up to roughly 12k instructions fit. */
#define RD_BUDGET_BITS ((uint64_t)1 << 26)

/* Instructions plus blocks one backward walk may visit before the registers
 * left in its formula become opaque. */
#define WALK_CAP 4096

/* Blocks a join's region (the blocks between idom(b) and b) may hold before
 * it is taken to write every register. */
#define REGION_CAP 4096

/* Terms a formula may hold while it is built; the output keeps ST_MAX_TERMS. */
#define FCAP 16

/* Enclosing loops reported per address (the size of st_addr.loops). */
#define MAX_LEVELS 8

#define NONE32 UINT32_MAX
#define REG_MASK ((((st_regset)1) << ST_REG_COUNT) - 1)
#define BIT(r) (((st_regset)1) << (r))

/* ---- small helpers ------------------------------------------------------- */

/* Wrapping arithmetic: addresses are computed modulo 2^64. */
static int64_t add64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t mul64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static uint64_t mag64(int64_t a) { return a < 0 ? -(uint64_t)a : (uint64_t)a; }

/* Lowest register of a non-empty set. */
static unsigned first_reg(st_regset s) { return (unsigned)__builtin_ctzll(s); }

/* Registers an instruction leaves changed.  A call returns with the stack
 * pointer it was given (ABI), so rsp does not count as written by it. */
static st_regset eff_writes(const st_insn *in)
{
    st_regset w = in->writes & REG_MASK;
    if (in->flow == ST_FLOW_CALL || in->flow == ST_FLOW_ICALL)
        w &= ~BIT(ST_REG_RSP);
    return w;
}

/* A general-purpose register (the only ones an op's dst can be). */
static bool is_gpr(unsigned r) { return r < ST_REG_VEC0; }

/* 1 if block b is one of loop l's blocks (binary search of the sorted list). */
static bool in_loop(const st_loop *l, uint32_t b)
{
    uint32_t lo = 0, hi = l->nblocks;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->blocks[mid] == b)
            return true;
        if (l->blocks[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* ---- per-function context ------------------------------------------------ */

/* What one loop contributes to strides: registers it writes, which of them
 * are basic induction variables, and their steps per iteration. */
typedef struct loop_info {
    bool done;
    st_regset written, iv;
    int64_t step[ST_REG_COUNT];
} loop_info;

struct formula;

/* Everything the analyses share for one function. */
typedef struct df_ctx {
    const st_function *f;
    uint32_t *pred_off, *pred_edge; /* incoming edge indices, CSR by block */
    uint32_t *succ_off, *succ_edge; /* outgoing edge indices, CSR by block */
    uint8_t *is_back;               /* per edge: a loop's back edge */
    uint32_t *insn_block;           /* per insn: its block, NONE32 if none */
    st_regset *bwrites;             /* per block: eff_writes of its insns */
    st_regset *region;              /* per block: memo of region_writes */
    uint8_t *region_done;
    uint32_t *seen, seen_stamp;     /* visited marks for region searches */
    uint32_t *queue;                /* work list, nblocks entries */
    uint32_t *cnt, *cnt_stamp, cstamp; /* latch-dominator counts of loop_info */
    loop_info *li;                  /* per loop, filled on demand */
    struct formula **entry;         /* nloops * ST_REG_COUNT, see entry_value */
} df_ctx;

/* Release what ctx_init allocated; safe on a partly built context. */
static void ctx_free(df_ctx *c)
{
    if (c->entry)
        for (size_t k = 0; k < (size_t)c->f->nloops * ST_REG_COUNT; k++)
            free(c->entry[k]);
    free(c->entry);
    free(c->li);
    free(c->pred_off);
    free(c->pred_edge);
    free(c->succ_off);
    free(c->succ_edge);
    free(c->is_back);
    free(c->insn_block);
    free(c->bwrites);
    free(c->region);
    free(c->region_done);
    free(c->seen);
    free(c->queue);
    free(c->cnt);
    free(c->cnt_stamp);
}

/* Fill an edge CSR: off[b]..off[b+1] index into idx, the edges whose `to`
 * (incoming) or `from` (outgoing) is b.  Invalid edges were already
 * excluded by the caller through `valid`. */
static void build_csr(const st_function *f, const uint8_t *valid, bool incoming, uint32_t *off, uint32_t *idx)
{
    memset(off, 0, (f->nblocks + 1) * sizeof *off);
    for (uint32_t e = 0; e < f->nedges; e++)
        if (valid[e])
            off[(incoming ? f->edges[e].to : f->edges[e].from) + 1]++;
    for (uint32_t b = 0; b < f->nblocks; b++)
        off[b + 1] += off[b];
    for (uint32_t e = 0; e < f->nedges; e++) {
        if (!valid[e])
            continue;
        uint32_t b = incoming ? f->edges[e].to : f->edges[e].from;
        idx[off[b]++] = e;
    }
    /* off[b] now holds the end of b's range; shift back to starts. */
    for (uint32_t b = f->nblocks; b > 0; b--)
        off[b] = off[b - 1];
    off[0] = 0;
}

/* Build the context: edge lists, back-edge marks, the insn -> block map and
 * per-block write sets.  Returns 0, or -1 when out of memory. */
static int ctx_init(df_ctx *c, const st_function *f)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    uint32_t nb = f->nblocks, ne = f->nedges;
    c->pred_off = malloc((nb + 1) * sizeof *c->pred_off);
    c->succ_off = malloc((nb + 1) * sizeof *c->succ_off);
    c->pred_edge = malloc((ne + 1) * sizeof *c->pred_edge);
    c->succ_edge = malloc((ne + 1) * sizeof *c->succ_edge);
    c->is_back = calloc(ne + 1, 1);
    c->insn_block = malloc(((size_t)f->ninsns + 1) * sizeof *c->insn_block);
    c->bwrites = calloc(nb + 1, sizeof *c->bwrites);
    c->region = calloc(nb + 1, sizeof *c->region);
    c->region_done = calloc(nb + 1, 1);
    c->seen = calloc(nb + 1, sizeof *c->seen);
    c->queue = malloc((nb + 1) * sizeof *c->queue);
    c->cnt = calloc(nb + 1, sizeof *c->cnt);
    c->cnt_stamp = calloc(nb + 1, sizeof *c->cnt_stamp);
    c->li = calloc((size_t)f->nloops + 1, sizeof *c->li);
    c->entry = calloc((size_t)f->nloops * ST_REG_COUNT + 1, sizeof *c->entry);
    uint8_t *valid = malloc(ne + 1);
    if (!c->pred_off || !c->succ_off || !c->pred_edge || !c->succ_edge || !c->is_back || !c->insn_block ||
        !c->bwrites || !c->region || !c->region_done || !c->seen || !c->queue || !c->cnt || !c->cnt_stamp ||
        !c->li || !c->entry || !valid) {
        free(valid);
        return -1;
    }
    for (uint32_t e = 0; e < ne; e++)
        valid[e] = f->edges[e].from < nb && f->edges[e].to < nb;
    build_csr(f, valid, true, c->pred_off, c->pred_edge);
    build_csr(f, valid, false, c->succ_off, c->succ_edge);
    free(valid);
    for (uint32_t l = 0; l < f->nloops; l++)
        for (uint32_t k = 0; k < f->loops[l].nback; k++)
            if (f->loops[l].back[k] < ne)
                c->is_back[f->loops[l].back[k]] = 1;
    for (uint32_t i = 0; i < f->ninsns; i++)
        c->insn_block[i] = NONE32;
    for (uint32_t b = 0; b < nb; b++) {
        const st_block *blk = &f->blocks[b];
        for (uint32_t i = blk->first; i < blk->first + blk->n && i < f->ninsns; i++) {
            c->insn_block[i] = b;
            c->bwrites[b] |= eff_writes(&f->insns[i]);
        }
    }
    return 0;
}

/* ---- register dependences: reaching definitions -------------------------- */

/* The bit-vector problem.  A def is one (instruction, register written);
 * defs are numbered grouped by register, in instruction order within a
 * register, so the defs a block kills are whole ranges [rstart[r],
 * rstart[r+1]) and a use's candidates are one range. */
typedef struct rd_state {
    uint32_t ndefs, words;
    uint32_t rstart[ST_REG_COUNT + 1];
    uint32_t *def_insn;       /* def id -> instruction */
    uint32_t *gen_off, *gen;  /* per block: the last def of each register it writes */
    st_regset *kill;          /* per block: registers it writes */
    uint32_t *order;          /* blocks in reverse postorder, unreachable ones last */
    uint64_t *in_a, *in_f;    /* per block: defs reaching its entry (acyclic, full) */
    uint64_t *out, *tmp;
} rd_state;

static void rd_free(rd_state *s)
{
    free(s->def_insn);
    free(s->gen_off);
    free(s->gen);
    free(s->kill);
    free(s->order);
    free(s->in_a);
    free(s->in_f);
    free(s->out);
    free(s->tmp);
}

/* Reverse postorder of the blocks reachable from block 0 over all edges,
 * then the others in index order, into order[0..nblocks).  Iterative DFS:
 * huge functions would overflow the C stack.  Returns 0 or -1 (memory). */
static int rd_order(const df_ctx *c, uint32_t *order)
{
    const st_function *f = c->f;
    uint32_t nb = f->nblocks, n = nb, top = 0;
    uint32_t *stack = malloc(nb * sizeof *stack), *next = calloc(nb, sizeof *next);
    uint8_t *mark = calloc(nb, 1);
    if (!stack || !next || !mark) {
        free(stack);
        free(next);
        free(mark);
        return -1;
    }
    stack[top++] = 0;
    mark[0] = 1;
    while (top) {
        uint32_t b = stack[top - 1];
        uint32_t k = c->succ_off[b] + next[b];
        if (k < c->succ_off[b + 1]) {
            next[b]++;
            uint32_t s = f->edges[c->succ_edge[k]].to;
            if (!mark[s]) {
                mark[s] = 1;
                stack[top++] = s;
            }
        } else {
            order[--n] = b; /* postorder filled from the back = reverse postorder */
            top--;
        }
    }
    /* Reachable blocks occupy order[n..nb); move them to the front. */
    memmove(order, order + n, (nb - n) * sizeof *order);
    uint32_t k = nb - n;
    for (uint32_t b = 0; b < nb; b++)
        if (!mark[b])
            order[k++] = b;
    free(stack);
    free(next);
    free(mark);
    return 0;
}

/* Number the defs and collect each block's gen and kill sets.  Returns 0,
 * 1 when defs * blocks exceeds RD_BUDGET_BITS (no cross-block analysis),
 * -1 when out of memory. */
static int rd_build(const df_ctx *c, rd_state *s)
{
    const st_function *f = c->f;
    uint32_t count[ST_REG_COUNT] = {0};
    for (uint32_t i = 0; i < f->ninsns; i++)
        for (st_regset w = f->insns[i].writes & REG_MASK; w; w &= w - 1)
            count[first_reg(w)]++;
    s->rstart[0] = 0;
    for (unsigned r = 0; r < ST_REG_COUNT; r++)
        s->rstart[r + 1] = s->rstart[r] + count[r];
    s->ndefs = s->rstart[ST_REG_COUNT];
    if ((uint64_t)s->ndefs * f->nblocks > RD_BUDGET_BITS)
        return 1;
    s->words = (s->ndefs + 63) / 64;
    size_t vec = (size_t)f->nblocks * s->words;
    s->def_insn = malloc((s->ndefs + 1) * sizeof *s->def_insn);
    s->gen_off = calloc(f->nblocks + 1, sizeof *s->gen_off);
    s->gen = malloc((s->ndefs + 1) * sizeof *s->gen);
    s->kill = calloc(f->nblocks + 1, sizeof *s->kill);
    s->order = malloc((f->nblocks + 1) * sizeof *s->order);
    s->in_a = calloc(vec + 1, sizeof *s->in_a);
    s->in_f = calloc(vec + 1, sizeof *s->in_f);
    s->out = calloc(vec + 1, sizeof *s->out);
    s->tmp = calloc(s->words + 1, sizeof *s->tmp);
    if (!s->def_insn || !s->gen_off || !s->gen || !s->kill || !s->order || !s->in_a || !s->in_f || !s->out ||
        !s->tmp)
        return -1;

    /* Def ids in instruction order within each register's range. */
    uint32_t cursor[ST_REG_COUNT];
    memcpy(cursor, s->rstart, sizeof cursor);
    for (uint32_t i = 0; i < f->ninsns; i++)
        for (st_regset w = f->insns[i].writes & REG_MASK; w; w &= w - 1)
            s->def_insn[cursor[first_reg(w)]++] = i;
    /* Each block's gen: the id of its last def per register. */
    uint32_t ngen = 0;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const st_block *blk = &f->blocks[b];
        st_regset seen = 0;
        s->gen_off[b] = ngen;
        /* Backwards: the first def met per register is the block's last. */
        for (uint32_t i = blk->first + blk->n; i-- > blk->first;) {
            if (i >= f->ninsns)
                continue;
            st_regset w = f->insns[i].writes & REG_MASK & ~seen;
            seen |= w;
            for (; w; w &= w - 1) {
                unsigned r = first_reg(w);
                /* Find i's id among r's defs: binary search, ids ascend by insn. */
                uint32_t lo = s->rstart[r], hi = s->rstart[r + 1];
                while (lo < hi) {
                    uint32_t mid = lo + (hi - lo) / 2;
                    if (s->def_insn[mid] < i)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                s->gen[ngen++] = lo;
            }
        }
        s->kill[b] = seen;
    }
    s->gen_off[f->nblocks] = ngen;
    return rd_order(c, s->order);
}

/* Clear bits [lo, hi) of v. */
static void clear_range(uint64_t *v, uint32_t lo, uint32_t hi)
{
    for (uint32_t k = lo; k < hi;) {
        if (k % 64 == 0 && hi - k >= 64) {
            v[k / 64] = 0;
            k += 64;
        } else {
            v[k / 64] &= ~((uint64_t)1 << (k % 64));
            k++;
        }
    }
}

/* The lowest set bit of v in [from, to), NONE32 if none: word at a time,
 * since a use's candidate range can hold thousands of defs (flags). */
static uint32_t next_bit(const uint64_t *v, uint32_t from, uint32_t to)
{
    while (from < to) {
        uint64_t w = v[from / 64] >> (from % 64);
        if (w) {
            uint32_t k = from + (uint32_t)__builtin_ctzll(w);
            return k < to ? k : NONE32;
        }
        from = (from / 64 + 1) * 64;
    }
    return NONE32;
}

/* Solve reaching definitions into in[] (per block, words each); back
 * edges are followed only when with_back.  Iterates in reverse postorder
 * until nothing changes: once when the graph is acyclic, a few times per
 * loop nesting level otherwise. */
static void rd_solve(const df_ctx *c, rd_state *s, uint64_t *in, bool with_back)
{
    const st_function *f = c->f;
    size_t W = s->words;
    memset(s->out, 0, (size_t)f->nblocks * W * sizeof *s->out);
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t k = 0; k < f->nblocks; k++) {
            uint32_t b = s->order[k];
            uint64_t *inb = in + b * W;
            memset(inb, 0, W * sizeof *inb);
            for (uint32_t p = c->pred_off[b]; p < c->pred_off[b + 1]; p++) {
                uint32_t e = c->pred_edge[p];
                if (!with_back && c->is_back[e])
                    continue;
                const uint64_t *o = s->out + (size_t)f->edges[e].from * W;
                for (size_t w = 0; w < W; w++)
                    inb[w] |= o[w];
            }
            /* out = gen | (in - kill) */
            memcpy(s->tmp, inb, W * sizeof *inb);
            for (st_regset m = s->kill[b]; m; m &= m - 1) {
                unsigned r = first_reg(m);
                clear_range(s->tmp, s->rstart[r], s->rstart[r + 1]);
            }
            for (uint32_t g = s->gen_off[b]; g < s->gen_off[b + 1]; g++)
                s->tmp[s->gen[g] / 64] |= (uint64_t)1 << (s->gen[g] % 64);
            uint64_t *ob = s->out + b * W;
            if (memcmp(ob, s->tmp, W * sizeof *ob)) {
                memcpy(ob, s->tmp, W * sizeof *ob);
                changed = true;
            }
        }
    }
}

/* A growing array of dependences. */
typedef struct dep_vec {
    st_dep *v;
    size_t n, cap;
} dep_vec;

/* Append one dependence; -1 when out of memory. */
static int dep_push(dep_vec *d, uint32_t def, uint32_t use, unsigned reg, bool carried, int32_t loop)
{
    st_dep *v = array_grow(d->v, d->n, &d->cap, sizeof *v);
    if (!v)
        return -1;
    d->v = v;
    d->v[d->n++] = (st_dep){.def = def, .use = use, .reg = (uint8_t)reg, .carried = carried, .loop = loop};
    return 0;
}

/* The innermost loop containing both blocks, -1 if none. */
static int32_t common_loop(const st_function *f, uint32_t a, uint32_t b)
{
    int32_t l = f->blocks[b].loop;
    while (l >= 0 && (uint32_t)l < f->nloops && !in_loop(&f->loops[l], a))
        l = f->loops[l].parent;
    return (l >= 0 && (uint32_t)l < f->nloops) ? l : -1;
}

/* Dependences of every instruction's register reads, block by block and
 * in instruction order within a block (a zero idiom's read of its own
 * destination is not one).  s is NULL when over budget: then
 * only defs earlier in the same block are found.  Returns 0 or -1 (memory). */
static int collect_deps(const df_ctx *c, const rd_state *s, dep_vec *d)
{
    const st_function *f = c->f;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const st_block *blk = &f->blocks[b];
        uint32_t last[ST_REG_COUNT];
        for (unsigned r = 0; r < ST_REG_COUNT; r++)
            last[r] = NONE32;
        const uint64_t *inf = s ? s->in_f + (size_t)b * s->words : NULL;
        const uint64_t *ina = s ? s->in_a + (size_t)b * s->words : NULL;
        for (uint32_t i = blk->first; i < blk->first + blk->n && i < f->ninsns; i++) {
            const st_insn *in = &f->insns[i];
            st_regset reads = in->reads & REG_MASK;
            if (in->op == ST_OP_ZERO && is_gpr(in->dst)) /* xor r, r: no dependence on r's old value */
                reads &= ~BIT(in->dst);
            for (st_regset m = reads; m; m &= m - 1) {
                unsigned r = first_reg(m);
                if (last[r] != NONE32) {
                    if (dep_push(d, last[r], i, r, false, -1))
                        return -1;
                    continue;
                }
                if (!s)
                    continue;
                for (uint32_t id = s->rstart[r]; (id = next_bit(inf, id, s->rstart[r + 1])) != NONE32; id++) {
                    uint32_t def = s->def_insn[id];
                    bool carried = !(ina[id / 64] >> (id % 64) & 1);
                    int32_t loop = -1;
                    if (carried && c->insn_block[def] != NONE32)
                        loop = common_loop(f, c->insn_block[def], b);
                    if (dep_push(d, def, i, r, carried, loop))
                        return -1;
                }
            }
            for (st_regset w = in->writes & REG_MASK; w; w &= w - 1)
                last[first_reg(w)] = i;
        }
    }
    return 0;
}

/* All register dependences of the function into out->deps.  Returns 0 or
 * -1 (memory). */
static int compute_deps(const df_ctx *c, st_dataflow *out)
{
    rd_state s;
    memset(&s, 0, sizeof s);
    dep_vec d = {0};
    int rc = c->f->nblocks ? rd_build(c, &s) : 1;
    if (rc == 0) {
        rd_solve(c, &s, s.in_a, false);
        rd_solve(c, &s, s.in_f, true);
        free(s.out); /* not needed any more: lower the peak during collection */
        s.out = NULL;
    }
    if (rc >= 0)
        rc = collect_deps(c, rc == 0 ? &s : NULL, &d);
    rd_free(&s);
    if (rc < 0) {
        free(d.v);
        return -1;
    }
    out->deps = d.v;
    out->ndeps = d.n;
    return 0;
}

/* ---- address formulas ---------------------------------------------------- */

/* A term while a formula is built.  Opaque terms remember where they were
 * produced: the instruction (NONE32 when the value was lost at a join or a
 * cap) and the block, which decide equality and whether a loop changes
 * them. */
typedef struct fterm {
    uint8_t kind, reg;
    uint32_t insn, block;
    int64_t coef;
} fterm;

/* constant + sum coef * term.  overflow: a term was dropped (more than FCAP). */
typedef struct formula {
    int64_t constant;
    uint32_t n;
    bool overflow;
    fterm t[FCAP];
} formula;

static bool same_term(const fterm *a, const fterm *b)
{
    if (a->kind != b->kind || a->reg != b->reg)
        return false;
    return a->kind == ST_TERM_REG || (a->insn == b->insn && a->block == b->block);
}

/* Add a term, merging with an equal one and dropping zero coefficients.
 * When full, the smallest |coef| goes and the formula is marked overflowed. */
static void f_add(formula *F, fterm t)
{
    if (t.coef == 0)
        return;
    for (uint32_t k = 0; k < F->n; k++)
        if (same_term(&F->t[k], &t)) {
            F->t[k].coef = add64(F->t[k].coef, t.coef);
            if (F->t[k].coef == 0)
                F->t[k] = F->t[--F->n];
            return;
        }
    if (F->n < FCAP) {
        F->t[F->n++] = t;
        return;
    }
    F->overflow = true;
    uint32_t small = 0;
    for (uint32_t k = 1; k < F->n; k++)
        if (mag64(F->t[k].coef) < mag64(F->t[small].coef))
            small = k;
    if (mag64(t.coef) > mag64(F->t[small].coef))
        F->t[small] = t;
}

static void f_add_reg(formula *F, unsigned reg, int64_t coef)
{
    f_add(F, (fterm){.kind = ST_TERM_REG, .reg = (uint8_t)reg, .insn = NONE32, .block = NONE32, .coef = coef});
}

static void f_add_opaque(formula *F, unsigned reg, uint32_t insn, uint32_t block, int64_t coef)
{
    f_add(F, (fterm){.kind = ST_TERM_OPAQUE, .reg = (uint8_t)reg, .insn = insn, .block = block, .coef = coef});
}

/* Registers of the formula's register terms. */
static st_regset f_regs(const formula *F)
{
    st_regset s = 0;
    for (uint32_t k = 0; k < F->n; k++)
        if (F->t[k].kind == ST_TERM_REG)
            s |= BIT(F->t[k].reg);
    return s;
}

/* Replace the register terms in `regs` by opaque values produced in block
 * b (a join, a cap or a block without predecessors). */
static void f_make_opaque(formula *F, st_regset regs, uint32_t b)
{
    fterm moved[FCAP];
    uint32_t n = 0;
    for (uint32_t k = F->n; k-- > 0;)
        if (F->t[k].kind == ST_TERM_REG && (regs & BIT(F->t[k].reg))) {
            moved[n++] = F->t[k];
            F->t[k] = F->t[--F->n];
        }
    while (n--)
        f_add_opaque(F, moved[n].reg, NONE32, b, moved[n].coef);
}

/* A register usable as a term: a real architectural register. */
static bool is_reg(unsigned r) { return r < ST_REG_COUNT; }

/* Add coef * (base + index * scale + disp) of memory operand m of
 * instruction i (in block b).  A vector index (gather/scatter) is opaque. */
static void f_add_address(formula *F, int64_t coef, const st_memop *m, const st_insn *in, uint32_t i, uint32_t b)
{
    F->constant = add64(F->constant, mul64(coef, m->disp));
    if (m->base == ST_REG_RIP) /* unresolved RIP-relative: rip is the next insn */
        F->constant = add64(F->constant, mul64(coef, (int64_t)(in->addr + in->len)));
    else if (is_reg(m->base))
        f_add_reg(F, m->base, coef);
    else if (m->base != ST_REG_NONE)
        f_add_opaque(F, m->base, i, b, coef);
    if (m->index == ST_REG_NONE)
        return;
    int64_t c = mul64(coef, m->scale ? m->scale : 1);
    if (m->is_vsib || !is_reg(m->index))
        f_add_opaque(F, m->index, i, b, c);
    else
        f_add_reg(F, m->index, c);
}

/* Substitute, in F, every register that instruction i (block b) writes by
 * its value before i: the op's expression for the op's destination, an
 * opaque value for anything else written. */
static void f_subst_insn(formula *F, const st_function *f, uint32_t i, uint32_t b)
{
    const st_insn *in = &f->insns[i];
    st_regset hit = eff_writes(in) & f_regs(F);
    if (!hit)
        return;
    /* Take all hit terms out first: expressions refer to values before i. */
    fterm old[FCAP];
    uint32_t n = 0;
    for (uint32_t k = F->n; k-- > 0;)
        if (F->t[k].kind == ST_TERM_REG && (hit & BIT(F->t[k].reg))) {
            old[n++] = F->t[k];
            F->t[k] = F->t[--F->n];
        }
    for (uint32_t k = 0; k < n; k++) {
        unsigned r = old[k].reg;
        int64_t c = old[k].coef;
        bool src_ok = is_reg(in->src);
        switch (r == in->dst ? in->op : ST_OP_OTHER) {
        case ST_OP_MOV_REG:
            if (!src_ok)
                goto opaque;
            f_add_reg(F, in->src, c);
            break;
        case ST_OP_MOV_IMM:
            F->constant = add64(F->constant, mul64(c, in->imm));
            break;
        case ST_OP_ZERO:
            break;
        case ST_OP_ADD_IMM:
            f_add_reg(F, r, c);
            F->constant = add64(F->constant, mul64(c, in->imm));
            break;
        case ST_OP_ADD_REG:
        case ST_OP_SUB_REG:
            if (!src_ok)
                goto opaque;
            f_add_reg(F, r, c);
            f_add_reg(F, in->src, in->op == ST_OP_ADD_REG ? c : mul64(c, -1));
            break;
        case ST_OP_SHL_IMM:
            f_add_reg(F, r, mul64(c, (int64_t)((uint64_t)1 << (in->imm & 63))));
            break;
        case ST_OP_MUL_IMM:
            if (!src_ok)
                goto opaque;
            f_add_reg(F, in->src, mul64(c, in->imm));
            break;
        case ST_OP_LEA:
            if (in->nmem < 1)
                goto opaque;
            f_add_address(F, c, &in->mem[0], in, i, b);
            break;
        default: /* LOAD, OTHER, or a register the op does not describe */
        opaque:
            f_add_opaque(F, r, i, b, c);
            break;
        }
    }
}

/* Start a backward search: a fresh visited mark, an empty queue. */
static void search_begin(df_ctx *c)
{
    if (++c->seen_stamp == 0) { /* wrapped: forget old marks */
        memset(c->seen, 0, c->f->nblocks * sizeof *c->seen);
        c->seen_stamp = 1;
    }
}

/* Queue block y for the search unless it was seen or is the barrier d;
 * false when the queue would exceed REGION_CAP. */
static bool search_push(df_ctx *c, uint32_t *tail, uint32_t y, uint32_t d)
{
    if (y == d || c->seen[y] == c->seen_stamp)
        return true;
    if (*tail >= REGION_CAP)
        return false;
    c->seen[y] = c->seen_stamp;
    c->queue[(*tail)++] = y;
    return true;
}

/* Finish a search whose first `tail` blocks are queued: the registers
 * written by them and by every block reaching them backwards without
 * passing d; every register when more than REGION_CAP blocks are met. */
static st_regset search_writes(df_ctx *c, uint32_t tail, uint32_t d)
{
    const st_function *f = c->f;
    st_regset w = 0;
    for (uint32_t head = 0; head < tail; head++) {
        uint32_t x = c->queue[head];
        w |= c->bwrites[x];
        for (uint32_t p = c->pred_off[x]; p < c->pred_off[x + 1]; p++)
            if (!search_push(c, &tail, f->edges[c->pred_edge[p]].from, d))
                return REG_MASK;
    }
    return w;
}

/* The registers written by the blocks strictly between idom(b) and b: those
 * that reach b backwards without passing idom(b) -- b itself too when it
 * lies on a cycle, as its writes then reach its own entry.  Memoized. */
static st_regset region_writes(df_ctx *c, uint32_t b)
{
    if (c->region_done[b])
        return c->region[b];
    const st_function *f = c->f;
    uint32_t d = f->blocks[b].idom, tail = 0;
    st_regset w = 0;
    search_begin(c);
    for (uint32_t p = c->pred_off[b]; p < c->pred_off[b + 1] && w != REG_MASK; p++)
        if (!search_push(c, &tail, f->edges[c->pred_edge[p]].from, d))
            w = REG_MASK;
    if (w != REG_MASK)
        w = search_writes(c, tail, d);
    c->region[b] = w;
    c->region_done[b] = 1;
    return w;
}

/* Walk backwards from just before instruction `pos` of block b, rewriting
 * F in terms of earlier values, until block `stop`'s start (a loop header),
 * the function entry, or F has no register terms.  At a block start: one
 * predecessor over a forward edge -> continue there; a join -> terms whose
 * registers the region between idom(b) and b writes become opaque, then
 * continue at idom(b); no predecessor (unreachable) -> all opaque.  After
 * WALK_CAP instructions and blocks the remaining registers become opaque. */
static void walk(df_ctx *c, formula *F, uint32_t b, uint32_t pos, uint32_t stop)
{
    const st_function *f = c->f;
    uint32_t budget = WALK_CAP;
    for (;;) {
        const st_block *blk = &f->blocks[b];
        for (uint32_t i = pos; i-- > blk->first;) {
            st_regset live = f_regs(F);
            if (!live)
                return;
            if (budget == 0) {
                f_make_opaque(F, live, b);
                return;
            }
            budget--;
            if (i < f->ninsns && (eff_writes(&f->insns[i]) & live))
                f_subst_insn(F, f, i, b);
        }
        st_regset live = f_regs(F);
        if (!live || b == stop || b == 0)
            return;
        if (budget == 0) {
            f_make_opaque(F, live, b);
            return;
        }
        budget--;
        uint32_t np = c->pred_off[b + 1] - c->pred_off[b];
        uint32_t e = np ? c->pred_edge[c->pred_off[b]] : NONE32;
        uint32_t next;
        if (np == 1 && !c->is_back[e]) {
            next = f->edges[e].from;
        } else {
            next = blk->idom;
            if (np == 0 || next == NONE32 || next == b || next >= f->nblocks) {
                f_make_opaque(F, live, b);
                return;
            }
            st_regset w = region_writes(c, b) & live;
            if (w)
                f_make_opaque(F, w, b);
        }
        b = next;
        pos = f->blocks[b].first + f->blocks[b].n;
    }
}

/* ---- strides ------------------------------------------------------------- */

/* If instruction `in` is `r += imm` (ADD_IMM on r, or LEA r, [r + imm]
 * without index), store imm and return true. */
static bool iv_form(const st_insn *in, unsigned r, int64_t *imm)
{
    if (in->dst != r)
        return false;
    if (in->op == ST_OP_ADD_IMM) {
        *imm = in->imm;
        return true;
    }
    if (in->op == ST_OP_LEA && in->nmem >= 1 && in->mem[0].base == r && in->mem[0].index == ST_REG_NONE) {
        *imm = in->mem[0].disp;
        return true;
    }
    return false;
}

/* Fill loop l's info: the registers written in its blocks (nested loops'
 * included), and the basic induction variables among them -- registers
 * whose every write in the loop is `r += imm` in a block of l itself (not
 * of a nested loop) that dominates every latch; step = sum of the imms. */
static const loop_info *get_loop_info(df_ctx *c, uint32_t l)
{
    loop_info *li = &c->li[l];
    if (li->done)
        return li;
    li->done = true;
    const st_function *f = c->f;
    const st_loop *L = &f->loops[l];

    /* Count, per block, the distinct latches whose dominator chain (up to
     * the header) holds it: the blocks that dominate every latch reach the
     * number of latches. */
    if (++c->cstamp == 0) {
        memset(c->cnt_stamp, 0, f->nblocks * sizeof *c->cnt_stamp);
        c->cstamp = 1;
    }
    uint32_t nlatch = 0, latch_stamp = c->cstamp;
    search_begin(c); /* seen marks the latches already counted */
    for (uint32_t k = 0; k < L->nback; k++) {
        if (L->back[k] >= f->nedges)
            continue;
        uint32_t x = f->edges[L->back[k]].from;
        if (x >= f->nblocks || c->seen[x] == c->seen_stamp)
            continue;
        c->seen[x] = c->seen_stamp;
        nlatch++;
        for (uint32_t y = x, guard = 0; y < f->nblocks && guard <= f->nblocks; guard++) {
            if (c->cnt_stamp[y] != latch_stamp) {
                c->cnt_stamp[y] = latch_stamp;
                c->cnt[y] = 0;
            }
            c->cnt[y]++;
            if (y == L->header || f->blocks[y].idom == y)
                break;
            y = f->blocks[y].idom;
        }
    }

    st_regset bad = 0;
    for (uint32_t k = 0; k < L->nblocks; k++) {
        uint32_t b = L->blocks[k];
        if (b >= f->nblocks)
            continue;
        const st_block *blk = &f->blocks[b];
        bool every_iteration = nlatch > 0 && blk->loop == (int32_t)l && c->cnt_stamp[b] == latch_stamp &&
                               c->cnt[b] == nlatch;
        for (uint32_t i = blk->first; i < blk->first + blk->n && i < f->ninsns; i++) {
            st_regset w = eff_writes(&f->insns[i]);
            li->written |= w;
            for (; w; w &= w - 1) {
                unsigned r = first_reg(w);
                int64_t imm;
                if (every_iteration && iv_form(&f->insns[i], r, &imm))
                    li->step[r] = add64(li->step[r], imm);
                else
                    bad |= BIT(r);
            }
        }
    }
    li->iv = li->written & ~bad;
    return li;
}

/* Bytes the address F (over values at loop l's header entry) moves per
 * iteration of l: sum coef * step over register terms (0 for registers l
 * does not write); ST_STRIDE_UNKNOWN for a register written but not an
 * induction variable, an opaque term produced inside l, or an overflowed
 * formula. */
static int64_t stride_of(df_ctx *c, uint32_t l, const formula *F)
{
    if (F->overflow)
        return ST_STRIDE_UNKNOWN;
    const loop_info *li = get_loop_info(c, l);
    int64_t s = 0;
    for (uint32_t k = 0; k < F->n; k++) {
        const fterm *t = &F->t[k];
        if (t->kind == ST_TERM_OPAQUE) {
            if (t->block != NONE32 && in_loop(&c->f->loops[l], t->block))
                return ST_STRIDE_UNKNOWN;
        } else if (li->written & BIT(t->reg)) {
            if (!(li->iv & BIT(t->reg)))
                return ST_STRIDE_UNKNOWN;
            s = add64(s, mul64(t->coef, li->step[t->reg]));
        }
    }
    return s;
}

/* The registers written by the blocks that reach loop L's header
 * backwards from its predecessors outside L without passing d =
 * idom(header); every register past REGION_CAP blocks. */
static st_regset entry_region_writes(df_ctx *c, const st_loop *L, uint32_t d)
{
    const st_function *f = c->f;
    uint32_t h = L->header, tail = 0;
    search_begin(c);
    for (uint32_t p = c->pred_off[h]; p < c->pred_off[h + 1]; p++) {
        uint32_t y = f->edges[c->pred_edge[p]].from;
        if (!in_loop(L, y) && !search_push(c, &tail, y, d))
            return REG_MASK;
    }
    return search_writes(c, tail, d);
}

/* Register r's value on entry to loop l from outside (at the end of its
 * preheader), as a formula over values at the entry of l's parent's
 * header.  The preheader is the header's unique predecessor outside l;
 * with several, idom(header), after making the registers written on the
 * way from it opaque.  Memoized per (loop, register); NULL when out of
 * memory.  l must have a parent. */
static const formula *entry_value(df_ctx *c, uint32_t l, unsigned r)
{
    formula **slot = &c->entry[(size_t)l * ST_REG_COUNT + r];
    if (*slot)
        return *slot;
    formula *F = calloc(1, sizeof *F);
    if (!F)
        return NULL;
    const st_function *f = c->f;
    const st_loop *L = &f->loops[l];
    uint32_t h = L->header, stop = f->loops[L->parent].header;
    f_add_reg(F, r, 1);

    uint32_t pre = NONE32;
    bool several = false;
    for (uint32_t p = c->pred_off[h]; p < c->pred_off[h + 1]; p++) {
        uint32_t e = c->pred_edge[p], y = f->edges[e].from;
        if (c->is_back[e] || in_loop(L, y))
            continue;
        several |= pre != NONE32 && y != pre;
        pre = y;
    }
    if (pre == NONE32 || several) {
        pre = f->blocks[h].idom;
        if (pre == NONE32 || pre >= f->nblocks || pre == h) {
            f_make_opaque(F, BIT(r), h);
            pre = NONE32;
        } else if (entry_region_writes(c, L, pre) & BIT(r)) {
            f_make_opaque(F, BIT(r), h);
        }
    }
    if (pre != NONE32)
        walk(c, F, pre, f->blocks[pre].first + f->blocks[pre].n, stop);
    *slot = F;
    return F;
}

/* Rewrite F from loop l's level (values at l's header entry) to its
 * parent's level: each register l keeps as an induction variable or leaves
 * alone becomes its value on entry to l; one l writes otherwise becomes
 * opaque, produced in l.  Returns 0 or -1 (memory). */
static int lift(df_ctx *c, uint32_t l, formula *F)
{
    const loop_info *li = get_loop_info(c, l);
    formula G = {.constant = F->constant, .overflow = F->overflow};
    for (uint32_t k = 0; k < F->n; k++) {
        const fterm *t = &F->t[k];
        if (t->kind == ST_TERM_OPAQUE) {
            f_add(&G, *t);
        } else if ((li->written & BIT(t->reg)) && !(li->iv & BIT(t->reg))) {
            f_add_opaque(&G, t->reg, NONE32, c->f->loops[l].header, t->coef);
        } else {
            const formula *E = entry_value(c, l, t->reg);
            if (!E)
                return -1;
            G.constant = add64(G.constant, mul64(t->coef, E->constant));
            G.overflow |= E->overflow;
            for (uint32_t j = 0; j < E->n; j++) {
                fterm u = E->t[j];
                u.coef = mul64(u.coef, t->coef);
                f_add(&G, u);
            }
        }
    }
    *F = G;
    return 0;
}

/* Order of output terms: registers by number, then opaque values by origin. */
static int term_cmp(const void *pa, const void *pb)
{
    const fterm *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind - b->kind;
    if (a->kind == ST_TERM_OPAQUE) {
        if (a->insn != b->insn)
            return a->insn < b->insn ? -1 : 1;
        if (a->block != b->block)
            return a->block < b->block ? -1 : 1;
    }
    return a->reg - b->reg;
}

/* Copy F into the public form: the ST_MAX_TERMS largest |coef| terms, in
 * term_cmp order; complete = 0 when any term was dropped. */
static void emit_formula(const formula *F, st_addr *a)
{
    fterm t[FCAP];
    uint32_t n = F->n;
    memcpy(t, F->t, n * sizeof *t);
    a->complete = !F->overflow && n <= ST_MAX_TERMS;
    /* Selection: move the largest |coef| to the front, ST_MAX_TERMS times. */
    for (uint32_t k = 0; k < n && k < ST_MAX_TERMS; k++) {
        uint32_t best = k;
        for (uint32_t j = k + 1; j < n; j++)
            if (mag64(t[j].coef) > mag64(t[best].coef))
                best = j;
        fterm x = t[k];
        t[k] = t[best];
        t[best] = x;
    }
    if (n > ST_MAX_TERMS)
        n = ST_MAX_TERMS;
    qsort(t, n, sizeof *t, term_cmp);
    a->constant = F->constant;
    a->nterms = (uint8_t)n;
    for (uint32_t k = 0; k < n; k++)
        a->terms[k] = (st_term){.kind = t[k].kind, .reg = t[k].reg, .coef = t[k].coef};
}

/* The formula and strides of memory operand m of instruction i.  Returns 0
 * or -1 (memory). */
static int compute_addr(df_ctx *c, uint32_t i, unsigned m, st_addr *a)
{
    const st_function *f = c->f;
    const st_insn *in = &f->insns[i];
    uint32_t b = c->insn_block[i];
    memset(a, 0, sizeof *a);
    a->insn = i;
    a->memop = (uint8_t)m;
    formula F = {0};
    f_add_address(&F, 1, &in->mem[m], in, i, b);
    int32_t l = b == NONE32 ? -1 : f->blocks[b].loop;
    if (l >= (int32_t)f->nloops)
        l = -1;
    if (b != NONE32)
        walk(c, &F, b, i, l >= 0 ? f->loops[l].header : NONE32);
    emit_formula(&F, a);
    while (l >= 0 && a->nloops < MAX_LEVELS) {
        a->loops[a->nloops] = l;
        a->stride[a->nloops++] = stride_of(c, (uint32_t)l, &F);
        int32_t parent = f->loops[l].parent;
        if (parent < 0 || parent >= (int32_t)f->nloops || a->nloops == MAX_LEVELS)
            break;
        if (lift(c, (uint32_t)l, &F))
            return -1;
        l = parent;
    }
    return 0;
}

/* Formulas of every memory operand with access != 0 into out->addrs. */
static int compute_addrs(df_ctx *c, st_dataflow *out)
{
    const st_function *f = c->f;
    size_t n = 0;
    for (uint32_t i = 0; i < f->ninsns; i++)
        for (unsigned m = 0; m < f->insns[i].nmem && m < ST_MAX_MEMOPS; m++)
            n += f->insns[i].mem[m].access != 0;
    out->addrs = n ? malloc(n * sizeof *out->addrs) : NULL;
    if (n && !out->addrs)
        return -1;
    size_t k = 0;
    for (uint32_t i = 0; i < f->ninsns; i++)
        for (unsigned m = 0; m < f->insns[i].nmem && m < ST_MAX_MEMOPS; m++)
            if (f->insns[i].mem[m].access != 0 && compute_addr(c, i, m, &out->addrs[k++]))
                return -1;
    out->naddrs = n;
    return 0;
}

/* ---- interface ----------------------------------------------------------- */

/* Fill *out (zeroed first) with f's dependences and address formulas.
 * Returns 0; -1 with a message in err for a malformed function or when
 * out of memory, leaving *out empty.  f is not modified. */
int st_dataflow_compute(const st_function *f, st_dataflow *out, char *err, size_t errlen)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    if (!f || (f->ninsns && !f->insns) || (f->nblocks && !f->blocks) || (f->nedges && !f->edges) ||
        (f->nloops && !f->loops)) {
        if (err && errlen)
            snprintf(err, errlen, "dataflow: malformed function");
        return -1;
    }
    df_ctx c;
    int rc = ctx_init(&c, f);
    if (rc == 0)
        rc = compute_deps(&c, out);
    if (rc == 0)
        rc = compute_addrs(&c, out);
    ctx_free(&c);
    if (rc) {
        st_dataflow_free(out);
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory in dataflow analysis", f->name ? f->name : "function");
        return -1;
    }
    return 0;
}

/* Release what st_dataflow_compute filled in and zero *df; NULL is a no-op. */
void st_dataflow_free(st_dataflow *df)
{
    if (!df)
        return;
    free(df->deps);
    free(df->addrs);
    memset(df, 0, sizeof *df);
}
