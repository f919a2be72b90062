/* cx.c — small helpers over libclang's C API (see cx.h). */
#include "static/cx.h"

#include <string.h>

typedef struct collect_ctx {
    sa_arena *a;
    cx_list *l;
} collect_ctx;

static enum CXChildVisitResult collect_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    collect_ctx *x = data;
    x->l->v = sa_push(x->a, x->l->v, &x->l->n, sizeof c, &c);
    return CXChildVisit_Continue;
}

cx_list cx_children(sa_arena *a, CXCursor c)
{
    cx_list l = {0};
    collect_ctx x = {a, &l};
    clang_visitChildren(c, collect_child, &x);
    return l;
}

int cx_line(CXCursor c)
{
    unsigned line;
    clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(c)), NULL, &line, NULL, NULL);
    return (int)line;
}

int cx_end_line(CXCursor c)
{
    unsigned line;
    clang_getExpansionLocation(clang_getRangeEnd(clang_getCursorExtent(c)), NULL, &line, NULL, NULL);
    return (int)line;
}

/* Copy and dispose of a CXString. */
static char *take(sa_arena *a, CXString s)
{
    const char *c = clang_getCString(s);
    char *r = sa_strdup(a, c ? c : "");
    clang_disposeString(s);
    return r;
}

char *cx_spelling(sa_arena *a, CXCursor c)
{
    return take(a, clang_getCursorSpelling(c));
}

/* The spellings of the tokens that start in range r (clang_tokenize also
 * gives the token at its end, which is left out). */
static char **tokens_in(sa_arena *a, CXTranslationUnit tu, CXSourceRange r, unsigned *n)
{
    CXToken *t;
    unsigned all, end;
    clang_getFileLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &end);
    clang_tokenize(tu, r, &t, &all);
    char **s = sa_alloc(a, (all + 1) * sizeof *s);
    *n = 0;
    for (unsigned i = 0; i < all; i++) {
        unsigned off;
        clang_getFileLocation(clang_getTokenLocation(tu, t[i]), NULL, NULL, NULL, &off);
        if (off < end)
            s[(*n)++] = take(a, clang_getTokenSpelling(tu, t[i]));
    }
    clang_disposeTokens(tu, t, all);
    return s;
}

/* The file and offset of l, as spelled (in a macro's definition when l
 * comes from one) or where expanded. */
static CXSourceLocation place(CXTranslationUnit tu, CXSourceLocation l, int spelled)
{
    CXFile f;
    unsigned off;
    if (spelled)
        clang_getSpellingLocation(l, &f, NULL, NULL, &off);
    else
        clang_getExpansionLocation(l, &f, NULL, NULL, &off);
    return f ? clang_getLocationForOffset(tu, f, off) : clang_getNullLocation();
}

char *cx_text(sa_arena *a, CXCursor c)
{
    unsigned n;
    CXTranslationUnit tu = clang_Cursor_getTranslationUnit(c);
    CXSourceRange r = clang_getCursorExtent(c);
    char **t = tokens_in(a, tu, clang_getRange(place(tu, clang_getRangeStart(r), 0), place(tu, clang_getRangeEnd(r), 0)), &n);
    char *s = sa_strdup(a, "");
    for (unsigned i = 0; i < n; i++)
        s = sa_printf(a, "%s%s%s", s, i ? " " : "", t[i]);
    return s;
}

/* The last token from x to before y (the operator between two operands),
 * where both are spelled in one place: in the file, or in one macro's
 * definition (MIN's "(a) < (b)"). */
static char *token_before(sa_arena *a, CXTranslationUnit tu, CXCursor x, CXCursor y)
{
    for (int spelled = 1; spelled >= 0; spelled--) {
        CXSourceLocation lx = place(tu, clang_getRangeStart(clang_getCursorExtent(x)), spelled);
        CXSourceLocation ly = place(tu, clang_getRangeStart(clang_getCursorExtent(y)), spelled);
        CXFile fx, fy;
        unsigned ox, oy;
        clang_getFileLocation(lx, &fx, NULL, NULL, &ox);
        clang_getFileLocation(ly, &fy, NULL, NULL, &oy);
        if (!fx || !clang_File_isEqual(fx, fy) || ox >= oy)
            continue;
        unsigned n;
        char **t = tokens_in(a, tu, clang_getRange(lx, ly), &n);
        if (n >= 1)
            return t[n - 1];
    }
    return sa_strdup(a, "");
}

typedef struct expansion_ctx {
    unsigned offset;
    CXFile file;
    CXCursor found;
} expansion_ctx;

static enum CXChildVisitResult find_expansion(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    expansion_ctx *x = data;
    if (clang_getCursorKind(c) != CXCursor_MacroExpansion)
        return CXChildVisit_Continue;
    CXSourceRange r = clang_getCursorExtent(c);
    CXFile f;
    unsigned b, e;
    clang_getFileLocation(clang_getRangeStart(r), &f, NULL, NULL, &b);
    clang_getFileLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &e);
    if (f && clang_File_isEqual(f, x->file) && b <= x->offset && x->offset < e)
        x->found = c;
    return CXChildVisit_Continue;
}

/* The binary operator of c when c comes from a macro whose definition has
 * exactly one (MIN's "((a) < (b) ? (a) : (b))"): libclang 14 gives the
 * places of a macro's tokens where it is called, not where it is defined,
 * so the operator cannot be found between the operands. */
