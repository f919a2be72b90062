/* render.c — formulas as text or as Python expressions.  Terms whose counts
 * have the same chambers and factors are summed into one quasi-polynomial
 * per chamber (so that a loop's flops read "2*n^2", not "n^2 + n^2");
 * polynomials print expanded over a common denominator, periodic numbers
 * (strides, remainders) as PolyLib writes them, [c0, c1]_n (the value for
 * n mod 2 = 0, 1), in Python as (c0, c1)[n % 2] and in C as
 * ((const int64_t[]){c0, c1})[augur_mod(n, 2)] (augur_mod: the residue in
 * [0, m), as Python's %, which C's % is not for negative n). */
#include "static/sa.h"
#include "static/evalue.h"

#include <inttypes.h>
#include <string.h>

/* A chamber's constraint row (flag, coefficients, constant) as "n >= 2",
 * "m >= n + 1" or "n <= 10"; NULL for a row without parameters (1 >= 0). */
static char *row_str(sa_arena *a, const sa_symtab *t, const sa_count *c, const Value *row)
{
    char *pos = NULL, *neg = NULL; /* terms with positive and negative coefficients */
    for (int i = 0; i < c->nparam; i++) {
        int64_t k = row[1 + i];
        if (k == 0)
            continue;
        const char *name = t->v[c->param[i]].name;
        int64_t m = k < 0 ? -k : k;
        char *term = m == 1 ? sa_strdup(a, name) : sa_printf(a, "%" PRId64 "*%s", m, name);
        char **side = k > 0 ? &pos : &neg;
        *side = *side ? sa_printf(a, "%s + %s", *side, term) : term;
    }
    if (!pos && !neg)
        return NULL;
    int64_t k = row[1 + c->nparam];
    const char *op = row[0] == 0 ? "==" : ">=";
    if (!pos) /* -n + 10 >= 0: n <= 10 */
        return sa_printf(a, "%s %s %" PRId64, neg, row[0] == 0 ? "==" : "<=", k);
    /* pos + k >= neg: pos >= neg - k */
    char *rhs = !neg ? sa_printf(a, "%" PRId64, -k)
                : k == 0 ? neg
                : sa_printf(a, "%s %c %" PRId64, neg, k < 0 ? '+' : '-', k < 0 ? -k : k);
    return sa_printf(a, "%s %s %s", pos, op, rhs);
}

/* A validity domain (a union of polyhedra over the count's parameters) as
 * a condition; NULL when it holds everywhere. */
static char *domain_str(sa_arena *a, const sa_symtab *t, const sa_count *c, const Polyhedron *P, sa_dialect d)
{
    const char *and = d == SA_C ? "&&" : "and", *or = d == SA_C ? "||" : "or";
    char *all = NULL;
    for (; P; P = P->next) {
        char *conj = NULL;
        for (unsigned r = 0; r < P->NbConstraints; r++) {
            char *s = row_str(a, t, c, P->Constraint[r]);
            if (s)
                conj = conj ? sa_printf(a, "%s %s %s", conj, and, s) : s;
        }
        if (!conj)
            return NULL;
        all = all ? sa_printf(a, "(%s) %s (%s)", all, or, conj) : conj;
    }
    return all;
}

/* The chambers of c as one string: counts with the same string merge. */
static char *signature(sa_arena *a, const sa_symtab *t, const sa_count *c)
{
    char *s = sa_strdup(a, "");
    for (const Enumeration *e = c->en; e; e = e->next) {
        char *dom = domain_str(a, t, c, e->ValidityDomain, SA_TEXT);
        s = sa_printf(a, "%s{%s}", s, dom ? dom : "");
    }
    return s;
}

/* ---- quasi-polynomials -------------------------------------------------------
 * An evalue is flattened into terms c * prod p^e * [p = r mod m] (PolyLib
 * may nest periodic numbers in polynomials and the other way round, and
 * sums of counts nest them further), then printed per monomial with its
 * coefficient as one table over the residues of the parameters it depends
 * on: "(n + [0, 2, 1]_n)/3", in Python "(n + (0, 2, 1)[n % 3])//3". */

typedef sa_qterm qterm;

typedef struct qterms {
    sa_arena *a;
    int np;
    size_t n;
    qterm *v;
} qterms;

static int64_t lcm64(int64_t x, int64_t y)
{
    return x / ev_gcd(x, y) * y;
}

