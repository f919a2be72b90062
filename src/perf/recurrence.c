/* recurrence.c — the recurrence bound of the core model: the slowest
 * chain of latencies that feeds one iteration of a loop into the next
 * (docs/performance-model.md, "Core", "Recurrence bound").
 *
 * The dependence graph of the body has plain edges (within an iteration,
 * acyclic) and carried edges (around the loop's back edge).  Its cycles
 * each pass through k >= 1 carried edges and take k iterations, so the
 * bound is the maximum cycle ratio  sum(latencies) / k.  It is computed
 * exactly on a reduced graph whose nodes are the carried edges: an edge
 * i -> j, when carried edge i's use reaches carried edge j's def by plain
 * edges (carried edges are register dependences around the back edge and
 * stores read back by the next iteration's loads, mem_deps.c), weighs the latency from i's use along the longest such path to
 * j's def (inclusive).  A cycle of the reduced graph with k edges is a
 * cycle of the body with k carried edges and the same latency, so the
 * bound is its maximum mean cycle, found by Karp's algorithm.  A chain the
 * parent loop carries through the body's memory spans the loop's
 * iterations per parent iteration, and counts over them. */
#include "perf/core_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double perf_latency_in(const machine *m, const st_insn *in, unsigned reg)
{
    double lat = perf_class_latency(m, in);
    for (unsigned k = 0; k < in->nmem && k < ST_MAX_MEMOPS; k++) {
        const st_memop *mo = &in->mem[k];
        if ((mo->access & ST_MEM_READ) && (mo->base == reg || mo->index == reg))
            return lat + m->cls[MACHINE_CLASS_LOAD].latency;
    }
    return lat;
}

static int in_body(const perf_body *b, uint32_t i) { return i < b->f->ninsns && b->weight[i] > 0; }

int perf_plain_build(const perf_body *b, perf_plain_graph *g)
{
    uint32_t n = b->f->ninsns;
    const st_dataflow *df = b->df;
    uint32_t *indeg = calloc(n + 1, sizeof *indeg), *fill = calloc(n + 1, sizeof *fill);
    g->first = calloc(n + 1, sizeof *g->first);
    g->edge = malloc((df->ndeps ? df->ndeps : 1) * sizeof *g->edge);
    g->order = malloc((n ? n : 1) * sizeof *g->order);
    g->norder = 0;
    int rc = (indeg && fill && g->first && g->edge && g->order) ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < df->ndeps; k++)
        if (!df->deps[k].carried && in_body(b, df->deps[k].def) && in_body(b, df->deps[k].use))
            g->first[df->deps[k].def + 1]++, indeg[df->deps[k].use]++;
    for (uint32_t v = 0; rc == 0 && v < n; v++)
        g->first[v + 1] += g->first[v], fill[v] = g->first[v];
    for (size_t k = 0; rc == 0 && k < df->ndeps; k++)
        if (!df->deps[k].carried && in_body(b, df->deps[k].def) && in_body(b, df->deps[k].use))
            g->edge[fill[df->deps[k].def]++] = &df->deps[k];
    /* Kahn's algorithm: order doubles as the queue. */
    for (uint32_t v = 0; rc == 0 && v < n; v++)
        if (in_body(b, v) && indeg[v] == 0)
            g->order[g->norder++] = v;
    for (uint32_t q = 0; rc == 0 && q < g->norder; q++)
        for (uint32_t e = g->first[g->order[q]]; e < g->first[g->order[q] + 1]; e++)
            if (--indeg[g->edge[e]->use] == 0)
                g->order[g->norder++] = g->edge[e]->use;
    free(indeg);
    free(fill);
    return rc;
}

void perf_plain_free(perf_plain_graph *g)
{
    free(g->first);
    free(g->edge);
    free(g->order);
}

/* dist[v]: the longest latency from leaving node `from` to the output of
 * v along plain edges (0 at `from`, -INFINITY where unreachable). */
