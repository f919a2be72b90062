/* pwa.c — piecewise affine values: the bounds and guards with min, max
 * (the conditional form `a < b ? a : b` that MIN and MAX macros expand
 * to), and division or remainder by a positive constant, split into cases
 * under constraints so that each case is affine; and the domain where a
 * comparison of two such values holds. */
#include "static/sa.h"

#include <string.h>

/* The constraints of x and y together. */
static sa_cons *join(sa_arena *a, const sa_case *x, const sa_case *y, size_t *n)
{
    *n = x->n + y->n;
    sa_cons *c = sa_alloc(a, (*n + 3) * sizeof(sa_cons));
    if (x->n)
        memcpy(c, x->c, x->n * sizeof(sa_cons));
    if (y->n)
        memcpy(c + x->n, y->c, y->n * sizeof(sa_cons));
    return c;
}

sa_pwa sa_pwa_lin(sa_arena *a, sa_lin v)
{
    sa_pwa r = {.n = 1, .v = sa_alloc(a, sizeof(sa_case))};
    r.v[0].v = v;
    return r;
}

sa_pwa sa_pwa_comb(sa_arena *a, int64_t ka, sa_pwa x, int64_t kb, sa_pwa y)
{
    sa_pwa r = {.n = 0, .v = sa_alloc(a, (x.n * y.n + 1) * sizeof(sa_case))};
    for (size_t i = 0; i < x.n; i++)
        for (size_t j = 0; j < y.n; j++) {
            sa_case *c = &r.v[r.n++];
            c->c = join(a, &x.v[i], &y.v[j], &c->n);
            c->v = sa_lin_comb(a, ka, x.v[i].v, kb, y.v[j].v);
        }
    return r;
}

sa_pwa sa_pwa_minmax(sa_arena *a, sa_pwa x, sa_pwa y, int is_max)
{
    sa_pwa r = {.n = 0, .v = sa_alloc(a, (2 * x.n * y.n + 1) * sizeof(sa_case))};
    for (size_t i = 0; i < x.n; i++)
        for (size_t j = 0; j < y.n; j++) {
            sa_lin xv = x.v[i].v, yv = y.v[j].v;
            /* x <= y: min is x, max is y; x >= y + 1: min is y, max is x */
            sa_case *le = &r.v[r.n++], *gt = &r.v[r.n++];
            le->c = join(a, &x.v[i], &y.v[j], &le->n);
            le->c[le->n++] = sa_le(a, xv, yv);
            le->v = is_max ? yv : xv;
            gt->c = join(a, &x.v[i], &y.v[j], &gt->n);
            gt->c[gt->n++] = sa_ge(a, xv, sa_lin_comb(a, 1, yv, 1, sa_lin_const(1)));
            gt->v = is_max ? xv : yv;
        }
    return r;
}

sa_pwa sa_pwa_divmod(sa_arena *a, sa_symtab *t, sa_pwa x, int64_t d, int is_mod)
{
    sa_pwa r = {.n = 0, .v = sa_alloc(a, (2 * x.n + 1) * sizeof(sa_case))};
    for (size_t i = 0; i < x.n; i++)
        for (int negative = 0; negative <= 1; negative++) {
            sa_case *c = &r.v[r.n++];
            sa_lin xv = x.v[i].v;
            sa_lin q = sa_lin_sym(a, sa_sym_new(t, "q", SYM_EXIST, NULL));
            sa_lin dq = sa_lin_comb(a, d, q, 0, q);
            c->n = x.v[i].n;
            c->c = sa_alloc(a, (c->n + 3) * sizeof(sa_cons));
            if (c->n)
                memcpy(c->c, x.v[i].c, c->n * sizeof(sa_cons));
            /* C truncates toward zero: x >= 0: d*q <= x <= d*q + d - 1;
             * x < 0: d*q - d + 1 <= x <= d*q */
            sa_lin lo = negative ? sa_lin_comb(a, 1, dq, 1, sa_lin_const(1 - d)) : dq;
            sa_lin hi = negative ? dq : sa_lin_comb(a, 1, dq, 1, sa_lin_const(d - 1));
            c->c[c->n++] = negative ? sa_le(a, xv, sa_lin_const(-1)) : sa_ge(a, xv, sa_lin_const(0));
            c->c[c->n++] = sa_ge(a, xv, lo);
            c->c[c->n++] = sa_le(a, xv, hi);
            c->v = is_mod ? sa_lin_comb(a, 1, xv, -d, q) : q;
        }
    return r;
}

/* The constraints, beyond those of the cases, under which x REL y holds;
 * "!=" is not one constraint and is handled by the caller. */
static sa_cons relation(sa_arena *a, sa_lin x, const char *rel, sa_lin y)
{
    sa_lin one = sa_lin_const(1);
    if (!strcmp(rel, "<"))
        return sa_le(a, sa_lin_comb(a, 1, x, 1, one), y);
    if (!strcmp(rel, "<="))
        return sa_le(a, x, y);
    if (!strcmp(rel, ">"))
        return sa_ge(a, x, sa_lin_comb(a, 1, y, 1, one));
    if (!strcmp(rel, ">="))
        return sa_ge(a, x, y);
    return sa_eq(a, x, y);
}

sa_dom sa_dom_rel(sa_arena *a, sa_dom d, sa_pwa x, const char *rel, sa_pwa y)
{
    if (!strcmp(rel, "!="))
        return sa_dom_minus(a, d, sa_dom_rel(a, d, x, "==", y));
    sa_dom r = {0};
    for (size_t i = 0; i < x.n; i++)
        for (size_t j = 0; j < y.n; j++) {
            size_t n;
            sa_cons *c = join(a, &x.v[i], &y.v[j], &n);
            c[n++] = relation(a, x.v[i].v, rel, y.v[j].v);
            r = sa_dom_plus(a, r, sa_dom_and_all(a, d, c, n));
        }
    return r;
}
