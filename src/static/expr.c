/* expr.c — C expressions as affine values and conditions as domains:
 * constants, the function's integer unknowns (parameters, globals, locals
 * that no statement of the loop nest changes), iterators in scope, + and -,
 * products by constants, / and % by positive constants, and MIN/MAX in
 * their conditional form; conditions of comparisons joined by &&, || and !.
 * Anything else fails with the reason in env->why (docs/static.md,
 * "What is counted exactly"). */
#include "static/env.h"

#include <string.h>

static int fail(sa_env *e, CXCursor c, const char *what)
{
    e->why = sa_printf(e->a, "'%s' %s", cx_text(e->a, c), what);
    return -1;
}

/* The binding of an annotation `param NAME(EXPR)` in force at e->line. */
static const sa_binding *binding(const sa_env *e, const char *name)
{
    const sa_binding *b = NULL;
    for (size_t i = 0; i < e->nparams; i++)
        if (!strcmp(e->params[i].name, name) && e->params[i].from_line <= e->line)
            b = &e->params[i];
    return b;
}

/* The unknown a variable declaration stands for. */
static int unknown_of(sa_env *e, CXCursor decl, const char *name)
{
    enum CXCursorKind pk = clang_getCursorKind(clang_getCursorSemanticParent(decl));
    if (clang_getCursorKind(decl) == CXCursor_ParmDecl)
        return sa_sym_get(&e->p->syms, name, SYM_PARAM, e->func);
    if (pk == CXCursor_TranslationUnit)
        return sa_sym_get(&e->p->syms, name, SYM_GLOBAL, NULL);
    return sa_sym_get(&e->p->syms, name, SYM_LOCAL, e->func);
}

/* The initial value of a local that nothing else writes, if it has one. */
static CXCursor initializer(CXCursor decl)
{
    CXCursor init = clang_getNullCursor();
    sa_arena *a = sa_arena_new();
    cx_list k = cx_children(a, decl);
    for (size_t i = 0; i < k.n; i++)
        if (clang_isExpression(clang_getCursorKind(k.v[i])))
            init = k.v[i];
    sa_arena_free(a);
    return init;
}

/* Is decl declared inside loop (then it takes a value per iteration)? */
static int inside(CXCursor loop, CXCursor decl)
{
    if (clang_Cursor_isNull(loop))
        return 0;
    CXSourceRange r = clang_getCursorExtent(loop);
    unsigned b, e, d;
    clang_getExpansionLocation(clang_getRangeStart(r), NULL, NULL, NULL, &b);
    clang_getExpansionLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &e);
    clang_getExpansionLocation(clang_getCursorLocation(decl), NULL, NULL, NULL, &d);
    return b <= d && d < e;
}

static int variable(sa_env *e, CXCursor ref, sa_pwa *out)
{
    CXCursor decl = clang_getCursorReferenced(ref);
    for (size_t i = e->nbound; i-- > 0;)
        if (clang_equalCursors(e->bound_decl[i], decl)) {
            *out = sa_pwa_lin(e->a, sa_lin_sym(e->a, e->bound_sym[i]));
            return 0;
        }
    char *name = cx_spelling(e->a, decl);
    const sa_binding *b = binding(e, name);
    if (b) {
        *out = b->value;
        return 0;
    }
    enum CXCursorKind k = clang_getCursorKind(decl);
    if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl)
        return fail(e, ref, "is not a variable");
    if (!cx_is_integer(clang_getCursorType(decl)))
        return fail(e, ref, "is not an integer variable");
    if (sa_written(&e->lwrites, decl))
        return fail(e, ref, "changes inside the loop nest");
    int global = clang_getCursorKind(clang_getCursorSemanticParent(decl)) == CXCursor_TranslationUnit;
    if (k == CXCursor_VarDecl && !global && !sa_written(&e->fwrites, decl)) {
        CXCursor init = initializer(decl);
        if (!clang_Cursor_isNull(init) && sa_expr_pwa(e, init, out) == 0)
            return 0; /* a local set once: its value */
    }
    if (!global && inside(e->nest, decl))
        return fail(e, ref, "is set inside the loop nest to a value that is not affine");
    *out = sa_pwa_lin(e->a, sa_lin_sym(e->a, unknown_of(e, decl, name)));
    return 0;
}

