/* render.c — formulas as text or as Python expressions.  Terms whose counts
 * have the same chambers and factors are summed into one quasi-polynomial
 * per chamber (so that a loop's flops read "2*n^2", not "n^2 + n^2");
 * polynomials print expanded over a common denominator, periodic numbers
 * (strides, remainders) as PolyLib writes them, [c0, c1]_n (the value for
 * n mod 2 = 0, 1), and in Python as (c0, c1)[n % 2]. */
#include "static/sa.h"
#include "static/evalue.h"

#include <inttypes.h>
#include <string.h>

/* A chamber's constraint row (flag, coefficients, constant) as "n >= 2". */
static char *row_str(sa_arena *a, const sa_symtab *t, const sa_count *c, const Value *row, sa_dialect d)
{
    char *lhs = sa_strdup(a, ""), *rhs = sa_strdup(a, "");
    int nl = 0, nr = 0;
    for (int i = 0; i < c->nparam; i++) {
        int64_t k = row[1 + i];
        if (k == 0)
            continue;
        const char *name = t->v[c->param[i]].name;
        int64_t m = k < 0 ? -k : k;
        char *term = m == 1 ? sa_strdup(a, name) : sa_printf(a, "%" PRId64 "*%s", m, name);
        if (k > 0)
            lhs = sa_printf(a, "%s%s%s", lhs, nl++ ? " + " : "", term);
        else
            rhs = sa_printf(a, "%s%s%s", rhs, nr++ ? " + " : "", term);
    }
    if (nl == 0 && nr == 0)
        return NULL; /* a constant row such as 1 >= 0 */
    int64_t k = row[1 + c->nparam];
    if (k < 0 || nr == 0)
        rhs = nr ? sa_printf(a, "%s + %" PRId64, rhs, -k) : sa_printf(a, "%" PRId64, -k);
    else if (k > 0)
        lhs = nl ? sa_printf(a, "%s + %" PRId64, lhs, k) : sa_printf(a, "%" PRId64, k);
    if (nl == 0)
        lhs = sa_strdup(a, "0");
    const char *op = row[0] == 0 ? "==" : ">=";
    (void)d;
    return sa_printf(a, "%s %s %s", lhs, op, rhs);
}

/* A validity domain (a union of polyhedra over the count's parameters) as
 * a condition; NULL when it holds everywhere. */
