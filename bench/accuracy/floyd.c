/* floyd.c — all-pairs shortest paths by the Floyd-Warshall algorithm
 * (Cormen, Leiserson, Rivest & Stein, Introduction to Algorithms, 3rd ed.,
 * §25.2, FLOYD-WARSHALL, in place: d_ij = min(d_ij, d_ik + d_kj) for k, i, j)
 * on a random directed graph of N vertices: each arc i -> j (i != j) present
 * with probability 1/4, weight 1..100, from a fixed-seed LCG (kernel.h);
 * distances are ints, "no path" a large value that cannot overflow when two
 * are added.
 * Work N^3 min-plus steps; data 4 N^2 bytes.
 * usage: floyd N         prints "floyd N checksum" */
#define KERNEL_NAME "floyd"
#include "kernel.h"

#define NO_PATH (1 << 29)

/* make_graph: d (n x n) = the arc weights, 0 on the diagonal, NO_PATH elsewhere. */
__attribute__((noinline)) static void make_graph(long n, int *d)
{
    uint64_t s = 2024;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            uint32_t r = lcg_next(&s);
            d[i * n + j] = i == j ? 0 : (r % 4 == 0 ? (int)(1 + (r >> 2) % 100) : NO_PATH);
        }
}

/* floyd_warshall: replaces d by the shortest-path distances. */
__attribute__((noinline)) static void floyd_warshall(long n, int *d)
{
    for (long k = 0; k < n; k++) {
        const int *dk = d + k * n;
        for (long i = 0; i < n; i++) {
            int *di = d + i * n;
            int dik = di[k];
            for (long j = 0; j < n; j++) {
                int via = dik + dk[j];
                if (via < di[j])
                    di[j] = via;
            }
        }
    }
}

int main(int argc, char **argv)
{
    long n = size_arg(argc, argv, 1, 40000);
    int *d = alloc(n * n, sizeof *d);
    make_graph(n, d);
    floyd_warshall(n, d);
    long long sum = 0, unreachable = 0;
    for (long i = 0; i < n * n; i++) {
        if (d[i] >= NO_PATH)
            unreachable++;
        else
            sum += d[i];
    }
    printf("floyd %ld %lld %lld\n", n, sum, unreachable);
    free(d);
    return 0;
}
