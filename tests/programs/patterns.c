/* patterns.c — synthetic access patterns whose reuse distances are known in
 * closed form; the integration tests collect them and check the histograms.
 *
 * usage: patterns MODE K R
 *   sweep        R cyclic sweeps over K 64-byte lines, one load per line
 *   interleaved  R sweeps over two arrays, a[i] then b[i], K lines each
 *   stride       R sweeps over K lines reading every second 8-byte word
 *   permutation  R passes over K lines in one fixed random order
 *   matmul       C = A * B for K x K doubles (i-j-k order), R times
 *   indirect     K calls through a table of two functions, alternating
 * Each kernel's load sits alone on a line tagged "LOAD:<mode>" so the tests
 * can find it by source line.  The arrays are page-aligned and never
 * written, so the kernel's first touch of each line is cold, and the kernels
 * touch no other memory inside their loops (built -O1, see CMakeLists.txt)
 * except permutation, which also reads its order[] array: K/8 more lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 64
#define WORDS_PER_LINE (LINE / sizeof(long))

__attribute__((noinline)) static long sweep(const volatile long *a, long k, long r)
{
    long s = 0;
    for (long rep = 0; rep < r; rep++)
        for (long i = 0; i < k; i++)
            s += a[i * WORDS_PER_LINE]; /* LOAD:sweep */
    return s;
}

__attribute__((noinline)) static long interleaved(const volatile long *a, const volatile long *b, long k, long r)
{
    long s = 0;
    for (long rep = 0; rep < r; rep++)
        for (long i = 0; i < k; i++) {
            s += a[i * WORDS_PER_LINE]; /* LOAD:interleaved-a */
            s += b[i * WORDS_PER_LINE]; /* LOAD:interleaved-b */
        }
    return s;
}

__attribute__((noinline)) static long stride(const volatile long *a, long k, long r)
{
    long s = 0;
    for (long rep = 0; rep < r; rep++)
        for (long i = 0; i < k * (long)WORDS_PER_LINE; i += 2)
            s += a[i]; /* LOAD:stride */
    return s;
}

__attribute__((noinline)) static long permutation(const volatile long *a, const long *order, long k, long r)
{
    long s = 0;
    for (long rep = 0; rep < r; rep++)
        for (long i = 0; i < k; i++)
            s += a[order[i]]; /* LOAD:permutation */
    return s;
}

/* The matrix order, read from memory in the loops so that matmul() needs no
 * callee-saved register: it must not touch the stack, whose placement
 * differs between Valgrind tools and would shift its misses. */
static volatile long matmul_n;

__attribute__((noinline)) static void matmul(const double *a, const double *b, double *c)
{
    for (const double *arow = a; arow < a + matmul_n * matmul_n; arow += matmul_n, c += matmul_n)
        for (long j = 0; j < matmul_n; j++) {
            double sum = 0.0;
            const double *bp = b + j;
            for (long k = 0; k < matmul_n; k++, bp += matmul_n)
                sum += arow[k] * *bp;
            c[j] = sum;
        }
}

__attribute__((noinline)) static long add_one(long x)
{
    return x + 1;
}

__attribute__((noinline)) static long add_two(long x)
{
    return x + 2;
}

/* volatile: the compiler must not turn the calls into direct ones. */
static long (*volatile const operations[2])(long) = {add_one, add_two};

__attribute__((noinline)) static long indirect(long k)
{
    long s = 0;
    for (long i = 0; i < k; i++)
        s = operations[i & 1](s); /* CALL:indirect */
    return s;
}

/* A fixed pseudo-random permutation of line offsets (Fisher-Yates, LCG). */
static long *make_order(long k)
{
    long *order = aligned_alloc(LINE, sizeof(long) * (size_t)k + LINE);
    unsigned long x = 12345;
    for (long i = 0; i < k; i++)
        order[i] = i * (long)WORDS_PER_LINE;
    for (long i = k - 1; i > 0; i--) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        long j = (long)((x >> 33) % (unsigned long)(i + 1));
        long t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    return order;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: patterns sweep|interleaved|stride|permutation|matmul|indirect K R\n");
        return 2;
    }
    long k = atol(argv[2]), r = atol(argv[3]);
    size_t bytes = (size_t)(k * LINE > k * k * 8 ? k * LINE : k * k * 8) + 4096;
    long *a = aligned_alloc(4096, bytes);
    long *b = aligned_alloc(4096, bytes);
    long s;
    if (!strcmp(argv[1], "sweep"))
        s = sweep(a, k, r);
    else if (!strcmp(argv[1], "interleaved"))
        s = interleaved(a, b, k, r);
    else if (!strcmp(argv[1], "stride"))
        s = stride(a, k, r);
    else if (!strcmp(argv[1], "permutation")) {
        long *order = make_order(k);
        s = permutation(a, order, k, r);
        free(order);
    } else if (!strcmp(argv[1], "indirect")) {
        s = indirect(k);
    } else if (!strcmp(argv[1], "matmul")) {
        double *c = aligned_alloc(4096, sizeof(double) * (size_t)(k * k) + 4096);
        matmul_n = k;
        for (long rep = 0; rep < r; rep++)
            matmul((const double *)a, (const double *)b, c);
        s = (long)c[k + 1];
        free(c);
    } else {
        fprintf(stderr, "patterns: unknown mode %s\n", argv[1]);
        return 2;
    }
    printf("%ld\n", s);
    free(a);
    free(b);
    return 0;
}
