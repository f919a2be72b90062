/* ops.c — the source-level operations of one statement per execution:
 * floating-point + - * / (and their compound assignments), loads and stores
 * of memory through subscripts, pointers and ->, with their bytes; and the
 * calls it makes.  Scalar variables are taken to live in registers, as an
 * optimising compiler keeps them (docs/static.md, "Operations"). */
#include "static/ops.h"

#include <string.h>

typedef enum mode { LOAD, STORE, UPDATE, ADDRESS } mode;

typedef struct ops_ctx {
    sa_arena *a;
    int64_t *ops;
    cx_list *calls;
} ops_ctx;

static void walk(ops_ctx *x, CXCursor c, mode m);

/* One access to memory of c's type in mode m. */
static void access(ops_ctx *x, CXCursor c, mode m)
{
    CXType t = clang_getCanonicalType(clang_getCursorType(c));
    if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray ||
        m == ADDRESS)
        return; /* an address, not a value */
    long long size = clang_Type_getSizeOf(t);
    int64_t bytes = size > 0 ? size : 0;
    if (m == LOAD || m == UPDATE) {
        x->ops[OP_LOADS]++;
        x->ops[OP_BYTES] += bytes;
    }
    if (m == STORE || m == UPDATE) {
        x->ops[OP_STORES]++;
        x->ops[OP_BYTES] += bytes;
    }
}

static int arithmetic(const char *op)
{
    return !strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*") || !strcmp(op, "/");
}

static void children(ops_ctx *x, CXCursor c, mode m)
{
    cx_list k = cx_children(x->a, c);
    for (size_t i = 0; i < k.n; i++)
        walk(x, k.v[i], m);
}

static void operator(ops_ctx *x, CXCursor c, enum CXCursorKind kind, const cx_list *k)
{
    int postfix;
    char *op = cx_operator(x->a, c, &postfix);
    int fp = cx_is_floating(clang_getCursorType(c));
    if (kind == CXCursor_BinaryOperator && k->n == 2) {
        if (!strcmp(op, "=")) {
            walk(x, k->v[0], STORE);
            walk(x, k->v[1], LOAD);
            return;
        }
        x->ops[OP_FLOPS] += fp && arithmetic(op);
        children(x, c, LOAD);
        return;
    }
    if (kind == CXCursor_CompoundAssignOperator && k->n == 2) {
        char base[3] = {op[0], 0, 0};
        x->ops[OP_FLOPS] += fp && arithmetic(base);
        walk(x, k->v[0], UPDATE);
        walk(x, k->v[1], LOAD);
        return;
    }
    if (k->n != 1) {
        children(x, c, LOAD);
        return;
    }
    if (!strcmp(op, "++") || !strcmp(op, "--"))
        walk(x, k->v[0], UPDATE);
    else if (!strcmp(op, "&"))
        walk(x, k->v[0], ADDRESS);
    else
        walk(x, k->v[0], LOAD);
}

static void walk(ops_ctx *x, CXCursor c, mode m)
{
    enum CXCursorKind kind = clang_getCursorKind(c);
    cx_list k = cx_children(x->a, c);
    int postfix;
    switch (kind) {
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator:
        operator(x, c, kind, &k);
        return;
    case CXCursor_UnaryOperator:
        if (!strcmp(cx_operator(x->a, c, &postfix), "*")) {
            access(x, c, m);
            children(x, c, LOAD);
            return;
        }
        operator(x, c, kind, &k);
        return;
    case CXCursor_ArraySubscriptExpr:
        access(x, c, m);
        if (k.n == 2) { /* a base of array type is an address (access() skips it), a
                         * pointer variable a register, a[i] of double **a a load */
            walk(x, k.v[0], LOAD);
            walk(x, k.v[1], LOAD);
        }
        return;
    case CXCursor_MemberRefExpr:
        if (k.n == 1 && clang_getCanonicalType(clang_getCursorType(cx_strip(k.v[0]))).kind == CXType_Pointer) { /* p->f */
            access(x, c, m);
            children(x, c, LOAD);
        } else {
            children(x, c, m == ADDRESS ? ADDRESS : m); /* s.f is part of s */
        }
        return;
    case CXCursor_CallExpr:
        x->calls->v = sa_push(x->a, x->calls->v, &x->calls->n, sizeof c, &c);
        for (int i = 0; i < clang_Cursor_getNumArguments(c); i++)
            walk(x, clang_Cursor_getArgument(c, (unsigned)i), LOAD);
        return;
    case CXCursor_ParenExpr:
    case CXCursor_UnexposedExpr:
    case CXCursor_CStyleCastExpr:
        children(x, c, m);
        return;
    default:
        children(x, c, m == ADDRESS ? ADDRESS : LOAD);
        return;
    }
}

void sa_stmt_ops(sa_arena *a, CXCursor stmt, int64_t ops[OP_N], cx_list *calls)
{
    ops_ctx x = {a, ops, calls};
    memset(ops, 0, OP_N * sizeof *ops);
    walk(&x, stmt, LOAD);
}
