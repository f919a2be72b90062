/* walk.c — a sum of n doubles a page (4096 bytes) apart, repeated: each
 * access in a page of its own, which a prefetcher (it stays within a page)
 * does not fetch ahead, so the core waits for every miss.  From n = 257 on
 * its lines no longer fit in zen4's L2 (1 MiB, 8 ways, reached in 32 of its
 * 2048 sets at this stride: 256 lines) and come from L3: the latency term
 * of `augur static --machine`'s cycles (tests/integration/
 * test_static_latency.sh) against `augur predict --machine`.  Usage: walk N
 * REPS (N >= 1, REPS >= 1). */
#include <stdio.h>
#include <stdlib.h>

/* not inlined, and not found pure either: GCC would call it once for the
 * REPS equal calls */
#define NOIPA __attribute__((noipa))
#define STRIDE 512 /* doubles: 4096 bytes */

/* The sum of a[i * STRIDE] for i < n */
NOIPA double walk(int n, const double *a)
{
    double s = 0;
    for (int i = 0; i < n; i++) /* LOOP:walk */
        s += a[(long)i * STRIDE];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000, reps = argc > 2 ? atoi(argv[2]) : 1;
    if (n < 1 || reps < 1) {
        fprintf(stderr, "usage: walk N REPS (N >= 1, REPS >= 1)\n");
        return 2;
    }
    double *a = calloc((size_t)n * STRIDE, sizeof *a);
#pragma augur branch ratio(0)
    if (!a)
        return 1;
    double sum = 0;
    for (int r = 0; r < reps; r++) /* LOOP:reps */
        sum += walk(n, a);
    printf("%g\n", sum);
    free(a);
    return 0;
}
