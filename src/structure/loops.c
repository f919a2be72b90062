/* loops.c — dominators, natural loops and the loop-nesting forest of one
 * function's control-flow graph.
 *
 * Dominators: the iterative algorithm of Cooper, Harvey and Kennedy ("A
 * Simple, Fast Dominance Algorithm", 2001) over reverse postorder.
 * Loops: an edge u -> h is a back edge when h dominates u; the natural loop
 * of header h is h plus every block that reaches a back edge's source
 * backwards without passing h; back edges sharing a header form one loop.
 * Natural loops with distinct headers are nested or disjoint, so sorting
 * them by size gives each its parent: the smallest larger loop holding its
 * header.  A retreating edge whose target does not dominate its source
 * closes a cycle with several entries (irreducible); it is counted in
 * f->nirreducible and forms no loop. */
#include "structure/structure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Predecessors or successors of every block, in compressed rows:
 * the neighbours of b are adj[start[b] .. start[b+1]), as edge indices. */
typedef struct adjacency {
    uint32_t *start, *edge;
} adjacency;

static int build_adjacency(const st_function *f, int by_target, adjacency *a)
{
    a->start = calloc(f->nblocks + 1, sizeof *a->start);
    a->edge = malloc((f->nedges ? f->nedges : 1) * sizeof *a->edge);
    if (!a->start || !a->edge)
        return -1;
    for (uint32_t e = 0; e < f->nedges; e++)
        a->start[(by_target ? f->edges[e].to : f->edges[e].from) + 1]++;
    for (uint32_t b = 0; b < f->nblocks; b++)
        a->start[b + 1] += a->start[b];
    uint32_t *fill = malloc((f->nblocks + 1) * sizeof *fill);
    if (!fill)
        return -1;
    memcpy(fill, a->start, (f->nblocks + 1) * sizeof *fill);
    for (uint32_t e = 0; e < f->nedges; e++)
        a->edge[fill[by_target ? f->edges[e].to : f->edges[e].from]++] = e;
    free(fill);
    return 0;
}

static void free_adjacency(adjacency *a)
{
    free(a->start);
    free(a->edge);
}

/* Working state of the analysis of one function. */
typedef struct loop_work {
    st_function *f;
    adjacency succ, pred;
    uint32_t *rpo;      /* blocks in reverse postorder (reachable ones) */
    uint32_t *rpo_num;  /* block -> position in rpo, UINT32_MAX if unreachable */
    uint32_t nreach;
    uint32_t *pre, *post; /* dominator-tree interval numbering */
} loop_work;

/* Reverse postorder of the blocks reachable from block 0, by an explicit
 * stack (functions can have tens of thousands of blocks). */
static int reverse_postorder(loop_work *w)
{
    const st_function *f = w->f;
    uint32_t *stack = malloc(f->nblocks * sizeof *stack), *next = calloc(f->nblocks, sizeof *next);
    uint32_t *order = malloc(f->nblocks * sizeof *order);
    uint8_t *seen = calloc(f->nblocks, 1);
    if (!stack || !next || !order || !seen) {
        free(stack), free(next), free(order), free(seen);
        return -1;
    }
    uint32_t sp = 0, n = 0;
    stack[sp++] = 0;
    seen[0] = 1;
    while (sp > 0) {
        uint32_t b = stack[sp - 1], k = w->succ.start[b] + next[b];
        if (k < w->succ.start[b + 1]) {
            next[b]++;
            uint32_t s = w->f->edges[w->succ.edge[k]].to;
            if (!seen[s]) {
                seen[s] = 1;
                stack[sp++] = s;
            }
            continue;
        }
        order[n++] = b; /* postorder */
        sp--;
    }
    for (uint32_t i = 0; i < n; i++) {
        w->rpo[i] = order[n - 1 - i];
        w->rpo_num[w->rpo[i]] = i;
    }
    w->nreach = n;
    free(stack), free(next), free(order), free(seen);
    return 0;
}

