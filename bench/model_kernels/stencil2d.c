/* stencil2d.c — 5-point Jacobi on an N x N grid of doubles, 4 sweeps alternating
 * between two arrays; the boundary stays fixed.  Work ~ 4 * 5 N^2 flops; working
 * set 2 N^2 * 8 bytes.
 * usage: stencil2d N     prints a checksum of the final grid */
#include <stdio.h>
#include <stdlib.h>

#define SWEEPS 4

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    if (n < 3) {
        fprintf(stderr, "stencil2d: N must be >= 3\n");
        return 2;
    }
    double *u = malloc(n * n * sizeof *u), *v = malloc(n * n * sizeof *v);
    if (!u || !v) {
        fprintf(stderr, "stencil2d: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            u[i * n + j] = v[i * n + j] = (double)((i * 31 + j * 17) % 101) / 101.0;
    for (int s = 0; s < SWEEPS; s++) {
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                v[i * n + j] = 0.2 * (u[i * n + j] + u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                                      u[i * n + j - 1] + u[i * n + j + 1]);
        double *t = u;
        u = v;
        v = t;
    }
    double sum = 0.0;
    for (long i = 0; i < n * n; i++)
        sum += u[i] * (double)(i % 5 + 1);
    printf("stencil2d %ld %.6e\n", n, sum);
    free(u);
    free(v);
    return 0;
}
