/* test_dataflow.c — unit tests of src/structure/dataflow.c: register
 * dependences (within blocks, across joins, loop-carried), address
 * formulas and per-loop strides, on small functions built by hand.
 *
 * Each function is written out as the assembly it stands for, with block
 * (B), edge (e) and loop (L) numbers, and every expected number is derived
 * in a comment next to it.  Instructions are described the way decode.c
 * would: op/dst/src/imm for the effect on a GPR, reads/writes with flags,
 * memory operands with base/index/scale/disp.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "structure/structure.h"

/* ---- building functions -------------------------------------------------- */

#define R(r) ((st_regset)1 << (r))
#define RAX ST_REG_RAX
#define RCX ST_REG_RCX
#define RDX ST_REG_RDX
#define RBX ST_REG_RBX
#define RSI ST_REG_RSI
#define RDI ST_REG_RDI
#define R8 ST_REG_R8
#define R9 ST_REG_R9
#define R10 ST_REG_R10
#define R11 ST_REG_R11
#define XMM0 ST_REG_VEC0
#define FL ST_REG_FLAGS
#define NOREG ST_REG_NONE

/* A function under construction; arrays sized at creation. */
typedef struct fb {
    st_function f;
    uint32_t cap_insns, cap_blocks, cap_edges;
} fb;

static fb *fb_new(uint32_t insns, uint32_t blocks, uint32_t edges)
{
    fb *b = calloc(1, sizeof *b);
    assert_non_null(b);
    b->f.name = "test";
    b->f.insns = calloc(insns, sizeof *b->f.insns);
    b->f.blocks = calloc(blocks, sizeof *b->f.blocks);
    b->f.edges = calloc(edges ? edges : 1, sizeof *b->f.edges);
    b->f.loops = calloc(4, sizeof *b->f.loops);
    assert_true(b->f.insns && b->f.blocks && b->f.edges && b->f.loops);
    b->cap_insns = insns;
    b->cap_blocks = blocks;
    b->cap_edges = edges;
    return b;
}

static void fb_free(fb *b)
{
    for (uint32_t l = 0; l < b->f.nloops; l++) {
        free(b->f.loops[l].blocks);
        free(b->f.loops[l].back);
    }
    free(b->f.loops);
    free(b->f.insns);
    free(b->f.blocks);
    free(b->f.edges);
    free(b);
}

/* Start a new block at the next instruction. */
static void blk(fb *b)
{
    assert_true(b->f.nblocks < b->cap_blocks);
    b->f.blocks[b->f.nblocks++] = (st_block){.first = b->f.ninsns, .n = 0, .idom = 0, .loop = -1};
}

/* Append an instruction to the current block; returns its index. */
static uint32_t ins(fb *b, uint8_t op, uint8_t dst, uint8_t src, int64_t imm, st_regset reads, st_regset writes)
{
    assert_true(b->f.ninsns < b->cap_insns && b->f.nblocks > 0);
    uint32_t i = b->f.ninsns++;
    st_insn *in = &b->f.insns[i];
    memset(in, 0, sizeof *in);
    in->addr = 0x1000 + 4 * (uint64_t)i;
    in->len = 4;
    in->op = op;
    in->dst = dst;
    in->src = src;
    in->imm = imm;
    in->reads = reads;
    in->writes = writes;
    for (unsigned k = 0; k < ST_MAX_MEMOPS; k++)
        in->mem[k].base = in->mem[k].index = NOREG;
    b->f.blocks[b->f.nblocks - 1].n++;
    return i;
}

/* Give the last instruction a memory operand base + index*scale + disp. */
static void mem(fb *b, uint8_t base, uint8_t index, uint8_t scale, int64_t disp, uint8_t access)
{
    st_insn *in = &b->f.insns[b->f.ninsns - 1];
    st_memop *m = &in->mem[in->nmem++];
    *m = (st_memop){.base = base, .index = index, .scale = scale, .access = access, .size = 8, .disp = disp};
    in->nloads += (access & ST_MEM_READ) != 0;
    in->nstores += (access & ST_MEM_WRITE) != 0;
}

/* Mark the last instruction as a conditional jump (reads the flags). */
static void cjump(fb *b) { b->f.insns[b->f.ninsns - 1].flow = ST_FLOW_CJUMP; }

static uint32_t edge(fb *b, uint32_t from, uint32_t to, uint8_t kind)
{
    assert_true(b->f.nedges < b->cap_edges);
    b->f.edges[b->f.nedges] = (st_edge){.from = from, .to = to, .kind = kind};
    return b->f.nedges++;
}

/* Set every block's idom and innermost loop. */
static void dom(fb *b, const uint32_t *idom, const int32_t *loop)
{
    for (uint32_t k = 0; k < b->f.nblocks; k++) {
        b->f.blocks[k].idom = idom[k];
        b->f.blocks[k].loop = loop[k];
    }
}

/* Add a loop (parents first); blocks ascending, back = edge indices. */
static void loop(fb *b, uint32_t header, int32_t parent, uint32_t nblocks, const uint32_t *blocks, uint32_t nback,
                 const uint32_t *back)
{
    assert_true(b->f.nloops < 4);
    st_loop *l = &b->f.loops[b->f.nloops++];
    l->header = header;
    l->parent = parent;
    l->depth = parent < 0 ? 1 : b->f.loops[parent].depth + 1;
    l->nblocks = nblocks;
    l->blocks = malloc(nblocks * sizeof *l->blocks);
    l->nback = nback;
    l->back = malloc(nback * sizeof *l->back);
    assert_true(l->blocks && l->back);
    memcpy(l->blocks, blocks, nblocks * sizeof *blocks);
    memcpy(l->back, back, nback * sizeof *back);
}

static void compute(fb *b, st_dataflow *df)
{
    char err[128] = "";
    assert_int_equal(st_dataflow_compute(&b->f, df, err, sizeof err), 0);
}

/* ---- looking results up -------------------------------------------------- */

static const st_addr *addr_of(const st_dataflow *df, uint32_t insn, unsigned memop)
{
    for (size_t k = 0; k < df->naddrs; k++)
        if (df->addrs[k].insn == insn && df->addrs[k].memop == memop)
            return &df->addrs[k];
    fail_msg("no address for insn %u memop %u", insn, memop);
    return NULL;
}

/* Check term k of a: kind, register and coefficient. */
static void term_is(const st_addr *a, unsigned k, uint8_t kind, uint8_t reg, int64_t coef)
{
    assert_true(k < a->nterms);
    assert_int_equal(a->terms[k].kind, kind);
    assert_int_equal(a->terms[k].reg, reg);
    assert_int_equal(a->terms[k].coef, coef);
}

/* Check dependence k in full. */
static void dep_is(const st_dataflow *df, size_t k, uint32_t def, uint32_t use, uint8_t reg, int carried,
                   int32_t loop)
{
    assert_true(k < df->ndeps);
    const st_dep *d = &df->deps[k];
    assert_int_equal(d->def, def);
    assert_int_equal(d->use, use);
    assert_int_equal(d->reg, reg);
    assert_int_equal(d->carried, carried);
    assert_int_equal(d->loop, loop);
}

/* The dependence (def, use, reg), or NULL. */
static const st_dep *find_dep(const st_dataflow *df, uint32_t def, uint32_t use, uint8_t reg)
{
    for (size_t k = 0; k < df->ndeps; k++)
        if (df->deps[k].def == def && df->deps[k].use == use && df->deps[k].reg == reg)
            return &df->deps[k];
    return NULL;
}

