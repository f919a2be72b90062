/* kernel.h — what the C kernels of the accuracy benchmark share: the problem
 * size N from the command line, allocation that ends the program when memory
 * runs out, and the fixed-seed generator their inputs come from (the 64-bit
 * LCG with Knuth's MMIX constants).  Define KERNEL_NAME (the program's name,
 * for messages) before including it. */
#ifndef AUGUR_ACCURACY_KERNEL_H
#define AUGUR_ACCURACY_KERNEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* size_arg: N from the command line "KERNEL_NAME N", min <= N <= max; else
 * prints the usage and exits with status 2. */
__attribute__((unused)) static long size_arg(int argc, char **argv, long min, long max)
{
    char *end = NULL;
    long n = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (argc != 2 || end == argv[1] || *end != '\0' || n < min || n > max) {
        fprintf(stderr, "usage: " KERNEL_NAME " N (%ld <= N <= %ld)\n", min, max);
        exit(2);
    }
    return n;
}

/* alloc: an uninitialised array of count elements of size bytes, never NULL:
 * the program ends with status 1 when it cannot have it. */
__attribute__((unused)) static void *alloc(size_t count, size_t size)
{
    void *p = count > SIZE_MAX / size ? NULL : malloc(count * size);
    if (!p) {
        fprintf(stderr, KERNEL_NAME ": out of memory (%zu x %zu bytes)\n", count, size);
        exit(1);
    }
    return p;
}

/* lcg_next: advances the generator state *s and returns its top 32 bits. */
__attribute__((unused)) static inline uint32_t lcg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*s >> 32);
}

/* fill_uniform: m[0 .. count) uniform in [-1, 1) from the generator of the
 * given seed. */
__attribute__((unused, noinline)) static void fill_uniform(long count, double *m, uint64_t seed)
{
    for (long i = 0; i < count; i++)
        m[i] = (double)lcg_next(&seed) / 2147483648.0 - 1.0;
}

/* weighted_sum: sum of v[i] (i mod 7 + 1) over v[0 .. count): a checksum
 * that changes when entries move. */
__attribute__((unused, noinline)) static double weighted_sum(long count, const double *v)
{
    double s = 0.0;
    for (long i = 0; i < count; i++)
        s += v[i] * (double)(i % 7 + 1);
    return s;
}

#endif
