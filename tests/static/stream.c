/* stream.c — a triad over n doubles, run by one thread and split over
 * OpenMP's threads: the cycle formulas of `augur static --machine`
 * (tests/integration/test_static_cycles.sh) against `augur predict
 * --machine`, and the split of a parallel loop over `threads`.  Usage:
 * stream N REPS (N >= 1, REPS >= 1). */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

/* a = b + s c, one thread */
NOINLINE void triad(int n, double *restrict a, const double *restrict b, const double *restrict c, double s)
{
    for (int i = 0; i < n; i++) /* LOOP:triad */
        a[i] = b[i] + s * c[i];
}

/* the same, its iterations split over the threads */
NOINLINE void triad_omp(int n, double *restrict a, const double *restrict b, const double *restrict c, double s)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) /* LOOP:triad_omp */
        a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000, reps = argc > 2 ? atoi(argv[2]) : 1;
    if (n < 1 || reps < 1) {
        fprintf(stderr, "usage: stream N REPS (N >= 1, REPS >= 1)\n");
        return 2;
    }
    double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b), *c = calloc((size_t)n, sizeof *c);
#pragma augur branch ratio(0)
    if (!a || !b || !c)
        return 1;
    for (int r = 0; r < reps; r++) {
        triad(n, a, b, c, 3.0);
        triad_omp(n, b, a, c, 0.5);
    }
    printf("%g\n", a[0] + b[n - 1]);
    free(a);
    free(b);
    free(c);
    return 0;
}