static size_t count_deps(const st_dataflow *df, uint32_t use, uint8_t reg)
{
    size_t n = 0;
    for (size_t k = 0; k < df->ndeps; k++)
        n += df->deps[k].use == use && df->deps[k].reg == reg;
    return n;
}

/* ---- one loop over an array ---------------------------------------------- */

/* B0: xor ecx, ecx                      0
 * B1: mov rax, [rdi + rcx*4]            1   (L0 header and latch)
 *     add rcx, 1                        2
 *     cmp rcx, rdx                      3
 *     jl B1                             4
 * B2: ret                               5
 * e0 B0->B1, e1 B1->B1 (back), e2 B1->B2. */
static fb *array_loop(void)
{
    fb *b = fb_new(8, 3, 3);
    blk(b);
    ins(b, ST_OP_ZERO, RCX, NOREG, 0, 0, R(RCX) | R(FL));
    blk(b);
    ins(b, ST_OP_LOAD, RAX, NOREG, 0, R(RDI) | R(RCX), R(RAX));
    mem(b, RDI, RCX, 4, 0, ST_MEM_READ);
    ins(b, ST_OP_ADD_IMM, RCX, NOREG, 1, R(RCX), R(RCX) | R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RCX) | R(RDX), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, 0, 0);
    edge(b, 0, 1, ST_EDGE_FALL);
    uint32_t back = edge(b, 1, 1, ST_EDGE_TAKEN);
    edge(b, 1, 2, ST_EDGE_FALL);
    dom(b, (uint32_t[]){0, 0, 1}, (int32_t[]){-1, 0, -1});
    loop(b, 1, -1, 1, (uint32_t[]){1}, 1, &back);
    return b;
}

static void test_array_index_loop(void **state)
{
    (void)state;
    fb *b = array_loop();
    st_dataflow df;
    compute(b, &df);
    assert_int_equal(df.naddrs, 1);
    const st_addr *a = addr_of(&df, 1, 0);
    /* The load is the header's first insn: nothing to walk, so the formula
     * is the operand itself, rdi + 4*rcx, over values at B1's entry; terms
     * by register number: rcx (1), rdi (7). */
    assert_int_equal(a->constant, 0);
    assert_int_equal(a->nterms, 2);
    assert_int_equal(a->complete, 1);
    term_is(a, 0, ST_TERM_REG, RCX, 4);
    term_is(a, 1, ST_TERM_REG, RDI, 1);
    /* In L0 rcx is written only by `add rcx, 1` in B1, which is L0's own
     * block and its only latch: an IV of step 1.  rdi is not written: 0.
     * stride = 4*1 + 1*0 = 4 = the scale. */
    assert_int_equal(a->nloops, 1);
    assert_int_equal(a->loops[0], 0);
    assert_int_equal(a->stride[0], 4);
    st_dataflow_free(&df);
    fb_free(b);
}

/* ---- pointer increment ----------------------------------------------------- */

/* B0: lea rdx, [rdi + 800]      0   (lea: access 0, no st_addr)
 * B1: mov rax, [rdi]            1   (L0 header and latch)
 *     add rdi, 8 | lea rdi,[rdi+16]  2
 *     cmp rdi, rdx              3
 *     jne B1                    4
 * B2: ret                       5 */
static fb *pointer_loop(int use_lea)
{
    fb *b = fb_new(8, 3, 3);
    blk(b);
    ins(b, ST_OP_LEA, RDX, NOREG, 0, R(RDI), R(RDX));
    mem(b, RDI, NOREG, 0, 800, 0);
    blk(b);
    ins(b, ST_OP_LOAD, RAX, NOREG, 0, R(RDI), R(RAX));
    mem(b, RDI, NOREG, 0, 0, ST_MEM_READ);
    if (use_lea) {
        ins(b, ST_OP_LEA, RDI, NOREG, 0, R(RDI), R(RDI));
        mem(b, RDI, NOREG, 0, 16, 0);
    } else {
        ins(b, ST_OP_ADD_IMM, RDI, NOREG, 8, R(RDI), R(RDI) | R(FL));
    }
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RDI) | R(RDX), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, 0, 0);
    edge(b, 0, 1, ST_EDGE_FALL);
    uint32_t back = edge(b, 1, 1, ST_EDGE_TAKEN);
    edge(b, 1, 2, ST_EDGE_FALL);
    dom(b, (uint32_t[]){0, 0, 1}, (int32_t[]){-1, 0, -1});
    loop(b, 1, -1, 1, (uint32_t[]){1}, 1, &back);
    return b;
}

static void test_pointer_increment_loop(void **state)
{
    (void)state;
    for (int use_lea = 0; use_lea <= 1; use_lea++) {
        fb *b = pointer_loop(use_lea);
        st_dataflow df;
        compute(b, &df);
        /* Only the load has an address: the lea's operand has access 0. */
        assert_int_equal(df.naddrs, 1);
        const st_addr *a = addr_of(&df, 1, 0);
        /* [rdi] at the header's entry: 1*rdi + 0. */
        assert_int_equal(a->constant, 0);
        assert_int_equal(a->nterms, 1);
        term_is(a, 0, ST_TERM_REG, RDI, 1);
        /* rdi += 8 (or lea rdi, [rdi+16]) once per iteration in the
         * latch: stride 1*8 = 8 (1*16 = 16). */
        assert_int_equal(a->nloops, 1);
        assert_int_equal(a->stride[0], use_lea ? 16 : 8);
        st_dataflow_free(&df);
        fb_free(b);
    }
}

/* ---- a 2-deep nest: for (i < 50) for (j < 100) s += a[i*100 + j] --------- */

/* B0: mov rsi, rdi                   0
 *     xor edx, edx                   1
 *     xorpd xmm0, xmm0               2
 * B1: xor ecx, ecx                   3   L0 header (outer)
 * B2: addsd xmm0, [rsi + rcx*8]      4   L1 header and latch (inner)
 *     add rcx, 1                     5
 *     cmp rcx, 100                   6
 *     jl B2                          7
 * B3: add rsi, 800                   8   L0 latch
 *     add rdx, 1                     9
 *     cmp rdx, 50                   10
 *     jl B1                         11
 * B4: movsd [rdi], xmm0             12
 * e0 0->1, e1 1->2, e2 2->2 (back L1), e3 2->3, e4 3->1 (back L0), e5 3->4.
 * L0 = {1,2,3}, L1 = {2} with parent L0. */
