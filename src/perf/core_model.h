/* core_model.h — cycles per iteration of a loop body on a described core
 * (docs/performance-model.md, "Core"): an instruction schedule of the body
 * with every memory access an L1 hit, bounded three ways:
 *
 *   issue       uops of the body / issue width
 *   resource    the busiest port, with the body's instructions spread over
 *               the ports their classes allow so that the busiest is as
 *               idle as possible
 *   recurrence  the longest chain of latencies around the loop's back edge
 *               (loop-carried register dependences of dataflow.c, and
 *               values kept in memory: mem_deps.c), per iteration; and a
 *               chain the parent loop carries through this loop's memory,
 *               over this loop's iterations per parent iteration
 *
 * issue and resource divided by the machine's throughput_share (the part
 * of the core one hardware thread gets; 1 when not described);
 * cycles = max(issue, resource, recurrence); `bound` names the largest. */
#ifndef AUGUR_CORE_MODEL_H
#define AUGUR_CORE_MODEL_H

#include "machine/machine.h"
#include "structure/structure.h"

enum perf_core_bound { PERF_BOUND_ISSUE, PERF_BOUND_PORTS, PERF_BOUND_RECURRENCE };

/* A loop body: the instructions of function f executed per iteration of
 * loop `loop` (an index into f->loops).  weight[i], for every instruction
 * i of f, is how often instruction i runs per execution of the loop's
 * header: 1 for straight-line body code, the branch probability on a
 * conditional path, 0 outside the body.  Instructions of inner loops are
 * given weight 0 by the caller when the inner loops are timed on their
 * own. */
typedef struct perf_body {
    const st_function *f;
    const st_dataflow *df;
    int loop;
    const double *weight;
    /* Iterations (header executions) of this loop per iteration of its
     * parent loop, when known (0: not known).  A value the loop stores and
     * loads back one parent iteration later at the same address is a
     * chain spanning that many of this loop's iterations. */
    double parent_span;
} perf_body;

typedef struct perf_core {
    double uops;                           /* per iteration */
    double issue, resource, recurrence;    /* the three bounds, cycles */
    double cycles;                         /* their maximum */
    enum perf_core_bound bound;
    uint32_t busiest_port;                 /* index into m->port_names */
    double port_cycles[MACHINE_MAX_PORTS]; /* busy cycles per port per iteration */
} perf_core;

/* The three bounds of body b on m's core.  0, or -1 with a message when the
 * body is malformed (loop index out of range, no weights). */
int perf_core_loop(const machine *m, const perf_body *b, perf_core *out, char *err, size_t errlen);

/* Static weights for loop `loop` of f, when no profile gives better ones:
 * 1 for every instruction of a block whose innermost loop is `loop`, 0
 * elsewhere (inner loops are timed on their own).  Every path through the
 * body counts in full, so a body with conditional code is over-counted.
 * weight has f->ninsns entries. */
void perf_body_weights(const st_function *f, int loop, double *weight);

/* The core model of one loop of a module, with static weights. */
typedef struct perf_loop_core {
    uint32_t function, loop;  /* indices into the module's functions and
                                 that function's loops */
    uint32_t scope;           /* the loop's scope in the module */
    uint32_t ninsns;          /* instructions of the body (weight > 0) */
    uint64_t first, end;      /* the body's lowest address and the end of
                                 its highest instruction */
    int innermost;            /* 1 when no loop nests inside */
    perf_core core;
} perf_loop_core;

/* perf_core_loop for every loop of every function of mod, in function
 * then loop order, into a new array *out of *n (free it).  Returns 0, or
 * -1 with a message. */
int perf_core_module(const machine *m, const st_module *mod, perf_loop_core **out, size_t *n, char *err,
                     size_t errlen);

/* "issue", "ports", "recurrence". */
const char *perf_core_bound_name(enum perf_core_bound b);

#endif
