/* walk.c — the walk of each function defined in a source file: statements
 * become model statements with their operations and the weighted domains
 * they run in, `if` statements narrow the domains (affine guards) or weigh
 * them (branch ratios, annotated or unknown), calls become call sites with
 * their arguments; loops are loop.c's (docs/static.md). */
#include "static/walk.h"
#include "static/ops.h"

#include <string.h>

sa_frame sa_frame_scale(sa_arena *a, sa_frame fr, int64_t num, int64_t den, int f)
{
    sa_frame r = {fr.n, sa_alloc(a, (fr.n + 1) * sizeof(sa_wdom))};
    for (size_t i = 0; i < fr.n; i++) {
        sa_wdom w = fr.v[i];
        w.num *= num;
        w.den *= den;
        if (f >= 0) {
            int *ff = sa_alloc(a, (w.nf + 1) * sizeof *ff);
            if (w.nf)
                memcpy(ff, w.f, w.nf * sizeof *ff);
            ff[w.nf++] = f;
            w.f = ff;
        }
        r.v[i] = w;
    }
    return r;
}

sa_frame sa_frame_unit(sa_arena *a)
{
    sa_frame fr = {1, sa_alloc(a, sizeof(sa_wdom))};
    fr.v[0] = (sa_wdom){.d = sa_dom_unit(a), .num = 1, .den = 1};
    return fr;
}

static sa_frame frame_concat(sa_arena *a, sa_frame x, sa_frame y)
{
    for (size_t i = 0; i < y.n; i++)
        x.v = sa_push(a, x.v, &x.n, sizeof(sa_wdom), &y.v[i]);
    return x;
}

sa_pragma *sa_take_pragmas(sa_walker *w, int line, size_t *n)
{
    size_t first = w->next_pragma;
    while (w->next_pragma < w->pragmas->n && w->pragmas->v[w->next_pragma].line < line)
        w->next_pragma++;
    *n = w->next_pragma - first;
    return w->pragmas->v + first;
}

/* A call of c: a call site of a function of the program (or of a library:
 * compose.c tells them apart), its arguments affine where they are. */
static void call_site(sa_walker *w, CXCursor call, sa_frame fr, int loop)
{
    sa_arena *a = w->env.a;
    CXCursor callee = clang_getCursorReferenced(call);
    if (clang_Cursor_isNull(callee))
        return; /* a call through a pointer: nothing to name */
    sa_callsite s = {.callee = cx_spelling(a, callee), .line = cx_line(call), .loop = loop, .where = fr};
    int n = clang_Cursor_getNumArguments(call);
    s.nargs = n > 0 ? (size_t)n : 0;
    s.args = sa_alloc(a, (s.nargs + 1) * sizeof *s.args);
    s.affine = sa_alloc(a, s.nargs + 1);
    for (size_t i = 0; i < s.nargs; i++) {
        sa_pwa v;
        CXCursor arg = clang_Cursor_getArgument(call, (unsigned)i);
        if (cx_is_integer(clang_getCursorType(arg)) && sa_expr_pwa(&w->env, arg, &v) == 0) {
            s.args[i] = v;
            s.affine[i] = 1;
        }
    }
    w->f->calls = sa_push(a, w->f->calls, &w->f->ncalls, sizeof s, &s);
}

/* A statement that is a leaf of the walk: its operations and calls. */
static void leaf(sa_walker *w, CXCursor c, sa_frame fr, int loop)
{
    sa_stmt s = {.line = cx_line(c), .loop = loop, .where = fr};
    cx_list calls = {0};
    sa_stmt_ops(w->env.a, c, s.ops, &calls);
    w->f->stmts = sa_push(w->env.a, w->f->stmts, &w->f->nstmts, sizeof s, &s);
    for (size_t i = 0; i < calls.n; i++)
        call_site(w, calls.v[i], fr, loop);
}

/* An if: the then-part runs where the guard holds, the else-part in the
 * rest (the complement rule); a guard that is not affine weighs both by an
 * annotated ratio, or by an unknown ratio_LINE. */
