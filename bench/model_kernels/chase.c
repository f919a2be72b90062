/* chase.c — dependent pointer chase: next[] of N longs holds one random
 * cycle through all N entries (Sattolo's algorithm, a fixed LCG), followed
 * for 4 N steps.  Each step's address is the previous step's load, so the
 * misses cannot overlap: latency-bound once N * 8 bytes exceed the caches.
 * usage: chase N         prints the index reached and the sum of the path */
#include <stdio.h>
#include <stdlib.h>

#define LAPS 4

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    if (n < 2) {
        fprintf(stderr, "chase: N must be >= 2\n");
        return 2;
    }
    long *next = malloc(n * sizeof *next);
    if (!next) {
        fprintf(stderr, "chase: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        next[i] = i;
    unsigned long long s = 88172645463325252ULL;
    for (long i = n - 1; i > 0; i--) { /* Sattolo: one cycle of length n */
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        long j = (long)((s >> 33) % (unsigned long long)i);
        long t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    long p = 0, sum = 0;
    for (long k = 0; k < LAPS * n; k++) {
        p = next[p];
        sum += p;
    }
    printf("chase %ld %ld %ld\n", n, p, sum);
    free(next);
    return 0;
}
