/* matmul.c — the demo kernel: C = A * B for N x N doubles, naive i-j-k order.
 *
 * usage: matmul N
 * Work grows as N^3 (N^3 multiply-adds); B is walked column-wise, so its
 * accesses reuse cache lines only across N rows: the reuse-distance histogram
 * of the B load shows a peak near N lines per row sweep that moves with N.
 * Built for x86-64-v2 (see examples/CMakeLists.txt).
 */
#include <stdio.h>
#include <stdlib.h>

/* Kept out of line so that reports show each step as a function of its own. */
__attribute__((noinline)) static void init(double *m, int n, double scale)
{
    for (int i = 0; i < n * n; i++)
        m[i] = scale * (double)(i % 7 + 1);
}

__attribute__((noinline)) static void multiply(const double *a, const double *b, double *c, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0.0;
            for (int k = 0; k < n; k++)
                sum += a[i * n + k] * b[k * n + j];
            c[i * n + j] = sum;
        }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    if (n <= 0 || n > 4096) {
        fprintf(stderr, "usage: matmul N   (1 <= N <= 4096)\n");
        return 2;
    }
    double *a = malloc(sizeof(double) * n * n);
    double *b = malloc(sizeof(double) * n * n);
    double *c = malloc(sizeof(double) * n * n);
    if (!a || !b || !c) {
        fprintf(stderr, "matmul: out of memory for N=%d\n", n);
        return 1;
    }
    init(a, n, 1.0);
    init(b, n, 0.5);
    multiply(a, b, c, n);
    double trace = 0.0;
    for (int i = 0; i < n; i++)
        trace += c[i * n + i];
    printf("matmul N=%d trace=%.6g\n", n, trace);
    free(a);
    free(b);
    free(c);
    return 0;
}
