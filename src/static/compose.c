/* compose.c — formulas per scope: each function's statements (and its
 * binary's code joined to them, join.c) with those of its callees composed in (a callee's domains with its parameters replaced
 * by the call's affine arguments, else by a new unknown PARAM_LINE, and
 * joined to the call's domain), counted, weighted and summed per function,
 * loop and statement.  Calls into code without source, and recursion,
 * become unknowns (docs/static.md, "Calls"). */
#include "static/model.h"
#include "static/static.h"

#include <string.h>

/* A statement execution set of a function, its own or a callee's. */
typedef struct xitem {
    sa_wdom w;
    int64_t ops[OP_N];
    int loop;       /* the loop of the function holding it (the call's loop for a callee's) */
    int mark_func;  /* a loop's iterations rather than a statement: the loop's */
    int mark_loop;  /* function and index, else -1 */
    int mark_bloop; /* the iterations of binary loop i (p->bloops): i + 1, else 0 */
    int origin;     /* the function whose statement or binary code it is */
    int is_bin;     /* binary code (not a statement execution) */
} xitem;

typedef struct xlist {
    size_t n;
    xitem *v;
    int state; /* 0 not done, 1 in progress, 2 done */
} xlist;

/* A thread's share of a callee's parallel loop (SYM_SHARE `from`) as it
 * is at variant k of call site `site`: symbol `to`. */
typedef struct share_at {
    int from, to;
    const sa_callsite *site;
    size_t k;
} share_at;

typedef struct composer {
    sa_program *p;
    xlist *x; /* per function */
    size_t nshares;
    share_at *shares;
} composer;

static void expand(composer *c, size_t fi);

/* One way to replace the callee's symbols at a call: the substitutions,
 * under the constraints of the arguments' cases (an argument n / 2 is
 * q with 2q <= n <= 2q + 1 where n >= 0, and so on). */
typedef struct variant {
    size_t ns, nc;
    sa_subst *s;
    sa_cons *c;
} variant;

/* The variants of call site s of g: one per combination of the
 * arguments' cases; parameters with an argument that is not affine
 * become unknowns PARAM_LINE, the callee's unknown locals NAME_LINE. */
static size_t call_variants(sa_program *p, const sa_func *g, const sa_callsite *s, variant **out)
{
    sa_arena *a = p->arena;
    variant *v = sa_alloc(a, sizeof *v);
    size_t nv = 1;
    for (size_t i = 0; i < p->syms.n; i++) { /* the callee's unknown locals, named after the call */
        const sa_sym *sym = &p->syms.v[i];
        if (sym->kind != SYM_LOCAL || !sym->owner || strcmp(sym->owner, g->name))
            continue;
        const char *name = sa_printf(a, "%s_%d", sym->name, s->line);
        sa_subst sub = {(int)i, sa_lin_sym(a, sa_sym_get(&p->syms, name, SYM_UNKNOWN, NULL))};
        v[0].s = sa_push(a, v[0].s, &v[0].ns, sizeof sub, &sub);
    }
    for (size_t j = 0; j < g->nparams && j < s->nargs; j++) {
        if (g->param_syms[j] < 0)
            continue;
        if (!s->affine[j]) {
            const char *name = sa_printf(a, "%s_%d", g->param_names[j], s->line);
            sa_subst sub = {g->param_syms[j], sa_lin_sym(a, sa_sym_get(&p->syms, name, SYM_UNKNOWN, NULL))};
            sa_add_unknown(p, name, g->file, s->line,
                           sa_printf(a, "argument %s of %s is not affine", g->param_names[j], g->name));
            for (size_t k = 0; k < nv; k++)
                v[k].s = sa_push(a, v[k].s, &v[k].ns, sizeof sub, &sub);
            continue;
        }
        const sa_pwa *arg = &s->args[j];
        variant *w = sa_alloc(a, (nv * arg->n + 1) * sizeof *w);
        size_t nw = 0;
        for (size_t k = 0; k < nv; k++)
            for (size_t m = 0; m < arg->n; m++) {
                variant x = v[k];
                x.s = sa_alloc(a, (x.ns + 1) * sizeof *x.s);
                if (v[k].ns)
                    memcpy(x.s, v[k].s, v[k].ns * sizeof *x.s);
                x.s[x.ns++] = (sa_subst){g->param_syms[j], arg->v[m].v};
                x.c = sa_alloc(a, (x.nc + arg->v[m].n + 1) * sizeof *x.c);
                if (v[k].nc)
                    memcpy(x.c, v[k].c, v[k].nc * sizeof *x.c);
                if (arg->v[m].n)
                    memcpy(x.c + x.nc, arg->v[m].c, arg->v[m].n * sizeof *x.c);
                x.nc += arg->v[m].n;
                w[nw++] = x;
            }
        v = w;
        nv = nw;
    }
    *out = v;
    return nv;
}