static uint32_t intersect(const loop_work *w, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (w->rpo_num[a] > w->rpo_num[b])
            a = w->f->blocks[a].idom;
        while (w->rpo_num[b] > w->rpo_num[a])
            b = w->f->blocks[b].idom;
    }
    return a;
}

/* Cooper-Harvey-Kennedy: iterate idom over reverse postorder until stable. */
static void dominators(loop_work *w)
{
    st_block *bl = w->f->blocks;
    bl[0].idom = 0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = 1; i < w->nreach; i++) {
            uint32_t b = w->rpo[i], idom = UINT32_MAX;
            for (uint32_t k = w->pred.start[b]; k < w->pred.start[b + 1]; k++) {
                uint32_t p = w->f->edges[w->pred.edge[k]].from;
                if (bl[p].idom == UINT32_MAX)
                    continue; /* not processed yet, or unreachable */
                idom = idom == UINT32_MAX ? p : intersect(w, p, idom);
            }
            if (idom != bl[b].idom) {
                bl[b].idom = idom;
                changed = 1;
            }
        }
    }
}

/* Number the dominator tree so that a dominates b iff
 * pre[a] <= pre[b] && post[b] <= post[a]. */
static int number_dominator_tree(loop_work *w)
{
    const st_function *f = w->f;
    uint32_t n = f->nblocks;
    uint32_t *first = malloc(n * sizeof *first), *sibling = malloc(n * sizeof *sibling);
    uint32_t *stack = malloc(n * sizeof *stack);
    uint8_t *opened = calloc(n, 1);
    if (!first || !sibling || !stack || !opened) {
        free(first), free(sibling), free(stack), free(opened);
        return -1;
    }
    memset(first, 0xff, n * sizeof *first);
    for (uint32_t i = w->nreach; i-- > 1;) { /* children lists */
        uint32_t b = w->rpo[i], p = f->blocks[b].idom;
        sibling[b] = first[p];
        first[p] = b;
    }
    uint32_t sp = 0, clock = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        uint32_t b = stack[sp - 1];
        if (!opened[b]) {
            opened[b] = 1;
            w->pre[b] = clock++;
            for (uint32_t c = first[b]; c != UINT32_MAX; c = sibling[c])
                stack[sp++] = c;
            continue;
        }
        w->post[b] = clock++;
        sp--;
    }
    free(first), free(sibling), free(stack), free(opened);
    return 0;
}

static int dominates(const loop_work *w, uint32_t a, uint32_t b)
{
    return w->pre[a] <= w->pre[b] && w->post[b] <= w->post[a];
}

/* Blocks of the natural loop of `header` with back edges into it: marks
 * them in `in` and returns their count; `stack` is scratch. */
static uint32_t loop_body(const loop_work *w, uint32_t header, uint8_t *in, uint32_t *stack)
{
    uint32_t sp = 0, n = 1;
    in[header] = 1;
    for (uint32_t k = w->pred.start[header]; k < w->pred.start[header + 1]; k++) {
        uint32_t u = w->f->edges[w->pred.edge[k]].from;
        if (w->rpo_num[u] != UINT32_MAX && dominates(w, header, u) && !in[u]) {
            in[u] = 1, n++;
            stack[sp++] = u;
        }
    }
    while (sp > 0) {
        uint32_t b = stack[--sp];
        for (uint32_t k = w->pred.start[b]; k < w->pred.start[b + 1]; k++) {
            uint32_t p = w->f->edges[w->pred.edge[k]].from;
            if (w->rpo_num[p] != UINT32_MAX && !in[p]) {
                in[p] = 1, n++;
                stack[sp++] = p;
            }
        }
    }
    return n;
}

