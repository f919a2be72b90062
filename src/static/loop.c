/* loop.c — loops: a `for` whose iterator starts at an affine value, moves
 * by a constant step and is compared (<, <=, >, >=, !=) with an affine
 * bound that the loop does not change adds its iterator as a dimension
 * with those constraints (min and max bounds split into cases, a step s
 * adds i = start + s*q for an integer q); annotations give or complete what the
 * source does not say; anything else makes the loop's iterations per
 * entry a named unknown loop_LINE, with a warning that says which
 * annotation would settle it (docs/static.md, "Loops"). */
#include "static/walk.h"

#include <string.h>

/* What a loop's header says, as far as it can be read. */
typedef struct header {
    CXCursor var;               /* the iterator's declaration */
    CXCursor init, bound, body; /* expressions (null when absent) and the body */
    const char *rel;            /* iterator REL bound */
    long long step;
} header;

/* File offset of the start of c (or of a token). */
static unsigned offset_of(CXSourceLocation l)
{
    unsigned off;
    clang_getExpansionLocation(l, NULL, NULL, NULL, &off);
    return off;
}

/* The offsets of the two ';' and the ')' of a for's header. */
static int header_marks(CXTranslationUnit tu, CXCursor c, unsigned mark[3])
{
    CXToken *t;
    unsigned n, found = 0;
    clang_tokenize(tu, clang_getCursorExtent(c), &t, &n);
    int depth = 0, done = 0;
    for (unsigned i = 0; i < n && !done; i++) {
        CXString s = clang_getTokenSpelling(tu, t[i]);
        const char *sp = clang_getCString(s);
        unsigned off = offset_of(clang_getTokenLocation(tu, t[i]));
        if (!strcmp(sp, "(")) {
            depth++;
        } else if (!strcmp(sp, ")") && --depth == 0) {
            if (found == 2)
                mark[found++] = off;
            done = 1;
        } else if (!strcmp(sp, ";") && depth == 1 && found < 2) {
            mark[found++] = off;
        }
        clang_disposeString(s);
    }
    clang_disposeTokens(tu, t, n);
    return found == 3 ? 0 : -1;
}

/* The variable c names, if it is a plain variable reference. */
static int names_var(CXCursor c, CXCursor *var)
{
    c = cx_strip(c);
    if (clang_getCursorKind(c) != CXCursor_DeclRefExpr)
        return 0;
    *var = clang_getCursorReferenced(c);
    return 1;
}

/* The iterator and start of init (`int i = L` or `i = L`). */
static int read_init(sa_walker *w, CXCursor c, header *h)
{
    cx_list k = cx_children(w->env.a, c);
    if (clang_getCursorKind(c) == CXCursor_DeclStmt && k.n == 1) {
        cx_list v = cx_children(w->env.a, k.v[0]);
        if (v.n == 0)
            return -1;
        h->var = k.v[0];
        h->init = v.v[v.n - 1];
        return 0;
    }
    int postfix;
    if (clang_getCursorKind(c) == CXCursor_BinaryOperator && k.n == 2 &&
        !strcmp(cx_operator(w->env.a, c, &postfix), "=") && names_var(k.v[0], &h->var)) {
        h->init = k.v[1];
        return 0;
    }
    return -1;
}

/* The relation and bound of cond, with the iterator on the left. */
static int read_cond(sa_walker *w, CXCursor c, header *h)
{
    static const char *const flip[][2] = {{"<", ">"}, {"<=", ">="}, {">", "<"}, {">=", "<="}, {"!=", "!="}};
    c = cx_strip(c);
    cx_list k = cx_children(w->env.a, c);
    int postfix;
    if (clang_getCursorKind(c) != CXCursor_BinaryOperator || k.n != 2)
        return -1;
    char *op = cx_operator(w->env.a, c, &postfix);
    CXCursor v;
    for (size_t i = 0; i < 5; i++) {
        if (strcmp(op, flip[i][0]))
            continue;
        if (names_var(k.v[0], &v) && clang_equalCursors(v, h->var)) {
            h->rel = flip[i][0];
            h->bound = k.v[1];
            return 0;
        }
        if (names_var(k.v[1], &v) && clang_equalCursors(v, h->var)) {
            h->rel = flip[i][1];
            h->bound = k.v[0];
            return 0;
        }
    }
    return -1;
}

