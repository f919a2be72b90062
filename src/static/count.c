/* count.c — the number of integer points of a convex piece as a function
 * of its parameters, by PolyLib's Polyhedron_Enumerate (Ehrhart
 * quasi-polynomials per chamber; libpolylib64-dev).  The piece's
 * dimensions are its iterators and existential variables, its parameters
 * the unknowns it mentions.  Counts are cached by the piece's text, since
 * the statements of one loop body share its domain. */
#include "static/sa.h"

#include <polylib/polylib64.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define MAXRAYS 4096

/* Symbols of piece p whose kind is (dims) or is not (params) a dimension,
 * sorted, without duplicates. */
static int collect(const sa_symtab *t, const sa_piece *p, int dims, int *out)
{
    int n = 0;
    for (size_t i = 0; i < p->n; i++)
        for (int j = 0; j < p->c[i].e.n; j++) {
            int s = p->c[i].e.sym[j];
            if (sa_sym_is_dim(t->v[s].kind) != dims)
                continue;
            int k = 0;
            while (k < n && out[k] < s)
                k++;
            if (k < n && out[k] == s)
                continue;
            memmove(out + k + 1, out + k, (size_t)(n - k) * sizeof *out);
            out[k] = s;
            n++;
        }
    return n;
}

static int column(const int *syms, int n, int s)
{
    for (int i = 0; i < n; i++)
        if (syms[i] == s)
            return i;
    return -1;
}

/* The piece's constraints in order, over symbol numbers (names are not
 * unique: every function may have its own n), a key for the cache. */
static char *piece_key(sa_arena *a, const sa_piece *p)
{
    char *k = sa_strdup(a, "");
    for (size_t i = 0; i < p->n; i++) {
        const sa_lin *e = &p->c[i].e;
        for (int j = 0; j < e->n; j++)
            k = sa_printf(a, "%s%+" PRId64 "*s%d", k, e->k[j], e->sym[j]);
        k = sa_printf(a, "%s%+" PRId64 "%s;", k, e->c, p->c[i].eq ? "=0" : ">=0");
    }
    return k;
}

/* PolyLib's constraint matrix of p: columns eq-flag, dims, params, constant. */
static Matrix *constraints(const sa_piece *p, const int *dims, int nd, const int *params, int np)
{
    Matrix *m = Matrix_Alloc((unsigned)p->n, (unsigned)(nd + np + 2));
    for (size_t i = 0; i < p->n; i++) {
        const sa_lin *e = &p->c[i].e;
        value_set_si(m->p[i][0], p->c[i].eq ? 0 : 1);
        for (int j = 0; j < e->n; j++) {
            int c = column(dims, nd, e->sym[j]);
            c = c >= 0 ? 1 + c : 1 + nd + column(params, np, e->sym[j]);
            value_set_si(m->p[i][c], e->k[j]);
        }
        value_set_si(m->p[i][nd + np + 1], e->c);
    }
    return m;
}

/* Is P unbounded for some fixed value of its parameters: a ray or line
 * that moves a dimension and no parameter? */
static int unbounded(const Polyhedron *P, int nd, int np)
{
    for (unsigned r = 0; r < P->NbRays; r++) {
        if (value_notzero_p(P->Ray[r][P->Dimension + 1]))
            continue; /* a vertex */
        int moves_param = 0, moves_dim = 0;
        for (int d = 0; d < nd; d++)
            moves_dim |= value_notzero_p(P->Ray[r][1 + d]);
        for (int k = 0; k < np; k++)
            moves_param |= value_notzero_p(P->Ray[r][1 + nd + k]);
        if (moves_dim && !moves_param)
            return 1;
    }
    return 0;
}

/* The universe of np parameters, the context of an enumeration. */
static Polyhedron *universe(int np)
{
    Matrix *m = Matrix_Alloc(1, (unsigned)np + 2);
    value_set_si(m->p[0][0], 1);
    value_set_si(m->p[0][np + 1], 1); /* 1 >= 0 */
    Polyhedron *c = Constraints2Polyhedron(m, MAXRAYS);
    Matrix_Free(m);
    return c;
}

