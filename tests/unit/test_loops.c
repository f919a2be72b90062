/* test_loops.c — unit tests of the control-flow stages of augur structure:
 * basic blocks and edges from decoded instructions (cfg.c), dominators,
 * natural loops and their nesting (loops.c).
 *
 * Functions are written as instruction lists with only the fields cfg.c
 * reads (address, flow, target), so every block, edge, dominator and loop
 * below is derived by hand from the listing in the comment above it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "structure/structure.h"

/* One instruction of a listing: "n" falls through, "j T" jumps, "c T"
 * branches conditionally, "r" returns.  Instruction k sits at address
 * 0x1000 + 4k, so targets are given as instruction indices. */
typedef struct line {
    char kind;
    int target;
} line;

static st_function make(const line *code, size_t n)
{
    st_function f = {0};
    f.name = strdup("f");
    f.ninsns = (uint32_t)n;
    f.insns = calloc(n, sizeof *f.insns);
    f.start = 0x1000;
    f.size = 4 * n;
    for (size_t k = 0; k < n; k++) {
        st_insn *in = &f.insns[k];
        in->addr = 0x1000 + 4 * k;
        in->len = 4;
        in->flow = code[k].kind == 'j' ? ST_FLOW_JUMP : code[k].kind == 'c' ? ST_FLOW_CJUMP
                   : code[k].kind == 'r' ? ST_FLOW_RET : ST_FLOW_NONE;
        if (code[k].kind == 'j' || code[k].kind == 'c')
            in->target = 0x1000 + 4 * (uint64_t)code[k].target;
    }
    char err[256];
    assert_int_equal(st_build_cfg(&f, NULL, NULL, 0, err, sizeof err), 0);
    assert_int_equal(st_find_loops(&f, err, sizeof err), 0);
    return f;
}

/* The block whose first instruction is instruction k. */
static uint32_t block_at(const st_function *f, uint32_t k)
{
    for (uint32_t b = 0; b < f->nblocks; b++)
        if (f->blocks[b].first == k)
            return b;
    fail_msg("no block starts at instruction %u", k);
    return UINT32_MAX;
}

/*  0 n            B0 = {0,1}   B0 -> B1 (fall), B0 -> B2 (taken)
 *  1 c 4          B1 = {2,3}   B1 -> B3 (jump)
 *  2 n            B2 = {4}     B2 -> B3 (fall)
 *  3 j 5          B3 = {5}
 *  4 n
 *  5 r
 * A diamond: no loop; B1, B2 and the join B3 all have B0 as idom. */
static void test_diamond(void **state)
{
    (void)state;
    static const line code[] = {{'n', 0}, {'c', 4}, {'n', 0}, {'j', 5}, {'n', 0}, {'r', 0}};
    st_function f = make(code, 6);
    assert_int_equal(f.nblocks, 4);
    assert_int_equal(f.nedges, 4);
    assert_int_equal(f.nloops, 0);
    assert_int_equal(f.blocks[block_at(&f, 2)].idom, 0);
    assert_int_equal(f.blocks[block_at(&f, 4)].idom, 0);
    assert_int_equal(f.blocks[block_at(&f, 5)].idom, 0);
    st_function_free(&f);
}

/*  0 n                      B0 = {0}
 *  1 n     outer header     B1 = {1}
 *  2 n     inner header     B2 = {2,3}
 *  3 c 2   inner back edge
 *  4 c 1   outer back edge  B3 = {4}
 *  5 r                      B4 = {5}
 * Two nested loops: outer {B1,B2,B3} (depth 1), inner {B2} (depth 2). */
