/* ifunc_sum.c — sums N doubles R times through a function chosen by an
 * IFUNC resolver, for the start-up and loader rule (src/binary/startup.h;
 * tests/unit/test_startup.c, tests/integration/test_startup.sh): the
 * dynamic loader runs the resolver choose_sum once, while relocating the
 * program, and every call of sum reaches sum_doubles, which executes its
 * loop N R times in all.
 * usage: ifunc_sum N R     prints the last sum */
#include <stdio.h>
#include <stdlib.h>

typedef double sum_fn(const double *a, long n);

__attribute__((noinline)) static double sum_doubles(const double *a, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* The resolver: runs before main, in the loader's relocation pass. */
static sum_fn *choose_sum(void)
{
    return sum_doubles;
}

double sum(const double *a, long n) __attribute__((ifunc("choose_sum")));

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s N R\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]), r = atol(argv[2]);
    double *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a), s = 0;
    if (!a)
        return 1;
    for (long i = 0; i < n; i++)
        a[i] = (double)i;
    for (long k = 0; k < r; k++)
        s = sum(a, n);
    printf("%.1f\n", s);
    free(a);
    return 0;
}