static fb *nest(void)
{
    fb *b = fb_new(16, 5, 6);
    blk(b);
    ins(b, ST_OP_MOV_REG, RSI, RDI, 0, R(RDI), R(RSI));
    ins(b, ST_OP_ZERO, RDX, NOREG, 0, 0, R(RDX) | R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, 0, R(XMM0));
    blk(b);
    ins(b, ST_OP_ZERO, RCX, NOREG, 0, 0, R(RCX) | R(FL));
    blk(b);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(XMM0) | R(RSI) | R(RCX), R(XMM0));
    mem(b, RSI, RCX, 8, 0, ST_MEM_READ);
    ins(b, ST_OP_ADD_IMM, RCX, NOREG, 1, R(RCX), R(RCX) | R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RCX), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_ADD_IMM, RSI, NOREG, 800, R(RSI), R(RSI) | R(FL));
    ins(b, ST_OP_ADD_IMM, RDX, NOREG, 1, R(RDX), R(RDX) | R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RDX), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RDI) | R(XMM0), 0);
    mem(b, RDI, NOREG, 0, 0, ST_MEM_WRITE);
    edge(b, 0, 1, ST_EDGE_FALL);
    edge(b, 1, 2, ST_EDGE_FALL);
    uint32_t back_inner = edge(b, 2, 2, ST_EDGE_TAKEN);
    edge(b, 2, 3, ST_EDGE_FALL);
    uint32_t back_outer = edge(b, 3, 1, ST_EDGE_TAKEN);
    edge(b, 3, 4, ST_EDGE_FALL);
    dom(b, (uint32_t[]){0, 0, 1, 2, 3}, (int32_t[]){-1, 0, 1, 0, -1});
    loop(b, 1, -1, 3, (uint32_t[]){1, 2, 3}, 1, &back_outer);
    loop(b, 2, 0, 1, (uint32_t[]){2}, 1, &back_inner);
    return b;
}

static void test_nest_strides(void **state)
{
    (void)state;
    fb *b = nest();
    st_dataflow df;
    compute(b, &df);
    assert_int_equal(df.naddrs, 2);
    const st_addr *a = addr_of(&df, 4, 0);
    /* At L1's header entry: rsi + 8*rcx. */
    assert_int_equal(a->constant, 0);
    assert_int_equal(a->nterms, 2);
    term_is(a, 0, ST_TERM_REG, RCX, 8);
    term_is(a, 1, ST_TERM_REG, RSI, 1);
    assert_int_equal(a->nloops, 2);
    assert_int_equal(a->loops[0], 1);
    assert_int_equal(a->loops[1], 0);
    /* L1: rcx IV step 1 (add rcx,1 in B2, its only latch); rsi unwritten:
     * 8*1 + 1*0 = 8. */
    assert_int_equal(a->stride[0], 8);
    /* Lift to L0: L1's preheader is B1.  rsi at L1's entry = rsi at B1's
     * entry (B1 does not write it); rcx = 0 (xor ecx, ecx).  Formula at L0:
     * rsi.  In L0 rsi is written only by add rsi, 800 in B3 = L0's latch:
     * IV of step 800 -> stride 1*800 = 8*N with N = 100. */
    assert_int_equal(a->stride[1], 800);

    /* The store after the nest: walked back through B3, B2 (join: its
     * region {B2} writes xmm0, rcx, flags), B1 (join: region {B3,B2,B1}
     * writes rsi, rdx, rcx, xmm0, flags) and B0: rdi is never written, so
     * the formula is rdi at function entry; no loops. */
    const st_addr *s = addr_of(&df, 12, 0);
    assert_int_equal(s->nterms, 1);
    term_is(s, 0, ST_TERM_REG, RDI, 1);
    assert_int_equal(s->nloops, 0);
    st_dataflow_free(&df);
    fb_free(b);
}

static void test_nest_deps(void **state)
{
    (void)state;
    fb *b = nest();
    st_dataflow df;
    compute(b, &df);
    /* addsd (4) reads rsi: defs 0 (mov rsi, rdi) and 8 (add rsi, 800).  0
     * reaches B2 over 0->1->2 (no back edge): plain.  8 reaches only over
     * e4 (3->1): carried, and the innermost loop holding B3 and B2 is L0
     * (L1 = {2} lacks B3). */
    assert_int_equal(count_deps(&df, 4, RSI), 2);
    const st_dep *d = find_dep(&df, 0, 4, RSI);
    assert_non_null(d);
    assert_int_equal(d->carried, 0);
    assert_int_equal(d->loop, -1);
    d = find_dep(&df, 8, 4, RSI);
    assert_non_null(d);
    assert_int_equal(d->carried, 1);
    assert_int_equal(d->loop, 0);
    /* The accumulator: xmm0 from xorpd (2) plain; from addsd (4) itself
     * only around a back edge, innermost common loop of B2 and B2 = L1. */
    assert_int_equal(count_deps(&df, 4, XMM0), 2);
    d = find_dep(&df, 2, 4, XMM0);
    assert_non_null(d);
    assert_int_equal(d->carried, 0);
    d = find_dep(&df, 4, 4, XMM0);
    assert_non_null(d);
    assert_int_equal(d->carried, 1);
    assert_int_equal(d->loop, 1);
    /* rcx at the addsd: xor (3) plain, add (5) carried by L1; the def 5
     * reaching over 2->3->1 is killed by B1's xor, so L1 is the only way. */
    assert_int_equal(count_deps(&df, 4, RCX), 2);
    assert_int_equal(find_dep(&df, 3, 4, RCX)->carried, 0);
    assert_int_equal(find_dep(&df, 5, 4, RCX)->loop, 1);
    /* add rsi, 800 (8) reads its own previous value around L0: carried,
     * loop L0; and mov rsi, rdi (0) plainly. */
    assert_int_equal(count_deps(&df, 8, RSI), 2);
    assert_int_equal(find_dep(&df, 8, 8, RSI)->carried, 1);
    assert_int_equal(find_dep(&df, 8, 8, RSI)->loop, 0);
    assert_int_equal(find_dep(&df, 0, 8, RSI)->carried, 0);
    /* The store (12) reads xmm0: only addsd (4) reaches B4 (xorpd is
     * killed in B2 on every path), over 2->3->4 without a back edge: a
     * plain dependence on a loop's def. */
    assert_int_equal(count_deps(&df, 12, XMM0), 1);
    d = find_dep(&df, 4, 12, XMM0);
    assert_non_null(d);
    assert_int_equal(d->carried, 0);
    assert_int_equal(d->loop, -1);
    /* rdi has no def in the function: no dependence. */
    assert_int_equal(count_deps(&df, 12, RDI), 0);
    st_dataflow_free(&df);
    fb_free(b);
}

/* ---- triangular nest: for (i < 100) for (j = i; j < 100) a[i*100 + j] ----- */

/* B0: mov rsi, rdi          0
 *     xor edx, edx          1
 * B1: mov rcx, rdx          2   L0 header; j starts at i
 *     cmp rdx, 100          3
 *     jge B3                4   guard: skip an empty inner loop
 * B2: mov rax, [rsi+rcx*8]  5   L1 header and latch
 *     add rcx, 1            6
 *     cmp rcx, 100          7
 *     jl B2                 8
 * B3: add rsi, 800          9   L0 latch, join of B1 and B2
 *     add rdx, 1           10
 *     cmp rdx, 100         11
 *     jl B1                12
 * B4: ret                  13
 * e0 0->1, e1 1->2, e2 1->3, e3 2->2 (back L1), e4 2->3, e5 3->1 (back L0),
 * e6 3->4; idom = {0,0,1,1,3}. */
