/* roi_marks.c — a region of interest marked with Callgrind's client
 * requests, for memspy's --instr-at-start (test_memspy_regions.sh).
 *
 * usage: roi_marks N   (N >= 1)
 * Outside any region, `setup` writes `cold` (65536 doubles, 8 per line)
 * N times over.  Region 1 reads `hot` (2048 doubles, 256 lines: fits any
 * L1 of 32 KiB) once; between the regions `cold` is written again; region
 * 2 reads `hot` once more.  Inside the regions: 4096 reads of hot, 256
 * cold misses (region 1), none in region 2 (the caches keep hot, since
 * nothing between the regions is simulated), and no reference to cold. */
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

#define HOT 2048
#define COLD 65536

/* Write every element of c, `times` times. */
static void setup(volatile double *c, int times)
{
    for (int t = 0; t < times; t++)
        for (int i = 0; i < COLD; i++)
            c[i] = t + i;
}

/* The sum of h's elements: HOT reads. */
static double sweep(const volatile double *h)
{
    double s = 0;
    for (int i = 0; i < HOT; i++)
        s += h[i];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    if (n < 1) {
        fprintf(stderr, "usage: roi_marks N (N >= 1)\n");
        return 2;
    }
    double *cold = malloc(COLD * sizeof *cold);
    double *hot = aligned_alloc(64, HOT * sizeof *hot);
    if (!cold || !hot)
        return 1;
    for (int i = 0; i < HOT; i++)
        hot[i] = i;
    setup(cold, n);
    CALLGRIND_START_INSTRUMENTATION;
    double s = sweep(hot);
    CALLGRIND_STOP_INSTRUMENTATION;
    setup(cold, 1);
    CALLGRIND_START_INSTRUMENTATION;
    s += sweep(hot);
    CALLGRIND_STOP_INSTRUMENTATION;
    printf("%.0f %.0f\n", s, cold[COLD - 1]);
    free(cold);
    free(hot);
    return 0;
}
