/* seed_heap.c — the program whose memspy raw files with heap objects,
 * allocation sites, threads and sharing misses seed the fuzz corpus
 * (tests/fuzz/make_seeds.sh).  Dynamically linked, so that memspy replaces
 * malloc; run with --instr-at-start no, so that only the marked region is
 * simulated and the file stays small.  In the region two threads, started
 * before it and waiting on a flag (no library code inside), write
 * counters that share a line of one heap block (false sharing), and the
 * main thread sums a second block. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

enum { ROUNDS = 2000, N = 1024 };

static atomic_int go, done;

/* Once go is set, add 1 to *counter ROUNDS times, then count in done. */
static void *count(void *counter)
{
    volatile long *c = counter;
    while (!atomic_load(&go))
        ;
    for (int i = 0; i < ROUNDS; i++)
        (*c)++;
    atomic_fetch_add(&done, 1);
    return NULL;
}

int main(void)
{
    long *counters = calloc(2, sizeof *counters);
    double *values = malloc(N * sizeof *values);
    pthread_t t[2];
    if (!counters || !values)
        return 1;
    for (int i = 0; i < N; i++)
        values[i] = i;
    for (int k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, count, &counters[k]);
    CALLGRIND_START_INSTRUMENTATION;
    atomic_store(&go, 1);
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += values[i];
    while (atomic_load(&done) < 2)
        ;
    CALLGRIND_STOP_INSTRUMENTATION;
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    int status = sum == (double)N * (N - 1) / 2 && counters[0] == ROUNDS ? 0 : 1;
    free(values);
    free(counters);
    return status;
}
