/* stencil3d.c — 7-point Jacobi on an N x N x N grid of doubles, 2 sweeps
 * alternating between two arrays; the boundary stays fixed.  Work ~ 2 * 7 N^3
 * flops; working set 2 N^3 * 8 bytes.
 * usage: stencil3d N     prints a checksum of the final grid */
#include <stdio.h>
#include <stdlib.h>

#define SWEEPS 2

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    if (n < 3) {
        fprintf(stderr, "stencil3d: N must be >= 3\n");
        return 2;
    }
    long nn = n * n, n3 = nn * n;
    double *u = malloc(n3 * sizeof *u), *v = malloc(n3 * sizeof *v);
    if (!u || !v) {
        fprintf(stderr, "stencil3d: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            for (long k = 0; k < n; k++)
                u[i * nn + j * n + k] = v[i * nn + j * n + k] = (double)((i * 13 + j * 7 + k * 3) % 29) / 29.0;
    for (int s = 0; s < SWEEPS; s++) {
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                for (long k = 1; k < n - 1; k++) {
                    long c = i * nn + j * n + k;
                    v[c] = (u[c] + u[c - 1] + u[c + 1] + u[c - n] + u[c + n] + u[c - nn] + u[c + nn]) / 7.0;
                }
        double *t = u;
        u = v;
        v = t;
    }
    double sum = 0.0;
    for (long i = 0; i < n3; i++)
        sum += u[i] * (double)(i % 3 + 1);
    printf("stencil3d %ld %.6e\n", n, sum);
    free(u);
    free(v);
    return 0;
}