static void test_nest(void **state)
{
    (void)state;
    static const line code[] = {{'n', 0}, {'n', 0}, {'n', 0}, {'c', 2}, {'c', 1}, {'r', 0}};
    st_function f = make(code, 6);
    assert_int_equal(f.nblocks, 5);
    assert_int_equal(f.nloops, 2);
    const st_loop *outer = &f.loops[0], *inner = &f.loops[1]; /* parents first */
    assert_int_equal(outer->header, block_at(&f, 1));
    assert_int_equal(outer->nblocks, 3);
    assert_int_equal(outer->parent, -1);
    assert_int_equal(outer->depth, 1);
    assert_int_equal(inner->header, block_at(&f, 2));
    assert_int_equal(inner->nblocks, 1);
    assert_int_equal(inner->parent, 0);
    assert_int_equal(inner->depth, 2);
    assert_int_equal(inner->nback, 1);
    assert_int_equal(f.edges[inner->back[0]].from, block_at(&f, 2)); /* a self loop */
    assert_int_equal(f.blocks[block_at(&f, 4)].loop, 0);
    assert_int_equal(f.blocks[block_at(&f, 2)].loop, 1);
    assert_int_equal(f.blocks[block_at(&f, 5)].loop, -1);
    st_function_free(&f);
}

/*  0 n            B0 = {0,1}   B0 -> B1 (fall), B0 -> B2 (taken)
 *  1 c 4          B1 = {2,3}   B1 -> B2 (fall), B1 -> B4 (taken)
 *  2 n            B2 = {4,5}   B2 -> B3 (fall), B2 -> B1 (taken)
 *  3 c 7          B3 = {6}     B3 -> B1 (jump)
 *  4 n            B4 = {7}
 *  5 c 2
 *  6 j 2
 *  7 r
 * The cycle B1 -> B2 -> B1 is entered from B0 at both B1 and B2, so
 * idom(B1) = idom(B2) = B0 and neither dominates the other: irreducible,
 * no natural loop. */
static void test_irreducible(void **state)
{
    (void)state;
    static const line code[] = {{'n', 0}, {'c', 4}, {'n', 0}, {'c', 7}, {'n', 0}, {'c', 2}, {'j', 2}, {'r', 0}};
    st_function f = make(code, 8);
    assert_int_equal(f.nblocks, 5);
    assert_int_equal(f.nloops, 0);
    assert_true(f.nirreducible >= 1);
    st_function_free(&f);
}

/*  0 n            B0 = {0}
 *  1 n  header    B1 = {1,2}
 *  2 c 5          B2 = {3,4}   then-arm, back edge jump
 *  3 n            B3 = {5,6}   else-arm, back edge branch
 *  4 j 1
 *  5 n
 *  6 c 1
 *  7 r            B4 = {7}
 * One loop with two back edges {B2 -> B1, B3 -> B1} and 3 blocks. */
static void test_two_back_edges(void **state)
{
    (void)state;
    static const line code[] = {{'n', 0}, {'n', 0}, {'c', 5}, {'n', 0}, {'j', 1}, {'n', 0}, {'c', 1}, {'r', 0}};
    st_function f = make(code, 8);
    assert_int_equal(f.nblocks, 5);
    assert_int_equal(f.nloops, 1);
    assert_int_equal(f.loops[0].header, block_at(&f, 1));
    assert_int_equal(f.loops[0].nback, 2);
    assert_int_equal(f.loops[0].nblocks, 3);
    assert_int_equal(f.nirreducible, 0);
    st_function_free(&f);
}

/* An unreachable block (after a return, jumped to by nobody) has no
 * dominator and belongs to no loop. */
static void test_unreachable(void **state)
{
    (void)state;
    static const line code[] = {{'n', 0}, {'r', 0}, {'n', 0}, {'r', 0}};
    st_function f = make(code, 4);
    assert_int_equal(f.nblocks, 2);
    assert_int_equal(f.nedges, 0);
    assert_int_equal(f.blocks[1].idom, UINT32_MAX);
    assert_int_equal(f.blocks[1].loop, -1);
    st_function_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diamond),         cmocka_unit_test(test_nest),
        cmocka_unit_test(test_irreducible),     cmocka_unit_test(test_two_back_edges),
        cmocka_unit_test(test_unreachable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
