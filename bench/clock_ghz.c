/* clock_ghz.c — the clock this core really runs at, for time predictions:
 * a chain of dependent 64-bit adds (one cycle each on every x86-64 core since
 * the P6) is timed, and GHz = adds / ns.  The least time of the repetitions is
 * kept (other processes only add time).  /proc/cpuinfo's "cpu MHz" under KVM
 * is the TSC's, not the core's, hence this.
 * usage: clock_ghz [REPS]   prints "GHZ NS_PER_ADD" */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ADDS_PER_ITER 16
#define ITERS 1000000L /* 5-8 ms: short enough to run between preemptions */

/* Seconds of one chain of ADDS_PER_ITER * ITERS dependent adds. */
static double chain_seconds(void)
{
    struct timespec a, b;
    unsigned long x = 1;
    clock_gettime(CLOCK_MONOTONIC, &a);
    long n = ITERS;
    /* The whole loop in assembly, so that no compiler move joins the chain. */
    __asm__ volatile("1:\n\t"
                     "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                     "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                     "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                     "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                     "dec %1\n\tjnz 1b"
                     : "+r"(x), "+r"(n));
    clock_gettime(CLOCK_MONOTONIC, &b);
    __asm__ volatile("" : : "r"(x));
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 7;
    if (reps < 1) {
        fprintf(stderr, "clock_ghz: REPS must be a positive number\n");
        return 2;
    }
    double best = chain_seconds();
    for (int r = 1; r < reps; r++) {
        double t = chain_seconds();
        best = t < best ? t : best;
    }
    double ns = best * 1e9 / ((double)ADDS_PER_ITER * ITERS);
    printf("%.3f %.4f\n", 1.0 / ns, ns);
    return 0;
}