/* min or max from `a < b ? a : b` and its variants; 1 when c is not one. */
static int minmax(sa_env *e, const cx_list *k, sa_pwa *out)
{
    if (k->n != 3)
        return 1;
    CXCursor cond = cx_strip(k->v[0]);
    if (clang_getCursorKind(cond) != CXCursor_BinaryOperator)
        return 1;
    int postfix;
    char *op = cx_operator(e->a, cond, &postfix);
    cx_list ab = cx_children(e->a, cond);
    if (ab.n != 2 || (strcmp(op, "<") && strcmp(op, "<=") && strcmp(op, ">") && strcmp(op, ">=")))
        return 1;
    int less = op[0] == '<', is_max;
    if (cx_same(ab.v[0], k->v[1]) && cx_same(ab.v[1], k->v[2]))
        is_max = !less; /* a < b ? a : b is min */
    else if (cx_same(ab.v[0], k->v[2]) && cx_same(ab.v[1], k->v[1]))
        is_max = less;  /* a < b ? b : a is max */
    else
        return 1;
    sa_pwa px, py;
    if (sa_expr_pwa(e, k->v[1], &px) != 0 || sa_expr_pwa(e, k->v[2], &py) != 0)
        return -1;
    *out = sa_pwa_minmax(e->a, px, py, is_max);
    return 0;
}

/* x * y where one side is a constant. */
static int product(sa_env *e, CXCursor c, sa_pwa x, sa_pwa y, sa_pwa *out)
{
    if (x.n == 1 && x.v[0].n == 0 && sa_lin_is_const(x.v[0].v)) {
        *out = sa_pwa_comb(e->a, x.v[0].v.c, y, 0, y);
        return 0;
    }
    if (y.n == 1 && y.v[0].n == 0 && sa_lin_is_const(y.v[0].v)) {
        *out = sa_pwa_comb(e->a, y.v[0].v.c, x, 0, x);
        return 0;
    }
    return fail(e, c, "multiplies two unknowns (not affine)");
}

static int binary(sa_env *e, CXCursor c, const cx_list *k, sa_pwa *out)
{
    int postfix;
    char *op = cx_operator(e->a, c, &postfix);
    sa_pwa x, y;
    long long d;
    if (!strcmp(op, "/") || !strcmp(op, "%")) {
        if (!cx_int_const(cx_strip(k->v[1]), &d) || d <= 0)
            return fail(e, c, "divides by something other than a positive constant");
        if (sa_expr_pwa(e, k->v[0], &x) != 0)
            return -1;
        *out = sa_pwa_divmod(e->a, &e->p->syms, x, d, op[0] == '%');
        return 0;
    }
    if (strcmp(op, "+") && strcmp(op, "-") && strcmp(op, "*"))
        return fail(e, c, "is not an affine operation");
    if (sa_expr_pwa(e, k->v[0], &x) != 0 || sa_expr_pwa(e, k->v[1], &y) != 0)
        return -1;
    if (op[0] == '*')
        return product(e, c, x, y, out);
    *out = sa_pwa_comb(e->a, 1, x, op[0] == '+' ? 1 : -1, y);
    return 0;
}

int sa_expr_pwa(sa_env *e, CXCursor c, sa_pwa *out)
{
    c = cx_strip(c);
    long long v;
    if (cx_int_const(c, &v)) {
        *out = sa_pwa_lin(e->a, sa_lin_const(v));
        return 0;
    }
    cx_list k = cx_children(e->a, c);
    switch (clang_getCursorKind(c)) {
    case CXCursor_DeclRefExpr:
        return variable(e, c, out);
    case CXCursor_BinaryOperator:
        if (k.n == 2)
            return binary(e, c, &k, out);
        break;
    case CXCursor_UnaryOperator: {
        int postfix;
        char *op = cx_operator(e->a, c, &postfix);
        if (k.n == 1 && (!strcmp(op, "-") || !strcmp(op, "+"))) {
            if (sa_expr_pwa(e, k.v[0], out) != 0)
                return -1;
            *out = sa_pwa_comb(e->a, op[0] == '-' ? -1 : 1, *out, 0, *out);
            return 0;
        }
        break;
    }
    case CXCursor_ConditionalOperator: {
        int rc = minmax(e, &k, out);
        if (rc <= 0)
            return rc;
        return fail(e, c, "is a conditional other than min or max");
    }
    case CXCursor_ArraySubscriptExpr:
    case CXCursor_MemberRefExpr:
        return fail(e, c, "is read from memory");
    case CXCursor_CallExpr:
        return fail(e, c, "is returned by a call");
    default:
        break;
    }
    return fail(e, c, "is not affine");
}