static void test_triangular_nest(void **state)
{
    (void)state;
    fb *b = fb_new(16, 5, 7);
    blk(b);
    ins(b, ST_OP_MOV_REG, RSI, RDI, 0, R(RDI), R(RSI));
    ins(b, ST_OP_ZERO, RDX, NOREG, 0, 0, R(RDX) | R(FL));
    blk(b);
    ins(b, ST_OP_MOV_REG, RCX, RDX, 0, R(RDX), R(RCX));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RDX), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_LOAD, RAX, NOREG, 0, R(RSI) | R(RCX), R(RAX));
    mem(b, RSI, RCX, 8, 0, ST_MEM_READ);
    ins(b, ST_OP_ADD_IMM, RCX, NOREG, 1, R(RCX), R(RCX) | R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RCX), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_ADD_IMM, RSI, NOREG, 800, R(RSI), R(RSI) | R(FL));
    ins(b, ST_OP_ADD_IMM, RDX, NOREG, 1, R(RDX), R(RDX) | R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RDX), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, 0, 0);
    edge(b, 0, 1, ST_EDGE_FALL);
    edge(b, 1, 2, ST_EDGE_FALL);
    edge(b, 1, 3, ST_EDGE_TAKEN);
    uint32_t back_inner = edge(b, 2, 2, ST_EDGE_TAKEN);
    edge(b, 2, 3, ST_EDGE_FALL);
    uint32_t back_outer = edge(b, 3, 1, ST_EDGE_TAKEN);
    edge(b, 3, 4, ST_EDGE_FALL);
    dom(b, (uint32_t[]){0, 0, 1, 1, 3}, (int32_t[]){-1, 0, 1, 0, -1});
    loop(b, 1, -1, 3, (uint32_t[]){1, 2, 3}, 1, &back_outer);
    loop(b, 2, 0, 1, (uint32_t[]){2}, 1, &back_inner);

    st_dataflow df;
    compute(b, &df);
    const st_addr *a = addr_of(&df, 5, 0);
    term_is(a, 0, ST_TERM_REG, RCX, 8);
    term_is(a, 1, ST_TERM_REG, RSI, 1);
    assert_int_equal(a->nloops, 2);
    /* L1: rcx IV of step 1 -> 8. */
    assert_int_equal(a->stride[0], 8);
    /* Lift: preheader B1 (the header's one predecessor outside L1).  rsi
     * -> rsi; rcx -> rdx (mov rcx, rdx).  At L0: rsi + 8*rdx.  In L0 rsi
     * is an IV of step 800 and rdx of step 1, both in the latch B3 (a
     * join, but it is the only latch): 800 + 8*1 = 808.  The inner trip
     * count (100 - i) varies; the address is still affine. */
    assert_int_equal(a->stride[1], 808);
    st_dataflow_free(&df);
    fb_free(b);
}

/* ---- IV incremented in one branch ----------------------------------------- */

/* B0: xor ecx, ecx          0
 * B1: mov rax, [rdi]        1   L0 header
 *     test rax, rax         2
 *     je B3                 3
 * B2: add rdi, 8            4   only on one side of the if
 * B3: mov rdx, [rdi + 16]   5   join and latch
 *     add rcx, 1            6
 *     cmp rcx, rsi          7
 *     jl B1                 8
 * B4: ret                   9
 * e0 0->1, e1 1->2, e2 1->3, e3 2->3, e4 3->1 (back), e5 3->4;
 * idom = {0,0,1,1,3}. */
static void test_conditional_increment(void **state)
{
    (void)state;
    fb *b = fb_new(12, 5, 6);
    blk(b);
    ins(b, ST_OP_ZERO, RCX, NOREG, 0, 0, R(RCX) | R(FL));
    blk(b);
    ins(b, ST_OP_LOAD, RAX, NOREG, 0, R(RDI), R(RAX));
    mem(b, RDI, NOREG, 0, 0, ST_MEM_READ);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RAX), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_ADD_IMM, RDI, NOREG, 8, R(RDI), R(RDI) | R(FL));
    blk(b);
    ins(b, ST_OP_LOAD, RDX, NOREG, 0, R(RDI), R(RDX));
    mem(b, RDI, NOREG, 0, 16, ST_MEM_READ);
    ins(b, ST_OP_ADD_IMM, RCX, NOREG, 1, R(RCX), R(RCX) | R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RCX) | R(RSI), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, 0, 0);
    edge(b, 0, 1, ST_EDGE_FALL);
    edge(b, 1, 2, ST_EDGE_FALL);
    edge(b, 1, 3, ST_EDGE_TAKEN);
    edge(b, 2, 3, ST_EDGE_FALL);
    uint32_t back = edge(b, 3, 1, ST_EDGE_TAKEN);
    edge(b, 3, 4, ST_EDGE_FALL);
    dom(b, (uint32_t[]){0, 0, 1, 1, 3}, (int32_t[]){-1, 0, 0, 0, -1});
    loop(b, 1, -1, 3, (uint32_t[]){1, 2, 3}, 1, &back);

    st_dataflow df;
    compute(b, &df);
    /* [rdi] in the header: formula rdi.  rdi's only write in L0 is in B2,
     * which does not dominate the latch B3 (idom(B3) = B1): not an IV,
     * so the stride is unknown. */
    const st_addr *a = addr_of(&df, 1, 0);
    assert_int_equal(a->nterms, 1);
    term_is(a, 0, ST_TERM_REG, RDI, 1);
    assert_int_equal(a->nloops, 1);
    assert_true(a->stride[0] == ST_STRIDE_UNKNOWN);
    /* [rdi + 16] in the join B3: the region between idom(B3) = B1 and B3
     * is {B2}, which writes rdi, so rdi becomes an opaque value produced
     * in B3, inside L0: 16 + opaque, stride unknown. */
    const st_addr *j = addr_of(&df, 5, 0);
    assert_int_equal(j->constant, 16);
    assert_int_equal(j->nterms, 1);
    term_is(j, 0, ST_TERM_OPAQUE, RDI, 1);
    assert_true(j->stride[0] == ST_STRIDE_UNKNOWN);
    st_dataflow_free(&df);
    fb_free(b);
}

/* ---- pointer chase --------------------------------------------------------- */

/* B0: test rdi, rdi        0
 *     je B2                1
 * B1: mov rdi, [rdi + 8]   2   L0 header and latch
 *     test rdi, rdi        3
 *     jne B1               4
 * B2: ret                  5
 * e0 0->1, e1 0->2, e2 1->1 (back), e3 1->2; idom = {0,0,0}. */
static void test_pointer_chase(void **state)
{
    (void)state;
    fb *b = fb_new(8, 3, 4);
    blk(b);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RDI), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_LOAD, RDI, NOREG, 0, R(RDI), R(RDI));
    mem(b, RDI, NOREG, 0, 8, ST_MEM_READ);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RDI), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, 0, 0);
    edge(b, 0, 1, ST_EDGE_FALL);
    edge(b, 0, 2, ST_EDGE_TAKEN);
    uint32_t back = edge(b, 1, 1, ST_EDGE_TAKEN);
    edge(b, 1, 2, ST_EDGE_FALL);
    dom(b, (uint32_t[]){0, 0, 0}, (int32_t[]){-1, 0, -1});
    loop(b, 1, -1, 1, (uint32_t[]){1}, 1, &back);

    st_dataflow df;
    compute(b, &df);
    /* rdi + 8 at the header's entry; rdi is written in L0 by a load, so
     * it is no IV: unknown stride. */
    const st_addr *a = addr_of(&df, 2, 0);
    assert_int_equal(a->constant, 8);
    assert_int_equal(a->nterms, 1);
    term_is(a, 0, ST_TERM_REG, RDI, 1);
    assert_int_equal(a->nloops, 1);
    assert_true(a->stride[0] == ST_STRIDE_UNKNOWN);
    /* Deps of the chase: the load (2) reads rdi from itself around the
     * back edge (carried, L0); there is no def before the loop. */
    assert_int_equal(count_deps(&df, 2, RDI), 1);
    assert_int_equal(find_dep(&df, 2, 2, RDI)->carried, 1);
    assert_int_equal(find_dep(&df, 2, 2, RDI)->loop, 0);
    st_dataflow_free(&df);
    fb_free(b);
}

