/* grid_tail.c — fills an N x M grid of doubles and sums it; when N > 20 it
 * also sums the grid's first row again (the "tail"), so that the tail's
 * loads run in only some of a model's training runs.  Trained over
 * (N, M) = (10..40, 10) and (10, 10..40), the tail runs at two points of
 * N's line, too few for a model of its reuse distances: `augur model` names
 * that series and why (tests/integration/test_model_show.sh).
 * usage: grid_tail N M     prints the sum */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s N M\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]), m = atol(argv[2]);
    double *a = calloc((size_t)(n * m > 0 ? n * m : 1), sizeof *a), s = 0;
    if (!a)
        return 1;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++)
            a[i * m + j] = (double)(i + j);
    for (long k = 0; k < n * m; k++)
        s += a[k];
    if (n > 20)
        for (long j = 0; j < m; j++)
            s += a[j]; /* TAIL */
    printf("%.1f\n", s);
    free(a);
    return 0;
}