/* The factors of both weights, sorted. */
static int *merge_factors(sa_arena *a, const sa_wdom *x, const sa_wdom *y, size_t *n)
{
    *n = x->nf + y->nf;
    int *f = sa_alloc(a, (*n + 1) * sizeof *f);
    for (size_t j = 0; j < *n; j++) {
        int v = j < x->nf ? x->f[j] : y->f[j - x->nf];
        size_t k = j;
        for (; k > 0 && f[k - 1] > v; k--)
            f[k] = f[k - 1];
        f[k] = v;
    }
    return f;
}

/* Callee domain gw run at call site domain cw under variant v: the
 * product of both, the callee's with the call's arguments substituted in
 * (and their cases' constraints), weights multiplied; its time band's
 * bounds too, or none where they then use the caller's loops. */
static sa_wdom at_call(sa_program *p, const variant *v, const sa_wdom *cw, const sa_wdom *gw)
{
    sa_dom gd = sa_dom_and_all(p->arena, sa_dom_subst(p->arena, gw->d, v->s, v->ns), v->c, v->nc);
    sa_wdom x = *gw;
    x.d = sa_dom_product(p->arena, cw->d, gd);
    x.band = gw->nband ? sa_alloc(p->arena, gw->nband * sizeof *x.band) : NULL;
    for (size_t i = 0; i < gw->nband; i++) {
        x.band[i] = gw->band[i];
        x.band[i].e = sa_lin_subst(p->arena, gw->band[i].e, v->s, v->ns);
        for (int k = 0; k < x.band[i].e.n; k++)
            if (sa_sym_is_dim(p->syms.v[x.band[i].e.sym[k]].kind))
                x.nband = 0; /* on the caller's loops: no band (the first's cost) */
    }
    x.num = cw->num * gw->num;
    x.den = cw->den * gw->den;
    x.f = merge_factors(p->arena, cw, gw, &x.nf);
    return x;
}

sa_frame sa_frame_at_call(sa_program *p, const sa_func *g, const sa_callsite *s, sa_frame gf)
{
    variant *vs;
    size_t nv = call_variants(p, g, s, &vs);
    sa_frame out = {0};
    for (size_t i = 0; i < gf.n; i++)
        for (size_t k = 0; k < nv; k++)
            for (size_t m = 0; m < s->where.n; m++) {
                sa_wdom x = at_call(p, &vs[k], &s->where.v[m], &gf.v[i]);
                out.v = sa_push(p->arena, out.v, &out.n, sizeof x, &x);
            }
    return out;
}

/* Add to *syms the dimensions (iterators, existentials) domain d uses. */
static void dims_of(sa_arena *a, const sa_symtab *t, sa_dom d, int **syms, size_t *n)
{
    for (size_t i = 0; i < d.n; i++)
        for (size_t c = 0; c < d.p[i].n; c++)
            for (int k = 0; k < d.p[i].c[c].e.n; k++) {
                int s = d.p[i].c[c].e.sym[k];
                size_t j = 0;
                while (j < *n && (*syms)[j] != s)
                    j++;
                if (j == *n && sa_sym_is_dim(t->v[s].kind))
                    *syms = sa_push(a, *syms, n, sizeof s, &s);
            }
}

/* Does domain d use a dimension that `from` does not? */
static int new_dims(sa_arena *a, const sa_symtab *t, sa_dom from, sa_dom d)
{
    int *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    dims_of(a, t, from, &x, &nx);
    dims_of(a, t, d, &y, &ny);
    dims_of(a, t, from, &y, &ny); /* from's own come first, d's new ones after */
    return ny > nx;
}

/* Callee item x, composed at variant k (v) of call site s: each thread's
 * share of a parallel loop among its factors becomes the share of that
 * loop's iterations with the call's arguments.  When they depend on the
 * caller's loops (or on a quotient of an argument), ceil(N/threads) of one
 * entry is no formula of the caller's unknowns: the loop's iterations are
 * then counted whole (as on one thread), with a warning. */