/* ---- invariant address and RIP-relative globals ---------------------------- */

/* B0: xor ecx, ecx           0
 * B1: mov rbx, [rsi + 16]    1   L0 header and latch
 *     mov r8, [rip + g]      2   resolved: base none, disp 0x404040
 *     add rcx, 1             3
 *     cmp rcx, rdx           4
 *     jl B1                  5
 * B2: mov r9, [rip + h]      6   disp 0x404048, outside loops
 * e0 0->1, e1 1->1 (back), e2 1->2. */
static void test_invariant_and_global(void **state)
{
    (void)state;
    fb *b = fb_new(8, 3, 3);
    blk(b);
    ins(b, ST_OP_ZERO, RCX, NOREG, 0, 0, R(RCX) | R(FL));
    blk(b);
    ins(b, ST_OP_LOAD, RBX, NOREG, 0, R(RSI), R(RBX));
    mem(b, RSI, NOREG, 0, 16, ST_MEM_READ);
    ins(b, ST_OP_LOAD, R8, NOREG, 0, 0, R(R8));
    mem(b, NOREG, NOREG, 0, 0x404040, ST_MEM_READ);
    ins(b, ST_OP_ADD_IMM, RCX, NOREG, 1, R(RCX), R(RCX) | R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RCX) | R(RDX), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_LOAD, R9, NOREG, 0, 0, R(R9));
    mem(b, NOREG, NOREG, 0, 0x404048, ST_MEM_READ);
    edge(b, 0, 1, ST_EDGE_FALL);
    uint32_t back = edge(b, 1, 1, ST_EDGE_TAKEN);
    edge(b, 1, 2, ST_EDGE_FALL);
    dom(b, (uint32_t[]){0, 0, 1}, (int32_t[]){-1, 0, -1});
    loop(b, 1, -1, 1, (uint32_t[]){1}, 1, &back);

    st_dataflow df;
    compute(b, &df);
    assert_int_equal(df.naddrs, 3);
    /* rsi + 16; rsi is not written in L0: stride 0. */
    const st_addr *a = addr_of(&df, 1, 0);
    assert_int_equal(a->constant, 16);
    assert_int_equal(a->nterms, 1);
    term_is(a, 0, ST_TERM_REG, RSI, 1);
    assert_int_equal(a->stride[0], 0);
    /* The global: constant 0x404040, no terms, stride 0. */
    const st_addr *g = addr_of(&df, 2, 0);
    assert_int_equal(g->constant, 0x404040);
    assert_int_equal(g->nterms, 0);
    assert_int_equal(g->complete, 1);
    assert_int_equal(g->nloops, 1);
    assert_int_equal(g->stride[0], 0);
    /* Outside loops: constant, nloops 0. */
    const st_addr *h = addr_of(&df, 6, 0);
    assert_int_equal(h->constant, 0x404048);
    assert_int_equal(h->nterms, 0);
    assert_int_equal(h->nloops, 0);
    /* Ascending by insn. */
    assert_int_equal(df.addrs[0].insn, 1);
    assert_int_equal(df.addrs[1].insn, 2);
    assert_int_equal(df.addrs[2].insn, 6);
    st_dataflow_free(&df);
    fb_free(b);
}

/* ---- coefficients of SHL, MUL_IMM, LEA, ADD/SUB ---------------------------- */

/* One block:
 *   mov rax, rdi                 0
 *   shl rax, 3                   1
 *   imul rcx, rsi, 24            2
 *   lea rdx, [rax + rcx*2 + 8]   3
 *   add rdx, rbx                 4
 *   sub rdx, r8                  5
 *   add rdx, -5                  6
 *   mov r9, [rdx + rcx + 4]      7 */
static void test_coefficients(void **state)
{
    (void)state;
    fb *b = fb_new(8, 1, 0);
    blk(b);
    ins(b, ST_OP_MOV_REG, RAX, RDI, 0, R(RDI), R(RAX));
    ins(b, ST_OP_SHL_IMM, RAX, NOREG, 3, R(RAX), R(RAX) | R(FL));
    ins(b, ST_OP_MUL_IMM, RCX, RSI, 24, R(RSI), R(RCX) | R(FL));
    ins(b, ST_OP_LEA, RDX, NOREG, 0, R(RAX) | R(RCX), R(RDX));
    mem(b, RAX, RCX, 2, 8, 0);
    ins(b, ST_OP_ADD_REG, RDX, RBX, 0, R(RDX) | R(RBX), R(RDX) | R(FL));
    ins(b, ST_OP_SUB_REG, RDX, R8, 0, R(RDX) | R(R8), R(RDX) | R(FL));
    ins(b, ST_OP_ADD_IMM, RDX, NOREG, -5, R(RDX), R(RDX) | R(FL));
    ins(b, ST_OP_LOAD, R9, NOREG, 0, R(RDX) | R(RCX), R(R9));
    mem(b, RDX, RCX, 1, 4, ST_MEM_READ);
    dom(b, (uint32_t[]){0}, (int32_t[]){-1});

    st_dataflow df;
    compute(b, &df);
    assert_int_equal(df.naddrs, 1);
    const st_addr *a = addr_of(&df, 7, 0);
    /* Backwards from rdx + rcx + 4:
     *   6: rdx = rdx - 5           -> rdx + rcx - 1
     *   5: rdx = rdx - r8          -> rdx - r8 + rcx - 1
     *   4: rdx = rdx + rbx         -> rdx + rbx - r8 + rcx - 1
     *   3: rdx = rax + 2rcx + 8    -> rax + 3rcx + rbx - r8 + 7
     *   2: rcx = 24 rsi            -> rax + 72rsi + rbx - r8 + 7
     *   1: rax = rax << 3          -> 8rax + 72rsi + rbx - r8 + 7
     *   0: rax = rdi               -> 8rdi + 72rsi + rbx - r8 + 7
     * Four terms by register: rbx 1, rsi 72, rdi 8, r8 -1. */
    assert_int_equal(a->constant, 7);
    assert_int_equal(a->nterms, 4);
    assert_int_equal(a->complete, 1);
    term_is(a, 0, ST_TERM_REG, RBX, 1);
    term_is(a, 1, ST_TERM_REG, RSI, 72);
    term_is(a, 2, ST_TERM_REG, RDI, 8);
    term_is(a, 3, ST_TERM_REG, R8, -1);
    assert_int_equal(a->nloops, 0);
    st_dataflow_free(&df);
    fb_free(b);
}

/* One block:
 *   lea rax, [rcx + rdx*4]      0
 *   lea rbx, [rsi + rdi*8]      1
 *   imul r8, r9, -3             2
 *   add rax, r8                 3
 *   mov r10, [rax + rbx*2 + 16] 4 */