static char *macro_operator(sa_arena *a, CXTranslationUnit tu, CXCursor c)
{
    static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!=", "+", "-", "*", "/", "%", "&&", "||"};
    expansion_ctx x = {.found = clang_getNullCursor()};
    clang_getFileLocation(clang_getRangeStart(clang_getCursorExtent(c)), &x.file, NULL, NULL, &x.offset);
    if (!x.file)
        return sa_strdup(a, "");
    clang_visitChildren(clang_getTranslationUnitCursor(tu), find_expansion, &x);
    CXCursor def = clang_Cursor_isNull(x.found) ? x.found : clang_getCursorReferenced(x.found);
    if (clang_Cursor_isNull(def))
        return sa_strdup(a, "");
    unsigned n;
    char **t = tokens_in(a, tu, clang_getCursorExtent(def), &n);
    char *op = NULL;
    int count = 0;
    unsigned i = 1;
    if (i < n && !strcmp(t[i], "(")) /* skip the parameter list */
        while (i < n && strcmp(t[i], ")"))
            i++;
    for (; i < n; i++)
        for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
            if (!strcmp(t[i], ops[k])) {
                op = t[i];
                count++;
            }
    return count == 1 ? op : sa_strdup(a, "");
}

/* The operator is the token between the operands of a binary expression,
 * the first token of a prefix one and the last of a postfix one. */
char *cx_operator(sa_arena *a, CXCursor c, int *postfix)
{
    CXTranslationUnit tu = clang_Cursor_getTranslationUnit(c);
    cx_list k = cx_children(a, c);
    *postfix = 0;
    if (k.n == 2) {
        char *op = token_before(a, tu, k.v[0], k.v[1]);
        return *op ? op : macro_operator(a, tu, c);
    }
    if (k.n != 1)
        return sa_strdup(a, "");
    CXSourceLocation lc = place(tu, clang_getRangeStart(clang_getCursorExtent(c)), 1);
    CXSourceLocation lk = place(tu, clang_getRangeStart(clang_getCursorExtent(k.v[0])), 1);
    unsigned oc, ok, n;
    clang_getFileLocation(lc, NULL, NULL, NULL, &oc);
    clang_getFileLocation(lk, NULL, NULL, NULL, &ok);
    if (oc == ok) { /* x++: the last token */
        *postfix = 1;
        char **t = tokens_in(a, tu, clang_getCursorExtent(c), &n);
        return n ? t[n - 1] : sa_strdup(a, "");
    }
    char **t = tokens_in(a, tu, clang_getRange(lc, lk), &n);
    return n ? t[0] : sa_strdup(a, "");
}

CXCursor cx_strip(CXCursor c)
{
    for (;;) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr && k != CXCursor_CStyleCastExpr)
            return c;
        CXCursor only = clang_getNullCursor();
        int n = 0;
        sa_arena *a = sa_arena_new();
        cx_list l = cx_children(a, c);
        for (size_t i = 0; i < l.n; i++)
            if (clang_isExpression(clang_getCursorKind(l.v[i]))) {
                only = l.v[i];
                n++;
            }
        sa_arena_free(a);
        if (n != 1)
            return c;
        c = only;
    }
}

int cx_int_const(CXCursor c, long long *v)
{
    if (!clang_isExpression(clang_getCursorKind(c)) || !cx_is_integer(clang_getCursorType(c)))
        return 0;
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (!r)
        return 0;
    int ok = clang_EvalResult_getKind(r) == CXEval_Int;
    if (ok)
        *v = clang_EvalResult_getAsLongLong(r);
    clang_EvalResult_dispose(r);
    return ok;
}

int cx_same(CXCursor x, CXCursor y)
{
    x = cx_strip(x);
    y = cx_strip(y);
    enum CXCursorKind k = clang_getCursorKind(x);
    long long vx, vy;
    if (cx_int_const(x, &vx) || cx_int_const(y, &vy))
        return cx_int_const(x, &vx) && cx_int_const(y, &vy) && vx == vy;
    if (k != clang_getCursorKind(y))
        return 0;
    if (k == CXCursor_DeclRefExpr)
        return clang_equalCursors(clang_getCursorReferenced(x), clang_getCursorReferenced(y));
    sa_arena *a = sa_arena_new();
    cx_list kx = cx_children(a, x), ky = cx_children(a, y);
    int postfix, same = kx.n == ky.n && (k != CXCursor_BinaryOperator && k != CXCursor_UnaryOperator
                                              ? 1
                                              : !strcmp(cx_operator(a, x, &postfix), cx_operator(a, y, &postfix)));
    for (size_t i = 0; same && i < kx.n; i++)
        same = cx_same(kx.v[i], ky.v[i]);
    sa_arena_free(a);
    return same;
}

int cx_is_integer(CXType t)
{
    t = clang_getCanonicalType(t);
    return (t.kind >= CXType_Bool && t.kind <= CXType_Int128) || t.kind == CXType_Enum;
}

int cx_is_floating(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind == CXType_Float || t.kind == CXType_Double || t.kind == CXType_LongDouble ||
           t.kind == CXType_Float128 || t.kind == CXType_Half || t.kind == CXType_Float16;
}