static void shares_at_call(composer *c, xitem *x, const sa_callsite *s, size_t k, const variant *v, const sa_func *f)
{
    sa_program *p = c->p;
    sa_arena *a = p->arena;
    int *nf = sa_alloc(a, (x->w.nf + 1) * sizeof *nf);
    size_t n = 0;
    for (size_t j = 0; j < x->w.nf; j++) {
        int from = x->w.f[j];
        if (p->syms.v[from].kind != SYM_SHARE) {
            nf[n++] = from;
            continue;
        }
        size_t m = 0;
        while (m < c->nshares && !(c->shares[m].from == from && c->shares[m].site == s && c->shares[m].k == k))
            m++;
        const sa_dom *own = p->syms.v[from].share_dom;
        sa_dom d = sa_dom_and_all(a, sa_dom_subst(a, *own, v->s, v->ns), v->c, v->nc);
        if (m == c->nshares && !new_dims(a, &p->syms, *own, d)) {
            share_at at = {from, sa_sym_share(&p->syms, &d, p->syms.v[from].threads, p->syms.v[from].floor), s, k};
            c->shares = sa_push(a, c->shares, &c->nshares, sizeof at, &at);
        }
        if (m < c->nshares) {
            nf[n++] = c->shares[m].to;
            continue;
        }
        sa_warn(p, f->file, s->line,
                "the iterations of %s's parallel loop depend on the loop around this call: its cycles are counted "
                "as on one thread",
                s->callee);
        x->w.d = sa_dom_product(a, x->w.d, d);
    }
    for (size_t q = 1; q < n; q++) /* sorted, as merge_factors leaves them */
        for (size_t r = q; r > 0 && nf[r - 1] > nf[r]; r--) {
            int t = nf[r];
            nf[r] = nf[r - 1];
            nf[r - 1] = t;
        }
    x->w.f = nf;
    x->w.nf = n;
}

/* The statements of callee g at call site s of function fi, composed in;
 * where the binary inlined the call (join.c), g's own binary code is
 * not: the caller's holds its copy. */
static void compose_call(composer *c, size_t fi, const sa_callsite *s, size_t gi)
{
    sa_program *p = c->p;
    const sa_func *f = &p->funcs[fi], *g = &p->funcs[gi];
    if (c->x[gi].state == 1) {
        sa_add_unknown(p, g->name, f->file, s->line,
                       sa_printf(p->arena, "recursive call of %s from %s: its work is not counted", g->name, f->name));
        return;
    }
    expand(c, gi);
    variant *vs;
    size_t nv = call_variants(p, g, s, &vs);
    xlist *out = &c->x[fi];
    for (size_t i = 0; i < c->x[gi].n; i++) {
        const xitem *gx = &c->x[gi].v[i];
        if (s->inlined && gx->is_bin && gx->origin == (int)gi)
            continue;
        for (size_t k = 0; k < nv; k++)
            for (size_t m = 0; m < s->where.n; m++) {
                xitem x = *gx;
                x.loop = s->loop;
                x.w = at_call(p, &vs[k], &s->where.v[m], &gx->w);
                shares_at_call(c, &x, s, k, &vs[k], f);
                out->v = sa_push(p->arena, out->v, &out->n, sizeof x, &x);
            }
    }
}

/* The function whose code holds binary loop b (its iterations are in that
 * function's symbols): the caller a callee's loop was inlined into, else
 * the loop's own function. */
static int bloop_holder(const sa_bloop *b)
{
    return b->via_func >= 0 ? b->via_func : b->func;
}

/* Every statement execution set of function fi, callees composed in, and
 * marks: the iterations of its loops and of its binary's loops.  A binary
 * loop's mark is binary code of its holder, which a call the binary inlined
 * does not run (compose_call). */
