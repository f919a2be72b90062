/* misskinds.c — programs made to cause one kind of miss each, for
 * tests/integration/test_memspy.sh (memspy's classification and heap
 * attribution).
 *
 * usage: misskinds MODE N
 *   true    two threads add 1 to one shared counter N times each (atomic):
 *           each thread's write invalidates the other's copy, and both
 *           write the same bytes: true sharing
 *   heap    two arrays of N longs from two malloc calls: `first` written
 *           once (N references), `second` written once and read twice
 *           (3N references)
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static long shared_counter;
static long iterations;
static pthread_barrier_t start; /* both threads begin adding together */

static void *add_shared(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start);
    for (long i = 0; i < iterations; i++)
        __atomic_fetch_add(&shared_counter, 1, __ATOMIC_RELAXED); /* RMW:shared */
    return NULL;
}

static int true_sharing(void)
{
    pthread_t t1, t2;
    pthread_barrier_init(&start, NULL, 2);
    if (pthread_create(&t1, NULL, add_shared, NULL) || pthread_create(&t2, NULL, add_shared, NULL))
        return 2;
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return shared_counter == 2 * iterations ? 0 : 1;
}

__attribute__((noinline)) static long heap_arrays(long n)
{
    volatile long *first = malloc(n * sizeof *first);  /* MALLOC:first */
    volatile long *second = malloc(n * sizeof *second); /* MALLOC:second */
    long s = 0;
    if (!first || !second)
        return -1;
    for (long i = 0; i < n; i++)
        first[i] = i;
    for (long i = 0; i < n; i++)
        second[i] = i;
    for (int rep = 0; rep < 2; rep++)
        for (long i = 0; i < n; i++)
            s += second[i];
    free((void *)first);
    free((void *)second);
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    iterations = atol(argv[2]);
    if (!strcmp(argv[1], "true"))
        return true_sharing();
    if (!strcmp(argv[1], "heap"))
        return heap_arrays(iterations) == iterations * (iterations - 1) ? 0 : 1;
    return 2;
}
