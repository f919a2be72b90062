/* core_parts.h — the pieces of the core model (core_model.c) that have a
 * job of their own: the optimal spreading of work over ports
 * (port_bound.c) and the recurrence bound of a loop's carried
 * dependences (recurrence.c).  Private to src/perf; the formulas are in
 * docs/performance-model.md, "Core". */
#ifndef AUGUR_CORE_PARTS_H
#define AUGUR_CORE_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "perf/core_model.h"

/* Work that may run on any port of a set: `cycles` of port occupancy
 * per iteration, `ports` a bit mask (bit p for port p). */
typedef struct perf_port_work {
    uint32_t ports;
    double cycles;
} perf_port_work;

/* The smallest possible busy time of the busiest port when work[0..n)
 * is split fractionally over the ports each item allows:
 *     max over port sets S of  W(S) / |S|,
 * W(S) the work whose allowed ports all lie in S.  Writes it to *bound,
 * and to port_cycles[0..nports) the busy cycles of each port in one
 * assignment that reaches it (the most balanced one: the tightest port
 * set at the bound, then the rest of the work balanced on the remaining
 * ports the same way).  *busiest is the lowest-numbered port at the
 * bound (0 when there is no work).  Items with no ports or no cycles
 * are ignored.  Returns 0, or -1 when memory runs out. */
int perf_port_bound(const perf_port_work *work, size_t n, uint32_t nports, double *bound, double *port_cycles,
                    uint32_t *busiest);

/* The latency of instruction `in`'s class on m (0 for an unclassified one). */
static inline double perf_class_latency(const machine *m, const st_insn *in)
{
    return in->cls < ST_CLASS_COUNT ? m->cls[in->cls].latency : 0;
}

/* Cycles that instruction `in` adds to a dependence chain entering it
 * through register `reg`: its class's latency, plus the load latency
 * when `reg` forms the address of a memory operand it reads. */
double perf_latency_in(const machine *m, const st_insn *in, unsigned reg);

/* The plain (within-iteration) dependence graph of a body, the
 * dependences between its instructions (weight > 0) that no back edge
 * carries, in compressed rows: edges from node v are edge[first[v] ..
 * first[v+1]), and the nodes in a topological order (those on a cycle,
 * which irreducible control flow could make, are left out of it). */
typedef struct perf_plain_graph {
    uint32_t *first; /* ninsns + 1 */
    const st_dep **edge;
    uint32_t *order, norder;
} perf_plain_graph;

/* Fill g from b's plain dependences (recurrence.c).  Returns 0, or -1
 * when memory runs out; free with perf_plain_free either way. */
int perf_plain_build(const perf_body *b, perf_plain_graph *g);
void perf_plain_free(perf_plain_graph *g);

/* A dependence carried through memory by a loop: instruction `load`
 * reads, one iteration later, the bytes instruction `store` wrote
 * (indices into the function's insns). */
typedef struct perf_mem_dep {
    uint32_t store, load;
} perf_mem_dep;

/* The dependences b's loop carries through memory (mem_deps.c): pairs of a
 * store and a load of the body (weight > 0) whose addresses are affine in
 * the loop over the same registers and a constant apart, the load
 * reaching the store's bytes of the iteration before.  A new array *out
 * of *n (free it; NULL when none).  Returns 0, or -1 (memory). */
int perf_memory_deps(const perf_body *b, perf_mem_dep **out, size_t *n);

/* The dependences b's parent loop carries through b's body's memory: a
 * store and an earlier load of the body (weight > 0) at one address
 * formula that moves with b's loop (a known stride, not 0) and not with
 * its parent (stride 0), so the load reads at parent iteration t + 1 what
 * the store wrote at t, at the same iteration of b's loop.  As
 * perf_memory_deps. */
int perf_outer_memory_deps(const perf_body *b, perf_mem_dep **out, size_t *n);

/* The recurrence bound of body b: the largest, over the cycles of the
 * dependence graph of the body's instructions (weight > 0) that pass
 * through dependences carried by b's loop (in registers, or in memory at
 * the machine's store_forward_cycles: perf_memory_deps), of
 *     (sum of the latencies on the cycle) / (carried dependences on it),
 * 0 when there is no such cycle; and, when b->parent_span is known, of
 * each chain through one dependence its parent carries
 * (perf_outer_memory_deps): its latency over parent_span.  Above 512 carried dependences only
 * one-instruction cycles are counted (a lower bound).  Returns 0, or -1
 * with a message when memory runs out. */
int perf_recurrence(const machine *m, const perf_body *b, double *out, char *err, size_t errlen);

#endif
