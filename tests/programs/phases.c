/* phases.c — a time-stepping loop with two phases per step, each ended by
 * a call of exchange(), as an MPI program's steps end in communication
 * (test_regions.sh: regions and intervals of augur collect).
 *
 * usage: phases N STEPS   (N >= 2, STEPS >= 1)
 * Outside the region that CALLGRIND_START/STOP_INSTRUMENTATION mark,
 * `setup` writes a and b (2N writes) and the result is printed.  Inside,
 * each of the STEPS steps runs
 *   phase_a: a[i] = a[i] / 2 + 1      N reads, N writes
 *   exchange(a, n)                    1 read, 1 write... (the "communication")
 *   phase_b: b[i] += a[i]             2N reads, N writes
 *   exchange(b, n)
 * Every function is noinline, so that each count is a function's. */
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

__attribute__((noinline)) void exchange(double *x, int n)
{
    x[0] += x[n - 1];
}

__attribute__((noinline)) static void phase_a(double *a, int n)
{
    for (int i = 0; i < n; i++)
        a[i] = a[i] * 0.5 + 1;
}

__attribute__((noinline)) static void phase_b(const double *a, double *b, int n)
{
    for (int i = 0; i < n; i++)
        b[i] += a[i];
}

__attribute__((noinline)) static void setup(double *a, double *b, int n)
{
    for (int i = 0; i < n; i++) {
        a[i] = i;
        b[i] = 0;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[1]) : 0, steps = argc > 2 ? atoi(argv[2]) : 0;
    if (n < 2 || steps < 1) {
        fprintf(stderr, "usage: phases N STEPS (N >= 2, STEPS >= 1)\n");
        return 2;
    }
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!a || !b)
        return 1;
    setup(a, b, n);
    CALLGRIND_START_INSTRUMENTATION;
    for (int s = 0; s < steps; s++) {
        phase_a(a, n);
        exchange(a, n);
        phase_b(a, b, n);
        exchange(b, n);
    }
    CALLGRIND_STOP_INSTRUMENTATION;
    printf("%g %g\n", a[n - 1], b[n - 1]);
    free(a);
    free(b);
    return 0;
}
