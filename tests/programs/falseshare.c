/* falseshare.c — two threads incrementing adjacent counters of one cache
 * line (false sharing), or the same counters a line apart, for the memspy
 * tool's tests.
 *
 * usage: falseshare N [padded]
 *   threads 1 and 2 each add 1 to their own counter N times; the counters
 *   are two longs of one 64-byte-aligned global, 8 bytes apart (so each
 *   thread's writes invalidate the other's copy of the line without
 *   touching its bytes) or, with `padded`, 64 bytes apart (a line each).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define LINE_LONGS 8 /* longs per 64-byte line */

struct counters {
    volatile long v[2 * LINE_LONGS];
} __attribute__((aligned(64)));

struct counters counters;
static long iterations;
static pthread_barrier_t start; /* both threads begin counting together */

static void *count(void *arg)
{
    volatile long *c = arg;
    pthread_barrier_wait(&start);
    for (long i = 0; i < iterations; i++)
        *c += 1; /* STORE:count */
    return NULL;
}

int main(int argc, char **argv)
{
    iterations = argc > 1 ? atol(argv[1]) : 1000000;
    int second = argc > 2 && !strcmp(argv[2], "padded") ? LINE_LONGS : 1;
    pthread_t t1, t2;
    pthread_barrier_init(&start, NULL, 2);
    if (pthread_create(&t1, NULL, count, (void *)&counters.v[0]) ||
        pthread_create(&t2, NULL, count, (void *)&counters.v[second]))
        return 2;
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return counters.v[0] == iterations && counters.v[second] == iterations ? 0 : 1;
}
