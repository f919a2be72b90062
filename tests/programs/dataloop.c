/* dataloop.c — snap's shape in small (issue 21 item 1,
 * tests/integration/test_compose.sh): a sweep over N^3 cells whose cell
 * loop runs exactly N^3 times and holds a fix-up loop repeated while the
 * cell's value is negative, a number of passes that depends on the data (a
 * fixed-seed generator's draws), not on N in any polynomial way.
 *
 * The function's instructions are then the loops' overhead (exact) plus N^3
 * times a cost per cell that only the data decides; no model of the
 * training sizes can know the passes beyond them, so the prediction is a
 * range and the fix-up loop is named.  A branch taken from N = 12 on makes
 * main a function whose paths change with the size (modelset_paths.c), as
 * the validation's md build_neighbours is: its loops compose it all the
 * same.
 *
 * Usage: dataloop N.  Prints N, the fix-up passes and a checksum. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The next draw of a 64-bit LCG (Knuth's MMIX constants), its top 32 bits. */
static uint32_t draw(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(*s >> 32);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 8;
    if (n < 2 || n > 1000)
        return fprintf(stderr, "usage: dataloop N (2 <= N <= 1000)\n"), 2;
    uint64_t seed = 12345;
    long passes = 0;
    double sum = 0;
    for (long k = 0; k < n; k++)
        for (long j = 0; j < n; j++)
            for (long i = 0; i < n; i++) {
                double v = (double)(draw(&seed) % 1000) / 250.0 - 3.0; /* in [-3, 1) */
                while (v < 0) { /* the fix-up: relax until the value is not negative */
                    v = 0.5 * v + (double)(draw(&seed) % 100) / 100.0;
                    passes++;
                }
                sum += v + (double)(i + j + k);
            }
    if (n >= 12) /* code that runs at some sizes only, as md's neighbour build has: main is a path function */
        sum = -sum;
    printf("%ld %ld\n%.6g\n", n, passes, sum);
    return 0;
}
