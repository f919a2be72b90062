/* cx.h — the few things src/static asks of libclang's C API beyond what it
 * offers directly: a cursor's children as an array, its line, the operator
 * of a unary or binary expression (libclang 14 has no call for it: read
 * from the pretty-printed expression), constants, and types. */
#ifndef AUGUR_STATIC_CX_H
#define AUGUR_STATIC_CX_H

#include <clang-c/Index.h>
#include <stddef.h>

#include "static/sa.h"

typedef struct cx_list {
    size_t n;
    CXCursor *v;
} cx_list;

/* The direct children of c, in source order. */
cx_list cx_children(sa_arena *a, CXCursor c);
/* Line of c's start, and of its end (expansion locations). */
int cx_line(CXCursor c);
int cx_end_line(CXCursor c);
/* c's tokens as written, for messages (a macro's call, not its expansion). */
char *cx_text(sa_arena *a, CXCursor c);
/* Are x and y the same expression (same operators, variables, constants)? */
int cx_same(CXCursor x, CXCursor y);
/* The operator of a BinaryOperator or CompoundAssignOperator ("<", "+=")
 * or of a UnaryOperator ("++", "-", "*", "&"; *postfix set for x++). */
char *cx_operator(sa_arena *a, CXCursor c, int *postfix);
/* c without the parentheses and implicit conversions around it. */
CXCursor cx_strip(CXCursor c);
/* Is c an integer constant expression?  Its value into *v. */
int cx_int_const(CXCursor c, long long *v);
/* Kinds of c's type. */
int cx_is_integer(CXType t);
int cx_is_floating(CXType t);
/* c's spelling (a name). */
char *cx_spelling(sa_arena *a, CXCursor c);

#endif