static void expand(composer *c, size_t fi)
{
    xlist *out = &c->x[fi];
    if (out->state != 0)
        return;
    out->state = 1;
    sa_program *p = c->p;
    const sa_func *f = &p->funcs[fi];
    for (size_t l = 0; l < f->nloops; l++) /* the loops' iterations, as marks */
        for (size_t k = 0; k < f->loops[l].body.n; k++) {
            xitem x = {.w = f->loops[l].body.v[k], .loop = (int)l, .mark_func = (int)fi, .mark_loop = (int)l};
            out->v = sa_push(p->arena, out->v, &out->n, sizeof x, &x);
        }
    for (size_t i = 0; i < p->nbloops; i++) /* the binary loops of its code, as marks */
        if (bloop_holder(&p->bloops[i]) == (int)fi)
            for (size_t k = 0; k < p->bloops[i].iters.n; k++) {
                xitem x = {.w = p->bloops[i].iters.v[k], .loop = -1, .mark_loop = -1, .mark_bloop = (int)i + 1,
                           .origin = (int)fi, .is_bin = 1};
                out->v = sa_push(p->arena, out->v, &out->n, sizeof x, &x);
            }
    for (size_t i = 0; i < f->nstmts; i++)
        for (size_t k = 0; k < f->stmts[i].where.n; k++) {
            xitem x = {.w = f->stmts[i].where.v[k], .loop = f->stmts[i].loop, .mark_loop = -1, .origin = (int)fi};
            memcpy(x.ops, f->stmts[i].ops, sizeof x.ops);
            out->v = sa_push(p->arena, out->v, &out->n, sizeof x, &x);
        }
    for (size_t i = 0; i < f->nbins; i++)
        for (size_t k = 0; k < f->bins[i].where.n; k++) {
            xitem x = {.w = f->bins[i].where.v[k], .loop = f->bins[i].loop, .mark_loop = -1, .origin = (int)fi,
                       .is_bin = 1};
            memcpy(x.ops, f->bins[i].ops, sizeof x.ops);
            out->v = sa_push(p->arena, out->v, &out->n, sizeof x, &x);
        }
    for (size_t i = 0; i < f->ncalls; i++) {
        const sa_callsite *s = &f->calls[i];
        size_t gi = 0;
        while (gi < p->nfuncs && strcmp(p->funcs[gi].name, s->callee))
            gi++;
        if (gi < p->nfuncs)
            compose_call(c, fi, s, gi);
        else
            sa_add_unknown(p, s->callee, f->file, s->line,
                           sa_printf(p->arena, "%s has no source here (a library): its work is not counted", s->callee));
    }
    out->state = 2;
}

/* The formula of a weighted domain. */
static int wdom_formula(sa_counts *cc, const sa_wdom *w, sa_formula *out, char *err, size_t errlen)
{
    sa_formula f;
    if (sa_formula_of_dom(cc, w->nband ? sa_dom_and_all(cc->arena, w->d, w->band, w->nband) : w->d, &f, err,
                          errlen) != 0)
        return -1;
    *out = sa_formula_axpy(cc->arena, (sa_formula){0}, w->num, w->den, w->f, w->nf, f);
    return 0;
}

/* Is loop `inner` of f `outer` or inside it? */
static int within(const sa_func *f, int inner, int outer)
{
    for (; inner >= 0; inner = f->loops[inner].parent)
        if (inner == outer)
            return 1;
    return 0;
}

/* s += ops x count, for each operation; and count statement executions
 * unless the operations are binary code's. */
static void add_ops(sa_arena *a, sa_scope_formulas *s, const int64_t *ops, sa_formula count, int is_bin)
{
    for (int k = 0; k < OP_N; k++)
        if (ops[k])
            s->ops[k] = sa_formula_axpy(a, s->ops[k], ops[k], sa_op_den[k], NULL, 0, count);
    if (!is_bin)
        s->statements = sa_formula_axpy(a, s->statements, 1, 1, NULL, 0, count);
}