static int *copy_ints(sa_arena *a, const int *v, int n)
{
    int *c = sa_alloc(a, (size_t)n * sizeof *c + 1);
    memcpy(c, v, (size_t)n * sizeof *c);
    return c;
}

/* Add the terms of e, under powers exp and residue conditions mod/res, into q. */
static void flatten(qterms *q, const evalue *e, int *exp, int *mod, int *res)
{
    if (value_notzero_p(e->d)) {
        if (value_zero_p(e->x.n))
            return;
        qterm t = {copy_ints(q->a, exp, q->np), copy_ints(q->a, mod, q->np), copy_ints(q->a, res, q->np),
                   (int64_t)e->x.n, (int64_t)e->d};
        q->v = sa_push(q->a, q->v, &q->n, sizeof t, &t);
        return;
    }
    const enode *p = e->x.p;
    int k = p->pos - 1;
    for (int i = 0; i < p->size; i++) {
        if (p->type != periodic) {
            exp[k] += i;
            flatten(q, &p->arr[i], exp, mod, res);
            exp[k] -= i;
            continue;
        }
        int om = mod[k], orr = res[k];
        int m = (int)lcm64(om, p->size);
        for (int r = 0; r < m; r++) /* residues mod m that meet both conditions */
            if (r % om == orr && r % p->size == i) {
                mod[k] = m;
                res[k] = r;
                flatten(q, &p->arr[i], exp, mod, res);
            }
        mod[k] = om;
        res[k] = orr;
    }
}

sa_qterm *sa_qpoly_terms(sa_arena *a, const evalue *e, int np, size_t *n)
{
    qterms q = {a, np, 0, NULL};
    int *exp = sa_alloc(a, (size_t)np * sizeof(int) + 1), *mod = sa_alloc(a, (size_t)np * sizeof(int) + 1),
        *res = sa_alloc(a, (size_t)np * sizeof(int) + 1);
    for (int p = 0; p < np; p++)
        mod[p] = 1;
    flatten(&q, e, exp, mod, res);
    *n = q.n;
    return q.v;
}

/* One monomial's coefficient: a table over the residues of its periodic parameters. */
typedef struct coef {
    int *exp;
    int *period;  /* per parameter, 1 when it does not depend on it */
    int cells;
    int64_t *num, *den;
} coef;

/* Group the terms by monomial into coefficient tables. */
static coef *coefs_of(const qterms *q, size_t *n)
{
    coef *cs = NULL;
    *n = 0;
    for (size_t i = 0; i < q->n; i++) {
        size_t k = 0;
        while (k < *n && memcmp(cs[k].exp, q->v[i].exp, (size_t)q->np * sizeof(int)))
            k++;
        if (k == *n) {
            coef c = {q->v[i].exp, sa_alloc(q->a, (size_t)q->np * sizeof(int) + 1), 1, NULL, NULL};
            for (int p = 0; p < q->np; p++)
                c.period[p] = 1;
            cs = sa_push(q->a, cs, n, sizeof c, &c);
        }
        for (int p = 0; p < q->np; p++)
            cs[k].period[p] = (int)lcm64(cs[k].period[p], q->v[i].mod[p]);
    }
    for (size_t k = 0; k < *n; k++) {
        coef *c = &cs[k];
        for (int p = 0; p < q->np; p++)
            c->cells *= c->period[p];
        c->num = sa_alloc(q->a, (size_t)c->cells * sizeof(int64_t));
        c->den = sa_alloc(q->a, (size_t)c->cells * sizeof(int64_t));
        int *r = sa_alloc(q->a, (size_t)q->np * sizeof(int) + 1);
        for (int cell = 0; cell < c->cells; cell++) {
            for (int p = q->np - 1, rest = cell; p >= 0; p--) { /* the residues of this cell */
                r[p] = rest % c->period[p];
                rest /= c->period[p];
            }
            c->num[cell] = 0;
            c->den[cell] = 1;
            for (size_t i = 0; i < q->n; i++) {
                const qterm *t = &q->v[i];
                int match = !memcmp(t->exp, c->exp, (size_t)q->np * sizeof(int));
                for (int p = 0; match && p < q->np; p++)
                    match = r[p] % t->mod[p] == t->res[p];
                if (!match)
                    continue;
                int64_t nn = c->num[cell] * t->den + t->num * c->den[cell], dd = c->den[cell] * t->den;
                int64_t g = ev_gcd(nn, dd);
                c->num[cell] = g ? nn / g : 0;
                c->den[cell] = g ? dd / g : 1;
            }
        }
    }
    return cs;
}

