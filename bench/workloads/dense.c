/* dense.c — benchmark workload: dense matrix multiply C = A * B of doubles.
 *
 *   dense N      multiply two N x N matrices (i-k-j loop order, so the inner
 *                loop streams a row of B and a row of C) and print a checksum.
 *
 * Regular, compute-bound, cache-friendly for moderate N: the "dense linear
 * algebra" corner of bench/collect_bench.sh.  Build: gcc -O2 -g -march=x86-64-v2.
 */
#include <stdio.h>
#include <stdlib.h>

static double *matrix(size_t n)
{
    double *m = malloc(n * n * sizeof *m);
    if (!m) {
        fprintf(stderr, "dense: out of memory for a %zu x %zu matrix\n", n, n);
        exit(1);
    }
    return m;
}

int main(int argc, char **argv)
{
    if (argc != 2 || atol(argv[1]) < 1) {
        fprintf(stderr, "usage: dense N   (multiply two N x N double matrices)\n");
        return 2;
    }
    size_t n = (size_t)atol(argv[1]);
    double *a = matrix(n), *b = matrix(n), *c = matrix(n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            a[i * n + j] = (double)((i * 7 + j * 3) % 17) * 0.125;
            b[i * n + j] = (double)((i * 5 + j * 11) % 13) * 0.25;
            c[i * n + j] = 0.0;
        }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++) {
            double aik = a[i * n + k];
            const double *brow = &b[k * n];
            double *crow = &c[i * n];
            for (size_t j = 0; j < n; j++)
                crow[j] += aik * brow[j];
        }
    double sum = 0.0;
    for (size_t i = 0; i < n * n; i++)
        sum += c[i] * (double)(i % 7 + 1);
    printf("dense N=%zu checksum %.6e\n", n, sum);
    free(a);
    free(b);
    free(c);
    return 0;
}