static void walk_if(sa_walker *w, CXCursor c, sa_frame fr, int loop, const sa_pragma *pr, size_t npr)
{
    sa_arena *a = w->env.a;
    cx_list k = cx_children(a, c);
    if (k.n < 2)
        return;
    int line = cx_line(c);
    sa_frame then = {0}, other = {0};
    const sa_pragma *ratio = NULL;
    for (size_t i = 0; i < npr; i++)
        if (pr[i].has_ratio)
            ratio = &pr[i];
    w->env.line = line;
    int affine = !ratio;
    for (size_t i = 0; affine && i < fr.n; i++) {
        sa_dom d;
        if (sa_cond_dom(&w->env, fr.v[i].d, k.v[0], &d) != 0) {
            affine = 0;
            break;
        }
        sa_wdom t = fr.v[i], o = fr.v[i];
        t.d = d;
        o.d = sa_dom_minus(a, fr.v[i].d, d);
        then.v = sa_push(a, then.v, &then.n, sizeof t, &t);
        other.v = sa_push(a, other.v, &other.n, sizeof o, &o);
    }
    if (ratio) {
        then = sa_frame_scale(a, fr, ratio->ratio_num, ratio->ratio_den, -1);
        other = sa_frame_scale(a, fr, ratio->ratio_den - ratio->ratio_num, ratio->ratio_den, -1);
    } else if (!affine) {
        const char *name = sa_printf(a, "ratio_%d", line);
        int r = sa_sym_get(&w->env.p->syms, name, SYM_UNKNOWN, NULL);
        sa_warn(w->env.p, w->env.file, line,
                "the branch is not countable: %s; give its ratio with #pragma augur branch ratio(X) before the if",
                w->env.why);
        sa_add_unknown(w->env.p, name, w->env.file, line,
                       sa_printf(a, "the fraction of executions that take the branch: %s", w->env.why));
        then = sa_frame_scale(a, fr, 1, 1, r);
        other = frame_concat(a, fr, sa_frame_scale(a, fr, -1, 1, r));
    }
    sa_walk_stmt(w, k.v[1], then, loop);
    if (k.n > 2)
        sa_walk_stmt(w, k.v[2], other, loop);
}

void sa_walk_stmt(sa_walker *w, CXCursor c, sa_frame fr, int loop)
{
    size_t npr;
    sa_pragma *pr = sa_take_pragmas(w, cx_line(c), &npr);
    for (size_t i = 0; i < npr; i++)
        if (pr[i].skip) {
            pr[i].used = 1;
            return;
        }
    enum CXCursorKind kind = clang_getCursorKind(c);
    switch (kind) {
    case CXCursor_CompoundStmt: {
        cx_list k = cx_children(w->env.a, c);
        for (size_t i = 0; i < k.n; i++)
            sa_walk_stmt(w, k.v[i], fr, loop);
        break;
    }
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
        sa_walk_loop(w, c, fr, loop, pr, npr);
        break;
    case CXCursor_IfStmt:
        walk_if(w, c, fr, loop, pr, npr);
        for (size_t i = 0; i < npr; i++)
            pr[i].used |= pr[i].has_ratio;
        break;
    case CXCursor_SwitchStmt:
    case CXCursor_LabelStmt:
    case CXCursor_NullStmt:
    case CXCursor_BreakStmt:
    case CXCursor_ContinueStmt:
    case CXCursor_GotoStmt:
        if (kind == CXCursor_SwitchStmt)
            sa_warn(w->env.p, w->env.file, cx_line(c), "switch statements are not modeled: their cases are not counted");
        break;
    default:
        if (kind == CXCursor_DeclStmt || kind == CXCursor_ReturnStmt || clang_isExpression(kind))
            leaf(w, c, fr, loop);
        break;
    }
    for (size_t i = 0; i < npr; i++)
        if (!pr[i].used && !pr[i].param) {
            sa_warn(w->env.p, w->env.file, pr[i].line, "the annotation does not apply to the statement that follows it "
                                                        "(line %d); ignored", cx_line(c));
            pr[i].used = 1;
        }
}