static void longest_from(const machine *m, const perf_body *b, const perf_plain_graph *g, uint32_t from, double *dist)
{
    for (uint32_t v = 0; v < b->f->ninsns; v++)
        dist[v] = -INFINITY;
    dist[from] = 0;
    for (uint32_t q = 0; q < g->norder; q++) {
        uint32_t v = g->order[q];
        if (dist[v] == -INFINITY)
            continue;
        for (uint32_t e = g->first[v]; e < g->first[v + 1]; e++) {
            const st_dep *d = g->edge[e];
            double via = dist[v] + perf_latency_in(m, &b->f->insns[d->use], d->reg);
            if (via > dist[d->use])
                dist[d->use] = via;
        }
    }
}

/* The maximum mean cycle of the complete k-node graph with weights w
 * (row-major, -INFINITY for no edge), 0 without cycles: Karp's formula
 *     max_v min_{j<k} (D_k(v) - D_j(v)) / (k - j),
 * D_j(v) the heaviest walk of j edges ending at v (D_0 = 0 everywhere).
 * Returns 0, or -1 (memory). */
static int max_mean_cycle(const double *w, size_t k, double *out)
{
    double *D = malloc((k + 1) * k * sizeof *D);
    if (!D)
        return -1;
    for (size_t v = 0; v < k; v++)
        D[v] = 0;
    for (size_t j = 1; j <= k; j++)
        for (size_t v = 0; v < k; v++) {
            double best = -INFINITY;
            for (size_t u = 0; u < k; u++)
                if (w[u * k + v] > -INFINITY && D[(j - 1) * k + u] > -INFINITY &&
                    D[(j - 1) * k + u] + w[u * k + v] > best)
                    best = D[(j - 1) * k + u] + w[u * k + v];
            D[j * k + v] = best;
        }
    *out = 0;
    for (size_t v = 0; v < k; v++) {
        if (D[k * k + v] == -INFINITY)
            continue;
        double worst = INFINITY;
        for (size_t j = 0; j < k; j++)
            if (D[j * k + v] > -INFINITY && (D[k * k + v] - D[j * k + v]) / (double)(k - j) < worst)
                worst = (D[k * k + v] - D[j * k + v]) / (double)(k - j);
        if (worst > *out)
            *out = worst;
    }
    free(D);
    return 0;
}

/* The latency a load adds to a chain that reaches it through memory: the
 * store's data forwarded to it, then its class's latency for a load-op. */
static double forwarded(const machine *m, const st_insn *load)
{
    return m->store_forward_cycles + perf_class_latency(m, load);
}

/* An edge carried by the loop: `use` in the next iteration takes what
 * `def` produced, and adds `enter` cycles to the chain. */
typedef struct carried_edge {
    uint32_t def, use;
    double enter;
} carried_edge;

/* The edges b's loop carries, into a new array: its register dependences
 * between body instructions (the use adds its latency through that
 * register) and its dependences through memory (the load's result comes
 * store_forward_cycles after the store's data, then its class's latency
 * for a load-op).  Returns 0 or -1 (memory). */
static int carried_edges(const machine *m, const perf_body *b, carried_edge **out, size_t *n)
{
    perf_mem_dep *md = NULL;
    size_t nmd = 0;
    *n = 0;
    if (perf_memory_deps(b, &md, &nmd) != 0 || !(*out = malloc((b->df->ndeps + nmd + 1) * sizeof **out))) {
        free(md);
        return -1;
    }
    for (size_t k = 0; k < b->df->ndeps; k++) {
        const st_dep *d = &b->df->deps[k];
        if (d->carried && d->loop == b->loop && in_body(b, d->def) && in_body(b, d->use))
            (*out)[(*n)++] = (carried_edge){d->def, d->use, perf_latency_in(m, &b->f->insns[d->use], d->reg)};
    }
    for (size_t k = 0; k < nmd; k++)
        (*out)[(*n)++] = (carried_edge){md[k].store, md[k].load, forwarded(m, &b->f->insns[md[k].load])};
    free(md);
    return 0;
}

