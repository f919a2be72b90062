/* domain.c — iteration domains as signed sums of convex pieces: a loop or a
 * guard adds constraints to every piece, a disjunction adds pieces, and a
 * negation subtracts (the complement rule of seed 003, section 3.2: the
 * points where a guard fails are the parent's minus those where it holds). */
#include "static/sa.h"

#include <string.h>

sa_dom sa_dom_unit(sa_arena *a)
{
    sa_dom d = {.n = 1, .p = sa_alloc(a, sizeof(sa_piece))};
    d.p[0].sign = 1;
    return d;
}

sa_dom sa_dom_and_all(sa_arena *a, sa_dom d, const sa_cons *extra, size_t n)
{
    sa_dom r = {.n = d.n, .p = sa_alloc(a, (d.n + 1) * sizeof(sa_piece))};
    for (size_t i = 0; i < d.n; i++) {
        sa_piece *p = &r.p[i];
        p->sign = d.p[i].sign;
        p->n = d.p[i].n + n;
        p->c = sa_alloc(a, (p->n + 1) * sizeof(sa_cons));
        if (d.p[i].n)
            memcpy(p->c, d.p[i].c, d.p[i].n * sizeof(sa_cons));
        if (n)
            memcpy(p->c + d.p[i].n, extra, n * sizeof(sa_cons));
    }
    return r;
}

sa_dom sa_dom_and(sa_arena *a, sa_dom d, sa_cons c)
{
    return sa_dom_and_all(a, d, &c, 1);
}

/* x + sign * y. */
static sa_dom signed_sum(sa_arena *a, sa_dom x, sa_dom y, int sign)
{
    sa_dom r = {.n = x.n + y.n, .p = sa_alloc(a, (x.n + y.n + 1) * sizeof(sa_piece))};
    if (x.n)
        memcpy(r.p, x.p, x.n * sizeof(sa_piece));
    for (size_t i = 0; i < y.n; i++) {
        r.p[x.n + i] = y.p[i];
        r.p[x.n + i].sign *= sign;
    }
    return r;
}

sa_dom sa_dom_plus(sa_arena *a, sa_dom x, sa_dom y)
{
    return signed_sum(a, x, y, 1);
}

sa_dom sa_dom_minus(sa_arena *a, sa_dom x, sa_dom y)
{
    return signed_sum(a, x, y, -1);
}

sa_dom sa_dom_subst(sa_arena *a, sa_dom d, const sa_subst *s, size_t ns)
{
    sa_dom r = {.n = d.n, .p = sa_alloc(a, (d.n + 1) * sizeof(sa_piece))};
    for (size_t i = 0; i < d.n; i++) {
        r.p[i] = d.p[i];
        r.p[i].c = sa_alloc(a, (d.p[i].n + 1) * sizeof(sa_cons));
        for (size_t j = 0; j < d.p[i].n; j++)
            r.p[i].c[j] = (sa_cons){sa_lin_subst(a, d.p[i].c[j].e, s, ns), d.p[i].c[j].eq};
    }
    return r;
}

sa_cons sa_ge(sa_arena *a, sa_lin x, sa_lin y)
{
    return (sa_cons){sa_lin_comb(a, 1, x, -1, y), 0};
}

sa_cons sa_le(sa_arena *a, sa_lin x, sa_lin y)
{
    return (sa_cons){sa_lin_comb(a, 1, y, -1, x), 0};
}

sa_cons sa_eq(sa_arena *a, sa_lin x, sa_lin y)
{
    return (sa_cons){sa_lin_comb(a, 1, x, -1, y), 1};
}

sa_dom sa_dom_product(sa_arena *a, sa_dom x, sa_dom y)
{
    sa_dom r = {.n = 0, .p = sa_alloc(a, (x.n * y.n + 1) * sizeof(sa_piece))};
    for (size_t i = 0; i < x.n; i++)
        for (size_t j = 0; j < y.n; j++) {
            sa_dom one = {1, &x.p[i]};
            sa_piece q = sa_dom_and_all(a, one, y.p[j].c, y.p[j].n).p[0];
            q.sign = x.p[i].sign * y.p[j].sign;
            r.p[r.n++] = q;
        }
    return r;
}
