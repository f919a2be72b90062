/* writes.c — the variables a piece of code may change: the left side of an
 * assignment, the operand of ++ and --, and any variable whose address is
 * taken (the analysis does not follow pointers). */
#include "static/env.h"

#include <string.h>

typedef struct writes_ctx {
    sa_arena *a;
    cx_list *w;
} writes_ctx;

/* Record the variable e names, if it names one. */
static void record(writes_ctx *x, CXCursor e)
{
    e = cx_strip(e);
    if (clang_getCursorKind(e) != CXCursor_DeclRefExpr)
        return;
    CXCursor d = clang_getCursorReferenced(e);
    x->w->v = sa_push(x->a, x->w->v, &x->w->n, sizeof d, &d);
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    writes_ctx *x = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator || k == CXCursor_UnaryOperator) {
        int postfix;
        char *op = cx_operator(x->a, c, &postfix);
        cx_list kids = cx_children(x->a, c);
        int assigns = k == CXCursor_CompoundAssignOperator || (k == CXCursor_BinaryOperator && !strcmp(op, "="));
        int steps = k == CXCursor_UnaryOperator && (!strcmp(op, "++") || !strcmp(op, "--") || !strcmp(op, "&"));
        if ((assigns || steps) && kids.n > 0)
            record(x, kids.v[0]);
    }
    return CXChildVisit_Recurse;
}

cx_list sa_writes(sa_arena *a, CXCursor c)
{
    cx_list w = {0};
    writes_ctx x = {a, &w};
    clang_visitChildren(c, visit, &x);
    return w;
}

int sa_written(const cx_list *w, CXCursor decl)
{
    for (size_t i = 0; i < w->n; i++)
        if (clang_equalCursors(w->v[i], decl))
            return 1;
    return 0;
}
