/* libcols.c — a library routine whose calls and their lengths both grow
 * with the size, as gfortran's `u = 0` of an array u(0:n+1, 0:n+1) zeroes
 * it (ssor's setup, bench/kernels): one memset per column, n + 2 calls of
 * 8(n + 2) bytes.  glibc 2.36 fills up to rep_stosb_threshold (2048 bytes)
 * with 32-byte vector stores and longer blocks with `rep stosb`, which
 * Valgrind counts once per byte: the columns take it from n = 255.
 * Usage: libcols N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 16;
    if (n < 1)
        return 2;
    size_t side = (size_t)n + 2;
    double *u = malloc(sizeof *u * side * side);
    if (!u)
        return 1;
    for (size_t j = 0; j < side; j++)
        memset(u + j * side, 0, sizeof *u * side);
    u[side + 1] = 1;
    double s = 0;
    for (size_t j = 0; j < side; j++)
        s += u[j * side + j];
    printf("%g\n", s);
    free(u);
    return 0;
}