/* The constant step of inc: i++, ++i, i--, i += c, i -= c, i = i + c, i = i - c. */
static int read_step(sa_walker *w, CXCursor c, header *h)
{
    c = cx_strip(c);
    cx_list k = cx_children(w->env.a, c);
    int postfix;
    char *op = cx_operator(w->env.a, c, &postfix);
    CXCursor v;
    long long s;
    if (k.n == 0 || !names_var(k.v[0], &v) || !clang_equalCursors(v, h->var))
        return -1;
    enum CXCursorKind kind = clang_getCursorKind(c);
    if (kind == CXCursor_UnaryOperator && (!strcmp(op, "++") || !strcmp(op, "--"))) {
        h->step = op[0] == '+' ? 1 : -1;
        return 0;
    }
    if (kind == CXCursor_CompoundAssignOperator && k.n == 2 && (!strcmp(op, "+=") || !strcmp(op, "-=")) &&
        cx_int_const(cx_strip(k.v[1]), &s) && s != 0) {
        h->step = op[0] == '+' ? s : -s;
        return 0;
    }
    if (kind == CXCursor_BinaryOperator && k.n == 2 && !strcmp(op, "=")) {
        CXCursor r = cx_strip(k.v[1]);
        cx_list rk = cx_children(w->env.a, r);
        char *rop = cx_operator(w->env.a, r, &postfix);
        if (clang_getCursorKind(r) == CXCursor_BinaryOperator && rk.n == 2 && (!strcmp(rop, "+") || !strcmp(rop, "-")) &&
            names_var(rk.v[0], &v) && clang_equalCursors(v, h->var) && cx_int_const(cx_strip(rk.v[1]), &s) && s != 0) {
            h->step = rop[0] == '+' ? s : -s;
            return 0;
        }
    }
    return -1;
}

/* Does the body leave the loop other than through its condition: a break
 * outside inner loops and switches (whose breaks leave only them)? */
static enum CXChildVisitResult exits_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    int *found = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_BreakStmt) {
        *found = 1;
        return CXChildVisit_Break;
    }
    if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt || k == CXCursor_SwitchStmt)
        return CXChildVisit_Continue;
    return CXChildVisit_Recurse;
}

