/* stencil_inline.c — a 1-D three-point stencil whose sweep is inlined into
 * main's time-step loop, for the scope tree of `augur structure` at -O1
 * (test_structure_inlined.sh): the sweep loop must sit inside the inlined
 * sweep, inside the time loop, each loop named by its own line.
 *
 * Markers "LOOP:name" and "FN:name" tag lines the test finds with grep.
 * Usage: stencil_inline N STEPS (N >= 3). */
#include <stdio.h>
#include <stdlib.h>

static void sweep(const double *a, double *b, int n) /* FN:sweep */
{
    for (int i = 1; i < n - 1; i++) /* LOOP:sweep */
        b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
}

int main(int argc, char **argv) /* FN:main */
{
    int n = argc > 1 ? atoi(argv[1]) : 0, steps = argc > 2 ? atoi(argv[2]) : 0;
    if (n < 3 || steps < 1) {
        fprintf(stderr, "usage: stencil_inline N STEPS   (N >= 3, STEPS >= 1)\n");
        return 2;
    }
    double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
    if (!a || !b) {
        perror("calloc");
        return 1;
    }
    for (int i = 0; i < n; i++) /* LOOP:init */
        a[i] = i;
    for (int t = 0; t < steps; t++) { /* LOOP:time */
        sweep(a, b, n);
        double *tmp = a;
        a = b;
        b = tmp;
    }
    printf("%g\n", a[n / 2]);
    free(a);
    free(b);
    return 0;
}
