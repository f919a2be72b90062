/* callgrind_internal.h — the call graph that callgraph.c builds and
 * callgrind_write.c writes (callgrind.h); nothing else sees it. */
#ifndef AUGUR_CALLGRIND_INTERNAL_H
#define AUGUR_CALLGRIND_INTERNAL_H

#include "report/callgrind.h"

#define CG_NONE ((size_t)-1)

/* Calls from one source line of a function to another function. */
typedef struct cg_call {
    size_t caller, callee; /* function rows */
    char *file;            /* the call site, NULL: unknown */
    uint32_t line;
    double calls;
} cg_call;

struct cg_graph {
    const report *r;
    size_t nev;
    char name[CG_MAX_EVENTS][CG_EVENT_NAME];
    char *desc[CG_MAX_EVENTS];
    int by_instructions[CG_MAX_EVENTS]; /* lines get the function's value by their instructions */
    double total[CG_MAX_EVENTS]; /* the program's */
    double *fn_cost;   /* [f * CG_MAX_EVENTS + e]: function row f */
    double *line_cost; /* [k * CG_MAX_EVENTS + e]: line row k */
    size_t *line_fn;   /* the function row of line row k, CG_NONE when it has none */
    size_t *by_name;   /* function rows ordered by (name, module), for lookups */
    size_t ncalls, cap_calls;
    cg_call *calls;
};

#endif
