/* memsweep.c — cyclic sweeps over a global array, for comparing memspy's
 * misses and their causes with Cachegrind and closed forms
 * (tests/integration/test_memspy_tool.sh).
 *
 * usage: memsweep LINES STRIDE R
 *   R sweeps, each reading one long at offsets 0, STRIDE, 2*STRIDE, ... of
 *   `big` (LINES reads); STRIDE 64 touches LINES consecutive 64-byte lines,
 *   STRIDE 4096 lines that all map to one set of a 64-set cache.
 * No malloc and no stdio: memspy replaces malloc and Cachegrind does not, so
 * any allocation would make the two runs' references differ.
 */
#include <stdlib.h>

#define BIG (4 << 20)

char big[BIG] __attribute__((aligned(4096)));

__attribute__((noinline)) static long sweep(const volatile char *p, long lines, long stride, long r)
{
    long s = 0;
    for (long rep = 0; rep < r; rep++)
        for (long i = 0; i < lines; i++)
            s += *(const volatile long *)(p + i * stride); /* LOAD:sweep */
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    long lines = atol(argv[1]), stride = atol(argv[2]), r = atol(argv[3]);
    if (lines < 1 || stride < 8 || lines * stride > BIG || r < 1)
        return 2;
    return (int)(sweep(big, lines, stride, r) & 1);
}
