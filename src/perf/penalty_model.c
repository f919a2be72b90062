/* penalty_model.c — costs that stop a loop's work instead of overlapping
 * with it: the kernel's page faults on first touches of 4 KiB pages and
 * branch mispredictions, each of which costs the front end's refill plus
 * the time its branch waits for its condition, less the queued work the
 * core keeps doing meanwhile (docs/performance-model.md, "Penalties"). */
#include "perf/perf.h"

#include <math.h>
#include <stdlib.h>

#include "perf/core_parts.h"

double perf_fault_cycles(const machine *m, double faults)
{
    return faults * m->page_fault_ns * m->clock_ghz;
}

double perf_branch_mispredicts(double executions, double taken, int predictable)
{
    if (predictable || executions <= 0)
        return 0;
    double t = taken < 0 ? 0 : taken > executions ? executions : taken;
    return t < executions - t ? t : executions - t;
}

void perf_loop_add_penalties(const machine *m, double fault_cycles, double mispredict_cycles, perf_loop_time *t)
{
    double rest = t->cycles;
    t->fault_cycles = fault_cycles;
    t->mispredict_cycles = mispredict_cycles;
    t->cycles = rest + fault_cycles + mispredict_cycles;
    t->seconds = t->cycles / (m->clock_ghz * 1e9);
    if (fault_cycles > rest && fault_cycles >= mispredict_cycles)
        t->bound = PERF_TIME_PAGE_FAULTS;
    else if (mispredict_cycles > rest && mispredict_cycles > fault_cycles)
        t->bound = PERF_TIME_MISPREDICTS;
}

/* The cycles instruction `in` takes once every input is ready: its
 * class's latency, plus the load latency when it reads memory. */
static double own_latency(const machine *m, const st_insn *in)
{
    double lat = perf_class_latency(m, in);
    return in->nloads > 0 ? lat + m->cls[MACHINE_CLASS_LOAD].latency : lat;
}

int perf_resolution_times(const machine *m, const perf_body *b, double *ready)
{
    perf_plain_graph g = {0};
    uint32_t n = b->f->ninsns;
    double *done = malloc((n ? n : 1) * sizeof *done);
    int rc = done && perf_plain_build(b, &g) == 0 ? 0 : -1;
    for (uint32_t v = 0; rc == 0 && v < n; v++)
        ready[v] = 0, done[v] = own_latency(m, &b->f->insns[v]);
    /* In Kahn's order every edge into a node comes from one already done;
     * an input entering through a data register waits for its producer
     * while the instruction's own load, if any, proceeds (perf_latency_in) */
    for (uint32_t q = 0; rc == 0 && q < g.norder; q++) {
        uint32_t u = g.order[q];
        for (uint32_t e = g.first[u]; e < g.first[u + 1]; e++) {
            const st_dep *d = g.edge[e];
            double via = done[u] + perf_latency_in(m, &b->f->insns[d->use], d->reg);
            if (via > done[d->use])
                done[d->use] = via;
            if (done[u] > ready[d->use])
                ready[d->use] = done[u];
        }
    }
    perf_plain_free(&g);
    free(done);
    return rc;
}

/* Whether every port of class c is as busy as the loop's busiest (within
 * 1%): an instruction of c waits behind the queued work, having no other
 * port to go to. */
static int class_saturated(const machine *m, const perf_core *core, const machine_class *c)
{
    int any = 0;
    for (uint32_t k = 0; k < c->nports && k < MACHINE_MAX_PORTS; k++) {
        uint32_t p = c->ports[k];
        if (p >= MACHINE_MAX_PORTS || p >= m->nports || core->port_cycles[p] < 0.99 * core->resource)
            return 0;
        any = 1;
    }
    return any;
}

/* Whether instruction `in` runs on saturated ports only (its load's ports
 * count when it reads memory). */
static int insn_saturated(const machine *m, const perf_core *core, const st_insn *in)
{
    if (in->nloads > 0 && class_saturated(m, core, &m->cls[MACHINE_CLASS_LOAD]))
        return 1;
    return in->cls != ST_CLASS_LOAD_STORE && in->cls < ST_CLASS_COUNT && class_saturated(m, core, &m->cls[in->cls]);
}

int perf_saturated_paths(const machine *m, const perf_body *b, const perf_core *core, uint8_t *through)
{
    perf_plain_graph g = {0};
    uint32_t n = b->f->ninsns;
    int ports = core->bound == PERF_BOUND_PORTS && core->resource > 0;
    for (uint32_t v = 0; v < n; v++)
        through[v] = ports && insn_saturated(m, core, &b->f->insns[v]);
    if (!ports)
        return 0;
    int rc = perf_plain_build(b, &g) == 0 ? 0 : -1;
    /* Kahn's order: every input of an instruction is settled before it */
    for (uint32_t q = 0; rc == 0 && q < g.norder; q++) {
        uint32_t u = g.order[q];
        for (uint32_t e = g.first[u]; e < g.first[u + 1]; e++)
            through[g.edge[e]->use] |= through[u];
    }
    perf_plain_free(&g);
    return rc;
}

double perf_mispredict_cycles(const machine *m, double resolution)
{
    return m->branch_mispredict_cycles + (resolution > 0 ? resolution : 0);
}

/* E[max(0, penalty - min(k slack, cap))] for k geometric on 1, 2, ... with
 * P(k) = rate q^(k-1), q = 1 - rate, 0 < rate < 1, slack > 0.  With
 * reach = min(penalty, cap) and K = ceil(reach / slack) - 1 the last k that
 * hides less than reach, in closed form:
 *     sum_{k<=K} rate q^(k-1) (penalty - k slack)
 *       = penalty (1 - q^K) - slack (1 - (K+1) q^K + K q^(K+1)) / rate
 * plus q^K (penalty - reach) for the k past the cap, each hiding cap. */
static double geometric_exposed(double penalty, double slack, double rate, double cap)
{
    double q = 1 - rate, reach = penalty < cap ? penalty : cap;
    double K = ceil(reach / slack) - 1, qK = pow(q, K);
    double sum = penalty * (1 - qK) - slack * (1 - (K + 1) * qK + K * qK * q) / rate + qK * (penalty - reach);
    return sum > 0 ? sum : 0;
}

double perf_mispredict_exposed(const machine *m, const perf_core *core, double rate, double penalty)
{
    double slack = core->cycles - core->issue;
    if (!(penalty > 0))
        return 0;
    if (!(slack > 0) || !(rate > 0))
        return penalty;
    /* a full window (reorder_buffer uops) drains in that many iterations' cycles */
    double cap = m->reorder_buffer > 0 && core->uops > 0 ? m->reorder_buffer / core->uops * core->cycles : penalty;
    if (rate >= 1) {
        double hidden = slack / rate < cap ? slack / rate : cap;
        return penalty > hidden ? penalty - hidden : 0;
    }
    return geometric_exposed(penalty, slack, rate, cap);
}
