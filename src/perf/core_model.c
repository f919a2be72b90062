/* core_model.c — cycles per iteration of a loop body on a described core:
 * the issue, resource (port) and recurrence bounds and their maximum
 * (core_model.h; formulas in docs/performance-model.md, "Core").  The
 * port spreading is in port_bound.c, the recurrence in recurrence.c;
 * this file counts each instruction's uops and port work. */
#include "perf/core_model.h"

#include <stdio.h>
#include <string.h>

#include "perf/core_parts.h"

const char *perf_core_bound_name(enum perf_core_bound b)
{
    switch (b) {
    case PERF_BOUND_ISSUE: return "issue";
    case PERF_BOUND_PORTS: return "ports";
    case PERF_BOUND_RECURRENCE: return "recurrence";
    }
    return "?";
}

/* How many times a compute op of `width` bits runs on its unit:
 * ceil(width / bits), at least 1, where bits is the class's own
 * vector_bits if it has one (a divider narrower than the datapath),
 * else the core's. */
static double vector_factor(const machine *m, const st_insn *in)
{
    uint32_t bits = m->vector_bits;
    if (in->cls < ST_CLASS_COUNT && m->cls[in->cls].vector_bits)
        bits = m->cls[in->cls].vector_bits;
    if (bits == 0 || in->width <= bits)
        return 1;
    return (double)((in->width + bits - 1) / bits);
}

/* The port mask of class c. */
static uint32_t class_ports(const machine_class *c)
{
    uint32_t mask = 0;
    for (uint32_t k = 0; k < c->nports && k < MACHINE_MAX_PORTS; k++)
        if (c->ports[k] < 32)
            mask |= (uint32_t)1 << c->ports[k];
    return mask;
}

/* Per-class totals of a body: executions (weighted, vector factor
 * included) of each class of m, and uops. */
typedef struct class_counts {
    double n[MACHINE_NCLASSES];
    double uops;
} class_counts;

static void count_classes(const machine *m, const perf_body *b, class_counts *cc)
{
    memset(cc, 0, sizeof *cc);
    for (uint32_t i = 0; i < b->f->ninsns; i++) {
        const st_insn *in = &b->f->insns[i];
        double w = b->weight[i];
        if (!(w > 0))
            continue;
        if (in->cls != ST_CLASS_LOAD_STORE && in->cls < ST_CLASS_COUNT)
            cc->n[in->cls] += w * vector_factor(m, in);
        cc->n[MACHINE_CLASS_LOAD] += w * in->nloads;
        cc->n[MACHINE_CLASS_STORE] += w * in->nstores;
    }
    for (int c = 0; c < MACHINE_NCLASSES; c++)
        cc->uops += cc->n[c] * m->cls[c].uops;
}

/* The resource bound and port cycles from the class counts: each
 * execution of class c occupies its ports for rthroughput * nports
 * cycles in all.  Returns 0, or -1 (memory). */
static int ports_bound(const machine *m, const class_counts *cc, perf_core *out)
{
    perf_port_work work[MACHINE_NCLASSES];
    for (int c = 0; c < MACHINE_NCLASSES; c++)
        work[c] = (perf_port_work){.ports = class_ports(&m->cls[c]),
                                   .cycles = cc->n[c] * m->cls[c].rthroughput * m->cls[c].nports};
    uint32_t nports = m->nports < MACHINE_MAX_PORTS ? m->nports : MACHINE_MAX_PORTS;
    return perf_port_bound(work, MACHINE_NCLASSES, nports, &out->resource, out->port_cycles, &out->busiest_port);
}

/* The body's problems, or 0 when it can be timed. */
static int check_body(const machine *m, const perf_body *b, char *err, size_t errlen)
{
    if (!b || !b->f || !b->df || !b->weight) {
        snprintf(err, errlen, "no loop body given (function, dataflow and weights are all needed)");
        return -1;
    }
    if (b->loop < 0 || (uint32_t)b->loop >= b->f->nloops) {
        snprintf(err, errlen, "%s: loop %d does not exist (the function has %u loops)", b->f->name, b->loop,
                 b->f->nloops);
        return -1;
    }
    if (m->issue_width == 0) {
        snprintf(err, errlen, "machine %s: issue width 0 (give core.issue_width in the description)", m->name);
        return -1;
    }
    return 0;
}

int perf_core_loop(const machine *m, const perf_body *b, perf_core *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_body(m, b, err, errlen))
        return -1;
    class_counts cc;
    count_classes(m, b, &cc);
    out->uops = cc.uops;
    /* a thread that shares its core gets that share of the issue width
     * and of every port; latencies, and so recurrences, stay */
    double share = m->throughput_share > 0 && m->throughput_share < 1 ? m->throughput_share : 1;
    out->issue = cc.uops / m->issue_width / share;
    if (ports_bound(m, &cc, out)) {
        snprintf(err, errlen, "out of memory computing the port bound of %s", b->f->name);
        return -1;
    }
    out->resource /= share;
    for (uint32_t p = 0; p < m->nports && p < MACHINE_MAX_PORTS; p++)
        out->port_cycles[p] /= share;
    if (perf_recurrence(m, b, &out->recurrence, err, errlen))
        return -1;
    /* Ties go to the first of issue, ports, recurrence. */
    out->cycles = out->issue;
    out->bound = PERF_BOUND_ISSUE;
    if (out->resource > out->cycles)
        out->cycles = out->resource, out->bound = PERF_BOUND_PORTS;
    if (out->recurrence > out->cycles)
        out->cycles = out->recurrence, out->bound = PERF_BOUND_RECURRENCE;
    return 0;
}
