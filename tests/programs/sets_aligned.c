/* sets_aligned.c — K arrays of N 64-byte lines swept together, line by line,
 * REPS times, each array OFFSET lines further into the cache's sets than the
 * one before (tests/integration/test_sets_local.sh): with OFFSET 0 they lie
 * alike in every set (line i of each in set i), so a set of W ways holds
 * them only while K <= W, whatever the capacity; with OFFSET 1 array j's
 * line i is in set i + j.  The arrays start 1 MiB apart (a multiple of every
 * set count's period) on a fresh mapping that is never written: every first
 * touch is a first touch.  The table of their addresses, which sweep reads
 * beside them, takes the two lines just below the first array, the last two
 * sets of every set count, which the arrays leave alone while
 * N + (K - 1) OFFSET <= 62 (the closed forms of the test assume it).
 *   usage: sets_aligned K N REPS OFFSET     (K from 1 to 16)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define SPACING (1 << 20)
#define LINE 64
#define MAXK 16

/* reps passes: line i of arrays 0..k-1 (their addresses in p), for i from 0
 * to n-1; the arrays' loads are one instruction. */
__attribute__((noinline)) static long sweep(const char *const *p, int k, long n, int reps)
{
    long sum = 0;
    for (int r = 0; r < reps; r++)
        for (long i = 0; i < n; i++)
            for (int j = 0; j < k; j++)
                sum += p[j][i * LINE]; /* LOAD:sweep */
    return sum;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: sets_aligned K N REPS OFFSET\n");
        return 2;
    }
    int k = atoi(argv[1]), reps = atoi(argv[3]);
    long n = atol(argv[2]), offset = atol(argv[4]);
    if (k < 1 || k > MAXK || n < 1 || n * LINE + offset * LINE * k > SPACING || reps < 1 || offset < 0) {
        fprintf(stderr, "sets_aligned: K from 1 to %d, N and REPS positive, the arrays within 1 MiB\n", MAXK);
        return 2;
    }
    char *base = mmap(NULL, (size_t)(k + 2) * SPACING, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return 1;
    char *start = (char *)(((unsigned long)base + 2 * SPACING - 1) & ~(unsigned long)(SPACING - 1));
    const char **p = (const char **)(start - MAXK * sizeof *p); /* 128 bytes: the sets' last two lines */
    for (int j = 0; j < k; j++)
        p[j] = start + (long)j * SPACING + (long)j * offset * LINE;
    printf("%ld\n", sweep(p, k, n, reps));
    return 0;
}