static int is_comparison(const char *op)
{
    return !strcmp(op, "<") || !strcmp(op, "<=") || !strcmp(op, ">") || !strcmp(op, ">=") || !strcmp(op, "==") ||
           !strcmp(op, "!=");
}

int sa_cond_dom(sa_env *e, sa_dom d, CXCursor c, sa_dom *out)
{
    c = cx_strip(c);
    cx_list k = cx_children(e->a, c);
    enum CXCursorKind kind = clang_getCursorKind(c);
    int postfix;
    if (kind == CXCursor_BinaryOperator && k.n == 2) {
        char *op = cx_operator(e->a, c, &postfix);
        sa_dom x, y, xy;
        if (!strcmp(op, "&&"))
            return sa_cond_dom(e, d, k.v[0], &x) || sa_cond_dom(e, x, k.v[1], out) ? -1 : 0;
        if (!strcmp(op, "||")) { /* x + y - (x and y) */
            if (sa_cond_dom(e, d, k.v[0], &x) || sa_cond_dom(e, d, k.v[1], &y) || sa_cond_dom(e, x, k.v[1], &xy))
                return -1;
            *out = sa_dom_minus(e->a, sa_dom_plus(e->a, x, y), xy);
            return 0;
        }
        if (is_comparison(op)) {
            sa_pwa l, r;
            if (sa_expr_pwa(e, k.v[0], &l) != 0 || sa_expr_pwa(e, k.v[1], &r) != 0)
                return -1;
            *out = sa_dom_rel(e->a, d, l, op, r);
            return 0;
        }
    }
    if (kind == CXCursor_UnaryOperator && k.n == 1 && !strcmp(cx_operator(e->a, c, &postfix), "!")) {
        sa_dom x;
        if (sa_cond_dom(e, d, k.v[0], &x) != 0)
            return -1;
        *out = sa_dom_minus(e->a, d, x); /* the complement rule */
        return 0;
    }
    if (!cx_is_integer(clang_getCursorType(c)))
        return fail(e, c, "is not an integer condition");
    sa_pwa v;
    if (sa_expr_pwa(e, c, &v) != 0)
        return -1;
    *out = sa_dom_rel(e->a, d, v, "!=", sa_pwa_lin(e->a, sa_lin_const(0)));
    return 0;
}

sa_pwa sa_name_value(sa_env *e, const char *name)
{
    for (size_t i = e->nbound; i-- > 0;)
        if (!strcmp(e->p->syms.v[e->bound_sym[i]].name, name))
            return sa_pwa_lin(e->a, sa_lin_sym(e->a, e->bound_sym[i]));
    const sa_binding *b = binding(e, name);
    if (b)
        return b->value;
    for (size_t i = 0; i < e->p->syms.n; i++) { /* a parameter, local or global known by that name */
        const sa_sym *s = &e->p->syms.v[i];
        if (!strcmp(s->name, name) && ((s->kind == SYM_PARAM || s->kind == SYM_LOCAL) && s->owner &&
                                       !strcmp(s->owner, e->func)))
            return sa_pwa_lin(e->a, sa_lin_sym(e->a, (int)i));
    }
    for (size_t i = 0; i < e->p->syms.n; i++)
        if (!strcmp(e->p->syms.v[i].name, name) && e->p->syms.v[i].kind == SYM_GLOBAL)
            return sa_pwa_lin(e->a, sa_lin_sym(e->a, (int)i));
    return sa_pwa_lin(e->a, sa_lin_sym(e->a, sa_sym_get(&e->p->syms, name, SYM_UNKNOWN, NULL)));
}
