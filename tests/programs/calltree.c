/* calltree.c — a program with a known call tree, for the exports
 * (tests/integration/test_callgrind.sh, test_exports.sh, test_diff.sh).
 *
 * usage: calltree N K
 *   top() calls mid() K times and leaf() K times; mid() calls leaf() twice:
 *   leaf() is called 3K times, each time on the same N longs of `data`
 *   (N loads on its tagged line), so every call of it costs the
 *   same and its inclusive costs are exact under any sharing by calls.
 *   near() and far() call work() once each, on N and 8N longs: calls of
 *   one function that cost differently (the inclusive costs of near and
 *   far are shares of work's by calls; their sum is exact).
 *   rec(5) calls itself down to rec(1): a recursive cycle.
 *   Nothing is inlined (noinline), so the calls are those of the source.
 */
#include <stdio.h>
#include <stdlib.h>

#define MAX_N 4096

long data[8 * MAX_N] __attribute__((aligned(64)));

__attribute__((noinline)) long leaf(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += ((volatile long *)data)[i]; /* LOAD:leaf */
    return s;
}

__attribute__((noinline)) long mid(long n)
{
    return leaf(n) + leaf(n); /* CALL:mid-leaf */
}

__attribute__((noinline)) long top(long n, long k)
{
    long s = 0;
    for (long j = 0; j < k; j++) {
        s += mid(n);  /* CALL:top-mid */
        s += leaf(n); /* CALL:top-leaf */
    }
    return s;
}

__attribute__((noinline)) long work(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += ((volatile long *)data)[i];
    return s;
}

__attribute__((noinline)) long near(long n)
{
    return work(n) + 1;
}

__attribute__((noinline)) long far(long n)
{
    return work(8 * n) + 1;
}

__attribute__((noinline)) long rec(long d)
{
    return d <= 1 ? 1 : rec(d - 1) + d;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    long n = atol(argv[1]), k = atol(argv[2]);
    if (n < 1 || n > MAX_N || k < 1)
        return 2;
    long s = top(n, k) + near(n) + far(n) + rec(5);
    printf("%ld\n", s);
    return 0;
}
