/* inlined.c — a callee with a loop inlined into its caller's loop at -O2
 * (scale into rows): the join of `augur static` finds scale's loop in
 * rows's code and counts it as composed at the call
 * (tests/integration/test_static_join.sh).  Usage: inlined N (N >= 1). */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

/* x[k] *= 2 over m elements: inlined where it is called */
static inline __attribute__((always_inline)) void scale(int m, double *x)
{
    for (int k = 0; k < m; k++) /* LOOP:scale */
        x[k] = x[k] * 2.0;
}

/* sum over i < n of (n - i) = n(n+1)/2 iterations of scale's loop */
NOINLINE void rows(int n, double *x)
{
    for (int i = 0; i < n; i++) /* LOOP:rows */
        scale(n - i, x + i);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
#pragma augur branch ratio(0)
    if (n < 1) {
        fprintf(stderr, "usage: inlined N (N >= 1)\n");
        return 2;
    }
    double *x = calloc((size_t)n, sizeof *x);
    rows(n, x);
    printf("%g\n", x[0]);
    free(x);
    return 0;
}