/* The parameter definitions (`#pragma augur param NAME(EXPR)`) that apply
 * in the function at lines [from, to]: its own and the file's. */
static void bind_params(sa_walker *w, int from, int to)
{
    for (size_t i = 0; i < w->pragmas->n; i++) {
        sa_pragma *pr = &w->pragmas->v[i];
        if (!pr->param)
            continue;
        int inside = pr->line >= from && pr->line <= to;
        if (!inside && !(pr->file_level && pr->line < from))
            continue; /* another function's, or after this one */
        sa_pwa v;
        w->env.line = pr->line;
        if (sa_texpr_pwa(&w->env, &pr->iters, &v) != 0) {
            sa_warn(w->env.p, w->env.file, pr->line, "%s; ignored", w->env.why);
            continue;
        }
        sa_binding b = {pr->param, v, inside ? pr->line : 0};
        w->env.params = sa_push(w->env.a, w->env.params, &w->env.nparams, sizeof b, &b);
    }
}

static void walk_function(sa_program *p, CXTranslationUnit tu, CXCursor fn, const char *file, sa_pragmas *prs)
{
    sa_arena *a = p->arena;
    sa_func f = {.name = cx_spelling(a, fn), .file = file, .line = cx_line(fn), .end_line = cx_end_line(fn)};
    int n = clang_Cursor_getNumArguments(fn);
    f.nparams = n > 0 ? (size_t)n : 0;
    f.param_names = sa_alloc(a, (f.nparams + 1) * sizeof(char *));
    f.param_syms = sa_alloc(a, (f.nparams + 1) * sizeof(int));
    for (size_t i = 0; i < f.nparams; i++) {
        CXCursor arg = clang_Cursor_getArgument(fn, (unsigned)i);
        f.param_names[i] = cx_spelling(a, arg);
        f.param_syms[i] = cx_is_integer(clang_getCursorType(arg))
                              ? sa_sym_get(&p->syms, f.param_names[i], SYM_PARAM, f.name)
                              : -1;
    }
    CXCursor body = clang_getNullCursor();
    cx_list k = cx_children(a, fn);
    for (size_t i = 0; i < k.n; i++)
        if (clang_getCursorKind(k.v[i]) == CXCursor_CompoundStmt)
            body = k.v[i];
    p->funcs = sa_push(a, p->funcs, &p->nfuncs, sizeof f, &f);
    sa_walker w = {.env = {.p = p, .a = a, .func = f.name, .file = file, .nest = clang_getNullCursor()}, .tu = tu,
                   .f = &p->funcs[p->nfuncs - 1], .pragmas = prs};
    w.env.fwrites = sa_writes(a, body);
    while (w.next_pragma < prs->n && prs->v[w.next_pragma].line < f.line)
        w.next_pragma++; /* those before the function were attached to file-level declarations */
    bind_params(&w, f.line, f.end_line);
    sa_walk_stmt(&w, body, sa_frame_unit(a), -1);
}

void sa_walk_tu(sa_program *p, CXTranslationUnit tu, const char *file)
{
    sa_pragmas *prs = sa_alloc(p->arena, sizeof *prs);
    *prs = sa_read_pragmas(p, tu, file);
    int last_end = 0;
    cx_list top = cx_children(p->arena, clang_getTranslationUnitCursor(tu));
    for (size_t i = 0; i < top.n; i++) {
        CXCursor c = top.v[i];
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)))
            continue;
        /* file-level param annotations (between functions) apply to the functions after them */
        for (size_t j = 0; j < prs->n; j++)
            if (prs->v[j].param && prs->v[j].line > last_end && prs->v[j].line < cx_line(c))
                prs->v[j].file_level = 1;
        if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c))
            walk_function(p, tu, c, file, prs);
        last_end = cx_end_line(c);
    }
}
