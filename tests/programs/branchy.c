/* branchy.c — a data-dependent branch with a known outcome count, for the
 * branch-misprediction term of `augur predict --machine`
 * (tests/integration/test_predict_machine.sh).
 *
 * usage: branchy N
 *   N pseudo-random values (a fixed LCG), each sent to one of two arrays by
 *   its bit 40: a branch taken about half the time in no pattern a
 *   predictor can learn.  Prints "odd EVEN_COUNT" and "min M", M = the
 *   smaller of the two counts: the mispredictions the model predicts for
 *   it, whichever side the compiler lays out as taken.
 */
#include <stdio.h>
#include <stdlib.h>

/* Split v[0..n) into odd[] and even[] by bit 40; returns how many went to odd[]. */
__attribute__((noinline)) static long split(const unsigned long *v, long n, unsigned long *odd, unsigned long *even)
{
    long no = 0, ne = 0;
    for (long i = 0; i < n; i++) {
        if (v[i] >> 40 & 1)
            odd[no++] = v[i];
        else
            even[ne++] = v[i];
    }
    return no;
}

int main(int argc, char **argv)
{
    long n = argc == 2 ? atol(argv[1]) : 0;
    if (n < 1) {
        fprintf(stderr, "usage: branchy N (N >= 1)\n");
        return 2;
    }
    unsigned long *v = malloc(3 * n * sizeof *v), s = 12345;
    if (!v) {
        fprintf(stderr, "branchy: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        v[i] = s = s * 6364136223846793005ul + 1442695040888963407ul;
    long odd = split(v, n, v + n, v + 2 * n);
    printf("odd %ld\nmin %ld\n", odd, odd < n - odd ? odd : n - odd);
    free(v);
    return 0;
}
