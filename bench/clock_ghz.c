/* clock_ghz.c — the clock this core really runs at, for time predictions:
 * `augur machine calibrate`'s own probe (calibrate_clock_ghz, a timed chain
 * of dependent 64-bit adds, the fastest of REPS chains), as a small program
 * that bench/time_bench.sh runs after its timings.  /proc/cpuinfo's
 * "cpu MHz" under KVM is the TSC's, not the core's, hence this.
 * Build: cc -O2 -I src -o clock_ghz bench/clock_ghz.c src/machine/calibrate_probes.c
 * usage: clock_ghz [REPS]   prints "GHZ NS_PER_ADD" */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "machine/calibrate_probes.h"

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 7;
    if (reps < 1) {
        fprintf(stderr, "clock_ghz: REPS must be a positive number\n");
        return 2;
    }
    double ghz = calibrate_clock_ghz(reps);
    if (ghz <= 0) {
        fprintf(stderr, "clock_ghz: the add-chain probe runs on x86-64 only\n");
        return 1;
    }
    printf("%.3f %.4f\n", ghz, 1.0 / ghz);
    return 0;
}
