/* walk.h — the walk of a translation unit's functions into the program
 * model (walk.c, loop.c). */
#ifndef AUGUR_STATIC_WALK_H
#define AUGUR_STATIC_WALK_H

#include "static/pragma.h"

/* The state of the walk of one function. */
typedef struct sa_walker {
    sa_env env;
    CXTranslationUnit tu;
    sa_func *f;
    sa_pragmas *pragmas;
    size_t next_pragma;  /* the first annotation not yet attached */
    int depth;           /* loops around the statement being walked */
} sa_walker;

/* Add every function defined in tu's main file `file` to p. */
void sa_walk_tu(sa_program *p, CXTranslationUnit tu, const char *file);

/* walk.c: one statement in the frame, inside loop `loop` of the function (-1: none). */
void sa_walk_stmt(sa_walker *w, CXCursor c, sa_frame fr, int loop);
/* The annotations before the statement that starts at `line`, now attached to it. */
sa_pragma *sa_take_pragmas(sa_walker *w, int line, size_t *n);
/* A frame's domains, each with one more weight (num/den times factor f, if f >= 0). */
sa_frame sa_frame_scale(sa_arena *a, sa_frame fr, int64_t num, int64_t den, int f);
/* The frame of one execution outside every loop. */
sa_frame sa_frame_unit(sa_arena *a);

/* loop.c: a for, while or do loop. */
void sa_walk_loop(sa_walker *w, CXCursor c, sa_frame fr, int loop, const sa_pragma *pr, size_t npr);

#endif
