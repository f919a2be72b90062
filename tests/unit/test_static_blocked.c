/* test_static_blocked.c — unit tests of the iteration spaces the join of
 * `augur static` gives a vector or unrolled body (src/static/loop.c,
 * sa_loop_blocked): a loop run in blocks of k runs floor(n/k) blocks per
 * entry of n iterations, for steps up and down, relations < <= > >= !=,
 * and a triangular inner loop, each against a brute-force count; and the
 * remainder, n - k floor(n/k). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "static/model.h"
#include "static/walk.h"

typedef struct fixture {
    sa_program p;
    sa_counts cc;
    int n, i, j;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->p.arena = sa_arena_new();
    f->p.syms.arena = f->p.arena;
    f->cc = (sa_counts){.arena = f->p.arena, .syms = &f->p.syms};
    f->n = sa_sym_get(&f->p.syms, "n", SYM_PARAM, "k");
    f->i = sa_sym_new(&f->p.syms, "i", SYM_ITER, "k");
    f->j = sa_sym_new(&f->p.syms, "j", SYM_ITER, "k");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sa_counts_free(&f->cc);
    sa_arena_free(f->p.arena);
    free(f);
    return 0;
}

static sa_pwa lin(fixture *f, int64_t k, int s, int64_t c)
{
    sa_arena *a = f->p.arena;
    sa_lin x = s >= 0 ? sa_lin_comb(a, k, sa_lin_sym(a, s), 0, sa_lin_const(0)) : sa_lin_const(0);
    x.c += c;
    return sa_pwa_lin(a, x);
}

/* A loop over space s entered in frame entry. */
static sa_loop loop_of(fixture *f, sa_frame entry, sa_iterspace s)
{
    return (sa_loop){.entry = entry, .space = s, .body = sa_iterate(&f->p, entry, &s), .parent = -1};
}

/* The points of frame fr at n. */
static double count_at(fixture *f, sa_frame fr, int n)
{
    sa_formula x = {0};
    char err[256];
    for (size_t k = 0; k < fr.n; k++) {
        sa_formula y;
        assert_int_equal(sa_formula_of_dom(&f->cc, fr.v[k].d, &y, err, sizeof err), 0);
        x = sa_formula_axpy(f->p.arena, x, fr.v[k].num, fr.v[k].den, NULL, 0, y);
    }
    double vals[8] = {0}, v;
    char known[8] = {0};
    vals[f->n] = n;
    known[f->n] = 1;
    const char *missing;
    assert_int_equal(sa_formula_eval(&f->p.syms, x, vals, known, &v, &missing), 0);
    return v;
}

/* Iterations of `for (i = lo; i REL hi; i += step)` by running it. */
static int brute(int lo, const char *rel, int hi, int step)
{
    int c = 0;
    for (int i = lo;; i += step) {
        int go = rel[0] == '<' ? (rel[1] ? i <= hi : i < hi) : rel[0] == '>' ? (rel[1] ? i >= hi : i > hi) : i != hi;
        if (!go || c > 1000)
            break;
        c++;
    }
    return c;
}

/* for (i = 1; i REL n - 1; i += step) in blocks of k: floor(iterations / k) blocks. */
static void check_blocks(fixture *f, const char *rel, int lo, int hi_off, int step)
{
    sa_iterspace s = {f->i, lin(f, 0, -1, lo), lin(f, 1, f->n, hi_off), rel, step};
    sa_loop l = loop_of(f, sa_frame_unit(f->p.arena), s);
    for (int k = 2; k <= 8; k *= 2) {
        sa_frame blocks = sa_loop_blocked(&f->p, &l, k);
        for (int n = 0; n <= 23; n++) {
            int it = brute(lo, rel, n + hi_off, step);
            assert_int_equal((int)count_at(f, l.body, n), it);
            assert_int_equal((int)count_at(f, blocks, n), it / k);
        }
    }
}

static void blocks_up_and_down(void **state)
{
    fixture *f = *state;
    check_blocks(f, "<", 1, -1, 1);
    check_blocks(f, "<=", 0, 0, 1);
    check_blocks(f, "<", 0, 0, 3);
    check_blocks(f, "!=", 0, 0, 1);
    /* for (i = 30; i > n - 2; i--) and i >= n with i -= 2 */
    check_blocks(f, ">", 30, -2, -1);
    check_blocks(f, ">=", 29, 0, -2);
}

/* for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) with j in blocks of
 * 4: the sum over i of floor((n - 1 - i) / 4); remainder the rest. */
static void triangular_inner_blocks(void **state)
{
    fixture *f = *state;
    sa_loop outer = loop_of(f, sa_frame_unit(f->p.arena), (sa_iterspace){f->i, lin(f, 0, -1, 0), lin(f, 1, f->n, 0), "<", 1});
    sa_loop inner = loop_of(f, outer.body, (sa_iterspace){f->j, lin(f, 1, f->i, 1), lin(f, 1, f->n, 0), "<", 1});
    sa_frame blocks = sa_loop_blocked(&f->p, &inner, 4);
    for (int n = 0; n <= 20; n++) {
        int b = 0, all = 0;
        for (int i = 0; i < n; i++) {
            b += (n - 1 - i) / 4;
            all += n - 1 - i;
        }
        assert_int_equal((int)count_at(f, blocks, n), b);
        assert_int_equal((int)count_at(f, inner.body, n) - 4 * (int)count_at(f, blocks, n), all - 4 * b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(blocks_up_and_down, setup, teardown),
        cmocka_unit_test_setup_teardown(triangular_inner_blocks, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
