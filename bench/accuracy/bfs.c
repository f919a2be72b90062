/* bfs.c — breadth-first search (Cormen, Leiserson, Rivest & Stein,
 * Introduction to Algorithms, 3rd ed., §22.2, BFS with a FIFO queue) over an
 * undirected random graph of N vertices and 8N edges, endpoints uniform from a
 * fixed-seed LCG (kernel.h; an Erdos-Renyi G(n, m) graph), stored as compressed sparse
 * rows built by a counting sort of the edge list, as the Graph500 reference
 * code (graph500.org, "seq-csr") builds it; the search runs from 4 roots and
 * the levels are summed.  Work ~ 16N adjacency reads per search, irregular;
 * data ~ 8 * 8N + 4 * 16N + 3 * 8N bytes.
 * usage: bfs N           prints "bfs N visited level-sum" */
#define KERNEL_NAME "bfs"
#include "kernel.h"

#define DEGREE 8
#define ROOTS 4

struct graph {
    long n;
    long *start;        /* vertex v's neighbours are adj[start[v] .. start[v+1]) */
    long *adj;
};

/* make_edges: m = DEGREE n edges (src[e], dst[e]) from the LCG. */
__attribute__((noinline)) static void make_edges(long n, long m, long *src, long *dst)
{
    uint64_t s = 88172645463325252ULL;
    for (long e = 0; e < m; e++) {
        src[e] = (long)(lcg_next(&s) % (uint64_t)n);
        dst[e] = (long)(lcg_next(&s) % (uint64_t)n);
    }
}

/* build_csr: g's rows from the m edges, each in both directions. */
__attribute__((noinline)) static void build_csr(struct graph *g, long m, const long *src, const long *dst)
{
    long n = g->n;
    for (long v = 0; v <= n; v++)
        g->start[v] = 0;
    for (long e = 0; e < m; e++) {
        g->start[src[e] + 1]++;
        g->start[dst[e] + 1]++;
    }
    for (long v = 0; v < n; v++)
        g->start[v + 1] += g->start[v];
    long *fill = alloc(n, sizeof *fill);
    for (long v = 0; v < n; v++)
        fill[v] = g->start[v];
    for (long e = 0; e < m; e++) {
        g->adj[fill[src[e]]++] = dst[e];
        g->adj[fill[dst[e]]++] = src[e];
    }
    free(fill);
}

/* bfs: the levels of every vertex from root (-1: unreached), using queue (n
 * entries); returns the number of vertices reached. */
__attribute__((noinline)) static long bfs(const struct graph *g, long root, long *level, long *queue)
{
    for (long v = 0; v < g->n; v++)
        level[v] = -1;
    long head = 0, tail = 0;
    level[root] = 0;
    queue[tail++] = root;
    while (head < tail) {
        long u = queue[head++];
        for (long e = g->start[u]; e < g->start[u + 1]; e++) {
            long w = g->adj[e];
            if (level[w] < 0) {
                level[w] = level[u] + 1;
                queue[tail++] = w;
            }
        }
    }
    return tail;
}

int main(int argc, char **argv)
{
    long n = size_arg(argc, argv, 1, 100000000);
    long m = DEGREE * n;
    long *src = alloc(m, sizeof *src), *dst = alloc(m, sizeof *dst);
    struct graph g = {n, alloc(n + 1, sizeof(long)), alloc(2 * m, sizeof(long))};
    long *level = alloc(n, sizeof *level), *queue = alloc(n, sizeof *queue);
    make_edges(n, m, src, dst);
    build_csr(&g, m, src, dst);
    long reached = 0, levels = 0;
    for (int r = 0; r < ROOTS; r++) {
        reached += bfs(&g, (long)r * (n / ROOTS), level, queue);
        for (long v = 0; v < n; v++)
            levels += level[v];
    }
    printf("bfs %ld %ld %ld\n", n, reached, levels);
    free(src);
    free(dst);
    free(g.start);
    free(g.adj);
    free(level);
    free(queue);
    return 0;
}
