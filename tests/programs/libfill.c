/* libfill.c — a library routine that switches its code path at a length
 * beyond the training sizes (issue 21): 100 memset calls of 8*N bytes.
 * glibc 2.36 fills up to rep_stosb_threshold (2048 bytes by default) with
 * 32-byte vector stores and longer blocks with `rep stosb`, which Valgrind
 * counts once per byte; so a model trained at N <= 256 cannot know the
 * cost at N = 1024.
 * Usage: libfill N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 16;
    if (n < 1)
        return 2;
    double *a = malloc(sizeof *a * (size_t)n);
    if (!a)
        return 1;
    double s = 0;
    for (long r = 0; r < 100; r++) {
        memset(a, (int)r, sizeof *a * (size_t)n);
        s += a[r % n];
    }
    printf("%g\n", s);
    free(a);
    return 0;
}