/* The formulas of function fi, its loops and its statements. */
static int function_formulas(composer *c, sa_results *r, size_t fi, char *err, size_t errlen)
{
    sa_program *p = c->p;
    sa_arena *a = p->arena;
    const sa_func *f = &p->funcs[fi];
    r->loops[fi] = sa_alloc(a, (f->nloops + 1) * sizeof **r->loops);
    r->stmts[fi] = sa_alloc(a, (f->nstmts + 1) * sizeof **r->stmts);
    for (size_t l = 0; l < f->nloops; l++)
        for (size_t k = 0; k < f->loops[l].body.n; k++) {
            sa_formula x;
            if (wdom_formula(&r->counts, &f->loops[l].body.v[k], &x, err, errlen) != 0)
                return -1;
            r->loops[fi][l].iterations = sa_formula_axpy(a, r->loops[fi][l].iterations, 1, 1, NULL, 0, x);
        }
    for (size_t s = 0; s < f->nstmts; s++)
        for (size_t k = 0; k < f->stmts[s].where.n; k++) {
            sa_formula x;
            if (wdom_formula(&r->counts, &f->stmts[s].where.v[k], &x, err, errlen) != 0)
                return -1;
            add_ops(a, &r->stmts[fi][s], f->stmts[s].ops, x, 0);
        }
    for (size_t b = 0; b < f->nbins; b++)
        for (size_t k = 0; k < f->bins[b].where.n && f->bins[b].stmt >= 0; k++) {
            sa_formula x;
            if (wdom_formula(&r->counts, &f->bins[b].where.v[k], &x, err, errlen) != 0)
                return -1;
            add_ops(a, &r->stmts[fi][f->bins[b].stmt], f->bins[b].ops, x, 1);
        }
    const xlist *xs = &c->x[fi];
    int is_main = (int)fi == sa_total_function(p);
    for (size_t i = 0; i < xs->n; i++) {
        sa_formula x;
        const xitem *it = &xs->v[i];
        if ((it->mark_loop >= 0 || it->mark_bloop) && !is_main)
            continue;
        if (wdom_formula(&r->counts, &it->w, &x, err, errlen) != 0)
            return -1;
        if (it->mark_loop >= 0 || it->mark_bloop) { /* main: the loop's iterations in the run */
            sa_formula *pl = it->mark_bloop ? &r->progbloops[it->mark_bloop - 1]
                                            : &r->program[it->mark_func][it->mark_loop];
            *pl = sa_formula_axpy(a, *pl, 1, 1, NULL, 0, x);
            continue;
        }
        add_ops(a, &r->funcs[fi], it->ops, x, it->is_bin);
        if (is_main) /* the run's operations of the function they belong to */
            add_ops(a, &r->progfuncs[it->origin], it->ops, x, it->is_bin);
        for (size_t l = 0; l < f->nloops; l++)
            if (within(f, it->loop, (int)l))
                add_ops(a, &r->loops[fi][l], it->ops, x, it->is_bin);
    }
    return 0;
}

/* Count every thread's share of a parallel loop (its N, per entry), and
 * name it as it prints: ceil(N/threads) or floor(N/threads). */
static int count_shares(sa_program *p, sa_results *r, char *err, size_t errlen)
{
    for (size_t i = 0; i < p->syms.n; i++) {
        sa_sym *s = &p->syms.v[i];
        if (s->kind != SYM_SHARE || s->share)
            continue;
        sa_formula *n = sa_alloc(p->arena, sizeof *n);
        if (sa_formula_of_dom(&r->counts, *s->share_dom, n, err, errlen) != 0)
            return -1;
        s->share = n;
        s->name = sa_printf(p->arena, "%s(%s/%s)", s->floor ? "floor" : "ceil",
                            sa_formula_str(p->arena, &p->syms, *n, SA_TEXT), p->syms.v[s->threads].name);
    }
    return 0;
}

int sa_compose(sa_program *p, sa_results *r, char *err, size_t errlen)
{
    sa_arena *a = p->arena;
    composer c = {p, sa_alloc(a, (p->nfuncs + 1) * sizeof(xlist)), 0, NULL};
    r->counts = (sa_counts){.arena = a, .syms = &p->syms};
    r->funcs = sa_alloc(a, (p->nfuncs + 1) * sizeof *r->funcs);
    r->loops = sa_alloc(a, (p->nfuncs + 1) * sizeof *r->loops);
    r->stmts = sa_alloc(a, (p->nfuncs + 1) * sizeof *r->stmts);
    r->program = sa_alloc(a, (p->nfuncs + 1) * sizeof *r->program);
    r->progfuncs = sa_alloc(a, (p->nfuncs + 1) * sizeof *r->progfuncs);
    r->progbloops = sa_alloc(a, (p->nbloops + 1) * sizeof *r->progbloops);
    for (size_t i = 0; i < p->nfuncs; i++) {
        r->program[i] = sa_alloc(a, (p->funcs[i].nloops + 1) * sizeof **r->program);
        expand(&c, i);
    }
    if (count_shares(p, r, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < p->nfuncs; i++)
        if (function_formulas(&c, r, i, err, errlen) != 0)
            return -1;
    r->bloops = sa_alloc(a, (p->nbloops + 1) * sizeof *r->bloops);
    for (size_t i = 0; i < p->nbloops; i++)
        for (size_t k = 0; k < p->bloops[i].iters.n; k++) {
            sa_formula x;
            if (wdom_formula(&r->counts, &p->bloops[i].iters.v[k], &x, err, errlen) != 0)
                return -1;
            r->bloops[i] = sa_formula_axpy(a, r->bloops[i], 1, 1, NULL, 0, x);
        }
    return 0;
}
