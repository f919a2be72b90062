/* libcopy.c — a library routine whose code path changes with the size:
 * 1000 memcpy calls of 8*N bytes (issue 21: glibc's memcpy copies up to
 * a few vector widths without a loop, longer blocks in a loop, so a model
 * trained on short copies cannot know the cost of long ones).
 * Usage: libcopy N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 16;
    if (n < 1)
        return 2;
    double *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n);
    if (!a || !b)
        return 1;
    for (long i = 0; i < n; i++)
        a[i] = (double)i;
    double s = 0;
    for (long r = 0; r < 1000; r++) {
        memcpy(b, a, sizeof *a * (size_t)n);
        s += b[r % n];
        a[r % n] += 1;
    }
    printf("%g\n", s);
    free(a);
    free(b);
    return 0;
}
