/* gemm_blocked.c — the blocked matrix product C = C + A B of N x N matrices
 * (Golub & Van Loan, Matrix Computations, 4th ed., §1.3.6 "block matrix
 * multiplication", the loop nest of Lam, Rothberg & Wolf, "The cache
 * performance and optimizations of blocked algorithms", ASPLOS 1991, Fig. 1):
 * square tiles of BS x BS, and inside a tile pair the "ikj" order whose inner
 * loop runs along rows of B and C.  Edge tiles are partial, so any N works.
 * Entries from a fixed-seed LCG.  Work N^3 multiply-adds; data 3 * 8 N^2 bytes.
 * usage: gemm_blocked N  prints "gemm_blocked N checksum" */
#include <stdio.h>
#include <stdlib.h>

#define BS 16

static long min_l(long a, long b) { return a < b ? a : b; }

/* fill: m (n x n) with small values from the LCG of the given seed. */
__attribute__((noinline)) static void fill(long n, double *m, unsigned long long s)
{
    for (long i = 0; i < n * n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        m[i] = (double)((s >> 33) % 100) / 50.0 - 1.0;
    }
}

/* gemm_tiled: c += a b, all n x n row-major, in BS x BS tiles. */
__attribute__((noinline)) static void gemm_tiled(long n, const double *a, const double *b, double *c)
{
    for (long ii = 0; ii < n; ii += BS)
        for (long kk = 0; kk < n; kk += BS)
            for (long jj = 0; jj < n; jj += BS) {
                long ie = min_l(ii + BS, n), ke = min_l(kk + BS, n), je = min_l(jj + BS, n);
                for (long i = ii; i < ie; i++)
                    for (long k = kk; k < ke; k++) {
                        double aik = a[i * n + k];
                        for (long j = jj; j < je; j++)
                            c[i * n + j] += aik * b[k * n + j];
                    }
            }
}

int main(int argc, char **argv)
{
    long n = argc == 2 ? atol(argv[1]) : 0;
    if (n < 1) {
        fprintf(stderr, "usage: gemm_blocked N (N >= 1)\n");
        return 2;
    }
    double *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b), *c = calloc(n * n, sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "gemm_blocked: out of memory\n");
        return 1;
    }
    fill(n, a, 1);
    fill(n, b, 2);
    gemm_tiled(n, a, b, c);
    double sum = 0.0;
    for (long i = 0; i < n * n; i++)
        sum += c[i] * (double)(i % 7 + 1);
    printf("gemm_blocked %ld %.6e\n", n, sum);
    free(a);
    free(b);
    free(c);
    return 0;
}
