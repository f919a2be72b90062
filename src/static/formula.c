/* formula.c — formulas: weighted sums of counts of domains' points, with
 * unknown factors (branch ratios).  Building them from domains, adding
 * them, their symbols and their values (docs/static.md, "Formulas"). */
#include "static/sa.h"
#include "static/evalue.h"

#include <math.h>
#include <string.h>

/* Does term t have the same count and factors as (cnt, f, nf)? */
static int same_term(const sa_term *t, const sa_count *cnt, const int *f, size_t nf)
{
    return t->cnt == cnt && t->nf == nf && (nf == 0 || memcmp(t->f, f, nf * sizeof *f) == 0);
}

/* x plus the term (num/den) * f * cnt, merged with an equal term of x. */
static sa_formula add_term(sa_arena *a, sa_formula x, int64_t num, int64_t den, const int *f, size_t nf,
                           sa_count *cnt)
{
    for (size_t i = 0; i < x.n; i++) {
        sa_term *t = &x.t[i];
        if (!same_term(t, cnt, f, nf))
            continue;
        int64_t n = t->num * den + num * t->den, d = t->den * den, g = ev_gcd(n, d);
        t->num = g ? n / g : 0;
        t->den = g ? d / g : 1;
        return x;
    }
    int64_t g = ev_gcd(num, den);
    sa_term t = {num / (g ? g : 1), den / (g ? g : 1), nf, NULL, cnt};
    if (nf) {
        t.f = sa_alloc(a, nf * sizeof *f);
        memcpy(t.f, f, nf * sizeof *f);
    }
    x.t = sa_push(a, x.t, &x.n, sizeof t, &t);
    return x;
}

/* x without its zero terms. */
static sa_formula drop_zeros(sa_formula x)
{
    size_t k = 0;
    for (size_t i = 0; i < x.n; i++)
        if (x.t[i].num != 0)
            x.t[k++] = x.t[i];
    x.n = k;
    return x;
}

int sa_formula_of_dom(sa_counts *cc, sa_dom d, sa_formula *out, char *err, size_t errlen)
{
    sa_formula f = {0};
    for (size_t i = 0; i < d.n; i++) {
        sa_count *c = NULL;
        if (d.p[i].n > 0) {
            if (!(c = sa_count_piece(cc, &d.p[i], err, errlen)))
                return -1;
            if (!c->en)
                continue; /* no points */
        }
        f = add_term(cc->arena, f, d.p[i].sign, 1, NULL, 0, c);
    }
    *out = drop_zeros(f);
    return 0;
}

sa_formula sa_formula_axpy(sa_arena *a, sa_formula x, int64_t num, int64_t den, const int *f, size_t nf,
                           sa_formula y)
{
    sa_formula r = {0};
    for (size_t i = 0; i < x.n; i++)
        r = add_term(a, r, x.t[i].num, x.t[i].den, x.t[i].f, x.t[i].nf, x.t[i].cnt);
    for (size_t i = 0; i < y.n; i++) {
        const sa_term *t = &y.t[i];
        size_t n = t->nf + nf;
        int *ff = sa_alloc(a, (n + 1) * sizeof *ff);
        for (size_t j = 0; j < n; j++) { /* the factors of both, sorted */
            int v = j < t->nf ? t->f[j] : f[j - t->nf];
            size_t k = j;
            while (k > 0 && ff[k - 1] > v) {
                ff[k] = ff[k - 1];
                k--;
            }
            ff[k] = v;
        }
        r = add_term(a, r, t->num * num, t->den * den, ff, n, t->cnt);
    }
    return drop_zeros(r);
}

int sa_formula_is_zero(sa_formula x)
{
    return x.n == 0;
}

/* The value of count c at the symbols' values; -1 naming a missing symbol. */
static int count_value(const sa_symtab *t, const sa_count *c, const double *vals, const char *known, double *out,
                       const char **missing)
{
    Value args[c->nparam + 1];
    for (int i = 0; i < c->nparam; i++) {
        int s = c->param[i];
        if (!known[s]) {
            *missing = t->v[s].name;
            return -1;
        }
        args[i] = (Value)llround(vals[s]);
    }
    *out = 0;
    for (const Enumeration *e = c->en; e; e = e->next)
        if (in_domain(e->ValidityDomain, args)) {
            /* a number of points: PolyLib evaluates in double, 2/3 + n/3 may come out 0.999... */
            *out = round(compute_evalue((evalue *)&e->EP, args));
            break;
        }
    return 0;
}

/* The value of factor f: its symbol's, or for a thread's share of a
 * parallel loop ceil(N/threads) (or floor); -1 naming a missing symbol. */
static int factor_value(const sa_symtab *t, int f, const double *vals, const char *known, double *out,
                        const char **missing)
{
    const sa_sym *s = &t->v[f];
    if (s->kind != SYM_SHARE) {
        *out = vals[f];
        *missing = known[f] ? NULL : s->name;
        return known[f] ? 0 : -1;
    }
    double n;
    if (!s->share || sa_formula_eval(t, *s->share, vals, known, &n, missing) != 0)
        return -1;
    if (!known[s->threads] || vals[s->threads] < 1) {
        *missing = t->v[s->threads].name; /* at least one thread */
        return -1;
    }
    *out = s->floor ? floor(n / vals[s->threads]) : ceil(n / vals[s->threads]);
    return 0;
}

int sa_formula_eval(const sa_symtab *t, sa_formula x, const double *vals, const char *known, double *out,
                    const char **missing)
{
    double sum = 0;
    for (size_t i = 0; i < x.n; i++) {
        const sa_term *tm = &x.t[i];
        double v = 1;
        if (tm->cnt && count_value(t, tm->cnt, vals, known, &v, missing) != 0)
            return -1;
        v = v * (double)tm->num / (double)tm->den;
        for (size_t j = 0; j < tm->nf; j++) {
            double fv;
            if (factor_value(t, tm->f[j], vals, known, &fv, missing) != 0)
                return -1;
            v *= fv;
        }
        sum += v;
    }
    *out = sum;
    return 0;
}

static void add_symbol(sa_arena *a, int s, int **syms, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        if ((*syms)[i] == s)
            return;
    *syms = sa_push(a, *syms, n, sizeof s, &s);
}

void sa_formula_symbols(const sa_symtab *t, sa_arena *a, sa_formula x, int **syms, size_t *n)
{
    for (size_t i = 0; i < x.n; i++) {
        for (int j = 0; x.t[i].cnt && j < x.t[i].cnt->nparam; j++)
            add_symbol(a, x.t[i].cnt->param[j], syms, n);
        for (size_t j = 0; j < x.t[i].nf; j++) {
            const sa_sym *s = &t->v[x.t[i].f[j]];
            if (s->kind != SYM_SHARE) {
                add_symbol(a, x.t[i].f[j], syms, n);
                continue;
            }
            if (s->share) /* a share is written in its count's symbols and the threads' */
                sa_formula_symbols(t, a, *s->share, syms, n);
            add_symbol(a, s->threads, syms, n);
        }
    }
}
