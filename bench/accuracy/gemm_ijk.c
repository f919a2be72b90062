/* gemm_ijk.c — the matrix product C = A B of N x N matrices by its definition,
 * c_ij = sum_k a_ik b_kj, in the "ijk" (inner-product) loop order of Golub &
 * Van Loan, Matrix Computations, 4th ed., Alg. 1.1.5 / §1.5.2: the inner loop
 * walks a row of A and a column of B (stride N), row-major.  Entries from a
 * fixed-seed LCG.  Work N^3 multiply-adds; data 3 * 8 N^2 bytes.
 * usage: gemm_ijk N      prints "gemm_ijk N checksum" */
#include <stdio.h>
#include <stdlib.h>

/* fill: m (n x n) with small values from the LCG of the given seed. */
__attribute__((noinline)) static void fill(long n, double *m, unsigned long long s)
{
    for (long i = 0; i < n * n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        m[i] = (double)((s >> 33) % 100) / 50.0 - 1.0;
    }
}

/* gemm: c = a b, all n x n row-major, inner products in ijk order. */
__attribute__((noinline)) static void gemm(long n, const double *a, const double *b, double *c)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double t = 0.0;
            for (long k = 0; k < n; k++)
                t += a[i * n + k] * b[k * n + j];
            c[i * n + j] = t;
        }
}

int main(int argc, char **argv)
{
    long n = argc == 2 ? atol(argv[1]) : 0;
    if (n < 1) {
        fprintf(stderr, "usage: gemm_ijk N (N >= 1)\n");
        return 2;
    }
    double *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b), *c = malloc(n * n * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "gemm_ijk: out of memory\n");
        return 1;
    }
    fill(n, a, 1);
    fill(n, b, 2);
    gemm(n, a, b, c);
    double sum = 0.0;
    for (long i = 0; i < n * n; i++)
        sum += c[i] * (double)(i % 7 + 1);
    printf("gemm_ijk %ld %.6e\n", n, sum);
    free(a);
    free(b);
    free(c);
    return 0;
}
