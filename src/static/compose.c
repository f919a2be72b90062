/* compose.c — formulas per scope: each function's statements with those of
 * its callees composed in (a callee's domains with its parameters replaced
 * by the call's affine arguments, else by a new unknown PARAM_LINE, and
 * joined to the call's domain), counted, weighted and summed per function,
 * loop and statement.  Calls into code without source, and recursion,
 * become unknowns (docs/static.md, "Calls"). */
#include "static/model.h"

#include <string.h>

/* A statement execution set of a function, its own or a callee's. */
typedef struct xitem {
    sa_wdom w;
    int64_t ops[OP_N];
    int loop; /* the loop of the function holding it (the call's loop for a callee's) */
} xitem;

typedef struct xlist {
    size_t n;
    xitem *v;
    int state; /* 0 not done, 1 in progress, 2 done */
} xlist;

typedef struct composer {
    sa_program *p;
    xlist *x; /* per function */
} composer;

static void expand(composer *c, size_t fi);

/* The callee's symbols replaced at call site s: its parameters by the
 * arguments (or new unknowns), its unknown locals by NAME_LINE. */
static size_t call_substs(composer *c, const sa_func *g, const sa_callsite *s, const xlist *gx, sa_subst **out)
{
    sa_program *p = c->p;
    sa_subst *v = NULL;
    size_t n = 0;
    for (size_t j = 0; j < g->nparams && j < s->nargs; j++) {
        if (g->param_syms[j] < 0)
            continue;
        sa_subst sub = {g->param_syms[j], s->args[j]};
        if (!s->affine[j]) {
            const char *name = sa_printf(p->arena, "%s_%d", g->param_names[j], s->line);
            sub.to = sa_lin_sym(p->arena, sa_sym_get(&p->syms, name, SYM_UNKNOWN, NULL));
            sa_add_unknown(p, name, g->file, s->line,
                           sa_printf(p->arena, "argument %s of %s is not affine", g->param_names[j], g->name));
        }
        v = sa_push(p->arena, v, &n, sizeof sub, &sub);
    }
    for (size_t i = 0; i < p->syms.n; i++) { /* the callee's unknown locals, named after the call */
        const sa_sym *sym = &p->syms.v[i];
        if (sym->kind != SYM_LOCAL || !sym->owner || strcmp(sym->owner, g->name))
            continue;
        const char *name = sa_printf(p->arena, "%s_%d", sym->name, s->line);
        sa_subst sub = {(int)i, sa_lin_sym(p->arena, sa_sym_get(&p->syms, name, SYM_UNKNOWN, NULL))};
        v = sa_push(p->arena, v, &n, sizeof sub, &sub);
    }
    (void)gx;
    *out = v;
    return n;
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

/* The statements of callee g at call site s of function fi, composed in. */
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
    sa_subst *subs;
    size_t ns = call_substs(c, g, s, &c->x[gi], &subs);
    xlist *out = &c->x[fi];
    for (size_t i = 0; i < c->x[gi].n; i++) {
        const xitem *gx = &c->x[gi].v[i];
        sa_dom gd = sa_dom_subst(p->arena, gx->w.d, subs, ns);
        for (size_t k = 0; k < s->where.n; k++) {
            const sa_wdom *cw = &s->where.v[k];
            xitem x = {.loop = s->loop};
            memcpy(x.ops, gx->ops, sizeof x.ops);
            x.w.d = sa_dom_product(p->arena, cw->d, gd);
            x.w.num = cw->num * gx->w.num;
            x.w.den = cw->den * gx->w.den;
            x.w.f = merge_factors(p->arena, cw, &gx->w, &x.w.nf);
            out->v = sa_push(p->arena, out->v, &out->n, sizeof x, &x);
        }
    }
}

/* Every statement execution set of function fi, callees composed in. */
static void expand(composer *c, size_t fi)
{
    xlist *out = &c->x[fi];
    if (out->state != 0)
        return;
    out->state = 1;
    sa_program *p = c->p;
    const sa_func *f = &p->funcs[fi];
    for (size_t i = 0; i < f->nstmts; i++)
        for (size_t k = 0; k < f->stmts[i].where.n; k++) {
            xitem x = {.w = f->stmts[i].where.v[k], .loop = f->stmts[i].loop};
            memcpy(x.ops, f->stmts[i].ops, sizeof x.ops);
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
    if (sa_formula_of_dom(cc, w->d, &f, err, errlen) != 0)
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

/* s += ops x count, for each operation. */
static void add_ops(sa_arena *a, sa_scope_formulas *s, const int64_t *ops, sa_formula count)
{
    for (int k = 0; k < OP_N; k++)
        if (ops[k])
            s->ops[k] = sa_formula_axpy(a, s->ops[k], ops[k], 1, NULL, 0, count);
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
            add_ops(a, &r->stmts[fi][s], f->stmts[s].ops, x);
        }
    const xlist *xs = &c->x[fi];
    for (size_t i = 0; i < xs->n; i++) {
        sa_formula x;
        if (wdom_formula(&r->counts, &xs->v[i].w, &x, err, errlen) != 0)
            return -1;
        add_ops(a, &r->funcs[fi], xs->v[i].ops, x);
        for (size_t l = 0; l < f->nloops; l++)
            if (within(f, xs->v[i].loop, (int)l))
                add_ops(a, &r->loops[fi][l], xs->v[i].ops, x);
    }
    return 0;
}

int sa_compose(sa_program *p, sa_results *r, char *err, size_t errlen)
{
    sa_arena *a = p->arena;
    composer c = {p, sa_alloc(a, (p->nfuncs + 1) * sizeof(xlist))};
    r->counts = (sa_counts){.arena = a, .syms = &p->syms};
    r->funcs = sa_alloc(a, (p->nfuncs + 1) * sizeof *r->funcs);
    r->loops = sa_alloc(a, (p->nfuncs + 1) * sizeof *r->loops);
    r->stmts = sa_alloc(a, (p->nfuncs + 1) * sizeof *r->stmts);
    for (size_t i = 0; i < p->nfuncs; i++)
        expand(&c, i);
    for (size_t i = 0; i < p->nfuncs; i++)
        if (function_formulas(&c, r, i, err, errlen) != 0)
            return -1;
    return 0;
}
