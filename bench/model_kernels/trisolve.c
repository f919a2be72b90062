/* trisolve.c — forward substitution L x = b with a dense lower-triangular N x N
 * matrix (row-major, only the lower triangle is read), for 4 right-hand sides
 * solved one after the other.  Work ~ 4 * N^2 flops (a triangular loop nest);
 * working set N^2 * 8 bytes of matrix (read once per right-hand side).
 * usage: trisolve N      prints a checksum of the solutions */
#include <stdio.h>
#include <stdlib.h>

#define RHS 4

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    if (n < 1) {
        fprintf(stderr, "trisolve: N must be >= 1\n");
        return 2;
    }
    double *l = malloc(n * n * sizeof *l), *b = malloc(RHS * n * sizeof *b), *x = malloc(RHS * n * sizeof *x);
    if (!l || !b || !x) {
        fprintf(stderr, "trisolve: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < i; j++)
            l[i * n + j] = (double)((i * 3 + j * 5) % 11) / (11.0 * (double)n);
        l[i * n + i] = 2.0 + (double)(i % 3);
        for (long j = i + 1; j < n; j++)
            l[i * n + j] = 0.0;
    }
    for (long r = 0; r < RHS; r++)
        for (long i = 0; i < n; i++)
            b[r * n + i] = (double)((i * 7 + r * 3) % 19) / 19.0 + 1.0;
    for (long r = 0; r < RHS; r++) {
        const double *br = b + r * n;
        double *xr = x + r * n;
        for (long i = 0; i < n; i++) {
            const double *li = l + i * n;
            double s = br[i];
            for (long j = 0; j < i; j++)
                s -= li[j] * xr[j];
            xr[i] = s / li[i];
        }
    }
    double sum = 0.0;
    for (long i = 0; i < RHS * n; i++)
        sum += x[i] * (double)(i % 4 + 1);
    printf("trisolve %ld %.6e\n", n, sum);
    free(l);
    free(b);
    free(x);
    return 0;
}
