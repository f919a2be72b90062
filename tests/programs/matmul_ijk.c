/* matmul_ijk.c — the matrix product c = a b of n x n doubles in ijk
 * (inner-product) order, whose inner loop walks a column of b at a stride
 * of n doubles: at n = 224 (rows of 1792 bytes, 28 lines) the column falls
 * into 16 of a 64-set L1's sets, 14 lines each, and misses in 12 ways
 * although its reuse distance (about 252 lines) is far below the L1's 768
 * (tests/integration/test_strides.sh).
 *
 * usage: matmul_ijk N      prints "matmul_ijk N CHECKSUM"
 */
#include <stdio.h>
#include <stdlib.h>

/* gemm: c = a b, all n x n row-major. */
__attribute__((noinline)) static void gemm(long n, const double *a, const double *b, double *c)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double t = 0.0;
            for (long k = 0; k < n; k++)
                t += a[i * n + k] * b[k * n + j]; /* LOAD:gemm */
            c[i * n + j] = t;
        }
}

int main(int argc, char **argv)
{
    long n = argc == 2 ? atol(argv[1]) : 0;
    if (n < 1 || n > 4096) {
        fprintf(stderr, "usage: matmul_ijk N (1 <= N <= 4096)\n");
        return 2;
    }
    double *a = malloc((size_t)(n * n) * sizeof *a), *b = malloc((size_t)(n * n) * sizeof *b),
           *c = malloc((size_t)(n * n) * sizeof *c);
    if (!a || !b || !c)
        return 1;
    for (long i = 0; i < n * n; i++) {
        a[i] = (double)(i % 7) - 3;
        b[i] = (double)(i % 5) - 2;
    }
    gemm(n, a, b, c);
    double s = 0;
    for (long i = 0; i < n * n; i++)
        s += c[i] * (double)(i % 3 + 1);
    printf("matmul_ijk %ld %.6e\n", n, s);
    free(a), free(b), free(c);
    return 0;
}
