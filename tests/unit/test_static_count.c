/* test_static_count.c — unit tests of the counting core of `augur static`
 * (src/static: domains, piecewise affine bounds, PolyLib counts, formulas
 * and their rendering): the numbers of points of loop domains against
 * their closed forms and brute-force counts, the complement rule of a
 * modulo guard, min bounds in two unknowns, steps, and sums of counts with
 * periodic numbers of different periods (which PolyLib's eadd refuses).
 * Every value is also taken from the formula's form (static/form.h, what
 * the database stores), which must give the same. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "static/evalue.h"
#include "static/form.h"
#include "static/sa.h"

typedef struct fixture {
    sa_arena *a;
    sa_symtab t;
    sa_counts cc;
    int n, m, i, j;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->a = sa_arena_new();
    f->t.arena = f->a;
    f->cc = (sa_counts){.arena = f->a, .syms = &f->t};
    f->n = sa_sym_get(&f->t, "n", SYM_PARAM, "k");
    f->m = sa_sym_get(&f->t, "m", SYM_PARAM, "k");
    f->i = sa_sym_new(&f->t, "i", SYM_ITER, "k");
    f->j = sa_sym_new(&f->t, "j", SYM_ITER, "k");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sa_counts_free(&f->cc);
    sa_arena_free(f->a);
    free(f);
    return 0;
}

static sa_pwa var(fixture *f, int s)
{
    return sa_pwa_lin(f->a, sa_lin_sym(f->a, s));
}

static sa_pwa num(fixture *f, int64_t c)
{
    return sa_pwa_lin(f->a, sa_lin_const(c));
}

/* d where lo <= s < hi. */
static sa_dom range(fixture *f, sa_dom d, int s, sa_pwa lo, sa_pwa hi)
{
    return sa_dom_rel(f->a, sa_dom_rel(f->a, d, var(f, s), ">=", lo), var(f, s), "<", hi);
}

/* n and m by name, for sa_form_eval. */
static int by_name(const char *name, double *v, void *ctx)
{
    const double *nm = ctx;
    if (strcmp(name, "n") && strcmp(name, "m"))
        return -1;
    *v = nm[name[0] == 'm'];
    return 0;
}

/* The value of x at n (and m), the same from PolyLib and from x's form. */
static double at(fixture *f, sa_formula x, double n, double m)
{
    double vals[8] = {0}, v, w, nm[2] = {n, m};
    char known[8] = {0};
    vals[f->n] = n;
    vals[f->m] = m;
    known[f->n] = known[f->m] = 1;
    const char *missing;
    assert_int_equal(sa_formula_eval(&f->t, x, vals, known, &v, &missing), 0);
    json_t *form = sa_formula_form(f->a, &f->t, x);
    assert_int_equal(sa_form_eval(form, by_name, nm, &w, &missing), 0);
    json_decref(form);
    assert_true(w == v);
    return v;
}

static sa_formula formula(fixture *f, sa_dom d)
{
    sa_formula x;
    char err[256];
    assert_int_equal(sa_formula_of_dom(&f->cc, d, &x, err, sizeof err), 0);
    return x;
}

static void triangular(void **state)
{
    fixture *f = *state;
    sa_dom d = range(f, sa_dom_unit(f->a), f->i, num(f, 0), var(f, f->n));
    d = range(f, d, f->j, sa_pwa_comb(f->a, 1, var(f, f->i), 1, num(f, 1)), var(f, f->n));
    sa_formula x = formula(f, d);
    for (int n = -2; n <= 12; n++)
        assert_true(at(f, x, n, 0) == (n > 0 ? n * (n - 1) / 2 : 0));
    assert_string_equal(sa_formula_str(f->a, &f->t, x, SA_TEXT), "{(n^2 - n)/2 if n >= 2; else 0}");
    assert_string_equal(sa_formula_str(f->a, &f->t, x, SA_PYTHON), "((n**2 - n)//2 if n >= 2 else 0)");
    /* twice the same count sums into one polynomial */
    sa_formula two = sa_formula_axpy(f->a, x, 1, 1, NULL, 0, x);
    assert_string_equal(sa_formula_str(f->a, &f->t, two, SA_TEXT), "{n^2 - n if n >= 2; else 0}");
}

static void modulo_complement(void **state)
{
    fixture *f = *state;
    sa_dom d = range(f, sa_dom_unit(f->a), f->i, num(f, 0), var(f, f->n));
    sa_dom odd = sa_dom_rel(f->a, d, sa_pwa_divmod(f->a, &f->t, var(f, f->i), 4, 1), "!=", num(f, 0));
    sa_formula x = formula(f, odd);
    for (int n = 0; n <= 17; n++) {
        int brute = 0;
        for (int i = 0; i < n; i++)
            brute += i % 4 != 0;
        assert_true(at(f, x, n, 0) == brute);
    }
}

static void min_of_two_unknowns(void **state)
{
    fixture *f = *state;
    sa_dom d = range(f, sa_dom_unit(f->a), f->i, num(f, 0), sa_pwa_minmax(f->a, var(f, f->n), var(f, f->m), 0));
    sa_formula x = formula(f, d);
    for (int n = -1; n <= 6; n++)
        for (int m = -1; m <= 6; m++) {
            int k = n < m ? n : m;
            assert_true(at(f, x, n, m) == (k > 0 ? k : 0));
        }
}

/* for (i = 1; i <= n; i += step): (i - 1) % step == 0 */
static sa_formula strided(fixture *f, int step)
{
    sa_dom d = sa_dom_rel(f->a, sa_dom_rel(f->a, sa_dom_unit(f->a), var(f, f->i), ">=", num(f, 1)), var(f, f->i),
                          "<=", var(f, f->n));
    sa_pwa dist = sa_pwa_comb(f->a, 1, var(f, f->i), -1, num(f, 1));
    return formula(f, sa_dom_rel(f->a, d, sa_pwa_divmod(f->a, &f->t, dist, step, 1), "==", num(f, 0)));
}

static void steps_and_periodic_sums(void **state)
{
    fixture *f = *state;
    sa_formula three = strided(f, 3), two = strided(f, 2);
    for (int n = 0; n <= 13; n++) {
        assert_true(at(f, three, n, 0) == (n > 0 ? (n + 2) / 3 : 0));
        assert_true(at(f, two, n, 0) == (n > 0 ? (n + 1) / 2 : 0));
    }
    assert_string_equal(sa_formula_str(f->a, &f->t, three, SA_TEXT), "{(n + [0, 2, 1]_n)/3 if n >= 1; else 0}");
    /* the sum of periods 3 and 2, added as evalues: period 6 */
    evalue sum, b;
    ev_scaled_copy(&three.t[0].cnt->en->EP, 1, 1, NULL, &sum);
    ev_scaled_copy(&two.t[0].cnt->en->EP, 1, 1, NULL, &b);
    ev_add(&b, &sum);
    for (long n = 1; n <= 13; n++) {
        Value arg = n;
        assert_true(fabs(compute_evalue(&sum, &arg) - (double)((n + 2) / 3 + (n + 1) / 2)) < 1e-9);
    }
    free_evalue_refs(&sum);
    free_evalue_refs(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(triangular, setup, teardown),
        cmocka_unit_test_setup_teardown(modulo_complement, setup, teardown),
        cmocka_unit_test_setup_teardown(min_of_two_unknowns, setup, teardown),
        cmocka_unit_test_setup_teardown(steps_and_periodic_sums, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