static void test_too_many_terms(void **state)
{
    (void)state;
    fb *b = fb_new(8, 1, 0);
    blk(b);
    ins(b, ST_OP_LEA, RAX, NOREG, 0, R(RCX) | R(RDX), R(RAX));
    mem(b, RCX, RDX, 4, 0, 0);
    ins(b, ST_OP_LEA, RBX, NOREG, 0, R(RSI) | R(RDI), R(RBX));
    mem(b, RSI, RDI, 8, 0, 0);
    ins(b, ST_OP_MUL_IMM, R8, R9, -3, R(R9), R(R8) | R(FL));
    ins(b, ST_OP_ADD_REG, RAX, R8, 0, R(RAX) | R(R8), R(RAX) | R(FL));
    ins(b, ST_OP_LOAD, R10, NOREG, 0, R(RAX) | R(RBX), R(R10));
    mem(b, RAX, RBX, 2, 16, ST_MEM_READ);
    dom(b, (uint32_t[]){0}, (int32_t[]){-1});

    st_dataflow df;
    compute(b, &df);
    const st_addr *a = addr_of(&df, 4, 0);
    /* rax + 2rbx + 16
     *   3: rax = rax + r8          -> rax + r8 + 2rbx + 16
     *   2: r8 = -3 r9              -> rax - 3r9 + 2rbx + 16
     *   1: rbx = rsi + 8rdi        -> rax - 3r9 + 2rsi + 16rdi + 16
     *   0: rax = rcx + 4rdx        -> rcx + 4rdx - 3r9 + 2rsi + 16rdi + 16
     * Five terms: the smallest |coef| (rcx, 1) goes; complete = 0. */
    assert_int_equal(a->constant, 16);
    assert_int_equal(a->nterms, 4);
    assert_int_equal(a->complete, 0);
    term_is(a, 0, ST_TERM_REG, RDX, 4);
    term_is(a, 1, ST_TERM_REG, RSI, 2);
    term_is(a, 2, ST_TERM_REG, RDI, 16);
    term_is(a, 3, ST_TERM_REG, R9, -3);
    st_dataflow_free(&df);
    fb_free(b);
}

/* ---- if/else join ----------------------------------------------------------- */

/* B0: mov rsi, rdi            0
 *     cmp rdx, 0              1
 *     je B2                   2
 * B1: mov eax, 1              3
 *     jmp B3                  4
 * B2: mov eax, 2              5
 * B3: mov rcx, [rsi + 8]      6   join, idom B0
 *     mov rdx, [rsi + rax*4]  7
 * e0 0->1, e1 0->2, e2 1->3, e3 2->3. */
static fb *if_else(void)
{
    fb *b = fb_new(8, 4, 4);
    blk(b);
    ins(b, ST_OP_MOV_REG, RSI, RDI, 0, R(RDI), R(RSI));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RDX), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_MOV_IMM, RAX, NOREG, 1, 0, R(RAX));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, 0, 0);
    b->f.insns[4].flow = ST_FLOW_JUMP;
    blk(b);
    ins(b, ST_OP_MOV_IMM, RAX, NOREG, 2, 0, R(RAX));
    blk(b);
    ins(b, ST_OP_LOAD, RCX, NOREG, 0, R(RSI), R(RCX));
    mem(b, RSI, NOREG, 0, 8, ST_MEM_READ);
    ins(b, ST_OP_LOAD, RDX, NOREG, 0, R(RSI) | R(RAX), R(RDX));
    mem(b, RSI, RAX, 4, 0, ST_MEM_READ);
    edge(b, 0, 1, ST_EDGE_FALL);
    edge(b, 0, 2, ST_EDGE_TAKEN);
    edge(b, 1, 3, ST_EDGE_JUMP);
    edge(b, 2, 3, ST_EDGE_FALL);
    dom(b, (uint32_t[]){0, 0, 0, 0}, (int32_t[]){-1, -1, -1, -1});
    return b;
}

static void test_join_continues_at_idom(void **state)
{
    (void)state;
    fb *b = if_else();
    st_dataflow df;
    compute(b, &df);
    /* [rsi + 8] in B3: a join; the region between idom(B3) = B0 and B3 is
     * {B1, B2}, which writes only rax.  rsi survives, the walk goes on in
     * B0, where mov rsi, rdi turns it into rdi: rdi + 8. */
    const st_addr *a = addr_of(&df, 6, 0);
    assert_int_equal(a->constant, 8);
    assert_int_equal(a->nterms, 1);
    term_is(a, 0, ST_TERM_REG, RDI, 1);
    assert_int_equal(a->nloops, 0);
    /* [rsi + rax*4]: rax is written in the region, so its value at B3 is
     * opaque (coefficient 4 kept); rsi -> rdi as before.  Register terms
     * come before opaque ones. */
    const st_addr *x = addr_of(&df, 7, 0);
    assert_int_equal(x->constant, 0);
    assert_int_equal(x->nterms, 2);
    term_is(x, 0, ST_TERM_REG, RDI, 1);
    term_is(x, 1, ST_TERM_OPAQUE, RAX, 4);
    st_dataflow_free(&df);
    fb_free(b);
}

static void test_reaching_def_across_if_else(void **state)
{
    (void)state;
    fb *b = if_else();
    st_dataflow df;
    compute(b, &df);
    /* Every dependence, in block order, by use, register, def:
     *   2 (je) reads flags <- 1 (cmp), same block
     *   6 reads rsi <- 0, reaching B3 over both arms
     *   7 reads rax <- 3 and <- 5, one per arm; rsi <- 0
     * rdi (0) and rdx (1) have no def.  Nothing is carried (no loops). */
    assert_int_equal(df.ndeps, 5);
    dep_is(&df, 0, 1, 2, FL, 0, -1);
    dep_is(&df, 1, 0, 6, RSI, 0, -1);
    dep_is(&df, 2, 3, 7, RAX, 0, -1);
    dep_is(&df, 3, 5, 7, RAX, 0, -1);
    dep_is(&df, 4, 0, 7, RSI, 0, -1);
    st_dataflow_free(&df);
    fb_free(b);
}

/* ---- dependences within a block ------------------------------------------- */

/*   mov rax, 1       0
 *   add rax, rbx     1
 *   mov rcx, rax     2
 *   add rax, rcx     3 */
static void test_deps_within_block(void **state)
{
    (void)state;
    fb *b = fb_new(4, 1, 0);
    blk(b);
    ins(b, ST_OP_MOV_IMM, RAX, NOREG, 1, 0, R(RAX));
    ins(b, ST_OP_ADD_REG, RAX, RBX, 0, R(RAX) | R(RBX), R(RAX) | R(FL));
    ins(b, ST_OP_MOV_REG, RCX, RAX, 0, R(RAX), R(RCX));
    ins(b, ST_OP_ADD_REG, RAX, RCX, 0, R(RAX) | R(RCX), R(RAX) | R(FL));
    dom(b, (uint32_t[]){0}, (int32_t[]){-1});
    st_dataflow df;
    compute(b, &df);
    /* 1 reads rax <- 0 (rbx has no def); 2 reads rax <- 1 (the latest, not
     * 0); 3 reads rax <- 1 and rcx <- 2.  Four, none carried. */
    assert_int_equal(df.ndeps, 4);
    dep_is(&df, 0, 0, 1, RAX, 0, -1);
    dep_is(&df, 1, 1, 2, RAX, 0, -1);
    dep_is(&df, 2, 1, 3, RAX, 0, -1);
    dep_is(&df, 3, 2, 3, RCX, 0, -1);
    assert_int_equal(df.naddrs, 0);
    st_dataflow_free(&df);
    fb_free(b);
}

/*   mov rcx, 5       0
 *   xor ecx, ecx     1   decoders list rcx as read; the zero idiom is not
 *   add rcx, 1       2   a dependence on the old rcx */
