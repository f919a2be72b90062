/* jacobi1d.c — 3-point Jacobi on N doubles, 50 sweeps alternating between two
 * arrays; the ends stay fixed.  Work ~ 50 * 3 N flops; traffic per sweep 2 N * 8
 * bytes (+ N * 8 write allocate): bandwidth-bound once 2 N * 8 bytes exceed the
 * caches.
 * usage: jacobi1d N      prints a checksum of the final array */
#include <stdio.h>
#include <stdlib.h>

#define SWEEPS 50

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    if (n < 3) {
        fprintf(stderr, "jacobi1d: N must be >= 3\n");
        return 2;
    }
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
    if (!u || !v) {
        fprintf(stderr, "jacobi1d: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        u[i] = v[i] = (double)((i * 37) % 101) / 101.0;
    for (int s = 0; s < SWEEPS; s++) {
        for (long i = 1; i < n - 1; i++)
            v[i] = (u[i - 1] + u[i] + u[i + 1]) * (1.0 / 3.0);
        double *t = u;
        u = v;
        v = t;
    }
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += u[i] * (double)(i % 5 + 1);
    printf("jacobi1d %ld %.6e\n", n, sum);
    free(u);
    free(v);
    return 0;
}
