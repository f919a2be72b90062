/* memobjs.c — data objects of every kind, for the memspy tool's tests
 * (tests/integration/test_memspy_tool.sh), with reference counts known in
 * closed form.
 *
 * usage: memobjs N R
 *   arr      malloc(N * 64) in main: written once per 64-byte line (fill),
 *            then read R times per line (sweep): N writes, N * R reads
 *   grid     a global of GRID_LINES lines, read R times per line
 *   a, b     64 bytes each from new_block(), called on two lines of main:
 *            one innermost frame, two callers, so two objects
 *   chunk    CHUNKS blocks of 100 bytes from one line, each freed before the
 *            next is made: one object, COUNT CHUNKS, SIZE 100
 *   buf      a local array of STACK_WORDS words, written then read once
 * Each reference the tests count sits alone on a line tagged for them.
 */
#include <stdlib.h>

#define LINE_WORDS 8 /* longs per 64-byte line */
#define GRID_LINES 512
#define CHUNKS 10
#define STACK_WORDS 64

long grid[GRID_LINES * LINE_WORDS];

__attribute__((noinline)) static long sweep(const volatile long *a, long lines, long r)
{
    long s = 0;
    for (long rep = 0; rep < r; rep++)
        for (long i = 0; i < lines; i++)
            s += a[i * LINE_WORDS]; /* LOAD:sweep */
    return s;
}

__attribute__((noinline)) static void fill(volatile long *a, long lines)
{
    for (long i = 0; i < lines; i++)
        a[i * LINE_WORDS] = i; /* STORE:fill */
}

__attribute__((noinline)) static long *new_block(long bytes)
{
    return malloc(bytes); /* ALLOC:new_block */
}

__attribute__((noinline)) static void chunks(void)
{
    for (int k = 0; k < CHUNKS; k++) {
        volatile char *c = malloc(100); /* ALLOC:chunk */
        c[0] = (char)k;
        free((void *)c);
    }
}

__attribute__((noinline)) static long on_stack(void)
{
    volatile long buf[STACK_WORDS];
    long s = 0;
    for (int i = 0; i < STACK_WORDS; i++)
        buf[i] = i; /* STORE:stack */
    for (int i = 0; i < STACK_WORDS; i++)
        s += buf[i]; /* LOAD:stack */
    return s;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100, r = argc > 2 ? atol(argv[2]) : 3;
    long *arr = malloc(n * LINE_WORDS * sizeof(long)); /* ALLOC:arr */
    long *a = new_block(64); /* ALLOC:block_a */
    long *b = new_block(64); /* ALLOC:block_b */
    if (!arr || !a || !b)
        return 2;
    fill(arr, n);
    fill(a, 1);
    fill(b, 1);
    chunks();
    long s = sweep(arr, n, r) + sweep(grid, GRID_LINES, r) + sweep(a, 1, 1) + sweep(b, 1, 1);
    s += on_stack();
    free(arr);
    free(a);
    free(b);
    return (int)(s & 1);
}
