/* gemm_ijk.c — the matrix product C = A B of N x N matrices by its definition,
 * c_ij = sum_k a_ik b_kj, in the "ijk" (inner-product) loop order of Golub &
 * Van Loan, Matrix Computations, 4th ed., Alg. 1.1.5 / §1.5.2: the inner loop
 * walks a row of A and a column of B (stride N), row-major.  Entries uniform
 * in [-1, 1) from a fixed-seed LCG (kernel.h).  Work N^3 multiply-adds; data 3 * 8 N^2 bytes.
 * usage: gemm_ijk N      prints "gemm_ijk N checksum" */
#define KERNEL_NAME "gemm_ijk"
#include "kernel.h"

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
    long n = size_arg(argc, argv, 1, 40000);
    double *a = alloc(n * n, sizeof *a), *b = alloc(n * n, sizeof *b), *c = alloc(n * n, sizeof *c);
    fill_uniform(n * n, a, 1);
    fill_uniform(n * n, b, 2);
    gemm(n, a, b, c);
    printf("gemm_ijk %ld %.6e\n", n, weighted_sum(n * n, c));
    free(a);
    free(b);
    free(c);
    return 0;
}
