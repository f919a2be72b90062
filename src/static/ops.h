/* ops.h — source-level operations of a statement (ops.c). */
#ifndef AUGUR_STATIC_OPS_H
#define AUGUR_STATIC_OPS_H

#include "static/cx.h"
#include "static/model.h"

/* The operations of one execution of stmt (an expression, a declaration
 * with a value, a return) into ops, and the calls it makes appended to
 * *calls (CallExpr cursors).  Nested statements are not entered: stmt is a
 * leaf of the walk. */
void sa_stmt_ops(sa_arena *a, CXCursor stmt, int64_t ops[OP_N], cx_list *calls);

#endif