/* Returns and gotos anywhere in the body. */
static enum CXChildVisitResult far_exit_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    int *found = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt) {
        *found = 1;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

static int exits_early(CXCursor body)
{
    int found = 0;
    clang_visitChildren(body, exits_visit, &found);
    if (!found)
        clang_visitChildren(body, far_exit_visit, &found);
    return found;
}

/* Read a for's header into h; -1 with w->env.why when it is not countable. */
static int read_for(sa_walker *w, CXCursor c, header *h)
{
    unsigned mark[3];
    cx_list k = cx_children(w->env.a, c);
    CXCursor init = clang_getNullCursor(), cond = init, inc = init;
    if (header_marks(w->tu, c, mark) != 0 || k.n == 0) {
        w->env.why = "its header could not be read";
        return -1;
    }
    for (size_t i = 0; i < k.n; i++) {
        unsigned off = offset_of(clang_getRangeStart(clang_getCursorExtent(k.v[i])));
        if (off < mark[0])
            init = k.v[i];
        else if (off < mark[1])
            cond = k.v[i];
        else if (off < mark[2])
            inc = k.v[i];
        else
            h->body = k.v[i];
    }
    w->env.why = NULL;
    if (clang_Cursor_isNull(init) || read_init(w, init, h) != 0)
        w->env.why = "it does not start by setting one iterator";
    else if (clang_Cursor_isNull(cond) || read_cond(w, cond, h) != 0)
        w->env.why = "its condition does not compare the iterator with a bound";
    else if (clang_Cursor_isNull(inc) || read_step(w, inc, h) != 0)
        w->env.why = "its iterator does not move by a constant step";
    else if (clang_Cursor_isNull(h->body))
        w->env.why = "it has no body";
    if (!w->env.why) {
        cx_list bw = sa_writes(w->env.a, h->body);
        if (sa_written(&bw, h->var))
            w->env.why = "its iterator changes in the body";
        else if (exits_early(h->body))
            w->env.why = "it can leave early (break, return or goto)";
        else if ((h->step > 0 && h->rel[0] == '>') || (h->step < 0 && h->rel[0] == '<'))
            w->env.why = "its iterator moves away from the bound";
    }
    return w->env.why ? -1 : 0;
}

/* The annotations that describe this loop: those before it, and those
 * first in its body when that does not start with a loop (seed 003's
 * Listing 6 puts lp_init and lp_cond there). */
static const sa_pragma *loop_annotation(sa_walker *w, CXCursor body, sa_pragma *pr, size_t npr)
{
    sa_pragma *found = NULL;
    for (size_t i = 0; i < npr; i++)
        if (pr[i].has_iters || pr[i].has_init || pr[i].has_cond)
            found = &pr[i];
    if (!found && !clang_Cursor_isNull(body)) {
        cx_list k = cx_children(w->env.a, body);
        enum CXCursorKind first = k.n ? clang_getCursorKind(k.v[0]) : CXCursor_NullStmt;
        int line = k.n ? cx_line(k.v[0]) : cx_end_line(body);
        if (first != CXCursor_ForStmt && first != CXCursor_WhileStmt && first != CXCursor_DoStmt)
            for (size_t i = w->next_pragma; i < w->pragmas->n && w->pragmas->v[i].line < line; i++)
                if (w->pragmas->v[i].has_init || w->pragmas->v[i].has_cond || w->pragmas->v[i].has_iters) {
                    found = &w->pragmas->v[i];
                    w->next_pragma = i + 1;
                }
    }
    if (found)
        found->used = 1;
    return found;
}

sa_frame sa_iterate(sa_program *p, sa_frame fr, const sa_iterspace *s)
{
    sa_arena *a = p->arena;
    sa_pwa i = sa_pwa_lin(a, sa_lin_sym(a, s->it));
    const char *r = strcmp(s->rel, "!=") ? s->rel : s->step > 0 ? "<" : ">"; /* i != n stops at n */
    sa_frame out = {fr.n, sa_alloc(a, (fr.n + 1) * sizeof(sa_wdom))};
    for (size_t k = 0; k < fr.n; k++) {
        out.v[k] = fr.v[k];
        sa_dom d = sa_dom_rel(a, fr.v[k].d, i, s->step > 0 ? ">=" : "<=", s->start);
        d = sa_dom_rel(a, d, i, r, s->bound);
        if (s->step > 1 || s->step < -1) { /* i = start + step * q for an integer q */
            sa_lin q = sa_lin_sym(a, sa_sym_new(&p->syms, "q", SYM_EXIST, NULL));
            sa_pwa moved = sa_pwa_comb(a, 1, s->start, 1, sa_pwa_lin(a, sa_lin_comb(a, s->step, q, 0, q)));
            d = sa_dom_rel(a, d, i, "==", moved);
        }
        out.v[k].d = d;
    }
    return out;
}

sa_frame sa_loop_blocked(sa_program *p, const sa_loop *l, long long k)
{
    /* a block starts at start + k*step*q and its last iteration, (k - 1)
     * steps on, still satisfies the condition */
    sa_arena *a = p->arena;
    sa_iterspace b = l->space;
    b.bound = sa_pwa_comb(a, 1, b.bound, 1, sa_pwa_lin(a, sa_lin_const(-(k - 1) * b.step)));
    b.step *= k;
    return sa_iterate(p, l->entry, &b);
}

/* The space of a counter from 0 while below iters. */
static sa_iterspace counter(sa_walker *w, sa_pwa iters)
{
    sa_arena *a = w->env.a;
    int k = sa_sym_new(&w->env.p->syms, "k", SYM_EXIST, NULL);
    return (sa_iterspace){k, sa_pwa_lin(a, sa_lin_const(0)), iters, "<", 1};
}

void sa_walk_loop(sa_walker *w, CXCursor c, sa_frame fr, int loop, const sa_pragma *pr, size_t npr)
{
    sa_arena *a = w->env.a;
    sa_env *e = &w->env;
    int line = cx_line(c);
    header h = {.var = clang_getNullCursor(), .init = clang_getNullCursor(), .bound = clang_getNullCursor(),
                .body = clang_getNullCursor(), .step = 1};
    int is_for = clang_getCursorKind(c) == CXCursor_ForStmt;
    cx_list k = cx_children(a, c);
    if (!is_for && k.n == 2) /* while (cond) body; do body while (cond) */
        h.body = clang_getCursorKind(c) == CXCursor_WhileStmt ? k.v[1] : k.v[0];
    cx_list saved_writes = e->lwrites;
    CXCursor saved_nest = e->nest;
    if (w->depth == 0) {
        e->lwrites = sa_writes(a, c); /* bounds must not change anywhere in the nest */
        e->nest = c;
    }
    e->line = line;
    int countable = is_for ? read_for(w, c, &h) == 0 : (e->why = "it is not a for loop", 0);
    const sa_pragma *ann = loop_annotation(w, h.body, (sa_pragma *)pr, npr);
    sa_pwa start, bound, iters;
    const char *unknown = NULL;
    sa_iterspace space;
    int it = -1;
    if (ann && ann->has_iters) {
        if (sa_texpr_pwa(e, &ann->iters, &iters) != 0)
            goto unknown_iterations;
        space = counter(w, iters);
    } else if ((countable || (ann && ann->has_init && ann->has_cond && !clang_Cursor_isNull(h.var))) &&
               (ann && ann->has_init ? sa_texpr_pwa(e, &ann->init, &start) : sa_expr_pwa(e, h.init, &start)) == 0 &&
               (ann && ann->has_cond ? sa_texpr_pwa(e, &ann->cond, &bound) : sa_expr_pwa(e, h.bound, &bound)) == 0) {
        it = sa_sym_new(&e->p->syms, cx_spelling(a, h.var), SYM_ITER, e->func);
        space = (sa_iterspace){it, start, bound, h.rel ? h.rel : "<=", h.step};
    } else {
    unknown_iterations:
        unknown = sa_printf(a, "loop_%d", line);
        int u = sa_sym_get(&e->p->syms, unknown, SYM_UNKNOWN, NULL);
        sa_warn(e->p, e->file, line,
                "the loop's iterations are not known: %s; give them with #pragma augur loop iterations(EXPR) "
                "before the loop",
                e->why ? e->why : "its bounds are not affine");
        sa_add_unknown(e->p, unknown, e->file, line,
                       sa_printf(a, "iterations of the loop per entry: %s", e->why ? e->why : "not affine"));
        space = counter(w, sa_pwa_lin(a, sa_lin_sym(a, u)));
    }
    sa_frame body = sa_iterate(e->p, fr, &space);
    sa_loop l = {.line = line, .end_line = cx_end_line(c), .parent = loop, .body = body, .unknown = unknown,
                 .entry = fr, .space = space};
    for (size_t i = 0; i < npr; i++)
        l.parallel |= pr[i].omp_for;
    w->f->loops = sa_push(a, w->f->loops, &w->f->nloops, sizeof l, &l);
    int me = (int)w->f->nloops - 1;
    if (it >= 0) { /* the iterator is bound inside the body */
        e->bound_decl = sa_push(a, e->bound_decl, &e->nbound, sizeof h.var, &h.var);
        e->nbound--;
        e->bound_sym = sa_push(a, e->bound_sym, &e->nbound, sizeof it, &it);
    }
    w->depth++;
    if (!clang_Cursor_isNull(h.body))
        sa_walk_stmt(w, h.body, body, me);
    w->depth--;
    if (it >= 0)
        e->nbound--;
    e->lwrites = saved_writes;
    e->nest = saved_nest;
}