static void test_zero_idiom(void **state)
{
    (void)state;
    fb *b = fb_new(3, 1, 0);
    blk(b);
    ins(b, ST_OP_MOV_IMM, RCX, NOREG, 5, 0, R(RCX));
    ins(b, ST_OP_ZERO, RCX, NOREG, 0, R(RCX), R(RCX) | R(FL));
    ins(b, ST_OP_ADD_IMM, RCX, NOREG, 1, R(RCX), R(RCX) | R(FL));
    dom(b, (uint32_t[]){0}, (int32_t[]){-1});
    st_dataflow df;
    compute(b, &df);
    /* Only 2 reads rcx <- 1. */
    assert_int_equal(df.ndeps, 1);
    dep_is(&df, 0, 1, 2, RCX, 0, -1);
    st_dataflow_free(&df);
    fb_free(b);
}

/* ---- accumulator: carried versus plain ------------------------------------- */

/* B0: xorpd xmm0, xmm0             0
 *     xor ecx, ecx                 1
 * B1: addsd xmm0, [rdi + rcx*8]    2   L0 header and latch
 *     add rcx, 1                   3
 *     cmp rcx, rdx                 4
 *     jl B1                        5
 * B2: movsd [rsi], xmm0            6
 * e0 0->1, e1 1->1 (back), e2 1->2. */
static void test_accumulator_carried(void **state)
{
    (void)state;
    fb *b = fb_new(8, 3, 3);
    blk(b);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, 0, R(XMM0));
    ins(b, ST_OP_ZERO, RCX, NOREG, 0, 0, R(RCX) | R(FL));
    blk(b);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(XMM0) | R(RDI) | R(RCX), R(XMM0));
    mem(b, RDI, RCX, 8, 0, ST_MEM_READ);
    ins(b, ST_OP_ADD_IMM, RCX, NOREG, 1, R(RCX), R(RCX) | R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RCX) | R(RDX), R(FL));
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
    cjump(b);
    blk(b);
    ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(RSI) | R(XMM0), 0);
    mem(b, RSI, NOREG, 0, 0, ST_MEM_WRITE);
    edge(b, 0, 1, ST_EDGE_FALL);
    uint32_t back = edge(b, 1, 1, ST_EDGE_TAKEN);
    edge(b, 1, 2, ST_EDGE_FALL);
    dom(b, (uint32_t[]){0, 0, 1}, (int32_t[]){-1, 0, -1});
    loop(b, 1, -1, 1, (uint32_t[]){1}, 1, &back);

    st_dataflow df;
    compute(b, &df);
    /* Acyclic IN(B1) = OUT(B0) = {0 xmm0, 1 rcx, 1 flags}; full IN(B1)
     * adds OUT(B1) = {2 xmm0, 3 rcx, 4 flags}.  So:
     *   2 reads rcx  <- 1 plain, <- 3 carried (L0)
     *   2 reads xmm0 <- 0 plain, <- 2 carried (L0)   (rdi: no def)
     *   3 reads rcx  <- 1 plain, <- 3 carried (no rcx def before it in B1)
     *   4 reads rcx  <- 3 same block                 (rdx: no def)
     *   5 reads flags <- 4 same block
     *   6 reads xmm0 <- 2, over e2 (no back edge): plain   (rsi: no def)
     * Registers ascending: rcx (1) < rdi (7) < xmm0 (16) < flags (48). */
    assert_int_equal(df.ndeps, 9);
    dep_is(&df, 0, 1, 2, RCX, 0, -1);
    dep_is(&df, 1, 3, 2, RCX, 1, 0);
    dep_is(&df, 2, 0, 2, XMM0, 0, -1);
    dep_is(&df, 3, 2, 2, XMM0, 1, 0);
    dep_is(&df, 4, 1, 3, RCX, 0, -1);
    dep_is(&df, 5, 3, 3, RCX, 1, 0);
    dep_is(&df, 6, 3, 4, RCX, 0, -1);
    dep_is(&df, 7, 4, 5, FL, 0, -1);
    dep_is(&df, 8, 2, 6, XMM0, 0, -1);
    st_dataflow_free(&df);
    fb_free(b);
}

/* ---- caps ---------------------------------------------------------------------- */

/* A chain of n blocks B0 -> B1 -> ... ; block k holds
 *   mov rbx, rax      2k     (reads the rax of block k-1)
 *   mov rax, k        2k+1 */
static fb *chain(uint32_t n)
{
    fb *b = fb_new(2 * n, n, n);
    for (uint32_t k = 0; k < n; k++) {
        blk(b);
        ins(b, ST_OP_MOV_REG, RBX, RAX, 0, R(RAX), R(RBX));
        ins(b, ST_OP_MOV_IMM, RAX, NOREG, k, 0, R(RAX));
        b->f.blocks[k].idom = k ? k - 1 : 0;
        if (k)
            edge(b, k - 1, k, ST_EDGE_FALL);
    }
    return b;
}

static void test_reaching_defs_budget(void **state)
{
    (void)state;
    /* dataflow.c solves reaching definitions only while defs * blocks <=
     * 2^26 bits.  With 2 defs per block, defs * blocks = 2n^2.
     * n = 5000: 5.0e7 <= 6.71e7, so every block but B0 gets its dep from
     * the previous block: 4999 deps. */
    fb *b = chain(5000);
    st_dataflow df;
    compute(b, &df);
    assert_int_equal(df.ndeps, 4999);
    dep_is(&df, 0, 1, 2, RAX, 0, -1);
    dep_is(&df, 4998, 9997, 9998, RAX, 0, -1);
    st_dataflow_free(&df);
    fb_free(b);
    /* n = 6000: 7.2e7 > 6.71e7: within-block deps only, and here every
     * use's def is in the previous block: none. */
    b = chain(6000);
    compute(b, &df);
    assert_int_equal(df.ndeps, 0);
    st_dataflow_free(&df);
    fb_free(b);
}

/* One block: 5000 times `add rdi, 1`, then mov rax, [rdi]. */
static void test_walk_cap(void **state)
{
    (void)state;
    fb *b = fb_new(5001, 1, 0);
    blk(b);
    for (int k = 0; k < 5000; k++)
        ins(b, ST_OP_ADD_IMM, RDI, NOREG, 1, R(RDI), R(RDI) | R(FL));
    ins(b, ST_OP_LOAD, RAX, NOREG, 0, R(RDI), R(RAX));
    mem(b, RDI, NOREG, 0, 0, ST_MEM_READ);
    dom(b, (uint32_t[]){0}, (int32_t[]){-1});
    st_dataflow df;
    compute(b, &df);
    /* The walk may visit 4096 instructions: the last 4096 adds give the
     * constant 4096, then rdi's older value becomes opaque. */
    const st_addr *a = addr_of(&df, 5000, 0);
    assert_int_equal(a->constant, 4096);
    assert_int_equal(a->nterms, 1);
    term_is(a, 0, ST_TERM_OPAQUE, RDI, 1);
    st_dataflow_free(&df);
    fb_free(b);
}

/* ---- formulas against concrete execution ---------------------------------------- */

/* xorshift64: a fixed pseudo-random sequence. */
static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(uint64_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state % n;
}

static const uint8_t fuzz_regs[] = {RAX, RCX, RDX, RSI, RDI};

/* Append a random instruction of one of the ops the walk models, with
 * its destination drawn from the first ndst registers of fuzz_regs. */
