/* gemm_blocked.c — the blocked matrix product C = C + A B of N x N matrices
 * (Golub & Van Loan, Matrix Computations, 4th ed., §1.3.6 "block matrix
 * multiplication", the loop nest of Lam, Rothberg & Wolf, "The cache
 * performance and optimizations of blocked algorithms", ASPLOS 1991, Fig. 1):
 * square tiles of BS x BS, and inside a tile pair the "ikj" order whose inner
 * loop runs along rows of B and C.  Edge tiles are partial, so any N works.
 * Entries uniform in [-1, 1) from a fixed-seed LCG (kernel.h).  Work N^3
 * multiply-adds; data 3 * 8 N^2 bytes.
 * usage: gemm_blocked N  prints "gemm_blocked N checksum" */
#define KERNEL_NAME "gemm_blocked"
#include "kernel.h"

#define BS 16

static long min_l(long a, long b) { return a < b ? a : b; }

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
    long n = size_arg(argc, argv, 1, 40000);
    double *a = alloc(n * n, sizeof *a), *b = alloc(n * n, sizeof *b), *c = alloc(n * n, sizeof *c);
    for (long i = 0; i < n * n; i++)
        c[i] = 0.0;
    fill_uniform(n * n, a, 1);
    fill_uniform(n * n, b, 2);
    gemm_tiled(n, a, b, c);
    printf("gemm_blocked %ld %.6e\n", n, weighted_sum(n * n, c));
    free(a);
    free(b);
    free(c);
    return 0;
}
