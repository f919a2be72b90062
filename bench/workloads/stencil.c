/* stencil.c — benchmark workload: 2-D 5-point Jacobi relaxation.
 *
 *   stencil N ITERS   sweep an N x N grid of doubles ITERS times,
 *                     out[i][j] = 0.25 * (in[i-1][j] + in[i+1][j] + in[i][j-1] + in[i][j+1]),
 *                     swapping the two grids after each sweep; print a checksum.
 *
 * Regular, streaming, memory-bandwidth-bound once the grids leave the cache:
 * the "structured grid" corner of bench/collect_bench.sh.
 * Build: gcc -O2 -g -march=x86-64-v2.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3 || atol(argv[1]) < 3 || atol(argv[2]) < 1) {
        fprintf(stderr, "usage: stencil N ITERS   (N >= 3: grid side; ITERS >= 1: sweeps)\n");
        return 2;
    }
    size_t n = (size_t)atol(argv[1]);
    long iters = atol(argv[2]);
    double *in = malloc(n * n * sizeof *in), *out = malloc(n * n * sizeof *out);
    if (!in || !out) {
        fprintf(stderr, "stencil: out of memory for two %zu x %zu grids\n", n, n);
        return 1;
    }
    /* fixed boundary: hot top edge, cold elsewhere; interior starts at 0 */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            in[i * n + j] = out[i * n + j] = (i == 0) ? 100.0 : 0.0;
    for (long it = 0; it < iters; it++) {
        for (size_t i = 1; i < n - 1; i++)
            for (size_t j = 1; j < n - 1; j++)
                out[i * n + j] = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] +
                                         in[i * n + j - 1] + in[i * n + j + 1]);
        double *t = in;
        in = out;
        out = t;
    }
    double sum = 0.0;
    for (size_t i = 0; i < n * n; i++)
        sum += in[i] * (double)(i % 5 + 1);
    printf("stencil N=%zu ITERS=%ld checksum %.6e\n", n, iters, sum);
    free(in);
    free(out);
    return 0;
}
