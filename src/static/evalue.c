/* evalue.c — copies, sums and denominators of PolyLib's evalue trees
 * (ehrhart.h), the quasi-polynomials counts are made of. */
#include "static/evalue.h"

int64_t ev_gcd(int64_t a, int64_t b)
{
    if (a < 0)
        a = -a;
    if (b < 0)
        b = -b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void ev_zero(evalue *dst)
{
    value_init(dst->d);
    value_init(dst->x.n);
    value_set_si(dst->d, 1);
    value_set_si(dst->x.n, 0);
}

void ev_scaled_copy(const evalue *src, int64_t num, int64_t den, const int *map, evalue *dst)
{
    value_init(dst->d);
    if (value_notzero_p(src->d)) {
        int64_t n = (int64_t)src->x.n * num, d = (int64_t)src->d * den;
        int64_t g = ev_gcd(n, d);
        if (g == 0)
            g = 1;
        if (d < 0)
            g = -g;
        value_init(dst->x.n);
        value_set_si(dst->x.n, n / g);
        value_set_si(dst->d, d / g);
        return;
    }
    value_set_si(dst->d, 0);
    const enode *p = src->x.p;
    dst->x.p = new_enode(p->type, p->size, p->type == evector || !map ? p->pos : map[p->pos - 1]);
    for (int i = 0; i < p->size; i++) {
        ev_scaled_copy(&p->arr[i], num, den, map, &dst->x.p->arr[i]);
    }
}

int ev_is_zero(const evalue *e)
{
    if (value_notzero_p(e->d))
        return value_zero_p(e->x.n);
    for (int i = 0; i < e->x.p->size; i++)
        if (!ev_is_zero(&e->x.p->arr[i]))
            return 0;
    return 1;
}

int ev_has_periodic(const evalue *e)
{
    if (value_notzero_p(e->d))
        return 0;
    if (e->x.p->type != polynomial)
        return 1;
    for (int i = 0; i < e->x.p->size; i++)
        if (ev_has_periodic(&e->x.p->arr[i]))
            return 1;
    return 0;
}

int64_t ev_denominator(const evalue *e)
{
    if (value_notzero_p(e->d))
        return (int64_t)e->d;
    int64_t l = 1;
    for (int i = 0; i < e->x.p->size; i++) {
        int64_t d = ev_denominator(&e->x.p->arr[i]);
        l = l / ev_gcd(l, d) * d;
    }
    return l;
}

/* A new tree: x + y.  Any nesting of polynomial and periodic nodes is a
 * valid quasi-polynomial (a coefficient may itself depend on every
 * parameter), so y is added into x's constant term, or into each of x's
 * periodic cases, unless both are nodes of one kind in one parameter, which
 * add case by case (periods to their least common multiple).  PolyLib's
 * eadd refuses several of these cases. */
static void sum_of(const evalue *x, const evalue *y, evalue *out)
{
    if (value_notzero_p(x->d) && value_zero_p(y->d)) {
        const evalue *t = x;
        x = y;
        y = t;
    }
    if (value_notzero_p(x->d)) { /* two rationals */
        int64_t n = (int64_t)x->x.n * (int64_t)y->d + (int64_t)y->x.n * (int64_t)x->d, d = (int64_t)x->d * (int64_t)y->d;
        int64_t g = ev_gcd(n, d);
        value_init(out->d);
        value_init(out->x.n);
        value_set_si(out->x.n, g ? n / g : 0);
        value_set_si(out->d, g ? d / g : 1);
        return;
    }
    const enode *p = x->x.p, *q = value_zero_p(y->d) ? y->x.p : NULL;
    value_init(out->d);
    value_set_si(out->d, 0);
    if (q && q->type == p->type && q->pos == p->pos && p->type != evector) {
        int size = p->type == periodic ? (int)((int64_t)p->size / ev_gcd(p->size, q->size) * q->size)
                                       : (p->size > q->size ? p->size : q->size);
        evalue zero;
        ev_zero(&zero);
        out->x.p = new_enode(p->type, size, p->pos);
        for (int i = 0; i < size; i++) {
            const evalue *a = p->type == periodic ? &p->arr[i % p->size] : i < p->size ? &p->arr[i] : &zero;
            const evalue *b = q->type == periodic ? &q->arr[i % q->size] : i < q->size ? &q->arr[i] : &zero;
            sum_of(a, b, &out->x.p->arr[i]);
        }
        return;
    }
    out->x.p = new_enode(p->type, p->size, p->pos);
    for (int i = 0; i < p->size; i++) {
        if (p->type == periodic || i == 0)
            sum_of(&p->arr[i], y, &out->x.p->arr[i]);
        else
            ev_scaled_copy(&p->arr[i], 1, 1, NULL, &out->x.p->arr[i]);
    }
}

void ev_add(const evalue *e, evalue *res)
{
    evalue out;
    sum_of(res, e, &out);
    free_evalue_refs(res);
    *res = out;
}