/* The table of coefficient c, scaled by D, as "[a, b]_n" (nested for two
 * parameters) or "(a, b)[n % 2]"; a plain number when constant. */
static char *table_str(sa_arena *a, const sa_symtab *t, const int *params, int np, const coef *c, int64_t D,
                       sa_dialect d, int *constant)
{
    *constant = 1;
    for (int cell = 1; cell < c->cells; cell++)
        *constant &= c->num[cell] * c->den[0] == c->num[0] * c->den[cell];
    if (*constant)
        return sa_printf(a, "%" PRId64, c->num[0] * (D / c->den[0]));
    char *s = NULL, *names = NULL;
    for (int cell = 0; cell < c->cells; cell++) {
        char *v = sa_printf(a, "%" PRId64, c->num[cell] * (D / c->den[cell]));
        s = s ? sa_printf(a, "%s, %s", s, v) : v;
    }
    int ndep = 0;
    for (int p = 0; p < np; p++)
        if (c->period[p] > 1) {
            const char *name = t->v[params[p]].name;
            ndep++;
            names = names ? sa_printf(a, "%s, %s", names, name) : sa_strdup(a, name);
        }
    /* one flat table, indexed by the residues in mixed radix (the first parameter's most significant) */
    char *index = NULL;
    for (int p = 0; p < np; p++)
        if (c->period[p] > 1) {
            const char *name = t->v[params[p]].name;
            char *r = d == SA_C ? sa_printf(a, "augur_mod(%s, %d)", name, c->period[p])
                                : sa_printf(a, "%s %% %d", name, c->period[p]);
            index = index ? sa_printf(a, "(%s)*%d + %s", index, c->period[p], r) : r;
        }
    if (d == SA_PYTHON)
        return sa_printf(a, "(%s,)[%s]", s, index);
    if (d == SA_C)
        return sa_printf(a, "((const int64_t[]){%s})[%s]", s, index);
    return ndep == 1 ? sa_printf(a, "[%s]_%s", s, names) : sa_printf(a, "[%s]_(%s)", s, names);
}

/* name^ex: n^2, in Python n**2, in C n*n (no pow: exact in integers). */
static char *power_str(sa_arena *a, const char *name, int ex, sa_dialect d)
{
    if (ex == 1)
        return sa_strdup(a, name);
    if (d != SA_C)
        return sa_printf(a, "%s%s%d", name, d == SA_PYTHON ? "**" : "^", ex);
    char *s = sa_strdup(a, name);
    for (int k = 1; k < ex; k++)
        s = sa_printf(a, "%s*%s", s, name);
    return s;
}

/* e over `params` as an expression over a common denominator; in Python
 * with integer division when e is integer-valued (a count), else true
 * division (a count weighted by a branch ratio). */
static char *qpoly_str(sa_arena *a, const sa_symtab *t, const int *params, int np, const evalue *e, sa_dialect d,
                       int integral)
{
    qterms q = {a, np, 0, NULL};
    q.v = sa_qpoly_terms(a, e, np, &q.n);
    size_t nc;
    coef *cs = coefs_of(&q, &nc);
    int64_t D = 1;
    for (size_t k = 0; k < nc; k++)
        for (int cell = 0; cell < cs[k].cells; cell++)
            if (cs[k].num[cell])
                D = lcm64(D, cs[k].den[cell]);
    for (size_t i = 1; i < nc; i++) /* higher degree first, then higher powers of earlier parameters */
        for (size_t j = i; j > 0; j--) {
            int dj = 0, dk = 0, before = 0;
            for (int p = 0; p < np; p++) {
                dj += cs[j].exp[p];
                dk += cs[j - 1].exp[p];
            }
            for (int p = 0; dj == dk && p < np && !before; p++)
                if (cs[j].exp[p] != cs[j - 1].exp[p]) {
                    before = cs[j].exp[p] > cs[j - 1].exp[p];
                    break;
                }
            if (!(dj > dk || (dj == dk && before)))
                break;
            coef tmp = cs[j];
            cs[j] = cs[j - 1];
            cs[j - 1] = tmp;
        }
    char *s = NULL;
    for (size_t k = 0; k < nc; k++) {
        int constant;
        char *c = table_str(a, t, params, np, &cs[k], D, d, &constant);
        if (constant && !strcmp(c, "0"))
            continue;
        char *mono = NULL;
        for (int p = 0; p < np; p++) {
            int ex = cs[k].exp[p];
            if (!ex)
                continue;
            const char *name = t->v[params[p]].name;
            char *f = power_str(a, name, ex, d);
            mono = mono ? sa_printf(a, "%s*%s", mono, f) : f;
        }
        int negative = constant && c[0] == '-';
        char *mag = negative ? c + 1 : c;
        char *term = !mono ? mag : constant && !strcmp(mag, "1") ? mono : sa_printf(a, "%s*%s", mag, mono);
        s = !s ? (negative ? sa_printf(a, "-%s", term) : term)
               : sa_printf(a, "%s %s %s", s, negative ? "-" : "+", term);
    }
    if (!s)
        return sa_strdup(a, "0");
    if (D == 1)
        return s;
    if (d == SA_C && !integral) /* C's / of integers truncates: a weighted count divides in double */
        return sa_printf(a, "(double)(%s)/%" PRId64, s, D);
    const char *fmt = strpbrk(s, " *") ? "(%s)%s%" PRId64 : "%s%s%" PRId64; /* n/4, (n^2 - n)/2 */
    return sa_printf(a, fmt, s, d == SA_PYTHON && integral ? "//" : "/", D);
}

