/* sweep_for.c — sweeps over a 1 MiB array until SECONDS of wall time have
 * passed, so a run under Valgrind lasts as long on a fast host as on a
 * slow one (tests/integration/test_progress.sh: progress lines need a run
 * of several intervals, and a fixed amount of work ran in under two on
 * CI's host).
 *
 * usage: sweep_for SECONDS
 * The clock is read once per sweep (131072 loads), so the run's
 * instruction count grows with the time it is given.
 */
#include <stdlib.h>
#include <time.h>

#define LONGS (1 << 17)

static long big[LONGS];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) static long sweep(const volatile long *p)
{
    long s = 0;
    for (long i = 0; i < LONGS; i++)
        s += p[i];
    return s;
}

int main(int argc, char **argv)
{
    double seconds = argc == 2 ? atof(argv[1]) : 0;
    if (seconds <= 0)
        return 2;
    double end = now() + seconds;
    long s = 0;
    do
        s += sweep(big);
    while (now() < end);
    return (int)(s & 1);
}
