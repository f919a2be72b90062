/* basis.c — the static model beside the measured runs (tests/integration/
 * test_static_db.sh): `stride3` runs a triangle over every third i, whose
 * iterations are a quasi-polynomial in n (they depend on n mod 3): the
 * static form fits the measured counts exactly where a polynomial in n
 * cannot; `scan` runs a loop annotated with n iterations that leaves at a
 * sentinel, after n/2 + 1: static and measured disagree.
 * Usage: basis N (4 <= N <= 4000). */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

/* sum over i = 1, 4, 7, ... < n of i: K + 3 K (K - 1) / 2 inner iterations, K = ceil((n - 1) / 3)
 * (from 1: GCC -O2 would drop the outer iteration i = 0, whose inner loop is empty) */
NOINLINE static double stride3(int n, double *x)
{
    double s = 0;
    for (int i = 1; i < n; i += 3)
        for (int j = 0; j < i; j++)
            s += x[j] * 0.5;
    return s;
}

/* the annotation says n; the data stop the loop at n/2 + 1 */
NOINLINE static int scan(int n, const int *a)
{
    int k = 0;
    (void)n; /* the annotation's, not the code's */
#pragma augur loop iterations(n)
    while (a[k] != 0)
        k++;
    return k;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    if (n < 4 || n > 4000) {
        fprintf(stderr, "usage: basis N (4 <= N <= 4000)\n");
        return 2;
    }
    double *x = calloc((size_t)n, sizeof *x);
    int *a = calloc((size_t)n + 1, sizeof *a);
    for (int i = 0; i < n; i++) {
        x[i] = i;
        a[i] = i != n / 2 + 1;
    }
    printf("%g %d\n", stride3(n, x), scan(n, a));
    free(x);
    free(a);
    return 0;
}