static void random_insn(fb *b, unsigned ndst)
{
    uint8_t d = fuzz_regs[rnd(ndst)], s = fuzz_regs[rnd(5)], x = fuzz_regs[rnd(5)];
    int64_t imm = (int64_t)rnd(2001) - 1000;
    switch (rnd(9)) {
    case 0: ins(b, ST_OP_MOV_REG, d, s, 0, R(s), R(d)); break;
    case 1: ins(b, ST_OP_MOV_IMM, d, NOREG, imm, 0, R(d)); break;
    case 2: ins(b, ST_OP_ZERO, d, NOREG, 0, R(d), R(d) | R(FL)); break;
    case 3: ins(b, ST_OP_ADD_IMM, d, NOREG, imm, R(d), R(d) | R(FL)); break;
    case 4: ins(b, ST_OP_ADD_REG, d, s, 0, R(d) | R(s), R(d) | R(FL)); break;
    case 5: ins(b, ST_OP_SUB_REG, d, s, 0, R(d) | R(s), R(d) | R(FL)); break;
    case 6: ins(b, ST_OP_SHL_IMM, d, NOREG, (int64_t)rnd(6), R(d), R(d) | R(FL)); break;
    case 7: ins(b, ST_OP_MUL_IMM, d, s, imm, R(s), R(d) | R(FL)); break;
    default:
        ins(b, ST_OP_LEA, d, NOREG, 0, R(s) | R(x), R(d));
        mem(b, s, x, (uint8_t)(1u << rnd(4)), imm, 0);
    }
}

/* Execute instructions [from, to) of b on regs: an interpreter written
 * from the op definitions in structure.h, independent of dataflow.c. */
static void run(const fb *b, uint32_t from, uint32_t to, uint64_t *regs)
{
    for (uint32_t i = from; i < to; i++) {
        const st_insn *in = &b->f.insns[i];
        uint64_t *d = &regs[in->dst], imm = (uint64_t)in->imm;
        const st_memop *m = &in->mem[0];
        switch (in->op) {
        case ST_OP_MOV_REG: *d = regs[in->src]; break;
        case ST_OP_MOV_IMM: *d = imm; break;
        case ST_OP_ZERO: *d = 0; break;
        case ST_OP_ADD_IMM: *d += imm; break;
        case ST_OP_ADD_REG: *d += regs[in->src]; break;
        case ST_OP_SUB_REG: *d -= regs[in->src]; break;
        case ST_OP_SHL_IMM: *d <<= imm; break;
        case ST_OP_MUL_IMM: *d = regs[in->src] * imm; break;
        case ST_OP_LEA: *d = regs[m->base] + regs[m->index] * m->scale + (uint64_t)m->disp; break;
        default: break;
        }
    }
}

/* B0: random ops on all five registers; je B2
 * B1: random ops writing only rax, rcx; jmp B3
 * B2: random ops writing only rax, rcx
 * B3: random ops, then mov r8, [base + index*scale + disp]
 * For either arm and random inputs, a complete formula without opaque
 * terms must give the address the interpreter computes. */
static void test_formulas_match_execution(void **state)
{
    (void)state;
    unsigned checked = 0;
    for (int trial = 0; trial < 400; trial++) {
        fb *b = fb_new(40, 4, 4);
        blk(b);
        for (uint64_t k = rnd(8); k-- > 0;)
            random_insn(b, 5);
        ins(b, ST_OP_OTHER, NOREG, NOREG, 0, R(FL), 0);
        cjump(b);
        for (int arm = 0; arm < 2; arm++) {
            blk(b);
            for (uint64_t k = rnd(4); k-- > 0;)
                random_insn(b, 2);
        }
        blk(b);
        for (uint64_t k = rnd(8); k-- > 0;)
            random_insn(b, 5);
        uint8_t base = fuzz_regs[rnd(5)], index = fuzz_regs[rnd(5)], scale = (uint8_t)(1u << rnd(4));
        int64_t disp = (int64_t)rnd(4001) - 2000;
        uint32_t use = ins(b, ST_OP_LOAD, R8, NOREG, 0, R(base) | R(index), R(R8));
        mem(b, base, index, scale, disp, ST_MEM_READ);
        edge(b, 0, 1, ST_EDGE_FALL);
        edge(b, 0, 2, ST_EDGE_TAKEN);
        edge(b, 1, 3, ST_EDGE_JUMP);
        edge(b, 2, 3, ST_EDGE_FALL);
        dom(b, (uint32_t[]){0, 0, 0, 0}, (int32_t[]){-1, -1, -1, -1});

        st_dataflow df;
        compute(b, &df);
        const st_addr *a = addr_of(&df, use, 0);
        int usable = a->complete;
        for (unsigned k = 0; k < a->nterms; k++)
            usable &= a->terms[k].kind == ST_TERM_REG;
        for (int arm = 1; usable && arm <= 2; arm++) {
            uint64_t init[ST_REG_COUNT] = {0}, regs[ST_REG_COUNT];
            for (unsigned k = 0; k < 5; k++)
                init[fuzz_regs[k]] = rnd(UINT64_MAX);
            memcpy(regs, init, sizeof regs);
            const st_block *bl = b->f.blocks;
            run(b, bl[0].first, bl[0].first + bl[0].n, regs);
            run(b, bl[arm].first, bl[arm].first + bl[arm].n, regs);
            run(b, bl[3].first, use, regs);
            uint64_t want = regs[base] + regs[index] * scale + (uint64_t)disp;
            uint64_t got = (uint64_t)a->constant;
            for (unsigned k = 0; k < a->nterms; k++)
                got += (uint64_t)a->terms[k].coef * init[a->terms[k].reg];
            assert_true(got == want);
            checked++;
        }
        st_dataflow_free(&df);
        fb_free(b);
    }
    /* Enough cases got through the filter to mean something. */
    assert_true(checked > 200);
}

/* ---- edge cases ----------------------------------------------------------------- */

static void test_empty_and_free(void **state)
{
    (void)state;
    st_function f;
    memset(&f, 0, sizeof f);
    f.name = "empty";
    st_dataflow df;
    char err[64];
    assert_int_equal(st_dataflow_compute(&f, &df, err, sizeof err), 0);
    assert_int_equal(df.ndeps, 0);
    assert_int_equal(df.naddrs, 0);
    st_dataflow_free(&df);
    assert_null(df.deps);
    st_dataflow_free(NULL);
    assert_int_equal(st_dataflow_compute(NULL, &df, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_index_loop),
        cmocka_unit_test(test_pointer_increment_loop),
        cmocka_unit_test(test_nest_strides),
        cmocka_unit_test(test_nest_deps),
        cmocka_unit_test(test_triangular_nest),
        cmocka_unit_test(test_conditional_increment),
        cmocka_unit_test(test_pointer_chase),
        cmocka_unit_test(test_invariant_and_global),
        cmocka_unit_test(test_coefficients),
        cmocka_unit_test(test_too_many_terms),
        cmocka_unit_test(test_join_continues_at_idom),
        cmocka_unit_test(test_reaching_def_across_if_else),
        cmocka_unit_test(test_deps_within_block),
        cmocka_unit_test(test_zero_idiom),
        cmocka_unit_test(test_accumulator_carried),
        cmocka_unit_test(test_reaching_defs_budget),
        cmocka_unit_test(test_walk_cap),
        cmocka_unit_test(test_formulas_match_execution),
        cmocka_unit_test(test_empty_and_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
