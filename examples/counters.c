/* counters.c — memspy case study (b), docs/memspy-cases.md: per-thread
 * counters that share a cache line (false sharing), and the same counters
 * padded to a line each.
 *
 * usage: counters THREADS N PAD
 *   THREADS threads each add 1 to their own counter N times; PAD 0 packs
 *   the counters (8 bytes apart, one line), PAD 1 gives each a 64-byte
 *   line of its own.  Exits 0 when every counter reached N. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 16
#define LINE 64

/* Counter t lives at counters + t * stride: 8 (packed) or LINE (padded). */
static char counters[MAX_THREADS * LINE] __attribute__((aligned(LINE)));
static long stride, iterations;

static void *count(void *arg)
{
    volatile long *c = (volatile long *)(counters + (long)arg * stride);
    for (long i = 0; i < iterations; i++)
        *c += 1;
    return NULL;
}

int main(int argc, char **argv)
{
    long threads = argc > 1 ? atol(argv[1]) : 2;
    iterations = argc > 2 ? atol(argv[2]) : 100000000;
    stride = argc > 3 && atol(argv[3]) ? LINE : (long)sizeof(long);
    if (threads < 1 || threads > MAX_THREADS || iterations < 1) {
        fprintf(stderr, "usage: counters THREADS(1-%d) N PAD(0|1)\n", MAX_THREADS);
        return 2;
    }
    pthread_t t[MAX_THREADS];
    for (long i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, count, (void *)i))
            return 1;
    for (long i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    for (long i = 0; i < threads; i++)
        if (*(long *)(counters + i * stride) != iterations)
            return 1;
    return 0;
}
