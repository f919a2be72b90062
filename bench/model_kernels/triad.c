/* triad.c — STREAM triad a[i] = b[i] + 3 c[i] over N doubles, 50 passes: a
 * bandwidth-bound loop once 3 N * 8 bytes exceed the caches.  Work ~ 50 * 2 N
 * flops; traffic per pass 3 N * 8 bytes read/written (+ N * 8 for the write
 * allocate of a).
 * usage: triad N         prints a checksum of a */
#include <stdio.h>
#include <stdlib.h>

#define PASSES 50

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    if (n < 1) {
        fprintf(stderr, "triad: N must be >= 1\n");
        return 2;
    }
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "triad: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = (double)(i % 7);
        c[i] = (double)(i % 5) / 5.0;
    }
    for (int p = 0; p < PASSES; p++) {
        for (long i = 0; i < n; i++)
            a[i] = b[i] + 3.0 * c[i];
        double *t = b; /* the next pass reads what this one wrote */
        b = a;
        a = t;
    }
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += b[i] * (double)(i % 3 + 1);
    printf("triad %ld %.6e\n", n, sum);
    free(a);
    free(b);
    free(c);
    return 0;
}
