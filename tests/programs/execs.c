/* execs.c — a program that execs another, for memspy's tests of exec
 * (tests/integration/test_memspy.sh, test_memspy_tool.sh).
 *
 * usage: execs K PROGRAM ARGS...
 *   reads each of the K lines of the global `before` once (K references,
 *   on a line tagged for the tests), then execv(PROGRAM, [PROGRAM, ARGS...]).
 *   If the exec fails, it reads them all once more (on another tagged line)
 *   and exits with status 3, so a test can tell the two outcomes apart.
 */
#include <stdlib.h>
#include <unistd.h>

#define LINE_WORDS 8 /* longs per 64-byte line */
#define MAX_LINES 4096

long before[MAX_LINES * LINE_WORDS];

/* Sum one word of each of the first k lines of `before`. */
__attribute__((noinline)) static long read_before(long k)
{
    long s = 0;
    for (long i = 0; i < k; i++)
        s += ((volatile long *)before)[i * LINE_WORDS]; /* LOAD:before */
    return s;
}

/* Sum them again, after a failed exec. */
__attribute__((noinline)) static long read_after(long k)
{
    long s = 0;
    for (long i = 0; i < k; i++)
        s += ((volatile long *)before)[i * LINE_WORDS]; /* LOAD:after */
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    long k = atol(argv[1]);
    if (k < 0 || k > MAX_LINES)
        return 2;
    long s = read_before(k);
    execv(argv[2], argv + 2);
    s += read_after(k);
    return s == 0 ? 3 : 4;
}