/* ---- groups of terms ---------------------------------------------------------- */

typedef struct group {
    size_t nf;
    const int *f;
    const char *sig;
    size_t n;
    const sa_term **t;
} group;

/* The sorted union of the group's parameters; map[i][k] the 1-based index
 * in it of term i's parameter k. */
static int *group_params(sa_arena *a, const group *g, int *np, int ***map)
{
    int *u = NULL;
    size_t n = 0;
    *map = sa_alloc(a, g->n * sizeof **map);
    for (size_t i = 0; i < g->n; i++)
        for (int k = 0; k < g->t[i]->cnt->nparam; k++) {
            int s = g->t[i]->cnt->param[k], j = 0;
            while ((size_t)j < n && u[j] != s)
                j++;
            if ((size_t)j == n)
                u = sa_push(a, u, &n, sizeof s, &s);
        }
    for (size_t i = 0; i < g->n; i++) {
        const sa_count *c = g->t[i]->cnt;
        (*map)[i] = sa_alloc(a, ((size_t)c->nparam + 1) * sizeof(int));
        for (int k = 0; k < c->nparam; k++)
            for (size_t j = 0; j < n; j++)
                if (u[j] == c->param[k])
                    (*map)[i][k] = (int)j + 1;
    }
    *np = (int)n;
    return u;
}

/* Factor f in dialect d: its name, or for one thread's share of a
 * parallel loop's N iterations ceil(N/threads) or floor (N a count, threads at
 * least 1: exact in integers; C's threads is a double, as every factor). */
static const char *factor_str(sa_arena *a, const sa_symtab *t, int f, sa_dialect d)
{
    const sa_sym *s = &t->v[f];
    if (s->kind != SYM_SHARE || !s->share)
        return s->name;
    const char *n = sa_formula_str(a, t, *s->share, d), *th = t->v[s->threads].name;
    if (s->floor)
        return d == SA_TEXT     ? sa_printf(a, "floor(%s/%s)", n, th)
               : d == SA_PYTHON ? sa_printf(a, "((%s)//%s)", n, th)
                                : sa_printf(a, "((int64_t)(%s)/(int64_t)%s)", n, th);
    return d == SA_TEXT     ? sa_printf(a, "ceil(%s/%s)", n, th)
           : d == SA_PYTHON ? sa_printf(a, "(-(-(%s)//%s))", n, th)
                            : sa_printf(a, "(((int64_t)(%s) + (int64_t)%s - 1)/(int64_t)%s)", n, th, th);
}