static char *domain_str(sa_arena *a, const sa_symtab *t, const sa_count *c, const Polyhedron *P, sa_dialect d)
{
    char *all = NULL;
    for (; P; P = P->next) {
        char *conj = NULL;
        for (unsigned r = 0; r < P->NbConstraints; r++) {
            char *s = row_str(a, t, c, P->Constraint[r], d);
            if (s)
                conj = conj ? sa_printf(a, "%s and %s", conj, s) : s;
        }
        if (!conj)
            return NULL;
        all = all ? sa_printf(a, "(%s) or (%s)", all, conj) : conj;
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

/* ---- quasi-polynomials ------------------------------------------------------ */

typedef struct mono {
    int *exp; /* per parameter of the group */
    int64_t k;
} mono;

typedef struct monos {
    sa_arena *a;
    int np;
    mono *v;
    size_t n;
} monos;

/* Add k * prod p_i^exp_i to m. */
static void add_mono(monos *m, const int *exp, int64_t k)
{
    for (size_t i = 0; i < m->n; i++)
        if (memcmp(m->v[i].exp, exp, (size_t)m->np * sizeof *exp) == 0) {
            m->v[i].k += k;
            return;
        }
    mono x = {sa_alloc(m->a, (size_t)m->np * sizeof *exp + 1), k};
    memcpy(x.exp, exp, (size_t)m->np * sizeof *exp);
    m->v = sa_push(m->a, m->v, &m->n, sizeof x, &x);
}

/* Expand polynomial e (no periodic numbers), scaled by D, into m. */
static void expand(monos *m, const evalue *e, int64_t D, int *exp)
{
    if (value_notzero_p(e->d)) {
        if (value_notzero_p(e->x.n))
            add_mono(m, exp, (int64_t)e->x.n * (D / (int64_t)e->d));
        return;
    }
    const enode *p = e->x.p;
    for (int i = 0; i < p->size; i++) {
        exp[p->pos - 1] += i;
        expand(m, &p->arr[i], D, exp);
        exp[p->pos - 1] -= i;
    }
}

static int degree(const mono *x, int np)
{
    int d = 0;
    for (int i = 0; i < np; i++)
        d += x->exp[i];
    return d;
}

/* Does x come before y: higher degree first, then higher powers of the
 * earlier parameters? */
static int mono_before(const mono *x, const mono *y, int np)
{
    int dx = degree(x, np), dy = degree(y, np);
    if (dx != dy)
        return dx > dy;
    for (int i = 0; i < np; i++)
        if (x->exp[i] != y->exp[i])
            return x->exp[i] > y->exp[i];
    return 0;
}

/* The monomials as "3*n^2 - n + 1" (Python: "3*n**2 - n + 1"). */
static char *monos_str(monos *m, const sa_symtab *t, const int *params, sa_dialect d)
{
    for (size_t i = 1; i < m->n; i++) /* insertion sort: a handful of monomials */
        for (size_t j = i; j > 0 && mono_before(&m->v[j], &m->v[j - 1], m->np); j--) {
            mono tmp = m->v[j];
            m->v[j] = m->v[j - 1];
            m->v[j - 1] = tmp;
        }
    char *s = sa_strdup(m->a, "");
    int first = 1;
    for (size_t i = 0; i < m->n; i++) {
        int64_t k = m->v[i].k;
        if (k == 0)
            continue;
        int64_t ak = k < 0 ? -k : k;
        char *body = NULL;
        for (int j = 0; j < m->np; j++) {
            int e = m->v[i].exp[j];
            if (e == 0)
                continue;
            const char *name = t->v[params[j]].name;
            char *f = e == 1 ? sa_strdup(m->a, name)
                             : sa_printf(m->a, "%s%s%d", name, d == SA_PYTHON ? "**" : "^", e);
            body = body ? sa_printf(m->a, "%s*%s", body, f) : f;
        }
        char *term = !body ? sa_printf(m->a, "%" PRId64, ak)
                     : ak == 1 ? body
                               : sa_printf(m->a, "%" PRId64 "*%s", ak, body);
        s = sa_printf(m->a, "%s%s%s", s, first ? (k < 0 ? "-" : "") : (k < 0 ? " - " : " + "), term);
        first = 0;
    }
    return first ? sa_strdup(m->a, "0") : s;
}

/* A quasi-polynomial with periodic numbers, scaled by D, as nested text. */
static char *tree_str(sa_arena *a, const sa_symtab *t, const int *params, const evalue *e, int64_t D, sa_dialect d)
{
    if (value_notzero_p(e->d))
        return sa_printf(a, "%" PRId64, (int64_t)e->x.n * (D / (int64_t)e->d));
    const enode *p = e->x.p;
    const char *name = t->v[params[p->pos - 1]].name;
    char *s = NULL;
    if (p->type == periodic) {
        for (int i = 0; i < p->size; i++) {
            char *x = tree_str(a, t, params, &p->arr[i], D, d);
            s = s ? sa_printf(a, "%s, %s", s, x) : x;
        }
        return d == SA_PYTHON ? sa_printf(a, "(%s,)[%s %% %d]", s, name, p->size)
                              : sa_printf(a, "[%s]_%s", s, name);
    }
    for (int i = 0; i < p->size; i++) {
        if (ev_is_zero(&p->arr[i]))
            continue;
        char *x = tree_str(a, t, params, &p->arr[i], D, d);
        char *pw = i == 0   ? NULL
                   : i == 1 ? sa_strdup(a, name)
                            : sa_printf(a, "%s%s%d", name, d == SA_PYTHON ? "**" : "^", i);
        int leaf = value_notzero_p(p->arr[i].d);
        char *term = !pw ? x : leaf && !strcmp(x, "1") ? pw : leaf ? sa_printf(a, "%s*%s", x, pw) : sa_printf(a, "(%s)*%s", x, pw);
        s = s ? sa_printf(a, "%s + %s", s, term) : term;
    }
    return s ? s : sa_strdup(a, "0");
}

/* e over `params` as an expression over a common denominator; in Python
 * with integer division when e is integer-valued (a count), else true
 * division (a count weighted by a branch ratio). */
static char *qpoly_str(sa_arena *a, const sa_symtab *t, const int *params, int np, const evalue *e, sa_dialect d,
                       int integral)
{
    int64_t D = ev_denominator(e);
    char *body;
    if (!ev_has_periodic(e)) {
        monos m = {a, np, NULL, 0};
        int *exp = sa_alloc(a, (size_t)np * sizeof *exp + 1);
        expand(&m, e, D, exp);
        body = monos_str(&m, t, params, d);
    } else {
        body = tree_str(a, t, params, e, D, d);
    }
    if (D == 1)
        return body;
    return sa_printf(a, "(%s)%s%" PRId64, body, d == SA_PYTHON && integral ? "//" : "/", D);
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
            s = s ? sa_printf(a, d == SA_PYTHON ? "%s else %s" : "%s; else %s", s, val) : val;
            all_true = 1;
            break;
        }
        char *piece = d == SA_PYTHON ? sa_printf(a, "%s if %s", val, cond) : sa_printf(a, "%s if %s", val, cond);
        s = s ? sa_printf(a, d == SA_PYTHON ? "%s else %s" : "%s; %s", s, piece) : piece;
    }
    if (!all_true)
        s = sa_printf(a, d == SA_PYTHON ? "%s else 0" : "%s; else 0", s);
    if (pieces > 1 || !all_true)
        s = d == SA_PYTHON ? sa_printf(a, "(%s)", s) : sa_printf(a, "{%s}", s);
    for (size_t j = 0; j < g->nf; j++)
        s = sa_printf(a, "%s*%s", t->v[g->f[j]].name, s);
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
        if (!tm->cnt) { /* factors times a constant */
            char *v = sa_printf(a, "%" PRId64, tm->num);
            for (size_t j = 0; j < tm->nf; j++)
                v = sa_printf(a, "%s*%s", v, t->v[tm->f[j]].name);
            if (tm->den != 1)
                v = sa_printf(a, "%s/%" PRId64, v, tm->den);
            s = s ? sa_printf(a, "%s + %s", s, v) : v;
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
                            : sa_printf(a, d == SA_PYTHON ? "Fraction(%" PRId64 ", %" PRId64 ")" : "%" PRId64 "/%" PRId64,
                                        cnum, cden);
        s = s ? sa_printf(a, "%s + %s", s, c) : c;
    }
    return s;
}