/* PolyLib computes in 64-bit integers; when they overflow (a deep nest of
 * steps: three tiled loops of 16), Polyhedron_Enumerate prints a message
 * and fails an assertion, which aborts.  That SIGABRT is caught here and
 * jumps back, so that the overflow is an error naming the domain instead
 * of a crash.  The signal handler needs the jump target in a static; it is
 * set only around the call.  PolyLib's messages are silenced meanwhile. */
static sigjmp_buf *abort_target;

static void on_abort(int sig)
{
    (void)sig;
    siglongjmp(*abort_target, 1);
}

/* Polyhedron_Enumerate(P, C), or NULL with *overflow set. */
static Enumeration *enumerate(Polyhedron *P, Polyhedron *C, int *overflow)
{
    sigjmp_buf here;
    struct sigaction catch = {.sa_handler = on_abort}, old;
    Enumeration *volatile en = NULL;
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    fflush(stderr);
    if (null >= 0)
        dup2(null, 2);
    abort_target = &here;
    sigemptyset(&catch.sa_mask);
    sigaction(SIGABRT, &catch, &old);
    *overflow = 0;
    if (sigsetjmp(here, 1) == 0)
        en = Polyhedron_Enumerate(P, C, MAXRAYS, NULL);
    else
        *overflow = 1;
    sigaction(SIGABRT, &old, NULL);
    abort_target = NULL;
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
    if (null >= 0)
        close(null);
    return en;
}

/* The piece's constraints as text, for messages. */
static char *piece_text(sa_arena *a, const sa_symtab *t, const sa_piece *p)
{
    char *text = sa_strdup(a, "");
    for (size_t i = 0; i < p->n; i++)
        text = sa_printf(a, "%s%s%s %s 0", text, i ? ", " : "", sa_lin_str(a, t, p->c[i].e), p->c[i].eq ? "==" : ">=");
    return text;
}

sa_count *sa_count_piece(sa_counts *cc, const sa_piece *p, char *err, size_t errlen)
{
    sa_arena *a = cc->arena;
    const char *key = piece_key(a, p);
    for (size_t i = 0; i < cc->n; i++)
        if (strcmp(cc->v[i]->key, key) == 0)
            return cc->v[i];
    size_t nsym = 0;
    for (size_t i = 0; i < p->n; i++)
        nsym += (size_t)p->c[i].e.n;
    int *dims = sa_alloc(a, (nsym + 1) * sizeof(int)), *params = sa_alloc(a, (nsym + 1) * sizeof(int));
    int nd = collect(cc->syms, p, 1, dims), np = collect(cc->syms, p, 0, params);
    sa_count *c = sa_alloc(a, sizeof *c);
    c->nparam = np;
    c->param = params;
    c->key = key;
    if (p->n > 0) {
        Matrix *m = constraints(p, dims, nd, params, np);
        Polyhedron *P = Constraints2Polyhedron(m, MAXRAYS);
        Matrix_Free(m);
        if (unbounded(P, nd, np)) {
            snprintf(err, errlen, "the domain {%s} is unbounded", piece_text(a, cc->syms, p));
            Domain_Free(P);
            return NULL;
        }
        Polyhedron *C = universe(np);
        int overflow = 0;
        c->en = emptyQ(P) ? NULL : enumerate(P, C, &overflow);
        Domain_Free(C);
        Domain_Free(P);
        if (overflow) {
            snprintf(err, errlen,
                     "PolyLib's 64-bit integers overflowed counting the domain {%s}: give the iterations of its "
                     "loops with #pragma augur loop iterations(EXPR), or skip them with #pragma augur skip",
                     piece_text(a, cc->syms, p));
            return NULL;
        }
    } else {
        c->en = NULL; /* the unit domain: the constant 1, handled by sa_formula_of_dom */
    }
    cc->v = sa_push(a, cc->v, &cc->n, sizeof c, &c);
    return c;
}

void sa_counts_free(sa_counts *cc)
{
    for (size_t i = 0; i < cc->n; i++)
        if (cc->v[i]->en)
            Enumeration_Free(cc->v[i]->en);
    cc->n = 0;
}