/* The group as a piecewise expression. */
static char *group_str(sa_arena *a, const sa_symtab *t, const group *g, sa_dialect d)
{
    int np, **map;
    int *params = group_params(a, g, &np, &map);
    const sa_count *first = g->t[0]->cnt;
    char *s = NULL;
    int pieces = 0, all_true = 0;
    int chamber = 0, integral = 1;
    for (size_t i = 0; i < g->n; i++)
        integral &= g->t[i]->den == 1;
    for (const Enumeration *e = first->en; e; e = e->next, chamber++) {
        evalue sum;
        ev_zero(&sum);
        for (size_t i = 0; i < g->n; i++) {
            const Enumeration *ei = g->t[i]->cnt->en;
            for (int k = 0; k < chamber; k++)
                ei = ei->next;
            evalue part;
            ev_scaled_copy(&ei->EP, g->t[i]->num, g->t[i]->den, map[i], &part);
            ev_add(&part, &sum);
            free_evalue_refs(&part);
        }
        char *val = qpoly_str(a, t, params, np, &sum, d, integral);
        free_evalue_refs(&sum);
        char *cond = domain_str(a, t, first, e->ValidityDomain, d);
        pieces++;
        if (!cond) {
            s = s ? sa_printf(a, d == SA_TEXT ? "%s; else %s" : d == SA_PYTHON ? "%s else %s" : "%s : %s", s, val)
                  : val;
            all_true = 1;
            break;
        }
        char *piece = d == SA_C ? sa_printf(a, "%s ? %s", cond, val) : sa_printf(a, "%s if %s", val, cond);
        s = s ? sa_printf(a, d == SA_TEXT ? "%s; %s" : d == SA_PYTHON ? "%s else %s" : "%s : %s", s, piece) : piece;
    }
    if (!all_true)
        s = sa_printf(a, d == SA_TEXT ? "%s; else 0" : d == SA_PYTHON ? "%s else 0" : "%s : 0", s);
    if (pieces > 1 || !all_true)
        s = d == SA_TEXT ? sa_printf(a, "{%s}", s) : sa_printf(a, "(%s)", s);
    for (size_t j = 0; j < g->nf; j++)
        s = sa_printf(a, "%s*%s", factor_str(a, t, g->f[j], d), s);
    return s;
}

char *sa_formula_str(sa_arena *a, const sa_symtab *t, sa_formula x, sa_dialect d)
{
    group *gs = NULL;
    size_t ng = 0;
    int64_t cnum = 0, cden = 1;
    char *s = NULL;
    for (size_t i = 0; i < x.n; i++) {
        const sa_term *tm = &x.t[i];
        if (!tm->cnt && tm->nf == 0) { /* a constant */
            cnum = cnum * tm->den + tm->num * cden;
            cden *= tm->den;
            int64_t g = ev_gcd(cnum, cden);
            cnum /= g ? g : 1;
            cden /= g ? g : 1;
            continue;
        }
        if (!tm->cnt) { /* factors times a constant ("threads", not "1*threads") */
            char *v = tm->num == 1 ? NULL : tm->num == -1 ? "-" : sa_printf(a, "%" PRId64, tm->num);
            for (size_t j = 0; j < tm->nf; j++) {
                const char *f = factor_str(a, t, tm->f[j], d);
                v = !v ? sa_printf(a, "%s", f) : !strcmp(v, "-") ? sa_printf(a, "-%s", f) : sa_printf(a, "%s*%s", v, f);
            }
            if (tm->den != 1) /* C: in double, not truncated */
                v = sa_printf(a, d == SA_C ? "(double)%s/%" PRId64 : "%s/%" PRId64, v, tm->den);
            s = !s ? v : v[0] == '-' ? sa_printf(a, "%s - %s", s, v + 1) : sa_printf(a, "%s + %s", s, v);
            continue;
        }
        const char *sig = signature(a, t, tm->cnt);
        size_t k = 0;
        while (k < ng && !(gs[k].nf == tm->nf && strcmp(gs[k].sig, sig) == 0 &&
                           (tm->nf == 0 || memcmp(gs[k].f, tm->f, tm->nf * sizeof(int)) == 0)))
            k++;
        if (k == ng) {
            group g = {tm->nf, tm->f, sig, 0, NULL};
            gs = sa_push(a, gs, &ng, sizeof g, &g);
        }
        gs[k].t = sa_push(a, gs[k].t, &gs[k].n, sizeof tm, &tm);
    }
    for (size_t k = 0; k < ng; k++) {
        char *g = group_str(a, t, &gs[k], d);
        s = s ? sa_printf(a, "%s + %s", s, g) : g;
    }
    if (cnum != 0 || !s) {
        char *c = cden == 1 ? sa_printf(a, "%" PRId64, cnum)
                            : sa_printf(a,
                                        d == SA_PYTHON ? "Fraction(%" PRId64 ", %" PRId64 ")"
                                        : d == SA_C    ? "(double)%" PRId64 "/%" PRId64
                                                       : "%" PRId64 "/%" PRId64,
                                        cnum, cden);
        s = s ? sa_printf(a, "%s + %s", s, c) : c;
    }
    return s;
}
