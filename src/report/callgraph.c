/* callgraph.c — the call graph of a report (callgrind.h): its functions
 * with their lines and costs per event, the calls between them, and the
 * inclusive costs of the calls. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "report/callgrind_internal.h"

/* ---- functions and lines ---------------------------------------------------- */

/* qsort_r order of function rows of report r by (name, module). */
static int by_name_cmp(const void *pa, const void *pb, void *r)
{
    const report_function *a = &((const report *)r)->functions[*(const size_t *)pa];
    const report_function *b = &((const report *)r)->functions[*(const size_t *)pb];
    int c = report_cmp_names(a->function, b->function);
    if (!c)
        c = report_cmp_names(a->module, b->module);
    size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
    return c ? c : (x > y) - (x < y);
}

/* The first position in g->by_name whose row's name is not before `name`. */
static size_t first_named(const cg_graph *g, const char *name)
{
    size_t lo = 0, hi = g->r->nfunctions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (report_cmp_names(g->r->functions[g->by_name[mid]].function, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The function row (name, module), or CG_NONE. */
static size_t find_function(const cg_graph *g, const char *name, const char *module)
{
    for (size_t i = first_named(g, name); i < g->r->nfunctions; i++) {
        const report_function *f = &g->r->functions[g->by_name[i]];
        if (report_cmp_names(f->function, name) != 0)
            break;
        if (!report_cmp_names(f->module, module))
            return g->by_name[i];
    }
    return CG_NONE;
}

/* The function row of a line row of function `name`: the only row of that
 * name, or of several (one name in several modules, whose lines the report
 * does not tell apart) the one with the most instructions: the report
 * orders its rows so, and the first of them in report order is taken. */
static size_t function_of_line(const cg_graph *g, const char *name)
{
    size_t best = CG_NONE;
    for (size_t i = first_named(g, name); i < g->r->nfunctions; i++) {
        size_t f = g->by_name[i];
        if (report_cmp_names(g->r->functions[f].function, name) != 0)
            break;
        if (f < best)
            best = f;
    }
    return best;
}

/* The count events of one row: instructions, accesses, misses per cache. */
static void set_counts(double *cost, const report_counts *c, size_t ncaches)
{
    cost[0] = (double)c->instructions;
    cost[1] = (double)(c->reads + c->writes);
    for (size_t k = 0; k < ncaches; k++)
        cost[2 + k] = c->misses[k];
}

/* The count events of every row and of the total. */
static void set_count_events(cg_graph *g)
{
    const report *r = g->r;
    static const char *const names[2] = {"Ir", "Acc"};
    static const char *const descs[2] = {"instructions executed", "memory accesses (reads and writes)"};
    for (int e = 0; e < 2; e++) {
        snprintf(g->name[e], CG_EVENT_NAME, "%s", names[e]);
        g->desc[e] = strdup(descs[e]);
    }
    set_counts(g->total, &r->total, r->ncaches);
    for (size_t f = 0; f < r->nfunctions; f++)
        set_counts(&g->fn_cost[f * CG_MAX_EVENTS], &r->functions[f].c, r->ncaches);
    for (size_t l = 0; l < r->nlines; l++)
        set_counts(&g->line_cost[l * CG_MAX_EVENTS], &r->lines[l].c, r->ncaches);
}

/* The cache events: "M32KiB_64", misses of the cache of label 32KiB:64. */
static int set_cache_events(cg_graph *g)
{
    for (size_t k = 0; k < g->r->ncaches; k++) {
        char label[64], bytes[64], desc[160];
        report_cache_label(&g->r->caches[k], label, sizeof label);
        *strchr(label, ':') = '_';
        snprintf(g->name[2 + k], CG_EVENT_NAME, "M%s", label);
        snprintf(desc, sizeof desc, "misses of a fully-associative LRU cache of %s in %u-byte lines",
                 report_bytes_text(g->r->caches[k].size, bytes, sizeof bytes), g->r->caches[k].line);
        if (!(g->desc[2 + k] = strdup(desc)))
            return -1;
    }
    return 0;
}

cg_graph *cg_new(const report *r)
{
    cg_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->r = r;
    g->nev = 2 + r->ncaches;
    g->fn_cost = calloc((r->nfunctions + 1) * CG_MAX_EVENTS, sizeof *g->fn_cost);
    g->line_cost = calloc((r->nlines + 1) * CG_MAX_EVENTS, sizeof *g->line_cost);
    g->line_fn = malloc((r->nlines + 1) * sizeof *g->line_fn);
    g->by_name = malloc((r->nfunctions + 1) * sizeof *g->by_name);
    if (!g->fn_cost || !g->line_cost || !g->line_fn || !g->by_name || g->nev > CG_MAX_EVENTS) {
        cg_free(g);
        return NULL;
    }
    for (size_t f = 0; f < r->nfunctions; f++)
        g->by_name[f] = f;
    qsort_r(g->by_name, r->nfunctions, sizeof *g->by_name, by_name_cmp, (void *)r);
    for (size_t l = 0; l < r->nlines; l++)
        g->line_fn[l] = function_of_line(g, r->lines[l].function);
    set_count_events(g);
    if (!g->desc[0] || !g->desc[1] || set_cache_events(g) != 0) {
        cg_free(g);
        return NULL;
    }
    return g;
}

void cg_free(cg_graph *g)
{
    if (!g)
        return;
    for (size_t e = 0; e < CG_MAX_EVENTS; e++)
        free(g->desc[e]);
    for (size_t i = 0; i < g->ncalls; i++)
        free(g->calls[i].file);
    free(g->calls);
    free(g->fn_cost), free(g->line_cost), free(g->line_fn), free(g->by_name);
    free(g);
}

int cg_add_event(cg_graph *g, const char *name, const char *description, double total, const double *per_function,
                 const double *per_line)
{
    if (g->nev == CG_MAX_EVENTS)
        return -1;
    size_t e = g->nev;
    snprintf(g->name[e], CG_EVENT_NAME, "%s", name);
    for (char *c = g->name[e]; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            *c = '_';
    if (!(g->desc[e] = strdup(description)))
        return -1;
    g->total[e] = total;
    for (size_t f = 0; f < g->r->nfunctions; f++)
        g->fn_cost[f * CG_MAX_EVENTS + e] = per_function[f];
    for (size_t l = 0; per_line && l < g->r->nlines; l++)
        g->line_cost[l * CG_MAX_EVENTS + e] = per_line[l];
    g->by_instructions[e] = per_line == NULL;
    g->nev++;
    return 0;
}

int cg_add_call(cg_graph *g, const char *caller, const char *caller_module, const char *file, uint32_t line,
                const char *callee, const char *callee_module, double calls)
{
    size_t from = find_function(g, caller, caller_module), to = find_function(g, callee, callee_module);
    if (from == CG_NONE || to == CG_NONE)
        return 1;
    if (g->ncalls == g->cap_calls) {
        size_t cap = g->cap_calls ? 2 * g->cap_calls : 64;
        cg_call *c = realloc(g->calls, cap * sizeof *c);
        if (!c)
            return -1;
        g->calls = c;
        g->cap_calls = cap;
    }
    cg_call *c = &g->calls[g->ncalls];
    *c = (cg_call){.caller = from, .callee = to, .line = line, .calls = calls};
    if (file && !(c->file = strdup(file)))
        return -1;
    g->ncalls++;
    return 0;
}

/* ---- inclusive costs ---------------------------------------------------------- */

/* Tarjan's strongly connected components, without recursion: comp[f] for
 * every function, numbered in the order they complete, so that a
 * component's callees (outside it) have smaller numbers; *ncomp of them.
 * arcs_of holds the arcs by caller: arcs_of[first[f] .. first[f + 1]).
 * -1 when memory runs out. */
static int components(size_t n, const cg_arc *arcs, const size_t *arcs_of, const size_t *first, size_t *comp,
                      size_t *ncomp_out)
{
    size_t *index = malloc((n + 1) * sizeof *index), *low = malloc((n + 1) * sizeof *low);
    size_t *stack = malloc((n + 1) * sizeof *stack), *frames = malloc((n + 1) * sizeof *frames);
    size_t *next = malloc((n + 1) * sizeof *next);
    char *on_stack = calloc(n + 1, 1);
    size_t ncomp = 0, counter = 0, sp = 0;
    int rc = index && low && stack && frames && next && on_stack ? 0 : -1;
    if (rc == 0) {
        for (size_t v = 0; v < n; v++)
            index[v] = CG_NONE;
        for (size_t root = 0; root < n; root++) {
            if (index[root] != CG_NONE)
                continue;
            size_t depth = 0;
            frames[depth++] = root;
            index[root] = low[root] = counter++, next[root] = first[root];
            stack[sp++] = root, on_stack[root] = 1;
            while (depth) {
                size_t v = frames[depth - 1];
                if (next[v] < first[v + 1]) {
                    size_t w = arcs[arcs_of[next[v]++]].callee;
                    if (index[w] == CG_NONE) {
                        frames[depth++] = w;
                        index[w] = low[w] = counter++, next[w] = first[w];
                        stack[sp++] = w, on_stack[w] = 1;
                    } else if (on_stack[w] && index[w] < low[v])
                        low[v] = index[w];
                    continue;
                }
                if (low[v] == index[v]) {
                    size_t w;
                    do {
                        w = stack[--sp];
                        on_stack[w] = 0;
                        comp[w] = ncomp;
                    } while (w != v);
                    ncomp++;
                }
                if (--depth && low[v] < low[frames[depth - 1]])
                    low[frames[depth - 1]] = low[v];
            }
        }
    }
    free(index), free(low), free(stack), free(frames), free(next), free(on_stack);
    *ncomp_out = ncomp;
    return rc;
}

/* arcs_of: the arcs ordered by the key of their caller (key_of[caller]:
 * the function itself, or its component), first[k] the first of key k,
 * for keys 0 .. nkeys - 1.  -1 when memory runs out. */
static int group_arcs(size_t narcs, const cg_arc *arcs, const size_t *key_of, size_t nkeys, size_t *arcs_of,
                      size_t *first)
{
    memset(first, 0, (nkeys + 1) * sizeof *first);
    for (size_t a = 0; a < narcs; a++)
        first[key_of[arcs[a].caller] + 1]++;
    for (size_t k = 0; k < nkeys; k++)
        first[k + 1] += first[k];
    size_t *fill = malloc((nkeys + 1) * sizeof *fill);
    if (!fill)
        return -1;
    memcpy(fill, first, (nkeys + 1) * sizeof *fill);
    for (size_t a = 0; a < narcs; a++)
        arcs_of[fill[key_of[arcs[a].caller]]++] = a;
    free(fill);
    return 0;
}

/* Cost the components in the order they completed (callees first). */
static void cost_components(size_t n, size_t nev, const double *self, const cg_arc *arcs, const size_t *comp,
                            size_t ncomp, const size_t *arcs_of, const size_t *first, double *incl,
                            double *ext_calls, double *cost)
{
    for (size_t f = 0; f < n; f++)
        for (size_t e = 0; e < nev; e++)
            incl[comp[f] * nev + e] += self[f * nev + e];
    for (size_t c = 0; c < ncomp; c++)
        for (size_t i = first[c]; i < first[c + 1]; i++) {
            const cg_arc *a = &arcs[arcs_of[i]];
            size_t to = comp[a->callee];
            double share = to != c && ext_calls[to] > 0 ? a->calls / ext_calls[to] : 0;
            for (size_t e = 0; e < nev; e++) {
                cost[arcs_of[i] * nev + e] = share * incl[to * nev + e];
                incl[c * nev + e] += cost[arcs_of[i] * nev + e];
            }
        }
}

int cg_inclusive(size_t n, size_t nev, const double *self, size_t narcs, const cg_arc *arcs, double *cost)
{
    size_t *arcs_of = malloc((narcs + 1) * sizeof *arcs_of), *first = malloc((n + 2) * sizeof *first);
    size_t *comp = malloc((n + 1) * sizeof *comp), *ident = malloc((n + 1) * sizeof *ident);
    int rc = arcs_of && first && comp && ident ? 0 : -1;
    size_t ncomp = 0;
    for (size_t f = 0; rc == 0 && f < n; f++)
        ident[f] = f;
    if (rc == 0)
        rc = group_arcs(narcs, arcs, ident, n, arcs_of, first);
    if (rc == 0)
        rc = components(n, arcs, arcs_of, first, comp, &ncomp);
    double *incl = rc == 0 ? calloc((ncomp + 1) * nev, sizeof *incl) : NULL;
    double *ext_calls = rc == 0 ? calloc(ncomp + 1, sizeof *ext_calls) : NULL;
    if (incl && ext_calls && group_arcs(narcs, arcs, comp, ncomp, arcs_of, first) == 0) {
        for (size_t a = 0; a < narcs; a++)
            if (comp[arcs[a].caller] != comp[arcs[a].callee])
                ext_calls[comp[arcs[a].callee]] += arcs[a].calls;
        memset(cost, 0, narcs * nev * sizeof *cost);
        cost_components(n, nev, self, arcs, comp, ncomp, arcs_of, first, incl, ext_calls, cost);
    } else
        rc = -1;
    free(arcs_of), free(first), free(comp), free(ident), free(incl), free(ext_calls);
    return rc;
}
