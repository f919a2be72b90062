/* mm_conflict.c — memspy case study (a), docs/memspy-cases.md: a matrix
 * multiply whose leading dimension is a power of two, so that a column of
 * B maps to a few cache sets and evicts itself (self-interference).
 *
 * usage: mm_conflict N LD
 *   C = A * B for N x N matrices of doubles stored with leading dimension
 *   LD >= N (row i starts at i * LD); the inner loop walks a column of B.
 *   LD = N = 256: rows 2048 bytes apart, every column element in one of 2
 *   of a 32 KiB 8-way L1's 64 sets.  LD = N + 8 (one line of padding)
 *   spreads them over all sets.  Prints the checksum of C. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void multiply(long n, long ld, const double *a, const double *b, double *c)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double s = 0;
            for (long k = 0; k < n; k++)
                s += a[i * ld + k] * b[k * ld + j];
            c[i * ld + j] = s;
        }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 256, ld = argc > 2 ? atol(argv[2]) : n;
    if (n < 1 || ld < n) {
        fprintf(stderr, "usage: mm_conflict N LD (LD >= N >= 1)\n");
        return 2;
    }
    double *a = malloc(n * ld * sizeof *a); /* one line each: memspy names heap objects by line */
    double *b = malloc(n * ld * sizeof *b);
    double *c = malloc(n * ld * sizeof *c);
    if (!a || !b || !c)
        return 1;
    for (long i = 0; i < n; i++)
        for (long k = 0; k < n; k++) {
            a[i * ld + k] = (double)((i + k) % 7);
            b[i * ld + k] = (double)((i * k) % 5);
        }
    multiply(n, ld, a, b, c);
    double sum = 0;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            sum += c[i * ld + j];
    printf("%.0f\n", sum);
    free(a), free(b), free(c);
    return 0;
}