/* Make the loop of `header` (it has at least one back edge). */
static int make_loop(loop_work *w, uint32_t header, uint8_t *in, uint32_t *stack, st_loop *L)
{
    const st_function *f = w->f;
    memset(L, 0, sizeof *L);
    L->header = header;
    L->parent = -1;
    L->nblocks = loop_body(w, header, in, stack);
    L->blocks = malloc(L->nblocks * sizeof *L->blocks);
    L->back = malloc((w->pred.start[header + 1] - w->pred.start[header]) * sizeof *L->back);
    if (!L->blocks || !L->back)
        return -1;
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->nblocks; b++)
        if (in[b]) {
            L->blocks[n++] = b;
            in[b] = 0;
        }
    for (uint32_t k = w->pred.start[header]; k < w->pred.start[header + 1]; k++) {
        uint32_t e = w->pred.edge[k], u = f->edges[e].from;
        if (w->rpo_num[u] != UINT32_MAX && dominates(w, header, u))
            L->back[L->nback++] = e;
    }
    return 0;
}

static int bigger_first(const void *a, const void *b)
{
    const st_loop *x = a, *y = b;
    if (x->nblocks != y->nblocks)
        return x->nblocks > y->nblocks ? -1 : 1;
    return (x->header > y->header) - (x->header < y->header);
}

/* Find the loops: headers are targets of back edges. */
static int collect_loops(loop_work *w)
{
    st_function *f = w->f;
    uint8_t *is_header = calloc(f->nblocks, 1), *in = calloc(f->nblocks, 1);
    uint32_t *stack = malloc(f->nblocks * sizeof *stack);
    int rc = is_header && in && stack ? 0 : -1;
    uint32_t nheaders = 0;
    for (uint32_t e = 0; e < f->nedges && rc == 0; e++) {
        uint32_t u = f->edges[e].from, h = f->edges[e].to;
        if (w->rpo_num[u] == UINT32_MAX || w->rpo_num[h] > w->rpo_num[u])
            continue; /* unreachable, or not retreating in the depth-first order */
        if (!dominates(w, h, u)) {
            f->nirreducible++;
        } else if (!is_header[h]) {
            is_header[h] = 1;
            nheaders++;
        }
    }
    f->loops = calloc(nheaders ? nheaders : 1, sizeof *f->loops);
    if (!f->loops)
        rc = -1;
    for (uint32_t h = 0; h < f->nblocks && rc == 0; h++)
        if (is_header[h])
            rc = make_loop(w, h, in, stack, &f->loops[f->nloops++]);
    free(is_header), free(in), free(stack);
    return rc;
}

/* Sort loops outermost first and link each to its parent. */
static void nest_loops(st_function *f)
{
    qsort(f->loops, f->nloops, sizeof *f->loops, bigger_first);
    for (uint32_t i = 0; i < f->nloops; i++) {
        st_loop *L = &f->loops[i];
        L->parent = f->blocks[L->header].loop; /* the innermost bigger loop holding it */
        L->depth = L->parent < 0 ? 1 : f->loops[L->parent].depth + 1;
        for (uint32_t k = 0; k < L->nblocks; k++)
            f->blocks[L->blocks[k]].loop = (int32_t)i;
    }
}

int st_find_loops(st_function *f, char *err, size_t errlen)
{
    loop_work w = {.f = f};
    uint32_t n = f->nblocks;
    w.rpo = malloc(n * sizeof *w.rpo);
    w.rpo_num = malloc(n * sizeof *w.rpo_num);
    w.pre = calloc(n, sizeof *w.pre);
    w.post = calloc(n, sizeof *w.post);
    int rc = w.rpo && w.rpo_num && w.pre && w.post && n > 0 ? 0 : -1;
    if (rc == 0) {
        memset(w.rpo_num, 0xff, n * sizeof *w.rpo_num);
        for (uint32_t b = 0; b < n; b++)
            f->blocks[b].idom = UINT32_MAX, f->blocks[b].loop = -1;
        rc = build_adjacency(f, 0, &w.succ) || build_adjacency(f, 1, &w.pred) || reverse_postorder(&w);
    }
    if (rc == 0) {
        dominators(&w);
        rc = number_dominator_tree(&w) || collect_loops(&w);
    }
    if (rc == 0)
        nest_loops(f);
    free_adjacency(&w.succ), free_adjacency(&w.pred);
    free(w.rpo), free(w.rpo_num), free(w.pre), free(w.post);
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory while finding loops", f->name);
    return rc;
}