/* The slowest chain b's parent loop carries through b's memory, in cycles
 * per iteration of b: for each store and earlier load of one address that
 * the parent's next iteration reads again (perf_outer_memory_deps), the
 * forwarding into the load plus the longest plain path from the load to
 * the store, over b->parent_span (the chains of the span's iterations run
 * side by side).  Cycles through other carried edges as well are not
 * followed.  0 when there is none or the span is unknown.  Returns 0 or
 * -1 (memory). */
static int parent_chains(const machine *m, const perf_body *b, const perf_plain_graph *g, double *out)
{
    perf_mem_dep *md = NULL;
    size_t nmd = 0;
    *out = 0;
    if (!(b->parent_span > 0))
        return 0;
    double *dist = malloc((b->f->ninsns ? b->f->ninsns : 1) * sizeof *dist);
    int rc = dist && perf_outer_memory_deps(b, &md, &nmd) == 0 ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < nmd; k++) {
        longest_from(m, b, g, md[k].load, dist);
        double chain = forwarded(m, &b->f->insns[md[k].load]) + dist[md[k].store];
        if (dist[md[k].store] > -INFINITY && chain / b->parent_span > *out)
            *out = chain / b->parent_span;
    }
    free(md);
    free(dist);
    return rc;
}

/* The reduced graph's weights (k x k) from the carried edges c and the
 * plain graph g.  Returns 0 or -1 (memory). */
static int reduced_weights(const machine *m, const perf_body *b, const perf_plain_graph *g, const carried_edge *c,
                           size_t k, double *w)
{
    double *dist = malloc((b->f->ninsns ? b->f->ninsns : 1) * sizeof *dist);
    if (!dist)
        return -1;
    for (size_t i = 0; i < k; i++) {
        longest_from(m, b, g, c[i].use, dist);
        for (size_t j = 0; j < k; j++)
            w[i * k + j] = dist[c[j].def] == -INFINITY ? -INFINITY : c[i].enter + dist[c[j].def];
    }
    free(dist);
    return 0;
}

/* Carried dependences above which the reduced graph (k^2 weights, k^3
 * steps of Karp) is not built: a giant body such as an interpreter's
 * dispatch loop can carry tens of thousands. */
#define KARP_MAX 512

/* The bound from one-instruction cycles alone (def == use, as in
 * `addsd xmm0, ...` accumulating): a lower bound, for bodies over KARP_MAX. */
static double self_cycles(const carried_edge *c, size_t k)
{
    double best = 0;
    for (size_t i = 0; i < k; i++)
        if (c[i].def == c[i].use && c[i].enter > best)
            best = c[i].enter;
    return best;
}

int perf_recurrence(const machine *m, const perf_body *b, double *out, char *err, size_t errlen)
{
    perf_plain_graph g = {0};
    carried_edge *c = NULL;
    double *w = NULL;
    size_t k = 0;
    *out = 0;
    double parent = 0;
    int rc = carried_edges(m, b, &c, &k);
    int karp = rc == 0 && k > 0 && k <= KARP_MAX;
    if (rc == 0 && k > KARP_MAX)
        *out = self_cycles(c, k);
    if (rc == 0 && (karp || b->parent_span > 0))
        rc = perf_plain_build(b, &g);
    if (rc == 0 && karp && !(w = malloc(k * k * sizeof *w)))
        rc = -1;
    if (rc == 0 && karp)
        rc = reduced_weights(m, b, &g, c, k, w);
    if (rc == 0 && karp)
        rc = max_mean_cycle(w, k, out);
    if (rc == 0)
        rc = parent_chains(m, b, &g, &parent);
    if (parent > *out)
        *out = parent;
    if (rc != 0)
        snprintf(err, errlen, "out of memory computing the recurrence bound of %s", b->f->name);
    perf_plain_free(&g);
    free(w);
    free(c);
    return rc;
}
