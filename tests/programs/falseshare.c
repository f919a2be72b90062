/* falseshare.c — two threads incrementing adjacent counters of one cache
 * line (false sharing), for the memspy tool's tests.
 *
 * usage: falseshare N
 *   threads 1 and 2 each add 1 to their own counter N times; the counters
 *   are two longs of one 64-byte-aligned global, so each thread's writes
 *   invalidate the other's copy of the line without touching its bytes.
 */
#include <pthread.h>
#include <stdlib.h>

struct counters {
    volatile long a, b;
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
    pthread_t t1, t2;
    pthread_barrier_init(&start, NULL, 2);
    if (pthread_create(&t1, NULL, count, (void *)&counters.a) ||
        pthread_create(&t2, NULL, count, (void *)&counters.b))
        return 2;
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return counters.a == iterations && counters.b == iterations ? 0 : 1;
}
